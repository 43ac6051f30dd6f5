//! The launch unit (docs/microarchitecture.md §12.3–§12.5): blocks in
//! grid order into the lowest free slot, the thread-id walk, init slots,
//! the block's start, and retire.

use std::collections::VecDeque;

use super::item::Init;
use super::warp::{Slot, SlotState};
use super::{Counter, InitQueue, Pipeline};

/// A launch in progress.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Launching {
    slot: usize,
    /// The cycle `l` in which the slot was taken.
    at: u64,
    /// Init-slot indices not yet selected (refused ones at the back).
    queue: InitQueue,
    /// Init slots selected and not yet in A, or refused and requeued.
    left: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LaunchUnit {
    total: u64,
    next: u64,
    age: u64,
    current: Option<Launching>,
}

impl LaunchUnit {
    pub fn new(total: u64) -> LaunchUnit {
        LaunchUnit {
            total,
            next: 0,
            age: 0,
            current: None,
        }
    }

    /// The unit as the watchdog's repeat test compares it at cycle `now`
    /// (§13.4): the age counter left out (slot ages are compared as
    /// ranks), the launch's start cycle as its distance to `now`.
    pub fn normalised(&self, now: u64) -> LaunchUnit {
        let mut unit = self.clone();
        unit.age = 0;
        if let Some(c) = unit.current.as_mut() {
            c.at = now - c.at;
        }
        unit
    }

    /// Every block has been launched (and started).
    pub fn all_launched(&self) -> bool {
        self.next == self.total && self.current.is_none()
    }

    /// The next init slot, requested from cycle `l + 1` (§12.3).
    pub fn take_init(&mut self, now: u64) -> Option<Init> {
        let c = self.current.as_mut()?;
        if now <= c.at {
            return None;
        }
        let index = c.queue.pop_front()?;
        Some(Init {
            slot: c.slot,
            index,
            reg: None,
            row: None,
            refused: false,
        })
    }

    /// An init slot at A: done unless its row clear was refused.
    pub fn init_at_a(&mut self, init: &Init) {
        if let Some(c) = self.current.as_mut().filter(|c| c.slot == init.slot) {
            if init.refused {
                c.queue.push_back(init.index);
            } else {
                c.left -= 1;
            }
        }
    }

    /// A trap froze slots: a launch into a frozen slot stops.
    pub fn cancel_frozen(&mut self, slots: &[Slot]) {
        if let Some(c) = &self.current {
            if slots[c.slot].state == SlotState::Frozen {
                self.current = None;
            }
        }
    }
}

impl Pipeline {
    /// Blocks launched so far (for the hang detector).
    pub(crate) fn launch_progress(&self) -> u64 {
        self.launch.next
    }

    /// Fills in what an init slot clears (§12.3), at selection.
    fn init_targets(&self, init: &mut super::item::Init) {
        let (regs, rows) = (self.occ.clear_regs, self.occ.clear_rows);
        let base_warp = init.slot * self.occ.nwarps as usize;
        if init.index < regs * self.occ.nwarps {
            init.reg = Some((
                base_warp + (init.index / regs) as usize,
                (init.index % regs) as usize,
            ));
        }
        if init.index < rows {
            init.row = Some(init.slot * self.occ.window_rows as usize + init.index as usize);
        }
    }

    /// The launch unit's cycle `now`.
    pub(crate) fn launch_cycle(&mut self, now: u64) {
        // Start: the walk wrote its last thread in `l + threads` and every
        // init slot was in A, by the end of this cycle.
        if let Some(c) = &self.launch.current {
            if now >= c.at + self.occ.threads as u64 && c.left == 0 && c.queue.is_empty() {
                let slot = c.slot;
                self.launch.current = None;
                self.start_block(slot);
                return;
            }
            return;
        }
        if self.held.is_some() || self.launch.next == self.launch.total {
            return;
        }
        let Some(k) =
            (0..self.occ.resident as usize).find(|&k| self.slots[k].state == SlotState::Free)
        else {
            return;
        };
        let i = self.launch.next;
        self.launch.next += 1;
        let [gx, gy, _] = self.grid.map(|d| d as u64);
        let ctaid = [
            (i % gx) as u32,
            (i / gx % gy) as u32,
            (i / (gx * gy)) as u32,
        ];
        self.launch.age += 1;
        (self.tr.alloc, self.tr.alloc_slot) = (1, k as u32);
        self.slots[k] = Slot {
            state: SlotState::Launch,
            ctaid,
            index: i,
            arrived: 0,
            exited: 0,
            age: self.launch.age,
        };
        let nwarps = self.occ.nwarps as usize;
        let block = self.block;
        let lanes = self.hw.lanes;
        for j in 0..nwarps {
            let w = &mut self.warps[k * nwarps + j];
            w.pred = [0; 8];
            w.waiting = 0;
            w.gmask = 0;
            w.alive = 0;
            w.replay = false;
            w.rearb = false;
            w.wslot = Some(k);
            w.wib = j as u32;
            // The walk (§12.4): thread t = j·L + l.
            for l in 0..lanes {
                let t = (j * lanes + l) as u32;
                w.tid[l] = concord_isa::simt::thread_index(t, block);
            }
        }
        self.launch.current = Some(Launching {
            slot: k,
            at: now,
            queue: (0..self.occ.n_init).collect::<VecDeque<u32>>(),
            left: self.occ.n_init,
        });
    }

    /// The end of the cycle before the block's first cycle (§12.3 "Start").
    fn start_block(&mut self, k: usize) {
        (self.tr.start, self.tr.start_slot) = (1, k as u32);
        self.slots[k].state = SlotState::Run;
        let nwarps = self.occ.nwarps as usize;
        let lanes = self.hw.lanes as u32;
        for j in 0..nwarps {
            let w = &mut self.warps[k * nwarps + j];
            let mut alive = 0u32;
            for l in 0..lanes {
                if j as u32 * lanes + l < self.occ.threads {
                    alive |= 1 << l;
                }
            }
            w.alive = alive;
            w.gmask = alive;
            w.gpc = self.entry_pc;
            w.gdepth = 0;
            w.depth = [0; 32];
            w.pc = [self.entry_pc; 32];
        }
    }

    /// A block retires (§12.5).
    pub(crate) fn retire(&mut self, k: usize) {
        (self.tr.retire, self.tr.retire_slot) = (1, k as u32);
        if self.slots[k].index + 1 == self.launch.total {
            self.last_block = Some(self.block_state(k));
        }
        self.slots[k].state = SlotState::Free;
        self.counters.inc(Counter::Blocks);
    }

    /// Selection of an init slot also fixes its targets.
    pub(crate) fn take_init(&mut self, now: u64) -> Option<super::item::Init> {
        let mut init = self.launch.take_init(now)?;
        self.init_targets(&mut init);
        Some(init)
    }
}
