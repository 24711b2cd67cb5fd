// fgrad: rem f32[2,3] <- f32[2,3] f32[2,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
fn fmod_f32(x: f32, y: f32) -> f32 {
    let bx = bitcast<u32>(x) & 0x7fffffffu;
    let by = bitcast<u32>(y) & 0x7fffffffu;
    let ey = max(i32(by >> 23u), 1i);
    let mx = select(bx & 0x7fffffu, (bx & 0x7fffffu) | 0x800000u, bx >= 0x800000u);
    let my = max(select(by & 0x7fffffu, (by & 0x7fffffu) | 0x800000u, by >= 0x800000u), 1u);
    var r = mx % my;
    var d = max(i32(bx >> 23u), 1i) - ey;
    loop {
        if (d <= 0i) {
            break;
        }
        let s = min(d, 8i);
        r = (r << u32(s)) % my;
        d -= s;
    }
    let v = f32(r) * exp2(f32(ey - 127i)) * 1.1920928955078125e-07f;
    let m = select(bitcast<f32>(bitcast<u32>(v) | (bitcast<u32>(x) & 0x80000000u)), x, bx < by);
    return select(m, bitcast<f32>(0x7fc00000u), (bx >= 0x7f800000u) | (by > 0x7f800000u) | (by == 0u));
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
    let v5 = fmod_f32(v3, v4);
    out[i] = v5;
}
