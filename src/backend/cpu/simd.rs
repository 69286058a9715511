//! Runtime SIMD dispatch: the CPU kernels' loops compiled once per instruction set (AVX-512,
//! AVX2 + FMA and the baseline on x86-64; NEON on aarch64) and run in the best version this
//! CPU has, so a default build runs at `-C target-cpu=native` speed on the machine it lands on.
//!
//! [pulp](https://docs.rs/pulp)'s `Arch` (the crate gemm already uses) detects the CPU and calls
//! a body inside a function compiled with that set's `#[target_feature]`s. What the body inlines
//! is compiled for the set too, so the kernels hand it their whole loop nest with every helper
//! `#[inline(always)]`; a helper left out of line would run baseline code.

/// The instruction set the kernels run with: the best this CPU has.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Isa(pulp::Arch);

impl Isa {
    /// The best instruction set of this CPU, probed on first use (one atomic load after that:
    /// the probe is a dozen feature tests, which would show on microsecond kernels).
    /// `CNDA_SIMD=baseline` in the environment keeps the baseline code (to compare or debug; the
    /// results are the same bit for bit, as the tests check).
    #[inline]
    pub(crate) fn detect() -> Self {
        static BEST: std::sync::OnceLock<Isa> = std::sync::OnceLock::new();
        *BEST.get_or_init(|| match std::env::var("CNDA_SIMD").as_deref() {
            Ok("baseline") => Isa(pulp::Arch::Scalar),
            _ => Isa(pulp::Arch::new()),
        })
    }

    /// Every instruction set this CPU can run, baseline first (for tests that compare them).
    #[cfg(test)]
    pub(crate) fn available() -> Vec<Isa> {
        #[allow(unused_mut)]
        let mut all = vec![Isa(pulp::Arch::Scalar)];
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        {
            if let Some(v3) = pulp::x86::V3::try_new() {
                all.push(Isa(pulp::Arch::V3(v3)));
            }
            if let Some(v4) = pulp::x86::V4::try_new() {
                all.push(Isa(pulp::Arch::V4(v4)));
            }
        }
        all
    }

    /// The widest vector this instruction set loads and stores, in bytes: 64 with AVX-512, 32 with
    /// AVX2, 16 otherwise (SSE2, the x86-64 baseline; NEON).
    #[inline]
    pub(crate) fn vector_bytes(self) -> usize {
        match self.0 {
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            pulp::Arch::V4(_) => 64,
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            pulp::Arch::V3(_) => 32,
            _ => 16,
        }
    }

    /// `body.with_simd(simd)` inside a function compiled for this instruction set: for a body that
    /// recurses through `simd.vectorize` (each level entering the compiled function again).
    #[inline(always)]
    pub(crate) fn run_simd<W: pulp::WithSimd>(self, body: W) -> W::Output {
        self.0.dispatch(body)
    }

    /// `kernel.run()`, compiled for this instruction set.
    ///
    /// # Safety
    ///
    /// `kernel`'s own contract (its type's documentation) holds.
    #[inline(always)]
    pub(crate) unsafe fn run<K: Kernel>(self, kernel: K) -> K::Output {
        self.0.dispatch(Body(kernel))
    }
}

/// A kernel's whole loop nest, run by [`Isa::run`]. Implementations mark `run` and every helper it
/// calls `#[inline(always)]` (closures cannot be), so the loops are compiled for each set.
pub(crate) trait Kernel {
    type Output;

    /// Runs the kernel. `simd` is the instruction set's token, for loops written with pulp's
    /// vector types (most kernels leave their loops to the compiler and ignore it).
    ///
    /// # Safety
    ///
    /// The implementing type documents what its fields must describe.
    unsafe fn run<S: pulp::Simd>(self, simd: S) -> Self::Output;
}

/// A kernel as a pulp body: `with_simd` is instantiated once per instruction set, inside a
/// function compiled for it. Built only by [`Isa::run`].
struct Body<K>(K);

impl<K: Kernel> pulp::WithSimd for Body<K> {
    type Output = K::Output;

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, simd: S) -> K::Output {
        // SAFETY: `Isa::run`'s caller vouches for the kernel's contract.
        unsafe { self.0.run(simd) }
    }
}
