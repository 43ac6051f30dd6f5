//! A readable account of the divergence analysis of a function, one fact
//! per line: what the `divergence` and `divergence-simple` filetests check
//! and what one reads when debugging `--stats`.
//!
//! ```text
//! function @avgSquare
//! v3: constant-affine 1*T + 0            class and polynomial (affine analysis)
//! v8: divergent 0*T² + ⊥*T + 0 (uniform coefficients)
//! v10: uniform 0*T + ⊥, divergent in block4   read after a divergent loop exit
//! block2: branch uniform
//! loop block2: divergent exit
//! loop block5: mixed iterations
//! irreducible: divergent cycles
//! partial warp: block1 block2
//! ```
//!
//! The simple analysis prints only `uniform` or `divergent` per value.
//! `(uniform coefficients)` marks a divergent value whose `T²` coefficient
//! is known ([`ThreadPoly::has_uniform_coefficients`], the paper's
//! Theorem 3 reading).

use std::fmt::Write as _;

use super::{BranchClass, DivergenceAnalysis, DivergenceConfig, ThreadPoly, ValueClass};
use crate::ir::{Block, Function, InstData};

/// [`describe_with`] with the default (affine) analysis.
pub fn describe(func: &Function) -> String {
    describe_with(func, &DivergenceConfig::default())
}

/// The class of every value (with the blocks where a value that is not
/// divergent at its definition is read as divergent), every conditional
/// branch, every loop with a divergent exit or mixed iterations, and every
/// block that may run with part of a warp.
pub fn describe_with(func: &Function, config: &DivergenceConfig) -> String {
    let a = DivergenceAnalysis::compute_configured(func, config);
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
        func.inst(i).for_each_arg(|v| {
            if let Some(u) = users.get_mut(v.index()) {
                if !u.contains(&b) {
                    u.push(b);
                }
            }
        });
    }
    for v in values {
        let poly = a.poly(v);
        let class = poly.class();
        let mut line = if config.affine {
            format!("{v}: {class} {poly}")
        } else if class.is_uniform() {
            format!("{v}: uniform")
        } else {
            format!("{v}: divergent")
        };
        if config.affine && class == ValueClass::Divergent && poly.has_uniform_coefficients() {
            line.push_str(" (uniform coefficients)");
        }
        if class != ValueClass::Divergent {
            let after: Vec<String> = users[v.index()]
                .iter()
                .filter(|&&u| a.poly_at(v, u) == ThreadPoly::DIVERGENT)
                .map(|u| u.to_string())
                .collect();
            if !after.is_empty() {
                let _ = write!(line, ", divergent in {}", after.join(", "));
            }
        }
        let _ = writeln!(out, "{line}");
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
        if a.mixed_iterations[k] {
            let _ = writeln!(out, "loop {}: mixed iterations", l.header);
        }
    }
    if a.irreducible_divergent {
        let _ = writeln!(out, "irreducible: divergent cycles");
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
