// fgrad: mul_argmax i32[3] <- f32[3,256]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<i32>;
var<workgroup> shared_f32: array<f32, 64>;
var<workgroup> shared_i32: array<i32, 64>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>,
        @builtin(subgroup_size) sg_size: u32, @builtin(subgroup_invocation_id) sg_id: u32) {
    let o = i32(group.x + group.y * 3u);
    if (o >= 3i) {
        return;
    }
    let lid = i32(local.x);
    let v1 = b0[o * 256i];
    let v2 = 2.0f;
    let v3 = (v1 * v2);
    var a4: f32 = bitcast<f32>(0xff800000u);
    var a5: i32 = lid;
    for (var r6 = lid; r6 < 256i; r6 += 64i) {
        let v7 = b0[o * 256i + r6];
        let v8 = (v7 * v2);
        if ((!is_nan(a4) && (is_nan(v8) || v8 > a4))) { a4 = v8; a5 = r6; }
    }
    var a9: f32 = a4;
    for (var m = 1u; m < min(sg_size, 64u); m = m << 1u) {
        let v10 = subgroupShuffleXor(a9, m);
        a9 = select(a9, v10, (!is_nan(a9) && (is_nan(v10) || v10 > a9)));
    }
    if (sg_id == 0u) { shared_f32[lid / i32(sg_size)] = a9; }
    workgroupBarrier();
    var a11: f32 = shared_f32[0];
    for (var q = 1i; q < 64i / min(i32(sg_size), 64i); q++) {
        let v12 = shared_f32[q];
        a11 = select(a11, v12, (!is_nan(a11) && (is_nan(v12) || v12 > a11)));
    }
    workgroupBarrier();
    var a13: i32 = select(256i, a5, !((!is_nan(a4) && (is_nan(a11) || a11 > a4))));
    for (var m = 1u; m < min(sg_size, 64u); m = m << 1u) {
        let v14 = subgroupShuffleXor(a13, m);
        a13 = min(a13, v14);
    }
    if (sg_id == 0u) { shared_i32[lid / i32(sg_size)] = a13; }
    workgroupBarrier();
    var a15: i32 = shared_i32[0];
    for (var q = 1i; q < 64i / min(i32(sg_size), 64i); q++) {
        let v16 = shared_i32[q];
        a15 = min(a15, v16);
    }
    workgroupBarrier();
    if (lid == 0i) {
        out[o] = a15;
    }
}
