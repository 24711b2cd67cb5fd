// fgrad: constant f32[3]
@group(0) @binding(0) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 3i) {
        return;
    }
    let v1 = 1.0f;
    out[i] = v1;
}

// fgrad: constant i32[]
@group(0) @binding(0) var<storage, read_write> out: array<i32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 1i) {
        return;
    }
    let v1 = 0i;
    out[i] = v1;
}

// fgrad: while_init 1 words
@group(0) @binding(0) var<storage, read> b0: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * 256u;
    if (i < 1u) {
        out[i] = b0[i];
    }
}

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

// fgrad: lt bool[] <- i32[] i32[]
@group(0) @binding(0) var<storage, read> b0: array<i32>;
@group(0) @binding(1) var<storage, read> b1: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 1i) {
        return;
    }
    let v1 = b1[0i];
    let v2 = b0[0i];
    let v3 = (v1 < v2);
    out[i] = select(0u, 1u, v3);
}

// fgrad: add i32[] <- i32[]
@group(0) @binding(0) var<storage, read> b0: array<i32>;
@group(0) @binding(1) var<storage, read_write> out: array<i32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 1i) {
        return;
    }
    let v1 = b0[0i];
    let v2 = 1i;
    let v3 = (v1 + v2);
    out[i] = v3;
}

// fgrad: mul_astype_add f32[3] <- i32[]
@group(0) @binding(0) var<storage, read> b0: array<i32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 3i) {
        return;
    }
    let v1 = out[i];
    let v2 = 1.5f;
    let v3 = (v1 * v2);
    let v4 = b0[0i];
    let v5 = f32(v4);
    let v6 = (v3 + v5);
    out[i] = v6;
}

// fgrad: while_state 1 words
@group(0) @binding(0) var<storage, read> b0: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * 256u;
    if (i < 1u) {
        out[i] = b0[i];
    }
}
