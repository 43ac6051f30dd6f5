//! Fixed widths of the core (docs/microarchitecture.md §1): independent of
//! the configuration, so that the port list never changes. A configuration
//! sets counts and depths ([`crate::HwParams`]); these are the widths that
//! every configuration fits in.
//!
//! They are `usize` because the RTL uses them as `Bits<N>` widths. The
//! assertions at the end tie each width to the largest value the
//! configuration ranges of `concord_isa::config` allow, so that a wider
//! range fails to compile here instead of truncating in the RTL.

use concord_isa::config::{
    MAX_CALL_DEPTH_BITS, MAX_GLOBAL_LINE_BYTES, MAX_SHARED_BYTES, MAX_WARPS,
};
use concord_isa::instr::{AtomOp, MAX_IMEM_WORDS, MAX_LANES, MAX_PREDS, MAX_REGS};

/// A data word, a register and most host registers.
pub const WORD_BITS: usize = 32;
/// PC registers, `trace_pc` and the PC half of a branch key. Enough for
/// every PC of the largest instruction memory: a PC register only ever
/// holds a PC below `code_len` ≤ `imem_words` (`concord_isa::checks::pc_bits`).
pub const PC_BITS: usize = 16;
/// Lane masks (`trace_active`, `trace_exec`, write enables): one bit per
/// lane of the widest warp; lanes at or above `lanes` are always 0.
pub const MASK_BITS: usize = MAX_LANES;
/// Bits of a lane index (memory-mode keys of atomics end in it).
pub const LANE_INDEX_BITS: usize = MASK_BITS.trailing_zeros() as usize;
/// Each lane's call-depth register (the inverted depth is the high half of
/// a branch key).
pub const DEPTH_BITS: usize = 16;
/// `trace_warp` and the scheduler's warp registers.
pub const WARP_BITS: usize = 4;
/// The largest global line in bytes: the width of the line buses is this
/// many bytes, whatever `global_line_bytes` is (bytes above it are 0).
pub const LINE_BYTES: usize = MAX_GLOBAL_LINE_BYTES as usize;
/// `gmem_req_wdata` and `gmem_resp_data`: a whole line.
pub const LINE_BITS: usize = 8 * LINE_BYTES;
/// `gmem_req_mask`: one byte enable per byte of a line.
pub const LINE_MASK_BITS: usize = LINE_BYTES;
/// `trace_rf_data`: one register value per lane of the widest warp.
pub const RF_DATA_BITS: usize = MASK_BITS * WORD_BITS;
/// `trace_rf_addr` and the register files' address ports: `warp * RP + reg`.
pub const RF_ADDR_BITS: usize = 9;
/// Predicate slots per warp in a trace predicate address (`warp * 8 + p`),
/// whatever `predicates` is.
pub const PRED_SLOTS: usize = MAX_PREDS;
/// `trace_pred_addr`: `warp * PRED_SLOTS + p`.
pub const PRED_ADDR_BITS: usize = 7;
/// The shared-memory row address of every bank.
pub const SHARED_ROW_BITS: usize = 18;
/// The instruction memory's address ports.
pub const IMEM_ADDR_BITS: usize = PC_BITS;
/// The arbiter's keys (docs/microarchitecture.md §3).
pub const KEY_BITS: usize = 40;
/// Thread ids within a block: below `lanes * warps` ≤ 512.
pub const THREAD_ID_BITS: usize = 9;
/// Every performance counter.
pub const COUNTER_BITS: usize = 64;
/// `trace_state`.
pub const STATE_BITS: usize = 5;
/// The trap cause register.
pub const TRAP_CAUSE_BITS: usize = 4;
/// `host_addr`: the host write address.
pub const HOST_ADDR_BITS: usize = 18;
/// `host_raddr`: the host read address.
pub const HOST_RADDR_BITS: usize = 8;
/// `gmem_req_kind`.
pub const GMEM_KIND_BITS: usize = 2;
/// `gmem_req_atom_op`: an `AtomOp` index.
pub const ATOM_OP_BITS: usize = 4;

/// The largest block: every thread of a block is resident.
pub const MAX_BLOCK_THREADS: usize = MAX_LANES * MAX_WARPS as usize;

/// The mask of the low `bits` bits of a word (`bits` ≤ 32).
pub const fn low_mask(bits: usize) -> u32 {
    ((1u64 << bits) - 1) as u32
}

// Every configuration fits the fixed widths.
const _: () = assert!(MAX_WARPS as usize <= 1 << WARP_BITS);
const _: () = assert!(MAX_WARPS as usize * MAX_REGS <= 1 << RF_ADDR_BITS);
const _: () = assert!(MAX_WARPS as usize * PRED_SLOTS <= 1 << PRED_ADDR_BITS);
const _: () = assert!(MAX_IMEM_WORDS <= 1 << PC_BITS);
const _: () = assert!(MAX_SHARED_BYTES as usize / 4 <= 1 << SHARED_ROW_BITS);
const _: () = assert!(MAX_CALL_DEPTH_BITS as usize <= DEPTH_BITS);
const _: () = assert!(MAX_BLOCK_THREADS <= 1 << THREAD_ID_BITS);
const _: () = assert!(AtomOp::ALL.len() <= 1 << ATOM_OP_BITS);
// Branch keys: inverted depth above the PC. Memory keys: a word address
// (30 bits) above a lane index.
const _: () = assert!(DEPTH_BITS + PC_BITS <= KEY_BITS);
const _: () = assert!(30 + LANE_INDEX_BITS <= KEY_BITS);
