//! Instruction-form histogram of a code image, for coverage checks.

use std::collections::BTreeMap;

use concord_isa::instr::{Instr, Op, SpecialReg, VoteKind};
use concord_isa::{decode, AluOp, AtomOp, Cmp, Consensus, LoadWidth, PredOp, Space, StoreWidth};

/// The form of a decoded instruction: the mnemonic with its function code
/// and, for the ALU and `setp`, whether the second source is an immediate
/// (`add`, `add.imm`, `setp.lt`, `setp.lt.imm`, `s2r.%laneid`,
/// `ld.shared.u8`, `atom.global.min`, `bra.any`, `vote.ballot`...).
pub fn form_name(instr: &Instr) -> String {
    match instr.op {
        Op::Alu { op, .. } => op.mnemonic().to_string(),
        Op::AluImm { op, .. } => format!("{}.imm", op.mnemonic()),
        Op::MovI { .. } => "movi".into(),
        Op::MovHi { .. } => "movhi".into(),
        Op::SetP { cmp, .. } => format!("setp.{}", cmp.suffix()),
        Op::SetPImm { cmp, .. } => format!("setp.{}.imm", cmp.suffix()),
        Op::PLogic { op, .. } => op.mnemonic().into(),
        Op::Sel { .. } => "sel".into(),
        Op::S2R { sreg, .. } => format!("s2r.%{}", sreg.name()),
        Op::LdParam { .. } => "ldparam".into(),
        Op::Load { space, width, .. } => format!("ld.{}.{}", space.name(), width.suffix()),
        Op::Store { space, width, .. } => format!("st.{}.{}", space.name(), width.suffix()),
        Op::Atom { space, op, .. } => format!("atom.{}.{}", space.name(), op.suffix()),
        Op::Bra { .. } => "bra".into(),
        Op::BraCons { kind, .. } => format!("bra.{}", kind.suffix()),
        Op::Jmp { .. } => "jmp".into(),
        Op::Call { .. } => "call".into(),
        Op::CallR { .. } => "callr".into(),
        Op::Ret { .. } => "ret".into(),
        Op::Bar => "bar.sync".into(),
        Op::Exit => "exit".into(),
        Op::Vote { kind, .. } => format!("vote.{}", kind.suffix()),
        Op::Ballot { .. } => "vote.ballot".into(),
        Op::Nop => "nop".into(),
    }
}

/// Counts the instruction forms ([`form_name`]) of the words of `code`;
/// words that do not decode count as `.word`.
pub fn opcode_histogram(code: &[u32]) -> BTreeMap<String, usize> {
    let mut h = BTreeMap::new();
    for w in code {
        let name = match decode(*w) {
            Ok(i) => form_name(&i),
            Err(_) => ".word".to_string(),
        };
        *h.entry(name).or_insert(0) += 1;
    }
    h
}

/// Every form the generator is meant to produce: all instructions of the
/// ISA except `s2r` of the model-dependent `%clock` and `%clockhi`.
pub fn expected_forms() -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for op in AluOp::ALL {
        v.push(op.mnemonic().into());
        if op.has_imm_form() {
            v.push(format!("{}.imm", op.mnemonic()));
        }
    }
    v.extend(["movi", "movhi", "sel", "ldparam"].map(String::from));
    for c in Cmp::ALL {
        v.push(format!("setp.{}", c.suffix()));
        v.push(format!("setp.{}.imm", c.suffix()));
    }
    for p in PredOp::ALL {
        v.push(p.mnemonic().into());
    }
    for s in SpecialReg::ALL {
        if !matches!(s, SpecialReg::ClockLo | SpecialReg::ClockHi) {
            v.push(format!("s2r.%{}", s.name()));
        }
    }
    for space in Space::ALL {
        for w in LoadWidth::ALL {
            v.push(format!("ld.{}.{}", space.name(), w.suffix()));
        }
        for w in StoreWidth::ALL {
            v.push(format!("st.{}.{}", space.name(), w.suffix()));
        }
        for a in AtomOp::ALL {
            v.push(format!("atom.{}.{}", space.name(), a.suffix()));
        }
    }
    for k in Consensus::ALL {
        v.push(format!("bra.{}", k.suffix()));
    }
    for k in [VoteKind::Any, VoteKind::All] {
        v.push(format!("vote.{}", k.suffix()));
    }
    v.extend(
        [
            "vote.ballot",
            "bra",
            "jmp",
            "call",
            "callr",
            "ret",
            "bar.sync",
            "exit",
            "nop",
        ]
        .map(String::from),
    );
    v
}
