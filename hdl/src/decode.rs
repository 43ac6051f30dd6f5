//! The instruction decoder: one combinational block from the 32-bit word to
//! the fields and class signals the core uses.
//!
//! Every opcode number, field position and width, function-code count and
//! range limit comes from `concord_isa` (`encoding::field::*`, `Opcode as
//! u8`, `operand_fields`, the `ALL` tables of the function enums) and is
//! emitted as a Verilog `localparam` (rust-hdl `Constant`); nothing is
//! retyped here. Decoding is as strict as `concord_isa::decode`: the test
//! `tests/decoder.rs` checks validity and every output against it.

use concord_isa::encoding::{
    field, field_mask, operand_fields, Opcode, VOTE_ALL, VOTE_ANY, VOTE_BALLOT,
};
use concord_isa::instr::{
    AluOp, AtomOp, Cmp, Consensus, LoadWidth, PredOp, Space, SpecialReg, StoreWidth, MAX_IMEM_WORDS,
};
use rust_hdl_core::prelude::*;

/// Field widths as Rust constants (for `get_bits::<W>`).
const RD_W: usize = field::RD.1 as usize;
const PD_W: usize = field::PD.1 as usize;
const FUNC_W: usize = field::FUNC.1 as usize;
const OPCODE_W: usize = field::OPCODE.1 as usize;
const GUARD_PRED_W: usize = field::GUARD_PRED.1 as usize;
const FUNC5_W: usize = field::FUNC_5.1 as usize;
/// Bits of `RD` below `PD` (must be zero for `vote.any`/`vote.all`).
const VOTE_RD_LOW_W: usize = (field::PD.0 - field::RD.0) as usize;
/// Number of opcode values (64 for a 6-bit field).
const OPCODE_VALUES: usize = 1 << OPCODE_W;

// Internal layout of `attr_tab` entries (not part of the ISA).
// bits 1..0: log2 of the access bytes; bit 2: sign-extending load;
// bit 3: shared space.

fn op6(op: Opcode) -> Constant<Bits<OPCODE_W>> {
    Constant::new((op as u8 as u64).into())
}

fn c32(v: u64) -> Constant<Bits<32>> {
    Constant::new(v.into())
}

/// Contiguous opcode range `(first, last)` of the opcodes selected by `pick`.
fn opcode_range(pick: impl Fn(Opcode) -> bool) -> (Opcode, Opcode) {
    let ops: Vec<Opcode> = Opcode::ALL.iter().copied().filter(|o| pick(*o)).collect();
    let first = ops[0];
    let last = *ops.last().unwrap();
    assert_eq!(
        last as usize - first as usize + 1,
        ops.len(),
        "opcode class is not contiguous"
    );
    (first, last)
}

/// The decoder. Outputs are meaningful only when `valid`.
#[derive(LogicBlock)]
pub struct Decoder {
    pub word: Signal<In, Bits<32>>,

    pub valid: Signal<Out, bool>,
    pub opcode: Signal<Out, Bits<OPCODE_W>>,
    // Classes (exactly one is set for a valid word).
    pub k_nop: Signal<Out, bool>,
    pub k_alu: Signal<Out, bool>,
    pub k_alui: Signal<Out, bool>,
    pub k_movi: Signal<Out, bool>,
    pub k_movhi: Signal<Out, bool>,
    pub k_setp: Signal<Out, bool>,
    pub k_setpi: Signal<Out, bool>,
    pub k_plogic: Signal<Out, bool>,
    pub k_sel: Signal<Out, bool>,
    pub k_s2r: Signal<Out, bool>,
    pub k_ldparam: Signal<Out, bool>,
    pub k_load: Signal<Out, bool>,
    pub k_store: Signal<Out, bool>,
    pub k_atom: Signal<Out, bool>,
    pub k_bra: Signal<Out, bool>,
    pub k_cons: Signal<Out, bool>,
    pub k_jmp: Signal<Out, bool>,
    pub k_call: Signal<Out, bool>,
    pub k_callr: Signal<Out, bool>,
    pub k_ret: Signal<Out, bool>,
    pub k_bar: Signal<Out, bool>,
    pub k_exit: Signal<Out, bool>,
    pub k_vote: Signal<Out, bool>,
    pub k_ballot: Signal<Out, bool>,
    // Derived classes.
    pub control: Signal<Out, bool>,
    pub memory: Signal<Out, bool>,
    /// Writes `rd` (for its executing lanes).
    pub wr_rd: Signal<Out, bool>,
    /// Writes a predicate other than `pt`.
    pub wr_pd: Signal<Out, bool>,
    /// Memory access: shared space (else global), log2 of the bytes, sign extension.
    pub shared: Signal<Out, bool>,
    pub mlog: Signal<Out, Bits<2>>,
    pub msigned: Signal<Out, bool>,
    // Operands.
    pub rd: Signal<Out, Bits<RD_W>>,
    pub pd: Signal<Out, Bits<PD_W>>,
    /// Register read port sources A and B (0 when the instruction has none).
    pub src_a: Signal<Out, Bits<RD_W>>,
    pub src_b: Signal<Out, Bits<RD_W>>,
    /// ALU op index (`AluOp::ALL`), comparison (`Cmp::ALL`), predicate op,
    /// atomic op, vote function, or consensual kind (`Consensus::ALL`).
    pub func: Signal<Out, Bits<FUNC_W>>,
    /// Immediate / offset / target / parameter index / special register code.
    pub imm: Signal<Out, Bits<32>>,
    pub gneg: Signal<Out, bool>,
    pub gpred: Signal<Out, Bits<GUARD_PRED_W>>,
    pub pa: Signal<Out, Bits<PD_W>>,
    pub pa_neg: Signal<Out, bool>,
    /// Second predicate source: `PB` (plogic, sel, votes) or `CONS_PRED` (consensual branches).
    pub pb: Signal<Out, Bits<PD_W>>,
    pub pb_neg: Signal<Out, bool>,

    // Narrow fields.
    f_gneg: Signal<Local, bool>,
    f_gpred: Signal<Local, Bits<GUARD_PRED_W>>,
    f_rd: Signal<Local, Bits<RD_W>>,
    f_pd: Signal<Local, Bits<PD_W>>,
    f_rs1: Signal<Local, Bits<RD_W>>,
    f_rs2: Signal<Local, Bits<RD_W>>,
    f_func: Signal<Local, Bits<FUNC_W>>,
    f_func5: Signal<Local, Bits<FUNC5_W>>,
    f_setpi_cmp: Signal<Local, Bits<FUNC_W>>,
    f_setpi_rs1: Signal<Local, Bits<RD_W>>,
    f_pa_neg: Signal<Local, bool>,
    f_pa: Signal<Local, Bits<PD_W>>,
    f_pb_neg: Signal<Local, bool>,
    f_pb: Signal<Local, Bits<PD_W>>,
    f_cons_neg: Signal<Local, bool>,
    f_cons_pred: Signal<Local, Bits<PD_W>>,
    f_sel_rs1: Signal<Local, Bits<RD_W>>,
    f_sel_rs2: Signal<Local, Bits<RD_W>>,
    // Fields as 32-bit values (zero or sign extended).
    x_imm12: Signal<Local, Bits<32>>,
    x_imm16: Signal<Local, Bits<32>>,
    x_imm17: Signal<Local, Bits<32>>,
    x_imm10: Signal<Local, Bits<32>>,
    x_param: Signal<Local, Bits<32>>,
    x_func5: Signal<Local, Bits<32>>,
    x_target22: Signal<Local, Bits<32>>,
    x_target18: Signal<Local, Bits<32>>,
    x_target17: Signal<Local, Bits<32>>,
    s_imm12: Signal<Local, Bits<32>>,
    s_imm17: Signal<Local, Bits<32>>,
    s_imm10: Signal<Local, Bits<32>>,
    // Field positions.
    lsb_gneg: Constant<Bits<32>>,
    lsb_gpred: Constant<Bits<32>>,
    lsb_opcode: Constant<Bits<32>>,
    lsb_rd: Constant<Bits<32>>,
    lsb_pd: Constant<Bits<32>>,
    lsb_rs1: Constant<Bits<32>>,
    lsb_rs2: Constant<Bits<32>>,
    lsb_func: Constant<Bits<32>>,
    lsb_func5: Constant<Bits<32>>,
    lsb_setpi_cmp: Constant<Bits<32>>,
    lsb_setpi_rs1: Constant<Bits<32>>,
    lsb_pa_neg: Constant<Bits<32>>,
    lsb_pa: Constant<Bits<32>>,
    lsb_pb_neg: Constant<Bits<32>>,
    lsb_pb: Constant<Bits<32>>,
    lsb_cons_neg: Constant<Bits<32>>,
    lsb_cons_pred: Constant<Bits<32>>,
    lsb_sel_rs1: Constant<Bits<32>>,
    lsb_sel_rs2: Constant<Bits<32>>,
    lsb_imm12: Constant<Bits<32>>,
    lsb_imm16: Constant<Bits<32>>,
    lsb_imm17: Constant<Bits<32>>,
    lsb_imm10: Constant<Bits<32>>,
    lsb_param: Constant<Bits<32>>,
    lsb_target22: Constant<Bits<32>>,
    lsb_target18: Constant<Bits<32>>,
    lsb_target17: Constant<Bits<32>>,
    mask_imm12: Constant<Bits<32>>,
    mask_imm16: Constant<Bits<32>>,
    mask_imm17: Constant<Bits<32>>,
    mask_imm10: Constant<Bits<32>>,
    mask_param: Constant<Bits<32>>,
    mask_func5: Constant<Bits<32>>,
    mask_target22: Constant<Bits<32>>,
    mask_target18: Constant<Bits<32>>,
    mask_target17: Constant<Bits<32>>,
    sign_imm12: Constant<Bits<32>>,
    sign_imm17: Constant<Bits<32>>,
    sign_imm10: Constant<Bits<32>>,

    // Locals.
    used: Signal<Local, Bits<32>>,
    attr: Signal<Local, Bits<4>>,
    ifunc: Signal<Local, Bits<FUNC_W>>,
    assigned: Signal<Local, bool>,
    func_ok: Signal<Local, bool>,
    alui_shift: Signal<Local, bool>,
    cls_pd: Signal<Local, bool>,

    // ISA constants.
    op_nop: Constant<Bits<OPCODE_W>>,
    op_alu: Constant<Bits<OPCODE_W>>,
    op_alui_first: Constant<Bits<OPCODE_W>>,
    op_alui_last: Constant<Bits<OPCODE_W>>,
    op_shli: Constant<Bits<OPCODE_W>>,
    op_shri: Constant<Bits<OPCODE_W>>,
    op_srai: Constant<Bits<OPCODE_W>>,
    op_movi: Constant<Bits<OPCODE_W>>,
    op_movhi: Constant<Bits<OPCODE_W>>,
    op_setp: Constant<Bits<OPCODE_W>>,
    op_setpi: Constant<Bits<OPCODE_W>>,
    op_plogic: Constant<Bits<OPCODE_W>>,
    op_sel: Constant<Bits<OPCODE_W>>,
    op_s2r: Constant<Bits<OPCODE_W>>,
    op_ldparam: Constant<Bits<OPCODE_W>>,
    op_ld_first: Constant<Bits<OPCODE_W>>,
    op_ld_last: Constant<Bits<OPCODE_W>>,
    op_st_first: Constant<Bits<OPCODE_W>>,
    op_st_last: Constant<Bits<OPCODE_W>>,
    op_atom_first: Constant<Bits<OPCODE_W>>,
    op_atom_last: Constant<Bits<OPCODE_W>>,
    op_bra: Constant<Bits<OPCODE_W>>,
    op_cons_first: Constant<Bits<OPCODE_W>>,
    op_cons_last: Constant<Bits<OPCODE_W>>,
    op_jmp: Constant<Bits<OPCODE_W>>,
    op_call: Constant<Bits<OPCODE_W>>,
    op_callr: Constant<Bits<OPCODE_W>>,
    op_ret: Constant<Bits<OPCODE_W>>,
    op_bar: Constant<Bits<OPCODE_W>>,
    op_exit: Constant<Bits<OPCODE_W>>,
    op_vote: Constant<Bits<OPCODE_W>>,
    op_count: Constant<Bits<OPCODE_W>>,
    n_alu: Constant<Bits<FUNC_W>>,
    n_cmp: Constant<Bits<FUNC_W>>,
    n_pred_ops: Constant<Bits<FUNC_W>>,
    n_atom: Constant<Bits<FUNC_W>>,
    n_sreg: Constant<Bits<FUNC5_W>>,
    vote_any: Constant<Bits<FUNC_W>>,
    vote_all: Constant<Bits<FUNC_W>>,
    vote_ballot: Constant<Bits<FUNC_W>>,
    shift_max: Constant<Bits<32>>,
    max_target: Constant<Bits<32>>,
    zero_reg: Constant<Bits<RD_W>>,
    /// Per opcode: the bits a valid word may set (guard, opcode, operand fields).
    used_tab: Vec<Constant<Bits<32>>>,
    /// Per opcode: memory attributes (layout above).
    attr_tab: Vec<Constant<Bits<4>>>,
    /// Per opcode: the function implied by the opcode (ALU immediate ops, consensual kinds).
    func_tab: Vec<Constant<Bits<FUNC_W>>>,
}

impl Default for Decoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Decoder {
    pub fn new() -> Self {
        use field::*;
        let (alui_first, alui_last) = opcode_range(|o| o.alu_imm_op().is_some());
        let (ld_first, ld_last) = opcode_range(|o| o.load().is_some());
        let (st_first, st_last) = opcode_range(|o| o.store().is_some());
        let (atom_first, atom_last) =
            opcode_range(|o| matches!(o, Opcode::AtomShared | Opcode::AtomGlobal));
        let (cons_first, cons_last) =
            opcode_range(|o| matches!(o, Opcode::BraNone | Opcode::BraAny | Opcode::BraAll));
        let mut used_tab = Vec::new();
        let mut attr_tab = Vec::new();
        let mut func_tab = Vec::new();
        let head = field_mask(GUARD_NEG) | field_mask(GUARD_PRED) | field_mask(OPCODE);
        for n in 0..OPCODE_VALUES {
            let op = Opcode::from_u32(n as u32);
            let used = match op {
                Some(op) if op != Opcode::Illegal => operand_fields(op)
                    .iter()
                    .fold(head, |m, f| m | field_mask(*f)),
                _ => 0,
            };
            used_tab.push(c32(used as u64));
            let log2 = |bytes: u32| bytes.trailing_zeros() as u64;
            let space_bit = |s: Space| if s == Space::Shared { 8 } else { 0 };
            let attr = match op {
                Some(o) if o.load().is_some() => {
                    let (s, w) = o.load().unwrap();
                    let signed = matches!(w, LoadWidth::S8 | LoadWidth::S16);
                    log2(w.bytes()) | (signed as u64) << 2 | space_bit(s)
                }
                Some(o) if o.store().is_some() => {
                    let (s, w) = o.store().unwrap();
                    log2(w.bytes()) | space_bit(s)
                }
                Some(Opcode::AtomShared) => log2(4) | space_bit(Space::Shared),
                Some(Opcode::AtomGlobal) => log2(4) | space_bit(Space::Global),
                _ => 0,
            };
            attr_tab.push(Constant::new(attr.into()));
            let func = match op {
                Some(o) if o.alu_imm_op().is_some() => {
                    let a = o.alu_imm_op().unwrap();
                    AluOp::ALL.iter().position(|x| *x == a).unwrap() as u64
                }
                Some(Opcode::BraNone) => pos(&Consensus::ALL, Consensus::None),
                Some(Opcode::BraAny) => pos(&Consensus::ALL, Consensus::Any),
                Some(Opcode::BraAll) => pos(&Consensus::ALL, Consensus::All),
                _ => 0,
            };
            func_tab.push(Constant::new(func.into()));
        }
        // Bits used by StoreWidth keep the attribute layout honest.
        debug_assert!(StoreWidth::ALL.iter().all(|w| w.bytes() <= 4));
        let shift_max = *AluOp::Shl.imm_range().end() as u64;
        assert_eq!(shift_max, *AluOp::Shr.imm_range().end() as u64);
        assert_eq!(shift_max, *AluOp::Sra.imm_range().end() as u64);
        Decoder {
            word: Default::default(),
            valid: Default::default(),
            opcode: Default::default(),
            k_nop: Default::default(),
            k_alu: Default::default(),
            k_alui: Default::default(),
            k_movi: Default::default(),
            k_movhi: Default::default(),
            k_setp: Default::default(),
            k_setpi: Default::default(),
            k_plogic: Default::default(),
            k_sel: Default::default(),
            k_s2r: Default::default(),
            k_ldparam: Default::default(),
            k_load: Default::default(),
            k_store: Default::default(),
            k_atom: Default::default(),
            k_bra: Default::default(),
            k_cons: Default::default(),
            k_jmp: Default::default(),
            k_call: Default::default(),
            k_callr: Default::default(),
            k_ret: Default::default(),
            k_bar: Default::default(),
            k_exit: Default::default(),
            k_vote: Default::default(),
            k_ballot: Default::default(),
            control: Default::default(),
            memory: Default::default(),
            wr_rd: Default::default(),
            wr_pd: Default::default(),
            shared: Default::default(),
            mlog: Default::default(),
            msigned: Default::default(),
            rd: Default::default(),
            pd: Default::default(),
            src_a: Default::default(),
            src_b: Default::default(),
            func: Default::default(),
            imm: Default::default(),
            gneg: Default::default(),
            gpred: Default::default(),
            pa: Default::default(),
            pa_neg: Default::default(),
            pb: Default::default(),
            pb_neg: Default::default(),
            f_gneg: Default::default(),
            f_gpred: Default::default(),
            f_rd: Default::default(),
            f_pd: Default::default(),
            f_rs1: Default::default(),
            f_rs2: Default::default(),
            f_func: Default::default(),
            f_func5: Default::default(),
            f_setpi_cmp: Default::default(),
            f_setpi_rs1: Default::default(),
            f_pa_neg: Default::default(),
            f_pa: Default::default(),
            f_pb_neg: Default::default(),
            f_pb: Default::default(),
            f_cons_neg: Default::default(),
            f_cons_pred: Default::default(),
            f_sel_rs1: Default::default(),
            f_sel_rs2: Default::default(),
            x_imm12: Default::default(),
            x_imm16: Default::default(),
            x_imm17: Default::default(),
            x_imm10: Default::default(),
            x_param: Default::default(),
            x_func5: Default::default(),
            x_target22: Default::default(),
            x_target18: Default::default(),
            x_target17: Default::default(),
            s_imm12: Default::default(),
            s_imm17: Default::default(),
            s_imm10: Default::default(),
            lsb_gneg: lsb(GUARD_NEG),
            lsb_gpred: lsb(GUARD_PRED),
            lsb_opcode: lsb(OPCODE),
            lsb_rd: lsb(RD),
            lsb_pd: lsb(PD),
            lsb_rs1: lsb(RS1),
            lsb_rs2: lsb(RS2),
            lsb_func: lsb(FUNC),
            lsb_func5: lsb(FUNC_5),
            lsb_setpi_cmp: lsb(SETPI_CMP),
            lsb_setpi_rs1: lsb(SETPI_RS1),
            lsb_pa_neg: lsb(PA_NEG),
            lsb_pa: lsb(PA),
            lsb_pb_neg: lsb(PB_NEG),
            lsb_pb: lsb(PB),
            lsb_cons_neg: lsb(CONS_NEG),
            lsb_cons_pred: lsb(CONS_PRED),
            lsb_sel_rs1: lsb(SEL_RS1),
            lsb_sel_rs2: lsb(SEL_RS2),
            lsb_imm12: lsb(IMM12),
            lsb_imm16: lsb(IMM16),
            lsb_imm17: lsb(IMM17),
            lsb_imm10: lsb(IMM10),
            lsb_param: lsb(PARAM),
            lsb_target22: lsb(TARGET22),
            lsb_target18: lsb(TARGET18),
            lsb_target17: lsb(TARGET17),
            mask_imm12: mask(IMM12),
            mask_imm16: mask(IMM16),
            mask_imm17: mask(IMM17),
            mask_imm10: mask(IMM10),
            mask_param: mask(PARAM),
            mask_func5: mask(FUNC_5),
            mask_target22: mask(TARGET22),
            mask_target18: mask(TARGET18),
            mask_target17: mask(TARGET17),
            sign_imm12: sign(IMM12),
            sign_imm17: sign(IMM17),
            sign_imm10: sign(IMM10),
            used: Default::default(),
            attr: Default::default(),
            ifunc: Default::default(),
            assigned: Default::default(),
            func_ok: Default::default(),
            alui_shift: Default::default(),
            cls_pd: Default::default(),
            op_nop: op6(Opcode::Nop),
            op_alu: op6(Opcode::Alu),
            op_alui_first: op6(alui_first),
            op_alui_last: op6(alui_last),
            op_shli: op6(Opcode::for_alu_imm(AluOp::Shl).unwrap()),
            op_shri: op6(Opcode::for_alu_imm(AluOp::Shr).unwrap()),
            op_srai: op6(Opcode::for_alu_imm(AluOp::Sra).unwrap()),
            op_movi: op6(Opcode::MovI),
            op_movhi: op6(Opcode::MovHi),
            op_setp: op6(Opcode::SetP),
            op_setpi: op6(Opcode::SetPI),
            op_plogic: op6(Opcode::PLogic),
            op_sel: op6(Opcode::Sel),
            op_s2r: op6(Opcode::S2R),
            op_ldparam: op6(Opcode::LdParam),
            op_ld_first: op6(ld_first),
            op_ld_last: op6(ld_last),
            op_st_first: op6(st_first),
            op_st_last: op6(st_last),
            op_atom_first: op6(atom_first),
            op_atom_last: op6(atom_last),
            op_bra: op6(Opcode::Bra),
            op_cons_first: op6(cons_first),
            op_cons_last: op6(cons_last),
            op_jmp: op6(Opcode::Jmp),
            op_call: op6(Opcode::Call),
            op_callr: op6(Opcode::CallR),
            op_ret: op6(Opcode::Ret),
            op_bar: op6(Opcode::Bar),
            op_exit: op6(Opcode::Exit),
            op_vote: op6(Opcode::Vote),
            op_count: Constant::new((Opcode::ALL.len() as u64).into()),
            n_alu: Constant::new((AluOp::ALL.len() as u64).into()),
            n_cmp: Constant::new((Cmp::ALL.len() as u64).into()),
            n_pred_ops: Constant::new((PredOp::ALL.len() as u64).into()),
            n_atom: Constant::new((AtomOp::ALL.len() as u64).into()),
            n_sreg: Constant::new((SpecialReg::ALL.len() as u64).into()),
            vote_any: Constant::new((VOTE_ANY as u64).into()),
            vote_all: Constant::new((VOTE_ALL as u64).into()),
            vote_ballot: Constant::new((VOTE_BALLOT as u64).into()),
            shift_max: c32(shift_max),
            max_target: c32(MAX_IMEM_WORDS as u64),
            zero_reg: Constant::new(0u64.into()),
            used_tab,
            attr_tab,
            func_tab,
        }
    }
}

fn lsb((l, _): (u32, u32)) -> Constant<Bits<32>> {
    c32(l as u64)
}

fn mask((_, w): (u32, u32)) -> Constant<Bits<32>> {
    c32((1u64 << w) - 1)
}

fn sign((_, w): (u32, u32)) -> Constant<Bits<32>> {
    c32(1u64 << (w - 1))
}

fn pos<T: PartialEq + Copy>(all: &[T], x: T) -> u64 {
    all.iter().position(|y| *y == x).unwrap() as u64
}

impl Logic for Decoder {
    #[hdl_gen]
    fn update(&mut self) {
        // Field extraction.
        self.opcode.next = self
            .word
            .val()
            .get_bits::<OPCODE_W>(self.lsb_opcode.val().index());
        self.f_gneg.next = self.word.val().get_bit(self.lsb_gneg.val().index());
        self.f_gpred.next = self
            .word
            .val()
            .get_bits::<GUARD_PRED_W>(self.lsb_gpred.val().index());
        self.f_rd.next = self.word.val().get_bits::<RD_W>(self.lsb_rd.val().index());
        self.f_pd.next = self.word.val().get_bits::<PD_W>(self.lsb_pd.val().index());
        self.f_rs1.next = self.word.val().get_bits::<RD_W>(self.lsb_rs1.val().index());
        self.f_rs2.next = self.word.val().get_bits::<RD_W>(self.lsb_rs2.val().index());
        self.f_func.next = self
            .word
            .val()
            .get_bits::<FUNC_W>(self.lsb_func.val().index());
        self.f_func5.next = self
            .word
            .val()
            .get_bits::<FUNC5_W>(self.lsb_func5.val().index());
        self.f_setpi_cmp.next = self
            .word
            .val()
            .get_bits::<FUNC_W>(self.lsb_setpi_cmp.val().index());
        self.f_setpi_rs1.next = self
            .word
            .val()
            .get_bits::<RD_W>(self.lsb_setpi_rs1.val().index());
        self.f_pa_neg.next = self.word.val().get_bit(self.lsb_pa_neg.val().index());
        self.f_pa.next = self.word.val().get_bits::<PD_W>(self.lsb_pa.val().index());
        self.f_pb_neg.next = self.word.val().get_bit(self.lsb_pb_neg.val().index());
        self.f_pb.next = self.word.val().get_bits::<PD_W>(self.lsb_pb.val().index());
        self.f_cons_neg.next = self.word.val().get_bit(self.lsb_cons_neg.val().index());
        self.f_cons_pred.next = self
            .word
            .val()
            .get_bits::<PD_W>(self.lsb_cons_pred.val().index());
        self.f_sel_rs1.next = self
            .word
            .val()
            .get_bits::<RD_W>(self.lsb_sel_rs1.val().index());
        self.f_sel_rs2.next = self
            .word
            .val()
            .get_bits::<RD_W>(self.lsb_sel_rs2.val().index());
        self.x_imm12.next = (self.word.val() >> self.lsb_imm12.val()) & self.mask_imm12.val();
        self.x_imm16.next = (self.word.val() >> self.lsb_imm16.val()) & self.mask_imm16.val();
        self.x_imm17.next = (self.word.val() >> self.lsb_imm17.val()) & self.mask_imm17.val();
        self.x_imm10.next = (self.word.val() >> self.lsb_imm10.val()) & self.mask_imm10.val();
        self.x_param.next = (self.word.val() >> self.lsb_param.val()) & self.mask_param.val();
        self.x_func5.next = (self.word.val() >> self.lsb_func5.val()) & self.mask_func5.val();
        self.x_target22.next =
            (self.word.val() >> self.lsb_target22.val()) & self.mask_target22.val();
        self.x_target18.next =
            (self.word.val() >> self.lsb_target18.val()) & self.mask_target18.val();
        self.x_target17.next =
            (self.word.val() >> self.lsb_target17.val()) & self.mask_target17.val();
        self.s_imm12.next = (self.x_imm12.val() ^ self.sign_imm12.val()) - self.sign_imm12.val();
        self.s_imm17.next = (self.x_imm17.val() ^ self.sign_imm17.val()) - self.sign_imm17.val();
        self.s_imm10.next = (self.x_imm10.val() ^ self.sign_imm10.val()) - self.sign_imm10.val();

        // Per-opcode tables.
        self.used.next = self.used_tab[0].val();
        self.attr.next = self.attr_tab[0].val();
        self.ifunc.next = self.func_tab[0].val();
        for o in 1..OPCODE_VALUES {
            if self.opcode.val().index() == o {
                self.used.next = self.used_tab[o].val();
                self.attr.next = self.attr_tab[o].val();
                self.ifunc.next = self.func_tab[o].val();
            }
        }

        // Classes.
        self.k_nop.next = self.opcode.val() == self.op_nop.val();
        self.k_alu.next = self.opcode.val() == self.op_alu.val();
        self.k_alui.next = (self.opcode.val() >= self.op_alui_first.val())
            && (self.opcode.val() <= self.op_alui_last.val());
        self.k_movi.next = self.opcode.val() == self.op_movi.val();
        self.k_movhi.next = self.opcode.val() == self.op_movhi.val();
        self.k_setp.next = self.opcode.val() == self.op_setp.val();
        self.k_setpi.next = self.opcode.val() == self.op_setpi.val();
        self.k_plogic.next = self.opcode.val() == self.op_plogic.val();
        self.k_sel.next = self.opcode.val() == self.op_sel.val();
        self.k_s2r.next = self.opcode.val() == self.op_s2r.val();
        self.k_ldparam.next = self.opcode.val() == self.op_ldparam.val();
        self.k_load.next = (self.opcode.val() >= self.op_ld_first.val())
            && (self.opcode.val() <= self.op_ld_last.val());
        self.k_store.next = (self.opcode.val() >= self.op_st_first.val())
            && (self.opcode.val() <= self.op_st_last.val());
        self.k_atom.next = (self.opcode.val() >= self.op_atom_first.val())
            && (self.opcode.val() <= self.op_atom_last.val());
        self.k_bra.next = self.opcode.val() == self.op_bra.val();
        self.k_cons.next = (self.opcode.val() >= self.op_cons_first.val())
            && (self.opcode.val() <= self.op_cons_last.val());
        self.k_jmp.next = self.opcode.val() == self.op_jmp.val();
        self.k_call.next = self.opcode.val() == self.op_call.val();
        self.k_callr.next = self.opcode.val() == self.op_callr.val();
        self.k_ret.next = self.opcode.val() == self.op_ret.val();
        self.k_bar.next = self.opcode.val() == self.op_bar.val();
        self.k_exit.next = self.opcode.val() == self.op_exit.val();
        self.k_vote.next = (self.opcode.val() == self.op_vote.val())
            && (self.f_func.val() != self.vote_ballot.val());
        self.k_ballot.next = (self.opcode.val() == self.op_vote.val())
            && (self.f_func.val() == self.vote_ballot.val());
        self.alui_shift.next = (self.opcode.val() == self.op_shli.val())
            || (self.opcode.val() == self.op_shri.val())
            || (self.opcode.val() == self.op_srai.val());

        self.control.next = self.k_bra.val()
            || self.k_cons.val()
            || self.k_jmp.val()
            || self.k_call.val()
            || self.k_callr.val()
            || self.k_ret.val()
            || self.k_bar.val()
            || self.k_exit.val();
        self.memory.next = self.k_load.val() || self.k_store.val() || self.k_atom.val();
        self.wr_rd.next = self.k_alu.val()
            || self.k_alui.val()
            || self.k_movi.val()
            || self.k_movhi.val()
            || self.k_sel.val()
            || self.k_s2r.val()
            || self.k_ldparam.val()
            || self.k_load.val()
            || self.k_atom.val()
            || self.k_call.val()
            || self.k_callr.val()
            || self.k_ballot.val();
        self.cls_pd.next =
            self.k_setp.val() || self.k_setpi.val() || self.k_plogic.val() || self.k_vote.val();
        self.wr_pd.next = self.cls_pd.val() && self.f_pd.val().any();
        self.mlog.next = self.attr.val().get_bits::<2>(0);
        self.msigned.next = self.attr.val().get_bit(2);
        self.shared.next = self.attr.val().get_bit(3);

        // Validity.
        self.assigned.next = self.opcode.val().any() && (self.opcode.val() < self.op_count.val());
        self.func_ok.next = true;
        if self.k_alu.val() {
            self.func_ok.next = self.f_func.val() < self.n_alu.val();
        }
        if self.k_setp.val() {
            self.func_ok.next = self.f_func.val() < self.n_cmp.val();
        }
        if self.k_setpi.val() {
            self.func_ok.next = self.f_setpi_cmp.val() < self.n_cmp.val();
        }
        if self.k_plogic.val() {
            self.func_ok.next = self.f_func.val() < self.n_pred_ops.val();
        }
        if self.k_atom.val() {
            self.func_ok.next = self.f_func.val() < self.n_atom.val();
        }
        if self.k_s2r.val() {
            self.func_ok.next = self.f_func5.val() < self.n_sreg.val();
        }
        if self.k_vote.val() {
            self.func_ok.next = ((self.f_func.val() == self.vote_any.val())
                || (self.f_func.val() == self.vote_all.val()))
                && !self.f_rd.val().get_bits::<VOTE_RD_LOW_W>(0).any();
        }
        if self.alui_shift.val() {
            self.func_ok.next = self.x_imm12.val() <= self.shift_max.val();
        }
        if self.k_bra.val() {
            self.func_ok.next = self.x_target22.val() < self.max_target.val();
        }
        if self.k_cons.val() {
            self.func_ok.next = self.x_target18.val() < self.max_target.val();
        }
        if self.k_call.val() {
            self.func_ok.next = self.x_target17.val() < self.max_target.val();
        }
        self.valid.next = self.assigned.val()
            && ((self.word.val() & !self.used.val()) == 0)
            && self.func_ok.val();

        // Operands.
        self.gneg.next = self.f_gneg.val();
        self.gpred.next = self.f_gpred.val();
        self.rd.next = self.f_rd.val();
        self.pd.next = self.f_pd.val();
        self.pa.next = self.f_pa.val();
        self.pa_neg.next = self.f_pa_neg.val();
        self.pb.next = self.f_pb.val();
        self.pb_neg.next = self.f_pb_neg.val();
        if self.k_cons.val() {
            self.pb.next = self.f_cons_pred.val();
            self.pb_neg.next = self.f_cons_neg.val();
        }

        self.src_a.next = self.f_rs1.val();
        self.src_b.next = self.f_rs2.val();
        if self.k_sel.val() {
            self.src_a.next = self.f_sel_rs1.val();
            self.src_b.next = self.f_sel_rs2.val();
        }
        if self.k_alui.val()
            || self.k_load.val()
            || self.k_jmp.val()
            || self.k_ret.val()
            || self.k_callr.val()
        {
            self.src_b.next = self.zero_reg.val();
        }
        if self.k_setpi.val() {
            self.src_a.next = self.f_setpi_rs1.val();
            self.src_b.next = self.zero_reg.val();
        }
        if self.k_movhi.val() {
            self.src_a.next = self.f_rd.val();
            self.src_b.next = self.zero_reg.val();
        }
        if self.k_store.val() {
            self.src_b.next = self.f_rd.val();
        }
        if self.k_nop.val()
            || self.k_movi.val()
            || self.k_plogic.val()
            || self.k_s2r.val()
            || self.k_ldparam.val()
            || self.k_bra.val()
            || self.k_cons.val()
            || self.k_call.val()
            || self.k_bar.val()
            || self.k_exit.val()
            || self.k_vote.val()
            || self.k_ballot.val()
        {
            self.src_a.next = self.zero_reg.val();
            self.src_b.next = self.zero_reg.val();
        }

        self.func.next = self.f_func.val();
        if self.k_setpi.val() {
            self.func.next = self.f_setpi_cmp.val();
        }
        if self.k_alui.val() || self.k_cons.val() {
            self.func.next = self.ifunc.val();
        }

        self.imm.next = self.s_imm12.val();
        if self.alui_shift.val() {
            self.imm.next = self.x_imm12.val();
        }
        if self.k_movi.val() {
            self.imm.next = self.s_imm17.val();
        }
        if self.k_movhi.val() {
            self.imm.next = self.x_imm16.val();
        }
        if self.k_setpi.val() {
            self.imm.next = self.s_imm10.val();
        }
        if self.k_bra.val() {
            self.imm.next = self.x_target22.val();
        }
        if self.k_cons.val() {
            self.imm.next = self.x_target18.val();
        }
        if self.k_call.val() {
            self.imm.next = self.x_target17.val();
        }
        if self.k_ldparam.val() {
            self.imm.next = self.x_param.val();
        }
        if self.k_s2r.val() {
            self.imm.next = self.x_func5.val();
        }
    }
}
