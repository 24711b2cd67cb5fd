// fgrad: logaddexp f32[2,3] <- f32[2,3] f32[2,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn log1p_f32(x: f32) -> f32 {
    let s = x / (2.0f + x);
    let z = s * s;
    let r = select(log(1.0f + x), s * (2.0f + z * ((((0.232188880443573f * z + 0.21707777678966522f) * z + 0.2859227657318115f) * z + 0.3999970853328705f) * z + 0.6666666865348816f)), (x >= -0.5f) & (x <= 1.0f));
    return select(select(r, bitcast<f32>(0xff800000u), x == -1.0f), bitcast<f32>(0x7fc00000u), (x < -1.0f) | is_nan(x));
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
    let v5 = v3 - v4;
    let v6 = select(max(v3, v4) + log1p_f32(exp(-abs(v5))), v3 + v4, is_nan(v5));
    out[i] = v6;
}
