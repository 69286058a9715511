// The reduction op family (cnda::ops::reduce on CUDA). A whole-array reduction runs in two
// launches: each block folds a grid-stride share of the elements and a shared-memory tree into
// one partial (`_contig`: over one dense block, indexed directly), then one block folds the
// partials (`block_fold` and `RedSum` are in common.cuh, shared with the vector family).
// Arg-reductions carry (value, flat index) pairs and keep the first index on ties, as the CPU
// does; NaN wins min and max, as the CPU's NaN-propagating folds do. `sum_axis` gives one thread
// per output element, walking the reduced axis.

struct RedProd { template <typename T> __device__ T operator()(T a, T b) const { return a * b; } };
// NaN-propagating: once NaN, always NaN (x != x only for NaN; never for integers).
struct RedMin {
    template <typename T> __device__ T operator()(T a, T b) const { return (a != a) ? a : ((b != b || b < a) ? b : a); }
};
struct RedMax {
    template <typename T> __device__ T operator()(T a, T b) const { return (a != a) ? a : ((b != b || b > a) ? b : a); }
};

// partial[blockIdx.x] = fold of this block's share; `identity` seeds threads with no element.
template <typename T, typename Op>
__device__ void fold(const T *a, Desc d, i64 n, T identity, T *partial, Op op) {
    T acc = identity;
    CNDA_FOR_EACH(i, n) { acc = op(acc, a[cnda_offset(d, i)]); }
    T total = block_fold(acc, op);
    if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

// The same over one dense block (no index arithmetic: the loads are the whole cost).
template <typename T, typename Op>
__device__ void fold_contig(const T *a, i64 n, T identity, T *partial, Op op) {
    T acc = identity;
    CNDA_FOR_EACH(i, n) { acc = op(acc, a[i]); }
    T total = block_fold(acc, op);
    if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

// Whether candidate (x, k) replaces (y, j) as the arg-extremum so far: the first NaN wins, then
// the strictly better value (`better(x, y)`: x < y for argmin), then the lower index on ties; an
// index of -1 marks "no element yet".
template <typename T, typename Better>
__device__ bool arg_take(T x, i64 k, T y, i64 j, Better better) {
    if (k < 0) return false;
    if (j < 0) return true;
    bool xn = x != x, yn = y != y;
    if (yn) return xn && k < j;
    if (xn) return true;
    if (better(x, y)) return true;
    if (better(y, x)) return false;
    return k < j;
}

// Per block, the (value, flat index) of the first extremum of its share: out_value/out_index
// [blockIdx.x]. With `in_index`, element i stands for index in_index[i] (the second pass over
// the partials).
template <typename T, typename Better>
__device__ void arg_fold(const T *a, Desc d, i64 n, const i64 *in_index, T *out_value, i64 *out_index,
                         Better better) {
    __shared__ T value[CNDA_BLOCK];
    __shared__ i64 index[CNDA_BLOCK];
    T best = T(0);
    i64 at = -1;
    CNDA_FOR_EACH(i, n) {
        T x = a[cnda_offset(d, i)];
        i64 k = in_index ? in_index[i] : i;
        if (arg_take(x, k, best, at, better)) {
            best = x;
            at = k;
        }
    }
    value[threadIdx.x] = best;
    index[threadIdx.x] = at;
    __syncthreads();
    for (int s = CNDA_BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s && arg_take(value[threadIdx.x + s], index[threadIdx.x + s], value[threadIdx.x],
                                         index[threadIdx.x], better)) {
            value[threadIdx.x] = value[threadIdx.x + s];
            index[threadIdx.x] = index[threadIdx.x + s];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        out_value[blockIdx.x] = value[0];
        out_index[blockIdx.x] = index[0];
    }
}

struct Less { template <typename T> __device__ bool operator()(T x, T y) const { return x < y; } };
struct Greater { template <typename T> __device__ bool operator()(T x, T y) const { return x > y; } };

// out (the output descriptor, rank N - 1) = fold along one axis of a, whose remaining axes
// `da` describes; the reduced axis has `len` elements `stride` apart.
template <typename T, typename Op>
__device__ void fold_axis(T *out, Desc o, const T *a, Desc da, i64 len, i64 stride, i64 n, T identity, Op op) {
    CNDA_FOR_EACH(i, n) {
        i64 oo, oa;
        cnda_offset2(o, da, i, oo, oa);
        T acc = identity;
        for (i64 k = 0; k < len; ++k) acc = op(acc, a[oa + k * stride]);
        out[oo] = acc;
    }
}

// Whole-array folds (`identity` seeds the threads that get no element: 0 for sum, 1 for product,
// +inf or the type's largest value for min ...) and folds along one axis.
#define CNDA_FOLD(name, Op, T)                                                                              \
    extern "C" __global__ void cnda_##name##_##T(const T *a, Desc d, i64 n, T identity, T *partial) {      \
        fold(a, d, n, identity, partial, Op());                                                             \
    }                                                                                                       \
    extern "C" __global__ void cnda_##name##_##T##_contig(const T *a, i64 n, T identity, T *partial) {     \
        fold_contig(a, n, identity, partial, Op());                                                         \
    }                                                                                                       \
    extern "C" __global__ void cnda_##name##_axis_##T(T *out, Desc o, const T *a, Desc da, i64 len,        \
                                                      i64 stride, T identity, i64 n) {                      \
        fold_axis(out, o, a, da, len, stride, n, identity, Op());                                           \
    }

#define CNDA_REDUCE(T)                                                                                      \
    CNDA_FOLD(sum, RedSum, T)                                                                               \
    CNDA_FOLD(product, RedProd, T)                                                                          \
    CNDA_FOLD(min, RedMin, T)                                                                               \
    CNDA_FOLD(max, RedMax, T)                                                                               \
    extern "C" __global__ void cnda_argmin_##T(const T *a, Desc d, i64 n, const i64 *in_index, T *value,   \
                                               i64 *index) {                                                \
        arg_fold(a, d, n, in_index, value, index, Less());                                                  \
    }                                                                                                       \
    extern "C" __global__ void cnda_argmax_##T(const T *a, Desc d, i64 n, const i64 *in_index, T *value,   \
                                               i64 *index) {                                                \
        arg_fold(a, d, n, in_index, value, index, Greater());                                               \
    }

CNDA_f32(CNDA_REDUCE(f32))
CNDA_f64(CNDA_REDUCE(f64))
CNDA_i32(CNDA_REDUCE(i32))
CNDA_i64(CNDA_REDUCE(i64))
CNDA_f16(CNDA_REDUCE(f16))
CNDA_bf16(CNDA_REDUCE(bf16))
// Complex elements: sums and products (no order, so no min, max or searches).
CNDA_c64(CNDA_FOLD(sum, RedSum, c64) CNDA_FOLD(product, RedProd, c64))
CNDA_c128(CNDA_FOLD(sum, RedSum, c128) CNDA_FOLD(product, RedProd, c128))
