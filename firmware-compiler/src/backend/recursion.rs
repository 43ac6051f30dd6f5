//! Depth bounds for self-recursive functions, so that the per-thread stack
//! of a recursive kernel is sized from the program instead of a guess.
//!
//! Part of the back end's stack sizing ([`super::frame::stack_size`]): a
//! call graph with a cycle has no deepest chain, and a stack that is too
//! small silently runs into the next thread's stack (overflow is not
//! detected), so a recursion whose depth *can* be bounded must be.
//!
//! The recognised shape is the usual counted recursion:
//!
//! * the function's entry block ends in `brif (icmp p, c), T, E` on one of
//!   its parameters `p` and a constant `c`, and one of the two targets
//!   (the *guarded* block, entered from outside itself only by that edge:
//!   its other predecessors are back edges of a loop it heads) can only be
//!   reached with `p >= 1` (signed): `p <= 0` → base case, `p > 0` →
//!   recursion, and the other signed comparisons that say the same;
//! * every call of the function to itself sits in a block dominated by the
//!   guarded block and passes `p - k` (`isub p, k` or `iadd p, -k`,
//!   `k >= 1`) for that parameter: from `p >= 1`, the argument is smaller
//!   and cannot wrap around;
//! * every call from another function passes, for that parameter, a value
//!   with a known upper bound `h`: a constant, `x & y` where `y` is known to
//!   lie in `0..=m`, `x urem m` (`m > 0`, bound `m - 1`), `smin x, m`, a
//!   bool converted to an integer, an 8- or 16-bit zero extension, a
//!   logical shift right by a constant, or a `select` of two bounded
//!   values.
//!
//! A call with `p <= h` then makes at most `max(h, 0) + 1` nested frames of
//! the function (the last one with `p <= 0` takes the base case or returns
//! without recursing). Anything else (mutual recursion, an unknown
//! argument) gets no bound, and the stack falls back to
//! [`super::frame::DEFAULT_RECURSIVE_STACK`].

use std::collections::HashMap;

use concord_isa::instr::Cmp;

use crate::dominator_tree::DominatorTree;
use crate::flowgraph::ControlFlowGraph;
use crate::ir::{BinaryOp, Block, FuncId, Function, InstData, Module, UnaryOp, Value, ValueDef};

/// For each self-recursive function among `funcs` whose depth is bounded,
/// the largest number of its frames that can be nested on one thread's
/// stack. Calls from functions outside `funcs` are not looked at: `funcs`
/// must be every function reachable from the kernel.
pub fn self_recursion_frames(module: &Module, funcs: &[FuncId]) -> HashMap<FuncId, u64> {
    let mut bounds = HashMap::new();
    for &f in funcs {
        let Some(func) = module.funcs.get(f.index()) else {
            continue;
        };
        let self_calls = call_sites(func, f);
        if self_calls.is_empty() {
            continue;
        }
        let Some(param) = decreasing_parameter(func, &self_calls) else {
            continue;
        };
        // The largest value any outside caller passes for that parameter.
        let mut highest: Option<i64> = Some(0);
        for &g in funcs.iter().filter(|&&g| g != f) {
            let Some(caller) = module.funcs.get(g.index()) else {
                continue;
            };
            for (_, args) in call_sites(caller, f) {
                let bound = args
                    .get(param)
                    .and_then(|&v| upper_bound(caller, v))
                    .map(i64::from);
                highest = match (highest, bound) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    _ => None,
                };
            }
        }
        if let Some(h) = highest {
            bounds.insert(f, h.max(0) as u64 + 1);
        }
    }
    bounds
}

/// Every call to `callee` in `func` (laid-out blocks): the calling block
/// and the arguments.
fn call_sites(func: &Function, callee: FuncId) -> Vec<(Block, Vec<Value>)> {
    func.laid_out_insts()
        .filter_map(|(b, i)| match func.inst(i) {
            InstData::Call { func: c, args } if *c == callee => Some((b, args.clone())),
            _ => None,
        })
        .collect()
}

/// The index of the entry parameter that every self call decreases under
/// the entry's `p >= 1` guard, if there is one.
fn decreasing_parameter(func: &Function, self_calls: &[(Block, Vec<Value>)]) -> Option<usize> {
    let entry = func.entry_block()?;
    let cfg = ControlFlowGraph::compute(func);
    if !cfg.preds(entry).is_empty() {
        return None;
    }
    let domtree = DominatorTree::compute(func, &cfg);
    let (param_value, guarded) = positive_guard(func, &cfg, &domtree, entry)?;
    let param = func
        .block(entry)
        .params
        .iter()
        .position(|&p| p == param_value)?;
    let all_decrease = self_calls.iter().all(|(block, args)| {
        domtree.dominates(guarded, *block)
            && args
                .get(param)
                .is_some_and(|&a| is_decrement_of(func, a, param_value))
    });
    all_decrease.then_some(param)
}

/// The entry's guard: `(p, guarded block)` when the entry ends in a branch
/// on a signed comparison of an entry parameter `p` with a constant and one
/// target implies `p >= 1`, and that target is entered from the entry only
/// by that edge (its other predecessors are back edges of a loop it heads,
/// as when the function body starts with a loop).
fn positive_guard(
    func: &Function,
    cfg: &ControlFlowGraph,
    domtree: &DominatorTree,
    entry: Block,
) -> Option<(Value, Block)> {
    let term = func.terminator(entry)?;
    let InstData::Brif {
        cond,
        then_dest,
        else_dest,
    } = func.inst(term)
    else {
        return None;
    };
    if then_dest.block == else_dest.block {
        return None;
    }
    let ValueDef::Result(def) = func.value_def(*cond) else {
        return None;
    };
    let InstData::Icmp { cmp, args } = func.inst(def) else {
        return None;
    };
    let is_entry_param = |v: Value| func.block(entry).params.contains(&v);
    // Normalise to `p cmp c`.
    let (p, cmp, c) = match (iconst(func, args[0]), iconst(func, args[1])) {
        (None, Some(c)) if is_entry_param(args[0]) => (args[0], *cmp, c),
        (Some(c), None) if is_entry_param(args[1]) => (args[1], swapped(*cmp)?, c),
        _ => return None,
    };
    let c = i64::from(c);
    // Smallest `p` on each side of the branch (None: unbounded below).
    let (min_if_true, min_if_false) = match cmp {
        Cmp::Lt => (None, Some(c)),
        Cmp::Le => (None, Some(c + 1)),
        Cmp::Gt => (Some(c + 1), None),
        Cmp::Ge => (Some(c), None),
        _ => return None,
    };
    let guarded = if min_if_true.is_some_and(|m| m >= 1) {
        then_dest.block
    } else if min_if_false.is_some_and(|m| m >= 1) {
        else_dest.block
    } else {
        return None;
    };
    let only_entered_by_the_edge = guarded != entry
        && cfg
            .preds(guarded)
            .iter()
            .all(|&b| b == entry || domtree.dominates(guarded, b));
    only_entered_by_the_edge.then_some((p, guarded))
}

/// `a cmp b` as `b cmp' a`.
fn swapped(cmp: Cmp) -> Option<Cmp> {
    Some(match cmp {
        Cmp::Lt => Cmp::Gt,
        Cmp::Le => Cmp::Ge,
        Cmp::Gt => Cmp::Lt,
        Cmp::Ge => Cmp::Le,
        _ => return None,
    })
}

fn iconst(func: &Function, v: Value) -> Option<i32> {
    match func.value_def(v) {
        ValueDef::Result(i) => match func.inst(i) {
            InstData::Iconst { imm } => Some(*imm),
            _ => None,
        },
        ValueDef::Param(..) => None,
    }
}

/// Whether `v` is `p - k` for a constant `k >= 1`.
fn is_decrement_of(func: &Function, v: Value, p: Value) -> bool {
    let ValueDef::Result(i) = func.value_def(v) else {
        return false;
    };
    match func.inst(i) {
        InstData::Binary {
            op: BinaryOp::Sub,
            args: [a, b],
        } => *a == p && iconst(func, *b).is_some_and(|k| k >= 1),
        InstData::Binary {
            op: BinaryOp::Add,
            args: [a, b],
        } => {
            (*a == p && iconst(func, *b).is_some_and(|k| k <= -1))
                || (*b == p && iconst(func, *a).is_some_and(|k| k <= -1))
        }
        _ => false,
    }
}

/// Definitions looked at per bound: enough for the argument expressions of
/// real recursions, and a cap on the recursion and the work (both operands
/// of `smin`, `and` or `select` are followed) that a long chain of them
/// would cost. Out of fuel, a value has no known bound.
const BOUND_FUEL: u32 = 64;

/// An upper bound on the signed value of `v`.
fn upper_bound(func: &Function, v: Value) -> Option<i32> {
    let mut fuel = BOUND_FUEL;
    upper_bound_with(func, v, &mut fuel)
}

fn upper_bound_with(func: &Function, v: Value, fuel: &mut u32) -> Option<i32> {
    *fuel = fuel.checked_sub(1)?;
    if let Some(c) = iconst(func, v) {
        return Some(c);
    }
    if let Some(m) = nonnegative_bound_with(func, v, fuel) {
        return Some(m);
    }
    let ValueDef::Result(i) = func.value_def(v) else {
        return None;
    };
    match func.inst(i) {
        InstData::Binary {
            op: BinaryOp::SMin,
            args: [a, b],
        } => match (
            upper_bound_with(func, *a, fuel),
            upper_bound_with(func, *b, fuel),
        ) {
            (Some(m), Some(n)) => Some(m.min(n)),
            (Some(m), None) | (None, Some(m)) => Some(m),
            (None, None) => None,
        },
        InstData::Select {
            if_true, if_false, ..
        } => Some(
            upper_bound_with(func, *if_true, fuel)?.max(upper_bound_with(func, *if_false, fuel)?),
        ),
        _ => None,
    }
}

/// `m` when `v` is known to lie in `0..=m`.
fn nonnegative_bound_with(func: &Function, v: Value, fuel: &mut u32) -> Option<i32> {
    *fuel = fuel.checked_sub(1)?;
    if let Some(c) = iconst(func, v) {
        return (c >= 0).then_some(c);
    }
    let ValueDef::Result(i) = func.value_def(v) else {
        return None;
    };
    match func.inst(i) {
        InstData::Unary { op, .. } => match op {
            UnaryOp::BoolToInt => Some(1),
            UnaryOp::Zext8 => Some(0xff),
            UnaryOp::Zext16 => Some(0xffff),
            _ => None,
        },
        InstData::Binary { op, args: [a, b] } => {
            let cb = iconst(func, *b);
            match op {
                // `x & y` lies in `0..=m` when either operand does.
                BinaryOp::And => match (
                    nonnegative_bound_with(func, *a, fuel),
                    nonnegative_bound_with(func, *b, fuel),
                ) {
                    (Some(m), Some(n)) => Some(m.min(n)),
                    (Some(m), None) | (None, Some(m)) => Some(m),
                    (None, None) => None,
                },
                // `x urem m` lies in `0..m` (and `x urem 0 = x`, unbounded).
                BinaryOp::URem => cb.filter(|&m| m > 0).map(|m| m - 1),
                // A logical shift right by `k >= 1` clears the sign bit.
                BinaryOp::LShr => cb
                    .filter(|k| (1..32).contains(k))
                    .map(|k| (u32::MAX >> k) as i32),
                _ => None,
            }
        }
        InstData::Select {
            if_true, if_false, ..
        } => Some(
            nonnegative_bound_with(func, *if_true, fuel)?
                .max(nonnegative_bound_with(func, *if_false, fuel)?),
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds(text: &str) -> Vec<(String, u64)> {
        let module = crate::ir::parse_module(text, "t.cir").expect("parses");
        let ids: Vec<FuncId> = (0..module.funcs.len()).map(|i| FuncId(i as u32)).collect();
        let mut out: Vec<(String, u64)> = self_recursion_frames(&module, &ids)
            .into_iter()
            .map(|(f, n)| (module.func(f).name.clone(), n))
            .collect();
        out.sort();
        out
    }

    const COUNTDOWN: &str = "
func @down(i32) -> i32 {
block0(v0: i32):
    v1 = iconst 0
    v2 = icmp le v0, v1
    brif v2, block1, block2
block1:
    return v1
block2:
    v3 = iconst 1
    v4 = isub v0, v3
    v5 = call @down(v4)
    return v5
}
";

    /// `down(3)`: frames for 3, 2, 1 and 0.
    #[test]
    fn a_constant_argument_bounds_the_depth() {
        let text = format!(
            "kernel @k() {{
block0:
    v0 = iconst 3
    v1 = call @down(v0)
    return
}}
{COUNTDOWN}"
        );
        assert_eq!(bounds(&text), vec![("down".to_string(), 4)]);
    }

    /// `down(tid & 7)`: at most 8 frames.
    #[test]
    fn a_masked_argument_bounds_the_depth() {
        let text = format!(
            "kernel @k() {{
block0:
    v0 = special tid.x
    v1 = iconst 7
    v2 = band v0, v1
    v3 = call @down(v2)
    return
}}
{COUNTDOWN}"
        );
        assert_eq!(bounds(&text), vec![("down".to_string(), 8)]);
    }

    #[test]
    fn an_unknown_argument_gives_no_bound() {
        let text = format!(
            "kernel @k() {{
block0:
    v0 = special tid.x
    v1 = call @down(v0)
    return
}}
{COUNTDOWN}"
        );
        assert_eq!(bounds(&text), vec![]);
    }

    /// The recursive call passes `p + 1`: no bound.
    #[test]
    fn an_increasing_argument_gives_no_bound() {
        let text = "
kernel @k() {
block0:
    v0 = iconst 3
    v1 = call @up(v0)
    return
}
func @up(i32) -> i32 {
block0(v0: i32):
    v1 = iconst 0
    v2 = icmp le v0, v1
    brif v2, block1, block2
block1:
    return v1
block2:
    v3 = iconst 1
    v4 = iadd v0, v3
    v5 = call @up(v4)
    return v5
}
";
        assert_eq!(bounds(text), vec![]);
    }

    /// The guard `p < 0` lets `p = 0` recurse to -1, -2, ...: no bound.
    #[test]
    fn a_guard_that_admits_zero_gives_no_bound() {
        let text = "
kernel @k() {
block0:
    v0 = iconst 3
    v1 = call @down(v0)
    return
}
func @down(i32) -> i32 {
block0(v0: i32):
    v1 = iconst 0
    v2 = icmp lt v0, v1
    brif v2, block1, block2
block1:
    return v1
block2:
    v3 = iconst 1
    v4 = isub v0, v3
    v5 = call @down(v4)
    return v5
}
";
        assert_eq!(bounds(text), vec![]);
    }

    /// `down(c ? (x & 1) : bint(y < 0))`: a select of a masked value and a
    /// bool, at most 2 frames; a `select` with an unbounded arm gives none.
    #[test]
    fn selects_and_bools_bound_the_depth() {
        let kernel = |arm: &str| {
            format!(
                "kernel @k() {{
block0:
    v0 = special tid.x
    v1 = iconst 1
    v2 = band v0, v1
    v3 = iconst 0
    v4 = icmp lt v0, v3
    v5 = bint v4
    v6 = select v4, {arm}, v5
    v7 = call @down(v6)
    return
}}
{COUNTDOWN}"
            )
        };
        assert_eq!(bounds(&kernel("v2")), vec![("down".to_string(), 2)]);
        assert_eq!(bounds(&kernel("v0")), vec![]);
    }

    /// The body after the guard starts with a loop (a local array filled
    /// before the recursive call), so the guarded block has a back edge
    /// too: still `p >= 1` wherever it dominates. A predecessor that
    /// bypasses the guard (entered from the `p <= 0` side) gives no bound.
    #[test]
    fn a_guarded_block_may_head_a_loop() {
        let func = |bypass: bool| {
            let base = if bypass {
                "block1:\n    jump block2(v1)"
            } else {
                "block1:\n    return v1"
            };
            format!(
                "kernel @k() {{
block0:
    v0 = iconst 3
    v1 = call @down(v0)
    return
}}
func @down(i32) -> i32 {{
block0(v0: i32):
    v1 = iconst 0
    v2 = icmp le v0, v1
    brif v2, block1, block2(v1)
{base}
block2(v3: i32):
    v4 = iconst 4
    v5 = icmp lt v3, v4
    brif v5, block3, block4
block3:
    v6 = iconst 1
    v7 = iadd v3, v6
    jump block2(v7)
block4:
    v8 = iconst 1
    v9 = isub v0, v8
    v10 = call @down(v9)
    return v10
}}
"
            )
        };
        assert_eq!(bounds(&func(false)), vec![("down".to_string(), 4)]);
        assert_eq!(bounds(&func(true)), vec![]);
    }
}
