//! From parsed syntax to the checked stencil: names resolved, reads turned into numbered taps, the
//! rank fixed, literals valued, bools kept apart from numbers. The first error in source order wins.

use proc_macro2::Ident;
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::{BinOp, Error, Expr, ExprCall, ExprIndex, ExprMethodCall, Result, Token, UnOp};

use crate::elem::ElemChoice;
use crate::ir::{self, Arith, Cmp, Elem, Func, Let, Logic, Stencil, Tap};
use crate::parse::Input;
use crate::typing::{self, Side, Ty};
use crate::{body, lets, literal, reject};

mod operators;

/// The largest offset magnitude: it bounds the halo a backend must provide.
pub const MAX_OFFSET: i64 = 64;
/// The largest rank.
pub const MAX_RANK: usize = 4;

const FUNCTIONS: &str =
    "sqrt, exp, ln, sin, cos, tanh, abs, floor, min, max, flush, powi, select, laplace, diff, diff_half";
const METHODS: &str = "sqrt, exp, ln, sin, cos, tanh, abs, floor, min, max, flush, powi";

/// Checks the parsed input and builds the stencil.
/// The most distinct taps a stencil may read (the CPU kernel keeps one offset per tap in a
/// fixed array; devices take as many).
const MAX_TAPS: usize = 64;

pub fn stencil(input: Input) -> Result<Stencil> {
    let mut elem = ElemChoice::default();
    // A stencil that computes in a wider type takes its parameters and literals in it.
    if let Some((compute, attr)) = &input.compute {
        elem.mention(*compute, format!("`#[compute({})]`", crate::elem::name(*compute)), attr)?;
    }
    for p in &input.params {
        elem.mention(p.elem, format!("parameter `{}`", p.name), &p.ty)?;
    }
    let rank_hint = body::first_rank(&input.body, &input.fields);
    let parsed = body::parse(input.body)?;
    let params: Vec<Ident> = input.params.into_iter().map(|p| p.name).collect();
    let mut cx = Lowering {
        fields: &input.fields,
        params: &params,
        rank: None,
        rank_hint,
        taps: Vec::new(),
        elem,
        lits: Vec::new(),
        lets: Vec::new(),
    };
    let (bindings, value) = lets::split(&parsed.expr)?;
    for binding in bindings {
        cx.bind(binding)?;
    }
    let values = outputs(value)?;
    let levels_read = values.len() * input.levels;
    let writes = match &input.writes {
        Some(names) => Some(crate::stage::writes(names, &input.fields, input.levels, values.len())?),
        None => None,
    };
    if writes.is_none() && input.levels > 1 && input.fields.len() < levels_read {
        let msg = format!(
            "a stencil of {} values at {} levels reads its first {levels_read} fields as the levels of the fields it \
             evolves (newest first, field by field), but it names {} fields",
            values.len(),
            input.levels,
            input.fields.len()
        );
        return Err(Error::new_spanned(&input.fields[0], msg));
    }
    let mut lowered = Vec::with_capacity(values.len());
    for value in &values {
        let (expr, ty) = cx.expr(value)?;
        typing::body(ty, value)?;
        lowered.push(expr);
    }
    if let Some(first) = parsed.trailing.into_iter().next() {
        let msg = "expected the end of the stencil body: the body is one expression, or a block \
                   `{ let name = ...; value }`";
        return Err(Error::new(first.span(), msg));
    }
    let Lowering { rank, taps, elem, lits, lets, .. } = cx;
    let lets = lets.into_iter().map(|(name, value, _)| Let { name, value }).collect();
    let Some(rank) = rank else {
        let msg = "the body reads no field: a stencil reads its fields at offsets, e.g. `u[0, 0]`, \
                   and the number of offsets is its rank";
        return Err(Error::new_spanned(&parsed.expr, msg));
    };
    let elem = elem.resolve();
    for (value, lit) in &lits {
        check_finite(elem, *value, lit)?;
    }
    Ok(Stencil {
        item: input.item,
        fields: input.fields,
        params,
        elem,
        rank,
        taps,
        lets,
        values: lowered,
        subnormals: input.subnormals,
        levels: input.levels,
        writes,
        compute: input.compute.map(|(compute, _)| compute),
        source: input.source,
    })
}

/// The most values (outputs) a stencil may compute: cnda's `MAX_OUTPUTS`.
pub const MAX_OUTPUTS: usize = 8;

/// The body's values: the elements of a final tuple `(a, b, ..)` (a stencil of several
/// outputs, one per element), or the one value.
fn outputs(value: &Expr) -> Result<Vec<&Expr>> {
    let Expr::Tuple(tuple) = value else { return Ok(vec![value]) };
    if let Some(attr) = tuple.attrs.first() {
        return Err(Error::new_spanned(attr, "attributes are not allowed in a stencil body"));
    }
    let count = tuple.elems.len();
    let msg = match count {
        0 => "a stencil computes at least one value: end the body with it, or with a tuple `(a, b)` of one per output"
            .to_owned(),
        1 => "a stencil of one value ends with it, not a 1-tuple: remove the parentheses and the comma".to_owned(),
        2..=MAX_OUTPUTS => return Ok(tuple.elems.iter().collect()),
        _ => format!(
            "a stencil computes at most {MAX_OUTPUTS} values; this tuple has {count}: split the system into stages"
        ),
    };
    Err(Error::new_spanned(value, msg))
}

/// A literal must be finite in the type(s) it is computed in. A generic stencil may be used with
/// `f64` only, so a literal too large for `f32` is allowed there (its `f32` value is infinity, as
/// `x as f32` would give).
fn check_finite(elem: Elem, value: ir::Lit, lit: &syn::Lit) -> Result<()> {
    let (finite, ty, max) = match elem {
        Elem::F32 => (value.f32.is_finite(), "f32", "3.4028235e38"),
        Elem::F64 | Elem::Generic => (value.f64.is_finite(), "f64", "1.7976931348623157e308"),
    };
    if finite {
        return Ok(());
    }
    let text = lit.to_token_stream().to_string();
    let msg = format!("the literal `{text}` overflows {ty}: its largest finite value is {max}");
    Err(Error::new_spanned(lit, msg))
}

/// The lowering's state: the names in scope and what the body has read so far.
struct Lowering<'a> {
    fields: &'a [Ident],
    params: &'a [Ident],
    /// The rank of the first read, once seen.
    rank: Option<usize>,
    /// The rank of the first read in the raw tokens, for examples in messages before it is seen.
    rank_hint: Option<usize>,
    taps: Vec<Tap>,
    elem: ElemChoice,
    /// Every literal with its source, to check its range once the element type is known.
    lits: Vec<(ir::Lit, syn::Lit)>,
    /// The `let` bindings so far: name, value, type.
    lets: Vec<(Ident, ir::Expr, Ty)>,
}

type Lowered = (ir::Expr, Ty);

fn boxed(e: ir::Expr) -> Box<ir::Expr> {
    Box::new(e)
}

impl Lowering<'_> {
    fn expr(&mut self, e: &Expr) -> Result<Lowered> {
        match e {
            Expr::Paren(p) => {
                no_attrs(&p.attrs)?;
                self.expr(&p.expr)
            }
            // Invisible groups come from `macro_rules!` substitutions; they group like parentheses.
            Expr::Group(g) => self.expr(&g.expr),
            Expr::Lit(l) => {
                no_attrs(&l.attrs)?;
                self.literal(&l.lit)
            }
            Expr::Path(p) => match p.path.get_ident() {
                Some(name) if p.attrs.is_empty() && p.qself.is_none() => self.name(name),
                _ => Err(reject::expr(e)),
            },
            Expr::Index(read) => self.read(read),
            Expr::Unary(u) => {
                no_attrs(&u.attrs)?;
                let (x, ty) = self.expr(&u.expr)?;
                match u.op {
                    UnOp::Neg(_) => {
                        typing::arith_operand(ty, &u.expr, "-", Side::Only)?;
                        Ok((ir::Expr::Neg(boxed(x)), Ty::Scalar))
                    }
                    UnOp::Not(_) => {
                        typing::logic_operand(ty, &u.expr, "!", Side::Only)?;
                        Ok((ir::Expr::Not(boxed(x)), Ty::Bool))
                    }
                    _ => Err(reject::un_op(&u.op)),
                }
            }
            Expr::Binary(b) => {
                no_attrs(&b.attrs)?;
                let (l, lt) = self.expr(&b.left)?;
                let op = BinKind::of(&b.op)?;
                let (r, rt) = self.expr(&b.right)?;
                let text = b.op.to_token_stream().to_string();
                let (l, r) = (boxed(l), boxed(r));
                Ok(match op {
                    BinKind::Arith(op) => {
                        typing::arith_operand(lt, &b.left, &text, Side::Left)?;
                        typing::arith_operand(rt, &b.right, &text, Side::Right)?;
                        (ir::Expr::Arith(op, l, r), Ty::Scalar)
                    }
                    BinKind::Cmp(op) => {
                        typing::compared(lt, &b.left, &text, Side::Left)?;
                        typing::compared(rt, &b.right, &text, Side::Right)?;
                        (ir::Expr::Cmp(op, l, r), Ty::Bool)
                    }
                    BinKind::Logic(op) => {
                        typing::logic_operand(lt, &b.left, &text, Side::Left)?;
                        typing::logic_operand(rt, &b.right, &text, Side::Right)?;
                        (ir::Expr::Logic(op, l, r), Ty::Bool)
                    }
                })
            }
            Expr::Call(call) => self.call(call),
            Expr::MethodCall(call) => self.method(call),
            other => Err(reject::expr(other)),
        }
    }

    fn literal(&mut self, lit: &syn::Lit) -> Result<Lowered> {
        let (digits, suffix) = match lit {
            syn::Lit::Float(f) => (f.base10_digits(), f.suffix()),
            syn::Lit::Int(i) => (i.base10_digits(), i.suffix()),
            syn::Lit::Bool(_) => {
                let msg = "`true` and `false` are not allowed in a stencil body: conditions are comparisons \
                           such as `u[0] > 0.0`, used in `select(condition, a, b)`";
                return Err(Error::new_spanned(lit, msg));
            }
            _ => return Err(reject::expr(&Expr::Lit(syn::ExprLit { attrs: Vec::new(), lit: lit.clone() }))),
        };
        let elem = match suffix {
            "" => Elem::Generic,
            "f32" => Elem::F32,
            "f64" => Elem::F64,
            other => {
                let msg = format!(
                    "the literal `{}` has suffix `{other}`: a stencil's numbers have its element type; \
                     write it without a suffix (or with `f32`/`f64` to fix the element type)",
                    lit.to_token_stream()
                );
                return Err(Error::new_spanned(lit, msg));
            }
        };
        self.elem.mention(elem, format!("the literal `{}`", lit.to_token_stream()), lit)?;
        let value = literal::value(digits);
        self.lits.push((value, lit.clone()));
        Ok((ir::Expr::Lit(value), Ty::Scalar))
    }

    /// `let name = value;`: a new name, bound to its lowered value.
    fn bind(&mut self, binding: lets::Binding<'_>) -> Result<()> {
        let name = binding.name;
        let taken = if self.fields.contains(name) {
            Some("a field")
        } else if self.params.contains(name) {
            Some("a parameter")
        } else if self.lets.iter().any(|(bound, _, _)| bound == name) {
            Some("bound by an earlier `let`")
        } else if is_function(name) {
            Some("a function")
        } else {
            None
        };
        if let Some(what) = taken {
            let msg = format!("`{name}` is {what}: a `let` binding needs a name of its own");
            return Err(Error::new_spanned(name, msg));
        }
        let (value, ty) = self.expr(binding.value)?;
        if let ir::Expr::Local(earlier) = value {
            let msg = format!(
                "`{name}` would be another name for `{}`: use `{}` itself",
                self.lets[earlier].0, self.lets[earlier].0
            );
            return Err(Error::new_spanned(binding.value, msg));
        }
        self.lets.push((name.clone(), value, ty));
        Ok(())
    }

    /// A bare name: a `let` binding, a parameter, or an error saying what the name is.
    fn name(&self, name: &Ident) -> Result<Lowered> {
        if let Some(i) = self.lets.iter().position(|(bound, _, _)| bound == name) {
            return Ok((ir::Expr::Local(i), self.lets[i].2));
        }
        if let Some(i) = self.params.iter().position(|p| p == name) {
            return Ok((ir::Expr::Param(i), Ty::Scalar));
        }
        let msg = if self.fields.contains(name) {
            format!("`{name}` is a field: read it at an offset, e.g. `{}`", self.example_read(name))
        } else if is_function(name) {
            format!("`{name}` is a function: call it, e.g. `{name}(...)`")
        } else {
            self.unknown(name)
        };
        Err(Error::new_spanned(name, msg))
    }

    fn unknown(&self, name: &Ident) -> String {
        let list = |names: &[Ident]| names.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
        let params = if self.params.is_empty() {
            format!("and there are no parameters (declare one after `;`, e.g. `|...; {name}: T|`)")
        } else {
            format!("parameters `{}`", list(self.params))
        };
        format!("`{name}` is not a field or parameter of this stencil: fields are `{}`, {params}", list(self.fields))
    }

    fn example_read(&self, field: &Ident) -> String {
        let rank = self.rank.or(self.rank_hint).filter(|r| (1..=MAX_RANK).contains(r)).unwrap_or(2);
        format!("{field}[{}]", vec!["0"; rank].join(", "))
    }

    /// `u[a, b]`: a tap.
    fn read(&mut self, read: &ExprIndex) -> Result<Lowered> {
        no_attrs(&read.attrs)?;
        let name = match &*read.expr {
            Expr::Path(p) if p.attrs.is_empty() && p.qself.is_none() => p.path.get_ident(),
            _ => None,
        };
        let (Some(name), Some(offsets)) = (name, body::offsets(&read.index)) else {
            return Err(reject::expr(&Expr::Index(read.clone())));
        };
        let Some(field) = self.fields.iter().position(|f| f == name) else {
            let msg = if self.params.contains(name) {
                format!("`{name}` is a parameter, not a field: it cannot be indexed")
            } else {
                self.unknown(name)
            };
            return Err(Error::new_spanned(name, msg));
        };
        let offset = offsets.iter().map(offset).collect::<Result<Vec<_>>>()?;
        self.check_rank(name, offsets, read)?;
        Ok((ir::Expr::Tap(self.tap(Tap { field, offset }, read)?), Ty::Scalar))
    }

    /// The number of `tap`, a new one when it was not read before.
    fn tap(&mut self, tap: Tap, at: impl ToTokens) -> Result<usize> {
        Ok(match self.taps.iter().position(|t| *t == tap) {
            Some(k) => k,
            None if self.taps.len() == MAX_TAPS => {
                let msg = format!(
                    "a stencil reads at most {MAX_TAPS} distinct (field, offset) points, and this read is one more: \
                     split the update into two stencils"
                );
                return Err(Error::new_spanned(at, msg));
            }
            None => {
                self.taps.push(tap);
                self.taps.len() - 1
            }
        })
    }

    fn check_rank(&mut self, name: &Ident, offsets: &Punctuated<Expr, Token![,]>, read: &ExprIndex) -> Result<()> {
        let n = offsets.len();
        let msg = if n == 0 {
            format!("`{name}` is read with no offsets: give one per axis, e.g. `{}`", self.example_read(name))
        } else if n > MAX_RANK {
            format!("`{name}` is read with {n} offsets: a stencil has rank 1 to {MAX_RANK}")
        } else {
            match self.rank {
                None => {
                    self.rank = Some(n);
                    return Ok(());
                }
                Some(rank) if rank == n => return Ok(()),
                Some(rank) => format!(
                    "`{name}` is read with {n} indices here but {rank} before: \
                     every read of every field has the rank of the stencil"
                ),
            }
        };
        Err(Error::new_spanned(read, msg))
    }

    /// `f(args)`: a math function, `powi` or `select`.
    fn call(&mut self, call: &ExprCall) -> Result<Lowered> {
        no_attrs(&call.attrs)?;
        let name = match &*call.func {
            Expr::Path(p) if p.attrs.is_empty() && p.qself.is_none() => p.path.get_ident(),
            _ => None,
        };
        let Some(name) = name else {
            if !matches!(&*call.func, Expr::Path(_)) {
                // A closure or block called in place gets its own, more specific error.
                self.expr(&call.func)?;
            }
            let msg = format!(
                "`{}` cannot be called in a stencil body: it may call {FUNCTIONS}",
                call.func.to_token_stream()
            );
            return Err(Error::new_spanned(&call.func, msg));
        };
        let args: Vec<&Expr> = call.args.iter().collect();
        match name.to_string().as_str() {
            "select" => {
                arity(name, 3, args.len(), call)?;
                let (c, ct) = self.expr(args[0])?;
                typing::select_condition(ct, args[0])?;
                let (a, at) = self.expr(args[1])?;
                typing::select_branch(at, args[1])?;
                let (b, bt) = self.expr(args[2])?;
                typing::select_branch(bt, args[2])?;
                Ok((ir::Expr::Select(boxed(c), boxed(a), boxed(b)), Ty::Scalar))
            }
            "powi" => {
                arity(name, 2, args.len(), call)?;
                self.powi(args[0], args[1])
            }
            "laplace" | "diff" | "diff_half" => self.finite_difference(name, &args, call),
            text => match Func::from_name(text) {
                Some(func) => {
                    arity(name, func.arity(), args.len(), call)?;
                    self.apply(func, &args)
                }
                None => {
                    let msg = if self.fields.contains(name) {
                        format!("`{name}` is a field: read it with brackets, e.g. `{}`", self.example_read(name))
                    } else if self.params.contains(name) {
                        format!("`{name}` is a parameter, not a function: it cannot be called")
                    } else {
                        format!("unknown function `{name}`: a stencil body may call {FUNCTIONS}")
                    };
                    Err(Error::new_spanned(name, msg))
                }
            },
        }
    }

    /// `x.f(args)`: the method style of a math function or `powi`.
    fn method(&mut self, call: &ExprMethodCall) -> Result<Lowered> {
        no_attrs(&call.attrs)?;
        let name = &call.method;
        let text = name.to_string();
        let func = Func::from_name(&text);
        if func.is_none() && text != "powi" {
            let msg = format!("unknown method `{name}`: a stencil body may call the methods {METHODS}");
            return Err(Error::new_spanned(name, msg));
        }
        if let Some(turbofish) = &call.turbofish {
            let msg = format!("`{name}` takes no generic arguments in a stencil body");
            return Err(Error::new_spanned(turbofish, msg));
        }
        let args: Vec<&Expr> = std::iter::once(&*call.receiver).chain(&call.args).collect();
        match func {
            Some(func) => {
                arity(name, func.arity(), args.len(), call)?;
                self.apply(func, &args)
            }
            None => {
                arity(name, 2, args.len(), call)?;
                self.powi(args[0], args[1])
            }
        }
    }

    fn apply(&mut self, func: Func, args: &[&Expr]) -> Result<Lowered> {
        let mut lowered = Vec::with_capacity(args.len());
        for arg in args {
            let (x, ty) = self.expr(arg)?;
            typing::argument(ty, arg, func.name())?;
            lowered.push(x);
        }
        Ok((ir::Expr::Call(func, lowered), Ty::Scalar))
    }

    fn powi(&mut self, base: &Expr, exponent: &Expr) -> Result<Lowered> {
        let (x, ty) = self.expr(base)?;
        typing::argument(ty, base, "powi")?;
        let n = int_literal(exponent).and_then(|n| i32::try_from(n).ok()).ok_or_else(|| {
            let msg = format!(
                "`powi` takes an integer literal exponent, e.g. `powi(x, 2)` or `x.powi(-1)`; `{}` is not one \
                 (the exponent is fixed at compile time)",
                exponent.to_token_stream()
            );
            Error::new_spanned(exponent, msg)
        })?;
        Ok((ir::Expr::Powi(boxed(x), n), Ty::Scalar))
    }
}

/// Whether `name` is a function of the stencil language (so not a binding's name).
fn is_function(name: &Ident) -> bool {
    Func::from_name(&name.to_string()).is_some()
        || ["powi", "select", "laplace", "diff", "diff_half"].iter().any(|f| name == f)
}

/// How a binary operator lowers.
enum BinKind {
    Arith(Arith),
    Cmp(Cmp),
    Logic(Logic),
}

impl BinKind {
    fn of(op: &BinOp) -> Result<BinKind> {
        Ok(match op {
            BinOp::Add(_) => BinKind::Arith(Arith::Add),
            BinOp::Sub(_) => BinKind::Arith(Arith::Sub),
            BinOp::Mul(_) => BinKind::Arith(Arith::Mul),
            BinOp::Div(_) => BinKind::Arith(Arith::Div),
            BinOp::Lt(_) => BinKind::Cmp(Cmp::Lt),
            BinOp::Le(_) => BinKind::Cmp(Cmp::Le),
            BinOp::Gt(_) => BinKind::Cmp(Cmp::Gt),
            BinOp::Ge(_) => BinKind::Cmp(Cmp::Ge),
            BinOp::Eq(_) => BinKind::Cmp(Cmp::Eq),
            BinOp::Ne(_) => BinKind::Cmp(Cmp::Ne),
            BinOp::And(_) => BinKind::Logic(Logic::And),
            BinOp::Or(_) => BinKind::Logic(Logic::Or),
            other => return Err(reject::bin_op(other)),
        })
    }
}

fn no_attrs(attrs: &[syn::Attribute]) -> Result<()> {
    attrs.first().map_or(Ok(()), |a| Err(reject::attribute(a)))
}

fn arity(name: &Ident, want: usize, got: usize, call: impl ToTokens) -> Result<()> {
    if want == got {
        return Ok(());
    }
    let plural = if want == 1 { "" } else { "s" };
    let msg = format!("`{name}` takes {want} argument{plural}, but {got} are given here");
    Err(Error::new_spanned(call, msg))
}

/// An unsuffixed (or `i32`-suffixed) integer literal, optionally negated.
fn int_literal(e: &Expr) -> Option<i64> {
    match e {
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), attrs }) if attrs.is_empty() => {
            if !matches!(i.suffix(), "" | "i32") {
                return None;
            }
            i.base10_parse::<i64>().ok()
        }
        Expr::Unary(syn::ExprUnary { op: UnOp::Neg(_), expr, attrs }) if attrs.is_empty() => match &**expr {
            Expr::Lit(_) | Expr::Group(_) => int_literal(expr).map(|n| -n),
            _ => None,
        },
        Expr::Group(g) => int_literal(&g.expr),
        _ => None,
    }
}

/// One offset of a read: an integer literal of magnitude at most [`MAX_OFFSET`].
fn offset(e: &Expr) -> Result<i32> {
    let Some(value) = int_literal(e) else {
        let msg = format!(
            "stencil offsets must be integer literals; `{}` is not (a stencil reads its fields at \
             offsets fixed at compile time)",
            e.to_token_stream()
        );
        return Err(Error::new_spanned(e, msg));
    };
    if value.abs() > MAX_OFFSET {
        let msg = format!(
            "the offset {value} is too large: stencil offsets are at most {MAX_OFFSET} in magnitude \
             (the halo a backend provides is as wide as the largest offset)"
        );
        return Err(Error::new_spanned(e, msg));
    }
    Ok(i32::try_from(value).expect("at most MAX_OFFSET in magnitude"))
}
