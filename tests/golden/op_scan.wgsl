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

// fgrad: scan.mul_add_tanh f32[3] f32[3] <- f32[3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out0: array<f32>;
@group(0) @binding(2) var<storage, read_write> out1: array<f32>;
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
    var a1: f32 = out0[i];
    let v2 = 0.5f;
    for (var r3 = 0i; r3 < 4i; r3++) {
        let v4 = b0[r3 * 3i + i];
        let v5 = (a1 * v2);
        let v6 = (v5 + v4);
        let v7 = tanh_f32(v6);
        let v8 = (a1 * v4);
        out1[r3 * 3i + i] = v8;
        a1 = v7;
    }
    out0[i] = a1;
}
