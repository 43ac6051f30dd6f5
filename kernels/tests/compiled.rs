//! Differential test of the whole compiler on the kernel suite: every
//! launch of every suite kernel, compiled at several register budgets
//! (the smallest ones force spills), runs on the functional model and must
//! pass the kernel's host check; the IR, before and after the middle end,
//! runs on the reference interpreter and must pass the same check and
//! leave the same buffers as the machine code.

use std::path::Path;

use concord_compiler::driver::{self, CompileOptions};
use concord_compiler::frontend::{self, FrontendOptions};
use concord_compiler::interp::{self, InterpLaunch, InterpOptions};
use concord_compiler::ir::Module;
use concord_isa::config::CoreConfig;
use concord_isa::func::{self, Options};
use concord_isa::launch::{LaunchDescription, PreparedLaunch};
use concord_kernels::{suite, CheckInput, SuiteKernel};

/// Register budgets every launch is compiled with: the core's 32, a
/// middling one and the smallest that still leaves the allocator room.
const BUDGETS: [u32; 3] = [32, 12, 6];

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

/// The bytes below the per-thread stacks: what every model must agree on.
fn data_region<'a>(memory: &'a [u8], prepared: &PreparedLaunch) -> &'a [u8] {
    let end = prepared
        .buffers
        .iter()
        .map(|b| (b.addr + b.len * b.elem.bytes()) as usize)
        .max()
        .unwrap_or(0);
    &memory[..end]
}

fn check(k: &SuiteKernel, prepared: &PreparedLaunch, memory: &[u8]) -> Result<(), String> {
    (k.check)(&CheckInput {
        launch: prepared,
        initial: &prepared.global,
        final_memory: memory,
    })
}

fn run_launch(k: &SuiteKernel, launch: &str) -> Result<(), String> {
    let path = concord_kernels::kernels_dir().join(launch);
    let desc = LaunchDescription::load(&path).map_err(|e| e.to_string())?;
    let config = desc.load_config().map_err(|e| e.to_string())?;
    let file = desc.program.display().to_string();
    let source = std::fs::read_to_string(&desc.program).map_err(|e| format!("{file}: {e}"))?;

    let mut reference: Option<(Vec<u8>, PreparedLaunch)> = None;
    for regs in BUDGETS {
        let options = CompileOptions {
            regs: Some(regs),
            ..CompileOptions::for_core(&config)
        };
        let compiled = driver::compile(&source, &file, &options).map_err(|e| e.to_string())?;
        let out = compiled.kernel(desc.entry.as_deref())?;
        let prepared = desc
            .prepare(&out.compiled.kernel, &config)
            .map_err(|e| e.to_string())?;
        let mut memory = prepared.global.clone();
        let fl = func::Launch {
            code: &out.compiled.kernel.code,
            entry_pc: prepared.entry_pc,
            grid: prepared.grid,
            block: prepared.block,
            params: &prepared.params,
        };
        func::run(
            &config,
            &fl,
            &mut memory,
            Options {
                watchdog: prepared.watchdog,
            },
            None,
        )
        .map_err(|t| format!("--regs {regs}: functional model trapped: {t}"))?;
        check(k, &prepared, &memory).map_err(|e| format!("--regs {regs}: {e}"))?;

        if reference.is_none() {
            // The IR as the front end made it, and after the middle end.
            let fe = FrontendOptions::for_core(&config);
            let (raw, _) = frontend::compile_source(&source, &file, &fe)
                .map_err(|d| frontend::render(&d, &source, &file))?;
            for (which, module) in [("front-end IR", &raw), ("optimised IR", &compiled.module)] {
                let got = run_interp(module, &out.name, &prepared, &config)?;
                check(k, &prepared, &got).map_err(|e| format!("{which}: {e}"))?;
                if data_region(&got, &prepared) != data_region(&memory, &prepared) {
                    return Err(format!(
                        "{which} on the interpreter and the machine code (--regs {regs}) leave different buffers"
                    ));
                }
            }
            reference = Some((memory, prepared));
        } else if let Some((first, p)) = &reference {
            if data_region(first, p) != data_region(&memory, &prepared) {
                return Err(format!(
                    "--regs {regs} leaves different buffers than --regs {}",
                    BUDGETS[0]
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn every_suite_launch_matches_its_host_check_at_every_register_budget() {
    let mut failures = Vec::new();
    let mut runs = 0;
    for k in suite() {
        for launch in k.launches {
            runs += 1;
            if let Err(e) = run_launch(k, launch) {
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
