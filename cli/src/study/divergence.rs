//! `concord study divergence`: the divergent-branch strategies (Lee et
//! al. 2014: per-lane branches against thread-aware predication, and the
//! compiler's per-region choice) on the kernel suite, on the
//! cycle-accurate model.
//!
//! Every chosen launch (by default the main launch `<kernel>.yaml` of every
//! suite kernel, on the core it names) is compiled under `--divergence
//! branch`, `predicate` and `auto`, run, and checked against the host
//! reference. The table gives cycles and SIMD efficiency per strategy and
//! how far `auto` is from the better of the other two; the summary names
//! the launches where `auto` loses by more than [`AUTO_TOLERANCE`]. Losing
//! is a finding, not a failure: the exit status is 0 unless a run fails.

use clap::Args;

use concord_compiler::backend::DivergenceStrategy;
use concord_compiler::driver::CompileOptions;
use concord_isa::instr::MAX_REGS;

use crate::error::CliError;
use crate::output::outln;

use super::measure::{measure, select, Measurement};

/// How much slower than the better fixed strategy `auto` may be before the
/// summary lists the launch (3%).
const AUTO_TOLERANCE: f64 = 1.03;

#[derive(Args)]
pub struct DivergenceStudyArgs {
    /// General-register budget (4..=32); each launch's core's by default.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(4..=MAX_REGS as i64))]
    regs: Option<u32>,
    /// Suite kernels (each stands for its main launch `<kernel>.yaml`) or
    /// suite launch names such as `reduce-wide`; every kernel's main launch
    /// by default.
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    launches: Vec<String>,
}

pub fn run(args: &DivergenceStudyArgs) -> Result<(), CliError> {
    let launches = select(&args.launches)?;
    let budget = match args.regs {
        Some(r) => format!("{r} registers"),
        None => "the core's registers".to_string(),
    };
    outln!(
        "divergent branches kept (branch), if-converted (predicate) or chosen per region (auto); {budget}, cycle model, results host-checked"
    )?;
    outln!(
        "| kernel | cycles branch | cycles predicate | cycles auto | SIMD eff. branch | SIMD eff. predicate | SIMD eff. auto | if-converted predicate/auto | auto/best |"
    )?;
    outln!("|---|---:|---:|---:|---:|---:|---:|---:|---:|")?;
    let mut worse = Vec::new();
    for launch in &launches {
        let [branch, predicate, auto] = [
            DivergenceStrategy::Branch,
            DivergenceStrategy::Predicate,
            DivergenceStrategy::Auto,
        ]
        .map(|strategy| {
            let mut o = CompileOptions::for_core(&launch.loaded.config);
            o.regs = args.regs;
            o.divergence = strategy;
            measure(launch, &o, &format!("--divergence {strategy}"))
        });
        let (branch, predicate, auto) = (branch?, predicate?, auto?);
        let best = branch.cycles().min(predicate.cycles()).max(1);
        let ratio = auto.cycles() as f64 / best as f64;
        if ratio > AUTO_TOLERANCE {
            worse.push(format!("{} ({ratio:.3})", launch.name));
        }
        let eff = |m: &Measurement| format!("{:.1}%", 100.0 * m.simd_efficiency());
        outln!(
            "| {} | {} | {} | {} | {} | {} | {} | {}/{} | {ratio:.3} |",
            launch.name,
            branch.cycles(),
            predicate.cycles(),
            auto.cycles(),
            eff(&branch),
            eff(&predicate),
            eff(&auto),
            predicate.stats.branches.predicated,
            auto.stats.branches.predicated,
        )?;
    }
    outln!()?;
    outln!("{}", auto_verdict(&worse, launches.len()))?;
    Ok(())
}

/// The summary line: the launches (with their auto/best ratio) where
/// `auto` is more than [`AUTO_TOLERANCE`] slower than the better fixed
/// strategy, out of `total`.
fn auto_verdict(worse: &[String], total: usize) -> String {
    let tolerance_percent = 100.0 * (AUTO_TOLERANCE - 1.0);
    if worse.is_empty() {
        format!(
            "auto is within {tolerance_percent:.0}% of the better of branch and predicate on all {total} launches"
        )
    } else {
        format!(
            "auto is more than {tolerance_percent:.0}% slower than the better of branch and predicate on {} of {total} launches: {}",
            worse.len(),
            worse.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_counts_and_names_the_launches_auto_loses() {
        assert_eq!(
            auto_verdict(&[], 18),
            "auto is within 3% of the better of branch and predicate on all 18 launches"
        );
        let worse = ["bfs (1.052)".to_string(), "nw (1.200)".to_string()];
        assert_eq!(
            auto_verdict(&worse, 18),
            "auto is more than 3% slower than the better of branch and predicate on 2 of 18 launches: bfs (1.052), nw (1.200)"
        );
    }
}
