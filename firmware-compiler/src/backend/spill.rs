//! Divergence-aware spilling (Sampaio 2013, ch. 4): where an evicted value
//! goes, chosen from the divergence analysis ([`crate::divergence`]).
//!
//! Sits between liveness and the linear scan ([`super::regalloc`]): it is a
//! [`SpillPolicy`], selected by `--spill=divergence-aware`
//! ([`SpillMode::DivergenceAware`]); `--spill=plain` keeps
//! [`super::regalloc::DefaultSpillPolicy`] (every value per lane). The
//! rewrite rules of Fig. 4.3, per class of the evicted value `v`:
//!
//! | class | location | reload | store |
//! |---|---|---|---|
//! | `Constant` `0·T + c` | none | `li c` | none |
//! | `Uniform` `0·T + ⊥` | a per-warp slot | `ld.shared` | `st.shared` |
//! | `ConstantAffine` `c1·T + c0` | none | `s2r %tid.x; mul; add` | none |
//! | `Affine` `c1·T + ⊥` | `a0` in a per-warp slot | `ld.shared; s2r; mul; add` | `s2r; mul; sub; st.shared` |
//! | `Divergent` | a per-lane stack slot | `ld.global` | `st.global` |
//!
//! Per-warp slots live in shared memory after the kernel's shared
//! variables: slot `i` of warp `w` (`%warpid`) is at
//! `base + w·(4·slots) + 4·i` (§4.2.1: one partition per warp, so warps
//! never synchronise). The kernel's `.shared` grows by `warps·slots·4`;
//! when that does not fit `shared_memory_bytes`, the remaining values go
//! per lane ([`super::regalloc::GprAssignment::warp_slot_fallbacks`]).
//!
//! **When a per-warp slot is safe.** A per-warp slot is one word for all
//! lanes of a warp, and lanes of one warp can be at different PCs: the
//! min-PC arbiter runs the group at the lowest PC while the others wait
//! elsewhere, possibly *inside* `v`'s live range. A lane reading the slot
//! must find the value of its own latest definition of `v`. That holds
//! when every definition of `v` runs with the whole (living) warp: then
//! every dynamic definition is executed by all lanes together, they all
//! write the same value (uniform), and the slot's latest write is every
//! lane's latest definition, wherever each lane later reads it (the reads
//! may be in partial-warp blocks; lanes that exited read nothing). So the
//! rule is: **every definition of `v` is in a block that never runs with
//! a partial warp** (`DivergenceAnalysis::runs_partial_warp` false), and
//! `v`'s abstract value is the same in every block of its live range
//! (`poly_at`, so a value read after a divergent loop exit is never read
//! from a per-warp slot; such loops run with partial warps anyway). A
//! definition inside a divergent region could be executed by one group
//! while another group, parked at a higher PC inside the live range,
//! still needs an older value (a loop whose iterations the groups run at
//! different times): those values go per lane. This also makes the order
//! question moot: the linear scan walks the layout order (the warp's
//! execution order) and never gives two values the same slot.
//!
//! Further restrictions keep the rewrite within two scratch registers:
//! only the kernel function uses per-warp slots and affine rebuilds (device
//! functions can recurse, and are called by partial warps); an affine
//! value's definitions are ordinary instructions (not block-parameter
//! copies or calls) and at most one affine value is rebuilt per
//! instruction ([`super::regalloc::allocate_gprs`] demotes the others); a
//! per-warp value is never both a source and a destination of one
//! parallel copy (so no swap touches a per-warp slot); rematerialised
//! values are defined only by side-effect-free instructions, which the
//! rewrite drops. Coefficients must fit the 12-bit immediates.

use std::fmt;
use std::str::FromStr;

use concord_isa::instr::{IMM12_MAX, IMM12_MIN};

use super::liveness::Liveness;
use super::mir::{MBlock, MFunction, MOp, RegClass, VReg};
use super::regalloc::{DefaultSpillPolicy, SpillDecision, SpillPolicy};
use crate::divergence::{DivergenceAnalysis, ThreadPoly, ValueClass};
use crate::ir::{Function, Value};

/// `--spill`: where evicted values go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SpillMode {
    /// Constants rematerialised, everything else per lane (the baseline).
    #[default]
    Plain,
    /// Sampaio's rules (this module).
    DivergenceAware,
}

impl SpillMode {
    pub fn name(self) -> &'static str {
        match self {
            SpillMode::Plain => "plain",
            SpillMode::DivergenceAware => "divergence-aware",
        }
    }
}

impl fmt::Display for SpillMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SpillMode {
    type Err = String;
    fn from_str(s: &str) -> Result<SpillMode, String> {
        match s {
            "plain" => Ok(SpillMode::Plain),
            "divergence-aware" => Ok(SpillMode::DivergenceAware),
            _ => Err(format!(
                "unknown spill mode `{s}` (expected plain or divergence-aware)"
            )),
        }
    }
}

/// The most per-warp slots a kernel may use: the per-warp stride
/// `4·slots` must fit the 12-bit `mul` immediate of the address sequence.
pub const MAX_WARP_SLOTS: u32 = (IMM12_MAX as u32) / 4;

fn fits12(v: i32) -> bool {
    (IMM12_MIN..=IMM12_MAX).contains(&v)
}

/// The divergence-aware [`SpillPolicy`]: decisions are computed once per
/// function from the divergence analysis of its (edge-split) IR.
#[derive(Clone, Debug)]
pub struct DivergenceSpillPolicy {
    decisions: Vec<SpillDecision>,
    capacity: u32,
}

impl DivergenceSpillPolicy {
    /// `func` is the edge-split IR function `mf` was selected from (MIR
    /// block `i` is `func.layout[i]`, vreg `i < values` is IR value `i`);
    /// `masked` says, per MIR block, whether it runs under a predication
    /// mask; `warp_slot_capacity` is how many per-warp slots fit the shared
    /// memory (0 for device functions).
    pub fn new(
        mf: &MFunction,
        func: &Function,
        masked: &[bool],
        warp_slot_capacity: u32,
    ) -> DivergenceSpillPolicy {
        let plain = DefaultSpillPolicy::new(mf);
        let analysis = DivergenceAnalysis::compute(func);
        let mut facts = VRegFacts::compute(mf);
        facts.overtaken = overtaken_values(mf, func, &analysis, &facts);
        facts.masked_defs = (0..mf.num_vregs())
            .map(|i| {
                facts.def_blocks[i]
                    .iter()
                    .any(|&b| masked.get(b).copied().unwrap_or(false))
            })
            .collect();
        let n = mf.num_vregs();
        let mut decisions = vec![SpillDecision::PerLaneSlot; n];
        for (i, d) in decisions.iter_mut().enumerate() {
            let v = VReg(i as u32);
            if mf.class(v) != RegClass::Gpr {
                continue;
            }
            *d = match plain.decide(mf, v) {
                SpillDecision::Rematerialize(k) => SpillDecision::Rematerialize(k),
                _ if i < func.values.len() && mf.is_kernel => {
                    decide(&analysis, func, &facts, v, Value::new(i))
                }
                _ => SpillDecision::PerLaneSlot,
            };
        }
        DivergenceSpillPolicy {
            decisions,
            capacity: warp_slot_capacity.min(MAX_WARP_SLOTS),
        }
    }
}

impl SpillPolicy for DivergenceSpillPolicy {
    fn decide(&self, _mf: &MFunction, v: VReg) -> SpillDecision {
        self.decisions
            .get(v.index())
            .copied()
            .unwrap_or(SpillDecision::PerLaneSlot)
    }

    fn is_cheap(&self, mf: &MFunction, v: VReg) -> bool {
        matches!(
            self.decide(mf, v),
            SpillDecision::Rematerialize(_) | SpillDecision::RematAffine { .. }
        )
    }

    fn warp_slot_capacity(&self) -> u32 {
        self.capacity
    }
}

/// What the decision needs to know about each virtual register's
/// definitions and live range in the MIR.
struct VRegFacts {
    /// MIR blocks of the definitions.
    def_blocks: Vec<Vec<usize>>,
    /// MIR blocks where the register is defined, used, live in or live out.
    live_blocks: Vec<Vec<usize>>,
    /// Every definition is a side-effect-free single-result instruction or
    /// a parallel copy (the rewrite can drop it).
    droppable_defs: Vec<bool>,
    /// Every definition is an ordinary instruction (written back from a
    /// scratch register), not a copy, call, division or entry.
    ordinary_defs: Vec<bool>,
    /// Both a source and a destination of one parallel copy.
    copy_cycle_risk: Vec<bool>,
    /// Computed from a `stack_addr`: the IR sees a per-thread address
    /// space, where an address is the same offset in every thread (the
    /// analysis may call it uniform), but the machine value is `sp + off`
    /// with a different `sp` per lane.
    per_lane_address: Vec<bool>,
    /// Defined inside a loop that some lanes may re-enter while others
    /// still wait, further down the code, to read the value (see
    /// [`overtaken_values`]).
    overtaken: Vec<bool>,
    /// Defined in a block that runs under a predication mask: the lanes
    /// whose mask is false run its speculated instructions on stale
    /// operands, so the value is not the same in every lane, and a
    /// per-warp spill store by all of them would keep any lane's copy.
    masked_defs: Vec<bool>,
}

impl VRegFacts {
    fn compute(mf: &MFunction) -> VRegFacts {
        let n = mf.num_vregs();
        let live = Liveness::compute(mf);
        let mut facts = VRegFacts {
            def_blocks: vec![Vec::new(); n],
            live_blocks: vec![Vec::new(); n],
            droppable_defs: vec![true; n],
            ordinary_defs: vec![true; n],
            copy_cycle_risk: vec![false; n],
            per_lane_address: vec![false; n],
            overtaken: vec![false; n],
            masked_defs: vec![false; n],
        };
        let add = |list: &mut Vec<usize>, b: usize| {
            if !list.contains(&b) {
                list.push(b);
            }
        };
        for (b, block) in mf.blocks.iter().enumerate() {
            for inst in &block.insts {
                let defs = inst.defs();
                let single_pure = defs.len() == 1
                    && matches!(
                        inst.op,
                        MOp::Li { .. }
                            | MOp::Alu { .. }
                            | MOp::AluImm { .. }
                            | MOp::S2R { .. }
                            | MOp::LdParam { .. }
                            | MOp::Sel { .. }
                    );
                let copy = matches!(inst.op, MOp::ParallelCopy { .. });
                let ordinary = !matches!(
                    inst.op,
                    MOp::ParallelCopy { .. }
                        | MOp::Call { .. }
                        | MOp::DivRem { .. }
                        | MOp::Entry { .. }
                        | MOp::Return { .. }
                );
                for d in &defs {
                    add(&mut facts.def_blocks[d.index()], b);
                    add(&mut facts.live_blocks[d.index()], b);
                    if !(single_pure || copy) {
                        facts.droppable_defs[d.index()] = false;
                    }
                    if !ordinary {
                        facts.ordinary_defs[d.index()] = false;
                    }
                }
                for u in inst.uses() {
                    add(&mut facts.live_blocks[u.index()], b);
                }
                if let MOp::ParallelCopy { copies } = &inst.op {
                    for &(dst, _) in copies {
                        if copies.iter().any(|&(_, src)| src == dst) {
                            facts.copy_cycle_risk[dst.index()] = true;
                        }
                    }
                }
            }
            for set in [&live.live_in[b], &live.live_out[b]] {
                for v in set.iter() {
                    if v < n {
                        add(&mut facts.live_blocks[v], b);
                    }
                }
            }
        }
        facts.per_lane_address = per_lane_addresses(mf);
        facts
    }
}

/// Values a per-warp slot cannot hold because lanes may overtake each
/// other. The min-PC arbiter runs the lowest PC first, so lanes that take a
/// back edge `x → h` while the warp is split (`x` runs with part of the
/// warp) go through the loop again before the lanes waiting beyond `x`
/// resume: a value defined in `h..=x` and read beyond `x` would be
/// overwritten in its per-warp slot before those lanes read it (a
/// divergent inner loop whose exits reach the outer latch by different
/// blocks, a `continue` in a divergent branch). The code order is the MIR
/// block order, and a loop's blocks are contiguous in it.
fn overtaken_values(
    mf: &MFunction,
    func: &Function,
    analysis: &DivergenceAnalysis,
    facts: &VRegFacts,
) -> Vec<bool> {
    let mut back_edges = Vec::new();
    for x in 0..mf.blocks.len() {
        let partial = func
            .layout
            .get(x)
            .is_some_and(|&b| analysis.runs_partial_warp(b));
        if !partial {
            continue;
        }
        for h in mf.succs(MBlock(x as u32)) {
            if (h.0 as usize) <= x {
                back_edges.push((h.0 as usize, x));
            }
        }
    }
    (0..mf.num_vregs())
        .map(|i| {
            back_edges.iter().any(|&(h, x)| {
                facts.def_blocks[i].iter().any(|d| (h..=x).contains(d))
                    && facts.live_blocks[i].iter().any(|&b| b > x)
            })
        })
        .collect()
}

/// Registers that may hold a value computed from a stack address (a
/// forward data-flow closure over every instruction and copy).
fn per_lane_addresses(mf: &MFunction) -> Vec<bool> {
    let mut tainted = vec![false; mf.num_vregs()];
    loop {
        let mut changed = false;
        for block in &mf.blocks {
            for inst in &block.insts {
                let mut mark = |d: VReg, tainted: &mut Vec<bool>| {
                    if !tainted[d.index()] {
                        tainted[d.index()] = true;
                        changed = true;
                    }
                };
                match &inst.op {
                    MOp::StackAddr { rd, .. } => mark(*rd, &mut tainted),
                    MOp::ParallelCopy { copies } => {
                        for &(dst, src) in copies {
                            if tainted[src.index()] {
                                mark(dst, &mut tainted);
                            }
                        }
                    }
                    _ => {
                        if inst.uses().iter().any(|u| tainted[u.index()]) {
                            for d in inst.defs() {
                                mark(d, &mut tainted);
                            }
                        }
                    }
                }
            }
        }
        if !changed {
            return tainted;
        }
    }
}

/// Sampaio's rule for one evicted IR value of the kernel.
fn decide(
    analysis: &DivergenceAnalysis,
    func: &Function,
    facts: &VRegFacts,
    v: VReg,
    value: Value,
) -> SpillDecision {
    let i = v.index();
    if facts.per_lane_address[i] {
        return SpillDecision::PerLaneSlot;
    }
    let poly = analysis.poly(value);
    // The abstract value must hold wherever the register is live: a value
    // read after a loop that threads leave in different iterations is
    // divergent there (temporal divergence).
    let block_of = |b: usize| func.layout.get(b).copied();
    let same_everywhere = facts.live_blocks[i]
        .iter()
        .all(|&b| block_of(b).is_some_and(|blk| analysis.poly_at(value, blk) == poly));
    if !same_everywhere {
        return SpillDecision::PerLaneSlot;
    }
    let full_warp_defs = !facts.def_blocks[i].is_empty()
        && facts.def_blocks[i]
            .iter()
            .all(|&b| block_of(b).is_some_and(|blk| !analysis.runs_partial_warp(blk)));
    let per_warp_ok =
        full_warp_defs && !facts.copy_cycle_risk[i] && !facts.overtaken[i] && !facts.masked_defs[i];
    let affine_part = |poly: ThreadPoly| {
        let c1 = poly.tid_coefficient().known()?;
        (poly.tid_squared_coefficient().is_zero()
            && fits12(c1)
            && per_warp_ok
            && facts.ordinary_defs[i])
            .then_some(SpillDecision::AffineUniformPart { c1 })
    };
    match poly.class() {
        ValueClass::Constant => match poly.as_constant() {
            Some(c) if facts.droppable_defs[i] => SpillDecision::Rematerialize(c as u32),
            _ if per_warp_ok => SpillDecision::PerWarpSlot,
            _ => SpillDecision::PerLaneSlot,
        },
        ValueClass::Uniform if per_warp_ok => SpillDecision::PerWarpSlot,
        ValueClass::ConstantAffine => {
            let c1 = poly.tid_coefficient().known();
            let c0 = poly.uniform_part().known();
            match (c1, c0) {
                (Some(c1), Some(c0)) if fits12(c1) && fits12(c0) && facts.droppable_defs[i] => {
                    SpillDecision::RematAffine { c1, c0 }
                }
                _ => affine_part(poly).unwrap_or(SpillDecision::PerLaneSlot),
            }
        }
        ValueClass::Affine => affine_part(poly).unwrap_or(SpillDecision::PerLaneSlot),
        ValueClass::Uniform | ValueClass::Divergent => SpillDecision::PerLaneSlot,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_print() {
        for m in [SpillMode::Plain, SpillMode::DivergenceAware] {
            assert_eq!(m.name().parse::<SpillMode>(), Ok(m));
        }
        assert!("per-warp".parse::<SpillMode>().is_err());
        assert_eq!(SpillMode::default(), SpillMode::Plain);
    }
}

/// Sampaio's worked example (Figs. 4.1, 4.2 and 4.4): `avgSquare` without
/// its bounds guard, kernel parameters re-read where they are used
/// (`ld.global [k]` in the figures, `param k` here) and `tid` read where it
/// is used, so the long live ranges are exactly those of the figures:
/// `N`, `i`, `s` and `d`.
#[cfg(test)]
mod sampaio_avg_square {
    use super::*;
    use crate::backend::regalloc::VLoc;
    use crate::backend::{compile_kernel, BackendOptions, CompiledKernel};
    use crate::ir::parse::parse_module;

    /// `N` is `v25` so that, among the intervals that all end at the loop's
    /// latch (`N` and `i`), the linear scan's tie-break (highest number
    /// first) evicts `N` and keeps `i` in a register, as Fig. 4.2 does.
    const AVG_SQUARE: &str = "
kernel @avgSquare(m, v, c) {
block0:
    v0 = iconst 0
    v1 = param 2               ; c
    v2 = imul v1, v1           ; t0 = c * c
    v3 = special tid.x
    v25 = iadd v3, v2          ; N = tid + t0
    jump block1(v3, v0, v0)
block1(v5: i32, v6: i32, v7: i32):   ; i, s, d
    v8 = icmp lt v5, v25
    brif v8, block2, block3
block2:
    v9 = iconst 2
    v10 = ishl v5, v9          ; t1 = i * 4
    v11 = param 0              ; m
    v12 = iadd v11, v10
    v13 = load.global.b32 v12  ; t2 = m[i]
    v14 = iadd v6, v13         ; s = s + t2
    v15 = iconst 1
    v16 = iadd v7, v15         ; d = d + 1
    v17 = param 2              ; c
    v18 = iadd v5, v17         ; i = i + c
    jump block1(v18, v14, v16)
block3:
    v19 = sdiv v6, v7          ; t3 = s / d
    v20 = special tid.x
    v21 = iconst 2
    v22 = ishl v20, v21        ; t4 = tid * 4
    v23 = param 1              ; v
    v24 = iadd v23, v22
    store.global.b32 v19, v24
    return
}
";
    const N: u32 = 25;
    const I: u32 = 5;
    const S: u32 = 6;
    const D: u32 = 7;

    fn compile(regs: u32, spill: SpillMode) -> CompiledKernel {
        let mut m = parse_module(AVG_SQUARE, "avg_square.cir").expect("parses");
        crate::ir::verify::verify_module(&m).expect("verifies");
        crate::layout::layout_module(&mut m).expect("lays out");
        let k = m.func_by_name("avgSquare").expect("kernel");
        let options = BackendOptions {
            regs,
            spill,
            ..BackendOptions::default()
        };
        compile_kernel(&m, k, &options).expect("compiles")
    }

    fn evicted(c: &CompiledKernel) -> Vec<(u32, VLoc)> {
        let mut out: Vec<(u32, VLoc)> = c.kernel_evictions.iter().map(|&(v, l)| (v.0, l)).collect();
        out.sort_by_key(|&(v, _)| v);
        out
    }

    /// Expected by hand. Classes (§3.5): `N = T + c·c` is `1·T + ⊥`
    /// (affine), `i = μ(T, i + c)` is `1·T + ⊥`, `d = μ(0, d + 1)` is
    /// `0·T + ⊥` (uniform), `s = μ(0, s + m[i])` is divergent (a load from
    /// an affine address); `i < N` is `0·T + ⊥`, so no branch is divergent
    /// and no block runs with a partial warp: per-warp slots are allowed.
    /// Budget 7 is the smallest at which exactly `s`, `d` and `N` are
    /// evicted: sp and the two scratch registers leave 4 for values (the
    /// figures' 3 registers plus the one our rewrite needs because reloads
    /// go through the reserved scratch registers); at 8 nothing spills and
    /// at 6 `i` goes too.
    #[test]
    fn figure_4_2_plain_three_local_slots() {
        let c = compile(7, SpillMode::Plain);
        let ev = evicted(&c);
        let vals: Vec<u32> = ev.iter().map(|&(v, _)| v).collect();
        assert_eq!(vals, vec![S, D, N]);
        assert!(ev.iter().all(|&(_, l)| matches!(l, VLoc::Slot(_))));
        assert_eq!(c.stats.per_lane, 3);
        assert_eq!(c.stats.spills, 3);
        assert_eq!(c.stats.warp_slots, 0);
        assert_eq!(c.kernel.shared_bytes, 0);
        // Neighbouring budgets: nothing at 8, `i` as well at 6.
        assert!(evicted(&compile(8, SpillMode::Plain)).is_empty());
        let six: Vec<u32> = evicted(&compile(6, SpillMode::Plain))
            .iter()
            .map(|&(v, _)| v)
            .collect();
        assert_eq!(six, vec![I, S, D, N]);
    }

    /// Fig. 4.4: `s` stays in local memory (rule: per lane), `d` moves to a
    /// shared slot (rule ii), `N` keeps only its uniform part `c·c` in a
    /// shared slot and is rebuilt as `1·T + t` (rule iv): one local slot
    /// per lane instead of three, two per-warp slots.
    #[test]
    fn figure_4_4_divergence_aware_one_local_slot() {
        let c = compile(7, SpillMode::DivergenceAware);
        let ev = evicted(&c);
        assert_eq!(ev.len(), 3, "{ev:?}");
        assert!(matches!(ev[0], (S, VLoc::Slot(0))), "{ev:?}");
        assert!(matches!(ev[1], (D, VLoc::WarpSlot(_))), "{ev:?}");
        assert!(
            matches!(ev[2], (N, VLoc::AffineSlot { c1: 1, .. })),
            "{ev:?}"
        );
        assert_eq!(c.stats.per_lane, 1);
        assert_eq!(c.stats.per_warp_uniform, 1);
        assert_eq!(c.stats.affine_uniform_part, 1);
        assert_eq!(c.stats.remat_affine_constant, 0);
        assert_eq!(c.stats.warp_slots, 2);
        let warps = BackendOptions::default().warps;
        assert_eq!(c.stats.warp_spill_bytes, warps * 2 * 4);
        assert_eq!(c.kernel.shared_bytes, warps * 2 * 4);
        // The rebuild of N: the shared load of its uniform part plus T.
        assert!(c.listing.contains("s2r"), "{}", c.listing);
        assert!(c.listing.contains("ld.shared"), "{}", c.listing);
        assert!(c.listing.contains("st.shared"), "{}", c.listing);
    }
}
