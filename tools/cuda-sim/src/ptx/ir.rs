//! The decoded form of a PTX module: functions of instructions over numbered registers, with
//! symbol addresses and branch targets resolved.

/// A PTX type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    B8,
    B16,
    B32,
    B64,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    BF16,
    F32,
    F64,
    Pred,
}

impl Ty {
    /// The type named by suffix `s` (`"u32"`, `"f64"`, ...).
    pub fn parse(s: &str) -> Option<Ty> {
        Some(match s {
            "b8" => Ty::B8,
            "b16" => Ty::B16,
            "b32" => Ty::B32,
            "b64" => Ty::B64,
            "u8" => Ty::U8,
            "u16" => Ty::U16,
            "u32" => Ty::U32,
            "u64" => Ty::U64,
            "s8" => Ty::S8,
            "s16" => Ty::S16,
            "s32" => Ty::S32,
            "s64" => Ty::S64,
            "f16" => Ty::F16,
            "bf16" => Ty::BF16,
            "f32" => Ty::F32,
            "f64" => Ty::F64,
            "pred" => Ty::Pred,
            _ => return None,
        })
    }

    /// Width in bits (1 for a predicate).
    pub fn bits(self) -> u32 {
        match self {
            Ty::Pred => 1,
            Ty::B8 | Ty::U8 | Ty::S8 => 8,
            Ty::B16 | Ty::U16 | Ty::S16 | Ty::F16 | Ty::BF16 => 16,
            Ty::B32 | Ty::U32 | Ty::S32 | Ty::F32 => 32,
            Ty::B64 | Ty::U64 | Ty::S64 | Ty::F64 => 64,
        }
    }

    /// Width in bytes (memory operations).
    pub fn bytes(self) -> usize {
        (self.bits() as usize).div_ceil(8)
    }

    pub fn signed(self) -> bool {
        matches!(self, Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64)
    }

    pub fn float(self) -> bool {
        matches!(self, Ty::F16 | Ty::BF16 | Ty::F32 | Ty::F64)
    }
}

/// A special register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sreg {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    LaneId,
    WarpId,
}

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Src {
    Reg(u32),
    Imm(u64),
    Special(Sreg),
}

/// A state space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Param,
    Global,
    Shared,
    Local,
    Const,
}

/// A memory operand `[base + off]`; a symbol's address is folded into `off`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Addr {
    pub base: Option<u32>,
    pub off: i64,
}

/// Integer binary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntK {
    Add,
    Sub,
    MulLo,
    MulHi,
    Div,
    Rem,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Min,
    Max,
}

/// Integer unary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntUnK {
    Not,
    Neg,
    Abs,
    Clz,
    Popc,
}

/// Float binary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FK {
    Add,
    Sub,
    Mul,
    Div,
    Min,
    Max,
    CopySign,
}

/// Float unary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FUnK {
    Abs,
    Neg,
    Sqrt,
    Rcp,
    /// `rsqrt.approx`: computed exactly here (hardware's is within 2^-22 (f32) or 2^-41 (f64)
    /// relative, and the library's callers refine it).
    Rsqrt,
    Ex2,
}

/// IEEE rounding of a float result: `.rn`, `.rz`, `.rm`, `.rp`; `Approx` for `.approx`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rnd {
    Rn,
    Rz,
    Rm,
    Rp,
    Approx,
}

/// Rounding of `cvt`: to a float (`.rn` ...), or to an integral value (`.rni` ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CvtRnd {
    None,
    Float(Rnd),
    /// `.rni`, `.rzi`, `.rmi`, `.rpi` (to nearest even, zero, minus, plus infinity).
    Int(Rnd),
}

/// A comparison of `setp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

/// One decoded operation.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    Mov {
        d: u32,
        a: Src,
    },
    /// `mov.b64 d, {a, b}`: parts from least significant, `bits` each.
    Pack {
        d: u32,
        parts: Box<[Src]>,
        bits: u32,
    },
    /// `mov.b64 {a, b}, s`: `None` for a `_`/scratch part.
    Unpack {
        ds: Box<[Option<u32>]>,
        a: Src,
        bits: u32,
    },
    Int {
        k: IntK,
        ty: Ty,
        d: u32,
        a: Src,
        b: Src,
    },
    IntUn {
        k: IntUnK,
        ty: Ty,
        d: u32,
        a: Src,
    },
    /// `mul.wide` (`c` is `None`) and `mad.wide`: `ty` is the source type.
    Wide {
        ty: Ty,
        d: u32,
        a: Src,
        b: Src,
        c: Option<Src>,
    },
    /// `mad.lo`/`mad.hi`, `madc`: `cc` writes the carry, `carry_in` adds it.
    Mad {
        hi: bool,
        cc: bool,
        carry_in: bool,
        ty: Ty,
        d: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    /// `add.cc`, `addc[.cc]`, `sub.cc`, `subc[.cc]`.
    AddC {
        sub: bool,
        cc: bool,
        carry_in: bool,
        ty: Ty,
        d: u32,
        a: Src,
        b: Src,
    },
    Bfi {
        ty: Ty,
        d: u32,
        a: Src,
        b: Src,
        pos: Src,
        len: Src,
    },
    Float {
        k: FK,
        ty: Ty,
        rnd: Rnd,
        ftz: bool,
        sat: bool,
        d: u32,
        a: Src,
        b: Src,
    },
    FUn {
        k: FUnK,
        ty: Ty,
        rnd: Rnd,
        ftz: bool,
        d: u32,
        a: Src,
    },
    Fma {
        ty: Ty,
        rnd: Rnd,
        ftz: bool,
        sat: bool,
        d: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    Setp {
        cmp: Cmp,
        ty: Ty,
        d: u32,
        a: Src,
        b: Src,
    },
    Selp {
        ty: Ty,
        d: u32,
        a: Src,
        b: Src,
        p: Src,
    },
    Cvt {
        dt: Ty,
        st: Ty,
        rnd: CvtRnd,
        sat: bool,
        ftz: bool,
        d: u32,
        a: Src,
    },
    /// `cvta[.to].space`: addresses are the same in every space here (only global is generic).
    Cvta {
        space: Space,
        d: u32,
        a: Src,
    },
    Ld {
        space: Space,
        ty: Ty,
        n: u8,
        ds: [u32; 4],
        addr: Addr,
    },
    St {
        space: Space,
        ty: Ty,
        n: u8,
        srcs: [Src; 4],
        addr: Addr,
    },
    Bra {
        target: u32,
    },
    Bar,
    /// A call: (caller param offset, callee param offset, bytes) for arguments and results.
    Call {
        func: u32,
        args: Box<[(u32, u32, u32)]>,
        rets: Box<[(u32, u32, u32)]>,
    },
    Ret,
}

/// An instruction: its guard predicate (register, negated) and operation, and the PTX line.
#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    pub guard: Option<(u32, bool)>,
    pub op: Op,
    pub line: u32,
}

/// A parameter of an entry or function: offset and size in the function's param space.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub off: u32,
    pub size: u32,
}

/// A decoded function or kernel.
#[derive(Clone, Debug, Default)]
pub struct Function {
    pub name: String,
    pub is_entry: bool,
    /// Whether a body was defined (a prototype alone is not callable).
    pub defined: bool,
    pub params: Vec<Param>,
    pub rets: Vec<Param>,
    /// Bytes of the param space: parameters, results, and the call blocks' `.param`s.
    pub param_size: u32,
    /// Bytes of local memory per thread and call.
    pub local_size: u32,
    /// Bytes of this kernel's own `.shared` variables (after the module's).
    pub shared_size: u32,
    pub nregs: u32,
    pub body: Vec<Inst>,
    /// Register names by index (for messages).
    pub reg_names: Vec<String>,
}

/// A module's `.global` variable, allocated in the memory map when the module loads.
#[derive(Clone, Debug)]
pub struct Global {
    pub name: String,
    pub addr: u64,
    pub size: usize,
}

/// A decoded module.
#[derive(Clone, Debug, Default)]
pub struct Module {
    pub functions: Vec<Function>,
    /// Bytes of module-level `.shared` variables (at the start of every block's shared memory).
    pub module_shared: u32,
    pub globals: Vec<Global>,
}

impl Module {
    /// The index of the entry point `name`.
    pub fn entry(&self, name: &str) -> Option<usize> {
        self.functions.iter().position(|f| f.is_entry && f.defined && f.name == name)
    }
}
