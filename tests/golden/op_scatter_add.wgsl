// fgrad: lt_add_where i32[5] <- i32[5]
@group(0) @binding(0) var<storage, read> b0: array<i32>;
@group(0) @binding(1) var<storage, read_write> out: array<i32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 5i) {
        return;
    }
    let v1 = b0[i];
    let v2 = 0i;
    let v3 = (v1 < v2);
    let v4 = 3i;
    let v5 = (v1 + v4);
    let v6 = select(v1, v5, v3);
    out[i] = v6;
}

// fgrad: scatter_add f32[3,2] <- f32[5,2] i32[5]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 6i) {
        return;
    }
    let v1 = i32(u32(i) / 2u);
    let v2 = i32(u32(i) % 2u);
    var a3: f32 = 0.0f;
    let v4 = 0i;
    let v5 = b1[v4];
    let v6 = b0[v4 * 2i + v2];
    a3 = a3 + select(0.0f, v6, v5 == v1);
    let v7 = 1i;
    let v8 = b1[v7];
    let v9 = b0[v7 * 2i + v2];
    a3 = a3 + select(0.0f, v9, v8 == v1);
    let v10 = 2i;
    let v11 = b1[v10];
    let v12 = b0[v10 * 2i + v2];
    a3 = a3 + select(0.0f, v12, v11 == v1);
    let v13 = 3i;
    let v14 = b1[v13];
    let v15 = b0[v13 * 2i + v2];
    a3 = a3 + select(0.0f, v15, v14 == v1);
    let v16 = 4i;
    let v17 = b1[v16];
    let v18 = b0[v16 * 2i + v2];
    a3 = a3 + select(0.0f, v18, v17 == v1);
    out[i] = a3;
}
