//! The Core v2 data path of the integrated top (`docs/microarchitecture.md`
//! §3.1, §5.1, §7, §8, §11, §12.4): the `L` lane data paths
//! ([`super::lane::LaneDp`]: two-copy register file, operands, ALU,
//! multiplier), the operand selection of every data class, the special
//! registers and the thread-id LUT-RAM, the predicate file and its writes
//! (`setp`, `pand/por/pxor`, votes), and the register-file and predicate
//! fields of the trace record. It sits in `core.rs` between the decoder
//! (stage D, [`super::decode::Decode`]) and the commit (stage A, the control
//! path's): it takes the decoder's registered fields at R and hands the
//! control path the per-lane operands and addresses at X.
//!
//! | stage | here |
//! |---|---|
//! | launch | `clear_warps`: the allocated slot's warps' predicates := 0; `tid_*`: one thread-id LUT-RAM write per cycle (the launch walk, §12.3) |
//! | F | the warp's predicate bank (`(P−1)·L` bits, AND-OR over the warps), registered: `bank` at D, the decoder's guard and predicate sources |
//! | D | `ra_d`, `rb_d`: the register-file addresses, registered by the block RAMs |
//! | R | operand selection per class (one-hot), `s2r` values (§12.4), the parameter word, the ballot mask, the init slot's zero; the write control (`exec` lanes of a class that writes `rd`, every lane of an init slot) |
//! | X | `a_x`, `b_x`, `addr_x` per lane out (control path: targets, access checks, store data); predicate logic and votes |
//! | A | the predicate write at the end of A (`exec` lanes, `a_commit`); `a_keep`: the lanes the commit lets write their register |
//! | W | register-file write (results, multiplier, link values of `call`/`callr`, init zeros; the memory unit's load words `w_ld_en`/`w_ld`: shared loads and atomics at the pass's `rd`, return slots at `w_ld_row` when `w_ld_row_sel`); `tr_rf_*` |
//!
//! Inputs from the control path: `a_keep` (per lane, the commit's write
//! mask of a warp pass at A: `exec`, or the served lanes) and `a_commit`
//! (the pass at A commits: it neither traps nor belongs to a frozen slot).
//! The link value is `pc + 1` of the pass (32 bits), the same in every lane
//! (§8), carried here to W; it is written instead of the lane's result,
//! since `callr`'s operand A is its target register.
//!
//! The trace outputs are combinational, the record of the cycle (the top
//! registers them): `tr_pred_*` at A, `tr_rf_*` at W, as the cycle model
//! writes them (`testbench/src/pipeline/commit.rs`, `write_pred`,
//! `write_rf`): a predicate write names its address even when no lane
//! executes; a register write of no lane is no write (address 0); a lane
//! not written shows data 0.

use concord_isa::encoding::{field, VOTE_ALL, VOTE_ANY};
use concord_isa::instr::{AluOp, PredOp, SpecialReg};
use concord_uarch::HwParams;
use rust_hdl_core::prelude::*;

use super::alu::{AluFunc, FUNC_BITS};
use super::decode::{Class, NCLS, NPOP, NSREG, NVOTE};
use super::gentry::LutRam;
use super::guard::PRED_IDX_BITS;
use super::lane::LaneDp;
use super::mul::MUL_FUNC_BITS;
use super::resize::Resize;
use crate::util::{Ext, Reg};

/// Width of a register index.
pub const REG_W: usize = field::RD.1 as usize;
/// Width of a warp index (the launch unit's and the scheduler's).
const WARP_W: usize = 4;

// Literal class, special-register and predicate-op positions used in
// `update` (rust-hdl turns a named constant into a Verilog name).
const _: () = {
    assert!(NCLS == 21);
    assert!(NSREG == 19);
    assert!(NPOP == 3);
};

fn c<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.into())
}

/// The data path of a core with `L` lanes, `W` warps, `K`-bit thread-id
/// components, a predicate bank of `PB = (P−1)·L` bits and `AW`-bit
/// register-file addresses (see the module documentation).
#[derive(LogicBlock)]
pub struct DataPath<
    const L: usize,
    const W: usize,
    const K: usize,
    const PB: usize,
    const AW: usize,
> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    // launch
    pub clear_warps: Signal<In, Bits<W>>,
    pub tid_we: Signal<In, bool>,
    pub tid_lane: Signal<In, Bits<L>>,
    pub tid_warp: Signal<In, Bits<WARP_W>>,
    pub tid_x: Signal<In, Bits<K>>,
    pub tid_y: Signal<In, Bits<K>>,
    pub tid_z: Signal<In, Bits<K>>,
    // F
    pub f_warp: Signal<In, Bits<WARP_W>>,
    pub bank: Signal<Out, Bits<PB>>,
    // D
    pub ra_d: Signal<In, Bits<AW>>,
    pub rb_d: Signal<In, Bits<AW>>,
    // R: the item
    pub r_pass: Signal<In, bool>,
    pub r_init: Signal<In, bool>,
    pub r_init_reg: Signal<In, Bits<REG_W>>,
    pub r_warp: Signal<In, Bits<WARP_W>>,
    pub r_pc: Signal<In, Bits<16>>,
    // R: the decoder's fields
    pub cls: Signal<In, Bits<NCLS>>,
    pub movhi: Signal<In, bool>,
    pub imm_b: Signal<In, bool>,
    pub alu: Signal<In, Bits<FUNC_BITS>>,
    pub mul: Signal<In, Bits<MUL_FUNC_BITS>>,
    pub pop: Signal<In, Bits<NPOP>>,
    pub vote: Signal<In, Bits<NVOTE>>,
    pub sreg: Signal<In, Bits<NSREG>>,
    pub imm: Signal<In, Bits<32>>,
    pub rd: Signal<In, Bits<REG_W>>,
    pub wr_rd: Signal<In, bool>,
    pub pd: Signal<In, Bits<PRED_IDX_BITS>>,
    pub wr_pd: Signal<In, bool>,
    pub exec: Signal<In, Bits<L>>,
    pub pa: Signal<In, Bits<L>>,
    pub pb: Signal<In, Bits<L>>,
    // R: special-register sources (§12.4) and the parameter word
    pub block_x: Signal<In, Bits<32>>,
    pub block_y: Signal<In, Bits<32>>,
    pub block_z: Signal<In, Bits<32>>,
    pub grid_x: Signal<In, Bits<32>>,
    pub grid_y: Signal<In, Bits<32>>,
    pub grid_z: Signal<In, Bits<32>>,
    pub ctaid_x: Vec<Signal<In, Bits<32>>>,
    pub ctaid_y: Vec<Signal<In, Bits<32>>>,
    pub ctaid_z: Vec<Signal<In, Bits<32>>>,
    pub wslot: Vec<Signal<In, Bits<4>>>,
    pub wib: Vec<Signal<In, Bits<WARP_W>>>,
    pub nwarps: Signal<In, Bits<5>>,
    pub clock_lo: Signal<In, Bits<32>>,
    pub clock_hi: Signal<In, Bits<32>>,
    pub param: Signal<In, Bits<32>>,
    // X
    pub a_x: Vec<Signal<Out, Bits<32>>>,
    pub b_x: Vec<Signal<Out, Bits<32>>>,
    pub addr_x: Vec<Signal<Out, Bits<32>>>,
    // A
    /// The ALU result at A (the address, for the stack check of §12.4).
    pub y_a: Vec<Signal<Out, Bits<32>>>,
    pub a_keep: Signal<In, Bits<L>>,
    pub a_commit: Signal<In, bool>,
    pub tr_pred_we: Signal<Out, Bits<L>>,
    pub tr_pred_addr: Signal<Out, Bits<7>>,
    pub tr_pred_data: Signal<Out, Bits<L>>,
    // W: the load words of the memory units (`shmem.rs`'s extraction):
    // per lane, and the row of a return slot (the item's own `rd` row
    // otherwise).
    pub w_ld_en: Vec<Signal<In, bool>>,
    pub w_ld: Vec<Signal<In, Bits<32>>>,
    pub w_ld_row: Signal<In, Bits<AW>>,
    pub w_ld_row_sel: Signal<In, bool>,
    pub tr_rf_we: Signal<Out, Bits<L>>,
    pub tr_rf_addr: Signal<Out, Bits<AW>>,
    pub tr_rf_data: Vec<Signal<Out, Bits<32>>>,

    lanes: Vec<LaneDp<AW>>,
    /// Thread ids `x | y << K | z << 2K`, one LUT-RAM per lane, `W` entries.
    tids: Vec<LutRam<32>>,
    /// Predicates 1..P−1 of each lane, bit `p − 1` of word `w` for warp
    /// `w`, in two LUT-RAMs per lane: `pram_f` read at F (the bank), `pram_a`
    /// read at A (a predicate write rewrites the whole word of its warp in
    /// every lane). Flip-flops (56 per lane at `P` = 8, `W` = 8) with
    /// their write and read selects measured about 85 LUT4 per lane.
    pram_f: Vec<LutRam<8>>,
    pram_a: Vec<LutRam<8>>,
    /// Bit `w`: warp `w`'s words are valid. A block launch clears its
    /// warps' predicates in one cycle (§12.3), which a LUT-RAM cannot: it
    /// clears these bits instead, a warp whose bit is clear reads 0, and
    /// its next predicate write writes every lane's word (0 but for the
    /// written predicate of the `exec` lanes) and sets the bit.
    plive: Reg<Bits<W>>,
    bank_r: Reg<Bits<PB>>,
    // R -> X
    x_pa: Reg<Bits<L>>,
    x_pb: Reg<Bits<L>>,
    x_exec: Reg<Bits<L>>,
    x_pop: Reg<Bits<NPOP>>,
    x_vote: Reg<Bits<NVOTE>>,
    x_setp: Reg<bool>,
    x_pv_cls: Reg<bool>,
    x_pw: Reg<bool>,
    x_pd: Reg<Bits<PRED_IDX_BITS>>,
    x_warp: Reg<Bits<WARP_W>>,
    x_init: Reg<bool>,
    x_link: Reg<Bits<32>>,
    x_islink: Reg<bool>,
    // X -> A
    a_pv: Reg<Bits<L>>,
    a_setp: Reg<bool>,
    a_pw: Reg<bool>,
    a_pd: Reg<Bits<PRED_IDX_BITS>>,
    a_warp: Reg<Bits<WARP_W>>,
    a_exec: Reg<Bits<L>>,
    a_init: Reg<bool>,
    a_link: Reg<Bits<32>>,
    a_islink: Reg<bool>,
    // A -> M -> W
    m_link: Reg<Bits<32>>,
    m_islink: Reg<bool>,
    w_link: Reg<Bits<32>>,
    w_islink: Reg<bool>,
    // Locals.
    c_const: Signal<Local, bool>,
    c_sel: Signal<Local, bool>,
    c_alt: Signal<Local, bool>,
    c_writes: Signal<Local, bool>,
    reg_a: Signal<Local, bool>,
    reg_b: Signal<Local, bool>,
    func_r: Signal<Local, Bits<FUNC_BITS>>,
    mfunc_r: Signal<Local, Bits<MUL_FUNC_BITS>>,
    reg_idx: Signal<Local, Bits<REG_W>>,
    row: Signal<Local, Bits<AW>>,
    z_row_warp: Resize<WARP_W, AW>,
    z_row_reg: Resize<REG_W, AW>,
    slot_r: Signal<Local, Bits<4>>,
    wib_r: Signal<Local, Bits<WARP_W>>,
    ctx: Signal<Local, Bits<32>>,
    cty: Signal<Local, Bits<32>>,
    ctz: Signal<Local, Bits<32>>,
    z_wib: Ext<WARP_W, 32>,
    z_nwarps: Ext<5, 32>,
    su: Signal<Local, Bits<32>>,
    tid_lin: Signal<Local, Bits<32>>,
    sl: Vec<Signal<Local, Bits<32>>>,
    tid_q: Vec<Signal<Local, Bits<32>>>,
    z_ballot: Resize<L, 32>,
    alt: Vec<Signal<Local, Bits<32>>>,
    z_tx: Ext<K, 32>,
    z_ty: Ext<K, 32>,
    z_tz: Ext<K, 32>,
    z_pc: Ext<16, 32>,
    pv: Signal<Local, Bits<L>>,
    vy: Signal<Local, Bits<L>>,
    setp_a: Signal<Local, Bits<L>>,
    pval: Signal<Local, Bits<L>>,
    pwe: Signal<Local, Bits<L>>,
    pwrite: Signal<Local, bool>,
    pmask: Signal<Local, Bits<8>>,
    f_woh: Signal<Local, Bits<W>>,
    a_woh: Signal<Local, Bits<W>>,
    f_live: Signal<Local, bool>,
    a_live: Signal<Local, bool>,
    pold: Vec<Signal<Local, Bits<8>>>,
    pnew: Vec<Signal<Local, Bits<8>>>,
    bank_f: Signal<Local, Bits<PB>>,
    z_pa_warp: Ext<WARP_W, 7>,
    z_pa_pd: Ext<PRED_IDX_BITS, 7>,
    rf_we: Signal<Local, Bits<L>>,
    /// Every lane carries the same write address; the classes this block
    /// does not read (memory, control) are the control path's; F reads
    /// `P − 1` bits of each predicate word.
    unused: Signal<Local, bool>,
    // Constants.
    or_func: Constant<Bits<FUNC_BITS>>,
    s_none: Constant<Bits<3>>,
    sa_reg: Constant<Bits<3>>,
    sa_alt: Constant<Bits<3>>,
    sa_lo: Constant<Bits<3>>,
    sb_none: Constant<Bits<2>>,
    sb_reg: Constant<Bits<2>>,
    sb_imm: Constant<Bits<2>>,
    zf: Constant<Bits<FUNC_BITS>>,
    zm: Constant<Bits<MUL_FUNC_BITS>>,
    z32: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
    zl: Constant<Bits<L>>,
    ones_l: Constant<Bits<L>>,
    zpb: Constant<Bits<PB>>,
    zaw: Constant<Bits<AW>>,
    z7: Constant<Bits<7>>,
    z4: Constant<Bits<4>>,
    zw: Constant<Bits<WARP_W>>,
    rp_shift: Constant<Bits<AW>>,
    /// Bit `p` set for the predicate indices `p < P`.
    p_ok: Constant<Bits<8>>,
    one8: Constant<Bits<8>>,
    pslot_shift: Constant<Bits<7>>,
    vm_any: Constant<Bits<NVOTE>>,
    vm_all: Constant<Bits<NVOTE>>,
    k_mask: Constant<Bits<32>>,
    k_sh1: Constant<Bits<32>>,
    k_sh2: Constant<Bits<32>>,
    lane_shift: Constant<Bits<32>>,
    warp_size: Constant<Bits<32>>,
    lidx: Vec<Constant<Bits<32>>>,
    lbit: Vec<Constant<Bits<L>>>,
    widx: Vec<Constant<Bits<WARP_W>>>,
    woh: Vec<Constant<Bits<W>>>,
    sidx: Vec<Constant<Bits<4>>>,
    pidx: Vec<Constant<Bits<PRED_IDX_BITS>>>,
    poff: Vec<Constant<Bits<32>>>,
    pbit8: Vec<Constant<Bits<8>>>,
    lbit_pb: Vec<Constant<Bits<PB>>>,
    z8: Constant<Bits<8>>,
    zwm: Constant<Bits<W>>,
    _l: usize,
    _w: usize,
    _slots: usize,
    _np: usize,
}

impl<const L: usize, const W: usize, const K: usize, const PB: usize, const AW: usize>
    DataPath<L, W, K, PB, AW>
{
    pub fn new(hw: &HwParams) -> Self {
        fn sig<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| Default::default()).collect()
        }
        assert_eq!(L, hw.lanes, "L");
        assert_eq!(W, hw.warps, "W");
        assert_eq!(PB, (hw.predicates - 1) * L, "PB");
        assert_eq!(1 << AW, hw.rf_rows.next_power_of_two(), "AW");
        assert!(3 * K <= 32 && hw.warps <= 16);
        assert!(L.is_power_of_two());
        // The literal positions of `update`.
        let cls_at = |i: usize, k: Class| assert_eq!(k.bit(), i, "{k:?}");
        cls_at(0, Class::Alu);
        cls_at(1, Class::AluImm);
        cls_at(2, Class::Const);
        cls_at(3, Class::SetP);
        cls_at(4, Class::PLogic);
        cls_at(5, Class::Sel);
        cls_at(6, Class::S2R);
        cls_at(7, Class::LdParam);
        cls_at(14, Class::Call);
        cls_at(15, Class::CallR);
        cls_at(19, Class::Vote);
        use SpecialReg as S;
        let sregs = [
            S::TidX,
            S::TidY,
            S::TidZ,
            S::NtidX,
            S::NtidY,
            S::NtidZ,
            S::CtaidX,
            S::CtaidY,
            S::CtaidZ,
            S::NctaidX,
            S::NctaidY,
            S::NctaidZ,
            S::LaneId,
            S::WarpId,
            S::NWarps,
            S::WarpSize,
            S::ClockLo,
            S::ClockHi,
            S::TidLinear,
        ];
        assert_eq!(SpecialReg::ALL, sregs);
        assert_eq!(PredOp::ALL, [PredOp::And, PredOp::Or, PredOp::Xor]);
        assert_eq!(concord_uarch::widths::PRED_SLOTS, 1 << 3);
        let np = hw.predicates - 1;
        DataPath {
            clock: Default::default(),
            reset: Default::default(),
            clear_warps: Default::default(),
            tid_we: Default::default(),
            tid_lane: Default::default(),
            tid_warp: Default::default(),
            tid_x: Default::default(),
            tid_y: Default::default(),
            tid_z: Default::default(),
            f_warp: Default::default(),
            bank: Default::default(),
            ra_d: Default::default(),
            rb_d: Default::default(),
            r_pass: Default::default(),
            r_init: Default::default(),
            r_init_reg: Default::default(),
            r_warp: Default::default(),
            r_pc: Default::default(),
            cls: Default::default(),
            movhi: Default::default(),
            imm_b: Default::default(),
            alu: Default::default(),
            mul: Default::default(),
            pop: Default::default(),
            vote: Default::default(),
            sreg: Default::default(),
            imm: Default::default(),
            rd: Default::default(),
            wr_rd: Default::default(),
            pd: Default::default(),
            wr_pd: Default::default(),
            exec: Default::default(),
            pa: Default::default(),
            pb: Default::default(),
            block_x: Default::default(),
            block_y: Default::default(),
            block_z: Default::default(),
            grid_x: Default::default(),
            grid_y: Default::default(),
            grid_z: Default::default(),
            ctaid_x: sig(hw.block_slots),
            ctaid_y: sig(hw.block_slots),
            ctaid_z: sig(hw.block_slots),
            wslot: sig(W),
            wib: sig(W),
            nwarps: Default::default(),
            clock_lo: Default::default(),
            clock_hi: Default::default(),
            param: Default::default(),
            a_x: sig(L),
            b_x: sig(L),
            addr_x: sig(L),
            y_a: sig(L),
            a_keep: Default::default(),
            a_commit: Default::default(),
            tr_pred_we: Default::default(),
            tr_pred_addr: Default::default(),
            tr_pred_data: Default::default(),
            w_ld_en: sig(L),
            w_ld: sig(L),
            w_ld_row: Default::default(),
            w_ld_row_sel: Default::default(),
            tr_rf_we: Default::default(),
            tr_rf_addr: Default::default(),
            tr_rf_data: sig(L),
            lanes: (0..L).map(|_| LaneDp::new(hw.rf_rows)).collect(),
            tids: (0..L).map(|_| LutRam::new(3 * K)).collect(),
            pram_f: (0..L).map(|_| LutRam::new(np)).collect(),
            pram_a: (0..L).map(|_| LutRam::new(np)).collect(),
            plive: Default::default(),
            pold: sig(L),
            pnew: sig(L),
            bank_r: Default::default(),
            x_pa: Default::default(),
            x_pb: Default::default(),
            x_exec: Default::default(),
            x_pop: Default::default(),
            x_vote: Default::default(),
            x_setp: Default::default(),
            x_pv_cls: Default::default(),
            x_pw: Default::default(),
            x_pd: Default::default(),
            x_warp: Default::default(),
            x_init: Default::default(),
            x_link: Default::default(),
            x_islink: Default::default(),
            a_pv: Default::default(),
            a_setp: Default::default(),
            a_pw: Default::default(),
            a_pd: Default::default(),
            a_warp: Default::default(),
            a_exec: Default::default(),
            a_init: Default::default(),
            a_link: Default::default(),
            a_islink: Default::default(),
            m_link: Default::default(),
            m_islink: Default::default(),
            w_link: Default::default(),
            w_islink: Default::default(),
            c_const: Default::default(),
            c_sel: Default::default(),
            c_alt: Default::default(),
            c_writes: Default::default(),
            reg_a: Default::default(),
            reg_b: Default::default(),
            func_r: Default::default(),
            mfunc_r: Default::default(),
            reg_idx: Default::default(),
            row: Default::default(),
            z_row_warp: Default::default(),
            z_row_reg: Default::default(),
            slot_r: Default::default(),
            wib_r: Default::default(),
            ctx: Default::default(),
            cty: Default::default(),
            ctz: Default::default(),
            z_wib: Default::default(),
            z_nwarps: Default::default(),
            su: Default::default(),
            tid_lin: Default::default(),
            sl: sig(L),
            tid_q: sig(L),
            z_ballot: Default::default(),
            alt: sig(L),
            z_tx: Default::default(),
            z_ty: Default::default(),
            z_tz: Default::default(),
            z_pc: Default::default(),
            pv: Default::default(),
            vy: Default::default(),
            setp_a: Default::default(),
            pval: Default::default(),
            pwe: Default::default(),
            pwrite: Default::default(),
            pmask: Default::default(),
            f_woh: Default::default(),
            a_woh: Default::default(),
            f_live: Default::default(),
            a_live: Default::default(),
            bank_f: Default::default(),
            z_pa_warp: Default::default(),
            z_pa_pd: Default::default(),
            rf_we: Default::default(),
            unused: Default::default(),
            or_func: c(AluFunc::Alu(AluOp::Or).onehot() as u64),
            s_none: c(0),
            sa_reg: c(1),
            sa_alt: c(2),
            sa_lo: c(4),
            sb_none: c(0),
            sb_reg: c(1),
            sb_imm: c(2),
            zf: c(0),
            zm: c(0),
            z32: c(0),
            one32: c(1),
            zl: c(0),
            ones_l: Constant::new(Bits::<L>::mask()),
            zpb: c(0),
            zaw: c(0),
            z7: c(0),
            z4: c(0),
            zw: c(0),
            rp_shift: c(hw.rf_rows_per_warp.trailing_zeros() as u64),
            p_ok: c((1u64 << hw.predicates) - 1),
            one8: c(1),
            pslot_shift: c(3),
            vm_any: c(1 << VOTE_ANY),
            vm_all: c(1 << VOTE_ALL),
            k_mask: c((1u64 << K) - 1),
            k_sh1: c(K as u64),
            k_sh2: c(2 * K as u64),
            lane_shift: c(L.trailing_zeros() as u64),
            warp_size: c(L as u64),
            lidx: (0..L).map(|l| c(l as u64)).collect(),
            lbit: (0..L).map(|l| c(1u64 << l)).collect(),
            widx: (0..W).map(|w| c(w as u64)).collect(),
            woh: (0..W).map(|w| c(1u64 << w)).collect(),
            sidx: (0..hw.block_slots).map(|k| c(k as u64)).collect(),
            pidx: (0..np).map(|k| c((k + 1) as u64)).collect(),
            poff: (0..np).map(|k| c((k * L) as u64)).collect(),
            pbit8: (0..np).map(|k| c(1u64 << k)).collect(),
            lbit_pb: (0..L).map(|l| c(1u64 << l)).collect(),
            z8: c(0),
            zwm: c(0),
            _l: L,
            _w: W,
            _slots: hw.block_slots,
            _np: np,
        }
    }
}

impl<const L: usize, const W: usize, const K: usize, const PB: usize, const AW: usize> Logic
    for DataPath<L, W, K, PB, AW>
{
    #[hdl_gen]
    fn update(&mut self) {
        for l in 0..self._l {
            self.lanes[l].clock.next = self.clock.val();
            self.lanes[l].reset.next = self.reset.val();
            self.tids[l].clock.next = self.clock.val();
        }
        for l in 0..self._l {
            self.pram_f[l].clock.next = self.clock.val();
            self.pram_a[l].clock.next = self.clock.val();
        }
        self.plive.clock.next = self.clock.val();
        self.plive.reset.next = self.reset.val();
        self.bank_r.clock.next = self.clock.val();
        self.bank_r.reset.next = self.reset.val();
        self.x_pa.clock.next = self.clock.val();
        self.x_pa.reset.next = self.reset.val();
        self.x_pb.clock.next = self.clock.val();
        self.x_pb.reset.next = self.reset.val();
        self.x_exec.clock.next = self.clock.val();
        self.x_exec.reset.next = self.reset.val();
        self.x_pop.clock.next = self.clock.val();
        self.x_pop.reset.next = self.reset.val();
        self.x_vote.clock.next = self.clock.val();
        self.x_vote.reset.next = self.reset.val();
        self.x_setp.clock.next = self.clock.val();
        self.x_setp.reset.next = self.reset.val();
        self.x_pv_cls.clock.next = self.clock.val();
        self.x_pv_cls.reset.next = self.reset.val();
        self.x_pw.clock.next = self.clock.val();
        self.x_pw.reset.next = self.reset.val();
        self.x_pd.clock.next = self.clock.val();
        self.x_pd.reset.next = self.reset.val();
        self.x_warp.clock.next = self.clock.val();
        self.x_warp.reset.next = self.reset.val();
        self.x_init.clock.next = self.clock.val();
        self.x_init.reset.next = self.reset.val();
        self.x_link.clock.next = self.clock.val();
        self.x_link.reset.next = self.reset.val();
        self.x_islink.clock.next = self.clock.val();
        self.x_islink.reset.next = self.reset.val();
        self.a_pv.clock.next = self.clock.val();
        self.a_pv.reset.next = self.reset.val();
        self.a_setp.clock.next = self.clock.val();
        self.a_setp.reset.next = self.reset.val();
        self.a_pw.clock.next = self.clock.val();
        self.a_pw.reset.next = self.reset.val();
        self.a_pd.clock.next = self.clock.val();
        self.a_pd.reset.next = self.reset.val();
        self.a_warp.clock.next = self.clock.val();
        self.a_warp.reset.next = self.reset.val();
        self.a_exec.clock.next = self.clock.val();
        self.a_exec.reset.next = self.reset.val();
        self.a_init.clock.next = self.clock.val();
        self.a_init.reset.next = self.reset.val();
        self.a_link.clock.next = self.clock.val();
        self.a_link.reset.next = self.reset.val();
        self.a_islink.clock.next = self.clock.val();
        self.a_islink.reset.next = self.reset.val();
        self.m_link.clock.next = self.clock.val();
        self.m_link.reset.next = self.reset.val();
        self.m_islink.clock.next = self.clock.val();
        self.m_islink.reset.next = self.reset.val();
        self.w_link.clock.next = self.clock.val();
        self.w_link.reset.next = self.reset.val();
        self.w_islink.clock.next = self.clock.val();
        self.w_islink.reset.next = self.reset.val();

        // ---- F: the warp's predicate bank, registered for D ----
        self.f_woh.next = self.zwm.val();
        for w in 0..self._w {
            if self.f_warp.val() == self.widx[w].val() {
                self.f_woh.next = self.f_woh.val() | self.woh[w].val();
            }
        }
        self.f_live.next = (self.plive.q.val() & self.f_woh.val()).any();
        self.bank_f.next = self.zpb.val();
        for l in 0..self._l {
            self.pram_f[l].raddr.next = self.f_warp.val();
            for p in 0..self._np {
                if self.f_live.val() & self.pram_f[l].rdata.val().get_bit(p) {
                    self.bank_f.next =
                        self.bank_f.val() | (self.lbit_pb[l].val() << self.poff[p].val());
                }
            }
        }
        self.bank_r.d.next = self.bank_f.val();
        self.bank.next = self.bank_r.q.val();

        // ---- R: classes (a warp pass only: the word at D is decoded for
        // every item) ----
        self.c_const.next = self.r_pass.val() & self.cls.val().get_bit(2);
        self.c_sel.next = self.r_pass.val() & self.cls.val().get_bit(5);
        // Operand A from `alt`: `s2r`, `ldparam`, `vote.ballot`.
        self.c_alt.next = self.r_pass.val()
            & (self.cls.val().get_bit(6) | self.cls.val().get_bit(7) | self.cls.val().get_bit(19));
        // Classes whose `rd` is written at W (loads and atomics come with
        // the memory path).
        self.c_writes.next = self.r_pass.val()
            & self.wr_rd.val()
            & (self.cls.val().get_bit(0)
                | self.cls.val().get_bit(1)
                | self.cls.val().get_bit(2)
                | self.cls.val().get_bit(5)
                | self.cls.val().get_bit(6)
                | self.cls.val().get_bit(7)
                | self.cls.val().get_bit(14)
                | self.cls.val().get_bit(15)
                | self.cls.val().get_bit(19));
        self.reg_a.next =
            self.r_pass.val() & !self.c_const.val() & !self.c_sel.val() & !self.c_alt.val();
        self.reg_b.next = self.r_pass.val()
            & !self.imm_b.val()
            & !self.c_const.val()
            & !self.c_sel.val()
            & !self.c_alt.val();
        // The result of a constant, `sel`, `s2r`, `ldparam` or ballot is
        // `a | b` with the other operand 0; an init slot's is `0 | 0`.
        self.func_r.next = self.zf.val();
        self.mfunc_r.next = self.zm.val();
        if self.r_pass.val() {
            self.func_r.next = self.alu.val();
            self.mfunc_r.next = self.mul.val();
        }
        if self.c_const.val() | self.c_sel.val() | self.c_alt.val() | self.r_init.val() {
            self.func_r.next = self.or_func.val();
        }
        self.reg_idx.next = self.rd.val();
        if self.r_init.val() {
            self.reg_idx.next = self.r_init_reg.val();
        }
        self.z_row_warp.i.next = self.r_warp.val();
        self.z_row_reg.i.next = self.reg_idx.val();
        self.row.next = (self.z_row_warp.o.val() << self.rp_shift.val()) | self.z_row_reg.o.val();

        // ---- R: special registers (§12.4) ----
        self.slot_r.next = self.z4.val();
        self.wib_r.next = self.zw.val();
        for w in 0..self._w {
            if self.r_warp.val() == self.widx[w].val() {
                self.slot_r.next = self.slot_r.val() | self.wslot[w].val();
                self.wib_r.next = self.wib_r.val() | self.wib[w].val();
            }
        }
        self.ctx.next = self.z32.val();
        self.cty.next = self.z32.val();
        self.ctz.next = self.z32.val();
        for k in 0..self._slots {
            if self.slot_r.val() == self.sidx[k].val() {
                self.ctx.next = self.ctx.val() | self.ctaid_x[k].val();
                self.cty.next = self.cty.val() | self.ctaid_y[k].val();
                self.ctz.next = self.ctz.val() | self.ctaid_z[k].val();
            }
        }
        self.z_wib.i.next = self.wib_r.val();
        self.z_nwarps.i.next = self.nwarps.val();
        self.tid_lin.next = self.z_wib.o.val() << self.lane_shift.val();
        // The warp-uniform registers, one-hot by `sreg`.
        self.su.next = self.z32.val();
        if self.sreg.val().get_bit(3) {
            self.su.next = self.su.val() | self.block_x.val();
        }
        if self.sreg.val().get_bit(4) {
            self.su.next = self.su.val() | self.block_y.val();
        }
        if self.sreg.val().get_bit(5) {
            self.su.next = self.su.val() | self.block_z.val();
        }
        if self.sreg.val().get_bit(6) {
            self.su.next = self.su.val() | self.ctx.val();
        }
        if self.sreg.val().get_bit(7) {
            self.su.next = self.su.val() | self.cty.val();
        }
        if self.sreg.val().get_bit(8) {
            self.su.next = self.su.val() | self.ctz.val();
        }
        if self.sreg.val().get_bit(9) {
            self.su.next = self.su.val() | self.grid_x.val();
        }
        if self.sreg.val().get_bit(10) {
            self.su.next = self.su.val() | self.grid_y.val();
        }
        if self.sreg.val().get_bit(11) {
            self.su.next = self.su.val() | self.grid_z.val();
        }
        if self.sreg.val().get_bit(13) {
            self.su.next = self.su.val() | self.z_wib.o.val();
        }
        if self.sreg.val().get_bit(14) {
            self.su.next = self.su.val() | self.z_nwarps.o.val();
        }
        if self.sreg.val().get_bit(15) {
            self.su.next = self.su.val() | self.warp_size.val();
        }
        if self.sreg.val().get_bit(16) {
            self.su.next = self.su.val() | self.clock_lo.val();
        }
        if self.sreg.val().get_bit(17) {
            self.su.next = self.su.val() | self.clock_hi.val();
        }
        // The ballot mask: `exec & pb`, the same word in every lane.
        self.z_ballot.i.next = self.exec.val() & self.pb.val();

        // ---- the thread-id LUT-RAM (§5.2): the launch walk writes, R reads ----
        self.z_tx.i.next = self.tid_x.val();
        self.z_ty.i.next = self.tid_y.val();
        self.z_tz.i.next = self.tid_z.val();
        for l in 0..self._l {
            self.tids[l].we.next =
                self.tid_we.val() & (self.tid_lane.val() & self.lbit[l].val()).any();
            self.tids[l].waddr.next = self.tid_warp.val();
            self.tids[l].wdata.next = self.z_tx.o.val()
                | (self.z_ty.o.val() << self.k_sh1.val())
                | (self.z_tz.o.val() << self.k_sh2.val());
            self.tids[l].raddr.next = self.r_warp.val();
            self.tid_q[l].next = self.tids[l].rdata.val();
        }

        // ---- R: per lane operands and write control ----
        self.z_pc.i.next = self.r_pc.val();
        for l in 0..self._l {
            self.sl[l].next = self.su.val();
            if self.sreg.val().get_bit(0) {
                self.sl[l].next = self.sl[l].val() | (self.tid_q[l].val() & self.k_mask.val());
            }
            if self.sreg.val().get_bit(1) {
                self.sl[l].next = self.sl[l].val()
                    | ((self.tid_q[l].val() >> self.k_sh1.val()) & self.k_mask.val());
            }
            if self.sreg.val().get_bit(2) {
                self.sl[l].next = self.sl[l].val()
                    | ((self.tid_q[l].val() >> self.k_sh2.val()) & self.k_mask.val());
            }
            if self.sreg.val().get_bit(12) {
                self.sl[l].next = self.sl[l].val() | self.lidx[l].val();
            }
            if self.sreg.val().get_bit(18) {
                self.sl[l].next = self.sl[l].val() | self.tid_lin.val() | self.lidx[l].val();
            }
            self.alt[l].next = self.z32.val();
            if self.cls.val().get_bit(6) {
                self.alt[l].next = self.alt[l].val() | self.sl[l].val();
            }
            if self.cls.val().get_bit(7) {
                self.alt[l].next = self.alt[l].val() | self.param.val();
            }
            if self.cls.val().get_bit(19) {
                self.alt[l].next = self.alt[l].val() | self.z_ballot.o.val();
            }
            self.lanes[l].ra.next = self.ra_d.val();
            self.lanes[l].rb.next = self.rb_d.val();
            self.lanes[l].sel_a.next = self.s_none.val();
            if self.reg_a.val() | (self.c_sel.val() & (self.pb.val() & self.lbit[l].val()).any()) {
                self.lanes[l].sel_a.next = self.sa_reg.val();
            }
            if self.c_alt.val() {
                self.lanes[l].sel_a.next = self.sa_alt.val();
            }
            if self.c_const.val() & self.movhi.val() {
                self.lanes[l].sel_a.next = self.sa_lo.val();
            }
            self.lanes[l].alt_a.next = self.alt[l].val();
            self.lanes[l].sel_b.next = self.sb_none.val();
            if self.reg_b.val() | (self.c_sel.val() & !(self.pb.val() & self.lbit[l].val()).any()) {
                self.lanes[l].sel_b.next = self.sb_reg.val();
            }
            if self.r_pass.val() & (self.imm_b.val() | self.c_const.val()) {
                self.lanes[l].sel_b.next = self.sb_imm.val();
            }
            self.lanes[l].imm.next = self.imm.val();
            self.lanes[l].func.next = self.func_r.val();
            self.lanes[l].mfunc.next = self.mfunc_r.val();
            self.lanes[l].wen.next = self.r_init.val()
                | (self.c_writes.val() & (self.exec.val() & self.lbit[l].val()).any());
            self.lanes[l].wa.next = self.row.val();
            // X: to the control path.
            self.a_x[l].next = self.lanes[l].a_x.val();
            self.b_x[l].next = self.lanes[l].b_x.val();
            self.addr_x[l].next = self.lanes[l].addr_x.val();
            self.y_a[l].next = self.lanes[l].y_a.val();
            // A: the commit's write mask (init slots write every lane).
            self.lanes[l].drop_a.next = !(self.a_init.q.val()
                | (self.a_commit.val() & (self.a_keep.val() & self.lbit[l].val()).any()));
            // W: the link value of `call`/`callr`.
            self.lanes[l].alt_w.next = self.w_link.q.val();
            self.lanes[l].sel_alt_w.next = self.w_islink.q.val();
            self.lanes[l].ld_en.next = self.w_ld_en[l].val();
            self.lanes[l].ld_d.next = self.w_ld[l].val();
            self.lanes[l].ld_wa.next = self.w_ld_row.val();
            self.lanes[l].ld_wa_sel.next = self.w_ld_row_sel.val();
        }

        // ---- R -> X ----
        self.x_pa.d.next = self.pa.val();
        self.x_pb.d.next = self.pb.val();
        self.x_exec.d.next = self.exec.val();
        self.x_pop.d.next = self.pop.val();
        self.x_vote.d.next = self.vote.val();
        self.x_setp.d.next = self.r_pass.val() & self.cls.val().get_bit(3);
        self.x_pv_cls.d.next =
            self.r_pass.val() & (self.cls.val().get_bit(4) | self.cls.val().get_bit(19));
        // `wr_pd` excludes `pt`; an index at or above `P` writes nothing
        // (the cycle model's `write_pred`).
        self.x_pw.d.next = self.r_pass.val()
            & self.wr_pd.val()
            & ((self.p_ok.val() >> self.pd.val()) & self.one8.val()).any();
        self.x_pd.d.next = self.pd.val();
        self.x_warp.d.next = self.r_warp.val();
        self.x_init.d.next = self.r_init.val();
        // The link is 0 unless the pass is a `call`/`callr`: every lane's
        // write data ORs it in (`LaneDp`), so it is gated here once.
        self.x_islink.d.next =
            self.r_pass.val() & (self.cls.val().get_bit(14) | self.cls.val().get_bit(15));
        self.x_link.d.next = self.z32.val();
        if self.r_pass.val() & (self.cls.val().get_bit(14) | self.cls.val().get_bit(15)) {
            self.x_link.d.next = self.z_pc.o.val() + self.one32.val();
        }

        // ---- X: predicate logic and votes (§8) ----
        self.vy.next = self.x_exec.q.val() & self.x_pb.q.val();
        self.pv.next = self.zl.val();
        if self.x_pop.q.val().get_bit(0) {
            self.pv.next = self.pv.val() | (self.x_pa.q.val() & self.x_pb.q.val());
        }
        if self.x_pop.q.val().get_bit(1) {
            self.pv.next = self.pv.val() | self.x_pa.q.val() | self.x_pb.q.val();
        }
        if self.x_pop.q.val().get_bit(2) {
            self.pv.next = self.pv.val() | (self.x_pa.q.val() ^ self.x_pb.q.val());
        }
        if (self.x_vote.q.val() & self.vm_any.val()).any() & self.vy.val().any() {
            self.pv.next = self.pv.val() | self.ones_l.val();
        }
        if (self.x_vote.q.val() & self.vm_all.val()).any() & (self.vy.val() == self.x_exec.q.val())
        {
            self.pv.next = self.pv.val() | self.ones_l.val();
        }
        if !self.x_pv_cls.q.val() {
            self.pv.next = self.zl.val();
        }
        self.a_pv.d.next = self.pv.val();
        self.a_setp.d.next = self.x_setp.q.val();
        self.a_pw.d.next = self.x_pw.q.val();
        self.a_pd.d.next = self.x_pd.q.val();
        self.a_warp.d.next = self.x_warp.q.val();
        self.a_exec.d.next = self.x_exec.q.val();
        self.a_init.d.next = self.x_init.q.val();
        self.a_link.d.next = self.x_link.q.val();
        self.a_islink.d.next = self.x_islink.q.val();
        self.m_link.d.next = self.a_link.q.val();
        self.m_islink.d.next = self.a_islink.q.val();
        self.w_link.d.next = self.m_link.q.val();
        self.w_islink.d.next = self.m_islink.q.val();

        // ---- A: the predicate write (§11), at the end of A ----
        self.setp_a.next = self.zl.val();
        for l in 0..self._l {
            if self.lanes[l].pred_a.val() {
                self.setp_a.next = self.setp_a.val() | self.lbit[l].val();
            }
        }
        self.pval.next = self.a_pv.q.val();
        if self.a_setp.q.val() {
            self.pval.next = self.setp_a.val();
        }
        self.pwrite.next = self.a_pw.q.val() & self.a_commit.val();
        self.pwe.next = self.zl.val();
        if self.pwrite.val() {
            self.pwe.next = self.a_exec.q.val();
        }
        self.pmask.next = self.z8.val();
        for p in 0..self._np {
            if self.a_pd.q.val() == self.pidx[p].val() {
                self.pmask.next = self.pmask.val() | self.pbit8[p].val();
            }
        }
        self.a_woh.next = self.zwm.val();
        for w in 0..self._w {
            if self.a_warp.q.val() == self.widx[w].val() {
                self.a_woh.next = self.a_woh.val() | self.woh[w].val();
            }
        }
        self.a_live.next = (self.plive.q.val() & self.a_woh.val()).any();
        for l in 0..self._l {
            self.pram_a[l].raddr.next = self.a_warp.q.val();
            self.pold[l].next = self.z8.val();
            if self.a_live.val() {
                self.pold[l].next = self.pram_a[l].rdata.val();
            }
            self.pnew[l].next = self.pold[l].val();
            if (self.pwe.val() & self.lbit[l].val()).any() {
                self.pnew[l].next = self.pold[l].val() & !self.pmask.val();
                if (self.pval.val() & self.lbit[l].val()).any() {
                    self.pnew[l].next = self.pnew[l].val() | self.pmask.val();
                }
            }
            self.pram_f[l].we.next = self.pwrite.val();
            self.pram_f[l].waddr.next = self.a_warp.q.val();
            self.pram_f[l].wdata.next = self.pnew[l].val();
            self.pram_a[l].we.next = self.pwrite.val();
            self.pram_a[l].waddr.next = self.a_warp.q.val();
            self.pram_a[l].wdata.next = self.pnew[l].val();
        }
        // A block launch clears its warps' predicates (§12.3), after a
        // write of the same cycle.
        self.plive.d.next = self.plive.q.val() & !self.clear_warps.val();
        if self.pwrite.val() {
            self.plive.d.next = (self.plive.q.val() | self.a_woh.val()) & !self.clear_warps.val();
        }
        self.z_pa_warp.i.next = self.a_warp.q.val();
        self.z_pa_pd.i.next = self.a_pd.q.val();
        self.tr_pred_we.next = self.pwe.val();
        self.tr_pred_data.next = self.pval.val() & self.pwe.val();
        self.tr_pred_addr.next = self.z7.val();
        if self.pwrite.val() {
            self.tr_pred_addr.next =
                (self.z_pa_warp.o.val() << self.pslot_shift.val()) | self.z_pa_pd.o.val();
        }

        // ---- W: the register-file write, traced ----
        self.rf_we.next = self.zl.val();
        for l in 0..self._l {
            self.tr_rf_data[l].next = self.z32.val();
            if self.lanes[l].w_en.val() {
                self.rf_we.next = self.rf_we.val() | self.lbit[l].val();
                self.tr_rf_data[l].next = self.lanes[l].w_data.val();
            }
        }
        self.tr_rf_we.next = self.rf_we.val();
        self.tr_rf_addr.next = self.zaw.val();
        if self.rf_we.val().any() {
            self.tr_rf_addr.next = self.lanes[0].w_addr.val();
        }
        self.unused.next = self.cls.val().any();
        for l in 0..self._l {
            // F reads predicates 1..P−1 of the 8-bit word; the bits above
            // are 0.
            self.unused.next = self.unused.val()
                | self.lanes[l].w_addr.val().any()
                | self.pram_f[l].rdata.val().any();
        }
    }
}
