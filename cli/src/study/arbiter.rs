//! `concord study arbiter`: Collange's "one tree serves both" claim as a
//! measured trade-off (docs/microarchitecture.md §9.2).
//!
//! Core v2 arbitrates branches and memory accesses with one min-key tree
//! (`arbiter: unified`), or with one tree per mode (`arbiter: split`). Both
//! give the same architectural results; they differ in
//!
//! * **cycles**: under `unified`, warps released from a barrier wait for
//!   the background re-arbitration while load/store passes hold the tree
//!   (`rearb_wait_cycles`, §15.1), and so start later;
//! * **area**: `split` adds a second tree of branch-mode keys.
//!
//! Each suite launch is compiled once and run on the Core v2 pipeline model
//! under both settings, its result checked against the host reference both
//! times. `--area` also synthesises the Core v2 RTL (`board` preset) of the
//! default configuration both ways for ECP5 with Yosys and reports the
//! difference; the area is the RTL's, the cycles the model's, which the RTL
//! equals cycle for cycle.

use clap::Args;

use concord_compiler::driver::CompileOptions;
use concord_isa::config::{ArbiterMode, CoreConfig};
use concord_testbench::pipeline::Counter;

use super::{measure, SchedulerArg};
use crate::error::CliError;
use crate::output::outln;

#[derive(Args)]
pub struct ArbiterStudyArgs {
    /// Suite kernels or launch-file stems (default: every kernel's main
    /// launch).
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    launches: Vec<String>,
    /// Warps of the core (1..=16) instead of the launch's: with more warps
    /// than a block needs, several blocks are resident, and one block's
    /// barrier releases meet another's memory traffic in the tree.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=16))]
    warps: Option<u32>,
    /// The warp scheduler of both runs.
    #[arg(long, value_enum, default_value = "lrr")]
    scheduler: SchedulerArg,
    /// Also synthesise the default Core v2 with each arbiter setting for
    /// ECP5 (Yosys, minutes) and report the area difference.
    #[arg(long)]
    area: bool,
    /// Comma-separated values instead of a Markdown table.
    #[arg(long)]
    csv: bool,
}

/// One launch under both settings.
struct Row {
    name: String,
    config: String,
    unified: Run,
    split: Run,
}

struct Run {
    cycles: u64,
    rearbs: u64,
    rearb_wait: u64,
}

pub fn run(args: &ArbiterStudyArgs) -> Result<(), CliError> {
    let launches = measure::select(&args.launches)?;
    let scheduler = args.scheduler.scheduler();
    let mut rows = Vec::new();
    for launch in &launches {
        let l = &launch.loaded;
        let compiled = measure::compile(launch, &CompileOptions::for_core(&l.config), "v2")?;
        let measure_with = |arbiter: ArbiterMode| -> Result<Run, CliError> {
            let config = CoreConfig {
                scheduler,
                arbiter,
                warps: args.warps.unwrap_or(l.config.warps),
                ..l.config.clone()
            };
            let c = measure::run_v2(launch, &compiled, &config, arbiter.name())?;
            Ok(Run {
                cycles: c.get(Counter::Cycles),
                rearbs: c.get(Counter::Rearbs),
                rearb_wait: c.get(Counter::RearbWaitCycles),
            })
        };
        rows.push(Row {
            name: launch.name.clone(),
            config: format!(
                "{}x{}",
                l.config.lanes,
                args.warps.unwrap_or(l.config.warps)
            ),
            unified: measure_with(ArbiterMode::Unified)?,
            split: measure_with(ArbiterMode::Split)?,
        });
    }
    print_cycles(args, &rows)?;
    if args.area {
        print_area(args.csv)?;
    }
    Ok(())
}

/// Unified cycles over split cycles: how much the shared tree slows a
/// launch down (1.0: not at all).
fn slowdown(r: &Row) -> f64 {
    r.unified.cycles as f64 / r.split.cycles.max(1) as f64
}

fn print_cycles(args: &ArbiterStudyArgs, rows: &[Row]) -> Result<(), CliError> {
    if args.csv {
        outln!("launch,core,unified_cycles,split_cycles,unified_over_split,rearbs,unified_rearb_wait,split_rearb_wait")?;
    } else {
        outln!("| launch | core | unified cycles | split cycles | unified / split | re-arbitrations | unified rearb wait | split rearb wait |")?;
        outln!("|---|---|---:|---:|---:|---:|---:|---:|")?;
    }
    for r in rows {
        let ratio = slowdown(r);
        let cells = [
            r.name.clone(),
            r.config.clone(),
            r.unified.cycles.to_string(),
            r.split.cycles.to_string(),
            if args.csv {
                format!("{ratio:.6}")
            } else {
                format!("{ratio:.4}")
            },
            r.unified.rearbs.to_string(),
            r.unified.rearb_wait.to_string(),
            r.split.rearb_wait.to_string(),
        ];
        outln!("{}", super::table_line(&cells, args.csv))?;
    }
    if !args.csv {
        let ratios: Vec<f64> = rows.iter().map(slowdown).collect();
        if let Some(mean) = measure::geometric_mean(&ratios) {
            outln!("\ngeometric mean of unified / split cycles: {mean:.4}")?;
        }
    }
    Ok(())
}

/// The default Core v2 (`board` preset) synthesised flat for ECP5 with each
/// arbiter setting.
fn print_area(csv: bool) -> Result<(), CliError> {
    let mut stats = Vec::new();
    for arbiter in [ArbiterMode::Unified, ArbiterMode::Split] {
        let config = CoreConfig {
            arbiter,
            ..CoreConfig::default()
        };
        let verilog =
            concord_hdl::v2::core::core_verilog(&config, &concord_uarch::GenOptions::board())
                .map_err(|e| e.to_string())?;
        let t = std::time::Instant::now();
        let s = concord_fpga::synthesize(
            &verilog,
            concord_hdl::TOP_MODULE,
            concord_fpga::Target::Ecp5,
        )?;
        crate::note(&format!(
            "study arbiter: ECP5 synthesis with `arbiter: {}`: {:.0} s",
            arbiter.name(),
            t.elapsed().as_secs_f64()
        ));
        stats.push((arbiter, s));
    }
    if csv {
        outln!("\narbiter,lut4,ccu2c,ff")?;
    } else {
        outln!("\nDefault Core v2 (`board` preset), flat `synth_ecp5`:\n")?;
        outln!("| arbiter | LUT4 | CCU2C | FF |")?;
        outln!("|---|---:|---:|---:|")?;
    }
    for (arbiter, s) in &stats {
        let cells = [
            arbiter.name().to_string(),
            s.luts.to_string(),
            s.carries.to_string(),
            s.ffs.to_string(),
        ];
        outln!("{}", super::table_line(&cells, csv))?;
    }
    if !csv {
        let (u, s) = (&stats[0].1, &stats[1].1);
        outln!(
            "\n`split` costs {} LUT4 and {} CCU2C more than `unified`.",
            s.luts as i64 - u.luts as i64,
            s.carries as i64 - u.carries as i64
        )?;
    }
    Ok(())
}
