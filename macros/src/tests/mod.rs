//! Unit tests over token streams: the macro's behaviour without compiling cnda.

use proc_macro2::TokenStream;

use crate::{analyze, expand};
use cnda_lang::flat::{flatten, Flat};
use cnda_lang::ir::Stencil;

mod errors;
mod expansion;
mod nodes;
mod parsing;
mod property;

/// The brief's heat equation step.
const HEAT: &str = "|u, k; dt: T| u[0, 0] + dt * (k[0, 0] * (u[-1, 0] + u[1, 0] + u[0, -1] + u[0, 1] - 4.0 * u[0, 0]))";

/// Tokens of `s`.
fn tokens(s: &str) -> TokenStream {
    s.parse().expect("test input lexes")
}

/// The checked stencil of `s`, which must be valid.
fn ok(s: &str) -> Stencil {
    analyze(tokens(s)).unwrap_or_else(|e| panic!("`{s}` was rejected: {e}"))
}

/// The error for `s`, which must be invalid.
fn err(s: &str) -> syn::Error {
    match analyze(tokens(s)) {
        Ok(_) => panic!("`{s}` was accepted"),
        Err(e) => e,
    }
}

/// The flattened expression data of `s` (of its values as written, without the flush).
fn nodes(s: &str) -> Vec<Flat> {
    let st = ok(s);
    flatten(&st.lets, &st.values).0
}
