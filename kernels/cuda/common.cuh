// Shared by every cnda CUDA kernel file (prepended to each before compilation, so the files need
// no include path): the strided descriptor, index arithmetic, the element type names and the
// block folds of the reduce and vector families.
//
// A descriptor is what the Rust side's `Desc` carries: the element offset of index [0, ..] from
// the buffer's base pointer, and the shape and strides (in elements, any sign) of up to
// CNDA_MAX_RANK axes. Kernels walk a flat index over the shape in row-major order and turn it into
// one offset per operand.

#define CNDA_MAX_RANK 8

typedef long long i64;
typedef int i32;
typedef float f32;
typedef double f64;

struct Desc {
    i64 offset;
    i64 shape[CNDA_MAX_RANK];
    i64 strides[CNDA_MAX_RANK];
    i32 rank;
};

// The element offset of row-major flat index `i` of descriptor `d`.
__device__ __forceinline__ i64 cnda_offset(const Desc &d, i64 i) {
    i64 at = d.offset;
    for (int k = d.rank - 1; k >= 0; --k) {
        i64 n = d.shape[k];
        at += (i % n) * d.strides[k];
        i /= n;
    }
    return at;
}

// The offsets of flat index `i` in two descriptors of one shape (one division chain for both).
__device__ __forceinline__ void cnda_offset2(const Desc &a, const Desc &b, i64 i, i64 &oa, i64 &ob) {
    oa = a.offset;
    ob = b.offset;
    for (int k = a.rank - 1; k >= 0; --k) {
        i64 n = a.shape[k];
        i64 x = i % n;
        oa += x * a.strides[k];
        ob += x * b.strides[k];
        i /= n;
    }
}

// ... and in three.
__device__ __forceinline__ void cnda_offset3(const Desc &a, const Desc &b, const Desc &c, i64 i, i64 &oa, i64 &ob,
                                             i64 &oc) {
    oa = a.offset;
    ob = b.offset;
    oc = c.offset;
    for (int k = a.rank - 1; k >= 0; --k) {
        i64 n = a.shape[k];
        i64 x = i % n;
        oa += x * a.strides[k];
        ob += x * b.strides[k];
        oc += x * c.strides[k];
        i /= n;
    }
}

// A module holds every element type (the default, and what build.rs compiles ahead of time) or,
// compiled with -DCNDA_ONLY_<type>, one: NVRTC at run time compiles only the type a first op
// needs. CNDA_<type>(x) keeps x for the types this module holds.
#if !defined(CNDA_ONLY_f32) && !defined(CNDA_ONLY_f64) && !defined(CNDA_ONLY_i32) && !defined(CNDA_ONLY_i64) && \
    !defined(CNDA_ONLY_f16) && !defined(CNDA_ONLY_bf16) && !defined(CNDA_ONLY_c64) && !defined(CNDA_ONLY_c128)
#define CNDA_ALL_TYPES
#endif
#if defined(CNDA_ALL_TYPES) || defined(CNDA_ONLY_f32)
#define CNDA_f32(x) x
#else
#define CNDA_f32(x)
#endif
#if defined(CNDA_ALL_TYPES) || defined(CNDA_ONLY_f64)
#define CNDA_f64(x) x
#else
#define CNDA_f64(x)
#endif
#if defined(CNDA_ALL_TYPES) || defined(CNDA_ONLY_i32)
#define CNDA_i32(x) x
#else
#define CNDA_i32(x)
#endif
#if defined(CNDA_ALL_TYPES) || defined(CNDA_ONLY_i64)
#define CNDA_i64(x) x
#else
#define CNDA_i64(x)
#endif

#if defined(CNDA_ALL_TYPES) || defined(CNDA_ONLY_f16)
#define CNDA_f16(x) x
#else
#define CNDA_f16(x)
#endif
#if defined(CNDA_ALL_TYPES) || defined(CNDA_ONLY_bf16)
#define CNDA_bf16(x) x
#else
#define CNDA_bf16(x)
#endif
#if defined(CNDA_ALL_TYPES) || defined(CNDA_ONLY_c64)
#define CNDA_c64(x) x
#else
#define CNDA_c64(x)
#endif
#if defined(CNDA_ALL_TYPES) || defined(CNDA_ONLY_c128)
#define CNDA_c128(x) x
#else
#define CNDA_c128(x)
#endif

// The 16-bit floats (`half::f16` and `half::bf16` on the host) as storage types: every
// operation converts to f32, computes there and rounds back to nearest even, as the `half`
// crate computes on the host, so results match it bit for bit. The conversions are PTX's `cvt`
// (no cuda_fp16.h: NVRTC is given no include path); bf16 rounding needs sm_80 or newer.
__device__ __forceinline__ float cnda_f16_to_f32(unsigned short h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}
__device__ __forceinline__ unsigned short cnda_f32_to_f16(float f) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
__device__ __forceinline__ float cnda_bf16_to_f32(unsigned short h) { return __uint_as_float((unsigned)h << 16); }
__device__ __forceinline__ unsigned short cnda_f32_to_bf16(float f) {
    unsigned short h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}

#define CNDA_HALF(H)                                                                                          \
    struct H {                                                                                                \
        unsigned short bits;                                                                                  \
        H() = default;                                                                                        \
        __device__ H(float f) : bits(cnda_f32_to_##H(f)) {}                                                   \
        __device__ H(int i) : bits(cnda_f32_to_##H((float)i)) {}                                              \
        __device__ operator float() const { return cnda_##H##_to_f32(bits); }                                 \
    };                                                                                                        \
    __device__ __forceinline__ H operator+(H a, H b) { return H((float)a + (float)b); }                       \
    __device__ __forceinline__ H operator-(H a, H b) { return H((float)a - (float)b); }                       \
    __device__ __forceinline__ H operator*(H a, H b) { return H((float)a * (float)b); }                       \
    __device__ __forceinline__ H operator/(H a, H b) { return H((float)a / (float)b); }                       \
    __device__ __forceinline__ H operator-(H a) {                                                             \
        H r;                                                                                                  \
        r.bits = a.bits ^ 0x8000u;                                                                            \
        return r;                                                                                             \
    }                                                                                                         \
    __device__ __forceinline__ bool operator<(H a, H b) { return (float)a < (float)b; }                       \
    __device__ __forceinline__ bool operator>(H a, H b) { return (float)a > (float)b; }                       \
    __device__ __forceinline__ bool operator!=(H a, H b) { return (float)a != (float)b; }                     \
    __device__ __forceinline__ H cnda_mul_rn(H a, H b) { return a * b; }                                      \
    __device__ __forceinline__ H cnda_add_rn(H a, H b) { return a + b; }

CNDA_HALF(f16)
CNDA_HALF(bf16)

// The complex elements (`Complex<f32>`, `Complex<f64>` on the host: `{ re, im }`, real part
// first) with num-complex's operators in its operation order (the kernels are compiled with
// --fmad=false, so each product and sum rounds once, as on the host): results match the CPU bit
// for bit.
#define CNDA_COMPLEX(C, F)                                                                                    \
    struct C {                                                                                                \
        F re, im;                                                                                             \
        C() = default;                                                                                        \
        __device__ C(F r, F i) : re(r), im(i) {}                                                              \
    };                                                                                                        \
    __device__ __forceinline__ C operator+(C a, C b) { return C(a.re + b.re, a.im + b.im); }                  \
    __device__ __forceinline__ C operator-(C a, C b) { return C(a.re - b.re, a.im - b.im); }                  \
    __device__ __forceinline__ C operator*(C a, C b) { return C(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re); } \
    __device__ __forceinline__ C operator/(C a, C b) {                                                        \
        F n = b.re * b.re + b.im * b.im;                                                                      \
        return C((a.re * b.re + a.im * b.im) / n, (a.im * b.re - a.re * b.im) / n);                           \
    }                                                                                                         \
    __device__ __forceinline__ C operator-(C a) { return C(-a.re, -a.im); }                                   \
    __device__ __forceinline__ C cnda_conj(C a) { return C(a.re, -a.im); }

CNDA_COMPLEX(c64, f32)
CNDA_COMPLEX(c128, f64)

// Block folds: every kernel that folds runs blocks of CNDA_BLOCK threads; `block_fold` folds one
// value per thread through a shared-memory tree and returns the block's total to every thread.
#define CNDA_BLOCK 256

struct RedSum { template <typename T> __device__ T operator()(T a, T b) const { return a + b; } };

template <typename T, typename Op>
__device__ T block_fold(T v, Op op) {
    __shared__ T part[CNDA_BLOCK];
    part[threadIdx.x] = v;
    __syncthreads();
    for (int s = CNDA_BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] = op(part[threadIdx.x], part[threadIdx.x + s]);
        __syncthreads();
    }
    return part[0];
}

// A grid-stride loop over `n` flat indices.
#define CNDA_FOR_EACH(i, n) \
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (i64)gridDim.x * blockDim.x)

// Separately rounded multiply and add (no fused multiply-add), so device results can match the
// CPU's bit for bit where the CPU does not fuse.
__device__ __forceinline__ f32 cnda_mul_rn(f32 a, f32 b) { return __fmul_rn(a, b); }
__device__ __forceinline__ f64 cnda_mul_rn(f64 a, f64 b) { return __dmul_rn(a, b); }
__device__ __forceinline__ f32 cnda_add_rn(f32 a, f32 b) { return __fadd_rn(a, b); }
__device__ __forceinline__ f64 cnda_add_rn(f64 a, f64 b) { return __dadd_rn(a, b); }
