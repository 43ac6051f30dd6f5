//! Trap cause codes and the trap report registers
//! (docs/microarchitecture.md §9). The architectural trap is the functional
//! model's [`TrapCause`]; this module says how the core reports one on its
//! host interface: the cause code, and what the address and detail
//! registers hold. The cycle model fills its trap registers with these
//! functions, the RTL drives the same codes, and the Verilator harness
//! turns the registers back into a [`TrapCause`].

use concord_isa::func::TrapCause;

use crate::widths::TRAP_CAUSE_BITS;

/// The cause code of a trap on the host interface (`TRAP_CAUSE` register).
/// 0 means no trap. The watchdog is the testbench's and has no code.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(u32)]
pub enum TrapCode {
    /// A memory access outside its memory. Lanes: the offending executing
    /// lanes; address register: the first one's address; detail: bytes.
    AddressOutOfRange = 1,
    /// A memory access not aligned to its width. As `AddressOutOfRange`.
    Misaligned = 2,
    /// A word that does not decode. Lanes: the active lanes; detail: the word.
    InvalidInstruction = 3,
    /// The group's PC is at or beyond `code_len` (only an `entry_pc`
    /// outside the program gets there). Lanes: the active lanes.
    PcOutOfRange = 4,
    /// A `call` beyond the largest depth. Lanes: the offending executing lanes.
    CallDepthOverflow = 5,
    /// A `ret` at depth 0. Lanes: the offending executing lanes.
    ReturnAtDepthZero = 6,
    /// No warp can run but threads wait at a barrier. Warp: the first warp
    /// with waiting lanes; lanes: its waiting mask; pc: its lowest waiting
    /// lane's.
    BarrierNeverCompletes = 7,
    /// `ldparam` past `param_count`. Lanes: the active lanes; detail: the index.
    MissingParam = 8,
    /// A global access into another thread's stack or the guard zone. As
    /// `AddressOutOfRange`.
    StackOverflow = 9,
    /// An instruction would send lanes to a PC at or beyond `code_len`.
    /// Lanes: those lanes; address register: the first one's next PC.
    NextPcOutOfRange = 10,
    /// The global memory answered a beat with `ERR` (Core v2, §13.1).
    /// Lanes: the entry's served lanes; pc: its instruction's; address
    /// register: the beat's byte address.
    BusError = 11,
}

impl TrapCode {
    /// Every code, in code order.
    pub const ALL: [TrapCode; 11] = [
        TrapCode::AddressOutOfRange,
        TrapCode::Misaligned,
        TrapCode::InvalidInstruction,
        TrapCode::PcOutOfRange,
        TrapCode::CallDepthOverflow,
        TrapCode::ReturnAtDepthZero,
        TrapCode::BarrierNeverCompletes,
        TrapCode::MissingParam,
        TrapCode::StackOverflow,
        TrapCode::NextPcOutOfRange,
        TrapCode::BusError,
    ];

    /// The value of the cause register.
    pub const fn code(self) -> u32 {
        self as u32
    }

    /// The code whose value is `code`, if any (0 and codes past the table
    /// are none).
    pub fn from_code(code: u32) -> Option<TrapCode> {
        TrapCode::ALL.iter().copied().find(|c| c.code() == code)
    }

    /// The code the core reports for `cause`; `None` for the watchdog,
    /// which is the testbench's, not the core's.
    pub fn of(cause: &TrapCause) -> Option<TrapCode> {
        Some(match cause {
            TrapCause::AddressOutOfRange { .. } => TrapCode::AddressOutOfRange,
            TrapCause::Misaligned { .. } => TrapCode::Misaligned,
            TrapCause::InvalidInstruction { .. } => TrapCode::InvalidInstruction,
            TrapCause::PcOutOfRange { .. } => TrapCode::PcOutOfRange,
            TrapCause::CallDepthOverflow { .. } => TrapCode::CallDepthOverflow,
            TrapCause::ReturnAtDepthZero => TrapCode::ReturnAtDepthZero,
            TrapCause::BarrierNeverCompletes { .. } => TrapCode::BarrierNeverCompletes,
            TrapCause::MissingParam { .. } => TrapCode::MissingParam,
            TrapCause::StackOverflow { .. } => TrapCode::StackOverflow,
            TrapCause::NextPcOutOfRange { .. } => TrapCode::NextPcOutOfRange,
            TrapCause::BusError { .. } => TrapCode::BusError,
            TrapCause::Watchdog { .. } => return None,
        })
    }

    /// The cause in the words of the microarchitecture document.
    pub fn name(self) -> &'static str {
        match self {
            TrapCode::AddressOutOfRange => "address out of range",
            TrapCode::Misaligned => "misaligned",
            TrapCode::InvalidInstruction => "invalid instruction",
            TrapCode::PcOutOfRange => "PC outside the program",
            TrapCode::CallDepthOverflow => "call depth overflow",
            TrapCode::ReturnAtDepthZero => "return at depth 0",
            TrapCode::BarrierNeverCompletes => "barrier can never complete",
            TrapCode::MissingParam => "missing parameter",
            TrapCode::StackOverflow => "stack overflow",
            TrapCode::NextPcOutOfRange => "next PC outside the program",
            TrapCode::BusError => "global bus error",
        }
    }

    /// Whether the cause is a memory access's (its detail register holds
    /// the access width in bytes).
    pub fn is_memory(self) -> bool {
        matches!(
            self,
            TrapCode::AddressOutOfRange | TrapCode::Misaligned | TrapCode::StackOverflow
        )
    }
}

/// The cause register for `cause`: its code, 0 for the watchdog.
pub fn cause_register(cause: &TrapCause) -> u32 {
    TrapCode::of(cause).map_or(0, TrapCode::code)
}

/// What the trap address register holds for `cause`: a memory trap's first
/// faulting address, the first next PC outside the program; 0 otherwise.
pub fn address_register(cause: &TrapCause) -> u32 {
    match *cause {
        TrapCause::AddressOutOfRange { addr, .. }
        | TrapCause::Misaligned { addr, .. }
        | TrapCause::StackOverflow { addr, .. } => addr,
        TrapCause::NextPcOutOfRange { target, .. } => target,
        TrapCause::BusError { addr } => addr,
        _ => 0,
    }
}

/// What the trap detail register holds for `cause`: the instruction word
/// (invalid instruction), the parameter index (missing parameter), the
/// access width in bytes (memory traps); 0 otherwise.
pub fn detail_register(cause: &TrapCause) -> u32 {
    match *cause {
        TrapCause::InvalidInstruction { word, .. } => word,
        TrapCause::MissingParam { index, .. } => index as u32,
        TrapCause::AddressOutOfRange { bytes, .. }
        | TrapCause::Misaligned { bytes, .. }
        | TrapCause::StackOverflow { bytes, .. } => bytes,
        _ => 0,
    }
}

const _: () = assert!((TrapCode::BusError as usize) < 1 << TRAP_CAUSE_BITS);
