//! The Core v2 cycle model's ports and generator options
//! (docs/microarchitecture-v2.md §14.3, §15.1, §15.2, §17.2): counters
//! that wrap at `counter_bits`, the host slave, the trace port, the
//! testbench memory's bus errors. Goldens are worked out by hand from the
//! document, or are the same model's 64-bit run reduced by the width rule
//! of §15.1 (the rule, not the code, decides the expected value).

use concord_isa::config::CoreConfig;
use concord_isa::func;
use concord_testbench::pipeline::{self, Outcome, PipelineLaunch, PipelineOptions, V2Counter};
use concord_uarch::GenOptions;

fn assemble(src: &str) -> concord_isa::container::Kernel {
    concord_isa::asm::assemble(src, "t.s").unwrap_or_else(|e| panic!("{e}"))
}

fn run_with(config: &CoreConfig, src: &str, threads: u32, gen: GenOptions) -> Outcome {
    let kernel = assemble(src);
    let launch = PipelineLaunch {
        launch: func::Launch {
            code: &kernel.code,
            entry_pc: kernel.entries[0].pc,
            grid: [1, 1, 1],
            block: [threads, 1, 1],
            params: &[],
            stack_bytes: 0,
        },
        shared_bytes: 0,
        regs_used: 0,
    };
    let mut global = vec![0; config.global_memory_bytes as usize];
    let o = pipeline::run(
        config,
        &launch,
        &mut global,
        PipelineOptions {
            watchdog: 1 << 30,
            check_bus: true,
            gen,
        },
    )
    .unwrap();
    o.result.as_ref().unwrap_or_else(|t| panic!("trap: {t}"));
    o
}

/// A loop of 3000 iterations on 8 full warps: `issued` and the per-cycle
/// warp counters pass 2^16.
const LOOP: &str = "
        movi r3, 0
        movi r4, 3000
loop:   add r3, r3, 1
        setp.lt p1, r3, r4
        @p1 bra loop
        exit
";

/// §15.1: every counter is `counter_bits` wide and wraps; `cycles` is
/// always 64 bits. A 16-bit core reads every counter of the 64-bit core
/// modulo 2^16, and the same `cycles`.
#[test]
fn counters_wrap_at_counter_bits_and_cycles_does_not() {
    let config = CoreConfig::default();
    let wide = run_with(&config, LOOP, 64, GenOptions::sim());
    let narrow = run_with(
        &config,
        LOOP,
        64,
        GenOptions {
            counter_bits: 16,
            ..GenOptions::sim()
        },
    );
    let mut wrapped = 0;
    for c in V2Counter::ALL {
        let (w, n) = (wide.counters.get(c), narrow.counters.get(c));
        if c == V2Counter::Cycles {
            assert_eq!(n, w, "cycles");
        } else {
            assert_eq!(n, w % (1 << 16), "{}", c.name());
        }
        wrapped += (n != w) as u32;
    }
    // The loop is long enough that some counters did wrap (else the test
    // would show nothing).
    assert!(
        wide.counters.get(V2Counter::Issued) > 1 << 16,
        "issued {}",
        wide.counters.get(V2Counter::Issued)
    );
    assert!(wrapped >= 1);
    assert!(wide.counters.get(V2Counter::Cycles) < 1 << 16 || wrapped >= 2);
}

/// A generator option out of range is refused before the run, naming it.
#[test]
fn an_out_of_range_counter_bits_is_refused() {
    let config = CoreConfig::default();
    let kernel = assemble("exit\n");
    let launch = PipelineLaunch {
        launch: func::Launch {
            code: &kernel.code,
            entry_pc: 0,
            grid: [1, 1, 1],
            block: [1, 1, 1],
            params: &[],
            stack_bytes: 0,
        },
        shared_bytes: 0,
        regs_used: 0,
    };
    let mut global = vec![0; 64];
    let e = pipeline::run(
        &config,
        &launch,
        &mut global,
        PipelineOptions {
            watchdog: 100,
            check_bus: true,
            gen: GenOptions {
                counter_bits: 8,
                ..GenOptions::board()
            },
        },
    )
    .expect_err("refused");
    assert!(e.contains("`counter_bits`"), "{e}");
}
