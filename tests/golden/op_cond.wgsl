// fgrad: astype_mul_sin_where f32[2,3] <- bool[] f32[2,3]
@group(0) @binding(0) var<storage, read> b0: array<u32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 6i) {
        return;
    }
    let v1 = i / 3i;
    let v2 = (i) % 3i;
    let v3 = (b0[0i] != 0u);
    let v4 = select(0i, 1i, v3);
    let v5 = 0i;
    let v6 = (v4 <= v5);
    let v7 = b1[i];
    let v8 = 2.0f;
    let v9 = (v7 * v8);
    let v10 = sin(v7);
    let v11 = select(v10, v9, v6);
    out[i] = v11;
}
