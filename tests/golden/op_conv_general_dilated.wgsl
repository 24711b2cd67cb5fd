// fgrad: conv_general_dilated f32[2,4,3,5] <- f32[2,3,5,5] f32[4,3,3,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 120i) {
        return;
    }
    let v1 = i32(u32(i) / 60u);
    let v2 = i32(u32(i) / 15u % 4u);
    let v3 = i32(u32(i) / 5u % 3u);
    let v4 = i32(u32(i) % 5u);
    var a5: f32 = 0.0f;
    for (var r6 = 0i; r6 < 27i; r6++) {
        let v7 = i32(u32(r6) / 9u);
        let v8 = i32(u32(r6) / 3u % 3u);
        let v9 = i32(u32(r6) % 3u);
        let v10 = v3 * 2i + v8 - 1i;
        let v11 = clamp(v10, 0i, 4i);
        let v12 = v4 + v9 - 1i;
        let v13 = clamp(v12, 0i, 4i);
        let v14 = b0[v1 * 75i + v7 * 25i + v11 * 5i + v13];
        let v15 = b1[v2 * 27i + v7 * 9i + v8 * 3i + v9];
        a5 = a5 + select(0.0f, v14 * v15, v10 >= 0i && v10 < 5i && v12 >= 0i && v12 < 5i);
    }
    out[i] = a5;
}
