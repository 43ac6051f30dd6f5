//! A whole launch on the RTL: load, start, step to `DONE`/`TRAP` or the
//! watchdog, copy global memory back.

use std::fmt::Write as _;
use std::ops::ControlFlow;

use concord_isa::config::CoreConfig;
use concord_isa::func::{Launch, Trap, TrapCause};
use concord_isa::mask::lane_list;
use concord_uarch::Counter;

use super::{host, GlobalMemory, Rtl};
use crate::cycle::{self, CycleModel};
use crate::trace::{Counters, RunError, State, TracePort};

/// A per-cycle callback: the cycle's index and its trace. `Break` ends the
/// run after that cycle.
pub type CycleHook<'a> = &'a mut dyn FnMut(u64, &TracePort) -> ControlFlow<()>;

/// Cycles of the trace the fallback watchdog report describes.
const WATCH_WINDOW: u64 = 4096;

/// Runs `launch` on the RTL: resets the core, loads the program, grid and
/// parameters through host writes (§9), starts it and steps it cycle by
/// cycle against a [`GlobalMemory`] over `global` (latency and line size
/// from `config`) until the trace shows `DONE` or `TRAP`, or the core has
/// issued more than `watchdog` warp-instructions (replays not counted: the
/// unit of every model, `concord_isa::watchdog`). `on_cycle` sees every
/// cycle's trace with its index (0 = the first cycle after `start`) up to
/// the end or the watchdog. If it breaks, the run ends after that cycle
/// with [`RunError::Stopped`] and the counters so far (`cycles` = the
/// index + 1), before the watchdog could fire; unless the core is then done
/// or trapped: the run then ends as it would have (with its `DONE`/`TRAP`
/// cycle), without calling `on_cycle` again. `global` holds the final
/// memory in every case.
///
/// A trap returns the core's report ([`Rtl::trap_report`]). The watchdog
/// returns the report of `concord_isa::watchdog` (deadlock, livelock,
/// endless loop or still running, with every lane's PC). The RTL's ports
/// show only the issuing warp, so the warp state comes from the cycle
/// model: it replays the run from the start, must reproduce the RTL's
/// trace port on every cycle (a hash of all of them), and then runs the
/// diagnosis window in lock-step with the RTL; the report says so. Should
/// the replay differ (a Concord bug), the report describes what the trace
/// port showed in the last cycles and says that. A `trace_state` that is no
/// state code also stops the run as a watchdog trap naming it.
///
/// # Panics
/// If the code does not fit `config.imem_words` or there are more than 16
/// parameter words (`concord_isa::launch` rejects both before a run).
pub fn run(
    rtl: &mut Rtl,
    config: &CoreConfig,
    launch: &Launch<'_>,
    global: &mut Vec<u8>,
    watchdog: u64,
    mut on_cycle: Option<CycleHook<'_>>,
) -> Result<Counters, RunError> {
    assert!(
        launch.code.len() <= config.imem_words as usize,
        "{} words of code, the instruction memory holds {} (`imem_words`)",
        launch.code.len(),
        config.imem_words
    );
    rtl.reset();
    rtl.load(launch);
    rtl.host_write(host::START, 1);

    // For the cycle model's replay when the watchdog fires.
    let initial = global.clone();
    let mut memory = GlobalMemory::new(
        std::mem::take(global),
        config.global_latency,
        config.global_line_bytes,
    );
    let mut watch = Watch::new(config.warps);
    let mut n = 0u64;
    // Issues (DECODE cycles) seen, and how many to see before the counters
    // are read again: the watchdog leaves replays out, and only the core's
    // counter tells an issue from a replay.
    let mut decodes = 0u64;
    let mut check_at = watchdog.saturating_add(1);
    let mut stopped = false;
    let outcome = loop {
        let t = match rtl.try_cycle(&mut memory) {
            Ok(t) => t,
            Err(e) => break Outcome::Watchdog(Some(e.to_string())),
        };
        if !stopped {
            if let Some(f) = on_cycle.as_deref_mut() {
                stopped = f(n, &t).is_break();
            }
        }
        watch.observe(n, &t);
        n += 1;
        match t.state {
            State::Done => break Outcome::Done,
            State::Trap => break Outcome::Trap,
            // A core that has just ended shows it in the next cycle.
            _ if stopped && !rtl.status().ended() => break Outcome::Stopped,
            State::Decode => {
                decodes += 1;
                if decodes >= check_at {
                    let issued = rtl.counter(Counter::Issued);
                    let replays = rtl.counter(Counter::Replays);
                    if issued.saturating_sub(replays) > watchdog {
                        break Outcome::Watchdog(None);
                    }
                    check_at =
                        decodes.saturating_add((watchdog - (issued - replays)).saturating_add(1));
                }
            }
            _ => {}
        }
    };

    let result = match outcome {
        Outcome::Done => Ok(rtl.counters()),
        Outcome::Stopped => Err(RunError::Stopped(rtl.counters())),
        Outcome::Trap => Err(RunError::Trap(
            rtl.trap_report(launch.code, config).unwrap_or_else(|| {
                // The trace said TRAP but the pin does not: report it as is.
                let c = rtl.counters();
                watch.trap(
                    n,
                    &c,
                    launch,
                    format!(
                        "the trace showed TRAP in cycle {} but `trapped` is 0",
                        n - 1
                    ),
                )
            }),
        )),
        Outcome::Watchdog(Some(e)) => {
            let c = rtl.counters();
            let diagnosis = format!("stopped after {n} cycles: {e}");
            Err(RunError::Trap(watch.trap(watchdog, &c, launch, diagnosis)))
        }
        Outcome::Watchdog(None) => Err(RunError::Trap(
            replay_diagnosis(
                rtl,
                config,
                launch,
                initial,
                &mut memory,
                watchdog,
                n,
                watch.hash,
            )
            .unwrap_or_else(|why| {
                let c = rtl.counters();
                let diagnosis = format!("{}; {why}", watch.diagnosis(n).trim_end_matches(';'));
                watch.trap(watchdog, &c, launch, diagnosis)
            }),
        )),
    };
    *global = memory.bytes;
    result
}

/// The watchdog report of an RTL run that stopped after `cycles` cycles
/// with trace hash `hash`: the cycle model replays the run, and if it
/// reproduces the hash, diagnoses it with the RTL in lock-step. `Err` says
/// why the cycle model's state cannot stand for the RTL's.
#[allow(clippy::too_many_arguments)]
fn replay_diagnosis(
    rtl: &mut Rtl,
    config: &CoreConfig,
    launch: &Launch<'_>,
    initial: Vec<u8>,
    memory: &mut GlobalMemory,
    watchdog: u64,
    cycles: u64,
    hash: u64,
) -> Result<Trap, String> {
    let mut core = CycleModel::new(config)?;
    let mut replay = GlobalMemory::new(initial, config.global_latency, config.global_line_bytes);
    cycle::load(&mut core, launch);
    let mut h = 0;
    for _ in 0..cycles {
        h = core.step(&mut replay).fold_hash(h);
    }
    if h != hash || core.issued_instructions() <= watchdog {
        return Err(format!(
            "the cycle model, replaying the run, did not reproduce the RTL's trace port over its {cycles} cycles (a Concord bug), so no warp state can be shown"
        ));
    }
    let mut at = cycles;
    let mut trap = cycle::diagnose(&mut core, &mut replay, watchdog, |m| {
        let r = rtl.try_cycle(memory).map_err(|e| e.to_string())?;
        at += 1;
        if *m == r {
            Ok(())
        } else {
            Err(format!(
                "the cycle model's replay and the RTL differ in cycle {} (cycle model: {m}; RTL: {r}), a Concord bug",
                at - 1
            ))
        }
    })?;
    if let TrapCause::Watchdog { diagnosis, .. } = &mut trap.cause {
        let _ = write!(
            diagnosis,
            " (the RTL's ports show only the issuing warp: the lanes' state is the cycle model's, which reproduced the RTL's trace port on all {cycles} cycles of the run and in lock-step through the diagnosis)"
        );
    }
    Ok(trap)
}

enum Outcome {
    Done,
    Trap,
    /// With the harness error that stopped the run, if any.
    Watchdog(Option<String>),
    /// The per-cycle hook broke.
    Stopped,
}

/// What the fallback watchdog report needs: per warp, the issues (`DECODE`
/// cycles) of the last one or two spans of [`WATCH_WINDOW`] cycles and the
/// last issue ever; and the hash of every cycle's trace for the replay.
struct Watch {
    /// The current span's issues and the previous span's.
    now: Vec<WarpWatch>,
    before: Vec<WarpWatch>,
    last: Option<TracePort>,
    hash: u64,
}

#[derive(Clone, Default)]
struct WarpWatch {
    issues: u64,
    lo: u32,
    hi: u32,
    lanes: u32,
    last_pc: Option<u32>,
}

impl WarpWatch {
    fn merge(&self, other: &WarpWatch) -> WarpWatch {
        match (self.issues, other.issues) {
            (0, _) => WarpWatch {
                last_pc: other.last_pc.or(self.last_pc),
                ..other.clone()
            },
            (_, 0) => WarpWatch {
                last_pc: other.last_pc.or(self.last_pc),
                ..self.clone()
            },
            _ => WarpWatch {
                issues: self.issues + other.issues,
                lo: self.lo.min(other.lo),
                hi: self.hi.max(other.hi),
                lanes: self.lanes | other.lanes,
                last_pc: other.last_pc.or(self.last_pc),
            },
        }
    }
}

impl Watch {
    fn new(warps: u32) -> Watch {
        let n = warps.clamp(1, 16) as usize;
        Watch {
            now: vec![WarpWatch::default(); n],
            before: vec![WarpWatch::default(); n],
            last: None,
            hash: 0,
        }
    }

    #[inline]
    fn observe(&mut self, n: u64, t: &TracePort) {
        self.hash = t.fold_hash(self.hash);
        if n % WATCH_WINDOW == 0 && n > 0 {
            self.before = std::mem::take(&mut self.now);
            self.now = self
                .before
                .iter()
                .map(|w| WarpWatch {
                    last_pc: w.last_pc,
                    ..WarpWatch::default()
                })
                .collect();
        }
        if t.state == State::Decode {
            if let Some(w) = self.now.get_mut(t.warp as usize) {
                w.last_pc = Some(t.pc);
                if w.issues == 0 {
                    w.lo = t.pc;
                    w.hi = t.pc;
                }
                w.issues += 1;
                w.lo = w.lo.min(t.pc);
                w.hi = w.hi.max(t.pc);
                w.lanes |= t.active;
            }
        }
        self.last = Some(t.clone());
    }

    fn diagnosis(&self, n: u64) -> String {
        let mut d = format!("the RTL neither finished nor trapped in {n} cycles");
        if let Some(t) = &self.last {
            let _ = write!(d, " (last cycle: {t})");
        }
        let window = n.min(WATCH_WINDOW + n % WATCH_WINDOW);
        let _ = write!(d, "; issues in the last {window} cycles:");
        let warps: Vec<WarpWatch> = self
            .before
            .iter()
            .zip(&self.now)
            .map(|(b, c)| b.merge(c))
            .collect();
        for (w, s) in warps.iter().enumerate() {
            if s.issues > 0 {
                let pcs = if s.lo == s.hi {
                    format!("pc {}", s.lo)
                } else {
                    format!("pcs {}..={}", s.lo, s.hi)
                };
                let _ = write!(
                    d,
                    " warp {w}: {} issue(s) at {pcs}, lanes {};",
                    s.issues,
                    lane_list(s.lanes)
                );
            } else if let Some(pc) = s.last_pc {
                let _ = write!(d, " warp {w}: none (last issue at pc {pc});");
            }
        }
        if warps.iter().all(|s| s.last_pc.is_none()) {
            d.push_str(" none at all");
        }
        d
    }

    fn trap(&self, limit: u64, c: &Counters, launch: &Launch<'_>, diagnosis: String) -> Trap {
        // The block in flight: `blocks` have completed, x fastest.
        let [gx, gy, _] = launch.grid.map(|g| u64::from(g.max(1)));
        let b = c.blocks;
        let block = [b % gx, b / gx % gy, b / (gx * gy)].map(|v| v as u32);
        let (warp, lanes, pc) = self
            .last
            .as_ref()
            .map(|t| (t.warp, t.active, t.pc))
            .unwrap_or((0, 0, 0));
        Trap {
            cause: TrapCause::Watchdog { limit, diagnosis },
            block,
            warp,
            lanes,
            pc,
            issued: c.issued,
        }
    }
}
