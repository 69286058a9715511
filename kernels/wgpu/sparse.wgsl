// The sparse family (cnda::sparse on WebGPU): y = A x for a CSR matrix (offsets and columns
// i32, values of the element type), one invocation per row, each row's sum in the order of its
// stored entries. Descriptors 0 to 4: y, offsets, columns, values, x, all dense (their element
// offsets are what is read); the item count is the rows.

@group(0) @binding(0) var<storage, read_write> y: array<ELEM>;
@group(0) @binding(1) var<storage, read> offsets: array<i32>;
@group(0) @binding(2) var<storage, read> columns: array<i32>;
@group(0) @binding(4) var<storage, read> values: array<ELEM>;
@group(0) @binding(6) var<storage, read> x: array<ELEM>;

@compute @workgroup_size(256)
fn spmv(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let row = flat_index(gid, groups);
    if (row >= item_count()) { return; }
    let at_offsets = dense(1u, row);
    let at_columns = params[desc(2u)];
    let at_values = params[desc(3u)];
    let at_x = params[desc(4u)];
    var sum = ELEM(0);
    for (var j = offsets[at_offsets]; j < offsets[at_offsets + 1]; j = j + 1) {
        sum = sum + values[at_values + j] * x[at_x + columns[at_columns + j]];
    }
    y[dense(0u, row)] = sum;
}
