//! The row function written as C and built by the system's C compiler at first use (as Devito
//! builds its operators): the compiler vectorizes the loop at the machine's full width (AVX2,
//! AVX-512), where cranelift's x86 backend stops at 128 bits. The source comes from the checked
//! nodes through the printer every device code generator shares (`kernel::expr::emit`), one
//! local per node in node order, and the compiler is held to IEEE arithmetic
//! (`-ffp-contract=off`, no fast-math), so every value equals `CheckedExpr::eval`'s bit for bit:
//! `min`/`max`/`flush`/`powi` spelled as `Scalar` computes them, `sqrt abs floor` as the exact
//! instructions, `exp ln sin cos tanh` called through Rust's own functions (a table the loader
//! fills), never the compiler's constant folding or vector math library.
//!
//! Built in a private temporary directory (mode 0700, removed once the library is loaded), with
//! `CNDA_CC` (default `cc`) and `CNDA_CFLAGS` (default [`FLAGS`]), then [`REQUIRED`] (which no
//! flag given can undo: the source refuses fast-math and excess precision with `#error`); `None`
//! wherever anything fails, and cranelift compiles the row instead. The compiler, its flags and
//! `PATH` are trusted as `LD_PRELOAD` is: the library they build runs in the process.

use core::fmt::Write;
use core::sync::atomic::{AtomicBool, Ordering};
use std::process::{Command, Stdio};

use super::RowFn;
use crate::kernel::expr::emit::{self, float_literal, Dialect};
use crate::kernel::expr::{Binary, CheckedExpr, Lit, Unary};

/// The compiler's optimization flags unless `CNDA_CFLAGS` gives others: for this machine.
pub(super) const FLAGS: &[&str] = &["-O3", "-march=native"];

/// The flags every build ends with: no contraction into fused multiply-adds (which round once
/// where the CPU's code rounds twice), no fast-math, `sqrt` as the instruction (no `errno`), a
/// shared library of position-independent code without the C runtime's start files (so nothing
/// runs when it is loaded: not even `crtfastmath.o`, which would set the thread's flush modes).
pub(super) const REQUIRED: &[&str] =
    &["-ffp-contract=off", "-fno-fast-math", "-fno-math-errno", "-fPIC", "-shared", "-nostartfiles"];

/// The element type the row computes in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CType {
    Float,
    Double,
}

impl Dialect for CType {
    fn literal(&self, lit: Lit) -> String {
        match self {
            CType::Float if lit.f32.is_infinite() => format!("({}__builtin_inff())", sign(lit.f32 < 0.0)),
            CType::Float => float_literal(format!("{:?}", lit.f32), "f"),
            CType::Double if lit.f64.is_infinite() => format!("({}__builtin_inf())", sign(lit.f64 < 0.0)),
            CType::Double => float_literal(format!("{:?}", lit.f64), ""),
        }
    }

    fn function(&self, op: Unary) -> &'static str {
        let (float, double) = match op {
            Unary::Sqrt => ("__builtin_sqrtf", "__builtin_sqrt"),
            Unary::Abs => ("__builtin_fabsf", "__builtin_fabs"),
            Unary::Floor => ("__builtin_floorf", "__builtin_floor"),
            Unary::Flush => ("cn_flush", "cn_flush"),
            Unary::Exp => ("cn_exp", "cn_exp"),
            Unary::Ln => ("cn_ln", "cn_ln"),
            Unary::Sin => ("cn_sin", "cn_sin"),
            Unary::Cos => ("cn_cos", "cn_cos"),
            Unary::Tanh => ("cn_tanh", "cn_tanh"),
            Unary::Neg | Unary::Not => unreachable!("operators, printed by emit"),
        };
        if *self == CType::Double {
            double
        } else {
            float
        }
    }

    fn function2(&self, op: Binary) -> &'static str {
        match op {
            Binary::Min => "cn_min",
            Binary::Max => "cn_max",
            _ => unreachable!("operators, printed by emit"),
        }
    }

    fn declare(&self, name: &str, condition: bool, value: &str) -> String {
        format!("const {} {name} = {value};", if condition { "_Bool" } else { "T" })
    }
}

fn sign(negative: bool) -> &'static str {
    if negative {
        "-"
    } else {
        ""
    }
}

/// The helpers the statements call, as `Scalar` computes them: `min`/`max` (the other operand
/// for a NaN first, the first of equals), `flush` on the bits, `powi` as `|n| - 1` products from
/// the left then one division for negative `n`, and the five functions of the loader's table
/// (`noinline, const`: computed once where their operand is the same for every point).
const HELPERS: &str = r"
T (*cnda_calls[5])(T);
#define CN_CALLED(name, k) static __attribute__((noinline, const)) T name(T x) { return cnda_calls[k](x); }
CN_CALLED(cn_exp, 0)
CN_CALLED(cn_ln, 1)
CN_CALLED(cn_sin, 2)
CN_CALLED(cn_cos, 3)
CN_CALLED(cn_tanh, 4)
static inline T cn_min(T x, T y) { return x != x ? y : (y < x ? y : x); }
static inline T cn_max(T x, T y) { return x != x ? y : (y > x ? y : x); }
static inline T cn_flush(T x) {
    U b;
    __builtin_memcpy(&b, &x, sizeof b);
    b = (b & EXPONENT) == 0 ? (b & SIGN) : b;
    __builtin_memcpy(&x, &b, sizeof x);
    return x;
}
static inline T cn_powi(T x, int n) {
    const unsigned m = n < 0 ? 0u - (unsigned)n : (unsigned)n;
    T p = n == 0 ? (T)1 : x;
    for (unsigned k = 1; k < m; ++k) p = p * x;
    return n < 0 ? (T)1 / p : p;
}
";

/// What the source checks of the compiler's settings: IEEE arithmetic in the element type (no
/// fast-math, no excess precision) and the types `RowFn` passes.
const GUARDS: &str = r#"#include <stddef.h>
#include <stdint.h>
#if defined(__FAST_MATH__) || !defined(__FLT_EVAL_METHOD__) || __FLT_EVAL_METHOD__ != 0
#error "cnda's rows need IEEE arithmetic in float and double: no fast-math, no excess precision"
#endif
_Static_assert(sizeof(size_t) == sizeof(void *), "size_t is pointer-sized");
_Static_assert(sizeof(float) == 4 && sizeof(double) == 8, "IEEE binary32 and binary64");
"#;

/// The C source of the row function `cnda_row(fields, outputs, params, n)` of `expr` in `f32`
/// (`double` false) or `f64`, each tap `deltas[k]` elements from its field's point.
pub(super) fn source<const N: usize>(expr: &CheckedExpr<N>, deltas: &[isize], double: bool) -> String {
    let ty = if double { CType::Double } else { CType::Float };
    let mut c = String::from(GUARDS);
    let _ = match ty {
        CType::Float => {
            writeln!(c, "typedef float T;\ntypedef uint32_t U;\n#define EXPONENT 0x7f800000u\n#define SIGN 0x80000000u")
        }
        CType::Double => writeln!(
            c,
            "typedef double T;\ntypedef uint64_t U;\n#define EXPONENT 0x7ff0000000000000ull\n#define SIGN 0x8000000000000000ull"
        ),
    };
    c.push_str(HELPERS);
    c.push_str("\nvoid cnda_row(const unsigned char *const *fields, unsigned char *const *outputs, const unsigned char *params, size_t n) {\n");
    // Outputs never overlap the fields and each other (the kernel's contract): `restrict` lets
    // the compiler vectorize without checks.
    for f in 0..expr.fields() {
        let _ = writeln!(c, "    const T *const restrict f{f} = (const T *)fields[{f}];");
    }
    for m in 0..expr.outputs() {
        let _ = writeln!(c, "    T *const restrict o{m} = (T *)outputs[{m}];");
    }
    for p in 0..expr.params() {
        let _ = writeln!(c, "    const T p{p} = ((const T *)params)[{p}];");
    }
    c.push_str("    for (ptrdiff_t i = 0; i < (ptrdiff_t)n; ++i) {\n");
    for (k, (tap, delta)) in expr.taps().iter().zip(deltas).enumerate() {
        // `isize::MIN` as a literal would overflow before its negation.
        let delta = if *delta == isize::MIN { format!("{} - 1", isize::MIN + 1) } else { delta.to_string() };
        let _ = writeln!(c, "        const T t{k} = f{}[i + ({delta})];", tap.field);
    }
    let (statements, values) = emit::statements(expr, &ty, "        ");
    c.push_str(&statements);
    for (m, value) in values.iter().enumerate() {
        let _ = writeln!(c, "        o{m}[i] = {value};");
    }
    c.push_str("    }\n}\n");
    c
}

/// The compiler and its flags: `CNDA_CC` (default `cc`) and `CNDA_CFLAGS` (split at white space;
/// default [`FLAGS`]), [`REQUIRED`] after them.
fn compiler() -> (String, Vec<String>) {
    let cc = std::env::var("CNDA_CC").unwrap_or_else(|_| "cc".to_owned());
    let mut flags: Vec<String> = match std::env::var("CNDA_CFLAGS") {
        Ok(flags) => flags.split_whitespace().map(str::to_owned).collect(),
        Err(_) => FLAGS.iter().map(|f| (*f).to_owned()).collect(),
    };
    flags.extend(REQUIRED.iter().map(|f| (*f).to_owned()));
    (cc, flags)
}

/// Set once the compiler could not be started: no later row tries it again.
static MISSING: AtomicBool = AtomicBool::new(false);

/// Builds `source` with the compiler and loads it: the row function, with the library holding
/// its code, its table of called functions filled with `calls` (`exp ln sin cos tanh` of the
/// element type). `None` where the compiler is missing or refuses, or loading fails.
pub(super) fn build(source: &str, calls: [*const u8; 5]) -> Option<(RowFn, libloading::Library)> {
    if MISSING.load(Ordering::Relaxed) {
        return None;
    }
    let (cc, flags) = compiler();
    build_with(&cc, &flags, source, calls).unwrap_or_else(|_| {
        MISSING.store(true, Ordering::Relaxed);
        None
    })
}

/// [`build`] with compiler `cc` and `flags` (all of them: [`REQUIRED`] is not added); the error
/// where the compiler could not be started.
pub(super) fn build_with(
    cc: &str,
    flags: &[impl AsRef<std::ffi::OsStr>],
    source: &str,
    calls: [*const u8; 5],
) -> std::io::Result<Option<(RowFn, libloading::Library)>> {
    let private = std::os::unix::fs::PermissionsExt::from_mode(0o700);
    let Ok(dir) = tempfile::Builder::new().prefix("cnda-row-").permissions(private).tempdir() else {
        return Ok(None);
    };
    let (c, library) = (dir.path().join("row.c"), dir.path().join("row.so"));
    if std::fs::write(&c, source).is_err() {
        return Ok(None);
    }
    let status = Command::new(cc)
        .args(flags)
        .arg("-o")
        .arg(&library)
        .arg(&c)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()?;
    if !status.success() {
        return Ok(None);
    }
    Ok(load(&library, calls))
}

/// The row function of the library built at `path`, its table filled with `calls`.
fn load(path: &std::path::Path, calls: [*const u8; 5]) -> Option<(RowFn, libloading::Library)> {
    // SAFETY: the library was just built from `source` by the trusted compiler, in a directory
    // only this process's user can write; it has no initializers (plain C functions and a table
    // of pointers, linked without the C runtime's start files).
    let library = unsafe { libloading::Library::new(path) }.ok()?;
    // SAFETY: `cnda_calls` is the source's table of five pointers to functions of `T`; writing
    // the addresses of Rust's functions of `T` before `cnda_row` is ever called is the only
    // access, and no other thread can reach this library yet.
    let row = unsafe {
        let table = *library.get::<*mut [*const u8; 5]>(b"cnda_calls\0").ok()?;
        table.write(calls);
        *library.get::<RowFn>(b"cnda_row\0").ok()?
    };
    Some((row, library))
}
