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
