//! The performance counters (docs/microarchitecture.md §2): one list, from
//! which both the [`Counter`] table (order, names, host read addresses) and
//! the [`Counters`] record the timed models return are made, so the two
//! cannot drift apart. Each counter is [`COUNTER_BITS`] wide, cleared by
//! `start`, and read through the host interface as two words
//! ([`Counter::low_addr`], the high word one address above).

use crate::host;
use crate::widths::COUNTER_BITS;

macro_rules! counters {
    ($( $(#[doc = $doc:literal])* $variant:ident => $field:ident, )*) => {
        /// One performance counter; its index (declaration order) is `k` in
        /// the host read addresses `COUNTERS + 2k`, `COUNTERS + 2k + 1`.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub enum Counter {
            $( $(#[doc = $doc])* $variant, )*
        }

        impl Counter {
            /// How many counters the core has.
            pub const COUNT: usize = [$(Counter::$variant),*].len();

            /// Every counter, in index order.
            pub const ALL: [Counter; Counter::COUNT] = [$(Counter::$variant),*];

            /// The counter's name: its field in [`Counters`] and its key in
            /// JSON statistics.
            pub fn name(self) -> &'static str {
                match self {
                    $( Counter::$variant => stringify!($field), )*
                }
            }
        }

        /// The counters of a timed run, one field per [`Counter`], in index
        /// order.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
        pub struct Counters {
            $( $(#[doc = $doc])* pub $field: u64, )*
        }

        impl Counters {
            /// The value of `counter`.
            pub fn get(&self, counter: Counter) -> u64 {
                match counter {
                    $( Counter::$variant => self.$field, )*
                }
            }

            /// The record of the values `v`, in index order.
            pub fn from_array(v: [u64; Counter::COUNT]) -> Counters {
                let [$($field),*] = v;
                Counters { $($field),* }
            }

            /// The values in index order.
            pub fn to_array(&self) -> [u64; Counter::COUNT] {
                [$(self.$field),*]
            }
        }
    };
}

counters! {
    /// Cycles in every state but `IDLE`, `DONE` and `TRAP` (`s2r %clock`
    /// reads it before the cycle's increment).
    Cycles => cycles,
    /// Issues (`DECODE` cycles that decode), replays included.
    Issued => issued,
    /// Active lanes summed over issues.
    ActiveLaneSlots => active_lane_slots,
    /// Executing lanes (active and guard true) summed over issues.
    ExecutedLaneSlots => executed_lane_slots,
    /// Memory issues that left lanes to serve in another issue.
    Replays => replays,
    /// `bra`, `jmp`, `call`, `callr`, `ret` whose active lanes end at more
    /// than one (pc, depth).
    DivergentBranches => divergent_branches,
    /// Consensual branches taken.
    ConsensualTaken => consensual_taken,
    /// Consensual branches not taken.
    ConsensualNotTaken => consensual_not_taken,
    /// Threads arriving at `bar.sync`.
    BarrierArrivals => barrier_arrivals,
    /// Completed barriers.
    Barriers => barriers,
    /// Completed blocks.
    Blocks => blocks,
}

impl Counter {
    /// The counter's index `k`.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The host read address of the low word (bits 31..0); the high word
    /// is at the next address.
    pub const fn low_addr(self) -> u32 {
        host::COUNTERS + 2 * self as u32
    }

    /// Width in bits.
    pub const fn bits(self) -> usize {
        COUNTER_BITS
    }
}

impl Counters {
    /// How many counters there are ([`Counter::COUNT`]).
    pub const COUNT: usize = Counter::COUNT;

    /// Active lane-slots per issue slot of `lanes` lanes.
    pub fn simd_efficiency(&self, lanes: u32) -> f64 {
        if self.issued == 0 {
            0.0
        } else {
            self.active_lane_slots as f64 / (self.issued as f64 * lanes as f64)
        }
    }
}
