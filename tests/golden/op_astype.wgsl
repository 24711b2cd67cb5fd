// fgrad: astype i32[8] <- f32[8]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
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
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 8i) {
        return;
    }
    let v1 = b0[i];
    let v2 = f32_to_i32(v1);
    out[i] = v2;
}
