//! The rewrite after allocation: MIR on virtual registers -> physical
//! Concord instructions ([`PFunction`]).
//!
//! It inserts the reloads, stores and rematerialisations of evicted values
//! (through the scratch registers), sequentialises parallel copies,
//! expands calls, returns and divisions following the convention of
//! [`super::frame`], writes prologues and epilogues, and turns `brif`'s
//! branches into `@p bra` / `bra.all pt` (leaving out jumps to the next
//! block). Every instruction carries the [`Effect`]s the allocation checker
//! verifies.

use concord_isa::instr::{
    AluOp, Consensus, Guard, Instr, LoadWidth, Op, Pred, PredOp, PredSrc, Reg, Space, SpecialReg,
    StoreWidth, IMM12_MAX, IMM12_MIN,
};
use concord_isa::semantics::split_constant;

use super::frame::{Convention, Frame};
use super::mir::{MFunction, MInst, MOp, RegClass, VPredSrc, VReg};
use super::parallel_move::{sequentialize, Step};
use super::pcode::{Effect, Label, Loc, PFunction};
use super::regalloc::VLoc;
use super::BackendError;

/// What the rewrite needs besides the function and its allocation.
pub struct LowerContext<'a> {
    pub conv: &'a Convention,
    pub frame: &'a Frame,
    /// Kernels with a stack: (per-thread stack bytes, global memory bytes)
    /// for the stack-pointer set-up.
    pub kernel_stack: Option<(u32, u32)>,
    /// The kernel's per-warp spill area, when it has per-warp slots.
    pub warp_area: Option<WarpArea>,
}

/// Where the per-warp spill slots are: slot `i` of warp `w` is the shared
/// word at `base + w·stride + 4·i` (`stride` = 4 × slots per warp).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpArea {
    pub base: u32,
    pub stride: u32,
}

/// Counts for [`super::BackendStats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LowerStats {
    pub spill_loads: u32,
    pub spill_stores: u32,
    pub calls: u32,
}

/// Rewrites `mf` with the locations `locs` (indexed by virtual register).
pub fn lower(
    mf: &MFunction,
    locs: &[Option<VLoc>],
    ctx: &LowerContext<'_>,
) -> Result<(PFunction, LowerStats), BackendError> {
    let mut l = Lowerer {
        mf,
        locs,
        ctx,
        out: PFunction {
            name: mf.name.clone(),
            ..PFunction::default()
        },
        stats: LowerStats::default(),
    };
    l.prologue()?;
    for (b, block) in mf.blocks.iter().enumerate() {
        let label = Label::Block(mf.func, b as u32);
        l.out
            .label_names
            .push((label, format!("{}.{}", mf.name, block.name)));
        l.out.label(label);
        for inst in &block.insts {
            l.inst(b, inst)?;
        }
    }
    Ok((l.out, l.stats))
}

struct Lowerer<'a> {
    mf: &'a MFunction,
    locs: &'a [Option<VLoc>],
    ctx: &'a LowerContext<'a>,
    out: PFunction,
    stats: LowerStats,
}

fn plain(op: Op) -> Instr {
    Instr::new(op)
}

fn fits12(v: i64) -> bool {
    (i64::from(IMM12_MIN)..=i64::from(IMM12_MAX)).contains(&v)
}

fn mov(rd: Reg, rs: Reg) -> Instr {
    plain(Op::AluImm {
        op: AluOp::Add,
        rd,
        rs1: rs,
        imm: 0,
    })
}

fn pmov(pd: Pred, ps: Pred) -> Instr {
    plain(Op::PLogic {
        op: PredOp::And,
        pd,
        a: PredSrc::new(ps, false),
        b: PredSrc::TRUE,
    })
}

fn load(rd: Reg, base: Reg, offset: i32) -> Instr {
    plain(Op::Load {
        space: Space::Global,
        width: LoadWidth::B32,
        rd,
        base,
        offset,
    })
}

fn store(src: Reg, base: Reg, offset: i32) -> Instr {
    plain(Op::Store {
        space: Space::Global,
        width: StoreWidth::B32,
        src,
        base,
        offset,
    })
}

/// `movi` (+ `movhi`) for a 32-bit constant.
fn li(rd: Reg, imm: u32) -> Vec<Op> {
    let (lo, hi) = split_constant(imm);
    let mut ops = vec![Op::MovI { rd, imm: lo }];
    if let Some(hi) = hi {
        ops.push(Op::MovHi { rd, imm: hi });
    }
    ops
}

impl Lowerer<'_> {
    fn internal(&self, message: impl Into<String>) -> BackendError {
        BackendError::Internal {
            func: self.mf.name.clone(),
            message: message.into(),
        }
    }

    fn loc(&self, v: VReg) -> Result<VLoc, BackendError> {
        self.locs
            .get(v.index())
            .copied()
            .flatten()
            .ok_or_else(|| self.internal(format!("{v} has no location")))
    }

    fn sp(&self) -> Result<Reg, BackendError> {
        self.ctx
            .conv
            .sp
            .ok_or_else(|| self.internal("stack access without a stack pointer"))
    }

    fn scratch(&self, i: usize) -> Result<Reg, BackendError> {
        self.ctx
            .conv
            .scratch
            .map(|s| s[i.min(1)])
            .ok_or_else(|| self.internal("spill code without scratch registers"))
    }

    fn ploc(&self, l: VLoc) -> Result<Loc, BackendError> {
        match l {
            VLoc::Reg(r) => Ok(Loc::Reg(r)),
            VLoc::Pred(p) => Ok(Loc::Pred(p)),
            VLoc::Slot(s) => Ok(Loc::Slot(Frame::spill_offset(s))),
            VLoc::WarpSlot(s) | VLoc::AffineSlot { slot: s, .. } => Ok(Loc::WarpSlot(s)),
            VLoc::Remat(_) | VLoc::RematAffine { .. } => {
                Err(self.internal("a rematerialised value has no location"))
            }
        }
    }

    /// Emits a sequence: uses on the first instruction, defs on the last.
    fn seq(&mut self, guard: Guard, ops: Vec<Op>, uses: Vec<Effect>, defs: Vec<Effect>) {
        let n = ops.len();
        let mut uses = Some(uses);
        for (i, op) in ops.into_iter().enumerate() {
            let mut effects = if i == 0 {
                uses.take().unwrap_or_default()
            } else {
                Vec::new()
            };
            if i + 1 == n {
                effects.extend(defs.iter().copied());
            }
            self.out.inst(Instr::guarded(guard, op), effects);
        }
    }

    /// Adds `delta` to the stack pointer in imm12 steps.
    fn adjust_sp(&mut self, delta: i64) -> Result<(), BackendError> {
        let sp = self.sp()?;
        let mut left = delta;
        while left != 0 {
            let step = left.clamp(i64::from(IMM12_MIN), i64::from(IMM12_MAX));
            self.out.inst(
                plain(Op::AluImm {
                    op: AluOp::Add,
                    rd: sp,
                    rs1: sp,
                    imm: step as i32,
                }),
                Vec::new(),
            );
            left -= step;
        }
        Ok(())
    }

    fn prologue(&mut self) -> Result<(), BackendError> {
        let f = Label::Func(self.mf.func);
        self.out.label_names.push((f, self.mf.name.clone()));
        self.out.label(f);
        if let Some((stack, global)) = self.ctx.kernel_stack {
            // sp = G - tid * S, with a temporary (nothing is live yet); a
            // fixed sequence, trusted by the checker.
            let sp = self.sp()?;
            let t = Reg::new(if sp.index() == 0 { 1 } else { 0 })
                .ok_or_else(|| self.internal("no temporary register"))?;
            let mut ops = vec![Op::S2R {
                rd: sp,
                sreg: SpecialReg::TidLinear,
            }];
            if fits12(i64::from(stack)) {
                ops.push(Op::AluImm {
                    op: AluOp::Mul,
                    rd: sp,
                    rs1: sp,
                    imm: stack as i32,
                });
            } else {
                ops.extend(li(t, stack));
                ops.push(Op::Alu {
                    op: AluOp::Mul,
                    rd: sp,
                    rs1: sp,
                    rs2: t,
                });
            }
            ops.extend(li(t, global));
            ops.push(Op::Alu {
                op: AluOp::Sub,
                rd: sp,
                rs1: t,
                rs2: sp,
            });
            for op in ops {
                self.out.trusted(plain(op));
            }
        }
        if self.ctx.frame.size > 0 {
            self.adjust_sp(-i64::from(self.ctx.frame.size))?;
        }
        Ok(())
    }

    fn pred_src(&self, p: VPredSrc) -> Result<(PredSrc, Option<Effect>), BackendError> {
        match p.pred {
            None => Ok((PredSrc::new(Pred::TRUE, p.negate), None)),
            Some(v) => match self.loc(v)? {
                VLoc::Pred(pp) => Ok((
                    PredSrc::new(pp, p.negate),
                    Some(Effect::Use(Loc::Pred(pp), v)),
                )),
                other => Err(self.internal(format!("predicate {v} is in {other:?}"))),
            },
        }
    }

    fn pred_def(&self, v: VReg) -> Result<Pred, BackendError> {
        match self.loc(v)? {
            VLoc::Pred(p) => Ok(p),
            other => Err(self.internal(format!("predicate {v} is in {other:?}"))),
        }
    }

    fn inst(&mut self, b: usize, inst: &MInst) -> Result<(), BackendError> {
        let guarded_ok = matches!(
            inst.op,
            MOp::Li { .. }
                | MOp::Alu { .. }
                | MOp::AluImm { .. }
                | MOp::Bra { .. }
                | MOp::Sel { .. }
                | MOp::SetP { .. }
                | MOp::SetPImm { .. }
                | MOp::PLogic { .. }
                | MOp::Load { .. }
                | MOp::Store { .. }
        );
        if inst.guard.is_some() && !guarded_ok {
            return Err(self.internal(format!("guarded {:?}", inst.op)));
        }
        match &inst.op {
            MOp::Entry { params, ra } => self.entry(params, *ra),
            MOp::ParallelCopy { copies } => self.parallel_copy(copies),
            MOp::Call {
                callee,
                args,
                result,
            } => self.call(*callee, args, *result),
            MOp::Return { value, ra } => self.ret(*value, *ra),
            MOp::DivRem { kind, rd, a, b } => self.divrem(*kind, *rd, *a, *b),
            MOp::Jump { target } => {
                if target.index() != b + 1 {
                    self.out.branch(
                        plain(Op::BraCons {
                            kind: Consensus::All,
                            p: PredSrc::TRUE,
                            target: 0,
                        }),
                        Label::Block(self.mf.func, target.0),
                        Vec::new(),
                        false,
                    );
                }
                Ok(())
            }
            MOp::Bra { target } => {
                let (guard, effects) = self.guard(inst)?;
                self.out.branch(
                    Instr::guarded(guard, Op::Bra { target: 0 }),
                    Label::Block(self.mf.func, target.0),
                    effects,
                    false,
                );
                Ok(())
            }
            MOp::Exit => {
                self.out.inst(plain(Op::Exit), Vec::new());
                Ok(())
            }
            _ => self.simple(inst),
        }
    }

    fn guard(&self, inst: &MInst) -> Result<(Guard, Vec<Effect>), BackendError> {
        match inst.guard {
            None => Ok((Guard::TRUE, Vec::new())),
            Some(g) => {
                let p = self.pred_def(g.pred)?;
                Ok((
                    PredSrc::new(p, g.negate),
                    vec![Effect::Use(Loc::Pred(p), g.pred)],
                ))
            }
        }
    }

    /// Brings the general register `v` into a register for reading:
    /// its own, or scratch `which` after a reload / rematerialisation.
    fn read_gpr(&mut self, v: VReg, which: usize) -> Result<Reg, BackendError> {
        match self.loc(v)? {
            VLoc::Reg(r) => Ok(r),
            VLoc::Slot(s) => {
                let sc = self.scratch(which)?;
                let off = Frame::spill_offset(s);
                self.out.inst(
                    load(sc, self.sp()?, off as i32),
                    vec![Effect::Move {
                        from: Loc::Slot(off),
                        to: Loc::Reg(sc),
                    }],
                );
                self.stats.spill_loads += 1;
                Ok(sc)
            }
            VLoc::Remat(k) => {
                let sc = self.scratch(which)?;
                self.seq(
                    Guard::TRUE,
                    li(sc, k),
                    Vec::new(),
                    vec![Effect::Remat(Loc::Reg(sc), v)],
                );
                Ok(sc)
            }
            l @ (VLoc::WarpSlot(_) | VLoc::AffineSlot { .. } | VLoc::RematAffine { .. }) => {
                // An affine rebuild uses the other scratch register as its
                // temporary: callers reload such a value first.
                let sc = self.scratch(which)?;
                let temp = self.scratch(1 - which.min(1))?;
                self.fetch(sc, l, Some(v), temp)?;
                Ok(sc)
            }
            VLoc::Pred(_) => Err(self.internal(format!("{v} is a predicate"))),
        }
    }

    /// The other scratch register than `r` (a temporary for `r`'s
    /// reload or store sequence).
    fn other_scratch(&self, r: Reg) -> Result<Reg, BackendError> {
        let s0 = self.scratch(0)?;
        if r == s0 {
            self.scratch(1)
        } else {
            Ok(s0)
        }
    }

    /// `t = c1·tid.x`.
    fn tid_times(&self, t: Reg, c1: i32) -> Result<Vec<Op>, BackendError> {
        let mut ops = vec![Op::S2R {
            rd: t,
            sreg: SpecialReg::TidX,
        }];
        if c1 != 1 {
            if !fits12(i64::from(c1)) {
                return Err(self.internal(format!("tid coefficient {c1} beyond imm12")));
            }
            ops.push(Op::AluImm {
                op: AluOp::Mul,
                rd: t,
                rs1: t,
                imm: c1,
            });
        }
        Ok(ops)
    }

    /// Operations leaving in `a` the address of this warp's per-warp slot
    /// `slot`, minus the returned load/store offset.
    fn warp_slot_address(&self, a: Reg, slot: u32) -> Result<(Vec<Op>, i32), BackendError> {
        let area = self
            .ctx
            .warp_area
            .ok_or_else(|| self.internal("a per-warp slot without a per-warp area"))?;
        if !fits12(i64::from(area.stride)) {
            return Err(self.internal(format!("per-warp stride {} beyond imm12", area.stride)));
        }
        let mut ops = vec![
            Op::S2R {
                rd: a,
                sreg: SpecialReg::WarpId,
            },
            Op::AluImm {
                op: AluOp::Mul,
                rd: a,
                rs1: a,
                imm: area.stride as i32,
            },
        ];
        let mut off = i64::from(area.base) + 4 * i64::from(slot);
        while off > i64::from(IMM12_MAX) {
            ops.push(Op::AluImm {
                op: AluOp::Add,
                rd: a,
                rs1: a,
                imm: IMM12_MAX,
            });
            off -= i64::from(IMM12_MAX);
        }
        Ok((ops, off as i32))
    }

    /// Brings the value of `v` at the per-warp or rematerialised location
    /// `src` into `x`; `temp` (not `x`) is clobbered by an affine rebuild.
    fn fetch(&mut self, x: Reg, src: VLoc, v: Option<VReg>, temp: Reg) -> Result<(), BackendError> {
        let load_shared = |rd: Reg, base: Reg, offset: i32| Op::Load {
            space: Space::Shared,
            width: LoadWidth::B32,
            rd,
            base,
            offset,
        };
        let (ops, effects) = match src {
            VLoc::WarpSlot(slot) => {
                let (mut ops, off) = self.warp_slot_address(x, slot)?;
                ops.push(load_shared(x, x, off));
                self.stats.spill_loads += 1;
                let moved = Effect::Move {
                    from: Loc::WarpSlot(slot),
                    to: Loc::Reg(x),
                };
                (ops, vec![moved])
            }
            VLoc::AffineSlot { slot, c1 } => {
                // Fig. 4.3 (iv): t = shared[slot]; v = c1·T + t.
                if temp == x {
                    return Err(self.internal("affine reload without a temporary"));
                }
                let mut ops = self.tid_times(temp, c1)?;
                let (addr, off) = self.warp_slot_address(x, slot)?;
                ops.extend(addr);
                ops.push(load_shared(x, x, off));
                ops.push(Op::Alu {
                    op: AluOp::Add,
                    rd: x,
                    rs1: x,
                    rs2: temp,
                });
                self.stats.spill_loads += 1;
                let moved = Effect::Move {
                    from: Loc::WarpSlot(slot),
                    to: Loc::Reg(x),
                };
                (ops, vec![moved, Effect::Clobber(Loc::Reg(temp))])
            }
            VLoc::RematAffine { c1, c0 } => {
                // Fig. 4.3 (iii): v = c1·T + c0, no memory.
                let v = v.ok_or_else(|| self.internal("rematerialisation without a value"))?;
                let mut ops = self.tid_times(x, c1)?;
                if c0 != 0 {
                    if !fits12(i64::from(c0)) {
                        return Err(self.internal(format!("constant part {c0} beyond imm12")));
                    }
                    ops.push(Op::AluImm {
                        op: AluOp::Add,
                        rd: x,
                        rs1: x,
                        imm: c0,
                    });
                }
                (ops, vec![Effect::Remat(Loc::Reg(x), v)])
            }
            other => return Err(self.internal(format!("cannot fetch from {other:?}"))),
        };
        // A fixed sequence through `x` (and `temp`): trusted, its net
        // effect described by the marker.
        for op in ops {
            self.out.trusted(plain(op));
        }
        self.out.marker(effects);
        Ok(())
    }

    /// Stores `r` (holding the value) to the per-warp location `dst`,
    /// using `temp` (not `r`) for the address. An affine store turns `r`
    /// into the uniform part in place, so `r` must be a scratch register.
    fn store_warp(&mut self, dst: VLoc, r: Reg, temp: Reg) -> Result<(), BackendError> {
        if temp == r {
            return Err(self.internal("per-warp store without an address register"));
        }
        let store_shared = |src: Reg, base: Reg, offset: i32| Op::Store {
            space: Space::Shared,
            width: StoreWidth::B32,
            src,
            base,
            offset,
        };
        let (slot, mut ops, mut clobbered) = match dst {
            VLoc::WarpSlot(slot) => (slot, Vec::new(), vec![temp]),
            VLoc::AffineSlot { slot, c1 } => {
                // Fig. 4.3 (iv): t = v - c1·T; shared[slot] = t.
                if self.ctx.conv.scratch.map_or(true, |s| !s.contains(&r)) {
                    return Err(self.internal("affine store from a non-scratch register"));
                }
                let mut ops = self.tid_times(temp, c1)?;
                ops.push(Op::Alu {
                    op: AluOp::Sub,
                    rd: r,
                    rs1: r,
                    rs2: temp,
                });
                (slot, ops, vec![temp, r])
            }
            other => return Err(self.internal(format!("cannot store to {other:?}"))),
        };
        let (addr, off) = self.warp_slot_address(temp, slot)?;
        ops.extend(addr);
        ops.push(store_shared(r, temp, off));
        self.out.marker(vec![Effect::Move {
            from: Loc::Reg(r),
            to: Loc::WarpSlot(slot),
        }]);
        for op in ops {
            self.out.trusted(plain(op));
        }
        clobbered.dedup();
        self.out.marker(
            clobbered
                .into_iter()
                .map(|c| Effect::Clobber(Loc::Reg(c)))
                .collect(),
        );
        self.stats.spill_stores += 1;
        Ok(())
    }

    /// Stores `reg` to the slot of `v` when `v` lives in a slot.
    fn write_back(&mut self, v: VReg, reg: Reg) -> Result<(), BackendError> {
        let l = self.loc(v)?;
        if matches!(l, VLoc::WarpSlot(_) | VLoc::AffineSlot { .. }) {
            let temp = self.other_scratch(reg)?;
            return self.store_warp(l, reg, temp);
        }
        if let VLoc::Slot(s) = l {
            let off = Frame::spill_offset(s);
            self.out.inst(
                store(reg, self.sp()?, off as i32),
                vec![Effect::Move {
                    from: Loc::Reg(reg),
                    to: Loc::Slot(off),
                }],
            );
            self.stats.spill_stores += 1;
        }
        Ok(())
    }

    /// Ordinary operations: operands in registers (reloading as needed),
    /// the result in its register or a scratch register stored after.
    fn simple(&mut self, inst: &MInst) -> Result<(), BackendError> {
        let defs = inst.defs();
        // A constant that is rematerialised at its uses has no definition.
        if let (MOp::Li { rd, .. }, None) = (&inst.op, inst.guard) {
            if matches!(self.loc(*rd)?, VLoc::Remat(_)) {
                return Ok(());
            }
        }
        // Nor has any value rematerialised by the divergence-aware policy,
        // which only picks values whose definitions have no side effects.
        if let [d] = defs[..] {
            let droppable = matches!(
                inst.op,
                MOp::Li { .. }
                    | MOp::Alu { .. }
                    | MOp::AluImm { .. }
                    | MOp::S2R { .. }
                    | MOp::LdParam { .. }
                    | MOp::Sel { .. }
            );
            if droppable
                && self.mf.class(d) == RegClass::Gpr
                && self
                    .locs
                    .get(d.index())
                    .copied()
                    .flatten()
                    .is_some_and(|l| l.is_remat())
            {
                return Ok(());
            }
        }
        let (guard, mut effects) = self.guard(inst)?;
        let mut regs: Vec<(VReg, Reg)> = Vec::new();
        let mut next_scratch = 0;
        let mut reads = Vec::new();
        // An affine rebuild needs the other scratch register as a
        // temporary, so it is reloaded first (the allocator leaves at most
        // one per instruction).
        let mut uses = inst.uses();
        uses.sort_by_key(|&u| {
            !matches!(
                self.locs.get(u.index()).copied().flatten(),
                Some(VLoc::AffineSlot { .. })
            )
        });
        for u in uses {
            if self.mf.class(u) != RegClass::Gpr || regs.iter().any(|&(v, _)| v == u) {
                continue;
            }
            let evicted = !matches!(self.loc(u)?, VLoc::Reg(_));
            let r = self.read_gpr(u, next_scratch)?;
            if evicted {
                next_scratch += 1;
                if next_scratch > 2 {
                    return Err(self.internal("more than two reloads for one instruction"));
                }
            }
            regs.push((u, r));
            reads.push(Effect::Use(Loc::Reg(r), u));
        }
        let mut writes = Vec::new();
        let mut stores = Vec::new();
        for &d in &defs {
            match self.mf.class(d) {
                RegClass::Pred => {
                    let p = self.pred_def(d)?;
                    writes.push(Effect::Def(Loc::Pred(p), d));
                }
                RegClass::Gpr => {
                    let r = match self.loc(d)? {
                        VLoc::Reg(r) => r,
                        l if l.in_memory() => {
                            let r = match regs.iter().find(|&&(v, _)| v == d) {
                                Some(&(_, r)) => r,
                                None => self.scratch(0)?,
                            };
                            stores.push((d, r));
                            r
                        }
                        _ => return Err(self.internal(format!("cannot define {d} in place"))),
                    };
                    if !regs.iter().any(|&(v, _)| v == d) {
                        regs.push((d, r));
                    }
                    writes.push(Effect::Def(Loc::Reg(r), d));
                }
            }
        }
        effects.extend(reads);
        let reg_of = |v: VReg| regs.iter().find(|&&(x, _)| x == v).map(|&(_, r)| r);
        let r = |v: VReg| reg_of(v).ok_or_else(|| self.internal(format!("{v} not in a register")));
        let ops: Vec<Op> = match &inst.op {
            MOp::Alu { op, rd, rs1, rs2 } => vec![Op::Alu {
                op: *op,
                rd: r(*rd)?,
                rs1: r(*rs1)?,
                rs2: r(*rs2)?,
            }],
            MOp::AluImm { op, rd, rs1, imm } => vec![Op::AluImm {
                op: *op,
                rd: r(*rd)?,
                rs1: r(*rs1)?,
                imm: *imm,
            }],
            MOp::Li { rd, imm } => li(r(*rd)?, *imm),
            MOp::SetP { cmp, pd, rs1, rs2 } => vec![Op::SetP {
                cmp: *cmp,
                pd: self.pred_def(*pd)?,
                rs1: r(*rs1)?,
                rs2: r(*rs2)?,
            }],
            MOp::SetPImm { cmp, pd, rs1, imm } => vec![Op::SetPImm {
                cmp: *cmp,
                pd: self.pred_def(*pd)?,
                rs1: r(*rs1)?,
                imm: *imm,
            }],
            MOp::PLogic { op, pd, a, b } => {
                let (a, ea) = self.pred_src(*a)?;
                let (b, eb) = self.pred_src(*b)?;
                effects.extend(ea);
                effects.extend(eb);
                vec![Op::PLogic {
                    op: *op,
                    pd: self.pred_def(*pd)?,
                    a,
                    b,
                }]
            }
            MOp::Sel { rd, p, rs1, rs2 } => {
                let (p, ep) = self.pred_src(*p)?;
                effects.extend(ep);
                vec![Op::Sel {
                    rd: r(*rd)?,
                    p,
                    rs1: r(*rs1)?,
                    rs2: r(*rs2)?,
                }]
            }
            MOp::S2R { rd, sreg } => vec![Op::S2R {
                rd: r(*rd)?,
                sreg: *sreg,
            }],
            MOp::LdParam { rd, index } => vec![Op::LdParam {
                rd: r(*rd)?,
                index: *index,
            }],
            MOp::Load {
                space,
                width,
                rd,
                base,
                offset,
            } => vec![Op::Load {
                space: *space,
                width: *width,
                rd: r(*rd)?,
                base: r(*base)?,
                offset: *offset,
            }],
            MOp::Store {
                space,
                width,
                src,
                base,
                offset,
            } => vec![Op::Store {
                space: *space,
                width: *width,
                src: r(*src)?,
                base: r(*base)?,
                offset: *offset,
            }],
            MOp::Atom {
                space,
                op,
                rd,
                addr,
                src,
            } => vec![Op::Atom {
                space: *space,
                op: *op,
                rd: r(*rd)?,
                addr: r(*addr)?,
                src: r(*src)?,
            }],
            MOp::Vote { kind, pd, p } => {
                let (p, ep) = self.pred_src(*p)?;
                effects.extend(ep);
                vec![Op::Vote {
                    kind: *kind,
                    pd: self.pred_def(*pd)?,
                    p,
                }]
            }
            MOp::Ballot { rd, p } => {
                let (p, ep) = self.pred_src(*p)?;
                effects.extend(ep);
                vec![Op::Ballot { rd: r(*rd)?, p }]
            }
            MOp::Bar => vec![Op::Bar],
            MOp::StackAddr { rd, slot } => {
                let rd = r(*rd)?;
                let off = self
                    .ctx
                    .frame
                    .slot_offsets
                    .get(slot.index())
                    .copied()
                    .ok_or_else(|| self.internal(format!("no offset for {slot}")))?;
                let sp = self.sp()?;
                if fits12(i64::from(off)) {
                    vec![Op::AluImm {
                        op: AluOp::Add,
                        rd,
                        rs1: sp,
                        imm: off as i32,
                    }]
                } else {
                    let mut ops = li(rd, off);
                    ops.push(Op::Alu {
                        op: AluOp::Add,
                        rd,
                        rs1: sp,
                        rs2: rd,
                    });
                    ops
                }
            }
            other => return Err(self.internal(format!("unexpected {other:?}"))),
        };
        self.seq(guard, ops, effects, writes);
        for (d, r) in stores {
            self.write_back(d, r)?;
        }
        Ok(())
    }

    /// Emits a parallel move. `moves` are (destination, source, source
    /// register) with sources possibly rematerialised constants.
    fn parallel_move(&mut self, moves: &[(VLoc, VLoc, VReg)]) -> Result<(), BackendError> {
        let plain_moves: Vec<(VLoc, VLoc)> = moves.iter().map(|&(d, s, _)| (d, s)).collect();
        for step in sequentialize(&plain_moves) {
            match step {
                Step::Move { dst, src } => {
                    let vreg = moves.iter().find(|m| m.0 == dst).map(|m| m.2);
                    self.move_one(dst, src, vreg)?;
                }
                Step::Swap(a, b) => self.swap(a, b)?,
            }
        }
        Ok(())
    }

    fn move_one(&mut self, dst: VLoc, src: VLoc, vreg: Option<VReg>) -> Result<(), BackendError> {
        let mv = |from: Loc, to: Loc| vec![Effect::Move { from, to }];
        match (dst, src) {
            (VLoc::Reg(d), VLoc::Reg(s)) => self.out.inst(mov(d, s), mv(Loc::Reg(s), Loc::Reg(d))),
            (VLoc::Pred(d), VLoc::Pred(s)) => {
                self.out.inst(pmov(d, s), mv(Loc::Pred(s), Loc::Pred(d)))
            }
            (VLoc::Reg(d), VLoc::Slot(s)) => {
                let off = Frame::spill_offset(s);
                self.out.inst(
                    load(d, self.sp()?, off as i32),
                    mv(Loc::Slot(off), Loc::Reg(d)),
                );
                self.stats.spill_loads += 1;
            }
            (VLoc::Slot(d), VLoc::Reg(s)) => {
                let off = Frame::spill_offset(d);
                self.out.inst(
                    store(s, self.sp()?, off as i32),
                    mv(Loc::Reg(s), Loc::Slot(off)),
                );
                self.stats.spill_stores += 1;
            }
            (VLoc::Slot(d), VLoc::Slot(s)) => {
                let sc = self.scratch(0)?;
                self.move_one(VLoc::Reg(sc), VLoc::Slot(s), None)?;
                self.move_one(VLoc::Slot(d), VLoc::Reg(sc), None)?;
            }
            (VLoc::Reg(d), VLoc::Remat(k)) => {
                let v = vreg.ok_or_else(|| self.internal("rematerialisation without a value"))?;
                self.seq(
                    Guard::TRUE,
                    li(d, k),
                    Vec::new(),
                    vec![Effect::Remat(Loc::Reg(d), v)],
                );
            }
            (VLoc::Slot(_), VLoc::Remat(_)) => {
                let sc = self.scratch(0)?;
                self.move_one(VLoc::Reg(sc), src, vreg)?;
                self.move_one(dst, VLoc::Reg(sc), None)?;
            }
            // The divergence-aware locations. Between the steps of a
            // parallel move both scratch registers are free.
            (
                VLoc::Reg(d),
                VLoc::WarpSlot(_) | VLoc::AffineSlot { .. } | VLoc::RematAffine { .. },
            ) => {
                let temp = self.other_scratch(d)?;
                self.fetch(d, src, vreg, temp)?;
            }
            (VLoc::WarpSlot(_) | VLoc::AffineSlot { .. }, VLoc::Reg(s)) => {
                let temp = self.other_scratch(s)?;
                self.store_warp(dst, s, temp)?;
            }
            (VLoc::Slot(_) | VLoc::WarpSlot(_) | VLoc::AffineSlot { .. }, _) => {
                // Memory to memory (or a rebuild into memory) through
                // scratch 0; its temporary and address are scratch 1.
                let sc = self.scratch(0)?;
                self.move_one(VLoc::Reg(sc), src, vreg)?;
                self.move_one(dst, VLoc::Reg(sc), None)?;
            }
            _ => return Err(self.internal(format!("cannot move {src:?} to {dst:?}"))),
        }
        Ok(())
    }

    fn swap(&mut self, a: VLoc, b: VLoc) -> Result<(), BackendError> {
        let (la, lb) = (self.ploc(a)?, self.ploc(b)?);
        self.out.marker(vec![Effect::Swap(la, lb)]);
        let xor = |rd: Reg, rs1: Reg, rs2: Reg| {
            plain(Op::Alu {
                op: AluOp::Xor,
                rd,
                rs1,
                rs2,
            })
        };
        match (a, b) {
            (VLoc::Reg(x), VLoc::Reg(y)) => {
                self.out.trusted(xor(x, x, y));
                self.out.trusted(xor(y, x, y));
                self.out.trusted(xor(x, x, y));
            }
            (VLoc::Pred(x), VLoc::Pred(y)) => {
                let px = |pd: Pred, a: Pred, b: Pred| {
                    plain(Op::PLogic {
                        op: PredOp::Xor,
                        pd,
                        a: PredSrc::new(a, false),
                        b: PredSrc::new(b, false),
                    })
                };
                self.out.trusted(px(x, x, y));
                self.out.trusted(px(y, x, y));
                self.out.trusted(px(x, x, y));
            }
            (VLoc::Reg(x), VLoc::Slot(s)) | (VLoc::Slot(s), VLoc::Reg(x)) => {
                let (sc, sp, off) = (self.scratch(0)?, self.sp()?, Frame::spill_offset(s) as i32);
                self.out.trusted(load(sc, sp, off));
                self.out.trusted(store(x, sp, off));
                self.out.trusted(mov(x, sc));
                self.stats.spill_loads += 1;
                self.stats.spill_stores += 1;
            }
            (VLoc::Reg(x), VLoc::WarpSlot(s)) | (VLoc::WarpSlot(s), VLoc::Reg(x)) => {
                // Not produced by the policy (a per-warp value is never both
                // a source and a destination of one parallel copy), but
                // cheap to support: old slot -> s0, x -> slot, s0 -> x.
                let (s0, s1) = (self.scratch(0)?, self.scratch(1)?);
                let (mut ops, off) = self.warp_slot_address(s0, s)?;
                ops.push(Op::Load {
                    space: Space::Shared,
                    width: LoadWidth::B32,
                    rd: s0,
                    base: s0,
                    offset: off,
                });
                let (addr, off) = self.warp_slot_address(s1, s)?;
                ops.extend(addr);
                ops.push(Op::Store {
                    space: Space::Shared,
                    width: StoreWidth::B32,
                    src: x,
                    base: s1,
                    offset: off,
                });
                for op in ops {
                    self.out.trusted(plain(op));
                }
                self.out.trusted(mov(x, s0));
                self.out.marker(vec![
                    Effect::Clobber(Loc::Reg(s0)),
                    Effect::Clobber(Loc::Reg(s1)),
                ]);
                self.stats.spill_loads += 1;
                self.stats.spill_stores += 1;
            }
            (VLoc::Slot(s), VLoc::Slot(t)) => {
                let (s0, s1, sp) = (self.scratch(0)?, self.scratch(1)?, self.sp()?);
                let (os, ot) = (Frame::spill_offset(s) as i32, Frame::spill_offset(t) as i32);
                self.out.trusted(load(s0, sp, os));
                self.out.trusted(load(s1, sp, ot));
                self.out.trusted(store(s1, sp, os));
                self.out.trusted(store(s0, sp, ot));
                self.stats.spill_loads += 2;
                self.stats.spill_stores += 2;
            }
            _ => return Err(self.internal(format!("cannot swap {a:?} and {b:?}"))),
        }
        Ok(())
    }

    fn parallel_copy(&mut self, copies: &[(VReg, VReg)]) -> Result<(), BackendError> {
        let mut moves = Vec::new();
        let mut done = Vec::new();
        for &(dst, src) in copies {
            let Some(dl) = self.locs.get(dst.index()).copied().flatten() else {
                continue; // never read
            };
            if dl.is_remat() {
                continue; // recomputed at every use
            }
            moves.push((dl, self.loc(src)?, src));
            done.push(Effect::CopyDone {
                loc: self.ploc(dl)?,
                src,
                dst,
            });
        }
        self.parallel_move(&moves)?;
        self.out.marker(done);
        Ok(())
    }

    fn entry(&mut self, params: &[VReg], ra: VReg) -> Result<(), BackendError> {
        let conv = self.ctx.conv;
        let in_regs = params.len().min(conv.max_args());
        let (reg_params, stack_params) = params.split_at(in_regs);
        if stack_params.len() != self.ctx.frame.incoming_args as usize {
            return Err(self.internal(format!(
                "{} stack parameters, but the frame has room for {}",
                stack_params.len(),
                self.ctx.frame.incoming_args
            )));
        }
        let mut defs = Vec::new();
        let mut moves = Vec::new();
        let incoming = reg_params
            .iter()
            .enumerate()
            .map(|(i, &p)| (p, Convention::arg(i)))
            .chain(std::iter::once((ra, conv.ra)));
        for (v, r) in incoming {
            defs.push(Effect::Def(Loc::Reg(r), v));
            if let Some(l) = self.locs.get(v.index()).copied().flatten() {
                moves.push((l, VLoc::Reg(r), v));
            }
        }
        let stack_offsets: Vec<u32> = (0..stack_params.len() as u32)
            .map(|j| self.ctx.frame.incoming_arg_offset(j))
            .collect();
        for (&v, &off) in stack_params.iter().zip(&stack_offsets) {
            defs.push(Effect::Def(Loc::Slot(off), v));
        }
        self.out.marker(defs);
        self.parallel_move(&moves)?;
        // Then the stack parameters: their locations differ from those of
        // the register parameters (all are live at once), so the loads
        // cannot overwrite anything the parallel move placed.
        for (&v, &off) in stack_params.iter().zip(&stack_offsets) {
            let Some(l) = self.locs.get(v.index()).copied().flatten() else {
                continue; // never read
            };
            let dest = match l {
                VLoc::Reg(r) => r,
                l if l.in_memory() => self.scratch(0)?,
                other => return Err(self.internal(format!("parameter {v} in {other:?}"))),
            };
            let sp = self.sp()?;
            if fits12(i64::from(off)) {
                self.out.inst(
                    load(dest, sp, off as i32),
                    vec![Effect::Move {
                        from: Loc::Slot(off),
                        to: Loc::Reg(dest),
                    }],
                );
            } else {
                // A frame beyond the 12-bit offsets: address the argument
                // in the destination itself.
                for op in li(dest, off) {
                    self.out.trusted(plain(op));
                }
                self.out.trusted(plain(Op::Alu {
                    op: AluOp::Add,
                    rd: dest,
                    rs1: dest,
                    rs2: sp,
                }));
                self.out.trusted(load(dest, dest, 0));
                self.out.marker(vec![Effect::Def(Loc::Reg(dest), v)]);
            }
            self.write_back(v, dest)?;
        }
        Ok(())
    }

    fn call(
        &mut self,
        callee: crate::ir::FuncId,
        args: &[VReg],
        result: Option<VReg>,
    ) -> Result<(), BackendError> {
        let conv = self.ctx.conv;
        let in_regs = args.len().min(conv.max_args());
        let (reg_args, stack_args) = args.split_at(in_regs);
        // Stack arguments first: storing reads each value (reloading it
        // into a scratch register if needed) before the parallel move
        // overwrites the argument registers.
        for (j, &a) in stack_args.iter().enumerate() {
            let r = self.read_gpr(a, 0)?;
            let sp = self.sp()?;
            self.out.inst(
                store(r, sp, Frame::outgoing_arg_offset(j as u32)),
                vec![Effect::Use(Loc::Reg(r), a)],
            );
        }
        let mut moves = Vec::new();
        let mut uses = Vec::new();
        for (i, &a) in reg_args.iter().enumerate() {
            moves.push((VLoc::Reg(Convention::arg(i)), self.loc(a)?, a));
            uses.push(Effect::Use(Loc::Reg(Convention::arg(i)), a));
        }
        self.parallel_move(&moves)?;
        uses.push(Effect::ClobberRegisters);
        let r0 = Convention::arg(0);
        if let Some(res) = result {
            uses.push(Effect::Def(Loc::Reg(r0), res));
        }
        self.out.branch(
            plain(Op::Call {
                rd: conv.ra,
                target: 0,
            }),
            Label::Func(callee),
            uses,
            false,
        );
        self.stats.calls += 1;
        if let Some(res) = result {
            match self.locs.get(res.index()).copied().flatten() {
                Some(l) if l != VLoc::Reg(r0) => self.move_one(l, VLoc::Reg(r0), None)?,
                _ => {}
            }
        }
        Ok(())
    }

    fn ret(&mut self, value: Option<VReg>, ra: VReg) -> Result<(), BackendError> {
        let conv = self.ctx.conv;
        let r0 = Convention::arg(0);
        let mut moves = Vec::new();
        let mut uses = vec![Effect::Use(Loc::Reg(conv.ra), ra)];
        if let Some(v) = value {
            moves.push((VLoc::Reg(r0), self.loc(v)?, v));
            uses.push(Effect::Use(Loc::Reg(r0), v));
        }
        moves.push((VLoc::Reg(conv.ra), self.loc(ra)?, ra));
        if value.is_some() && conv.ra == r0 {
            return Err(self.internal("return register and return address coincide"));
        }
        self.parallel_move(&moves)?;
        if self.ctx.frame.size > 0 {
            self.adjust_sp(i64::from(self.ctx.frame.size))?;
        }
        self.out.inst(plain(Op::Ret { rs: conv.ra }), uses);
        Ok(())
    }

    fn divrem(
        &mut self,
        kind: super::mir::DivKind,
        rd: VReg,
        a: VReg,
        b: VReg,
    ) -> Result<(), BackendError> {
        let sp = self.sp()?;
        let r0 = Convention::arg(0);
        let ra_reg = self.read_gpr(a, 0)?;
        self.out.inst(
            store(ra_reg, sp, -4),
            vec![Effect::Use(Loc::Reg(ra_reg), a)],
        );
        let rb_reg = self.read_gpr(b, 1)?;
        self.out.inst(
            store(rb_reg, sp, -8),
            vec![Effect::Use(Loc::Reg(rb_reg), b)],
        );
        self.out.trusted(store(r0, sp, -12));
        self.out.branch(
            plain(Op::Call { rd: r0, target: 0 }),
            Label::Div(kind),
            Vec::new(),
            true,
        );
        let dest = match self.loc(rd)? {
            VLoc::Reg(r) => r,
            l if l.in_memory() => self.scratch(0)?,
            other => return Err(self.internal(format!("division result in {other:?}"))),
        };
        self.out.trusted(load(dest, sp, -4));
        if dest != r0 {
            self.out.trusted(load(r0, sp, -12));
        }
        self.out.marker(vec![Effect::Def(Loc::Reg(dest), rd)]);
        self.write_back(rd, dest)?;
        self.stats.calls += 1;
        Ok(())
    }
}
