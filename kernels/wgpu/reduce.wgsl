// The reduction op family (cnda::ops::reduce on WebGPU). Whole-array folds run in passes: each
// workgroup folds a grid-stride share of its input and a workgroup-memory tree into one partial
// (`out[workgroup]`), and the launcher folds the partials again until one is left. min and max
// propagate NaN; arg-reductions carry (value, flat index) pairs in `out`/`index` and keep the
// first index on ties and the first NaN. `fold_axis_NAME` gives one thread per output element.

@group(0) @binding(0) var<storage, read_write> out: array<ELEM>;
@group(0) @binding(1) var<storage, read> a: array<ELEM>;
@group(0) @binding(2) var<storage, read_write> index: array<i32>;
@group(0) @binding(4) var<storage, read> in_index: array<i32>;

var<workgroup> part: array<ELEM, 256>;
var<workgroup> part_index: array<i32, 256>;

fn red_sum(x: ELEM, y: ELEM) -> ELEM { return x + y; }
//@complex
// Complex products in num-complex's operation order (complex numbers have no order: no min,
// max or searches).
fn red_product(a: ELEM, b: ELEM) -> ELEM { return ELEM(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
//@end
//@real
// Not `x != x`: naga emits an ordered not-equal, false for NaN; ordered `==` is false for NaN.
fn is_nan(x: ELEM) -> bool { return !(x == x); }
fn red_product(x: ELEM, y: ELEM) -> ELEM { return x * y; }
fn red_min(x: ELEM, y: ELEM) -> ELEM {
    if (is_nan(x)) { return x; }
    if (is_nan(y) || y < x) { return y; }
    return x;
}
fn red_max(x: ELEM, y: ELEM) -> ELEM {
    if (is_nan(x)) { return x; }
    if (is_nan(y) || y > x) { return y; }
    return x;
}
fn better_argmin(x: ELEM, y: ELEM) -> bool { return x < y; }
fn better_argmax(x: ELEM, y: ELEM) -> bool { return x > y; }
//@end

// The identity idle threads start from.
fn identity() -> ELEM {
    return elems[0];
}

//@each sum product !min !max
// Folds the workgroup's per-thread values through workgroup memory into out[workgroup].
fn finish_NAME(acc: ELEM, lid: u32, wid: u32) {
    part[lid] = acc;
    workgroupBarrier();
    for (var s = WORKGROUP / 2u; s > 0u; s = s / 2u) {
        if (lid < s) { part[lid] = red_NAME(part[lid], part[lid + s]); }
        workgroupBarrier();
    }
    if (lid == 0u) { out[wid] = part[0]; }
}

@compute @workgroup_size(256)
fn fold_NAME(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
             @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let n = item_count();
    var acc = identity();
    for (var i = gid.x; i < n; i = i + groups.x * WORKGROUP) {
        acc = red_NAME(acc, a[offset_of(0u, i)]);
    }
    finish_NAME(acc, lid.x, wid.x);
}

// The same over one dense block (descriptor 0 contiguous): no index arithmetic.
@compute @workgroup_size(256)
fn fold_NAME_contig(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
                    @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let n = item_count();
    let start = params[desc(0u)];
    var acc = identity();
    for (var i = gid.x; i < n; i = i + groups.x * WORKGROUP) {
        acc = red_NAME(acc, a[start + i32(i)]);
    }
    finish_NAME(acc, lid.x, wid.x);
}

// out (descriptor 0, the output shape) = fold over the last axis of `a` (descriptor 1: the outer
// axes of `a`; scalar words: the axis length, its stride; the identity is element scalar 0).
@compute @workgroup_size(256)
fn fold_axis_NAME(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    let len = params[scalar_word(2u, 0u)];
    let stride = params[scalar_word(2u, 1u)];
    let base = offset_of(1u, i);
    var acc = elems[0];
    for (var k: i32 = 0; k < len; k = k + 1) {
        acc = red_NAME(acc, a[base + k * stride]);
    }
    out[offset_of(0u, i)] = acc;
}
//@end

//@real
// Whether (x, k) replaces (y, j): the first NaN wins, then the strictly better value, then the
// lower index; index -1 means no element yet.
fn take(x: ELEM, k: i32, y: ELEM, j: i32, argmax: bool) -> bool {
    if (k < 0) { return false; }
    if (j < 0) { return true; }
    if (is_nan(y)) { return is_nan(x) && k < j; }
    if (is_nan(x)) { return true; }
    var better = x < y;
    var worse = y < x;
    if (argmax) {
        better = x > y;
        worse = y > x;
    }
    if (better) { return true; }
    if (worse) { return false; }
    return k < j;
}

//@end

// Per workgroup, the first extremum of its share: out[workgroup], index[workgroup]. Scalar word
// 0: 1 for argmax; word 1: 1 when element i stands for in_index[i] (the passes over partials).
//@each !argmin !argmax
@compute @workgroup_size(256)
fn NAME(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let n = item_count();
    let argmax = params[scalar_word(1u, 0u)] == 1;
    let indirect = params[scalar_word(1u, 1u)] == 1;
    var best = ELEM(0);
    var at: i32 = -1;
    for (var i = gid.x; i < n; i = i + groups.x * WORKGROUP) {
        let x = a[offset_of(0u, i)];
        var k = i32(i);
        if (indirect) { k = in_index[i]; }
        if (take(x, k, best, at, argmax)) {
            best = x;
            at = k;
        }
    }
    part[lid.x] = best;
    part_index[lid.x] = at;
    workgroupBarrier();
    for (var s = WORKGROUP / 2u; s > 0u; s = s / 2u) {
        if (lid.x < s && take(part[lid.x + s], part_index[lid.x + s], part[lid.x], part_index[lid.x], argmax)) {
            part[lid.x] = part[lid.x + s];
            part_index[lid.x] = part_index[lid.x + s];
        }
        workgroupBarrier();
    }
    if (lid.x == 0u) {
        out[wid.x] = part[0];
        index[wid.x] = part_index[0];
    }
}
//@end
