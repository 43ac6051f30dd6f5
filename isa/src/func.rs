//! The functional model: executes a launch under the architectural rules of
//! `docs/isa.md`, lane by lane, and is the oracle for final memory and
//! registers.
//!
//! Where it sits: the assembler or compiler produces a [`Kernel`]'s code, a
//! launch description ([`crate::launch`]) produces the memory image and
//! parameters, and [`run`] executes the grid. The cycle model and the RTL
//! (in `testbench/`, `hdl/`) must end in the same final state.
//!
//! Timing is not modelled: warps of a block take turns one warp-instruction
//! at a time (round-robin over warps with a schedulable lane), which is
//! enough to make spin locks across warps progress and keeps every run
//! deterministic.
//!
//! Speed: a warp's registers are stored lane-major (`[u32; 32]` per
//! register) and data operations are computed for all 32 lanes then merged
//! under the executing mask. The loops have no data-dependent branches, so
//! the compiler turns them into host SIMD (Kerr et al. §4: running the lanes
//! of a warp as host vectors).
//!
//! [`Kernel`]: crate::container::Kernel

// Lane loops index several per-lane arrays and a bit mask with the same lane
// number; iterator chains would hide that and defeat the vectorizer's view.
#![allow(clippy::needless_range_loop)]

use std::fmt;
use std::ops::ControlFlow;

use crate::checks::{self, Stacks};
use crate::config::{Arbitration, CoreConfig};
use crate::encoding::decode;
use crate::instr::*;
use crate::mask::lane_list;
use crate::semantics;
use crate::simt::{self, BlockEvent, ControlIssue, Group, ThreadCtx};
use crate::watchdog::{
    self, Checkpoints, IssueLog, Observation, WarpView, WindowEnd, WriteLog, DEFAULT_WATCHDOG,
    SPAN, WINDOW,
};

const L: usize = MAX_LANES;

/// What to run: the program and the grid.
#[derive(Clone, Debug)]
pub struct Launch<'a> {
    /// Instruction memory image.
    pub code: &'a [u32],
    pub entry_pc: u32,
    /// Blocks in x, y, z.
    pub grid: [u32; 3],
    /// Threads per block in x, y, z.
    pub block: [u32; 3],
    /// Kernel parameter words (`ldparam`).
    pub params: &'a [u32],
    /// Per-thread stack bytes (`Kernel::stack_bytes`; 0: no stack). Global
    /// accesses are checked against the stacks ([`crate::checks::Stacks`]).
    pub stack_bytes: u32,
}

/// Limits of one run.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Issued warp-instructions after which the run stops with a watchdog
    /// trap (the unit of every model: [`crate::watchdog`]).
    pub watchdog: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            watchdog: DEFAULT_WATCHDOG,
        }
    }
}

/// One issue, as reported to an [`Observer`] (the `--trace` output).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Issue {
    /// 0-based index of this issue in the launch.
    pub index: u64,
    pub block: [u32; 3],
    pub warp: u32,
    pub pc: u32,
    /// Active lanes (selected by the arbiter).
    pub active: u32,
    /// Active lanes whose guard held.
    pub executing: u32,
}

/// Read access to a block's architectural state when it ends.
pub struct BlockView<'a> {
    lanes: usize,
    warps: &'a [Warp],
    shared: &'a [u8],
}

impl BlockView<'_> {
    /// Register `reg` of the thread with linear id `tid` in the block.
    pub fn reg(&self, tid: usize, reg: Reg) -> u32 {
        self.warps[tid / self.lanes].regs[reg.index()][tid % self.lanes]
    }
    pub fn pred(&self, tid: usize, pred: Pred) -> bool {
        self.warps[tid / self.lanes].preds[pred.index()] >> (tid % self.lanes) & 1 == 1
    }
    pub fn shared(&self) -> &[u8] {
        self.shared
    }
}

/// Receives events during a run. Every method has an empty default.
pub trait Observer {
    /// Called at every issue, before the instruction executes. `Break` ends
    /// the run after this issue: it executes, and unless the launch ends
    /// there anyway (it was its last, or it traps, or a barrier can then
    /// never complete) [`run`] returns [`RunError::Stopped`] instead of
    /// issuing again. Not called in the watchdog's diagnosis window.
    fn issue(&mut self, _issue: &Issue) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
    fn block_end(&mut self, _block: [u32; 3], _state: &BlockView<'_>) {}
}

/// Why a run did not complete its launch: a trap (of the kernel or the
/// watchdog), or a per-step hook that asked to stop. Every model returns
/// it: `S` is its statistics ([`Stats`] here, the timed models' counters
/// in `concord-testbench`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError<S = Stats> {
    Trap(Trap),
    /// A hook (an [`Observer`], a timed model's per-cycle callback) broke
    /// and the launch had not ended: what the run did up to there. Memory
    /// holds the state at that point.
    Stopped(S),
}

impl<S> RunError<S> {
    /// The trap, for a run no hook could stop.
    ///
    /// # Panics
    /// If the run was stopped.
    #[track_caller]
    pub fn unwrap_trap(self) -> Trap {
        match self {
            RunError::Trap(t) => t,
            RunError::Stopped(_) => panic!("the run was stopped by its hook, it did not trap"),
        }
    }
}

impl<S> From<Trap> for RunError<S> {
    fn from(trap: Trap) -> Self {
        RunError::Trap(trap)
    }
}

impl<S> fmt::Display for RunError<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Trap(t) => t.fmt(f),
            RunError::Stopped(_) => {
                f.write_str("the run was stopped by its hook before the launch ended")
            }
        }
    }
}

impl<S: fmt::Debug> std::error::Error for RunError<S> {}

/// Statistics of a completed run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    pub lanes: u32,
    pub blocks: u64,
    pub threads: u64,
    /// Issued warp-instructions.
    pub issued: u64,
    /// Sum over issues of the number of active lanes.
    pub active_lane_slots: u64,
    /// Sum over issues of the lanes that executed (guard true).
    pub executed_lane_slots: u64,
    /// Per-lane control instructions whose active lanes left for different PCs.
    pub divergent_branches: u64,
    pub consensual_taken: u64,
    pub consensual_not_taken: u64,
    /// Threads arriving at barriers.
    pub barrier_arrivals: u64,
    /// Barrier releases.
    pub barriers: u64,
}

impl Stats {
    /// Active lane-slots over issued lane-slots (1.0 = no divergence).
    pub fn simd_efficiency(&self) -> f64 {
        if self.issued == 0 {
            0.0
        } else {
            self.active_lane_slots as f64 / (self.issued as f64 * self.lanes as f64)
        }
    }
}

/// Why a launch stopped early. The core reports these on its host
/// interface as cause codes (`concord_uarch::TrapCode`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TrapCause {
    AddressOutOfRange {
        space: Space,
        addr: u32,
        bytes: u32,
        size: u32,
    },
    Misaligned {
        space: Space,
        addr: u32,
        bytes: u32,
    },
    InvalidInstruction {
        word: u32,
        reason: String,
    },
    /// The arbiter selected lanes whose PC is at or beyond the end of the
    /// program. Only an entry point outside the program gets there: every
    /// other change of a PC is checked where it is made
    /// ([`TrapCause::NextPcOutOfRange`]).
    PcOutOfRange {
        len: u32,
    },
    CallDepthOverflow {
        max: u32,
    },
    ReturnAtDepthZero,
    BarrierNeverCompletes {
        waiting: u32,
        exited: u32,
        threads: u32,
    },
    MissingParam {
        index: u8,
        supplied: u32,
    },
    /// A global access of a lane touches the per-thread stacks (or the guard
    /// zone below them) outside the lane's own stack `[lo, hi)`
    /// ([`crate::checks::Stacks`]).
    StackOverflow {
        addr: u32,
        bytes: u32,
        /// The lane's thread in its block (`%tid`), the first faulting lane's.
        thread: u32,
        lo: u32,
        hi: u32,
    },
    /// An instruction would send a lane to a PC at or beyond the end of the
    /// program (`target`: the first such lane's next PC, all 32 bits).
    NextPcOutOfRange {
        target: u32,
        len: u32,
    },
    /// The global memory answered a bus beat with an error (Wishbone
    /// `ERR`): the timed models and the RTL only, never the functional
    /// model, whose memory cannot fail. `addr` is the beat's byte address.
    BusError {
        addr: u32,
    },
    Watchdog {
        limit: u64,
        diagnosis: String,
    },
}

/// A trap report: where and why. The lanes are a mask within the warp.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trap {
    pub cause: TrapCause,
    pub block: [u32; 3],
    pub warp: u32,
    pub lanes: u32,
    pub pc: u32,
    /// Warp-instructions issued before the trap.
    pub issued: u64,
}

impl fmt::Display for TrapCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrapCause::AddressOutOfRange { space, addr, bytes, size } => write!(
                f,
                "{} access of {bytes} byte(s) at address {addr:#010x} is outside {} memory ({size} bytes)",
                space.name(),
                space.name()
            ),
            TrapCause::Misaligned { space, addr, bytes } => write!(
                f,
                "{} access of {bytes} bytes at address {addr:#010x} is not aligned to {bytes}",
                space.name()
            ),
            TrapCause::InvalidInstruction { word, reason } => {
                write!(f, "invalid instruction {word:#010x}: {reason}")
            }
            TrapCause::PcOutOfRange { len } => {
                write!(f, "PC outside the program ({len} words)")
            }
            TrapCause::CallDepthOverflow { max } => {
                write!(f, "call depth overflow (call_depth_bits allows depth {max})")
            }
            TrapCause::ReturnAtDepthZero => write!(f, "`ret` at call depth 0"),
            TrapCause::BusError { addr } => {
                write!(f, "global bus error on the beat at address {addr:#010x}")
            }
            TrapCause::BarrierNeverCompletes { waiting, exited, threads } => write!(
                f,
                "barrier can never complete: {waiting} of {threads} threads wait and {exited} have exited"
            ),
            TrapCause::MissingParam { index, supplied } => write!(
                f,
                "`ldparam` reads parameter word {index} but the launch supplied {supplied}"
            ),
            TrapCause::StackOverflow { addr, bytes, thread, lo, hi } => write!(
                f,
                "stack overflow: global access of {bytes} byte(s) at address {addr:#010x} is outside thread {thread}'s stack {lo:#010x}..{hi:#010x}"
            ),
            TrapCause::NextPcOutOfRange { target, len } => write!(
                f,
                "next PC {target} ({target:#x}) is outside the program ({len} words)"
            ),
            TrapCause::Watchdog { limit, diagnosis } => {
                write!(f, "watchdog: {limit} warp-instructions issued; {diagnosis}")
            }
        }
    }
}

impl fmt::Display for Trap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, z] = self.block;
        write!(
            f,
            "trap in block ({x},{y},{z}) warp {} lane(s) {} at pc {}: {}",
            self.warp,
            if self.lanes == 0 {
                "-".to_string()
            } else {
                lane_list(self.lanes)
            },
            self.pc,
            self.cause
        )
    }
}

impl std::error::Error for Trap {}

impl Trap {
    /// Same cause, block, warp, lanes and PC. Models count issues
    /// differently (the timed models count replays), so `issued` is left out.
    pub fn same_report(&self, other: &Trap) -> bool {
        self.cause == other.cause
            && self.block == other.block
            && self.warp == other.warp
            && self.lanes == other.lanes
            && self.pc == other.pc
    }
}

/// Executes a whole launch. `global` is the global memory image, updated
/// in place. An `observer` whose [`Observer::issue`] breaks ends the run
/// with [`RunError::Stopped`] (see there).
pub fn run(
    config: &CoreConfig,
    launch: &Launch<'_>,
    global: &mut [u8],
    options: Options,
    observer: Option<&mut dyn Observer>,
) -> Result<Stats, RunError> {
    let window = config.shared_memory_bytes;
    run_with_shared_window(config, launch, global, options, observer, window)
}

/// [`run`] with each block's shared space limited to `shared_window`
/// bytes (at most `shared_memory_bytes`): the window of a core that keeps
/// several blocks resident (docs/microarchitecture.md §18, amendment 2;
/// the caller computes it with `concord_uarch::Occupancy`, which this crate
/// cannot depend on). Shared accesses at or past the window trap as out of
/// range. This is the only place the functional model's shared limit is
/// decided.
pub fn run_with_shared_window(
    config: &CoreConfig,
    launch: &Launch<'_>,
    global: &mut [u8],
    options: Options,
    mut observer: Option<&mut dyn Observer>,
    shared_window: u32,
) -> Result<Stats, RunError> {
    let shared_window = shared_window.min(config.shared_memory_bytes);
    let program = Program::decode(launch.code);
    let mut stats = Stats {
        lanes: config.lanes,
        ..Stats::default()
    };
    let mut ctx = Ctx {
        config,
        program: &program,
        params: launch.params,
        global,
        stats: &mut stats,
        block_id: [0; 3],
        block_dim: launch.block,
        grid_dim: launch.grid,
        watchdog: options.watchdog,
        observer: observer.take(),
        stopped: false,
        stacks: Stacks::new(config, launch.stack_bytes),
        code_len: launch.code.len() as u32,
    };
    let [gx, gy, gz] = launch.grid;
    for bz in 0..gz {
        for by in 0..gy {
            for bx in 0..gx {
                ctx.block_id = [bx, by, bz];
                let mut block = Block::new(config, launch, shared_window);
                if block.run(&mut ctx)?.is_break() {
                    return Err(RunError::Stopped(*ctx.stats));
                }
                ctx.stats.blocks += 1;
                ctx.stats.threads += block.threads as u64;
                if let Some(obs) = ctx.observer.as_deref_mut() {
                    let view = BlockView {
                        lanes: config.lanes as usize,
                        warps: &block.warps,
                        shared: &block.shared,
                    };
                    obs.block_end(ctx.block_id, &view);
                }
            }
        }
    }
    Ok(stats)
}

/// The code, decoded once.
struct Program {
    words: Vec<u32>,
    instrs: Vec<Result<Instr, String>>,
}

impl Program {
    fn decode(code: &[u32]) -> Program {
        Program {
            words: code.to_vec(),
            instrs: code
                .iter()
                .map(|w| decode(*w).map_err(|e| e.to_string()))
                .collect(),
        }
    }
}

struct Ctx<'a, 'o> {
    config: &'a CoreConfig,
    program: &'a Program,
    params: &'a [u32],
    global: &'a mut [u8],
    stats: &'a mut Stats,
    block_id: [u32; 3],
    block_dim: [u32; 3],
    grid_dim: [u32; 3],
    watchdog: u64,
    observer: Option<&'o mut dyn Observer>,
    /// The observer broke: the run ends before the next issue.
    stopped: bool,
    stacks: Stacks,
    /// The program's length in words: no lane's next PC may reach it.
    code_len: u32,
}

/// One warp's architectural state.
#[derive(Clone)]
struct Warp {
    regs: Vec<[u32; L]>,
    /// One lane mask per predicate register; `preds[0]` (`pt`) is all ones.
    preds: [u32; MAX_PREDS],
    pc: [u32; L],
    depth: [u32; L],
    /// Lanes that hold a thread and have not exited.
    alive: u32,
    /// Lanes waiting at a barrier.
    waiting: u32,
    /// Cached arbitration result, valid until a control instruction: the
    /// `pc` entries of its lanes are stale while it is valid (they advance
    /// together in `group.pc`; [`simt::Group`]).
    group: Group,
    group_valid: bool,
    /// `%tid.x`, `%tid.y`, `%tid.z`, `%tid` of each lane.
    tid: [[u32; L]; 4],
    warp_id: u32,
}

impl Warp {
    fn schedulable(&self) -> u32 {
        self.alive & !self.waiting
    }

    /// Every lane's PC, the cached group's included.
    fn lane_pcs(&self) -> [u32; L] {
        if self.group_valid {
            self.group.lane_pcs(&self.pc)
        } else {
            self.pc
        }
    }

    /// Writes the group's common PC back into the per-lane PCs.
    fn materialize(&mut self) {
        if self.group_valid {
            self.group.write_back(&mut self.pc);
        }
        self.group_valid = false;
    }

    /// Branch-mode arbitration over the schedulable lanes.
    fn arbitrate(&mut self, policy: Arbitration, max_depth: u32) {
        let schedulable = self.schedulable();
        self.group = simt::branch_group(policy, max_depth, schedulable, &self.pc, &self.depth);
        self.group_valid = self.group.mask != 0;
    }

    /// After a non-control instruction the group moves to `pc + 1`.
    fn advance(&mut self, policy: Arbitration) {
        let schedulable = self.schedulable();
        self.group = simt::advance(&self.group, &self.pc, &self.depth, schedulable, policy);
    }

    #[inline(always)]
    fn pred_mask(&self, p: PredSrc) -> u32 {
        let m = self.preds[p.pred.index()];
        if p.negate {
            !m
        } else {
            m
        }
    }

    #[inline(always)]
    fn write_pred(&mut self, pd: Pred, exec: u32, value: u32) {
        if !pd.is_true() {
            let old = self.preds[pd.index()];
            self.preds[pd.index()] = (old & !exec) | (value & exec);
        }
    }

    /// `rd[l] = f(l)` for the executing lanes, computed for all lanes.
    #[inline(always)]
    fn write_reg(&mut self, rd: Reg, exec: u32, f: impl Fn(usize) -> u32) {
        let dst = &mut self.regs[rd.index()];
        for (l, d) in dst.iter_mut().enumerate() {
            let v = f(l);
            if exec & (1 << l) != 0 {
                *d = v;
            }
        }
    }
}

/// The state the watchdog compares directly between two points of its
/// window: everything but registers and memory, which it compares through a
/// [`WriteLog`]. Two points with equal state continue identically forever.
#[derive(PartialEq, Eq)]
struct Control {
    next: usize,
    waiting: u32,
    warps: Vec<WarpControl>,
}

#[derive(PartialEq, Eq)]
struct WarpControl {
    pc: [u32; L],
    depth: [u32; L],
    alive: u32,
    waiting: u32,
    preds: [u32; MAX_PREDS],
    /// The cached group (0 when none is cached).
    group: u32,
}

struct Block {
    warps: Vec<Warp>,
    shared: Vec<u8>,
    threads: u32,
    waiting: u32,
    exited: u32,
    policy: Arbitration,
    max_depth: u32,
}

impl Block {
    fn new(config: &CoreConfig, launch: &Launch<'_>, shared_window: u32) -> Block {
        let lanes = config.lanes as usize;
        let [nx, ny, nz] = launch.block;
        let threads = nx * ny * nz;
        let nwarps = (threads as usize).div_ceil(lanes);
        let mut warps = Vec::with_capacity(nwarps);
        for w in 0..nwarps {
            let mut warp = Warp {
                regs: vec![[0; L]; MAX_REGS],
                preds: [0; MAX_PREDS],
                pc: [launch.entry_pc; L],
                depth: [0; L],
                alive: 0,
                waiting: 0,
                group: Group::default(),
                group_valid: false,
                tid: [[0; L]; 4],
                warp_id: w as u32,
            };
            warp.preds[0] = u32::MAX;
            for l in 0..lanes {
                let t = (w * lanes + l) as u32;
                if t < threads {
                    warp.alive |= 1 << l;
                    let [x, y, z] = simt::thread_index(t, launch.block);
                    warp.tid[0][l] = x;
                    warp.tid[1][l] = y;
                    warp.tid[2][l] = z;
                    warp.tid[3][l] = t;
                }
            }
            warps.push(warp);
        }
        Block {
            warps,
            shared: vec![0; shared_window as usize],
            threads,
            waiting: 0,
            exited: 0,
            policy: config.arbitration,
            max_depth: config.max_call_depth(),
        }
    }

    /// Runs the block to its end; `Break` when the observer stopped the
    /// run first.
    fn run(&mut self, ctx: &mut Ctx<'_, '_>) -> Result<ControlFlow<()>, Trap> {
        let n = self.warps.len();
        let mut next = 0;
        loop {
            // Round-robin: the first warp at or after `next` with a schedulable lane.
            let mut chosen = None;
            for i in 0..n {
                let w = (next + i) % n;
                if self.warps[w].schedulable() != 0 {
                    chosen = Some(w);
                    break;
                }
            }
            let Some(w) = chosen else {
                if self.waiting == 0 {
                    return Ok(ControlFlow::Continue(()));
                }
                let first_waiting = self.warps.iter().position(|w| w.waiting != 0).unwrap_or(0);
                return Err(self.trap_here(
                    ctx,
                    first_waiting,
                    TrapCause::BarrierNeverCompletes {
                        waiting: self.waiting,
                        exited: self.exited,
                        threads: self.threads,
                    },
                ));
            };
            // Before the watchdog: its diagnosis would issue on.
            if ctx.stopped {
                return Ok(ControlFlow::Break(()));
            }
            if ctx.stats.issued >= ctx.watchdog {
                return Err(self.watchdog(ctx, w));
            }
            next = (w + 1) % n;
            self.step(ctx, w)?;
        }
    }

    fn trap_here(&self, ctx: &Ctx<'_, '_>, w: usize, cause: TrapCause) -> Trap {
        let warp = &self.warps[w];
        let lanes = if let TrapCause::BarrierNeverCompletes { .. } = cause {
            warp.waiting
        } else {
            warp.group.mask
        };
        Trap {
            cause,
            block: ctx.block_id,
            warp: w as u32,
            lanes,
            pc: if warp.group_valid {
                warp.group.pc
            } else {
                warp.pc[lanes.trailing_zeros().min(31) as usize]
            },
            issued: ctx.stats.issued,
        }
    }

    /// A trap at the issuing instruction of warp `w` naming `lanes`.
    fn trap_lanes(&self, ctx: &Ctx<'_, '_>, w: usize, (lanes, cause): (u32, TrapCause)) -> Trap {
        let mut t = self.trap_here(ctx, w, cause);
        t.lanes = lanes;
        t
    }

    /// The watchdog fired with warp `next` about to issue: run the window
    /// of [`crate::watchdog`], looking for a repeated state, and report.
    fn watchdog(&mut self, ctx: &mut Ctx<'_, '_>, mut next: usize) -> Trap {
        let limit = ctx.stats.issued;
        let n = self.warps.len();
        ctx.watchdog = u64::MAX;
        let saved_observer = ctx.observer.take();
        let at_watchdog = self.views();
        let mut window = IssueLog::new(n);
        let mut turn = IssueLog::new(n);
        let mut writes = WriteLog::default();
        let mut checkpoints = Checkpoints::default();
        let mut checkpoint = self.control_state(next);
        let mut clock = false;
        let mut issued = 0;
        let end = loop {
            if issued >= WINDOW {
                break WindowEnd::Exhausted { issued, clock };
            }
            let Some(w) = (0..n)
                .map(|i| (next + i) % n)
                .find(|&w| self.warps[w].schedulable() != 0)
            else {
                if self.waiting == 0 {
                    break WindowEnd::Finished { after: issued };
                }
                let first_waiting = self.warps.iter().position(|w| w.waiting != 0).unwrap_or(0);
                let cause = TrapCause::BarrierNeverCompletes {
                    waiting: self.waiting,
                    exited: self.exited,
                    threads: self.threads,
                };
                let trap = self.trap_here(ctx, first_waiting, cause).to_string();
                break WindowEnd::Trapped {
                    after: issued,
                    trap,
                };
            };
            next = (w + 1) % n;
            let warp = &mut self.warps[w];
            if !warp.group_valid {
                warp.arbitrate(self.policy, self.max_depth);
            }
            let (group, pc) = (warp.group.mask, warp.group.pc);
            if let Some(Ok(instr)) = ctx.program.instrs.get(pc as usize) {
                clock |= self.log_writes(ctx, w, instr, &mut writes);
            }
            if issued < SPAN {
                window.record(w, group, pc);
            }
            turn.record(w, group, pc);
            if let Err(t) = self.step(ctx, w) {
                break WindowEnd::Trapped {
                    after: issued,
                    trap: t.to_string(),
                };
            }
            issued += 1;
            if clock {
                continue;
            }
            if self.control_state(next) == checkpoint
                && writes.unchanged(
                    |w, r| self.warps[w].regs[r],
                    |space, a| match space {
                        Space::Shared => read_word(&self.shared, a),
                        Space::Global => read_word(ctx.global, a),
                    },
                )
            {
                break WindowEnd::Repeats;
            }
            if checkpoints.advance() {
                checkpoint = self.control_state(next);
                writes.clear();
                turn = IssueLog::new(n);
            }
        };
        ctx.observer = saved_observer;
        let (warps, issues) = if end == WindowEnd::Repeats {
            (self.views(), turn)
        } else {
            (at_watchdog, window)
        };
        watchdog::report(
            limit,
            &Observation {
                block: ctx.block_id,
                warps,
                issues,
                end,
            },
        )
    }

    /// Each warp's lanes as the watchdog report shows them.
    fn views(&self) -> Vec<WarpView> {
        self.warps
            .iter()
            .map(|w| WarpView {
                alive: w.alive,
                waiting: w.waiting,
                pc: w.lane_pcs(),
            })
            .collect()
    }

    /// The part of the block's state the watchdog compares directly (see
    /// [`Control`]); `next` is the round-robin position.
    fn control_state(&self, next: usize) -> Control {
        Control {
            next,
            waiting: self.waiting,
            warps: self
                .warps
                .iter()
                .map(|w| WarpControl {
                    pc: w.lane_pcs(),
                    depth: w.depth,
                    alive: w.alive,
                    waiting: w.waiting,
                    preds: w.preds,
                    group: if w.group_valid { w.group.mask } else { 0 },
                })
                .collect(),
        }
    }

    /// Logs the registers and memory words the issue of `instr` by warp `w`
    /// may write, before it writes them. Returns whether it reads the clock.
    fn log_writes(&self, ctx: &Ctx<'_, '_>, w: usize, instr: &Instr, log: &mut WriteLog) -> bool {
        let warp = &self.warps[w];
        let exec = warp.group.mask & warp.pred_mask(instr.guard);
        if exec == 0 {
            return false;
        }
        if let Some(rd) = instr.dest_reg() {
            log.reg(w, rd.index(), || warp.regs[rd.index()]);
        }
        let (space, base, offset) = match instr.op {
            Op::Store {
                space,
                base,
                offset,
                ..
            } => (space, base, offset),
            Op::Atom { space, addr, .. } => (space, addr, 0),
            Op::S2R {
                sreg: SpecialReg::ClockLo | SpecialReg::ClockHi,
                ..
            } => return true,
            _ => return false,
        };
        let mem: &[u8] = match space {
            Space::Shared => &self.shared,
            Space::Global => ctx.global,
        };
        let addrs = lane_addresses(&warp.regs[base.index()], offset);
        for l in 0..L {
            if exec >> l & 1 == 1 {
                log.word(space, addrs[l], |a| read_word(mem, a));
            }
        }
        false
    }

    /// Issues one instruction of warp `w`.
    fn step(&mut self, ctx: &mut Ctx<'_, '_>, w: usize) -> Result<(), Trap> {
        let policy = self.policy;
        let max_depth = self.max_depth;
        let nwarps = self.warps.len() as u32;
        {
            let warp = &mut self.warps[w];
            if !warp.group_valid {
                warp.arbitrate(policy, max_depth);
            }
        }
        let pc = self.warps[w].group.pc;
        let instr = match ctx.program.instrs.get(pc as usize) {
            Some(Ok(i)) => *i,
            Some(Err(reason)) => {
                let word = ctx.program.words[pc as usize];
                return Err(self.trap_here(
                    ctx,
                    w,
                    TrapCause::InvalidInstruction {
                        word,
                        reason: reason.clone(),
                    },
                ));
            }
            None => {
                let len = ctx.program.words.len() as u32;
                return Err(self.trap_here(ctx, w, TrapCause::PcOutOfRange { len }));
            }
        };
        let warp = &mut self.warps[w];
        let active = warp.group.mask;
        let exec = active & warp.pred_mask(instr.guard);
        let issue_index = ctx.stats.issued;
        ctx.stats.issued += 1;
        ctx.stats.active_lane_slots += active.count_ones() as u64;
        ctx.stats.executed_lane_slots += exec.count_ones() as u64;
        if let Some(obs) = ctx.observer.as_deref_mut() {
            let flow = obs.issue(&Issue {
                index: issue_index,
                block: ctx.block_id,
                warp: w as u32,
                pc,
                active,
                executing: exec,
            });
            ctx.stopped |= flow.is_break();
        }

        if instr.is_control() {
            // Every active lane gets its own next PC, then the warp re-arbitrates.
            return self.control(ctx, w, instr, exec);
        }
        // Every active lane continues at pc + 1. That check comes after the
        // instruction's own (a missing parameter, a memory access), so the
        // instructions that have one make it themselves (`checks`).
        let falls_off = checks::check_fall_through(ctx.code_len, pc, active).err();
        let own_checks = matches!(
            instr.op,
            Op::LdParam { .. } | Op::Load { .. } | Op::Store { .. } | Op::Atom { .. }
        );
        if let (Some(fault), false) = (&falls_off, own_checks) {
            return Err(self.trap_lanes(ctx, w, fault.clone()));
        }
        let first_thread = w as u32 * ctx.config.lanes;
        match instr.op {
            Op::Alu { op, rd, rs1, rs2 } => {
                let (a, b) = (warp.regs[rs1.index()], warp.regs[rs2.index()]);
                warp.write_reg(rd, exec, |l| semantics::alu(op, a[l], b[l]));
            }
            Op::AluImm { op, rd, rs1, imm } => {
                let a = warp.regs[rs1.index()];
                warp.write_reg(rd, exec, |l| semantics::alu(op, a[l], imm as u32));
            }
            Op::MovI { rd, imm } => warp.write_reg(rd, exec, |_| imm as u32),
            Op::MovHi { rd, imm } => {
                let a = warp.regs[rd.index()];
                warp.write_reg(rd, exec, |l| (imm as u32) << 16 | (a[l] & 0xffff));
            }
            Op::SetP { cmp, pd, rs1, rs2 } => {
                let (a, b) = (&warp.regs[rs1.index()], &warp.regs[rs2.index()]);
                let mut m = 0u32;
                for l in 0..L {
                    m |= (semantics::compare(cmp, a[l], b[l]) as u32) << l;
                }
                warp.write_pred(pd, exec, m);
            }
            Op::SetPImm { cmp, pd, rs1, imm } => {
                let a = &warp.regs[rs1.index()];
                let mut m = 0u32;
                for (l, v) in a.iter().enumerate() {
                    m |= (semantics::compare(cmp, *v, imm as u32) as u32) << l;
                }
                warp.write_pred(pd, exec, m);
            }
            Op::PLogic { op, pd, a, b } => {
                let (ma, mb) = (warp.pred_mask(a), warp.pred_mask(b));
                let m = match op {
                    PredOp::And => ma & mb,
                    PredOp::Or => ma | mb,
                    PredOp::Xor => ma ^ mb,
                };
                warp.write_pred(pd, exec, m);
            }
            Op::Sel { rd, p, rs1, rs2 } => {
                let pm = warp.pred_mask(p);
                let (a, b) = (warp.regs[rs1.index()], warp.regs[rs2.index()]);
                warp.write_reg(rd, exec, |l| if pm & (1 << l) != 0 { a[l] } else { b[l] });
            }
            Op::S2R { rd, sreg } => {
                let tid = warp.tid;
                let uniform = ThreadCtx {
                    warp: warp.warp_id,
                    nwarps,
                    warp_size: ctx.config.lanes,
                    block_dim: ctx.block_dim,
                    block_id: ctx.block_id,
                    grid_dim: ctx.grid_dim,
                    clock: issue_index,
                    ..ThreadCtx::default()
                };
                warp.write_reg(rd, exec, |l| {
                    let lane = ThreadCtx {
                        tid: [tid[0][l], tid[1][l], tid[2][l]],
                        tid_linear: tid[3][l],
                        lane: l as u32,
                        ..uniform
                    };
                    simt::special_register(sreg, &lane)
                });
            }
            Op::LdParam { rd, index } => {
                if exec != 0 {
                    let Some(&v) = ctx.params.get(index as usize) else {
                        let supplied = ctx.params.len() as u32;
                        return Err(self.trap_here(
                            ctx,
                            w,
                            TrapCause::MissingParam { index, supplied },
                        ));
                    };
                    if let Some(fault) = falls_off {
                        return Err(self.trap_lanes(ctx, w, fault));
                    }
                    warp.write_reg(rd, exec, |_| v);
                } else if let Some(fault) = falls_off {
                    return Err(self.trap_lanes(ctx, w, fault));
                }
            }
            Op::Load {
                space,
                width,
                rd,
                base,
                offset,
            } => {
                let bytes = width.bytes();
                let addrs = lane_addresses(&warp.regs[base.index()], offset);
                let mem: &[u8] = match space {
                    Space::Shared => &self.shared,
                    Space::Global => ctx.global,
                };
                let checked = checks::check_access(
                    space,
                    mem.len() as u32,
                    &addrs,
                    exec,
                    bytes,
                    &ctx.stacks,
                    first_thread,
                );
                if let Some(fault) = checked.err().or(falls_off) {
                    return Err(self.trap_lanes(ctx, w, fault));
                }
                let mut vals = [0u32; L];
                for l in 0..L {
                    if exec >> l & 1 == 1 {
                        vals[l] = semantics::load_extend(width, read_le(mem, addrs[l], bytes));
                    }
                }
                let warp = &mut self.warps[w];
                warp.write_reg(rd, exec, |l| vals[l]);
            }
            Op::Store {
                space,
                width,
                src,
                base,
                offset,
            } => {
                let bytes = width.bytes();
                let addrs = lane_addresses(&warp.regs[base.index()], offset);
                let data = warp.regs[src.index()];
                let mem: &mut [u8] = match space {
                    Space::Shared => &mut self.shared,
                    Space::Global => ctx.global,
                };
                let checked = checks::check_access(
                    space,
                    mem.len() as u32,
                    &addrs,
                    exec,
                    bytes,
                    &ctx.stacks,
                    first_thread,
                );
                if let Some(fault) = checked.err().or(falls_off) {
                    return Err(self.trap_lanes(ctx, w, fault));
                }
                simt::store_merge(exec, &addrs, &data, width, |addr, byte| {
                    mem[addr as usize] = byte;
                });
            }
            Op::Atom {
                space,
                op,
                rd,
                addr,
                src,
            } => {
                let addrs = lane_addresses(&warp.regs[addr.index()], 0);
                let data = warp.regs[src.index()];
                let mem: &mut [u8] = match space {
                    Space::Shared => &mut self.shared,
                    Space::Global => ctx.global,
                };
                let checked = checks::check_access(
                    space,
                    mem.len() as u32,
                    &addrs,
                    exec,
                    4,
                    &ctx.stacks,
                    first_thread,
                );
                if let Some(fault) = checked.err().or(falls_off) {
                    return Err(self.trap_lanes(ctx, w, fault));
                }
                let mut old = [0u32; L];
                for l in 0..L {
                    if exec >> l & 1 == 1 {
                        old[l] = read_le(mem, addrs[l], 4);
                        write_le(mem, addrs[l], 4, semantics::atomic(op, old[l], data[l]));
                    }
                }
                let warp = &mut self.warps[w];
                warp.write_reg(rd, exec, |l| old[l]);
            }
            Op::Vote { kind, pd, p } => {
                let yes = warp.pred_mask(p);
                let v = if semantics::vote(kind, exec, yes) {
                    u32::MAX
                } else {
                    0
                };
                warp.write_pred(pd, exec, v);
            }
            Op::Ballot { rd, p } => {
                let ballot = exec & warp.pred_mask(p);
                warp.write_reg(rd, exec, |_| ballot);
            }
            Op::Nop => {}
            _ => unreachable!("control instructions are handled above"),
        }
        self.warps[w].advance(policy);
        Ok(())
    }

    fn control(
        &mut self,
        ctx: &mut Ctx<'_, '_>,
        w: usize,
        instr: Instr,
        exec: u32,
    ) -> Result<(), Trap> {
        let warp = &mut self.warps[w];
        let active = warp.group.mask;
        let pc = warp.group.pc;
        warp.materialize();
        let no_operand = [0; L];
        let operand = match instr.op {
            Op::Jmp { rs } | Op::CallR { rs, .. } | Op::Ret { rs } => &warp.regs[rs.index()],
            _ => &no_operand,
        };
        let pred = match instr.op {
            Op::BraCons { p, .. } => warp.pred_mask(p),
            _ => 0,
        };
        let issue = ControlIssue {
            op: instr.op,
            pc,
            active,
            exec,
            operand,
            pred,
            depths: &warp.depth,
            max_depth: self.max_depth,
            code_len: ctx.code_len,
        };
        let effects = match simt::control_effects(&issue) {
            Ok(effects) => effects,
            Err(fault) => {
                let mut t = self.trap_lanes(ctx, w, fault);
                t.pc = pc;
                return Err(t);
            }
        };
        let warp = &mut self.warps[w];
        for l in 0..L {
            if active >> l & 1 == 1 {
                warp.pc[l] = effects.next_pc[l];
            }
        }
        warp.depth = effects.depth;
        if let Some((rd, link)) = effects.link {
            warp.write_reg(rd, exec, |_| link);
        }
        warp.alive &= !effects.exits;
        warp.waiting |= effects.waits;
        match effects.taken {
            Some(true) => ctx.stats.consensual_taken += 1,
            Some(false) => ctx.stats.consensual_not_taken += 1,
            None => {}
        }
        if effects.divergent {
            ctx.stats.divergent_branches += 1;
        }
        let event = match instr.op {
            Op::Bar => Some(BlockEvent::Arrive(effects.waits.count_ones())),
            Op::Exit => Some(BlockEvent::Exit(effects.exits.count_ones())),
            _ => None,
        };
        if let Some(event) = event {
            if let BlockEvent::Arrive(arrivals) = event {
                ctx.stats.barrier_arrivals += arrivals as u64;
            }
            // A block whose threads all wait or exited is found when no warp
            // is schedulable (`Block::run`), which is the same moment.
            let outcome = simt::barrier_commit(self.waiting, self.exited, self.threads, event);
            self.waiting = outcome.arrived;
            self.exited = outcome.exited;
            if outcome.release {
                ctx.stats.barriers += 1;
                for other in &mut self.warps {
                    other.waiting = 0;
                    other.materialize();
                }
            }
        }
        self.warps[w].group_valid = false;
        Ok(())
    }
}

#[inline(always)]
fn lane_addresses(base: &[u32; L], offset: i32) -> [u32; L] {
    let mut a = [0u32; L];
    for l in 0..L {
        a[l] = base[l].wrapping_add(offset as u32);
    }
    a
}

#[inline(always)]
fn read_le(mem: &[u8], addr: u32, bytes: u32) -> u32 {
    let a = addr as usize;
    let mut v = 0u32;
    for i in 0..bytes as usize {
        v |= (mem[a + i] as u32) << (8 * i);
    }
    v
}

#[inline(always)]
fn write_le(mem: &mut [u8], addr: u32, bytes: u32, value: u32) {
    let a = addr as usize;
    for i in 0..bytes as usize {
        mem[a + i] = (value >> (8 * i)) as u8;
    }
}

/// The word at `addr` (4-aligned) of `mem`, 0 outside it (an access there
/// traps before anything is written).
fn read_word(mem: &[u8], addr: u32) -> u32 {
    let a = addr as usize;
    match mem.get(a..a.saturating_add(4)) {
        Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        None => 0,
    }
}
