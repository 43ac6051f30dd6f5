//! Editing helpers shared by the passes: value aliasing (replace a value by
//! another everywhere), block-parameter removal that keeps branch arguments
//! in step, reachability, and stack-slot compaction.
//!
//! They tolerate malformed IR (out-of-range entities, argument lists of the
//! wrong length) by skipping what they cannot interpret; the verifier is the
//! place that reports such IR.

use std::collections::{HashMap, HashSet};

use crate::ir::{Block, FuncId, Function, InstData, Module, StackSlot, Value, ValueDef};

/// Pending replacements `from -> to`, resolved transitively, applied to the
/// whole function at once (cheaper than one `replace_uses` per value).
#[derive(Default, Debug)]
pub(super) struct Aliases {
    map: HashMap<Value, Value>,
}

impl Aliases {
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Records that every use of `from` is to read `to`. `to` is resolved
    /// first, so chains collapse and no cycle can form.
    pub fn insert(&mut self, from: Value, to: Value) {
        let to = self.resolve(to);
        if from != to {
            self.map.insert(from, to);
        }
    }

    pub fn resolve(&self, mut v: Value) -> Value {
        // Every insertion resolves its target, so chains are short; the bound
        // only guards against a cycle built by hand.
        for _ in 0..=self.map.len() {
            match self.map.get(&v) {
                Some(&next) => v = next,
                None => break,
            }
        }
        v
    }

    /// [`Self::resolve`], pointing every value on the way straight at the
    /// result, so that repeated lookups along a long chain stay cheap.
    pub fn resolve_compressing(&mut self, v: Value) -> Value {
        let to = self.resolve(v);
        let mut at = v;
        while let Some(&next) = self.map.get(&at) {
            if next == to {
                break;
            }
            self.map.insert(at, to);
            at = next;
        }
        to
    }

    /// Rewrites the operands of one instruction.
    pub fn rewrite(&self, data: &mut InstData) {
        if !self.map.is_empty() {
            data.map_args(|v| self.resolve(v));
        }
    }

    /// Rewrites the operands of every laid-out instruction.
    pub fn apply(&self, func: &mut Function) {
        if self.map.is_empty() {
            return;
        }
        for k in 0..func.layout.len() {
            let b = func.layout[k];
            let Some(block) = func.blocks.get(b.index()) else {
                continue;
            };
            for i in block.insts.clone() {
                if let Some(node) = func.insts.get_mut(i.index()) {
                    self.rewrite(&mut node.data);
                }
            }
        }
    }
}

/// Whether `b` names an existing block (not necessarily laid out).
pub(super) fn block_exists(func: &Function, b: Block) -> bool {
    b.index() < func.blocks.len()
}

/// The terminator of `b`, tolerating out-of-range entities.
pub(super) fn terminator(func: &Function, b: Block) -> Option<crate::ir::Inst> {
    let last = *func.blocks.get(b.index())?.insts.last()?;
    let node = func.insts.get(last.index())?;
    node.data.is_terminator().then_some(last)
}

/// The blocks reachable from the entry block through laid-out blocks, as a
/// per-block flag.
pub(super) fn reachable_blocks(func: &Function) -> Vec<bool> {
    let n = func.blocks.len();
    let mut laid_out = vec![false; n];
    for &b in &func.layout {
        if block_exists(func, b) {
            laid_out[b.index()] = true;
        }
    }
    let mut reachable = vec![false; n];
    let Some(entry) = func.entry_block().filter(|&e| block_exists(func, e)) else {
        return reachable;
    };
    let mut stack = vec![entry];
    reachable[entry.index()] = true;
    while let Some(b) = stack.pop() {
        let Some(term) = terminator(func, b) else {
            continue;
        };
        for call in func.inst(term).branch_targets() {
            let t = call.block;
            if laid_out.get(t.index()).copied().unwrap_or(false) && !reachable[t.index()] {
                reachable[t.index()] = true;
                stack.push(t);
            }
        }
    }
    reachable
}

/// Takes blocks that cannot be reached from the entry out of the layout.
/// Their branches disappear with them, so their arguments no longer count as
/// incoming values anywhere.
pub(super) fn remove_unreachable_blocks(func: &mut Function) -> bool {
    let reachable = reachable_blocks(func);
    let before = func.layout.len();
    func.layout
        .retain(|b| reachable.get(b.index()).copied().unwrap_or(false));
    func.layout.len() != before
}

/// Removes parameter `i` of `block` wherever `remove[i]` holds, together
/// with the matching argument of every laid-out branch to `block`, and
/// renumbers the remaining parameters' definitions.
pub(super) fn remove_block_params(func: &mut Function, block: Block, remove: &[bool]) {
    remove_params(func, &HashMap::from([(block, remove.to_vec())]));
}

/// [`remove_block_params`] for several blocks at once, in one pass over
/// the branches (one pass per block would be quadratic in the number of
/// blocks).
pub(super) fn remove_params(func: &mut Function, removals: &HashMap<Block, Vec<bool>>) {
    let removals: HashMap<Block, &Vec<bool>> = removals
        .iter()
        .filter(|(&b, remove)| block_exists(func, b) && remove.iter().any(|&r| r))
        .map(|(&b, remove)| (b, remove))
        .collect();
    if removals.is_empty() {
        return;
    }
    for (&block, remove) in &removals {
        let old = std::mem::take(&mut func.blocks[block.index()].params);
        let mut kept = Vec::with_capacity(old.len());
        for (i, v) in old.into_iter().enumerate() {
            if !remove.get(i).copied().unwrap_or(false) {
                if let Some(data) = func.values.get_mut(v.index()) {
                    data.def = ValueDef::Param(block, kept.len());
                }
                kept.push(v);
            }
        }
        func.blocks[block.index()].params = kept;
    }
    for k in 0..func.layout.len() {
        let b = func.layout[k];
        let Some(term) = terminator(func, b) else {
            continue;
        };
        for call in func.inst_mut(term).branch_targets_mut() {
            if let Some(remove) = removals.get(&call.block) {
                let mut i = 0;
                call.args.retain(|_| {
                    let keep = !remove.get(i).copied().unwrap_or(false);
                    i += 1;
                    keep
                });
            }
        }
    }
}

/// Replaces block parameters that receive one and the same value on every
/// incoming edge (ignoring edges that pass the parameter back to itself) by
/// that value. In valid SSA such a value dominates the block: the first
/// entry into the block comes over an edge that passes it. Entry-block
/// parameters (a device function's arguments) are kept.
///
/// Replacing one parameter can make others trivial (a chain of joins each
/// passing the previous one's parameter on): a worklist revisits just the
/// blocks whose incoming arguments name a replaced parameter, so the work
/// stays near-linear in the size of the function.
pub(super) fn remove_trivial_params(func: &mut Function) -> bool {
    let incoming = incoming_args(func);
    // The blocks whose incoming arguments name each value.
    let mut readers: HashMap<Value, Vec<Block>> = HashMap::new();
    for (&b, calls) in &incoming {
        for args in calls {
            for &a in args {
                readers.entry(a).or_default().push(b);
            }
        }
    }
    let mut aliases = Aliases::default();
    let mut removals: HashMap<Block, Vec<bool>> = HashMap::new();
    let mut work: Vec<Block> = func
        .layout
        .iter()
        .skip(1)
        .rev()
        .copied()
        .filter(|&b| block_exists(func, b))
        .collect();
    let mut queued: HashSet<Block> = work.iter().copied().collect();
    while let Some(b) = work.pop() {
        queued.remove(&b);
        let Some(calls) = incoming.get(&b) else {
            continue;
        };
        let params = &func.blocks[b.index()].params;
        for (i, &p) in params.iter().enumerate() {
            if removals.get(&b).is_some_and(|r| r[i]) {
                continue;
            }
            let mut same: Option<Value> = None;
            let mut trivial = true;
            for args in calls {
                match args.get(i).map(|&a| aliases.resolve_compressing(a)) {
                    Some(a) if a == p => {}
                    Some(a) if same.is_none() || same == Some(a) => same = Some(a),
                    _ => {
                        trivial = false;
                        break;
                    }
                }
            }
            if let (true, Some(v)) = (trivial, same) {
                aliases.insert(p, v);
                removals
                    .entry(b)
                    .or_insert_with(|| vec![false; params.len()])[i] = true;
                for &r in readers.get(&p).into_iter().flatten() {
                    if queued.insert(r) {
                        work.push(r);
                    }
                }
            }
        }
    }
    if removals.is_empty() {
        return false;
    }
    remove_params(func, &removals);
    aliases.apply(func);
    true
}

/// The argument lists of every laid-out branch, grouped by target block.
pub(super) fn incoming_args(func: &Function) -> HashMap<Block, Vec<Vec<Value>>> {
    let mut incoming: HashMap<Block, Vec<Vec<Value>>> = HashMap::new();
    for &b in &func.layout {
        let Some(term) = terminator(func, b) else {
            continue;
        };
        for call in func.inst(term).branch_targets() {
            incoming
                .entry(call.block)
                .or_default()
                .push(call.args.clone());
        }
    }
    incoming
}

/// Deletes stack slots that no laid-out `stack_addr` names and renumbers the
/// rest (keeping their order), so the frame only holds what is used.
pub(super) fn compact_stack_slots(func: &mut Function) -> bool {
    let n = func.stack_slots.len();
    let mut used = vec![false; n];
    for (_, i) in func.laid_out_insts() {
        if let InstData::StackAddr { slot } = func.inst(i) {
            if let Some(u) = used.get_mut(slot.index()) {
                *u = true;
            }
        }
    }
    if used.iter().all(|&u| u) {
        return false;
    }
    let mut renumber = vec![None; n];
    let mut kept = Vec::new();
    for (k, data) in func.stack_slots.iter().enumerate() {
        if used[k] {
            renumber[k] = Some(StackSlot::new(kept.len()));
            kept.push(*data);
        }
    }
    func.stack_slots = kept;
    let insts: Vec<_> = func.laid_out_insts().map(|(_, i)| i).collect();
    for i in insts {
        if let InstData::StackAddr { slot } = func.inst_mut(i) {
            if let Some(Some(new)) = renumber.get(slot.index()) {
                *slot = *new;
            }
        }
    }
    true
}

/// The ids of all functions of a module.
pub(super) fn func_ids(module: &Module) -> impl Iterator<Item = FuncId> {
    (0..module.funcs.len()).map(FuncId::new)
}

/// If `v` is the result of a laid-out-or-not `iconst`, its value.
pub(super) fn iconst_value(func: &Function, v: Value) -> Option<i32> {
    match func.values.get(v.index())?.def {
        ValueDef::Result(i) => match func.insts.get(i.index())?.data {
            InstData::Iconst { imm } => Some(imm),
            _ => None,
        },
        ValueDef::Param(..) => None,
    }
}

/// If `v` is the result of a `bconst`, its value.
pub(super) fn bconst_value(func: &Function, v: Value) -> Option<bool> {
    match func.values.get(v.index())?.def {
        ValueDef::Result(i) => match func.insts.get(i.index())?.data {
            InstData::Bconst { imm } => Some(imm),
            _ => None,
        },
        ValueDef::Param(..) => None,
    }
}
