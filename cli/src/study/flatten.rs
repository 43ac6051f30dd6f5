//! `concord study flatten`: Bulavintsev's loop-flattening experiment on the
//! suite's two-level work queue (`kernels/suite/workqueue.cu`), on the
//! cycle-accurate model.
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
use concord_isa::launch::LaunchDescription;
use concord_kernels::harness::func_launch;

#[derive(Args)]
pub struct FlattenStudyArgs {
    /// Lanes per warp (the block is one warp).
    #[arg(long, default_value_t = 32)]
    lanes: u32,
    /// Outer-loop iterations per thread.
    #[arg(long, default_value_t = 4)]
    outer_iters: u32,
    /// Inner-loop elements per outer iteration (every lane the same).
    #[arg(long, default_value_t = 10)]
    inner_count: u32,
    /// Outer/inner work ratios as OUTER/INNER loop-body repetitions.
    #[arg(long, value_delimiter = ',', default_value = "10/1,1/1,1/10,1/100")]
    ratios: Vec<String>,
}

fn parse_ratio(r: &str) -> Result<(u32, u32), String> {
    let (a, b) = r
        .split_once('/')
        .ok_or_else(|| format!("--ratios: `{r}` is not OUTER/INNER"))?;
    let n = |s: &str| {
        s.trim()
            .parse::<u32>()
            .map_err(|_| format!("--ratios: `{s}` in `{r}` is not a number"))
    };
    Ok((n(a)?, n(b)?))
}

pub fn run(args: &FlattenStudyArgs) -> Result<(), String> {
    if !(4..=32).contains(&args.lanes) || !args.lanes.is_power_of_two() {
        return Err("--lanes must be a power of two in 4..=32".into());
    }
    let ratios = args
        .ratios
        .iter()
        .map(|r| parse_ratio(r))
        .collect::<Result<Vec<_>, _>>()?;
    let config = CoreConfig {
        lanes: args.lanes,
        warps: 1,
        ..CoreConfig::default()
    };
    let kernel = concord_kernels::find("workqueue").ok_or("the suite has no workqueue kernel")?;
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
        return Err(format!(
            "the work queue was not flattened: {}",
            flat.opt_report.flatten.notes.join("; ")
        ));
    }
    let plain = &plain.kernel(None)?.compiled.kernel;
    let flat = &flat.kernel(None)?.compiled.kernel;

    println!(
        "loop flattening on the work queue: 1 warp of {} lanes, {} outer iterations x {} inner elements, cycle model",
        args.lanes, args.outer_iters, args.inner_count
    );
    println!("| outer/inner | k | cycles nested | cycles flattened | speedup |");
    println!("|---|---:|---:|---:|---:|");
    let mut crossovers = Vec::new();
    for &(outer, inner) in &ratios {
        let mut crossover = None;
        let mut best = (0, 0.0f64);
        for k in 0..args.lanes {
            let yaml = format!(
                "program: {file}\ngrid: [1]\nblock: [{lanes}]\nargs:\n  - {{ name: items, buffer: i32, fill: {{ random: {{ seed: 1, min: {n}, max: {n} }} }}, len: {len} }}\n  - {{ name: out, buffer: u32, len: {lanes} }}\n  - {{ name: useful, buffer: i32, len: {lanes} }}\n  - {{ name: outer_iters, value: {iters} }}\n  - {{ name: group, value: {lanes} }}\n  - {{ name: k, value: {k} }}\n  - {{ name: outer_work, value: {outer} }}\n  - {{ name: inner_work, value: {inner} }}\n  - {{ name: seed, value: 0x9e3779b9, type: u32 }}\nwatchdog: 1000000000\n",
                lanes = args.lanes,
                n = args.inner_count,
                len = args.lanes * args.outer_iters,
                iters = args.outer_iters,
            );
            let desc = LaunchDescription::from_yaml(&yaml, &source_path.with_extension("yaml"))
                .map_err(|e| e.to_string())?;
            let mut cycles = [0u64; 2];
            for (i, code) in [plain, flat].into_iter().enumerate() {
                let prepared = desc.prepare(code, &config).map_err(|e| e.to_string())?;
                let mut memory = prepared.global.clone();
                let counters = concord_testbench::cycle::run(
                    &config,
                    &func_launch(code, &prepared),
                    &mut memory,
                    prepared.watchdog,
                    None,
                )
                .map_err(|t| format!("k = {k}: {t}"))?;
                kernel
                    .check_memory(&prepared, &memory)
                    .map_err(|e| format!("k = {k}: wrong result: {e}"))?;
                cycles[i] = counters.cycles;
            }
            let speedup = cycles[0] as f64 / cycles[1] as f64;
            if speedup > 1.0 && crossover.is_none() {
                crossover = Some(k);
            }
            if speedup > best.1 {
                best = (k, speedup);
            }
            println!(
                "| {outer}/{inner} | {k} | {} | {} | {speedup:.2} |",
                cycles[0], cycles[1]
            );
        }
        crossovers.push((outer, inner, crossover, best));
    }
    println!();
    for (outer, inner, crossover, (k, s)) in crossovers {
        match crossover {
            Some(c) => {
                println!("{outer}/{inner}: flattening wins from k = {c}; best {s:.2}x at k = {k}")
            }
            None => println!("{outer}/{inner}: flattening never wins; best {s:.2}x at k = {k}"),
        }
    }
    Ok(())
}
