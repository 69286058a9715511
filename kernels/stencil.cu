// The constant-coefficient stencil (cnda::stencil::LinearStencil on CUDA): out = sum of w_k *
// u[p + offset_k] over the interior, from the same taps as the CPU (offsets and weights, passed
// by value), summed in tap order so results match the CPU's bit for bit where the CPU does not
// fuse multiply-adds. One thread per interior point of a 2D or 3D grid; rows are contiguous, so
// neighbouring threads read neighbouring elements.

#define CNDA_MAX_TAPS 32

template <typename T>
struct Taps {
    i32 offset[CNDA_MAX_TAPS][3];  // (axis 0, axis 1, axis 2) per tap; unused axes are 0
    T weight[CNDA_MAX_TAPS];
    i32 count;
};

// Interior point (i, j) of a rows x cols grid (radius r on each side) for 2D; the output and
// input descriptors give the strides (elements) of both grids.
template <typename T>
__device__ void stencil2(T *out, Desc o, const T *u, Desc du, Taps<T> taps, i64 r) {
    i64 rows = du.shape[0] - 2 * r, cols = du.shape[1] - 2 * r;
    i64 n = rows * cols;
    CNDA_FOR_EACH(p, n) {
        i64 i = p / cols + r, j = p % cols + r;
        T acc = T(0);
        for (int k = 0; k < taps.count; ++k) {
            i64 at = du.offset + (i + taps.offset[k][0]) * du.strides[0] + (j + taps.offset[k][1]) * du.strides[1];
            acc = cnda_add_rn(acc, cnda_mul_rn(taps.weight[k], u[at]));
        }
        out[o.offset + i * o.strides[0] + j * o.strides[1]] = acc;
    }
}

template <typename T>
__device__ void stencil3(T *out, Desc o, const T *u, Desc du, Taps<T> taps, i64 r) {
    i64 n0 = du.shape[0] - 2 * r, n1 = du.shape[1] - 2 * r, n2 = du.shape[2] - 2 * r;
    i64 n = n0 * n1 * n2;
    CNDA_FOR_EACH(p, n) {
        i64 i = p / (n1 * n2) + r, j = (p / n2) % n1 + r, l = p % n2 + r;
        T acc = T(0);
        for (int k = 0; k < taps.count; ++k) {
            i64 at = du.offset + (i + taps.offset[k][0]) * du.strides[0] + (j + taps.offset[k][1]) * du.strides[1] +
                     (l + taps.offset[k][2]) * du.strides[2];
            acc = cnda_add_rn(acc, cnda_mul_rn(taps.weight[k], u[at]));
        }
        out[o.offset + i * o.strides[0] + j * o.strides[1] + l * o.strides[2]] = acc;
    }
}

#define CNDA_STENCIL(T)                                                                                     \
    extern "C" __global__ void cnda_stencil2_##T(T *out, Desc o, const T *u, Desc du, Taps<T> taps, i64 r) { \
        stencil2(out, o, u, du, taps, r);                                                                   \
    }                                                                                                       \
    extern "C" __global__ void cnda_stencil3_##T(T *out, Desc o, const T *u, Desc du, Taps<T> taps, i64 r) { \
        stencil3(out, o, u, du, taps, r);                                                                   \
    }

CNDA_STENCIL(f32)
CNDA_STENCIL(f64)
