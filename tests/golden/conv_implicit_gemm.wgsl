// fgrad: matmul f32[2,8192,64] <- f32[8,32,32,32] f32[64,32,3,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;
var<workgroup> As: array<vec4<f32>, 64>;
var<workgroup> Bs: array<vec4<f32>, 64>;

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
    let v2 = (lid + 0i) / 4i;
    let v3 = (lid + 0i) % 4i;
    let v4 = (lid + 0i) % 4i;
    let v5 = (lid + 0i) / 4i;
    {
        let v6 = m0 + v2;
        let v7 = 0i + v3;
        let v8 = v6 * 288i + v1 * 144i + v7;
        let v9 = v8 / 294912i;
        let v10 = (v8 / 9216i) % 32i;
        let v11 = (v8 / 288i) % 32i;
        let v12 = (v8 / 9i) % 32i;
        let v13 = (v8 / 3i) % 3i;
        let v14 = (v8) % 3i;
        let v15 = v10 + v13 - 1i;
        let v16 = clamp(v15, 0i, 31i);
        let v17 = v11 + v14 - 1i;
        let v18 = clamp(v17, 0i, 31i);
        let v19 = b0[v9 * 32768i + v12 * 1024i + v16 * 32i + v18];
        let v20 = select(0.0f, v19, v15 >= 0i && v15 <= 31i && v17 >= 0i && v17 <= 31i);
        let v21 = 0i + v4;
        let v22 = n0 + v5;
        let v23 = v1 * 9216i + v21 * 64i + v22;
        let v24 = v23 / 576i;
        let v25 = (v23 / 192i) % 3i;
        let v26 = (v23 / 64i) % 3i;
        let v27 = (v23) % 64i;
        let v28 = b1[v27 * 288i + v24 * 9i + v25 * 3i + v26];
        As[v3 * 16i + v2 / 4i][v2 % 4i] = v20;
        Bs[v4 * 16i + v5 / 4i][v5 % 4i] = v28;
    }
    workgroupBarrier();
    var next_0 = 0.0f;
    var next_1 = 0.0f;
    for (var r29 = 0i; r29 < 144i; r29 += 4i) {
        if (r29 + 4i < 144i) {
            let v30 = m0 + v2;
            let v31 = r29 + 4i + v3;
            let v32 = v30 * 288i + v1 * 144i + v31;
            let v33 = v32 / 294912i;
            let v34 = (v32 / 9216i) % 32i;
            let v35 = (v32 / 288i) % 32i;
            let v36 = (v32 / 9i) % 32i;
            let v37 = (v32 / 3i) % 3i;
            let v38 = (v32) % 3i;
            let v39 = v34 + v37 - 1i;
            let v40 = clamp(v39, 0i, 31i);
            let v41 = v35 + v38 - 1i;
            let v42 = clamp(v41, 0i, 31i);
            let v43 = b0[v33 * 32768i + v36 * 1024i + v40 * 32i + v42];
            let v44 = select(0.0f, v43, v39 >= 0i && v39 <= 31i && v41 >= 0i && v41 <= 31i);
            let v45 = r29 + 4i + v4;
            let v46 = n0 + v5;
            let v47 = v1 * 9216i + v45 * 64i + v46;
            let v48 = v47 / 576i;
            let v49 = (v47 / 192i) % 3i;
            let v50 = (v47 / 64i) % 3i;
            let v51 = (v47) % 64i;
            let v52 = b1[v51 * 288i + v48 * 9i + v49 * 3i + v50];
            next_0 = v44;
            next_1 = v52;
        }
        let v53 = As[0i + ty * 1i + 0i];
        let v54 = Bs[0i + tx + 0i];
        acc_0_0 = fma(vec4<f32>(v53[0]), v54, acc_0_0);
        acc_1_0 = fma(vec4<f32>(v53[1]), v54, acc_1_0);
        acc_2_0 = fma(vec4<f32>(v53[2]), v54, acc_2_0);
        acc_3_0 = fma(vec4<f32>(v53[3]), v54, acc_3_0);
        let v55 = As[16i + ty * 1i + 0i];
        let v56 = Bs[16i + tx + 0i];
        acc_0_0 = fma(vec4<f32>(v55[0]), v56, acc_0_0);
        acc_1_0 = fma(vec4<f32>(v55[1]), v56, acc_1_0);
        acc_2_0 = fma(vec4<f32>(v55[2]), v56, acc_2_0);
        acc_3_0 = fma(vec4<f32>(v55[3]), v56, acc_3_0);
        let v57 = As[32i + ty * 1i + 0i];
        let v58 = Bs[32i + tx + 0i];
        acc_0_0 = fma(vec4<f32>(v57[0]), v58, acc_0_0);
        acc_1_0 = fma(vec4<f32>(v57[1]), v58, acc_1_0);
        acc_2_0 = fma(vec4<f32>(v57[2]), v58, acc_2_0);
        acc_3_0 = fma(vec4<f32>(v57[3]), v58, acc_3_0);
        let v59 = As[48i + ty * 1i + 0i];
        let v60 = Bs[48i + tx + 0i];
        acc_0_0 = fma(vec4<f32>(v59[0]), v60, acc_0_0);
        acc_1_0 = fma(vec4<f32>(v59[1]), v60, acc_1_0);
        acc_2_0 = fma(vec4<f32>(v59[2]), v60, acc_2_0);
        acc_3_0 = fma(vec4<f32>(v59[3]), v60, acc_3_0);
        workgroupBarrier();
        if (r29 + 4i < 144i) {
            As[v3 * 16i + v2 / 4i][v2 % 4i] = next_0;
            Bs[v4 * 16i + v5 / 4i][v5 % 4i] = next_1;
        }
        workgroupBarrier();
    }
    let v61 = m0 + ty * 4i + 0i;
    let v62 = n0 + tx * 4i + 0i;
    let v63 = n0 + tx * 4i + 1i;
    let v64 = n0 + tx * 4i + 2i;
    let v65 = n0 + tx * 4i + 3i;
    out[(v1 * 524288i + v61 * 64i + v62) / 4i] = vec4<f32>(acc_0_0[0], acc_0_0[1], acc_0_0[2], acc_0_0[3]);
    let v66 = m0 + ty * 4i + 1i;
    let v67 = n0 + tx * 4i + 0i;
    let v68 = n0 + tx * 4i + 1i;
    let v69 = n0 + tx * 4i + 2i;
    let v70 = n0 + tx * 4i + 3i;
    out[(v1 * 524288i + v66 * 64i + v67) / 4i] = vec4<f32>(acc_1_0[0], acc_1_0[1], acc_1_0[2], acc_1_0[3]);
    let v71 = m0 + ty * 4i + 2i;
    let v72 = n0 + tx * 4i + 0i;
    let v73 = n0 + tx * 4i + 1i;
    let v74 = n0 + tx * 4i + 2i;
    let v75 = n0 + tx * 4i + 3i;
    out[(v1 * 524288i + v71 * 64i + v72) / 4i] = vec4<f32>(acc_2_0[0], acc_2_0[1], acc_2_0[2], acc_2_0[3]);
    let v76 = m0 + ty * 4i + 3i;
    let v77 = n0 + tx * 4i + 0i;
    let v78 = n0 + tx * 4i + 1i;
    let v79 = n0 + tx * 4i + 2i;
    let v80 = n0 + tx * 4i + 3i;
    out[(v1 * 524288i + v76 * 64i + v77) / 4i] = vec4<f32>(acc_3_0[0], acc_3_0[1], acc_3_0[2], acc_3_0[3]);
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
