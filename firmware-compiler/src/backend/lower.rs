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
//!
//! **Guarded instructions** (predication): lanes whose guard is false must
//! see no architectural change. Single instructions and short sequences
//! carry the guard on every instruction that writes a register, predicate
//! or memory location that could be live; reads into the scratch registers
//! stay unguarded. Such an expansion is bracketed by
//! [`Effect::GuardBegin`] / [`Effect::GuardEnd`] so the checker can follow
//! both groups of lanes. A guarded call or division (argument moves, stack
//! traffic, `call`, result moves) is instead skipped by a per-lane branch,
//! `@!g bra skip; <sequence>; skip:`, where the min-PC arbiter reunites
//! the lanes; so is a guarded parallel copy that would overwrite its own
//! guard predicate. A guarded definition whose value lives in memory is
//! stored back under the same guard.

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
        locals: 0,
    };
    l.prologue()?;
    for (b, block) in mf.blocks.iter().enumerate() {
        let label = Label::Block(mf.func, b as u32);
        l.out
            .label_names
            .push((label, format!("{}.{}", mf.name, block.name)));
        l.out.label(label);
        for (i, inst) in block.insts.iter().enumerate() {
            // The arguments and the return address arrive in registers the
            // allocator hands out after the entry: nothing may run before it.
            if matches!(inst.op, MOp::Entry { .. }) && (b, i) != (0, 0) {
                return Err(l.internal(format!(
                    "the function entry is instruction {i} of block {b}, not the first: \
                     what runs before it may overwrite the incoming arguments and return address"
                )));
            }
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
    /// Local labels made so far ([`Label::Local`]).
    locals: u32,
}

fn plain(op: Op) -> Instr {
    Instr::new(op)
}

/// `instr` under `guard`.
fn under(guard: Guard, instr: Instr) -> Instr {
    Instr::guarded(guard, instr.op)
}

/// The guard with the opposite sense.
fn negated(guard: Guard) -> Guard {
    PredSrc::new(guard.pred, !guard.negate)
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

    /// Adds `delta` to the stack pointer in imm12 steps, under `guard`.
    fn adjust_sp(&mut self, delta: i64, guard: Guard) -> Result<(), BackendError> {
        let sp = self.sp()?;
        let mut left = delta;
        while left != 0 {
            let step = left.clamp(i64::from(IMM12_MIN), i64::from(IMM12_MAX));
            self.out.inst(
                Instr::guarded(
                    guard,
                    Op::AluImm {
                        op: AluOp::Add,
                        rd: sp,
                        rs1: sp,
                        imm: step as i32,
                    },
                ),
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
            self.adjust_sp(-i64::from(self.ctx.frame.size), Guard::TRUE)?;
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
        // A function's entry and an all-lanes jump have no guarded form.
        if inst.guard.is_some() && matches!(inst.op, MOp::Entry { .. } | MOp::Jump { .. }) {
            return Err(self.internal(format!("guarded {:?}", inst.op)));
        }
        match &inst.op {
            MOp::Entry { params, ra } => self.entry(params, *ra),
            MOp::ParallelCopy { copies } => self.parallel_copy(inst, copies),
            MOp::Call {
                callee,
                args,
                result,
            } => self.skipped_by_guard(inst, |l| l.call(*callee, args, *result)),
            MOp::Return { value, ra } => self.ret(inst, *value, *ra),
            MOp::DivRem { kind, rd, a, b } => {
                self.skipped_by_guard(inst, |l| l.divrem(*kind, *rd, *a, *b))
            }
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
            MOp::BraCons { kind, p, target } => {
                // The guard selects the voters; all active lanes follow
                // the outcome (kept even when `target` is the next block:
                // the predication pass counts these branches).
                let (guard, mut effects) = self.guard(inst)?;
                let (p, ep) = self.pred_src(*p)?;
                effects.extend(ep);
                self.out.branch(
                    Instr::guarded(
                        guard,
                        Op::BraCons {
                            kind: *kind,
                            p,
                            target: 0,
                        },
                    ),
                    Label::Block(self.mf.func, target.0),
                    effects,
                    false,
                );
                Ok(())
            }
            MOp::Exit => {
                let (guard, effects) = self.guard(inst)?;
                self.out.inst(Instr::guarded(guard, Op::Exit), effects);
                Ok(())
            }
            _ => self.simple(inst),
        }
    }

    /// Emits `body` (the unguarded expansion of `inst`) so that only the
    /// lanes whose guard holds run it: `@!g bra skip; body; skip:`. The
    /// other lanes wait at `skip`, after everything `body` does (a call
    /// runs deeper, so it finishes first under either arbitration).
    fn skipped_by_guard(
        &mut self,
        inst: &MInst,
        body: impl FnOnce(&mut Self) -> Result<(), BackendError>,
    ) -> Result<(), BackendError> {
        if inst.guard.is_none() {
            return body(self);
        }
        let (guard, effects) = self.guard(inst)?;
        let skip = Label::Local(self.mf.func, self.locals);
        self.out
            .label_names
            .push((skip, format!("{}.skip{}", self.mf.name, self.locals)));
        self.locals += 1;
        self.out.branch(
            Instr::guarded(negated(guard), Op::Bra { target: 0 }),
            skip,
            effects,
            false,
        );
        body(self)?;
        self.out.label(skip);
        if inst.claims_locations() {
            // Lanes that skip never read the results: for the checker they
            // are defined where the two paths meet (on the running path
            // they already are).
            let defs = self.exclusive_effects(inst)?;
            if !defs.is_empty() {
                self.out.marker(defs);
            }
        }
        Ok(())
    }

    /// [`Effect::Exclusive`] for every definition of `inst` that has a
    /// location.
    fn exclusive_effects(&self, inst: &MInst) -> Result<Vec<Effect>, BackendError> {
        let mut out = Vec::new();
        for d in inst.defs() {
            match self.locs.get(d.index()).copied().flatten() {
                Some(l) if !l.is_remat() => out.push(Effect::Exclusive(self.ploc(l)?, d)),
                _ => {}
            }
        }
        Ok(out)
    }

    /// Opens the guarded sequence of `inst` (nothing when unguarded).
    fn begin_guarded(&mut self, inst: &MInst) -> Result<(), BackendError> {
        if inst.guard.is_some() {
            let (guard, uses) = self.guard(inst)?;
            let mut effects = vec![Effect::GuardBegin(guard)];
            effects.extend(uses);
            self.out.marker(effects);
        }
        Ok(())
    }

    /// Closes the guarded sequence of `inst`, declaring its exclusive
    /// definitions.
    fn end_guarded(&mut self, inst: &MInst) -> Result<(), BackendError> {
        if inst.guard.is_some() {
            let mut effects = if inst.claims_locations() {
                self.exclusive_effects(inst)?
            } else {
                Vec::new()
            };
            effects.push(Effect::GuardEnd);
            self.out.marker(effects);
        }
        Ok(())
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
                self.fetch(sc, l, Some(v), temp, Guard::TRUE)?;
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
    /// The instructions writing `x` carry `guard`.
    fn fetch(
        &mut self,
        x: Reg,
        src: VLoc,
        v: Option<VReg>,
        temp: Reg,
        guard: Guard,
    ) -> Result<(), BackendError> {
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
            let instr = plain(op);
            if instr.dest_reg() == Some(x) {
                self.out.trusted(under(guard, instr));
            } else {
                self.out.trusted(instr);
            }
        }
        self.out.marker(effects);
        Ok(())
    }

    /// Stores `r` (holding the value) to the per-warp location `dst`,
    /// using `temp` (not `r`) for the address. An affine store turns `r`
    /// into the uniform part in place, so `r` must be a scratch register.
    /// The store itself carries `guard`.
    fn store_warp(
        &mut self,
        dst: VLoc,
        r: Reg,
        temp: Reg,
        guard: Guard,
    ) -> Result<(), BackendError> {
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
            let instr = plain(op);
            if matches!(instr.op, Op::Store { .. }) {
                self.out.trusted(under(guard, instr));
            } else {
                self.out.trusted(instr);
            }
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

    /// Stores `reg` to the slot of `v` when `v` lives in a slot; the store
    /// carries the guard of `v`'s definition.
    fn write_back(&mut self, v: VReg, reg: Reg, guard: Guard) -> Result<(), BackendError> {
        let l = self.loc(v)?;
        if matches!(l, VLoc::WarpSlot(_) | VLoc::AffineSlot { .. }) {
            let temp = self.other_scratch(reg)?;
            return self.store_warp(l, reg, temp, guard);
        }
        if let VLoc::Slot(s) = l {
            let off = Frame::spill_offset(s);
            self.out.inst(
                under(guard, store(reg, self.sp()?, off as i32)),
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
        self.begin_guarded(inst)?;
        let (guard, mut effects) = self.guard(inst)?;
        let mut regs: Vec<(VReg, Reg)> = Vec::new();
        let mut next_scratch = 0;
        let mut reads = Vec::new();
        // An affine rebuild needs the other scratch register as a
        // temporary, so it is reloaded first (the allocator leaves at most
        // one per instruction).
        let mut uses = inst.uses();
        // The old value of a partial definition that lives in memory stays
        // there: the store writing the new one back carries the guard, so
        // the guard-false lanes' slot is untouched. (Reloading it would
        // also need a third scratch register for `@g rd = rs1 op rs2`.)
        let op_uses = inst.op_uses();
        let mut kept_in_memory = Vec::new();
        if inst.is_partial_def() {
            for &d in &defs {
                let in_memory = self
                    .locs
                    .get(d.index())
                    .copied()
                    .flatten()
                    .is_some_and(VLoc::in_memory);
                if in_memory && !op_uses.contains(&d) {
                    kept_in_memory.push(d);
                }
            }
        }
        uses.retain(|u| !kept_in_memory.contains(u));
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
            // The old value of a partial definition is not a read the
            // checker can demand: lanes that never defined the value keep
            // whatever the register held (see the checker's guard rules).
            let old_value_only =
                inst.is_partial_def() && defs.contains(&u) && !op_uses.contains(&u) && !evicted;
            if !old_value_only {
                reads.push(Effect::Use(Loc::Reg(r), u));
            }
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
        // A sequence that reads its own intermediate result (a stack
        // address beyond the 12-bit offsets) is trusted, its net effect
        // given by a marker.
        let mut reads_itself = false;
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
                    reads_itself = true;
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
        if reads_itself {
            for op in ops {
                self.out.trusted(Instr::guarded(guard, op));
            }
            effects.extend(writes);
            self.out.marker(effects);
        } else {
            self.seq(guard, ops, effects, writes);
        }
        for (d, r) in stores {
            self.write_back(d, r, guard)?;
        }
        self.end_guarded(inst)
    }

    /// Emits a parallel move. `moves` are (destination, source, source
    /// register) with sources possibly rematerialised constants. Every
    /// write to a destination carries `guard` (reads into the scratch
    /// registers do not need to); `guard`'s predicate must not be a
    /// destination.
    fn parallel_move(
        &mut self,
        moves: &[(VLoc, VLoc, VReg)],
        guard: Guard,
    ) -> Result<(), BackendError> {
        let plain_moves: Vec<(VLoc, VLoc)> = moves.iter().map(|&(d, s, _)| (d, s)).collect();
        for step in sequentialize(&plain_moves) {
            match step {
                Step::Move { dst, src } => {
                    let vreg = moves.iter().find(|m| m.0 == dst).map(|m| m.2);
                    self.move_one(dst, src, vreg, guard)?;
                }
                Step::Swap(a, b) => self.swap(a, b, guard)?,
            }
        }
        Ok(())
    }

    /// `dst = src`; the instructions writing `dst` carry `guard`.
    fn move_one(
        &mut self,
        dst: VLoc,
        src: VLoc,
        vreg: Option<VReg>,
        guard: Guard,
    ) -> Result<(), BackendError> {
        let mv = |from: Loc, to: Loc| vec![Effect::Move { from, to }];
        match (dst, src) {
            (VLoc::Reg(d), VLoc::Reg(s)) => self
                .out
                .inst(under(guard, mov(d, s)), mv(Loc::Reg(s), Loc::Reg(d))),
            (VLoc::Pred(d), VLoc::Pred(s)) => self
                .out
                .inst(under(guard, pmov(d, s)), mv(Loc::Pred(s), Loc::Pred(d))),
            (VLoc::Reg(d), VLoc::Slot(s)) => {
                let off = Frame::spill_offset(s);
                self.out.inst(
                    under(guard, load(d, self.sp()?, off as i32)),
                    mv(Loc::Slot(off), Loc::Reg(d)),
                );
                self.stats.spill_loads += 1;
            }
            (VLoc::Slot(d), VLoc::Reg(s)) => {
                let off = Frame::spill_offset(d);
                self.out.inst(
                    under(guard, store(s, self.sp()?, off as i32)),
                    mv(Loc::Reg(s), Loc::Slot(off)),
                );
                self.stats.spill_stores += 1;
            }
            (VLoc::Slot(d), VLoc::Slot(s)) => {
                let sc = self.scratch(0)?;
                self.move_one(VLoc::Reg(sc), VLoc::Slot(s), None, Guard::TRUE)?;
                self.move_one(VLoc::Slot(d), VLoc::Reg(sc), None, guard)?;
            }
            (VLoc::Reg(d), VLoc::Remat(k)) => {
                let v = vreg.ok_or_else(|| self.internal("rematerialisation without a value"))?;
                self.seq(
                    guard,
                    li(d, k),
                    Vec::new(),
                    vec![Effect::Remat(Loc::Reg(d), v)],
                );
            }
            (VLoc::Slot(_), VLoc::Remat(_)) => {
                let sc = self.scratch(0)?;
                self.move_one(VLoc::Reg(sc), src, vreg, Guard::TRUE)?;
                self.move_one(dst, VLoc::Reg(sc), None, guard)?;
            }
            // The divergence-aware locations. Between the steps of a
            // parallel move both scratch registers are free.
            (
                VLoc::Reg(d),
                VLoc::WarpSlot(_) | VLoc::AffineSlot { .. } | VLoc::RematAffine { .. },
            ) => {
                let temp = self.other_scratch(d)?;
                self.fetch(d, src, vreg, temp, guard)?;
            }
            (VLoc::WarpSlot(_) | VLoc::AffineSlot { .. }, VLoc::Reg(s)) => {
                let temp = self.other_scratch(s)?;
                self.store_warp(dst, s, temp, guard)?;
            }
            (VLoc::Slot(_) | VLoc::WarpSlot(_) | VLoc::AffineSlot { .. }, _) => {
                // Memory to memory (or a rebuild into memory) through
                // scratch 0; its temporary and address are scratch 1.
                let sc = self.scratch(0)?;
                self.move_one(VLoc::Reg(sc), src, vreg, Guard::TRUE)?;
                self.move_one(dst, VLoc::Reg(sc), None, guard)?;
            }
            _ => return Err(self.internal(format!("cannot move {src:?} to {dst:?}"))),
        }
        Ok(())
    }

    /// Exchanges the contents of `a` and `b`; the instructions writing
    /// either carry `guard` (loads into scratch registers do not).
    fn swap(&mut self, a: VLoc, b: VLoc, guard: Guard) -> Result<(), BackendError> {
        let (la, lb) = (self.ploc(a)?, self.ploc(b)?);
        self.out.marker(vec![Effect::Swap(la, lb)]);
        let xor = |rd: Reg, rs1: Reg, rs2: Reg| {
            Instr::guarded(
                guard,
                Op::Alu {
                    op: AluOp::Xor,
                    rd,
                    rs1,
                    rs2,
                },
            )
        };
        match (a, b) {
            (VLoc::Reg(x), VLoc::Reg(y)) => {
                self.out.trusted(xor(x, x, y));
                self.out.trusted(xor(y, x, y));
                self.out.trusted(xor(x, x, y));
            }
            (VLoc::Pred(x), VLoc::Pred(y)) => {
                let px = |pd: Pred, a: Pred, b: Pred| {
                    Instr::guarded(
                        guard,
                        Op::PLogic {
                            op: PredOp::Xor,
                            pd,
                            a: PredSrc::new(a, false),
                            b: PredSrc::new(b, false),
                        },
                    )
                };
                self.out.trusted(px(x, x, y));
                self.out.trusted(px(y, x, y));
                self.out.trusted(px(x, x, y));
            }
            (VLoc::Reg(x), VLoc::Slot(s)) | (VLoc::Slot(s), VLoc::Reg(x)) => {
                let (sc, sp, off) = (self.scratch(0)?, self.sp()?, Frame::spill_offset(s) as i32);
                self.out.trusted(load(sc, sp, off));
                self.out.trusted(under(guard, store(x, sp, off)));
                self.out.trusted(under(guard, mov(x, sc)));
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
                    if matches!(op, Op::Store { .. }) {
                        self.out.trusted(Instr::guarded(guard, op));
                    } else {
                        self.out.trusted(plain(op));
                    }
                }
                self.out.trusted(under(guard, mov(x, s0)));
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
                self.out.trusted(under(guard, store(s1, sp, os)));
                self.out.trusted(under(guard, store(s0, sp, ot)));
                self.stats.spill_loads += 2;
                self.stats.spill_stores += 2;
            }
            _ => return Err(self.internal(format!("cannot swap {a:?} and {b:?}"))),
        }
        Ok(())
    }

    /// A parallel copy. Under a guard, every write to a destination
    /// carries it; when a predicate destination is the guard's own
    /// register (an exclusive copy may reuse it), writing it would change
    /// the guard halfway, so the lanes whose guard is false branch around
    /// an unguarded copy instead.
    fn parallel_copy(&mut self, inst: &MInst, copies: &[(VReg, VReg)]) -> Result<(), BackendError> {
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
        let (guard, _) = self.guard(inst)?;
        let overwrites_guard = inst.guard.is_some()
            && moves
                .iter()
                .any(|&(d, s, _)| d == VLoc::Pred(guard.pred) && d != s);
        if overwrites_guard {
            return self.skipped_by_guard(inst, |l| {
                l.parallel_move(&moves, Guard::TRUE)?;
                l.out.marker(done);
                Ok(())
            });
        }
        self.begin_guarded(inst)?;
        self.parallel_move(&moves, guard)?;
        self.out.marker(done);
        self.end_guarded(inst)
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
        self.parallel_move(&moves, Guard::TRUE)?;
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
            self.write_back(v, dest, Guard::TRUE)?;
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
        self.parallel_move(&moves, Guard::TRUE)?;
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
                Some(l) if l != VLoc::Reg(r0) => {
                    self.move_one(l, VLoc::Reg(r0), None, Guard::TRUE)?
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// A device function's return. Under a guard, the moves into the return
    /// registers, the stack-pointer restore and the `ret` all carry it:
    /// the other lanes continue with the next instruction, unchanged.
    fn ret(&mut self, inst: &MInst, value: Option<VReg>, ra: VReg) -> Result<(), BackendError> {
        let conv = self.ctx.conv;
        let (guard, guard_uses) = self.guard(inst)?;
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
        self.begin_guarded(inst)?;
        self.parallel_move(&moves, guard)?;
        if self.ctx.frame.size > 0 {
            self.adjust_sp(i64::from(self.ctx.frame.size), guard)?;
        }
        uses.extend(guard_uses);
        self.out
            .inst(Instr::guarded(guard, Op::Ret { rs: conv.ra }), uses);
        self.end_guarded(inst)
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
        self.write_back(rd, dest, Guard::TRUE)?;
        self.stats.calls += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    //! Guarded forms, lowered from hand-made MIR with hand-made locations
    //! (the checker verifies them), emitted, and run on the functional
    //! model with one warp of 4 lanes where only some lanes' guard holds.

    use super::*;
    use crate::backend::checker;
    use crate::backend::emit::{emit, KernelInfo};
    use crate::backend::mir::{DivKind, MBlock, MBlockData, MOp, VGuard};
    use crate::backend::runtime::division_routine;
    use crate::ir::{FuncId, StackSlot};
    use concord_isa::config::CoreConfig;
    use concord_isa::container::Kernel;
    use concord_isa::func;
    use concord_isa::instr::{AtomOp, Cmp, VoteKind};

    const GLOBAL: u32 = 1 << 16;
    /// Per-thread stack bytes (frames plus the division area).
    const STACK: u32 = 4096;
    /// Register budget: sp = r11, ra = scratch 0 = r10, scratch 1 = r9.
    const BUDGET: u32 = 12;
    /// Where kernels store their results: `RESULTS + tid·4·n + 4·k`.
    const RESULTS: i32 = 0x100;

    fn r(i: u8) -> VLoc {
        VLoc::Reg(Reg::new(i).unwrap())
    }

    fn p(i: u8) -> VLoc {
        VLoc::Pred(Pred::new(i).unwrap())
    }

    fn on(pred: VReg) -> VGuard {
        VGuard {
            pred,
            negate: false,
        }
    }

    /// A function under construction, with the location of every value.
    struct Fb {
        mf: MFunction,
        locs: Vec<Option<VLoc>>,
        slot_offsets: Vec<u32>,
        conv: Convention,
    }

    impl Fb {
        fn new(name: &str, id: u32) -> Fb {
            Fb {
                mf: MFunction {
                    name: name.into(),
                    func: FuncId(id),
                    is_kernel: id == 0,
                    classes: Vec::new(),
                    blocks: vec![MBlockData {
                        name: "b0".into(),
                        insts: Vec::new(),
                    }],
                    divides: false,
                },
                locs: Vec::new(),
                slot_offsets: Vec::new(),
                conv: Convention::new(BUDGET, true, true),
            }
        }

        fn val(&mut self, loc: VLoc) -> VReg {
            let class = if matches!(loc, VLoc::Pred(_)) {
                RegClass::Pred
            } else {
                RegClass::Gpr
            };
            self.locs.push(Some(loc));
            self.mf.new_vreg(class)
        }

        fn op(&mut self, op: MOp) {
            self.push(MInst::new(op));
        }

        fn when(&mut self, g: VReg, op: MOp) {
            self.push(MInst::guarded(on(g), op));
        }

        /// A guarded exclusive definition.
        fn only_when(&mut self, g: VReg, op: MOp) {
            let mut inst = MInst::guarded(on(g), op);
            inst.exclusive_def = true;
            self.push(inst);
        }

        fn push(&mut self, inst: MInst) {
            self.mf.blocks.last_mut().unwrap().insts.push(inst);
        }

        fn new_block(&mut self) -> MBlock {
            let n = self.mf.blocks.len();
            self.mf.blocks.push(MBlockData {
                name: format!("b{n}"),
                insts: Vec::new(),
            });
            MBlock(n as u32)
        }

        fn li(&mut self, loc: VLoc, imm: u32) -> VReg {
            let v = self.val(loc);
            self.op(MOp::Li { rd: v, imm });
            v
        }

        fn tid(&mut self, loc: VLoc) -> VReg {
            let v = self.val(loc);
            self.op(MOp::S2R {
                rd: v,
                sreg: SpecialReg::TidX,
            });
            v
        }

        fn alu_imm(&mut self, loc: VLoc, op: AluOp, rs1: VReg, imm: i32) -> VReg {
            let v = self.val(loc);
            self.op(MOp::AluImm {
                op,
                rd: v,
                rs1,
                imm,
            });
            v
        }

        fn setp(&mut self, loc: VLoc, cmp: Cmp, rs1: VReg, imm: i32) -> VReg {
            let v = self.val(loc);
            self.op(MOp::SetPImm {
                cmp,
                pd: v,
                rs1,
                imm,
            });
            v
        }

        /// `tid` is odd, in `loc`, computed through the register `tmp`.
        fn odd(&mut self, loc: VLoc, tid: VReg, tmp: VLoc) -> VReg {
            let t = self.alu_imm(tmp, AluOp::And, tid, 1);
            self.setp(loc, Cmp::Ne, t, 0)
        }

        /// 0/1 in a general register from predicate `q`.
        fn bint(&mut self, loc: VLoc, q: VReg) -> VReg {
            let v = self.li(loc, 0);
            self.when(q, MOp::Li { rd: v, imm: 1 });
            v
        }

        /// Stores `vals` at `RESULTS + tid·4·n + 4·k` (address in `addr`).
        fn store_results(&mut self, tid: VReg, vals: &[VReg], addr: VLoc) {
            let a = self.alu_imm(addr, AluOp::Mul, tid, 4 * vals.len() as i32);
            for (k, &v) in vals.iter().enumerate() {
                self.op(MOp::Store {
                    space: Space::Global,
                    width: StoreWidth::B32,
                    src: v,
                    base: a,
                    offset: RESULTS + 4 * k as i32,
                });
            }
        }

        fn frame(&self) -> Frame {
            let slots = self
                .locs
                .iter()
                .filter_map(|l| match l {
                    Some(VLoc::Slot(s)) => Some(s + 1),
                    _ => None,
                })
                .max()
                .unwrap_or(0);
            let base = (4 * slots).next_multiple_of(8);
            Frame {
                spill_slots: slots,
                slot_offsets: self.slot_offsets.clone(),
                incoming_args: 0,
                size: (base + self.slot_offsets.iter().max().map_or(0, |o| o + 4))
                    .next_multiple_of(8),
            }
        }
    }

    /// Lowers and checks every function (the kernel first), emits the
    /// image and checks that the listing assembles to it.
    fn build(funcs: &[Fb]) -> (Kernel, String) {
        let conv = &funcs[0].conv;
        let mut code = Vec::new();
        for (i, f) in funcs.iter().enumerate() {
            let frame = f.frame();
            let ctx = LowerContext {
                conv: &f.conv,
                frame: &frame,
                kernel_stack: (i == 0).then_some((STACK, GLOBAL)),
                warp_area: Some(WarpArea {
                    base: 0,
                    stride: 16,
                }),
            };
            let (pf, _) = lower(&f.mf, &f.locs, &ctx).unwrap();
            if let Err(e) = checker::check(&pf, conv.sp) {
                panic!("checker: {e}\n{pf:#?}");
            }
            code.push(pf);
        }
        if funcs.iter().any(|f| f.mf.divides) {
            code.push(division_routine(conv.sp.unwrap()));
        }
        let info = KernelInfo {
            name: "k",
            params: &[],
            shared_bytes: 64,
            stack_bytes: STACK,
        };
        let (kernel, listing) = emit(&code, &info).unwrap();
        let asm = concord_isa::asm::assemble(&listing, "k.s").unwrap();
        assert_eq!(asm.code, kernel.code, "{listing}");
        (kernel, listing)
    }

    /// Runs one block of 4 threads (one warp) with parameters 7 and 9.
    fn run(kernel: &Kernel, listing: &str, init: &[(u32, u32)]) -> Vec<u8> {
        let config = CoreConfig {
            lanes: 4,
            warps: 1,
            global_memory_bytes: GLOBAL,
            ..CoreConfig::default()
        };
        let launch = func::Launch {
            code: &kernel.code,
            entry_pc: 0,
            grid: [1, 1, 1],
            block: [4, 1, 1],
            params: &[7, 9],
            stack_bytes: kernel.stack_bytes,
        };
        let mut global = vec![0u8; GLOBAL as usize];
        for &(addr, w) in init {
            global[addr as usize..addr as usize + 4].copy_from_slice(&w.to_le_bytes());
        }
        func::run(
            &config,
            &launch,
            &mut global,
            func::Options::default(),
            None,
        )
        .unwrap_or_else(|t| panic!("trap: {t}\n{listing}"));
        global
    }

    fn word(g: &[u8], addr: u32) -> u32 {
        u32::from_le_bytes(g[addr as usize..addr as usize + 4].try_into().unwrap())
    }

    /// The `n` results of each of the 4 lanes.
    fn results(g: &[u8], n: usize) -> Vec<Vec<u32>> {
        (0..4)
            .map(|t| {
                (0..n)
                    .map(|k| word(g, RESULTS as u32 + (4 * (t * n + k)) as u32))
                    .collect()
            })
            .collect()
    }

    fn listing_has(listing: &str, line: &str) {
        assert!(
            listing
                .lines()
                .any(|l| l.split(';').next().unwrap_or("").trim() == line),
            "no `{line}` in\n{listing}"
        );
    }

    /// The kernel's instructions, without labels, comments and encodings.
    fn body(listing: &str, from: &str) -> Vec<String> {
        listing
            .lines()
            .skip_while(|l| !l.contains(from))
            .map(|l| l.split(';').next().unwrap_or("").trim().to_string())
            .filter(|l| !l.is_empty())
            .collect()
    }

    /// A guarded parallel copy with a 3-cycle through two registers and a
    /// slot, a swap of two slots, a copy into a slot and a swap of two
    /// predicates: odd lanes permute, even lanes keep everything.
    #[test]
    fn guarded_parallel_copy_with_cycles() {
        let mut k = Fb::new("k", 0);
        let tid = k.tid(r(0));
        let g = k.odd(p(1), tid, r(1));
        let a = k.alu_imm(r(2), AluOp::Add, tid, 100);
        let b = k.alu_imm(r(3), AluOp::Add, tid, 200);
        let c = k.alu_imm(VLoc::Slot(0), AluOp::Add, tid, 300);
        let d = k.alu_imm(VLoc::Slot(1), AluOp::Add, tid, 400);
        let e = k.alu_imm(VLoc::Slot(2), AluOp::Add, tid, 500);
        let f = k.alu_imm(VLoc::Slot(3), AluOp::Add, tid, 600);
        let q1 = k.setp(p(2), Cmp::Lt, tid, 2);
        let q2 = k.setp(p(3), Cmp::Ge, tid, 3);
        k.when(
            g,
            MOp::ParallelCopy {
                copies: vec![(a, b), (b, c), (c, a), (d, e), (e, d), (f, a)],
            },
        );
        k.when(
            g,
            MOp::ParallelCopy {
                copies: vec![(q1, q2), (q2, q1)],
            },
        );
        let b1 = k.bint(r(4), q1);
        let b2 = k.bint(r(5), q2);
        k.store_results(tid, &[a, b, c, d, e, f, b1, b2], r(6));
        k.op(MOp::Exit);
        let (kernel, listing) = build(&[k]);
        // Register swap by guarded xors; the slot swap reloads unguarded
        // into the scratch registers and stores under the guard.
        listing_has(&listing, "@p1 xor r2, r2, r3");
        listing_has(&listing, "@p1 pxor p2, p2, p3");
        listing_has(&listing, "ld.global.b32 r10, [r11+4]");
        listing_has(&listing, "@p1 st.global.b32 [r11+4], r9");
        let g = run(&kernel, &listing, &[]);
        let got = results(&g, 8);
        for t in 0..4u32 {
            let expect = if t % 2 == 1 {
                // a <- b, b <- c, c <- a, d <- e, e <- d, f <- a; q1 <-> q2.
                vec![t + 200, t + 300, t + 100, t + 500, t + 400, t + 100]
            } else {
                vec![t + 100, t + 200, t + 300, t + 400, t + 500, t + 600]
            };
            let (q1, q2) = (u32::from(t < 2), u32::from(t >= 3));
            let preds = if t % 2 == 1 { [q2, q1] } else { [q1, q2] };
            let mut expect = expect;
            expect.extend(preds);
            assert_eq!(got[t as usize], expect, "lane {t}\n{listing}");
        }
    }

    /// An exclusive copy into the guard's own predicate register: the
    /// guard-false lanes branch around an unguarded copy.
    #[test]
    fn guarded_copy_into_its_guard_branches_around() {
        let mut k = Fb::new("k", 0);
        let tid = k.tid(r(0));
        let g = k.odd(p(1), tid, r(1));
        let s = k.setp(p(2), Cmp::Lt, tid, 2);
        let q = k.val(p(1));
        k.only_when(
            g,
            MOp::ParallelCopy {
                copies: vec![(q, s)],
            },
        );
        let bq = k.bint(r(2), q);
        k.store_results(tid, &[bq], r(3));
        k.op(MOp::Exit);
        let (kernel, listing) = build(&[k]);
        let code = body(&listing, ".entry");
        let at = code.iter().position(|l| l == "@!p1 bra k.skip0").unwrap();
        assert_eq!(code[at + 1], "pmov p1, p2", "{listing}");
        assert_eq!(code[at + 2], "k.skip0:", "{listing}");
        let g = run(&kernel, &listing, &[]);
        // Odd lanes: tid < 2; even lanes never wrote p1 (false).
        assert_eq!(results(&g, 1), vec![vec![0], vec![1], vec![0], vec![0]]);
    }

    /// Guarded divisions: a per-lane branch around the calling sequence.
    #[test]
    fn guarded_division() {
        let mut k = Fb::new("k", 0);
        k.mf.divides = true;
        let tid = k.tid(r(0));
        let g = k.odd(p(1), tid, r(1));
        // a = 100 - 37·tid: 100, 63, 26, -11; b = tid + 2: 2, 3, 4, 5.
        let m = k.alu_imm(r(1), AluOp::Mul, tid, -37);
        let a = k.alu_imm(r(1), AluOp::Add, m, 100);
        let b = k.alu_imm(r(2), AluOp::Add, tid, 2);
        let q = k.li(r(3), 77);
        let rem = k.li(VLoc::Slot(0), 88);
        let uq = k.val(VLoc::Slot(1));
        k.when(
            g,
            MOp::DivRem {
                kind: DivKind::SDiv,
                rd: q,
                a,
                b,
            },
        );
        k.when(
            g,
            MOp::DivRem {
                kind: DivKind::SRem,
                rd: rem,
                a,
                b,
            },
        );
        k.only_when(
            g,
            MOp::DivRem {
                kind: DivKind::UDiv,
                rd: uq,
                a,
                b,
            },
        );
        k.store_results(tid, &[q, rem, uq], r(4));
        k.op(MOp::Exit);
        let (kernel, listing) = build(&[k]);
        let code = body(&listing, ".entry");
        let at = code.iter().position(|l| l == "@!p1 bra k.skip0").unwrap();
        assert_eq!(code[at + 1], "st.global.b32 [r11-4], r1", "{listing}");
        assert!(code.iter().any(|l| l == "k.skip2:"), "{listing}");
        let g = run(&kernel, &listing, &[]);
        let got = results(&g, 3);
        assert_eq!(got[0][..2], [77, 88]);
        assert_eq!(got[2][..2], [77, 88]);
        // 63 / 3 = 21, 63 % 3 = 0; -11 / 5 = -2, -11 % 5 = -1;
        // unsigned 0xfffffff5 / 5 = 858993457.
        assert_eq!(got[1], [21, 0, 21]);
        assert_eq!(got[3], [(-2i32) as u32, (-1i32) as u32, 858_993_457]);
        // The skipped lanes never wrote uq's slot (the stack starts zeroed).
        assert_eq!((got[0][2], got[2][2]), (0, 0));
    }

    /// `f(x) = 3x + 1`, storing the result at `0x400 + 4x`.
    fn triple_plus_one() -> Fb {
        let mut f = Fb::new("f", 1);
        let x = f.val(r(1));
        let ra = f.val(r(5));
        f.op(MOp::Entry {
            params: vec![x],
            ra,
        });
        let t = f.alu_imm(r(2), AluOp::Mul, x, 3);
        let y = f.alu_imm(r(2), AluOp::Add, t, 1);
        let a = f.alu_imm(r(3), AluOp::Mul, x, 4);
        f.op(MOp::Store {
            space: Space::Global,
            width: StoreWidth::B32,
            src: y,
            base: a,
            offset: 0x400,
        });
        f.op(MOp::Return { value: Some(y), ra });
        f
    }

    /// A guarded call: only odd lanes call (and store); the others keep
    /// the old result.
    #[test]
    fn guarded_call() {
        let mut k = Fb::new("k", 0);
        // Values live across the call are in slots.
        let tid = k.tid(VLoc::Slot(0));
        let g = k.odd(p(1), tid, r(1));
        let res = k.li(VLoc::Slot(1), 55);
        k.when(
            g,
            MOp::Call {
                callee: FuncId(1),
                args: vec![tid],
                result: Some(res),
            },
        );
        k.store_results(tid, &[res], r(2));
        k.op(MOp::Exit);
        let (kernel, listing) = build(&[k, triple_plus_one()]);
        let code = body(&listing, ".entry");
        let at = code.iter().position(|l| l == "@!p1 bra k.skip0").unwrap();
        assert!(code[at..].iter().any(|l| l == "call r10, f"), "{listing}");
        let g = run(&kernel, &listing, &[]);
        assert_eq!(results(&g, 1), vec![vec![55], vec![4], vec![55], vec![10]]);
        let stored: Vec<u32> = (0..4).map(|t| word(&g, 0x400 + 4 * t)).collect();
        assert_eq!(stored, [0, 4, 0, 10]);
    }

    /// A guarded return in a device function with a frame: odd lanes
    /// return 10 early; even lanes go on (their stack pointer unchanged)
    /// and return `x + 20`, 20 being reloaded from the frame.
    #[test]
    fn guarded_return() {
        let mut f = Fb::new("f", 1);
        let x = f.val(r(1));
        let ra = f.val(r(5));
        f.op(MOp::Entry {
            params: vec![x],
            ra,
        });
        let odd = f.odd(p(1), x, r(2));
        let ten = f.li(r(3), 10);
        let twenty = f.li(VLoc::Slot(0), 20);
        f.when(
            odd,
            MOp::Return {
                value: Some(ten),
                ra,
            },
        );
        let y = f.val(r(4));
        f.op(MOp::Alu {
            op: AluOp::Add,
            rd: y,
            rs1: x,
            rs2: twenty,
        });
        f.op(MOp::Return { value: Some(y), ra });

        let mut k = Fb::new("k", 0);
        let tid = k.tid(VLoc::Slot(0));
        let res = k.val(VLoc::Slot(1));
        k.op(MOp::Call {
            callee: FuncId(1),
            args: vec![tid],
            result: Some(res),
        });
        // The kernel's own slots after the call: the stack pointer of
        // every lane came back right.
        k.store_results(tid, &[res, tid], r(2));
        k.op(MOp::Exit);
        let (kernel, listing) = build(&[k, f]);
        listing_has(&listing, "@p1 mov r0, r3");
        listing_has(&listing, "@p1 add r11, r11, 8");
        listing_has(&listing, "@p1 ret r10");
        let g = run(&kernel, &listing, &[]);
        assert_eq!(
            results(&g, 2),
            vec![vec![20, 0], vec![10, 1], vec![22, 2], vec![10, 3]]
        );
    }

    /// A guarded atomic whose old value lives in a slot: reloaded
    /// unguarded, written by the guarded atom, stored under the guard.
    #[test]
    fn guarded_atomic() {
        let mut k = Fb::new("k", 0);
        let tid = k.tid(r(0));
        let g = k.odd(p(1), tid, r(1));
        let addr = k.li(r(1), 0x600);
        let one = k.li(r(2), 1);
        let old = k.li(VLoc::Slot(0), 99);
        k.when(
            g,
            MOp::Atom {
                space: Space::Global,
                op: AtomOp::Add,
                rd: old,
                addr,
                src: one,
            },
        );
        k.store_results(tid, &[old], r(3));
        k.op(MOp::Exit);
        let (kernel, listing) = build(&[k]);
        listing_has(&listing, "@p1 atom.global.add r10, [r1], r2");
        listing_has(&listing, "@p1 st.global.b32 [r11], r10");
        let g = run(&kernel, &listing, &[(0x600, 0)]);
        // Lanes in order: lane 1 sees 0, lane 3 sees 1.
        assert_eq!(results(&g, 1), vec![vec![99], vec![0], vec![99], vec![1]]);
        assert_eq!(word(&g, 0x600), 2);
    }

    /// Guarded votes: the voters are the guard-true lanes (0 and 1).
    #[test]
    fn guarded_votes() {
        let mut k = Fb::new("k", 0);
        let tid = k.tid(r(0));
        let g = k.setp(p(1), Cmp::Lt, tid, 2);
        let not1 = k.setp(p(2), Cmp::Ne, tid, 1);
        let is3 = k.setp(p(3), Cmp::Eq, tid, 3);
        let low = k.alu_imm(r(1), AluOp::And, tid, 1);
        let even = k.setp(p(4), Cmp::Eq, low, 0);
        let all = k.val(p(5));
        let any = k.val(p(6));
        for q in [all, any] {
            k.op(MOp::PLogic {
                op: PredOp::And,
                pd: q,
                a: VPredSrc::TRUE,
                b: VPredSrc::TRUE,
            });
        }
        let ballot = k.li(r(2), 1234);
        k.when(
            g,
            MOp::Vote {
                kind: VoteKind::All,
                pd: all,
                p: VPredSrc::reg(not1),
            },
        );
        k.when(
            g,
            MOp::Vote {
                kind: VoteKind::Any,
                pd: any,
                p: VPredSrc::reg(is3),
            },
        );
        k.when(
            g,
            MOp::Ballot {
                rd: ballot,
                p: VPredSrc::reg(even),
            },
        );
        let ball = k.bint(r(3), all);
        let bany = k.bint(r(4), any);
        k.store_results(tid, &[ball, bany, ballot], r(5));
        k.op(MOp::Exit);
        let (kernel, listing) = build(&[k]);
        listing_has(&listing, "@p1 vote.all p5, p2");
        listing_has(&listing, "@p1 vote.any p6, p3");
        listing_has(&listing, "@p1 vote.ballot r2, p4");
        let g = run(&kernel, &listing, &[]);
        // Voters 0 and 1: not all have tid != 1, none has tid == 3, and
        // only lane 0 is even. Lanes 2 and 3 keep true, true, 1234.
        assert_eq!(
            results(&g, 3),
            vec![
                vec![0, 0, 1],
                vec![0, 0, 1],
                vec![1, 1, 1234],
                vec![1, 1, 1234]
            ]
        );
    }

    /// A guarded exit: odd lanes leave, even lanes store.
    #[test]
    fn guarded_exit() {
        let mut k = Fb::new("k", 0);
        let tid = k.tid(r(0));
        let g = k.odd(p(1), tid, r(1));
        k.when(g, MOp::Exit);
        let one = k.li(r(1), 1);
        k.store_results(tid, &[one], r(2));
        k.op(MOp::Exit);
        let (kernel, listing) = build(&[k]);
        listing_has(&listing, "@p1 exit");
        let g = run(&kernel, &listing, &[]);
        assert_eq!(results(&g, 1), vec![vec![1], vec![0], vec![1], vec![0]]);
    }

    /// Consensual branches voted by the guard-true lanes 0 and 1: each
    /// test records 1 (fell through) or 2 (taken), the same in all lanes.
    #[test]
    fn guarded_consensual_branches() {
        let mut k = Fb::new("k", 0);
        let tid = k.tid(r(0));
        let voters = k.setp(p(1), Cmp::Lt, tid, 2);
        let is3 = k.setp(p(2), Cmp::Eq, tid, 3);
        let is0 = k.setp(p(3), Cmp::Lt, tid, 1);
        let tests = [
            (Some(voters), Consensus::Any, VPredSrc::reg(is3)), // no voter: 1
            (Some(voters), Consensus::None, VPredSrc::reg(is3)), // taken: 2
            (Some(voters), Consensus::All, VPredSrc::reg(is0)), // lane 1 says no: 1
            (Some(voters), Consensus::All, VPredSrc::not(is3)), // taken: 2
            (None, Consensus::Any, VPredSrc::reg(is3)),         // lane 3 votes: 2
        ];
        let mut outcomes = Vec::new();
        for (i, (guard, kind, p)) in tests.into_iter().enumerate() {
            let x = k.val(r(1 + i as u8));
            let here = k.mf.blocks.len() as u32 - 1;
            let (taken, join) = (MBlock(here + 2), MBlock(here + 3));
            let op = MOp::BraCons {
                kind,
                p,
                target: taken,
            };
            match guard {
                Some(g) => k.when(g, op),
                None => k.op(op),
            }
            k.new_block();
            k.op(MOp::Li { rd: x, imm: 1 });
            k.op(MOp::Jump { target: join });
            k.new_block();
            k.op(MOp::Li { rd: x, imm: 2 });
            k.new_block();
            outcomes.push(x);
        }
        k.store_results(tid, &outcomes, r(6));
        k.op(MOp::Exit);
        let (kernel, listing) = build(&[k]);
        listing_has(&listing, "@p1 bra.any p2, k.b2");
        listing_has(&listing, "@p1 bra.none p2, k.b5");
        listing_has(&listing, "@p1 bra.all p3, k.b8");
        listing_has(&listing, "@p1 bra.all !p2, k.b11");
        listing_has(&listing, "bra.any p2, k.b14");
        let g = run(&kernel, &listing, &[]);
        for lane in results(&g, 5) {
            assert_eq!(lane, [1, 2, 1, 2, 2], "{listing}");
        }
    }

    /// Guarded special-register reads, parameter loads, stack addresses
    /// (a two-instruction sequence, both guarded) and ballots, partial and
    /// exclusive, in registers and slots.
    #[test]
    fn guarded_single_operations() {
        let mut k = Fb::new("k", 0);
        k.slot_offsets = vec![2056];
        let tid = k.tid(r(0));
        let g = k.odd(p(1), tid, r(1));
        let x = k.li(r(2), 5);
        k.when(
            g,
            MOp::S2R {
                rd: x,
                sreg: SpecialReg::NtidX,
            },
        );
        let y = k.li(VLoc::Slot(0), 6);
        k.when(g, MOp::LdParam { rd: y, index: 1 });
        let z = k.li(r(3), 7);
        k.when(
            g,
            MOp::StackAddr {
                rd: z,
                slot: StackSlot::new(0),
            },
        );
        let zz = k.val(r(4));
        k.op(MOp::StackAddr {
            rd: zz,
            slot: StackSlot::new(0),
        });
        let w = k.val(VLoc::Slot(1));
        k.only_when(g, MOp::LdParam { rd: w, index: 0 });
        let low = k.setp(p(2), Cmp::Lt, tid, 2);
        let ballot = k.li(r(5), 1234);
        k.when(
            g,
            MOp::Ballot {
                rd: ballot,
                p: VPredSrc::reg(low),
            },
        );
        k.store_results(tid, &[x, y, z, zz, w, ballot], r(6));
        k.op(MOp::Exit);
        let (kernel, listing) = build(&[k]);
        let code = body(&listing, ".entry");
        for line in [
            "@p1 s2r r2, %ntid.x",
            "@p1 ldparam r10, 1",
            "@p1 movi r3, 2056",
            "@p1 add r3, r11, r3",
            "@p1 vote.ballot r5, p2",
        ] {
            listing_has(&listing, line);
        }
        // The new value is stored under the guard; the old one stays in
        // its slot for the other lanes (no reload, partial or exclusive):
        // just before the definition is the store of `y = 6`.
        let y_def = code.iter().position(|l| l == "@p1 ldparam r10, 1").unwrap();
        assert_eq!(code[y_def - 1], "st.global.b32 [r11], r10", "{listing}");
        assert_eq!(code[y_def + 1], "@p1 st.global.b32 [r11], r10");
        let w_def = code.iter().position(|l| l == "@p1 ldparam r10, 0").unwrap();
        assert_eq!(code[w_def - 1], "add r4, r11, r4", "{listing}");
        assert_eq!(code[w_def + 1], "@p1 st.global.b32 [r11+4], r10");
        let g = run(&kernel, &listing, &[]);
        for (t, lane) in results(&g, 6).into_iter().enumerate() {
            if t % 2 == 1 {
                // ntid.x = 4, parameter 1 = 9, ballot of tid < 2 over
                // lanes 1 and 3 = bit 1.
                assert_eq!([lane[0], lane[1], lane[4], lane[5]], [4, 9, 7, 2]);
                assert_eq!(lane[2], lane[3], "the stack address");
            } else {
                assert_eq!(
                    [lane[0], lane[1], lane[2], lane[4], lane[5]],
                    [5, 6, 7, 0, 1234]
                );
            }
        }
    }

    /// Real allocation at a budget of 6 registers (three allocatable):
    /// guarded partial and exclusive definitions of spilled values are
    /// stored back under their guard, and the checker accepts the result.
    #[test]
    fn guarded_definitions_after_allocation() {
        use crate::backend::predalloc::allocate_predicates;
        use crate::backend::regalloc::{allocate_gprs, DefaultSpillPolicy};
        let mut k = Fb::new("k", 0);
        // Locations are the allocator's: the ones given here are dropped.
        let any = r(0);
        let tid = k.tid(any);
        let g = k.odd(p(1), tid, any);
        let v: Vec<VReg> = (1..=5)
            .map(|i| k.alu_imm(any, AluOp::Add, tid, 10 * i))
            .collect();
        let x = k.val(any);
        k.only_when(
            g,
            MOp::Alu {
                op: AluOp::Add,
                rd: x,
                rs1: v[0],
                rs2: v[1],
            },
        );
        let y = k.li(any, 7);
        k.when(
            g,
            MOp::Alu {
                op: AluOp::Mul,
                rd: y,
                rs1: v[2],
                rs2: v[3],
            },
        );
        let z = k.val(any);
        k.only_when(g, MOp::LdParam { rd: z, index: 1 });
        let vals = [v[0], v[1], v[2], v[3], v[4], y, x, z];
        let a = k.alu_imm(any, AluOp::Mul, tid, 4 * vals.len() as i32);
        for (i, &val) in vals.iter().enumerate() {
            let op = MOp::Store {
                space: Space::Global,
                width: StoreWidth::B32,
                src: val,
                base: a,
                offset: RESULTS + 4 * i as i32,
            };
            // x and z exist only where g holds.
            if i >= 6 {
                k.when(g, op);
            } else {
                k.op(op);
            }
        }
        k.op(MOp::Exit);

        let preds = allocate_predicates(&mut k.mf, 8).unwrap();
        let policy = DefaultSpillPolicy::new(&k.mf);
        let conv = Convention::new(6, true, true);
        let gprs = allocate_gprs(&k.mf, &conv.allocatable(), &policy);
        assert!(gprs.spilled >= 3, "{gprs:?}");
        let mut locs = gprs.locs.clone();
        locs.resize(k.mf.num_vregs(), None);
        for (i, q) in preds.preds.iter().enumerate() {
            if let (Some(q), RegClass::Pred) = (q, k.mf.class(VReg(i as u32))) {
                locs[i] = Some(VLoc::Pred(*q));
            }
        }
        k.locs = locs;
        k.conv = conv;
        let (kernel, listing) = build(&[k]);
        assert!(
            listing.contains("@p1 st.global.b32 [r5+"),
            "no guarded spill store\n{listing}"
        );
        let g = run(&kernel, &listing, &[]);
        for (t, lane) in results(&g, 8).into_iter().enumerate() {
            let t = t as u32;
            let v: Vec<u32> = (1..=5).map(|i| t + 10 * i).collect();
            let expect = if t % 2 == 1 {
                [v[0], v[1], v[2], v[3], v[4], v[2] * v[3], v[0] + v[1], 9]
            } else {
                [v[0], v[1], v[2], v[3], v[4], 7, 0, 0]
            };
            assert_eq!(lane, expect, "lane {t}\n{listing}");
        }
    }

    /// Code before a device function's entry would run before the
    /// incoming registers are read: refused.
    #[test]
    fn entry_must_come_first() {
        let mut f = Fb::new("f", 1);
        let mask = f.val(p(1));
        f.op(MOp::PLogic {
            op: PredOp::And,
            pd: mask,
            a: VPredSrc::TRUE,
            b: VPredSrc::FALSE,
        });
        let x = f.val(r(1));
        let ra = f.val(r(5));
        f.op(MOp::Entry {
            params: vec![x],
            ra,
        });
        f.op(MOp::Return { value: Some(x), ra });
        let frame = f.frame();
        let ctx = LowerContext {
            conv: &f.conv,
            frame: &frame,
            kernel_stack: None,
            warp_area: None,
        };
        let err = lower(&f.mf, &f.locs, &ctx).unwrap_err();
        assert!(err.to_string().contains("not the first"), "{err}");
    }
}
