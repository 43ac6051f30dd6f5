//! Interpreter errors: the IR-level counterparts of the ISA's traps, plus
//! the problems of IR that a verifier would reject (the interpreter checks
//! what it relies on and never panics).

use std::fmt;

use crate::ir::{Block, FuncId, Inst, MemSpace};

use super::layout::LayoutError;

/// The thread an error happened in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadPos {
    /// The block's index in the grid (`ctaid`).
    pub block: [u32; 3],
    /// The thread's index in the block (`tid.x/y/z`).
    pub thread: [u32; 3],
    /// The linear thread index (`tid`).
    pub tid: u32,
    pub warp: u32,
    pub lane: u32,
}

impl fmt::Display for ThreadPos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [bx, by, bz] = self.block;
        let [tx, ty, tz] = self.thread;
        write!(
            f,
            "block ({bx},{by},{bz}) thread ({tx},{ty},{tz}) [tid {}, warp {}, lane {}]",
            self.tid, self.warp, self.lane
        )
    }
}

/// The instruction an error happened at, with its printed form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstPos {
    pub func: FuncId,
    pub func_name: String,
    pub block: Block,
    /// `None` when a block ends without a terminator.
    pub inst: Option<Inst>,
    /// The instruction as printed IR.
    pub text: String,
}

impl fmt::Display for InstPos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{} {}: `{}`", self.func_name, self.block, self.text)
    }
}

/// Why a memory access faulted (the ISA's two memory traps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemFault {
    /// The address is not a multiple of the access width (reported in
    /// preference to [`MemFault::OutOfRange`], like the ISA).
    Misaligned,
    /// The access does not lie inside its space: past the end of global or
    /// shared memory, or, for local memory, outside every stack slot of the
    /// thread's live frames.
    OutOfRange,
}

/// A failed run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InterpError {
    #[error("{thread}: {at}: {} access of {bytes} byte(s) at address {addr:#010x} {}",
        space.name(),
        match kind {
            MemFault::Misaligned => format!("is not aligned to {bytes}"),
            MemFault::OutOfRange if *space == MemSpace::Local =>
                "is outside the stack slots of the thread's frames".to_string(),
            MemFault::OutOfRange => format!("is outside {} memory ({size} bytes)", space.name()),
        })]
    Memory {
        thread: ThreadPos,
        at: InstPos,
        space: MemSpace,
        kind: MemFault,
        addr: u32,
        bytes: u32,
        /// The size of the space (global and shared memory).
        size: u64,
    },
    #[error(
        "block ({},{},{}): barrier can never complete: {waiting} of {threads} threads wait and {exited} have exited (first waiting: {first_waiting})",
        block[0], block[1], block[2]
    )]
    BarrierNeverCompletes {
        block: [u32; 3],
        waiting: u32,
        exited: u32,
        threads: u32,
        /// Where the lowest waiting thread waits.
        first_waiting: InstPos,
    },
    #[error("{thread}: {at}: divergent vote: {reason}")]
    DivergentVote {
        /// The lowest thread of the warp waiting at the vote.
        thread: ThreadPos,
        at: InstPos,
        /// Where the other threads of the warp are.
        reason: String,
    },
    #[error("{thread}: {at}: step limit exceeded ({limit} IR instructions)")]
    StepLimit {
        thread: ThreadPos,
        at: InstPos,
        limit: u64,
    },
    #[error("{thread}: {at}: call depth limit exceeded ({limit})")]
    CallDepth {
        thread: ThreadPos,
        at: InstPos,
        limit: u32,
    },
    #[error("{thread}: {at}: reads parameter word {index} but the launch supplied {supplied}")]
    MissingParam {
        thread: ThreadPos,
        at: InstPos,
        index: u32,
        supplied: usize,
    },
    /// The IR breaks a rule the verifier checks (a value used before it is
    /// defined, a block without terminator, a call with the wrong number of
    /// arguments, ...).
    #[error("{thread}: {at}: malformed IR: {message}")]
    Malformed {
        thread: ThreadPos,
        at: InstPos,
        message: String,
    },
    /// The launch itself is unusable (not a kernel, block too large for the
    /// warp size, shared variables larger than shared memory, ...).
    #[error("bad launch: {message}")]
    Launch { message: String },
    #[error("bad launch: {0}")]
    Layout(#[from] LayoutError),
}
