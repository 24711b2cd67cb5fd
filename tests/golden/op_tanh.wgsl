// fgrad: tanh f32[2,4] <- f32[2,4]
@group(0) @binding(0) var<storage, read> b0: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let q = i32(gid.x + gid.y * 256u);
    if (q >= 2i) {
        return;
    }
    let v1 = 0i * 4i;
    let v2 = v1 + 1i;
    let v3 = v1 + 2i;
    let v4 = v1 + 3i;
    let v5 = b0[q];
    let v6 = v5.x;
    let v7 = select(tanh(clamp(v6, -15.0f, 15.0f)), v6, is_nan(v6));
    let v8 = v5.y;
    let v9 = select(tanh(clamp(v8, -15.0f, 15.0f)), v8, is_nan(v8));
    let v10 = v5.z;
    let v11 = select(tanh(clamp(v10, -15.0f, 15.0f)), v10, is_nan(v10));
    let v12 = v5.w;
    let v13 = select(tanh(clamp(v12, -15.0f, 15.0f)), v12, is_nan(v12));
    out[q] = vec4<f32>(v7, v9, v11, v13);
}
