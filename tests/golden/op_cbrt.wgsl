// fgrad: cbrt f32[2,3] <- f32[2,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
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
    let v4 = abs(v3);
    let v5 = exp2(log2(v4) * 0.33333334f);
    let v6 = v5 + (v4 / (v5 * v5) - v5) * 0.33333334f;
    let v7 = select(bitcast<f32>(bitcast<u32>(v6) | (bitcast<u32>(v3) & 0x80000000u)), v3, (v4 == 0.0f) | (v4 == bitcast<f32>(0x7f800000u)) | is_nan(v3));
    out[i] = v7;
}
