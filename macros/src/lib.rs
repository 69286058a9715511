//! Procedural macros of cnda (re-exported by it as `cnda::stencil!` and `cnda::stencil::stencil!`).
//!
//! `stencil!` turns one closure-like definition into a unit struct implementing
//! `::cnda::stencil::Stencil`: the point update in Rust for the CPU, plus the same expression as
//! data (`NODES`), from which cnda generates the device backends' code, all computing in the same
//! operation order. The macro parses once into a small IR (`ir.rs`), checks it, then emits each
//! form from that IR (`emit_rust.rs`, `emit_nodes.rs`).
//! See `README.md` in this crate for the accepted language and the expansion.

mod emit_nodes;
mod emit_rust;

#[cfg(test)]
mod tests;

use proc_macro2::TokenStream;

/// Defines a stencil: a point update reading input fields at fixed offsets.
///
/// Expression form, evaluating to a value of a hidden unit struct:
///
/// ```ignore
/// let heat = stencil!(|u, k; dt: T| u[0, 0] + dt * (k[0, 0] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0])));
/// ```
///
/// Item form, naming the struct so it can appear in signatures:
///
/// ```ignore
/// stencil! { pub struct Heat = |u, k; dt: T| u[0, 0] + dt * k[0, 0] * (u[-1, 0] - u[0, 0]); }
/// ```
///
/// Before `;`, the input fields; after it, scalar parameters `name`, `name: T`, `name: f32` or
/// `name: f64` (a concrete type restricts the stencil to that element type). The body reads fields
/// at integer-literal offsets (one per axis, rank 1 to 4, magnitude at most 64) and may use
/// parameters, number literals, `+ - * /`, unary `-`, comparisons, `&&` `||` `!`,
/// `select(condition, a, b)`, and `sqrt exp ln sin cos tanh abs floor min max flush powi` in function or
/// method style (`powi` with an integer literal exponent). The body may be a block whose `let`
/// bindings name subexpressions, each computed once, before its value:
///
/// ```ignore
/// let step = stencil!(|u, k; dt: T| {
///     let lap = u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0];
///     u[0, 0] + dt * k[0, 0] * lap
/// });
/// ```
///
/// A body ending in a tuple computes several values at once, one per output (a system's updated
/// fields, in one pass, sharing the bindings); `apply` then writes a tuple of outputs:
///
/// ```ignore
/// let react = stencil!(|u, v; k: T| { let uv = u[0, 0] * v[0, 0]; (u[0, 0] - k * uv, v[0, 0] + k * uv) });
/// ```
///
/// Such a stencil steps a `State` of its first fields (one per value); with `#[levels(L)]` it reads
/// each of them at `L` time levels, newest first, field by field, before any coefficient fields:
/// `stencil!(#[levels(2)] |u, u_prev, m; c: T| 2.0 * u[0] - u_prev[0] + c * m[0] * laplace(u, 4))`.
/// The macro implements `Evolves<M, L>` for it (`M` values, `L` levels), which the time steppers
/// require of the state they are given.
///
/// With `#[writes(hx, hy)]` it is instead one stage of a staged step (`Stages`): its values are
/// the new values of the named fields (one per value, in the fields' order), its first fields
/// the state's (at their levels), and the macro implements `Stage<M, L>` for every state of `M`
/// fields that holds the named ones.
///
/// A subnormal value is stored as the zero of its sign (`flush`, so a decaying field stays fast
/// on x86), unless `#[subnormals(keep)]` comes first: `stencil!(#[subnormals(keep)] |u| ...)`.
///
/// Mixed precision: with `#[compute(f32)]` the stencil takes f16, bf16 and f32 fields, with
/// `#[compute(f64)]` f32 and f64 fields, and computes in the named type: each tap widened
/// exactly, every operation rounded to that type, each value rounded to the fields' type once,
/// when stored (where a 16-bit stencil rounds every operation). Its parameters (and literals)
/// are of the named type: `stencil!(#[compute(f32)] |u; dt: f32| ...)`. A flushed value is
/// flushed again in the fields' type (an f64 below 2^-126 narrows to an f32 subnormal). On every
/// backend (WebGPU: f16 fields in f32, where the adapter has f16; it has no f64).
///
/// Anything else is a compile error that says what to write instead.
#[proc_macro]
pub fn stencil(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    expand(input.into()).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// The expansion of `stencil!(input)`, or the first error in the input.
fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    Ok(emit_rust::expansion(&analyze(input)?))
}

/// Parses and checks the input (the language is `cnda-lang`'s, shared with cnda's run-time
/// parser).
fn analyze(input: TokenStream) -> syn::Result<cnda_lang::ir::Stencil> {
    cnda_lang::analyze(input)
}
