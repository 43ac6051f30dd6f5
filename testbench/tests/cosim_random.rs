//! Random programs (valid by construction, race-free, always terminating)
//! on the RTL in lock-step with the cycle model, each checked against the
//! functional model, over configurations covering lanes 4 and 32 and warps
//! 1 and 8.
//!
//! CI runs `CONCORD_COSIM_PROGRAMS` programs per configuration (default
//! 125, so 500 in all). The large tier is the ignored test
//! `twenty_thousand_programs` (5000 per configuration), run by
//! `scripts/test.sh --full` or
//! `cargo test --release -p concord-testbench --test cosim_random -- --ignored`.
//! A failure names the seed; `concord fuzz-core --seed N --programs 1
//! --config ...` replays it.

mod common;

use concord_isa::config::CoreConfig;
use concord_testbench::cosim;
use concord_testbench::gen::{generate, GenConfig, Program};
use concord_testbench::verilator::{BuildOptions, Rtl};

fn programs_per_config() -> u64 {
    std::env::var("CONCORD_COSIM_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(125)
}

fn run_tier(lanes: u32, warps: u32, count: u64, first_seed: u64) {
    let base = CoreConfig {
        lanes,
        warps,
        ..CoreConfig::default()
    };
    let programs: Vec<Program> = (0..count)
        .map(|i| {
            let seed = first_seed + i;
            let threads = 1 + (seed.wrapping_mul(7919) % u64::from(lanes * warps)) as u32;
            let cfg = GenConfig {
                lanes,
                warps,
                threads,
                blocks: 1 + (seed % 3) as u32,
                size: 40,
                ..GenConfig::default()
            };
            generate(seed, &cfg)
        })
        .collect();
    let config = programs.iter().fold(base, |c, p| p.fit(&c));
    let verilog = concord_hdl::generate_verilog(&config).expect("buildable config");
    let mut rtl = Rtl::build(&verilog, &BuildOptions::default()).expect("verilator build");
    let mut cycles = 0;
    for p in &programs {
        let kernel = p.kernel();
        let launch = common::random_launch(p, &kernel);
        let global = common::random_global(p, &config);
        let outcome = cosim::run(&config, &launch, &global, &mut rtl, 20_000_000, None)
            .unwrap_or_else(|e| panic!("seed {} on {lanes}x{warps}: {e}", p.seed));
        if let Err(t) = outcome.result {
            panic!(
                "seed {} on {lanes}x{warps}: generated program trapped: {t}",
                p.seed
            );
        }
        cycles += outcome.counters.cycles;
    }
    eprintln!("{lanes}x{warps}: {count} programs, {cycles} cycles in lock-step, 0 mismatches");
}

#[test]
fn lanes_4_warps_1() {
    run_tier(4, 1, programs_per_config(), 1_000);
}

#[test]
fn lanes_4_warps_8() {
    run_tier(4, 8, programs_per_config(), 2_000);
}

#[test]
fn lanes_8_warps_2() {
    run_tier(8, 2, programs_per_config(), 3_000);
}

#[test]
fn lanes_32_warps_1() {
    run_tier(32, 1, programs_per_config(), 4_000);
}

#[test]
#[ignore = "large tier: about 20,000 programs; run by scripts/test.sh --full"]
fn twenty_thousand_programs() {
    for (i, (lanes, warps)) in [(4, 1), (4, 8), (8, 2), (32, 1)].into_iter().enumerate() {
        run_tier(lanes, warps, 5_000, 100_000 * (i as u64 + 1));
    }
}
