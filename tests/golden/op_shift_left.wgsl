// fgrad: shift_left i32[8] <- i32[8] i32[8]
@group(0) @binding(0) var<storage, read> b0: array<i32>;
@group(0) @binding(1) var<storage, read> b1: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<i32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 8i) {
        return;
    }
    let v1 = b0[i];
    let v2 = b1[i];
    let v3 = u32(v2);
    let v4 = select(v1 << v3, 0i, v3 >= 32u);
    out[i] = v4;
}
