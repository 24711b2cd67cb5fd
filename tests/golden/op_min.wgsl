// fgrad: min f32[3] <- f32[3,4]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn min_f32(a: f32, b: f32) -> f32 {
    return select(min(a, b), a + b, is_nan(a) | is_nan(b));
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 3i) {
        return;
    }
    var a1: f32 = bitcast<f32>(0x7f800000u);
    let v2 = 0i;
    let v3 = b0[i * 4i + v2];
    a1 = min_f32(a1, v3);
    let v4 = 1i;
    let v5 = b0[i * 4i + v4];
    a1 = min_f32(a1, v5);
    let v6 = 2i;
    let v7 = b0[i * 4i + v6];
    a1 = min_f32(a1, v7);
    let v8 = 3i;
    let v9 = b0[i * 4i + v8];
    a1 = min_f32(a1, v9);
    out[i] = a1;
}
