// fgrad: matmul f32[3,5] <- f32[3,4] f32[4,5]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
var<workgroup> As: array<f32, 256>;
var<workgroup> Bs: array<vec2<f32>, 128>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let lid = i32(local.x);
    let tx = lid % 16i;
    let ty = lid / 16i;
    let m0 = i32(group.y) * 32i;
    let n0 = i32(group.x) * 32i;
    var acc_0_0 = vec2<f32>();
    var acc_1_0 = vec2<f32>();
    for (var r1 = 0i; r1 < 4i; r1 += 8i) {
        let v2 = (lid + 0i) / 8i;
        let v3 = (lid + 0i) % 8i;
        let v4 = m0 + v2;
        let v5 = r1 + v3;
        let v6 = min(v4, 2i);
        let v7 = min(v5, 3i);
        let v8 = b0[v6 * 4i + v7];
        As[v3 * 32i + v2] = select(0.0f, v8, v4 < 3i && v5 < 4i);
        let v9 = (lid + 0i) / 32i;
        let v10 = (lid + 0i) % 32i;
        let v11 = r1 + v9;
        let v12 = n0 + v10;
        let v13 = min(v11, 3i);
        let v14 = min(v12, 4i);
        let v15 = b1[v13 * 5i + v14];
        Bs[v9 * 16i + v10 / 2i][v10 % 2i] = select(0.0f, v15, v11 < 4i && v12 < 5i);
        workgroupBarrier();
        let v16 = As[0i + ty * 2i + 0i];
        let v17 = As[0i + ty * 2i + 1i];
        let v18 = Bs[0i + tx * 1i + 0i];
        acc_0_0 = fma(vec2<f32>(v16), v18, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v17), v18, acc_1_0);
        let v19 = As[32i + ty * 2i + 0i];
        let v20 = As[32i + ty * 2i + 1i];
        let v21 = Bs[16i + tx * 1i + 0i];
        acc_0_0 = fma(vec2<f32>(v19), v21, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v20), v21, acc_1_0);
        let v22 = As[64i + ty * 2i + 0i];
        let v23 = As[64i + ty * 2i + 1i];
        let v24 = Bs[32i + tx * 1i + 0i];
        acc_0_0 = fma(vec2<f32>(v22), v24, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v23), v24, acc_1_0);
        let v25 = As[96i + ty * 2i + 0i];
        let v26 = As[96i + ty * 2i + 1i];
        let v27 = Bs[48i + tx * 1i + 0i];
        acc_0_0 = fma(vec2<f32>(v25), v27, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v26), v27, acc_1_0);
        let v28 = As[128i + ty * 2i + 0i];
        let v29 = As[128i + ty * 2i + 1i];
        let v30 = Bs[64i + tx * 1i + 0i];
        acc_0_0 = fma(vec2<f32>(v28), v30, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v29), v30, acc_1_0);
        let v31 = As[160i + ty * 2i + 0i];
        let v32 = As[160i + ty * 2i + 1i];
        let v33 = Bs[80i + tx * 1i + 0i];
        acc_0_0 = fma(vec2<f32>(v31), v33, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v32), v33, acc_1_0);
        let v34 = As[192i + ty * 2i + 0i];
        let v35 = As[192i + ty * 2i + 1i];
        let v36 = Bs[96i + tx * 1i + 0i];
        acc_0_0 = fma(vec2<f32>(v34), v36, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v35), v36, acc_1_0);
        let v37 = As[224i + ty * 2i + 0i];
        let v38 = As[224i + ty * 2i + 1i];
        let v39 = Bs[112i + tx * 1i + 0i];
        acc_0_0 = fma(vec2<f32>(v37), v39, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v38), v39, acc_1_0);
        workgroupBarrier();
    }
    let v40 = m0 + ty * 2i + 0i;
    let v41 = n0 + tx * 2i + 0i;
    if (v40 < 3i && v41 < 5i) {
        out[v40 * 5i + v41] = acc_0_0[0];
    }
    let v42 = n0 + tx * 2i + 1i;
    if (v40 < 3i && v42 < 5i) {
        out[v40 * 5i + v42] = acc_0_0[1];
    }
    let v43 = m0 + ty * 2i + 1i;
    let v44 = n0 + tx * 2i + 0i;
    if (v43 < 3i && v44 < 5i) {
        out[v43 * 5i + v44] = acc_1_0[0];
    }
    let v45 = n0 + tx * 2i + 1i;
    if (v43 < 3i && v45 < 5i) {
        out[v43 * 5i + v45] = acc_1_0[1];
    }
}
