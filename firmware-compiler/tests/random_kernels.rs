//! Differential test of the compiler on random kernels (`kernel_gen`):
//! each generated kernel is compiled with the spilling mode, loop
//! flattening and register budget (including budgets that force spills)
//! chosen by its seed so that consecutive seeds cycle through every
//! combination; each compilation runs on the ISA's functional model and is
//! compared with the front end's IR run on the reference interpreter. Any
//! difference in the buffers, a trap, an interpreter error or a compile
//! error is a failure that names the seed and the options.
//!
//! Three tiers run in CI. Two of 1000 seeds each: `random_kernels_match_the_ir_interpreter`
//! compiles each seed once with `--divergence branch`, the spill ×
//! flattening × budget combination (16 of them) cycling with the seed.
//! `random_kernels_under_predication` alternates `predicate` and `auto`
//! with the seed and cycles the 16 combinations with the seed divided by
//! two. And `random_kernels_under_the_whole_matrix` compiles 100 more
//! seeds under all 48 combinations each.
//! `previously_failing_seeds` replays, with the options that failed, every
//! seed a larger run caught and a fix repaired.
//!
//! `CONCORD_RANDOM_KERNELS` sets the number of kernels (default 1000, the
//! CI tier); `CONCORD_RANDOM_SEED` the first seed (default 1);
//! `CONCORD_RANDOM_MATRIX=full` compiles every kernel under every
//! combination of its tier instead of the seed's one. One failing seed is
//! reproduced with `CONCORD_RANDOM_KERNELS=1 CONCORD_RANDOM_SEED=<seed>
//! CONCORD_RANDOM_MATRIX=full`.

use concord_compiler::backend::{DivergenceStrategy, SpillMode};
use concord_compiler::driver::{self, CompileOptions, OptionPoint};
use concord_compiler::kernel_gen::{generate, GenConfig, GeneratedKernel};
use concord_isa::config::CoreConfig;
use concord_isa::func::{self, Options};
use concord_kernels::harness::buffer_region;

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

/// The combination seed `seed` runs with `strategies`, or all of them.
fn combos(seed: u64, full: bool, strategies: &[DivergenceStrategy]) -> Vec<OptionPoint> {
    if full {
        (0..OptionPoint::count(strategies))
            .map(|i| OptionPoint::nth(i, strategies))
            .collect()
    } else {
        vec![OptionPoint::nth(seed, strategies)]
    }
}

/// The buffers after running the front end's IR on the interpreter.
fn oracle(k: &GeneratedKernel, config: &CoreConfig) -> Result<Vec<u8>, String> {
    let (prepared, memory) = k.interpret(config)?;
    Ok(buffer_region(&memory, &prepared).to_vec())
}

fn check_one(
    k: &GeneratedKernel,
    config: &CoreConfig,
    combo: OptionPoint,
    expected: &[u8],
) -> Result<(), String> {
    let file = format!("kgen_{}.cu", k.seed);
    let options = combo.apply(&CompileOptions::for_core(config));
    let compiled = driver::compile(&k.source, &file, &options).map_err(|e| e.to_string())?;
    let out = compiled.kernel(Some(&k.kernel_name))?;
    let desc = k.launch_description(&std::env::temp_dir());
    let prepared = desc
        .prepare(&out.compiled.kernel, config)
        .map_err(|e| e.to_string())?;

    let mut machine = prepared.global.clone();
    let launch = func::Launch {
        code: &out.compiled.kernel.code,
        entry_pc: prepared.entry_pc,
        grid: prepared.grid,
        block: prepared.block,
        params: &prepared.params,
        stack_bytes: out.compiled.kernel.stack_bytes,
    };
    func::run(
        config,
        &launch,
        &mut machine,
        Options {
            watchdog: prepared.watchdog,
        },
        None,
    )
    .map_err(|t| format!("functional model trapped: {t}"))?;

    let (a, b) = (expected, buffer_region(&machine, &prepared));
    if a != b {
        let at = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(0);
        let buffer = prepared
            .buffers
            .iter()
            .find(|buf| {
                (buf.addr as usize..(buf.addr + buf.len * buf.elem.bytes()) as usize).contains(&at)
            })
            .map(|buf| format!("buffer `{}` byte {}", buf.name, at - buf.addr as usize))
            .unwrap_or_else(|| format!("address {at:#x}"));
        return Err(format!(
            "machine code and IR interpreter differ first at {buffer}: interpreter {:#04x}, machine {:#04x}",
            a[at], b[at]
        ));
    }
    Ok(())
}

#[test]
fn random_kernels_match_the_ir_interpreter() {
    run_tier(&[DivergenceStrategy::Branch]);
}

#[test]
fn random_kernels_under_predication() {
    run_tier(&[DivergenceStrategy::Predicate, DivergenceStrategy::Auto]);
}

fn run_tier(strategies: &[DivergenceStrategy]) {
    let count = env_u64("CONCORD_RANDOM_KERNELS", 1000);
    let first = env_u64("CONCORD_RANDOM_SEED", 1);
    let full = std::env::var("CONCORD_RANDOM_MATRIX").is_ok_and(|v| v == "full");
    let seeds: Vec<(u64, Vec<OptionPoint>)> = (first..first + count)
        .map(|seed| (seed, combos(seed, full, strategies)))
        .collect();
    run_random(&seeds);
}

/// Every kernel under the whole 48-point matrix (the three strategies ×
/// spilling × flattening × budgets): `CONCORD_RANDOM_MATRIX_KERNELS` seeds
/// (default 100) from `CONCORD_RANDOM_MATRIX_SEED` (default 10001, clear
/// of the other tiers' seeds).
#[test]
fn random_kernels_under_the_whole_matrix() {
    let count = env_u64("CONCORD_RANDOM_MATRIX_KERNELS", 100);
    let first = env_u64("CONCORD_RANDOM_MATRIX_SEED", 10_001);
    let seeds: Vec<(u64, Vec<OptionPoint>)> = (first..first + count)
        .map(|seed| (seed, combos(seed, true, &DivergenceStrategy::ALL)))
        .collect();
    run_random(&seeds);
}

/// Seeds that failed in larger runs (up to 3000 seeds per tier, and the
/// full matrix), each with the options it failed under; the reduced
/// kernel is in `predication_regressions.rs` where one was needed.
#[test]
fn previously_failing_seeds() {
    use DivergenceStrategy::{Auto, Predicate};
    use SpillMode::{DivergenceAware, Plain};
    let case = |divergence, spill, flatten_loops, regs| OptionPoint {
        divergence,
        spill,
        flatten_loops,
        regs,
    };
    let seeds = vec![
        // Checker: a value defined only inside a predicated loop, read at
        // an exit, with another live value on the loop's entry path.
        (263, vec![case(Predicate, DivergenceAware, true, 16)]),
        (266, vec![case(Predicate, Plain, true, 8)]),
        (500, vec![case(Predicate, Plain, false, 16)]),
        // Checker: joins settled late in large flattened loops.
        (
            890,
            vec![case(Predicate, Plain, true, 8), case(Auto, Plain, true, 8)],
        ),
        (946, vec![case(Auto, Plain, true, 32)]),
        (
            979,
            vec![
                case(Predicate, DivergenceAware, true, 32),
                case(Auto, DivergenceAware, true, 32),
            ],
        ),
        // A loop with two dead-end exits.
        (231, vec![case(Predicate, DivergenceAware, true, 16)]),
        // A loop's consensual exit at the end of its region.
        (1686, vec![case(Predicate, Plain, true, 16)]),
        (2044, vec![case(Predicate, Plain, false, 6)]),
        (2547, vec![case(Predicate, DivergenceAware, true, 32)]),
        (2686, vec![case(Predicate, Plain, true, 6)]),
        // A per-warp spill slot overwritten by lanes that took an outer
        // loop's back edge while others still waited to reload it.
        (2819, vec![case(Auto, DivergenceAware, false, 32)]),
        // Recursion the depth analysis did not bound (a guarded body
        // starting with a loop, bool and select arguments), or could not
        // bound at all (flattening turns the decrement into a block
        // parameter), overflowing a fixed 1 KiB stack once predication or
        // small budgets grew the frames.
        (34, vec![case(Predicate, DivergenceAware, true, 8)]),
        (
            1078,
            vec![
                case(Predicate, DivergenceAware, true, 8),
                case(Predicate, DivergenceAware, false, 6),
            ],
        ),
        (1478, vec![case(Predicate, DivergenceAware, true, 32)]),
        (1501, vec![case(Auto, Plain, true, 6)]),
        (1622, vec![case(Predicate, Plain, true, 16)]),
        (2446, vec![case(Predicate, Plain, true, 6)]),
        (2583, vec![case(Predicate, Plain, true, 32)]),
        (2668, vec![case(Predicate, Plain, true, 16)]),
    ];
    run_random(&seeds);
}

fn run_random(seeds: &[(u64, Vec<OptionPoint>)]) {
    let count = seeds.len();
    let gen = GenConfig::default();
    // Room for the largest kernels flattening and tiny budgets make.
    let config = CoreConfig {
        lanes: gen.lanes,
        warps: gen.warps,
        imem_words: 16384,
        ..CoreConfig::default()
    };
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(8);
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (gen, config) = (&gen, &config);
                s.spawn(move || {
                    let mut failures = Vec::new();
                    for (seed, combos) in seeds.iter().skip(t).step_by(threads) {
                        let seed = *seed;
                        let k = generate(seed, gen);
                        match oracle(&k, config) {
                            Err(e) => failures.push(format!(
                                "seed {seed} (reproduce with CONCORD_RANDOM_KERNELS=1 CONCORD_RANDOM_SEED={seed} CONCORD_RANDOM_MATRIX=full): {e}"
                            )),
                            Ok(expected) => {
                                for &combo in combos {
                                    if let Err(e) = check_one(&k, config, combo, &expected) {
                                        failures.push(format!(
                                            "seed {seed} ({combo}; reproduce with CONCORD_RANDOM_KERNELS=1 CONCORD_RANDOM_SEED={seed} CONCORD_RANDOM_MATRIX=full): {e}"
                                        ));
                                    }
                                }
                            }
                        }
                    }
                    failures
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("worker panicked"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {count} random kernels failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
