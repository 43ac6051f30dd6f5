//! Yosys synthesis (iCE40 and ECP5) of the generated core (board preset),
//! for `configs/small.yaml` and the default configuration. Its port list,
//! configuration errors and Verilator lint are in `tests/v2_core.rs`.
//!
//! Run times on the development machine (2 cores) are in `hdl/README.md`.
//! The default-configuration syntheses are the longest tests of the CI tier
//! (about 10 minutes of CPU each with Yosys 0.23; the two targets run in
//! parallel test threads).

mod common;

use std::process::Command;
use std::time::Duration;

use concord_isa::config::CoreConfig;

fn synth(config: &CoreConfig, tag: &str, flow: &str, limit: Duration) {
    common::require("yosys");
    let dir = common::scratch(&format!("synth-{tag}-{flow}"));
    common::write_verilog(config, &dir);
    // The vendor script up to its `check` step, then that step without
    // `autoname` (it only renames wires; see concord_fpga::flat_synth_steps).
    let script = format!(
        "read_verilog concord_core.v; {flow} -top concord_core -run :check; \
         hierarchy -check; stat; check -noinit"
    );
    let (ok, log, t) = common::run_bounded(
        Command::new("yosys")
            .current_dir(&dir)
            .args(["-q", "-l", "yosys.log", "-p", &script]),
        limit,
    );
    eprintln!("yosys {flow} ({tag}): {:.1} s", t.as_secs_f64());
    let report = std::fs::read_to_string(dir.join("yosys.log")).unwrap_or_default();
    assert!(ok, "yosys {flow} of {tag} failed:\n{log}");
    assert!(
        report.contains("Used module:") && report.contains("\\concord_arbiter"),
        "an arbiter module of §9.1 appears in the synthesis report"
    );
    // Register files and shared memory are block RAMs, not flip-flops.
    let ram = if flow == "synth_ice40" {
        "SB_RAM40_4K"
    } else {
        "DP16KD"
    };
    assert!(report.contains(ram), "{ram} in the {flow} report");
}

#[test]
fn synth_ice40_small() {
    synth(
        &common::load_config("small.yaml"),
        "small",
        "synth_ice40",
        Duration::from_secs(1200),
    );
}

#[test]
fn synth_ecp5_small() {
    synth(
        &common::load_config("small.yaml"),
        "small",
        "synth_ecp5",
        Duration::from_secs(1200),
    );
}

#[test]
fn synth_ice40_default() {
    synth(
        &CoreConfig::default(),
        "default",
        "synth_ice40",
        Duration::from_secs(5400),
    );
}

#[test]
fn synth_ecp5_default() {
    synth(
        &CoreConfig::default(),
        "default",
        "synth_ecp5",
        Duration::from_secs(5400),
    );
}
