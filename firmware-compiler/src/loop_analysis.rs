//! Natural loops and their nesting.
//!
//! A back edge is an edge `u -> h` whose target `h` dominates its source
//! `u`; its natural loop is `h` plus every block that reaches `u` without
//! passing through `h`. Back edges with the same header make one loop.
//! Two natural loops with different headers are either disjoint or nested,
//! so the loops form a forest: a loop's parent is the smallest other loop
//! that contains its header.
//!
//! A CFG is irreducible when some cycle can be entered at more than one
//! block; such a cycle has no header that dominates it, so it is not a
//! natural loop. It shows up as a retreating edge of a depth-first walk
//! (an edge to a block still on the walk's stack) whose target does not
//! dominate its source. The front end only builds reducible CFGs; the
//! layout verifier reports irreducible ones.
//!
//! Users: divergence analysis (temporal divergence at loop exits), if-
//! conversion (loop masks), the layout pass (contiguous loops, exits after
//! loops) and spilling.

use crate::dominator_tree::DominatorTree;
use crate::flowgraph::ControlFlowGraph;
use crate::ir::{Block, Function};
use std::fmt;

/// A loop of a [`LoopAnalysis`], an index into [`LoopAnalysis::loops`].
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct LoopId(pub u32);

impl LoopId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for LoopId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "loop{}", self.0)
    }
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct LoopInfo {
    /// The block every back edge of the loop goes to; it dominates the loop.
    pub header: Block,
    /// The loop's blocks (nested loops' blocks included) in reverse
    /// post-order, so the header comes first.
    pub blocks: Vec<Block>,
    /// The innermost loop that contains this one.
    pub parent: Option<LoopId>,
    /// 1 for an outermost loop, 2 for a loop inside it, ...
    pub depth: u32,
    /// The edges `(from, to)` that leave the loop: `from` in the loop, `to`
    /// outside it. Ordered by `from` (as in `blocks`), then branch order.
    pub exits: Vec<(Block, Block)>,
}

impl LoopInfo {
    pub fn contains(&self, b: Block) -> bool {
        self.blocks.contains(&b)
    }
}

#[derive(Clone, Debug, Default)]
pub struct LoopAnalysis {
    loops: Vec<LoopInfo>,
    /// The innermost loop of each block.
    innermost: Vec<Option<LoopId>>,
    /// Retreating edges whose target does not dominate their source.
    irreducible_edges: Vec<(Block, Block)>,
}

impl LoopAnalysis {
    pub fn compute(func: &Function, cfg: &ControlFlowGraph, domtree: &DominatorTree) -> Self {
        let n = func.blocks.len();

        // One loop per header, headers in reverse post-order: an outer
        // loop's header dominates an inner one's, so it comes first, and
        // parents get smaller ids than their children.
        let mut loops: Vec<LoopInfo> = Vec::new();
        for &h in domtree.rpo() {
            let latches: Vec<Block> = cfg
                .preds(h)
                .iter()
                .copied()
                .filter(|&u| domtree.dominates(h, u))
                .collect();
            if latches.is_empty() {
                continue;
            }
            let mut in_loop = vec![false; n];
            in_loop[h.index()] = true;
            let mut work = Vec::new();
            for u in latches {
                if !in_loop[u.index()] {
                    in_loop[u.index()] = true;
                    work.push(u);
                }
            }
            while let Some(b) = work.pop() {
                for &p in cfg.preds(b) {
                    // Unreachable predecessors are not part of any loop.
                    if domtree.is_reachable(p) && !in_loop[p.index()] {
                        in_loop[p.index()] = true;
                        work.push(p);
                    }
                }
            }
            let blocks: Vec<Block> = domtree
                .rpo()
                .iter()
                .copied()
                .filter(|b| in_loop[b.index()])
                .collect();
            let mut exits = Vec::new();
            for &b in &blocks {
                for &s in cfg.succs(b) {
                    if !in_loop[s.index()] {
                        exits.push((b, s));
                    }
                }
            }
            loops.push(LoopInfo {
                header: h,
                blocks,
                parent: None,
                depth: 1,
                exits,
            });
        }

        // Nesting: the parent is the smallest other loop containing the
        // header. Parents precede children, so depths resolve in order.
        for i in 0..loops.len() {
            let header = loops[i].header;
            let parent = (0..i)
                .filter(|&j| loops[j].contains(header))
                .min_by_key(|&j| loops[j].blocks.len());
            if let Some(j) = parent {
                loops[i].parent = Some(LoopId(j as u32));
                loops[i].depth = loops[j].depth + 1;
            }
        }

        // Innermost loop per block: the deepest loop containing it. Later
        // loops are nested deeper or disjoint, so the last writer wins.
        let mut innermost = vec![None; n];
        for (i, l) in loops.iter().enumerate() {
            for &b in &l.blocks {
                let current: Option<LoopId> = innermost[b.index()];
                if current.map_or(true, |c| loops[c.index()].depth < l.depth) {
                    innermost[b.index()] = Some(LoopId(i as u32));
                }
            }
        }

        let irreducible_edges = retreating_edges(func, cfg)
            .into_iter()
            .filter(|&(u, h)| !domtree.dominates(h, u))
            .collect();

        LoopAnalysis {
            loops,
            innermost,
            irreducible_edges,
        }
    }

    /// All loops; a loop's parent comes before it.
    pub fn loops(&self) -> &[LoopInfo] {
        &self.loops
    }

    pub fn get(&self, id: LoopId) -> &LoopInfo {
        &self.loops[id.index()]
    }

    /// The innermost loop containing `b`, if any.
    pub fn innermost(&self, b: Block) -> Option<LoopId> {
        self.innermost.get(b.index()).copied().flatten()
    }

    /// How many loops contain `b` (0 outside every loop).
    pub fn depth(&self, b: Block) -> u32 {
        self.innermost(b).map_or(0, |l| self.get(l).depth)
    }

    /// Whether loop `outer` contains loop `inner` (a loop contains itself).
    pub fn loop_contains(&self, outer: LoopId, inner: LoopId) -> bool {
        let mut cur = Some(inner);
        while let Some(l) = cur {
            if l == outer {
                return true;
            }
            cur = self.get(l).parent;
        }
        false
    }

    pub fn is_irreducible(&self) -> bool {
        !self.irreducible_edges.is_empty()
    }

    /// The retreating edges `(from, to)` that make the CFG irreducible.
    pub fn irreducible_edges(&self) -> &[(Block, Block)] {
        &self.irreducible_edges
    }
}

/// Edges of a depth-first walk from the entry that go to a block still on
/// the walk's stack (an ancestor in the DFS tree, or the block itself).
fn retreating_edges(func: &Function, cfg: &ControlFlowGraph) -> Vec<(Block, Block)> {
    let mut out = Vec::new();
    let Some(entry) = func.entry_block() else {
        return out;
    };
    let n = func.blocks.len();
    if entry.index() >= n {
        return out;
    }
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        OnStack,
        Done,
    }
    let mut state = vec![State::New; n];
    let mut stack: Vec<(Block, usize)> = vec![(entry, 0)];
    state[entry.index()] = State::OnStack;
    while let Some(top) = stack.last_mut() {
        let (b, next) = *top;
        if let Some(&s) = cfg.succs(b).get(next) {
            top.1 += 1;
            match state[s.index()] {
                State::New => {
                    state[s.index()] = State::OnStack;
                    stack.push((s, 0));
                }
                State::OnStack => out.push((b, s)),
                State::Done => {}
            }
        } else {
            state[b.index()] = State::Done;
            stack.pop();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flowgraph::tests::function_from_edges;

    fn analyze(n: usize, edges: &[(u32, u32)]) -> LoopAnalysis {
        let f = function_from_edges(n, edges);
        let cfg = ControlFlowGraph::compute(&f);
        let dt = DominatorTree::compute(&f, &cfg);
        LoopAnalysis::compute(&f, &cfg, &dt)
    }

    fn blocks(ids: &[u32]) -> Vec<Block> {
        ids.iter().map(|&i| Block(i)).collect()
    }

    #[test]
    fn diamond_has_no_loops() {
        let la = analyze(4, &[(0, 1), (0, 2), (1, 3), (2, 3)]);
        assert!(la.loops().is_empty());
        assert!(!la.is_irreducible());
        assert_eq!(la.innermost(Block(1)), None);
        assert_eq!(la.depth(Block(1)), 0);
    }

    #[test]
    fn nested_loops() {
        // 0 -> 1 (outer header); 1 -> 2 (inner header), 1 -> 5 (exit);
        // 2 -> 3 -> 2 (inner back edge); 2 -> 4 -> 1 (outer back edge).
        let la = analyze(6, &[(0, 1), (1, 2), (1, 5), (2, 3), (2, 4), (3, 2), (4, 1)]);
        assert_eq!(la.loops().len(), 2);
        let outer = &la.loops()[0];
        assert_eq!(outer.header, Block(1));
        assert_eq!(outer.blocks[0], Block(1));
        let mut ob = outer.blocks.clone();
        ob.sort();
        assert_eq!(ob, blocks(&[1, 2, 3, 4]));
        assert_eq!(outer.parent, None);
        assert_eq!(outer.depth, 1);
        assert_eq!(outer.exits, vec![(Block(1), Block(5))]);

        let inner = &la.loops()[1];
        assert_eq!(inner.header, Block(2));
        let mut ib = inner.blocks.clone();
        ib.sort();
        assert_eq!(ib, blocks(&[2, 3]));
        assert_eq!(inner.parent, Some(LoopId(0)));
        assert_eq!(inner.depth, 2);
        assert_eq!(inner.exits, vec![(Block(2), Block(4))]);

        assert_eq!(la.innermost(Block(3)), Some(LoopId(1)));
        assert_eq!(la.innermost(Block(4)), Some(LoopId(0)));
        assert_eq!(la.innermost(Block(5)), None);
        assert!(la.loop_contains(LoopId(0), LoopId(1)));
        assert!(!la.loop_contains(LoopId(1), LoopId(0)));
        assert!(!la.is_irreducible());
    }

    #[test]
    fn loop_with_two_exits() {
        // while (c) { if (d) break; body } : 0 -> 1 (header); 1 -> 2, 1 -> 4
        // (exit); 2 -> 3, 2 -> 5 (break); 3 -> 1; 4 -> 5.
        let la = analyze(6, &[(0, 1), (1, 2), (1, 4), (2, 3), (2, 5), (3, 1), (4, 5)]);
        assert_eq!(la.loops().len(), 1);
        let l = &la.loops()[0];
        assert_eq!(l.header, Block(1));
        let mut b = l.blocks.clone();
        b.sort();
        assert_eq!(b, blocks(&[1, 2, 3]));
        assert_eq!(l.exits, vec![(Block(1), Block(4)), (Block(2), Block(5))]);
    }

    #[test]
    fn two_latches_make_one_loop() {
        // 1 is the header of back edges from 2 and 3 (a `continue`).
        let la = analyze(5, &[(0, 1), (1, 2), (1, 4), (2, 1), (2, 3), (3, 1)]);
        assert_eq!(la.loops().len(), 1);
        let mut b = la.loops()[0].blocks.clone();
        b.sort();
        assert_eq!(b, blocks(&[1, 2, 3]));
    }

    #[test]
    fn self_loop() {
        let la = analyze(3, &[(0, 1), (1, 1), (1, 2)]);
        assert_eq!(la.loops().len(), 1);
        assert_eq!(la.loops()[0].blocks, blocks(&[1]));
        assert_eq!(la.loops()[0].exits, vec![(Block(1), Block(2))]);
    }

    #[test]
    fn irreducible() {
        // The cycle 1 <-> 2 can be entered at 1 and at 2.
        let la = analyze(4, &[(0, 1), (0, 2), (1, 2), (2, 1), (2, 3)]);
        assert!(la.is_irreducible());
        assert!(la.loops().is_empty());
        assert_eq!(la.irreducible_edges().len(), 1);
    }
}
