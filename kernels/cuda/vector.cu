// The solvers' vector kernels (cnda::kernel::VectorKernels on CUDA), each one pass over its
// operands where the generic forms take two or three: `dot` folds x[i] y[i] into one partial per
// block (the reduce family's sum folds the partials), `axpby_sumsq` folds the squares of the
// values `axpby` writes, `axpby` writes y = a x + b y rounded as
// fl(fl(y b) + fl(x a)), operands in the generic form's order: the same bits (NaN payloads
// aside). `_contig`: every operand one dense block, indexed directly. `_rows`: operands whose
// last axis is dense (the interiors of padded arrays, as the solvers' vectors are): each block
// takes whole rows, one offset computation per row (over the outer descriptors `dx`, `dy`, of
// rank one less) instead of one per element. `axpy_xpby`: CG's two updates sharing a pass.

template <typename T>
__device__ void dot(const T *x, Desc dx, const T *y, Desc dy, i64 n, T zero, T *partial) {
    T acc = zero;
    CNDA_FOR_EACH(i, n) {
        i64 ox, oy;
        cnda_offset2(dx, dy, i, ox, oy);
        acc = acc + x[ox] * y[oy];
    }
    T total = block_fold(acc, RedSum());
    if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

template <typename T>
__device__ void dot_contig(const T *x, const T *y, i64 n, T zero, T *partial) {
    T acc = zero;
    CNDA_FOR_EACH(i, n) { acc = acc + x[i] * y[i]; }
    T total = block_fold(acc, RedSum());
    if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

template <typename T>
__device__ void dot_rows(const T *x, Desc dx, const T *y, Desc dy, i64 rows, i64 m, T zero, T *partial) {
    T acc = zero;
    for (i64 r = blockIdx.x; r < rows; r += gridDim.x) {
        i64 ox, oy;
        cnda_offset2(dx, dy, r, ox, oy);
        for (i64 j = threadIdx.x; j < m; j += blockDim.x) acc = acc + x[ox + j] * y[oy + j];
    }
    T total = block_fold(acc, RedSum());
    if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

template <typename T>
__device__ void axpby_rows(T a, const T *x, Desc dx, T b, T *y, Desc dy, i64 rows, i64 m) {
    for (i64 r = blockIdx.x; r < rows; r += gridDim.x) {
        i64 ox, oy;
        cnda_offset2(dx, dy, r, ox, oy);
        for (i64 j = threadIdx.x; j < m; j += blockDim.x) {
            y[oy + j] = cnda_add_rn(cnda_mul_rn(y[oy + j], b), cnda_mul_rn(x[ox + j], a));
        }
    }
}

template <typename T>
__device__ void axpby(T a, const T *x, Desc dx, T b, T *y, Desc dy, i64 n) {
    CNDA_FOR_EACH(i, n) {
        i64 ox, oy;
        cnda_offset2(dx, dy, i, ox, oy);
        y[oy] = cnda_add_rn(cnda_mul_rn(y[oy], b), cnda_mul_rn(x[ox], a));
    }
}

template <typename T>
__device__ void axpby_contig(T a, const T *x, T b, T *y, i64 n) {
    CNDA_FOR_EACH(i, n) { y[i] = cnda_add_rn(cnda_mul_rn(y[i], b), cnda_mul_rn(x[i], a)); }
}

// `axpby` that also folds the squares of the new values into one partial per block (the
// residual update and its norm of a Krylov method, in one pass).
template <typename T>
__device__ void axpby_sumsq(T a, const T *x, Desc dx, T b, T *y, Desc dy, i64 n, T zero, T *partial) {
    T acc = zero;
    CNDA_FOR_EACH(i, n) {
        i64 ox, oy;
        cnda_offset2(dx, dy, i, ox, oy);
        T v = cnda_add_rn(cnda_mul_rn(y[oy], b), cnda_mul_rn(x[ox], a));
        y[oy] = v;
        acc = acc + v * v;
    }
    T total = block_fold(acc, RedSum());
    if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

template <typename T>
__device__ void axpby_sumsq_contig(T a, const T *x, T b, T *y, i64 n, T zero, T *partial) {
    T acc = zero;
    CNDA_FOR_EACH(i, n) {
        T v = cnda_add_rn(cnda_mul_rn(y[i], b), cnda_mul_rn(x[i], a));
        y[i] = v;
        acc = acc + v * v;
    }
    T total = block_fold(acc, RedSum());
    if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

template <typename T>
__device__ void axpby_sumsq_rows(T a, const T *x, Desc dx, T b, T *y, Desc dy, i64 rows, i64 m, T zero,
                                 T *partial) {
    T acc = zero;
    for (i64 r = blockIdx.x; r < rows; r += gridDim.x) {
        i64 ox, oy;
        cnda_offset2(dx, dy, r, ox, oy);
        for (i64 j = threadIdx.x; j < m; j += blockDim.x) {
            T v = cnda_add_rn(cnda_mul_rn(y[oy + j], b), cnda_mul_rn(x[ox + j], a));
            y[oy + j] = v;
            acc = acc + v * v;
        }
    }
    T total = block_fold(acc, RedSum());
    if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

// CG's iterate and next direction in one pass: x = a p + x, then p = r + b p, each rounded as
// `axpby` rounds it (fl(fl(x 1) + fl(p a)), fl(fl(p b) + fl(r 1))): the two launches' bits.
template <typename T>
__device__ __forceinline__ void axpy_xpby_at(T a, T *p, T *x, T b, const T *r) {
    T pv = *p;
    *x = cnda_add_rn(*x, cnda_mul_rn(pv, a));
    *p = cnda_add_rn(cnda_mul_rn(pv, b), *r);
}

template <typename T>
__device__ void axpy_xpby(T a, T *p, Desc dp, T *x, Desc dx, T b, const T *r, Desc dr, i64 n) {
    CNDA_FOR_EACH(i, n) {
        i64 op, ox, orr;
        cnda_offset3(dp, dx, dr, i, op, ox, orr);
        axpy_xpby_at(a, p + op, x + ox, b, r + orr);
    }
}

template <typename T>
__device__ void axpy_xpby_contig(T a, T *p, T *x, T b, const T *r, i64 n) {
    CNDA_FOR_EACH(i, n) { axpy_xpby_at(a, p + i, x + i, b, r + i); }
}

template <typename T>
__device__ void axpy_xpby_rows(T a, T *p, Desc dp, T *x, Desc dx, T b, const T *r, Desc dr, i64 rows, i64 m) {
    for (i64 row = blockIdx.x; row < rows; row += gridDim.x) {
        i64 op, ox, orr;
        cnda_offset3(dp, dx, dr, row, op, ox, orr);
        for (i64 j = threadIdx.x; j < m; j += blockDim.x) axpy_xpby_at(a, p + op + j, x + ox + j, b, r + orr + j);
    }
}

#define CNDA_VECTOR(T)                                                                                      \
    extern "C" __global__ void cnda_dot_##T(const T *x, Desc dx, const T *y, Desc dy, i64 n, T zero,       \
                                            T *partial) {                                                   \
        dot(x, dx, y, dy, n, zero, partial);                                                                \
    }                                                                                                       \
    extern "C" __global__ void cnda_dot_##T##_contig(const T *x, const T *y, i64 n, T zero, T *partial) {  \
        dot_contig(x, y, n, zero, partial);                                                                 \
    }                                                                                                       \
    extern "C" __global__ void cnda_dot_##T##_rows(const T *x, Desc dx, const T *y, Desc dy, i64 rows,     \
                                                   i64 m, T zero, T *partial) {                             \
        dot_rows(x, dx, y, dy, rows, m, zero, partial);                                                     \
    }                                                                                                       \
    extern "C" __global__ void cnda_axpby_##T##_rows(T a, const T *x, Desc dx, T b, T *y, Desc dy,         \
                                                     i64 rows, i64 m) {                                     \
        axpby_rows(a, x, dx, b, y, dy, rows, m);                                                            \
    }                                                                                                       \
    extern "C" __global__ void cnda_axpby_##T(T a, const T *x, Desc dx, T b, T *y, Desc dy, i64 n) {       \
        axpby(a, x, dx, b, y, dy, n);                                                                       \
    }                                                                                                       \
    extern "C" __global__ void cnda_axpby_##T##_contig(T a, const T *x, T b, T *y, i64 n) {                \
        axpby_contig(a, x, b, y, n);                                                                        \
    }                                                                                                       \
    extern "C" __global__ void cnda_axpby_sumsq_##T(T a, const T *x, Desc dx, T b, T *y, Desc dy, i64 n,   \
                                                    T zero, T *partial) {                                   \
        axpby_sumsq(a, x, dx, b, y, dy, n, zero, partial);                                                  \
    }                                                                                                       \
    extern "C" __global__ void cnda_axpby_sumsq_##T##_contig(T a, const T *x, T b, T *y, i64 n, T zero,    \
                                                           T *partial) {                                    \
        axpby_sumsq_contig(a, x, b, y, n, zero, partial);                                                   \
    }                                                                                                       \
    extern "C" __global__ void cnda_axpby_sumsq_##T##_rows(T a, const T *x, Desc dx, T b, T *y, Desc dy,   \
                                                         i64 rows, i64 m, T zero, T *partial) {             \
        axpby_sumsq_rows(a, x, dx, b, y, dy, rows, m, zero, partial);                                       \
    }                                                                                                       \
    extern "C" __global__ void cnda_axpy_xpby_##T(T a, T *p, Desc dp, T *x, Desc dx, T b, const T *r,      \
                                                  Desc dr, i64 n) {                                         \
        axpy_xpby(a, p, dp, x, dx, b, r, dr, n);                                                            \
    }                                                                                                       \
    extern "C" __global__ void cnda_axpy_xpby_##T##_contig(T a, T *p, T *x, T b, const T *r, i64 n) {      \
        axpy_xpby_contig(a, p, x, b, r, n);                                                                 \
    }                                                                                                       \
    extern "C" __global__ void cnda_axpy_xpby_##T##_rows(T a, T *p, Desc dp, T *x, Desc dx, T b,           \
                                                         const T *r, Desc dr, i64 rows, i64 m) {            \
        axpy_xpby_rows(a, p, dp, x, dx, b, r, dr, rows, m);                                                 \
    }

CNDA_f32(CNDA_VECTOR(f32))
CNDA_f64(CNDA_VECTOR(f64))
CNDA_f16(CNDA_VECTOR(f16))
CNDA_bf16(CNDA_VECTOR(bf16))
