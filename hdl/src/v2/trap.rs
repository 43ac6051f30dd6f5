//! The trap unit of Core v2 (docs/microarchitecture.md §13.1–§13.3):
//! which trap a pass raises at A, which trap the core holds, and the
//! host's trap report registers. Two blocks, both instantiated once by the
//! integrated top (`core.rs`, section "traps (v2trap)"):
//!
//! * [`PassCause`] (combinational, stage A): the cause of a warp pass from
//!   the flags the earlier stages computed, in the order of §13.1 (causes
//!   4 and 3 first, then `concord_isa::checks`' order: misaligned, out of
//!   range, stack overflow, missing parameter, call depth, return at depth
//!   0, next PC), with the lanes, the address or next PC of the lowest
//!   faulting lane and the detail word. The flags of different classes
//!   never meet in one pass (depth flags only on control passes, access
//!   flags only on memory passes, the missing parameter only on
//!   `ldparam`), so one priority chain over all of them is each class's
//!   order.
//! * [`TrapUnit`] (registered): the held trap and the oldest-slot rule
//!   (§13.2), the slots that freeze in this cycle (the launch unit turns
//!   them and every younger slot to `FROZEN`), and the report registers
//!   (§13.3), loaded in the cycle after the trap became the held one.
//!
//! **Sources of a trap in cycle *c*.** `a_*`: the pass in A (any cause
//! but 11) or cause 7 after the commit of a `bar.sync`/`exit` pass (the
//! two exclude each other: a trapping pass commits nothing). `g_*`: cause
//! 11 from the global unit's response processing. The cycle model raises
//! A's trap before the global unit's (`Pipeline::step`: stage A, then the
//! global unit), so `g` replaces what `a` leaves held only when its slot is
//! strictly older; a slot is never older than itself, so on a tie the
//! first raised stays.
//!
//! **Age.** "Slot `x` is older than slot `y`" is bit `x` of the launch
//! unit's age row `older[y]` (`launch.rs`). A held slot is `FROZEN` and is
//! never allocated again while the trap is held, so its row stays valid.
//!
//! **Cause 7's report.** The warp (`wib`), lanes and pc of cause 7 are
//! those of the first warp of the block with waiting lanes, after the
//! commit that raised it (§9.4). After that commit nothing of the block
//! changes any more (it is `FROZEN`), so the unit forms them in the report
//! cycle from the warps' `waiting` registers and reads the lowest waiting
//! lane's pc through copy 2 of the lane-PC LUT-RAM (`t_read`, `t_warp`,
//! `t_lane`, answer `t_pc`). The re-arbitration engine keeps that port when
//! it loads keys in the same cycle (`port_busy`): the report is then
//! written one cycle later, from the same unchanged values, so the engine's
//! timing never depends on a trap (see `core.rs`'s module documentation).
//!
//! Widths: slots and warps as 16-bit sets (up to 16 of each), slot and
//! warp indices 4 bits, pcs 16 bits, report words 32 bits; only `L`
//! (lanes) is generic.

use rust_hdl_core::prelude::*;

use concord_uarch::trap::TrapCode;

use super::acommit::CNT_W;
use super::resize::Resize;
use crate::util::{Ext, RegE};

/// Width of a cause code (`concord_uarch::widths::TRAP_CAUSE_BITS`).
pub const CAUSE_W: usize = concord_uarch::widths::TRAP_CAUSE_BITS;

/// The cause of the warp pass in A (see the module documentation).
/// Inputs are the values at A; outputs are combinational.
///
/// | port | meaning |
/// |---|---|
/// | `pass` | a warp pass of a slot that is not `FROZEN` is in A |
/// | `outside` | its pc was at or beyond `code_len` at F (cause 4) |
/// | `invalid` | its word does not decode (cause 3; also set with `outside`) |
/// | `word` | the instruction word (cause 3's detail) |
/// | `active` | the pass's active lanes |
/// | `m_mis`, `m_oob`, `m_stk` | executing lanes misaligned / out of range / into a foreign stack (causes 2, 1, 9) |
/// | `pmiss`, `pidx` | `ldparam` with executing lanes past `PARAM_COUNT`, and its index (cause 8) |
/// | `m_ovf`, `m_ret0` | executing `call`/`callr` at `MAXD`, `ret` at depth 0 (causes 5, 6) |
/// | `m_npc` | lanes whose next PC is outside the program (cause 10) |
/// | `bytes` | the access width in bytes (memory causes' detail) |
/// | `addr[l]`, `npc[l]` | lane `l`'s address and next PC |
/// | `trap`, `cause`, `lanes`, `t_addr`, `detail` | the trap, if any |
/// | `executed` | the pass got past decode (causes other than 3 and 4): the trace shows its `active`/`exec` |
#[derive(LogicBlock)]
pub struct PassCause<const L: usize> {
    pub pass: Signal<In, bool>,
    pub outside: Signal<In, bool>,
    pub invalid: Signal<In, bool>,
    pub word: Signal<In, Bits<32>>,
    pub active: Signal<In, Bits<L>>,
    pub m_mis: Signal<In, Bits<L>>,
    pub m_oob: Signal<In, Bits<L>>,
    pub m_stk: Signal<In, Bits<L>>,
    pub pmiss: Signal<In, bool>,
    pub pidx: Signal<In, Bits<32>>,
    pub m_ovf: Signal<In, Bits<L>>,
    pub m_ret0: Signal<In, Bits<L>>,
    pub m_npc: Signal<In, Bits<L>>,
    pub bytes: Signal<In, Bits<32>>,
    pub addr: Vec<Signal<In, Bits<32>>>,
    pub npc: Vec<Signal<In, Bits<32>>>,
    pub trap: Signal<Out, bool>,
    pub cause: Signal<Out, Bits<CAUSE_W>>,
    pub lanes: Signal<Out, Bits<L>>,
    pub t_addr: Signal<Out, Bits<32>>,
    pub detail: Signal<Out, Bits<32>>,
    pub executed: Signal<Out, bool>,
    // The memory causes' lanes (the first of 2, 1, 9 that has any), their
    // lowest lane (x & -x), and the lowest next-PC lane.
    mem_m: Signal<Local, Bits<L>>,
    mem_lo: Signal<Local, Bits<L>>,
    npc_lo: Signal<Local, Bits<L>>,
    mem_a: Signal<Local, Bits<32>>,
    npc_a: Signal<Local, Bits<32>>,
    zl: Constant<Bits<L>>,
    z32: Constant<Bits<32>>,
    /// Cause codes (`concord_uarch::trap::TrapCode`).
    c_none: Constant<Bits<CAUSE_W>>,
    c_range: Constant<Bits<CAUSE_W>>,
    c_mis: Constant<Bits<CAUSE_W>>,
    c_invalid: Constant<Bits<CAUSE_W>>,
    c_outside: Constant<Bits<CAUSE_W>>,
    c_depth: Constant<Bits<CAUSE_W>>,
    c_ret0: Constant<Bits<CAUSE_W>>,
    c_param: Constant<Bits<CAUSE_W>>,
    c_stack: Constant<Bits<CAUSE_W>>,
    c_npc: Constant<Bits<CAUSE_W>>,
    _lanes: usize,
}

fn code(c: TrapCode) -> Constant<Bits<CAUSE_W>> {
    Constant::new(u64::from(c.code()).into())
}

impl<const L: usize> Default for PassCause<L> {
    fn default() -> Self {
        PassCause {
            pass: Default::default(),
            outside: Default::default(),
            invalid: Default::default(),
            word: Default::default(),
            active: Default::default(),
            m_mis: Default::default(),
            m_oob: Default::default(),
            m_stk: Default::default(),
            pmiss: Default::default(),
            pidx: Default::default(),
            m_ovf: Default::default(),
            m_ret0: Default::default(),
            m_npc: Default::default(),
            bytes: Default::default(),
            addr: (0..L).map(|_| Default::default()).collect(),
            npc: (0..L).map(|_| Default::default()).collect(),
            trap: Default::default(),
            cause: Default::default(),
            lanes: Default::default(),
            t_addr: Default::default(),
            detail: Default::default(),
            executed: Default::default(),
            mem_m: Default::default(),
            mem_lo: Default::default(),
            npc_lo: Default::default(),
            mem_a: Default::default(),
            npc_a: Default::default(),
            zl: Constant::new(0u64.into()),
            z32: Constant::new(0u64.into()),
            c_none: Constant::new(0u64.into()),
            c_range: code(TrapCode::AddressOutOfRange),
            c_mis: code(TrapCode::Misaligned),
            c_invalid: code(TrapCode::InvalidInstruction),
            c_outside: code(TrapCode::PcOutOfRange),
            c_depth: code(TrapCode::CallDepthOverflow),
            c_ret0: code(TrapCode::ReturnAtDepthZero),
            c_param: code(TrapCode::MissingParam),
            c_stack: code(TrapCode::StackOverflow),
            c_npc: code(TrapCode::NextPcOutOfRange),
            _lanes: L,
        }
    }
}

impl<const L: usize> Logic for PassCause<L> {
    #[hdl_gen]
    fn update(&mut self) {
        self.mem_m.next = self.m_stk.val();
        if self.m_oob.val().any() {
            self.mem_m.next = self.m_oob.val();
        }
        if self.m_mis.val().any() {
            self.mem_m.next = self.m_mis.val();
        }
        self.mem_lo.next = self.mem_m.val() & (self.zl.val() - self.mem_m.val());
        self.npc_lo.next = self.m_npc.val() & (self.zl.val() - self.m_npc.val());
        self.mem_a.next = self.z32.val();
        self.npc_a.next = self.z32.val();
        for l in 0..self._lanes {
            if self.mem_lo.val().get_bit(l) {
                self.mem_a.next = self.mem_a.val() | self.addr[l].val();
            }
            if self.npc_lo.val().get_bit(l) {
                self.npc_a.next = self.npc_a.val() | self.npc[l].val();
            }
        }
        // Lowest priority first: each later test overrides.
        self.cause.next = self.c_none.val();
        self.lanes.next = self.zl.val();
        self.t_addr.next = self.z32.val();
        self.detail.next = self.z32.val();
        if self.m_npc.val().any() {
            self.cause.next = self.c_npc.val();
            self.lanes.next = self.m_npc.val();
            self.t_addr.next = self.npc_a.val();
        }
        if self.m_ret0.val().any() {
            self.cause.next = self.c_ret0.val();
            self.lanes.next = self.m_ret0.val();
            self.t_addr.next = self.z32.val();
        }
        if self.m_ovf.val().any() {
            self.cause.next = self.c_depth.val();
            self.lanes.next = self.m_ovf.val();
            self.t_addr.next = self.z32.val();
        }
        if self.pmiss.val() {
            self.cause.next = self.c_param.val();
            self.lanes.next = self.active.val();
            self.t_addr.next = self.z32.val();
            self.detail.next = self.pidx.val();
        }
        if self.m_stk.val().any() {
            self.cause.next = self.c_stack.val();
        }
        if self.m_oob.val().any() {
            self.cause.next = self.c_range.val();
        }
        if self.m_mis.val().any() {
            self.cause.next = self.c_mis.val();
        }
        if self.mem_m.val().any() {
            self.lanes.next = self.mem_m.val();
            self.t_addr.next = self.mem_a.val();
            self.detail.next = self.bytes.val();
        }
        self.executed.next = true;
        if self.invalid.val() {
            self.cause.next = self.c_invalid.val();
            self.lanes.next = self.active.val();
            self.t_addr.next = self.z32.val();
            self.detail.next = self.word.val();
            self.executed.next = false;
        }
        if self.outside.val() {
            self.cause.next = self.c_outside.val();
            self.detail.next = self.z32.val();
        }
        self.trap.next = self.pass.val() & self.cause.val().any();
    }
}

/// The held trap and the report registers (see the module documentation),
/// for `L` lanes, `slots` block slots and `warps` warps.
#[derive(LogicBlock)]
pub struct TrapUnit<const L: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    /// Host `START`: no trap is held (the report registers keep theirs).
    pub clear: Signal<In, bool>,
    // ---- source A: the pass in A, or cause 7 after its commit ----
    pub a_valid: Signal<In, bool>,
    pub a_cause: Signal<In, Bits<CAUSE_W>>,
    pub a_slot: Signal<In, Bits<4>>,
    pub a_wib: Signal<In, Bits<4>>,
    pub a_pc: Signal<In, Bits<16>>,
    pub a_lanes: Signal<In, Bits<L>>,
    pub a_addr: Signal<In, Bits<32>>,
    pub a_detail: Signal<In, Bits<32>>,
    // ---- source G: cause 11 (global bus error) ----
    pub g_valid: Signal<In, bool>,
    pub g_slot: Signal<In, Bits<4>>,
    pub g_wib: Signal<In, Bits<4>>,
    pub g_pc: Signal<In, Bits<16>>,
    pub g_lanes: Signal<In, Bits<L>>,
    pub g_addr: Signal<In, Bits<32>>,
    // ---- slots (per slot) ----
    pub older: Vec<Signal<In, Bits<16>>>,
    pub ctaid_x: Vec<Signal<In, Bits<32>>>,
    pub ctaid_y: Vec<Signal<In, Bits<32>>>,
    pub ctaid_z: Vec<Signal<In, Bits<32>>>,
    pub arrived: Vec<Signal<In, Bits<CNT_W>>>,
    pub exited: Vec<Signal<In, Bits<CNT_W>>>,
    pub slot_warps: Vec<Signal<In, Bits<16>>>,
    pub threads: Signal<In, Bits<32>>,
    // ---- warps (per warp), for cause 7 ----
    pub waiting: Vec<Signal<In, Bits<L>>>,
    pub wib: Vec<Signal<In, Bits<4>>>,
    /// The engine takes copy 2 of the lane-PC LUT-RAM in this cycle.
    pub port_busy: Signal<In, bool>,
    /// Copy 2's pc of lane `t_lane` of warp `t_warp`.
    pub t_pc: Signal<In, Bits<16>>,
    // ---- outputs ----
    /// A trap is held (start of the cycle).
    pub held: Signal<Out, bool>,
    /// A trap is held at the end of the cycle.
    pub held_next: Signal<Out, bool>,
    /// A trap is raised in this cycle (`tr_trap`).
    pub raise: Signal<Out, bool>,
    /// Slots that raise a trap in this cycle (the launch unit freezes
    /// each and every younger slot).
    pub freeze: Signal<Out, Bits<16>>,
    /// Cause 7's pc read: wanted, warp, lane (one-hot).
    pub t_read: Signal<Out, bool>,
    pub t_warp: Signal<Out, Bits<4>>,
    pub t_lane: Signal<Out, Bits<L>>,
    /// The report registers (§13.3, §14.4 `TRAP_CAUSE` .. `TRAP_THREADS`).
    pub r_cause: Signal<Out, Bits<32>>,
    pub r_pc: Signal<Out, Bits<32>>,
    pub r_warp: Signal<Out, Bits<32>>,
    pub r_lanes: Signal<Out, Bits<32>>,
    pub r_block_x: Signal<Out, Bits<32>>,
    pub r_block_y: Signal<Out, Bits<32>>,
    pub r_block_z: Signal<Out, Bits<32>>,
    pub r_addr: Signal<Out, Bits<32>>,
    pub r_detail: Signal<Out, Bits<32>>,
    pub r_arrived: Signal<Out, Bits<32>>,
    pub r_exited: Signal<Out, Bits<32>>,
    pub r_threads: Signal<Out, Bits<32>>,

    // The held trap.
    h_valid: RegE<bool>,
    h_slot: RegE<Bits<4>>,
    h_cause: RegE<Bits<CAUSE_W>>,
    h_wib: RegE<Bits<4>>,
    h_pc: RegE<Bits<16>>,
    h_lanes: RegE<Bits<L>>,
    h_addr: RegE<Bits<32>>,
    h_detail: RegE<Bits<32>>,
    /// The held trap changed and its report is not written yet.
    due: RegE<bool>,
    // The report registers, in their own widths (extended to 32 bits
    // after the register, so that no extension sits between the report's
    // selection and the register).
    rep_cause: RegE<Bits<CAUSE_W>>,
    rep_pc: RegE<Bits<16>>,
    rep_warp: RegE<Bits<4>>,
    rep_lanes: RegE<Bits<L>>,
    rep_arr: RegE<Bits<CNT_W>>,
    rep_exi: RegE<Bits<CNT_W>>,
    rep: Vec<RegE<Bits<32>>>,
    x_cause: Ext<CAUSE_W, 32>,
    x_pc: Ext<16, 32>,
    x_wib: Ext<4, 32>,
    x_lanes: Resize<L, 32>,
    x_arr: Ext<CNT_W, 32>,
    x_exi: Ext<CNT_W, 32>,
    // Locals.
    a_oh: Signal<Local, Bits<16>>,
    g_oh: Signal<Local, Bits<16>>,
    h_oh: Signal<Local, Bits<16>>,
    h_older: Signal<Local, Bits<16>>,
    a_older: Signal<Local, Bits<16>>,
    a_rep: Signal<Local, bool>,
    n_valid: Signal<Local, bool>,
    n_older: Signal<Local, Bits<16>>,
    g_rep: Signal<Local, bool>,
    h7: Signal<Local, bool>,
    wcand: Signal<Local, Bits<16>>,
    vfirst: Signal<Local, Bits<16>>,
    v_lanes: Signal<Local, Bits<L>>,
    v_wib: Signal<Local, Bits<4>>,
    v_idx: Signal<Local, Bits<4>>,
    s_warps: Signal<Local, Bits<16>>,
    bx: Signal<Local, Bits<32>>,
    by: Signal<Local, Bits<32>>,
    bz: Signal<Local, Bits<32>>,
    arr: Signal<Local, Bits<CNT_W>>,
    exi: Signal<Local, Bits<CNT_W>>,
    wr: Signal<Local, bool>,
    /// Set bits above the configured warps (the name keeps Verilator's
    /// UNUSEDSIGNAL quiet).
    unused_sets: Signal<Local, bool>,
    z16: Constant<Bits<16>>,
    z4: Constant<Bits<4>>,
    zl: Constant<Bits<L>>,
    zc: Constant<Bits<CNT_W>>,
    z32: Constant<Bits<32>>,
    k7: Constant<Bits<CAUSE_W>>,
    k11: Constant<Bits<CAUSE_W>>,
    idx: Vec<Constant<Bits<4>>>,
    bit: Vec<Constant<Bits<16>>>,
    _slots: usize,
    _warps: usize,
}

/// The 32-bit report registers in [`TrapUnit`]'s `rep`: block x, y, z,
/// address, detail, threads.
const NREP: usize = 6;

impl<const L: usize> TrapUnit<L> {
    pub fn new(slots: usize, warps: usize) -> Self {
        assert!((1..=16).contains(&slots) && (1..=16).contains(&warps));
        assert!(L <= 32);
        fn sig<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| Default::default()).collect()
        }
        TrapUnit {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            a_valid: Default::default(),
            a_cause: Default::default(),
            a_slot: Default::default(),
            a_wib: Default::default(),
            a_pc: Default::default(),
            a_lanes: Default::default(),
            a_addr: Default::default(),
            a_detail: Default::default(),
            g_valid: Default::default(),
            g_slot: Default::default(),
            g_wib: Default::default(),
            g_pc: Default::default(),
            g_lanes: Default::default(),
            g_addr: Default::default(),
            older: sig(slots),
            ctaid_x: sig(slots),
            ctaid_y: sig(slots),
            ctaid_z: sig(slots),
            arrived: sig(slots),
            exited: sig(slots),
            slot_warps: sig(slots),
            threads: Default::default(),
            waiting: sig(warps),
            wib: sig(warps),
            port_busy: Default::default(),
            t_pc: Default::default(),
            held: Default::default(),
            held_next: Default::default(),
            raise: Default::default(),
            freeze: Default::default(),
            t_read: Default::default(),
            t_warp: Default::default(),
            t_lane: Default::default(),
            r_cause: Default::default(),
            r_pc: Default::default(),
            r_warp: Default::default(),
            r_lanes: Default::default(),
            r_block_x: Default::default(),
            r_block_y: Default::default(),
            r_block_z: Default::default(),
            r_addr: Default::default(),
            r_detail: Default::default(),
            r_arrived: Default::default(),
            r_exited: Default::default(),
            r_threads: Default::default(),
            h_valid: Default::default(),
            h_slot: Default::default(),
            h_cause: Default::default(),
            h_wib: Default::default(),
            h_pc: Default::default(),
            h_lanes: Default::default(),
            h_addr: Default::default(),
            h_detail: Default::default(),
            due: Default::default(),
            rep_cause: Default::default(),
            rep_pc: Default::default(),
            rep_warp: Default::default(),
            rep_lanes: Default::default(),
            rep_arr: Default::default(),
            rep_exi: Default::default(),
            rep: sig(NREP),
            x_cause: Default::default(),
            x_pc: Default::default(),
            x_wib: Default::default(),
            x_lanes: Default::default(),
            x_arr: Default::default(),
            x_exi: Default::default(),
            a_oh: Default::default(),
            g_oh: Default::default(),
            h_oh: Default::default(),
            h_older: Default::default(),
            a_older: Default::default(),
            a_rep: Default::default(),
            n_valid: Default::default(),
            n_older: Default::default(),
            g_rep: Default::default(),
            h7: Default::default(),
            wcand: Default::default(),
            vfirst: Default::default(),
            v_lanes: Default::default(),
            v_wib: Default::default(),
            v_idx: Default::default(),
            s_warps: Default::default(),
            bx: Default::default(),
            by: Default::default(),
            bz: Default::default(),
            arr: Default::default(),
            exi: Default::default(),
            wr: Default::default(),
            unused_sets: Default::default(),
            z16: Constant::new(0u64.into()),
            z4: Constant::new(0u64.into()),
            zl: Constant::new(0u64.into()),
            zc: Constant::new(0u64.into()),
            z32: Constant::new(0u64.into()),
            k7: Constant::new(7u64.into()),
            k11: Constant::new(11u64.into()),
            idx: (0..slots.max(warps))
                .map(|k| Constant::new((k as u64).into()))
                .collect(),
            bit: (0..slots.max(warps))
                .map(|k| Constant::new((1u64 << k).into()))
                .collect(),
            _slots: slots,
            _warps: warps,
        }
    }
}

impl<const L: usize> Logic for TrapUnit<L> {
    #[hdl_gen]
    fn update(&mut self) {
        self.h_valid.clock.next = self.clock.val();
        self.h_slot.clock.next = self.clock.val();
        self.h_cause.clock.next = self.clock.val();
        self.h_wib.clock.next = self.clock.val();
        self.h_pc.clock.next = self.clock.val();
        self.h_lanes.clock.next = self.clock.val();
        self.h_addr.clock.next = self.clock.val();
        self.h_detail.clock.next = self.clock.val();
        self.due.clock.next = self.clock.val();
        self.h_valid.reset.next = self.reset.val();
        self.h_slot.reset.next = self.reset.val();
        self.h_cause.reset.next = self.reset.val();
        self.h_wib.reset.next = self.reset.val();
        self.h_pc.reset.next = self.reset.val();
        self.h_lanes.reset.next = self.reset.val();
        self.h_addr.reset.next = self.reset.val();
        self.h_detail.reset.next = self.reset.val();
        self.due.reset.next = self.reset.val();
        self.rep_cause.clock.next = self.clock.val();
        self.rep_pc.clock.next = self.clock.val();
        self.rep_warp.clock.next = self.clock.val();
        self.rep_lanes.clock.next = self.clock.val();
        self.rep_arr.clock.next = self.clock.val();
        self.rep_exi.clock.next = self.clock.val();
        self.rep_cause.reset.next = self.reset.val();
        self.rep_pc.reset.next = self.reset.val();
        self.rep_warp.reset.next = self.reset.val();
        self.rep_lanes.reset.next = self.reset.val();
        self.rep_arr.reset.next = self.reset.val();
        self.rep_exi.reset.next = self.reset.val();
        self.rep_cause.ld.next = false;
        self.rep_pc.ld.next = false;
        self.rep_warp.ld.next = false;
        self.rep_lanes.ld.next = false;
        self.rep_arr.ld.next = false;
        self.rep_exi.ld.next = false;
        self.rep_cause.lv.next = self.h_cause.q.val();
        self.rep_pc.lv.next = self.h_pc.q.val();
        self.rep_warp.lv.next = self.h_wib.q.val();
        self.rep_lanes.lv.next = self.h_lanes.q.val();
        self.rep_arr.lv.next = self.zc.val();
        self.rep_exi.lv.next = self.zc.val();
        for i in 0..6 {
            self.rep[i].clock.next = self.clock.val();
            self.rep[i].reset.next = self.reset.val();
            self.rep[i].ld.next = false;
            self.rep[i].lv.next = self.z32.val();
        }

        // One-hot slots and the age rows they select (AND-OR).
        self.a_oh.next = self.z16.val();
        self.g_oh.next = self.z16.val();
        self.h_oh.next = self.z16.val();
        for s in 0..self._slots {
            if self.a_slot.val() == self.idx[s].val() {
                self.a_oh.next = self.a_oh.val() | self.bit[s].val();
            }
            if self.g_slot.val() == self.idx[s].val() {
                self.g_oh.next = self.g_oh.val() | self.bit[s].val();
            }
            if self.h_slot.q.val() == self.idx[s].val() {
                self.h_oh.next = self.h_oh.val() | self.bit[s].val();
            }
        }
        self.h_older.next = self.z16.val();
        self.a_older.next = self.z16.val();
        self.s_warps.next = self.z16.val();
        self.bx.next = self.z32.val();
        self.by.next = self.z32.val();
        self.bz.next = self.z32.val();
        self.arr.next = self.zc.val();
        self.exi.next = self.zc.val();
        for s in 0..self._slots {
            if self.h_oh.val().get_bit(s) {
                self.h_older.next = self.h_older.val() | self.older[s].val();
                self.s_warps.next = self.s_warps.val() | self.slot_warps[s].val();
                self.bx.next = self.bx.val() | self.ctaid_x[s].val();
                self.by.next = self.by.val() | self.ctaid_y[s].val();
                self.bz.next = self.bz.val() | self.ctaid_z[s].val();
                self.arr.next = self.arr.val() | self.arrived[s].val();
                self.exi.next = self.exi.val() | self.exited[s].val();
            }
            if self.a_oh.val().get_bit(s) {
                self.a_older.next = self.a_older.val() | self.older[s].val();
            }
        }

        // §13.2: A's trap first, then the global unit's; each replaces the
        // held one only if its slot is strictly older.
        self.a_rep.next = self.a_valid.val()
            & (!self.h_valid.q.val() | (self.h_older.val() & self.a_oh.val()).any());
        self.n_valid.next = self.h_valid.q.val() | self.a_valid.val();
        self.n_older.next = self.h_older.val();
        if self.a_rep.val() {
            self.n_older.next = self.a_older.val();
        }
        self.g_rep.next = self.g_valid.val()
            & (!self.n_valid.val() | (self.n_older.val() & self.g_oh.val()).any());

        self.h_valid.ld.next = self.clear.val();
        self.h_valid.lv.next = false;
        self.h_valid.en.next = true;
        self.h_valid.d.next = self.n_valid.val() | self.g_valid.val();
        self.h_slot.ld.next = self.g_rep.val();
        self.h_slot.lv.next = self.g_slot.val();
        self.h_slot.en.next = self.a_rep.val();
        self.h_slot.d.next = self.a_slot.val();
        self.h_cause.ld.next = self.g_rep.val();
        self.h_cause.lv.next = self.k11.val();
        self.h_cause.en.next = self.a_rep.val();
        self.h_cause.d.next = self.a_cause.val();
        self.h_wib.ld.next = self.g_rep.val();
        self.h_wib.lv.next = self.g_wib.val();
        self.h_wib.en.next = self.a_rep.val();
        self.h_wib.d.next = self.a_wib.val();
        self.h_pc.ld.next = self.g_rep.val();
        self.h_pc.lv.next = self.g_pc.val();
        self.h_pc.en.next = self.a_rep.val();
        self.h_pc.d.next = self.a_pc.val();
        self.h_lanes.ld.next = self.g_rep.val();
        self.h_lanes.lv.next = self.g_lanes.val();
        self.h_lanes.en.next = self.a_rep.val();
        self.h_lanes.d.next = self.a_lanes.val();
        self.h_addr.ld.next = self.g_rep.val();
        self.h_addr.lv.next = self.g_addr.val();
        self.h_addr.en.next = self.a_rep.val();
        self.h_addr.d.next = self.a_addr.val();
        self.h_detail.ld.next = self.g_rep.val();
        self.h_detail.lv.next = self.z32.val();
        self.h_detail.en.next = self.a_rep.val();
        self.h_detail.d.next = self.a_detail.val();

        self.held.next = self.h_valid.q.val();
        self.held_next.next = self.n_valid.val() | self.g_valid.val();
        self.raise.next = self.a_valid.val() | self.g_valid.val();
        self.freeze.next = self.z16.val();
        if self.a_valid.val() {
            self.freeze.next = self.a_oh.val();
        }
        if self.g_valid.val() {
            self.freeze.next = self.freeze.val() | self.g_oh.val();
        }

        // ---- the report (§13.3): the cycle after the held trap changed ----
        self.h7.next = self.h_cause.q.val() == self.k7.val();
        self.wcand.next = self.z16.val();
        for w in 0..self._warps {
            if self.s_warps.val().get_bit(w) & self.waiting[w].val().any() {
                self.wcand.next = self.wcand.val() | self.bit[w].val();
            }
        }
        self.vfirst.next = self.wcand.val() & (self.z16.val() - self.wcand.val());
        self.v_lanes.next = self.zl.val();
        self.v_wib.next = self.z4.val();
        self.v_idx.next = self.z4.val();
        for w in 0..self._warps {
            if self.vfirst.val().get_bit(w) {
                self.v_lanes.next = self.v_lanes.val() | self.waiting[w].val();
                self.v_wib.next = self.v_wib.val() | self.wib[w].val();
                self.v_idx.next = self.v_idx.val() | self.idx[w].val();
            }
        }
        self.unused_sets.next =
            self.vfirst.val().any() | self.s_warps.val().any() | self.wcand.val().any();
        self.t_read.next = self.due.q.val() & self.h_valid.q.val() & self.h7.val();
        self.t_warp.next = self.v_idx.val();
        self.t_lane.next = self.v_lanes.val() & (self.zl.val() - self.v_lanes.val());
        self.wr.next =
            self.due.q.val() & self.h_valid.q.val() & !(self.h7.val() & self.port_busy.val());
        self.due.ld.next = self.clear.val();
        self.due.lv.next = false;
        self.due.en.next = true;
        self.due.d.next = self.a_rep.val() | self.g_rep.val() | (self.due.q.val() & !self.wr.val());

        self.rep_cause.en.next = self.wr.val();
        self.rep_pc.en.next = self.wr.val();
        self.rep_warp.en.next = self.wr.val();
        self.rep_lanes.en.next = self.wr.val();
        self.rep_arr.en.next = self.wr.val();
        self.rep_exi.en.next = self.wr.val();
        for i in 0..6 {
            self.rep[i].en.next = self.wr.val();
        }
        self.rep_cause.d.next = self.h_cause.q.val();
        self.rep_pc.d.next = self.h_pc.q.val();
        self.rep_warp.d.next = self.h_wib.q.val();
        self.rep_lanes.d.next = self.h_lanes.q.val();
        if self.h7.val() {
            self.rep_pc.d.next = self.t_pc.val();
            self.rep_warp.d.next = self.v_wib.val();
            self.rep_lanes.d.next = self.v_lanes.val();
        }
        self.rep_arr.d.next = self.arr.val();
        self.rep_exi.d.next = self.exi.val();
        self.rep[0].d.next = self.bx.val();
        self.rep[1].d.next = self.by.val();
        self.rep[2].d.next = self.bz.val();
        self.rep[3].d.next = self.h_addr.q.val();
        self.rep[4].d.next = self.h_detail.q.val();
        self.rep[5].d.next = self.threads.val();
        self.x_cause.i.next = self.rep_cause.q.val();
        self.x_pc.i.next = self.rep_pc.q.val();
        self.x_wib.i.next = self.rep_warp.q.val();
        self.x_lanes.i.next = self.rep_lanes.q.val();
        self.x_arr.i.next = self.rep_arr.q.val();
        self.x_exi.i.next = self.rep_exi.q.val();
        self.r_cause.next = self.x_cause.o.val();
        self.r_pc.next = self.x_pc.o.val();
        self.r_warp.next = self.x_wib.o.val();
        self.r_lanes.next = self.x_lanes.o.val();
        self.r_block_x.next = self.rep[0].q.val();
        self.r_block_y.next = self.rep[1].q.val();
        self.r_block_z.next = self.rep[2].q.val();
        self.r_addr.next = self.rep[3].q.val();
        self.r_detail.next = self.rep[4].q.val();
        self.r_arrived.next = self.x_arr.o.val();
        self.r_exited.next = self.x_exi.o.val();
        self.r_threads.next = self.rep[5].q.val();
    }
}
