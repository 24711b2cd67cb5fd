// fgrad: cumsum f32[6] <- f32[2,3]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 6i) {
        return;
    }
    var a1: f32 = -0.0f;
    for (var r2 = 0i; r2 < i + 1i; r2++) {
        let v3 = i32(u32(r2) / 3u);
        let v4 = i32(u32(r2) % 3u);
        let v5 = b0[r2];
        a1 = a1 + v5;
    }
    out[i] = a1;
}
