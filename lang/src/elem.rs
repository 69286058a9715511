//! The stencil's element type: generic unless a parameter type or a literal suffix names `f32` or
//! `f64`, and then that one type everywhere.

use quote::ToTokens;
use syn::{Error, Result};

use crate::ir::Elem;

/// Collects the concrete types the source names and rejects a mix.
#[derive(Default)]
pub struct ElemChoice {
    /// The first concrete type named, and what named it (for the error on a mix).
    first: Option<(Elem, String)>,
}

impl ElemChoice {
    /// Records that `what` (e.g. "parameter `dt`"), written at `at`, names `elem`.
    pub fn mention(&mut self, elem: Elem, what: String, at: impl ToTokens) -> Result<()> {
        if elem == Elem::Generic {
            return Ok(());
        }
        match &self.first {
            None => {
                self.first = Some((elem, what));
                Ok(())
            }
            Some((first, _)) if *first == elem => Ok(()),
            Some((first, first_what)) => {
                let msg = format!(
                    "{what} is `{}` but {first_what} is `{}`: a stencil computes in one type; \
                     write `T` (or no type) for a stencil generic over its element type",
                    name(elem),
                    name(*first)
                );
                Err(Error::new_spanned(at, msg))
            }
        }
    }

    /// The element type of the impl.
    pub fn resolve(&self) -> Elem {
        self.first.as_ref().map_or(Elem::Generic, |(elem, _)| *elem)
    }
}

/// The Rust name of a concrete type.
pub fn name(elem: Elem) -> &'static str {
    match elem {
        Elem::Generic => "T",
        Elem::F32 => "f32",
        Elem::F64 => "f64",
    }
}
