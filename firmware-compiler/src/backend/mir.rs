//! Machine IR: Concord operations on virtual registers.
//!
//! Instruction selection ([`super::isel`]) turns an IR function into a
//! [`MFunction`]; predicate allocation ([`super::predalloc`]) and register
//! allocation ([`super::regalloc`]) assign physical registers to its virtual
//! registers; the rewrite ([`super::lower`]) then turns it into physical
//! instructions.
//!
//! The MIR is *not* in SSA form: a block parameter of the IR becomes one
//! virtual register written by the parallel copies of every incoming edge,
//! and a guarded instruction is a *partial* definition (lanes whose guard is
//! false keep the old value), so its destination is also one of its uses.
//! Liveness and allocation work on this form directly.
//!
//! Operations mirror `concord_isa::instr::Op` with virtual registers in place
//! of physical ones, plus a few pseudo-operations whose expansion needs the
//! allocation (constants, stack addresses, parallel copies, calls, returns,
//! division).

use std::fmt;

use concord_isa::instr::{
    AluOp, AtomOp, Cmp, Consensus, LoadWidth, PredOp, Space, SpecialReg, StoreWidth, VoteKind,
};

use crate::ir::{FuncId, StackSlot};

/// A virtual register. Its class (general or predicate) is recorded by the
/// [`MFunction`].
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct VReg(pub u32);

impl VReg {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for VReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0)
    }
}

/// Register classes: 32-bit general registers and 1-bit predicates.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum RegClass {
    Gpr,
    Pred,
}

/// A predicate operand: a virtual predicate or `pt`, possibly negated.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct VPredSrc {
    /// `None` is `pt` (always true).
    pub pred: Option<VReg>,
    pub negate: bool,
}

impl VPredSrc {
    pub const TRUE: VPredSrc = VPredSrc {
        pred: None,
        negate: false,
    };
    pub const FALSE: VPredSrc = VPredSrc {
        pred: None,
        negate: true,
    };

    pub fn reg(pred: VReg) -> VPredSrc {
        VPredSrc {
            pred: Some(pred),
            negate: false,
        }
    }

    pub fn not(pred: VReg) -> VPredSrc {
        VPredSrc {
            pred: Some(pred),
            negate: true,
        }
    }
}

/// A guard on a virtual predicate (`@p` / `@!p`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct VGuard {
    pub pred: VReg,
    pub negate: bool,
}

/// Which division routine a [`MOp::DivRem`] calls.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum DivKind {
    UDiv,
    URem,
    SDiv,
    SRem,
}

impl DivKind {
    pub const ALL: [DivKind; 4] = [DivKind::UDiv, DivKind::URem, DivKind::SDiv, DivKind::SRem];

    pub fn name(self) -> &'static str {
        match self {
            DivKind::UDiv => "udiv",
            DivKind::URem => "urem",
            DivKind::SDiv => "sdiv",
            DivKind::SRem => "srem",
        }
    }

    pub fn index(self) -> usize {
        match self {
            DivKind::UDiv => 0,
            DivKind::URem => 1,
            DivKind::SDiv => 2,
            DivKind::SRem => 3,
        }
    }
}

/// A block of an [`MFunction`], an index into [`MFunction::blocks`]; the
/// vector order is the code order.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct MBlock(pub u32);

impl MBlock {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// An operation. Register operands are virtual; `rd`/`pd` are definitions.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum MOp {
    Alu {
        op: AluOp,
        rd: VReg,
        rs1: VReg,
        rs2: VReg,
    },
    AluImm {
        op: AluOp,
        rd: VReg,
        rs1: VReg,
        imm: i32,
    },
    /// A 32-bit constant (`movi`, or `movi` + `movhi`).
    Li {
        rd: VReg,
        imm: u32,
    },
    SetP {
        cmp: Cmp,
        pd: VReg,
        rs1: VReg,
        rs2: VReg,
    },
    SetPImm {
        cmp: Cmp,
        pd: VReg,
        rs1: VReg,
        imm: i32,
    },
    PLogic {
        op: PredOp,
        pd: VReg,
        a: VPredSrc,
        b: VPredSrc,
    },
    Sel {
        rd: VReg,
        p: VPredSrc,
        rs1: VReg,
        rs2: VReg,
    },
    S2R {
        rd: VReg,
        sreg: SpecialReg,
    },
    LdParam {
        rd: VReg,
        index: u8,
    },
    Load {
        space: Space,
        width: LoadWidth,
        rd: VReg,
        base: VReg,
        offset: i32,
    },
    Store {
        space: Space,
        width: StoreWidth,
        src: VReg,
        base: VReg,
        offset: i32,
    },
    Atom {
        space: Space,
        op: AtomOp,
        rd: VReg,
        addr: VReg,
        src: VReg,
    },
    Vote {
        kind: VoteKind,
        pd: VReg,
        p: VPredSrc,
    },
    Ballot {
        rd: VReg,
        p: VPredSrc,
    },
    Bar,
    /// `rd = sp + offset of slot` (the slot's global address).
    StackAddr {
        rd: VReg,
        slot: StackSlot,
    },
    /// `rd = a / b` or `a % b` through the runtime division routine.
    DivRem {
        kind: DivKind,
        rd: VReg,
        a: VReg,
        b: VReg,
    },
    /// A call of a device function: arguments and result are general
    /// registers (the calling convention passes `i1` as 0/1).
    Call {
        callee: FuncId,
        args: Vec<VReg>,
        result: Option<VReg>,
    },
    /// The first operation of a device function: defines the parameters
    /// (arriving in the argument registers) and the return address.
    Entry {
        params: Vec<VReg>,
        ra: VReg,
    },
    /// `dst_i = src_i` for all `i` at once.
    ParallelCopy {
        copies: Vec<(VReg, VReg)>,
    },
    /// Per-lane branch (normally guarded).
    Bra {
        target: MBlock,
    },
    /// Unconditional jump of all active lanes (`bra.all pt`); left out when
    /// the target is the next block.
    Jump {
        target: MBlock,
    },
    /// Consensual branch (`bra.none/any/all p, L`): a vote of the executing
    /// lanes on `p`; all active lanes go to `target` together or none does.
    /// Predication uses it for loop masks and runtime uniformity skips.
    BraCons {
        kind: Consensus,
        p: VPredSrc,
        target: MBlock,
    },
    /// Kernel return: the thread exits.
    Exit,
    /// Device function return (value in the return register, back to `ra`).
    Return {
        value: Option<VReg>,
        ra: VReg,
    },
}

/// An operation with its guard.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MInst {
    pub guard: Option<VGuard>,
    pub op: MOp,
    /// Set by predication on a guarded definition whose old value no lane
    /// ever reads (the only definition of an SSA value, not live out of a
    /// predicated loop): liveness then treats it as a full definition, so
    /// predicated values do not stay live from the function entry.
    pub exclusive_def: bool,
    /// Set by predication on the instructions it guards: the lanes the
    /// guard masks either hold this same register's value already (another
    /// incoming edge's copy, an earlier iteration) or never read it, so the
    /// allocation checker may take every written location as holding the
    /// definitions. Liveness is unaffected (the definition stays partial
    /// unless `exclusive_def`).
    pub claims_def: bool,
}

impl MInst {
    pub fn new(op: MOp) -> MInst {
        MInst {
            guard: None,
            op,
            exclusive_def: false,
            claims_def: false,
        }
    }

    pub fn guarded(guard: VGuard, op: MOp) -> MInst {
        MInst {
            guard: Some(guard),
            op,
            exclusive_def: false,
            claims_def: false,
        }
    }

    /// Whether the definitions are partial (lanes whose guard is false keep
    /// the old value, so the old value is read too).
    pub fn is_partial_def(&self) -> bool {
        self.guard.is_some() && !self.exclusive_def
    }

    /// Whether the allocation checker may take the written locations as
    /// holding the definitions for every lane.
    pub fn claims_locations(&self) -> bool {
        self.exclusive_def || self.claims_def
    }

    /// Registers defined (fully or, under a guard, partially).
    pub fn defs(&self) -> Vec<VReg> {
        let mut out = Vec::new();
        match &self.op {
            MOp::Alu { rd, .. }
            | MOp::AluImm { rd, .. }
            | MOp::Li { rd, .. }
            | MOp::Sel { rd, .. }
            | MOp::S2R { rd, .. }
            | MOp::LdParam { rd, .. }
            | MOp::Load { rd, .. }
            | MOp::Atom { rd, .. }
            | MOp::Ballot { rd, .. }
            | MOp::StackAddr { rd, .. }
            | MOp::DivRem { rd, .. } => out.push(*rd),
            MOp::SetP { pd, .. }
            | MOp::SetPImm { pd, .. }
            | MOp::PLogic { pd, .. }
            | MOp::Vote { pd, .. } => out.push(*pd),
            MOp::Call { result, .. } => out.extend(result.iter().copied()),
            MOp::Entry { params, ra } => {
                out.extend(params.iter().copied());
                out.push(*ra);
            }
            MOp::ParallelCopy { copies } => out.extend(copies.iter().map(|c| c.0)),
            MOp::Store { .. }
            | MOp::Bar
            | MOp::Bra { .. }
            | MOp::Jump { .. }
            | MOp::BraCons { .. }
            | MOp::Exit
            | MOp::Return { .. } => {}
        }
        out
    }

    /// Registers the operation itself reads (not the guard, not the old
    /// value of a partial definition).
    pub fn op_uses(&self) -> Vec<VReg> {
        let mut out = Vec::new();
        let pred = |p: &VPredSrc, out: &mut Vec<VReg>| out.extend(p.pred);
        match &self.op {
            MOp::Alu { rs1, rs2, .. } | MOp::SetP { rs1, rs2, .. } => {
                out.push(*rs1);
                out.push(*rs2);
            }
            MOp::AluImm { rs1, .. } | MOp::SetPImm { rs1, .. } => out.push(*rs1),
            MOp::Li { .. }
            | MOp::S2R { .. }
            | MOp::LdParam { .. }
            | MOp::Bar
            | MOp::StackAddr { .. }
            | MOp::Entry { .. }
            | MOp::Bra { .. }
            | MOp::Jump { .. }
            | MOp::Exit => {}
            MOp::PLogic { a, b, .. } => {
                pred(a, &mut out);
                pred(b, &mut out);
            }
            MOp::Sel { p, rs1, rs2, .. } => {
                pred(p, &mut out);
                out.push(*rs1);
                out.push(*rs2);
            }
            MOp::Load { base, .. } => out.push(*base),
            MOp::Store { src, base, .. } => {
                out.push(*src);
                out.push(*base);
            }
            MOp::Atom { addr, src, .. } => {
                out.push(*addr);
                out.push(*src);
            }
            MOp::Vote { p, .. } | MOp::Ballot { p, .. } | MOp::BraCons { p, .. } => {
                pred(p, &mut out)
            }
            MOp::DivRem { a, b, .. } => {
                out.push(*a);
                out.push(*b);
            }
            MOp::Call { args, .. } => out.extend(args.iter().copied()),
            MOp::ParallelCopy { copies } => out.extend(copies.iter().map(|c| c.1)),
            MOp::Return { value, ra } => {
                out.extend(value.iter().copied());
                out.push(*ra);
            }
        }
        out
    }

    /// Every register read: the operation's sources, the guard, and the
    /// destinations of a partial definition.
    pub fn uses(&self) -> Vec<VReg> {
        let mut out = self.op_uses();
        if let Some(g) = self.guard {
            out.push(g.pred);
            if self.is_partial_def() {
                out.extend(self.defs());
            }
        }
        out
    }

    /// Rewrites the operation's source operands (not the guard, not the
    /// destinations).
    pub fn map_op_uses(&mut self, mut f: impl FnMut(VReg) -> VReg) {
        let pred = |p: &mut VPredSrc, f: &mut dyn FnMut(VReg) -> VReg| {
            if let Some(r) = p.pred.as_mut() {
                *r = f(*r);
            }
        };
        match &mut self.op {
            MOp::Alu { rs1, rs2, .. } | MOp::SetP { rs1, rs2, .. } => {
                *rs1 = f(*rs1);
                *rs2 = f(*rs2);
            }
            MOp::AluImm { rs1, .. } | MOp::SetPImm { rs1, .. } => *rs1 = f(*rs1),
            MOp::Li { .. }
            | MOp::S2R { .. }
            | MOp::LdParam { .. }
            | MOp::Bar
            | MOp::StackAddr { .. }
            | MOp::Entry { .. }
            | MOp::Bra { .. }
            | MOp::Jump { .. }
            | MOp::Exit => {}
            MOp::PLogic { a, b, .. } => {
                pred(a, &mut f);
                pred(b, &mut f);
            }
            MOp::Sel { p, rs1, rs2, .. } => {
                pred(p, &mut f);
                *rs1 = f(*rs1);
                *rs2 = f(*rs2);
            }
            MOp::Load { base, .. } => *base = f(*base),
            MOp::Store { src, base, .. } => {
                *src = f(*src);
                *base = f(*base);
            }
            MOp::Atom { addr, src, .. } => {
                *addr = f(*addr);
                *src = f(*src);
            }
            MOp::Vote { p, .. } | MOp::Ballot { p, .. } | MOp::BraCons { p, .. } => pred(p, &mut f),
            MOp::DivRem { a, b, .. } => {
                *a = f(*a);
                *b = f(*b);
            }
            MOp::Call { args, .. } => args.iter_mut().for_each(|a| *a = f(*a)),
            MOp::ParallelCopy { copies } => copies.iter_mut().for_each(|c| c.1 = f(c.1)),
            MOp::Return { value, ra } => {
                if let Some(v) = value.as_mut() {
                    *v = f(*v);
                }
                *ra = f(*ra);
            }
        }
    }

    /// Rewrites the destinations.
    pub fn map_defs(&mut self, mut f: impl FnMut(VReg) -> VReg) {
        match &mut self.op {
            MOp::Alu { rd, .. }
            | MOp::AluImm { rd, .. }
            | MOp::Li { rd, .. }
            | MOp::Sel { rd, .. }
            | MOp::S2R { rd, .. }
            | MOp::LdParam { rd, .. }
            | MOp::Load { rd, .. }
            | MOp::Atom { rd, .. }
            | MOp::Ballot { rd, .. }
            | MOp::StackAddr { rd, .. }
            | MOp::DivRem { rd, .. } => *rd = f(*rd),
            MOp::SetP { pd, .. }
            | MOp::SetPImm { pd, .. }
            | MOp::PLogic { pd, .. }
            | MOp::Vote { pd, .. } => *pd = f(*pd),
            MOp::Call { result, .. } => {
                if let Some(r) = result.as_mut() {
                    *r = f(*r);
                }
            }
            MOp::Entry { params, ra } => {
                params.iter_mut().for_each(|p| *p = f(*p));
                *ra = f(*ra);
            }
            MOp::ParallelCopy { copies } => copies.iter_mut().for_each(|c| c.0 = f(c.0)),
            MOp::Store { .. }
            | MOp::Bar
            | MOp::Bra { .. }
            | MOp::Jump { .. }
            | MOp::BraCons { .. }
            | MOp::Exit
            | MOp::Return { .. } => {}
        }
    }

    /// Operations that may be deleted when their results are unused.
    pub fn is_pure(&self) -> bool {
        matches!(
            self.op,
            MOp::Alu { .. }
                | MOp::AluImm { .. }
                | MOp::Li { .. }
                | MOp::SetP { .. }
                | MOp::SetPImm { .. }
                | MOp::PLogic { .. }
                | MOp::Sel { .. }
                | MOp::S2R { .. }
                | MOp::LdParam { .. }
                | MOp::StackAddr { .. }
                | MOp::DivRem { .. }
        )
    }

    /// Branch targets inside the function.
    pub fn targets(&self) -> Option<MBlock> {
        match self.op {
            MOp::Bra { target } | MOp::Jump { target } | MOp::BraCons { target, .. } => {
                Some(target)
            }
            _ => None,
        }
    }

    /// Whether control never continues to the next instruction.
    pub fn ends_flow(&self) -> bool {
        self.guard.is_none() && matches!(self.op, MOp::Jump { .. } | MOp::Exit | MOp::Return { .. })
    }
}

/// A block: its instructions in order.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct MBlockData {
    /// The IR block it came from, for labels and listings.
    pub name: String,
    pub insts: Vec<MInst>,
}

/// A function in machine IR.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MFunction {
    pub name: String,
    pub func: FuncId,
    pub is_kernel: bool,
    /// Class of each virtual register.
    pub classes: Vec<RegClass>,
    /// Blocks in code order; block 0 is the entry.
    pub blocks: Vec<MBlockData>,
    /// Whether the function divides (it needs the division scratch area
    /// below its stack pointer).
    pub divides: bool,
}

impl MFunction {
    pub fn new_vreg(&mut self, class: RegClass) -> VReg {
        self.classes.push(class);
        VReg(self.classes.len() as u32 - 1)
    }

    pub fn class(&self, v: VReg) -> RegClass {
        self.classes[v.index()]
    }

    pub fn num_vregs(&self) -> usize {
        self.classes.len()
    }

    /// Successor blocks of `b`: branch targets, plus the next block when
    /// control can fall through.
    pub fn succs(&self, b: MBlock) -> Vec<MBlock> {
        let mut out = Vec::new();
        let insts = &self.blocks[b.index()].insts;
        for inst in insts {
            if let Some(t) = inst.targets() {
                if !out.contains(&t) {
                    out.push(t);
                }
            }
        }
        let falls = insts.last().map_or(true, |last| !last.ends_flow());
        if falls && b.index() + 1 < self.blocks.len() {
            let next = MBlock(b.0 + 1);
            if !out.contains(&next) {
                out.push(next);
            }
        }
        out
    }

    /// Calls made by the function.
    pub fn callees(&self) -> Vec<FuncId> {
        let mut out = Vec::new();
        for b in &self.blocks {
            for i in &b.insts {
                if let MOp::Call { callee, .. } = i.op {
                    if !out.contains(&callee) {
                        out.push(callee);
                    }
                }
            }
        }
        out
    }
}
