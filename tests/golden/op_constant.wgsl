// fgrad: mul f32[3,4] <- f32[3,4] f32[1,4]
@group(0) @binding(0) var<storage, read> b0: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b1: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;

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
    let v5 = b0[q];
    let v6 = v5.x;
    let v7 = b1[0i];
    let v8 = v7.x;
    let v9 = (v6 * v8);
    let v10 = v5.y;
    let v11 = v7.y;
    let v12 = (v10 * v11);
    let v13 = v5.z;
    let v14 = v7.z;
    let v15 = (v13 * v14);
    let v16 = v5.w;
    let v17 = v7.w;
    let v18 = (v16 * v17);
    out[q] = vec4<f32>(v9, v12, v15, v18);
}
