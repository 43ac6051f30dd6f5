//! `concord fuzz-core`: random programs (valid by construction, always
//! terminating) on the cycle model, or on the RTL in lock-step with the
//! cycle model, each checked against the functional model.

use std::path::PathBuf;

use clap::Args;

use concord_isa::func::{self, Launch, Options};
use concord_testbench::gen::{generate, GenConfig};

#[derive(Args)]
pub struct FuzzArgs {
    /// Number of programs.
    #[arg(long, default_value_t = 100)]
    programs: u64,
    /// Core configuration (lanes, warps, memories, latency); the default core otherwise.
    #[arg(long)]
    config: Option<PathBuf>,
    /// First seed; program i uses seed + i.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Check on the cycle model only, without building the RTL.
    #[arg(long)]
    cycle_only: bool,
    /// Rough statements per program.
    #[arg(long, default_value_t = 60)]
    size: usize,
}

pub fn run(args: FuzzArgs) -> Result<(), String> {
    let base = crate::hw::load_config(&args.config)?;
    if args.programs == 0 {
        return Err("--programs must be at least 1".into());
    }
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
    let mut rtl = if args.cycle_only {
        None
    } else {
        Some(crate::rtl::build(&config, false)?)
    };
    let mut cycles = 0u64;
    for program in &programs {
        let seed = program.seed;
        let kernel = concord_isa::asm::assemble(&program.source, &format!("seed-{seed}.s"))
            .map_err(|e| format!("seed {seed}: generated program does not assemble: {e}"))?;
        let launch = Launch {
            code: &kernel.code,
            entry_pc: kernel.entries[0].pc,
            grid: [program.blocks, 1, 1],
            block: [program.threads, 1, 1],
            params: &program.params,
            stack_bytes: kernel.stack_bytes,
        };
        let mut global = program.global_init.clone();
        global.resize(config.global_memory_bytes as usize, 0);
        let watchdog = 50_000_000;
        let counters = match rtl.as_mut() {
            Some(rtl) => {
                let o =
                    concord_testbench::cosim::run(&config, &launch, &global, rtl, watchdog, None)
                        .map_err(|e| format!("seed {seed}: {e}"))?;
                o.result
                    .map_err(|t| format!("seed {seed}: generated program trapped: {t}"))?;
                o.counters
            }
            None => {
                let mut timed = global.clone();
                let c = concord_testbench::cycle::run(&config, &launch, &mut timed, watchdog, None)
                    .map_err(|t| format!("seed {seed}: cycle model trapped: {t}"))?;
                let mut oracle = global;
                func::run(
                    &config,
                    &launch,
                    &mut oracle,
                    Options {
                        watchdog: u64::MAX >> 1,
                    },
                    None,
                )
                .map_err(|t| format!("seed {seed}: functional model trapped: {t}"))?;
                if oracle != timed {
                    return Err(format!(
                        "seed {seed}: final global memory differs between the functional and cycle models"
                    ));
                }
                c
            }
        };
        cycles += counters.cycles;
    }
    println!(
        "{} programs (seeds {}..={}) on {} lanes x {} warps: 0 mismatches, {} simulated cycles{}",
        args.programs,
        args.seed,
        args.seed + args.programs - 1,
        config.lanes,
        config.warps,
        cycles,
        if args.cycle_only {
            " (cycle model vs functional model)"
        } else {
            " (RTL and cycle model in lock-step, vs functional model)"
        }
    );
    Ok(())
}
