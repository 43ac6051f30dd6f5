//! Dead code elimination: unreachable blocks, unused pure instructions,
//! unused block parameters and unused stack slots.
//!
//! The analysis marks what is live instead of deleting what looks dead, so
//! cycles of dead values (a loop counter nobody reads after the loop, which
//! only feeds its own increment) disappear in one run:
//!
//! * roots are the operands of instructions with side effects (stores,
//!   atomics, votes, barriers, calls), branch conditions and returned values;
//! * a live instruction result makes the instruction's operands live;
//! * a live block parameter makes the matching argument of every branch to
//!   its block live. Branch arguments are not roots by themselves.
//!
//! Everything else goes: pure instructions (loads included: they have no
//! effect besides their result) with a dead result, parameters of non-entry
//! blocks that are dead (with their arguments in every branch), blocks that
//! the entry cannot reach, and then stack slots that no `stack_addr` names
//! any more. The entry block's parameters are a device function's
//! arguments and always stay.
//!
//! Where it sits: after every pass that leaves garbage behind
//! ([`super::mem2reg`], [`super::const_fold`], [`super::gvn`],
//! [`super::inline`]); see [`super::pipeline`].

use super::util::{
    compact_stack_slots, func_ids, incoming_args, remove_block_params, remove_unreachable_blocks,
};
use crate::ir::{Function, InstData, Module, Value, ValueDef};

/// Runs DCE on every function of the module. Returns whether anything
/// changed.
pub fn run(module: &mut Module) -> bool {
    let mut changed = false;
    for id in func_ids(module) {
        changed |= run_function(module.func_mut(id));
    }
    changed
}

/// Runs DCE on one function.
pub fn run_function(func: &mut Function) -> bool {
    let mut changed = remove_unreachable_blocks(func);
    changed |= remove_dead_values(func);
    changed |= compact_stack_slots(func);
    changed
}

/// The roots among an instruction's operands: everything but branch
/// arguments for terminators; everything for other side-effecting
/// instructions; nothing for pure ones.
fn root_operands(data: &InstData, mut f: impl FnMut(Value)) {
    match data {
        InstData::Jump { .. } => {}
        InstData::Brif { cond, .. } => f(*cond),
        InstData::Return { value } => value.iter().copied().for_each(f),
        d if d.has_side_effects() => d.for_each_arg(f),
        _ => {}
    }
}

fn remove_dead_values(func: &mut Function) -> bool {
    let mut live = vec![false; func.values.len()];
    let mut worklist: Vec<Value> = Vec::new();
    let mark = |v: Value, live: &mut Vec<bool>, worklist: &mut Vec<Value>| {
        if let Some(flag) = live.get_mut(v.index()) {
            if !*flag {
                *flag = true;
                worklist.push(v);
            }
        }
    };
    for (_, i) in func.laid_out_insts() {
        root_operands(func.inst(i), |v| mark(v, &mut live, &mut worklist));
    }
    if let Some(entry) = func.entry_block() {
        if let Some(data) = func.blocks.get(entry.index()) {
            for &p in &data.params {
                mark(p, &mut live, &mut worklist);
            }
        }
    }
    let incoming = incoming_args(func);
    while let Some(v) = worklist.pop() {
        match func.values[v.index()].def {
            ValueDef::Result(i) => {
                if let Some(node) = func.insts.get(i.index()) {
                    node.data
                        .for_each_arg(|a| mark(a, &mut live, &mut worklist));
                }
            }
            ValueDef::Param(b, index) => {
                for args in incoming.get(&b).into_iter().flatten() {
                    if let Some(&a) = args.get(index) {
                        mark(a, &mut live, &mut worklist);
                    }
                }
            }
        }
    }

    let mut changed = false;
    for pos in 0..func.layout.len() {
        let b = func.layout[pos];
        let Some(data) = func.blocks.get(b.index()) else {
            continue;
        };
        let keep: Vec<_> = data
            .insts
            .iter()
            .copied()
            .filter(|&i| {
                let Some(node) = func.insts.get(i.index()) else {
                    return true;
                };
                node.data.has_side_effects()
                    || node
                        .result
                        .is_some_and(|r| live.get(r.index()).copied().unwrap_or(true))
            })
            .collect();
        if keep.len() != data.insts.len() {
            func.blocks[b.index()].insts = keep;
            changed = true;
        }
        if pos > 0 {
            let remove: Vec<bool> = func.blocks[b.index()]
                .params
                .iter()
                .map(|p| !live.get(p.index()).copied().unwrap_or(true))
                .collect();
            if remove.iter().any(|&r| r) {
                remove_block_params(func, b, &remove);
                changed = true;
            }
        }
    }
    changed
}
