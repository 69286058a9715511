// The Fourier transforms on WebGPU (cnda::fft, src/backend/wgpu/stockham.rs): the lanes of one
// axis of a dense row-major array (`outer` blocks, `n` points, `inner` apart) gathered into a
// work array of `m` complex values a lane (m a power of two), radix-2 Stockham passes between two
// work arrays (natural order in and out, no bit reversal), and a scatter back. Lengths that are
// not powers of two go through Bluestein's chirp: the gather and the scatter multiply by the
// chirp, and a pointwise product with the chirp filter's spectrum sits between a forward and an
// inverse transform of length m >= 2n - 1. Complex values are pairs of ELEMs; the twiddles,
// chirp and filter are tables the host computes in f64 (`table`), so no shader needs sin or cos.
//
// No descriptors; scalar words: 0 outer, 1 n, 2 inner, 3 m, 4 the operand's offset in ELEMs,
// 5 mode (gather: 0 complex lanes, 1 real lanes, 2 half spectra extended by Hermitian symmetry;
// scatter: 0 complex, 1 real parts), 6 the operand's length along the axis, 7 the chirp's offset
// in `table` (-1: none), 8 the passes' sign (-1 forward, +1 inverse), 9 the pass's block size,
// 10 the twiddles' offset, 11 the filter's offset. The scatter's scale is elems[0].

@group(0) @binding(0) var<storage, read_write> out: array<ELEM>;
@group(0) @binding(1) var<storage, read> a: array<ELEM>;
@group(0) @binding(2) var<storage, read> table: array<ELEM>;

fn word(k: u32) -> i32 {
    return params[scalar_word(0u, k)];
}

fn cmul(x: vec2<ELEM>, y: vec2<ELEM>) -> vec2<ELEM> {
    return vec2<ELEM>(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);
}

fn entry(at: u32) -> vec2<ELEM> {
    return vec2<ELEM>(table[at], table[at + 1u]);
}

// Work item i = lane * m + j: point j of the lane, zero past n.
@compute @workgroup_size(256)
fn fft_gather(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    let n = u32(word(1u));
    let inner = u32(word(2u));
    let m = u32(word(3u));
    let base = u32(word(4u));
    let given = u32(word(6u));
    let lane = i / m;
    let j = i % m;
    let o = lane / inner;
    let r = lane % inner;
    var v = vec2<ELEM>(ELEM(0), ELEM(0));
    if (j < n) {
        let mode = word(5u);
        if (mode == 0) {
            let at = base + 2u * ((o * given + j) * inner + r);
            v = vec2<ELEM>(a[at], a[at + 1u]);
        } else if (mode == 1) {
            v.x = a[base + (o * given + j) * inner + r];
        } else {
            // Point j of the full spectrum: the half spectrum's point j, or the conjugate of its
            // point n - j; values past the given ones are zeros, and the zero and Nyquist
            // frequencies are real (their imaginary parts are not a real signal's).
            let h = n / 2u + 1u;
            var k = j;
            if (j >= h) { k = n - j; }
            if (k < given) {
                let at = base + 2u * ((o * given + k) * inner + r);
                v = vec2<ELEM>(a[at], a[at + 1u]);
            }
            if (k == 0u || 2u * k == n) { v.y = ELEM(0); }
            if (j >= h) { v.y = -v.y; }
        }
        let chirp = word(7u);
        if (chirp >= 0) { v = cmul(v, entry(u32(chirp) + 2u * j)); }
    }
    out[2u * i] = v.x;
    out[2u * i + 1u] = v.y;
}

// Work item i = lane * (m / 2) + j: one radix-2 butterfly of the pass whose combined blocks are
// `ns` points long (1, 2, 4, .. m / 2), from `a` into `out`.
@compute @workgroup_size(256)
fn fft_pass(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    let m = u32(word(3u));
    let half = m / 2u;
    let ns = u32(word(9u));
    let lane = i / half;
    let j = i % half;
    let base = lane * m;
    let x0 = vec2<ELEM>(a[2u * (base + j)], a[2u * (base + j) + 1u]);
    let x1 = vec2<ELEM>(a[2u * (base + j + half)], a[2u * (base + j + half) + 1u]);
    // e^(-2 pi i k / (2 ns)), the table's twiddle k m / (2 ns); conjugated for the inverse.
    let k = j % ns;
    var w = entry(u32(word(10u)) + 2u * (k * (half / ns)));
    if (word(8u) > 0) { w.y = -w.y; }
    let t = cmul(x1, w);
    let d = base + (j / ns) * 2u * ns + k;
    out[2u * d] = x0.x + t.x;
    out[2u * d + 1u] = x0.y + t.y;
    out[2u * (d + ns)] = x0.x - t.x;
    out[2u * (d + ns) + 1u] = x0.y - t.y;
}

// Work item i = lane * m + j: the work array times the filter's spectrum, in place.
@compute @workgroup_size(256)
fn fft_pointwise(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    let m = u32(word(3u));
    let v = cmul(vec2<ELEM>(out[2u * i], out[2u * i + 1u]), entry(u32(word(11u)) + 2u * (i % m)));
    out[2u * i] = v.x;
    out[2u * i + 1u] = v.y;
}

// Work item i = lane * len + k: point k of the result's lane (len of them: n, or n / 2 + 1 for a
// half spectrum), times the chirp and the scale.
@compute @workgroup_size(256)
fn fft_scatter(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    let inner = u32(word(2u));
    let m = u32(word(3u));
    let base = u32(word(4u));
    let len = u32(word(6u));
    let lane = i / len;
    let k = i % len;
    let o = lane / inner;
    let r = lane % inner;
    var v = vec2<ELEM>(a[2u * (lane * m + k)], a[2u * (lane * m + k) + 1u]);
    let chirp = word(7u);
    if (chirp >= 0) { v = cmul(v, entry(u32(chirp) + 2u * k)); }
    v = v * elems[0];
    let at = (o * len + k) * inner + r;
    if (word(5u) == 1) {
        out[base + at] = v.x;
    } else {
        out[base + 2u * at] = v.x;
        out[base + 2u * at + 1u] = v.y;
    }
}
