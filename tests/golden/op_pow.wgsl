// fgrad: pow f32[2,3] <- f32[2,3] f32[2,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn power_f32(x: f32, y: f32) -> f32 {
    let ax = abs(x);
    let inf = bitcast<f32>(0x7f800000u);
    let integral = floor(y) == y;
    let odd = integral & (floor(y * 0.5f) != y * 0.5f);
    let edge = select(0.0f, inf, (ax == 0.0f) == (y < 0.0f));
    var r = select(pow(ax, y), edge, (ax == 0.0f) | (ax == inf));
    r = select(r, -r, odd & (bitcast<u32>(x) >= 0x80000000u));
    r = select(r, bitcast<f32>(0x7fc00000u), is_nan(x) | is_nan(y) | ((x < 0.0f) & (ax != inf) & !integral));
    return select(r, 1.0f, (y == 0.0f) | (x == 1.0f) | ((ax == 1.0f) & (abs(y) == inf)));
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 6i) {
        return;
    }
    let v1 = i / 3i;
    let v2 = (i) % 3i;
    let v3 = b0[i];
    let v4 = b1[i];
    let v5 = power_f32(v3, v4);
    out[i] = v5;
}
