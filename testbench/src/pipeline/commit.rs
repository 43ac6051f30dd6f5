//! Stage A for a warp pass (docs/microarchitecture-v2.md §8, §9.3, §9.4,
//! §13.1): the checks in the order of `concord_isa::checks`, the trap
//! decision, and the commit of every instruction class.

// Lane loops index several per-lane arrays with the same lane number.
#![allow(clippy::needless_range_loop)]

use concord_isa::checks;
use concord_isa::func::{Trap, TrapCause};
use concord_isa::instr::{Instr, Op, PredOp, PredSrc, Reg, Space, SpecialReg};
use concord_isa::semantics;

use super::global::Kind;
use super::item::{Late, RegWrite};
use super::warp::SlotState;
use super::{lanes_of, rules, Pipeline, V2Counter};

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
        Late::None
    }

    /// Advance (§9.3): `gpc += 1`, `gmask |= join`.
    fn advance(&mut self, w: usize) {
        let policy = self.hw.arbitration;
        let warp = &mut self.warps[w];
        warp.gpc += 1;
        let others = warp.schedulable() & !warp.gmask;
        warp.gmask |= rules::join(policy, others, warp.gpc, warp.gdepth, &warp.pc, &warp.depth);
    }

    /// The commit of a warp pass of `w` at A in this cycle (`now` is the
    /// cycle's `cycles` value); returns what M and W still do.
    pub(crate) fn commit(&mut self, w: usize, now: u64, free_entries: usize) -> Late {
        self.warps[w].busy_i = false;
        let slot = self.warps[w].wslot.expect("a selected warp has a slot");
        if self.slots[slot].state == SlotState::Frozen {
            self.counters.inc(V2Counter::Squashed);
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
        let count = |s: &mut Self| {
            s.counters.inc(V2Counter::Issued);
            s.counters
                .add(V2Counter::ActiveLaneSlots, active.count_ones() as u64);
            s.counters
                .add(V2Counter::ExecutedLaneSlots, exec.count_ones() as u64);
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
                // `%clock`: `cycles` as it is in R, two cycles before A.
                let clock = now.saturating_sub(2);
                for l in 0..lanes {
                    v[l] = match sreg {
                        SpecialReg::TidX => warp.tid[l][0],
                        SpecialReg::TidY => warp.tid[l][1],
                        SpecialReg::TidZ => warp.tid[l][2],
                        SpecialReg::TidLinear => warp.wib * lanes as u32 + l as u32,
                        SpecialReg::LaneId => l as u32,
                        SpecialReg::NtidX => self.block[0],
                        SpecialReg::NtidY => self.block[1],
                        SpecialReg::NtidZ => self.block[2],
                        SpecialReg::CtaidX => s.ctaid[0],
                        SpecialReg::CtaidY => s.ctaid[1],
                        SpecialReg::CtaidZ => s.ctaid[2],
                        SpecialReg::NctaidX => self.grid[0],
                        SpecialReg::NctaidY => self.grid[1],
                        SpecialReg::NctaidZ => self.grid[2],
                        SpecialReg::WarpId => warp.wib,
                        SpecialReg::NWarps => self.occ.nwarps,
                        SpecialReg::WarpSize => lanes as u32,
                        SpecialReg::ClockLo => clock as u32,
                        SpecialReg::ClockHi => (clock >> 32) as u32,
                    };
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
                        self.counters.inc(V2Counter::PortBusyReplays);
                    }
                    busy
                }
                Space::Global => {
                    let full = free_entries == 0;
                    if full {
                        self.counters.inc(V2Counter::QueueFullReplays);
                    }
                    full
                }
            };
        let shift = match space {
            Space::Shared => self.hw.shared_row_shift,
            Space::Global => self.hw.global_line_shift,
        };
        let served = if refused {
            0
        } else {
            rules::serve(pending, atomic, |l| (addrs[l] >> shift) as u64)
        };
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
                    let id = self
                        .global
                        .reserve(kind, w, rd_row, served, &addrs, &data, store, atom);
                    self.warps[w].outstanding += 1;
                    self.counters.inc(V2Counter::GlobalRequests);
                    Late::Entry(id)
                }
            }
        };
        let left = pending & !served;
        let warp = &mut self.warps[w];
        if left != 0 {
            warp.replay = true;
            let npc = warp.gpc + 1;
            for l in lanes_of(active & !left) {
                warp.pc[l] = npc;
            }
            warp.gmask = left;
            self.counters.inc(V2Counter::Replays);
        } else {
            warp.replay = false;
            self.advance(w);
        }
        Some(late)
    }

    /// Control instructions (§8 "Control", §9.3, §9.4).
    fn control(
        &mut self,
        w: usize,
        slot: usize,
        instr: Instr,
        active: u32,
        exec: u32,
    ) -> Option<Late> {
        let max_depth = self.hw.max_call_depth;
        let code_len = self.code.len() as u32;
        let pc = self.warps[w].gpc;
        let depth = self.warps[w].depth;
        match instr.op {
            Op::Call { .. } | Op::CallR { .. } => {
                let over = lanes_of(exec)
                    .filter(|&l| depth[l] >= max_depth)
                    .fold(0u32, |m, l| m | 1 << l);
                if over != 0 {
                    {
                        self.trap(w, over, TrapCause::CallDepthOverflow { max: max_depth });
                        return None;
                    }
                }
            }
            Op::Ret { .. } => {
                let zero = lanes_of(exec)
                    .filter(|&l| depth[l] == 0)
                    .fold(0u32, |m, l| m | 1 << l);
                if zero != 0 {
                    {
                        self.trap(w, zero, TrapCause::ReturnAtDepthZero);
                        return None;
                    }
                }
            }
            _ => {}
        }
        let mut next = [pc + 1; 32];
        let mut moving = active;
        let mut taken = None;
        match instr.op {
            Op::Bra { target } | Op::Call { target, .. } => {
                for l in lanes_of(exec) {
                    next[l] = target;
                }
            }
            Op::BraCons { kind, p, target } => {
                let t = semantics::consensus_taken(kind, exec, self.pred_mask(w, p));
                if t {
                    next = [target; 32];
                }
                taken = Some(t);
            }
            Op::Jmp { rs } | Op::CallR { rs, .. } | Op::Ret { rs } => {
                let t = self.reg(w, rs);
                for l in lanes_of(exec) {
                    next[l] = t[l];
                }
            }
            Op::Exit => moving &= !exec,
            _ => {}
        }
        if let Err((lanes, cause)) = checks::check_next_pcs(code_len, moving, &next) {
            {
                self.trap(w, lanes, cause);
                return None;
            }
        }
        let late = match instr.op {
            Op::Call { rd, .. } | Op::CallR { rd, .. } => self.reg_write(w, rd, exec, [pc + 1; 32]),
            _ => Late::None,
        };
        let warp = &mut self.warps[w];
        for l in lanes_of(active) {
            warp.pc[l] = next[l];
        }
        match instr.op {
            Op::Call { .. } | Op::CallR { .. } => {
                for l in lanes_of(exec) {
                    warp.depth[l] += 1;
                }
            }
            Op::Ret { .. } => {
                for l in lanes_of(exec) {
                    warp.depth[l] -= 1;
                }
            }
            Op::Bar => warp.waiting |= exec,
            Op::Exit => warp.alive &= !exec,
            _ => {}
        }
        let per_lane = matches!(
            instr.op,
            Op::Bra { .. } | Op::Jmp { .. } | Op::Call { .. } | Op::CallR { .. } | Op::Ret { .. }
        );
        if per_lane && active != 0 {
            let first = active.trailing_zeros() as usize;
            let key = |l: usize| (warp.pc[l], warp.depth[l]);
            if lanes_of(active).any(|l| key(l) != key(first)) {
                self.counters.inc(V2Counter::DivergentBranches);
            }
        }
        match taken {
            Some(true) => self.counters.inc(V2Counter::ConsensualTaken),
            Some(false) => self.counters.inc(V2Counter::ConsensualNotTaken),
            None => {}
        }
        // The group from the tree (branch mode).
        self.rearbitrate(w);
        if matches!(instr.op, Op::Bar | Op::Exit) {
            self.barrier_exit(w, slot, instr.op == Op::Bar, exec);
        }
        Some(late)
    }

    /// §9.4: barrier and exit accounting after the commit of a `bar.sync`
    /// or `exit` pass of warp `w` in slot `b`.
    fn barrier_exit(&mut self, w: usize, b: usize, bar: bool, exec: u32) {
        let n = exec.count_ones();
        let threads = self.occ.threads;
        if bar {
            self.slots[b].arrived += n;
            self.counters.add(V2Counter::BarrierArrivals, n as u64);
        } else {
            self.slots[b].exited += n;
        }
        let (arrived, exited) = (self.slots[b].arrived, self.slots[b].exited);
        let nwarps = self.occ.nwarps as usize;
        let warps = b * nwarps..(b + 1) * nwarps;
        if arrived == threads {
            for v in warps {
                self.warps[v].waiting = 0;
                self.warps[v].rearb = true;
            }
            self.slots[b].arrived = 0;
            self.counters.inc(V2Counter::Barriers);
        } else if arrived > 0 && exited > 0 && arrived + exited == threads {
            let v = warps
                .clone()
                .find(|&v| self.warps[v].waiting != 0)
                .unwrap_or(w);
            let warp = &self.warps[v];
            let lanes = warp.waiting;
            let trap = Trap {
                cause: TrapCause::BarrierNeverCompletes {
                    waiting: arrived,
                    exited,
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
        if exited == threads {
            self.retire(b);
        }
    }
}
