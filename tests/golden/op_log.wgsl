// fgrad: log f32[2,3] <- f32[2,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn log1p_near_f32(x: f32) -> f32 {
    let s = x / (2.0f + x);
    let z = s * s;
    return s * (2.0f + z * ((((0.232188880443573f * z + 0.21707777678966522f) * z + 0.2859227657318115f) * z + 0.3999970853328705f) * z + 0.6666666865348816f));
}
fn log_parts_f32(x: f32) -> vec2<f32> {
    let subnormal = x < 1.1754944e-38f;
    let bits = bitcast<u32>(select(x, x * 8388608.0f, subnormal));
    let high = (bits & 0x7fffffu) > 0x3504f3u;
    let m = bitcast<f32>((bits & 0x7fffffu) | select(0x3f800000u, 0x3f000000u, high));
    let e = i32(bits >> 23u) - select(127i, 126i, high) - select(0i, 23i, subnormal);
    return vec2<f32>(f32(e), log1p_near_f32(m - 1.0f));
}
fn log_f32(x: f32) -> f32 {
    let p = log_parts_f32(x);
    let r = p.x * 0.693359375f + (p.x * -0.00021219444f + p.y);
    return select(select(select(r, bitcast<f32>(0x7f800000u), x == bitcast<f32>(0x7f800000u)), bitcast<f32>(0xff800000u), x == 0.0f), bitcast<f32>(0x7fc00000u), (x < 0.0f) | is_nan(x));
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 6i) {
        return;
    }
    let v1 = i32(u32(i) / 3u);
    let v2 = i32(u32(i) % 3u);
    let v3 = b0[i];
    let v4 = log_f32(v3);
    out[i] = v4;
}
