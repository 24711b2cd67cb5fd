// fgrad: matmul f32[16,64,64] <- f32[1024,64] f32[1024,64]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read> b1: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
var<workgroup> As: array<vec2<f32>, 128>;
var<workgroup> Bs: array<vec2<f32>, 128>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let lid = i32(local.x);
    let tx = lid % 16i;
    let ty = lid / 16i;
    let m0 = i32(group.y) * 32i;
    let n0 = i32(group.x) * 32i;
    let v1 = i32(group.z);
    var acc_0_0 = vec2<f32>();
    var acc_1_0 = vec2<f32>();
    let v2 = (lid + 0i) % 32i;
    let v3 = (lid + 0i) / 32i;
    let v4 = (lid - 192i) / 8i;
    let v5 = (lid - 192i) % 8i * 4i;
    {
        let v6 = m0 + v2;
        let v7 = 0i + v3;
        let v8 = v6 * 1024i + v1 * 64i + v7;
        let v9 = v8 / 1024i;
        let v10 = (v8) % 1024i;
        let v11 = b0[v10 * 64i + v9];
        As[v3 * 16i + v2 / 2i][v2 % 2i] = v11;
        if (lid >= 192i) {
            let v12 = 0i + v4;
            let v13 = n0 + v5;
            let v14 = b1[(v1 * 4096i + v12 * 64i + v13) / 4i];
            Bs[v4 * 16i + (v5 + 0i) / 2i] = v14.xy;
            Bs[v4 * 16i + (v5 + 2i) / 2i] = v14.zw;
        }
    }
    workgroupBarrier();
    var next_0 = 0.0f;
    var next_1 = vec4<f32>();
    for (var r15 = 0i; r15 < 64i; r15 += 8i) {
        if (r15 + 8i < 64i) {
            let v16 = m0 + v2;
            let v17 = r15 + 8i + v3;
            let v18 = v16 * 1024i + v1 * 64i + v17;
            let v19 = v18 / 1024i;
            let v20 = (v18) % 1024i;
            let v21 = b0[v20 * 64i + v19];
            next_0 = v21;
            if (lid >= 192i) {
                let v22 = r15 + 8i + v4;
                let v23 = n0 + v5;
                next_1 = b1[(v1 * 4096i + v22 * 64i + v23) / 4i];
            }
        }
        let v24 = As[0i + ty * 1i + 0i];
        let v25 = Bs[0i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v24[0]), v25, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v24[1]), v25, acc_1_0);
        let v26 = As[16i + ty * 1i + 0i];
        let v27 = Bs[16i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v26[0]), v27, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v26[1]), v27, acc_1_0);
        let v28 = As[32i + ty * 1i + 0i];
        let v29 = Bs[32i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v28[0]), v29, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v28[1]), v29, acc_1_0);
        let v30 = As[48i + ty * 1i + 0i];
        let v31 = Bs[48i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v30[0]), v31, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v30[1]), v31, acc_1_0);
        let v32 = As[64i + ty * 1i + 0i];
        let v33 = Bs[64i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v32[0]), v33, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v32[1]), v33, acc_1_0);
        let v34 = As[80i + ty * 1i + 0i];
        let v35 = Bs[80i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v34[0]), v35, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v34[1]), v35, acc_1_0);
        let v36 = As[96i + ty * 1i + 0i];
        let v37 = Bs[96i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v36[0]), v37, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v36[1]), v37, acc_1_0);
        let v38 = As[112i + ty * 1i + 0i];
        let v39 = Bs[112i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v38[0]), v39, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v38[1]), v39, acc_1_0);
        workgroupBarrier();
        if (r15 + 8i < 64i) {
            As[v3 * 16i + v2 / 2i][v2 % 2i] = next_0;
            if (lid >= 192i) {
                Bs[v4 * 16i + (v5 + 0i) / 2i] = next_1.xy;
                Bs[v4 * 16i + (v5 + 2i) / 2i] = next_1.zw;
            }
        }
        workgroupBarrier();
    }
    let v40 = m0 + ty * 2i + 0i;
    let v41 = n0 + tx * 2i + 0i;
    out[v1 * 4096i + v40 * 64i + v41] = acc_0_0[0];
    let v42 = n0 + tx * 2i + 1i;
    out[v1 * 4096i + v40 * 64i + v42] = acc_0_0[1];
    let v43 = m0 + ty * 2i + 1i;
    let v44 = n0 + tx * 2i + 0i;
    out[v1 * 4096i + v43 * 64i + v44] = acc_1_0[0];
    let v45 = n0 + tx * 2i + 1i;
    out[v1 * 4096i + v43 * 64i + v45] = acc_1_0[1];
}
