// fgrad: erfc f32[3,4] <- f32[3,4]
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
    let v4 = abs(v3);
    let v5 = v3 * v3;
    let v6 = 1.0f - (v3 + v3 * ((((((7.853850547689945e-05f * v5 + -0.0008010190213099122f) * v5 + 0.00518832728266716f) * v5 + -0.026853810995817184f) * v5 + 0.1128358542919159f) * v5 + -0.3761262595653534f) * v5 + 0.12837916612625122f));
    let v7 = 2.0f / (2.0f + v4);
    let v8 = exp(-v4 * v4) * (((((((((-0.07485286146402359f * v7 + 0.3530077338218689f) * v7 + -0.6140424609184265f) * v7 + 0.4094441831111908f) * v7 + -0.1100582703948021f) * v7 + 0.2362295687198639f) * v7 + 0.23460249602794647f) * v7 + 0.2836802899837494f) * v7 + 0.2819766402244568f) * v7 + 3.848345841106493e-06f);
    let v9 = select(select(v8, 2.0f - v8, v3 < 0.0f), v6, v4 < 0.5f);
    let v10 = select(v9, v3, is_nan(v3));
    out[i] = v10;
}
