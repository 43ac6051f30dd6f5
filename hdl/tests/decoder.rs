//! The RTL decoder against `concord_isa::decode`: validity and every output,
//! for every opcode value, every guard, every value of every small operand
//! field, random values of the wide ones, reserved-bit pollution and random
//! words. The decoder block is evaluated with rust-hdl's simulator (it is
//! combinational: its `update` is iterated until no signal changes).

mod common;

use concord_hdl::decode::Decoder;
use concord_isa::encoding::{field, field_mask, operand_fields, Opcode, VOTE_ALL, VOTE_ANY};
use concord_isa::instr::*;
use rust_hdl_core::prelude::*;

use common::Rng;

fn settle(d: &mut Decoder, word: u32) {
    d.word.next = (word as u64).into();
    assert!(
        common::settled(d, 64),
        "decoder does not settle for {word:#010x}"
    );
}

fn pos<T: PartialEq>(all: &[T], x: &T) -> u64 {
    all.iter().position(|y| y == x).unwrap() as u64
}

fn b(x: bool) -> u64 {
    x as u64
}

/// Checks one word; returns whether it was valid.
fn check(d: &mut Decoder, word: u32) -> bool {
    settle(d, word);
    let expect = concord_isa::decode(word);
    let ctx = format!("word {word:#010x} ({expect:?})");
    assert_eq!(d.valid.val(), expect.is_ok(), "validity of {ctx}");
    let Ok(instr) = expect else {
        return false;
    };
    let v = |x: u64| x;
    let mut classes: Vec<(&str, bool)> = Vec::new();
    let mut fields: Vec<(&str, u64, u64)> = Vec::new();
    let op = instr.op;
    let cls = |name: &'static str| name;
    let class = match op {
        Op::Nop => cls("nop"),
        Op::Alu { op, rd, .. } => {
            fields.push(("func", d.func.val().index() as u64, pos(&AluOp::ALL, &op)));
            fields.push(("rd", d.rd.val().index() as u64, rd.index() as u64));
            "alu"
        }
        Op::AluImm { op, rd, imm, .. } => {
            fields.push(("func", d.func.val().index() as u64, pos(&AluOp::ALL, &op)));
            fields.push(("rd", d.rd.val().index() as u64, rd.index() as u64));
            fields.push(("imm", d.imm.val().index() as u64, imm as u32 as u64));
            "alui"
        }
        Op::MovI { rd, imm } => {
            fields.push(("rd", d.rd.val().index() as u64, rd.index() as u64));
            fields.push(("imm", d.imm.val().index() as u64, imm as u32 as u64));
            "movi"
        }
        Op::MovHi { rd, imm } => {
            fields.push(("rd", d.rd.val().index() as u64, rd.index() as u64));
            fields.push(("imm", d.imm.val().index() as u64, imm as u64));
            "movhi"
        }
        Op::SetP { cmp, pd, .. } => {
            fields.push(("func", d.func.val().index() as u64, pos(&Cmp::ALL, &cmp)));
            fields.push(("pd", d.pd.val().index() as u64, pd.index() as u64));
            "setp"
        }
        Op::SetPImm { cmp, pd, imm, .. } => {
            fields.push(("func", d.func.val().index() as u64, pos(&Cmp::ALL, &cmp)));
            fields.push(("pd", d.pd.val().index() as u64, pd.index() as u64));
            fields.push(("imm", d.imm.val().index() as u64, imm as u32 as u64));
            "setpi"
        }
        Op::PLogic { op, pd, a, b: pb } => {
            fields.push(("func", d.func.val().index() as u64, pos(&PredOp::ALL, &op)));
            fields.push(("pd", d.pd.val().index() as u64, pd.index() as u64));
            fields.push(("pa", d.pa.val().index() as u64, a.pred.index() as u64));
            fields.push(("pa_neg", b(d.pa_neg.val()), b(a.negate)));
            fields.push(("pb", d.pb.val().index() as u64, pb.pred.index() as u64));
            fields.push(("pb_neg", b(d.pb_neg.val()), b(pb.negate)));
            "plogic"
        }
        Op::Sel { rd, p, .. } => {
            fields.push(("rd", d.rd.val().index() as u64, rd.index() as u64));
            fields.push(("pb", d.pb.val().index() as u64, p.pred.index() as u64));
            fields.push(("pb_neg", b(d.pb_neg.val()), b(p.negate)));
            "sel"
        }
        Op::S2R { rd, sreg } => {
            fields.push(("rd", d.rd.val().index() as u64, rd.index() as u64));
            fields.push(("imm", d.imm.val().index() as u64, sreg.code() as u64));
            "s2r"
        }
        Op::LdParam { rd, index } => {
            fields.push(("rd", d.rd.val().index() as u64, rd.index() as u64));
            fields.push(("imm", d.imm.val().index() as u64, index as u64));
            "ldparam"
        }
        Op::Load {
            space,
            width,
            rd,
            offset,
            ..
        } => {
            fields.push(("rd", d.rd.val().index() as u64, rd.index() as u64));
            fields.push(("imm", d.imm.val().index() as u64, offset as u32 as u64));
            fields.push(("shared", b(d.shared.val()), b(space == Space::Shared)));
            fields.push((
                "mlog",
                d.mlog.val().index() as u64,
                width.bytes().trailing_zeros() as u64,
            ));
            fields.push((
                "msigned",
                b(d.msigned.val()),
                b(matches!(width, LoadWidth::S8 | LoadWidth::S16)),
            ));
            "load"
        }
        Op::Store {
            space,
            width,
            offset,
            ..
        } => {
            fields.push(("imm", d.imm.val().index() as u64, offset as u32 as u64));
            fields.push(("shared", b(d.shared.val()), b(space == Space::Shared)));
            fields.push((
                "mlog",
                d.mlog.val().index() as u64,
                width.bytes().trailing_zeros() as u64,
            ));
            "store"
        }
        Op::Atom { space, op, rd, .. } => {
            fields.push(("rd", d.rd.val().index() as u64, rd.index() as u64));
            fields.push(("func", d.func.val().index() as u64, pos(&AtomOp::ALL, &op)));
            fields.push(("shared", b(d.shared.val()), b(space == Space::Shared)));
            fields.push(("mlog", d.mlog.val().index() as u64, 2));
            "atom"
        }
        Op::Bra { target } => {
            fields.push(("imm", d.imm.val().index() as u64, target as u64));
            "bra"
        }
        Op::BraCons { kind, p, target } => {
            fields.push(("imm", d.imm.val().index() as u64, target as u64));
            fields.push((
                "func",
                d.func.val().index() as u64,
                pos(&Consensus::ALL, &kind),
            ));
            fields.push(("pb", d.pb.val().index() as u64, p.pred.index() as u64));
            fields.push(("pb_neg", b(d.pb_neg.val()), b(p.negate)));
            "cons"
        }
        Op::Jmp { .. } => "jmp",
        Op::Call { rd, target } => {
            fields.push(("rd", d.rd.val().index() as u64, rd.index() as u64));
            fields.push(("imm", d.imm.val().index() as u64, target as u64));
            "call"
        }
        Op::CallR { rd, .. } => {
            fields.push(("rd", d.rd.val().index() as u64, rd.index() as u64));
            "callr"
        }
        Op::Ret { .. } => "ret",
        Op::Bar => "bar",
        Op::Exit => "exit",
        Op::Vote { kind, pd, p } => {
            let f = match kind {
                VoteKind::Any => VOTE_ANY,
                VoteKind::All => VOTE_ALL,
            };
            fields.push(("func", d.func.val().index() as u64, f as u64));
            fields.push(("pd", d.pd.val().index() as u64, pd.index() as u64));
            fields.push(("pb", d.pb.val().index() as u64, p.pred.index() as u64));
            fields.push(("pb_neg", b(d.pb_neg.val()), b(p.negate)));
            "vote"
        }
        Op::Ballot { rd, p } => {
            fields.push(("rd", d.rd.val().index() as u64, rd.index() as u64));
            fields.push(("pb", d.pb.val().index() as u64, p.pred.index() as u64));
            fields.push(("pb_neg", b(d.pb_neg.val()), b(p.negate)));
            "ballot"
        }
    };
    classes.push(("nop", d.k_nop.val()));
    classes.push(("alu", d.k_alu.val()));
    classes.push(("alui", d.k_alui.val()));
    classes.push(("movi", d.k_movi.val()));
    classes.push(("movhi", d.k_movhi.val()));
    classes.push(("setp", d.k_setp.val()));
    classes.push(("setpi", d.k_setpi.val()));
    classes.push(("plogic", d.k_plogic.val()));
    classes.push(("sel", d.k_sel.val()));
    classes.push(("s2r", d.k_s2r.val()));
    classes.push(("ldparam", d.k_ldparam.val()));
    classes.push(("load", d.k_load.val()));
    classes.push(("store", d.k_store.val()));
    classes.push(("atom", d.k_atom.val()));
    classes.push(("bra", d.k_bra.val()));
    classes.push(("cons", d.k_cons.val()));
    classes.push(("jmp", d.k_jmp.val()));
    classes.push(("call", d.k_call.val()));
    classes.push(("callr", d.k_callr.val()));
    classes.push(("ret", d.k_ret.val()));
    classes.push(("bar", d.k_bar.val()));
    classes.push(("exit", d.k_exit.val()));
    classes.push(("vote", d.k_vote.val()));
    classes.push(("ballot", d.k_ballot.val()));
    for (name, got) in &classes {
        assert_eq!(*got, *name == class, "class {name} of {ctx}");
    }
    let (sa, sb) = instr.sources();
    fields.push((
        "src_a",
        d.src_a.val().index() as u64,
        sa.map_or(0, |r| r.index() as u64),
    ));
    fields.push((
        "src_b",
        d.src_b.val().index() as u64,
        sb.map_or(0, |r| r.index() as u64),
    ));
    fields.push(("wr_rd", b(d.wr_rd.val()), b(instr.dest_reg().is_some())));
    if let Some(r) = instr.dest_reg() {
        fields.push(("dest rd", d.rd.val().index() as u64, r.index() as u64));
    }
    fields.push(("wr_pd", b(d.wr_pd.val()), b(instr.dest_pred().is_some())));
    if let Some(p) = instr.dest_pred() {
        fields.push(("dest pd", d.pd.val().index() as u64, p.index() as u64));
    }
    fields.push(("control", b(d.control.val()), b(instr.is_control())));
    fields.push(("memory", b(d.memory.val()), b(instr.is_memory())));
    fields.push(("gneg", b(d.gneg.val()), b(instr.guard.negate)));
    fields.push((
        "gpred",
        d.gpred.val().index() as u64,
        instr.guard.pred.index() as u64,
    ));
    fields.push((
        "opcode",
        d.opcode.val().index() as u64,
        Opcode::of(&instr.op) as u64,
    ));
    for (name, got, want) in fields {
        assert_eq!(v(got), v(want), "{name} of {ctx}");
    }
    true
}

fn put(word: u32, (lsb, width): (u32, u32), value: u32) -> u32 {
    let m = field_mask((lsb, width));
    (word & !m) | ((value << lsb) & m)
}

#[test]
fn decoder_matches_isa_decode() {
    let mut d = Decoder::new();
    d.connect_all();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut total = 0usize;
    let mut valid = 0usize;
    let mut run = |d: &mut Decoder, w: u32| {
        total += 1;
        if check(d, w) {
            valid += 1;
        }
    };
    let head = [field::GUARD_NEG, field::GUARD_PRED, field::OPCODE];
    for opcode in 0..64u32 {
        let fields: Vec<(u32, u32)> = Opcode::from_u32(opcode)
            .map(|o| operand_fields(o).to_vec())
            .unwrap_or_default();
        let used = fields.iter().fold(0, |m, f| m | field_mask(*f));
        let base = |rng: &mut Rng| {
            let mut w = put(0, field::OPCODE, opcode);
            w = put(w, field::GUARD_NEG, rng.word() & 1);
            w = put(w, field::GUARD_PRED, rng.word() & 7);
            w | (rng.word() & used)
        };
        // Every guard.
        for g in 0..16u32 {
            let w = base(&mut rng);
            let w = put(put(w, field::GUARD_NEG, g >> 3), field::GUARD_PRED, g & 7);
            run(&mut d, w);
        }
        // Every value of every operand field (random values for wide ones),
        // the other fields random.
        for f in &fields {
            let values: Vec<u32> = if f.1 <= 10 {
                (0..1u32 << f.1).collect()
            } else {
                let top = (1u32 << f.1) - 1;
                let mut v = vec![0, 1, 31, 32, top, top >> 1, (top >> 1) + 1];
                v.extend([65535, 65536, 65537].iter().filter(|x| **x <= top));
                v.extend((0..200).map(|_| rng.word() & top));
                v
            };
            for value in values {
                let w = put(base(&mut rng), *f, value);
                run(&mut d, w);
            }
        }
        // One reserved bit set.
        for bit in 0..32 {
            if (used | head.iter().fold(0, |m, f| m | field_mask(*f))) & (1 << bit) == 0 {
                run(&mut d, base(&mut rng) | 1 << bit);
            }
        }
    }
    for _ in 0..5000 {
        let w = rng.word();
        run(&mut d, w);
    }
    assert!(total > 10_000, "{total} words");
    assert!(valid > total / 4, "{valid} of {total} words valid");
    eprintln!("decoder: {total} words checked, {valid} valid");
}
