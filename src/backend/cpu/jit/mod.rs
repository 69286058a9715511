//! Expressions that are data at run time compiled to machine code (feature `jit`): one row
//! function per expression, element type and set of tap offsets, computing a contiguous lane of
//! points in vectors. Two engines write it: the system's C compiler (`c.rs`, at the machine's
//! full vector width; about 50 ms a row, run once) and, where none answers, cranelift
//! (`cranelift.rs` and `emit.rs`, 128-bit vectors; about a millisecond). `CNDA_JIT` picks:
//! `c` or `cranelift` for one alone, `off` for the block interpreter; unset, C then cranelift.
//! Compiled at first use, kept for the life of the process (a page or two of code per kind of
//! call; at most [`MAX_ROWS`] in all, [`MAX_SHAPES`] per expression) and shared by every thread,
//! each of which remembers the last one it used (the fused stepper calls the kernel once per
//! hyperplane). The block interpreter runs what neither takes: strided lanes, 16-bit elements,
//! what passes the caps, and for cranelift alone tap offsets past 2 GiB, `powi` exponents past
//! [`emit::MAX_POWI`] and a host it has no backend for.

#[cfg(unix)]
mod c;
mod cranelift;
mod emit;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use cranelift_jit::JITModule;

use super::expression::{MAX_FIELDS, OPERANDS};
use super::lanes::Lane;
use crate::element::DType;
use crate::kernel::expr::{ExprData, Scalar, MAX_OUTPUTS};
use crate::kernel::{Cpu, Desc};
use emit::Elem;

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
    /// Every module or library compiled: the memory their functions live in, kept for the
    /// process.
    modules: Vec<Kept>,
}

/// Compiled code, kept (never used again, never dropped) so that its function stays mapped,
/// and reachable, which a leak checker sees.
#[allow(dead_code)]
enum Kept {
    Cranelift(Box<JITModule>),
    #[cfg(unix)]
    C(libloading::Library),
}

// SAFETY: kept code is never accessed again: moving it between threads inside the cache's mutex
// touches none of its state.
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

/// Which engines `CNDA_JIT` lets compile rows: `(C, cranelift)`; neither for `off` (the
/// interpreter, to compare or to debug).
fn engines() -> (bool, bool) {
    static ENGINES: OnceLock<(bool, bool)> = OnceLock::new();
    *ENGINES.get_or_init(|| match std::env::var("CNDA_JIT").as_deref() {
        Ok("off") => (false, false),
        Ok("c") => (true, false),
        Ok("cranelift") => (false, true),
        // The C engine where C's float and double are SSE's or NEON's (no x87 excess precision).
        _ => (cfg!(all(unix, any(target_arch = "x86_64", target_arch = "aarch64"))), true),
    })
}

/// The row function of `data` for elements `T` and taps `deltas` elements from the point, or
/// `None` where the interpreter runs it.
pub(super) fn row_function<T: Scalar, const N: usize>(data: &ExprData<N>, deltas: &[isize]) -> Option<RowFn> {
    let elem = match T::DTYPE {
        DType::F32 => Elem::F32,
        DType::F64 => Elem::F64,
        _ => return None,
    };
    if engines() == (false, false) {
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
    let compiled = compile(data, deltas, elem, engines());
    let mut cache = cache().lock().unwrap_or_else(|e| e.into_inner());
    let row = compiled.map(|(row, kept)| {
        cache.modules.push(kept);
        row
    });
    if let Some((Some(first), _)) = lookup(&cache) {
        return first;
    }
    cache.compiled += 1;
    cache.rows.entry(key).or_default().push((deltas.to_vec(), row));
    row
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

/// The row function of `data` for elements `elem` and taps `deltas` elements from the point, with
/// the code kept for it: by the C compiler where `c` and it answers, else by cranelift where
/// `cranelift`.
fn compile<const N: usize>(
    data: &ExprData<N>,
    deltas: &[isize],
    elem: Elem,
    (c, cranelift): (bool, bool),
) -> Option<(RowFn, Kept)> {
    let _ = c; // (no C engine off Unix)
    #[cfg(unix)]
    if c {
        let source = c::source(data.expr(), deltas, elem.size == 8);
        let functions = functions().map(|(_, address)| address);
        let calls = core::array::from_fn(|k| functions[k + if elem.size == 8 { 5 } else { 0 }]);
        if let Some((row, library)) = c::build(&source, calls) {
            return Some((row, Kept::C(library)));
        }
    }
    if cranelift {
        return cranelift::compile(data, deltas, elem).map(|(row, module)| (row, Kept::Cranelift(module)));
    }
    None
}
