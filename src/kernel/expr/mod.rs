//! What `stencil!` emits, and what every backend's expression-stencil kernel consumes: the
//! [`Stencil`] trait (the taps a stencil reads, its expression as data, its per-point CPU
//! function), the element types it computes in ([`Scalar`]), the per-point tap reader, the one
//! [`check`](fn@check) of a stencil's data, the interpreter that defines what the data means, and the
//! printer the device backends generate their code with.

mod check;
mod data;
pub mod emit;
mod eval;
mod evolves;
mod linearity;
mod node;
mod scalar;
mod values;
mod widen;

pub use check::{check, CheckedExpr, MAX_NODES};
pub use data::ExprData;
pub use evolves::{Evolves, Stage};
pub use linearity::Linearity;
pub use node::{Binary, Lit, Node, Unary};
pub use scalar::{powi, Scalar};
pub use values::{Values, MAX_OUTPUTS};
pub use widen::Widen;

/// The number of input fields of a stencil, as a type (so that applying a stencil to the wrong
/// number of fields is a compile error naming both counts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Arity<const K: usize>;

/// One read of a stencil: input field `field` at `offset` from the point being computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tap<const N: usize> {
    /// The index of the field, in the order the stencil names its fields.
    pub field: usize,
    /// The offset from the point, per axis.
    pub offset: [isize; N],
}

/// How a stencil's point function reads its taps: `tap(k)` is the value of [`Stencil::TAPS`]`[k]`
/// at the point being computed. Backends (and reference implementations) provide it.
pub trait TapReader<T> {
    /// The value of tap `k` at the current point.
    fn tap(&self, k: usize) -> T;
}

/// The scalar parameters of a stencil: a tuple of one `T` per parameter (`()` for none).
pub trait StencilParams<T>: Copy + Send + Sync {
    /// The number of parameters.
    const LEN: usize;
    /// Parameter `i` (`i < LEN`).
    fn get(&self, i: usize) -> T;
}

impl<T> StencilParams<T> for () {
    const LEN: usize = 0;
    fn get(&self, i: usize) -> T {
        panic!("a stencil without parameters has no parameter {i}")
    }
}

macro_rules! params_tuple {
    ($len:expr; $($name:ident $i:tt),+) => {
        impl<T: Copy + Send + Sync> StencilParams<T> for ($($name,)+) {
            const LEN: usize = $len;
            fn get(&self, i: usize) -> T {
                match i {
                    $($i => self.$i,)+
                    _ => panic!("a stencil with {} parameters has no parameter {i}", $len),
                }
            }
        }
    };
}

// One `T` in every position: a stencil's parameters share its element type.
params_tuple!(1; T 0);
params_tuple!(2; T 0, T 1);
params_tuple!(3; T 0, T 1, T 2);
params_tuple!(4; T 0, T 1, T 2, T 3);
params_tuple!(5; T 0, T 1, T 2, T 3, T 4);
params_tuple!(6; T 0, T 1, T 2, T 3, T 4, T 5);
params_tuple!(7; T 0, T 1, T 2, T 3, T 4, T 5, T 6);
params_tuple!(8; T 0, T 1, T 2, T 3, T 4, T 5, T 6, T 7);

/// A stencil over `N`-dimensional fields of `T`: the value at each point (or the values, one per
/// output, for a stencil that updates several fields in one pass) is an expression of the
/// input fields read at constant offsets ([`Stencil::TAPS`]) and of scalar parameters, given as
/// data ([`Stencil::NODES`]) from which every device backend generates its own code, and as a
/// compiled CPU function ([`Stencil::point`]) of the same operations in the same order. Written
/// with [`stencil!`](crate::stencil!), which emits both from one checked tree; a hand-written
/// impl is possible, and safe: nothing unsafe trusts it. Every apply runs [`check`](fn@check) first (tap
/// fields within `FIELDS`, one parameter per name, a well-formed expression), device code is
/// generated only from what `check` returned (never text from the implementation), the radius
/// comes from `TAPS` ([`radius`]), and the CPU reads taps only through the [`TapReader`] it
/// hands in. A `point` that disagrees with `NODES` gives the CPU and the devices different
/// values, nothing worse.
pub trait Stencil<T: Scalar, const N: usize>: Copy + Send + Sync + 'static {
    /// The input fields' names, in order.
    const FIELDS: &'static [&'static str];
    /// The scalar parameters' names, in order.
    const PARAMS: &'static [&'static str];
    /// Every distinct (field, offset) read, in order of first appearance in the source.
    const TAPS: &'static [Tap<N>];
    /// The expression as data: nodes in evaluation order, each operand an earlier node
    /// ([`Node`]).
    const NODES: &'static [Node];
    /// The node holding each output's value, in output order: `[NODES.len() - 1]` for a
    /// stencil of one output whose value is its last node.
    const VALUES: &'static [usize];
    /// The stencil as written.
    const SOURCE: &'static str;
    /// The type the expression computes in: `T` itself, or a wider type the stencil asks for
    /// (`#[compute(f32)]` over 16-bit fields, `#[compute(f64)]` over `f32` fields): each tap is
    /// widened exactly, every operation rounds to this type, and each value is rounded to `T`
    /// once, when stored ([`Widen`]).
    type Compute: Scalar + Widen<T>;
    /// The parameters' values: one [`Stencil::Compute`] per name in [`Stencil::PARAMS`].
    type Params: StencilParams<Self::Compute>;
    /// `Arity<K>` for `K` input fields (`FIELDS.len()`).
    type Arity;
    /// What one point computes: `T` for one output, `[T; M]` for `M` ([`Values`]; `M` is
    /// `VALUES.len()`).
    type Values: Values<T>;

    /// The values at one point, from its taps (`taps.tap(k)` for `TAPS[k]`) and the parameters:
    /// [`Stencil::NODES`] compiled for the CPU.
    fn point<R: TapReader<T>>(taps: &R, params: &Self::Params) -> Self::Values;
}

/// The radius of `S` along each axis: the largest offset magnitude of any tap (what every
/// generic algorithm uses, computed from `TAPS` so that it cannot disagree with them).
pub fn radius<S: Stencil<T, N>, T: Scalar, const N: usize>() -> [usize; N] {
    radius_of(S::TAPS)
}

/// The largest offset magnitude of any of `taps` along each axis (a stencil's radius, from its
/// taps whether they are a type's consts or data).
pub fn radius_of<const N: usize>(taps: &[Tap<N>]) -> [usize; N] {
    let mut r = [0usize; N];
    for tap in taps {
        for (r, o) in r.iter_mut().zip(tap.offset) {
            *r = (*r).max(o.unsigned_abs());
        }
    }
    r
}
