//! The generated Verilog: port list, configuration errors, Verilator lint
//! (`-Wall`, no warnings) and Yosys synthesis (iCE40 and ECP5), for
//! `configs/small.yaml` and the default configuration.
//!
//! Run times on the development machine (2 cores) are in `hdl/README.md`.
//! The default-configuration syntheses are the longest tests of the CI tier
//! (about 10 minutes of CPU each with Yosys 0.23; the two targets run in
//! parallel test threads).

mod common;

use std::process::Command;
use std::time::Duration;

use concord_hdl::{generate_verilog, HdlError};
use concord_isa::config::CoreConfig;
use concord_uarch::PORTS;

/// (name, direction, width) of the ports of `module`, from its header and
/// declarations (rust-hdl writes non-ANSI headers, one declaration a line).
fn ports_of(verilog: &str, module: &str) -> Vec<(String, String, usize)> {
    let start = verilog
        .find(&format!("module {module}("))
        .unwrap_or_else(|| panic!("no module {module}"));
    let body = &verilog[start..];
    let header_end = body.find(");").unwrap();
    let names: Vec<&str> = body[module.len() + 8..header_end].split(',').collect();
    let mut out = Vec::new();
    for name in names {
        let name = name.trim();
        let decl = body
            .lines()
            .find(|l| {
                let t = l.trim();
                (t.starts_with("input") || t.starts_with("output"))
                    && t.trim_end_matches(';').split_whitespace().last() == Some(name)
            })
            .unwrap_or_else(|| panic!("no declaration of {name}"));
        let dir = decl.split_whitespace().next().unwrap().to_string();
        let width = match (decl.find('['), decl.find(':')) {
            (Some(a), Some(b)) => decl[a + 1..b].trim().parse::<usize>().unwrap() + 1,
            _ => 1,
        };
        out.push((name.to_string(), dir, width));
    }
    out
}

#[test]
fn top_module_has_exactly_the_documented_ports() {
    for cfg in [common::load_config("small.yaml"), CoreConfig::default()] {
        let v = generate_verilog(&cfg).unwrap();
        let ports = ports_of(&v, "concord_core");
        // The contract's port list (docs/microarchitecture.md §8-§10, with
        // clock and reset), in order.
        let want: Vec<(String, String, usize)> = PORTS
            .iter()
            .map(|p| {
                (
                    p.name.to_string(),
                    p.dir.verilog().to_string(),
                    p.width as usize,
                )
            })
            .collect();
        assert_eq!(ports, want);
        // One arbiter module, instantiated once.
        assert_eq!(v.matches("\nmodule arbiter(").count(), 1);
        assert_eq!(v.matches("arbiter arbiter(").count(), 1);
        assert!(!v.contains("module top"), "top module renamed");
    }
}

fn field_of(e: HdlError) -> &'static str {
    match e {
        HdlError::Config { field, .. } => field,
    }
}

#[test]
fn unbuildable_configs_name_the_field() {
    let base = CoreConfig::default();
    let cases: Vec<(CoreConfig, &str)> = vec![
        (
            CoreConfig {
                lanes: 12,
                ..base.clone()
            },
            "lanes",
        ),
        (
            CoreConfig {
                lanes: 2,
                ..base.clone()
            },
            "lanes",
        ),
        (
            CoreConfig {
                warps: 17,
                ..base.clone()
            },
            "warps",
        ),
        (
            CoreConfig {
                registers: 33,
                ..base.clone()
            },
            "registers",
        ),
        (
            CoreConfig {
                predicates: 9,
                ..base.clone()
            },
            "predicates",
        ),
        (
            CoreConfig {
                shared_banks: 3,
                shared_memory_bytes: 12 * 512,
                ..base.clone()
            },
            "shared_banks",
        ),
        (
            CoreConfig {
                shared_memory_bytes: 3 * 4 * 8,
                ..base.clone()
            },
            "shared_memory_bytes",
        ),
        (
            CoreConfig {
                imem_words: 1000,
                ..base.clone()
            },
            "imem_words",
        ),
        (
            CoreConfig {
                call_depth_bits: 17,
                ..base.clone()
            },
            "call_depth_bits",
        ),
        (
            CoreConfig {
                global_line_bytes: 24,
                ..base.clone()
            },
            "global_line_bytes",
        ),
    ];
    for (cfg, field) in cases {
        let e = generate_verilog(&cfg).unwrap_err();
        assert_eq!(field_of(e.clone()), field, "{e}");
        assert!(e.to_string().contains(field), "{e}");
    }
    // Odd but buildable: 3 warps, 5 registers (RP = 8).
    let ok = CoreConfig {
        warps: 3,
        registers: 5,
        ..base
    };
    generate_verilog(&ok).unwrap();
}

fn lint(config: &CoreConfig, tag: &str) {
    common::require("verilator");
    let dir = common::scratch(&format!("lint-{tag}"));
    common::write_verilog(config, &dir);
    let (ok, log, t) = common::run_bounded(
        Command::new("verilator").current_dir(&dir).args([
            "--lint-only",
            "-Wall",
            "concord_core.v",
        ]),
        Duration::from_secs(300),
    );
    eprintln!("verilator lint ({tag}): {:.1} s", t.as_secs_f64());
    assert!(ok && log.trim().is_empty(), "lint of {tag}:\n{log}");
}

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
        report.contains("Used module:") && report.contains("\\arbiter"),
        "the arbiter module appears in the synthesis report"
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
fn lint_small() {
    lint(&common::load_config("small.yaml"), "small");
}

#[test]
fn lint_default() {
    lint(&CoreConfig::default(), "default");
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
