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
    let v4 = 4i;
    let v5 = (v1 + v4);
    let v6 = select(v1, v5, v3);
    out[i] = v6;
}

// fgrad: scatter f32[4,3] <- f32[4,3] f32[5,3] i32[5]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read> b2: array<i32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 12i) {
        return;
    }
    let v1 = i32(u32(i) / 3u);
    let v2 = i32(u32(i) % 3u);
    let v3 = b0[i];
    var a4: f32 = 0.0f;
    let v5 = 0i;
    let v6 = b2[v5];
    let v7 = b1[v5 * 3i + v2];
    a4 = a4 + select(0.0f, v7, v6 == v1);
    let v8 = 1i;
    let v9 = b2[v8];
    let v10 = b1[v8 * 3i + v2];
    a4 = a4 + select(0.0f, v10, v9 == v1);
    let v11 = 2i;
    let v12 = b2[v11];
    let v13 = b1[v11 * 3i + v2];
    a4 = a4 + select(0.0f, v13, v12 == v1);
    let v14 = 3i;
    let v15 = b2[v14];
    let v16 = b1[v14 * 3i + v2];
    a4 = a4 + select(0.0f, v16, v15 == v1);
    let v17 = 4i;
    let v18 = b2[v17];
    let v19 = b1[v17 * 3i + v2];
    a4 = a4 + select(0.0f, v19, v18 == v1);
    let v20 = v3 + a4;
    out[i] = v20;
}
