//! The float types transforms take, and their plans: one planner per type for the whole process
//! (rustfft's, realfft's and rustdct's planners keep every plan they made, so a length is planned once and
//! its plan, shared by reference count, serves every thread).

use std::sync::{Arc, Mutex, OnceLock};

use realfft::{ComplexToReal, RealFftPlanner, RealToComplex};
use rustfft::{Fft, FftPlanner};

use crate::element::{ComplexPart, Float};

mod sealed {
    use std::sync::Mutex;

    /// One planner of each kind for one float type.
    pub struct Planners<T: rustdct::DctNum> {
        pub(super) complex: Mutex<rustfft::FftPlanner<T>>,
        pub(super) real: Mutex<realfft::RealFftPlanner<T>>,
        pub(super) trig: Mutex<rustdct::DctPlanner<T>>,
    }

    pub trait Sealed: rustdct::DctNum {
        /// The process's planners for this type.
        fn planners() -> &'static Planners<Self>;
        /// The largest finite value.
        fn finite_max() -> Self;
    }
}

/// The real types of transforms: `f32` (with `Complex<f32>` spectra) and `f64`. Sealed.
pub trait FftFloat: Float + ComplexPart + rustdct::DctNum + sealed::Sealed {}

macro_rules! fft_float {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {
            fn planners() -> &'static sealed::Planners<Self> {
                static PLANNERS: OnceLock<sealed::Planners<$t>> = OnceLock::new();
                PLANNERS.get_or_init(|| sealed::Planners {
                    complex: Mutex::new(FftPlanner::new()),
                    real: Mutex::new(RealFftPlanner::new()),
                    trig: Mutex::new(rustdct::DctPlanner::new()),
                })
            }
            fn finite_max() -> Self {
                <$t>::MAX
            }
        }
        impl FftFloat for $t {}
    )*};
}

fft_float!(f32, f64);

/// The largest finite `T`.
pub(super) fn finite_max<T: FftFloat>() -> T {
    T::finite_max()
}

/// The complex transform of `len` points, forward or inverse (unscaled).
pub(super) fn complex<T: FftFloat>(len: usize, forward: bool) -> Arc<dyn Fft<T>> {
    // A planner poisoned by a panicking thread still holds valid plans.
    let mut planner = T::planners().complex.lock().unwrap_or_else(|e| e.into_inner());
    match forward {
        true => planner.plan_fft_forward(len),
        false => planner.plan_fft_inverse(len),
    }
}

/// The real-to-complex transform of `len` points.
pub(super) fn real<T: FftFloat>(len: usize) -> Arc<dyn RealToComplex<T>> {
    T::planners().real.lock().unwrap_or_else(|e| e.into_inner()).plan_fft_forward(len)
}

/// The complex-to-real transform to `len` points (unscaled).
pub(super) fn real_inverse<T: FftFloat>(len: usize) -> Arc<dyn ComplexToReal<T>> {
    T::planners().real.lock().unwrap_or_else(|e| e.into_inner()).plan_fft_inverse(len)
}

/// `plan(planner)` with the process's cosine and sine transform planner for `T`.
pub(super) fn with_trig_planner<T: FftFloat, R>(plan: impl FnOnce(&mut rustdct::DctPlanner<T>) -> R) -> R {
    plan(&mut T::planners().trig.lock().unwrap_or_else(|e| e.into_inner()))
}
