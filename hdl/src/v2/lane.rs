//! The data path of one Core v2 lane through stages D–R–X–A–M–W
//! (`docs/microarchitecture.md` §3.1, §8, §11), as far as those
//! sections define it: register-file read and write, operand selection and
//! operand registers, ALU, multiplier, and the pipeline registers that
//! carry the result to the register-file write at W. No control (the
//! decoder's one-hot controls are inputs), no memory, no predicates beyond
//! the `setp` result.
//!
//! | stage | here |
//! |---|---|
//! | D | `ra`, `rb` presented to the register file (registered in its block RAMs) |
//! | R | register data; operand A = register, its low half (`movhi`) or `alt_a` (special register, parameter, ballot mask: one-hot `sel_a`), operand B = register or `imm` (one-hot `sel_b`); operand, function and write-control registers at the end of R |
//! | X | ALU; multiplier (and shift) products; result, `setp` flag registered at the end of X; `a_x`, `b_x`, `addr_x` out (the control path's operands, §8) |
//! | A | `y_a`/`pred_a` out (addresses, predicate commit); multiplier sums, and the multiplier's word or the ALU result into the multiplier's A→M register; `drop_a`: the commit keeps the result out of the register file |
//! | M | result carried (in the multiplier's registers) |
//! | W | write data = the result (ALU or multiplier), `alt_w` (a link value) or a load word `ld_d` (`ld_en`: a shared load or atomic, a global return slot); written with `wen`/`wa` of the item, or at `ld_wa` (`ld_wa_sel`: a return slot, whose item carries no `rd`) |
//!
//! The write data is `(result & ~(ld_en | sel_alt_w)) | alt_w | ld_d`:
//! `alt_w` is 0 unless `sel_alt_w` and `ld_d` is 0 unless `ld_en` (the
//! data path gates the warp-uniform link once for all lanes, the shared
//! memory its load words by their lanes). A one-hot select of four 32-bit
//! sources with its three selects in every bit took about 4 LUT4 per bit
//! (ABC built a 7-input function from LUT4, `PFUMX` and `L6MUX21`); this
//! is one LUT4 per bit.

use rust_hdl_core::prelude::*;
use rust_hdl_widgets::prelude::DFF;

use super::alu::{Alu, FUNC_BITS};
use super::mul::{Mul, MUL_FUNC_BITS};
use super::regfile::RegFile;

/// One lane's data path; `AW`-bit register-file addresses, `words`
/// (`W · RP`) words.
///
/// Inputs by stage: D: `ra`, `rb`. R: `sel_a` (bit 0 register, bit 1
/// `alt_a`, bit 2 the register's low 16 bits, for `movhi`), `alt_a`, `sel_b` (bit 0 register, bit 1 `imm`), `imm` (also the
/// address offset of `AluFunc::Addr`), `func` (ALU, one-hot; 0 for a
/// multiplier function), `mfunc` (multiplier: `mul`, `mulhi`, `mulhiu` and
/// the shifts, one-hot; 0 for an ALU function), `wen`, `wa` (the destination register's word and whether
/// this lane writes it at W). A: `drop_a` (the commit does not write this
/// lane: not served, trapped, ...). W: `alt_w`, `sel_alt_w` (write `alt_w`
/// instead of the lane's result: the link value of `call`/`callr`, whose
/// operand A is the target register, so the link cannot be an operand;
/// `alt_w` must be 0 when `sel_alt_w` is not set).
/// Outputs: X: `a_x`, `b_x` (operands), `addr_x` (the ALU adder's
/// combinational sum: `a + imm` for `AluFunc::Addr`, the function of every
/// memory pass; on other passes its users ignore it). A: `y_a` (ALU result: value or address), `pred_a` (`setp`).
/// W: `ld_en`, `ld_d` (a load word written instead of the result: shared
/// loads, atomics and return slots, which the pipeline's `wen` leaves
/// out; `ld_d` must be 0 when `ld_en` is not set), `ld_wa`, `ld_wa_sel`
/// (the word's address instead of `wa`).
/// Outputs W: `w_en`, `w_addr`, `w_data` (what the register file writes at
/// the end of W).
#[derive(LogicBlock)]
pub struct LaneDp<const AW: usize> {
    pub clock: Signal<In, Clock>,
    /// Clears the write enables of the items in X..W, so that a run cut
    /// short (a watchdog stop, a failed co-simulation) leaves no register
    /// write behind the next reset.
    pub reset: Signal<In, bool>,
    // D
    pub ra: Signal<In, Bits<AW>>,
    pub rb: Signal<In, Bits<AW>>,
    // R
    pub sel_a: Signal<In, Bits<3>>,
    pub alt_a: Signal<In, Bits<32>>,
    pub sel_b: Signal<In, Bits<2>>,
    pub imm: Signal<In, Bits<32>>,
    pub func: Signal<In, Bits<FUNC_BITS>>,
    pub mfunc: Signal<In, Bits<MUL_FUNC_BITS>>,
    pub wen: Signal<In, bool>,
    pub wa: Signal<In, Bits<AW>>,
    // X
    pub a_x: Signal<Out, Bits<32>>,
    pub b_x: Signal<Out, Bits<32>>,
    pub addr_x: Signal<Out, Bits<32>>,
    // A
    pub drop_a: Signal<In, bool>,
    pub y_a: Signal<Out, Bits<32>>,
    pub pred_a: Signal<Out, bool>,
    // W
    pub alt_w: Signal<In, Bits<32>>,
    pub sel_alt_w: Signal<In, bool>,
    pub ld_en: Signal<In, bool>,
    pub ld_d: Signal<In, Bits<32>>,
    pub ld_wa: Signal<In, Bits<AW>>,
    pub ld_wa_sel: Signal<In, bool>,
    pub w_en: Signal<Out, bool>,
    pub w_addr: Signal<Out, Bits<AW>>,
    pub w_data: Signal<Out, Bits<32>>,

    rf: RegFile<AW>,
    alu: Alu,
    mul: Mul,
    // R -> X: operand and control registers
    x_a: DFF<Bits<32>>,
    x_b: DFF<Bits<32>>,
    x_imm: DFF<Bits<32>>,
    x_func: DFF<Bits<FUNC_BITS>>,
    x_mfunc: DFF<Bits<MUL_FUNC_BITS>>,
    x_wen: DFF<bool>,
    x_wa: DFF<Bits<AW>>,
    // X -> A
    a_y: DFF<Bits<32>>,
    a_pred: DFF<bool>,
    a_wen: DFF<bool>,
    a_wa: DFF<Bits<AW>>,
    // A -> M (the result is in the multiplier's registers)
    m_wen: DFF<bool>,
    m_wa: DFF<Bits<AW>>,
    // M -> W
    w_wen: DFF<bool>,
    w_wa: DFF<Bits<AW>>,
    // locals: one-hot masks
    z32: Signal<Local, Bits<32>>,
    ma_rf: Signal<Local, Bits<32>>,
    ma_alt: Signal<Local, Bits<32>>,
    ma_lo: Signal<Local, Bits<32>>,
    lo16: Constant<Bits<32>>,
    mb_rf: Signal<Local, Bits<32>>,
    mb_imm: Signal<Local, Bits<32>>,
    mw_res: Signal<Local, Bits<32>>,
    wa_w: Signal<Local, Bits<AW>>,
    wd: Signal<Local, Bits<32>>,
}

impl<const AW: usize> LaneDp<AW> {
    pub fn new(words: usize) -> Self {
        LaneDp {
            clock: Default::default(),
            reset: Default::default(),
            ra: Default::default(),
            rb: Default::default(),
            sel_a: Default::default(),
            alt_a: Default::default(),
            sel_b: Default::default(),
            imm: Default::default(),
            func: Default::default(),
            mfunc: Default::default(),
            wen: Default::default(),
            wa: Default::default(),
            a_x: Default::default(),
            b_x: Default::default(),
            addr_x: Default::default(),
            drop_a: Default::default(),
            y_a: Default::default(),
            pred_a: Default::default(),
            alt_w: Default::default(),
            sel_alt_w: Default::default(),
            ld_en: Default::default(),
            ld_d: Default::default(),
            ld_wa: Default::default(),
            ld_wa_sel: Default::default(),
            w_en: Default::default(),
            w_addr: Default::default(),
            w_data: Default::default(),
            rf: RegFile::new(words),
            alu: Default::default(),
            mul: Default::default(),
            x_a: Default::default(),
            x_b: Default::default(),
            x_imm: Default::default(),
            x_func: Default::default(),
            x_mfunc: Default::default(),
            x_wen: Default::default(),
            x_wa: Default::default(),
            a_y: Default::default(),
            a_pred: Default::default(),
            a_wen: Default::default(),
            a_wa: Default::default(),
            m_wen: Default::default(),
            m_wa: Default::default(),
            w_wen: Default::default(),
            w_wa: Default::default(),
            ma_rf: Default::default(),
            ma_alt: Default::default(),
            ma_lo: Default::default(),
            lo16: Constant::new(0xffffu64.into()),
            mb_rf: Default::default(),
            mb_imm: Default::default(),
            mw_res: Default::default(),
            wa_w: Default::default(),
            wd: Default::default(),
            z32: Default::default(),
        }
    }
}

impl<const AW: usize> Logic for LaneDp<AW> {
    #[hdl_gen]
    fn update(&mut self) {
        self.rf.clock.next = self.clock.val();
        self.mul.clock.next = self.clock.val();
        self.x_a.clock.next = self.clock.val();
        self.x_b.clock.next = self.clock.val();
        self.x_imm.clock.next = self.clock.val();
        self.x_func.clock.next = self.clock.val();
        self.x_mfunc.clock.next = self.clock.val();
        self.x_wen.clock.next = self.clock.val();
        self.x_wa.clock.next = self.clock.val();
        self.a_y.clock.next = self.clock.val();
        self.a_pred.clock.next = self.clock.val();
        self.a_wen.clock.next = self.clock.val();
        self.a_wa.clock.next = self.clock.val();
        self.m_wen.clock.next = self.clock.val();
        self.m_wa.clock.next = self.clock.val();
        self.w_wen.clock.next = self.clock.val();
        self.w_wa.clock.next = self.clock.val();

        // All ones is `!z32` (a 64-bit literal would be a Verilog width mismatch).
        self.z32.next = 0.into();
        // D: read addresses.
        self.rf.ra.next = self.ra.val();
        self.rf.rb.next = self.rb.val();

        // R: one-hot operand selection into the operand registers.
        self.ma_rf.next = 0.into();
        if self.sel_a.val().get_bit(0) {
            self.ma_rf.next = !self.z32.val();
        }
        self.ma_alt.next = 0.into();
        if self.sel_a.val().get_bit(1) {
            self.ma_alt.next = !self.z32.val();
        }
        self.ma_lo.next = 0.into();
        if self.sel_a.val().get_bit(2) {
            self.ma_lo.next = self.lo16.val();
        }
        self.mb_rf.next = 0.into();
        if self.sel_b.val().get_bit(0) {
            self.mb_rf.next = !self.z32.val();
        }
        self.mb_imm.next = 0.into();
        if self.sel_b.val().get_bit(1) {
            self.mb_imm.next = !self.z32.val();
        }
        self.x_a.d.next = (self.rf.da.val() & (self.ma_rf.val() | self.ma_lo.val()))
            | (self.alt_a.val() & self.ma_alt.val());
        self.x_b.d.next =
            (self.rf.db.val() & self.mb_rf.val()) | (self.imm.val() & self.mb_imm.val());
        self.x_imm.d.next = self.imm.val();
        self.x_func.d.next = self.func.val();
        self.x_mfunc.d.next = self.mfunc.val();
        self.x_wen.d.next = self.wen.val() & !self.reset.val();
        self.x_wa.d.next = self.wa.val();

        // X: ALU and the multiplier's first stage.
        self.alu.a.next = self.x_a.q.val();
        self.alu.b.next = self.x_b.q.val();
        self.alu.imm.next = self.x_imm.q.val();
        self.alu.func.next = self.x_func.q.val();
        self.mul.a.next = self.x_a.q.val();
        self.mul.b.next = self.x_b.q.val();
        self.mul.func.next = self.x_mfunc.q.val();
        self.a_x.next = self.x_a.q.val();
        self.b_x.next = self.x_b.q.val();
        // The sum, not `y`: `y` waits for min/max's choice at the top of
        // the carry chain, and `addr_x` feeds the key compares (§19.4).
        self.addr_x.next = self.alu.addr.val();
        self.a_y.d.next = self.alu.y.val();
        self.a_pred.d.next = self.alu.pred.val();
        self.a_wen.d.next = self.x_wen.q.val() & !self.reset.val();
        self.a_wa.d.next = self.x_wa.q.val();

        // A, M: carried.
        self.y_a.next = self.a_y.q.val();
        self.pred_a.next = self.a_pred.q.val();
        self.mul.pass.next = self.a_y.q.val();
        self.m_wen.d.next = self.a_wen.q.val() & !self.drop_a.val() & !self.reset.val();
        self.m_wa.d.next = self.a_wa.q.val();
        self.w_wen.d.next = self.m_wen.q.val() & !self.reset.val();
        self.w_wa.d.next = self.m_wa.q.val();

        // W: the write data (`alt_w` and `ld_d` are 0 when not selected),
        // register-file write.
        self.mw_res.next = !self.z32.val();
        if self.sel_alt_w.val() | self.ld_en.val() {
            self.mw_res.next = 0.into();
        }
        self.wd.next = (self.mul.y.val() & self.mw_res.val()) | self.alt_w.val() | self.ld_d.val();
        self.wa_w.next = self.w_wa.q.val();
        if self.ld_wa_sel.val() {
            self.wa_w.next = self.ld_wa.val();
        }
        self.rf.we.next = self.w_wen.q.val() | self.ld_en.val();
        self.rf.wa.next = self.wa_w.val();
        self.rf.wd.next = self.wd.val();
        self.w_en.next = self.w_wen.q.val() | self.ld_en.val();
        self.w_addr.next = self.wa_w.val();
        self.w_data.next = self.wd.val();
    }
}
