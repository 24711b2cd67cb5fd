// fgrad: max f32[] <- f32[2,3,4]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn max_f32(a: f32, b: f32) -> f32 {
    return select(max(a, b), a + b, is_nan(a) | is_nan(b));
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 1i) {
        return;
    }
    var a1: f32 = bitcast<f32>(0xff800000u);
    for (var r2 = 0i; r2 < 24i; r2++) {
        let v3 = i32(u32(r2) / 12u);
        let v4 = i32(u32(r2) / 4u % 3u);
        let v5 = i32(u32(r2) % 4u);
        let v6 = b0[r2];
        a1 = max_f32(a1, v6);
    }
    out[i] = a1;
}
