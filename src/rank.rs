//! Rank arithmetic on stable Rust.
//!
//! A rank is a `const N: usize`; ops whose result rank differs from the input's (`squeeze`,
//! `unsqueeze`, broadcasting, matrix-only ops) name it through the marker [`Rank<N>`] and the traits
//! below, so the result rank is inferred without a turbofish:
//!
//! ```
//! use cnda::prelude::*;
//! let a = Array::<f64, 2>::zeros([3, 4]);
//! let b = a.view().unsqueeze(0); // rank 3, inferred from `Rank<2>: Inc<Output = Rank<3>>`
//! assert_eq!(b.shape(), [1, 3, 4]);
//! ```
//!
//! The impls are generated for ranks `0..=MAX_RANK`; past that the trait is unimplemented and the
//! compiler prints the trait's own message (for example "cannot add an axis to a `Rank<8>` array")
//! instead of a list of impls.

/// The largest rank the rank-arithmetic traits cover.
pub const MAX_RANK: usize = 8;

/// Type-level marker for rank `N`; see the module documentation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rank<const N: usize>;

/// `Rank<N + 1>`: implemented for ranks below [`MAX_RANK`].
#[diagnostic::on_unimplemented(
    message = "cannot add an axis to a `{Self}` array: cnda supports ranks 0 to 8",
    label = "this operation adds an axis",
    note = "remove an axis first (`index_axis`, `squeeze`, or `reshape` to fewer axes)"
)]
pub trait Inc {
    /// The rank one higher.
    type Output;
}

/// `Rank<N - 1>`: implemented for ranks 1 to [`MAX_RANK`].
#[diagnostic::on_unimplemented(
    message = "cannot remove an axis from a `{Self}` array: it has no axis to remove",
    label = "this operation removes an axis",
    note = "a rank-0 array holds a single element; read it with `a[[]]` or `a.at([])`"
)]
pub trait Dec {
    /// The rank one lower.
    type Output;
}

/// `Rank<max(N, M)>`: the rank of a result broadcast from operands of ranks `N` and `M`.
#[diagnostic::on_unimplemented(
    message = "cannot broadcast a `{Self}` array with a `{Rhs}` array: cnda supports ranks 0 to 8",
    label = "ranks out of the supported range"
)]
pub trait MaxRank<Rhs> {
    /// The larger of the two ranks.
    type Output;
}

/// `Rank<M>: BroadcastInto<Rank<N>>` for `M <= N`: an operand of rank `M` can be broadcast into
/// an array of rank `N` (broadcasting adds leading axes, never removes them).
#[diagnostic::on_unimplemented(
    message = "a `{Self}` operand cannot be broadcast into a `{Target}` array: broadcasting only adds axes",
    label = "this operand has more axes than the array it is written into",
    note = "reduce the operand first (`index_axis`, `sum_axis`), or write into an array of higher rank"
)]
pub trait BroadcastInto<Target> {}

/// Implemented by `Rank<2>` only: bounds operations that are defined for matrices.
#[diagnostic::on_unimplemented(
    message = "this operation needs a matrix (`Rank<2>`), but the array is `{Self}`",
    label = "not a rank-2 array",
    note = "select a 2D part first (`index_axis`, `reshape`), or use the N-dimensional form of the op"
)]
pub trait IsMatrix {}

#[diagnostic::do_not_recommend]
impl IsMatrix for Rank<2> {}

macro_rules! impl_inc_dec {
    ($($lo:literal => $hi:literal),* $(,)?) => {$(
        #[diagnostic::do_not_recommend]
        impl Inc for Rank<$lo> {
            type Output = Rank<$hi>;
        }
        #[diagnostic::do_not_recommend]
        impl Dec for Rank<$hi> {
            type Output = Rank<$lo>;
        }
    )*};
}
impl_inc_dec!(0 => 1, 1 => 2, 2 => 3, 3 => 4, 4 => 5, 5 => 6, 6 => 7, 7 => 8);

/// Every rank broadcasts with itself (generic code relies on this for any `N`).
impl<const N: usize> MaxRank<Rank<N>> for Rank<N> {
    type Output = Rank<N>;
}

macro_rules! impl_max_rank {
    ($($a:literal => $($b:literal)*;)*) => {$($(
        #[diagnostic::do_not_recommend]
        impl MaxRank<Rank<$b>> for Rank<$a> {
            type Output = Rank<{ if $a > $b { $a } else { $b } }>;
        }
    )*)*};
}
impl_max_rank! {
    0 => 1 2 3 4 5 6 7 8;
    1 => 0 2 3 4 5 6 7 8;
    2 => 0 1 3 4 5 6 7 8;
    3 => 0 1 2 4 5 6 7 8;
    4 => 0 1 2 3 5 6 7 8;
    5 => 0 1 2 3 4 6 7 8;
    6 => 0 1 2 3 4 5 7 8;
    7 => 0 1 2 3 4 5 6 8;
    8 => 0 1 2 3 4 5 6 7;
}

/// Every rank fits into itself (generic code relies on this for any `N`).
impl<const N: usize> BroadcastInto<Rank<N>> for Rank<N> {}

macro_rules! impl_broadcast_into {
    ($($from:literal => $($to:literal)*;)*) => {$($(
        #[diagnostic::do_not_recommend]
        impl BroadcastInto<Rank<$to>> for Rank<$from> {}
    )*)*};
}
impl_broadcast_into! {
    0 => 1 2 3 4 5 6 7 8;
    1 => 2 3 4 5 6 7 8;
    2 => 3 4 5 6 7 8;
    3 => 4 5 6 7 8;
    4 => 5 6 7 8;
    5 => 6 7 8;
    6 => 7 8;
    7 => 8;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn max_of<const A: usize, const B: usize, const M: usize>() -> usize
    where
        Rank<A>: MaxRank<Rank<B>, Output = Rank<M>>,
    {
        M
    }

    fn inc_of<const A: usize, const M: usize>() -> usize
    where
        Rank<A>: Inc<Output = Rank<M>>,
    {
        M
    }

    fn dec_of<const A: usize, const M: usize>() -> usize
    where
        Rank<A>: Dec<Output = Rank<M>>,
    {
        M
    }

    #[test]
    fn max_rank_is_the_larger_rank() {
        assert_eq!(max_of::<0, 3, _>(), 3);
        assert_eq!(max_of::<5, 2, _>(), 5);
        assert_eq!(max_of::<8, 8, _>(), 8);
        assert_eq!(max_of::<1, 7, _>(), 7);
    }

    #[test]
    fn inc_and_dec_step_by_one() {
        assert_eq!(inc_of::<0, _>(), 1);
        assert_eq!(inc_of::<7, _>(), 8);
        assert_eq!(dec_of::<1, _>(), 0);
        assert_eq!(dec_of::<8, _>(), 7);
    }
}
