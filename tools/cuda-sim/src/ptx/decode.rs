//! Decoding one PTX instruction (opcode with its modifiers, resolved operands) into an [`Op`].

use super::ir::{Addr, Cmp, CvtRnd, FUnK, Function, IntK, IntUnK, Op, Rnd, Space, Src, Sreg, Ty, FK};
use super::parse::{dst, src, Sym};

/// A resolved operand.
#[derive(Clone, Debug)]
pub(crate) enum Opnd {
    Reg(u32),
    Imm(u64),
    Special(Sreg),
    Sym(Sym),
    Addr(Addr),
    Vec(Vec<Opnd>),
    List(Vec<Opnd>),
    Func(u32),
    Label(String),
    Sink,
}

fn rnd_of(mods: &[&str]) -> Rnd {
    for m in mods {
        match *m {
            "rn" => return Rnd::Rn,
            "rz" => return Rnd::Rz,
            "rm" => return Rnd::Rm,
            "rp" => return Rnd::Rp,
            "approx" => return Rnd::Approx,
            _ => {}
        }
    }
    Rnd::Rn
}

fn cmp_of(s: &str) -> Option<Cmp> {
    Some(match s {
        "eq" => Cmp::Eq,
        "ne" => Cmp::Ne,
        "lt" | "lo" => Cmp::Lt,
        "le" | "ls" => Cmp::Le,
        "gt" | "hi" => Cmp::Gt,
        "ge" | "hs" => Cmp::Ge,
        "equ" => Cmp::Equ,
        "neu" => Cmp::Neu,
        "ltu" => Cmp::Ltu,
        "leu" => Cmp::Leu,
        "gtu" => Cmp::Gtu,
        "geu" => Cmp::Geu,
        "num" => Cmp::Num,
        "nan" => Cmp::Nan,
        _ => return None,
    })
}

fn space_of(mods: &[&str]) -> Space {
    for m in mods {
        match *m {
            "param" => return Space::Param,
            "global" => return Space::Global,
            "shared" => return Space::Shared,
            "local" => return Space::Local,
            "const" => return Space::Const,
            _ => {}
        }
    }
    // Generic addressing: only global memory is ever made generic by cnda's kernels.
    Space::Global
}

fn float_ty(ty: Ty) -> Result<(), String> {
    if matches!(ty, Ty::F32 | Ty::F64) {
        Ok(())
    } else {
        Err("float arithmetic on f16/bf16 is not supported (only cvt)".into())
    }
}

fn arity(ops: &[Opnd], n: usize) -> Result<(), String> {
    if ops.len() == n {
        Ok(())
    } else {
        Err(format!("expected {n} operands, found {}", ops.len()))
    }
}

/// Decodes `opcode` (`add.s64`, `ld.global.nc.v2.f64`, ...) with `ops` inside function `f` of a
/// module whose functions (for calls) are `functions`.
pub(crate) fn decode(opcode: &str, ops: &[Opnd], functions: &[Function], f: &Function) -> Result<Op, String> {
    let mut parts = opcode.split('.');
    let base = parts.next().unwrap_or("");
    let mods: Vec<&str> = parts.collect();
    let ty = mods.last().and_then(|m| Ty::parse(m));
    let need_ty = || ty.ok_or_else(|| "no type suffix".to_string());
    let has = |m: &str| mods.contains(&m);
    Ok(match base {
        "mov" => {
            arity(ops, 2)?;
            let ty = need_ty()?;
            match (&ops[0], &ops[1]) {
                (Opnd::Vec(ds), a) => Op::Unpack {
                    bits: ty.bits() / ds.len() as u32,
                    ds: ds.iter().map(|d| dst(d).ok()).collect(),
                    a: src(a)?,
                },
                (d, Opnd::Vec(parts)) => Op::Pack {
                    d: dst(d)?,
                    bits: ty.bits() / parts.len() as u32,
                    parts: parts.iter().map(src).collect::<Result<_, _>>()?,
                },
                (d, a) => Op::Mov { d: dst(d)?, a: src(a)? },
            }
        }
        "add" | "sub" | "mul" | "div" | "rem" | "and" | "or" | "xor" | "shl" | "shr" | "min" | "max" | "copysign" => {
            arity(ops, 3)?;
            let ty = need_ty()?;
            let (d, a, b) = (dst(&ops[0])?, src(&ops[1])?, src(&ops[2])?);
            if ty.float() {
                float_ty(ty)?;
                if base == "div" && !matches!(rnd_of(&mods), Rnd::Rn | Rnd::Approx) {
                    return Err("directed rounding of div is not supported".into());
                }
                let k = match base {
                    "add" => FK::Add,
                    "sub" => FK::Sub,
                    "mul" => FK::Mul,
                    "div" => FK::Div,
                    "min" => FK::Min,
                    "max" => FK::Max,
                    "copysign" => FK::CopySign,
                    _ => return Err("not a float operation".into()),
                };
                Op::Float { k, ty, rnd: rnd_of(&mods), ftz: has("ftz"), sat: has("sat"), d, a, b }
            } else if has("cc") && (base == "add" || base == "sub") {
                Op::AddC { sub: base == "sub", cc: true, carry_in: false, ty, d, a, b }
            } else if base == "mul" && has("wide") {
                Op::Wide { ty, d, a, b, c: None }
            } else {
                let k = match base {
                    "add" => IntK::Add,
                    "sub" => IntK::Sub,
                    "mul" if has("hi") => IntK::MulHi,
                    "mul" => IntK::MulLo,
                    "div" => IntK::Div,
                    "rem" => IntK::Rem,
                    "and" => IntK::And,
                    "or" => IntK::Or,
                    "xor" => IntK::Xor,
                    "shl" => IntK::Shl,
                    "shr" => IntK::Shr,
                    "min" => IntK::Min,
                    "max" => IntK::Max,
                    _ => return Err("not an integer operation".into()),
                };
                if has("sat") {
                    return Err(".sat on integers is not supported".into());
                }
                Op::Int { k, ty, d, a, b }
            }
        }
        "addc" | "subc" => {
            arity(ops, 3)?;
            Op::AddC {
                sub: base == "subc",
                cc: has("cc"),
                carry_in: true,
                ty: need_ty()?,
                d: dst(&ops[0])?,
                a: src(&ops[1])?,
                b: src(&ops[2])?,
            }
        }
        "mad" | "madc" | "fma" => {
            arity(ops, 4)?;
            let ty = need_ty()?;
            let (d, a, b, c) = (dst(&ops[0])?, src(&ops[1])?, src(&ops[2])?, src(&ops[3])?);
            if ty.float() {
                float_ty(ty)?;
                if ty == Ty::F64 && !matches!(rnd_of(&mods), Rnd::Rn) {
                    return Err("directed rounding of f64 fma is not supported".into());
                }
                Op::Fma { ty, rnd: rnd_of(&mods), ftz: has("ftz"), sat: has("sat"), d, a, b, c }
            } else if has("wide") {
                Op::Wide { ty, d, a, b, c: Some(c) }
            } else {
                Op::Mad { hi: has("hi"), cc: has("cc"), carry_in: base == "madc", ty, d, a, b, c }
            }
        }
        "not" | "neg" | "abs" | "clz" | "popc" | "sqrt" | "rcp" | "rsqrt" | "ex2" => {
            arity(ops, 2)?;
            let ty = need_ty()?;
            let (d, a) = (dst(&ops[0])?, src(&ops[1])?);
            if ty.float() {
                float_ty(ty)?;
                if matches!(base, "sqrt" | "rcp") && !matches!(rnd_of(&mods), Rnd::Rn | Rnd::Approx) {
                    return Err("directed rounding of sqrt or rcp is not supported".into());
                }
                let k = match base {
                    "abs" => FUnK::Abs,
                    "neg" => FUnK::Neg,
                    "sqrt" => FUnK::Sqrt,
                    "rcp" => FUnK::Rcp,
                    "rsqrt" => FUnK::Rsqrt,
                    "ex2" => FUnK::Ex2,
                    _ => return Err("not a float operation".into()),
                };
                Op::FUn { k, ty, rnd: rnd_of(&mods), ftz: has("ftz"), d, a }
            } else {
                let k = match base {
                    "not" => IntUnK::Not,
                    "neg" => IntUnK::Neg,
                    "abs" => IntUnK::Abs,
                    "clz" => IntUnK::Clz,
                    "popc" => IntUnK::Popc,
                    _ => return Err("not an integer operation".into()),
                };
                Op::IntUn { k, ty, d, a }
            }
        }
        "bfi" => {
            arity(ops, 5)?;
            Op::Bfi {
                ty: need_ty()?,
                d: dst(&ops[0])?,
                a: src(&ops[1])?,
                b: src(&ops[2])?,
                pos: src(&ops[3])?,
                len: src(&ops[4])?,
            }
        }
        "setp" => {
            arity(ops, 3)?;
            let cmp = mods.first().and_then(|m| cmp_of(m)).ok_or("no comparison")?;
            if mods.iter().any(|m| matches!(*m, "and" | "or" | "xor")) {
                return Err("setp with a boolean combination is not supported".into());
            }
            Op::Setp { cmp, ty: need_ty()?, d: dst(&ops[0])?, a: src(&ops[1])?, b: src(&ops[2])? }
        }
        "selp" => {
            arity(ops, 4)?;
            Op::Selp { ty: need_ty()?, d: dst(&ops[0])?, a: src(&ops[1])?, b: src(&ops[2])?, p: src(&ops[3])? }
        }
        "cvt" => {
            arity(ops, 2)?;
            let n = mods.len();
            if n < 2 {
                return Err("cvt needs two types".into());
            }
            let dt = Ty::parse(mods[n - 2]).ok_or("bad destination type")?;
            let st = Ty::parse(mods[n - 1]).ok_or("bad source type")?;
            let mut rnd = CvtRnd::None;
            for m in &mods[..n - 2] {
                rnd = match *m {
                    "rn" => CvtRnd::Float(Rnd::Rn),
                    "rz" => CvtRnd::Float(Rnd::Rz),
                    "rm" => CvtRnd::Float(Rnd::Rm),
                    "rp" => CvtRnd::Float(Rnd::Rp),
                    "rni" => CvtRnd::Int(Rnd::Rn),
                    "rzi" => CvtRnd::Int(Rnd::Rz),
                    "rmi" => CvtRnd::Int(Rnd::Rm),
                    "rpi" => CvtRnd::Int(Rnd::Rp),
                    "ftz" | "sat" => rnd,
                    other => return Err(format!("unknown cvt modifier .{other}")),
                };
            }
            if let CvtRnd::Float(r) = rnd {
                if r != Rnd::Rn && (dt.float() && st.float()) {
                    return Err("directed rounding of float-to-float cvt is not supported".into());
                }
                if r != Rnd::Rn {
                    return Err("directed rounding of int-to-float cvt is not supported".into());
                }
            }
            Op::Cvt { dt, st, rnd, sat: has("sat"), ftz: has("ftz"), d: dst(&ops[0])?, a: src(&ops[1])? }
        }
        "cvta" => {
            arity(ops, 2)?;
            let space = space_of(&mods);
            if space != Space::Global {
                return Err("generic addresses of shared, local or param memory are not supported".into());
            }
            Op::Cvta { space, d: dst(&ops[0])?, a: src(&ops[1])? }
        }
        "ld" | "st" => {
            arity(ops, 2)?;
            let ty = need_ty()?;
            let space = space_of(&mods);
            let n: u8 = if has("v4") {
                4
            } else if has("v2") {
                2
            } else {
                1
            };
            let (data, addr) = if base == "ld" { (&ops[0], &ops[1]) } else { (&ops[1], &ops[0]) };
            let Opnd::Addr(addr) = addr else { return Err(format!("expected an address, found {addr:?}")) };
            let items: Vec<&Opnd> = match data {
                Opnd::Vec(v) => v.iter().collect(),
                o => vec![o],
            };
            if items.len() != n as usize {
                return Err("vector width does not match the operands".into());
            }
            if base == "ld" {
                let mut ds = [0u32; 4];
                for (k, o) in items.iter().enumerate() {
                    ds[k] = dst(o)?;
                }
                Op::Ld { space, ty, n, ds, addr: *addr }
            } else {
                let mut srcs = [Src::Imm(0); 4];
                for (k, o) in items.iter().enumerate() {
                    srcs[k] = src(o)?;
                }
                Op::St { space, ty, n, srcs, addr: *addr }
            }
        }
        "bra" => Op::Bra { target: u32::MAX },
        "bar" | "barrier" => {
            if has("warp") || has("arrive") || has("red") {
                return Err("only bar.sync is supported".into());
            }
            Op::Bar
        }
        "ret" | "exit" => Op::Ret,
        "call" => call(ops, functions, f)?,
        _ => return Err("unsupported instruction".into()),
    })
}

/// `call (rets), func, (args)` or `call func, (args)`.
fn call(ops: &[Opnd], functions: &[Function], _f: &Function) -> Result<Op, String> {
    let (rets, func, args) = match ops {
        [Opnd::List(r), Opnd::Func(k), Opnd::List(a)] => (r.as_slice(), *k, a.as_slice()),
        [Opnd::List(r), Opnd::Func(k)] => (r.as_slice(), *k, &[][..]),
        [Opnd::Func(k), Opnd::List(a)] => (&[][..], *k, a.as_slice()),
        [Opnd::Func(k)] => (&[][..], *k, &[][..]),
        _ => return Err(format!("unsupported call form {ops:?}")),
    };
    let callee = functions.get(func as usize).ok_or("unknown callee")?;
    let pair = |o: &Opnd, p: &super::ir::Param| match o {
        Opnd::Sym(Sym::Param(off)) => Ok((*off, p.off, p.size)),
        other => Err(format!("call operands must be .param variables, found {other:?}")),
    };
    if args.len() != callee.params.len() || rets.len() != callee.rets.len() {
        return Err(format!("call of {} with the wrong number of operands", callee.name));
    }
    Ok(Op::Call {
        func,
        args: args.iter().zip(&callee.params).map(|(o, p)| pair(o, p)).collect::<Result<_, _>>()?,
        rets: rets.iter().zip(&callee.rets).map(|(o, p)| pair(o, p)).collect::<Result<_, _>>()?,
    })
}
