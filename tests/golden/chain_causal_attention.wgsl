// fgrad: matmul f32[2,4,4] <- f32[2,4,3] f32[2,4,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = i32(gid.x + gid.y * 64u);
    if (i >= 32i) {
        return;
    }
    let v1 = i / 16i;
    let v2 = (i / 4i) % 4i;
    let v3 = (i) % 4i;
    var a4: f32 = 0.0f;
    for (var r5 = 0i; r5 < 3i; r5++) {
        let v6 = b0[v1 * 12i + v2 * 3i + r5];
        let v7 = b1[v1 * 12i + v3 * 3i + r5];
        a4 = a4 + v6 * v7;
    }
    out[i] = a4;
}

// fgrad: div_ge_where_softmax f32[2,4,4] <- f32[2,4,4]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = i32(gid.x + gid.y * 64u);
    if (i >= 32i) {
        return;
    }
    let v1 = i / 16i;
    let v2 = (i / 4i) % 4i;
    let v3 = (i) % 4i;
    var a4: f32 = bitcast<f32>(0xff800000u);
    for (var r5 = 0i; r5 < 4i; r5++) {
        let v6 = (v2 >= r5);
        let v7 = b0[v1 * 16i + v2 * 4i + r5];
        let v8 = 2.0f;
        let v9 = (v7 / v8);
        let v10 = -1000000000.0f;
        let v11 = select(v10, v9, v6);
        a4 = max(a4, v11);
    }
    var a12: f32 = 0.0f;
    for (var r13 = 0i; r13 < 4i; r13++) {
        let v14 = (v2 >= r13);
        let v15 = b0[v1 * 16i + v2 * 4i + r13];
        let v16 = 2.0f;
        let v17 = (v15 / v16);
        let v18 = -1000000000.0f;
        let v19 = select(v18, v17, v14);
        a12 = a12 + exp(v19 - a4);
    }
    let v20 = (v2 >= v3);
    let v21 = b0[v1 * 16i + v2 * 4i + v3];
    let v22 = 2.0f;
    let v23 = (v21 / v22);
    let v24 = -1000000000.0f;
    let v25 = select(v24, v23, v20);
    let v26 = exp(v25 - a4) / a12;
    out[i] = v26;
}
