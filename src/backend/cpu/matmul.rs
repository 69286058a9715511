//! The CPU's matrix-product kernel: the `gemm` crate, which takes arbitrary row and column
//! strides.

use crate::error::Result;
use crate::kernel::{Cpu, Desc, GemmElement, MatmulKernels, Par};

// SAFETY: `gemm` with `read_dst = false` writes every element of the dense `m x n` output
// (`dst = 1 * a * b`); an empty inner dimension is filled with zeros here.
unsafe impl MatmulKernels for Cpu {
    unsafe fn gemm<T: GemmElement>(
        _: &Cpu,
        out: Desc<Cpu, T, 2>,
        a: Desc<Cpu, T, 2>,
        b: Desc<Cpu, T, 2>,
        par: Par,
    ) -> Result<()> {
        let ([m, k], [_, n]) = (a.shape, b.shape);
        if m == 0 || n == 0 {
            return Ok(());
        }
        if k == 0 {
            // SAFETY: `out` is `m * n` dense writable elements (the trait's contract).
            unsafe { core::slice::from_raw_parts_mut(out.handle, m * n).fill(T::ZERO) };
            return Ok(());
        }
        let ([ars, acs], [brs, bcs]) = (a.strides, b.strides);
        // SAFETY: the trait's contract: every `a[i, p]`, `b[p, j]` is readable, `out` holds `m * n`
        // writable elements with row stride `n`, overlapping neither input.
        unsafe {
            gemm::gemm(
                m,
                n,
                k,
                out.handle,
                out.strides[1],
                out.strides[0],
                false,
                a.handle.cast_const(),
                acs,
                ars,
                b.handle.cast_const(),
                bcs,
                brs,
                T::ZERO,
                T::ONE,
                false,
                false,
                false,
                parallelism(par),
            )
        };
        Ok(())
    }
}

/// The `gemm` crate's thread budget for `par`.
fn parallelism(par: Par) -> gemm::Parallelism {
    match par {
        Par::Seq => gemm::Parallelism::None,
        #[cfg(feature = "rayon")]
        Par::Rayon(n) => gemm::Parallelism::Rayon(n),
        #[cfg(not(feature = "rayon"))]
        Par::Rayon(_) => gemm::Parallelism::None,
    }
}
