//! Per-warp state of Core v2 (docs/microarchitecture.md §5.1), warp
//! readiness (§5.4) and the warp state codes (§5.5), for `L` lanes and up
//! to 16 warps.
//!
//! The registers of each warp (`gmask`, `gpc`, `gdepth`, `alive`,
//! `waiting`, `replay`, `busy_i`, `busy_r`, `rearb`, `outstanding`) are
//! written by the stages that own them, all at the end of the cycle:
//!
//! | who | ports | effect on the warps it names |
//! |---|---|---|
//! | host `START` | `clear` | every register 0 (the model rebuilds its warps at `start`) |
//! | launch: allocation (§12.3) | `alloc` | `waiting`, `gmask`, `replay`, `rearb` := 0 |
//! | launch: start (§12.3) | `start`, `start_alive[w]`, `entry_pc` | `alive` := `start_alive[w]`, `gmask` := `alive`, `gpc` := `ENTRY_PC`, `gdepth` := 0 |
//! | S (§4.1) | `s_pass`, `s_ret` | `busy_i` / `busy_r` := 1 |
//! | A (§9.3) | `a_pass`, `a_ret` | `busy_i` := 0; `busy_r` := 0 and `outstanding` −1 |
//! | A: commit (§9.3) | `c_we`, `c_gmask`, `c_gpc`, `c_gdepth`, `c_alive`, `c_waiting`, `c_replay`, `c_reserve` | the committing warp's group, `alive`, `waiting`, `replay`; `outstanding` +1 when an entry is reserved |
//! | global unit: a write entry completes (§10.2) | `w_done` | `outstanding` −1 (in the same cycle as another change of the warp's count: both apply) |
//! | A: barrier release (§9.4) | `rel` | `waiting` := 0, `rearb` := 1 |
//! | engine (§9.5) | `e_we`, `e_gmask`, `e_gpc`, `e_gdepth` | the group, `rearb` := 0 |
//!
//! Warp sets are `Bits<16>` (warp `w` at bit `w`, one-hot where one warp
//! is meant); a warp's slot state `slot_st[w]` comes from the launch unit
//! (`FREE` 0, `LAUNCH` 1, `RUN` 2, `FROZEN` 3; `FREE` for a warp of no
//! block). `f_sel`, `a_sel`, `e_sel` and `d_sel` (one-hot) read one
//! warp's registers for F, for X/A (the core reads the warp at X and registers
//! the values to A: nothing else writes a warp while it has a pass in
//! flight, §4.1), for the re-arbitration engine and for the debug
//! registers (§15.3), as AND-OR selections.
//!
//! Outputs from the state at the start of the cycle: `ready` (§5.4,
//! without `HALT`, which the scheduler applies), `code[w]` (§5.5) and the
//! 48-bit vector of all codes (`tr_warp_state`, `WSTATE0/1`).

use rust_hdl_core::prelude::*;

use crate::util::{Ext, RegE};

/// Width of a stored group pc.
pub const PC_W: usize = 16;
/// Width of a stored depth (`call_depth_bits` ≤ 8).
pub const DEPTH_W: usize = 8;
/// Width of `outstanding` (≤ 16 entries).
pub const OUT_W: usize = 5;

/// Slot states of §5.3 as the launch unit encodes them.
pub mod slot_state {
    pub const FREE: u64 = 0;
    pub const LAUNCH: u64 = 1;
    pub const RUN: u64 = 2;
    pub const FROZEN: u64 = 3;
}

/// Warp state codes of §5.5.
pub mod code {
    pub const EMPTY: u64 = 0;
    pub const LAUNCH: u64 = 1;
    pub const INACTIVE: u64 = 2;
    pub const BUSY: u64 = 3;
    pub const REARB: u64 = 4;
    pub const READY: u64 = 5;
    pub const MEMWAIT: u64 = 6;
    pub const BARRIER: u64 = 7;
}

/// The state of up to 16 warps of `L` lanes.
#[derive(LogicBlock)]
pub struct WarpState<const L: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub clear: Signal<In, bool>,
    pub slot_st: Vec<Signal<In, Bits<2>>>,
    pub alloc: Signal<In, Bits<16>>,
    pub start: Signal<In, Bits<16>>,
    pub start_alive: Vec<Signal<In, Bits<L>>>,
    pub entry_pc: Signal<In, Bits<PC_W>>,
    pub s_pass: Signal<In, Bits<16>>,
    pub s_ret: Signal<In, Bits<16>>,
    pub a_pass: Signal<In, Bits<16>>,
    pub a_ret: Signal<In, Bits<16>>,
    pub c_we: Signal<In, Bits<16>>,
    pub c_gmask: Signal<In, Bits<L>>,
    pub c_gpc: Signal<In, Bits<PC_W>>,
    pub c_gdepth: Signal<In, Bits<DEPTH_W>>,
    pub c_alive: Signal<In, Bits<L>>,
    pub c_waiting: Signal<In, Bits<L>>,
    pub c_replay: Signal<In, bool>,
    pub c_reserve: Signal<In, bool>,
    /// A write entry of this warp (one-hot) completes.
    pub w_done: Signal<In, Bits<16>>,
    pub rel: Signal<In, Bits<16>>,
    pub e_we: Signal<In, Bits<16>>,
    pub e_gmask: Signal<In, Bits<L>>,
    pub e_gpc: Signal<In, Bits<PC_W>>,
    pub e_gdepth: Signal<In, Bits<DEPTH_W>>,
    pub f_sel: Signal<In, Bits<16>>,
    pub a_sel: Signal<In, Bits<16>>,
    /// The re-arbitration engine's warp (§9.5), one-hot: `e_alive`, `e_waiting`.
    pub e_sel: Signal<In, Bits<16>>,
    /// The debug registers' warp (§15.3, `DBG_WARP`), one-hot: `d_*`.
    pub d_sel: Signal<In, Bits<16>>,
    /// §5.4 (without `HALT`).
    pub ready: Signal<Out, Bits<16>>,
    /// §5.5, warp `w`.
    pub code: Vec<Signal<Out, Bits<3>>>,
    /// Every warp's code, warp `w` at bits `3w..3w+3`.
    pub codes: Signal<Out, Bits<48>>,
    /// Warps with `rearb` (the engine's candidates).
    pub rearb: Signal<Out, Bits<16>>,
    // The `f_sel` warp.
    pub f_gmask: Signal<Out, Bits<L>>,
    pub f_gpc: Signal<Out, Bits<PC_W>>,
    pub f_gdepth: Signal<Out, Bits<DEPTH_W>>,
    pub f_replay: Signal<Out, bool>,
    // The `a_sel` warp.
    pub a_gmask: Signal<Out, Bits<L>>,
    pub a_gpc: Signal<Out, Bits<PC_W>>,
    pub a_gdepth: Signal<Out, Bits<DEPTH_W>>,
    pub a_alive: Signal<Out, Bits<L>>,
    pub a_waiting: Signal<Out, Bits<L>>,
    pub a_replay: Signal<Out, bool>,
    pub a_outstanding: Signal<Out, Bits<OUT_W>>,
    // The `e_sel` warp.
    pub e_alive: Signal<Out, Bits<L>>,
    pub e_waiting: Signal<Out, Bits<L>>,
    // The `d_sel` warp.
    pub d_gmask: Signal<Out, Bits<L>>,
    pub d_gpc: Signal<Out, Bits<PC_W>>,
    pub d_gdepth: Signal<Out, Bits<DEPTH_W>>,
    pub d_alive: Signal<Out, Bits<L>>,
    pub d_waiting: Signal<Out, Bits<L>>,
    pub d_busy_i: Signal<Out, bool>,
    pub d_busy_r: Signal<Out, bool>,
    pub d_replay: Signal<Out, bool>,
    pub d_rearb: Signal<Out, bool>,
    pub d_outstanding: Signal<Out, Bits<OUT_W>>,
    /// Every warp's `waiting` (traps, v2trap: cause 7's report, §13.3).
    pub waiting: Vec<Signal<Out, Bits<L>>>,
    // Per warp (§5.1), cleared by `clear` through the registers' load.
    gm: Vec<RegE<Bits<L>>>,
    pc: Vec<RegE<Bits<PC_W>>>,
    dp: Vec<RegE<Bits<DEPTH_W>>>,
    al: Vec<RegE<Bits<L>>>,
    wt: Vec<RegE<Bits<L>>>,
    rp: Vec<RegE<bool>>,
    bi: Vec<RegE<bool>>,
    br: Vec<RegE<bool>>,
    ra: Vec<RegE<bool>>,
    os: Vec<RegE<Bits<OUT_W>>>,
    x: Vec<Ext<3, 48>>,
    shift: Vec<Constant<Bits<48>>>,
    bit: Vec<Constant<Bits<16>>>,
    k_empty: Constant<Bits<3>>,
    k_launch: Constant<Bits<3>>,
    k_inactive: Constant<Bits<3>>,
    k_busy: Constant<Bits<3>>,
    k_rearb: Constant<Bits<3>>,
    k_ready: Constant<Bits<3>>,
    k_memwait: Constant<Bits<3>>,
    k_barrier: Constant<Bits<3>>,
    st_launch: Constant<Bits<2>>,
    st_run: Constant<Bits<2>>,
    st_frozen: Constant<Bits<2>>,
    st_free: Constant<Bits<2>>,
    one_out: Constant<Bits<OUT_W>>,
    zero_out: Constant<Bits<OUT_W>>,
    zero_l: Constant<Bits<L>>,
    zero_pc: Constant<Bits<PC_W>>,
    zero_d: Constant<Bits<DEPTH_W>>,
    zero16: Constant<Bits<16>>,
    zero48: Constant<Bits<48>>,
    // Per-warp locals.
    rdy: Vec<Signal<Local, bool>>,
    mine_f: Vec<Signal<Local, bool>>,
    mine_a: Vec<Signal<Local, bool>>,
    mine_e: Vec<Signal<Local, bool>>,
    mine_d: Vec<Signal<Local, bool>>,
    // OR chains over the warps (element `w + 1` = element `w` | warp `w`'s
    // term): distinct signals, so that rust-hdl's simulator evaluates them
    // as the Verilog does.
    ch_acc: Vec<Signal<Local, Bits<48>>>,
    ch_acc_r: Vec<Signal<Local, Bits<16>>>,
    ch_acc_q: Vec<Signal<Local, Bits<16>>>,
    ch_f_gmask: Vec<Signal<Local, Bits<L>>>,
    ch_f_gpc: Vec<Signal<Local, Bits<PC_W>>>,
    ch_f_gdepth: Vec<Signal<Local, Bits<DEPTH_W>>>,
    ch_f_replay: Vec<Signal<Local, bool>>,
    ch_a_gmask: Vec<Signal<Local, Bits<L>>>,
    ch_a_gpc: Vec<Signal<Local, Bits<PC_W>>>,
    ch_a_gdepth: Vec<Signal<Local, Bits<DEPTH_W>>>,
    ch_a_alive: Vec<Signal<Local, Bits<L>>>,
    ch_a_waiting: Vec<Signal<Local, Bits<L>>>,
    ch_e_alive: Vec<Signal<Local, Bits<L>>>,
    ch_e_waiting: Vec<Signal<Local, Bits<L>>>,
    ch_d_gmask: Vec<Signal<Local, Bits<L>>>,
    ch_d_gpc: Vec<Signal<Local, Bits<PC_W>>>,
    ch_d_gdepth: Vec<Signal<Local, Bits<DEPTH_W>>>,
    ch_d_alive: Vec<Signal<Local, Bits<L>>>,
    ch_d_waiting: Vec<Signal<Local, Bits<L>>>,
    ch_d_busy_i: Vec<Signal<Local, bool>>,
    ch_d_busy_r: Vec<Signal<Local, bool>>,
    ch_d_replay: Vec<Signal<Local, bool>>,
    ch_d_rearb: Vec<Signal<Local, bool>>,
    ch_d_outstanding: Vec<Signal<Local, Bits<OUT_W>>>,
    ch_a_replay: Vec<Signal<Local, bool>>,
    ch_a_outstanding: Vec<Signal<Local, Bits<OUT_W>>>,
    /// Per warp, `outstanding`'s next value without / with the commit's
    /// reservation, from the early changes only (return slot, write
    /// completion): the reservation arrives late in A (after the arbiter and
    /// the served mask) and only selects between the two.
    os_keep: Vec<Signal<Local, Bits<OUT_W>>>,
    os_rsv: Vec<Signal<Local, Bits<OUT_W>>>,
    two_out: Constant<Bits<OUT_W>>,
    _w: usize,
    _w1: usize,
}

impl<const L: usize> WarpState<L> {
    /// `warps` ≤ 16.
    pub fn new(warps: usize) -> Self {
        assert!((1..=16).contains(&warps) && L <= 32);
        fn sig<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| Default::default()).collect()
        }
        fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
            Constant::new(v.into())
        }
        WarpState {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            slot_st: sig(warps),
            alloc: Default::default(),
            start: Default::default(),
            start_alive: sig(warps),
            entry_pc: Default::default(),
            s_pass: Default::default(),
            s_ret: Default::default(),
            a_pass: Default::default(),
            a_ret: Default::default(),
            c_we: Default::default(),
            c_gmask: Default::default(),
            c_gpc: Default::default(),
            c_gdepth: Default::default(),
            c_alive: Default::default(),
            c_waiting: Default::default(),
            c_replay: Default::default(),
            c_reserve: Default::default(),
            w_done: Default::default(),
            rel: Default::default(),
            e_we: Default::default(),
            e_gmask: Default::default(),
            e_gpc: Default::default(),
            e_gdepth: Default::default(),
            f_sel: Default::default(),
            a_sel: Default::default(),
            e_sel: Default::default(),
            d_sel: Default::default(),
            ready: Default::default(),
            code: sig(warps),
            codes: Default::default(),
            rearb: Default::default(),
            f_gmask: Default::default(),
            f_gpc: Default::default(),
            f_gdepth: Default::default(),
            f_replay: Default::default(),
            a_gmask: Default::default(),
            a_gpc: Default::default(),
            a_gdepth: Default::default(),
            a_alive: Default::default(),
            a_waiting: Default::default(),
            e_alive: Default::default(),
            e_waiting: Default::default(),
            d_gmask: Default::default(),
            d_gpc: Default::default(),
            d_gdepth: Default::default(),
            d_alive: Default::default(),
            d_waiting: Default::default(),
            d_busy_i: Default::default(),
            d_busy_r: Default::default(),
            d_replay: Default::default(),
            d_rearb: Default::default(),
            d_outstanding: Default::default(),
            waiting: sig(warps),
            a_replay: Default::default(),
            a_outstanding: Default::default(),
            gm: sig(warps),
            pc: sig(warps),
            dp: sig(warps),
            al: sig(warps),
            wt: sig(warps),
            rp: sig(warps),
            bi: sig(warps),
            br: sig(warps),
            ra: sig(warps),
            os: sig(warps),
            x: sig(warps),
            shift: (0..warps).map(|w| k(3 * w as u64)).collect(),
            bit: (0..warps).map(|w| k(1 << w)).collect(),
            k_empty: k(code::EMPTY),
            k_launch: k(code::LAUNCH),
            k_inactive: k(code::INACTIVE),
            k_busy: k(code::BUSY),
            k_rearb: k(code::REARB),
            k_ready: k(code::READY),
            k_memwait: k(code::MEMWAIT),
            k_barrier: k(code::BARRIER),
            st_launch: k(slot_state::LAUNCH),
            st_run: k(slot_state::RUN),
            st_frozen: k(slot_state::FROZEN),
            st_free: k(slot_state::FREE),
            one_out: k(1),
            zero_out: k(0),
            zero_l: k(0),
            zero_pc: k(0),
            zero_d: k(0),
            zero16: k(0),
            zero48: k(0),
            rdy: sig(warps),
            mine_f: sig(warps),
            mine_a: sig(warps),
            mine_e: sig(warps),
            mine_d: sig(warps),
            ch_acc: sig(warps + 1),
            ch_acc_r: sig(warps + 1),
            ch_acc_q: sig(warps + 1),
            ch_f_gmask: sig(warps + 1),
            ch_f_gpc: sig(warps + 1),
            ch_f_gdepth: sig(warps + 1),
            ch_f_replay: sig(warps + 1),
            ch_a_gmask: sig(warps + 1),
            ch_a_gpc: sig(warps + 1),
            ch_a_gdepth: sig(warps + 1),
            ch_a_alive: sig(warps + 1),
            ch_a_waiting: sig(warps + 1),
            ch_e_alive: sig(warps + 1),
            ch_e_waiting: sig(warps + 1),
            ch_d_gmask: sig(warps + 1),
            ch_d_gpc: sig(warps + 1),
            ch_d_gdepth: sig(warps + 1),
            ch_d_alive: sig(warps + 1),
            ch_d_waiting: sig(warps + 1),
            ch_d_busy_i: sig(warps + 1),
            ch_d_busy_r: sig(warps + 1),
            ch_d_replay: sig(warps + 1),
            ch_d_rearb: sig(warps + 1),
            ch_d_outstanding: sig(warps + 1),
            ch_a_replay: sig(warps + 1),
            ch_a_outstanding: sig(warps + 1),
            os_keep: sig(warps),
            os_rsv: sig(warps),
            two_out: k(2),
            _w: warps,
            _w1: warps + 1,
        }
    }
}

impl<const L: usize> Logic for WarpState<L> {
    #[hdl_gen]
    fn update(&mut self) {
        self.ch_acc[0].next = self.zero48.val();
        self.ch_acc_r[0].next = self.zero16.val();
        self.ch_acc_q[0].next = self.zero16.val();
        self.ch_f_gmask[0].next = self.zero_l.val();
        self.ch_f_gpc[0].next = self.zero_pc.val();
        self.ch_f_gdepth[0].next = self.zero_d.val();
        self.ch_f_replay[0].next = false;
        self.ch_a_gmask[0].next = self.zero_l.val();
        self.ch_a_gpc[0].next = self.zero_pc.val();
        self.ch_a_gdepth[0].next = self.zero_d.val();
        self.ch_a_alive[0].next = self.zero_l.val();
        self.ch_a_waiting[0].next = self.zero_l.val();
        self.ch_e_alive[0].next = self.zero_l.val();
        self.ch_e_waiting[0].next = self.zero_l.val();
        self.ch_d_gmask[0].next = self.zero_l.val();
        self.ch_d_gpc[0].next = self.zero_pc.val();
        self.ch_d_gdepth[0].next = self.zero_d.val();
        self.ch_d_alive[0].next = self.zero_l.val();
        self.ch_d_waiting[0].next = self.zero_l.val();
        self.ch_d_busy_i[0].next = false;
        self.ch_d_busy_r[0].next = false;
        self.ch_d_replay[0].next = false;
        self.ch_d_rearb[0].next = false;
        self.ch_d_outstanding[0].next = self.zero_out.val();
        self.ch_a_replay[0].next = false;
        self.ch_a_outstanding[0].next = self.zero_out.val();
        for w in 0..self._w {
            self.ch_acc[w + 1].next = self.ch_acc[w].val();
            self.ch_acc_r[w + 1].next = self.ch_acc_r[w].val();
            self.ch_acc_q[w + 1].next = self.ch_acc_q[w].val();
            self.ch_f_gmask[w + 1].next = self.ch_f_gmask[w].val();
            self.ch_f_gpc[w + 1].next = self.ch_f_gpc[w].val();
            self.ch_f_gdepth[w + 1].next = self.ch_f_gdepth[w].val();
            self.ch_f_replay[w + 1].next = self.ch_f_replay[w].val();
            self.ch_a_gmask[w + 1].next = self.ch_a_gmask[w].val();
            self.ch_a_gpc[w + 1].next = self.ch_a_gpc[w].val();
            self.ch_a_gdepth[w + 1].next = self.ch_a_gdepth[w].val();
            self.ch_a_alive[w + 1].next = self.ch_a_alive[w].val();
            self.ch_a_waiting[w + 1].next = self.ch_a_waiting[w].val();
            self.ch_e_alive[w + 1].next = self.ch_e_alive[w].val();
            self.ch_e_waiting[w + 1].next = self.ch_e_waiting[w].val();
            self.ch_d_gmask[w + 1].next = self.ch_d_gmask[w].val();
            self.ch_d_gpc[w + 1].next = self.ch_d_gpc[w].val();
            self.ch_d_gdepth[w + 1].next = self.ch_d_gdepth[w].val();
            self.ch_d_alive[w + 1].next = self.ch_d_alive[w].val();
            self.ch_d_waiting[w + 1].next = self.ch_d_waiting[w].val();
            self.ch_d_busy_i[w + 1].next = self.ch_d_busy_i[w].val();
            self.ch_d_busy_r[w + 1].next = self.ch_d_busy_r[w].val();
            self.ch_d_replay[w + 1].next = self.ch_d_replay[w].val();
            self.ch_d_rearb[w + 1].next = self.ch_d_rearb[w].val();
            self.ch_d_outstanding[w + 1].next = self.ch_d_outstanding[w].val();
            self.ch_a_replay[w + 1].next = self.ch_a_replay[w].val();
            self.ch_a_outstanding[w + 1].next = self.ch_a_outstanding[w].val();
            self.gm[w].clock.next = self.clock.val();
            self.gm[w].reset.next = self.reset.val();
            self.gm[w].ld.next = self.clear.val();
            self.gm[w].lv.next = self.zero_l.val();
            self.pc[w].clock.next = self.clock.val();
            self.pc[w].reset.next = self.reset.val();
            self.pc[w].ld.next = self.clear.val();
            self.pc[w].lv.next = self.zero_pc.val();
            self.dp[w].clock.next = self.clock.val();
            self.dp[w].reset.next = self.reset.val();
            self.dp[w].ld.next = self.clear.val();
            self.dp[w].lv.next = self.zero_d.val();
            self.al[w].clock.next = self.clock.val();
            self.al[w].reset.next = self.reset.val();
            self.al[w].ld.next = self.clear.val();
            self.al[w].lv.next = self.zero_l.val();
            self.wt[w].clock.next = self.clock.val();
            self.wt[w].reset.next = self.reset.val();
            self.wt[w].ld.next = self.clear.val();
            self.wt[w].lv.next = self.zero_l.val();
            self.rp[w].clock.next = self.clock.val();
            self.rp[w].reset.next = self.reset.val();
            self.rp[w].ld.next = self.clear.val();
            self.rp[w].lv.next = false;
            self.bi[w].clock.next = self.clock.val();
            self.bi[w].reset.next = self.reset.val();
            self.bi[w].ld.next = self.clear.val();
            self.bi[w].lv.next = false;
            self.br[w].clock.next = self.clock.val();
            self.br[w].reset.next = self.reset.val();
            self.br[w].ld.next = self.clear.val();
            self.br[w].lv.next = false;
            self.ra[w].clock.next = self.clock.val();
            self.ra[w].reset.next = self.reset.val();
            self.ra[w].ld.next = self.clear.val();
            self.ra[w].lv.next = false;
            self.os[w].clock.next = self.clock.val();
            self.os[w].reset.next = self.reset.val();
            self.os[w].ld.next = self.clear.val();
            self.os[w].lv.next = self.zero_out.val();
            // ---- readiness and the state code (start of the cycle) ----
            self.rdy[w].next = (self.slot_st[w].val() == self.st_run.val())
                & !self.bi[w].q.val()
                & !self.br[w].q.val()
                & !self.ra[w].q.val()
                & self.gm[w].q.val().any()
                & (self.rp[w].q.val() | !self.os[w].q.val().any());
            // §5.5, the lowest row first so that the first matching row
            // is the last assignment.
            self.code[w].next = self.k_barrier.val();
            if self.gm[w].q.val().any() & !self.rp[w].q.val() & self.os[w].q.val().any() {
                self.code[w].next = self.k_memwait.val();
            }
            if self.rdy[w].val() {
                self.code[w].next = self.k_ready.val();
            }
            if self.ra[w].q.val() {
                self.code[w].next = self.k_rearb.val();
            }
            if self.bi[w].q.val() | self.br[w].q.val() {
                self.code[w].next = self.k_busy.val();
            }
            if !self.al[w].q.val().any() | (self.slot_st[w].val() == self.st_frozen.val()) {
                self.code[w].next = self.k_inactive.val();
            }
            if self.slot_st[w].val() == self.st_launch.val() {
                self.code[w].next = self.k_launch.val();
            }
            if self.slot_st[w].val() == self.st_free.val() {
                self.code[w].next = self.k_empty.val();
            }
            self.x[w].i.next = self.code[w].val();
            self.ch_acc[w + 1].next =
                self.ch_acc[w].val() | (self.x[w].o.val() << self.shift[w].val());
            if self.rdy[w].val() {
                self.ch_acc_r[w + 1].next = self.ch_acc_r[w].val() | self.bit[w].val();
            }
            if self.ra[w].q.val() {
                self.ch_acc_q[w + 1].next = self.ch_acc_q[w].val() | self.bit[w].val();
            }
            // ---- reads for F and A (one-hot AND-OR) ----
            self.mine_f[w].next = (self.f_sel.val() & self.bit[w].val()).any();
            if self.mine_f[w].val() {
                self.ch_f_gmask[w + 1].next = self.ch_f_gmask[w].val() | self.gm[w].q.val();
                self.ch_f_gpc[w + 1].next = self.ch_f_gpc[w].val() | self.pc[w].q.val();
                self.ch_f_gdepth[w + 1].next = self.ch_f_gdepth[w].val() | self.dp[w].q.val();
                self.ch_f_replay[w + 1].next = self.ch_f_replay[w].val() | self.rp[w].q.val();
            }
            self.mine_a[w].next = (self.a_sel.val() & self.bit[w].val()).any();
            if self.mine_a[w].val() {
                self.ch_a_gmask[w + 1].next = self.ch_a_gmask[w].val() | self.gm[w].q.val();
                self.ch_a_gpc[w + 1].next = self.ch_a_gpc[w].val() | self.pc[w].q.val();
                self.ch_a_gdepth[w + 1].next = self.ch_a_gdepth[w].val() | self.dp[w].q.val();
                self.ch_a_alive[w + 1].next = self.ch_a_alive[w].val() | self.al[w].q.val();
                self.ch_a_waiting[w + 1].next = self.ch_a_waiting[w].val() | self.wt[w].q.val();
                self.ch_a_replay[w + 1].next = self.ch_a_replay[w].val() | self.rp[w].q.val();
                self.ch_a_outstanding[w + 1].next =
                    self.ch_a_outstanding[w].val() | self.os[w].q.val();
            }
            self.mine_e[w].next = (self.e_sel.val() & self.bit[w].val()).any();
            if self.mine_e[w].val() {
                self.ch_e_alive[w + 1].next = self.ch_e_alive[w].val() | self.al[w].q.val();
                self.ch_e_waiting[w + 1].next = self.ch_e_waiting[w].val() | self.wt[w].q.val();
            }
            self.mine_d[w].next = (self.d_sel.val() & self.bit[w].val()).any();
            if self.mine_d[w].val() {
                self.ch_d_gmask[w + 1].next = self.ch_d_gmask[w].val() | self.gm[w].q.val();
                self.ch_d_gpc[w + 1].next = self.ch_d_gpc[w].val() | self.pc[w].q.val();
                self.ch_d_gdepth[w + 1].next = self.ch_d_gdepth[w].val() | self.dp[w].q.val();
                self.ch_d_alive[w + 1].next = self.ch_d_alive[w].val() | self.al[w].q.val();
                self.ch_d_waiting[w + 1].next = self.ch_d_waiting[w].val() | self.wt[w].q.val();
                self.ch_d_busy_i[w + 1].next = self.ch_d_busy_i[w].val() | self.bi[w].q.val();
                self.ch_d_busy_r[w + 1].next = self.ch_d_busy_r[w].val() | self.br[w].q.val();
                self.ch_d_replay[w + 1].next = self.ch_d_replay[w].val() | self.rp[w].q.val();
                self.ch_d_rearb[w + 1].next = self.ch_d_rearb[w].val() | self.ra[w].q.val();
                self.ch_d_outstanding[w + 1].next =
                    self.ch_d_outstanding[w].val() | self.os[w].q.val();
            }
            // ---- next state: hold, then each writer in turn (a later
            // writer of the same register wins; the contract never has
            // two of them on one warp in one cycle except where noted) ----
            self.gm[w].en.next = true;
            self.pc[w].en.next = true;
            self.dp[w].en.next = true;
            self.al[w].en.next = true;
            self.wt[w].en.next = true;
            self.rp[w].en.next = true;
            self.bi[w].en.next = true;
            self.br[w].en.next = true;
            self.ra[w].en.next = true;
            self.os[w].en.next = true;
            self.gm[w].d.next = self.gm[w].q.val();
            self.pc[w].d.next = self.pc[w].q.val();
            self.dp[w].d.next = self.dp[w].q.val();
            self.al[w].d.next = self.al[w].q.val();
            self.wt[w].d.next = self.wt[w].q.val();
            self.rp[w].d.next = self.rp[w].q.val();
            self.bi[w].d.next = self.bi[w].q.val();
            self.br[w].d.next = self.br[w].q.val();
            self.ra[w].d.next = self.ra[w].q.val();
            self.os[w].d.next = self.os[w].q.val();
            // A: the item in A leaves S..A.
            if (self.a_pass.val() & self.bit[w].val()).any() {
                self.bi[w].d.next = false;
            }
            // `outstanding`: the return slot's decrement, then the write
            // completion's (either may hit the same warp), or the
            // reservation's increment then the completion's. The return
            // slot and the commit are both A's item, never in one cycle.
            self.os_keep[w].next = self.os[w].q.val();
            self.os_rsv[w].next = self.os[w].q.val() + self.one_out.val();
            if (self.w_done.val() & self.bit[w].val()).any() {
                self.os_keep[w].next = self.os[w].q.val() - self.one_out.val();
                self.os_rsv[w].next = self.os[w].q.val();
            }
            if (self.a_ret.val() & self.bit[w].val()).any() {
                self.br[w].d.next = false;
                self.os_keep[w].next = self.os[w].q.val() - self.one_out.val();
                if (self.w_done.val() & self.bit[w].val()).any() {
                    self.os_keep[w].next = self.os[w].q.val() - self.two_out.val();
                }
            }
            self.os[w].d.next = self.os_keep[w].val();
            // A: the commit.
            if (self.c_we.val() & self.bit[w].val()).any() {
                self.gm[w].d.next = self.c_gmask.val();
                self.pc[w].d.next = self.c_gpc.val();
                self.dp[w].d.next = self.c_gdepth.val();
                self.al[w].d.next = self.c_alive.val();
                self.wt[w].d.next = self.c_waiting.val();
                self.rp[w].d.next = self.c_replay.val();
                if self.c_reserve.val() {
                    self.os[w].d.next = self.os_rsv[w].val();
                }
            }
            // A: a barrier release (it includes the committing warp).
            if (self.rel.val() & self.bit[w].val()).any() {
                self.wt[w].d.next = self.zero_l.val();
                self.ra[w].d.next = true;
            }
            // The engine's result.
            if (self.e_we.val() & self.bit[w].val()).any() {
                self.gm[w].d.next = self.e_gmask.val();
                self.pc[w].d.next = self.e_gpc.val();
                self.dp[w].d.next = self.e_gdepth.val();
                self.ra[w].d.next = false;
            }
            // S: the item selected now.
            if (self.s_pass.val() & self.bit[w].val()).any() {
                self.bi[w].d.next = true;
            }
            if (self.s_ret.val() & self.bit[w].val()).any() {
                self.br[w].d.next = true;
            }
            // Launch: allocation of the warp's slot, then the block's start.
            if (self.alloc.val() & self.bit[w].val()).any() {
                self.wt[w].d.next = self.zero_l.val();
                self.gm[w].d.next = self.zero_l.val();
                self.rp[w].d.next = false;
                self.ra[w].d.next = false;
            }
            if (self.start.val() & self.bit[w].val()).any() {
                self.al[w].d.next = self.start_alive[w].val();
                self.gm[w].d.next = self.start_alive[w].val();
                self.pc[w].d.next = self.entry_pc.val();
                self.dp[w].d.next = self.zero_d.val();
            }
        }
        for n in self._w..self._w1 {
            self.codes.next = self.ch_acc[n].val();
            self.ready.next = self.ch_acc_r[n].val();
            self.rearb.next = self.ch_acc_q[n].val();
            self.f_gmask.next = self.ch_f_gmask[n].val();
            self.f_gpc.next = self.ch_f_gpc[n].val();
            self.f_gdepth.next = self.ch_f_gdepth[n].val();
            self.f_replay.next = self.ch_f_replay[n].val();
            self.a_gmask.next = self.ch_a_gmask[n].val();
            self.a_gpc.next = self.ch_a_gpc[n].val();
            self.a_gdepth.next = self.ch_a_gdepth[n].val();
            self.a_alive.next = self.ch_a_alive[n].val();
            self.a_waiting.next = self.ch_a_waiting[n].val();
            self.e_alive.next = self.ch_e_alive[n].val();
            self.e_waiting.next = self.ch_e_waiting[n].val();
            self.d_gmask.next = self.ch_d_gmask[n].val();
            self.d_gpc.next = self.ch_d_gpc[n].val();
            self.d_gdepth.next = self.ch_d_gdepth[n].val();
            self.d_alive.next = self.ch_d_alive[n].val();
            self.d_waiting.next = self.ch_d_waiting[n].val();
            self.d_busy_i.next = self.ch_d_busy_i[n].val();
            self.d_busy_r.next = self.ch_d_busy_r[n].val();
            self.d_replay.next = self.ch_d_replay[n].val();
            self.d_rearb.next = self.ch_d_rearb[n].val();
            self.d_outstanding.next = self.ch_d_outstanding[n].val();
            self.a_replay.next = self.ch_a_replay[n].val();
            self.a_outstanding.next = self.ch_a_outstanding[n].val();
        }
        for w in 0..self._w {
            self.waiting[w].next = self.wt[w].q.val();
        }
    }
}
