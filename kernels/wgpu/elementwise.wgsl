// The elementwise op family (cnda::ops::elementwise on WebGPU), for one element type ELEM per
// module: binary ops over strided operands of one shape (broadcast axes have stride 0), the same
// with a scalar on either side, compound updates in place, unary math. Entry points are named
// `<form>_<op>` after the Rust op tokens' NAMEs. `out` is always a buffer of its own (outputs are
// fresh allocations); the in-place forms bind `out` and read it.
//
// Sections between `//@each <names>` and `//@end` are repeated once per name with NAME replaced
// (names after a `|` only for real floating-point ELEM, names after a second `|` only for the
// float types with transcendental functions, f32 and f16: Vulkan has no f64 exp, log, sin ...;
// a name marked `!` not for complex ELEM), a `//@float` ... `//@end` section is kept for real
// floating-point ELEM only, a `//@transcendental` one for f32 and f16 only, `//@real` for every
// type but the complex ones, `//@complex` for those only (ELEM `vec2<f32>` or `vec2<f64>`, PART
// its part type), `//@complex-transcendental` for the f32 one: WGSL has no macros.

@group(0) @binding(0) var<storage, read_write> out: array<ELEM>;
@group(0) @binding(1) var<storage, read> a: array<ELEM>;
@group(0) @binding(2) var<storage, read> b: array<ELEM>;

fn op_add(x: ELEM, y: ELEM) -> ELEM { return x + y; }
fn op_sub(x: ELEM, y: ELEM) -> ELEM { return x - y; }
fn op_assign(x: ELEM, y: ELEM) -> ELEM { return y; }
//@real
fn op_mul(x: ELEM, y: ELEM) -> ELEM { return x * y; }
fn op_div(x: ELEM, y: ELEM) -> ELEM { return x / y; }
// Rust's `%`: truncated, the sign follows x, as WGSL's `%` for floats and integers.
fn op_rem(x: ELEM, y: ELEM) -> ELEM { return x % y; }
//@end
//@complex
// Complex numbers (x = re, y = im) with num-complex's operators in its operation order.
fn op_mul(a: ELEM, b: ELEM) -> ELEM { return ELEM(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
fn op_div(a: ELEM, b: ELEM) -> ELEM {
    let n = b.x * b.x + b.y * b.y;
    return ELEM((a.x * b.x + a.y * b.y) / n, (a.y * b.x - a.x * b.y) / n);
}
//@end

// Element-typed scalar `s` (an operand, a power, a bound).
fn scalar(s: u32) -> ELEM {
    return elems[s];
}

//@each add sub mul div !rem assign
// Every operand one dense block in row-major order (the common case after axis merging): no
// index arithmetic beyond the three offsets.
@compute @workgroup_size(256)
fn binary_NAME_contig(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    out[dense(0u, i)] = op_NAME(a[dense(1u, i)], b[dense(2u, i)]);
}

@compute @workgroup_size(256)
fn binary_NAME(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    out[offset_of(0u, i)] = op_NAME(a[offset_of(1u, i)], b[offset_of(2u, i)]);
}

// Rank 2 (after axis merging, most strided operands): thread (c, r) of a 2D dispatch.
@compute @workgroup_size(256)
fn binary_NAME_2d(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (!inside2d(0u, gid.y, gid.x)) { return; }
    out[at2d(0u, gid.y, gid.x)] = op_NAME(a[at2d(1u, gid.y, gid.x)], b[at2d(2u, gid.y, gid.x)]);
}

@compute @workgroup_size(256)
fn scalar_right_NAME(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    out[offset_of(0u, i)] = op_NAME(a[offset_of(1u, i)], scalar(0u));
}

@compute @workgroup_size(256)
fn scalar_left_NAME(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    out[offset_of(0u, i)] = op_NAME(scalar(0u), a[offset_of(1u, i)]);
}

@compute @workgroup_size(256)
fn scalar_right_NAME_contig(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    out[dense(0u, i)] = op_NAME(a[dense(1u, i)], scalar(0u));
}

@compute @workgroup_size(256)
fn scalar_left_NAME_contig(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    out[dense(0u, i)] = op_NAME(scalar(0u), a[dense(1u, i)]);
}

// out = op(out, a): compound assignment (`+=` ...); `a` is another buffer.
@compute @workgroup_size(256)
fn update_NAME(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    let at = offset_of(0u, i);
    out[at] = op_NAME(out[at], a[offset_of(1u, i)]);
}

// out = op(out, s) and out = op(s, out), in place.
@compute @workgroup_size(256)
fn update_scalar_right_NAME(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    let at = offset_of(0u, i);
    out[at] = op_NAME(out[at], scalar(0u));
}

@compute @workgroup_size(256)
fn update_scalar_left_NAME(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    let at = offset_of(0u, i);
    out[at] = op_NAME(scalar(0u), out[at]);
}
//@end

fn f_neg(x: ELEM) -> ELEM { return -x; }

//@float
fn f_abs(x: ELEM) -> ELEM { return abs(x); }
fn f_sqrt(x: ELEM) -> ELEM { return sqrt(x); }
fn f_floor(x: ELEM) -> ELEM { return floor(x); }
fn f_ceil(x: ELEM) -> ELEM { return ceil(x); }
// Half away from zero, as Rust's `round` (WGSL's `round` rounds half to even).
fn f_round(x: ELEM) -> ELEM { return sign(x) * floor(abs(x) + ELEM(0.5)); }
//@end

//@transcendental
fn f_exp(x: ELEM) -> ELEM { return exp(x); }
fn f_ln(x: ELEM) -> ELEM { return log(x); }
fn f_log10(x: ELEM) -> ELEM { return log(x) * ELEM(0.43429448190325182765); }
fn f_sin(x: ELEM) -> ELEM { return sin(x); }
fn f_cos(x: ELEM) -> ELEM { return cos(x); }
fn f_tan(x: ELEM) -> ELEM { return tan(x); }
fn f_tanh(x: ELEM) -> ELEM { return tanh(x); }

// x^p.
@compute @workgroup_size(256)
fn unary_powf(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    out[offset_of(0u, i)] = pow(a[offset_of(1u, i)], scalar(0u));
}
//@end

//@each neg | abs sqrt floor ceil round | exp ln log10 sin cos tan tanh
@compute @workgroup_size(256)
fn unary_NAME(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    out[offset_of(0u, i)] = f_NAME(a[offset_of(1u, i)]);
}

@compute @workgroup_size(256)
fn unary_NAME_contig(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    out[dense(0u, i)] = f_NAME(a[dense(1u, i)]);
}

@compute @workgroup_size(256)
fn update_unary_NAME(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    let at = offset_of(0u, i);
    out[at] = f_NAME(out[at]);
}
//@end

//@float
// x clamped to [lo, hi] (NaN stays NaN), x^n for an integer n (as a float).
@compute @workgroup_size(256)
fn unary_powi(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    let x = a[offset_of(1u, i)];
    let n = params[scalar_word(2u, 0u)];
    var r = ELEM(1.0);
    var base = x;
    var e = abs(n);
    loop {
        if (e == 0) { break; }
        if ((e & 1) == 1) { r = r * base; }
        base = base * base;
        e = e >> 1u;
    }
    if (n < 0) { r = ELEM(1.0) / r; }
    out[offset_of(0u, i)] = r;
}

@compute @workgroup_size(256)
fn unary_clamp(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    let x = a[offset_of(1u, i)];
    let lo = scalar(0u);
    let hi = scalar(1u);
    var r = x;
    if (x < lo) { r = lo; }
    if (x > hi) { r = hi; }
    out[offset_of(0u, i)] = r;
}
//@end

//@complex
// The conjugate, and the functions of a complex element with a real result, written to `parts`
// (an array of the part type in the output's place).
@group(0) @binding(6) var<storage, read_write> parts: array<PART>;

fn f_conj(z: ELEM) -> ELEM { return ELEM(z.x, -z.y); }

@compute @workgroup_size(256)
fn unary_conj(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    out[offset_of(0u, i)] = f_conj(a[offset_of(1u, i)]);
}

@compute @workgroup_size(256)
fn unary_conj_contig(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    out[dense(0u, i)] = f_conj(a[dense(1u, i)]);
}

@compute @workgroup_size(256)
fn update_unary_conj(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    let at = offset_of(0u, i);
    out[at] = f_conj(out[at]);
}

// Whether x is infinite (NaN compares false; inf - inf is NaN).
fn is_inf(x: PART) -> bool { return x == x && !(x - x == PART(0)); }

// |z| scaled by the larger part, so parts near the type's largest value do not overflow (as the
// host's `hypot`, within rounding): infinite when a part is, even beside a NaN, else NaN when a
// part is (WGSL's `max` may drop a NaN, so these come first), where the adapter keeps IEEE
// infinities and NaNs (Vulkan does not promise it; lavapipe's f64 gives NaN beside a NaN).
fn f_abs(z: ELEM) -> PART {
    let a = abs(z);
    if (is_inf(a.x)) { return a.x; }
    if (is_inf(a.y)) { return a.y; }
    if (!(a.x == a.x) || !(a.y == a.y)) { return a.x + a.y; }
    let m = max(a.x, a.y);
    if (m == PART(0)) { return m; }
    let r = min(a.x, a.y) / m;
    return m * sqrt(PART(1) + r * r);
}

fn f_abs2(z: ELEM) -> PART { return z.x * z.x + z.y * z.y; }

@compute @workgroup_size(256)
fn complex_abs(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    parts[offset_of(0u, i)] = f_abs(a[offset_of(1u, i)]);
}

@compute @workgroup_size(256)
fn complex_abs2(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    parts[offset_of(0u, i)] = f_abs2(a[offset_of(1u, i)]);
}
//@end

//@complex-transcendental
// The angle, where Vulkan has `atan2` (32-bit floats: not for Complex<f64>).
@compute @workgroup_size(256)
fn complex_arg(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= item_count()) { return; }
    let z = a[offset_of(1u, i)];
    parts[offset_of(0u, i)] = atan2(z.y, z.x);
}
//@end
