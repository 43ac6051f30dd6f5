//! # concord-fpga
//!
//! The open-tool flows around the generated core: Verilator lint
//! ([`lint`]), Yosys synthesis for Lattice iCE40 and ECP5 ([`synthesize`])
//! and the area report of `concord synth-report` ([`AreaReport`]).
//!
//! Where it sits: `concord_hdl::generate_verilog` produces the Verilog; this
//! crate only runs external tools on it, checks their exit codes (the
//! board-support crates of rust-hdl do not) and parses their results. The
//! tools come from `scripts/setup.sh`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

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

    fn synth_command(self) -> &'static str {
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
    #[error("{tool} not found: run scripts/setup.sh (it installs {tool} from the OS packages)")]
    Missing { tool: &'static str },
    #[error("{tool} failed ({status}):\n{tail}")]
    Failed {
        tool: &'static str,
        status: String,
        tail: String,
    },
    #[error("{0}")]
    Io(String),
    #[error("could not read yosys statistics: {0}")]
    Stats(String),
}

fn tool_on_path(tool: &'static str) -> Result<(), FlowError> {
    let found = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| dir.join(tool).is_file()))
        .unwrap_or(false);
    if found {
        Ok(())
    } else {
        Err(FlowError::Missing { tool })
    }
}

/// A scratch directory removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Result<Scratch, FlowError> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("concord-{tag}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir)
            .map_err(|e| FlowError::Io(format!("{}: {e}", dir.display())))?;
        Ok(Scratch(dir))
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn write(path: &Path, text: &str) -> Result<(), FlowError> {
    std::fs::write(path, text).map_err(|e| FlowError::Io(format!("{}: {e}", path.display())))
}

fn run(tool: &'static str, cmd: &mut Command) -> Result<String, FlowError> {
    tool_on_path(tool)?;
    let out = cmd
        .output()
        .map_err(|e| FlowError::Io(format!("{tool}: {e}")))?;
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    if !out.status.success() {
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(30)..].join("\n");
        return Err(FlowError::Failed {
            tool,
            status: out.status.to_string(),
            tail,
        });
    }
    Ok(text)
}

/// `verilator --lint-only -Wall` on `verilog` with `top` as the top module.
/// Any warning is an error (waivers belong in the Verilog, with a reason).
pub fn lint(verilog: &str, top: &str) -> Result<(), FlowError> {
    let dir = Scratch::new("lint")?;
    let file = dir.path(&format!("{top}.v"));
    write(&file, verilog)?;
    let text = run(
        "verilator",
        Command::new("verilator")
            .arg("--lint-only")
            .arg("-Wall")
            .arg("--top-module")
            .arg(top)
            .arg(&file),
    )?;
    if text.contains("%Warning") || text.contains("%Error") {
        return Err(FlowError::Failed {
            tool: "verilator",
            status: "warnings".into(),
            tail: text,
        });
    }
    Ok(())
}

/// The Yosys commands of [`synthesize`] after `read_verilog`: the vendor
/// script (`synth_ice40`/`synth_ecp5`, default options) up to its `check`
/// step, then that step without `autoname`. `autoname` only renames
/// internal wires after mapping (no cell changes); on the default core it
/// took over 40 % of the ECP5 run time. The cells counted are the same
/// mapped cells a plain `synth_ice40`/`synth_ecp5` run reports.
pub fn synth_steps(target: Target, top: &str) -> String {
    format!(
        "{} -top {top} -run :check; hierarchy -check; stat; check -noinit",
        target.synth_command()
    )
}

/// Synthesizes `top` of `verilog` for `target` and counts its cells.
pub fn synthesize(verilog: &str, top: &str, target: Target) -> Result<AreaStats, FlowError> {
    let dir = Scratch::new("synth")?;
    let file = dir.path("design.v");
    let stats = dir.path("stat.json");
    write(&file, verilog)?;
    let script = format!(
        "read_verilog {}; {}; tee -q -o {} stat -json",
        file.display(),
        synth_steps(target, top),
        stats.display()
    );
    run(
        "yosys",
        Command::new("yosys").arg("-q").arg("-p").arg(script),
    )?;
    let json = std::fs::read_to_string(&stats).map_err(|e| FlowError::Stats(e.to_string()))?;
    parse_stats(&json, target)
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
                            let stats = synthesize(verilog, unit, target)?;
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
            rows,
        })
    }

    /// A Markdown table.
    pub fn to_markdown(&self) -> String {
        let mut out = format!("# {}\n\n", self.title);
        out.push_str(
            "Yosys `synth_ice40` / `synth_ecp5` with default options (flattened \
             except modules marked `keep_hierarchy`, ABC LUT mapping, DSP and block-RAM \
             inference on), run up to `check`, then `check` without `autoname`; \
             counts are the mapped cells of the whole unit (`stat` over the hierarchy).\n\n",
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
