//! `concord study spill`: Sampaio's divergence-aware spilling (ch. 4)
//! against plain spilling on the kernel suite, on the cycle-accurate model.
//!
//! Every chosen launch (by default the main launch `<kernel>.yaml` of every
//! suite kernel, on the core it names) is compiled at every `--regs` budget
//! with `--spill plain` and with `--spill divergence-aware`, run, and
//! checked against the host reference. The table gives the evicted values
//! by rule, the cycles of both and the speedup; the summary gives the
//! geometric-mean speedup per budget over the rows where the budget forced
//! spills, and names the rows left out because nothing spilled.

use clap::Args;

use concord_compiler::backend::{BackendStats, SpillMode};
use concord_compiler::driver::CompileOptions;
use concord_isa::instr::MAX_REGS;

use crate::error::CliError;
use crate::output::outln;

use super::measure::{geometric_mean, measure, select};

/// The geometric-mean speedup Sampaio et al. report for divergence-aware
/// spilling, in percent.
const SAMPAIO_SPEEDUP_PERCENT: f64 = 29.7;

#[derive(Args)]
pub struct SpillStudyArgs {
    /// General-register budgets to compile at (4..=32).
    #[arg(
        long,
        value_name = "N,...",
        value_delimiter = ',',
        default_value = "8,12",
        value_parser = clap::value_parser!(u32).range(4..=MAX_REGS as i64)
    )]
    regs: Vec<u32>,
    /// Suite kernels (each stands for its main launch `<kernel>.yaml`) or
    /// suite launch names such as `reduce-wide`; every kernel's main launch
    /// by default.
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    launches: Vec<String>,
}

/// Whether the budget forced anything out of registers beyond constants
/// (which both modes rematerialise alike): a per-lane slot under plain
/// spilling, or any memory slot or affine rebuild under divergence-aware.
fn forced_spills(plain: &BackendStats, aware: &BackendStats) -> bool {
    plain.per_lane > 0
        || aware.per_lane
            + aware.per_warp_uniform
            + aware.affine_uniform_part
            + aware.remat_affine_constant
            > 0
}

/// One budget's speedups over the rows that spilled, and the rows that
/// did not.
#[derive(Default)]
struct BudgetSummary {
    speedups: Vec<f64>,
    excluded: Vec<String>,
}

pub fn run(args: &SpillStudyArgs) -> Result<(), CliError> {
    if args.regs.is_empty() {
        return Err(CliError::usage("--regs needs at least one budget"));
    }
    let launches = select(&args.launches)?;
    outln!(
        "divergence-aware spilling (Sampaio ch. 4) against plain spilling, cycle model, results host-checked"
    )?;
    outln!(
        "evicted values of the divergence-aware build: per lane (stack slots), per warp (uniform values and affine uniform parts in shared slots), remat (constants and c1*tid+c0 rebuilt)"
    )?;
    outln!(
        "| kernel | regs | plain per lane | per lane | per warp | remat | cycles plain | cycles div-aware | speedup |"
    )?;
    outln!("|---|---:|---:|---:|---:|---:|---:|---:|---:|")?;
    let mut summaries: Vec<BudgetSummary> = args.regs.iter().map(|_| Default::default()).collect();
    for launch in &launches {
        for (&regs, summary) in args.regs.iter().zip(&mut summaries) {
            let options = |spill: SpillMode| {
                let mut o = CompileOptions::for_core(&launch.loaded.config);
                o.regs = Some(regs);
                o.spill = spill;
                o
            };
            let plain = measure(
                launch,
                &options(SpillMode::Plain),
                &format!("--regs {regs} --spill plain"),
            )?;
            let aware = measure(
                launch,
                &options(SpillMode::DivergenceAware),
                &format!("--regs {regs} --spill divergence-aware"),
            )?;
            let (p, a) = (&plain.stats, &aware.stats);
            let speedup = plain.cycles() as f64 / aware.cycles().max(1) as f64;
            if forced_spills(p, a) {
                summary.speedups.push(speedup);
            } else {
                summary.excluded.push(launch.name.clone());
            }
            outln!(
                "| {} | {regs} | {} | {} | {} | {} | {} | {} | {speedup:.3} |",
                launch.name,
                p.per_lane,
                a.per_lane,
                a.per_warp_uniform + a.affine_uniform_part,
                a.remat_constant + a.remat_affine_constant,
                plain.cycles(),
                aware.cycles(),
            )?;
        }
    }
    outln!()?;
    outln!("geometric-mean speedup of divergence-aware over plain spilling, over the rows where the budget forced spills:")?;
    let mut all = Vec::new();
    for (regs, summary) in args.regs.iter().zip(&summaries) {
        match geometric_mean(&summary.speedups) {
            Some(g) => outln!(
                "  {regs} registers: {g:.3}x ({:+.1}%) over {} of {} launches",
                100.0 * (g - 1.0),
                summary.speedups.len(),
                launches.len()
            )?,
            None => outln!("  {regs} registers: no launch spilled")?,
        }
        if !summary.excluded.is_empty() {
            outln!(
                "    excluded, nothing spilled: {}",
                summary.excluded.join(", ")
            )?;
        }
        all.extend_from_slice(&summary.speedups);
    }
    let overall = geometric_mean(&all);
    if args.regs.len() > 1 {
        if let Some(g) = overall {
            outln!(
                "  all budgets: {g:.3}x ({:+.1}%) over {} rows",
                100.0 * (g - 1.0),
                all.len()
            )?;
        }
    }
    match overall {
        Some(g) => outln!(
            "Sampaio et al. report a {SAMPAIO_SPEEDUP_PERCENT}% geometric-mean speedup; ours: {:+.1}%",
            100.0 * (g - 1.0)
        )?,
        None => outln!(
            "Sampaio et al. report a {SAMPAIO_SPEEDUP_PERCENT}% geometric-mean speedup; ours: none measured (nothing spilled)"
        )?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_constant_rematerialisation_is_not_a_forced_spill() {
        let constants_only = BackendStats {
            remat_constant: 3,
            rematerialized: 3,
            ..BackendStats::default()
        };
        assert!(!forced_spills(&constants_only, &constants_only));
        let per_lane = BackendStats {
            per_lane: 1,
            spills: 1,
            ..BackendStats::default()
        };
        let per_warp = BackendStats {
            per_warp_uniform: 1,
            ..BackendStats::default()
        };
        assert!(forced_spills(&per_lane, &per_warp));
        assert!(forced_spills(&constants_only, &per_warp));
    }
}
