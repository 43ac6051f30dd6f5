//! Core v2 timing constants (docs/microarchitecture.md §3, §4, §10.3,
//! §12.1, §13.5): the stage indices, the re-issue distance and the offsets
//! of a global access. The cycle model (`testbench/src/pipeline`) and the
//! timing tests use them; the offsets are the document's hand-derived
//! timelines, written once.

/// Stage S: schedule.
pub const S: usize = 0;
/// Stage F: fetch.
pub const F: usize = 1;
/// Stage D: decode.
pub const D: usize = 2;
/// Stage R: register read.
pub const R: usize = 3;
/// Stage X: execute.
pub const X: usize = 4;
/// Stage A: arbitrate and commit.
pub const A: usize = 5;
/// Stage M: memory.
pub const M: usize = 6;
/// Stage W: write-back.
pub const W: usize = 7;
/// Number of stages.
pub const STAGES: usize = 8;
/// Stage names, indexed by stage.
pub const STAGE_NAMES: [&str; STAGES] = ["S", "F", "D", "R", "X", "A", "M", "W"];

/// A warp selected at S in cycle `t` can be selected again from `t + 6`
/// (§4.1: its item is in M then).
pub const REISSUE: u64 = A as u64 + 1;
/// Cycles of `SETUP` after `START` (§12.1).
pub const SETUP_CYCLES: u64 = 8;
/// Cycles after its selection at S in which a global pass's entry is
/// written (stage M, §10.3).
pub const ENTRY_WRITTEN: u64 = M as u64;
/// Cycles after its selection at S in which the first beat of a global
/// pass is on the bus (§10.3: `t + 8`).
pub const FIRST_BEAT: u64 = ENTRY_WRITTEN + 2;

/// Cycles after its selection at S in which the last response of a line of
/// `beats` beats is processed, with memory latency `lat` and no stall
/// (§10.3: `t + 8 + NB + lat`).
pub const fn last_response(lat: u64, beats: u64) -> u64 {
    FIRST_BEAT + beats + lat
}

/// The earliest cycle (after the pass's selection at S) in which a warp
/// whose only global access was a coalesced load can issue again
/// (§10.3: `t + 15 + NB + lat`): the return slot is selected the cycle
/// after the entry becomes returnable and reaches A `A` cycles later.
pub const fn load_reissue(lat: u64, beats: u64) -> u64 {
    last_response(lat, beats) + 1 + A as u64 + 1
}

/// The same for a coalesced store (§10.3: `t + 9 + NB + lat`).
pub const fn store_reissue(lat: u64, beats: u64) -> u64 {
    last_response(lat, beats) + 1
}

/// Cycles of a block launch before its warps start (§4.5, §12.3):
/// `max(threads + 1, n_init + 6)`.
pub const fn launch_cycles(threads: u64, n_init: u64) -> u64 {
    let walk = threads + 1;
    let init = n_init + REISSUE;
    if walk > init {
        walk
    } else {
        init
    }
}

/// Default cycles without progress after which the harness and the cycle
/// model report a pipeline deadlock (§13.5).
pub const fn hang_cycles(lat: u64) -> u64 {
    100_000 + 4 * lat
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_the_documents_timelines() {
        // §3.1: S t, F t+1, ..., W t+7.
        assert_eq!((S, F, D, R, X, A, M, W), (0, 1, 2, 3, 4, 5, 6, 7));
        assert_eq!(REISSUE, 6);
        // §10.3 with NB = 8, lat = 100: t + 116 processed, t + 123 issue again
        // after a load, t + 117 after a store.
        assert_eq!(last_response(100, 8), 116);
        assert_eq!(load_reissue(100, 8), 100 + 8 + 15);
        assert_eq!(store_reissue(100, 8), 100 + 8 + 9);
        // §4.4: 64 threads, 128 init slots: launch 134 cycles.
        assert_eq!(launch_cycles(64, 128), 134);
        assert_eq!(launch_cycles(64, 0), 65);
        assert_eq!(hang_cycles(10), 100_040);
    }
}
