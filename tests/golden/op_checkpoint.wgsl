// fgrad: matmul_tanh_mul f32[3,3] <- f32[3,3] f32[3,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
var<workgroup> As: array<vec2<f32>, 128>;
var<workgroup> Bs: array<vec2<f32>, 128>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

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
    for (var r1 = 0i; r1 < 3i; r1 += 8i) {
        let v2 = (lid + 0i) / 8i;
        let v3 = (lid + 0i) % 8i;
        let v4 = m0 + v2;
        let v5 = r1 + v3;
        let v6 = min(v4, 2i);
        let v7 = min(v5, 2i);
        let v8 = b0[v6 * 3i + v7];
        As[v3 * 16i + v2 / 2i][v2 % 2i] = select(0.0f, v8, v4 < 3i && v5 < 3i);
        let v9 = (lid + 0i) / 32i;
        let v10 = (lid + 0i) % 32i;
        let v11 = r1 + v9;
        let v12 = n0 + v10;
        let v13 = min(v11, 2i);
        let v14 = min(v12, 2i);
        let v15 = b1[v13 * 3i + v14];
        Bs[v9 * 16i + v10 / 2i][v10 % 2i] = select(0.0f, v15, v11 < 3i && v12 < 3i);
        workgroupBarrier();
        let v16 = As[0i + ty * 1i + 0i];
        let v17 = Bs[0i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v16[0]), v17, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v16[1]), v17, acc_1_0);
        let v18 = As[16i + ty * 1i + 0i];
        let v19 = Bs[16i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v18[0]), v19, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v18[1]), v19, acc_1_0);
        let v20 = As[32i + ty * 1i + 0i];
        let v21 = Bs[32i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v20[0]), v21, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v20[1]), v21, acc_1_0);
        let v22 = As[48i + ty * 1i + 0i];
        let v23 = Bs[48i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v22[0]), v23, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v22[1]), v23, acc_1_0);
        let v24 = As[64i + ty * 1i + 0i];
        let v25 = Bs[64i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v24[0]), v25, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v24[1]), v25, acc_1_0);
        let v26 = As[80i + ty * 1i + 0i];
        let v27 = Bs[80i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v26[0]), v27, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v26[1]), v27, acc_1_0);
        let v28 = As[96i + ty * 1i + 0i];
        let v29 = Bs[96i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v28[0]), v29, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v28[1]), v29, acc_1_0);
        let v30 = As[112i + ty * 1i + 0i];
        let v31 = Bs[112i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v30[0]), v31, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v30[1]), v31, acc_1_0);
        workgroupBarrier();
    }
    let v32 = m0 + ty * 2i + 0i;
    let v33 = n0 + tx * 2i + 0i;
    if (v32 < 3i && v33 < 3i) {
        let v34 = acc_0_0[0];
        let v35 = select(tanh(clamp(v34, -15.0f, 15.0f)), v34, is_nan(v34));
        let v36 = b0[v32 * 3i + v33];
        let v37 = (v35 * v36);
        out[v32 * 3i + v33] = v37;
    }
    let v38 = n0 + tx * 2i + 1i;
    if (v32 < 3i && v38 < 3i) {
        let v39 = acc_0_0[1];
        let v40 = select(tanh(clamp(v39, -15.0f, 15.0f)), v39, is_nan(v39));
        let v41 = b0[v32 * 3i + v38];
        let v42 = (v40 * v41);
        out[v32 * 3i + v38] = v42;
    }
    let v43 = m0 + ty * 2i + 1i;
    let v44 = n0 + tx * 2i + 0i;
    if (v43 < 3i && v44 < 3i) {
        let v45 = acc_1_0[0];
        let v46 = select(tanh(clamp(v45, -15.0f, 15.0f)), v45, is_nan(v45));
        let v47 = b0[v43 * 3i + v44];
        let v48 = (v46 * v47);
        out[v43 * 3i + v44] = v48;
    }
    let v49 = n0 + tx * 2i + 1i;
    if (v43 < 3i && v49 < 3i) {
        let v50 = acc_1_0[1];
        let v51 = select(tanh(clamp(v50, -15.0f, 15.0f)), v50, is_nan(v50));
        let v52 = b0[v43 * 3i + v49];
        let v53 = (v51 * v52);
        out[v43 * 3i + v49] = v53;
    }
}
