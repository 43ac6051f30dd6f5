//! The filetest runner: every `filetests/**/*.cir` file is parsed, run
//! through the pass its header names, and its output matched against the
//! file's directives.
//!
//! A file looks like:
//!
//! ```text
//! ; test: mem2reg
//! kernel @k() { ... }
//! ; check: v3 = iadd v1, v2
//! ; nextln: return
//! ; not: stack_addr
//! ```
//!
//! Directives (all are IR comments, so the whole file is the IR text):
//!
//! * `; check: P` — some output line at or after the current position
//!   contains `P`; the position moves past it.
//! * `; nextln: P` — the output line right after the previous match
//!   contains `P`.
//! * `; not: P` — no output line between the previous and the next match
//!   contains `P`; a `not:` before the first `check:` applies to the whole
//!   output.
//! * `; error: P` — parsing or the pass fails with a message containing
//!   `P` (and must fail).
//!
//! `CONCORD_BLESS=1` rewrites each file's `check:`/`nextln:`/`error:` lines
//! (wherever they are) as `; check:` lines, one per non-empty output line,
//! at the end of the file (or one `; error:` line); `not:` lines are kept.
//! `CONCORD_FILETEST=substring` runs only the files whose path contains it.

use std::fs;
use std::path::{Path, PathBuf};

use concord_compiler::filetest::run_pass;
use concord_compiler::ir::parse_module;

#[derive(Clone, Debug, PartialEq)]
enum Directive {
    Check(String),
    Nextln(String),
    Not(String),
    Error(String),
}

impl Directive {
    fn parse(line: &str) -> Option<Directive> {
        let body = line.trim_start().strip_prefix(';')?.trim_start();
        let (kind, pattern) = body.split_once(':')?;
        let pattern = pattern.trim().to_string();
        match kind {
            "check" => Some(Directive::Check(pattern)),
            "nextln" => Some(Directive::Nextln(pattern)),
            "not" => Some(Directive::Not(pattern)),
            "error" => Some(Directive::Error(pattern)),
            _ => None,
        }
    }

    fn text(&self) -> String {
        match self {
            Directive::Check(p) => format!("; check: {p}"),
            Directive::Nextln(p) => format!("; nextln: {p}"),
            Directive::Not(p) => format!("; not: {p}"),
            Directive::Error(p) => format!("; error: {p}"),
        }
    }
}

/// The `; test: <name>` header: the first line that is not blank.
fn test_name(text: &str) -> Option<&str> {
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    let body = first.trim_start().strip_prefix(';')?.trim_start();
    Some(body.strip_prefix("test:")?.trim())
}

/// What running a file produced: output text or an error message.
/// `error_summary` is the one-line form blessing writes.
enum Outcome {
    Output(String),
    Failed {
        message: String,
        error_summary: String,
    },
}

fn run_file(path: &Path, text: &str) -> Result<Outcome, String> {
    let name = test_name(text).ok_or("the file does not start with `; test: <pass>`")?;
    let file = path.to_string_lossy();
    let mut module = match parse_module(text, &file) {
        Ok(m) => m,
        Err(e) => {
            // `file:line:col: message`, then the source line with a caret.
            return Ok(Outcome::Failed {
                message: format!("{e}\n{}", e.render()),
                error_summary: e.to_string(),
            });
        }
    };
    Ok(match run_pass(name, &mut module, &file) {
        Ok(out) => Outcome::Output(out),
        Err(e) => Outcome::Failed {
            error_summary: e.lines().next().unwrap_or("").to_string(),
            message: e,
        },
    })
}

/// Matches the directives against the output; the first one that fails.
fn check_output(directives: &[Directive], output: &str) -> Result<(), String> {
    let lines: Vec<&str> = output.lines().collect();
    let mut pos = 0usize;
    let mut last_match: Option<usize> = None;
    let mut pending_nots: Vec<&str> = Vec::new();
    let mut saw_positive = false;
    let not_violation = |nots: &[&str], range: std::ops::Range<usize>| -> Option<String> {
        for &p in nots {
            if let Some(i) = range.clone().find(|&i| lines[i].contains(p)) {
                return Some(format!(
                    "`; not: {p}` matches output line {}: {}",
                    i + 1,
                    lines[i]
                ));
            }
        }
        None
    };
    for d in directives {
        match d {
            Directive::Not(p) => {
                if saw_positive {
                    pending_nots.push(p);
                } else if let Some(e) = not_violation(&[p.as_str()], 0..lines.len()) {
                    return Err(e);
                }
            }
            Directive::Check(p) => {
                saw_positive = true;
                let Some(i) = (pos..lines.len()).find(|&i| lines[i].contains(p.as_str())) else {
                    return Err(format!(
                        "`; check: {p}` has no match after output line {pos}"
                    ));
                };
                if let Some(e) = not_violation(&pending_nots, pos..i) {
                    return Err(e);
                }
                pending_nots.clear();
                last_match = Some(i);
                pos = i + 1;
            }
            Directive::Nextln(p) => {
                saw_positive = true;
                let Some(prev) = last_match else {
                    return Err(format!("`; nextln: {p}` without a preceding check"));
                };
                let i = prev + 1;
                if !lines.get(i).is_some_and(|l| l.contains(p.as_str())) {
                    return Err(format!(
                        "`; nextln: {p}` does not match output line {}: {}",
                        i + 1,
                        lines.get(i).copied().unwrap_or("<end of output>")
                    ));
                }
                if let Some(e) = not_violation(&pending_nots, pos..i) {
                    return Err(e);
                }
                pending_nots.clear();
                last_match = Some(i);
                pos = i + 1;
            }
            Directive::Error(_) => {}
        }
    }
    if let Some(e) = not_violation(&pending_nots, pos..lines.len()) {
        return Err(e);
    }
    Ok(())
}

/// Checks one file; `Err` describes the failure.
fn check_file(path: &Path, text: &str) -> Result<(), String> {
    let directives: Vec<Directive> = text.lines().filter_map(Directive::parse).collect();
    // A file without expectations would pass whatever the pass does.
    if !directives
        .iter()
        .any(|d| matches!(d, Directive::Check(_) | Directive::Error(_)))
    {
        return Err("no `; check:` or `; error:` lines".into());
    }
    let errors: Vec<&str> = directives
        .iter()
        .filter_map(|d| match d {
            Directive::Error(p) => Some(p.as_str()),
            _ => None,
        })
        .collect();
    match run_file(path, text)? {
        Outcome::Output(out) => {
            if let Some(p) = errors.first() {
                return Err(format!(
                    "expected an error containing `{p}`, but the pass succeeded\n--- output ---\n{out}"
                ));
            }
            check_output(&directives, &out).map_err(|e| format!("{e}\n--- output ---\n{out}"))
        }
        Outcome::Failed { message, .. } => {
            if errors.is_empty() {
                return Err(format!("unexpected error:\n{message}"));
            }
            for p in errors {
                if !message.contains(p) {
                    return Err(format!("the error does not contain `{p}`:\n{message}"));
                }
            }
            Ok(())
        }
    }
}

/// The file with its check/nextln/error lines replaced by the output.
fn blessed(path: &Path, text: &str) -> Result<String, String> {
    let mut kept: Vec<&str> = text
        .lines()
        .filter(|l| {
            !matches!(
                Directive::parse(l),
                Some(Directive::Check(_) | Directive::Nextln(_) | Directive::Error(_))
            )
        })
        .collect();
    while kept.last().is_some_and(|l| l.trim().is_empty()) {
        kept.pop();
    }
    let mut out: Vec<String> = kept.into_iter().map(str::to_string).collect();
    match run_file(path, text)? {
        Outcome::Output(output) => {
            for line in output.lines().map(str::trim).filter(|l| !l.is_empty()) {
                out.push(Directive::Check(line.to_string()).text());
            }
        }
        Outcome::Failed { error_summary, .. } => {
            out.push(Directive::Error(error_summary).text());
        }
    }
    Ok(out.join("\n") + "\n")
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "cir") {
            out.push(path);
        }
    }
}

#[test]
fn filetests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    collect_files(&root.join("filetests"), &mut files);
    files.sort();
    let filter = std::env::var("CONCORD_FILETEST").unwrap_or_default();
    let bless = std::env::var("CONCORD_BLESS").is_ok_and(|v| v == "1");
    let mut failures = Vec::new();
    let mut ran = 0;
    for path in files {
        let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
        if !rel.to_string_lossy().contains(filter.as_str()) {
            continue;
        }
        ran += 1;
        let text = match fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{}: cannot read: {e}", rel.display()));
                continue;
            }
        };
        if bless {
            match blessed(&rel, &text) {
                Ok(new) if new != text => {
                    if let Err(e) = fs::write(&path, new) {
                        failures.push(format!("{}: cannot write: {e}", rel.display()));
                    }
                }
                Ok(_) => {}
                Err(e) => failures.push(format!("{}: {e}", rel.display())),
            }
            continue;
        }
        if let Err(e) = check_file(&rel, &text) {
            failures.push(format!("{}: {e}", rel.display()));
        }
    }
    if !failures.is_empty() {
        panic!(
            "{} of {ran} filetests failed:\n\n{}",
            failures.len(),
            failures.join("\n\n")
        );
    }
    eprintln!("{ran} filetests passed");
}

#[cfg(test)]
mod matching {
    use super::*;

    fn directives(text: &str) -> Vec<Directive> {
        text.lines().filter_map(Directive::parse).collect()
    }

    const OUT: &str = "a = 1\nb = 2\nc = 3\nd = 4\n";

    #[test]
    fn check_in_order() {
        assert!(check_output(&directives("; check: b\n; check: d"), OUT).is_ok());
        assert!(check_output(&directives("; check: d\n; check: b"), OUT).is_err());
    }

    #[test]
    fn nextln_is_adjacent() {
        assert!(check_output(&directives("; check: b\n; nextln: c"), OUT).is_ok());
        assert!(check_output(&directives("; check: b\n; nextln: d"), OUT).is_err());
        assert!(check_output(&directives("; check: d\n; nextln: x"), OUT).is_err());
    }

    #[test]
    fn not_between_matches() {
        assert!(check_output(&directives("; check: a\n; not: c\n; check: b"), OUT).is_ok());
        assert!(check_output(&directives("; check: a\n; not: b\n; check: c"), OUT).is_err());
        assert!(check_output(&directives("; check: c\n; not: d"), OUT).is_err());
        assert!(check_output(&directives("; check: c\n; not: a"), OUT).is_ok());
        // Before any check: the whole output.
        assert!(check_output(&directives("; not: d\n; check: a"), OUT).is_err());
    }

    #[test]
    fn header() {
        assert_eq!(test_name("\n; test: layout\nkernel"), Some("layout"));
        assert_eq!(test_name("kernel"), None);
    }
}
