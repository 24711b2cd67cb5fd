// fgrad: matmul f32[2,8192,64] <- f32[8,32,32,32] f32[64,32,3,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
var<workgroup> As: array<vec4<f32>, 128>;
var<workgroup> Bs: array<vec4<f32>, 128>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let lid = i32(local.x);
    let tx = lid % 16i;
    let ty = lid / 16i;
    let m0 = i32(group.y) * 64i;
    let n0 = i32(group.x) * 64i;
    let v1 = i32(group.z);
    var acc_0_0 = vec4<f32>();
    var acc_1_0 = vec4<f32>();
    var acc_2_0 = vec4<f32>();
    var acc_3_0 = vec4<f32>();
    for (var r2 = 0i; r2 < 144i; r2 += 8i) {
        let v3 = (lid + 0i) / 8i;
        let v4 = (lid + 0i) % 8i;
        let v5 = m0 + v3;
        let v6 = r2 + v4;
        let v7 = v5 * 288i + v1 * 144i + v6;
        let v8 = v7 / 294912i;
        let v9 = (v7 / 9216i) % 32i;
        let v10 = (v7 / 288i) % 32i;
        let v11 = (v7 / 9i) % 32i;
        let v12 = (v7 / 3i) % 3i;
        let v13 = (v7) % 3i;
        let v14 = v9 + v12 - 1i;
        let v15 = clamp(v14, 0i, 31i);
        let v16 = v10 + v13 - 1i;
        let v17 = clamp(v16, 0i, 31i);
        let v18 = b0[v8 * 32768i + v11 * 1024i + v15 * 32i + v17];
        let v19 = select(0.0f, v18, v14 >= 0i && v14 <= 31i && v16 >= 0i && v16 <= 31i);
        As[v4 * 16i + v3 / 4i][v3 % 4i] = v19;
        let v20 = (lid + 256i) / 8i;
        let v21 = (lid + 256i) % 8i;
        let v22 = m0 + v20;
        let v23 = r2 + v21;
        let v24 = v22 * 288i + v1 * 144i + v23;
        let v25 = v24 / 294912i;
        let v26 = (v24 / 9216i) % 32i;
        let v27 = (v24 / 288i) % 32i;
        let v28 = (v24 / 9i) % 32i;
        let v29 = (v24 / 3i) % 3i;
        let v30 = (v24) % 3i;
        let v31 = v26 + v29 - 1i;
        let v32 = clamp(v31, 0i, 31i);
        let v33 = v27 + v30 - 1i;
        let v34 = clamp(v33, 0i, 31i);
        let v35 = b0[v25 * 32768i + v28 * 1024i + v32 * 32i + v34];
        let v36 = select(0.0f, v35, v31 >= 0i && v31 <= 31i && v33 >= 0i && v33 <= 31i);
        As[v21 * 16i + v20 / 4i][v20 % 4i] = v36;
        let v37 = (lid + 0i) % 8i;
        let v38 = (lid + 0i) / 8i;
        let v39 = r2 + v37;
        let v40 = n0 + v38;
        let v41 = v1 * 9216i + v39 * 64i + v40;
        let v42 = v41 / 576i;
        let v43 = (v41 / 192i) % 3i;
        let v44 = (v41 / 64i) % 3i;
        let v45 = (v41) % 64i;
        let v46 = b1[v45 * 288i + v42 * 9i + v43 * 3i + v44];
        Bs[v37 * 16i + v38 / 4i][v38 % 4i] = v46;
        let v47 = (lid + 256i) % 8i;
        let v48 = (lid + 256i) / 8i;
        let v49 = r2 + v47;
        let v50 = n0 + v48;
        let v51 = v1 * 9216i + v49 * 64i + v50;
        let v52 = v51 / 576i;
        let v53 = (v51 / 192i) % 3i;
        let v54 = (v51 / 64i) % 3i;
        let v55 = (v51) % 64i;
        let v56 = b1[v55 * 288i + v52 * 9i + v53 * 3i + v54];
        Bs[v47 * 16i + v48 / 4i][v48 % 4i] = v56;
        workgroupBarrier();
        let v57 = As[0i + ty * 1i + 0i];
        let v58 = Bs[0i + tx + 0i];
        acc_0_0 = fma(vec4<f32>(v57[0]), v58, acc_0_0);
        acc_1_0 = fma(vec4<f32>(v57[1]), v58, acc_1_0);
        acc_2_0 = fma(vec4<f32>(v57[2]), v58, acc_2_0);
        acc_3_0 = fma(vec4<f32>(v57[3]), v58, acc_3_0);
        let v59 = As[16i + ty * 1i + 0i];
        let v60 = Bs[16i + tx + 0i];
        acc_0_0 = fma(vec4<f32>(v59[0]), v60, acc_0_0);
        acc_1_0 = fma(vec4<f32>(v59[1]), v60, acc_1_0);
        acc_2_0 = fma(vec4<f32>(v59[2]), v60, acc_2_0);
        acc_3_0 = fma(vec4<f32>(v59[3]), v60, acc_3_0);
        let v61 = As[32i + ty * 1i + 0i];
        let v62 = Bs[32i + tx + 0i];
        acc_0_0 = fma(vec4<f32>(v61[0]), v62, acc_0_0);
        acc_1_0 = fma(vec4<f32>(v61[1]), v62, acc_1_0);
        acc_2_0 = fma(vec4<f32>(v61[2]), v62, acc_2_0);
        acc_3_0 = fma(vec4<f32>(v61[3]), v62, acc_3_0);
        let v63 = As[48i + ty * 1i + 0i];
        let v64 = Bs[48i + tx + 0i];
        acc_0_0 = fma(vec4<f32>(v63[0]), v64, acc_0_0);
        acc_1_0 = fma(vec4<f32>(v63[1]), v64, acc_1_0);
        acc_2_0 = fma(vec4<f32>(v63[2]), v64, acc_2_0);
        acc_3_0 = fma(vec4<f32>(v63[3]), v64, acc_3_0);
        let v65 = As[64i + ty * 1i + 0i];
        let v66 = Bs[64i + tx + 0i];
        acc_0_0 = fma(vec4<f32>(v65[0]), v66, acc_0_0);
        acc_1_0 = fma(vec4<f32>(v65[1]), v66, acc_1_0);
        acc_2_0 = fma(vec4<f32>(v65[2]), v66, acc_2_0);
        acc_3_0 = fma(vec4<f32>(v65[3]), v66, acc_3_0);
        let v67 = As[80i + ty * 1i + 0i];
        let v68 = Bs[80i + tx + 0i];
        acc_0_0 = fma(vec4<f32>(v67[0]), v68, acc_0_0);
        acc_1_0 = fma(vec4<f32>(v67[1]), v68, acc_1_0);
        acc_2_0 = fma(vec4<f32>(v67[2]), v68, acc_2_0);
        acc_3_0 = fma(vec4<f32>(v67[3]), v68, acc_3_0);
        let v69 = As[96i + ty * 1i + 0i];
        let v70 = Bs[96i + tx + 0i];
        acc_0_0 = fma(vec4<f32>(v69[0]), v70, acc_0_0);
        acc_1_0 = fma(vec4<f32>(v69[1]), v70, acc_1_0);
        acc_2_0 = fma(vec4<f32>(v69[2]), v70, acc_2_0);
        acc_3_0 = fma(vec4<f32>(v69[3]), v70, acc_3_0);
        let v71 = As[112i + ty * 1i + 0i];
        let v72 = Bs[112i + tx + 0i];
        acc_0_0 = fma(vec4<f32>(v71[0]), v72, acc_0_0);
        acc_1_0 = fma(vec4<f32>(v71[1]), v72, acc_1_0);
        acc_2_0 = fma(vec4<f32>(v71[2]), v72, acc_2_0);
        acc_3_0 = fma(vec4<f32>(v71[3]), v72, acc_3_0);
        workgroupBarrier();
    }
    let v73 = m0 + ty * 4i + 0i;
    let v74 = n0 + tx * 4i + 0i;
    out[v1 * 524288i + v73 * 64i + v74] = acc_0_0[0];
    let v75 = n0 + tx * 4i + 1i;
    out[v1 * 524288i + v73 * 64i + v75] = acc_0_0[1];
    let v76 = n0 + tx * 4i + 2i;
    out[v1 * 524288i + v73 * 64i + v76] = acc_0_0[2];
    let v77 = n0 + tx * 4i + 3i;
    out[v1 * 524288i + v73 * 64i + v77] = acc_0_0[3];
    let v78 = m0 + ty * 4i + 1i;
    let v79 = n0 + tx * 4i + 0i;
    out[v1 * 524288i + v78 * 64i + v79] = acc_1_0[0];
    let v80 = n0 + tx * 4i + 1i;
    out[v1 * 524288i + v78 * 64i + v80] = acc_1_0[1];
    let v81 = n0 + tx * 4i + 2i;
    out[v1 * 524288i + v78 * 64i + v81] = acc_1_0[2];
    let v82 = n0 + tx * 4i + 3i;
    out[v1 * 524288i + v78 * 64i + v82] = acc_1_0[3];
    let v83 = m0 + ty * 4i + 2i;
    let v84 = n0 + tx * 4i + 0i;
    out[v1 * 524288i + v83 * 64i + v84] = acc_2_0[0];
    let v85 = n0 + tx * 4i + 1i;
    out[v1 * 524288i + v83 * 64i + v85] = acc_2_0[1];
    let v86 = n0 + tx * 4i + 2i;
    out[v1 * 524288i + v83 * 64i + v86] = acc_2_0[2];
    let v87 = n0 + tx * 4i + 3i;
    out[v1 * 524288i + v83 * 64i + v87] = acc_2_0[3];
    let v88 = m0 + ty * 4i + 3i;
    let v89 = n0 + tx * 4i + 0i;
    out[v1 * 524288i + v88 * 64i + v89] = acc_3_0[0];
    let v90 = n0 + tx * 4i + 1i;
    out[v1 * 524288i + v88 * 64i + v90] = acc_3_0[1];
    let v91 = n0 + tx * 4i + 2i;
    out[v1 * 524288i + v88 * 64i + v91] = acc_3_0[2];
    let v92 = n0 + tx * 4i + 3i;
    out[v1 * 524288i + v88 * 64i + v92] = acc_3_0[3];
}

// fgrad: sum f32[8192,64] <- f32[2,8192,64]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 524288u);
    if (i >= 524288i) {
        return;
    }
    let v1 = i / 64i;
    let v2 = (i) % 64i;
    var a3: f32 = 0.0f;
    for (var r4 = 0i; r4 < 2i; r4++) {
        let v5 = b0[r4 * 524288i + v1 * 64i + v2];
        a3 = a3 + v5;
    }
    out[i] = a3;
}

// fgrad: transpose f32[8,64,32,32] <- f32[8192,64]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 524288u);
    if (i >= 524288i) {
        return;
    }
    let v1 = i / 65536i;
    let v2 = (i / 1024i) % 64i;
    let v3 = (i / 32i) % 32i;
    let v4 = (i) % 32i;
    let v5 = v1 * 65536i + v3 * 2048i + v4 * 64i + v2;
    let v6 = v5 / 64i;
    let v7 = (v5) % 64i;
    let v8 = b0[v5];
    out[i] = v8;
}
