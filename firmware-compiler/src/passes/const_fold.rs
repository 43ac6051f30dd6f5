//! Constant folding, algebraic simplification and strength reduction.
//!
//! What it does, instruction by instruction (in layout order, repeated until
//! nothing changes):
//!
//! * operations on constants become constants, with exactly the IR's
//!   semantics: the interpreter's [`crate::interp::ops`] (which defers to
//!   `concord_isa::semantics` for everything the ISA has) and
//!   [`concord_isa::semantics::compare`], so wrapping arithmetic, shifts
//!   modulo 32 and division by the rules of [`BinaryOp`] have one
//!   definition (a quotient of `-1` and a remainder equal to the dividend
//!   for a zero divisor, also when only the divisor is constant;
//!   `i32::MIN / -1 == i32::MIN`);
//! * identities: `x+0`, `x-0`, `x*1`, `x/1`, `x|0`, `x^0`, `x&-1`, `x<<0`
//!   give `x`; `x*0`, `x&0`, `x-x`, `x^x`, `x%1` give `0`; `x&x`, `x|x`,
//!   `min(x,x)` give `x`; the `i1` forms of `and`/`or`/`xor` with `true` and
//!   `false`; `icmp` of a value with itself; `icmp ne (bint b), 0` and
//!   `icmp eq (bint b), 1` give `b` (their negations `bnot b`); double
//!   `bnot`/`ineg`; `select` with a constant condition or equal arms,
//!   `select c, true, false` (`c`), `select c, 1, 0` (`bint c`);
//! * strength reduction: `x * 2^k` becomes `x << k`, `x udiv 2^k` becomes
//!   `x >> k` (logical) and `x urem 2^k` becomes `x & (2^k-1)`. Signed
//!   division is left alone (it rounds towards zero, a shift does not);
//! * `brif` on a constant becomes a `jump` to the taken target. The other
//!   target may become unreachable; [`super::dce`] and
//!   [`super::simplify_cfg`] remove it.
//!
//! Where it sits: right after [`super::mem2reg`] (which exposes the
//! constants the front end stored into variables) and again in the
//! clean-up loop of [`super::pipeline`], since inlining and CFG
//! simplification expose new constants. Folding never deletes a side effect
//! and does not look through block parameters (that would be sparse
//! conditional constant propagation, which we do not do); results replaced
//! by another value are removed, their uses redirected.

use concord_isa::instr::Cmp;
use concord_isa::semantics::compare;

use super::util::{bconst_value, func_ids, iconst_value, Aliases};
use crate::interp::ops::{eval_binary, eval_unary};
use crate::ir::{BinaryOp, Function, Inst, InstData, Module, Type, UnaryOp, Value};

/// Folds every function of the module. Returns whether anything changed.
pub fn run(module: &mut Module) -> bool {
    let mut changed = false;
    for id in func_ids(module) {
        changed |= run_function(module.func_mut(id));
    }
    changed
}

/// Folds one function until nothing more folds.
pub fn run_function(func: &mut Function) -> bool {
    let mut changed = false;
    // Every round strictly shrinks or simplifies the function; the bound only
    // keeps a bug from turning into a hang.
    for _ in 0..64 {
        if !fold_round(func) {
            break;
        }
        changed = true;
    }
    changed
}

/// What an instruction simplifies to.
enum Simplified {
    /// An `i32` constant: the instruction becomes an `iconst`.
    Int(i32),
    /// An `i1` constant: the instruction becomes a `bconst`.
    Bool(bool),
    /// An existing value: uses of the result are redirected, the
    /// instruction removed.
    Value(Value),
    /// A cheaper instruction with the same result.
    Inst(InstData),
    /// `op x, k` with a new `iconst k` placed just before: strength
    /// reduction.
    WithConst { op: BinaryOp, x: Value, k: i32 },
}

fn fold_round(func: &mut Function) -> bool {
    let mut changed = false;
    let mut aliases = Aliases::default();
    for pos in 0..func.layout.len() {
        let b = func.layout[pos];
        if func.blocks.get(b.index()).is_none() {
            continue;
        }
        let mut k = 0;
        while k < func.blocks[b.index()].insts.len() {
            let inst = func.blocks[b.index()].insts[k];
            let Some(node) = func.insts.get_mut(inst.index()) else {
                k += 1;
                continue;
            };
            aliases.rewrite(&mut node.data);
            let Some(simplified) = simplify(func, inst) else {
                k += 1;
                continue;
            };
            changed = true;
            match simplified {
                Simplified::Int(imm) => {
                    *func.inst_mut(inst) = InstData::Iconst { imm };
                    k += 1;
                }
                Simplified::Bool(imm) => {
                    *func.inst_mut(inst) = InstData::Bconst { imm };
                    k += 1;
                }
                Simplified::Value(v) => match func.inst_result(inst) {
                    Some(result) => {
                        aliases.insert(result, v);
                        func.blocks[b.index()].insts.remove(k);
                    }
                    None => k += 1,
                },
                Simplified::Inst(data) => {
                    *func.inst_mut(inst) = data;
                    k += 1;
                }
                Simplified::WithConst { op, x, k: imm } => {
                    let c = func.insert_inst(b, k, InstData::Iconst { imm }, Some(Type::I32));
                    func.set_inst_loc(c, func.inst_loc(inst));
                    let amount = func.inst_result(c).expect("iconst has a result");
                    *func.inst_mut(inst) = InstData::Binary {
                        op,
                        args: [x, amount],
                    };
                    k += 2;
                }
            }
        }
    }
    aliases.apply(func);
    changed
}

fn simplify(func: &Function, inst: Inst) -> Option<Simplified> {
    match *func.inst(inst) {
        InstData::Binary { op, args: [a, b] } => {
            if func.inst_result(inst).map(|r| func.value_type(r)) == Some(Type::I1) {
                simplify_bool_binary(func, op, a, b)
            } else {
                simplify_int_binary(func, op, a, b)
            }
        }
        InstData::Unary { op, arg } => simplify_unary(func, op, arg),
        InstData::Icmp { cmp, args: [a, b] } => simplify_icmp(func, cmp, a, b),
        InstData::Select {
            cond,
            if_true,
            if_false,
        } => simplify_select(func, cond, if_true, if_false),
        InstData::Brif {
            cond,
            ref then_dest,
            ref else_dest,
        } => {
            let taken = bconst_value(func, cond)?;
            let dest = if taken { then_dest } else { else_dest };
            Some(Simplified::Inst(InstData::Jump { dest: dest.clone() }))
        }
        _ => None,
    }
}

/// `log2(c)` when `c` is a power of two greater than one (as unsigned).
fn power_of_two_shift(c: i32) -> Option<i32> {
    let c = c as u32;
    (c > 1 && c.is_power_of_two()).then(|| c.trailing_zeros() as i32)
}

fn simplify_int_binary(func: &Function, op: BinaryOp, a: Value, b: Value) -> Option<Simplified> {
    let ca = iconst_value(func, a);
    let cb = iconst_value(func, b);
    if let (Some(x), Some(y)) = (ca, cb) {
        return Some(Simplified::Int(eval_binary(op, x as u32, y as u32) as i32));
    }
    // Commutative operations: look at the constant on the right.
    let (x, c) = match (ca, cb) {
        (Some(c), None) if op.is_commutative() => (b, Some(c)),
        _ => (a, cb),
    };
    use Simplified::{Int, Value as Same, WithConst};
    let same = a == b;
    match (op, c) {
        (BinaryOp::Add | BinaryOp::Sub | BinaryOp::Or | BinaryOp::Xor, Some(0)) => Some(Same(x)),
        (BinaryOp::Sub | BinaryOp::Xor, None) if same => Some(Int(0)),
        (BinaryOp::Mul | BinaryOp::And | BinaryOp::MulHi | BinaryOp::MulHiU, Some(0)) => {
            Some(Int(0))
        }
        (BinaryOp::Mul | BinaryOp::SDiv | BinaryOp::UDiv, Some(1)) => Some(Same(x)),
        (BinaryOp::MulHiU, Some(1)) => Some(Int(0)),
        (BinaryOp::Mul, Some(c)) => power_of_two_shift(c).map(|k| WithConst {
            op: BinaryOp::Shl,
            x,
            k,
        }),
        // Division by a constant zero: the IR's rule, whatever the dividend.
        (BinaryOp::SDiv | BinaryOp::UDiv, Some(0)) => Some(Int(-1)),
        (BinaryOp::SRem | BinaryOp::URem, Some(0)) => Some(Same(x)),
        (BinaryOp::SRem | BinaryOp::URem, Some(1)) => Some(Int(0)),
        // `x % -1` is 0 for every x (`i32::MIN % -1` included, by the IR's rule).
        (BinaryOp::SRem, Some(-1)) => Some(Int(0)),
        (BinaryOp::SRem | BinaryOp::URem | BinaryOp::SDiv | BinaryOp::UDiv, None) if same => {
            // x/x is 1 except for x == 0 (-1), x%x is 0 except for x == 0 (x,
            // which is 0 too): only the remainder folds.
            matches!(op, BinaryOp::SRem | BinaryOp::URem).then_some(Int(0))
        }
        (BinaryOp::UDiv, Some(c)) => power_of_two_shift(c).map(|k| WithConst {
            op: BinaryOp::LShr,
            x,
            k,
        }),
        (BinaryOp::URem, Some(c)) => power_of_two_shift(c).map(|_| WithConst {
            op: BinaryOp::And,
            x,
            k: c.wrapping_sub(1),
        }),
        (BinaryOp::And, Some(-1)) => Some(Same(x)),
        (BinaryOp::Or, Some(-1)) => Some(Int(-1)),
        (
            BinaryOp::And
            | BinaryOp::Or
            | BinaryOp::SMin
            | BinaryOp::SMax
            | BinaryOp::UMin
            | BinaryOp::UMax,
            None,
        ) if same => Some(Same(a)),
        (BinaryOp::UMin, Some(0)) => Some(Int(0)),
        (BinaryOp::UMax, Some(0)) => Some(Same(x)),
        (BinaryOp::Shl | BinaryOp::LShr | BinaryOp::AShr, Some(c)) if c & 31 == 0 => Some(Same(a)),
        // Shifting zero gives zero (and all ones stays all ones arithmetically).
        (BinaryOp::Shl | BinaryOp::LShr | BinaryOp::AShr, None) if ca == Some(0) => Some(Int(0)),
        (BinaryOp::AShr, None) if ca == Some(-1) => Some(Int(-1)),
        _ => None,
    }
}

fn simplify_bool_binary(func: &Function, op: BinaryOp, a: Value, b: Value) -> Option<Simplified> {
    let ca = bconst_value(func, a);
    let cb = bconst_value(func, b);
    if let (Some(x), Some(y)) = (ca, cb) {
        return Some(Simplified::Bool(match op {
            BinaryOp::And => x & y,
            BinaryOp::Or => x | y,
            BinaryOp::Xor => x ^ y,
            _ => return None,
        }));
    }
    // and/or/xor are commutative: put the constant on the right.
    let (x, c) = match (ca, cb) {
        (Some(c), None) => (b, Some(c)),
        _ => (a, cb),
    };
    match (op, c) {
        (BinaryOp::And, Some(true)) | (BinaryOp::Or | BinaryOp::Xor, Some(false)) => {
            Some(Simplified::Value(x))
        }
        (BinaryOp::And, Some(false)) => Some(Simplified::Bool(false)),
        (BinaryOp::Or, Some(true)) => Some(Simplified::Bool(true)),
        (BinaryOp::Xor, Some(true)) => Some(Simplified::Inst(InstData::Unary {
            op: UnaryOp::Not,
            arg: x,
        })),
        (BinaryOp::And | BinaryOp::Or, None) if a == b => Some(Simplified::Value(a)),
        (BinaryOp::Xor, None) if a == b => Some(Simplified::Bool(false)),
        _ => None,
    }
}

/// The operand of `v` if `v` is the result of `op operand`.
fn unary_operand(func: &Function, v: Value, op: UnaryOp) -> Option<Value> {
    match func.value_def(v) {
        crate::ir::ValueDef::Result(i) => match *func.inst(i) {
            InstData::Unary { op: o, arg } if o == op => Some(arg),
            _ => None,
        },
        crate::ir::ValueDef::Param(..) => None,
    }
}

fn simplify_unary(func: &Function, op: UnaryOp, arg: Value) -> Option<Simplified> {
    if let Some(b) = bconst_value(func, arg) {
        return match op {
            UnaryOp::Not => Some(Simplified::Bool(!b)),
            UnaryOp::BoolToInt => Some(Simplified::Int(i32::from(b))),
            _ => None,
        };
    }
    if let Some(c) = iconst_value(func, arg) {
        // `bint` takes an i1; an iconst operand is ill-typed, left to the verifier.
        return (op != UnaryOp::BoolToInt)
            .then(|| Simplified::Int(eval_unary(op, Type::I32, c as u32) as i32));
    }
    match op {
        UnaryOp::Not | UnaryOp::Neg => unary_operand(func, arg, op).map(Simplified::Value),
        _ => None,
    }
}

/// `icmp cmp a, a`.
fn compare_with_itself(cmp: Cmp) -> bool {
    matches!(cmp, Cmp::Eq | Cmp::Le | Cmp::Ge | Cmp::LeU | Cmp::GeU)
}

fn simplify_icmp(func: &Function, cmp: Cmp, a: Value, b: Value) -> Option<Simplified> {
    let ca = iconst_value(func, a);
    let cb = iconst_value(func, b);
    if let (Some(x), Some(y)) = (ca, cb) {
        return Some(Simplified::Bool(compare(cmp, x as u32, y as u32)));
    }
    if a == b {
        return Some(Simplified::Bool(compare_with_itself(cmp)));
    }
    // `bint b` compared with 0 or 1 for (in)equality is `b` or `bnot b`.
    if matches!(cmp, Cmp::Eq | Cmp::Ne) {
        let (x, c) = match (ca, cb) {
            (Some(c), None) => (b, c),
            (None, Some(c)) => (a, c),
            _ => return None,
        };
        let flag = unary_operand(func, x, UnaryOp::BoolToInt)?;
        // Whether the comparison is true exactly when `flag` is.
        let same_sense = match (cmp, c) {
            (Cmp::Ne, 0) | (Cmp::Eq, 1) => true,
            (Cmp::Eq, 0) | (Cmp::Ne, 1) => false,
            // `bint` is 0 or 1: any other constant decides the comparison.
            (cmp, _) => return Some(Simplified::Bool(cmp == Cmp::Ne)),
        };
        return Some(if same_sense {
            Simplified::Value(flag)
        } else {
            Simplified::Inst(InstData::Unary {
                op: UnaryOp::Not,
                arg: flag,
            })
        });
    }
    // Unsigned comparisons against zero on the right.
    match (cmp, cb) {
        (Cmp::LtU, Some(0)) => Some(Simplified::Bool(false)),
        (Cmp::GeU, Some(0)) => Some(Simplified::Bool(true)),
        _ => None,
    }
}

fn simplify_select(
    func: &Function,
    cond: Value,
    if_true: Value,
    if_false: Value,
) -> Option<Simplified> {
    if let Some(c) = bconst_value(func, cond) {
        return Some(Simplified::Value(if c { if_true } else { if_false }));
    }
    if if_true == if_false {
        return Some(Simplified::Value(if_true));
    }
    let not = |arg| {
        Some(Simplified::Inst(InstData::Unary {
            op: UnaryOp::Not,
            arg,
        }))
    };
    match (bconst_value(func, if_true), bconst_value(func, if_false)) {
        (Some(true), Some(false)) => return Some(Simplified::Value(cond)),
        (Some(false), Some(true)) => return not(cond),
        _ => {}
    }
    match (iconst_value(func, if_true), iconst_value(func, if_false)) {
        (Some(1), Some(0)) => Some(Simplified::Inst(InstData::Unary {
            op: UnaryOp::BoolToInt,
            arg: cond,
        })),
        _ => None,
    }
}
