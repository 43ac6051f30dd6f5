//! `concord study cores`: the compiled suite's cycles on the Core v2
//! pipeline model next to the v1 core (docs/microarchitecture-v2.md §20,
//! "suite cycles v2 next to v1").
//!
//! Each suite launch is compiled once, with the default options for its
//! core, and run on both timed models: the v1 cycle model (one instruction
//! in flight in the whole core, cycle for cycle equal to the v1 RTL) and
//! the v2 pipeline model (`testbench/src/pipeline`). Both final memories
//! are checked against the kernel's host reference, so a wrong result is
//! an error and never a figure. The launch's own configuration is used for
//! both cores; the v2-only fields (`scheduler`, `arbiter`, …) keep their
//! defaults unless `--scheduler` is given.
//!
//! The speedup is v1 cycles over v2 cycles. IPC is `issued / cycles`,
//! replays included, as both cores count it.

use clap::Args;

use concord_compiler::driver::CompileOptions;
use concord_testbench::pipeline::V2Counter;

use super::measure::{self, geometric_mean};
use super::SchedulerArg;
use crate::error::CliError;
use crate::output::outln;

#[derive(Args)]
pub struct CoresStudyArgs {
    /// Suite kernels or launch-file stems (default: every kernel's main
    /// launch).
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    launches: Vec<String>,
    /// The v2 warp scheduler.
    #[arg(long, value_enum, default_value = "lrr")]
    scheduler: SchedulerArg,
    /// Comma-separated values instead of a Markdown table.
    #[arg(long)]
    csv: bool,
}

struct Row {
    name: String,
    config: String,
    v1_cycles: u64,
    v1_ipc: f64,
    v2_cycles: u64,
    v2_ipc: f64,
    v2_replays: u64,
}

pub fn run(args: &CoresStudyArgs) -> Result<(), CliError> {
    let launches = measure::select(&args.launches)?;
    let scheduler = args.scheduler.scheduler();
    let mut rows = Vec::new();
    for launch in &launches {
        let l = &launch.loaded;
        let options = CompileOptions::for_core(&l.config);
        let v1 = measure::measure(launch, &options, "v1")?;
        let compiled = measure::compile(launch, &options, "v2")?;
        let config = concord_isa::config::CoreConfig {
            scheduler,
            ..l.config.clone()
        };
        let counters = measure::run_v2(launch, &compiled, &config, "v2")?;
        let c = &counters;
        rows.push(Row {
            name: launch.name.clone(),
            config: format!("{}x{}", l.config.lanes, l.config.warps),
            v1_cycles: v1.counters.cycles,
            v1_ipc: v1.counters.issued as f64 / v1.counters.cycles.max(1) as f64,
            v2_cycles: c.get(V2Counter::Cycles),
            v2_ipc: c.ipc(),
            v2_replays: c.get(V2Counter::Replays),
        });
    }
    print(args, &rows)
}

fn speedup(r: &Row) -> f64 {
    r.v1_cycles as f64 / r.v2_cycles.max(1) as f64
}

/// One row as a CSV line or a Markdown table row (fewer digits).
fn row_line(r: &Row, csv: bool) -> String {
    let (ipc, sp) = (if csv { 4 } else { 3 }, speedup(r));
    let cells = [
        r.name.to_string(),
        r.config.to_string(),
        r.v1_cycles.to_string(),
        format!("{:.ipc$}", r.v1_ipc),
        r.v2_cycles.to_string(),
        format!("{:.ipc$}", r.v2_ipc),
        r.v2_replays.to_string(),
        if csv {
            format!("{sp:.4}")
        } else {
            format!("{sp:.2}x")
        },
    ];
    super::table_line(&cells, csv)
}

fn print(args: &CoresStudyArgs, rows: &[Row]) -> Result<(), CliError> {
    if args.csv {
        outln!("launch,core,v1_cycles,v1_ipc,v2_cycles,v2_ipc,v2_replays,speedup")?;
    } else {
        outln!(
            "| launch | core | v1 cycles | v1 IPC | v2 cycles | v2 IPC | v2 replays | speedup |"
        )?;
        outln!("|---|---|---:|---:|---:|---:|---:|---:|")?;
    }
    for r in rows {
        outln!("{}", row_line(r, args.csv))?;
    }
    if args.csv {
        return Ok(());
    }
    let speedups: Vec<f64> = rows.iter().map(speedup).collect();
    if let Some(mean) = geometric_mean(&speedups) {
        outln!("\ngeometric-mean speedup of v2 over v1: {mean:.2}x")?;
    }
    Ok(())
}
