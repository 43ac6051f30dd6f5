//! Fuzzing the front end: random bytes and token-level mutations of a
//! valid kernel must never panic; every diagnostic carries a position
//! inside the source, and every accepted program passes the IR verifier.

use concord_compiler::frontend::{compile_source, render, FrontendOptions};
use concord_compiler::ir::verify::verify_module;
use proptest::prelude::*;

const KERNEL: &str = r#"
#define N 64
__shared__ int tile[N];
__device__ int clamp(int x, int lo, int hi) { return x < lo ? lo : (x > hi ? hi : x); }
__device__ int fact(int n) { if (n <= 1) return 1; return n * fact(n - 1); }
__global__ void k(const int *a, int *out, unsigned n) {
    unsigned tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid, acc = 0;
    char c = (char)i; short s = -3; bool flag = i & 1;
    int local[4] = {1, 2};
    tile[tid % N] = i < n ? a[i] : 0;
    __syncthreads();
    for (int j = 0; j < 4; j++) {
        if (j == 2 && flag) continue;
        acc += local[j] * tile[(tid + j) % N];
        if (acc > 1000 || c < 0) break;
    }
    while (s < 0) { s++; acc ^= s << 2; }
    do { acc -= 1; } while (acc % 7 != 0 && acc > 0);
    int *p = out + i;
    if (i < n) *p = clamp(acc, -5, 5) + fact(3) + (int)sizeof(short);
    atomicAdd(&out[0], __ballot_sync(0xffffffff, acc > 0));
}
"#;

/// Splits the kernel into rough tokens (words, numbers, punctuation).
fn tokens(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for ch in src.chars() {
        if ch.is_alphanumeric() || ch == '_' {
            cur.push(ch);
        } else {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            if ch == '\n' {
                out.push("\n".to_string());
            } else if !ch.is_whitespace() {
                out.push(ch.to_string());
            }
        }
    }
    out
}

const VOCABULARY: &[&str] = &[
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    ",",
    "=",
    "+",
    "-",
    "*",
    "&",
    "&&",
    "||",
    "<<",
    "?",
    ":",
    "if",
    "else",
    "for",
    "while",
    "do",
    "break",
    "continue",
    "return",
    "int",
    "unsigned",
    "char",
    "bool",
    "void",
    "__shared__",
    "__global__",
    "__device__",
    "threadIdx",
    ".",
    "x",
    "0",
    "1",
    "0xffffffff",
    "#",
    "define",
    "float",
    "struct",
    "tile",
    "k",
    "fact",
    "__syncthreads",
    "sizeof",
    "++",
    "--",
    "\n",
];

fn check(src: &str) {
    match compile_source(src, "fuzz.cu", &FrontendOptions::default()) {
        Ok((module, warnings)) => {
            if let Err(e) = verify_module(&module) {
                panic!("accepted program fails the verifier: {e:?}\n{src}\n{module}");
            }
            for w in &warnings {
                assert!(w.line >= 1 && w.col >= 1, "{w:?}");
            }
        }
        Err(diags) => {
            assert!(!diags.is_empty());
            assert!(diags.iter().any(|d| d.is_error()));
            for d in &diags {
                assert!(d.line >= 1 && d.col >= 1, "{d:?}");
                assert!(d.span.start as usize <= src.len(), "{d:?}");
            }
            // Rendering must not panic either.
            let _ = render(&diags, src, "fuzz.cu");
        }
    }
}

#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize),
    Duplicate(usize),
    Swap(usize, usize),
    Insert(usize, usize),
    Replace(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::Duplicate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        (any::<usize>(), 0..VOCABULARY.len()).prop_map(|(a, b)| Mutation::Insert(a, b)),
        (any::<usize>(), 0..VOCABULARY.len()).prop_map(|(a, b)| Mutation::Replace(a, b)),
    ]
}

fn apply(toks: &mut Vec<String>, m: &Mutation) {
    let n = toks.len();
    if n == 0 {
        return;
    }
    match *m {
        Mutation::Delete(i) => {
            toks.remove(i % n);
        }
        Mutation::Duplicate(i) => {
            let t = toks[i % n].clone();
            toks.insert(i % n, t);
        }
        Mutation::Swap(a, b) => toks.swap(a % n, b % n),
        Mutation::Insert(i, v) => toks.insert(i % (n + 1), VOCABULARY[v].to_string()),
        Mutation::Replace(i, v) => toks[i % n] = VOCABULARY[v].to_string(),
    }
}

#[test]
fn the_seed_kernel_compiles() {
    let (module, warnings) = compile_source(KERNEL, "k.cu", &FrontendOptions::default())
        .unwrap_or_else(|d| panic!("{}", render(&d, KERNEL, "k.cu")));
    assert!(warnings.is_empty(), "{}", render(&warnings, KERNEL, "k.cu"));
    verify_module(&module).unwrap();
    // The token round trip keeps it valid.
    check(&tokens(KERNEL).join(" "));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        check(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn random_ascii_never_panics(s in "[ -~\n]{0,200}") {
        check(&s);
    }

    #[test]
    fn mutated_kernels_never_panic(ms in proptest::collection::vec(mutation(), 1..6)) {
        let mut toks = tokens(KERNEL);
        for m in &ms {
            apply(&mut toks, m);
        }
        check(&toks.join(" "));
    }
}
