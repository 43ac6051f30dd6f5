//! Dominator and post-dominator trees.
//!
//! Built from the [`ControlFlowGraph`] with the iterative algorithm of
//! Cooper, Harvey and Kennedy ("A Simple, Fast Dominance Algorithm"): walk
//! the blocks in reverse post-order, and set each block's immediate
//! dominator to the nearest common ancestor of its already-processed
//! predecessors, until nothing changes. For the CFGs the front end produces
//! (reducible, small) this converges in two or three sweeps.
//!
//! Users: the verifier (SSA dominance), loop analysis (back edges),
//! mem2reg, GVN, divergence analysis (the post-dominator tree gives the
//! reconvergence point of a branch), and the layout pass.
//!
//! The post-dominator tree runs the same algorithm on the reversed CFG with
//! a virtual exit node whose predecessors are all `return` blocks, so a
//! function with several returns still has a single root.

use crate::flowgraph::ControlFlowGraph;
use crate::ir::{Block, Function, InstData};

/// The result of the iterative algorithm on a graph of nodes `0..n`.
#[derive(Clone, Debug, Default)]
struct DomForest {
    /// Reachable nodes in reverse post-order; `rpo[0]` is the root.
    rpo: Vec<usize>,
    /// Position of each node in `rpo`, `None` if unreachable.
    rpo_index: Vec<Option<usize>>,
    /// Immediate dominator; `None` for the root and unreachable nodes.
    idom: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
    /// Pre- and post-order numbers in the dominator tree, for O(1)
    /// `dominates` queries (a dominates b iff b's interval nests in a's).
    pre: Vec<u32>,
    post: Vec<u32>,
}

impl DomForest {
    /// `succs[n]` / `preds[n]` are the edges of node `n`; `root` is the start.
    fn compute(succs: &[Vec<usize>], preds: &[Vec<usize>], root: Option<usize>) -> DomForest {
        let n = succs.len();
        let mut forest = DomForest {
            rpo: Vec::new(),
            rpo_index: vec![None; n],
            idom: vec![None; n],
            children: vec![Vec::new(); n],
            pre: vec![0; n],
            post: vec![0; n],
        };
        let Some(root) = root.filter(|&r| r < n) else {
            return forest;
        };

        // Iterative depth-first post-order from the root.
        let mut visited = vec![false; n];
        let mut postorder = Vec::with_capacity(n);
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        visited[root] = true;
        while let Some(top) = stack.last_mut() {
            let (node, next) = *top;
            if let Some(&s) = succs[node].get(next) {
                top.1 += 1;
                if !visited[s] {
                    visited[s] = true;
                    stack.push((s, 0));
                }
            } else {
                postorder.push(node);
                stack.pop();
            }
        }
        forest.rpo = postorder.into_iter().rev().collect();
        for (i, &node) in forest.rpo.iter().enumerate() {
            forest.rpo_index[node] = Some(i);
        }

        // Cooper-Harvey-Kennedy. `doms[root] = root` during the iteration
        // makes `intersect` terminate at the root; it is cleared after.
        let mut doms: Vec<Option<usize>> = vec![None; n];
        doms[root] = Some(root);
        let rpo_index = &forest.rpo_index;
        let intersect = |doms: &[Option<usize>], mut a: usize, mut b: usize| {
            while a != b {
                while rpo_index[a] > rpo_index[b] {
                    a = doms[a].unwrap_or(root);
                }
                while rpo_index[b] > rpo_index[a] {
                    b = doms[b].unwrap_or(root);
                }
            }
            a
        };
        // Each node's reachable predecessors, latest in reverse post-order
        // first: at a join of many branches down a chain (`if (a && b &&
        // …)`: every `false` edge meets at the `else`), each `intersect`
        // then walks one step up instead of back down the whole chain.
        let ordered_preds: Vec<Vec<usize>> = (0..n)
            .map(|node| {
                let mut ps: Vec<usize> = preds
                    .get(node)
                    .into_iter()
                    .flatten()
                    .copied()
                    .filter(|&p| p < n && rpo_index[p].is_some())
                    .collect();
                ps.sort_unstable_by_key(|&p| std::cmp::Reverse(rpo_index[p]));
                ps
            })
            .collect();
        let mut changed = true;
        while changed {
            changed = false;
            for &node in &forest.rpo[1..] {
                let mut new_idom: Option<usize> = None;
                for &p in &ordered_preds[node] {
                    if doms[p].is_none() {
                        continue; // unreachable or not processed yet
                    }
                    new_idom = Some(match new_idom {
                        None => p,
                        Some(cur) => intersect(&doms, p, cur),
                    });
                }
                if new_idom.is_some() && doms[node] != new_idom {
                    doms[node] = new_idom;
                    changed = true;
                }
            }
        }
        doms[root] = None;
        forest.idom = doms;

        // Children in RPO order, then interval numbering of the tree.
        for &node in &forest.rpo[1..] {
            if let Some(d) = forest.idom[node] {
                forest.children[d].push(node);
            }
        }
        let mut counter = 0u32;
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        forest.pre[root] = counter;
        counter += 1;
        while let Some(top) = stack.last_mut() {
            let (node, next) = *top;
            if let Some(&c) = forest.children[node].get(next) {
                top.1 += 1;
                forest.pre[c] = counter;
                counter += 1;
                stack.push((c, 0));
            } else {
                forest.post[node] = counter;
                counter += 1;
                stack.pop();
            }
        }
        forest
    }

    fn reachable(&self, n: usize) -> bool {
        self.rpo_index.get(n).is_some_and(Option::is_some)
    }

    fn dominates(&self, a: usize, b: usize) -> bool {
        if !self.reachable(a) || !self.reachable(b) {
            return a == b;
        }
        self.pre[a] <= self.pre[b] && self.post[b] <= self.post[a]
    }
}

/// Dominators of an abstract graph of nodes `0..n` given by edge lists, for
/// analyses that build graphs of their own (the predication pass's
/// per-loop region graphs, whose post-dominators give control dependence).
#[derive(Clone, Debug, Default)]
pub struct GraphDominators {
    forest: DomForest,
}

impl GraphDominators {
    /// `succs[n]` / `preds[n]` are the edges of node `n`; `root` is the
    /// start (for post-dominators: pass the reversed edges and the sink).
    pub fn compute(succs: &[Vec<usize>], preds: &[Vec<usize>], root: usize) -> GraphDominators {
        GraphDominators {
            forest: DomForest::compute(succs, preds, Some(root)),
        }
    }

    /// The immediate dominator; `None` for the root and unreachable nodes.
    pub fn idom(&self, n: usize) -> Option<usize> {
        self.forest.idom.get(n).copied().flatten()
    }

    /// Whether `n` is reachable from the root.
    pub fn reachable(&self, n: usize) -> bool {
        self.forest.reachable(n)
    }

    /// Whether `a` dominates `b` (every node dominates itself).
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        self.forest.dominates(a, b)
    }
}

/// The dominator tree of the laid-out blocks, rooted at the entry block.
#[derive(Clone, Debug, Default)]
pub struct DominatorTree {
    forest: DomForest,
    rpo: Vec<Block>,
    children: Vec<Vec<Block>>,
}

impl DominatorTree {
    pub fn compute(func: &Function, cfg: &ControlFlowGraph) -> DominatorTree {
        let n = func.blocks.len();
        let succs: Vec<Vec<usize>> = (0..n)
            .map(|b| cfg.succs(Block::new(b)).iter().map(|s| s.index()).collect())
            .collect();
        let preds: Vec<Vec<usize>> = (0..n)
            .map(|b| cfg.preds(Block::new(b)).iter().map(|s| s.index()).collect())
            .collect();
        let forest = DomForest::compute(&succs, &preds, func.entry_block().map(Block::index));
        let rpo = forest.rpo.iter().map(|&b| Block::new(b)).collect();
        let children = forest
            .children
            .iter()
            .map(|c| c.iter().map(|&b| Block::new(b)).collect())
            .collect();
        DominatorTree {
            forest,
            rpo,
            children,
        }
    }

    /// The immediate dominator of `b`; `None` for the entry block and for
    /// unreachable blocks.
    pub fn idom(&self, b: Block) -> Option<Block> {
        self.forest
            .idom
            .get(b.index())
            .copied()
            .flatten()
            .map(Block::new)
    }

    /// Whether every path from the entry to `b` goes through `a` (a block
    /// dominates itself). An unreachable block dominates only itself and is
    /// dominated only by itself.
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        self.forest.dominates(a.index(), b.index())
    }

    /// `a` dominates `b` and differs from it.
    pub fn strictly_dominates(&self, a: Block, b: Block) -> bool {
        a != b && self.dominates(a, b)
    }

    /// The reachable blocks in reverse post-order (entry first).
    pub fn rpo(&self) -> &[Block] {
        &self.rpo
    }

    /// Position of `b` in [`rpo`](Self::rpo), `None` if unreachable.
    pub fn rpo_number(&self, b: Block) -> Option<usize> {
        self.forest.rpo_index.get(b.index()).copied().flatten()
    }

    pub fn is_reachable(&self, b: Block) -> bool {
        self.forest.reachable(b.index())
    }

    /// The blocks `b` immediately dominates, in reverse post-order.
    pub fn children(&self, b: Block) -> &[Block] {
        self.children.get(b.index()).map_or(&[], Vec::as_slice)
    }
}

/// The post-dominator tree: `a` post-dominates `b` when every path from `b`
/// to a `return` goes through `a`. The root is a virtual exit node that
/// follows every `return` block; blocks that cannot reach a `return` (an
/// endless loop) are outside the tree.
#[derive(Clone, Debug, Default)]
pub struct PostDominatorTree {
    forest: DomForest,
    /// The index of the virtual exit node (the number of blocks).
    exit: usize,
}

impl PostDominatorTree {
    pub fn compute(func: &Function, cfg: &ControlFlowGraph) -> PostDominatorTree {
        let n = func.blocks.len();
        let exit = n;
        // Reversed edges: the successors of a block here are its CFG
        // predecessors, and the exit's successors are the return blocks.
        let mut succs: Vec<Vec<usize>> = Vec::with_capacity(n + 1);
        let mut preds: Vec<Vec<usize>> = Vec::with_capacity(n + 1);
        for b in 0..n {
            succs.push(cfg.preds(Block::new(b)).iter().map(|p| p.index()).collect());
            preds.push(cfg.succs(Block::new(b)).iter().map(|s| s.index()).collect());
        }
        let mut returns = Vec::new();
        for &b in &func.layout {
            if b.index() < n && is_return_block(func, b) && !returns.contains(&b.index()) {
                returns.push(b.index());
                preds[b.index()].push(exit);
            }
        }
        succs.push(returns);
        preds.push(Vec::new());
        let forest = DomForest::compute(&succs, &preds, Some(exit));
        PostDominatorTree { forest, exit }
    }

    /// The immediate post-dominator of `b`: the first block every path from
    /// `b` to an exit must pass. `None` when that is the virtual exit (as
    /// for the `return` blocks, or a branch whose arms return separately),
    /// or when `b` cannot reach a `return`.
    pub fn ipdom(&self, b: Block) -> Option<Block> {
        let d = self.forest.idom.get(b.index()).copied().flatten()?;
        (d != self.exit).then(|| Block::new(d))
    }

    /// Whether every path from `b` to a `return` passes through `a` (a
    /// block post-dominates itself).
    pub fn post_dominates(&self, a: Block, b: Block) -> bool {
        a.index() < self.exit && self.forest.dominates(a.index(), b.index())
    }

    /// Whether some path leads from `b` to a `return`.
    pub fn reaches_exit(&self, b: Block) -> bool {
        b.index() < self.exit && self.forest.reachable(b.index())
    }
}

fn is_return_block(func: &Function, b: Block) -> bool {
    func.blocks
        .get(b.index())
        .and_then(|data| data.insts.last())
        .and_then(|i| func.insts.get(i.index()))
        .is_some_and(|node| matches!(node.data, InstData::Return { .. }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flowgraph::tests::function_from_edges;

    fn trees(n: usize, edges: &[(u32, u32)]) -> (DominatorTree, PostDominatorTree) {
        let f = function_from_edges(n, edges);
        let cfg = ControlFlowGraph::compute(&f);
        (
            DominatorTree::compute(&f, &cfg),
            PostDominatorTree::compute(&f, &cfg),
        )
    }

    #[test]
    fn diamond() {
        //   0
        //  / \
        // 1   2
        //  \ /
        //   3
        let (dt, pdt) = trees(4, &[(0, 1), (0, 2), (1, 3), (2, 3)]);
        assert_eq!(dt.idom(Block(0)), None);
        assert_eq!(dt.idom(Block(1)), Some(Block(0)));
        assert_eq!(dt.idom(Block(2)), Some(Block(0)));
        assert_eq!(dt.idom(Block(3)), Some(Block(0)));
        assert!(dt.dominates(Block(0), Block(3)));
        assert!(!dt.dominates(Block(1), Block(3)));
        assert!(dt.dominates(Block(3), Block(3)));
        assert_eq!(dt.rpo()[0], Block(0));
        assert_eq!(dt.rpo()[3], Block(3));
        assert_eq!(dt.children(Block(0)).len(), 3);

        assert_eq!(pdt.ipdom(Block(0)), Some(Block(3)));
        assert_eq!(pdt.ipdom(Block(1)), Some(Block(3)));
        assert_eq!(pdt.ipdom(Block(3)), None);
        assert!(pdt.post_dominates(Block(3), Block(0)));
        assert!(!pdt.post_dominates(Block(1), Block(0)));
    }

    #[test]
    fn nested_loops() {
        // 0 -> 1 (outer header) -> 2 (inner header) -> 3 -> 2 (inner back
        // edge); 2 -> 4 -> 1 (outer back edge); 1 -> 5 (exit).
        let (dt, pdt) = trees(6, &[(0, 1), (1, 2), (1, 5), (2, 3), (2, 4), (3, 2), (4, 1)]);
        assert_eq!(dt.idom(Block(1)), Some(Block(0)));
        assert_eq!(dt.idom(Block(2)), Some(Block(1)));
        assert_eq!(dt.idom(Block(3)), Some(Block(2)));
        assert_eq!(dt.idom(Block(4)), Some(Block(2)));
        assert_eq!(dt.idom(Block(5)), Some(Block(1)));
        assert!(dt.dominates(Block(1), Block(4)));
        assert!(!dt.dominates(Block(3), Block(4)));

        assert_eq!(pdt.ipdom(Block(0)), Some(Block(1)));
        assert_eq!(pdt.ipdom(Block(3)), Some(Block(2)));
        assert_eq!(pdt.ipdom(Block(2)), Some(Block(4)));
        assert_eq!(pdt.ipdom(Block(4)), Some(Block(1)));
        assert_eq!(pdt.ipdom(Block(1)), Some(Block(5)));
    }

    #[test]
    fn several_returns_meet_at_the_virtual_exit() {
        // 0 branches to 1 and 2, both return: nothing but the exit
        // post-dominates 0.
        let (_, pdt) = trees(3, &[(0, 1), (0, 2)]);
        assert_eq!(pdt.ipdom(Block(0)), None);
        assert_eq!(pdt.ipdom(Block(1)), None);
        assert!(pdt.reaches_exit(Block(0)));
        assert!(!pdt.post_dominates(Block(1), Block(0)));
    }

    #[test]
    fn endless_loop_is_outside_the_post_dominator_tree() {
        // 0 -> 1 -> 2 -> 1, and 0 -> 3 returns.
        let (dt, pdt) = trees(4, &[(0, 1), (0, 3), (1, 2), (2, 1)]);
        assert!(!pdt.reaches_exit(Block(1)));
        assert_eq!(pdt.ipdom(Block(2)), None);
        // Every path from 0 that reaches a return goes through 3.
        assert_eq!(pdt.ipdom(Block(0)), Some(Block(3)));
        assert_eq!(dt.idom(Block(2)), Some(Block(1)));
    }

    #[test]
    fn unreachable_blocks() {
        // block2 is laid out but nothing branches to it.
        let (dt, _) = trees(3, &[(0, 1), (2, 1)]);
        assert!(!dt.is_reachable(Block(2)));
        assert_eq!(dt.idom(Block(2)), None);
        assert_eq!(dt.idom(Block(1)), Some(Block(0)));
        assert!(!dt.dominates(Block(2), Block(1)));
        assert!(!dt.dominates(Block(0), Block(2)));
        assert_eq!(dt.rpo(), &[Block(0), Block(1)]);
    }

    #[test]
    fn irreducible_pair_is_dominated_only_by_the_entry() {
        // 0 -> 1, 0 -> 2, 1 <-> 2, 2 -> 3.
        let (dt, _) = trees(4, &[(0, 1), (0, 2), (1, 2), (2, 1), (2, 3)]);
        assert_eq!(dt.idom(Block(1)), Some(Block(0)));
        assert_eq!(dt.idom(Block(2)), Some(Block(0)));
        assert_eq!(dt.idom(Block(3)), Some(Block(2)));
    }

    #[test]
    fn empty_function() {
        let f = Function::new("e", crate::ir::FuncKind::Kernel);
        let cfg = ControlFlowGraph::compute(&f);
        let dt = DominatorTree::compute(&f, &cfg);
        assert!(dt.rpo().is_empty());
        assert_eq!(dt.idom(Block(0)), None);
        let pdt = PostDominatorTree::compute(&f, &cfg);
        assert_eq!(pdt.ipdom(Block(0)), None);
    }
}
