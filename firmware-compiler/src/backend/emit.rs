//! Emission: lays the functions out one after another (the kernel first, so
//! its entry is address 0; then the device functions; then the runtime),
//! resolves labels to word addresses, encodes every instruction with the
//! ISA crate's encoder and writes an assembly listing that
//! `concord_isa::asm::assemble` turns back into the same words.

use std::collections::HashMap;
use std::fmt::Write;

use concord_isa::container::{Entry, Kernel};
use concord_isa::encoding::encode;
use concord_isa::instr::{Instr, Op, MAX_IMEM_WORDS};

use super::pcode::{Item, Label, PFunction};
use super::BackendError;

/// What the container needs besides the code.
pub struct KernelInfo<'a> {
    pub name: &'a str,
    pub params: &'a [String],
    pub shared_bytes: u32,
    pub stack_bytes: u32,
}

/// Emits `funcs` (the first is the kernel) as one kernel image and listing.
pub fn emit(funcs: &[PFunction], info: &KernelInfo<'_>) -> Result<(Kernel, String), BackendError> {
    let err = |message: String| BackendError::Emit {
        kernel: info.name.to_string(),
        message,
    };
    // Addresses of labels.
    let mut addr: HashMap<Label, u32> = HashMap::new();
    let mut pc: u64 = 0;
    for f in funcs {
        for item in &f.items {
            match item {
                Item::Label(l) => {
                    addr.insert(*l, pc as u32);
                }
                Item::Inst(p) => {
                    if p.instr.is_some() {
                        pc += 1;
                    }
                }
            }
        }
    }
    if pc as usize > MAX_IMEM_WORDS {
        return Err(err(format!(
            "{pc} instructions exceed the {MAX_IMEM_WORDS}-word instruction memory"
        )));
    }
    // Listing names for labels: unique, valid assembly names.
    let mut names: HashMap<Label, String> = HashMap::new();
    let mut taken: HashMap<String, ()> = HashMap::new();
    for f in funcs {
        for (l, name) in &f.label_names {
            let mut n = sanitize(name);
            while taken.contains_key(&n) {
                n.push('_');
            }
            taken.insert(n.clone(), ());
            names.insert(*l, n);
        }
    }

    let mut code = Vec::new();
    let mut listing = String::new();
    let _ = writeln!(listing, "; Concord kernel {} (compiled)", info.name);
    for p in info.params {
        let _ = writeln!(listing, ".param {}", sanitize(p));
    }
    if info.shared_bytes > 0 {
        let _ = writeln!(listing, ".shared {}", info.shared_bytes);
    }
    if info.stack_bytes > 0 {
        let _ = writeln!(listing, ".stack {}", info.stack_bytes);
    }
    let entry_label = funcs.first().and_then(|f| {
        f.items.iter().find_map(|i| match i {
            Item::Label(l @ Label::Func(_)) => Some(*l),
            _ => None,
        })
    });
    let mut symbols = Vec::new();
    for f in funcs {
        let _ = writeln!(listing);
        let _ = writeln!(listing, "; function {}", f.name);
        for item in &f.items {
            match item {
                Item::Label(l) => {
                    let here = code.len() as u32;
                    if Some(*l) == entry_label {
                        let _ = writeln!(listing, ".entry {}", sanitize(info.name));
                        continue;
                    }
                    if let Some(n) = names.get(l) {
                        let _ = writeln!(listing, "{n}:");
                        symbols.push((n.clone(), here));
                    }
                }
                Item::Inst(p) => {
                    let Some(mut instr) = p.instr else { continue };
                    let mut text = None;
                    if let Some(t) = p.target {
                        let a = *addr
                            .get(&t)
                            .ok_or_else(|| err(format!("undefined label {t:?}")))?;
                        instr = instr.with_target(a);
                        let name = names
                            .get(&t)
                            .cloned()
                            .or_else(|| (Some(t) == entry_label).then(|| sanitize(info.name)))
                            .unwrap_or_else(|| a.to_string());
                        text = Some(with_label(&instr, &name));
                    }
                    let word = encode(&instr).map_err(|e| err(format!("`{instr}`: {e}")))?;
                    let text = text.unwrap_or_else(|| instr.to_string());
                    let _ = writeln!(listing, "    {text:<32} ; {}: {word:#010x}", code.len());
                    code.push(word);
                }
            }
        }
    }
    let (regs_used, preds_used) = concord_isa::asm::resources_used(&code);
    let kernel = Kernel {
        code,
        entries: vec![Entry {
            name: info.name.to_string(),
            pc: 0,
        }],
        params: info.params.to_vec(),
        shared_bytes: info.shared_bytes,
        regs_used,
        preds_used,
        symbols,
        stack_bytes: info.stack_bytes,
    };
    Ok((kernel, listing))
}

/// The canonical text of a branch or call with a label for its target.
fn with_label(instr: &Instr, label: &str) -> String {
    let guard = if instr.guard.is_always_true() {
        String::new()
    } else {
        format!("@{} ", instr.guard)
    };
    match instr.op {
        Op::Bra { .. } => format!("{guard}bra {label}"),
        Op::BraCons { kind, p, .. } => format!("{guard}bra.{} {p}, {label}", kind.suffix()),
        Op::Call { rd, .. } => format!("{guard}call {rd}, {label}"),
        _ => instr.to_string(),
    }
}

/// A valid assembly name: invalid characters become `_`, and a name that
/// could be read as a register or number gets a leading `_`.
pub fn sanitize(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || !concord_isa::asm::is_symbol_name(&s) {
        s.insert(0, '_');
    }
    s
}
