// fgrad: mul_add_tanh_sub f32[3,4] <- f32[3,4] f32[4]
@group(0) @binding(0) var<storage, read> b0: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b1: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn tanh_f32(x: f32) -> f32 {
    let z = x * x;
    let r = select(tanh(clamp(x, -15.0f, 15.0f)), x + x * z * (((((0.002142803743481636f * z + -0.008177093230187893f) * z + 0.021700501441955566f) * z + -0.05394670367240906f) * z + 0.1333320587873459f) * z + -0.3333333134651184f), abs(x) <= 0.625f);
    return select(r, x, is_nan(x) | (x == 0.0f));
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
    let v7 = 2.0f;
    let v8 = (v6 * v7);
    let v9 = b1[0i];
    let v10 = v9.x;
    let v11 = (v8 + v10);
    let v12 = tanh_f32(v11);
    let v13 = (-v6);
    let v14 = exp_f32(v13);
    let v15 = (v12 - v14);
    let v16 = v5.y;
    let v17 = (v16 * v7);
    let v18 = v9.y;
    let v19 = (v17 + v18);
    let v20 = tanh_f32(v19);
    let v21 = (-v16);
    let v22 = exp_f32(v21);
    let v23 = (v20 - v22);
    let v24 = v5.z;
    let v25 = (v24 * v7);
    let v26 = v9.z;
    let v27 = (v25 + v26);
    let v28 = tanh_f32(v27);
    let v29 = (-v24);
    let v30 = exp_f32(v29);
    let v31 = (v28 - v30);
    let v32 = v5.w;
    let v33 = (v32 * v7);
    let v34 = v9.w;
    let v35 = (v33 + v34);
    let v36 = tanh_f32(v35);
    let v37 = (-v32);
    let v38 = exp_f32(v37);
    let v39 = (v36 - v38);
    out[q] = vec4<f32>(v15, v23, v31, v39);
}
