//! SSA construction: promotes scalar stack slots to SSA values.
//!
//! The front end gives every local scalar variable a 4-byte stack slot and
//! reads and writes it with `stack_addr` + `load.local.b32` /
//! `store.local.b32`. This pass turns those variables into SSA values, with
//! block parameters where control flow joins; it is the first pass of
//! [`super::pipeline`], since every later pass works on SSA values, not on
//! memory.
//!
//! **Which slots.** A slot of at least 4 bytes is promoted when every
//! laid-out `stack_addr` of it is used only as the address, at offset 0, of
//! `load.local.b32` and `store.local.b32` (as the address, never as the
//! stored value). Any other use (a computed address, another width or
//! offset, a pointer stored to memory or passed to a call) means the address
//! escapes: the slot stays in memory. Local arrays are never promoted that
//! way.
//!
//! **Algorithm** (Cytron et al., "Efficiently computing static single
//! assignment form and the control dependence graph", 1991, with the
//! dominance frontiers of Cooper, Harvey and Kennedy, "A simple, fast
//! dominance algorithm"):
//!
//! 1. blocks that the entry cannot reach are removed (they would need
//!    arguments for new parameters but have no defined values to give);
//! 2. for each promoted slot, a block parameter is placed in every block of
//!    the iterated dominance frontier of the blocks that store to it;
//! 3. a walk down the dominator tree keeps the current value of each slot:
//!    a new parameter or a store sets it, a load is replaced by it, and
//!    every branch appends the current values for its target's new
//!    parameters to its arguments (for a `brif` whose two targets are the
//!    same block, each target gets its own arguments). The slot's
//!    `stack_addr`s, loads and stores disappear;
//! 4. pruning: new parameters that nothing reads (but branches to other dead
//!    new parameters) are removed with their arguments, then parameters that
//!    receive the same value on every edge are replaced by it.
//!
//! **Uninitialised variables.** A load that no store reaches reads `0`: the
//! pass places one `iconst 0` at the top of the entry block as the initial
//! value of every promoted slot (removed again if unused). C leaves such a
//! read undefined; the IR has no undefined values, and zero is what the
//! memory-based code reads from the zero-initialised stack too.
//!
//! Functions whose entry block has predecessors are left alone (a parameter
//! there would change a device function's signature); the verifier rejects
//! them anyway.

use std::collections::{HashMap, HashSet};

use super::util::{
    compact_stack_slots, func_ids, incoming_args, remove_block_params, remove_trivial_params,
    remove_unreachable_blocks, Aliases,
};
use crate::dominator_tree::DominatorTree;
use crate::flowgraph::ControlFlowGraph;
use crate::ir::{Block, Function, InstData, MemSpace, Module, StackSlot, Type, Value, ValueDef};
use concord_isa::instr::{LoadWidth, StoreWidth};

/// Promotes the promotable slots of every function of the module. Returns
/// whether anything changed.
pub fn run(module: &mut Module) -> bool {
    let mut changed = false;
    for id in func_ids(module) {
        changed |= run_function(module.func_mut(id));
    }
    changed
}

/// The slot a laid-out `stack_addr` result points to, for every such result.
fn stack_addresses(func: &Function) -> HashMap<Value, StackSlot> {
    let mut addrs = HashMap::new();
    for (_, i) in func.laid_out_insts() {
        if let (InstData::StackAddr { slot }, Some(r)) = (func.inst(i), func.inst_result(i)) {
            addrs.insert(r, *slot);
        }
    }
    addrs
}

/// How an instruction accesses a promotable-looking slot.
enum Access {
    /// `load.local.b32 addr` (offset 0) of the slot behind `addr`.
    Load { addr: Value },
    /// `store.local.b32 value, addr` (offset 0).
    Store { value: Value, addr: Value },
    /// Anything else.
    Other,
}

fn access(data: &InstData) -> Access {
    match *data {
        InstData::Load {
            space: MemSpace::Local,
            width: LoadWidth::B32,
            addr,
            offset: 0,
        } => Access::Load { addr },
        InstData::Store {
            space: MemSpace::Local,
            width: StoreWidth::B32,
            value,
            addr,
            offset: 0,
        } => Access::Store { value, addr },
        _ => Access::Other,
    }
}

/// Per slot, whether it can be promoted (see the module docs).
fn promotable_slots(func: &Function, addrs: &HashMap<Value, StackSlot>) -> Vec<bool> {
    let mut ok: Vec<bool> = func.stack_slots.iter().map(|s| s.size >= 4).collect();
    let escape = |v: Value, ok: &mut Vec<bool>| {
        if let Some(slot) = addrs.get(&v) {
            if let Some(flag) = ok.get_mut(slot.index()) {
                *flag = false;
            }
        }
    };
    for (_, i) in func.laid_out_insts() {
        match access(func.inst(i)) {
            Access::Load { .. } => {}
            Access::Store { value, addr } => {
                escape(value, &mut ok);
                // The promoted value becomes an `i32` block parameter; an
                // `i1` stored as a word (ill-typed) keeps its slot.
                if func.values.get(value.index()).map(|d| d.ty) != Some(Type::I32) {
                    escape(addr, &mut ok);
                }
            }
            Access::Other => func.inst(i).for_each_arg(|v| escape(v, &mut ok)),
        }
    }
    ok
}

/// Runs mem2reg on one function.
pub fn run_function(func: &mut Function) -> bool {
    let addrs = stack_addresses(func);
    let promote = promotable_slots(func, &addrs);
    let Some(entry) = func.entry_block() else {
        return false;
    };
    let is_promoted = |s: &StackSlot| promote.get(s.index()).copied().unwrap_or(false);
    let promoted_slot = |v: &Value| addrs.get(v).copied().filter(is_promoted);
    if !addrs.values().any(is_promoted) {
        // Nothing to promote; unused slots may still go.
        return compact_stack_slots(func);
    }
    {
        let cfg = ControlFlowGraph::compute(func);
        if !cfg.preds(entry).is_empty() {
            return false;
        }
    }
    remove_unreachable_blocks(func);
    let cfg = ControlFlowGraph::compute(func);
    let domtree = DominatorTree::compute(func, &cfg);

    // Step 2: parameters at the iterated dominance frontiers of the stores.
    let frontiers = dominance_frontiers(&cfg, &domtree);
    let num_slots = func.stack_slots.len();
    let mut def_blocks: Vec<Vec<Block>> = vec![Vec::new(); num_slots];
    for &b in domtree.rpo() {
        for &i in &func.blocks[b.index()].insts {
            if let Access::Store { addr, .. } = access(func.inst(i)) {
                if let Some(slot) = promoted_slot(&addr) {
                    if def_blocks[slot.index()].last() != Some(&b) {
                        def_blocks[slot.index()].push(b);
                    }
                }
            }
        }
    }
    let mut new_params: HashMap<Block, Vec<(StackSlot, Value)>> = HashMap::new();
    let mut all_new_params: HashSet<Value> = HashSet::new();
    for (s, defs) in def_blocks.iter().enumerate() {
        let slot = StackSlot::new(s);
        let mut has_param: HashSet<Block> = HashSet::new();
        let def_set: HashSet<Block> = defs.iter().copied().collect();
        let mut worklist = defs.clone();
        while let Some(x) = worklist.pop() {
            for &y in frontiers.get(&x).into_iter().flatten() {
                if has_param.insert(y) {
                    let p = func.add_block_param(y, Type::I32);
                    new_params.entry(y).or_default().push((slot, p));
                    all_new_params.insert(p);
                    if !def_set.contains(&y) {
                        worklist.push(y);
                    }
                }
            }
        }
    }

    // Step 3: renaming along the dominator tree.
    let zero_inst = func.insert_inst(entry, 0, InstData::Iconst { imm: 0 }, Some(Type::I32));
    let zero = func.inst_result(zero_inst).expect("iconst has a result");
    let mut current: Vec<Vec<Value>> = vec![vec![zero]; num_slots];
    let mut pushed: Vec<StackSlot> = Vec::new();
    let mut aliases = Aliases::default();
    enum Step {
        Enter(Block),
        Leave(usize),
    }
    let mut stack = vec![Step::Enter(entry)];
    while let Some(step) = stack.pop() {
        let b = match step {
            Step::Leave(mark) => {
                for slot in pushed.drain(mark..).rev() {
                    current[slot.index()].pop();
                }
                continue;
            }
            Step::Enter(b) => b,
        };
        stack.push(Step::Leave(pushed.len()));
        for &child in domtree.children(b).iter().rev() {
            stack.push(Step::Enter(child));
        }
        for &(slot, p) in new_params.get(&b).into_iter().flatten() {
            current[slot.index()].push(p);
            pushed.push(slot);
        }
        let mut kept = Vec::new();
        for inst in func.blocks[b.index()].insts.clone() {
            let data = func.inst(inst);
            if let InstData::StackAddr { slot } = *data {
                if is_promoted(&slot) {
                    continue;
                }
            }
            match access(data) {
                Access::Load { addr } => {
                    if let Some(slot) = promoted_slot(&addr) {
                        let value = *current[slot.index()].last().unwrap_or(&zero);
                        if let Some(r) = func.inst_result(inst) {
                            aliases.insert(r, value);
                        }
                        continue;
                    }
                }
                Access::Store { value, addr } => {
                    if let Some(slot) = promoted_slot(&addr) {
                        current[slot.index()].push(aliases.resolve(value));
                        pushed.push(slot);
                        continue;
                    }
                }
                Access::Other => {}
            }
            let data = func.inst_mut(inst);
            aliases.rewrite(data);
            for call in data.branch_targets_mut() {
                for &(slot, _) in new_params.get(&call.block).into_iter().flatten() {
                    call.args
                        .push(*current[slot.index()].last().unwrap_or(&zero));
                }
            }
            kept.push(inst);
        }
        func.blocks[b.index()].insts = kept;
    }
    aliases.apply(func);

    // Step 4: pruning.
    prune_dead_params(func, &all_new_params);
    remove_trivial_params(func);
    if !func.laid_out_insts().any(|(_, i)| {
        let mut used = false;
        func.inst(i).for_each_arg(|v| used |= v == zero);
        used
    }) {
        func.blocks[entry.index()].insts.retain(|&i| i != zero_inst);
    }
    compact_stack_slots(func);
    true
}

/// The dominance frontier of every reachable block with one: `DF(x)` holds
/// the blocks `y` that `x` does not strictly dominate but that have a
/// predecessor `x` dominates. Frontier lists are in a deterministic order.
fn dominance_frontiers(
    cfg: &ControlFlowGraph,
    domtree: &DominatorTree,
) -> HashMap<Block, Vec<Block>> {
    let mut frontiers: HashMap<Block, Vec<Block>> = HashMap::new();
    for &b in domtree.rpo() {
        let preds = cfg.preds(b);
        if preds.len() < 2 {
            continue;
        }
        let Some(idom) = domtree.idom(b) else {
            continue;
        };
        for &p in preds {
            if !domtree.is_reachable(p) {
                continue;
            }
            let mut runner = p;
            while runner != idom {
                let df = frontiers.entry(runner).or_default();
                // `b` is added to frontiers only here, so a runner that
                // already has it was passed by an earlier predecessor's
                // walk, which went on up to `idom` the same way: stopping
                // keeps a join of many predecessors down a chain linear.
                if df.last() == Some(&b) {
                    break;
                }
                df.push(b);
                match domtree.idom(runner) {
                    Some(up) => runner = up,
                    None => break,
                }
            }
        }
    }
    frontiers
}

/// Removes the parameters among `candidates` whose values nobody reads:
/// a parameter is live when a non-branch operand uses it, when it is passed
/// to a parameter that is not a candidate, or when it is passed to a live
/// candidate.
fn prune_dead_params(func: &mut Function, candidates: &HashSet<Value>) {
    let mut live: HashSet<Value> = HashSet::new();
    let mut worklist: Vec<Value> = Vec::new();
    let mark = |v: Value, live: &mut HashSet<Value>, worklist: &mut Vec<Value>| {
        if candidates.contains(&v) && live.insert(v) {
            worklist.push(v);
        }
    };
    for (_, i) in func.laid_out_insts() {
        let data = func.inst(i);
        match data {
            InstData::Jump { .. } | InstData::Brif { .. } => {
                if let InstData::Brif { cond, .. } = data {
                    mark(*cond, &mut live, &mut worklist);
                }
                for call in data.branch_targets() {
                    let params = func.blocks.get(call.block.index()).map(|b| &b.params);
                    for (k, &a) in call.args.iter().enumerate() {
                        let target = params.and_then(|ps| ps.get(k));
                        if !target.is_some_and(|p| candidates.contains(p)) {
                            mark(a, &mut live, &mut worklist);
                        }
                    }
                }
            }
            other => other.for_each_arg(|v| mark(v, &mut live, &mut worklist)),
        }
    }
    let incoming = incoming_args(func);
    while let Some(p) = worklist.pop() {
        if let ValueDef::Param(b, index) = func.value_def(p) {
            for args in incoming.get(&b).into_iter().flatten() {
                if let Some(&a) = args.get(index) {
                    mark(a, &mut live, &mut worklist);
                }
            }
        }
    }
    let mut blocks: Vec<Block> = func.layout.clone();
    blocks.dedup();
    for b in blocks {
        let Some(data) = func.blocks.get(b.index()) else {
            continue;
        };
        let remove: Vec<bool> = data
            .params
            .iter()
            .map(|p| candidates.contains(p) && !live.contains(p))
            .collect();
        remove_block_params(func, b, &remove);
    }
}
