// fgrad: mul_sum f32[2] <- f32[2,3] f32[3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 2i) {
        return;
    }
    var a1: f32 = 0.0f;
    let v2 = 0i;
    let v3 = b0[i * 3i + v2];
    let v4 = b1[v2];
    let v5 = (v3 * v4);
    a1 = a1 + v5;
    let v6 = 1i;
    let v7 = b0[i * 3i + v6];
    let v8 = b1[v6];
    let v9 = (v7 * v8);
    a1 = a1 + v9;
    let v10 = 2i;
    let v11 = b0[i * 3i + v10];
    let v12 = b1[v10];
    let v13 = (v11 * v12);
    a1 = a1 + v13;
    out[i] = a1;
}
