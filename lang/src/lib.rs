//! The language of cnda's `stencil!`, shared by the procedural macro (compile time) and cnda's
//! run-time parser (`cnda::stencil::TextStencil`, stencils read from a string): the input parsed
//! ([`parse`]), checked and lowered into a small IR ([`ir`], [`lower`]), and flattened into the
//! expression's nodes ([`flat`]). One parser and one set of checks, so a stencil read at run time
//! is accepted, refused and computed exactly as the same text given to `stencil!`.
//! See `macros/README.md` for the accepted language.

pub mod body;
pub mod elem;
pub mod fd;
pub mod flat;
pub mod ir;
pub mod lets;
pub mod literal;
pub mod lower;
pub mod parse;
pub mod reject;
pub mod stage;
pub mod typing;

use proc_macro2::TokenStream;

/// Parses and checks a stencil definition (`stencil!`'s input).
///
/// # Errors
///
/// The first error in the input, at its span.
pub fn analyze(input: TokenStream) -> syn::Result<ir::Stencil> {
    lower::stencil(parse::input(input)?)
}
