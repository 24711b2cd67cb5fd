// fgrad: tanh f32[2,4] <- f32[2,4]
@group(0) @binding(0) var<storage, read> b0: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
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
    let q = i32(gid.x + gid.y * 256u);
    if (q >= 2i) {
        return;
    }
    let v1 = 0i * 4i;
    let v2 = v1 + 1i;
    let v3 = v1 + 2i;
    let v4 = v1 + 3i;
    let v5 = b0[q];
    let v6 = v5.x;
    let v7 = tanh_f32(v6);
    let v8 = v5.y;
    let v9 = tanh_f32(v8);
    let v10 = v5.z;
    let v11 = tanh_f32(v10);
    let v12 = v5.w;
    let v13 = tanh_f32(v12);
    out[q] = vec4<f32>(v7, v9, v11, v13);
}
