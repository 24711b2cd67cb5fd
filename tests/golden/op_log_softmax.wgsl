// fgrad: log_softmax f32[2,5] <- f32[2,5]
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
    a9 = a9 + exp(v4 - a3);
    a9 = a9 + exp(v5 - a3);
    a9 = a9 + exp(v6 - a3);
    a9 = a9 + exp(v7 - a3);
    a9 = a9 + exp(v8 - a3);
    let v10 = b0[i];
    let v11 = v10 - a3 - log(a9);
    out[i] = v11;
}
