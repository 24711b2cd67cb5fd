// fgrad: argmax i32[3] <- f32[3,300]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<i32>;
var<workgroup> shared_f32: array<f32, 128>;
var<workgroup> shared_i32: array<i32, 128>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

@compute @workgroup_size(128)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let o = i32(group.x + group.y * 3u);
    if (o >= 3i) {
        return;
    }
    let lid = i32(local.x);
    let v1 = b0[o * 300i];
    var a2: f32 = bitcast<f32>(0xff800000u);
    var a3: i32 = lid;
    for (var r4 = lid; r4 < 300i; r4 += 128i) {
        let v5 = b0[o * 300i + r4];
        if ((!is_nan(a2) && (is_nan(v5) || v5 > a2))) { a2 = v5; a3 = r4; }
    }
    shared_f32[lid] = a2;
    workgroupBarrier();
    if (lid < 64i) { shared_f32[lid] = select(shared_f32[lid], shared_f32[lid + 64i], (!is_nan(shared_f32[lid]) && (is_nan(shared_f32[lid + 64i]) || shared_f32[lid + 64i] > shared_f32[lid]))); }
    workgroupBarrier();
    if (lid < 32i) { shared_f32[lid] = select(shared_f32[lid], shared_f32[lid + 32i], (!is_nan(shared_f32[lid]) && (is_nan(shared_f32[lid + 32i]) || shared_f32[lid + 32i] > shared_f32[lid]))); }
    workgroupBarrier();
    if (lid < 16i) { shared_f32[lid] = select(shared_f32[lid], shared_f32[lid + 16i], (!is_nan(shared_f32[lid]) && (is_nan(shared_f32[lid + 16i]) || shared_f32[lid + 16i] > shared_f32[lid]))); }
    workgroupBarrier();
    if (lid < 8i) { shared_f32[lid] = select(shared_f32[lid], shared_f32[lid + 8i], (!is_nan(shared_f32[lid]) && (is_nan(shared_f32[lid + 8i]) || shared_f32[lid + 8i] > shared_f32[lid]))); }
    workgroupBarrier();
    if (lid < 4i) { shared_f32[lid] = select(shared_f32[lid], shared_f32[lid + 4i], (!is_nan(shared_f32[lid]) && (is_nan(shared_f32[lid + 4i]) || shared_f32[lid + 4i] > shared_f32[lid]))); }
    workgroupBarrier();
    if (lid < 2i) { shared_f32[lid] = select(shared_f32[lid], shared_f32[lid + 2i], (!is_nan(shared_f32[lid]) && (is_nan(shared_f32[lid + 2i]) || shared_f32[lid + 2i] > shared_f32[lid]))); }
    workgroupBarrier();
    if (lid < 1i) { shared_f32[lid] = select(shared_f32[lid], shared_f32[lid + 1i], (!is_nan(shared_f32[lid]) && (is_nan(shared_f32[lid + 1i]) || shared_f32[lid + 1i] > shared_f32[lid]))); }
    workgroupBarrier();
    let v6 = shared_f32[0];
    workgroupBarrier();
    shared_i32[lid] = select(300i, a3, !((!is_nan(a2) && (is_nan(v6) || v6 > a2))));
    workgroupBarrier();
    if (lid < 64i) { shared_i32[lid] = min(shared_i32[lid], shared_i32[lid + 64i]); }
    workgroupBarrier();
    if (lid < 32i) { shared_i32[lid] = min(shared_i32[lid], shared_i32[lid + 32i]); }
    workgroupBarrier();
    if (lid < 16i) { shared_i32[lid] = min(shared_i32[lid], shared_i32[lid + 16i]); }
    workgroupBarrier();
    if (lid < 8i) { shared_i32[lid] = min(shared_i32[lid], shared_i32[lid + 8i]); }
    workgroupBarrier();
    if (lid < 4i) { shared_i32[lid] = min(shared_i32[lid], shared_i32[lid + 4i]); }
    workgroupBarrier();
    if (lid < 2i) { shared_i32[lid] = min(shared_i32[lid], shared_i32[lid + 2i]); }
    workgroupBarrier();
    if (lid < 1i) { shared_i32[lid] = min(shared_i32[lid], shared_i32[lid + 1i]); }
    workgroupBarrier();
    let v7 = shared_i32[0];
    workgroupBarrier();
    if (lid == 0i) {
        out[o] = v7;
    }
}
