//! The Concord assembler: source text → [`Kernel`], with `file:line:col`
//! diagnostics that quote the source line and put a caret under the column.
//!
//! The syntax is specified in `docs/isa.md` ("Assembly language"). In short:
//! one statement per line, `;` or `//` comments, `name:` labels, an optional
//! `@p`/`@!p` guard before the mnemonic, and the directives `.entry`,
//! `.param`, `.shared`, `.word` and `.equ`. Every mnemonic maps to exactly one
//! [`Op`]; the pseudo-instructions `mov`, `li` and `pmov` expand to real ones.
//!
//! Assembly runs in stages over the whole file: parse every line, define the
//! names (labels, constants, parameters), assign addresses, then resolve
//! values and encode. Each stage reports all of its errors; a later stage
//! only runs when the earlier ones found none. [`assemble`] returns the first
//! error, [`assemble_all`] all of them. Neither panics on any input.

mod lex;
mod parse;

use std::collections::HashMap;
use std::fmt;

pub use lex::{is_param_name, is_symbol_name};
use lex::{raw, Raw, Res};
use parse::{parse_line, Slot, Stmt, Val, Value};

use crate::container::{Entry, Kernel};
use crate::encoding::{decode, encode};
use crate::instr::*;
use crate::semantics::split_constant;
use crate::show::{self, Excerpt};

/// One assembly diagnostic.
///
/// `Display` gives `file:line:col: message`, then the source line, then a
/// caret under the column (no trailing newline). Like every library error
/// it has no `error:` prefix: whoever reports it adds one, once. The
/// message and the line are shown through [`crate::show`]: control
/// characters escaped, long quotes and long lines cut.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    pub message: String,
    /// The source line as shown (without its line ending): escaped, and
    /// when longer than [`crate::show::EXCERPT_CHARS`] characters only the
    /// part around the column, with `…` where it was cut.
    pub source_line: String,
    /// 1-based position in `source_line`, in characters, of the caret.
    pub caret: usize,
}

impl AsmError {
    /// An error at byte `at` of `line` (the text of source line `line_no`,
    /// 1-based).
    fn new(file: &str, line_no: usize, line: &str, at: usize, message: String) -> AsmError {
        let excerpt = Excerpt::new(line, at);
        let at = excerpt.line_byte(excerpt.shown_byte(at));
        let caret = excerpt.text[..excerpt.shown_byte(at)].chars().count() + 1;
        AsmError {
            file: file.to_string(),
            line: line_no,
            column: excerpt.column(at),
            message,
            source_line: excerpt.text,
            caret,
        }
    }
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}:{}:{}: {}",
            show::escape(&self.file),
            self.line,
            self.column,
            show::message(&self.message)
        )?;
        writeln!(f, "{}", show::escape(&self.source_line))?;
        // Keep tabs so that the caret lines up however tabs are shown.
        let mut chars = self.source_line.chars();
        for _ in 1..self.caret {
            f.write_str(if chars.next() == Some('\t') {
                "\t"
            } else {
                " "
            })?;
        }
        f.write_str("^")
    }
}

impl std::error::Error for AsmError {}

/// Every error of the stage that failed, in source order (never empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmErrors(pub Vec<AsmError>);

impl fmt::Display for AsmErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for AsmErrors {}

/// Assembles `source`; `file` names it in diagnostics. Returns the first error.
pub fn assemble(source: &str, file: &str) -> Result<Kernel, AsmError> {
    assemble_all(source, file).map_err(|errors| {
        errors
            .0
            .into_iter()
            .next()
            .unwrap_or_else(|| AsmError::new(file, 1, "", 0, "assembly failed".to_string()))
    })
}

/// Assembles `source`, reporting every error of the first stage that fails.
pub fn assemble_all(source: &str, file: &str) -> Result<Kernel, AsmErrors> {
    let lines: Vec<&str> = source
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut asm = Assembler {
        diags: Diags {
            file,
            lines: &lines,
            list: Vec::new(),
        },
        stmts: Vec::new(),
        equs: HashMap::new(),
        params: Vec::new(),
        labels: HashMap::new(),
    };
    for (i, line) in lines.iter().enumerate() {
        match parse_line(strip_comment(line)) {
            Ok(stmts) => asm.stmts.extend(stmts.into_iter().map(|s| (i, s))),
            Err(e) => asm.diags.push(i, e),
        }
    }
    asm.diags.check()?;
    asm.define_names();
    asm.diags.check()?;
    let layout = asm.assign_addresses();
    asm.diags.check()?;
    let kernel = asm.emit(layout);
    asm.diags.check()?;
    Ok(kernel)
}

/// The code part of a line: everything before `;` or `//`, without
/// trailing white space (so that "missing operand" points just past the
/// last token).
fn strip_comment(line: &str) -> &str {
    let cut = [line.find(';'), line.find("//")]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(line.len());
    line[..cut].trim_end()
}

/// Highest general register index referenced + 1 and highest predicate
/// index referenced + 1 over the words of `code` that decode. A guard counts
/// unless it is the default `@pt`; predicate operands count even when they
/// are `pt` (index 0).
pub fn resources_used(code: &[u32]) -> (u32, u32) {
    let (mut regs, mut preds) = (0u32, 0u32);
    for instr in code.iter().filter_map(|w| decode(*w).ok()) {
        let (r, p) = instr_resources(&instr);
        if let Some(r) = r {
            regs = regs.max(r.index() as u32 + 1);
        }
        if let Some(p) = p {
            preds = preds.max(p.index() as u32 + 1);
        }
    }
    (regs, preds)
}

/// The highest general register and the highest predicate one instruction
/// references, counted as [`resources_used`] counts them (the container's
/// loader checks each instruction against the declared counts with it).
pub fn instr_resources(instr: &Instr) -> (Option<Reg>, Option<Pred>) {
    let (mut regs, mut preds): (Option<Reg>, Option<Pred>) = (None, None);
    let mut r = |x: Reg| regs = regs.max(Some(x));
    let mut p = |x: Pred| preds = preds.max(Some(x));
    if instr.guard != Guard::TRUE {
        p(instr.guard.pred);
    }
    match instr.op {
        Op::Alu { rd, rs1, rs2, .. } => {
            r(rd);
            r(rs1);
            r(rs2);
        }
        Op::AluImm { rd, rs1, .. } => {
            r(rd);
            r(rs1);
        }
        Op::MovI { rd, .. }
        | Op::MovHi { rd, .. }
        | Op::S2R { rd, .. }
        | Op::LdParam { rd, .. }
        | Op::Call { rd, .. } => r(rd),
        Op::SetP { pd, rs1, rs2, .. } => {
            p(pd);
            r(rs1);
            r(rs2);
        }
        Op::SetPImm { pd, rs1, .. } => {
            p(pd);
            r(rs1);
        }
        Op::PLogic { pd, a, b, .. } => {
            p(pd);
            p(a.pred);
            p(b.pred);
        }
        Op::Sel {
            rd,
            p: ps,
            rs1,
            rs2,
        } => {
            r(rd);
            p(ps.pred);
            r(rs1);
            r(rs2);
        }
        Op::Load { rd, base, .. } => {
            r(rd);
            r(base);
        }
        Op::Store { src, base, .. } => {
            r(src);
            r(base);
        }
        Op::Atom { rd, addr, src, .. } => {
            r(rd);
            r(addr);
            r(src);
        }
        Op::BraCons { p: ps, .. } => p(ps.pred),
        Op::Jmp { rs } | Op::Ret { rs } => r(rs),
        Op::CallR { rd, rs } => {
            r(rd);
            r(rs);
        }
        Op::Vote { pd, p: ps, .. } => {
            p(pd);
            p(ps.pred);
        }
        Op::Ballot { rd, p: ps } => {
            r(rd);
            p(ps.pred);
        }
        Op::Bra { .. } | Op::Bar | Op::Exit | Op::Nop => {}
    }
    (regs, preds)
}
/// The most errors one stage reports: enough to fix a file in a few
/// rounds, and a bound on the work and memory a hostile file can cause.
pub const MAX_ERRORS: usize = 100;

/// Diagnostics collected so far.
struct Diags<'s> {
    file: &'s str,
    lines: &'s [&'s str],
    list: Vec<AsmError>,
}

impl Diags<'_> {
    fn push(&mut self, line: usize, e: Raw) {
        if self.list.len() >= MAX_ERRORS {
            return;
        }
        let text = self.lines.get(line).copied().unwrap_or("");
        self.list
            .push(AsmError::new(self.file, line + 1, text, e.at, e.message));
    }

    fn check(&mut self) -> Result<(), AsmErrors> {
        if self.list.is_empty() {
            return Ok(());
        }
        let mut list = std::mem::take(&mut self.list);
        list.sort_by_key(|e| (e.line, e.column));
        Err(AsmErrors(list))
    }
}

struct Assembler<'s> {
    diags: Diags<'s>,
    /// (0-based line, statement) in source order.
    stmts: Vec<(usize, Stmt)>,
    equs: HashMap<String, i64>,
    params: Vec<String>,
    labels: HashMap<String, u32>,
}

/// What a name of the label namespace names.
#[derive(Clone, Copy, PartialEq, Eq)]
enum NameKind {
    Entry,
    Label,
    Constant,
}

/// Results of address assignment.
struct Layout {
    /// Words of each `li`, in order.
    li_words: Vec<usize>,
    entries: Vec<Entry>,
    /// (line, column) of each `.entry` name, parallel to `entries`.
    entry_stmts: Vec<(usize, usize)>,
    symbols: Vec<(String, u32)>,
}

const WORD_MIN: i64 = i32::MIN as i64;
const WORD_MAX: i64 = u32::MAX as i64;

fn in_range(what: &str, v: i64, lo: i64, hi: i64, at: usize) -> Res<i64> {
    if v < lo || v > hi {
        Err(raw(at, format!("{what} {v} out of range {lo}..={hi}")))
    } else {
        Ok(v)
    }
}

/// Words `li` needs for a value (1 when it is out of range: that is
/// reported when the value is resolved).
fn li_size(v: i64) -> usize {
    if (WORD_MIN..=WORD_MAX).contains(&v) && split_constant(v as u32).1.is_some() {
        2
    } else {
        1
    }
}

impl Assembler<'_> {
    /// Labels, entries and constants share one namespace; parameters have
    /// their own. Constants are evaluated here, so `li` can be sized.
    fn define_names(&mut self) {
        // Name -> (line of the first definition, what it names, whether an
        // entry and a label already share it).
        let mut defined: HashMap<String, (usize, NameKind, bool)> = HashMap::new();
        let mut shared_seen = false;
        let mut stack_seen = false;
        for (line, stmt) in &self.stmts {
            let line = *line;
            // An entry and one label may share a name; `assign_addresses`
            // then checks that they share the address too.
            let mut define =
                |name: &str, at: usize, kind: NameKind, diags: &mut Diags| match defined
                    .get_mut(name)
                {
                    None => {
                        defined.insert(name.to_string(), (line, kind, false));
                        true
                    }
                    Some((_, first, shared))
                        if !*shared
                            && matches!(
                                (*first, kind),
                                (NameKind::Entry, NameKind::Label)
                                    | (NameKind::Label, NameKind::Entry)
                            ) =>
                    {
                        *shared = true;
                        true
                    }
                    Some((first, ..)) => {
                        let what = if kind == NameKind::Constant {
                            "constant"
                        } else {
                            "label"
                        };
                        diags.push(
                            line,
                            raw(
                                at,
                                format!(
                                    "duplicate {what} `{name}` (first defined on line {})",
                                    *first + 1
                                ),
                            ),
                        );
                        false
                    }
                };
            match stmt {
                Stmt::Label { name, at } => {
                    define(name, *at, NameKind::Label, &mut self.diags);
                }
                Stmt::Entry { name, at } => {
                    define(name, *at, NameKind::Entry, &mut self.diags);
                }
                Stmt::Equ { name, at, val } => {
                    if !define(name, *at, NameKind::Constant, &mut self.diags) {
                        continue;
                    }
                    let v = match &val.value {
                        Value::Num(n) => Ok(*n),
                        Value::Sym(s) => self.equs.get(s).copied().ok_or_else(|| {
                            raw(
                                val.at,
                                format!(
                                    "undefined constant `{s}` (a `.equ` value may only use constants defined above it)"
                                ),
                            )
                        }),
                    };
                    match v {
                        Ok(v) => {
                            self.equs.insert(name.clone(), v);
                        }
                        Err(e) => self.diags.push(line, e),
                    }
                }
                Stmt::Param { name, at } => {
                    if self.params.contains(name) {
                        self.diags
                            .push(line, raw(*at, format!("duplicate parameter `{name}`")));
                    } else if self.params.len() >= MAX_PARAM_WORDS {
                        self.diags.push(
                            line,
                            raw(
                                *at,
                                format!(
                                    "too many parameters: a kernel has at most {MAX_PARAM_WORDS} parameter words"
                                ),
                            ),
                        );
                    } else {
                        self.params.push(name.clone());
                    }
                }
                Stmt::Shared { at, .. } => {
                    if shared_seen {
                        self.diags
                            .push(line, raw(*at, "duplicate `.shared` directive"));
                    }
                    shared_seen = true;
                }
                Stmt::Stack { at, .. } => {
                    if stack_seen {
                        self.diags
                            .push(line, raw(*at, "duplicate `.stack` directive"));
                    }
                    stack_seen = true;
                }
                _ => {}
            }
        }
    }

    fn assign_addresses(&mut self) -> Layout {
        let mut addr: usize = 0;
        let mut layout = Layout {
            li_words: Vec::new(),
            entries: Vec::new(),
            entry_stmts: Vec::new(),
            symbols: Vec::new(),
        };
        let mut too_big = false;
        for (line, stmt) in &self.stmts {
            let (at, size) = match stmt {
                Stmt::Label { name, at } | Stmt::Entry { name, at } => {
                    // Addresses above MAX_IMEM_WORDS are reported below.
                    let pc = addr.min(u32::MAX as usize) as u32;
                    // A second definition is an entry and a label sharing
                    // the name (`define_names` let only that through).
                    if let Some(first) = self.labels.insert(name.clone(), pc) {
                        if first != pc {
                            let (this, other) = match stmt {
                                Stmt::Entry { .. } => ("entry point", "label"),
                                _ => ("label", "entry point"),
                            };
                            self.diags.push(
                                *line,
                                raw(
                                    *at,
                                    format!(
                                        "duplicate label `{name}`: the {other} `{name}` is at address {first}, this {this} at {pc} (an entry and a label may share a name only at the same address)"
                                    ),
                                ),
                            );
                        }
                    }
                    if let Stmt::Entry { .. } = stmt {
                        layout.entries.push(Entry {
                            name: name.clone(),
                            pc,
                        });
                        layout.entry_stmts.push((*line, *at));
                    } else {
                        layout.symbols.push((name.clone(), pc));
                    }
                    continue;
                }
                Stmt::Instr { at, .. } => (*at, 1),
                Stmt::Li { at, val, .. } => {
                    let v = match &val.value {
                        Value::Num(n) => Some(*n),
                        Value::Sym(s) => self.equs.get(s).copied(),
                    };
                    // Labels are instruction addresses: they always fit one `movi`.
                    let size = v.map_or(1, li_size);
                    layout.li_words.push(size);
                    (*at, size)
                }
                Stmt::Word { at, vals } => (*at, vals.len()),
                _ => continue,
            };
            addr += size;
            if addr > MAX_IMEM_WORDS && !too_big {
                too_big = true;
                self.diags.push(
                    *line,
                    raw(
                        at,
                        format!(
                            "the program exceeds the instruction memory limit of {MAX_IMEM_WORDS} words"
                        ),
                    ),
                );
            }
        }
        layout
    }

    /// The value of an operand; `undefined` words the error for an unknown name.
    fn value(&self, val: &Val, undefined: impl Fn(&str) -> String) -> Res<i64> {
        let v = match &val.value {
            Value::Num(n) => *n,
            Value::Sym(s) => match (self.equs.get(s), self.labels.get(s)) {
                (Some(v), _) => *v,
                (None, Some(a)) => i64::from(*a),
                (None, None) => return Err(raw(val.at, undefined(s))),
            },
        };
        Ok(if val.negate { v.saturating_neg() } else { v })
    }

    fn param_index(&self, val: &Val) -> Res<i64> {
        if let Value::Sym(s) = &val.value {
            if let Some(i) = self.params.iter().position(|p| p == s) {
                return Ok(i as i64);
            }
            if let Some(v) = self.equs.get(s) {
                return Ok(*v);
            }
            return Err(raw(val.at, format!("undefined parameter `{s}`")));
        }
        self.value(val, |_| String::new())
    }

    /// Fills the value operand of an instruction.
    fn patch(&self, instr: &mut Instr, slot: Slot, val: &Val) -> Res<()> {
        let neither = |s: &str| format!("`{s}` is neither a register nor a defined constant");
        let label = |s: &str| format!("undefined label `{s}`");
        let constant = |s: &str| format!("undefined constant `{s}`");
        let at = val.at;
        match (slot, &mut instr.op) {
            (Slot::AluImm, Op::AluImm { op, imm, .. }) => {
                let r = op.imm_range();
                let v = self.value(val, neither)?;
                *imm = in_range("immediate", v, (*r.start()).into(), (*r.end()).into(), at)? as i32;
            }
            (Slot::MovI, Op::MovI { imm, .. }) => {
                let v = self.value(val, label)?;
                *imm = in_range("immediate", v, IMM17_MIN.into(), IMM17_MAX.into(), at)? as i32;
            }
            (Slot::MovHi, Op::MovHi { imm, .. }) => {
                let v = self.value(val, constant)?;
                *imm = in_range("immediate", v, 0, 0xffff, at)? as u16;
            }
            (Slot::SetPImm, Op::SetPImm { imm, .. }) => {
                let v = self.value(val, neither)?;
                *imm = in_range("immediate", v, IMM10_MIN.into(), IMM10_MAX.into(), at)? as i32;
            }
            (Slot::Param, Op::LdParam { index, .. }) => {
                let v = self.param_index(val)?;
                let max = MAX_PARAM_WORDS as i64 - 1;
                *index = in_range("parameter index", v, 0, max, at)? as u8;
            }
            (Slot::Offset, Op::Load { offset, .. } | Op::Store { offset, .. }) => {
                let v = self.value(val, constant)?;
                *offset = in_range("offset", v, IMM12_MIN.into(), IMM12_MAX.into(), at)? as i32;
            }
            (
                Slot::Target,
                Op::Bra { target } | Op::BraCons { target, .. } | Op::Call { target, .. },
            ) => {
                let v = self.value(val, label)?;
                *target = in_range("target", v, 0, MAX_IMEM_WORDS as i64 - 1, at)? as u32;
            }
            _ => {
                return Err(raw(
                    at,
                    "internal error: operand does not fit the instruction",
                ))
            }
        }
        Ok(())
    }

    fn emit(&mut self, layout: Layout) -> Kernel {
        let mut code = Vec::new();
        let mut shared_bytes = 0;
        let mut stack_bytes = 0;
        let mut li_words = layout.li_words.iter();
        let mut errors = Vec::new();
        let word_value = |this: &Self, val: &Val| {
            let v = this.value(val, |s| format!("undefined label `{s}`"))?;
            in_range("constant", v, WORD_MIN, WORD_MAX, val.at).map(|v| v as u32)
        };
        for (line, stmt) in &self.stmts {
            let line = *line;
            match stmt {
                Stmt::Instr { at, instr, slot } => {
                    let mut instr = *instr;
                    let result = match slot {
                        Some((slot, val)) => self.patch(&mut instr, *slot, val),
                        None => Ok(()),
                    }
                    .and_then(|()| encode(&instr).map_err(|e| raw(*at, e.to_string())));
                    match result {
                        Ok(w) => code.push(w),
                        Err(e) => {
                            errors.push((line, e));
                            code.push(0);
                        }
                    }
                }
                Stmt::Li { at, guard, rd, val } => {
                    let sized = li_words.next().copied().unwrap_or(1);
                    let words = word_value(self, val).and_then(|v| {
                        let (lo, hi) = split_constant(v);
                        let mut words = vec![Instr::guarded(*guard, Op::MovI { rd: *rd, imm: lo })];
                        if let Some(hi) = hi {
                            words.push(Instr::guarded(*guard, Op::MovHi { rd: *rd, imm: hi }));
                        }
                        if words.len() != sized {
                            return Err(raw(
                                val.at,
                                format!("label address {v} does not fit in one `movi`"),
                            ));
                        }
                        words
                            .iter()
                            .map(|i| encode(i).map_err(|e| raw(*at, e.to_string())))
                            .collect::<Res<Vec<u32>>>()
                    });
                    match words {
                        Ok(ws) => code.extend(ws),
                        Err(e) => {
                            errors.push((line, e));
                            code.resize(code.len() + sized, 0);
                        }
                    }
                }
                Stmt::Word { vals, .. } => {
                    for val in vals {
                        match word_value(self, val) {
                            Ok(w) => code.push(w),
                            Err(e) => {
                                errors.push((line, e));
                                code.push(0);
                            }
                        }
                    }
                }
                Stmt::Shared { val, .. } => {
                    match self
                        .value(val, |s| format!("undefined constant `{s}`"))
                        .and_then(|v| in_range("shared memory size", v, 0, WORD_MAX, val.at))
                    {
                        Ok(v) => shared_bytes = v as u32,
                        Err(e) => errors.push((line, e)),
                    }
                }
                Stmt::Stack { val, .. } => {
                    match self
                        .value(val, |s| format!("undefined constant `{s}`"))
                        .and_then(|v| in_range("stack size", v, 0, WORD_MAX, val.at))
                    {
                        Ok(v) if v % 4 != 0 => errors.push((
                            line,
                            raw(val.at, format!("stack size {v} is not a multiple of 4")),
                        )),
                        Ok(v) => stack_bytes = v as u32,
                        Err(e) => errors.push((line, e)),
                    }
                }
                _ => {}
            }
        }
        for (entry, (line, at)) in layout.entries.iter().zip(&layout.entry_stmts) {
            if entry.pc as usize >= code.len() && !code.is_empty() {
                errors.push((
                    *line,
                    raw(
                        *at,
                        format!("entry `{}` is not followed by any instruction", entry.name),
                    ),
                ));
            }
        }
        if code.is_empty() {
            errors.push((0, raw(0, "the program has no instructions")));
        }
        for (line, e) in errors {
            self.diags.push(line, e);
        }
        let (regs_used, preds_used) = resources_used(&code);
        let mut entries = layout.entries;
        if entries.is_empty() {
            entries.push(Entry {
                name: "main".to_string(),
                pc: 0,
            });
        }
        Kernel {
            code,
            entries,
            params: self.params.clone(),
            shared_bytes,
            regs_used,
            preds_used,
            symbols: layout.symbols,
            stack_bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_stripped() {
        assert_eq!(strip_comment("add r1, r2, r3 ; x // y"), "add r1, r2, r3");
        assert_eq!(strip_comment("nop // c ; d"), "nop");
        assert_eq!(strip_comment("nop"), "nop");
    }

    #[test]
    fn caret_keeps_tabs() {
        let e = AsmError::new("f.s", 2, "\tab", 2, "m".into());
        assert_eq!((e.column, e.caret), (3, 3));
        assert_eq!(e.to_string(), "f.s:2:3: m\n\tab\n\t ^");
    }
}
