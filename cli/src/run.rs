//! `concord run`: a launch description on the functional model, the cycle
//! model, or the RTL (through Verilator, in lock-step with the cycle model
//! by default).

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::json;

use concord_isa::config::CoreConfig;
use concord_isa::func::{self, Issue, Observer, Options, Stats};
use concord_isa::launch::{LaunchDescription, PreparedLaunch};
use concord_isa::mask::LaneMask;
use concord_testbench::trace::{Counters, TracePort};

#[derive(Args)]
pub struct RunArgs {
    /// Launch description (YAML): program, grid, block, arguments, outputs.
    launch: PathBuf,
    /// Core configuration; overrides the launch description's `config:`.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Write one JSON object per issue (warp, pc, mask, ...) to this file.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Print one JSON object with `outputs` and `stats` instead of text.
    #[arg(long)]
    json: bool,
    /// Which model runs the launch.
    #[arg(long, value_enum, default_value_t = Model::Functional)]
    model: Model,
    /// With `--model rtl`: run the RTL alone instead of in lock-step with the cycle model.
    #[arg(long)]
    no_lockstep: bool,
    /// With `--model rtl`: write a waveform of the RTL run (GTKWave opens it).
    #[arg(long, value_name = "FILE")]
    vcd: Option<PathBuf>,
    /// How a `.cu` program is compiled.
    #[command(flatten)]
    compile: crate::compile::CompileFlags,
}

#[derive(Args)]
pub struct CosimArgs {
    launch: PathBuf,
    #[arg(long)]
    config: Option<PathBuf>,
    /// Write one JSON object per cycle (the trace port) to this file.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    #[arg(long)]
    json: bool,
    /// Write a waveform of the RTL run.
    #[arg(long, value_name = "FILE")]
    vcd: Option<PathBuf>,
    #[command(flatten)]
    compile: crate::compile::CompileFlags,
}

impl CosimArgs {
    pub fn into_run(self) -> RunArgs {
        RunArgs {
            launch: self.launch,
            config: self.config,
            trace: self.trace,
            json: self.json,
            model: Model::Rtl,
            no_lockstep: false,
            vcd: self.vcd,
            compile: self.compile,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Model {
    /// The architectural model (no timing).
    Functional,
    /// The cycle-accurate Rust model of the core.
    Cycle,
    /// The generated Verilog under Verilator.
    Rtl,
}

impl Model {
    fn name(self) -> &'static str {
        match self {
            Model::Functional => "functional model",
            Model::Cycle => "cycle model",
            Model::Rtl => "RTL",
        }
    }
}

/// Writes the per-issue trace as JSON Lines.
struct TraceWriter {
    out: std::io::BufWriter<std::fs::File>,
    lanes: usize,
    error: Option<std::io::Error>,
}

impl Observer for TraceWriter {
    fn issue(&mut self, i: &Issue) {
        if self.error.is_some() {
            return;
        }
        let line = json!({
            "issue": i.index,
            "block": i.block,
            "warp": i.warp,
            "pc": i.pc,
            "mask": LaneMask::new(i.active, self.lanes).to_string(),
            "exec": LaneMask::new(i.executing, self.lanes).to_string(),
        });
        if let Err(e) = writeln!(self.out, "{line}") {
            self.error = Some(e);
        }
    }
}

/// Statistics of a run, whichever model produced them.
pub enum RunStats {
    Functional(Stats),
    Timed {
        counters: Counters,
        lanes: u32,
        lockstep: bool,
    },
}

impl RunStats {
    fn to_json(&self) -> serde_json::Value {
        match self {
            RunStats::Functional(stats) => {
                let mut v = serde_json::to_value(stats).expect("stats serialize");
                v["simd_efficiency"] = json!(stats.simd_efficiency());
                v
            }
            RunStats::Timed {
                counters, lanes, ..
            } => {
                let mut v = serde_json::to_value(counters).expect("counters serialize");
                v["lanes"] = json!(lanes);
                v["simd_efficiency"] = json!(counters.simd_efficiency(*lanes));
                v
            }
        }
    }
}

pub fn run(args: RunArgs) -> Result<(), String> {
    if args.model != Model::Rtl && (args.vcd.is_some() || args.no_lockstep) {
        return Err("--vcd and --no-lockstep need --model rtl".into());
    }
    let desc = LaunchDescription::load(&args.launch).map_err(|e| e.to_string())?;
    let config_path = args.config.clone().or_else(|| desc.config.clone());
    let config = match &config_path {
        Some(p) => CoreConfig::load(p).map_err(|e| e.to_string())?,
        None => CoreConfig::default(),
    };
    let kernel = crate::compile::program_for_launch(&desc, &config, &args.compile)?;
    let prepared = desc.prepare(&kernel, &config).map_err(|e| e.to_string())?;
    let launch = func::Launch {
        code: &kernel.code,
        entry_pc: prepared.entry_pc,
        grid: prepared.grid,
        block: prepared.block,
        params: &prepared.params,
        stack_bytes: kernel.stack_bytes,
    };
    let (global, stats) = match args.model {
        Model::Functional => run_functional(&args, &config, &launch, &prepared)?,
        Model::Cycle | Model::Rtl => run_timed(&args, &config, &launch, &prepared)?,
    };
    report(&args, &desc, &config, &prepared, &global, &stats);
    Ok(())
}

fn create_trace(path: &Path) -> Result<std::io::BufWriter<std::fs::File>, String> {
    Ok(std::io::BufWriter::new(
        std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?,
    ))
}

fn run_functional(
    args: &RunArgs,
    config: &CoreConfig,
    launch: &func::Launch<'_>,
    prepared: &PreparedLaunch,
) -> Result<(Vec<u8>, RunStats), String> {
    let mut global = prepared.global.clone();
    let options = Options {
        watchdog: prepared.watchdog,
    };
    let mut tracer = match &args.trace {
        Some(path) => Some(TraceWriter {
            out: create_trace(path)?,
            lanes: config.lanes as usize,
            error: None,
        }),
        None => None,
    };
    let result = func::run(
        config,
        launch,
        &mut global,
        options,
        tracer.as_mut().map(|t| t as &mut dyn Observer),
    );
    if let (Some(t), Some(path)) = (tracer.as_mut(), &args.trace) {
        let flushed = t.out.flush();
        if let Some(e) = t.error.take().or(flushed.err()) {
            return Err(format!("{}: {e}", path.display()));
        }
    }
    let stats = result.map_err(|trap| trap.to_string())?;
    Ok((global, RunStats::Functional(stats)))
}

/// The timed models: the cycle model alone, the RTL alone, or both in lock-step.
fn run_timed(
    args: &RunArgs,
    config: &CoreConfig,
    launch: &func::Launch<'_>,
    prepared: &PreparedLaunch,
) -> Result<(Vec<u8>, RunStats), String> {
    let mut trace_out = match &args.trace {
        Some(path) => Some(create_trace(path)?),
        None => None,
    };
    let mut trace_error = None;
    let mut on_cycle = |cycle: u64, t: &TracePort| {
        if let (Some(out), None) = (trace_out.as_mut(), &trace_error) {
            let mut v = serde_json::to_value(t).expect("trace serializes");
            v["cycle"] = json!(cycle);
            v["mask"] = json!(LaneMask::new(t.active, config.lanes as usize).to_string());
            if let Err(e) = writeln!(out, "{v}") {
                trace_error = Some(e);
            }
        }
    };
    let hook: Option<concord_testbench::cosim::OnCycle<'_>> = if args.trace.is_some() {
        Some(&mut on_cycle)
    } else {
        None
    };
    let watchdog = prepared.watchdog;
    let lockstep = args.model == Model::Rtl && !args.no_lockstep;
    let (global, result) = match args.model {
        Model::Cycle => {
            let mut global = prepared.global.clone();
            let r = concord_testbench::cycle::run(config, launch, &mut global, watchdog, hook);
            (global, r.map_err(|t| t.to_string()))
        }
        _ => {
            let mut rtl = crate::rtl::build(config, args.vcd.is_some())?;
            if let Some(path) = &args.vcd {
                rtl.open_vcd(path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
            }
            let r = if lockstep {
                concord_testbench::cosim::run(
                    config,
                    launch,
                    &prepared.global,
                    &mut rtl,
                    watchdog,
                    hook,
                )
                .map_err(|e| e.to_string())
                .and_then(|o| {
                    let counters = o.counters;
                    o.result.map_err(|t| t.to_string())?;
                    Ok((o.global, counters))
                })
            } else {
                let mut global = prepared.global.clone();
                concord_testbench::verilator::run(
                    &mut rtl,
                    config,
                    launch,
                    &mut global,
                    watchdog,
                    hook,
                )
                .map(|c| (global, c))
                .map_err(|t| t.to_string())
            };
            if args.vcd.is_some() {
                rtl.close_vcd();
            }
            match r {
                Ok((global, counters)) => (global, Ok(counters)),
                Err(e) => (Vec::new(), Err(e)),
            }
        }
    };
    if let (Some(out), Some(path)) = (trace_out.as_mut(), &args.trace) {
        let flushed = out.flush();
        if let Some(e) = trace_error.take().or(flushed.err()) {
            return Err(format!("{}: {e}", path.display()));
        }
    }
    let counters = result?;
    Ok((
        global,
        RunStats::Timed {
            counters,
            lanes: config.lanes,
            lockstep,
        },
    ))
}

fn report(
    args: &RunArgs,
    desc: &LaunchDescription,
    config: &CoreConfig,
    prepared: &PreparedLaunch,
    global: &[u8],
    stats: &RunStats,
) {
    let outputs = prepared.read_outputs(global);
    let model = match stats {
        RunStats::Timed { lockstep: true, .. } => {
            "RTL in lock-step with the cycle model".to_string()
        }
        _ => args.model.name().to_string(),
    };
    if args.json {
        let mut out = serde_json::Map::new();
        for (name, _, values) in &outputs {
            out.insert(name.clone(), json!(values));
        }
        let model_key = match args.model {
            Model::Functional => "functional",
            Model::Cycle => "cycle",
            Model::Rtl => "rtl",
        };
        let doc = json!({ "model": model_key, "outputs": out, "stats": stats.to_json() });
        println!("{doc}");
        return;
    }
    println!(
        "{} on the {model}: {} lanes x {} warps, {} arbitration; grid {:?}, block {:?}",
        desc.program.display(),
        config.lanes,
        config.warps,
        config.arbitration.name(),
        prepared.grid,
        prepared.block
    );
    for (name, elem, values) in &outputs {
        const SHOWN: usize = 16;
        let head: Vec<String> = values.iter().take(SHOWN).map(|v| v.to_string()).collect();
        let more = if values.len() > SHOWN {
            format!(", ... ({} values)", values.len())
        } else {
            String::new()
        };
        println!(
            "  {name}: {}[{}] = [{}{}]",
            elem.name(),
            values.len(),
            head.join(", "),
            more
        );
    }
    match stats {
        RunStats::Functional(stats) => {
            println!(
                "  issued {} warp-instructions, {} active lane-slots, SIMD efficiency {:.1}%",
                stats.issued,
                stats.active_lane_slots,
                100.0 * stats.simd_efficiency()
            );
            println!(
                "  divergent branches {}, consensual branches taken {} / not taken {}, barriers {}",
                stats.divergent_branches,
                stats.consensual_taken,
                stats.consensual_not_taken,
                stats.barriers
            );
        }
        RunStats::Timed {
            counters: c, lanes, ..
        } => {
            println!(
                "  {} cycles, issued {} ({} replays), {} active lane-slots, SIMD efficiency {:.1}%, IPC {:.3}",
                c.cycles,
                c.issued,
                c.replays,
                c.active_lane_slots,
                100.0 * c.simd_efficiency(*lanes),
                c.issued as f64 / c.cycles.max(1) as f64
            );
            println!(
                "  divergent branches {}, consensual branches taken {} / not taken {}, barriers {}",
                c.divergent_branches, c.consensual_taken, c.consensual_not_taken, c.barriers
            );
        }
    }
}
