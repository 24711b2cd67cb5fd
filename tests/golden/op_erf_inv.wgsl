// fgrad: erf_inv f32[2,3] <- f32[2,3]
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
fn log1p_f32(x: f32) -> f32 {
    let r = select(log_f32(1.0f + x), log1p_near_f32(x), (x >= -0.5f) & (x <= 1.0f));
    return select(select(r, bitcast<f32>(0xff800000u), x == -1.0f), bitcast<f32>(0x7fc00000u), (x < -1.0f) | is_nan(x));
}
fn erf_inv_f32(x: f32) -> f32 {
    let a = abs(x);
    let w = select(-log_f32((1.0f - a) * (1.0f + a)), -log1p_f32(-x * x), a < 0.70710677f);
    let central = w < 5.0f;
    let u = select(sqrt(w) - 3.0f, w - 2.5f, central);
    let p = select(((((((((-0.0002002142573473975f * u + 0.0001009505576803349f) * u + 0.0013493432197719812f) * u + -0.003673428436741233f) * u + 0.005739507731050253f) * u + -0.007622461300343275f) * u + 0.00943887047469616f) * u + 1.0016740560531616f) * u + 2.832976818084717f), ((((((((2.810226362726098e-08f * u + 3.432739390518691e-07f) * u + -3.523387704262859e-06f) * u + -4.391506536194356e-06f) * u + 0.00021858086984138936f) * u + -0.001253725029528141f) * u + -0.004177681636065245f) * u + 0.24664072692394257f) * u + 1.5014094114303589f), central);
    return select(select(p * x, x * bitcast<f32>(0x7f800000u), a == 1.0f), bitcast<f32>(0x7fc00000u), (a > 1.0f) | is_nan(x));
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
    let v4 = erf_inv_f32(v3);
    out[i] = v4;
}
