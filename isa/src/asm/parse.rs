//! Statement level of the assembler: one line of code (comment removed) →
//! labels, a directive or an instruction whose symbolic operand (at most
//! one per instruction) is resolved later.

use nom::character::complete::{char, multispace0};
use nom::sequence::{pair, terminated};

use super::lex::{
    atom, ident, is_param_name, is_register_like, is_symbol_name, parse_number, parse_pred,
    parse_reg, raw, shorten, Cursor, Res,
};
use crate::instr::*;

/// A number or a name (label, `.equ` constant or, for `ldparam`, parameter).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Value {
    Num(i64),
    Sym(String),
}

/// A value operand and where it was written. `negate` is set for the
/// offset of `[rs - x]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Val {
    pub value: Value,
    pub at: usize,
    pub negate: bool,
}

/// Where a resolved value goes in the instruction (each instruction has at
/// most one value operand); decides the allowed range and the message for an
/// undefined name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    AluImm,
    MovI,
    MovHi,
    SetPImm,
    Param,
    Offset,
    Target,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Stmt {
    Label {
        name: String,
        at: usize,
    },
    Entry {
        name: String,
        at: usize,
    },
    Param {
        name: String,
        at: usize,
    },
    Shared {
        at: usize,
        val: Val,
    },
    Stack {
        at: usize,
        val: Val,
    },
    Equ {
        name: String,
        at: usize,
        val: Val,
    },
    Word {
        at: usize,
        vals: Vec<Val>,
    },
    Instr {
        at: usize,
        instr: Instr,
        slot: Option<(Slot, Val)>,
    },
    /// `li rd, value`: one or two words depending on the value.
    Li {
        at: usize,
        guard: Guard,
        rd: Reg,
        val: Val,
    },
}

/// What a mnemonic stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    Alu(AluOp),
    MovI,
    MovHi,
    SetP(Cmp),
    PLogic(PredOp),
    Sel,
    S2R,
    LdParam,
    Load(Space, LoadWidth),
    Store(Space, StoreWidth),
    Atom(Space, AtomOp),
    Bra,
    BraCons(Consensus),
    Jmp,
    Call,
    CallR,
    Ret,
    Bar,
    Exit,
    Nop,
    Vote(VoteKind),
    Ballot,
    Mov,
    Li,
    PMov,
}

fn find<T: Copy>(all: &[T], name: &str, f: impl Fn(T) -> &'static str) -> Option<T> {
    all.iter().copied().find(|x| f(*x) == name)
}

fn mnemonic(m: &str) -> Option<Form> {
    if let Some(op) = find(&AluOp::ALL, m, AluOp::mnemonic) {
        return Some(Form::Alu(op));
    }
    if let Some(op) = find(&PredOp::ALL, m, PredOp::mnemonic) {
        return Some(Form::PLogic(op));
    }
    let simple = match m {
        "movi" => Some(Form::MovI),
        "movhi" => Some(Form::MovHi),
        "sel" => Some(Form::Sel),
        "s2r" => Some(Form::S2R),
        "ldparam" => Some(Form::LdParam),
        "bra" => Some(Form::Bra),
        "jmp" => Some(Form::Jmp),
        "call" => Some(Form::Call),
        "callr" => Some(Form::CallR),
        "ret" => Some(Form::Ret),
        "bar" | "bar.sync" => Some(Form::Bar),
        "exit" => Some(Form::Exit),
        "nop" => Some(Form::Nop),
        "vote.ballot" => Some(Form::Ballot),
        "mov" => Some(Form::Mov),
        "li" => Some(Form::Li),
        "pmov" => Some(Form::PMov),
        _ => None,
    };
    if simple.is_some() {
        return simple;
    }
    let space = |s: &str| find(&Space::ALL, s, Space::name);
    let parts: Vec<&str> = m.split('.').collect();
    match parts.as_slice() {
        ["setp", c] => find(&Cmp::ALL, c, Cmp::suffix).map(Form::SetP),
        ["ld", s] => Some(Form::Load(space(s)?, LoadWidth::B32)),
        ["ld", s, w] => Some(Form::Load(
            space(s)?,
            find(&LoadWidth::ALL, w, LoadWidth::suffix)?,
        )),
        ["st", s] => Some(Form::Store(space(s)?, StoreWidth::B32)),
        ["st", s, w] => Some(Form::Store(
            space(s)?,
            find(&StoreWidth::ALL, w, StoreWidth::suffix)?,
        )),
        ["atom", s, o] => Some(Form::Atom(
            space(s)?,
            find(&AtomOp::ALL, o, AtomOp::suffix)?,
        )),
        ["bra", k] => find(&Consensus::ALL, k, Consensus::suffix).map(Form::BraCons),
        ["vote", k] => find(&[VoteKind::Any, VoteKind::All], k, VoteKind::suffix).map(Form::Vote),
        _ => None,
    }
}

/// Parses one line's code (comment already removed).
pub(crate) fn parse_line(text: &str) -> Res<Vec<Stmt>> {
    let mut c = Cursor::new(text);
    let mut out = Vec::new();
    // Labels: `name:`, any number of them.
    loop {
        if c.at_end() {
            return Ok(out);
        }
        let save = c.pos;
        match c.run(terminated(ident, pair(multispace0, char(':')))) {
            Some((at, name)) => {
                if is_register_like(name) {
                    return Err(raw(
                        at,
                        format!("`{name}` is a register name and cannot be a label"),
                    ));
                }
                out.push(Stmt::Label {
                    name: name.to_string(),
                    at,
                });
            }
            None => {
                c.pos = save;
                break;
            }
        }
    }
    if c.peek() == Some('.') {
        out.push(directive(&mut c)?);
    } else {
        out.push(instruction(&mut c)?);
    }
    Ok(out)
}

/// Operand list parsing: commas between operands, and the errors for missing
/// and extra operands.
struct Ops<'c, 'a> {
    c: &'c mut Cursor<'a>,
    count: usize,
}

impl<'c, 'a> Ops<'c, 'a> {
    fn new(c: &'c mut Cursor<'a>) -> Self {
        Ops { c, count: 0 }
    }

    /// Moves to the start of the next operand.
    fn start(&mut self, what: &str) -> Res<()> {
        let missing = |at| raw(at, format!("missing operand: expected {what}"));
        if self.count > 0 {
            if self.c.at_end() {
                return Err(missing(self.c.pos));
            }
            if !self.c.eat(',') {
                return Err(raw(
                    self.c.pos,
                    format!("expected `,` before {what}, {}", self.c.found()),
                ));
            }
        }
        self.count += 1;
        if self.c.at_end() {
            return Err(missing(self.c.pos));
        }
        Ok(())
    }

    /// Nothing may follow the last operand.
    fn end(&mut self, mnemonic: &str) -> Res<()> {
        if self.c.at_end() {
            return Ok(());
        }
        let at = self.c.pos;
        if self.c.eat(',') {
            if self.c.at_end() {
                return Err(raw(at, "trailing `,` after the last operand"));
            }
            let n = self.count;
            return Err(raw(
                self.c.pos,
                format!(
                    "extra operand: `{mnemonic}` takes {n} operand{}",
                    if n == 1 { "" } else { "s" }
                ),
            ));
        }
        Err(raw(
            at,
            format!("unexpected `{}` after the operands", self.c.token()),
        ))
    }

    fn reg(&mut self) -> Res<Reg> {
        self.start("a register")?;
        reg_here(self.c)
    }

    fn pred(&mut self) -> Res<Pred> {
        self.start("a predicate")?;
        pred_here(self.c)
    }

    fn pred_src(&mut self) -> Res<PredSrc> {
        self.start("a predicate")?;
        pred_src_here(self.c)
    }

    fn value(&mut self, what: &str) -> Res<Val> {
        self.start(what)?;
        value_here(self.c, what)
    }

    /// The operand of `ldparam`: a value, or a parameter name even when it
    /// is shaped like a register.
    fn param(&mut self) -> Res<Val> {
        let what = "a parameter index or name";
        self.start(what)?;
        match self.c.run(atom) {
            Some((at, t)) if is_register_like(t) && is_param_name(t) => Ok(Val {
                value: Value::Sym(t.to_string()),
                at,
                negate: false,
            }),
            Some((at, t)) => classify_value(at, t, what),
            None => Err(raw(
                self.c.pos,
                format!("expected {what}, {}", self.c.found()),
            )),
        }
    }

    /// A register or an immediate; `no_imm` is the message to give for a
    /// number when the operation has no immediate form.
    fn reg_or_imm(&mut self, no_imm: Option<String>) -> Res<Result<Reg, Val>> {
        self.start("a register or an immediate")?;
        let Some((at, t)) = self.c.run(atom) else {
            return Err(raw(
                self.c.pos,
                format!("expected a register or an immediate, {}", self.c.found()),
            ));
        };
        let numeric = t.starts_with('-') || t.starts_with(|ch: char| ch.is_ascii_digit());
        if let (true, Some(message)) = (numeric, &no_imm) {
            return Err(raw(at, message.clone()));
        }
        if is_register_like(t) || no_imm.is_some() {
            return parse_reg(t)
                .map(Ok)
                .ok_or_else(|| raw(at, format!("bad register `{}`", shorten(t))));
        }
        classify_value(at, t, "a register or an immediate").map(Err)
    }

    /// `[rs]`, `[rs+x]`, `[rs - x]`.
    fn mem(&mut self) -> Res<(Reg, Option<Val>)> {
        self.start("a memory operand `[rN+offset]`")?;
        let c = &mut *self.c;
        if !c.eat('[') {
            return Err(raw(
                c.pos,
                format!("expected a memory operand `[rN+offset]`, {}", c.found()),
            ));
        }
        c.ws();
        let base = reg_here(c)?;
        c.ws();
        let mut offset = None;
        let negate = if c.eat('+') {
            Some(false)
        } else if c.eat('-') {
            Some(true)
        } else {
            None
        };
        if let Some(negate) = negate {
            c.ws();
            if c.rest().is_empty() {
                return Err(raw(c.pos, "missing operand: expected an offset"));
            }
            let mut v = value_here(c, "an offset")?;
            v.negate = negate;
            offset = Some(v);
            c.ws();
        }
        if !c.eat(']') {
            return Err(raw(c.pos, format!("expected `]`, {}", c.found())));
        }
        Ok((base, offset))
    }

    fn special(&mut self) -> Res<SpecialReg> {
        self.start("a special register `%name`")?;
        let start = self.c.pos;
        match self.c.run(atom) {
            Some((at, t)) if t.starts_with('%') => SpecialReg::ALL
                .iter()
                .copied()
                .find(|s| s.name() == &t[1..])
                .ok_or_else(|| raw(at, format!("unknown special register `{}`", shorten(t)))),
            _ => {
                self.c.pos = start;
                Err(raw(
                    start,
                    format!("expected a special register `%name`, {}", self.c.found()),
                ))
            }
        }
    }
}

fn reg_here(c: &mut Cursor) -> Res<Reg> {
    match c.run(atom) {
        Some((at, t)) => {
            parse_reg(t).ok_or_else(|| raw(at, format!("bad register `{}`", shorten(t))))
        }
        None => Err(raw(c.pos, format!("expected a register, {}", c.found()))),
    }
}

fn pred_here(c: &mut Cursor) -> Res<Pred> {
    match c.run(atom) {
        Some((at, t)) => {
            parse_pred(t).ok_or_else(|| raw(at, format!("bad predicate `{}`", shorten(t))))
        }
        None => Err(raw(c.pos, format!("expected a predicate, {}", c.found()))),
    }
}

fn pred_src_here(c: &mut Cursor) -> Res<PredSrc> {
    let negate = c.eat('!');
    c.ws();
    Ok(PredSrc::new(pred_here(c)?, negate))
}

fn value_here(c: &mut Cursor, what: &str) -> Res<Val> {
    match c.run(atom) {
        Some((at, t)) => classify_value(at, t, what),
        None => Err(raw(c.pos, format!("expected {what}, {}", c.found()))),
    }
}

/// A number or a symbol name.
fn classify_value(at: usize, t: &str, what: &str) -> Res<Val> {
    let value = if t.starts_with('-') || t.starts_with(|ch: char| ch.is_ascii_digit()) {
        Value::Num(parse_number(t).map_err(|m| raw(at, m))?)
    } else if is_symbol_name(t) {
        Value::Sym(t.to_string())
    } else {
        return Err(raw(at, format!("expected {what}, found `{}`", shorten(t))));
    };
    Ok(Val {
        value,
        at,
        negate: false,
    })
}

/// "a" or "an" before `noun`.
fn article(noun: &str) -> &'static str {
    if noun.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// A name being defined by a directive; `what` is the kind of name.
fn name_here(c: &mut Cursor, what: &str) -> Res<(usize, String)> {
    let a = article(what);
    if c.at_end() {
        return Err(raw(
            c.pos,
            format!("missing operand: expected {a} {what} name"),
        ));
    }
    match c.run(atom) {
        Some((at, t)) if is_symbol_name(t) => Ok((at, t.to_string())),
        Some((at, t)) if what == "parameter" && is_param_name(t) => Ok((at, t.to_string())),
        Some((at, t)) if is_register_like(t) => Err(raw(
            at,
            format!("`{t}` is a register name and cannot name {a} {what}"),
        )),
        Some((at, t)) => Err(raw(at, format!("bad {what} name `{}`", shorten(t)))),
        None => Err(raw(
            c.pos,
            format!("expected {a} {what} name, {}", c.found()),
        )),
    }
}

fn directive(c: &mut Cursor) -> Res<Stmt> {
    let Some((at, name)) = c.run(atom) else {
        return Err(raw(c.pos, format!("bad directive `{}`", c.token())));
    };
    let end = |c: &mut Cursor, extra: &str| {
        if c.at_end() {
            Ok(())
        } else {
            Err(raw(
                c.pos,
                format!("unexpected `{}` after {extra}", c.token()),
            ))
        }
    };
    let stmt = match name {
        ".entry" => {
            c.ws();
            let (at, name) = name_here(c, "entry")?;
            end(c, "the entry name")?;
            Stmt::Entry { name, at }
        }
        ".param" => {
            c.ws();
            let (at, name) = name_here(c, "parameter")?;
            end(c, "the parameter name")?;
            Stmt::Param { name, at }
        }
        ".shared" => {
            let val = Ops::new(c).value("a size in bytes")?;
            end(c, "the size")?;
            Stmt::Shared { at, val }
        }
        ".stack" => {
            let val = Ops::new(c).value("a size in bytes")?;
            end(c, "the size")?;
            Stmt::Stack { at, val }
        }
        ".equ" => {
            c.ws();
            let (at, name) = name_here(c, "constant")?;
            let mut ops = Ops::new(c);
            ops.count = 1;
            let val = ops.value("a value")?;
            end(c, "the value")?;
            Stmt::Equ { name, at, val }
        }
        ".word" => {
            let mut ops = Ops::new(c);
            let mut vals = vec![ops.value("a value or label")?];
            while !ops.c.at_end() {
                vals.push(ops.value("a value or label")?);
            }
            Stmt::Word { at, vals }
        }
        _ => return Err(raw(at, format!("unknown directive `{}`", shorten(name)))),
    };
    Ok(stmt)
}

fn instruction(c: &mut Cursor) -> Res<Stmt> {
    let mut guard = Guard::TRUE;
    if c.eat('@') {
        c.ws();
        guard = pred_src_here(c)?;
        if c.at_end() {
            return Err(raw(c.pos, "missing instruction after the guard"));
        }
    }
    let Some((at, m)) = c.run(atom) else {
        return Err(raw(
            c.pos,
            format!("expected an instruction, {}", c.found()),
        ));
    };
    let form = mnemonic(m).ok_or_else(|| {
        if m.starts_with('.') && guard != Guard::TRUE {
            raw(at, "a directive cannot be guarded")
        } else {
            raw(at, format!("unknown mnemonic `{}`", shorten(m)))
        }
    })?;
    let mut o = Ops::new(c);
    let mut slot = None;
    let mut li = None;
    let op = match form {
        Form::Alu(op) => {
            let rd = o.reg()?;
            let rs1 = o.reg()?;
            let no_imm =
                (!op.has_imm_form()).then(|| format!("`{}` has no immediate form", op.mnemonic()));
            match o.reg_or_imm(no_imm)? {
                Ok(rs2) => Op::Alu { op, rd, rs1, rs2 },
                Err(v) => {
                    slot = Some((Slot::AluImm, v));
                    Op::AluImm {
                        op,
                        rd,
                        rs1,
                        imm: 0,
                    }
                }
            }
        }
        Form::MovI => {
            let rd = o.reg()?;
            slot = Some((Slot::MovI, o.value("an immediate or label")?));
            Op::MovI { rd, imm: 0 }
        }
        Form::MovHi => {
            let rd = o.reg()?;
            slot = Some((Slot::MovHi, o.value("an immediate")?));
            Op::MovHi { rd, imm: 0 }
        }
        Form::SetP(cmp) => {
            let pd = o.pred()?;
            let rs1 = o.reg()?;
            match o.reg_or_imm(None)? {
                Ok(rs2) => Op::SetP { cmp, pd, rs1, rs2 },
                Err(v) => {
                    slot = Some((Slot::SetPImm, v));
                    Op::SetPImm {
                        cmp,
                        pd,
                        rs1,
                        imm: 0,
                    }
                }
            }
        }
        Form::PLogic(op) => {
            let pd = o.pred()?;
            let a = o.pred_src()?;
            let b = o.pred_src()?;
            Op::PLogic { op, pd, a, b }
        }
        Form::PMov => {
            let pd = o.pred()?;
            let a = o.pred_src()?;
            Op::PLogic {
                op: PredOp::And,
                pd,
                a,
                b: PredSrc::TRUE,
            }
        }
        Form::Sel => {
            let rd = o.reg()?;
            let p = o.pred_src()?;
            let rs1 = o.reg()?;
            let rs2 = o.reg()?;
            Op::Sel { rd, p, rs1, rs2 }
        }
        Form::S2R => {
            let rd = o.reg()?;
            let sreg = o.special()?;
            Op::S2R { rd, sreg }
        }
        Form::LdParam => {
            let rd = o.reg()?;
            slot = Some((Slot::Param, o.param()?));
            Op::LdParam { rd, index: 0 }
        }
        Form::Load(space, width) => {
            let rd = o.reg()?;
            let (base, off) = o.mem()?;
            slot = off.map(|v| (Slot::Offset, v));
            Op::Load {
                space,
                width,
                rd,
                base,
                offset: 0,
            }
        }
        Form::Store(space, width) => {
            let (base, off) = o.mem()?;
            let src = o.reg()?;
            slot = off.map(|v| (Slot::Offset, v));
            Op::Store {
                space,
                width,
                src,
                base,
                offset: 0,
            }
        }
        Form::Atom(space, op) => {
            let rd = o.reg()?;
            let (addr, off) = o.mem()?;
            if let Some(v) = off {
                return Err(raw(v.at, "`atom` takes no address offset: write `[rN]`"));
            }
            let src = o.reg()?;
            Op::Atom {
                space,
                op,
                rd,
                addr,
                src,
            }
        }
        Form::Bra => {
            slot = Some((Slot::Target, o.value("a label or address")?));
            Op::Bra { target: 0 }
        }
        Form::BraCons(kind) => {
            let p = o.pred_src()?;
            slot = Some((Slot::Target, o.value("a label or address")?));
            Op::BraCons { kind, p, target: 0 }
        }
        Form::Jmp => Op::Jmp { rs: o.reg()? },
        Form::Call => {
            let rd = o.reg()?;
            slot = Some((Slot::Target, o.value("a label or address")?));
            Op::Call { rd, target: 0 }
        }
        Form::CallR => {
            let rd = o.reg()?;
            let rs = o.reg()?;
            Op::CallR { rd, rs }
        }
        Form::Ret => Op::Ret { rs: o.reg()? },
        Form::Bar => Op::Bar,
        Form::Exit => Op::Exit,
        Form::Nop => Op::Nop,
        Form::Vote(kind) => {
            let pd = o.pred()?;
            let p = o.pred_src()?;
            Op::Vote { kind, pd, p }
        }
        Form::Ballot => {
            let rd = o.reg()?;
            let p = o.pred_src()?;
            Op::Ballot { rd, p }
        }
        Form::Mov => {
            let rd = o.reg()?;
            let rs1 = o.reg()?;
            Op::AluImm {
                op: AluOp::Add,
                rd,
                rs1,
                imm: 0,
            }
        }
        Form::Li => {
            let rd = o.reg()?;
            li = Some((rd, o.value("a constant or label")?));
            Op::Nop
        }
    };
    o.end(m)?;
    if let Some((rd, val)) = li {
        return Ok(Stmt::Li { at, guard, rd, val });
    }
    Ok(Stmt::Instr {
        at,
        instr: Instr { guard, op },
        slot,
    })
}
