// The constant-coefficient stencil (cnda::stencil::LinearStencil on WebGPU): for every point of
// the output region (descriptor 0), out = sum over taps k of w_k * in[p + delta_k], where the
// host turned each tap's offset into an element delta with the input's strides (descriptor 1 is
// the input point of out[0, ..]); taps are summed in order. Scalar words: the tap count, then the
// deltas, 64 at most; the weights are the element scalars.

@group(0) @binding(0) var<storage, read_write> out: array<ELEM>;
@group(0) @binding(1) var<storage, read> a: array<ELEM>;

const MAX_TAPS: u32 = 64u;

// The weighted sum of the taps around input element `centre`, in tap order from the first
// product (as the CPU sums: a zero start would turn a -0 sum into +0); 0 without taps.
fn taps_at(centre: i32) -> ELEM {
    let taps = u32(params[scalar_word(2u, 0u)]);
    if (taps == 0u) { return ELEM(0); }
    var acc = elems[0] * a[centre + params[scalar_word(2u, 1u)]];
    for (var t = 1u; t < taps; t = t + 1u) {
        let delta = params[scalar_word(2u, 1u + t)];
        let weight = elems[t];
        acc = acc + weight * a[centre + delta];
    }
    return acc;
}

@compute @workgroup_size(256)
fn stencil(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    out[offset_of(0u, i)] = taps_at(offset_of(1u, i));
}

// A 2D output region: thread (c, r) of a 2D dispatch.
@compute @workgroup_size(256)
fn stencil_2d(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (!inside2d(0u, gid.y, gid.x)) { return; }
    out[at2d(0u, gid.y, gid.x)] = taps_at(at2d(1u, gid.y, gid.x));
}
