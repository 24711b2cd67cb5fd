// fgrad: pad f32[4,5] <- f32[2,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 20i) {
        return;
    }
    let v1 = i32(u32(i) / 5u);
    let v2 = i32(u32(i) % 5u);
    let v3 = v1 - 1i;
    let v4 = clamp(v3, 0i, 1i);
    let v5 = v2 - 1i;
    let v6 = clamp(v5, 0i, 2i);
    let v7 = b0[v4 * 3i + v6];
    let v8 = select(0.0f, v7, v3 >= 0i && v3 < 2i && v5 >= 0i && v5 < 3i);
    out[i] = v8;
}
