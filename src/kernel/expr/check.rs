//! The one check of a stencil's data before anything runs it: [`check`](fn@check) reads the stencil's
//! consts once and returns [`CheckedExpr`], the only form the code generators and the interpreter
//! take, so what was checked is what runs (never a second answer of the same trait).

use std::borrow::Cow;

use super::node::{Node, Unary};
use super::{Scalar, Stencil, StencilParams, Tap, Values, MAX_OUTPUTS};
use crate::error::{Error, Result};

/// The most nodes a stencil's expression may have: it bounds the generated source, its compile
/// time and the interpreter's scratch.
pub const MAX_NODES: usize = 4096;

/// A stencil's expression that [`check`](fn@check) accepted: every operand an earlier node, every tap and
/// parameter one that exists, conditions and numbers never mixed, each output's value a number
/// node (1 to [`MAX_OUTPUTS`] outputs), no NaN literal. Code generators and the interpreter take
/// only this.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckedExpr<const N: usize> {
    fields: usize,
    params: usize,
    taps: Cow<'static, [Tap<N>]>,
    nodes: Cow<'static, [Node]>,
    values: Cow<'static, [usize]>,
    conditions: Vec<bool>,
}

impl<const N: usize> CheckedExpr<N> {
    /// Checks an expression given as parts: `fields` input fields, `params` parameters, the
    /// taps and the nodes, whose last is the one output's value.
    ///
    /// # Errors
    ///
    /// `Error::Layout` (with `op` as the operation) naming the first part that is inconsistent.
    pub fn from_parts(
        op: &'static str,
        fields: usize,
        params: usize,
        taps: impl Into<Cow<'static, [Tap<N>]>>,
        nodes: impl Into<Cow<'static, [Node]>>,
    ) -> Result<Self> {
        let nodes = nodes.into();
        let last = vec![nodes.len().wrapping_sub(1)];
        Self::from_outputs(op, fields, params, taps, nodes, last)
    }

    /// [`CheckedExpr::from_parts`] with the outputs' values named: `values[m]` is the node
    /// holding output `m`'s value.
    ///
    /// # Errors
    ///
    /// As [`CheckedExpr::from_parts`].
    pub fn from_outputs(
        op: &'static str,
        fields: usize,
        params: usize,
        taps: impl Into<Cow<'static, [Tap<N>]>>,
        nodes: impl Into<Cow<'static, [Node]>>,
        values: impl Into<Cow<'static, [usize]>>,
    ) -> Result<Self> {
        let (taps, nodes, values) = (taps.into(), nodes.into(), values.into());
        let refuse = |reason: String| Error::Layout {
            op,
            reason,
            fix: "define the stencil with `stencil!`, which keeps its parts consistent",
        };
        if let Some(tap) = taps.iter().find(|tap| tap.field >= fields) {
            return Err(refuse(format!("a tap reads field {} of a stencil with {fields} fields", tap.field)));
        }
        let conditions = kinds(&nodes, taps.len(), params).map_err(|what| refuse(format!("its expression {what}")))?;
        outputs(&values, &conditions).map_err(refuse)?;
        Ok(CheckedExpr { fields, params, taps, nodes, values, conditions })
    }

    /// The number of input fields.
    pub fn fields(&self) -> usize {
        self.fields
    }

    /// The number of parameters.
    pub fn params(&self) -> usize {
        self.params
    }

    /// The taps: node `Tap(k)` reads `taps()[k]`.
    pub fn taps(&self) -> &[Tap<N>] {
        &self.taps
    }

    /// The nodes in evaluation order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Whether node `i` is a condition (a comparison or logic) rather than a number.
    pub fn is_condition(&self, i: usize) -> bool {
        self.conditions[i]
    }

    /// The node holding each output's value, in output order.
    pub fn values(&self) -> &[usize] {
        &self.values
    }

    /// The number of outputs.
    pub fn outputs(&self) -> usize {
        self.values.len()
    }

    /// Refuses a kernel call given other counts of fields and outputs than the expression's (a
    /// device kernel's parameters are generated for them).
    ///
    /// # Errors
    ///
    /// `Error::Layout` naming both counts.
    pub fn check_operands(&self, op: &'static str, fields: usize, outputs: usize) -> Result<()> {
        if fields == self.fields && outputs == self.outputs() {
            return Ok(());
        }
        Err(Error::Layout {
            op,
            reason: format!(
                "the stencil reads {} fields and writes {} outputs; {fields} and {outputs} were passed",
                self.fields,
                self.outputs()
            ),
            fix: "pass one array per field and per output the stencil names",
        })
    }

    /// Whether some tap reads field `f`.
    pub fn reads_field(&self, f: usize) -> bool {
        self.taps.iter().any(|tap| tap.field == f)
    }
}

/// Checks that `S` agrees with itself before any kernel runs it: a tap reads one of the
/// `FIELDS`, `Params` has one value per name in `PARAMS`, `Values` one per node of `VALUES`, and
/// `NODES` is a well-formed expression over those taps and parameters (see [`CheckedExpr`]). `stencil!` always passes; a
/// hand-written `Stencil` that does not is refused here rather than trusted by a kernel.
///
/// # Errors
///
/// `Error::Layout` naming what disagrees.
pub fn check<S: Stencil<T, N>, T: Scalar, const N: usize>(op: &'static str) -> Result<CheckedExpr<N>> {
    let params = <S::Params as StencilParams<S::Compute>>::LEN;
    if params != S::PARAMS.len() {
        return Err(Error::Layout {
            op,
            reason: format!("the stencil names {} parameters but its `Params` holds {params}", S::PARAMS.len()),
            fix: "define the stencil with `stencil!`, which keeps its parts consistent",
        });
    }
    let outputs = <S::Values as Values<T>>::LEN;
    if outputs != S::VALUES.len() {
        return Err(Error::Layout {
            op,
            reason: format!("the stencil names {} output values but its `Values` holds {outputs}", S::VALUES.len()),
            fix: "define the stencil with `stencil!`, which keeps its parts consistent",
        });
    }
    CheckedExpr::from_outputs(op, S::FIELDS.len(), params, S::TAPS, S::NODES, S::VALUES)
}

/// Whether `values` name 1 to [`MAX_OUTPUTS`] number nodes of an expression whose nodes are
/// conditions where `conditions` says; or what is wrong, as a sentence.
fn outputs(values: &[usize], conditions: &[bool]) -> core::result::Result<(), String> {
    if values.is_empty() || values.len() > MAX_OUTPUTS {
        return Err(format!("it has {} outputs; a stencil has 1 to {MAX_OUTPUTS}", values.len()));
    }
    for (m, &v) in values.iter().enumerate() {
        match conditions.get(v) {
            None => return Err(format!("output {m} is node {v} of {}", conditions.len())),
            Some(true) => {
                return Err(format!(
                    "output {m} is a condition (node {v}): a value must be a number (use `select(c, 1.0, 0.0)`)"
                ))
            }
            Some(false) => {}
        }
    }
    Ok(())
}

/// Per node, whether it is a condition; or what is wrong, as the end of a sentence that begins
/// "its expression".
fn kinds(nodes: &[Node], taps: usize, params: usize) -> core::result::Result<Vec<bool>, String> {
    if nodes.is_empty() {
        return Err("has no nodes: a stencil's value is one of its nodes".into());
    }
    if nodes.len() > MAX_NODES {
        return Err(format!("has {} nodes, more than the {MAX_NODES} a stencil may have", nodes.len()));
    }
    let mut conditions: Vec<bool> = Vec::with_capacity(nodes.len());
    for (i, node) in nodes.iter().enumerate() {
        if let Some(a) = node.operands().find(|&a| a >= i) {
            return Err(format!("has node {i} ({node:?}) reading node {a}, which does not come before it"));
        }
        // What each operand must be (a condition or not), and what the node gives.
        let wrong = |operand: usize, want: bool| conditions[operand] != want;
        let (bad, gives) = match *node {
            Node::Tap(k) if k >= taps => return Err(format!("has node {i} reading tap {k} of {taps}")),
            Node::Param(p) if p >= params => return Err(format!("has node {i} reading parameter {p} of {params}")),
            Node::Lit(lit) if lit.f64.is_nan() || lit.f32.is_nan() => {
                return Err(format!("has node {i}, a NaN literal, which no device language can spell as a constant"))
            }
            Node::Tap(_) | Node::Param(_) | Node::Lit(_) => (false, false),
            Node::Unary(op, a) => (wrong(a, op.on_conditions()), op == Unary::Not),
            Node::Binary(op, a, b) => {
                (wrong(a, op.on_conditions()) || wrong(b, op.on_conditions()), op.gives_condition())
            }
            Node::Select(c, a, b) => (wrong(c, true) || wrong(a, false) || wrong(b, false), false),
            Node::Powi(a, _) => (wrong(a, false), false),
        };
        if bad {
            return Err(format!(
                "has node {i} ({node:?}) mixing conditions and numbers: {}",
                "arithmetic, comparisons and functions take numbers, `!`, `&&` and `||` conditions, `select` a condition then two numbers"
            ));
        }
        conditions.push(gives);
    }
    Ok(conditions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::expr::{Binary, Lit};

    fn kinds_of(nodes: &[Node]) -> core::result::Result<Vec<bool>, String> {
        kinds(nodes, 2, 1)
    }

    #[test]
    fn well_formed_expressions_pass_with_their_kinds() {
        let nodes = [
            Node::Tap(0),
            Node::Param(0),
            Node::Binary(Binary::Lt, 0, 1),
            Node::Unary(Unary::Not, 2),
            Node::Lit(Lit::new(2.0)),
            Node::Select(3, 0, 4),
            Node::Powi(5, -3),
        ];
        assert_eq!(kinds_of(&nodes).unwrap(), [false, false, true, true, false, false, false]);
    }

    #[test]
    fn malformed_expressions_are_refused_with_the_node() {
        for (nodes, why) in [
            (vec![], "has no nodes"),
            (vec![Node::Tap(2)], "reading tap 2 of 2"),
            (vec![Node::Param(1)], "reading parameter 1 of 1"),
            (vec![Node::Tap(0), Node::Binary(Binary::Add, 0, 1)], "reading node 1, which does not come before"),
            (vec![Node::Unary(Unary::Neg, 5)], "reading node 5"),
            (vec![Node::Lit(Lit::new(f64::NAN))], "NaN literal"),
            (vec![Node::Tap(0), Node::Unary(Unary::Not, 0)], "mixing conditions and numbers"),
            (
                vec![Node::Tap(0), Node::Tap(1), Node::Binary(Binary::Lt, 0, 1), Node::Binary(Binary::Add, 2, 0)],
                "node 3",
            ),
            (vec![Node::Tap(0), Node::Select(0, 0, 0)], "mixing"),
        ] {
            let e = kinds_of(&nodes).unwrap_err();
            assert!(e.contains(why), "{nodes:?}: {e}");
        }
        assert!(kinds_of(&vec![Node::Tap(0); MAX_NODES + 1]).unwrap_err().contains("4097 nodes"));
    }

    #[test]
    fn outputs_are_one_to_eight_number_nodes() {
        let conditions = [false, false, true, false];
        assert!(outputs(&[3], &conditions).is_ok());
        assert!(outputs(&[0, 3, 0], &conditions).is_ok());
        for (values, why) in [
            (vec![], "0 outputs"),
            (vec![0; MAX_OUTPUTS + 1], "9 outputs"),
            (vec![0, 4], "output 1 is node 4 of 4"),
            (vec![2], "output 0 is a condition"),
        ] {
            let e = outputs(&values, &conditions).unwrap_err();
            assert!(e.contains(why), "{values:?}: {e}");
        }
        let taps: &'static [Tap<1>] = &[Tap { field: 0, offset: [0] }, Tap { field: 0, offset: [1] }];
        const ENDS_IN_A_CONDITION: &[Node] = &[Node::Tap(0), Node::Tap(1), Node::Binary(Binary::Ge, 0, 1)];
        let e = CheckedExpr::from_parts("test", 1, 0, taps, ENDS_IN_A_CONDITION).unwrap_err();
        assert!(e.to_string().contains("output 0 is a condition"), "{e}");
        let two = CheckedExpr::from_outputs("test", 1, 0, taps, &[Node::Tap(0), Node::Tap(1)][..], &[0, 1][..]);
        let two = two.unwrap();
        assert!(two.check_operands("test", 1, 2).is_ok());
        let e = two.check_operands("test", 1, 1).unwrap_err();
        assert!(e.to_string().contains("reads 1 fields and writes 2 outputs; 1 and 1 were passed"), "{e}");
    }
}
