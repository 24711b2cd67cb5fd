// fgrad: cosh f32[3,2] <- f32[3,2]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 6i) {
        return;
    }
    let v1 = i / 2i;
    let v2 = (i) % 2i;
    let v3 = b0[i];
    let v4 = abs(v3);
    let v5 = exp(v4);
    let v6 = select(0.5f * v5, exp(v4 - 88.0f) * 8.258181330680653e+37f, v4 > 88.0f);
    let v7 = 0.5f / v5;
    let v8 = (v6 + v7);
    out[i] = v8;
}
