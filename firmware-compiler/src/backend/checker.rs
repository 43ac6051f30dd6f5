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

use std::collections::{BTreeMap, HashMap};

use concord_isa::instr::{Consensus, Instr, LoadWidth, Op, Reg, Space, StoreWidth};

use super::mir::VReg;
use super::pcode::{Effect, Item, Label, Loc, PFunction};

/// Abstract state: what each location holds. Absent = unknown.
type State = BTreeMap<Loc, VReg>;

/// Checks `code`, whose stack pointer is `sp`; the error names the
/// offending instruction.
pub fn check(code: &PFunction, sp: Option<Reg>) -> Result<(), String> {
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
    for (i, p) in insts.iter().enumerate() {
        if let (Some(instr), false) = (p.instr, p.trusted) {
            check_annotations(&instr, &p.effects, sp)
                .map_err(|e| format!("instruction {i} `{instr}`: {e}"))?;
        }
    }
    // Successors.
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, p) in insts.iter().enumerate() {
        let falls = match p.instr.map(|x| (x.guard, x.op)) {
            None => true,
            Some((_, Op::Exit | Op::Ret { .. })) => false,
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

    let mut in_state: Vec<Option<State>> = vec![None; n];
    if n == 0 {
        return Ok(());
    }
    in_state[0] = Some(State::new());
    let mut work = vec![0usize];
    let mut queued = vec![false; n];
    queued[0] = true;
    while let Some(i) = work.pop() {
        queued[i] = false;
        let Some(state) = in_state[i].clone() else {
            continue;
        };
        let out = transfer(i, insts[i], state)?;
        for &s in &succs[i] {
            let changed = match &mut in_state[s] {
                None => {
                    in_state[s] = Some(out.clone());
                    true
                }
                Some(existing) => {
                    let before = existing.len();
                    existing.retain(|loc, v| out.get(loc) == Some(v));
                    existing.len() != before
                }
            };
            if changed && !queued[s] {
                queued[s] = true;
                work.push(s);
            }
        }
    }
    Ok(())
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
fn check_annotations(instr: &Instr, effects: &[Effect], sp: Option<Reg>) -> Result<(), String> {
    let read = reads(instr);
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
            if Some(loc) != sp.map(Loc::Reg) && !covered.contains(&loc) {
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

fn transfer(i: usize, p: &super::pcode::PInst, mut state: State) -> Result<State, String> {
    let text = p
        .instr
        .map(|x| x.to_string())
        .unwrap_or_else(|| "(marker)".into());
    // 1. Uses, and the values moves will carry, read before any write.
    let mut moved = Vec::new();
    for e in &p.effects {
        match *e {
            Effect::Use(loc, v) if state.get(&loc) != Some(&v) => {
                return Err(format!(
                    "instruction {i} `{text}` reads {v} from {loc:?}, which holds {}",
                    describe(state.get(&loc))
                ));
            }
            Effect::Move { from, .. } => moved.push(state.get(&from).copied()),
            _ => {}
        }
    }
    // 2. Forget what the instruction writes.
    if !p.trusted {
        for loc in written(p) {
            state.remove(&loc);
        }
    }
    // 3. Apply the effects.
    let mut moved = moved.into_iter();
    for e in &p.effects {
        match *e {
            Effect::Use(..) => {}
            Effect::Def(loc, v) => {
                state.retain(|_, x| *x != v);
                state.insert(loc, v);
            }
            Effect::Remat(loc, v) => {
                state.insert(loc, v);
            }
            Effect::Move { to, .. } => match moved.next().flatten() {
                Some(v) => {
                    state.insert(to, v);
                }
                None => {
                    state.remove(&to);
                }
            },
            Effect::Swap(a, b) => {
                let (va, vb) = (state.remove(&a), state.remove(&b));
                if let Some(v) = va {
                    state.insert(b, v);
                }
                if let Some(v) = vb {
                    state.insert(a, v);
                }
            }
            Effect::CopyDone { loc, src, .. } => {
                if state.get(&loc) != Some(&src) {
                    return Err(format!(
                        "instruction {i}: after the parallel copy {loc:?} holds {} instead of {src}",
                        describe(state.get(&loc))
                    ));
                }
            }
            Effect::ClobberRegisters => {
                state.retain(|loc, _| matches!(loc, Loc::Slot(_) | Loc::WarpSlot(_)));
            }
            Effect::Clobber(loc) => {
                state.remove(&loc);
            }
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
        state.retain(|_, x| *x != dst);
    }
    for (loc, dst) in copies {
        state.insert(loc, dst);
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
}
