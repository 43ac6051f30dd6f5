//! The watchdog's diagnosis window on the Core v2 model (§13.4): when the
//! run issues its `limit + 1`-th warp-instruction, `run` stops counting
//! and calls [`Pipeline::diagnose`], which keeps the core running for up
//! to `concord_isa::watchdog::WINDOW` more warp-instructions, looking for
//! a repeat of everything that decides the core's future. The verdict and
//! its wording are `concord_isa::watchdog`'s, shared with the functional
//! model; this file only says what the core's
//! state is and when it is compared.
//!
//! **What is compared.** At a comparison point the whole state is taken
//! as [`Control`]: warps, slots, the stage records, the scheduler's and
//! the engine's registers, the global unit, the launch unit, the held
//! trap. What only grows is normalised: slot ages and entry reservation
//! numbers become ranks, cycle stamps become distances to now, counters
//! are left out. Registers, shared memory and global memory are compared
//! through a `WriteLog`: every location is logged before the cycle that
//! writes it (W's register writes, including return and init slots; M's
//! shared stores and row clears and W's shared atomics; the beats the
//! testbench memory performs).
//!
//! **When.** A comparison point is the end of a cycle in which S selected
//! a warp pass that is not a replay (one per warp-instruction). The testbench memory's bus state (bandwidth credit, accepted
//! beats with their answer times as distances from now, injected errors
//! still ahead) is part of [`Control`], so a loop that keeps the memory
//! busy is diagnosed too. A kernel that selects an
//! `s2r %clock` in the window gets no verdict. With several resident
//! blocks the state covers all of them, and the report names every block's
//! warps (`watchdog::report_blocks`), followed by the §13.4 list of every
//! resident warp's state code, group pc and mask, and waiting lanes.

use concord_isa::func::{Trap, TrapCause};
use concord_isa::instr::{Op, Space, SpecialReg};
use concord_isa::watchdog::{
    self, word_at, BlockObservation, Search, WarpView, WindowEnd, WriteLog, WINDOW,
};
use concord_uarch::timing::{A, M, STAGES};

use super::global::GlobalUnit;
use super::item::{Item, Late};
use super::launch::LaunchUnit;
use super::warp::{Slot, SlotState, WarpState};
use super::wishbone::MemoryState;
use super::{lanes_of, CoreState, Pipeline};

/// Everything but registers and memory that decides the core's future,
/// normalised (see the module docs). Two comparison points with equal
/// `Control` and unchanged logged locations continue identically forever.
#[derive(PartialEq, Eq)]
struct Control {
    state: CoreState,
    warps: Vec<WarpState>,
    slots: Vec<Slot>,
    stages: [Item; STAGES],
    rr: usize,
    last: Option<usize>,
    engine_key: Option<usize>,
    /// The held trap's slot and report (its issue count left out).
    held: Option<(usize, TrapCause, [u32; 3], u32, u32, u32)>,
    global: GlobalUnit,
    launch: LaunchUnit,
    memory: MemoryState,
}

/// The resident blocks at one moment, oldest first: slot, age, block.
type Resident = Vec<(usize, u64, [u32; 3])>;

/// What the report shows of one moment: the blocks' views and the §13.4
/// list.
struct Moment {
    resident: Resident,
    views: Vec<WarpView>,
    list: String,
}

impl Pipeline {
    /// The watchdog fired (the run selected warp-instruction `limit + 1`
    /// in the last cycle): runs the window and returns the report. `step`
    /// runs one cycle (through the host port or not, as the run did). A
    /// pipeline hang in the window (§13.5) is an error, as outside it.
    pub(crate) fn diagnose(
        &mut self,
        limit: u64,
        mut step: impl FnMut(&mut Pipeline),
    ) -> Result<Trap, String> {
        let n = self.warps.len();
        let at_watchdog = self.moment();
        let hang = concord_uarch::timing::hang_cycles(self.config.global_latency as u64);
        let mut search: Search<Control> = Search::new(n);
        // The warp-instruction that tripped the watchdog is at S: the
        // window's first.
        if let Item::Pass(p) = &self.stages[0] {
            let w = &self.warps[p.warp];
            search.issue(1, p.warp, w.gmask, w.gpc);
            search.clock = self.reads_clock(p.warp);
        }
        let mut point = true;
        let (mut progress, mut since) = (self.progress(), 0u64);
        let end = loop {
            let after = self.issued_instructions - limit;
            match self.state {
                CoreState::Done => break WindowEnd::Finished { after },
                CoreState::Trap => {
                    let trap = self.held.as_ref().map(|(_, t)| t.to_string());
                    break WindowEnd::Trapped {
                        after,
                        trap: trap.unwrap_or_default(),
                    };
                }
                _ => {}
            }
            // A block resident at the watchdog has retired: with one slot
            // this is where the functional model's window ends too (its
            // block is done), and a retire can never come back.
            let retired = at_watchdog.resident.iter().any(|&(k, age, _)| {
                self.slots[k].state == SlotState::Free || self.slots[k].age != age
            });
            if retired {
                break WindowEnd::Finished { after };
            }
            if since >= hang {
                return Err(format!(
                    "pipeline deadlock at cycle {} (in the watchdog's window): no progress for {hang} cycles; {}",
                    self.cycles(),
                    self.describe()
                ));
            }
            if after >= WINDOW {
                break WindowEnd::Exhausted {
                    issued: after,
                    clock: search.clock,
                };
            }
            if point
                && search.repeats(self.repeat_state(), |writes| {
                    writes.unchanged(
                        |row, _| self.rf.get(row).copied().unwrap_or_default(),
                        |space, a| match space {
                            Space::Shared => word_at(&self.shared, a),
                            Space::Global => word_at(&self.memory.bytes, a),
                        },
                    )
                })
            {
                break WindowEnd::Repeats;
            }
            self.log_writes(&mut search.writes);
            let groups: Vec<(u32, u32)> = self.warps.iter().map(|w| (w.gmask, w.gpc)).collect();
            let issued = self.issued_instructions;
            step(self);
            point = self.issued_instructions > issued;
            if point {
                if let Item::Pass(p) = &self.stages[0] {
                    let (lanes, pc) = groups[p.warp];
                    search.issue(self.issued_instructions - limit, p.warp, lanes, pc);
                    search.clock |= self.reads_clock(p.warp);
                }
            }
            let now = self.progress();
            if now == progress {
                since += 1;
            } else {
                (progress, since) = (now, 0);
            }
        };
        let moment = if end == WindowEnd::Repeats {
            self.moment()
        } else {
            at_watchdog
        };
        let issues = search.issues(&end);
        let nwarps = self.occ.nwarps as usize;
        let blocks: Vec<BlockObservation> = moment
            .resident
            .iter()
            .map(|&(k, _, block)| BlockObservation {
                block,
                warps: moment.views[k * nwarps..(k + 1) * nwarps].to_vec(),
                issues: issues.part(k * nwarps, nwarps),
            })
            .collect();
        let mut trap = watchdog::report_blocks(limit, &blocks, &end);
        if let TrapCause::Watchdog { diagnosis, .. } = &mut trap.cause {
            diagnosis.push_str(&format!(" (resident warps: {})", moment.list));
        }
        Ok(trap)
    }

    /// The blocks resident now (oldest first), every warp's view, and the
    /// §13.4 list: per warp of every resident block its state code, group
    /// pc and mask, waiting lanes and their stored pcs.
    fn moment(&self) -> Moment {
        let mut resident: Resident = (0..self.slots.len())
            .filter(|&k| self.slots[k].state != SlotState::Free)
            .map(|k| (k, self.slots[k].age, self.slots[k].ctaid))
            .collect();
        resident.sort_by_key(|&(_, age, _)| age);
        let nwarps = self.occ.nwarps as usize;
        let mut parts = Vec::new();
        for &(k, _, [x, y, z]) in &resident {
            for w in k * nwarps..(k + 1) * nwarps {
                let warp = &self.warps[w];
                let waiting: Vec<String> = lanes_of(warp.waiting)
                    .map(|l| format!("{l}@{}", warp.pc[l]))
                    .collect();
                parts.push(format!(
                    "block ({x},{y},{z}) warp {} {:?} at pc {} lanes {:#x}{}",
                    warp.wib,
                    self.warp_code(w),
                    warp.gpc,
                    warp.gmask,
                    if waiting.is_empty() {
                        String::new()
                    } else {
                        format!(" waiting {}", waiting.join(","))
                    }
                ));
            }
        }
        Moment {
            resident,
            views: (0..self.warps.len()).map(|w| self.view(w)).collect(),
            list: parts.join("; "),
        }
    }

    /// Warp `w`'s lanes as the report shows them: a lane of the group is
    /// at the group's pc (its stored pc is only exact outside the group).
    fn view(&self, w: usize) -> WarpView {
        let warp = &self.warps[w];
        WarpView {
            alive: warp.alive,
            waiting: warp.waiting,
            pc: std::array::from_fn(|l| {
                if warp.gmask >> l & 1 == 1 {
                    warp.gpc
                } else {
                    warp.pc[l]
                }
            }),
        }
    }

    /// Whether the group of warp `w` is at an `s2r` of the clock (whatever
    /// its guard: a verdict is only withheld, never made wrong).
    fn reads_clock(&self, w: usize) -> bool {
        let pc = self.warps[w].gpc as usize;
        matches!(
            self.instrs.get(pc),
            Some(Ok(i)) if matches!(
                i.op,
                Op::S2R {
                    sreg: SpecialReg::ClockLo | SpecialReg::ClockHi,
                    ..
                }
            )
        )
    }

    /// The state compared at a comparison point (see [`Control`]).
    fn repeat_state(&self) -> Control {
        let now = self.cycles();
        let live = |s: &Slot| s.state != SlotState::Free;
        let ages: Vec<u64> = self
            .slots
            .iter()
            .filter(|s| live(s))
            .map(|s| s.age)
            .collect();
        let slots = self
            .slots
            .iter()
            .map(|s| Slot {
                age: if live(s) {
                    ages.iter().filter(|&&a| a < s.age).count() as u64
                } else {
                    0
                },
                ..s.clone()
            })
            .collect();
        Control {
            state: self.state,
            warps: self.warps.clone(),
            slots,
            stages: self.stages.clone(),
            rr: self.rr,
            last: self.last,
            engine_key: self.engine_key,
            held: self
                .held
                .as_ref()
                .map(|(s, t)| (*s, t.cause.clone(), t.block, t.warp, t.lanes, t.pc)),
            global: self.global.normalised(now),
            launch: self.launch.normalised(now),
            memory: self.memory.normalised(),
        }
    }

    /// Logs every register row and memory word the coming cycle may write,
    /// before it writes them. The log's register key is the register-file
    /// row (and 0).
    fn log_writes(&self, log: &mut WriteLog) {
        let row_of = |log: &mut WriteLog, row: usize| {
            log.reg(row, 0, || self.rf.get(row).copied().unwrap_or_default())
        };
        let shared = |log: &mut WriteLog, addr: usize| {
            log.word(Space::Shared, addr as u32, |a| word_at(&self.shared, a))
        };
        // The item now in M is in W during the coming cycle.
        match &self.stages[M] {
            Item::Pass(p) => match &p.late {
                Late::Reg(w) => row_of(log, w.row),
                Late::SharedLoad { row, .. } => row_of(log, *row),
                Late::SharedAtomic { row, addr, .. } => {
                    row_of(log, *row);
                    shared(log, *addr);
                }
                _ => {}
            },
            Item::Return { write: Some(w), .. } => row_of(log, w.row),
            Item::Init(init) => {
                if let Some((w, r)) = init.reg {
                    row_of(log, self.hw.rf_row(w, r));
                }
            }
            _ => {}
        }
        // The item now in A is in M.
        match &self.stages[A] {
            Item::Pass(p) => {
                if let Late::SharedStore { lanes, addrs, .. } = &p.late {
                    for l in lanes_of(*lanes) {
                        shared(log, addrs[l]);
                    }
                }
            }
            Item::Init(init) => {
                if let (Some(row), false) = (init.row, init.refused) {
                    let width = 4 * self.hw.shared_banks;
                    for a in (row * width..(row + 1) * width).step_by(4) {
                        shared(log, a);
                    }
                }
            }
            _ => {}
        }
        // The beat on the bus, which the memory performs if it accepts it.
        if let Some(beat) = self.global.beat_on_bus().filter(|b| b.we) {
            let wb = self.hw.global_bus_bytes;
            for j in (0..wb).filter(|j| beat.sel >> j & 1 == 1) {
                log.word(Space::Global, beat.adr * wb + j, |a| {
                    word_at(&self.memory.bytes, a)
                });
            }
        }
    }
}
