//! The control-flow strategy for divergent branches (Lee et al. 2014, §III):
//! keep them as per-lane branches, reconverged by the min-PC arbiter, or
//! if-convert them into predicated straight-line code with consensual
//! branches.
//!
//! Sits in the back end between instruction selection and predicate
//! allocation: the plan is made on the IR (control dependence, divergence,
//! loops) and applied to the machine IR of the same function, whose blocks
//! are the IR blocks in layout order.

use std::fmt;

/// `--divergence`: what happens to divergent branches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DivergenceStrategy {
    /// Every divergent branch stays a per-lane branch.
    #[default]
    Branch,
    /// Every divergent branch that can be if-converted is (thread-aware
    /// predication); irreducible regions stay per-lane branches.
    Predicate,
    /// Per region, the cheaper of the two by a static cost estimate.
    Auto,
}

impl DivergenceStrategy {
    pub const ALL: [DivergenceStrategy; 3] = [
        DivergenceStrategy::Branch,
        DivergenceStrategy::Predicate,
        DivergenceStrategy::Auto,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DivergenceStrategy::Branch => "branch",
            DivergenceStrategy::Predicate => "predicate",
            DivergenceStrategy::Auto => "auto",
        }
    }
}

impl fmt::Display for DivergenceStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for DivergenceStrategy {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        DivergenceStrategy::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("`{s}` is not one of branch, predicate, auto"))
    }
}

/// Conditional branches of the IR by what became of them (Lee's Table I).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BranchCounts {
    /// Uniform branches kept as branches (static branch uniformity, SBU).
    pub uniform: u32,
    /// Divergent branches kept as per-lane branches.
    pub divergent_kept: u32,
    /// Branches removed by if-conversion (their edges became guards).
    pub predicated: u32,
    /// Consensual `bra.none` skips added around predicated regions
    /// (runtime branch uniformity, RBU).
    pub runtime_checked: u32,
    /// Consensual branches on loop and continue masks.
    pub loop_consensual: u32,
}

pub mod level;
pub mod plan;
pub mod preheader;
pub mod rewrite;

use crate::divergence::{BranchClass, DivergenceAnalysis};
use crate::ir::Function;

/// What [`prepare`] decided for one function, to be applied to its machine
/// IR by [`apply`].
#[derive(Debug)]
pub struct Prepared {
    plan: Option<plan::Plan>,
    loops: crate::loop_analysis::LoopAnalysis,
    /// Branch counts when nothing is if-converted.
    unconverted: BranchCounts,
    /// Why branches stayed per-lane branches against the strategy.
    pub notes: Vec<String>,
}

/// Plans the control-flow strategy of `func` (edge-split, loops with
/// dedicated preheaders) and lays it out in the linear order. With
/// [`DivergenceStrategy::Branch`] nothing changes.
pub fn prepare(func: &mut Function, strategy: DivergenceStrategy) -> Prepared {
    let divergence = DivergenceAnalysis::compute(func);
    let loops = divergence.loops().clone();
    let unconverted = rewrite::count_unconverted(func, |b| {
        divergence.branch_class(b) == BranchClass::Divergent
    });
    let mut notes = Vec::new();
    let plan = if strategy == DivergenceStrategy::Branch {
        None
    } else {
        match plan::make_plan(func, &loops, &divergence, strategy) {
            Ok(p) => {
                notes.extend(p.notes.iter().cloned());
                func.layout = p.layout.clone();
                Some(p)
            }
            Err(why) => {
                notes.push(format!("@{}: {why}", func.name));
                None
            }
        }
    };
    Prepared {
        plan,
        loops,
        unconverted,
        notes,
    }
}

impl Prepared {
    /// Whether block `b` runs under a mask: guarded by the plan, or inside
    /// a loop that runs under a loop mask. Lanes whose mask is false still
    /// run its unguarded (speculated) instructions, on whatever their
    /// registers hold.
    pub fn masked(&self, b: crate::ir::Block) -> bool {
        let Some(plan) = &self.plan else {
            return false;
        };
        let mut l = self.loops.innermost(b);
        let level = &plan.levels[plan::level_index(l)];
        let guarded = level
            .node_of(level::Node::Block(b))
            .is_some_and(|n| plan.guarded[plan::level_index(l)][n]);
        if guarded {
            return true;
        }
        while let Some(id) = l {
            if plan.pred_loop[id.index()] {
                return true;
            }
            l = self.loops.get(id).parent;
        }
        false
    }
}

/// Applies the plan to the machine IR selected from the laid-out function.
pub fn apply(
    prepared: &Prepared,
    func: &Function,
    mf: &mut crate::backend::mir::MFunction,
) -> Result<BranchCounts, String> {
    match &prepared.plan {
        None => Ok(prepared.unconverted),
        Some(plan) => rewrite::apply(func, &prepared.loops, plan, mf),
    }
}

/// The `predicate-plan` filetest: every function of `module`, prepared as
/// the back end does (preheaders, edge splitting) and planned under
/// `strategy`, described by [`plan::describe`].
pub fn describe_module(
    module: &crate::ir::Module,
    strategy: DivergenceStrategy,
) -> Result<String, String> {
    let mut out = String::new();
    for f in &module.funcs {
        let mut func = f.clone();
        preheader::insert_preheaders(&mut func);
        crate::backend::edge_split::split_critical_edges(&mut func);
        let prepared = prepare(&mut func, strategy);
        match &prepared.plan {
            Some(plan) => {
                crate::layout_verify::verify_layout(&func).map_err(|e| e.to_string())?;
                out.push_str(&plan::describe(&func, &prepared.loops, plan));
            }
            None => {
                out.push_str(&format!(
                    "function @{}
",
                    func.name
                ));
                for n in &prepared.notes {
                    out.push_str(&format!("note {n}\n"));
                }
            }
        }
    }
    Ok(out)
}
