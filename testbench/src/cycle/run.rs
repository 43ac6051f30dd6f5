//! Running a whole launch on the cycle model.

use concord_isa::config::CoreConfig;
use concord_isa::func::{Launch, Trap, TrapCause};
use concord_isa::mask::lane_list;

use super::{CycleModel, GlobalMemory, ISSUED};
use crate::trace::{Counters, State, TracePort};

/// Cycles the watchdog keeps the core running to tell starved lanes from
/// busy ones.
const WINDOW_CYCLES: u64 = 1 << 16;

/// The host writes that load `launch`, ending with `start`: the code
/// (`imem[i]`), `entry_pc`, `code_len`, `grid`, `block`, `param_count`,
/// the parameters.
fn load(core: &mut CycleModel, launch: &Launch<'_>) {
    for (addr, data) in crate::host::launch_writes(launch) {
        core.host_write(addr, data);
    }
    core.host_write(crate::host::START, 1);
}

/// The per-cycle callback of [`run`]: cycle number and trace port.
pub type OnCycle<'a> = &'a mut dyn FnMut(u64, &TracePort);

/// Loads `launch` through host writes, starts it and runs it to `DONE` or
/// `TRAP`, or until `watchdog_cycles` cycles have elapsed. `global` is the
/// global memory image (`global_memory_bytes` long), updated in place.
///
/// `on_cycle(n, trace)` sees every cycle from the first `INIT` cycle
/// (`n` = 0) to the first `DONE`/`TRAP` cycle (`n` = the final `cycles`),
/// as [`CycleModel::step`] returns them.
///
/// The watchdog trap (`TrapCause::Watchdog`, `limit` in cycles) keeps the
/// core running for a window and names the first warp with lanes that were
/// schedulable but never issued (`warp`, `lanes`, `pc` of the lowest), with
/// the cycle count and the PCs of the stuck warps' lanes in the diagnosis.
///
/// Panics if the configuration is not buildable (see [`CycleModel::new`]);
/// the launch is expected to have passed `launch::prepare` (code fits
/// `imem_words`, the block fits `lanes * warps`).
pub fn run(
    config: &CoreConfig,
    launch: &Launch<'_>,
    global: &mut Vec<u8>,
    watchdog_cycles: u64,
    mut on_cycle: Option<OnCycle<'_>>,
) -> Result<Counters, Trap> {
    let mut core = CycleModel::new(config).unwrap_or_else(|e| panic!("{e}"));
    let mut memory = GlobalMemory::new(
        std::mem::take(global),
        config.global_latency,
        config.global_line_bytes,
    );
    load(&mut core, launch);
    let mut n = 0u64;
    let result = loop {
        match core.state {
            State::Done => break Ok(core.counters()),
            State::Trap => break Err(core.trap().expect("a trap report in TRAP")),
            _ => {}
        }
        if core.counters[super::CYCLES] >= watchdog_cycles {
            break Err(watchdog(&mut core, &mut memory, watchdog_cycles));
        }
        match on_cycle.as_deref_mut() {
            Some(f) => {
                let t = core.step(&mut memory);
                f(n, &t);
                n += 1;
                if matches!(core.state, State::Done | State::Trap) {
                    // Show the first cycle in the final state too.
                    f(n, &core.step(&mut memory));
                }
            }
            None => core.run_untraced(&mut memory, watchdog_cycles),
        }
    };
    *global = std::mem::take(&mut memory.bytes);
    result
}

impl CycleModel {
    /// Steps until `DONE`/`TRAP` or `cycles == limit`, without building
    /// trace records.
    fn run_untraced(&mut self, memory: &mut GlobalMemory, limit: u64) {
        // Scratch trace record: written, never read.
        let mut t = TracePort::default();
        while !matches!(self.state, State::Done | State::Trap | State::Idle)
            && self.counters[super::CYCLES] < limit
        {
            let req = (self.state == State::GReq).then(|| self.request());
            let resp = memory.cycle(req.as_ref());
            self.edge(resp.as_ref(), &mut t);
        }
    }
}

/// The watchdog report: runs a window more and finds starved lanes.
fn watchdog(core: &mut CycleModel, memory: &mut GlobalMemory, limit: u64) -> Trap {
    let n = core.hw.warps;
    let issued_before = core.counters[ISSUED];
    let mut issued = vec![0u32; n];
    let mut pcs = vec![(u32::MAX, 0u32); n];
    let mut window_end = None;
    for _ in 0..WINDOW_CYCLES {
        if matches!(core.state, State::Done | State::Trap) {
            window_end = Some(if core.state == State::Done {
                "every lane finished"
            } else {
                "the window ended in a trap"
            });
            break;
        }
        let t = core.step(memory);
        if t.state == State::Decode {
            let w = t.warp as usize;
            issued[w] |= t.active;
            pcs[w] = (pcs[w].0.min(t.pc), pcs[w].1.max(t.pc));
        }
    }
    let window_issues = core.counters[ISSUED] - issued_before;
    let mut starved = Vec::new();
    for (w, warp) in core.warps.iter().enumerate() {
        let idle = warp.schedulable() & !issued[w];
        if idle != 0 {
            starved.push((w, idle));
        }
    }
    let lane_pcs = |w: usize| {
        let warp = &core.warps[w];
        (0..core.hw.lanes)
            .filter(|l| warp.alive >> l & 1 == 1)
            .map(|l| format!("{l}@{}", warp.lane_pc(l)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut diagnosis = format!("the limit counts cycles: {limit} cycles elapsed; ");
    match starved.first() {
        Some(&(w, idle)) => {
            let stuck_pc = core.warps[w].lane_pc(idle.trailing_zeros() as usize);
            if issued[w] != 0 {
                let (lo, hi) = pcs[w];
                diagnosis += &format!(
                    "livelock: in warp {w}, lane(s) {} kept issuing at PCs {lo}..={hi} while lane(s) {} (at pc {stuck_pc}) never issued in the next {window_issues} issues; a lane spinning at a lower PC starves the lanes it waits for",
                    lane_list(issued[w]),
                    lane_list(idle)
                );
            } else {
                diagnosis += &format!(
                    "livelock: warp {w} lane(s) {} (at pc {stuck_pc}) never issued in the next {window_issues} issues while other warps ran",
                    lane_list(idle)
                );
            }
            for &(w, _) in &starved {
                diagnosis += &format!("; warp {w} lane@pc: {}", lane_pcs(w));
            }
        }
        None => {
            diagnosis += &format!(
                "no lane is starved{}: the kernel may just run long; raise `watchdog` in the launch description",
                window_end.map(|s| format!(" ({s})")).unwrap_or_default()
            );
            for w in (0..n).filter(|&w| core.warps[w].alive != 0) {
                diagnosis += &format!("; warp {w} lane@pc: {}", lane_pcs(w));
            }
        }
    }
    let (warp, lanes, pc) = starved.first().map_or((0, 0, 0), |&(w, idle)| {
        (
            w as u32,
            idle,
            core.warps[w].lane_pc(idle.trailing_zeros() as usize),
        )
    });
    Trap {
        cause: TrapCause::Watchdog { limit, diagnosis },
        block: core.block_id,
        warp,
        lanes,
        pc,
        issued: issued_before,
    }
}
