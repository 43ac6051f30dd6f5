//! What the CLI's end-to-end tests share: running the `concord` binary
//! from the repository root, with a time limit where a regression could
//! make a command run for hours.
// Each test file uses a part of this module.
#![allow(dead_code)]

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

pub fn concord(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(args)
        .current_dir(repo())
        .output()
        .expect("runs")
}

/// Runs and expects success; returns stdout.
pub fn ok(args: &[&str]) -> String {
    let out = concord(args);
    assert!(
        out.status.success(),
        "concord {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs and expects a non-zero exit with one `error:` report and no
/// panic; returns the exit code and stderr from the report on (see
/// [`after_build_notes`]).
pub fn failing(args: &[&str]) -> (Option<i32>, String) {
    let out = concord(args);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!out.status.success(), "concord {args:?} should fail");
    assert!(!stderr.contains("panicked"), "{stderr}");
    (out.status.code(), after_build_notes(&stderr).to_string())
}

/// `stderr` from its `error:` report on. Only the Verilator harness's two
/// build notes may come before the report: a run of `--model rtl` (or
/// `cosim`) that finds no cached model builds one first, and which of the
/// parallel tests does that is a matter of timing.
pub fn after_build_notes(stderr: &str) -> &str {
    let mut report = stderr;
    while !report.starts_with("error: ") {
        let (line, rest) = report.split_once('\n').unwrap_or((report, ""));
        assert!(
            (line.starts_with("building the RTL model")
                && line.ends_with("with Verilator (20-70 s)"))
                || (line.starts_with("built the RTL model") && line.contains(" (cached in ")),
            "stderr does not start with the report:\n{stderr}"
        );
        report = rest;
    }
    report
}

/// How long a command of the tests may run.
pub const LIMIT: Duration = Duration::from_secs(180);

/// Runs `command` in a process group of its own, its standard output to
/// `stdout` (a pipe, captured, if `None`), standard error captured. A
/// command still running after `limit` is killed with everything it
/// started, and the test fails naming it.
pub fn output_within(command: &mut Command, stdout: Option<Stdio>, limit: Duration) -> Output {
    let captured = stdout.is_none();
    let mut child = command
        .process_group(0)
        .stdout(stdout.unwrap_or_else(Stdio::piped))
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .filter(|_| captured)
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waits") {
            break status;
        }
        if start.elapsed() > limit {
            let group = format!("-{}", child.id());
            let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
            let _ = child.wait();
            panic!("{command:?} still ran after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: out.join().expect("stdout"),
        stderr: err.join().expect("stderr"),
    }
}
