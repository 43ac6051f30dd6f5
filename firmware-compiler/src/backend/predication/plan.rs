//! Which branches are if-converted, which blocks are guarded, and the
//! linear block order (Lee §III-B and §III-D).
//!
//! **Convergence.** A node of a level graph is *convergent* when every
//! branch it is control dependent on is kept as a branch and sits in a
//! convergent node: then all lanes that run it enter together, and it needs
//! no guard. A node controlled by an if-converted branch is guarded. Kept
//! branches are the uniform ones (static branch uniformity, SBU) and, under
//! `--divergence=auto`, divergent ones the heuristic leaves to the min-PC
//! arbiter. Lee's rule "if a block is controlled by a variant predicate,
//! mark all predicates controlling it variant" is applied as a fixpoint, so
//! a guarded block never has a kept edge coming in. A loop is *predicated*
//! (loop mask, exit masks, consensual branches) when it is entered from a
//! guarded node or left from one; everything inside a predicated loop is
//! guarded.
//!
//! **Regions.** On a level that is not a predicated loop, the guarded nodes
//! form regions, each entered from one convergent *head* (whose branch is
//! if-converted) and left to at most one convergent *join* (or, inside a
//! loop, the loop's back edge). A region that does not have this shape
//! (several heads or joins) is not if-converted: its branches are kept and
//! the plan is made again.
//!
//! **Linearization.** Per level, a topological order in which each region
//! follows its head without interruption, loops expand in place (header
//! first), and a region's join comes next when it can; a region whose join
//! cannot follow ends with a jump to it. The order is a valid min-PC layout
//! (the layout verifier checks it).

use super::level::{build_levels, Dest, Label, Level, LevelError, Node};
use super::DivergenceStrategy;
use crate::divergence::{BranchClass, DivergenceAnalysis};
use crate::ir::{Block, Function, InstData};
use crate::loop_analysis::{LoopAnalysis, LoopId};

/// `--divergence=auto` if-converts a region only up to this many IR
/// instructions (see the cost rule in [`make_plan`]).
pub const AUTO_MAX_INSTS: usize = 8;

/// The level graph index of a loop (`None` = top level).
pub fn level_index(l: Option<LoopId>) -> usize {
    l.map_or(0, |l| l.index() + 1)
}

/// A guarded region of a level that is not a predicated loop.
#[derive(Clone, Debug)]
pub struct Region {
    pub level: usize,
    pub head: usize,
    pub nodes: Vec<usize>,
    /// The convergent node the region's lanes go on to.
    pub join: Option<usize>,
    /// Some lanes leave the region by the level loop's back edge.
    pub back_edge: bool,
}

/// The if-conversion decisions for one function.
#[derive(Clone, Debug)]
pub struct Plan {
    pub levels: Vec<Level>,
    /// Per IR block: its two-way branch is if-converted.
    pub pred_branch: Vec<bool>,
    /// Per loop: it runs under a loop mask.
    pub pred_loop: Vec<bool>,
    /// Per level, per node: guarded.
    pub guarded: Vec<Vec<bool>>,
    pub regions: Vec<Region>,
    /// Per level: node order.
    pub order: Vec<Vec<usize>>,
    /// The new block order.
    pub layout: Vec<Block>,
    /// Per IR block: its branch is divergent (for the statistics).
    pub divergent: Vec<bool>,
    /// Why some branches were kept against the strategy.
    pub notes: Vec<String>,
}

struct Decisions {
    pred_branch: Vec<bool>,
    pred_loop: Vec<bool>,
    guarded: Vec<Vec<bool>>,
}

fn two_way(level: &Level, n: usize) -> bool {
    level.edges[n].len() == 2
        && level.edges[n]
            .iter()
            .all(|e| matches!(e.label, Label::Then | Label::Else))
}

/// The blocks of a node (a loop's blocks in layout order).
pub fn node_blocks(func: &Function, loops: &LoopAnalysis, n: Node) -> Vec<Block> {
    match n {
        Node::Block(b) => vec![b],
        Node::Loop(l) => {
            let info = loops.get(l);
            func.layout
                .iter()
                .copied()
                .filter(|b| info.contains(*b))
                .collect()
        }
    }
}

/// Makes the plan for `func` (a reducible function whose loops have
/// dedicated preheaders), or explains why every branch stays a branch.
pub fn make_plan(
    func: &Function,
    loops: &LoopAnalysis,
    divergence: &DivergenceAnalysis,
    strategy: DivergenceStrategy,
) -> Result<Plan, String> {
    let levels = match build_levels(func, loops) {
        Ok(l) => l,
        Err(LevelError::Irreducible) => {
            return Err("irreducible control flow: divergent branches stay per-lane branches".into())
        }
        Err(LevelError::NoExit(b)) => {
            return Err(format!(
                "{b} cannot reach the end of its loop or function: divergent branches stay per-lane branches"
            ))
        }
    };
    let nblocks = func.blocks.len();
    let divergent: Vec<bool> = (0..nblocks)
        .map(|i| divergence.branch_class(Block::new(i)) == BranchClass::Divergent)
        .collect();
    let mut keep = vec![false; nblocks];
    let mut notes = Vec::new();
    if strategy == DivergenceStrategy::Auto {
        // Divergent loop exits (and continues) stay branches: the arbiter
        // reconverges them for free, a loop mask costs per iteration.
        for &b in &func.layout {
            if !divergent[b.index()] {
                continue;
            }
            let inner = loops.innermost(b);
            let leaves = func.successors(b).into_iter().any(|t| {
                inner.is_some_and(|l| {
                    !loops.get(l).contains(t)
                        || loops.get(l).header == t
                        || loops.loops().iter().any(|o| o.header == t && o.contains(b))
                })
            });
            if leaves {
                keep[b.index()] = true;
            }
        }
    }

    for _round in 0..=nblocks + 1 {
        let d = decide(&levels, loops, &divergent, &keep);
        let regions = match find_regions(&levels, &d) {
            Ok(r) => r,
            Err((level, nodes)) => {
                let mut changed = false;
                for n in nodes {
                    for b in node_blocks(func, loops, levels[level].nodes[n]) {
                        for x in region_branch_blocks(func, b) {
                            if divergent[x.index()] && !keep[x.index()] {
                                keep[x.index()] = true;
                                changed = true;
                            }
                        }
                    }
                }
                if !changed {
                    return Err("a guarded region has several entries or exits: divergent branches stay per-lane branches".into());
                }
                notes.push(format!(
                    "@{}: a guarded region has several entries or exits; its divergent branches stay per-lane branches",
                    func.name
                ));
                continue;
            }
        };
        if strategy == DivergenceStrategy::Auto {
            // The cost rule (measured with `concord study divergence`): a
            // divergent branch costs one extra control issue on Concord,
            // while if-conversion issues both arms and needs a guard
            // predicate per nested level, and those compete for the few
            // predicate registers (a demoted one costs a reload and a
            // `setp` per use). So only short, flat regions are
            // if-converted: at most `AUTO_MAX_INSTS` instructions, no
            // branch inside, no loop and no call.
            let mut changed = false;
            for r in &regions {
                let lvl = &levels[r.level];
                let insts: usize = r
                    .nodes
                    .iter()
                    .flat_map(|&n| node_blocks(func, loops, lvl.nodes[n]))
                    .map(|b| func.block(b).insts.len())
                    .sum();
                let nested = r.nodes.iter().any(|&n| lvl.is_branch(n));
                let loop_or_call =
                    std::iter::once(r.head)
                        .chain(r.nodes.iter().copied())
                        .any(|n| {
                            matches!(lvl.nodes[n], Node::Loop(_))
                                || node_blocks(func, loops, lvl.nodes[n]).iter().any(|&b| {
                                    func.block(b)
                                        .insts
                                        .iter()
                                        .any(|&i| matches!(func.inst(i), InstData::Call { .. }))
                                })
                        });
                let costly = nested || insts > AUTO_MAX_INSTS || loop_or_call;
                if costly {
                    for n in std::iter::once(r.head).chain(r.nodes.iter().copied()) {
                        for b in node_blocks(func, loops, lvl.nodes[n]) {
                            if divergent[b.index()] && !keep[b.index()] {
                                keep[b.index()] = true;
                                changed = true;
                            }
                        }
                    }
                }
            }
            if changed {
                continue;
            }
        }
        let order = match linear_orders(&levels, &regions) {
            Some(o) => o,
            None => return Err("no linear order keeps the guarded regions contiguous".into()),
        };
        let mut layout = Vec::with_capacity(func.layout.len());
        expand(&levels, &order, 0, &mut layout);
        return Ok(Plan {
            levels,
            pred_branch: d.pred_branch,
            pred_loop: d.pred_loop,
            guarded: d.guarded,
            regions,
            order,
            layout,
            divergent,
            notes,
        });
    }
    Err("the predication plan did not settle".into())
}

/// The branch blocks a fallback keeps for a region containing `b`: `b`
/// and its predecessors.
fn region_branch_blocks(func: &Function, b: Block) -> Vec<Block> {
    let mut out = vec![b];
    let cfg_preds: Vec<Block> = func
        .layout
        .iter()
        .copied()
        .filter(|&p| func.successors(p).contains(&b))
        .collect();
    out.extend(cfg_preds);
    out
}

fn decide(levels: &[Level], loops: &LoopAnalysis, divergent: &[bool], keep: &[bool]) -> Decisions {
    let mut d = Decisions {
        pred_branch: vec![false; divergent.len()],
        pred_loop: vec![false; loops.loops().len()],
        guarded: levels.iter().map(|l| vec![false; l.nodes.len()]).collect(),
    };
    for lvl in levels {
        for n in 0..lvl.nodes.len() {
            if let Node::Block(b) = lvl.nodes[n] {
                if two_way(lvl, n) && divergent[b.index()] && !keep[b.index()] {
                    d.pred_branch[b.index()] = true;
                }
            }
        }
    }
    loop {
        let mut changed = false;
        for (li, lvl) in levels.iter().enumerate() {
            let level_pred = lvl.loop_id.is_some_and(|l| d.pred_loop[l.index()]);
            for n in 0..lvl.nodes.len() {
                let g = level_pred
                    || lvl.cd[n]
                        .iter()
                        .any(|&(x, _)| d.guarded[li][x] || branch_pred(&d, lvl, x));
                if g && !d.guarded[li][n] {
                    d.guarded[li][n] = true;
                    changed = true;
                }
            }
            for n in 0..lvl.nodes.len() {
                if !d.guarded[li][n] {
                    continue;
                }
                // A guarded node's own branch is if-converted, and so is
                // every branch controlling it (the SBU rule).
                let mut force = vec![n];
                force.extend(lvl.cd[n].iter().map(|&(x, _)| x));
                for x in force {
                    changed |= set_branch_pred(&mut d, lvl, x);
                }
            }
            if let Some(c) = lvl.loop_id {
                if !d.pred_loop[c.index()] {
                    let header = loops.get(c).header;
                    let leaves_guarded = (0..lvl.nodes.len()).any(|n| {
                        let exits = lvl.edges[n]
                            .iter()
                            .any(|e| e.dest == Dest::Sink && e.target.is_some_and(|t| t != header));
                        exits && (d.guarded[li][n] || (lvl.is_branch(n) && branch_pred(&d, lvl, n)))
                    });
                    if leaves_guarded {
                        d.pred_loop[c.index()] = true;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            return d;
        }
    }
}

fn branch_pred(d: &Decisions, lvl: &Level, x: usize) -> bool {
    match lvl.nodes[x] {
        Node::Block(b) => d.pred_branch[b.index()],
        Node::Loop(l) => d.pred_loop[l.index()],
    }
}

fn set_branch_pred(d: &mut Decisions, lvl: &Level, x: usize) -> bool {
    match lvl.nodes[x] {
        Node::Block(b) => {
            if two_way(lvl, x) && !d.pred_branch[b.index()] {
                d.pred_branch[b.index()] = true;
                return true;
            }
            false
        }
        Node::Loop(l) => {
            if !d.pred_loop[l.index()] {
                d.pred_loop[l.index()] = true;
                return true;
            }
            false
        }
    }
}

/// The regions of every level that is not a predicated loop; on failure,
/// the level and nodes of a region of the wrong shape.
fn find_regions(levels: &[Level], d: &Decisions) -> Result<Vec<Region>, (usize, Vec<usize>)> {
    let mut regions = Vec::new();
    for (li, lvl) in levels.iter().enumerate() {
        if lvl.loop_id.is_some_and(|l| d.pred_loop[l.index()]) {
            continue;
        }
        let n = lvl.nodes.len();
        let guarded = &d.guarded[li];
        // Union-find over guarded nodes joined by edges or a common head.
        let mut parent: Vec<usize> = (0..n).collect();
        fn find(p: &mut [usize], x: usize) -> usize {
            let mut r = x;
            while p[r] != r {
                r = p[r];
            }
            let mut y = x;
            while p[y] != r {
                let next = p[y];
                p[y] = r;
                y = next;
            }
            r
        }
        let mut head_of: Vec<Option<usize>> = vec![None; n];
        for v in 0..n {
            if !guarded[v] {
                continue;
            }
            for &p in &lvl.preds[v] {
                if guarded[p] {
                    let (a, b) = (find(&mut parent, p), find(&mut parent, v));
                    parent[a] = b;
                } else {
                    // p is a head: join every guarded successor of p.
                    match head_of[p] {
                        Some(other) => {
                            let (a, b) = (find(&mut parent, other), find(&mut parent, v));
                            parent[a] = b;
                        }
                        None => head_of[p] = Some(v),
                    }
                }
            }
        }
        let mut comps: Vec<(usize, Vec<usize>)> = Vec::new();
        for (v, &g) in guarded.iter().enumerate() {
            if g {
                let r = find(&mut parent, v);
                match comps.iter_mut().find(|c| c.0 == r) {
                    Some(c) => c.1.push(v),
                    None => comps.push((r, vec![v])),
                }
            }
        }
        let header_block = lvl.loop_id.map(|_| ());
        for (_, nodes) in comps {
            let mut heads = Vec::new();
            let mut joins = Vec::new();
            let mut back_edge = false;
            for &v in &nodes {
                for &p in &lvl.preds[v] {
                    if !guarded[p] && !heads.contains(&p) {
                        heads.push(p);
                    }
                }
                for e in &lvl.edges[v] {
                    match e.dest {
                        Dest::Node(w) if !guarded[w] && !joins.contains(&w) => joins.push(w),
                        Dest::Sink if e.target.is_some() && header_block.is_some() => {
                            back_edge = true
                        }
                        _ => {}
                    }
                }
            }
            if heads.len() != 1 {
                return Err((li, nodes));
            }
            let head = heads[0];
            for e in &lvl.edges[head] {
                match e.dest {
                    Dest::Node(w) if !guarded[w] && !joins.contains(&w) => joins.push(w),
                    Dest::Sink if e.target.is_some() && header_block.is_some() => back_edge = true,
                    _ => {}
                }
            }
            if joins.len() > 1 || (joins.len() == 1 && back_edge) {
                let mut all = nodes.clone();
                all.push(head);
                return Err((li, all));
            }
            regions.push(Region {
                level: li,
                head,
                nodes,
                join: joins.first().copied(),
                back_edge,
            });
        }
        // A head whose branch is if-converted but whose region is empty
        // (every way leads straight to the join) still needs its join next.
        for (v, &g) in guarded.iter().enumerate() {
            if g || !lvl.is_branch(v) || !branch_pred(d, lvl, v) {
                continue;
            }
            if regions.iter().any(|r| r.level == li && r.head == v) {
                continue;
            }
            let joins: Vec<usize> = lvl
                .dests(v)
                .into_iter()
                .filter_map(|x| match x {
                    Dest::Node(w) => Some(w),
                    Dest::Sink => None,
                })
                .collect();
            let back_edge = lvl.edges[v]
                .iter()
                .any(|e| e.dest == Dest::Sink && e.target.is_some() && lvl.loop_id.is_some());
            if joins.len() > 1 || (joins.len() == 1 && back_edge) {
                return Err((li, vec![v]));
            }
            regions.push(Region {
                level: li,
                head: v,
                nodes: Vec::new(),
                join: joins.first().copied(),
                back_edge,
            });
        }
    }
    Ok(regions)
}

/// A topological node order per level with every region right after its
/// head; `None` if the regions cannot be kept contiguous.
fn linear_orders(levels: &[Level], regions: &[Region]) -> Option<Vec<Vec<usize>>> {
    let mut orders = Vec::with_capacity(levels.len());
    for (li, lvl) in levels.iter().enumerate() {
        let n = lvl.nodes.len();
        let mut indeg: Vec<usize> = lvl.preds.iter().map(Vec::len).collect();
        let mut emitted = vec![false; n];
        let mut order = Vec::with_capacity(n);
        let mut active: Option<&Region> = None;
        let mut want_next: Option<usize> = None;
        // Dead ends still to be placed, each right after its branch or
        // after its sibling dead ends.
        let mut dead_ends: Vec<usize> = Vec::new();
        let region_of_head = |h: usize| regions.iter().find(|r| r.level == li && r.head == h);
        while order.len() < n {
            let ready = |v: usize, emitted: &[bool], indeg: &[usize]| !emitted[v] && indeg[v] == 0;
            let allowed = |v: usize| match active {
                Some(r) => r.nodes.contains(&v),
                None => true,
            };
            let forced = match dead_ends.first() {
                Some(&w) if ready(w, &emitted, &indeg) && allowed(w) => Some(dead_ends.remove(0)),
                // Anything else between the branch and a dead end would run
                // for the dead end's lanes too.
                Some(_) => return None,
                None => None,
            };
            let pick = forced
                .or_else(|| want_next.filter(|&w| ready(w, &emitted, &indeg) && allowed(w)))
                .or_else(|| {
                    // A successor of the last node keeps chains together.
                    order.last().and_then(|&last: &usize| {
                        lvl.edges[last].iter().find_map(|e| match e.dest {
                            Dest::Node(w) if ready(w, &emitted, &indeg) && allowed(w) => Some(w),
                            _ => None,
                        })
                    })
                })
                .or_else(|| (0..n).find(|&v| ready(v, &emitted, &indeg) && allowed(v)))?;
            emitted[pick] = true;
            order.push(pick);
            for dest in lvl.dests(pick) {
                if let Dest::Node(w) = dest {
                    indeg[w] -= 1;
                }
            }
            if want_next == Some(pick) {
                want_next = None;
            }
            // Dead ends come right after their branch (a loop may have
            // several): their lanes must be gone before anything that no
            // longer depends on the branch.
            for dest in lvl.dests(pick) {
                if let Dest::Node(w) = dest {
                    if lvl.dead_end[w] {
                        dead_ends.push(w);
                    }
                }
            }
            if active.is_none() {
                if let Some(r) = region_of_head(pick) {
                    if !r.nodes.is_empty() {
                        active = Some(r);
                    } else {
                        want_next = r.join;
                    }
                }
            }
            if let Some(r) = active {
                if r.nodes.iter().all(|&v| emitted[v]) {
                    active = None;
                    want_next = r.join;
                }
            }
        }
        orders.push(order);
    }
    Some(orders)
}

fn expand(levels: &[Level], order: &[Vec<usize>], li: usize, out: &mut Vec<Block>) {
    for &v in &order[li] {
        match levels[li].nodes[v] {
            Node::Block(b) => out.push(b),
            Node::Loop(l) => expand(levels, order, level_index(Some(l)), out),
        }
    }
}

/// The plan as text for the `predicate-plan` filetests: per level, each
/// node's labelled control dependences and whether it is guarded, the
/// branch decisions, the regions and the order.
pub fn describe(func: &Function, loops: &LoopAnalysis, plan: &Plan) -> String {
    use std::fmt::Write;
    let name = |lvl: &Level, n: usize| match lvl.nodes[n] {
        Node::Block(b) => b.to_string(),
        Node::Loop(l) => format!("{l}({})", loops.get(l).header),
    };
    let label = |l: Label| match l {
        Label::Then => "then".to_string(),
        Label::Else => "else".to_string(),
        Label::Always => "always".to_string(),
        Label::Exit(t) => format!("exit {t}"),
    };
    let mut out = format!("function @{}\n", func.name);
    for (li, lvl) in plan.levels.iter().enumerate() {
        let title = match lvl.loop_id {
            None => "top".to_string(),
            Some(l) => format!(
                "{l} header {}{}",
                loops.get(l).header,
                if plan.pred_loop[l.index()] {
                    " predicated"
                } else {
                    ""
                }
            ),
        };
        let _ = writeln!(out, "level {title}");
        for n in 0..lvl.nodes.len() {
            let cd: Vec<String> = lvl.cd[n]
                .iter()
                .map(|&(x, l)| format!("{}.{}", name(lvl, x), label(l)))
                .collect();
            let branch = match lvl.nodes[n] {
                Node::Block(b) if two_way(lvl, n) => {
                    if plan.pred_branch[b.index()] {
                        " branch=predicated"
                    } else if plan.divergent[b.index()] {
                        " branch=divergent-kept"
                    } else {
                        " branch=uniform"
                    }
                }
                _ => "",
            };
            let _ = writeln!(
                out,
                "  {}: {}{}{}",
                name(lvl, n),
                if plan.guarded[li][n] {
                    "guarded"
                } else {
                    "convergent"
                },
                if cd.is_empty() {
                    String::new()
                } else {
                    format!(" cd=[{}]", cd.join(", "))
                },
                branch
            );
        }
    }
    for r in &plan.regions {
        let lvl = &plan.levels[r.level];
        let nodes: Vec<String> = r.nodes.iter().map(|&n| name(lvl, n)).collect();
        let _ = writeln!(
            out,
            "region head {} nodes [{}]{}{}",
            name(lvl, r.head),
            nodes.join(", "),
            r.join
                .map(|j| format!(" join {}", name(lvl, j)))
                .unwrap_or_default(),
            if r.back_edge { " back-edge" } else { "" }
        );
    }
    let order: Vec<String> = plan.layout.iter().map(|b| b.to_string()).collect();
    let _ = writeln!(out, "order {}", order.join(" "));
    for n in &plan.notes {
        let _ = writeln!(out, "note {n}");
    }
    out
}
