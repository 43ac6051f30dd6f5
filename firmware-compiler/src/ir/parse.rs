//! The textual form of the IR: parsing (the inverse of [`print`](super::print)).
//!
//! Used by the filetests and by anyone who wants to feed hand-written IR to
//! a pass. The text is line oriented: one declaration, block label or
//! instruction per line, `;` starts a comment. Each line is parsed with
//! `nom` into a syntactic item; then the module is resolved: functions and
//! shared variables by `@name` (forward references allowed, so a call may
//! name a function defined further down), values and blocks by number.
//!
//! Value and block numbers are kept from the text, so `v7` in the text is
//! `Value(7)` in the function; numbers the text skips become unused arena
//! entries. Stack slots must be numbered `ss0, ss1, ...` in order.
//!
//! What the parser checks: syntax, unknown and duplicate names, values
//! used but never defined, values or blocks defined twice, branches to
//! blocks that do not exist, and whether a `call` names a result exactly
//! when the callee returns a value. It infers each result's type from the
//! operation (`band` of two `i1` is `i1`, `select` has its first arm's
//! type, ...). Operand type rules, SSA dominance and everything else
//! structural are the verifier's job, so that malformed-but-parsable IR
//! can be written down in verifier tests.
//!
//! Errors carry the file, line and column; [`IrParseError::render`] adds
//! the source line with a caret. The parser never panics.

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;

use concord_isa::instr::{AtomOp, Cmp, LoadWidth, SpecialReg, StoreWidth};
use nom::branch::alt;
use nom::bytes::complete::{tag, take_while1};
use nom::character::complete::{char as nchar, digit1, space0};
use nom::combinator::{opt, recognize};
use nom::error::{ErrorKind, ParseError};
use nom::multi::many0;
use nom::sequence::{pair, preceded};
use nom::IResult;

use super::entities::{Block, FuncId, Inst, SharedId, StackSlot, Value};
use super::function::{
    BlockData, FuncKind, Function, InstNode, Module, StackSlotData, ValueData, ValueDef,
};
use super::instructions::{BinaryOp, BlockCall, InstData, MemSpace, Type, UnaryOp, VoteOp};

/// The largest value or block number accepted, so that a typo like
/// `v4000000000` is an error rather than a huge arena.
const MAX_ENTITY_NUMBER: u32 = 1 << 20;

/// A parse error: where and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IrParseError {
    pub file: String,
    /// 1-based line and column (in characters).
    pub line: usize,
    pub col: usize,
    pub message: String,
    /// Byte range of the offending text in `source`.
    pub span: Range<usize>,
    /// The whole text that was parsed, for [`render`](Self::render).
    pub source: String,
}

impl fmt::Display for IrParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.col, self.message
        )
    }
}

impl std::error::Error for IrParseError {}

impl IrParseError {
    /// The error as a compiler diagnostic: the message, `file:line:col`,
    /// the source line and a caret under the offending text.
    pub fn render(&self) -> String {
        use codespan_reporting::diagnostic::{Diagnostic, Label};
        use codespan_reporting::files::SimpleFile;
        use codespan_reporting::term::{self, termcolor::NoColor};

        let file = SimpleFile::new(self.file.as_str(), self.source.as_str());
        let diagnostic = Diagnostic::error()
            .with_message(&self.message)
            .with_labels(vec![Label::primary((), self.span.clone())]);
        let mut out = NoColor::new(Vec::new());
        let config = term::Config::default();
        if term::emit(&mut out, &config, &file, &diagnostic).is_err() {
            return format!("error: {self}");
        }
        String::from_utf8_lossy(&out.into_inner()).into_owned()
    }
}

/// Parses a whole module. `file` names the text in error messages.
pub fn parse_module(text: &str, file: &str) -> Result<Module, IrParseError> {
    let make_error = |at: usize, len: usize, message: String| {
        let at = at.min(text.len());
        let mut end = (at + len.max(1)).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        let before = &text[..at];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |p| p + 1);
        let col = text[line_start..at].chars().count() + 1;
        IrParseError {
            file: file.to_string(),
            line,
            col,
            message,
            span: at..end,
            source: text.to_string(),
        }
    };
    let items = parse_lines(text).map_err(|e| make_error(e.at, e.len, e.message))?;
    resolve(items).map_err(|e| make_error(e.at, e.len, e.message))
}

/// An error before it is located in lines and columns: byte offset,
/// length of the offending text, message.
struct RawError {
    at: usize,
    len: usize,
    message: String,
}

fn raw_error(at: usize, len: usize, message: impl Into<String>) -> RawError {
    RawError {
        at,
        len,
        message: message.into(),
    }
}

// ---------------------------------------------------------------------------
// Syntax: lines to items.

/// A function as written, before names and numbers are resolved.
struct RawFunc {
    name: String,
    name_at: usize,
    kind: FuncKind,
    param_names: Vec<String>,
    params: Vec<Type>,
    ret: Option<Type>,
    slots: Vec<StackSlotData>,
    blocks: Vec<RawBlock>,
}

struct RawBlock {
    block: Block,
    at: usize,
    params: Vec<(Value, usize, Type)>,
    insts: Vec<RawInst>,
}

/// An instruction as written. `data` already holds the value and block
/// numbers of the text; names (callee, shared variable) are resolved later
/// and patched in.
struct RawInst {
    at: usize,
    len: usize,
    result: Option<(Value, usize)>,
    data: InstData,
    uses: Vec<(Value, usize)>,
    targets: Vec<(Block, usize)>,
    name_ref: Option<(String, usize)>,
    slot_ref: Option<(StackSlot, usize)>,
}

struct RawShared {
    name: String,
    at: usize,
    size: u32,
    align: u32,
}

#[derive(Default)]
struct Items {
    shared: Vec<RawShared>,
    funcs: Vec<RawFunc>,
}

/// A nom error: where (the remaining input) and, when known, what was
/// expected there.
#[derive(Debug)]
struct PErr<'a> {
    at: &'a str,
    message: Option<String>,
}

impl<'a> ParseError<&'a str> for PErr<'a> {
    fn from_error_kind(input: &'a str, _kind: ErrorKind) -> Self {
        PErr {
            at: input,
            message: None,
        }
    }

    fn append(_input: &'a str, _kind: ErrorKind, other: Self) -> Self {
        other
    }
}

type Res<'a, T> = IResult<&'a str, T, PErr<'a>>;

fn failure<T>(at: &str, message: impl Into<String>) -> Result<T, nom::Err<PErr<'_>>> {
    Err(nom::Err::Failure(PErr {
        at,
        message: Some(message.into()),
    }))
}

/// Runs `p` after optional blanks; if it does not match, fails with
/// "expected {what}" at the first non-blank character.
fn expect<'a, T>(
    what: &'static str,
    mut p: impl FnMut(&'a str) -> Res<'a, T>,
) -> impl FnMut(&'a str) -> Res<'a, T> {
    move |input: &'a str| {
        let input = input.trim_start_matches([' ', '\t']);
        match p(input) {
            Err(nom::Err::Error(_)) => failure(input, format!("expected {what}")),
            other => other,
        }
    }
}

/// A token after optional blanks.
fn tok<'a>(t: &'static str) -> impl FnMut(&'a str) -> Res<'a, &'a str> {
    preceded(space0, tag(t))
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `[A-Za-z0-9_]+`
fn word(input: &str) -> Res<'_, &str> {
    take_while1(is_word_char)(input)
}

/// `word(.word)*`: opcodes with suffixes, special register names.
fn dotted(input: &str) -> Res<'_, &str> {
    recognize(pair(word, many0(pair(nchar('.'), word))))(input)
}

/// An identifier: a letter or `_`, then letters, digits and `_`.
fn ident(input: &str) -> Res<'_, &str> {
    let (rest, w) = word(input)?;
    if w.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(nom::Err::Error(PErr::from_error_kind(
            input,
            ErrorKind::Alpha,
        )));
    }
    Ok((rest, w))
}

/// `@name`; names may also contain `.` and `$` (mangled names).
fn global_name(input: &str) -> Res<'_, &str> {
    let (rest, _) = nchar('@')(input)?;
    take_while1(|c: char| is_word_char(c) || c == '.' || c == '$')(rest)
}

fn decimal_u32(input: &str) -> Res<'_, u32> {
    let (rest, digits) = digit1(input)?;
    match digits.parse::<u32>() {
        Ok(n) => Ok((rest, n)),
        Err(_) => failure(input, "number out of range (at most 4294967295)"),
    }
}

/// A signed decimal that fits `i32`; values up to `u32::MAX` are accepted
/// and wrap (so a bit pattern may be written unsigned).
fn decimal_i32(input: &str) -> Res<'_, i32> {
    let (rest, text) = recognize(pair(opt(nchar('-')), digit1))(input)?;
    match text.parse::<i64>() {
        Ok(n) if (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(&n) => Ok((rest, n as i32)),
        _ => failure(input, "integer out of range for i32"),
    }
}

/// `prefix` followed by a decimal entity number, e.g. `v12`, `block3`.
fn numbered<'a>(prefix: &'static str) -> impl FnMut(&'a str) -> Res<'a, u32> {
    move |input: &'a str| {
        let (rest, _) = tag(prefix)(input)?;
        let (rest, n) = decimal_u32(rest)?;
        if rest.starts_with(is_word_char) {
            // `v1x` is neither a value nor anything else.
            return Err(nom::Err::Error(PErr::from_error_kind(
                input,
                ErrorKind::Digit,
            )));
        }
        if n > MAX_ENTITY_NUMBER {
            return failure(
                input,
                format!("entity number too large (at most {MAX_ENTITY_NUMBER})"),
            );
        }
        Ok((rest, n))
    }
}

fn ty(input: &str) -> Res<'_, Type> {
    let (rest, w) = word(input)?;
    match w {
        "i32" => Ok((rest, Type::I32)),
        "i1" => Ok((rest, Type::I1)),
        _ => Err(nom::Err::Error(PErr::from_error_kind(
            input,
            ErrorKind::Tag,
        ))),
    }
}

/// Parses `item (, item)*` or nothing, then the closing `)`.
fn list_until_paren<'a, T>(
    input: &'a str,
    what: &'static str,
    mut item: impl FnMut(&'a str) -> Res<'a, T>,
) -> Res<'a, Vec<T>> {
    let mut out = Vec::new();
    if let Ok((rest, _)) = tok(")")(input) {
        return Ok((rest, out));
    }
    let mut input = input;
    loop {
        let (rest, x) = expect(what, &mut item)(input)?;
        out.push(x);
        let (rest, sep) = expect("`,` or `)`", alt((tok(","), tok(")"))))(rest)?;
        input = rest;
        if sep == ")" {
            return Ok((input, out));
        }
    }
}

/// The state of the line-by-line walk.
struct LineParser<'a> {
    text: &'a str,
    items: Items,
    current: Option<RawFunc>,
}

impl<'a> LineParser<'a> {
    fn offset(&self, s: &str) -> usize {
        // Every slice handled is a suffix of a line of `text`.
        (s.as_ptr() as usize).saturating_sub(self.text.as_ptr() as usize)
    }

    fn locate(&self, e: nom::Err<PErr<'a>>, line: &'a str) -> RawError {
        match e {
            nom::Err::Error(e) | nom::Err::Failure(e) => {
                let len =
                    e.at.find([' ', '\t', ',', '(', ')'])
                        .unwrap_or(e.at.len())
                        .max(1);
                raw_error(
                    self.offset(e.at),
                    len,
                    e.message.unwrap_or_else(|| "syntax error".to_string()),
                )
            }
            nom::Err::Incomplete(_) => raw_error(self.offset(line), 1, "unexpected end of line"),
        }
    }

    fn line(&mut self, line: &'a str) -> Result<(), RawError> {
        let trimmed = line.trim_start_matches([' ', '\t']);
        if trimmed.trim_end().is_empty() {
            return Ok(());
        }
        let result = if self.current.is_none() {
            self.top_level(trimmed)
        } else if trimmed.starts_with('}') {
            self.end_function(trimmed)
        } else if trimmed.starts_with("block") {
            self.block_label(trimmed)
        } else if trimmed.starts_with("ss") {
            self.stack_slot(trimmed)
        } else {
            self.instruction(trimmed)
        };
        result.map_err(|e| self.locate(e, line))
    }

    /// Requires the rest of the line to be blank.
    fn end_of_line(rest: &'a str) -> Res<'a, ()> {
        let rest = rest.trim_start_matches([' ', '\t']);
        if rest.trim_end().is_empty() {
            Ok(("", ()))
        } else {
            failure(rest, format!("unexpected `{}`", first_token(rest)))
        }
    }

    fn top_level(&mut self, line: &'a str) -> Result<(), nom::Err<PErr<'a>>> {
        let (rest, keyword) = expect("`shared`, `kernel` or `func`", word)(line)?;
        match keyword {
            "shared" => {
                let (rest, name) = expect("`@name`", global_name)(rest)?;
                let name_at = self.offset(name) - 1;
                let (rest, size) = expect("a size in bytes", decimal_u32)(rest)?;
                let (rest, _) = expect("`align`", tag("align"))(rest)?;
                let (rest, align) = expect("an alignment", decimal_u32)(rest)?;
                Self::end_of_line(rest)?;
                self.items.shared.push(RawShared {
                    name: name.to_string(),
                    at: name_at,
                    size,
                    align,
                });
                Ok(())
            }
            "kernel" | "func" => {
                let kind = if keyword == "kernel" {
                    FuncKind::Kernel
                } else {
                    FuncKind::Device
                };
                let (rest, name) = expect("`@name`", global_name)(rest)?;
                let name_at = self.offset(name) - 1;
                let (rest, _) = expect("`(`", tok("("))(rest)?;
                let mut func = RawFunc {
                    name: name.to_string(),
                    name_at,
                    kind,
                    param_names: Vec::new(),
                    params: Vec::new(),
                    ret: None,
                    slots: Vec::new(),
                    blocks: Vec::new(),
                };
                let rest = match kind {
                    FuncKind::Kernel => {
                        let (rest, names) = list_until_paren(rest, "a parameter name", ident)?;
                        func.param_names = names.into_iter().map(str::to_string).collect();
                        rest
                    }
                    FuncKind::Device => {
                        // `i32` or `name: i32`; either all named or none.
                        let param = |i: &'a str| -> Res<'a, (Option<&'a str>, Type)> {
                            if let Ok((rest, t)) = ty(i) {
                                if !rest.trim_start().starts_with(':') {
                                    return Ok((rest, (None, t)));
                                }
                            }
                            let (rest, name) = ident(i)?;
                            let (rest, _) = expect("`:`", tok(":"))(rest)?;
                            let (rest, t) = expect("a type (`i32` or `i1`)", ty)(rest)?;
                            Ok((rest, (Some(name), t)))
                        };
                        let (rest, params) =
                            list_until_paren(rest, "a parameter type (`i32` or `i1`)", param)?;
                        let named = params.iter().filter(|p| p.0.is_some()).count();
                        if named != 0 && named != params.len() {
                            return failure(rest, "either all parameters have names or none has");
                        }
                        for (name, t) in params {
                            if let Some(name) = name {
                                func.param_names.push(name.to_string());
                            }
                            func.params.push(t);
                        }
                        let (rest, arrow) = opt(tok("->"))(rest)?;
                        if arrow.is_some() {
                            let (rest, t) = expect("a type (`i32` or `i1`)", ty)(rest)?;
                            func.ret = Some(t);
                            rest
                        } else {
                            rest
                        }
                    }
                };
                let (rest, _) = expect("`{`", tok("{"))(rest)?;
                Self::end_of_line(rest)?;
                self.current = Some(func);
                Ok(())
            }
            _ => failure(line, "expected `shared`, `kernel` or `func`"),
        }
    }

    fn end_function(&mut self, line: &'a str) -> Result<(), nom::Err<PErr<'a>>> {
        Self::end_of_line(&line[1..])?;
        if let Some(func) = self.current.take() {
            self.items.funcs.push(func);
        }
        Ok(())
    }

    fn stack_slot(&mut self, line: &'a str) -> Result<(), nom::Err<PErr<'a>>> {
        let (rest, n) = expect("a stack slot `ssN`", numbered("ss"))(line)?;
        let (rest, _) = expect("`=`", tok("="))(rest)?;
        let (rest, _) = expect("`stack`", preceded(space0, tag("stack")))(rest)?;
        let (rest, size) = expect("a size in bytes", decimal_u32)(rest)?;
        let (rest, _) = expect("`align`", tag("align"))(rest)?;
        let (rest, align) = expect("an alignment", decimal_u32)(rest)?;
        Self::end_of_line(rest)?;
        let Some(func) = self.current.as_mut() else {
            return failure(line, "stack slot outside a function");
        };
        if !func.blocks.is_empty() {
            return failure(line, "stack slots are declared before the first block");
        }
        if n as usize != func.slots.len() {
            return failure(
                line,
                format!(
                    "stack slots are numbered in order: expected ss{}",
                    func.slots.len()
                ),
            );
        }
        func.slots.push(StackSlotData { size, align });
        Ok(())
    }

    fn block_label(&mut self, line: &'a str) -> Result<(), nom::Err<PErr<'a>>> {
        let (rest, n) = expect("a block label `blockN:`", numbered("block"))(line)?;
        let at = self.offset(line);
        let mut params = Vec::new();
        let (mut rest, open) = opt(tok("("))(rest)?;
        if open.is_some() {
            let param = |i: &'a str| -> Res<'a, (&'a str, u32, Type)> {
                let (rest, v) = numbered("v")(i)?;
                let (rest, _) = expect("`:`", tok(":"))(rest)?;
                let (rest, t) = expect("a type (`i32` or `i1`)", ty)(rest)?;
                Ok((rest, (i, v, t)))
            };
            let (r, ps) = list_until_paren(rest, "a block parameter `vN: type`", param)?;
            for (at, v, t) in ps {
                params.push((Value(v), self.offset(at), t));
            }
            rest = r;
        }
        let (rest, _) = expect("`:`", tok(":"))(rest)?;
        Self::end_of_line(rest)?;
        if let Some(func) = self.current.as_mut() {
            func.blocks.push(RawBlock {
                block: Block(n),
                at,
                params,
                insts: Vec::new(),
            });
        }
        Ok(())
    }

    fn instruction(&mut self, line: &'a str) -> Result<(), nom::Err<PErr<'a>>> {
        let at = self.offset(line);
        let len = line.trim_end().len();
        let (rest, result) = opt(|i: &'a str| -> Res<'a, (Value, usize)> {
            let (rest, v) = numbered("v")(i)?;
            let (rest, _) = tok("=")(rest)?;
            Ok((rest, (Value(v), self.offset(i))))
        })(line)?;
        let mut inst = RawInst {
            at,
            len,
            result,
            data: InstData::Barrier,
            uses: Vec::new(),
            targets: Vec::new(),
            name_ref: None,
            slot_ref: None,
        };
        let (rest, data) = self.operation(rest, &mut inst)?;
        Self::end_of_line(rest)?;
        inst.data = data;
        let Some(func) = self.current.as_mut() else {
            return failure(line, "instruction outside a function");
        };
        let Some(block) = func.blocks.last_mut() else {
            return failure(line, "instruction before the first block label");
        };
        block.insts.push(inst);
        Ok(())
    }

    /// A value operand `vN`, recording the use and its position.
    fn value(&self, input: &'a str, inst: &mut RawInst) -> Res<'a, Value> {
        let input = input.trim_start_matches([' ', '\t']);
        let (rest, n) = expect("a value `vN`", numbered("v"))(input)?;
        inst.uses.push((Value(n), self.offset(input)));
        Ok((rest, Value(n)))
    }

    fn comma_value(&self, input: &'a str, inst: &mut RawInst) -> Res<'a, Value> {
        let (rest, _) = expect("`,`", tok(","))(input)?;
        self.value(rest, inst)
    }

    /// `vN`, `vN+8` or `vN-8`.
    fn address(&self, input: &'a str, inst: &mut RawInst) -> Res<'a, (Value, i32)> {
        let (rest, v) = self.value(input, inst)?;
        let (rest, sign) = opt(alt((tok("+"), tok("-"))))(rest)?;
        let Some(sign) = sign else {
            return Ok((rest, (v, 0)));
        };
        let rest = rest.trim_start_matches([' ', '\t']);
        let (after, n) = expect("an offset", digit1)(rest)?;
        let n: i64 = match n.parse() {
            Ok(n) => n,
            Err(_) => return failure(rest, "offset out of range for i32"),
        };
        let offset = if sign == "-" { -n } else { n };
        match i32::try_from(offset) {
            Ok(o) => Ok((after, (v, o))),
            Err(_) => failure(rest, "offset out of range for i32"),
        }
    }

    /// `blockN` or `blockN(v1, v2)`.
    fn block_call(&self, input: &'a str, inst: &mut RawInst) -> Res<'a, BlockCall> {
        let input = input.trim_start_matches([' ', '\t']);
        let (rest, n) = expect("a block `blockN`", numbered("block"))(input)?;
        inst.targets.push((Block(n), self.offset(input)));
        let mut call = BlockCall::new(Block(n));
        let (mut rest, open) = opt(tok("("))(rest)?;
        if open.is_some() {
            let mut uses = Vec::new();
            let (r, args) = list_until_paren(rest, "a value `vN`", |i: &'a str| {
                let i = i.trim_start_matches([' ', '\t']);
                let (r, n) = numbered("v")(i)?;
                uses.push((Value(n), self.offset(i)));
                Ok((r, Value(n)))
            })?;
            inst.uses.extend(uses);
            call.args = args;
            rest = r;
        }
        Ok((rest, call))
    }

    fn operation(&self, input: &'a str, inst: &mut RawInst) -> Res<'a, InstData> {
        let input = input.trim_start_matches([' ', '\t']);
        let (rest, opcode) = expect("an instruction", dotted)(input)?;
        let parts: Vec<&str> = opcode.split('.').collect();
        let unknown = || failure(input, format!("unknown instruction `{opcode}`"));
        match parts.as_slice() {
            ["iconst"] => {
                let (rest, imm) = expect("an integer", preceded(space0, decimal_i32))(rest)?;
                Ok((rest, InstData::Iconst { imm }))
            }
            ["bconst"] => {
                let (rest, b) = expect("`true` or `false`", tok_word)(rest)?;
                match b {
                    "true" => Ok((rest, InstData::Bconst { imm: true })),
                    "false" => Ok((rest, InstData::Bconst { imm: false })),
                    _ => failure(rest.trim_start(), "expected `true` or `false`"),
                }
            }
            ["icmp"] => {
                let at = rest.trim_start_matches([' ', '\t']);
                let (rest, name) = expect("a comparison (`eq`, `lt`, ...)", tok_word)(rest)?;
                let Some(cmp) = Cmp::ALL.into_iter().find(|c| c.suffix() == name) else {
                    return failure(at, format!("unknown comparison `{name}`"));
                };
                let (rest, a) = self.value(rest, inst)?;
                let (rest, b) = self.comma_value(rest, inst)?;
                Ok((rest, InstData::Icmp { cmp, args: [a, b] }))
            }
            ["select"] => {
                let (rest, cond) = self.value(rest, inst)?;
                let (rest, if_true) = self.comma_value(rest, inst)?;
                let (rest, if_false) = self.comma_value(rest, inst)?;
                Ok((
                    rest,
                    InstData::Select {
                        cond,
                        if_true,
                        if_false,
                    },
                ))
            }
            ["special"] => {
                // The register name contains dots (`tid.x`).
                let at = rest.trim_start_matches([' ', '\t']);
                let (rest, name) = expect("a special register name", dotted)(at)?;
                match SpecialReg::ALL.into_iter().find(|r| r.name() == name) {
                    Some(reg) => Ok((rest, InstData::Special { reg })),
                    None => failure(at, format!("unknown special register `{name}`")),
                }
            }
            [name] if UnaryOp::from_name(name).is_some() => {
                let op = UnaryOp::from_name(name).unwrap_or(UnaryOp::Not);
                let (rest, arg) = self.value(rest, inst)?;
                Ok((rest, InstData::Unary { op, arg }))
            }
            [name] if BinaryOp::from_name(name).is_some() => {
                let op = BinaryOp::from_name(name).unwrap_or(BinaryOp::Add);
                let (rest, a) = self.value(rest, inst)?;
                let (rest, b) = self.comma_value(rest, inst)?;
                Ok((rest, InstData::Binary { op, args: [a, b] }))
            }
            ["param"] => {
                let (rest, index) =
                    expect("a parameter index", preceded(space0, decimal_u32))(rest)?;
                Ok((rest, InstData::Param { index }))
            }
            ["shared_addr"] => {
                let at = rest.trim_start_matches([' ', '\t']);
                let (rest, name) = expect("`@name`", global_name)(at)?;
                inst.name_ref = Some((name.to_string(), self.offset(at)));
                Ok((
                    rest,
                    InstData::SharedAddr {
                        var: SharedId(u32::MAX),
                    },
                ))
            }
            ["stack_addr"] => {
                let at = rest.trim_start_matches([' ', '\t']);
                let (rest, n) = expect("a stack slot `ssN`", numbered("ss"))(at)?;
                inst.slot_ref = Some((StackSlot(n), self.offset(at)));
                Ok((rest, InstData::StackAddr { slot: StackSlot(n) }))
            }
            ["load", space, width] => {
                let space = mem_space(input, space)?;
                let Some(width) = LoadWidth::ALL.into_iter().find(|w| w.suffix() == *width) else {
                    return failure(input, format!("unknown load width `{width}`"));
                };
                let (rest, (addr, offset)) = self.address(rest, inst)?;
                Ok((
                    rest,
                    InstData::Load {
                        space,
                        width,
                        addr,
                        offset,
                    },
                ))
            }
            ["store", space, width] => {
                let space = mem_space(input, space)?;
                let Some(width) = StoreWidth::ALL.into_iter().find(|w| w.suffix() == *width) else {
                    return failure(input, format!("unknown store width `{width}`"));
                };
                let (rest, value) = self.value(rest, inst)?;
                let (rest, _) = expect("`,`", tok(","))(rest)?;
                let (rest, (addr, offset)) = self.address(rest, inst)?;
                Ok((
                    rest,
                    InstData::Store {
                        space,
                        width,
                        value,
                        addr,
                        offset,
                    },
                ))
            }
            ["atomic", space, op] => {
                let space = mem_space(input, space)?;
                let Some(op) = AtomOp::ALL.into_iter().find(|o| o.suffix() == *op) else {
                    return failure(input, format!("unknown atomic operation `{op}`"));
                };
                let (rest, addr) = self.value(rest, inst)?;
                let (rest, value) = self.comma_value(rest, inst)?;
                Ok((
                    rest,
                    InstData::Atomic {
                        space,
                        op,
                        addr,
                        value,
                    },
                ))
            }
            ["vote", op] => {
                let op = match *op {
                    "any" => VoteOp::Any,
                    "all" => VoteOp::All,
                    "ballot" => VoteOp::Ballot,
                    _ => return failure(input, format!("unknown vote `{op}`")),
                };
                let (rest, arg) = self.value(rest, inst)?;
                Ok((rest, InstData::Vote { op, arg }))
            }
            ["barrier"] => Ok((rest, InstData::Barrier)),
            ["call"] => {
                let at = rest.trim_start_matches([' ', '\t']);
                let (rest, name) = expect("`@name`", global_name)(at)?;
                inst.name_ref = Some((name.to_string(), self.offset(at)));
                let (rest, _) = expect("`(`", tok("("))(rest)?;
                let mut uses = Vec::new();
                let (rest, args) = list_until_paren(rest, "a value `vN`", |i: &'a str| {
                    let i = i.trim_start_matches([' ', '\t']);
                    let (r, n) = numbered("v")(i)?;
                    uses.push((Value(n), self.offset(i)));
                    Ok((r, Value(n)))
                })?;
                inst.uses.extend(uses);
                Ok((
                    rest,
                    InstData::Call {
                        func: FuncId(u32::MAX),
                        args,
                    },
                ))
            }
            ["jump"] => {
                let (rest, dest) = self.block_call(rest, inst)?;
                Ok((rest, InstData::Jump { dest }))
            }
            ["brif"] => {
                let (rest, cond) = self.value(rest, inst)?;
                let (rest, _) = expect("`,`", tok(","))(rest)?;
                let (rest, then_dest) = self.block_call(rest, inst)?;
                let (rest, _) = expect("`,`", tok(","))(rest)?;
                let (rest, else_dest) = self.block_call(rest, inst)?;
                Ok((
                    rest,
                    InstData::Brif {
                        cond,
                        then_dest,
                        else_dest,
                    },
                ))
            }
            ["return"] => {
                let trimmed = rest.trim_start_matches([' ', '\t']);
                if trimmed.trim_end().is_empty() {
                    return Ok((rest, InstData::Return { value: None }));
                }
                let (rest, v) = self.value(rest, inst)?;
                Ok((rest, InstData::Return { value: Some(v) }))
            }
            _ => unknown(),
        }
    }
}

fn tok_word(input: &str) -> Res<'_, &str> {
    preceded(space0, word)(input)
}

fn mem_space<'a>(at: &'a str, name: &str) -> Result<MemSpace, nom::Err<PErr<'a>>> {
    match MemSpace::from_name(name) {
        Some(s) => Ok(s),
        None => Err(nom::Err::Failure(PErr {
            at,
            message: Some(format!(
                "unknown memory space `{name}` (global, shared or local)"
            )),
        })),
    }
}

fn first_token(s: &str) -> &str {
    let end = s
        .char_indices()
        .find(|&(i, c)| i > 0 && (c == ' ' || c == '\t' || c == ','))
        .map_or(s.len(), |(i, _)| i);
    s[..end].trim_end()
}

fn parse_lines(text: &str) -> Result<Items, RawError> {
    let mut parser = LineParser {
        text,
        items: Items::default(),
        current: None,
    };
    for line in text.split('\n') {
        // Drop the comment; `;` cannot occur elsewhere in the syntax.
        let code = match line.find(';') {
            Some(p) => &line[..p],
            None => line,
        };
        let code = code.strip_suffix('\r').unwrap_or(code);
        parser.line(code)?;
    }
    if let Some(func) = parser.current {
        return Err(raw_error(
            func.name_at,
            func.name.len() + 1,
            format!("function @{} has no closing `}}`", func.name),
        ));
    }
    Ok(parser.items)
}

// ---------------------------------------------------------------------------
// Resolution: items to a module.

fn resolve(items: Items) -> Result<Module, RawError> {
    let mut module = Module::default();
    let mut shared_ids: HashMap<&str, SharedId> = HashMap::new();
    for s in &items.shared {
        if shared_ids.contains_key(s.name.as_str()) {
            return Err(raw_error(
                s.at,
                s.name.len() + 1,
                format!("shared variable @{} is declared twice", s.name),
            ));
        }
        let id = module.add_shared(s.name.clone(), s.size, s.align);
        shared_ids.insert(&s.name, id);
    }
    let mut func_ids: HashMap<&str, FuncId> = HashMap::new();
    for (i, f) in items.funcs.iter().enumerate() {
        if func_ids.contains_key(f.name.as_str()) {
            return Err(raw_error(
                f.name_at,
                f.name.len() + 1,
                format!("function @{} is defined twice", f.name),
            ));
        }
        func_ids.insert(&f.name, FuncId::new(i));
    }
    let names = Names {
        shared: &shared_ids,
        funcs: &func_ids,
        rets: items.funcs.iter().map(|f| f.ret).collect(),
    };
    for raw in &items.funcs {
        let func = resolve_function(raw, &names)?;
        module.funcs.push(func);
    }
    Ok(module)
}

struct Names<'a> {
    shared: &'a HashMap<&'a str, SharedId>,
    funcs: &'a HashMap<&'a str, FuncId>,
    rets: Vec<Option<Type>>,
}

fn resolve_function(raw: &RawFunc, names: &Names) -> Result<Function, RawError> {
    let mut func = Function::new(raw.name.clone(), raw.kind);
    func.param_names = raw.param_names.clone();
    func.params = raw.params.clone();
    func.ret = raw.ret;
    func.stack_slots = raw.slots.clone();

    // Blocks: numbers from the text, unlisted numbers stay out of the layout.
    let num_blocks = raw
        .blocks
        .iter()
        .map(|b| b.block.index() + 1)
        .max()
        .unwrap_or(0);
    func.blocks = vec![BlockData::default(); num_blocks];
    let mut block_defined = vec![false; num_blocks];
    for b in &raw.blocks {
        if std::mem::replace(&mut block_defined[b.block.index()], true) {
            return Err(raw_error(
                b.at,
                b.block.to_string().len(),
                format!("{} is defined twice", b.block),
            ));
        }
        func.layout.push(b.block);
    }

    // Value definitions and their types; result types are inferred below.
    let mut defs: HashMap<Value, (ValueDef, usize)> = HashMap::new();
    let mut types: HashMap<Value, Type> = HashMap::new();
    let mut define = |v: Value, def: ValueDef, at: usize| -> Result<(), RawError> {
        if defs.insert(v, (def, at)).is_some() {
            return Err(raw_error(
                at,
                v.to_string().len(),
                format!("{v} is defined twice"),
            ));
        }
        Ok(())
    };
    let mut next_inst = 0usize;
    for b in &raw.blocks {
        for (i, &(v, at, t)) in b.params.iter().enumerate() {
            define(v, ValueDef::Param(b.block, i), at)?;
            types.insert(v, t);
        }
        for inst in &b.insts {
            if let Some((v, at)) = inst.result {
                define(v, ValueDef::Result(Inst::new(next_inst)), at)?;
            }
            next_inst += 1;
        }
    }

    // Uses, targets, names and stack slots.
    let mut insts: Vec<InstData> = Vec::new();
    for b in &raw.blocks {
        for inst in &b.insts {
            for &(v, at) in &inst.uses {
                if !defs.contains_key(&v) {
                    return Err(raw_error(
                        at,
                        v.to_string().len(),
                        format!("undefined value {v}"),
                    ));
                }
            }
            for &(t, at) in &inst.targets {
                if !block_defined.get(t.index()).copied().unwrap_or(false) {
                    return Err(raw_error(
                        at,
                        t.to_string().len(),
                        format!("unknown block {t}"),
                    ));
                }
            }
            if let Some((slot, at)) = inst.slot_ref {
                if slot.index() >= func.stack_slots.len() {
                    return Err(raw_error(
                        at,
                        slot.to_string().len(),
                        format!("unknown stack slot {slot}"),
                    ));
                }
            }
            let mut data = inst.data.clone();
            match &mut data {
                InstData::SharedAddr { var } => {
                    let (name, at) = inst.name_ref.clone().unwrap_or_default();
                    *var = *names.shared.get(name.as_str()).ok_or_else(|| {
                        raw_error(
                            at,
                            name.len() + 1,
                            format!("unknown shared variable @{name}"),
                        )
                    })?;
                }
                InstData::Call { func: callee, .. } => {
                    let (name, at) = inst.name_ref.clone().unwrap_or_default();
                    let id = *names.funcs.get(name.as_str()).ok_or_else(|| {
                        raw_error(at, name.len() + 1, format!("unknown function @{name}"))
                    })?;
                    *callee = id;
                    let ret = names.rets.get(id.index()).copied().flatten();
                    match (ret, inst.result) {
                        (Some(t), None) => {
                            return Err(raw_error(
                                inst.at,
                                inst.len,
                                format!(
                                    "@{name} returns {}: name the result (`vN = call ...`)",
                                    t.name()
                                ),
                            ))
                        }
                        (None, Some((v, at))) => {
                            return Err(raw_error(
                                at,
                                v.to_string().len(),
                                format!("@{name} returns nothing, so the call has no result"),
                            ))
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
            let produces = result_kind(&data);
            match (produces, inst.result) {
                (ResultKind::None, Some((v, at))) => {
                    return Err(raw_error(
                        at,
                        v.to_string().len(),
                        format!("`{}` produces no value", opcode_name(&data)),
                    ));
                }
                (ResultKind::None, _) | (ResultKind::Call, _) => {}
                (_, None) => {
                    return Err(raw_error(
                        inst.at,
                        inst.len,
                        format!(
                            "`{}` produces a value: write `vN = {}`",
                            opcode_name(&data),
                            opcode_name(&data)
                        ),
                    ));
                }
                _ => {}
            }
            insts.push(data);
        }
    }

    // Result types: a fixpoint, since an operand may be defined further
    // down the text (a loop-carried value used by a header's branch).
    let results: Vec<Option<Value>> = raw
        .blocks
        .iter()
        .flat_map(|b| b.insts.iter().map(|i| i.result.map(|r| r.0)))
        .collect();
    loop {
        let mut progress = false;
        for (data, result) in insts.iter().zip(&results) {
            let Some(v) = result else { continue };
            if types.contains_key(v) {
                continue;
            }
            let t = match result_kind(data) {
                ResultKind::Fixed(t) => Some(t),
                ResultKind::SameAs(arg) => types.get(&arg).copied(),
                ResultKind::Call => match data {
                    InstData::Call { func, .. } => names.rets.get(func.index()).copied().flatten(),
                    _ => None,
                },
                ResultKind::None => None,
            };
            if let Some(t) = t {
                types.insert(*v, t);
                progress = true;
            }
        }
        if !progress {
            break;
        }
    }

    // Values: numbers from the text; unlisted numbers get unused entries.
    let num_values = defs.keys().map(|v| v.index() + 1).max().unwrap_or(0);
    func.values = vec![
        ValueData {
            ty: Type::I32,
            def: ValueDef::Result(Inst(u32::MAX)),
        };
        num_values
    ];
    for (&v, &(def, at)) in &defs {
        let Some(&ty) = types.get(&v) else {
            return Err(raw_error(
                at,
                v.to_string().len(),
                format!("the type of {v} depends on itself"),
            ));
        };
        func.values[v.index()] = ValueData { ty, def };
    }

    let mut k = 0usize;
    for b in &raw.blocks {
        let data = &mut func.blocks[b.block.index()];
        data.params = b.params.iter().map(|p| p.0).collect();
        for inst in &b.insts {
            data.insts.push(Inst::new(k));
            func.insts.push(InstNode {
                data: insts[k].clone(),
                result: inst.result.map(|r| r.0),
                loc: None,
            });
            k += 1;
        }
    }
    Ok(func)
}

enum ResultKind {
    None,
    Fixed(Type),
    /// The type of this operand.
    SameAs(Value),
    /// The callee's return type.
    Call,
}

fn result_kind(data: &InstData) -> ResultKind {
    use ResultKind::*;
    match data {
        InstData::Iconst { .. } => Fixed(Type::I32),
        InstData::Bconst { .. } | InstData::Icmp { .. } => Fixed(Type::I1),
        InstData::Unary {
            op: UnaryOp::Not,
            arg,
        } => SameAs(*arg),
        InstData::Unary { .. } => Fixed(Type::I32),
        InstData::Binary { op, args } if op.accepts_i1() => SameAs(args[0]),
        InstData::Binary { .. } => Fixed(Type::I32),
        InstData::Select { if_true, .. } => SameAs(*if_true),
        InstData::Special { .. }
        | InstData::Param { .. }
        | InstData::SharedAddr { .. }
        | InstData::StackAddr { .. }
        | InstData::Load { .. }
        | InstData::Atomic { .. } => Fixed(Type::I32),
        InstData::Vote {
            op: VoteOp::Ballot, ..
        } => Fixed(Type::I32),
        InstData::Vote { .. } => Fixed(Type::I1),
        InstData::Call { .. } => Call,
        InstData::Store { .. }
        | InstData::Barrier
        | InstData::Jump { .. }
        | InstData::Brif { .. }
        | InstData::Return { .. } => None,
    }
}

fn opcode_name(data: &InstData) -> &'static str {
    match data {
        InstData::Iconst { .. } => "iconst",
        InstData::Bconst { .. } => "bconst",
        InstData::Unary { op, .. } => op.name(),
        InstData::Binary { op, .. } => op.name(),
        InstData::Icmp { .. } => "icmp",
        InstData::Select { .. } => "select",
        InstData::Special { .. } => "special",
        InstData::Param { .. } => "param",
        InstData::SharedAddr { .. } => "shared_addr",
        InstData::StackAddr { .. } => "stack_addr",
        InstData::Load { .. } => "load",
        InstData::Store { .. } => "store",
        InstData::Atomic { .. } => "atomic",
        InstData::Vote { .. } => "vote",
        InstData::Barrier => "barrier",
        InstData::Call { .. } => "call",
        InstData::Jump { .. } => "jump",
        InstData::Brif { .. } => "brif",
        InstData::Return { .. } => "return",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The example of the common brief, in canonical form (no comments).
    const EXAMPLE: &str = "\
shared @tile 1024 align 4

kernel @vecadd(a, b, c, n) {
    ss0 = stack 40 align 4
block0:
    v0 = special tid.x
    v1 = param 3
    v2 = icmp lt v0, v1
    brif v2, block1, block2(v1)
block1:
    v3 = shared_addr @tile
    v4 = stack_addr ss0
    v5 = load.global.b32 v3+8
    store.local.b32 v5, v4
    v6 = atomic.shared.add v3, v5
    v7 = vote.ballot v2
    barrier
    v8 = call @addone(v0)
    v9 = iconst -5
    v10 = bconst true
    v11 = select v2, v8, v9
    v12 = bint v2
    jump block2(v11)
block2(v13: i32):
    return
}

func @addone(i32) -> i32 {
block0(v0: i32):
    v1 = iconst 1
    v2 = iadd v0, v1
    return v2
}
";

    fn parse(text: &str) -> Result<Module, IrParseError> {
        parse_module(text, "test.cir")
    }

    fn error(text: &str) -> IrParseError {
        match parse(text) {
            Ok(m) => panic!("expected an error, parsed:\n{m}"),
            Err(e) => e,
        }
    }

    #[test]
    fn example_round_trips() {
        let m = parse(EXAMPLE).unwrap();
        assert_eq!(m.to_string(), EXAMPLE);
        let k = &m.funcs[0];
        assert_eq!(k.param_names, ["a", "b", "c", "n"]);
        assert_eq!(k.value_type(Value(2)), Type::I1);
        assert_eq!(k.value_type(Value(7)), Type::I32);
        assert_eq!(k.value_type(Value(10)), Type::I1);
        assert_eq!(k.value_type(Value(11)), Type::I32);
        assert_eq!(k.value_def(Value(13)), ValueDef::Param(Block(2), 0));
        match k.inst(k.block(Block(1)).insts[7]) {
            InstData::Call { func, args } => {
                assert_eq!(*func, FuncId(1));
                assert_eq!(args, &[Value(0)]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn comments_and_blank_lines_are_ignored() {
        let text =
            "; a module\n\nkernel @k() { ; header\n\nblock0: ; entry\n    return ; done\n}\n";
        let m = parse(text).unwrap();
        assert_eq!(m.to_string(), "kernel @k() {\nblock0:\n    return\n}\n");
    }

    #[test]
    fn numbers_are_kept_and_gaps_left_unused() {
        let text = "\
kernel @k() {
block3:
    v7 = iconst 1
    jump block1(v7)
block1(v2: i32):
    return
}
";
        let m = parse(text).unwrap();
        let f = &m.funcs[0];
        assert_eq!(f.layout, vec![Block(3), Block(1)]);
        assert_eq!(f.blocks.len(), 4);
        assert_eq!(f.values.len(), 8);
        assert_eq!(f.value_def(Value(7)), ValueDef::Result(Inst(0)));
        assert_eq!(m.to_string(), text);
    }

    #[test]
    fn forward_references_infer_types() {
        // v3 is used by the header before the latch defines it; `v2`'s type
        // follows from `v3`'s, which follows from `v4`'s.
        let text = "\
func @f(flag: i1) -> i1 {
block0(v0: i1):
    jump block1(v0)
block1(v1: i1):
    v2 = bxor v3, v1
    brif v2, block2, block3
block2:
    v3 = bnot v4
    v4 = bconst false
    jump block1(v3)
block3:
    return v2
}
";
        let m = parse(text).unwrap();
        let f = &m.funcs[0];
        assert_eq!(f.value_type(Value(2)), Type::I1);
        assert_eq!(f.value_type(Value(3)), Type::I1);
        assert_eq!(f.param_names, ["flag"]);
        assert_eq!(m.to_string(), text);
    }

    #[test]
    fn calls_may_name_later_functions_and_void_calls() {
        let text = "\
kernel @k() {
block0:
    call @g()
    return
}

func @g() {
block0:
    return
}
";
        let m = parse(text).unwrap();
        assert_eq!(m.to_string(), text);
    }

    #[test]
    fn every_instruction_form_round_trips() {
        let text = "\
shared @s 16 align 16

func @all(i32, i1) -> i32 {
    ss0 = stack 4 align 4
    ss1 = stack 12 align 8
block0(v0: i32, v1: i1):
    v2 = iconst -2147483648
    v3 = bconst false
    v4 = bnot v1
    v5 = ineg v0
    v6 = sext8 v0
    v7 = zext16 v0
    v8 = umulhi v0, v5
    v9 = srem v0, v5
    v10 = sshr v0, v5
    v11 = umax v0, v5
    v12 = band v1, v4
    v13 = icmp geu v0, v5
    v14 = select v1, v12, v13
    v15 = special ctaid.y
    v16 = special tid
    v17 = shared_addr @s
    v18 = stack_addr ss1
    v19 = load.shared.u16 v17-2
    v20 = load.local.s16 v18+2147483647
    store.global.b8 v19, v0-2147483648
    store.shared.b16 v19, v17
    v21 = atomic.global.exch v0, v19
    v22 = atomic.shared.maxu v17, v19
    v23 = vote.any v1
    v24 = vote.all v14
    barrier
    v25 = call @all(v0, v1)
    brif v23, block1(v25, v24), block2
block1(v26: i32, v27: i1):
    return v26
block2:
    return v9
}
";
        let m = parse(text).unwrap();
        assert_eq!(m.to_string(), text);
        let f = &m.funcs[0];
        assert_eq!(f.value_type(Value(12)), Type::I1);
        assert_eq!(f.value_type(Value(14)), Type::I1);
        assert_eq!(f.value_type(Value(23)), Type::I1);
        assert_eq!(f.value_type(Value(4)), Type::I1);
    }

    #[test]
    fn syntax_errors_have_positions() {
        let e = error("kernel @k() {\nblock0:\n    v1 = iadd v0 v2\n}\n");
        assert_eq!((e.line, e.col), (3, 18));
        assert_eq!(e.message, "expected `,`");
        assert_eq!(e.to_string(), "test.cir:3:18: expected `,`");

        let e = error("kernel @k() {\nblock0:\n    v1 = frob v0\n}\n");
        assert_eq!((e.line, e.col), (3, 10));
        assert_eq!(e.message, "unknown instruction `frob`");

        let e = error("kernel @k() {\nblock0:\n    v1 = special tid.w\n}\n");
        assert_eq!((e.line, e.col), (3, 18));

        let e = error("kernel @k() {\nblock0:\n    v1 = iconst 4294967296\n}\n");
        assert_eq!(e.message, "integer out of range for i32");

        let e = error("kernel @k() {\nblock0:\n    return\n");
        assert_eq!((e.line, e.col), (1, 8));

        let e = error("module @k\n");
        assert_eq!((e.line, e.col), (1, 1));

        let e = error("kernel @k() {\nblock0:\n    return v1 v2\n}\n");
        assert_eq!(e.message, "unexpected `v2`");
    }

    #[test]
    fn name_errors() {
        let e = error("kernel @k() {\nblock0:\n    v0 = call @nope()\n    return\n}\n");
        assert_eq!((e.line, e.col), (3, 15));
        assert_eq!(e.message, "unknown function @nope");

        let e = error("kernel @k() {\nblock0:\n    v0 = shared_addr @x\n    return\n}\n");
        assert_eq!(e.message, "unknown shared variable @x");

        let e = error("kernel @k() {\nblock0:\n    v0 = stack_addr ss0\n    return\n}\n");
        assert_eq!(e.message, "unknown stack slot ss0");

        let e = error("kernel @k() {\nblock0:\n    jump block9\n}\n");
        assert_eq!(
            (e.line, e.col, e.message.as_str()),
            (3, 10, "unknown block block9")
        );

        let e = error("kernel @k() {\nblock0:\n    return v3\n}\n");
        assert_eq!(
            (e.line, e.col, e.message.as_str()),
            (3, 12, "undefined value v3")
        );
    }

    #[test]
    fn duplicates() {
        let e =
            error("kernel @k() {\nblock0:\n    return\n}\nkernel @k() {\nblock0:\n    return\n}\n");
        assert_eq!((e.line, e.col), (5, 8));
        assert_eq!(e.message, "function @k is defined twice");

        let e = error("shared @a 4 align 4\nshared @a 4 align 4\n");
        assert_eq!(e.line, 2);

        let e =
            error("kernel @k() {\nblock0:\n    v0 = iconst 1\n    v0 = iconst 2\n    return\n}\n");
        assert_eq!(
            (e.line, e.col, e.message.as_str()),
            (4, 5, "v0 is defined twice")
        );

        let e = error("kernel @k() {\nblock0:\n    return\nblock0:\n    return\n}\n");
        assert_eq!(e.line, 4);
    }

    #[test]
    fn result_presence_is_checked() {
        let callee = "func @one() -> i32 {\nblock0:\n    v0 = iconst 1\n    return v0\n}\n";
        let e = error(&format!(
            "{callee}kernel @k() {{\nblock0:\n    call @one()\n    return\n}}\n"
        ));
        assert_eq!(e.line, 8);
        assert!(e.message.contains("name the result"), "{}", e.message);

        let e =
            error("kernel @k() {\nblock0:\n    v0 = iconst 1\n    iadd v0, v0\n    return\n}\n");
        assert!(e.message.contains("produces a value"), "{}", e.message);

        let e = error("kernel @k() {\nblock0:\n    v0 = barrier\n    return\n}\n");
        assert_eq!(e.message, "`barrier` produces no value");
    }

    #[test]
    fn self_dependent_type_is_an_error() {
        let e = error(
            "kernel @k() {\nblock0:\n    v0 = band v1, v1\n    v1 = bor v0, v0\n    return\n}\n",
        );
        assert!(e.message.contains("depends on itself"), "{}", e.message);
    }

    #[test]
    fn render_shows_a_caret() {
        let e = error("kernel @k() {\nblock0:\n    v1 = frob v0\n}\n");
        let text = e.render();
        assert!(text.contains("unknown instruction `frob`"), "{text}");
        assert!(text.contains("test.cir:3:10"), "{text}");
        assert!(text.contains("^^^^"), "{text}");
    }

    /// Characters that make up IR text, weighted towards the syntax.
    fn ir_char() -> impl Strategy<Value = char> {
        prop_oneof![
            Just(' '),
            Just('\n'),
            Just(','),
            Just('('),
            Just(')'),
            Just(':'),
            Just('@'),
            Just('='),
            Just('{'),
            Just('}'),
            Just('-'),
            Just('+'),
            Just('.'),
            Just(';'),
            Just('v'),
            Just('é'),
            proptest::char::range('0', '9'),
            proptest::char::range('a', 'z'),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn random_text_never_panics(chars in proptest::collection::vec(ir_char(), 0..200)) {
            let text: String = chars.into_iter().collect();
            if let Err(e) = parse(&text) {
                let _ = e.render();
            }
        }

        #[test]
        fn mutated_example_never_panics(
            edits in proptest::collection::vec((0usize..2000, 0u8..3, ir_char()), 1..6)
        ) {
            let mut text: Vec<char> = EXAMPLE.chars().collect();
            for (pos, kind, c) in edits {
                let pos = pos % (text.len() + 1);
                match kind {
                    0 if pos < text.len() => { text.remove(pos); }
                    1 => text.insert(pos, c),
                    _ if pos < text.len() => text[pos] = c,
                    _ => {}
                }
            }
            let text: String = text.into_iter().collect();
            match parse(&text) {
                Ok(m) => {
                    // Whatever parses prints, and the print parses to the
                    // same text again.
                    let printed = m.to_string();
                    let again = parse(&printed).map(|m| m.to_string());
                    prop_assert_eq!(again, Ok(printed));
                }
                Err(e) => { let _ = e.render(); }
            }
        }
    }
}
