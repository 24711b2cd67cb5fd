// fgrad: matmul f32[T,T] <- f32[T,8] f32[T,8]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
struct Dims { size_T: i32 }
@group(0) @binding(3) var<uniform> dims: Dims;
var<workgroup> As: array<vec2<f32>, 128>;
var<workgroup> Bs: array<vec2<f32>, 128>;

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
    let v3 = (lid + 0i) % 8i;
    let v4 = (lid + 0i) / 8i;
    {
        let v5 = m0 + v1;
        let v6 = 0i + v2;
        let v7 = min(v5, dims.size_T - 1i);
        let v8 = b0[v7 * 8i + v6];
        let v9 = 0i + v3;
        let v10 = n0 + v4;
        let v11 = min(v10, dims.size_T - 1i);
        let v12 = b1[v11 * 8i + v9];
        As[v2 * 16i + v1 / 2i][v1 % 2i] = select(0.0f, v8, v5 < dims.size_T);
        Bs[v3 * 16i + v4 / 2i][v4 % 2i] = select(0.0f, v12, v10 < dims.size_T);
    }
    workgroupBarrier();
    var next_0 = 0.0f;
    var next_1 = 0.0f;
    for (var r13 = 0i; r13 < 8i; r13 += 8i) {
        if (r13 + 8i < 8i) {
            let v14 = m0 + v1;
            let v15 = r13 + 8i + v2;
            let v16 = min(v14, dims.size_T - 1i);
            let v17 = b0[v16 * 8i + v15];
            let v18 = r13 + 8i + v3;
            let v19 = n0 + v4;
            let v20 = min(v19, dims.size_T - 1i);
            let v21 = b1[v20 * 8i + v18];
            next_0 = select(0.0f, v17, v14 < dims.size_T);
            next_1 = select(0.0f, v21, v19 < dims.size_T);
        }
        let v22 = As[0i + ty * 1i + 0i];
        let v23 = Bs[0i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v22[0]), v23, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v22[1]), v23, acc_1_0);
        let v24 = As[16i + ty * 1i + 0i];
        let v25 = Bs[16i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v24[0]), v25, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v24[1]), v25, acc_1_0);
        let v26 = As[32i + ty * 1i + 0i];
        let v27 = Bs[32i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v26[0]), v27, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v26[1]), v27, acc_1_0);
        let v28 = As[48i + ty * 1i + 0i];
        let v29 = Bs[48i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v28[0]), v29, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v28[1]), v29, acc_1_0);
        let v30 = As[64i + ty * 1i + 0i];
        let v31 = Bs[64i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v30[0]), v31, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v30[1]), v31, acc_1_0);
        let v32 = As[80i + ty * 1i + 0i];
        let v33 = Bs[80i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v32[0]), v33, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v32[1]), v33, acc_1_0);
        let v34 = As[96i + ty * 1i + 0i];
        let v35 = Bs[96i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v34[0]), v35, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v34[1]), v35, acc_1_0);
        let v36 = As[112i + ty * 1i + 0i];
        let v37 = Bs[112i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v36[0]), v37, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v36[1]), v37, acc_1_0);
        workgroupBarrier();
        if (r13 + 8i < 8i) {
            As[v2 * 16i + v1 / 2i][v1 % 2i] = next_0;
            Bs[v3 * 16i + v4 / 2i][v4 % 2i] = next_1;
        }
        workgroupBarrier();
    }
    let v38 = m0 + ty * 2i + 0i;
    let v39 = n0 + tx * 2i + 0i;
    if (v38 < dims.size_T && v39 < dims.size_T) {
        out[v38 * dims.size_T + v39] = acc_0_0[0];
    }
    let v40 = n0 + tx * 2i + 1i;
    if (v38 < dims.size_T && v40 < dims.size_T) {
        out[v38 * dims.size_T + v40] = acc_0_0[1];
    }
    let v41 = m0 + ty * 2i + 1i;
    let v42 = n0 + tx * 2i + 0i;
    if (v41 < dims.size_T && v42 < dims.size_T) {
        out[v41 * dims.size_T + v42] = acc_1_0[0];
    }
    let v43 = n0 + tx * 2i + 1i;
    if (v41 < dims.size_T && v43 < dims.size_T) {
        out[v41 * dims.size_T + v43] = acc_1_0[1];
    }
}

// fgrad: div_ge_where_softmax f32[T,T] <- f32[T,T]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
struct Dims { size_T: i32 }
@group(0) @binding(2) var<uniform> dims: Dims;
var<workgroup> shared_f32: array<f32, 128>;

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
        let v15 = b0[o * dims.size_T + r14];
        let v16 = (v15 / v2);
        let v17 = (o >= r14);
        let v18 = select(v7, v6, v17);
        let v19 = (v16 + v18);
        a10 = max(a10, v19);
        let v20 = r14 + 128i;
        if (v20 < dims.size_T) {
            let v21 = b0[o * dims.size_T + v20];
            let v22 = (v21 / v2);
            let v23 = (o >= v20);
            let v24 = select(v7, v6, v23);
            let v25 = (v22 + v24);
            a11 = max(a11, v25);
        }
        let v26 = r14 + 256i;
        if (v26 < dims.size_T) {
            let v27 = b0[o * dims.size_T + v26];
            let v28 = (v27 / v2);
            let v29 = (o >= v26);
            let v30 = select(v7, v6, v29);
            let v31 = (v28 + v30);
            a12 = max(a12, v31);
        }
        let v32 = r14 + 384i;
        if (v32 < dims.size_T) {
            let v33 = b0[o * dims.size_T + v32];
            let v34 = (v33 / v2);
            let v35 = (o >= v32);
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
        let v45 = b0[o * dims.size_T + r44];
        let v46 = (v45 / v2);
        let v47 = (o >= r44);
        let v48 = select(v7, v6, v47);
        let v49 = (v46 + v48);
        a40 = a40 + exp(v49 - v39);
        let v50 = r44 + 128i;
        if (v50 < dims.size_T) {
            let v51 = b0[o * dims.size_T + v50];
            let v52 = (v51 / v2);
            let v53 = (o >= v50);
            let v54 = select(v7, v6, v53);
            let v55 = (v52 + v54);
            a41 = a41 + exp(v55 - v39);
        }
        let v56 = r44 + 256i;
        if (v56 < dims.size_T) {
            let v57 = b0[o * dims.size_T + v56];
            let v58 = (v57 / v2);
            let v59 = (o >= v56);
            let v60 = select(v7, v6, v59);
            let v61 = (v58 + v60);
            a42 = a42 + exp(v61 - v39);
        }
        let v62 = r44 + 384i;
        if (v62 < dims.size_T) {
            let v63 = b0[o * dims.size_T + v62];
            let v64 = (v63 / v2);
            let v65 = (o >= v62);
            let v66 = select(v7, v6, v65);
            let v67 = (v64 + v66);
            a43 = a43 + exp(v67 - v39);
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
    let v70 = exp(v9 - v39) / v69;
    for (var r71 = lid; r71 < dims.size_T; r71 += 128i) {
        let v72 = b0[o * dims.size_T + r71];
        let v73 = (v72 / v2);
        let v74 = (o >= r71);
        let v75 = select(v7, v6, v74);
        let v76 = (v73 + v75);
        let v77 = exp(v76 - v39) / v69;
        out[o * dims.size_T + r71] = v77;
    }
}

// fgrad: matmul f32[T,8] <- f32[T,8] f32[T,T]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
struct Dims { size_T: i32 }
@group(0) @binding(3) var<uniform> dims: Dims;
var<workgroup> As: array<vec2<f32>, 128>;
var<workgroup> Bs: array<vec2<f32>, 128>;

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
        As[v2 * 16i + v1 / 2i][v1 % 2i] = select(0.0f, v9, v5 < dims.size_T && v6 < dims.size_T);
        Bs[v3 * 16i + v4 / 2i][v4 % 2i] = select(0.0f, v14, v10 < dims.size_T && v11 < 8i);
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
        let v28 = As[16i + ty * 1i + 0i];
        let v29 = Bs[16i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v28[0]), v29, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v28[1]), v29, acc_1_0);
        let v30 = As[32i + ty * 1i + 0i];
        let v31 = Bs[32i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v30[0]), v31, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v30[1]), v31, acc_1_0);
        let v32 = As[48i + ty * 1i + 0i];
        let v33 = Bs[48i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v32[0]), v33, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v32[1]), v33, acc_1_0);
        let v34 = As[64i + ty * 1i + 0i];
        let v35 = Bs[64i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v34[0]), v35, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v34[1]), v35, acc_1_0);
        let v36 = As[80i + ty * 1i + 0i];
        let v37 = Bs[80i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v36[0]), v37, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v36[1]), v37, acc_1_0);
        let v38 = As[96i + ty * 1i + 0i];
        let v39 = Bs[96i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v38[0]), v39, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v38[1]), v39, acc_1_0);
        let v40 = As[112i + ty * 1i + 0i];
        let v41 = Bs[112i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v40[0]), v41, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v40[1]), v41, acc_1_0);
        workgroupBarrier();
        if (r15 + 8i < dims.size_T) {
            As[v2 * 16i + v1 / 2i][v1 % 2i] = next_0;
            Bs[v3 * 16i + v4 / 2i][v4 % 2i] = next_1;
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
