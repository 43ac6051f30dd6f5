//! A floorplan of the core's hard blocks on the ECP5: each lane's
//! register-file block RAMs beside its four multipliers, the lanes spread
//! over the device's DSP rows and columns.
//!
//! Why: left to itself, nextpnr puts a lane's `DP16KD`s in one block-RAM
//! row and its `MULT18X18D`s in a DSP row far from them (lane 1 of the
//! default core had its register file at X26–31/Y58 and its multipliers at
//! X55–61/Y22), so every lane's logic is stretched over the device and the
//! lanes overlap; the default core's routing then does not converge. With
//! these sites fixed (nextpnr's `BEL` attribute on the cell) and the
//! `static` placer, it routes (docs/microarchitecture.md §19.6). The
//! shared memory's banks and the instruction memory stay the placer's:
//! fixing the banks in the block-RAM row between the lanes (bank `b` at
//! lane `b`'s column) was measured worse: routing slowed at about
//! 11,000 unrouted arcs where the lanes alone finish.
//!
//! Where it sits: [`crate::pnr::place_and_route`] applies [`plan`] to the
//! synthesized netlist before nextpnr reads it. The cells are found by the
//! instance names the generator gives them (`dp.lanes$3.rf.copy_a`,
//! `dp.lanes$3.mul.x_ll`); a netlist without them (a single unit) gets no
//! floorplan.

use std::collections::{BTreeMap, BTreeSet};

use regex::Regex;

use crate::pnr::Device;

/// Where an ECP5 device has its hard blocks: the columns of its block
/// groups (one group: four `DP16KD` sites `EBR0`–`EBR3` at `x`, `x + 2`,
/// `x + 4`, `x + 6` in a block-RAM row; four `MULT18X18D` sites
/// `MULT18_0`, `_1`, `_4`, `_5` at `x`, `x + 1`, `x + 4`, `x + 5` in a DSP
/// row) and the rows. Read from nextpnr-ecp5 0.11.1 placing a design that
/// fills every block-RAM and DSP site of each device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub groups: &'static [u32],
    pub ebr_rows: &'static [u32],
    pub dsp_rows: &'static [u32],
}

/// The hard-block geometry of `device`, if it is an ECP5.
pub fn geometry(device: Device) -> Option<Geometry> {
    match device {
        Device::Ecp5_25F => Some(Geometry {
            groups: &[4, 13, 22, 33, 42, 51, 60],
            ebr_rows: &[25, 37],
            dsp_rows: &[13],
        }),
        Device::Ecp5_45F => Some(Geometry {
            groups: &[4, 13, 22, 31, 42, 51, 60, 69, 78],
            ebr_rows: &[10, 34, 58],
            dsp_rows: &[22, 46],
        }),
        Device::Ecp5_85F => Some(Geometry {
            groups: &[4, 13, 22, 31, 40, 49, 58, 69, 78, 87, 96, 105, 114],
            ebr_rows: &[22, 46, 70, 82],
            dsp_rows: &[10, 34, 58],
        }),
        Device::Ice40Hx8k => None,
    }
}

/// The cells fixed and where.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Floorplan {
    /// (cell name, nextpnr site) in the netlist's cell order.
    pub sites: Vec<(String, String)>,
    /// The lanes placed.
    pub lanes: usize,
}

impl Floorplan {
    /// One line for the report.
    pub fn summary(&self) -> String {
        format!(
            "{} hard blocks fixed: the register-file block RAMs and multipliers of {} lanes \
             (`fpga/src/floorplan.rs`)",
            self.sites.len(),
            self.lanes
        )
    }
}

/// A lane's hard blocks, as found in the netlist.
#[derive(Default)]
struct Lane {
    /// Register-file `DP16KD`s, copy `a`'s first, by name.
    rams: Vec<(char, String)>,
    /// Multipliers by their partial product: site offset 0, 1, 4, 5.
    mults: Vec<(u32, String)>,
}

/// Free block-RAM sites: (row, group column) → free slots 0–3.
struct EbrSites {
    free: BTreeMap<(u32, u32), BTreeSet<u32>>,
    groups: &'static [u32],
}

impl EbrSites {
    fn new(g: Geometry) -> EbrSites {
        let mut free = BTreeMap::new();
        for &row in g.ebr_rows {
            for &col in g.groups {
                free.insert((row, col), (0..4).collect());
            }
        }
        EbrSites {
            free,
            groups: g.groups,
        }
    }

    /// A free site in `row`, in group `col` if it has one, else in the
    /// nearest group that has.
    fn take(&mut self, row: u32, col: u32) -> Option<String> {
        let mut cols: Vec<u32> = self.groups.to_vec();
        cols.sort_by_key(|c| (c.abs_diff(col), *c));
        for c in cols {
            let slots = self.free.get_mut(&(row, c))?;
            if let Some(slot) = slots.pop_first() {
                return Some(format!("X{}/Y{row}/EBR{slot}", c + 2 * slot));
            }
        }
        None
    }
}

/// The nearest of `rows` to `to`; ties go to the one `prefer` ranks lower.
fn nearest(rows: &[u32], to: u32, prefer: impl Fn(u32) -> i64) -> u32 {
    *rows
        .iter()
        .min_by_key(|&&r| (r.abs_diff(to), prefer(r)))
        .expect("a device has block-RAM rows")
}

/// The floorplan of `netlist` (Yosys's JSON, module `top`) on `device`;
/// empty where the device is no ECP5, the netlist has no lanes, or the
/// lanes need more DSP groups than the device has (it does not fit then).
pub fn plan(netlist: &serde_json::Value, top: &str, device: Device) -> Floorplan {
    let Some(g) = geometry(device) else {
        return Floorplan::default();
    };
    let Some(cells) = netlist
        .get("modules")
        .and_then(|m| m.get(top))
        .and_then(|m| m.get("cells"))
        .and_then(|c| c.as_object())
    else {
        return Floorplan::default();
    };
    let rf = Regex::new(r"(?:^|\.)dp\.lanes\$(\d+)\.rf\.copy_([ab])\.").unwrap();
    let mul = Regex::new(r"(?:^|\.)dp\.lanes\$(\d+)\.mul\.(?:x_)?(ll|lh|hl|hh)[.$]").unwrap();
    let mut lanes: BTreeMap<u32, Lane> = BTreeMap::new();
    for (name, cell) in cells {
        let kind = cell.get("type").and_then(|t| t.as_str()).unwrap_or("");
        match kind {
            "DP16KD" => {
                if let Some(c) = rf.captures(name) {
                    let lane = c[1].parse().unwrap_or(u32::MAX);
                    let copy = c[2].chars().next().unwrap_or('a');
                    lanes
                        .entry(lane)
                        .or_default()
                        .rams
                        .push((copy, name.clone()));
                }
            }
            "MULT18X18D" => {
                if let Some(c) = mul.captures(name) {
                    let lane = c[1].parse().unwrap_or(u32::MAX);
                    let offset = match &c[2] {
                        "ll" => 0,
                        "lh" => 1,
                        "hl" => 4,
                        _ => 5,
                    };
                    lanes
                        .entry(lane)
                        .or_default()
                        .mults
                        .push((offset, name.clone()));
                }
            }
            _ => {}
        }
    }
    let n_lanes = lanes.len();
    let rows = g.dsp_rows.len();
    if n_lanes == 0 || n_lanes > rows * g.groups.len() {
        return Floorplan::default();
    }
    // A multiplier block is one DSP group; two lanes never share one.
    if lanes.values().any(|l| {
        let offsets: BTreeSet<u32> = l.mults.iter().map(|m| m.0).collect();
        offsets.len() != l.mults.len()
    }) {
        return Floorplan::default();
    }
    let mut ebr = EbrSites::new(g);
    let ebr_mean = g.ebr_rows.iter().sum::<u32>() / g.ebr_rows.len() as u32;
    let mut sites = Vec::new();
    let per_row = n_lanes.div_ceil(rows);
    let n_groups = g.groups.len();
    for (i, lane) in lanes.values_mut().enumerate() {
        // Lanes fill the DSP rows in turn, spread evenly over each row's
        // groups; odd rows sit half a spacing over, so that lanes of
        // neighbouring rows are not stacked above each other.
        let row_index = i / per_row;
        let in_row = (n_lanes - row_index * per_row).min(per_row);
        let k = i % per_row;
        let shift = if row_index % 2 == 1 { 0.5 } else { 0.0 };
        let group = (((k as f64 + shift) * n_groups as f64) / in_row as f64).floor() as usize;
        let col = g.groups[group.min(n_groups - 1)];
        let dsp_row = g.dsp_rows[row_index];
        for (offset, name) in &lane.mults {
            sites.push((
                name.clone(),
                format!("X{}/Y{dsp_row}/MULT18_{offset}", col + offset),
            ));
        }
        // The register file in the nearest block-RAM row; between two
        // equally near, the outer one (the layout measured).
        let rf_row = nearest(g.ebr_rows, dsp_row, |r| -(r.abs_diff(ebr_mean) as i64));
        lane.rams.sort();
        for (_, name) in &lane.rams {
            let Some(site) = ebr.take(rf_row, col) else {
                return Floorplan::default();
            };
            sites.push((name.clone(), site));
        }
    }
    Floorplan {
        sites,
        lanes: n_lanes,
    }
}

/// Writes the floorplan into `netlist` as nextpnr's `BEL` attribute of
/// each cell.
pub fn apply(netlist: &mut serde_json::Value, top: &str, floorplan: &Floorplan) {
    let Some(cells) = netlist
        .get_mut("modules")
        .and_then(|m| m.get_mut(top))
        .and_then(|m| m.get_mut("cells"))
        .and_then(|c| c.as_object_mut())
    else {
        return;
    };
    for (name, site) in &floorplan.sites {
        if let Some(cell) = cells.get_mut(name) {
            if let Some(attrs) = cell
                .as_object_mut()
                .map(|c| {
                    c.entry("attributes")
                        .or_insert_with(|| serde_json::json!({}))
                })
                .and_then(|a| a.as_object_mut())
            {
                attrs.insert("BEL".into(), serde_json::Value::String(site.clone()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A netlist with `lanes` lanes (two register-file RAMs, four
    /// multipliers each, named as Yosys names them) and `banks`
    /// shared-memory banks (left to the placer).
    fn netlist(lanes: u32, banks: u32) -> serde_json::Value {
        let mut cells = serde_json::Map::new();
        let mut add = |name: String, kind: &str| {
            cells.insert(name, serde_json::json!({ "type": kind, "attributes": {} }));
        };
        for l in 0..lanes {
            add(
                format!("design.body.dp.lanes${l}.rf.copy_a.mem.0.0"),
                "DP16KD",
            );
            add(
                format!("design.body.dp.lanes${l}.rf.copy_b.mem.0.0"),
                "DP16KD",
            );
            // Both of Yosys's names for a product (after the register or
            // the wire).
            add(
                format!("design.body.dp.lanes${l}.mul.x_ll$d_MULT18X18D_P9"),
                "MULT18X18D",
            );
            add(
                format!("design.body.dp.lanes${l}.mul.lh$p_MULT18X18D_P9"),
                "MULT18X18D",
            );
            add(
                format!("design.body.dp.lanes${l}.mul.x_hl.d_MULT18X18D_P9"),
                "MULT18X18D",
            );
            add(
                format!("design.body.dp.lanes${l}.mul.hh$p_MULT18X18D_P9"),
                "MULT18X18D",
            );
        }
        for b in 0..banks {
            add(format!("design.body.shm.mem{b}.0.0"), "DP16KD");
        }
        add("design.body.imem.mem.0.0".into(), "DP16KD");
        serde_json::json!({ "modules": { "pnr_top": { "cells": cells } } })
    }

    /// Each `(cell after "design.body.dp.lanes$", site)` is planned there.
    fn assert_lane_sites(plan: &Floorplan, expected: &[(&str, &str)]) {
        for (cell, site) in expected {
            let cell = format!("design.body.dp.lanes${cell}");
            let got = &plan.sites.iter().find(|(c, _)| *c == cell).expect(&cell).1;
            assert_eq!(got, site, "{cell}");
        }
    }

    /// The default core on the 45F: the layout that routed (§19.6), worked
    /// out by hand from the geometry: lanes 0–3 in DSP row 22 at groups
    /// ⌊k · 9 / 4⌋ = 0, 2, 4, 6 (columns 4, 22, 42, 60) with their RAMs in
    /// row 10; lanes 4–7 in row 46 at ⌊(k + ½) · 9 / 4⌋ = 1, 3, 5, 7
    /// (columns 13, 31, 51, 69) with their RAMs in row 58.
    #[test]
    fn default_core_on_45f() {
        let plan = plan(&netlist(8, 8), "pnr_top", Device::Ecp5_45F);
        assert_eq!((plan.lanes, plan.sites.len()), (8, 48));
        assert_lane_sites(
            &plan,
            &[
                ("0.rf.copy_a.mem.0.0", "X4/Y10/EBR0"),
                ("0.rf.copy_b.mem.0.0", "X6/Y10/EBR1"),
                ("2.mul.x_ll$d_MULT18X18D_P9", "X42/Y22/MULT18_0"),
                ("3.mul.hh$p_MULT18X18D_P9", "X65/Y22/MULT18_5"),
                ("4.mul.lh$p_MULT18X18D_P9", "X14/Y46/MULT18_1"),
                ("7.mul.x_hl.d_MULT18X18D_P9", "X73/Y46/MULT18_4"),
                ("7.rf.copy_b.mem.0.0", "X71/Y58/EBR1"),
            ],
        );
        // The shared and the instruction memory are the placer's.
        assert!(plan.sites.iter().all(|(c, _)| c.contains(".dp.lanes$")));
        let distinct: BTreeSet<&String> = plan.sites.iter().map(|s| &s.1).collect();
        assert_eq!(distinct.len(), plan.sites.len());
    }

    /// Four lanes on the 25F (one DSP row, 13; groups 4, 13, 22, 33, 42,
    /// 51, 60): group indices ⌊k · 7 / 4⌋ = 0, 1, 3, 5, so columns 4, 13,
    /// 33, 51; the RAMs in row 25, the nearer.
    #[test]
    fn four_lanes_on_25f() {
        let plan = plan(&netlist(4, 4), "pnr_top", Device::Ecp5_25F);
        assert_eq!(plan.sites.len(), 4 * 6);
        assert_lane_sites(
            &plan,
            &[
                ("1.mul.x_ll$d_MULT18X18D_P9", "X13/Y13/MULT18_0"),
                ("2.rf.copy_a.mem.0.0", "X33/Y25/EBR0"),
                ("3.mul.hh$p_MULT18X18D_P9", "X56/Y13/MULT18_5"),
            ],
        );
    }

    #[test]
    fn nothing_to_place() {
        assert_eq!(
            plan(&netlist(8, 8), "pnr_top", Device::Ice40Hx8k),
            Floorplan::default()
        );
        assert_eq!(
            plan(&netlist(0, 0), "pnr_top", Device::Ecp5_45F),
            Floorplan::default()
        );
        // 20 lanes need 20 DSP groups; the 25F has 7.
        assert_eq!(
            plan(&netlist(20, 4), "pnr_top", Device::Ecp5_25F),
            Floorplan::default()
        );
    }

    #[test]
    fn apply_sets_the_bel_attribute() {
        let mut n = netlist(1, 1);
        let plan = plan(&n, "pnr_top", Device::Ecp5_45F);
        apply(&mut n, "pnr_top", &plan);
        let cell = &n["modules"]["pnr_top"]["cells"]["design.body.dp.lanes$0.rf.copy_a.mem.0.0"];
        assert_eq!(cell["attributes"]["BEL"], "X4/Y10/EBR0");
        let imem = &n["modules"]["pnr_top"]["cells"]["design.body.imem.mem.0.0"];
        assert!(imem["attributes"].get("BEL").is_none());
    }
}
