//! `concord compile`, and the compilation of `.cu` programs that `concord
//! run` does on the fly: a thin shell over `concord_compiler::driver`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::builder::TypedValueParser as _;
use clap::{Args, ValueEnum};

use concord_compiler::backend::{DivergenceStrategy, SpillMode};
use concord_compiler::driver::{self, CompileOptions, Compiled, KernelOutput};
use concord_isa::config::CoreConfig;
use concord_isa::container::Kernel;
use concord_isa::input;
use concord_isa::instr::{MAX_IMEM_WORDS, MAX_REGS};
use concord_isa::launch::{load_program, LaunchDescription};

use crate::error::CliError;
use crate::output::Output;

/// The flags that decide the code a kernel compiles to; `concord compile`
/// and `concord run` (for `.cu` programs) take the same ones.
#[derive(Args, Clone, Debug, Default)]
pub struct CompileFlags {
    /// General-register budget (4..=32); the core's `registers` by default.
    /// Values that do not fit are spilled to the per-thread stack.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(4..=MAX_REGS as i64))]
    pub regs: Option<u32>,
    /// Per-thread stack size in bytes, instead of the computed one (rounded
    /// up to a multiple of 8; ignored by kernels that need no stack; less
    /// than one pass down the deepest call chain is an error).
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u32).range(1..=1 << 30))]
    pub stack_bytes: Option<u32>,
    /// Largest `__device__` function (IR instructions) that is inlined; 0
    /// turns inlining off (at most the largest instruction memory, 65536).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=MAX_IMEM_WORDS as u64).map(|n| n as usize))]
    pub inline_threshold: Option<usize>,
    /// Merge inner loops with a data-dependent trip count into their outer
    /// loop (Bulavintsev); nests that do not qualify are listed with the
    /// reason under `--stats`.
    #[arg(long)]
    pub flatten_loops: bool,
    /// Where spilled values go: `plain` (per-thread stack, constants
    /// rematerialised) or `divergence-aware` (Sampaio: uniform values in
    /// per-warp shared-memory slots, affine values rebuilt from the thread
    /// index).
    #[arg(long, value_name = "MODE", default_value_t = SpillMode::Plain)]
    pub spill: SpillMode,
    /// What happens to divergent branches: `branch` (per-lane branches,
    /// reconverged by the min-PC arbiter), `predicate` (if-converted into
    /// guarded code with consensual skips, Lee et al.) or `auto` (per
    /// region, the cheaper of the two by a static estimate).
    #[arg(long, value_name = "STRATEGY", default_value_t = DivergenceStrategy::default())]
    pub divergence: DivergenceStrategy,
}

impl CompileFlags {
    /// The flags given on the command line, as written there: those whose
    /// value is not the default (giving a default changes nothing).
    pub fn given(&self) -> Vec<&'static str> {
        let default = CompileFlags::default();
        [
            ("--regs", self.regs != default.regs),
            ("--stack-bytes", self.stack_bytes != default.stack_bytes),
            (
                "--inline-threshold",
                self.inline_threshold != default.inline_threshold,
            ),
            (
                "--flatten-loops",
                self.flatten_loops != default.flatten_loops,
            ),
            ("--spill", self.spill != default.spill),
            ("--divergence", self.divergence != default.divergence),
        ]
        .into_iter()
        .filter_map(|(flag, given)| given.then_some(flag))
        .collect()
    }

    pub fn options(&self, config: &CoreConfig) -> CompileOptions {
        let mut o = CompileOptions::for_core(config);
        o.regs = self.regs;
        o.stack_bytes = self.stack_bytes;
        if let Some(t) = self.inline_threshold {
            o.opt.inline_threshold = t;
        }
        o.opt.flatten_loops = self.flatten_loops;
        o.spill = self.spill;
        o.divergence = self.divergence;
        o
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum Emit {
    /// The optimised, laid-out SSA IR (text).
    Ir,
    /// The assembly listing (assembles back to the same code).
    Asm,
    /// The kernel container (`.cbin`).
    Bin,
}

#[derive(Args)]
pub struct CompileArgs {
    /// CUDA-C source (`.cu`); `-` reads standard input (then -o is needed).
    input: PathBuf,
    /// Output file; by default the input with the extension of `--emit`
    /// (`.cir`, `.s`, `.cbin`).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// What to write.
    #[arg(long, value_enum, default_value_t = Emit::Bin)]
    emit: Emit,
    /// Core configuration the code is for; the default core otherwise.
    #[arg(long)]
    config: Option<PathBuf>,
    /// The kernel to emit when the source has several `__global__` functions.
    #[arg(long, value_name = "NAME")]
    kernel: Option<String>,
    /// Print statistics per kernel on stderr: instructions, registers,
    /// predicates, spills, branch classes and what became of the branches
    /// under `--divergence`.
    #[arg(long)]
    stats: bool,
    #[command(flatten)]
    flags: CompileFlags,
}

/// Compiles the file at `path` for `config`; errors are the rendered
/// diagnostics or the failing pass.
pub fn compile_file(
    path: &Path,
    config: &CoreConfig,
    flags: &CompileFlags,
) -> Result<Compiled, String> {
    let (source, file) = if crate::is_stdin(path) {
        (
            input::read_stdin_text(input::Kind::KernelSource),
            input::STDIN_NAME.into(),
        )
    } else {
        (
            input::read_text(path, input::Kind::KernelSource),
            path.display().to_string(),
        )
    };
    let source = source.map_err(|e| e.to_string())?;
    let compiled = driver::compile(&source, &file, &flags.options(config)).map_err(|e| {
        // Source diagnostics are already one block per problem, with their
        // own `error:` headers; strip the CLI's prefix duplicate.
        e.to_string().trim_end().to_string()
    })?;
    if !compiled.warnings.is_empty() {
        eprint!("{}", compiled.warnings);
    }
    Ok(compiled)
}

/// The kernel a launch description runs: loaded (`.s`, `.cbin`) or
/// compiled (`.cu`) for `config` with `flags`.
/// Compile flags change only programs that are compiled: given for a
/// launch whose program is assembly or a container, they would be ignored
/// without a word, so they are refused (a usage error) before any work.
pub fn check_flags_apply(desc: &LaunchDescription, flags: &CompileFlags) -> Result<(), CliError> {
    let given = flags.given();
    if given.is_empty() || is_kernel_source(&desc.program) {
        return Ok(());
    }
    Err(CliError::usage(format!(
        "{} only {} CUDA-C (`.cu`) programs, but the launch's program {} is not one: \
         drop {} or launch the kernel's `.cu` source",
        given.join(", "),
        if given.len() == 1 {
            "applies to"
        } else {
            "apply to"
        },
        input::show_path(&desc.program),
        if given.len() == 1 { "it" } else { "them" },
    )))
}

fn is_kernel_source(program: &Path) -> bool {
    program.extension().is_some_and(|e| e == "cu")
}

pub fn program_for_launch(
    desc: &LaunchDescription,
    config: &CoreConfig,
    flags: &CompileFlags,
) -> Result<Kernel, String> {
    if is_kernel_source(&desc.program) {
        let compiled = compile_file(&desc.program, config, flags)?;
        let k = select_kernel(&compiled, desc.entry.as_deref(), "with `entry:`").map_err(|e| {
            format!(
                "{}: {}",
                input::show_path(&desc.program),
                concord_isa::show::message(&e)
            )
        })?;
        Ok(k.compiled.kernel.clone())
    } else {
        load_program(&desc.program).map_err(|e| e.to_string())
    }
}

pub fn run(args: CompileArgs) -> Result<(), CliError> {
    let extension = match args.emit {
        Emit::Ir => "cir",
        Emit::Asm => "s",
        Emit::Bin => "cbin",
    };
    let output = match &args.output {
        Some(output) => output.clone(),
        None if crate::is_stdin(&args.input) => {
            return Err(CliError::usage(
                "`compile -` reads standard input: give the output file with -o",
            ))
        }
        None => args.input.with_extension(extension),
    };
    let out = Output::open(&output)?;
    let mut inputs = vec![("the kernel source", args.input.as_path())];
    if let Some(config) = &args.config {
        inputs.push(("the config", config.as_path()));
    }
    crate::output::check_distinct(&[("-o", &out)], &inputs)?;
    let config = match &args.config {
        Some(p) => CoreConfig::load(p).map_err(|e| e.to_string())?,
        None => CoreConfig::default(),
    };
    let compiled = compile_file(&args.input, &config, &args.flags)?;
    if args.stats {
        for k in &compiled.kernels {
            eprint!("{}", stats_text(k));
        }
        let flatten = &compiled.opt_report.flatten;
        for (func, header) in &flatten.flattened {
            eprintln!("loop flattening: @{func}: flattened the nest headed by {header}");
        }
        for note in &flatten.notes {
            eprintln!("loop flattening: note: {note}");
        }
        for k in &compiled.kernels {
            for note in &k.compiled.notes {
                eprintln!("divergence: note: {note}");
            }
        }
        eprintln!(
            "compile time: {:.2} ms (front end {:.2}, middle {:.2}, back end {:.2})",
            ms(compiled.timings.total()),
            ms(compiled.timings.frontend),
            ms(compiled.timings.middle),
            ms(compiled.timings.backend)
        );
    }
    let bytes = match args.emit {
        Emit::Ir => compiled.module.to_string().into_bytes(),
        Emit::Asm => {
            let k = select_kernel(&compiled, args.kernel.as_deref(), "with --kernel")
                .map_err(|e| format!("{}: {e}", args.input.display()))?;
            k.compiled.listing.clone().into_bytes()
        }
        Emit::Bin => {
            let k = select_kernel(&compiled, args.kernel.as_deref(), "with --kernel")
                .map_err(|e| format!("{}: {e}", args.input.display()))?;
            k.compiled.kernel.to_bytes()
        }
    };
    let label = out.label().to_string();
    out.write_all_and_finish(&bytes)?;
    crate::note(&format!("{label}: written"));
    Ok(())
}

/// The kernel to emit or run; `how` (the flag or field that picks one)
/// completes the message only when the source has several kernels and
/// none was named.
fn select_kernel<'a>(
    compiled: &'a Compiled,
    name: Option<&str>,
    how: &str,
) -> Result<&'a KernelOutput, String> {
    compiled.kernel(name).map_err(|e| {
        if name.is_none() && compiled.kernels.len() > 1 {
            format!("{e} {how}")
        } else {
            e
        }
    })
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The `--stats` block of one kernel.
pub fn stats_text(k: &KernelOutput) -> String {
    let s = &k.compiled.stats;
    let d = &k.divergence;
    let mut out = String::new();
    let _ = writeln!(out, "kernel {}:", k.name);
    let _ = writeln!(out, "  instructions        {}", s.instructions);
    let _ = writeln!(out, "  registers           {}", s.regs_used);
    let _ = writeln!(out, "  predicates          {}", s.preds_used);
    let _ = writeln!(
        out,
        "  spills              {} values ({} loads, {} stores), {} rematerialised, {} predicates in registers",
        s.spills, s.spill_loads, s.spill_stores, s.rematerialized, s.preds_demoted
    );
    let _ = writeln!(
        out,
        "  spills by rule      {} constant remat, {} per-warp uniform, {} affine remat, {} affine uniform part, {} per lane",
        s.remat_constant, s.per_warp_uniform, s.remat_affine_constant, s.affine_uniform_part, s.per_lane
    );
    if s.warp_slots > 0 || s.warp_slot_fallbacks > 0 {
        let _ = writeln!(
            out,
            "  per-warp slots      {} ({} shared bytes), {} fell back to per lane",
            s.warp_slots, s.warp_spill_bytes, s.warp_slot_fallbacks
        );
    }
    let _ = writeln!(
        out,
        "  stack per thread    {} bytes",
        k.compiled.kernel.stack_bytes
    );
    let _ = writeln!(out, "  calls               {}", s.calls);
    // The divergence analysis's verdict on the IR's conditional branches,
    // then what the back end made of them under `--divergence`.
    let _ = writeln!(
        out,
        "  branch classes      {} uniform, {} divergent",
        d.uniform_branches, d.divergent_branches
    );
    let b = &s.branches;
    let _ = writeln!(
        out,
        "  branches            {} uniform (SBU), {} runtime-checked (RBU), {} loop consensual, {} predicated, {} divergent kept",
        b.uniform, b.runtime_checked, b.loop_consensual, b.predicated, b.divergent_kept
    );
    let c = &d.by_class;
    let total = c.total();
    let pct = |n: usize| {
        if total == 0 {
            0.0
        } else {
            100.0 * n as f64 / total as f64
        }
    };
    let _ = writeln!(
        out,
        "  values              {total}: {} constant ({:.0}%), {} uniform ({:.0}%), {} constant-affine ({:.0}%), {} affine ({:.0}%), {} divergent ({:.0}%)",
        c.constant,
        pct(c.constant),
        c.uniform,
        pct(c.uniform),
        c.constant_affine,
        pct(c.constant_affine),
        c.affine,
        pct(c.affine),
        c.divergent,
        pct(c.divergent)
    );
    out
}
