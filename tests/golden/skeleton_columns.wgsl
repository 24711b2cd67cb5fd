// fgrad: sum_mul f32[40] <- f32[300,40]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
var<workgroup> shared_f32: array<f32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let lid = i32(local.x);
    let col = lid % 32i;
    let lane = lid / 32i;
    let first = i32(group.x + group.y * 2u) * 32i;
    let at = first + col;
    let i = min(at, 39i);
    let v1 = 0i;
    let v2 = b0[v1 * 40i + i];
    var a3: f32 = 0.0f;
    var a4: f32 = 0.0f;
    var a5: f32 = 0.0f;
    var a6: f32 = 0.0f;
    for (var r7 = lane; r7 < 300i; r7 += 32i) {
        let v8 = r7 + 8i;
        let v9 = r7 + 16i;
        let v10 = r7 + 24i;
        let v11 = b0[r7 * 40i + i];
        a3 = a3 + v11;
        if (v8 < 300i) {
            let v12 = b0[v8 * 40i + i];
            a4 = a4 + v12;
        }
        if (v9 < 300i) {
            let v13 = b0[v9 * 40i + i];
            a5 = a5 + v13;
        }
        if (v10 < 300i) {
            let v14 = b0[v10 * 40i + i];
            a6 = a6 + v14;
        }
    }
    let v15 = a3 + a4 + a5 + a6;
    shared_f32[lid] = v15;
    workgroupBarrier();
    if (lane < 4i) { shared_f32[lid] = shared_f32[lid] + shared_f32[lid + 128i]; }
    workgroupBarrier();
    if (lane < 2i) { shared_f32[lid] = shared_f32[lid] + shared_f32[lid + 64i]; }
    workgroupBarrier();
    if (lane < 1i) { shared_f32[lid] = shared_f32[lid] + shared_f32[lid + 32i]; }
    workgroupBarrier();
    let v16 = shared_f32[col];
    workgroupBarrier();
    let v17 = 2.0f;
    let v18 = (v16 * v17);
    if (lane == 0i && at < 40i) {
        out[i] = v18;
    }
}
