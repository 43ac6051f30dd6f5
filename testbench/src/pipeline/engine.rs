//! Tree use (docs/microarchitecture.md §9.2) and the background
//! re-arbitration engine (§9.5).

use concord_isa::config::ArbiterMode;
use concord_uarch::timing::X;

use super::item::{tree_use, Item, TreeUse};
use super::warp::SlotState;
use concord_isa::simt;

use super::{Counter, Pipeline};

impl Pipeline {
    /// How the pass in X in this cycle will use the tree in A next cycle.
    fn x_tree_use(&self) -> TreeUse {
        match &self.stages[X] {
            Item::Pass(p) => {
                let w = &self.warps[p.warp];
                let instr = self
                    .instrs
                    .get(w.gpc as usize)
                    .and_then(|i| i.as_ref().ok());
                tree_use(instr)
            }
            _ => TreeUse::None,
        }
    }

    /// Recomputes warp `v`'s group from its stored lane PCs and depths.
    pub(crate) fn rearbitrate(&mut self, v: usize) {
        let (policy, maxd) = (self.hw.arbitration, self.hw.max_call_depth);
        let w = &mut self.warps[v];
        let g = simt::branch_group(policy, maxd, w.schedulable(), &w.pc, &w.depth);
        w.gmask = g.mask;
        if g.mask != 0 {
            w.gpc = g.pc;
            w.gdepth = g.depth;
        }
    }

    /// The engine's cycle: the tree computes the warp loaded last cycle
    /// (its group is written at the end of this cycle), and the lowest
    /// candidate is loaded into the key register if the tree is free in
    /// the next cycle. While `HALT` is 1 (`halted`) the engine loads no
    /// warp and counts no wait (§15.3); a warp loaded in the cycle before
    /// is still computed, since its keys are in the key register and the
    /// tree is free for them in this cycle only (§9.2).
    pub(crate) fn engine_cycle(&mut self, rearb_at_start: u32, halted: bool) {
        let computing = self.engine_key.take();
        let candidate = (0..self.warps.len()).find(|&v| {
            !halted
                && Some(v) != computing
                && rearb_at_start >> v & 1 == 1
                && self.warps[v]
                    .wslot
                    .is_some_and(|s| self.slots[s].state == SlotState::Run)
        });
        if let Some(v) = computing {
            if self.warps[v].rearb {
                self.tr.tree |= 4;
                self.tr.rearb_warp = v as u32;
                self.rearbitrate(v);
                self.warps[v].rearb = false;
                self.counters.inc(Counter::Rearbs);
            }
        }
        if let Some(v) = candidate {
            // §9.2: the (branch) tree is free unless the pass now in X uses
            // it in A next cycle; `split` gives memory passes their own.
            let free = matches!(
                (self.hw.arbiter, self.x_tree_use()),
                (_, TreeUse::None) | (ArbiterMode::Split, TreeUse::Memory)
            );
            if free {
                self.engine_key = Some(v);
            } else {
                self.counters.inc(Counter::RearbWaitCycles);
            }
        }
    }
}
