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

// fgrad: while.lt_add_mul_astype i32[] f32[3] <- i32[] i32[]
@group(0) @binding(0) var<storage, read> b0: array<i32>;
@group(0) @binding(1) var<storage, read> b1: array<i32>;
@group(0) @binding(2) var<storage, read_write> out0: array<i32>;
@group(0) @binding(3) var<storage, read_write> out1: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 3i) {
        return;
    }
    let v1 = b1[0i];
    var a2: i32 = v1;
    var a3: f32 = out1[i];
    let v4 = b0[0i];
    let v5 = 1i;
    let v6 = 1.5f;
    for (var r7 = 0i; r7 < 65535i; r7++) {
        let v8 = (a2 < v4);
        if (!v8) { break; }
        let v9 = (a2 + v5);
        let v10 = (a3 * v6);
        let v11 = f32(a2);
        let v12 = (v10 + v11);
        a2 = v9;
        a3 = v12;
    }
    if (i == 0i) { out0[0i] = a2; }
    out1[i] = a3;
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
