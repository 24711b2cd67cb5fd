// fgrad: scan_start i32[]
@group(0) @binding(0) var<storage, read_write> out: array<i32>;

@compute @workgroup_size(1)
fn main() {
    out[0] = 0i;
}

// fgrad: scan_init 3 words
@group(0) @binding(0) var<storage, read> b0: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * 256u;
    if (i < 3u) {
        out[i] = b0[i];
    }
}

// fgrad: mul_sum f32[] <- i32[] f32[3] f32[2,3]
@group(0) @binding(0) var<storage, read> b0: array<i32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read> b2: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 1i) {
        return;
    }
    var a1: f32 = 0.0f;
    let v2 = 0i;
    let v3 = b1[v2];
    let v4 = b0[0i];
    let v5 = clamp(v4, 0i, 1i);
    let v6 = 0i;
    let v7 = clamp(v6, 0i, 0i);
    let v8 = v5 + 0i;
    let v9 = v7 + v2;
    let v10 = b2[v8 * 3i + v9];
    let v11 = (v3 * v10);
    a1 = a1 + v11;
    let v12 = 1i;
    let v13 = b1[v12];
    let v14 = v5 + 0i;
    let v15 = v7 + v12;
    let v16 = b2[v14 * 3i + v15];
    let v17 = (v13 * v16);
    a1 = a1 + v17;
    let v18 = 2i;
    let v19 = b1[v18];
    let v20 = v5 + 0i;
    let v21 = v7 + v18;
    let v22 = b2[v20 * 3i + v21];
    let v23 = (v19 * v22);
    a1 = a1 + v23;
    out[i] = a1;
}

// fgrad: mul_add f32[3] <- f32[]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 3i) {
        return;
    }
    let v1 = out[i];
    let v2 = 0.5f;
    let v3 = (v1 * v2);
    let v4 = b0[0i];
    let v5 = (v3 + v4);
    out[i] = v5;
}

// fgrad: scan_next i32[]
@group(0) @binding(0) var<storage, read_write> out: array<i32>;

@compute @workgroup_size(1)
fn main() {
    out[0] = out[0] + 1i;
}

// fgrad: mul_sum f32[] <- i32[] f32[3] f32[2,3]
@group(0) @binding(0) var<storage, read> b0: array<i32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read> b2: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 1i) {
        return;
    }
    var a1: f32 = 0.0f;
    let v2 = 0i;
    let v3 = b1[v2];
    let v4 = b0[0i];
    let v5 = clamp(v4, 0i, 1i);
    let v6 = 0i;
    let v7 = clamp(v6, 0i, 0i);
    let v8 = v5 + 0i;
    let v9 = v7 + v2;
    let v10 = b2[v8 * 3i + v9];
    let v11 = (v3 * v10);
    a1 = a1 + v11;
    let v12 = 1i;
    let v13 = b1[v12];
    let v14 = v5 + 0i;
    let v15 = v7 + v12;
    let v16 = b2[v14 * 3i + v15];
    let v17 = (v13 * v16);
    a1 = a1 + v17;
    let v18 = 2i;
    let v19 = b1[v18];
    let v20 = v5 + 0i;
    let v21 = v7 + v18;
    let v22 = b2[v20 * 3i + v21];
    let v23 = (v19 * v22);
    a1 = a1 + v23;
    out[i] = a1;
}

// fgrad: mul_add f32[3] <- f32[]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 3i) {
        return;
    }
    let v1 = out[i];
    let v2 = 0.5f;
    let v3 = (v1 * v2);
    let v4 = b0[0i];
    let v5 = (v3 + v4);
    out[i] = v5;
}

// fgrad: scan_next i32[]
@group(0) @binding(0) var<storage, read_write> out: array<i32>;

@compute @workgroup_size(1)
fn main() {
    out[0] = out[0] + 1i;
}
