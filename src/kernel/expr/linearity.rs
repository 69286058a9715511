//! Whether a stencil's value is linear in one of its fields: what a linear solve needs of an
//! operator written with `stencil!`, decided from the expression data alone (never by trying
//! values), so that a refusal can say which operation breaks it.

use super::check::CheckedExpr;
use super::node::{Binary, Node, Unary};

/// How one output's value depends on a field `u` (see [`CheckedExpr::linearity`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Linearity {
    /// `Σ_k c_k u[x + o_k]`, the coefficients `c_k` of the other fields and the parameters
    /// only: a linear operator on `u`.
    Linear,
    /// The value does not read `u` at all.
    Constant,
    /// A linear part plus a term without `u` (`u + f`): an affine map, `A u + g`.
    Affine,
    /// Not linear: node `node` (an index into the expression's nodes) combines `u` in a way no
    /// linear map does.
    Nonlinear {
        /// The first node that breaks linearity.
        node: usize,
        /// What it does, in words (`"multiplies two terms that both depend on the field"`).
        why: &'static str,
    },
}

/// A node's dependence on `u`, from the most to the least specific.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Zero whatever `u` is (a `0` literal, or a product with one).
    Zero,
    /// Independent of `u` (a condition as well as a number).
    Constant,
    /// Homogeneous linear in `u`.
    Linear,
    /// Linear plus a constant.
    Affine,
    /// Anything else, first at the node and for the reason given.
    Nonlinear(usize, &'static str),
}

use Kind::{Affine, Constant, Linear, Nonlinear, Zero};

impl Kind {
    fn reads_u(self) -> bool {
        !matches!(self, Zero | Constant)
    }

    /// The kind of `a + b`, `a − b`, and of a selection between `a` and `b`.
    fn sum(a: Kind, b: Kind) -> Kind {
        match (a, b) {
            (Nonlinear(..), _) => a,
            (_, Nonlinear(..)) => b,
            (Zero, x) | (x, Zero) => x,
            (Constant, Constant) => Constant,
            (Linear, Linear) => Linear,
            _ => Affine,
        }
    }
}

const PRODUCT: &str = "multiplies two terms that both depend on the field";
const DIVISOR: &str = "divides by a term that depends on the field";
const FUNCTION: &str =
    "applies a nonlinear function (sqrt, exp, abs, min, max, a power, ...) to a term that depends on the field";
const CONDITION: &str = "compares or selects on a term that depends on the field";

impl<const N: usize> CheckedExpr<N> {
    /// How output `output`'s value depends on field `field`, decided from the nodes: taps of
    /// `field` are linear, everything else constant; sums and selections (on conditions without
    /// `field`) of linear terms stay linear, as do products and quotients with constants, and
    /// negation; `Flush` keeps the kind (it rounds, as every operation does). Any other use of
    /// a term that reads `field` is nonlinear. A `field` the expression does not have is read by
    /// no tap: every output is [`Linearity::Constant`] in it.
    ///
    /// # Panics
    ///
    /// When `output` is not below [`CheckedExpr::outputs`].
    pub fn linearity(&self, output: usize, field: usize) -> Linearity {
        let mut kinds: Vec<Kind> = Vec::with_capacity(self.nodes().len());
        for (i, node) in self.nodes().iter().enumerate() {
            let at = |j: usize| kinds[j];
            let kind = match *node {
                Node::Tap(k) if self.taps()[k].field == field => Linear,
                Node::Tap(_) | Node::Param(_) => Constant,
                Node::Lit(lit) if lit.f64 == 0.0 => Zero,
                Node::Lit(_) => Constant,
                Node::Unary(Unary::Neg | Unary::Flush, a) => at(a),
                Node::Unary(_, a) => unchanged_or(at(a), i, FUNCTION),
                Node::Binary(Binary::Add | Binary::Sub, a, b) => Kind::sum(at(a), at(b)),
                Node::Binary(Binary::Mul, a, b) => product(at(a), at(b), i),
                Node::Binary(Binary::Div, a, b) => quotient(at(a), at(b), i),
                Node::Binary(op, a, b) => {
                    let why = if op.gives_condition() { CONDITION } else { FUNCTION };
                    unchanged_or(Kind::sum(at(a), at(b)), i, why)
                }
                Node::Select(c, a, b) => match at(c) {
                    Nonlinear(..) => at(c),
                    c if c.reads_u() => Nonlinear(i, CONDITION),
                    _ => Kind::sum(at(a), at(b)),
                },
                Node::Powi(a, 0) => unchanged_or(at(a), i, FUNCTION).max_constant(),
                Node::Powi(a, 1) => at(a),
                Node::Powi(a, _) => unchanged_or(at(a), i, FUNCTION),
            };
            kinds.push(kind);
        }
        match kinds[self.values()[output]] {
            Zero | Constant => Linearity::Constant,
            Linear => Linearity::Linear,
            Affine => Linearity::Affine,
            Nonlinear(node, why) => Linearity::Nonlinear { node, why },
        }
    }
}

impl Kind {
    /// `x^0` is one whatever `x` is (a nonlinear `x` stays refused: it reached this node first).
    fn max_constant(self) -> Kind {
        match self {
            Nonlinear(..) => self,
            _ => Constant,
        }
    }
}

/// The kind of an operation that keeps a constant constant and breaks anything else.
fn unchanged_or(a: Kind, node: usize, why: &'static str) -> Kind {
    match a {
        Nonlinear(..) => a,
        Zero | Constant => Constant,
        Linear | Affine => Nonlinear(node, why),
    }
}

fn product(a: Kind, b: Kind, node: usize) -> Kind {
    match (a, b) {
        (Nonlinear(..), _) => a,
        (_, Nonlinear(..)) => b,
        (Zero, _) | (_, Zero) => Zero,
        (Constant, x) | (x, Constant) => x,
        _ => Nonlinear(node, PRODUCT),
    }
}

fn quotient(a: Kind, b: Kind, node: usize) -> Kind {
    match (a, b) {
        (Nonlinear(..), _) => a,
        (_, Nonlinear(..)) => b,
        (_, Linear | Affine) => Nonlinear(node, DIVISOR),
        (Linear | Affine, Zero) => Nonlinear(node, "divides a term that depends on the field by zero"),
        (x, _) => x,
    }
}

#[cfg(test)]
mod tests {
    use super::super::node::{Lit, Node};
    use super::super::{CheckedExpr, Tap, TapReader};
    use super::*;
    use proptest::prelude::*;

    /// Taps 0 and 1 read the unknown (field 0), tap 2 a coefficient (field 1).
    const TAPS: [Tap<1>; 3] =
        [Tap { field: 0, offset: [0] }, Tap { field: 0, offset: [1] }, Tap { field: 1, offset: [0] }];

    struct At([f64; 3]);

    impl TapReader<f64> for At {
        fn tap(&self, k: usize) -> f64 {
            self.0[k]
        }
    }

    /// A random expression: each node an operation on earlier nodes (`check` refuses the
    /// ill-typed ones, which are skipped).
    fn node(i: usize, pick: u8, a: usize, b: usize, c: usize, x: f64) -> Node {
        let (a, b, c) = (a % i.max(1), b % i.max(1), c % i.max(1));
        match pick % 12 {
            _ if i == 0 => Node::Tap(a % 3),
            0 | 1 => Node::Tap(a % 3),
            2 => Node::Lit(Lit::new(if x < 0.2 { 0.0 } else { x })),
            3 => Node::Binary(Binary::Add, a, b),
            4 => Node::Binary(Binary::Sub, a, b),
            5 | 6 => Node::Binary(Binary::Mul, a, b),
            7 => Node::Binary(Binary::Div, a, b),
            8 => Node::Unary(if x < 0.5 { Unary::Neg } else { Unary::Exp }, a),
            9 => Node::Binary(Binary::Lt, a, b),
            10 => Node::Select(c, a, b),
            _ => Node::Powi(a, (x * 4.0) as i32),
        }
    }

    proptest! {
        /// What the analysis calls linear in the unknown is: `f(s u + v) = s f(u) + f(v)` at
        /// random points (to rounding); what it calls constant does not move with the unknown.
        #[test]
        fn what_is_called_linear_is_linear(
            parts in prop::collection::vec((any::<u8>(), 0usize..64, 0usize..64, 0usize..64, 0.0f64..1.0), 1..24),
            u in prop::array::uniform2(-2.0f64..2.0), v in prop::array::uniform2(-2.0f64..2.0),
            k in 0.5f64..2.0, s in -3.0f64..3.0,
        ) {
            let nodes: Vec<Node> = parts.iter().enumerate().map(|(i, &(p, a, b, c, x))| node(i, p, a, b, c, x)).collect();
            let Ok(expr) = CheckedExpr::from_parts("test", 2, 0, TAPS.to_vec(), nodes) else { return Ok(()) };
            let f = |u: [f64; 2]| expr.eval(&At([u[0], u[1], k]), &())[0];
            let (fu, fv, fsum) = (f(u), f(v), f([s * u[0] + v[0], s * u[1] + v[1]]));
            prop_assume!([fu, fv, fsum].iter().all(|y| y.is_finite() && y.abs() < 1e6));
            let tolerance = 1e-9 * (1.0 + fu.abs() * s.abs() + fv.abs() + fsum.abs());
            match expr.linearity(0, 0) {
                Linearity::Linear => prop_assert!((fsum - (s * fu + fv)).abs() <= tolerance, "{fsum} {fu} {fv}"),
                Linearity::Constant => prop_assert!(fu == fv && fv == fsum, "{fu} {fv} {fsum}"),
                Linearity::Affine => {
                    let f0 = f([0.0; 2]);
                    prop_assert!((fsum - f0 - (s * (fu - f0) + (fv - f0))).abs() <= tolerance + 1e-9 * f0.abs());
                }
                Linearity::Nonlinear { node, .. } => prop_assert!(node < expr.nodes().len()),
            }
        }
    }
}
