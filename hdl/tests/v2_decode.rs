//! Core v2 stage D (`concord_hdl::v2::decode::Decode`, with the predicate
//! selection of `v2::guard::PredSel`) against a reference computed here
//! from `concord_isa::decode` (the golden: the ISA crate, never the code
//! under test): every output after the clock edge, for (a) random
//! instructions of every kind, guard and operand combination, encoded by
//! `concord_isa::encode`, and (b) random words, words with every opcode
//! value and random operand bits, and single-bit mutations of valid words
//! (the *invalid instruction* flag must match `decode`'s rejection
//! exactly). Simulated with rust-hdl's simulator; the Verilog is
//! `verilator --lint-only -Wall` clean with `$`-free module names.
//!
//! ```sh
//! cargo test --release -p concord-hdl --test v2_decode
//! ```

mod common;

use concord_hdl::v2::alu::AluFunc;
use concord_hdl::v2::decode::{Class, Decode, MSIZES};
use concord_hdl::v2::mul::MulFunc;
use concord_hdl::v2::setup::named_verilog;
use concord_isa::config::CoreConfig;
use concord_isa::encoding::{encode, VOTE_ALL, VOTE_ANY, VOTE_BALLOT};
use concord_isa::instr::*;
use concord_uarch::HwParams;
use rust_hdl_core::prelude::*;

use common::Rng;

/// Draws for random instructions, on the shared generator.
trait Draws {
    fn range(&mut self, lo: i64, hi: i64) -> i64;
    fn pick<T: Copy>(&mut self, all: &[T]) -> T;
}

impl Draws for Rng {
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        // Edges often, the inside otherwise.
        match self.below(8) {
            0 => lo,
            1 => hi,
            2 => 0.clamp(lo, hi),
            _ => lo + self.below((hi - lo + 1) as u64) as i64,
        }
    }
    fn pick<T: Copy>(&mut self, all: &[T]) -> T {
        all[self.below(all.len() as u64) as usize]
    }
}

fn settle<B: Block>(b: &mut B) {
    assert!(common::settled(b, 500), "the block does not settle");
}

// ---- random instructions ----

fn reg(r: &mut Rng) -> Reg {
    Reg::new(r.below(MAX_REGS as u64) as u8).unwrap()
}

fn pred(r: &mut Rng) -> Pred {
    Pred::new(r.below(MAX_PREDS as u64) as u8).unwrap()
}

fn psrc(r: &mut Rng) -> PredSrc {
    PredSrc::new(pred(r), r.below(2) == 1)
}

fn target(r: &mut Rng) -> u32 {
    r.range(0, MAX_IMEM_WORDS as i64 - 1) as u32
}

/// A random operation of kind `k` (0..KINDS), operands in range.
const KINDS: u64 = 22;

fn op_of_kind(r: &mut Rng, k: u64) -> Op {
    match k {
        0 => Op::Alu {
            op: r.pick(&AluOp::ALL),
            rd: reg(r),
            rs1: reg(r),
            rs2: reg(r),
        },
        1 => {
            let imm_ops: Vec<AluOp> = AluOp::ALL
                .iter()
                .copied()
                .filter(|o| o.has_imm_form())
                .collect();
            let op = r.pick(&imm_ops);
            let range = op.imm_range();
            Op::AluImm {
                op,
                rd: reg(r),
                rs1: reg(r),
                imm: r.range(*range.start() as i64, *range.end() as i64) as i32,
            }
        }
        2 => Op::MovI {
            rd: reg(r),
            imm: r.range(IMM17_MIN as i64, IMM17_MAX as i64) as i32,
        },
        3 => Op::MovHi {
            rd: reg(r),
            imm: r.range(0, 0xffff) as u16,
        },
        4 => Op::SetP {
            cmp: r.pick(&Cmp::ALL),
            pd: pred(r),
            rs1: reg(r),
            rs2: reg(r),
        },
        5 => Op::SetPImm {
            cmp: r.pick(&Cmp::ALL),
            pd: pred(r),
            rs1: reg(r),
            imm: r.range(IMM10_MIN as i64, IMM10_MAX as i64) as i32,
        },
        6 => Op::PLogic {
            op: r.pick(&PredOp::ALL),
            pd: pred(r),
            a: psrc(r),
            b: psrc(r),
        },
        7 => Op::Sel {
            rd: reg(r),
            p: psrc(r),
            rs1: reg(r),
            rs2: reg(r),
        },
        8 => Op::S2R {
            rd: reg(r),
            sreg: r.pick(&SpecialReg::ALL),
        },
        9 => Op::LdParam {
            rd: reg(r),
            index: r.below(MAX_PARAM_WORDS as u64) as u8,
        },
        10 => Op::Load {
            space: r.pick(&Space::ALL),
            width: r.pick(&LoadWidth::ALL),
            rd: reg(r),
            base: reg(r),
            offset: r.range(IMM12_MIN as i64, IMM12_MAX as i64) as i32,
        },
        11 => Op::Store {
            space: r.pick(&Space::ALL),
            width: r.pick(&StoreWidth::ALL),
            src: reg(r),
            base: reg(r),
            offset: r.range(IMM12_MIN as i64, IMM12_MAX as i64) as i32,
        },
        12 => Op::Atom {
            space: r.pick(&Space::ALL),
            op: r.pick(&AtomOp::ALL),
            rd: reg(r),
            addr: reg(r),
            src: reg(r),
        },
        13 => Op::Bra { target: target(r) },
        14 => Op::BraCons {
            kind: r.pick(&Consensus::ALL),
            p: psrc(r),
            target: target(r),
        },
        15 => Op::Jmp { rs: reg(r) },
        16 => Op::Call {
            rd: reg(r),
            target: target(r),
        },
        17 => Op::CallR {
            rd: reg(r),
            rs: reg(r),
        },
        18 => Op::Ret { rs: reg(r) },
        19 => match r.below(3) {
            0 => Op::Bar,
            1 => Op::Exit,
            _ => Op::Nop,
        },
        20 => Op::Vote {
            kind: if r.below(2) == 0 {
                VoteKind::Any
            } else {
                VoteKind::All
            },
            pd: pred(r),
            p: psrc(r),
        },
        _ => Op::Ballot {
            rd: reg(r),
            p: psrc(r),
        },
    }
}

// ---- the reference ----

fn bit(i: usize) -> u64 {
    1 << i
}

fn pos<T: PartialEq>(all: &[T], x: &T) -> usize {
    all.iter().position(|y| y == x).unwrap()
}

/// Lane mask of a predicate operand: `pt` all ones, `p` (1..P) its bank
/// bits, an index at or above `P` false; then the negation.
fn pmask(hw: &HwParams, bank: u64, p: PredSrc) -> u64 {
    let l = hw.lanes;
    let all = (1u64 << l) - 1;
    let m = if p.pred.is_true() {
        all
    } else if p.pred.index() < hw.predicates {
        (bank >> ((p.pred.index() - 1) * l)) & all
    } else {
        0
    };
    if p.negate {
        !m & all
    } else {
        m
    }
}

#[derive(Debug, PartialEq, Eq, Default)]
struct Out {
    invalid: bool,
    cls: u64,
    movhi: bool,
    imm_b: bool,
    alu: u64,
    mul: u64,
    pop: u64,
    atom: u64,
    vote: u64,
    cons: u64,
    sreg: u64,
    shared: bool,
    msize: u64,
    msigned: bool,
    imm: u64,
    target: u64,
    /// `Some` only where the reference defines them.
    param: Option<u64>,
    rd: Option<u64>,
    wr_rd: bool,
    pd: Option<u64>,
    wr_pd: bool,
    ra: u64,
    rb: u64,
    exec: u64,
    pa: Option<u64>,
    pb: Option<u64>,
}

fn reference(hw: &HwParams, word: u32, warp: usize, active: u64, bank: u64) -> Option<Out> {
    let Ok(i) = concord_isa::decode(word) else {
        return None;
    };
    let op = i.op;
    let mut o = Out {
        cls: bit(Class::of(&op).bit()),
        movhi: matches!(op, Op::MovHi { .. }),
        imm_b: matches!(op, Op::AluImm { .. } | Op::SetPImm { .. }),
        exec: active & pmask(hw, bank, i.guard),
        target: i.direct_target().unwrap_or(0) as u64,
        wr_rd: i.dest_reg().is_some(),
        rd: i.dest_reg().map(|r| r.index() as u64),
        wr_pd: i.dest_pred().is_some(),
        pd: i.dest_pred().map(|p| p.index() as u64),
        ..Default::default()
    };
    let rp = hw.rf_rows_per_warp;
    let (a, b) = i.sources();
    let addr = |s: Option<Reg>| (warp * rp + (s.map_or(0, |r| r.index()) & (rp - 1))) as u64;
    o.ra = addr(a);
    o.rb = addr(b);
    match op {
        Op::Alu { op, .. } | Op::AluImm { op, .. } => {
            o.alu = AluFunc::of_alu(op).map_or(0, |f| f.onehot() as u64);
            o.mul = MulFunc::of_alu(op).map_or(0, |f| f.onehot() as u64);
        }
        Op::SetP { cmp, .. } | Op::SetPImm { cmp, .. } => {
            o.alu = AluFunc::SetP(cmp).onehot() as u64;
        }
        Op::Load { .. } | Op::Store { .. } | Op::Atom { .. } => {
            o.alu = AluFunc::Addr.onehot() as u64;
        }
        _ => {}
    }
    let size = |n: u32| bit(pos(&MSIZES, &n));
    match op {
        Op::Load { space, width, .. } => {
            o.shared = space == Space::Shared;
            o.msize = size(width.bytes());
            o.msigned = matches!(width, LoadWidth::S8 | LoadWidth::S16);
        }
        Op::Store { space, width, .. } => {
            o.shared = space == Space::Shared;
            o.msize = size(width.bytes());
        }
        Op::Atom { space, op, .. } => {
            o.shared = space == Space::Shared;
            o.msize = size(4);
            o.atom = bit(pos(&AtomOp::ALL, &op));
        }
        _ => {}
    }
    o.imm = match op {
        Op::AluImm { imm, .. } | Op::MovI { imm, .. } | Op::SetPImm { imm, .. } => imm as u32,
        Op::MovHi { imm, .. } => (imm as u32) << 16,
        Op::Load { offset, .. } | Op::Store { offset, .. } => offset as u32,
        Op::LdParam { index, .. } => index as u32,
        _ => 0,
    } as u64;
    match op {
        Op::PLogic { op, a, b, .. } => {
            o.pop = bit(pos(&PredOp::ALL, &op));
            o.pa = Some(pmask(hw, bank, a));
            o.pb = Some(pmask(hw, bank, b));
        }
        Op::Sel { p, .. } => o.pb = Some(pmask(hw, bank, p)),
        Op::Vote { kind, p, .. } => {
            o.vote = bit(match kind {
                VoteKind::Any => VOTE_ANY,
                VoteKind::All => VOTE_ALL,
            } as usize);
            o.pb = Some(pmask(hw, bank, p));
        }
        Op::Ballot { p, .. } => {
            o.vote = bit(VOTE_BALLOT as usize);
            o.pb = Some(pmask(hw, bank, p));
        }
        Op::BraCons { kind, p, .. } => {
            o.cons = bit(pos(&Consensus::ALL, &kind));
            o.pb = Some(pmask(hw, bank, p));
        }
        Op::S2R { sreg, .. } => o.sreg = bit(sreg.code() as usize),
        Op::LdParam { index, .. } => o.param = Some(index as u64),
        _ => {}
    }
    Some(o)
}

// ---- the block under test ----

struct Dut<const L: usize, const PB: usize, const AW: usize> {
    hw: HwParams,
    d: Decode<L, PB, AW>,
}

impl<const L: usize, const PB: usize, const AW: usize> Dut<L, PB, AW> {
    fn new(hw: HwParams) -> Self {
        let mut d = Decode::<L, PB, AW>::new(&hw);
        d.connect_all();
        Dut { hw, d }
    }

    /// One D cycle: inputs, then the clock edge.
    fn step(&mut self, word: u32, warp: usize, active: u64, bank: u64) {
        let d = &mut self.d;
        d.word.next = (word as u64).into();
        d.warp.next = (warp as u64).into();
        d.active.next = active.into();
        d.bank.next = bank.into();
        d.clock.next = Clock { clk: false };
        settle(d);
        d.clock.next = Clock { clk: true };
        settle(d);
    }

    /// Checks one word; returns whether it was valid.
    fn check(&mut self, word: u32, r: &mut Rng) -> bool {
        let warp = r.below(self.hw.warps as u64) as usize;
        let lanes = (1u64 << L) - 1;
        let active = r.next() & lanes;
        let bank = if PB == 64 {
            r.next()
        } else {
            r.next() & ((1u64 << PB) - 1)
        };
        self.step(word, warp, active, bank);
        let d = &self.d;
        let e = reference(&self.hw, word, warp, active, bank);
        let ctx = format!(
            "word {word:#010x} ({:?}), warp {warp}, active {active:#x}, bank {bank:#x}",
            concord_isa::decode(word)
        );
        assert_eq!(d.invalid.val(), e.is_none(), "invalid flag of {ctx}");
        let Some(e) = e else {
            assert_eq!(d.cls.val().index(), 0, "class of invalid {ctx}");
            return false;
        };
        let u = |x: u64| x;
        let got = Out {
            invalid: d.invalid.val(),
            cls: u(d.cls.val().index() as u64),
            movhi: d.movhi.val(),
            imm_b: d.imm_b.val(),
            alu: d.alu.val().index() as u64,
            mul: d.mul.val().index() as u64,
            pop: d.pop.val().index() as u64,
            atom: d.atom.val().index() as u64,
            vote: d.vote.val().index() as u64,
            cons: d.cons.val().index() as u64,
            sreg: d.sreg.val().index() as u64,
            shared: d.shared.val(),
            msize: d.msize.val().index() as u64,
            msigned: d.msigned.val(),
            imm: d.imm.val().index() as u64,
            target: d.target.val().index() as u64,
            param: e.param.map(|_| d.param.val().index() as u64),
            rd: e.rd.map(|_| d.rd.val().index() as u64),
            wr_rd: d.wr_rd.val(),
            pd: e.pd.map(|_| d.pd.val().index() as u64),
            wr_pd: d.wr_pd.val(),
            ra: d.ra.val().index() as u64,
            rb: d.rb.val().index() as u64,
            exec: d.exec.val().index() as u64,
            pa: e.pa.map(|_| d.pa.val().index() as u64),
            pb: e.pb.map(|_| d.pb.val().index() as u64),
        };
        assert_eq!(got, e, "{ctx}");
        true
    }
}

fn hw_of(c: CoreConfig) -> HwParams {
    HwParams::new(&c).unwrap()
}

fn small() -> HwParams {
    hw_of(CoreConfig {
        lanes: 4,
        warps: 2,
        registers: 16,
        predicates: 4,
        ..CoreConfig::default()
    })
}

/// (a) every instruction kind, random operands and guards.
fn encoded<const L: usize, const PB: usize, const AW: usize>(hw: HwParams, seed: u64, per: u64) {
    let mut dut = Dut::<L, PB, AW>::new(hw);
    let mut r = Rng(seed);
    for k in 0..KINDS {
        for _ in 0..per {
            let instr = Instr::guarded(psrc(&mut r), op_of_kind(&mut r, k));
            let word = encode(&instr).unwrap();
            assert_eq!(concord_isa::decode(word), Ok(instr));
            assert!(dut.check(word, &mut r), "{instr:?} is valid");
        }
    }
}

/// (b) random words, every opcode value with random operands, and
/// one-bit mutations of valid words. Returns (valid, invalid) counts.
fn words<const L: usize, const PB: usize, const AW: usize>(
    hw: HwParams,
    seed: u64,
    n: u64,
) -> (u64, u64) {
    let mut dut = Dut::<L, PB, AW>::new(hw);
    let mut r = Rng(seed);
    let opcode = concord_isa::encoding::field::OPCODE;
    let (mut ok, mut bad) = (0, 0);
    let mut count = |v: bool| {
        if v {
            ok += 1
        } else {
            bad += 1
        }
    };
    for _ in 0..n {
        count(dut.check(r.word(), &mut r));
        // A random opcode value with sparse operand bits (valid often).
        let op = r.below(1 << opcode.1) as u32;
        let sparse = r.word() & r.word() & r.word();
        let w = (sparse & !(((1 << opcode.1) - 1) << opcode.0)) | op << opcode.0;
        count(dut.check(w, &mut r));
        // A valid word with one bit flipped.
        let k = r.below(KINDS);
        let instr = Instr::guarded(psrc(&mut r), op_of_kind(&mut r, k));
        let w = encode(&instr).unwrap() ^ (1 << r.below(32));
        count(dut.check(w, &mut r));
    }
    (ok, bad)
}

#[test]
fn every_kind_encoded_default_core() {
    encoded::<8, 56, 8>(hw_of(CoreConfig::default()), 1, 150);
}

#[test]
fn every_kind_encoded_small_core() {
    encoded::<4, 12, 5>(small(), 2, 60);
}

#[test]
fn random_words_default_core() {
    let (ok, bad) = words::<8, 56, 8>(hw_of(CoreConfig::default()), 3, 3000);
    eprintln!("default core: {ok} valid, {bad} invalid words");
    assert!(ok > 1500 && bad > 1500, "{ok} valid, {bad} invalid");
}

#[test]
fn random_words_small_core() {
    let (ok, bad) = words::<4, 12, 5>(small(), 4, 1000);
    assert!(ok > 500 && bad > 500, "{ok} valid, {bad} invalid");
}

/// Every opcode value with all-zero and all-one operand bits, and every
/// guard.
#[test]
fn every_opcode_value_and_guard() {
    let mut dut = Dut::<8, 56, 8>::new(hw_of(CoreConfig::default()));
    let mut r = Rng(5);
    let f = concord_isa::encoding::field::OPCODE;
    for op in 0..1u32 << f.1 {
        for g in 0..16u32 {
            let head = g << 28 | op << f.0;
            dut.check(head, &mut r);
            dut.check(head | ((1 << f.0) - 1), &mut r);
        }
    }
}

// ---- Verilog ----

fn lint(v: &str, top: &str, tag: &str) {
    common::assert_module_names(v, top);
    common::verilator_lint(v, &format!("v2-decode-{tag}"), &format!("{top}.v"), tag);
}

#[test]
fn verilog_lint_of_the_decoder() {
    let top = "concord_v2_decode";
    let mut d = Decode::<8, 56, 8>::new(&hw_of(CoreConfig::default()));
    d.connect_all();
    lint(&named_verilog(&d, top), top, "default");
    let mut d = Decode::<4, 12, 5>::new(&small());
    d.connect_all();
    lint(&named_verilog(&d, top), top, "small");
}
