// fgrad: cumprod f32[3,5] <- f32[3,5]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 15i) {
        return;
    }
    let v1 = i32(u32(i) / 5u);
    let v2 = i32(u32(i) % 5u);
    var a3: f32 = 1.0f;
    for (var r4 = 0i; r4 < v2 + 1i; r4++) {
        let v5 = b0[v1 * 5i + r4];
        a3 = a3 * v5;
    }
    out[i] = a3;
}
