//! The reference IR interpreter with SIMT semantics: the oracle for every
//! later compiler stage.
//!
//! Where it sits: the front end produces IR, the passes transform it, the
//! back end compiles it to Concord machine code. Running a kernel here and
//! its machine code on the functional model (`concord_isa::func`) must end
//! in the same global memory; any difference is a compiler bug (or a
//! program that relies on something the ISA leaves open).
//!
//! The semantics follow `docs/isa.md` at the level of threads rather than
//! lanes:
//!
//! * blocks run one after another in grid order (x fastest); every thread of
//!   a block is resident; thread `tid` is in warp `tid / lanes`, lane
//!   `tid % lanes`;
//! * scheduling is deterministic: each thread of a block runs alone, in
//!   `tid` order, until it reaches a barrier, a vote, or exits; then the
//!   collectives are resolved (votes warp by warp, then the barrier) and the
//!   threads run on. Atomics are therefore performed one thread after
//!   another, which is all a program may rely on. A program that waits for
//!   another thread without a barrier (a spin lock) never finishes here and
//!   ends with the step limit;
//! * memory faults (misaligned or out-of-range accesses), a barrier that can
//!   never complete and votes that not every live thread of the warp reaches
//!   together are errors, like the ISA's traps;
//! * `clock` reads the number of IR instructions executed so far in the
//!   launch (model-dependent, as on the machine).
//!
//! Submodules: [`layout`] (shared-memory and frame layouts, shared with the
//! back end), [`ops`] (what each data operation computes), [`error`].

pub mod error;
pub mod filetest;
pub mod layout;
pub mod ops;
mod thread;

use concord_isa::config::CoreConfig;
use concord_isa::instr::MAX_LANES;
use concord_isa::launch::PreparedLaunch;

use crate::ir::{FuncId, FuncKind, Module};

pub use error::{InstPos, InterpError, MemFault, ThreadPos};
pub use layout::{frame_layout, shared_layout, FrameLayout, LayoutError, SharedLayout};
pub use ops::{eval_binary, eval_unary};

/// What to run: the grid, the parameter words and the core facts the IR's
/// semantics depend on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterpLaunch {
    /// Blocks in x, y, z.
    pub grid: [u32; 3],
    /// Threads per block in x, y, z.
    pub block: [u32; 3],
    /// Kernel parameter words (`param N`).
    pub params: Vec<u32>,
    /// Threads per warp (votes, `laneid`, `warpid`, `nwarps`, `warpsize`);
    /// 1 to 32.
    pub lanes: u32,
    /// Bytes of shared memory per block; accesses beyond are out of range.
    pub shared_memory_bytes: u32,
}

impl InterpLaunch {
    /// The launch the functional model would run for `prepared` on a core
    /// configured by `config`. The global memory image is passed to [`run`]
    /// separately (`prepared.global.clone()`).
    pub fn new(prepared: &PreparedLaunch, config: &CoreConfig) -> InterpLaunch {
        InterpLaunch {
            grid: prepared.grid,
            block: prepared.block,
            params: prepared.params.clone(),
            lanes: config.lanes,
            shared_memory_bytes: config.shared_memory_bytes,
        }
    }
}

/// Limits of one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InterpOptions {
    /// IR instructions (summed over all threads) after which the run stops
    /// with [`InterpError::StepLimit`] (the watchdog).
    pub max_steps: u64,
    /// Deepest call nesting allowed (the kernel runs at depth 0).
    pub max_call_depth: u32,
}

impl Default for InterpOptions {
    fn default() -> Self {
        InterpOptions {
            max_steps: 100_000_000,
            max_call_depth: 1024,
        }
    }
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InterpStats {
    /// IR instructions executed, summed over all threads.
    pub instructions: u64,
    /// The same, per function of the module (indexed by `FuncId`).
    pub per_function: Vec<u64>,
    /// Barrier releases (block-wide synchronisations).
    pub barriers: u64,
    /// Warp votes resolved.
    pub votes: u64,
    /// Deepest call nesting reached (0: no call).
    pub max_call_depth: u32,
    pub blocks: u64,
    pub threads: u64,
}

/// Runs `kernel` of `module` over the whole grid. `global` is the global
/// memory image (little-endian), updated in place; it is left as it was at
/// the error when the run fails.
pub fn run(
    module: &Module,
    kernel: FuncId,
    launch: &InterpLaunch,
    global: &mut [u8],
    options: &InterpOptions,
) -> Result<InterpStats, InterpError> {
    let bad = |message: String| Err(InterpError::Launch { message });
    let Some(func) = module.funcs.get(kernel.index()) else {
        return bad(format!("{kernel} is not a function of the module"));
    };
    if func.kind != FuncKind::Kernel {
        return bad(format!("@{} is a device function, not a kernel", func.name));
    }
    if launch.lanes == 0 || launch.lanes as usize > MAX_LANES {
        return bad(format!(
            "a warp has {} lanes; the interpreter supports 1 to {MAX_LANES}",
            launch.lanes
        ));
    }
    if launch.grid.contains(&0) || launch.block.contains(&0) {
        return bad(format!(
            "grid {:?} and block {:?} must be at least 1 in every dimension",
            launch.grid, launch.block
        ));
    }
    let threads = launch
        .block
        .iter()
        .try_fold(1u32, |acc, &d| acc.checked_mul(d));
    if threads.is_none()
        || launch
            .grid
            .iter()
            .try_fold(1u32, |a, &d| a.checked_mul(d))
            .is_none()
    {
        return bad("the grid or a block has more than 2^32 - 1 entries".to_string());
    }
    let shared = shared_layout(module)?;
    if shared.size > launch.shared_memory_bytes {
        return bad(format!(
            "the shared variables need {} bytes but a block has {} bytes of shared memory",
            shared.size, launch.shared_memory_bytes
        ));
    }
    let mut machine = thread::Machine::new(module, launch, options, shared.offsets);
    let [gx, gy, gz] = launch.grid;
    for bz in 0..gz {
        for by in 0..gy {
            for bx in 0..gx {
                machine.run_block(kernel, [bx, by, bz], global)?;
            }
        }
    }
    Ok(machine.into_stats())
}
