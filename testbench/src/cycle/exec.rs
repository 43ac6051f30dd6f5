//! `EXEC` (docs/microarchitecture.md §5) and the memory states (§6-§8):
//! every data operation goes through `concord_isa::semantics`, every SIMT
//! rule (control effects, join, served lanes, store merge, barriers, `s2r`)
//! through `concord_isa::simt`.

// Lane loops index several per-lane arrays with the same lane number.
#![allow(clippy::needless_range_loop)]

use concord_isa::checks::{self, Stacks};
use concord_isa::func::TrapCause;
use concord_isa::instr::{AtomOp, Op, Pred, Reg, Space, SpecialReg};
use concord_isa::semantics;
use concord_isa::simt::{self, BlockEvent, ControlIssue, ThreadCtx};
use concord_uarch::keys;
use concord_uarch::params::pred_trace_addr;

use super::{CycleModel, GlobalRequest};
use super::{BARRIERS, BAR_ARRIVALS, CONS_NOT_TAKEN, CONS_TAKEN, CYCLES, DIVERGENT, REPLAYS};
use crate::trace::{State, TracePort};

/// Lanes of a mask, lowest first.
#[inline(always)]
fn lanes_of(mut m: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            l
        })
    })
}

/// How a memory instruction accesses memory.
#[derive(Clone, Copy)]
enum Access {
    Load(concord_isa::LoadWidth),
    Store(concord_isa::StoreWidth),
    Atom(AtomOp),
}

/// Space, access, register written (loads, atomics), bytes, offset.
fn memory_op(op: &Op) -> Option<(Space, Access, Reg, u32, i32)> {
    match *op {
        Op::Load {
            space,
            width,
            rd,
            offset,
            ..
        } => Some((space, Access::Load(width), rd, width.bytes(), offset)),
        Op::Store {
            space,
            width,
            src,
            offset,
            ..
        } => Some((space, Access::Store(width), src, width.bytes(), offset)),
        Op::Atom { space, op, rd, .. } => Some((space, Access::Atom(op), rd, 4, 0)),
        _ => None,
    }
}

impl CycleModel {
    /// Writes `values` into `rd` of the `mask` lanes of the issuing warp,
    /// through the register-file write port (shown on the trace).
    fn write_rf(&mut self, t: &mut TracePort, rd: Reg, mask: u32, values: &[u32; 32]) {
        let mask = mask & self.hw.lane_mask;
        if mask == 0 {
            return;
        }
        let row = self.hw.rf_row(self.cur, rd.index());
        t.rf_we = mask;
        t.rf_addr = row as u32;
        // Rows past the file (registers beyond the configuration) are not stored.
        let mut stored = self.rf.get_mut(row);
        for l in lanes_of(mask) {
            t.rf_data[l] = values[l];
            if let Some(r) = stored.as_deref_mut() {
                r[l] = values[l];
            }
        }
    }

    /// Writes the `values` bits of the `mask` lanes into `pd` of the issuing
    /// warp. Writes to `pt` are no writes.
    fn write_pred(&mut self, t: &mut TracePort, pd: Pred, mask: u32, values: u32) {
        let mask = mask & self.hw.lane_mask;
        if mask == 0 || pd.is_true() {
            return;
        }
        let p = pd.index();
        t.pred_we = mask;
        t.pred_addr = pred_trace_addr(self.cur, p);
        t.pred_data = values & mask;
        if p < self.hw.predicates {
            let w = &mut self.warps[self.cur];
            w.pred[p] = (w.pred[p] & !mask) | (values & mask);
        }
    }

    /// A predicate source of the issuing warp as a lane mask.
    fn pred_of(&self, p: concord_isa::PredSrc) -> u32 {
        self.pred_src(&self.warps[self.cur], p)
    }

    pub(super) fn execute(&mut self, t: &mut TracePort) {
        if self.instr.is_control() {
            self.control(t);
        } else if self.instr.is_memory() {
            self.memory_exec();
        } else {
            self.data(t);
        }
    }

    /// *Advance* (§5, `concord_isa::simt::advance`): the group moves to
    /// `pc + 1` and the lanes waiting there join it. `gvalid` stays 1.
    fn advance(&mut self) {
        let policy = self.hw.arbitration;
        let w = &mut self.warps[self.cur];
        w.group = simt::advance(&w.group, &w.pc, &w.depth, w.schedulable(), policy);
    }

    /// Data instructions: checks, compute, write `rd`/`pd` of the executing
    /// lanes, advance.
    fn data(&mut self, t: &mut TracePort) {
        let lanes = self.hw.lanes;
        let exec = self.exec;
        // The instruction's own check, then the next PC (`concord_isa::checks`).
        if let Op::LdParam { index, .. } = self.instr.op {
            if exec != 0 && index as u32 >= self.param_count {
                let cause = TrapCause::MissingParam {
                    index,
                    supplied: self.param_count,
                };
                let lanes = self.warps[self.cur].group.mask;
                self.raise_here(cause, lanes);
                return;
            }
        }
        if self.falls_off() {
            return;
        }
        let (a, b) = (&self.a, &self.b);
        let mut v = [0u32; 32];
        match self.instr.op {
            Op::Alu { op, rd, .. } => {
                for l in 0..lanes {
                    v[l] = semantics::alu(op, a[l], b[l]);
                }
                self.write_rf(t, rd, exec, &v);
            }
            Op::AluImm { op, rd, imm, .. } => {
                for l in 0..lanes {
                    v[l] = semantics::alu(op, a[l], imm as u32);
                }
                self.write_rf(t, rd, exec, &v);
            }
            Op::MovI { rd, imm } => {
                v = [imm as u32; 32];
                self.write_rf(t, rd, exec, &v);
            }
            Op::MovHi { rd, imm } => {
                for l in 0..lanes {
                    v[l] = (imm as u32) << 16 | (a[l] & 0xffff);
                }
                self.write_rf(t, rd, exec, &v);
            }
            Op::SetP { cmp, pd, .. } => {
                let mut m = 0u32;
                for l in 0..lanes {
                    m |= (semantics::compare(cmp, a[l], b[l]) as u32) << l;
                }
                self.write_pred(t, pd, exec, m);
            }
            Op::SetPImm { cmp, pd, imm, .. } => {
                let mut m = 0u32;
                for l in 0..lanes {
                    m |= (semantics::compare(cmp, a[l], imm as u32) as u32) << l;
                }
                self.write_pred(t, pd, exec, m);
            }
            Op::PLogic {
                op,
                pd,
                a: pa,
                b: pb,
            } => {
                let (ma, mb) = (self.pred_of(pa), self.pred_of(pb));
                let mut m = 0u32;
                for l in 0..lanes {
                    let r = semantics::pred_logic(op, ma >> l & 1 == 1, mb >> l & 1 == 1);
                    m |= (r as u32) << l;
                }
                self.write_pred(t, pd, exec, m);
            }
            Op::Sel { rd, p, .. } => {
                let pm = self.pred_of(p);
                for l in 0..lanes {
                    v[l] = if pm >> l & 1 == 1 { a[l] } else { b[l] };
                }
                self.write_rf(t, rd, exec, &v);
            }
            Op::S2R { rd, sreg } => {
                self.special(sreg, &mut v);
                self.write_rf(t, rd, exec, &v);
            }
            Op::LdParam { rd, index } => {
                if exec != 0 {
                    v = [self.params[index as usize]; 32];
                    self.write_rf(t, rd, exec, &v);
                }
            }
            Op::Vote { kind, pd, p } => {
                let yes = self.pred_of(p);
                let r = if semantics::vote(kind, exec, yes) {
                    u32::MAX
                } else {
                    0
                };
                self.write_pred(t, pd, exec, r);
            }
            Op::Ballot { rd, p } => {
                v = [exec & self.pred_of(p); 32];
                self.write_rf(t, rd, exec, &v);
            }
            Op::Nop => {}
            _ => unreachable!("control and memory instructions are not data instructions"),
        }
        self.advance();
        self.state = State::Sched;
    }

    /// `s2r`: the special register of every lane of the issuing warp.
    fn special(&self, sreg: SpecialReg, v: &mut [u32; 32]) {
        let lanes = self.hw.lanes;
        let uniform = ThreadCtx {
            warp: self.cur as u32,
            nwarps: self.threads.div_ceil(lanes as u32),
            warp_size: lanes as u32,
            block_dim: self.block,
            block_id: self.block_id,
            grid_dim: self.grid,
            clock: self.counters[CYCLES],
            ..ThreadCtx::default()
        };
        for l in 0..lanes {
            let tid = (self.cur * lanes + l) as u32;
            let lane = ThreadCtx {
                tid: simt::thread_index(tid, self.block),
                tid_linear: tid,
                lane: l as u32,
                ..uniform
            };
            v[l] = simt::special_register(sreg, &lane);
        }
    }

    /// The next-PC check of an instruction whose active lanes all continue
    /// at `pc + 1`: raises the trap and returns true if that is outside the
    /// program.
    fn falls_off(&mut self) -> bool {
        let w = &self.warps[self.cur];
        match checks::check_fall_through(self.code_len, w.group.pc, w.group.mask) {
            Ok(()) => false,
            Err((lanes, cause)) => {
                self.raise_here(cause, lanes);
                true
            }
        }
    }

    /// The per-thread stacks of the loaded kernel.
    fn stacks(&self) -> Stacks {
        Stacks::for_core(
            self.hw.global_bytes,
            self.hw.lanes as u32,
            self.hw.warps as u32,
            self.stack_bytes,
        )
    }

    /// Control instructions: checks, then every active lane's next PC and
    /// depth (`concord_isa::simt::control_effects`).
    fn control(&mut self, t: &mut TracePort) {
        let cur = self.cur;
        let exec = self.exec;
        let w = &self.warps[cur];
        let (active, pc) = (w.group.mask, w.group.pc);
        let pred = match self.instr.op {
            Op::BraCons { p, .. } => self.pred_of(p),
            _ => 0,
        };
        let issue = ControlIssue {
            op: self.instr.op,
            pc,
            active,
            exec,
            // The register operand of `jmp`, `callr`, `ret`, read in `DECODE`.
            operand: &self.a,
            pred,
            depths: &w.depth,
            max_depth: self.hw.max_call_depth,
            code_len: self.code_len,
        };
        let effects = match simt::control_effects(&issue) {
            Ok(effects) => effects,
            Err((lanes, cause)) => {
                self.raise_here(cause, lanes);
                return;
            }
        };

        if let Some((rd, link)) = effects.link {
            self.write_rf(t, rd, exec, &[link; 32]);
        }
        let w = &mut self.warps[cur];
        // Every active lane gets its own PC: the cached group is gone.
        w.gvalid = false;
        for l in lanes_of(active) {
            w.pc[l] = effects.next_pc[l];
        }
        w.depth = effects.depth;
        w.alive &= !effects.exits;
        w.waiting |= effects.waits;
        match effects.taken {
            Some(true) => self.counters[CONS_TAKEN] += 1,
            Some(false) => self.counters[CONS_NOT_TAKEN] += 1,
            None => {}
        }
        if effects.divergent {
            self.counters[DIVERGENT] += 1;
        }
        let event = match self.instr.op {
            Op::Bar => Some(BlockEvent::Arrive(effects.waits.count_ones())),
            Op::Exit => Some(BlockEvent::Exit(effects.exits.count_ones())),
            _ => None,
        };
        if let Some(event) = event {
            if let BlockEvent::Arrive(arrivals) = event {
                self.counters[BAR_ARRIVALS] += arrivals as u64;
            }
            // A barrier that can never complete, and the end of the block,
            // are found in `SCHED` (no schedulable warp), the next cycle.
            let outcome = simt::barrier_commit(self.arrived, self.exited, self.threads, event);
            self.arrived = outcome.arrived;
            self.exited = outcome.exited;
            if outcome.release {
                for other in &mut self.warps {
                    other.materialize();
                    other.waiting = 0;
                    other.gvalid = false;
                }
                self.counters[BARRIERS] += 1;
            }
        }
        self.state = State::Sched;
    }

    /// Memory instructions in `EXEC`: addresses and checks (the access,
    /// then the next PC).
    fn memory_exec(&mut self) {
        let (space, _, _, bytes, offset) = memory_op(&self.instr.op).expect("a memory instruction");
        let size = match space {
            Space::Shared => self.hw.shared_bytes,
            Space::Global => self.hw.global_bytes,
        };
        let exec = self.exec;
        for l in 0..self.hw.lanes {
            self.maddr[l] = self.a[l].wrapping_add(offset as u32);
        }
        let first_thread = (self.cur * self.hw.lanes) as u32;
        let stacks = self.stacks();
        let checked =
            checks::check_access(space, size, &self.maddr, exec, bytes, &stacks, first_thread);
        if let Err((lanes, cause)) = checked {
            self.raise_here(cause, lanes);
            return;
        }
        if self.falls_off() {
            return;
        }
        self.pending = exec;
        if exec == 0 {
            self.served = 0;
            self.complete();
        } else {
            self.state = State::MemArb;
        }
    }

    pub(super) fn mem_arb(&mut self) {
        let (space, access, ..) = memory_op(&self.instr.op).expect("a memory instruction");
        let maddr = &self.maddr;
        let banks = self.hw.shared_banks as u32;
        let line_bytes = self.hw.global_line_bytes;
        self.served = match access {
            // v1 serves atomics by (word address, lane), as its tree does;
            // `simt::serve_atomic` (by lane) gives the same memory state.
            Access::Atom(_) => simt::arbitrate(self.pending, |l| keys::atomic_key(maddr[l], l)).1,
            _ => simt::serve(self.pending, |l| {
                simt::memory_key(space, maddr[l], line_bytes, banks)
            }),
        };
        self.state = match space {
            Space::Shared => State::ShAccess,
            Space::Global => State::GReq,
        };
    }

    /// Shared banks: stores write the bytes of the served lanes (the highest
    /// lane wins a byte); loads and atomics read (used in `SH_DATA`).
    pub(super) fn sh_access(&mut self) {
        if let Some((_, Access::Store(width), ..)) = memory_op(&self.instr.op) {
            let shared = &mut self.shared;
            simt::store_merge(self.served, &self.maddr, &self.b, width, |addr, byte| {
                shared[addr as usize] = byte;
            });
        }
        self.state = State::ShData;
    }

    fn shared_word(&self, addr: u32) -> u32 {
        let at = (addr & !3) as usize;
        u32::from_le_bytes(self.shared[at..at + 4].try_into().expect("4 bytes"))
    }

    pub(super) fn sh_data(&mut self, t: &mut TracePort) {
        let (_, access, rd, ..) = memory_op(&self.instr.op).expect("a memory instruction");
        let mut v = [0u32; 32];
        match access {
            Access::Load(width) => {
                for l in lanes_of(self.served) {
                    let addr = self.maddr[l];
                    let raw = self.shared_word(addr) >> (8 * (addr & 3));
                    v[l] = semantics::load_extend(width, raw);
                }
                self.write_rf(t, rd, self.served, &v);
            }
            Access::Atom(op) => {
                for l in lanes_of(self.served) {
                    let addr = self.maddr[l];
                    let old = self.shared_word(addr);
                    let new = semantics::atomic(op, old, self.b[l]);
                    self.shared[addr as usize..addr as usize + 4]
                        .copy_from_slice(&new.to_le_bytes());
                    v[l] = old;
                }
                self.write_rf(t, rd, self.served, &v);
            }
            Access::Store(_) => {}
        }
        self.complete();
    }

    /// The global request output in `G_REQ` (§8).
    pub(super) fn request(&self) -> GlobalRequest {
        let (_, access, ..) = memory_op(&self.instr.op).expect("a memory instruction");
        let first = self.served.trailing_zeros().min(31) as usize;
        let line = self.maddr[first] & !(self.hw.global_line_bytes - 1);
        let mut r = GlobalRequest {
            addr: line,
            ..GlobalRequest::default()
        };
        match access {
            Access::Load(_) => r.kind = GlobalRequest::READ,
            Access::Store(width) => {
                r.kind = GlobalRequest::WRITE;
                simt::store_merge(self.served, &self.maddr, &self.b, width, |addr, value| {
                    let byte = (addr - line) as usize;
                    let shift = 8 * (byte % 4);
                    let d = &mut r.wdata[byte / 4];
                    *d = (*d & !(0xff << shift)) | u32::from(value) << shift;
                    r.mask[byte / 32] |= 1 << (byte % 32);
                });
            }
            Access::Atom(op) => {
                r.kind = GlobalRequest::ATOMIC;
                r.addr = self.maddr[first];
                r.atom_op = AtomOp::ALL
                    .iter()
                    .position(|o| *o == op)
                    .expect("an AtomOp") as u32;
                r.atom_data = self.b[first];
            }
        }
        r
    }

    /// `G_WAIT` in the cycle the response arrives.
    pub(super) fn g_response(&mut self, data: &[u32; 32], t: &mut TracePort) {
        let (_, access, rd, ..) = memory_op(&self.instr.op).expect("a memory instruction");
        let mut v = [0u32; 32];
        match access {
            Access::Load(width) => {
                let first = self.served.trailing_zeros().min(31) as usize;
                let line = self.maddr[first] & !(self.hw.global_line_bytes - 1);
                for l in lanes_of(self.served) {
                    let off = self.maddr[l] - line;
                    let raw = data[(off / 4) as usize] >> (8 * (off % 4));
                    v[l] = semantics::load_extend(width, raw);
                }
                self.write_rf(t, rd, self.served, &v);
            }
            Access::Atom(_) => {
                v = [data[0]; 32];
                self.write_rf(t, rd, self.served, &v);
            }
            Access::Store(_) => {}
        }
        self.complete();
    }

    /// *Complete* a memory issue (§7).
    fn complete(&mut self) {
        self.pending &= !self.served;
        let w = &mut self.warps[self.cur];
        let pc = w.group.pc;
        let active = w.group.mask;
        if self.pending == 0 {
            // Served and guard-false lanes alike are at pc + 1: the group advances.
            self.advance();
        } else {
            self.counters[REPLAYS] += 1;
            // v1 re-arbitrates (`ARB`), which selects the pending lanes again
            // (`simt::replay_split`); their PC registers get `gpc`.
            let (pending, leaving) = simt::replay_split(active, self.pending);
            for l in lanes_of(pending) {
                w.pc[l] = pc;
            }
            for l in lanes_of(leaving) {
                w.pc[l] = pc + 1;
            }
            w.gvalid = false;
        }
        self.state = State::Sched;
    }
}
