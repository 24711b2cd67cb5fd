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
    let v2 = (lid + 0i) / 8i;
    let v3 = (lid + 0i) % 8i;
    let v4 = (lid + 256i) / 8i;
    let v5 = (lid + 256i) % 8i;
    let v6 = (lid + 0i) % 8i;
    let v7 = (lid + 0i) / 8i;
    let v8 = (lid + 256i) % 8i;
    let v9 = (lid + 256i) / 8i;
    {
        let v10 = m0 + v2;
        let v11 = 0i + v3;
        let v12 = v10 * 288i + v1 * 144i + v11;
        let v13 = v12 / 294912i;
        let v14 = (v12 / 9216i) % 32i;
        let v15 = (v12 / 288i) % 32i;
        let v16 = (v12 / 9i) % 32i;
        let v17 = (v12 / 3i) % 3i;
        let v18 = (v12) % 3i;
        let v19 = v14 + v17 - 1i;
        let v20 = clamp(v19, 0i, 31i);
        let v21 = v15 + v18 - 1i;
        let v22 = clamp(v21, 0i, 31i);
        let v23 = b0[v13 * 32768i + v16 * 1024i + v20 * 32i + v22];
        let v24 = select(0.0f, v23, v19 >= 0i && v19 <= 31i && v21 >= 0i && v21 <= 31i);
        let v25 = m0 + v4;
        let v26 = 0i + v5;
        let v27 = v25 * 288i + v1 * 144i + v26;
        let v28 = v27 / 294912i;
        let v29 = (v27 / 9216i) % 32i;
        let v30 = (v27 / 288i) % 32i;
        let v31 = (v27 / 9i) % 32i;
        let v32 = (v27 / 3i) % 3i;
        let v33 = (v27) % 3i;
        let v34 = v29 + v32 - 1i;
        let v35 = clamp(v34, 0i, 31i);
        let v36 = v30 + v33 - 1i;
        let v37 = clamp(v36, 0i, 31i);
        let v38 = b0[v28 * 32768i + v31 * 1024i + v35 * 32i + v37];
        let v39 = select(0.0f, v38, v34 >= 0i && v34 <= 31i && v36 >= 0i && v36 <= 31i);
        let v40 = 0i + v6;
        let v41 = n0 + v7;
        let v42 = v1 * 9216i + v40 * 64i + v41;
        let v43 = v42 / 576i;
        let v44 = (v42 / 192i) % 3i;
        let v45 = (v42 / 64i) % 3i;
        let v46 = (v42) % 64i;
        let v47 = b1[v46 * 288i + v43 * 9i + v44 * 3i + v45];
        let v48 = 0i + v8;
        let v49 = n0 + v9;
        let v50 = v1 * 9216i + v48 * 64i + v49;
        let v51 = v50 / 576i;
        let v52 = (v50 / 192i) % 3i;
        let v53 = (v50 / 64i) % 3i;
        let v54 = (v50) % 64i;
        let v55 = b1[v54 * 288i + v51 * 9i + v52 * 3i + v53];
        As[v3 * 16i + v2 / 4i][v2 % 4i] = v24;
        As[v5 * 16i + v4 / 4i][v4 % 4i] = v39;
        Bs[v6 * 16i + v7 / 4i][v7 % 4i] = v47;
        Bs[v8 * 16i + v9 / 4i][v9 % 4i] = v55;
    }
    workgroupBarrier();
    var next_0 = 0.0f;
    var next_1 = 0.0f;
    var next_2 = 0.0f;
    var next_3 = 0.0f;
    for (var r56 = 0i; r56 < 144i; r56 += 8i) {
        if (r56 + 8i < 144i) {
            let v57 = m0 + v2;
            let v58 = r56 + 8i + v3;
            let v59 = v57 * 288i + v1 * 144i + v58;
            let v60 = v59 / 294912i;
            let v61 = (v59 / 9216i) % 32i;
            let v62 = (v59 / 288i) % 32i;
            let v63 = (v59 / 9i) % 32i;
            let v64 = (v59 / 3i) % 3i;
            let v65 = (v59) % 3i;
            let v66 = v61 + v64 - 1i;
            let v67 = clamp(v66, 0i, 31i);
            let v68 = v62 + v65 - 1i;
            let v69 = clamp(v68, 0i, 31i);
            let v70 = b0[v60 * 32768i + v63 * 1024i + v67 * 32i + v69];
            let v71 = select(0.0f, v70, v66 >= 0i && v66 <= 31i && v68 >= 0i && v68 <= 31i);
            let v72 = m0 + v4;
            let v73 = r56 + 8i + v5;
            let v74 = v72 * 288i + v1 * 144i + v73;
            let v75 = v74 / 294912i;
            let v76 = (v74 / 9216i) % 32i;
            let v77 = (v74 / 288i) % 32i;
            let v78 = (v74 / 9i) % 32i;
            let v79 = (v74 / 3i) % 3i;
            let v80 = (v74) % 3i;
            let v81 = v76 + v79 - 1i;
            let v82 = clamp(v81, 0i, 31i);
            let v83 = v77 + v80 - 1i;
            let v84 = clamp(v83, 0i, 31i);
            let v85 = b0[v75 * 32768i + v78 * 1024i + v82 * 32i + v84];
            let v86 = select(0.0f, v85, v81 >= 0i && v81 <= 31i && v83 >= 0i && v83 <= 31i);
            let v87 = r56 + 8i + v6;
            let v88 = n0 + v7;
            let v89 = v1 * 9216i + v87 * 64i + v88;
            let v90 = v89 / 576i;
            let v91 = (v89 / 192i) % 3i;
            let v92 = (v89 / 64i) % 3i;
            let v93 = (v89) % 64i;
            let v94 = b1[v93 * 288i + v90 * 9i + v91 * 3i + v92];
            let v95 = r56 + 8i + v8;
            let v96 = n0 + v9;
            let v97 = v1 * 9216i + v95 * 64i + v96;
            let v98 = v97 / 576i;
            let v99 = (v97 / 192i) % 3i;
            let v100 = (v97 / 64i) % 3i;
            let v101 = (v97) % 64i;
            let v102 = b1[v101 * 288i + v98 * 9i + v99 * 3i + v100];
            next_0 = v71;
            next_1 = v86;
            next_2 = v94;
            next_3 = v102;
        }
        let v103 = As[0i + ty * 1i + 0i];
        let v104 = Bs[0i + tx + 0i];
        acc_0_0 = fma(vec4<f32>(v103[0]), v104, acc_0_0);
        acc_1_0 = fma(vec4<f32>(v103[1]), v104, acc_1_0);
        acc_2_0 = fma(vec4<f32>(v103[2]), v104, acc_2_0);
        acc_3_0 = fma(vec4<f32>(v103[3]), v104, acc_3_0);
        let v105 = As[16i + ty * 1i + 0i];
        let v106 = Bs[16i + tx + 0i];
        acc_0_0 = fma(vec4<f32>(v105[0]), v106, acc_0_0);
        acc_1_0 = fma(vec4<f32>(v105[1]), v106, acc_1_0);
        acc_2_0 = fma(vec4<f32>(v105[2]), v106, acc_2_0);
        acc_3_0 = fma(vec4<f32>(v105[3]), v106, acc_3_0);
        let v107 = As[32i + ty * 1i + 0i];
        let v108 = Bs[32i + tx + 0i];
        acc_0_0 = fma(vec4<f32>(v107[0]), v108, acc_0_0);
        acc_1_0 = fma(vec4<f32>(v107[1]), v108, acc_1_0);
        acc_2_0 = fma(vec4<f32>(v107[2]), v108, acc_2_0);
        acc_3_0 = fma(vec4<f32>(v107[3]), v108, acc_3_0);
        let v109 = As[48i + ty * 1i + 0i];
        let v110 = Bs[48i + tx + 0i];
        acc_0_0 = fma(vec4<f32>(v109[0]), v110, acc_0_0);
        acc_1_0 = fma(vec4<f32>(v109[1]), v110, acc_1_0);
        acc_2_0 = fma(vec4<f32>(v109[2]), v110, acc_2_0);
        acc_3_0 = fma(vec4<f32>(v109[3]), v110, acc_3_0);
        let v111 = As[64i + ty * 1i + 0i];
        let v112 = Bs[64i + tx + 0i];
        acc_0_0 = fma(vec4<f32>(v111[0]), v112, acc_0_0);
        acc_1_0 = fma(vec4<f32>(v111[1]), v112, acc_1_0);
        acc_2_0 = fma(vec4<f32>(v111[2]), v112, acc_2_0);
        acc_3_0 = fma(vec4<f32>(v111[3]), v112, acc_3_0);
        let v113 = As[80i + ty * 1i + 0i];
        let v114 = Bs[80i + tx + 0i];
        acc_0_0 = fma(vec4<f32>(v113[0]), v114, acc_0_0);
        acc_1_0 = fma(vec4<f32>(v113[1]), v114, acc_1_0);
        acc_2_0 = fma(vec4<f32>(v113[2]), v114, acc_2_0);
        acc_3_0 = fma(vec4<f32>(v113[3]), v114, acc_3_0);
        let v115 = As[96i + ty * 1i + 0i];
        let v116 = Bs[96i + tx + 0i];
        acc_0_0 = fma(vec4<f32>(v115[0]), v116, acc_0_0);
        acc_1_0 = fma(vec4<f32>(v115[1]), v116, acc_1_0);
        acc_2_0 = fma(vec4<f32>(v115[2]), v116, acc_2_0);
        acc_3_0 = fma(vec4<f32>(v115[3]), v116, acc_3_0);
        let v117 = As[112i + ty * 1i + 0i];
        let v118 = Bs[112i + tx + 0i];
        acc_0_0 = fma(vec4<f32>(v117[0]), v118, acc_0_0);
        acc_1_0 = fma(vec4<f32>(v117[1]), v118, acc_1_0);
        acc_2_0 = fma(vec4<f32>(v117[2]), v118, acc_2_0);
        acc_3_0 = fma(vec4<f32>(v117[3]), v118, acc_3_0);
        workgroupBarrier();
        if (r56 + 8i < 144i) {
            As[v3 * 16i + v2 / 4i][v2 % 4i] = next_0;
            As[v5 * 16i + v4 / 4i][v4 % 4i] = next_1;
            Bs[v6 * 16i + v7 / 4i][v7 % 4i] = next_2;
            Bs[v8 * 16i + v9 / 4i][v9 % 4i] = next_3;
        }
        workgroupBarrier();
    }
    let v119 = m0 + ty * 4i + 0i;
    let v120 = n0 + tx * 4i + 0i;
    out[v1 * 524288i + v119 * 64i + v120] = acc_0_0[0];
    let v121 = n0 + tx * 4i + 1i;
    out[v1 * 524288i + v119 * 64i + v121] = acc_0_0[1];
    let v122 = n0 + tx * 4i + 2i;
    out[v1 * 524288i + v119 * 64i + v122] = acc_0_0[2];
    let v123 = n0 + tx * 4i + 3i;
    out[v1 * 524288i + v119 * 64i + v123] = acc_0_0[3];
    let v124 = m0 + ty * 4i + 1i;
    let v125 = n0 + tx * 4i + 0i;
    out[v1 * 524288i + v124 * 64i + v125] = acc_1_0[0];
    let v126 = n0 + tx * 4i + 1i;
    out[v1 * 524288i + v124 * 64i + v126] = acc_1_0[1];
    let v127 = n0 + tx * 4i + 2i;
    out[v1 * 524288i + v124 * 64i + v127] = acc_1_0[2];
    let v128 = n0 + tx * 4i + 3i;
    out[v1 * 524288i + v124 * 64i + v128] = acc_1_0[3];
    let v129 = m0 + ty * 4i + 2i;
    let v130 = n0 + tx * 4i + 0i;
    out[v1 * 524288i + v129 * 64i + v130] = acc_2_0[0];
    let v131 = n0 + tx * 4i + 1i;
    out[v1 * 524288i + v129 * 64i + v131] = acc_2_0[1];
    let v132 = n0 + tx * 4i + 2i;
    out[v1 * 524288i + v129 * 64i + v132] = acc_2_0[2];
    let v133 = n0 + tx * 4i + 3i;
    out[v1 * 524288i + v129 * 64i + v133] = acc_2_0[3];
    let v134 = m0 + ty * 4i + 3i;
    let v135 = n0 + tx * 4i + 0i;
    out[v1 * 524288i + v134 * 64i + v135] = acc_3_0[0];
    let v136 = n0 + tx * 4i + 1i;
    out[v1 * 524288i + v134 * 64i + v136] = acc_3_0[1];
    let v137 = n0 + tx * 4i + 2i;
    out[v1 * 524288i + v134 * 64i + v137] = acc_3_0[2];
    let v138 = n0 + tx * 4i + 3i;
    out[v1 * 524288i + v134 * 64i + v138] = acc_3_0[3];
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
