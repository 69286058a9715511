//! The CPU's kernel for expressions that are data at run time (`TextStencil`): the checked nodes
//! compiled, once per call, into a short program over blocks of points. Each operation is one
//! loop over a block (vectorized under the SIMD dispatch), operands are blocks in scratch slots,
//! taps read in place from their fields along a contiguous lane, or scalars (parameters,
//! literals, and operations of scalars only, computed once per call). The operations are the
//! ones `CheckedExpr::eval` defines, in its order, so the values equal a `stencil!` of the same
//! text bit for bit.

use core::marker::PhantomData;

use super::expression::{too_many, MAX_FIELDS, OPERANDS};
use super::lanes::Lane;
use super::simd::{Isa, Kernel};
use crate::error::{Error, Result};
use crate::kernel::expr::{powi, Binary, CheckedExpr, ExprData, Node, Scalar, Unary, MAX_OUTPUTS};
use crate::kernel::{Cpu, Desc};

/// The bytes of one block of a slot: the points one operation runs over at once (128 `f64`,
/// 256 `f32`). A program's live slots stay in the L1 cache.
const BLOCK_BYTES: usize = 4096;

/// Where an operation's operand comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Src {
    /// A block of scratch slot `s`.
    Slot(usize),
    /// Tap `k`, read in place (or gathered, along a strided lane).
    Tap(usize),
    /// Scalar `i` of the program.
    Scalar(usize),
}

/// One operation of a program, writing the block of slot `dst`. Conditions are numbers: one or
/// zero.
#[derive(Clone, Copy, Debug)]
enum Op {
    Unary(Unary, usize, Src),
    Binary(Binary, usize, Src, Src),
    Select(usize, Src, Src, Src),
    Powi(usize, Src, i32),
}

/// An expression compiled for blocks: its operations, its scalars, how many slots they use, and
/// where each output's value is.
#[derive(Debug)]
struct Program<T> {
    ops: Vec<Op>,
    scalars: Vec<T>,
    slots: usize,
    values: Vec<Src>,
}

/// The program of `expr` with parameters `params`. A slot is reused once the last operation
/// reading it has run; an operation never writes a slot it reads (so its loops see no aliasing).
fn compile<T: Scalar, const N: usize>(expr: &CheckedExpr<N>, params: &[T]) -> Program<T> {
    let nodes = expr.nodes();
    let mut last = vec![0usize; nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        for a in node.operands() {
            last[a] = i;
        }
    }
    for &v in expr.values() {
        last[v] = usize::MAX;
    }
    let mut program = Program { ops: Vec::new(), scalars: Vec::new(), slots: 0, values: Vec::new() };
    let mut free: Vec<usize> = Vec::new();
    let mut src: Vec<Src> = Vec::with_capacity(nodes.len());
    for (i, node) in nodes.iter().enumerate() {
        let scalar = |program: &mut Program<T>, x: T| {
            program.scalars.push(x);
            Src::Scalar(program.scalars.len() - 1)
        };
        let s = match *node {
            Node::Tap(k) => Src::Tap(k),
            Node::Param(p) => scalar(&mut program, params[p]),
            Node::Lit(lit) => scalar(&mut program, <T as Scalar>::literal(lit.f64, lit.f32)),
            _ => {
                let operands: Vec<Src> = node.operands().map(|a| src[a]).collect();
                if let Some(x) = fold(node, &operands, &program.scalars) {
                    scalar(&mut program, x)
                } else {
                    let dst = free.pop().unwrap_or_else(|| {
                        program.slots += 1;
                        program.slots - 1
                    });
                    program.ops.push(match *node {
                        Node::Unary(op, _) => Op::Unary(op, dst, operands[0]),
                        Node::Binary(op, _, _) => Op::Binary(op, dst, operands[0], operands[1]),
                        Node::Select(..) => Op::Select(dst, operands[0], operands[1], operands[2]),
                        Node::Powi(_, n) => Op::Powi(dst, operands[0], n),
                        Node::Tap(_) | Node::Param(_) | Node::Lit(_) => unreachable!("leaves take no slot"),
                    });
                    // Freed after `dst` is taken, so `dst` is none of this operation's operands.
                    let mut done: Vec<usize> = node.operands().filter(|&a| last[a] == i).collect();
                    done.dedup();
                    for a in done {
                        if let Src::Slot(s) = src[a] {
                            if !free.contains(&s) {
                                free.push(s);
                            }
                        }
                    }
                    Src::Slot(dst)
                }
            }
        };
        src.push(s);
    }
    program.values = expr.values().iter().map(|&v| src[v]).collect();
    program
}

/// The value of an operation whose operands are all scalars, computed once.
fn fold<T: Scalar>(node: &Node, operands: &[Src], scalars: &[T]) -> Option<T> {
    let mut values = [T::ZERO; 3];
    for (v, s) in values.iter_mut().zip(operands) {
        match s {
            Src::Scalar(i) => *v = scalars[*i],
            Src::Slot(_) | Src::Tap(_) => return None,
        }
    }
    let [a, b, c] = values;
    Some(match *node {
        Node::Unary(op, _) => unary(op, a),
        Node::Binary(op, _, _) => binary(op, a, b),
        Node::Select(..) => select(a, b, c),
        Node::Powi(_, n) => powi(a, n),
        Node::Tap(_) | Node::Param(_) | Node::Lit(_) => return None,
    })
}

/// A condition as a number.
#[inline(always)]
fn truth<T: Scalar>(c: bool) -> T {
    <T as Scalar>::select(c, T::ONE, T::ZERO)
}

#[inline(always)]
fn unary<T: Scalar>(op: Unary, x: T) -> T {
    match op {
        Unary::Neg => -x,
        Unary::Not => truth(x == T::ZERO),
        Unary::Sqrt => <T as Scalar>::sqrt(x),
        Unary::Exp => <T as Scalar>::exp(x),
        Unary::Ln => <T as Scalar>::ln(x),
        Unary::Sin => <T as Scalar>::sin(x),
        Unary::Cos => <T as Scalar>::cos(x),
        Unary::Tanh => <T as Scalar>::tanh(x),
        Unary::Abs => <T as Scalar>::abs(x),
        Unary::Floor => <T as Scalar>::floor(x),
        Unary::Flush => <T as Scalar>::flush(x),
    }
}

#[inline(always)]
fn binary<T: Scalar>(op: Binary, a: T, b: T) -> T {
    match op {
        Binary::Add => a + b,
        Binary::Sub => a - b,
        Binary::Mul => a * b,
        Binary::Div => a / b,
        Binary::Min => <T as Scalar>::min(a, b),
        Binary::Max => <T as Scalar>::max(a, b),
        Binary::Lt => truth(a < b),
        Binary::Le => truth(a <= b),
        Binary::Gt => truth(a > b),
        Binary::Ge => truth(a >= b),
        Binary::Eq => truth(a == b),
        Binary::Ne => truth(a != b),
        Binary::And => truth(a != T::ZERO && b != T::ZERO),
        Binary::Or => truth(a != T::ZERO || b != T::ZERO),
    }
}

#[inline(always)]
fn select<T: Scalar>(c: T, a: T, b: T) -> T {
    <T as Scalar>::select(c != T::ZERO, a, b)
}

/// An operand of one block, resolved: `n` points in place, or one scalar for all.
#[derive(Clone, Copy)]
enum In<'a, T> {
    Block(&'a [T]),
    Value(T),
}

impl<T: Copy> In<'_, T> {
    #[inline(always)]
    fn at(self, i: usize) -> T {
        match self {
            In::Block(b) => b[i],
            In::Value(x) => x,
        }
    }
}

/// `d[i] = f(a[i])`, one loop per operand kind (so each vectorizes).
macro_rules! map1 {
    ($d:expr, $a:expr, |$x:ident| $f:expr) => {
        match $a {
            In::Block(a) => {
                for (d, &$x) in $d.iter_mut().zip(a) {
                    *d = $f;
                }
            }
            In::Value($x) => $d.fill($f),
        }
    };
}

/// `d[i] = f(a[i], b[i])`, one loop per pair of operand kinds.
macro_rules! map2 {
    ($d:expr, $a:expr, $b:expr, |$x:ident, $y:ident| $f:expr) => {
        match ($a, $b) {
            (In::Block(a), In::Block(b)) => {
                for ((d, &$x), &$y) in $d.iter_mut().zip(a).zip(b) {
                    *d = $f;
                }
            }
            (In::Block(a), In::Value($y)) => {
                for (d, &$x) in $d.iter_mut().zip(a) {
                    *d = $f;
                }
            }
            (In::Value($x), In::Block(b)) => {
                for (d, &$y) in $d.iter_mut().zip(b) {
                    *d = $f;
                }
            }
            (In::Value($x), In::Value($y)) => $d.fill($f),
        }
    };
}

/// One operation over a block: the operator chosen outside the loop.
#[inline(always)]
fn run_op<T: Scalar>(op: Op, d: &mut [T], ins: [In<'_, T>; 3]) {
    let [a, b, c] = ins;
    match op {
        Op::Unary(op, ..) => match op {
            Unary::Neg => map1!(d, a, |x| -x),
            Unary::Abs => map1!(d, a, |x| <T as Scalar>::abs(x)),
            Unary::Sqrt => map1!(d, a, |x| <T as Scalar>::sqrt(x)),
            Unary::Floor => map1!(d, a, |x| <T as Scalar>::floor(x)),
            Unary::Flush => map1!(d, a, |x| <T as Scalar>::flush(x)),
            op => map1!(d, a, |x| unary(op, x)),
        },
        Op::Binary(op, ..) => match op {
            Binary::Add => map2!(d, a, b, |x, y| x + y),
            Binary::Sub => map2!(d, a, b, |x, y| x - y),
            Binary::Mul => map2!(d, a, b, |x, y| x * y),
            Binary::Div => map2!(d, a, b, |x, y| x / y),
            Binary::Min => map2!(d, a, b, |x, y| <T as Scalar>::min(x, y)),
            Binary::Max => map2!(d, a, b, |x, y| <T as Scalar>::max(x, y)),
            Binary::Lt => map2!(d, a, b, |x, y| truth(x < y)),
            Binary::Le => map2!(d, a, b, |x, y| truth(x <= y)),
            Binary::Gt => map2!(d, a, b, |x, y| truth(x > y)),
            Binary::Ge => map2!(d, a, b, |x, y| truth(x >= y)),
            op => map2!(d, a, b, |x, y| binary(op, x, y)),
        },
        Op::Select(..) => match (a, b, c) {
            (In::Block(a), In::Block(b), In::Block(c)) => {
                for (((d, &x), &y), &z) in d.iter_mut().zip(a).zip(b).zip(c) {
                    *d = select(x, y, z);
                }
            }
            _ => {
                for (i, d) in d.iter_mut().enumerate() {
                    *d = select(a.at(i), b.at(i), c.at(i));
                }
            }
        },
        Op::Powi(_, _, n) => map1!(d, a, |x| powi(x, n)),
    }
}

/// The operands of operation `op`, in order, and the slot it writes.
fn operands(op: &Op) -> (usize, [Option<Src>; 3]) {
    match *op {
        Op::Unary(_, d, a) | Op::Powi(d, a, _) => (d, [Some(a), None, None]),
        Op::Binary(_, d, a, b) => (d, [Some(a), Some(b), None]),
        Op::Select(d, c, a, b) => (d, [Some(c), Some(a), Some(b)]),
    }
}

/// One call's sweep, as a SIMD-dispatched kernel over lanes of the outputs and the fields.
/// Safety (`Kernel::run`): as for `ExprStencilKernels::expression_data`.
struct DataSweep<'a, T: Scalar, const N: usize> {
    /// Absent outputs and fields repeat the first (walked, never read or written).
    operands: [Desc<Cpu, T, N>; OPERANDS],
    outputs: usize,
    /// Per tap: its field, and its flat offset in that field's strides.
    taps: &'a [(usize, isize)],
    program: &'a Program<T>,
}

impl<T: Scalar, const N: usize> Kernel for DataSweep<'_, T, N> {
    type Output = ();

    #[inline(always)]
    unsafe fn run<V: pulp::Simd>(self, _: V) {
        let strides = self.operands.map(|d| d.strides);
        let block = (BLOCK_BYTES / core::mem::size_of::<T>()).max(1);
        // The program's slots, then one per tap for a strided lane's gathers.
        let mut scratch = vec![T::ZERO; (self.program.slots + self.taps.len()) * block];
        let lanes = DataLanes { sweep: &self, scratch: &mut scratch, block, element: PhantomData };
        super::lanes::walk_lanes(self.operands[0].shape, strides, lanes);
    }
}

/// The lanes of [`DataSweep`], block by block.
struct DataLanes<'s, 'a, T: Scalar, const N: usize> {
    sweep: &'s DataSweep<'a, T, N>,
    scratch: &'s mut [T],
    block: usize,
    element: PhantomData<T>,
}

impl<T: Scalar, const N: usize> Lane<OPERANDS> for DataLanes<'_, '_, T, N> {
    #[inline(always)]
    fn run(&mut self, bases: [isize; OPERANDS], len: usize, steps: [isize; OPERANDS]) {
        let s = self.sweep;
        let program = s.program;
        let block = self.block;
        let contiguous = steps.iter().all(|&step| step == 1);
        let base = |o: usize| s.operands[o].handle.wrapping_offset(bases[o]);
        let mut start = 0;
        while start < len {
            let n = block.min(len - start);
            let (slots, gathered) = self.scratch.split_at_mut(program.slots * block);
            // Each tap's first point of the block.
            let tap_at = |k: usize| {
                let (f, delta) = s.taps[k];
                let o = MAX_OUTPUTS + f;
                base(o).cast_const().wrapping_offset(delta).wrapping_offset(start as isize * steps[o])
            };
            if !contiguous {
                for k in 0..s.taps.len() {
                    let (at, step) = (tap_at(k), steps[MAX_OUTPUTS + s.taps[k].0]);
                    for (i, g) in gathered[k * block..k * block + n].iter_mut().enumerate() {
                        // SAFETY: point `start + i` of the lane, whose tap lies inside its field
                        // (the kernel's contract).
                        *g = unsafe { *at.wrapping_offset(i as isize * step) };
                    }
                }
            }
            let slots_at = slots.as_mut_ptr();
            let resolve = |src: Src| -> In<'_, T> {
                match src {
                    Src::Scalar(i) => In::Value(program.scalars[i]),
                    // SAFETY: slot `j`'s block lies in the scratch, which nothing else
                    // references while the block is read (the destination is another slot).
                    Src::Slot(j) => In::Block(unsafe { core::slice::from_raw_parts(slots_at.add(j * block), n) }),
                    Src::Tap(k) if contiguous => {
                        // SAFETY: along a contiguous lane, the tap's `n` points from the block's
                        // first are consecutive elements inside its field (the kernel's
                        // contract), which no output overlaps and nothing writes during the call.
                        In::Block(unsafe { core::slice::from_raw_parts(tap_at(k), n) })
                    }
                    Src::Tap(k) => In::Block(&gathered[k * block..k * block + n]),
                }
            };
            for op in &program.ops {
                let (dst, ins) = operands(op);
                let ins = ins.map(|src| src.map_or(In::Value(T::ZERO), resolve));
                // SAFETY: the destination slot is none of the operands' (`compile`), so this
                // block is the only reference to it.
                let d = unsafe { core::slice::from_raw_parts_mut(slots_at.add(dst * block), n) };
                run_op(*op, d, ins);
            }
            for (m, &value) in program.values.iter().enumerate().take(s.outputs) {
                let value = resolve(value);
                let out = base(m).wrapping_offset(start as isize * steps[m]);
                if contiguous {
                    // SAFETY: points `start..start + n` of a contiguous lane: consecutive,
                    // distinct, writable elements of the output (the kernel's contract), which
                    // overlap no field and no slot.
                    let out = unsafe { core::slice::from_raw_parts_mut(out, n) };
                    match value {
                        In::Block(b) => out.copy_from_slice(b),
                        In::Value(x) => out.fill(x),
                    }
                    continue;
                }
                for i in 0..n {
                    // SAFETY: point `start + i` of the lane, whose element of each output is
                    // distinct and writable (the kernel's contract).
                    unsafe { *out.wrapping_offset(i as isize * steps[m]) = value.at(i) };
                }
            }
            start += n;
        }
    }
}

/// `ExprStencilKernels::expression_data` on the CPU.
///
/// # Safety
///
/// As for `ExprStencilKernels::expression_data`.
pub(super) unsafe fn expression_data<T: Scalar, const N: usize>(
    data: &ExprData<N>,
    outputs: &[Desc<Cpu, T, N>],
    fields: &[Desc<Cpu, T, N>],
    params: &[T],
) -> Result<()> {
    const OP: &str = "stencil apply";
    let expr = data.expr();
    expr.check_operands(OP, fields.len(), outputs.len())?;
    if params.len() != expr.params() {
        return Err(Error::Layout {
            op: OP,
            reason: format!("the stencil has {} parameters; {} values were passed", expr.params(), params.len()),
            fix: "pass one value per parameter the stencil names, in its order",
        });
    }
    if fields.len() > MAX_FIELDS {
        let fix =
            "pass fewer fields (combine coefficient fields into one beforehand, or split the stencil into stages)";
        return Err(too_many("the number of input fields", fields.len(), MAX_FIELDS, fix));
    }
    let operands: [Desc<Cpu, T, N>; OPERANDS] = core::array::from_fn(|o| match o.checked_sub(MAX_OUTPUTS) {
        None => *outputs.get(o).unwrap_or(&outputs[0]),
        Some(f) => *fields.get(f).unwrap_or(&fields[0]),
    });
    let taps: Vec<(usize, isize)> = expr
        .taps()
        .iter()
        .map(|tap| {
            let strides = fields[tap.field].strides;
            // Wrapping: every tap of every visited point lies inside its field, so the true
            // offset fits and the wrapped value equals it.
            (tap.field, (0..N).fold(0isize, |acc, a| acc.wrapping_add(tap.offset[a].wrapping_mul(strides[a]))))
        })
        .collect();
    #[cfg(feature = "jit")]
    if N >= 1 && operands.iter().all(|d| d.strides[N - 1] == 1) {
        let deltas: Vec<isize> = taps.iter().map(|&(_, delta)| delta).collect();
        if let Some(row) = super::jit::row_function::<T, N>(data, &deltas) {
            // SAFETY: `row` is the expression's for these deltas (the taps' offsets in the
            // fields' strides), every operand's last axis is contiguous (just checked), the
            // trait's contract holds for the operands, and `params` has one element per
            // parameter (checked above).
            let lanes = unsafe { super::jit::JitLanes::new(row, &operands, params) };
            super::lanes::walk_lanes(operands[0].shape, operands.map(|d| d.strides), lanes);
            return Ok(());
        }
    }
    // SAFETY: the trait's contract, and the taps' offsets in the fields' strides.
    unsafe { interpret(expr, operands, outputs.len(), &taps, params) };
    Ok(())
}

/// The block interpreter over the operands (the outputs, then the fields, as `DataSweep` holds
/// them), each tap `(field, offset in its strides)`.
///
/// # Safety
///
/// As for `ExprStencilKernels::expression_data`; `taps` are `expr`'s, `params` one per
/// parameter.
unsafe fn interpret<T: Scalar, const N: usize>(
    expr: &CheckedExpr<N>,
    operands: [Desc<Cpu, T, N>; OPERANDS],
    outputs: usize,
    taps: &[(usize, isize)],
    params: &[T],
) {
    let program = compile(expr, params);
    let sweep = DataSweep { operands, outputs, taps, program: &program };
    // SAFETY: the caller's contract is the kernel's.
    unsafe { Isa::detect().run(sweep) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::expr::{Lit, Tap};

    fn expr(nodes: Vec<Node>, values: Vec<usize>) -> CheckedExpr<1> {
        let taps = vec![Tap { field: 0, offset: [-1] }, Tap { field: 0, offset: [1] }];
        CheckedExpr::from_outputs("test", 1, 2, taps, nodes, values).unwrap()
    }

    #[test]
    fn scalar_operations_fold_and_slots_are_reused_but_never_read_and_written_at_once() {
        // (t0 + t1) * (p0 * p1) - (t0 * 2): the parameters' product is one scalar.
        let nodes = vec![
            Node::Tap(0),
            Node::Tap(1),
            Node::Binary(Binary::Add, 0, 1),
            Node::Param(0),
            Node::Param(1),
            Node::Binary(Binary::Mul, 3, 4),
            Node::Binary(Binary::Mul, 2, 5),
            Node::Lit(Lit::new(2.0)),
            Node::Binary(Binary::Mul, 0, 7),
            Node::Binary(Binary::Sub, 6, 8),
        ];
        let program = compile(&expr(nodes, vec![9]), &[3.0f64, 0.5]);
        assert_eq!(program.scalars, [3.0, 0.5, 1.5, 2.0]);
        assert_eq!(program.ops.len(), 4, "{program:?}");
        for op in &program.ops {
            let (dst, ins) = operands(op);
            assert!(ins.iter().flatten().all(|&s| s != Src::Slot(dst)), "{op:?} writes what it reads");
        }
        assert_eq!(program.slots, 3, "{program:?}");
    }

    /// The interpreter along contiguous lanes (where the compiled rows take over for f32 and
    /// f64 when feature `jit` is on), against `CheckedExpr::eval`.
    #[test]
    fn contiguous_lanes_interpreted_equal_the_reference() {
        use crate::kernel::expr::{StencilParams, TapReader};
        use crate::Array;
        struct At<'a>(&'a [f64], usize);
        impl TapReader<f64> for At<'_> {
            fn tap(&self, k: usize) -> f64 {
                self.0[self.1 + k * 2]
            }
        }
        #[derive(Clone, Copy)]
        struct P(f64, f64);
        impl StencilParams<f64> for P {
            const LEN: usize = 2;
            fn get(&self, i: usize) -> f64 {
                [self.0, self.1][i]
            }
        }
        // Taps at -1 and +1: (t0 + t1) * (p0 * p1) - t0 * 2, then min with t1, selected on t0 < p0.
        let nodes = vec![
            Node::Tap(0),
            Node::Tap(1),
            Node::Binary(Binary::Add, 0, 1),
            Node::Param(0),
            Node::Param(1),
            Node::Binary(Binary::Mul, 3, 4),
            Node::Binary(Binary::Mul, 2, 5),
            Node::Lit(Lit::new(2.0)),
            Node::Binary(Binary::Mul, 0, 7),
            Node::Binary(Binary::Sub, 6, 8),
            Node::Binary(Binary::Min, 9, 1),
            Node::Binary(Binary::Lt, 0, 3),
            Node::Select(11, 10, 9),
        ];
        let e = expr(nodes, vec![12]);
        let len = 1500;
        let u = Array::<f64, 1>::from_fn([len + 2], |[i]| ((i * 37) % 101) as f64 * 0.05 - 2.0);
        let mut out = Array::<f64, 1>::zeros([len]);
        let field = u.desc().narrowed(0, 1, len);
        let operands: [Desc<Cpu, f64, 1>; OPERANDS] =
            core::array::from_fn(|o| if o < MAX_OUTPUTS { out.desc_mut() } else { field });
        // SAFETY: taps at -1 and +1 of points 1..=len lie in `u` (len + 2); `out` is distinct.
        unsafe { interpret(&e, operands, 1, &[(0, -1), (0, 1)], &[0.5, 3.0]) };
        for i in 0..len {
            let want = e.eval(&At(u.as_slice(), i), &P(0.5, 3.0))[0];
            assert_eq!(out[[i]].to_bits(), want.to_bits(), "point {i}");
        }
    }
}
