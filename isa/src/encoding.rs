//! The 32-bit binary encoding of [`Instr`].
//!
//! ```text
//!  31  30..28  27..22  21 ........................................ 0
//! neg  gpred   opcode  operands (layout per opcode, see docs/isa.md)
//! ```
//!
//! Decoding is strict: a word whose unused operand bits are not zero, whose
//! opcode is unassigned or whose fields are out of range is rejected, so that
//! `encode` is a bijection between [`Instr`] and the valid words. The field
//! positions are public constants because the RTL decoder uses them too.

use crate::instr::*;

/// Bit positions and widths of the instruction fields: `(lsb, width)`.
pub mod field {
    pub const GUARD_NEG: (u32, u32) = (31, 1);
    pub const GUARD_PRED: (u32, u32) = (28, 3);
    pub const OPCODE: (u32, u32) = (22, 6);
    /// Destination register (or store source).
    pub const RD: (u32, u32) = (17, 5);
    /// Destination predicate.
    pub const PD: (u32, u32) = (19, 3);
    pub const RS1: (u32, u32) = (12, 5);
    pub const RS2: (u32, u32) = (7, 5);
    /// ALU / comparison / atomic / vote function code.
    pub const FUNC: (u32, u32) = (0, 4);
    pub const IMM12: (u32, u32) = (0, 12);
    pub const IMM16: (u32, u32) = (0, 16);
    pub const IMM17: (u32, u32) = (0, 17);
    /// `setp` with an immediate: comparison, source, 10-bit immediate.
    pub const SETPI_CMP: (u32, u32) = (15, 4);
    pub const SETPI_RS1: (u32, u32) = (10, 5);
    pub const IMM10: (u32, u32) = (0, 10);
    /// Predicate source A (`pand`/`por`/`pxor` first operand): negate + index.
    pub const PA_NEG: (u32, u32) = (18, 1);
    pub const PA: (u32, u32) = (15, 3);
    /// Predicate source B (`pand`.. second operand, `sel`, votes).
    pub const PB_NEG: (u32, u32) = (14, 1);
    pub const PB: (u32, u32) = (11, 3);
    /// `ldparam` word index.
    pub const PARAM: (u32, u32) = (0, 4);
    /// `bra` target.
    pub const TARGET22: (u32, u32) = (0, 22);
    /// Consensual branch predicate and target.
    pub const CONS_NEG: (u32, u32) = (21, 1);
    pub const CONS_PRED: (u32, u32) = (18, 3);
    pub const TARGET18: (u32, u32) = (0, 18);
    /// `call` target.
    pub const TARGET17: (u32, u32) = (0, 17);
    /// `sel` packs its two register sources below the predicate.
    pub const SEL_RS1: (u32, u32) = (6, 5);
    pub const SEL_RS2: (u32, u32) = (1, 5);
    /// `s2r` special register code.
    pub const FUNC_5: (u32, u32) = (0, 5);
}

/// Major opcodes. The numeric values are the encoding.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(u8)]
pub enum Opcode {
    /// All-zero words never decode: running into cleared memory traps.
    Illegal = 0,
    Nop = 1,
    Alu = 2,
    AddI = 3,
    MulI = 4,
    AndI = 5,
    OrI = 6,
    XorI = 7,
    ShlI = 8,
    ShrI = 9,
    SraI = 10,
    MovI = 11,
    MovHi = 12,
    SetP = 13,
    SetPI = 14,
    PLogic = 15,
    Sel = 16,
    S2R = 17,
    LdParam = 18,
    LdSharedU8 = 19,
    LdSharedS8 = 20,
    LdSharedU16 = 21,
    LdSharedS16 = 22,
    LdSharedB32 = 23,
    LdGlobalU8 = 24,
    LdGlobalS8 = 25,
    LdGlobalU16 = 26,
    LdGlobalS16 = 27,
    LdGlobalB32 = 28,
    StSharedB8 = 29,
    StSharedB16 = 30,
    StSharedB32 = 31,
    StGlobalB8 = 32,
    StGlobalB16 = 33,
    StGlobalB32 = 34,
    AtomShared = 35,
    AtomGlobal = 36,
    Bra = 37,
    BraNone = 38,
    BraAny = 39,
    BraAll = 40,
    Jmp = 41,
    Call = 42,
    CallR = 43,
    Ret = 44,
    Bar = 45,
    Exit = 46,
    Vote = 47,
}

impl Opcode {
    pub const ALL: [Opcode; 48] = [
        Opcode::Illegal,
        Opcode::Nop,
        Opcode::Alu,
        Opcode::AddI,
        Opcode::MulI,
        Opcode::AndI,
        Opcode::OrI,
        Opcode::XorI,
        Opcode::ShlI,
        Opcode::ShrI,
        Opcode::SraI,
        Opcode::MovI,
        Opcode::MovHi,
        Opcode::SetP,
        Opcode::SetPI,
        Opcode::PLogic,
        Opcode::Sel,
        Opcode::S2R,
        Opcode::LdParam,
        Opcode::LdSharedU8,
        Opcode::LdSharedS8,
        Opcode::LdSharedU16,
        Opcode::LdSharedS16,
        Opcode::LdSharedB32,
        Opcode::LdGlobalU8,
        Opcode::LdGlobalS8,
        Opcode::LdGlobalU16,
        Opcode::LdGlobalS16,
        Opcode::LdGlobalB32,
        Opcode::StSharedB8,
        Opcode::StSharedB16,
        Opcode::StSharedB32,
        Opcode::StGlobalB8,
        Opcode::StGlobalB16,
        Opcode::StGlobalB32,
        Opcode::AtomShared,
        Opcode::AtomGlobal,
        Opcode::Bra,
        Opcode::BraNone,
        Opcode::BraAny,
        Opcode::BraAll,
        Opcode::Jmp,
        Opcode::Call,
        Opcode::CallR,
        Opcode::Ret,
        Opcode::Bar,
        Opcode::Exit,
        Opcode::Vote,
    ];

    pub fn from_u32(v: u32) -> Option<Opcode> {
        Self::ALL.get(v as usize).copied()
    }

    const ALU_IMM: [(Opcode, AluOp); 8] = [
        (Opcode::AddI, AluOp::Add),
        (Opcode::MulI, AluOp::Mul),
        (Opcode::AndI, AluOp::And),
        (Opcode::OrI, AluOp::Or),
        (Opcode::XorI, AluOp::Xor),
        (Opcode::ShlI, AluOp::Shl),
        (Opcode::ShrI, AluOp::Shr),
        (Opcode::SraI, AluOp::Sra),
    ];

    /// The ALU operation of an immediate-form opcode.
    pub fn alu_imm_op(self) -> Option<AluOp> {
        Self::ALU_IMM
            .iter()
            .find(|(o, _)| *o == self)
            .map(|(_, a)| *a)
    }

    pub fn for_alu_imm(op: AluOp) -> Option<Opcode> {
        Self::ALU_IMM
            .iter()
            .find(|(_, a)| *a == op)
            .map(|(o, _)| *o)
    }

    /// The address space and width of a load opcode.
    pub fn load(self) -> Option<(Space, LoadWidth)> {
        let n = self as u8;
        let first = Opcode::LdSharedU8 as u8;
        if (first..first + 10).contains(&n) {
            let i = (n - first) as usize;
            Some((Space::ALL[i / 5], LoadWidth::ALL[i % 5]))
        } else {
            None
        }
    }

    pub fn for_load(space: Space, width: LoadWidth) -> Opcode {
        let s = Space::ALL.iter().position(|x| *x == space).unwrap();
        let w = LoadWidth::ALL.iter().position(|x| *x == width).unwrap();
        Opcode::ALL[Opcode::LdSharedU8 as usize + s * 5 + w]
    }

    /// The address space and width of a store opcode.
    pub fn store(self) -> Option<(Space, StoreWidth)> {
        let n = self as u8;
        let first = Opcode::StSharedB8 as u8;
        if (first..first + 6).contains(&n) {
            let i = (n - first) as usize;
            Some((Space::ALL[i / 3], StoreWidth::ALL[i % 3]))
        } else {
            None
        }
    }

    pub fn for_store(space: Space, width: StoreWidth) -> Opcode {
        let s = Space::ALL.iter().position(|x| *x == space).unwrap();
        let w = StoreWidth::ALL.iter().position(|x| *x == width).unwrap();
        Opcode::ALL[Opcode::StSharedB8 as usize + s * 3 + w]
    }

    pub fn of(op: &Op) -> Opcode {
        match *op {
            Op::Alu { .. } => Opcode::Alu,
            Op::AluImm { op, .. } => {
                Opcode::for_alu_imm(op).expect("ALU op without immediate form")
            }
            Op::MovI { .. } => Opcode::MovI,
            Op::MovHi { .. } => Opcode::MovHi,
            Op::SetP { .. } => Opcode::SetP,
            Op::SetPImm { .. } => Opcode::SetPI,
            Op::PLogic { .. } => Opcode::PLogic,
            Op::Sel { .. } => Opcode::Sel,
            Op::S2R { .. } => Opcode::S2R,
            Op::LdParam { .. } => Opcode::LdParam,
            Op::Load { space, width, .. } => Opcode::for_load(space, width),
            Op::Store { space, width, .. } => Opcode::for_store(space, width),
            Op::Atom {
                space: Space::Shared,
                ..
            } => Opcode::AtomShared,
            Op::Atom {
                space: Space::Global,
                ..
            } => Opcode::AtomGlobal,
            Op::Bra { .. } => Opcode::Bra,
            Op::BraCons {
                kind: Consensus::None,
                ..
            } => Opcode::BraNone,
            Op::BraCons {
                kind: Consensus::Any,
                ..
            } => Opcode::BraAny,
            Op::BraCons {
                kind: Consensus::All,
                ..
            } => Opcode::BraAll,
            Op::Jmp { .. } => Opcode::Jmp,
            Op::Call { .. } => Opcode::Call,
            Op::CallR { .. } => Opcode::CallR,
            Op::Ret { .. } => Opcode::Ret,
            Op::Bar => Opcode::Bar,
            Op::Exit => Opcode::Exit,
            Op::Vote { .. } | Op::Ballot { .. } => Opcode::Vote,
            Op::Nop => Opcode::Nop,
        }
    }
}

/// Function codes of the `vote` opcode.
pub const VOTE_ANY: u32 = 0;
pub const VOTE_ALL: u32 = 1;
pub const VOTE_BALLOT: u32 = 2;

/// Why a word is not a valid instruction.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("unassigned opcode {0}")]
    Opcode(u32),
    #[error("reserved bits set (mask {0:#010x})")]
    ReservedBits(u32),
    #[error("{field} value {value} out of range")]
    Field { field: &'static str, value: u32 },
}

/// Why an [`Instr`] cannot be encoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    #[error("{what} {value} outside {min}..={max}")]
    OutOfRange {
        what: &'static str,
        value: i64,
        min: i64,
        max: i64,
    },
    #[error("`{0}` has no immediate form")]
    NoImmediateForm(&'static str),
}

fn get(word: u32, (lsb, width): (u32, u32)) -> u32 {
    (word >> lsb) & ((1u32 << width) - 1)
}

fn put((lsb, width): (u32, u32), value: u32) -> u32 {
    debug_assert!(u64::from(value) < 1u64 << width, "field overflow");
    (value & ((1u32 << width) - 1)) << lsb
}

/// The bits a field occupies.
pub fn field_mask((lsb, width): (u32, u32)) -> u32 {
    ((1u32 << width) - 1) << lsb
}

fn mask_of(fields: &[(u32, u32)]) -> u32 {
    fields.iter().fold(0, |m, f| m | field_mask(*f))
}

fn sext(value: u32, width: u32) -> i32 {
    let shift = 32 - width;
    ((value << shift) as i32) >> shift
}

fn check_range(what: &'static str, value: i64, min: i64, max: i64) -> Result<(), EncodeError> {
    if value < min || value > max {
        Err(EncodeError::OutOfRange {
            what,
            value,
            min,
            max,
        })
    } else {
        Ok(())
    }
}

fn reg(r: Reg) -> u32 {
    r.index() as u32
}

fn pred(p: Pred) -> u32 {
    p.index() as u32
}

fn func_of<T: PartialEq>(all: &[T], x: &T) -> u32 {
    all.iter().position(|y| y == x).unwrap() as u32
}

/// Encodes one instruction. Fails only on out-of-range immediates and
/// targets (everything else is guaranteed by the types).
pub fn encode(instr: &Instr) -> Result<u32, EncodeError> {
    use field::*;
    let opcode = match instr.op {
        Op::AluImm { op, .. } => {
            Opcode::for_alu_imm(op).ok_or(EncodeError::NoImmediateForm(op.mnemonic()))?
        }
        ref op => Opcode::of(op),
    };
    let mut w = put(GUARD_NEG, instr.guard.negate as u32)
        | put(GUARD_PRED, pred(instr.guard.pred))
        | put(OPCODE, opcode as u32);
    let target = |t: u32, bits: u32| {
        check_range(
            "target",
            t as i64,
            0,
            ((1u64 << bits) - 1).min(MAX_IMEM_WORDS as u64 - 1) as i64,
        )
    };
    w |= match instr.op {
        Op::Alu { op, rd, rs1, rs2 } => {
            put(RD, reg(rd))
                | put(RS1, reg(rs1))
                | put(RS2, reg(rs2))
                | put(FUNC, func_of(&AluOp::ALL, &op))
        }
        Op::AluImm { op, rd, rs1, imm } => {
            let r = op.imm_range();
            check_range("immediate", imm as i64, *r.start() as i64, *r.end() as i64)?;
            put(RD, reg(rd)) | put(RS1, reg(rs1)) | put(IMM12, imm as u32 & 0xfff)
        }
        Op::MovI { rd, imm } => {
            check_range("immediate", imm as i64, IMM17_MIN as i64, IMM17_MAX as i64)?;
            put(RD, reg(rd)) | put(IMM17, imm as u32 & 0x1ffff)
        }
        Op::MovHi { rd, imm } => put(RD, reg(rd)) | put(IMM16, imm as u32),
        Op::SetP { cmp, pd, rs1, rs2 } => {
            put(PD, pred(pd))
                | put(RS1, reg(rs1))
                | put(RS2, reg(rs2))
                | put(FUNC, func_of(&Cmp::ALL, &cmp))
        }
        Op::SetPImm { cmp, pd, rs1, imm } => {
            check_range("immediate", imm as i64, IMM10_MIN as i64, IMM10_MAX as i64)?;
            put(PD, pred(pd))
                | put(SETPI_CMP, func_of(&Cmp::ALL, &cmp))
                | put(SETPI_RS1, reg(rs1))
                | put(IMM10, imm as u32 & 0x3ff)
        }
        Op::PLogic { op, pd, a, b } => {
            put(PD, pred(pd))
                | put(PA_NEG, a.negate as u32)
                | put(PA, pred(a.pred))
                | put(PB_NEG, b.negate as u32)
                | put(PB, pred(b.pred))
                | put(FUNC, func_of(&PredOp::ALL, &op))
        }
        Op::Sel { rd, p, rs1, rs2 } => {
            put(RD, reg(rd))
                | put(PB_NEG, p.negate as u32)
                | put(PB, pred(p.pred))
                | put(SEL_RS1, reg(rs1))
                | put(SEL_RS2, reg(rs2))
        }
        Op::S2R { rd, sreg } => put(RD, reg(rd)) | put(FUNC_5, sreg.code()),
        Op::LdParam { rd, index } => {
            check_range(
                "parameter index",
                index as i64,
                0,
                MAX_PARAM_WORDS as i64 - 1,
            )?;
            put(RD, reg(rd)) | put(PARAM, index as u32)
        }
        Op::Load {
            rd, base, offset, ..
        } => {
            check_range("offset", offset as i64, IMM12_MIN as i64, IMM12_MAX as i64)?;
            put(RD, reg(rd)) | put(RS1, reg(base)) | put(IMM12, offset as u32 & 0xfff)
        }
        Op::Store {
            src, base, offset, ..
        } => {
            check_range("offset", offset as i64, IMM12_MIN as i64, IMM12_MAX as i64)?;
            put(RD, reg(src)) | put(RS1, reg(base)) | put(IMM12, offset as u32 & 0xfff)
        }
        Op::Atom {
            op, rd, addr, src, ..
        } => {
            put(RD, reg(rd))
                | put(RS1, reg(addr))
                | put(RS2, reg(src))
                | put(FUNC, func_of(&AtomOp::ALL, &op))
        }
        Op::Bra { target: t } => {
            target(t, 22)?;
            put(TARGET22, t)
        }
        Op::BraCons { p, target: t, .. } => {
            target(t, 18)?;
            put(CONS_NEG, p.negate as u32) | put(CONS_PRED, pred(p.pred)) | put(TARGET18, t)
        }
        Op::Jmp { rs } | Op::Ret { rs } => put(RS1, reg(rs)),
        Op::Call { rd, target: t } => {
            target(t, 17)?;
            put(RD, reg(rd)) | put(TARGET17, t)
        }
        Op::CallR { rd, rs } => put(RD, reg(rd)) | put(RS1, reg(rs)),
        Op::Bar | Op::Exit | Op::Nop => 0,
        Op::Vote { kind, pd, p } => {
            let f = match kind {
                VoteKind::Any => VOTE_ANY,
                VoteKind::All => VOTE_ALL,
            };
            put(PD, pred(pd)) | put(PB_NEG, p.negate as u32) | put(PB, pred(p.pred)) | put(FUNC, f)
        }
        Op::Ballot { rd, p } => {
            put(RD, reg(rd))
                | put(PB_NEG, p.negate as u32)
                | put(PB, pred(p.pred))
                | put(FUNC, VOTE_BALLOT)
        }
    };
    Ok(w)
}

/// Every operand field used by each opcode; anything else must be zero.
pub fn operand_fields(opcode: Opcode) -> &'static [(u32, u32)] {
    use field::*;
    match opcode {
        Opcode::Illegal | Opcode::Nop | Opcode::Bar | Opcode::Exit => &[],
        Opcode::Alu => &[RD, RS1, RS2, FUNC],
        // `setp` writes a predicate: only PD (the top 3 bits of RD) is used.
        Opcode::SetP => &[PD, RS1, RS2, FUNC],
        Opcode::AddI
        | Opcode::MulI
        | Opcode::AndI
        | Opcode::OrI
        | Opcode::XorI
        | Opcode::ShlI
        | Opcode::ShrI
        | Opcode::SraI => &[RD, RS1, IMM12],
        Opcode::MovI => &[RD, IMM17],
        Opcode::MovHi => &[RD, IMM16],
        Opcode::SetPI => &[PD, SETPI_CMP, SETPI_RS1, IMM10],
        Opcode::PLogic => &[PD, PA_NEG, PA, PB_NEG, PB, FUNC],
        Opcode::Sel => &[RD, PB_NEG, PB, SEL_RS1, SEL_RS2],
        Opcode::S2R => &[RD, FUNC_5],
        Opcode::LdParam => &[RD, PARAM],
        Opcode::AtomShared | Opcode::AtomGlobal => &[RD, RS1, RS2, FUNC],
        Opcode::Bra => &[TARGET22],
        Opcode::BraNone | Opcode::BraAny | Opcode::BraAll => &[CONS_NEG, CONS_PRED, TARGET18],
        Opcode::Jmp | Opcode::Ret => &[RS1],
        Opcode::Call => &[RD, TARGET17],
        Opcode::CallR => &[RD, RS1],
        Opcode::Vote => &[RD, PB_NEG, PB, FUNC],
        op if op.load().is_some() || op.store().is_some() => &[RD, RS1, IMM12],
        _ => unreachable!("every opcode is listed"),
    }
}

fn in_range<T: Copy>(all: &[T], field: &'static str, value: u32) -> Result<T, DecodeError> {
    all.get(value as usize)
        .copied()
        .ok_or(DecodeError::Field { field, value })
}

fn target_in_imem(value: u32) -> Result<u32, DecodeError> {
    if (value as usize) < MAX_IMEM_WORDS {
        Ok(value)
    } else {
        Err(DecodeError::Field {
            field: "target",
            value,
        })
    }
}

/// Decodes one word. Strict: see the module docs.
pub fn decode(word: u32) -> Result<Instr, DecodeError> {
    use field::*;
    let opcode_bits = get(word, OPCODE);
    let opcode = Opcode::from_u32(opcode_bits).ok_or(DecodeError::Opcode(opcode_bits))?;
    if opcode == Opcode::Illegal {
        return Err(DecodeError::Opcode(0));
    }
    let used = mask_of(&[GUARD_NEG, GUARD_PRED, OPCODE]) | mask_of(operand_fields(opcode));
    if word & !used != 0 {
        return Err(DecodeError::ReservedBits(word & !used));
    }
    let guard = PredSrc::new(
        Pred::new(get(word, GUARD_PRED) as u8).unwrap(),
        get(word, GUARD_NEG) == 1,
    );
    let r = |f| Reg::new(get(word, f) as u8).unwrap();
    let p = |f| Pred::new(get(word, f) as u8).unwrap();
    let psrc = |neg, idx| PredSrc::new(p(idx), get(word, neg) == 1);
    let op = match opcode {
        Opcode::Illegal => unreachable!(),
        Opcode::Nop => Op::Nop,
        Opcode::Bar => Op::Bar,
        Opcode::Exit => Op::Exit,
        Opcode::Alu => Op::Alu {
            op: in_range(&AluOp::ALL, "alu function", get(word, FUNC))?,
            rd: r(RD),
            rs1: r(RS1),
            rs2: r(RS2),
        },
        Opcode::MovI => Op::MovI {
            rd: r(RD),
            imm: sext(get(word, IMM17), 17),
        },
        Opcode::MovHi => Op::MovHi {
            rd: r(RD),
            imm: get(word, IMM16) as u16,
        },
        Opcode::SetP => Op::SetP {
            cmp: in_range(&Cmp::ALL, "comparison", get(word, FUNC))?,
            pd: p(PD),
            rs1: r(RS1),
            rs2: r(RS2),
        },
        Opcode::SetPI => Op::SetPImm {
            cmp: in_range(&Cmp::ALL, "comparison", get(word, SETPI_CMP))?,
            pd: p(PD),
            rs1: r(SETPI_RS1),
            imm: sext(get(word, IMM10), 10),
        },
        Opcode::PLogic => Op::PLogic {
            op: in_range(&PredOp::ALL, "predicate function", get(word, FUNC))?,
            pd: p(PD),
            a: psrc(PA_NEG, PA),
            b: psrc(PB_NEG, PB),
        },
        Opcode::Sel => Op::Sel {
            rd: r(RD),
            p: psrc(PB_NEG, PB),
            rs1: r(SEL_RS1),
            rs2: r(SEL_RS2),
        },
        Opcode::S2R => Op::S2R {
            rd: r(RD),
            sreg: SpecialReg::from_code(get(word, FUNC_5)).ok_or(DecodeError::Field {
                field: "special register",
                value: get(word, FUNC_5),
            })?,
        },
        Opcode::LdParam => Op::LdParam {
            rd: r(RD),
            index: get(word, PARAM) as u8,
        },
        Opcode::AtomShared | Opcode::AtomGlobal => Op::Atom {
            space: if opcode == Opcode::AtomShared {
                Space::Shared
            } else {
                Space::Global
            },
            op: in_range(&AtomOp::ALL, "atomic function", get(word, FUNC))?,
            rd: r(RD),
            addr: r(RS1),
            src: r(RS2),
        },
        Opcode::Bra => Op::Bra {
            target: target_in_imem(get(word, TARGET22))?,
        },
        Opcode::BraNone | Opcode::BraAny | Opcode::BraAll => Op::BraCons {
            kind: match opcode {
                Opcode::BraNone => Consensus::None,
                Opcode::BraAny => Consensus::Any,
                _ => Consensus::All,
            },
            p: psrc(CONS_NEG, CONS_PRED),
            target: target_in_imem(get(word, TARGET18))?,
        },
        Opcode::Jmp => Op::Jmp { rs: r(RS1) },
        Opcode::Ret => Op::Ret { rs: r(RS1) },
        Opcode::Call => Op::Call {
            rd: r(RD),
            target: target_in_imem(get(word, TARGET17))?,
        },
        Opcode::CallR => Op::CallR {
            rd: r(RD),
            rs: r(RS1),
        },
        Opcode::Vote => {
            let p_src = psrc(PB_NEG, PB);
            match get(word, FUNC) {
                VOTE_ANY | VOTE_ALL => {
                    let rd_bits = get(word, RD);
                    if rd_bits & 0b11 != 0 {
                        return Err(DecodeError::ReservedBits((rd_bits & 0b11) << RD.0));
                    }
                    Op::Vote {
                        kind: if get(word, FUNC) == VOTE_ANY {
                            VoteKind::Any
                        } else {
                            VoteKind::All
                        },
                        pd: p(PD),
                        p: p_src,
                    }
                }
                VOTE_BALLOT => Op::Ballot {
                    rd: r(RD),
                    p: p_src,
                },
                value => {
                    return Err(DecodeError::Field {
                        field: "vote function",
                        value,
                    })
                }
            }
        }
        op => {
            if let Some((space, width)) = op.load() {
                Op::Load {
                    space,
                    width,
                    rd: r(RD),
                    base: r(RS1),
                    offset: sext(get(word, IMM12), 12),
                }
            } else if let Some((space, width)) = op.store() {
                Op::Store {
                    space,
                    width,
                    src: r(RD),
                    base: r(RS1),
                    offset: sext(get(word, IMM12), 12),
                }
            } else if let Some(alu) = op.alu_imm_op() {
                let raw = get(word, IMM12);
                let imm = match alu {
                    AluOp::Shl | AluOp::Shr | AluOp::Sra => {
                        if raw > 31 {
                            return Err(DecodeError::Field {
                                field: "shift amount",
                                value: raw,
                            });
                        }
                        raw as i32
                    }
                    _ => sext(raw, 12),
                };
                Op::AluImm {
                    op: alu,
                    rd: r(RD),
                    rs1: r(RS1),
                    imm,
                }
            } else {
                unreachable!("every opcode is handled")
            }
        }
    };
    Ok(Instr { guard, op })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_layouts_do_not_overlap() {
        for op in Opcode::ALL {
            let mut seen = mask_of(&[field::GUARD_NEG, field::GUARD_PRED, field::OPCODE]);
            for f in operand_fields(op) {
                let m = field_mask(*f);
                assert_eq!(seen & m, 0, "{op:?} field {f:?} overlaps");
                seen |= m;
            }
        }
    }

    #[test]
    fn zero_word_is_illegal() {
        assert_eq!(decode(0), Err(DecodeError::Opcode(0)));
    }

    #[test]
    fn movi_sign_extends() {
        let i = Instr::new(Op::MovI {
            rd: Reg::new(3).unwrap(),
            imm: -5,
        });
        assert_eq!(decode(encode(&i).unwrap()).unwrap(), i);
        let w = encode(&i).unwrap();
        assert_eq!(w & 0x1ffff, 0x1fffb);
    }
}
