//! The core's performance counters (docs/microarchitecture.md §15.1):
//! the one table of indices, names and increments that the RTL generator,
//! the cycle model and the harness share, the width rule, and the
//! [`Counters`] record that wraps at that width.

/// A performance counter; its discriminant is the index `k` of §15.1
/// (`COUNTER[k]` on the host bus, §14.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Counter {
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

/// Number of counters.
pub const COUNT: usize = TABLE.len();

/// One row of the §15.1 table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterRow {
    pub counter: Counter,
    pub name: &'static str,
    /// What increments it (the table's "increment" column).
    pub increment: &'static str,
}

const fn row(counter: Counter, name: &'static str, increment: &'static str) -> CounterRow {
    CounterRow {
        counter,
        name,
        increment,
    }
}

use Counter as K;

/// The §15.1 table, by index.
pub const TABLE: [CounterRow; 25] = [
    row(K::Cycles, "cycles", "every cycle in `SETUP`, `RUN`, `STOPPING`"),
    row(K::Issued, "issued", "committed warp passes (replays included)"),
    row(K::ActiveLaneSlots, "active_lane_slots", "`popcount(active)` per committed pass"),
    row(K::ExecutedLaneSlots, "executed_lane_slots", "`popcount(exec)` per committed pass"),
    row(K::Replays, "replays", "committed memory passes that leave pending lanes (refused passes included)"),
    row(K::DivergentBranches, "divergent_branches", "committed `bra`/`jmp`/`call`/`callr`/`ret` whose active lanes end at more than one (pc, depth)"),
    row(K::ConsensualTaken, "consensual_taken", "committed taken `bra.none/any/all`"),
    row(K::ConsensualNotTaken, "consensual_not_taken", "committed not-taken ones"),
    row(K::BarrierArrivals, "barrier_arrivals", "`popcount(exec)` of committed `bar.sync`"),
    row(K::Barriers, "barriers", "barrier releases"),
    row(K::Blocks, "blocks", "retired blocks"),
    row(K::IdleIssueCycles, "idle_issue_cycles", "`RUN`/`STOPPING` cycles in which S selects a bubble"),
    row(K::ReadyWarpCycles, "ready_warp_cycles", "number of ready warps, per `RUN` cycle (divide by `cycles`: average ready warps)"),
    row(K::MemwaitWarpCycles, "memwait_warp_cycles", "number of warps in `MEMWAIT`, per cycle"),
    row(K::BarrierWarpCycles, "barrier_warp_cycles", "number of warps in `BARRIER` or `REARB`, per cycle"),
    row(K::ReturnSlots, "return_slots", "return slots at A"),
    row(K::InitSlots, "init_slots", "init slots at A"),
    row(K::Rearbs, "rearbs", "re-arbitrations by the engine"),
    row(K::RearbWaitCycles, "rearb_wait_cycles", "cycles with a re-arbitration candidate and no free tree (§9.2)"),
    row(K::GlobalRequests, "global_requests", "entries reserved"),
    row(K::GlobalBeats, "global_beats", "beats accepted"),
    row(K::GlobalStallCycles, "global_stall_cycles", "cycles with `gm_stb_o ∧ gm_stall_i`"),
    row(K::QueueFullReplays, "queue_full_replays", "global passes refused for want of an entry"),
    row(K::PortBusyReplays, "port_busy_replays", "shared passes refused by an atomic write-back"),
    row(K::Squashed, "squashed", "passes of frozen slots reaching A"),
];

impl Counter {
    /// Every counter, by index.
    pub const ALL: [Counter; COUNT] = {
        let mut all = [Counter::Cycles; COUNT];
        let mut k = 0;
        while k < COUNT {
            all[k] = TABLE[k].counter;
            k += 1;
        }
        all
    };

    /// The index `k`.
    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        TABLE[self as usize].name
    }

    /// The counter's width in a core built with `counter_bits` (§15.1):
    /// `cycles` is always 64 bits (it is `%clock`/`%clockhi`), every other
    /// counter `counter_bits`.
    pub fn width(self, counter_bits: u32) -> u32 {
        match self {
            Counter::Cycles => 64,
            _ => counter_bits,
        }
    }
}

/// The mask of a `bits`-wide counter.
fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// The counters of one run, each wrapping at its width ([`Counter::width`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counters {
    pub values: [u64; COUNT],
    /// `counter_bits` of the core (§17.2).
    pub counter_bits: u32,
}

impl Default for Counters {
    /// 64-bit counters (the `sim` preset), all 0.
    fn default() -> Self {
        Counters::new(64)
    }
}

impl Counters {
    /// All 0, `counter_bits` wide.
    pub fn new(counter_bits: u32) -> Counters {
        Counters {
            values: [0; COUNT],
            counter_bits,
        }
    }

    pub fn get(&self, c: Counter) -> u64 {
        self.values[c as usize]
    }

    /// Adds `n`, wrapping at the counter's width.
    pub fn add(&mut self, c: Counter, n: u64) {
        let v = &mut self.values[c as usize];
        *v = v.wrapping_add(n) & mask(c.width(self.counter_bits));
    }

    pub fn inc(&mut self, c: Counter) {
        self.add(c, 1);
    }

    /// `issued / cycles`.
    pub fn ipc(&self) -> f64 {
        let cycles = self.get(Counter::Cycles);
        if cycles == 0 {
            0.0
        } else {
            self.get(Counter::Issued) as f64 / cycles as f64
        }
    }

    /// `(name, value)` of every counter, by index.
    pub fn named(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        TABLE
            .iter()
            .map(|r| r.name)
            .zip(self.values.iter().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_in_index_order() {
        for (k, r) in TABLE.iter().enumerate() {
            assert_eq!(r.counter as usize, k, "{}", r.name);
            assert_eq!(Counter::ALL[k], r.counter);
        }
    }

    #[test]
    fn counters_wrap_at_their_width_and_cycles_never() {
        let mut c = Counters::new(16);
        c.add(Counter::Issued, 0xffff);
        c.inc(Counter::Issued);
        assert_eq!(c.get(Counter::Issued), 0);
        c.add(Counter::Issued, 0x1_0005);
        assert_eq!(c.get(Counter::Issued), 5);
        c.add(Counter::Cycles, 0x1_0005);
        assert_eq!(c.get(Counter::Cycles), 0x1_0005);
        let mut c = Counters::new(64);
        c.add(Counter::Replays, u64::MAX);
        c.inc(Counter::Replays);
        assert_eq!(c.get(Counter::Replays), 0);
    }
}
