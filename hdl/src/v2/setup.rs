//! The SETUP computation of Core v2 (docs/microarchitecture.md §12.1,
//! §12.2): the launch-wide values and the refusal rules, in
//! `SETUP_CYCLES = 8` cycles, with no divider.
//!
//! ```text
//! threads     = BLOCK_X · BLOCK_Y · BLOCK_Z      (saturating at 2^16)
//! nwarps      = ceil(threads / L)                (L a power of two: a shift)
//! need_rows   = ceil(SHARED_BYTES / (4·B))       (4·B a power of two: a shift)
//! limit       = min(BS, floor(W / nwarps)), 1 if STACK_BYTES > 0
//! resident    = the largest r in 1..=limit with need_rows ≤ ROWS >> ceil(log2 r)
//! window_rows = ROWS >> ceil(log2 resident)
//! clear_rows  = min(ceil(CLEAR_SHARED / (4·B)), window_rows)
//! clear_regs  = min(CLEAR_REGS, R)
//! ```
//!
//! * The product uses one 16×16 multiplier twice (`BLOCK_X · BLOCK_Y`, then
//!   that · `BLOCK_Z`): a dimension of 2^16 or more, or a first product of
//!   2^16 or more, saturates (unless a dimension is 0).
//! * `floor(W / nwarps)` and `ceil(log2 r)` become constants per candidate
//!   `r` (computed by the generator): `r ≤ floor(W / nwarps)` ⇔ `nwarps ≤
//!   floor(W / r)`, and `need_rows ≤ ROWS >> ceil(log2 r)`. Both tests are
//!   monotone in `r`, so the candidates that pass form a thermometer code;
//!   its top bit (one-hot by `t & !(t >> 1)`) selects `limit`, `resident`
//!   and `window_rows` by AND-OR over constants.
//! * Compares with powers of two (`need_rows ≤ ROWS >> ceil(log2 r)` is
//!   `SHARED_BYTES ≤ (ROWS >> ceil(log2 r))·4B`; `CODE_LEN > I`,
//!   `PARAM_COUNT > 16`, `ENTRY_PC ≥ 65536`; the window against
//!   `CLEAR_SHARED`) are mask tests (`x > 2^k` ⇔ a bit above `k` is set, or
//!   bit `k` and a bit below it), not carry chains.
//! * `nwarps` saturates at 31 (a refused launch of more than `31·L`
//!   threads; the `LAUNCH` register's field has 5 bits).
//! * Refused (§12.1): `threads` 0 or above `L · W`, a grid dimension 0,
//!   `need_rows > ROWS`, `CODE_LEN` 0 or above `I`, `ENTRY_PC ≥ 65536`,
//!   `PARAM_COUNT > 16`.
//!
//! Timing: `start` is the cycle *c* in which the host's `CTRL.START` is
//! accepted; SETUP is *c + 1 … c + 8* (`busy`); `done` is 1 in *c + 8*, the
//! last SETUP cycle, when every output is valid (the core leaves SETUP at
//! its end: `IDLE` if `refused`, else `RUN`). The launch registers are
//! inputs and must not change from *c* on (the host slave drops their writes
//! while the core runs); the registers after the multiplier recompute every
//! cycle from their inputs, so the outputs stay valid while those are
//! unchanged.

use concord_uarch::HwParams;
use rust_hdl_core::prelude::*;

use crate::util::Reg;

/// `threads` (up to 2^16).
pub const THREADS_BITS: usize = 17;
/// `nwarps`, `limit`, `resident` (up to 16).
pub const COUNT_BITS: usize = 5;
/// `clear_regs` (up to 32).
pub const CLEAR_REGS_BITS: usize = 6;
/// Shared-row quantities (`need_rows`, `window_rows`, `clear_rows`).
pub const ROW_BITS: usize = 32;

/// `p = a · b`, 16 × 16 → 32 bits (one `MULT18X18D` on ECP5). Custom
/// Verilog: rust-hdl's `*` is typed 16 × 16 → 32 but `#[hdl_gen]` emits it
/// with the operands' width.
#[derive(LogicBlock, Default)]
pub struct Mul16 {
    pub a: Signal<In, Bits<16>>,
    pub b: Signal<In, Bits<16>>,
    pub p: Signal<Out, Bits<32>>,
}

impl Logic for Mul16 {
    fn update(&mut self) {
        self.p.next = self.a.val() * self.b.val();
    }

    fn connect(&mut self) {
        self.p.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom("always @(*) p = {16'h0, a} * {16'h0, b};\n".into())
    }
}

/// The SETUP block of a core (`HwParams`: `L`, `W`, `R`, `I`, `BS`, `B`,
/// `ROWS`).
#[derive(LogicBlock)]
pub struct Setup {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    /// `CTRL.START` accepted in this cycle; SETUP follows.
    pub start: Signal<In, bool>,
    /// Launch registers (§14.4).
    pub block_x: Signal<In, Bits<32>>,
    pub block_y: Signal<In, Bits<32>>,
    pub block_z: Signal<In, Bits<32>>,
    pub grid_x: Signal<In, Bits<32>>,
    pub grid_y: Signal<In, Bits<32>>,
    pub grid_z: Signal<In, Bits<32>>,
    pub shared_bytes: Signal<In, Bits<32>>,
    pub stack_bytes: Signal<In, Bits<32>>,
    pub clear_regs_in: Signal<In, Bits<32>>,
    pub clear_shared: Signal<In, Bits<32>>,
    pub code_len: Signal<In, Bits<32>>,
    pub entry_pc: Signal<In, Bits<32>>,
    pub param_count: Signal<In, Bits<32>>,
    /// In SETUP (the 8 cycles after `start`).
    pub busy: Signal<Out, bool>,
    /// The last SETUP cycle: the outputs are valid.
    pub done: Signal<Out, bool>,
    pub refused: Signal<Out, bool>,
    pub threads: Signal<Out, Bits<THREADS_BITS>>,
    pub nwarps: Signal<Out, Bits<COUNT_BITS>>,
    pub need_rows: Signal<Out, Bits<ROW_BITS>>,
    pub limit: Signal<Out, Bits<COUNT_BITS>>,
    pub resident: Signal<Out, Bits<COUNT_BITS>>,
    pub window_rows: Signal<Out, Bits<ROW_BITS>>,
    pub clear_rows: Signal<Out, Bits<ROW_BITS>>,
    pub clear_regs: Signal<Out, Bits<CLEAR_REGS_BITS>>,
    mul: Mul16,
    sr: Reg<Bits<8>>,
    p_q: Reg<Bits<32>>,
    p1big_q: Reg<bool>,
    thr_q: Reg<Bits<THREADS_BITS>>,
    thr_bad_q: Reg<bool>,
    nw_q: Reg<Bits<COUNT_BITS>>,
    need_q: Reg<Bits<ROW_BITS>>,
    need_bad_q: Reg<bool>,
    lim_t_q: Reg<Bits<16>>,
    res_t_q: Reg<Bits<16>>,
    limit_q: Reg<Bits<COUNT_BITS>>,
    res_q: Reg<Bits<COUNT_BITS>>,
    win_q: Reg<Bits<ROW_BITS>>,
    crow_q: Reg<Bits<ROW_BITS>>,
    creg_q: Reg<Bits<CLEAR_REGS_BITS>>,
    refused_q: Reg<bool>,
    // Constants.
    one8: Constant<Bits<8>>,
    nw_hi: Constant<Bits<THREADS_BITS>>,
    nw_max: Constant<Bits<COUNT_BITS>>,
    hi16: Constant<Bits<32>>,
    hi6: Constant<Bits<32>>,
    sat: Constant<Bits<THREADS_BITS>>,
    lm1: Constant<Bits<THREADS_BITS>>,
    lshift: Constant<Bits<8>>,
    lw: Constant<Bits<THREADS_BITS>>,
    rshift: Constant<Bits<8>>,
    rmask: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
    zero_thr: Constant<Bits<THREADS_BITS>>,
    regs: Constant<Bits<CLEAR_REGS_BITS>>,
    // `x > 2^k` is `(x & hi).any() | ((x & bit).any() & (x & lo).any())`:
    // SHARED_BYTES > ROWS·4B, CODE_LEN > I, PARAM_COUNT > 16.
    nb_hi: Constant<Bits<32>>,
    nb_bit: Constant<Bits<32>>,
    nb_lo: Constant<Bits<32>>,
    cl_hi: Constant<Bits<32>>,
    cl_bit: Constant<Bits<32>>,
    cl_lo: Constant<Bits<32>>,
    pc_hi: Constant<Bits<32>>,
    pc_bit: Constant<Bits<32>>,
    pc_lo: Constant<Bits<32>>,
    // Per candidate: bytes > (ROWS >> ceil(log2 r)) · 4B.
    g_hi: Vec<Constant<Bits<32>>>,
    g_bit: Vec<Constant<Bits<32>>>,
    g_lo: Vec<Constant<Bits<32>>>,
    zero16: Constant<Bits<16>>,
    zero5: Constant<Bits<COUNT_BITS>>,
    zero_rows: Constant<Bits<ROW_BITS>>,
    // Per candidate r = i + 1: its bit, floor(W / r), ROWS >> ceil(log2 r), r.
    tbit: Vec<Constant<Bits<16>>>,
    wdiv: Vec<Constant<Bits<COUNT_BITS>>>,
    rows_r: Vec<Constant<Bits<ROW_BITS>>>,
    rval: Vec<Constant<Bits<COUNT_BITS>>>,
    // Locals.
    zero_dim: Signal<Local, bool>,
    big_dim: Signal<Local, bool>,
    thr_next: Signal<Local, Bits<THREADS_BITS>>,
    nw_sum: Signal<Local, Bits<THREADS_BITS>>,
    stack: Signal<Local, bool>,
    lim_t: Signal<Local, Bits<16>>,
    res_t: Signal<Local, Bits<16>>,
    lim_oh: Signal<Local, Bits<16>>,
    res_oh: Signal<Local, Bits<16>>,
    lim_n: Signal<Local, Bits<COUNT_BITS>>,
    res_n: Signal<Local, Bits<COUNT_BITS>>,
    win_n: Signal<Local, Bits<ROW_BITS>>,
    cs_rows: Signal<Local, Bits<ROW_BITS>>,
    fit: Signal<Local, bool>,
    cs_over: Signal<Local, bool>,
    _bs: usize,
}

/// The masks `(hi, bit, lo)` that test a 32-bit `x > v` for `v` a power
/// of two (`None`: `x > 0`), without a carry chain.
fn gt_pow2(v: Option<usize>) -> (u64, u64, u64) {
    match v {
        None => (0xFFFF_FFFF, 0, 0),
        Some(v) => {
            assert!(v.is_power_of_two() && v < 1 << 31);
            (0xFFFF_FFFF & !(2 * v as u64 - 1), v as u64, v as u64 - 1)
        }
    }
}

fn ceil_log2(x: usize) -> u32 {
    x.next_power_of_two().trailing_zeros()
}

impl Setup {
    pub fn new(hw: &HwParams) -> Setup {
        let l = hw.lanes;
        let w = hw.warps;
        let bs = hw.block_slots;
        let rows = hw.shared_rows;
        let row_bytes = 4 * hw.shared_banks;
        assert!(l.is_power_of_two() && row_bytes.is_power_of_two() && rows.is_power_of_two());
        assert!((1..=16).contains(&w) && (1..=w).contains(&bs) && l * w < 1 << 16);
        // The bytes of a window of r = i + 1 blocks (None: no row).
        let window = |i: usize| {
            let r = rows >> ceil_log2(i + 1);
            (r > 0).then_some(r * row_bytes)
        };
        fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
            Constant::new(v.into())
        }
        Setup {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            block_x: Default::default(),
            block_y: Default::default(),
            block_z: Default::default(),
            grid_x: Default::default(),
            grid_y: Default::default(),
            grid_z: Default::default(),
            shared_bytes: Default::default(),
            stack_bytes: Default::default(),
            clear_regs_in: Default::default(),
            clear_shared: Default::default(),
            code_len: Default::default(),
            entry_pc: Default::default(),
            param_count: Default::default(),
            busy: Default::default(),
            done: Default::default(),
            refused: Default::default(),
            threads: Default::default(),
            nwarps: Default::default(),
            need_rows: Default::default(),
            limit: Default::default(),
            resident: Default::default(),
            window_rows: Default::default(),
            clear_rows: Default::default(),
            clear_regs: Default::default(),
            mul: Default::default(),
            sr: Default::default(),
            p_q: Default::default(),
            p1big_q: Default::default(),
            thr_q: Default::default(),
            thr_bad_q: Default::default(),
            nw_q: Default::default(),
            need_q: Default::default(),
            need_bad_q: Default::default(),
            lim_t_q: Default::default(),
            res_t_q: Default::default(),
            limit_q: Default::default(),
            res_q: Default::default(),
            win_q: Default::default(),
            crow_q: Default::default(),
            creg_q: Default::default(),
            refused_q: Default::default(),
            one8: k(1),
            nw_hi: k(0x1_ffff & !31),
            nw_max: k(31),
            hi16: k(0xFFFF_0000),
            hi6: k(0xFFFF_FFC0),
            sat: k(1 << 16),
            lm1: k(l as u64 - 1),
            lshift: k(l.trailing_zeros() as u64),
            lw: k((l * w) as u64),
            rshift: k(row_bytes.trailing_zeros() as u64),
            rmask: k(row_bytes as u64 - 1),
            one32: k(1),
            zero_thr: k(0),
            regs: k(hw.registers as u64),
            nb_hi: k(gt_pow2(Some(rows * row_bytes)).0),
            nb_bit: k(gt_pow2(Some(rows * row_bytes)).1),
            nb_lo: k(gt_pow2(Some(rows * row_bytes)).2),
            cl_hi: k(gt_pow2(Some(hw.imem_words)).0),
            cl_bit: k(gt_pow2(Some(hw.imem_words)).1),
            cl_lo: k(gt_pow2(Some(hw.imem_words)).2),
            pc_hi: k(gt_pow2(Some(16)).0),
            pc_bit: k(gt_pow2(Some(16)).1),
            pc_lo: k(gt_pow2(Some(16)).2),
            g_hi: (0..bs).map(|i| k(gt_pow2(window(i)).0)).collect(),
            g_bit: (0..bs).map(|i| k(gt_pow2(window(i)).1)).collect(),
            g_lo: (0..bs).map(|i| k(gt_pow2(window(i)).2)).collect(),
            zero16: k(0),
            zero5: k(0),
            zero_rows: k(0),
            tbit: (0..bs).map(|i| k(1 << i)).collect(),
            wdiv: (0..bs).map(|i| k((w / (i + 1)) as u64)).collect(),
            rows_r: (0..bs)
                .map(|i| k((rows >> ceil_log2(i + 1)) as u64))
                .collect(),
            rval: (0..bs).map(|i| k(i as u64 + 1)).collect(),
            zero_dim: Default::default(),
            big_dim: Default::default(),
            thr_next: Default::default(),
            nw_sum: Default::default(),
            stack: Default::default(),
            lim_t: Default::default(),
            res_t: Default::default(),
            lim_oh: Default::default(),
            res_oh: Default::default(),
            lim_n: Default::default(),
            res_n: Default::default(),
            win_n: Default::default(),
            cs_rows: Default::default(),
            fit: Default::default(),
            cs_over: Default::default(),
            _bs: bs,
        }
    }
}

impl Logic for Setup {
    #[hdl_gen]
    fn update(&mut self) {
        self.sr.clock.next = self.clock.val();
        self.sr.reset.next = self.reset.val();
        self.p_q.clock.next = self.clock.val();
        self.p_q.reset.next = self.reset.val();
        self.p1big_q.clock.next = self.clock.val();
        self.p1big_q.reset.next = self.reset.val();
        self.thr_q.clock.next = self.clock.val();
        self.thr_q.reset.next = self.reset.val();
        self.thr_bad_q.clock.next = self.clock.val();
        self.thr_bad_q.reset.next = self.reset.val();
        self.nw_q.clock.next = self.clock.val();
        self.nw_q.reset.next = self.reset.val();
        self.need_q.clock.next = self.clock.val();
        self.need_q.reset.next = self.reset.val();
        self.need_bad_q.clock.next = self.clock.val();
        self.need_bad_q.reset.next = self.reset.val();
        self.lim_t_q.clock.next = self.clock.val();
        self.lim_t_q.reset.next = self.reset.val();
        self.res_t_q.clock.next = self.clock.val();
        self.res_t_q.reset.next = self.reset.val();
        self.limit_q.clock.next = self.clock.val();
        self.limit_q.reset.next = self.reset.val();
        self.res_q.clock.next = self.clock.val();
        self.res_q.reset.next = self.reset.val();
        self.win_q.clock.next = self.clock.val();
        self.win_q.reset.next = self.reset.val();
        self.crow_q.clock.next = self.clock.val();
        self.crow_q.reset.next = self.reset.val();
        self.creg_q.clock.next = self.clock.val();
        self.creg_q.reset.next = self.reset.val();
        self.refused_q.clock.next = self.clock.val();
        self.refused_q.reset.next = self.reset.val();
        // The SETUP cycles: sr bit i in the (i+1)-th.
        self.sr.d.next = self.sr.q.val() << self.one8.val();
        if self.start.val() {
            self.sr.d.next = self.one8.val();
        }
        self.busy.next = self.sr.q.val().any();
        self.done.next = self.sr.q.val().get_bit(7);
        // threads: the multiplier, BLOCK_X · BLOCK_Y in the first cycle, then
        // the product · BLOCK_Z.
        self.mul.a.next = self.p_q.q.val().get_bits::<16>(0);
        self.mul.b.next = self.block_z.val().get_bits::<16>(0);
        if self.sr.q.val().get_bit(0) {
            self.mul.a.next = self.block_x.val().get_bits::<16>(0);
            self.mul.b.next = self.block_y.val().get_bits::<16>(0);
        }
        self.p_q.d.next = self.mul.p.val();
        self.p1big_q.d.next = self.p1big_q.q.val();
        if self.sr.q.val().get_bit(1) {
            self.p1big_q.d.next = self.p_q.q.val().get_bits::<16>(16).any();
        }
        self.zero_dim.next =
            !self.block_x.val().any() | !self.block_y.val().any() | !self.block_z.val().any();
        self.big_dim.next = self.block_x.val().get_bits::<16>(16).any()
            | self.block_y.val().get_bits::<16>(16).any()
            | self.block_z.val().get_bits::<16>(16).any();
        self.thr_next.next = self.p_q.q.val().get_bits::<THREADS_BITS>(0);
        if self.big_dim.val() | self.p1big_q.q.val() | self.p_q.q.val().get_bits::<16>(16).any() {
            self.thr_next.next = self.sat.val();
        }
        if self.zero_dim.val() {
            self.thr_next.next = self.zero_thr.val();
        }
        self.thr_q.d.next = self.thr_q.q.val();
        if self.sr.q.val().get_bit(2) {
            self.thr_q.d.next = self.thr_next.val();
        }
        self.threads.next = self.thr_q.q.val();
        // nwarps and the row counts (shifts), and their refusals.
        self.nw_sum.next = (self.thr_q.q.val() + self.lm1.val()) >> self.lshift.val();
        self.nw_q.d.next = self.nw_sum.val().get_bits::<COUNT_BITS>(0);
        if (self.nw_sum.val() & self.nw_hi.val()).any() {
            self.nw_q.d.next = self.nw_max.val();
        }
        self.thr_bad_q.d.next = !self.thr_q.q.val().any() | (self.thr_q.q.val() > self.lw.val());
        self.need_q.d.next = self.shared_bytes.val() >> self.rshift.val();
        if (self.shared_bytes.val() & self.rmask.val()).any() {
            self.need_q.d.next = (self.shared_bytes.val() >> self.rshift.val()) + self.one32.val();
        }
        self.need_bad_q.d.next = (self.shared_bytes.val() & self.nb_hi.val()).any()
            | ((self.shared_bytes.val() & self.nb_bit.val()).any()
                & (self.shared_bytes.val() & self.nb_lo.val()).any());
        self.nwarps.next = self.nw_q.q.val();
        self.need_rows.next = self.need_q.q.val();
        // The candidates r = 1..=BS: thermometers for limit and resident.
        self.stack.next = self.stack_bytes.val().any();
        self.lim_t.next = self.zero16.val();
        self.res_t.next = self.zero16.val();
        for i in 0..self._bs {
            // need_rows ≤ ROWS >> ceil(log2 r) ⇔ SHARED_BYTES ≤ that · 4B.
            self.fit.next = !((self.shared_bytes.val() & self.g_hi[i].val()).any()
                | ((self.shared_bytes.val() & self.g_bit[i].val()).any()
                    & (self.shared_bytes.val() & self.g_lo[i].val()).any()));
            if (self.nw_q.q.val() <= self.wdiv[i].val())
                & (!self.stack.val() | (self.rval[i].val() == self.rval[0].val()))
            {
                self.lim_t.next = self.lim_t.val() | self.tbit[i].val();
                if self.fit.val() {
                    self.res_t.next = self.res_t.val() | self.tbit[i].val();
                }
            }
        }
        self.lim_t_q.d.next = self.lim_t.val();
        self.res_t_q.d.next = self.res_t.val();
        self.lim_oh.next = self.lim_t_q.q.val() & !(self.lim_t_q.q.val() >> self.one8.val());
        self.res_oh.next = self.res_t_q.q.val() & !(self.res_t_q.q.val() >> self.one8.val());
        self.lim_n.next = self.zero5.val();
        self.res_n.next = self.zero5.val();
        self.win_n.next = self.zero_rows.val();
        for i in 0..self._bs {
            if (self.lim_oh.val() & self.tbit[i].val()).any() {
                self.lim_n.next = self.lim_n.val() | self.rval[i].val();
            }
            if (self.res_oh.val() & self.tbit[i].val()).any() {
                self.res_n.next = self.res_n.val() | self.rval[i].val();
                self.win_n.next = self.win_n.val() | self.rows_r[i].val();
            }
        }
        self.limit_q.d.next = self.lim_n.val();
        self.res_q.d.next = self.res_n.val();
        self.win_q.d.next = self.win_n.val();
        self.limit.next = self.limit_q.q.val();
        self.resident.next = self.res_q.q.val();
        self.window_rows.next = self.win_q.q.val();
        // The clears.
        self.cs_rows.next = self.clear_shared.val() >> self.rshift.val();
        if (self.clear_shared.val() & self.rmask.val()).any() {
            self.cs_rows.next = (self.clear_shared.val() >> self.rshift.val()) + self.one32.val();
        }
        self.cs_over.next = false;
        for i in 0..self._bs {
            if (self.res_oh.val() & self.tbit[i].val()).any() {
                self.cs_over.next = self.cs_over.val()
                    | (self.clear_shared.val() & self.g_hi[i].val()).any()
                    | ((self.clear_shared.val() & self.g_bit[i].val()).any()
                        & (self.clear_shared.val() & self.g_lo[i].val()).any());
            }
        }
        self.crow_q.d.next = self.cs_rows.val();
        if self.cs_over.val() {
            self.crow_q.d.next = self.win_n.val();
        }
        self.clear_rows.next = self.crow_q.q.val();
        self.creg_q.d.next = self.clear_regs_in.val().get_bits::<CLEAR_REGS_BITS>(0);
        if (self.clear_regs_in.val() & self.hi6.val()).any()
            | (self.clear_regs_in.val().get_bits::<CLEAR_REGS_BITS>(0) > self.regs.val())
        {
            self.creg_q.d.next = self.regs.val();
        }
        self.clear_regs.next = self.creg_q.q.val();
        // Refusal.
        self.refused_q.d.next = self.thr_bad_q.q.val()
            | !self.grid_x.val().any()
            | !self.grid_y.val().any()
            | !self.grid_z.val().any()
            | self.need_bad_q.q.val()
            | !self.code_len.val().any()
            | (self.code_len.val() & self.cl_hi.val()).any()
            | ((self.code_len.val() & self.cl_bit.val()).any()
                & (self.code_len.val() & self.cl_lo.val()).any())
            | (self.entry_pc.val() & self.hi16.val()).any()
            | (self.param_count.val() & self.pc_hi.val()).any()
            | ((self.param_count.val() & self.pc_bit.val()).any()
                & (self.param_count.val() & self.pc_lo.val()).any());
        self.refused.next = self.refused_q.q.val();
    }
}

/// Verilog of `block` alone, top module `name`, sub-modules `name__<path>`
/// (no `$` in module names, §14.2), with the one lint waiver of a one-file
/// design (`DECLFILENAME`).
pub fn named_verilog<B: Block>(block: &B, name: &str) -> String {
    let raw = generate_verilog(block);
    format!(
        "// Concord Core v2 block, generated by concord-hdl (rust-hdl 0.46).\n\
         /* verilator lint_off DECLFILENAME */\n{}",
        crate::wishbone::rename_modules(&raw, name)
    )
}
