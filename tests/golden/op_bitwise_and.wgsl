// fgrad: bitwise_and i32[3,4] <- i32[3,4] i32[4]
@group(0) @binding(0) var<storage, read> b0: array<i32>;
@group(0) @binding(1) var<storage, read> b1: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<i32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 12i) {
        return;
    }
    let v1 = i32(u32(i) / 4u);
    let v2 = i32(u32(i) % 4u);
    let v3 = b0[i];
    let v4 = b1[v2];
    let v5 = (v3 & v4);
    out[i] = v5;
}
