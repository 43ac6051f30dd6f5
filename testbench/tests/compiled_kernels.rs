//! The compiled kernel suite on the timed models: every launch of every
//! suite kernel (`concord-kernels`), compiled by the Concord compiler, runs
//! on the cycle-accurate model and must pass the kernel's host check; the
//! launches on the small core (`*-small.yaml`, 4 lanes x 1 warp) also run
//! on the RTL in lock-step with the cycle model (trace ports compared every
//! cycle, final memory checked against the functional model).

use concord_compiler::driver::{self, CompileOptions};
use concord_isa::config::CoreConfig;
use concord_isa::func;
use concord_isa::launch::{LaunchDescription, PreparedLaunch};
use concord_kernels::{suite, CheckInput, SuiteKernel};
use concord_testbench::cosim;
use concord_testbench::cycle;
use concord_testbench::verilator::{BuildOptions, Rtl};

/// Cycles after which a run counts as hung (the longest suite launch takes
/// a few million).
const WATCHDOG: u64 = 50_000_000;

fn check(k: &SuiteKernel, prepared: &PreparedLaunch, memory: &[u8]) -> Result<(), String> {
    (k.check)(&CheckInput {
        launch: prepared,
        initial: &prepared.global,
        final_memory: memory,
    })
}

fn run_launch(
    k: &SuiteKernel,
    launch: &str,
    rtl: &mut Option<(CoreConfig, Rtl)>,
) -> Result<u64, String> {
    let path = concord_kernels::kernels_dir().join(launch);
    let desc = LaunchDescription::load(&path).map_err(|e| e.to_string())?;
    let config = desc.load_config().map_err(|e| e.to_string())?;
    let file = desc.program.display().to_string();
    let source = std::fs::read_to_string(&desc.program).map_err(|e| format!("{file}: {e}"))?;
    let compiled = driver::compile(&source, &file, &CompileOptions::for_core(&config))
        .map_err(|e| e.to_string())?;
    let out = compiled.kernel(desc.entry.as_deref())?;
    let prepared = desc
        .prepare(&out.compiled.kernel, &config)
        .map_err(|e| e.to_string())?;
    let fl = func::Launch {
        code: &out.compiled.kernel.code,
        entry_pc: prepared.entry_pc,
        grid: prepared.grid,
        block: prepared.block,
        params: &prepared.params,
    };
    let mut memory = prepared.global.clone();
    let counters = cycle::run(&config, &fl, &mut memory, WATCHDOG, None)
        .map_err(|t| format!("cycle model trapped: {t}"))?;
    check(k, &prepared, &memory).map_err(|e| format!("cycle model: {e}"))?;

    if launch.ends_with("-small.yaml") {
        let (built_for, rtl) = rtl.get_or_insert_with(|| {
            let verilog = concord_hdl::generate_verilog(&config).expect("small core generates");
            let rtl = Rtl::build(&verilog, &BuildOptions::default()).expect("small core builds");
            (config.clone(), rtl)
        });
        assert_eq!(
            *built_for, config,
            "every -small launch uses configs/small.yaml"
        );
        // Atomics return interleaving-dependent old values, so the
        // functional model checks memory (the host check covers the rest).
        let o = cosim::run_with(
            &config,
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
        check(k, &prepared, &o.global).map_err(|e| format!("RTL: {e}"))?;
    }
    Ok(counters.cycles)
}

#[test]
fn compiled_suite_runs_on_the_cycle_model_and_in_lock_step_on_the_rtl() {
    let mut rtl = None;
    let mut failures = Vec::new();
    let (mut runs, mut on_rtl) = (0, 0);
    for k in suite() {
        for launch in k.launches {
            runs += 1;
            on_rtl += launch.ends_with("-small.yaml") as usize;
            if let Err(e) = run_launch(k, launch, &mut rtl) {
                failures.push(format!("{} ({launch}): {e}", k.name));
            }
        }
    }
    assert!(on_rtl >= 15, "only {on_rtl} launches on the RTL");
    assert!(
        failures.is_empty(),
        "{} of {runs} launches failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
