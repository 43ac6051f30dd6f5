//! Divergence (uniformity) analysis: which values may differ between the
//! threads of a warp, which branches may split a warp, and which blocks may
//! run with only part of a warp.
//!
//! Where it sits: after SSA construction and the clean-ups, before the
//! control-flow strategy, the layout and register allocation. Its users are
//! `--stats` (branches by class), the back end (consensual branches for
//! uniform conditions) and divergence-aware spilling.
//!
//! The analysis follows Sampaio's simple divergence analysis (ch. 3.4): a
//! value is divergent when it is seeded as such (thread and lane ids, the
//! clock, atomics, per-thread memory, results of calls and the arguments of
//! device functions, which may come from divergent call sites) or computed
//! from a divergent operand. Our IR has block parameters instead of GSA's
//! γ/μ/η functions, so control dependence is made explicit the way LLVM's
//! uniformity analysis does it:
//!
//! * **sync dependence**: a branch on a divergent condition makes the
//!   parameters of its *join blocks* divergent (γ with a divergent gate).
//!   A join block is one reached from two different successors of the
//!   branch along paths that stay before the branch's immediate
//!   post-dominator and do not take the back edge of a loop containing the
//!   branch (that path is the next iteration, which every thread still in
//!   the loop takes together).
//! * **divergent loop exits and temporal divergence**: when a divergent
//!   branch inside a loop reconverges only outside it (its immediate
//!   post-dominator lies outside the loop), threads leave the loop in
//!   different iterations. Values computed in the loop stay uniform inside
//!   it (Sampaio's `d_in` of `sumTriangle`), but every use *outside* the
//!   loop sees a divergent value (`d_out`, η with a divergent gate), and the
//!   parameters of the loop's exit blocks are divergent.
//!
//! Blocks between a divergent branch and its post-dominator run with a
//! partial warp: a vote there sees only some of the threads, so its result
//! is divergent. Irreducible control flow is handled conservatively: with a
//! divergent branch anywhere, every block parameter is divergent.
//!
//! The lattice has height two (uniform < divergent) and every rule is
//! monotone, so the fixed point is reached after at most one round per
//! newly divergent value.

use crate::dominator_tree::{DominatorTree, PostDominatorTree};
use crate::flowgraph::ControlFlowGraph;
use crate::ir::{Block, FuncKind, Function, InstData, MemSpace, Value};
use crate::loop_analysis::{LoopAnalysis, LoopId};

/// The result of the analysis for one function.
#[derive(Clone, Debug)]
pub struct DivergenceAnalysis {
    /// Per value: divergent at its definition.
    divergent: Vec<bool>,
    /// Per block: its terminator is a conditional branch on a divergent
    /// condition with two different targets.
    divergent_branch: Vec<bool>,
    /// Per block: may run with only part of a warp.
    partial_warp: Vec<bool>,
    /// Per loop: threads may leave it in different iterations.
    divergent_exit: Vec<bool>,
    /// Per value: the block that defines it.
    def_block: Vec<Option<Block>>,
    loops: LoopAnalysis,
}

/// How a conditional branch behaves on a warp.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BranchClass {
    /// Every thread of the warp takes the same way.
    Uniform,
    /// Threads may take different ways.
    Divergent,
}

impl DivergenceAnalysis {
    /// Runs the analysis on `func` (whose CFG analyses are computed here).
    pub fn compute(func: &Function) -> DivergenceAnalysis {
        let cfg = ControlFlowGraph::compute(func);
        let domtree = DominatorTree::compute(func, &cfg);
        let postdom = PostDominatorTree::compute(func, &cfg);
        let loops = LoopAnalysis::compute(func, &cfg, &domtree);
        Self::compute_with(func, &cfg, &domtree, &postdom, loops)
    }

    /// Runs the analysis with CFG analyses the caller already has.
    pub fn compute_with(
        func: &Function,
        cfg: &ControlFlowGraph,
        domtree: &DominatorTree,
        postdom: &PostDominatorTree,
        loops: LoopAnalysis,
    ) -> DivergenceAnalysis {
        let n_blocks = func.blocks.len();
        let mut def_block = vec![None; func.values.len()];
        for &b in domtree.rpo() {
            for (k, _) in func.block(b).params.iter().enumerate() {
                let v = func.block(b).params[k];
                def_block[v.index()] = Some(b);
            }
            for &i in &func.block(b).insts {
                if let Some(r) = func.inst_result(i) {
                    def_block[r.index()] = Some(b);
                }
            }
        }
        let mut a = DivergenceAnalysis {
            divergent: vec![false; func.values.len()],
            divergent_branch: vec![false; n_blocks],
            partial_warp: vec![false; n_blocks],
            divergent_exit: vec![false; loops.loops().len()],
            def_block,
            loops,
        };
        // Arguments of device functions may differ between callers' threads.
        if func.kind == FuncKind::Device {
            if let Some(entry) = func.entry_block() {
                for &p in &func.block(entry).params {
                    a.divergent[p.index()] = true;
                }
            }
        }
        loop {
            let mut changed = a.propagate_data(func, domtree);
            changed |= a.propagate_control(func, cfg, domtree, postdom);
            if !changed {
                break;
            }
        }
        a
    }

    /// Whether `v` may differ between threads at its definition.
    pub fn is_divergent(&self, v: Value) -> bool {
        self.divergent.get(v.index()).copied().unwrap_or(true)
    }

    /// Whether `v` may differ between threads when read in block `user`:
    /// divergent at its definition, or temporally divergent (defined in a
    /// loop with a divergent exit and read outside that loop).
    pub fn is_divergent_at(&self, v: Value, user: Block) -> bool {
        self.is_divergent(v) || self.temporally_divergent(v, user)
    }

    /// Whether `v` is uniform at its definition but read in `user` after a
    /// loop that threads leave in different iterations.
    pub fn temporally_divergent(&self, v: Value, user: Block) -> bool {
        let Some(def) = self.def_block.get(v.index()).copied().flatten() else {
            return false;
        };
        let mut l = self.loops.innermost(def);
        while let Some(id) = l {
            let info = self.loops.get(id);
            if self.divergent_exit[id.index()] && !info.contains(user) {
                return true;
            }
            l = info.parent;
        }
        false
    }

    /// The class of the conditional branch ending `b` (`Uniform` for other
    /// terminators).
    pub fn branch_class(&self, b: Block) -> BranchClass {
        if self.divergent_branch.get(b.index()).copied().unwrap_or(false) {
            BranchClass::Divergent
        } else {
            BranchClass::Uniform
        }
    }

    /// Whether `b` may run with only part of a warp (it lies between a
    /// divergent branch and the point where the warp reconverges).
    pub fn runs_partial_warp(&self, b: Block) -> bool {
        self.partial_warp.get(b.index()).copied().unwrap_or(true)
    }

    /// Whether threads may leave `l` in different iterations.
    pub fn has_divergent_exit(&self, l: LoopId) -> bool {
        self.divergent_exit[l.index()]
    }

    pub fn loops(&self) -> &LoopAnalysis {
        &self.loops
    }

    fn mark(&mut self, v: Value) -> bool {
        let slot = &mut self.divergent[v.index()];
        let was = *slot;
        *slot = true;
        !was
    }

    /// Data dependences: results from divergent operands, seeds, and block
    /// parameters from divergent branch arguments.
    fn propagate_data(&mut self, func: &Function, domtree: &DominatorTree) -> bool {
        let mut changed = false;
        for &b in domtree.rpo() {
            for &i in &func.block(b).insts {
                let data = func.inst(i);
                if let Some(r) = func.inst_result(i) {
                    if !self.divergent[r.index()] {
                        let mut div = self.is_seed(data, b);
                        data.for_each_arg(|v| div |= self.is_divergent_at(v, b));
                        if div {
                            changed |= self.mark(r);
                        }
                    }
                }
                for target in data.branch_targets() {
                    let params = &func.block(target.block).params;
                    for (&arg, &param) in target.args.iter().zip(params) {
                        if !self.divergent[param.index()] && self.is_divergent_at(arg, b) {
                            changed |= self.mark(param);
                        }
                    }
                }
            }
        }
        changed
    }

    fn is_seed(&self, data: &InstData, b: Block) -> bool {
        match data {
            InstData::Special { reg } => {
                // The clock is read by different threads at different times.
                !reg.is_warp_uniform()
                    || matches!(
                        reg,
                        concord_isa::instr::SpecialReg::ClockLo
                            | concord_isa::instr::SpecialReg::ClockHi
                    )
            }
            InstData::Atomic { .. } | InstData::Call { .. } => true,
            InstData::Load { space, .. } => *space == MemSpace::Local,
            // Every voter gets the same answer, but under a partial warp the
            // threads that vote later get another one.
            InstData::Vote { .. } => self.runs_partial_warp(b),
            _ => false,
        }
    }

    /// Control dependences of the divergent branches.
    fn propagate_control(
        &mut self,
        func: &Function,
        cfg: &ControlFlowGraph,
        domtree: &DominatorTree,
        postdom: &PostDominatorTree,
    ) -> bool {
        let mut changed = false;
        for &b in domtree.rpo() {
            if self.divergent_branch[b.index()] {
                continue;
            }
            let Some(t) = func.terminator(b) else {
                continue;
            };
            let InstData::Brif {
                cond,
                then_dest,
                else_dest,
            } = func.inst(t)
            else {
                continue;
            };
            if then_dest.block == else_dest.block || !self.is_divergent_at(*cond, b) {
                continue;
            }
            self.divergent_branch[b.index()] = true;
            changed = true;
            self.apply_divergent_branch(func, cfg, postdom, b);
        }
        changed
    }

    fn apply_divergent_branch(
        &mut self,
        func: &Function,
        cfg: &ControlFlowGraph,
        postdom: &PostDominatorTree,
        b: Block,
    ) {
        let n = func.blocks.len();
        let reconverge = postdom.ipdom(b);

        // Blocks that run with part of the warp: everything reachable from
        // the branch before the reconvergence point.
        let mut seen = vec![false; n];
        let mut stack: Vec<Block> = cfg.succs(b).to_vec();
        while let Some(x) = stack.pop() {
            if Some(x) == reconverge || seen[x.index()] {
                continue;
            }
            seen[x.index()] = true;
            self.partial_warp[x.index()] = true;
            stack.extend_from_slice(cfg.succs(x));
        }

        // Loops the warp leaves in pieces: those containing the branch but
        // not its reconvergence point.
        let mut l = self.loops.innermost(b);
        let mut enclosing_headers = Vec::new();
        while let Some(id) = l {
            let info = self.loops.get(id);
            enclosing_headers.push(info.header);
            let leaves = match reconverge {
                Some(r) => !info.contains(r),
                None => true,
            };
            if leaves && !self.divergent_exit[id.index()] {
                self.divergent_exit[id.index()] = true;
                for &(_, to) in &info.exits.clone() {
                    for &p in &func.block(to).params {
                        self.divergent[p.index()] = true;
                    }
                }
            }
            l = info.parent;
        }

        // Join blocks: reached from two different successors before the
        // reconvergence point (included) without starting a new iteration
        // of a loop around the branch.
        if self.loops.is_irreducible() {
            for data in &func.blocks {
                for &p in &data.params {
                    self.divergent[p.index()] = true;
                }
            }
            return;
        }
        let mut label: Vec<Option<usize>> = vec![None; n];
        let mut join = vec![false; n];
        let mut succs = cfg.succs(b).to_vec();
        succs.dedup();
        for (k, &s) in succs.iter().enumerate() {
            let mut seen = vec![false; n];
            let mut stack = vec![s];
            while let Some(x) = stack.pop() {
                if seen[x.index()] || x == b || enclosing_headers.contains(&x) {
                    continue;
                }
                seen[x.index()] = true;
                match label[x.index()] {
                    Some(other) if other != k => join[x.index()] = true,
                    Some(_) => {}
                    None => label[x.index()] = Some(k),
                }
                if Some(x) != reconverge {
                    stack.extend_from_slice(cfg.succs(x));
                }
            }
        }
        for (x, is_join) in join.iter().enumerate() {
            if *is_join {
                for &p in &func.blocks[x].params {
                    self.divergent[p.index()] = true;
                }
            }
        }
    }

    /// Counts for `--stats`.
    pub fn summary(&self, func: &Function) -> DivergenceSummary {
        let mut s = DivergenceSummary::default();
        for (b, i) in func.laid_out_insts() {
            if let Some(r) = func.inst_result(i) {
                if self.is_divergent(r) {
                    s.divergent_values += 1;
                } else {
                    s.uniform_values += 1;
                }
            }
            if matches!(func.inst(i), InstData::Brif { .. }) {
                match self.branch_class(b) {
                    BranchClass::Uniform => s.uniform_branches += 1,
                    BranchClass::Divergent => s.divergent_branches += 1,
                }
            }
        }
        for &b in &func.layout {
            for &p in &func.block(b).params {
                if self.is_divergent(p) {
                    s.divergent_values += 1;
                } else {
                    s.uniform_values += 1;
                }
            }
        }
        s
    }
}

/// Value and branch counts of one function.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct DivergenceSummary {
    pub uniform_values: usize,
    pub divergent_values: usize,
    pub uniform_branches: usize,
    pub divergent_branches: usize,
}

/// A readable account of the analysis of `func`, one fact per line, for
/// filetests and `--stats` debugging: the class of every value (with the
/// loops after which a uniform value is read as divergent), every
/// conditional branch, every loop with a divergent exit and every block
/// that may run with part of a warp.
pub fn describe(func: &Function) -> String {
    use std::fmt::Write as _;
    let a = DivergenceAnalysis::compute(func);
    let mut out = String::new();
    let _ = writeln!(out, "function @{}", func.name);
    let mut values = Vec::new();
    for &b in &func.layout {
        values.extend(func.block(b).params.iter().copied());
        for &i in &func.block(b).insts {
            values.extend(func.inst_result(i));
        }
    }
    // Blocks where each value is read.
    let mut users: Vec<Vec<Block>> = vec![Vec::new(); func.values.len()];
    for (b, i) in func.laid_out_insts() {
        func.inst(i).for_each_arg(|v| users[v.index()].push(b));
    }
    for v in values {
        let class = if a.is_divergent(v) {
            "divergent"
        } else {
            "uniform"
        };
        let mut after: Vec<String> = Vec::new();
        for &u in &users[v.index()] {
            if !a.is_divergent(v) && a.temporally_divergent(v, u) {
                let name = u.to_string();
                if !after.contains(&name) {
                    after.push(name);
                }
            }
        }
        if after.is_empty() {
            let _ = writeln!(out, "{v}: {class}");
        } else {
            let _ = writeln!(out, "{v}: {class}, divergent in {}", after.join(", "));
        }
    }
    for &b in &func.layout {
        if let Some(t) = func.terminator(b) {
            if matches!(func.inst(t), InstData::Brif { .. }) {
                let class = match a.branch_class(b) {
                    BranchClass::Uniform => "uniform",
                    BranchClass::Divergent => "divergent",
                };
                let _ = writeln!(out, "{b}: branch {class}");
            }
        }
    }
    for (k, l) in a.loops.loops().iter().enumerate() {
        if a.divergent_exit[k] {
            let _ = writeln!(out, "loop {}: divergent exit", l.header);
        }
    }
    let partial: Vec<String> = func
        .layout
        .iter()
        .filter(|b| a.runs_partial_warp(**b))
        .map(|b| b.to_string())
        .collect();
    if !partial.is_empty() {
        let _ = writeln!(out, "partial warp: {}", partial.join(" "));
    }
    out
}
