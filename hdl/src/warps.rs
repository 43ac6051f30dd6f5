//! Per-warp state of the core (docs/microarchitecture.md §2): `alive`,
//! `waiting`, the predicate masks `p1..p(P-1)` and the cached arbitration
//! `gvalid`, `gmask`, `gpc`, for every warp.
//!
//! Outputs are views of warp `cur` (and of the predicates the decoder names)
//! computed from the registers only; the core writes the registers through
//! the command inputs, which reach only the registers' D inputs. Keeping the
//! two apart keeps every path from a command to an output sequential, so the
//! core can compute commands from these outputs without combinational loops
//! (Verilator analyses loops per always block).

use rust_hdl_core::prelude::*;

use crate::util::RegE;

#[derive(LogicBlock)]
pub struct WarpState {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    /// Not stalled: every register holds while 0 (a memory wait).
    pub go: Signal<In, bool>,
    pub cur: Signal<In, Bits<4>>,
    /// Predicate indices to read for warp `cur` (guard, source A, source B).
    pub pr_g: Signal<In, Bits<3>>,
    pub pr_a: Signal<In, Bits<3>>,
    pub pr_b: Signal<In, Bits<3>>,

    // Commands (take effect at the clock edge).
    /// INIT cycle 0: `alive` from `threads`, `waiting`, predicates and `gvalid` cleared.
    pub init0: Signal<In, bool>,
    pub threads: Signal<In, Bits<32>>,
    /// Group of warp `cur`: `gmask`, `gpc`, `gvalid`.
    pub grp_we: Signal<In, bool>,
    pub grp_mask: Signal<In, Bits<32>>,
    pub grp_pc: Signal<In, Bits<16>>,
    pub grp_valid: Signal<In, bool>,
    /// `alive[cur] = alive_val`.
    pub alive_we: Signal<In, bool>,
    pub alive_val: Signal<In, Bits<32>>,
    /// `waiting[cur] = wait_val`.
    pub wait_we: Signal<In, bool>,
    pub wait_val: Signal<In, Bits<32>>,
    /// Barrier release: `waiting = 0` and `gvalid = 0` in every warp.
    pub rel_all: Signal<In, bool>,
    /// `pred[cur][pd]` takes `pval` in the lanes of `pmask`.
    pub pred_we: Signal<In, bool>,
    pub pd: Signal<In, Bits<3>>,
    pub pmask: Signal<In, Bits<32>>,
    pub pval: Signal<In, Bits<32>>,

    // Views of warp `cur`.
    pub alive_cur: Signal<Out, Bits<32>>,
    pub waiting_cur: Signal<Out, Bits<32>>,
    pub gmask_cur: Signal<Out, Bits<32>>,
    pub gpc_cur: Signal<Out, Bits<16>>,
    pub pm_g: Signal<Out, Bits<32>>,
    pub pm_a: Signal<Out, Bits<32>>,
    pub pm_b: Signal<Out, Bits<32>>,
    // All warps.
    /// Bit w: warp w has a schedulable lane (`alive & !waiting != 0`).
    pub sched: Signal<Out, Bits<16>>,
    /// Bit w: `gvalid[w]`.
    pub gvalid_all: Signal<Out, Bits<16>>,
    /// The first warp with waiting lanes and its waiting mask (barrier trap).
    pub fw: Signal<Out, Bits<4>>,
    pub fw_mask: Signal<Out, Bits<32>>,

    alive: Vec<RegE<Bits<32>>>,
    waiting: Vec<RegE<Bits<32>>>,
    gvalid: Vec<RegE<bool>>,
    gmask: Vec<RegE<Bits<32>>>,
    gpc: Vec<RegE<Bits<16>>>,
    /// `pred[w * (P-1) + p - 1]` holds predicate p of warp w.
    pred: Vec<RegE<Bits<32>>>,
    /// Initial `alive` mask of each warp for the current `threads`.
    ainit: Vec<Signal<Local, Bits<32>>>,
    warp_base: Vec<Constant<Bits<32>>>,
    warp_bit: Vec<Constant<Bits<16>>>,
    lane_mask: Constant<Bits<32>>,
    lanes_c: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
    zero32: Constant<Bits<32>>,
    zero16: Constant<Bits<16>>,
    zero4: Constant<Bits<4>>,
    ones32: Constant<Bits<32>>,
    _warps: usize,
    _wm1: usize,
    _preds: usize,
    _pm1: usize,
}

impl WarpState {
    pub fn new(lanes: usize, warps: usize, preds: usize) -> Self {
        assert!((1..=16).contains(&warps) && (2..=8).contains(&preds));
        let lane_mask = if lanes == 32 {
            0xffff_ffff
        } else {
            (1u64 << lanes) - 1
        };
        WarpState {
            clock: Default::default(),
            reset: Default::default(),
            go: Default::default(),
            cur: Default::default(),
            pr_g: Default::default(),
            pr_a: Default::default(),
            pr_b: Default::default(),
            init0: Default::default(),
            threads: Default::default(),
            grp_we: Default::default(),
            grp_mask: Default::default(),
            grp_pc: Default::default(),
            grp_valid: Default::default(),
            alive_we: Default::default(),
            alive_val: Default::default(),
            wait_we: Default::default(),
            wait_val: Default::default(),
            rel_all: Default::default(),
            pred_we: Default::default(),
            pd: Default::default(),
            pmask: Default::default(),
            pval: Default::default(),
            alive_cur: Default::default(),
            waiting_cur: Default::default(),
            gmask_cur: Default::default(),
            gpc_cur: Default::default(),
            pm_g: Default::default(),
            pm_a: Default::default(),
            pm_b: Default::default(),
            sched: Default::default(),
            gvalid_all: Default::default(),
            fw: Default::default(),
            fw_mask: Default::default(),
            alive: (0..warps).map(|_| Default::default()).collect(),
            waiting: (0..warps).map(|_| Default::default()).collect(),
            gvalid: (0..warps).map(|_| Default::default()).collect(),
            gmask: (0..warps).map(|_| Default::default()).collect(),
            gpc: (0..warps).map(|_| Default::default()).collect(),
            pred: (0..warps * (preds - 1))
                .map(|_| Default::default())
                .collect(),
            ainit: (0..warps).map(|_| Default::default()).collect(),
            warp_base: (0..warps)
                .map(|w| Constant::new(((w * lanes) as u64).into()))
                .collect(),
            warp_bit: (0..warps)
                .map(|w| Constant::new((1u64 << w).into()))
                .collect(),
            lane_mask: Constant::new(lane_mask.into()),
            lanes_c: Constant::new((lanes as u64).into()),
            one32: Constant::new(1u64.into()),
            zero32: Constant::new(0u64.into()),
            zero16: Constant::new(0u64.into()),
            zero4: Constant::new(0u64.into()),
            ones32: Constant::new(0xffff_ffffu64.into()),
            _warps: warps,
            _wm1: warps - 1,
            _preds: preds,
            _pm1: preds - 1,
        }
    }
}

impl Logic for WarpState {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- views (registers and selectors only) ----
        self.alive_cur.next = self.alive[0].q.val();
        self.waiting_cur.next = self.waiting[0].q.val();
        self.gmask_cur.next = self.gmask[0].q.val();
        self.gpc_cur.next = self.gpc[0].q.val();
        for w in 1..self._warps {
            if self.cur.val().index() == w {
                self.alive_cur.next = self.alive[w].q.val();
                self.waiting_cur.next = self.waiting[w].q.val();
                self.gmask_cur.next = self.gmask[w].q.val();
                self.gpc_cur.next = self.gpc[w].q.val();
            }
        }
        // p0 (`pt`) reads all ones; predicates at or above P read zero.
        self.pm_g.next = self.zero32.val();
        self.pm_a.next = self.zero32.val();
        self.pm_b.next = self.zero32.val();
        if !self.pr_g.val().any() {
            self.pm_g.next = self.ones32.val();
        }
        if !self.pr_a.val().any() {
            self.pm_a.next = self.ones32.val();
        }
        if !self.pr_b.val().any() {
            self.pm_b.next = self.ones32.val();
        }
        for pm1 in self._pm1..self._preds {
            for w in 0..self._warps {
                for p in 1..self._preds {
                    if self.cur.val().index() == w {
                        if self.pr_g.val().index() == p {
                            self.pm_g.next = self.pred[w * pm1 + p - 1].q.val();
                        }
                        if self.pr_a.val().index() == p {
                            self.pm_a.next = self.pred[w * pm1 + p - 1].q.val();
                        }
                        if self.pr_b.val().index() == p {
                            self.pm_b.next = self.pred[w * pm1 + p - 1].q.val();
                        }
                    }
                }
            }
        }
        self.sched.next = self.zero16.val();
        self.gvalid_all.next = self.zero16.val();
        for w in 0..self._warps {
            if (self.alive[w].q.val() & !self.waiting[w].q.val()).any() {
                self.sched.next = self.sched.val() | self.warp_bit[w].val();
            }
            if self.gvalid[w].q.val() {
                self.gvalid_all.next = self.gvalid_all.val() | self.warp_bit[w].val();
            }
        }
        // First warp with waiting lanes: scan from the last warp down so that
        // the lowest one is assigned last.
        self.fw.next = self.zero4.val();
        self.fw_mask.next = self.zero32.val();
        for wm1 in self._wm1..self._warps {
            for k in 0..self._warps {
                if self.waiting[wm1 - k].q.val().any() {
                    self.fw.next = (wm1 - k).to_bits();
                    self.fw_mask.next = self.waiting[wm1 - k].q.val();
                }
            }
        }

        // ---- registers ----
        for w in 0..self._warps {
            self.alive[w].clock.next = self.clock.val();
            self.waiting[w].clock.next = self.clock.val();
            self.gvalid[w].clock.next = self.clock.val();
            self.gmask[w].clock.next = self.clock.val();
            self.gpc[w].clock.next = self.clock.val();
            self.alive[w].reset.next = self.reset.val();
            self.waiting[w].reset.next = self.reset.val();
            self.gvalid[w].reset.next = self.reset.val();
            self.gmask[w].reset.next = self.reset.val();
            self.gpc[w].reset.next = self.reset.val();
            self.alive[w].en.next = self.go.val();
            self.waiting[w].en.next = self.go.val();
            self.gvalid[w].en.next = self.go.val();
            self.gmask[w].en.next = self.go.val();
            self.gpc[w].en.next = self.go.val();
            self.alive[w].ld.next = false;
            self.waiting[w].ld.next = false;
            self.gvalid[w].ld.next = false;
            self.gmask[w].ld.next = false;
            self.gpc[w].ld.next = false;
            self.alive[w].lv.next = self.zero32.val();
            self.waiting[w].lv.next = self.zero32.val();
            self.gvalid[w].lv.next = false;
            self.gmask[w].lv.next = self.zero32.val();
            self.gpc[w].lv.next = self.zero16.val();
            // Lanes w*L + l below `threads` hold a thread.
            self.ainit[w].next = self.zero32.val();
            if self.threads.val() > self.warp_base[w].val() {
                self.ainit[w].next = self.lane_mask.val();
                if (self.threads.val() - self.warp_base[w].val()) < self.lanes_c.val() {
                    self.ainit[w].next = (self.one32.val()
                        << (self.threads.val() - self.warp_base[w].val()))
                        - self.one32.val();
                }
            }
            self.alive[w].d.next = self.alive[w].q.val();
            self.waiting[w].d.next = self.waiting[w].q.val();
            self.gvalid[w].d.next = self.gvalid[w].q.val();
            self.gmask[w].d.next = self.gmask[w].q.val();
            self.gpc[w].d.next = self.gpc[w].q.val();
            if self.cur.val().index() == w {
                if self.grp_we.val() {
                    self.gmask[w].d.next = self.grp_mask.val();
                    self.gpc[w].d.next = self.grp_pc.val();
                    self.gvalid[w].d.next = self.grp_valid.val();
                }
                if self.alive_we.val() {
                    self.alive[w].d.next = self.alive_val.val();
                }
                if self.wait_we.val() {
                    self.waiting[w].d.next = self.wait_val.val();
                }
            }
            if self.rel_all.val() {
                self.waiting[w].d.next = self.zero32.val();
                self.gvalid[w].d.next = false;
            }
            if self.init0.val() {
                self.alive[w].d.next = self.ainit[w].val();
                self.waiting[w].d.next = self.zero32.val();
                self.gvalid[w].d.next = false;
            }
        }
        for pm1 in self._pm1..self._preds {
            for w in 0..self._warps {
                for p in 1..self._preds {
                    self.pred[w * pm1 + p - 1].clock.next = self.clock.val();
                    self.pred[w * pm1 + p - 1].reset.next = self.reset.val();
                    self.pred[w * pm1 + p - 1].en.next = self.go.val();
                    self.pred[w * pm1 + p - 1].ld.next = false;
                    self.pred[w * pm1 + p - 1].lv.next = self.zero32.val();
                    self.pred[w * pm1 + p - 1].d.next = self.pred[w * pm1 + p - 1].q.val();
                    if self.pred_we.val()
                        && (self.cur.val().index() == w)
                        && (self.pd.val().index() == p)
                    {
                        self.pred[w * pm1 + p - 1].d.next = (self.pred[w * pm1 + p - 1].q.val()
                            & !self.pmask.val())
                            | (self.pval.val() & self.pmask.val());
                    }
                    if self.init0.val() {
                        self.pred[w * pm1 + p - 1].d.next = self.zero32.val();
                    }
                }
            }
        }
    }
}
