//! Global value numbering: a pure instruction that recomputes a value
//! already computed in a dominating position is removed and its uses read
//! the earlier result (common-subexpression elimination along the dominator
//! tree).
//!
//! The walk goes down the dominator tree with a scoped table from
//! "operation, operands, result type" to the value computing it: what a
//! block adds is visible in the blocks it dominates and forgotten when the
//! walk leaves its subtree, so siblings (the two arms of an `if`) never
//! share a value. Operands are looked up after earlier replacements, so
//! chains of equal computations collapse in one walk. Commutative operations
//! sort their operands and `icmp` puts the lower-numbered operand first
//! (mirroring the comparison), so `a+b`/`b+a` and `a<b`/`b>a` meet.
//!
//! Only pure instructions take part: not loads (memory may change in
//! between), not clock reads, not calls, not atomics and not votes (a vote's
//! result depends on which threads execute it together), see
//! [`InstData::has_side_effects`] and [`InstData::reads_state`]. Constants do
//! take part, so each constant is materialised once per dominator subtree.
//!
//! Where it sits: in the clean-up loop of [`super::pipeline`], after
//! [`super::const_fold`] (which canonicalises constants first) and before
//! [`super::dce`].

use std::collections::HashMap;

use concord_isa::instr::Cmp;

use super::util::{func_ids, Aliases};
use crate::dominator_tree::DominatorTree;
use crate::flowgraph::ControlFlowGraph;
use crate::ir::{Block, Function, InstData, Module, Type, Value};

/// Runs GVN on every function of the module. Returns whether anything
/// changed.
pub fn run(module: &mut Module) -> bool {
    let mut changed = false;
    for id in func_ids(module) {
        changed |= run_function(module.func_mut(id));
    }
    changed
}

/// Whether GVN may merge two executions of this instruction.
fn is_numberable(data: &InstData) -> bool {
    !data.has_side_effects() && !data.reads_state()
}

/// `b cmp' a` equivalent to `a cmp b`.
fn mirrored(cmp: Cmp) -> Cmp {
    match cmp {
        Cmp::Eq => Cmp::Eq,
        Cmp::Ne => Cmp::Ne,
        Cmp::Lt => Cmp::Gt,
        Cmp::Gt => Cmp::Lt,
        Cmp::Le => Cmp::Ge,
        Cmp::Ge => Cmp::Le,
        Cmp::LtU => Cmp::GtU,
        Cmp::GtU => Cmp::LtU,
        Cmp::LeU => Cmp::GeU,
        Cmp::GeU => Cmp::LeU,
    }
}

/// The canonical form of an instruction's operation and operands.
fn canonical(data: &InstData) -> InstData {
    match *data {
        InstData::Binary { op, args: [a, b] } if op.is_commutative() && b < a => {
            InstData::Binary { op, args: [b, a] }
        }
        InstData::Icmp { cmp, args: [a, b] } if b < a => InstData::Icmp {
            cmp: mirrored(cmp),
            args: [b, a],
        },
        ref other => other.clone(),
    }
}

/// Runs GVN on one function.
pub fn run_function(func: &mut Function) -> bool {
    let cfg = ControlFlowGraph::compute(func);
    let domtree = DominatorTree::compute(func, &cfg);
    let Some(entry) = func.entry_block() else {
        return false;
    };
    if !domtree.is_reachable(entry) {
        return false;
    }
    let mut table: HashMap<(InstData, Type), Value> = HashMap::new();
    // Keys added by the blocks on the current dominator-tree path, in order,
    // so leaving a subtree can forget them.
    let mut undo: Vec<(InstData, Type)> = Vec::new();
    let mut aliases = Aliases::default();

    enum Step {
        Enter(Block),
        Leave(usize),
    }
    let mut stack = vec![Step::Enter(entry)];
    while let Some(step) = stack.pop() {
        let b = match step {
            Step::Leave(mark) => {
                for key in undo.drain(mark..) {
                    table.remove(&key);
                }
                continue;
            }
            Step::Enter(b) => b,
        };
        stack.push(Step::Leave(undo.len()));
        for &child in domtree.children(b).iter().rev() {
            stack.push(Step::Enter(child));
        }
        let Some(block) = func.blocks.get(b.index()) else {
            continue;
        };
        let mut kept = Vec::with_capacity(block.insts.len());
        for inst in block.insts.clone() {
            let Some(node) = func.insts.get_mut(inst.index()) else {
                kept.push(inst);
                continue;
            };
            aliases.rewrite(&mut node.data);
            let result = match node.result {
                Some(r) if is_numberable(&node.data) => r,
                _ => {
                    kept.push(inst);
                    continue;
                }
            };
            let key = (canonical(&node.data), func.value_type(result));
            match table.get(&key) {
                Some(&earlier) => aliases.insert(result, earlier),
                None => {
                    table.insert(key.clone(), result);
                    undo.push(key);
                    kept.push(inst);
                }
            }
        }
        func.blocks[b.index()].insts = kept;
    }
    aliases.apply(func);
    !aliases.is_empty()
}
