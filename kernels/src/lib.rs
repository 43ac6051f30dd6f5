//! # concord-kernels
//!
//! The Concord kernel suite: CUDA-C kernels (in `kernels/suite/*.cu`), their
//! launch descriptions (`kernels/suite/*.yaml`, `docs/launch.md`) and, for
//! each kernel, an independent expected-output check written in plain Rust.
//!
//! The suite sits at the end of the pipeline: the compiler turns a `.cu`
//! file into a kernel, a model runs it on a prepared launch, and the
//! kernel's [`SuiteKernel::check`] decides whether the final global memory
//! is right. The check never looks at compiler output: it decodes the
//! inputs from the initial memory image and the scalar parameters, runs a
//! host implementation of the algorithm ([`SuiteKernel::reference`]) on a
//! copy of that image, and compares every buffer of the launch, element by
//! element, with the final image.
//!
//! Every kernel is deterministic whatever the thread interleaving: threads
//! share data only through barriers and atomics whose combined effect does
//! not depend on their order.

use std::path::PathBuf;

use concord_isa::launch::PreparedLaunch;

mod compare;
pub mod harness;
mod kernels;
mod memory;

pub use compare::MAX_REPORTED_MISMATCHES;

/// What a check sees of one run.
pub struct CheckInput<'a> {
    /// The prepared launch: buffer placement, parameter words, shapes.
    pub launch: &'a PreparedLaunch,
    /// Global memory before the run (normally `launch.global`).
    pub initial: &'a [u8],
    /// Global memory after the run.
    pub final_memory: &'a [u8],
}

/// A host implementation of a kernel: rewrites `memory` (an initial global
/// memory image of `launch`) into the image the kernel must leave behind.
pub type Reference = fn(&PreparedLaunch, &mut [u8]) -> Result<(), String>;

/// One kernel of the suite.
pub struct SuiteKernel {
    /// Short name, also the stem of the source file.
    pub name: &'static str,
    /// The CUDA-C source, relative to `kernels/`.
    pub source: &'static str,
    /// Launch descriptions, relative to `kernels/`.
    pub launches: &'static [&'static str],
    /// Whether `final_memory` is what the kernel must produce from
    /// `initial`: `Err` names the first mismatches (buffer, index, expected,
    /// actual).
    pub check: fn(&CheckInput) -> Result<(), String>,
    /// The host implementation the check compares against.
    pub reference: Reference,
    /// Which divergence patterns the kernel exercises (for reports).
    pub patterns: &'static [Pattern],
}

/// A control-flow behaviour a kernel exercises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pattern {
    /// Every thread takes the same path (apart from a bounds check).
    Uniform,
    /// A per-lane bounds check idles part of the last warp or block.
    BoundsCheck,
    /// Loop trip counts that differ per lane, decided by data.
    DataDependentLoop,
    /// Threads leave a loop (or the kernel) early.
    EarlyExit,
    /// `__syncthreads()` inside uniform loops.
    Barriers,
    /// Atomic read-modify-write on global or shared memory.
    Atomics,
    /// A recursive `__device__` function.
    Recursion,
    /// Per-thread local arrays (a stack frame).
    LocalArrays,
    /// Byte or half-word loads and stores.
    NarrowMemory,
    /// Integer division or remainder.
    Division,
    /// Warp votes (`__any_sync`, `__all_sync`, `__ballot_sync`).
    Votes,
}

impl Pattern {
    /// A short lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Uniform => "uniform",
            Pattern::BoundsCheck => "bounds check",
            Pattern::DataDependentLoop => "data-dependent loops",
            Pattern::EarlyExit => "early exit",
            Pattern::Barriers => "barriers",
            Pattern::Atomics => "atomics",
            Pattern::Recursion => "recursion",
            Pattern::LocalArrays => "local arrays",
            Pattern::NarrowMemory => "8/16-bit memory",
            Pattern::Division => "division",
            Pattern::Votes => "warp votes",
        }
    }
}

/// Every kernel of the suite.
pub fn suite() -> &'static [SuiteKernel] {
    kernels::SUITE
}

/// The suite kernel called `name`.
pub fn find(name: &str) -> Option<&'static SuiteKernel> {
    suite().iter().find(|k| k.name == name)
}

/// The absolute path of `kernels/`, against which [`SuiteKernel::source`]
/// and [`SuiteKernel::launches`] are relative.
pub fn kernels_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}
