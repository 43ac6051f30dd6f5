//! Bounded fuzzing of every input format through the real `concord` binary:
//! assembly, kernel containers, CUDA-C sources, launch descriptions and core
//! configurations.
//!
//! Each case is a file in a fresh directory and one `concord` command that
//! reads it, run as a child process under a time limit, so that a panic,
//! an abort (a stack overflow is SIGABRT), any other signal and a hang are
//! all caught. Half the cases mutate the bundled files (bit flips, hostile
//! bytes, repeated slices, splices, cuts); the others are built to be deep
//! or long (nesting, flat chains, macro bombs, huge literals and lists,
//! YAML alias bombs, containers with extreme header words).
//!
//! Every case must end in time, by exit 0 or by the exit code of an error
//! class (`docs/errors.md`) with one `error:` report first on stderr, no
//! panic, a bounded report, and no output file or temporary left behind
//! when it fails. A failure prints the format, the case number, how the
//! input was made, a preview of its bytes, and where the input was saved.
//!
//! Knobs: `CONCORD_FUZZ_SECONDS` (the whole tier's time budget; default 100,
//! `CONCORD_TIER=full` makes it 1200), `CONCORD_FUZZ_SEED` (default: a fixed
//! seed, so CI is repeatable), `CONCORD_FUZZ_CASE=<format>:<index>` (replay
//! one case; formats: asm, cbin, cu, launch, config).

mod common;
#[path = "input_fuzz/gen.rs"]
mod gen;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use gen::{Case, Format, Seeds};

/// Longest a single case may take before it counts as a hang. Generous:
/// the deepest generated inputs compile in a few seconds on a loaded
/// 2-core machine.
const CASE_LIMIT: Duration = Duration::from_secs(60);
/// Longest stderr report a failing case may print.
const REPORT_LIMIT: usize = 64 * 1024;
/// Exit codes of the error classes a fuzzed input may end in: input,
/// usage, trap (`docs/errors.md`). Mismatch (4) and tool (5) would be bugs
/// here: the functional model has no second model and needs no tool.
const ERROR_CODES: [i32; 3] = [1, 2, 3];

fn knob(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| {
        v.parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a non-negative integer"))
    })
}

fn scratch_root() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("concord-input-fuzz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Container seeds, written by the tools themselves.
fn build_containers(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let repo = common::repo();
    let mut jobs: Vec<(PathBuf, Vec<&str>)> = Vec::new();
    for name in ["vecadd.s", "collatz.s", "bench/alu.s", "bench/divergent.s"] {
        jobs.push((repo.join("kernels").join(name), vec!["asm"]));
    }
    for name in ["reduce.cu", "nqueens.cu"] {
        jobs.push((repo.join("kernels/suite").join(name), vec!["compile"]));
    }
    let mut out = Vec::new();
    for (i, (input, command)) in jobs.into_iter().enumerate() {
        let target = dir.join(format!("seed{i}.cbin"));
        let mut args: Vec<String> = command.iter().map(|s| s.to_string()).collect();
        args.push(input.display().to_string());
        args.push("-o".into());
        args.push(target.display().to_string());
        let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        common::ok(&args);
        out.push((input.display().to_string(), std::fs::read(&target).unwrap()));
    }
    out
}

/// What went wrong with one case, if anything.
fn judge(
    case: &Case,
    dir: &Path,
    status: Option<std::process::ExitStatus>,
    stderr: &[u8],
) -> Option<String> {
    let Some(status) = status else {
        return Some(format!(
            "no exit within {} s (a hang)",
            CASE_LIMIT.as_secs()
        ));
    };
    let text = String::from_utf8_lossy(stderr);
    if text.contains("panicked") {
        return Some(format!("panic:\n{}", preview(stderr, 2000)));
    }
    let Some(code) = status.code() else {
        use std::os::unix::process::ExitStatusExt;
        return Some(format!(
            "killed by signal {:?} (an abort or a crash); stderr:\n{}",
            status.signal(),
            preview(stderr, 2000)
        ));
    };
    if code == 0 {
        return None;
    }
    if !ERROR_CODES.contains(&code) {
        return Some(format!(
            "exit code {code}; stderr:\n{}",
            preview(stderr, 2000)
        ));
    }
    // Warnings found before the error (a compile's `#include is ignored`)
    // come first, as a compiler prints them; the error follows them.
    let reports_error = text.starts_with("error: ")
        || (text.starts_with("warning: ") && text.contains("\nerror: "));
    if !reports_error {
        return Some(format!(
            "exit {code} without a leading `error:` line:\n{}",
            preview(stderr, 2000)
        ));
    }
    if stderr.len() > REPORT_LIMIT {
        return Some(format!(
            "a report of {} bytes (limit {REPORT_LIMIT})",
            stderr.len()
        ));
    }
    // Nothing half-written: a failed command leaves only its input behind.
    let left: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != case.file_name && n != "launch.yaml")
        .collect();
    if !left.is_empty() {
        return Some(format!(
            "exit {code} but left {left:?} behind; stderr:\n{}",
            preview(stderr, 2000)
        ));
    }
    None
}

/// The first `limit` bytes, with control and non-ASCII bytes escaped.
fn preview(bytes: &[u8], limit: usize) -> String {
    let mut s: String = bytes
        .iter()
        .take(limit)
        .flat_map(|b| std::ascii::escape_default(*b))
        .map(char::from)
        .collect::<String>()
        .replace("\\n", "\n");
    if bytes.len() > limit {
        s.push_str(&format!("... ({} bytes)", bytes.len()));
    }
    s
}

/// Runs one case; returns the failure report, if any.
fn run_case(format: Format, index: u64, seed: u64, seeds: &Seeds, root: &Path) -> Option<String> {
    let case = gen::case(format, index, seed, seeds);
    let dir = root.join(format!("{}-{index}", format.name()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join(case.file_name);
    std::fs::write(&input, &case.bytes).unwrap();
    if format == Format::Container {
        std::fs::write(
            dir.join("launch.yaml"),
            "program: in.cbin\ngrid: [2]\nblock: [8]\nwatchdog: 1000000\n",
        )
        .unwrap();
    }
    let args: Vec<String> = case
        .args
        .iter()
        .map(|a| {
            a.replace("{in}", &input.display().to_string())
                .replace("{out}", &dir.join("out").display().to_string())
                .replace("{dir}", &dir.display().to_string())
        })
        .collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(&args)
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("concord starts");
    // Read stderr on a thread so a long report cannot block the child.
    let mut pipe = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = std::io::Read::read_to_end(&mut pipe, &mut buf);
        buf
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if start.elapsed() > CASE_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let stderr = reader.join().unwrap();
    match judge(&case, &dir, status, &stderr) {
        None => {
            let _ = std::fs::remove_dir_all(&dir);
            None
        }
        Some(problem) => {
            let saved = root.join(format!(
                "failing-{}-{index}-{}",
                format.name(),
                case.file_name
            ));
            let _ = std::fs::copy(&input, &saved);
            Some(format!(
                "{} case {index} (CONCORD_FUZZ_SEED={seed} CONCORD_FUZZ_CASE={}:{index}): {}\n  input: {} ({} bytes), saved at {}\n  command: concord {}\n  input preview:\n{}\n  problem: {problem}",
                format.name(),
                format.name(),
                case.how,
                case.file_name,
                case.bytes.len(),
                saved.display(),
                args.join(" "),
                preview(&case.bytes, 600),
            ))
        }
    }
}

#[test]
fn every_input_format_ends_in_a_result_or_a_clean_error() {
    let full = std::env::var("CONCORD_TIER").is_ok_and(|t| t == "full");
    let budget =
        Duration::from_secs(knob("CONCORD_FUZZ_SECONDS").unwrap_or(if full { 1200 } else { 100 }));
    let seed = knob("CONCORD_FUZZ_SEED").unwrap_or(0x00C0_4C0D);
    let root = scratch_root();
    let containers = build_containers(&root);
    let seeds = Seeds::load(&common::repo(), containers);

    if let Ok(one) = std::env::var("CONCORD_FUZZ_CASE") {
        let (name, index) = one
            .split_once(':')
            .expect("CONCORD_FUZZ_CASE=<format>:<index>");
        let format = Format::from_name(name).unwrap_or_else(|| panic!("unknown format {name:?}"));
        let index: u64 = index.parse().expect("a case index");
        if let Some(report) = run_case(format, index, seed, &seeds, &root) {
            panic!("{report}");
        }
        return;
    }

    // Formats take turns; two workers, as many cases as the budget allows.
    let next: Vec<AtomicU64> = Format::ALL.iter().map(|_| AtomicU64::new(0)).collect();
    let turn = AtomicU64::new(0);
    let failures = Mutex::new(Vec::new());
    let start = Instant::now();
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 4);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while start.elapsed() < budget && failures.lock().unwrap().len() < 20 {
                    let f =
                        (turn.fetch_add(1, Ordering::Relaxed) % Format::ALL.len() as u64) as usize;
                    let index = next[f].fetch_add(1, Ordering::Relaxed);
                    if let Some(report) = run_case(Format::ALL[f], index, seed, &seeds, &root) {
                        eprintln!("{report}\n");
                        failures.lock().unwrap().push(report);
                    }
                }
            });
        }
    });
    let counts: Vec<String> = Format::ALL
        .iter()
        .zip(&next)
        .map(|(f, n)| format!("{} {}", f.name(), n.load(Ordering::Relaxed)))
        .collect();
    eprintln!(
        "input fuzz: {} cases in {:.0} s (seed {seed:#x}): {}",
        next.iter().map(|n| n.load(Ordering::Relaxed)).sum::<u64>(),
        start.elapsed().as_secs_f64(),
        counts.join(", ")
    );
    let failures = failures.into_inner().unwrap();
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&root);
    }
    assert!(
        failures.is_empty(),
        "{} failing case(s); the first:\n{}",
        failures.len(),
        failures[0]
    );
    for (f, n) in Format::ALL.iter().zip(&next) {
        assert!(
            n.load(Ordering::Relaxed) >= 20,
            "{}: only {} cases ran in the budget",
            f.name(),
            n.load(Ordering::Relaxed)
        );
    }
}
