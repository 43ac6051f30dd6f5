//! `EXEC` (docs/microarchitecture.md §5) and the memory states (§6-§8):
//! every data operation goes through `concord_isa::semantics`.

// Lane loops index several per-lane arrays with the same lane number.
#![allow(clippy::needless_range_loop)]

use concord_isa::checks::{self, Stacks};
use concord_isa::config::Arbitration;
use concord_isa::func::TrapCause;
use concord_isa::instr::{AtomOp, Op, Pred, Reg, Space, SpecialReg};
use concord_isa::semantics;
use concord_uarch::keys;
use concord_uarch::params::pred_trace_addr;

use super::{arbiter, CycleModel, GlobalRequest, Warp};
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

    /// *Advance* (§5): the group moves to `pc + 1`; schedulable lanes
    /// waiting there with the group's key join it. `gvalid` stays 1.
    fn advance(&mut self) {
        let policy = self.hw.arbitration;
        let w = &mut self.warps[self.cur];
        let npc = w.gpc + 1;
        w.gpc = npc;
        let others = w.schedulable() & !w.gmask;
        if others != 0 {
            let depth = w.depth[w.gmask.trailing_zeros() as usize];
            let mut join = 0;
            for l in lanes_of(others) {
                if w.pc[l] == npc && (policy == Arbitration::PcOnly || w.depth[l] == depth) {
                    join |= 1 << l;
                }
            }
            w.gmask |= join;
        }
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
                let lanes = self.warps[self.cur].gmask;
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
        let [bx, by, bz] = self.block;
        let uniform = |v: &mut [u32; 32], x: u32| *v = [x; 32];
        let tid = |l: usize| (self.cur * lanes + l) as u32;
        match sreg {
            SpecialReg::TidX | SpecialReg::TidY | SpecialReg::TidZ => {
                for l in 0..lanes {
                    let t = tid(l);
                    v[l] = match sreg {
                        SpecialReg::TidX => t.checked_rem(bx).unwrap_or(0),
                        SpecialReg::TidY => {
                            t.checked_div(bx).unwrap_or(0).checked_rem(by).unwrap_or(0)
                        }
                        _ => t.checked_div(bx.wrapping_mul(by)).unwrap_or(0),
                    };
                }
            }
            SpecialReg::TidLinear => {
                for l in 0..lanes {
                    v[l] = tid(l);
                }
            }
            SpecialReg::LaneId => {
                for l in 0..lanes {
                    v[l] = l as u32;
                }
            }
            SpecialReg::NtidX => uniform(v, bx),
            SpecialReg::NtidY => uniform(v, by),
            SpecialReg::NtidZ => uniform(v, bz),
            SpecialReg::CtaidX => uniform(v, self.block_id[0]),
            SpecialReg::CtaidY => uniform(v, self.block_id[1]),
            SpecialReg::CtaidZ => uniform(v, self.block_id[2]),
            SpecialReg::NctaidX => uniform(v, self.grid[0]),
            SpecialReg::NctaidY => uniform(v, self.grid[1]),
            SpecialReg::NctaidZ => uniform(v, self.grid[2]),
            SpecialReg::WarpId => uniform(v, self.cur as u32),
            SpecialReg::NWarps => uniform(v, self.threads.div_ceil(lanes as u32)),
            SpecialReg::WarpSize => uniform(v, lanes as u32),
            SpecialReg::ClockLo => uniform(v, self.counters[CYCLES] as u32),
            SpecialReg::ClockHi => uniform(v, (self.counters[CYCLES] >> 32) as u32),
        }
    }

    /// The next-PC check of an instruction whose active lanes all continue
    /// at `pc + 1`: raises the trap and returns true if that is outside the
    /// program.
    fn falls_off(&mut self) -> bool {
        let w = &self.warps[self.cur];
        match checks::check_fall_through(self.code_len, w.gpc, w.gmask) {
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

    /// Control instructions: checks, then every active lane's next PC/depth.
    fn control(&mut self, t: &mut TracePort) {
        let cur = self.cur;
        let exec = self.exec;
        let max_depth = self.hw.max_call_depth;
        let (active, pc) = (self.warps[cur].gmask, self.warps[cur].gpc);
        let npc = pc + 1;

        // Checks before any lane changes.
        let w = &self.warps[cur];
        match self.instr.op {
            Op::Call { .. } | Op::CallR { .. } => {
                let over = lanes_of(exec)
                    .filter(|&l| w.depth[l] >= max_depth)
                    .fold(0u32, |m, l| m | 1 << l);
                if over != 0 {
                    self.raise_here(TrapCause::CallDepthOverflow { max: max_depth }, over);
                    return;
                }
            }
            Op::Ret { .. } => {
                let zero = lanes_of(exec)
                    .filter(|&l| w.depth[l] == 0)
                    .fold(0u32, |m, l| m | 1 << l);
                if zero != 0 {
                    self.raise_here(TrapCause::ReturnAtDepthZero, zero);
                    return;
                }
            }
            _ => {}
        }

        // Every active lane's next PC, checked before anything changes.
        let taken = match self.instr.op {
            Op::BraCons { kind, p, .. } => {
                Some(semantics::consensus_taken(kind, exec, self.pred_of(p)))
            }
            _ => None,
        };
        let a = self.a;
        let mut next = [npc; 32];
        let mut moving = active;
        match self.instr.op {
            Op::Bra { target } | Op::Call { target, .. } => {
                for l in lanes_of(exec) {
                    next[l] = target;
                }
            }
            Op::BraCons { target, .. } if taken == Some(true) => next = [target; 32],
            Op::Jmp { .. } | Op::CallR { .. } | Op::Ret { .. } => {
                for l in lanes_of(exec) {
                    next[l] = a[l];
                }
            }
            Op::Exit => moving &= !exec,
            _ => {}
        }
        if let Err((lanes, cause)) = checks::check_next_pcs(self.code_len, moving, &next) {
            self.raise_here(cause, lanes);
            return;
        }

        // The link value written by call/callr.
        if let Op::Call { rd, .. } | Op::CallR { rd, .. } = self.instr.op {
            self.write_rf(t, rd, exec, &[npc; 32]);
        }
        let per_lane = matches!(
            self.instr.op,
            Op::Bra { .. } | Op::Jmp { .. } | Op::Call { .. } | Op::CallR { .. } | Op::Ret { .. }
        );
        let w = &mut self.warps[cur];
        // Every active lane gets its own PC: the cached group is gone.
        w.gvalid = false;
        for l in lanes_of(active) {
            w.pc[l] = next[l];
        }
        match self.instr.op {
            Op::Bra { .. } | Op::Jmp { .. } => {}
            Op::BraCons { .. } => {
                if taken == Some(true) {
                    self.counters[CONS_TAKEN] += 1;
                } else {
                    self.counters[CONS_NOT_TAKEN] += 1;
                }
            }
            Op::Ret { .. } => {
                for l in lanes_of(exec) {
                    w.depth[l] -= 1;
                }
            }
            Op::Call { .. } | Op::CallR { .. } => {
                for l in lanes_of(exec) {
                    w.depth[l] += 1;
                }
            }
            Op::Bar => {
                w.waiting |= exec;
                let n = exec.count_ones();
                self.arrived += n;
                self.counters[BAR_ARRIVALS] += n as u64;
                if self.arrived == self.threads {
                    for other in &mut self.warps {
                        other.materialize();
                        other.waiting = 0;
                        other.gvalid = false;
                    }
                    self.arrived = 0;
                    self.counters[BARRIERS] += 1;
                }
            }
            Op::Exit => {
                w.alive &= !exec;
                self.exited += exec.count_ones();
            }
            _ => unreachable!("not a control instruction"),
        }
        let w = &mut self.warps[cur];
        if per_lane && active != 0 {
            let first = active.trailing_zeros() as usize;
            let key = |w: &Warp, l: usize| (w.pc[l], w.depth[l]);
            if lanes_of(active).any(|l| key(w, l) != key(w, first)) {
                self.counters[DIVERGENT] += 1;
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
        let banks = self.hw.shared_banks;
        let line_shift = self.hw.global_line_shift;
        let (_, sel) = arbiter::arbitrate(self.pending, |l| {
            let a = maddr[l];
            match (access, space) {
                (Access::Atom(_), _) => keys::atomic_key(a, l),
                (_, Space::Shared) => keys::shared_key(a, banks),
                (_, Space::Global) => keys::global_key(a, line_shift),
            }
        });
        self.served = sel;
        self.state = match space {
            Space::Shared => State::ShAccess,
            Space::Global => State::GReq,
        };
    }

    /// Shared banks: stores write the bytes of the served lanes (the highest
    /// lane wins a byte); loads and atomics read (used in `SH_DATA`).
    pub(super) fn sh_access(&mut self) {
        if let Some((_, Access::Store(width), ..)) = memory_op(&self.instr.op) {
            let n = width.bytes() as usize;
            for l in lanes_of(self.served) {
                let v = semantics::store_truncate(width, self.b[l]);
                let at = self.maddr[l] as usize;
                for j in 0..n {
                    self.shared[at + j] = (v >> (8 * j)) as u8;
                }
            }
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
                let n = width.bytes();
                for l in lanes_of(self.served) {
                    let v = semantics::store_truncate(width, self.b[l]);
                    let off = self.maddr[l] - line;
                    for j in 0..n {
                        let byte = (off + j) as usize;
                        let shift = 8 * (byte % 4);
                        let d = &mut r.wdata[byte / 4];
                        *d = (*d & !(0xff << shift)) | ((v >> (8 * j)) & 0xff) << shift;
                        r.mask[byte / 32] |= 1 << (byte % 32);
                    }
                }
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
        let pc = w.gpc;
        let npc = pc + 1;
        let active = w.gmask;
        if self.pending == 0 {
            // Served and guard-false lanes alike are at pc + 1: the group advances.
            self.advance();
        } else {
            self.counters[REPLAYS] += 1;
            for l in lanes_of(active) {
                w.pc[l] = if self.pending >> l & 1 == 1 { pc } else { npc };
            }
            w.gvalid = false;
        }
        self.state = State::Sched;
    }
}
