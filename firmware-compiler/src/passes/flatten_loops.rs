//! Loop flattening of data-dependent nested loops (Bulavintsev, "Flattening
//! of data-dependent nested loops for compile-time optimization of GPU
//! programs", after Kennedy's loop flattening).
//!
//! An outer loop `A` containing an inner loop `B` whose trip count differs
//! between the lanes of a warp makes the lanes that finished `B` idle until
//! the last lane of the warp leaves it. Flattening merges `B` into `A` so
//! that one back edge remains: every iteration of the merged loop does
//! either one iteration of `B` (lanes still in their inner loop) or the
//! outer step (the rest of `A`'s body: outer work, advance, re-entry of
//! `B`), so a lane that leaves `B` goes on to its next outer iteration
//! while the other lanes continue `B`.
//!
//! # The transformation
//!
//! With `H_A` / `H_B` the headers (and `pA` / `pB` their parameters):
//!
//! 1. `H_A`'s instructions move to a new block `W` (the paper's `Aw`); `H_A`
//!    keeps `pA`, gains `outer: i1` and a copy `pB'` of `pB`, and becomes the
//!    dispatch `brif outer, W, H_B(pB')` (the paper's empty `Ah`);
//! 2. a new latch `T(inner: i1, pA'', pB'')` (the paper's `At`) computes
//!    `outer = bnot inner` and jumps to `H_A(pA'', outer, pB'')`;
//! 3. the back edges of `A` go to `T(false, args, zeros)`, the back edges of
//!    `B` to `T(true, pA, args)` (the outer state is unchanged during `B`),
//!    and the edges entering `A` pass `outer = true` and zeros for `pB'`;
//! 4. values whose definition no longer dominates a use (the edge
//!    `H_A -> H_B` skips `W` and the rest of the outer body) are carried in
//!    new block parameters, built by SSA reconstruction (Braun et al.); the
//!    placeholders they receive on the entry into `A` are never read.
//!
//! Every lane runs the same instructions in the same order as before, with
//! `T` and the dispatch inserted at every back edge, so the result of every
//! thread is unchanged. What changes is which lanes run together.
//!
//! # Conditions
//!
//! A *nest* is a loop with directly nested loops. It is flattened when:
//!
//! * the function's CFG is reducible (natural loops only);
//! * exactly one directly nested loop `B` has a divergent exit
//!   ([`DivergenceAnalysis::has_divergent_exit`]): lanes leave it in
//!   different iterations. Inner loops whose exits are uniform are not
//!   flattened: all lanes leave them together, no lane idles, and by the
//!   paper's cost model (gain `n·T_b` for `n` idle lanes against
//!   `(N−n)·T_a` for the speculative outer step) the transformation only
//!   costs. They stay loops of their own inside the merged loop, part of
//!   the outer (or inner) work. With several divergent inner loops the nest
//!   is refused (a multi-way dispatch would be needed);
//! * the nest (every block of `A`, `B` included) contains no barrier, no
//!   vote and no call of a function that may reach one: lanes of a warp now
//!   reach them in different iterations of the merged loop, so a vote would
//!   see a different set of voters and a barrier would be reached at
//!   different times by lanes that used to reach it together.
//!
//! Exits of `B` may go anywhere (back into `A`, to `A`'s header, or out of
//! `A` altogether: `return` or a `break` out of both loops): the per-thread
//! paths are unchanged, and SSA reconstruction carries what the exit
//! targets read. Calls without barriers or votes and other side effects are
//! fine: no instruction is moved across lanes or duplicated.
//!
//! Nests are flattened one at a time, recomputing the analyses each time,
//! until none qualifies; a doubly nested divergent nest thus ends as one
//! loop. Every nest left unflattened gets a note naming the conditions it
//! fails ([`FlattenReport::notes`]).
//!
//! # Min-PC reconvergence
//!
//! The single latch `T` is what makes the transformation pay on this core.
//! The layout places it after every block of the merged loop that reaches
//! it, so lanes that continue `B` (a forward jump to `T`) wait there for the
//! lanes that left `B` and run the outer work; all meet at `T`, take the one
//! back edge together, and at `H_A` the lanes starting a new outer
//! iteration run `W` first (it comes before `H_B`) and meet the others at
//! `H_B`. Direct back edges from `B`'s latches to `H_A` would let those
//! lanes loop ahead while the others wait after `B`, as before flattening.
//! `T`'s `bnot` keeps it from being a forwarding block, which
//! [`simplify_cfg`](super::simplify_cfg) would thread away.
//!
//! Where it sits: optional ([`OptOptions::flatten_loops`](super::OptOptions)),
//! after the clean-up rounds of [`super::pipeline`] (so the divergence
//! analysis sees clean code), followed by one more clean-up round.

use std::collections::HashMap;

use super::util::{func_ids, remove_trivial_params, remove_unreachable_blocks};
use crate::divergence::DivergenceAnalysis;
use crate::dominator_tree::DominatorTree;
use crate::flowgraph::ControlFlowGraph;
use crate::ir::{Block, BlockCall, FuncId, Function, Inst, InstData, Module, Type, UnaryOp, Value};
use crate::loop_analysis::{LoopAnalysis, LoopId, LoopInfo};

/// Configuration of [`run`].
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct FlattenOptions {
    /// Also flatten nests whose inner loop has uniform exits (for
    /// measurements: the paper's cost model says it never pays).
    pub include_uniform: bool,
}

/// What [`run`] did.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct FlattenReport {
    /// The flattened nests: function name and the outer loop's header
    /// (which stays the header of the merged loop).
    pub flattened: Vec<(String, Block)>,
    /// One note per nest that was not flattened, naming the failed
    /// conditions.
    pub notes: Vec<String>,
}

/// Flattens every qualifying loop nest of every function.
pub fn run(module: &mut Module, options: &FlattenOptions) -> FlattenReport {
    let synchronising = synchronising_functions(module);
    let mut report = FlattenReport::default();
    for id in func_ids(module).collect::<Vec<_>>() {
        run_function(module, id, &synchronising, options, &mut report);
    }
    report
}

fn run_function(
    module: &mut Module,
    id: FuncId,
    synchronising: &[bool],
    options: &FlattenOptions,
    report: &mut FlattenReport,
) {
    // Every flattening removes a loop, so this terminates after at most one
    // round per block; the bound only turns a bug into a missed chance.
    let rounds = module.func(id).blocks.len() + 1;
    let mut merged: Vec<Block> = Vec::new();
    for _ in 0..rounds {
        let func = module.func(id);
        match find_nest(func, synchronising, options, &merged) {
            Search::Found { outer, inner } => {
                let func = module.func_mut(id);
                flatten(func, &outer, &inner);
                merged.push(outer.header);
                report.flattened.push((func.name.clone(), outer.header));
            }
            Search::None { notes } => {
                report.notes.extend(notes);
                return;
            }
        }
    }
}

enum Search {
    Found { outer: LoopInfo, inner: LoopInfo },
    None { notes: Vec<String> },
}

/// The first nest (outer loops first) that qualifies, or a note for every
/// nest explaining why it does not. `merged` are the headers of loops this
/// run already flattened (their notes say so).
fn find_nest(
    func: &Function,
    synchronising: &[bool],
    options: &FlattenOptions,
    merged: &[Block],
) -> Search {
    let divergence = DivergenceAnalysis::compute(func);
    let loops: &LoopAnalysis = divergence.loops();
    let children = |outer: usize| -> Vec<LoopId> {
        (0..loops.loops().len())
            .filter(|&j| loops.loops()[j].parent.map(|p| p.index()) == Some(outer))
            .map(|j| LoopId(j as u32))
            .collect()
    };
    let nests: Vec<usize> = (0..loops.loops().len())
        .filter(|&i| !children(i).is_empty())
        .collect();
    if loops.is_irreducible() {
        let notes = if nests.is_empty() {
            Vec::new()
        } else {
            vec![format!(
                "@{}: loop flattening: not applied: the CFG is irreducible",
                func.name
            )]
        };
        return Search::None { notes };
    }
    let mut notes = Vec::new();
    for outer in nests {
        let info = &loops.loops()[outer];
        let mut failed = Vec::new();
        if let Some(what) = first_synchronisation(func, info, synchronising) {
            failed.push(what);
        }
        let inner: Vec<LoopId> = children(outer);
        let candidates: Vec<LoopId> = inner
            .iter()
            .copied()
            .filter(|&l| options.include_uniform || divergence.has_divergent_exit(l))
            .collect();
        let headers = |ids: &[LoopId]| {
            ids.iter()
                .map(|&l| loops.get(l).header.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match candidates.len() {
            0 => failed.push(format!(
                "the exits of its inner loop(s) ({}) are uniform: every lane leaves in the \
                 same iteration, so no lane idles and flattening would only add overhead",
                headers(&inner)
            )),
            1 => {}
            _ => failed.push(format!(
                "{} inner loops ({}) have divergent exits; only a nest with one is flattened",
                candidates.len(),
                headers(&candidates)
            )),
        }
        if failed.is_empty() {
            return Search::Found {
                outer: info.clone(),
                inner: loops.get(candidates[0]).clone(),
            };
        }
        let what = if merged.contains(&info.header) {
            "merged loop at"
        } else {
            "loop nest at"
        };
        notes.push(format!(
            "@{}: {what} {} not flattened: {}",
            func.name,
            info.header,
            failed.join("; ")
        ));
    }
    Search::None { notes }
}

/// A description of the first barrier, vote or synchronising call in the
/// loop, if any.
fn first_synchronisation(func: &Function, l: &LoopInfo, synchronising: &[bool]) -> Option<String> {
    for &b in &l.blocks {
        for &i in &func.block(b).insts {
            let what = match func.inst(i) {
                InstData::Barrier => "a barrier".to_string(),
                InstData::Vote { op, .. } => format!("a vote.{}", op.name()),
                InstData::Call { func: callee, .. }
                    if synchronising.get(callee.index()).copied().unwrap_or(true) =>
                {
                    "a call that may reach a barrier or vote".to_string()
                }
                _ => continue,
            };
            return Some(format!(
                "the nest contains {what} (in {b}), which lanes would reach in different \
                 iterations"
            ));
        }
    }
    None
}

/// Per function: whether running it may execute a barrier or a vote
/// (directly or through calls; calls of unknown functions count).
fn synchronising_functions(module: &Module) -> Vec<bool> {
    let n = module.funcs.len();
    let mut sync = vec![false; n];
    let mut calls: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (k, f) in module.funcs.iter().enumerate() {
        for (_, i) in f.laid_out_insts() {
            match f.inst(i) {
                InstData::Barrier | InstData::Vote { .. } => sync[k] = true,
                InstData::Call { func, .. } => {
                    if func.index() < n {
                        calls[k].push(func.index());
                    } else {
                        sync[k] = true;
                    }
                }
                _ => {}
            }
        }
    }
    // Propagate to callers until nothing changes (recursion included).
    let mut changed = true;
    while changed {
        changed = false;
        for k in 0..n {
            if !sync[k] && calls[k].iter().any(|&c| sync[c]) {
                sync[k] = true;
                changed = true;
            }
        }
    }
    sync
}

/// Merges `inner` into `outer` (see the module docs for the steps).
fn flatten(func: &mut Function, outer: &LoopInfo, inner: &LoopInfo) {
    remove_unreachable_blocks(func);
    let Some(entry) = func.entry_block() else {
        return;
    };
    let ha = outer.header;
    let hb = inner.header;
    let n = func.blocks.len();
    let mut in_outer = vec![false; n];
    let mut in_inner = vec![false; n];
    outer.blocks.iter().for_each(|b| in_outer[b.index()] = true);
    inner.blocks.iter().for_each(|b| in_inner[b.index()] = true);
    let pa: Vec<Value> = func.block(ha).params.clone();
    let pb_types: Vec<Type> = func
        .block(hb)
        .params
        .iter()
        .map(|&v| func.value_type(v))
        .collect();
    let pa_types: Vec<Type> = pa.iter().map(|&v| func.value_type(v)).collect();

    // Constants for the flags and placeholders, at the top of the entry
    // block (which dominates every use).
    let mut constants = EntryConstants::new(entry);
    let flag_true = constants.get(func, Constant::Bool(true));
    let flag_false = constants.get(func, Constant::Bool(false));
    let zeros_b: Vec<Value> = pb_types
        .iter()
        .map(|&ty| constants.get(func, Constant::zero(ty)))
        .collect();

    // 1. The outer work block W takes over H_A's instructions.
    let w = func.create_block();
    func.block_mut(w).insts = std::mem::take(&mut func.block_mut(ha).insts);
    let ha_pos = func.layout.iter().position(|&b| b == ha).unwrap_or(0);
    func.layout.insert(ha_pos + 1, w);
    let outer_flag = func.add_block_param(ha, Type::I1);
    let pb_at_ha: Vec<Value> = pb_types
        .iter()
        .map(|&ty| func.add_block_param(ha, ty))
        .collect();
    func.append_inst(
        ha,
        InstData::Brif {
            cond: outer_flag,
            then_dest: BlockCall::new(w),
            else_dest: BlockCall {
                block: hb,
                args: pb_at_ha,
            },
        },
        None,
    );

    // 2. The single latch T.
    let t = func.create_block();
    let last_pos = func
        .layout
        .iter()
        .rposition(|b| in_outer.get(b.index()).copied().unwrap_or(false))
        .unwrap_or(func.layout.len() - 1);
    func.layout.insert(last_pos + 1, t);
    let inner_flag = func.add_block_param(t, Type::I1);
    let pa_at_t: Vec<Value> = pa_types
        .iter()
        .map(|&ty| func.add_block_param(t, ty))
        .collect();
    let pb_at_t: Vec<Value> = pb_types
        .iter()
        .map(|&ty| func.add_block_param(t, ty))
        .collect();
    let outer_next = func.append_inst(
        t,
        InstData::Unary {
            op: UnaryOp::Not,
            arg: inner_flag,
        },
        Some(Type::I1),
    );
    let outer_next = func.inst_result(outer_next).unwrap_or(inner_flag);
    let mut t_args = pa_at_t;
    t_args.push(outer_next);
    t_args.extend(pb_at_t);
    func.append_inst(
        t,
        InstData::Jump {
            dest: BlockCall {
                block: ha,
                args: t_args,
            },
        },
        None,
    );

    // 3. Redirect the back edges and extend the entry edges.
    for k in 0..func.layout.len() {
        let b = func.layout[k];
        if b == t || b == ha {
            continue;
        }
        let from_outer = b == w || in_outer.get(b.index()).copied().unwrap_or(false);
        let from_inner = in_inner.get(b.index()).copied().unwrap_or(false);
        let Some(term) = func.terminator(b) else {
            continue;
        };
        for call in func.inst_mut(term).branch_targets_mut() {
            if call.block == ha && from_outer {
                // A back edge of A: the outer step comes next.
                let mut args = vec![flag_false];
                args.append(&mut call.args);
                args.extend(zeros_b.iter().copied());
                *call = BlockCall { block: t, args };
            } else if call.block == ha {
                // Entering A: start with the outer step.
                call.args.push(flag_true);
                call.args.extend(zeros_b.iter().copied());
            } else if call.block == hb && from_inner {
                // A back edge of B: one more inner iteration, outer state kept.
                let mut args = vec![flag_true];
                args.extend(pa.iter().copied());
                args.append(&mut call.args);
                *call = BlockCall { block: t, args };
            }
        }
    }

    // 4. Carry the values whose definitions no longer dominate their uses.
    repair_ssa(func, &mut constants);
    remove_trivial_params(func);
}

/// A constant the pass materialises.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Constant {
    Bool(bool),
    Int(i32),
}

impl Constant {
    fn zero(ty: Type) -> Constant {
        match ty {
            Type::I1 => Constant::Bool(false),
            Type::I32 => Constant::Int(0),
        }
    }
}

/// Constants placed at the top of the entry block, one per value.
struct EntryConstants {
    entry: Block,
    made: HashMap<Constant, Value>,
}

impl EntryConstants {
    fn new(entry: Block) -> EntryConstants {
        EntryConstants {
            entry,
            made: HashMap::new(),
        }
    }

    fn get(&mut self, func: &mut Function, c: Constant) -> Value {
        if let Some(&v) = self.made.get(&c) {
            return v;
        }
        let (data, ty) = match c {
            Constant::Bool(imm) => (InstData::Bconst { imm }, Type::I1),
            Constant::Int(imm) => (InstData::Iconst { imm }, Type::I32),
        };
        let inst = func.insert_inst(self.entry, 0, data, Some(ty));
        let v = func
            .inst_result(inst)
            .expect("constants have a result by construction");
        self.made.insert(c, v);
        v
    }
}

/// Rewrites every use whose definition does not dominate it to read the
/// value reaching it along the actual path, adding block parameters where
/// paths with different reaching values meet (Braun et al.'s SSA
/// construction with one definition per value). Paths on which the value
/// is not defined get a zero placeholder: in the flattened loop such a path
/// never reaches a use without passing the definition.
fn repair_ssa(func: &mut Function, constants: &mut EntryConstants) {
    let cfg = ControlFlowGraph::compute(func);
    let domtree = DominatorTree::compute(func, &cfg);
    let mut def_block: Vec<Option<Block>> = vec![None; func.values.len()];
    for &b in &func.layout {
        for &p in &func.block(b).params {
            def_block[p.index()] = Some(b);
        }
        for &i in &func.block(b).insts {
            if let Some(r) = func.inst_result(i) {
                def_block[r.index()] = Some(b);
            }
        }
    }
    // Broken uses, grouped by value in first-use order.
    let mut broken: Vec<(Value, Vec<(Block, Inst)>)> = Vec::new();
    let mut index_of: HashMap<Value, usize> = HashMap::new();
    for &b in &func.layout {
        if !domtree.is_reachable(b) {
            continue;
        }
        for &i in &func.block(b).insts {
            func.inst(i).for_each_arg(|v| {
                let Some(d) = def_block.get(v.index()).copied().flatten() else {
                    return;
                };
                if d == b || domtree.dominates(d, b) {
                    return;
                }
                let k = *index_of.entry(v).or_insert_with(|| {
                    broken.push((v, Vec::new()));
                    broken.len() - 1
                });
                if !broken[k].1.contains(&(b, i)) {
                    broken[k].1.push((b, i));
                }
            });
        }
    }
    for (value, uses) in broken {
        let Some(def) = def_block[value.index()] else {
            continue;
        };
        let mut updater = Reconstruction {
            cfg: &cfg,
            value,
            def,
            ty: func.value_type(value),
            at_entry: HashMap::new(),
        };
        for (b, i) in uses {
            let reaching = updater.value_at_entry(func, constants, b);
            func.inst_mut(i)
                .map_args(|a| if a == value { reaching } else { a });
        }
    }
}

/// SSA reconstruction of one value.
struct Reconstruction<'a> {
    cfg: &'a ControlFlowGraph,
    value: Value,
    def: Block,
    ty: Type,
    /// The value reaching the start of each block visited so far.
    at_entry: HashMap<Block, Value>,
}

impl Reconstruction<'_> {
    fn value_at_end(&mut self, func: &mut Function, c: &mut EntryConstants, b: Block) -> Value {
        if b == self.def {
            self.value
        } else {
            self.value_at_entry(func, c, b)
        }
    }

    fn value_at_entry(&mut self, func: &mut Function, c: &mut EntryConstants, b: Block) -> Value {
        if let Some(&v) = self.at_entry.get(&b) {
            return v;
        }
        let preds: Vec<Block> = self.cfg.preds(b).to_vec();
        let v = match preds.as_slice() {
            [] => c.get(func, Constant::zero(self.ty)),
            [p] => self.value_at_end(func, c, *p),
            _ => {
                // Record the parameter before visiting the predecessors, so a
                // cycle back to `b` reads it.
                let param = func.add_block_param(b, self.ty);
                self.at_entry.insert(b, param);
                for p in preds {
                    let incoming = self.value_at_end(func, c, p);
                    let Some(term) = func.terminator(p) else {
                        continue;
                    };
                    for call in func.inst_mut(term).branch_targets_mut() {
                        if call.block == b {
                            call.args.push(incoming);
                        }
                    }
                }
                param
            }
        };
        self.at_entry.insert(b, v);
        v
    }
}

/// The `flatten-loops` filetest: verified input, the pass, verified and
/// idempotent output; the report (`; flattened:` and `; note:` lines) comes
/// before the printed module.
pub fn run_filetest(module: &mut Module) -> Result<String, String> {
    crate::filetest::verify(module, "input")?;
    let report = run(module, &FlattenOptions::default());
    crate::filetest::verify(module, "output")?;
    let out = module.to_string();
    let mut again = module.clone();
    let second = run(&mut again, &FlattenOptions::default());
    if !second.flattened.is_empty() || again.to_string() != out {
        return Err(format!(
            "the pass is not idempotent: a second run changed\n{out}\ninto\n{again}"
        ));
    }
    let mut text = String::new();
    for (f, header) in &report.flattened {
        text.push_str(&format!("; flattened: @{f} {header}\n"));
    }
    for note in &report.notes {
        text.push_str(&format!("; note: {note}\n"));
    }
    text.push_str(&out);
    Ok(text)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::interp::{self, InterpLaunch, InterpOptions};
    use crate::ir::{parse_module, verify_module};
    use crate::passes::{optimize, OptOptions};

    /// 16 threads in warps of 4, parameters `items = 0, out = 2048, n = 3`,
    /// and item counts 0..5 that differ between the lanes of a warp.
    fn launch() -> (InterpLaunch, Vec<u8>) {
        let launch = InterpLaunch {
            grid: [1, 1, 1],
            block: [16, 1, 1],
            params: vec![0, 2048, 3, 0, 0, 0, 0, 0],
            lanes: 4,
            shared_memory_bytes: 256,
        };
        let mut global = vec![0u8; 4096];
        for i in 0..256u32 {
            let count = (i * 7 + 3) % 6;
            global[(i * 4) as usize..(i * 4 + 4) as usize].copy_from_slice(&count.to_le_bytes());
        }
        (launch, global)
    }

    /// Global memory after every kernel of `module`, or the error.
    fn outcomes(module: &Module) -> Vec<Result<Vec<u8>, String>> {
        let (launch, global) = launch();
        module
            .kernels()
            .map(|k| {
                let mut memory = global.clone();
                interp::run(module, k, &launch, &mut memory, &InterpOptions::default())
                    .map(|_| memory)
                    .map_err(|e| e.to_string())
            })
            .collect()
    }

    fn filetest_inputs() -> Vec<(String, Module)> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("filetests/flatten-loops");
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .expect("filetest directory")
            .map(|e| e.expect("directory entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "cir"))
            .collect();
        paths.sort();
        paths
            .into_iter()
            .map(|path| {
                let name = path.display().to_string();
                let text = std::fs::read_to_string(&path).expect("readable filetest");
                let module = parse_module(&text, &name).expect("filetest parses");
                (name, module)
            })
            .collect()
    }

    /// The back edges of `func` (edges to a block that dominates the source).
    fn back_edges(func: &Function) -> Vec<(Block, Block)> {
        let cfg = ControlFlowGraph::compute(func);
        let domtree = DominatorTree::compute(func, &cfg);
        let mut edges = Vec::new();
        for &b in domtree.rpo() {
            for &s in cfg.succs(b) {
                if domtree.dominates(s, b) {
                    edges.push((b, s));
                }
            }
        }
        edges
    }

    /// Every filetest input, flattened: it verifies, its layout passes the
    /// layout verifier, and every kernel leaves the same memory on the
    /// interpreter (and runs without error: the inputs are made for this
    /// launch).
    #[test]
    fn filetest_inputs_keep_their_results() {
        for (path, module) in filetest_inputs() {
            let before = outcomes(&module);
            let mut flat = module.clone();
            let report = run(&mut flat, &FlattenOptions::default());
            verify_module(&flat).unwrap_or_else(|e| panic!("{path}: {e}\n{flat}"));
            for b in &before {
                assert!(b.is_ok(), "{path}: the input does not run: {b:?}");
            }
            assert_eq!(before, outcomes(&flat), "{path} ({report:?})");
            for f in &mut flat.funcs {
                crate::layout::layout_function(f).expect("reducible");
                crate::layout_verify::verify_layout(f).unwrap_or_else(|e| panic!("{path}: {e}"));
            }
        }
    }

    /// The latch survives the clean-up round of the pipeline (it is no
    /// forwarding block), so the merged loop keeps exactly one back edge,
    /// and the results stay the same.
    #[test]
    fn pipeline_keeps_the_single_latch() {
        let (path, module) = filetest_inputs()
            .into_iter()
            .find(|(p, _)| p.ends_with("workqueue.cir"))
            .expect("workqueue filetest");
        let mut m = module.clone();
        let options = OptOptions {
            verify_each_pass: true,
            flatten_loops: true,
            ..OptOptions::default()
        };
        let report = optimize(&mut m, &options).expect("verifies");
        assert_eq!(report.flatten.flattened, vec![("wq".to_string(), Block(1))]);
        assert!(
            report.flatten.notes.is_empty(),
            "{:?}",
            report.flatten.notes
        );
        let edges = back_edges(&m.funcs[0]);
        assert_eq!(edges.len(), 1, "{path}: {edges:?}\n{m}");
        assert_eq!(edges[0].1, Block(1));
        assert_eq!(outcomes(&module), outcomes(&m));
        // Without the option nothing is flattened and nothing reported.
        let mut plain = module.clone();
        let report = optimize(&mut plain, &OptOptions::default()).expect("verifies");
        assert_eq!(report.flatten, FlattenReport::default());
        assert_eq!(back_edges(&plain.funcs[0]).len(), 2);
    }

    /// Three nested loops with per-lane trip counts: flattened twice (the
    /// outer nest first, then the merged loop with the former innermost
    /// one), ending with one loop.
    #[test]
    fn three_level_nest_becomes_one_loop() {
        let text = "kernel @three(items, out, n) {
block0:
    v0 = param 0
    v1 = param 1
    v2 = param 2
    v3 = special tid.x
    v4 = iconst 0
    v5 = iconst 1
    v6 = iconst 2
    jump block1(v4, v4)
block1(v10: i32, v11: i32):
    v12 = icmp lt v10, v2
    brif v12, block2, block9
block2:
    v13 = iadd v3, v10
    v14 = ishl v13, v6
    v15 = iadd v0, v14
    v16 = load.global.b32 v15
    jump block3(v11, v4)
block3(v20: i32, v21: i32):
    v22 = icmp lt v21, v16
    brif v22, block4, block8
block4:
    v23 = iadd v3, v21
    v24 = ishl v23, v6
    v25 = iadd v0, v24
    v26 = load.global.b32 v25
    jump block5(v20, v4)
block5(v30: i32, v31: i32):
    v32 = icmp lt v31, v26
    brif v32, block6, block7
block6:
    v33 = imul v30, v6
    v34 = iadd v33, v31
    v35 = iadd v31, v5
    jump block5(v34, v35)
block7:
    v36 = iadd v21, v5
    jump block3(v30, v36)
block8:
    v37 = iadd v10, v5
    jump block1(v37, v20)
block9:
    v40 = ishl v3, v6
    v41 = iadd v1, v40
    store.global.b32 v11, v41
    return
}
";
        let module = parse_module(text, "three").expect("parses");
        let mut flat = module.clone();
        let report = run(&mut flat, &FlattenOptions::default());
        verify_module(&flat).unwrap_or_else(|e| panic!("{e}\n{flat}"));
        assert_eq!(
            report.flattened,
            vec![
                ("three".to_string(), Block(1)),
                ("three".to_string(), Block(1))
            ]
        );
        assert!(report.notes.is_empty(), "{:?}", report.notes);
        assert_eq!(back_edges(&flat.funcs[0]).len(), 1, "{flat}");
        let before = outcomes(&module);
        assert!(before[0].is_ok());
        assert_eq!(before, outcomes(&flat));
    }

    /// A call of a function that votes counts as a vote in the nest.
    #[test]
    fn synchronising_call_is_refused() {
        let text = "kernel @k(items, out, n) {
block0:
    v0 = param 0
    v2 = param 2
    v3 = special tid.x
    v4 = iconst 0
    v5 = iconst 1
    jump block1(v4)
block1(v10: i32):
    v11 = icmp lt v10, v2
    brif v11, block2(v4), block4
block2(v20: i32):
    v21 = icmp lt v20, v3
    brif v21, block3, block5
block3:
    v22 = iadd v20, v5
    jump block2(v22)
block5:
    v23 = call @any(v21)
    v24 = iadd v10, v5
    jump block1(v24)
block4:
    return
}

func @wrap(i1) -> i32 {
block0(v0: i1):
    v1 = vote.any v0
    v2 = bint v1
    return v2
}

func @any(i1) -> i32 {
block0(v0: i1):
    v1 = call @wrap(v0)
    return v1
}
";
        let mut module = parse_module(text, "sync").expect("parses");
        let before = module.clone();
        let report = run(&mut module, &FlattenOptions::default());
        assert!(report.flattened.is_empty());
        assert_eq!(report.notes.len(), 1, "{:?}", report.notes);
        assert!(
            report.notes[0].contains("a call that may reach a barrier or vote (in block5)"),
            "{}",
            report.notes[0]
        );
        assert_eq!(module, before);
    }

    /// Random kernels from [`crate::kernel_gen`] through the front end and
    /// the pipeline with flattening: the result verifies and leaves the same
    /// global memory on the interpreter as the unoptimised module
    /// (`FLATTEN_RANDOM_RUNS` kernels, default 60).
    #[test]
    fn random_kernels_keep_their_results() {
        use concord_isa::config::CoreConfig;

        let count: u64 = std::env::var("FLATTEN_RANDOM_RUNS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(60);
        let config = CoreConfig::default();
        let limits = InterpOptions {
            max_steps: 20_000_000,
            max_call_depth: 15,
        };
        let mut failures = Vec::new();
        let (mut compared, mut flattened) = (0, 0);
        for seed in 0..count {
            let k = crate::kernel_gen::generate(seed, &crate::kernel_gen::GenConfig::default());
            let front = crate::frontend::FrontendOptions::default();
            let Ok((module, _)) = crate::frontend::compile_source(&k.source, "kernel.cu", &front)
            else {
                continue;
            };
            let Ok(prepared) = k.prepare_without_code(&config) else {
                continue;
            };
            let launch = InterpLaunch::new(&prepared, &config);
            let run_kernel = |m: &Module| {
                let kernel = m.func_by_name(&k.kernel_name)?;
                let mut global = prepared.global.clone();
                interp::run(m, kernel, &launch, &mut global, &limits).ok()?;
                Some(global)
            };
            let Some(before) = run_kernel(&module) else {
                continue;
            };
            let mut optimised = module.clone();
            let options = OptOptions {
                verify_each_pass: true,
                flatten_loops: true,
                ..OptOptions::default()
            };
            let report = match optimize(&mut optimised, &options) {
                Ok(r) => r,
                Err(e) => {
                    failures.push(format!("seed {seed}: {e}"));
                    continue;
                }
            };
            flattened += report.flatten.flattened.len();
            for f in &mut optimised.funcs {
                if let Err(e) = crate::layout::layout_function(f)
                    .and_then(|()| crate::layout_verify::verify_layout(f))
                {
                    failures.push(format!("seed {seed}: {e}"));
                }
            }
            compared += 1;
            if run_kernel(&optimised) != Some(before) {
                failures.push(format!("seed {seed}: results differ"));
            }
        }
        eprintln!("{compared} random kernels compared, {flattened} nests flattened");
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
