//! Stage A for a warp pass (docs/microarchitecture.md §8, §9.3, §9.4,
//! §13.1): the checks in the order of `concord_isa::checks`, the trap
//! decision, and the commit of every instruction class.

// Lane loops index several per-lane arrays with the same lane number.
#![allow(clippy::needless_range_loop)]

use concord_isa::checks;
use concord_isa::func::{Trap, TrapCause};
use concord_isa::instr::{Instr, Op, PredOp, PredSrc, Reg, Space};
use concord_isa::semantics;
use concord_isa::simt::{self, BlockEvent, ControlIssue, Group, ThreadCtx};

use super::global::Kind;
use super::item::{Late, RegWrite};
use super::warp::SlotState;
use super::{lanes_of, Counter, Pipeline};

impl Pipeline {
    fn pred_mask(&self, w: usize, p: PredSrc) -> u32 {
        let m = if p.pred.is_true() {
            u32::MAX
        } else {
            self.warps[w].pred.get(p.pred.index()).copied().unwrap_or(0)
        };
        if p.negate {
            !m
        } else {
            m
        }
    }

    fn write_pred(&mut self, w: usize, pd: concord_isa::Pred, exec: u32, value: u32) {
        if !pd.is_true() && pd.index() < self.hw.predicates {
            let p = &mut self.warps[w].pred[pd.index()];
            *p = (*p & !exec) | (value & exec);
            self.tr.pred_we = exec & self.hw.lane_mask;
            self.tr.pred_addr = concord_uarch::params::pred_trace_addr(w, pd.index());
            self.tr.pred_data = value & exec & self.hw.lane_mask;
        }
    }

    fn reg(&self, w: usize, r: Reg) -> [u32; 32] {
        self.rf
            .get(self.hw.rf_row(w, r.index()))
            .copied()
            .unwrap_or([0; 32])
    }

    fn reg_write(&self, w: usize, rd: Reg, lanes: u32, values: [u32; 32]) -> Late {
        if lanes == 0 {
            return Late::None;
        }
        Late::Reg(RegWrite {
            row: self.hw.rf_row(w, rd.index()),
            lanes,
            values,
        })
    }

    /// A trap of warp `w`'s pass at its group pc.
    fn trap(&mut self, w: usize, lanes: u32, cause: TrapCause) -> Late {
        let warp = &self.warps[w];
        let slot = warp.wslot.expect("a running warp has a slot");
        let trap = Trap {
            cause,
            block: self.slots[slot].ctaid,
            warp: warp.wib,
            lanes,
            pc: warp.gpc,
            issued: self.issued_instructions,
        };
        self.raise(slot, trap);
        self.tr.a_kind = concord_uarch::trace::a_kind::TRAPPED;
        Late::None
    }

    /// Advance (§9.3): `gpc += 1`, `gmask |= join`.
    fn advance(&mut self, w: usize) {
        let policy = self.hw.arbitration;
        let warp = &mut self.warps[w];
        let group = Group {
            mask: warp.gmask,
            pc: warp.gpc,
            depth: warp.gdepth,
        };
        let g = simt::advance(&group, &warp.pc, &warp.depth, warp.schedulable(), policy);
        (warp.gmask, warp.gpc) = (g.mask, g.pc);
    }

    /// The commit of a warp pass of `w` at A in this cycle (`now` is the
    /// cycle's `cycles` value); returns what M and W still do.
    pub(crate) fn commit(&mut self, w: usize, now: u64, free_entries: usize) -> Late {
        self.warps[w].busy_i = false;
        let slot = self.warps[w].wslot.expect("a selected warp has a slot");
        if self.slots[slot].state == SlotState::Frozen {
            self.counters.inc(Counter::Squashed);
            return Late::None;
        }
        let (active, pc) = (self.warps[w].gmask, self.warps[w].gpc);
        let code_len = self.code.len() as u32;
        // F: PC outside the program; D: invalid instruction.
        let instr: Instr = match self.instrs.get(pc as usize) {
            None => return self.trap(w, active, TrapCause::PcOutOfRange { len: code_len }),
            Some(Err(reason)) => {
                let cause = TrapCause::InvalidInstruction {
                    word: self.code[pc as usize],
                    reason: reason.clone(),
                };
                return self.trap(w, active, cause);
            }
            Some(Ok(i)) => *i,
        };
        let exec = active & self.pred_mask(w, instr.guard);
        self.tr.a_active = active;
        self.tr.a_exec = exec;
        let count = |s: &mut Self| {
            s.counters.inc(Counter::Issued);
            s.counters
                .add(Counter::ActiveLaneSlots, active.count_ones() as u64);
            s.counters
                .add(Counter::ExecutedLaneSlots, exec.count_ones() as u64);
        };
        if instr.is_control() {
            let Some(late) = self.control(w, slot, instr, active, exec) else {
                return Late::None;
            };
            count(self);
            return late;
        }
        let falls_off = checks::check_fall_through(code_len, pc, active).err();
        if instr.is_memory() {
            let Some(late) = self.memory(w, slot, instr, active, exec, falls_off, free_entries)
            else {
                return Late::None;
            };
            count(self);
            return late;
        }
        if let Op::LdParam { index, .. } = instr.op {
            if exec != 0 && index as usize >= self.params.len() {
                let supplied = self.params.len() as u32;
                return self.trap(w, active, TrapCause::MissingParam { index, supplied });
            }
        }
        if let Some((lanes, cause)) = falls_off {
            return self.trap(w, lanes, cause);
        }
        count(self);
        let late = self.data(w, slot, instr, exec, now);
        self.advance(w);
        late
    }

    /// ALU, constants, `setp`, predicate logic, `sel`, `s2r`, `ldparam`,
    /// votes, `nop`: the predicate write at A, the register write for W.
    fn data(&mut self, w: usize, slot: usize, instr: Instr, exec: u32, now: u64) -> Late {
        let lanes = self.hw.lanes;
        let (sa, sb) = instr.sources();
        let a = sa.map(|r| self.reg(w, r)).unwrap_or([0; 32]);
        let b = sb.map(|r| self.reg(w, r)).unwrap_or([0; 32]);
        let mut v = [0u32; 32];
        let pred = |s: &mut Self, pd, f: &dyn Fn(usize) -> bool| {
            let m = (0..lanes).fold(0u32, |m, l| m | (f(l) as u32) << l);
            s.write_pred(w, pd, exec, m);
            Late::None
        };
        match instr.op {
            Op::Alu { op, rd, .. } => {
                for l in 0..lanes {
                    v[l] = semantics::alu(op, a[l], b[l]);
                }
                self.reg_write(w, rd, exec, v)
            }
            Op::AluImm { op, rd, imm, .. } => {
                for l in 0..lanes {
                    v[l] = semantics::alu(op, a[l], imm as u32);
                }
                self.reg_write(w, rd, exec, v)
            }
            Op::MovI { rd, imm } => self.reg_write(w, rd, exec, [imm as u32; 32]),
            Op::MovHi { rd, imm } => {
                for l in 0..lanes {
                    v[l] = (imm as u32) << 16 | (a[l] & 0xffff);
                }
                self.reg_write(w, rd, exec, v)
            }
            Op::SetP { cmp, pd, .. } => pred(self, pd, &|l| semantics::compare(cmp, a[l], b[l])),
            Op::SetPImm { cmp, pd, imm, .. } => {
                pred(self, pd, &|l| semantics::compare(cmp, a[l], imm as u32))
            }
            Op::PLogic {
                op,
                pd,
                a: pa,
                b: pb,
            } => {
                let (ma, mb) = (self.pred_mask(w, pa), self.pred_mask(w, pb));
                let m = match op {
                    PredOp::And => ma & mb,
                    PredOp::Or => ma | mb,
                    PredOp::Xor => ma ^ mb,
                };
                self.write_pred(w, pd, exec, m);
                Late::None
            }
            Op::Sel { rd, p, .. } => {
                let pm = self.pred_mask(w, p);
                for l in 0..lanes {
                    v[l] = if pm >> l & 1 == 1 { a[l] } else { b[l] };
                }
                self.reg_write(w, rd, exec, v)
            }
            Op::S2R { rd, sreg } => {
                let warp = &self.warps[w];
                let s = &self.slots[slot];
                for l in 0..lanes {
                    let ctx = ThreadCtx {
                        tid: warp.tid[l],
                        tid_linear: warp.wib * lanes as u32 + l as u32,
                        lane: l as u32,
                        warp: warp.wib,
                        nwarps: self.occ.nwarps,
                        warp_size: lanes as u32,
                        block_dim: self.block,
                        block_id: s.ctaid,
                        grid_dim: self.grid,
                        // `%clock`: `cycles` as it is in R, two cycles before A.
                        clock: now.saturating_sub(2),
                    };
                    v[l] = simt::special_register(sreg, &ctx);
                }
                self.reg_write(w, rd, exec, v)
            }
            Op::LdParam { rd, index } => {
                let p = self.params.get(index as usize).copied().unwrap_or(0);
                self.reg_write(w, rd, exec, [p; 32])
            }
            Op::Vote { kind, pd, p } => {
                let yes = self.pred_mask(w, p);
                let r = if semantics::vote(kind, exec, yes) {
                    u32::MAX
                } else {
                    0
                };
                self.write_pred(w, pd, exec, r);
                Late::None
            }
            Op::Ballot { rd, p } => {
                let m = exec & self.pred_mask(w, p);
                self.reg_write(w, rd, exec, [m; 32])
            }
            Op::Nop => Late::None,
            _ => unreachable!("control and memory instructions are not data instructions"),
        }
    }

    /// Loads, stores, atomics (§9.3 "memory pass", §10).
    #[allow(clippy::too_many_arguments)]
    fn memory(
        &mut self,
        w: usize,
        slot: usize,
        instr: Instr,
        active: u32,
        exec: u32,
        falls_off: Option<(u32, TrapCause)>,
        free_entries: usize,
    ) -> Option<Late> {
        let (space, bytes, base, offset, data_reg, rd) = match instr.op {
            Op::Load {
                space,
                width,
                rd,
                base,
                offset,
            } => (space, width.bytes(), base, offset, None, Some(rd)),
            Op::Store {
                space,
                width,
                src,
                base,
                offset,
            } => (space, width.bytes(), base, offset, Some(src), None),
            Op::Atom {
                space,
                rd,
                addr,
                src,
                ..
            } => (space, 4, addr, 0, Some(src), Some(rd)),
            _ => unreachable!("a memory instruction"),
        };
        let a = self.reg(w, base);
        let mut addrs = [0u32; 32];
        for l in 0..32 {
            addrs[l] = a[l].wrapping_add(offset as u32);
        }
        let size = match space {
            Space::Shared => self.occ.window_bytes,
            Space::Global => self.hw.global_bytes,
        };
        let first_thread = self.warps[w].wib * self.hw.lanes as u32;
        let checked =
            checks::check_access(space, size, &addrs, exec, bytes, &self.stacks, first_thread);
        if let Some((lanes, cause)) = checked.err().or(falls_off) {
            {
                self.trap(w, lanes, cause);
                return None;
            }
        }
        let atomic = matches!(instr.op, Op::Atom { .. });
        let pending = exec;
        let refused = pending != 0
            && match space {
                Space::Shared => {
                    let busy = self.shared_port_busy();
                    if busy {
                        self.counters.inc(Counter::PortBusyReplays);
                    }
                    busy
                }
                Space::Global => {
                    let full = free_entries == 0;
                    if full {
                        self.counters.inc(Counter::QueueFullReplays);
                    }
                    full
                }
            };
        let (line, banks) = (self.hw.global_line_bytes, self.hw.shared_banks as u32);
        let served = if refused {
            0
        } else if atomic {
            simt::serve_atomic(pending)
        } else {
            simt::serve(pending, |l| simt::memory_key(space, addrs[l], line, banks))
        };
        self.tr.a_served = served;
        let data = data_reg.map(|r| self.reg(w, r)).unwrap_or([0; 32]);
        let rd_row = rd.map_or(0, |r| self.hw.rf_row(w, r.index()));
        let late = if served == 0 {
            Late::None
        } else {
            match space {
                Space::Shared => {
                    let window = slot * self.occ.window_bytes as usize;
                    let mut phys = [0usize; 32];
                    for l in lanes_of(served) {
                        phys[l] = window + addrs[l] as usize;
                    }
                    match instr.op {
                        Op::Load { width, .. } => Late::SharedLoad {
                            row: rd_row,
                            lanes: served,
                            addrs: phys,
                            width,
                            values: [0; 32],
                        },
                        Op::Store { width, .. } => Late::SharedStore {
                            lanes: served,
                            addrs: phys,
                            data,
                            width,
                        },
                        Op::Atom { op, .. } => {
                            let lane = served.trailing_zeros() as usize;
                            Late::SharedAtomic {
                                row: rd_row,
                                lane,
                                addr: phys[lane],
                                op,
                                operand: data[lane],
                                old: 0,
                            }
                        }
                        _ => unreachable!(),
                    }
                }
                Space::Global => {
                    let (kind, store, atom) = match instr.op {
                        Op::Load { width, .. } => (Kind::Read(width), None, None),
                        Op::Store { width, .. } => (Kind::Write, Some(width), None),
                        Op::Atom { op, .. } => (Kind::Atomic, None, Some(op)),
                        _ => unreachable!(),
                    };
                    let id = self.global.reserve(
                        kind,
                        w,
                        self.warps[w].gpc,
                        rd_row,
                        served,
                        &addrs,
                        &data,
                        store,
                        atom,
                    );
                    self.warps[w].outstanding += 1;
                    self.counters.inc(Counter::GlobalRequests);
                    Late::Entry(id)
                }
            }
        };
        let (left, leaving) = simt::replay_split(active, pending & !served);
        let warp = &mut self.warps[w];
        if left != 0 {
            warp.replay = true;
            let npc = warp.gpc + 1;
            for l in lanes_of(leaving) {
                warp.pc[l] = npc;
            }
            self.tr.a_pcw |= leaving;
            warp.gmask = left;
            self.counters.inc(Counter::Replays);
        } else {
            warp.replay = false;
            self.advance(w);
        }
        Some(late)
    }

    /// Control instructions (§8 "Control", §9.3, §9.4): the effects of
    /// `concord_isa::simt::control_effects`, then the group from the tree.
    fn control(
        &mut self,
        w: usize,
        slot: usize,
        instr: Instr,
        active: u32,
        exec: u32,
    ) -> Option<Late> {
        let operand = match instr.op {
            Op::Jmp { rs } | Op::CallR { rs, .. } | Op::Ret { rs } => self.reg(w, rs),
            _ => [0; 32],
        };
        let pred = match instr.op {
            Op::BraCons { p, .. } => self.pred_mask(w, p),
            _ => 0,
        };
        let issue = ControlIssue {
            op: instr.op,
            pc: self.warps[w].gpc,
            active,
            exec,
            operand: &operand,
            pred,
            depths: &self.warps[w].depth,
            max_depth: self.hw.max_call_depth,
            code_len: self.code.len() as u32,
        };
        let fx = match simt::control_effects(&issue) {
            Ok(fx) => fx,
            Err((lanes, cause)) => {
                self.trap(w, lanes, cause);
                return None;
            }
        };
        let late = match fx.link {
            Some((rd, link)) => self.reg_write(w, rd, exec, [link; 32]),
            None => Late::None,
        };
        let warp = &mut self.warps[w];
        for l in lanes_of(active) {
            warp.pc[l] = fx.next_pc[l];
        }
        self.tr.a_pcw |= active;
        warp.depth = fx.depth;
        warp.waiting |= fx.waits;
        warp.alive &= !fx.exits;
        if fx.divergent {
            self.counters.inc(Counter::DivergentBranches);
        }
        match fx.taken {
            Some(true) => self.counters.inc(Counter::ConsensualTaken),
            Some(false) => self.counters.inc(Counter::ConsensualNotTaken),
            None => {}
        }
        // The group from the tree (branch mode).
        self.rearbitrate(w);
        match instr.op {
            Op::Bar => self.barrier_exit(w, slot, BlockEvent::Arrive(exec.count_ones())),
            Op::Exit => self.barrier_exit(w, slot, BlockEvent::Exit(exec.count_ones())),
            _ => {}
        }
        Some(late)
    }

    /// §9.4: barrier and exit accounting (`concord_isa::simt::barrier_commit`)
    /// after the commit of a `bar.sync` or `exit` pass of warp `w` in slot `b`.
    fn barrier_exit(&mut self, w: usize, b: usize, event: BlockEvent) {
        let threads = self.occ.threads;
        if let BlockEvent::Arrive(n) = event {
            self.counters.add(Counter::BarrierArrivals, n as u64);
        }
        let before = (self.slots[b].arrived, self.slots[b].exited);
        let out = simt::barrier_commit(before.0, before.1, threads, event);
        self.slots[b].arrived = out.arrived;
        self.slots[b].exited = out.exited;
        let nwarps = self.occ.nwarps as usize;
        let warps = b * nwarps..(b + 1) * nwarps;
        if out.release {
            for v in warps {
                self.warps[v].waiting = 0;
                self.warps[v].rearb = true;
            }
            self.counters.inc(Counter::Barriers);
        } else if out.never_completes {
            let v = warps
                .clone()
                .find(|&v| self.warps[v].waiting != 0)
                .unwrap_or(w);
            let warp = &self.warps[v];
            let lanes = warp.waiting;
            let trap = Trap {
                cause: TrapCause::BarrierNeverCompletes {
                    waiting: out.arrived,
                    exited: out.exited,
                    threads,
                },
                block: self.slots[b].ctaid,
                warp: warp.wib,
                lanes,
                pc: warp.pc[lanes.trailing_zeros().min(31) as usize],
                issued: self.issued_instructions,
            };
            self.raise(b, trap);
        }
        if out.retire {
            self.retire(b);
        }
    }
}
