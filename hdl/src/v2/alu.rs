//! The X-stage lane ALU of Core v2 (`docs/microarchitecture.md` §8).
//!
//! Combinational, from registered operands. One 32-bit adder/subtractor
//! serves `add`, `sub`, address generation `a + imm`, every `setp`
//! comparison and `min`/`max` (signed and unsigned, from the same
//! subtraction); `and`/`or`/`xor` are one truth table over each bit pair;
//! the result is a one-hot AND-OR of the sum, that table, and `a` or `b`
//! for `min`/`max`.
//!
//! **Shifts are not here.** `shl`, `shr` and `sra` are products with a
//! power of two in the lane's multiplier ([`super::mul::Mul`], its DSPs,
//! result at W like `mul`). Measured with Yosys 0.70 (`hdl/README.md`,
//! "Core v2 blocks"): this ALU with a shifter with bit reversal was 562
//! LUT4, without it 233; the multiplier's power-of-two operand costs about
//! 60. No shift result is needed before W (addresses, comparisons and keys
//! use the adder), so no cycle changes. §8 has one shifter with bit
//! reversal in the ALU; this is the cheaper structure with the same timing
//! at the register file.
//!
//! The function select `func` is one-hot over [`FUNCS`] (bit `i` is
//! `FUNCS[i]`): the decoder produces it from the instruction with
//! [`AluFunc::of_alu`], [`AluFunc::SetP`] and [`AluFunc::Addr`]. With
//! `func == 0` the result is 0 and `pred` is false.
//!
//! Comparisons without a carry-out: `d = a - b` (mod 2^32); when `a` and
//! `b` have the same sign bit, `a < b` (signed and unsigned alike) is
//! `d[31]`; otherwise signed `a < b` is `a[31]` and unsigned `a < b` is
//! `b[31]`. `a == b` is `d == 0`.

use concord_isa::instr::{AluOp, Cmp};
use rust_hdl_core::prelude::*;

/// One ALU function: a bit of the one-hot select.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum AluFunc {
    /// An ALU operation other than the multiplier's (`a op b`).
    Alu(AluOp),
    /// `setp`: `pred = a cmp b` (the result word is 0).
    SetP(Cmp),
    /// Address generation: `a + imm`.
    Addr,
}

/// Width of the one-hot function select.
pub const FUNC_BITS: usize = 20;

/// The one-hot encoding: bit `i` of `func` selects `FUNCS[i]`. Every
/// non-multiplier [`AluOp`] and every [`Cmp`] appears once (checked by the
/// unit tests); the positions are literals in [`Alu`]'s `#[hdl_gen]` code
/// (rust-hdl turns a named constant in an expression into a Verilog name),
/// and the `const` assertions below tie them to this table.
pub const FUNCS: [AluFunc; FUNC_BITS] = [
    AluFunc::Alu(AluOp::Add),
    AluFunc::Alu(AluOp::Sub),
    AluFunc::Alu(AluOp::And),
    AluFunc::Alu(AluOp::Or),
    AluFunc::Alu(AluOp::Xor),
    AluFunc::Alu(AluOp::Min),
    AluFunc::Alu(AluOp::Max),
    AluFunc::Alu(AluOp::MinU),
    AluFunc::Alu(AluOp::MaxU),
    AluFunc::Addr,
    AluFunc::SetP(Cmp::Eq),
    AluFunc::SetP(Cmp::Ne),
    AluFunc::SetP(Cmp::Lt),
    AluFunc::SetP(Cmp::Le),
    AluFunc::SetP(Cmp::Gt),
    AluFunc::SetP(Cmp::Ge),
    AluFunc::SetP(Cmp::LtU),
    AluFunc::SetP(Cmp::LeU),
    AluFunc::SetP(Cmp::GtU),
    AluFunc::SetP(Cmp::GeU),
];

const fn is(i: usize, f: AluFunc) -> bool {
    match (FUNCS[i], f) {
        (AluFunc::Alu(x), AluFunc::Alu(y)) => x as u8 == y as u8,
        (AluFunc::SetP(x), AluFunc::SetP(y)) => x as u8 == y as u8,
        (AluFunc::Addr, AluFunc::Addr) => true,
        _ => false,
    }
}

// The literal bit positions used in `Alu::update`.
const _: () = {
    assert!(is(0, AluFunc::Alu(AluOp::Add)));
    assert!(is(1, AluFunc::Alu(AluOp::Sub)));
    assert!(is(2, AluFunc::Alu(AluOp::And)));
    assert!(is(3, AluFunc::Alu(AluOp::Or)));
    assert!(is(4, AluFunc::Alu(AluOp::Xor)));
    assert!(is(5, AluFunc::Alu(AluOp::Min)));
    assert!(is(6, AluFunc::Alu(AluOp::Max)));
    assert!(is(7, AluFunc::Alu(AluOp::MinU)));
    assert!(is(8, AluFunc::Alu(AluOp::MaxU)));
    assert!(is(9, AluFunc::Addr));
    assert!(is(10, AluFunc::SetP(Cmp::Eq)));
    assert!(is(11, AluFunc::SetP(Cmp::Ne)));
    assert!(is(12, AluFunc::SetP(Cmp::Lt)));
    assert!(is(13, AluFunc::SetP(Cmp::Le)));
    assert!(is(14, AluFunc::SetP(Cmp::Gt)));
    assert!(is(15, AluFunc::SetP(Cmp::Ge)));
    assert!(is(16, AluFunc::SetP(Cmp::LtU)));
    assert!(is(17, AluFunc::SetP(Cmp::LeU)));
    assert!(is(18, AluFunc::SetP(Cmp::GtU)));
    assert!(is(19, AluFunc::SetP(Cmp::GeU)));
};

impl AluFunc {
    /// The ALU function of an ALU operation; `None` for the multiplier's
    /// (`mul`, `mulhi`, `mulhiu`, `shl`, `shr`, `sra`:
    /// [`super::mul::MulFunc::of_alu`]).
    pub fn of_alu(op: AluOp) -> Option<AluFunc> {
        match op {
            AluOp::Mul | AluOp::MulHi | AluOp::MulHiU | AluOp::Shl | AluOp::Shr | AluOp::Sra => {
                None
            }
            _ => Some(AluFunc::Alu(op)),
        }
    }

    /// Bit position in the one-hot select.
    pub fn bit(self) -> usize {
        FUNCS
            .iter()
            .position(|f| *f == self)
            .expect("every ALU function has a bit")
    }

    /// The one-hot select word.
    pub fn onehot(self) -> u32 {
        1 << self.bit()
    }
}

/// The lane ALU. Inputs `a`, `b` (operands, `b` already the immediate for
/// immediate forms), `imm` (the address offset of [`AluFunc::Addr`]),
/// `func` (one-hot, [`FUNCS`]). Outputs: `y`, the result word
/// (`semantics::alu`, or `a + imm`, 0 for `setp`), and `pred`, the
/// comparison of `setp` (`semantics::compare`; false otherwise); `addr`,
/// the adder's sum before the result select (`a + imm` under
/// [`AluFunc::Addr`], where it equals `y`), for the address users in X
/// (the control path's key, range and alignment checks, the stack check),
/// which read it only on memory passes: `y` waits for min/max's choice,
/// which comes from the top of the carry chain.
#[derive(LogicBlock, Default)]
pub struct Alu {
    pub a: Signal<In, Bits<32>>,
    pub b: Signal<In, Bits<32>>,
    pub imm: Signal<In, Bits<32>>,
    pub func: Signal<In, Bits<FUNC_BITS>>,
    pub y: Signal<Out, Bits<32>>,
    pub pred: Signal<Out, bool>,
    pub addr: Signal<Out, Bits<32>>,
    // decoded controls (ORs of one-hot bits)
    sub: Signal<Local, bool>,
    is_min: Signal<Local, bool>,
    is_max: Signal<Local, bool>,
    uns: Signal<Local, bool>,
    pick_a: Signal<Local, bool>,
    pick_b: Signal<Local, bool>,
    // adder
    bsel: Signal<Local, Bits<32>>,
    bx: Signal<Local, Bits<32>>,
    cin: Signal<Local, Bits<32>>,
    sum: Signal<Local, Bits<32>>,
    diff_sign: Signal<Local, bool>,
    lt_s: Signal<Local, bool>,
    lt_u: Signal<Local, bool>,
    lt: Signal<Local, bool>,
    eq: Signal<Local, bool>,
    // one-hot AND-OR masks
    z32: Signal<Local, Bits<32>>,
    m_sum: Signal<Local, Bits<32>>,
    m_t3: Signal<Local, Bits<32>>,
    m_t2: Signal<Local, Bits<32>>,
    m_t1: Signal<Local, Bits<32>>,
    m_a: Signal<Local, Bits<32>>,
    m_b: Signal<Local, Bits<32>>,
}

impl Logic for Alu {
    #[hdl_gen]
    fn update(&mut self) {
        // All ones is `!z32` (a 64-bit literal would be a Verilog width mismatch).
        self.z32.next = 0.into();
        // Controls: ORs of one-hot bits.
        self.sub.next = self.func.val().get_bits::<4>(5).any()
            | self.func.val().get_bit(1)
            | self.func.val().get_bits::<10>(10).any();
        self.is_min.next = self.func.val().get_bit(5) | self.func.val().get_bit(7);
        self.is_max.next = self.func.val().get_bit(6) | self.func.val().get_bit(8);
        self.uns.next = self.func.val().get_bit(7)
            | self.func.val().get_bit(8)
            | self.func.val().get_bits::<4>(16).any();

        // The adder/subtractor: a + b, a + imm, a - b = a + ~b + 1.
        self.bsel.next = self.b.val();
        if self.func.val().get_bit(9) {
            self.bsel.next = self.imm.val();
        }
        self.bx.next = self.bsel.val();
        self.cin.next = 0.into();
        if self.sub.val() {
            self.bx.next = !self.bsel.val();
            self.cin.next = 1.into();
        }
        self.sum.next = self.a.val() + self.bx.val() + self.cin.val();
        self.addr.next = self.sum.val();

        // Flags of a - b.
        self.diff_sign.next = self.a.val().get_bit(31) ^ self.b.val().get_bit(31);
        self.lt_s.next = self.sum.val().get_bit(31);
        self.lt_u.next = self.sum.val().get_bit(31);
        if self.diff_sign.val() {
            self.lt_s.next = self.a.val().get_bit(31);
            self.lt_u.next = self.b.val().get_bit(31);
        }
        self.lt.next = self.lt_s.val();
        if self.uns.val() {
            self.lt.next = self.lt_u.val();
        }
        self.eq.next = !self.sum.val().any();

        // min/max: a or b.
        self.pick_a.next =
            (self.is_min.val() & self.lt.val()) | (self.is_max.val() & !self.lt.val());
        self.pick_b.next = (self.is_min.val() | self.is_max.val()) & !self.pick_a.val();

        // setp: pred = eq, ne, lt, le, gt, ge (signed or unsigned lt).
        self.pred.next = (self.func.val().get_bit(10) & self.eq.val())
            | (self.func.val().get_bit(11) & !self.eq.val())
            | ((self.func.val().get_bit(12) | self.func.val().get_bit(16)) & self.lt.val())
            | ((self.func.val().get_bit(13) | self.func.val().get_bit(17))
                & (self.lt.val() | self.eq.val()))
            | ((self.func.val().get_bit(14) | self.func.val().get_bit(18))
                & !(self.lt.val() | self.eq.val()))
            | ((self.func.val().get_bit(15) | self.func.val().get_bit(19)) & !self.lt.val());

        // One-hot AND-OR result: the sum (add, sub, addr); and, or, xor as
        // one truth table over (a_i, b_i) shared by the 32 bits (t3 for
        // (1,1), t2 for (1,0), t1 for (0,1), 0 for (0,0)); a or b for
        // min/max. The choice of min/max comes last (from the carry chain)
        // and drives its own two terms: folded into the truth table, it
        // made Yosys' ABC9 duplicate that logic into every bit (about 330
        // LUT4 for the ALU instead of about 210).
        self.m_sum.next = 0.into();
        if self.func.val().get_bit(0) | self.func.val().get_bit(1) | self.func.val().get_bit(9) {
            self.m_sum.next = !self.z32.val();
        }
        self.m_t3.next = 0.into();
        if self.func.val().get_bit(2) | self.func.val().get_bit(3) {
            self.m_t3.next = !self.z32.val();
        }
        self.m_t2.next = 0.into();
        if self.func.val().get_bit(3) | self.func.val().get_bit(4) {
            self.m_t2.next = !self.z32.val();
        }
        self.m_t1.next = 0.into();
        if self.func.val().get_bit(3) | self.func.val().get_bit(4) {
            self.m_t1.next = !self.z32.val();
        }
        self.m_a.next = 0.into();
        if self.pick_a.val() {
            self.m_a.next = !self.z32.val();
        }
        self.m_b.next = 0.into();
        if self.pick_b.val() {
            self.m_b.next = !self.z32.val();
        }
        self.y.next = (self.sum.val() & self.m_sum.val())
            | (self.a.val() & self.b.val() & self.m_t3.val())
            | (self.a.val() & !self.b.val() & self.m_t2.val())
            | (!self.a.val() & self.b.val() & self.m_t1.val())
            | (self.a.val() & self.m_a.val())
            | (self.b.val() & self.m_b.val());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_covers_every_non_multiplier_op_and_every_compare_once() {
        for op in AluOp::ALL {
            let n = FUNCS.iter().filter(|f| **f == AluFunc::Alu(op)).count();
            let expect = usize::from(AluFunc::of_alu(op).is_some());
            assert_eq!(n, expect, "{op:?}");
        }
        for c in Cmp::ALL {
            assert_eq!(FUNCS.iter().filter(|f| **f == AluFunc::SetP(c)).count(), 1);
        }
        assert_eq!(FUNCS.iter().filter(|f| **f == AluFunc::Addr).count(), 1);
        for (i, f) in FUNCS.iter().enumerate() {
            assert_eq!(f.bit(), i);
            assert_eq!(f.onehot(), 1 << i);
        }
    }
}
