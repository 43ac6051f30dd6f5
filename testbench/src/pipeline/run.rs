//! Running a launch on the Core v2 model to `DONE`, `TRAP` or the
//! watchdog, and the final state that the functional model checks.

use concord_isa::config::CoreConfig;
use concord_isa::func::{self, Launch, Trap};
use concord_uarch::wishbone::Signals;
use concord_uarch::{regmap, HwParams, LaunchShape, Occupancy};

use super::{CoreState, Counters, Pipeline, WishboneMemory};

/// A launch for the pipeline: the functional model's launch plus what the
/// launcher writes into `SHARED_BYTES`, `CLEAR_REGS` and `CLEAR_SHARED`
/// (§12.3: the kernel's `shared_bytes` and `regs_used`).
#[derive(Clone, Debug)]
pub struct PipelineLaunch<'a> {
    pub launch: Launch<'a>,
    pub shared_bytes: u32,
    pub regs_used: u32,
}

impl PipelineLaunch<'_> {
    /// The host's writes that load this launch and start it (§14.4): the
    /// program, the launch registers, the parameters, then `CTRL.START`.
    pub fn host_writes(&self) -> Vec<(u32, u32)> {
        let extras = regmap::LaunchExtras {
            shared_bytes: self.shared_bytes,
            clear_regs: self.regs_used,
            clear_shared: self.shared_bytes,
        };
        let mut writes = regmap::launch_writes(&self.launch, &extras);
        writes.push(regmap::start_write());
        writes
    }
}

/// Limits of a run.
#[derive(Clone, Copy, Debug)]
pub struct PipelineOptions {
    /// Warp-instructions (passes selected at S that are not replays) after
    /// which the run stops with a watchdog trap (§13.4). The trap's
    /// diagnosis comes from the window the core then runs (`watchdog`), so
    /// the outcome's counters include the window's cycles.
    pub watchdog: u64,
    /// Check the global-memory master port with the Wishbone protocol
    /// checker of §20 on every cycle (a violation fails the run).
    pub check_bus: bool,
    /// The generator options of the core modelled (§17.2): counters wrap
    /// at `gen.counter_bits`.
    pub gen: super::GenOptions,
}

/// The final state of one block: per thread, its registers and
/// predicates; the block's shared window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockState {
    pub regs: Vec<[u32; 32]>,
    pub preds: Vec<[bool; 8]>,
    pub shared: Vec<u8>,
}

/// How a run ended.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub counters: Counters,
    /// `Err`: the trap report (the held trap, or the watchdog).
    pub result: Result<(), Trap>,
    /// The last block's final state (absent after a trap).
    pub last_block: Option<BlockState>,
    pub occupancy: Occupancy,
}

/// The occupancy of `launch` on `config` (§12.2), or why the core
/// refuses it.
pub fn occupancy(config: &CoreConfig, launch: &PipelineLaunch<'_>) -> Result<Occupancy, String> {
    let hw = HwParams::new(config).map_err(|e| e.to_string())?;
    let l = &launch.launch;
    Occupancy::new(
        &hw,
        &LaunchShape {
            block: l.block,
            grid: l.grid,
            shared_bytes: launch.shared_bytes,
            stack_bytes: l.stack_bytes,
            clear_regs: launch.regs_used,
            clear_shared: launch.shared_bytes,
        },
    )
    .map_err(|e| e.to_string())
}

/// The functional model on the same launch, with the shared window the
/// occupancy gives (docs/microarchitecture.md §18, amendment 2): the
/// oracle the pipeline's final state is checked against.
pub fn func_reference(
    config: &CoreConfig,
    launch: &PipelineLaunch<'_>,
    global: &mut [u8],
    options: func::Options,
    observer: Option<&mut dyn func::Observer>,
) -> Result<func::Stats, func::RunError> {
    let window = occupancy(config, launch)
        .map(|o| o.window_bytes)
        .unwrap_or(config.shared_memory_bytes);
    func::run_with_shared_window(config, &launch.launch, global, options, observer, window)
}

/// Runs `launch` to its end, loading it as the host does (§14.3): one
/// Wishbone write per cycle on the host port (`regmap::launch_writes`,
/// then `CTRL.START`), in `IDLE`; every host cycle is checked with
/// `Checker::host_slave` when `check_bus` is set. `global` is the global
/// memory image, updated in place. Fails (before running) when the
/// configuration or the launch cannot run on the core.
pub fn run(
    config: &CoreConfig,
    launch: &PipelineLaunch<'_>,
    global: &mut Vec<u8>,
    options: PipelineOptions,
) -> Result<Outcome, String> {
    run_observed(config, launch, global, options, &mut ())
}

/// Watches a [`run_observed`] run cycle by cycle (the lock-step harness
/// drives the RTL from it: `crate::verilator::v2`).
pub trait CycleObserver {
    /// After every cycle, loading included: the host port's inputs of the
    /// cycle and its record (`Pipeline::cycle`); the core as it is after
    /// the cycle (`trace`, `gm_port`, `state`). An error ends the run with
    /// it.
    fn cycle(&mut self, core: &Pipeline, host: &Signals, port: &Signals) -> Result<(), String>;

    /// Once, when the run has ended (`DONE`, `TRAP` or the watchdog),
    /// before the final state is taken: the observer may run further host
    /// cycles (`Pipeline::cycle`), e.g. to read the registers back.
    fn end(&mut self, core: &mut Pipeline) -> Result<(), String>;
}

/// No observer.
impl CycleObserver for () {
    fn cycle(&mut self, _: &Pipeline, _: &Signals, _: &Signals) -> Result<(), String> {
        Ok(())
    }
    fn end(&mut self, _: &mut Pipeline) -> Result<(), String> {
        Ok(())
    }
}

/// [`run`], with `observer` told about every cycle.
pub fn run_observed(
    config: &CoreConfig,
    launch: &PipelineLaunch<'_>,
    global: &mut Vec<u8>,
    options: PipelineOptions,
    observer: &mut dyn CycleObserver,
) -> Result<Outcome, String> {
    // The same refusals as a direct load, before any bus cycle.
    let _ = Pipeline::new(config, launch, options.gen)?;
    let mut core = Pipeline::idle(config, options.gen)?;
    if options.check_bus {
        core.host_checker = Some(concord_uarch::wishbone::Checker::host_slave("wbs"));
    }
    for (adr, value) in launch.host_writes() {
        let host = super::host_write(adr, value);
        let port = core.cycle(&host);
        observer.cycle(&core, &host, &port)?;
    }
    if let Some(v) = core.bus_violations.first() {
        return Err(v.clone());
    }
    if core.state != CoreState::Setup {
        return Err(format!("the core did not start: {:?}", core.status()));
    }
    finish(core, config, global, options, Some(observer))
}

/// Runs `launch` to its end with the launch registers loaded directly (as
/// if the host had written them) and `START` accepted before the first
/// cycle; otherwise as [`run`].
pub fn run_direct(
    config: &CoreConfig,
    launch: &PipelineLaunch<'_>,
    global: &mut Vec<u8>,
    options: PipelineOptions,
) -> Result<Outcome, String> {
    let core = Pipeline::new(config, launch, options.gen)?;
    finish(core, config, global, options, None)
}

/// Runs a started core to `DONE`, `TRAP`, the watchdog or a pipeline hang;
/// with `host` (an observer), each cycle goes through the (idle) host port.
fn finish(
    mut core: Pipeline,
    config: &CoreConfig,
    global: &mut Vec<u8>,
    options: PipelineOptions,
    mut host: Option<&mut dyn CycleObserver>,
) -> Result<Outcome, String> {
    core.memory = WishboneMemory::new(std::mem::take(global), &core.hw);
    if options.check_bus {
        let max = (core.hw.global_outstanding * core.hw.global_beats) as u32;
        core.bus_checker = Some(
            concord_uarch::wishbone::Checker::master("gm", max)
                .starting_at(concord_uarch::timing::SETUP_CYCLES),
        );
    }
    // §13.5: no commit, slot, beat, response or launch step for this many
    // cycles is a pipeline deadlock (a model bug), not a kernel's hang.
    let hang = concord_uarch::timing::hang_cycles(config.global_latency as u64);
    let (mut progress, mut since) = (core.progress(), 0u64);
    let result = loop {
        match core.state {
            CoreState::Done => break Ok(()),
            CoreState::Trap => {
                break Err(core.held.take().map(|(_, t)| t).expect("a held trap"));
            }
            CoreState::Idle => {
                *global = std::mem::take(&mut core.memory.bytes);
                return Err(format!(
                    "launch refused: {}",
                    core.refusal().unwrap_or("(no reason)")
                ));
            }
            _ => {}
        }
        if core.issued_instructions > options.watchdog {
            // An observer (the lock-step RTL) sees the window's cycles too,
            // so that both cores end the run in the same cycle.
            let mut observer_failed = None;
            let trap = match host.as_deref_mut() {
                Some(observer) => core.diagnose(options.watchdog, |core| {
                    if observer_failed.is_none() {
                        observer_failed = core.observed_idle_cycle(observer).err();
                    } else {
                        core.host_idle_cycle();
                    }
                }),
                None => core.diagnose(options.watchdog, Pipeline::step),
            };
            if let Some(e) = observer_failed {
                *global = std::mem::take(&mut core.memory.bytes);
                return Err(e);
            }
            if let Some(v) = core.bus_violations.first() {
                *global = std::mem::take(&mut core.memory.bytes);
                return Err(v.clone());
            }
            match trap {
                Ok(trap) => break Err(trap),
                Err(hang) => {
                    *global = std::mem::take(&mut core.memory.bytes);
                    return Err(hang);
                }
            }
        }
        if let Some(observer) = host.as_deref_mut() {
            if let Err(e) = core.observed_idle_cycle(observer) {
                *global = std::mem::take(&mut core.memory.bytes);
                return Err(e);
            }
        } else {
            core.step();
        }
        if let Some(v) = core.bus_violations.first() {
            *global = std::mem::take(&mut core.memory.bytes);
            return Err(v.clone());
        }
        let now = core.progress();
        if now == progress {
            since += 1;
            if since >= hang {
                let cycle = core.cycles();
                *global = std::mem::take(&mut core.memory.bytes);
                return Err(format!(
                    "pipeline deadlock at cycle {cycle}: no progress for {hang} cycles; {}",
                    core.describe()
                ));
            }
        } else {
            (progress, since) = (now, 0);
        }
    };
    if let Some(observer) = host {
        if let Err(e) = observer.end(&mut core) {
            *global = std::mem::take(&mut core.memory.bytes);
            return Err(e);
        }
    }
    *global = std::mem::take(&mut core.memory.bytes);
    Ok(Outcome {
        counters: core.counters,
        last_block: if result.is_ok() {
            core.last_block.take()
        } else {
            None
        },
        result,
        occupancy: core.occ,
    })
}

impl Pipeline {
    /// One cycle with an idle host port: the host keeps `CYC` until its
    /// last `ACK` (§14.3's example).
    fn host_idle_cycle(&mut self) {
        self.cycle(&Signals {
            cyc: self.host_pending(),
            ..Signals::idle()
        });
    }

    /// [`Pipeline::host_idle_cycle`] shown to `observer` (the host keeps
    /// `CYC` until its last `ACK`, §14.3's example).
    fn observed_idle_cycle(&mut self, observer: &mut dyn CycleObserver) -> Result<(), String> {
        let input = Signals {
            cyc: self.host_pending(),
            ..Signals::idle()
        };
        let port = self.cycle(&input);
        observer.cycle(self, &input, &port)
    }

    /// A value that changes whenever the core makes progress (§13.5):
    /// commits, return and init slots, beats, blocks, re-arbitrations,
    /// refusals, launches, the state.
    pub(crate) fn progress(&self) -> (u64, u64, CoreState, u64) {
        use super::Counter as K;
        let c = &self.counters;
        (
            c.get(K::Issued) + c.get(K::Squashed) + c.get(K::ReturnSlots) + c.get(K::InitSlots),
            c.get(K::GlobalBeats) + c.get(K::Blocks) + c.get(K::Rearbs) + c.get(K::GlobalRequests),
            self.state,
            self.launch_progress(),
        )
    }

    /// Every warp's state code, group and flags, and the slots (§13.5).
    pub(crate) fn describe(&self) -> String {
        let warps: Vec<String> = self
            .warps
            .iter()
            .enumerate()
            .map(|(i, w)| {
                format!(
                    "warp {i} {:?} pc {} mask {:#x} outstanding {} rearb {} replay {}",
                    self.warp_code(i),
                    w.gpc,
                    w.gmask,
                    w.outstanding,
                    w.rearb,
                    w.replay
                )
            })
            .collect();
        let slots: Vec<String> = self
            .slots
            .iter()
            .map(|s| {
                format!(
                    "{:?} {:?} arrived {} exited {}",
                    s.state, s.ctaid, s.arrived, s.exited
                )
            })
            .collect();
        format!("warps: {}; slots: {}", warps.join(", "), slots.join(", "))
    }

    /// The final state of the block in slot `k`.
    pub(crate) fn block_state(&self, k: usize) -> BlockState {
        let lanes = self.hw.lanes;
        let threads = self.occ.threads as usize;
        let base = k * self.occ.nwarps as usize;
        let mut regs = Vec::with_capacity(threads);
        let mut preds = Vec::with_capacity(threads);
        for t in 0..threads {
            let (w, l) = (base + t / lanes, t % lanes);
            let mut r = [0u32; 32];
            for (i, v) in r.iter_mut().enumerate().take(self.hw.registers) {
                *v = self.rf[self.hw.rf_row(w, i)][l];
            }
            let mut p = [false; 8];
            p[0] = true;
            for (i, v) in p
                .iter_mut()
                .enumerate()
                .skip(1)
                .take(self.hw.predicates - 1)
            {
                *v = self.warps[w].pred[i] >> l & 1 == 1;
            }
            regs.push(r);
            preds.push(p);
        }
        let wb = self.occ.window_bytes as usize;
        BlockState {
            regs,
            preds,
            shared: self.shared[k * wb..(k + 1) * wb].to_vec(),
        }
    }
}
