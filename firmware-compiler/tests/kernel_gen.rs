//! Tests of the random kernel generator (`concord_compiler::kernel_gen`):
//! determinism, robustness over many seeds, the structural guarantees it
//! records (barriers and votes only at uniform points, early returns only
//! after them), launch descriptions the launch parser accepts, and kernels
//! the front end accepts.

use std::path::PathBuf;

use concord_compiler::frontend::diag::{render, Severity};
use concord_compiler::frontend::{lexer, parse, preprocess};
use concord_compiler::kernel_gen::{generate, GenConfig, GeneratedKernel, SyncKind};
use concord_isa::launch::{ArgKind, LaunchDescription};

fn kernels(count: u64, config: &GenConfig) -> impl Iterator<Item = GeneratedKernel> + '_ {
    (0..count).map(move |seed| generate(seed, config))
}

/// Every switch off: the plainest kernels.
fn minimal_config() -> GenConfig {
    GenConfig {
        allow_calls: false,
        allow_recursion: false,
        allow_shared: false,
        allow_atomics: false,
        allow_votes: false,
        allow_narrow: false,
        allow_pointers: false,
        allow_multi_dim: false,
        ..GenConfig::default()
    }
}

#[test]
fn print_one_kernel_when_asked() {
    // `KERNEL_GEN_SEED=5 cargo test --test kernel_gen print -- --nocapture`
    if let Ok(seed) = std::env::var("KERNEL_GEN_SEED") {
        let k = generate(seed.parse().unwrap_or(0), &GenConfig::default());
        println!("{}\n{}", k.source, k.launch_yaml);
    }
}

#[test]
fn same_seed_same_kernel() {
    let config = GenConfig::default();
    for seed in [0, 1, 42, 0xdead_beef, u64::MAX] {
        assert_eq!(
            generate(seed, &config),
            generate(seed, &config),
            "seed {seed}"
        );
    }
    assert_ne!(generate(1, &config).source, generate(2, &config).source);
}

#[test]
fn first_line_names_the_seed() {
    let k = generate(12345, &GenConfig::default());
    let first = k.source.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("//") && first.contains("seed 12345"),
        "{first}"
    );
    assert!(k.launch_yaml.contains("seed 12345"));
    assert_eq!(k.kernel_name, "kgen_12345");
}

/// `(`/`)`, `[`/`]` and `{`/`}` nest properly (there are no strings or
/// character literals in generated code).
fn check_balanced(k: &GeneratedKernel) {
    let mut stack = Vec::new();
    for (i, ch) in k.source.chars().enumerate() {
        match ch {
            '(' | '[' | '{' => stack.push(ch),
            ')' | ']' | '}' => {
                let open = stack.pop();
                let want = match ch {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                assert_eq!(
                    open,
                    Some(want),
                    "seed {}: unbalanced `{ch}` at byte {i}",
                    k.seed
                );
            }
            _ => {}
        }
    }
    assert!(stack.is_empty(), "seed {}: unclosed {stack:?}", k.seed);
}

/// The generator's own record of barriers, votes and early returns agrees
/// with the text and with the rules: every sync in the kernel, at a uniform
/// point, before the tail; every early return after the last sync.
fn check_sync_bookkeeping(k: &GeneratedKernel) {
    let lines: Vec<&str> = k.source.lines().collect();
    let line = |n: u32| lines.get(n as usize - 1).copied().unwrap_or_default();
    let kernel_start = lines
        .iter()
        .position(|l| l.starts_with("__global__"))
        .expect("a kernel") as u32
        + 1;
    for s in &k.sync_points {
        let text = line(s.line);
        match s.kind {
            SyncKind::Barrier => assert_eq!(text.trim(), "__syncthreads();", "seed {}", k.seed),
            SyncKind::Vote => assert!(
                text.contains("_sync(0xffffffff, "),
                "seed {}: {text}",
                k.seed
            ),
        }
        assert!(
            s.in_kernel && s.line > kernel_start,
            "seed {}: {s:?}",
            k.seed
        );
        assert!(
            s.uniform,
            "seed {}: sync at a divergent point: {s:?}",
            k.seed
        );
        assert!(s.before_tail, "seed {}: sync in the tail: {s:?}", k.seed);
    }
    let barriers = k.source.matches("__syncthreads()").count();
    let recorded = k
        .sync_points
        .iter()
        .filter(|s| s.kind == SyncKind::Barrier)
        .count();
    assert_eq!(barriers, recorded, "seed {}: unrecorded barrier", k.seed);
    let votes = ["__any_sync(", "__all_sync(", "__ballot_sync("]
        .iter()
        .map(|v| k.source.matches(v).count())
        .sum::<usize>();
    let recorded = k
        .sync_points
        .iter()
        .filter(|s| s.kind == SyncKind::Vote)
        .count();
    assert_eq!(votes, recorded, "seed {}: unrecorded vote", k.seed);

    let last_sync = k.sync_points.iter().map(|s| s.line).max().unwrap_or(0);
    for &r in &k.early_returns {
        assert!(
            r > kernel_start && r > last_sync,
            "seed {}: return at {r}",
            k.seed
        );
        assert!(line(r).trim() == "return;", "seed {}: {}", k.seed, line(r));
    }
    let kernel_returns = lines
        .iter()
        .skip(kernel_start as usize)
        .filter(|l| l.trim() == "return;")
        .count();
    assert_eq!(kernel_returns, k.early_returns.len(), "seed {}", k.seed);
}

fn check_shape(k: &GeneratedKernel, config: &GenConfig) {
    let threads: u32 = k.block.iter().product();
    assert!(
        threads >= 1 && threads <= config.lanes * config.warps,
        "seed {}: {:?}",
        k.seed,
        k.block
    );
    let blocks: u32 = k.grid.iter().product();
    assert!((1..=3).contains(&blocks), "seed {}: {:?}", k.seed, k.grid);
}

#[test]
fn a_thousand_seeds_generate_and_hold_their_guarantees() {
    let config = GenConfig::default();
    let mut lines = 0;
    let mut partial_warps = 0;
    for k in kernels(1000, &config) {
        check_balanced(&k);
        check_sync_bookkeeping(&k);
        check_shape(&k, &config);
        lines += k.source.lines().count();
        if k.block.iter().product::<u32>() % config.lanes != 0 {
            partial_warps += 1;
        }
    }
    let average = lines / 1000;
    assert!((20..=200).contains(&average), "average {average} lines");
    assert!(
        partial_warps > 100,
        "only {partial_warps} partial last warps"
    );
}

#[test]
fn the_features_show_up_across_seeds() {
    let config = GenConfig::default();
    let all: String = kernels(200, &config).map(|k| k.source).collect();
    for feature in [
        "__syncthreads();",
        "__ballot_sync(",
        "__any_sync(",
        "__all_sync(",
        "atomicAdd(",
        "atomicMin(",
        "atomicMax(",
        "atomicAnd(",
        "atomicOr(",
        "atomicXor(",
        "atomicExch(",
        "__shared__",
        "__device__",
        "rec",
        "d - 1",
        "break;",
        "continue;",
        "return;",
        "while (",
        "do {",
        " ? ",
        "++ > ",
        "signed char",
        "unsigned short",
        "(short)",
        "threadIdx.y",
        "blockIdx.x",
        "gridDim.x",
        "&&",
        "||",
        " % ",
        " / ",
        "#define",
        "*(",
    ] {
        assert!(all.contains(feature), "no `{feature}` in 200 kernels");
    }
}

#[test]
fn switched_off_features_stay_off() {
    let config = minimal_config();
    for k in kernels(200, &config) {
        for absent in [
            "__syncthreads",
            "_sync(",
            "atomic",
            "__shared__",
            "__device__",
            "char",
            "short",
            " *p",
        ] {
            assert!(
                !k.source.contains(absent),
                "seed {}: `{absent}`:\n{}",
                k.seed,
                k.source
            );
        }
        assert_eq!(k.block[1] * k.block[2], 1, "seed {}", k.seed);
        assert!(k.sync_points.is_empty());
        check_balanced(&k);
    }
}

#[test]
fn blocks_fit_small_cores_and_leave_partial_warps() {
    let config = GenConfig {
        lanes: 4,
        warps: 1,
        core_config: Some("configs/small.yaml".into()),
        ..GenConfig::default()
    };
    for k in kernels(200, &config) {
        check_shape(&k, &config);
        check_sync_bookkeeping(&k);
        assert!(k.launch_yaml.contains("config: configs/small.yaml"));
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("concord-kernel-gen-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn launch_yaml_parses_to_the_same_launch() {
    let dir = temp_dir("launch");
    std::fs::write(dir.join("kernel.cu"), "// placeholder\n").expect("write");
    for k in kernels(100, &GenConfig::default()) {
        let file = dir.join("launch.yaml");
        let parsed = LaunchDescription::from_yaml(&k.launch_yaml, &file)
            .unwrap_or_else(|e| panic!("seed {}: {e}\n{}", k.seed, k.launch_yaml));
        assert_eq!(parsed, k.launch_description(&dir), "seed {}", k.seed);
        let out = k.args.iter().find(|a| a.name == "out").expect("out");
        let threads: u32 = k.block.iter().product::<u32>() * k.grid.iter().product::<u32>();
        match &out.kind {
            ArgKind::Buffer { len, .. } => assert!(*len == threads * 4 || *len == threads * 8),
            ArgKind::Scalar { .. } => panic!("out is a buffer"),
        }
        assert_eq!(k.outputs.first().map(String::as_str), Some("out"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Lexes, preprocesses and parses; returns the rendered errors.
fn parse_errors(k: &GeneratedKernel) -> Option<String> {
    let mut diags = Vec::new();
    let tokens = lexer::lex(&k.source, &mut diags);
    let tokens = preprocess::preprocess(tokens, &mut diags);
    let _unit = parse::parse(tokens, &mut diags);
    let errors: Vec<_> = diags
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    (!errors.is_empty()).then(|| render(&errors, &k.source, "kernel.cu"))
}

#[test]
fn three_hundred_kernels_parse() {
    for config in [GenConfig::default(), minimal_config()] {
        for k in kernels(300, &config) {
            if let Some(errors) = parse_errors(&k) {
                panic!(
                    "seed {}: the front end rejects the kernel:\n{errors}\n{}",
                    k.seed, k.source
                );
            }
        }
    }
}

#[test]
fn three_hundred_kernels_pass_the_front_end() {
    let options = concord_compiler::frontend::FrontendOptions::default();
    let mut failures = Vec::new();
    for config in [GenConfig::default(), minimal_config()] {
        for k in kernels(300, &config) {
            if let Err(diags) =
                concord_compiler::frontend::compile_source(&k.source, "kernel.cu", &options)
            {
                let errors: Vec<_> = diags
                    .into_iter()
                    .filter(|d| d.severity == Severity::Error)
                    .collect();
                failures.push(format!(
                    "seed {}:\n{}",
                    k.seed,
                    render(&errors, &k.source, "kernel.cu")
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} kernels rejected:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Compiles with the front end and runs on the reference IR interpreter:
/// every kernel finishes (no step limit, no fault, no barrier or vote
/// error). Returns the instructions executed.
fn run_on_interpreter(k: &GeneratedKernel) -> Result<u64, String> {
    use concord_compiler::interp::{run, InterpLaunch, InterpOptions};
    use concord_isa::config::CoreConfig;

    let options = concord_compiler::frontend::FrontendOptions::default();
    let (module, _) = concord_compiler::frontend::compile_source(&k.source, "kernel.cu", &options)
        .map_err(|d| render(&d, &k.source, "kernel.cu"))?;
    let kernel = module.kernels().next().ok_or("no kernel")?;
    let config = CoreConfig::default();
    let prepared = k.prepare_without_code(&config)?;
    let launch = InterpLaunch::new(&prepared, &config);
    let mut global = prepared.global.clone();
    let limits = InterpOptions {
        max_steps: 20_000_000,
        max_call_depth: 15,
    };
    let stats = run(&module, kernel, &launch, &mut global, &limits).map_err(|e| e.to_string())?;
    Ok(stats.instructions)
}

#[test]
fn kernels_run_to_completion_on_the_interpreter() {
    let mut failures = Vec::new();
    let mut most = (0, 0);
    let count = std::env::var("KERNEL_GEN_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(150);
    for k in kernels(count, &GenConfig::default()) {
        match run_on_interpreter(&k) {
            Ok(steps) => most = most.max((steps, k.seed)),
            Err(e) => failures.push(format!("seed {}: {e}", k.seed)),
        }
    }
    eprintln!("most instructions: {} (seed {})", most.0, most.1);
    assert!(
        failures.is_empty(),
        "{} kernels failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
