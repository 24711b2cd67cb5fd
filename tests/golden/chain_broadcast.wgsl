// fgrad: mul_add_tanh_sub f32[3,4] <- f32[3,4] f32[4]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 12i) {
        return;
    }
    let v1 = i / 4i;
    let v2 = (i) % 4i;
    let v3 = b0[i];
    let v4 = 2.0f;
    let v5 = (v3 * v4);
    let v6 = b1[v2];
    let v7 = (v5 + v6);
    let v8 = select(tanh(clamp(v7, -15.0f, 15.0f)), v7, is_nan(v7));
    let v9 = (-v3);
    let v10 = exp(v9);
    let v11 = (v8 - v10);
    out[i] = v11;
}
