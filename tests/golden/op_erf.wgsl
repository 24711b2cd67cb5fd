// fgrad: erf f32[3,4] <- f32[3,4]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 12i) {
        return;
    }
    let v1 = i / 4i;
    let v2 = (i) % 4i;
    let v3 = b0[i];
    let v4 = min(abs(v3), 4.0f);
    let v5 = v4 * v4;
    let v6 = 7.853850547689945e-05f * v5 + -0.0008010190213099122f;
    let v7 = v6 * v5 + 0.00518832728266716f;
    let v8 = v7 * v5 + -0.026853810995817184f;
    let v9 = v8 * v5 + 0.1128358542919159f;
    let v10 = v9 * v5 + -0.3761262595653534f;
    let v11 = v10 * v5 + 0.12837916612625122f;
    let v12 = 1.0f / v4;
    let v13 = -0.011375464498996735f * v12 + 0.03800315037369728f;
    let v14 = v13 * v12 + 0.0040199789218604565f;
    let v15 = v14 * v12 + -0.21906128525733948f;
    let v16 = v15 * v12 + 0.4809337854385376f;
    let v17 = v16 * v12 + -0.46466463804244995f;
    let v18 = v17 * v12 + 0.04015903174877167f;
    let v19 = v18 * v12 + 0.5593159198760986f;
    let v20 = v19 * v12 + 0.0002530883648432791f;
    let v21 = select(1.0f - exp(-v5) * v20, v4 + v4 * v11, v4 < 1.0f);
    let v22 = select(select(v21, -v21, v3 < 0.0f), v3, is_nan(v3));
    out[i] = v22;
}
