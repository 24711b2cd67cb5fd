// fgrad: transpose f32[4,3,2] <- f32[2,3,4]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 24i) {
        return;
    }
    let v1 = i32(u32(i) / 6u);
    let v2 = i32(u32(i) / 2u % 3u);
    let v3 = i32(u32(i) % 2u);
    let v4 = b0[v3 * 12i + v2 * 4i + v1];
    out[i] = v4;
}
