//! Instruction types: the one definition of what a Concord instruction is.
//!
//! Every other part of Concord (encoder, assembler, disassembler, functional
//! model, cycle model, RTL decoder, compiler emitter) works on [`Instr`].
//! The binary encoding lives in [`crate::encoding`], the lane semantics of
//! the arithmetic in [`crate::semantics`]; `docs/isa.md` is the reference.

use std::fmt;

/// Architectural limit on general registers (5-bit register fields).
pub const MAX_REGS: usize = 32;
/// Architectural limit on predicate registers, `pt` included (3-bit fields).
pub const MAX_PREDS: usize = 8;
/// Architectural limit on lanes per warp (lane masks are 32 bits wide).
pub const MAX_LANES: usize = 32;
/// Number of 32-bit kernel parameter words addressable by `ldparam`.
pub const MAX_PARAM_WORDS: usize = 16;
/// Largest branch or call target: instruction memory is at most this many words.
pub const MAX_IMEM_WORDS: usize = 1 << 16;

/// A general register `r0`..`r31`. No register is hard-wired.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Reg(u8);

impl Reg {
    /// `None` when `index` is not below [`MAX_REGS`].
    pub fn new(index: u8) -> Option<Reg> {
        ((index as usize) < MAX_REGS).then_some(Reg(index))
    }
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "r{}", self.0)
    }
}

/// A predicate register `p0`..`p7`. `p0` is `pt`: it always reads true and
/// writes to it are discarded.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Pred(u8);

impl Pred {
    /// The predicate that always reads true.
    pub const TRUE: Pred = Pred(0);

    pub fn new(index: u8) -> Option<Pred> {
        ((index as usize) < MAX_PREDS).then_some(Pred(index))
    }
    pub fn index(self) -> usize {
        self.0 as usize
    }
    pub fn is_true(self) -> bool {
        self.0 == 0
    }
}

impl fmt::Display for Pred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_true() {
            write!(f, "pt")
        } else {
            write!(f, "p{}", self.0)
        }
    }
}

/// A predicate operand, possibly negated: `p3` or `!p3`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct PredSrc {
    pub pred: Pred,
    pub negate: bool,
}

impl PredSrc {
    pub const TRUE: PredSrc = PredSrc {
        pred: Pred::TRUE,
        negate: false,
    };
    pub const FALSE: PredSrc = PredSrc {
        pred: Pred::TRUE,
        negate: true,
    };

    pub fn new(pred: Pred, negate: bool) -> PredSrc {
        PredSrc { pred, negate }
    }
    pub fn is_always_true(self) -> bool {
        self.pred.is_true() && !self.negate
    }
}

impl fmt::Display for PredSrc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.negate {
            write!(f, "!")?;
        }
        write!(f, "{}", self.pred)
    }
}

/// Every instruction carries a guard; a lane whose guard reads false does
/// nothing architecturally but the instruction still takes its issue slot.
pub type Guard = PredSrc;

/// Integer ALU operations (two register sources, or register and immediate
/// for the ones with [`AluOp::has_imm_form`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum AluOp {
    Add,
    Sub,
    Mul,
    MulHi,
    MulHiU,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Sra,
    Min,
    Max,
    MinU,
    MaxU,
}

impl AluOp {
    pub const ALL: [AluOp; 15] = [
        AluOp::Add,
        AluOp::Sub,
        AluOp::Mul,
        AluOp::MulHi,
        AluOp::MulHiU,
        AluOp::And,
        AluOp::Or,
        AluOp::Xor,
        AluOp::Shl,
        AluOp::Shr,
        AluOp::Sra,
        AluOp::Min,
        AluOp::Max,
        AluOp::MinU,
        AluOp::MaxU,
    ];

    pub fn mnemonic(self) -> &'static str {
        match self {
            AluOp::Add => "add",
            AluOp::Sub => "sub",
            AluOp::Mul => "mul",
            AluOp::MulHi => "mulhi",
            AluOp::MulHiU => "mulhiu",
            AluOp::And => "and",
            AluOp::Or => "or",
            AluOp::Xor => "xor",
            AluOp::Shl => "shl",
            AluOp::Shr => "shr",
            AluOp::Sra => "sra",
            AluOp::Min => "min",
            AluOp::Max => "max",
            AluOp::MinU => "minu",
            AluOp::MaxU => "maxu",
        }
    }

    /// Operations that also exist with a 12-bit signed immediate as the
    /// second source.
    pub fn has_imm_form(self) -> bool {
        matches!(
            self,
            AluOp::Add
                | AluOp::Mul
                | AluOp::And
                | AluOp::Or
                | AluOp::Xor
                | AluOp::Shl
                | AluOp::Shr
                | AluOp::Sra
        )
    }

    /// Immediate range of the immediate form: shifts take 0..=31, the others
    /// a sign-extended 12-bit value.
    pub fn imm_range(self) -> std::ops::RangeInclusive<i32> {
        match self {
            AluOp::Shl | AluOp::Shr | AluOp::Sra => 0..=31,
            _ => IMM12_MIN..=IMM12_MAX,
        }
    }
}

pub const IMM12_MIN: i32 = -(1 << 11);
pub const IMM12_MAX: i32 = (1 << 11) - 1;
pub const IMM10_MIN: i32 = -(1 << 9);
pub const IMM10_MAX: i32 = (1 << 9) - 1;
pub const IMM17_MIN: i32 = -(1 << 16);
pub const IMM17_MAX: i32 = (1 << 16) - 1;

/// Comparisons written into a predicate by `setp`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    LtU,
    LeU,
    GtU,
    GeU,
}

impl Cmp {
    pub const ALL: [Cmp; 10] = [
        Cmp::Eq,
        Cmp::Ne,
        Cmp::Lt,
        Cmp::Le,
        Cmp::Gt,
        Cmp::Ge,
        Cmp::LtU,
        Cmp::LeU,
        Cmp::GtU,
        Cmp::GeU,
    ];

    pub fn suffix(self) -> &'static str {
        match self {
            Cmp::Eq => "eq",
            Cmp::Ne => "ne",
            Cmp::Lt => "lt",
            Cmp::Le => "le",
            Cmp::Gt => "gt",
            Cmp::Ge => "ge",
            Cmp::LtU => "ltu",
            Cmp::LeU => "leu",
            Cmp::GtU => "gtu",
            Cmp::GeU => "geu",
        }
    }
}

/// Predicate logic combining two (possibly negated) predicate sources.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum PredOp {
    And,
    Or,
    Xor,
}

impl PredOp {
    pub const ALL: [PredOp; 3] = [PredOp::And, PredOp::Or, PredOp::Xor];

    pub fn mnemonic(self) -> &'static str {
        match self {
            PredOp::And => "pand",
            PredOp::Or => "por",
            PredOp::Xor => "pxor",
        }
    }
}

/// Special registers readable with `s2r`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum SpecialReg {
    /// Thread index within the block (`threadIdx`).
    TidX,
    TidY,
    TidZ,
    /// Block dimensions (`blockDim`).
    NtidX,
    NtidY,
    NtidZ,
    /// Block index within the grid (`blockIdx`).
    CtaidX,
    CtaidY,
    CtaidZ,
    /// Grid dimensions (`gridDim`).
    NctaidX,
    NctaidY,
    NctaidZ,
    /// Lane index within the warp.
    LaneId,
    /// Warp index within the block.
    WarpId,
    /// Number of warps the block occupies.
    NWarps,
    /// Lanes per warp of the core.
    WarpSize,
    /// Low and high 32 bits of the model's time counter (see docs/isa.md).
    ClockLo,
    ClockHi,
    /// Linear thread index within the block: `tid.x + ntid.x*(tid.y + ntid.y*tid.z)`.
    TidLinear,
}

impl SpecialReg {
    pub const ALL: [SpecialReg; 19] = [
        SpecialReg::TidX,
        SpecialReg::TidY,
        SpecialReg::TidZ,
        SpecialReg::NtidX,
        SpecialReg::NtidY,
        SpecialReg::NtidZ,
        SpecialReg::CtaidX,
        SpecialReg::CtaidY,
        SpecialReg::CtaidZ,
        SpecialReg::NctaidX,
        SpecialReg::NctaidY,
        SpecialReg::NctaidZ,
        SpecialReg::LaneId,
        SpecialReg::WarpId,
        SpecialReg::NWarps,
        SpecialReg::WarpSize,
        SpecialReg::ClockLo,
        SpecialReg::ClockHi,
        SpecialReg::TidLinear,
    ];

    /// Assembly name, without the leading `%`.
    pub fn name(self) -> &'static str {
        match self {
            SpecialReg::TidX => "tid.x",
            SpecialReg::TidY => "tid.y",
            SpecialReg::TidZ => "tid.z",
            SpecialReg::NtidX => "ntid.x",
            SpecialReg::NtidY => "ntid.y",
            SpecialReg::NtidZ => "ntid.z",
            SpecialReg::CtaidX => "ctaid.x",
            SpecialReg::CtaidY => "ctaid.y",
            SpecialReg::CtaidZ => "ctaid.z",
            SpecialReg::NctaidX => "nctaid.x",
            SpecialReg::NctaidY => "nctaid.y",
            SpecialReg::NctaidZ => "nctaid.z",
            SpecialReg::LaneId => "laneid",
            SpecialReg::WarpId => "warpid",
            SpecialReg::NWarps => "nwarps",
            SpecialReg::WarpSize => "warpsize",
            SpecialReg::ClockLo => "clock",
            SpecialReg::ClockHi => "clockhi",
            SpecialReg::TidLinear => "tid",
        }
    }

    /// Whether every lane of a warp reads the same value.
    pub fn is_warp_uniform(self) -> bool {
        !matches!(
            self,
            SpecialReg::TidX
                | SpecialReg::TidY
                | SpecialReg::TidZ
                | SpecialReg::LaneId
                | SpecialReg::TidLinear
        )
    }

    pub fn code(self) -> u32 {
        Self::ALL.iter().position(|s| *s == self).unwrap() as u32
    }

    pub fn from_code(code: u32) -> Option<SpecialReg> {
        Self::ALL.get(code as usize).copied()
    }
}

/// The two data address spaces. Both are byte addressed.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Space {
    /// Per-block, banked, on-core.
    Shared,
    /// Off-core, behind the global memory port.
    Global,
}

impl Space {
    pub const ALL: [Space; 2] = [Space::Shared, Space::Global];

    pub fn name(self) -> &'static str {
        match self {
            Space::Shared => "shared",
            Space::Global => "global",
        }
    }
}

/// Access widths of loads (with signedness) and stores.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum LoadWidth {
    U8,
    S8,
    U16,
    S16,
    B32,
}

impl LoadWidth {
    pub const ALL: [LoadWidth; 5] = [
        LoadWidth::U8,
        LoadWidth::S8,
        LoadWidth::U16,
        LoadWidth::S16,
        LoadWidth::B32,
    ];

    pub fn bytes(self) -> u32 {
        match self {
            LoadWidth::U8 | LoadWidth::S8 => 1,
            LoadWidth::U16 | LoadWidth::S16 => 2,
            LoadWidth::B32 => 4,
        }
    }

    pub fn suffix(self) -> &'static str {
        match self {
            LoadWidth::U8 => "u8",
            LoadWidth::S8 => "s8",
            LoadWidth::U16 => "u16",
            LoadWidth::S16 => "s16",
            LoadWidth::B32 => "b32",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum StoreWidth {
    B8,
    B16,
    B32,
}

impl StoreWidth {
    pub const ALL: [StoreWidth; 3] = [StoreWidth::B8, StoreWidth::B16, StoreWidth::B32];

    pub fn bytes(self) -> u32 {
        match self {
            StoreWidth::B8 => 1,
            StoreWidth::B16 => 2,
            StoreWidth::B32 => 4,
        }
    }

    pub fn suffix(self) -> &'static str {
        match self {
            StoreWidth::B8 => "b8",
            StoreWidth::B16 => "b16",
            StoreWidth::B32 => "b32",
        }
    }
}

/// Read-modify-write operations of `atom`, all on 32-bit words.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum AtomOp {
    Add,
    Exch,
    Min,
    Max,
    MinU,
    MaxU,
    And,
    Or,
    Xor,
}

impl AtomOp {
    pub const ALL: [AtomOp; 9] = [
        AtomOp::Add,
        AtomOp::Exch,
        AtomOp::Min,
        AtomOp::Max,
        AtomOp::MinU,
        AtomOp::MaxU,
        AtomOp::And,
        AtomOp::Or,
        AtomOp::Xor,
    ];

    pub fn suffix(self) -> &'static str {
        match self {
            AtomOp::Add => "add",
            AtomOp::Exch => "exch",
            AtomOp::Min => "min",
            AtomOp::Max => "max",
            AtomOp::MinU => "minu",
            AtomOp::MaxU => "maxu",
            AtomOp::And => "and",
            AtomOp::Or => "or",
            AtomOp::Xor => "xor",
        }
    }
}

/// The vote of a consensual branch.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Consensus {
    /// Taken when no voting lane has the predicate true.
    None,
    /// Taken when at least one voting lane has it true.
    Any,
    /// Taken when every voting lane has it true.
    All,
}

impl Consensus {
    pub const ALL: [Consensus; 3] = [Consensus::None, Consensus::Any, Consensus::All];

    pub fn suffix(self) -> &'static str {
        match self {
            Consensus::None => "none",
            Consensus::Any => "any",
            Consensus::All => "all",
        }
    }
}

/// Warp votes written into a predicate of every voting lane.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum VoteKind {
    Any,
    All,
}

impl VoteKind {
    pub fn suffix(self) -> &'static str {
        match self {
            VoteKind::Any => "any",
            VoteKind::All => "all",
        }
    }
}

/// An instruction without its guard.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Op {
    /// `rd = rs1 op rs2`
    Alu {
        op: AluOp,
        rd: Reg,
        rs1: Reg,
        rs2: Reg,
    },
    /// `rd = rs1 op imm`; only ops with [`AluOp::has_imm_form`].
    AluImm {
        op: AluOp,
        rd: Reg,
        rs1: Reg,
        imm: i32,
    },
    /// `rd = sign_extend(imm17)`
    MovI {
        rd: Reg,
        imm: i32,
    },
    /// `rd = (imm16 << 16) | (rd & 0xffff)`
    MovHi {
        rd: Reg,
        imm: u16,
    },
    /// `pd = rs1 cmp rs2`
    SetP {
        cmp: Cmp,
        pd: Pred,
        rs1: Reg,
        rs2: Reg,
    },
    /// `pd = rs1 cmp sign_extend(imm10)`
    SetPImm {
        cmp: Cmp,
        pd: Pred,
        rs1: Reg,
        imm: i32,
    },
    /// `pd = a op b`
    PLogic {
        op: PredOp,
        pd: Pred,
        a: PredSrc,
        b: PredSrc,
    },
    /// `rd = p ? rs1 : rs2`
    Sel {
        rd: Reg,
        p: PredSrc,
        rs1: Reg,
        rs2: Reg,
    },
    /// `rd = special register`
    S2R {
        rd: Reg,
        sreg: SpecialReg,
    },
    /// `rd = kernel parameter word index`
    LdParam {
        rd: Reg,
        index: u8,
    },
    /// `rd = extend(mem[rs + offset])`
    Load {
        space: Space,
        width: LoadWidth,
        rd: Reg,
        base: Reg,
        offset: i32,
    },
    /// `mem[base + offset] = truncate(src)`
    Store {
        space: Space,
        width: StoreWidth,
        src: Reg,
        base: Reg,
        offset: i32,
    },
    /// `rd = mem[addr]; mem[addr] = mem[addr] op src` (atomically per lane)
    Atom {
        space: Space,
        op: AtomOp,
        rd: Reg,
        addr: Reg,
        src: Reg,
    },
    /// Per-lane branch: each lane whose guard holds moves its PC to `target`.
    Bra {
        target: u32,
    },
    /// Consensual branch: all active lanes go to `target`, or none does.
    BraCons {
        kind: Consensus,
        p: PredSrc,
        target: u32,
    },
    /// Per-lane indirect jump to the address in `rs`.
    Jmp {
        rs: Reg,
    },
    /// Per-lane call: `rd = pc + 1`, depth += 1, pc = target.
    Call {
        rd: Reg,
        target: u32,
    },
    /// Per-lane indirect call through `rs`.
    CallR {
        rd: Reg,
        rs: Reg,
    },
    /// Per-lane return: depth -= 1, pc = rs.
    Ret {
        rs: Reg,
    },
    /// Block-wide barrier, counted per thread.
    Bar,
    /// The lane terminates.
    Exit,
    /// `pd = vote(p)` over the voting lanes.
    Vote {
        kind: VoteKind,
        pd: Pred,
        p: PredSrc,
    },
    /// `rd = bitmask of voting lanes whose p holds` (bit i = lane i).
    Ballot {
        rd: Reg,
        p: PredSrc,
    },
    Nop,
}

/// A guarded instruction: the unit of the ISA.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Instr {
    pub guard: Guard,
    pub op: Op,
}

impl Instr {
    /// An unguarded (`@pt`) instruction.
    pub fn new(op: Op) -> Instr {
        Instr {
            guard: Guard::TRUE,
            op,
        }
    }

    pub fn guarded(guard: Guard, op: Op) -> Instr {
        Instr { guard, op }
    }

    /// Instructions after which the hardware re-arbitrates the warp PC
    /// (Collange §4.1): anything that can move a lane's PC other than +1.
    pub fn is_control(&self) -> bool {
        matches!(
            self.op,
            Op::Bra { .. }
                | Op::BraCons { .. }
                | Op::Jmp { .. }
                | Op::Call { .. }
                | Op::CallR { .. }
                | Op::Ret { .. }
                | Op::Bar
                | Op::Exit
        )
    }

    /// Instructions served by the arbiter in memory mode.
    pub fn is_memory(&self) -> bool {
        matches!(
            self.op,
            Op::Load { .. } | Op::Store { .. } | Op::Atom { .. }
        )
    }

    /// The registers read, as (source A, source B): what the core's two
    /// register-file read ports fetch in stage D/R (docs/microarchitecture.md
    /// §7, §11).
    pub fn sources(&self) -> (Option<Reg>, Option<Reg>) {
        match self.op {
            Op::Alu { rs1, rs2, .. } | Op::SetP { rs1, rs2, .. } | Op::Sel { rs1, rs2, .. } => {
                (Some(rs1), Some(rs2))
            }
            Op::AluImm { rs1, .. } | Op::SetPImm { rs1, .. } => (Some(rs1), None),
            Op::MovHi { rd, .. } => (Some(rd), None),
            Op::Load { base, .. } => (Some(base), None),
            Op::Store { base, src, .. } => (Some(base), Some(src)),
            Op::Atom { addr, src, .. } => (Some(addr), Some(src)),
            Op::Jmp { rs } | Op::Ret { rs } | Op::CallR { rs, .. } => (Some(rs), None),
            _ => (None, None),
        }
    }

    /// The general register written (by the executing lanes), if any.
    pub fn dest_reg(&self) -> Option<Reg> {
        match self.op {
            Op::Alu { rd, .. }
            | Op::AluImm { rd, .. }
            | Op::MovI { rd, .. }
            | Op::MovHi { rd, .. }
            | Op::Sel { rd, .. }
            | Op::S2R { rd, .. }
            | Op::LdParam { rd, .. }
            | Op::Load { rd, .. }
            | Op::Atom { rd, .. }
            | Op::Call { rd, .. }
            | Op::CallR { rd, .. }
            | Op::Ballot { rd, .. } => Some(rd),
            _ => None,
        }
    }

    /// The predicate written (by the executing lanes), if any; writes to `pt` are discarded.
    pub fn dest_pred(&self) -> Option<Pred> {
        match self.op {
            Op::SetP { pd, .. }
            | Op::SetPImm { pd, .. }
            | Op::PLogic { pd, .. }
            | Op::Vote { pd, .. } => (!pd.is_true()).then_some(pd),
            _ => None,
        }
    }

    /// The statically known branch or call target, if any.
    pub fn direct_target(&self) -> Option<u32> {
        match self.op {
            Op::Bra { target } | Op::BraCons { target, .. } | Op::Call { target, .. } => {
                Some(target)
            }
            _ => None,
        }
    }

    /// The same instruction with its direct target replaced (used when
    /// resolving labels).
    pub fn with_target(mut self, new_target: u32) -> Instr {
        match &mut self.op {
            Op::Bra { target } | Op::BraCons { target, .. } | Op::Call { target, .. } => {
                *target = new_target
            }
            _ => {}
        }
        self
    }
}
