//! Predicate allocation: `i1` virtual registers -> `p1`..`p(preds-1)`.
//!
//! Linear scan over hull intervals ([`super::liveness`]). When more
//! predicates are live than the core has, or a predicate is live across a
//! call (the callee may use every predicate), the value is *demoted*: it
//! moves to a new general virtual register holding 0 or 1, and the MIR is
//! rewritten around it:
//!
//! * a definition writes a short-lived temporary predicate `t`, followed by
//!   `g = li 0; @t g = li 1`;
//! * a use reads a temporary `t = setp.ne g, 0` made just before it;
//! * a parallel copy between a demoted and a kept predicate converts on
//!   the way.
//!
//! Demoted values are then ordinary general registers (the general
//! allocator may spill them to the stack in turn). Temporaries are never
//! demoted; at most two are live at once, so a core needs at least three
//! predicates (`pt` and two) for this to always succeed. Allocation is
//! repeated until nothing more is demoted.

use concord_isa::instr::{Cmp, Pred};

use super::liveness::{numbered, Liveness};
use super::mir::{MFunction, MInst, MOp, RegClass, VGuard, VReg};
use super::BackendError;

/// The result: a physical predicate for every predicate-class register that
/// remains, and how many values were demoted.
#[derive(Clone, Debug, Default)]
pub struct PredAssignment {
    pub preds: Vec<Option<Pred>>,
    pub demoted: usize,
}

/// Allocates predicates for `mf`, rewriting it when values must be demoted.
/// `preds` is the core's predicate count, `pt` included.
pub fn allocate_predicates(mf: &mut MFunction, preds: u32) -> Result<PredAssignment, BackendError> {
    if preds < 3 {
        return Err(BackendError::Unsupported {
            func: mf.name.clone(),
            message: format!(
                "the back end needs at least 3 predicates (pt and two), the core has {preds}"
            ),
        });
    }
    let available: Vec<Pred> = (1..preds.min(8) as u8).filter_map(Pred::new).collect();
    // Temporaries made by demotion; they are never demoted themselves.
    let mut temporary = vec![false; mf.num_vregs()];
    let mut demoted_total = 0;
    for _round in 0..=mf.num_vregs() + 1 {
        temporary.resize(mf.num_vregs(), false);
        let live = Liveness::compute(mf);
        let calls: Vec<u32> = numbered(mf)
            .filter(|(_, i)| matches!(i.op, MOp::Call { .. }))
            .map(|(k, _)| k)
            .collect();
        let mut demote: Vec<VReg> = Vec::new();
        let mut intervals = Vec::new();
        for (v, &is_temporary) in temporary.iter().enumerate().take(mf.num_vregs()) {
            let vreg = VReg(v as u32);
            if mf.class(vreg) != RegClass::Pred {
                continue;
            }
            let Some(iv) = live.interval(vreg) else {
                continue;
            };
            if calls.iter().any(|&k| iv.crosses(k)) && !is_temporary {
                demote.push(vreg);
            } else {
                intervals.push((iv, vreg));
            }
        }
        intervals.sort_by_key(|(iv, v)| (iv.start, v.0));
        let mut assignment: Vec<Option<Pred>> = vec![None; mf.num_vregs()];
        let mut free: Vec<Pred> = available.iter().rev().copied().collect();
        let mut active: Vec<(u32, VReg)> = Vec::new();
        for &(iv, v) in &intervals {
            active.retain(|&(end, a)| {
                let expired = end < iv.start;
                if expired {
                    if let Some(p) = assignment[a.index()] {
                        free.push(p);
                    }
                }
                !expired
            });
            if let Some(p) = free.pop() {
                assignment[v.index()] = Some(p);
                active.push((iv.end, v));
                continue;
            }
            // Demote the candidate whose interval ends last.
            let victim = active
                .iter()
                .copied()
                .chain(std::iter::once((iv.end, v)))
                .filter(|(_, c)| !temporary[c.index()])
                .max_by_key(|&(end, c)| (end, c.0));
            let Some((_, victim)) = victim else {
                return Err(BackendError::Unsupported {
                    func: mf.name.clone(),
                    message: format!(
                        "more than {} predicate temporaries live at once",
                        available.len()
                    ),
                });
            };
            demote.push(victim);
            if victim != v {
                let p = assignment[victim.index()].take();
                active.retain(|&(_, a)| a != victim);
                assignment[v.index()] = p;
                active.push((iv.end, v));
            }
        }
        if demote.is_empty() {
            return Ok(PredAssignment {
                preds: assignment,
                demoted: demoted_total,
            });
        }
        demoted_total += demote.len();
        demote_to_gprs(mf, &demote, &mut temporary);
    }
    Err(BackendError::Unsupported {
        func: mf.name.clone(),
        message: "predicate allocation did not converge".into(),
    })
}

/// Rewrites `mf` so that each register of `demote` lives in a new general
/// register as 0/1.
fn demote_to_gprs(mf: &mut MFunction, demote: &[VReg], temporary: &mut Vec<bool>) {
    let mut home: Vec<Option<VReg>> = vec![None; mf.num_vregs()];
    for &d in demote {
        home[d.index()] = Some(mf.new_vreg(RegClass::Gpr));
    }
    let new_temp = |mf: &mut MFunction, temporary: &mut Vec<bool>| {
        let t = mf.new_vreg(RegClass::Pred);
        temporary.resize(mf.num_vregs(), false);
        temporary[t.index()] = true;
        t
    };
    let to_pred = |t: VReg, g: VReg| {
        MInst::new(MOp::SetPImm {
            cmp: Cmp::Ne,
            pd: t,
            rs1: g,
            imm: 0,
        })
    };
    let to_int = |g: VReg, t: VReg| {
        [
            MInst::new(MOp::Li { rd: g, imm: 0 }),
            MInst::guarded(
                VGuard {
                    pred: t,
                    negate: false,
                },
                MOp::Li { rd: g, imm: 1 },
            ),
        ]
    };
    let home_of = |v: VReg, home: &Vec<Option<VReg>>| home.get(v.index()).copied().flatten();

    for b in 0..mf.blocks.len() {
        let insts = std::mem::take(&mut mf.blocks[b].insts);
        let mut out = Vec::with_capacity(insts.len());
        for mut inst in insts {
            if let MOp::ParallelCopy { copies } = &mut inst.op {
                let mut before = Vec::new();
                for c in copies.iter_mut() {
                    match (home_of(c.0, &home), home_of(c.1, &home)) {
                        (Some(gd), Some(gs)) => *c = (gd, gs),
                        (Some(gd), None) => {
                            let tg = mf.new_vreg(RegClass::Gpr);
                            temporary.resize(mf.num_vregs(), false);
                            before.extend(to_int(tg, c.1));
                            *c = (gd, tg);
                        }
                        (None, Some(gs)) => {
                            let t = new_temp(mf, temporary);
                            before.push(to_pred(t, gs));
                            c.1 = t;
                        }
                        (None, None) => {}
                    }
                }
                // A guarded copy (predication) reads its guard like any
                // other instruction.
                if let Some(g) = inst.guard.as_mut() {
                    if let Some(home) = home_of(g.pred, &home) {
                        let t = new_temp(mf, temporary);
                        before.push(to_pred(t, home));
                        g.pred = t;
                    }
                }
                out.extend(before);
                out.push(inst);
                continue;
            }
            // Uses (sources, guard, old value of a partial definition).
            let mut temps: Vec<(VReg, VReg)> = Vec::new();
            for u in inst.uses() {
                if let Some(g) = home_of(u, &home) {
                    if !temps.iter().any(|&(d, _)| d == u) {
                        let t = new_temp(mf, temporary);
                        out.push(to_pred(t, g));
                        temps.push((u, t));
                    }
                }
            }
            let lookup = |v: VReg, temps: &[(VReg, VReg)]| {
                temps
                    .iter()
                    .find(|&&(d, _)| d == v)
                    .map(|&(_, t)| t)
                    .unwrap_or(v)
            };
            inst.map_op_uses(|v| lookup(v, &temps));
            if let Some(g) = inst.guard.as_mut() {
                g.pred = lookup(g.pred, &temps);
            }
            // Definitions.
            let mut after = Vec::new();
            for d in inst.defs() {
                if let Some(g) = home_of(d, &home) {
                    let t = match temps.iter().find(|&&(x, _)| x == d) {
                        Some(&(_, t)) => t,
                        None => {
                            let t = new_temp(mf, temporary);
                            temps.push((d, t));
                            t
                        }
                    };
                    after.extend(to_int(g, t));
                }
            }
            inst.map_defs(|v| lookup(v, &temps));
            out.push(inst);
            out.extend(after);
        }
        mf.blocks[b].insts = out;
    }
}
