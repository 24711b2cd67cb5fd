// fgrad: matmul f32[16,64,64] <- f32[1024,64] f32[1024,64]
@group(0) @binding(0) var<storage, read> b0: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b1: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
var<workgroup> As: array<vec2<f32>, 144>;
var<workgroup> Bs: array<vec2<f32>, 144>;

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
    let v2 = (lid + 0i) / 8i;
    let v3 = (lid + 0i) % 8i * 4i;
    let v4 = (lid - 192i) / 8i;
    let v5 = (lid - 192i) % 8i * 4i;
    {
        if (lid < 64i) {
            let v6 = m0 + v3;
            let v7 = 0i + v2;
            let v8 = v6 * 1024i + v1 * 64i + v7;
            let v9 = i32(u32(v8) / 1024u);
            let v10 = i32(u32(v8) % 1024u);
            let v11 = v10 * 64i + v9;
            let v12 = b0[(v11) / 4i];
            As[v2 * 18i + (v3 + 0i) / 2i] = v12.xy;
            As[v2 * 18i + (v3 + 2i) / 2i] = v12.zw;
        }
        if (lid >= 192i) {
            let v13 = 0i + v4;
            let v14 = n0 + v5;
            let v15 = v1 * 4096i + v13 * 64i + v14;
            let v16 = i32(u32(v15) / 64u);
            let v17 = i32(u32(v15) % 64u);
            let v18 = b1[(v15) / 4i];
            Bs[v4 * 18i + (v5 + 0i) / 2i] = v18.xy;
            Bs[v4 * 18i + (v5 + 2i) / 2i] = v18.zw;
        }
    }
    workgroupBarrier();
    var next_0 = vec4<f32>();
    var next_1 = vec4<f32>();
    for (var r19 = 0i; r19 < 64i; r19 += 8i) {
        if (r19 + 8i < 64i) {
            if (lid < 64i) {
                let v20 = m0 + v3;
                let v21 = r19 + 8i + v2;
                let v22 = v20 * 1024i + v1 * 64i + v21;
                let v23 = i32(u32(v22) / 1024u);
                let v24 = i32(u32(v22) % 1024u);
                let v25 = v24 * 64i + v23;
                next_0 = b0[(v25) / 4i];
            }
            if (lid >= 192i) {
                let v26 = r19 + 8i + v4;
                let v27 = n0 + v5;
                let v28 = v1 * 4096i + v26 * 64i + v27;
                let v29 = i32(u32(v28) / 64u);
                let v30 = i32(u32(v28) % 64u);
                next_1 = b1[(v28) / 4i];
            }
        }
        let v31 = As[0i + ty * 1i + 0i];
        let v32 = Bs[0i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v31[0]), v32, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v31[1]), v32, acc_1_0);
        let v33 = As[18i + ty * 1i + 0i];
        let v34 = Bs[18i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v33[0]), v34, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v33[1]), v34, acc_1_0);
        let v35 = As[36i + ty * 1i + 0i];
        let v36 = Bs[36i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v35[0]), v36, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v35[1]), v36, acc_1_0);
        let v37 = As[54i + ty * 1i + 0i];
        let v38 = Bs[54i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v37[0]), v38, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v37[1]), v38, acc_1_0);
        let v39 = As[72i + ty * 1i + 0i];
        let v40 = Bs[72i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v39[0]), v40, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v39[1]), v40, acc_1_0);
        let v41 = As[90i + ty * 1i + 0i];
        let v42 = Bs[90i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v41[0]), v42, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v41[1]), v42, acc_1_0);
        let v43 = As[108i + ty * 1i + 0i];
        let v44 = Bs[108i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v43[0]), v44, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v43[1]), v44, acc_1_0);
        let v45 = As[126i + ty * 1i + 0i];
        let v46 = Bs[126i + tx + 0i];
        acc_0_0 = fma(vec2<f32>(v45[0]), v46, acc_0_0);
        acc_1_0 = fma(vec2<f32>(v45[1]), v46, acc_1_0);
        workgroupBarrier();
        if (r19 + 8i < 64i) {
            if (lid < 64i) {
                As[v2 * 18i + (v3 + 0i) / 2i] = next_0.xy;
                As[v2 * 18i + (v3 + 2i) / 2i] = next_0.zw;
            }
            if (lid >= 192i) {
                Bs[v4 * 18i + (v5 + 0i) / 2i] = next_1.xy;
                Bs[v4 * 18i + (v5 + 2i) / 2i] = next_1.zw;
            }
        }
        workgroupBarrier();
    }
    let v47 = m0 + ty * 2i + 0i;
    let v48 = n0 + tx * 2i + 0i;
    out[v1 * 4096i + v47 * 64i + v48] = acc_0_0[0];
    let v49 = n0 + tx * 2i + 1i;
    out[v1 * 4096i + v47 * 64i + v49] = acc_0_0[1];
    let v50 = m0 + ty * 2i + 1i;
    let v51 = n0 + tx * 2i + 0i;
    out[v1 * 4096i + v50 * 64i + v51] = acc_1_0[0];
    let v52 = n0 + tx * 2i + 1i;
    out[v1 * 4096i + v50 * 64i + v52] = acc_1_0[1];
}
