// fgrad: matmul f32[2,4,4] <- f32[2,4,3] f32[2,4,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
var<workgroup> As: array<vec2<f32>, 272>;
var<workgroup> Bs: array<vec2<f32>, 272>;

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
    let v2 = (lid + 0i) / 16i;
    let v3 = (lid + 0i) % 16i;
    let v4 = (lid + 256i) / 16i;
    let v5 = (lid + 256i) % 16i;
    let v6 = (lid + 0i) % 16i;
    let v7 = (lid + 0i) / 16i;
    let v8 = (lid + 256i) % 16i;
    let v9 = (lid + 256i) / 16i;
    {
        let v10 = m0 + v2;
        let v11 = 0i + v3;
        let v12 = min(v10, 3i);
        let v13 = min(v11, 2i);
        let v14 = b0[v1 * 12i + v12 * 3i + v13];
        let v15 = m0 + v4;
        let v16 = 0i + v5;
        let v17 = min(v15, 3i);
        let v18 = min(v16, 2i);
        let v19 = b0[v1 * 12i + v17 * 3i + v18];
        let v20 = 0i + v6;
        let v21 = n0 + v7;
        let v22 = min(v20, 2i);
        let v23 = min(v21, 3i);
        let v24 = b1[v1 * 12i + v23 * 3i + v22];
        let v25 = 0i + v8;
        let v26 = n0 + v9;
        let v27 = min(v25, 2i);
        let v28 = min(v26, 3i);
        let v29 = b1[v1 * 12i + v28 * 3i + v27];
        As[v3 * 17i + v2 / 2i][v2 % 2i] = select(0.0f, v14, v10 < 4i && v11 < 3i);
        As[v5 * 17i + v4 / 2i][v4 % 2i] = select(0.0f, v19, v15 < 4i && v16 < 3i);
        Bs[v6 * 17i + v7 / 2i][v7 % 2i] = select(0.0f, v24, v20 < 3i && v21 < 4i);
        Bs[v8 * 17i + v9 / 2i][v9 % 2i] = select(0.0f, v29, v25 < 3i && v26 < 4i);
    }
    workgroupBarrier();
    var next_0 = 0.0f;
    var next_1 = 0.0f;
    var next_2 = 0.0f;
    var next_3 = 0.0f;
    for (var r30 = 0i; r30 < 3i; r30 += 16i) {
        if (r30 + 16i < 3i) {
            let v31 = m0 + v2;
            let v32 = r30 + 16i + v3;
            let v33 = min(v31, 3i);
            let v34 = min(v32, 2i);
            let v35 = b0[v1 * 12i + v33 * 3i + v34];
            let v36 = m0 + v4;
            let v37 = r30 + 16i + v5;
            let v38 = min(v36, 3i);
            let v39 = min(v37, 2i);
            let v40 = b0[v1 * 12i + v38 * 3i + v39];
            let v41 = r30 + 16i + v6;
            let v42 = n0 + v7;
            let v43 = min(v41, 2i);
            let v44 = min(v42, 3i);
            let v45 = b1[v1 * 12i + v44 * 3i + v43];
            let v46 = r30 + 16i + v8;
            let v47 = n0 + v9;
            let v48 = min(v46, 2i);
            let v49 = min(v47, 3i);
            let v50 = b1[v1 * 12i + v49 * 3i + v48];
            next_0 = select(0.0f, v35, v31 < 4i && v32 < 3i);
            next_1 = select(0.0f, v40, v36 < 4i && v37 < 3i);
            next_2 = select(0.0f, v45, v41 < 3i && v42 < 4i);
            next_3 = select(0.0f, v50, v46 < 3i && v47 < 4i);
        }
        let v51 = As[0i + ty * 1i + 0i];
        let v52 = Bs[0i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v51[0]), v52, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v51[1]), v52, acc_1_0);
        let v53 = As[17i + ty * 1i + 0i];
        let v54 = Bs[17i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v53[0]), v54, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v53[1]), v54, acc_1_0);
        let v55 = As[34i + ty * 1i + 0i];
        let v56 = Bs[34i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v55[0]), v56, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v55[1]), v56, acc_1_0);
        let v57 = As[51i + ty * 1i + 0i];
        let v58 = Bs[51i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v57[0]), v58, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v57[1]), v58, acc_1_0);
        let v59 = As[68i + ty * 1i + 0i];
        let v60 = Bs[68i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v59[0]), v60, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v59[1]), v60, acc_1_0);
        let v61 = As[85i + ty * 1i + 0i];
        let v62 = Bs[85i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v61[0]), v62, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v61[1]), v62, acc_1_0);
        let v63 = As[102i + ty * 1i + 0i];
        let v64 = Bs[102i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v63[0]), v64, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v63[1]), v64, acc_1_0);
        let v65 = As[119i + ty * 1i + 0i];
        let v66 = Bs[119i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v65[0]), v66, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v65[1]), v66, acc_1_0);
        let v67 = As[136i + ty * 1i + 0i];
        let v68 = Bs[136i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v67[0]), v68, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v67[1]), v68, acc_1_0);
        let v69 = As[153i + ty * 1i + 0i];
        let v70 = Bs[153i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v69[0]), v70, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v69[1]), v70, acc_1_0);
        let v71 = As[170i + ty * 1i + 0i];
        let v72 = Bs[170i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v71[0]), v72, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v71[1]), v72, acc_1_0);
        let v73 = As[187i + ty * 1i + 0i];
        let v74 = Bs[187i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v73[0]), v74, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v73[1]), v74, acc_1_0);
        let v75 = As[204i + ty * 1i + 0i];
        let v76 = Bs[204i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v75[0]), v76, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v75[1]), v76, acc_1_0);
        let v77 = As[221i + ty * 1i + 0i];
        let v78 = Bs[221i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v77[0]), v78, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v77[1]), v78, acc_1_0);
        let v79 = As[238i + ty * 1i + 0i];
        let v80 = Bs[238i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v79[0]), v80, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v79[1]), v80, acc_1_0);
        let v81 = As[255i + ty * 1i + 0i];
        let v82 = Bs[255i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v81[0]), v82, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v81[1]), v82, acc_1_0);
        workgroupBarrier();
        if (r30 + 16i < 3i) {
            As[v3 * 17i + v2 / 2i][v2 % 2i] = next_0;
            As[v5 * 17i + v4 / 2i][v4 % 2i] = next_1;
            Bs[v6 * 17i + v7 / 2i][v7 % 2i] = next_2;
            Bs[v8 * 17i + v9 / 2i][v9 % 2i] = next_3;
        }
        workgroupBarrier();
    }
    let v83 = m0 + ty * 2i + 0i;
    let v84 = n0 + tx * 2i + 0i;
    if (v83 < 4i && v84 < 4i) {
        out[v1 * 16i + v83 * 4i + v84] = acc_0_0[0];
    }
    let v85 = n0 + tx * 2i + 1i;
    if (v83 < 4i && v85 < 4i) {
        out[v1 * 16i + v83 * 4i + v85] = acc_0_0[1];
    }
    let v86 = m0 + ty * 2i + 1i;
    let v87 = n0 + tx * 2i + 0i;
    if (v86 < 4i && v87 < 4i) {
        out[v1 * 16i + v86 * 4i + v87] = acc_1_0[0];
    }
    let v88 = n0 + tx * 2i + 1i;
    if (v86 < 4i && v88 < 4i) {
        out[v1 * 16i + v86 * 4i + v88] = acc_1_0[1];
    }
}

// fgrad: div_ge_where_softmax f32[2,4,4] <- f32[2,4,4]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn scaled_f32(v: f32, k: f32) -> f32 {
    let s = clamp(k, -126.0f, 127.0f);
    return v * bitcast<f32>(u32(i32(s) + 127i) << 23u) *
        bitcast<f32>(u32(i32(clamp(k - s, -126.0f, 127.0f)) + 127i) << 23u);
}
fn exp_f32(x: f32) -> f32 {
    let c = clamp(x, -104.0f, 89.0f);
    let n = round(c * 1.442695f);
    let r = (c - n * 0.693359375f) - n * -0.00021219444f;
    return select(scaled_f32(1.0f + r + r * r * (((((0.00019825759227387607f * r + 0.0013948323903605342f) * r + 0.008333438076078892f) * r + 0.041666239500045776f) * r + 0.1666666567325592f) * r + 0.5f), n), x, is_nan(x));
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 32i) {
        return;
    }
    let v1 = i32(u32(i) / 16u);
    let v2 = i32(u32(i) / 4u % 4u);
    let v3 = i32(u32(i) % 4u);
    var a4: f32 = bitcast<f32>(0xff800000u);
    let v5 = 0i;
    let v6 = (v2 >= v5);
    let v7 = b0[v1 * 16i + v2 * 4i];
    let v8 = 2.0f;
    let v9 = (v7 / v8);
    let v10 = -1000000000.0f;
    let v11 = select(v10, v9, v6);
    a4 = max(a4, v11);
    let v12 = 1i;
    let v13 = (v2 >= v12);
    let v14 = b0[v1 * 16i + v2 * 4i + 1i];
    let v15 = (v14 / v8);
    let v16 = select(v10, v15, v13);
    a4 = max(a4, v16);
    let v17 = 2i;
    let v18 = (v2 >= v17);
    let v19 = b0[v1 * 16i + v2 * 4i + 2i];
    let v20 = (v19 / v8);
    let v21 = select(v10, v20, v18);
    a4 = max(a4, v21);
    let v22 = 3i;
    let v23 = (v2 >= v22);
    let v24 = b0[v1 * 16i + v2 * 4i + 3i];
    let v25 = (v24 / v8);
    let v26 = select(v10, v25, v23);
    a4 = max(a4, v26);
    var a27: f32 = 0.0f;
    a27 = a27 + exp_f32(v11 - a4);
    a27 = a27 + exp_f32(v16 - a4);
    a27 = a27 + exp_f32(v21 - a4);
    a27 = a27 + exp_f32(v26 - a4);
    let v28 = (v2 >= v3);
    let v29 = b0[i];
    let v30 = (v29 / v8);
    let v31 = select(v10, v30, v28);
    let v32 = exp_f32(v31 - a4) / a27;
    out[i] = v32;
}
