// fgrad: argmin i32[3] <- f32[3,5]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<i32>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 3i) {
        return;
    }
    var a1: f32 = bitcast<f32>(0x7f800000u);
    var a2: i32 = 0i;
    for (var r3 = 0i; r3 < 5i; r3++) {
        let v4 = b0[i * 5i + r3];
        if ((!is_nan(a1) && (is_nan(v4) || v4 < a1))) { a1 = v4; a2 = r3; }
    }
    out[i] = a2;
}
