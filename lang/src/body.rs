//! The body's tokens: multi-index reads made parseable, then parsed as one Rust expression.

use proc_macro2::{Delimiter, Group, Ident, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Expr, Result, Token};

/// Name of the call that wraps the offsets of a read after `rewrite_indices`.
const INDEX_MARKER: &str = "__cnda_idx";

/// The parsed body, and any tokens after its expression (an error, reported after the body's own).
pub struct Body {
    /// The expression, with every `[a, b]` read as `[__cnda_idx(a, b)]`.
    pub expr: Expr,
    /// Tokens left after the expression (empty when the body is one expression).
    pub trailing: TokenStream,
}

/// Parses the body's tokens as one expression.
pub fn parse(tokens: TokenStream) -> Result<Body> {
    let parser = |input: ParseStream| Ok(Body { expr: input.parse()?, trailing: input.parse()? });
    parser.parse2(rewrite_indices(tokens))
}

/// Rewrites every `[...]` to `[__cnda_idx(...)]`. Rust has no `u[i, j]` syntax, so syn cannot parse
/// a read as written; rewritten, each read is an index expression whose index is a call of the
/// marker with the offsets as arguments. The new tokens carry the brackets' span, so errors still
/// point at the source.
fn rewrite_indices(tokens: TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Group(group) => {
                let inner = rewrite_indices(group.stream());
                let stream = if group.delimiter() == Delimiter::Bracket {
                    let mut args = Group::new(Delimiter::Parenthesis, inner);
                    args.set_span(group.span());
                    let marker = Ident::new(INDEX_MARKER, group.span());
                    [TokenTree::Ident(marker), TokenTree::Group(args)].into_iter().collect()
                } else {
                    inner
                };
                let mut out = Group::new(group.delimiter(), stream);
                out.set_span(group.span());
                TokenTree::Group(out)
            }
            other => other,
        })
        .collect()
}

/// The offsets of a read `u[a, b]` (given its index expression), or `None` if `index` did not come
/// from `rewrite_indices`.
pub fn offsets(index: &Expr) -> Option<&Punctuated<Expr, Token![,]>> {
    match index {
        Expr::Call(call) => match &*call.func {
            Expr::Path(p) if p.path.is_ident(INDEX_MARKER) => Some(&call.args),
            _ => None,
        },
        _ => None,
    }
}

/// The number of indices of the first read of a field in the source, found on the raw tokens so
/// that an error met before any read can still show a read of the right rank.
pub fn first_rank(tokens: &TokenStream, fields: &[Ident]) -> Option<usize> {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match (tree, trees.get(i + 1)) {
            (TokenTree::Ident(name), Some(TokenTree::Group(g)))
                if g.delimiter() == Delimiter::Bracket && fields.contains(name) =>
            {
                return Some(count_indices(g.stream()));
            }
            (TokenTree::Group(g), _) => {
                if let Some(rank) = first_rank(&g.stream(), fields) {
                    return Some(rank);
                }
            }
            _ => {}
        }
    }
    None
}

/// Comma-separated non-empty segments at the top level of `tokens`.
fn count_indices(tokens: TokenStream) -> usize {
    let mut count = 0;
    let mut segment_empty = true;
    for tree in tokens {
        match tree {
            TokenTree::Punct(p) if p.as_char() == ',' => {
                count += usize::from(!segment_empty);
                segment_empty = true;
            }
            _ => segment_empty = false,
        }
    }
    count + usize::from(!segment_empty)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn ts(s: &str) -> TokenStream {
        s.parse().unwrap()
    }

    #[test]
    fn reads_become_marker_calls() {
        let body = parse(ts("u[0, -1] + v[2]")).unwrap();
        assert!(body.trailing.is_empty());
        let Expr::Binary(b) = &body.expr else { panic!("not a binary expression") };
        let Expr::Index(read) = &*b.left else { panic!("not a read") };
        let args = offsets(&read.index).unwrap();
        assert_eq!(args.len(), 2);
        assert_eq!(quote!(#args).to_string(), "0 , - 1");
    }

    #[test]
    fn nested_groups_are_rewritten() {
        let out = rewrite_indices(ts("(u[1]) * [2]"));
        assert_eq!(out.to_string(), "(u [__cnda_idx (1)]) * [__cnda_idx (2)]");
    }

    #[test]
    fn trailing_tokens_are_kept() {
        let body = parse(ts("u[0]; 1")).unwrap();
        assert_eq!(body.trailing.to_string(), "; 1");
    }

    #[test]
    fn first_rank_finds_the_first_field_read() {
        let fields = [Ident::new("u", proc_macro2::Span::call_site())];
        assert_eq!(first_rank(&ts("dt * (x[1] + u[1, 2, 3])"), &fields), Some(3));
        assert_eq!(first_rank(&ts("u[0, 0,]"), &fields), Some(2));
        assert_eq!(first_rank(&ts("u + 1"), &fields), None);
    }
}
