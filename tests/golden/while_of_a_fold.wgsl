// fgrad: while_init 3 words
@group(0) @binding(0) var<storage, read> b0: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * 256u;
    if (i < 3u) {
        out[i] = b0[i];
    }
}

// fgrad: sum_lt bool[] <- f32[3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 1i) {
        return;
    }
    var a1: f32 = 0.0f;
    let v2 = 0i;
    let v3 = b0[v2];
    a1 = a1 + v3;
    let v4 = 1i;
    let v5 = b0[v4];
    a1 = a1 + v5;
    let v6 = 2i;
    let v7 = b0[v6];
    a1 = a1 + v7;
    let v8 = 100.0f;
    let v9 = (a1 < v8);
    out[i] = select(0u, 1u, v9);
}

// fgrad: mul_add f32[3]
@group(0) @binding(0) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 3i) {
        return;
    }
    let v1 = out[i];
    let v2 = 2.0f;
    let v3 = (v1 * v2);
    let v4 = 1.0f;
    let v5 = (v3 + v4);
    out[i] = v5;
}
