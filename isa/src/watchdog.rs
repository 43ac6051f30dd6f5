//! The launch watchdog, shared by every model: its unit, its default, and
//! the diagnosis a model prints when it fires.
//!
//! **Unit.** The watchdog counts issued warp-instructions: one per
//! instruction a warp issues for a group of its lanes. A timed model's
//! replay of a memory instruction (the lanes a bank or line conflict left
//! pending issue again) is not counted again, so the count is the one the
//! functional model makes. A launch whose warps do not wait on each other
//! through memory issues the same warp-instructions on every model, so it
//! ends within a given watchdog on all of them or on none (spin loops and
//! other races between warps may take a few more or fewer turns, as the
//! models interleave warps a little differently). The functional model stops
//! before issuing instruction `limit + 1`; the timed models (cycle model,
//! RTL) stop in the cycle that issues it, before it executes.
//!
//! **Diagnosis.** When the watchdog fires, the model keeps running for at
//! most [`WINDOW`] more warp-instructions and looks for a repeat of the
//! whole architectural state of the block: every lane's PC, call depth and
//! liveness, barrier waits, predicates, registers, shared and global memory
//! (and the scheduler's round-robin position). The models are
//! deterministic, so a state that comes back proves that the run can never
//! end; only then does the report say *deadlock* (some threads wait at a
//! barrier), *livelock* (ready lanes are never picked) or *endless loop*.
//! The comparison is cheap: the small part of the state (PCs, masks,
//! predicates) is compared directly, and registers and memory through a
//! [`WriteLog`] of the locations written since the last checkpoint
//! (Brent's cycle detection, [`Checkpoints`]), never by rehashing memory.
//! A kernel that reads the clock (`s2r %clock`) in the window gets no such
//! verdict, since its future depends on the time. Otherwise the report says
//! *still running*: which lanes wait at which PC, which run over which PCs,
//! and to raise `watchdog:` if this is a long computation.
//!
//! A timed model keeps its window's bookkeeping in a [`Search`] (the issue
//! logs, the write log, the checkpoints over its own comparable state).
//! [`report`] turns what a model saw into the [`Trap`], so that the three
//! models word it identically.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::func::{Trap, TrapCause};
use crate::instr::{Space, MAX_LANES};
use crate::mask::lane_list;

/// The watchdog of a launch that gives none (`watchdog:` in
/// `docs/launch.md`), in issued warp-instructions on every model.
pub const DEFAULT_WATCHDOG: u64 = 10_000_000;

/// Warp-instructions a model runs past the watchdog looking for a repeated
/// state. Brent's checkpoints find a loop whose state repeats every `p`
/// warp-instructions within about `3p` of its start, so loops of up to
/// about 40 000 warp-instructions per turn are told from long computations.
pub const WINDOW: u64 = 1 << 17;

/// The first warp-instructions of the window that a "still running"
/// report describes: lanes that issue none of them wait, the others run
/// over the PCs they issued at. (The whole window could end with every
/// lane issuing its `exit`, which says nothing about the watchdog's moment.)
pub const SPAN: u64 = 4096;

const L: usize = MAX_LANES;

/// One warp as the diagnosis sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarpView {
    /// Lanes that hold a thread that has not exited.
    pub alive: u32,
    /// Lanes waiting at a barrier (their PC is the barrier's PC + 1).
    pub waiting: u32,
    /// Each lane's PC.
    pub pc: [u32; L],
}

/// Which lanes issued, and over which PCs, during part of the window.
#[derive(Clone, Debug)]
pub struct IssueLog {
    warps: Vec<LaneSpans>,
}

#[derive(Clone, Debug)]
struct LaneSpans {
    issued: u32,
    lo: [u32; L],
    hi: [u32; L],
}

impl IssueLog {
    pub fn new(warps: usize) -> IssueLog {
        IssueLog {
            warps: vec![
                LaneSpans {
                    issued: 0,
                    lo: [u32::MAX; L],
                    hi: [0; L],
                };
                warps
            ],
        }
    }

    /// The spans of warps `first..first + count`, renumbered from 0: one
    /// block's part of a log kept per hardware warp.
    pub fn part(&self, first: usize, count: usize) -> IssueLog {
        IssueLog {
            warps: (first..first + count)
                .map(|w| {
                    self.warps.get(w).cloned().unwrap_or(LaneSpans {
                        issued: 0,
                        lo: [u32::MAX; L],
                        hi: [0; L],
                    })
                })
                .collect(),
        }
    }

    /// Warp `warp` issued the instruction at `pc` for `lanes`.
    pub fn record(&mut self, warp: usize, lanes: u32, pc: u32) {
        let Some(s) = self.warps.get_mut(warp) else {
            return;
        };
        s.issued |= lanes;
        let mut m = lanes;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            s.lo[l] = s.lo[l].min(pc);
            s.hi[l] = s.hi[l].max(pc);
        }
    }
}

/// Brent's cycle detection over the comparison points of the window: the
/// checkpoint moves to the current state after 1, 2, 4, 8, ... points, and
/// every point is compared with it. A state that repeats every `p` points
/// from point `m` on is found by point `2·max(m, p) + p` or so.
#[derive(Clone, Debug)]
pub struct Checkpoints {
    power: u64,
    since: u64,
}

impl Default for Checkpoints {
    fn default() -> Self {
        Checkpoints { power: 1, since: 0 }
    }
}

impl Checkpoints {
    /// Call once per comparison point, after comparing with the checkpoint:
    /// `true` when the checkpoint must move to the current state (and the
    /// write log and the per-period issue log start again).
    pub fn advance(&mut self) -> bool {
        self.since += 1;
        if self.since == self.power {
            self.power = self.power.saturating_mul(2);
            self.since = 0;
            true
        } else {
            false
        }
    }
}

/// The old value of every register and memory word written since the
/// checkpoint: the data state equals the checkpoint's exactly when each of
/// them holds its old value again. A model logs a location before the
/// write that changes it; logging one that is then not written is harmless.
#[derive(Clone, Debug, Default)]
pub struct WriteLog {
    /// (warp, register) -> the register's lanes at the checkpoint.
    regs: HashMap<(usize, usize), [u32; L]>,
    /// Word address -> the word at the checkpoint.
    shared: HashMap<u32, u32>,
    global: HashMap<u32, u32>,
}

impl WriteLog {
    /// Register `reg` of warp `warp` is about to be written; `old` reads it.
    pub fn reg(&mut self, warp: usize, reg: usize, old: impl FnOnce() -> [u32; L]) {
        self.regs.entry((warp, reg)).or_insert_with(old);
    }

    /// The word at byte address `addr & !3` of `space` is about to be
    /// written; `old` reads that word.
    pub fn word(&mut self, space: Space, addr: u32, old: impl FnOnce(u32) -> u32) {
        let at = addr & !3;
        let map = match space {
            Space::Shared => &mut self.shared,
            Space::Global => &mut self.global,
        };
        map.entry(at).or_insert_with(|| old(at));
    }

    /// Whether every logged location holds its value from the checkpoint.
    pub fn unchanged(
        &self,
        reg: impl Fn(usize, usize) -> [u32; L],
        word: impl Fn(Space, u32) -> u32,
    ) -> bool {
        self.regs.iter().all(|(&(w, r), old)| reg(w, r) == *old)
            && self
                .shared
                .iter()
                .all(|(&a, old)| word(Space::Shared, a) == *old)
            && self
                .global
                .iter()
                .all(|(&a, old)| word(Space::Global, a) == *old)
    }

    pub fn clear(&mut self) {
        self.regs.clear();
        self.shared.clear();
        self.global.clear();
    }
}

/// The bookkeeping of a timed model's window, the same on every timed
/// model: the issue logs (the first [`SPAN`] issues, and those since the
/// checkpoint), the [`WriteLog`], Brent's [`Checkpoints`] over the model's
/// comparable state `C`, and whether the kernel read the clock.
#[derive(Clone, Debug)]
pub struct Search<C> {
    window: IssueLog,
    turn: IssueLog,
    /// Locations written since the checkpoint: the model logs each before
    /// the cycle that writes it.
    pub writes: WriteLog,
    checkpoints: Checkpoints,
    checkpoint: Option<C>,
    /// The kernel issued an `s2r` of the clock in the window: no repeat is
    /// looked for.
    pub clock: bool,
}

impl<C: PartialEq> Search<C> {
    pub fn new(warps: usize) -> Search<C> {
        Search {
            window: IssueLog::new(warps),
            turn: IssueLog::new(warps),
            writes: WriteLog::default(),
            checkpoints: Checkpoints::default(),
            checkpoint: None,
            clock: false,
        }
    }

    /// Warp `warp` issued at `pc` for `lanes`, the `after`-th
    /// warp-instruction of the window (the one that tripped the watchdog
    /// is the first).
    pub fn issue(&mut self, after: u64, warp: usize, lanes: u32, pc: u32) {
        if after <= SPAN {
            self.window.record(warp, lanes, pc);
        }
        self.turn.record(warp, lanes, pc);
    }

    /// A comparison point with state `now`: whether it equals the
    /// checkpoint and `unchanged(writes)` says every logged location holds
    /// its checkpoint value again (the run can never end). Otherwise the
    /// checkpoint may move here. Never a repeat once the clock was read.
    pub fn repeats(&mut self, now: C, unchanged: impl FnOnce(&WriteLog) -> bool) -> bool {
        if self.clock {
            return false;
        }
        let Some(cp) = &self.checkpoint else {
            self.checkpoint = Some(now);
            return false;
        };
        if *cp == now && unchanged(&self.writes) {
            return true;
        }
        if self.checkpoints.advance() {
            self.checkpoint = Some(now);
            self.writes.clear();
            self.turn = IssueLog::new(self.turn.warps.len());
        }
        false
    }

    /// The issues the report describes for a window that ended with `end`:
    /// one turn of the loop for a repeat, else the window's first [`SPAN`].
    pub fn issues(self, end: &WindowEnd) -> IssueLog {
        if *end == WindowEnd::Repeats {
            self.turn
        } else {
            self.window
        }
    }
}

/// How the window after the watchdog ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WindowEnd {
    /// The architectural state came back: the run can never end.
    Repeats,
    /// The window ran out without a verdict. `clock`: the kernel read the
    /// clock, so no repeat was looked for.
    Exhausted { issued: u64, clock: bool },
    /// The block finished this many warp-instructions after the watchdog.
    Finished { after: u64 },
    /// The run trapped this many warp-instructions after the watchdog.
    Trapped { after: u64, trap: String },
}

/// What a model saw when its watchdog fired, for [`report`].
#[derive(Clone, Debug)]
pub struct Observation {
    pub block: [u32; 3],
    /// For [`WindowEnd::Repeats`], the warps where the state repeated and
    /// the issues of one turn of the loop; otherwise the warps when the
    /// watchdog fired and the first [`SPAN`] issues of the window.
    pub warps: Vec<WarpView>,
    pub issues: IssueLog,
    pub end: WindowEnd,
}

/// One resident block of a core that runs several at once (Core v2,
/// §13.4): its warps numbered within the block, as in [`Observation`].
#[derive(Clone, Debug)]
pub struct BlockObservation {
    pub block: [u32; 3],
    pub warps: Vec<WarpView>,
    pub issues: IssueLog,
}

/// The word at byte address `addr` (4-aligned) of `mem`, 0 outside it:
/// how the models read the words a [`WriteLog`] compares.
pub fn word_at(mem: &[u8], addr: u32) -> u32 {
    let a = addr as usize;
    match mem.get(a..a.saturating_add(4)) {
        Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        None => 0,
    }
}

/// What a group of lanes is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Doing {
    /// Waiting at the barrier at this PC.
    Barrier(u32),
    /// Ready at this PC but never issued.
    Idle(u32),
    /// Issued at PCs lo..=hi.
    Runs(u32, u32),
}

impl Doing {
    fn describe(self, plural: bool) -> String {
        let (wait, run) = if plural {
            ("wait", "run")
        } else {
            ("waits", "runs")
        };
        match self {
            Doing::Barrier(pc) => format!("{wait} at the barrier at pc {pc}"),
            Doing::Idle(pc) => format!("{wait} at pc {pc}"),
            Doing::Runs(lo, hi) if lo == hi => format!("{run} at pc {lo}"),
            Doing::Runs(lo, hi) => format!("{run} at pcs {lo}..={hi}"),
        }
    }

    /// Barrier waits first, then lanes that never issued, then the running
    /// ones.
    fn rank(self) -> u8 {
        match self {
            Doing::Barrier(_) => 0,
            Doing::Idle(_) => 1,
            Doing::Runs(..) => 2,
        }
    }

    /// The PC a trap report names for this group.
    fn pc(self) -> u32 {
        match self {
            Doing::Barrier(pc) | Doing::Idle(pc) | Doing::Runs(pc, _) => pc,
        }
    }
}

/// Lanes of warps `first..=last` doing the same thing.
struct Group {
    /// The block, named in the description when the report covers several.
    block: [u32; 3],
    named: bool,
    /// The block's place in the report's order.
    order: usize,
    first: usize,
    last: usize,
    lanes: u32,
    doing: Doing,
}

impl Group {
    fn describe(&self) -> String {
        let warps = if self.first == self.last {
            format!("warp {}", self.first)
        } else {
            format!("warps {}-{}", self.first, self.last)
        };
        let plural = self.first != self.last || self.lanes.count_ones() > 1;
        let [x, y, z] = self.block;
        format!(
            "{}{warps} lane{} {} {}",
            if self.named {
                format!("block ({x},{y},{z}) ")
            } else {
                String::new()
            },
            if self.lanes.count_ones() == 1 {
                ""
            } else {
                "s"
            },
            lane_list(self.lanes),
            self.doing.describe(plural)
        )
    }
}

/// Groups shown at most, so that a report stays one readable line.
const MAX_GROUPS: usize = 8;

/// The groups of every block: by what they do, then by block in the
/// order given, then by warp.
fn groups(blocks: &[BlockObservation]) -> Vec<Group> {
    let named = blocks.len() > 1;
    let mut out: Vec<Group> = blocks
        .iter()
        .enumerate()
        .flat_map(|(order, obs)| block_groups(obs, order, named))
        .collect();
    out.sort_by_key(|g| (g.doing.rank(), g.order, g.first));
    out
}

fn block_groups(obs: &BlockObservation, order: usize, named: bool) -> Vec<Group> {
    let mut per_warp: Vec<(usize, u32, Doing)> = Vec::new();
    for (w, view) in obs.warps.iter().enumerate() {
        let spans = obs.issues.warps.get(w);
        let issued = spans.map_or(0, |s| s.issued);
        let mut lanes: Vec<(Doing, u32)> = Vec::new();
        let mut m = view.alive;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            let doing = if issued >> l & 1 == 1 {
                let s = spans.expect("issued lanes have spans");
                Doing::Runs(s.lo[l], s.hi[l])
            } else if view.waiting >> l & 1 == 1 {
                Doing::Barrier(view.pc[l].wrapping_sub(1))
            } else {
                Doing::Idle(view.pc[l])
            };
            match lanes.iter_mut().find(|(d, _)| *d == doing) {
                Some((_, mask)) => *mask |= 1 << l,
                None => lanes.push((doing, 1 << l)),
            }
        }
        per_warp.extend(lanes.into_iter().map(|(d, mask)| (w, mask, d)));
    }
    // Barrier waits first, then lanes that never issued, then the running
    // ones; warps in order within each, neighbours doing the same merged.
    per_warp.sort_by_key(|&(w, _, d)| (d.rank(), w));
    let mut out: Vec<Group> = Vec::new();
    for (w, lanes, doing) in per_warp {
        match out.last_mut() {
            Some(g) if g.last + 1 == w && g.lanes == lanes && g.doing == doing => g.last = w,
            _ => out.push(Group {
                block: obs.block,
                named,
                order,
                first: w,
                last: w,
                lanes,
                doing,
            }),
        }
    }
    out
}

fn list(groups: &[Group]) -> String {
    let mut s = groups
        .iter()
        .take(MAX_GROUPS)
        .map(Group::describe)
        .collect::<Vec<_>>()
        .join("; ");
    if groups.len() > MAX_GROUPS {
        let _ = write!(s, "; {} more group(s)", groups.len() - MAX_GROUPS);
    }
    s
}

/// The watchdog trap for `obs`: the cause's diagnosis, and the warp, lanes
/// and PC of the group that explains it best (the threads at a barrier,
/// else the lanes that never issued, else the first running lanes).
pub fn report(limit: u64, obs: &Observation) -> Trap {
    let block = BlockObservation {
        block: obs.block,
        warps: obs.warps.clone(),
        issues: obs.issues.clone(),
    };
    report_blocks(limit, std::slice::from_ref(&block), &obs.end)
}

/// [`report`] for a core with several resident blocks (Core v2, §13.4):
/// the verdict covers them all, and each group names its block when
/// there is more than one. `blocks` is oldest first; the trap names the
/// first group's block.
pub fn report_blocks(limit: u64, blocks: &[BlockObservation], end: &WindowEnd) -> Trap {
    // The cause's `Display` already says how many warp-instructions issued.
    let groups = groups(blocks);
    let waits = groups.iter().any(|g| matches!(g.doing, Doing::Barrier(_)));
    let idle: Vec<&Group> = groups
        .iter()
        .filter(|g| matches!(g.doing, Doing::Idle(_)))
        .collect();
    let shown = if groups.is_empty() {
        "no lane is left".to_string()
    } else {
        list(&groups)
    };
    let diagnosis = match end {
        WindowEnd::Repeats if waits => {
            format!("deadlock: the state repeats, so the run can never end: {shown}")
        }
        WindowEnd::Repeats if !idle.is_empty() => {
            // A ready lane that shares its warp with running ones loses the
            // min-PC arbitration to them on every turn of the loop.
            let starved_by_own_warp = idle.iter().any(|g| {
                groups.iter().any(|r| {
                    matches!(r.doing, Doing::Runs(..))
                        && r.order == g.order
                        && r.first <= g.last
                        && g.first <= r.last
                })
            });
            format!(
                "livelock: the state repeats, so the run can never end and the waiting lanes can never be picked: {shown}{}",
                if starved_by_own_warp {
                    "; lanes looping at lower PCs starve the lanes they wait for"
                } else {
                    ""
                }
            )
        }
        WindowEnd::Repeats => {
            format!("endless loop: the state repeats, so the run can never end: {shown}")
        }
        other => {
            let (span, then) = match other {
                WindowEnd::Exhausted { issued, clock } => (
                    *issued,
                    format!(
                        "no state repeated in the {issued} warp-instructions after the watchdog{}",
                        if *clock {
                            " (the kernel reads the clock, so none was looked for)"
                        } else {
                            ""
                        }
                    ),
                ),
                WindowEnd::Finished { after } => (
                    *after,
                    format!("the block finishes {after} warp-instructions after the watchdog"),
                ),
                WindowEnd::Trapped { after, trap } => (
                    *after,
                    format!("{after} warp-instructions after the watchdog: {trap}"),
                ),
                WindowEnd::Repeats => unreachable!("handled above"),
            };
            let when = match span.min(SPAN) {
                0 => "at the watchdog".to_string(),
                n => format!("over the next {n}"),
            };
            format!(
                "still running: {when}, {shown}; {then}; raise `watchdog:` in the launch description if this is a long computation"
            )
        }
    };
    let first = groups.first();
    Trap {
        cause: TrapCause::Watchdog { limit, diagnosis },
        block: first.map_or(blocks.first().map_or([0; 3], |b| b.block), |g| g.block),
        warp: first.map_or(0, |g| g.first as u32),
        lanes: first.map_or(0, |g| g.lanes),
        pc: first.map_or(0, |g| g.doing.pc()),
        issued: limit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(alive: u32, waiting: u32, pcs: &[(usize, u32)]) -> WarpView {
        let mut pc = [0; L];
        for &(l, p) in pcs {
            pc[l] = p;
        }
        WarpView { alive, waiting, pc }
    }

    #[test]
    fn checkpoints_move_after_1_2_4_8_points() {
        let mut c = Checkpoints::default();
        let moves: Vec<u64> = (1..=20u64).filter(|_| c.advance()).collect();
        assert_eq!(moves, [1, 3, 7, 15]);
    }

    #[test]
    fn write_log_compares_only_what_was_written() {
        let mut log = WriteLog::default();
        let mut mem = [5u32, 6, 7];
        log.word(Space::Global, 5, |a| mem[a as usize / 4]);
        mem[1] = 60;
        // A second write does not replace the checkpoint's value.
        log.word(Space::Global, 4, |a| mem[a as usize / 4]);
        assert!(!log.unchanged(|_, _| [0; L], |_, a| mem[a as usize / 4]));
        mem[1] = 6;
        assert!(log.unchanged(|_, _| [0; L], |_, a| mem[a as usize / 4]));
        // Memory never logged may differ (nothing wrote it).
        mem[2] = 70;
        assert!(log.unchanged(|_, _| [0; L], |_, a| mem[a as usize / 4]));
    }

    #[test]
    fn a_repeat_with_barrier_waiters_is_a_deadlock_naming_both_groups() {
        // Lanes 0-3 passed `bar` at pc 4 (their PC is 5), lanes 4-7 spin.
        let mut issues = IssueLog::new(1);
        for pc in [6, 7, 8] {
            issues.record(0, 0xf0, pc);
        }
        let obs = Observation {
            block: [0, 0, 0],
            warps: vec![view(0xff, 0x0f, &[(0, 5), (1, 5), (2, 5), (3, 5)])],
            issues,
            end: WindowEnd::Repeats,
        };
        let t = report(100, &obs);
        assert_eq!((t.warp, t.lanes, t.pc, t.issued), (0, 0x0f, 4, 100));
        assert_eq!(
            t.cause,
            TrapCause::Watchdog {
                limit: 100,
                diagnosis: "deadlock: the state repeats, so the run can never end: warp 0 lanes 0-3 wait at the barrier at pc 4; warp 0 lanes 4-7 run at pcs 6..=8".into()
            }
        );
    }

    #[test]
    fn no_repeat_is_still_running_and_neighbouring_warps_merge() {
        let mut issues = IssueLog::new(3);
        issues.record(0, 0x1, 13);
        issues.record(0, 0x1, 108);
        let obs = Observation {
            block: [3, 0, 0],
            warps: vec![
                view(0xff, 0, &(1..8).map(|l| (l, 29)).collect::<Vec<_>>()),
                view(0x3, 0, &[(0, 40), (1, 40)]),
                view(0x3, 0, &[(0, 40), (1, 40)]),
            ],
            issues,
            end: WindowEnd::Exhausted {
                issued: WINDOW,
                clock: false,
            },
        };
        let t = report(7, &obs);
        assert_eq!((t.block, t.warp, t.lanes, t.pc), ([3, 0, 0], 0, 0xfe, 29));
        let TrapCause::Watchdog { diagnosis, .. } = t.cause else {
            panic!()
        };
        assert_eq!(
            diagnosis,
            format!("still running: over the next {SPAN}, warp 0 lanes 1-7 wait at pc 29; warps 1-2 lanes 0-1 wait at pc 40; warp 0 lane 0 runs at pcs 13..=108; no state repeated in the {WINDOW} warp-instructions after the watchdog; raise `watchdog:` in the launch description if this is a long computation")
        );
    }

    #[test]
    fn several_blocks_are_named_and_ordered_by_what_they_do_then_by_block() {
        // Block (2,0,0) is older than block (5,0,0); in each, lanes 0-1 of
        // warp 1 wait at the barrier at pc 9 (their PC is 10) and warp 0's
        // lane 0 loops over pcs 3..=4.
        let block = |id: u32| {
            let mut issues = IssueLog::new(2);
            issues.record(0, 0x1, 3);
            issues.record(0, 0x1, 4);
            BlockObservation {
                block: [id, 0, 0],
                warps: vec![view(0x1, 0, &[]), view(0x3, 0x3, &[(0, 10), (1, 10)])],
                issues,
            }
        };
        let t = report_blocks(50, &[block(2), block(5)], &WindowEnd::Repeats);
        assert_eq!((t.block, t.warp, t.lanes, t.pc), ([2, 0, 0], 1, 0x3, 9));
        assert_eq!(
            t.cause,
            TrapCause::Watchdog {
                limit: 50,
                diagnosis: "deadlock: the state repeats, so the run can never end: block (2,0,0) warp 1 lanes 0-1 wait at the barrier at pc 9; block (5,0,0) warp 1 lanes 0-1 wait at the barrier at pc 9; block (2,0,0) warp 0 lane 0 runs at pcs 3..=4; block (5,0,0) warp 0 lane 0 runs at pcs 3..=4".into()
            }
        );
    }
}
