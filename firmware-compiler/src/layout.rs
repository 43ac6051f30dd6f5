//! Block layout for min-PC reconvergence.
//!
//! The core has no reconvergence stack: a warp issues for the lanes with the
//! smallest (call depth, PC), so lanes that diverge meet again where the
//! lower-addressed ones catch up with the ones waiting further on. Where
//! that is depends only on the order of the blocks in memory, which this
//! pass decides. It runs in the back end after the control-flow strategy
//! (and loop flattening) and before instruction selection, and reorders
//! `Function::layout` so that:
//!
//! 1. the order is a topological order of the forward CFG (back edges
//!    removed), with the entry block first;
//! 2. the blocks of every loop are contiguous and its header comes first,
//!    so back edges go to lower addresses;
//! 3. every target of an edge leaving a loop (other than a back edge of an
//!    enclosing loop) is placed after all blocks of the loop.
//!
//! `docs/compiler.md` explains why each property is needed, and
//! [`layout_verify`](crate::layout_verify) checks them.
//!
//! The order is built per loop, innermost regions first in effect: in the
//! region of a loop (or of the whole function), each directly nested loop
//! is one node whose out-edges are its exits, and the region's acyclic
//! graph is sorted topologically; a loop node then expands, in place, into
//! its header and the sorted blocks of its own region. Among the nodes
//! ready to be placed, a successor of the node just placed comes first (in
//! branch order), so a branch target falls through when it may; otherwise
//! the node that came first in the old layout does. Blocks unreachable from
//! the entry keep their relative order at the end.
//!
//! Irreducible CFGs have no such order; the pass returns an error for them
//! (the front end builds only reducible CFGs).

use std::collections::{HashMap, HashSet};

use crate::dominator_tree::DominatorTree;
use crate::flowgraph::ControlFlowGraph;
use crate::ir::{Block, Function, Module};
use crate::layout_verify::LayoutError;
use crate::loop_analysis::{LoopAnalysis, LoopId};

/// Reorders the layout of every function of the module.
pub fn layout_module(module: &mut Module) -> Result<(), LayoutError> {
    for func in &mut module.funcs {
        layout_function(func)?;
    }
    Ok(())
}

/// Reorders `func.layout`; on error the layout is unchanged.
pub fn layout_function(func: &mut Function) -> Result<(), LayoutError> {
    func.layout = compute_layout(func)?;
    Ok(())
}

/// The new block order of `func`, without changing it.
pub fn compute_layout(func: &Function) -> Result<Vec<Block>, LayoutError> {
    let cfg = ControlFlowGraph::compute(func);
    let domtree = DominatorTree::compute(func, &cfg);
    let loops = LoopAnalysis::compute(func, &cfg, &domtree);
    if loops.is_irreducible() {
        return Err(LayoutError::Irreducible {
            func: func.name.clone(),
            edges: loops.irreducible_edges().to_vec(),
        });
    }
    let mut old_position = vec![usize::MAX; func.blocks.len()];
    for (i, b) in func.layout.iter().enumerate() {
        if let Some(slot) = old_position.get_mut(b.index()) {
            *slot = (*slot).min(i);
        }
    }
    let ctx = Context {
        func,
        cfg: &cfg,
        domtree: &domtree,
        loops: &loops,
        old_position,
    };
    let mut order = Vec::with_capacity(func.layout.len());
    ctx.place_region(None, &mut order)?;
    // Unreachable blocks: same relative order, at the end.
    let mut placed: HashSet<Block> = order.iter().copied().collect();
    for &b in &func.layout {
        if !domtree.is_reachable(b) && placed.insert(b) {
            order.push(b);
        }
    }
    Ok(order)
}

/// A node of a region: a block directly in the region's loop, or a loop
/// directly nested in it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Node {
    Block(Block),
    Loop(LoopId),
}

struct Context<'a> {
    func: &'a Function,
    cfg: &'a ControlFlowGraph,
    domtree: &'a DominatorTree,
    loops: &'a LoopAnalysis,
    old_position: Vec<usize>,
}

impl Context<'_> {
    /// The node of region `region` that contains block `b`, or `None` if
    /// `b` is outside the region.
    fn node_of(&self, region: Option<LoopId>, b: Block) -> Option<Node> {
        let mut current = self.loops.innermost(b);
        if current == region {
            return Some(Node::Block(b));
        }
        while let Some(l) = current {
            let parent = self.loops.get(l).parent;
            if parent == region {
                return Some(Node::Loop(l));
            }
            current = parent;
        }
        None
    }

    fn node_blocks(&self, node: Node) -> Vec<Block> {
        match node {
            Node::Block(b) => vec![b],
            Node::Loop(l) => self.loops.get(l).blocks.clone(),
        }
    }

    /// Where the node came in the old layout (its header for a loop).
    fn old_position(&self, node: Node) -> usize {
        let b = match node {
            Node::Block(b) => b,
            Node::Loop(l) => self.loops.get(l).header,
        };
        self.old_position
            .get(b.index())
            .copied()
            .unwrap_or(usize::MAX)
    }

    /// Appends the blocks of `region` (a loop, or `None` for the whole
    /// function) to `order` in a topological order of the region's
    /// acyclic graph, expanding nested loops in place.
    fn place_region(
        &self,
        region: Option<LoopId>,
        order: &mut Vec<Block>,
    ) -> Result<(), LayoutError> {
        let header = region.map(|l| self.loops.get(l).header);
        // The region's nodes, in reverse post-order (so the header, or
        // the entry, is first).
        let mut nodes: Vec<Node> = Vec::new();
        let mut position: HashMap<Node, usize> = HashMap::new();
        for &b in self.domtree.rpo() {
            if let Some(node) = self.node_of(region, b) {
                if let std::collections::hash_map::Entry::Vacant(e) = position.entry(node) {
                    e.insert(nodes.len());
                    nodes.push(node);
                }
            }
        }
        let index_of = |node: Node| position.get(&node).copied();

        // Forward edges between the region's nodes: back edges to the
        // header are dropped, and exits from the region are the enclosing
        // region's business.
        let mut succs: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        let mut in_degree = vec![0usize; nodes.len()];
        for (i, &node) in nodes.iter().enumerate() {
            for b in self.node_blocks(node) {
                for &s in self.cfg.succs(b) {
                    if Some(s) == header {
                        continue;
                    }
                    let Some(j) = self.node_of(region, s).and_then(index_of) else {
                        continue;
                    };
                    if j != i && !succs[i].contains(&j) {
                        succs[i].push(j);
                        in_degree[j] += 1;
                    }
                }
            }
        }

        // Kahn's algorithm; see the module docs for the choice among ready
        // nodes.
        let mut ready: Vec<usize> = (0..nodes.len()).filter(|&i| in_degree[i] == 0).collect();
        let mut placed = 0;
        let mut last: Option<usize> = None;
        while !ready.is_empty() {
            let preferred = last.and_then(|l| succs[l].iter().copied().find(|s| ready.contains(s)));
            let pick = preferred.unwrap_or_else(|| {
                *ready
                    .iter()
                    .min_by_key(|&&i| (self.old_position(nodes[i]), i))
                    .unwrap_or(&ready[0])
            });
            ready.retain(|&i| i != pick);
            match nodes[pick] {
                Node::Block(b) => order.push(b),
                Node::Loop(l) => self.place_region(Some(l), order)?,
            }
            placed += 1;
            for &s in &succs[pick] {
                in_degree[s] -= 1;
                if in_degree[s] == 0 {
                    ready.push(s);
                }
            }
            last = Some(pick);
        }
        if placed != nodes.len() {
            // A cycle without a dominating header: irreducible, which the
            // loop analysis should already have reported.
            return Err(LayoutError::Irreducible {
                func: self.func.name.clone(),
                edges: Vec::new(),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flowgraph::tests::function_from_edges;

    fn blocks(ids: &[u32]) -> Vec<Block> {
        ids.iter().map(|&i| Block(i)).collect()
    }

    /// Lays out `function_from_edges(n, edges)` after putting its blocks in
    /// the order `initial`.
    fn layout(n: usize, edges: &[(u32, u32)], initial: &[u32]) -> Vec<Block> {
        let mut f = function_from_edges(n, edges);
        f.layout = blocks(initial);
        layout_function(&mut f).unwrap();
        crate::layout_verify::verify_layout(&f).unwrap();
        f.layout
    }

    #[test]
    fn diamond_keeps_a_topological_order() {
        let edges = [(0, 1), (0, 2), (1, 3), (2, 3)];
        assert_eq!(layout(4, &edges, &[0, 3, 2, 1]), blocks(&[0, 1, 2, 3]));
    }

    #[test]
    fn loop_exit_moves_after_the_body() {
        // 1: header -> 2 (body) or 3 (exit); 2 -> 1. The front end put the
        // exit before the body.
        let edges = [(0, 1), (1, 2), (1, 3), (2, 1)];
        assert_eq!(layout(4, &edges, &[0, 1, 3, 2]), blocks(&[0, 1, 2, 3]));
    }

    #[test]
    fn nested_loops_are_contiguous() {
        // Outer header 1, inner header 2 with body 3, inner exit 4 (outer
        // latch), outer exit 5. Scrambled input.
        let edges = [(0, 1), (1, 2), (1, 5), (2, 3), (2, 4), (3, 2), (4, 1)];
        assert_eq!(
            layout(6, &edges, &[0, 5, 4, 1, 3, 2]),
            blocks(&[0, 1, 2, 3, 4, 5])
        );
    }

    #[test]
    fn break_target_after_the_loop() {
        // 1 header -> 2 or exit 4; 2 -> 3 (latch) or break to 5; 3 -> 1;
        // 4 -> 5. Both exit targets (4, 5) come after the loop {1, 2, 3}.
        let edges = [(0, 1), (1, 2), (1, 4), (2, 3), (2, 5), (3, 1), (4, 5)];
        assert_eq!(
            layout(6, &edges, &[0, 1, 2, 5, 3, 4]),
            blocks(&[0, 1, 2, 3, 4, 5])
        );
    }

    #[test]
    fn unreachable_blocks_go_last() {
        let edges = [(0, 2), (1, 2)];
        assert_eq!(layout(3, &edges, &[0, 1, 2]), blocks(&[0, 2, 1]));
    }

    #[test]
    fn irreducible_is_an_error() {
        let mut f = function_from_edges(4, &[(0, 1), (0, 2), (1, 2), (2, 1), (2, 3)]);
        let before = f.layout.clone();
        let e = layout_function(&mut f).unwrap_err();
        assert!(matches!(e, LayoutError::Irreducible { .. }));
        assert_eq!(f.layout, before);
    }
}
