//! The cycle-accurate model of the Concord core: a literal transcription of
//! `docs/microarchitecture.md` (v1: one instruction in flight in the whole
//! core). It produces the same trace-port values as the RTL on every cycle;
//! the co-simulation compares the two in lock-step.
//!
//! The model keeps the timing (the FSM, its cycles, the trace, the ports);
//! the SIMT rules it times (arbitration, advance and join, the effects of
//! control instructions, memory-mode selection, store merging, barriers,
//! special registers) are `concord_isa::simt`, the functional model's too,
//! and the data operations `concord_isa::semantics`.
//!
//! | item | what |
//! |---|---|
//! | [`CycleModel`] | the core: FSM, per-lane PCs/depths, arbiter, register files, shared memory, host interface, trace port |
//! | [`GlobalMemory`], [`GlobalRequest`] | the testbench memory behind the global port (§8), shared with the Verilator harness |
//! | [`run`] | load a launch through host writes, run it to `DONE`/`TRAP` or the watchdog (issued warp-instructions, as every model) |
//!
//! # One clock cycle
//!
//! [`CycleModel::step`] is one cycle, in the order the Verilator harness
//! drives the RTL:
//!
//! 1. read the core outputs, which depend on the registered state only: the
//!    trace head (`trace_state`, `_warp`, `_pc`, `_active`, `_exec`) and the
//!    global request (`gmem_req_*`, present in `G_REQ` only);
//! 2. `memory.cycle(request)`: the memory accepts and performs a present
//!    request now and returns the response inputs of **this** cycle (the
//!    response of the request accepted `global_latency` cycles ago);
//! 3. set the inputs (`gmem_resp_valid`/`_data`; `gmem_req_ready` is always
//!    1);
//! 4. the clock edge: the state's action and transition. The write-port
//!    fields of the trace (`trace_rf_*`, `trace_pred_*`) are this cycle's
//!    writes, which in `G_WAIT` depend on the response input of step 2.
//!
//! `step` returns the trace port as it was during that cycle. A request
//! accepted in cycle `t` (a `G_REQ` cycle) is answered in cycle `t + lat`,
//! the last of the `lat` `G_WAIT` cycles, which writes the destination
//! register and completes the access.
//!
//! # Host writes
//!
//! [`CycleModel::host_write`] is one complete host-write cycle of the RTL
//! harness (`host_we` = 1 for one cycle, including its clock edge): the write
//! has taken effect when it returns. Writes are accepted in `IDLE`, `DONE`
//! and `TRAP` (these cycles are not counted and not traced) and ignored in
//! any other state. So `host_write(START, _)` followed by `step` gives the
//! first `INIT` cycle, as in `crate::cosim`.
//!
//! # Choices where docs/microarchitecture.md is silent
//!
//! * A cycle that traps does nothing else: no register, predicate, memory
//!   or counter update except `cycles` (its state is not `TRAP` yet) and the
//!   trap registers. In particular a `DECODE` that traps on an invalid word
//!   does not count an issue (as the functional model).
//! * `trace_exec` is the `exec` register: during `DECODE` it still shows the
//!   previous issue's value, the new value appears from `READ2` on. `INIT`
//!   does not clear it, nor `cur`, `gpc` or `gmask` (only `gvalid`).
//! * `INIT` clears the predicates as flip-flops: no predicate write appears
//!   on the trace. Writes to `pt` (`pd` = 0) are no writes (`pred_we` = 0).
//! * A memory instruction with `exec == 0` completes with no lane served:
//!   every active lane moves to `pc + 1` and the warp advances.
//! * Replays: "lanes in `pending` keep `pc`" means their PC is set to `gpc`.
//! * PCs are 16 bits, enough for every PC a lane can hold
//!   (`concord_isa::checks::pc_bits`): a next PC at or beyond `code_len`
//!   traps in `EXEC` before any PC register is written, so a `jmp`/`ret`/
//!   `callr` target is compared with all 32 bits. The link value written
//!   by `call`/`callr` is `pc + 1` in 32 bits (65536 after a call at
//!   address 65535).
//! * `threads` is loaded (`bx * by * bz`) by the `start` write, with the
//!   counters and `block_id`. The trap registers are loaded when a trap is
//!   raised and keep their value until the next one (not cleared by
//!   `start`); fields a cause does not use read 0. The trap address and
//!   detail registers hold, for memory traps, the first faulting address
//!   and the access width in bytes.
//! * `gmem_req_addr` of an atomic is the byte address of the word
//!   (4-aligned), like the line address of reads and writes.
//! * Host writes to `imem[i]` with `i >= imem_words` and to unmapped
//!   addresses are ignored; a fetch at `gpc >= imem_words` (only possible
//!   if `code_len` exceeds the memory) reads 0.
//! * Registers and predicates beyond the configuration (`r >= registers`,
//!   `p >= predicates`), which launches reject, are unspecified: predicates
//!   read 0 and are not stored; registers use the row `warp * RP + r` (rows
//!   past the file read 0 and are not stored).

mod exec;
mod global;
mod host;
mod run;

use concord_isa::config::CoreConfig;
use concord_isa::func::{Trap, TrapCause};
use concord_isa::instr::{Instr, Op, PredSrc, Reg};
use concord_isa::mask;
use concord_isa::simt::{self, Group};
use concord_uarch::widths::{low_mask, PC_BITS};
use concord_uarch::{Counter, HwParams};

use crate::trace::{Counters, State, TracePort};

pub use global::{GlobalMemory, GlobalRequest};
pub(crate) use run::{diagnose, load};
pub use run::{run, OnCycle};

// Counter indices (`concord_uarch::Counter`, docs/microarchitecture.md §2).
const CYCLES: usize = Counter::Cycles.index();
const ISSUED: usize = Counter::Issued.index();
const ACTIVE_SLOTS: usize = Counter::ActiveLaneSlots.index();
const EXECUTED_SLOTS: usize = Counter::ExecutedLaneSlots.index();
const REPLAYS: usize = Counter::Replays.index();
const DIVERGENT: usize = Counter::DivergentBranches.index();
const CONS_TAKEN: usize = Counter::ConsensualTaken.index();
const CONS_NOT_TAKEN: usize = Counter::ConsensualNotTaken.index();
const BAR_ARRIVALS: usize = Counter::BarrierArrivals.index();
const BARRIERS: usize = Counter::Barriers.index();
const BLOCKS: usize = Counter::Blocks.index();

/// Per-warp state (§2).
#[derive(Clone, Debug)]
struct Warp {
    /// Per-lane PC (16 bits). While `gvalid`, the entries of the group's
    /// lanes are stale: their PC is `group.pc` (they are written whenever
    /// `gvalid` drops, as the doc's per-lane updates say;
    /// `concord_isa::simt::Group`).
    pc: [u32; 32],
    depth: [u32; 32],
    alive: u32,
    waiting: u32,
    /// `pred[p]` for `p` = 1..P-1 (lane masks); `pred[0]` is unused (`pt`).
    pred: [u32; 8],
    gvalid: bool,
    /// `gmask`, `gpc` of the doc (its depth is the join's). Kept, and shown
    /// on the trace, while `gvalid` is 0.
    group: Group,
}

impl Warp {
    fn new() -> Warp {
        Warp {
            pc: [0; 32],
            depth: [0; 32],
            alive: 0,
            waiting: 0,
            pred: [0; 8],
            gvalid: false,
            group: Group::default(),
        }
    }

    fn schedulable(&self) -> u32 {
        self.alive & !self.waiting
    }

    /// The PC of lane `l`, whether it is in the cached group or not.
    fn lane_pc(&self, l: usize) -> u32 {
        if self.gvalid {
            self.group.lane_pc(&self.pc, l)
        } else {
            self.pc[l]
        }
    }

    /// Writes the group's PC into its lanes' PC registers.
    fn materialize(&mut self) {
        if self.gvalid {
            self.group.write_back(&mut self.pc);
        }
    }
}

/// Decoded-instruction cache of one instruction-memory word.
#[derive(Clone, Copy, Debug)]
enum Slot {
    Unknown,
    Valid(Instr),
    Invalid,
}

/// The Concord core, cycle by cycle. See the module documentation for the
/// cycle ordering and the host-write convention.
#[derive(Clone, Debug)]
pub struct CycleModel {
    /// Everything fixed by the configuration (`concord_uarch::HwParams`).
    hw: HwParams,
    state: State,
    /// `INIT` cycle counter `i`.
    init_i: u32,

    // Host registers.
    imem: Vec<u32>,
    decoded: Vec<Slot>,
    entry_pc: u32,
    code_len: u32,
    grid: [u32; 3],
    block: [u32; 3],
    params: [u32; 16],
    param_count: u32,
    stack_bytes: u32,

    // Per-lane register files, row-major: `rf[warp * RP + reg][lane]`.
    rf: Vec<[u32; 32]>,
    warps: Vec<Warp>,
    /// Shared memory in address order (bank `a % B`, row `a / B` of word `a`
    /// is word `a` here).
    shared: Vec<u8>,

    // Block registers.
    block_id: [u32; 3],
    threads: u32,
    arrived: u32,
    exited: u32,

    // Scheduler.
    rr: usize,
    cur: usize,

    // In-flight instruction (`ir` decoded).
    instr: Instr,
    exec: u32,
    a: [u32; 32],
    b: [u32; 32],
    maddr: [u32; 32],
    pending: u32,
    served: u32,

    counters: [u64; Counters::COUNT],
    /// The trap registers: the last trap raised.
    trap: Option<Trap>,
}

impl CycleModel {
    /// A core in `IDLE` after reset. Fails with a message naming the config
    /// field for configs the hardware cannot build
    /// (`concord_uarch::HwParams::new`, docs §1).
    pub fn new(config: &CoreConfig) -> Result<CycleModel, String> {
        let hw = HwParams::new(config).map_err(|e| e.to_string())?;
        Ok(CycleModel {
            state: State::Idle,
            init_i: 0,
            imem: vec![0; hw.imem_words],
            decoded: vec![Slot::Unknown; hw.imem_words],
            entry_pc: 0,
            code_len: 0,
            grid: [0; 3],
            block: [0; 3],
            params: [0; 16],
            param_count: 0,
            stack_bytes: 0,
            rf: vec![[0; 32]; hw.rf_rows],
            warps: vec![Warp::new(); hw.warps],
            shared: vec![0; hw.shared_bytes as usize],
            block_id: [0; 3],
            threads: 0,
            arrived: 0,
            exited: 0,
            rr: 0,
            cur: 0,
            instr: Instr::new(Op::Nop),
            exec: 0,
            a: [0; 32],
            b: [0; 32],
            maddr: [0; 32],
            pending: 0,
            served: 0,
            counters: [0; Counters::COUNT],
            trap: None,
            hw,
        })
    }

    pub fn state(&self) -> State {
        self.state
    }

    pub fn counters(&self) -> Counters {
        Counters::from_array(self.counters)
    }

    /// The trap report while the core is in `TRAP`.
    pub fn trap(&self) -> Option<Trap> {
        if self.state == State::Trap {
            self.trap.clone()
        } else {
            None
        }
    }

    /// Register `reg` of lane `lane` of warp `warp` (the register-file row
    /// `warp * RP + reg`).
    pub fn register(&self, warp: usize, lane: usize, reg: usize) -> u32 {
        self.rf
            .get(self.hw.rf_row(warp, reg))
            .map_or(0, |row| row[lane])
    }

    /// Predicate `p` of lane `lane` of warp `warp`; `p0` (`pt`) reads true.
    pub fn predicate(&self, warp: usize, lane: usize, p: usize) -> bool {
        p == 0 || self.read_pred(&self.warps[warp], p) >> lane & 1 == 1
    }

    /// Shared memory, in byte-address order.
    pub fn shared(&self) -> Vec<u8> {
        self.shared.clone()
    }

    /// One clock cycle; returns the trace port during that cycle. See the
    /// module documentation for the order of outputs, memory and edge.
    pub fn step(&mut self, memory: &mut GlobalMemory) -> TracePort {
        let mut t = self.trace_head();
        let req = (self.state == State::GReq).then(|| self.request());
        let resp = memory.cycle(req.as_ref());
        self.edge(resp.as_ref(), &mut t);
        t
    }

    /// The registered part of the trace port; write fields zero.
    fn trace_head(&self) -> TracePort {
        let w = &self.warps[self.cur];
        TracePort {
            state: self.state,
            warp: self.cur as u32,
            pc: w.group.pc,
            active: w.group.mask,
            exec: self.exec,
            ..TracePort::default()
        }
    }

    /// Everything that happens in the current state, up to and including
    /// the clock edge.
    fn edge(&mut self, resp: Option<&[u32; 32]>, t: &mut TracePort) {
        let counting = self.state.is_running();
        match self.state {
            State::Idle | State::Done | State::Trap => {}
            State::Init => self.init_cycle(t),
            State::Sched => self.sched(),
            State::Arb => self.arb(),
            State::Fetch => self.fetch(),
            State::Decode => self.decode(),
            State::Read2 => {
                self.b = self.read_rf(self.instr.sources().1);
                self.state = State::Exec;
            }
            State::Exec => self.execute(t),
            State::MemArb => self.mem_arb(),
            State::ShAccess => self.sh_access(),
            State::ShData => self.sh_data(t),
            State::GReq => self.state = State::GWait,
            State::GWait => {
                if let Some(data) = resp {
                    self.g_response(data, t);
                }
            }
        }
        if counting {
            self.counters[CYCLES] += 1;
        }
    }

    /// Raises a trap: loads the trap registers and enters `TRAP`.
    fn raise(&mut self, cause: TrapCause, warp: usize, lanes: u32, pc: u32) {
        self.trap = Some(Trap {
            cause,
            block: self.block_id,
            warp: warp as u32,
            lanes,
            pc,
            issued: self.counters[ISSUED],
        });
        self.state = State::Trap;
    }

    /// Raises a trap on the issuing warp at `gpc`.
    fn raise_here(&mut self, cause: TrapCause, lanes: u32) {
        let pc = self.warps[self.cur].group.pc;
        self.raise(cause, self.cur, lanes, pc);
    }

    fn init_cycle(&mut self, t: &mut TracePort) {
        let i = self.init_i;
        if let Some(row) = self.rf.get_mut(i as usize) {
            *row = [0; 32];
            t.rf_we = self.hw.lane_mask;
            t.rf_addr = i;
        }
        if (i as usize) < self.hw.shared_rows {
            let row_bytes = 4 * self.hw.shared_banks;
            let start = i as usize * row_bytes;
            self.shared[start..start + row_bytes].fill(0);
        }
        if i == 0 {
            let lanes = self.hw.lanes as u64;
            let entry = self.entry_pc & low_mask(PC_BITS);
            for (w, warp) in self.warps.iter_mut().enumerate() {
                let first = w as u64 * lanes;
                let present = (self.threads as u64).saturating_sub(first).min(lanes);
                warp.pc = [entry; 32];
                warp.depth = [0; 32];
                warp.alive = mask::full(present as usize);
                warp.waiting = 0;
                warp.pred = [0; 8];
                warp.gvalid = false;
            }
            self.arrived = 0;
            self.exited = 0;
            self.rr = 0;
        }
        if i + 1 >= self.hw.init_cycles {
            self.state = State::Sched;
        } else {
            self.init_i += 1;
        }
    }

    fn sched(&mut self) {
        let n = self.hw.warps;
        let found = (0..n)
            .map(|k| (self.rr + k) % n)
            .find(|&w| self.warps[w].schedulable() != 0);
        if let Some(w) = found {
            self.cur = w;
            self.rr = (w + 1) % n;
            self.state = if self.warps[w].gvalid {
                State::Fetch
            } else {
                State::Arb
            };
            return;
        }
        if self.arrived != 0 {
            let w = self.warps.iter().position(|w| w.waiting != 0).unwrap_or(0);
            let waiting = self.warps[w].waiting;
            let pc = self.warps[w].pc[waiting.trailing_zeros().min(31) as usize];
            let cause = TrapCause::BarrierNeverCompletes {
                waiting: self.arrived,
                exited: self.exited,
                threads: self.threads,
            };
            self.raise(cause, w, waiting, pc);
            return;
        }
        self.counters[BLOCKS] += 1;
        let [x, y, z] = self.block_id;
        let [gx, gy, gz] = self.grid;
        let next = if x + 1 < gx {
            Some([x + 1, y, z])
        } else if y + 1 < gy {
            Some([0, y + 1, z])
        } else if z + 1 < gz {
            Some([0, 0, z + 1])
        } else {
            None
        };
        match next {
            Some(id) => {
                self.block_id = id;
                self.init_i = 0;
                self.state = State::Init;
            }
            None => self.state = State::Done,
        }
    }

    fn arb(&mut self) {
        let max_depth = self.hw.max_call_depth;
        let policy = self.hw.arbitration;
        let w = &mut self.warps[self.cur];
        w.group = simt::branch_group(policy, max_depth, w.schedulable(), &w.pc, &w.depth);
        w.gvalid = true;
        self.state = State::Fetch;
    }

    fn fetch(&mut self) {
        let w = &self.warps[self.cur];
        if w.group.pc >= self.code_len {
            let len = self.code_len;
            let lanes = w.group.mask;
            self.raise_here(TrapCause::PcOutOfRange { len }, lanes);
        } else {
            self.state = State::Decode;
        }
    }

    /// The issue cycle.
    fn decode(&mut self) {
        let w = &self.warps[self.cur];
        let pc = w.group.pc as usize;
        let word = self.imem.get(pc).copied().unwrap_or(0);
        let slot = match self.decoded.get(pc) {
            Some(Slot::Unknown) | None => {
                let slot = match concord_isa::decode(word) {
                    Ok(i) => Slot::Valid(i),
                    Err(_) => Slot::Invalid,
                };
                if let Some(s) = self.decoded.get_mut(pc) {
                    *s = slot;
                }
                slot
            }
            Some(s) => *s,
        };
        let Slot::Valid(instr) = slot else {
            let reason = concord_isa::decode(word)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            let lanes = w.group.mask;
            self.raise_here(TrapCause::InvalidInstruction { word, reason }, lanes);
            return;
        };
        let active = w.group.mask;
        let exec = active & self.pred_src(w, instr.guard);
        self.instr = instr;
        self.exec = exec;
        self.counters[ISSUED] += 1;
        self.counters[ACTIVE_SLOTS] += active.count_ones() as u64;
        self.counters[EXECUTED_SLOTS] += exec.count_ones() as u64;
        self.a = self.read_rf(instr.sources().0);
        self.state = State::Read2;
    }

    /// A register read of the issuing warp (a missing source reads `r0`).
    fn read_rf(&self, reg: Option<Reg>) -> [u32; 32] {
        let r = reg.map_or(0, Reg::index);
        self.rf
            .get(self.hw.rf_row(self.cur, r))
            .copied()
            .unwrap_or([0; 32])
    }

    /// Predicate register `p` of a warp as a lane mask (`pt` all ones).
    fn read_pred(&self, w: &Warp, p: usize) -> u32 {
        if p == 0 {
            u32::MAX
        } else if p < self.hw.predicates {
            w.pred[p]
        } else {
            0
        }
    }

    fn pred_src(&self, w: &Warp, p: PredSrc) -> u32 {
        let m = self.read_pred(w, p.pred.index());
        if p.negate {
            !m
        } else {
            m
        }
    }
}
