//! Stage A of Core v2 (docs/microarchitecture.md §9): what the commit
//! at the end of A writes, from the arbiter tree's result and the values
//! the pass registered at the end of X, and the background re-arbitration
//! engine (§9.5). The arbiter's result comes from the comparison matrix
//! (§9.1): [`crate::arbiter::KeyCompare`] at the key register's input and
//! [`crate::arbiter::RowSelect`] in A (`K`-bit keys, `L`-bit masks),
//! instantiated as `concord_arbiter` (`unified`) or as
//! `concord_arbiter_branch` + `concord_arbiter_mem` (`split`), with the
//! outputs of [`crate::arbiter::KeyTree`], which this block's tests still
//! use to drive it. Everything below is combinational except the
//! engine's one-hot "warp loaded into the key register" register.
//!
//! # Port interface (`ACommit<L>`; warp sets `Bits<16>`, warp `w` at bit `w`)
//!
//! Generator constants (`ACommit::new`): `pc_bits` (the key's PC field),
//! `max_depth` (`MAXD`), `depth_pc` (`arbitration: depth_pc`; `pc_only`
//! gives `gdepth` 0), `split` (`arbiter: split`).
//!
//! Inputs, the pass in A (registered at the end of X):
//!
//! | port | width | meaning |
//! |---|---|---|
//! | `commit` | 1 | a warp pass commits in A (not squashed, not trapped, slot not `FROZEN`) |
//! | `warp` | 16 | its warp, one-hot |
//! | `is_ctl`, `is_mem`, `is_atom` | 1 each | control pass; memory pass; the memory pass is an atomic |
//! | `is_bar`, `is_exit` | 1 each | `bar.sync`, `exit` (control passes) |
//! | `refused` | 1 | the memory pass is refused (§10.1 port busy, §10.2 no free entry) |
//! | `active`, `exec` | `L` | the group and its guard-true lanes |
//! | `joins` | `L` | X's join lanes (§8): schedulable, stored pc `gpc + 1`, depth `gdepth` |
//! | `gpc`, `gdepth` | 16, 8 | the warp's group pc and depth |
//! | `alive`, `waiting` | `L` | the warp's registers before the commit |
//! | `npc[l]` | 16 | control passes: lane `l`'s next pc (the pc field of its key) |
//! | `a_tree_br`, `a_tree_mem` | 1 each | the pass's tree use by its class (§9.2), for `tr_tree` |
//!
//! Inputs, the tree(s) (unified: the same tree on both):
//! `tb_min` (`KM` = 24 bits, the branch tree's `min` zero-extended),
//! `tb_sel`, `tb_any` (branch mode); `tm_sel` (memory mode, `L`).
//!
//! Inputs, the committing warp's block slot (§9.4): `arrived`, `exited`,
//! `threads` (`CNT_W` bits), `slot_warps` (16: the warps of the slot).
//!
//! Inputs, the engine (§9.5): `rearb` (16: warps with `rearb`), `run`
//! (16: warps whose slot is `RUN`), `x_tree_br`, `x_tree_mem` (the tree
//! use of the pass now in X, which holds the key register next cycle).
//!
//! Outputs, the warp state's commit port (`WarpState` on `v2core`):
//!
//! | port | width | meaning |
//! |---|---|---|
//! | `c_we` | 16 | `warp` when `commit` |
//! | `c_gmask`, `c_gpc`, `c_gdepth` | `L`, 16, 8 | the group after the commit |
//! | `c_alive`, `c_waiting`, `c_replay` | `L`, `L`, 1 | |
//! | `served` | `L` | memory passes that commit: lanes served (0 for a refused pass, `exec == 0` or a pass that does not commit) |
//! | `pending` | `L` | memory passes: lanes still pending after the pass |
//! | `pcw_we` | `L` | lane-PC LUT-RAM write enables (both copies) |
//! | `pcw_data[l]` | 16 | its data: `npc[l]` (control) or `gpc + 1` (lanes leaving a replayed group) |
//! | `arrived_n`, `exited_n`, `slot_we` | `CNT_W`, `CNT_W`, 1 | the slot's counts after §9.4 |
//! | `rel` | 16 | barrier release: the slot's warps (`waiting := 0`, `rearb := 1`) |
//! | `trap7` | 1 | *barrier can never complete* after this commit |
//! | `retire` | 1 | the block has exited (§12.5) |
//! | `e_we`, `e_gmask`, `e_gpc`, `e_gdepth` | 16, `L`, 16, 8 | the engine's group write (warp computed in this cycle) |
//! | `e_load` | 16 | the warp whose keys the engine loads into the key register at the end of this cycle |
//!
//! Counter events: `ev_issued`, `ev_replays`, `ev_barriers`, `ev_rearbs`,
//! `ev_rearb_wait`, `ev_arrivals` (`CNT_W`: `barrier_arrivals` increment).
//! Trace: `tr_a_served`, `tr_a_gmask`, `tr_a_gpc` (committed passes),
//! `tr_a_pcw`, `tr_tree` (3 bits), `tr_rearb` (one-hot warp; the core
//! encodes `tr_rearb_warp`).

use rust_hdl_core::prelude::*;

use crate::util::Reg;

/// The widths of a group pc and a stored depth are the warp state's.
pub use super::warpstate::{DEPTH_W, PC_W};
/// Width of the branch key as this block reads it (`D + pc_bits` ≤ 24);
/// a narrower tree's `min` is zero-extended by the core.
pub const KM: usize = 24;
/// Width of a slot's `arrived` / `exited` count (`Kt + 1` ≤ 10).
pub const CNT_W: usize = 10;

/// The commit of stage A and the re-arbitration engine for `L` lanes.
#[derive(LogicBlock)]
pub struct ACommit<const L: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub commit: Signal<In, bool>,
    pub warp: Signal<In, Bits<16>>,
    pub is_ctl: Signal<In, bool>,
    pub is_mem: Signal<In, bool>,
    pub is_atom: Signal<In, bool>,
    pub is_bar: Signal<In, bool>,
    pub is_exit: Signal<In, bool>,
    pub refused: Signal<In, bool>,
    pub active: Signal<In, Bits<L>>,
    pub exec: Signal<In, Bits<L>>,
    pub joins: Signal<In, Bits<L>>,
    pub gpc: Signal<In, Bits<PC_W>>,
    pub gdepth: Signal<In, Bits<DEPTH_W>>,
    pub alive: Signal<In, Bits<L>>,
    pub waiting: Signal<In, Bits<L>>,
    pub npc: Vec<Signal<In, Bits<PC_W>>>,
    pub a_tree_br: Signal<In, bool>,
    pub a_tree_mem: Signal<In, bool>,
    pub tb_min: Signal<In, Bits<KM>>,
    pub tb_sel: Signal<In, Bits<L>>,
    pub tb_any: Signal<In, bool>,
    pub tm_sel: Signal<In, Bits<L>>,
    pub arrived: Signal<In, Bits<CNT_W>>,
    pub exited: Signal<In, Bits<CNT_W>>,
    pub threads: Signal<In, Bits<CNT_W>>,
    pub slot_warps: Signal<In, Bits<16>>,
    pub rearb: Signal<In, Bits<16>>,
    pub run: Signal<In, Bits<16>>,
    pub x_tree_br: Signal<In, bool>,
    pub x_tree_mem: Signal<In, bool>,

    pub c_we: Signal<Out, Bits<16>>,
    pub c_gmask: Signal<Out, Bits<L>>,
    pub c_gpc: Signal<Out, Bits<PC_W>>,
    pub c_gdepth: Signal<Out, Bits<DEPTH_W>>,
    pub c_alive: Signal<Out, Bits<L>>,
    pub c_waiting: Signal<Out, Bits<L>>,
    pub c_replay: Signal<Out, bool>,
    pub served: Signal<Out, Bits<L>>,
    pub pending: Signal<Out, Bits<L>>,
    pub pcw_we: Signal<Out, Bits<L>>,
    pub pcw_data: Vec<Signal<Out, Bits<PC_W>>>,
    pub arrived_n: Signal<Out, Bits<CNT_W>>,
    pub exited_n: Signal<Out, Bits<CNT_W>>,
    pub slot_we: Signal<Out, bool>,
    pub rel: Signal<Out, Bits<16>>,
    pub trap7: Signal<Out, bool>,
    pub retire: Signal<Out, bool>,
    pub e_we: Signal<Out, Bits<16>>,
    pub e_gmask: Signal<Out, Bits<L>>,
    pub e_gpc: Signal<Out, Bits<PC_W>>,
    pub e_gdepth: Signal<Out, Bits<DEPTH_W>>,
    pub e_load: Signal<Out, Bits<16>>,
    pub ev_issued: Signal<Out, bool>,
    pub ev_replays: Signal<Out, bool>,
    pub ev_barriers: Signal<Out, bool>,
    pub ev_rearbs: Signal<Out, bool>,
    pub ev_rearb_wait: Signal<Out, bool>,
    pub ev_arrivals: Signal<Out, Bits<CNT_W>>,
    pub tr_a_served: Signal<Out, Bits<L>>,
    pub tr_a_gmask: Signal<Out, Bits<L>>,
    pub tr_a_gpc: Signal<Out, Bits<PC_W>>,
    pub tr_a_pcw: Signal<Out, Bits<L>>,
    pub tr_tree: Signal<Out, Bits<3>>,
    pub tr_rearb: Signal<Out, Bits<16>>,

    // The engine's key register holds this warp's keys (one-hot, 0: none).
    eng_q: Reg<Bits<16>>,
    // popcount(exec) for the barrier counts: an adder tree in heap order
    // (leaves L-1..2L-2 = lanes), as the arbiter's.
    pop_n: Vec<Signal<Local, Bits<CNT_W>>>,
    one_c: Constant<Bits<CNT_W>>,
    // The depth field of a key starts at bit `pc_bits`: one constant-true
    // flag per possible start, so that the field is an AND-OR of constant
    // selections (folded away) and every key bit is read.
    dp_at: Vec<Constant<bool>>,
    dp_part: Vec<Signal<Local, Bits<DEPTH_W>>>,
    dp_or: Vec<Signal<Local, Bits<DEPTH_W>>>,
    // The branch tree's result as a group: pc and depth fields of `min`.
    key_dp: Signal<Local, Bits<DEPTH_W>>,
    tree_gpc: Signal<Local, Bits<PC_W>>,
    tree_gdepth: Signal<Local, Bits<DEPTH_W>>,
    tree_gmask: Signal<Local, Bits<L>>,
    gpc1: Signal<Local, Bits<PC_W>>,
    // Memory pass: served, pending after, whether a replay follows.
    mem_srv: Signal<Local, Bits<L>>,
    pend: Signal<Local, Bits<L>>,
    again: Signal<Local, bool>,
    // Advance (non-control passes and completed memory passes).
    adv: Signal<Local, bool>,
    npop: Signal<Local, Bits<CNT_W>>,
    arr1: Signal<Local, Bits<CNT_W>>,
    exi1: Signal<Local, Bits<CNT_W>>,
    releases: Signal<Local, bool>,
    ctl_c: Signal<Local, bool>,
    mem_c: Signal<Local, bool>,
    cand: Signal<Local, Bits<16>>,
    first: Signal<Local, Bits<16>>,
    free: Signal<Local, bool>,
    computing: Signal<Local, Bits<16>>,
    g_ctl_m: Signal<Local, Bits<L>>,
    g_rep_m: Signal<Local, Bits<L>>,
    g_adv_m: Signal<Local, Bits<L>>,
    g_ctl_pc: Signal<Local, Bits<PC_W>>,
    g_keep_pc: Signal<Local, Bits<PC_W>>,
    g_adv_pc: Signal<Local, Bits<PC_W>>,
    g_ctl_d: Signal<Local, Bits<DEPTH_W>>,
    g_keep_d: Signal<Local, Bits<DEPTH_W>>,
    tree_a: Signal<Local, Bits<3>>,
    tree_m: Signal<Local, Bits<3>>,
    tree_e: Signal<Local, Bits<3>>,
    pc_mask: Constant<Bits<PC_W>>,
    max_depth: Constant<Bits<DEPTH_W>>,
    depth_mask: Constant<Bits<DEPTH_W>>,
    split: Constant<bool>,
    one_pc: Constant<Bits<PC_W>>,
    zl: Constant<Bits<L>>,
    zw: Constant<Bits<16>>,
    zc: Constant<Bits<CNT_W>>,
    zpc: Constant<Bits<PC_W>>,
    zd: Constant<Bits<DEPTH_W>>,
    t_br: Constant<Bits<3>>,
    t_mem: Constant<Bits<3>>,
    t_eng: Constant<Bits<3>>,
    t_none: Constant<Bits<3>>,
    _lanes: usize,
    _lm1: usize,
    _dp_starts: usize,
    _dp_end: usize,
}

impl<const L: usize> ACommit<L> {
    /// The block for a core with `pc_bits`-bit pcs, `max_depth` = `MAXD`,
    /// `depth_pc` arbitration or not, and a `split` arbiter or not.
    pub fn new(pc_bits: usize, max_depth: u32, depth_pc: bool, split: bool) -> Self {
        assert!((1..=PC_W).contains(&pc_bits) && max_depth < 256 && L <= 32);
        ACommit {
            clock: Default::default(),
            reset: Default::default(),
            commit: Default::default(),
            warp: Default::default(),
            is_ctl: Default::default(),
            is_mem: Default::default(),
            is_atom: Default::default(),
            is_bar: Default::default(),
            is_exit: Default::default(),
            refused: Default::default(),
            active: Default::default(),
            exec: Default::default(),
            joins: Default::default(),
            gpc: Default::default(),
            gdepth: Default::default(),
            alive: Default::default(),
            waiting: Default::default(),
            npc: signals(L),
            a_tree_br: Default::default(),
            a_tree_mem: Default::default(),
            tb_min: Default::default(),
            tb_sel: Default::default(),
            tb_any: Default::default(),
            tm_sel: Default::default(),
            arrived: Default::default(),
            exited: Default::default(),
            threads: Default::default(),
            slot_warps: Default::default(),
            rearb: Default::default(),
            run: Default::default(),
            x_tree_br: Default::default(),
            x_tree_mem: Default::default(),
            c_we: Default::default(),
            c_gmask: Default::default(),
            c_gpc: Default::default(),
            c_gdepth: Default::default(),
            c_alive: Default::default(),
            c_waiting: Default::default(),
            c_replay: Default::default(),
            served: Default::default(),
            pending: Default::default(),
            pcw_we: Default::default(),
            pcw_data: signals(L),
            arrived_n: Default::default(),
            exited_n: Default::default(),
            slot_we: Default::default(),
            rel: Default::default(),
            trap7: Default::default(),
            retire: Default::default(),
            e_we: Default::default(),
            e_gmask: Default::default(),
            e_gpc: Default::default(),
            e_gdepth: Default::default(),
            e_load: Default::default(),
            ev_issued: Default::default(),
            ev_replays: Default::default(),
            ev_barriers: Default::default(),
            ev_rearbs: Default::default(),
            ev_rearb_wait: Default::default(),
            ev_arrivals: Default::default(),
            tr_a_served: Default::default(),
            tr_a_gmask: Default::default(),
            tr_a_gpc: Default::default(),
            tr_a_pcw: Default::default(),
            tr_tree: Default::default(),
            tr_rearb: Default::default(),
            eng_q: Default::default(),
            pop_n: signals(2 * L - 1),
            one_c: Constant::new(1u64.into()),
            dp_at: (0..=KM - DEPTH_W)
                .map(|s| Constant::new(s == pc_bits))
                .collect(),
            dp_part: signals(KM - DEPTH_W + 1),
            dp_or: signals(KM - DEPTH_W + 2),
            key_dp: Default::default(),
            tree_gpc: Default::default(),
            tree_gdepth: Default::default(),
            tree_gmask: Default::default(),
            gpc1: Default::default(),
            mem_srv: Default::default(),
            pend: Default::default(),
            again: Default::default(),
            adv: Default::default(),
            npop: Default::default(),
            arr1: Default::default(),
            exi1: Default::default(),
            releases: Default::default(),
            ctl_c: Default::default(),
            mem_c: Default::default(),
            cand: Default::default(),
            first: Default::default(),
            free: Default::default(),
            computing: Default::default(),
            g_ctl_m: Default::default(),
            g_rep_m: Default::default(),
            g_adv_m: Default::default(),
            g_ctl_pc: Default::default(),
            g_keep_pc: Default::default(),
            g_adv_pc: Default::default(),
            g_ctl_d: Default::default(),
            g_keep_d: Default::default(),
            tree_a: Default::default(),
            tree_m: Default::default(),
            tree_e: Default::default(),
            pc_mask: Constant::new(((1u64 << pc_bits) - 1).into()),
            max_depth: Constant::new(u64::from(max_depth).into()),
            depth_mask: Constant::new((if depth_pc { 0xffu64 } else { 0 }).into()),
            split: Constant::new(split),
            one_pc: Constant::new(1u64.into()),
            zl: Constant::new(0u64.into()),
            zw: Constant::new(0u64.into()),
            zc: Constant::new(0u64.into()),
            zpc: Constant::new(0u64.into()),
            zd: Constant::new(0u64.into()),
            t_br: Constant::new(1u64.into()),
            t_mem: Constant::new(2u64.into()),
            t_eng: Constant::new(4u64.into()),
            t_none: Constant::new(0u64.into()),
            _lanes: L,
            _lm1: L - 1,
            _dp_starts: KM - DEPTH_W + 1,
            _dp_end: KM - DEPTH_W + 2,
        }
    }
}

impl<const L: usize> Logic for ACommit<L> {
    #[hdl_gen]
    fn update(&mut self) {
        self.eng_q.clock.next = self.clock.val();
        self.eng_q.reset.next = self.reset.val();

        // The branch tree's minimum as a group (§9.3 control row, §9.5).
        self.tree_gpc.next = self.tb_min.val().get_bits::<PC_W>(0) & self.pc_mask.val();
        for s in 0..self._dp_starts {
            self.dp_part[s].next = self.zd.val();
            if self.dp_at[s].val() {
                self.dp_part[s].next = self.tb_min.val().get_bits::<DEPTH_W>(s);
            }
        }
        self.dp_or[0].next = self.zd.val();
        for s in 0..self._dp_starts {
            self.dp_or[s + 1].next = self.dp_or[s].val() | self.dp_part[s].val();
        }
        for s in self._dp_starts..self._dp_end {
            self.key_dp.next = self.dp_or[s].val();
        }
        self.tree_gdepth.next = (self.max_depth.val() - self.key_dp.val()) & self.depth_mask.val();
        self.tree_gmask.next = self.zl.val();
        if self.tb_any.val() {
            self.tree_gmask.next = self.tb_sel.val();
        }
        self.gpc1.next = self.gpc.val() + self.one_pc.val();

        // Memory pass: served lanes (§9.3), the lowest pending lane for an
        // atomic (x & -x), the tree's `sel` for a load or store.
        self.mem_srv.next = self.zl.val();
        if self.is_mem.val() && !self.refused.val() {
            if self.is_atom.val() {
                self.mem_srv.next = self.exec.val() & (self.zl.val() - self.exec.val());
            } else {
                self.mem_srv.next = self.tm_sel.val() & self.exec.val();
            }
        }
        self.pend.next = self.exec.val() & !self.mem_srv.val();
        self.again.next = self.is_mem.val() && self.pend.val().any();
        self.adv.next = !self.is_ctl.val() && !self.again.val();
        self.ctl_c.next = self.commit.val() && self.is_ctl.val();
        self.mem_c.next = self.commit.val() && self.is_mem.val();

        // The group after the commit: three sources under exclusive
        // conditions (control, replay, advance), each ANDed with its
        // condition and ORed, rather than a chain of muxes.
        self.g_ctl_m.next = self.zl.val();
        self.g_ctl_pc.next = self.zpc.val();
        self.g_ctl_d.next = self.zd.val();
        if self.is_ctl.val() {
            self.g_ctl_m.next = self.tree_gmask.val();
        }
        if self.is_ctl.val() && !self.tb_any.val() {
            self.g_ctl_pc.next = self.gpc.val();
            self.g_ctl_d.next = self.gdepth.val();
        }
        if self.is_ctl.val() && self.tb_any.val() {
            self.g_ctl_pc.next = self.tree_gpc.val();
            self.g_ctl_d.next = self.tree_gdepth.val();
        }
        self.g_rep_m.next = self.zl.val();
        self.g_keep_pc.next = self.zpc.val();
        self.g_keep_d.next = self.zd.val();
        if self.again.val() {
            self.g_rep_m.next = self.pend.val();
            self.g_keep_pc.next = self.gpc.val();
        }
        if !self.is_ctl.val() {
            self.g_keep_d.next = self.gdepth.val();
        }
        self.g_adv_m.next = self.zl.val();
        self.g_adv_pc.next = self.zpc.val();
        if self.adv.val() {
            self.g_adv_m.next = self.active.val() | self.joins.val();
            self.g_adv_pc.next = self.gpc1.val();
        }
        self.c_gmask.next = self.g_ctl_m.val() | self.g_rep_m.val() | self.g_adv_m.val();
        self.c_gpc.next = self.g_ctl_pc.val() | self.g_keep_pc.val() | self.g_adv_pc.val();
        self.c_gdepth.next = self.g_ctl_d.val() | self.g_keep_d.val();
        self.c_replay.next = self.again.val();
        self.c_alive.next = self.alive.val();
        self.c_waiting.next = self.waiting.val();
        if self.is_exit.val() {
            self.c_alive.next = self.alive.val() & !self.exec.val();
        }
        if self.is_bar.val() {
            self.c_waiting.next = self.waiting.val() | self.exec.val();
        }
        self.c_we.next = self.zw.val();
        if self.commit.val() {
            self.c_we.next = self.warp.val();
        }
        // Commit-gated (§13.2): a killed pass serves nothing, so the memory
        // units reserve no entry and write nothing for it.
        self.served.next = self.zl.val();
        if self.commit.val() {
            self.served.next = self.mem_srv.val();
        }
        self.pending.next = self.pend.val();

        // Lane pcs: every active lane of a control pass; the lanes leaving
        // a group that replays (served and guard-false ones) at gpc + 1.
        self.pcw_we.next = self.zl.val();
        if self.ctl_c.val() {
            self.pcw_we.next = self.active.val();
        }
        if self.commit.val() && self.again.val() {
            self.pcw_we.next = self.active.val() & !self.pend.val();
        }
        for l in 0..self._lanes {
            self.pcw_data[l].next = self.gpc1.val();
            if self.is_ctl.val() {
                self.pcw_data[l].next = self.npc[l].val();
            }
        }

        // Barrier and exit accounting (§9.4), values after step 1.
        for lm1 in self._lm1..self._lanes {
            for l in 0..self._lanes {
                self.pop_n[lm1 + l].next = self.zc.val();
                if self.exec.val().get_bit(l) {
                    self.pop_n[lm1 + l].next = self.one_c.val();
                }
            }
            for n in 0..self._lm1 {
                self.pop_n[lm1 - n - 1].next =
                    self.pop_n[2 * (lm1 - n) - 1].val() + self.pop_n[2 * (lm1 - n)].val();
            }
        }
        self.npop.next = self.pop_n[0].val();
        self.arr1.next = self.arrived.val();
        self.exi1.next = self.exited.val();
        if self.is_bar.val() {
            self.arr1.next = self.arrived.val() + self.npop.val();
        }
        if self.is_exit.val() {
            self.exi1.next = self.exited.val() + self.npop.val();
        }
        self.slot_we.next = self.ctl_c.val() && (self.is_bar.val() || self.is_exit.val());
        // §9.4 step 2 tests `arrived` after either event (an `exit` cannot
        // complete a barrier from a consistent state, but the rule says so).
        self.releases.next = self.slot_we.val()
            && (self.arr1.val() == self.threads.val())
            && self.threads.val().any();
        self.arrived_n.next = self.arr1.val();
        if self.releases.val() {
            self.arrived_n.next = self.zc.val();
        }
        self.exited_n.next = self.exi1.val();
        self.rel.next = self.zw.val();
        if self.releases.val() {
            self.rel.next = self.slot_warps.val();
        }
        self.trap7.next = self.slot_we.val()
            && !self.releases.val()
            && self.arr1.val().any()
            && self.exi1.val().any()
            && ((self.arr1.val() + self.exi1.val()) == self.threads.val());
        self.retire.next = self.slot_we.val() && (self.exi1.val() == self.threads.val());

        // The engine (§9.5): the warp loaded last cycle is computed now;
        // the lowest candidate (x & -x) is loaded if the tree is free next
        // cycle (§9.2: the pass now in X does not use the branch tree).
        self.computing.next = self.eng_q.q.val() & self.rearb.val();
        self.e_we.next = self.computing.val();
        self.e_gmask.next = self.tree_gmask.val();
        self.e_gpc.next = self.tree_gpc.val();
        self.e_gdepth.next = self.tree_gdepth.val();
        self.cand.next = self.rearb.val() & self.run.val() & !self.eng_q.q.val();
        self.first.next = self.cand.val() & (self.zw.val() - self.cand.val());
        self.free.next = !self.x_tree_br.val() && (!self.x_tree_mem.val() || self.split.val());
        self.e_load.next = self.zw.val();
        if self.free.val() {
            self.e_load.next = self.first.val();
        }
        self.eng_q.d.next = self.e_load.val();

        // Counter events and trace.
        self.ev_issued.next = self.commit.val();
        self.ev_replays.next = self.commit.val() && self.again.val();
        self.ev_barriers.next = self.releases.val();
        self.ev_rearbs.next = self.computing.val().any();
        self.ev_rearb_wait.next = self.cand.val().any() && !self.free.val();
        self.ev_arrivals.next = self.zc.val();
        if self.ctl_c.val() && self.is_bar.val() {
            self.ev_arrivals.next = self.npop.val();
        }
        self.tr_a_served.next = self.zl.val();
        if self.mem_c.val() {
            self.tr_a_served.next = self.mem_srv.val();
        }
        self.tr_a_gmask.next = self.zl.val();
        self.tr_a_gpc.next = self.zpc.val();
        if self.commit.val() {
            self.tr_a_gmask.next = self.c_gmask.val();
            self.tr_a_gpc.next = self.c_gpc.val();
        }
        self.tr_a_pcw.next = self.pcw_we.val();
        self.tree_a.next = self.t_none.val();
        self.tree_m.next = self.t_none.val();
        self.tree_e.next = self.t_none.val();
        if self.a_tree_br.val() {
            self.tree_a.next = self.t_br.val();
        }
        if self.a_tree_mem.val() {
            self.tree_m.next = self.t_mem.val();
        }
        if self.computing.val().any() {
            self.tree_e.next = self.t_eng.val();
        }
        self.tr_tree.next = self.tree_a.val() | self.tree_m.val() | self.tree_e.val();
        self.tr_rearb.next = self.computing.val();
    }
}

/// `count` default signals (for the per-lane and per-node vectors).
fn signals<T: Default>(count: usize) -> Vec<T> {
    (0..count).map(|_| T::default()).collect()
}
