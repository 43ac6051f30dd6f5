//! The Core v2 cycle model: the 8-stage pipeline of
//! `docs/microarchitecture.md` (the contract), cycle by cycle.
//!
//! | file | concept | contract |
//! |---|---|---|
//! | [`item`] | items and stage records: warp passes, return slots, init slots, bubbles; effects left for M and W | §0, §3.2 |
//! | `sched` | stage S: item priority, `lrr` and `gto` | §6 |
//! | `warp` | warp, lane and block-slot state; readiness; warp state codes | §5 |
//! | `commit` | stage A: checks, traps, commit of every instruction class, barrier and exit accounting | §8, §9.3, §9.4, §13 |
//! | `engine` | tree use per cycle (`unified` / `split`) and the background re-arbitration engine | §9.2, §9.5 |
//! | `shared` | shared memory: windows, M and W effects, the port rule | §10.1 |
//! | `global` | the global unit: entries, reservation, beats, responses, return slots | §10.2 |
//! | [`wishbone`] | the testbench memory: a Wishbone B4 pipelined slave with latency and bandwidth, speaking `uarch::wishbone::Signals` | §10.4 |
//! | `host` | the Wishbone host slave: register reads and writes, `START`, SETUP, refusal, trap registers | §12.1, §14.3, §14.4 |
//! | `launch` | the launch unit: occupancy, thread-id walk, init slots, block start and retire | §12 |
//! | `concord_uarch::counters` | the v2 performance counters (the one table; they wrap at `counter_bits`) | §15.1 |
//! | `run` | running a launch to its end, final state, the hang detector | §13.5, §20 |
//! | `watchdog` | the watchdog's diagnosis window: repeat test over the whole state, verdict | §13.4 |
//!
//! # One cycle
//!
//! [`Pipeline::step`] is one clock cycle. Everything is computed from the
//! state at the start of the cycle and written at its end, in this order
//! (the order only matters where the contract says what a cycle sees):
//!
//! 1. S chooses its item from the start-of-cycle state (§6.1, §5.4); the
//!    stage records shift (§3.3: a cycle is a shift, nothing stalls);
//! 2. W, M, then A act on the items they now hold (register writes at W;
//!    shared accesses and entry writes at M; the commit at A);
//! 3. the global unit processes the response registered in the previous
//!    cycle, the memory accepts a beat and answers the one accepted `lat`
//!    cycles ago, and the master loads its output register;
//! 4. the re-arbitration engine and the launch unit;
//! 5. the per-cycle counters, `DONE` / `TRAP`.
//!
//! An item's architectural effects are computed at A from the state A sees:
//! with at most one item per warp in S..A (§4.1) every value it read in F,
//! D, R or X is the one A sees, except `%clock`, which is taken as `cycles`
//! of the R cycle.
//!
//! # Ports
//!
//! [`Pipeline::cycle`] is one clock cycle seen from the host: it takes the
//! host port's Wishbone inputs and returns the port's record with the
//! slave's registered `ACK` and read data (§14.3; `host`, registers from
//! `concord_uarch::regmap`). [`run`] loads a launch through host writes
//! (`regmap::launch_writes`, then `CTRL.START`); [`run_direct`] loads the
//! registers directly. The global-memory port is a
//! `concord_uarch::wishbone::Signals` record per cycle, answered by the
//! testbench memory ([`WishboneMemory`]); [`Pipeline::gm_port`] is that
//! record of the last cycle. [`run_observed`] is [`run`] with a
//! [`CycleObserver`] told about every cycle (the Core v2 lock-step,
//! `crate::lockstep`, drives the RTL from it). With `PipelineOptions::check_bus`
//! both ports are checked every cycle by the protocol checkers of §20
//! (`concord_uarch::wishbone::Checker`); a violation fails the run.
//!
//! # Traps and hangs
//!
//! The trap report registers are loaded at the end of the cycle after the
//! trap (§13.3, `host::trap_report`). The watchdog (§13.4) stops counting
//! after warp-instruction `limit + 1` and runs the diagnosis window
//! (`watchdog`). The pipeline-hang detector of §13.5: `run` fails with
//! "pipeline deadlock" and every warp's state after `hang_cycles` cycles
//! without progress.
//!
//! # What is not modelled yet
//!
//! * The watchdog's repeat test compares only at points where the
//!   testbench memory holds no accepted beat and has full bandwidth credit
//!   (its queue is private to `wishbone.rs`), so a loop that keeps the
//!   memory busy at every issue is reported "still running"; a beat whose
//!   `ERR` a test injected ahead of the window is not part of the state.
//!
//! The SIMT rules (arbitration, advance and join, control effects, memory
//! selection, store merge, replay split, barrier outcome, thread ids and
//! special registers) are `concord_isa::simt`; the data semantics and
//! checks are `concord_isa::{semantics, checks}`. This module keeps only
//! timing: stage records, readiness, the schedulers, the queues, the bus.

pub(crate) mod item;
pub mod wishbone;

mod commit;
mod engine;
mod global;
mod host;
mod launch;
mod run;
mod sched;
mod shared;
mod warp;
mod watchdog;

use std::collections::VecDeque;

use concord_isa::checks::Stacks;
use concord_isa::config::CoreConfig;
use concord_isa::func::Trap;
use concord_isa::instr::Instr;
use concord_uarch::timing::{A, M, STAGES, W};
use concord_uarch::trace::{a_kind, s_kind, TraceRecord};
use concord_uarch::{HwParams, Occupancy};

pub use concord_uarch::counters::{Counter, Counters};
pub use concord_uarch::GenOptions;
pub use host::{host_read, host_write};
pub use run::{
    func_reference, occupancy, run, run_direct, run_observed, BlockState, CycleObserver, Outcome,
    PipelineLaunch, PipelineOptions,
};
pub use warp::WarpCode;
pub use wishbone::WishboneMemory;

use global::GlobalUnit;
use item::Item;
use launch::LaunchUnit;
use warp::{Slot, WarpState};

/// The core's state (§15.2 `tr_state`, [`CoreState::code`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoreState {
    Idle,
    Setup,
    Run,
    Stopping,
    Done,
    Trap,
}

/// The Core v2 model for one launch.
pub struct Pipeline {
    hw: HwParams,
    config: CoreConfig,
    gen: GenOptions,
    /// The host slave's registers (§14.4).
    host: host::HostRegs,
    /// The Wishbone protocol checker on the host port, when asked for.
    host_checker: Option<concord_uarch::wishbone::Checker>,
    occ: Occupancy,
    // The launch (the host registers of §14.4).
    code: Vec<u32>,
    instrs: Vec<Result<Instr, String>>,
    entry_pc: u32,
    grid: [u32; 3],
    block: [u32; 3],
    params: Vec<u32>,
    stacks: Stacks,

    state: CoreState,
    setup_left: u64,
    /// Register files, row `warp · RP + reg`.
    rf: Vec<[u32; 32]>,
    /// Shared memory in physical byte order: window `k` is bytes
    /// `k · window_bytes ..`.
    shared: Vec<u8>,
    warps: Vec<WarpState>,
    slots: Vec<Slot>,
    /// The item in each stage during the current cycle.
    stages: [Item; STAGES],
    /// LRR register.
    rr: usize,
    /// GTO register.
    last: Option<usize>,
    /// The engine's key register: the warp whose keys the tree computes
    /// in this cycle.
    engine_key: Option<usize>,
    global: GlobalUnit,
    memory: WishboneMemory,
    launch: LaunchUnit,
    counters: Counters,
    /// The held trap and the slot it belongs to (§13.2).
    held: Option<(usize, Trap)>,
    /// A trap became the held trap in this cycle: the report registers
    /// take it at the end of the next one (§13.3).
    report_due: bool,
    /// Warp passes selected at S that are not replays (the watchdog unit).
    issued_instructions: u64,
    /// The final state of the last block in grid order.
    last_block: Option<BlockState>,
    /// The Wishbone protocol checker of §20 on the global-memory master
    /// port, when the run asks for it, and what it found.
    bus_checker: Option<concord_uarch::wishbone::Checker>,
    bus_violations: Vec<String>,
    /// The trace record of the cycle being computed (§15.2), when the
    /// core has the trace port (`GenOptions::trace`).
    tr: TraceRecord,
    /// The record of the last cycle: what the port shows now.
    last_trace: Option<TraceRecord>,
    /// The global-memory port's record of the last cycle (idle in a cycle
    /// without a global unit cycle), for lock-step co-simulation.
    gm_port: concord_uarch::wishbone::Signals,
}

impl Pipeline {
    /// Cycles counted so far (`cycles`), which is also the `cycles` value
    /// during the next cycle.
    pub fn cycles(&self) -> u64 {
        self.counters.get(Counter::Cycles)
    }

    pub fn state(&self) -> CoreState {
        self.state
    }

    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// Every warp's state code (§5.5).
    pub fn warp_codes(&self) -> Vec<WarpCode> {
        (0..self.warps.len()).map(|w| self.warp_code(w)).collect()
    }

    /// The trace port's record of the last cycle (§15.2: the values on the
    /// port during this cycle), when the core has the trace port. Every
    /// field is produced. Interpretations where §15.2 leaves room:
    /// `tr_tree` bits 0/1 are the tree use of the pass in A as the
    /// engine's conflict rule sees it (from its instruction, whatever the
    /// pass's outcome); bit 2 is set in a cycle in which the engine
    /// re-arbitrates a warp; `tr_a_active`/`tr_a_exec` are set for trapped
    /// passes too (when the trap follows decode); `tr_a_gpc`/`tr_a_gmask`
    /// only for committed passes.
    pub fn trace(&self) -> Option<&TraceRecord> {
        self.last_trace.as_ref()
    }

    /// The global-memory port's record of the last cycle: the master's
    /// outputs and the testbench memory's answer (§14.5, §15.4).
    pub fn gm_port(&self) -> &concord_uarch::wishbone::Signals {
        &self.gm_port
    }

    /// One clock cycle.
    pub fn step(&mut self) {
        // §13.3: the report registers are loaded at the end of the cycle
        // after the trap, from what the registers hold during it (the
        // held trap, the slot's counts, the lane-PC LUT-RAM).
        let report = std::mem::take(&mut self.report_due)
            .then(|| self.trap_report())
            .flatten();
        self.step_traced();
        if let Some(regs) = report {
            self.host.trap = regs;
        }
    }

    fn step_traced(&mut self) {
        self.gm_port = concord_uarch::wishbone::Signals::idle();
        if !self.gen.trace {
            self.step_core();
            return;
        }
        self.tr = TraceRecord {
            state: self.state.code() as u32,
            ..TraceRecord::default()
        };
        for w in 0..self.warps.len() {
            let code = self.warp_code(w) as u8;
            self.tr.set_warp_code(w, code);
        }
        self.step_core();
        self.tr.free = self.global.free_entries() as u32;
        self.last_trace = Some(std::mem::take(&mut self.tr));
    }

    fn step_core(&mut self) {
        let now = self.cycles();
        match self.state {
            CoreState::Idle | CoreState::Done | CoreState::Trap => return,
            CoreState::Setup => {
                self.counters.inc(Counter::Cycles);
                self.setup_left -= 1;
                if self.setup_left == 0 {
                    self.setup_done();
                }
                return;
            }
            CoreState::Run | CoreState::Stopping => {}
        }
        // Start-of-cycle values.
        let free_entries = self.global.free_entries();
        // §12.5, §13.2: `DONE` and `TRAP` need a cycle in which no global
        // entry is in use, so an entry freed at the end of this cycle (a
        // write's last response) still counts as in use.
        let global_idle = self.global.idle();
        let rearb_at_start = (0..self.warps.len())
            .filter(|&w| self.warps[w].rearb)
            .fold(0u32, |m, w| m | 1 << w);
        let mut ready = 0u64;
        let (mut memwait, mut barrier) = (0u64, 0u64);
        for w in 0..self.warps.len() {
            match self.warp_code(w) {
                WarpCode::Ready => ready += 1,
                WarpCode::Memwait => memwait += 1,
                WarpCode::Barrier | WarpCode::Rearb => barrier += 1,
                _ => {}
            }
        }

        // 1. S, and the shift.
        let selected = self.select(now);
        if matches!(selected, Item::Bubble) {
            self.counters.inc(Counter::IdleIssueCycles);
        }
        for s in (1..STAGES).rev() {
            self.stages[s] = std::mem::take(&mut self.stages[s - 1]);
        }
        self.stages[0] = selected;
        let empty = self.stages.iter().all(|i| matches!(i, Item::Bubble));

        // 2. W, M, A.
        self.stage_w();
        self.stage_m(now);
        self.stage_a(now, free_entries);

        // 3. The global unit and the memory.
        self.global_cycle(now);

        // 4. Engine, launch unit.
        // §15.3: `HALT` pauses the engine (it loads no warp) and the
        // launch unit.
        self.engine_cycle(rearb_at_start, self.host.halt);
        if !self.host.halt {
            self.launch_cycle(now);
        }

        // 5. Counters and state.
        self.counters.add(Counter::ReadyWarpCycles, ready);
        self.counters.add(Counter::MemwaitWarpCycles, memwait);
        self.counters.add(Counter::BarrierWarpCycles, barrier);
        self.counters.inc(Counter::Cycles);
        let quiet = empty && global_idle;
        if self.held.is_some() {
            self.state = CoreState::Stopping;
            let running = self
                .slots
                .iter()
                .any(|s| !matches!(s.state, warp::SlotState::Free | warp::SlotState::Frozen));
            if quiet && !running {
                self.state = CoreState::Trap;
            }
        } else if quiet
            && self.launch.all_launched()
            && self.slots.iter().all(|s| s.state == warp::SlotState::Free)
        {
            self.state = CoreState::Done;
        }
    }

    /// Stage S (§6.1): a return slot, else an init slot, else a ready warp,
    /// else a bubble. Updates the registers S writes at the end of the
    /// cycle (`busy_i`, `busy_r`, `rr`, `last`).
    fn select(&mut self, now: u64) -> Item {
        if let Some((warp, entry)) = self.global.take_return() {
            self.warps[warp].busy_r = true;
            (self.tr.s_kind, self.tr.s_warp) = (s_kind::RETURN, warp as u32);
            return Item::Return {
                warp,
                entry,
                write: None,
            };
        }
        // §15.3: while `HALT` is 1, S selects only return slots.
        if self.host.halt {
            return Item::Bubble;
        }
        if let Some(init) = self.take_init(now) {
            self.tr.s_kind = s_kind::INIT;
            self.tr.s_warp = init.reg.map_or(0, |(w, _)| w as u32);
            return Item::Init(init);
        }
        if let Some(w) = self.pick_warp() {
            let replay = self.warps[w].replay;
            self.tr.s_kind = s_kind::WARP;
            self.tr.s_warp = w as u32;
            self.tr.s_replay = replay as u32;
            self.warps[w].busy_i = true;
            self.selected(w);
            if !replay {
                self.issued_instructions += 1;
            }
            return Item::Pass(item::Pass {
                warp: w,
                late: item::Late::None,
            });
        }
        Item::Bubble
    }

    /// Stage W: register writes (results, loads, returns, links, init
    /// zeros) and the shared atomic's write.
    fn stage_w(&mut self) {
        let item = std::mem::take(&mut self.stages[W]);
        match &item {
            Item::Pass(p) => self.late_w(&p.late),
            Item::Return { write, .. } => {
                if let Some(w) = write {
                    self.write_rf(w);
                }
            }
            Item::Init(init) => {
                if let Some((w, r)) = init.reg {
                    let row = self.hw.rf_row(w, r);
                    self.rf[row] = [0; 32];
                    self.tr.rf_we = self.hw.lane_mask;
                    self.tr.rf_addr = row as u32;
                }
            }
            Item::Bubble => {}
        }
    }

    /// Stage M: shared accesses, row clears, entry writes.
    fn stage_m(&mut self, now: u64) {
        let mut item = std::mem::take(&mut self.stages[M]);
        match &mut item {
            Item::Pass(p) => self.late_m(&mut p.late, now),
            Item::Init(init) => {
                if let (Some(row), false) = (init.row, init.refused) {
                    self.clear_row(row);
                }
            }
            _ => {}
        }
        self.stages[M] = item;
    }

    /// Stage A: the commit (§9.3).
    fn stage_a(&mut self, now: u64, free_entries: usize) {
        let mut item = std::mem::take(&mut self.stages[A]);
        match &mut item {
            Item::Bubble => {}
            Item::Return { warp, entry, write } => {
                (self.tr.a_kind, self.tr.a_warp) = (a_kind::RETURN, *warp as u32);
                *write = self.return_a(*warp, *entry);
                self.counters.inc(Counter::ReturnSlots);
            }
            Item::Init(init) => {
                init.refused = init.row.is_some() && self.shared_port_busy();
                self.tr.a_kind = if init.refused {
                    a_kind::INIT_REFUSED
                } else {
                    a_kind::INIT
                };
                self.tr.a_warp = init.reg.map_or(0, |(w, _)| w as u32);
                self.launch.init_at_a(init);
                self.counters.inc(Counter::InitSlots);
            }
            Item::Pass(p) => {
                let squashed = self.counters.get(Counter::Squashed);
                self.tr.a_kind = a_kind::COMMITTED;
                self.tr.a_warp = p.warp as u32;
                self.tr.a_pc = self.warps[p.warp].gpc;
                // §9.2: the tree use the engine's conflict rule sees (the
                // pass's instruction, whatever its outcome).
                let instr = self.instrs.get(self.tr.a_pc as usize);
                self.tr.tree = match item::tree_use(instr.and_then(|i| i.as_ref().ok())) {
                    item::TreeUse::Branch => 1,
                    item::TreeUse::Memory => 2,
                    item::TreeUse::None => 0,
                };
                p.late = self.commit(p.warp, now, free_entries);
                if self.counters.get(Counter::Squashed) != squashed {
                    self.tr.a_kind = a_kind::SQUASHED;
                }
                if self.tr.a_kind == a_kind::COMMITTED {
                    self.tr.a_gpc = self.warps[p.warp].gpc;
                    self.tr.a_gmask = self.warps[p.warp].gmask;
                }
            }
        }
        self.stages[A] = item;
    }

    /// The trap of a pass (or a barrier) of slot `slot` (§13.2): held if it
    /// is older than the held one; the slot and younger slots freeze.
    fn raise(&mut self, slot: usize, trap: Trap) {
        self.tr.trap = 1;
        let age = self.slots[slot].age;
        let replace = match &self.held {
            None => true,
            Some((s, _)) => self.slots[*s].age > age,
        };
        if replace {
            self.held = Some((slot, trap));
            self.report_due = true;
        }
        for k in 0..self.slots.len() {
            let s = &mut self.slots[k];
            if s.age >= age && matches!(s.state, warp::SlotState::Run | warp::SlotState::Launch) {
                s.state = warp::SlotState::Frozen;
            }
        }
        self.launch.cancel_frozen(&self.slots);
    }

    /// A core after reset: `IDLE`, every register 0, no memory.
    pub fn idle(config: &CoreConfig, gen: GenOptions) -> Result<Pipeline, String> {
        let hw = HwParams::new(config).map_err(|e| e.to_string())?;
        gen.validate().map_err(|e| e.to_string())?;
        Ok(Pipeline {
            config: config.clone(),
            gen,
            host: host::HostRegs::new(hw.imem_words),
            host_checker: None,
            occ: Occupancy {
                threads: 0,
                nwarps: 0,
                resident: 0,
                window_rows: 0,
                window_bytes: 0,
                clear_regs: 0,
                clear_rows: 0,
                n_init: 0,
            },
            code: Vec::new(),
            instrs: Vec::new(),
            entry_pc: 0,
            grid: [0; 3],
            block: [0; 3],
            params: Vec::new(),
            stacks: Stacks::new(config, 0),
            state: CoreState::Idle,
            setup_left: 0,
            rf: vec![[0; 32]; hw.rf_rows],
            shared: vec![0; hw.shared_bytes as usize],
            warps: vec![WarpState::default(); hw.warps],
            slots: vec![Slot::default(); hw.block_slots],
            stages: Default::default(),
            rr: 0,
            last: None,
            engine_key: None,
            global: GlobalUnit::new(&hw),
            memory: WishboneMemory::new(Vec::new(), &hw),
            launch: LaunchUnit::new(0),
            counters: Counters::new(gen.counter_bits),
            held: None,
            report_due: false,
            issued_instructions: 0,
            last_block: None,
            bus_checker: None,
            bus_violations: Vec::new(),
            tr: TraceRecord::default(),
            last_trace: None,
            gm_port: concord_uarch::wishbone::Signals::idle(),
            hw,
        })
    }

    /// A core whose launch registers hold `launch` (loaded directly, as if
    /// the host had written them) and whose `START` was just accepted: the
    /// next cycle is the first of SETUP. Fails when the launch cannot run.
    fn new(
        config: &CoreConfig,
        launch: &PipelineLaunch<'_>,
        gen: GenOptions,
    ) -> Result<Pipeline, String> {
        occupancy(config, launch)?;
        let mut core = Pipeline::idle(config, gen)?;
        let l = &launch.launch;
        if l.code.len() > core.hw.imem_words || l.params.len() > 16 {
            return Err("the program or the parameters do not fit the core".into());
        }
        let h = &mut core.host;
        h.imem[..l.code.len()].copy_from_slice(l.code);
        h.entry_pc = l.entry_pc;
        h.code_len = l.code.len() as u32;
        h.grid = l.grid;
        h.block = l.block;
        h.param_count = l.params.len() as u32;
        h.params[..l.params.len()].copy_from_slice(l.params);
        h.stack_bytes = l.stack_bytes;
        h.shared_bytes = launch.shared_bytes;
        h.clear_regs = launch.regs_used;
        h.clear_shared = launch.shared_bytes;
        core.start();
        Ok(core)
    }
}

/// Lanes of a mask, lowest first.
#[inline(always)]
pub(crate) fn lanes_of(mut m: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            l
        })
    })
}

/// A queue of init-slot indices (re-issues go to its back).
pub(crate) type InitQueue = VecDeque<u32>;
