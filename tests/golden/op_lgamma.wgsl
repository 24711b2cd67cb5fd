// fgrad: lgamma f32[8] <- f32[8]
@group(0) @binding(0) var<storage, read> b0: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
fn is_inf(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;
}
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
fn lgamma_1p_f32(y: f32) -> f32 {
    var z = y;
    var p = 1.0f;
    for (var k = 0i; k < 6i; k++) {
        let down = z >= 1.5f;
        p = select(p, p * z, down);
        z = select(z, z - 1.0f, down);
    }
    let near_1 = z < 0.5f;
    let s = select(z - 1.0f, z, near_1);
    let far = y >= 7.0f;
    let l = log_f32(select(p, y, far));
    let near = s * select(((((((((-0.00031235627830028534f * s + 0.0005664451164193451f) * s + -0.0011537885293364525f) * s + 0.002880700398236513f) * s + -0.007391972001641989f) * s + 0.020581359043717384f) * s + -0.06735190004110336f) * s + 0.32246702909469604f) * s + 0.42278432846069336f),
        ((((((((((((-0.15850330889225006f * s + 0.17879322171211243f) * s + -0.06409715861082077f) * s + 0.06591259688138962f) * s + -0.11526881158351898f) * s + 0.1309613734483719f) * s + -0.14375907182693481f) * s + 0.16914638876914978f) * s + -0.20739856362342834f) * s + 0.2705939710140228f) * s + -0.40068519115448f) * s + 0.8224669098854065f) * s + -0.5772156715393066f), near_1) + l;
    let t = 1.0f / y;
    let u = t * t;
    return select(near, (y + 0.5f) * (l - 1.0f) + (1.4189385175704956f +
        t * ((0.0007936508045531809f * u + -0.0027777778450399637f) * u + 0.0833333358168602f)), far);
}
fn sinpi_f32(t: f32) -> f32 {
    let z = t * t;
    return t * ((((0.07824674993753433f * z + -0.5986353158950806f) * z + 2.550145149230957f) * z + -5.167715072631836f) * z + 3.1415927410125732f);
}
fn lgamma_f32(x: f32) -> f32 {
    let r = x - round(x);
    let negative = x < 0.0f;
    let g = lgamma_1p_f32(select(select(x, x - 1.0f, x >= 0.5f), -x, negative));
    let l = log_f32(select(x, 3.1415927f / abs(sinpi_f32(r)), negative));
    let v = select(g - select(0.0f, l, x < 0.5f), l - g, negative);
    return select(select(v, bitcast<f32>(0x7f800000u), ((x <= 0.0f) & (r == 0.0f)) | is_inf(x)), x, is_nan(x));
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
    let v7 = lgamma_f32(v6);
    let v8 = v5.y;
    let v9 = lgamma_f32(v8);
    let v10 = v5.z;
    let v11 = lgamma_f32(v10);
    let v12 = v5.w;
    let v13 = lgamma_f32(v12);
    out[q] = vec4<f32>(v7, v9, v11, v13);
}
