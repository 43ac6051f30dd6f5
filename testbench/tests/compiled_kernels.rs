//! The compiled kernel suite on the timed models: every launch of every
//! suite kernel (`concord-kernels`), compiled by the Concord compiler, runs
//! on the cycle-accurate model and must pass the kernel's host check; the
//! launches on the small core (`*-small.yaml`, 4 lanes x 1 warp) also run
//! on the RTL in lock-step with the cycle model (trace ports compared every
//! cycle, final memory checked against the functional model). Every launch
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
use concord_testbench::cosim;
use concord_testbench::cycle;
use concord_testbench::verilator::{BuildOptions, Rtl};

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
    rtl: &mut Option<(CoreConfig, Rtl)>,
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
    let fl = func_launch(&out.compiled.kernel, &prepared);
    let mut memory = prepared.global.clone();
    let counters = cycle::run(config, &fl, &mut memory, WATCHDOG, None)
        .map_err(|t| format!("cycle model trapped: {t}"))?;
    k.check_memory(&prepared, &memory)
        .map_err(|e| format!("cycle model: {e}"))?;

    if launch.ends_with("-small.yaml") {
        let (built_for, rtl) = rtl.get_or_insert_with(|| {
            let verilog = concord_hdl::generate_verilog(config).expect("small core generates");
            let rtl = Rtl::build(&verilog, &BuildOptions::default()).expect("small core builds");
            (config.clone(), rtl)
        });
        assert_eq!(
            &*built_for, config,
            "every -small launch uses configs/small.yaml"
        );
        // Atomics return interleaving-dependent old values, so the
        // functional model checks memory (the host check covers the rest).
        let o = cosim::run_with(
            config,
            &fl,
            &prepared.global,
            rtl,
            WATCHDOG,
            None,
            cosim::Oracle::MemoryOnly,
        )
        .map_err(|e| format!("lock-step RTL: {e}"))?;
        o.result
            .map_err(|t| format!("lock-step RTL trapped: {t}"))?;
        k.check_memory(&prepared, &o.global)
            .map_err(|e| format!("RTL: {e}"))?;
    }
    Ok(counters.cycles)
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
