//! `concord run`: a launch description on the functional model, the cycle
//! model of the core (`concord_testbench::pipeline`), or the core's RTL
//! (through Verilator, in lock-step with the cycle model by default).
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
use concord_testbench::lockstep;
use concord_testbench::pipeline::{CycleObserver, Pipeline};
use concord_uarch::trace::TraceRecord;
use concord_uarch::wishbone::Signals;

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
    /// Write a JSON Lines trace to this file: on the functional model one
    /// object per issue (warp, pc, mask, ...); on the cycle model and the
    /// RTL one per cycle, the trace record of docs/microarchitecture.md
    /// §15.2 (`tr_<field>`, wide fields per 32-bit word).
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
    /// Write one JSON object per cycle (the trace record, §15.2) to this file.
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
    #[value(alias = "func")]
    Functional,
    /// The cycle model of the core (docs/microarchitecture.md): 8 stages,
    /// several warps in flight, non-blocking global memory.
    #[value(alias = "pipeline")]
    Cycle,
    /// The core's RTL under Verilator, in lock-step with the cycle model
    /// (every cycle's ports and trace record compared, §15.4) unless
    /// --no-lockstep.
    #[value(alias = "rtl2")]
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
    /// The cycle model or the RTL: the counters of §15.1.
    Timed {
        counters: concord_testbench::pipeline::Counters,
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
            RunStats::Timed { counters, lanes } => {
                let mut v = serde_json::Map::new();
                for (name, value) in counters.named() {
                    v.insert(name.to_string(), json!(value));
                }
                v.insert("lanes".to_string(), json!(lanes));
                v.insert("ipc".to_string(), json!(counters.ipc()));
                v.insert(
                    "simd_efficiency".to_string(),
                    json!(simd_efficiency(counters, *lanes)),
                );
                serde_json::Value::Object(v)
            }
        }
    }
}

/// Active lane-slots over issued warp-instructions times lanes.
fn simd_efficiency(c: &concord_testbench::pipeline::Counters, lanes: u32) -> f64 {
    use concord_testbench::pipeline::Counter as K;
    c.get(K::ActiveLaneSlots) as f64 / (c.get(K::Issued).max(1) * u64::from(lanes)) as f64
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
        // The cycle model and the RTL build only what the hardware can:
        // one rule set (`concord_uarch::HwParams`).
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
        Model::Cycle | Model::Rtl => run_timed(
            &args,
            &config,
            config_path.as_deref(),
            &kernel,
            launch,
            &prepared,
            outputs,
        )?,
    };
    report(&args, &desc, &config, &prepared, &global, &stats)
}

/// Watches the pipeline model alone cycle by cycle for `--trace`.
struct ModelHook<'h, 'a> {
    hook: &'h mut lockstep::OnCycle<'a>,
    cycle: u64,
}

impl CycleObserver for ModelHook<'_, '_> {
    fn cycle(&mut self, core: &Pipeline, _: &Signals, _: &Signals) -> Result<(), String> {
        let r = (self.hook)(self.cycle, core.trace());
        self.cycle += 1;
        r
    }
    fn end(&mut self, _: &mut Pipeline) -> Result<(), String> {
        Ok(())
    }
}

/// What a per-cycle hook's error says when one of the outputs stopped the
/// run (the output's own `finish` then explains why).
const STOPPED_BY_OUTPUT: &str = "stopped by an output";

/// The timed models (docs/microarchitecture.md): the cycle model alone,
/// the RTL alone, or the RTL in lock-step with the cycle model
/// (`concord_testbench::lockstep`: both load the launch by host writes,
/// every cycle's ports and trace record are compared, and the registers
/// read back at the end). The final memory is the model's (in lock-step,
/// equal to the RTL's by then).
fn run_timed(
    args: &RunArgs,
    config: &CoreConfig,
    config_path: Option<&Path>,
    kernel: &concord_isa::container::Kernel,
    launch: func::Launch<'_>,
    prepared: &PreparedLaunch,
    outputs: RunOutputs,
) -> Result<(Vec<u8>, RunStats), CliError> {
    use concord_testbench::{pipeline, verilator};
    let RunOutputs { mut trace, mut vcd } = outputs;
    let gen = concord_uarch::GenOptions::sim();
    let hw = concord_uarch::HwParams::new(config).map_err(|e| e.to_string())?;
    let launch = pipeline::PipelineLaunch {
        launch,
        shared_bytes: kernel.shared_bytes,
        regs_used: kernel.regs_used,
    };
    let options = pipeline::PipelineOptions {
        watchdog: prepared.watchdog,
        check_bus: true,
        gen,
    };
    let vcd_path = vcd.as_ref().map(|v| v.path().to_path_buf());
    let vcd_label = vcd.as_ref().map(|v| v.out.label().to_string());
    let hooked = trace.is_some() || vcd.is_some();
    let mut on_cycle = |cycle: u64, record: Option<&TraceRecord>| -> Result<(), String> {
        let stop = || STOPPED_BY_OUTPUT.to_string();
        if let (Some(out), Some(record)) = (trace.as_mut(), record) {
            let mut v = serde_json::Map::new();
            v.insert("cycle".into(), json!(cycle));
            for (name, value) in lockstep::trace_words(&hw, record) {
                v.insert(name, json!(value));
            }
            if out.record(&serde_json::Value::Object(v)).is_break() {
                return Err(stop());
            }
        }
        if let Some(vcd) = vcd.as_mut() {
            if vcd.watch(cycle).is_break() {
                return Err(stop());
            }
        }
        Ok(())
    };
    let mut hook: Option<lockstep::OnCycle<'_>> = if hooked { Some(&mut on_cycle) } else { None };
    let result: Result<(Vec<u8>, pipeline::Counters), CliError> = if args.model == Model::Cycle {
        let mut global = prepared.global.clone();
        let outcome = match hook.as_mut() {
            Some(h) => pipeline::run_observed(
                config,
                &launch,
                &mut global,
                options,
                &mut ModelHook { hook: h, cycle: 0 },
            ),
            None => pipeline::run(config, &launch, &mut global, options),
        };
        outcome
            .map_err(CliError::from)
            .and_then(|o| {
                o.result?;
                Ok(o.counters)
            })
            .map(|c| (global, c))
    } else {
        let mut rtl = crate::rtl::build(config, config_path, vcd_path.is_some())?;
        if let (Some(path), Some(label)) = (&vcd_path, &vcd_label) {
            rtl.open_vcd(path).map_err(|e| match e {
                // The harness names the temporary file, not the user's.
                verilator::HarnessError::Vcd(_) => {
                    CliError::from(format!("{label}: cannot open it for the waveform"))
                }
                other => CliError::from(other),
            })?;
        }
        let r = if args.no_lockstep {
            let mut global = prepared.global.clone();
            // The watchdog (§13.4) is the cycle model's: alone, the RTL
            // stops at a bound in cycles. An issue takes at most a global
            // round trip and the pipeline's depth, so a launch within its
            // watchdog ends within this bound.
            let per_issue = u64::from(config.global_latency) + 16;
            let bound = prepared.watchdog.saturating_mul(per_issue);
            verilator::v2_run::run_hooked(&mut rtl, config, &launch, &mut global, bound, hook)
                .map_err(|e| {
                    CliError::from(format!(
                        "the RTL alone: {e} (without lock-step there is no watchdog diagnosis: the bound is the launch's watchdog x (global_latency + 16) cycles; run without --no-lockstep for the watchdog's report)"
                    ))
                })
                .and_then(|o| match o.trap_cause {
                    Some(code) => Err(rtl_trap(code)),
                    None => Ok((global, o.counters)),
                })
        } else {
            let outcome = match hook {
                Some(h) => {
                    lockstep::run_hooked(config, &launch, &prepared.global, &mut rtl, options, h)
                }
                None => lockstep::run(config, &launch, &prepared.global, &mut rtl, options),
            };
            outcome.map_err(CliError::from).and_then(|o| {
                o.outcome.result?;
                Ok((o.global, o.outcome.counters))
            })
        };
        if vcd_path.is_some() {
            rtl.close_vcd();
        }
        r
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
        },
    ))
}

/// The RTL run alone trapped: its cause register (§13.1) is all it reports
/// through the host port without the model beside it.
fn rtl_trap(code: u32) -> CliError {
    let name = concord_uarch::TrapCode::from_code(code)
        .map(|c| c.name().to_string())
        .unwrap_or_else(|| "no defined cause".to_string());
    CliError::trap(format!(
        "the RTL trapped: TRAP_CAUSE {code} ({name}); run with lock-step (without --no-lockstep) for the whole trap report"
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
    let model = match args.model {
        Model::Rtl if !args.no_lockstep => "RTL in lock-step with the cycle model",
        m => m.name(),
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
        RunStats::Timed { counters: c, lanes } => {
            use concord_testbench::pipeline::Counter as K;
            outln!(
                "  {} cycles, issued {} ({} replays), {} active lane-slots, SIMD efficiency {:.1}%, IPC {:.3}",
                c.get(K::Cycles),
                c.get(K::Issued),
                c.get(K::Replays),
                c.get(K::ActiveLaneSlots),
                100.0 * simd_efficiency(c, *lanes),
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
