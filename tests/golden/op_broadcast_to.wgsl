// fgrad: broadcast_to f32[2,3,4] <- f32[3,1]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let q = i32(gid.x + gid.y * 256u);
    if (q >= 6i) {
        return;
    }
    let v1 = i32(u32(q) / 3u);
    let v2 = i32(u32(q) % 3u);
    let v3 = 0i * 4i;
    let v4 = v3 + 1i;
    let v5 = v3 + 2i;
    let v6 = v3 + 3i;
    let v7 = b0[v2];
    out[q] = vec4<f32>(v7, v7, v7, v7);
}
