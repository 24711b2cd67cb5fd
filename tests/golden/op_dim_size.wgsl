// fgrad: astype_div_sum_mul f32[3] <- f32[T,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
struct Dims { size_T: i32 }
@group(0) @binding(2) var<uniform> dims: Dims;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 3i) {
        return;
    }
    var a1: f32 = 0.0f;
    for (var r2 = 0i; r2 < dims.size_T; r2++) {
        let v3 = b0[r2 * 3i + i];
        a1 = a1 + v3;
    }
    let v4 = 1.0f;
    let v5 = dims.size_T;
    let v6 = f32(v5);
    let v7 = (v4 / v6);
    let v8 = (a1 * v7);
    out[i] = v8;
}
