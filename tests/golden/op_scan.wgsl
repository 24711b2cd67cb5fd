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

// fgrad: mul_add_tanh f32[3] <- i32[] f32[3] f32[4,3]
@group(0) @binding(0) var<storage, read> b0: array<i32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read> b2: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn tanh_f32(x: f32) -> f32 {
    let z = x * x;
    let r = select(tanh(clamp(x, -15.0f, 15.0f)), x + x * z * (((((0.002142803743481636f * z + -0.008177093230187893f) * z + 0.021700501441955566f) * z + -0.05394670367240906f) * z + 0.1333320587873459f) * z + -0.3333333134651184f), abs(x) <= 0.625f);
    return select(r, x, is_nan(x) | (x == 0.0f));
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 3i) {
        return;
    }
    let v1 = b1[i];
    let v2 = 0.5f;
    let v3 = (v1 * v2);
    let v4 = b0[0i];
    let v5 = clamp(v4, 0i, 3i);
    let v6 = 0i;
    let v7 = clamp(v6, 0i, 0i);
    let v8 = v5 + 0i;
    let v9 = v7 + i;
    let v10 = b2[v8 * 3i + v9];
    let v11 = (v3 + v10);
    let v12 = tanh_f32(v11);
    out[i] = v12;
}

// fgrad: mul_dynamic_update_slice f32[4,3] <- i32[] f32[3] f32[4,3]
@group(0) @binding(0) var<storage, read> b0: array<i32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read> b2: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 3i) {
        return;
    }
    let v1 = b0[0i];
    let v2 = clamp(v1, 0i, 3i);
    let v3 = 0i;
    let v4 = clamp(v3, 0i, 0i);
    let v5 = b1[i];
    let v6 = clamp(v1, 0i, 3i);
    let v7 = clamp(v3, 0i, 0i);
    let v8 = v6 + 0i;
    let v9 = v7 + i;
    let v10 = b2[v8 * 3i + v9];
    let v11 = (v5 * v10);
    let v12 = v2 + 0i;
    let v13 = v4 + i;
    out[v12 * 3i + v13] = v11;
}

// fgrad: scan_state 3 words
@group(0) @binding(0) var<storage, read> b0: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * 256u;
    if (i < 3u) {
        out[i] = b0[i];
    }
}

// fgrad: scan_next i32[]
@group(0) @binding(0) var<storage, read_write> out: array<i32>;

@compute @workgroup_size(1)
fn main() {
    out[0] = out[0] + 1i;
}

// fgrad: mul_add_tanh f32[3] <- i32[] f32[3] f32[4,3]
@group(0) @binding(0) var<storage, read> b0: array<i32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read> b2: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn tanh_f32(x: f32) -> f32 {
    let z = x * x;
    let r = select(tanh(clamp(x, -15.0f, 15.0f)), x + x * z * (((((0.002142803743481636f * z + -0.008177093230187893f) * z + 0.021700501441955566f) * z + -0.05394670367240906f) * z + 0.1333320587873459f) * z + -0.3333333134651184f), abs(x) <= 0.625f);
    return select(r, x, is_nan(x) | (x == 0.0f));
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 3i) {
        return;
    }
    let v1 = b1[i];
    let v2 = 0.5f;
    let v3 = (v1 * v2);
    let v4 = b0[0i];
    let v5 = clamp(v4, 0i, 3i);
    let v6 = 0i;
    let v7 = clamp(v6, 0i, 0i);
    let v8 = v5 + 0i;
    let v9 = v7 + i;
    let v10 = b2[v8 * 3i + v9];
    let v11 = (v3 + v10);
    let v12 = tanh_f32(v11);
    out[i] = v12;
}

// fgrad: mul_dynamic_update_slice f32[4,3] <- i32[] f32[3] f32[4,3]
@group(0) @binding(0) var<storage, read> b0: array<i32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read> b2: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 3i) {
        return;
    }
    let v1 = b0[0i];
    let v2 = clamp(v1, 0i, 3i);
    let v3 = 0i;
    let v4 = clamp(v3, 0i, 0i);
    let v5 = b1[i];
    let v6 = clamp(v1, 0i, 3i);
    let v7 = clamp(v3, 0i, 0i);
    let v8 = v6 + 0i;
    let v9 = v7 + i;
    let v10 = b2[v8 * 3i + v9];
    let v11 = (v5 * v10);
    let v12 = v2 + 0i;
    let v13 = v4 + i;
    out[v12 * 3i + v13] = v11;
}

// fgrad: scan_state 3 words
@group(0) @binding(0) var<storage, read> b0: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * 256u;
    if (i < 3u) {
        out[i] = b0[i];
    }
}

// fgrad: scan_next i32[]
@group(0) @binding(0) var<storage, read_write> out: array<i32>;

@compute @workgroup_size(1)
fn main() {
    out[0] = out[0] + 1i;
}

// fgrad: mul_add_tanh f32[3] <- i32[] f32[3] f32[4,3]
@group(0) @binding(0) var<storage, read> b0: array<i32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read> b2: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn tanh_f32(x: f32) -> f32 {
    let z = x * x;
    let r = select(tanh(clamp(x, -15.0f, 15.0f)), x + x * z * (((((0.002142803743481636f * z + -0.008177093230187893f) * z + 0.021700501441955566f) * z + -0.05394670367240906f) * z + 0.1333320587873459f) * z + -0.3333333134651184f), abs(x) <= 0.625f);
    return select(r, x, is_nan(x) | (x == 0.0f));
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 3i) {
        return;
    }
    let v1 = b1[i];
    let v2 = 0.5f;
    let v3 = (v1 * v2);
    let v4 = b0[0i];
    let v5 = clamp(v4, 0i, 3i);
    let v6 = 0i;
    let v7 = clamp(v6, 0i, 0i);
    let v8 = v5 + 0i;
    let v9 = v7 + i;
    let v10 = b2[v8 * 3i + v9];
    let v11 = (v3 + v10);
    let v12 = tanh_f32(v11);
    out[i] = v12;
}

// fgrad: mul_dynamic_update_slice f32[4,3] <- i32[] f32[3] f32[4,3]
@group(0) @binding(0) var<storage, read> b0: array<i32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read> b2: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 3i) {
        return;
    }
    let v1 = b0[0i];
    let v2 = clamp(v1, 0i, 3i);
    let v3 = 0i;
    let v4 = clamp(v3, 0i, 0i);
    let v5 = b1[i];
    let v6 = clamp(v1, 0i, 3i);
    let v7 = clamp(v3, 0i, 0i);
    let v8 = v6 + 0i;
    let v9 = v7 + i;
    let v10 = b2[v8 * 3i + v9];
    let v11 = (v5 * v10);
    let v12 = v2 + 0i;
    let v13 = v4 + i;
    out[v12 * 3i + v13] = v11;
}

// fgrad: scan_state 3 words
@group(0) @binding(0) var<storage, read> b0: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * 256u;
    if (i < 3u) {
        out[i] = b0[i];
    }
}

// fgrad: scan_next i32[]
@group(0) @binding(0) var<storage, read_write> out: array<i32>;

@compute @workgroup_size(1)
fn main() {
    out[0] = out[0] + 1i;
}

// fgrad: mul_add_tanh f32[3] <- i32[] f32[3] f32[4,3]
@group(0) @binding(0) var<storage, read> b0: array<i32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read> b2: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn tanh_f32(x: f32) -> f32 {
    let z = x * x;
    let r = select(tanh(clamp(x, -15.0f, 15.0f)), x + x * z * (((((0.002142803743481636f * z + -0.008177093230187893f) * z + 0.021700501441955566f) * z + -0.05394670367240906f) * z + 0.1333320587873459f) * z + -0.3333333134651184f), abs(x) <= 0.625f);
    return select(r, x, is_nan(x) | (x == 0.0f));
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 3i) {
        return;
    }
    let v1 = b1[i];
    let v2 = 0.5f;
    let v3 = (v1 * v2);
    let v4 = b0[0i];
    let v5 = clamp(v4, 0i, 3i);
    let v6 = 0i;
    let v7 = clamp(v6, 0i, 0i);
    let v8 = v5 + 0i;
    let v9 = v7 + i;
    let v10 = b2[v8 * 3i + v9];
    let v11 = (v3 + v10);
    let v12 = tanh_f32(v11);
    out[i] = v12;
}

// fgrad: mul_dynamic_update_slice f32[4,3] <- i32[] f32[3] f32[4,3]
@group(0) @binding(0) var<storage, read> b0: array<i32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read> b2: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 3i) {
        return;
    }
    let v1 = b0[0i];
    let v2 = clamp(v1, 0i, 3i);
    let v3 = 0i;
    let v4 = clamp(v3, 0i, 0i);
    let v5 = b1[i];
    let v6 = clamp(v1, 0i, 3i);
    let v7 = clamp(v3, 0i, 0i);
    let v8 = v6 + 0i;
    let v9 = v7 + i;
    let v10 = b2[v8 * 3i + v9];
    let v11 = (v5 * v10);
    let v12 = v2 + 0i;
    let v13 = v4 + i;
    out[v12 * 3i + v13] = v11;
}

// fgrad: scan_state 3 words
@group(0) @binding(0) var<storage, read> b0: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * 256u;
    if (i < 3u) {
        out[i] = b0[i];
    }
}

// fgrad: scan_next i32[]
@group(0) @binding(0) var<storage, read_write> out: array<i32>;

@compute @workgroup_size(1)
fn main() {
    out[0] = out[0] + 1i;
}
