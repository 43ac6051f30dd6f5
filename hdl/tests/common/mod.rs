//! Shared helpers of the integration tests: configurations, Verilog
//! generation into the test's scratch directory, and running external tools
//! with a time bound.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use concord_isa::config::CoreConfig;

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn load_config(name: &str) -> CoreConfig {
    CoreConfig::load(&repo_root().join("configs").join(name)).unwrap()
}

/// A scratch directory under cargo's per-test temporary directory.
pub fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Writes the core's Verilog for `config` as `dir/concord_core.v`.
pub fn write_verilog(config: &CoreConfig, dir: &Path) -> PathBuf {
    let v = concord_hdl::generate_verilog(config).unwrap();
    let path = dir.join("concord_core.v");
    std::fs::write(&path, v).unwrap();
    path
}

pub fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

/// Runs a command with a time limit; returns (success, stdout+stderr, time).
pub fn run_bounded(cmd: &mut Command, limit: Duration) -> (bool, String, Duration) {
    let t0 = Instant::now();
    let dir = std::env::temp_dir();
    let id = format!(
        "concord-hdl-{}-{}",
        std::process::id(),
        t0.elapsed().as_nanos() ^ (cmd as *const Command as u128)
    );
    let out_path = dir.join(format!("{id}.log"));
    let out = std::fs::File::create(&out_path).unwrap();
    let err = out.try_clone().unwrap();
    let mut child = cmd
        .stdout(Stdio::from(out))
        .stderr(Stdio::from(err))
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let ok = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.success();
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            let log = std::fs::read_to_string(&out_path).unwrap_or_default();
            let _ = std::fs::remove_file(&out_path);
            panic!("{cmd:?} exceeded {limit:?}\n{log}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let log = std::fs::read_to_string(&out_path).unwrap_or_default();
    let _ = std::fs::remove_file(&out_path);
    (ok, log, t0.elapsed())
}
