//! Instruction selection: IR function -> [`MFunction`] on virtual registers.
//!
//! Runs after critical-edge splitting ([`super::edge_split`]) and keeps the
//! IR block order as the code order: MIR block *i* is IR layout position
//! *i*. Every IR value gets one virtual register (`i32` general, `i1`
//! predicate); block parameters are written by parallel copies at the end
//! of a single-successor predecessor or at the start of a single-predecessor
//! target (the splitting guarantees one of the two).
//!
//! Choices made here (see also `docs/compiler.md`, "Back end"):
//! * immediate forms whenever an operand is a constant that fits (`add`,
//!   `mul`, `and`, `or`, `xor` imm12, shifts 0..31, `setp` imm10, memory
//!   offsets imm12); `isub` by a constant is `add` of its negation;
//! * unsigned division by a power of two is a shift or a mask, signed
//!   division by a power of two the usual round-toward-zero sequence; any
//!   other division calls the runtime routine ([`super::runtime`]);
//! * `brif` is a per-lane `@p bra` to one target and a fall-through or an
//!   unconditional `bra.all pt` to the other;
//! * `bint` is `li 0` followed by a guarded `li 1` (a partial definition);
//! * calls pass `i1` arguments and results as 0/1 in general registers.

use concord_isa::instr::{
    AluOp, Cmp, PredOp, Space, VoteKind, IMM10_MAX, IMM10_MIN, IMM12_MAX, IMM12_MIN,
    MAX_PARAM_WORDS,
};

use super::mir::{
    DivKind, MBlock, MBlockData, MFunction, MInst, MOp, RegClass, VGuard, VPredSrc, VReg,
};
use super::BackendError;
use crate::ir::{
    BinaryOp, Block, FuncId, FuncKind, Function, InstData, MemSpace, Module, Type, UnaryOp, Value,
    VoteOp,
};

/// Selects instructions for `func` (already edge-split). `shared_offsets`
/// are the byte offsets of the module's shared variables.
pub fn select(
    module: &Module,
    id: FuncId,
    func: &Function,
    shared_offsets: &[u32],
) -> Result<MFunction, BackendError> {
    let mut s = Selector {
        module,
        func,
        shared_offsets,
        mf: MFunction {
            name: func.name.clone(),
            func: id,
            is_kernel: func.kind == FuncKind::Kernel,
            classes: Vec::new(),
            blocks: Vec::new(),
            divides: false,
        },
        vregs: Vec::new(),
        block_index: vec![None; func.blocks.len()],
        cur: Vec::new(),
    };
    s.run()?;
    Ok(s.mf)
}

struct Selector<'a> {
    module: &'a Module,
    func: &'a Function,
    shared_offsets: &'a [u32],
    mf: MFunction,
    /// Virtual register of each IR value.
    vregs: Vec<VReg>,
    /// MIR block of each laid-out IR block.
    block_index: Vec<Option<MBlock>>,
    /// Instructions of the block being selected.
    cur: Vec<MInst>,
}

fn fits12(v: i64) -> bool {
    (i64::from(IMM12_MIN)..=i64::from(IMM12_MAX)).contains(&v)
}

fn fits10(v: i64) -> bool {
    (i64::from(IMM10_MIN)..=i64::from(IMM10_MAX)).contains(&v)
}

/// The comparison with its operands exchanged (`a < b` iff `b > a`).
fn swapped(cmp: Cmp) -> Cmp {
    match cmp {
        Cmp::Eq => Cmp::Eq,
        Cmp::Ne => Cmp::Ne,
        Cmp::Lt => Cmp::Gt,
        Cmp::Le => Cmp::Ge,
        Cmp::Gt => Cmp::Lt,
        Cmp::Ge => Cmp::Le,
        Cmp::LtU => Cmp::GtU,
        Cmp::LeU => Cmp::GeU,
        Cmp::GtU => Cmp::LtU,
        Cmp::GeU => Cmp::LeU,
    }
}

fn space_of(space: MemSpace) -> Space {
    match space {
        MemSpace::Shared => Space::Shared,
        // The per-thread stack lives in global memory.
        MemSpace::Global | MemSpace::Local => Space::Global,
    }
}

impl Selector<'_> {
    fn err(&self, message: impl Into<String>) -> BackendError {
        BackendError::Unsupported {
            func: self.func.name.clone(),
            message: message.into(),
        }
    }

    fn emit(&mut self, op: MOp) {
        self.cur.push(MInst::new(op));
    }

    fn emit_guarded(&mut self, guard: VGuard, op: MOp) {
        self.cur.push(MInst::guarded(guard, op));
    }

    fn gpr(&mut self) -> VReg {
        self.mf.new_vreg(RegClass::Gpr)
    }

    fn pred(&mut self) -> VReg {
        self.mf.new_vreg(RegClass::Pred)
    }

    fn v(&self, value: Value) -> VReg {
        self.vregs[value.index()]
    }

    /// The constant an IR value is known to hold.
    fn const_of(&self, value: Value) -> Option<i32> {
        match self.func.value_def(value) {
            crate::ir::ValueDef::Result(inst) => match self.func.inst(inst) {
                InstData::Iconst { imm } => Some(*imm),
                _ => None,
            },
            crate::ir::ValueDef::Param(..) => None,
        }
    }

    fn run(&mut self) -> Result<(), BackendError> {
        let func = self.func;
        for (i, v) in func.values.iter().enumerate() {
            let class = match v.ty {
                Type::I32 => RegClass::Gpr,
                Type::I1 => RegClass::Pred,
            };
            let r = self.mf.new_vreg(class);
            debug_assert_eq!(r.index(), i);
            self.vregs.push(r);
        }
        for (pos, &b) in func.layout.iter().enumerate() {
            if let Some(slot) = self.block_index.get_mut(b.index()) {
                *slot = Some(MBlock(pos as u32));
            } else {
                return Err(self.err(format!("layout names missing block {b}")));
            }
        }

        // Copies for targets of two-way branches go at the start of the
        // target (it has a single incoming edge after splitting).
        let mut start_copies: Vec<Vec<(VReg, VReg)>> = vec![Vec::new(); func.blocks.len()];
        for &b in &func.layout {
            if let Some(term) = func.terminator(b) {
                if let InstData::Brif {
                    then_dest,
                    else_dest,
                    ..
                } = func.inst(term)
                {
                    for dest in [then_dest, else_dest] {
                        let copies = self.edge_copies(dest.block, &dest.args)?;
                        start_copies[dest.block.index()].extend(copies);
                    }
                }
            }
        }

        for pos in 0..func.layout.len() {
            let b = func.layout[pos];
            let next = func.layout.get(pos + 1).copied();
            self.cur = Vec::new();
            if pos == 0 && !self.mf.is_kernel {
                self.select_entry(b)?;
            }
            let copies = std::mem::take(&mut start_copies[b.index()]);
            if !copies.is_empty() {
                self.emit(MOp::ParallelCopy { copies });
            }
            for &inst in &func.block(b).insts {
                self.select_inst(inst, next)?;
            }
            let insts = std::mem::take(&mut self.cur);
            self.mf.blocks.push(MBlockData {
                name: b.to_string(),
                insts,
            });
        }
        Ok(())
    }

    /// Device-function entry: parameters arrive in general registers.
    fn select_entry(&mut self, entry: Block) -> Result<(), BackendError> {
        let params = self.func.block(entry).params.clone();
        let mut incoming = Vec::new();
        let mut converts = Vec::new();
        for &p in &params {
            match self.func.value_type(p) {
                Type::I32 => incoming.push(self.v(p)),
                Type::I1 => {
                    let g = self.gpr();
                    incoming.push(g);
                    converts.push((self.v(p), g));
                }
            }
        }
        let ra = self.gpr();
        self.emit(MOp::Entry {
            params: incoming,
            ra,
        });
        for (pd, g) in converts {
            self.emit(MOp::SetPImm {
                cmp: Cmp::Ne,
                pd,
                rs1: g,
                imm: 0,
            });
        }
        Ok(())
    }

    fn edge_copies(
        &self,
        target: Block,
        args: &[Value],
    ) -> Result<Vec<(VReg, VReg)>, BackendError> {
        let params = &self.func.block(target).params;
        if params.len() != args.len() {
            return Err(self.err(format!(
                "{target} takes {} arguments, branch passes {}",
                params.len(),
                args.len()
            )));
        }
        Ok(params
            .iter()
            .zip(args)
            .filter(|(p, a)| p != a)
            .map(|(&p, &a)| (self.v(p), self.v(a)))
            .collect())
    }

    fn block_of(&self, b: Block) -> Result<MBlock, BackendError> {
        self.block_index
            .get(b.index())
            .copied()
            .flatten()
            .ok_or_else(|| self.err(format!("branch to {b}, which is not laid out")))
    }

    /// `g = b ? 1 : 0` as a full definition and a partial one.
    fn bool_to_int(&mut self, rd: VReg, p: VReg) {
        self.emit(MOp::Li { rd, imm: 0 });
        self.emit_guarded(
            VGuard {
                pred: p,
                negate: false,
            },
            MOp::Li { rd, imm: 1 },
        );
    }

    /// A general register holding `value` (constants are materialised).
    fn reg_or_const(&mut self, value: Value) -> VReg {
        self.v(value)
    }

    fn result(&self, inst: crate::ir::Inst) -> Option<VReg> {
        self.func.inst_result(inst).map(|v| self.v(v))
    }

    fn select_inst(
        &mut self,
        inst: crate::ir::Inst,
        next: Option<Block>,
    ) -> Result<(), BackendError> {
        let data = self.func.inst(inst).clone();
        let res = self.result(inst);
        let need = |s: &Self| res.ok_or_else(|| s.err(format!("{inst} has no result")));
        match data {
            InstData::Iconst { imm } => {
                let rd = need(self)?;
                self.emit(MOp::Li {
                    rd,
                    imm: imm as u32,
                });
            }
            InstData::Bconst { imm } => {
                let pd = need(self)?;
                let op = if imm { PredOp::And } else { PredOp::Xor };
                self.emit(MOp::PLogic {
                    op,
                    pd,
                    a: VPredSrc::TRUE,
                    b: VPredSrc::TRUE,
                });
            }
            InstData::Unary { op, arg } => {
                let rd = need(self)?;
                self.select_unary(op, rd, arg);
            }
            InstData::Binary { op, args } => {
                let rd = need(self)?;
                self.select_binary(op, rd, args)?;
            }
            InstData::Icmp { cmp, args } => {
                let pd = need(self)?;
                self.select_icmp(cmp, pd, args);
            }
            InstData::Select {
                cond,
                if_true,
                if_false,
            } => {
                let rd = need(self)?;
                let c = self.v(cond);
                if self.mf.class(rd) == RegClass::Gpr {
                    let (t, f) = (self.reg_or_const(if_true), self.reg_or_const(if_false));
                    self.emit(MOp::Sel {
                        rd,
                        p: VPredSrc::reg(c),
                        rs1: t,
                        rs2: f,
                    });
                } else {
                    let (t, f) = (self.v(if_true), self.v(if_false));
                    let a = self.pred();
                    let b = self.pred();
                    self.emit(MOp::PLogic {
                        op: PredOp::And,
                        pd: a,
                        a: VPredSrc::reg(c),
                        b: VPredSrc::reg(t),
                    });
                    self.emit(MOp::PLogic {
                        op: PredOp::And,
                        pd: b,
                        a: VPredSrc::not(c),
                        b: VPredSrc::reg(f),
                    });
                    self.emit(MOp::PLogic {
                        op: PredOp::Or,
                        pd: rd,
                        a: VPredSrc::reg(a),
                        b: VPredSrc::reg(b),
                    });
                }
            }
            InstData::Special { reg } => {
                let rd = need(self)?;
                self.emit(MOp::S2R { rd, sreg: reg });
            }
            InstData::Param { index } => {
                let rd = need(self)?;
                if index as usize >= MAX_PARAM_WORDS {
                    return Err(self.err(format!(
                        "param {index}: the machine has {MAX_PARAM_WORDS} parameter words"
                    )));
                }
                self.emit(MOp::LdParam {
                    rd,
                    index: index as u8,
                });
            }
            InstData::SharedAddr { var } => {
                let rd = need(self)?;
                let Some(&off) = self.shared_offsets.get(var.index()) else {
                    return Err(self.err(format!("unknown shared variable {var}")));
                };
                self.emit(MOp::Li { rd, imm: off });
            }
            InstData::StackAddr { slot } => {
                let rd = need(self)?;
                if slot.index() >= self.func.stack_slots.len() {
                    return Err(self.err(format!("unknown stack slot {slot}")));
                }
                self.emit(MOp::StackAddr { rd, slot });
            }
            InstData::Load {
                space,
                width,
                addr,
                offset,
            } => {
                let rd = need(self)?;
                let (base, offset) = self.address(addr, offset);
                self.emit(MOp::Load {
                    space: space_of(space),
                    width,
                    rd,
                    base,
                    offset,
                });
            }
            InstData::Store {
                space,
                width,
                value,
                addr,
                offset,
            } => {
                let src = self.v(value);
                let (base, offset) = self.address(addr, offset);
                self.emit(MOp::Store {
                    space: space_of(space),
                    width,
                    src,
                    base,
                    offset,
                });
            }
            InstData::Atomic {
                space,
                op,
                addr,
                value,
            } => {
                let rd = match res {
                    Some(r) => r,
                    None => self.gpr(),
                };
                let (addr, src) = (self.v(addr), self.v(value));
                self.emit(MOp::Atom {
                    space: space_of(space),
                    op,
                    rd,
                    addr,
                    src,
                });
            }
            InstData::Vote { op, arg } => {
                let rd = need(self)?;
                let p = VPredSrc::reg(self.v(arg));
                match op {
                    VoteOp::Any => self.emit(MOp::Vote {
                        kind: VoteKind::Any,
                        pd: rd,
                        p,
                    }),
                    VoteOp::All => self.emit(MOp::Vote {
                        kind: VoteKind::All,
                        pd: rd,
                        p,
                    }),
                    VoteOp::Ballot => self.emit(MOp::Ballot { rd, p }),
                }
            }
            InstData::Barrier => self.emit(MOp::Bar),
            InstData::Call { func, args } => {
                let Some(callee) = self.module.funcs.get(func.index()) else {
                    return Err(self.err(format!("call of unknown function {func}")));
                };
                if callee.kind != FuncKind::Device {
                    return Err(self.err(format!("call of kernel @{}", callee.name)));
                }
                let mut regs = Vec::new();
                for a in args {
                    match self.func.value_type(a) {
                        Type::I32 => regs.push(self.v(a)),
                        Type::I1 => {
                            let g = self.gpr();
                            self.bool_to_int(g, self.v(a));
                            regs.push(g);
                        }
                    }
                }
                let result = match res {
                    Some(r) if self.mf.class(r) == RegClass::Pred => {
                        let g = self.gpr();
                        self.emit(MOp::Call {
                            callee: func,
                            args: regs,
                            result: Some(g),
                        });
                        self.emit(MOp::SetPImm {
                            cmp: Cmp::Ne,
                            pd: r,
                            rs1: g,
                            imm: 0,
                        });
                        return Ok(());
                    }
                    other => other,
                };
                self.emit(MOp::Call {
                    callee: func,
                    args: regs,
                    result,
                });
            }
            InstData::Jump { dest } => {
                let target = self.block_of(dest.block)?;
                let copies = self.edge_copies(dest.block, &dest.args)?;
                if !copies.is_empty() {
                    self.emit(MOp::ParallelCopy { copies });
                }
                self.emit(MOp::Jump { target });
            }
            InstData::Brif {
                cond,
                then_dest,
                else_dest,
            } => {
                let c = self.v(cond);
                let t = self.block_of(then_dest.block)?;
                let e = self.block_of(else_dest.block)?;
                if t == e {
                    self.emit(MOp::Jump { target: t });
                } else if Some(then_dest.block) == next {
                    self.emit_guarded(
                        VGuard {
                            pred: c,
                            negate: true,
                        },
                        MOp::Bra { target: e },
                    );
                    self.emit(MOp::Jump { target: t });
                } else {
                    self.emit_guarded(
                        VGuard {
                            pred: c,
                            negate: false,
                        },
                        MOp::Bra { target: t },
                    );
                    self.emit(MOp::Jump { target: e });
                }
            }
            InstData::Return { value } => {
                if self.mf.is_kernel {
                    self.emit(MOp::Exit);
                } else {
                    let ra = self.entry_ra()?;
                    let value = match value {
                        Some(v) if self.func.value_type(v) == Type::I1 => {
                            let g = self.gpr();
                            self.bool_to_int(g, self.v(v));
                            Some(g)
                        }
                        Some(v) => Some(self.v(v)),
                        None => None,
                    };
                    self.emit(MOp::Return { value, ra });
                }
            }
        }
        Ok(())
    }

    /// The return-address register defined by the entry block's `Entry`.
    fn entry_ra(&self) -> Result<VReg, BackendError> {
        let entry = self
            .mf
            .blocks
            .first()
            .map(|b| &b.insts[..])
            .unwrap_or(&self.cur[..]);
        entry
            .iter()
            .find_map(|i| match i.op {
                MOp::Entry { ra, .. } => Some(ra),
                _ => None,
            })
            .ok_or_else(|| self.err("device function without an entry"))
    }

    /// Base register and imm12 offset for `addr + offset`.
    fn address(&mut self, addr: Value, offset: i32) -> (VReg, i32) {
        let base = self.v(addr);
        if fits12(i64::from(offset)) {
            return (base, offset);
        }
        let k = self.gpr();
        self.emit(MOp::Li {
            rd: k,
            imm: offset as u32,
        });
        let sum = self.gpr();
        self.emit(MOp::Alu {
            op: AluOp::Add,
            rd: sum,
            rs1: base,
            rs2: k,
        });
        (sum, 0)
    }

    fn select_unary(&mut self, op: UnaryOp, rd: VReg, arg: Value) {
        let a = self.v(arg);
        let imm = |s: &mut Self, op: AluOp, rd: VReg, rs1: VReg, imm: i32| {
            s.emit(MOp::AluImm { op, rd, rs1, imm })
        };
        match op {
            UnaryOp::Not if self.mf.class(a) == RegClass::Pred => self.emit(MOp::PLogic {
                op: PredOp::Xor,
                pd: rd,
                a: VPredSrc::reg(a),
                b: VPredSrc::TRUE,
            }),
            UnaryOp::Not => imm(self, AluOp::Xor, rd, a, -1),
            UnaryOp::Neg => imm(self, AluOp::Mul, rd, a, -1),
            UnaryOp::Sext8 | UnaryOp::Sext16 | UnaryOp::Zext16 => {
                let (bits, right) = match op {
                    UnaryOp::Sext8 => (24, AluOp::Sra),
                    UnaryOp::Sext16 => (16, AluOp::Sra),
                    _ => (16, AluOp::Shr),
                };
                let t = self.gpr();
                imm(self, AluOp::Shl, t, a, bits);
                imm(self, right, rd, t, bits);
            }
            UnaryOp::Zext8 => imm(self, AluOp::And, rd, a, 0xff),
            UnaryOp::BoolToInt => self.bool_to_int(rd, a),
        }
    }

    fn select_icmp(&mut self, cmp: Cmp, pd: VReg, args: [Value; 2]) {
        let (a, b) = (self.v(args[0]), self.v(args[1]));
        if let Some(k) = self.const_of(args[1]).filter(|&k| fits10(i64::from(k))) {
            self.emit(MOp::SetPImm {
                cmp,
                pd,
                rs1: a,
                imm: k,
            });
        } else if let Some(k) = self.const_of(args[0]).filter(|&k| fits10(i64::from(k))) {
            self.emit(MOp::SetPImm {
                cmp: swapped(cmp),
                pd,
                rs1: b,
                imm: k,
            });
        } else {
            self.emit(MOp::SetP {
                cmp,
                pd,
                rs1: a,
                rs2: b,
            });
        }
    }

    fn select_binary(
        &mut self,
        op: BinaryOp,
        rd: VReg,
        args: [Value; 2],
    ) -> Result<(), BackendError> {
        let (a, b) = (self.v(args[0]), self.v(args[1]));
        if self.mf.class(rd) == RegClass::Pred {
            let pop = match op {
                BinaryOp::And => PredOp::And,
                BinaryOp::Or => PredOp::Or,
                BinaryOp::Xor => PredOp::Xor,
                _ => return Err(self.err(format!("{} on i1", op.name()))),
            };
            self.emit(MOp::PLogic {
                op: pop,
                pd: rd,
                a: VPredSrc::reg(a),
                b: VPredSrc::reg(b),
            });
            return Ok(());
        }
        let (ka, kb) = (self.const_of(args[0]), self.const_of(args[1]));
        let alu = match op {
            BinaryOp::Add => AluOp::Add,
            BinaryOp::Sub => AluOp::Sub,
            BinaryOp::Mul => AluOp::Mul,
            BinaryOp::MulHi => AluOp::MulHi,
            BinaryOp::MulHiU => AluOp::MulHiU,
            BinaryOp::And => AluOp::And,
            BinaryOp::Or => AluOp::Or,
            BinaryOp::Xor => AluOp::Xor,
            BinaryOp::Shl => AluOp::Shl,
            BinaryOp::LShr => AluOp::Shr,
            BinaryOp::AShr => AluOp::Sra,
            BinaryOp::SMin => AluOp::Min,
            BinaryOp::SMax => AluOp::Max,
            BinaryOp::UMin => AluOp::MinU,
            BinaryOp::UMax => AluOp::MaxU,
            BinaryOp::UDiv | BinaryOp::URem | BinaryOp::SDiv | BinaryOp::SRem => {
                return self.select_division(op, rd, a, b, kb);
            }
        };
        match alu {
            AluOp::Shl | AluOp::Shr | AluOp::Sra if kb.is_some() => {
                let k = kb.unwrap_or(0) & 31;
                self.emit(MOp::AluImm {
                    op: alu,
                    rd,
                    rs1: a,
                    imm: k,
                });
                return Ok(());
            }
            AluOp::Sub => {
                if let Some(k) = kb.filter(|&k| fits12(-i64::from(k))) {
                    self.emit(MOp::AluImm {
                        op: AluOp::Add,
                        rd,
                        rs1: a,
                        imm: -k,
                    });
                    return Ok(());
                }
            }
            AluOp::Add | AluOp::Mul | AluOp::And | AluOp::Or | AluOp::Xor => {
                if let Some(k) = kb.filter(|&k| fits12(i64::from(k))) {
                    self.emit(MOp::AluImm {
                        op: alu,
                        rd,
                        rs1: a,
                        imm: k,
                    });
                    return Ok(());
                }
                if let Some(k) = ka.filter(|&k| fits12(i64::from(k))) {
                    self.emit(MOp::AluImm {
                        op: alu,
                        rd,
                        rs1: b,
                        imm: k,
                    });
                    return Ok(());
                }
            }
            _ => {}
        }
        self.emit(MOp::Alu {
            op: alu,
            rd,
            rs1: a,
            rs2: b,
        });
        Ok(())
    }

    fn select_division(
        &mut self,
        op: BinaryOp,
        rd: VReg,
        a: VReg,
        b: VReg,
        kb: Option<i32>,
    ) -> Result<(), BackendError> {
        let imm = |s: &mut Self, op: AluOp, rd: VReg, rs1: VReg, imm: i32| {
            s.emit(MOp::AluImm { op, rd, rs1, imm })
        };
        match (op, kb) {
            // Unsigned by 2^k: shift / mask.
            (BinaryOp::UDiv, Some(k)) if k != 0 && (k as u32).is_power_of_two() => {
                imm(self, AluOp::Shr, rd, a, (k as u32).trailing_zeros() as i32);
                return Ok(());
            }
            (BinaryOp::URem, Some(k)) if k != 0 && (k as u32).is_power_of_two() => {
                let mask = (k as u32).wrapping_sub(1);
                self.and_const(rd, a, mask);
                return Ok(());
            }
            // Signed by 2^s, 1 <= s <= 30: bias negative dividends by 2^s - 1
            // so the arithmetic shift rounds toward zero.
            (BinaryOp::SDiv | BinaryOp::SRem, Some(k)) if k > 1 && (k as u32).is_power_of_two() => {
                let s = (k as u32).trailing_zeros() as i32;
                let sign = self.gpr();
                imm(self, AluOp::Sra, sign, a, 31);
                let bias = self.gpr();
                imm(self, AluOp::Shr, bias, sign, 32 - s);
                let biased = self.gpr();
                self.emit(MOp::Alu {
                    op: AluOp::Add,
                    rd: biased,
                    rs1: a,
                    rs2: bias,
                });
                if op == BinaryOp::SDiv {
                    imm(self, AluOp::Sra, rd, biased, s);
                } else {
                    // a - (biased & -2^s)
                    let low = self.gpr();
                    self.and_const(low, biased, (k as u32).wrapping_neg());
                    self.emit(MOp::Alu {
                        op: AluOp::Sub,
                        rd,
                        rs1: a,
                        rs2: low,
                    });
                }
                return Ok(());
            }
            _ => {}
        }
        let kind = match op {
            BinaryOp::UDiv => DivKind::UDiv,
            BinaryOp::URem => DivKind::URem,
            BinaryOp::SDiv => DivKind::SDiv,
            _ => DivKind::SRem,
        };
        self.mf.divides = true;
        self.emit(MOp::DivRem { kind, rd, a, b });
        Ok(())
    }

    fn and_const(&mut self, rd: VReg, a: VReg, mask: u32) {
        if fits12(i64::from(mask as i32)) {
            self.emit(MOp::AluImm {
                op: AluOp::And,
                rd,
                rs1: a,
                imm: mask as i32,
            });
        } else {
            let k = self.gpr();
            self.emit(MOp::Li { rd: k, imm: mask });
            self.emit(MOp::Alu {
                op: AluOp::And,
                rd,
                rs1: a,
                rs2: k,
            });
        }
    }
}
