// fgrad: erf f32[3,4] <- f32[3,4]
@group(0) @binding(0) var<storage, read> b0: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
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
    let q = i32(gid.x + gid.y * 256u);
    if (q >= 3i) {
        return;
    }
    let v1 = 0i * 4i;
    let v2 = v1 + 1i;
    let v3 = v1 + 2i;
    let v4 = v1 + 3i;
    let v5 = b0[q];
    let v6 = v5.x;
    let v7 = min(abs(v6), 4.0f);
    let v8 = v7 * v7;
    let v9 = 7.853850547689945e-05f * v8 + -0.0008010190213099122f;
    let v10 = v9 * v8 + 0.00518832728266716f;
    let v11 = v10 * v8 + -0.026853810995817184f;
    let v12 = v11 * v8 + 0.1128358542919159f;
    let v13 = v12 * v8 + -0.3761262595653534f;
    let v14 = v13 * v8 + 0.12837916612625122f;
    let v15 = 1.0f / v7;
    let v16 = -0.011375464498996735f * v15 + 0.03800315037369728f;
    let v17 = v16 * v15 + 0.0040199789218604565f;
    let v18 = v17 * v15 + -0.21906128525733948f;
    let v19 = v18 * v15 + 0.4809337854385376f;
    let v20 = v19 * v15 + -0.46466463804244995f;
    let v21 = v20 * v15 + 0.04015903174877167f;
    let v22 = v21 * v15 + 0.5593159198760986f;
    let v23 = v22 * v15 + 0.0002530883648432791f;
    let v24 = select(1.0f - exp_f32(-v8) * v23, v7 + v7 * v14, v7 < 1.0f);
    let v25 = select(bitcast<f32>(bitcast<u32>(v24) | (bitcast<u32>(v6) & 0x80000000u)), v6, is_nan(v6));
    let v26 = v5.y;
    let v27 = min(abs(v26), 4.0f);
    let v28 = v27 * v27;
    let v29 = 7.853850547689945e-05f * v28 + -0.0008010190213099122f;
    let v30 = v29 * v28 + 0.00518832728266716f;
    let v31 = v30 * v28 + -0.026853810995817184f;
    let v32 = v31 * v28 + 0.1128358542919159f;
    let v33 = v32 * v28 + -0.3761262595653534f;
    let v34 = v33 * v28 + 0.12837916612625122f;
    let v35 = 1.0f / v27;
    let v36 = -0.011375464498996735f * v35 + 0.03800315037369728f;
    let v37 = v36 * v35 + 0.0040199789218604565f;
    let v38 = v37 * v35 + -0.21906128525733948f;
    let v39 = v38 * v35 + 0.4809337854385376f;
    let v40 = v39 * v35 + -0.46466463804244995f;
    let v41 = v40 * v35 + 0.04015903174877167f;
    let v42 = v41 * v35 + 0.5593159198760986f;
    let v43 = v42 * v35 + 0.0002530883648432791f;
    let v44 = select(1.0f - exp_f32(-v28) * v43, v27 + v27 * v34, v27 < 1.0f);
    let v45 = select(bitcast<f32>(bitcast<u32>(v44) | (bitcast<u32>(v26) & 0x80000000u)), v26, is_nan(v26));
    let v46 = v5.z;
    let v47 = min(abs(v46), 4.0f);
    let v48 = v47 * v47;
    let v49 = 7.853850547689945e-05f * v48 + -0.0008010190213099122f;
    let v50 = v49 * v48 + 0.00518832728266716f;
    let v51 = v50 * v48 + -0.026853810995817184f;
    let v52 = v51 * v48 + 0.1128358542919159f;
    let v53 = v52 * v48 + -0.3761262595653534f;
    let v54 = v53 * v48 + 0.12837916612625122f;
    let v55 = 1.0f / v47;
    let v56 = -0.011375464498996735f * v55 + 0.03800315037369728f;
    let v57 = v56 * v55 + 0.0040199789218604565f;
    let v58 = v57 * v55 + -0.21906128525733948f;
    let v59 = v58 * v55 + 0.4809337854385376f;
    let v60 = v59 * v55 + -0.46466463804244995f;
    let v61 = v60 * v55 + 0.04015903174877167f;
    let v62 = v61 * v55 + 0.5593159198760986f;
    let v63 = v62 * v55 + 0.0002530883648432791f;
    let v64 = select(1.0f - exp_f32(-v48) * v63, v47 + v47 * v54, v47 < 1.0f);
    let v65 = select(bitcast<f32>(bitcast<u32>(v64) | (bitcast<u32>(v46) & 0x80000000u)), v46, is_nan(v46));
    let v66 = v5.w;
    let v67 = min(abs(v66), 4.0f);
    let v68 = v67 * v67;
    let v69 = 7.853850547689945e-05f * v68 + -0.0008010190213099122f;
    let v70 = v69 * v68 + 0.00518832728266716f;
    let v71 = v70 * v68 + -0.026853810995817184f;
    let v72 = v71 * v68 + 0.1128358542919159f;
    let v73 = v72 * v68 + -0.3761262595653534f;
    let v74 = v73 * v68 + 0.12837916612625122f;
    let v75 = 1.0f / v67;
    let v76 = -0.011375464498996735f * v75 + 0.03800315037369728f;
    let v77 = v76 * v75 + 0.0040199789218604565f;
    let v78 = v77 * v75 + -0.21906128525733948f;
    let v79 = v78 * v75 + 0.4809337854385376f;
    let v80 = v79 * v75 + -0.46466463804244995f;
    let v81 = v80 * v75 + 0.04015903174877167f;
    let v82 = v81 * v75 + 0.5593159198760986f;
    let v83 = v82 * v75 + 0.0002530883648432791f;
    let v84 = select(1.0f - exp_f32(-v68) * v83, v67 + v67 * v74, v67 < 1.0f);
    let v85 = select(bitcast<f32>(bitcast<u32>(v84) | (bitcast<u32>(v66) & 0x80000000u)), v66, is_nan(v66));
    out[q] = vec4<f32>(v25, v45, v65, v85);
}
