//! Conversions to and from other crates' arrays, each behind the feature named after the crate:
//! `ndarray` (zero-copy views both ways).

#[cfg(feature = "ndarray")]
mod ndarray;
