//! The unit-delay walk (`concord_fpga::paths`) on small netlists written
//! by hand in the shape of Yosys's `write_json` (only the keys the walk
//! reads: `attributes.top`, and each cell's `type`, `port_directions` and
//! `connections`; net bits are numbers, constants strings). Each arrival is
//! worked out by hand in a comment: 0.5 ns clock-to-out, 0.45 per LUT4,
//! LUT-RAM read or carry entry, 0.1 per carry step along a chain (`CIN`),
//! 0.2 per PFUMX / L6MUX21, 0.9 per net except COUT → CIN, LUT4 → PFUMX
//! ALUT/BLUT and PFUMX → L6MUX21 D0/D1.

use concord_fpga::paths::{group_name, longest_paths, PathReport, PathStep, WalkOptions};

fn walk(json: &str, rows: usize, paths: usize, threshold_ns: f64) -> PathReport {
    longest_paths(
        json,
        &WalkOptions {
            rows,
            paths,
            threshold_ns,
        },
    )
    .unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// (arrival, cell type, cell, port) of each step, arrivals rounded to
/// 1/1000 ns.
fn steps(s: &[PathStep]) -> Vec<(f64, &str, &str, &str)> {
    s.iter()
        .map(|s| {
            (
                (s.arrival_ns * 1000.0).round() / 1000.0,
                s.cell_type.as_str(),
                s.cell.as_str(),
                s.port.as_str(),
            )
        })
        .collect()
}

/// FF `a` → LUT4 `l1` → LUT4 `l2` → FF `b`; `b` feeds `a` back. Net 1 is
/// the clock (no driver: a port), `LSR` a constant.
const FF_LUT_LUT_FF: &str = r#"{"modules": {"t": {
  "attributes": {"top": "00000000000000000000000000000001"},
  "cells": {
    "a":  {"type": "TRELLIS_FF", "port_directions": {"CLK": "input", "DI": "input", "LSR": "input", "Q": "output"},
           "connections": {"CLK": [1], "DI": [5], "LSR": ["0"], "Q": [2]}},
    "l1": {"type": "LUT4", "port_directions": {"A": "input", "B": "input", "C": "input", "D": "input", "Z": "output"},
           "connections": {"A": [2], "B": ["0"], "C": ["1"], "D": ["0"], "Z": [3]}},
    "l2": {"type": "LUT4", "port_directions": {"A": "input", "B": "input", "C": "input", "D": "input", "Z": "output"},
           "connections": {"A": ["0"], "B": [3], "C": ["0"], "D": ["0"], "Z": [4]}},
    "b":  {"type": "TRELLIS_FF", "port_directions": {"CLK": "input", "DI": "input", "LSR": "input", "Q": "output"},
           "connections": {"CLK": [1], "DI": [4], "LSR": ["0"], "Q": [5]}}
  }}}}"#;

#[test]
fn ff_lut4_lut4_ff_arrives_at_4_1_ns() {
    let r = walk(FF_LUT_LUT_FF, 10, 2, 2.0);
    assert_eq!(r.top, "t");
    assert_eq!(r.cells, 4);
    // Endpoints: a.DI and b.DI (CLK is not one; LSR is a constant).
    assert_eq!(r.endpoints, 2);
    // b.DI: 0.5 (a.Q) + 0.9 + 0.45 (l1) + 0.9 + 0.45 (l2) + 0.9 = 4.1.
    // a.DI: 0.5 (b.Q) + 0.9 = 1.4.
    assert_eq!(r.groups.len(), 2);
    assert_eq!(r.groups[0].name, "b");
    assert_eq!(r.groups[0].worst.cell, "b");
    assert_eq!(r.groups[0].worst.port, "DI");
    assert_eq!(r.groups[0].worst.cell_type, "TRELLIS_FF");
    assert!(close(r.groups[0].worst.arrival_ns, 4.1));
    assert_eq!(r.groups[0].endpoints, 1);
    assert_eq!(r.groups[1].worst.cell, "a");
    assert!(close(r.groups[1].worst.arrival_ns, 1.4));
    // Over 2.0 ns: b.DI only.
    assert_eq!(r.over_threshold, 1);
    assert_eq!(r.paths.len(), 2);
    assert_eq!(
        steps(&r.paths[0].steps),
        [
            (0.5, "TRELLIS_FF", "a", "Q"),
            (1.85, "LUT4", "l1", "Z"),
            (3.2, "LUT4", "l2", "Z"),
            (4.1, "TRELLIS_FF", "b", "DI"),
        ]
    );
    assert_eq!(
        steps(&r.paths[1].steps),
        [
            (0.5, "TRELLIS_FF", "b", "Q"),
            (1.4, "TRELLIS_FF", "a", "DI")
        ]
    );
}

#[test]
fn the_markdown_states_the_model_and_lists_rows_and_paths() {
    let md = walk(FF_LUT_LUT_FF, 10, 1, 2.0).to_markdown();
    assert!(
        md.starts_with("### Longest paths, estimated (unit-delay model)\n"),
        "{md}"
    );
    assert!(
        md.contains("not a timing analysis: 0.5 ns clock-to-out, 0.45 ns per LUT4"),
        "{md}"
    );
    assert!(md.contains("(`t`, 4 cells)"), "{md}");
    assert!(
        md.contains("1 of 2 endpoints arrive later than 2.00 ns (500.00 MHz)"),
        "{md}"
    );
    assert!(
        md.contains("| 4.10 | `b.DI` | TRELLIS_FF | 1 |\n| 1.40 | `a.DI` | TRELLIS_FF | 1 |\n"),
        "{md}"
    );
    assert!(md.contains("Path to `b.DI`, 4.10 ns, 4 cells"), "{md}");
    assert!(md.contains("```text\n  0.50  TRELLIS_FF       a.Q\n  1.85  LUT4             l1.Z\n  3.20  LUT4             l2.Z\n  4.10  TRELLIS_FF       b.DI\n```\n"), "{md}");
    // One path asked for: the second group has none.
    assert!(!md.contains("Path to `a.DI`"), "{md}");
}

/// FF `f` → CCU2C `c0` (A0) → COUT/CIN → `c1` → COUT/CIN → `c2` (S1) →
/// FF `g`. Each carry cell also reads `f` directly on A1.
const CARRY_CHAIN: &str = r#"{"modules": {"t": {
  "attributes": {"top": "00000000000000000000000000000001"},
  "cells": {
    "f":  {"type": "TRELLIS_FF", "port_directions": {"CLK": "input", "DI": "input", "Q": "output"},
           "connections": {"CLK": [1], "DI": ["0"], "Q": [2]}},
    "c0": {"type": "CCU2C", "port_directions": {"A0": "input", "A1": "input", "CIN": "input", "COUT": "output", "S0": "output", "S1": "output"},
           "connections": {"A0": [2], "A1": [2], "CIN": ["0"], "COUT": [3], "S0": [10], "S1": [11]}},
    "c1": {"type": "CCU2C", "port_directions": {"A0": "input", "A1": "input", "CIN": "input", "COUT": "output", "S0": "output", "S1": "output"},
           "connections": {"A0": ["0"], "A1": [2], "CIN": [3], "COUT": [4], "S0": [12], "S1": [13]}},
    "c2": {"type": "CCU2C", "port_directions": {"A0": "input", "A1": "input", "CIN": "input", "COUT": "output", "S0": "output", "S1": "output"},
           "connections": {"A0": ["0"], "A1": [2], "CIN": [4], "COUT": [14], "S0": [15], "S1": [5]}},
    "g":  {"type": "TRELLIS_FF", "port_directions": {"CLK": "input", "DI": "input", "Q": "output"},
           "connections": {"CLK": [1], "DI": [5], "Q": [6]}}
  }}}}"#;

#[test]
fn a_carry_chain_costs_no_net_and_0_1_ns_per_cell() {
    let r = walk(CARRY_CHAIN, 10, 1, 0.0);
    // c0: 0.5 + 0.9 + 0.45 (entry) = 1.85.
    // c1: from CIN 1.85 + 0 + 0.1 = 1.95; from A1 0.5 + 0.9 + 0.45 = 1.85.
    // c2: from CIN 1.95 + 0.1 = 2.05; from A1 1.85.
    // g.DI: 2.05 + 0.9 = 2.95.
    assert_eq!(r.endpoints, 1);
    assert_eq!(r.over_threshold, 1);
    assert!(close(r.groups[0].worst.arrival_ns, 2.95));
    assert_eq!(
        steps(&r.paths[0].steps),
        [
            (0.5, "TRELLIS_FF", "f", "Q"),
            (1.85, "CCU2C", "c0", "COUT"),
            (1.95, "CCU2C", "c1", "COUT"),
            (2.05, "CCU2C", "c2", "S1"),
            (2.95, "TRELLIS_FF", "g", "DI"),
        ]
    );
}

/// FF `f` → LUT4s `la`, `lb` → PFUMX `m` (ALUT, BLUT; select C0 from `f`)
/// → L6MUX21 `x` (D0; select SD from `f`) → FF `g`; `m` also feeds FF `h`.
const WIDE_MUX: &str = r#"{"modules": {"t": {
  "attributes": {"top": "00000000000000000000000000000001"},
  "cells": {
    "f":  {"type": "TRELLIS_FF", "port_directions": {"CLK": "input", "DI": "input", "Q": "output"},
           "connections": {"CLK": [1], "DI": ["0"], "Q": [2]}},
    "la": {"type": "LUT4", "port_directions": {"A": "input", "Z": "output"}, "connections": {"A": [2], "Z": [3]}},
    "lb": {"type": "LUT4", "port_directions": {"A": "input", "Z": "output"}, "connections": {"A": [2], "Z": [4]}},
    "m":  {"type": "PFUMX", "port_directions": {"ALUT": "input", "BLUT": "input", "C0": "input", "Z": "output"},
           "connections": {"ALUT": [3], "BLUT": [4], "C0": [2], "Z": [5]}},
    "x":  {"type": "L6MUX21", "port_directions": {"D0": "input", "D1": "input", "SD": "input", "Z": "output"},
           "connections": {"D0": [5], "D1": ["0"], "SD": [2], "Z": [6]}},
    "g":  {"type": "TRELLIS_FF", "port_directions": {"CLK": "input", "DI": "input", "Q": "output"},
           "connections": {"CLK": [1], "DI": [6], "Q": [7]}},
    "h":  {"type": "TRELLIS_FF", "port_directions": {"CLK": "input", "DI": "input", "Q": "output"},
           "connections": {"CLK": [1], "DI": [5], "Q": [8]}}
  }}}}"#;

#[test]
fn lut4_to_pfumx_to_l6mux21_costs_no_net() {
    let r = walk(WIDE_MUX, 10, 1, 3.0);
    // la, lb: 0.5 + 0.9 + 0.45 = 1.85.
    // m: ALUT 1.85 + 0 + 0.2 = 2.05 (BLUT the same; C0 0.5 + 0.9 + 0.2 = 1.6).
    // x: D0 2.05 + 0 + 0.2 = 2.25 (SD 1.6).
    // g.DI: 2.25 + 0.9 = 3.15; h.DI: PFUMX → FF is a net, 2.05 + 0.9 = 2.95.
    assert_eq!(r.endpoints, 2);
    assert_eq!(r.over_threshold, 1);
    let rows: Vec<(&str, f64)> = r
        .groups
        .iter()
        .map(|g| (g.worst.cell.as_str(), g.worst.arrival_ns))
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].0, "g");
    assert!(close(rows[0].1, 3.15));
    assert_eq!(rows[1].0, "h");
    assert!(close(rows[1].1, 2.95));
    // Of equal inputs the first in port order (ALUT) is the path.
    assert_eq!(
        steps(&r.paths[0].steps),
        [
            (0.5, "TRELLIS_FF", "f", "Q"),
            (1.85, "LUT4", "la", "Z"),
            (2.05, "PFUMX", "m", "Z"),
            (2.25, "L6MUX21", "x", "Z"),
            (3.15, "TRELLIS_FF", "g", "DI"),
        ]
    );
}

/// A LUT RAM read from an FF address: FF `a` → `ram` RAD → DO → LUT4 `l`
/// → FF `g`. Its write side: DI from FF `b`, WRE through LUT4 `w`, WCK
/// the clock.
const LUT_RAM: &str = r#"{"modules": {"t": {
  "attributes": {"top": "00000000000000000000000000000001"},
  "cells": {
    "a":   {"type": "TRELLIS_FF", "port_directions": {"CLK": "input", "DI": "input", "Q": "output"},
            "connections": {"CLK": [1], "DI": ["0"], "Q": [2]}},
    "b":   {"type": "TRELLIS_FF", "port_directions": {"CLK": "input", "DI": "input", "Q": "output"},
            "connections": {"CLK": [1], "DI": ["0"], "Q": [3]}},
    "w":   {"type": "LUT4", "port_directions": {"A": "input", "Z": "output"}, "connections": {"A": [3], "Z": [4]}},
    "ram": {"type": "TRELLIS_DPR16X4",
            "port_directions": {"DI": "input", "DO": "output", "RAD": "input", "WAD": "input", "WCK": "input", "WRE": "input"},
            "connections": {"DI": ["0", "0", "0", 3], "DO": [10, 11, 12, 13], "RAD": [2, "0", "0", "0"],
                            "WAD": ["0", "0", "0", "0"], "WCK": [1], "WRE": [4]}},
    "l":   {"type": "LUT4", "port_directions": {"A": "input", "Z": "output"}, "connections": {"A": [10], "Z": [5]}},
    "g":   {"type": "TRELLIS_FF", "port_directions": {"CLK": "input", "DI": "input", "Q": "output"},
            "connections": {"CLK": [1], "DI": [5], "Q": [6]}}
  }}}}"#;

#[test]
fn a_lut_ram_read_starts_at_its_address_and_its_write_side_ends_there() {
    let r = walk(LUT_RAM, 10, 1, 1.0);
    // ram.DO: RAD from a.Q, 0.5 + 0.9 + 0.45 = 1.85 (the write side does
    // not count: WRE would make it 2.75 + 0.45 = 3.2).
    // l: 1.85 + 0.9 + 0.45 = 3.2; g.DI: 3.2 + 0.9 = 4.1.
    // Endpoints of the RAM: WRE 0.5 + 0.9 + 0.45 (w) + 0.9 = 2.75,
    // DI[3] 0.5 + 0.9 = 1.4, WCK 0 (undriven); RAD is not one.
    assert_eq!(r.endpoints, 4);
    assert_eq!(r.over_threshold, 3);
    assert_eq!(r.groups.len(), 2);
    assert_eq!(r.groups[0].worst.cell, "g");
    assert!(close(r.groups[0].worst.arrival_ns, 4.1));
    assert_eq!(r.groups[1].name, "ram");
    assert_eq!(r.groups[1].worst.port, "WRE");
    assert_eq!(r.groups[1].worst.cell_type, "TRELLIS_DPR16X4");
    assert!(close(r.groups[1].worst.arrival_ns, 2.75));
    assert_eq!(r.groups[1].endpoints, 3);
    assert_eq!(
        steps(&r.paths[0].steps),
        [
            (0.5, "TRELLIS_FF", "a", "Q"),
            (1.85, "TRELLIS_DPR16X4", "ram", "DO"),
            (3.2, "LUT4", "l", "Z"),
            (4.1, "TRELLIS_FF", "g", "DI"),
        ]
    );
}

/// Bits of two registers and a memory, as `autoname` names them: `r`'s
/// bits `r_TRELLIS_FF_Q`, `_1`, `_2`; `s`'s `s_TRELLIS_FF_Q_1`; the
/// DP16KD `mem[3]` and `mem[4]`.
const BITS: &str = r#"{"modules": {"t": {
  "attributes": {"top": "00000000000000000000000000000001"},
  "cells": {
    "src":              {"type": "TRELLIS_FF", "port_directions": {"CLK": "input", "DI": "input", "Q": "output"},
                         "connections": {"CLK": [1], "DI": ["0"], "Q": [2]}},
    "l":                {"type": "LUT4", "port_directions": {"A": "input", "Z": "output"}, "connections": {"A": [2], "Z": [3]}},
    "r_TRELLIS_FF_Q":   {"type": "TRELLIS_FF", "port_directions": {"CLK": "input", "DI": "input", "Q": "output"},
                         "connections": {"CLK": [1], "DI": [2], "Q": [4]}},
    "r_TRELLIS_FF_Q_1": {"type": "TRELLIS_FF", "port_directions": {"CLK": "input", "DI": "input", "Q": "output"},
                         "connections": {"CLK": [1], "DI": [3], "Q": [5]}},
    "r_TRELLIS_FF_Q_2": {"type": "TRELLIS_FF", "port_directions": {"CLK": "input", "DI": "input", "Q": "output"},
                         "connections": {"CLK": [1], "DI": [2], "Q": [6]}},
    "s_TRELLIS_FF_Q_1": {"type": "TRELLIS_FF", "port_directions": {"CLK": "input", "DI": "input", "Q": "output"},
                         "connections": {"CLK": [1], "DI": [3], "Q": [7]}},
    "mem[3]":           {"type": "DP16KD", "port_directions": {"ADA0": "input", "CLKA": "input", "DOA0": "output"},
                         "connections": {"ADA0": [2], "CLKA": [1], "DOA0": [8]}},
    "mem[4]":           {"type": "DP16KD", "port_directions": {"ADA0": "input", "CLKA": "input", "DOA0": "output"},
                         "connections": {"ADA0": [3], "CLKA": [1], "DOA0": [9]}}
  }}}}"#;

#[test]
fn bits_of_one_register_are_one_row() {
    let r = walk(BITS, 10, 0, 0.0);
    // l: 0.5 + 0.9 + 0.45 = 1.85. Through l (+ 0.9): 2.75, at
    // r_TRELLIS_FF_Q_1.DI, s_TRELLIS_FF_Q_1.DI, mem[4].ADA0. Straight from
    // src.Q (+ 0.9): 1.4, at r_TRELLIS_FF_Q.DI, r_TRELLIS_FF_Q_2.DI,
    // mem[3].ADA0. The CLKA inputs of the DP16KDs are endpoints too,
    // undriven: 0. 8 endpoints, 3 groups; ties rank by cell name,
    // descending.
    assert_eq!(r.endpoints, 8);
    let rows: Vec<(&str, &str, &str, usize)> = r
        .groups
        .iter()
        .map(|g| {
            (
                g.name.as_str(),
                g.worst.cell.as_str(),
                g.worst.port.as_str(),
                g.endpoints,
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("s_TRELLIS_FF_Q", "s_TRELLIS_FF_Q_1", "DI", 1),
            ("r_TRELLIS_FF_Q", "r_TRELLIS_FF_Q_1", "DI", 3),
            ("mem", "mem[4]", "ADA0", 4),
        ]
    );
    for g in &r.groups {
        assert!(close(g.worst.arrival_ns, 2.75), "{g:?}");
    }
    assert!(r.paths.is_empty());
    // Rows cut to 2.
    let r = walk(BITS, 2, 5, 0.0);
    assert_eq!(r.groups.len(), 2);
    assert_eq!(r.paths.len(), 2);
}

#[test]
fn group_names_drop_bit_suffixes_as_the_prototype_does() {
    assert_eq!(group_name("x_1"), "x");
    assert_eq!(group_name("x_2"), "x");
    assert_eq!(group_name("q_TRELLIS_FF_Q_12"), "q_TRELLIS_FF_Q");
    assert_eq!(group_name("mem[3]"), "mem");
    assert_eq!(group_name("lanes$3.rf[12]_7"), "lanes$3.rf");
    assert_eq!(group_name("a_3_b"), "a_b");
    // Non-overlapping, left to right: the `_` after `1` is consumed.
    assert_eq!(group_name("x_1_2"), "x_2");
    // Digits not followed by `_` or the end stay; so does `[x]`.
    assert_eq!(group_name("a_12b"), "a_12b");
    assert_eq!(group_name("m[x]"), "m[x]");
    assert_eq!(
        group_name("design.body.warps.gm$7$q_TRELLIS_FF_Q_7"),
        "design.body.warps.gm$7$q_TRELLIS_FF_Q"
    );
}

#[test]
fn the_threshold_counts_endpoints_not_groups() {
    // BITS: three endpoints at 2.75, three at 1.4, two at 0.
    let count = |t: f64| walk(BITS, 1, 0, t).over_threshold;
    assert_eq!(count(3.0), 0);
    assert_eq!(count(2.0), 3);
    assert_eq!(count(1.0), 6);
    // Later than, not at: the two at exactly 0 are not over 0.
    assert_eq!(count(0.0), 6);
    assert_eq!(count(-1.0), 8);
}

#[test]
fn a_combinational_loop_is_an_error_naming_a_cell() {
    // f.DI ← la.Z; la.A ← lb.Z; lb.A ← la.Z.
    let json = r#"{"modules": {"t": {"attributes": {"top": "00000000000000000000000000000001"}, "cells": {
      "f":  {"type": "TRELLIS_FF", "port_directions": {"CLK": "input", "DI": "input", "Q": "output"},
             "connections": {"CLK": [1], "DI": [3], "Q": [2]}},
      "la": {"type": "LUT4", "port_directions": {"A": "input", "B": "input", "Z": "output"},
             "connections": {"A": [4], "B": [2], "Z": [3]}},
      "lb": {"type": "LUT4", "port_directions": {"A": "input", "Z": "output"}, "connections": {"A": [3], "Z": [4]}}
    }}}}"#;
    assert_eq!(
        longest_paths(json, &WalkOptions::default()).unwrap_err(),
        "combinational loop through cell `la` (LUT4)"
    );
    // A loop through a register is no loop: FF_LUT_LUT_FF has b → a.
    assert!(longest_paths(FF_LUT_LUT_FF, &WalkOptions::default()).is_ok());
}

#[test]
fn a_chain_of_200000_luts_needs_no_deep_recursion() {
    // FF 0 → LUT4 1 → ... → LUT4 200000 → FF 200001, written out here
    // (too long by hand): 0.5 + 200000 × (0.9 + 0.45) + 0.9 = 270001.4.
    let n = 200_000u64;
    let mut cells = vec![format!(
        r#""ff0": {{"type": "TRELLIS_FF", "port_directions": {{"CLK": "input", "Q": "output"}}, "connections": {{"CLK": [1], "Q": [2]}}}}"#
    )];
    for i in 1..=n {
        cells.push(format!(
            r#""l{i}": {{"type": "LUT4", "port_directions": {{"A": "input", "Z": "output"}}, "connections": {{"A": [{}], "Z": [{}]}}}}"#,
            i + 1,
            i + 2
        ));
    }
    cells.push(format!(
        r#""ff1": {{"type": "TRELLIS_FF", "port_directions": {{"CLK": "input", "DI": "input"}}, "connections": {{"CLK": [1], "DI": [{}]}}}}"#,
        n + 2
    ));
    let json = format!(
        r#"{{"modules": {{"t": {{"cells": {{{}}}}}}}}}"#,
        cells.join(",")
    );
    let r = walk(&json, 1, 1, 0.0);
    assert_eq!(r.cells, n as usize + 2);
    assert_eq!(r.endpoints, 1);
    assert!((r.groups[0].worst.arrival_ns - 270_001.4).abs() < 1e-3);
    assert_eq!(r.paths[0].steps.len(), n as usize + 2);
    assert_eq!(r.paths[0].steps[1].cell, "l1");
}

#[test]
fn the_top_module_is_the_one_marked_top_else_the_largest() {
    // `big` has more cells, `small` the attribute; `zero`'s attribute is
    // all zeros (not set).
    let ff = |name: &str, d: u64, q: u64| {
        format!(
            r#""{name}": {{"type": "TRELLIS_FF", "port_directions": {{"CLK": "input", "DI": "input", "Q": "output"}}, "connections": {{"CLK": [1], "DI": [{d}], "Q": [{q}]}}}}"#
        )
    };
    let json = |small_top: &str| {
        format!(
            r#"{{"modules": {{
              "big":   {{"cells": {{{}, {}, {}}}}},
              "small": {{"attributes": {{"top": "{small_top}"}}, "cells": {{{}}}}},
              "zero":  {{"attributes": {{"top": "00000000000000000000000000000000"}}, "cells": {{{}, {}}}}}
            }}}}"#,
            ff("b1", 3, 2),
            ff("b2", 2, 3),
            ff("b3", 3, 4),
            ff("s1", 2, 2),
            ff("z1", 3, 2),
            ff("z2", 2, 3)
        )
    };
    let r = walk(&json("00000000000000000000000000000001"), 5, 0, 0.0);
    assert_eq!((r.top.as_str(), r.cells, r.endpoints), ("small", 1, 1));
    assert_eq!(r.groups[0].worst.cell, "s1");
    // s1.DI ← s1.Q: 0.5 + 0.9.
    assert!(close(r.groups[0].worst.arrival_ns, 1.4));
    let r = walk(&json("00000000000000000000000000000000"), 5, 0, 0.0);
    assert_eq!((r.top.as_str(), r.cells, r.endpoints), ("big", 3, 3));
}

#[test]
fn malformed_netlists_are_errors_that_say_what_is_wrong() {
    let opts = WalkOptions::default();
    assert!(longest_paths("{", &opts)
        .unwrap_err()
        .starts_with("not JSON: "));
    assert_eq!(
        longest_paths("[]", &opts).unwrap_err(),
        "no `modules` object"
    );
    assert_eq!(
        longest_paths(r#"{"modules": {}}"#, &opts).unwrap_err(),
        "no module"
    );
    assert_eq!(
        longest_paths(
            r#"{"modules": {"t": {"cells": {"c": {"type": "LUT4"}}}}}"#,
            &opts
        )
        .unwrap_err(),
        "cell `c` has no `connections` object"
    );
    assert_eq!(
        longest_paths(
            r#"{"modules": {"t": {"cells": {"c": {"type": "LUT4", "connections": {"A": [true]}}}}}}"#,
            &opts
        )
        .unwrap_err(),
        "cell `c` port A: bit true is not a net number or a constant"
    );
}
