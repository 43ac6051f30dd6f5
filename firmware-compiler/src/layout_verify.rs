//! The layout verifier: checks that a function's block order has the
//! properties min-PC reconvergence relies on (see [`layout`](crate::layout)
//! and `docs/compiler.md`).
//!
//! The back end runs it on every compiled kernel and device function after
//! layout and any later block reordering, so a layout bug shows up as an
//! error naming the property and the blocks rather than as threads that
//! silently never reconverge. Unreachable blocks are ignored: no thread
//! runs them.

use std::fmt;

use crate::dominator_tree::DominatorTree;
use crate::flowgraph::ControlFlowGraph;
use crate::ir::{Block, Function};
use crate::loop_analysis::LoopAnalysis;

/// A property the layout breaks, with the function and blocks involved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// The CFG has a cycle with several entries, so no layout has the
    /// properties; `edges` are retreating edges into such cycles.
    Irreducible {
        func: String,
        edges: Vec<(Block, Block)>,
    },
    /// A forward edge (not a back edge) goes to a block placed at or
    /// before its source: the order is not topological.
    NotTopological {
        func: String,
        from: Block,
        to: Block,
    },
    /// A loop's header is not its first block, so a back edge goes forward.
    HeaderNotFirst {
        func: String,
        header: Block,
        first: Block,
    },
    /// A block outside the loop sits between two of the loop's blocks.
    LoopNotContiguous {
        func: String,
        header: Block,
        intruder: Block,
    },
    /// An exit target of the loop is placed before the loop's last block.
    ExitBeforeLoopEnd {
        func: String,
        header: Block,
        from: Block,
        to: Block,
        last: Block,
    },
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::Irreducible { func, edges } => {
                write!(f, "function @{func}: layout: the CFG is irreducible")?;
                for (i, (from, to)) in edges.iter().enumerate() {
                    let sep = if i == 0 { " (edges " } else { ", " };
                    write!(f, "{sep}{from} -> {to}")?;
                }
                if !edges.is_empty() {
                    write!(f, " enter a cycle that has another entry)")?;
                }
                Ok(())
            }
            LayoutError::NotTopological { func, from, to } => write!(
                f,
                "function @{func}: layout is not a topological order: the forward edge \
                 {from} -> {to} goes to an earlier block"
            ),
            LayoutError::HeaderNotFirst {
                func,
                header,
                first,
            } => write!(
                f,
                "function @{func}: layout: the loop headed by {header} starts with {first}, \
                 not its header"
            ),
            LayoutError::LoopNotContiguous {
                func,
                header,
                intruder,
            } => write!(
                f,
                "function @{func}: layout: the loop headed by {header} is not contiguous: \
                 {intruder} lies inside it"
            ),
            LayoutError::ExitBeforeLoopEnd {
                func,
                header,
                from,
                to,
                last,
            } => write!(
                f,
                "function @{func}: layout: the exit {from} -> {to} of the loop headed by \
                 {header} targets a block placed before the loop's last block {last}"
            ),
        }
    }
}

impl std::error::Error for LayoutError {}

/// Checks the three layout properties on `func`.
pub fn verify_layout(func: &Function) -> Result<(), LayoutError> {
    let cfg = ControlFlowGraph::compute(func);
    let domtree = DominatorTree::compute(func, &cfg);
    let loops = LoopAnalysis::compute(func, &cfg, &domtree);
    let name = || func.name.clone();
    if loops.is_irreducible() {
        return Err(LayoutError::Irreducible {
            func: name(),
            edges: loops.irreducible_edges().to_vec(),
        });
    }
    let mut position = vec![usize::MAX; func.blocks.len()];
    for (i, &b) in func.layout.iter().enumerate() {
        if let Some(p) = position.get_mut(b.index()) {
            *p = (*p).min(i);
        }
    }
    let pos = |b: Block| position.get(b.index()).copied().unwrap_or(usize::MAX);

    // Loops first: their errors say more than the generic order error.
    for l in loops.loops() {
        let first = l.blocks.iter().copied().min_by_key(|&b| pos(b));
        let last = l.blocks.iter().copied().max_by_key(|&b| pos(b));
        let (Some(first), Some(last)) = (first, last) else {
            continue;
        };
        if first != l.header {
            return Err(LayoutError::HeaderNotFirst {
                func: name(),
                header: l.header,
                first,
            });
        }
        if let Some(&intruder) = func.layout[pos(first)..=pos(last)]
            .iter()
            .find(|&&b| !l.contains(b) && domtree.is_reachable(b))
        {
            return Err(LayoutError::LoopNotContiguous {
                func: name(),
                header: l.header,
                intruder,
            });
        }
        for &(from, to) in &l.exits {
            // A `continue` of an enclosing loop leaves this loop through a
            // back edge to a header placed earlier, which is correct.
            let back_edge = domtree.dominates(to, from);
            if !back_edge && pos(to) <= pos(last) {
                return Err(LayoutError::ExitBeforeLoopEnd {
                    func: name(),
                    header: l.header,
                    from,
                    to,
                    last,
                });
            }
        }
    }

    for &b in func.layout.iter().filter(|&&b| domtree.is_reachable(b)) {
        for &s in cfg.succs(b) {
            let back_edge = domtree.dominates(s, b);
            if !back_edge && pos(s) <= pos(b) {
                return Err(LayoutError::NotTopological {
                    func: name(),
                    from: b,
                    to: s,
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flowgraph::tests::function_from_edges;

    fn check(n: usize, edges: &[(u32, u32)], order: &[u32]) -> Result<(), LayoutError> {
        let mut f = function_from_edges(n, edges);
        f.layout = order.iter().map(|&i| Block(i)).collect();
        verify_layout(&f)
    }

    /// 0 -> 1 (header) -> 2 (body) -> 1; 1 -> 3 (exit).
    const LOOP: [(u32, u32); 4] = [(0, 1), (1, 2), (1, 3), (2, 1)];

    #[test]
    fn accepts_a_good_layout() {
        assert_eq!(check(4, &LOOP, &[0, 1, 2, 3]), Ok(()));
    }

    #[test]
    fn rejects_an_exit_before_the_loop_end() {
        let e = check(4, &LOOP, &[0, 1, 3, 2]).unwrap_err();
        // Contiguity catches it first: block3 sits between 1 and 2.
        assert_eq!(
            e,
            LayoutError::LoopNotContiguous {
                func: "t".into(),
                header: Block(1),
                intruder: Block(3),
            }
        );
        assert_eq!(
            e.to_string(),
            "function @t: layout: the loop headed by block1 is not contiguous: block3 lies inside it"
        );
    }

    #[test]
    fn rejects_an_exit_placed_before_the_loop() {
        // The exit target 3 before the whole loop: contiguous, header
        // first, but the exit goes backwards.
        let e = check(4, &LOOP, &[0, 3, 1, 2]).unwrap_err();
        assert_eq!(
            e,
            LayoutError::ExitBeforeLoopEnd {
                func: "t".into(),
                header: Block(1),
                from: Block(1),
                to: Block(3),
                last: Block(2),
            }
        );
    }

    #[test]
    fn rejects_a_header_after_its_body() {
        let e = check(4, &LOOP, &[0, 2, 1, 3]).unwrap_err();
        assert_eq!(
            e,
            LayoutError::HeaderNotFirst {
                func: "t".into(),
                header: Block(1),
                first: Block(2),
            }
        );
    }

    #[test]
    fn rejects_a_non_topological_order() {
        let diamond = [(0, 1), (0, 2), (1, 3), (2, 3)];
        assert_eq!(check(4, &diamond, &[0, 2, 1, 3]), Ok(()));
        let e = check(4, &diamond, &[0, 3, 1, 2]).unwrap_err();
        assert_eq!(
            e,
            LayoutError::NotTopological {
                func: "t".into(),
                from: Block(1),
                to: Block(3),
            }
        );
    }

    #[test]
    fn continue_of_an_outer_loop_is_fine() {
        // Outer header 1, inner header 2 -> 3 -> 2; 3 -> 1 continues the
        // outer loop from inside the inner one (an exit of the inner loop
        // that goes backwards, legitimately); 2 -> 4 -> 1; 1 -> 5.
        let edges = [
            (0, 1),
            (1, 2),
            (1, 5),
            (2, 3),
            (2, 4),
            (3, 2),
            (3, 1),
            (4, 1),
        ];
        assert_eq!(check(6, &edges, &[0, 1, 2, 3, 4, 5]), Ok(()));
    }

    #[test]
    fn rejects_irreducible() {
        let e = check(4, &[(0, 1), (0, 2), (1, 2), (2, 1), (2, 3)], &[0, 1, 2, 3]).unwrap_err();
        assert!(matches!(e, LayoutError::Irreducible { .. }));
        assert!(e.to_string().contains("irreducible"), "{e}");
    }
}
