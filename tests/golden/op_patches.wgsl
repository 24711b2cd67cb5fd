// fgrad: sum f32[2,3,5] <- f32[2,5,6]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 30i) {
        return;
    }
    let v1 = i / 15i;
    let v2 = (i / 5i) % 3i;
    let v3 = (i) % 5i;
    var a4: f32 = 0.0f;
    for (var r5 = 0i; r5 < 6i; r5++) {
        let v6 = r5 / 3i;
        let v7 = (r5) % 3i;
        let v8 = v2 * 2i + v6 - 1i;
        let v9 = clamp(v8, 0i, 4i);
        let v10 = v3 + v7 - 2i;
        let v11 = clamp(v10, 0i, 5i);
        let v12 = b0[v1 * 30i + v9 * 6i + v11];
        let v13 = select(0.0f, v12, v8 >= 0i && v10 >= 0i);
        a4 = a4 + v13;
    }
    out[i] = a4;
}
