//! `concord study flatten`: Bulavintsev's loop-flattening experiment on the
//! suite's two-level work queue (`kernels/suite/workqueue.cu`), on the
//! cycle model (`concord_testbench::pipeline`).
//!
//! One warp of `--lanes` threads runs the work queue with and without
//! `--flatten-loops`, for every k (lanes that leave the inner loop at once)
//! from 0 to lanes − 1 and every outer/inner work ratio; the table gives
//! the cycles of both and the speedup, and per ratio the crossover: the
//! smallest k from which flattening is faster. Every run is checked
//! against the kernel's host reference first, so a wrong result is never
//! reported as a figure.

use clap::Args;

use concord_compiler::driver::{self, CompileOptions};
use concord_isa::config::CoreConfig;
use concord_isa::func::{Trap, TrapCause};
use concord_isa::launch::LaunchDescription;
use concord_kernels::harness::func_launch;
use concord_testbench::pipeline::{self, Counter, PipelineLaunch, PipelineOptions};

use crate::error::CliError;
use crate::output::outln;

/// The cycles one run of the study may take; the flags' ranges keep the
/// default settings far below, but their largest values together can
/// reach it.
const WATCHDOG_CYCLES: u64 = 1_000_000_000;

/// The largest `--outer-iters`, `--inner-count` and ratio term: the work
/// queue's buffers then fit the core's global memory at 32 lanes.
const MAX_WORK: i64 = 1000;

#[derive(Args)]
pub struct FlattenStudyArgs {
    /// Lanes per warp (the block is one warp): 4, 8, 16 or 32.
    #[arg(long, default_value_t = 32, value_parser = parse_lanes)]
    lanes: u32,
    /// Outer-loop iterations per thread (1..=1000).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=MAX_WORK))]
    outer_iters: u32,
    /// Inner-loop elements per outer iteration, every lane the same (1..=1000).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=MAX_WORK))]
    inner_count: u32,
    /// Outer/inner work ratios as OUTER/INNER loop-body repetitions (each 1..=1000).
    #[arg(long, value_delimiter = ',', default_value = "10/1,1/1,1/10,1/100", value_parser = parse_ratio)]
    ratios: Vec<(u32, u32)>,
}

/// A lane count the cycle model builds (`concord_uarch::HwParams`: a power
/// of two in 4..=32).
fn parse_lanes(text: &str) -> Result<u32, String> {
    let buildable = |lanes: u32| {
        concord_uarch::HwParams::new(&CoreConfig {
            lanes,
            ..CoreConfig::default()
        })
        .is_ok()
    };
    match text.trim().parse::<u32>() {
        Ok(n) if buildable(n) => Ok(n),
        _ => Err(format!("`{text}` is not a power of two in 4..=32")),
    }
}

fn parse_ratio(r: &str) -> Result<(u32, u32), String> {
    let (a, b) = r
        .split_once('/')
        .ok_or_else(|| format!("`{r}` is not OUTER/INNER"))?;
    let n = |s: &str| match s.trim().parse::<u32>() {
        Ok(n) if (1..=MAX_WORK).contains(&i64::from(n)) => Ok(n),
        Ok(_) => Err(format!("`{s}` in `{r}` is not in 1..={MAX_WORK}")),
        Err(_) => Err(format!("`{s}` in `{r}` is not a number")),
    };
    Ok((n(a)?, n(b)?))
}

/// A trap of one of the study's runs, described by the flags (`run`): the
/// launch and its watchdog are the study's, not the user's, so the
/// watchdog's own advice (raise `watchdog` in the launch description)
/// does not apply.
fn trap_error(run: &str, trap: Trap) -> CliError {
    match trap.cause {
        TrapCause::Watchdog { .. } => CliError::usage(format!(
            "{run}: a run did not finish within the study's {WATCHDOG_CYCLES} cycles; choose a smaller --outer-iters, --inner-count or ratio"
        )),
        _ => CliError::trap(format!("{run}: the work queue trapped: {trap}")),
    }
}

pub fn run(args: &FlattenStudyArgs) -> Result<(), CliError> {
    let ratios = &args.ratios;
    // The launch is built here from the flags: its errors name the flags,
    // never the suite's files, which the user did not give.
    let setting = format!(
        "--lanes {} --outer-iters {} --inner-count {}",
        args.lanes, args.outer_iters, args.inner_count
    );
    let config = CoreConfig {
        lanes: args.lanes,
        warps: 1,
        ..CoreConfig::default()
    };
    let kernel = concord_kernels::find("workqueue")
        .ok_or_else(|| CliError::from("the suite has no workqueue kernel"))?;
    let source_path = concord_kernels::kernels_dir().join(kernel.source);
    let file = source_path.display().to_string();
    let source = std::fs::read_to_string(&source_path).map_err(|e| format!("{file}: {e}"))?;
    let compile = |flatten: bool| {
        let mut o = CompileOptions::for_core(&config);
        o.opt.flatten_loops = flatten;
        driver::compile(&source, &file, &o).map_err(|e| e.to_string())
    };
    let plain = compile(false)?;
    let flat = compile(true)?;
    if flat.opt_report.flatten.flattened.is_empty() {
        return Err(CliError::from(format!(
            "the work queue was not flattened: {}",
            flat.opt_report.flatten.notes.join("; ")
        )));
    }
    let plain = &plain.kernel(None)?.compiled.kernel;
    let flat = &flat.kernel(None)?.compiled.kernel;

    outln!(
        "loop flattening on the work queue: 1 warp of {} lanes, {} outer iterations x {} inner elements, cycle model",
        args.lanes, args.outer_iters, args.inner_count
    )?;
    outln!("| outer/inner | k | cycles nested | cycles flattened | speedup |")?;
    outln!("|---|---:|---:|---:|---:|")?;
    let mut crossovers = Vec::new();
    for &(outer, inner) in ratios {
        let mut crossover = None;
        let mut best = (0, 0.0f64);
        for k in 0..args.lanes {
            let yaml = format!(
                "program: {file}\ngrid: [1]\nblock: [{lanes}]\nargs:\n  - {{ name: items, buffer: i32, fill: {{ random: {{ seed: 1, min: {n}, max: {n} }} }}, len: {len} }}\n  - {{ name: out, buffer: u32, len: {lanes} }}\n  - {{ name: useful, buffer: i32, len: {lanes} }}\n  - {{ name: outer_iters, value: {iters} }}\n  - {{ name: group, value: {lanes} }}\n  - {{ name: k, value: {k} }}\n  - {{ name: outer_work, value: {outer} }}\n  - {{ name: inner_work, value: {inner} }}\n  - {{ name: seed, value: 0x9e3779b9, type: u32 }}\nwatchdog: {WATCHDOG_CYCLES}\n",
                lanes = args.lanes,
                n = args.inner_count,
                len = args.lanes * args.outer_iters,
                iters = args.outer_iters,
            );
            let run = format!("{setting}, ratio {outer}/{inner}, k = {k}");
            // Internal: the flags' ranges make the launch valid.
            let internal = |e: String| {
                CliError::from(format!("{run}: the study's launch is invalid (a bug): {e}"))
            };
            let desc = LaunchDescription::from_yaml(&yaml, &source_path.with_extension("yaml"))
                .map_err(|e| internal(e.to_string()))?;
            let mut cycles = [0u64; 2];
            for (i, code) in [plain, flat].into_iter().enumerate() {
                let prepared = desc
                    .prepare(code, &config)
                    .map_err(|e| internal(e.to_string()))?;
                let mut memory = prepared.global.clone();
                let outcome = pipeline::run(
                    &config,
                    &PipelineLaunch {
                        launch: func_launch(code, &prepared),
                        shared_bytes: code.shared_bytes,
                        regs_used: code.regs_used,
                    },
                    &mut memory,
                    PipelineOptions {
                        watchdog: prepared.watchdog,
                        check_bus: true,
                        gen: concord_uarch::GenOptions::sim(),
                    },
                )
                .map_err(|e| CliError::from(format!("{run}: {e}")))?;
                if let Err(t) = outcome.result {
                    return Err(trap_error(&run, t));
                }
                kernel
                    .check_memory(&prepared, &memory)
                    .map_err(|e| CliError::mismatch(format!("{run}: wrong result: {e}")))?;
                let counters = outcome.counters.get(Counter::Cycles);
                cycles[i] = counters;
            }
            let speedup = cycles[0] as f64 / cycles[1] as f64;
            if speedup > 1.0 && crossover.is_none() {
                crossover = Some(k);
            }
            if speedup > best.1 {
                best = (k, speedup);
            }
            outln!(
                "| {outer}/{inner} | {k} | {} | {} | {speedup:.2} |",
                cycles[0],
                cycles[1]
            )?;
        }
        crossovers.push((outer, inner, crossover, best));
    }
    outln!()?;
    for (outer, inner, crossover, (k, s)) in crossovers {
        match crossover {
            Some(c) => {
                outln!("{outer}/{inner}: flattening wins from k = {c}; best {s:.2}x at k = {k}")?
            }
            None => outln!("{outer}/{inner}: flattening never wins; best {s:.2}x at k = {k}")?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watchdog_names_the_flags_not_the_launch() {
        let trap = Trap {
            cause: TrapCause::Watchdog {
                limit: WATCHDOG_CYCLES,
                diagnosis: "raise `watchdog` in the launch description".into(),
            },
            block: [0; 3],
            warp: 0,
            lanes: 1,
            pc: 12,
            issued: 5,
        };
        let e = trap_error(
            "--lanes 4 --outer-iters 1000 --inner-count 1000, ratio 1/1000, k = 0",
            trap,
        );
        assert_eq!(e.class, crate::error::ErrorClass::Usage);
        assert_eq!(
            e.message,
            "--lanes 4 --outer-iters 1000 --inner-count 1000, ratio 1/1000, k = 0: a run did not finish within the study's 1000000000 cycles; choose a smaller --outer-iters, --inner-count or ratio"
        );
    }

    #[test]
    fn ratios_are_two_terms_in_range() {
        assert_eq!(parse_ratio("10/1"), Ok((10, 1)));
        assert_eq!(parse_ratio(" 1 / 1000 "), Ok((1, 1000)));
        assert!(parse_ratio("1/0").unwrap_err().contains("not in 1..=1000"));
        assert!(parse_ratio("1/1001").is_err());
        assert!(parse_ratio("3").unwrap_err().contains("not OUTER/INNER"));
        assert!(parse_lanes("16").is_ok() && parse_lanes("12").is_err());
    }
}
