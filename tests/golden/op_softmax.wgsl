// fgrad: softmax f32[2,5] <- f32[2,5]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 10i) {
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
    let v10 = exp(v9 - a3) / a6;
    out[i] = v10;
}
