//! The suite's own tests: every launch description loads and prepares,
//! every check passes on its reference's output and fails on wrong
//! memory, and hand-computed golden values hold. (The compiler is not
//! involved: launches are prepared against a stub kernel with the same
//! parameter names.)

use std::collections::HashSet;
use std::path::Path;

use concord_isa::container::Kernel;
use concord_isa::launch::{ArgKind, LaunchDescription, PreparedLaunch};
use concord_kernels::{find, kernels_dir, suite, CheckInput, SuiteKernel};

/// Per-thread stack the stub kernel claims, so buffer placement is
/// checked with room for a compiled kernel's stack frames.
const STUB_STACK_BYTES: u32 = 512;

/// A one-instruction kernel with the description's parameter names.
fn stub_kernel(desc: &LaunchDescription) -> Kernel {
    let mut text = String::new();
    for arg in &desc.args {
        text.push_str(&format!(".param {}\n", arg.name));
    }
    text.push_str(&format!(
        ".stack {STUB_STACK_BYTES}\n.entry stub\n        exit\n"
    ));
    concord_isa::asm::assemble(&text, "stub.s").expect("stub kernel assembles")
}

fn prepare(path: &Path) -> PreparedLaunch {
    let desc = LaunchDescription::load(path).unwrap_or_else(|e| panic!("{e}"));
    let config = desc.load_config().unwrap_or_else(|e| panic!("{e}"));
    desc.prepare(&stub_kernel(&desc), &config)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn launches() -> Vec<(&'static SuiteKernel, std::path::PathBuf)> {
    suite()
        .iter()
        .flat_map(|k| k.launches.iter().map(move |l| (k, kernels_dir().join(l))))
        .collect()
}

fn run_check(
    kernel: &SuiteKernel,
    launch: &PreparedLaunch,
    final_memory: &[u8],
) -> Result<(), String> {
    (kernel.check)(&CheckInput {
        launch,
        initial: &launch.global,
        final_memory,
    })
}

fn reference_image(kernel: &SuiteKernel, launch: &PreparedLaunch) -> Vec<u8> {
    let mut memory = launch.global.clone();
    (kernel.reference)(launch, &mut memory)
        .unwrap_or_else(|e| panic!("{}: reference: {e}", kernel.name));
    memory
}

fn output_values(launch: &PreparedLaunch, memory: &[u8], name: &str) -> Vec<i64> {
    launch
        .read_outputs(memory)
        .into_iter()
        .find(|(n, _, _)| n == name)
        .unwrap_or_else(|| panic!("no output `{name}`"))
        .2
}

#[test]
fn table_is_consistent() {
    let mut names = HashSet::new();
    for kernel in suite() {
        assert!(
            names.insert(kernel.name),
            "duplicate kernel {}",
            kernel.name
        );
        assert!(
            kernels_dir().join(kernel.source).is_file(),
            "{}: no source {}",
            kernel.name,
            kernel.source
        );
        assert!(
            kernel.launches.len() >= 2,
            "{}: fewer than two launches",
            kernel.name
        );
        assert!(!kernel.patterns.is_empty());
        for launch in kernel.launches {
            let desc = LaunchDescription::load(&kernels_dir().join(launch))
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                desc.program.canonicalize().unwrap(),
                kernels_dir().join(kernel.source).canonicalize().unwrap(),
                "{launch}: program is not {}",
                kernel.source
            );
            assert!(!desc.outputs.is_empty(), "{launch}: no outputs");
        }
    }
    for wanted in [
        "vecadd",
        "saxpy",
        "reduce",
        "scan",
        "histogram",
        "matmul",
        "bitonic",
        "nqueens",
        "nqueens_stack",
        "bfs",
        "pathfinder",
        "nw",
        "mandelbrot",
        "spmv",
        "avgsquare",
        "sumtriangle",
        "workqueue",
    ] {
        assert!(find(wanted).is_some(), "kernel {wanted} missing");
    }
}

#[test]
fn every_yaml_in_suite_is_listed() {
    let listed: HashSet<String> = launches()
        .iter()
        .map(|(_, p)| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for entry in std::fs::read_dir(kernels_dir().join("suite")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".yaml") {
            assert!(listed.contains(&name), "suite/{name} belongs to no kernel");
        }
    }
}

#[test]
fn configs_vary_across_the_suite() {
    let mut seen = HashSet::new();
    for (_, path) in launches() {
        let desc = LaunchDescription::load(&path).unwrap();
        let config = desc.load_config().unwrap();
        seen.insert((config.lanes, config.warps));
    }
    for shape in [(4, 1), (8, 8), (32, 8)] {
        assert!(seen.contains(&shape), "no launch on a {shape:?} core");
    }
}

#[test]
fn every_launch_prepares_and_its_reference_passes() {
    for (kernel, path) in launches() {
        let launch = prepare(&path);
        let expected = reference_image(kernel, &launch);
        run_check(kernel, &launch, &expected).unwrap_or_else(|e| {
            panic!("{}: check rejects its own reference:\n{e}", path.display())
        });
    }
}

#[test]
fn checks_fail_on_untouched_memory() {
    for (kernel, path) in launches() {
        let launch = prepare(&path);
        let err = run_check(kernel, &launch, &launch.global)
            .err()
            .unwrap_or_else(|| panic!("{}: check passes on the initial memory", path.display()));
        assert!(err.contains("expected"), "{err}");
    }
}

#[test]
fn checks_fail_on_any_single_wrong_output_element() {
    for (kernel, path) in launches() {
        let launch = prepare(&path);
        let expected = reference_image(kernel, &launch);
        for name in &launch.outputs {
            let buffer = launch.buffer(name).unwrap();
            let size = buffer.elem.bytes() as usize;
            // First, middle and last element of each output.
            for index in [0, buffer.len as usize / 2, buffer.len as usize - 1] {
                let mut wrong = expected.clone();
                let at = buffer.addr as usize + index * size;
                wrong[at] ^= 1;
                let err = run_check(kernel, &launch, &wrong).err().unwrap_or_else(|| {
                    panic!(
                        "{}: check misses a change to {name}[{index}]",
                        path.display()
                    )
                });
                assert!(err.contains(&format!("{name}[{index}]")), "{err}");
            }
        }
    }
}

#[test]
fn checks_fail_on_a_clobbered_input() {
    for (kernel, path) in launches() {
        let launch = prepare(&path);
        let expected = reference_image(kernel, &launch);
        let input = launch
            .buffers
            .iter()
            .find(|b| !launch.outputs.contains(&b.name) && b.len > 0)
            .or_else(|| launch.buffers.first())
            .unwrap();
        let mut wrong = expected.clone();
        wrong[input.addr as usize] ^= 0x40;
        assert!(
            run_check(kernel, &launch, &wrong).is_err(),
            "{}: check misses a store into `{}`",
            path.display(),
            input.name
        );
    }
}

#[test]
fn failure_report_lists_a_bounded_number_of_mismatches() {
    let kernel = find("vecadd").unwrap();
    let launch = prepare(&kernels_dir().join("suite/vecadd.yaml"));
    let err = run_check(kernel, &launch, &launch.global).unwrap_err();
    assert!(err.starts_with("300 element(s) differ"), "{err}");
    assert_eq!(
        err.lines().filter(|l| l.starts_with("  c[")).count(),
        concord_kernels::MAX_REPORTED_MISMATCHES
    );
    assert!(err.ends_with("... and 292 more"), "{err}");
}

// ---- Golden values, computed by hand or known independently ----

fn reference_output(kernel: &str, launch: &str, output: &str) -> Vec<i64> {
    let kernel = find(kernel).unwrap();
    let launch = prepare(&kernels_dir().join(launch));
    let memory = reference_image(kernel, &launch);
    output_values(&launch, &memory, output)
}

#[test]
fn golden_nqueens_totals() {
    // The numbers of n-queens solutions: 10 (n = 5), 4 (6), 40 (7), 92 (8).
    assert_eq!(
        reference_output("nqueens", "suite/nqueens-small.yaml", "total"),
        [10]
    );
    assert_eq!(
        reference_output("nqueens", "suite/nqueens.yaml", "total"),
        [4]
    );
    assert_eq!(
        reference_output("nqueens", "suite/nqueens-8.yaml", "total"),
        [92]
    );
    assert_eq!(
        reference_output("nqueens_stack", "suite/nqueens_stack.yaml", "total"),
        [40]
    );
    // 6-queens: the solutions start (row 0, row 1) = (1, 3), (2, 5), (3, 0), (4, 2).
    let counts = reference_output("nqueens", "suite/nqueens.yaml", "counts");
    let nonzero: Vec<usize> = (0..36).filter(|&p| counts[p] != 0).collect();
    assert_eq!(nonzero, [6 + 3, 12 + 5, 18, 24 + 2]);
}

#[test]
fn golden_scan_small() {
    // in = 1..=30 in blocks of 4: block b's prefix sums restart at 4b+1.
    let out = reference_output("scan", "suite/scan-small.yaml", "out");
    assert_eq!(&out[..8], &[1, 3, 6, 10, 5, 11, 18, 26]);
    assert_eq!(&out[28..], &[29, 59]);
    let sums = reference_output("scan", "suite/scan-small.yaml", "block_sums");
    assert_eq!(sums, [10, 26, 42, 58, 74, 90, 106, 59]);
}

#[test]
fn golden_reduce_odd() {
    // -300 + ... + 476 = 777 * 88.
    assert_eq!(
        reference_output("reduce", "suite/reduce-odd.yaml", "total"),
        [68376]
    );
    // Block 0 owns i mod 144 in 0..48: i = 0..48, 144..192, ..., 720..768.
    let partial = reference_output("reduce", "suite/reduce-odd.yaml", "partial");
    let block0: i64 = (0..777).filter(|i| i % 144 < 48).map(|i| i - 300).sum();
    assert_eq!(partial[0], block0);
    assert_eq!(partial.iter().sum::<i64>(), 68376);
}

#[test]
fn golden_reduce_small() {
    // -17 + ... + 19 = 37 * 1.
    assert_eq!(
        reference_output("reduce", "suite/reduce-small.yaml", "total"),
        [37]
    );
    // Block b owns i mod 9 in 3b..3b+3. Block 0: i = 0..3, 9..12, 18..21,
    // 27..30 and 36, values -17-16-15 -8-7-6 +1+2+3 +10+11+12 +19 = -11;
    // block 1: -14-13-12 -5-4-3 +4+5+6 +13+14+15 = 6; block 2 the rest, 42.
    let partial = reference_output("reduce", "suite/reduce-small.yaml", "partial");
    assert_eq!(partial, [-11, 6, 42]);
}

#[test]
fn golden_bitonic_small() {
    let data = reference_output("bitonic", "suite/bitonic-small.yaml", "data");
    assert_eq!(data, (0..37).collect::<Vec<i64>>());
}

#[test]
fn golden_sumtriangle_and_avgsquare_small() {
    let launch = prepare(&kernels_dir().join("suite/sumtriangle-small.yaml"));
    let m = output_values_all(&launch, "m");
    let v = reference_output("sumtriangle", "suite/sumtriangle-small.yaml", "v");
    // Column 0 has no odd row on or above the diagonal; column 3 has rows 1 and 3.
    assert_eq!(v[0], 0);
    assert_eq!(v[3], m[10 + 3] + m[30 + 3]);
    assert_eq!(v[9], m[19] + m[39] + m[59] + m[79] + m[99]);
    let a = reference_output("avgsquare", "suite/avgsquare-small.yaml", "v");
    let column7: i64 = (0..10).map(|r| m[r * 10 + 7]).sum();
    assert_eq!(a[7], column7 / 10);
}

fn output_values_all(launch: &PreparedLaunch, name: &str) -> Vec<i64> {
    let buffer = launch.buffer(name).unwrap();
    let size = buffer.elem.bytes() as usize;
    (0..buffer.len as usize)
        .map(|i| {
            buffer
                .elem
                .decode(&launch.global[buffer.addr as usize + i * size..])
                .unwrap()
        })
        .collect()
}

#[test]
fn golden_nw_small_corner_cells() {
    let out = reference_output("nw", "suite/nw-small.yaml", "score");
    // Row 0 and column 0 are gap multiples (gap 2, width 10).
    assert_eq!(&out[..4], &[0, -2, -4, -6]);
    assert_eq!(out[10], -2);
    // a[0] = b[0] = 0: a match, 0 + 5.
    assert_eq!(out[11], 5);
    // (1, 2): a[0] = 0 vs b[1] = 2 mismatches; best is left: 5 - 2 = 3.
    assert_eq!(out[12], 3);
}

#[test]
fn golden_mandelbrot_points() {
    let iters = reference_output("mandelbrot", "suite/mandelbrot-small.yaml", "iters");
    // Pixel (0, 0) is c = (-2, -0.98): |z1|^2 = 4 + 0.96 > 4 after one step.
    assert_eq!(iters[0], 1);
    // Pixel (9, 4): c = (-8192 + 8100, -4000 + 3600) / 4096 = (-0.02, -0.1), inside.
    assert_eq!(iters[4 * 11 + 9], 30);
}

#[test]
fn golden_bfs_small_source_is_level_zero() {
    let launch = prepare(&kernels_dir().join("suite/bfs-small.yaml"));
    let dist = reference_output("bfs", "suite/bfs-small.yaml", "dist");
    let ArgKind::Scalar { value: source, .. } = launch_desc("suite/bfs-small.yaml").args[6].kind
    else {
        panic!("source is a scalar")
    };
    assert_eq!(dist[source as usize], 0);
    // Nodes 21..24 (the last eighth) only point at each other: unreachable.
    assert!(dist[21..].iter().all(|&d| d == -1));
    assert!(dist.iter().any(|&d| d >= 3));
    assert_eq!(
        output_values(
            &launch,
            &reference_image(find("bfs").unwrap(), &launch),
            "dist"
        ),
        dist
    );
}

fn launch_desc(path: &str) -> LaunchDescription {
    LaunchDescription::load(&kernels_dir().join(path)).unwrap()
}

#[test]
fn golden_workqueue_useful_counts() {
    // k = 0: every lane processes all of its inner elements.
    let launch = prepare(&kernels_dir().join("suite/workqueue-small.yaml"));
    let items = output_values_all(&launch, "items");
    let useful = reference_output("workqueue", "suite/workqueue-small.yaml", "useful");
    for tid in 0..12 {
        assert_eq!(useful[tid], items[tid * 5..tid * 5 + 5].iter().sum::<i64>());
    }
    // k = 31 of 32: exactly one lane per warp works in each of 4 outer
    // iterations, 10 elements each: 4 * 10 * (256 / 32) in all.
    let wide = reference_output("workqueue", "suite/workqueue-wide.yaml", "useful");
    assert_eq!(wide.iter().sum::<i64>(), 320);
}

#[test]
fn golden_collatz_vote_small() {
    // Known Collatz step counts; 837799 takes 524 > 500 steps.
    let steps = reference_output("collatz_vote", "suite/collatz_vote-small.yaml", "steps");
    assert_eq!(&steps[..9], &[0, 1, 7, 111, 118, 178, 261, 350, -1]);
    assert_eq!(&steps[9..14], &[4, 10, 16, 19, 0]);
    assert_eq!(steps[14], -1);
}
