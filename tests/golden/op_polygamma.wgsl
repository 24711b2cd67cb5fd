// fgrad: polygamma f32[8] <- f32[8]
@group(0) @binding(0) var<storage, read> b0: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
fn is_inf(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;
}
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn sinpi_f32(t: f32) -> f32 {
    let z = t * t;
    return t * ((((0.07824674993753433f * z + -0.5986353158950806f) * z + 2.550145149230957f) * z + -5.167715072631836f) * z + 3.1415927410125732f);
}
fn polygamma1_f32(x: f32) -> f32 {
    let negative = x < 0.0f;
    var y = select(x, 1.0f - x, negative);
    var sum = 0.0f;
    for (var k = 0i; k < 5i; k++) {
        let p = 1.0f / y;
        let low = y < 5.0f;
        sum = select(sum, sum + p * p, low);
        y = select(y, y + 1.0f, low);
    }
    let t = 1.0f / y;
    let u = t * t;
    let zeta = sum + t *
        (1.0f + t * (0.5f + t * (((-0.03333333507180214f * u + 0.02380952425301075f) * u + -0.03333333507180214f) * u + 0.1666666716337204f)));
    let r = x - round(x);
    let c = sinpi_f32(0.5f - abs(r)) / sinpi_f32(r);
    let cc = c * c;
    let v = select(1.0f * zeta,
        -1.0f * zeta - 9.869604110717773f * (-1.0f * cc + -1.0f), negative);
    let far = select(bitcast<f32>(0x7fc00000u), 0.0f, x > 0.0f);
    let pole = select(v, bitcast<f32>(0x7f800000u), (x <= 0.0f) & (r == 0.0f));
    return select(select(pole, far, is_inf(x)), x, is_nan(x));  // infinities last: -inf - round(-inf) is NaN
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
    let v7 = polygamma1_f32(v6);
    let v8 = v5.y;
    let v9 = polygamma1_f32(v8);
    let v10 = v5.z;
    let v11 = polygamma1_f32(v10);
    let v12 = v5.w;
    let v13 = polygamma1_f32(v12);
    out[q] = vec4<f32>(v7, v9, v11, v13);
}
