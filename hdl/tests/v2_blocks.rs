//! Core v2 lane blocks (`concord_hdl::v2`) against `concord_isa::semantics`,
//! in rust-hdl's simulator, and `verilator --lint-only -Wall` on each
//! block's generated Verilog.

mod common;

use concord_hdl::v2::alu::{Alu, AluFunc, FUNCS};
use concord_hdl::v2::lane::LaneDp;
use concord_hdl::v2::mul::{Mul, MulFunc, MUL_FUNCS};
use concord_hdl::v2::regfile::RegFile;
use concord_isa::semantics;
use rust_hdl_core::prelude::*;

use common::Rng;

fn lint<B: Block>(block: &B, tag: &str) {
    let v = concord_hdl::v2::verilog(block);
    common::verilator_lint(&v, &format!("v2-lint-{tag}"), "top.v", tag);
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
    // 16 warps x 32 registers: 9-bit addresses, one 512x36 block RAM per copy.
    let mut b = LaneDp::<9>::new(512);
    b.connect_all();
    lint(&b, "lane-512");
}

// ---- simulation helpers ----

/// The test's operands (on the shared xorshift generator).
trait Operands {
    fn operand(&mut self) -> u32;
}

impl Operands for Rng {
    /// A corner value half of the time, else a random word.
    fn operand(&mut self) -> u32 {
        if self.next() & 1 == 0 {
            CORNERS[self.index(CORNERS.len())]
        } else {
            self.low32()
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
    assert!(common::settled(b, 200), "the block does not settle");
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
        let (a, b, imm) = (rng.low32(), rng.low32(), rng.low32());
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
            Some(MUL_FUNCS[rng.index(MUL_FUNCS.len())])
        };
        ops.push((f, rng.operand(), rng.operand()));
    }
    let n = ops.len();
    // `pass` (the lane's ALU result) at A, one cycle after the operation's
    // X: the word of an operation without a multiplier function.
    let passes: Vec<u32> = (0..n + 3).map(|_| rng.operand()).collect();
    let mut checked = 0;
    let mut passed = 0;
    for cycle in 0..n + 3 {
        if let Some(&(f, a, b)) = ops.get(cycle) {
            m.a.next = (a as u64).into();
            m.b.next = (b as u64).into();
            m.func.next = (f.map(|f| f.onehot()).unwrap_or(0) as u64).into();
        }
        m.pass.next = (passes[cycle] as u64).into();
        settle(&mut m);
        if cycle >= 3 {
            let (f, a, b) = ops[cycle - 3];
            let e = match f {
                Some(f) => mul_golden(f, a, b),
                None => {
                    passed += 1;
                    passes[cycle - 2]
                }
            };
            assert_eq!(m.y.val().to_u32(), e, "{f:?} a={a:#x} b={b:#x}");
            checked += 1;
        }
        tick!(m);
    }
    assert_eq!(checked, n);
    assert!(passed > 20, "{passed}");
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
        let (ra, rb, wa) = (rng.index(words), rng.index(words), rng.index(words));
        let we = rng.index(3) != 0;
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

/// The lane's inputs in one cycle (D-stage addresses of one op, R-stage
/// controls of the op before it).
#[derive(Clone, Copy, Debug, Default)]
struct LaneIn {
    ra: usize,
    rb: usize,
    sel_a: u32,
    alt: u32,
    sel_b: u32,
    imm: u32,
    func: u32,
    mfunc: u32,
    wen: bool,
    wa: usize,
}

/// What the lane must show in one cycle: at A (`y_a`, `pred_a`) for setp
/// and addresses, at W the register write (`None`: no write).
#[derive(Clone, Copy, Debug, Default)]
struct LaneOut {
    a: Option<(u32, bool)>,
    w: Option<Option<(usize, u32)>>,
    /// The ops at A and at W.
    op_a: usize,
    op_w: usize,
}

/// A random program for the lane data path (register file of `WORDS`
/// words) and its golden from `concord_isa::semantics`, cycle by cycle:
/// op k has D in cycle k, R in k+1, its A outputs in k+3, W in k+5.
fn lane_program(n: usize) -> (Vec<LaneOp>, Vec<LaneIn>, Vec<LaneOut>) {
    use concord_isa::instr::{AluOp, Cmp};
    const WORDS: usize = 256;
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    // Registers written by the last 6 operations are not read: a write at
    // the end of W lands at least one edge before the next read's address
    // edge (D) only 6 items later (the hazard rule of §4 in miniature).
    let mut recent: Vec<usize> = Vec::new();
    let mut written: Vec<usize> = Vec::new();
    let mut ops: Vec<LaneOp> = Vec::new();
    let pick_src = |rng: &mut Rng, written: &[usize], recent: &[usize]| loop {
        let r = written[rng.index(written.len())];
        if !recent.contains(&r) {
            return r;
        }
    };
    for k in 0..n {
        let op = if k < 24 || rng.index(8) == 0 {
            LaneOp::Const {
                rd: rng.index(WORDS),
                v: rng.operand(),
            }
        } else {
            let rs1 = pick_src(&mut rng, &written, &recent);
            match rng.index(10) {
                0 => LaneOp::SetP {
                    cmp: Cmp::ALL[rng.index(Cmp::ALL.len())],
                    rs1,
                    rs2: pick_src(&mut rng, &written, &recent),
                },
                1 => LaneOp::Addr {
                    rs1,
                    imm: rng.operand(),
                },
                _ => {
                    let op = AluOp::ALL[rng.index(AluOp::ALL.len())];
                    let src2 = if op.has_imm_form() && rng.index(3) == 0 {
                        let r = op.imm_range();
                        let span = (*r.end() - *r.start() + 1) as usize;
                        Src2::Imm((*r.start() + rng.index(span) as i32) as u32)
                    } else {
                        Src2::Reg(pick_src(&mut rng, &written, &recent))
                    };
                    LaneOp::Op {
                        op,
                        rd: rng.index(WORDS),
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

    let mut ins = vec![LaneIn::default(); n + 6];
    let mut outs = vec![LaneOut::default(); n + 6];
    for (k, op) in ops.iter().enumerate() {
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
        ins[k].ra = ra;
        ins[k].rb = rb;
        // R-stage controls, as the decoder would make them.
        let r = &mut ins[k + 1];
        match *op {
            LaneOp::Const { rd, v } => {
                (r.sel_a, r.alt, r.sel_b, r.imm) = (2, v, 2, 0);
                r.func = AluFunc::Alu(AluOp::Add).onehot();
                (r.wen, r.wa) = (true, rd);
            }
            LaneOp::Op { op, rd, src2, .. } => {
                (r.sel_a, r.sel_b, r.imm) = match src2 {
                    Src2::Reg(_) => (1, 1, 0),
                    Src2::Imm(v) => (1, 2, v),
                };
                r.func = AluFunc::of_alu(op).map(|f| f.onehot()).unwrap_or(0);
                r.mfunc = MulFunc::of_alu(op).map(|f| f.onehot() as u32).unwrap_or(0);
                (r.wen, r.wa) = (true, rd);
            }
            LaneOp::SetP { cmp, .. } => {
                (r.sel_a, r.sel_b) = (1, 1);
                r.func = AluFunc::SetP(cmp).onehot();
            }
            LaneOp::Addr { imm, .. } => {
                (r.sel_a, r.sel_b, r.imm) = (1, 1, imm);
                r.func = AluFunc::Addr.onehot();
            }
        }
        outs[k + 3].a = at_a[k];
        outs[k + 3].op_a = k;
        outs[k + 5].w = Some(at_w[k]);
        outs[k + 5].op_w = k;
    }
    (ops, ins, outs)
}

/// Checks one cycle's outputs (`y_a`, `pred_a`, `w_en`, `w_addr`,
/// `w_data`); returns how many expectations were checked.
fn check_lane(
    ops: &[LaneOp],
    want: &LaneOut,
    got: (u32, bool, bool, usize, u32),
    sim: &str,
) -> usize {
    let mut n = 0;
    let k = want.op_a;
    if let Some((y, pred)) = want.a {
        assert_eq!(
            (got.0, got.1),
            (y, pred),
            "{sim}: op {k}: {:?} at A",
            ops[k]
        );
        n += 1;
    }
    let k = want.op_w;
    match want.w {
        Some(Some((rd, v))) => {
            assert!(got.2, "{sim}: op {k}: {:?} writes", ops[k]);
            assert_eq!((got.3, got.4), (rd, v), "{sim}: op {k}: {:?} at W", ops[k]);
            n += 1;
        }
        Some(None) => assert!(!got.2, "{sim}: op {k}: {:?} writes nothing", ops[k]),
        None => {}
    }
    n
}

#[test]
fn lane_data_path_runs_a_random_program_like_the_isa() {
    let (ops, ins, outs) = lane_program(2500);
    let mut lane = LaneDp::<8>::new(256);
    lane.connect_all();
    let mut checked = 0;
    for (i, o) in ins.iter().zip(&outs) {
        lane.ra.next = (i.ra as u64).into();
        lane.rb.next = (i.rb as u64).into();
        lane.sel_a.next = (i.sel_a as u64).into();
        lane.alt_a.next = (i.alt as u64).into();
        lane.sel_b.next = (i.sel_b as u64).into();
        lane.imm.next = (i.imm as u64).into();
        lane.func.next = (i.func as u64).into();
        lane.mfunc.next = (i.mfunc as u64).into();
        lane.wen.next = i.wen;
        lane.wa.next = (i.wa as u64).into();
        settle(&mut lane);
        let got = (
            lane.y_a.val().to_u32(),
            lane.pred_a.val(),
            lane.w_en.val(),
            lane.w_addr.val().index(),
            lane.w_data.val().to_u32(),
        );
        checked += check_lane(&ops, o, got, "rust-hdl");
        tick!(lane);
    }
    assert!(checked > 2000, "{checked}");
}

/// The generated Verilog itself (not rust-hdl's model of it, nor the Rust
/// models of the custom-Verilog leaves: the DSP products and the block
/// RAMs) under Verilator, on the same program and goldens as the test
/// above. The testbench reads one line of inputs per cycle and writes the
/// outputs of the cycle; the comparison is here.
#[test]
fn lane_data_path_verilog_under_verilator() {
    let (ops, ins, outs) = lane_program(1500);
    let dir = common::scratch("v2-lane-verilator");
    std::fs::write(
        dir.join("lane.v"),
        concord_hdl::v2::standalone_verilog(concord_hdl::v2::Standalone::Lane { words: 256 }),
    )
    .unwrap();
    let mut text = String::new();
    for i in &ins {
        text.push_str(&format!(
            "{:x} {:x} {:x} {:x} {:x} {:x} {:x} {:x} {:x} {:x}\n",
            i.ra, i.rb, i.sel_a, i.alt, i.sel_b, i.imm, i.func, i.mfunc, i.wen as u8, i.wa
        ));
    }
    std::fs::write(dir.join("in.txt"), text).unwrap();
    // A C++ harness, as tests/sim.rs has: the inputs change between
    // `eval()` calls. (A Verilog testbench under `--timing` saw the lane's
    // combinational logic one clock edge late in Verilator 5.006: its
    // always blocks also assign the derived clocks of the registers.)
    let main = "\
#include \"Vtop.h\"
#include <cstdio>
int main() {
    Vtop* t = new Vtop;
    FILE* fi = fopen(\"in.txt\", \"r\");
    FILE* fo = fopen(\"out.txt\", \"w\");
    unsigned ra, rb, sa, alt, sb, imm, func, mf, wen, wa;
    t->clock = 0;
    t->eval();
    while (fscanf(fi, \"%x %x %x %x %x %x %x %x %x %x\", &ra, &rb, &sa, &alt, &sb, &imm,
                  &func, &mf, &wen, &wa) == 10) {
        t->ra = ra; t->rb = rb; t->sel_a = sa; t->alt_a = alt; t->sel_b = sb;
        t->imm = imm; t->func = func; t->mfunc = mf; t->wen = wen; t->wa = wa;
        t->eval();
        fprintf(fo, \"%x %x %x %x %x\\n\", (unsigned)t->y_a, (unsigned)t->pred_a,
                (unsigned)t->w_en, (unsigned)t->w_addr, (unsigned)t->w_data);
        t->clock = 1;
        t->eval();
        t->clock = 0;
        t->eval();
    }
    fclose(fo);
    delete t;
    return 0;
}
";
    std::fs::write(dir.join("main.cpp"), main).unwrap();
    let out = common::verilator_build_and_run(
        &dir,
        &["-Wno-fatal", "--top-module", "top", "lane.v", "main.cpp"],
        "Vlane",
        "v2-lane",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), ins.len());
    let mut checked = 0;
    for (line, want) in lines.iter().zip(&outs) {
        let f: Vec<u64> = line
            .split_whitespace()
            .map(|x| u64::from_str_radix(x, 16).unwrap())
            .collect();
        let got = (
            f[0] as u32,
            f[1] == 1,
            f[2] == 1,
            f[3] as usize,
            f[4] as u32,
        );
        checked += check_lane(&ops, want, got, "verilator");
    }
    assert!(checked > 1200, "{checked}");
}

/// The lane's paths for the top's data path, by hand (§8, §11, §9.3):
/// `movhi` keeps the register's low half (`sel_a` bit 2), the commit's
/// `drop_a` at A keeps a result out of the register file, and `alt_w` at W
/// replaces the result (the link value of `call`/`callr`, whose operand A
/// is the target register). Items enter R one per cycle; W is four
/// cycles after R.
#[test]
fn lane_low_half_drop_and_link_write() {
    let or = AluFunc::Alu(concord_isa::instr::AluOp::Or).onehot() as u64;
    let mut lane = LaneDp::<8>::new(256);
    lane.connect_all();
    // One item: its cycle at R (`ra` goes in one cycle earlier, at D).
    struct Item {
        r: usize,
        ra: u64,
        sel_a: u64,
        alt: u64,
        sel_b: u64,
        imm: u64,
        func: u64,
        wa: u64,
    }
    let items = [
        // word 5 := 0x12345678 (alt | 0)
        Item {
            r: 0,
            ra: 0,
            sel_a: 2,
            alt: 0x1234_5678,
            sel_b: 0,
            imm: 0,
            func: or,
            wa: 5,
        },
        // word 6 := 0xdead, dropped at A
        Item {
            r: 1,
            ra: 0,
            sel_a: 2,
            alt: 0xdead,
            sel_b: 0,
            imm: 0,
            func: or,
            wa: 6,
        },
        // word 7 := the link 0xcafe0001 at W (operand A is a register)
        Item {
            r: 2,
            ra: 5,
            sel_a: 1,
            alt: 0,
            sel_b: 0,
            imm: 0,
            func: 0,
            wa: 7,
        },
        // movhi: word 8 := 0xabcd << 16 | low half of word 5
        Item {
            r: 6,
            ra: 5,
            sel_a: 4,
            alt: 0,
            sel_b: 2,
            imm: 0xabcd_0000,
            func: or,
            wa: 8,
        },
    ];
    let mut writes = Vec::new();
    let mut x_seen = None;
    for cycle in 0..12 {
        lane.wen.next = false;
        lane.sel_a.next = 0u64.into();
        lane.sel_b.next = 0u64.into();
        lane.func.next = 0u64.into();
        lane.mfunc.next = 0u64.into();
        // Item 1 is at A in cycle 3.
        lane.drop_a.next = cycle == 3;
        // Item 2 is at W in cycle 6; the data path gates the link (0
        // unless selected).
        lane.sel_alt_w.next = cycle == 6;
        lane.alt_w.next = (if cycle == 6 { 0xcafe_0001u64 } else { 0 }).into();
        for it in &items {
            if it.r == cycle + 1 {
                lane.ra.next = it.ra.into();
            }
            if it.r == cycle {
                lane.sel_a.next = it.sel_a.into();
                lane.alt_a.next = it.alt.into();
                lane.sel_b.next = it.sel_b.into();
                lane.imm.next = it.imm.into();
                lane.func.next = it.func.into();
                lane.wen.next = true;
                lane.wa.next = it.wa.into();
            }
        }
        settle(&mut lane);
        if cycle == 7 {
            x_seen = Some((
                lane.a_x.val().to_u32(),
                lane.b_x.val().to_u32(),
                lane.addr_x.val().to_u32(),
            ));
        }
        if lane.w_en.val() {
            writes.push((cycle, lane.w_addr.val().index(), lane.w_data.val().to_u32()));
        }
        tick!(lane);
    }
    assert_eq!(
        writes,
        vec![
            (4, 5, 0x1234_5678),
            (6, 7, 0xcafe_0001),
            (10, 8, 0xabcd_5678)
        ]
    );
    assert_eq!(x_seen, Some((0x5678, 0xabcd_0000, 0xabcd_5678)));
}
