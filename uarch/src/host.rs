//! The host interface's register map (docs/microarchitecture.md §9) and the
//! write sequence that loads a launch.
//!
//! Two address spaces: the host **writes** through `host_we`, `host_addr`
//! ([`HOST_ADDR_BITS`] bits) and `host_wdata`, accepted only while the core
//! is not running (`IDLE`, `DONE`, `TRAP`; `State::is_running`), and
//! **reads** through `host_raddr` ([`HOST_RADDR_BITS`] bits), which selects
//! `host_rdata` combinationally. [`HOST_REGISTERS`] is the table of both;
//! the constants below are its addresses, for code that names one
//! register. The RTL decodes these addresses, the cycle model answers
//! them, and the Verilator harness and the co-simulation drive them.

use concord_isa::func::Launch;
use concord_isa::instr::{MAX_IMEM_WORDS, MAX_PARAM_WORDS};

use crate::counters::Counter;
use crate::widths::{
    low_mask, HOST_ADDR_BITS, HOST_RADDR_BITS, PC_BITS, TRAP_CAUSE_BITS, WARP_BITS, WORD_BITS,
};

// ---- writes (`host_addr`) ----

/// Instruction memory word `i` is at `IMEM + i` (`i < imem_words`; writes
/// past the configured memory are ignored).
pub const IMEM: u32 = 0x00000;
/// Addresses of the instruction memory's window: `IMEM..IMEM + IMEM_WINDOW`,
/// room for the largest memory.
pub const IMEM_WINDOW: u32 = MAX_IMEM_WORDS as u32;
pub const ENTRY_PC: u32 = 0x20000;
pub const CODE_LEN: u32 = 0x20001;
/// Grid x, y, z at `GRID + axis`.
pub const GRID: u32 = 0x20002;
/// Block x, y, z at `BLOCK + axis`.
pub const BLOCK: u32 = 0x20005;
pub const PARAM_COUNT: u32 = 0x20008;
/// The kernel's per-thread stack bytes (`Kernel::stack_bytes`, 0: no
/// stack), which the stack-overflow check needs (`concord_isa::checks`).
pub const STACK_BYTES: u32 = 0x20009;
/// Parameter word `i` at `PARAM + i`.
pub const PARAM: u32 = 0x20010;
/// Parameter slots.
pub const MAX_PARAMS: usize = MAX_PARAM_WORDS;
/// Writing any value here starts the launch: counters cleared, `block_id`
/// = 0, `threads` = block x · y · z, then `INIT`.
pub const START: u32 = 0x200FF;

// ---- reads (`host_raddr`) ----

/// Status bits: [`STATUS_RUNNING`], [`STATUS_DONE`], [`STATUS_TRAPPED`].
pub const STATUS: u32 = 0;
/// The [`crate::TrapCode`] of the last trap.
pub const TRAP_CAUSE: u32 = 1;
pub const TRAP_PC: u32 = 2;
pub const TRAP_WARP: u32 = 3;
pub const TRAP_LANES: u32 = 4;
/// Trap block x, y, z at `TRAP_BLOCK + axis`.
pub const TRAP_BLOCK: u32 = 5;
/// [`crate::trap::address_register`].
pub const TRAP_ADDR: u32 = 8;
/// [`crate::trap::detail_register`].
pub const TRAP_DETAIL: u32 = 9;
/// Threads waiting at the barrier.
pub const ARRIVED: u32 = 10;
/// Threads of the block that have exited.
pub const EXITED: u32 = 11;
/// Threads per block (`bx · by · bz`).
pub const THREADS: u32 = 12;
/// Counter `k`: low word at `COUNTERS + 2k`, high word at `COUNTERS + 2k + 1`
/// ([`Counter::low_addr`]).
pub const COUNTERS: u32 = 16;
/// Read addresses the core decodes: `0..READ_WORDS`; the others, and the
/// gaps in the table, read 0.
pub const READ_WORDS: usize = COUNTERS as usize + 2 * Counter::COUNT;

/// Status bits of `STATUS` (and of the `running`, `done`, `trapped` pins).
pub const STATUS_RUNNING: u32 = 1;
pub const STATUS_DONE: u32 = 2;
pub const STATUS_TRAPPED: u32 = 4;

/// The bits of a write address the core decodes.
pub const ADDR_MASK: u32 = low_mask(HOST_ADDR_BITS);
/// The bits of a read address the core decodes.
pub const RADDR_MASK: u32 = low_mask(HOST_RADDR_BITS);

/// How the host reaches a register.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Access {
    /// Written through `host_addr`/`host_wdata` while the core is not running.
    Write,
    /// A write whose address is the action; the data is ignored.
    Command,
    /// Read through `host_raddr`/`host_rdata`.
    Read,
}

impl Access {
    /// Whether the register sits in the write space (`host_addr`) rather
    /// than the read space (`host_raddr`).
    pub fn is_write(self) -> bool {
        self != Access::Read
    }
}

/// One row of the register map: `count` consecutive addresses from `addr`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct HostReg {
    pub name: &'static str,
    pub access: Access,
    pub addr: u32,
    /// Consecutive registers (x, y, z; parameter slots; memory words).
    pub count: u32,
    /// Bits of each register the core keeps (reads: the bits that can be 1).
    pub bits: u32,
    pub what: &'static str,
}

const fn reg(
    name: &'static str,
    access: Access,
    addr: u32,
    count: u32,
    bits: usize,
    what: &'static str,
) -> HostReg {
    HostReg {
        name,
        access,
        addr,
        count,
        bits: bits as u32,
        what,
    }
}

use Access::{Command, Read, Write};

/// The whole register map, writes then reads, each in address order.
#[rustfmt::skip]
pub const HOST_REGISTERS: [HostReg; 21] = [
    reg("imem", Write, IMEM, IMEM_WINDOW, WORD_BITS, "instruction memory words"),
    reg("entry_pc", Write, ENTRY_PC, 1, PC_BITS, "the PC every thread starts at"),
    reg("code_len", Write, CODE_LEN, 1, WORD_BITS, "program length in words: PCs at or past it trap"),
    reg("grid", Write, GRID, 3, WORD_BITS, "grid dimensions x, y, z in blocks"),
    reg("block", Write, BLOCK, 3, WORD_BITS, "block dimensions x, y, z in threads"),
    reg("param_count", Write, PARAM_COUNT, 1, WORD_BITS, "parameter words the launch supplies"),
    reg("stack_bytes", Write, STACK_BYTES, 1, WORD_BITS, "per-thread stack bytes (0: no stack)"),
    reg("param", Write, PARAM, MAX_PARAMS as u32, WORD_BITS, "parameter words for `ldparam`"),
    reg("start", Command, START, 1, 0, "starts the launch (any value)"),
    reg("status", Read, STATUS, 1, 3, "bit 0 running, 1 done, 2 trapped"),
    reg("trap_cause", Read, TRAP_CAUSE, 1, TRAP_CAUSE_BITS, "trap cause code (crate::TrapCode)"),
    reg("trap_pc", Read, TRAP_PC, 1, PC_BITS, "trap pc"),
    reg("trap_warp", Read, TRAP_WARP, 1, WARP_BITS, "trap warp"),
    reg("trap_lanes", Read, TRAP_LANES, 1, WORD_BITS, "trap lane mask"),
    reg("trap_block", Read, TRAP_BLOCK, 3, WORD_BITS, "trap block x, y, z"),
    reg("trap_addr", Read, TRAP_ADDR, 1, WORD_BITS, "faulting address, or next PC (cause 10)"),
    reg("trap_detail", Read, TRAP_DETAIL, 1, WORD_BITS, "instruction word, parameter index or access bytes"),
    reg("arrived", Read, ARRIVED, 1, WORD_BITS, "threads waiting at the barrier"),
    reg("exited", Read, EXITED, 1, WORD_BITS, "threads exited"),
    reg("threads", Read, THREADS, 1, WORD_BITS, "threads per block"),
    reg(
        "counters",
        Read,
        COUNTERS,
        2 * Counter::COUNT as u32,
        WORD_BITS,
        "counter k: low word at COUNTERS + 2k, high word one above (crate::Counter)",
    ),
];

/// The row of the register map called `name`.
pub fn register(name: &str) -> Option<&'static HostReg> {
    HOST_REGISTERS.iter().find(|r| r.name == name)
}

/// The writes of `launch`'s program in a map with the instruction memory at
/// `imem` and the entry pc and code length registers at `entry_pc` and
/// `code_len`: the code words in order, then those two (v1 and v2 maps).
pub(crate) fn program_writes(
    launch: &Launch<'_>,
    imem: u32,
    entry_pc: u32,
    code_len: u32,
) -> Vec<(u32, u32)> {
    let mut w: Vec<(u32, u32)> = launch
        .code
        .iter()
        .enumerate()
        .map(|(i, word)| (imem + i as u32, *word))
        .collect();
    w.push((entry_pc, launch.entry_pc));
    w.push((code_len, launch.code.len() as u32));
    w
}

/// The host writes that load `launch` (code, entry pc, code length, grid,
/// block, parameter count, parameters, stack bytes), in that order, without
/// `START`.
pub fn launch_writes(launch: &Launch<'_>) -> Vec<(u32, u32)> {
    let mut w = program_writes(launch, IMEM, ENTRY_PC, CODE_LEN);
    for axis in 0..3 {
        w.push((GRID + axis as u32, launch.grid[axis]));
        w.push((BLOCK + axis as u32, launch.block[axis]));
    }
    w.push((PARAM_COUNT, launch.params.len() as u32));
    for (i, p) in launch.params.iter().enumerate() {
        w.push((PARAM + i as u32, *p));
    }
    w.push((STACK_BYTES, launch.stack_bytes));
    w
}

// The map fits the address ports, and the instruction memory's window ends
// before the first register.
const _: () = {
    let mut i = 0;
    while i < HOST_REGISTERS.len() {
        let r = &HOST_REGISTERS[i];
        let end = r.addr as u64 + r.count as u64;
        let mask = match r.access {
            Read => RADDR_MASK,
            _ => ADDR_MASK,
        };
        assert!(end - 1 <= mask as u64);
        i += 1;
    }
};
const _: () = assert!(IMEM + IMEM_WINDOW <= ENTRY_PC);
const _: () = assert!(READ_WORDS <= 1 << HOST_RADDR_BITS);
