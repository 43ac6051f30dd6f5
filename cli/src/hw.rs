//! `concord verilog` and `concord synth-report`: the generated core
//! (`concord_hdl::v2::core::core_verilog`, with a generator preset) as a
//! file, its area on iCE40 and ECP5, (`--pnr`) its Fmax and utilisation
//! after place and route with nextpnr, and (`--paths`) an estimate of
//! where its longest paths are.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, ValueEnum};

use concord_fpga::paths::{longest_paths, WalkOptions};
use concord_fpga::pnr::{Device, Placer, PnrFlow, PnrOptions};
use concord_fpga::process::WorkDir;
use concord_fpga::{AreaStats, Target};

use concord_isa::config::CoreConfig;
use concord_uarch::{GenOptions, HwParams};

use crate::error::CliError;
use crate::output::{self, Output};

/// The generator preset (docs/microarchitecture.md §17.2).
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum Preset {
    /// No trace port, 32-bit counters, no debug registers: for boards.
    Board,
    /// Trace port, 64-bit counters, debug registers: for co-simulation.
    Sim,
}

impl Preset {
    pub(crate) fn options(self) -> GenOptions {
        match self {
            Preset::Board => GenOptions::board(),
            Preset::Sim => GenOptions::sim(),
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Preset::Board => "board",
            Preset::Sim => "sim",
        }
    }
}

/// The generator options of `verilog` and `synth-report`.
#[derive(Args, Clone, Copy)]
pub struct CoreChoice {
    /// The generator preset (docs/microarchitecture.md §17.2): `board`
    /// leaves out the trace port and the debug registers and keeps 32-bit
    /// counters; `sim` is the core the Verilator harness co-simulates.
    #[arg(long, value_enum, default_value_t = Preset::Board)]
    preset: Preset,
}

/// The clock port of the generated top (`concord_uarch::ports`).
const CLOCK: &str = "clk";

impl CoreChoice {
    /// The Verilog of `config`'s core; the error names the config field or
    /// the generator option.
    fn verilog(self, config: &CoreConfig) -> Result<String, String> {
        concord_hdl::v2::core::core_verilog(config, &self.preset.options())
            .map_err(|e| e.to_string())
    }

    /// The modules reported on their own next to the top: the arbiter
    /// tree(s) of §9.1 the design has.
    fn units(self, verilog: &str) -> Vec<&'static str> {
        [
            "concord_arbiter",
            "concord_arbiter_branch",
            "concord_arbiter_mem",
        ]
        .into_iter()
        .filter(|m| {
            verilog.contains(&format!("module {m}(")) || verilog.contains(&format!("module {m} "))
        })
        .collect()
    }
}

#[derive(Args)]
pub struct VerilogArgs {
    /// Core configuration (YAML); the default core otherwise.
    #[arg(long)]
    config: Option<PathBuf>,
    #[command(flatten)]
    choice: CoreChoice,
    /// Output file.
    #[arg(short, long)]
    output: PathBuf,
}

#[derive(Args)]
pub struct SynthReportArgs {
    /// Core configuration (YAML); the default core otherwise.
    #[arg(long)]
    config: Option<PathBuf>,
    #[command(flatten)]
    choice: CoreChoice,
    /// Where to write the Markdown report (also printed on standard output).
    #[arg(short, long, default_value = "synth-report.md")]
    output: PathBuf,
    /// Also place and route the core (in a generated top with three pins)
    /// on this device with nextpnr and report Fmax and utilisation; may be
    /// given several times. A core that does not fit is reported as such.
    #[arg(long, value_name = "DEVICE", value_parser = parse_device)]
    pnr: Vec<Device>,
    /// nextpnr's placement seed.
    #[arg(long, default_value_t = 1, requires = "pnr")]
    seed: u64,
    /// The clock nextpnr aims at, in MHz (the achieved Fmax is reported
    /// either way).
    #[arg(long, default_value_t = 25.0, value_parser = parse_freq, requires = "pnr")]
    freq: f64,
    /// Stop any one tool run (a synthesis, a nextpnr run) after this many
    /// seconds, as a failure naming its log. No limit by default.
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    timeout: Option<u64>,
    /// Stop nextpnr after placement (its `--no-route`): Fmax is then
    /// nextpnr's estimate for the placed design (read from its log; no
    /// critical path is reported; --paths estimates where it is), minutes
    /// sooner than a routed result.
    #[arg(long, requires = "pnr")]
    no_route: bool,
    /// nextpnr's placer: heap, static or sa. By default `static` on the
    /// ECP5 (with `heap` the default core's routing does not converge,
    /// docs/microarchitecture.md §19.6) and `heap` on the iCE40, whose
    /// nextpnr 0.4 has no `static`.
    #[arg(long, value_parser = parse_placer, requires = "pnr")]
    placer: Option<Placer>,
    /// Leave the lanes' register-file block RAMs and multipliers to the
    /// placer instead of fixing their sites on the ECP5
    /// (`concord_fpga::floorplan`; without the floorplan the default
    /// core's routing does not converge).
    #[arg(long, requires = "pnr")]
    no_floorplan: bool,
    /// Estimate where the longest paths are: walk the synthesized ECP5
    /// netlist with a fixed unit-delay model (a ranking, not a timing
    /// figure; `concord_fpga::paths`) and append the N slowest endpoints
    /// (one row per register or memory), how many endpoints miss the
    /// target period (1000 / --freq ns) and the whole path of the slowest.
    /// For --no-route, where nextpnr reports no critical path. 0: off.
    #[arg(long, value_name = "N", default_value_t = 0, requires = "pnr")]
    paths: usize,
    /// Keep the place-and-route files (Verilog, netlists, logs, nextpnr's
    /// reports) in this directory. Otherwise they go to a temporary
    /// directory, removed after success and kept (and named) on failure.
    #[arg(long, value_name = "DIR", requires = "pnr")]
    pnr_dir: Option<PathBuf>,
    /// Marginal area per lane on ECP5: synthesize the config with `lanes:
    /// A` and with `lanes: B` (all else as given) and report their
    /// difference divided by B - A.
    #[arg(long, value_name = "A,B", value_parser = parse_lanes_delta)]
    lanes_delta: Option<(u32, u32)>,
    /// Leave out the area table (with --pnr or --lanes-delta).
    #[arg(long)]
    no_area: bool,
}

fn parse_device(text: &str) -> Result<Device, String> {
    Device::from_name(text).ok_or_else(|| {
        let names: Vec<&str> = Device::ALL.iter().map(|d| d.name()).collect();
        format!("`{text}` is not a device; one of: {}", names.join(", "))
    })
}

fn parse_placer(text: &str) -> Result<Placer, String> {
    Placer::from_name(text).ok_or_else(|| {
        let names: Vec<&str> = Placer::ALL.iter().map(|p| p.name()).collect();
        format!("`{text}` is not a placer; one of: {}", names.join(", "))
    })
}

fn parse_freq(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(f) if f.is_finite() && (0.1..=1000.0).contains(&f) => Ok(f),
        _ => Err(format!(
            "`{text}` is not a frequency in MHz from 0.1 to 1000"
        )),
    }
}

fn parse_lanes_delta(text: &str) -> Result<(u32, u32), String> {
    let bad = || format!("`{text}` is not two lane counts `A,B` with A < B, such as `4,8`");
    let (a, b) = text.split_once(',').ok_or_else(bad)?;
    let a: u32 = a.trim().parse().map_err(|_| bad())?;
    let b: u32 = b.trim().parse().map_err(|_| bad())?;
    if a >= b {
        return Err(bad());
    }
    Ok((a, b))
}

/// Whether the hardware (the RTL, and the cycle model that mirrors it) can
/// be built for `config`: `concord_uarch::HwParams::new`, the one rule set,
/// its error naming `file` (where the configuration came from) and the
/// field.
pub fn check_buildable(config: &CoreConfig, file: Option<&Path>) -> Result<HwParams, String> {
    HwParams::new(config).map_err(|e| match file {
        Some(p) => format!("{}: {e}", p.display()),
        None => e.to_string(),
    })
}

pub fn load_config(path: &Option<PathBuf>) -> Result<CoreConfig, String> {
    match path {
        Some(p) => CoreConfig::load(p).map_err(|e| e.to_string()),
        None => Ok(CoreConfig::default()),
    }
}

fn verilog_for(path: &Option<PathBuf>, choice: CoreChoice) -> Result<String, String> {
    let config = load_config(path)?;
    choice.verilog(&config).map_err(|e| match path {
        Some(p) => format!("{}: {e}", p.display()),
        None => e.to_string(),
    })
}

/// Opens the output of `verilog` or `synth-report` before the work, and
/// refuses it if it is the config.
fn open_output(path: &std::path::Path, config: &Option<PathBuf>) -> Result<Output, CliError> {
    let out = Output::open(path)?;
    let inputs: Vec<(&str, &std::path::Path)> =
        config.iter().map(|c| ("the config", c.as_path())).collect();
    output::check_distinct(&[("-o", &out)], &inputs)?;
    Ok(out)
}

pub fn verilog(args: VerilogArgs) -> Result<(), CliError> {
    let out = open_output(&args.output, &args.config)?;
    let text = verilog_for(&args.config, args.choice)?;
    let summary = format!(
        "{}: {} lines of Verilog, top module `concord_core`",
        out.label(),
        text.lines().count()
    );
    out.write_all_and_finish(text.as_bytes())?;
    crate::note(&summary);
    Ok(())
}

pub fn synth_report(args: SynthReportArgs) -> Result<(), CliError> {
    if args.no_area && args.pnr.is_empty() && args.lanes_delta.is_none() {
        return Err(CliError::usage(
            "--no-area leaves nothing to report without --pnr or --lanes-delta",
        ));
    }
    if args.paths > 0 && !args.pnr.iter().any(|d| d.target() == Target::Ecp5) {
        return Err(CliError::usage(
            "--paths walks the ECP5 netlist: it needs an ECP5 device (--pnr ecp5-...)",
        ));
    }
    if let Some(placer) = args.placer {
        if let Some(d) = args.pnr.iter().find(|d| !placer.available_for(d.target())) {
            return Err(CliError::usage(format!(
                "--placer {}: the nextpnr for {} has no such placer",
                placer.name(),
                d.name()
            )));
        }
    }
    let out = open_output(&args.output, &args.config)?;
    // Everything that can fail before the work fails now: the tools, the
    // place-and-route directory, the config and the other lane counts'
    // configs.
    let timeout = args.timeout.map(Duration::from_secs);
    let opts = PnrOptions {
        seed: args.seed,
        freq_mhz: args.freq,
        timeout,
        no_route: args.no_route,
        placer: args.placer,
        floorplan: !args.no_floorplan,
    };
    let flow = if args.pnr.is_empty() {
        None
    } else {
        let mut devices = args.pnr.clone();
        devices.sort();
        devices.dedup();
        Some(PnrFlow::new(&devices, opts.clone())?)
    };
    let mut workdir = match (&flow, &args.pnr_dir) {
        (None, _) => None,
        (Some(_), Some(dir)) => {
            Some(WorkDir::given(dir).map_err(|e| CliError::from(format!("--pnr-dir {e}")))?)
        }
        (Some(_), None) => Some(WorkDir::scratch("pnr")?),
    };
    let config = load_config(&args.config)?;
    let config_label = args
        .config
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "default config".into());
    let text = verilog_for(&args.config, args.choice)?;
    let delta = match args.lanes_delta {
        Some((a, b)) => {
            let build = |lanes: u32| -> Result<String, CliError> {
                let c = CoreConfig {
                    lanes,
                    ..config.clone()
                };
                c.validate()
                    .map_err(|e| e.to_string())
                    .and_then(|()| args.choice.verilog(&c))
                    .map_err(|e| {
                        CliError::usage(format!(
                            "--lanes-delta: the config with `lanes: {lanes}`: {e}"
                        ))
                    })
            };
            Some(((a, build(a)?), (b, build(b)?)))
        }
        None => None,
    };

    let core_label = format!("{} preset", args.choice.preset.name());
    let config_label = format!("{config_label}, {core_label}");
    let units = args.choice.units(&text);
    let title = format!("Concord core area ({config_label})");
    let mut core_area: Vec<(Target, AreaStats)> = Vec::new();
    let mut md = if args.no_area {
        format!("# Concord core ({config_label})\n")
    } else {
        let report = concord_fpga::AreaReport::build_with(
            &title,
            &text,
            concord_hdl::TOP_MODULE,
            &units,
            timeout,
        )?;
        core_area = report
            .rows
            .iter()
            .filter(|r| r.unit == concord_hdl::TOP_MODULE)
            .map(|r| (r.target, r.stats.clone()))
            .collect();
        report.to_markdown()
    };
    if let Some(((a, va), (b, vb))) = &delta {
        md.push('\n');
        md.push_str(&lanes_delta(&config_label, (*a, va), (*b, vb), timeout)?);
    }
    if let (Some(flow), Some(dir)) = (&flow, workdir.as_mut()) {
        let run = flow
            .run(&text, concord_hdl::TOP_MODULE, Some(CLOCK), dir, &mut |s| {
                crate::note(&format!("synth-report: {s}"))
            })
            // Its logs stay for the reader of the message.
            .inspect_err(|_| dir.keep())?;
        md.push('\n');
        md.push_str(&run.to_markdown(&opts, args.pnr_dir.as_deref(), &core_area));
        if args.paths > 0 {
            let walk = WalkOptions {
                rows: args.paths,
                paths: 1,
                threshold_ns: 1000.0 / args.freq,
            };
            // One netlist per family, whatever the number of devices.
            let mut netlists: Vec<&Path> = Vec::new();
            for r in &run.results {
                if r.device.target() == Target::Ecp5 && !netlists.contains(&r.netlist.as_path()) {
                    netlists.push(&r.netlist);
                }
            }
            for netlist in netlists {
                crate::note(&format!(
                    "synth-report: longest paths of {} (unit-delay estimate)",
                    netlist.display()
                ));
                // The netlist stays for the reader of the message.
                let section = netlist_paths(netlist, &walk).inspect_err(|_| dir.keep())?;
                md.push('\n');
                md.push_str(&section);
            }
        }
    }
    let to_stdout = out.kind() == output::Kind::Stdout;
    out.write_all_and_finish(md.as_bytes())?;
    if !to_stdout {
        output::write_stdout(md.as_bytes())?;
    }
    Ok(())
}

/// The longest-paths section of the ECP5 netlist `netlist` (Yosys's
/// `write_json`); a netlist that cannot be read or walked is an error
/// naming it.
fn netlist_paths(netlist: &Path, walk: &WalkOptions) -> Result<String, CliError> {
    let fail = |why: String| {
        CliError::tool(format!(
            "cannot walk Yosys's netlist {}: {why}",
            netlist.display()
        ))
    };
    let text = std::fs::read_to_string(netlist).map_err(|e| fail(e.to_string()))?;
    let report = longest_paths(&text, walk).map_err(fail)?;
    Ok(report.to_markdown())
}

/// The marginal area per lane on ECP5: two flat syntheses, their
/// difference divided by the difference of lanes.
fn lanes_delta(
    config_label: &str,
    (a, va): (u32, &String),
    (b, vb): (u32, &String),
    timeout: Option<Duration>,
) -> Result<String, CliError> {
    use std::fmt::Write as _;
    let synth = |v: &String, lanes: u32| {
        let t = std::time::Instant::now();
        let r = concord_fpga::synthesize_with(v, concord_hdl::TOP_MODULE, Target::Ecp5, timeout);
        crate::note(&format!(
            "synth-report: ECP5 with lanes: {lanes}: {:.0} s",
            t.elapsed().as_secs_f64()
        ));
        r
    };
    let (sa, sb) = std::thread::scope(|s| {
        let ja = s.spawn(|| synth(va, a));
        let jb = s.spawn(|| synth(vb, b));
        (
            ja.join().expect("synthesis thread panicked"),
            jb.join().expect("synthesis thread panicked"),
        )
    });
    let (sa, sb) = (sa?, sb?);
    let n = f64::from(b - a);
    let per = |f: fn(&AreaStats) -> u64| (f(&sb) as f64 - f(&sa) as f64) / n;
    let slice_luts = |s: &AreaStats| s.luts + 2 * s.carries;
    let mut md = String::new();
    let _ = writeln!(
        md,
        "## Marginal area per lane (ECP5)\n\n\
         The core with `lanes: {a}` and with `lanes: {b}`, all else as in {config_label}, \
         synthesized flat for ECP5 as above; per lane = (lanes {b} - lanes {a}) / {}. \
         LUT4 + 2 x CCU2C counts the LUT positions of a slice that logic and carries take.\n",
        b - a
    );
    let _ = writeln!(
        md,
        "| build | LUT4 | CCU2C | LUT4 + 2 x CCU2C | FF | DP16KD | MULT18X18D | LUT RAM |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|"
    );
    for (lanes, s) in [(a, &sa), (b, &sb)] {
        let _ = writeln!(
            md,
            "| lanes {lanes} | {} | {} | {} | {} | {} | {} | {} |",
            s.luts,
            s.carries,
            slice_luts(s),
            s.ffs,
            s.brams,
            s.dsps,
            s.lut_rams
        );
    }
    let _ = writeln!(
        md,
        "| **per lane** | {:.0} | {:.0} | **{:.0}** | {:.0} | {:.1} | {:.1} | {:.1} |",
        per(|s| s.luts),
        per(|s| s.carries),
        per(|s| s.luts + 2 * s.carries),
        per(|s| s.ffs),
        per(|s| s.brams),
        per(|s| s.dsps),
        per(|s| s.lut_rams)
    );
    Ok(md)
}
