//! `concord synth-report`'s command line: what is refused before any
//! synthesis starts. (Its failures with tools are rows of docs/errors.md;
//! the place-and-route flow itself is tested in `fpga/tests/pnr.rs`.)

mod common;

use std::time::{Duration, Instant};

use common::failing;

/// Fails with `code` within a few seconds (no synthesis ran); stderr.
fn refused(args: &[&str], code: i32) -> String {
    let t = Instant::now();
    let (got, stderr) = failing(args);
    assert_eq!(got, Some(code), "{args:?}: {stderr}");
    assert!(
        t.elapsed() < Duration::from_secs(60),
        "{args:?} took {:?}",
        t.elapsed()
    );
    assert_eq!(
        stderr.lines().filter(|l| l.starts_with("error:")).count(),
        1,
        "{stderr}"
    );
    stderr
}

#[test]
fn bad_options_are_usage_errors() {
    let e = refused(&["synth-report", "--pnr", "ecp5-12f", "-o", "/dev/null"], 2);
    assert!(
        e.contains("`ecp5-12f` is not a device; one of: ecp5-25f, ecp5-45f, ecp5-85f, ice40-hx8k"),
        "{e}"
    );
    let e = refused(&["synth-report", "--seed", "3", "-o", "/dev/null"], 2);
    assert!(e.contains("--pnr"), "{e}");
    let e = refused(
        &["synth-report", "--lanes-delta", "8,4", "-o", "/dev/null"],
        2,
    );
    assert!(e.contains("with A < B"), "{e}");
    let e = refused(&["synth-report", "--no-area", "-o", "/dev/null"], 2);
    assert!(e.contains("--no-area leaves nothing to report"), "{e}");
    let e = refused(
        &[
            "synth-report",
            "--freq",
            "0",
            "--pnr",
            "ecp5-45f",
            "-o",
            "/dev/null",
        ],
        2,
    );
    assert!(e.contains("not a frequency"), "{e}");
    let e = refused(
        &[
            "synth-report",
            "--pnr",
            "ecp5-45f",
            "--placer",
            "force",
            "-o",
            "/dev/null",
        ],
        2,
    );
    assert!(
        e.contains("`force` is not a placer; one of: heap, static, sa"),
        "{e}"
    );
    // Debian's nextpnr-ice40 0.4 has no `static` placer.
    let e = refused(
        &[
            "synth-report",
            "--pnr",
            "ecp5-45f",
            "--pnr",
            "ice40-hx8k",
            "--placer",
            "static",
            "-o",
            "/dev/null",
        ],
        2,
    );
    assert!(
        e.contains("--placer static: the nextpnr for ice40-hx8k has no such placer"),
        "{e}"
    );
    let e = refused(&["synth-report", "--timeout", "0", "-o", "/dev/null"], 2);
    assert!(e.contains("--timeout"), "{e}");
    // The other lane count's config is checked before any synthesis.
    let e = refused(
        &["synth-report", "--lanes-delta", "4,64", "-o", "/dev/null"],
        2,
    );
    assert!(
        e.contains("--lanes-delta: the config with `lanes: 64`: config field `lanes`"),
        "{e}"
    );
    // An unknown generator preset is named with the known ones; `--core`
    // went with the first core.
    for command in ["synth-report", "verilog"] {
        let e = refused(&[command, "--preset", "fast", "-o", "/dev/null"], 2);
        assert!(e.contains("'fast'") && e.contains("board, sim"), "{e}");
        let e = refused(&[command, "--core", "v2", "-o", "/dev/null"], 2);
        assert!(e.contains("--core"), "{e}");
    }
}

#[test]
fn a_pnr_directory_that_cannot_be_made_fails_first() {
    let e = refused(
        &[
            "synth-report",
            "--pnr",
            "ecp5-45f",
            "--pnr-dir",
            "/dev/null/pnr",
            "-o",
            "/dev/null",
        ],
        1,
    );
    assert!(e.starts_with("error: --pnr-dir /dev/null/pnr: "), "{e}");
}
