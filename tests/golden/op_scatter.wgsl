// fgrad: lt_add_where i32[5] <- i32[5]
@group(0) @binding(0) var<storage, read> b0: array<i32>;
@group(0) @binding(1) var<storage, read_write> out: array<i32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 5i) {
        return;
    }
    let v1 = b0[i];
    let v2 = 0i;
    let v3 = (v1 < v2);
    let v4 = 4i;
    let v5 = (v1 + v4);
    let v6 = select(v1, v5, v3);
    out[i] = v6;
}

// fgrad: scatter f32[4,3] <- f32[4,3] f32[5,3] i32[5]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read> b2: array<i32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 12i) {
        return;
    }
    let v1 = i / 3i;
    let v2 = (i) % 3i;
    let v3 = b0[i];
    var a4: f32 = 0.0f;
    for (var r5 = 0i; r5 < 5i; r5++) {
        let v6 = b2[r5];
        let v7 = b1[r5 * 3i + v2];
        a4 = a4 + select(0.0f, v7, v6 == v1);
    }
    let v8 = v3 + a4;
    out[i] = v8;
}
