// fgrad: digamma f32[8] <- f32[8]
@group(0) @binding(0) var<storage, read> b0: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
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
fn digamma_1p_f32(y: f32) -> f32 {
    var z = y;
    var s = 0.0f;
    for (var k = 0i; k < 4i; k++) {
        let down = z >= 1.0f;
        s = select(s, s + 1.0f / z, down);
        z = select(z, z - 1.0f, down);
    }
    let a = z - 0.4616321325302124f;
    let near = (-1.203605215494008e-08f + a * ((((((((((0.009106055833399296f * a + -0.020346742123365402f) * a + 0.024815412238240242f) * a + -0.032094523310661316f) * a + 0.04820582643151283f) * a + -0.07229597866535187f) * a + 0.10788798332214355f) * a + -0.16393931210041046f) * a + 0.25849705934524536f) * a + -0.44276320934295654f) * a + 0.9676722884178162f)) + s;
    let t = 1.0f / y;
    let u = t * t;
    return select(near, log_f32(y) + 0.5f * t - u * (((-0.004166666883975267f * u + 0.003968254197388887f) * u + -0.008333333767950535f) * u + 0.0833333358168602f), y >= 5.0f);
}
fn is_inf(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;
}
fn sinpi_f32(t: f32) -> f32 {
    let z = t * t;
    return t * ((((0.07824674993753433f * z + -0.5986353158950806f) * z + 2.550145149230957f) * z + -5.167715072631836f) * z + 3.1415927410125732f);
}
fn digamma_f32(x: f32) -> f32 {
    let r = x - round(x);
    let negative = x < 0.0f;
    let d = digamma_1p_f32(select(select(x, x - 1.0f, x >= 1.0f), -x, negative));
    let shift = select(select(0.0f, -1.0f / x, x < 1.0f), -3.1415927f * sinpi_f32(0.5f - abs(r)) / sinpi_f32(r),
        negative);
    let undefined = (negative & ((r == 0.0f) | is_inf(x))) | is_nan(x);
    let v = select(select(d + shift, x, is_inf(x)), bitcast<f32>(0xff800000u), x == 0.0f);
    return select(v, bitcast<f32>(0x7fc00000u), undefined);
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
    let v7 = digamma_f32(v6);
    let v8 = v5.y;
    let v9 = digamma_f32(v8);
    let v10 = v5.z;
    let v11 = digamma_f32(v10);
    let v12 = v5.w;
    let v13 = digamma_f32(v12);
    out[q] = vec4<f32>(v7, v9, v11, v13);
}
