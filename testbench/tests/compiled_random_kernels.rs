//! Compiled random kernels (`kernel_gen`) on the RTL: each seed is compiled
//! under one point of the full option matrix (`--divergence` ×
//! `--spill` × `--flatten-loops` × register budgets that force spills,
//! 48 points, cycling with the seed), run on the RTL in lock-step with the
//! cycle model (trace ports compared every cycle, final memory checked
//! against the functional model), and the RTL's buffers are compared with
//! the front end's IR run on the reference interpreter.
//!
//! Verilator runs about a million core cycles a second, and the generator's
//! default kernels (up to 3 blocks of 64 threads, 12 top-level statements)
//! average close to two million cycles with a long tail. So every CI run
//! has two tiers, each spread over the machine's cores (one model per
//! worker):
//!
//! * **a thousand small kernels** (`small_kernels`: blocks of up to 32
//!   threads on an 8-lane, 4-warp core, at most 2 blocks, 8 top-level
//!   statements, every language feature still on), about 300 000 cycles
//!   each; `CONCORD_RTL_RANDOM_KERNELS` (default 1000) and
//!   `CONCORD_RTL_RANDOM_SEED` (default 1) choose the seeds;
//! * **the matrix once at full size** (48 seeds of the default generator
//!   on the 8 × 8 core); `CONCORD_RTL_FULL_KERNELS` and
//!   `CONCORD_RTL_FULL_SEED` choose them.
//!
//! The ignored test `thousand_full_size_compiled_random_kernels_on_the_rtl`
//! runs full-size seeds 1 to 1000 (`scripts/test.sh --full`, about 15
//! minutes on two cores). The functional-model tiers (`concord-compiler`'s
//! `random_kernels`) run 1000 kernels per CI run in each strategy group.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use concord_compiler::backend::DivergenceStrategy;
use concord_compiler::driver::{self, CompileOptions, OptionPoint};
use concord_compiler::kernel_gen::{generate, GenConfig};
use concord_isa::config::CoreConfig;
use concord_kernels::harness::{buffer_region, func_launch};
use concord_testbench::cosim;
use concord_testbench::verilator::{BuildOptions, Rtl};

/// `name` as a whole number, `default` when unset; a value that is not one
/// fails the test naming the variable rather than running the default.
fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Err(_) => default,
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?}: expected a whole number")),
    }
}

/// The CI tier's generator: the default's features at a size the RTL runs
/// a thousand of in minutes.
fn small_kernels() -> GenConfig {
    GenConfig {
        warps: 4,
        max_blocks: 2,
        max_stmts: 8,
        ..GenConfig::default()
    }
}

#[test]
fn thousand_small_compiled_random_kernels_match_the_interpreter_on_the_rtl() {
    run_tier(
        &small_kernels(),
        env_u64("CONCORD_RTL_RANDOM_SEED", 1),
        env_u64("CONCORD_RTL_RANDOM_KERNELS", 1000),
    );
}

#[test]
fn full_size_compiled_random_kernels_match_the_interpreter_on_the_rtl() {
    run_tier(
        &GenConfig::default(),
        env_u64("CONCORD_RTL_FULL_SEED", 1),
        env_u64(
            "CONCORD_RTL_FULL_KERNELS",
            OptionPoint::count(&DivergenceStrategy::ALL),
        ),
    );
}

#[test]
#[ignore = "large tier: 1000 full-size kernels, about 15 minutes on two cores; run by scripts/test.sh --full"]
fn thousand_full_size_compiled_random_kernels_on_the_rtl() {
    run_tier(&GenConfig::default(), 1, 1000);
}

fn run_tier(gen: &GenConfig, first: u64, count: u64) {
    run_seeds(gen, &(first..first + count).collect::<Vec<_>>());
}

/// Full-size seeds that failed in the large tier, under their own matrix
/// points: 218 and 602 left an atomic's unused old value on the stack
/// through a callee's register save, which the functional model's warp
/// order makes differ (the oracle compares the buffers since); 346, 598
/// and 838 (54 to 98 million cycles, too long for CI) outran the
/// generator's old 50-million watchdog on the timed models.
#[test]
fn previously_failing_full_size_seeds() {
    run_seeds(&GenConfig::default(), &[218, 602]);
}

fn run_seeds(gen: &GenConfig, seeds: &[u64]) {
    let count = seeds.len();
    // Room for the largest kernels flattening and tiny budgets make.
    let config = CoreConfig {
        lanes: gen.lanes,
        warps: gen.warps,
        imem_words: 16384,
        ..CoreConfig::default()
    };
    let verilog = concord_hdl::generate_verilog(&config).expect("the core generates");
    let first_model = Rtl::build(&verilog, &BuildOptions::default()).expect("verilator build");
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    let others: Vec<Rtl> = (1..workers)
        .map(|_| first_model.new_instance().expect("another model"))
        .collect();
    let next = AtomicUsize::new(0);
    let cycles = AtomicU64::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for mut rtl in std::iter::once(first_model).chain(others) {
            let (next, cycles, failures, config) = (&next, &cycles, &failures, &config);
            s.spawn(move || {
                while let Some(&seed) = seeds.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let point = OptionPoint::nth(seed, &DivergenceStrategy::ALL);
                    match run_seed(gen, config, seed, point, &mut rtl) {
                        Ok(c) => {
                            cycles.fetch_add(c, Ordering::Relaxed);
                        }
                        Err(e) => failures
                            .lock()
                            .expect("no worker panics holding it")
                            .push((seed, format!("seed {seed} ({point}): {e}"))),
                    }
                }
            });
        }
    });
    let mut failures = failures.into_inner().expect("no worker panicked");
    failures.sort();
    eprintln!(
        "{count} compiled random kernels ({} lanes × {} warps), {} cycles in lock-step on the RTL, {workers} workers",
        config.lanes,
        config.warps,
        cycles.into_inner()
    );
    assert!(
        failures.is_empty(),
        "{} of {count} compiled random kernels failed on the RTL:\n{}",
        failures.len(),
        failures
            .iter()
            .map(|(_, m)| m.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Compiles `seed`'s kernel at `point`, runs it in lock-step and compares
/// the buffers with the IR interpreter's; returns the cycles.
fn run_seed(
    gen: &GenConfig,
    config: &CoreConfig,
    seed: u64,
    point: OptionPoint,
    rtl: &mut Rtl,
) -> Result<u64, String> {
    let k = generate(seed, gen);
    let (_, reference) = k.interpret(config)?;
    let file = format!("kgen_{seed}.cu");
    let options = point.apply(&CompileOptions::for_core(config));
    let compiled = driver::compile(&k.source, &file, &options).map_err(|e| e.to_string())?;
    let out = compiled.kernel(Some(&k.kernel_name))?;
    let prepared = k
        .launch_description(&std::env::temp_dir())
        .prepare(&out.compiled.kernel, config)
        .map_err(|e| e.to_string())?;
    let launch = func_launch(&out.compiled.kernel, &prepared);
    // Atomics return interleaving-dependent old values, so the functional
    // model checks memory only, and only the buffers: a callee that saves
    // a register still holding an atomic's unused old value leaves it on
    // the stack (seeds 218 and 602 of the full-size tier).
    let buffers_end = buffer_region(&prepared.global, &prepared).len();
    let o = cosim::run_with(
        config,
        &launch,
        &prepared.global,
        rtl,
        prepared.watchdog,
        None,
        cosim::Oracle::MemoryBelow(buffers_end),
    )
    .map_err(|e| format!("lock-step RTL: {e}"))?;
    o.result
        .map_err(|t| format!("lock-step RTL trapped: {t}"))?;
    let (want, got) = (
        buffer_region(&reference, &prepared),
        buffer_region(&o.global, &prepared),
    );
    if let Some(at) = want.iter().zip(got).position(|(a, b)| a != b) {
        return Err(format!(
            "RTL and IR interpreter differ first at byte {at:#x}: interpreter {:#04x}, RTL {:#04x}",
            want[at], got[at]
        ));
    }
    Ok(o.counters.cycles)
}
