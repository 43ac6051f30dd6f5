//! Without `verilator` on PATH, building says how to get it. (A test binary
//! of its own: it changes PATH for the whole process.)

mod toy;

use concord_testbench::verilator::{BuildOptions, HarnessError};

#[test]
fn a_missing_verilator_is_reported_with_the_fix() {
    let empty = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    std::env::set_var("PATH", &empty);
    let options = BuildOptions {
        cache_dir: Some(empty.join("cache")),
        ..BuildOptions::default()
    };
    let e = toy::build(&toy::verilog(), &options).unwrap_err();
    assert!(matches!(e, HarnessError::VerilatorNotFound), "{e:?}");
    assert_eq!(
        e.to_string(),
        "verilator not found: run scripts/setup.sh (it installs Verilator from the OS packages)"
    );
    assert!(!empty.join("cache").exists(), "nothing is written");
}
