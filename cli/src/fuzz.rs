//! `concord fuzz-core`: random programs (valid by construction, always
//! terminating) on the cycle model, or on the RTL in lock-step with the
//! cycle model, each checked against the functional model (run with the
//! shared window of the launch's occupancy, docs/microarchitecture.md §18:
//! `concord_testbench::pipeline::func_reference`).

use std::path::PathBuf;

use clap::builder::TypedValueParser as _;
use clap::Args;

use concord_isa::func::{Launch, Options};
use concord_testbench::gen::{generate, GenConfig};
use concord_testbench::lockstep;
use concord_testbench::pipeline::{self, func_reference, Counter, PipelineLaunch, PipelineOptions};

use crate::error::CliError;
use crate::output::outln;

/// The largest `--size`: the size the generator's own tests check to finish
/// within the watchdog below (larger programs run long enough to reach it:
/// at 1000, some seeds take more than 50 million cycles).
const MAX_SIZE: u64 = 400;

/// The warp-instructions each generated program may issue (the core's
/// watchdog, §13.4).
const WATCHDOG_WARP_INSTRUCTIONS: u64 = 50_000_000;

#[derive(Args)]
pub struct FuzzArgs {
    /// Number of programs (1..=1000000).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    programs: u64,
    /// Core configuration (lanes, warps, memories, latency); the default core otherwise.
    #[arg(long)]
    config: Option<PathBuf>,
    /// First seed; program i uses seed + i (seed + programs - 1 must not
    /// pass 2^64 - 1).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Check on the cycle model only, without building the RTL.
    #[arg(long)]
    cycle_only: bool,
    /// Rough statements per program (1..=400).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=MAX_SIZE).map(|n| n as usize))]
    size: usize,
}

pub fn run(args: FuzzArgs) -> Result<(), CliError> {
    let last_seed = args.seed.checked_add(args.programs - 1).ok_or_else(|| {
        CliError::usage(format!(
            "--seed {} with --programs {}: the last seed would pass {}",
            args.seed,
            args.programs,
            u64::MAX
        ))
    })?;
    let base = crate::hw::load_config(&args.config)?;
    // The timed models build only what the hardware can
    // (`concord_uarch::HwParams`).
    crate::hw::check_buildable(&base, args.config.as_deref())?;
    // Generate first, so the core is built once, with memories and call
    // depth large enough for every program of the run.
    let programs: Vec<_> = (0..args.programs)
        .map(|i| {
            let seed = args.seed + i;
            let threads = 1 + (seed.wrapping_mul(7919) % u64::from(base.lanes * base.warps)) as u32;
            let cfg = GenConfig {
                lanes: base.lanes,
                warps: base.warps,
                threads,
                blocks: 1 + (seed % 3) as u32,
                size: args.size,
                ..GenConfig::default()
            };
            generate(seed, &cfg)
        })
        .collect();
    let config = programs.iter().fold(base.clone(), |c, p| p.fit(&c));
    let kernels = programs
        .iter()
        .map(|p| {
            concord_isa::asm::assemble(&p.source, &format!("seed-{}.s", p.seed))
                .map_err(|e| format!("seed {}: generated program does not assemble: {e}", p.seed))
        })
        .collect::<Result<Vec<_>, _>>()?;
    check_registers(&kernels, &config, args.config.as_deref())?;
    let mut rtl = if args.cycle_only {
        None
    } else {
        Some(crate::rtl::build(&config, args.config.as_deref(), false)?)
    };
    let options = PipelineOptions {
        watchdog: WATCHDOG_WARP_INSTRUCTIONS,
        check_bus: true,
        gen: concord_uarch::GenOptions::sim(),
    };
    let mut cycles = 0u64;
    for (program, kernel) in programs.iter().zip(&kernels) {
        let seed = program.seed;
        let launch = PipelineLaunch {
            launch: Launch {
                code: &kernel.code,
                entry_pc: kernel.entries[0].pc,
                grid: [program.blocks, 1, 1],
                block: [program.threads, 1, 1],
                params: &program.params,
                stack_bytes: kernel.stack_bytes,
            },
            shared_bytes: kernel.shared_bytes,
            regs_used: kernel.regs_used,
        };
        let mut global = program.global_init.clone();
        global.resize(config.global_memory_bytes as usize, 0);
        let (outcome, timed) = match rtl.as_mut() {
            Some(rtl) => {
                let o = lockstep::run(&config, &launch, &global, rtl, options)
                    .map_err(|e| CliError::from(e).context(format!("seed {seed}")))?;
                (o.outcome, o.global)
            }
            None => {
                let mut timed = global.clone();
                let o = pipeline::run(&config, &launch, &mut timed, options)
                    .map_err(|e| CliError::from(e).context(format!("seed {seed}")))?;
                (o, timed)
            }
        };
        outcome.result.map_err(|t| {
            CliError::from(t).context(format!("seed {seed}: generated program trapped"))
        })?;
        let mut oracle = global;
        func_reference(
            &config,
            &launch,
            &mut oracle,
            Options {
                watchdog: u64::MAX >> 1,
            },
            None,
        )
        .map_err(|t| CliError::from(t).context(format!("seed {seed}: functional model trapped")))?;
        if oracle != timed {
            let at = oracle
                .iter()
                .zip(&timed)
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            return Err(CliError::mismatch(format!(
                "seed {seed}: final global memory differs between the functional model and the {} at byte {at:#x}",
                if args.cycle_only { "cycle model" } else { "RTL and the cycle model" }
            )));
        }
        cycles += outcome.counters.get(Counter::Cycles);
    }
    outln!(
        "{} programs (seeds {}..={}) on {} lanes x {} warps: 0 mismatches, {} simulated cycles{}",
        args.programs,
        args.seed,
        last_seed,
        config.lanes,
        config.warps,
        cycles,
        if args.cycle_only {
            " (cycle model vs functional model)"
        } else {
            " (RTL and cycle model in lock-step, vs functional model)"
        }
    )?;
    Ok(())
}

/// The generated programs name every general and predicate register (their
/// checksum reads `r0..r31` and `p1..p7`), so the core must have them all
/// (`concord_isa::launch::kernel_fits`, the check of a launch description):
/// with fewer, the models would run instructions naming registers the core
/// does not have, which must not reach a comparison.
fn check_registers(
    kernels: &[concord_isa::container::Kernel],
    config: &concord_isa::config::CoreConfig,
    file: Option<&std::path::Path>,
) -> Result<(), CliError> {
    let Some(misfit) = kernels
        .iter()
        .find_map(|k| concord_isa::launch::kernel_fits(k, config).err())
    else {
        return Ok(());
    };
    let file = file.map_or_else(
        || "the default core".to_string(),
        |p| p.display().to_string(),
    );
    Err(CliError::new(
        crate::error::ErrorClass::Input,
        format!(
            "{file}: config field `{key}`: fuzz-core's random programs use {} {} but the core has {}; set `{key}: {}` (or leave it out)",
            misfit.used,
            misfit.what,
            misfit.have,
            misfit.used,
            key = misfit.field
        ),
    ))
}
