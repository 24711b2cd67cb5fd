// fgrad: dynamic_slice f32[2,2] <- f32[4,5]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 4i) {
        return;
    }
    let v1 = i32(u32(i) / 2u);
    let v2 = i32(u32(i) % 2u);
    let v3 = 1i;
    let v4 = clamp(v3, 0i, 2i);
    let v5 = 2i;
    let v6 = clamp(v5, 0i, 3i);
    let v7 = v4 + v1;
    let v8 = v6 + v2;
    let v9 = b0[v7 * 5i + v8];
    out[i] = v9;
}
