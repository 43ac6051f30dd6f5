//! A Csmith-like generator of random CUDA-C kernels inside Concord's
//! language subset, for differential testing of the whole compiler: the
//! lead compiles each kernel, runs it on the reference IR interpreter and on
//! the ISA's functional model, and compares the output buffers.
//!
//! It sits outside the compilation pipeline: it produces source text
//! (`.cu`) and a launch description (`docs/launch.md`) and nothing else.
//!
//! Every kernel is **valid and deterministic by construction**:
//!
//! * *termination*: per-lane loops run to a trip count fixed before the
//!   loop in a read-only variable (`n & 7`), `while`/`do` loops carry a
//!   hidden guard counter, uniform loops run at most 4 times, recursion
//!   passes `d - 1` after a `d <= 0` base case and starts from `d & 3`;
//! * *memory safety*: every index is masked with a power-of-two length
//!   (`a[e & (N - 1)]`), pointers point only into the buffers and shared
//!   arrays with a known span, shift amounts are masked to `0..32`;
//! * *no races*: each thread writes only its own `out` slots
//!   (`out[gid * OUT_K + j]`, `out_n[gid * 2 + j]`); shared memory
//!   alternates between a write phase (own slots and shared atomics only)
//!   and a read phase (any slot, no writes), separated by
//!   `__syncthreads()`; atomics use one operation per word and drop the old
//!   value, and `atomicExch` always writes the same constant;
//! * *synchronisation*: barriers and votes only in block-uniform positions
//!   (the kernel's top level, loops bounded by parameters or `blockIdx`,
//!   `if`s on such conditions), and early `return`s only in the kernel's
//!   tail, after the last barrier and vote. The generator records where it
//!   put each of them ([`GeneratedKernel::sync_points`],
//!   [`GeneratedKernel::early_returns`]) so tests can check the claim.
//!
//! The same seed and configuration always give the same kernel.

mod env;
mod expr;
mod generator;
mod launch;
mod rng;
mod scope;
mod source;
mod stmt;

use std::path::Path;

use concord_isa::launch::{Arg, LaunchDescription};

use generator::Generator;

/// The generated launches' watchdog, in issued warp-instructions like every
/// watchdog (`concord_isa::watchdog`): 20 times the default. The back end's
/// software division makes `/` and `%` cost tens of instructions, so the
/// default is too tight for some kernels; the longest full-size seed of the
/// first thousand on the timed models, 346 (predicated, flattened, 98
/// million cycles on the cycle model and the RTL), issues 6.1 million.
/// The limit was 200 million when the timed models counted cycles, and
/// stays 200 million so that no launch that passed before trips it now.
pub const WATCHDOG: u64 = 20 * concord_isa::watchdog::DEFAULT_WATCHDOG;

/// What the generator may use and how big the kernels get.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenConfig {
    /// Nesting of compound statements (`if`, loops) in the kernel.
    pub max_depth: u32,
    /// Statements at the kernel's top level (bodies get a third).
    pub max_stmts: u32,
    /// Operators in one expression, at most.
    pub max_expr_depth: u32,
    /// `__device__` functions, at most (with `allow_calls`).
    pub max_functions: u32,
    /// Blocks in the grid, at most (1 to 3).
    pub max_blocks: u32,
    pub allow_calls: bool,
    /// Recursive `__device__` functions (needs `allow_calls`).
    pub allow_recursion: bool,
    /// `__shared__` arrays and `__syncthreads()`.
    pub allow_shared: bool,
    /// `atomicAdd`/`Min`/`Max`/`And`/`Or`/`Xor`/`Exch` on global memory,
    /// and on shared memory with `allow_shared`.
    pub allow_atomics: bool,
    /// `__any_sync`, `__all_sync`, `__ballot_sync`.
    pub allow_votes: bool,
    /// `char`/`short` buffers, casts and shared arrays.
    pub allow_narrow: bool,
    /// Pointer variables into buffers and shared arrays.
    pub allow_pointers: bool,
    /// 2-D and 3-D blocks and grids.
    pub allow_multi_dim: bool,
    /// The core the kernel must fit: a block has at most `lanes × warps`
    /// threads.
    pub lanes: u32,
    pub warps: u32,
    /// `config:` line of the launch file (a path relative to it), for a
    /// core other than the default 8 × 8.
    pub core_config: Option<String>,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            max_depth: 3,
            max_stmts: 12,
            max_expr_depth: 3,
            max_functions: 3,
            max_blocks: 3,
            allow_calls: true,
            allow_recursion: true,
            allow_shared: true,
            allow_atomics: true,
            allow_votes: true,
            allow_narrow: true,
            allow_pointers: true,
            allow_multi_dim: true,
            lanes: 8,
            warps: 8,
            core_config: None,
        }
    }
}

/// What a synchronisation point is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SyncKind {
    /// `__syncthreads()`
    Barrier,
    /// `__any_sync`, `__all_sync` or `__ballot_sync`
    Vote,
}

/// Where the generator put a barrier or a vote, and the context it was in
/// by its own bookkeeping.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SyncPoint {
    pub kind: SyncKind,
    /// 1-based line of `source`.
    pub line: u32,
    /// In the kernel (never in a device function).
    pub in_kernel: bool,
    /// Every thread of the block reaches it together.
    pub uniform: bool,
    /// Before the tail, where early returns are allowed.
    pub before_tail: bool,
}

/// One generated kernel with everything needed to launch it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedKernel {
    pub seed: u64,
    /// The `.cu` text; its first line is a comment naming the seed.
    pub source: String,
    pub kernel_name: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// The kernel's arguments in parameter order: read-only inputs (random
    /// fills), `out` (and `out_n`, `acc`, `uacc` when generated), then
    /// the scalars `k0`, `k1`.
    pub args: Vec<Arg>,
    /// The buffers to compare after the run.
    pub outputs: Vec<String>,
    /// A complete launch description for `program: kernel.cu`.
    pub launch_yaml: String,
    /// Every barrier and vote, in source order.
    pub sync_points: Vec<SyncPoint>,
    /// 1-based lines of the kernel's early `return`s.
    pub early_returns: Vec<u32>,
}

impl GeneratedKernel {
    /// The launch as a [`LaunchDescription`], for a harness that does not
    /// go through YAML; `program` is `dir/kernel.cu` (the file is not
    /// touched).
    pub fn launch_description(&self, dir: &Path) -> LaunchDescription {
        LaunchDescription {
            file: dir.join("launch.yaml"),
            program: dir.join("kernel.cu"),
            entry: Some(self.kernel_name.clone()),
            config: None,
            grid: self.grid,
            block: self.block,
            args: self.args.clone(),
            outputs: self.outputs.clone(),
            watchdog: Some(WATCHDOG),
        }
    }

    /// The launch's initial state on a core configured by `config`, for
    /// running the kernel's IR on the interpreter without compiling it: the
    /// launch checks need a container, and a stub with the kernel's name
    /// and parameter names is enough for them.
    pub fn prepare_without_code(
        &self,
        config: &concord_isa::config::CoreConfig,
    ) -> Result<concord_isa::launch::PreparedLaunch, String> {
        use concord_isa::container::{Entry, Kernel};
        let stub = Kernel {
            code: vec![0],
            entries: vec![Entry {
                name: self.kernel_name.clone(),
                pc: 0,
            }],
            params: self.args.iter().map(|a| a.name.clone()).collect(),
            regs_used: 1,
            preds_used: 1,
            ..Kernel::default()
        };
        self.launch_description(&std::env::temp_dir())
            .prepare(&stub, config)
            .map_err(|e| e.to_string())
    }

    /// The reference result: the launch prepared on `config` and global
    /// memory after the front end's IR of the kernel ran on the reference
    /// interpreter (no optimisation, no back end).
    pub fn interpret(
        &self,
        config: &concord_isa::config::CoreConfig,
    ) -> Result<(concord_isa::launch::PreparedLaunch, Vec<u8>), String> {
        use crate::frontend::{self, FrontendOptions};
        use crate::interp::{self, InterpLaunch, InterpOptions};
        let file = format!("kgen_{}.cu", self.seed);
        let prepared = self.prepare_without_code(config)?;
        let (module, _) =
            frontend::compile_source(&self.source, &file, &FrontendOptions::for_core(config))
                .map_err(|d| frontend::render(&d, &self.source, &file))?;
        let id = module
            .func_by_name(&self.kernel_name)
            .ok_or("kernel missing from the IR")?;
        let mut memory = prepared.global.clone();
        interp::run(
            &module,
            id,
            &InterpLaunch::new(&prepared, config),
            &mut memory,
            &InterpOptions::default(),
        )
        .map_err(|e| format!("interpreter: {e}"))?;
        Ok((prepared, memory))
    }
}

/// Generates the kernel for `seed`. Deterministic: the same seed and
/// configuration give the same kernel.
pub fn generate(seed: u64, config: &GenConfig) -> GeneratedKernel {
    let mut generator = Generator::new(seed, config);
    generator.program(seed);
    let Generator {
        env,
        src,
        sync_points,
        early_returns,
        ..
    } = generator;
    let args = env.args();
    let outputs = env.outputs();
    let launch_yaml = launch::LaunchText {
        seed,
        kernel_name: &env.kernel_name,
        core_config: config.core_config.as_deref(),
        grid: env.grid,
        block: env.block,
        args: &args,
        outputs: &outputs,
    }
    .render();
    GeneratedKernel {
        seed,
        source: src.finish(),
        kernel_name: env.kernel_name,
        grid: env.grid,
        block: env.block,
        args,
        outputs,
        launch_yaml,
        sync_points,
        early_returns,
    }
}
