//! The row function of an expression in cranelift's IR: every node as an instruction on vectors
//! of 128 bits (four `f32`, two `f64`), [`UNROLL`] vectors a step, then one, then single points, each
//! operation the one `CheckedExpr::eval` defines (IEEE arithmetic, comparisons as masks, `min`
//! and `max` as Rust's, `flush` on the bits, `powi` as repeated products, the other functions
//! called per lane through Rust's own), so the values equal the compiled `stencil!`'s bit for bit.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::immediates::{Ieee32, Ieee64};
use cranelift_codegen::ir::{types, BlockArg, FuncRef, InstBuilder, MemFlags, Type, Value};
use cranelift_frontend::FunctionBuilder;

use crate::kernel::expr::{Binary, CheckedExpr, Node, Unary};

/// The vectors computed per step of the row's main loop (more in flight than one chain of
/// dependent operations keeps busy). Its product with the lanes is a power of two, which the
/// loop bounds take for a mask.
pub(super) const UNROLL: i64 = 4;

/// The largest `powi` exponent magnitude compiled (as that many products, in every copy of the
/// loop body); larger ones go to the interpreter.
pub(super) const MAX_POWI: u32 = 64;

/// The element type's IR types and sizes.
#[derive(Clone, Copy)]
pub(super) struct Elem {
    pub(super) scalar: Type,
    pub(super) vector: Type,
    pub(super) int_scalar: Type,
    pub(super) int_vector: Type,
    pub(super) lanes: i64,
    pub(super) size: i64,
    exponent: i64,
    sign: i64,
}

impl Elem {
    pub(super) const F32: Elem = Elem {
        scalar: types::F32,
        vector: types::F32X4,
        int_scalar: types::I32,
        int_vector: types::I32X4,
        lanes: 4,
        size: 4,
        exponent: 0x7f80_0000,
        sign: 0x8000_0000,
    };
    pub(super) const F64: Elem = Elem {
        scalar: types::F64,
        vector: types::F64X2,
        int_scalar: types::I64,
        int_vector: types::I64X2,
        lanes: 2,
        size: 8,
        exponent: 0x7ff0_0000_0000_0000,
        sign: i64::MIN,
    };
}

/// The functions of one operand that the row function calls, per lane: `exp ln sin cos tanh`.
pub(super) struct Calls {
    pub(super) exp: FuncRef,
    pub(super) ln: FuncRef,
    pub(super) sin: FuncRef,
    pub(super) cos: FuncRef,
    pub(super) tanh: FuncRef,
}

/// What the loops of the row function read: the fields' pointers at the lane's first point,
/// each tap's offset from them in bytes, and the values of the nodes computed once (parameters,
/// literals and operations of those only), scalar and splat.
pub(super) struct Frame<'a, const N: usize> {
    pub(super) expr: &'a CheckedExpr<N>,
    pub(super) fields: Vec<Value>,
    pub(super) outputs: Vec<Value>,
    pub(super) tap_bytes: Vec<i32>,
    pub(super) constants: Vec<Option<(Value, Value)>>,
    pub(super) elem: Elem,
    pub(super) calls: &'a Calls,
}

fn flags() -> MemFlags {
    let mut flags = MemFlags::new();
    // The caller's contract keeps every access inside its array.
    flags.set_notrap();
    flags
}

/// A literal of the element type.
fn constant(b: &mut FunctionBuilder, elem: Elem, f64: f64, f32: f32) -> Value {
    if elem.size == 4 {
        b.ins().f32const(Ieee32::with_bits(f32.to_bits()))
    } else {
        b.ins().f64const(Ieee64::with_bits(f64.to_bits()))
    }
}

/// The value of one operation of `node` on `operands` (numbers, or conditions: `i8` for single
/// points, lane masks for vectors), `vector` for a vector of the element type.
pub(super) fn operation(
    b: &mut FunctionBuilder,
    node: &Node,
    operands: &[Value],
    vector: bool,
    elem: Elem,
    calls: &Calls,
) -> Value {
    let ty = if vector { elem.vector } else { elem.scalar };
    // `c ? x : y` on numbers, where `c` is a condition of this width.
    let choose = |b: &mut FunctionBuilder, c: Value, x: Value, y: Value| {
        if vector {
            let mask = b.ins().bitcast(ty, MemFlags::new(), c);
            b.ins().bitselect(mask, x, y)
        } else {
            b.ins().select(c, x, y)
        }
    };
    match *node {
        Node::Unary(op, _) => {
            let x = operands[0];
            match op {
                Unary::Neg => b.ins().fneg(x),
                Unary::Not if vector => b.ins().bnot(x),
                Unary::Not => b.ins().bxor_imm(x, 1),
                Unary::Sqrt => b.ins().sqrt(x),
                Unary::Abs => b.ins().fabs(x),
                Unary::Floor => b.ins().floor(x),
                Unary::Flush => {
                    let int = if vector { elem.int_vector } else { elem.int_scalar };
                    let splat = |b: &mut FunctionBuilder, bits: i64| {
                        let s = b.ins().iconst(elem.int_scalar, bits);
                        if vector {
                            b.ins().splat(int, s)
                        } else {
                            s
                        }
                    };
                    let bits = b.ins().bitcast(int, MemFlags::new(), x);
                    let (exponent, sign, zero) = (splat(b, elem.exponent), splat(b, elem.sign), splat(b, 0));
                    let e = b.ins().band(bits, exponent);
                    let tiny = b.ins().icmp(IntCC::Equal, e, zero);
                    let signed = b.ins().band(bits, sign);
                    let flushed =
                        if vector { b.ins().bitselect(tiny, signed, bits) } else { b.ins().select(tiny, signed, bits) };
                    b.ins().bitcast(ty, MemFlags::new(), flushed)
                }
                Unary::Exp | Unary::Ln | Unary::Sin | Unary::Cos | Unary::Tanh => {
                    let f = match op {
                        Unary::Exp => calls.exp,
                        Unary::Ln => calls.ln,
                        Unary::Sin => calls.sin,
                        Unary::Cos => calls.cos,
                        _ => calls.tanh,
                    };
                    let call = |b: &mut FunctionBuilder, x: Value| {
                        let inst = b.ins().call(f, &[x]);
                        b.inst_results(inst)[0]
                    };
                    if vector {
                        let mut v = x;
                        for lane in 0..elem.lanes as u8 {
                            let at = b.ins().extractlane(x, lane);
                            let y = call(b, at);
                            v = b.ins().insertlane(v, y, lane);
                        }
                        v
                    } else {
                        call(b, x)
                    }
                }
            }
        }
        Node::Binary(op, _, _) => {
            let (x, y) = (operands[0], operands[1]);
            let compare = |b: &mut FunctionBuilder, cc: FloatCC| b.ins().fcmp(cc, x, y);
            match op {
                Binary::Add => b.ins().fadd(x, y),
                Binary::Sub => b.ins().fsub(x, y),
                Binary::Mul => b.ins().fmul(x, y),
                Binary::Div => b.ins().fdiv(x, y),
                // Rust's `min`/`max` (what `Scalar` calls): the other operand when the first is
                // NaN, the second when it is strictly smaller (larger), else the first.
                Binary::Min | Binary::Max => {
                    let cc = if op == Binary::Min { FloatCC::LessThan } else { FloatCC::GreaterThan };
                    let nan = b.ins().fcmp(FloatCC::Unordered, x, x);
                    let beyond = b.ins().fcmp(cc, y, x);
                    let r = choose(b, beyond, y, x);
                    choose(b, nan, y, r)
                }
                Binary::Lt => compare(b, FloatCC::LessThan),
                Binary::Le => compare(b, FloatCC::LessThanOrEqual),
                Binary::Gt => compare(b, FloatCC::GreaterThan),
                Binary::Ge => compare(b, FloatCC::GreaterThanOrEqual),
                Binary::Eq => compare(b, FloatCC::Equal),
                Binary::Ne => compare(b, FloatCC::NotEqual),
                Binary::And => b.ins().band(x, y),
                Binary::Or => b.ins().bor(x, y),
            }
        }
        Node::Select(..) => choose(b, operands[0], operands[1], operands[2]),
        Node::Powi(_, n) => {
            let x = operands[0];
            let mut p = if n == 0 { constant_of(b, elem, vector) } else { x };
            for _ in 1..n.unsigned_abs() {
                p = b.ins().fmul(p, x);
            }
            if n < 0 {
                let one = constant_of(b, elem, vector);
                b.ins().fdiv(one, p)
            } else {
                p
            }
        }
        Node::Tap(_) | Node::Param(_) | Node::Lit(_) => unreachable!("leaves are not operations"),
    }
}

/// One, of this width.
fn constant_of(b: &mut FunctionBuilder, elem: Elem, vector: bool) -> Value {
    let one = constant(b, elem, 1.0, 1.0);
    if vector {
        b.ins().splat(elem.vector, one)
    } else {
        one
    }
}

/// Every node's value at the points `offset + extra` bytes from the lane's first (a vector of
/// points or one), in the current block; the outputs stored there.
fn point<const N: usize>(b: &mut FunctionBuilder, frame: &Frame<'_, N>, offset: Value, extra: i32, vector: bool) {
    let elem = frame.elem;
    let ty = if vector { elem.vector } else { elem.scalar };
    let mut values: Vec<Value> = Vec::with_capacity(frame.expr.nodes().len());
    // Each tap loaded once per point, however many nodes read it.
    let mut loaded: Vec<Option<Value>> = vec![None; frame.expr.taps().len()];
    for (i, node) in frame.expr.nodes().iter().enumerate() {
        let value = if let Some((scalar, splat)) = frame.constants[i] {
            if vector {
                splat
            } else {
                scalar
            }
        } else if let Node::Tap(k) = *node {
            *loaded[k].get_or_insert_with(|| {
                let field = frame.fields[frame.expr.taps()[k].field];
                let at = b.ins().iadd(field, offset);
                b.ins().load(ty, flags(), at, frame.tap_bytes[k] + extra)
            })
        } else {
            let operands: Vec<Value> = node.operands().map(|a| values[a]).collect();
            operation(b, node, &operands, vector, elem, frame.calls)
        };
        values.push(value);
    }
    for (m, &v) in frame.expr.values().iter().enumerate() {
        let at = b.ins().iadd(frame.outputs[m], offset);
        b.ins().store(flags(), values[v], at, extra);
    }
}

/// The loops over a lane of `n` points (`n` a value of the entry block), from the current block
/// (the entry's, constants computed) to the return: [`UNROLL`] vectors a step, then one vector a
/// step, then one point a step. Each loop ends at `n` rounded down to a multiple of its step (a
/// power of two), so no access passes point `n - 1`.
pub(super) fn loops<const N: usize>(b: &mut FunctionBuilder, frame: &Frame<'_, N>, n: Value) {
    let elem = frame.elem;
    let unroll = UNROLL;
    debug_assert!((unroll * elem.lanes).count_ones() == 1, "the step is a power of two");
    let shift = elem.size.trailing_zeros() as i64;
    let index = types::I64;
    // Each loop: a header testing `i < end`, a body advancing `i` by `step` points.
    let mut i = b.ins().iconst(index, 0);
    let stages = [(unroll * elem.lanes, unroll, true), (elem.lanes, 1, true), (1, 1, false)];
    for (step, copies, vector) in stages {
        let end = if step == 1 { n } else { b.ins().band_imm(n, !(step - 1)) };
        let (header, body, next) = (b.create_block(), b.create_block(), b.create_block());
        b.append_block_param(header, index);
        b.append_block_param(next, index);
        b.ins().jump(header, &[BlockArg::Value(i)]);
        b.switch_to_block(header);
        let at = b.block_params(header)[0];
        let more = b.ins().icmp(IntCC::UnsignedLessThan, at, end);
        b.ins().brif(more, body, &[], next, &[BlockArg::Value(at)]);
        b.switch_to_block(body);
        let offset = b.ins().ishl_imm(at, shift);
        for copy in 0..copies {
            let extra = (copy * elem.lanes * elem.size) as i32;
            point(b, frame, offset, extra, vector);
        }
        let advanced = b.ins().iadd_imm(at, step);
        b.ins().jump(header, &[BlockArg::Value(advanced)]);
        b.switch_to_block(next);
        i = b.block_params(next)[0];
    }
    b.ins().return_(&[]);
}
