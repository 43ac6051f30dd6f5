//! Stage S of Core v2: the warp scheduler (docs/microarchitecture.md §6).
//!
//! Each cycle of `RUN`/`STOPPING` (`run`) it selects the first of: a return
//! slot (`ret_req`), an init slot (`init_req`), a warp pass of a ready warp
//! chosen by the policy, a bubble (§6.1); while `halt` (`CTRL.HALT`,
//! §15.3) only return slots. The readiness of each warp (§5.4) is an input,
//! `ready`.
//!
//! * `lrr` (§6.2): the first ready warp in the order `rr, rr+1, …` (mod
//!   `W`); after a warp pass of `w`, `rr := w + 1 mod W`. `rr` is kept one-hot
//!   (`rr_q`, 0 meaning warp 0, so that reset and `start` clear it): the
//!   ready warps at or above `rr` are `ready & !(rr_q − 1)`; the first of them,
//!   or else the first ready warp, is isolated by `x & (!x + 1)` (one carry
//!   chain of `W` bits); the new `rr_q` is the pick rotated left by one.
//! * `gto` (§6.3): `last` (one-hot, 0 = invalid) if it is ready, else the
//!   oldest ready warp. Warp `w` is older than `v` when `w`'s block slot was
//!   launched before `v`'s, or both are in the same slot and
//!   `wib[w] < wib[v]`. Slot `k` owns warps `k·nwarps … (k+1)·nwarps − 1`
//!   (§12.2), so within a slot `wib` order is warp-index order. The slot age
//!   matrix of §5.3 is kept per slot as a warp mask, `older[k]`: the warps
//!   of the slots launched before slot `k` (`smask[k]` are slot `k`'s warps,
//!   an input fixed for a launch). When slot `k` launches (`launch[k]`, at
//!   the end of the launch cycle) it becomes the youngest: `older[k] :=
//!   !smask[k]` and every other row loses slot `k`'s warps. A slot is
//!   *first* when no warp of `older[k]` is ready; the oldest ready warp is
//!   the lowest ready warp of the first slots (only one slot with ready
//!   warps can be first).
//!
//! The policy is chosen when the block is built ([`Scheduler::new`]): the
//! other policy's logic is behind a constant and disappears in synthesis.
//!
//! Outputs: the item of this cycle, combinational (`ret`, `init`, `warp`,
//! `sel` one-hot: for the warp control state, which marks the selected warp
//! busy at the end of the cycle), and the same registered at the end of the
//! cycle for stage F (`f_ret`, `f_init`, `f_warp`, `f_sel`, and `f_idx`,
//! the index of `f_sel`, encoded by AND-OR after the register). `start` (a `CTRL.START` accepted) resets `rr`, `last`
//! and the ages at the end of its cycle, as reset does.

use rust_hdl_core::prelude::*;

use crate::util::Reg;

/// Width of the warp index outputs (W ≤ 16).
pub const WARP_IDX_BITS: usize = 4;

/// The scheduler policy (`scheduler:` of the configuration, §17.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    Lrr,
    Gto,
}

/// Stage S for `W` warps (1..=16) and `slots` block slots.
#[derive(LogicBlock)]
pub struct Scheduler<const W: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    /// `CTRL.START` accepted in this cycle: `rr`, `last` and the ages are
    /// cleared at its end.
    pub start: Signal<In, bool>,
    /// The core is in `RUN` or `STOPPING`: S selects an item.
    pub run: Signal<In, bool>,
    /// A completed global entry waits for its return slot (priority 1).
    pub ret_req: Signal<In, bool>,
    /// The launch unit has an init slot to issue (priority 2).
    pub init_req: Signal<In, bool>,
    /// `CTRL.HALT` (§15.3): only return slots are selected.
    pub halt: Signal<In, bool>,
    /// Ready warps (§5.4, `halt` included), warp `w` at bit `w`.
    pub ready: Signal<In, Bits<W>>,
    /// Per block slot: its warps (fixed during a launch).
    pub smask: Vec<Signal<In, Bits<W>>>,
    /// Per block slot: the slot is launched at the end of this cycle (at
    /// most one).
    pub launch: Vec<Signal<In, bool>>,
    /// This cycle's item: a return slot, an init slot, a warp pass (none:
    /// a bubble).
    pub ret: Signal<Out, bool>,
    pub init: Signal<Out, bool>,
    pub warp: Signal<Out, bool>,
    /// The selected warp, one-hot (0 unless `warp`).
    pub sel: Signal<Out, Bits<W>>,
    /// The item registered for stage F.
    pub f_ret: Signal<Out, bool>,
    pub f_init: Signal<Out, bool>,
    pub f_warp: Signal<Out, bool>,
    pub f_sel: Signal<Out, Bits<W>>,
    /// `f_sel`'s index (encoded after the register, in F).
    pub f_idx: Signal<Out, Bits<WARP_IDX_BITS>>,
    rr_q: Reg<Bits<W>>,
    last_q: Reg<Bits<W>>,
    older: Vec<Reg<Bits<W>>>,
    ret_q: Reg<bool>,
    init_q: Reg<bool>,
    warp_q: Reg<bool>,
    sel_q: Reg<Bits<W>>,
    gto: Constant<bool>,
    one: Constant<Bits<W>>,
    zero: Constant<Bits<W>>,
    wm1: Constant<Bits<8>>,
    wbit: Vec<Constant<Bits<W>>>,
    widx: Vec<Constant<Bits<WARP_IDX_BITS>>>,
    zidx: Constant<Bits<WARP_IDX_BITS>>,
    below: Signal<Local, Bits<W>>,
    hi: Signal<Local, Bits<W>>,
    lsrc: Signal<Local, Bits<W>>,
    lpick: Signal<Local, Bits<W>>,
    lhit: Signal<Local, Bits<W>>,
    cand: Signal<Local, Bits<W>>,
    first: Signal<Local, bool>,
    oldest: Signal<Local, Bits<W>>,
    gpick: Signal<Local, Bits<W>>,
    pick: Signal<Local, Bits<W>>,
    go: Signal<Local, bool>,
    lwarps: Signal<Local, Bits<W>>,
    nidx: Signal<Local, Bits<WARP_IDX_BITS>>,
    _slots: usize,
    _w: usize,
}

impl<const W: usize> Scheduler<W> {
    pub fn new(policy: Policy, slots: usize) -> Self {
        assert!((1..=16).contains(&W), "1..=16 warps");
        assert!((1..=W).contains(&slots), "1..=W block slots");
        fn sig<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| Default::default()).collect()
        }
        let k = |v: u64| Constant::new(Bits::<W>::from(v));
        Scheduler {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            run: Default::default(),
            ret_req: Default::default(),
            init_req: Default::default(),
            halt: Default::default(),
            ready: Default::default(),
            smask: sig(slots),
            launch: sig(slots),
            ret: Default::default(),
            init: Default::default(),
            warp: Default::default(),
            sel: Default::default(),
            f_ret: Default::default(),
            f_init: Default::default(),
            f_warp: Default::default(),
            f_sel: Default::default(),
            f_idx: Default::default(),
            rr_q: Default::default(),
            last_q: Default::default(),
            older: sig(slots),
            ret_q: Default::default(),
            init_q: Default::default(),
            warp_q: Default::default(),
            sel_q: Default::default(),
            gto: Constant::new(policy == Policy::Gto),
            one: k(1),
            zero: k(0),
            wm1: Constant::new(((W - 1) as u64).into()),
            wbit: (0..W).map(|w| k(1 << w)).collect(),
            zidx: Constant::new(0u64.into()),
            widx: (0..W).map(|w| Constant::new((w as u64).into())).collect(),
            below: Default::default(),
            hi: Default::default(),
            lsrc: Default::default(),
            lpick: Default::default(),
            lhit: Default::default(),
            cand: Default::default(),
            first: Default::default(),
            oldest: Default::default(),
            gpick: Default::default(),
            pick: Default::default(),
            go: Default::default(),
            lwarps: Default::default(),
            nidx: Default::default(),
            _slots: slots,
            _w: W,
        }
    }
}

impl<const W: usize> Logic for Scheduler<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.rr_q.clock.next = self.clock.val();
        self.rr_q.reset.next = self.reset.val();
        self.last_q.clock.next = self.clock.val();
        self.last_q.reset.next = self.reset.val();
        self.ret_q.clock.next = self.clock.val();
        self.ret_q.reset.next = self.reset.val();
        self.init_q.clock.next = self.clock.val();
        self.init_q.reset.next = self.reset.val();
        self.warp_q.clock.next = self.clock.val();
        self.warp_q.reset.next = self.reset.val();
        self.sel_q.clock.next = self.clock.val();
        self.sel_q.reset.next = self.reset.val();
        for i in 0..self._slots {
            self.older[i].clock.next = self.clock.val();
            self.older[i].reset.next = self.reset.val();
        }
        // LRR: first ready warp at or above rr, else the first ready warp.
        self.below.next = self.rr_q.q.val() - self.one.val();
        self.hi.next = self.ready.val() & !self.below.val();
        self.lsrc.next = self.ready.val();
        if self.hi.val().any() {
            self.lsrc.next = self.hi.val();
        }
        self.lpick.next = self.lsrc.val() & (!self.lsrc.val() + self.one.val());
        // GTO: last if ready, else the lowest ready warp of the first slot.
        self.lhit.next = self.last_q.q.val() & self.ready.val();
        self.cand.next = self.zero.val();
        for i in 0..self._slots {
            self.first.next = !(self.ready.val() & self.older[i].q.val()).any();
            if self.first.val() {
                self.cand.next = self.cand.val() | (self.ready.val() & self.smask[i].val());
            }
        }
        self.oldest.next = self.cand.val() & (!self.cand.val() + self.one.val());
        self.gpick.next = self.oldest.val();
        if self.lhit.val().any() {
            self.gpick.next = self.lhit.val();
        }
        self.pick.next = self.lpick.val();
        if self.gto.val() {
            self.pick.next = self.gpick.val();
        }
        // Item priority.
        self.ret.next = self.run.val() & self.ret_req.val();
        self.init.next =
            self.run.val() & !self.ret_req.val() & self.init_req.val() & !self.halt.val();
        self.go.next = self.run.val()
            & !self.ret_req.val()
            & !self.init_req.val()
            & !self.halt.val()
            & self.ready.val().any();
        self.warp.next = self.go.val();
        self.sel.next = self.zero.val();
        if self.go.val() {
            self.sel.next = self.pick.val();
        }
        // State: rr, last, ages.
        self.rr_q.d.next = self.rr_q.q.val();
        self.last_q.d.next = self.last_q.q.val();
        if self.go.val() {
            self.rr_q.d.next = (self.pick.val() << 1) | (self.pick.val() >> self.wm1.val());
            self.last_q.d.next = self.pick.val();
        }
        self.lwarps.next = self.zero.val();
        for i in 0..self._slots {
            if self.launch[i].val() {
                self.lwarps.next = self.lwarps.val() | self.smask[i].val();
            }
        }
        for i in 0..self._slots {
            self.older[i].d.next = self.older[i].q.val() & !self.lwarps.val();
            if self.launch[i].val() {
                self.older[i].d.next = !self.smask[i].val();
            }
            if self.start.val() {
                self.older[i].d.next = self.zero.val();
            }
        }
        if self.start.val() {
            self.rr_q.d.next = self.zero.val();
            self.last_q.d.next = self.zero.val();
        }
        // Registers for stage F.
        self.ret_q.d.next = self.ret.val();
        self.init_q.d.next = self.init.val();
        self.warp_q.d.next = self.go.val();
        self.sel_q.d.next = self.sel.val();
        self.f_ret.next = self.ret_q.q.val();
        self.f_init.next = self.init_q.q.val();
        self.f_warp.next = self.warp_q.q.val();
        self.f_sel.next = self.sel_q.q.val();
        self.nidx.next = self.zidx.val();
        for w in 0..self._w {
            if (self.sel_q.q.val() & self.wbit[w].val()).any() {
                self.nidx.next = self.nidx.val() | self.widx[w].val();
            }
        }
        self.f_idx.next = self.nidx.val();
    }
}
