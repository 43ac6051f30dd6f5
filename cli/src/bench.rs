//! `concord bench`: functional-model throughput on the bundled benchmark
//! kernels (`kernels/bench/*.s`), single-threaded, 32-lane warps.
//!
//! Throughput is counted in lane-instructions: the active lanes of every
//! issued warp-instruction. Each kernel runs `--repeat` times and the best
//! time is kept, since machines are noisy; compare rows within one run.

use std::time::Instant;

use clap::Args;

use concord_isa::config::CoreConfig;
use concord_isa::func::{self, Options};

#[derive(Args)]
pub struct BenchArgs {
    /// Blocks per launch (256 threads each).
    #[arg(long, default_value_t = 64)]
    blocks: u32,
    /// Loop iterations (ALU kernel) and trip-count scale (divergent kernel).
    #[arg(long, default_value_t = 400)]
    iterations: u32,
    /// Runs per kernel; the fastest is reported.
    #[arg(long, default_value_t = 3)]
    repeat: u32,
}

struct BenchKernel {
    name: &'static str,
    file: &'static str,
    source: &'static str,
}

const KERNELS: [BenchKernel; 2] = [
    BenchKernel {
        name: "alu",
        file: "kernels/bench/alu.s",
        source: include_str!("../../kernels/bench/alu.s"),
    },
    BenchKernel {
        name: "divergent",
        file: "kernels/bench/divergent.s",
        source: include_str!("../../kernels/bench/divergent.s"),
    },
];

pub fn run(args: BenchArgs) -> Result<(), String> {
    if args.blocks == 0 || args.iterations == 0 || args.repeat == 0 {
        return Err("--blocks, --iterations and --repeat must be at least 1".into());
    }
    let config = CoreConfig {
        lanes: 32,
        warps: 8,
        global_memory_bytes: 1 << 24,
        ..CoreConfig::default()
    };
    config.validate().map_err(|e| e.to_string())?;
    let threads = 256u32;
    let out_bytes = args.blocks as u64 * threads as u64 * 4;
    if out_bytes + 0x100 > config.global_memory_bytes as u64 {
        return Err(format!(
            "--blocks {} needs {} bytes of output; at most {} fit",
            args.blocks,
            out_bytes,
            config.global_memory_bytes - 0x100
        ));
    }
    println!(
        "functional model, single thread, {} lanes x {} warps, {} blocks x {} threads, best of {}",
        config.lanes, config.warps, args.blocks, threads, args.repeat
    );
    println!(
        "{:<10} {:>12} {:>14} {:>9} {:>16} {:>12} {:>9}",
        "kernel", "issued", "lane-instr", "time ms", "M lane-instr/s", "M issues/s", "SIMD eff"
    );
    for k in &KERNELS {
        let kernel = concord_isa::asm::assemble(k.source, k.file).map_err(|e| e.to_string())?;
        let params = [args.iterations, 0x100];
        let launch = func::Launch {
            code: &kernel.code,
            entry_pc: kernel.entries[0].pc,
            grid: [args.blocks, 1, 1],
            block: [threads, 1, 1],
            params: &params,
        };
        let mut best = f64::INFINITY;
        let mut stats = None;
        for _ in 0..args.repeat {
            let mut global = vec![0u8; config.global_memory_bytes as usize];
            let start = Instant::now();
            let s = func::run(
                &config,
                &launch,
                &mut global,
                Options { watchdog: u64::MAX },
                None,
            )
            .map_err(|t| format!("{}: {t}", k.file))?;
            best = best.min(start.elapsed().as_secs_f64());
            stats = Some(s);
        }
        let s = stats.expect("repeat >= 1");
        println!(
            "{:<10} {:>12} {:>14} {:>9.1} {:>16.1} {:>12.2} {:>8.1}%",
            k.name,
            s.issued,
            s.active_lane_slots,
            best * 1e3,
            s.active_lane_slots as f64 / best / 1e6,
            s.issued as f64 / best / 1e6,
            100.0 * s.simd_efficiency()
        );
    }
    Ok(())
}
