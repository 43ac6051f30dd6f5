//! Kernels that the random-kernel tier found miscompiled under
//! `--divergence predicate`, reduced by hand. Each is compiled from CUDA-C
//! under every strategy, run on the functional model, and compared with a
//! plain Rust computation of the same kernel and with the IR interpreter.
//! (The failing random kernels themselves are replayed, with the options
//! that failed, by `random_kernels::previously_failing_seeds`.)

mod backend_common;

use backend_common::{run_interp, run_machine, words, Setup, GLOBAL};
use concord_compiler::backend::DivergenceStrategy;
use concord_compiler::driver::{self, CompileOptions};
use concord_compiler::frontend::{self, FrontendOptions};
use concord_isa::config::CoreConfig;

const STRATEGIES: [DivergenceStrategy; 3] = [
    DivergenceStrategy::Branch,
    DivergenceStrategy::Predicate,
    DivergenceStrategy::Auto,
];

/// Compiles `source` at every strategy and budget in `budgets`, runs
/// `setup`, and checks `expected.len()` words at `addr`.
fn check(source: &str, setup: &Setup, budgets: &[u32], addr: u32, expected: &[u32]) {
    let config = CoreConfig {
        lanes: setup.lanes,
        warps: setup.warps,
        predicates: setup.preds,
        global_memory_bytes: GLOBAL,
        ..CoreConfig::default()
    };
    let (module, _) = frontend::compile_source(source, "k.cu", &FrontendOptions::for_core(&config))
        .unwrap_or_else(|d| panic!("{}", frontend::render(&d, source, "k.cu")));
    let reference = run_interp(&module, "k", setup);
    assert_eq!(
        words(&reference, addr, expected.len()),
        expected,
        "interpreter disagrees with the host computation"
    );
    for divergence in STRATEGIES {
        for &regs in budgets {
            let mut options = CompileOptions {
                regs: Some(regs),
                divergence,
                ..CompileOptions::for_core(&config)
            };
            // Device functions stay calls: predication treats them apart.
            options.opt.inline_threshold = 0;
            let compiled = driver::compile(source, "k.cu", &options)
                .unwrap_or_else(|e| panic!("--divergence {divergence} --regs {regs}: {e}"));
            let c = &compiled.kernel(Some("k")).unwrap().compiled;
            let g = run_machine(c, setup);
            assert_eq!(
                words(&g, addr, expected.len()),
                expected,
                "--divergence {divergence} --regs {regs}\n{}",
                c.listing
            );
        }
    }
}

/// A loop inside a divergent `if` that is the last thing in its region,
/// with the other arm of an enclosing uniform branch laid out after it:
/// the loop's consensual exit must go to the region's join, not to the
/// block that follows in the layout (which is the `else` arm here, and
/// stored 7 for every lane).
#[test]
fn loop_exit_at_the_end_of_a_region_goes_to_the_join() {
    let source = r#"
__global__ void k(unsigned *in, int *out) {
    int tid = threadIdx.x;
    if (gridDim.x > 1u) {
        if (tid > in[tid & 31]) {
            for (int i = 0; i < 4; i++) {
            }
        }
    } else {
        out[tid] = 7;
    }
}
"#;
    let input: Vec<u32> = (0..8).map(|i| (i * 5) % 7).collect();
    let setup = Setup {
        grid: [2, 1, 1],
        params: vec![0x100, 0x400],
        init: vec![(0x100, input), (0x400, vec![1; 8])],
        ..Setup::default()
    };
    // Two blocks: the uniform `else` arm never runs.
    check(source, &setup, &[32, 6], 0x400, &[1; 8]);
}
