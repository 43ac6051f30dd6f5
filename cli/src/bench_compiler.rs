//! `concord bench --compiler`: per suite kernel, the compile time (release
//! build, best of `--repeat`), the size of the code, and on the functional
//! model the dynamic warp-instructions and SIMD efficiency of its first
//! launch (checked against the kernel's host reference, so a wrong result
//! is never reported as a figure).
//!
//! Compile time covers the whole pipeline from source text to the kernel
//! container. Machines are noisy: compare rows of one run, not runs.

use std::time::{Duration, Instant};

use concord_compiler::driver::{self, CompileOptions};
use concord_isa::func::{self, Options};
use concord_isa::launch::LaunchDescription;
use concord_kernels::{suite, CheckInput};

/// The bound: every suite kernel compiles in under 20 ms.
const COMPILE_BUDGET: Duration = Duration::from_millis(20);

pub fn run(repeat: u32) -> Result<(), String> {
    println!(
        "| kernel | launch | compile ms | words | regs | preds | spills | warp-instr | lane-instr | SIMD eff. |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut slowest = Duration::ZERO;
    for k in suite() {
        let launch = k.launches[0];
        let path = concord_kernels::kernels_dir().join(launch);
        let desc = LaunchDescription::load(&path).map_err(|e| e.to_string())?;
        let config = desc.load_config().map_err(|e| e.to_string())?;
        let file = desc.program.display().to_string();
        let source = std::fs::read_to_string(&desc.program).map_err(|e| format!("{file}: {e}"))?;
        let options = CompileOptions::for_core(&config);
        let mut best = Duration::MAX;
        let mut compiled = None;
        for _ in 0..repeat.max(1) {
            let start = Instant::now();
            let c = driver::compile(&source, &file, &options).map_err(|e| e.to_string())?;
            best = best.min(start.elapsed());
            compiled = Some(c);
        }
        let compiled = compiled.expect("at least one run");
        slowest = slowest.max(best);
        let out = compiled.kernel(desc.entry.as_deref())?;
        let prepared = desc
            .prepare(&out.compiled.kernel, &config)
            .map_err(|e| e.to_string())?;
        let mut memory = prepared.global.clone();
        let stats = func::run(
            &config,
            &func::Launch {
                code: &out.compiled.kernel.code,
                entry_pc: prepared.entry_pc,
                grid: prepared.grid,
                block: prepared.block,
                params: &prepared.params,
            },
            &mut memory,
            Options {
                watchdog: prepared.watchdog,
            },
            None,
        )
        .map_err(|t| format!("{launch}: {t}"))?;
        (k.check)(&CheckInput {
            launch: &prepared,
            initial: &prepared.global,
            final_memory: &memory,
        })
        .map_err(|e| format!("{launch}: wrong result: {e}"))?;
        let s = &out.compiled.stats;
        println!(
            "| {} | {} | {:.2} | {} | {} | {} | {} | {} | {} | {:.1}% |",
            k.name,
            launch.trim_start_matches("suite/"),
            best.as_secs_f64() * 1e3,
            s.instructions,
            s.regs_used,
            s.preds_used,
            s.spills,
            stats.issued,
            stats.active_lane_slots,
            100.0 * stats.simd_efficiency()
        );
    }
    println!(
        "\nslowest compile: {:.2} ms (budget {} ms): {}",
        slowest.as_secs_f64() * 1e3,
        COMPILE_BUDGET.as_millis(),
        if slowest < COMPILE_BUDGET {
            "within budget"
        } else {
            "OVER BUDGET"
        }
    );
    Ok(())
}
