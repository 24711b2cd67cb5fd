// fgrad: patches_transpose f32[2,5,6] <- f32[2,3,5]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 60i) {
        return;
    }
    let v1 = i / 30i;
    let v2 = (i / 6i) % 5i;
    let v3 = (i) % 6i;
    var a4: f32 = 0.0f;
    for (var r5 = 0i; r5 < 6i; r5++) {
        let v6 = r5 / 3i;
        let v7 = (r5) % 3i;
        let v8 = v2 - v6 + 1i;
        let v9 = v8 / 2i;
        let v10 = clamp(v9, 0i, 2i);
        let v11 = v3 - v7 + 2i;
        let v12 = clamp(v11, 0i, 4i);
        let v13 = v1 * 15i + v10 * 5i + v12;
        let v14 = v13 / 15i;
        let v15 = (v13 / 5i) % 3i;
        let v16 = (v13) % 5i;
        let v17 = b0[v13];
        a4 = a4 + select(0.0f, v17, v8 % 2i == 0i && v11 < 5i);
    }
    out[i] = a4;
}
