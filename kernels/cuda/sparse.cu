// The sparse family (cnda::sparse on CUDA): a CSR matrix (32-bit offsets and columns) times a
// dense vector, one thread per row (a grid-stride loop), each row's sum in the order of its
// stored entries with separately rounded products and sums: the CPU's bits.

template <typename T>
__device__ void spmv(T *y, const i32 *offsets, const i32 *columns, const T *values, const T *x, i64 rows) {
    CNDA_FOR_EACH(row, rows) {
        T sum = T(0);
        for (i32 j = offsets[row]; j < offsets[row + 1]; ++j) {
            sum = cnda_add_rn(sum, cnda_mul_rn(values[j], x[columns[j]]));
        }
        y[row] = sum;
    }
}

#define CNDA_SPARSE(T)                                                                                    \
    extern "C" __global__ void cnda_spmv_##T(T *y, const i32 *offsets, const i32 *columns, const T *values, \
                                             const T *x, i64 rows) {                                      \
        spmv(y, offsets, columns, values, x, rows);                                                       \
    }

CNDA_f32(CNDA_SPARSE(f32))
CNDA_f64(CNDA_SPARSE(f64))
