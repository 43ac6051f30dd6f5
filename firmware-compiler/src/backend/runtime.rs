//! The division routine: the machine has no divide instruction.
//!
//! One routine, appended to the kernel image when some function divides,
//! with four entries (`udiv`, `urem`, `sdiv`, `srem`). Calling sequence
//! (emitted by [`super::lower`]), with `sp` the caller's stack pointer:
//!
//! ```text
//!     st.global [sp-4], a        ; dividend
//!     st.global [sp-8], b        ; divisor
//!     st.global [sp-12], r0      ; the caller's r0 (the link register here)
//!     call r0, __sdiv
//!     ld.global rd, [sp-4]       ; result
//!     ld.global r0, [sp-12]      ; unless rd is r0
//! ```
//!
//! The routine saves and restores every register it uses (`r1`..`r4`,
//! `p1`, `p2`) in `[sp-48, sp-12)`, so a division clobbers nothing the
//! allocator can see. It divides the magnitudes by restoring shift-subtract
//! (32 iterations; the carry out of the partial remainder is kept so
//! divisors of 2^31 and above work), then fixes the signs:
//!
//! * quotient: negated when the operands' signs differ (signed); all ones
//!   when the divisor is 0 (both kinds);
//! * remainder: takes the dividend's sign (signed); equal to the dividend
//!   when the divisor is 0 (the loop gives that by itself);
//! * `i32::MIN / -1` = `i32::MIN` and `i32::MIN % -1` = 0 fall out of the
//!   magnitude arithmetic (2^31 / 1, negated, wraps to itself).
//!
//! These are the IR's rules (`BinaryOp` docs). Per-lane control flow inside
//! the routine is uniform (fixed trip count), so it never diverges.

use concord_isa::instr::{
    AluOp, Cmp, Guard, Instr, LoadWidth, Op, Pred, PredOp, PredSrc, Reg, Space, StoreWidth,
};

use super::mir::DivKind;
use super::pcode::{Label, PFunction};

fn r(i: u8) -> Reg {
    Reg::new(i).unwrap_or_else(|| unreachable!("registers r0..r4 exist"))
}

fn p(i: u8) -> Pred {
    Pred::new(i).unwrap_or_else(|| unreachable!("predicates p1, p2 exist"))
}

/// Registers the routine touches (the budget must cover them).
pub const REGS_USED: u32 = 5;

/// The routine's code, for a stack pointer in `sp`.
pub fn division_routine(sp: Reg) -> PFunction {
    let mut f = PFunction {
        name: "__concord_divmod".into(),
        ..PFunction::default()
    };
    let g = |p: Pred| PredSrc::new(p, false);
    let ld = |rd: Reg, off: i32| {
        Instr::new(Op::Load {
            space: Space::Global,
            width: LoadWidth::B32,
            rd,
            base: sp,
            offset: off,
        })
    };
    let st = |src: Reg, off: i32| {
        Instr::new(Op::Store {
            space: Space::Global,
            width: StoreWidth::B32,
            src,
            base: sp,
            offset: off,
        })
    };
    let alui = |op: AluOp, rd: Reg, rs1: Reg, imm: i32| Instr::new(Op::AluImm { op, rd, rs1, imm });
    let setpi =
        |cmp: Cmp, pd: Pred, rs1: Reg, imm: i32| Instr::new(Op::SetPImm { cmp, pd, rs1, imm });
    let pand = |pd: Pred, a: PredSrc, b: PredSrc| {
        Instr::new(Op::PLogic {
            op: PredOp::And,
            pd,
            a,
            b,
        })
    };
    let guarded = |guard: Guard, i: Instr| Instr::guarded(guard, i.op);
    // Two's complement negation of `x` where `pred` holds.
    let negate = |f: &mut PFunction, pred: Pred, x: Reg| {
        f.trusted(guarded(g(pred), alui(AluOp::Xor, x, x, -1)));
        f.trusted(guarded(g(pred), alui(AluOp::Add, x, x, 1)));
    };
    let common = Label::Runtime(0);
    let lp = Label::Runtime(1);
    let (r0, r1, r2, r3, r4) = (r(0), r(1), r(2), r(3), r(4));
    let (p1, p2) = (p(1), p(2));

    // Entries: save r1, put the kind in it (bit 0: remainder, bit 1: signed).
    for kind in DivKind::ALL {
        let label = Label::Div(kind);
        f.label_names.push((label, format!("__{}", kind.name())));
        f.label(label);
        f.trusted(st(r1, -16));
        let code = match kind {
            DivKind::UDiv => 0,
            DivKind::URem => 1,
            DivKind::SDiv => 2,
            DivKind::SRem => 3,
        };
        f.trusted(Instr::new(Op::MovI { rd: r1, imm: code }));
        if kind != DivKind::SRem {
            f.branch(
                Instr::new(Op::BraCons {
                    kind: concord_isa::instr::Consensus::All,
                    p: PredSrc::TRUE,
                    target: 0,
                }),
                common,
                Vec::new(),
                true,
            );
        }
    }
    f.label_names.push((common, "__divmod".into()));
    f.label(common);
    f.trusted(st(r2, -20));
    f.trusted(st(r3, -24));
    f.trusted(st(r4, -28));
    // Save p1, p2 as bits of a word.
    f.trusted(Instr::new(Op::MovI { rd: r2, imm: 0 }));
    f.trusted(guarded(g(p1), alui(AluOp::Or, r2, r2, 1)));
    f.trusted(guarded(g(p2), alui(AluOp::Or, r2, r2, 2)));
    f.trusted(st(r2, -32));
    f.trusted(st(r1, -36));
    f.trusted(ld(r2, -4)); // n
    f.trusted(ld(r3, -8)); // d
                           // Signed: take magnitudes.
    f.trusted(alui(AluOp::And, r4, r1, 2));
    f.trusted(setpi(Cmp::Ne, p1, r4, 0));
    f.trusted(setpi(Cmp::Lt, p2, r2, 0));
    f.trusted(pand(p2, g(p2), g(p1)));
    negate(&mut f, p2, r2);
    f.trusted(setpi(Cmp::Lt, p2, r3, 0));
    f.trusted(pand(p2, g(p2), g(p1)));
    negate(&mut f, p2, r3);
    // Shift-subtract: r2 = quotient (dividend shifted out), r4 = remainder.
    f.trusted(Instr::new(Op::MovI { rd: r4, imm: 0 }));
    f.trusted(Instr::new(Op::MovI { rd: r1, imm: 32 }));
    f.label_names.push((lp, "__divmod_loop".into()));
    f.label(lp);
    f.trusted(setpi(Cmp::Lt, p1, r4, 0)); // carry out of r4 << 1
    f.trusted(alui(AluOp::Shl, r4, r4, 1));
    f.trusted(setpi(Cmp::Lt, p2, r2, 0)); // next dividend bit
    f.trusted(guarded(g(p2), alui(AluOp::Or, r4, r4, 1)));
    f.trusted(alui(AluOp::Shl, r2, r2, 1));
    f.trusted(Instr::new(Op::SetP {
        cmp: Cmp::GeU,
        pd: p2,
        rs1: r4,
        rs2: r3,
    }));
    f.trusted(Instr::new(Op::PLogic {
        op: PredOp::Or,
        pd: p1,
        a: g(p1),
        b: g(p2),
    }));
    f.trusted(Instr::guarded(
        g(p1),
        Op::Alu {
            op: AluOp::Sub,
            rd: r4,
            rs1: r4,
            rs2: r3,
        },
    ));
    f.trusted(guarded(g(p1), alui(AluOp::Or, r2, r2, 1)));
    f.trusted(alui(AluOp::Add, r1, r1, -1));
    f.trusted(setpi(Cmp::Ne, p1, r1, 0));
    f.branch(
        Instr::guarded(g(p1), Op::Bra { target: 0 }),
        lp,
        Vec::new(),
        true,
    );
    // Signs.
    f.trusted(ld(r1, -36));
    f.trusted(alui(AluOp::And, r3, r1, 2));
    f.trusted(setpi(Cmp::Ne, p1, r3, 0)); // signed
    f.trusted(ld(r3, -4));
    f.trusted(setpi(Cmp::Lt, p2, r3, 0));
    f.trusted(pand(p2, g(p2), g(p1)));
    negate(&mut f, p2, r4); // remainder takes the dividend's sign
    f.trusted(st(r4, -40));
    f.trusted(ld(r4, -8));
    f.trusted(Instr::new(Op::Alu {
        op: AluOp::Xor,
        rd: r3,
        rs1: r3,
        rs2: r4,
    }));
    f.trusted(setpi(Cmp::Lt, p2, r3, 0));
    f.trusted(pand(p2, g(p2), g(p1)));
    negate(&mut f, p2, r2); // quotient negative when the signs differ
    f.trusted(setpi(Cmp::Eq, p2, r4, 0));
    f.trusted(guarded(g(p2), Instr::new(Op::MovI { rd: r2, imm: -1 })));
    f.trusted(alui(AluOp::And, r3, r1, 1));
    f.trusted(setpi(Cmp::Ne, p1, r3, 0)); // remainder wanted
    f.trusted(guarded(g(p1), ld(r2, -40)));
    f.trusted(st(r2, -4));
    // Restore.
    f.trusted(ld(r2, -32));
    f.trusted(alui(AluOp::And, r3, r2, 1));
    f.trusted(setpi(Cmp::Ne, p1, r3, 0));
    f.trusted(alui(AluOp::And, r3, r2, 2));
    f.trusted(setpi(Cmp::Ne, p2, r3, 0));
    f.trusted(ld(r1, -16));
    f.trusted(ld(r2, -20));
    f.trusted(ld(r3, -24));
    f.trusted(ld(r4, -28));
    f.trusted(Instr::new(Op::Ret { rs: r0 }));
    f
}
