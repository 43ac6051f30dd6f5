//! The Concord disassembler: the canonical text of an [`Instr`] (its
//! `Display`), of a word, and full kernel listings that assemble back to the
//! same container, byte for byte (see [`disassemble`] for when).
//!
//! The canonical text is what [`crate::asm::assemble`] reads: the guard is
//! omitted when it is `@pt`, `add rd, rs, 0` prints as `mov rd, rs`,
//! `pand pd, x, pt` as `pmov pd, x`, `movhi` immediates in hex, everything
//! else in decimal. Loads and stores always name their width.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::{self, Write as _};

use crate::asm::{is_param_name, is_symbol_name};
use crate::container::Kernel;
use crate::encoding::decode;
use crate::instr::*;

impl fmt::Display for Instr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_instr(f, self, &|t| t.to_string(), &|i| i.to_string())
    }
}

fn mem(base: Reg, offset: i32) -> String {
    match offset {
        0 => format!("[{base}]"),
        o if o > 0 => format!("[{base}+{o}]"),
        o => format!("[{base}-{}]", o.unsigned_abs()),
    }
}

/// Writes `instr` with direct targets and `ldparam` indices spelled by the
/// given functions.
fn write_instr(
    f: &mut dyn fmt::Write,
    instr: &Instr,
    target: &dyn Fn(u32) -> String,
    param: &dyn Fn(u8) -> String,
) -> fmt::Result {
    if instr.guard != Guard::TRUE {
        write!(f, "@{} ", instr.guard)?;
    }
    match instr.op {
        Op::AluImm {
            op: AluOp::Add,
            rd,
            rs1,
            imm: 0,
        } => write!(f, "mov {rd}, {rs1}"),
        Op::Alu { op, rd, rs1, rs2 } => write!(f, "{} {rd}, {rs1}, {rs2}", op.mnemonic()),
        Op::AluImm { op, rd, rs1, imm } => write!(f, "{} {rd}, {rs1}, {imm}", op.mnemonic()),
        Op::MovI { rd, imm } => write!(f, "movi {rd}, {imm}"),
        Op::MovHi { rd, imm } => write!(f, "movhi {rd}, {imm:#x}"),
        Op::SetP { cmp, pd, rs1, rs2 } => write!(f, "setp.{} {pd}, {rs1}, {rs2}", cmp.suffix()),
        Op::SetPImm { cmp, pd, rs1, imm } => {
            write!(f, "setp.{} {pd}, {rs1}, {imm}", cmp.suffix())
        }
        Op::PLogic {
            op: PredOp::And,
            pd,
            a,
            b: PredSrc::TRUE,
        } => write!(f, "pmov {pd}, {a}"),
        Op::PLogic { op, pd, a, b } => write!(f, "{} {pd}, {a}, {b}", op.mnemonic()),
        Op::Sel { rd, p, rs1, rs2 } => write!(f, "sel {rd}, {p}, {rs1}, {rs2}"),
        Op::S2R { rd, sreg } => write!(f, "s2r {rd}, %{}", sreg.name()),
        Op::LdParam { rd, index } => write!(f, "ldparam {rd}, {}", param(index)),
        Op::Load {
            space,
            width,
            rd,
            base,
            offset,
        } => write!(
            f,
            "ld.{}.{} {rd}, {}",
            space.name(),
            width.suffix(),
            mem(base, offset)
        ),
        Op::Store {
            space,
            width,
            src,
            base,
            offset,
        } => write!(
            f,
            "st.{}.{} {}, {src}",
            space.name(),
            width.suffix(),
            mem(base, offset)
        ),
        Op::Atom {
            space,
            op,
            rd,
            addr,
            src,
        } => write!(
            f,
            "atom.{}.{} {rd}, [{addr}], {src}",
            space.name(),
            op.suffix()
        ),
        Op::Bra { target: t } => write!(f, "bra {}", target(t)),
        Op::BraCons { kind, p, target: t } => write!(f, "bra.{} {p}, {}", kind.suffix(), target(t)),
        Op::Jmp { rs } => write!(f, "jmp {rs}"),
        Op::Call { rd, target: t } => write!(f, "call {rd}, {}", target(t)),
        Op::CallR { rd, rs } => write!(f, "callr {rd}, {rs}"),
        Op::Ret { rs } => write!(f, "ret {rs}"),
        Op::Bar => write!(f, "bar.sync"),
        Op::Exit => write!(f, "exit"),
        Op::Nop => write!(f, "nop"),
        Op::Vote { kind, pd, p } => write!(f, "vote.{} {pd}, {p}", kind.suffix()),
        Op::Ballot { rd, p } => write!(f, "vote.ballot {rd}, {p}"),
    }
}

/// The instruction a word encodes, or `.word 0x........` when it does not decode.
pub fn disassemble_word(word: u32) -> String {
    match decode(word) {
        Ok(instr) => instr.to_string(),
        Err(_) => format!(".word {word:#010x}"),
    }
}

/// A name usable in assembly: `name` itself when it is a valid symbol name,
/// else `name` with invalid characters replaced and a leading `_` when needed.
fn sanitize(name: &str) -> String {
    if is_symbol_name(name) {
        return name.to_string();
    }
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if is_symbol_name(&s) {
        s
    } else {
        format!("_{s}")
    }
}

/// A parameter name usable after `.param`: like [`sanitize`], but names
/// shaped like registers (`p1`) are fine there.
fn sanitize_param(name: &str) -> String {
    if is_param_name(name) {
        name.to_string()
    } else {
        sanitize(name)
    }
}

/// `base`, or `base_N` for the first N that is free; marks it taken.
fn unique(base: String, taken: &mut HashSet<String>) -> String {
    let mut name = base.clone();
    let mut n = 1;
    while taken.contains(&name) {
        name = format!("{base}_{n}");
        n += 1;
    }
    taken.insert(name.clone());
    name
}

/// Column where the `; addr: word` comments start.
const COMMENT_COLUMN: usize = 36;

/// The entry the assembler creates for a source without `.entry`.
const DEFAULT_ENTRY: &str = "main";

/// A full listing of `kernel` that assembles back to the same container,
/// byte for byte, when the kernel is one the assembler or the compiler can
/// produce: entries and symbols each in address order, names that are
/// valid in assembly and not repeated (an entry and a symbol may share a
/// name at the same address). Any other kernel gives a listing that
/// assembles to the same `code`, `params`, `shared_bytes` and
/// `stack_bytes`, and to the same entries when they are in address order.
///
/// Layout: `.param`, `.shared` and `.stack` first, then the code with
/// `.entry NAME` before each entry's instruction and `NAME:` before the
/// instruction of each symbol. The lone entry `main` at address 0 is the
/// assembler's default and is written as a comment only. Direct branch
/// and call targets print as a symbol at the target, else as an entry
/// written there, else as the address: no label is invented, since it would
/// add a symbol. Undecodable words become `.word 0x........`. Each code line
/// ends with `; addr: 0xWORD`. Names that are not valid in assembly are
/// rewritten (entries, parameters) or left out (symbols).
pub fn disassemble(kernel: &Kernel) -> String {
    let len = kernel.code.len();
    let decoded: Vec<Option<Instr>> = kernel.code.iter().map(|w| decode(*w).ok()).collect();

    // The assembler's default entry is left implicit: `.entry main` would
    // clash with a symbol `main` at another address, which a source
    // without `.entry` may have.
    let implicit_main = matches!(
        kernel.entries.as_slice(),
        [e] if e.name == DEFAULT_ENTRY && e.pc == 0
    );
    // Names of the label namespace with their address: an entry and a
    // symbol may share one only at the same address.
    let mut at: HashMap<String, u32> = HashMap::new();
    let mut taken = HashSet::new();
    let mut entries: Vec<(u32, String)> = Vec::new();
    if !implicit_main {
        for e in &kernel.entries {
            let name = unique(sanitize(&e.name), &mut taken);
            at.insert(name.clone(), e.pc);
            entries.push((e.pc, name));
        }
    }
    entries.sort_by_key(|e| e.0);
    let mut labels: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    let mut symbol_at: HashMap<u32, String> = HashMap::new();
    let mut symbol_names = HashSet::new();
    for (name, pc) in &kernel.symbols {
        let usable = *pc as usize <= len
            && is_symbol_name(name)
            && !symbol_names.contains(name)
            && at.get(name).map_or(true, |entry_pc| entry_pc == pc);
        if !usable {
            continue;
        }
        symbol_names.insert(name.clone());
        labels.entry(*pc).or_default().push(name.clone());
        symbol_at.entry(*pc).or_insert_with(|| name.clone());
    }
    let mut entry_at: HashMap<u32, String> = HashMap::new();
    for (pc, name) in &entries {
        entry_at.entry(*pc).or_insert_with(|| name.clone());
    }
    let mut param_taken = HashSet::new();
    let params: Vec<String> = kernel
        .params
        .iter()
        .map(|p| unique(sanitize_param(p), &mut param_taken))
        .collect();

    let mut out = String::new();
    let _ = writeln!(
        out,
        "; Concord kernel: {len} word{}",
        if len == 1 { "" } else { "s" }
    );
    for p in &params {
        let _ = writeln!(out, ".param {p}");
    }
    if kernel.shared_bytes != 0 {
        let _ = writeln!(out, ".shared {}", kernel.shared_bytes);
    }
    if kernel.stack_bytes != 0 {
        let _ = writeln!(out, ".stack {}", kernel.stack_bytes);
    }
    if !params.is_empty() || kernel.shared_bytes != 0 || kernel.stack_bytes != 0 {
        out.push('\n');
    }
    if implicit_main {
        let _ = writeln!(
            out,
            "; entry {DEFAULT_ENTRY} at 0: the assembler's default, no `.entry` needed"
        );
    }

    let target = |t: u32| {
        symbol_at
            .get(&t)
            .or_else(|| entry_at.get(&t))
            .cloned()
            .unwrap_or_else(|| t.to_string())
    };
    let param = |i: u8| {
        params
            .get(i as usize)
            .cloned()
            .unwrap_or_else(|| i.to_string())
    };
    let mut next_entry = entries.iter().peekable();
    let label_lines = |out: &mut String, pc: u32| {
        for name in labels.get(&pc).into_iter().flatten() {
            let _ = writeln!(out, "{name}:");
        }
    };
    for (addr, (word, instr)) in kernel.code.iter().zip(&decoded).enumerate() {
        while let Some((_, name)) = next_entry.next_if(|e| e.0 as usize <= addr) {
            let _ = writeln!(out, ".entry {name}");
        }
        label_lines(&mut out, addr as u32);
        let mut text = String::from("    ");
        let _ = match instr {
            Some(instr) => write_instr(&mut text, instr, &target, &param),
            None => write!(text, ".word {word:#010x}"),
        };
        let pad = COMMENT_COLUMN.saturating_sub(text.chars().count()).max(1);
        let _ = writeln!(out, "{text}{:pad$}; {addr}: {word:#010x}", "");
    }
    // Labels just past the end; entries there (or beyond) are not valid but
    // are kept visible.
    label_lines(&mut out, len as u32);
    for (_, name) in next_entry {
        let _ = writeln!(out, ".entry {name}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sanitized() {
        assert_eq!(sanitize("loop"), "loop");
        assert_eq!(sanitize("my kernel"), "my_kernel");
        assert_eq!(sanitize("1st"), "_1st");
        assert_eq!(sanitize("r3"), "_r3");
        assert_eq!(sanitize(""), "_");
        let mut taken = HashSet::new();
        assert_eq!(unique("a".into(), &mut taken), "a");
        assert_eq!(unique("a".into(), &mut taken), "a_1");
        assert_eq!(unique("a".into(), &mut taken), "a_2");
    }
}
