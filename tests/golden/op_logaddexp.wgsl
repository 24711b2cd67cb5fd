// fgrad: logaddexp f32[2,3] <- f32[2,3] f32[2,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
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
fn log1p_f32(x: f32) -> f32 {
    let r = select(log_f32(1.0f + x), log1p_near_f32(x), (x >= -0.5f) & (x <= 1.0f));
    return select(select(r, bitcast<f32>(0xff800000u), x == -1.0f), bitcast<f32>(0x7fc00000u), (x < -1.0f) | is_nan(x));
}
fn log_add_exp_f32(x: f32, y: f32) -> f32 {
    let d = x - y;
    return select(max(x, y) + log1p_f32(exp_f32(-abs(d))), x + y, is_nan(d));
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
    let v4 = b1[i];
    let v5 = log_add_exp_f32(v3, v4);
    out[i] = v5;
}
