//! Sequence constructors as NumPy has them: `linspace`, `arange`, `eye`.

use super::Array;
use crate::element::{Arithmetic, Float, Numeric};

impl<T: Float> Array<T, 1> {
    /// `num` evenly spaced values from `start` to `end`, both included (NumPy's `linspace`): the
    /// `k`-th is `start + k * (end - start) / (num - 1)`, and the last is exactly `end`.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// assert_eq!(Array::linspace(0.0, 1.0, 5).as_slice(), &[0.0, 0.25, 0.5, 0.75, 1.0]);
    /// ```
    ///
    /// # Panics
    ///
    /// When the array cannot be allocated.
    #[track_caller]
    pub fn linspace(start: T, end: T, num: usize) -> Self {
        let steps = T::from_usize(num.saturating_sub(1).max(1));
        let step = (end - start) / steps;
        Array::from_fn([num], |[k]| if k + 1 == num && num > 1 { end } else { start + T::from_usize(k) * step })
    }
}

impl<T: Numeric + PartialOrd> Array<T, 1> {
    /// The values `start, start + step, ...` below `end` (above it for a negative step), NumPy's
    /// `arange`: `ceil((end - start) / step)` of them, each computed as `start + k * step` so that
    /// float rounding does not accumulate.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// assert_eq!(Array::arange(0, 10, 3).as_slice(), &[0, 3, 6, 9]);
    /// assert_eq!(Array::arange(1.0, 0.0, -0.25).as_slice(), &[1.0, 0.75, 0.5, 0.25]);
    /// ```
    ///
    /// # Panics
    ///
    /// When `step` is zero (or NaN), or the array cannot be allocated; in debug builds, when
    /// `start + k * step` overflows an integer type (release builds end the range there).
    #[track_caller]
    pub fn arange(start: T, end: T, step: T) -> Self {
        let up = step > T::ZERO;
        assert!(up || step < T::ZERO, "arange: the step must be non-zero (got {step})");
        let mut count = 0usize;
        let mut last = start;
        // Count by stepping from `start` (exact for integers, `start + k * step` for floats), so
        // no float-to-integer conversion of `(end - start) / step` can truncate. A value that
        // stops moving in the step's direction (an integer type's end reached by wrapping, or a
        // float step below the spacing of the values) ends the range.
        loop {
            let x = start + T::from_usize(count) * step;
            // `partial_cmp` so that a NaN bound ends the range too.
            use core::cmp::Ordering::{Greater, Less};
            let (ahead, back) = if up { (Less, Greater) } else { (Greater, Less) };
            let past_end = x.partial_cmp(&end) != Some(ahead);
            let stalled = count > 0 && x.partial_cmp(&last) != Some(back);
            if past_end || stalled {
                break;
            }
            last = x;
            count += 1;
        }
        Array::from_fn([count], |[k]| start + T::from_usize(k) * step)
    }
}

impl<T: Arithmetic> Array<T, 2> {
    /// The `n x n` identity matrix.
    ///
    /// ```
    /// use cnda::prelude::*;
    /// assert_eq!(Array::<f64, 2>::eye(2).as_slice(), &[1.0, 0.0, 0.0, 1.0]);
    /// ```
    ///
    /// # Panics
    ///
    /// When the array cannot be allocated.
    #[track_caller]
    pub fn eye(n: usize) -> Self {
        Array::from_fn([n, n], |[i, j]| if i == j { T::ONE } else { T::ZERO })
    }
}
