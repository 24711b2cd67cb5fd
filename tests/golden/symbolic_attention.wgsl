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
    for (var r11 = lid; r11 < dims.size_T; r11 += 128i) {
        let v12 = b0[o * dims.size_T + r11];
        let v13 = (v12 / v2);
        let v14 = (o >= r11);
        let v15 = select(v7, v6, v14);
        let v16 = (v13 + v15);
        a10 = max(a10, v16);
    }
    shared_f32[lid] = a10;
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
    let v17 = shared_f32[0];
    workgroupBarrier();
    var a18: f32 = 0.0f;
    for (var r19 = lid; r19 < dims.size_T; r19 += 128i) {
        let v20 = b0[o * dims.size_T + r19];
        let v21 = (v20 / v2);
        let v22 = (o >= r19);
        let v23 = select(v7, v6, v22);
        let v24 = (v21 + v23);
        a18 = a18 + exp(v24 - v17);
    }
    shared_f32[lid] = a18;
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
    let v25 = shared_f32[0];
    workgroupBarrier();
    let v26 = exp(v9 - v17) / v25;
    for (var r27 = lid; r27 < dims.size_T; r27 += 128i) {
        let v28 = b0[o * dims.size_T + r27];
        let v29 = (v28 / v2);
        let v30 = (o >= r27);
        let v31 = select(v7, v6, v30);
        let v32 = (v29 + v31);
        let v33 = exp(v32 - v17) / v25;
        out[o * dims.size_T + r27] = v33;
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
