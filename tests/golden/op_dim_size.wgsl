// fgrad: sum f32[3] <- f32[T,3]
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
    out[i] = a1;
}

// fgrad: astype_div_mul f32[3] <- f32[3]
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
    let v1 = b0[i];
    let v2 = 1.0f;
    let v3 = dims.size_T;
    let v4 = f32(v3);
    let v5 = (v2 / v4);
    let v6 = (v1 * v5);
    out[i] = v6;
}
