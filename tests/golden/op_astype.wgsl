// fgrad: astype i32[8] <- f32[8]
@group(0) @binding(0) var<storage, read> b0: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> out: array<i32>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn f32_to_i32(x: f32) -> i32 {
    let r = select(i32(clamp(x, -2147483648.0f, 2147483520.0f)), 2147483647i, x >= 2147483648.0f);
    return select(r, 0i, is_nan(x));
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let q = i32(gid.x + gid.y * 256u);
    if (q >= 2i) {
        return;
    }
    let v1 = q * 4i;
    let v2 = v1 + 1i;
    let v3 = v1 + 2i;
    let v4 = v1 + 3i;
    let v5 = b0[q];
    let v6 = v5.x;
    let v7 = f32_to_i32(v6);
    let v8 = v5.y;
    let v9 = f32_to_i32(v8);
    let v10 = v5.z;
    let v11 = f32_to_i32(v10);
    let v12 = v5.w;
    let v13 = f32_to_i32(v12);
    out[q * 4i + 0i] = v7;
    out[q * 4i + 1i] = v9;
    out[q * 4i + 2i] = v11;
    out[q * 4i + 3i] = v13;
}
