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
    };
    semantics::alu(op, a, b)
}

#[test]
fn mul_matches_the_isa_semantics_three_edges_later() {
    let mut m = Mul::default();
    m.connect_all();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    // One new operation every cycle; (func, expected) per cycle.
    let mut expect: Vec<(Option<MulFunc>, u32, u32, u32)> = Vec::new();
    let mut checked = 0;
    let n = 3000;
    for cycle in 0..n + 3 {
        if cycle < n {
            let (a, b) = if cycle < 16 * 16 * 3 {
                // every pair of corners with every function
                let k = cycle / 3;
                (CORNERS[k / 16], CORNERS[k % 16])
            } else {
                (rng.operand(), rng.operand())
            };
            let f = match cycle % 3 {
                _ if cycle % 97 == 5 => None,
                0 => Some(MulFunc::Lo),
                1 => Some(MulFunc::HiS),
                _ => Some(MulFunc::HiU),
            };
            m.a.next = (a as u64).into();
            m.b.next = (b as u64).into();
            m.func.next = (f.map(|f| f.onehot()).unwrap_or(0) as u64).into();
            let e = f.map(|f| mul_golden(f, a, b)).unwrap_or(0);
            expect.push((f, a, b, e));
        }
        settle(&mut m);
        if cycle >= 3 {
            let (f, a, b, e) = expect[cycle - 3];
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
