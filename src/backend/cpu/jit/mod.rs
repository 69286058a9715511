//! Expressions that are data at run time compiled to machine code (feature `jit`, cranelift):
//! one row function per expression, element type and set of tap offsets, computing a contiguous
//! lane of points in vectors (`emit.rs`). Compiled at first use (about a millisecond), kept for
//! the life of the process (a page or two of code per kind of call; at most [`MAX_ROWS`] in all,
//! [`MAX_SHAPES`] per expression) and shared by every thread, each of which remembers the last
//! one it used (the fused stepper calls the kernel once per hyperplane). The block interpreter
//! runs what this does not take: strided lanes, 16-bit elements, tap offsets past 2 GiB, `powi`
//! exponents past [`emit::MAX_POWI`], what passes the caps, and a host cranelift has no backend
//! for.

mod emit;

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use cranelift_codegen::ir::{AbiParam, InstBuilder, MemFlags, Signature};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Linkage, Module};

use super::expression::{MAX_FIELDS, OPERANDS};
use super::lanes::Lane;
use crate::element::DType;
use crate::kernel::expr::{ExprData, Node, Scalar, MAX_OUTPUTS};
use crate::kernel::{Cpu, Desc};
use emit::{Calls, Elem, Frame};

/// A compiled row: `row(fields, outputs, params, n)` computes points `0..n` of a contiguous lane,
/// `fields[f]` and `outputs[m]` pointing at the lane's first point, `params` at one element per
/// parameter.
type RowFn = unsafe extern "C" fn(*const *const u8, *const *mut u8, *const u8, usize);

/// The row functions of one expression and element type, by each tap's offset in elements (a
/// short list: one per shape of array the expression has run on).
type Rows = Vec<(Vec<isize>, Option<RowFn>)>;

/// The most row functions compiled in a process, and per expression and element type: past
/// them the interpreter runs (compiled code is never freed).
const MAX_ROWS: usize = 4096;
const MAX_SHAPES: usize = 64;

/// Every row function compiled so far, by the expression's key (equal expressions share their
/// code, whichever `TextStencil` holds them) and element type; `None` where compiling failed.
struct Cache {
    rows: HashMap<(String, DType), Rows>,
    compiled: usize,
    /// Every module compiled: the memory their functions live in, kept for the process.
    modules: Vec<Kept>,
}

/// A compiled module, kept (never used again, never dropped) so that the code of its function
/// stays mapped, and reachable, which a leak checker sees.
struct Kept(#[allow(dead_code)] Box<JITModule>);

// SAFETY: a kept module is never accessed again: moving it between threads inside the cache's
// mutex touches none of its state.
unsafe impl Send for Kept {}

fn cache() -> &'static Mutex<Cache> {
    static CODE: OnceLock<Mutex<Cache>> = OnceLock::new();
    CODE.get_or_init(|| Mutex::new(Cache { rows: HashMap::new(), compiled: 0, modules: Vec::new() }))
}

/// A thread's last lookup: the expression's id, the element type, the offsets, the answer.
type Last = Option<(u64, DType, Vec<isize>, Option<RowFn>)>;

thread_local! {
    static LAST: core::cell::RefCell<Last> = const { core::cell::RefCell::new(None) };
}

/// Whether `CNDA_JIT=off` asks for the interpreter (to compare, or to debug).
fn disabled() -> bool {
    static OFF: OnceLock<bool> = OnceLock::new();
    *OFF.get_or_init(|| std::env::var("CNDA_JIT").is_ok_and(|v| v == "off"))
}

/// The row function of `data` for elements `T` and taps `deltas` elements from the point, or
/// `None` where the interpreter runs it.
pub(super) fn row_function<T: Scalar, const N: usize>(data: &ExprData<N>, deltas: &[isize]) -> Option<RowFn> {
    let elem = match T::DTYPE {
        DType::F32 => Elem::F32,
        DType::F64 => Elem::F64,
        _ => return None,
    };
    if disabled() {
        return None;
    }
    let remembered = LAST.with_borrow(|last| match last {
        Some((id, dtype, d, row)) if *id == data.id() && *dtype == T::DTYPE && d == deltas => Some(*row),
        _ => None,
    });
    if let Some(row) = remembered {
        return row;
    }
    let row = shared_row(data, deltas, elem, T::DTYPE);
    LAST.set(Some((data.id(), T::DTYPE, deltas.to_vec(), row)));
    row
}

/// The process's row function of `data` for `dtype` and `deltas`, compiled (outside the lock)
/// where none is yet and the caps allow.
fn shared_row<const N: usize>(data: &ExprData<N>, deltas: &[isize], elem: Elem, dtype: DType) -> Option<RowFn> {
    let key = (data.key().to_string(), dtype);
    let lookup = |cache: &Cache| {
        cache.rows.get(&key).map(|rows| (rows.iter().find(|(d, _)| d == deltas).map(|r| r.1), rows.len()))
    };
    {
        let cache = cache().lock().unwrap_or_else(|e| e.into_inner());
        match lookup(&cache) {
            Some((Some(row), _)) => return row,
            Some((None, shapes)) if shapes >= MAX_SHAPES => return None,
            _ if cache.compiled >= MAX_ROWS => return None,
            _ => {}
        }
    }
    // Two threads may both compile it: the second's is kept unused (a page of code).
    let compiled = compile(data, deltas, elem);
    let mut cache = cache().lock().unwrap_or_else(|e| e.into_inner());
    let row = compiled.map(|(row, module)| {
        cache.modules.push(Kept(module));
        row
    });
    if let Some((Some(first), _)) = lookup(&cache) {
        return first;
    }
    cache.compiled += 1;
    cache.rows.entry(key).or_default().push((deltas.to_vec(), row));
    row
}

/// `s` in every lane of a vector: a number as itself, a condition (`0` or `1` in an `i8`) as a
/// lane mask of all ones or all zeros.
fn splat(
    b: &mut FunctionBuilder,
    elem: Elem,
    s: cranelift_codegen::ir::Value,
    condition: bool,
) -> cranelift_codegen::ir::Value {
    if condition {
        let all = b.ins().ineg(s);
        let wide = b.ins().sextend(elem.int_scalar, all);
        b.ins().splat(elem.int_vector, wide)
    } else {
        b.ins().splat(elem.vector, s)
    }
}

/// The lanes of one call, each computed by the row function (every operand's lane contiguous).
pub(super) struct JitLanes<'a, T: Scalar, const N: usize> {
    row: RowFn,
    operands: &'a [Desc<Cpu, T, N>; OPERANDS],
    params: &'a [T],
}

impl<'a, T: Scalar, const N: usize> JitLanes<'a, T, N> {
    /// The lanes of `operands` (the outputs, then the fields) computed by `row`.
    ///
    /// # Safety
    ///
    /// `row` is [`row_function`]'s for the expression and the taps' offsets in the fields'
    /// strides; every operand's last axis is contiguous (stride 1), so every lane is; the
    /// operands satisfy `ExprStencilKernels::expression_data`'s contract for that expression;
    /// `params` holds one element per parameter.
    pub(super) unsafe fn new(row: RowFn, operands: &'a [Desc<Cpu, T, N>; OPERANDS], params: &'a [T]) -> Self {
        JitLanes { row, operands, params }
    }
}

impl<T: Scalar, const N: usize> Lane<OPERANDS> for JitLanes<'_, T, N> {
    fn run(&mut self, bases: [isize; OPERANDS], len: usize, steps: [isize; OPERANDS]) {
        debug_assert!(steps.iter().all(|&s| s == 1), "compiled rows take contiguous lanes");
        let at = |o: usize| self.operands[o].handle.wrapping_offset(bases[o]);
        let fields: [*const u8; MAX_FIELDS] = core::array::from_fn(|f| at(MAX_OUTPUTS + f).cast_const().cast());
        let outputs: [*mut u8; MAX_OUTPUTS] = core::array::from_fn(|m| at(m).cast());
        // SAFETY: the row function reads, for points `0..len` of this lane, each tap at its
        // field's pointer plus the tap's offset (the deltas it was compiled for, in the fields'
        // strides), and writes each output's point; the lane is contiguous in every operand,
        // every tap of every point lies inside its field and the outputs' points are distinct,
        // writable and overlap no field; `params` holds one element per parameter (`new`'s
        // contract).
        unsafe { (self.row)(fields.as_ptr(), outputs.as_ptr(), self.params.as_ptr().cast(), len) }
    }
}

/// Rust's own functions of one operand, called per lane (the compiled `stencil!` calls them too),
/// and their symbols.
macro_rules! called {
    ($($name:ident: $t:ty => $f:ident),* $(,)?) => {
        $(
            extern "C" fn $name(x: $t) -> $t {
                <$t as Scalar>::$f(x)
            }
        )*
        /// The functions' symbols and addresses.
        fn functions() -> [(&'static str, *const u8); 10] {
            [$((concat!("cnda_", stringify!($name)), $name as *const u8)),*]
        }
    };
}

called! {
    exp_f32: f32 => exp, ln_f32: f32 => ln, sin_f32: f32 => sin, cos_f32: f32 => cos, tanh_f32: f32 => tanh,
    exp_f64: f64 => exp, ln_f64: f64 => ln, sin_f64: f64 => sin, cos_f64: f64 => cos, tanh_f64: f64 => tanh,
}

/// Compiles the row function (with the module holding its code), or `None` where cranelift cannot (no backend for this host) or a
/// tap's offset does not fit the instructions' 32-bit displacement.
fn compile<const N: usize>(data: &ExprData<N>, deltas: &[isize], elem: Elem) -> Option<(RowFn, Box<JITModule>)> {
    let tap_bytes: Vec<i32> = deltas
        .iter()
        .map(|&d| d.checked_mul(elem.size as isize).and_then(|b| i32::try_from(b).ok()))
        .collect::<Option<_>>()?;
    // Room for the unrolled vectors' displacements too.
    let unrolled = i32::try_from((emit::UNROLL - 1) * elem.lanes * elem.size).ok()?;
    tap_bytes.iter().try_for_each(|b| b.checked_add(unrolled).map(drop))?;
    let powers = data.expr().nodes().iter().filter_map(|node| match node {
        Node::Powi(_, n) => Some(n.unsigned_abs()),
        _ => None,
    });
    if powers.max().unwrap_or(0) > emit::MAX_POWI {
        return None;
    }
    let mut flags = settings::builder();
    flags.set("opt_level", "speed").ok()?;
    let isa = cranelift_native::builder().ok()?.finish(settings::Flags::new(flags)).ok()?;
    let mut builder = JITBuilder::with_isa(isa, default_libcall_names());
    for (name, address) in functions() {
        builder.symbol(name, address);
    }
    let mut module = JITModule::new(builder);
    let pointer = module.target_config().pointer_type();
    let mut ctx = module.make_context();
    for _ in 0..4 {
        ctx.func.signature.params.push(AbiParam::new(pointer));
    }
    let suffix = if elem.size == 4 { "f32" } else { "f64" };
    let mut unary = Signature::new(module.target_config().default_call_conv);
    unary.params.push(AbiParam::new(elem.scalar));
    unary.returns.push(AbiParam::new(elem.scalar));
    let mut declare =
        |name: &str| module.declare_function(&format!("cnda_{name}_{suffix}"), Linkage::Import, &unary).ok();
    let ids = [declare("exp")?, declare("ln")?, declare("sin")?, declare("cos")?, declare("tanh")?];
    let mut context = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut context);
        let refs = ids.map(|id| module.declare_func_in_func(id, b.func));
        let calls = Calls { exp: refs[0], ln: refs[1], sin: refs[2], cos: refs[3], tanh: refs[4] };
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let [fields_at, outputs_at, params_at, n] = <[_; 4]>::try_from(b.block_params(entry)).ok()?;
        let mut load = MemFlags::new();
        load.set_notrap();
        let expr = data.expr();
        let fields = (0..expr.fields()).map(|f| b.ins().load(pointer, load, fields_at, 8 * f as i32)).collect();
        let outputs = (0..expr.outputs()).map(|m| b.ins().load(pointer, load, outputs_at, 8 * m as i32)).collect();
        // The nodes of parameters and literals only, computed once.
        let mut constants: Vec<Option<(cranelift_codegen::ir::Value, cranelift_codegen::ir::Value)>> = Vec::new();
        for node in expr.nodes() {
            let scalar = match *node {
                Node::Tap(_) => None,
                Node::Param(p) => Some(b.ins().load(elem.scalar, load, params_at, (p as i64 * elem.size) as i32)),
                Node::Lit(lit) => Some(if elem.size == 4 {
                    b.ins().f32const(cranelift_codegen::ir::immediates::Ieee32::with_bits(lit.f32.to_bits()))
                } else {
                    b.ins().f64const(cranelift_codegen::ir::immediates::Ieee64::with_bits(lit.f64.to_bits()))
                }),
                _ => {
                    let operands: Option<Vec<_>> = node.operands().map(|a| constants[a].map(|(s, _)| s)).collect();
                    operands.map(|operands| emit::operation(&mut b, node, &operands, false, elem, &calls))
                }
            };
            let condition = expr.is_condition(constants.len());
            constants.push(scalar.map(|s| (s, splat(&mut b, elem, s, condition))));
        }
        let frame = Frame { expr, fields, outputs, tap_bytes, constants, elem, calls: &calls };
        emit::loops(&mut b, &frame, n);
        b.seal_all_blocks();
        b.finalize();
    }
    let id = module.declare_function("cnda_row", Linkage::Local, &ctx.func.signature).ok()?;
    module.define_function(id, &mut ctx).ok()?;
    module.clear_context(&mut ctx);
    module.finalize_definitions().ok()?;
    let code = module.get_finalized_function(id);
    // SAFETY: `code` is the finalized function of the signature built above: four pointer-sized
    // arguments in the platform's default C convention, returning nothing. It stays mapped as
    // long as the module, which the cache keeps for the process.
    let row = unsafe { core::mem::transmute::<*const u8, RowFn>(code) };
    Some((row, Box::new(module)))
}
