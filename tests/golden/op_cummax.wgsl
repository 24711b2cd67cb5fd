// fgrad: cummax f32[3,6] <- f32[3,6]
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
    if (i >= 18i) {
        return;
    }
    let v1 = i32(u32(i) / 6u);
    let v2 = i32(u32(i) % 6u);
    var a3: f32 = bitcast<f32>(0xff800000u);
    for (var r4 = 0i; r4 < v2 + 1i; r4++) {
        let v5 = b0[v1 * 6i + r4];
        a3 = max_f32(a3, v5);
    }
    out[i] = a3;
}
