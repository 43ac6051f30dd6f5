//! What the CLI's end-to-end tests share: running the `concord` binary
//! from the repository root.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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
/// panic; returns the exit code and stderr.
pub fn failing(args: &[&str]) -> (Option<i32>, String) {
    let out = concord(args);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!out.status.success(), "concord {args:?} should fail");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    (out.status.code(), stderr)
}
