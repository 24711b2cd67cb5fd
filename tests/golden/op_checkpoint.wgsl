// fgrad: matmul_tanh_mul f32[3,3] <- f32[3,3] f32[3,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
var<workgroup> As: array<vec2<f32>, 144>;
var<workgroup> Bs: array<vec2<f32>, 144>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn tanh_f32(x: f32) -> f32 {
    let z = x * x;
    let r = select(tanh(clamp(x, -15.0f, 15.0f)), x + x * z * (((((0.002142803743481636f * z + -0.008177093230187893f) * z + 0.021700501441955566f) * z + -0.05394670367240906f) * z + 0.1333320587873459f) * z + -0.3333333134651184f), abs(x) <= 0.625f);
    return select(r, x, is_nan(x) | (x == 0.0f));
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
    let v1 = (lid + 0i) / 8i;
    let v2 = (lid + 0i) % 8i;
    let v3 = (lid + 0i) / 32i;
    let v4 = (lid + 0i) % 32i;
    {
        let v5 = m0 + v1;
        let v6 = 0i + v2;
        let v7 = min(v5, 2i);
        let v8 = min(v6, 2i);
        let v9 = b0[v7 * 3i + v8];
        let v10 = 0i + v3;
        let v11 = n0 + v4;
        let v12 = min(v10, 2i);
        let v13 = min(v11, 2i);
        let v14 = b1[v12 * 3i + v13];
        As[v2 * 18i + v1 / 2i][v1 % 2i] = select(0.0f, v9, v5 < 3i && v6 < 3i);
        Bs[v3 * 18i + v4 / 2i][v4 % 2i] = select(0.0f, v14, v10 < 3i && v11 < 3i);
    }
    workgroupBarrier();
    var next_0 = 0.0f;
    var next_1 = 0.0f;
    for (var r15 = 0i; r15 < 3i; r15 += 8i) {
        if (r15 + 8i < 3i) {
            let v16 = m0 + v1;
            let v17 = r15 + 8i + v2;
            let v18 = min(v16, 2i);
            let v19 = min(v17, 2i);
            let v20 = b0[v18 * 3i + v19];
            let v21 = r15 + 8i + v3;
            let v22 = n0 + v4;
            let v23 = min(v21, 2i);
            let v24 = min(v22, 2i);
            let v25 = b1[v23 * 3i + v24];
            next_0 = select(0.0f, v20, v16 < 3i && v17 < 3i);
            next_1 = select(0.0f, v25, v21 < 3i && v22 < 3i);
        }
        let v26 = As[0i + ty * 1i + 0i];
        let v27 = Bs[0i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v26[0]), v27, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v26[1]), v27, acc_1_0);
        let v28 = As[18i + ty * 1i + 0i];
        let v29 = Bs[18i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v28[0]), v29, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v28[1]), v29, acc_1_0);
        let v30 = As[36i + ty * 1i + 0i];
        let v31 = Bs[36i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v30[0]), v31, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v30[1]), v31, acc_1_0);
        let v32 = As[54i + ty * 1i + 0i];
        let v33 = Bs[54i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v32[0]), v33, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v32[1]), v33, acc_1_0);
        let v34 = As[72i + ty * 1i + 0i];
        let v35 = Bs[72i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v34[0]), v35, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v34[1]), v35, acc_1_0);
        let v36 = As[90i + ty * 1i + 0i];
        let v37 = Bs[90i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v36[0]), v37, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v36[1]), v37, acc_1_0);
        let v38 = As[108i + ty * 1i + 0i];
        let v39 = Bs[108i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v38[0]), v39, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v38[1]), v39, acc_1_0);
        let v40 = As[126i + ty * 1i + 0i];
        let v41 = Bs[126i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v40[0]), v41, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v40[1]), v41, acc_1_0);
        workgroupBarrier();
        if (r15 + 8i < 3i) {
            As[v2 * 18i + v1 / 2i][v1 % 2i] = next_0;
            Bs[v3 * 18i + v4 / 2i][v4 % 2i] = next_1;
        }
        workgroupBarrier();
    }
    let v42 = m0 + ty * 2i + 0i;
    let v43 = n0 + tx * 2i + 0i;
    if (v42 < 3i && v43 < 3i) {
        let v44 = acc_0_0[0];
        let v45 = tanh_f32(v44);
        let v46 = b0[v42 * 3i + v43];
        let v47 = (v45 * v46);
        out[v42 * 3i + v43] = v47;
    }
    let v48 = n0 + tx * 2i + 1i;
    if (v42 < 3i && v48 < 3i) {
        let v49 = acc_0_0[1];
        let v50 = tanh_f32(v49);
        let v51 = b0[v42 * 3i + v48];
        let v52 = (v50 * v51);
        out[v42 * 3i + v48] = v52;
    }
    let v53 = m0 + ty * 2i + 1i;
    let v54 = n0 + tx * 2i + 0i;
    if (v53 < 3i && v54 < 3i) {
        let v55 = acc_1_0[0];
        let v56 = tanh_f32(v55);
        let v57 = b0[v53 * 3i + v54];
        let v58 = (v56 * v57);
        out[v53 * 3i + v54] = v58;
    }
    let v59 = n0 + tx * 2i + 1i;
    if (v53 < 3i && v59 < 3i) {
        let v60 = acc_1_0[1];
        let v61 = tanh_f32(v60);
        let v62 = b0[v53 * 3i + v59];
        let v63 = (v61 * v62);
        out[v53 * 3i + v59] = v63;
    }
}
