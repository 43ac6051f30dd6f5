//! The Concord disassembler: the canonical text of an [`Instr`] (its
//! `Display`), of a word, and full kernel listings that assemble back to the
//! same code, entries, parameters and shared memory size.
//!
//! The canonical text is what [`crate::asm::assemble`] reads: the guard is
//! omitted when it is `@pt`, `add rd, rs, 0` prints as `mov rd, rs`,
//! `pand pd, x, pt` as `pmov pd, x`, `movhi` immediates in hex, everything
//! else in decimal. Loads and stores always name their width.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::{self, Write as _};

use crate::asm::is_symbol_name;
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

/// A full listing of `kernel` that assembles back to the same `code`,
/// `entries` (when they are listed in address order, as the assembler
/// produces them), `params` and `shared_bytes`.
///
/// Layout: `.param` and `.shared` first, then the code with `.entry NAME`
/// before each entry's instruction and a label line before every address that
/// is a direct branch/call target or carries a symbol. Labels use the symbol
/// name when there is one, else `L<addr>`; targets print as those labels.
/// Undecodable words become `.word 0x........`. Each code line ends with
/// `; addr: 0xWORD`. Names that are not valid in assembly are sanitized.
pub fn disassemble(kernel: &Kernel) -> String {
    let len = kernel.code.len();
    let decoded: Vec<Option<Instr>> = kernel.code.iter().map(|w| decode(*w).ok()).collect();

    // Label names: entries first, then symbols, then generated `L<addr>`.
    let mut taken = HashSet::new();
    let mut entries: Vec<(u32, String)> = kernel
        .entries
        .iter()
        .map(|e| (e.pc, unique(sanitize(&e.name), &mut taken)))
        .collect();
    entries.sort_by_key(|e| e.0);
    // Targets print as the first plain label at the address, else as the
    // entry name there.
    let mut name_of: HashMap<u32, String> = HashMap::new();
    let mut labels: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for (name, pc) in &kernel.symbols {
        if *pc as usize > len || !is_symbol_name(name) || taken.contains(name) {
            continue;
        }
        taken.insert(name.clone());
        labels.entry(*pc).or_default().push(name.clone());
        name_of.entry(*pc).or_insert_with(|| name.clone());
    }
    for (pc, name) in &entries {
        name_of.entry(*pc).or_insert_with(|| name.clone());
    }
    for t in decoded.iter().flatten().filter_map(Instr::direct_target) {
        if t as usize <= len && !name_of.contains_key(&t) {
            let name = unique(format!("L{t}"), &mut taken);
            labels.entry(t).or_default().push(name.clone());
            name_of.insert(t, name);
        }
    }
    let mut param_taken = HashSet::new();
    let params: Vec<String> = kernel
        .params
        .iter()
        .map(|p| unique(sanitize(p), &mut param_taken))
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

    let target = |t: u32| name_of.get(&t).cloned().unwrap_or_else(|| t.to_string());
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
