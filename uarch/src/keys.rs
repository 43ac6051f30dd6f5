//! The unified arbiter's keys (docs/microarchitecture.md §3): what each
//! lane presents to the one min-key reduction tree in branch mode (`ARB`)
//! and memory mode (`MEM_ARB`). The arbiter serves the lanes whose key
//! equals the minimum.
//!
//! These functions give the hardware's packing of the keys. The models
//! order lanes with `concord_isa::simt::arb_key` and `simt::memory_key`,
//! which give the same order unpacked (only the order matters); the v1
//! cycle model uses [`atomic_key`] for the RTL's order of atomics. The RTL
//! builds the packed layout in gates (`hdl/src/lane.rs`: in `#[hdl_gen]` logic a
//! Rust constant in an expression becomes a Verilog name, so its shifts are
//! literals there, asserted equal to these widths) and the lock-step
//! co-simulation compares the outcome every cycle.

use concord_isa::config::Arbitration;

use crate::widths::{low_mask, LANE_INDEX_BITS, PC_BITS};

/// Branch mode: under `depth_pc` the inverted call depth above the PC
/// (deeper lanes first, then lower PCs); under `pc_only` the PC alone.
#[inline(always)]
pub fn branch_key(arbitration: Arbitration, max_depth: u32, depth: u32, pc: u32) -> u64 {
    match arbitration {
        Arbitration::DepthPc => u64::from(max_depth - depth) << PC_BITS | u64::from(pc),
        Arbitration::PcOnly => u64::from(pc),
    }
}

/// The PC of a branch key (the selected group's PC).
#[inline(always)]
pub fn key_pc(key: u64) -> u32 {
    key as u32 & low_mask(PC_BITS)
}

/// Memory mode, shared load or store: the bank row of the word at `addr`
/// (lanes of one row are served together: distinct banks, or one word
/// broadcast).
#[inline(always)]
pub fn shared_key(addr: u32, banks: usize) -> u64 {
    (u64::from(addr >> 2) / banks as u64) << LANE_INDEX_BITS
}

/// Memory mode, global load or store: the line of `addr` (`line_shift` =
/// log2 `global_line_bytes`).
#[inline(always)]
pub fn global_key(addr: u32, line_shift: u32) -> u64 {
    u64::from(addr >> line_shift) << LANE_INDEX_BITS
}

/// Memory mode, atomics of either space: the word address, then the lane,
/// so one lane is served per issue, lowest address first, then lowest lane.
#[inline(always)]
pub fn atomic_key(addr: u32, lane: usize) -> u64 {
    u64::from(addr >> 2) << LANE_INDEX_BITS | lane as u64
}
