//! Running a whole launch on the cycle model, and the watchdog's diagnosis
//! on it (which the lock-step co-simulation and the RTL harness share).

use std::ops::ControlFlow;

use concord_isa::config::CoreConfig;
use concord_isa::func::{Launch, Trap};
use concord_isa::instr::{Op, Space, SpecialReg};
use concord_isa::watchdog::{
    self, word_at as word, Observation, Search, WarpView, WindowEnd, WriteLog, WINDOW,
};
use concord_uarch::widths::LINE_BYTES;

use super::{CycleModel, GlobalMemory, GlobalRequest, ISSUED, REPLAYS};
use crate::trace::{Counters, RunError, State, TracePort};

/// The host writes that load `launch`, ending with `start`: the code
/// (`imem[i]`), `entry_pc`, `code_len`, `grid`, `block`, `param_count`,
/// the parameters.
pub(crate) fn load(core: &mut CycleModel, launch: &Launch<'_>) {
    for (addr, data) in crate::host::launch_writes(launch) {
        core.host_write(addr, data);
    }
    core.host_write(crate::host::START, 1);
}

/// The per-cycle callback of [`run`]: cycle number and trace port. `Break`
/// ends the run after that cycle.
pub type OnCycle<'a> = &'a mut dyn FnMut(u64, &TracePort) -> ControlFlow<()>;

/// Loads `launch` through host writes, starts it and runs it to `DONE` or
/// `TRAP`, or until it has issued more than `watchdog` warp-instructions
/// (replays not counted: the unit of every model, see
/// `concord_isa::watchdog`). `global` is the global memory image
/// (`global_memory_bytes` long), updated in place.
///
/// `on_cycle(n, trace)` sees every cycle from the first `INIT` cycle
/// (`n` = 0) to the first `DONE`/`TRAP` cycle (`n` = the final `cycles`),
/// as [`CycleModel::step`] returns them. If it breaks, the run ends after
/// that cycle, and unless the core is then in `DONE` or `TRAP` (its result
/// stands) it returns [`RunError::Stopped`] with the counters so far
/// (`cycles` = `n` + 1), before the watchdog could fire; the hook is not
/// called again. It is not called in the watchdog's diagnosis window.
///
/// The watchdog trap (`TrapCause::Watchdog`, `limit` = `watchdog`) comes
/// from [`diagnose`]: a deadlock, livelock or endless loop when the state
/// repeats, else "still running", naming the lanes and their PCs.
///
/// Panics if the configuration is not buildable (see [`CycleModel::new`]);
/// the launch is expected to have passed `launch::prepare` (code fits
/// `imem_words`, the block fits `lanes * warps`).
pub fn run(
    config: &CoreConfig,
    launch: &Launch<'_>,
    global: &mut Vec<u8>,
    watchdog: u64,
    mut on_cycle: Option<OnCycle<'_>>,
) -> Result<Counters, RunError> {
    let mut core = CycleModel::new(config).unwrap_or_else(|e| panic!("{e}"));
    let mut memory = GlobalMemory::new(
        std::mem::take(global),
        config.global_latency,
        config.global_line_bytes,
    );
    load(&mut core, launch);
    let mut n = 0u64;
    let mut stopped = false;
    let result = loop {
        match core.state {
            State::Done => break Ok(core.counters()),
            State::Trap => break Err(RunError::Trap(core.trap().expect("a trap report in TRAP"))),
            _ => {}
        }
        if stopped {
            break Err(RunError::Stopped(core.counters()));
        }
        if core.issued_instructions() > watchdog {
            let never: Result<Trap, std::convert::Infallible> =
                diagnose(&mut core, &mut memory, watchdog, |_| Ok(()));
            break Err(RunError::Trap(never.unwrap_or_else(|e| match e {})));
        }
        match on_cycle.as_deref_mut() {
            Some(f) => {
                let t = core.step(&mut memory);
                stopped = f(n, &t).is_break();
                n += 1;
                if !stopped && matches!(core.state, State::Done | State::Trap) {
                    // Show the first cycle in the final state too (the run
                    // has ended: a break changes nothing).
                    let _ = f(n, &core.step(&mut memory));
                }
            }
            None => core.run_untraced(&mut memory, watchdog),
        }
    };
    *global = std::mem::take(&mut memory.bytes);
    result
}

impl CycleModel {
    /// Warp-instructions issued since `start`, replays not counted: what
    /// the watchdog counts on every model.
    pub fn issued_instructions(&self) -> u64 {
        self.counters[ISSUED].saturating_sub(self.counters[REPLAYS])
    }

    /// Steps until `DONE`/`TRAP` or until more than `watchdog`
    /// warp-instructions have issued, without building trace records.
    fn run_untraced(&mut self, memory: &mut GlobalMemory, watchdog: u64) {
        // Scratch trace record: written, never read.
        let mut t = TracePort::default();
        while !matches!(self.state, State::Done | State::Trap | State::Idle)
            && self.counters[ISSUED] <= watchdog.saturating_add(self.counters[REPLAYS])
        {
            let req = (self.state == State::GReq).then(|| self.request());
            let resp = memory.cycle(req.as_ref());
            self.edge(resp.as_ref(), &mut t);
        }
    }

    /// Each warp's lanes as the watchdog report shows them.
    fn views(&self) -> Vec<WarpView> {
        self.warps
            .iter()
            .map(|w| WarpView {
                alive: w.alive,
                waiting: w.waiting,
                pc: std::array::from_fn(|l| w.lane_pc(l)),
            })
            .collect()
    }

    /// The state the watchdog compares directly at a `SCHED` cycle: all
    /// but registers and memory (compared through a [`WriteLog`]) and what
    /// `SCHED` overwrites before reading (the in-flight instruction).
    fn control_state(&self) -> Control {
        Control {
            block_id: self.block_id,
            rr: self.rr,
            arrived: self.arrived,
            exited: self.exited,
            warps: self
                .warps
                .iter()
                .map(|w| WarpControl {
                    pc: std::array::from_fn(|l| w.lane_pc(l)),
                    depth: w.depth,
                    alive: w.alive,
                    waiting: w.waiting,
                    pred: w.pred,
                    group: if w.gvalid { w.group.mask } else { 0 },
                })
                .collect(),
        }
    }

    /// Logs the registers and memory words the coming cycle may write,
    /// before it writes them.
    fn log_writes(&self, log: &mut WriteLog, memory: &GlobalMemory) {
        match self.state {
            State::Exec | State::ShData | State::GWait => {
                if let Some(rd) = self.instr.dest_reg() {
                    let row = self.hw.rf_row(self.cur, rd.index());
                    log.reg(self.cur, rd.index(), || {
                        self.rf.get(row).copied().unwrap_or([0; 32])
                    });
                }
            }
            State::ShAccess => {
                let mut m = self.served;
                while m != 0 {
                    let l = m.trailing_zeros() as usize;
                    m &= m - 1;
                    log.word(Space::Shared, self.maddr[l], |a| word(&self.shared, a));
                }
            }
            State::GReq => {
                let r = self.request();
                match r.kind {
                    GlobalRequest::WRITE => {
                        for j in 0..LINE_BYTES as u32 {
                            if r.mask[(j / 32) as usize] >> (j % 32) & 1 == 1 {
                                log.word(Space::Global, r.addr.wrapping_add(j), |a| {
                                    word(&memory.bytes, a)
                                });
                            }
                        }
                    }
                    GlobalRequest::ATOMIC => {
                        log.word(Space::Global, r.addr, |a| word(&memory.bytes, a))
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    /// Whether the instruction just issued reads the clock.
    fn reads_clock(&self) -> bool {
        self.exec != 0
            && matches!(
                self.instr.op,
                Op::S2R {
                    sreg: SpecialReg::ClockLo | SpecialReg::ClockHi,
                    ..
                }
            )
    }

    fn rf_row(&self, warp: usize, reg: usize) -> [u32; 32] {
        self.rf
            .get(self.hw.rf_row(warp, reg))
            .copied()
            .unwrap_or([0; 32])
    }
}

/// See [`CycleModel::control_state`]. Two `SCHED` cycles with equal control state
/// and unchanged logged locations continue identically forever.
#[derive(PartialEq, Eq)]
struct Control {
    block_id: [u32; 3],
    rr: usize,
    arrived: u32,
    exited: u32,
    warps: Vec<WarpControl>,
}

#[derive(PartialEq, Eq)]
struct WarpControl {
    pc: [u32; 32],
    depth: [u32; 32],
    alive: u32,
    waiting: u32,
    pred: [u32; 8],
    /// The cached group (0 when none is cached).
    group: u32,
}

/// The watchdog fired on `core` (more than `limit` warp-instructions
/// issued): runs the window of `concord_isa::watchdog`, comparing the
/// state at every `SCHED` cycle with Brent's checkpoints, and returns the
/// report. `lockstep(trace)` sees every cycle of the window: the
/// co-simulation and the RTL harness step the RTL there and compare, and
/// an error from it ends the diagnosis.
pub(crate) fn diagnose<E>(
    core: &mut CycleModel,
    memory: &mut GlobalMemory,
    limit: u64,
    mut lockstep: impl FnMut(&TracePort) -> Result<(), E>,
) -> Result<Trap, E> {
    let n = core.hw.warps;
    let block = core.block_id;
    let at_watchdog = core.views();
    // The instruction that tripped the watchdog is the window's first.
    let start = limit;
    // Each issue takes a few cycles plus a memory latency per replay, at
    // most one per lane: only a core that stopped issuing reaches this.
    let max_cycles = WINDOW * (core.hw.lanes as u64 + 1) * (u64::from(memory.latency()) + 64);
    let mut search: Search<Control> = Search::new(n);
    // The warp-instruction that tripped the watchdog has issued (the core
    // is in `READ2`) but not executed: it belongs to the window.
    if core.state == State::Read2 {
        let w = &core.warps[core.cur];
        search.issue(1, core.cur, w.group.mask, w.group.pc);
        search.clock = core.reads_clock();
    }
    let mut cycles = 0u64;
    let end = loop {
        let after = core.issued_instructions() - start;
        match core.state {
            // `INIT` starts the next block: this one has finished, and the
            // functional model's window ends with the block too.
            State::Done | State::Init => break WindowEnd::Finished { after },
            State::Trap => {
                let trap = core.trap().map(|t| t.to_string()).unwrap_or_default();
                break WindowEnd::Trapped { after, trap };
            }
            _ => {}
        }
        if after >= WINDOW || cycles >= max_cycles {
            break WindowEnd::Exhausted {
                issued: after,
                clock: search.clock,
            };
        }
        if core.state == State::Sched
            && search.repeats(core.control_state(), |writes| {
                writes.unchanged(
                    |w, r| core.rf_row(w, r),
                    |space, a| match space {
                        Space::Shared => word(&core.shared, a),
                        Space::Global => word(&memory.bytes, a),
                    },
                )
            })
        {
            break WindowEnd::Repeats;
        }
        core.log_writes(&mut search.writes, memory);
        let t = core.step(memory);
        cycles += 1;
        lockstep(&t)?;
        if t.state == State::Decode {
            // `issued_instructions` already counts this issue.
            let after = core.issued_instructions() - start;
            search.issue(after, t.warp as usize, t.active, t.pc);
            search.clock |= core.reads_clock();
        }
    };
    let warps = if end == WindowEnd::Repeats {
        core.views()
    } else {
        at_watchdog
    };
    let issues = search.issues(&end);
    Ok(watchdog::report(
        limit,
        &Observation {
            block,
            warps,
            issues,
            end,
        },
    ))
}
