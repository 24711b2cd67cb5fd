// fgrad: concatenate f32[3,3] <- f32[2,3] f32[1,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 9i) {
        return;
    }
    let v1 = i32(u32(i) / 3u);
    let v2 = i32(u32(i) % 3u);
    let v3 = clamp(v1 - 0i, 0i, 1i);
    let v4 = b0[v3 * 3i + v2];
    let v5 = clamp(v1 - 2i, 0i, 0i);
    let v6 = b1[v2];
    let v7 = select(v4, v6, v1 >= 2i);
    out[i] = v7;
}
