// fgrad: matmul f32[T,T] <- f32[T,8] f32[T,8]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
struct Dims { size_T: i32 }
@group(0) @binding(3) var<uniform> dims: Dims;
var<workgroup> As: array<vec2<f32>, 272>;
var<workgroup> Bs: array<vec2<f32>, 272>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let lid = i32(local.x);
    let tx = lid % 16i;
    let ty = lid / 16i;
    let m0 = i32(group.y) * 32i;
    let n0 = i32(group.x) * 32i;
    var acc_0_0 = vec2<f32>();
    var acc_1_0 = vec2<f32>();
    let v1 = (lid + 0i) / 16i;
    let v2 = (lid + 0i) % 16i;
    let v3 = (lid + 256i) / 16i;
    let v4 = (lid + 256i) % 16i;
    let v5 = (lid + 0i) % 16i;
    let v6 = (lid + 0i) / 16i;
    let v7 = (lid + 256i) % 16i;
    let v8 = (lid + 256i) / 16i;
    {
        let v9 = m0 + v1;
        let v10 = 0i + v2;
        let v11 = min(v9, dims.size_T - 1i);
        let v12 = min(v10, 7i);
        let v13 = b0[v11 * 8i + v12];
        let v14 = m0 + v3;
        let v15 = 0i + v4;
        let v16 = min(v14, dims.size_T - 1i);
        let v17 = min(v15, 7i);
        let v18 = b0[v16 * 8i + v17];
        let v19 = 0i + v5;
        let v20 = n0 + v6;
        let v21 = min(v19, 7i);
        let v22 = min(v20, dims.size_T - 1i);
        let v23 = b1[v22 * 8i + v21];
        let v24 = 0i + v7;
        let v25 = n0 + v8;
        let v26 = min(v24, 7i);
        let v27 = min(v25, dims.size_T - 1i);
        let v28 = b1[v27 * 8i + v26];
        As[v2 * 17i + v1 / 2i][v1 % 2i] = select(0.0f, v13, v9 < dims.size_T && v10 < 8i);
        As[v4 * 17i + v3 / 2i][v3 % 2i] = select(0.0f, v18, v14 < dims.size_T && v15 < 8i);
        Bs[v5 * 17i + v6 / 2i][v6 % 2i] = select(0.0f, v23, v19 < 8i && v20 < dims.size_T);
        Bs[v7 * 17i + v8 / 2i][v8 % 2i] = select(0.0f, v28, v24 < 8i && v25 < dims.size_T);
    }
    workgroupBarrier();
    var next_0 = 0.0f;
    var next_1 = 0.0f;
    var next_2 = 0.0f;
    var next_3 = 0.0f;
    for (var r29 = 0i; r29 < 8i; r29 += 16i) {
        if (r29 + 16i < 8i) {
            let v30 = m0 + v1;
            let v31 = r29 + 16i + v2;
            let v32 = min(v30, dims.size_T - 1i);
            let v33 = min(v31, 7i);
            let v34 = b0[v32 * 8i + v33];
            let v35 = m0 + v3;
            let v36 = r29 + 16i + v4;
            let v37 = min(v35, dims.size_T - 1i);
            let v38 = min(v36, 7i);
            let v39 = b0[v37 * 8i + v38];
            let v40 = r29 + 16i + v5;
            let v41 = n0 + v6;
            let v42 = min(v40, 7i);
            let v43 = min(v41, dims.size_T - 1i);
            let v44 = b1[v43 * 8i + v42];
            let v45 = r29 + 16i + v7;
            let v46 = n0 + v8;
            let v47 = min(v45, 7i);
            let v48 = min(v46, dims.size_T - 1i);
            let v49 = b1[v48 * 8i + v47];
            next_0 = select(0.0f, v34, v30 < dims.size_T && v31 < 8i);
            next_1 = select(0.0f, v39, v35 < dims.size_T && v36 < 8i);
            next_2 = select(0.0f, v44, v40 < 8i && v41 < dims.size_T);
            next_3 = select(0.0f, v49, v45 < 8i && v46 < dims.size_T);
        }
        let v50 = As[0i + ty * 1i + 0i];
        let v51 = Bs[0i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v50[0]), v51, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v50[1]), v51, acc_1_0);
        let v52 = As[17i + ty * 1i + 0i];
        let v53 = Bs[17i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v52[0]), v53, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v52[1]), v53, acc_1_0);
        let v54 = As[34i + ty * 1i + 0i];
        let v55 = Bs[34i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v54[0]), v55, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v54[1]), v55, acc_1_0);
        let v56 = As[51i + ty * 1i + 0i];
        let v57 = Bs[51i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v56[0]), v57, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v56[1]), v57, acc_1_0);
        let v58 = As[68i + ty * 1i + 0i];
        let v59 = Bs[68i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v58[0]), v59, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v58[1]), v59, acc_1_0);
        let v60 = As[85i + ty * 1i + 0i];
        let v61 = Bs[85i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v60[0]), v61, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v60[1]), v61, acc_1_0);
        let v62 = As[102i + ty * 1i + 0i];
        let v63 = Bs[102i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v62[0]), v63, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v62[1]), v63, acc_1_0);
        let v64 = As[119i + ty * 1i + 0i];
        let v65 = Bs[119i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v64[0]), v65, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v64[1]), v65, acc_1_0);
        let v66 = As[136i + ty * 1i + 0i];
        let v67 = Bs[136i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v66[0]), v67, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v66[1]), v67, acc_1_0);
        let v68 = As[153i + ty * 1i + 0i];
        let v69 = Bs[153i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v68[0]), v69, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v68[1]), v69, acc_1_0);
        let v70 = As[170i + ty * 1i + 0i];
        let v71 = Bs[170i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v70[0]), v71, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v70[1]), v71, acc_1_0);
        let v72 = As[187i + ty * 1i + 0i];
        let v73 = Bs[187i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v72[0]), v73, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v72[1]), v73, acc_1_0);
        let v74 = As[204i + ty * 1i + 0i];
        let v75 = Bs[204i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v74[0]), v75, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v74[1]), v75, acc_1_0);
        let v76 = As[221i + ty * 1i + 0i];
        let v77 = Bs[221i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v76[0]), v77, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v76[1]), v77, acc_1_0);
        let v78 = As[238i + ty * 1i + 0i];
        let v79 = Bs[238i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v78[0]), v79, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v78[1]), v79, acc_1_0);
        let v80 = As[255i + ty * 1i + 0i];
        let v81 = Bs[255i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v80[0]), v81, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v80[1]), v81, acc_1_0);
        workgroupBarrier();
        if (r29 + 16i < 8i) {
            As[v2 * 17i + v1 / 2i][v1 % 2i] = next_0;
            As[v4 * 17i + v3 / 2i][v3 % 2i] = next_1;
            Bs[v5 * 17i + v6 / 2i][v6 % 2i] = next_2;
            Bs[v7 * 17i + v8 / 2i][v8 % 2i] = next_3;
        }
        workgroupBarrier();
    }
    let v82 = m0 + ty * 2i + 0i;
    let v83 = n0 + tx * 2i + 0i;
    if (v82 < dims.size_T && v83 < dims.size_T) {
        out[v82 * dims.size_T + v83] = acc_0_0[0];
    }
    let v84 = n0 + tx * 2i + 1i;
    if (v82 < dims.size_T && v84 < dims.size_T) {
        out[v82 * dims.size_T + v84] = acc_0_0[1];
    }
    let v85 = m0 + ty * 2i + 1i;
    let v86 = n0 + tx * 2i + 0i;
    if (v85 < dims.size_T && v86 < dims.size_T) {
        out[v85 * dims.size_T + v86] = acc_1_0[0];
    }
    let v87 = n0 + tx * 2i + 1i;
    if (v85 < dims.size_T && v87 < dims.size_T) {
        out[v85 * dims.size_T + v87] = acc_1_0[1];
    }
}

// fgrad: div_ge_where_softmax f32[T,T] <- f32[T,T]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
struct Dims { size_T: i32 }
@group(0) @binding(2) var<uniform> dims: Dims;
var<workgroup> shared_f32: array<f32, 128>;
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

@compute @workgroup_size(128)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let o = i32(group.x + group.y * 512u);
    if (o >= dims.size_T) {
        return;
    }
    let lid = i32(local.x);
    let v1 = b0[o * dims.size_T];
    let v2 = 2.0f;
    let v3 = (v1 / v2);
    let v4 = 0i;
    let v5 = (o >= v4);
    let v6 = 0.0f;
    let v7 = -1000000000.0f;
    let v8 = select(v7, v6, v5);
    let v9 = (v3 + v8);
    var a10: f32 = bitcast<f32>(0xff800000u);
    var a11: f32 = bitcast<f32>(0xff800000u);
    var a12: f32 = bitcast<f32>(0xff800000u);
    var a13: f32 = bitcast<f32>(0xff800000u);
    for (var r14 = lid; r14 < dims.size_T; r14 += 512i) {
        let v15 = r14 + 128i;
        let v16 = r14 + 256i;
        let v17 = r14 + 384i;
        let v18 = b0[o * dims.size_T + r14];
        let v19 = (v18 / v2);
        let v20 = (o >= r14);
        let v21 = select(v7, v6, v20);
        let v22 = (v19 + v21);
        a10 = max(a10, v22);
        if (v15 < dims.size_T) {
            let v23 = b0[o * dims.size_T + v15];
            let v24 = (v23 / v2);
            let v25 = (o >= v15);
            let v26 = select(v7, v6, v25);
            let v27 = (v24 + v26);
            a11 = max(a11, v27);
        }
        if (v16 < dims.size_T) {
            let v28 = b0[o * dims.size_T + v16];
            let v29 = (v28 / v2);
            let v30 = (o >= v16);
            let v31 = select(v7, v6, v30);
            let v32 = (v29 + v31);
            a12 = max(a12, v32);
        }
        if (v17 < dims.size_T) {
            let v33 = b0[o * dims.size_T + v17];
            let v34 = (v33 / v2);
            let v35 = (o >= v17);
            let v36 = select(v7, v6, v35);
            let v37 = (v34 + v36);
            a13 = max(a13, v37);
        }
    }
    let v38 = max(max(a10, a11), max(a12, a13));
    shared_f32[lid] = v38;
    workgroupBarrier();
    if (lid < 64i) { shared_f32[lid] = max(shared_f32[lid], shared_f32[lid + 64i]); }
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
    let v39 = shared_f32[0];
    workgroupBarrier();
    var a40: f32 = 0.0f;
    var a41: f32 = 0.0f;
    var a42: f32 = 0.0f;
    var a43: f32 = 0.0f;
    for (var r44 = lid; r44 < dims.size_T; r44 += 512i) {
        let v45 = r44 + 128i;
        let v46 = r44 + 256i;
        let v47 = r44 + 384i;
        let v48 = b0[o * dims.size_T + r44];
        let v49 = (v48 / v2);
        let v50 = (o >= r44);
        let v51 = select(v7, v6, v50);
        let v52 = (v49 + v51);
        a40 = a40 + exp_f32(v52 - v39);
        if (v45 < dims.size_T) {
            let v53 = b0[o * dims.size_T + v45];
            let v54 = (v53 / v2);
            let v55 = (o >= v45);
            let v56 = select(v7, v6, v55);
            let v57 = (v54 + v56);
            a41 = a41 + exp_f32(v57 - v39);
        }
        if (v46 < dims.size_T) {
            let v58 = b0[o * dims.size_T + v46];
            let v59 = (v58 / v2);
            let v60 = (o >= v46);
            let v61 = select(v7, v6, v60);
            let v62 = (v59 + v61);
            a42 = a42 + exp_f32(v62 - v39);
        }
        if (v47 < dims.size_T) {
            let v63 = b0[o * dims.size_T + v47];
            let v64 = (v63 / v2);
            let v65 = (o >= v47);
            let v66 = select(v7, v6, v65);
            let v67 = (v64 + v66);
            a43 = a43 + exp_f32(v67 - v39);
        }
    }
    let v68 = a40 + a41 + a42 + a43;
    shared_f32[lid] = v68;
    workgroupBarrier();
    if (lid < 64i) { shared_f32[lid] = shared_f32[lid] + shared_f32[lid + 64i]; }
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
    let v69 = shared_f32[0];
    workgroupBarrier();
    let v70 = exp_f32(v9 - v39) / v69;
    for (var r71 = lid; r71 < dims.size_T; r71 += 128i) {
        let v72 = b0[o * dims.size_T + r71];
        let v73 = (v72 / v2);
        let v74 = (o >= r71);
        let v75 = select(v7, v6, v74);
        let v76 = (v73 + v75);
        let v77 = exp_f32(v76 - v39) / v69;
        out[o * dims.size_T + r71] = v77;
    }
}

// fgrad: matmul f32[T,8] <- f32[T,8] f32[T,T]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
struct Dims { size_T: i32 }
@group(0) @binding(3) var<uniform> dims: Dims;
var<workgroup> As: array<vec2<f32>, 144>;
var<workgroup> Bs: array<vec2<f32>, 144>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let lid = i32(local.x);
    let tx = lid % 16i;
    let ty = lid / 16i;
    let m0 = i32(group.y) * 32i;
    let n0 = i32(group.x) * 32i;
    var acc_0_0 = vec2<f32>();
    var acc_1_0 = vec2<f32>();
    let v1 = (lid + 0i) / 8i;
    let v2 = (lid + 0i) % 8i;
    let v3 = (lid + 0i) / 32i;
    let v4 = (lid + 0i) % 32i;
    {
        let v5 = m0 + v1;
        let v6 = 0i + v2;
        let v7 = min(v5, dims.size_T - 1i);
        let v8 = min(v6, dims.size_T - 1i);
        let v9 = b1[v7 * dims.size_T + v8];
        let v10 = 0i + v3;
        let v11 = n0 + v4;
        let v12 = min(v10, dims.size_T - 1i);
        let v13 = min(v11, 7i);
        let v14 = b0[v12 * 8i + v13];
        As[v2 * 18i + v1 / 2i][v1 % 2i] = select(0.0f, v9, v5 < dims.size_T && v6 < dims.size_T);
        Bs[v3 * 18i + v4 / 2i][v4 % 2i] = select(0.0f, v14, v10 < dims.size_T && v11 < 8i);
    }
    workgroupBarrier();
    var next_0 = 0.0f;
    var next_1 = 0.0f;
    for (var r15 = 0i; r15 < dims.size_T; r15 += 8i) {
        if (r15 + 8i < dims.size_T) {
            let v16 = m0 + v1;
            let v17 = r15 + 8i + v2;
            let v18 = min(v16, dims.size_T - 1i);
            let v19 = min(v17, dims.size_T - 1i);
            let v20 = b1[v18 * dims.size_T + v19];
            let v21 = r15 + 8i + v3;
            let v22 = n0 + v4;
            let v23 = min(v21, dims.size_T - 1i);
            let v24 = min(v22, 7i);
            let v25 = b0[v23 * 8i + v24];
            next_0 = select(0.0f, v20, v16 < dims.size_T && v17 < dims.size_T);
            next_1 = select(0.0f, v25, v21 < dims.size_T && v22 < 8i);
        }
        let v26 = As[0i + ty * 1i + 0i];
        let v27 = Bs[0i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v26[0]), v27, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v26[1]), v27, acc_1_0);
        let v28 = As[18i + ty * 1i + 0i];
        let v29 = Bs[18i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v28[0]), v29, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v28[1]), v29, acc_1_0);
        let v30 = As[36i + ty * 1i + 0i];
        let v31 = Bs[36i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v30[0]), v31, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v30[1]), v31, acc_1_0);
        let v32 = As[54i + ty * 1i + 0i];
        let v33 = Bs[54i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v32[0]), v33, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v32[1]), v33, acc_1_0);
        let v34 = As[72i + ty * 1i + 0i];
        let v35 = Bs[72i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v34[0]), v35, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v34[1]), v35, acc_1_0);
        let v36 = As[90i + ty * 1i + 0i];
        let v37 = Bs[90i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v36[0]), v37, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v36[1]), v37, acc_1_0);
        let v38 = As[108i + ty * 1i + 0i];
        let v39 = Bs[108i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v38[0]), v39, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v38[1]), v39, acc_1_0);
        let v40 = As[126i + ty * 1i + 0i];
        let v41 = Bs[126i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v40[0]), v41, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v40[1]), v41, acc_1_0);
        workgroupBarrier();
        if (r15 + 8i < dims.size_T) {
            As[v2 * 18i + v1 / 2i][v1 % 2i] = next_0;
            Bs[v3 * 18i + v4 / 2i][v4 % 2i] = next_1;
        }
        workgroupBarrier();
    }
    let v42 = m0 + ty * 2i + 0i;
    let v43 = n0 + tx * 2i + 0i;
    if (v42 < dims.size_T && v43 < 8i) {
        out[v42 * 8i + v43] = acc_0_0[0];
    }
    let v44 = n0 + tx * 2i + 1i;
    if (v42 < dims.size_T && v44 < 8i) {
        out[v42 * 8i + v44] = acc_0_0[1];
    }
    let v45 = m0 + ty * 2i + 1i;
    let v46 = n0 + tx * 2i + 0i;
    if (v45 < dims.size_T && v46 < 8i) {
        out[v45 * 8i + v46] = acc_1_0[0];
    }
    let v47 = n0 + tx * 2i + 1i;
    if (v45 < dims.size_T && v47 < 8i) {
        out[v45 * 8i + v47] = acc_1_0[1];
    }
}
