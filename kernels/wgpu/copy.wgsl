// The copy op family (cnda::ops::fill_copy on WebGPU): fill, and strided copy (every view
// layout becomes contiguous through it). `out` and `a` are different buffers (the launcher
// stages a copy between two views of one buffer through a temporary).

@group(0) @binding(0) var<storage, read_write> out: array<ELEM>;
@group(0) @binding(1) var<storage, read> a: array<ELEM>;

@compute @workgroup_size(256)
fn fill(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    out[offset_of(0u, i)] = elems[0];
}

@compute @workgroup_size(256)
fn copy(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    out[offset_of(0u, i)] = a[offset_of(1u, i)];
}

@compute @workgroup_size(256)
fn copy_2d(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (!inside2d(0u, gid.y, gid.x)) { return; }
    out[at2d(0u, gid.y, gid.x)] = a[at2d(1u, gid.y, gid.x)];
}
