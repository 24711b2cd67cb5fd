// fgrad: sin f32[2,3] <- f32[2,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
fn is_inf(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;
}
fn sine_f32(x: f32, q: i32) -> f32 {
    let k = round(x * 0.63661975f);
    let r = (((x - k * 1.5703125f) - k * 0.0004825592041015625f) - k * 1.2665987014770508e-06f) -
        k * 9.92093629470503e-10f;
    let z = r * r;
    let quadrant = (i32(k) + q) & 3i;
    let s = r + r * z * (((2.7181986297364347e-06f * z + -0.00019839320157188922f) * z + 0.008333329111337662f) * z + -0.1666666716337204f);
    let c = 1.0f - 0.5f * z + z * z * (((-2.7208204755879706e-07f * z + 2.479949216649402e-05f) * z + -0.0013888883404433727f) * z + 0.0416666679084301f);
    let v = select(s, c, (quadrant & 1i) == 1i);
    let far = select(sin(x), cos(x), q == 1i);
    return select(select(select(v, -v, quadrant >= 2i), far, abs(x) > 1e5f), bitcast<f32>(0x7fc00000u), is_inf(x));
}
fn sin_f32(x: f32) -> f32 {
    return select(sine_f32(x, 0i), x, x == 0.0f);
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
    let v4 = sin_f32(v3);
    out[i] = v4;
}
