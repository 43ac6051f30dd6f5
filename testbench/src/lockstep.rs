//! Lock-step co-simulation of Core v2 (docs/microarchitecture.md §15.4,
//! §20): the RTL under Verilator ([`RtlV2`]) and the cycle model
//! ([`crate::pipeline`]) run one launch from the same host script, and
//! every cycle both ports' records, the status pins and the trace record
//! are compared bit for bit.
//!
//! The model drives: [`pipeline::run_observed`] loads the launch by host
//! writes (`regmap::launch_writes`, `CTRL.START`), runs it to its end with
//! its watchdog and its hang detector (§13.5, which reports every warp's
//! state), and calls this module after every cycle with the host inputs it
//! drove. The RTL gets the same inputs, its global-memory port answered by
//! a testbench memory of its own ([`WishboneMemory`], same image). The
//! §20 protocol checkers watch the RTL's two ports. When the run ends, every
//! readable register (`regmap::REGISTERS`: status, trap report, counters,
//! debug registers) is read back through both host ports, still in
//! lock-step, and the two global memories are compared.
//!
//! A difference is reported at its cycle with the differing fields side by
//! side and the (identical) records of the cycles before.

use std::collections::VecDeque;
use std::fmt;

use concord_isa::config::CoreConfig;
use concord_uarch::regmap;
use concord_uarch::trace::{fields, TraceRecord};
use concord_uarch::wishbone::{Checker, Signals};
use concord_uarch::HwParams;

use crate::pipeline::{
    self, host_read, CycleObserver, Outcome, Pipeline, PipelineLaunch, PipelineOptions,
    WishboneMemory,
};
use crate::verilator::{Pins, RtlV2, V2Cycle};

/// Cycles before a failure that the report shows.
pub const CONTEXT: usize = 6;

/// One differing field: its name and both values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDiff {
    pub field: String,
    pub model: String,
    pub rtl: String,
}

/// The first cycle on which RTL and model differ.
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub cycle: u64,
    pub diffs: Vec<FieldDiff>,
    pub model: V2Cycle,
    pub rtl: V2Cycle,
    /// Both records of the cycle, summarised (model, RTL).
    pub summaries: (String, String),
    /// The cycles before, identical on both sides, summarised.
    pub before: Vec<(u64, String)>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "RTL and cycle model differ at cycle {}:", self.cycle)?;
        write_diffs(f, &self.diffs)?;
        writeln!(f, "  cycle model: {}", self.summaries.0)?;
        writeln!(f, "  RTL:         {}", self.summaries.1)?;
        write_before(f, &self.before)
    }
}

fn write_diffs(f: &mut fmt::Formatter<'_>, diffs: &[FieldDiff]) -> fmt::Result {
    let w = diffs
        .iter()
        .map(|d| d.field.len())
        .max()
        .unwrap_or(0)
        .max(16);
    writeln!(f, "  {:<w$} {:<24} {:<24}", "field", "cycle model", "RTL")?;
    for d in diffs {
        writeln!(f, "  {:<w$} {:<24} {:<24}", d.field, d.model, d.rtl)?;
    }
    Ok(())
}

fn write_before(f: &mut fmt::Formatter<'_>, before: &[(u64, String)]) -> fmt::Result {
    if !before.is_empty() {
        writeln!(f, "  the cycles before (identical on both sides):")?;
        for (c, s) in before {
            writeln!(f, "    {c}: {s}")?;
        }
    }
    Ok(())
}

/// A Wishbone rule (§20) broken on one of the RTL's ports.
#[derive(Clone, Debug)]
pub struct ProtocolFailure {
    pub cycle: u64,
    /// The checker's reports (port, rule, signals).
    pub violations: Vec<String>,
    /// Where the RTL's records of the cycle differ from the model's.
    pub diffs: Vec<FieldDiff>,
    pub before: Vec<(u64, String)>,
}

impl fmt::Display for ProtocolFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "the RTL breaks the Wishbone protocol at cycle {}:",
            self.cycle
        )?;
        for v in &self.violations {
            writeln!(f, "  {v}")?;
        }
        if !self.diffs.is_empty() {
            writeln!(f, "  and differs from the cycle model:")?;
            write_diffs(f, &self.diffs)?;
        }
        write_before(f, &self.before)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LockstepError {
    #[error("{0}")]
    Mismatch(Box<Mismatch>),
    #[error("{0}")]
    Protocol(Box<ProtocolFailure>),
    /// The runs agreed cycle by cycle, but not at the end.
    #[error("final state differs: {0}")]
    Final(String),
    /// The model's run failed on its own (a refused launch, a pipeline
    /// deadlock with every warp's state, a protocol violation of the
    /// model), with the RTL equal to it up to there.
    #[error("cycle model (the RTL agreed up to here): {0}")]
    Model(String),
    #[error("{0}")]
    Setup(String),
    /// The caller's per-cycle hook ([`OnCycle`]) stopped the run.
    #[error("{0}")]
    Stopped(String),
}

/// Called after every cycle of a run that both sides agreed on (host
/// loading and register read-back included) with the cycle's number,
/// from 0, and its trace record (`None` without the trace port): where
/// `concord run` writes its `--trace` file and watches its `--vcd` file.
/// An error stops the run with it.
pub type OnCycle<'a> = &'a mut dyn FnMut(u64, Option<&TraceRecord>) -> Result<(), String>;

/// How a lock-step run ended (the same on both sides).
#[derive(Clone, Debug)]
pub struct LockstepOutcome {
    /// The model's outcome (counters, trap, last block).
    pub outcome: Outcome,
    /// Final global memory.
    pub global: Vec<u8>,
    /// Cycles run in lock-step, register read-back included.
    pub cycles: u64,
}

/// Marks an observer error whose cause is kept in [`Observer::failure`].
const FAILED: &str = "lock-step failure";

struct Observer<'a> {
    rtl: &'a mut RtlV2,
    memory: WishboneMemory,
    hw: HwParams,
    host_checker: Checker,
    gm_checker: Checker,
    cycle: u64,
    /// The last [`CONTEXT`] cycles' records (identical on both sides),
    /// summarised only when a failure is reported.
    before: VecDeque<(u64, V2Cycle)>,
    failure: Option<LockstepError>,
    config: CoreConfig,
    debug_regs: bool,
    /// The host port's inputs of the previous cycle (the request whose
    /// answer this cycle shows).
    last_host: Signals,
    /// Field-name prefixes left out of the comparison ([`run_ignoring`]).
    ignored: Vec<String>,
    hook: Option<OnCycle<'a>>,
}

impl<'a> Observer<'a> {
    fn new(
        rtl: &'a mut RtlV2,
        config: &CoreConfig,
        hw: &HwParams,
        debug_regs: bool,
        global: &[u8],
    ) -> Observer<'a> {
        let max = (hw.global_outstanding * hw.global_beats) as u32;
        Observer {
            memory: WishboneMemory::new(global.to_vec(), hw),
            rtl,
            host_checker: Checker::host_slave("wbs"),
            gm_checker: Checker::master("gm", max),
            cycle: 0,
            before: VecDeque::with_capacity(CONTEXT),
            failure: None,
            config: config.clone(),
            debug_regs,
            hw: hw.clone(),
            last_host: Signals::idle(),
            ignored: Vec::new(),
            hook: None,
        }
    }

    fn before(&self) -> Vec<(u64, String)> {
        self.before
            .iter()
            .map(|(c, r)| (*c, summary(&self.hw, r)))
            .collect()
    }

    fn fail(&mut self, e: LockstepError) -> Result<(), String> {
        self.failure = Some(e);
        Err(FAILED.into())
    }
}

impl CycleObserver for Observer<'_> {
    fn cycle(&mut self, core: &Pipeline, host: &Signals, port: &Signals) -> Result<(), String> {
        let rtl = self.rtl.cycle(host, &mut self.memory);
        let status = core.status();
        let model = V2Cycle {
            host: *port,
            gm: *core.gm_port(),
            trace: core.trace().cloned(),
            pins: Pins {
                running: status.running,
                done: status.done,
                trapped: status.trapped,
                irq: status.done || status.trapped,
            },
        };
        let cycle = self.cycle;
        self.cycle += 1;
        let mut violations: Vec<String> = self
            .host_checker
            .step(&rtl.host)
            .iter()
            .map(|v| v.to_string())
            .collect();
        violations.extend(self.gm_checker.step(&rtl.gm).iter().map(|v| v.to_string()));
        let mut diffs = if model == rtl {
            Vec::new()
        } else {
            diff(&self.hw, &model, &rtl)
        };
        let ignored = &self.ignored;
        diffs.retain(|d| !ignored.iter().any(|p| d.field.starts_with(p.as_str())));
        // Name the register whose read this cycle answers.
        let asked = self.last_host;
        self.last_host = *host;
        if asked.cyc && asked.stb && !asked.we {
            let opts =
                regmap::MapOptions::new(&self.hw, self.config.max_resident_blocks, self.debug_regs);
            let name = match regmap::decode(asked.adr, &opts) {
                Some((reg, i)) if reg.words(&opts) > 1 => format!("{}[{i}]", reg.name),
                Some((reg, _)) => reg.name.to_string(),
                None => "unmapped".to_string(),
            };
            for d in diffs.iter_mut().filter(|d| d.field == "wbs.dat_r[0]") {
                d.field = format!("wbs.dat_r[0] (read of {name} at {:#x})", asked.adr);
            }
        }
        if !violations.is_empty() {
            let before = self.before();
            return self.fail(LockstepError::Protocol(Box::new(ProtocolFailure {
                cycle,
                violations,
                diffs,
                before,
            })));
        }
        if !diffs.is_empty() {
            let before = self.before();
            let summaries = (summary(&self.hw, &model), summary(&self.hw, &rtl));
            return self.fail(LockstepError::Mismatch(Box::new(Mismatch {
                cycle,
                diffs,
                model,
                rtl,
                summaries,
                before,
            })));
        }
        if let Some(hook) = self.hook.as_mut() {
            if let Err(e) = hook(cycle, model.trace.as_ref()) {
                return self.fail(LockstepError::Stopped(e));
            }
        }
        if self.before.len() == CONTEXT {
            self.before.pop_front();
        }
        self.before.push_back((cycle, model));
        Ok(())
    }

    fn end(&mut self, core: &mut Pipeline) -> Result<(), String> {
        let opts =
            regmap::MapOptions::new(&self.hw, self.config.max_resident_blocks, self.debug_regs);
        // §15.3: `DBG_LANE_PC` is defined only while halted or not running
        // (a run that ended at the watchdog is still running), and only
        // for a lane whose pc is stored (§14.4).
        let lane_pc_undefined = core.status().running || !core.dbg_lane_pc_stored();
        let mut addrs: Vec<u32> = regmap::REGISTERS
            .iter()
            .filter(|r| r.present(&opts) && r.access.readable())
            .filter(|r| !(lane_pc_undefined && r.addr == regmap::DBG_LANE_PC))
            .flat_map(|r| (0..r.words(&opts)).map(move |i| r.word_addr(i)))
            .collect();
        // By address, so each counter's high word is read right after the
        // low word that latches it.
        addrs.sort_unstable();
        for adr in addrs {
            let host = host_read(adr);
            let port = core.cycle(&host);
            self.cycle(core, &host, &port)?;
        }
        // The last read's `ACK`.
        let host = Signals {
            cyc: core.host_pending(),
            ..Signals::idle()
        };
        let port = core.cycle(&host);
        self.cycle(core, &host, &port)
    }
}

/// Runs the host script `script` (the host port's inputs, one per cycle)
/// on an idle cycle model and on `rtl` in lock-step, from reset, with
/// `global` as both testbench memories; then reads every register back as
/// [`run`] does. No watchdog and no hang detector: for short scripts that
/// exercise the host slave (register reads and writes, `START`, SETUP,
/// refusals). Returns the cycles run.
pub fn host_script(
    config: &CoreConfig,
    rtl: &mut RtlV2,
    gen: concord_uarch::GenOptions,
    script: &[Signals],
    global: &[u8],
) -> Result<u64, LockstepError> {
    host_script_with_bus_errors(config, rtl, gen, script, global, &[])
}

/// [`host_script`] with both testbench memories answering `ERR` to the
/// accepted beats numbered `errors` (0: the first beat accepted after
/// reset; `WishboneMemory::inject_err`).
pub fn host_script_with_bus_errors(
    config: &CoreConfig,
    rtl: &mut RtlV2,
    gen: concord_uarch::GenOptions,
    script: &[Signals],
    global: &[u8],
    errors: &[u64],
) -> Result<u64, LockstepError> {
    let hw = HwParams::new(config).map_err(|e| LockstepError::Setup(e.to_string()))?;
    if rtl.hw() != &hw || rtl.gen() != &gen {
        return Err(LockstepError::Setup(
            "the RTL model was built for another configuration or other generator options".into(),
        ));
    }
    let mut core = Pipeline::idle(config, gen).map_err(LockstepError::Setup)?;
    core.set_global(global.to_vec());
    rtl.reset();
    let mut observer = Observer::new(rtl, config, &hw, gen.debug_regs, global);
    for &n in errors {
        core.memory_mut().inject_err(n);
        observer.memory.inject_err(n);
    }
    let failed =
        |o: &mut Observer<'_>, e: String| o.failure.take().unwrap_or(LockstepError::Model(e));
    for host in script {
        let port = core.cycle(host);
        if let Err(e) = observer.cycle(&core, host, &port) {
            return Err(failed(&mut observer, e));
        }
    }
    if let Err(e) = observer.end(&mut core) {
        return Err(failed(&mut observer, e));
    }
    if let Some(v) = core.violations().first() {
        return Err(LockstepError::Model(v.clone()));
    }
    let model_global = std::mem::take(&mut core.memory_mut().bytes);
    if observer.memory.bytes != model_global {
        return Err(LockstepError::Final(first_byte_difference(
            &model_global,
            &observer.memory.bytes,
        )));
    }
    Ok(observer.cycle)
}

/// Runs `launch` on the cycle model and on `rtl` in lock-step (see the
/// module's documentation). `rtl` must be the core of `config` generated
/// with `options.gen`; it is reset first. `global` is the initial global
/// memory.
pub fn run(
    config: &CoreConfig,
    launch: &PipelineLaunch<'_>,
    global: &[u8],
    rtl: &mut RtlV2,
    options: PipelineOptions,
) -> Result<LockstepOutcome, LockstepError> {
    run_ignoring(config, launch, global, rtl, options, &[])
}

/// [`run`], with `hook` called after every cycle.
pub fn run_hooked<'a>(
    config: &CoreConfig,
    launch: &PipelineLaunch<'_>,
    global: &[u8],
    rtl: &'a mut RtlV2,
    options: PipelineOptions,
    hook: OnCycle<'a>,
) -> Result<LockstepOutcome, LockstepError> {
    run_with(config, launch, global, rtl, options, &[], Some(hook))
}

/// [`run`], leaving out of the per-cycle comparison every field whose
/// name (as a mismatch report prints it, e.g. `tr_rf_data`, `gm.adr`)
/// starts with one of `ignored`. A debugging aid for bringing up one part
/// of the RTL while another still differs; the final memory comparison
/// still applies. Never used by a tier that claims equality.
pub fn run_ignoring(
    config: &CoreConfig,
    launch: &PipelineLaunch<'_>,
    global: &[u8],
    rtl: &mut RtlV2,
    options: PipelineOptions,
    ignored: &[String],
) -> Result<LockstepOutcome, LockstepError> {
    run_with(config, launch, global, rtl, options, ignored, None)
}

fn run_with<'a>(
    config: &CoreConfig,
    launch: &PipelineLaunch<'_>,
    global: &[u8],
    rtl: &'a mut RtlV2,
    options: PipelineOptions,
    ignored: &[String],
    hook: Option<OnCycle<'a>>,
) -> Result<LockstepOutcome, LockstepError> {
    let hw = HwParams::new(config).map_err(|e| LockstepError::Setup(e.to_string()))?;
    if rtl.hw() != &hw || rtl.gen() != &options.gen {
        return Err(LockstepError::Setup(
            "the RTL model was built for another configuration or other generator options".into(),
        ));
    }
    rtl.reset();
    let mut observer = Observer::new(rtl, config, &hw, options.gen.debug_regs, global);
    observer.ignored = ignored.to_vec();
    observer.hook = hook;
    let mut model_global = global.to_vec();
    let result = pipeline::run_observed(config, launch, &mut model_global, options, &mut observer);
    let outcome = match result {
        Ok(o) => o,
        Err(e) => {
            return Err(match observer.failure.take() {
                Some(f) if e == FAILED => f,
                _ => LockstepError::Model(e),
            })
        }
    };
    if observer.memory.bytes != model_global {
        return Err(LockstepError::Final(first_byte_difference(
            &model_global,
            &observer.memory.bytes,
        )));
    }
    Ok(LockstepOutcome {
        outcome,
        global: model_global,
        cycles: observer.cycle,
    })
}

fn first_byte_difference(model: &[u8], rtl: &[u8]) -> String {
    match model.iter().zip(rtl).position(|(a, b)| a != b) {
        Some(i) => {
            let w = i & !3;
            let word = |m: &[u8]| {
                m.get(w..w + 4)
                    .map_or(0, |s| u32::from_le_bytes(s.try_into().expect("4 bytes")))
            };
            format!(
                "global memory: first difference at byte {i:#x}: word {w:#x} is {:#010x} in the cycle model, {:#010x} in the RTL",
                word(model),
                word(rtl)
            )
        }
        None => format!(
            "global memory: {} bytes in the cycle model, {} in the RTL",
            model.len(),
            rtl.len()
        ),
    }
}

/// Field `f` (`width` bits at `offset`) of a packed record, 32-bit word `j`.
fn field_word(bits: &[u64], offset: usize, width: usize, j: usize) -> u32 {
    let mut v = 0u32;
    for b in 0..32.min(width - 32 * j) {
        let at = offset + 32 * j + b;
        if bits[at / 64] >> (at % 64) & 1 == 1 {
            v |= 1 << b;
        }
    }
    v
}

/// Each trace field (wide ones per 32-bit word) as (name, value): the
/// names of §15.2 with `tr_` (`tr_rf_data[3]` for word 3 of a wide field).
pub fn trace_words(hw: &HwParams, r: &TraceRecord) -> Vec<(String, u32)> {
    let bits = r.pack(hw);
    let mut out = Vec::new();
    let mut offset = 0usize;
    for f in fields(hw) {
        let width = f.width as usize;
        let words = width.div_ceil(32);
        for j in 0..words {
            let name = if words > 1 {
                format!("tr_{}[{j}]", f.name)
            } else {
                format!("tr_{}", f.name)
            };
            out.push((name, field_word(&bits, offset, width, j)));
        }
        offset += width;
    }
    out
}

/// A port's fields as (name, value), data per 32-bit word of the bus.
fn signal_fields(port: &str, s: &Signals, bus_words: usize) -> Vec<(String, String)> {
    let mut v = vec![
        (format!("{port}.cyc"), (s.cyc as u8).to_string()),
        (format!("{port}.stb"), (s.stb as u8).to_string()),
        (format!("{port}.we"), (s.we as u8).to_string()),
        (format!("{port}.adr"), format!("{:#x}", s.adr)),
        (format!("{port}.sel"), format!("{:#x}", s.sel)),
        (format!("{port}.tga"), s.tga.to_string()),
        (format!("{port}.ack"), (s.ack as u8).to_string()),
        (format!("{port}.err"), (s.err as u8).to_string()),
        (format!("{port}.stall"), (s.stall as u8).to_string()),
    ];
    for i in 0..bus_words {
        v.push((
            format!("{port}.dat_w[{i}]"),
            format!("{:#010x}", s.dat_w[i]),
        ));
        v.push((
            format!("{port}.dat_r[{i}]"),
            format!("{:#010x}", s.dat_r[i]),
        ));
    }
    v
}

fn pin_fields(p: &Pins) -> Vec<(String, String)> {
    [
        ("running_o", p.running),
        ("done_o", p.done),
        ("trapped_o", p.trapped),
        ("irq_o", p.irq),
    ]
    .iter()
    .map(|(n, b)| (n.to_string(), (*b as u8).to_string()))
    .collect()
}

/// Every field in which `model` and `rtl` differ.
pub fn diff(hw: &HwParams, model: &V2Cycle, rtl: &V2Cycle) -> Vec<FieldDiff> {
    let bus_words = (hw.global_bus_bytes / 4) as usize;
    let mut a = signal_fields("wbs", &model.host, 1);
    let mut b = signal_fields("wbs", &rtl.host, 1);
    a.extend(signal_fields("gm", &model.gm, bus_words));
    b.extend(signal_fields("gm", &rtl.gm, bus_words));
    a.extend(pin_fields(&model.pins));
    b.extend(pin_fields(&rtl.pins));
    let mut out: Vec<FieldDiff> = a
        .into_iter()
        .zip(b)
        .filter(|(x, y)| x.1 != y.1)
        .map(|(x, y)| FieldDiff {
            field: x.0,
            model: x.1,
            rtl: y.1,
        })
        .collect();
    match (&model.trace, &rtl.trace) {
        (Some(m), Some(r)) => {
            for ((name, x), (_, y)) in trace_words(hw, m).into_iter().zip(trace_words(hw, r)) {
                if x != y {
                    out.push(FieldDiff {
                        field: name,
                        model: format!("{x:#x}"),
                        rtl: format!("{y:#x}"),
                    });
                }
            }
        }
        (None, None) => {}
        (m, r) => out.push(FieldDiff {
            field: "tr_record".into(),
            model: if m.is_some() { "present" } else { "absent" }.into(),
            rtl: if r.is_some() { "present" } else { "absent" }.into(),
        }),
    }
    out
}

/// One line for a cycle: the non-zero trace fields and the active ports.
pub fn summary(hw: &HwParams, c: &V2Cycle) -> String {
    let mut parts = Vec::new();
    if let Some(t) = &c.trace {
        let mut last_wide = String::new();
        for (name, v) in trace_words(hw, t) {
            if v == 0 {
                continue;
            }
            match name.split_once('[') {
                // Wide fields: only their name, once.
                Some((base, _)) => {
                    if base != last_wide {
                        parts.push(format!("{base}=…"));
                        last_wide = base.to_string();
                    }
                }
                None => parts.push(format!("{}={v:#x}", &name[3..])),
            }
        }
    }
    if c.host.cyc || c.host.ack {
        parts.push(format!("wbs[{}]", c.host));
    }
    let p = &c.pins;
    if p.running || p.done || p.trapped || p.irq {
        parts.push(format!(
            "pins[running={} done={} trapped={} irq={}]",
            p.running as u8, p.done as u8, p.trapped as u8, p.irq as u8
        ));
    }
    if c.gm.cyc || c.gm.ack || c.gm.err {
        parts.push(format!("gm[{}]", c.gm));
    }
    parts.join(" ")
}
