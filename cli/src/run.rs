//! `concord run`: a launch description on the functional model, the cycle
//! model, or the RTL (through Verilator, in lock-step with the cycle model
//! by default).
//!
//! Its outputs (`--trace`, `--vcd`) are opened and checked against its
//! inputs before the work starts, have a size limit (`--trace-limit`,
//! `--vcd-limit`) that stops the run at a clean record boundary, and are
//! kept, complete up to where the run stopped, when it traps.

use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::json;

use concord_isa::config::CoreConfig;
use concord_isa::func::{self, Issue, Observer, Options, Stats};
use concord_isa::launch::{LaunchDescription, PreparedLaunch};
use concord_isa::mask::LaneMask;
use concord_testbench::trace::{Counters, TracePort};

use crate::error::CliError;
use crate::output::{self, outln, Output, Pending};

/// `--trace-limit` by default: 256 MiB, some 2.5 million trace records.
const DEFAULT_TRACE_LIMIT: &str = "256M";
/// `--vcd-limit` by default: 1 GiB, about a million cycles of the default
/// core (a VCD takes some 1 KB per cycle).
const DEFAULT_VCD_LIMIT: &str = "1G";
/// Cycles between two looks at the VCD's size.
const VCD_POLL_CYCLES: u64 = 1024;

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
    /// The largest `--trace` file (bytes; K, M, G, T: powers of 1024). A run
    /// that would write more stops there with an error; the file keeps
    /// every whole record before the limit.
    #[arg(long, value_name = "BYTES", default_value = DEFAULT_TRACE_LIMIT, value_parser = output::parse_size)]
    trace_limit: u64,
    /// The largest `--vcd` file (bytes; K, M, G, T). A run that would write
    /// more stops there with an error; the file keeps every whole time step
    /// before the limit.
    #[arg(long, value_name = "BYTES", default_value = DEFAULT_VCD_LIMIT, value_parser = output::parse_size)]
    vcd_limit: u64,
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
    /// The largest `--trace` file (bytes; K, M, G, T).
    #[arg(long, value_name = "BYTES", default_value = DEFAULT_TRACE_LIMIT, value_parser = output::parse_size)]
    trace_limit: u64,
    /// The largest `--vcd` file (bytes; K, M, G, T).
    #[arg(long, value_name = "BYTES", default_value = DEFAULT_VCD_LIMIT, value_parser = output::parse_size)]
    vcd_limit: u64,
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
            trace_limit: self.trace_limit,
            vcd_limit: self.vcd_limit,
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
    /// The Core v2 pipeline model (docs/microarchitecture-v2.md): 8 stages,
    /// several warps in flight, non-blocking global memory.
    Pipeline,
    /// The Core v2 RTL under Verilator, in lock-step with the Core v2
    /// pipeline model: every cycle's ports and trace record compared
    /// (docs/microarchitecture-v2.md §15.4).
    Rtl2,
}

impl Model {
    fn name(self) -> &'static str {
        match self {
            Model::Functional => "functional model",
            Model::Cycle => "cycle model",
            Model::Rtl => "RTL",
            Model::Pipeline => "Core v2 pipeline model",
            Model::Rtl2 => "Core v2 RTL (in lock-step with the pipeline model)",
        }
    }
}

/// A JSON Lines trace with a size limit.
struct TraceOut {
    out: Output,
    limit: u64,
    written: u64,
    records: u64,
    line: Vec<u8>,
    /// The write that failed; the run was stopped there.
    error: Option<io::Error>,
    /// Whether the run was stopped because the next record would have
    /// passed `limit`.
    full: bool,
}

impl TraceOut {
    fn new(out: Output, limit: u64) -> TraceOut {
        TraceOut {
            out,
            limit,
            written: 0,
            records: 0,
            line: Vec::new(),
            error: None,
            full: false,
        }
    }

    /// Appends one record. A record that would pass the limit, or a write
    /// that fails, is not written and breaks: the model's hook passes that
    /// on and the run stops, the file ending with the last whole record.
    fn record(&mut self, value: &serde_json::Value) -> ControlFlow<()> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, value).expect("a JSON value serializes");
        self.line.push(b'\n');
        if self.written + self.line.len() as u64 > self.limit {
            self.full = true;
            return ControlFlow::Break(());
        }
        if let Err(e) = self.out.write_all(&self.line) {
            self.error = Some(e);
            return ControlFlow::Break(());
        }
        self.written += self.line.len() as u64;
        self.records += 1;
        ControlFlow::Continue(())
    }

    /// Finishes the file (renamed into place), then reports a failed write
    /// or the limit.
    fn finish(self) -> Result<(), CliError> {
        if let Some(e) = self.error {
            // Dropping the output removes its temporary file.
            return Err(self.out.error(e));
        }
        let label = self.out.label().to_string();
        self.out.finish()?;
        if self.full {
            return Err(CliError::from(format!(
                "{label}: the trace reached --trace-limit ({} bytes): the run was stopped after {} records, which the file holds; raise --trace-limit to trace further",
                self.limit, self.records
            )));
        }
        Ok(())
    }
}

/// Writes the per-issue trace of the functional model.
struct TraceWriter {
    out: TraceOut,
    lanes: usize,
}

impl Observer for TraceWriter {
    fn issue(&mut self, i: &Issue) -> ControlFlow<()> {
        self.out.record(&json!({
            "issue": i.index,
            "block": i.block,
            "warp": i.warp,
            "pc": i.pc,
            "mask": LaneMask::new(i.active, self.lanes).to_string(),
            "exec": LaneMask::new(i.executing, self.lanes).to_string(),
        }))
    }
}

/// The `--vcd` waveform: Verilator writes it, by name, to the output's
/// temporary file (or, for a device, FIFO or standard output, to a scratch
/// file copied there at the end); its size is watched every
/// [`VCD_POLL_CYCLES`] cycles and the run stopped past the limit.
struct Vcd {
    out: Output,
    scratch: Option<(tempfile::NamedTempFile, Pending)>,
    limit: u64,
    /// The cycle at which the file was seen past the limit.
    full_at: Option<u64>,
}

impl Vcd {
    fn new(out: Output, limit: u64) -> Result<Vcd, CliError> {
        let scratch = match out.temp_path() {
            Some(_) => None,
            None => Some(
                output::scratch_file()
                    .map_err(|e| format!("a scratch file for the waveform: {e}"))?,
            ),
        };
        Ok(Vcd {
            out,
            scratch,
            limit,
            full_at: None,
        })
    }

    /// The file Verilator writes.
    fn path(&self) -> &Path {
        match &self.scratch {
            Some((file, _)) => file.path(),
            None => self
                .out
                .temp_path()
                .expect("a regular file has a temporary"),
        }
    }

    /// Breaks (the run stops after this cycle) once the file is past the
    /// limit.
    fn watch(&mut self, cycle: u64) -> ControlFlow<()> {
        if cycle % VCD_POLL_CYCLES == 0 && self.size() > self.limit {
            self.full_at = Some(cycle);
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    fn size(&self) -> u64 {
        fs::metadata(self.path()).map_or(0, |m| m.len())
    }

    /// After Verilator closed the file: cuts it at the last time step that
    /// fits the limit, puts it in place, and reports the limit.
    fn finish(mut self) -> Result<(), CliError> {
        let label = self.out.label().to_string();
        let err = |e: io::Error| CliError::from(format!("{label}: {e}"));
        let full = self.full_at.is_some() || self.size() > self.limit;
        if full {
            let keep = vcd_cut(self.path(), self.limit).map_err(err)?;
            fs::OpenOptions::new()
                .write(true)
                .open(self.path())
                .and_then(|f| f.set_len(keep))
                .map_err(err)?;
        }
        if let Some((scratch, _pending)) = self.scratch.take() {
            let mut file = scratch.reopen().map_err(err)?;
            io::copy(&mut file, &mut self.out).map_err(|e| self.out.error(e))?;
        }
        self.out.finish()?;
        if full {
            return Err(CliError::from(match self.full_at {
                Some(cycle) => format!(
                    "{label}: the waveform reached --vcd-limit ({} bytes) by cycle {cycle}: the run was stopped there; the file holds the whole time steps that fit; raise --vcd-limit to record further",
                    self.limit
                ),
                None => format!(
                    "{label}: the waveform passed --vcd-limit ({} bytes) in its last cycles: the file holds the whole time steps that fit; raise --vcd-limit to record further",
                    self.limit
                ),
            }));
        }
        Ok(())
    }
}

/// The length of the longest prefix of the VCD at `path` that is at most
/// `limit` bytes and ends before a time step (`#<time>` at a line start):
/// the header and whole time steps only.
fn vcd_cut(path: &Path, limit: u64) -> io::Result<u64> {
    const CHUNK: u64 = 1 << 16;
    let mut file = File::open(path)?;
    let len = file.metadata()?.len();
    // A `#` at offset `limit` still allows keeping `limit` bytes.
    let mut hi = len.min(limit.saturating_add(1));
    let mut buf = Vec::new();
    while hi > 0 {
        // One byte before the chunk, to see whether a `#` starts a line.
        let lo = hi.saturating_sub(CHUNK);
        let from = lo.saturating_sub(1);
        buf.resize((hi - from) as usize, 0);
        file.seek(SeekFrom::Start(from))?;
        file.read_exact(&mut buf)?;
        for at in (lo..hi).rev() {
            let i = (at - from) as usize;
            if buf[i] == b'#' && (at == 0 || buf[i - 1] == b'\n') {
                return Ok(at);
            }
        }
        hi = lo;
    }
    Ok(0)
}

/// Statistics of a run, whichever model produced them.
pub enum RunStats {
    Functional(Stats),
    Timed {
        counters: Counters,
        lanes: u32,
        lockstep: bool,
    },
    Pipeline {
        counters: concord_testbench::pipeline::V2Counters,
        lanes: u32,
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
            RunStats::Pipeline { counters, lanes } => {
                let mut v = serde_json::Map::new();
                for (name, value) in counters.named() {
                    v.insert(name.to_string(), json!(value));
                }
                v.insert("lanes".to_string(), json!(lanes));
                v.insert("ipc".to_string(), json!(counters.ipc()));
                serde_json::Value::Object(v)
            }
        }
    }
}

/// The outputs a run writes, opened before the run.
struct RunOutputs {
    trace: Option<TraceOut>,
    vcd: Option<Vcd>,
}

pub fn run(args: RunArgs) -> Result<(), CliError> {
    if args.model != Model::Rtl && (args.vcd.is_some() || args.no_lockstep) {
        return Err(CliError::usage("--vcd and --no-lockstep need --model rtl"));
    }
    if matches!(args.model, Model::Pipeline | Model::Rtl2) && args.trace.is_some() {
        return Err(CliError::usage(
            "--trace needs --model functional, cycle or rtl (the pipeline model has no trace port yet)",
        ));
    }
    // The outputs first: a path that cannot be written fails before any
    // work (a Verilator build takes a minute).
    let trace = args.trace.as_deref().map(Output::open).transpose()?;
    let vcd = args.vcd.as_deref().map(Output::open).transpose()?;
    let desc = LaunchDescription::load(&args.launch).map_err(|e| e.to_string())?;
    let config_path = args.config.clone().or_else(|| desc.config.clone());
    let mut inputs = vec![
        ("the launch description", args.launch.as_path()),
        ("the launch's program", desc.program.as_path()),
    ];
    if let Some(c) = &config_path {
        inputs.push(("the config", c.as_path()));
    }
    let outputs: Vec<(&str, &Output)> = trace
        .iter()
        .map(|t| ("--trace", t))
        .chain(vcd.iter().map(|v| ("--vcd", v)))
        .collect();
    output::check_distinct(&outputs, &inputs)?;
    crate::compile::check_flags_apply(&desc, &args.compile)?;
    let config = match &config_path {
        Some(p) => CoreConfig::load(p).map_err(|e| e.to_string())?,
        None => CoreConfig::default(),
    };
    if args.model != Model::Functional {
        // The timed models build only what the hardware can: one rule set
        // for the cycle model and the RTL (`concord_uarch::HwParams`).
        crate::hw::check_buildable(&config, config_path.as_deref())?;
    }
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
    let outputs = RunOutputs {
        trace: trace.map(|t| TraceOut::new(t, args.trace_limit)),
        vcd: vcd.map(|v| Vcd::new(v, args.vcd_limit)).transpose()?,
    };
    let (global, stats) = match args.model {
        Model::Functional => run_functional(&config, &launch, &prepared, outputs)?,
        Model::Cycle | Model::Rtl => run_timed(&args, &config, &launch, &prepared, outputs)?,
        Model::Pipeline => run_pipeline(&config, &kernel, launch, &prepared)?,
        Model::Rtl2 => run_rtl2(&config, config_path.as_deref(), &kernel, launch, &prepared)?,
    };
    report(&args, &desc, &config, &prepared, &global, &stats)
}

/// The Core v2 pipeline model: the launch loaded from its occupancy (the
/// host slave of §14 is not modelled), run to `DONE` or a trap.
fn run_pipeline(
    config: &CoreConfig,
    kernel: &concord_isa::container::Kernel,
    launch: func::Launch<'_>,
    prepared: &PreparedLaunch,
) -> Result<(Vec<u8>, RunStats), CliError> {
    use concord_testbench::pipeline;
    let mut global = prepared.global.clone();
    let launch = pipeline::PipelineLaunch {
        launch,
        shared_bytes: kernel.shared_bytes,
        regs_used: kernel.regs_used,
    };
    let outcome = pipeline::run(
        config,
        &launch,
        &mut global,
        pipeline::PipelineOptions {
            watchdog: prepared.watchdog,
            check_bus: true,
            gen: concord_uarch::GenOptions::sim(),
        },
    )?;
    outcome.result?;
    Ok((
        global,
        RunStats::Pipeline {
            counters: outcome.counters,
            lanes: config.lanes,
        },
    ))
}

/// The Core v2 RTL in lock-step with the pipeline model
/// (`concord_testbench::lockstep`): the launch loaded by host writes, run
/// to `DONE` or a trap, every cycle compared.
fn run_rtl2(
    config: &CoreConfig,
    config_path: Option<&std::path::Path>,
    kernel: &concord_isa::container::Kernel,
    launch: func::Launch<'_>,
    prepared: &PreparedLaunch,
) -> Result<(Vec<u8>, RunStats), CliError> {
    use concord_testbench::{lockstep, pipeline, verilator};
    let gen = concord_uarch::GenOptions::sim();
    let verilog =
        concord_hdl::v2::core::core_verilog(config, &gen).map_err(|e| match config_path {
            Some(p) => format!("{}: {e}", p.display()),
            None => e.to_string(),
        })?;
    let mut rtl = verilator::RtlV2::build(
        &verilog,
        config,
        &gen,
        &verilator::BuildOptions {
            label: Some(format!("v2 {}", crate::rtl::label(config))),
            ..verilator::BuildOptions::default()
        },
    )?;
    let launch = pipeline::PipelineLaunch {
        launch,
        shared_bytes: kernel.shared_bytes,
        regs_used: kernel.regs_used,
    };
    let outcome = lockstep::run(
        config,
        &launch,
        &prepared.global,
        &mut rtl,
        pipeline::PipelineOptions {
            watchdog: prepared.watchdog,
            check_bus: true,
            gen,
        },
    )?;
    outcome.outcome.result?;
    Ok((
        outcome.global,
        RunStats::Pipeline {
            counters: outcome.outcome.counters,
            lanes: config.lanes,
        },
    ))
}

fn run_functional(
    config: &CoreConfig,
    launch: &func::Launch<'_>,
    prepared: &PreparedLaunch,
    outputs: RunOutputs,
) -> Result<(Vec<u8>, RunStats), CliError> {
    let mut global = prepared.global.clone();
    let options = Options {
        watchdog: prepared.watchdog,
    };
    let mut tracer = outputs.trace.map(|out| TraceWriter {
        out,
        lanes: config.lanes as usize,
    });
    let result = func::run(
        config,
        launch,
        &mut global,
        options,
        tracer.as_mut().map(|t| t as &mut dyn Observer),
    );
    // The trace is kept whatever the run ended with: up to a trap, it
    // shows how the kernel got there. Only the trace stops a run, and its
    // `finish` reports why first.
    if let Some(t) = tracer {
        t.out.finish()?;
    }
    let stats = result?;
    Ok((global, RunStats::Functional(stats)))
}

/// The timed models: the cycle model alone, the RTL alone, or both in lock-step.
fn run_timed(
    args: &RunArgs,
    config: &CoreConfig,
    launch: &func::Launch<'_>,
    prepared: &PreparedLaunch,
    outputs: RunOutputs,
) -> Result<(Vec<u8>, RunStats), CliError> {
    let RunOutputs { mut trace, mut vcd } = outputs;
    let hooked = trace.is_some() || vcd.is_some();
    let vcd_path = vcd.as_ref().map(|v| v.path().to_path_buf());
    let vcd_label = vcd.as_ref().map(|v| v.out.label().to_string());
    let mut on_cycle = |cycle: u64, t: &TracePort| {
        if let Some(out) = trace.as_mut() {
            let mut v = serde_json::to_value(t).expect("trace serializes");
            v["cycle"] = json!(cycle);
            v["mask"] = json!(LaneMask::new(t.active, config.lanes as usize).to_string());
            out.record(&v)?;
        }
        if let Some(vcd) = vcd.as_mut() {
            vcd.watch(cycle)?;
        }
        ControlFlow::Continue(())
    };
    let hook: Option<concord_testbench::cosim::OnCycle<'_>> =
        if hooked { Some(&mut on_cycle) } else { None };
    let watchdog = prepared.watchdog;
    let lockstep = args.model == Model::Rtl && !args.no_lockstep;
    let result: Result<(Vec<u8>, Counters), CliError> = match args.model {
        Model::Cycle => {
            let mut global = prepared.global.clone();
            concord_testbench::cycle::run(config, launch, &mut global, watchdog, hook)
                .map(|c| (global, c))
                .map_err(CliError::from)
        }
        _ => {
            let mut rtl = crate::rtl::build(config, vcd_path.is_some())?;
            if let (Some(path), Some(label)) = (&vcd_path, &vcd_label) {
                rtl.open_vcd(path).map_err(|e| match e {
                    // The harness names the temporary file, not the user's.
                    concord_testbench::verilator::HarnessError::Vcd(_) => {
                        CliError::from(format!("{label}: cannot open it for the waveform"))
                    }
                    other => CliError::from(other),
                })?;
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
                .map_err(CliError::from)
                .and_then(|o| {
                    o.result?;
                    Ok((o.global, o.counters))
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
                .map_err(CliError::from)
            };
            if vcd_path.is_some() {
                rtl.close_vcd();
            }
            r
        }
    };
    // Both outputs are kept whatever the run ended with, and their own
    // failures come first: only they stop a run.
    let trace_done = trace.map_or(Ok(()), TraceOut::finish);
    let vcd_done = vcd.map_or(Ok(()), Vcd::finish);
    trace_done?;
    vcd_done?;
    let (global, counters) = result?;
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
) -> Result<(), CliError> {
    let mut outputs = prepared.read_outputs(global);
    if args.json {
        return json_report(args.model, &mut outputs, stats);
    }
    let model = match stats {
        RunStats::Timed { lockstep: true, .. } => {
            "RTL in lock-step with the cycle model".to_string()
        }
        _ => args.model.name().to_string(),
    };
    outln!(
        "{} on the {model}: {} lanes x {} warps, {} arbitration; grid {:?}, block {:?}",
        desc.program.display(),
        config.lanes,
        config.warps,
        config.arbitration.name(),
        prepared.grid,
        prepared.block
    )?;
    for (name, elem, values) in &outputs {
        const SHOWN: usize = 16;
        let head: Vec<String> = values.iter().take(SHOWN).map(|v| v.to_string()).collect();
        let more = if values.len() > SHOWN {
            format!(", ... ({} values)", values.len())
        } else {
            String::new()
        };
        outln!(
            "  {name}: {}[{}] = [{}{}]",
            elem.name(),
            values.len(),
            head.join(", "),
            more
        )?;
    }
    match stats {
        RunStats::Functional(stats) => {
            outln!(
                "  issued {} warp-instructions, {} active lane-slots, SIMD efficiency {:.1}%",
                stats.issued,
                stats.active_lane_slots,
                100.0 * stats.simd_efficiency()
            )?;
            outln!(
                "  divergent branches {}, consensual branches taken {} / not taken {}, barriers {}",
                stats.divergent_branches,
                stats.consensual_taken,
                stats.consensual_not_taken,
                stats.barriers
            )?;
        }
        RunStats::Pipeline { counters: c, lanes } => {
            use concord_testbench::pipeline::V2Counter as K;
            let active = c.get(K::ActiveLaneSlots);
            let issued = c.get(K::Issued);
            outln!(
                "  {} cycles, issued {} ({} replays), {} active lane-slots, SIMD efficiency {:.1}%, IPC {:.3}",
                c.get(K::Cycles),
                issued,
                c.get(K::Replays),
                active,
                100.0 * active as f64 / (issued.max(1) * *lanes as u64) as f64,
                c.ipc()
            )?;
            outln!(
                "  global requests {}, beats {}, return slots {}, init slots {}, barriers {}, re-arbitrations {} (waiting {} cycles), blocks {}",
                c.get(K::GlobalRequests),
                c.get(K::GlobalBeats),
                c.get(K::ReturnSlots),
                c.get(K::InitSlots),
                c.get(K::Barriers),
                c.get(K::Rearbs),
                c.get(K::RearbWaitCycles),
                c.get(K::Blocks)
            )?;
        }
        RunStats::Timed {
            counters: c, lanes, ..
        } => {
            outln!(
                "  {} cycles, issued {} ({} replays), {} active lane-slots, SIMD efficiency {:.1}%, IPC {:.3}",
                c.cycles,
                c.issued,
                c.replays,
                c.active_lane_slots,
                100.0 * c.simd_efficiency(*lanes),
                c.issued as f64 / c.cycles.max(1) as f64
            )?;
            outln!(
                "  divergent branches {}, consensual branches taken {} / not taken {}, barriers {}",
                c.divergent_branches,
                c.consensual_taken,
                c.consensual_not_taken,
                c.barriers
            )?;
        }
    }
    Ok(())
}

/// `--json`: one object `{"model", "outputs", "stats"}`, written value by
/// value instead of built in memory (an output buffer may hold millions of
/// values). Output names in sorted order, each once, as a JSON map has them.
fn json_report(
    model: Model,
    outputs: &mut Vec<(String, concord_isa::launch::ElemType, Vec<i64>)>,
    stats: &RunStats,
) -> Result<(), CliError> {
    outputs.sort_by(|a, b| a.0.cmp(&b.0));
    outputs.dedup_by(|a, b| a.0 == b.0);
    let model_key = match model {
        Model::Functional => "functional",
        Model::Cycle => "cycle",
        Model::Rtl => "rtl",
        Model::Pipeline => "pipeline",
        Model::Rtl2 => "rtl2",
    };
    let mut out = io::BufWriter::new(io::stdout().lock());
    let mut write = || -> io::Result<()> {
        write!(out, "{{\"model\":\"{model_key}\",\"outputs\":{{")?;
        for (i, (name, _, values)) in outputs.iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            serde_json::to_writer(&mut out, name)?;
            out.write_all(b":[")?;
            for (j, v) in values.iter().enumerate() {
                if j > 0 {
                    out.write_all(b",")?;
                }
                write!(out, "{v}")?;
            }
            out.write_all(b"]")?;
        }
        out.write_all(b"},\"stats\":")?;
        serde_json::to_writer(&mut out, &stats.to_json())?;
        out.write_all(b"}\n")?;
        out.flush()
    };
    write().map_err(|e| output::write_error("standard output", e))
}
