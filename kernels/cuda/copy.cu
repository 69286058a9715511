// The copy op family (cnda::ops::fill_copy on CUDA): fill, strided copy (every view layout
// becomes contiguous through it), a dense copy, and the tiled transpose that makes a transposed
// matrix contiguous at copy bandwidth instead of the strided walk's fraction of it.

#define CNDA_TILE 32
#define CNDA_TILE_ROWS 8

template <typename T>
__device__ void fill(T *dst, Desc d, T v, i64 n) {
    CNDA_FOR_EACH(i, n) { dst[cnda_offset(d, i)] = v; }
}

template <typename T>
__device__ void copy(T *dst, Desc d, const T *src, Desc s, i64 n) {
    CNDA_FOR_EACH(i, n) {
        i64 od, os;
        cnda_offset2(d, s, i, od, os);
        dst[od] = src[os];
    }
}

// dst (rows x cols, row-major, leading dimension ld_dst) = the matrix whose element (r, c) is
// src[r * sr + c * sc] with |sr| < |sc| (a transposed view): read down columns of src and write
// along rows of dst through a shared tile, so both sides are coalesced.
template <typename T>
__device__ void transpose(T *dst, i64 ld_dst, const T *src, i64 sr, i64 sc, i64 rows, i64 cols) {
    __shared__ T tile[CNDA_TILE][CNDA_TILE + 1];
    i64 r0 = (i64)blockIdx.y * CNDA_TILE, c0 = (i64)blockIdx.x * CNDA_TILE;
    // Load: consecutive threads take consecutive rows r (contiguous in src, stride sr).
    for (int j = threadIdx.y; j < CNDA_TILE; j += CNDA_TILE_ROWS) {
        i64 r = r0 + threadIdx.x, c = c0 + j;
        if (r < rows && c < cols) tile[threadIdx.x][j] = src[r * sr + c * sc];
    }
    __syncthreads();
    // Store: consecutive threads take consecutive columns c (contiguous in dst).
    for (int j = threadIdx.y; j < CNDA_TILE; j += CNDA_TILE_ROWS) {
        i64 r = r0 + j, c = c0 + threadIdx.x;
        if (r < rows && c < cols) dst[r * ld_dst + c] = tile[j][threadIdx.x];
    }
}

#define CNDA_COPY(T)                                                                                       \
    extern "C" __global__ void cnda_fill_##T(T *dst, Desc d, T v, i64 n) { fill(dst, d, v, n); }          \
    extern "C" __global__ void cnda_copy_##T(T *dst, Desc d, const T *src, Desc s, i64 n) {               \
        copy(dst, d, src, s, n);                                                                           \
    }                                                                                                      \
    extern "C" __global__ void cnda_copy_##T##_contig(T *dst, const T *src, i64 n) {                      \
        CNDA_FOR_EACH(i, n) { dst[i] = src[i]; }                                                           \
    }                                                                                                      \
    extern "C" __global__ void cnda_transpose_##T(T *dst, i64 ld_dst, const T *src, i64 sr, i64 sc,       \
                                                  i64 rows, i64 cols) {                                    \
        transpose(dst, ld_dst, src, sr, sc, rows, cols);                                                   \
    }

CNDA_f32(CNDA_COPY(f32))
CNDA_f64(CNDA_COPY(f64))
CNDA_i32(CNDA_COPY(i32))
CNDA_i64(CNDA_COPY(i64))
CNDA_f16(CNDA_COPY(f16))
CNDA_bf16(CNDA_COPY(bf16))
