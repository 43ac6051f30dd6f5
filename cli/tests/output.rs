//! What the `concord` commands do with their outputs: `-o -`, devices and
//! FIFOs written and never replaced, outputs that are inputs refused,
//! output paths checked before the work, closed pipes and full disks,
//! the size limits of `--trace` and `--vcd`, temporary files removed on a
//! signal, and flags range-checked.

mod common;

use std::io::{BufRead, BufReader, Read};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{ok, output_within, repo, LIMIT};

/// Runs a command with the tests' time limit.
trait Within {
    fn within(&mut self) -> Output;
    fn within_to(&mut self, stdout: Stdio) -> Output;
}

impl Within for Command {
    fn within(&mut self) -> Output {
        output_within(self, None, LIMIT)
    }
    fn within_to(&mut self, stdout: Stdio) -> Output {
        output_within(self, Some(stdout), LIMIT)
    }
}

/// An empty directory, removed at the end of the test.
fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("concord-output-{name}-"))
        .tempdir()
        .unwrap()
}

fn fixture(name: &str) -> String {
    repo()
        .join("cli/tests/fixtures")
        .join(name)
        .to_str()
        .unwrap()
        .to_string()
}

fn concord_cmd() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_concord"));
    c.current_dir(repo());
    c
}

/// Runs `args` in `dir`.
fn concord_in(dir: &Path, args: &[&str]) -> Output {
    concord_cmd().args(args).current_dir(dir).within()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts exit `code` with one `error:` line containing every `needle`.
fn assert_error(out: &Output, code: i32, needles: &[&str]) {
    let all = stderr(out);
    assert_eq!(out.status.code(), Some(code), "{all}");
    let e = common::after_build_notes(&all);
    assert_eq!(e.matches("error:").count(), 1, "{e}");
    for n in needles {
        assert!(e.contains(n), "missing `{n}`:\n{e}");
    }
}

/// A command running in the background, killed if the test fails first.
struct Running(Option<std::process::Child>);

impl Running {
    fn new(child: std::process::Child) -> Running {
        Running(Some(child))
    }

    fn child(&mut self) -> &mut std::process::Child {
        self.0.as_mut().expect("running")
    }

    /// Waits at most the tests' time limit for the end.
    fn wait(mut self) -> Output {
        let start = Instant::now();
        while self.child().try_wait().unwrap().is_none() {
            assert!(start.elapsed() < LIMIT, "still ran after {LIMIT:?}");
            std::thread::sleep(Duration::from_millis(10));
        }
        self.0.take().unwrap().wait_with_output().unwrap()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(child) = self.0.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The names in `dir`.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn dash_is_standard_output_and_creates_no_file() {
    let dir = scratch("dash");
    let out = concord_in(dir.path(), &["asm", &fixture("ok.s"), "-o", "-"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let file = dir.path().join("ok.cbin");
    let again = concord_in(
        dir.path(),
        &["asm", &fixture("ok.s"), "-o", file.to_str().unwrap()],
    );
    assert!(again.status.success());
    assert_eq!(out.stdout, std::fs::read(&file).unwrap());
    assert!(
        stderr(&out).starts_with("standard output: "),
        "{}",
        stderr(&out)
    );
    for command in [
        vec!["disasm", file.to_str().unwrap(), "-o", "-"],
        vec!["compile", "SRC", "-o", "-"],
    ] {
        let src = repo().join("kernels/suite/vecadd.cu");
        let args: Vec<&str> = command
            .iter()
            .map(|a| {
                if *a == "SRC" {
                    src.to_str().unwrap()
                } else {
                    a
                }
            })
            .collect();
        let out = concord_in(dir.path(), &args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert!(!out.stdout.is_empty());
    }
    assert_eq!(entries(dir.path()), ["ok.cbin"], "no file named `-`");
}

#[test]
fn a_fifo_is_written_into_and_stays_a_fifo() {
    let dir = scratch("fifo");
    let fifo = dir.path().join("out.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let bin = dir.path().join("ok.cbin");
    ok(&["asm", &fixture("ok.s"), "-o", bin.to_str().unwrap()]);
    let listing = ok(&["disasm", bin.to_str().unwrap()]);
    let (tx, rx) = mpsc::channel();
    let reader_path = fifo.clone();
    std::thread::spawn(move || {
        let mut text = String::new();
        let r = std::fs::File::open(&reader_path).and_then(|mut f| f.read_to_string(&mut text));
        let _ = tx.send(r.map(|_| text));
    });
    let out = concord_in(
        dir.path(),
        &[
            "disasm",
            bin.to_str().unwrap(),
            "-o",
            fifo.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        std::fs::metadata(&fifo).unwrap().file_type().is_fifo(),
        "the FIFO was replaced"
    );
    // A replaced FIFO would leave the reader waiting forever.
    let read = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("the reader got the listing")
        .unwrap();
    assert_eq!(read, listing);
}

#[test]
fn dev_null_stays_a_character_device() {
    let null = Path::new("/dev/null");
    let before = std::fs::metadata(null).unwrap();
    assert!(before.file_type().is_char_device());
    let src = repo().join("kernels/suite/reduce.cu");
    let dir = scratch("null");
    let bin = dir.path().join("ok.cbin");
    ok(&["asm", &fixture("ok.s"), "-o", bin.to_str().unwrap()]);
    for args in [
        vec!["compile", src.to_str().unwrap(), "-o", "/dev/null"],
        vec!["asm", &fixture("ok.s"), "-o", "/dev/null"],
        vec!["disasm", bin.to_str().unwrap(), "-o", "/dev/null"],
        vec!["run", &fixture("ok.yaml"), "--trace", "/dev/null"],
    ] {
        let out = concord_cmd().args(&args).within();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let after = std::fs::metadata(null).unwrap();
        assert!(
            after.file_type().is_char_device(),
            "{args:?} replaced /dev/null"
        );
        assert_eq!(
            (after.ino(), after.rdev()),
            (before.ino(), before.rdev()),
            "{args:?}"
        );
    }
}

#[test]
fn a_symlinked_output_replaces_its_target_and_keeps_the_link() {
    let dir = scratch("symlink");
    let target = dir.path().join("real.cbin");
    std::fs::write(&target, b"old").unwrap();
    let link = dir.path().join("link.cbin");
    std::os::unix::fs::symlink("real.cbin", &link).unwrap();
    ok(&["asm", &fixture("ok.s"), "-o", link.to_str().unwrap()]);
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read(&target).unwrap().starts_with(b"CNCD"));
    assert_eq!(entries(dir.path()), ["link.cbin", "real.cbin"]);
}

#[test]
fn outputs_that_are_inputs_are_refused_and_the_inputs_kept() {
    let dir = scratch("same");
    let d = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    for name in ["ok.s", "ok.yaml"] {
        std::fs::copy(fixture(name), dir.path().join(name)).unwrap();
    }
    std::fs::copy(
        repo().join("kernels/suite/vecadd.cu"),
        dir.path().join("k.cu"),
    )
    .unwrap();
    std::fs::write(dir.path().join("c.yaml"), "lanes: 8\n").unwrap();
    ok(&["asm", &d("ok.s"), "-o", &d("v.cbin")]);
    std::fs::copy(dir.path().join("v.cbin"), dir.path().join("x.cbin")).unwrap();
    std::fs::hard_link(dir.path().join("ok.s"), dir.path().join("hard.s")).unwrap();
    std::os::unix::fs::symlink("ok.s", dir.path().join("soft.s")).unwrap();
    let snapshot = || -> Vec<(String, Vec<u8>)> {
        entries(dir.path())
            .into_iter()
            .map(|n| {
                let bytes = std::fs::read(dir.path().join(&n)).unwrap();
                (n, bytes)
            })
            .collect()
    };
    let before = snapshot();
    let cases: Vec<Vec<String>> = vec![
        vec!["asm".into(), d("ok.s"), "-o".into(), d("ok.s")],
        vec!["asm".into(), d("ok.s"), "-o".into(), d("hard.s")],
        vec!["asm".into(), d("ok.s"), "-o".into(), d("soft.s")],
        // The default output of `asm x.cbin` is x.cbin.
        vec!["asm".into(), d("x.cbin")],
        vec!["compile".into(), d("k.cu"), "-o".into(), d("k.cu")],
        vec![
            "compile".into(),
            d("k.cu"),
            "--config".into(),
            d("c.yaml"),
            "-o".into(),
            d("c.yaml"),
        ],
        vec!["disasm".into(), d("v.cbin"), "-o".into(), d("v.cbin")],
        vec!["run".into(), d("ok.yaml"), "--trace".into(), d("ok.yaml")],
        vec!["run".into(), d("ok.yaml"), "--trace".into(), d("ok.s")],
        vec![
            "run".into(),
            d("ok.yaml"),
            "--config".into(),
            d("c.yaml"),
            "--trace".into(),
            d("c.yaml"),
        ],
        vec![
            "verilog".into(),
            "--config".into(),
            d("c.yaml"),
            "-o".into(),
            d("c.yaml"),
        ],
    ];
    for args in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = concord_in(dir.path(), &args);
        assert_error(
            &out,
            2,
            &["is the same file as", "refusing to overwrite an input"],
        );
        assert_eq!(snapshot(), before, "{args:?} changed the directory");
    }
    // Two outputs of one run that are one file.
    let out = concord_in(
        dir.path(),
        &[
            "run",
            &d("ok.yaml"),
            "--model",
            "rtl",
            "--trace",
            &d("t"),
            "--vcd",
            &d("t"),
        ],
    );
    assert_error(&out, 2, &["--trace and --vcd both write to"]);
    assert_eq!(snapshot(), before);
}

#[test]
fn output_paths_are_checked_before_the_work() {
    // Without verilator and yosys on PATH, work that started would fail
    // on the missing tool: the error must be the output's.
    let dir = scratch("early");
    let run = |args: &[&str]| {
        concord_cmd()
            .args(args)
            .env("PATH", dir.path().join("no-tools"))
            .within()
    };
    let out = run(&[
        "run",
        &fixture("ok.yaml"),
        "--model",
        "rtl",
        "--vcd",
        "/nonexistent/x.vcd",
    ]);
    assert_error(
        &out,
        1,
        &["/nonexistent/x.vcd: directory /nonexistent does not exist"],
    );
    let out = run(&[
        "run",
        &fixture("ok.yaml"),
        "--model",
        "rtl",
        "--trace",
        "/nonexistent/t",
    ]);
    assert_error(
        &out,
        1,
        &["/nonexistent/t: directory /nonexistent does not exist"],
    );
    let out = run(&["synth-report", "-o", "/nonexistent/s.md"]);
    assert_error(
        &out,
        1,
        &["/nonexistent/s.md: directory /nonexistent does not exist"],
    );
    // A bad source would fail the compilation: the output fails first.
    let out = run(&[
        "compile",
        &fixture("bad.cu"),
        "-o",
        dir.path().to_str().unwrap(),
    ]);
    assert_error(&out, 1, &["is a directory"]);
    let out = run(&["verilog", "-o", "/nonexistent/core.v"]);
    assert_error(&out, 1, &["directory /nonexistent does not exist"]);
    assert_eq!(entries(dir.path()), Vec::<String>::new());
}

#[test]
fn a_closed_pipe_ends_the_command_quietly_with_141() {
    // The reader takes one line of an endless trace and goes away.
    let mut child = Running::new(
        concord_cmd()
            .args(["run", &fixture("forever.yaml"), "--trace", "-"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut first = String::new();
    BufReader::new(child.child().stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("{\"block\""), "{first}");
    let out = child.wait();
    assert_eq!(out.status.code(), Some(141), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    // A reader that is gone before the command starts: a socket whose peer
    // is closed fails every write with EPIPE, as a pipe without reader.
    for args in [vec!["config", "default"], vec!["--help"]] {
        let (ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
        drop(ours);
        let out = concord_cmd()
            .args(&args)
            .within_to(Stdio::from(std::os::fd::OwnedFd::from(theirs)));
        assert_eq!(out.status.code(), Some(141), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out), "", "{args:?}");
    }
}

#[test]
fn a_full_disk_is_one_error_line() {
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    for args in [
        vec!["config", "default"],
        vec!["config", "check", "configs/default.yaml"],
        vec!["run", "kernels/vecadd.yaml", "--json"],
        vec!["disasm", "DISASM"],
    ] {
        let dir = scratch("full");
        let bin = dir.path().join("ok.cbin");
        ok(&["asm", &fixture("ok.s"), "-o", bin.to_str().unwrap()]);
        let args: Vec<&str> = args
            .iter()
            .map(|a| {
                if *a == "DISASM" {
                    bin.to_str().unwrap()
                } else {
                    a
                }
            })
            .collect();
        let out = concord_cmd().args(&args).within_to(full().into());
        assert_error(
            &out,
            1,
            &["error: standard output: No space left on device"],
        );
    }
    let out = concord_cmd()
        .args(["asm", &fixture("ok.s"), "-o", "/dev/full"])
        .within();
    assert_error(&out, 1, &["/dev/full: No space left on device"]);
}

#[test]
fn the_trace_limit_stops_the_run_at_a_record_boundary() {
    let dir = scratch("trace-limit");
    for model in ["functional", "cycle"] {
        let trace = dir.path().join(format!("{model}.jsonl"));
        let out = concord_cmd()
            .args(["run", &fixture("forever.yaml"), "--model", model])
            .args(["--trace", trace.to_str().unwrap(), "--trace-limit", "100K"])
            .within();
        assert_error(
            &out,
            1,
            &["--trace-limit (102400 bytes)", "raise --trace-limit"],
        );
        let text = std::fs::read_to_string(&trace).unwrap();
        assert!(text.len() <= 102_400, "{} bytes", text.len());
        // Within one record of the limit, and only whole records.
        let longest = text.lines().map(str::len).max().unwrap() + 1;
        assert!(text.len() + longest > 102_400, "{} bytes", text.len());
        assert!(text.ends_with('\n'));
        for line in text.lines() {
            serde_json::from_str::<serde_json::Value>(line).expect("a whole JSON record");
        }
        let records = text.lines().count();
        assert!(
            stderr(&out).contains(&format!("after {records} records")),
            "{}",
            stderr(&out)
        );
    }
    assert_eq!(entries(dir.path()), ["cycle.jsonl", "functional.jsonl"]);
}

#[test]
fn a_trapping_run_keeps_its_whole_trace() {
    let dir = scratch("trap-trace");
    let trace = dir.path().join("t.jsonl");
    let out = concord_cmd()
        .args([
            "run",
            &fixture("trap.yaml"),
            "--trace",
            trace.to_str().unwrap(),
        ])
        .within();
    assert_error(&out, 3, &["at pc 2"]);
    // s2r, shl, then the load at pc 2 that traps: three issues.
    let pcs: Vec<u64> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["pc"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(pcs, [0, 1, 2]);
}

/// Sends `signal` (a `kill` name) to a run writing a trace, once its
/// temporary file exists; returns the exit code and what is left.
fn interrupt_a_trace(signal: &str) -> (Option<i32>, Vec<String>) {
    let dir = scratch(&format!("signal-{signal}"));
    let mut child = Running::new(
        concord_cmd()
            .args(["run", &fixture("forever.yaml"), "--trace"])
            .arg(dir.path().join("out.jsonl"))
            .args(["--trace-limit", "1T"])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let start = Instant::now();
    while !entries(dir.path())
        .iter()
        .any(|n| n.starts_with(".out.jsonl."))
    {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no temporary file"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Let it write for a while.
    std::thread::sleep(Duration::from_millis(300));
    let killed = Command::new("kill")
        .args([&format!("-{signal}"), &child.child().id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait();
    assert_eq!(stderr(&out), "");
    (out.status.code(), entries(dir.path()))
}

#[test]
fn signals_remove_the_temporary_files() {
    assert_eq!(interrupt_a_trace("TERM"), (Some(143), vec![]));
    assert_eq!(interrupt_a_trace("INT"), (Some(130), vec![]));
}

#[test]
fn numeric_flags_are_range_checked() {
    let cases: &[(&[&str], &str)] = &[
        (&["bench", "--iterations", "2147483647"], "--iterations"),
        (&["bench", "--iterations", "4294967296"], "--iterations"),
        (&["bench", "--blocks", "0"], "--blocks"),
        (&["bench", "--blocks", "16384"], "--blocks"),
        (&["bench", "--repeat", "0"], "--repeat"),
        (&["bench", "--compiler", "--repeat", "101"], "--repeat"),
        (&["fuzz-core", "--programs", "0"], "--programs"),
        (&["fuzz-core", "--size", "0"], "--size"),
        (&["fuzz-core", "--size", "401"], "--size"),
        (
            &[
                "fuzz-core",
                "--seed",
                "18446744073709551615",
                "--programs",
                "2",
            ],
            "--seed",
        ),
        (&["study", "flatten", "--lanes", "3"], "--lanes"),
        (&["study", "flatten", "--outer-iters", "0"], "--outer-iters"),
        (
            &["study", "flatten", "--outer-iters", "100000"],
            "--outer-iters",
        ),
        (
            &["study", "flatten", "--inner-count", "4294967295"],
            "--inner-count",
        ),
        (&["study", "flatten", "--ratios", "1/0"], "--ratios"),
        (&["study", "flatten", "--ratios", "3"], "--ratios"),
        (&["study", "spill", "--regs", "8,3"], "--regs"),
        (&["study", "divergence", "--regs", "40"], "--regs"),
        (
            &["compile", "kernels/suite/reduce.cu", "--regs", "3"],
            "--regs",
        ),
        (
            &["run", "kernels/vecadd.yaml", "--stack-bytes", "0"],
            "--stack-bytes",
        ),
        (
            &["run", "kernels/vecadd.yaml", "--inline-threshold", "65537"],
            "--inline-threshold",
        ),
        (
            &["run", "kernels/vecadd.yaml", "--trace-limit", "0"],
            "--trace-limit",
        ),
        (
            &["cosim", "kernels/vecadd.yaml", "--vcd-limit", "16777216T"],
            "--vcd-limit",
        ),
        (&["run", "kernels/vecadd.yaml", "--vcd", "x.vcd"], "--vcd"),
    ];
    for (args, flag) in cases {
        let out = concord_cmd().args(*args).within();
        let e = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {e}");
        assert!(
            e.starts_with("error: ") && e.contains(flag),
            "{args:?}: {e}"
        );
    }
    let e = stderr(
        &concord_cmd()
            .args(["bench", "--iterations", "2147483647"])
            .within(),
    );
    assert!(e.contains("2147483647 is not in 1..=10000"), "{e}");
    let e = stderr(
        &concord_cmd()
            .args(["study", "flatten", "--outer-iters", "100000"])
            .within(),
    );
    assert!(e.contains("1..=1000") && !e.contains("workqueue"), "{e}");
}

#[test]
fn configs_the_timed_models_cannot_build_are_input_errors() {
    for model in ["cycle", "rtl"] {
        let out = concord_cmd()
            .args(["run", &fixture("ok.yaml"), "--model", model])
            .args(["--config", &fixture("imem-1000.yaml")])
            .within();
        assert_error(&out, 1, &["imem-1000.yaml: config field `imem_words`"]);
    }
    let out = concord_cmd()
        .args([
            "fuzz-core",
            "--cycle-only",
            "--programs",
            "1",
            "--config",
            &fixture("imem-1000.yaml"),
        ])
        .within();
    assert_error(&out, 1, &["imem-1000.yaml: config field `imem_words`"]);
}

#[test]
fn the_json_report_is_written_value_by_value_in_name_order() {
    // Outputs in name order, as a JSON object (a sorted map) holds them.
    let dir = scratch("json");
    let launch = dir.path().join("l.yaml");
    std::fs::write(
        &launch,
        format!(
            "program: {}\ngrid: [1]\nblock: [32]\nargs:\n  - {{ name: a, buffer: i32, data: [1, 2, -3] }}\n  - {{ name: b, buffer: i32, data: [10, 20, 30] }}\n  - {{ name: c, buffer: i32, len: 3 }}\n  - {{ name: n, value: 3 }}\noutputs: [c, a]\n",
            repo().join("kernels/vecadd.s").display()
        ),
    )
    .unwrap();
    let text = ok(&["run", launch.to_str().unwrap(), "--json"]);
    assert!(
        text.starts_with(
            "{\"model\":\"functional\",\"outputs\":{\"a\":[1,2,-3],\"c\":[11,22,27]},\"stats\":{"
        ),
        "{text}"
    );
    assert!(text.ends_with("}\n"));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["stats"]["threads"], 32);
}

/// The RTL's waveform: limited, cut after a whole time step, written to
/// devices and standard output, and a full disk an error, not an abort.
#[test]
fn vcd_outputs_are_limited_and_never_abort() {
    let dir = scratch("vcd");
    let vcd = |name: &str, limit: &str| {
        let path = dir.path().join(name);
        let out = concord_cmd()
            .args(["run", &fixture("forever.yaml"), "--model", "rtl", "--vcd"])
            .arg(&path)
            .args(["--vcd-limit", limit])
            .within();
        (out, path)
    };
    // The default core's header takes some 940 KB, its first time step
    // (every signal's initial value) more than the 110 KB left of 1 MiB.
    let (small, small_path) = vcd("small.vcd", "1M");
    assert_error(
        &small,
        1,
        &["--vcd-limit (1048576 bytes)", "raise --vcd-limit"],
    );
    let (large, large_path) = vcd("large.vcd", "2M");
    assert_error(&large, 1, &["--vcd-limit (2097152 bytes)"]);
    let small = std::fs::read(&small_path).unwrap();
    let large = std::fs::read(&large_path).unwrap();
    assert!(small.len() <= 1_048_576 && large.len() <= 2_097_152);
    assert!(large.starts_with(&small));
    // The cut is right before a time step, and that whole step would not
    // have fitted: it ends (at the next `#`) beyond the limit.
    assert_eq!(large[small.len()], b'#');
    // A `#` starts a time step only at the start of a line (identifiers
    // in value changes may contain `#`).
    let next_step_end = small.len()
        + 1
        + large[small.len()..]
            .windows(2)
            .position(|w| w == b"\n#")
            .expect("the 2M file holds a later step");
    assert!(
        next_step_end > 1_048_576,
        "{} bytes, next step ends at {next_step_end}",
        small.len()
    );
    assert!(small.ends_with(b"\n"));
    let out = concord_cmd()
        .args([
            "run",
            &fixture("forever.yaml"),
            "--model",
            "rtl",
            "--vcd",
            "/dev/full",
        ])
        .within();
    assert_error(&out, 1, &["/dev/full: No space left on device"]);
    let out = concord_cmd()
        .args([
            "run",
            &fixture("forever.yaml"),
            "--model",
            "rtl",
            "--vcd",
            "-",
            "--vcd-limit",
            "1M",
        ])
        .within();
    assert_error(
        &out,
        1,
        &["standard output: the waveform reached --vcd-limit"],
    );
    assert_eq!(out.stdout, small);
    assert_eq!(entries(dir.path()), ["large.vcd", "small.vcd"]);
}
