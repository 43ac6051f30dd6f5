//! Differential test of the whole compiler on the kernel suite: every
//! launch of every suite kernel, compiled at several register budgets
//! (the smallest ones force spills), runs on the functional model and must
//! pass the kernel's host check; the IR, before and after the middle end,
//! runs on the reference interpreter and must pass the same check and
//! leave the same buffers as the machine code. The same runs again under
//! every combination of the control-flow strategy (`--divergence`), the
//! spilling mode (`--spill`) and loop flattening (`--flatten-loops`), at
//! budgets that force spills; none may change any result.

use concord_compiler::backend::{DivergenceStrategy, SpillMode};
use concord_compiler::driver::{self, CompileOptions};
use concord_compiler::frontend::{self, FrontendOptions};
use concord_compiler::interp::{self, InterpLaunch, InterpOptions};
use concord_compiler::ir::Module;
use concord_isa::config::CoreConfig;
use concord_isa::launch::PreparedLaunch;
use concord_kernels::harness::{buffer_region, run_functional, LoadedLaunch};
use concord_kernels::{suite, SuiteKernel};

/// How the launches are compiled.
struct Variant {
    /// Register budgets: the first is the core's own; the smallest force
    /// spills.
    budgets: &'static [u32],
    flatten_loops: bool,
    spill: SpillMode,
    divergence: DivergenceStrategy,
}

/// The core's 32 registers, a middling budget and the smallest that still
/// leaves the allocator room.
const PLAIN: Variant = Variant {
    budgets: &[32, 12, 6],
    flatten_loops: false,
    spill: SpillMode::Plain,
    divergence: DivergenceStrategy::Branch,
};

/// Every other combination of spilling, flattening and strategy, at the
/// core's budget and one that forces spills.
fn variants(divergence: DivergenceStrategy) -> Vec<Variant> {
    let mut out = Vec::new();
    for spill in [SpillMode::Plain, SpillMode::DivergenceAware] {
        for flatten_loops in [false, true] {
            let baseline = divergence == DivergenceStrategy::Branch
                && spill == SpillMode::Plain
                && !flatten_loops;
            if baseline {
                continue; // `PLAIN`
            }
            out.push(Variant {
                budgets: if spill == SpillMode::DivergenceAware {
                    &[12, 6]
                } else {
                    &[32, 8]
                },
                flatten_loops,
                spill,
                divergence,
            });
        }
    }
    out
}

fn run_interp(
    module: &Module,
    kernel: &str,
    prepared: &PreparedLaunch,
    config: &CoreConfig,
) -> Result<Vec<u8>, String> {
    let id = module
        .func_by_name(kernel)
        .ok_or_else(|| format!("no kernel @{kernel} in the IR"))?;
    let mut memory = prepared.global.clone();
    interp::run(
        module,
        id,
        &InterpLaunch::new(prepared, config),
        &mut memory,
        &InterpOptions::default(),
    )
    .map_err(|e| format!("interpreter: {e}"))?;
    Ok(memory)
}

fn run_launch(k: &SuiteKernel, launch: &str, variant: &Variant) -> Result<(), String> {
    let l = LoadedLaunch::load(launch)?;
    let mut reference: Option<(Vec<u8>, PreparedLaunch)> = None;
    for &regs in variant.budgets {
        let mut options = CompileOptions {
            regs: Some(regs),
            ..CompileOptions::for_core(&l.config)
        };
        options.opt.flatten_loops = variant.flatten_loops;
        options.spill = variant.spill;
        options.divergence = variant.divergence;
        let compiled = driver::compile(&l.source, &l.file, &options).map_err(|e| e.to_string())?;
        let out = compiled.kernel(l.desc.entry.as_deref())?;
        let kernel = &out.compiled.kernel;
        let prepared = l.prepare(kernel)?;
        let (memory, _) = run_functional(&l.config, kernel, &prepared)
            .map_err(|e| format!("--regs {regs}: {e}"))?;
        k.check_memory(&prepared, &memory)
            .map_err(|e| format!("--regs {regs}: {e}"))?;

        match &reference {
            None => {
                // The IR as the front end made it, and after the middle end.
                let fe = FrontendOptions::for_core(&l.config);
                let (raw, _) = frontend::compile_source(&l.source, &l.file, &fe)
                    .map_err(|d| frontend::render(&d, &l.source, &l.file))?;
                for (which, module) in [("front-end IR", &raw), ("optimised IR", &compiled.module)]
                {
                    let got = run_interp(module, &out.name, &prepared, &l.config)?;
                    k.check_memory(&prepared, &got)
                        .map_err(|e| format!("{which}: {e}"))?;
                    if buffer_region(&got, &prepared) != buffer_region(&memory, &prepared) {
                        return Err(format!(
                            "{which} on the interpreter and the machine code (--regs {regs}) leave different buffers"
                        ));
                    }
                }
                reference = Some((memory, prepared));
            }
            Some((first, p)) => {
                if buffer_region(first, p) != buffer_region(&memory, &prepared) {
                    return Err(format!(
                        "--regs {regs} leaves different buffers than --regs {}",
                        variant.budgets[0]
                    ));
                }
            }
        }
    }
    Ok(())
}

fn run_suite(variant: &Variant) {
    let mut failures = Vec::new();
    let mut runs = 0;
    for k in suite() {
        for launch in k.launches {
            runs += 1;
            if let Err(e) = run_launch(k, launch, variant) {
                failures.push(format!(
                    "{} ({launch}, --divergence {} --spill {}{}): {e}",
                    k.name,
                    variant.divergence,
                    variant.spill,
                    if variant.flatten_loops {
                        " --flatten-loops"
                    } else {
                        ""
                    }
                ));
            }
        }
    }
    assert!(runs >= 40, "only {runs} launches");
    assert!(
        failures.is_empty(),
        "{} of {runs} launches failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn every_suite_launch_matches_its_host_check_at_every_register_budget() {
    run_suite(&PLAIN);
}

#[test]
fn branch_strategy_with_flattening_and_divergence_aware_spilling_changes_no_result() {
    for v in variants(DivergenceStrategy::Branch) {
        run_suite(&v);
    }
}

#[test]
fn predication_changes_no_result_under_every_spill_and_flattening_mode() {
    for v in variants(DivergenceStrategy::Predicate) {
        run_suite(&v);
    }
}

#[test]
fn auto_strategy_changes_no_result_under_every_spill_and_flattening_mode() {
    for v in variants(DivergenceStrategy::Auto) {
        run_suite(&v);
    }
}
