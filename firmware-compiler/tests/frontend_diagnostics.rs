//! Diagnostics of the front end: a table of bad (or suspicious) inputs
//! with the expected message, line and column (1-based, counted by hand),
//! and checks of the rendered text.

use concord_compiler::frontend::{compile_source, render, Diagnostic, FrontendOptions, Severity};

fn diagnostics(src: &str) -> (bool, Vec<Diagnostic>) {
    match compile_source(src, "bad.cu", &FrontendOptions::default()) {
        Ok((_, warnings)) => (true, warnings),
        Err(diags) => (false, diags),
    }
}

use Severity::{Error as E, Warning as W};

/// (source, severity, message fragment, line, column)
const CASES: &[(&str, Severity, &str, u32, u32)] = &[
    // ---- the diagnostics the subset requires ----
    (
        "__global__ void k(int *o) { o[0] = y; }",
        E,
        "unknown identifier `y`",
        1,
        36,
    ),
    (
        "__shared__ int t[4];\n__global__ void k(int *o) { o = t; }",
        E,
        "cannot convert `shared int *` to `global int *`",
        2,
        33,
    ),
    (
        "__global__ void k(int *o) { int x = o; }",
        E,
        "type mismatch: expected `int`, found `global int *`",
        1,
        37,
    ),
    (
        "__global__ void k() { break; }",
        E,
        "`break` outside of a loop",
        1,
        23,
    ),
    (
        "__global__ void k() { if (1) continue; }",
        E,
        "`continue` outside of a loop",
        1,
        30,
    ),
    (
        "__device__ int f() { return; }",
        E,
        "missing return value",
        1,
        22,
    ),
    (
        "__device__ int f(int a) { return a; }\n__global__ void k() { f(1, 2); }",
        E,
        "wrong number of arguments to `f`: expected 1, found 2",
        2,
        23,
    ),
    (
        "__global__ void k(int x) { x + 1 = 2; }",
        E,
        "non-lvalue",
        1,
        28,
    ),
    (
        "__global__ void k() { if (threadIdx.x < 4) __syncthreads(); }",
        W,
        "__syncthreads() in divergent control flow",
        1,
        44,
    ),
    (
        "__global__ void k() { int t = threadIdx.x;\n while (t < 3) { __syncthreads(); t++; } }",
        W,
        "__syncthreads() in divergent control flow",
        2,
        18,
    ),
    (
        "__device__ int f(int n) { return f(n - 1) + 1; }",
        W,
        "recursion without a base case",
        1,
        16,
    ),
    ("__shared__ int big[5000];", E, "does not fit", 1, 16),
    (
        "__global__ void k(int *o) { int x; int *p = &x; }",
        E,
        "pointers to local memory are not supported",
        1,
        45,
    ),
    (
        "__global__ void k(int *o) { int a[4]; int *p = a; }",
        E,
        "pointers to local memory are not supported",
        1,
        48,
    ),
    (
        "__global__ void k() { int x; atomicAdd(&x, 1); }",
        E,
        "pointers to local memory are not supported",
        1,
        40,
    ),
    (
        "__global__ void k(int *o) { o[0] = __ballot_sync(0xff, 1); }",
        E,
        "only full-warp masks are supported",
        1,
        50,
    ),
    (
        "#define SQ(x) ((x)*(x))\n",
        E,
        "function-like macro `SQ` is not supported",
        1,
        9,
    ),
    (
        "__global__ void k(float *f) { }",
        E,
        "`float` is not supported by Concord (integer kernels only)",
        1,
        19,
    ),
    ("struct S { int a; };", E, "structs are not supported", 1, 1),
    (
        "__global__ void k() { goto end; }",
        E,
        "`goto` is not supported",
        1,
        23,
    ),
    (
        "__global__ void k(int x) { switch (x) { } }",
        E,
        "`switch` is not supported",
        1,
        28,
    ),
    (
        "int counter;",
        E,
        "global variables other than `__shared__` arrays are not supported",
        1,
        5,
    ),
    (
        "__global__ void k() { int (*fp)(int); }",
        E,
        "function pointers are not supported",
        1,
        27,
    ),
    (
        "#include <cuda_runtime.h>\n__global__ void k() {}",
        W,
        "`#include` is ignored",
        1,
        1,
    ),
    ("#ifdef X\n", E, "`#ifdef` is not supported", 1, 1),
    (
        "__global__ void k() { return 1; }",
        E,
        "returns `void` but a value is returned",
        1,
        30,
    ),
    (
        "__global__ int k() { return 0; }",
        E,
        "must return `void`",
        1,
        12,
    ),
    (
        "__global__ void k() { foo(); }",
        E,
        "unknown function `foo`",
        1,
        23,
    ),
    (
        "__global__ void a() {}\n__global__ void k() { a(); }",
        E,
        "cannot be called from device code",
        2,
        23,
    ),
    (
        "__global__ void k(int x) { *x = 1; }",
        E,
        "cannot dereference",
        1,
        28,
    ),
    (
        "__global__ void k(int n) { int a[n]; }",
        E,
        "constant expression",
        1,
        34,
    ),
    (
        "__global__ void k() { int x; int x; }",
        E,
        "redefinition of `x`",
        1,
        34,
    ),
    (
        "__global__ void k(int *o) { o[0] = threadIdx; }",
        E,
        "`threadIdx` must be followed by `.x`, `.y` or `.z`",
        1,
        36,
    ),
    (
        "__shared__ int s[2];\n__global__ void k(int *g) { int *p = g; p = s; }",
        E,
        "address spaces differ",
        2,
        45,
    ),
    (
        "__shared__ int s[2];\n__global__ void k(int *g) { if (g == s) {} }",
        E,
        "different address spaces",
        2,
        33,
    ),
    (
        "__device__ int f(int n) { if (n) return 1; }",
        W,
        "control reaches the end of non-void function `f`",
        1,
        44,
    ),
    // ---- syntax errors ----
    (
        "__global__ void k() { int x = ; }",
        E,
        "expected an expression, found `;`",
        1,
        31,
    ),
    (
        "__global__ void k() { int x = 1 }",
        E,
        "expected `;`, found `}`",
        1,
        32,
    ),
    (
        "__global__ void k() {\n  int x;\n",
        E,
        "expected `}`, found end of file",
        3,
        1,
    ),
    (
        "__global__ void k() { int x = (1 + 2; }",
        E,
        "expected `)`, found `;`",
        1,
        37,
    ),
    (
        "__global__ void k() { if x > 0 { } }",
        E,
        "expected `(`, found `x`",
        1,
        26,
    ),
    (
        "__global__ void k() { for (int i = 0; i < 4) {} }",
        E,
        "expected `;`, found `)`",
        1,
        44,
    ),
    (
        "__global__ void k() { int = 3; }",
        E,
        "expected a name, found `=`",
        1,
        27,
    ),
    (
        "__global__ void k() { x = 1 +; }",
        E,
        "expected an expression, found `;`",
        1,
        30,
    ),
    (
        "__global__ void k() { else { } }",
        E,
        "`else` without a matching `if`",
        1,
        23,
    ),
    (
        "__global__ void k() { do { } (1); }",
        E,
        "expected `while` after the body of `do`",
        1,
        30,
    ),
    (
        "__global__ void k() { int a[4; }",
        E,
        "expected `]`, found `;`",
        1,
        30,
    ),
    (
        "__global__ void k(int a,) { }",
        E,
        "expected a type, found `)`",
        1,
        25,
    ),
    (
        "__global__ void k() { return 1 2; }",
        E,
        "expected `;`, found integer literal",
        1,
        31,
    ),
    (
        "__global__ void k() { x = 'ab'; }",
        E,
        "invalid character literal",
        1,
        27,
    ),
    (
        "__global__ void k() { /* no end",
        E,
        "unterminated comment",
        1,
        23,
    ),
    (
        "__global__ void k() { int x = 1 @ 2; }",
        E,
        "unexpected character `@`",
        1,
        33,
    ),
    (
        "__global__ void k() { x = 08; }",
        E,
        "invalid integer literal `08`",
        1,
        27,
    ),
    (
        "__global__ void k() { a[1 = 2; }",
        E,
        "expected `]`, found `;`",
        1,
        30,
    ),
    (
        "__global__ void k() { k(1,); }",
        E,
        "expected an expression, found `)`",
        1,
        27,
    ),
    (
        "__global__ void k() { int x = 1 ? 2; }",
        E,
        "expected `:`, found `;`",
        1,
        36,
    ),
    (
        "__global__ void k() }",
        E,
        "expected `{` or `;` after the parameter list, found `}`",
        1,
        21,
    ),
    (
        "__global__ void k() { p->x = 1; }",
        E,
        "structs (`->`) are not supported",
        1,
        24,
    ),
    (
        "__global__ void k() { x = \"s\"; }",
        E,
        "string literals are not supported",
        1,
        27,
    ),
    (
        "__global__ void k() { int x = 1.5; }",
        E,
        "`float` is not supported",
        1,
        31,
    ),
    (
        "__global__ void k() { long x; }",
        E,
        "`long` is not supported",
        1,
        23,
    ),
    (
        "__global__ void k() { unsigned char int x; }",
        E,
        "invalid combination of type specifiers",
        1,
        23,
    ),
    (
        "__global__ void k() { x = 0x; }",
        E,
        "invalid integer literal `0x`",
        1,
        27,
    ),
    (
        "__global__ void k() { while (1) }",
        E,
        "expected an expression, found `}`",
        1,
        33,
    ),
    (
        "}",
        E,
        "expected a function or `__shared__` declaration, found `}`",
        1,
        1,
    ),
    (
        "__global__ void k(...) {}",
        E,
        "variadic functions are not supported",
        1,
        19,
    ),
    (
        "__global__ void k() { int a[2] = {1, 2; }",
        E,
        "expected `}`, found `;`",
        1,
        39,
    ),
];

#[test]
fn table_of_bad_inputs() {
    let mut failures = Vec::new();
    for &(src, severity, msg, line, col) in CASES {
        let (ok, diags) = diagnostics(src);
        let found = diags.iter().any(|d| {
            d.severity == severity && d.message.contains(msg) && d.line == line && d.col == col
        });
        let ok_expected = severity == Severity::Warning;
        if !found || ok != ok_expected {
            failures.push(format!(
                "{src:?}\n  expected {severity:?} {line}:{col} {msg:?} (compiles: {ok_expected})\n  got (compiles: {ok}): {:?}",
                diags.iter().map(|d| (d.severity, d.line, d.col, d.message.clone())).collect::<Vec<_>>()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}

#[test]
fn uniform_barriers_and_base_cases_give_no_warning() {
    let src = r#"
        __device__ int f(int n) { return n <= 0 ? 0 : f(n - 1); }
        __device__ int g(int n) { if (n == 0) return 0; return g(n - 1); }
        __global__ void k(int *o, int n) {
            for (int s = blockDim.x / 2; s > 0; s >>= 1) {
                if (threadIdx.x < s) o[threadIdx.x] += o[threadIdx.x + s];
                __syncthreads();
            }
            if (n > 2) __syncthreads();
            o[0] = f(3) + g(2);
        }"#;
    let (ok, diags) = diagnostics(src);
    assert!(ok, "{diags:?}");
    assert!(diags.is_empty(), "{diags:?}");
}

#[test]
fn rendering_shows_file_position_and_caret() {
    let src = "__global__ void k(int *o) {\n    o[0] = missing;\n}\n";
    let (_, diags) = diagnostics(src);
    let text = render(&diags, src, "bad.cu");
    assert!(
        text.contains("error: unknown identifier `missing`"),
        "{text}"
    );
    assert!(text.contains("bad.cu:2:12"), "{text}");
    assert!(text.contains("^^^^^^^"), "{text}");
}

#[test]
fn several_errors_are_reported_in_one_run() {
    let src = "__global__ void k() {\n  int a = ;\n  int b = 1\n}\n";
    let (ok, diags) = diagnostics(src);
    assert!(!ok);
    assert_eq!(diags.len(), 2, "{diags:?}");
    assert_eq!((diags[0].line, diags[0].col), (2, 11));
    assert_eq!((diags[1].line, diags[1].col), (3, 12));
}

#[test]
fn shared_memory_limit_comes_from_the_options() {
    let src = "__shared__ int a[100];\n__global__ void k() {}";
    let small = FrontendOptions {
        shared_memory_bytes: 256,
    };
    let err = compile_source(src, "t.cu", &small).unwrap_err();
    assert!(err[0].message.contains("the core has 256 bytes"), "{err:?}");
    assert!(compile_source(src, "t.cu", &FrontendOptions::default()).is_ok());
}

/// No character a terminal acts on.
fn printable(text: &str) -> bool {
    !text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
}

#[test]
fn rendering_escapes_control_characters_from_the_source() {
    let src = "__global__ void k(int *o) {\n    o[0] = a\x1b[2J\0b;\n}\n";
    let (_, diags) = diagnostics(src);
    let text = render(&diags, src, "bad\x1b.cu");
    assert!(printable(&text), "{text:?}");
    assert!(text.contains("bad\\x1b.cu:2:13"), "{text}");
    // The line as shown, and the caret under the escape (four columns).
    assert!(text.contains("2 │     o[0] = a\\x1b[2J\\0b;\n"), "{text}");
    assert!(text.contains("  │             ^^^^\n"), "{text}");
}

#[test]
fn rendering_quotes_a_long_line_once_around_the_column() {
    let name = "y".repeat(10_000_000);
    let src = format!("__global__ void k(int *o) {{\n  o[0] = 1 + {name};\n}}\n");
    let (_, diags) = diagnostics(&src);
    assert_eq!((diags[0].line, diags[0].col), (2, 14));
    let text = render(&diags, &src, "long.cu");
    // Was the 10 MB name in the message, the line and the carets: 30 MB.
    assert!(text.len() < 1000, "{} bytes", text.len());
    assert!(text.contains("long.cu:2:14"), "{text}");
    assert!(
        text.contains(&format!("unknown identifier `{}…`", "y".repeat(40))),
        "{text}"
    );
    // An identifier deep inside a long line: the excerpt starts with `…`
    // and the caret stays under it.
    let src = format!("__global__ void k(int *o) {{\n  o[0] = 1 + /*{name}*/ zz;\n}}\n");
    let (_, diags) = diagnostics(&src);
    let text = render(&diags, &src, "long.cu");
    assert!(text.len() < 1000, "{} bytes", text.len());
    assert!(
        text.contains(&format!("long.cu:2:{}", 14 + 10_000_000 + 5)),
        "{text}"
    );
    let lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().position(|l| l.starts_with("2 │ ")).unwrap();
    let quoted = lines[at].strip_prefix("2 │ ").unwrap();
    let caret = lines[at + 1].strip_prefix("  │ ").unwrap();
    assert!(quoted.starts_with('…'), "{text}");
    let col = caret.chars().position(|c| c == '^').unwrap();
    assert_eq!(quoted.chars().skip(col).take(2).collect::<String>(), "zz");
}

#[test]
fn rendering_keeps_labels_on_other_lines_and_multi_line_spans() {
    let src = "__device__ int f(int a) { return a; }\n\n__global__ void k(int *o) { o[0] = f(1,\n 2); }\n";
    let (_, diags) = diagnostics(src);
    let text = render(&diags, src, "f.cu");
    let expected = "\
error: wrong number of arguments to `f`: expected 1, found 2
  ┌─ f.cu:3:36
  │  
1 │   __device__ int f(int a) { return a; }
  │                  - declared here
2 │   
3 │   __global__ void k(int *o) { o[0] = f(1,
  │ ╭────────────────────────────────────^
4 │ │  2); }
  │ ╰───^

";
    assert_eq!(text, expected);
}

#[test]
fn rendering_shows_at_most_twenty_diagnostics_and_counts_the_rest() {
    // 30 lines with an unknown identifier each: 30 errors found, the first
    // 20 rendered (lines 2..=21), then one note for the other 10. A mangled
    // file of 20,000 bad lines used to print megabytes.
    let body: String = (0..30).map(|i| format!("  o[0] = u{i};\n")).collect();
    let src = format!("__global__ void k(int *o) {{\n{body}}}\n");
    let (ok, diags) = diagnostics(&src);
    assert!(!ok);
    assert_eq!(diags.iter().filter(|d| d.severity == E).count(), 30);
    let text = render(&diags, &src, "many.cu");
    assert_eq!(text.matches("unknown identifier").count(), 20, "{text}");
    assert!(text.contains("many.cu:21:"), "{text}");
    assert!(!text.contains("many.cu:22:"), "{text}");
    assert!(
        text.ends_with("note: 10 more error(s) and 0 more warning(s) in many.cu not shown (only the first 20 diagnostics are)\n"),
        "{text}"
    );
}
