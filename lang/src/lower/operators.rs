//! The finite-difference operators' calls (`laplace`, `diff`, `diff_half`): their arguments
//! checked, then expanded into taps, literals, sums and products by `crate::fd`.

use proc_macro2::Ident;
use quote::ToTokens;
use syn::{Error, Expr, ExprCall, Result};

use super::{arity, boxed, int_literal, offset, Lowered, Lowering, MAX_OFFSET, MAX_RANK};
use crate::fd::{self, Operator};
use crate::ir::{self, Arith, Tap};
use crate::typing::Ty;
use crate::{body, literal};

impl Lowering<'_> {
    /// `laplace(u, order)`, `diff(u, axis, n, order)`, `diff_half(u, axis, order, side)`: the
    /// operator's weighted taps around `u`'s centre (`u` alone is the point itself, `u[i, j]` a
    /// point at that offset), as sums and products of taps and literals (`fd.rs`).
    pub(super) fn finite_difference(&mut self, name: &Ident, args: &[&Expr], call: &ExprCall) -> Result<Lowered> {
        let (usage, count) = match name.to_string().as_str() {
            "laplace" => ("laplace(u, order)", 2),
            "diff" => ("diff(u, axis, n, order)", 4),
            _ => ("diff_half(u, axis, order, side)", 4),
        };
        arity(name, count, args.len(), call)?;
        let (field, centre) = self.operand(name, args[0], usage)?;
        let rank = centre.len();
        let int = |e: &Expr, what: &str, ok: &dyn Fn(i64) -> bool| -> Result<i64> {
            int_literal(e).filter(|&v| ok(v)).ok_or_else(|| {
                let msg = format!("`{usage}` takes {what}; `{}` is not one", e.to_token_stream());
                Error::new_spanned(e, msg)
            })
        };
        let order_is = format!("an even integer literal order of accuracy from 2 to {}", fd::MAX_ORDER);
        let order = |e: &Expr| int(e, &order_is, &|v| v % 2 == 0 && (2..=fd::MAX_ORDER).contains(&v));
        let axis_is = format!("an integer literal axis below the rank, {rank}");
        let axis = |e: &Expr| int(e, &axis_is, &|v| (0..rank as i64).contains(&v)).map(|v| v as usize);
        let op = match count {
            2 => Operator::Laplace { order: order(args[1])? },
            _ if name == "diff" => {
                let n_is = format!("an integer literal derivative from 1 to {}", fd::MAX_DERIVATIVE);
                let n = int(args[2], &n_is, &|v| (1..=fd::MAX_DERIVATIVE).contains(&v))?;
                Operator::Diff { axis: axis(args[1])?, n, order: order(args[3])? }
            }
            _ => {
                let side = int(args[3], "a side of 1 (the half point after the centre) or -1 (before it)", &|v| {
                    v == 1 || v == -1
                })?;
                Operator::DiffHalf { axis: axis(args[1])?, order: order(args[2])?, side }
            }
        };
        if centre.iter().any(|&c| i64::from(c).abs() + fd::reach(op) > MAX_OFFSET) {
            let msg = format!(
                "`{name}` reaches {} points from its centre, past the largest offset, {MAX_OFFSET}: \
                 lower the order or move the centre",
                fd::reach(op)
            );
            return Err(Error::new_spanned(call, msg));
        }
        let mut sum: Option<ir::Expr> = None;
        for term in fd::terms(op, rank) {
            let mut points: Option<ir::Expr> = None;
            for (delta, added) in term.points {
                let offset = centre.iter().zip(&delta).map(|(c, d)| c + d).collect();
                let tap = ir::Expr::Tap(self.tap(Tap { field, offset }, call)?);
                points = Some(match points {
                    None => tap,
                    Some(p) => ir::Expr::Arith(if added { Arith::Add } else { Arith::Sub }, boxed(p), boxed(tap)),
                });
            }
            let weight = ir::Expr::Lit(literal::value(&term.weight.decimal()));
            let product = ir::Expr::Arith(Arith::Mul, boxed(weight), boxed(points.expect("a term has points")));
            sum = Some(match sum {
                None => product,
                Some(s) => ir::Expr::Arith(Arith::Add, boxed(s), boxed(product)),
            });
        }
        Ok((sum.expect("an operator has a nonzero weight"), Ty::Scalar))
    }

    /// The field an operator applies to and its centre: `u` (the point itself, the stencil's
    /// rank from its other reads) or `u[i, j]`.
    fn operand(&mut self, name: &Ident, e: &Expr, usage: &str) -> Result<(usize, Vec<i32>)> {
        let field_of = |path: &Expr| match path {
            Expr::Path(p) if p.attrs.is_empty() && p.qself.is_none() => p.path.get_ident().cloned(),
            _ => None,
        };
        let (ident, offsets) = match e {
            Expr::Index(read) => (field_of(&read.expr), body::offsets(&read.index).map(|o| (o, read))),
            other => (field_of(other), None),
        };
        let Some(field) = ident.as_ref().and_then(|i| self.fields.iter().position(|f| f == i)) else {
            let msg = format!("`{usage}` applies to a field, `u` or `u[i, j]`; `{}` is not one", e.to_token_stream());
            return Err(Error::new_spanned(e, msg));
        };
        let ident = ident.expect("a field has a name");
        match offsets {
            Some((offsets, read)) => {
                let centre = offsets.iter().map(offset).collect::<Result<Vec<_>>>()?;
                self.check_rank(&ident, offsets, read)?;
                Ok((field, centre))
            }
            None => {
                let Some(rank) = self.rank.or(self.rank_hint).filter(|r| (1..=MAX_RANK).contains(r)) else {
                    let msg = format!(
                        "`{name}({ident}, ..)` needs the stencil's rank, and no read gives it: name the centre \
                         with one offset per axis, e.g. `{name}({ident}[0, 0], ..)`"
                    );
                    return Err(Error::new_spanned(e, msg));
                };
                self.rank.get_or_insert(rank);
                Ok((field, vec![0; rank]))
            }
        }
    }
}
