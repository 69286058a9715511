//! Conversions to and from other crates' arrays, each behind the feature named after the crate:
//! `ndarray` (zero-copy views both ways) and `npy` (NumPy's `.npy` files).

#[cfg(feature = "ndarray")]
mod ndarray;
#[cfg(feature = "npy")]
pub mod npy;
