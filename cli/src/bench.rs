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

use crate::error::CliError;
use crate::hw::Preset;
use crate::output::outln;

/// The most blocks whose outputs (1 KiB each) fit the benchmark core's
/// 16 MiB of global memory above the 256 bytes below them.
const MAX_BLOCKS: i64 = ((1 << 24) - 0x100) / 1024;

#[derive(Args)]
pub struct BenchArgs {
    /// Blocks per launch (256 threads each; 1..=16383).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=MAX_BLOCKS))]
    blocks: u32,
    /// Loop iterations (ALU kernel) and trip-count scale (divergent kernel)
    /// (1..=10000: at the default blocks, 10000 take about a minute per
    /// repeat on the functional model).
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    iterations: u32,
    /// Runs per kernel; the fastest is reported (1..=100).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    repeat: u32,
    /// Measure the timed models instead: simulated cycles per second of the
    /// cycle model and of the Verilator RTL at 8x4 and 32x8, the RTL's
    /// simulated warp-instructions per second, IPC, and the time to
    /// generate the Verilog and build the Verilator model (uncached).
    #[arg(long)]
    core: bool,
    /// With --core, the generator preset of the RTL
    /// (docs/microarchitecture.md §17.2): `sim`, with the trace port as in
    /// co-simulation, or `board`, the core without the trace port and the
    /// debug registers and with 32-bit counters, as a long RTL-only run
    /// would use it.
    #[arg(long, value_enum, default_value_t = Preset::Sim, requires = "core", conflicts_with = "compiler")]
    preset: Preset,
    /// Measure the compiler instead: compile time per suite kernel, code
    /// size, and dynamic instructions and SIMD efficiency on the functional
    /// model (results checked against the host references); then the peak
    /// heap while compiling straight-line kernels of 2,500 to 10,000
    /// statements.
    #[arg(long, conflicts_with = "core")]
    compiler: bool,
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

pub fn run(args: BenchArgs) -> Result<(), CliError> {
    if args.core {
        return run_core(&args);
    }
    if args.compiler {
        return crate::bench_compiler::run(args.repeat);
    }
    let config = CoreConfig {
        lanes: 32,
        warps: 8,
        global_memory_bytes: 1 << 24,
        ..CoreConfig::default()
    };
    config.validate().map_err(|e| e.to_string())?;
    let threads = 256u32;
    outln!(
        "functional model, single thread, {} lanes x {} warps, {} blocks x {} threads, best of {}",
        config.lanes,
        config.warps,
        args.blocks,
        threads,
        args.repeat
    )?;
    outln!(
        "{:<10} {:>12} {:>14} {:>9} {:>16} {:>12} {:>9}",
        "kernel",
        "issued",
        "lane-instr",
        "time ms",
        "M lane-instr/s",
        "M issues/s",
        "SIMD eff"
    )?;
    for k in &KERNELS {
        let kernel = concord_isa::asm::assemble(k.source, k.file).map_err(|e| e.to_string())?;
        let params = [args.iterations, 0x100];
        let launch = func::Launch {
            code: &kernel.code,
            entry_pc: kernel.entries[0].pc,
            grid: [args.blocks, 1, 1],
            block: [threads, 1, 1],
            params: &params,
            stack_bytes: kernel.stack_bytes,
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
            .map_err(|t| CliError::from(t).context(k.file))?;
            best = best.min(start.elapsed().as_secs_f64());
            stats = Some(s);
        }
        let s = stats.expect("repeat >= 1");
        outln!(
            "{:<10} {:>12} {:>14} {:>9.1} {:>16.1} {:>12.2} {:>8.1}%",
            k.name,
            s.issued,
            s.active_lane_slots,
            best * 1e3,
            s.active_lane_slots as f64 / best / 1e6,
            s.issued as f64 / best / 1e6,
            100.0 * s.simd_efficiency()
        )?;
    }
    Ok(())
}

/// An empty Verilator cache, removed when the directory drops, and the
/// build options that use it: the build is what is timed.
fn scratch_cache(
    name: &str,
) -> Result<
    (
        tempfile::TempDir,
        concord_testbench::verilator::BuildOptions,
    ),
    CliError,
> {
    let cache = tempfile::Builder::new()
        .prefix(&format!("concord-bench-{name}-"))
        .tempdir()
        .map_err(|e| format!("a scratch directory for the build: {e}"))?;
    let build = concord_testbench::verilator::BuildOptions {
        cache_dir: Some(cache.path().to_path_buf()),
        ..Default::default()
    };
    Ok((cache, build))
}

/// The cycle model and the RTL alone on the ALU kernel, per configuration.
fn run_core(args: &BenchArgs) -> Result<(), CliError> {
    let kernel = concord_isa::asm::assemble(KERNELS[0].source, KERNELS[0].file)
        .map_err(|e| e.to_string())?;
    run_core_on(args, &kernel)
}

/// The cycle model and the RTL alone
/// (`concord_testbench::verilator::v2_run`, with `--preset`'s generator options:
/// the trace port on as in co-simulation for `sim`) on `kernel`; the RTL's
/// counters must equal the model's.
fn run_core_on(args: &BenchArgs, kernel: &concord_isa::container::Kernel) -> Result<(), CliError> {
    use concord_testbench::pipeline::{self, Counter, PipelineLaunch, PipelineOptions};
    use concord_testbench::verilator::{v2_run, RtlV2};
    outln!(
        "cycle model and RTL alone (through the host port, {} preset{}), ALU kernel ({}), {} iterations, best of {}",
        args.preset.name(),
        if args.preset.options().trace {
            ", trace port on"
        } else {
            ", no trace port"
        },
        KERNELS[0].file,
        args.iterations,
        args.repeat
    )?;
    outln!(
        "{:<8} {:>10} {:>12} {:>14} {:>14} {:>16} {:>10} {:>6}",
        "core",
        "verilog s",
        "verilator s",
        "model M cyc/s",
        "RTL M cyc/s",
        "RTL M warp-i/s",
        "cycles",
        "IPC"
    )?;
    let gen = args.preset.options();
    let mut failed = Vec::new();
    for (lanes, warps) in [(8u32, 4u32), (32, 8)] {
        let config = CoreConfig {
            lanes,
            warps,
            ..CoreConfig::default()
        };
        let start = Instant::now();
        let verilog =
            concord_hdl::v2::core::core_verilog(&config, &gen).map_err(|e| e.to_string())?;
        let gen_s = start.elapsed().as_secs_f64();
        let (cache, build) = scratch_cache(&format!("{lanes}x{warps}"))?;
        let start = Instant::now();
        let built = RtlV2::build(&verilog, &config, &gen, &build);
        let build_s = start.elapsed().as_secs_f64();
        let mut rtl = built?;
        let params = [args.iterations, 0x100];
        let launch = PipelineLaunch {
            launch: func::Launch {
                code: &kernel.code,
                entry_pc: kernel.entries[0].pc,
                grid: [2, 1, 1],
                block: [lanes * warps, 1, 1],
                params: &params,
                stack_bytes: kernel.stack_bytes,
            },
            shared_bytes: kernel.shared_bytes,
            regs_used: kernel.regs_used,
        };
        let options = PipelineOptions {
            watchdog: u64::MAX,
            check_bus: false,
            gen,
        };
        let mut model_s = f64::INFINITY;
        let mut model = None;
        for _ in 0..args.repeat {
            let mut global = vec![0u8; config.global_memory_bytes as usize];
            let start = Instant::now();
            let o = pipeline::run(&config, &launch, &mut global, options)?;
            model_s = model_s.min(start.elapsed().as_secs_f64());
            model = Some(o.counters);
        }
        let model = model.expect("repeat >= 1");
        let cycles = model.get(Counter::Cycles);
        let mut rtl_s = f64::INFINITY;
        let mut rtl_result = Ok(());
        for _ in 0..args.repeat {
            let mut global = vec![0u8; config.global_memory_bytes as usize];
            let start = Instant::now();
            // A generous bound: the core's own watchdog traps first.
            match v2_run::run(&mut rtl, &config, &launch, &mut global, 4 * cycles + 10_000) {
                Ok(o) if o.counters == model => rtl_s = rtl_s.min(start.elapsed().as_secs_f64()),
                Ok(o) => {
                    rtl_result = Err(format!(
                        "counters differ from the cycle model's: model {:?}, RTL {:?}",
                        model.values, o.counters.values
                    ));
                    break;
                }
                Err(e) => {
                    rtl_result = Err(e);
                    break;
                }
            }
        }
        drop(cache);
        let label = format!("{lanes}x{warps}");
        let model_rate = format!("{:.2}", cycles as f64 / model_s / 1e6);
        match rtl_result {
            Ok(()) => outln!(
                "{:<8} {:>10.2} {:>12.1} {:>14} {:>14.2} {:>16.3} {:>10} {:>6.3}",
                label,
                gen_s,
                build_s,
                model_rate,
                cycles as f64 / rtl_s / 1e6,
                model.get(Counter::Issued) as f64 / rtl_s / 1e6,
                cycles,
                model.ipc()
            )?,
            Err(e) => {
                outln!(
                    "{:<8} {:>10.2} {:>12.1} {:>14} {:>14} {:>16} {:>10} {:>6.3}",
                    label,
                    gen_s,
                    build_s,
                    model_rate,
                    "-",
                    "-",
                    cycles,
                    model.ipc()
                )?;
                failed.push(format!("{label}: the RTL run failed: {e}"));
            }
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(CliError::mismatch(failed.join("\n")))
    }
}
