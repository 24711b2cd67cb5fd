// fgrad: argsort i32[2,13] <- f32[2,13]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<i32>;
var<workgroup> sort_key: array<u32, 4>;
var<workgroup> sort_index: array<i32, 4>;
fn total_key(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    return select(b | 0x80000000u, ~b, b >= 0x80000000u);
}
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn numpy_key(x: f32) -> u32 {
    return select(select(total_key(x), 0x80000000u, (bitcast<u32>(x) << 1u) == 0u), 0xffffffffu, is_nan(x));
}

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let o = i32(group.x + group.y * 8u);
    if (o >= 8i) {
        return;
    }
    let lid = i32(local.x);
    let v1 = i32(u32(o) / 4u);
    let v2 = i32(u32(o) % 4u);
    let v3 = v2 * 4i;
    let v4 = min(4i, 13i - v3);
    for (var r5 = lid; r5 < v4; r5 += 32i) {
        let v6 = v3 + r5;
        let v7 = b0[v1 * 13i + v6];
        sort_key[r5] = numpy_key(v7);
        sort_index[r5] = r5;
    }
    workgroupBarrier();
    for (var k8 = 2i; k8 <= 4i; k8 = k8 * 2i) {
        for (var j9 = k8 / 2i; j9 > 0i; j9 = j9 / 2i) {
            for (var t10 = lid; t10 < 2i; t10 += 32i) {
                let v11 = t10 % j9;
                let v12 = (t10 - v11) * 2i + v11;
                let v13 = select(v12 + j9, v12 + 2i * (j9 - v11) - 1i, j9 == k8 / 2i);
                if (v13 < v4) {
                    let v14 = sort_key[v12];
                    let v15 = sort_key[v13];
                    let v16 = sort_index[v12];
                    let v17 = sort_index[v13];
                    if (v15 < v14 || (v15 == v14 && v17 < v16)) {
                        sort_key[v12] = v15; sort_key[v13] = v14; sort_index[v12] = v17; sort_index[v13] = v16;
                    }
                }
            }
            workgroupBarrier();
        }
    }
    for (var r18 = lid; r18 < v4; r18 += 32i) {
        let v19 = sort_index[r18];
        let v20 = v3 + r18;
        out[v1 * 13i + v20] = v3 + v19;
    }
}

// fgrad: merge_runs i32[2,13] <- f32[2,13] i32[2,13]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<i32>;
fn total_key(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    return select(b | 0x80000000u, ~b, b >= 0x80000000u);
}
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn numpy_key(x: f32) -> u32 {
    return select(select(total_key(x), 0x80000000u, (bitcast<u32>(x) << 1u) == 0u), 0xffffffffu, is_nan(x));
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 26i) {
        return;
    }
    let v1 = i32(u32(i) / 13u);
    let v2 = i32(u32(i) % 13u);
    let v3 = v2 - v2 % 8i;
    let v4 = v2 - v3;
    let v5 = min(4i, 13i - v3);
    let v6 = clamp(13i - v3 - 4i, 0i, 4i);
    var a7: i32 = max(0i, v4 - v6);
    var a8: i32 = min(v4, v5);
    while (a7 < a8) {
        let v9 = (a7 + a8) / 2i;
        let v10 = v3 + v9;
        let v11 = b1[v1 * 13i + v10];
        let v12 = b0[v1 * 13i + v11];
        let v13 = numpy_key(v12);
        let v14 = v3 + 4i + v4 - v9 - 1i;
        let v15 = b1[v1 * 13i + v14];
        let v16 = b0[v1 * 13i + v15];
        let v17 = numpy_key(v16);
        if (v13 <= v17) { a7 = v9 + 1i; } else { a8 = v9; }
    }
    let v18 = v4 - a7;
    let v19 = v3 + min(a7, v5 - 1i);
    let v20 = b1[v1 * 13i + v19];
    let v21 = b0[v1 * 13i + v20];
    let v22 = numpy_key(v21);
    let v23 = v3 + 4i + min(v18, v6 - 1i);
    let v24 = b1[v1 * 13i + v23];
    let v25 = b0[v1 * 13i + v24];
    let v26 = numpy_key(v25);
    let v27 = select(v24, v20, a7 < v5 && (v18 >= v6 || v22 <= v26));
    out[i] = v27;
}
