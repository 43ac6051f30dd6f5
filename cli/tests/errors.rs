//! `docs/errors.md` checked against the program: every row of its table of
//! failures is run (its reproducer, through bash from the repository root
//! with the built `concord` first on `PATH`) and must exit with the row's
//! code and print a standard error of the row's shape. The class table's
//! codes are checked against the rows too, so that the doc cannot drift.

mod common;

use std::path::Path;
use std::process::Command;

use common::{output_within, repo, LIMIT};

/// One row of the failures table.
struct Row {
    class: String,
    exit: i32,
    failure: String,
    /// The lines a report starts with, each a shape; empty: no output.
    shape: Vec<String>,
    /// The shell command, or `None` for a documented `none: <why>`.
    reproducer: Option<String>,
}

/// The cells of a Markdown table row, with `\|` unescaped and one level
/// of code span (any number of backticks) removed.
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cell.push('|');
                chars.next();
            }
            '|' => cells.push(std::mem::take(&mut cell)),
            _ => cell.push(c),
        }
    }
    cells.push(cell);
    cells.iter().map(|c| c.trim().to_string()).collect()
}

/// The text of a code span `` `x` `` or ``` `` x `` ```; other text as is.
fn unquote(text: &str) -> String {
    let t = text.trim();
    let ticks = t.chars().take_while(|&c| c == '`').count();
    if ticks == 0 || t.len() < 2 * ticks {
        return t.to_string();
    }
    let fence = &t[..ticks];
    match t[ticks..].strip_suffix(fence) {
        // As CommonMark: one space is stripped from each end if both have one.
        Some(inner) => match inner.strip_prefix(' ').and_then(|i| i.strip_suffix(' ')) {
            Some(stripped) => stripped.to_string(),
            None => inner.to_string(),
        },
        None => t.to_string(),
    }
}

/// The tables of the doc: (header cells, rows of cells) per table.
fn tables(doc: &str) -> Vec<(Vec<String>, Vec<Vec<String>>)> {
    let mut tables = Vec::new();
    let lines: Vec<&str> = doc.lines().collect();
    let mut i = 0;
    while i + 1 < lines.len() {
        if lines[i].starts_with('|') && lines[i + 1].starts_with("|---") {
            let header = cells(lines[i]);
            let mut rows = Vec::new();
            i += 2;
            while i < lines.len() && lines[i].starts_with('|') {
                rows.push(cells(lines[i]));
                i += 1;
            }
            tables.push((header, rows));
        } else {
            i += 1;
        }
    }
    tables
}

fn doc() -> String {
    std::fs::read_to_string(repo().join("docs/errors.md")).expect("docs/errors.md")
}

/// The failures table: the one whose header has a reproducer column.
fn rows(doc: &str) -> Vec<Row> {
    let (header, rows) = tables(doc)
        .into_iter()
        .find(|(h, _)| h.iter().any(|c| c == "Reproducer"))
        .expect("a table with a Reproducer column");
    assert_eq!(
        header,
        ["Class", "Exit", "Failure", "Message shape", "Reproducer"]
    );
    rows.into_iter()
        .map(|c| {
            assert_eq!(c.len(), 5, "five cells: {c:?}");
            let shape = if c[3] == "(none)" {
                Vec::new()
            } else {
                c[3].split("<br>").map(unquote).collect()
            };
            let reproducer = if c[4].starts_with("none:") {
                assert!(c[4].len() > "none: ".len() + 10, "say why: {c:?}");
                None
            } else {
                Some(unquote(&c[4]))
            };
            Row {
                class: c[0].clone(),
                exit: c[1].parse().unwrap_or_else(|_| panic!("exit code: {c:?}")),
                failure: c[2].clone(),
                shape,
                reproducer,
            }
        })
        .collect()
}

/// Whether `text` matches `shape`: literal text, `<line>`-like holes for
/// numbers, other `<name>` holes for any non-empty text. A shape may offer
/// alternatives, joined by `` ` or ` ``.
fn matches(shape: &str, text: &str) -> bool {
    shape
        .split("` or `")
        .any(|alternative| matches_one(&segments(alternative), text))
}

enum Segment {
    Literal(String),
    Number,
    Text,
}

fn segments(shape: &str) -> Vec<Segment> {
    const NUMBERS: [&str; 7] = ["line", "col", "offset", "pc", "warp", "bytes", "n"];
    let mut out = Vec::new();
    let mut rest = shape;
    while let Some(open) = rest.find('<') {
        let close = match rest[open..].find('>') {
            Some(c)
                if rest[open + 1..open + c]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && c > 1 =>
            {
                open + c
            }
            _ => {
                out.push(Segment::Literal(rest[..=open].to_string()));
                rest = &rest[open + 1..];
                continue;
            }
        };
        out.push(Segment::Literal(rest[..open].to_string()));
        let name = &rest[open + 1..close];
        out.push(if NUMBERS.contains(&name) {
            Segment::Number
        } else {
            Segment::Text
        });
        rest = &rest[close + 1..];
    }
    out.push(Segment::Literal(rest.to_string()));
    out.retain(|s| !matches!(s, Segment::Literal(l) if l.is_empty()));
    out
}

fn matches_one(shape: &[Segment], text: &str) -> bool {
    match shape.split_first() {
        None => text.is_empty(),
        Some((Segment::Literal(l), rest)) => text
            .strip_prefix(l.as_str())
            .is_some_and(|t| matches_one(rest, t)),
        Some((hole, rest)) => {
            // Every non-empty prefix, shortest first.
            text.char_indices()
                .skip(1)
                .map(|(i, _)| i)
                .chain([text.len()])
                .filter(|&i| i > 0)
                .take_while(|&i| match hole {
                    Segment::Number => text[..i].chars().all(|c| c.is_ascii_digit()),
                    _ => true,
                })
                .any(|i| matches_one(rest, &text[i..]))
        }
    }
}

#[test]
fn the_shape_matcher_matches_what_it_should_and_only_that() {
    assert!(matches(
        "error: <file>:<line>:<col>: <message>",
        "error: a.s:2:9: bad"
    ));
    assert!(!matches(
        "error: <file>:<line>:<col>: <message>",
        "error: a.s:x:9: bad"
    ));
    assert!(!matches("error: <file>: <message>", "warning: a.s: bad"));
    assert!(!matches("error: <message>", "error: "));
    assert!(matches("error: `<field>`: <message>", "error: `lanes`: 64"));
    assert!(matches("a <n> b` or `c <n>", "c 12"));
    assert!(!matches("a <n> b` or `c <n>", "a 1"));
    assert_eq!(unquote("`` a `b` ``"), "a `b`");
    assert_eq!(cells("| a | `x \\| y` |"), ["a", "`x | y`"]);
}

#[test]
fn every_class_has_one_exit_code_and_every_row_uses_it() {
    let doc = doc();
    let (header, classes) = tables(&doc)
        .into_iter()
        .find(|(h, _)| h.first().is_some_and(|c| c == "Class") && h.len() == 3)
        .expect("the classes table");
    assert_eq!(header, ["Class", "Exit", "What failed"]);
    let code = |class: &str| -> Vec<i32> {
        let row = classes
            .iter()
            .find(|r| r[0] == class)
            .unwrap_or_else(|| panic!("class {class} is not in the classes table"));
        row[1].split(", ").map(|c| c.parse().unwrap()).collect()
    };
    // The CLI's classes and codes (cli/src/error.rs).
    for (class, exit) in [
        ("Input", 1),
        ("Usage", 2),
        ("Trap", 3),
        ("Mismatch", 4),
        ("Tool", 5),
        ("Closed pipe", 141),
    ] {
        assert_eq!(code(class), [exit], "{class}");
    }
    for row in rows(&doc) {
        assert!(
            code(&row.class).contains(&row.exit),
            "{}: exit {} is not a code of class {}",
            row.failure,
            row.exit,
            row.class
        );
    }
}

#[test]
fn every_documented_failure_happens_as_documented() {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_concord"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(bin_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let rows = rows(&doc());
    assert!(rows.len() >= 20, "{} rows", rows.len());
    let mut failures = Vec::new();
    for row in &rows {
        let Some(command) = &row.reproducer else {
            continue;
        };
        let out = output_within(
            Command::new("bash")
                .args(["-o", "pipefail", "-c", command])
                .current_dir(repo())
                .env("PATH", &path),
            None,
            LIMIT,
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = stderr.lines().collect();
        let code = out.status.code();
        let shaped = if row.shape.is_empty() {
            stderr.is_empty()
        } else {
            lines.len() >= row.shape.len()
                && row
                    .shape
                    .iter()
                    .zip(&lines)
                    .all(|(shape, line)| matches(shape.trim(), line.trim()))
        };
        let one_error = lines.iter().filter(|l| l.starts_with("error:")).count() <= 1;
        if code != Some(row.exit) || !shaped || !one_error || stderr.contains("panicked") {
            failures.push(format!(
                "{} ({command}): exit {code:?}, documented {}; stderr:\n{stderr}",
                row.failure, row.exit
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
