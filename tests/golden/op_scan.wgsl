// fgrad: scan.mul_add_tanh f32[3] f32[3] <- f32[3] f32[3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out0: array<f32>;
@group(0) @binding(3) var<storage, read_write> out1: array<f32>;
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
    let v1 = b0[i];
    var a2: f32 = v1;
    let v3 = 0.5f;
    for (var r4 = 0i; r4 < 4i; r4++) {
        let v5 = b1[r4 * 3i + i];
        let v6 = (a2 * v3);
        let v7 = (v6 + v5);
        let v8 = tanh_f32(v7);
        let v9 = (a2 * v5);
        out1[r4 * 3i + i] = v9;
        a2 = v8;
    }
    out0[i] = a2;
}
