//! The 32×32 multiplier of a Core v2 lane (`docs/microarchitecture.md`
//! §8): `mul` (low word), `mulhi` (high word, signed), `mulhiu` (high word,
//! unsigned), pipelined over X → A → M so that its result is in a register
//! at W and off the X stage's critical path. It also shifts (the ALU has
//! no shifter, see [`super::alu`]), with `s = b mod 32`:
//!
//! * `shl`: the low word of `a · 2^s`;
//! * `shr`: the high word of `a · 2^(32−s)` (unsigned), for `s > 0`;
//! * `sra`: the high word of `a · 2^(32−s)` (`a` signed, the power of two
//!   unsigned), for `s > 0`;
//! * `shr`, `sra` with `s = 0`: the low word of `a · 2^0`.
//!
//! The exponent is `s` for `shl` and `−s mod 32` for right shifts (0 for
//! `s = 0`, so one decoder makes the factor); the factor replaces `b` in X.
//!
//! With `a = ah·2^16 + al` and `b = bh·2^16 + bl` (`al`, `bl` unsigned;
//! `ah`, `bh` the high halves, sign-extended to 17 bits for `mulhi` (and
//! `ah` for `sra`), zero-extended otherwise), the 64-bit product is
//! `hh·2^32 + (hl + lh)·2^16 + ll`, four 17×17 signed products, each one
//! ECP5 `MULT18X18D`.
//!
//! * X: the four products (DSP), registered at the end of X.
//! * A: `mid = lh + hl` (48 bits, sign-extended), the low word
//!   `lo = ll + mid·2^16` (a 17-bit add of the middle halves; its carry `c`),
//!   the high word `hi = hh + (mid >> 16) + c` (32 bits), and the word the
//!   function asks for, registered at the end of A.
//! * M: the word is registered again at the end of M: `y` holds it in W.
//!
//! **The lane's other results ride the same registers.** An item with no
//! multiplier function (`func == 0` at X) takes `pass` at A (the lane's
//! ALU result) as its word, so `y` in W is the lane's result whatever its
//! unit. The lane then needs no A→M→W copy of its ALU result (64
//! flip-flops per lane) and its register-file write data has one source
//! fewer: the pass term is a third one-hot term of a select the word
//! already had.
//!
//! `mul`'s low word does not depend on the signedness of the factors, so
//! it shares `mulhiu`'s unsigned products.

use concord_isa::instr::AluOp;
use rust_hdl_core::prelude::*;
use rust_hdl_widgets::prelude::DFF;

/// One multiplier function: a bit of the one-hot select.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum MulFunc {
    /// `mul`: the low word.
    Lo,
    /// `mulhi`: the high word of the signed product.
    HiS,
    /// `mulhiu`: the high word of the unsigned product.
    HiU,
    /// `shl`.
    Shl,
    /// `shr`.
    Shr,
    /// `sra`.
    Sra,
}

/// Width of the one-hot select.
pub const MUL_FUNC_BITS: usize = 6;

/// Bit `i` of the select is `MUL_FUNCS[i]` (positions are literals in
/// [`Mul`]'s code; the `const` assertion ties them to this table).
pub const MUL_FUNCS: [MulFunc; MUL_FUNC_BITS] = [
    MulFunc::Lo,
    MulFunc::HiS,
    MulFunc::HiU,
    MulFunc::Shl,
    MulFunc::Shr,
    MulFunc::Sra,
];

const _: () = {
    assert!(matches!(MUL_FUNCS[0], MulFunc::Lo));
    assert!(matches!(MUL_FUNCS[1], MulFunc::HiS));
    assert!(matches!(MUL_FUNCS[2], MulFunc::HiU));
    assert!(matches!(MUL_FUNCS[3], MulFunc::Shl));
    assert!(matches!(MUL_FUNCS[4], MulFunc::Shr));
    assert!(matches!(MUL_FUNCS[5], MulFunc::Sra));
};

impl MulFunc {
    /// The multiplier function of an ALU operation (`None`: an ALU one,
    /// [`super::alu::AluFunc::of_alu`]).
    pub fn of_alu(op: AluOp) -> Option<MulFunc> {
        match op {
            AluOp::Mul => Some(MulFunc::Lo),
            AluOp::MulHi => Some(MulFunc::HiS),
            AluOp::MulHiU => Some(MulFunc::HiU),
            AluOp::Shl => Some(MulFunc::Shl),
            AluOp::Shr => Some(MulFunc::Shr),
            AluOp::Sra => Some(MulFunc::Sra),
            _ => None,
        }
    }

    pub fn bit(self) -> usize {
        MUL_FUNCS
            .iter()
            .position(|f| *f == self)
            .expect("every multiplier function has a bit")
    }

    pub fn onehot(self) -> u8 {
        1 << self.bit()
    }
}

/// The DSP leaf: `p = x · y` with `x`, `y` 16-bit values extended to 17
/// bits (sign-extended when `xs`/`ys`, else zero-extended); `p` is the
/// product's low `W` bits (`W` ≤ 36), or the product sign-extended to `W`
/// bits (`W` > 36).
///
/// Custom Verilog because rust-hdl 0.46 cannot say this: its `*` exists
/// only for `Bits<16> × Bits<16> → Bits<32>` (unsigned), and `#[hdl_gen]`
/// has no concatenation for the extension bits or `$signed` operands.
/// A signed 18×18 product is what Yosys' `synth_ecp5` maps to one
/// `MULT18X18D`.
#[derive(LogicBlock, Default)]
pub struct MulLeaf<const W: usize> {
    pub x: Signal<In, Bits<16>>,
    pub xs: Signal<In, bool>,
    pub y: Signal<In, Bits<16>>,
    pub ys: Signal<In, bool>,
    pub p: Signal<Out, Bits<W>>,
}

impl<const W: usize> Logic for MulLeaf<W> {
    fn update(&mut self) {
        let ext = |v: Bits<16>, s: bool| -> i64 {
            let v = v.to_u64() as i64;
            if s && v >= 0x8000 {
                v - 0x1_0000
            } else {
                v
            }
        };
        let p = ext(self.x.val(), self.xs.val()) * ext(self.y.val(), self.ys.val());
        self.p.next = Bits::<64>::from(p as u64).get_bits::<W>(0);
    }

    fn connect(&mut self) {
        self.p.connect();
    }

    fn hdl(&self) -> Verilog {
        assert!((32..=64).contains(&W));
        let out = if W <= 36 {
            // The product's high bits are not needed (mod 2^W).
            format!(
                "/* verilator lint_off UNUSEDSIGNAL */\n\
                 wire signed [35:0] pr = xe * ye;\n\
                 /* verilator lint_on UNUSEDSIGNAL */\n\
                 always @(*) p = pr[{}:0];\n",
                W - 1
            )
        } else {
            format!(
                "wire signed [35:0] pr = xe * ye;\n\
                 always @(*) p = {{{{{}{{pr[35]}}}}, pr}};\n",
                W - 36
            )
        };
        Verilog::Custom(format!(
            "wire signed [17:0] xe = {{{{2{{xs & x[15]}}}}, x}};\n\
             wire signed [17:0] ye = {{{{2{{ys & y[15]}}}}, y}};\n{out}"
        ))
    }
}

/// The pipelined multiplier. `a`, `b`, `func` (one-hot, [`MUL_FUNCS`]) are
/// the X stage's registered operands; `y` is the result three clock edges
/// later (the end of X, A and M), in W. `func == 0` gives `pass` as it was
/// one clock edge after `func` (at A).
#[derive(LogicBlock, Default)]
pub struct Mul {
    pub clock: Signal<In, Clock>,
    pub a: Signal<In, Bits<32>>,
    pub b: Signal<In, Bits<32>>,
    pub func: Signal<In, Bits<MUL_FUNC_BITS>>,
    /// A: the word of an item with no multiplier function.
    pub pass: Signal<In, Bits<32>>,
    pub y: Signal<Out, Bits<32>>,
    ll: MulLeaf<32>,
    lh: MulLeaf<48>,
    hl: MulLeaf<48>,
    hh: MulLeaf<32>,
    // X -> A
    x_ll: DFF<Bits<32>>,
    x_lh: DFF<Bits<48>>,
    x_hl: DFF<Bits<48>>,
    x_hh: DFF<Bits<32>>,
    x_hi: DFF<bool>,
    x_lo: DFF<bool>,
    x_pass: DFF<bool>,
    // A -> M, M -> W
    a_y: DFF<Bits<32>>,
    m_y: DFF<Bits<32>>,
    // X-stage shift factor
    shift: Signal<Local, bool>,
    right: Signal<Local, bool>,
    s_zero: Signal<Local, bool>,
    sa: Signal<Local, bool>,
    sb: Signal<Local, bool>,
    e: Signal<Local, Bits<5>>,
    one: Signal<Local, Bits<32>>,
    fac: Signal<Local, Bits<32>>,
    bop: Signal<Local, Bits<32>>,
    // A-stage sums
    z32: Signal<Local, Bits<32>>,
    mid: Signal<Local, Bits<48>>,
    t: Signal<Local, Bits<32>>,
    c: Signal<Local, Bits<32>>,
    lo: Signal<Local, Bits<32>>,
    hi: Signal<Local, Bits<32>>,
    m_lo: Signal<Local, Bits<32>>,
    m_hi: Signal<Local, Bits<32>>,
    m_pass: Signal<Local, Bits<32>>,
}

impl Logic for Mul {
    #[hdl_gen]
    fn update(&mut self) {
        self.x_ll.clock.next = self.clock.val();
        self.x_lh.clock.next = self.clock.val();
        self.x_hl.clock.next = self.clock.val();
        self.x_hh.clock.next = self.clock.val();
        self.x_hi.clock.next = self.clock.val();
        self.x_lo.clock.next = self.clock.val();
        self.x_pass.clock.next = self.clock.val();
        self.a_y.clock.next = self.clock.val();
        self.m_y.clock.next = self.clock.val();

        // All ones is `!z32` (a 64-bit literal would be a Verilog width mismatch).
        self.z32.next = 0.into();
        // X: the shift factor 2^e replaces b; the four products.
        self.shift.next = self.func.val().get_bits::<3>(3).any();
        self.right.next = self.func.val().get_bit(4) | self.func.val().get_bit(5);
        self.s_zero.next = !self.b.val().get_bits::<5>(0).any();
        self.e.next = self.z32.val().get_bits::<5>(0) - self.b.val().get_bits::<5>(0);
        if self.func.val().get_bit(3) {
            self.e.next = self.b.val().get_bits::<5>(0);
        }
        self.one.next = 1.into();
        self.fac.next = self.one.val() << self.e.val();
        self.bop.next = self.b.val();
        if self.shift.val() {
            self.bop.next = self.fac.val();
        }
        // a signed for mulhi and sra; b signed for mulhi.
        self.sa.next = self.func.val().get_bit(1) | self.func.val().get_bit(5);
        self.sb.next = self.func.val().get_bit(1);
        self.ll.x.next = self.a.val().get_bits::<16>(0);
        self.ll.xs.next = false;
        self.ll.y.next = self.bop.val().get_bits::<16>(0);
        self.ll.ys.next = false;
        self.lh.x.next = self.a.val().get_bits::<16>(0);
        self.lh.xs.next = false;
        self.lh.y.next = self.bop.val().get_bits::<16>(16);
        self.lh.ys.next = self.sb.val();
        self.hl.x.next = self.a.val().get_bits::<16>(16);
        self.hl.xs.next = self.sa.val();
        self.hl.y.next = self.bop.val().get_bits::<16>(0);
        self.hl.ys.next = false;
        self.hh.x.next = self.a.val().get_bits::<16>(16);
        self.hh.xs.next = self.sa.val();
        self.hh.y.next = self.bop.val().get_bits::<16>(16);
        self.hh.ys.next = self.sb.val();
        self.x_ll.d.next = self.ll.p.val();
        self.x_lh.d.next = self.lh.p.val();
        self.x_hl.d.next = self.hl.p.val();
        self.x_hh.d.next = self.hh.p.val();
        // The word: high for mulhi, mulhiu and right shifts by s > 0.
        self.x_hi.d.next = self.func.val().get_bit(1)
            | self.func.val().get_bit(2)
            | (self.right.val() & !self.s_zero.val());
        self.x_lo.d.next = self.func.val().get_bit(0)
            | self.func.val().get_bit(3)
            | (self.right.val() & self.s_zero.val());
        self.x_pass.d.next = !self.func.val().any();

        // A: partial sums, the low and the high word, one-hot selected.
        self.mid.next = self.x_lh.q.val() + self.x_hl.q.val();
        self.t.next = (self.x_ll.q.val() >> 16) + (self.mid.val().get_bits::<32>(0) & 0xffff);
        self.c.next = self.t.val() >> 16;
        self.lo.next = (self.t.val() << 16) | (self.x_ll.q.val() & 0xffff);
        self.hi.next = self.x_hh.q.val() + self.mid.val().get_bits::<32>(16) + self.c.val();
        self.m_lo.next = 0.into();
        if self.x_lo.q.val() {
            self.m_lo.next = !self.z32.val();
        }
        self.m_hi.next = 0.into();
        if self.x_hi.q.val() {
            self.m_hi.next = !self.z32.val();
        }
        self.m_pass.next = 0.into();
        if self.x_pass.q.val() {
            self.m_pass.next = !self.z32.val();
        }
        self.a_y.d.next = (self.lo.val() & self.m_lo.val())
            | (self.hi.val() & self.m_hi.val())
            | (self.pass.val() & self.m_pass.val());

        // M: one more register; y is the result in W.
        self.m_y.d.next = self.a_y.q.val();
        self.y.next = self.m_y.q.val();
    }
}
