//! General register allocation: linear scan over hull live intervals, with
//! spilling.
//!
//! Intervals come from [`super::liveness`] (real liveness over the CFG, so
//! values live around loops keep their register through the whole loop).
//! The scan walks intervals by start; when no register is free it evicts
//! the interval that ends last (preferring values that can be recomputed).
//! Every value live across a call is evicted up front: the calling
//! convention has no callee-saved registers.
//!
//! What happens to an evicted value is a separate decision, the
//! [`SpillPolicy`]: [`DefaultSpillPolicy`] recomputes constants at each use
//! (rematerialisation) and gives every other value a 4-byte slot in the
//! thread's stack frame. An evicted value lives *only* there; each use
//! reloads it into a scratch register and each definition stores it (the
//! rewrite in [`super::lower`] does this), so the caller reserves two
//! scratch registers whenever anything is evicted.
//!
//! [`super::spill::DivergenceSpillPolicy`] (`--spill=divergence-aware`)
//! adds Sampaio's other locations: per-warp slots in shared memory for
//! uniform values and for the uniform part of affine values, and
//! rematerialisation of `c1·T + c0` from the thread index. Every evicted
//! value still gets a location of its own (slots are never shared between
//! values), so slots need no interference check of their own.

use concord_isa::instr::{Pred, Reg};

use super::liveness::{numbered, Liveness};
use super::mir::{MFunction, MOp, RegClass, VReg};

/// Where a virtual register lives after allocation.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum VLoc {
    Reg(Reg),
    Pred(Pred),
    /// A per-lane spill slot: index into the function's spill area.
    Slot(u32),
    /// Not kept anywhere: the constant is rematerialised at each use.
    Remat(u32),
    /// A per-warp slot in shared memory (a uniform value): index into the
    /// kernel's per-warp spill area.
    WarpSlot(u32),
    /// Not kept anywhere: `c1·tid.x + c0` is recomputed at each use.
    RematAffine {
        c1: i32,
        c0: i32,
    },
    /// `c1·tid.x + a0` with the uniform `a0` in per-warp slot `slot`.
    AffineSlot {
        slot: u32,
        c1: i32,
    },
}

impl VLoc {
    /// Whether the value lives in memory (a reload is needed to read it).
    pub fn in_memory(self) -> bool {
        matches!(
            self,
            VLoc::Slot(_) | VLoc::WarpSlot(_) | VLoc::AffineSlot { .. }
        )
    }

    /// Whether the value is recomputed at its uses (its definitions go).
    pub fn is_remat(self) -> bool {
        matches!(self, VLoc::Remat(_) | VLoc::RematAffine { .. })
    }
}

/// What to do with an evicted value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SpillDecision {
    /// Recompute the constant at each use; the definition disappears.
    Rematerialize(u32),
    /// Keep the value in a per-lane stack slot.
    PerLaneSlot,
    /// Keep the (uniform) value in a per-warp slot in shared memory.
    PerWarpSlot,
    /// Recompute `c1·tid.x + c0` at each use; the definitions disappear.
    RematAffine { c1: i32, c0: i32 },
    /// Keep `a0 = v - c1·tid.x` (uniform) in a per-warp slot and rebuild
    /// `v` at each use.
    AffineUniformPart { c1: i32 },
}

/// The spill-slot decision, kept apart from the scan so that other
/// strategies (divergence-aware spilling: per-warp slots for uniform values,
/// rematerialising affine values) can replace it.
pub trait SpillPolicy {
    fn decide(&self, mf: &MFunction, v: VReg) -> SpillDecision;
    /// Whether evicting `v` is cheap (guides the choice of victim).
    fn is_cheap(&self, mf: &MFunction, v: VReg) -> bool {
        matches!(self.decide(mf, v), SpillDecision::Rematerialize(_))
    }
    /// Per-warp slots the function may use (0: none; the rest fall back
    /// to per-lane slots).
    fn warp_slot_capacity(&self) -> u32 {
        0
    }
}

/// Constants are rematerialised, everything else goes to a per-lane slot.
#[derive(Clone, Debug)]
pub struct DefaultSpillPolicy {
    constants: Vec<Option<u32>>,
}

impl DefaultSpillPolicy {
    pub fn new(mf: &MFunction) -> DefaultSpillPolicy {
        // A constant is a register with exactly one definition, an
        // unguarded `li`.
        let mut defs = vec![0u32; mf.num_vregs()];
        let mut constants: Vec<Option<u32>> = vec![None; mf.num_vregs()];
        for (_, inst) in numbered(mf) {
            for d in inst.defs() {
                defs[d.index()] += 1;
            }
            if let (None, MOp::Li { rd, imm }) = (inst.guard, &inst.op) {
                constants[rd.index()] = Some(*imm);
            }
        }
        for (c, n) in constants.iter_mut().zip(&defs) {
            if *n != 1 {
                *c = None;
            }
        }
        DefaultSpillPolicy { constants }
    }
}

impl SpillPolicy for DefaultSpillPolicy {
    fn decide(&self, _mf: &MFunction, v: VReg) -> SpillDecision {
        match self.constants.get(v.index()).copied().flatten() {
            Some(k) => SpillDecision::Rematerialize(k),
            None => SpillDecision::PerLaneSlot,
        }
    }
}

/// The allocation of the general registers of one function.
#[derive(Clone, Debug, Default)]
pub struct GprAssignment {
    /// Location of each general virtual register that appears.
    pub locs: Vec<Option<VLoc>>,
    /// Spill slots used.
    pub slots: u32,
    /// Values given a slot, and values rematerialised.
    pub spilled: u32,
    pub rematerialized: u32,
    /// Per-warp slots used (uniform values and affine uniform parts).
    pub warp_slots: u32,
    /// Values in per-warp slots: uniform values, affine uniform parts.
    pub per_warp_uniform: u32,
    pub affine_uniform_part: u32,
    /// Values recomputed as `c1·tid.x + c0`.
    pub remat_affine_constant: u32,
    /// Values the policy wanted in a per-warp slot that went to a per-lane
    /// slot because the shared memory was full.
    pub warp_slot_fallbacks: u32,
}

impl GprAssignment {
    pub fn evicted_any(&self) -> bool {
        self.spilled
            + self.rematerialized
            + self.per_warp_uniform
            + self.affine_uniform_part
            + self.remat_affine_constant
            > 0
    }
}

/// Allocates the general registers of `mf` to `regs` (in order of
/// preference), evicting as needed.
pub fn allocate_gprs(mf: &MFunction, regs: &[Reg], policy: &dyn SpillPolicy) -> GprAssignment {
    let live = Liveness::compute(mf);
    let calls: Vec<u32> = numbered(mf)
        .filter(|(_, i)| matches!(i.op, MOp::Call { .. }))
        .map(|(k, _)| k)
        .collect();
    let mut out = GprAssignment {
        locs: vec![None; mf.num_vregs()],
        ..GprAssignment::default()
    };
    let capacity = policy.warp_slot_capacity();
    let evict = |v: VReg, out: &mut GprAssignment| {
        let mut decision = policy.decide(mf, v);
        if matches!(
            decision,
            SpillDecision::PerWarpSlot | SpillDecision::AffineUniformPart { .. }
        ) && out.warp_slots >= capacity
        {
            out.warp_slot_fallbacks += 1;
            decision = SpillDecision::PerLaneSlot;
        }
        let loc = match decision {
            SpillDecision::Rematerialize(k) => {
                out.rematerialized += 1;
                VLoc::Remat(k)
            }
            SpillDecision::PerLaneSlot => {
                out.spilled += 1;
                out.slots += 1;
                VLoc::Slot(out.slots - 1)
            }
            SpillDecision::PerWarpSlot => {
                out.per_warp_uniform += 1;
                out.warp_slots += 1;
                VLoc::WarpSlot(out.warp_slots - 1)
            }
            SpillDecision::AffineUniformPart { c1 } => {
                out.affine_uniform_part += 1;
                out.warp_slots += 1;
                VLoc::AffineSlot {
                    slot: out.warp_slots - 1,
                    c1,
                }
            }
            SpillDecision::RematAffine { c1, c0 } => {
                out.remat_affine_constant += 1;
                VLoc::RematAffine { c1, c0 }
            }
        };
        out.locs[v.index()] = Some(loc);
    };

    let mut intervals = Vec::new();
    for v in 0..mf.num_vregs() {
        let vreg = VReg(v as u32);
        if mf.class(vreg) != RegClass::Gpr {
            continue;
        }
        let Some(iv) = live.interval(vreg) else {
            continue;
        };
        if calls.iter().any(|&k| iv.crosses(k)) || regs.is_empty() {
            evict(vreg, &mut out);
        } else {
            intervals.push((iv, vreg));
        }
    }
    intervals.sort_by_key(|(iv, v)| (iv.start, v.0));
    let mut free: Vec<Reg> = regs.iter().rev().copied().collect();
    let mut active: Vec<(u32, VReg, Reg)> = Vec::new();
    for &(iv, v) in &intervals {
        active.retain(|&(end, _, r)| {
            let expired = end < iv.start;
            if expired {
                free.push(r);
            }
            !expired
        });
        if let Some(r) = free.pop() {
            out.locs[v.index()] = Some(VLoc::Reg(r));
            active.push((iv.end, v, r));
            continue;
        }
        // Evict the cheapest-to-evict interval that ends last.
        let key = |end: u32, c: VReg| (policy.is_cheap(mf, c), end, c.0);
        let victim = active
            .iter()
            .map(|&(end, c, _)| (end, c))
            .chain(std::iter::once((iv.end, v)))
            .max_by_key(|&(end, c)| key(end, c))
            .map(|(_, c)| c)
            .unwrap_or(v);
        if victim == v {
            evict(v, &mut out);
        } else {
            let pos = active.iter().position(|&(_, c, _)| c == victim);
            if let Some(pos) = pos {
                let (_, _, r) = active.remove(pos);
                evict(victim, &mut out);
                out.locs[v.index()] = Some(VLoc::Reg(r));
                active.push((iv.end, v, r));
            }
        }
    }
    one_affine_rebuild_per_instruction(mf, &mut out);
    out
}

/// An affine rebuild borrows the second scratch register as a temporary,
/// so an instruction can read at most one value from an affine slot: the
/// others are demoted to per-lane slots (their per-warp slot stays unused).
fn one_affine_rebuild_per_instruction(mf: &MFunction, out: &mut GprAssignment) {
    for (_, inst) in numbered(mf) {
        let mut seen = false;
        let mut uses = inst.uses();
        uses.sort();
        uses.dedup();
        for u in uses {
            if let Some(VLoc::AffineSlot { .. }) = out.locs.get(u.index()).copied().flatten() {
                if seen {
                    out.affine_uniform_part -= 1;
                    out.spilled += 1;
                    out.slots += 1;
                    out.locs[u.index()] = Some(VLoc::Slot(out.slots - 1));
                }
                seen = true;
            }
        }
    }
}
