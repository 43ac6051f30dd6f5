//! `concord study warps`: what fine-grained multithreading buys on the
//! Core v2 pipeline model (docs/microarchitecture.md §4.4, §10.3, §20).
//!
//! Two bundled kernels, each swept over the core's warp count × global
//! latency × scheduler:
//!
//! * **alu** (`kernels/bench/alu.s`): one block of `lanes × warps` threads,
//!   a uniform loop of 16 instructions (`--iterations` times). §4.4
//!   expects `IPC = min(1, warps / 6)` once the loop dominates.
//! * **vecadd** (`kernels/vecadd.s`): `c[i] = a[i] + b[i]` over
//!   `--elements` elements, blocks of `lanes × warps` threads, enough
//!   blocks to cover them: memory-bound, each warp waits about
//!   `2·(lat + 23) + (lat + 17)` cycles per element group (§10.3).
//!
//! Every run's final memory is checked (vecadd against `a + b` computed
//! here, alu against the functional model), so that a wrong result is an
//! error and never a figure. The table gives cycles, IPC (`issued /
//! cycles`, replays included, as §20 defines it), the replays, and the
//! speedup over the same kernel, latency and scheduler with one warp as a
//! throughput ratio: warp-instructions that are not replays per cycle.
//! The ALU kernel's work grows with the warps (one block of `lanes ×
//! warps` threads); vecadd's does not, so its speedup is the cycle ratio
//! (up to the instructions of a partial last block). Replays count in IPC
//! but not in the speedup: a pass refused for want of a global entry
//! (`global_outstanding`) is issue bandwidth spent, not work done. Nothing here is timed on the host: the figures are the
//! model's cycle counts.

use clap::Args;

use concord_isa::config::{CoreConfig, Scheduler};
use concord_isa::func;
use concord_testbench::pipeline::{self, Counter, PipelineLaunch, PipelineOptions};

use crate::error::CliError;
use crate::output::outln;

const ALU: &str = include_str!("../../../kernels/bench/alu.s");
const VECADD: &str = include_str!("../../../kernels/vecadd.s");
/// Where the vecadd buffers start (`docs/launch.md` places buffers from 0x100).
const BASE: u32 = 0x100;

#[derive(Args)]
pub struct WarpsStudyArgs {
    /// Warp counts of the core (1..=16).
    #[arg(long, value_name = "N,...", value_delimiter = ',', default_values_t = [1u32, 2, 4, 6, 8, 16])]
    warps: Vec<u32>,
    /// Global latencies in cycles (1..=1000).
    #[arg(long, value_name = "CYCLES,...", value_delimiter = ',', default_values_t = [10u32, 100])]
    latency: Vec<u32>,
    /// Lanes per warp (a power of two, 4..=32).
    #[arg(long, default_value_t = 8)]
    lanes: u32,
    /// Loop iterations of the ALU kernel (1..=100000).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    iterations: u32,
    /// Elements of the vecadd kernel (1..=65536).
    #[arg(long, default_value_t = 16384, value_parser = clap::value_parser!(u32).range(1..=65_536))]
    elements: u32,
    /// Comma-separated values instead of a Markdown table.
    #[arg(long)]
    csv: bool,
}

/// One measured point.
struct Point {
    kernel: &'static str,
    scheduler: Scheduler,
    latency: u32,
    warps: u32,
    cycles: u64,
    ipc: f64,
    /// Passes that were replays (bank conflicts, lines, refusals).
    replays: u64,
    /// Warp-instructions (passes that were not replays) per cycle.
    throughput: f64,
}

pub fn run(args: &WarpsStudyArgs) -> Result<(), CliError> {
    for &w in &args.warps {
        if !(1..=16).contains(&w) {
            return Err(CliError::usage(format!("--warps: {w} is outside 1..=16")));
        }
    }
    for &l in &args.latency {
        if !(1..=1000).contains(&l) {
            return Err(CliError::usage(format!(
                "--latency: {l} is outside 1..=1000"
            )));
        }
    }
    let alu = concord_isa::asm::assemble(ALU, "kernels/bench/alu.s").map_err(|e| e.to_string())?;
    let vecadd =
        concord_isa::asm::assemble(VECADD, "kernels/vecadd.s").map_err(|e| e.to_string())?;
    let mut points = Vec::new();
    for kernel in ["alu", "vecadd"] {
        for &latency in &args.latency {
            for scheduler in [Scheduler::Lrr, Scheduler::Gto] {
                for &warps in &args.warps {
                    let config = CoreConfig {
                        lanes: args.lanes,
                        warps,
                        global_latency: latency,
                        scheduler,
                        ..CoreConfig::default()
                    };
                    concord_uarch::HwParams::new(&config).map_err(|e| e.to_string())?;
                    let counters = match kernel {
                        "alu" => run_alu(&config, &alu, args.iterations)?,
                        _ => run_vecadd(&config, &vecadd, args.elements)?,
                    };
                    points.push(Point {
                        kernel,
                        scheduler,
                        latency,
                        warps,
                        cycles: counters.get(Counter::Cycles),
                        ipc: counters.ipc(),
                        replays: counters.get(Counter::Replays),
                        throughput: (counters.get(Counter::Issued) - counters.get(Counter::Replays))
                            as f64
                            / counters.get(Counter::Cycles).max(1) as f64,
                    });
                }
            }
        }
    }
    print(args, &points)
}

fn print(args: &WarpsStudyArgs, points: &[Point]) -> Result<(), CliError> {
    let base = |p: &Point| {
        points
            .iter()
            .find(|q| {
                q.kernel == p.kernel
                    && q.scheduler == p.scheduler
                    && q.latency == p.latency
                    && q.warps == 1
            })
            .map(|q| p.throughput / q.throughput)
    };
    let speedup = |p: &Point| base(p).map_or("-".to_string(), |s| format!("{s:.2}"));
    // One point as a CSV line or a Markdown table row (fewer digits).
    let line = |p: &Point, csv: bool| {
        let ipc = if csv { 4 } else { 3 };
        let cells = [
            p.kernel.to_string(),
            p.scheduler.name().to_string(),
            p.latency.to_string(),
            p.warps.to_string(),
            p.cycles.to_string(),
            format!("{:.ipc$}", p.ipc),
            p.replays.to_string(),
            speedup(p),
        ];
        super::table_line(&cells, csv)
    };
    if args.csv {
        outln!("kernel,scheduler,latency,warps,cycles,ipc,replays,speedup_vs_1_warp")?;
    } else {
        outln!(
            "Core v2 pipeline model, {} lanes; alu: 1 block of lanes x warps threads, {} iterations; vecadd: {} elements, blocks of lanes x warps threads; results checked; IPC = issued / cycles (replays included); speedup = non-replay warp-instructions per cycle over 1 warp's",
            args.lanes,
            args.iterations,
            args.elements
        )?;
        outln!(
            "| kernel | scheduler | latency | warps | cycles | IPC | replays | speedup vs 1 warp |"
        )?;
        outln!("|---|---|---:|---:|---:|---:|---:|---:|")?;
    }
    for p in points {
        outln!("{}", line(p, args.csv))?;
    }
    Ok(())
}

/// The ALU kernel on one block of `lanes × warps` threads, checked against
/// the functional model.
fn run_alu(
    config: &CoreConfig,
    kernel: &concord_isa::container::Kernel,
    iterations: u32,
) -> Result<pipeline::Counters, CliError> {
    let threads = config.lanes * config.warps;
    let params = [iterations, BASE];
    let launch = PipelineLaunch {
        launch: func::Launch {
            code: &kernel.code,
            entry_pc: kernel.entries[0].pc,
            grid: [1, 1, 1],
            block: [threads, 1, 1],
            params: &params,
            stack_bytes: kernel.stack_bytes,
        },
        shared_bytes: kernel.shared_bytes,
        regs_used: kernel.regs_used,
    };
    let mut expect = vec![0u8; config.global_memory_bytes as usize];
    pipeline::func_reference(config, &launch, &mut expect, func::Options::default(), None)
        .map_err(|e| format!("alu on the functional model: {e}"))?;
    let mut global = vec![0u8; config.global_memory_bytes as usize];
    let counters = run_checked(config, &launch, &mut global, "alu")?;
    if global != expect {
        return Err(CliError::from(format!(
            "alu with {} warps: the pipeline's memory differs from the functional model's",
            config.warps
        )));
    }
    Ok(counters)
}

/// `c = a + b` over `n` elements, checked element by element.
fn run_vecadd(
    config: &CoreConfig,
    kernel: &concord_isa::container::Kernel,
    n: u32,
) -> Result<pipeline::Counters, CliError> {
    let threads = config.lanes * config.warps;
    let (a, b, c) = (BASE, BASE + 4 * n, BASE + 8 * n);
    let mut global = vec![0u8; config.global_memory_bytes as usize];
    let word = |i: u32, which: u32| (i.wrapping_mul(2654435761) ^ which.wrapping_mul(40503)) >> 8;
    for i in 0..n {
        let (x, y) = (word(i, 1), word(i, 2));
        global[(a + 4 * i) as usize..][..4].copy_from_slice(&x.to_le_bytes());
        global[(b + 4 * i) as usize..][..4].copy_from_slice(&y.to_le_bytes());
    }
    let params = [a, b, c, n];
    let launch = PipelineLaunch {
        launch: func::Launch {
            code: &kernel.code,
            entry_pc: kernel.entries[0].pc,
            grid: [n.div_ceil(threads), 1, 1],
            block: [threads, 1, 1],
            params: &params,
            stack_bytes: kernel.stack_bytes,
        },
        shared_bytes: kernel.shared_bytes,
        regs_used: kernel.regs_used,
    };
    let counters = run_checked(config, &launch, &mut global, "vecadd")?;
    for i in 0..n {
        let got = u32::from_le_bytes(global[(c + 4 * i) as usize..][..4].try_into().unwrap());
        let want = word(i, 1).wrapping_add(word(i, 2));
        if got != want {
            return Err(CliError::from(format!(
                "vecadd with {} warps: c[{i}] = {got}, expected {want}",
                config.warps
            )));
        }
    }
    Ok(counters)
}

fn run_checked(
    config: &CoreConfig,
    launch: &PipelineLaunch<'_>,
    global: &mut Vec<u8>,
    what: &str,
) -> Result<pipeline::Counters, CliError> {
    let o = pipeline::run(
        config,
        launch,
        global,
        PipelineOptions {
            watchdog: 1 << 40,
            check_bus: false,
            gen: concord_uarch::GenOptions::sim(),
        },
    )?;
    o.result
        .map_err(|t| CliError::from(format!("{what} with {} warps: {t}", config.warps)))?;
    Ok(o.counters)
}
