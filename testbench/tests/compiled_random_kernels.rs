//! Compiled random kernels (`kernel_gen`) on the RTL: each seed is compiled
//! under one point of the full option matrix (`--divergence` ×
//! `--spill` × `--flatten-loops` × register budgets that force spills,
//! 48 points, cycling with the seed), run on the RTL in lock-step with the
//! cycle model (trace ports compared every cycle, final memory checked
//! against the functional model), and the RTL's buffers are compared with
//! the front end's IR run on the reference interpreter.
//!
//! CI runs `CONCORD_RTL_RANDOM_KERNELS` kernels (default 96: the matrix
//! twice, about 3 minutes); `CONCORD_RTL_RANDOM_SEED` sets the first seed
//! (default 1). The large tier, the ignored test
//! `thousand_compiled_random_kernels_on_the_rtl`, runs seeds 1 to 1000
//! (`scripts/test.sh --full`). The functional-model tiers
//! (`concord-compiler`'s `random_kernels`) run 1000 kernels per CI run in
//! each strategy group.

use concord_compiler::backend::DivergenceStrategy;
use concord_compiler::driver::{self, CompileOptions, OptionPoint};
use concord_compiler::kernel_gen::{generate, GenConfig};
use concord_isa::config::CoreConfig;
use concord_kernels::harness::{buffer_region, func_launch};
use concord_testbench::cosim;
use concord_testbench::verilator::{BuildOptions, Rtl};

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn compiled_random_kernels_match_the_interpreter_on_the_rtl() {
    run_tier(
        env_u64("CONCORD_RTL_RANDOM_SEED", 1),
        env_u64("CONCORD_RTL_RANDOM_KERNELS", 96),
    );
}

#[test]
#[ignore = "large tier: 1000 kernels, about 30 minutes; run by scripts/test.sh --full"]
fn thousand_compiled_random_kernels_on_the_rtl() {
    run_tier(1, 1000);
}

fn run_tier(first: u64, count: u64) {
    let gen = GenConfig::default();
    // Room for the largest kernels flattening and tiny budgets make.
    let config = CoreConfig {
        lanes: gen.lanes,
        warps: gen.warps,
        imem_words: 16384,
        ..CoreConfig::default()
    };
    let verilog = concord_hdl::generate_verilog(&config).expect("the core generates");
    let mut rtl = Rtl::build(&verilog, &BuildOptions::default()).expect("verilator build");
    let mut failures = Vec::new();
    let mut cycles = 0u64;
    for seed in first..first + count {
        let k = generate(seed, &gen);
        let point = OptionPoint::nth(seed, &DivergenceStrategy::ALL);
        let mut run = || -> Result<u64, String> {
            let (_, reference) = k.interpret(&config)?;
            let file = format!("kgen_{seed}.cu");
            let options = point.apply(&CompileOptions::for_core(&config));
            let compiled =
                driver::compile(&k.source, &file, &options).map_err(|e| e.to_string())?;
            let out = compiled.kernel(Some(&k.kernel_name))?;
            let prepared = k
                .launch_description(&std::env::temp_dir())
                .prepare(&out.compiled.kernel, &config)
                .map_err(|e| e.to_string())?;
            let launch = func_launch(&out.compiled.kernel, &prepared);
            // Atomics return interleaving-dependent old values, so the
            // functional model checks memory only.
            let o = cosim::run_with(
                &config,
                &launch,
                &prepared.global,
                &mut rtl,
                prepared.watchdog,
                None,
                cosim::Oracle::MemoryOnly,
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
        };
        match run() {
            Ok(c) => cycles += c,
            Err(e) => failures.push(format!("seed {seed} ({point}): {e}")),
        }
    }
    eprintln!("{count} compiled random kernels, {cycles} cycles in lock-step on the RTL");
    assert!(
        failures.is_empty(),
        "{} of {count} compiled random kernels failed on the RTL:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
