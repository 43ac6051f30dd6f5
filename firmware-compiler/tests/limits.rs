//! The compiler on long and deep input: flat chains of ten thousand terms
//! compile and compute the values worked out by hand on the functional
//! model; nesting up to the parser's cap goes through every pass (in a test
//! thread's small stack) under each control-flow strategy; beyond a
//! documented limit (nesting, type derivations, macro expansion) the
//! result is exactly one error at the place, naming the limit. The large
//! sources are generated here.

use concord_compiler::backend::DivergenceStrategy;
use concord_compiler::driver::{compile, CompileError, CompileOptions};
use concord_compiler::frontend::Severity;
use concord_isa::config::CoreConfig;
use concord_isa::container::Kernel;
use concord_isa::func;

/// The default core with the largest instruction memory: the chains below
/// make tens of thousands of instructions.
fn core() -> CoreConfig {
    CoreConfig {
        imem_words: 65536,
        ..CoreConfig::default()
    }
}

fn options(divergence: DivergenceStrategy) -> CompileOptions {
    CompileOptions {
        divergence,
        ..CompileOptions::for_core(&core())
    }
}

/// Where the kernels' `int *o` points.
const OUT: u32 = 0x100;

/// Compiles `body` as the body of `__global__ void k(int *o, int x)`
/// (after `prelude`), runs one thread with `x` on the functional model and
/// returns `o[0..n]`.
fn run(prelude: &str, body: &str, x: i32, n: usize) -> Vec<i32> {
    exec(&build(prelude, body, DivergenceStrategy::Branch), x, n)
}

fn build(prelude: &str, body: &str, divergence: DivergenceStrategy) -> Kernel {
    let src = format!("{prelude}__global__ void k(int *o, int x) {{\n{body}\n}}\n");
    let compiled = match compile(&src, "long.cu", &options(divergence)) {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    };
    compiled.kernel(Some("k")).unwrap().compiled.kernel.clone()
}

/// Runs one thread of `kernel` with `x`; returns `o[0..n]`.
fn exec(kernel: &Kernel, x: i32, n: usize) -> Vec<i32> {
    let config = core();
    let mut global = vec![0u8; config.global_memory_bytes as usize];
    let launch = func::Launch {
        code: &kernel.code,
        entry_pc: 0,
        grid: [1, 1, 1],
        block: [1, 1, 1],
        params: &[OUT, x as u32],
    };
    func::run(
        &config,
        &launch,
        &mut global,
        func::Options::default(),
        None,
    )
    .unwrap_or_else(|t| panic!("trap: {t}"));
    (0..n)
        .map(|k| {
            let a = OUT as usize + 4 * k;
            i32::from_le_bytes(global[a..a + 4].try_into().unwrap())
        })
        .collect()
}

/// Compiles `src` and expects it to fail with exactly one error; returns
/// its message, line and column.
fn one_error(src: &str) -> (String, u32, u32) {
    match compile(src, "bad.cu", &options(DivergenceStrategy::Branch)) {
        Ok(_) => panic!("compiled"),
        Err(CompileError::Source { diagnostics, .. }) => {
            let errors: Vec<_> = diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .collect();
            assert_eq!(errors.len(), 1, "{diagnostics:#?}");
            (errors[0].message.clone(), errors[0].line, errors[0].col)
        }
        Err(e) => panic!("not a source error: {e}"),
    }
}

/// `#define A0 x`, `#define A1 A0`, … `#define A{n} A{n-1}`.
fn macro_chain(n: usize) -> String {
    let mut s = String::from("#define A0 x\n");
    for k in 1..=n {
        s += &format!("#define A{k} A{}\n", k - 1);
    }
    s
}

#[test]
fn macro_chains_within_the_depth_limit_expand() {
    let prelude = macro_chain(250);
    assert_eq!(run(&prelude, "  o[0] = A250 + 1;", 41, 1), [42]);
}

#[test]
fn macro_chains_past_the_depth_limit_are_one_error_at_the_use() {
    // 20,000 single-step macros: the 257th nested one is too deep.
    let src = macro_chain(20_000) + "__global__ void k(int *o, int x) {\n  o[0] = A20000;\n}\n";
    let (message, line, col) = one_error(&src);
    assert_eq!(
        message,
        "macro expansion too deep: expanding `A20000` nests more than 256 macros \
         (the innermost is `A19744`)"
    );
    assert_eq!((line, col), (20_003, 10));
}

#[test]
fn doubling_macros_are_one_error_at_the_use_not_gigabytes() {
    // A24 would be 2^24 copies of `x`: the expansion stops after a
    // million body tokens.
    let mut src = String::from("#define A0 x\n");
    for k in 1..=24 {
        src += &format!("#define A{k} A{0}+A{0}\n", k - 1);
    }
    src += "__global__ void k(int *o, int x) {\n  o[0] = 1;\n  o[1] = A24;\n}\n";
    let (message, line, col) = one_error(&src);
    assert_eq!(
        message,
        "macro expansion too large: expanding `A24` takes the macro expansions of this \
         file past 1048576 tokens"
    );
    assert_eq!((line, col), (28, 10));
    // Macros that expand to nothing cost their expansions too (no hang).
    let mut src = String::from("#define B0\n");
    for k in 1..=40 {
        src += &format!("#define B{k} B{0} B{0}\n", k - 1);
    }
    src += "__global__ void k(int *o) {\n  B40\n}\n";
    assert!(one_error(&src).0.starts_with("macro expansion too large"));
    // A doubling chain that stays under the limit expands: 2^12 copies.
    let mut prelude = String::from("#define A0 x\n");
    for k in 1..=12 {
        prelude += &format!("#define A{k} (A{0}+A{0})\n", k - 1);
    }
    assert_eq!(run(&prelude, "  o[0] = A12;", 5, 1), [5 << 12]);
}

