// fgrad: mul_softmax f32[3,256] <- f32[3,256]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
var<workgroup> shared_f32: array<f32, 64>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn scaled_f32(v: f32, k: f32) -> f32 {
    let s = clamp(k, -126.0f, 127.0f);
    return v * bitcast<f32>(u32(i32(s) + 127i) << 23u) *
        bitcast<f32>(u32(i32(clamp(k - s, -126.0f, 127.0f)) + 127i) << 23u);
}
fn exp_f32(x: f32) -> f32 {
    let c = clamp(x, -104.0f, 89.0f);
    let n = round(c * 1.442695f);
    let r = (c - n * 0.693359375f) - n * -0.00021219444f;
    return select(scaled_f32(1.0f + r + r * r * (((((0.00019825759227387607f * r + 0.0013948323903605342f) * r + 0.008333438076078892f) * r + 0.041666239500045776f) * r + 0.1666666567325592f) * r + 0.5f), n), x, is_nan(x));
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let o = i32(group.x + group.y * 3u);
    if (o >= 3i) {
        return;
    }
    let lid = i32(local.x);
    let v1 = b0[o * 256i];
    let v2 = 2.0f;
    let v3 = (v1 * v2);
    var a4: f32 = bitcast<f32>(0xff800000u);
    var a5: f32 = bitcast<f32>(0xff800000u);
    var a6: f32 = bitcast<f32>(0xff800000u);
    var a7: f32 = bitcast<f32>(0xff800000u);
    let v8 = lid + 0i;
    let v9 = lid + 64i;
    let v10 = lid + 128i;
    let v11 = lid + 192i;
    let v12 = b0[o * 256i + v8];
    let v13 = (v12 * v2);
    a4 = max(a4, v13);
    let v14 = b0[o * 256i + v9];
    let v15 = (v14 * v2);
    a5 = max(a5, v15);
    let v16 = b0[o * 256i + v10];
    let v17 = (v16 * v2);
    a6 = max(a6, v17);
    let v18 = b0[o * 256i + v11];
    let v19 = (v18 * v2);
    a7 = max(a7, v19);
    let v20 = max(max(a4, a5), max(a6, a7));
    shared_f32[lid] = v20;
    workgroupBarrier();
    if (lid < 32i) { shared_f32[lid] = max(shared_f32[lid], shared_f32[lid + 32i]); }
    workgroupBarrier();
    if (lid < 16i) { shared_f32[lid] = max(shared_f32[lid], shared_f32[lid + 16i]); }
    workgroupBarrier();
    if (lid < 8i) { shared_f32[lid] = max(shared_f32[lid], shared_f32[lid + 8i]); }
    workgroupBarrier();
    if (lid < 4i) { shared_f32[lid] = max(shared_f32[lid], shared_f32[lid + 4i]); }
    workgroupBarrier();
    if (lid < 2i) { shared_f32[lid] = max(shared_f32[lid], shared_f32[lid + 2i]); }
    workgroupBarrier();
    if (lid < 1i) { shared_f32[lid] = max(shared_f32[lid], shared_f32[lid + 1i]); }
    workgroupBarrier();
    let v21 = shared_f32[0];
    workgroupBarrier();
    var a22: f32 = 0.0f;
    var a23: f32 = 0.0f;
    var a24: f32 = 0.0f;
    var a25: f32 = 0.0f;
    a22 = a22 + exp_f32(v13 - v21);
    a23 = a23 + exp_f32(v15 - v21);
    a24 = a24 + exp_f32(v17 - v21);
    a25 = a25 + exp_f32(v19 - v21);
    let v26 = a22 + a23 + a24 + a25;
    shared_f32[lid] = v26;
    workgroupBarrier();
    if (lid < 32i) { shared_f32[lid] = shared_f32[lid] + shared_f32[lid + 32i]; }
    workgroupBarrier();
    if (lid < 16i) { shared_f32[lid] = shared_f32[lid] + shared_f32[lid + 16i]; }
    workgroupBarrier();
    if (lid < 8i) { shared_f32[lid] = shared_f32[lid] + shared_f32[lid + 8i]; }
    workgroupBarrier();
    if (lid < 4i) { shared_f32[lid] = shared_f32[lid] + shared_f32[lid + 4i]; }
    workgroupBarrier();
    if (lid < 2i) { shared_f32[lid] = shared_f32[lid] + shared_f32[lid + 2i]; }
    workgroupBarrier();
    if (lid < 1i) { shared_f32[lid] = shared_f32[lid] + shared_f32[lid + 1i]; }
    workgroupBarrier();
    let v27 = shared_f32[0];
    workgroupBarrier();
    let v28 = exp_f32(v3 - v21) / v27;
    let v29 = exp_f32(v13 - v21) / v27;
    out[o * 256i + v8] = v29;
    let v30 = exp_f32(v15 - v21) / v27;
    out[o * 256i + v9] = v30;
    let v31 = exp_f32(v17 - v21) / v27;
    out[o * 256i + v10] = v31;
    let v32 = exp_f32(v19 - v21) / v27;
    out[o * 256i + v11] = v32;
}
