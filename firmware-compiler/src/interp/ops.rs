//! What the IR's data operations compute on 32-bit values: the definition
//! of [`BinaryOp`] and [`UnaryOp`] results, shared by the interpreter and
//! by anything that evaluates IR at compile time (constant folding).
//!
//! Operations that the ISA also has defer to `concord_isa::semantics`, so
//! the IR and the machine cannot disagree on them; division and remainder,
//! which the ISA lacks, are defined here (RISC-V's rules, as documented on
//! [`BinaryOp`]).

use concord_isa::instr::AluOp;
use concord_isa::semantics;

use crate::ir::{BinaryOp, Type, UnaryOp};

/// `a op b`. `i1` operands (for `band`/`bor`/`bxor`) are 0 or 1 and the
/// result then is too.
pub fn eval_binary(op: BinaryOp, a: u32, b: u32) -> u32 {
    let alu = |alu_op| semantics::alu(alu_op, a, b);
    match op {
        BinaryOp::Add => alu(AluOp::Add),
        BinaryOp::Sub => alu(AluOp::Sub),
        BinaryOp::Mul => alu(AluOp::Mul),
        BinaryOp::MulHi => alu(AluOp::MulHi),
        BinaryOp::MulHiU => alu(AluOp::MulHiU),
        BinaryOp::And => alu(AluOp::And),
        BinaryOp::Or => alu(AluOp::Or),
        BinaryOp::Xor => alu(AluOp::Xor),
        BinaryOp::Shl => alu(AluOp::Shl),
        BinaryOp::LShr => alu(AluOp::Shr),
        BinaryOp::AShr => alu(AluOp::Sra),
        BinaryOp::SMin => alu(AluOp::Min),
        BinaryOp::SMax => alu(AluOp::Max),
        BinaryOp::UMin => alu(AluOp::MinU),
        BinaryOp::UMax => alu(AluOp::MaxU),
        BinaryOp::SDiv => {
            if b == 0 {
                u32::MAX
            } else {
                // wrapping_div: i32::MIN / -1 is i32::MIN.
                (a as i32).wrapping_div(b as i32) as u32
            }
        }
        BinaryOp::SRem => {
            if b == 0 {
                a
            } else {
                // wrapping_rem: i32::MIN % -1 is 0.
                (a as i32).wrapping_rem(b as i32) as u32
            }
        }
        BinaryOp::UDiv => a.checked_div(b).unwrap_or(u32::MAX),
        BinaryOp::URem => a.checked_rem(b).unwrap_or(a),
    }
}

/// `op a`, where `ty` is the operand's type (`bnot` is logical on `i1`).
pub fn eval_unary(op: UnaryOp, ty: Type, a: u32) -> u32 {
    match op {
        UnaryOp::Not => match ty {
            Type::I1 => u32::from(a == 0),
            Type::I32 => !a,
        },
        UnaryOp::Neg => a.wrapping_neg(),
        UnaryOp::Sext8 => a as u8 as i8 as i32 as u32,
        UnaryOp::Zext8 => a & 0xff,
        UnaryOp::Sext16 => a as u16 as i16 as i32 as u32,
        UnaryOp::Zext16 => a & 0xffff,
        UnaryOp::BoolToInt => u32::from(a != 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: u32 = i32::MIN as u32;
    const M1: u32 = -1i32 as u32;

    #[test]
    fn division_table() {
        // (op, a, b, expected), by hand.
        let table = [
            (BinaryOp::SDiv, 7, 2, 3),
            (BinaryOp::SDiv, -7i32 as u32, 2, -3i32 as u32),
            (BinaryOp::SDiv, 7, -2i32 as u32, -3i32 as u32),
            (BinaryOp::SDiv, 5, 0, M1),
            (BinaryOp::SDiv, MIN, M1, MIN),
            (BinaryOp::SRem, -7i32 as u32, 2, M1),
            (BinaryOp::SRem, 7, -2i32 as u32, 1),
            (BinaryOp::SRem, 5, 0, 5),
            (BinaryOp::SRem, MIN, M1, 0),
            (BinaryOp::UDiv, M1, 2, 0x7fff_ffff),
            (BinaryOp::UDiv, 5, 0, u32::MAX),
            (BinaryOp::URem, M1, 10, 5),
            (BinaryOp::URem, 5, 0, 5),
        ];
        for (op, a, b, want) in table {
            assert_eq!(eval_binary(op, a, b), want, "{} {a:#x}, {b:#x}", op.name());
        }
    }

    #[test]
    fn isa_backed_operations() {
        assert_eq!(eval_binary(BinaryOp::Shl, 1, 33), 2);
        assert_eq!(eval_binary(BinaryOp::AShr, MIN, 31), M1);
        assert_eq!(eval_binary(BinaryOp::LShr, MIN, 31), 1);
        assert_eq!(eval_binary(BinaryOp::MulHi, -2i32 as u32, 3), M1);
        assert_eq!(eval_binary(BinaryOp::UMin, M1, 1), 1);
        assert_eq!(eval_binary(BinaryOp::SMin, M1, 1), M1);
        assert_eq!(eval_binary(BinaryOp::Add, u32::MAX, 2), 1);
    }

    #[test]
    fn unary_operations() {
        assert_eq!(eval_unary(UnaryOp::Not, Type::I1, 1), 0);
        assert_eq!(eval_unary(UnaryOp::Not, Type::I1, 0), 1);
        assert_eq!(eval_unary(UnaryOp::Not, Type::I32, 0), u32::MAX);
        assert_eq!(eval_unary(UnaryOp::Neg, Type::I32, MIN), MIN);
        assert_eq!(eval_unary(UnaryOp::Sext8, Type::I32, 0x1ff), M1);
        assert_eq!(eval_unary(UnaryOp::Zext8, Type::I32, 0x1ff), 0xff);
        assert_eq!(eval_unary(UnaryOp::Sext16, Type::I32, 0x8000), 0xffff_8000);
        assert_eq!(eval_unary(UnaryOp::Zext16, Type::I32, 0x1_8000), 0x8000);
        assert_eq!(eval_unary(UnaryOp::BoolToInt, Type::I1, 1), 1);
    }
}
