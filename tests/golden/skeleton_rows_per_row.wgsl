// fgrad: sum_mul_sub_rsqrt f32[3,1] f32[3,128] f32[3] f32[3,128] <- f32[3,128]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out0: array<f32>;
@group(0) @binding(2) var<storage, read_write> out1: array<f32>;
@group(0) @binding(3) var<storage, read_write> out2: array<f32>;
@group(0) @binding(4) var<storage, read_write> out3: array<f32>;
var<workgroup> shared_f32: array<f32, 32>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let o = i32(group.x + group.y * 3u);
    if (o >= 3i) {
        return;
    }
    let lid = i32(local.x);
    let v1 = b0[o * 128i];
    let v2 = 0i;
    let v3 = b0[o * 128i + v2];
    var a4: f32 = 0.0f;
    var a5: f32 = 0.0f;
    var a6: f32 = 0.0f;
    var a7: f32 = 0.0f;
    let v8 = lid + 0i;
    let v9 = lid + 32i;
    let v10 = lid + 64i;
    let v11 = lid + 96i;
    let v12 = b0[o * 128i + v8];
    a4 = a4 + v12;
    let v13 = b0[o * 128i + v9];
    a5 = a5 + v13;
    let v14 = b0[o * 128i + v10];
    a6 = a6 + v14;
    let v15 = b0[o * 128i + v11];
    a7 = a7 + v15;
    let v16 = a4 + a5 + a6 + a7;
    shared_f32[lid] = v16;
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
    let v17 = shared_f32[0];
    workgroupBarrier();
    let v18 = 0.0078125f;
    let v19 = (v17 * v18);
    let v20 = (v1 - v19);
    let v21 = 0i;
    let v22 = b0[o * 128i + v21];
    let v23 = (v22 - v19);
    let v24 = (v23 * v23);
    var a25: f32 = 0.0f;
    var a26: f32 = 0.0f;
    var a27: f32 = 0.0f;
    var a28: f32 = 0.0f;
    let v29 = (v12 - v19);
    let v30 = (v29 * v29);
    a25 = a25 + v30;
    let v31 = (v13 - v19);
    let v32 = (v31 * v31);
    a26 = a26 + v32;
    let v33 = (v14 - v19);
    let v34 = (v33 * v33);
    a27 = a27 + v34;
    let v35 = (v15 - v19);
    let v36 = (v35 * v35);
    a28 = a28 + v36;
    let v37 = a25 + a26 + a27 + a28;
    shared_f32[lid] = v37;
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
    let v38 = shared_f32[0];
    workgroupBarrier();
    let v39 = (v38 * v18);
    let v40 = 9.999999747378752e-06f;
    let v41 = (v39 + v40);
    let v42 = inverseSqrt(v41);
    let v43 = (v20 * v42);
    let v44 = 2.0f;
    let v45 = (v43 * v44);
    let v46 = 1.0f;
    let v47 = (v45 + v46);
    let v48 = (v29 * v42);
    let v49 = (v48 * v44);
    let v50 = (v49 + v46);
    out1[o * 128i + v8] = v29;
    out3[o * 128i + v8] = v50;
    let v51 = (v31 * v42);
    let v52 = (v51 * v44);
    let v53 = (v52 + v46);
    out1[o * 128i + v9] = v31;
    out3[o * 128i + v9] = v53;
    let v54 = (v33 * v42);
    let v55 = (v54 * v44);
    let v56 = (v55 + v46);
    out1[o * 128i + v10] = v33;
    out3[o * 128i + v10] = v56;
    let v57 = (v35 * v42);
    let v58 = (v57 * v44);
    let v59 = (v58 + v46);
    out1[o * 128i + v11] = v35;
    out3[o * 128i + v11] = v59;
    if (lid == 0i) {
        out0[o] = v19;
        out2[o] = v42;
    }
}
