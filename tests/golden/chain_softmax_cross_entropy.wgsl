// fgrad: log_softmax f32[6,5] <- f32[6,5]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 30i) {
        return;
    }
    let v1 = i / 5i;
    let v2 = (i) % 5i;
    var a3: f32 = bitcast<f32>(0xff800000u);
    for (var r4 = 0i; r4 < 5i; r4++) {
        let v5 = b0[v1 * 5i + r4];
        a3 = max(a3, v5);
    }
    var a6: f32 = 0.0f;
    for (var r7 = 0i; r7 < 5i; r7++) {
        let v8 = b0[v1 * 5i + r7];
        a6 = a6 + exp(v8 - a3);
    }
    let v9 = b0[i];
    let v10 = v9 - a3 - log(a6);
    out[i] = v10;
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
    for (var r2 = 0i; r2 < 5i; r2++) {
        let v3 = b1[i * 5i + r2];
        let v4 = b0[i];
        let v5 = (v4 == r2);
        let v6 = select(0.0f, 1.0f, v5);
        let v7 = (v3 * v6);
        a1 = a1 + v7;
    }
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
    for (var r2 = 0i; r2 < 6i; r2++) {
        let v3 = b0[r2];
        a1 = a1 + v3;
    }
    let v4 = 0.1666666716337204f;
    let v5 = (a1 * v4);
    let v6 = (-v5);
    out[i] = v6;
}
