//! Stage S: the item priority (§6.1) and the warp schedulers (§6.2 LRR,
//! §6.3 GTO).

use concord_isa::config::Scheduler;

impl super::Pipeline {
    /// The warp pass S selects in this cycle among the ready warps, by the
    /// policy, from the state at the start of the cycle.
    pub(crate) fn pick_warp(&self) -> Option<usize> {
        let n = self.warps.len();
        match self.hw.scheduler {
            Scheduler::Lrr => (0..n).map(|i| (self.rr + i) % n).find(|&w| self.ready(w)),
            Scheduler::Gto => {
                if let Some(last) = self.last {
                    if self.ready(last) {
                        return Some(last);
                    }
                }
                (0..n)
                    .filter(|&w| self.ready(w))
                    .min_by_key(|&w| self.dynamic_age(w))
            }
        }
    }

    /// The order of GTO's "oldest": the block's launch order (slot age),
    /// then the warp's index in its block.
    fn dynamic_age(&self, w: usize) -> (u64, u32) {
        let warp = &self.warps[w];
        let age = warp.wslot.map_or(u64::MAX, |s| self.slots[s].age);
        (age, warp.wib)
    }

    /// Policy registers after S selected a warp pass of `w`.
    pub(crate) fn selected(&mut self, w: usize) {
        self.rr = (w + 1) % self.warps.len();
        self.last = Some(w);
    }
}
