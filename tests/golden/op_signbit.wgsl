// fgrad: where_signbit bool[18] <- bool[18] f32[18]
@group(0) @binding(0) var<storage, read> b0: array<u32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 18i) {
        return;
    }
    let v1 = (b0[i] != 0u);
    let v2 = b1[i];
    let v3 = 0.0f;
    let v4 = select(v3, v2, v1);
    let v5 = (bitcast<u32>(v4) >= 0x80000000u);
    out[i] = select(0u, 1u, v5);
}
