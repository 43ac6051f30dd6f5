//! Inlining of small, non-recursive `__device__` functions.
//!
//! A call `v = call @f(args)` in block `B` is replaced by a copy of `f`'s
//! body: `B` is split after the call into `B` and a *continuation block*
//! `C` that takes the instructions after the call and has the call's result
//! `v` as its parameter (the value keeps its number, so its uses need no
//! rewriting); `B` ends with `jump entry'(args)` into the copy of `f`'s entry
//! block, whose parameters are `f`'s arguments; every `return x` in the copy
//! becomes `jump C(x)`. `f`'s stack slots are copied into the caller's
//! frame. The copied blocks are laid out between `B` and `C`.
//! [`super::simplify_cfg`] later merges the straight-line seams.
//!
//! **Which calls.** The callee must be a device function with at most
//! [`InlineOptions::threshold`] laid-out instructions (measured when the
//! decision is made, after its own calls were inlined: functions are
//! processed callees first), not part of a cycle of the call graph
//! (recursive functions are never inlined, and neither are calls inside
//! them to members of the same cycle), and well formed (every operand
//! defined, every branch target laid out; otherwise it is left for the
//! verifier to report). A callee containing a vote or a barrier is inlined
//! only when it has a single call site in the module: threads of a warp that
//! call it from different sites meet at one and the same vote in the callee,
//! but copies at two sites would be two different votes.
//!
//! **Dead functions.** Afterwards, device functions that no kernel reaches
//! through calls are removed (and the remaining functions renumbered). A
//! module without kernels (a library of device functions) keeps them all.
//!
//! Where it sits: in [`super::pipeline`] after a first round of
//! [`super::mem2reg`], [`super::const_fold`], [`super::dce`] and
//! [`super::simplify_cfg`] on every function (so callee sizes are measured
//! on clean code), followed by the clean-up loop that exploits the constant
//! arguments the copies receive.

use std::collections::{HashMap, HashSet};

use super::util::{func_ids, terminator};
use crate::ir::{
    Block, BlockCall, FuncId, FuncKind, Function, Inst, InstData, Module, StackSlot, Value,
    ValueDef,
};

/// The default [`InlineOptions::threshold`].
pub const DEFAULT_INLINE_THRESHOLD: usize = 40;

/// Tuning of the inliner.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct InlineOptions {
    /// The largest callee (in laid-out instructions, terminators included)
    /// that is inlined.
    pub threshold: usize,
}

impl Default for InlineOptions {
    fn default() -> Self {
        InlineOptions {
            threshold: DEFAULT_INLINE_THRESHOLD,
        }
    }
}

/// Inlines eligible calls everywhere and removes device functions no kernel
/// reaches. Returns whether anything changed.
pub fn run(module: &mut Module, options: &InlineOptions) -> bool {
    let graph = CallGraph::compute(module);
    let recursive = graph.recursive_functions();
    let mut changed = false;
    for caller in graph.callees_first_order() {
        while let Some((block, pos, callee)) =
            next_inlinable_call(module, caller, &recursive, options)
        {
            let callee_body = module.func(callee).clone();
            inline_call(module.func_mut(caller), block, pos, &callee_body);
            changed = true;
        }
    }
    changed |= remove_unreachable_functions(module);
    changed
}

/// Calls of every function (laid-out `call` instructions), in order, with
/// duplicates (one entry per call site).
struct CallGraph {
    callees: Vec<Vec<FuncId>>,
}

impl CallGraph {
    fn compute(module: &Module) -> CallGraph {
        let callees = module
            .funcs
            .iter()
            .map(|f| {
                f.laid_out_insts()
                    .filter_map(|(_, i)| match f.inst(i) {
                        InstData::Call { func, .. } if func.index() < module.funcs.len() => {
                            Some(*func)
                        }
                        _ => None,
                    })
                    .collect()
            })
            .collect();
        CallGraph { callees }
    }

    /// Functions on a cycle of the call graph (including self-calls), by
    /// Tarjan's strongly connected components, iteratively.
    fn recursive_functions(&self) -> HashSet<FuncId> {
        let n = self.callees.len();
        let mut index = vec![usize::MAX; n];
        let mut low = vec![0; n];
        let mut on_stack = vec![false; n];
        let mut stack: Vec<usize> = Vec::new();
        let mut next_index = 0;
        let mut recursive = HashSet::new();
        for root in 0..n {
            if index[root] != usize::MAX {
                continue;
            }
            // (node, next callee position)
            let mut work: Vec<(usize, usize)> = vec![(root, 0)];
            index[root] = next_index;
            low[root] = next_index;
            next_index += 1;
            stack.push(root);
            on_stack[root] = true;
            while let Some(&mut (v, ref mut k)) = work.last_mut() {
                if let Some(&w) = self.callees[v].get(*k) {
                    *k += 1;
                    let w = w.index();
                    if index[w] == usize::MAX {
                        index[w] = next_index;
                        low[w] = next_index;
                        next_index += 1;
                        stack.push(w);
                        on_stack[w] = true;
                        work.push((w, 0));
                    } else if on_stack[w] {
                        low[v] = low[v].min(index[w]);
                    }
                    continue;
                }
                work.pop();
                if let Some(&(parent, _)) = work.last() {
                    low[parent] = low[parent].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut component = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        component.push(w);
                        if w == v {
                            break;
                        }
                    }
                    let self_call = self.callees[v].iter().any(|c| c.index() == v);
                    if component.len() > 1 || self_call {
                        recursive.extend(component.into_iter().map(FuncId::new));
                    }
                }
            }
        }
        recursive
    }

    /// Every function, each after the functions it calls (post-order of a
    /// depth-first walk; members of a cycle in some order).
    fn callees_first_order(&self) -> Vec<FuncId> {
        let n = self.callees.len();
        let mut visited = vec![false; n];
        let mut order = Vec::with_capacity(n);
        for root in 0..n {
            if visited[root] {
                continue;
            }
            visited[root] = true;
            let mut work: Vec<(usize, usize)> = vec![(root, 0)];
            while let Some(&mut (v, ref mut k)) = work.last_mut() {
                if let Some(&w) = self.callees[v].get(*k) {
                    *k += 1;
                    if !visited[w.index()] {
                        visited[w.index()] = true;
                        work.push((w.index(), 0));
                    }
                    continue;
                }
                work.pop();
                order.push(FuncId::new(v));
            }
        }
        order
    }
}

/// Laid-out instructions of a function.
fn size(func: &Function) -> usize {
    func.layout
        .iter()
        .filter_map(|b| func.blocks.get(b.index()))
        .map(|b| b.insts.len())
        .sum()
}

/// Whether the function contains an instruction whose copies at two call
/// sites would not be equivalent to the original (votes, barriers).
fn has_warp_synchronisation(func: &Function) -> bool {
    func.laid_out_insts()
        .any(|(_, i)| matches!(func.inst(i), InstData::Vote { .. } | InstData::Barrier))
}

/// Whether the callee's body can be copied: an entry block, every operand
/// defined in it, every branch target laid out, every stack slot declared.
fn is_well_formed(func: &Function) -> bool {
    let Some(entry) = func.entry_block() else {
        return false;
    };
    let laid_out: HashSet<Block> = func.layout.iter().copied().collect();
    if laid_out.len() != func.layout.len() || func.blocks.get(entry.index()).is_none() {
        return false;
    }
    if func.blocks[entry.index()].params.len() != func.params.len() {
        return false;
    }
    let mut defined: HashSet<Value> = HashSet::new();
    for &b in &func.layout {
        let Some(data) = func.blocks.get(b.index()) else {
            return false;
        };
        if terminator(func, b).is_none() {
            return false;
        }
        defined.extend(data.params.iter().copied());
        for &i in &data.insts {
            let Some(node) = func.insts.get(i.index()) else {
                return false;
            };
            defined.extend(node.result);
        }
    }
    func.laid_out_insts().all(|(_, i)| {
        let data = func.inst(i);
        let mut ok = true;
        data.for_each_arg(|v| ok &= defined.contains(&v));
        ok &= data
            .branch_targets()
            .iter()
            .all(|c| laid_out.contains(&c.block));
        if let InstData::StackAddr { slot } = data {
            ok &= slot.index() < func.stack_slots.len();
        }
        ok
    })
}

/// Number of laid-out call sites of `callee` in the module.
fn call_sites(module: &Module, callee: FuncId) -> usize {
    module
        .funcs
        .iter()
        .map(|f| {
            f.laid_out_insts()
                .filter(
                    |&(_, i)| matches!(f.inst(i), InstData::Call { func, .. } if *func == callee),
                )
                .count()
        })
        .sum()
}

/// The first call in `caller` that may be inlined: its block, position and
/// callee.
fn next_inlinable_call(
    module: &Module,
    caller: FuncId,
    recursive: &HashSet<FuncId>,
    options: &InlineOptions,
) -> Option<(Block, usize, FuncId)> {
    let func = module.func(caller);
    for &b in &func.layout {
        let insts = &func.blocks.get(b.index())?.insts;
        for (pos, &i) in insts.iter().enumerate() {
            let InstData::Call { func: callee, args } = func.inst(i) else {
                continue;
            };
            let Some(body) = module.funcs.get(callee.index()) else {
                continue;
            };
            let eligible = *callee != caller
                && body.kind == FuncKind::Device
                && !recursive.contains(callee)
                && args.len() == body.params.len()
                && (func.inst_result(i).is_none() || body.ret.is_some())
                && size(body) <= options.threshold
                && is_well_formed(body)
                && (!has_warp_synchronisation(body) || call_sites(module, *callee) == 1);
            if eligible {
                return Some((b, pos, *callee));
            }
        }
    }
    None
}

/// Replaces the call at `block[pos]` of `caller` by a copy of `callee`.
fn inline_call(caller: &mut Function, block: Block, pos: usize, callee: &Function) {
    let call = caller.blocks[block.index()].insts[pos];
    let InstData::Call { args, .. } = caller.inst(call).clone() else {
        return;
    };
    let loc = caller.inst_loc(call);
    let result = caller.inst_result(call);

    // The continuation block takes the rest of `block` and the call's result.
    let cont = caller.create_block();
    let rest = caller.blocks[block.index()].insts.split_off(pos + 1);
    caller.blocks[block.index()].insts.pop();
    caller.blocks[cont.index()].insts = rest;
    if let Some(r) = result {
        caller.values[r.index()].def = ValueDef::Param(cont, 0);
        caller.blocks[cont.index()].params.push(r);
    }

    // Copy slots, blocks, parameters and instructions; operands are mapped
    // afterwards, since a loop's branch may name values defined later.
    let slots: Vec<StackSlot> = callee
        .stack_slots
        .iter()
        .map(|s| caller.add_stack_slot(s.size, s.align))
        .collect();
    let mut blocks: HashMap<Block, Block> = HashMap::new();
    let mut values: HashMap<Value, Value> = HashMap::new();
    for &b in &callee.layout {
        let new = caller.create_block();
        blocks.insert(b, new);
        for &p in &callee.blocks[b.index()].params {
            let np = caller.add_block_param(new, callee.value_type(p));
            values.insert(p, np);
        }
    }
    let mut copies: Vec<Inst> = Vec::new();
    for &b in &callee.layout {
        let new_block = blocks[&b];
        for &i in &callee.blocks[b.index()].insts {
            let ty = callee.inst_result(i).map(|r| callee.value_type(r));
            let copy = caller.create_inst(callee.inst(i).clone(), ty);
            caller.set_inst_loc(copy, callee.inst_loc(i));
            if let (Some(old), Some(new)) = (callee.inst_result(i), caller.inst_result(copy)) {
                values.insert(old, new);
            }
            caller.blocks[new_block.index()].insts.push(copy);
            copies.push(copy);
        }
    }
    for copy in copies {
        let data = caller.inst_mut(copy);
        data.map_args(|v| values.get(&v).copied().unwrap_or(v));
        for target in data.branch_targets_mut() {
            if let Some(&nb) = blocks.get(&target.block) {
                target.block = nb;
            }
        }
        match data {
            InstData::StackAddr { slot } => {
                if let Some(&ns) = slots.get(slot.index()) {
                    *slot = ns;
                }
            }
            InstData::Return { value } => {
                let args = match (result, *value) {
                    (Some(_), Some(v)) => vec![v],
                    _ => Vec::new(),
                };
                *data = InstData::Jump {
                    dest: BlockCall { block: cont, args },
                };
            }
            _ => {}
        }
    }

    // Enter the copy of the entry block with the call's arguments.
    let entry = callee.layout[0];
    let jump = caller.append_inst(
        block,
        InstData::Jump {
            dest: BlockCall {
                block: blocks[&entry],
                args,
            },
        },
        None,
    );
    caller.set_inst_loc(jump, loc);

    let at = caller
        .layout
        .iter()
        .position(|&b| b == block)
        .map_or(caller.layout.len(), |p| p + 1);
    let mut inserted: Vec<Block> = callee.layout.iter().map(|b| blocks[b]).collect();
    inserted.push(cont);
    caller.layout.splice(at..at, inserted);
}

/// Removes device functions that no kernel reaches and renumbers the calls.
fn remove_unreachable_functions(module: &mut Module) -> bool {
    let kernels: Vec<FuncId> = module.kernels().collect();
    if kernels.is_empty() {
        return false;
    }
    let graph = CallGraph::compute(module);
    let mut reached = vec![false; module.funcs.len()];
    let mut work = kernels;
    for k in &work {
        reached[k.index()] = true;
    }
    while let Some(f) = work.pop() {
        for &c in &graph.callees[f.index()] {
            if !reached[c.index()] {
                reached[c.index()] = true;
                work.push(c);
            }
        }
    }
    if reached.iter().all(|&r| r) {
        return false;
    }
    let mut renumber: Vec<Option<FuncId>> = vec![None; module.funcs.len()];
    let mut next = 0;
    for (k, r) in reached.iter().enumerate() {
        if *r {
            renumber[k] = Some(FuncId::new(next));
            next += 1;
        }
    }
    let mut k = 0;
    module.funcs.retain(|_| {
        let keep = reached[k];
        k += 1;
        keep
    });
    for id in func_ids(module) {
        let func = module.func_mut(id);
        for node in &mut func.insts {
            if let InstData::Call { func: callee, .. } = &mut node.data {
                if let Some(Some(new)) = renumber.get(callee.index()) {
                    *callee = *new;
                }
            }
        }
    }
    true
}
