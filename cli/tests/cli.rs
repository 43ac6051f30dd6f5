//! The `concord` binary end to end: the bundled kernels against plain Rust
//! host implementations, and bad input of every kind giving one clear error
//! and a non-zero exit.

mod common;

use std::path::PathBuf;

use common::{concord, failing, ok, repo};

/// Runs and expects failure with exit code 1 (bad input); returns stderr.
fn fails(args: &[&str]) -> String {
    let (code, stderr) = failing(args);
    assert_eq!(code, Some(1), "{stderr}");
    stderr
}

/// Runs and expects a usage error (exit code 2); returns stderr.
fn usage(args: &[&str]) -> String {
    let (code, stderr) = failing(args);
    assert_eq!(code, Some(2), "{stderr}");
    stderr
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("concord-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(args)).expect("one JSON object")
}

fn values(v: &serde_json::Value, name: &str) -> Vec<i64> {
    v["outputs"][name]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

#[test]
fn vecadd_matches_host_addition() {
    // The bundled launch with all three buffers reported.
    let dir = scratch("vecadd");
    let text = std::fs::read_to_string(repo().join("kernels/vecadd.yaml")).unwrap();
    let text = text
        .replace(
            "program: vecadd.s",
            &format!("program: {}", repo().join("kernels/vecadd.s").display()),
        )
        .replace("outputs: [c]", "outputs: [a, b, c]");
    std::fs::write(dir.join("l.yaml"), text).unwrap();
    let v = json(&["run", dir.join("l.yaml").to_str().unwrap(), "--json"]);
    let (a, b, c) = (values(&v, "a"), values(&v, "b"), values(&v, "c"));
    assert_eq!(c.len(), 100);
    assert_eq!(a, (0..100).collect::<Vec<i64>>());
    assert!(b.iter().any(|x| *x != 0) && b.iter().all(|x| (-1000..=1000).contains(x)));
    for i in 0..100 {
        assert_eq!(c[i], a[i] + b[i], "element {i}");
    }
    let stats = &v["stats"];
    assert_eq!(stats["threads"], 128);
    assert!(stats["simd_efficiency"].as_f64().unwrap() > 0.9);
}

#[test]
fn collatz_matches_host_step_counts() {
    fn steps(mut x: u64) -> i64 {
        let mut n = 0;
        while x > 1 {
            x = if x % 2 == 0 { x / 2 } else { 3 * x + 1 };
            n += 1;
        }
        n
    }
    let v = json(&["run", "kernels/collatz.yaml", "--json"]);
    let expected: Vec<i64> = (1..=64).map(steps).collect();
    assert_eq!(values(&v, "steps"), expected);
    assert_eq!(expected[26], 111, "start 27 takes 111 steps");
}

#[test]
fn human_report_and_trace_file() {
    let dir = scratch("trace");
    let trace = dir.join("t.jsonl");
    let out = ok(&[
        "run",
        "kernels/collatz.yaml",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert!(
        out.contains("steps: u32[64] = [0, 1, 7, 2, 5, 8, 16, 3,"),
        "{out}"
    );
    assert!(out.contains("SIMD efficiency"), "{out}");
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!lines.is_empty());
    let first = &lines[0];
    assert_eq!(first["pc"], 0);
    assert_eq!(first["warp"], 0);
    assert_eq!(first["mask"], "11111111");
    // Some issue in a divergent kernel runs with a partial mask.
    assert!(lines
        .iter()
        .any(|l| l["mask"].as_str().unwrap().contains('0')));
}

#[test]
fn config_override_changes_the_core() {
    let v = json(&[
        "run",
        "kernels/collatz.yaml",
        "--json",
        "--config",
        "configs/wide.yaml",
    ]);
    assert_eq!(v["stats"]["lanes"], 32);
}

#[test]
fn asm_disasm_asm_round_trip_through_files() {
    let dir = scratch("roundtrip");
    let bin1 = dir.join("a.cbin");
    let listing = dir.join("a.s");
    let bin2 = dir.join("b.cbin");
    ok(&["asm", "kernels/collatz.s", "-o", bin1.to_str().unwrap()]);
    ok(&[
        "disasm",
        bin1.to_str().unwrap(),
        "-o",
        listing.to_str().unwrap(),
    ]);
    ok(&[
        "asm",
        listing.to_str().unwrap(),
        "-o",
        bin2.to_str().unwrap(),
    ]);
    assert_eq!(std::fs::read(&bin1).unwrap(), std::fs::read(&bin2).unwrap());
}

#[test]
fn assembly_errors_name_file_line_and_column_and_write_nothing() {
    let dir = scratch("badasm");
    let src = dir.join("bad.s");
    std::fs::write(&src, "        add r1, r2, r3\n        ad r1, r2\n").unwrap();
    let out = dir.join("bad.cbin");
    let err = fails(&["asm", src.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(err.contains("bad.s:2:9:"), "{err}");
    assert!(err.contains("unknown mnemonic"), "{err}");
    assert!(!out.exists(), "no output on error");
}

#[test]
fn malformed_binaries_name_the_byte_offset() {
    let dir = scratch("badbin");
    let f = dir.join("x.cbin");
    std::fs::write(&f, b"NOPE\x01\x00").unwrap();
    let err = fails(&["disasm", f.to_str().unwrap()]);
    assert!(err.contains("byte 0"), "{err}");
    std::fs::write(&f, b"CNCD").unwrap();
    let err = fails(&["disasm", f.to_str().unwrap()]);
    assert!(err.contains("byte 4"), "{err}");
}

/// A container whose header declares fewer registers and predicates than
/// its code uses (r28-r31, p7) used to pass the launch check on a small core
/// and give a different wrong result on each model, with exit 0.
#[test]
fn a_container_that_understates_its_registers_is_rejected_at_the_instruction() {
    let dir = scratch("lyingbin");
    let src = "ldparam r28, 0\ns2r r29, %tid\nshl r30, r29, 2\nadd r28, r28, r30\nsetp.lt p7, r29, 4\nmovi r31, 7\n@p7 movi r31, 9\nst.global [r28], r31\nexit\n";
    let mut k = concord_isa::asm::assemble(src, "lie.s").unwrap();
    k.regs_used = 1;
    k.preds_used = 1;
    std::fs::write(dir.join("lie.cbin"), k.to_bytes()).unwrap();
    std::fs::write(
        dir.join("l.yaml"),
        "program: lie.cbin\ngrid: [1]\nblock: [8]\nargs:\n  - { name: o, buffer: i32, len: 8 }\noutputs: [o]\n",
    )
    .unwrap();
    let small = ok(&["config", "default"])
        .replace("registers: 32", "registers: 4")
        .replace("predicates: 8", "predicates: 2");
    std::fs::write(dir.join("small.yaml"), small).unwrap();
    let err = fails(&[
        "run",
        dir.join("l.yaml").to_str().unwrap(),
        "--config",
        dir.join("small.yaml").to_str().unwrap(),
    ]);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("lie.cbin: byte 12: code[0]: `ldparam r28, 0` uses r28, but the header's regs_used is 1"),
        "{err}"
    );
}

#[test]
fn configs_are_checked_field_by_field() {
    let out = ok(&[
        "config",
        "check",
        "configs/default.yaml",
        "configs/small.yaml",
        "configs/wide.yaml",
    ]);
    assert_eq!(out.lines().count(), 3);
    let dir = scratch("badcfg");
    let f = dir.join("c.yaml");
    std::fs::write(&f, "lanes: 64\n").unwrap();
    let err = fails(&["config", "check", f.to_str().unwrap()]);
    assert!(err.contains("`lanes`") && err.contains("64"), "{err}");
    std::fs::write(&f, "lanes: 8\nbogus: 1\n").unwrap();
    let err = fails(&["config", "check", f.to_str().unwrap()]);
    assert!(err.contains("bogus"), "{err}");
    // The default printed by `config default` is itself a valid config.
    std::fs::write(&f, ok(&["config", "default"])).unwrap();
    ok(&["config", "check", f.to_str().unwrap()]);
}

#[test]
fn bad_launch_descriptions_and_oversized_blocks() {
    let dir = scratch("badlaunch");
    let kernel = repo().join("kernels/vecadd.s");
    let write = |text: &str| {
        let f = dir.join("l.yaml");
        std::fs::write(&f, text.replace("KERNEL", kernel.to_str().unwrap())).unwrap();
        f
    };
    let f = write("program: KERNEL\ngrid: [1]\nblock: [32]\nargs: []\nsurprise: 1\n");
    let err = fails(&["run", f.to_str().unwrap()]);
    assert!(err.contains("surprise"), "{err}");
    let f = write(
        "program: KERNEL\ngrid: [1]\nblock: [128]\nargs:\n  - { name: a, buffer: i32, len: 1 }\n  - { name: b, buffer: i32, len: 1 }\n  - { name: c, buffer: i32, len: 1 }\n  - { name: n, value: 1 }\n",
    );
    let err = fails(&["run", f.to_str().unwrap()]);
    assert!(err.contains("`warps`"), "{err}");
    let f = write("program: missing.s\ngrid: [1]\nblock: [4]\n");
    let err = fails(&["run", f.to_str().unwrap()]);
    assert!(err.contains("missing.s"), "{err}");
}

#[test]
fn traps_exit_non_zero_with_a_report() {
    let dir = scratch("trap");
    std::fs::write(
        dir.join("k.s"),
        "s2r r1, %tid\nshl r1, r1, 20\nld.global r2, [r1]\nexit\n",
    )
    .unwrap();
    std::fs::write(dir.join("l.yaml"), "program: k.s\ngrid: [1]\nblock: [4]\n").unwrap();
    let (code, err) = failing(&["run", dir.join("l.yaml").to_str().unwrap()]);
    assert_eq!(code, Some(3), "a trap: {err}");
    assert!(
        err.contains("trap in block (0,0,0) warp 0 lane(s) 1-3 at pc 2"),
        "{err}"
    );
    assert!(err.contains("outside global memory"), "{err}");
}

/// Issue 12, items 8 and 12: a stack overflow and a jump outside the
/// program give the same one-line trap report on the functional model, the
/// cycle model and the RTL in lock-step (which used to give a wrong result
/// with exit 0, a misleading `ret` trap, or a simulator mismatch).
#[test]
fn run_time_traps_are_reported_alike_by_every_model() {
    let dir = scratch("run-time-traps");
    std::fs::write(
        dir.join("rec.cu"),
        "__device__ int sum(int n)\n{\n    if (n == 0) {\n        return 0;\n    }\n    return n + sum(n - 1);\n}\n\n__global__ void rec(int *d, int *o)\n{\n    int t = threadIdx.x;\n    o[t] = 1000 + sum(d[t]);\n}\n",
    )
    .unwrap();
    let config = repo().join("configs/small.yaml");
    std::fs::write(
        dir.join("rec.yaml"),
        format!(
            "program: rec.cu\nconfig: {}\ngrid: [1]\nblock: [2]\nargs:\n  - {{ name: d, buffer: i32, data: [3, 1] }}\n  - {{ name: o, buffer: i32, len: 2 }}\noutputs: [o]\n",
            config.display()
        ),
    )
    .unwrap();
    std::fs::write(dir.join("jmp.s"), "li r1, 0xffffffff\njmp r1\n").unwrap();
    std::fs::write(
        dir.join("jmp.yaml"),
        format!(
            "program: jmp.s\nconfig: {}\ngrid: [1]\nblock: [1]\n",
            config.display()
        ),
    )
    .unwrap();
    let rec = dir.join("rec.yaml");
    let jmp = dir.join("jmp.yaml");
    let runs: [(&[&str], &str, &[&str]); 2] = [
        // Thread 0 outgrows its 32 bytes into thread 1's stack (this used
        // to print o = [1006, 0] and exit 0).
        (
            &["run", rec.to_str().unwrap(), "--stack-bytes", "32"],
            "is outside thread 0's stack 0x000fffe0..0x00100000\n",
            &["functional", "cycle", "rtl"],
        ),
        (
            &["run", jmp.to_str().unwrap()],
            "error: trap in block (0,0,0) warp 0 lane(s) 0 at pc 1: next PC 4294967295 (0xffffffff) is outside the program (2 words)\n",
            &["functional", "cycle", "rtl"],
        ),
    ];
    for (args, want, models) in runs {
        let mut reports = Vec::new();
        for &model in models {
            let mut a = args.to_vec();
            a.extend(["--model", model]);
            let (code, stderr) = failing(&a);
            assert!(
                stderr.starts_with("error: trap in block (0,0,0) warp 0 lane(s) 0 at pc "),
                "--model {model}: {stderr}"
            );
            assert!(stderr.ends_with(want), "--model {model}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "--model {model}: {stderr}");
            reports.push((code, stderr));
        }
        assert!(
            reports.iter().all(|r| *r == reports[0]),
            "{args:?}: {reports:#?}"
        );
    }
}

#[test]
fn help_has_examples() {
    let out = ok(&["--help"]);
    assert!(
        out.contains("Examples:") && out.contains("concord run"),
        "{out}"
    );
    let out = ok(&["run", "--help"]);
    assert!(out.contains("--trace") && out.contains("--json"), "{out}");
}

#[test]
fn compiled_cuda_kernel_runs_from_a_launch_and_matches_host_addition() {
    // The suite's vecadd.cu, compiled on the fly: c = a + b for i < n.
    let dir = scratch("cu-run");
    let launch = dir.join("vecadd.yaml");
    let b: Vec<i64> = (0..150).map(|i| (i * 7919) % 2001 - 1000).collect();
    std::fs::write(
        &launch,
        format!(
            "program: {}\ngrid: [3]\nblock: [64]\nargs:\n  - {{ name: a, buffer: i32, fill: {{ range: [-50, 100] }} }}\n  - {{ name: b, buffer: i32, data: {:?} }}\n  - {{ name: c, buffer: i32, len: 150 }}\n  - {{ name: n, value: 150 }}\noutputs: [c]\n",
            repo().join("kernels/suite/vecadd.cu").display(),
            b
        ),
    )
    .unwrap();
    for regs in ["32", "6"] {
        let v = json(&["run", launch.to_str().unwrap(), "--json", "--regs", regs]);
        let c = values(&v, "c");
        let expected: Vec<i64> = (0..150).map(|i| (i - 50) + b[i as usize]).collect();
        assert_eq!(c, expected, "--regs {regs}");
    }
}

#[test]
fn compile_emits_ir_assembly_and_containers_that_agree() {
    let dir = scratch("compile");
    let bin = dir.join("reduce.cbin");
    let asm = dir.join("reduce.s");
    let ir = dir.join("reduce.cir");
    let src = "kernels/suite/reduce.cu";
    ok(&["compile", src, "-o", bin.to_str().unwrap()]);
    ok(&["compile", src, "--emit", "asm", "-o", asm.to_str().unwrap()]);
    ok(&["compile", src, "--emit", "ir", "-o", ir.to_str().unwrap()]);
    // The listing assembles to the container's code.
    let again = dir.join("again.cbin");
    ok(&["asm", asm.to_str().unwrap(), "-o", again.to_str().unwrap()]);
    let k1 = concord_isa::container::Kernel::load_file(&bin).unwrap();
    let k2 = concord_isa::container::Kernel::load_file(&again).unwrap();
    assert_eq!(k1.code, k2.code);
    assert_eq!(k1.params, vec!["in", "partial", "total", "n"]);
    let text = std::fs::read_to_string(&ir).unwrap();
    assert!(text.contains("kernel @reduce("), "{text}");
    assert!(text.contains("barrier"), "{text}");
}

#[test]
fn compile_stats_report_registers_spills_and_branch_classes() {
    let out = concord(&[
        "compile",
        "kernels/suite/nqueens_stack.cu",
        "--stats",
        "--regs",
        "8",
        "-o",
    ]);
    assert!(!out.status.success(), "-o needs a value");
    let dir = scratch("stats");
    let bin = dir.join("k.cbin");
    let out = concord(&[
        "compile",
        "kernels/suite/nqueens_stack.cu",
        "--stats",
        "--regs",
        "8",
        "-o",
        bin.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    for field in [
        "instructions",
        "registers           ",
        "predicates",
        "spills",
        "branches",
        "uniform,",
        "divergent",
    ] {
        assert!(stderr.contains(field), "missing {field}:\n{stderr}");
    }
    // A budget of 8 registers forces spills in this kernel.
    let line = stderr.lines().find(|l| l.contains("spills")).unwrap();
    let spilled: u32 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(spilled > 0, "{stderr}");
}

#[test]
fn kernel_source_errors_name_file_line_and_column_and_write_nothing() {
    let dir = scratch("cu-errors");
    let src = dir.join("bad.cu");
    std::fs::write(
        &src,
        "__global__ void k(int *a) {\n    a[0] = undefined_name;\n}\n",
    )
    .unwrap();
    let out = dir.join("bad.cbin");
    let o = concord(&[
        "compile",
        src.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let stderr = String::from_utf8(o.stderr).unwrap();
    assert!(
        stderr.contains("unknown identifier `undefined_name`"),
        "{stderr}"
    );
    assert!(stderr.contains("bad.cu:2:12"), "{stderr}");
    assert!(stderr.contains('^'), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!out.exists());
    // Outside the subset: named, located.
    std::fs::write(&src, "__global__ void k(float *a) { }\n").unwrap();
    let o = concord(&["compile", src.to_str().unwrap()]);
    let stderr = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("float"), "{stderr}");
    assert!(stderr.contains("bad.cu:1:"), "{stderr}");
}

#[test]
fn flatten_study_prints_a_checked_table_with_crossovers() {
    let out = ok(&["study", "flatten", "--lanes", "4", "--ratios", "1/100,10/1"]);
    // One row per k (0..4) and ratio, then one summary line per ratio.
    let rows = out.lines().filter(|l| l.starts_with("| 1/100 |")).count();
    assert_eq!(rows, 4, "{out}");
    assert_eq!(out.lines().filter(|l| l.starts_with("| 10/1 |")).count(), 4);
    assert!(out.contains("1/100: flattening"), "{out}");
    let e = usage(&["study", "flatten", "--ratios", "3"]);
    assert!(e.contains("`3` is not OUTER/INNER"), "{e}");
}

#[test]
fn bad_compile_flags_are_errors() {
    let e = usage(&["compile", "kernels/suite/reduce.cu", "--regs", "3"]);
    assert!(e.contains("--regs <N>': 3 is not in 4..=32"), "{e}");
    let e = fails(&["compile", "kernels/suite/nqueens.cu", "--stack-bytes", "8"]);
    assert!(e.contains("smaller than the"), "{e}");
    let e = usage(&["bench", "--compiler", "--repeat", "0"]);
    assert!(e.contains("--repeat <REPEAT>': 0 is not in 1..=100"), "{e}");
    let e = usage(&["study", "flatten", "--lanes", "3"]);
    assert!(e.contains("power of two"), "{e}");
}

/// Compile flags on a launch of an assembly program used to be ignored
/// without a word: `--regs 8` ran the same code as without it.
#[test]
fn compile_flags_for_a_program_that_is_not_compiled_are_refused() {
    let e = usage(&["run", "kernels/vecadd.yaml", "--regs", "8"]);
    assert!(
        e.contains("--regs only applies to CUDA-C (`.cu`) programs, but the launch's program kernels/vecadd.s is not one"),
        "{e}"
    );
    let e = usage(&[
        "cosim",
        "kernels/vecadd.yaml",
        "--divergence",
        "predicate",
        "--flatten-loops",
    ]);
    assert!(
        e.contains("--flatten-loops, --divergence only apply to"),
        "{e}"
    );
    // A flag given at its default changes nothing, and a `.cu` launch
    // takes them all.
    ok(&["run", "kernels/vecadd.yaml", "--spill", "plain"]);
    ok(&[
        "run",
        "kernels/suite/saxpy-small.yaml",
        "--regs",
        "8",
        "--divergence",
        "predicate",
    ]);
}

#[test]
fn kernel_choice_messages_name_only_the_flags_given() {
    let dir = scratch("kernel-choice");
    let empty = dir.join("empty.cu");
    std::fs::write(&empty, "// no kernel here\n").unwrap();
    let e = fails(&["compile", empty.to_str().unwrap()]);
    assert_eq!(
        e.trim_end(),
        format!(
            "error: {}: the source has no `__global__` kernel",
            empty.display()
        )
    );
    let two = dir.join("two.cu");
    std::fs::write(
        &two,
        "__global__ void a(int *o) { o[0] = 1; }\n__global__ void b(int *o) { o[0] = 2; }\n",
    )
    .unwrap();
    let e = fails(&["compile", two.to_str().unwrap()]);
    assert!(
        e.contains("the source has several kernels (a, b); choose one with --kernel"),
        "{e}"
    );
    let e = fails(&["compile", two.to_str().unwrap(), "--kernel", "c"]);
    assert!(
        e.trim_end().ends_with("no kernel `c` (kernels: a, b)"),
        "{e}"
    );
    ok(&[
        "compile",
        two.to_str().unwrap(),
        "--kernel",
        "b",
        "-o",
        dir.join("b.cbin").to_str().unwrap(),
    ]);
}

#[test]
fn long_chains_compile_and_macro_bombs_are_one_error() {
    let dir = scratch("limits");
    let chain = dir.join("chain.cu");
    let terms = vec!["x"; 10_000];
    std::fs::write(
        &chain,
        format!(
            "__global__ void k(int *o, int x) {{\n  o[0] = {};\n  o[1] = {};\n}}\n",
            terms.join(" + "),
            terms.join(" && ")
        ),
    )
    .unwrap();
    let out = dir.join("chain.cbin");
    ok(&[
        "compile",
        chain.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(out.exists());
    let bomb = dir.join("bomb.cu");
    let mut src = String::from("#define A0 x\n");
    for k in 1..=24 {
        src += &format!("#define A{k} A{0}+A{0}\n", k - 1);
    }
    src += "__global__ void k(int *o, int x) {\n  o[0] = A24;\n}\n";
    std::fs::write(&bomb, src).unwrap();
    let e = fails(&["compile", bomb.to_str().unwrap()]);
    assert_eq!(e.matches("error:").count(), 1, "{e}");
    assert!(
        e.contains("macro expansion too large: expanding `A24`"),
        "{e}"
    );
    assert!(e.contains("bomb.cu:27:10"), "{e}");
}
