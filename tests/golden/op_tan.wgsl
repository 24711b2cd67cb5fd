// fgrad: tan f32[2,3] <- f32[2,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
fn is_inf(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;
}
fn tan_f32(x: f32) -> f32 {
    let k = round(x * 0.63661975f);
    let r = (((x - k * 1.5703125f) - k * 0.0004825592041015625f) - k * 1.2665987014770508e-06f) -
        k * 9.92093629470503e-10f;
    let z = r * r;
    let t = r + r * z * ((((((0.0038319865707308054f * z + 0.001206965884193778f) * z + 0.0099464887753129f) * z + 0.021626314148306847f) * z + 0.053993694484233856f) * z + 0.13333235681056976f) * z + 0.3333333432674408f);
    let v = select(t, -1.0f / t, fract(0.5f * k) != 0.0f);
    return select(select(select(v, sin(x) / cos(x), abs(x) > 1e5f), x, x == 0.0f), bitcast<f32>(0x7fc00000u), is_inf(x));
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
    let v4 = tan_f32(v3);
    out[i] = v4;
}
