//! Loop flattening on the kernel suite: every launch of every suite kernel,
//! compiled with `OptOptions::flatten_loops`, runs on the functional model
//! and must pass the kernel's host check; the flattened IR runs on the
//! reference interpreter and must pass the same check and leave the same
//! buffers as the machine code. The work queue kernel (Bulavintsev's
//! benchmark) must really be flattened.

use concord_compiler::driver::{self, CompileOptions};
use concord_compiler::frontend::{self, FrontendOptions};
use concord_compiler::interp::{self, InterpLaunch, InterpOptions};
use concord_compiler::passes::{optimize, OptOptions};
use concord_isa::config::CoreConfig;
use concord_isa::func::{self, Options};
use concord_isa::launch::{LaunchDescription, PreparedLaunch};
use concord_kernels::{suite, CheckInput, SuiteKernel};

/// Register budgets: the core's own and a small one (the carried values
/// add pressure, so spilling must cope with the flattened loops too).
const BUDGETS: [u32; 2] = [32, 8];

fn flatten_options(config: &CoreConfig) -> CompileOptions {
    let mut options = CompileOptions::for_core(config);
    options.opt.flatten_loops = true;
    options
}

/// The bytes below the per-thread stacks.
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
    for regs in BUDGETS {
        let options = CompileOptions {
            regs: Some(regs),
            ..flatten_options(&config)
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

        let id = compiled
            .module
            .func_by_name(&out.name)
            .ok_or_else(|| format!("no kernel @{} in the IR", out.name))?;
        let mut interp_memory = prepared.global.clone();
        interp::run(
            &compiled.module,
            id,
            &InterpLaunch::new(&prepared, &config),
            &mut interp_memory,
            &InterpOptions::default(),
        )
        .map_err(|e| format!("interpreter on the flattened IR: {e}"))?;
        check(k, &prepared, &interp_memory).map_err(|e| format!("flattened IR: {e}"))?;
        if data_region(&interp_memory, &prepared) != data_region(&memory, &prepared) {
            return Err(format!(
                "the flattened IR on the interpreter and the machine code (--regs {regs}) \
                 leave different buffers"
            ));
        }
    }
    Ok(())
}

#[test]
fn every_suite_launch_passes_its_host_check_with_flattening() {
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

/// The middle end's report per suite kernel: the work queue's nest is
/// flattened; every nest left alone has a note.
#[test]
fn workqueue_is_flattened_and_the_rest_is_reported() {
    let config = CoreConfig::default();
    let mut flattened_kernels = Vec::new();
    for k in suite() {
        let path = concord_kernels::kernels_dir().join(k.source);
        let source = std::fs::read_to_string(&path).expect("suite source");
        let fe = FrontendOptions::for_core(&config);
        let (mut module, _) = frontend::compile_source(&source, k.source, &fe)
            .unwrap_or_else(|d| panic!("{}", frontend::render(&d, &source, k.source)));
        let options = OptOptions {
            verify_each_pass: true,
            ..flatten_options(&config).opt
        };
        let report = optimize(&mut module, &options).expect("pipeline verifies");
        for (f, header) in &report.flatten.flattened {
            eprintln!("{}: flattened @{f} at {header}", k.name);
            flattened_kernels.push(k.name);
        }
        for note in &report.flatten.notes {
            eprintln!("{}: note: {note}", k.name);
        }
    }
    assert!(
        flattened_kernels.contains(&"workqueue"),
        "the work queue was not flattened (flattened: {flattened_kernels:?})"
    );
}
