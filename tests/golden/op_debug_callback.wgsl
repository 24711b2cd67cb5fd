// fgrad: debug_callback doubled.<locals>.<lambda> on the host bool[] <- f32[2,3]
// fgrad: mul f32[2,3] <- f32[2,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 6i) {
        return;
    }
    let v1 = i32(u32(i) / 3u);
    let v2 = i32(u32(i) % 3u);
    let v3 = b0[i];
    let v4 = 2.0f;
    let v5 = (v3 * v4);
    out[i] = v5;
}
