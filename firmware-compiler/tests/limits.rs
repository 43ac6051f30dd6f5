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

const STRATEGIES: [DivergenceStrategy; 3] = [
    DivergenceStrategy::Branch,
    DivergenceStrategy::Predicate,
    DivergenceStrategy::Auto,
];

/// Where the kernels' `int *o` points.
const OUT: u32 = 0x100;

/// Compiles `body` as the body of `__global__ void k(int *o, int x)`
/// (after `prelude`), runs one thread with `x` on the functional model and
/// returns `o[0..n]`.
fn run(prelude: &str, body: &str, x: i32, n: usize) -> Vec<i32> {
    exec(&build(prelude, body, DivergenceStrategy::Branch), x, n)
}

fn run_with(
    prelude: &str,
    body: &str,
    x: i32,
    n: usize,
    divergence: DivergenceStrategy,
) -> Vec<i32> {
    exec(&build(prelude, body, divergence), x, n)
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
        stack_bytes: kernel.stack_bytes,
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

/// `n` copies of `term` joined by `op`.
fn chain(term: &str, op: &str, n: usize) -> String {
    vec![term; n].join(op)
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

const TERMS: usize = 10_000;

#[test]
fn flat_arithmetic_chains_of_ten_thousand_terms() {
    // 3·10000; 3 − 9999 (left to right); 3·3·… wraps like the machine:
    // 3^10000 mod 2^32 is computed below by repeated multiplication.
    let body = format!(
        "  o[0] = {};\n  o[1] = x{};\n  o[2] = {};",
        chain("x", " + ", TERMS),
        " - 1".repeat(TERMS - 1),
        chain("x", " * ", TERMS),
    );
    let power = (1..TERMS).fold(3i32, |p, _| p.wrapping_mul(3));
    assert_eq!(run("", &body, 3, 3), [30_000, 3 - 9_999, power]);
}

#[test]
fn comma_and_comparison_chains_of_ten_thousand_terms() {
    // Left to right: the assignments run in order, the last operand is the
    // value. `x < x < …` compares 0 or 1 with x = 3 after the first link.
    let body = format!(
        "  int a = 0;\n  o[0] = ({}, a);\n  o[1] = {};\n  o[2] = {};",
        chain("a = a + 2", ", ", TERMS),
        chain("x", " < ", TERMS),
        chain("x", " == ", TERMS),
    );
    // x == x is 1; 1 == 3 is 0; 0 == 3 is 0 …
    assert_eq!(run("", &body, 3, 3), [20_000, 1, 0]);
}

#[test]
fn logical_chains_of_ten_thousand_terms() {
    let body = format!(
        "  o[0] = {};\n  o[1] = {};\n  if ({}) o[2] = 7; else o[2] = 8;",
        chain("x", " && ", TERMS),
        chain("(x - 3)", " || ", TERMS),
        chain("x", " && ", TERMS),
    );
    let k = build("", &body, DivergenceStrategy::Branch);
    assert_eq!(exec(&k, 3, 3), [1, 0, 7]);
    assert_eq!(exec(&k, 0, 3), [0, 1, 8]);
    // Distinct conditions keep every link (one block each) through the
    // passes: x = 5000 is none of 1..=10000 except the 5000th.
    let distinct: Vec<String> = (1..=TERMS).map(|k| format!("x != {k}")).collect();
    let body = format!(
        "  o[0] = {};\n  if ({}) o[1] = 1;",
        distinct.join(" && "),
        distinct[..TERMS / 2].join(" && ")
    );
    for d in [DivergenceStrategy::Branch, DivergenceStrategy::Predicate] {
        let k = build("", &body, d);
        assert_eq!(exec(&k, 5000, 2), [0, 0]);
        assert_eq!(exec(&k, 20_000, 2), [1, 1]);
    }
}

#[test]
fn long_chains_fail_cleanly_at_their_end() {
    // An error after ten thousand links: one error, at the last link
    // (column 10 + 4 · 10000).
    let src = format!(
        "__global__ void k(int *o, int x) {{\n  o[0] = {} + threadIdx;\n}}\n",
        chain("x", " + ", TERMS)
    );
    let (message, line, col) = one_error(&src);
    assert!(
        message.contains("`threadIdx` must be followed by"),
        "{message}"
    );
    assert_eq!((line, col), (2, 40_010));
    // A syntax error there.
    let src = format!(
        "__global__ void k(int *o, int x) {{\n  o[0] = {} + ;\n}}\n",
        chain("x", " + ", TERMS)
    );
    let (message, line, _) = one_error(&src);
    assert!(message.contains("expected an expression"), "{message}");
    assert_eq!(line, 2);
}

/// 95 levels of each construct: just under the cap of 200 (a statement in
/// braces costs two levels, a parenthesis two).
#[test]
fn nesting_up_to_the_cap_goes_through_every_pass() {
    let n = 95;
    let cases = [
        format!("  {}o[0] = 1;{}", "if (x > 1) {".repeat(n), "}".repeat(n)),
        format!(
            "  int i = 0;\n  {}o[0] += 1;{}",
            "while (i < 3) { i++; ".repeat(n),
            "}".repeat(n)
        ),
        format!(
            "  {}o[0] += 1;{}",
            (0..n)
                .map(|k| format!("for (int i{k} = 0; i{k} < x - 2; i{k}++) {{"))
                .collect::<String>(),
            "}".repeat(n)
        ),
        format!(
            "  int i = 0;\n  {}o[0] += 1;{}",
            "do { i++; ".repeat(n),
            "} while (i < x);".repeat(n)
        ),
        format!(
            "  {}o[0] = 1;{}",
            "if (x > 1) { o[1] = 2; } else {".repeat(n),
            "}".repeat(n)
        ),
        format!(
            "  o[0] = {}x{};",
            "(x > 1 ? ".repeat(60),
            " : 0)".repeat(60)
        ),
    ];
    for body in &cases {
        for d in STRATEGIES {
            run_with("", body, 3, 1, d);
        }
    }
    // And the values: 95 parentheses, an `else if` chain.
    let body = format!("  o[0] = {}x{};", "(".repeat(n), " + 1)".repeat(n));
    assert_eq!(run("", &body, 3, 1), [3 + 95]);
    let body = format!(
        "  {} else o[0] = -1;",
        (0..190)
            .map(|k| format!("if (x == {k}) o[0] = {};", 2 * k))
            .collect::<Vec<_>>()
            .join(" else ")
    );
    let k = build("", &body, DivergenceStrategy::Branch);
    assert_eq!(exec(&k, 123, 1), [246]);
    assert_eq!(exec(&k, 500, 1), [-1]);
}

#[test]
fn nesting_beyond_the_cap_is_one_error_at_its_place() {
    // The statement, the assignment's right side and its operand take three
    // levels, each parenthesis two: the expression inside the 99th
    // parenthesis is level 201, and the error points at the token there,
    // the 100th `(` (column 10 + 99).
    let src = format!(
        "__global__ void k(int *o, int x) {{\n  o[0] = {}x{};\n}}\n",
        "(".repeat(200),
        ")".repeat(200)
    );
    let (message, line, col) = one_error(&src);
    assert!(
        message.starts_with("nesting too deep: more than 200"),
        "{message}"
    );
    assert_eq!((line, col), (2, 109));
    // Postfix operators count too: `o[0][0]…` and `x++++…`.
    let src = format!(
        "__global__ void k(int *o, int x) {{\n  x = o{};\n}}\n",
        "[0]".repeat(300)
    );
    assert!(one_error(&src).0.starts_with("nesting too deep"));
    let src = "__global__ void k(int *o, int x) {\n  x".to_string() + &"++".repeat(300) + ";\n}\n";
    assert!(one_error(&src).0.starts_with("nesting too deep"));
}

/// `if (x == 0) o[0] = 1; else if (x == 1) o[0] = 4; … else o[0] = -1;`
/// with `arms` arms: arm `k` stores `3k + 1`.
fn else_if_chain(arms: usize) -> String {
    let chain = (0..arms)
        .map(|k| format!("if (x == {k}) o[0] = {};", 3 * k + 1))
        .collect::<Vec<_>>()
        .join("\n  else ");
    format!("  {chain}\n  else o[0] = -1;")
}

#[test]
fn else_if_chains_are_flat_up_to_their_cap() {
    // An `else if` chain is flat in the source: it used to count as 300
    // levels of nesting and fail at the 200th arm. Up to the cap it goes
    // through every pass, in a test thread's small stack.
    let arms = concord_compiler::frontend::parse::MAX_IF_ARMS;
    let kernel = build("", &else_if_chain(arms), DivergenceStrategy::Branch);
    for (x, expected) in [
        (0, 1),
        (1, 4),
        (2000, 6001),
        (4095, 12286),
        (4096, -1),
        (-5, -1),
    ] {
        assert_eq!(exec(&kernel, x, 1), [expected], "x = {x}");
    }
    for strategy in STRATEGIES {
        assert_eq!(run_with("", &else_if_chain(300), 299, 1, strategy), [898]);
    }
    // One arm more is one error at the `if` that starts it: line 2 holds
    // the first arm, and each `else if` line is `  else if …`.
    let src = format!(
        "__global__ void k(int *o, int x) {{\n{}\n}}\n",
        else_if_chain(arms + 1)
    );
    let (message, line, col) = one_error(&src);
    assert_eq!(
        message,
        format!("`else if` chain too long: more than {arms} arms")
    );
    assert_eq!((line, col), (2 + arms as u32, 8));
}

#[test]
fn pointer_levels_and_array_dimensions_are_capped() {
    // `int` then 65 stars: the 65th star (column 7 + 64) is one too many.
    let src = format!(
        "__global__ void k(int *o) {{\n  int {}p = 0;\n}}\n",
        "*".repeat(100_000)
    );
    let (message, line, col) = one_error(&src);
    assert_eq!(
        message,
        "type too deeply derived: more than 64 pointer levels and array dimensions"
    );
    assert_eq!((line, col), (2, 71));
    let src = format!(
        "__global__ void k(int *o) {{\n  int a{};\n}}\n",
        "[1]".repeat(100_000)
    );
    assert!(one_error(&src).0.starts_with("type too deeply derived"));
    let src = format!(
        "__global__ void k(int *o) {{\n  o[0] = sizeof(int {});\n}}\n",
        "*".repeat(100)
    );
    assert!(one_error(&src).0.starts_with("type too deeply derived"));
    // 64 levels are fine.
    let body = format!("  int {}p = 0;\n  o[0] = sizeof(p);", "*".repeat(64));
    assert_eq!(run("", &body, 0, 1), [4]);
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

#[test]
fn abs_evaluates_its_argument_once() {
    let body = "  int i = -4;\n  o[0] = abs(i++);\n  o[1] = i;\n  o[2] = abs(x + x);";
    assert_eq!(run("", body, -21, 3), [4, -3, 42]);
}

/// A flat source whose call graph is 20,000 functions deep (not inlined);
/// the bottom one recurses. The back end's stack-size search follows the
/// whole chain.
#[test]
fn deep_call_chains_compile() {
    let n = 20_000;
    let mut src =
        String::from("__device__ int f0(int a) { if (a <= 0) return 0; return f0(a - 1) + 1; }\n");
    for k in 1..n {
        src += &format!(
            "__device__ int f{k}(int a) {{ return f{}(a) + 1; }}\n",
            k - 1
        );
    }
    src += &format!(
        "__global__ void k(int *o, int x) {{ o[0] = f{}(x); }}\n",
        n - 1
    );
    let mut o = options(DivergenceStrategy::Branch);
    o.opt.inline_threshold = 0;
    match compile(&src, "calls.cu", &o) {
        // 20,000 calls and returns do not fit the instruction memory; the
        // emitter says so.
        Err(CompileError::Internal { message, .. }) => {
            assert!(
                message.contains("exceed the 65536-word instruction memory"),
                "{message}"
            )
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("20,000 functions fit the instruction memory"),
    }
}

/// The argument of a bounded recursion, a chain of `&`: the bound analysis
/// follows a few definitions of it, not the whole chain (which overflowed
/// the stack at 100,000 terms: too many instructions to run, but they
/// compile up to the emitter).
#[test]
fn long_chains_into_a_bounded_recursion() {
    let prelude = "__device__ int f(int a) { if (a <= 0) return 0; return f(a - 1) + 2; }\n";
    let argument = |n: i32| {
        (1..=n)
            .map(|k| format!("(x ^ {k})"))
            .collect::<Vec<_>>()
            .join(" & ")
    };
    let body = format!("  o[0] = f({} & 7);", argument(TERMS as i32));
    let k = build(prelude, &body, DivergenceStrategy::Branch);
    for x in [0, 6, 1000] {
        let v = (1..=TERMS as i32).fold(7, |acc, k| acc & (x ^ k));
        assert_eq!(exec(&k, x, 1), [2 * v], "x = {x}");
    }
    let src = format!(
        "{prelude}__global__ void k(int *o, int x) {{\n  o[0] = f({} & 7);\n}}\n",
        argument(100_000)
    );
    match compile(&src, "bound.cu", &options(DivergenceStrategy::Branch)) {
        Err(CompileError::Internal { message, .. }) => {
            assert!(
                message.contains("exceed the 65536-word instruction memory"),
                "{message}"
            )
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("200,000 instructions fit the instruction memory"),
    }
}
