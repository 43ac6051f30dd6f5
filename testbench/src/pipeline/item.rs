//! What travels down the pipeline (§0 "Items", §3.2): one [`Item`] per
//! stage per cycle, with the effects a committed item still has to make in
//! M and W.

use concord_isa::instr::{AtomOp, Instr, LoadWidth, StoreWidth};

/// The item a stage holds.
// A warp pass carries its per-lane M/W data in place: eight records move
// one stage per cycle, cheaper than an allocation per pass.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum Item {
    #[default]
    Bubble,
    /// A warp pass: a first issue or a replay of warp `warp`.
    Pass(Pass),
    /// The write-back of a completed global load or atomic entry; `write`
    /// is set at A (the entry is freed there) for W.
    Return {
        warp: usize,
        entry: usize,
        write: Option<RegWrite>,
    },
    /// Clearing register `reg` of warp `warp` (if `reg` is some) and shared
    /// row `row` (physical, if some) of a block being launched.
    Init(Init),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Init {
    pub slot: usize,
    pub index: u32,
    pub reg: Option<(usize, usize)>,
    pub row: Option<usize>,
    /// Set at A when the row clear was refused (§10.1).
    pub refused: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pass {
    pub warp: usize,
    /// Set at A: what M and W still do.
    pub late: Late,
}

/// The effects of a committed item later than A (§3.1: M and W).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum Late {
    #[default]
    None,
    /// Register write at W: row, lanes, values.
    Reg(RegWrite),
    /// Shared load: the served lanes read their words at M, write `rd` at W.
    SharedLoad {
        row: usize,
        lanes: u32,
        addrs: [usize; 32],
        width: LoadWidth,
        values: [u32; 32],
    },
    /// Shared store at M (lane order: the highest lane wins per byte).
    SharedStore {
        lanes: u32,
        addrs: [usize; 32],
        data: [u32; 32],
        width: StoreWidth,
    },
    /// Shared atomic of one lane: read at M, write and `rd` at W.
    SharedAtomic {
        row: usize,
        lane: usize,
        addr: usize,
        op: AtomOp,
        operand: u32,
        old: u32,
    },
    /// Global entry `entry` written at M.
    Entry(usize),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RegWrite {
    pub row: usize,
    pub lanes: u32,
    pub values: [u32; 32],
}

/// How a pass in X uses the tree in A (§9.2).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum TreeUse {
    Branch,
    Memory,
    None,
}

/// The tree use of an instruction (`None`: it cannot be decoded).
pub(crate) fn tree_use(instr: Option<&Instr>) -> TreeUse {
    match instr {
        Some(i) if i.is_control() => TreeUse::Branch,
        Some(i)
            if matches!(
                i.op,
                concord_isa::Op::Load { .. } | concord_isa::Op::Store { .. }
            ) =>
        {
            TreeUse::Memory
        }
        _ => TreeUse::None,
    }
}
