// The constant-coefficient stencil (cnda::stencil::LinearStencil on CUDA): for every point p of
// the output region, out[p] = sum over taps k of w_k * u[p + delta_k], where the host turned each
// tap's offset into an element delta with the input's strides, so one kernel serves every rank
// and layout. Taps are summed in order from the first product, with separately rounded multiplies and adds, as the CPU
// sums them, so the results match the CPU's bit for bit where the CPU does not fuse
// multiply-adds. One thread per output point; the innermost axis is contiguous in the common
// case, so neighbouring threads read neighbouring elements.

#define CNDA_MAX_TAPS 64

template <typename T>
struct Taps {
    i64 delta[CNDA_MAX_TAPS];
    T weight[CNDA_MAX_TAPS];
    i32 count;
};

template <typename T>
__device__ void linear(T *out, Desc o, const T *u, Desc du, const Taps<T> &taps, i64 n) {
    CNDA_FOR_EACH(i, n) {
        i64 oo, ou;
        cnda_offset2(o, du, i, oo, ou);
        // From the first product, as the CPU sums (a zero start would turn a -0 sum into +0).
        T acc = taps.count > 0 ? cnda_mul_rn(taps.weight[0], u[ou + taps.delta[0]]) : T(0);
        for (int k = 1; k < taps.count; ++k) acc = cnda_add_rn(acc, cnda_mul_rn(taps.weight[k], u[ou + taps.delta[k]]));
        out[oo] = acc;
    }
}

#define CNDA_STENCIL(T)                                                                                     \
    extern "C" __global__ void cnda_stencil_##T(T *out, Desc o, const T *u, Desc du, Taps<T> taps, i64 n) { \
        linear(out, o, u, du, taps, n);                                                                     \
    }

CNDA_f32(CNDA_STENCIL(f32))
CNDA_f64(CNDA_STENCIL(f64))
CNDA_f16(CNDA_STENCIL(f16))
CNDA_bf16(CNDA_STENCIL(bf16))
