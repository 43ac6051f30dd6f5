//! The compiled kernel suite on the timed models: every launch of every
//! suite kernel (`concord-kernels`), compiled by the Concord compiler, runs
//! on the cycle model (`concord_testbench::pipeline`) and must pass the
//! kernel's host check; the launches on the small core (`*-small.yaml`, 4
//! lanes x 1 warp) also run on the RTL in lock-step with the cycle model
//! (`concord_testbench::lockstep`: both ports, the pins and the trace
//! record compared every cycle), and must pass the host check there too. Every launch
//! runs under each control-flow strategy (`--divergence branch|predicate|
//! auto`), so predicated code with its consensual branches is checked on
//! the RTL too. The small-core launches also run on the RTL under the whole
//! option matrix (`--divergence` × `--spill` × `--flatten-loops` ×
//! register budgets that force spills, 48 points).

use concord_compiler::backend::DivergenceStrategy;
use concord_compiler::driver::{self, CompileOptions, OptionPoint};
use concord_isa::config::CoreConfig;
use concord_kernels::harness::{func_launch, LoadedLaunch};
use concord_kernels::{suite, SuiteKernel};
use concord_testbench::lockstep;
use concord_testbench::pipeline::{self, Counter, PipelineLaunch, PipelineOptions};
use concord_testbench::verilator::{BuildOptions, RtlV2};
use concord_uarch::GenOptions;

/// Issued warp-instructions after which a run counts as hung (the longest
/// suite launch takes a few million cycles, fewer warp-instructions).
const WATCHDOG: u64 = 50_000_000;

/// The compile options of a run: a strategy with the defaults, or a point
/// of the whole matrix.
#[derive(Clone, Copy)]
enum Options {
    Strategy(DivergenceStrategy),
    Point(OptionPoint),
}

impl std::fmt::Display for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Options::Strategy(d) => write!(f, "--divergence {d}"),
            Options::Point(p) => write!(f, "{p}"),
        }
    }
}

fn run_launch(
    k: &SuiteKernel,
    launch: &str,
    how: Options,
    rtl: &mut Option<(CoreConfig, RtlV2)>,
) -> Result<u64, String> {
    let l = LoadedLaunch::load(launch)?;
    let config = &l.config;
    let base = CompileOptions::for_core(config);
    let options = match how {
        Options::Strategy(divergence) => CompileOptions { divergence, ..base },
        Options::Point(p) => p.apply(&base),
    };
    let compiled = driver::compile(&l.source, &l.file, &options).map_err(|e| e.to_string())?;
    let out = compiled.kernel(l.desc.entry.as_deref())?;
    let prepared = l.prepare(&out.compiled.kernel)?;
    let kernel = &out.compiled.kernel;
    let fl = PipelineLaunch {
        launch: func_launch(kernel, &prepared),
        shared_bytes: kernel.shared_bytes,
        regs_used: kernel.regs_used,
    };
    let options = PipelineOptions {
        watchdog: WATCHDOG,
        check_bus: true,
        gen: GenOptions::sim(),
    };
    let mut memory = prepared.global.clone();
    let outcome = pipeline::run(config, &fl, &mut memory, options)
        .map_err(|e| format!("cycle model: {e}"))?;
    outcome
        .result
        .map_err(|t| format!("cycle model trapped: {t}"))?;
    k.check_memory(&prepared, &memory)
        .map_err(|e| format!("cycle model: {e}"))?;

    if launch.ends_with("-small.yaml") {
        let (built_for, rtl) = rtl.get_or_insert_with(|| {
            let gen = GenOptions::sim();
            let verilog =
                concord_hdl::v2::core::core_verilog(config, &gen).expect("small core generates");
            let rtl = RtlV2::build(&verilog, config, &gen, &BuildOptions::default())
                .expect("small core builds");
            (config.clone(), rtl)
        });
        assert_eq!(
            &*built_for, config,
            "every -small launch uses configs/small.yaml"
        );
        // Atomics return interleaving-dependent old values, so the host
        // check judges the result.
        let o = lockstep::run(config, &fl, &prepared.global, rtl, options)
            .map_err(|e| format!("lock-step RTL: {e}"))?;
        o.outcome
            .result
            .map_err(|t| format!("lock-step RTL trapped: {t}"))?;
        k.check_memory(&prepared, &o.global)
            .map_err(|e| format!("RTL: {e}"))?;
    }
    Ok(outcome.counters.get(Counter::Cycles))
}

#[test]
fn compiled_suite_runs_on_the_cycle_model_and_in_lock_step_on_the_rtl() {
    let mut rtl = None;
    let mut failures = Vec::new();
    let (mut runs, mut on_rtl) = (0, 0);
    let mut record = |k: &SuiteKernel, launch: &str, how: Options| {
        runs += 1;
        on_rtl += launch.ends_with("-small.yaml") as usize;
        if let Err(e) = run_launch(k, launch, how, &mut rtl) {
            failures.push(format!("{} ({launch}, {how}): {e}", k.name));
        }
    };
    for divergence in DivergenceStrategy::ALL {
        for k in suite() {
            for launch in k.launches {
                record(k, launch, Options::Strategy(divergence));
            }
        }
    }
    // The whole matrix on the small launches.
    for k in suite() {
        for launch in k.launches.iter().filter(|l| l.ends_with("-small.yaml")) {
            for i in 0..OptionPoint::count(&DivergenceStrategy::ALL) {
                let point = OptionPoint::nth(i, &DivergenceStrategy::ALL);
                record(k, launch, Options::Point(point));
            }
        }
    }
    assert!(on_rtl >= 3 * 18 + 48 * 18, "only {on_rtl} runs on the RTL");
    assert!(
        failures.is_empty(),
        "{} of {runs} launches failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
