//! `let` bindings: a body may be a block `{ let name = expr; ... value }` whose bindings name
//! subexpressions that the value (and later bindings) use, each computed once. Only plain
//! `let name = expr;` statements may precede the value; everything else in a block gets an error
//! that says what to write instead.

use syn::{Error, Expr, Pat, Result, Stmt};

/// One `let name = value;` of the body.
pub struct Binding<'a> {
    /// The name bound.
    pub name: &'a syn::Ident,
    /// The value, as written.
    pub value: &'a Expr,
}

/// The bindings and the value of a body: a block's `let`s and its final expression, or no
/// bindings and the body itself.
pub fn split(body: &Expr) -> Result<(Vec<Binding<'_>>, &Expr)> {
    let Expr::Block(block) = body else { return Ok((Vec::new(), body)) };
    if let Some(attr) = block.attrs.first() {
        return Err(Error::new_spanned(attr, "attributes are not allowed in a stencil body"));
    }
    if let Some(label) = &block.label {
        return Err(Error::new_spanned(label, "a stencil body's block takes no label"));
    }
    let stmts = &block.block.stmts;
    let Some((last, lets)) = stmts.split_last() else {
        let msg = "the body's block is empty: it ends with the stencil's value, e.g. `{ let lap = ...; u[0] + lap }`";
        return Err(Error::new_spanned(body, msg));
    };
    let value = match last {
        Stmt::Expr(value, None) => value,
        Stmt::Expr(_, Some(semi)) => {
            let msg = "the body's block ends with the stencil's value, an expression without `;`: remove this `;`";
            return Err(Error::new_spanned(semi, msg));
        }
        other => {
            let msg = "the body's block ends with the stencil's value, e.g. `{ let lap = ...; u[0] + lap }`";
            return Err(Error::new_spanned(other, msg));
        }
    };
    let bindings = lets.iter().map(binding).collect::<Result<Vec<_>>>()?;
    Ok((bindings, value))
}

/// A statement before the value: `let name = value;` only.
fn binding(stmt: &Stmt) -> Result<Binding<'_>> {
    const ONLY_LETS: &str = "only `let name = value;` bindings may come before the stencil's value";
    let Stmt::Local(local) = stmt else { return Err(Error::new_spanned(stmt, ONLY_LETS)) };
    if let Some(attr) = local.attrs.first() {
        return Err(Error::new_spanned(attr, "attributes are not allowed in a stencil body"));
    }
    let name = match &local.pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none() && p.attrs.is_empty() => {
            &p.ident
        }
        Pat::Type(t) => {
            let msg = "a `let` binding takes no type: it has the stencil's element type, or is a condition \
                       where its value is a comparison";
            return Err(Error::new_spanned(&t.ty, msg));
        }
        other => {
            let msg = "a `let` binding names one value, e.g. `let lap = u[-1, 0] + u[1, 0] - 2.0 * u[0, 0];`";
            return Err(Error::new_spanned(other, msg));
        }
    };
    let Some(init) = &local.init else {
        let msg = format!("`let {name}` needs a value: `let {name} = ...;`");
        return Err(Error::new_spanned(local, msg));
    };
    if let Some((else_token, _)) = &init.diverge {
        return Err(Error::new_spanned(else_token, "`let ... else` is not allowed in a stencil body"));
    }
    Ok(Binding { name, value: &init.expr })
}
