//! `concord bench --compiler`: per suite kernel, the compile time (release
//! build, best of `--repeat`), the size of the code, and on the functional
//! model the dynamic warp-instructions and SIMD efficiency of its first
//! launch (checked against the kernel's host reference, so a wrong result
//! is never reported as a figure).
//!
//! Compile time covers the whole pipeline from source text to the kernel
//! container. Machines are noisy: compare rows of one run, not runs.
//!
//! A second table compiles generated straight-line kernels of growing
//! length and reports the heap's high-water mark during each compilation
//! (bytes, counted by the binary's allocator,
//! `concord_compiler::heap::CountingAllocator`: it adds a
//! thread-local counter to every allocation of the `concord` binary), so
//! that the growth of compile memory with the size of the code is visible.

use std::time::{Duration, Instant};

use concord_compiler::driver::{self, CompileOptions};
use concord_compiler::heap::{peak_heap, straight_line, CountingAllocator};
use concord_isa::config::CoreConfig;
use concord_kernels::harness::{run_functional, LoadedLaunch};
use concord_kernels::suite;

use crate::error::CliError;
use crate::output::outln;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Lengths of the straight-line kernels, in statements (the longest fits
/// the largest instruction memory).
const STRAIGHT_LINE: [usize; 3] = [2_500, 5_000, 10_000];

/// The bound: every suite kernel compiles in under 20 ms.
const COMPILE_BUDGET: Duration = Duration::from_millis(20);

pub fn run(repeat: u32) -> Result<(), CliError> {
    outln!(
        "| kernel | launch | compile ms | words | regs | preds | spills | warp-instr | lane-instr | SIMD eff. |"
    )?;
    outln!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")?;
    let mut slowest = Duration::ZERO;
    for k in suite() {
        let launch = k.launches[0];
        let l = LoadedLaunch::load(launch)?;
        let options = CompileOptions::for_core(&l.config);
        let mut best = Duration::MAX;
        let mut compiled = None;
        for _ in 0..repeat.max(1) {
            let start = Instant::now();
            let c = driver::compile(&l.source, &l.file, &options).map_err(|e| e.to_string())?;
            best = best.min(start.elapsed());
            compiled = Some(c);
        }
        let compiled = compiled.expect("at least one run");
        slowest = slowest.max(best);
        let out = compiled.kernel(l.desc.entry.as_deref())?;
        let prepared = l.prepare(&out.compiled.kernel)?;
        let (memory, stats) = run_functional(&l.config, &out.compiled.kernel, &prepared)
            .map_err(|e| CliError::trap(format!("{launch}: {e}")))?;
        k.check_memory(&prepared, &memory)
            .map_err(|e| CliError::mismatch(format!("{launch}: wrong result: {e}")))?;
        let s = &out.compiled.stats;
        outln!(
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
        )?;
    }
    outln!(
        "\nslowest compile: {:.2} ms (budget {} ms): {}",
        slowest.as_secs_f64() * 1e3,
        COMPILE_BUDGET.as_millis(),
        if slowest < COMPILE_BUDGET {
            "within budget"
        } else {
            "OVER BUDGET"
        }
    )?;
    straight_line_table()
}

/// Compile time and peak heap of straight-line kernels of growing length:
/// the bytes per statement stay flat when memory grows linearly.
fn straight_line_table() -> Result<(), CliError> {
    outln!(
        "\n| straight-line statements | compile ms | words | peak heap MiB | bytes per statement |"
    )?;
    outln!("|---:|---:|---:|---:|---:|")?;
    let options = CompileOptions::for_core(&CoreConfig {
        imem_words: 65536,
        ..CoreConfig::default()
    });
    for n in STRAIGHT_LINE {
        let src = straight_line(n);
        let start = Instant::now();
        let (compiled, peak) = peak_heap(|| driver::compile(&src, "straight-line.cu", &options));
        let elapsed = start.elapsed();
        let compiled = compiled.map_err(|e| e.to_string())?;
        let words = compiled.kernel(None)?.compiled.stats.instructions;
        drop(compiled);
        outln!(
            "| {n} | {:.1} | {words} | {:.1} | {} |",
            elapsed.as_secs_f64() * 1e3,
            peak as f64 / (1024.0 * 1024.0),
            peak / n
        )?;
    }
    Ok(())
}
