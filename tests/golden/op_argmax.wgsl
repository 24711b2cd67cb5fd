// fgrad: argmax i32[2,3] <- f32[2,5,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<i32>;
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
    var a3: f32 = bitcast<f32>(0xff800000u);
    var a4: i32 = 0i;
    for (var r5 = 0i; r5 < 5i; r5++) {
        let v6 = b0[v1 * 15i + r5 * 3i + v2];
        if ((!is_nan(a3) && (is_nan(v6) || v6 > a3))) { a3 = v6; a4 = r5; }
    }
    out[i] = a4;
}
