//! Region graphs and their labelled control dependence (Lee §III-A).
//!
//! Predication works one loop level at a time, as in Lee's Fig. 5e: the
//! graph of a level has one node per block directly in it and one node per
//! loop directly inside it (collapsed, its exits leaving the node), and a
//! virtual **sink** that ends an iteration (back edges and exits of the
//! level's own loop) or the function (`return` blocks). The top level is the
//! function outside all loops. Such a graph is acyclic when the function is
//! reducible.
//!
//! A `return` block whose only predecessor is a two-way branch is a **dead
//! end**: lanes that go there terminate (or return to the caller) and never
//! join the others again, so it is not joined to the sink. Its sibling path
//! then post-dominates the branch, and the code after `if (i >= n) return;`
//! stays convergent instead of being guarded by `i < n` to the end.
//!
//! Control dependence is computed from the post-dominators of the level
//! graph (Ferrante et al.): for an edge `X -l-> Y`, every node on the
//! post-dominator chain from `Y` up to (not including) `ipdom(X)` depends on
//! `(X, l)`. The labels say which way the branch went: the two arms of a
//! block's conditional branch, or, for a collapsed loop, the exit target.

use std::collections::HashMap;

use crate::dominator_tree::GraphDominators;
use crate::ir::{Block, Function, InstData};
use crate::loop_analysis::{LoopAnalysis, LoopId};

/// A node of a level graph.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Node {
    Block(Block),
    /// A loop directly inside the level, collapsed.
    Loop(LoopId),
}

/// Which way an edge leaves its node.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Label {
    /// The taken arm of a block's conditional branch.
    Then,
    /// The other arm.
    Else,
    /// The only way out of a block (jump, return, or both arms alike).
    Always,
    /// A collapsed loop's exit to this IR block.
    Exit(Block),
}

/// Where an edge goes inside the level graph.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Dest {
    Node(usize),
    Sink,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Edge {
    pub label: Label,
    /// The IR block the edge goes to (`None` for a `return`).
    pub target: Option<Block>,
    pub dest: Dest,
}

/// The graph of one level with its control dependence.
#[derive(Clone, Debug)]
pub struct Level {
    /// `None` for the top level.
    pub loop_id: Option<LoopId>,
    /// Node 0 is the level's entry (function entry or loop header); the
    /// rest follow the layout order of their first block.
    pub nodes: Vec<Node>,
    pub edges: Vec<Vec<Edge>>,
    pub preds: Vec<Vec<usize>>,
    /// `return` blocks that are dead ends (see the module docs).
    pub dead_end: Vec<bool>,
    /// Immediate post-dominator; `Dest::Sink` when it is the sink; `None`
    /// for dead ends.
    pub ipdom: Vec<Option<Dest>>,
    /// Forward dominators, root node 0.
    pub dom: GraphDominators,
    /// The labelled control dependences of each node.
    pub cd: Vec<Vec<(usize, Label)>>,
    /// The position of each node in `nodes` (a search through `nodes` per
    /// lookup would make functions of thousands of blocks quadratic).
    index: HashMap<Node, usize>,
}

/// Why a function has no level graphs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LevelError {
    Irreducible,
    /// A node cannot reach the end of its level (an endless loop).
    NoExit(Block),
}

impl Level {
    pub fn node_of(&self, n: Node) -> Option<usize> {
        self.index.get(&n).copied()
    }

    /// The distinct destinations of `n`'s edges.
    pub fn dests(&self, n: usize) -> Vec<Dest> {
        let mut out = Vec::new();
        for e in &self.edges[n] {
            if !out.contains(&e.dest) {
                out.push(e.dest);
            }
        }
        out
    }

    /// Whether `n` is a branch: edges with more than one label.
    pub fn is_branch(&self, n: usize) -> bool {
        self.edges[n].len() > 1
    }
}

/// The innermost loop of `b`, and whether `inner` lies inside `outer`
/// (`None` = the whole function).
fn within(loops: &LoopAnalysis, inner: Option<LoopId>, outer: Option<LoopId>) -> bool {
    let Some(outer) = outer else {
        return true;
    };
    let mut cur = inner;
    while let Some(l) = cur {
        if l == outer {
            return true;
        }
        cur = loops.get(l).parent;
    }
    false
}

fn is_return(func: &Function, b: Block) -> bool {
    func.terminator(b)
        .is_some_and(|t| matches!(func.inst(t), InstData::Return { .. }))
}

/// Builds the graph of every level: index 0 is the top level, index
/// `l + 1` the level of loop `l`.
pub fn build_levels(func: &Function, loops: &LoopAnalysis) -> Result<Vec<Level>, LevelError> {
    if loops.is_irreducible() {
        return Err(LevelError::Irreducible);
    }
    let mut levels = vec![build_level(func, loops, None)?];
    for i in 0..loops.loops().len() {
        levels.push(build_level(func, loops, Some(LoopId(i as u32)))?);
    }
    Ok(levels)
}

fn build_level(
    func: &Function,
    loops: &LoopAnalysis,
    level: Option<LoopId>,
) -> Result<Level, LevelError> {
    let layout_position: HashMap<Block, usize> = func
        .layout
        .iter()
        .enumerate()
        .map(|(k, &b)| (b, k))
        .collect();
    let position = |b: Block| layout_position.get(&b).copied().unwrap_or(usize::MAX);
    // Nodes in layout order of their first block.
    let mut nodes: Vec<(usize, Node)> = Vec::new();
    for &b in &func.layout {
        if loops.innermost(b) == level {
            nodes.push((position(b), Node::Block(b)));
        }
    }
    for (i, l) in loops.loops().iter().enumerate() {
        if l.parent == level {
            nodes.push((position(l.header), Node::Loop(LoopId(i as u32))));
        }
    }
    nodes.sort_by_key(|&(p, _)| p);
    let nodes: Vec<Node> = nodes.into_iter().map(|(_, n)| n).collect();
    let mut node_index: HashMap<Node, usize> = HashMap::new();
    for (k, &n) in nodes.iter().enumerate() {
        node_index.entry(n).or_insert(k);
    }
    let index = |n: Node| node_index.get(&n).copied();

    // Where an IR block is, seen from this level.
    let dest_of = |b: Block| -> Result<Dest, LevelError> {
        if let Some(l) = level {
            if loops.get(l).header == b || !within(loops, loops.innermost(b), Some(l)) {
                return Ok(Dest::Sink);
            }
        }
        let mut cur = loops.innermost(b);
        if cur == level {
            return index(Node::Block(b))
                .map(Dest::Node)
                .ok_or(LevelError::Irreducible);
        }
        while let Some(l) = cur {
            if loops.get(l).parent == level {
                if loops.get(l).header != b {
                    return Err(LevelError::Irreducible);
                }
                return index(Node::Loop(l))
                    .map(Dest::Node)
                    .ok_or(LevelError::Irreducible);
            }
            cur = loops.get(l).parent;
        }
        Err(LevelError::Irreducible)
    };

    let mut edges: Vec<Vec<Edge>> = Vec::with_capacity(nodes.len());
    for &n in &nodes {
        let mut out = Vec::new();
        match n {
            Node::Block(b) => {
                let term = func.terminator(b).map(|t| func.inst(t));
                match term {
                    Some(InstData::Jump { dest }) => out.push(Edge {
                        label: Label::Always,
                        target: Some(dest.block),
                        dest: dest_of(dest.block)?,
                    }),
                    Some(InstData::Brif {
                        then_dest,
                        else_dest,
                        ..
                    }) => {
                        if then_dest.block == else_dest.block {
                            out.push(Edge {
                                label: Label::Always,
                                target: Some(then_dest.block),
                                dest: dest_of(then_dest.block)?,
                            });
                        } else {
                            out.push(Edge {
                                label: Label::Then,
                                target: Some(then_dest.block),
                                dest: dest_of(then_dest.block)?,
                            });
                            out.push(Edge {
                                label: Label::Else,
                                target: Some(else_dest.block),
                                dest: dest_of(else_dest.block)?,
                            });
                        }
                    }
                    _ => out.push(Edge {
                        label: Label::Always,
                        target: None,
                        dest: Dest::Sink,
                    }),
                }
            }
            Node::Loop(l) => {
                for &(_, t) in &loops.get(l).exits {
                    if !out.iter().any(|e: &Edge| e.target == Some(t)) {
                        out.push(Edge {
                            label: Label::Exit(t),
                            target: Some(t),
                            dest: dest_of(t)?,
                        });
                    }
                }
            }
        }
        edges.push(out);
    }

    let n = nodes.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, es) in edges.iter().enumerate() {
        for e in es {
            if let Dest::Node(d) = e.dest {
                if !preds[d].contains(&i) {
                    preds[d].push(i);
                }
            }
        }
    }

    // Dead ends: returns reached from one two-way node, whose other way
    // is not itself a return.
    let terminal =
        |i: usize| matches!(nodes[i], Node::Block(b) if is_return(func, b)) && edges[i].len() == 1;
    let mut dead_end = vec![false; n];
    for i in 0..n {
        if !terminal(i) || preds[i].len() != 1 {
            continue;
        }
        let x = preds[i][0];
        let others_live = edges[x]
            .iter()
            .any(|e| !matches!(e.dest, Dest::Node(d) if d == i || terminal(d)));
        if edges[x].len() > 1 && others_live {
            dead_end[i] = true;
        }
    }

    // Post-dominators on the reversed graph; the sink is node n.
    let sink = n;
    let mut rsuccs: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    let mut rpreds: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    for (i, es) in edges.iter().enumerate() {
        if dead_end[i] {
            continue;
        }
        for e in es {
            let d = match e.dest {
                Dest::Node(d) => d,
                Dest::Sink => sink,
            };
            if d < n && dead_end[d] {
                continue;
            }
            if !rsuccs[d].contains(&i) {
                rsuccs[d].push(i);
                rpreds[i].push(d);
            }
        }
    }
    let pdom = GraphDominators::compute(&rsuccs, &rpreds, sink);
    for (i, &dead) in dead_end.iter().enumerate() {
        if !dead && !pdom.reachable(i) {
            let b = match nodes[i] {
                Node::Block(b) => b,
                Node::Loop(l) => loops.get(l).header,
            };
            return Err(LevelError::NoExit(b));
        }
    }
    let ipdom: Vec<Option<Dest>> = (0..n)
        .map(|i| {
            pdom.idom(i)
                .map(|d| if d == sink { Dest::Sink } else { Dest::Node(d) })
        })
        .collect();

    // Forward dominators.
    let fsuccs: Vec<Vec<usize>> = edges
        .iter()
        .map(|es| {
            es.iter()
                .filter_map(|e| match e.dest {
                    Dest::Node(d) => Some(d),
                    Dest::Sink => None,
                })
                .collect()
        })
        .collect();
    let dom = GraphDominators::compute(&fsuccs, &preds, 0);

    // Labelled control dependence.
    let mut cd: Vec<Vec<(usize, Label)>> = vec![Vec::new(); n];
    for x in 0..n {
        if edges[x].len() < 2 {
            continue;
        }
        let stop = ipdom[x];
        for e in &edges[x] {
            let Dest::Node(mut w) = e.dest else {
                continue;
            };
            loop {
                if stop == Some(Dest::Node(w)) {
                    break;
                }
                if !cd[w].contains(&(x, e.label)) {
                    cd[w].push((x, e.label));
                }
                match ipdom[w] {
                    Some(Dest::Node(p)) => w = p,
                    _ => break,
                }
            }
        }
    }

    Ok(Level {
        loop_id: level,
        nodes,
        edges,
        preds,
        dead_end,
        ipdom,
        dom,
        cd,
        index: node_index,
    })
}
