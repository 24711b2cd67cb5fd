// fgrad: dynamic_update_slice f32[4,3] <- f32[4,3] f32[2,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 12i) {
        return;
    }
    let v1 = i32(u32(i) / 3u);
    let v2 = i32(u32(i) % 3u);
    let v3 = 1i;
    let v4 = clamp(v3, 0i, 2i);
    let v5 = 0i;
    let v6 = clamp(v5, 0i, 0i);
    let v7 = v1 - v4;
    let v8 = clamp(v7, 0i, 1i);
    let v9 = v2 - v6;
    let v10 = clamp(v9, 0i, 2i);
    let v11 = b0[i];
    let v12 = b1[v8 * 3i + v10];
    let v13 = select(v11, v12, v7 >= 0i && v7 < 2i && v9 >= 0i && v9 < 3i);
    out[i] = v13;
}
