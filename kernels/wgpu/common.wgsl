// Shared by every cnda WGSL shader (prepended to each, with `ELEM` replaced by the element type):
// the parameter block and the strided-descriptor arithmetic.
//
// `params` holds, as i32 words: [0] the item count n, then one descriptor per operand of 18 words
// (element offset of index [0, ..] in its buffer, rank, shape[8], strides[8], in elements, any
// sign), then the shader's own integer scalars. Scalars of the element type (an operand, a fill
// value, clamp bounds, an identity, stencil weights) come in `elems`, a buffer of their own, as
// f64 and f16 do not fit i32 words. Dispatches are 2D when n needs more than 65,535 workgroups;
// `flat_index` folds them back.

const WORKGROUP: u32 = 256u;
const DESC_WORDS: u32 = 18u;

@group(0) @binding(3) var<storage, read> params: array<i32>;
@group(0) @binding(5) var<storage, read> elems: array<ELEM>;

fn item_count() -> u32 {
    return u32(params[0]);
}

// The word where descriptor `d` starts.
fn desc(d: u32) -> u32 {
    return 1u + d * DESC_WORDS;
}

// The word of scalar parameter `s`, after `descs` descriptors.
fn scalar_word(descs: u32, s: u32) -> u32 {
    return 1u + descs * DESC_WORDS + s;
}

// The element offset of row-major flat index `flat` in descriptor `d`.
fn offset_of(d: u32, flat: u32) -> i32 {
    let base = desc(d);
    var at: i32 = params[base];
    let rank = params[base + 1u];
    // Rank 1 (what axis merging makes of a dense block, or any uniformly strided one): no
    // division. The branch is uniform across the dispatch.
    if (rank == 1) {
        return at + i32(flat) * params[base + 10u];
    }
    var rest: u32 = flat;
    for (var k: i32 = rank - 1; k >= 0; k = k - 1) {
        let n = u32(params[base + 2u + u32(k)]);
        at = at + i32(rest % n) * params[base + 10u + u32(k)];
        rest = rest / n;
    }
    return at;
}

// The element offset of flat index `flat` in descriptor `d` of a dense row-major block (the
// `_contig` entry points, which the host picks when every operand is one: no index arithmetic
// in the way of the loads).
fn dense(d: u32, flat: u32) -> i32 {
    return params[desc(d)] + i32(flat);
}

fn flat_index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.y * groups.x * WORKGROUP + gid.x;
}

// The element offset of (r, c) in a rank-2 descriptor `d` (the 2D entry points: a dispatch of
// (columns / 256, rows) workgroups gives each thread its (r, c) with no division).
fn at2d(d: u32, r: u32, c: u32) -> i32 {
    let base = desc(d);
    return params[base] + i32(r) * params[base + 10u] + i32(c) * params[base + 11u];
}

// Whether (r, c) lies inside descriptor `d`'s rank-2 shape.
fn inside2d(d: u32, r: u32, c: u32) -> bool {
    let base = desc(d);
    return r < u32(params[base + 2u]) && c < u32(params[base + 3u]);
}
