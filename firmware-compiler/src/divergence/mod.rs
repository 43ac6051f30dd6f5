//! Divergence (uniformity) analysis: which values may differ between the
//! threads of a warp, and how (as a polynomial in the thread index, or not
//! at all), which branches may split a warp, and which blocks may run with
//! only part of a warp.
//!
//! Where it sits: after SSA construction and the clean-ups, before the
//! control-flow strategy, the layout and register allocation. Its users are
//! `--stats` (values and branches by class), loop flattening (loops with
//! divergent exits), the back end (consensual branches for uniform
//! conditions) and divergence-aware spilling (rematerialisation of affine
//! values, Sampaio ch. 4).
//!
//! # The two analyses
//!
//! [`DivergenceConfig`] selects between Sampaio's two analyses, which
//! studies compare:
//!
//! * the **simple analysis** (§3.4): a value is uniform or divergent. It is
//!   divergent when it is seeded as such (thread and lane ids, the clock,
//!   atomics, per-thread memory, results of calls, arguments of device
//!   functions, which may come from divergent call sites) or computed from
//!   a divergent operand;
//! * the **affine analysis** (§3.5, the default): every value gets a
//!   polynomial `a2·T² + a1·T + a0` in `T = threadIdx.x` with coefficients
//!   in the constant-propagation lattice ([`affine`]), which sorts values
//!   into the classes [`ValueClass`]: constant, uniform, constant-affine,
//!   affine, divergent. `N - i` of two values `T + c1` and `T + c2` is
//!   `0·T + (c1 - c2)`, so a comparison of them is the same in every
//!   thread, and the loop of Sampaio's `avgSquare` is uniform.
//!
//! Comparisons: `eq`/`ne` are
//! uniform when the difference of their operands has known zero `T` and
//! `T²` coefficients; this is exact in the modular arithmetic of `i32`
//! (`a - b ≡ k` in every thread). Signed `lt`/`le`/`gt`/`ge` are treated
//! the same way, which **assumes that the compared values are the
//! mathematical (non-wrapping) values of their polynomials**, i.e. that
//! no signed arithmetic producing them overflows. C leaves signed overflow
//! undefined, so a C compiler may assume this; IR written by hand or by
//! other front ends with wrapping signed arithmetic may be misclassified.
//! Only the classification depends on it: no transformation of the
//! compiler changes what a program computes because of it. Unsigned
//! comparisons are uniform only when both operands are uniform (`T + c`
//! may wrap around for some threads and not for others).
//!
//! # Control dependence
//!
//! Our IR has block parameters instead of GSA's γ/μ/η functions, so
//! control dependence is made explicit the way LLVM's uniformity analysis
//! does it. A branch is divergent when its condition is not uniform (under
//! the configured analysis); then:
//!
//! * **sync dependence**: the parameters of its *join blocks* are
//!   divergent (γ with a divergent gate, rule PDVA). Joins are found by
//!   label propagation as in LLVM's sync dependence analysis: each
//!   successor of the branch starts a label, labels flow along the CFG up
//!   to the branch's immediate post-dominator (included), a block whose
//!   incoming labels differ is a join and passes on a label of its own.
//!   Paths stop at the headers of loops around the branch (past a header
//!   is the next iteration), which can be joins themselves (two arms that
//!   both jump back to it with different arguments). With a uniform gate,
//!   a block parameter is the meet of its incoming values (rules GAMA and
//!   RMUA); `brif c, b(x), b(y)` with a divergent `c` is a select;
//! * **divergent loop exits and temporal divergence**: when the branch
//!   lies in a loop and reconverges only outside it (its immediate
//!   post-dominator lies outside the loop), threads leave the loop in
//!   different iterations. Values computed in the loop keep their class
//!   inside it (Sampaio's `d_in` of `sumTriangle`), but every use *outside*
//!   the loop sees a divergent value (`d_out`, η with a divergent gate),
//!   and the parameters of the loop's exit blocks are divergent (rule
//!   PDVA for η; with a uniform gate, ETAA keeps the value);
//! * **mixed iterations**: when one arm of the branch starts the next
//!   iteration of an enclosing loop (reaches its header) while the warp
//!   reconverges inside that loop, threads of different iterations meet
//!   there. Every value of that loop is then treated as divergent.
//!
//! Blocks between a divergent branch and its post-dominator run with a
//! partial warp: a vote there sees only some of the threads, so its result
//! is divergent; in a full warp every voter gets the same answer.
//!
//! Irreducible control flow is handled conservatively: with a divergent
//! branch anywhere, every block parameter and every value defined in a
//! block of an irreducible cycle is divergent (LLVM similarly assumes a
//! whole irreducible cycle divergent when diverged paths enter it).
//!
//! # The fixed point
//!
//! Values are visited in reverse post-order (every block after its
//! dominators, as with the paper's dominator-tree pre-order), block
//! parameters at loop headers being the meet of their incoming values
//! (μ). Data and control facts are recomputed until nothing changes. Every
//! new abstract value is met with the old one, so values only descend in a
//! lattice of finite height (three coefficients of height two), and the
//! control facts only grow: the iteration terminates.

pub mod affine;
mod describe;

pub use affine::{Coef, ThreadPoly, ValueClass};
pub use describe::{describe, describe_with};

use concord_isa::instr::{Cmp, SpecialReg};

use crate::dominator_tree::{DominatorTree, PostDominatorTree};
use crate::flowgraph::ControlFlowGraph;
use crate::interp::ops::{eval_binary, eval_unary};
use crate::ir::{
    BinaryOp, Block, FuncKind, Function, Inst, InstData, MemSpace, Type, UnaryOp, Value,
};
use crate::loop_analysis::{LoopAnalysis, LoopId};

/// Which of Sampaio's analyses to run.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct DivergenceConfig {
    /// `true`: the analysis with affine constraints of degree two (§3.5);
    /// `false`: the simple uniform/divergent analysis (§3.4).
    pub affine: bool,
}

impl DivergenceConfig {
    pub const SIMPLE: DivergenceConfig = DivergenceConfig { affine: false };
    pub const AFFINE: DivergenceConfig = DivergenceConfig { affine: true };
}

impl Default for DivergenceConfig {
    fn default() -> Self {
        DivergenceConfig::AFFINE
    }
}

/// The result of the analysis for one function.
#[derive(Clone, Debug)]
pub struct DivergenceAnalysis {
    config: DivergenceConfig,
    /// Per value: its abstract value at its definition.
    polys: Vec<ThreadPoly>,
    /// Per block: its terminator is a conditional branch on a divergent
    /// condition with two different targets.
    divergent_branch: Vec<bool>,
    /// Per block: may run with only part of a warp.
    partial_warp: Vec<bool>,
    /// Per block: its parameters are divergent whatever their incoming
    /// values (a join of a divergent branch, an exit of a loop with a
    /// divergent exit).
    divergent_params: Vec<bool>,
    /// Per value: divergent whatever its operands (defined in a loop whose
    /// iterations mix, or in an irreducible cycle under divergence).
    forced_divergent: Vec<bool>,
    /// Per loop: threads may leave it in different iterations.
    divergent_exit: Vec<bool>,
    /// Per loop: threads of different iterations may meet inside it.
    mixed_iterations: Vec<bool>,
    /// Whether the irreducible cycles have been made divergent.
    irreducible_divergent: bool,
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

/// The CFG analyses the divergence analysis reads.
struct Cfg<'a> {
    cfg: &'a ControlFlowGraph,
    domtree: &'a DominatorTree,
    postdom: &'a PostDominatorTree,
}

impl DivergenceAnalysis {
    /// Runs the default (affine) analysis on `func`, whose CFG analyses
    /// are computed here.
    pub fn compute(func: &Function) -> DivergenceAnalysis {
        Self::compute_configured(func, &DivergenceConfig::default())
    }

    /// Runs the analysis selected by `config` on `func`.
    pub fn compute_configured(func: &Function, config: &DivergenceConfig) -> DivergenceAnalysis {
        let cfg = ControlFlowGraph::compute(func);
        let domtree = DominatorTree::compute(func, &cfg);
        let postdom = PostDominatorTree::compute(func, &cfg);
        let loops = LoopAnalysis::compute(func, &cfg, &domtree);
        Self::compute_with_config(func, &cfg, &domtree, &postdom, loops, config)
    }

    /// Runs the default analysis with CFG analyses the caller already has.
    pub fn compute_with(
        func: &Function,
        cfg: &ControlFlowGraph,
        domtree: &DominatorTree,
        postdom: &PostDominatorTree,
        loops: LoopAnalysis,
    ) -> DivergenceAnalysis {
        Self::compute_with_config(
            func,
            cfg,
            domtree,
            postdom,
            loops,
            &DivergenceConfig::default(),
        )
    }

    /// Runs the analysis selected by `config` with CFG analyses the caller
    /// already has.
    pub fn compute_with_config(
        func: &Function,
        cfg: &ControlFlowGraph,
        domtree: &DominatorTree,
        postdom: &PostDominatorTree,
        loops: LoopAnalysis,
        config: &DivergenceConfig,
    ) -> DivergenceAnalysis {
        let n_blocks = func.blocks.len();
        let n_values = func.values.len();
        let mut def_block = vec![None; n_values];
        for &b in domtree.rpo() {
            for &v in &func.block(b).params {
                def_block[v.index()] = Some(b);
            }
            for &i in &func.block(b).insts {
                if let Some(r) = func.inst_result(i) {
                    def_block[r.index()] = Some(b);
                }
            }
        }
        let mut a = DivergenceAnalysis {
            config: *config,
            polys: vec![ThreadPoly::TOP; n_values],
            divergent_branch: vec![false; n_blocks],
            partial_warp: vec![false; n_blocks],
            divergent_params: vec![false; n_blocks],
            forced_divergent: vec![false; n_values],
            divergent_exit: vec![false; loops.loops().len()],
            mixed_iterations: vec![false; loops.loops().len()],
            irreducible_divergent: false,
            def_block,
            loops,
        };
        // Arguments of device functions may differ between callers' threads.
        if func.kind == FuncKind::Device {
            if let Some(entry) = func.entry_block() {
                if entry.index() < n_blocks {
                    a.divergent_params[entry.index()] = true;
                }
            }
        }
        let graphs = Cfg {
            cfg,
            domtree,
            postdom,
        };
        loop {
            let mut changed = a.propagate_values(func, &graphs);
            changed |= a.propagate_control(func, &graphs);
            if !changed {
                break;
            }
        }
        // Values of unreachable blocks are never computed; reporting them
        // as divergent keeps every client conservative.
        for p in &mut a.polys {
            if p.is_top() {
                *p = ThreadPoly::DIVERGENT;
            }
        }
        a
    }

    /// The configuration the analysis ran with.
    pub fn config(&self) -> DivergenceConfig {
        self.config
    }

    /// The abstract value of `v` at its definition: `a2·T² + a1·T + a0`.
    /// Ask it for [`ThreadPoly::uniform_part`] (`a0`) and
    /// [`ThreadPoly::tid_coefficient`] (`a1`).
    pub fn poly(&self, v: Value) -> ThreadPoly {
        self.polys
            .get(v.index())
            .copied()
            .unwrap_or(ThreadPoly::DIVERGENT)
    }

    /// The abstract value of `v` when read in block `user`: divergent if
    /// it is temporally divergent there, else [`Self::poly`].
    pub fn poly_at(&self, v: Value, user: Block) -> ThreadPoly {
        if self.temporally_divergent(v, user) {
            ThreadPoly::DIVERGENT
        } else {
            self.poly(v)
        }
    }

    /// The class of `v` at its definition.
    pub fn value_class(&self, v: Value) -> ValueClass {
        self.poly(v).class()
    }

    /// The class of `v` when read in block `user`.
    pub fn value_class_at(&self, v: Value, user: Block) -> ValueClass {
        self.poly_at(v, user).class()
    }

    /// Whether `v` may differ between threads at its definition (every
    /// class but constant and uniform: affine values differ too).
    pub fn is_divergent(&self, v: Value) -> bool {
        !self.value_class(v).is_uniform()
    }

    /// Whether `v` may differ between threads when read in block `user`:
    /// divergent at its definition, or temporally divergent (defined in a
    /// loop with a divergent exit and read outside that loop).
    pub fn is_divergent_at(&self, v: Value, user: Block) -> bool {
        self.is_divergent(v) || self.temporally_divergent(v, user)
    }

    /// Whether `v` is read in `user` after a loop that threads leave in
    /// different iterations (and `v` is defined inside that loop).
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
        if self
            .divergent_branch
            .get(b.index())
            .copied()
            .unwrap_or(false)
        {
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
        self.divergent_exit.get(l.index()).copied().unwrap_or(true)
    }

    /// Whether threads of different iterations of `l` may meet inside it
    /// (every value of `l` is then divergent).
    pub fn has_mixed_iterations(&self, l: LoopId) -> bool {
        self.mixed_iterations
            .get(l.index())
            .copied()
            .unwrap_or(true)
    }

    pub fn loops(&self) -> &LoopAnalysis {
        &self.loops
    }

    /// Counts for `--stats`.
    pub fn summary(&self, func: &Function) -> DivergenceSummary {
        let mut s = DivergenceSummary::default();
        let mut count = |v: Value| {
            let class = self.value_class(v);
            s.by_class.add(class);
            if class.is_uniform() {
                s.uniform_values += 1;
            } else {
                s.divergent_values += 1;
            }
        };
        for &b in &func.layout {
            for &p in &func.block(b).params {
                count(p);
            }
        }
        for (_, i) in func.laid_out_insts() {
            if let Some(r) = func.inst_result(i) {
                count(r);
            }
        }
        for (b, i) in func.laid_out_insts() {
            if matches!(func.inst(i), InstData::Brif { .. }) {
                match self.branch_class(b) {
                    BranchClass::Uniform => s.uniform_branches += 1,
                    BranchClass::Divergent => s.divergent_branches += 1,
                }
            }
        }
        s
    }

    // ----- data flow -------------------------------------------------------

    /// One round over the reachable blocks: every value becomes the meet of
    /// its old abstract value and its transfer function.
    fn propagate_values(&mut self, func: &Function, g: &Cfg) -> bool {
        let mut changed = false;
        for &b in g.domtree.rpo() {
            for (k, &p) in func.block(b).params.iter().enumerate() {
                let new = if self.forced_divergent[p.index()] {
                    ThreadPoly::DIVERGENT
                } else {
                    self.transfer_param(func, g, b, k)
                };
                changed |= self.lower(p, new);
            }
            for &i in &func.block(b).insts {
                let Some(r) = func.inst_result(i) else {
                    continue;
                };
                let new = if self.forced_divergent[r.index()] {
                    ThreadPoly::DIVERGENT
                } else if self.config.affine {
                    self.transfer_affine(func, b, i)
                } else {
                    self.transfer_simple(func, b, i)
                };
                changed |= self.lower(r, new);
            }
        }
        changed
    }

    /// Meets `v`'s abstract value with `new`; whether it changed.
    fn lower(&mut self, v: Value, new: ThreadPoly) -> bool {
        let slot = &mut self.polys[v.index()];
        let met = slot.meet(new);
        let changed = met != *slot;
        *slot = met;
        changed
    }

    /// Parameter `k` of block `b`: divergent at a divergent join or exit,
    /// else the meet of the incoming arguments (γ with a uniform gate, μ).
    fn transfer_param(&self, func: &Function, g: &Cfg, b: Block, k: usize) -> ThreadPoly {
        if self.divergent_params[b.index()] {
            return ThreadPoly::DIVERGENT;
        }
        let mut acc = ThreadPoly::TOP;
        let mut seen: Vec<Block> = Vec::new();
        for &pred in g.cfg.preds(b) {
            if seen.contains(&pred) || !g.domtree.is_reachable(pred) {
                continue;
            }
            seen.push(pred);
            let Some(t) = func.terminator(pred) else {
                continue;
            };
            let data = func.inst(t);
            // `brif c, b(x), b(y)` is a select of x and y: with a
            // non-uniform c and x ≠ y, threads receive different values.
            if let InstData::Brif {
                cond,
                then_dest,
                else_dest,
            } = data
            {
                if then_dest.block == b
                    && else_dest.block == b
                    && then_dest.args.get(k) != else_dest.args.get(k)
                    && !self.poly_at(*cond, pred).is_uniform()
                {
                    return ThreadPoly::DIVERGENT;
                }
            }
            for target in data.branch_targets() {
                if target.block == b {
                    if let Some(&arg) = target.args.get(k) {
                        acc = acc.meet(self.poly_at(arg, pred));
                    }
                }
            }
        }
        acc
    }

    /// Sampaio's Fig. 3.6: uniform iff every operand is; the seeds are
    /// divergent (`tid.x` among them).
    fn transfer_simple(&self, func: &Function, b: Block, i: Inst) -> ThreadPoly {
        let data = func.inst(i);
        if let Some(seed) = self.seed(data, b) {
            return match seed {
                // The simple analysis does not know `T`, nor constants.
                Seed::Tid => ThreadPoly::DIVERGENT,
                Seed::Poly(p) if p.is_uniform() => ThreadPoly::UNIFORM,
                Seed::Poly(p) => p,
            };
        }
        let mut acc = ThreadPoly::UNIFORM;
        let mut top = false;
        data.for_each_arg(|v| {
            let p = self.poly_at(v, b);
            if p.is_top() {
                top = true;
            } else if !p.is_uniform() {
                acc = ThreadPoly::DIVERGENT;
            }
        });
        if top && acc != ThreadPoly::DIVERGENT {
            ThreadPoly::TOP
        } else {
            acc
        }
    }

    /// The abstract value of the instructions that do not depend on their
    /// operands' values: sources of data and of divergence.
    fn seed(&self, data: &InstData, b: Block) -> Option<Seed> {
        let p = match data {
            InstData::Iconst { imm } => ThreadPoly::constant(*imm),
            InstData::Bconst { imm } => ThreadPoly::constant(i32::from(*imm)),
            InstData::Special { reg } => match reg {
                SpecialReg::TidX => return Some(Seed::Tid),
                // Read by different threads at different times.
                SpecialReg::ClockLo | SpecialReg::ClockHi => ThreadPoly::DIVERGENT,
                r if r.is_warp_uniform() => ThreadPoly::UNIFORM,
                _ => ThreadPoly::DIVERGENT,
            },
            InstData::Param { .. } | InstData::SharedAddr { .. } | InstData::StackAddr { .. } => {
                ThreadPoly::UNIFORM
            }
            InstData::Atomic { .. } | InstData::Call { .. } => ThreadPoly::DIVERGENT,
            InstData::Load {
                space: MemSpace::Local,
                ..
            } => ThreadPoly::DIVERGENT,
            // Every voter gets the same answer, but under a partial warp the
            // threads that vote later get another one.
            InstData::Vote { .. } => {
                if self.runs_partial_warp(b) {
                    ThreadPoly::DIVERGENT
                } else {
                    ThreadPoly::UNIFORM
                }
            }
            _ => return None,
        };
        Some(Seed::Poly(p))
    }

    /// Sampaio's Fig. 3.8, extended to degree two and to the IR's
    /// operations.
    fn transfer_affine(&self, func: &Function, b: Block, i: Inst) -> ThreadPoly {
        let data = func.inst(i);
        if let Some(seed) = self.seed(data, b) {
            return match seed {
                Seed::Tid => ThreadPoly::TID,
                Seed::Poly(p) => p,
            };
        }
        let at = |v: Value| self.poly_at(v, b);
        match data {
            InstData::Unary { op, arg } => {
                let a = at(*arg);
                let ty = func.value_type(*arg);
                match (op, ty) {
                    _ if a.is_top() => ThreadPoly::TOP,
                    (UnaryOp::Neg, Type::I32) => -a,
                    // !x = -x - 1 in two's complement.
                    (UnaryOp::Not, Type::I32) => -a - ThreadPoly::constant(1),
                    _ => match a.as_constant() {
                        Some(c) => ThreadPoly::constant(eval_unary(*op, ty, c as u32) as i32),
                        None => uniform_or_divergent(&[a]),
                    },
                }
            }
            InstData::Binary { op, args } => {
                let (a, c) = (at(args[0]), at(args[1]));
                if a.is_top() || c.is_top() {
                    return ThreadPoly::TOP;
                }
                match op {
                    BinaryOp::Add => a + c,
                    BinaryOp::Sub => a - c,
                    BinaryOp::Mul => a * c,
                    BinaryOp::Shl if c.as_constant().is_some() => {
                        a.shifted_left(c.as_constant().unwrap_or(0))
                    }
                    _ => match (a.as_constant(), c.as_constant()) {
                        (Some(x), Some(y)) => {
                            ThreadPoly::constant(eval_binary(*op, x as u32, y as u32) as i32)
                        }
                        _ => uniform_or_divergent(&[a, c]),
                    },
                }
            }
            InstData::Icmp { cmp, args } => transfer_icmp(*cmp, at(args[0]), at(args[1])),
            InstData::Select {
                cond,
                if_true,
                if_false,
            } => {
                let (c, x, y) = (at(*cond), at(*if_true), at(*if_false));
                if c.is_top() || x.is_top() || y.is_top() {
                    ThreadPoly::TOP
                } else if if_true == if_false {
                    x
                } else if let Some(k) = c.as_constant() {
                    if k != 0 {
                        x
                    } else {
                        y
                    }
                } else if c.is_uniform() {
                    // γ with a uniform gate (GAMA).
                    x.meet(y)
                } else if x == y && is_exact(x) {
                    x
                } else {
                    ThreadPoly::DIVERGENT
                }
            }
            // Loads from global or shared memory: the same word for every
            // thread (LDUA) or not (LDDA).
            InstData::Load { addr, .. } => {
                let a = at(*addr);
                if a.is_top() {
                    ThreadPoly::TOP
                } else if a.is_uniform() {
                    ThreadPoly::UNIFORM
                } else {
                    ThreadPoly::DIVERGENT
                }
            }
            _ => ThreadPoly::DIVERGENT,
        }
    }

    // ----- control flow ----------------------------------------------------

    /// Finds the branches that became divergent and applies their control
    /// dependences.
    fn propagate_control(&mut self, func: &Function, g: &Cfg) -> bool {
        let mut changed = false;
        for &b in g.domtree.rpo() {
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
            let c = self.poly_at(*cond, b);
            if then_dest.block == else_dest.block || c.is_top() || c.is_uniform() {
                continue;
            }
            self.divergent_branch[b.index()] = true;
            changed = true;
            self.apply_divergent_branch(func, g, b);
        }
        changed
    }

    fn apply_divergent_branch(&mut self, func: &Function, g: &Cfg, b: Block) {
        let n = func.blocks.len();
        let reconverge = g.postdom.ipdom(b);

        // Blocks that run with part of the warp: everything reachable from
        // the branch before the reconvergence point.
        let mut seen = vec![false; n];
        let mut stack: Vec<Block> = g.cfg.succs(b).to_vec();
        while let Some(x) = stack.pop() {
            if Some(x) == reconverge || seen[x.index()] {
                continue;
            }
            seen[x.index()] = true;
            self.partial_warp[x.index()] = true;
            stack.extend_from_slice(g.cfg.succs(x));
        }

        // Loops the warp leaves in pieces: those containing the branch but
        // not its reconvergence point.
        let mut enclosing: Vec<LoopId> = Vec::new();
        let mut l = self.loops.innermost(b);
        while let Some(id) = l {
            enclosing.push(id);
            let info = self.loops.get(id);
            let leaves = !reconverge.is_some_and(|r| info.contains(r));
            if leaves && !self.divergent_exit[id.index()] {
                self.divergent_exit[id.index()] = true;
                for &(_, to) in &info.exits {
                    self.divergent_params[to.index()] = true;
                }
            }
            l = info.parent;
        }

        if self.loops.is_irreducible() && !self.irreducible_divergent {
            self.irreducible_divergent = true;
            self.make_irreducible_cycles_divergent(func, g);
        }

        // Join blocks (sync dependence): blocks where paths that start on
        // different successors of the branch meet. As in LLVM's sync
        // dependence analysis (after Rosemann, Moll and Hack), every block
        // gets the label of the "definition" reaching it, as in SSA
        // construction for a variable assigned a different value on each
        // successor: a block whose incoming labels differ is a join and
        // labels its own successors. Paths stop at the reconvergence point
        // and at the headers of loops around the branch (past a header is
        // the next iteration), which are labelled but not left.
        let header_loop = |x: Block| {
            enclosing
                .iter()
                .copied()
                .find(|&id| self.loops.get(id).header == x)
        };
        let leaves_region = |x: Block| x == b || Some(x) == reconverge || header_loop(x).is_some();
        let mut label: Vec<Option<Block>> = vec![None; n];
        let mut join = vec![false; n];
        // Each round either creates a join or moves a label one block
        // further, so a few rounds per block suffice; the cap only guards
        // against a mistake, and the fallback below stays conservative.
        let mut converged = false;
        for _ in 0..(2 * n + 4) {
            let mut changed = false;
            for &x in g.domtree.rpo() {
                let mut incoming: Option<Block> = None;
                let mut differ = false;
                for &p in g.cfg.preds(x) {
                    let l = if p == b {
                        Some(x)
                    } else if leaves_region(p) {
                        None
                    } else {
                        label[p.index()]
                    };
                    match (incoming, l) {
                        (_, None) => {}
                        (None, Some(l)) => incoming = Some(l),
                        (Some(o), Some(l)) => differ |= o != l,
                    }
                }
                if differ && !join[x.index()] {
                    join[x.index()] = true;
                    changed = true;
                }
                let new = if join[x.index()] { Some(x) } else { incoming };
                if new.is_some() && new != label[x.index()] {
                    label[x.index()] = new;
                    changed = true;
                }
            }
            if !changed {
                converged = true;
                break;
            }
        }
        if !converged {
            for x in 0..n {
                join[x] |= label[x].is_some();
            }
        }
        // A header reached before the warp reconverges inside its loop:
        // some threads started the next iteration, the others meet them
        // later in this one.
        let mut mixed: Vec<LoopId> = Vec::new();
        for &id in &enclosing {
            let info = self.loops.get(id);
            let reached = label[info.header.index()].is_some();
            if reached && reconverge.is_some_and(|r| r != info.header && info.contains(r)) {
                mixed.push(id);
            }
        }
        for (x, &is_join) in join.iter().enumerate() {
            if is_join {
                self.divergent_params[x] = true;
            }
        }
        for id in mixed {
            if !self.mixed_iterations[id.index()] {
                self.mixed_iterations[id.index()] = true;
                let blocks = self.loops.get(id).blocks.clone();
                self.force_blocks_divergent(func, &blocks);
            }
        }
    }

    /// Every parameter of the function and every value defined in a block
    /// of an irreducible cycle becomes divergent.
    fn make_irreducible_cycles_divergent(&mut self, func: &Function, g: &Cfg) {
        for flag in &mut self.divergent_params {
            *flag = true;
        }
        let n = func.blocks.len();
        let mut in_cycle = vec![false; n];
        for &(from, to) in self.loops.irreducible_edges() {
            // The blocks on a cycle through the edge: reachable from `to`
            // and reaching `from`.
            let forward = reachable(n, to, |x| g.cfg.succs(x));
            let backward = reachable(n, from, |x| g.cfg.preds(x));
            for x in 0..n {
                if forward[x] && backward[x] {
                    in_cycle[x] = true;
                }
            }
        }
        let blocks: Vec<Block> = (0..n).filter(|&x| in_cycle[x]).map(Block::new).collect();
        self.force_blocks_divergent(func, &blocks);
    }

    fn force_blocks_divergent(&mut self, func: &Function, blocks: &[Block]) {
        for &x in blocks {
            self.divergent_params[x.index()] = true;
            for &i in &func.block(x).insts {
                if let Some(r) = func.inst_result(i) {
                    self.forced_divergent[r.index()] = true;
                }
            }
        }
    }
}

/// What a source instruction contributes.
enum Seed {
    /// `threadIdx.x`: `T` for the affine analysis, divergent for the simple
    /// one.
    Tid,
    Poly(ThreadPoly),
}

/// The result of an operation the polynomials cannot follow: uniform when
/// every operand is (rules GUZA/GBZA), else divergent (GUNA/GBNA).
fn uniform_or_divergent(operands: &[ThreadPoly]) -> ThreadPoly {
    if operands.iter().all(|p| p.is_uniform()) {
        ThreadPoly::UNIFORM
    } else {
        ThreadPoly::DIVERGENT
    }
}

/// Whether every coefficient is a known integer (the value is the same
/// function of `T` whichever operand it came from).
fn is_exact(p: ThreadPoly) -> bool {
    p.t2.known().is_some() && p.t1.known().is_some() && p.t0.known().is_some()
}

/// `icmp cmp a, b` (see the module docs for the signed-overflow
/// assumption).
fn transfer_icmp(cmp: Cmp, a: ThreadPoly, b: ThreadPoly) -> ThreadPoly {
    if a.is_top() || b.is_top() {
        return ThreadPoly::TOP;
    }
    if let (Some(x), Some(y)) = (a.as_constant(), b.as_constant()) {
        let r = concord_isa::semantics::compare(cmp, x as u32, y as u32);
        return ThreadPoly::constant(i32::from(r));
    }
    let d = a - b;
    match cmp {
        Cmp::Eq | Cmp::Ne => match (d.is_uniform(), d.t0.known()) {
            // a - b ≡ k in every thread: a == b exactly when k == 0.
            (true, Some(k)) => ThreadPoly::constant(i32::from((k == 0) == (cmp == Cmp::Eq))),
            (true, None) => ThreadPoly::UNIFORM,
            (false, _) => ThreadPoly::DIVERGENT,
        },
        Cmp::Lt | Cmp::Le | Cmp::Gt | Cmp::Ge => {
            if d.is_uniform() {
                ThreadPoly::UNIFORM
            } else {
                ThreadPoly::DIVERGENT
            }
        }
        Cmp::LtU | Cmp::LeU | Cmp::GtU | Cmp::GeU => uniform_or_divergent(&[a, b]),
    }
}

/// The blocks reachable from `start` along `next` edges (`start` included).
fn reachable<'a>(n: usize, start: Block, next: impl Fn(Block) -> &'a [Block]) -> Vec<bool> {
    let mut seen = vec![false; n];
    let mut stack = vec![start];
    while let Some(x) = stack.pop() {
        if x.index() >= n || seen[x.index()] {
            continue;
        }
        seen[x.index()] = true;
        stack.extend_from_slice(next(x));
    }
    seen
}

/// Value and branch counts of one function.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct DivergenceSummary {
    /// Values the same in every thread (classes constant and uniform).
    pub uniform_values: usize,
    /// Values that may differ (constant-affine, affine and divergent).
    pub divergent_values: usize,
    /// The values by class (`uniform_values + divergent_values` in all).
    pub by_class: ClassCounts,
    pub uniform_branches: usize,
    pub divergent_branches: usize,
}

/// How many values fall in each [`ValueClass`].
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct ClassCounts {
    pub constant: usize,
    pub uniform: usize,
    pub constant_affine: usize,
    pub affine: usize,
    pub divergent: usize,
}

impl ClassCounts {
    pub fn get(&self, class: ValueClass) -> usize {
        match class {
            ValueClass::Constant => self.constant,
            ValueClass::Uniform => self.uniform,
            ValueClass::ConstantAffine => self.constant_affine,
            ValueClass::Affine => self.affine,
            ValueClass::Divergent => self.divergent,
        }
    }

    pub fn total(&self) -> usize {
        ValueClass::ALL.iter().map(|&c| self.get(c)).sum()
    }

    fn add(&mut self, class: ValueClass) {
        let slot = match class {
            ValueClass::Constant => &mut self.constant,
            ValueClass::Uniform => &mut self.uniform,
            ValueClass::ConstantAffine => &mut self.constant_affine,
            ValueClass::Affine => &mut self.affine,
            ValueClass::Divergent => &mut self.divergent,
        };
        *slot += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_module;

    fn kernel(text: &str) -> Function {
        let module = parse_module(text, "test.cir").expect("test IR parses");
        module.funcs.into_iter().next().expect("one function")
    }

    fn v(n: usize) -> Value {
        Value::new(n)
    }

    fn b(n: usize) -> Block {
        Block::new(n)
    }

    const AVG_SQUARE: &str = include_str!("../../filetests/divergence/avg_square.cir");

    #[test]
    fn summary_counts_avg_square_by_class() {
        // Counted by hand from the golden lines of avg_square.cir.
        let f = kernel(AVG_SQUARE);
        let s = DivergenceAnalysis::compute(&f).summary(&f);
        let expected = ClassCounts {
            constant: 4,        // v5 v12 v17 v21
            uniform: 7,         // v0 v1 v2 v6 v10 v11 v18
            constant_affine: 2, // v3 v22
            affine: 6,          // v7 v8 v13 v14 v19 v23
            divergent: 5,       // v4 v9 v15 v16 v20
        };
        assert_eq!(s.by_class, expected);
        assert_eq!(s.by_class.total(), 24);
        assert_eq!(s.uniform_values, 11);
        assert_eq!(s.divergent_values, 13);
        assert_eq!((s.uniform_branches, s.divergent_branches), (1, 1));
    }

    #[test]
    fn simple_analysis_has_two_classes() {
        // Sec. 3.4 on avgSquare: the loop branch is divergent and no value
        // is constant or affine.
        let f = kernel(AVG_SQUARE);
        let a = DivergenceAnalysis::compute_configured(&f, &DivergenceConfig::SIMPLE);
        assert_eq!(a.config(), DivergenceConfig::SIMPLE);
        let s = a.summary(&f);
        assert_eq!(s.by_class.constant + s.by_class.constant_affine, 0);
        assert_eq!(s.by_class.affine, 0);
        assert_eq!(a.branch_class(b(2)), BranchClass::Divergent);
        // d: uniform in the loop, divergent after it (see
        // avg_square_simple.cir for Fig. 2.2's d_in).
        assert!(!a.is_divergent(v(10)));
        assert!(a.is_divergent_at(v(10), b(4)));
    }

    #[test]
    fn spiller_queries() {
        let f = kernel(AVG_SQUARE);
        let a = DivergenceAnalysis::compute(&f);
        // v22 = Tid << 2: 4*T + 0, rematerialisable from T alone.
        assert_eq!(a.value_class(v(22)), ValueClass::ConstantAffine);
        assert_eq!(a.poly(v(22)).tid_coefficient(), Coef::Known(4));
        assert_eq!(a.poly(v(22)).uniform_part(), Coef::Known(0));
        // v23 = v + 4*Tid: 4*T + ⊥, needs the uniform part in a register.
        assert_eq!(a.value_class(v(23)), ValueClass::Affine);
        assert_eq!(a.poly(v(23)).uniform_part(), Coef::Bottom);
        // d (v10) after the uniform loop is still uniform in block4.
        assert!(!a.is_divergent_at(v(10), b(4)));
        assert_eq!(a.value_class_at(v(10), b(4)), ValueClass::Uniform);
        // Every block after the divergent `if` runs with a partial warp.
        assert!(a.runs_partial_warp(b(2)));
        assert!(!a.runs_partial_warp(b(0)));
    }

    #[test]
    fn temporal_divergence_at_a_use() {
        let f = kernel(include_str!("../../filetests/divergence/sum_triangle.cir"));
        let a = DivergenceAnalysis::compute(&f);
        // d (v10): uniform in the loop (block3), divergent after it (block4).
        assert_eq!(a.value_class_at(v(10), b(3)), ValueClass::Uniform);
        assert_eq!(a.value_class_at(v(10), b(4)), ValueClass::Divergent);
        assert!(a.temporally_divergent(v(10), b(4)));
        assert!(a.has_divergent_exit(LoopId(0)));
        assert!(!a.has_mixed_iterations(LoopId(0)));
    }

    #[test]
    fn comparisons() {
        let f = kernel(
            "kernel @k(n) {
block0:
    v0 = special tid.x
    v1 = param 0
    v2 = iconst 3
    v3 = iconst 1
    v4 = iadd v0, v2
    v5 = iadd v0, v3
    v6 = icmp eq v4, v5
    v7 = icmp ne v4, v5
    v8 = icmp ltu v4, v5
    v9 = icmp ge v4, v5
    v10 = iadd v0, v1
    v11 = icmp eq v10, v4
    v12 = icmp ltu v1, v2
    return
}",
        );
        let a = DivergenceAnalysis::compute(&f);
        // (T + 3) - (T + 1) = 2 in every thread, modulo 2^32.
        assert_eq!(a.poly(v(6)), ThreadPoly::constant(0));
        assert_eq!(a.poly(v(7)), ThreadPoly::constant(1));
        // Unsigned: T + 3 may wrap where T + 1 does not.
        assert_eq!(a.value_class(v(8)), ValueClass::Divergent);
        // Signed, assuming no overflow: uniform, value unknown here.
        assert_eq!(a.value_class(v(9)), ValueClass::Uniform);
        // (T + n) - (T + 3) = 0*T + ⊥.
        assert_eq!(a.value_class(v(11)), ValueClass::Uniform);
        assert_eq!(a.value_class(v(12)), ValueClass::Uniform);
    }

    #[test]
    fn selects_and_same_block_branches() {
        let f = kernel(
            "kernel @k(n) {
block0:
    v0 = special tid.x
    v1 = param 0
    v2 = icmp lt v0, v1
    v3 = icmp lt v1, v1
    v4 = iconst 4
    v5 = iconst 5
    v6 = select v3, v4, v5
    v7 = select v2, v4, v5
    v8 = select v2, v0, v0
    v9 = bnot v0
    brif v2, block1(v4), block1(v5)
block1(v10: i32):
    brif v3, block2(v4), block2(v5)
block2(v11: i32):
    return
}",
        );
        let a = DivergenceAnalysis::compute(&f);
        // Uniform gate: the meet of 4 and 5.
        assert_eq!(a.poly(v(6)), ThreadPoly::UNIFORM);
        // Divergent gate, different values.
        assert_eq!(a.value_class(v(7)), ValueClass::Divergent);
        // Same value on both sides.
        assert_eq!(a.poly(v(8)), ThreadPoly::TID);
        // !T = -T - 1.
        assert_eq!(a.poly(v(9)).to_string(), "-1*T - 1");
        // `brif c, b(x), b(y)` selects: divergent with a divergent c ...
        assert_eq!(a.value_class(v(10)), ValueClass::Divergent);
        assert_eq!(a.branch_class(b(0)), BranchClass::Uniform);
        // ... the meet with a uniform one.
        assert_eq!(a.poly(v(11)), ThreadPoly::UNIFORM);
    }

    #[test]
    fn votes_are_uniform_in_a_full_warp_only() {
        let f = kernel(
            "kernel @k(n) {
block0:
    v0 = special tid.x
    v1 = param 0
    v2 = icmp lt v0, v1
    v3 = vote.any v2
    brif v2, block1, block2
block1:
    v4 = vote.any v2
    jump block2
block2:
    return
}",
        );
        let a = DivergenceAnalysis::compute(&f);
        assert_eq!(a.value_class(v(3)), ValueClass::Uniform);
        assert_eq!(a.value_class(v(4)), ValueClass::Divergent);
    }

    #[test]
    fn device_arguments_and_unreachable_values_are_divergent() {
        let module = parse_module(
            "func @f(i32) -> i32 {
block0(v0: i32):
    v1 = iconst 0
    v2 = imul v0, v1
    return v2
block1:
    v3 = iconst 1
    return v3
}",
            "test.cir",
        )
        .expect("test IR parses");
        let f = &module.funcs[0];
        let a = DivergenceAnalysis::compute(f);
        assert_eq!(a.value_class(v(0)), ValueClass::Divergent);
        // x * 0 = 0 whatever x (Table 3.6: 0 × ⊥ = 0).
        assert_eq!(a.poly(v(2)), ThreadPoly::constant(0));
        assert_eq!(a.value_class(v(3)), ValueClass::Divergent);
    }
}
