// fgrad: gelu f32[2,5] <- f32[2,5]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 10i) {
        return;
    }
    let v1 = i32(u32(i) / 5u);
    let v2 = i32(u32(i) % 5u);
    let v3 = b0[i];
    let v4 = (0.5f * v3 * (1.0f + tanh(clamp(0.7978845608028654f * (v3 + 0.044715f * v3 * v3 * v3), -15.0f, 15.0f))));
    out[i] = v4;
}
