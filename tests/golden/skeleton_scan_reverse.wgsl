// fgrad: mul_cumsum f32[3,300] <- f32[3,300]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
var<workgroup> shared_f32: array<f32, 128>;

@compute @workgroup_size(128)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let o = i32(group.x + group.y * 3u);
    if (o >= 3i) {
        return;
    }
    let lid = i32(local.x);
    for (var r1 = 0i; r1 < 300i; r1 += 128i) {
        let v2 = r1 + lid;
        let v3 = 299i - min(v2, 299i);
        let v4 = shared_f32[127i];
        workgroupBarrier();
        let v5 = b0[o * 300i + v3];
        let v6 = 2.0f;
        let v7 = (v5 * v6);
        shared_f32[lid] = select(v7, v4 + v7, lid == 0i && r1 > 0i);
        workgroupBarrier();
        let v8 = select(shared_f32[lid], shared_f32[max(lid - 1i, 0i)] + shared_f32[lid], lid >= 1i);
        workgroupBarrier();
        shared_f32[lid] = v8;
        workgroupBarrier();
        let v9 = select(shared_f32[lid], shared_f32[max(lid - 2i, 0i)] + shared_f32[lid], lid >= 2i);
        workgroupBarrier();
        shared_f32[lid] = v9;
        workgroupBarrier();
        let v10 = select(shared_f32[lid], shared_f32[max(lid - 4i, 0i)] + shared_f32[lid], lid >= 4i);
        workgroupBarrier();
        shared_f32[lid] = v10;
        workgroupBarrier();
        let v11 = select(shared_f32[lid], shared_f32[max(lid - 8i, 0i)] + shared_f32[lid], lid >= 8i);
        workgroupBarrier();
        shared_f32[lid] = v11;
        workgroupBarrier();
        let v12 = select(shared_f32[lid], shared_f32[max(lid - 16i, 0i)] + shared_f32[lid], lid >= 16i);
        workgroupBarrier();
        shared_f32[lid] = v12;
        workgroupBarrier();
        let v13 = select(shared_f32[lid], shared_f32[max(lid - 32i, 0i)] + shared_f32[lid], lid >= 32i);
        workgroupBarrier();
        shared_f32[lid] = v13;
        workgroupBarrier();
        let v14 = select(shared_f32[lid], shared_f32[max(lid - 64i, 0i)] + shared_f32[lid], lid >= 64i);
        workgroupBarrier();
        shared_f32[lid] = v14;
        workgroupBarrier();
        let v15 = shared_f32[lid];
        if (v2 < 300i) { out[o * 300i + v3] = v15; }
    }
}
