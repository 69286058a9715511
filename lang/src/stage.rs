//! A stage's `#[writes(..)]`: which fields of the state its values update, checked against
//! the stencil's fields and levels.

use proc_macro2::Ident;
use syn::{Error, Result};

/// A stage's `#[writes(..)]` as the state fields it writes (field `f` is the stencil's field
/// `f * levels`, its newest level): one per value, in the state's order.
pub fn writes(names: &[Ident], fields: &[Ident], levels: usize, values: usize) -> Result<Vec<usize>> {
    if names.len() != values {
        let msg = format!(
            "`#[writes(..)]` names {} fields for {values} values: a stage computes one value per field it writes",
            names.len()
        );
        return Err(Error::new_spanned(&names[0], msg));
    }
    let mut state_fields: Vec<usize> = Vec::with_capacity(names.len());
    for name in names {
        let Some(i) = fields.iter().position(|f| f == name) else {
            let msg = format!("`{name}` is not one of the stencil's fields: `#[writes(..)]` names fields it reads");
            return Err(Error::new_spanned(name, msg));
        };
        if i % levels != 0 {
            let msg = format!(
                "`{name}` is level {} of field `{}`: a stage writes a field's newest level, so name `{}`",
                i % levels,
                fields[i - i % levels],
                fields[i - i % levels]
            );
            return Err(Error::new_spanned(name, msg));
        }
        if state_fields.last().is_some_and(|&last| last >= i / levels) {
            let msg = "`#[writes(..)]` names the fields once each and in the stencil's order (the state's)";
            return Err(Error::new_spanned(name, msg));
        }
        state_fields.push(i / levels);
    }
    let last = state_fields.last().copied().unwrap_or(0);
    if fields.len() < (last + 1) * levels {
        let msg = format!(
            "`{}` is field {last} of the state, whose levels are fields {} to {} of the stencil, but it names {} \
             fields: name every level of the state's fields (`#[levels({levels})]`) before the coefficient fields",
            names[names.len() - 1],
            last * levels,
            (last + 1) * levels - 1,
            fields.len()
        );
        return Err(Error::new_spanned(&names[names.len() - 1], msg));
    }
    Ok(state_fields)
}
