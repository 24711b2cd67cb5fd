// fgrad: atan2 f32[2,3] <- f32[2,3] f32[2,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn atan2_f32(y: f32, x: f32) -> f32 {
    let ax = abs(x);
    let ay = abs(y);
    let hi = max(ax, ay);
    let lo = min(ax, ay);
    let mid = lo > 0.41421356f * hi;
    let t = select(select(lo / hi, (lo - hi) / (lo + hi), mid), 0.0f, hi == 0.0f);
    let z = t * t;
    var r = select(0.0f, 0.7853982f, mid) + (t + t * z * ((((-0.06448931992053986f * z + 0.1074269562959671f) * z + -0.1426384299993515f) * z + 0.19999536871910095f) * z + -0.3333333134651184f));
    r = select(r, 0.7853982f, lo == bitcast<f32>(0x7f800000u));
    r = select(r, 1.5707964f - r, ay > ax);
    r = select(r, 3.1415927f - r, bitcast<u32>(x) >= 0x80000000u);
    r = select(r, -r, bitcast<u32>(y) >= 0x80000000u);
    return select(r, bitcast<f32>(0x7fc00000u), is_nan(x) | is_nan(y));
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
    let v5 = atan2_f32(v3, v4);
    out[i] = v5;
}
