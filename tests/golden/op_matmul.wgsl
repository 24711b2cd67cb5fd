// fgrad: matmul f32[3,5] <- f32[3,4] f32[4,5]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = i32(gid.x + gid.y * 64u);
    if (i >= 15i) {
        return;
    }
    let v1 = i / 5i;
    let v2 = (i) % 5i;
    var a3: f32 = 0.0f;
    for (var r4 = 0i; r4 < 4i; r4++) {
        let v5 = b0[v1 * 4i + r4];
        let v6 = b1[r4 * 5i + v2];
        a3 = a3 + v5 * v6;
    }
    out[i] = a3;
}
