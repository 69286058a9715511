//! The PTX parser: module-level variables and function declarations, and function bodies with
//! their registers, `.local`/`.shared`/`.param` variables, scopes, labels and instructions.
//! Operands are resolved here (registers to indices, symbols to addresses or offsets, labels
//! to instruction indices); `decode.rs` turns each instruction into an [`Op`].

use std::collections::HashMap;

use super::decode::{decode, Opnd};
use super::ir::{Addr, Function, Global, Inst, Module, Op, Param, Src, Sreg, Ty};
use super::lex::{lex, Tok};

/// What a name stands for in a function body.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Sym {
    Reg(u32),
    /// An offset in the function's param space.
    Param(u32),
    /// An offset in the block's shared memory.
    Shared(u32),
    /// An offset in the thread's local memory (this call's frame).
    Local(u32),
    /// A module `.global` variable's device address.
    Global(u64),
}

impl Sym {
    /// The symbol's address as an immediate (`mov.u64 %rd, sym`).
    pub(crate) fn address(self) -> Option<u64> {
        match self {
            Sym::Reg(_) => None,
            Sym::Param(o) | Sym::Shared(o) | Sym::Local(o) => Some(o as u64),
            Sym::Global(a) => Some(a),
        }
    }
}

/// Allocates a module `.global` variable of `size` bytes with initial bytes `init`: its address.
pub type GlobalAlloc<'a> = dyn FnMut(&str, usize, &[u8]) -> Result<u64, String> + 'a;

struct Parser<'a> {
    toks: Vec<(Tok, u32)>,
    i: usize,
    module: Module,
    module_syms: HashMap<String, Sym>,
    functions: HashMap<String, usize>,
    alloc_global: &'a mut GlobalAlloc<'a>,
}

/// A variable declaration: `[.align N] .type name[dims] [= init]`.
struct Var {
    name: String,
    align: u32,
    size: u32,
    init: Vec<u8>,
}

fn align_up(x: u32, a: u32) -> u32 {
    x.div_ceil(a.max(1)) * a.max(1)
}

/// Parses PTX `text` into a module; `.global` variables are allocated through `alloc_global`.
///
/// # Errors
///
/// A message with the PTX line for text the parser or decoder does not accept.
pub fn parse_module<'a>(text: &str, alloc_global: &'a mut GlobalAlloc<'a>) -> Result<Module, String> {
    let toks = lex(text)?;
    let mut p = Parser {
        toks,
        i: 0,
        module: Module::default(),
        module_syms: HashMap::new(),
        functions: HashMap::new(),
        alloc_global,
    };
    p.module_level()?;
    for f in &p.module.functions {
        if !f.defined && f.is_entry {
            return Err(format!("entry {} has no body", f.name));
        }
    }
    Ok(p.module)
}

impl Parser<'_> {
    fn line(&self) -> u32 {
        self.toks.get(self.i).or(self.toks.last()).map_or(0, |t| t.1)
    }

    fn err<T>(&self, what: impl std::fmt::Display) -> Result<T, String> {
        Err(format!("PTX line {}: {what}", self.line()))
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.0)
    }

    fn next(&mut self) -> Result<Tok, String> {
        let t = self.toks.get(self.i).map(|t| t.0.clone());
        self.i += 1;
        t.ok_or_else(|| "unexpected end of PTX".to_string())
    }

    fn at(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }

    fn eat(&mut self, c: char) -> bool {
        let hit = self.at(c);
        if hit {
            self.i += 1;
        }
        hit
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            self.err(format!("expected `{c}`, found {:?}", self.peek()))
        }
    }

    fn word(&mut self) -> Result<String, String> {
        match self.next()? {
            Tok::Word(w) => Ok(w),
            t => {
                self.i -= 1;
                self.err(format!("expected a word, found {t:?}"))
            }
        }
    }

    fn number(&mut self) -> Result<i64, String> {
        let neg = self.eat('-');
        let w = self.word()?;
        let v = parse_int(&w).ok_or_else(|| format!("PTX line {}: `{w}` is not an integer", self.line()))?;
        Ok(if neg { v.wrapping_neg() } else { v })
    }

    fn skip_to(&mut self, c: char) -> Result<(), String> {
        while !self.eat(c) {
            self.next()?;
        }
        Ok(())
    }

    fn module_level(&mut self) -> Result<(), String> {
        while let Some(t) = self.peek().cloned() {
            let Tok::Word(w) = t else { return self.err(format!("unexpected {t:?} at module level")) };
            self.i += 1;
            match w.as_str() {
                ".version" | ".target" | ".address_size" => {
                    self.word()?;
                    while self.eat(',') {
                        self.word()?;
                    }
                }
                ".visible" | ".weak" | ".extern" => {}
                ".entry" => self.function(true)?,
                ".func" => self.function(false)?,
                ".global" | ".const" => {
                    let v = self.var()?;
                    let addr = (self.alloc_global)(&v.name, v.size as usize, &v.init)?;
                    self.module.globals.push(Global { name: v.name.clone(), addr, size: v.size as usize });
                    self.module_syms.insert(v.name, Sym::Global(addr));
                }
                ".shared" => {
                    let v = self.var()?;
                    let off = align_up(self.module.module_shared, v.align);
                    self.module.module_shared = off + v.size;
                    self.module_syms.insert(v.name, Sym::Shared(off));
                }
                _ => self.skip_to(';')?,
            }
        }
        Ok(())
    }

    /// `[.align N] [.ptr ...] .type name[dims]* [= init] ;` (the `;` is consumed when present).
    fn var(&mut self) -> Result<Var, String> {
        let mut align = 0;
        let mut ty = None;
        let name = loop {
            let w = self.word()?;
            if w == ".align" {
                align = self.number()? as u32;
            } else if let Some(t) = w.strip_prefix('.').and_then(Ty::parse) {
                ty = Some(t);
            } else if !w.starts_with('.') {
                break w;
            }
        };
        let ty = ty.ok_or_else(|| format!("PTX line {}: variable {name} without a type", self.line()))?;
        let mut count = 1u32;
        while self.eat('[') {
            if self.eat(']') {
                return self.err(format!("{name}: dynamic (extern) shared arrays are not supported by the sim"));
            }
            count *= self.number()? as u32;
            self.expect(']')?;
        }
        let elem = ty.bytes() as u32;
        let mut init = Vec::new();
        if self.eat('=') {
            let braces = self.eat('{');
            loop {
                let v = self.number()?;
                init.extend_from_slice(&v.to_le_bytes()[..elem as usize]);
                if !braces || !self.eat(',') {
                    break;
                }
            }
            if braces {
                self.expect('}')?;
            }
        }
        self.eat(';');
        Ok(Var { name, align: if align == 0 { elem } else { align }, size: elem * count, init })
    }

    /// `( .param ... , ... )` laid out from `start` in a param space: the params and the end.
    fn param_list(&mut self, start: u32) -> Result<(Vec<Param>, u32), String> {
        let mut out = Vec::new();
        let mut end = start;
        self.expect('(')?;
        while !self.eat(')') {
            let w = self.word()?;
            if w != ".param" && w != ".reg" {
                return self.err(format!("expected .param, found {w}"));
            }
            let v = self.var()?;
            let off = align_up(end, v.align);
            end = off + v.size;
            out.push(Param { name: v.name, off, size: v.size });
            self.eat(',');
        }
        Ok((out, end))
    }

    fn function(&mut self, entry: bool) -> Result<(), String> {
        let (rets, ret_end) = if self.at('(') { self.param_list(0)? } else { (Vec::new(), 0) };
        let name = self.word()?;
        let (params, end) = if self.at('(') { self.param_list(ret_end)? } else { (Vec::new(), ret_end) };
        // Performance directives (.maxntid, .reqntid, .minnctapersm, .noreturn, ...).
        while !self.at('{') && !self.at(';') {
            self.next()?;
        }
        let index = match self.functions.get(&name) {
            Some(&k) => k,
            None => {
                self.module.functions.push(Function { name: name.clone(), is_entry: entry, ..Function::default() });
                self.functions.insert(name.clone(), self.module.functions.len() - 1);
                self.module.functions.len() - 1
            }
        };
        {
            let f = &mut self.module.functions[index];
            f.params = params;
            f.rets = rets;
            f.param_size = end;
        }
        if self.eat(';') {
            return Ok(());
        }
        self.expect('{')?;
        self.body(index)
    }

    fn body(&mut self, index: usize) -> Result<(), String> {
        let mut f = std::mem::take(&mut self.module.functions[index]);
        let mut scopes: Vec<HashMap<String, Sym>> = vec![HashMap::new()];
        for p in f.params.iter().chain(&f.rets) {
            scopes[0].insert(p.name.clone(), Sym::Param(p.off));
        }
        let mut labels: HashMap<String, u32> = HashMap::new();
        let mut fixups: Vec<(usize, String)> = Vec::new();
        let shared_base = self.module.module_shared;
        loop {
            let line = self.line();
            match self.next()? {
                Tok::Punct('{') => scopes.push(HashMap::new()),
                Tok::Punct('}') => {
                    scopes.pop();
                    if scopes.is_empty() {
                        break;
                    }
                }
                Tok::Punct(';') => {}
                Tok::Word(w) if w.starts_with('.') => match w.as_str() {
                    ".reg" => self.regs(&mut f, scopes.last_mut().expect("a scope"))?,
                    ".local" | ".shared" | ".param" => {
                        let v = self.var()?;
                        let sym = match w.as_str() {
                            ".local" => {
                                let off = align_up(f.local_size, v.align);
                                f.local_size = off + v.size;
                                Sym::Local(off)
                            }
                            ".shared" => {
                                let off = align_up(f.shared_size, v.align);
                                f.shared_size = off + v.size;
                                Sym::Shared(shared_base + off)
                            }
                            _ => {
                                let off = align_up(f.param_size, v.align.max(1));
                                f.param_size = off + v.size;
                                Sym::Param(off)
                            }
                        };
                        scopes.last_mut().expect("a scope").insert(v.name, sym);
                    }
                    _ => self.skip_to(';')?,
                },
                Tok::Word(w) if self.at(':') => {
                    self.i += 1;
                    labels.insert(w, f.body.len() as u32);
                }
                Tok::Punct('@') => {
                    let neg = self.eat('!');
                    let p = self.word()?;
                    let Some(Sym::Reg(r)) = lookup(&scopes, &p) else {
                        return self.err(format!("unknown predicate {p}"));
                    };
                    let opcode = self.word()?;
                    self.instruction(&mut f, &scopes, Some((r, neg)), opcode, line, &mut fixups)?;
                }
                Tok::Word(opcode) => self.instruction(&mut f, &scopes, None, opcode, line, &mut fixups)?,
                t => return self.err(format!("unexpected {t:?} in a function body")),
            }
        }
        for (at, label) in fixups {
            let Some(&target) = labels.get(&label) else { return Err(format!("{}: unknown label {label}", f.name)) };
            if let Op::Bra { target: t } = &mut f.body[at].op {
                *t = target;
            }
        }
        f.defined = true;
        self.module.functions[index] = f;
        Ok(())
    }

    /// `.reg .type name<N>, other;`
    fn regs(&mut self, f: &mut Function, scope: &mut HashMap<String, Sym>) -> Result<(), String> {
        loop {
            let w = self.word()?;
            if w.starts_with('.') {
                continue;
            }
            if self.eat('<') {
                let n = self.number()?;
                self.expect('>')?;
                for k in 0..n {
                    let name = format!("{w}{k}");
                    scope.insert(name.clone(), Sym::Reg(f.nregs));
                    f.reg_names.push(name);
                    f.nregs += 1;
                }
            } else {
                scope.insert(w.clone(), Sym::Reg(f.nregs));
                f.reg_names.push(w);
                f.nregs += 1;
            }
            if !self.eat(',') {
                break;
            }
        }
        self.expect(';')
    }

    fn instruction(
        &mut self,
        f: &mut Function,
        scopes: &[HashMap<String, Sym>],
        guard: Option<(u32, bool)>,
        opcode: String,
        line: u32,
        fixups: &mut Vec<(usize, String)>,
    ) -> Result<(), String> {
        let mut operands = Vec::new();
        while !self.eat(';') {
            operands.push(self.operand(scopes)?);
            self.eat(',');
        }
        let op = decode(&opcode, &operands, &self.module.functions, f)
            .map_err(|e| format!("PTX line {line}: `{opcode}`: {e}"))?;
        if let (Op::Bra { .. }, Some(Opnd::Label(l))) = (&op, operands.first()) {
            fixups.push((f.body.len(), l.clone()));
        }
        f.body.push(Inst { guard, op, line });
        Ok(())
    }

    fn operand(&mut self, scopes: &[HashMap<String, Sym>]) -> Result<Opnd, String> {
        match self.next()? {
            Tok::Punct('[') => {
                let mut addr = Addr { base: None, off: 0 };
                loop {
                    let neg = self.eat('-');
                    let w = self.word()?;
                    match self.resolve(scopes, &w)? {
                        Opnd::Reg(r) => addr.base = Some(r),
                        Opnd::Sym(s) => addr.off += s.address().unwrap_or(0) as i64,
                        Opnd::Imm(v) => addr.off += if neg { (v as i64).wrapping_neg() } else { v as i64 },
                        other => return self.err(format!("bad address part {other:?}")),
                    }
                    if !self.eat('+') {
                        break;
                    }
                }
                self.expect(']')?;
                Ok(Opnd::Addr(addr))
            }
            Tok::Punct('{') => {
                let mut parts = Vec::new();
                while !self.eat('}') {
                    parts.push(self.operand(scopes)?);
                    self.eat(',');
                }
                Ok(Opnd::Vec(parts))
            }
            Tok::Punct('(') => {
                let mut parts = Vec::new();
                while !self.eat(')') {
                    parts.push(self.operand(scopes)?);
                    self.eat(',');
                }
                Ok(Opnd::List(parts))
            }
            Tok::Punct('-') => {
                let w = self.word()?;
                match parse_int(&w) {
                    Some(v) => Ok(Opnd::Imm(v.wrapping_neg() as u64)),
                    None => self.err(format!("bad negative literal {w}")),
                }
            }
            Tok::Punct('!') => self.err("negated predicate operands are not supported"),
            Tok::Word(w) => {
                let o = self.resolve(scopes, &w)?;
                // `sym+4` outside brackets.
                if let Opnd::Sym(s) = o {
                    if self.at('+') {
                        self.i += 1;
                        let k = self.number()?;
                        return Ok(Opnd::Imm(s.address().unwrap_or(0).wrapping_add(k as u64)));
                    }
                }
                Ok(o)
            }
            t => self.err(format!("unexpected operand {t:?}")),
        }
    }

    fn resolve(&self, scopes: &[HashMap<String, Sym>], w: &str) -> Result<Opnd, String> {
        if let Some(s) = lookup(scopes, w).or_else(|| self.module_syms.get(w).copied()) {
            return Ok(match s {
                Sym::Reg(r) => Opnd::Reg(r),
                s => Opnd::Sym(s),
            });
        }
        if let Some(s) = special(w) {
            return Ok(Opnd::Special(s));
        }
        if w.starts_with(|c: char| c.is_ascii_digit()) {
            return parse_literal(w).map(Opnd::Imm).ok_or_else(|| format!("PTX line {}: bad literal {w}", self.line()));
        }
        if w == "_" {
            return Ok(Opnd::Sink);
        }
        if let Some(&k) = self.functions.get(w) {
            return Ok(Opnd::Func(k as u32));
        }
        if w.starts_with('%') {
            return self.err(format!("unknown register {w}"));
        }
        Ok(Opnd::Label(w.to_string()))
    }
}

fn lookup(scopes: &[HashMap<String, Sym>], w: &str) -> Option<Sym> {
    scopes.iter().rev().find_map(|s| s.get(w).copied())
}

fn special(w: &str) -> Option<Sreg> {
    let axis = |s: &str| match s {
        "x" => Some(0u8),
        "y" => Some(1),
        "z" => Some(2),
        _ => None,
    };
    let (name, ax) = w.split_once('.').unwrap_or((w, ""));
    Some(match name {
        "%tid" => Sreg::Tid(axis(ax)?),
        "%ntid" => Sreg::Ntid(axis(ax)?),
        "%ctaid" => Sreg::Ctaid(axis(ax)?),
        "%nctaid" => Sreg::Nctaid(axis(ax)?),
        "%laneid" => Sreg::LaneId,
        "%warpid" => Sreg::WarpId,
        _ => return None,
    })
}

/// An integer literal: decimal, `0x` hex, `0b` binary, or octal with a leading 0.
pub(crate) fn parse_int(w: &str) -> Option<i64> {
    let w = w.strip_suffix('U').unwrap_or(w);
    let v: i128 = if let Some(h) = w.strip_prefix("0x").or_else(|| w.strip_prefix("0X")) {
        i128::from_str_radix(h, 16).ok()?
    } else if let Some(b) = w.strip_prefix("0b") {
        i128::from_str_radix(b, 2).ok()?
    } else if w.len() > 1 && w.starts_with('0') {
        i128::from_str_radix(&w[1..], 8).ok()?
    } else {
        w.parse().ok()?
    };
    Some(v as i64)
}

/// A literal as raw bits: integers, `0fXXXXXXXX` (f32 bits) and `0dXXXXXXXXXXXXXXXX` (f64 bits).
pub(crate) fn parse_literal(w: &str) -> Option<u64> {
    if let Some(h) = w.strip_prefix("0f").or_else(|| w.strip_prefix("0F")) {
        return u32::from_str_radix(h, 16).ok().map(u64::from);
    }
    if let Some(h) = w.strip_prefix("0d").or_else(|| w.strip_prefix("0D")) {
        return u64::from_str_radix(h, 16).ok();
    }
    if w.contains('.') {
        return w.parse::<f64>().ok().map(f64::to_bits);
    }
    parse_int(w).map(|v| v as u64)
}

/// The register, immediate or special-register operand `o` as a source.
pub(crate) fn src(o: &Opnd) -> Result<Src, String> {
    match o {
        Opnd::Reg(r) => Ok(Src::Reg(*r)),
        Opnd::Imm(v) => Ok(Src::Imm(*v)),
        Opnd::Special(s) => Ok(Src::Special(*s)),
        Opnd::Sym(s) => s.address().map(Src::Imm).ok_or_else(|| "a register symbol".to_string()),
        other => Err(format!("expected a register or immediate, found {other:?}")),
    }
}

/// The destination register of operand `o`.
pub(crate) fn dst(o: &Opnd) -> Result<u32, String> {
    match o {
        Opnd::Reg(r) => Ok(*r),
        other => Err(format!("expected a destination register, found {other:?}")),
    }
}
