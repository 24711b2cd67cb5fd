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
    for (var r1 = 0i; r1 < 8i; r1 += 8i) {
        let v2 = (lid + 0i) / 8i;
        let v3 = (lid + 0i) % 8i;
        let v4 = m0 + v2;
        let v5 = r1 + v3;
        let v6 = min(v4, dims.size_T - 1i);
        let v7 = b0[v6 * 8i + v5];
        As[v3 * 16i + v2 / 2i][v2 % 2i] = select(0.0f, v7, v4 < dims.size_T);
        let v8 = (lid + 0i) % 8i;
        let v9 = (lid + 0i) / 8i;
        let v10 = r1 + v8;
        let v11 = n0 + v9;
        let v12 = min(v11, dims.size_T - 1i);
        let v13 = b1[v12 * 8i + v10];
        Bs[v8 * 16i + v9 / 2i][v9 % 2i] = select(0.0f, v13, v11 < dims.size_T);
        workgroupBarrier();
        let v14 = As[0i + ty * 1i + 0i];
        let v15 = Bs[0i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v14[0]), v15, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v14[1]), v15, acc_1_0);
        let v16 = As[16i + ty * 1i + 0i];
        let v17 = Bs[16i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v16[0]), v17, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v16[1]), v17, acc_1_0);
        let v18 = As[32i + ty * 1i + 0i];
        let v19 = Bs[32i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v18[0]), v19, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v18[1]), v19, acc_1_0);
        let v20 = As[48i + ty * 1i + 0i];
        let v21 = Bs[48i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v20[0]), v21, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v20[1]), v21, acc_1_0);
        let v22 = As[64i + ty * 1i + 0i];
        let v23 = Bs[64i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v22[0]), v23, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v22[1]), v23, acc_1_0);
        let v24 = As[80i + ty * 1i + 0i];
        let v25 = Bs[80i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v24[0]), v25, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v24[1]), v25, acc_1_0);
        let v26 = As[96i + ty * 1i + 0i];
        let v27 = Bs[96i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v26[0]), v27, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v26[1]), v27, acc_1_0);
        let v28 = As[112i + ty * 1i + 0i];
        let v29 = Bs[112i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v28[0]), v29, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v28[1]), v29, acc_1_0);
        workgroupBarrier();
    }
    let v30 = m0 + ty * 2i + 0i;
    let v31 = n0 + tx * 2i + 0i;
    if (v30 < dims.size_T && v31 < dims.size_T) {
        out[v30 * dims.size_T + v31] = acc_0_0[0];
    }
    let v32 = n0 + tx * 2i + 1i;
    if (v30 < dims.size_T && v32 < dims.size_T) {
        out[v30 * dims.size_T + v32] = acc_0_0[1];
    }
    let v33 = m0 + ty * 2i + 1i;
    let v34 = n0 + tx * 2i + 0i;
    if (v33 < dims.size_T && v34 < dims.size_T) {
        out[v33 * dims.size_T + v34] = acc_1_0[0];
    }
    let v35 = n0 + tx * 2i + 1i;
    if (v33 < dims.size_T && v35 < dims.size_T) {
        out[v33 * dims.size_T + v35] = acc_1_0[1];
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
    for (var r1 = 0i; r1 < dims.size_T; r1 += 8i) {
        let v2 = (lid + 0i) / 8i;
        let v3 = (lid + 0i) % 8i;
        let v4 = m0 + v2;
        let v5 = r1 + v3;
        let v6 = min(v4, dims.size_T - 1i);
        let v7 = min(v5, dims.size_T - 1i);
        let v8 = b1[v6 * dims.size_T + v7];
        As[v3 * 16i + v2 / 2i][v2 % 2i] = select(0.0f, v8, v4 < dims.size_T && v5 < dims.size_T);
        let v9 = (lid + 0i) / 32i;
        let v10 = (lid + 0i) % 32i;
        let v11 = r1 + v9;
        let v12 = n0 + v10;
        let v13 = min(v11, dims.size_T - 1i);
        let v14 = min(v12, 7i);
        let v15 = b0[v13 * 8i + v14];
        Bs[v9 * 16i + v10 / 2i][v10 % 2i] = select(0.0f, v15, v11 < dims.size_T && v12 < 8i);
        workgroupBarrier();
        let v16 = As[0i + ty * 1i + 0i];
        let v17 = Bs[0i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v16[0]), v17, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v16[1]), v17, acc_1_0);
        let v18 = As[16i + ty * 1i + 0i];
        let v19 = Bs[16i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v18[0]), v19, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v18[1]), v19, acc_1_0);
        let v20 = As[32i + ty * 1i + 0i];
        let v21 = Bs[32i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v20[0]), v21, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v20[1]), v21, acc_1_0);
        let v22 = As[48i + ty * 1i + 0i];
        let v23 = Bs[48i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v22[0]), v23, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v22[1]), v23, acc_1_0);
        let v24 = As[64i + ty * 1i + 0i];
        let v25 = Bs[64i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v24[0]), v25, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v24[1]), v25, acc_1_0);
        let v26 = As[80i + ty * 1i + 0i];
        let v27 = Bs[80i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v26[0]), v27, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v26[1]), v27, acc_1_0);
        let v28 = As[96i + ty * 1i + 0i];
        let v29 = Bs[96i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v28[0]), v29, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v28[1]), v29, acc_1_0);
        let v30 = As[112i + ty * 1i + 0i];
        let v31 = Bs[112i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v30[0]), v31, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v30[1]), v31, acc_1_0);
        workgroupBarrier();
    }
    let v32 = m0 + ty * 2i + 0i;
    let v33 = n0 + tx * 2i + 0i;
    if (v32 < dims.size_T && v33 < 8i) {
        out[v32 * 8i + v33] = acc_0_0[0];
    }
    let v34 = n0 + tx * 2i + 1i;
    if (v32 < dims.size_T && v34 < 8i) {
        out[v32 * 8i + v34] = acc_0_0[1];
    }
    let v35 = m0 + ty * 2i + 1i;
    let v36 = n0 + tx * 2i + 0i;
    if (v35 < dims.size_T && v36 < 8i) {
        out[v35 * 8i + v36] = acc_1_0[0];
    }
    let v37 = n0 + tx * 2i + 1i;
    if (v35 < dims.size_T && v37 < 8i) {
        out[v35 * 8i + v37] = acc_1_0[1];
    }
}
