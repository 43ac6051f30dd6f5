//! Core v2 lane blocks (`concord_hdl::v2`) against `concord_isa::semantics`,
//! in rust-hdl's simulator, and `verilator --lint-only -Wall` on each
//! block's generated Verilog.

mod common;

use std::process::Command;
use std::time::Duration;

use concord_hdl::v2::alu::{Alu, AluFunc, FUNCS};
use concord_hdl::v2::lane::LaneDp;
use concord_hdl::v2::mul::{Mul, MulFunc, MUL_FUNCS};
use concord_hdl::v2::regfile::RegFile;
use concord_isa::semantics;
use rust_hdl_core::prelude::*;

fn lint<B: Block>(block: &B, tag: &str) {
    let v = concord_hdl::v2::verilog(block);
    if !common::have("verilator") {
        eprintln!("verilator not found: lint of {tag} skipped");
        return;
    }
    let dir = common::scratch(&format!("v2-lint-{tag}"));
    std::fs::write(dir.join("top.v"), v).unwrap();
    let (ok, log, _) = common::run_bounded(
        Command::new("verilator")
            .current_dir(&dir)
            .args(["--lint-only", "-Wall", "top.v"]),
        Duration::from_secs(120),
    );
    assert!(ok && log.trim().is_empty(), "lint of {tag}:\n{log}");
}

#[test]
fn lint_alu() {
    let mut b = Alu::default();
    b.connect_all();
    lint(&b, "alu");
}

#[test]
fn lint_mul() {
    let mut b = Mul::default();
    b.connect_all();
    lint(&b, "mul");
}

#[test]
fn lint_regfile() {
    let mut b = RegFile::<8>::new(256);
    b.connect_all();
    lint(&b, "regfile");
}

#[test]
fn lint_lane() {
    let mut b = LaneDp::<8>::new(256);
    b.connect_all();
    lint(&b, "lane");
}

// ---- simulation helpers ----

/// A xorshift generator (deterministic, no dependency).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn u32(&mut self) -> u32 {
        self.next() as u32
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// A corner value half of the time, else a random word.
    fn operand(&mut self) -> u32 {
        if self.next() & 1 == 0 {
            CORNERS[self.below(CORNERS.len())]
        } else {
            self.u32()
        }
    }
}

const CORNERS: [u32; 16] = [
    0,
    1,
    2,
    31,
    32,
    33,
    0x7fff_ffff,
    0x8000_0000,
    0x8000_0001,
    0xffff_ffff,
    0xffff_fffe,
    0x0000_ffff,
    0xffff_0000,
    0x0001_0000,
    0x0000_8000,
    0x1234_5678,
];

/// Evaluates combinational logic until nothing changes.
fn settle<B: Block>(b: &mut B) {
    for _ in 0..200 {
        b.update_all();
        if !b.has_changed() {
            return;
        }
    }
    panic!("the block does not settle");
}

/// One clock edge (rising, then falling), settled.
macro_rules! tick {
    ($b:expr) => {
        $b.clock.next = true.into();
        settle(&mut $b);
        $b.clock.next = false.into();
        settle(&mut $b);
    };
}

/// The golden of one ALU function: (result word, predicate).
fn alu_golden(f: AluFunc, a: u32, b: u32, imm: u32) -> (u32, bool) {
    match f {
        AluFunc::Alu(op) => (semantics::alu(op, a, b), false),
        AluFunc::SetP(c) => (0, semantics::compare(c, a, b)),
        AluFunc::Addr => (a.wrapping_add(imm), false),
    }
}

fn alu_eval(alu: &mut Alu, func: u32, a: u32, b: u32, imm: u32) -> (u32, bool) {
    alu.a.next = (a as u64).into();
    alu.b.next = (b as u64).into();
    alu.imm.next = (imm as u64).into();
    alu.func.next = (func as u64).into();
    settle(alu);
    (alu.y.val().to_u32(), alu.pred.val())
}

#[test]
fn alu_matches_the_isa_semantics() {
    let mut alu = Alu::default();
    alu.connect_all();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut checked = 0;
    for f in FUNCS {
        // Every pair of corner values, then random and mixed operands.
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for a in CORNERS {
            for b in CORNERS {
                pairs.push((a, b));
            }
        }
        for _ in 0..300 {
            pairs.push((rng.operand(), rng.operand()));
        }
        for (a, b) in pairs {
            let imm = rng.operand();
            let got = alu_eval(&mut alu, f.onehot(), a, b, imm);
            assert_eq!(
                got,
                alu_golden(f, a, b, imm),
                "{f:?} a={a:#x} b={b:#x} imm={imm:#x}"
            );
            checked += 1;
        }
    }
    // No function selected: 0, false.
    for _ in 0..50 {
        let (a, b, imm) = (rng.u32(), rng.u32(), rng.u32());
        assert_eq!(alu_eval(&mut alu, 0, a, b, imm), (0, false));
    }
    assert!(checked > 20 * FUNCS.len() * 10);
}

#[test]
fn alu_functions_of_isa_ops() {
    use concord_isa::instr::AluOp;
    for op in AluOp::ALL {
        match (AluFunc::of_alu(op), MulFunc::of_alu(op)) {
            (Some(f), None) => assert_eq!(f, AluFunc::Alu(op)),
            (None, Some(m)) => assert!(MUL_FUNCS.contains(&m)),
            other => panic!("{op:?}: {other:?}"),
        }
    }
}

fn mul_golden(f: MulFunc, a: u32, b: u32) -> u32 {
    use concord_isa::instr::AluOp;
    let op = match f {
        MulFunc::Lo => AluOp::Mul,
        MulFunc::HiS => AluOp::MulHi,
        MulFunc::HiU => AluOp::MulHiU,
        MulFunc::Shl => AluOp::Shl,
        MulFunc::Shr => AluOp::Shr,
        MulFunc::Sra => AluOp::Sra,
    };
    semantics::alu(op, a, b)
}

#[test]
fn mul_matches_the_isa_semantics_three_edges_later() {
    let mut m = Mul::default();
    m.connect_all();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    // One new operation every cycle: every pair of corners with every
    // function, every shift amount 0..64 for a few values with every shift,
    // then random operands; (func, a, b, expected) per cycle.
    let mut ops: Vec<(Option<MulFunc>, u32, u32)> = Vec::new();
    for a in CORNERS {
        for b in CORNERS {
            for f in MUL_FUNCS {
                ops.push((Some(f), a, b));
            }
        }
    }
    for a in [0x8000_0000u32, 0xffff_ffff, 0x7fff_ffff, 0x9234_5679, 1] {
        for b in 0..64u32 {
            for f in [MulFunc::Shl, MulFunc::Shr, MulFunc::Sra] {
                ops.push((Some(f), a, b));
            }
        }
    }
    for k in 0..3000 {
        let f = if k % 97 == 5 {
            None
        } else {
            Some(MUL_FUNCS[rng.below(MUL_FUNCS.len())])
        };
        ops.push((f, rng.operand(), rng.operand()));
    }
    let n = ops.len();
    let mut checked = 0;
    for cycle in 0..n + 3 {
        if let Some(&(f, a, b)) = ops.get(cycle) {
            m.a.next = (a as u64).into();
            m.b.next = (b as u64).into();
            m.func.next = (f.map(|f| f.onehot()).unwrap_or(0) as u64).into();
        }
        settle(&mut m);
        if cycle >= 3 {
            let (f, a, b) = ops[cycle - 3];
            let e = f.map(|f| mul_golden(f, a, b)).unwrap_or(0);
            assert_eq!(m.y.val().to_u32(), e, "{f:?} a={a:#x} b={b:#x}");
            checked += 1;
        }
        tick!(m);
    }
    assert_eq!(checked, n);
}

#[test]
fn regfile_copies_read_what_was_written() {
    let words = 256;
    let mut rf = RegFile::<8>::new(words);
    rf.connect_all();
    let mut model = vec![0u32; words];
    let mut rng = Rng(0xdead_beef_1234_5678);
    let mut checked = 0;
    for _ in 0..4000 {
        let (ra, rb, wa) = (rng.below(words), rng.below(words), rng.below(words));
        let we = rng.below(3) != 0;
        let wd = rng.operand();
        rf.ra.next = (ra as u64).into();
        rf.rb.next = (rb as u64).into();
        rf.we.next = we;
        rf.wa.next = (wa as u64).into();
        rf.wd.next = (wd as u64).into();
        settle(&mut rf);
        tick!(rf);
        // The design never reads a word in the cycle it is written (§4.2):
        // such reads are not checked.
        if !(we && wa == ra) {
            assert_eq!(rf.da.val().to_u32(), model[ra], "copy A, word {ra}");
            checked += 1;
        }
        if !(we && wa == rb) {
            assert_eq!(rf.db.val().to_u32(), model[rb], "copy B, word {rb}");
            checked += 1;
        }
        if we {
            model[wa] = wd;
        }
    }
    assert!(checked > 7000);
}

/// One instruction of the lane test: sources, destination, function.
#[derive(Clone, Copy, Debug)]
enum LaneOp {
    /// `rd = alt_a + 0` (a special register or parameter word).
    Const { rd: usize, v: u32 },
    /// `rd = rs1 op (rs2 or imm)`, an ALU or multiplier operation.
    Op {
        op: concord_isa::instr::AluOp,
        rd: usize,
        rs1: usize,
        src2: Src2,
    },
    /// `setp`: no register write; the predicate at A.
    SetP {
        cmp: concord_isa::instr::Cmp,
        rs1: usize,
        rs2: usize,
    },
    /// Address `rs1 + imm`: no register write; the address at A.
    Addr { rs1: usize, imm: u32 },
}

#[derive(Clone, Copy, Debug)]
enum Src2 {
    Reg(usize),
    Imm(u32),
}

#[test]
fn lane_data_path_runs_a_random_program_like_the_isa() {
    use concord_isa::instr::{AluOp, Cmp};
    const WORDS: usize = 256;
    let mut lane = LaneDp::<8>::new(WORDS);
    lane.connect_all();
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    // Registers written by the last 6 operations are not read: a write at
    // the end of W lands at least one edge before the next read's address
    // edge (D) only 6 items later (the hazard rule of §4 in miniature).
    let mut recent: Vec<usize> = Vec::new();
    let mut written: Vec<usize> = Vec::new();
    let mut ops: Vec<LaneOp> = Vec::new();
    let pick_src = |rng: &mut Rng, written: &[usize], recent: &[usize]| loop {
        let r = written[rng.below(written.len())];
        if !recent.contains(&r) {
            return r;
        }
    };
    for k in 0..2500 {
        let op = if k < 24 || rng.below(8) == 0 {
            LaneOp::Const {
                rd: rng.below(WORDS),
                v: rng.operand(),
            }
        } else {
            let rs1 = pick_src(&mut rng, &written, &recent);
            match rng.below(10) {
                0 => LaneOp::SetP {
                    cmp: Cmp::ALL[rng.below(Cmp::ALL.len())],
                    rs1,
                    rs2: pick_src(&mut rng, &written, &recent),
                },
                1 => LaneOp::Addr {
                    rs1,
                    imm: rng.operand(),
                },
                _ => {
                    let op = AluOp::ALL[rng.below(AluOp::ALL.len())];
                    let src2 = if op.has_imm_form() && rng.below(3) == 0 {
                        let r = op.imm_range();
                        let span = (*r.end() - *r.start() + 1) as usize;
                        Src2::Imm((*r.start() + rng.below(span) as i32) as u32)
                    } else {
                        Src2::Reg(pick_src(&mut rng, &written, &recent))
                    };
                    LaneOp::Op {
                        op,
                        rd: rng.below(WORDS),
                        rs1,
                        src2,
                    }
                }
            }
        };
        let rd = match op {
            LaneOp::Const { rd, .. } | LaneOp::Op { rd, .. } => Some(rd),
            _ => None,
        };
        recent.push(rd.unwrap_or(usize::MAX));
        if recent.len() > 6 {
            recent.remove(0);
        }
        if let Some(rd) = rd {
            if !written.contains(&rd) {
                written.push(rd);
            }
        }
        ops.push(op);
    }

    // The golden: the ISA semantics in program order. Per op: the register
    // write (word, value) at W, and (y, pred) at A for setp and addresses.
    let mut regs = vec![0u32; WORDS];
    let mut at_w: Vec<Option<(usize, u32)>> = Vec::new();
    let mut at_a: Vec<Option<(u32, bool)>> = Vec::new();
    for op in &ops {
        match *op {
            LaneOp::Const { rd, v } => {
                regs[rd] = v;
                at_w.push(Some((rd, v)));
                at_a.push(None);
            }
            LaneOp::Op { op, rd, rs1, src2 } => {
                let b = match src2 {
                    Src2::Reg(r) => regs[r],
                    Src2::Imm(v) => v,
                };
                let v = semantics::alu(op, regs[rs1], b);
                regs[rd] = v;
                at_w.push(Some((rd, v)));
                at_a.push(None);
            }
            LaneOp::SetP { cmp, rs1, rs2 } => {
                at_w.push(None);
                at_a.push(Some((0, semantics::compare(cmp, regs[rs1], regs[rs2]))));
            }
            LaneOp::Addr { rs1, imm } => {
                at_w.push(None);
                at_a.push(Some((regs[rs1].wrapping_add(imm), false)));
            }
        }
    }

    // Op k: D in cycle k, R in k+1, A outputs in k+3, W outputs in k+5.
    let n = ops.len();
    let (mut checked_w, mut checked_a) = (0, 0);
    for cycle in 0..n + 6 {
        if let Some(op) = ops.get(cycle) {
            let (ra, rb) = match *op {
                LaneOp::Op { rs1, src2, .. } => (
                    rs1,
                    match src2 {
                        Src2::Reg(r) => r,
                        Src2::Imm(_) => 0,
                    },
                ),
                LaneOp::SetP { rs1, rs2, .. } => (rs1, rs2),
                LaneOp::Addr { rs1, .. } => (rs1, 0),
                LaneOp::Const { .. } => (0, 0),
            };
            lane.ra.next = (ra as u64).into();
            lane.rb.next = (rb as u64).into();
        }
        if cycle >= 1 {
            if let Some(op) = ops.get(cycle - 1) {
                // R-stage controls, as the decoder would make them.
                let (sel_a, alt, sel_b, imm, func, mfunc, wen, wa) = match *op {
                    LaneOp::Const { rd, v } => {
                        (2, v, 2, 0, AluFunc::Alu(AluOp::Add).onehot(), 0, true, rd)
                    }
                    LaneOp::Op { op, rd, src2, .. } => {
                        let (sel_b, imm) = match src2 {
                            Src2::Reg(_) => (1, 0),
                            Src2::Imm(v) => (2, v),
                        };
                        let func = AluFunc::of_alu(op).map(|f| f.onehot()).unwrap_or(0);
                        let mfunc = MulFunc::of_alu(op).map(|f| f.onehot()).unwrap_or(0);
                        (1, 0, sel_b, imm, func, mfunc, true, rd)
                    }
                    LaneOp::SetP { cmp, .. } => {
                        (1, 0, 1, 0, AluFunc::SetP(cmp).onehot(), 0, false, 0)
                    }
                    LaneOp::Addr { imm, .. } => (1, 0, 1, imm, AluFunc::Addr.onehot(), 0, false, 0),
                };
                lane.sel_a.next = (sel_a as u64).into();
                lane.alt_a.next = (alt as u64).into();
                lane.sel_b.next = (sel_b as u64).into();
                lane.imm.next = (imm as u64).into();
                lane.func.next = (func as u64).into();
                lane.mfunc.next = (mfunc as u64).into();
                lane.wen.next = wen;
                lane.wa.next = (wa as u64).into();
            } else {
                lane.wen.next = false;
                lane.func.next = 0u64.into();
                lane.mfunc.next = 0u64.into();
            }
        }
        settle(&mut lane);
        if cycle >= 3 && cycle - 3 < n {
            if let Some((y, pred)) = at_a[cycle - 3] {
                let k = cycle - 3;
                assert_eq!(
                    (lane.y_a.val().to_u32(), lane.pred_a.val()),
                    (y, pred),
                    "op {k}: {:?}",
                    ops[k]
                );
                checked_a += 1;
            }
        }
        if cycle >= 5 && cycle - 5 < n {
            let k = cycle - 5;
            match at_w[k] {
                Some((rd, v)) => {
                    assert!(lane.w_en.val(), "op {k}: {:?} writes", ops[k]);
                    assert_eq!(lane.w_addr.val().index(), rd, "op {k}");
                    assert_eq!(lane.w_data.val().to_u32(), v, "op {k}: {:?}", ops[k]);
                    checked_w += 1;
                }
                None => assert!(!lane.w_en.val(), "op {k}: {:?} writes nothing", ops[k]),
            }
        }
        tick!(lane);
    }
    assert!(
        checked_w > 1500 && checked_a > 300,
        "{checked_w} {checked_a}"
    );
}
