// fgrad: sum f32[2,3,5] <- f32[2,5,6]
@group(0) @binding(0) var<storage, read> b0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>) {
    let i = i32(gid.x + gid.y * 256u);
    if (i >= 30i) {
        return;
    }
    let v1 = i32(u32(i) / 15u);
    let v2 = i32(u32(i) / 5u % 3u);
    let v3 = i32(u32(i) % 5u);
    var a4: f32 = 0.0f;
    let v5 = 0i;
    let v6 = i32(u32(v5) / 3u);
    let v7 = i32(u32(v5) % 3u);
    let v8 = v2 * 2i + v6 - 1i;
    let v9 = clamp(v8, 0i, 4i);
    let v10 = v3 + v7 - 2i;
    let v11 = clamp(v10, 0i, 5i);
    let v12 = b0[v1 * 30i + v9 * 6i + v11];
    let v13 = select(0.0f, v12, v8 >= 0i && v10 >= 0i);
    a4 = a4 + v13;
    let v14 = 1i;
    let v15 = i32(u32(v14) / 3u);
    let v16 = i32(u32(v14) % 3u);
    let v17 = v2 * 2i + v15 - 1i;
    let v18 = clamp(v17, 0i, 4i);
    let v19 = v3 + v16 - 2i;
    let v20 = clamp(v19, 0i, 5i);
    let v21 = b0[v1 * 30i + v18 * 6i + v20];
    let v22 = select(0.0f, v21, v17 >= 0i && v19 >= 0i);
    a4 = a4 + v22;
    let v23 = 2i;
    let v24 = i32(u32(v23) / 3u);
    let v25 = i32(u32(v23) % 3u);
    let v26 = v2 * 2i + v24 - 1i;
    let v27 = clamp(v26, 0i, 4i);
    let v28 = v3 + v25 - 2i;
    let v29 = clamp(v28, 0i, 5i);
    let v30 = b0[v1 * 30i + v27 * 6i + v29];
    let v31 = select(0.0f, v30, v26 >= 0i && v28 >= 0i);
    a4 = a4 + v31;
    let v32 = 3i;
    let v33 = i32(u32(v32) / 3u);
    let v34 = i32(u32(v32) % 3u);
    let v35 = v2 * 2i + v33 - 1i;
    let v36 = clamp(v35, 0i, 4i);
    let v37 = v3 + v34 - 2i;
    let v38 = clamp(v37, 0i, 5i);
    let v39 = b0[v1 * 30i + v36 * 6i + v38];
    let v40 = select(0.0f, v39, v35 >= 0i && v37 >= 0i);
    a4 = a4 + v40;
    let v41 = 4i;
    let v42 = i32(u32(v41) / 3u);
    let v43 = i32(u32(v41) % 3u);
    let v44 = v2 * 2i + v42 - 1i;
    let v45 = clamp(v44, 0i, 4i);
    let v46 = v3 + v43 - 2i;
    let v47 = clamp(v46, 0i, 5i);
    let v48 = b0[v1 * 30i + v45 * 6i + v47];
    let v49 = select(0.0f, v48, v44 >= 0i && v46 >= 0i);
    a4 = a4 + v49;
    let v50 = 5i;
    let v51 = i32(u32(v50) / 3u);
    let v52 = i32(u32(v50) % 3u);
    let v53 = v2 * 2i + v51 - 1i;
    let v54 = clamp(v53, 0i, 4i);
    let v55 = v3 + v52 - 2i;
    let v56 = clamp(v55, 0i, 5i);
    let v57 = b0[v1 * 30i + v54 * 6i + v56];
    let v58 = select(0.0f, v57, v53 >= 0i && v55 >= 0i);
    a4 = a4 + v58;
    out[i] = a4;
}
