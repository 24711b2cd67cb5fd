// fgrad: linear_recurrence f32[3,6] <- f32[3,6] f32[3,6]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 18i) {
        return;
    }
    let v1 = i32(u32(i) / 6u);
    let v2 = i32(u32(i) % 6u);
    var a3: f32 = 1.0f;
    var a4: f32 = 0.0f;
    for (var r5 = 0i; r5 < v2 + 1i; r5++) {
        let v6 = b0[v1 * 6i + r5];
        let v7 = b1[v1 * 6i + r5];
        let v8 = a3 * v6;
        let v9 = a4 * v6 + v7;
        a3 = v8; a4 = v9;
    }
    out[i] = a4;
}
