// fgrad: argsort i32[3,7] <- f32[3,7]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<i32>;
var<workgroup> sort_key: array<u32, 7>;
var<workgroup> sort_index: array<i32, 7>;
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
    let o = i32(group.x + group.y * 3u);
    if (o >= 3i) {
        return;
    }
    let lid = i32(local.x);
    for (var r1 = lid; r1 < 7i; r1 += 32i) {
        let v2 = b0[o * 7i + r1];
        sort_key[r1] = numpy_key(v2);
        sort_index[r1] = r1;
    }
    workgroupBarrier();
    for (var k3 = 2i; k3 <= 8i; k3 = k3 * 2i) {
        for (var j4 = k3 / 2i; j4 > 0i; j4 = j4 / 2i) {
            for (var t5 = lid; t5 < 4i; t5 += 32i) {
                let v6 = t5 % j4;
                let v7 = (t5 - v6) * 2i + v6;
                let v8 = select(v7 + j4, v7 + 2i * (j4 - v6) - 1i, j4 == k3 / 2i);
                if (v8 < 7i) {
                    let v9 = sort_key[v7];
                    let v10 = sort_key[v8];
                    let v11 = sort_index[v7];
                    let v12 = sort_index[v8];
                    if (v10 < v9 || (v10 == v9 && v12 < v11)) {
                        sort_key[v7] = v10; sort_key[v8] = v9; sort_index[v7] = v12; sort_index[v8] = v11;
                    }
                }
            }
            workgroupBarrier();
        }
    }
    for (var r13 = lid; r13 < 7i; r13 += 32i) {
        let v14 = sort_index[r13];
        out[o * 7i + r13] = v14;
    }
}
