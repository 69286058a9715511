//! Which state a stencil steps: [`Evolves<M, L>`] says its values are the next level of `M`
//! fields it reads at `L` time levels each.

/// A stencil whose values are the next level of `M` evolving fields that it reads at `L` time
/// levels each: its fields `f * L + l` are field `f` at level `l` (level 0 the newest, field by
/// field), and the fields after the first `M * L` are coefficient fields no step writes.
/// `stencil!` implements it with `M` its number of values and `L` its `#[levels(L)]` (1 by
/// default) whenever it names at least `M * L` fields; the time steppers of a
/// [`State<T, N, M, L>`](crate::stencil::State) take the stencils that implement it. Nothing
/// unsafe trusts it: the steppers check the counts again.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not step a state of {M} fields at {L} levels",
    label = "its values and levels do not match the state's",
    note = "a stencil with a tuple of M values and `#[levels(L)]` steps a `State<T, N, M, L>` (a `DoubleBuffer` is one field at one level); its first M * L fields are those levels, newest first, field by field"
)]
pub trait Evolves<const M: usize, const L: usize> {
    /// `Arity<C + 1>` for `C` coefficient fields (after the levels): what the steppers'
    /// [`Coefficients`](crate::stencil::Coefficients) are indexed by.
    type Coefficients;
}

/// A stencil that is one stage of a staged step (a [`Stages`](crate::stencil::Stages)) of a
/// state of `M` fields at `L` time levels: its values are the new values of the state's fields
/// `WRITES` (in that order, ascending), and it reads every field's levels (its fields
/// `f * L + l`, as for [`Evolves`]) and then its own coefficient fields. `stencil!` implements
/// it for `#[writes(names..)]`, for every state the written fields fit in. Nothing unsafe
/// trusts it: the steppers check the counts again.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a stage of a state of {M} fields at {L} levels",
    label = "not a `stencil!` with `#[writes(..)]` whose first fields are the state's",
    note = "a stage is a `stencil!` with `#[writes(fields..)]` naming the fields its values update; its first M * L fields are the state's fields at their levels, newest first, field by field, then its coefficient fields"
)]
pub trait Stage<const M: usize, const L: usize> {
    /// The state's fields the values update, in value order (ascending).
    const WRITES: &'static [usize];
    /// `Arity<C + 1>` for `C` coefficient fields (after the levels).
    type Coefficients;
}
