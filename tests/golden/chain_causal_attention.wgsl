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
    for (var r2 = 0i; r2 < 3i; r2 += 8i) {
        let v3 = (lid + 0i) / 8i;
        let v4 = (lid + 0i) % 8i;
        let v5 = m0 + v3;
        let v6 = r2 + v4;
        let v7 = min(v5, 3i);
        let v8 = min(v6, 2i);
        let v9 = b0[v1 * 12i + v7 * 3i + v8];
        As[v4 * 16i + v3 / 2i][v3 % 2i] = select(0.0f, v9, v5 < 4i && v6 < 3i);
        let v10 = (lid + 0i) % 8i;
        let v11 = (lid + 0i) / 8i;
        let v12 = r2 + v10;
        let v13 = n0 + v11;
        let v14 = min(v12, 2i);
        let v15 = min(v13, 3i);
        let v16 = b1[v1 * 12i + v15 * 3i + v14];
        Bs[v10 * 16i + v11 / 2i][v11 % 2i] = select(0.0f, v16, v12 < 3i && v13 < 4i);
        workgroupBarrier();
        let v17 = As[0i + ty * 1i + 0i];
        let v18 = Bs[0i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v17[0]), v18, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v17[1]), v18, acc_1_0);
        let v19 = As[16i + ty * 1i + 0i];
        let v20 = Bs[16i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v19[0]), v20, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v19[1]), v20, acc_1_0);
        let v21 = As[32i + ty * 1i + 0i];
        let v22 = Bs[32i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v21[0]), v22, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v21[1]), v22, acc_1_0);
        let v23 = As[48i + ty * 1i + 0i];
        let v24 = Bs[48i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v23[0]), v24, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v23[1]), v24, acc_1_0);
        let v25 = As[64i + ty * 1i + 0i];
        let v26 = Bs[64i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v25[0]), v26, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v25[1]), v26, acc_1_0);
        let v27 = As[80i + ty * 1i + 0i];
        let v28 = Bs[80i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v27[0]), v28, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v27[1]), v28, acc_1_0);
        let v29 = As[96i + ty * 1i + 0i];
        let v30 = Bs[96i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v29[0]), v30, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v29[1]), v30, acc_1_0);
        let v31 = As[112i + ty * 1i + 0i];
        let v32 = Bs[112i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v31[0]), v32, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v31[1]), v32, acc_1_0);
        workgroupBarrier();
    }
    let v33 = m0 + ty * 2i + 0i;
    let v34 = n0 + tx * 2i + 0i;
    if (v33 < 4i && v34 < 4i) {
        out[v1 * 16i + v33 * 4i + v34] = acc_0_0[0];
    }
    let v35 = n0 + tx * 2i + 1i;
    if (v33 < 4i && v35 < 4i) {
        out[v1 * 16i + v33 * 4i + v35] = acc_0_0[1];
    }
    let v36 = m0 + ty * 2i + 1i;
    let v37 = n0 + tx * 2i + 0i;
    if (v36 < 4i && v37 < 4i) {
        out[v1 * 16i + v36 * 4i + v37] = acc_1_0[0];
    }
    let v38 = n0 + tx * 2i + 1i;
    if (v36 < 4i && v38 < 4i) {
        out[v1 * 16i + v36 * 4i + v38] = acc_1_0[1];
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
