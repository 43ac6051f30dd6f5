//! `concord study cores`: the compiled suite's cycles on the core
//! (`concord_testbench::pipeline`, the cycle model the RTL equals cycle
//! for cycle) next to the cycles the first core (v1, one instruction in
//! flight in the whole core) took before it was removed.
//!
//! The v1 figures are recorded, not measured: `docs/data/v1-suite-cycles.csv`
//! holds them, with their provenance (commit, date, command) in its
//! comment lines, and `docs/v1-figures.md` the whole table as printed
//! then. Each suite launch is compiled with the default options for its
//! core and run on the cycle model; its final memory is checked against
//! the kernel's host reference, so a wrong result is an error and never a
//! figure. The launch's own configuration is used; the fields v1 did not
//! have (`scheduler`, `arbiter`, …) keep their defaults unless
//! `--scheduler` is given. A launch must have a recorded v1 row on the same
//! lanes × warps.
//!
//! The speedup is v1 cycles over the core's cycles. IPC is `issued /
//! cycles`, replays included, as both cores count it. The v1 code was
//! compiled by the compiler of the recording's commit; a later compiler
//! change moves the core's column only.

use clap::Args;

use concord_compiler::driver::CompileOptions;
use concord_testbench::pipeline::Counter;

use super::measure::{self, geometric_mean};
use super::SchedulerArg;
use crate::error::CliError;
use crate::output::outln;

/// The recorded v1 figures (see the module's documentation).
const V1_FIGURES: &str = include_str!("../../../docs/data/v1-suite-cycles.csv");

#[derive(Args)]
pub struct CoresStudyArgs {
    /// Suite kernels or launch-file stems (default: every kernel's main
    /// launch).
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    launches: Vec<String>,
    /// The warp scheduler.
    #[arg(long, value_enum, default_value = "lrr")]
    scheduler: SchedulerArg,
    /// Comma-separated values instead of a Markdown table.
    #[arg(long)]
    csv: bool,
}

/// One recorded v1 row.
#[derive(Debug, PartialEq)]
struct V1Row {
    launch: String,
    core: String,
    cycles: u64,
    ipc: f64,
}

/// The rows of the recorded figures: `launch,core,v1_cycles,v1_ipc` after
/// a header line, `#` lines are comments.
fn v1_rows(text: &str) -> Result<Vec<V1Row>, String> {
    let mut rows = Vec::new();
    let mut header = true;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if header {
            header = false;
            if line != "launch,core,v1_cycles,v1_ipc" {
                return Err(format!("line {}: unexpected header `{line}`", i + 1));
            }
            continue;
        }
        let bad = || format!("line {}: `{line}` is not launch,core,cycles,ipc", i + 1);
        let cells: Vec<&str> = line.split(',').collect();
        let [launch, core, cycles, ipc] = cells[..] else {
            return Err(bad());
        };
        rows.push(V1Row {
            launch: launch.to_string(),
            core: core.to_string(),
            cycles: cycles.parse().map_err(|_| bad())?,
            ipc: ipc.parse().map_err(|_| bad())?,
        });
    }
    Ok(rows)
}

struct Row {
    name: String,
    config: String,
    v1_cycles: u64,
    v1_ipc: f64,
    cycles: u64,
    ipc: f64,
    replays: u64,
}

pub fn run(args: &CoresStudyArgs) -> Result<(), CliError> {
    let recorded = v1_rows(V1_FIGURES)
        .map_err(|e| format!("docs/data/v1-suite-cycles.csv (built in): {e}"))?;
    let launches = measure::select(&args.launches)?;
    let scheduler = args.scheduler.scheduler();
    let mut rows = Vec::new();
    for launch in &launches {
        let l = &launch.loaded;
        let shape = format!("{}x{}", l.config.lanes, l.config.warps);
        let v1 = recorded
            .iter()
            .find(|r| r.launch == launch.name && r.core == shape)
            .ok_or_else(|| {
                CliError::usage(format!(
                    "--launches: `{}` ({shape}) has no recorded v1 figure (docs/data/v1-suite-cycles.csv has every kernel's main launch)",
                    launch.name
                ))
            })?;
        let options = CompileOptions::for_core(&l.config);
        let compiled = measure::compile(launch, &options, "core")?;
        let config = concord_isa::config::CoreConfig {
            scheduler,
            ..l.config.clone()
        };
        let c = measure::run_v2(launch, &compiled, &config, "core")?;
        rows.push(Row {
            name: launch.name.clone(),
            config: shape,
            v1_cycles: v1.cycles,
            v1_ipc: v1.ipc,
            cycles: c.get(Counter::Cycles),
            ipc: c.ipc(),
            replays: c.get(Counter::Replays),
        });
    }
    print(args, &rows)
}

fn speedup(r: &Row) -> f64 {
    r.v1_cycles as f64 / r.cycles.max(1) as f64
}

/// One row as a CSV line or a Markdown table row (fewer digits).
fn row_line(r: &Row, csv: bool) -> String {
    let (ipc, sp) = (if csv { 4 } else { 3 }, speedup(r));
    let cells = [
        r.name.to_string(),
        r.config.to_string(),
        r.v1_cycles.to_string(),
        format!("{:.ipc$}", r.v1_ipc),
        r.cycles.to_string(),
        format!("{:.ipc$}", r.ipc),
        r.replays.to_string(),
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
        outln!("launch,core,v1_cycles,v1_ipc,cycles,ipc,replays,speedup")?;
    } else {
        outln!(
            "| launch | core | v1 cycles (recorded) | v1 IPC | cycles | IPC | replays | speedup |"
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
        outln!("\ngeometric-mean speedup over v1: {mean:.2}x (v1 figures recorded, docs/v1-figures.md)")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recorded_figures_parse_and_cover_every_main_launch() {
        let rows = v1_rows(V1_FIGURES).unwrap();
        for k in concord_kernels::suite() {
            let main = k.launches[0]
                .trim_start_matches("suite/")
                .trim_end_matches(".yaml");
            assert!(
                rows.iter().any(|r| r.launch == main && r.cycles > 0),
                "no v1 row for {main}"
            );
        }
    }

    #[test]
    fn malformed_rows_are_refused_with_their_line() {
        let text = "# provenance\nlaunch,core,v1_cycles,v1_ipc\nreduce,8x8,100,0.5\n";
        assert_eq!(
            v1_rows(text).unwrap(),
            [V1Row {
                launch: "reduce".into(),
                core: "8x8".into(),
                cycles: 100,
                ipc: 0.5
            }]
        );
        let e = v1_rows("launch,core,v1_cycles,v1_ipc\nreduce,8x8,many,0.5\n").unwrap_err();
        assert!(e.starts_with("line 2:"), "{e}");
        assert!(v1_rows("a,b\n").unwrap_err().contains("unexpected header"));
    }
}
