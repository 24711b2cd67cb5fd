// fgrad: lt_add_where f32[2,4,3] <- f32[7,3] f32[4,3] i32[2,4]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read> b2: array<i32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 24i) {
        return;
    }
    let v1 = i32(u32(i) / 12u);
    let v2 = i32(u32(i) / 3u % 4u);
    let v3 = i32(u32(i) % 3u);
    let v4 = b2[v1 * 4i + v2];
    let v5 = 0i;
    let v6 = (v4 < v5);
    let v7 = 7i;
    let v8 = (v4 + v7);
    let v9 = select(v4, v8, v6);
    let v10 = clamp(v9, 0i, 6i);
    let v11 = b0[v10 * 3i + v3];
    let v12 = b1[v2 * 3i + v3];
    let v13 = (v11 + v12);
    out[i] = v13;
}
