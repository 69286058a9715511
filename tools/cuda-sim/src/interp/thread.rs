//! One thread: its call frames (registers, param and local memory per call) and the step loop
//! that runs it until it reaches a barrier or exits.

use super::cvt::cvt;
use super::float::{fbin32, fbin64, fcmp, fma32, fma64, fun32, fun64};
use super::int::{add_carry, bfi, int_bin, int_un, mad, mask, sx, wide, zx};
use super::mem::{aligned, load_global, read_buf, store_global, write_buf, Fault};
use super::race::RaceChecker;
use crate::error::LAUNCH_FAILED;
use crate::memory::MemoryMap;
use crate::ptx::ir::{Cmp, Module, Op, Space, Src, Sreg, Ty};

/// One call's state.
pub struct Frame {
    pub func: u32,
    pub pc: u32,
    pub regs: Vec<u64>,
    pub param: Vec<u8>,
    pub local: Vec<u8>,
    /// Where this call's results go in the caller's param space.
    pub rets: Box<[(u32, u32, u32)]>,
}

impl Frame {
    pub fn new(module: &Module, func: u32, param: Vec<u8>) -> Frame {
        let f = &module.functions[func as usize];
        Frame {
            func,
            pc: 0,
            regs: vec![0; f.nregs as usize],
            param,
            local: vec![0; f.local_size as usize],
            rets: Box::new([]),
        }
    }
}

/// Where a thread stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    Barrier,
    Exit,
}

/// What a block shares: the module, memory, its coordinates, shared memory and checker.
pub struct BlockCtx<'a> {
    pub module: &'a Module,
    pub mem: &'a MemoryMap,
    pub ctaid: [u32; 3],
    pub ntid: [u32; 3],
    pub nctaid: [u32; 3],
    pub shared: Vec<u8>,
    pub race: RaceChecker,
    /// Whether to check shared-memory races (on by default).
    pub check_races: bool,
}

/// A thread.
pub struct Thread {
    pub tid: [u32; 3],
    pub linear: u32,
    pub frames: Vec<Frame>,
    pub carry: bool,
}

/// A failure inside a thread: the error, and the function and PTX line it happened at.
pub struct ThreadFault {
    pub fault: Fault,
    pub func: u32,
    pub line: u32,
}

enum Flow {
    Next,
    Call(u32, Vec<u8>, Box<[(u32, u32, u32)]>),
    Ret,
    Bar,
}

impl Thread {
    #[inline]
    fn special(&self, ctx: &BlockCtx<'_>, s: Sreg) -> u64 {
        u64::from(match s {
            Sreg::Tid(a) => self.tid[a as usize],
            Sreg::Ntid(a) => ctx.ntid[a as usize],
            Sreg::Ctaid(a) => ctx.ctaid[a as usize],
            Sreg::Nctaid(a) => ctx.nctaid[a as usize],
            Sreg::LaneId => self.linear % 32,
            Sreg::WarpId => self.linear / 32,
        })
    }

    /// Runs until a barrier or the thread's exit.
    pub fn run(&mut self, ctx: &mut BlockCtx<'_>) -> Result<Stop, ThreadFault> {
        let module = ctx.module;
        loop {
            let depth = self.frames.len() - 1;
            let func = &module.functions[self.frames[depth].func as usize];
            let flow = loop {
                let pc = self.frames[depth].pc as usize;
                let Some(inst) = func.body.get(pc) else {
                    return Err(ThreadFault {
                        fault: (LAUNCH_FAILED, "ran past the end of the function".into()),
                        func: self.frames[depth].func,
                        line: 0,
                    });
                };
                self.frames[depth].pc += 1;
                if let Some((p, neg)) = inst.guard {
                    if (self.frames[depth].regs[p as usize] != 0) == neg {
                        continue;
                    }
                }
                match self.step(ctx, depth, &inst.op) {
                    Ok(Flow::Next) => {}
                    Ok(flow) => break flow,
                    Err(fault) => return Err(ThreadFault { fault, func: self.frames[depth].func, line: inst.line }),
                }
            };
            match flow {
                Flow::Bar => return Ok(Stop::Barrier),
                Flow::Call(f, param, rets) => {
                    let mut frame = Frame::new(module, f, param);
                    frame.rets = rets;
                    self.frames.push(frame);
                }
                Flow::Ret => {
                    let done = self.frames.pop().expect("a frame");
                    let Some(caller) = self.frames.last_mut() else { return Ok(Stop::Exit) };
                    for &(caller_off, callee_off, size) in done.rets.iter() {
                        let (c, e, n) = (caller_off as usize, callee_off as usize, size as usize);
                        caller.param[c..c + n].copy_from_slice(&done.param[e..e + n]);
                    }
                }
                Flow::Next => {}
            }
        }
    }

    #[inline]
    fn step(&mut self, ctx: &mut BlockCtx<'_>, depth: usize, op: &Op) -> Result<Flow, Fault> {
        let special = |s| self.special(ctx, s);
        let frame = &self.frames[depth];
        let get = |s: Src| -> u64 {
            match s {
                Src::Reg(r) => frame.regs[r as usize],
                Src::Imm(v) => v,
                Src::Special(sr) => special(sr),
            }
        };
        let f32_ = |s: Src| f32::from_bits(get(s) as u32);
        let f64_ = |s: Src| f64::from_bits(get(s));
        let (d, v): (u32, u64) = match *op {
            Op::Mov { d, a } => (d, get(a)),
            Op::Pack { d, ref parts, bits } => {
                let mut v = 0u64;
                for (k, p) in parts.iter().enumerate() {
                    v |= (get(*p) & mask(bits)) << (bits * k as u32);
                }
                (d, v)
            }
            Op::Unpack { ref ds, a, bits } => {
                let v = get(a);
                let regs = &mut self.frames[depth].regs;
                for (k, d) in ds.iter().enumerate() {
                    if let Some(d) = d {
                        regs[*d as usize] = (v >> (bits * k as u32)) & mask(bits);
                    }
                }
                return Ok(Flow::Next);
            }
            Op::Int { k, ty, d, a, b } => (d, int_bin(k, ty, get(a), get(b))),
            Op::IntUn { k, ty, d, a } => {
                let v = if ty == Ty::Pred { get(a) ^ 1 } else { int_un(k, ty, get(a)) };
                (d, v)
            }
            Op::Wide { ty, d, a, b, c } => (d, wide(ty, get(a), get(b), c.map(get))),
            Op::Mad { hi, cc, carry_in, ty, d, a, b, c } => {
                let (v, carry) = mad(hi, ty, get(a), get(b), get(c), carry_in && self.carry);
                if cc {
                    self.carry = carry;
                }
                (d, v)
            }
            Op::AddC { sub, cc, carry_in, ty, d, a, b } => {
                let (v, carry) = add_carry(sub, ty, get(a), get(b), carry_in && self.carry);
                if cc {
                    self.carry = carry;
                }
                (d, v)
            }
            Op::Bfi { ty, d, a, b, pos, len } => (d, bfi(ty, get(a), get(b), get(pos), get(len))),
            Op::Float { k, ty, rnd, ftz, sat, d, a, b } => match ty {
                Ty::F32 => (d, u64::from(fbin32(k, rnd, ftz, sat, f32_(a), f32_(b)).to_bits())),
                _ => (d, fbin64(k, rnd, f64_(a), f64_(b)).to_bits()),
            },
            Op::FUn { k, ty, ftz, d, a, .. } => match ty {
                Ty::F32 => (d, u64::from(fun32(k, ftz, f32_(a)).to_bits())),
                _ => (d, fun64(k, ftz, f64_(a)).to_bits()),
            },
            Op::Fma { ty, rnd, ftz, sat, d, a, b, c } => match ty {
                Ty::F32 => (d, u64::from(fma32(rnd, ftz, sat, f32_(a), f32_(b), f32_(c)).to_bits())),
                _ => (d, fma64(f64_(a), f64_(b), f64_(c)).to_bits()),
            },
            Op::Setp { cmp, ty, d, a, b } => (d, u64::from(setp(cmp, ty, get(a), get(b)))),
            Op::Selp { ty, d, a, b, p } => (d, if get(p) != 0 { get(a) } else { get(b) } & mask(ty.bits())),
            Op::Cvt { dt, st, rnd, sat, ftz, d, a } => (d, cvt(dt, st, rnd, sat, ftz, get(a))),
            Op::Cvta { d, a, .. } => (d, get(a)),
            Op::Ld { space, ty, n, ds, addr } => {
                let base = addr.base.map_or(0, |r| frame.regs[r as usize]).wrapping_add(addr.off as u64);
                let size = ty.bytes();
                let mut vals = [0u64; 4];
                for (k, val) in vals.iter_mut().enumerate().take(n as usize) {
                    let at = base.wrapping_add((k * size) as u64);
                    let raw = self.load(ctx, depth, space, at, size)?;
                    *val = if ty.signed() { sx(raw, ty.bits()) as u64 } else { raw };
                }
                let regs = &mut self.frames[depth].regs;
                for k in 0..n as usize {
                    regs[ds[k] as usize] = vals[k];
                }
                return Ok(Flow::Next);
            }
            Op::St { space, ty, n, srcs, addr } => {
                let base = addr.base.map_or(0, |r| frame.regs[r as usize]).wrapping_add(addr.off as u64);
                let size = ty.bytes();
                let vals: [u64; 4] = [get(srcs[0]), get(srcs[1]), get(srcs[2]), get(srcs[3])];
                for (k, &val) in vals.iter().enumerate().take(n as usize) {
                    self.store(ctx, depth, space, base.wrapping_add((k * size) as u64), size, val)?;
                }
                return Ok(Flow::Next);
            }
            Op::Bra { target } => {
                self.frames[depth].pc = target;
                return Ok(Flow::Next);
            }
            Op::Bar => return Ok(Flow::Bar),
            Op::Ret => return Ok(Flow::Ret),
            Op::Call { func, ref args, ref rets } => {
                let callee = &ctx.module.functions[func as usize];
                if !callee.defined {
                    return Err((LAUNCH_FAILED, format!("call of {} which has no body", callee.name)));
                }
                let mut param = vec![0u8; callee.param_size as usize];
                for &(caller_off, callee_off, size) in args.iter() {
                    let (c, e, n) = (caller_off as usize, callee_off as usize, size as usize);
                    param[e..e + n].copy_from_slice(&frame.param[c..c + n]);
                }
                return Ok(Flow::Call(func, param, rets.clone()));
            }
        };
        self.frames[depth].regs[d as usize] = v;
        Ok(Flow::Next)
    }

    fn load(&mut self, ctx: &mut BlockCtx<'_>, depth: usize, space: Space, at: u64, size: usize) -> Result<u64, Fault> {
        match space {
            Space::Param => read_buf(&self.frames[depth].param, at, size, "param"),
            Space::Local => {
                aligned(at, size, "local")?;
                read_buf(&self.frames[depth].local, at, size, "local")
            }
            Space::Shared => {
                aligned(at, size, "shared")?;
                let v = read_buf(&ctx.shared, at, size, "shared")?;
                if ctx.check_races {
                    ctx.race
                        .access(at as usize, size, self.linear, false)
                        .map_err(|r| race_fault(r, self.linear, false))?;
                }
                Ok(v)
            }
            Space::Global | Space::Const => load_global(ctx.mem, at, size),
        }
    }

    fn store(
        &mut self,
        ctx: &mut BlockCtx<'_>,
        depth: usize,
        space: Space,
        at: u64,
        size: usize,
        v: u64,
    ) -> Result<(), Fault> {
        match space {
            Space::Param => write_buf(&mut self.frames[depth].param, at, size, v, "param"),
            Space::Local => {
                aligned(at, size, "local")?;
                write_buf(&mut self.frames[depth].local, at, size, v, "local")
            }
            Space::Shared => {
                aligned(at, size, "shared")?;
                write_buf(&mut ctx.shared, at, size, v, "shared")?;
                if ctx.check_races {
                    ctx.race
                        .access(at as usize, size, self.linear, true)
                        .map_err(|r| race_fault(r, self.linear, true))?;
                }
                Ok(())
            }
            Space::Global | Space::Const => store_global(ctx.mem, at, size, v),
        }
    }
}

fn race_fault(r: super::race::Race, me: u32, wrote: bool) -> Fault {
    let other = match r.other {
        Some(t) => format!("thread {t}"),
        None => "several threads".into(),
    };
    (
        LAUNCH_FAILED,
        format!(
            "shared-memory race at shared offset {}: this thread ({me}) {} it after {other} {} it, with no barrier between (a missing __syncthreads?)",
            r.offset,
            if wrote { "wrote" } else { "read" },
            if r.other_wrote { "wrote" } else { "read" },
        ),
    )
}

/// `setp` on raw bits.
pub fn setp(cmp: Cmp, ty: Ty, a: u64, b: u64) -> bool {
    match ty {
        Ty::F32 => fcmp(cmp, f64::from(f32::from_bits(a as u32)), f64::from(f32::from_bits(b as u32))),
        Ty::F64 => fcmp(cmp, f64::from_bits(a), f64::from_bits(b)),
        _ => {
            let bits = ty.bits();
            let ord = if ty.signed() { sx(a, bits).cmp(&sx(b, bits)) } else { zx(a, bits).cmp(&zx(b, bits)) };
            use std::cmp::Ordering::*;
            match cmp {
                Cmp::Eq | Cmp::Equ => ord == Equal,
                Cmp::Ne | Cmp::Neu => ord != Equal,
                Cmp::Lt | Cmp::Ltu => ord == Less,
                Cmp::Le | Cmp::Leu => ord != Greater,
                Cmp::Gt | Cmp::Gtu => ord == Greater,
                Cmp::Ge | Cmp::Geu => ord != Less,
                Cmp::Num => true,
                Cmp::Nan => false,
            }
        }
    }
}
