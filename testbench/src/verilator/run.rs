//! A whole launch on the RTL: load, start, step to `DONE`/`TRAP` or the
//! watchdog, copy global memory back.

use std::fmt::Write as _;

use concord_isa::config::CoreConfig;
use concord_isa::func::{Launch, Trap, TrapCause};
use concord_isa::mask::lane_list;

use super::{host, GlobalMemory, Rtl};
use crate::trace::{Counters, State, TracePort};

/// A per-cycle callback: the cycle's index and its trace.
pub type CycleHook<'a> = &'a mut dyn FnMut(u64, &TracePort);

/// Cycles before the watchdog whose issues the watchdog report describes.
const WATCH_WINDOW: u64 = 4096;

/// Runs `launch` on the RTL: resets the core, loads the program, grid and
/// parameters through host writes (§9), starts it and steps it cycle by
/// cycle against a [`GlobalMemory`] over `global` (latency and line size
/// from `config`) until the trace shows `DONE` or `TRAP`, or
/// `watchdog_cycles` cycles have run. `on_cycle` sees every cycle's trace
/// with its index (0 = the first cycle after `start`). `global` holds the
/// final memory in every case.
///
/// A trap returns the core's report ([`Rtl::trap_report`]); the watchdog
/// returns a [`TrapCause::Watchdog`] whose `limit` is `watchdog_cycles` and
/// whose diagnosis gives the cycle count, the last state and, per warp, the
/// pcs issued in the last cycles (the stuck ones). A `trace_state` that is
/// no state code also stops the run as a watchdog trap naming it.
///
/// # Panics
/// If the code does not fit `config.imem_words` or there are more than 16
/// parameter words (`concord_isa::launch` rejects both before a run).
pub fn run(
    rtl: &mut Rtl,
    config: &CoreConfig,
    launch: &Launch<'_>,
    global: &mut Vec<u8>,
    watchdog_cycles: u64,
    mut on_cycle: Option<CycleHook<'_>>,
) -> Result<Counters, Trap> {
    assert!(
        launch.code.len() <= config.imem_words as usize,
        "{} words of code, the instruction memory holds {} (`imem_words`)",
        launch.code.len(),
        config.imem_words
    );
    rtl.reset();
    rtl.load(launch);
    rtl.host_write(host::START, 1);

    let mut memory = GlobalMemory::new(
        std::mem::take(global),
        config.global_latency,
        config.global_line_bytes,
    );
    let mut watch = Watch::new(config.warps, watchdog_cycles);
    let mut n = 0u64;
    let outcome = loop {
        if n >= watchdog_cycles {
            break Outcome::Watchdog(None);
        }
        let t = match rtl.try_cycle(&mut memory) {
            Ok(t) => t,
            Err(e) => break Outcome::Watchdog(Some(e.to_string())),
        };
        if let Some(f) = on_cycle.as_deref_mut() {
            f(n, &t);
        }
        watch.observe(n, &t);
        n += 1;
        match t.state {
            State::Done => break Outcome::Done,
            State::Trap => break Outcome::Trap,
            _ => {}
        }
    };
    *global = memory.bytes;

    match outcome {
        Outcome::Done => Ok(rtl.counters()),
        Outcome::Trap => Err(rtl.trap_report(launch.code, config).unwrap_or_else(|| {
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
        })),
        Outcome::Watchdog(err) => {
            let c = rtl.counters();
            let diagnosis = match err {
                Some(e) => format!("stopped after {n} cycles: {e}"),
                None => watch.diagnosis(n),
            };
            Err(watch.trap(watchdog_cycles, &c, launch, diagnosis))
        }
    }
}

enum Outcome {
    Done,
    Trap,
    /// With the harness error that stopped the run, if any.
    Watchdog(Option<String>),
}

/// What the watchdog report needs: per warp, the issues (`DECODE` cycles)
/// of the last [`WATCH_WINDOW`] cycles and the last issue ever.
struct Watch {
    from: u64,
    warps: Vec<WarpWatch>,
    last: Option<TracePort>,
}

#[derive(Clone, Default)]
struct WarpWatch {
    issues: u64,
    lo: u32,
    hi: u32,
    lanes: u32,
    last_pc: Option<u32>,
}

impl Watch {
    fn new(warps: u32, watchdog: u64) -> Watch {
        Watch {
            from: watchdog.saturating_sub(WATCH_WINDOW),
            warps: vec![WarpWatch::default(); warps.clamp(1, 16) as usize],
            last: None,
        }
    }

    #[inline]
    fn observe(&mut self, n: u64, t: &TracePort) {
        if t.state == State::Decode {
            if let Some(w) = self.warps.get_mut(t.warp as usize) {
                w.last_pc = Some(t.pc);
                if n >= self.from {
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
        }
        if n + 1 >= self.from {
            self.last = Some(t.clone());
        }
    }

    fn diagnosis(&self, n: u64) -> String {
        let mut d = format!("the RTL neither finished nor trapped in {n} cycles");
        if let Some(t) = &self.last {
            let _ = write!(d, " (last cycle: {t})");
        }
        let window = n.min(WATCH_WINDOW);
        let _ = write!(d, "; issues in the last {window} cycles:");
        for (w, s) in self.warps.iter().enumerate() {
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
        if self.warps.iter().all(|s| s.last_pc.is_none()) {
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
