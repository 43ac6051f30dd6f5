//! The register-allocation checker: re-verifies the allocated code of every
//! function before it is emitted.
//!
//! It does not trust the allocator's tables. It runs a forward data-flow
//! analysis over the *physical* code (its control flow recomputed from the
//! instructions: fall-through, branch targets, `bra.all pt`, `exit`,
//! `ret`), tracking for every register, predicate and spill slot which
//! virtual register's value it holds. Each instruction's annotation
//! ([`Effect`]) says which virtual registers it reads from where; the
//! checker requires that the location holds exactly that value on every
//! path (at joins, a location keeps a value only if all incoming paths
//! agree). Moves, swaps, reloads and stores carry values between locations
//! symbolically; a definition makes every other copy of the register stale;
//! whatever an untrusted instruction writes is forgotten before its own
//! definitions are recorded, so a write to the wrong register destroys the
//! value that lived there. Parallel copies are checked as a whole: at their
//! end each destination must hold its source. Calls clobber every register
//! and predicate.
//!
//! The annotations themselves are checked against the instructions: every
//! register an instruction reads (other than the stack pointer) must be
//! annotated with the value it should hold, annotated reads and writes
//! must be registers the instruction really reads and writes, and reloads
//! and spill stores must really be `ld`/`st` at the slot's offset from the
//! stack pointer. So a wrong register in an operand is caught even when the
//! annotation is right.
//!
//! Trusted expansions (a swap's three `xor`s, the division call sequence)
//! are described by markers; the checker takes those on faith.
//!
//! **Guards.** A guarded instruction changes nothing for the lanes whose
//! guard is false, so it reads the old contents of what it writes. Alone,
//! it must say which value it expects there (a partial definition keeps
//! it), and a location it writes keeps a value only if it held that value
//! already. The expansion of a guarded MIR instruction is a *guarded
//! sequence* ([`Effect::GuardBegin`] .. [`Effect::GuardEnd`], straight
//! line, every guarded instruction under the same guard, nothing after a
//! write to the guard's predicate or a guarded `ret`/`exit`): inside it the
//! checker follows the guard-true lanes like unguarded code and keeps, for
//! the guard-false lanes, the state at the start minus whatever unguarded
//! instructions overwrite (scratch registers; any unguarded store forgets
//! all slots). At the end a location keeps a value when both groups agree
//! on it, or when the guard-false lanes held nothing known there: a partial
//! definition thus requires the old value in place or a location with no
//! checked contents (the guard-false lanes never defined the value and never
//! read it: the first guarded write of a predicated block parameter), while
//! an [`Effect::Exclusive`] definition counts for all lanes (guard-false
//! lanes never read it). The price: a location whose paths disagree at a
//! join is taken over by a later partial definition without complaint. After a guarded `ret`/`exit` only the guard-false
//! lanes continue. A guarded call or division is a per-lane branch around
//! unguarded code: ordinary control flow, where the join does the work.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use concord_isa::instr::{
    Consensus, Guard, Instr, LoadWidth, Op, Pred, PredSrc, Reg, Space, StoreWidth,
};

use super::liveness::VRegSet;
use super::mir::VReg;
use super::pcode::{Effect, Item, Label, Loc, PFunction};

/// What each location holds. Absent = unknown.
type Held = BTreeMap<Loc, VReg>;

/// For the guard-false lanes of a guarded sequence: overwritten by an
/// unguarded instruction of the sequence (not merely unknown).
const CLOBBERED: VReg = VReg(u32::MAX);

/// Inside a guarded sequence: the lanes whose guard is false.
#[derive(Clone, PartialEq, Eq, Debug)]
struct GuardedSeq {
    guard: Guard,
    /// What the locations hold for those lanes.
    skipped: Held,
    /// Exclusive definitions declared so far.
    exclusive: Vec<(Loc, VReg)>,
    /// An unguarded store of the sequence may have overwritten any slot.
    slots_clobbered: bool,
}

/// Abstract state at an instruction.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
struct State {
    /// What each location holds for the lanes running the code (inside a
    /// guarded sequence, those whose guard holds).
    held: Held,
    guarded: Option<GuardedSeq>,
    /// Predicates every active lane holds with the same value, learned on
    /// the taken edge of a consensual branch (`bra.none p` taken: no lane
    /// has `p`). Predication skips both arms of an if-then-else with
    /// `bra.none p` and `bra.none !p`; a path taking both is impossible (a
    /// running warp has a lane), and without this the checker would
    /// demand a block parameter that only the arms define on it.
    uniform: BTreeMap<Pred, bool>,
    /// Virtual registers some instruction on the path has defined. A lane
    /// arriving along a path that never defined `v` cannot read `v` before
    /// passing one of its definitions, so that path does not constrain
    /// where `v` lives at a join (see `State::meet_live`). Only registers
    /// live at some join are asked about, so only those are tracked (see
    /// [`Tracked`]): a set over every register at every block would make
    /// the checker quadratic in the size of the function.
    defined: DefinedSet,
}

/// The virtual registers `State::defined` tracks, numbered densely: those
/// live into a block with liveness information (the only ones
/// `State::meet_live` asks about).
#[derive(Default)]
struct Tracked(HashMap<VReg, usize>);

impl Tracked {
    fn new(live_in: &HashMap<Label, VRegSet>) -> Tracked {
        let mut all: Vec<usize> = live_in.values().flat_map(VRegSet::iter).collect();
        all.sort_unstable();
        all.dedup();
        Tracked(
            all.into_iter()
                .enumerate()
                .map(|(k, v)| (VReg(v as u32), k))
                .collect(),
        )
    }
}

/// A growable set of tracked virtual registers (by their [`Tracked`]
/// number).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
struct DefinedSet(Vec<u64>);

impl DefinedSet {
    fn insert(&mut self, v: VReg, tracked: &Tracked) {
        let Some(&k) = tracked.0.get(&v) else {
            return;
        };
        let (word, bit) = (k / 64, k % 64);
        if self.0.len() <= word {
            self.0.resize(word + 1, 0);
        }
        self.0[word] |= 1 << bit;
    }

    fn contains(&self, v: VReg, tracked: &Tracked) -> bool {
        let Some(&k) = tracked.0.get(&v) else {
            return false;
        };
        let (word, bit) = (k / 64, k % 64);
        self.0.get(word).is_some_and(|w| w & (1 << bit) != 0)
    }

    /// Adds `other`; whether anything was new.
    fn union_with(&mut self, other: &DefinedSet) -> bool {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        let mut changed = false;
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            changed |= *a | b != *a;
            *a |= b;
        }
        changed
    }
}

impl State {
    /// Keeps only what `other` agrees with; whether anything changed.
    /// With `live` (the registers live at the join, for predicated code):
    /// a location keeps the one live value either path holds there; the
    /// other path's contents are then garbage no lane reads (predicated
    /// code has paths no lane takes with the value: both arms of an if
    /// skipped by consensual branches, a speculated instruction reading
    /// an operand only the guarded lanes defined).
    ///
    /// When both paths hold live values, the location keeps the one that
    /// each path either holds there or has never defined: a lane that
    /// never defined a value reads it only after passing a definition
    /// (a value that a guarded loop body defines and an exit reads, with
    /// the loop's entry path holding something else in its register).
    fn meet_live(
        &mut self,
        other: &State,
        live: &VRegSet,
        tracked: &Tracked,
    ) -> Result<bool, String> {
        let before = self.held.clone();
        let mut locs: BTreeSet<Loc> = self.held.keys().copied().collect();
        locs.extend(other.held.keys().copied());
        for loc in locs {
            let (mine, theirs) = (self.held.get(&loc).copied(), other.held.get(&loc).copied());
            let mut live_values: Vec<VReg> = [mine, theirs]
                .into_iter()
                .flatten()
                .filter(|v| live.contains(v.index()))
                .collect();
            live_values.dedup();
            if live_values.len() > 1 {
                live_values.retain(|&v| {
                    (mine == Some(v) || !self.defined.contains(v, tracked))
                        && (theirs == Some(v) || !other.defined.contains(v, tracked))
                });
            }
            match live_values[..] {
                [v] => {
                    self.held.insert(loc, v);
                }
                _ => {
                    self.held.remove(&loc);
                }
            }
        }
        let mut changed = self.held != before;
        changed |= self.defined.union_with(&other.defined);
        let facts = self.uniform.len();
        self.uniform.retain(|p, v| other.uniform.get(p) == Some(v));
        changed |= self.uniform.len() != facts;
        match (&self.guarded, &other.guarded) {
            (None, None) => Ok(changed),
            _ => Err("a block starts inside a guarded sequence".into()),
        }
    }

    fn meet(&mut self, other: &State) -> Result<bool, String> {
        let keep = |mine: &mut Held, theirs: &Held| {
            let before = mine.len();
            mine.retain(|loc, v| theirs.get(loc) == Some(v));
            mine.len() != before
        };
        let mut changed = keep(&mut self.held, &other.held);
        changed |= self.defined.union_with(&other.defined);
        let before = self.uniform.len();
        self.uniform.retain(|p, v| other.uniform.get(p) == Some(v));
        changed |= self.uniform.len() != before;
        match (&mut self.guarded, &other.guarded) {
            (None, None) => {}
            (Some(a), Some(b)) if a.guard == b.guard => {
                changed |= keep(&mut a.skipped, &b.skipped);
                if b.slots_clobbered && !a.slots_clobbered {
                    a.slots_clobbered = true;
                    changed = true;
                }
                let before = a.exclusive.len();
                a.exclusive.retain(|e| b.exclusive.contains(e));
                changed |= a.exclusive.len() != before;
            }
            _ => return Err("paths with different guarded sequences meet".into()),
        }
        Ok(changed)
    }
}

/// Checks `code`, whose stack pointer is `sp`; the error names the
/// offending instruction.
pub fn check(code: &PFunction, sp: Option<Reg>) -> Result<(), String> {
    check_with(code, sp, &HashMap::new())
}

/// [`check`] for predicated code: `live_in` gives, per block label, the
/// virtual registers live at its start (the MIR liveness), which resolves
/// the joins of paths no lane takes (see `State::meet_live`).
pub fn check_predicated(
    code: &PFunction,
    sp: Option<Reg>,
    live_in: &HashMap<Label, VRegSet>,
) -> Result<(), String> {
    check_with(code, sp, live_in)
}

fn check_with(
    code: &PFunction,
    sp: Option<Reg>,
    live_in: &HashMap<Label, VRegSet>,
) -> Result<(), String> {
    // Flatten to instructions with label positions.
    let mut insts = Vec::new();
    let mut labels: HashMap<Label, usize> = HashMap::new();
    for item in &code.items {
        match item {
            Item::Label(l) => {
                labels.insert(*l, insts.len());
            }
            Item::Inst(p) => insts.push(p),
        }
    }
    let n = insts.len();
    let mut live_at: HashMap<usize, &VRegSet> = HashMap::new();
    for (label, set) in live_in {
        if let Some(&pos) = labels.get(label) {
            live_at.insert(pos, set);
        }
    }
    let sequence_guard = guarded_sequences(code)?;
    for (i, p) in insts.iter().enumerate() {
        if let (Some(instr), false) = (p.instr, p.trusted) {
            check_annotations(&instr, &p.effects, sp, sequence_guard[i])
                .map_err(|e| format!("instruction {i} `{instr}`: {e}"))?;
        }
    }
    // Successors.
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, p) in insts.iter().enumerate() {
        let falls = match p.instr.map(|x| (x.guard, x.op)) {
            None => true,
            // Guard-false lanes go on to the next instruction.
            Some((guard, Op::Exit | Op::Ret { .. })) => !guard.is_always_true(),
            Some((
                guard,
                Op::BraCons {
                    kind: Consensus::All,
                    p,
                    ..
                },
            )) => !(guard.is_always_true() && p.is_always_true()),
            Some(_) => true,
        };
        if falls && i + 1 < n {
            succs[i].push(i + 1);
        }
        if let Some(t) = p.target {
            let is_call = matches!(p.instr.map(|x| x.op), Some(Op::Call { .. }));
            if !is_call {
                match labels.get(&t) {
                    Some(&pos) if pos < n => succs[i].push(pos),
                    _ => return Err(format!("instruction {i}: branch to an unknown label {t:?}")),
                }
            }
        }
    }
    if n == 0 {
        return Ok(());
    }
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, ss) in succs.iter().enumerate() {
        for &s in ss {
            if preds[s].last() != Some(&i) {
                preds[s].push(i);
            }
        }
    }
    // States are kept at the starts of straight-line runs only (the entry,
    // labels, joins, branch targets and fall-throughs of branches) and on
    // the edges between runs; inside a run they are recomputed. Memory then
    // grows with the number of runs, not with the number of instructions
    // times the size of a state.
    let mut leader = vec![false; n];
    leader[0] = true;
    for &pos in labels.values() {
        if pos < n {
            leader[pos] = true;
        }
    }
    for i in 1..n {
        if preds[i] != [i - 1] || succs[i - 1] != [i] {
            leader[i] = true;
        }
    }
    let tracked = Tracked::new(live_in);
    let block_end = |l: usize| (l + 1..n).find(|&k| leader[k]).map_or(n - 1, |k| k - 1);

    // The state each edge carries; a run's starting state is recomputed
    // from all of them when it is next visited after one changed
    // (predicated joins can gain a value when a path arrives, so an
    // incremental meet would keep stale conflicts). Visiting lowest
    // position first recomputes a join once its incoming paths have
    // settled rather than once per path.
    let mut in_state: Vec<Option<State>> = vec![None; n];
    let mut edge_out: HashMap<(usize, usize), State> = HashMap::new();
    let mut stale = vec![false; n];
    in_state[0] = Some(State::default());
    let mut work = BTreeSet::from([0usize]);
    let mut steps = 0usize;
    let mut visits = vec![0u32; n];
    while let Some(l) = work.pop_first() {
        steps += 1;
        if steps > 200 * n + 1000 {
            return Err("the data flow does not settle".into());
        }
        if std::mem::take(&mut stale[l]) {
            let mut merged: Option<State> = (l == 0).then(State::default);
            for &p in &preds[l] {
                let Some(e) = edge_out.get(&(p, l)) else {
                    continue;
                };
                match merged.as_mut() {
                    None => merged = Some(e.clone()),
                    Some(m) => {
                        match live_at.get(&l) {
                            Some(live) => m.meet_live(e, live, &tracked),
                            None => m.meet(e),
                        }
                        .map_err(|e| format!("instruction {l}: {e}"))?;
                    }
                }
            }
            // A join that keeps changing stops gaining values: from then on
            // its state only shrinks, so the iteration ends.
            visits[l] += 1;
            if visits[l] > 64 {
                if let (Some(m), Some(old)) = (merged.as_mut(), in_state[l].as_ref()) {
                    m.meet(old).map_err(|e| format!("instruction {l}: {e}"))?;
                }
            }
            if merged == in_state[l] {
                continue;
            }
            in_state[l] = merged;
        }
        let Some(mut state) = in_state[l].clone() else {
            continue;
        };
        let end = block_end(l);
        for (i, p) in insts.iter().enumerate().take(end + 1).skip(l) {
            state = transfer(i, p, state, false, &tracked)?;
        }
        let target = insts[end].target.and_then(|t| labels.get(&t).copied());
        for &s in &succs[end] {
            let mut out = state.clone();
            if Some(s) == target && s != end + 1 {
                if let Some((pred, value)) = insts[end].instr.and_then(consensus_fact) {
                    if out.uniform.get(&pred) == Some(&!value) {
                        continue; // an impossible path
                    }
                    out.uniform.insert(pred, value);
                }
            }
            if edge_out.get(&(end, s)) == Some(&out) {
                continue;
            }
            edge_out.insert((end, s), out);
            stale[s] = true;
            work.insert(s);
        }
    }
    // Every read against the settled states, in code order.
    for (l, state) in in_state.into_iter().enumerate() {
        if let Some(mut state) = state {
            for (i, p) in insts.iter().enumerate().take(block_end(l) + 1).skip(l) {
                state = transfer(i, p, state, true, &tracked)?;
            }
        }
    }
    Ok(())
}

/// What the taken edge of an unguarded consensual branch says about its
/// predicate register: `bra.none p` taken means every active lane has `p`
/// false, `bra.all p` taken every lane true.
fn consensus_fact(instr: Instr) -> Option<(Pred, bool)> {
    let Op::BraCons { kind, p, .. } = instr.op else {
        return None;
    };
    let PredSrc { pred, negate } = p;
    if !instr.guard.is_always_true() || pred == Pred::TRUE {
        return None;
    }
    match kind {
        Consensus::None => Some((pred, negate)),
        Consensus::All => Some((pred, !negate)),
        Consensus::Any => None,
    }
}

/// The guard of the guarded sequence each instruction (by index, markers
/// included) is in, after checking the sequences' shape.
fn guarded_sequences(code: &PFunction) -> Result<Vec<Option<Guard>>, String> {
    let mut out = Vec::new();
    let mut open: Option<Guard> = None;
    // Set after a guarded `ret`/`exit` or a write to the guard predicate:
    // no further instruction may follow in the sequence.
    let mut finished = false;
    for item in &code.items {
        let p = match item {
            Item::Label(l) if open.is_some() => {
                return Err(format!("label {l:?} inside a guarded sequence"));
            }
            Item::Label(_) => continue,
            Item::Inst(p) => p,
        };
        let i = out.len();
        let at = |e: String| match p.instr {
            Some(instr) => format!("instruction {i} `{instr}`: {e}"),
            None => format!("instruction {i} (marker): {e}"),
        };
        let begin = p.effects.iter().find_map(|e| match *e {
            Effect::GuardBegin(g) => Some(g),
            _ => None,
        });
        let end = p.effects.iter().any(|e| matches!(e, Effect::GuardEnd));
        if (begin.is_some() || end) && p.instr.is_some() {
            return Err(at(
                "only a marker may open or close a guarded sequence".into()
            ));
        }
        if let Some(g) = begin {
            if open.is_some() {
                return Err(at("guarded sequences nest".into()));
            }
            open = Some(g);
            finished = false;
        }
        out.push(open);
        if let (Some(g), Some(instr)) = (open, p.instr) {
            if finished {
                return Err(at(
                    "follows a guarded `ret`/`exit` or a write to the guard in its guarded sequence"
                        .into(),
                ));
            }
            if !instr.guard.is_always_true() && instr.guard != g {
                return Err(at(format!("in a guarded sequence under @{g}")));
            }
            let control_ok = match instr.op {
                Op::Ret { .. } | Op::Exit => instr.guard == g,
                Op::Bra { .. }
                | Op::BraCons { .. }
                | Op::Jmp { .. }
                | Op::Call { .. }
                | Op::CallR { .. } => false,
                _ => p.target.is_none(),
            };
            if !control_ok {
                return Err(at("control flow inside a guarded sequence".into()));
            }
            if matches!(instr.op, Op::Ret { .. } | Op::Exit) || instr.dest_pred() == Some(g.pred) {
                finished = true;
            }
        }
        if end {
            if open.is_none() {
                return Err(at("closes a guarded sequence that is not open".into()));
            }
            open = None;
        }
    }
    if open.is_some() {
        return Err("a guarded sequence is not closed".into());
    }
    Ok(out)
}

/// Registers and predicates an instruction reads; `None` when it reads
/// any of them implicitly (a call passes its arguments, a return its
/// value, in registers the instruction does not name).
fn reads(instr: &Instr) -> Option<Vec<Loc>> {
    if matches!(
        instr.op,
        Op::Call { .. } | Op::CallR { .. } | Op::Ret { .. }
    ) {
        return None;
    }
    let mut out = Vec::new();
    let (a, b) = instr.sources();
    out.extend(a.map(Loc::Reg));
    out.extend(b.map(Loc::Reg));
    // A guarded write keeps the old value in guard-false lanes: it reads
    // its destination too.
    if !instr.guard.is_always_true() {
        out.extend(instr.dest_reg().map(Loc::Reg));
        out.extend(instr.dest_pred().map(Loc::Pred));
    }
    let mut pred = |p: concord_isa::instr::PredSrc| {
        if !p.pred.is_true() {
            out.push(Loc::Pred(p.pred));
        }
    };
    pred(instr.guard);
    match instr.op {
        Op::PLogic { a, b, .. } => {
            pred(a);
            pred(b);
        }
        Op::Sel { p, .. } | Op::Vote { p, .. } | Op::Ballot { p, .. } | Op::BraCons { p, .. } => {
            pred(p)
        }
        _ => {}
    }
    Some(out)
}

/// The annotations of an untrusted instruction agree with what it does.
/// In a guarded sequence (`sequence_guard`) the guard and the old contents
/// of a guarded write need no annotation: the sequence accounts for them.
fn check_annotations(
    instr: &Instr,
    effects: &[Effect],
    sp: Option<Reg>,
    sequence_guard: Option<Guard>,
) -> Result<(), String> {
    let read = reads(instr);
    let mut implicit: Vec<Loc> = sp.map(Loc::Reg).into_iter().collect();
    if sequence_guard.is_some() && !instr.guard.is_always_true() {
        implicit.push(Loc::Pred(instr.guard.pred));
        implicit.extend(instr.dest_reg().map(Loc::Reg));
        implicit.extend(instr.dest_pred().map(Loc::Pred));
    }
    let mut writes = Vec::new();
    writes.extend(instr.dest_reg().map(Loc::Reg));
    writes.extend(instr.dest_pred().map(Loc::Pred));
    let is_call = matches!(instr.op, Op::Call { .. });
    let is_read = |l: Loc| read.as_ref().map_or(true, |r| r.contains(&l));
    let mut covered = Vec::new();
    for e in effects {
        match *e {
            Effect::Use(loc, v) => {
                if !is_read(loc) {
                    return Err(format!(
                        "annotated to read {v} from {loc:?}, which it does not read"
                    ));
                }
                covered.push(loc);
            }
            Effect::Def(loc, v) | Effect::Remat(loc, v) if !is_call && !writes.contains(&loc) => {
                return Err(format!(
                    "annotated to write {v} to {loc:?}, which it does not write"
                ));
            }
            Effect::Move { from, to } => match (from, to) {
                (Loc::Slot(o), Loc::Reg(r)) => {
                    let ok = matches!(instr.op, Op::Load { space: Space::Global, width: LoadWidth::B32, rd, base, offset }
                            if rd == r && Some(base) == sp && offset == o as i32);
                    if !ok {
                        return Err(format!("is not a reload of slot {o} into {r}"));
                    }
                }
                (Loc::Reg(r), Loc::Slot(o)) => {
                    let ok = matches!(instr.op, Op::Store { space: Space::Global, width: StoreWidth::B32, src, base, offset }
                            if src == r && Some(base) == sp && offset == o as i32);
                    if !ok {
                        return Err(format!("is not a spill of {r} to slot {o}"));
                    }
                    covered.push(from);
                }
                (from, to) => {
                    if !is_read(from) || !writes.contains(&to) {
                        return Err(format!("is not a move from {from:?} to {to:?}"));
                    }
                    covered.push(from);
                }
            },
            _ => {}
        }
    }
    if let (Some(read), false) = (read, matches!(instr.op, Op::MovHi { .. })) {
        for loc in read {
            if !implicit.contains(&loc) && !covered.contains(&loc) {
                return Err(format!(
                    "reads {loc:?} without saying which value it expects there"
                ));
            }
        }
    }
    Ok(())
}

fn written(p: &super::pcode::PInst) -> Vec<Loc> {
    let mut out = Vec::new();
    if let Some(instr) = p.instr {
        if let Some(r) = instr.dest_reg() {
            out.push(Loc::Reg(r));
        }
        if let Some(pd) = instr.dest_pred() {
            out.push(Loc::Pred(pd));
        }
    }
    out
}

/// One instruction's effect on the state. `strict`: a read of a value its
/// location does not hold is an error (the final pass); otherwise it is
/// ignored (while the data flow is still settling: with predicated joins
/// a state can gain values as more paths arrive).
fn transfer(
    i: usize,
    p: &super::pcode::PInst,
    mut state: State,
    strict: bool,
    tracked: &Tracked,
) -> Result<State, String> {
    let text = p
        .instr
        .map(|x| x.to_string())
        .unwrap_or_else(|| "(marker)".into());
    // A guarded instruction on its own: what it writes keeps a value only
    // if the guard-false lanes already had that value there.
    let guarded_alone =
        state.guarded.is_none() && p.instr.is_some_and(|x| !x.guard.is_always_true());
    let before = guarded_alone.then(|| state.held.clone());
    // 1. Uses, and the values moves will carry, read before any write.
    let mut moved = Vec::new();
    for e in &p.effects {
        match *e {
            Effect::Use(loc, v) if strict && state.held.get(&loc) != Some(&v) => {
                return Err(format!(
                    "instruction {i} `{text}` reads {v} from {loc:?}, which holds {}",
                    describe(state.held.get(&loc))
                ));
            }
            Effect::Move { from, .. } => moved.push(state.held.get(&from).copied()),
            _ => {}
        }
    }
    // In a guarded sequence, unguarded writes reach the guard-false lanes.
    if let (Some(seq), Some(instr)) = (state.guarded.as_mut(), p.instr) {
        if instr.guard.is_always_true() {
            for loc in written(p) {
                seq.skipped.insert(loc, CLOBBERED);
            }
            if matches!(instr.op, Op::Store { .. }) {
                seq.skipped
                    .retain(|loc, _| !matches!(loc, Loc::Slot(_) | Loc::WarpSlot(_)));
                seq.slots_clobbered = true;
            }
        }
    }
    // 2. Forget what the instruction writes.
    for loc in written(p) {
        if let Loc::Pred(pd) = loc {
            state.uniform.remove(&pd);
        }
    }
    if p.instr
        .is_some_and(|x| matches!(x.op, Op::Call { .. } | Op::CallR { .. }))
    {
        state.uniform.clear();
    }
    if !p.trusted {
        for loc in written(p) {
            state.held.remove(&loc);
        }
    }
    // 3. Apply the effects.
    // Under a guard, a location keeps the written value when it held it or
    // nothing known (as at the end of a guarded sequence).
    let kept_by_guard = |loc: Loc, v: VReg| {
        before
            .as_ref()
            .map_or(true, |b| b.get(&loc).map_or(true, |w| *w == v))
    };
    let mut moved = moved.into_iter();
    for e in &p.effects {
        match *e {
            Effect::Use(..) | Effect::GuardEnd => {}
            Effect::Def(loc, v) => {
                state.held.retain(|_, x| *x != v);
                if kept_by_guard(loc, v) {
                    state.held.insert(loc, v);
                }
            }
            Effect::Remat(loc, v) => {
                if kept_by_guard(loc, v) {
                    state.held.insert(loc, v);
                } else {
                    state.held.remove(&loc);
                }
            }
            Effect::Move { to, .. } => match moved.next().flatten() {
                Some(v) if kept_by_guard(to, v) => {
                    state.held.insert(to, v);
                }
                _ => {
                    state.held.remove(&to);
                }
            },
            Effect::Swap(a, b) => {
                let (va, vb) = (state.held.remove(&a), state.held.remove(&b));
                if let Some(v) = va {
                    state.held.insert(b, v);
                }
                if let Some(v) = vb {
                    state.held.insert(a, v);
                }
            }
            Effect::CopyDone { loc, src, .. } => {
                if strict && state.held.get(&loc) != Some(&src) {
                    return Err(format!(
                        "instruction {i}: after the parallel copy {loc:?} holds {} instead of {src}",
                        describe(state.held.get(&loc))
                    ));
                }
            }
            Effect::ClobberRegisters => {
                state
                    .held
                    .retain(|loc, _| matches!(loc, Loc::Slot(_) | Loc::WarpSlot(_)));
                state.uniform.clear();
            }
            Effect::Clobber(loc) => {
                state.held.remove(&loc);
                if let Loc::Pred(pd) = loc {
                    state.uniform.remove(&pd);
                }
            }
            Effect::GuardBegin(guard) => {
                if state.guarded.is_some() {
                    return Err(format!("instruction {i}: guarded sequences nest"));
                }
                state.guarded = Some(GuardedSeq {
                    guard,
                    skipped: state.held.clone(),
                    exclusive: Vec::new(),
                    slots_clobbered: false,
                });
            }
            Effect::Exclusive(loc, v) => match state.guarded.as_mut() {
                Some(seq) => seq.exclusive.push((loc, v)),
                None => {
                    state.held.retain(|_, x| *x != v);
                    state.held.insert(loc, v);
                }
            },
        }
    }
    for e in &p.effects {
        match *e {
            Effect::Def(_, v)
            | Effect::Remat(_, v)
            | Effect::Exclusive(_, v)
            | Effect::CopyDone { dst: v, .. } => state.defined.insert(v, tracked),
            _ => {}
        }
    }
    // Parallel copies rename at the very end, all at once.
    let copies: Vec<(Loc, VReg)> = p
        .effects
        .iter()
        .filter_map(|e| match *e {
            Effect::CopyDone { loc, dst, .. } => Some((loc, dst)),
            _ => None,
        })
        .collect();
    for &(_, dst) in &copies {
        state.held.retain(|_, x| *x != dst);
    }
    for (loc, dst) in copies {
        state.held.insert(loc, dst);
    }
    // After a guarded `ret`/`exit` only the guard-false lanes go on.
    if let (Some(seq), Some(instr)) = (state.guarded.as_ref(), p.instr) {
        if matches!(instr.op, Op::Ret { .. } | Op::Exit) && !instr.guard.is_always_true() {
            state.held = seq
                .skipped
                .iter()
                .filter(|&(_, &v)| v != CLOBBERED)
                .map(|(&loc, &v)| (loc, v))
                .collect();
        }
    }
    // The end of a guarded sequence: the two groups of lanes meet.
    if p.effects.iter().any(|e| matches!(e, Effect::GuardEnd)) {
        let Some(seq) = state.guarded.take() else {
            return Err(format!("instruction {i}: no guarded sequence to close"));
        };
        // A location keeps the written value where the guard-false lanes
        // held it too, or held nothing known: lanes that never defined a
        // value never read it (predication's guarded block parameters and
        // masks start that way), and a known value of another register
        // there is still a conflict.
        let mut merged: Held = state
            .held
            .iter()
            .filter(|&(loc, v)| match seq.skipped.get(loc) {
                Some(w) => w == v,
                None => !(seq.slots_clobbered && matches!(loc, Loc::Slot(_) | Loc::WarpSlot(_))),
            })
            .map(|(&loc, &v)| (loc, v))
            .collect();
        for (loc, v) in seq.exclusive {
            if state.held.get(&loc) == Some(&v) {
                merged.insert(loc, v);
            }
        }
        state.held = merged;
    }
    Ok(state)
}

fn describe(v: Option<&VReg>) -> String {
    match v {
        Some(v) => v.to_string(),
        None => "no known value".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::pcode::PInst;
    use concord_isa::instr::{AluOp, Instr, Reg};

    fn r(i: u8) -> Reg {
        Reg::new(i).unwrap()
    }

    fn add(rd: u8, a: u8, b: u8) -> Instr {
        Instr::new(Op::Alu {
            op: AluOp::Add,
            rd: r(rd),
            rs1: r(a),
            rs2: r(b),
        })
    }

    fn func(insts: Vec<(Instr, Vec<Effect>)>) -> PFunction {
        PFunction {
            name: "t".into(),
            items: insts
                .into_iter()
                .map(|(i, e)| {
                    Item::Inst(PInst {
                        instr: Some(i),
                        target: None,
                        effects: e,
                        trusted: false,
                    })
                })
                .collect(),
            label_names: Vec::new(),
        }
    }

    #[test]
    fn accepts_correct_and_rejects_clobbered_values() {
        let (a, b, c) = (VReg(0), VReg(1), VReg(2));
        let def = |rd: u8, v: VReg| {
            (
                Instr::new(Op::MovI { rd: r(rd), imm: 1 }),
                vec![Effect::Def(Loc::Reg(r(rd)), v)],
            )
        };
        let good = func(vec![
            def(1, a),
            def(2, b),
            (
                add(3, 1, 2),
                vec![
                    Effect::Use(Loc::Reg(r(1)), a),
                    Effect::Use(Loc::Reg(r(2)), b),
                    Effect::Def(Loc::Reg(r(3)), c),
                ],
            ),
        ]);
        assert_eq!(check(&good, None), Ok(()));
        // `b` is defined into r1, destroying `a`.
        let bad = func(vec![
            def(1, a),
            def(1, b),
            (
                add(3, 1, 1),
                vec![
                    Effect::Use(Loc::Reg(r(1)), a),
                    Effect::Def(Loc::Reg(r(3)), c),
                ],
            ),
        ]);
        assert!(check(&bad, None).unwrap_err().contains("reads %0"));
        // An unannotated write to r1 destroys `a` too.
        let bad = func(vec![
            def(1, a),
            (Instr::new(Op::MovI { rd: r(1), imm: 7 }), vec![]),
            (add(3, 1, 1), vec![Effect::Use(Loc::Reg(r(1)), a)]),
        ]);
        assert!(check(&bad, None).is_err());
    }

    mod guarded {
        use super::*;
        use concord_isa::instr::{Guard, Pred, PredSrc};

        fn p1() -> Guard {
            PredSrc::new(Pred::new(1).unwrap(), false)
        }

        fn g(instr: Instr) -> Instr {
            Instr::guarded(p1(), instr.op)
        }

        fn movi(rd: u8) -> Instr {
            Instr::new(Op::MovI { rd: r(rd), imm: 5 })
        }

        fn mov(rd: u8, rs: u8) -> Instr {
            Instr::new(Op::AluImm {
                op: AluOp::Add,
                rd: r(rd),
                rs1: r(rs),
                imm: 0,
            })
        }

        fn inst(instr: Instr, effects: Vec<Effect>) -> Item {
            Item::Inst(PInst {
                instr: Some(instr),
                target: None,
                effects,
                trusted: false,
            })
        }

        fn marker(effects: Vec<Effect>) -> Item {
            Item::Inst(PInst {
                instr: None,
                target: None,
                effects,
                trusted: true,
            })
        }

        fn code(items: Vec<Item>) -> PFunction {
            PFunction {
                name: "t".into(),
                items,
                label_names: Vec::new(),
            }
        }

        const GUARD: VReg = VReg(9);
        const A: VReg = VReg(0);
        const B: VReg = VReg(1);

        /// The guard predicate p1 holds `GUARD`, r1 holds `A`, r2 `B`.
        fn setup() -> Vec<Item> {
            vec![
                inst(
                    Instr::new(Op::PLogic {
                        op: concord_isa::instr::PredOp::And,
                        pd: Pred::new(1).unwrap(),
                        a: PredSrc::TRUE,
                        b: PredSrc::TRUE,
                    }),
                    vec![Effect::Def(Loc::Pred(Pred::new(1).unwrap()), GUARD)],
                ),
                inst(movi(1), vec![Effect::Def(Loc::Reg(r(1)), A)]),
                inst(movi(2), vec![Effect::Def(Loc::Reg(r(2)), B)]),
            ]
        }

        fn begin() -> Item {
            marker(vec![
                Effect::GuardBegin(p1()),
                Effect::Use(Loc::Pred(Pred::new(1).unwrap()), GUARD),
            ])
        }

        fn read(reg: u8, v: VReg) -> Item {
            inst(add(3, reg, reg), vec![Effect::Use(Loc::Reg(r(reg)), v)])
        }

        /// `@p1 r1 = 5` as a partial definition of `A` (the old value in
        /// place) keeps `A` in r1 for every lane.
        #[test]
        fn partial_definition_with_its_old_value() {
            let mut items = setup();
            items.extend([
                begin(),
                inst(
                    g(movi(1)),
                    vec![
                        Effect::Use(Loc::Reg(r(1)), A),
                        Effect::Def(Loc::Reg(r(1)), A),
                    ],
                ),
                marker(vec![Effect::GuardEnd]),
                read(1, A),
            ]);
            assert_eq!(check(&code(items), None), Ok(()));
        }

        /// Defining `B` into r1 under a guard: the guard-false lanes still
        /// hold `A`, so r1 holds neither afterwards...
        #[test]
        fn partial_definition_over_another_value() {
            let mut items = setup();
            items.extend([
                begin(),
                inst(g(movi(1)), vec![Effect::Def(Loc::Reg(r(1)), B)]),
                marker(vec![Effect::GuardEnd]),
                read(1, B),
            ]);
            let err = check(&code(items), None).unwrap_err();
            assert!(err.contains("reads %1 from Reg(Reg(1)), which holds no known value"));
        }

        /// ... unless the definition is exclusive.
        #[test]
        fn exclusive_definition() {
            let mut items = setup();
            items.extend([
                begin(),
                inst(g(movi(1)), vec![Effect::Def(Loc::Reg(r(1)), B)]),
                marker(vec![Effect::Exclusive(Loc::Reg(r(1)), B), Effect::GuardEnd]),
                read(1, B),
            ]);
            assert_eq!(check(&code(items), None), Ok(()));
        }

        /// An unguarded write inside the sequence reaches the guard-false
        /// lanes: a partial definition written that way is caught.
        #[test]
        fn unguarded_write_in_a_guarded_sequence() {
            let mut items = setup();
            items.extend([
                begin(),
                inst(movi(1), vec![Effect::Def(Loc::Reg(r(1)), A)]),
                marker(vec![Effect::GuardEnd]),
                read(1, A),
            ]);
            let err = check(&code(items), None).unwrap_err();
            assert!(err.contains("reads %0 from Reg(Reg(1))"), "{err}");
            // The same through a guarded move of another value.
            let mut items = setup();
            items.extend([
                begin(),
                inst(
                    g(mov(2, 1)),
                    vec![Effect::Move {
                        from: Loc::Reg(r(1)),
                        to: Loc::Reg(r(2)),
                    }],
                ),
                marker(vec![Effect::GuardEnd]),
                read(2, A),
            ]);
            let err = check(&code(items), None).unwrap_err();
            assert!(err.contains("reads %0 from Reg(Reg(2))"), "{err}");
        }

        /// A guarded move on its own needs the old value annotated, and
        /// leaves a value only where both groups of lanes agree.
        #[test]
        fn guarded_move_alone() {
            let moved = |old: VReg| {
                inst(
                    g(mov(2, 1)),
                    vec![
                        Effect::Use(Loc::Pred(Pred::new(1).unwrap()), GUARD),
                        Effect::Use(Loc::Reg(r(2)), old),
                        Effect::Move {
                            from: Loc::Reg(r(1)),
                            to: Loc::Reg(r(2)),
                        },
                    ],
                )
            };
            let mut items = setup();
            items.extend([moved(B), read(2, A)]);
            let err = check(&code(items), None).unwrap_err();
            assert!(err.contains("reads %0 from Reg(Reg(2))"), "{err}");
            // Moving a value the guard-false lanes already have is fine.
            let mut items = setup();
            items.extend([
                inst(
                    mov(2, 1),
                    vec![Effect::Move {
                        from: Loc::Reg(r(1)),
                        to: Loc::Reg(r(2)),
                    }],
                ),
                moved(A),
                read(2, A),
            ]);
            assert_eq!(check(&code(items), None), Ok(()));
            // Without saying what r2 should hold: rejected outright.
            let mut items = setup();
            items.push(inst(
                g(mov(2, 1)),
                vec![
                    Effect::Use(Loc::Pred(Pred::new(1).unwrap()), GUARD),
                    Effect::Move {
                        from: Loc::Reg(r(1)),
                        to: Loc::Reg(r(2)),
                    },
                ],
            ));
            let err = check(&code(items), None).unwrap_err();
            assert!(err.contains("without saying which value"), "{err}");
        }

        /// Shapes: another guard, a label or a branch inside a sequence,
        /// an unclosed sequence.
        #[test]
        fn malformed_sequences() {
            let other = PredSrc::new(Pred::new(2).unwrap(), false);
            let bad = [
                vec![
                    begin(),
                    inst(Instr::guarded(other, movi(1).op), vec![]),
                    marker(vec![Effect::GuardEnd]),
                ],
                vec![
                    begin(),
                    Item::Label(Label::Runtime(0)),
                    marker(vec![Effect::GuardEnd]),
                ],
                vec![
                    begin(),
                    inst(g(Instr::new(Op::Bra { target: 0 })), vec![]),
                    marker(vec![Effect::GuardEnd]),
                ],
                vec![begin(), inst(g(movi(1)), vec![])],
            ];
            let expected = [
                "in a guarded sequence under @p1",
                "inside a guarded sequence",
                "control flow inside a guarded sequence",
                "is not closed",
            ];
            for (items, message) in bad.into_iter().zip(expected) {
                let mut all = setup();
                all.extend(items);
                let err = check(&code(all), None).unwrap_err();
                assert!(err.contains(message), "{err}");
            }
        }

        /// After a guarded `ret` only the guard-false lanes go on, with
        /// what they had before the sequence.
        #[test]
        fn guarded_return_continues_with_the_other_lanes() {
            let mut items = setup();
            items.extend([
                begin(),
                inst(
                    g(mov(1, 2)),
                    vec![Effect::Move {
                        from: Loc::Reg(r(2)),
                        to: Loc::Reg(r(1)),
                    }],
                ),
                inst(
                    g(Instr::new(Op::Ret { rs: r(1) })),
                    vec![Effect::Use(Loc::Reg(r(1)), B)],
                ),
                marker(vec![Effect::GuardEnd]),
                read(1, A),
            ]);
            assert_eq!(check(&code(items), None), Ok(()));
        }
    }
}
