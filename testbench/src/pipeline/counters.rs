//! The Core v2 performance counters (docs/microarchitecture-v2.md §15.1),
//! as the cycle model keeps them (64 bits each; the `counter_bits` wrap of
//! the RTL's generator option is not modelled yet).

/// Counter indices, in the order of the document's table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum V2Counter {
    Cycles,
    Issued,
    ActiveLaneSlots,
    ExecutedLaneSlots,
    Replays,
    DivergentBranches,
    ConsensualTaken,
    ConsensualNotTaken,
    BarrierArrivals,
    Barriers,
    Blocks,
    IdleIssueCycles,
    ReadyWarpCycles,
    MemwaitWarpCycles,
    BarrierWarpCycles,
    ReturnSlots,
    InitSlots,
    Rearbs,
    RearbWaitCycles,
    GlobalRequests,
    GlobalBeats,
    GlobalStallCycles,
    QueueFullReplays,
    PortBusyReplays,
    Squashed,
}

/// Names of the counters, by index.
pub const NAMES: [&str; COUNT] = [
    "cycles",
    "issued",
    "active_lane_slots",
    "executed_lane_slots",
    "replays",
    "divergent_branches",
    "consensual_taken",
    "consensual_not_taken",
    "barrier_arrivals",
    "barriers",
    "blocks",
    "idle_issue_cycles",
    "ready_warp_cycles",
    "memwait_warp_cycles",
    "barrier_warp_cycles",
    "return_slots",
    "init_slots",
    "rearbs",
    "rearb_wait_cycles",
    "global_requests",
    "global_beats",
    "global_stall_cycles",
    "queue_full_replays",
    "port_busy_replays",
    "squashed",
];

/// Number of counters.
pub const COUNT: usize = 25;

/// The counters of one run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct V2Counters {
    pub values: [u64; COUNT],
}

impl V2Counters {
    pub fn get(&self, c: V2Counter) -> u64 {
        self.values[c as usize]
    }
    pub(crate) fn add(&mut self, c: V2Counter, n: u64) {
        self.values[c as usize] += n;
    }
    pub(crate) fn inc(&mut self, c: V2Counter) {
        self.add(c, 1);
    }
    /// `issued / cycles`.
    pub fn ipc(&self) -> f64 {
        let cycles = self.get(V2Counter::Cycles);
        if cycles == 0 {
            0.0
        } else {
            self.get(V2Counter::Issued) as f64 / cycles as f64
        }
    }
    /// `(name, value)` of every counter.
    pub fn named(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        NAMES.iter().copied().zip(self.values.iter().copied())
    }
}
