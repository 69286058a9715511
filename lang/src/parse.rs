//! The macro's input: the expression form `|fields; params| body` or the item form
//! `#[attrs] vis struct Name = |fields; params| body;`, split into a header and the body's tokens.

use std::collections::HashMap;

use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::ToTokens;
use syn::parse::{ParseStream, Parser};
use syn::{Attribute, Error, Result, Token, Type, Visibility};

use crate::ir::{Elem, Item, Subnormals};

/// A scalar parameter as declared: `name`, `name: T`, `name: f32` or `name: f64`.
pub struct Param {
    /// The parameter's name.
    pub name: Ident,
    /// `Generic` for `T` or no type, else the concrete type named.
    pub elem: Elem,
    /// The type as written, to point errors at (`None` when left out).
    pub ty: Option<Type>,
}

/// The macro input, parsed up to the body (which [`crate::body`] parses).
pub struct Input {
    /// `Some` for the item form.
    pub item: Option<Item>,
    /// Field names, in order.
    pub fields: Vec<Ident>,
    /// Parameters, in order.
    pub params: Vec<Param>,
    /// The body's tokens as written (the item form's final `;` removed).
    pub body: TokenStream,
    /// The closure as written, stringified.
    pub source: String,
    /// What the stencil stores for a subnormal value (`#[subnormals(..)]`).
    pub subnormals: Subnormals,
    /// The time levels it reads of each field it evolves (`#[levels(L)]`, 1 by default).
    pub levels: usize,
    /// The state fields a stage's values update (`#[writes(a, b)]`), when it is one.
    pub writes: Option<Vec<Ident>>,
    /// The wider type the stencil computes in (`#[compute(f32)]`), with the attribute.
    pub compute: Option<(Elem, Attribute)>,
}

const EXPECTED: &str = "expected a stencil: `|fields; params| body`, e.g. `|u; dt: T| u[0] * dt`, \
                        or an item `struct Name = |fields; params| body;`";

const NO_FIELD: &str = "a stencil needs at least one input field: name the fields between the bars, \
                        before the parameters, e.g. `|u, k; dt: T| ...`";

/// Parses the whole macro input.
pub fn input(tokens: TokenStream) -> Result<Input> {
    Parser::parse2(parse_input, tokens)
}

fn parse_input(input: ParseStream) -> Result<Input> {
    let mut attrs = input.call(Attribute::parse_outer)?;
    let subnormals = take_subnormals(&mut attrs)?;
    let levels = take_levels(&mut attrs)?;
    let writes = take_writes(&mut attrs)?;
    let compute = take_compute(&mut attrs)?;
    let item = if input.peek(Token![|]) || input.peek(Token![||]) {
        if let Some(attr) = attrs.first() {
            let msg = "the expression form takes only `#[subnormals(..)]`, `#[levels(..)]`, `#[writes(..)]` and \
                       `#[compute(..)]`: other attributes need the item form `#[attr] struct Name = |fields; params| body;`";
            return Err(Error::new_spanned(attr, msg));
        }
        None
    } else if input.peek(Token![pub]) || input.peek(Token![struct]) {
        Some(item_header(input, attrs)?)
    } else {
        return Err(input.error(EXPECTED));
    };
    // Everything from the opening bar on is the closure, kept verbatim for `SOURCE`.
    let mut closure: Vec<TokenTree> = input.fork().parse::<TokenStream>()?.into_iter().collect();
    let (fields, params, close) = closure_header(input)?;
    let mut body: Vec<TokenTree> = input.parse::<TokenStream>()?.into_iter().collect();
    if item.is_some() {
        match body.last() {
            Some(TokenTree::Punct(p)) if p.as_char() == ';' => {
                body.pop();
                closure.pop();
            }
            Some(last) => {
                return Err(Error::new(
                    last.span(),
                    "expected `;` after the stencil body: the item form is `struct Name = |fields; params| body;`",
                ));
            }
            None => {}
        }
    }
    if body.is_empty() {
        return Err(Error::new_spanned(close, "the stencil has no body: write an expression after the closing `|`"));
    }
    check_distinct(&fields, &params)?;
    Ok(Input {
        subnormals,
        levels,
        writes,
        compute,
        item,
        fields,
        params,
        body: body.into_iter().collect(),
        // One line: the compiler's printer may break long token streams over several.
        source: closure
            .into_iter()
            .collect::<TokenStream>()
            .to_string()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    })
}

fn item_header(input: ParseStream, attrs: Vec<Attribute>) -> Result<Item> {
    let vis: Visibility = input.parse()?;
    if !input.peek(Token![struct]) {
        return Err(input.error(EXPECTED));
    }
    input.parse::<Token![struct]>()?;
    let name: Ident = input.parse()?;
    if !input.peek(Token![=]) {
        return Err(input.error("expected `=` after the stencil's name: `struct Name = |fields; params| body;`"));
    }
    input.parse::<Token![=]>()?;
    if !input.peek(Token![|]) && !input.peek(Token![||]) {
        return Err(input.error("expected the stencil closure `|fields; params| body` after `=`"));
    }
    Ok(Item { attrs, vis, name })
}

const SUBNORMALS: &str = "expected `#[subnormals(flush)]` (the default: a subnormal value is stored as \
                          the zero of its sign) or `#[subnormals(keep)]` (stored as computed)";

/// Removes every `#[name(..)]` from `attrs` and returns the one given (with the attribute), as
/// `parse` reads its arguments; an attribute `parse` refuses is an error saying `expected`, a
/// second one an error asking to keep one.
fn take_attr<T>(
    attrs: &mut Vec<Attribute>,
    name: &str,
    expected: &str,
    parse: impl Fn(&Attribute) -> Option<T>,
) -> Result<Option<(T, Attribute)>> {
    let mut found: Option<(T, Attribute)> = None;
    let mut error: Option<Error> = None;
    attrs.retain(|attr| {
        if !attr.path().is_ident(name) {
            return true;
        }
        let problem = match (parse(attr), &found) {
            (None, _) => Some(expected.to_owned()),
            (Some(_), Some(_)) => Some(format!("`#[{name}(..)]` is given twice: keep one")),
            (Some(value), None) => {
                found = Some((value, attr.clone()));
                None
            }
        };
        if let (Some(msg), None) = (problem, &error) {
            error = Some(Error::new_spanned(attr, msg));
        }
        false
    });
    match error {
        Some(e) => Err(e),
        None => Ok(found),
    }
}

/// Removes `#[subnormals(flush | keep)]` from `attrs` (at most one), and says which it was.
fn take_subnormals(attrs: &mut Vec<Attribute>) -> Result<Subnormals> {
    let mode = take_attr(attrs, "subnormals", SUBNORMALS, |attr| {
        attr.parse_args::<Ident>().ok().and_then(|mode| match mode.to_string().as_str() {
            "flush" => Some(Subnormals::Flush),
            "keep" => Some(Subnormals::Keep),
            _ => None,
        })
    })?;
    Ok(mode.map_or(Subnormals::Flush, |(mode, _)| mode))
}

/// The most time levels a stencil may read of a field.
pub const MAX_LEVELS: usize = 8;

/// Removes `#[levels(L)]` from `attrs` (at most one): the time levels the stencil reads of each
/// field it evolves, its first fields in order (1 when absent).
fn take_levels(attrs: &mut Vec<Attribute>) -> Result<usize> {
    let expected = format!(
        "expected `#[levels(L)]` with L from 1 to {MAX_LEVELS}: the time levels the stencil reads of each \
         field it evolves (`#[levels(2)] |u, u_prev, m; c| ...` reads u now and one step before)"
    );
    let levels = take_attr(attrs, "levels", &expected, |attr| {
        let count = attr.parse_args::<syn::LitInt>().ok().and_then(|n| n.base10_parse::<usize>().ok());
        count.filter(|n| (1..=MAX_LEVELS).contains(n))
    })?;
    Ok(levels.map_or(1, |(n, _)| n))
}

const COMPUTE: &str = "expected `#[compute(f32)]` (16-bit or `f32` fields, computed in `f32`) or `#[compute(f64)]` \
                       (`f32` or `f64` fields, computed in `f64`): the type every operation rounds to, each value \
                       rounded to the fields' type once, when stored";

/// Removes `#[compute(f32 | f64)]` from `attrs` (at most one): the type the stencil computes in.
fn take_compute(attrs: &mut Vec<Attribute>) -> Result<Option<(Elem, Attribute)>> {
    take_attr(attrs, "compute", COMPUTE, |attr| match attr.parse_args::<Ident>() {
        Ok(id) if id == "f32" => Some(Elem::F32),
        Ok(id) if id == "f64" => Some(Elem::F64),
        _ => None,
    })
}

const WRITES: &str = "expected `#[writes(field, ..)]`: the fields of the state whose new values a stage computes, \
                      one per value, in the state's order (`#[writes(hx, hy)] |ez, hx, hy; c| (.., ..)`)";

/// Removes `#[writes(a, b)]` from `attrs` (at most one): the state fields a stage's values
/// update (checked against the fields in `lower`).
fn take_writes(attrs: &mut Vec<Attribute>) -> Result<Option<Vec<Ident>>> {
    let names = take_attr(attrs, "writes", WRITES, |attr| {
        attr.parse_args_with(syn::punctuated::Punctuated::<Ident, Token![,]>::parse_terminated)
            .ok()
            .filter(|names| !names.is_empty())
            .map(|names| names.into_iter().collect())
    })?;
    Ok(names.map(|(names, _)| names))
}

/// `|u, k; dt: T, c|`: fields, then optionally `;` and parameters. Returns the closing bar too.
fn closure_header(input: ParseStream) -> Result<(Vec<Ident>, Vec<Param>, Token![|])> {
    if input.peek(Token![||]) {
        return Err(input.error(NO_FIELD));
    }
    input.parse::<Token![|]>()?;
    let mut fields = Vec::new();
    while !input.peek(Token![;]) && !input.peek(Token![|]) {
        fields.push(input.parse::<Ident>()?);
        if input.parse::<Option<Token![,]>>()?.is_none() {
            break;
        }
    }
    if fields.is_empty() {
        return Err(input.error(NO_FIELD));
    }
    let mut params = Vec::new();
    if input.parse::<Option<Token![;]>>()?.is_some() {
        while !input.peek(Token![|]) {
            params.push(param(input)?);
            if input.parse::<Option<Token![,]>>()?.is_none() {
                break;
            }
        }
    }
    if !input.peek(Token![|]) {
        return Err(input.error("expected `,`, `;` or the closing `|` of the stencil's field and parameter list"));
    }
    Ok((fields, params, input.parse()?))
}

fn param(input: ParseStream) -> Result<Param> {
    let name: Ident = input.parse()?;
    if input.parse::<Option<Token![:]>>()?.is_none() {
        return Ok(Param { name, elem: Elem::Generic, ty: None });
    }
    let ty: Type = input.parse()?;
    let elem = match &ty {
        Type::Path(p) if p.qself.is_none() => match p.path.get_ident().map(ToString::to_string).as_deref() {
            Some("T") => Some(Elem::Generic),
            Some("f32") => Some(Elem::F32),
            Some("f64") => Some(Elem::F64),
            _ => None,
        },
        _ => None,
    };
    let Some(elem) = elem else {
        let msg = format!(
            "parameter `{name}` has type `{}`: a parameter's type is `T` (the stencil's element type), `f32` or `f64`",
            ty.to_token_stream()
        );
        return Err(Error::new_spanned(ty, msg));
    };
    Ok(Param { name, elem, ty: Some(ty) })
}

/// Fields and parameters share one namespace in the body, so every name is declared once.
fn check_distinct(fields: &[Ident], params: &[Param]) -> Result<()> {
    let mut seen: HashMap<String, &'static str> = HashMap::new();
    let names = fields.iter().map(|f| (f, "field")).chain(params.iter().map(|p| (&p.name, "parameter")));
    for (name, kind) in names {
        if let Some(first) = seen.insert(name.to_string(), kind) {
            let msg = format!(
                "`{name}` is declared twice (as a {first}, then as a {kind}): field and parameter names must be distinct"
            );
            return Err(Error::new_spanned(name, msg));
        }
    }
    Ok(())
}
