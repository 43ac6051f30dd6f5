//! Random program generator: structured Concord kernels that are valid by
//! construction, always terminate, and end in a final state (global memory
//! and registers) that does not depend on how a model interleaves warps.
//!
//! [`generate`] grows a program from a grammar (straight-line code, memory
//! traffic, if/else, loops, consensual branches, indirect jumps, calls,
//! recursion, barriers) driven by a SplitMix64 stream, so a program is a pure
//! function of `(seed, GenConfig)`. The same [`Program`] runs on the
//! functional model, the cycle model and the RTL, whose final states are
//! compared.
//!
//! # Shape of a program
//!
//! ```text
//! kernel:    bra main_body           ; when functions lie below main
//!            leaves, mids, recursive functions  (called downwards)
//! main_body: prologue                ; every register, predicate, shared word
//!            bar.sync                ; (with barriers) tables are ready
//!            phases separated by top-level barriers
//!            checksum of r0..r31 and p1..p7 -> own global slot
//!            exit
//!            leaves, mids, recursive functions  (called upwards)
//! ```
//!
//! Registers `r0..r16` are scratch for every statement; the others have one
//! role each (a running hash of every loaded value, thread ids, stack
//! pointer, recursion depth, two link registers, one loop counter per
//! nesting level and call level), so no callee clobbers anything live. Loops count a reserved register down from
//! a bound set at entry (`(x & 7) + 1` and similar), so every program
//! terminates.
//!
//! # Why the final state is interleaving-independent
//!
//! * Global memory: each thread writes only its own words (indexed by the
//!   global thread id) and its own recursion stack; the read-only table is
//!   never written; per-block mailboxes are written by their owner in
//!   *write* phases and read by any thread of the block in *read* phases
//!   (phases change at top-level barriers, where every thread arrives);
//!   accumulators take one commutative atomic operation per word, with the
//!   returned old value discarded (`r18`, overwritten at once).
//! * Shared memory: the same, plus a read-only table filled before the first
//!   barrier, and one slot per warp written only by whole-warp instructions
//!   (the highest lane wins in every model) and read by that warp only.
//! * Blocks never read other blocks' data.
//! * Values that depend on which lanes issue together (votes, ballots,
//!   consensual branches on per-lane predicates, whole-warp stores) are only
//!   produced where that grouping is the same under every arbitration
//!   policy: code is *safe* until a call lets lanes of different call
//!   depths overtake each other (an upward call by part of a warp, or a
//!   recursive function above `main`), and safe again after the next
//!   barrier. Elsewhere votes take warp-uniform predicates, ballots keep the
//!   lane's own bit, and consensual loops let finished lanes skip the body.
//!   So the final state is also the same under `depth_pc` and `pc_only`,
//!   which the tests check.
//! * Barriers appear only at the top level of `main` (uniform control
//!   flow), and an early `exit` only where no barrier follows.
//!
//! Assembly comments of the form `;#name` tag the constructs a program
//! contains (for coverage statistics).

mod body;
mod hist;
mod layout;
mod rng;

pub use hist::{expected_forms, form_name, opcode_histogram};

use concord_isa::config::CoreConfig;

use body::Gen;
use layout::{Layout, DATA_PARAMS};
use rng::Rng;

/// The core and launch shape a program is generated for, its size and the
/// constructs it may use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenConfig {
    /// Lanes per warp (clamped to 4..=32; the hardware needs a power of two).
    pub lanes: u32,
    /// Warps per core (clamped to 1..=16).
    pub warps: u32,
    /// Threads per block (clamped to 1..=lanes*warps); need not be a
    /// multiple of `lanes`.
    pub threads: u32,
    /// Blocks in the (1-dimensional) grid, at least 1.
    pub blocks: u32,
    /// Rough number of statements of `main`; each function gets about a
    /// sixth of it.
    pub size: usize,
    pub features: Features,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            lanes: 8,
            warps: 2,
            threads: 12,
            blocks: 2,
            size: 60,
            features: Features::default(),
        }
    }
}

/// Constructs a program may contain. The checksum stores at the end and the
/// recursion stack use global memory whatever `global` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// `call`/`ret` to functions above and below `main`, nested calls.
    pub calls: bool,
    /// A function calling itself to a per-lane bounded depth (needs `calls`).
    pub recursion: bool,
    /// `jmp` through a register, and `callr`.
    pub indirect: bool,
    /// Shared memory traffic.
    pub shared: bool,
    /// Global memory traffic (besides the checksums and stacks).
    pub global: bool,
    /// `atom.*`.
    pub atomics: bool,
    /// `bar.sync`, phases, mailboxes read by other threads.
    pub barriers: bool,
    /// `bra.none/any/all`.
    pub consensual: bool,
    /// Loops (per-lane and consensual).
    pub loops: bool,
}

impl Default for Features {
    fn default() -> Self {
        Features {
            calls: true,
            recursion: true,
            indirect: true,
            shared: true,
            global: true,
            atomics: true,
            barriers: true,
            consensual: true,
            loops: true,
        }
    }
}

impl Features {
    /// Straight-line code only.
    pub fn none() -> Features {
        Features {
            calls: false,
            recursion: false,
            indirect: false,
            shared: false,
            global: false,
            atomics: false,
            barriers: false,
            consensual: false,
            loops: false,
        }
    }
}

/// A generated program and everything needed to launch it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// Assembly text (`concord_isa::asm::assemble`); the entry is `kernel`
    /// at address 0.
    pub source: String,
    /// Kernel parameter words.
    pub params: Vec<u32>,
    /// Global memory size in bytes (a multiple of 4, at least 64).
    pub global_bytes: u32,
    /// Initial global memory image, `global_bytes` long.
    pub global_init: Vec<u8>,
    /// Shared memory used per block (also the `.shared` directive).
    pub shared_bytes: u32,
    /// Threads per block (`[threads, 1, 1]`).
    pub threads: u32,
    /// Blocks (`[blocks, 1, 1]`).
    pub blocks: u32,
    pub lanes: u32,
    pub warps: u32,
    pub seed: u64,
    /// Deepest call nesting the program can reach.
    pub max_call_depth: u32,
    /// Instruction words of the assembled program.
    pub code_words: u32,
}

/// Generates the program for `seed`; deterministic in `(seed, cfg)`.
pub fn generate(seed: u64, cfg: &GenConfig) -> Program {
    let lanes = cfg.lanes.clamp(4, 32);
    let warps = cfg.warps.clamp(1, 16);
    let threads = cfg.threads.clamp(1, lanes * warps);
    let blocks = cfg.blocks.max(1);
    let mut f = cfg.features;
    f.recursion &= f.calls;

    let mut rng = Rng::new(seed);
    let lay = Layout::new(threads, blocks, lanes, f.shared);
    let mut data = [0u32; DATA_PARAMS as usize];
    for d in &mut data {
        *d = rng.next_u32();
    }
    let params = lay.params(data);
    let mut global_init = vec![0u8; lay.global_bytes as usize];
    for chunk in global_init.chunks_mut(8) {
        let v = rng.next_u64().to_le_bytes();
        chunk.copy_from_slice(&v[..chunk.len()]);
    }
    let (global_bytes, shared_bytes) = (lay.global_bytes, lay.shared_bytes);

    let size = cfg.size.clamp(1, 1 << 20) as u32;
    let fn_size = (size / 6).max(2);
    let g = Gen::new(rng, f, lay).program(size, fn_size);
    Program {
        source: g.source,
        params,
        global_bytes,
        global_init,
        shared_bytes,
        threads,
        blocks,
        lanes,
        warps,
        seed,
        max_call_depth: g.max_call_depth,
        code_words: g.words,
    }
}

impl Program {
    /// A core that runs the program: its lanes and warps, memories that fit,
    /// enough call depth and instruction memory; defaults otherwise. The
    /// shared memory and instruction memory sizes follow the hardware's
    /// power-of-two rules (docs/microarchitecture.md §1), so the RTL can be
    /// built for it when `lanes` is a power of two.
    pub fn core_config(&self) -> CoreConfig {
        let d = CoreConfig::default();
        self.fit(&CoreConfig {
            lanes: self.lanes,
            warps: self.warps,
            ..d
        })
    }

    /// `base` grown where the program needs more: shared and global memory,
    /// call depth, instruction memory (keeping the hardware's power-of-two
    /// rules of docs/microarchitecture.md §1). Folding many programs through
    /// it gives one core that runs them all.
    pub fn fit(&self, base: &CoreConfig) -> CoreConfig {
        let bank_bytes = 4 * base.shared_banks;
        let depth_bits = 32 - self.max_call_depth.leading_zeros();
        let rows = self
            .shared_bytes
            .max(base.shared_memory_bytes)
            .div_ceil(bank_bytes)
            .max(1)
            .next_power_of_two();
        CoreConfig {
            shared_memory_bytes: rows * bank_bytes,
            global_memory_bytes: base.global_memory_bytes.max(self.global_bytes),
            call_depth_bits: base.call_depth_bits.max(depth_bits),
            imem_words: base
                .imem_words
                .max(self.code_words)
                .next_power_of_two()
                .min(1 << 16),
            ..base.clone()
        }
    }

    /// Grid dimensions of the launch.
    pub fn grid(&self) -> [u32; 3] {
        [self.blocks, 1, 1]
    }

    /// Block dimensions of the launch.
    pub fn block(&self) -> [u32; 3] {
        [self.threads, 1, 1]
    }

    /// The assembled kernel. Panics (naming the seed) if the generator
    /// produced text that does not assemble, which is a generator bug.
    pub fn kernel(&self) -> concord_isa::container::Kernel {
        concord_isa::asm::assemble(&self.source, "gen.s").unwrap_or_else(|e| {
            panic!(
                "seed {}: generated program does not assemble: {e}",
                self.seed
            )
        })
    }
}
