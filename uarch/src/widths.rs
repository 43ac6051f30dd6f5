//! Fixed widths of the core that do not depend on the configuration
//! (docs/microarchitecture.md §14.2, §15.2). A configuration sets counts
//! and depths ([`crate::HwParams`]); these are the widths every
//! configuration fits in.
//!
//! They are `usize` because the RTL uses them as `Bits<N>` widths. The
//! assertions at the end tie each width to the largest value the
//! configuration ranges of `concord_isa::config` allow, so that a wider
//! range fails to compile here instead of truncating in the RTL.

use concord_isa::config::MAX_WARPS;
use concord_isa::instr::{MAX_IMEM_WORDS, MAX_LANES, MAX_PREDS};

/// PC registers and the PC half of a branch key. Enough for every PC of
/// the largest instruction memory: a PC register only ever holds a PC
/// below `code_len` ≤ `imem_words` (`concord_isa::checks::pc_bits`).
pub const PC_BITS: usize = 16;
/// Predicate slots per warp in a trace predicate address (`warp * 8 + p`,
/// `tr_pred_addr`), whatever `predicates` is.
pub const PRED_SLOTS: usize = MAX_PREDS;
/// The trap cause register (`TRAP_CAUSE`, §13.1).
pub const TRAP_CAUSE_BITS: usize = 4;

/// The largest block: every thread of a block is resident.
pub const MAX_BLOCK_THREADS: usize = MAX_LANES * MAX_WARPS as usize;

// Every configuration fits the fixed widths.
const _: () = assert!(MAX_IMEM_WORDS <= 1 << PC_BITS);
