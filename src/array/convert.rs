//! Conversions into the default view type `ArrayView<T, N>` (layout `Strided`), so that a helper
//! written as `fn f(u: ArrayView<f64, 2>)` takes `a.view().into()` or `(&a).into()` whatever the
//! layout of `a`. Generic code can instead take `impl AsView<T, N>` or an `L: Layout` parameter,
//! which need no conversion at all.

use crate::array::Array;
use crate::check::BoundsCheck;
use crate::element::Pod;
use crate::kernel::HostAccessible;
use crate::layout::{ColMajor, Layout, Padded, RowMajor, Strided};
use crate::view::{ArrayView, ArrayViewMut};

/// One `From` impl per non-`Strided` layout (a blanket impl over `L` would overlap the reflexive
/// `From<T> for T` at `L = Strided`).
macro_rules! into_strided {
    ($($layout:ty),*) => {$(
        impl<'a, T: Pod, const N: usize, C: BoundsCheck> From<ArrayView<'a, T, N, $layout, C>>
            for ArrayView<'a, T, N, Strided, C>
        {
            fn from(view: ArrayView<'a, T, N, $layout, C>) -> Self {
                view.into_strided()
            }
        }

        impl<'a, T: Pod, const N: usize, C: BoundsCheck> From<ArrayViewMut<'a, T, N, $layout, C>>
            for ArrayViewMut<'a, T, N, Strided, C>
        {
            fn from(view: ArrayViewMut<'a, T, N, $layout, C>) -> Self {
                view.into_strided()
            }
        }
    )*};
}

into_strided!(RowMajor, ColMajor, Padded);

impl<'a, T: Pod, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> From<&'a Array<T, N, B, L, C>>
    for ArrayView<'a, T, N, Strided, C>
{
    /// ```
    /// use cnda::prelude::*;
    /// fn total(u: ArrayView<f64, 2>) -> f64 {
    ///     u.sum()
    /// }
    /// let a = Array::<f64, 2>::ones([2, 3]);
    /// assert_eq!(total((&a).into()), 6.0);
    /// assert_eq!(total(a.view().into()), 6.0);
    /// assert_eq!(total(a.t().into()), 6.0);
    /// ```
    fn from(array: &'a Array<T, N, B, L, C>) -> Self {
        array.host_view().into_strided()
    }
}

impl<'a, T: Pod, const N: usize, B: HostAccessible, L: Layout, C: BoundsCheck> From<&'a mut Array<T, N, B, L, C>>
    for ArrayViewMut<'a, T, N, Strided, C>
{
    fn from(array: &'a mut Array<T, N, B, L, C>) -> Self {
        array.host_view_mut().into_strided()
    }
}
