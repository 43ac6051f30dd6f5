//! Longest paths of a flat ECP5 netlist, estimated with a unit-delay
//! model: *where* the long register-to-register paths are, when nextpnr
//! does not say.
//!
//! Where it sits: [`crate::pnr::synthesize_json`] writes the flat netlist
//! of the place-and-route top (Yosys's `write_json`, `<top>-ecp5.json` in
//! the flow's work directory), nextpnr places it. After `--no-route`
//! (`concord synth-report --no-route`; routing the default core takes
//! minutes more than placing it) nextpnr prints an Fmax
//! estimate but no critical path. [`longest_paths`] walks the netlist
//! instead (`concord synth-report --paths N`): nextpnr's placement
//! estimate says *how fast*, this walk says *where* the long paths are.
//!
//! # The model
//!
//! A crude, fixed model, for ranking paths against each other, not a
//! timing figure (it knows no placement, no routing, no fan-out, no speed
//! grade; on the default core at d0fab87 it found 28.9 ns where nextpnr's
//! placement estimated 37.3 ns, and on the shallower cut variants of
//! `docs/microarchitecture.md` §19.7 17.9 ns against 24.7: the fewer the
//! levels, the more the placed nets set the period, which this model
//! cannot see). Delays in ns:
//!
//! - **sources**, registered outputs: every output of `TRELLIS_FF`,
//!   `DP16KD`, `MULT18X18D` and `ALU54B` arrives at
//!   [`CLOCK_TO_OUT_NS`] (0.5, clock-to-out; the block RAM and DSP outputs
//!   are taken as registered);
//! - **cells**: `LUT4`, and the read of a `TRELLIS_DPR16X4` (its `RAD`
//!   inputs to its `DO` outputs), [`LUT_NS`] (0.45); `PFUMX` and `L6MUX21`
//!   [`MUX_NS`] (0.2); `CCU2C` [`CARRY_IN_NS`] (0.45) from any input but
//!   `CIN`, [`CARRY_STEP_NS`] (0.1) from `CIN`; any other cell type (an
//!   I/O buffer) counts as a LUT4;
//! - **nets**: [`NET_NS`] (0.9) between two cells, none inside a slice:
//!   `CCU2C` `COUT` → `CIN`, `LUT4` → `PFUMX` `ALUT`/`BLUT`, `PFUMX` →
//!   `L6MUX21` `D0`/`D1`; a net with no driver (a port of the top)
//!   arrives at 0;
//! - **endpoints**: every input of `TRELLIS_FF` (but `CLK`), `DP16KD`,
//!   `MULT18X18D` and `ALU54B`, and every input of `TRELLIS_DPR16X4` but
//!   `RAD` (its write side ends there). The arrival at an endpoint is its
//!   driver's arrival plus the net.
//!
//! A cell's output arrives at the latest of its inputs (each with its net)
//! plus the cell's delay (of equal inputs, the first in port order is on
//! the path); the walk settles each cell once, with an explicit stack
//! rather than recursion, so that no chain is too deep for it, and a
//! combinational loop is an error naming a cell on it.
//!
//! Endpoints are grouped by cell name without its bit suffixes
//! (`_12`, `[3]`; `q_TRELLIS_FF_Q_7` and `q_TRELLIS_FF_Q_3` are one
//! register), each group shown by its slowest endpoint, so that one wide
//! register takes one row.
//!
//! Endpoints rank by arrival, then cell name, port and net bit, all
//! descending. This is the algorithm of the Python prototype that chose
//! the first pipeline cuts of the default core; on the default core's
//! netlist both give the same 1,320 rows and the same path (29.25 ns at
//! `design.body.trapped_r.q_TRELLIS_FF_Q.DI`), the walk here in half a
//! second.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

/// Clock-to-out of a register (`TRELLIS_FF`, and the outputs of `DP16KD`,
/// `MULT18X18D`, `ALU54B`), ns.
pub const CLOCK_TO_OUT_NS: f64 = 0.5;
/// A `LUT4`, or the read of a `TRELLIS_DPR16X4`, ns.
pub const LUT_NS: f64 = 0.45;
/// A `PFUMX` or `L6MUX21`, ns.
pub const MUX_NS: f64 = 0.2;
/// A `CCU2C` entered from any input but `CIN`, ns.
pub const CARRY_IN_NS: f64 = 0.45;
/// A `CCU2C` entered from `CIN` (one step along a carry chain), ns.
pub const CARRY_STEP_NS: f64 = 0.1;
/// A net between two cells (but inside a slice), ns.
pub const NET_NS: f64 = 0.9;

/// What [`longest_paths`] reports.
#[derive(Clone, Debug)]
pub struct WalkOptions {
    /// How many endpoint groups to list, slowest first.
    pub rows: usize,
    /// Of those, how many (the slowest) to show with their whole path.
    pub paths: usize,
    /// Endpoints arriving later than this (ns) are counted: the target
    /// clock period, for example.
    pub threshold_ns: f64,
}

impl Default for WalkOptions {
    /// 20 rows, 3 paths, 40 ns (the 25 MHz that `concord synth-report`
    /// aims at by default).
    fn default() -> Self {
        WalkOptions {
            rows: 20,
            paths: 3,
            threshold_ns: 40.0,
        }
    }
}

/// One input of an endpoint cell and its arrival.
#[derive(Clone, Debug, PartialEq)]
pub struct Endpoint {
    pub arrival_ns: f64,
    pub cell: String,
    pub cell_type: String,
    pub port: String,
}

/// The endpoints of one cell name without its bit suffixes.
#[derive(Clone, Debug, PartialEq)]
pub struct EndpointGroup {
    /// The cell name without `_<digits>` and `[<digits>]` parts.
    pub name: String,
    /// Its slowest endpoint.
    pub worst: Endpoint,
    /// How many endpoints (cell inputs) the group has.
    pub endpoints: usize,
}

/// One step of a path: a cell's pin and the arrival there.
#[derive(Clone, Debug, PartialEq)]
pub struct PathStep {
    pub arrival_ns: f64,
    pub cell_type: String,
    pub cell: String,
    pub port: String,
}

/// The whole path to one endpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct WalkPath {
    /// From the source (a register's output) to the endpoint: each cell's
    /// output on the way (its port the output), then the endpoint itself
    /// (its port the input).
    pub steps: Vec<PathStep>,
}

impl WalkPath {
    /// The endpoint, the last step.
    pub fn endpoint(&self) -> &PathStep {
        self.steps.last().expect("a path has its endpoint")
    }
}

/// The result of [`longest_paths`].
#[derive(Clone, Debug, PartialEq)]
pub struct PathReport {
    /// The module walked.
    pub top: String,
    /// Its cells.
    pub cells: usize,
    /// All its endpoints (cell inputs).
    pub endpoints: usize,
    /// [`WalkOptions::threshold_ns`].
    pub threshold_ns: f64,
    /// The endpoints arriving later than `threshold_ns`.
    pub over_threshold: usize,
    /// The slowest endpoint groups, slowest first, at most
    /// [`WalkOptions::rows`].
    pub groups: Vec<EndpointGroup>,
    /// The paths to the worst endpoints of the first
    /// [`WalkOptions::paths`] groups.
    pub paths: Vec<WalkPath>,
}

/// The cell types the model knows.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Ff,
    Bram,
    Mult,
    Alu,
    Lut4,
    LutRam,
    Pfumx,
    L6mux,
    Carry,
    Other,
}

impl Kind {
    fn of(ty: &str) -> Kind {
        match ty {
            "TRELLIS_FF" => Kind::Ff,
            "DP16KD" => Kind::Bram,
            "MULT18X18D" => Kind::Mult,
            "ALU54B" => Kind::Alu,
            "LUT4" => Kind::Lut4,
            "TRELLIS_DPR16X4" => Kind::LutRam,
            "PFUMX" => Kind::Pfumx,
            "L6MUX21" => Kind::L6mux,
            "CCU2C" => Kind::Carry,
            _ => Kind::Other,
        }
    }

    /// Its outputs are registered.
    fn is_source(self) -> bool {
        matches!(self, Kind::Ff | Kind::Bram | Kind::Mult | Kind::Alu)
    }

    /// Its input `port` is an endpoint.
    fn ends_at(self, port: &str) -> bool {
        match self {
            Kind::Ff => port != "CLK",
            Kind::Bram | Kind::Mult | Kind::Alu => true,
            Kind::LutRam => port != "RAD",
            _ => false,
        }
    }

    /// Its outputs depend on its input `port`.
    fn reads(self, port: &str) -> bool {
        match self {
            k if k.is_source() => false,
            Kind::LutRam => port == "RAD",
            _ => true,
        }
    }

    /// From its input `port` to its outputs.
    fn delay(self, port: &str) -> f64 {
        match self {
            Kind::Carry if port == "CIN" => CARRY_STEP_NS,
            Kind::Carry => CARRY_IN_NS,
            Kind::Pfumx | Kind::L6mux => MUX_NS,
            _ => LUT_NS,
        }
    }
}

struct Cell<'a> {
    name: &'a str,
    ty: &'a str,
    kind: Kind,
    /// (port, net bit) of every input bit that is not a constant, in
    /// port order.
    inputs: Vec<(&'a str, u64)>,
}

/// The netlist's cells and who drives each net bit.
struct Graph<'a> {
    cells: Vec<Cell<'a>>,
    /// Net bit → (cell, output port); the last driver listed wins.
    driver: HashMap<u64, (usize, &'a str)>,
}

impl Graph<'_> {
    /// The net from the driver of `bit` to `port` of cell `to`.
    fn net_delay(&self, bit: u64, to: usize, port: &str) -> f64 {
        let Some(&(from, out)) = self.driver.get(&bit) else {
            return 0.0;
        };
        let (src, dst) = (self.cells[from].kind, self.cells[to].kind);
        let same_slice = (src == Kind::Carry && out == "COUT" && port == "CIN")
            || (src == Kind::Lut4 && dst == Kind::Pfumx && matches!(port, "ALUT" | "BLUT"))
            || (src == Kind::Pfumx && dst == Kind::L6mux && matches!(port, "D0" | "D1"));
        if same_slice {
            0.0
        } else {
            NET_NS
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    New,
    Busy,
    Done,
}

/// The arrival at every cell's outputs, settled on demand.
struct Arrivals<'g, 'a> {
    g: &'g Graph<'a>,
    state: Vec<State>,
    arrival: Vec<f64>,
    /// The input (an index into `inputs`) the arrival comes from.
    pred: Vec<Option<usize>>,
}

impl<'g, 'a> Arrivals<'g, 'a> {
    fn new(g: &'g Graph<'a>) -> Self {
        let n = g.cells.len();
        Arrivals {
            g,
            state: vec![State::New; n],
            arrival: vec![0.0; n],
            pred: vec![None; n],
        }
    }

    /// The arrival at the driver of `bit` (0 with no driver).
    fn at_bit(&mut self, bit: u64) -> Result<f64, String> {
        match self.g.driver.get(&bit) {
            Some(&(cell, _)) => {
                self.settle(cell)?;
                Ok(self.arrival[cell])
            }
            None => Ok(0.0),
        }
    }

    /// Settles `start` and every cell it depends on, depth first with an
    /// explicit stack.
    fn settle(&mut self, start: usize) -> Result<(), String> {
        if self.state[start] == State::Done {
            return Ok(());
        }
        let g = self.g;
        self.state[start] = State::Busy;
        // (cell, the next of its inputs to look at)
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        while let Some(top) = stack.last_mut() {
            let c = top.0;
            let cell = &g.cells[c];
            let mut descend = None;
            while top.1 < cell.inputs.len() {
                let (port, bit) = cell.inputs[top.1];
                if cell.kind.reads(port) {
                    if let Some(&(d, _)) = g.driver.get(&bit) {
                        match self.state[d] {
                            State::Done => {}
                            State::Busy => {
                                let on = &g.cells[d];
                                return Err(format!(
                                    "combinational loop through cell `{}` ({})",
                                    on.name, on.ty
                                ));
                            }
                            State::New => {
                                descend = Some(d);
                                break;
                            }
                        }
                    }
                }
                top.1 += 1;
            }
            if let Some(d) = descend {
                self.state[d] = State::Busy;
                stack.push((d, 0));
                continue;
            }
            // Every input settled.
            let (arrival, pred) = if cell.kind.is_source() {
                (CLOCK_TO_OUT_NS, None)
            } else {
                let mut best = (0.0, None);
                for (i, &(port, bit)) in cell.inputs.iter().enumerate() {
                    if !cell.kind.reads(port) {
                        continue;
                    }
                    let from = g.driver.get(&bit).map_or(0.0, |&(d, _)| self.arrival[d]);
                    let a = from + g.net_delay(bit, c, port) + cell.kind.delay(port);
                    if a > best.0 {
                        best = (a, Some(i));
                    }
                }
                best
            };
            self.arrival[c] = arrival;
            self.pred[c] = pred;
            self.state[c] = State::Done;
            stack.pop();
        }
        Ok(())
    }

    /// The path to `port` (net bit `bit`) of the endpoint cell `end`.
    fn trace(
        &mut self,
        end: usize,
        port: &str,
        bit: u64,
        arrival: f64,
    ) -> Result<WalkPath, String> {
        let g = self.g;
        let mut steps = vec![PathStep {
            arrival_ns: arrival,
            cell_type: g.cells[end].ty.to_string(),
            cell: g.cells[end].name.to_string(),
            port: port.to_string(),
        }];
        let mut bit = bit;
        while let Some(&(c, out)) = g.driver.get(&bit) {
            self.settle(c)?;
            let cell = &g.cells[c];
            steps.push(PathStep {
                arrival_ns: self.arrival[c],
                cell_type: cell.ty.to_string(),
                cell: cell.name.to_string(),
                port: out.to_string(),
            });
            match self.pred[c] {
                Some(i) => bit = cell.inputs[i].1,
                None => break,
            }
        }
        steps.reverse();
        Ok(WalkPath { steps })
    }
}

/// A cell name without its bit suffixes: every `[<digits>]` removed, then
/// every `_<digits>` followed by `_` or the end (the `_` kept), left to
/// right without overlaps (the prototype's two substitutions: `x_1_2`
/// becomes `x_2`, `q_TRELLIS_FF_Q_7` becomes `q_TRELLIS_FF_Q`).
pub fn group_name(cell: &str) -> String {
    static INDEX: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\[\d+\]").expect("valid"));
    static BIT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"_\d+(_|$)").expect("valid"));
    let without_index = INDEX.replace_all(cell, "");
    BIT.replace_all(&without_index, "$1").into_owned()
}

/// Whether a module's `top` attribute is set: Yosys writes it as a binary
/// string (`"00000000000000000000000000000001"`), or a number.
pub(crate) fn is_top(module: &Value) -> bool {
    match module.get("attributes").and_then(|a| a.get("top")) {
        Some(Value::String(s)) => s.trim().chars().any(|c| c != '0'),
        Some(Value::Number(n)) => n.as_f64() != Some(0.0),
        Some(Value::Bool(b)) => *b,
        _ => false,
    }
}

fn cell_count(module: &Value) -> usize {
    module
        .get("cells")
        .and_then(Value::as_object)
        .map_or(0, |c| c.len())
}

/// Reads the top module's cells.
fn graph(v: &Value) -> Result<(&str, Graph<'_>), String> {
    let modules = v
        .get("modules")
        .and_then(Value::as_object)
        .ok_or("no `modules` object")?;
    let (top, module) = modules
        .iter()
        .find(|(_, m)| is_top(m))
        .or_else(|| {
            // The most cells; of equal ones, the first.
            modules.iter().rev().max_by_key(|(_, m)| cell_count(m))
        })
        .ok_or("no module")?;
    let cells_v = module
        .get("cells")
        .and_then(Value::as_object)
        .ok_or_else(|| format!("module `{top}` has no `cells` object"))?;
    let mut cells = Vec::with_capacity(cells_v.len());
    let mut driver = HashMap::new();
    for (name, c) in cells_v {
        let ty = c
            .get("type")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("cell `{name}` has no `type`"))?;
        let conns = c
            .get("connections")
            .and_then(Value::as_object)
            .ok_or_else(|| format!("cell `{name}` has no `connections` object"))?;
        let dirs = c.get("port_directions");
        let index = cells.len();
        let mut inputs = Vec::new();
        for (port, bits) in conns {
            let output = dirs.and_then(|d| d.get(port)).and_then(Value::as_str) == Some("output");
            let bits = bits
                .as_array()
                .ok_or_else(|| format!("cell `{name}` port {port}: not a list of bits"))?;
            for b in bits {
                let bit = match b {
                    Value::String(_) => continue, // a constant: "0", "1", "x", "z"
                    Value::Number(n) => n.as_u64().ok_or_else(|| {
                        format!("cell `{name}` port {port}: bit {n} is not a net number")
                    })?,
                    other => {
                        return Err(format!(
                        "cell `{name}` port {port}: bit {other} is not a net number or a constant"
                    ))
                    }
                };
                if output {
                    driver.insert(bit, (index, port.as_str()));
                } else {
                    inputs.push((port.as_str(), bit));
                }
            }
        }
        cells.push(Cell {
            name,
            ty,
            kind: Kind::of(ty),
            inputs,
        });
    }
    Ok((top, Graph { cells, driver }))
}

/// Walks the flat ECP5 netlist `netlist_json` (Yosys's `write_json`) with
/// the unit-delay model of this module: the top module (the one with the
/// `top` attribute, else the one with the most cells), its endpoints
/// ranked and grouped, the slowest paths traced. An error says what is
/// wrong with the netlist, or names a cell on a combinational loop.
pub fn longest_paths(netlist_json: &str, options: &WalkOptions) -> Result<PathReport, String> {
    let v: Value = serde_json::from_str(netlist_json).map_err(|e| format!("not JSON: {e}"))?;
    let (top, g) = graph(&v)?;
    let mut arr = Arrivals::new(&g);

    // (arrival, cell, port, bit) of every endpoint.
    let mut ends: Vec<(f64, usize, &str, u64)> = Vec::new();
    for (c, cell) in g.cells.iter().enumerate() {
        for &(port, bit) in &cell.inputs {
            if cell.kind.ends_at(port) {
                let a = arr.at_bit(bit)? + g.net_delay(bit, c, port);
                ends.push((a, c, port, bit));
            }
        }
    }
    // Slowest first; ties by cell name, port and bit, descending.
    ends.sort_by(|x, y| {
        y.0.total_cmp(&x.0)
            .then_with(|| g.cells[y.1].name.cmp(g.cells[x.1].name))
            .then_with(|| y.2.cmp(x.2))
            .then_with(|| y.3.cmp(&x.3))
    });

    let over_threshold = ends.iter().filter(|e| e.0 > options.threshold_ns).count();
    // Groups in order of their slowest endpoint; each with its count.
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut groups: Vec<(EndpointGroup, (usize, &str, u64))> = Vec::new();
    for &(a, c, port, bit) in &ends {
        let name = group_name(g.cells[c].name);
        match index.get(&name) {
            Some(&i) => groups[i].0.endpoints += 1,
            None => {
                index.insert(name.clone(), groups.len());
                let cell = &g.cells[c];
                groups.push((
                    EndpointGroup {
                        name,
                        worst: Endpoint {
                            arrival_ns: a,
                            cell: cell.name.to_string(),
                            cell_type: cell.ty.to_string(),
                            port: port.to_string(),
                        },
                        endpoints: 1,
                    },
                    (c, port, bit),
                ));
            }
        }
    }
    groups.truncate(options.rows);
    let mut paths = Vec::new();
    for (group, (c, port, bit)) in groups.iter().take(options.paths) {
        paths.push(arr.trace(*c, port, *bit, group.worst.arrival_ns)?);
    }
    Ok(PathReport {
        top: top.to_string(),
        cells: g.cells.len(),
        endpoints: ends.len(),
        threshold_ns: options.threshold_ns,
        over_threshold,
        groups: groups.into_iter().map(|(g, _)| g).collect(),
        paths,
    })
}

/// `|` escaped for a Markdown table cell.
fn cell_text(s: &str) -> String {
    s.replace('|', "\\|")
}

impl PathReport {
    /// A Markdown section: the model in one sentence, the count over the
    /// threshold, a table of the slowest endpoint groups, their paths.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "### Longest paths, estimated (unit-delay model)\n");
        let _ = writeln!(
            out,
            "A walk of the synthesized netlist (`{}`, {} cells), not a timing analysis: \
             {CLOCK_TO_OUT_NS} ns clock-to-out, {LUT_NS} ns per LUT4, LUT-RAM read or carry \
             entry, {CARRY_STEP_NS} ns per carry cell along a chain, {MUX_NS} ns per PFUMX or \
             L6MUX21, {NET_NS} ns per net between slices and none inside one; with nothing \
             placed or routed, it ranks where the long paths are, and nextpnr's figure says \
             how fast.\n",
            self.top, self.cells
        );
        let mhz = if self.threshold_ns > 0.0 {
            format!(" ({:.2} MHz)", 1000.0 / self.threshold_ns)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "{} of {} endpoints arrive later than {:.2} ns{mhz}. The slowest, one row per \
             register or memory (cell name without its bit suffixes), by its slowest input:\n",
            self.over_threshold, self.endpoints, self.threshold_ns
        );
        let _ = writeln!(
            out,
            "| ns | endpoint (slowest of its group) | cell type | endpoints |"
        );
        let _ = writeln!(out, "|---:|---|---|---:|");
        for gr in &self.groups {
            let w = &gr.worst;
            let _ = writeln!(
                out,
                "| {:.2} | `{}.{}` | {} | {} |",
                w.arrival_ns,
                cell_text(&w.cell),
                cell_text(&w.port),
                cell_text(&w.cell_type),
                gr.endpoints
            );
        }
        for p in &self.paths {
            let e = p.endpoint();
            let _ = writeln!(
                out,
                "\nPath to `{}.{}`, {:.2} ns, {} cells (arrival, cell type, cell and pin):\n",
                e.cell,
                e.port,
                e.arrival_ns,
                p.steps.len()
            );
            out.push_str("```text\n");
            for s in &p.steps {
                let _ = writeln!(
                    out,
                    "{:6.2}  {:<16} {}.{}",
                    s.arrival_ns, s.cell_type, s.cell, s.port
                );
            }
            out.push_str("```\n");
        }
        out
    }
}
