// fgrad: matmul f32[2,4,4] <- f32[2,4,3] f32[2,4,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
var<workgroup> As: array<vec2<f32>, 128>;
var<workgroup> Bs: array<vec2<f32>, 128>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let lid = i32(local.x);
    let tx = lid % 16i;
    let ty = lid / 16i;
    let m0 = i32(group.y) * 32i;
    let n0 = i32(group.x) * 32i;
    let v1 = i32(group.z);
    var acc_0_0 = vec2<f32>();
    var acc_1_0 = vec2<f32>();
    let v2 = (lid + 0i) / 8i;
    let v3 = (lid + 0i) % 8i;
    let v4 = (lid + 0i) % 8i;
    let v5 = (lid + 0i) / 8i;
    {
        let v6 = m0 + v2;
        let v7 = 0i + v3;
        let v8 = min(v6, 3i);
        let v9 = min(v7, 2i);
        let v10 = b0[v1 * 12i + v8 * 3i + v9];
        let v11 = 0i + v4;
        let v12 = n0 + v5;
        let v13 = min(v11, 2i);
        let v14 = min(v12, 3i);
        let v15 = b1[v1 * 12i + v14 * 3i + v13];
        As[v3 * 16i + v2 / 2i][v2 % 2i] = select(0.0f, v10, v6 < 4i && v7 < 3i);
        Bs[v4 * 16i + v5 / 2i][v5 % 2i] = select(0.0f, v15, v11 < 3i && v12 < 4i);
    }
    workgroupBarrier();
    var next_0 = 0.0f;
    var next_1 = 0.0f;
    for (var r16 = 0i; r16 < 3i; r16 += 8i) {
        if (r16 + 8i < 3i) {
            let v17 = m0 + v2;
            let v18 = r16 + 8i + v3;
            let v19 = min(v17, 3i);
            let v20 = min(v18, 2i);
            let v21 = b0[v1 * 12i + v19 * 3i + v20];
            let v22 = r16 + 8i + v4;
            let v23 = n0 + v5;
            let v24 = min(v22, 2i);
            let v25 = min(v23, 3i);
            let v26 = b1[v1 * 12i + v25 * 3i + v24];
            next_0 = select(0.0f, v21, v17 < 4i && v18 < 3i);
            next_1 = select(0.0f, v26, v22 < 3i && v23 < 4i);
        }
        let v27 = As[0i + ty * 1i + 0i];
        let v28 = Bs[0i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v27[0]), v28, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v27[1]), v28, acc_1_0);
        let v29 = As[16i + ty * 1i + 0i];
        let v30 = Bs[16i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v29[0]), v30, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v29[1]), v30, acc_1_0);
        let v31 = As[32i + ty * 1i + 0i];
        let v32 = Bs[32i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v31[0]), v32, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v31[1]), v32, acc_1_0);
        let v33 = As[48i + ty * 1i + 0i];
        let v34 = Bs[48i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v33[0]), v34, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v33[1]), v34, acc_1_0);
        let v35 = As[64i + ty * 1i + 0i];
        let v36 = Bs[64i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v35[0]), v36, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v35[1]), v36, acc_1_0);
        let v37 = As[80i + ty * 1i + 0i];
        let v38 = Bs[80i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v37[0]), v38, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v37[1]), v38, acc_1_0);
        let v39 = As[96i + ty * 1i + 0i];
        let v40 = Bs[96i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v39[0]), v40, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v39[1]), v40, acc_1_0);
        let v41 = As[112i + ty * 1i + 0i];
        let v42 = Bs[112i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v41[0]), v42, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v41[1]), v42, acc_1_0);
        workgroupBarrier();
        if (r16 + 8i < 3i) {
            As[v3 * 16i + v2 / 2i][v2 % 2i] = next_0;
            Bs[v4 * 16i + v5 / 2i][v5 % 2i] = next_1;
        }
        workgroupBarrier();
    }
    let v43 = m0 + ty * 2i + 0i;
    let v44 = n0 + tx * 2i + 0i;
    if (v43 < 4i && v44 < 4i) {
        out[v1 * 16i + v43 * 4i + v44] = acc_0_0[0];
    }
    let v45 = n0 + tx * 2i + 1i;
    if (v43 < 4i && v45 < 4i) {
        out[v1 * 16i + v43 * 4i + v45] = acc_0_0[1];
    }
    let v46 = m0 + ty * 2i + 1i;
    let v47 = n0 + tx * 2i + 0i;
    if (v46 < 4i && v47 < 4i) {
        out[v1 * 16i + v46 * 4i + v47] = acc_1_0[0];
    }
    let v48 = n0 + tx * 2i + 1i;
    if (v46 < 4i && v48 < 4i) {
        out[v1 * 16i + v46 * 4i + v48] = acc_1_0[1];
    }
}

// fgrad: div_ge_where_softmax f32[2,4,4] <- f32[2,4,4]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 32i) {
        return;
    }
    let v1 = i / 16i;
    let v2 = (i / 4i) % 4i;
    let v3 = (i) % 4i;
    var a4: f32 = bitcast<f32>(0xff800000u);
    for (var r5 = 0i; r5 < 4i; r5++) {
        let v6 = (v2 >= r5);
        let v7 = b0[v1 * 16i + v2 * 4i + r5];
        let v8 = 2.0f;
        let v9 = (v7 / v8);
        let v10 = -1000000000.0f;
        let v11 = select(v10, v9, v6);
        a4 = max(a4, v11);
    }
    var a12: f32 = 0.0f;
    for (var r13 = 0i; r13 < 4i; r13++) {
        let v14 = (v2 >= r13);
        let v15 = b0[v1 * 16i + v2 * 4i + r13];
        let v16 = 2.0f;
        let v17 = (v15 / v16);
        let v18 = -1000000000.0f;
        let v19 = select(v18, v17, v14);
        a12 = a12 + exp(v19 - a4);
    }
    let v20 = (v2 >= v3);
    let v21 = b0[i];
    let v22 = 2.0f;
    let v23 = (v21 / v22);
    let v24 = -1000000000.0f;
    let v25 = select(v24, v23, v20);
    let v26 = exp(v25 - a4) / a12;
    out[i] = v26;
}
