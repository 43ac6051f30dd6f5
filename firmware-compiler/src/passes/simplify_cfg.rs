//! Control-flow graph simplification: fewer, longer blocks.
//!
//! Repeated until nothing changes:
//!
//! 1. blocks the entry cannot reach leave the layout;
//! 2. `brif c, B(args), B(args)` (same target, same arguments) becomes
//!    `jump B(args)`;
//! 3. a block `B` whose only incoming edge is `jump B(args)` from `P` is
//!    merged into `P`: `B`'s parameters are replaced by the arguments, `P`'s
//!    jump by `B`'s instructions (merging first keeps the first block of a
//!    straight-line run, so block names stay close to the source's);
//! 4. jumps are threaded through *forwarding blocks*, blocks whose only
//!    instruction is `jump T(args')`: a branch to such a block `E(a)` is
//!    redirected to `T(args'[E's parameters := a])`. Only done when E's
//!    parameters are used by nothing but that jump (otherwise a block after
//!    `T` could read a parameter that the new edge never defines) and when
//!    `T` is neither `E` itself nor the entry block. A forwarding block left
//!    without predecessors is removed by step 1 of the next round;
//! 5. block parameters that receive the same value on every edge are
//!    replaced by it (threading and merging make such parameters).
//!
//! Where it sits: after [`super::const_fold`] (which turns branches on
//! constants into jumps) and [`super::dce`] in the clean-up loop of
//! [`super::pipeline`], and before [`super::inline`] measures callee sizes.
//! The min-PC reconvergence of the target does not depend on block
//! boundaries, only on the final layout, which the back end computes later.

use std::collections::{HashMap, HashSet};

use super::util::{
    block_exists, func_ids, remove_trivial_params, remove_unreachable_blocks, terminator, Aliases,
};
use crate::ir::{Block, Function, InstData, Module, Value};

/// Simplifies every function of the module. Returns whether anything
/// changed.
pub fn run(module: &mut Module) -> bool {
    let mut changed = false;
    for id in func_ids(module) {
        changed |= run_function(module.func_mut(id));
    }
    changed
}

/// Simplifies one function until nothing more changes.
pub fn run_function(func: &mut Function) -> bool {
    let mut changed = false;
    // Every round removes an edge or a block; the bound only keeps a bug from
    // turning into a hang.
    for _ in 0..256 {
        let mut round = remove_unreachable_blocks(func);
        round |= fold_same_target_brifs(func);
        round |= merge_straight_line_blocks(func);
        round |= thread_jumps(func);
        round |= remove_trivial_params(func);
        if !round {
            break;
        }
        changed = true;
    }
    changed
}

/// `brif c, B(args), B(args)` -> `jump B(args)`.
fn fold_same_target_brifs(func: &mut Function) -> bool {
    let mut changed = false;
    for pos in 0..func.layout.len() {
        let Some(term) = terminator(func, func.layout[pos]) else {
            continue;
        };
        if let InstData::Brif {
            then_dest,
            else_dest,
            ..
        } = func.inst(term)
        {
            if then_dest == else_dest {
                let dest = then_dest.clone();
                *func.inst_mut(term) = InstData::Jump { dest };
                changed = true;
            }
        }
    }
    changed
}

/// The target of a forwarding block: `Some((T, args'))` if `e`'s only
/// instruction is `jump T(args')`.
fn forwarding_target(func: &Function, e: Block) -> Option<(Block, Vec<Value>)> {
    let insts = &func.blocks.get(e.index())?.insts;
    if insts.len() != 1 {
        return None;
    }
    match func.insts.get(insts[0].index())?.data {
        InstData::Jump { ref dest } => Some((dest.block, dest.args.clone())),
        _ => None,
    }
}

fn thread_jumps(func: &mut Function) -> bool {
    let Some(entry) = func.entry_block() else {
        return false;
    };
    // How many laid-out instructions use each value (branch arguments count).
    let mut uses: HashMap<Value, usize> = HashMap::new();
    for (_, i) in func.laid_out_insts() {
        func.inst(i)
            .for_each_arg(|v| *uses.entry(v).or_default() += 1);
    }
    // The blocks whose terminator branches to each block, kept up to date
    // as branches are redirected (scanning every branch for every
    // forwarding block would be quadratic).
    let mut callers: HashMap<Block, Vec<Block>> = HashMap::new();
    for &b in &func.layout {
        if let Some(term) = terminator(func, b) {
            for call in func.inst(term).branch_targets() {
                let list = callers.entry(call.block).or_default();
                if list.last() != Some(&b) {
                    list.push(b);
                }
            }
        }
    }
    let mut changed = false;
    for pos in 1..func.layout.len() {
        let e = func.layout[pos];
        let Some((target, fwd_args)) = forwarding_target(func, e) else {
            continue;
        };
        if target == e || target == entry || !block_exists(func, target) {
            continue;
        }
        let params = func.blocks[e.index()].params.clone();
        // Each parameter must be used only in the forwarding jump itself.
        let own_uses = |p: &Value| fwd_args.iter().filter(|&a| a == p).count();
        if params
            .iter()
            .any(|p| uses.get(p).copied().unwrap_or(0) != own_uses(p))
        {
            continue;
        }
        let mut from = callers.remove(&e).unwrap_or_default();
        from.sort_unstable();
        from.dedup();
        let mut still_calling = Vec::new();
        for b in from {
            if b == e {
                still_calling.push(b);
                continue;
            }
            let Some(term) = terminator(func, b) else {
                continue;
            };
            let mut redirected = false;
            for call in func.inst_mut(term).branch_targets_mut() {
                if call.block != e || call.args.len() != params.len() {
                    if call.block == e {
                        still_calling.push(b);
                    }
                    continue;
                }
                let new_args: Vec<Value> = fwd_args
                    .iter()
                    .map(|&v| match params.iter().position(|&p| p == v) {
                        Some(index) => call.args[index],
                        None => v,
                    })
                    .collect();
                for &old in &call.args {
                    if let Some(n) = uses.get_mut(&old) {
                        *n = n.saturating_sub(1);
                    }
                }
                for &new in &new_args {
                    *uses.entry(new).or_default() += 1;
                }
                call.block = target;
                call.args = new_args;
                redirected = true;
                changed = true;
            }
            if redirected {
                callers.entry(target).or_default().push(b);
            }
        }
        if !still_calling.is_empty() {
            callers.insert(e, still_calling);
        }
    }
    changed
}

fn merge_straight_line_blocks(func: &mut Function) -> bool {
    let Some(entry) = func.entry_block() else {
        return false;
    };
    // Incoming edges per block, counting each branch operand (a `brif` with
    // both targets equal counts twice). Merging does not change the counts:
    // the merged block's out-edges simply start from its predecessor.
    let mut edges: HashMap<Block, usize> = HashMap::new();
    for &b in &func.layout {
        if let Some(term) = terminator(func, b) {
            for call in func.inst(term).branch_targets() {
                *edges.entry(call.block).or_default() += 1;
            }
        }
    }
    let laid_out: HashSet<Block> = func.layout.iter().copied().collect();
    let mut aliases = Aliases::default();
    let mut merged: HashSet<Block> = HashSet::new();
    for pos in 0..func.layout.len() {
        let p = func.layout[pos];
        if merged.contains(&p) {
            continue;
        }
        // Merge successors into `p` as long as it ends in a jump to a block
        // with no other predecessor.
        while let Some(term) = terminator(func, p) {
            let InstData::Jump { dest } = func.inst(term) else {
                break;
            };
            let dest = dest.clone();
            let b = dest.block;
            if b == p
                || b == entry
                || edges.get(&b) != Some(&1)
                || merged.contains(&b)
                || !laid_out.contains(&b)
            {
                break;
            }
            let params = &func.blocks[b.index()].params;
            if params.len() != dest.args.len() {
                break;
            }
            for (&param, &arg) in params.iter().zip(&dest.args) {
                aliases.insert(param, arg);
            }
            func.blocks[b.index()].params.clear();
            let moved = std::mem::take(&mut func.blocks[b.index()].insts);
            let insts = &mut func.blocks[p.index()].insts;
            insts.pop();
            insts.extend(moved);
            merged.insert(b);
        }
    }
    if merged.is_empty() {
        return false;
    }
    func.layout.retain(|b| !merged.contains(b));
    aliases.apply(func);
    true
}
