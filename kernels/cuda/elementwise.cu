// The elementwise op family (cnda::ops::elementwise on CUDA): binary ops over strided operands
// of one shape (broadcast axes have stride 0), the same with a scalar on either side, compound
// updates in place, and unary math. Entry points are `extern "C"`, named
// `cnda_<form>_<op>_<type>` after the Rust op tokens' NAMEs, so the backend finds a kernel by
// name; each form has a `_contig` variant for operands that are one dense block in row-major
// order (the generic algorithm merges axes first, so that is the common case).

struct OpAdd { template <typename T> __device__ T operator()(T a, T b) const { return a + b; } };
struct OpSub { template <typename T> __device__ T operator()(T a, T b) const { return a - b; } };
struct OpMul { template <typename T> __device__ T operator()(T a, T b) const { return a * b; } };
struct OpDiv { template <typename T> __device__ T operator()(T a, T b) const { return a / b; } };
struct OpAssign { template <typename T> __device__ T operator()(T, T b) const { return b; } };
// Rust's `%`: C's fmod for floats (the sign follows a), truncated remainder for integers.
struct OpRem {
    __device__ f32 operator()(f32 a, f32 b) const { return fmodf(a, b); }
    __device__ f64 operator()(f64 a, f64 b) const { return fmod(a, b); }
    __device__ i32 operator()(i32 a, i32 b) const { return a % b; }
    __device__ i64 operator()(i64 a, i64 b) const { return a % b; }
    __device__ f16 operator()(f16 a, f16 b) const { return f16(fmodf(a, b)); }
    __device__ bf16 operator()(bf16 a, bf16 b) const { return bf16(fmodf(a, b)); }
};

template <typename T, typename Op>
__device__ void binary(T *out, Desc o, const T *a, Desc da, const T *b, Desc db, i64 n, Op op) {
    CNDA_FOR_EACH(i, n) {
        i64 oo, oa, ob;
        cnda_offset3(o, da, db, i, oo, oa, ob);
        out[oo] = op(a[oa], b[ob]);
    }
}

template <typename T, typename Op>
__device__ void binary_contig(T *out, const T *a, const T *b, i64 n, Op op) {
    CNDA_FOR_EACH(i, n) { out[i] = op(a[i], b[i]); }
}

template <typename T, typename Op>
__device__ void scalar_right(T *out, Desc o, const T *a, Desc da, T s, i64 n, Op op) {
    CNDA_FOR_EACH(i, n) {
        i64 oo, oa;
        cnda_offset2(o, da, i, oo, oa);
        out[oo] = op(a[oa], s);
    }
}

template <typename T, typename Op>
__device__ void scalar_left(T *out, Desc o, const T *a, Desc da, T s, i64 n, Op op) {
    CNDA_FOR_EACH(i, n) {
        i64 oo, oa;
        cnda_offset2(o, da, i, oo, oa);
        out[oo] = op(s, a[oa]);
    }
}

// dst = op(dst, src): the compound assignments (`+=` ...) and, with OpAssign, `assign`.
template <typename T, typename Op>
__device__ void update(T *dst, Desc d, const T *src, Desc ds, i64 n, Op op) {
    CNDA_FOR_EACH(i, n) {
        i64 od, os;
        cnda_offset2(d, ds, i, od, os);
        dst[od] = op(dst[od], src[os]);
    }
}

template <typename T, typename Op>
__device__ void update_scalar(T *dst, Desc d, T s, i64 n, Op op) {
    CNDA_FOR_EACH(i, n) {
        i64 od = cnda_offset(d, i);
        dst[od] = op(dst[od], s);
    }
}

#define CNDA_BINARY(name, Op, T)                                                                             \
    extern "C" __global__ void cnda_binary_##name##_##T(T *out, Desc o, const T *a, Desc da, const T *b,    \
                                                         Desc db, i64 n) {                                   \
        binary(out, o, a, da, b, db, n, Op());                                                               \
    }                                                                                                        \
    extern "C" __global__ void cnda_binary_##name##_##T##_contig(T *out, const T *a, const T *b, i64 n) {   \
        binary_contig(out, a, b, n, Op());                                                                   \
    }                                                                                                        \
    extern "C" __global__ void cnda_scalar_right_##name##_##T(T *out, Desc o, const T *a, Desc da, T s,     \
                                                               i64 n) {                                      \
        scalar_right(out, o, a, da, s, n, Op());                                                             \
    }                                                                                                        \
    extern "C" __global__ void cnda_scalar_left_##name##_##T(T *out, Desc o, const T *a, Desc da, T s,      \
                                                              i64 n) {                                       \
        scalar_left(out, o, a, da, s, n, Op());                                                              \
    }                                                                                                        \
    extern "C" __global__ void cnda_update_##name##_##T(T *dst, Desc d, const T *src, Desc ds, i64 n) {     \
        update(dst, d, src, ds, n, Op());                                                                    \
    }                                                                                                        \
    extern "C" __global__ void cnda_update_scalar_##name##_##T(T *dst, Desc d, T s, i64 n) {                \
        update_scalar(dst, d, s, n, Op());                                                                   \
    }

#define CNDA_BINARY_ALL(T)          \
    CNDA_BINARY(add, OpAdd, T)      \
    CNDA_BINARY(sub, OpSub, T)      \
    CNDA_BINARY(mul, OpMul, T)      \
    CNDA_BINARY(div, OpDiv, T)      \
    CNDA_BINARY(rem, OpRem, T)      \
    CNDA_BINARY(assign, OpAssign, T)

CNDA_f32(CNDA_BINARY_ALL(f32))
CNDA_f64(CNDA_BINARY_ALL(f64))
CNDA_i32(CNDA_BINARY_ALL(i32))
CNDA_i64(CNDA_BINARY_ALL(i64))
CNDA_f16(CNDA_BINARY_ALL(f16))
CNDA_bf16(CNDA_BINARY_ALL(bf16))
// Complex elements have no `%`.
#define CNDA_BINARY_COMPLEX(T)      \
    CNDA_BINARY(add, OpAdd, T)      \
    CNDA_BINARY(sub, OpSub, T)      \
    CNDA_BINARY(mul, OpMul, T)      \
    CNDA_BINARY(div, OpDiv, T)      \
    CNDA_BINARY(assign, OpAssign, T)

CNDA_c64(CNDA_BINARY_COMPLEX(c64))
CNDA_c128(CNDA_BINARY_COMPLEX(c128))

// Unary math, named after the Rust tokens (`ln` is the natural logarithm; `round` rounds half
// away from zero, as Rust's and C's `round` do).
#define CNDA_UNARY(name, T, expr)                                                                           \
    extern "C" __global__ void cnda_unary_##name##_##T(T *out, Desc o, const T *a, Desc da, i64 n) {      \
        CNDA_FOR_EACH(i, n) {                                                                               \
            i64 oo, oa;                                                                                     \
            cnda_offset2(o, da, i, oo, oa);                                                                 \
            T x = a[oa];                                                                                    \
            out[oo] = (expr);                                                                               \
        }                                                                                                   \
    }

#define CNDA_UNARY_FLOAT(T)                  \
    CNDA_UNARY(neg, T, -x)                   \
    CNDA_UNARY(abs, T, fabs(x))              \
    CNDA_UNARY(sqrt, T, sqrt(x))             \
    CNDA_UNARY(exp, T, exp(x))               \
    CNDA_UNARY(ln, T, log(x))                \
    CNDA_UNARY(log10, T, log10(x))           \
    CNDA_UNARY(sin, T, sin(x))               \
    CNDA_UNARY(cos, T, cos(x))               \
    CNDA_UNARY(tan, T, tan(x))               \
    CNDA_UNARY(tanh, T, tanh(x))             \
    CNDA_UNARY(floor, T, floor(x))           \
    CNDA_UNARY(ceil, T, ceil(x))             \
    CNDA_UNARY(round, T, round(x))

CNDA_f32(CNDA_UNARY_FLOAT(f32))
CNDA_f64(CNDA_UNARY_FLOAT(f64))

// The unary ops with parameters: x^n for an integer n, x^p, and clamp (NaN stays NaN, as Rust's
// `clamp` keeps it).
#define CNDA_UNARY_PARAM(T)                                                                                 \
    extern "C" __global__ void cnda_unary_powi_##T(T *out, Desc o, const T *a, Desc da, i32 p, i64 n) {   \
        CNDA_FOR_EACH(i, n) {                                                                               \
            i64 oo, oa;                                                                                     \
            cnda_offset2(o, da, i, oo, oa);                                                                 \
            out[oo] = pow(a[oa], (T)p);                                                                     \
        }                                                                                                   \
    }                                                                                                       \
    extern "C" __global__ void cnda_unary_powf_##T(T *out, Desc o, const T *a, Desc da, T p, i64 n) {     \
        CNDA_FOR_EACH(i, n) {                                                                               \
            i64 oo, oa;                                                                                     \
            cnda_offset2(o, da, i, oo, oa);                                                                 \
            out[oo] = pow(a[oa], p);                                                                        \
        }                                                                                                   \
    }                                                                                                       \
    extern "C" __global__ void cnda_unary_clamp_##T(T *out, Desc o, const T *a, Desc da, T lo, T hi,      \
                                                    i64 n) {                                                \
        CNDA_FOR_EACH(i, n) {                                                                               \
            i64 oo, oa;                                                                                     \
            cnda_offset2(o, da, i, oo, oa);                                                                 \
            T x = a[oa];                                                                                    \
            out[oo] = (x != x) ? x : (x < lo ? lo : (x > hi ? hi : x));                                     \
        }                                                                                                   \
    }

CNDA_f32(CNDA_UNARY_PARAM(f32))
CNDA_f64(CNDA_UNARY_PARAM(f64))
CNDA_i32(CNDA_UNARY(neg, i32, -x))
CNDA_i64(CNDA_UNARY(neg, i64, -x))
CNDA_f16(CNDA_UNARY(neg, f16, -x))
CNDA_bf16(CNDA_UNARY(neg, bf16, -x))

// Complex elements: the negation and the conjugate, and the functions with a real result (the
// magnitude and the angle through the math library, as the host's `hypot` and `atan2`, which may
// differ from it in the last bit; the squared magnitude rounded as the host rounds it).
#define CNDA_UNARY_COMPLEX(C, F)                                                                            \
    CNDA_UNARY(neg, C, -x)                                                                                  \
    CNDA_UNARY(conj, C, cnda_conj(x))                                                                       \
    CNDA_COMPLEX_REAL(abs, C, F, hypot(x.re, x.im))                                                         \
    CNDA_COMPLEX_REAL(arg, C, F, atan2(x.im, x.re))                                                         \
    CNDA_COMPLEX_REAL(abs2, C, F, x.re * x.re + x.im * x.im)

#define CNDA_COMPLEX_REAL(name, C, F, expr)                                                                 \
    extern "C" __global__ void cnda_complex_##name##_##C(F *out, Desc o, const C *a, Desc da, i64 n) {    \
        CNDA_FOR_EACH(i, n) {                                                                               \
            i64 oo, oa;                                                                                     \
            cnda_offset2(o, da, i, oo, oa);                                                                 \
            C x = a[oa];                                                                                    \
            out[oo] = (expr);                                                                               \
        }                                                                                                   \
    }

CNDA_c64(CNDA_UNARY_COMPLEX(c64, f32))
CNDA_c128(CNDA_UNARY_COMPLEX(c128, f64))
