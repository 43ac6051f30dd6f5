//! Instruction data: the operations of the IR and their operands.
//!
//! Facts that belong to the ISA are not restated here: comparisons are
//! [`Cmp`], special registers [`SpecialReg`], access widths [`LoadWidth`] /
//! [`StoreWidth`] and atomic operations [`AtomOp`], all from `concord_isa`,
//! and their textual names are the ISA's.

use concord_isa::instr::{AtomOp, Cmp, LoadWidth, SpecialReg, StoreWidth};

use super::entities::{Block, FuncId, SharedId, StackSlot, Value};

/// The type of an SSA value. Registers are 32 bits; `i1` values live in
/// predicate registers. Narrow C types exist only in memory (loads extend,
/// stores truncate) and through the [`UnaryOp`] extensions.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Type {
    I1,
    I32,
}

impl Type {
    pub fn name(self) -> &'static str {
        match self {
            Type::I1 => "i1",
            Type::I32 => "i32",
        }
    }
}

/// Two-operand operations. All take and produce `i32`, except `and`, `or`
/// and `xor`, which also work on two `i1`. Division and remainder follow C
/// (truncating). Division by zero gives a quotient of all ones (`-1`) and a
/// remainder equal to the dividend, and `sdiv(i32::MIN, -1)` is `i32::MIN`
/// with remainder 0 (RISC-V's rules), so the IR has no undefined results;
/// the back end's division routine gives the same.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    /// High word of the signed 64-bit product.
    MulHi,
    /// High word of the unsigned 64-bit product.
    MulHiU,
    SDiv,
    UDiv,
    SRem,
    URem,
    And,
    Or,
    Xor,
    /// Shifts take the amount modulo 32, like the ISA.
    Shl,
    LShr,
    AShr,
    SMin,
    SMax,
    UMin,
    UMax,
}

impl BinaryOp {
    pub const ALL: [BinaryOp; 19] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::MulHi,
        BinaryOp::MulHiU,
        BinaryOp::SDiv,
        BinaryOp::UDiv,
        BinaryOp::SRem,
        BinaryOp::URem,
        BinaryOp::And,
        BinaryOp::Or,
        BinaryOp::Xor,
        BinaryOp::Shl,
        BinaryOp::LShr,
        BinaryOp::AShr,
        BinaryOp::SMin,
        BinaryOp::SMax,
        BinaryOp::UMin,
        BinaryOp::UMax,
    ];

    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "iadd",
            BinaryOp::Sub => "isub",
            BinaryOp::Mul => "imul",
            BinaryOp::MulHi => "imulhi",
            BinaryOp::MulHiU => "umulhi",
            BinaryOp::SDiv => "sdiv",
            BinaryOp::UDiv => "udiv",
            BinaryOp::SRem => "srem",
            BinaryOp::URem => "urem",
            BinaryOp::And => "band",
            BinaryOp::Or => "bor",
            BinaryOp::Xor => "bxor",
            BinaryOp::Shl => "ishl",
            BinaryOp::LShr => "ushr",
            BinaryOp::AShr => "sshr",
            BinaryOp::SMin => "smin",
            BinaryOp::SMax => "smax",
            BinaryOp::UMin => "umin",
            BinaryOp::UMax => "umax",
        }
    }

    pub fn from_name(name: &str) -> Option<BinaryOp> {
        Self::ALL.into_iter().find(|op| op.name() == name)
    }

    /// Whether `a op b == b op a`.
    pub fn is_commutative(self) -> bool {
        matches!(
            self,
            BinaryOp::Add
                | BinaryOp::Mul
                | BinaryOp::MulHi
                | BinaryOp::MulHiU
                | BinaryOp::And
                | BinaryOp::Or
                | BinaryOp::Xor
                | BinaryOp::SMin
                | BinaryOp::SMax
                | BinaryOp::UMin
                | BinaryOp::UMax
        )
    }

    /// Whether the operation is defined on two `i1` (giving `i1`).
    pub fn accepts_i1(self) -> bool {
        matches!(self, BinaryOp::And | BinaryOp::Or | BinaryOp::Xor)
    }
}

/// One-operand operations.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum UnaryOp {
    /// Bitwise not on `i32`, logical not on `i1`.
    Not,
    /// Two's complement negation (`i32`).
    Neg,
    /// Sign-/zero-extend the low 8 or 16 bits (C conversion to `char`,
    /// `unsigned char`, `short`, `unsigned short`), `i32 -> i32`.
    Sext8,
    Zext8,
    Sext16,
    Zext16,
    /// `i1 -> i32`: 1 or 0.
    BoolToInt,
}

impl UnaryOp {
    pub const ALL: [UnaryOp; 7] = [
        UnaryOp::Not,
        UnaryOp::Neg,
        UnaryOp::Sext8,
        UnaryOp::Zext8,
        UnaryOp::Sext16,
        UnaryOp::Zext16,
        UnaryOp::BoolToInt,
    ];

    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Not => "bnot",
            UnaryOp::Neg => "ineg",
            UnaryOp::Sext8 => "sext8",
            UnaryOp::Zext8 => "zext8",
            UnaryOp::Sext16 => "sext16",
            UnaryOp::Zext16 => "zext16",
            UnaryOp::BoolToInt => "bint",
        }
    }

    pub fn from_name(name: &str) -> Option<UnaryOp> {
        Self::ALL.into_iter().find(|op| op.name() == name)
    }
}

/// Where a load, store or atomic goes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum MemSpace {
    Global,
    Shared,
    /// The thread's own stack frame (addresses from `stack_addr`). The back
    /// end places it in a per-thread region of global memory.
    Local,
}

impl MemSpace {
    pub const ALL: [MemSpace; 3] = [MemSpace::Global, MemSpace::Shared, MemSpace::Local];

    pub fn name(self) -> &'static str {
        match self {
            MemSpace::Global => "global",
            MemSpace::Shared => "shared",
            MemSpace::Local => "local",
        }
    }

    pub fn from_name(name: &str) -> Option<MemSpace> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// Warp votes (`__any_sync`, `__all_sync`, `__ballot_sync`). The voters are
/// the threads of the warp that execute the vote together; the IR
/// interpreter requires every live thread of the warp to reach the same vote.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum VoteOp {
    /// `i1 -> i1`
    Any,
    /// `i1 -> i1`
    All,
    /// `i1 -> i32`, bit *i* = lane *i*.
    Ballot,
}

impl VoteOp {
    pub fn name(self) -> &'static str {
        match self {
            VoteOp::Any => "any",
            VoteOp::All => "all",
            VoteOp::Ballot => "ballot",
        }
    }
}

/// A branch target with the arguments passed to the block's parameters.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct BlockCall {
    pub block: Block,
    pub args: Vec<Value>,
}

impl BlockCall {
    pub fn new(block: Block) -> BlockCall {
        BlockCall {
            block,
            args: Vec::new(),
        }
    }
}

/// An instruction's operation and operands. The result (zero or one value)
/// is stored by the [`Function`](super::Function).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum InstData {
    /// `v = iconst -5` (`i32`)
    Iconst { imm: i32 },
    /// `v = bconst true` (`i1`)
    Bconst { imm: bool },
    /// `v = bnot v1`
    Unary { op: UnaryOp, arg: Value },
    /// `v = iadd v1, v2`
    Binary { op: BinaryOp, args: [Value; 2] },
    /// `v = icmp lt v1, v2` (`i1`); the ISA's comparison names.
    Icmp { cmp: Cmp, args: [Value; 2] },
    /// `v = select v0, v1, v2`: `v0 ? v1 : v2`, `v0: i1`.
    Select {
        cond: Value,
        if_true: Value,
        if_false: Value,
    },
    /// `v = special tid.x` (`i32`); the ISA's special register names.
    Special { reg: SpecialReg },
    /// `v = param 2`: kernel parameter word 2 (`i32`, kernels only).
    Param { index: u32 },
    /// `v = shared_addr sh0`: byte address of a `__shared__` variable.
    SharedAddr { var: SharedId },
    /// `v = stack_addr ss0`: local-space address of a stack slot.
    StackAddr { slot: StackSlot },
    /// `v = load.global.s8 v1+4` (`i32`)
    Load {
        space: MemSpace,
        width: LoadWidth,
        addr: Value,
        offset: i32,
    },
    /// `store.shared.b32 v2, v1+4` (value first, then address)
    Store {
        space: MemSpace,
        width: StoreWidth,
        value: Value,
        addr: Value,
        offset: i32,
    },
    /// `v = atomic.global.add v1, v2`: old value of the 32-bit word at `v1`.
    Atomic {
        space: MemSpace,
        op: AtomOp,
        addr: Value,
        value: Value,
    },
    /// `v = vote.any v1`
    Vote { op: VoteOp, arg: Value },
    /// `barrier` (`__syncthreads()`)
    Barrier,
    /// `v = call fn2(v1, v2)` (result only when the callee returns a value)
    Call { func: FuncId, args: Vec<Value> },
    /// `jump block3(v1)`
    Jump { dest: BlockCall },
    /// `brif v0, block1(v2), block2`
    Brif {
        cond: Value,
        then_dest: BlockCall,
        else_dest: BlockCall,
    },
    /// `return` / `return v1`. In a kernel, the thread exits.
    Return { value: Option<Value> },
}

impl InstData {
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            InstData::Jump { .. } | InstData::Brif { .. } | InstData::Return { .. }
        )
    }

    /// Whether the instruction has an effect besides its result (so it may
    /// not be removed or duplicated when the result is unused or equal).
    pub fn has_side_effects(&self) -> bool {
        matches!(
            self,
            InstData::Store { .. }
                | InstData::Atomic { .. }
                | InstData::Vote { .. }
                | InstData::Barrier
                | InstData::Call { .. }
        ) || self.is_terminator()
    }

    /// Whether the result may change between two executions with equal
    /// operands (memory reads and the clock), so CSE must not merge them.
    pub fn reads_state(&self) -> bool {
        matches!(
            self,
            InstData::Load { .. }
                | InstData::Special {
                    reg: SpecialReg::ClockLo | SpecialReg::ClockHi
                }
        )
    }

    /// The value operands, in textual order (branch arguments included).
    pub fn args(&self) -> Vec<Value> {
        let mut out = Vec::new();
        self.for_each_arg(|v| out.push(v));
        out
    }

    pub fn for_each_arg(&self, mut f: impl FnMut(Value)) {
        match self {
            InstData::Iconst { .. }
            | InstData::Bconst { .. }
            | InstData::Special { .. }
            | InstData::Param { .. }
            | InstData::SharedAddr { .. }
            | InstData::StackAddr { .. }
            | InstData::Barrier => {}
            InstData::Unary { arg, .. } | InstData::Vote { arg, .. } => f(*arg),
            InstData::Binary { args, .. } | InstData::Icmp { args, .. } => {
                f(args[0]);
                f(args[1]);
            }
            InstData::Select {
                cond,
                if_true,
                if_false,
            } => {
                f(*cond);
                f(*if_true);
                f(*if_false);
            }
            InstData::Load { addr, .. } => f(*addr),
            InstData::Store { value, addr, .. } => {
                f(*value);
                f(*addr);
            }
            InstData::Atomic { addr, value, .. } => {
                f(*addr);
                f(*value);
            }
            InstData::Call { args, .. } => args.iter().copied().for_each(f),
            InstData::Jump { dest } => dest.args.iter().copied().for_each(f),
            InstData::Brif {
                cond,
                then_dest,
                else_dest,
            } => {
                f(*cond);
                then_dest.args.iter().copied().for_each(&mut f);
                else_dest.args.iter().copied().for_each(&mut f);
            }
            InstData::Return { value } => {
                if let Some(v) = value {
                    f(*v)
                }
            }
        }
    }

    /// Rewrites every value operand in place.
    pub fn map_args(&mut self, mut f: impl FnMut(Value) -> Value) {
        match self {
            InstData::Iconst { .. }
            | InstData::Bconst { .. }
            | InstData::Special { .. }
            | InstData::Param { .. }
            | InstData::SharedAddr { .. }
            | InstData::StackAddr { .. }
            | InstData::Barrier => {}
            InstData::Unary { arg, .. } | InstData::Vote { arg, .. } => *arg = f(*arg),
            InstData::Binary { args, .. } | InstData::Icmp { args, .. } => {
                args[0] = f(args[0]);
                args[1] = f(args[1]);
            }
            InstData::Select {
                cond,
                if_true,
                if_false,
            } => {
                *cond = f(*cond);
                *if_true = f(*if_true);
                *if_false = f(*if_false);
            }
            InstData::Load { addr, .. } => *addr = f(*addr),
            InstData::Store { value, addr, .. } => {
                *value = f(*value);
                *addr = f(*addr);
            }
            InstData::Atomic { addr, value, .. } => {
                *addr = f(*addr);
                *value = f(*value);
            }
            InstData::Call { args, .. } => args.iter_mut().for_each(|a| *a = f(*a)),
            InstData::Jump { dest } => dest.args.iter_mut().for_each(|a| *a = f(*a)),
            InstData::Brif {
                cond,
                then_dest,
                else_dest,
            } => {
                *cond = f(*cond);
                then_dest.args.iter_mut().for_each(|a| *a = f(*a));
                else_dest.args.iter_mut().for_each(|a| *a = f(*a));
            }
            InstData::Return { value } => {
                if let Some(v) = value {
                    *v = f(*v)
                }
            }
        }
    }

    /// The branch targets of a terminator (empty for other instructions).
    pub fn branch_targets(&self) -> Vec<&BlockCall> {
        match self {
            InstData::Jump { dest } => vec![dest],
            InstData::Brif {
                then_dest,
                else_dest,
                ..
            } => vec![then_dest, else_dest],
            _ => Vec::new(),
        }
    }

    pub fn branch_targets_mut(&mut self) -> Vec<&mut BlockCall> {
        match self {
            InstData::Jump { dest } => vec![dest],
            InstData::Brif {
                then_dest,
                else_dest,
                ..
            } => vec![then_dest, else_dest],
            _ => Vec::new(),
        }
    }
}
