//! The host interface's register map (docs/microarchitecture.md §9) and the
//! write sequence that loads a launch. The cycle model, the Verilator
//! harness and the co-simulation all use these, so every model sees the
//! same host traffic.

use concord_isa::func::Launch;

// Writes (`host_addr`).
/// Instruction memory word `i` is at `IMEM + i`.
pub const IMEM: u32 = 0x00000;
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
pub const MAX_PARAMS: usize = concord_isa::MAX_PARAM_WORDS;
pub const START: u32 = 0x200FF;

// Reads (`host_raddr`).
pub const STATUS: u32 = 0;
pub const TRAP_CAUSE: u32 = 1;
pub const TRAP_PC: u32 = 2;
pub const TRAP_WARP: u32 = 3;
pub const TRAP_LANES: u32 = 4;
/// Trap block x, y, z at `TRAP_BLOCK + axis`.
pub const TRAP_BLOCK: u32 = 5;
pub const TRAP_ADDR: u32 = 8;
pub const TRAP_DETAIL: u32 = 9;
pub const ARRIVED: u32 = 10;
pub const EXITED: u32 = 11;
pub const THREADS: u32 = 12;
/// Counter `k`: low word at `COUNTERS + 2k`, high word at `COUNTERS + 2k + 1`.
pub const COUNTERS: u32 = 16;

/// Status bits of `STATUS`.
pub const STATUS_RUNNING: u32 = 1;
pub const STATUS_DONE: u32 = 2;
pub const STATUS_TRAPPED: u32 = 4;

/// The host writes that load `launch` (code, entry pc, code length, grid,
/// block, parameter count, parameters, stack bytes), in that order, without
/// `START`.
pub fn launch_writes(launch: &Launch<'_>) -> Vec<(u32, u32)> {
    let mut w: Vec<(u32, u32)> = launch
        .code
        .iter()
        .enumerate()
        .map(|(i, word)| (IMEM + i as u32, *word))
        .collect();
    w.push((ENTRY_PC, launch.entry_pc));
    w.push((CODE_LEN, launch.code.len() as u32));
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
