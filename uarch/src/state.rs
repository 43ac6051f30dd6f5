//! The core's FSM states and their codes on `trace_state`
//! (docs/microarchitecture.md §4, §10). The RTL drives these codes, the
//! cycle model steps through these states, and the Verilator harness reads
//! a code back into a [`State`].

use crate::widths::STATE_BITS;

/// One state of the core's FSM. The discriminant is the code on
/// `trace_state`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, serde::Serialize)]
#[repr(u8)]
pub enum State {
    /// Nothing happens; host writes are accepted.
    Idle = 0,
    /// Clears the register files and shared memory, sets up the block.
    Init = 1,
    /// Picks the next warp (round-robin).
    Sched = 2,
    /// Branch-mode arbitration of the picked warp.
    Arb = 3,
    /// Instruction-memory read of the group's PC.
    Fetch = 4,
    /// The issue cycle: decode, guard, counters, register read A.
    Decode = 5,
    /// Register read B.
    Read2 = 6,
    /// Performs the instruction.
    Exec = 7,
    /// Memory-mode arbitration of the pending lanes.
    MemArb = 8,
    /// Shared-memory bank access.
    ShAccess = 9,
    /// Shared-memory data: loads and atomics write back.
    ShData = 10,
    /// A global request, held until accepted.
    GReq = 11,
    /// Waits for the global response.
    GWait = 12,
    /// The grid is done; host writes are accepted.
    Done = 13,
    /// A trap; the trap registers hold the report; host writes are accepted.
    Trap = 14,
}

impl State {
    /// Every state, in code order.
    pub const ALL: [State; 15] = [
        State::Idle,
        State::Init,
        State::Sched,
        State::Arb,
        State::Fetch,
        State::Decode,
        State::Read2,
        State::Exec,
        State::MemArb,
        State::ShAccess,
        State::ShData,
        State::GReq,
        State::GWait,
        State::Done,
        State::Trap,
    ];

    /// The code on `trace_state`.
    pub const fn code(self) -> u32 {
        self as u32
    }

    /// The state whose code is `code`, if any.
    pub fn from_code(code: u32) -> Option<State> {
        State::ALL.get(code as usize).copied()
    }

    /// The name the microarchitecture document uses (`G_WAIT`).
    pub fn name(self) -> &'static str {
        match self {
            State::Idle => "IDLE",
            State::Init => "INIT",
            State::Sched => "SCHED",
            State::Arb => "ARB",
            State::Fetch => "FETCH",
            State::Decode => "DECODE",
            State::Read2 => "READ2",
            State::Exec => "EXEC",
            State::MemArb => "MEM_ARB",
            State::ShAccess => "SH_ACCESS",
            State::ShData => "SH_DATA",
            State::GReq => "G_REQ",
            State::GWait => "G_WAIT",
            State::Done => "DONE",
            State::Trap => "TRAP",
        }
    }

    /// Whether the core is running a launch: every state but `IDLE`,
    /// `DONE` and `TRAP`. Such a cycle counts in `cycles`, the `running`
    /// status bit is set, and host writes are ignored; in the other three
    /// the host writes and `start` are accepted.
    pub const fn is_running(self) -> bool {
        !matches!(self, State::Idle | State::Done | State::Trap)
    }
}

const _: () = assert!(State::ALL.len() <= 1 << STATE_BITS);
const _: () = {
    let mut i = 0;
    while i < State::ALL.len() {
        assert!(State::ALL[i] as usize == i);
        i += 1;
    }
};
