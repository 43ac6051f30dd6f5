//! Differential test of the whole compiler on the kernel suite: every
//! launch of every suite kernel, compiled at several register budgets
//! (the smallest ones force spills), runs on the functional model and must
//! pass the kernel's host check; the IR, before and after the middle end,
//! runs on the reference interpreter and must pass the same check and
//! leave the same buffers as the machine code. The same runs again with
//! loop flattening (`--flatten-loops`), which must not change any result.

use concord_compiler::backend::SpillMode;
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
}

/// The core's 32 registers, a middling budget and the smallest that still
/// leaves the allocator room.
const PLAIN: Variant = Variant {
    budgets: &[32, 12, 6],
    flatten_loops: false,
    spill: SpillMode::Plain,
};

/// Flattening adds carried values, so spilling must cope with it too.
const FLATTENED: Variant = Variant {
    budgets: &[32, 8],
    flatten_loops: true,
    spill: SpillMode::Plain,
};

/// Divergence-aware spilling (per-warp slots, affine rebuilds) at budgets
/// that force spills.
const DIVERGENCE_AWARE_SPILLING: Variant = Variant {
    budgets: &[12, 8, 6],
    flatten_loops: false,
    spill: SpillMode::DivergenceAware,
};

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
                failures.push(format!("{} ({launch}): {e}", k.name));
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
fn loop_flattening_changes_no_result() {
    run_suite(&FLATTENED);
}

#[test]
fn divergence_aware_spilling_changes_no_result() {
    run_suite(&DIVERGENCE_AWARE_SPILLING);
}
