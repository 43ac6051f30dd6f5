//! Lane-level semantics of the data operations: the one definition of what
//! each ALU, comparison, atomic and extension computes on 32-bit values.
//!
//! The functional model, the cycle model and the RTL tests all call these
//! functions; control flow and masking are the models' business.

use crate::instr::{AluOp, AtomOp, Cmp, Consensus, LoadWidth, PredOp, StoreWidth, VoteKind};

/// `a op b` on one lane. Shifts use the low 5 bits of `b`; multiplication
/// wraps; `mulhi`/`mulhiu` give the high word of the signed/unsigned 64-bit product.
#[inline(always)]
pub fn alu(op: AluOp, a: u32, b: u32) -> u32 {
    match op {
        AluOp::Add => a.wrapping_add(b),
        AluOp::Sub => a.wrapping_sub(b),
        AluOp::Mul => a.wrapping_mul(b),
        AluOp::MulHi => ((a as i32 as i64 * b as i32 as i64) >> 32) as u32,
        AluOp::MulHiU => ((a as u64 * b as u64) >> 32) as u32,
        AluOp::And => a & b,
        AluOp::Or => a | b,
        AluOp::Xor => a ^ b,
        AluOp::Shl => a << (b & 31),
        AluOp::Shr => a >> (b & 31),
        AluOp::Sra => ((a as i32) >> (b & 31)) as u32,
        AluOp::Min => (a as i32).min(b as i32) as u32,
        AluOp::Max => (a as i32).max(b as i32) as u32,
        AluOp::MinU => a.min(b),
        AluOp::MaxU => a.max(b),
    }
}

/// `a cmp b` on one lane; the `u` forms compare as unsigned.
#[inline(always)]
pub fn compare(cmp: Cmp, a: u32, b: u32) -> bool {
    let (sa, sb) = (a as i32, b as i32);
    match cmp {
        Cmp::Eq => a == b,
        Cmp::Ne => a != b,
        Cmp::Lt => sa < sb,
        Cmp::Le => sa <= sb,
        Cmp::Gt => sa > sb,
        Cmp::Ge => sa >= sb,
        Cmp::LtU => a < b,
        Cmp::LeU => a <= b,
        Cmp::GtU => a > b,
        Cmp::GeU => a >= b,
    }
}

#[inline(always)]
pub fn pred_logic(op: PredOp, a: bool, b: bool) -> bool {
    match op {
        PredOp::And => a & b,
        PredOp::Or => a | b,
        PredOp::Xor => a ^ b,
    }
}

/// The value an atomic writes back, given the old memory word and the operand.
#[inline(always)]
pub fn atomic(op: AtomOp, old: u32, operand: u32) -> u32 {
    match op {
        AtomOp::Add => old.wrapping_add(operand),
        AtomOp::Exch => operand,
        AtomOp::Min => (old as i32).min(operand as i32) as u32,
        AtomOp::Max => (old as i32).max(operand as i32) as u32,
        AtomOp::MinU => old.min(operand),
        AtomOp::MaxU => old.max(operand),
        AtomOp::And => old & operand,
        AtomOp::Or => old | operand,
        AtomOp::Xor => old ^ operand,
    }
}

/// Extends the `width.bytes()` low bytes of `raw` to a register value.
#[inline(always)]
pub fn load_extend(width: LoadWidth, raw: u32) -> u32 {
    match width {
        LoadWidth::U8 => raw & 0xff,
        LoadWidth::S8 => raw as u8 as i8 as i32 as u32,
        LoadWidth::U16 => raw & 0xffff,
        LoadWidth::S16 => raw as u16 as i16 as i32 as u32,
        LoadWidth::B32 => raw,
    }
}

/// The bytes a store writes: the low `width.bytes()` bytes of the register.
#[inline(always)]
pub fn store_truncate(width: StoreWidth, value: u32) -> u32 {
    match width {
        StoreWidth::B8 => value & 0xff,
        StoreWidth::B16 => value & 0xffff,
        StoreWidth::B32 => value,
    }
}

/// Outcome of a consensual branch. `voters` are the active lanes whose guard
/// holds; `yes` those of them whose predicate holds. With no voter the
/// quantifiers take their empty-set values: `none` and `all` are taken,
/// `any` is not.
#[inline(always)]
pub fn consensus_taken(kind: Consensus, voters: u32, yes: u32) -> bool {
    let yes = yes & voters;
    match kind {
        Consensus::None => yes == 0,
        Consensus::Any => yes != 0,
        Consensus::All => yes == voters,
    }
}

/// Result of `vote.any` / `vote.all` over the voting lanes (same empty-set rule).
#[inline(always)]
pub fn vote(kind: VoteKind, voters: u32, yes: u32) -> bool {
    let yes = yes & voters;
    match kind {
        VoteKind::Any => yes != 0,
        VoteKind::All => yes == voters,
    }
}

/// Full 32-bit constant as `movi` + `movhi` (or one `movi` when it fits).
pub fn split_constant(value: u32) -> (i32, Option<u16>) {
    let v = value as i32;
    if (crate::instr::IMM17_MIN..=crate::instr::IMM17_MAX).contains(&v) {
        (v, None)
    } else {
        ((value & 0xffff) as i32, Some((value >> 16) as u16))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_alu_values() {
        assert_eq!(alu(AluOp::Sub, 3, 5), (-2i32) as u32);
        assert_eq!(alu(AluOp::MulHi, (-2i32) as u32, 3), u32::MAX);
        assert_eq!(alu(AluOp::MulHiU, 0x8000_0000, 4), 2);
        assert_eq!(alu(AluOp::Sra, 0x8000_0000, 31), u32::MAX);
        assert_eq!(alu(AluOp::Shr, 0x8000_0000, 31), 1);
        assert_eq!(alu(AluOp::Shl, 1, 33), 2);
        assert_eq!(alu(AluOp::Min, (-1i32) as u32, 1), (-1i32) as u32);
        assert_eq!(alu(AluOp::MinU, (-1i32) as u32, 1), 1);
    }

    #[test]
    fn signed_and_unsigned_compares_differ_on_negative_values() {
        let m1 = (-1i32) as u32;
        assert!(compare(Cmp::Lt, m1, 0));
        assert!(!compare(Cmp::LtU, m1, 0));
        assert!(compare(Cmp::GeU, m1, 0));
    }

    #[test]
    fn consensus_with_mixed_votes() {
        assert!(!consensus_taken(Consensus::None, 0b1111, 0b0100));
        assert!(consensus_taken(Consensus::Any, 0b1111, 0b0100));
        assert!(!consensus_taken(Consensus::All, 0b1111, 0b0100));
        assert!(consensus_taken(Consensus::All, 0b0100, 0b0100));
    }

    #[test]
    fn constants_split_into_movi_movhi() {
        assert_eq!(split_constant(5), (5, None));
        assert_eq!(split_constant(u32::MAX), (-1, None));
        assert_eq!(split_constant(0x1234_5678), (0x5678, Some(0x1234)));
    }
}
