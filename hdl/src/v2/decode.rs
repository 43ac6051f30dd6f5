//! Stage D of Core v2 (`docs/microarchitecture.md` §7): the instruction
//! word (registered by the instruction memory at the end of F) decoded into
//! registered controls for R and X.
//!
//! **Everything comes from `concord_isa`.** Field positions and widths are
//! `encoding::field::*`; which opcodes form a class, use an immediate, a
//! target, a source field or a destination, and which bits each opcode
//! leaves unused, is computed at generation time from `Opcode::ALL`,
//! `operand_fields` and `decode` of probe words (the opcode with zero
//! operands, then one field set to 1), and emitted as per-signal opcode
//! sets (64-bit constants). Function codes are the positions in the ISA's
//! `ALL` tables; the ALU and multiplier selects are those of
//! [`super::alu::FUNCS`] and [`super::mul::MUL_FUNCS`].
//!
//! **Structure.** Every opcode control is one bit of a 64-bit opcode-set
//! constant looked up by the opcode, `((set >> opcode) & 1).any()`: a
//! function of the six opcode bits, a balanced mux of constants that
//! synthesis reduces to a few LUT4 (measured: 100 LUT4 fewer than
//! `(onehot(opcode) & set).any()` with the one-hot materialised,
//! `hdl/README.md`). The class, function and size outputs are one-hot;
//! every multi-source value
//! (immediate, target, register source, predicate B) is an AND-OR of the
//! candidate fields under those controls. There is no `if opcode == K`
//! chain. The invalid flag is exactly `concord_isa::decode`'s rejection:
//! unassigned opcode, reserved bits (per-bit opcode sets), function code
//! out of range, `vote` function or its low `RD` bits, shift amount above
//! 31, special register code, target outside `MAX_IMEM_WORDS`.
//!
//! **Outputs** (all registered at the end of D; meaningful when
//! `invalid` is low, `cls` is 0 when it is high):
//!
//! | port | meaning |
//! |---|---|
//! | `invalid` | the word is not a valid instruction (trap *invalid instruction*) |
//! | `cls` | one-hot [`Class`] (bit `i` is `CLASSES[i]`) |
//! | `movhi` | within [`Class::Const`]: `movhi` (else `movi`) |
//! | `imm_b` | operand B is the immediate (ALU immediate, `setp` immediate) |
//! | `alu` | one-hot [`super::alu::AluFunc`] select: ALU ops, `setp` comparisons, `Addr` for loads, stores and atomics |
//! | `mul` | one-hot [`super::mul::MulFunc`] select (`mul`, `mulhi(u)`, shifts) |
//! | `pop` | one-hot `PredOp::ALL` (`pand`, `por`, `pxor`) |
//! | `atom` | one-hot `AtomOp::ALL` |
//! | `vote` | one-hot vote function code (bit `k`: code `k`: `VOTE_ANY`, `VOTE_ALL`, `VOTE_BALLOT`) |
//! | `cons` | one-hot `Consensus::ALL` of a consensual branch |
//! | `sreg` | one-hot `SpecialReg::ALL` of `s2r` |
//! | `shared`, `msize`, `msigned` | memory: shared space (else global); one-hot access size 1, 2, 4 bytes; sign-extending load |
//! | `imm` | the immediate extended to 32 bits: ALU immediate, `movi` (sign), `movhi` (`imm16 << 16`), `setp` immediate, load/store offset, `ldparam` index; 0 otherwise |
//! | `target` | the branch or call target (16 bits) |
//! | `param` | the `ldparam` word index |
//! | `rd`, `wr_rd` | the `RD` field; the instruction writes `rd` |
//! | `pd`, `wr_pd` | the `PD` field; the instruction writes a predicate other than `pt` |
//! | `ra`, `rb` | register-file read addresses `warp · RP + srcA/srcB` (`Instr::sources`; source 0 when none) |
//! | `ra_d`, `rb_d` | the same addresses during D, **not registered**: the register file's block RAMs register them themselves (§11: address registered at the end of D, data in R) |
//! | `exec` | `active & guard` |
//! | `pa`, `pb` | predicate source masks (negation applied): A of `pand/por/pxor`; B of those, `sel`, votes, consensual branches |

use concord_isa::encoding::{
    decode, field, field_mask, operand_fields, Opcode, VOTE_ALL, VOTE_ANY, VOTE_BALLOT,
};
use concord_isa::instr::{
    AluOp, AtomOp, Cmp, Consensus, Instr, Op, PredOp, Reg, Space, SpecialReg, MAX_IMEM_WORDS,
};
use concord_uarch::HwParams;
use rust_hdl_core::prelude::*;
use rust_hdl_widgets::prelude::DFF;

use super::alu::{AluFunc, FUNCS, FUNC_BITS};
use super::guard::{PredSel, PRED_IDX_BITS};
use super::mul::{MulFunc, MUL_FUNCS, MUL_FUNC_BITS};
use super::scheduler::WARP_IDX_BITS;
use crate::util::Ext;

/// The instruction classes of §7: every later stage uses these instead of
/// comparing opcodes.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Class {
    Alu,
    AluImm,
    /// `movi`, `movhi`.
    Const,
    /// `setp` with a register or an immediate.
    SetP,
    PLogic,
    Sel,
    S2R,
    LdParam,
    Load,
    Store,
    Atom,
    Bra,
    BraCons,
    Jmp,
    Call,
    CallR,
    Ret,
    Bar,
    Exit,
    /// `vote.any`, `vote.all`, `vote.ballot`.
    Vote,
    Nop,
}

/// Number of classes.
pub const NCLS: usize = 21;

/// Bit `i` of `cls` is `CLASSES[i]`.
pub const CLASSES: [Class; NCLS] = [
    Class::Alu,
    Class::AluImm,
    Class::Const,
    Class::SetP,
    Class::PLogic,
    Class::Sel,
    Class::S2R,
    Class::LdParam,
    Class::Load,
    Class::Store,
    Class::Atom,
    Class::Bra,
    Class::BraCons,
    Class::Jmp,
    Class::Call,
    Class::CallR,
    Class::Ret,
    Class::Bar,
    Class::Exit,
    Class::Vote,
    Class::Nop,
];

impl Class {
    /// The class of an operation.
    pub fn of(op: &Op) -> Class {
        match op {
            Op::Alu { .. } => Class::Alu,
            Op::AluImm { .. } => Class::AluImm,
            Op::MovI { .. } | Op::MovHi { .. } => Class::Const,
            Op::SetP { .. } | Op::SetPImm { .. } => Class::SetP,
            Op::PLogic { .. } => Class::PLogic,
            Op::Sel { .. } => Class::Sel,
            Op::S2R { .. } => Class::S2R,
            Op::LdParam { .. } => Class::LdParam,
            Op::Load { .. } => Class::Load,
            Op::Store { .. } => Class::Store,
            Op::Atom { .. } => Class::Atom,
            Op::Bra { .. } => Class::Bra,
            Op::BraCons { .. } => Class::BraCons,
            Op::Jmp { .. } => Class::Jmp,
            Op::Call { .. } => Class::Call,
            Op::CallR { .. } => Class::CallR,
            Op::Ret { .. } => Class::Ret,
            Op::Bar => Class::Bar,
            Op::Exit => Class::Exit,
            Op::Vote { .. } | Op::Ballot { .. } => Class::Vote,
            Op::Nop => Class::Nop,
        }
    }

    pub fn bit(self) -> usize {
        CLASSES.iter().position(|c| *c == self).unwrap()
    }
}

/// Field widths.
const OPCODE_W: usize = field::OPCODE.1 as usize;
const OPCODES: usize = 1 << OPCODE_W;
const REG_W: usize = field::RD.1 as usize;
const FUNC_W: usize = field::FUNC.1 as usize;
const FUNC_VALUES: usize = 1 << FUNC_W;
const FUNC5_W: usize = field::FUNC_5.1 as usize;
const FUNC5_VALUES: usize = 1 << FUNC5_W;
/// Bits of `RD` below `PD` (zero in `vote.any`/`vote.all`).
const VOTE_RD_LOW_W: usize = (field::PD.0 - field::RD.0) as usize;
pub const PARAM_W: usize = field::PARAM.1 as usize;
/// Bits of a branch or call target.
pub const TARGET_W: usize = MAX_IMEM_WORDS.trailing_zeros() as usize;
pub const NPOP: usize = PredOp::ALL.len();
pub const NATOM: usize = AtomOp::ALL.len();
/// Vote function codes: bit `k` of `vote` is code `k`.
pub const NVOTE: usize = 3;
pub const NCONS: usize = Consensus::ALL.len();
pub const NSREG: usize = SpecialReg::ALL.len();
/// Access sizes, one-hot: 1, 2, 4 bytes.
pub const MSIZES: [u32; 3] = [1, 2, 4];
const NMSIZE: usize = MSIZES.len();
/// Candidate fields of register sources A and B (`Instr::sources`).
const SRC_A_FIELDS: [(u32, u32); 4] = [field::RS1, field::SETPI_RS1, field::SEL_RS1, field::RD];
const SRC_B_FIELDS: [(u32, u32); 3] = [field::RS2, field::SEL_RS2, field::RD];
const NSA: usize = SRC_A_FIELDS.len();
const NSB: usize = SRC_B_FIELDS.len();

const _: () = {
    assert!(VOTE_ANY < NVOTE as u32);
    assert!(VOTE_ALL < NVOTE as u32);
    assert!(VOTE_BALLOT < NVOTE as u32);
    assert!(VOTE_ANY != VOTE_ALL && VOTE_ALL != VOTE_BALLOT && VOTE_ANY != VOTE_BALLOT);
    assert!(NPOP <= FUNC_VALUES && NATOM <= FUNC_VALUES && NSREG <= FUNC5_VALUES);
    assert!(field::PD.1 as usize == PRED_IDX_BITS);
    assert!(field::PA.1 as usize == PRED_IDX_BITS && field::PB.1 as usize == PRED_IDX_BITS);
    assert!(field::CONS_PRED.1 as usize == PRED_IDX_BITS);
    assert!(field::GUARD_PRED.1 as usize == PRED_IDX_BITS);
};

fn word_of(o: Opcode) -> u32 {
    (o as u32) << field::OPCODE.0
}

fn put((lsb, _): (u32, u32), v: u32) -> u32 {
    v << lsb
}

/// The opcode with all operands zero, decoded (every assigned opcode has
/// one; `None` for `Illegal` and unassigned values).
fn rep(o: Opcode) -> Option<Instr> {
    decode(word_of(o)).ok()
}

fn c<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.into())
}

/// The set of opcodes selected by `pick` among the valid ones (bit `n`:
/// opcode value `n`).
fn opset(pick: impl Fn(Opcode, &Instr) -> bool) -> Constant<Bits<OPCODES>> {
    let mut s = 0u64;
    for o in Opcode::ALL {
        if let Some(i) = rep(o) {
            if pick(o, &i) {
                s |= 1 << (o as u32);
            }
        }
    }
    c(s)
}

/// The opcodes of the operations `pick` selects, each checked to have
/// field `f` among its operand fields (several fields share a position,
/// `FUNC` and `PARAM`, `IMM17` and `TARGET17`: the operation names which).
fn has_field(f: (u32, u32), pick: impl Fn(&Op) -> bool) -> Constant<Bits<OPCODES>> {
    opset(|o, i| {
        let p = pick(&i.op);
        assert!(!p || operand_fields(o).contains(&f), "{o:?} has {f:?}");
        p
    })
}

/// Whether register source (`a`: A, else B) of opcode `o` is field `f`:
/// the probe word with `f = 1` decodes and names `r1` as that source.
fn src_is(o: Opcode, f: (u32, u32), a: bool) -> bool {
    match decode(word_of(o) | put(f, 1)) {
        Ok(i) => {
            let s = i.sources();
            (if a { s.0 } else { s.1 }) == Reg::new(1)
        }
        Err(_) => false,
    }
}

fn fn_mask<T: PartialEq>(all: &[T], pick: impl Fn(&T) -> bool) -> Constant<Bits<FUNC_VALUES>> {
    let m = all
        .iter()
        .enumerate()
        .filter(|(_, x)| pick(x))
        .fold(0u64, |m, (k, _)| m | 1 << k);
    c(m)
}

/// The v2 decoder for `L` lanes, a predicate bank of `PB = (P−1)·L` bits and
/// register-file addresses of `AW = log2(W·RP)` bits.
#[derive(LogicBlock)]
pub struct Decode<const L: usize, const PB: usize, const AW: usize> {
    pub clock: Signal<In, Clock>,
    /// The instruction word (instruction-memory output).
    pub word: Signal<In, Bits<32>>,
    /// The pass's pc is at or beyond `code_len` (trap 4, §13.1): nothing of
    /// the word is used, so it decodes as invalid (class 0, no tree use).
    pub outside: Signal<In, bool>,
    /// The warp of the pass (index) and its active lanes, registered at
    /// the end of F.
    pub warp: Signal<In, Bits<WARP_IDX_BITS>>,
    pub active: Signal<In, Bits<L>>,
    /// The warp's predicate bank, registered at the end of F.
    pub bank: Signal<In, Bits<PB>>,

    pub invalid: Signal<Out, bool>,
    pub cls: Signal<Out, Bits<NCLS>>,
    pub movhi: Signal<Out, bool>,
    pub imm_b: Signal<Out, bool>,
    pub alu: Signal<Out, Bits<FUNC_BITS>>,
    pub mul: Signal<Out, Bits<MUL_FUNC_BITS>>,
    pub pop: Signal<Out, Bits<NPOP>>,
    pub atom: Signal<Out, Bits<NATOM>>,
    pub vote: Signal<Out, Bits<NVOTE>>,
    pub cons: Signal<Out, Bits<NCONS>>,
    pub sreg: Signal<Out, Bits<NSREG>>,
    pub shared: Signal<Out, bool>,
    pub msize: Signal<Out, Bits<NMSIZE>>,
    pub msigned: Signal<Out, bool>,
    pub imm: Signal<Out, Bits<32>>,
    pub target: Signal<Out, Bits<TARGET_W>>,
    pub param: Signal<Out, Bits<PARAM_W>>,
    pub rd: Signal<Out, Bits<REG_W>>,
    pub wr_rd: Signal<Out, bool>,
    pub pd: Signal<Out, Bits<PRED_IDX_BITS>>,
    pub wr_pd: Signal<Out, bool>,
    pub ra: Signal<Out, Bits<AW>>,
    pub rb: Signal<Out, Bits<AW>>,
    pub ra_d: Signal<Out, Bits<AW>>,
    pub rb_d: Signal<Out, Bits<AW>>,
    pub exec: Signal<Out, Bits<L>>,
    pub pa: Signal<Out, Bits<L>>,
    pub pb: Signal<Out, Bits<L>>,

    // Children.
    gsel: PredSel<L, PB>,
    asel: PredSel<L, PB>,
    bsel: PredSel<L, PB>,
    warp_x: Ext<WARP_IDX_BITS, AW>,
    invalid_q: DFF<bool>,
    cls_q: DFF<Bits<NCLS>>,
    movhi_q: DFF<bool>,
    imm_b_q: DFF<bool>,
    alu_q: DFF<Bits<FUNC_BITS>>,
    mul_q: DFF<Bits<MUL_FUNC_BITS>>,
    pop_q: DFF<Bits<NPOP>>,
    atom_q: DFF<Bits<NATOM>>,
    vote_q: DFF<Bits<NVOTE>>,
    cons_q: DFF<Bits<NCONS>>,
    sreg_q: DFF<Bits<NSREG>>,
    shared_q: DFF<bool>,
    msize_q: DFF<Bits<NMSIZE>>,
    msigned_q: DFF<bool>,
    imm_q: DFF<Bits<32>>,
    target_q: DFF<Bits<TARGET_W>>,
    param_q: DFF<Bits<PARAM_W>>,
    rd_q: DFF<Bits<REG_W>>,
    wr_rd_q: DFF<bool>,
    pd_q: DFF<Bits<PRED_IDX_BITS>>,
    wr_pd_q: DFF<bool>,
    ra_q: DFF<Bits<AW>>,
    rb_q: DFF<Bits<AW>>,
    exec_q: DFF<Bits<L>>,
    pa_q: DFF<Bits<L>>,
    pb_q: DFF<Bits<L>>,

    // Fields.
    opcode: Signal<Local, Bits<OPCODE_W>>,
    f_func: Signal<Local, Bits<FUNC_W>>,
    f_cmpi: Signal<Local, Bits<FUNC_W>>,
    f_func5: Signal<Local, Bits<FUNC5_W>>,
    f_rd_low: Signal<Local, Bits<VOTE_RD_LOW_W>>,
    f_pd: Signal<Local, Bits<PRED_IDX_BITS>>,
    x_imm12: Signal<Local, Bits<32>>,
    x_imm16: Signal<Local, Bits<32>>,
    x_imm17: Signal<Local, Bits<32>>,
    x_imm10: Signal<Local, Bits<32>>,
    x_t22: Signal<Local, Bits<32>>,
    x_t18: Signal<Local, Bits<32>>,
    x_t17: Signal<Local, Bits<32>>,
    // One-hot decodes.
    fh: Signal<Local, Bits<FUNC_VALUES>>,
    ch: Signal<Local, Bits<FUNC_VALUES>>,
    sh: Signal<Local, Bits<FUNC5_VALUES>>,
    // Opcode controls.
    k_valid: Signal<Local, bool>,
    k_alu: Signal<Local, bool>,
    k_setp: Signal<Local, bool>,
    k_setpi: Signal<Local, bool>,
    k_plogic: Signal<Local, bool>,
    k_atom: Signal<Local, bool>,
    k_s2r: Signal<Local, bool>,
    k_vote: Signal<Local, bool>,
    k_shift: Signal<Local, bool>,
    k_tgt: Signal<Local, bool>,
    ballot: Signal<Local, bool>,
    // Validity.
    resm: Signal<Local, Bits<32>>,
    bad: Signal<Local, bool>,
    valid: Signal<Local, bool>,
    // Values.
    cls_v: Signal<Local, Bits<NCLS>>,
    alu_v: Signal<Local, Bits<FUNC_BITS>>,
    mul_v: Signal<Local, Bits<MUL_FUNC_BITS>>,
    cons_v: Signal<Local, Bits<NCONS>>,
    msize_v: Signal<Local, Bits<NMSIZE>>,
    imm_v: Signal<Local, Bits<32>>,
    tsel: Signal<Local, Bits<32>>,
    tbad: Signal<Local, bool>,
    src_a: Signal<Local, Bits<AW>>,
    src_b: Signal<Local, Bits<AW>>,
    row: Signal<Local, Bits<AW>>,
    pbi: Signal<Local, Bits<PRED_IDX_BITS>>,
    pbn: Signal<Local, bool>,

    // Field positions and masks.
    lsb_opcode: Constant<Bits<32>>,
    lsb_func: Constant<Bits<32>>,
    lsb_cmpi: Constant<Bits<32>>,
    lsb_func5: Constant<Bits<32>>,
    lsb_rd: Constant<Bits<32>>,
    lsb_pd: Constant<Bits<32>>,
    lsb_param: Constant<Bits<32>>,
    lsb_gneg: Constant<Bits<32>>,
    lsb_gpred: Constant<Bits<32>>,
    lsb_pa_neg: Constant<Bits<32>>,
    lsb_pa: Constant<Bits<32>>,
    lsb_pb_neg: Constant<Bits<32>>,
    lsb_pb: Constant<Bits<32>>,
    lsb_cons_neg: Constant<Bits<32>>,
    lsb_cons: Constant<Bits<32>>,
    lsb_imm12: Constant<Bits<32>>,
    lsb_imm16: Constant<Bits<32>>,
    lsb_imm17: Constant<Bits<32>>,
    lsb_imm10: Constant<Bits<32>>,
    lsb_t22: Constant<Bits<32>>,
    lsb_t18: Constant<Bits<32>>,
    lsb_t17: Constant<Bits<32>>,
    m_imm12: Constant<Bits<32>>,
    m_imm16: Constant<Bits<32>>,
    m_imm17: Constant<Bits<32>>,
    m_imm10: Constant<Bits<32>>,
    m_t22: Constant<Bits<32>>,
    m_t18: Constant<Bits<32>>,
    m_t17: Constant<Bits<32>>,
    sg_imm12: Constant<Bits<32>>,
    sg_imm17: Constant<Bits<32>>,
    sg_imm10: Constant<Bits<32>>,
    movhi_shift: Constant<Bits<32>>,
    /// Register-field mask (`RP − 1`) and `log2 RP`.
    m_src: Constant<Bits<AW>>,
    rp_shift: Constant<Bits<AW>>,
    z_aw: Constant<Bits<AW>>,
    // Limits.
    n_alu: Constant<Bits<FUNC_W>>,
    n_cmp: Constant<Bits<FUNC_W>>,
    n_pop: Constant<Bits<FUNC_W>>,
    n_atom: Constant<Bits<FUNC_W>>,
    n_sreg: Constant<Bits<FUNC5_W>>,
    shift_max: Constant<Bits<32>>,
    /// `log2 MAX_IMEM_WORDS`: a target is outside when a bit at or above it is set.
    target_shift: Constant<Bits<32>>,
    z_rd_low: Constant<Bits<VOTE_RD_LOW_W>>,
    one_oh: Constant<Bits<OPCODES>>,
    z_f16: Constant<Bits<FUNC_VALUES>>,
    z_f32: Constant<Bits<FUNC5_VALUES>>,
    z32: Constant<Bits<32>>,
    z_cls: Constant<Bits<NCLS>>,
    z_alu: Constant<Bits<FUNC_BITS>>,
    z_mul: Constant<Bits<MUL_FUNC_BITS>>,
    z_cons: Constant<Bits<NCONS>>,
    z_ms: Constant<Bits<NMSIZE>>,
    z_pop: Constant<Bits<NPOP>>,
    z_atom: Constant<Bits<NATOM>>,
    z_vote: Constant<Bits<NVOTE>>,
    z_sreg: Constant<Bits<NSREG>>,
    m_param: Constant<Bits<32>>,
    z_pd: Constant<Bits<PRED_IDX_BITS>>,
    // Value tables for the one-hot decodes.
    fv: Vec<Constant<Bits<FUNC_W>>>,
    fbit: Vec<Constant<Bits<FUNC_VALUES>>>,
    f5v: Vec<Constant<Bits<FUNC5_W>>>,
    f5bit: Vec<Constant<Bits<FUNC5_VALUES>>>,
    bit32: Vec<Constant<Bits<32>>>,
    clsbit: Vec<Constant<Bits<NCLS>>>,
    alubit: Vec<Constant<Bits<FUNC_BITS>>>,
    mulbit: Vec<Constant<Bits<MUL_FUNC_BITS>>>,
    consbit: Vec<Constant<Bits<NCONS>>>,
    msbit: Vec<Constant<Bits<NMSIZE>>>,
    // Opcode sets.
    s_valid: Constant<Bits<OPCODES>>,
    s_alu: Constant<Bits<OPCODES>>,
    s_setp: Constant<Bits<OPCODES>>,
    s_setpi: Constant<Bits<OPCODES>>,
    s_plogic: Constant<Bits<OPCODES>>,
    s_atom: Constant<Bits<OPCODES>>,
    s_s2r: Constant<Bits<OPCODES>>,
    s_vote: Constant<Bits<OPCODES>>,
    s_shift: Constant<Bits<OPCODES>>,
    s_movhi: Constant<Bits<OPCODES>>,
    s_imm_b: Constant<Bits<OPCODES>>,
    s_shared: Constant<Bits<OPCODES>>,
    s_msigned: Constant<Bits<OPCODES>>,
    s_wr_rd: Constant<Bits<OPCODES>>,
    s_wr_pd: Constant<Bits<OPCODES>>,
    s_imm12: Constant<Bits<OPCODES>>,
    s_imm16: Constant<Bits<OPCODES>>,
    s_imm17: Constant<Bits<OPCODES>>,
    s_imm10: Constant<Bits<OPCODES>>,
    s_param: Constant<Bits<OPCODES>>,
    s_t22: Constant<Bits<OPCODES>>,
    s_t18: Constant<Bits<OPCODES>>,
    s_t17: Constant<Bits<OPCODES>>,
    s_pb: Constant<Bits<OPCODES>>,
    s_cpred: Constant<Bits<OPCODES>>,
    s_cls: Vec<Constant<Bits<OPCODES>>>,
    s_alu_op: Vec<Constant<Bits<OPCODES>>>,
    s_mul_op: Vec<Constant<Bits<OPCODES>>>,
    s_cons: Vec<Constant<Bits<OPCODES>>>,
    s_msize: Vec<Constant<Bits<OPCODES>>>,
    s_res: Vec<Constant<Bits<OPCODES>>>,
    s_src_a: Vec<Constant<Bits<OPCODES>>>,
    s_src_b: Vec<Constant<Bits<OPCODES>>>,
    lsb_src_a: Vec<Constant<Bits<32>>>,
    lsb_src_b: Vec<Constant<Bits<32>>>,
    /// Per ALU-select bit: the FUNC codes of the `Alu` opcode, and the
    /// comparison codes, that select it.
    fm_alu: Vec<Constant<Bits<FUNC_VALUES>>>,
    fm_cmp: Vec<Constant<Bits<FUNC_VALUES>>>,
    fm_mul: Vec<Constant<Bits<FUNC_VALUES>>>,
    fm_ballot: Constant<Bits<FUNC_VALUES>>,
    fm_vote_ok: Constant<Bits<FUNC_VALUES>>,
}

fn lsb(f: (u32, u32)) -> Constant<Bits<32>> {
    c(f.0 as u64)
}

fn mask(f: (u32, u32)) -> Constant<Bits<32>> {
    c((1u64 << f.1) - 1)
}

fn sign(f: (u32, u32)) -> Constant<Bits<32>> {
    c(1u64 << (f.1 - 1))
}

fn onehots<const N: usize>(n: usize) -> Vec<Constant<Bits<N>>> {
    (0..n).map(|k| c(1u64 << k)).collect()
}

fn values<const N: usize>(n: usize) -> Vec<Constant<Bits<N>>> {
    (0..n).map(|k| c(k as u64)).collect()
}

impl<const L: usize, const PB: usize, const AW: usize> Decode<L, PB, AW> {
    fn check(hw: &HwParams) {
        assert_eq!(L, hw.lanes, "L");
        assert_eq!(PB, (hw.predicates - 1) * hw.lanes, "PB = (P-1)L");
        assert_eq!(1 << AW, hw.rf_rows.next_power_of_two(), "AW = clog2(W RP)");
        assert!(hw.rf_rows_per_warp <= 1 << REG_W);
        assert!(hw.warps <= 1 << WARP_IDX_BITS);
        // The warp index is zero-extended to AW bits; source fields are
        // read as AW-bit slices of the word.
        assert!(AW > WARP_IDX_BITS, "AW = log2(W RP) > {WARP_IDX_BITS}");
        for f in SRC_A_FIELDS.iter().chain(&SRC_B_FIELDS) {
            assert!(f.0 as usize + AW <= 32);
        }
    }

    /// The decoder of the core `hw` (`L`, `PB`, `AW` must match it).
    pub fn new(hw: &HwParams) -> Self {
        Self::check(hw);
        use field::*;
        let is = |x: Opcode| move |o: Opcode, _: &Instr| o == x;
        let alu_sets: Vec<_> = FUNCS
            .iter()
            .map(|f| {
                opset(|o, i| match i.op {
                    Op::AluImm { op, .. } => AluFunc::of_alu(op) == Some(*f),
                    _ => {
                        *f == AluFunc::Addr
                            && (o.load().is_some()
                                || o.store().is_some()
                                || matches!(i.op, Op::Atom { .. }))
                    }
                })
            })
            .collect();
        let mul_sets: Vec<_> = MUL_FUNCS
            .iter()
            .map(|f| {
                opset(|_, i| match i.op {
                    Op::AluImm { op, .. } => MulFunc::of_alu(op) == Some(*f),
                    _ => false,
                })
            })
            .collect();
        let used = |o: Opcode| {
            operand_fields(o).iter().fold(
                field_mask(GUARD_NEG) | field_mask(GUARD_PRED) | field_mask(OPCODE),
                |m, f| m | field_mask(*f),
            )
        };
        let shift_max = *AluOp::Shl.imm_range().end() as u64;
        assert_eq!(AluOp::Shr.imm_range(), AluOp::Shl.imm_range());
        assert_eq!(AluOp::Sra.imm_range(), AluOp::Shl.imm_range());
        // Every register source is found in exactly one candidate field.
        for o in Opcode::ALL {
            if let Some(i) = rep(o) {
                let (a, b) = i.sources();
                let na = SRC_A_FIELDS.iter().filter(|f| src_is(o, **f, true)).count();
                let nb = SRC_B_FIELDS
                    .iter()
                    .filter(|f| src_is(o, **f, false))
                    .count();
                assert_eq!(na, a.is_some() as usize, "{o:?} source A");
                assert_eq!(nb, b.is_some() as usize, "{o:?} source B");
            }
        }
        let rp_bits = hw.rf_rows_per_warp.trailing_zeros();
        Decode {
            clock: Default::default(),
            word: Default::default(),
            outside: Default::default(),
            warp: Default::default(),
            active: Default::default(),
            bank: Default::default(),
            invalid: Default::default(),
            cls: Default::default(),
            movhi: Default::default(),
            imm_b: Default::default(),
            alu: Default::default(),
            mul: Default::default(),
            pop: Default::default(),
            atom: Default::default(),
            vote: Default::default(),
            cons: Default::default(),
            sreg: Default::default(),
            shared: Default::default(),
            msize: Default::default(),
            msigned: Default::default(),
            imm: Default::default(),
            target: Default::default(),
            param: Default::default(),
            rd: Default::default(),
            wr_rd: Default::default(),
            pd: Default::default(),
            wr_pd: Default::default(),
            ra: Default::default(),
            rb: Default::default(),
            ra_d: Default::default(),
            rb_d: Default::default(),
            exec: Default::default(),
            pa: Default::default(),
            pb: Default::default(),
            gsel: PredSel::new(hw.predicates),
            asel: PredSel::new(hw.predicates),
            bsel: PredSel::new(hw.predicates),
            warp_x: Default::default(),
            invalid_q: Default::default(),
            cls_q: Default::default(),
            movhi_q: Default::default(),
            imm_b_q: Default::default(),
            alu_q: Default::default(),
            mul_q: Default::default(),
            pop_q: Default::default(),
            atom_q: Default::default(),
            vote_q: Default::default(),
            cons_q: Default::default(),
            sreg_q: Default::default(),
            shared_q: Default::default(),
            msize_q: Default::default(),
            msigned_q: Default::default(),
            imm_q: Default::default(),
            target_q: Default::default(),
            param_q: Default::default(),
            rd_q: Default::default(),
            wr_rd_q: Default::default(),
            pd_q: Default::default(),
            wr_pd_q: Default::default(),
            ra_q: Default::default(),
            rb_q: Default::default(),
            exec_q: Default::default(),
            pa_q: Default::default(),
            pb_q: Default::default(),
            opcode: Default::default(),
            f_func: Default::default(),
            f_cmpi: Default::default(),
            f_func5: Default::default(),
            f_rd_low: Default::default(),
            f_pd: Default::default(),
            x_imm12: Default::default(),
            x_imm16: Default::default(),
            x_imm17: Default::default(),
            x_imm10: Default::default(),
            x_t22: Default::default(),
            x_t18: Default::default(),
            x_t17: Default::default(),
            fh: Default::default(),
            ch: Default::default(),
            sh: Default::default(),
            k_valid: Default::default(),
            k_alu: Default::default(),
            k_setp: Default::default(),
            k_setpi: Default::default(),
            k_plogic: Default::default(),
            k_atom: Default::default(),
            k_s2r: Default::default(),
            k_vote: Default::default(),
            k_shift: Default::default(),
            k_tgt: Default::default(),
            ballot: Default::default(),
            resm: Default::default(),
            bad: Default::default(),
            valid: Default::default(),
            cls_v: Default::default(),
            alu_v: Default::default(),
            mul_v: Default::default(),
            cons_v: Default::default(),
            msize_v: Default::default(),
            imm_v: Default::default(),
            tsel: Default::default(),
            tbad: Default::default(),
            src_a: Default::default(),
            src_b: Default::default(),
            row: Default::default(),
            pbi: Default::default(),
            pbn: Default::default(),
            lsb_opcode: lsb(OPCODE),
            lsb_func: lsb(FUNC),
            lsb_cmpi: lsb(SETPI_CMP),
            lsb_func5: lsb(FUNC_5),
            lsb_rd: lsb(RD),
            lsb_pd: lsb(PD),
            lsb_param: lsb(PARAM),
            lsb_gneg: lsb(GUARD_NEG),
            lsb_gpred: lsb(GUARD_PRED),
            lsb_pa_neg: lsb(PA_NEG),
            lsb_pa: lsb(PA),
            lsb_pb_neg: lsb(PB_NEG),
            lsb_pb: lsb(PB),
            lsb_cons_neg: lsb(CONS_NEG),
            lsb_cons: lsb(CONS_PRED),
            lsb_imm12: lsb(IMM12),
            lsb_imm16: lsb(IMM16),
            lsb_imm17: lsb(IMM17),
            lsb_imm10: lsb(IMM10),
            lsb_t22: lsb(TARGET22),
            lsb_t18: lsb(TARGET18),
            lsb_t17: lsb(TARGET17),
            m_imm12: mask(IMM12),
            m_imm16: mask(IMM16),
            m_imm17: mask(IMM17),
            m_imm10: mask(IMM10),
            m_t22: mask(TARGET22),
            m_t18: mask(TARGET18),
            m_t17: mask(TARGET17),
            sg_imm12: sign(IMM12),
            sg_imm17: sign(IMM17),
            sg_imm10: sign(IMM10),
            movhi_shift: c(IMM16.1 as u64),
            m_src: c(hw.rf_rows_per_warp as u64 - 1),
            rp_shift: c(rp_bits as u64),
            z_aw: c(0),
            n_alu: c(AluOp::ALL.len() as u64),
            n_cmp: c(Cmp::ALL.len() as u64),
            n_pop: c(NPOP as u64),
            n_atom: c(NATOM as u64),
            n_sreg: c(NSREG as u64),
            shift_max: c(shift_max),
            target_shift: c(TARGET_W as u64),
            z_rd_low: c(0),
            one_oh: c(1),
            z_f16: c(0),
            z_f32: c(0),
            z32: c(0),
            z_cls: c(0),
            z_alu: c(0),
            z_mul: c(0),
            z_cons: c(0),
            z_ms: c(0),
            z_pop: c(0),
            z_atom: c(0),
            z_vote: c(0),
            z_sreg: c(0),
            m_param: mask(PARAM),
            z_pd: c(0),
            fv: values(FUNC_VALUES),
            fbit: onehots(FUNC_VALUES),
            f5v: values(FUNC5_VALUES),
            f5bit: onehots(FUNC5_VALUES),
            bit32: onehots(32),
            clsbit: onehots(NCLS),
            alubit: onehots(FUNC_BITS),
            mulbit: onehots(MUL_FUNC_BITS),
            consbit: onehots(NCONS),
            msbit: onehots(NMSIZE),
            s_valid: opset(|_, _| true),
            s_alu: opset(is(Opcode::Alu)),
            s_setp: opset(is(Opcode::SetP)),
            s_setpi: opset(is(Opcode::SetPI)),
            s_plogic: opset(|_, i| matches!(i.op, Op::PLogic { .. })),
            s_atom: opset(|_, i| matches!(i.op, Op::Atom { .. })),
            s_s2r: opset(|_, i| matches!(i.op, Op::S2R { .. })),
            s_vote: opset(is(Opcode::Vote)),
            s_shift: opset(|o, _| {
                matches!(o.alu_imm_op(), Some(AluOp::Shl | AluOp::Shr | AluOp::Sra))
            }),
            s_movhi: opset(|_, i| matches!(i.op, Op::MovHi { .. })),
            s_imm_b: opset(|_, i| matches!(i.op, Op::AluImm { .. } | Op::SetPImm { .. })),
            s_shared: opset(|o, i| {
                o.load().map(|x| x.0) == Some(Space::Shared)
                    || o.store().map(|x| x.0) == Some(Space::Shared)
                    || matches!(
                        i.op,
                        Op::Atom {
                            space: Space::Shared,
                            ..
                        }
                    )
            }),
            s_msigned: opset(|o, _| {
                o.load().is_some_and(|(_, w)| {
                    matches!(w, concord_isa::instr::LoadWidth::S8)
                        || matches!(w, concord_isa::instr::LoadWidth::S16)
                })
            }),
            s_wr_rd: opset(|o, _| {
                decode(word_of(o) | put(RD, 1)).is_ok_and(|i| i.dest_reg() == Reg::new(1))
            }),
            s_wr_pd: opset(|o, _| {
                decode(word_of(o) | put(PD, 1))
                    .is_ok_and(|i| i.dest_pred() == concord_isa::instr::Pred::new(1))
            }),
            s_imm12: has_field(IMM12, |op| {
                matches!(op, Op::AluImm { .. } | Op::Load { .. } | Op::Store { .. })
            }),
            s_imm16: has_field(IMM16, |op| matches!(op, Op::MovHi { .. })),
            s_imm17: has_field(IMM17, |op| matches!(op, Op::MovI { .. })),
            s_imm10: has_field(IMM10, |op| matches!(op, Op::SetPImm { .. })),
            s_param: has_field(PARAM, |op| matches!(op, Op::LdParam { .. })),
            s_t22: has_field(TARGET22, |op| matches!(op, Op::Bra { .. })),
            s_t18: has_field(TARGET18, |op| matches!(op, Op::BraCons { .. })),
            s_t17: has_field(TARGET17, |op| matches!(op, Op::Call { .. })),
            s_pb: has_field(PB, |op| {
                matches!(
                    op,
                    Op::PLogic { .. } | Op::Sel { .. } | Op::Vote { .. } | Op::Ballot { .. }
                )
            }),
            s_cpred: has_field(CONS_PRED, |op| matches!(op, Op::BraCons { .. })),
            s_cls: CLASSES
                .iter()
                .map(|k| opset(|_, i| Class::of(&i.op) == *k))
                .collect(),
            s_alu_op: alu_sets,
            s_mul_op: mul_sets,
            s_cons: Consensus::ALL
                .iter()
                .map(|k| opset(|_, i| matches!(i.op, Op::BraCons { kind, .. } if kind == *k)))
                .collect(),
            s_msize: MSIZES
                .iter()
                .map(|n| {
                    opset(|o, i| {
                        o.load().is_some_and(|(_, w)| w.bytes() == *n)
                            || o.store().is_some_and(|(_, w)| w.bytes() == *n)
                            || (matches!(i.op, Op::Atom { .. }) && *n == 4)
                    })
                })
                .collect(),
            s_res: (0..32)
                .map(|b| opset(|o, _| used(o) & (1 << b) == 0))
                .collect(),
            s_src_a: SRC_A_FIELDS
                .iter()
                .map(|f| opset(|o, _| src_is(o, *f, true)))
                .collect(),
            s_src_b: SRC_B_FIELDS
                .iter()
                .map(|f| opset(|o, _| src_is(o, *f, false)))
                .collect(),
            lsb_src_a: SRC_A_FIELDS.iter().map(|f| lsb(*f)).collect(),
            lsb_src_b: SRC_B_FIELDS.iter().map(|f| lsb(*f)).collect(),
            fm_alu: FUNCS
                .iter()
                .map(|f| fn_mask(&AluOp::ALL, |op| AluFunc::of_alu(*op) == Some(*f)))
                .collect(),
            fm_cmp: FUNCS
                .iter()
                .map(|f| fn_mask(&Cmp::ALL, |k| AluFunc::SetP(*k) == *f))
                .collect(),
            fm_mul: MUL_FUNCS
                .iter()
                .map(|f| fn_mask(&AluOp::ALL, |op| MulFunc::of_alu(*op) == Some(*f)))
                .collect(),
            fm_ballot: c(1 << VOTE_BALLOT),
            fm_vote_ok: c(1 << VOTE_ANY | 1 << VOTE_ALL | 1 << VOTE_BALLOT),
        }
    }
}

impl<const L: usize, const PB: usize, const AW: usize> Logic for Decode<L, PB, AW> {
    #[hdl_gen]
    fn update(&mut self) {
        self.invalid_q.clock.next = self.clock.val();
        self.cls_q.clock.next = self.clock.val();
        self.movhi_q.clock.next = self.clock.val();
        self.imm_b_q.clock.next = self.clock.val();
        self.alu_q.clock.next = self.clock.val();
        self.mul_q.clock.next = self.clock.val();
        self.pop_q.clock.next = self.clock.val();
        self.atom_q.clock.next = self.clock.val();
        self.vote_q.clock.next = self.clock.val();
        self.cons_q.clock.next = self.clock.val();
        self.sreg_q.clock.next = self.clock.val();
        self.shared_q.clock.next = self.clock.val();
        self.msize_q.clock.next = self.clock.val();
        self.msigned_q.clock.next = self.clock.val();
        self.imm_q.clock.next = self.clock.val();
        self.target_q.clock.next = self.clock.val();
        self.param_q.clock.next = self.clock.val();
        self.rd_q.clock.next = self.clock.val();
        self.wr_rd_q.clock.next = self.clock.val();
        self.pd_q.clock.next = self.clock.val();
        self.wr_pd_q.clock.next = self.clock.val();
        self.ra_q.clock.next = self.clock.val();
        self.rb_q.clock.next = self.clock.val();
        self.exec_q.clock.next = self.clock.val();
        self.pa_q.clock.next = self.clock.val();
        self.pb_q.clock.next = self.clock.val();

        // Fields.
        self.opcode.next = self
            .word
            .val()
            .get_bits::<OPCODE_W>(self.lsb_opcode.val().index());
        self.f_func.next = self
            .word
            .val()
            .get_bits::<FUNC_W>(self.lsb_func.val().index());
        self.f_cmpi.next = self
            .word
            .val()
            .get_bits::<FUNC_W>(self.lsb_cmpi.val().index());
        self.f_func5.next = self
            .word
            .val()
            .get_bits::<FUNC5_W>(self.lsb_func5.val().index());
        self.f_rd_low.next = self
            .word
            .val()
            .get_bits::<VOTE_RD_LOW_W>(self.lsb_rd.val().index());
        self.f_pd.next = self
            .word
            .val()
            .get_bits::<PRED_IDX_BITS>(self.lsb_pd.val().index());
        self.x_imm12.next = (self.word.val() >> self.lsb_imm12.val()) & self.m_imm12.val();
        self.x_imm16.next = (self.word.val() >> self.lsb_imm16.val()) & self.m_imm16.val();
        self.x_imm17.next = (self.word.val() >> self.lsb_imm17.val()) & self.m_imm17.val();
        self.x_imm10.next = (self.word.val() >> self.lsb_imm10.val()) & self.m_imm10.val();
        self.x_t22.next = (self.word.val() >> self.lsb_t22.val()) & self.m_t22.val();
        self.x_t18.next = (self.word.val() >> self.lsb_t18.val()) & self.m_t18.val();
        self.x_t17.next = (self.word.val() >> self.lsb_t17.val()) & self.m_t17.val();

        // One-hot decodes of the opcode and the function fields.
        self.fh.next = self.z_f16.val();
        self.ch.next = self.z_f16.val();
        for k in 0..FUNC_VALUES {
            if self.f_func.val() == self.fv[k].val() {
                self.fh.next = self.fh.val() | self.fbit[k].val();
            }
            if self.f_cmpi.val() == self.fv[k].val() {
                self.ch.next = self.ch.val() | self.fbit[k].val();
            }
        }
        self.sh.next = self.z_f32.val();
        for k in 0..FUNC5_VALUES {
            if self.f_func5.val() == self.f5v[k].val() {
                self.sh.next = self.sh.val() | self.f5bit[k].val();
            }
        }

        // Opcode controls.
        self.k_valid.next = ((self.s_valid.val() >> self.opcode.val()) & self.one_oh.val()).any();
        self.k_alu.next = ((self.s_alu.val() >> self.opcode.val()) & self.one_oh.val()).any();
        self.k_setp.next = ((self.s_setp.val() >> self.opcode.val()) & self.one_oh.val()).any();
        self.k_setpi.next = ((self.s_setpi.val() >> self.opcode.val()) & self.one_oh.val()).any();
        self.k_plogic.next = ((self.s_plogic.val() >> self.opcode.val()) & self.one_oh.val()).any();
        self.k_atom.next = ((self.s_atom.val() >> self.opcode.val()) & self.one_oh.val()).any();
        self.k_s2r.next = ((self.s_s2r.val() >> self.opcode.val()) & self.one_oh.val()).any();
        self.k_vote.next = ((self.s_vote.val() >> self.opcode.val()) & self.one_oh.val()).any();
        self.k_shift.next = ((self.s_shift.val() >> self.opcode.val()) & self.one_oh.val()).any();
        self.k_tgt.next = (((self.s_t22.val() | self.s_t18.val() | self.s_t17.val())
            >> self.opcode.val())
            & self.one_oh.val())
        .any();
        self.ballot.next = self.k_vote.val() & (self.fh.val() & self.fm_ballot.val()).any();

        // Targets (also checked for range).
        self.tsel.next = self.z32.val();
        if ((self.s_t22.val() >> self.opcode.val()) & self.one_oh.val()).any() {
            self.tsel.next = self.tsel.val() | self.x_t22.val();
        }
        if ((self.s_t18.val() >> self.opcode.val()) & self.one_oh.val()).any() {
            self.tsel.next = self.tsel.val() | self.x_t18.val();
        }
        if ((self.s_t17.val() >> self.opcode.val()) & self.one_oh.val()).any() {
            self.tsel.next = self.tsel.val() | self.x_t17.val();
        }

        // A target's range, per target field and selected after the test:
        // `≥ MAX_IMEM_WORDS` (a power of two) is a bit at or above
        // `TARGET_W`, on the word's bits directly rather than after the
        // field select and a carry chain (the decoder's path, §19.4). The
        // three fields' opcodes are disjoint (`s_t22`, `s_t18`, `s_t17`: one
        // operation each, `bra`, `bra.*`, `call`).
        self.tbad.next = (((self.s_t22.val() >> self.opcode.val()) & self.one_oh.val()).any()
            & (self.x_t22.val() >> self.target_shift.val()).any())
            | (((self.s_t18.val() >> self.opcode.val()) & self.one_oh.val()).any()
                & (self.x_t18.val() >> self.target_shift.val()).any())
            | (((self.s_t17.val() >> self.opcode.val()) & self.one_oh.val()).any()
                & (self.x_t17.val() >> self.target_shift.val()).any());

        // Validity: reserved bits, then the range of every coded field.
        self.resm.next = self.z32.val();
        for b in 0..32 {
            if ((self.s_res[b].val() >> self.opcode.val()) & self.one_oh.val()).any() {
                self.resm.next = self.resm.val() | self.bit32[b].val();
            }
        }
        self.bad.next = (self.word.val() & self.resm.val()).any()
            | (self.k_alu.val() & (self.f_func.val() >= self.n_alu.val()))
            | (self.k_setp.val() & (self.f_func.val() >= self.n_cmp.val()))
            | (self.k_setpi.val() & (self.f_cmpi.val() >= self.n_cmp.val()))
            | (self.k_plogic.val() & (self.f_func.val() >= self.n_pop.val()))
            | (self.k_atom.val() & (self.f_func.val() >= self.n_atom.val()))
            | (self.k_s2r.val() & (self.f_func5.val() >= self.n_sreg.val()))
            | (self.k_vote.val() & !(self.fh.val() & self.fm_vote_ok.val()).any())
            | (self.k_vote.val()
                & !self.ballot.val()
                & (self.f_rd_low.val() != self.z_rd_low.val()))
            | (self.k_shift.val() & (self.x_imm12.val() > self.shift_max.val()))
            | (self.k_tgt.val() & self.tbad.val());
        self.valid.next = self.k_valid.val() & !self.bad.val() & !self.outside.val();

        // Class, gated by validity.
        self.cls_v.next = self.z_cls.val();
        for k in 0..NCLS {
            if self.valid.val()
                & ((self.s_cls[k].val() >> self.opcode.val()) & self.one_oh.val()).any()
            {
                self.cls_v.next = self.cls_v.val() | self.clsbit[k].val();
            }
        }

        // ALU and multiplier selects.
        self.alu_v.next = self.z_alu.val();
        for i in 0..FUNC_BITS {
            if ((self.s_alu_op[i].val() >> self.opcode.val()) & self.one_oh.val()).any()
                | (self.k_alu.val() & (self.fh.val() & self.fm_alu[i].val()).any())
                | (self.k_setp.val() & (self.fh.val() & self.fm_cmp[i].val()).any())
                | (self.k_setpi.val() & (self.ch.val() & self.fm_cmp[i].val()).any())
            {
                self.alu_v.next = self.alu_v.val() | self.alubit[i].val();
            }
        }
        self.mul_v.next = self.z_mul.val();
        for i in 0..MUL_FUNC_BITS {
            if ((self.s_mul_op[i].val() >> self.opcode.val()) & self.one_oh.val()).any()
                | (self.k_alu.val() & (self.fh.val() & self.fm_mul[i].val()).any())
            {
                self.mul_v.next = self.mul_v.val() | self.mulbit[i].val();
            }
        }
        self.cons_v.next = self.z_cons.val();
        for k in 0..NCONS {
            if ((self.s_cons[k].val() >> self.opcode.val()) & self.one_oh.val()).any() {
                self.cons_v.next = self.cons_v.val() | self.consbit[k].val();
            }
        }
        self.msize_v.next = self.z_ms.val();
        for k in 0..NMSIZE {
            if ((self.s_msize[k].val() >> self.opcode.val()) & self.one_oh.val()).any() {
                self.msize_v.next = self.msize_v.val() | self.msbit[k].val();
            }
        }

        // Immediate.
        self.imm_v.next = self.z32.val();
        if ((self.s_imm12.val() >> self.opcode.val()) & self.one_oh.val()).any() {
            self.imm_v.next = self.imm_v.val()
                | ((self.x_imm12.val() ^ self.sg_imm12.val()) - self.sg_imm12.val());
        }
        if ((self.s_imm17.val() >> self.opcode.val()) & self.one_oh.val()).any() {
            self.imm_v.next = self.imm_v.val()
                | ((self.x_imm17.val() ^ self.sg_imm17.val()) - self.sg_imm17.val());
        }
        if ((self.s_imm10.val() >> self.opcode.val()) & self.one_oh.val()).any() {
            self.imm_v.next = self.imm_v.val()
                | ((self.x_imm10.val() ^ self.sg_imm10.val()) - self.sg_imm10.val());
        }
        if ((self.s_imm16.val() >> self.opcode.val()) & self.one_oh.val()).any() {
            self.imm_v.next = self.imm_v.val() | (self.x_imm16.val() << self.movhi_shift.val());
        }
        if ((self.s_param.val() >> self.opcode.val()) & self.one_oh.val()).any() {
            self.imm_v.next =
                self.imm_v.val() | ((self.word.val() >> self.lsb_param.val()) & self.m_param.val());
        }

        // Register sources and read addresses.
        self.src_a.next = self.z_aw.val();
        for j in 0..NSA {
            if ((self.s_src_a[j].val() >> self.opcode.val()) & self.one_oh.val()).any() {
                self.src_a.next = self.src_a.val()
                    | (self
                        .word
                        .val()
                        .get_bits::<AW>(self.lsb_src_a[j].val().index())
                        & self.m_src.val());
            }
        }
        self.src_b.next = self.z_aw.val();
        for j in 0..NSB {
            if ((self.s_src_b[j].val() >> self.opcode.val()) & self.one_oh.val()).any() {
                self.src_b.next = self.src_b.val()
                    | (self
                        .word
                        .val()
                        .get_bits::<AW>(self.lsb_src_b[j].val().index())
                        & self.m_src.val());
            }
        }
        self.warp_x.i.next = self.warp.val();
        self.row.next = self.warp_x.o.val() << self.rp_shift.val();

        // Predicate operands: guard, A (PA), B (PB or CONS_PRED).
        self.pbi.next = self.z_pd.val();
        self.pbn.next = false;
        if ((self.s_pb.val() >> self.opcode.val()) & self.one_oh.val()).any() {
            self.pbi.next = self
                .word
                .val()
                .get_bits::<PRED_IDX_BITS>(self.lsb_pb.val().index());
            self.pbn.next = self.word.val().get_bit(self.lsb_pb_neg.val().index());
        }
        if ((self.s_cpred.val() >> self.opcode.val()) & self.one_oh.val()).any() {
            self.pbi.next = self.pbi.val()
                | self
                    .word
                    .val()
                    .get_bits::<PRED_IDX_BITS>(self.lsb_cons.val().index());
            self.pbn.next =
                self.pbn.val() | self.word.val().get_bit(self.lsb_cons_neg.val().index());
        }
        self.gsel.bank.next = self.bank.val();
        self.gsel.idx.next = self
            .word
            .val()
            .get_bits::<PRED_IDX_BITS>(self.lsb_gpred.val().index());
        self.gsel.neg.next = self.word.val().get_bit(self.lsb_gneg.val().index());
        self.asel.bank.next = self.bank.val();
        self.asel.idx.next = self
            .word
            .val()
            .get_bits::<PRED_IDX_BITS>(self.lsb_pa.val().index());
        self.asel.neg.next = self.word.val().get_bit(self.lsb_pa_neg.val().index());
        self.bsel.bank.next = self.bank.val();
        self.bsel.idx.next = self.pbi.val();
        self.bsel.neg.next = self.pbn.val();

        // Registers.
        self.invalid_q.d.next = !self.valid.val();
        self.cls_q.d.next = self.cls_v.val();
        self.movhi_q.d.next = ((self.s_movhi.val() >> self.opcode.val()) & self.one_oh.val()).any();
        self.imm_b_q.d.next = ((self.s_imm_b.val() >> self.opcode.val()) & self.one_oh.val()).any();
        self.alu_q.d.next = self.alu_v.val();
        self.mul_q.d.next = self.mul_v.val();
        self.pop_q.d.next = self.fh.val().get_bits::<NPOP>(0);
        if !self.k_plogic.val() {
            self.pop_q.d.next = self.z_pop.val();
        }
        self.atom_q.d.next = self.fh.val().get_bits::<NATOM>(0);
        if !self.k_atom.val() {
            self.atom_q.d.next = self.z_atom.val();
        }
        self.vote_q.d.next = self.fh.val().get_bits::<NVOTE>(0);
        if !self.k_vote.val() {
            self.vote_q.d.next = self.z_vote.val();
        }
        self.cons_q.d.next = self.cons_v.val();
        self.sreg_q.d.next = self.sh.val().get_bits::<NSREG>(0);
        if !self.k_s2r.val() {
            self.sreg_q.d.next = self.z_sreg.val();
        }
        self.shared_q.d.next =
            ((self.s_shared.val() >> self.opcode.val()) & self.one_oh.val()).any();
        self.msize_q.d.next = self.msize_v.val();
        self.msigned_q.d.next =
            ((self.s_msigned.val() >> self.opcode.val()) & self.one_oh.val()).any();
        self.imm_q.d.next = self.imm_v.val();
        self.target_q.d.next = self.tsel.val().get_bits::<TARGET_W>(0);
        self.param_q.d.next = self
            .word
            .val()
            .get_bits::<PARAM_W>(self.lsb_param.val().index());
        self.rd_q.d.next = self.word.val().get_bits::<REG_W>(self.lsb_rd.val().index());
        self.wr_rd_q.d.next = ((self.s_wr_rd.val() >> self.opcode.val()) & self.one_oh.val()).any()
            | self.ballot.val();
        self.pd_q.d.next = self.f_pd.val();
        self.wr_pd_q.d.next = ((self.s_wr_pd.val() >> self.opcode.val()) & self.one_oh.val()).any()
            & !self.ballot.val()
            & (self.f_pd.val() != self.z_pd.val());
        self.ra_q.d.next = self.row.val() | self.src_a.val();
        self.rb_q.d.next = self.row.val() | self.src_b.val();
        self.ra_d.next = self.row.val() | self.src_a.val();
        self.rb_d.next = self.row.val() | self.src_b.val();
        self.exec_q.d.next = self.active.val() & self.gsel.mask.val();
        self.pa_q.d.next = self.asel.mask.val();
        self.pb_q.d.next = self.bsel.mask.val();

        self.invalid.next = self.invalid_q.q.val();
        self.cls.next = self.cls_q.q.val();
        self.movhi.next = self.movhi_q.q.val();
        self.imm_b.next = self.imm_b_q.q.val();
        self.alu.next = self.alu_q.q.val();
        self.mul.next = self.mul_q.q.val();
        self.pop.next = self.pop_q.q.val();
        self.atom.next = self.atom_q.q.val();
        self.vote.next = self.vote_q.q.val();
        self.cons.next = self.cons_q.q.val();
        self.sreg.next = self.sreg_q.q.val();
        self.shared.next = self.shared_q.q.val();
        self.msize.next = self.msize_q.q.val();
        self.msigned.next = self.msigned_q.q.val();
        self.imm.next = self.imm_q.q.val();
        self.target.next = self.target_q.q.val();
        self.param.next = self.param_q.q.val();
        self.rd.next = self.rd_q.q.val();
        self.wr_rd.next = self.wr_rd_q.q.val();
        self.pd.next = self.pd_q.q.val();
        self.wr_pd.next = self.wr_pd_q.q.val();
        self.ra.next = self.ra_q.q.val();
        self.rb.next = self.rb_q.q.val();
        self.exec.next = self.exec_q.q.val();
        self.pa.next = self.pa_q.q.val();
        self.pb.next = self.pb_q.q.val();
    }
}
