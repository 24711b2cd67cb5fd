// fgrad: log_softmax f32[6,5] <- f32[6,5]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
fn scaled_f32(v: f32, k: f32) -> f32 {
    let s = clamp(k, -126.0f, 127.0f);
    return v * bitcast<f32>(u32(i32(s) + 127i) << 23u) *
        bitcast<f32>(u32(i32(clamp(k - s, -126.0f, 127.0f)) + 127i) << 23u);
}
fn exp_f32(x: f32) -> f32 {
    let c = clamp(x, -104.0f, 89.0f);
    let n = round(c * 1.442695f);
    let r = (c - n * 0.693359375f) - n * -0.00021219444f;
    return select(scaled_f32(1.0f + r + r * r * (((((0.00019825759227387607f * r + 0.0013948323903605342f) * r + 0.008333438076078892f) * r + 0.041666239500045776f) * r + 0.1666666567325592f) * r + 0.5f), n), x, is_nan(x));
}
fn log1p_near_f32(x: f32) -> f32 {
    let s = x / (2.0f + x);
    let z = s * s;
    return s * (2.0f + z * ((((0.232188880443573f * z + 0.21707777678966522f) * z + 0.2859227657318115f) * z + 0.3999970853328705f) * z + 0.6666666865348816f));
}
fn log_parts_f32(x: f32) -> vec2<f32> {
    let subnormal = x < 1.1754944e-38f;
    let bits = bitcast<u32>(select(x, x * 8388608.0f, subnormal));
    let high = (bits & 0x7fffffu) > 0x3504f3u;
    let m = bitcast<f32>((bits & 0x7fffffu) | select(0x3f800000u, 0x3f000000u, high));
    let e = i32(bits >> 23u) - select(127i, 126i, high) - select(0i, 23i, subnormal);
    return vec2<f32>(f32(e), log1p_near_f32(m - 1.0f));
}
fn log_f32(x: f32) -> f32 {
    let p = log_parts_f32(x);
    let r = p.x * 0.693359375f + (p.x * -0.00021219444f + p.y);
    return select(select(select(r, bitcast<f32>(0x7f800000u), x == bitcast<f32>(0x7f800000u)), bitcast<f32>(0xff800000u), x == 0.0f), bitcast<f32>(0x7fc00000u), (x < 0.0f) | is_nan(x));
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 30i) {
        return;
    }
    let v1 = i32(u32(i) / 5u);
    let v2 = i32(u32(i) % 5u);
    var a3: f32 = bitcast<f32>(0xff800000u);
    let v4 = b0[v1 * 5i];
    a3 = max(a3, v4);
    let v5 = b0[v1 * 5i + 1i];
    a3 = max(a3, v5);
    let v6 = b0[v1 * 5i + 2i];
    a3 = max(a3, v6);
    let v7 = b0[v1 * 5i + 3i];
    a3 = max(a3, v7);
    let v8 = b0[v1 * 5i + 4i];
    a3 = max(a3, v8);
    var a9: f32 = 0.0f;
    a9 = a9 + exp_f32(v4 - a3);
    a9 = a9 + exp_f32(v5 - a3);
    a9 = a9 + exp_f32(v6 - a3);
    a9 = a9 + exp_f32(v7 - a3);
    a9 = a9 + exp_f32(v8 - a3);
    let v10 = b0[i];
    let v11 = v10 - a3 - log_f32(a9);
    out[i] = v11;
}

// fgrad: eq_astype_mul_sum f32[6] <- i32[6] f32[6,5]
@group(0) @binding(0) var<storage, read> b0: array<i32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 6i) {
        return;
    }
    var a1: f32 = 0.0f;
    let v2 = 0i;
    let v3 = b1[i * 5i + v2];
    let v4 = b0[i];
    let v5 = (v4 == v2);
    let v6 = select(0.0f, 1.0f, v5);
    let v7 = (v3 * v6);
    a1 = a1 + v7;
    let v8 = 1i;
    let v9 = b1[i * 5i + v8];
    let v10 = (v4 == v8);
    let v11 = select(0.0f, 1.0f, v10);
    let v12 = (v9 * v11);
    a1 = a1 + v12;
    let v13 = 2i;
    let v14 = b1[i * 5i + v13];
    let v15 = (v4 == v13);
    let v16 = select(0.0f, 1.0f, v15);
    let v17 = (v14 * v16);
    a1 = a1 + v17;
    let v18 = 3i;
    let v19 = b1[i * 5i + v18];
    let v20 = (v4 == v18);
    let v21 = select(0.0f, 1.0f, v20);
    let v22 = (v19 * v21);
    a1 = a1 + v22;
    let v23 = 4i;
    let v24 = b1[i * 5i + v23];
    let v25 = (v4 == v23);
    let v26 = select(0.0f, 1.0f, v25);
    let v27 = (v24 * v26);
    a1 = a1 + v27;
    out[i] = a1;
}

// fgrad: sum_mul_neg f32[] <- f32[6]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

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
    let v8 = 3i;
    let v9 = b0[v8];
    a1 = a1 + v9;
    let v10 = 4i;
    let v11 = b0[v10];
    a1 = a1 + v11;
    let v12 = 5i;
    let v13 = b0[v12];
    a1 = a1 + v13;
    let v14 = 0.1666666716337204f;
    let v15 = (a1 * v14);
    let v16 = (-v15);
    out[i] = v16;
}
