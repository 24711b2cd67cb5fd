// fgrad: rev f32[3,4] <- f32[3,4]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let q = i32(gid.x + gid.y * 256u);
    if (q >= 3i) {
        return;
    }
    let v1 = 0i * 4i;
    let v2 = v1 + 1i;
    let v3 = v1 + 2i;
    let v4 = v1 + 3i;
    let v5 = 3i - v1;
    let v6 = b0[q * 4i + v5];
    let v7 = 3i - v2;
    let v8 = b0[q * 4i + v7];
    let v9 = 3i - v3;
    let v10 = b0[q * 4i + v9];
    let v11 = 3i - v4;
    let v12 = b0[q * 4i + v11];
    out[q] = vec4<f32>(v6, v8, v10, v12);
}
