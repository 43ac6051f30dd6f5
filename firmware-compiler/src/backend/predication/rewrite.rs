//! Applying a [`Plan`] to the machine IR (Lee §III-A, §III-C).
//!
//! The machine blocks are the IR blocks in the plan's order. For every
//! guarded node the guard predicate is built from its labelled control
//! dependences:
//!
//! * none: the level's mask (all active lanes, or the loop mask `L`);
//! * one, `(X, l)`: `G(X) ∧ cond_l(X)`, set at the end of `X` with the test
//!   the branch used; when `X` is unguarded the condition itself is the
//!   guard (`@p` / `@!p`, no instruction); for a collapsed loop it is the
//!   loop's exit mask `E` for that target;
//! * several: a predicate cleared where all its sources are dominated and
//!   or-ed at each source (`@G(X) p = por p, cond`).
//!
//! A predicated loop gets its loop mask `L = G(preheader)` and exit masks
//! `E = false` in the preheader; each exit `@G(x) L = pand L, !cond`,
//! `@G(x) E = por E, cond` and a consensual `bra.none L` to the loop's
//! continuation; the body ends with `bra.any L, header`. A loop with
//! `continue`s also keeps Lee's continue mask `C` (set to `L` at the
//! header, cleared at every exit and continue, `bra.none C, header` after
//! each continue).
//!
//! Instructions of a guarded block take its guard, except pure ones whose
//! results no other lane can read (single definitions not live out of a
//! predicated loop): those run unguarded, at no cost since a predicated
//! instruction issues anyway. Guarded single definitions are marked
//! exclusive so liveness does not extend them to the function entry.
//! Branches of if-converted edges disappear; uniform and kept branches stay.
//!
//! Runtime branch uniformity (§III-C): an arm of an if-converted two-way
//! branch that is a single-entry region of more than three instructions or
//! more than two blocks starts with `bra.none G(arm), <after the arm>`.

use std::collections::HashMap;

use concord_isa::instr::{Consensus, PredOp};

use super::level::{Dest, Label, Node};
use super::plan::{level_index, node_blocks, Plan, Region};
use super::BranchCounts;
use crate::backend::mir::{MBlock, MFunction, MInst, MOp, RegClass, VGuard, VPredSrc, VReg};
use crate::ir::{Block, Function, InstData};
use crate::loop_analysis::{LoopAnalysis, LoopId};

/// What the RBU threshold compares (Lee: more than three instructions or
/// more than two blocks).
const RBU_MIN_INSTS: usize = 4;
const RBU_MIN_BLOCKS: usize = 3;

fn src(g: VGuard) -> VPredSrc {
    VPredSrc {
        pred: Some(g.pred),
        negate: g.negate,
    }
}

fn not(s: VPredSrc) -> VPredSrc {
    VPredSrc {
        pred: s.pred,
        negate: !s.negate,
    }
}

fn plogic(op: PredOp, pd: VReg, a: VPredSrc, b: VPredSrc) -> MInst {
    MInst::new(MOp::PLogic { op, pd, a, b })
}

/// `@g m = m op b`: a mask updated for the lanes of `g`.
fn update(g: VGuard, op: PredOp, m: VReg, b: VPredSrc) -> MInst {
    MInst::guarded(
        g,
        MOp::PLogic {
            op,
            pd: m,
            a: VPredSrc::reg(m),
            b,
        },
    )
}

fn with_guard(g: Option<VGuard>, op: MOp) -> MInst {
    match g {
        Some(g) => MInst::guarded(g, op),
        None => MInst::new(op),
    }
}

/// A level and a sorted control-dependence set.
type CdKey = (usize, Vec<(usize, Label)>);

/// Instructions added around a block's own.
#[derive(Default)]
struct Extra {
    /// At the start: the runtime uniformity skip.
    rbu: Vec<MInst>,
    /// At the start, after the skip: mask and predicate initialisations.
    start: Vec<MInst>,
    /// At the end: guard predicates of the nodes this block controls.
    preds: Vec<MInst>,
    /// At the end: loop, exit and continue masks and their checks.
    masks: Vec<MInst>,
    /// At the very end: back edges and jumps to continuations.
    control: Vec<MInst>,
}

struct Rewriter<'a> {
    func: &'a Function,
    loops: &'a LoopAnalysis,
    plan: &'a Plan,
    mf: &'a mut MFunction,
    pos: Vec<Option<usize>>,
    extra: Vec<Extra>,
    guards: Vec<Vec<Option<VGuard>>>,
    lmask: HashMap<LoopId, VReg>,
    cmask: HashMap<LoopId, VReg>,
    emask: HashMap<(LoopId, Block), VReg>,
    /// Guards by level and control-dependence set (blocks with the same
    /// set share a predicate).
    memo: HashMap<CdKey, Option<VGuard>>,
    counts: BranchCounts,
}

/// Rewrites `mf` (selected from `func` laid out as `plan.layout`).
pub fn apply(
    func: &Function,
    loops: &LoopAnalysis,
    plan: &Plan,
    mf: &mut MFunction,
) -> Result<BranchCounts, String> {
    if mf.blocks.len() != func.layout.len() || func.layout != plan.layout {
        return Err("machine blocks do not follow the planned order".into());
    }
    let mut pos = vec![None; func.blocks.len()];
    for (i, &b) in func.layout.iter().enumerate() {
        pos[b.index()] = Some(i);
    }
    let n = mf.blocks.len();
    let mut rw = Rewriter {
        func,
        loops,
        plan,
        mf,
        pos,
        extra: (0..n).map(|_| Extra::default()).collect(),
        guards: plan
            .levels
            .iter()
            .map(|l| vec![None; l.nodes.len()])
            .collect(),
        lmask: HashMap::new(),
        cmask: HashMap::new(),
        emask: HashMap::new(),
        memo: HashMap::new(),
        counts: BranchCounts::default(),
    };
    rw.run()?;
    Ok(rw.counts)
}

impl Rewriter<'_> {
    fn mpos(&self, b: Block) -> Result<usize, String> {
        self.pos
            .get(b.index())
            .copied()
            .flatten()
            .ok_or_else(|| format!("{b} is not laid out"))
    }

    fn new_pred(&mut self) -> VReg {
        self.mf.new_vreg(RegClass::Pred)
    }

    fn first_block(&self, n: Node) -> Block {
        match n {
            Node::Block(b) => b,
            Node::Loop(l) => self.loops.get(l).header,
        }
    }

    fn last_block(&self, n: Node) -> Block {
        match n {
            Node::Block(b) => b,
            Node::Loop(l) => *node_blocks(self.func, self.loops, Node::Loop(l))
                .last()
                .unwrap_or(&self.loops.get(l).header),
        }
    }

    fn level_pred(&self, li: usize) -> Option<LoopId> {
        self.plan.levels[li]
            .loop_id
            .filter(|l| self.plan.pred_loop[l.index()])
    }

    fn cond_of(&self, b: Block) -> Option<VReg> {
        let t = self.func.terminator(b)?;
        match self.func.inst(t) {
            InstData::Brif { cond, .. } => Some(VReg(cond.0)),
            _ => None,
        }
    }

    /// The lanes of `X` that take edge `label`, as a predicate source
    /// (before and-ing with `G(X)`).
    fn edge_src(&self, x: Node, label: Label) -> Result<VPredSrc, String> {
        match (x, label) {
            (Node::Block(b), Label::Then) => Ok(VPredSrc::reg(
                self.cond_of(b)
                    .ok_or_else(|| format!("{b} has no condition"))?,
            )),
            (Node::Block(b), Label::Else) => Ok(VPredSrc::not(
                self.cond_of(b)
                    .ok_or_else(|| format!("{b} has no condition"))?,
            )),
            (Node::Loop(l), Label::Exit(t)) => self
                .emask
                .get(&(l, t))
                .map(|&e| VPredSrc::reg(e))
                .ok_or_else(|| format!("no exit mask for {l} to {t}")),
            _ => Ok(VPredSrc::TRUE),
        }
    }

    fn run(&mut self) -> Result<(), String> {
        let plan = self.plan;
        // Masks of predicated loops.
        for (i, l) in self.loops.loops().iter().enumerate() {
            let id = LoopId(i as u32);
            if !plan.pred_loop[i] {
                continue;
            }
            let lm = self.new_pred();
            self.lmask.insert(id, lm);
            let last = self.last_block(Node::Loop(id));
            let continues = l
                .blocks
                .iter()
                .any(|&b| b != last && self.func.successors(b).contains(&l.header));
            if continues {
                let cm = self.new_pred();
                self.cmask.insert(id, cm);
            }
        }
        for lvl in &plan.levels {
            for cds in &lvl.cd {
                for &(x, label) in cds {
                    if let (Node::Loop(l), Label::Exit(t)) = (lvl.nodes[x], label) {
                        if plan.pred_loop[l.index()] && !self.emask.contains_key(&(l, t)) {
                            let e = self.new_pred();
                            self.emask.insert((l, t), e);
                        }
                    }
                }
            }
        }

        // Guards, outer levels first.
        let mut level_order: Vec<usize> = (0..plan.levels.len()).collect();
        level_order.sort_by_key(|&li| {
            plan.levels[li]
                .loop_id
                .map_or(0, |l| self.loops.get(l).depth)
        });
        for &li in &level_order {
            self.level_guards(li)?;
        }
        for &li in &level_order {
            self.loop_inits(li)?;
        }
        self.guard_blocks()?;
        self.exits_and_continues()?;
        self.loop_ends()?;
        self.region_ends()?;
        self.runtime_checks()?;
        self.count_branches();

        // Assemble.
        for (i, extra) in std::mem::take(&mut self.extra).into_iter().enumerate() {
            let mut body = std::mem::take(&mut self.mf.blocks[i].insts);
            // A device function's entry stays its first instruction.
            let entry: Vec<MInst> = match body.first() {
                Some(MInst {
                    op: MOp::Entry { .. },
                    ..
                }) => vec![body.remove(0)],
                _ => Vec::new(),
            };
            let mut insts = entry;
            insts.extend(extra.rbu);
            insts.extend(extra.start);
            insts.extend(body);
            insts.extend(extra.preds);
            insts.extend(extra.masks);
            insts.extend(extra.control);
            self.mf.blocks[i].insts = insts;
        }
        Ok(())
    }

    fn level_guards(&mut self, li: usize) -> Result<(), String> {
        let plan = self.plan;
        let lvl = &plan.levels[li];
        let level_mask = self.level_pred(li).map(|l| VGuard {
            pred: self.lmask[&l],
            negate: false,
        });
        for &n in &plan.order[li] {
            if !plan.guarded[li][n] {
                continue;
            }
            let mut cd = lvl.cd[n].clone();
            cd.sort_by_key(|&(x, l)| (x, format!("{l:?}")));
            let key = (li, cd.clone());
            if let Some(g) = self.memo.get(&key) {
                self.guards[li][n] = *g;
                continue;
            }
            let g = match cd.len() {
                0 => level_mask,
                1 => {
                    let (x, label) = cd[0];
                    let s = self.edge_src(lvl.nodes[x], label)?;
                    match (lvl.nodes[x], self.guards[li][x]) {
                        (Node::Loop(_), _) => s.pred.map(|p| VGuard {
                            pred: p,
                            negate: s.negate,
                        }),
                        (Node::Block(_), None) => s.pred.map(|p| VGuard {
                            pred: p,
                            negate: s.negate,
                        }),
                        (Node::Block(xb), Some(gx)) => {
                            let p = self.new_pred();
                            let at = self.mpos(xb)?;
                            self.extra[at]
                                .preds
                                .push(plogic(PredOp::And, p, src(gx), s));
                            Some(VGuard {
                                pred: p,
                                negate: false,
                            })
                        }
                    }
                }
                _ => {
                    let p = self.new_pred();
                    // Cleared where every source is dominated.
                    let mut ncd = cd[0].0;
                    for &(x, _) in &cd[1..] {
                        while !lvl.dom.dominates(ncd, x) {
                            ncd = lvl.dom.idom(ncd).ok_or("no common dominator")?;
                        }
                    }
                    let clear = plogic(PredOp::And, p, VPredSrc::TRUE, VPredSrc::FALSE);
                    match lvl.nodes[ncd] {
                        Node::Block(b) => {
                            let at = self.mpos(b)?;
                            self.extra[at].start.push(clear);
                        }
                        Node::Loop(_) => {
                            let d = lvl.dom.idom(ncd).ok_or("a loop without a preheader")?;
                            let b = self.first_block(lvl.nodes[d]);
                            let at = self.mpos(b)?;
                            self.extra[at].preds.push(clear);
                        }
                    }
                    for &(x, label) in &cd {
                        let s = self.edge_src(lvl.nodes[x], label)?;
                        match lvl.nodes[x] {
                            Node::Block(xb) => {
                                let at = self.mpos(xb)?;
                                let gx = self.guards[li][x];
                                self.extra[at].preds.push(with_guard(
                                    gx,
                                    MOp::PLogic {
                                        op: PredOp::Or,
                                        pd: p,
                                        a: VPredSrc::reg(p),
                                        b: s,
                                    },
                                ));
                            }
                            Node::Loop(_) => {
                                let at = self.mpos(self.first_block(lvl.nodes[n]))?;
                                self.extra[at].start.push(plogic(
                                    PredOp::Or,
                                    p,
                                    VPredSrc::reg(p),
                                    s,
                                ));
                            }
                        }
                    }
                    Some(VGuard {
                        pred: p,
                        negate: false,
                    })
                }
            };
            self.memo.insert(key, g);
            self.guards[li][n] = g;
        }
        Ok(())
    }

    /// Loop and exit masks set in the preheaders of predicated loops.
    fn loop_inits(&mut self, li: usize) -> Result<(), String> {
        let plan = self.plan;
        let lvl = &plan.levels[li];
        for n in 0..lvl.nodes.len() {
            let Node::Loop(c) = lvl.nodes[n] else {
                continue;
            };
            if !plan.pred_loop[c.index()] {
                continue;
            }
            let [pre] = lvl.preds[n][..] else {
                return Err(format!("{c} has no dedicated preheader"));
            };
            let Node::Block(pb) = lvl.nodes[pre] else {
                return Err(format!("{c} is entered from a loop"));
            };
            let at = self.mpos(pb)?;
            let l = self.lmask[&c];
            let init = match self.guards[li][pre] {
                None => plogic(PredOp::Or, l, VPredSrc::TRUE, VPredSrc::TRUE),
                Some(g) => plogic(PredOp::And, l, src(g), VPredSrc::TRUE),
            };
            self.extra[at].masks.push(init);
            let mut exits: Vec<VReg> = self
                .emask
                .iter()
                .filter(|((lid, _), _)| *lid == c)
                .map(|(_, &e)| e)
                .collect();
            exits.sort();
            for e in exits {
                self.extra[at]
                    .masks
                    .push(plogic(PredOp::And, e, VPredSrc::TRUE, VPredSrc::FALSE));
            }
            if let Some(&cm) = self.cmask.get(&c) {
                let h = self.mpos(self.loops.get(c).header)?;
                self.extra[h]
                    .start
                    .insert(0, plogic(PredOp::And, cm, VPredSrc::reg(l), VPredSrc::TRUE));
            }
        }
        Ok(())
    }

    /// The guard of IR block `b` and whether its edges are if-converted.
    fn block_state(&self, b: Block) -> (Option<VGuard>, bool) {
        let li = level_index(self.loops.innermost(b));
        let lvl = &self.plan.levels[li];
        let Some(n) = lvl.node_of(Node::Block(b)) else {
            return (None, false);
        };
        let guarded = self.plan.guarded[li][n];
        let stripped = guarded || (lvl.is_branch(n) && self.plan.pred_branch[b.index()]);
        (self.guards[li][n], stripped)
    }

    fn guard_blocks(&mut self) -> Result<(), String> {
        let exclusive = self.exclusive_vregs();
        for (i, &b) in self.func.layout.iter().enumerate() {
            let (g, stripped) = self.block_state(b);
            let insts = std::mem::take(&mut self.mf.blocks[i].insts);
            let mut out = Vec::with_capacity(insts.len());
            for mut inst in insts {
                if stripped && matches!(inst.op, MOp::Bra { .. } | MOp::Jump { .. }) {
                    continue;
                }
                let Some(g) = g else {
                    out.push(inst);
                    continue;
                };
                let defs = inst.defs();
                let all_exclusive = !defs.is_empty()
                    && defs
                        .iter()
                        .all(|d| exclusive.get(d.index()).copied().unwrap_or(false));
                match inst.guard {
                    None => {
                        if all_exclusive && speculable(&inst) {
                            out.push(inst);
                            continue;
                        }
                        inst.guard = Some(g);
                    }
                    Some(q) => {
                        let t = self.new_pred();
                        out.push(plogic(PredOp::And, t, src(g), src(q)));
                        inst.guard = Some(VGuard {
                            pred: t,
                            negate: false,
                        });
                    }
                }
                inst.exclusive_def = all_exclusive;
                inst.claims_def = true;
                out.push(inst);
            }
            self.mf.blocks[i].insts = out;
        }
        Ok(())
    }

    /// Registers whose guarded definition may overwrite the other lanes:
    /// a single definition, never read outside a predicated loop it is
    /// defined in.
    fn exclusive_vregs(&self) -> Vec<bool> {
        let nv = self.mf.num_vregs();
        let mut defs = vec![0u32; nv];
        let mut def_block = vec![None; nv];
        let mut use_blocks: Vec<Vec<usize>> = vec![Vec::new(); nv];
        for (i, block) in self.mf.blocks.iter().enumerate() {
            for inst in &block.insts {
                for d in inst.defs() {
                    defs[d.index()] += 1;
                    def_block[d.index()] = Some(i);
                }
                let mut uses = inst.op_uses();
                uses.extend(inst.guard.map(|g| g.pred));
                for u in uses {
                    if !use_blocks[u.index()].contains(&i) {
                        use_blocks[u.index()].push(i);
                    }
                }
            }
        }
        (0..nv)
            .map(|v| {
                if defs[v] != 1 {
                    return false;
                }
                let Some(db) = def_block[v] else {
                    return false;
                };
                let d = self.func.layout[db];
                let mut cur = self.loops.innermost(d);
                while let Some(l) = cur {
                    if self.plan.pred_loop[l.index()] {
                        let info = self.loops.get(l);
                        if use_blocks[v]
                            .iter()
                            .any(|&u| !info.contains(self.func.layout[u]))
                        {
                            return false;
                        }
                    }
                    cur = self.loops.get(l).parent;
                }
                true
            })
            .collect()
    }

    /// Where lanes go when predicated loop `c` is done.
    fn continuation(&self, c: LoopId) -> Result<Block, String> {
        let parent = self.loops.get(c).parent;
        let li = level_index(parent);
        let lvl = &self.plan.levels[li];
        let n = lvl
            .node_of(Node::Loop(c))
            .ok_or_else(|| format!("{c} is not in its level"))?;
        let order = &self.plan.order[li];
        let at = order.iter().position(|&v| v == n).unwrap_or(0);
        if let Some(p) = parent.filter(|p| self.plan.pred_loop[p.index()]) {
            if at + 1 == order.len() {
                return Ok(self.loops.get(p).header);
            }
            return Ok(self.first_block(lvl.nodes[order[at + 1]]));
        }
        // Inside a region the other lanes wait in the blocks that follow,
        // or, after the region's last node, where the region goes on.
        if self.plan.guarded[li][n] {
            let innermost = self
                .plan
                .regions
                .iter()
                .filter(|r| r.level == li && r.nodes.contains(&n))
                .min_by_key(|r| r.nodes.len());
            if let Some(r) = innermost {
                if last_member(order, r) == Some(n) {
                    if let Some(cont) = self.region_continuation(r) {
                        return Ok(cont);
                    }
                }
            }
            let last = self.mpos(self.last_block(Node::Loop(c)))?;
            return self
                .func
                .layout
                .get(last + 1)
                .copied()
                .ok_or_else(|| format!("nothing follows {c}"));
        }
        let dests = lvl.dests(n);
        match dests[..] {
            [Dest::Node(d)] => Ok(self.first_block(lvl.nodes[d])),
            [Dest::Sink] => match parent {
                Some(p) => Ok(self.loops.get(p).header),
                None => Err(format!("{c} leaves the function")),
            },
            _ => order
                .get(at + 1)
                .map(|&v| self.first_block(lvl.nodes[v]))
                .ok_or_else(|| format!("nothing follows {c}")),
        }
    }

    fn exits_and_continues(&mut self) -> Result<(), String> {
        let loops = self.loops;
        for &x in &self.func.layout.clone() {
            let inner = loops.innermost(x);
            let Some(inner) = inner.filter(|l| self.plan.pred_loop[l.index()]) else {
                continue;
            };
            let (gx, _) = self.block_state(x);
            let Some(gx) = gx else {
                return Err(format!("{x} in a predicated loop has no guard"));
            };
            let at = self.mpos(x)?;
            let lvl = &self.plan.levels[level_index(Some(inner))];
            let n = lvl
                .node_of(Node::Block(x))
                .ok_or_else(|| format!("{x} is not in its level"))?;
            let edges = lvl.edges[n].clone();
            let last_of_inner = self.last_block(Node::Loop(inner)) == x;
            let mut check: Option<(VReg, Block)> = None;
            // The updates are guarded by G(x), which may be a loop mask
            // they change: every other update first, then the loop masks,
            // outermost first, so no update sees a changed guard.
            let mut others: Vec<MInst> = Vec::new();
            let mut l_updates: Vec<(u32, MInst)> = Vec::new();
            let mut checks: Vec<MInst> = Vec::new();
            for e in edges {
                let Some(t) = e.target else {
                    continue; // return: the lanes leave
                };
                if e.dest != Dest::Sink {
                    continue;
                }
                let s = self.edge_src(Node::Block(x), e.label)?;
                // Loops left, innermost first.
                let mut left = Vec::new();
                let mut cur = Some(inner);
                while let Some(l) = cur {
                    let info = loops.get(l);
                    if info.contains(t) && info.header != t {
                        break;
                    }
                    if info.header == t {
                        // A back edge of `l`: a continue.
                        if l == inner {
                            if !last_of_inner {
                                if let Some(&cm) = self.cmask.get(&l) {
                                    others.push(update(gx, PredOp::And, cm, not(s)));
                                    check = Some((cm, t));
                                }
                            }
                        } else if let Some(&cm) = self.cmask.get(&l) {
                            others.push(update(gx, PredOp::And, cm, not(s)));
                        }
                        break;
                    }
                    left.push(l);
                    cur = info.parent;
                }
                for &l in &left {
                    let lm = *self
                        .lmask
                        .get(&l)
                        .ok_or("a loop left from a predicated one is not predicated")?;
                    l_updates.push((loops.get(l).depth, update(gx, PredOp::And, lm, not(s))));
                    if let Some(&cm) = self.cmask.get(&l) {
                        others.push(update(gx, PredOp::And, cm, not(s)));
                    }
                }
                if let Some(&outer) = left.last() {
                    if let Some(&em) = self.emask.get(&(outer, t)) {
                        others.push(update(gx, PredOp::Or, em, s));
                    }
                    // A continue of the loop around the outermost one left.
                    if let Some(p) = loops.get(outer).parent {
                        if loops.get(p).header == t && !left.contains(&p) {
                            if let Some(&cm) = self.cmask.get(&p) {
                                others.push(update(gx, PredOp::And, cm, not(s)));
                            }
                        }
                    }
                }
                if let Some(&first) = left.first() {
                    if !(first == inner && last_of_inner) {
                        let lm = self.lmask[&first];
                        let cont = self.continuation(first)?;
                        let target = MBlock(self.mpos(cont)? as u32);
                        checks.push(MInst::new(MOp::BraCons {
                            kind: Consensus::None,
                            p: VPredSrc::reg(lm),
                            target,
                        }));
                        self.counts.loop_consensual += 1;
                    }
                }
            }
            if let Some((cm, header)) = check {
                let target = MBlock(self.mpos(header)? as u32);
                checks.push(MInst::new(MOp::BraCons {
                    kind: Consensus::None,
                    p: VPredSrc::reg(cm),
                    target,
                }));
                self.counts.loop_consensual += 1;
            }
            l_updates.sort_by_key(|&(depth, _)| depth);
            let masks = &mut self.extra[at].masks;
            masks.extend(others);
            masks.extend(l_updates.into_iter().map(|(_, i)| i));
            masks.extend(checks);
        }
        Ok(())
    }

    /// `bra.any L, header` at the end of each predicated loop, then a jump
    /// to the continuation when it does not follow.
    fn loop_ends(&mut self) -> Result<(), String> {
        let mut ids: Vec<LoopId> = self.lmask.keys().copied().collect();
        // Inner loops first: their back edge comes before an enclosing
        // loop's in a shared last block.
        ids.sort_by_key(|l| std::cmp::Reverse(self.loops.get(*l).depth));
        for c in ids {
            let last = self.last_block(Node::Loop(c));
            let at = self.mpos(last)?;
            let header = MBlock(self.mpos(self.loops.get(c).header)? as u32);
            self.extra[at].control.push(MInst::new(MOp::BraCons {
                kind: Consensus::Any,
                p: VPredSrc::reg(self.lmask[&c]),
                target: header,
            }));
            self.counts.loop_consensual += 1;
            let cont = self.continuation(c)?;
            if self.func.layout.get(at + 1) != Some(&cont) {
                let target = MBlock(self.mpos(cont)? as u32);
                self.extra[at]
                    .control
                    .push(MInst::new(MOp::Jump { target }));
            }
        }
        Ok(())
    }

    /// Where the lanes of region `r` go on after it: its join, or the
    /// level loop's header when they leave by the back edge.
    fn region_continuation(&self, r: &Region) -> Option<Block> {
        let lvl = &self.plan.levels[r.level];
        match (r.join, r.back_edge) {
            (Some(j), _) => Some(self.first_block(lvl.nodes[j])),
            (None, true) => lvl.loop_id.map(|l| self.loops.get(l).header),
            (None, false) => None,
        }
    }

    /// A region whose continuation does not follow it ends with a jump.
    fn region_ends(&mut self) -> Result<(), String> {
        let plan = self.plan;
        for r in &plan.regions {
            let lvl = &plan.levels[r.level];
            let Some(last_node) = last_member(&plan.order[r.level], r) else {
                continue;
            };
            let Some(cont) = self.region_continuation(r) else {
                continue;
            };
            let last = self.last_block(lvl.nodes[last_node]);
            let at = self.mpos(last)?;
            let target = MBlock(self.mpos(cont)? as u32);
            let already = self.extra[at]
                .control
                .last()
                .is_some_and(|i| i.op == MOp::Jump { target });
            if self.func.layout.get(at + 1) != Some(&cont) && !already {
                self.extra[at]
                    .control
                    .push(MInst::new(MOp::Jump { target }));
            }
        }
        Ok(())
    }

    fn runtime_checks(&mut self) -> Result<(), String> {
        let plan = self.plan;
        for (li, lvl) in plan.levels.iter().enumerate() {
            let order = &plan.order[li];
            for x in 0..lvl.nodes.len() {
                let Node::Block(xb) = lvl.nodes[x] else {
                    continue;
                };
                if !(lvl.is_branch(x) && plan.pred_branch[xb.index()]) {
                    continue;
                }
                for e in &lvl.edges[x] {
                    let Dest::Node(s) = e.dest else {
                        continue;
                    };
                    if lvl.preds[s] != [x] || lvl.ipdom[x] == Some(Dest::Node(s)) {
                        continue;
                    }
                    let Some(g) = self.guards[li][s] else {
                        continue;
                    };
                    let arm: Vec<usize> = (0..lvl.nodes.len())
                        .filter(|&v| lvl.dom.dominates(s, v))
                        .collect();
                    let Some(start) = order.iter().position(|&v| v == s) else {
                        continue;
                    };
                    let contiguous = arm.len() <= order.len() - start
                        && order[start..start + arm.len()]
                            .iter()
                            .all(|v| arm.contains(v));
                    if !contiguous {
                        continue;
                    }
                    let blocks: Vec<Block> = arm
                        .iter()
                        .flat_map(|&v| node_blocks(self.func, self.loops, lvl.nodes[v]))
                        .collect();
                    let insts: usize = blocks
                        .iter()
                        .map(|&b| self.mpos(b).map_or(0, |i| self.mf.blocks[i].insts.len()))
                        .sum();
                    if blocks.len() < RBU_MIN_BLOCKS && insts < RBU_MIN_INSTS {
                        continue;
                    }
                    let last = self.last_block(lvl.nodes[order[start + arm.len() - 1]]);
                    // An arm that ends a predicated loop's body would skip its
                    // back edge; the continue mask's check covers it.
                    let ends_loop = self.lmask.keys().any(|&l| {
                        self.loops.get(l).contains(last) && self.last_block(Node::Loop(l)) == last
                    });
                    if ends_loop {
                        continue;
                    }
                    let at_last = self.mpos(last)?;
                    // Skipping the arm must land where its lanes would
                    // have gone: its closing jump, if it has one.
                    let target = match self.extra[at_last].control.last() {
                        Some(MInst {
                            op: MOp::Jump { target },
                            ..
                        }) => *target,
                        _ => {
                            if at_last + 1 >= self.func.layout.len() {
                                continue;
                            }
                            MBlock(at_last as u32 + 1)
                        }
                    };
                    let first = self.mpos(self.first_block(lvl.nodes[s]))?;
                    self.extra[first].rbu.push(MInst::new(MOp::BraCons {
                        kind: Consensus::None,
                        p: src(g),
                        target,
                    }));
                    self.counts.runtime_checked += 1;
                }
            }
        }
        Ok(())
    }

    fn count_branches(&mut self) {
        for lvl in &self.plan.levels {
            for n in 0..lvl.nodes.len() {
                let Node::Block(b) = lvl.nodes[n] else {
                    continue;
                };
                if !(lvl.edges[n].len() == 2
                    && lvl.edges[n]
                        .iter()
                        .all(|e| matches!(e.label, Label::Then | Label::Else)))
                {
                    continue;
                }
                if self.plan.pred_branch[b.index()] {
                    self.counts.predicated += 1;
                } else if self.plan.divergent[b.index()] {
                    self.counts.divergent_kept += 1;
                } else {
                    self.counts.uniform += 1;
                }
            }
        }
    }
}

/// Operations that may run for lanes whose guard is false when nothing
/// else reads their results: no memory access, no trap, no side effect.
fn speculable(inst: &MInst) -> bool {
    inst.is_pure() || matches!(inst.op, MOp::ParallelCopy { .. })
}

/// The counts for a function left entirely to per-lane branches.
pub fn count_unconverted(func: &Function, divergent: impl Fn(Block) -> bool) -> BranchCounts {
    let mut counts = BranchCounts::default();
    for &b in &func.layout {
        let Some(t) = func.terminator(b) else {
            continue;
        };
        if let InstData::Brif {
            then_dest,
            else_dest,
            ..
        } = func.inst(t)
        {
            if then_dest.block == else_dest.block {
                continue;
            }
            if divergent(b) {
                counts.divergent_kept += 1;
            } else {
                counts.uniform += 1;
            }
        }
    }
    counts
}

/// The member of region `r` (head included) that comes last in `order`.
fn last_member(order: &[usize], r: &Region) -> Option<usize> {
    order
        .iter()
        .rev()
        .find(|&&v| v == r.head || r.nodes.contains(&v))
        .copied()
}
