//! `concord study spill`, `concord study divergence` and the
//! `--divergence` compile flag end to end, on small launch subsets so that
//! they take seconds.

mod common;

use common::{concord, failing, ok};

/// Runs and expects a non-zero exit with one `error:` report; returns stderr.
fn fails(args: &[&str]) -> String {
    failing(args).1
}

/// The cells of the table rows (lines starting with `| `) whose first cell
/// is `first`.
fn rows<'a>(out: &'a str, first: &str) -> Vec<Vec<&'a str>> {
    out.lines()
        .filter_map(|l| l.strip_prefix("| "))
        .map(|l| l.trim_end_matches(" |").split(" | ").collect::<Vec<_>>())
        .filter(|cells| cells[0] == first)
        .collect()
}

#[test]
fn bad_divergence_values_are_errors() {
    for command in ["compile", "run", "cosim"] {
        let input = if command == "compile" {
            "kernels/suite/reduce.cu"
        } else {
            "kernels/suite/reduce.yaml"
        };
        let e = fails(&[command, input, "--divergence", "foo"]);
        assert!(e.contains("--divergence"), "{e}");
        assert!(
            e.contains("`foo` is not one of branch, predicate, auto"),
            "{e}"
        );
    }
    let (code, e) = failing(&["study", "spill", "--regs", "3"]);
    assert_eq!(code, Some(2), "{e}");
    assert!(e.contains("--regs <N,...>': 3 is not in 4..=32"), "{e}");
    let (code, e) = failing(&["study", "divergence", "--regs", "40"]);
    assert_eq!(code, Some(2), "{e}");
    assert!(e.contains("--regs <N>': 40 is not in 4..=32"), "{e}");
    let (code, e) = failing(&["study", "divergence", "--launches", "nosuch"]);
    assert_eq!(code, Some(2), "{e}");
    assert!(
        e.contains("`nosuch` is neither a suite kernel nor a suite launch"),
        "{e}"
    );
}

#[test]
fn every_divergence_strategy_compiles_runs_and_reports_branch_fates() {
    for strategy in ["branch", "predicate", "auto"] {
        let out = ok(&[
            "run",
            "kernels/suite/reduce.yaml",
            "--model",
            "cycle",
            "--divergence",
            strategy,
        ]);
        assert!(out.contains("cycles"), "{out}");
    }
    let dir = std::env::temp_dir().join(format!("concord-study-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bin = dir.join("reduce.cbin");
    let out = concord(&[
        "compile",
        "kernels/suite/reduce.cu",
        "--stats",
        "--divergence",
        "auto",
        "-o",
        bin.to_str().unwrap(),
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.trim_start().starts_with("branches "))
        .unwrap_or_else(|| panic!("no branches line:\n{stderr}"));
    for part in [
        " uniform (SBU), ",
        " runtime-checked (RBU), ",
        " loop consensual, ",
        " predicated, ",
        " divergent kept",
    ] {
        assert!(line.contains(part), "missing `{part}`: {line}");
    }
}

#[test]
fn spill_study_prints_a_checked_table_and_the_geometric_mean() {
    let out = ok(&[
        "study",
        "spill",
        "--launches",
        "vecadd,reduce",
        "--regs",
        "8,32",
    ]);
    assert!(
        out.contains("| kernel | regs | plain per lane | per lane | per warp | remat | cycles plain | cycles div-aware | speedup |"),
        "{out}"
    );
    let vecadd = rows(&out, "vecadd");
    let reduce = rows(&out, "reduce");
    assert_eq!((vecadd.len(), reduce.len()), (2, 2), "{out}");
    assert!(reduce.iter().all(|r| r.len() == 9), "{out}");
    assert_eq!((reduce[0][1], reduce[1][1]), ("8", "32"), "{out}");
    // Eight registers force reduce to spill; 32 force nothing anywhere.
    assert_ne!(reduce[0][2], "0", "{out}");
    assert_eq!(reduce[1][2..6], ["0", "0", "0", "0"], "{out}");
    assert!(out.contains("  8 registers: "), "{out}");
    assert!(out.contains("over 1 of 2 launches"), "{out}");
    assert!(out.contains("excluded, nothing spilled: vecadd"), "{out}");
    assert!(out.contains("  32 registers: no launch spilled"), "{out}");
    assert!(
        out.contains("excluded, nothing spilled: vecadd, reduce"),
        "{out}"
    );
    assert!(
        out.contains("Sampaio et al. report a 29.7% geometric-mean speedup; ours: "),
        "{out}"
    );
}

#[test]
fn divergence_study_prints_every_strategy_and_the_auto_verdict() {
    let out = ok(&["study", "divergence", "--launches", "vecadd,reduce-odd"]);
    assert!(
        out.contains("| kernel | cycles branch | cycles predicate | cycles auto | SIMD eff. branch | SIMD eff. predicate | SIMD eff. auto | if-converted predicate/auto | auto/best |"),
        "{out}"
    );
    for name in ["vecadd", "reduce-odd"] {
        let r = rows(&out, name);
        assert_eq!(r.len(), 1, "{out}");
        assert_eq!(r[0].len(), 9, "{out}");
        for cycles in &r[0][1..4] {
            assert!(cycles.parse::<u64>().unwrap() > 0, "{out}");
        }
        for eff in &r[0][4..7] {
            assert!(eff.ends_with('%'), "{out}");
        }
        assert!(r[0][8].parse::<f64>().unwrap() > 0.0, "{out}");
    }
    assert!(
        out.contains("on all 2 launches")
            || out.contains("slower than the better of branch and predicate on"),
        "{out}"
    );
}

/// `concord study warps` on a small sweep: every (kernel, scheduler,
/// latency, warps) row, IPC of the ALU kernel from `min(1, warps/6)`
/// (docs/microarchitecture.md §4.4) up to the launch and drain, and the
/// CSV form with the same rows.
#[test]
fn warps_study_prints_ipc_and_speedup_rows() {
    let sweep = [
        "study",
        "warps",
        "--warps",
        "1,6",
        "--latency",
        "100",
        "--iterations",
        "100",
        "--elements",
        "512",
    ];
    let out = ok(&sweep);
    let alu = rows(&out, "alu");
    let vecadd = rows(&out, "vecadd");
    assert_eq!((alu.len(), vecadd.len()), (4, 4), "{out}");
    for row in &alu {
        let ipc: f64 = row[5].parse().unwrap();
        let expect = if row[3] == "1" { 1.0 / 6.0 } else { 1.0 };
        assert!(ipc <= expect && ipc > 0.9 * expect, "{out}");
    }
    for row in alu.iter().chain(&vecadd).filter(|r| r[3] == "1") {
        assert_eq!(row[7], "1.00", "{out}");
    }
    let csv = ok(&[&sweep[..], &["--csv"]].concat());
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "kernel,scheduler,latency,warps,cycles,ipc,replays,speedup_vs_1_warp"
    );
    assert_eq!(lines.len(), 9, "{csv}");
    let (code, e) = failing(&["study", "warps", "--warps", "17"]);
    assert_ne!(code, Some(0), "{e}");
    assert!(e.contains("--warps: 17 is outside 1..=16"), "{e}");
}

/// `concord run --model cycle` gives the functional model's outputs
/// (`pipeline`, its old name, is the same model), and its `--trace` is one
/// trace record per cycle from the first host write on.
#[test]
fn cycle_model_runs_a_suite_launch() {
    let func = ok(&["run", "kernels/suite/reduce.yaml", "--json"]);
    let cycle = ok(&[
        "run",
        "kernels/suite/reduce.yaml",
        "--model",
        "cycle",
        "--json",
    ]);
    let outputs = |s: &str| {
        let v: serde_json::Value = serde_json::from_str(s).unwrap();
        v["outputs"].clone()
    };
    assert_eq!(outputs(&func), outputs(&cycle));
    let v: serde_json::Value = serde_json::from_str(&cycle).unwrap();
    assert_eq!(v["model"], "cycle");
    let cycles = v["stats"]["cycles"].as_u64().unwrap();
    assert!(cycles > 0, "{cycle}");
    let alias = ok(&[
        "run",
        "kernels/suite/reduce.yaml",
        "--model",
        "pipeline",
        "--json",
    ]);
    assert_eq!(alias, cycle);
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    ok(&[
        "run",
        "kernels/suite/reduce.yaml",
        "--model",
        "cycle",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&trace).unwrap();
    let records: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // One record per cycle, numbered from 0: the host's launch writes
    // come first, so there are more records than the counter's cycles
    // (which start at `START`).
    assert!(records.len() as u64 > cycles, "{} records", records.len());
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r["cycle"], i as u64);
    }
    // §15.2: the first cycle is an idle core (`tr_state` IDLE = 0).
    assert_eq!(records[0]["tr_state"], 0);
    assert!(records.iter().any(|r| r["tr_state"] != 0));
}

/// `concord study cores`: each row's v1 cycles are the recorded ones
/// (docs/data/v1-suite-cycles.csv, read here on its own), its cycles those
/// `concord run --model cycle` gives for the same launch, and the speedup
/// their ratio.
#[test]
fn cores_study_puts_the_cycles_next_to_the_recorded_v1_cycles() {
    let recorded = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/data/v1-suite-cycles.csv"),
    )
    .unwrap();
    let out = ok(&["study", "cores", "--launches", "vecadd,reduce"]);
    for launch in ["vecadd", "reduce"] {
        let row = &rows(&out, launch)[0];
        let v1: u64 = recorded
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{launch},8x8,")))
            .and_then(|rest| rest.split(',').next())
            .unwrap()
            .parse()
            .unwrap();
        let json = ok(&[
            "run",
            &format!("kernels/suite/{launch}.yaml"),
            "--model",
            "cycle",
            "--json",
        ]);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let cycles = v["stats"]["cycles"].as_u64().unwrap();
        assert_eq!(row[2], v1.to_string(), "{out}");
        assert_eq!(row[4], cycles.to_string(), "{out}");
        assert_eq!(
            row[7],
            format!("{:.2}x", v1 as f64 / cycles as f64),
            "{out}"
        );
    }
    assert!(out.contains("geometric-mean speedup over v1:"), "{out}");
    let e = fails(&["study", "cores", "--launches", "nosuch"]);
    assert!(e.contains("`nosuch` is neither"), "{e}");
    // A launch on another core than the recorded rows.
    let e = fails(&["study", "cores", "--launches", "vecadd-wide"]);
    assert!(e.contains("has no recorded v1 figure"), "{e}");
}

/// `study arbiter`'s cycles are those `concord run --model cycle` gives
/// with a config that sets the same warps and arbiter (an independent path
/// through the launch file and `--config`), and its ratio is theirs.
#[test]
fn arbiter_study_cycles_are_the_cycle_models_under_each_setting() {
    let out = ok(&["study", "arbiter", "--launches", "reduce", "--warps", "16"]);
    let row = &rows(&out, "reduce")[0];
    assert_eq!(row[1], "8x16", "{out}");
    let dir = tempfile::tempdir().unwrap();
    let cycles = |arbiter: &str| {
        let config = dir.path().join(format!("{arbiter}.yaml"));
        std::fs::write(&config, format!("warps: 16\narbiter: {arbiter}\n")).unwrap();
        let json = ok(&[
            "run",
            "kernels/suite/reduce.yaml",
            "--model",
            "cycle",
            "--config",
            config.to_str().unwrap(),
            "--json",
        ]);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        v["stats"]["cycles"].as_u64().unwrap()
    };
    let (unified, split) = (cycles("unified"), cycles("split"));
    assert_eq!(row[2], unified.to_string(), "{out}");
    assert_eq!(row[3], split.to_string(), "{out}");
    assert_eq!(
        row[4],
        format!("{:.4}", unified as f64 / split as f64),
        "{out}"
    );
    let e = fails(&["study", "arbiter", "--warps", "17"]);
    assert!(e.contains("--warps"), "{e}");
}
