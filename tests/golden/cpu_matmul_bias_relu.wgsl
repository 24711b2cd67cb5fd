// fgrad: matmul_add_relu f32[30,20] <- f32[30,16] f32[16,20] f32[20]
@group(0) @binding(0) var<storage, read> b0: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read> b2: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn max_f32(a: f32, b: f32) -> f32 {
    return select(max(a, b), a + b, is_nan(a) | is_nan(b));
}

@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let lid = i32(local.x);
    let m0 = i32(group.y) * 8i;
    let n0 = (i32(group.x) * 8i + lid) * 2i;
    let v1 = m0 + 0i;
    let v2 = m0 + 1i;
    let v3 = m0 + 2i;
    let v4 = m0 + 3i;
    let v5 = m0 + 4i;
    let v6 = m0 + 5i;
    let v7 = m0 + 6i;
    let v8 = m0 + 7i;
    let v9 = n0 + 0i;
    let v10 = n0 + 1i;
    let v11 = min(v1, 29i);
    let v12 = min(v2, 29i);
    let v13 = min(v3, 29i);
    let v14 = min(v4, 29i);
    let v15 = min(v5, 29i);
    let v16 = min(v6, 29i);
    let v17 = min(v7, 29i);
    let v18 = min(v8, 29i);
    let v19 = min(v9, 19i);
    let v20 = min(v10, 19i);
    var acc_0_0 = 0.0f;
    var acc_0_1 = 0.0f;
    var acc_1_0 = 0.0f;
    var acc_1_1 = 0.0f;
    var acc_2_0 = 0.0f;
    var acc_2_1 = 0.0f;
    var acc_3_0 = 0.0f;
    var acc_3_1 = 0.0f;
    var acc_4_0 = 0.0f;
    var acc_4_1 = 0.0f;
    var acc_5_0 = 0.0f;
    var acc_5_1 = 0.0f;
    var acc_6_0 = 0.0f;
    var acc_6_1 = 0.0f;
    var acc_7_0 = 0.0f;
    var acc_7_1 = 0.0f;
    for (var r21 = 0i; r21 < 16i; r21 += 4i) {
        let v22 = r21 + 1i;
        let v23 = r21 + 2i;
        let v24 = r21 + 3i;
        let v25 = r21 / 4i;
        let v26 = b0[v11 * 4i + v25];
        let v27 = b0[v12 * 4i + v25];
        let v28 = b0[v13 * 4i + v25];
        let v29 = b0[v14 * 4i + v25];
        let v30 = b0[v15 * 4i + v25];
        let v31 = b0[v16 * 4i + v25];
        let v32 = b0[v17 * 4i + v25];
        let v33 = b0[v18 * 4i + v25];
        let v34 = b1[r21 * 20i + v19];
        let v35 = b1[r21 * 20i + v20];
        acc_0_0 = fma(v26.x, v34, acc_0_0);
        acc_0_1 = fma(v26.x, v35, acc_0_1);
        acc_1_0 = fma(v27.x, v34, acc_1_0);
        acc_1_1 = fma(v27.x, v35, acc_1_1);
        acc_2_0 = fma(v28.x, v34, acc_2_0);
        acc_2_1 = fma(v28.x, v35, acc_2_1);
        acc_3_0 = fma(v29.x, v34, acc_3_0);
        acc_3_1 = fma(v29.x, v35, acc_3_1);
        acc_4_0 = fma(v30.x, v34, acc_4_0);
        acc_4_1 = fma(v30.x, v35, acc_4_1);
        acc_5_0 = fma(v31.x, v34, acc_5_0);
        acc_5_1 = fma(v31.x, v35, acc_5_1);
        acc_6_0 = fma(v32.x, v34, acc_6_0);
        acc_6_1 = fma(v32.x, v35, acc_6_1);
        acc_7_0 = fma(v33.x, v34, acc_7_0);
        acc_7_1 = fma(v33.x, v35, acc_7_1);
        let v36 = b1[v22 * 20i + v19];
        let v37 = b1[v22 * 20i + v20];
        acc_0_0 = fma(v26.y, v36, acc_0_0);
        acc_0_1 = fma(v26.y, v37, acc_0_1);
        acc_1_0 = fma(v27.y, v36, acc_1_0);
        acc_1_1 = fma(v27.y, v37, acc_1_1);
        acc_2_0 = fma(v28.y, v36, acc_2_0);
        acc_2_1 = fma(v28.y, v37, acc_2_1);
        acc_3_0 = fma(v29.y, v36, acc_3_0);
        acc_3_1 = fma(v29.y, v37, acc_3_1);
        acc_4_0 = fma(v30.y, v36, acc_4_0);
        acc_4_1 = fma(v30.y, v37, acc_4_1);
        acc_5_0 = fma(v31.y, v36, acc_5_0);
        acc_5_1 = fma(v31.y, v37, acc_5_1);
        acc_6_0 = fma(v32.y, v36, acc_6_0);
        acc_6_1 = fma(v32.y, v37, acc_6_1);
        acc_7_0 = fma(v33.y, v36, acc_7_0);
        acc_7_1 = fma(v33.y, v37, acc_7_1);
        let v38 = b1[v23 * 20i + v19];
        let v39 = b1[v23 * 20i + v20];
        acc_0_0 = fma(v26.z, v38, acc_0_0);
        acc_0_1 = fma(v26.z, v39, acc_0_1);
        acc_1_0 = fma(v27.z, v38, acc_1_0);
        acc_1_1 = fma(v27.z, v39, acc_1_1);
        acc_2_0 = fma(v28.z, v38, acc_2_0);
        acc_2_1 = fma(v28.z, v39, acc_2_1);
        acc_3_0 = fma(v29.z, v38, acc_3_0);
        acc_3_1 = fma(v29.z, v39, acc_3_1);
        acc_4_0 = fma(v30.z, v38, acc_4_0);
        acc_4_1 = fma(v30.z, v39, acc_4_1);
        acc_5_0 = fma(v31.z, v38, acc_5_0);
        acc_5_1 = fma(v31.z, v39, acc_5_1);
        acc_6_0 = fma(v32.z, v38, acc_6_0);
        acc_6_1 = fma(v32.z, v39, acc_6_1);
        acc_7_0 = fma(v33.z, v38, acc_7_0);
        acc_7_1 = fma(v33.z, v39, acc_7_1);
        let v40 = b1[v24 * 20i + v19];
        let v41 = b1[v24 * 20i + v20];
        acc_0_0 = fma(v26.w, v40, acc_0_0);
        acc_0_1 = fma(v26.w, v41, acc_0_1);
        acc_1_0 = fma(v27.w, v40, acc_1_0);
        acc_1_1 = fma(v27.w, v41, acc_1_1);
        acc_2_0 = fma(v28.w, v40, acc_2_0);
        acc_2_1 = fma(v28.w, v41, acc_2_1);
        acc_3_0 = fma(v29.w, v40, acc_3_0);
        acc_3_1 = fma(v29.w, v41, acc_3_1);
        acc_4_0 = fma(v30.w, v40, acc_4_0);
        acc_4_1 = fma(v30.w, v41, acc_4_1);
        acc_5_0 = fma(v31.w, v40, acc_5_0);
        acc_5_1 = fma(v31.w, v41, acc_5_1);
        acc_6_0 = fma(v32.w, v40, acc_6_0);
        acc_6_1 = fma(v32.w, v41, acc_6_1);
        acc_7_0 = fma(v33.w, v40, acc_7_0);
        acc_7_1 = fma(v33.w, v41, acc_7_1);
    }
    if (v1 < 30i && v9 < 20i) {
        let v42 = b2[v9];
        let v43 = (acc_0_0 + v42);
        let v44 = max_f32(v43, 0.0f);
        out[v1 * 20i + v9] = v44;
    }
    if (v1 < 30i && v10 < 20i) {
        let v45 = b2[v10];
        let v46 = (acc_0_1 + v45);
        let v47 = max_f32(v46, 0.0f);
        out[v1 * 20i + v10] = v47;
    }
    if (v2 < 30i && v9 < 20i) {
        let v48 = b2[v9];
        let v49 = (acc_1_0 + v48);
        let v50 = max_f32(v49, 0.0f);
        out[v2 * 20i + v9] = v50;
    }
    if (v2 < 30i && v10 < 20i) {
        let v51 = b2[v10];
        let v52 = (acc_1_1 + v51);
        let v53 = max_f32(v52, 0.0f);
        out[v2 * 20i + v10] = v53;
    }
    if (v3 < 30i && v9 < 20i) {
        let v54 = b2[v9];
        let v55 = (acc_2_0 + v54);
        let v56 = max_f32(v55, 0.0f);
        out[v3 * 20i + v9] = v56;
    }
    if (v3 < 30i && v10 < 20i) {
        let v57 = b2[v10];
        let v58 = (acc_2_1 + v57);
        let v59 = max_f32(v58, 0.0f);
        out[v3 * 20i + v10] = v59;
    }
    if (v4 < 30i && v9 < 20i) {
        let v60 = b2[v9];
        let v61 = (acc_3_0 + v60);
        let v62 = max_f32(v61, 0.0f);
        out[v4 * 20i + v9] = v62;
    }
    if (v4 < 30i && v10 < 20i) {
        let v63 = b2[v10];
        let v64 = (acc_3_1 + v63);
        let v65 = max_f32(v64, 0.0f);
        out[v4 * 20i + v10] = v65;
    }
    if (v5 < 30i && v9 < 20i) {
        let v66 = b2[v9];
        let v67 = (acc_4_0 + v66);
        let v68 = max_f32(v67, 0.0f);
        out[v5 * 20i + v9] = v68;
    }
    if (v5 < 30i && v10 < 20i) {
        let v69 = b2[v10];
        let v70 = (acc_4_1 + v69);
        let v71 = max_f32(v70, 0.0f);
        out[v5 * 20i + v10] = v71;
    }
    if (v6 < 30i && v9 < 20i) {
        let v72 = b2[v9];
        let v73 = (acc_5_0 + v72);
        let v74 = max_f32(v73, 0.0f);
        out[v6 * 20i + v9] = v74;
    }
    if (v6 < 30i && v10 < 20i) {
        let v75 = b2[v10];
        let v76 = (acc_5_1 + v75);
        let v77 = max_f32(v76, 0.0f);
        out[v6 * 20i + v10] = v77;
    }
    if (v7 < 30i && v9 < 20i) {
        let v78 = b2[v9];
        let v79 = (acc_6_0 + v78);
        let v80 = max_f32(v79, 0.0f);
        out[v7 * 20i + v9] = v80;
    }
    if (v7 < 30i && v10 < 20i) {
        let v81 = b2[v10];
        let v82 = (acc_6_1 + v81);
        let v83 = max_f32(v82, 0.0f);
        out[v7 * 20i + v10] = v83;
    }
    if (v8 < 30i && v9 < 20i) {
        let v84 = b2[v9];
        let v85 = (acc_7_0 + v84);
        let v86 = max_f32(v85, 0.0f);
        out[v8 * 20i + v9] = v86;
    }
    if (v8 < 30i && v10 < 20i) {
        let v87 = b2[v10];
        let v88 = (acc_7_1 + v87);
        let v89 = max_f32(v88, 0.0f);
        out[v8 * 20i + v10] = v89;
    }
}
