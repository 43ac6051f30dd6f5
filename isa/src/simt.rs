//! The SIMT rules every model of the core shares: which lanes of a warp
//! issue together, where each lane goes after an instruction, which lanes a
//! memory pass serves, how a barrier counts, what `s2r` reads.
//!
//! The functional model ([`crate::func`]) and the cycle models (in
//! `concord-testbench`) call these functions instead of restating the
//! rules; they keep only their own bookkeeping (the functional model) or
//! timing (the cycle models). The RTL in `hdl/` stays an independent
//! implementation of the same rules, compared with the cycle model every
//! cycle. (docs/microarchitecture.md §16.2.)
//!
//! Everything here is a plain function of lane masks (bit `l` = lane `l`)
//! and per-lane arrays of [`MAX_LANES`] entries, so that a model can call
//! it with whatever state it keeps: a warp structure, pipeline registers,
//! a key register loaded one stage earlier.
//!
//! | item | rule | source |
//! |---|---|---|
//! | [`arb_key`], [`arbitrate`], [`branch_group`] | min-(depth:PC) arbitration | docs/isa.md "Arbitration"; Collange §3, §4.1 |
//! | [`Group`], [`advance`] | the cached group, advance and join | Collange §4.1; v2 §5.2, §8, §9.3 |
//! | [`control_effects`] | each active lane's next PC and depth under a control instruction | docs/isa.md "Control instructions", "Control flow" |
//! | [`memory_key`], [`serve`], [`serve_atomic`] | which pending lanes a memory pass serves | Collange §4.2–4.3; v2 §9.1 |
//! | [`store_merge`] | per byte, the highest served lane's store wins | docs/isa.md "Memory accesses" |
//! | [`replay_split`] | a partly served memory pass | v2 §9.3 |
//! | [`barrier_commit`] | barrier and exit accounting | docs/isa.md "Barriers"; v2 §9.4 |
//! | [`thread_index`], [`special_register`] | thread ids and `s2r` | docs/isa.md §1, "Special registers"; v2 §12.4 |
//!
//! The run-time checks of memory accesses and next PCs are in
//! [`crate::checks`], the data operations in [`crate::semantics`].

use crate::config::Arbitration;
use crate::func::TrapCause;
use crate::instr::{Op, Reg, Space, SpecialReg, StoreWidth, MAX_LANES};
use crate::semantics;

const L: usize = MAX_LANES;

/// Lanes of a mask, lowest first.
#[inline(always)]
fn lanes_of(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let lane = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            lane
        })
    })
}

// ---------------------------------------------------------------------------
// Arbitration

/// The branch-mode arbitration key of a lane at `pc` and call depth `depth`
/// (docs/isa.md "Arbitration"): smaller keys win.
///
/// * `depth_pc`: `(max_depth − depth, pc)` compared lexicographically, so
///   the deepest call goes first and the lowest PC breaks ties (Collange
///   §3: the minimal stack pointer, then the minimal PC).
/// * `pc_only`: the PC alone.
///
/// The PC takes the low 32 bits, the inverted depth the bits above. The
/// hardware packs the same order into its narrower keys (docs/microarchitecture.md §9.1);
/// only the order matters, never the packing.
#[inline(always)]
pub fn arb_key(policy: Arbitration, max_depth: u32, depth: u32, pc: u32) -> u64 {
    match policy {
        Arbitration::DepthPc => u64::from(max_depth - depth) << 32 | u64::from(pc),
        Arbitration::PcOnly => u64::from(pc),
    }
}

/// The PC of a key made by [`arb_key`].
#[inline(always)]
pub fn key_pc(key: u64) -> u32 {
    key as u32
}

/// The min-key reduction (Collange §4.1, v2 §9.1): the smallest key among
/// the `valid` lanes and the mask of the valid lanes holding it, as
/// `(min, sel)`. With no valid lane: `(u64::MAX, 0)`.
///
/// `key(l)` is only called for valid lanes. The hardware compares pairwise
/// in a tree, lower lane on the left, keeping both on ties; the result is
/// the same set as this scan.
#[inline(always)]
pub fn arbitrate(valid: u32, mut key: impl FnMut(usize) -> u64) -> (u64, u32) {
    let mut min = u64::MAX;
    let mut sel = 0u32;
    for lane in lanes_of(valid) {
        let k = key(lane);
        if k < min {
            min = k;
            sel = 1 << lane;
        } else if k == min {
            sel |= 1 << lane;
        }
    }
    (min, sel)
}

/// The lanes that issue together, cached between arbitrations (v2 §5.1,
/// §5.2): `mask` holds the lanes, `pc` their common PC and `depth` their
/// common call depth (used by the join under `depth_pc`; 0 and unused
/// under `pc_only`, where a group may mix depths).
///
/// **Invariant of the cached group.** For a lane in `mask` the model's
/// stored per-lane PC may be stale and the lane's PC is `pc`; for every
/// other lane the stored PC is exact. Models write a lane's stored PC when
/// it leaves the group or a control instruction sets it
/// ([`Group::write_back`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Group {
    pub mask: u32,
    pub pc: u32,
    pub depth: u32,
}

impl Group {
    /// Lane `lane`'s PC, from the group for its lanes, from `stored`
    /// otherwise.
    #[inline(always)]
    pub fn lane_pc(&self, stored: &[u32; L], lane: usize) -> u32 {
        if self.mask >> lane & 1 == 1 {
            self.pc
        } else {
            stored[lane]
        }
    }

    /// Every lane's PC (see [`Group::lane_pc`]).
    pub fn lane_pcs(&self, stored: &[u32; L]) -> [u32; L] {
        let mut pcs = *stored;
        self.write_back(&mut pcs);
        pcs
    }

    /// Writes the group's PC into its lanes' stored PCs, making them exact.
    #[inline(always)]
    pub fn write_back(&self, stored: &mut [u32; L]) {
        for lane in lanes_of(self.mask) {
            stored[lane] = self.pc;
        }
    }
}

/// Branch-mode arbitration of a warp (docs/isa.md "Arbitration"): the
/// group of the `schedulable` lanes (alive and not waiting) with the
/// minimal [`arb_key`], lane `l` being at `pcs[l]` (exact PCs) and depth
/// `depths[l]`. With no schedulable lane, the empty group (all zero).
pub fn branch_group(
    policy: Arbitration,
    max_depth: u32,
    schedulable: u32,
    pcs: &[u32; L],
    depths: &[u32; L],
) -> Group {
    let (min, mask) = arbitrate(schedulable, |lane| {
        arb_key(policy, max_depth, depths[lane], pcs[lane])
    });
    if mask == 0 {
        return Group::default();
    }
    let depth = match policy {
        Arbitration::DepthPc => max_depth - (min >> 32) as u32,
        Arbitration::PcOnly => 0,
    };
    Group {
        mask,
        pc: key_pc(min),
        depth,
    }
}

/// *Advance* after an instruction whose active lanes all continue at
/// `pc + 1` (a non-control instruction, or a memory instruction whose last
/// pass served its last pending lane): the group moves to `pc + 1`, and
/// every other schedulable lane whose stored PC is `pc + 1` joins it, under
/// `depth_pc` only if its depth is the group's (Collange §4.1: the common
/// PC follows the minimal PC without a new arbitration; v2 §8 "Join").
///
/// A lane waiting at `pc + 1` had a larger key than the group only by its
/// PC, so after the move it holds the minimal key too: the result is what
/// a full arbitration would select, for the cost of one comparison per
/// lane.
#[inline(always)]
pub fn advance(
    group: &Group,
    stored_pcs: &[u32; L],
    depths: &[u32; L],
    schedulable: u32,
    policy: Arbitration,
) -> Group {
    let pc = group.pc + 1;
    let mut mask = group.mask;
    for lane in lanes_of(schedulable & !group.mask) {
        if stored_pcs[lane] == pc && (policy == Arbitration::PcOnly || depths[lane] == group.depth)
        {
            mask |= 1 << lane;
        }
    }
    Group {
        mask,
        pc,
        depth: group.depth,
    }
}

// ---------------------------------------------------------------------------
// Control instructions

/// What [`control_effects`] needs of one issue of a control instruction.
#[derive(Clone, Copy, Debug)]
pub struct ControlIssue<'a> {
    /// The instruction (`bra`, `bra.none/any/all`, `jmp`, `call`, `callr`,
    /// `ret`, `bar.sync` or `exit`).
    pub op: Op,
    /// Its PC (the group's).
    pub pc: u32,
    /// The active lanes (the group).
    pub active: u32,
    /// The executing lanes: active lanes whose guard holds.
    pub exec: u32,
    /// Each lane's value of the register operand (`jmp`, `callr`, `ret`:
    /// the target); ignored by the other instructions.
    pub operand: &'a [u32; L],
    /// The predicate source of `bra.none/any/all` as a lane mask, negation
    /// applied; ignored by the other instructions.
    pub pred: u32,
    /// Each lane's call depth before the instruction.
    pub depths: &'a [u32; L],
    /// `2^call_depth_bits − 1`.
    pub max_depth: u32,
    /// The program's length in words: no lane's next PC may reach it.
    pub code_len: u32,
}

/// What a control instruction does to the lanes of its warp
/// ([`control_effects`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneEffects {
    /// Each active lane's next PC (an exiting lane's entry is `pc + 1`,
    /// which nothing reads again). Entries of inactive lanes are `pc + 1`
    /// and meaningless.
    pub next_pc: [u32; L],
    /// Each lane's call depth after the instruction: the executing lanes
    /// of `call`/`callr` one deeper, of `ret` one shallower, every other
    /// lane unchanged.
    pub depth: [u32; L],
    /// Lanes that exit (the executing lanes of `exit`).
    pub exits: u32,
    /// Lanes that start waiting at the barrier (the executing lanes of
    /// `bar.sync`).
    pub waits: u32,
    /// `call`/`callr`: the register written in the executing lanes and its
    /// value, `pc + 1` as a 32-bit number.
    pub link: Option<(Reg, u32)>,
    /// `bra.none/any/all`: whether the branch is taken.
    pub taken: Option<bool>,
    /// `bra`, `jmp`, `call`, `callr`, `ret`: the active lanes leave with
    /// different (PC, depth) pairs (counted in `divergent_branches`).
    pub divergent: bool,
}

/// The effect of a control instruction on every lane of its warp
/// (docs/isa.md "Control instructions", "Control flow", "The next PC",
/// "Order of the checks"). Executing lanes do what the instruction says;
/// the other active lanes go to `pc + 1`, except under a taken consensual
/// branch, where every active lane goes to the target.
///
/// Checks, in this order, before anything changes: `call`/`callr` with an
/// executing lane already at `max_depth` (*call depth overflow*), `ret`
/// with an executing lane at depth 0, then every active lane that does not
/// exit continuing at a PC at or beyond `code_len`
/// ([`crate::checks::check_next_pcs`]). A failed check gives the faulting
/// lanes and the cause, as the checks of [`crate::checks`] do.
///
/// # Panics
/// If `op` is not a control instruction.
pub fn control_effects(issue: &ControlIssue<'_>) -> Result<LaneEffects, (u32, TrapCause)> {
    let ControlIssue {
        op,
        pc,
        active,
        exec,
        operand,
        pred,
        depths,
        max_depth,
        code_len,
    } = *issue;
    let executing_where = |test: &dyn Fn(u32) -> bool| {
        lanes_of(exec)
            .filter(|&lane| test(depths[lane]))
            .fold(0u32, |mask, lane| mask | 1 << lane)
    };
    match op {
        Op::Call { .. } | Op::CallR { .. } => {
            let over = executing_where(&|depth| depth >= max_depth);
            if over != 0 {
                return Err((over, TrapCause::CallDepthOverflow { max: max_depth }));
            }
        }
        Op::Ret { .. } => {
            let at_zero = executing_where(&|depth| depth == 0);
            if at_zero != 0 {
                return Err((at_zero, TrapCause::ReturnAtDepthZero));
            }
        }
        _ => {}
    }

    let fall_through = pc + 1;
    let mut effects = LaneEffects {
        next_pc: [fall_through; L],
        depth: *depths,
        exits: 0,
        waits: 0,
        link: None,
        taken: None,
        divergent: false,
    };
    let mut per_lane = true;
    match op {
        Op::Bra { target } => {
            for lane in lanes_of(exec) {
                effects.next_pc[lane] = target;
            }
        }
        Op::Call { rd, target } => {
            for lane in lanes_of(exec) {
                effects.next_pc[lane] = target;
                effects.depth[lane] += 1;
            }
            effects.link = Some((rd, fall_through));
        }
        Op::Jmp { .. } => {
            for lane in lanes_of(exec) {
                effects.next_pc[lane] = operand[lane];
            }
        }
        Op::CallR { rd, .. } => {
            // The target was read before the link is written: `callr r1, r1`.
            for lane in lanes_of(exec) {
                effects.next_pc[lane] = operand[lane];
                effects.depth[lane] += 1;
            }
            effects.link = Some((rd, fall_through));
        }
        Op::Ret { .. } => {
            for lane in lanes_of(exec) {
                effects.next_pc[lane] = operand[lane];
                effects.depth[lane] -= 1;
            }
        }
        Op::BraCons { kind, target, .. } => {
            per_lane = false;
            let taken = semantics::consensus_taken(kind, exec, pred);
            if taken {
                effects.next_pc = [target; L];
            }
            effects.taken = Some(taken);
        }
        Op::Bar => {
            per_lane = false;
            effects.waits = exec;
        }
        Op::Exit => {
            per_lane = false;
            effects.exits = exec;
        }
        _ => panic!("control_effects of a non-control instruction: {op:?}"),
    }

    let moving = active & !effects.exits;
    crate::checks::check_next_pcs(code_len, moving, &effects.next_pc)?;

    if per_lane && active != 0 {
        let first = active.trailing_zeros() as usize;
        let leaves = |lane: usize| (effects.next_pc[lane], effects.depth[lane]);
        effects.divergent = lanes_of(active).any(|lane| leaves(lane) != leaves(first));
    }
    Ok(effects)
}

// ---------------------------------------------------------------------------
// Memory passes

/// The memory-mode key of a lane's load or store at `addr` (Collange §4.2:
/// the arbiter serves the lanes of one cache line per pass; v2 §9.1):
///
/// * global: the line, `addr / line_bytes`;
/// * shared: the bank row of the word, `(addr / 4) / banks` (lanes of one
///   row hit distinct banks, or the same word, which is broadcast).
///
/// Atomics are not served by key but one lane per pass ([`serve_atomic`]).
#[inline(always)]
pub fn memory_key(space: Space, addr: u32, line_bytes: u32, banks: u32) -> u64 {
    match space {
        Space::Global => u64::from(addr / line_bytes),
        Space::Shared => u64::from((addr >> 2) / banks),
    }
}

/// The lanes a load or store pass serves: the `pending` lanes whose key
/// ([`memory_key`]) is minimal. The others replay the instruction.
#[inline(always)]
pub fn serve(pending: u32, key: impl FnMut(usize) -> u64) -> u32 {
    arbitrate(pending, key).1
}

/// The lane an atomic pass serves: the lowest pending lane. The ISA applies
/// a warp's atomics one lane after another in lane order (docs/isa.md
/// "Memory accesses"), and atomics at different addresses are independent,
/// so serving by lane alone is that order (v2 §9.1). 0 when none pends.
#[inline(always)]
pub fn serve_atomic(pending: u32) -> u32 {
    pending & pending.wrapping_neg()
}

/// The bytes a store writes: for every `served` lane `l`, the `width`
/// low bytes of `data[l]` at `addrs[l]`, little-endian. Where lanes
/// overlap, the highest served lane's byte remains (docs/isa.md "Memory
/// accesses": the lanes act in lane order).
///
/// `write(addr, byte)` is called lanes lowest first, bytes in address
/// order, so a caller that applies the calls in order, to memory or to a
/// line buffer, ends with exactly the merged store.
#[inline(always)]
pub fn store_merge(
    served: u32,
    addrs: &[u32; L],
    data: &[u32; L],
    width: StoreWidth,
    mut write: impl FnMut(u32, u8),
) {
    let bytes = width.bytes();
    for lane in lanes_of(served) {
        let value = semantics::store_truncate(width, data[lane]);
        for j in 0..bytes {
            write(addrs[lane].wrapping_add(j), (value >> (8 * j)) as u8);
        }
    }
}

/// A memory pass that left lanes pending (v2 §9.3): returns
/// `(group, leaving)`. The group is the still-pending lanes, which replay
/// the instruction at the same PC (they hold the minimal key: every other
/// schedulable lane had a larger key or has just moved on). Every other
/// active lane (the served ones and, on a first pass, the guard-false ones)
/// leaves the group and continues at `pc + 1`; its stored PC must be
/// written then. With nothing pending the group advances instead
/// ([`advance`]).
#[inline(always)]
pub fn replay_split(active: u32, pending_after: u32) -> (u32, u32) {
    (pending_after, active & !pending_after)
}

// ---------------------------------------------------------------------------
// Barriers

/// A change of a block's barrier accounting, committed by one issue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockEvent {
    /// `bar.sync`: this many threads (the executing lanes) arrive.
    Arrive(u32),
    /// `exit`: this many threads exit.
    Exit(u32),
}

/// The block's barrier accounting after an event ([`barrier_commit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BarrierOutcome {
    /// Threads waiting at the barrier (0 after a release).
    pub arrived: u32,
    /// Threads that have exited.
    pub exited: u32,
    /// Every thread of the block waited: all waiting lanes of the block
    /// become schedulable again (and need a new arbitration).
    pub release: bool,
    /// Every thread that has not exited waits, and some have exited: the
    /// barrier can never complete (trap 7).
    pub never_completes: bool,
    /// Every thread has exited: the block is done.
    pub retire: bool,
}

/// Barrier and exit accounting (docs/isa.md "Barriers", v2 §9.4). The
/// barrier counts threads, not warps: lanes of one warp may arrive at
/// different times and at different `bar.sync` instructions. `arrived` and
/// `exited` are the block's counts before the event, `threads` the block's
/// thread count.
pub fn barrier_commit(
    arrived: u32,
    exited: u32,
    threads: u32,
    event: BlockEvent,
) -> BarrierOutcome {
    let (arrived, exited) = match event {
        BlockEvent::Arrive(n) => (arrived + n, exited),
        BlockEvent::Exit(n) => (arrived, exited + n),
    };
    let release = arrived == threads && threads != 0;
    BarrierOutcome {
        arrived: if release { 0 } else { arrived },
        exited,
        release,
        never_completes: !release && arrived > 0 && exited > 0 && arrived + exited == threads,
        retire: exited == threads,
    }
}

// ---------------------------------------------------------------------------
// Thread ids and special registers

/// `(tid.x, tid.y, tid.z)` of the thread with linear id `tid` in a block
/// of `block_dim` threads (docs/isa.md §1): x fastest. A zero dimension,
/// which no launch has, gives 0.
#[inline(always)]
pub fn thread_index(tid: u32, block_dim: [u32; 3]) -> [u32; 3] {
    let [nx, ny, _] = block_dim;
    [
        tid.checked_rem(nx).unwrap_or(0),
        tid.checked_div(nx)
            .unwrap_or(0)
            .checked_rem(ny)
            .unwrap_or(0),
        tid.checked_div(nx.wrapping_mul(ny)).unwrap_or(0),
    ]
}

/// What `s2r` can read for one lane (docs/isa.md "Special registers", v2
/// §12.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ThreadCtx {
    /// `%tid.x/y/z` ([`thread_index`]).
    pub tid: [u32; 3],
    /// `%tid`, the linear thread id in the block: `warp × lanes + lane`.
    pub tid_linear: u32,
    pub lane: u32,
    /// `%warpid`: the warp's index within its block.
    pub warp: u32,
    /// `%nwarps`: warps the block occupies, `ceil(threads / lanes)`.
    pub nwarps: u32,
    /// `%warpsize`: the core's lanes per warp.
    pub warp_size: u32,
    pub block_dim: [u32; 3],
    pub block_id: [u32; 3],
    pub grid_dim: [u32; 3],
    /// The model's time (`%clock`, `%clockhi`): issues before this one in
    /// the functional model, cycles in the timed models.
    pub clock: u64,
}

/// The value of special register `sreg` for the lane of `ctx`.
#[inline(always)]
pub fn special_register(sreg: SpecialReg, ctx: &ThreadCtx) -> u32 {
    match sreg {
        SpecialReg::TidX => ctx.tid[0],
        SpecialReg::TidY => ctx.tid[1],
        SpecialReg::TidZ => ctx.tid[2],
        SpecialReg::TidLinear => ctx.tid_linear,
        SpecialReg::LaneId => ctx.lane,
        SpecialReg::NtidX => ctx.block_dim[0],
        SpecialReg::NtidY => ctx.block_dim[1],
        SpecialReg::NtidZ => ctx.block_dim[2],
        SpecialReg::CtaidX => ctx.block_id[0],
        SpecialReg::CtaidY => ctx.block_id[1],
        SpecialReg::CtaidZ => ctx.block_id[2],
        SpecialReg::NctaidX => ctx.grid_dim[0],
        SpecialReg::NctaidY => ctx.grid_dim[1],
        SpecialReg::NctaidZ => ctx.grid_dim[2],
        SpecialReg::WarpId => ctx.warp,
        SpecialReg::NWarps => ctx.nwarps,
        SpecialReg::WarpSize => ctx.warp_size,
        SpecialReg::ClockLo => ctx.clock as u32,
        SpecialReg::ClockHi => (ctx.clock >> 32) as u32,
    }
}

#[cfg(test)]
mod tests {
    //! Expected values are worked out by hand from docs/isa.md and
    //! Collange's paper (`papers/collange-2011-stackless-simt-reconvergence.txt`),
    //! as the comments show.

    use super::*;
    use crate::instr::{Consensus, Pred, PredSrc};

    /// Per-lane array from the first lanes' values, the rest 0.
    fn lanes(values: &[u32]) -> [u32; L] {
        let mut a = [0; L];
        a[..values.len()].copy_from_slice(values);
        a
    }

    fn reg(index: u8) -> Reg {
        Reg::new(index).expect("a register")
    }

    /// A control issue of `op` at `pc` with 4-bit `call_depth_bits`
    /// (`max_depth` 15) in a program of 100 words.
    fn issue<'a>(
        op: Op,
        pc: u32,
        active: u32,
        exec: u32,
        operand: &'a [u32; L],
        depths: &'a [u32; L],
    ) -> ControlIssue<'a> {
        ControlIssue {
            op,
            pc,
            active,
            exec,
            operand,
            pred: 0,
            depths,
            max_depth: 15,
            code_len: 100,
        }
    }

    #[test]
    fn deeper_calls_win_under_depth_pc_and_lower_pcs_under_pc_only() {
        // Collange Listing 1: `if (c) f();` with f above its call site. Lanes
        // 0 and 1 are inside f at pc 20, depth 1; lanes 2 and 3 have skipped
        // the call and wait at the join, pc 5, depth 0.
        let pcs = lanes(&[20, 20, 5, 5]);
        let depths = lanes(&[1, 1, 0, 0]);
        // depth_pc: keys (14, 20) < (15, 5): f runs to its end first.
        let deep_first = branch_group(Arbitration::DepthPc, 15, 0b1111, &pcs, &depths);
        assert_eq!(
            deep_first,
            Group {
                mask: 0b0011,
                pc: 20,
                depth: 1
            }
        );
        // pc_only: the join point at 5 runs first (the failure of Listing 1).
        let lowest_first = branch_group(Arbitration::PcOnly, 15, 0b1111, &pcs, &depths);
        assert_eq!(lowest_first.mask, 0b1100);
        assert_eq!(lowest_first.pc, 5);
        // Unschedulable lanes never win.
        let without_f = branch_group(Arbitration::DepthPc, 15, 0b1100, &pcs, &depths);
        assert_eq!(
            (without_f.mask, without_f.pc, without_f.depth),
            (0b1100, 5, 0)
        );
        assert_eq!(
            branch_group(Arbitration::DepthPc, 15, 0, &pcs, &depths),
            Group::default()
        );
    }

    #[test]
    fn keys_order_depth_before_pc_and_arbitrate_keeps_ties() {
        assert_eq!(arb_key(Arbitration::DepthPc, 15, 2, 7), 13 << 32 | 7);
        assert_eq!(arb_key(Arbitration::PcOnly, 15, 2, 7), 7);
        assert!(
            arb_key(Arbitration::DepthPc, 15, 3, 900) < arb_key(Arbitration::DepthPc, 15, 2, 7)
        );
        assert_eq!(key_pc(13 << 32 | 7), 7);
        let keys = [5u64, 3, 3, 1, 3];
        assert_eq!(arbitrate(0b10111, |l| keys[l]), (3, 0b10110));
        assert_eq!(arbitrate(0b11111, |l| keys[l]), (1, 0b01000));
        assert_eq!(arbitrate(0, |l| keys[l]), (u64::MAX, 0));
    }

    #[test]
    fn collange_table_2_if_then_else_reconverges_at_d() {
        // Collange Table 2, 4 lanes, c false in lanes 2 and 3:
        //   1 A; 2 if(!c) br 5; 3 B; 4 br 6; 5 C; 6 D
        // PC_i per step: 1111, 2222, 3355, 4455, 6655, 6666, 7777.
        let policy = Arbitration::DepthPc;
        let depths = [0; L];
        let no_operand = [0; L];
        let mut stored = lanes(&[1, 1, 1, 1]);
        let all = 0b1111;

        let group = branch_group(policy, 15, all, &stored, &depths);
        assert_eq!((group.mask, group.pc), (all, 1));
        // A: everyone at 2.
        let group = advance(&group, &stored, &depths, all, policy);
        assert_eq!((group.mask, group.pc), (all, 2));
        // 2: lanes 2, 3 branch to 5, lanes 0, 1 fall through to 3.
        let bra5 = issue(Op::Bra { target: 5 }, 2, all, 0b1100, &no_operand, &depths);
        let effects = control_effects(&bra5).expect("no trap");
        assert!(effects.divergent);
        stored[..4].copy_from_slice(&effects.next_pc[..4]);
        assert_eq!(stored[..4], [3, 3, 5, 5]);
        let group = branch_group(policy, 15, all, &stored, &depths);
        assert_eq!((group.mask, group.pc), (0b0011, 3));
        // B: lanes 0, 1 at 4; lanes 2, 3 at 5 do not join.
        let group = advance(&group, &stored, &depths, all, policy);
        assert_eq!((group.mask, group.pc), (0b0011, 4));
        // 4: lanes 0, 1 both go to 6, together: not divergent.
        let bra6 = issue(
            Op::Bra { target: 6 },
            4,
            0b0011,
            0b0011,
            &no_operand,
            &depths,
        );
        let effects = control_effects(&bra6).expect("no trap");
        assert!(!effects.divergent);
        stored[0] = effects.next_pc[0];
        stored[1] = effects.next_pc[1];
        assert_eq!(stored[..4], [6, 6, 5, 5]);
        let group = branch_group(policy, 15, all, &stored, &depths);
        assert_eq!((group.mask, group.pc), (0b1100, 5));
        // C: lanes 2, 3 reach 6, where lanes 0, 1 wait: they join.
        let group = advance(&group, &stored, &depths, all, policy);
        assert_eq!((group.mask, group.pc), (all, 6));
        // D: all at 7; the stale entries of lanes 2, 3 are covered by the group.
        let group = advance(&group, &stored, &depths, all, policy);
        assert_eq!(group.lane_pcs(&stored)[..4], [7, 7, 7, 7]);
    }

    #[test]
    fn the_join_compares_depth_only_under_depth_pc() {
        // Group: lane 0 at pc 9, depth 1. Lane 1 waits at 10, depth 1;
        // lane 2 at 10, depth 0; lane 3 at 10 but waiting at a barrier.
        let group = Group {
            mask: 0b0001,
            pc: 9,
            depth: 1,
        };
        let stored = lanes(&[0, 10, 10, 10]);
        let depths = lanes(&[1, 1, 0, 1]);
        let joined = advance(&group, &stored, &depths, 0b0111, Arbitration::DepthPc);
        assert_eq!((joined.mask, joined.pc, joined.depth), (0b0011, 10, 1));
        let joined = advance(&group, &stored, &depths, 0b0111, Arbitration::PcOnly);
        assert_eq!(joined.mask, 0b0111);
    }

    #[test]
    fn the_cached_group_covers_its_stale_lanes() {
        let group = Group {
            mask: 0b0110,
            pc: 42,
            depth: 0,
        };
        let mut stored = lanes(&[1, 2, 3, 4]);
        assert_eq!(group.lane_pc(&stored, 0), 1);
        assert_eq!(group.lane_pc(&stored, 2), 42);
        group.write_back(&mut stored);
        assert_eq!(stored[..4], [1, 42, 42, 4]);
    }

    #[test]
    fn call_and_ret_move_the_executing_lanes_and_their_depths() {
        // `call r5, 40` at pc 10, lanes 0 and 1 active, lane 1 guard-false:
        // lane 0 to 40 at depth 1 with r5 = 11, lane 1 to 11 at depth 0.
        let depths = lanes(&[0, 0]);
        let no_operand = [0; L];
        let call = Op::Call {
            rd: reg(5),
            target: 40,
        };
        let effects =
            control_effects(&issue(call, 10, 0b11, 0b01, &no_operand, &depths)).expect("no trap");
        assert_eq!(effects.next_pc[..2], [40, 11]);
        assert_eq!(effects.depth[..2], [1, 0]);
        assert_eq!(effects.link, Some((reg(5), 11)));
        assert!(effects.divergent);
        assert_eq!((effects.exits, effects.waits, effects.taken), (0, 0, None));

        // `ret r5` at 45 by lane 0 (depth 1, r5 = 11): back to 11, depth 0;
        // lane 1 (inactive) keeps its depth.
        let depths = lanes(&[1, 0]);
        let operand = lanes(&[11, 99]);
        let ret = Op::Ret { rs: reg(5) };
        let effects =
            control_effects(&issue(ret, 45, 0b01, 0b01, &operand, &depths)).expect("no trap");
        assert_eq!(effects.next_pc[0], 11);
        assert_eq!(effects.depth[..2], [0, 0]);
        assert!(!effects.divergent);

        // `callr r1, r1`: the target is r1 as read, the link pc + 1.
        let operand = lanes(&[70, 71]);
        let callr = Op::CallR {
            rd: reg(1),
            rs: reg(1),
        };
        let effects =
            control_effects(&issue(callr, 3, 0b11, 0b11, &operand, &[0; L])).expect("no trap");
        assert_eq!(effects.next_pc[..2], [70, 71]);
        assert_eq!(effects.link, Some((reg(1), 4)));
        assert!(effects.divergent);
    }

    #[test]
    fn own_checks_come_before_the_next_pc_check() {
        let no_operand = [0; L];
        // Depth 15 is the maximum of 4-bit depths: lane 1 overflows.
        let depths = lanes(&[3, 15]);
        let call = Op::Call {
            rd: reg(1),
            target: 40,
        };
        assert_eq!(
            control_effects(&issue(call, 10, 0b11, 0b11, &no_operand, &depths)),
            Err((0b10, TrapCause::CallDepthOverflow { max: 15 }))
        );
        // `ret` at depth 0 through a target outside the program: the depth
        // check reports first.
        let operand = lanes(&[500]);
        let ret = Op::Ret { rs: reg(2) };
        assert_eq!(
            control_effects(&issue(ret, 10, 0b1, 0b1, &operand, &[0; L])),
            Err((0b1, TrapCause::ReturnAtDepthZero))
        );
        // `jmp` to 0xffffffff by lane 2: all 32 bits reported.
        let operand = lanes(&[5, 6, u32::MAX]);
        let jmp = Op::Jmp { rs: reg(2) };
        assert_eq!(
            control_effects(&issue(jmp, 10, 0b111, 0b111, &operand, &[0; L])),
            Err((
                0b100,
                TrapCause::NextPcOutOfRange {
                    target: u32::MAX,
                    len: 100
                }
            ))
        );
    }

    #[test]
    fn exit_at_the_last_word_traps_only_for_lanes_that_stay() {
        let no_operand = [0; L];
        // pc 99 is the last word: exiting lanes need no next PC.
        let effects = control_effects(&issue(Op::Exit, 99, 0b11, 0b11, &no_operand, &[0; L]))
            .expect("no trap");
        assert_eq!(effects.exits, 0b11);
        assert!(!effects.divergent);
        // Lane 1 is guard-false and would continue at 100.
        assert_eq!(
            control_effects(&issue(Op::Exit, 99, 0b11, 0b01, &no_operand, &[0; L])),
            Err((
                0b10,
                TrapCause::NextPcOutOfRange {
                    target: 100,
                    len: 100
                }
            ))
        );
    }

    #[test]
    fn consensual_branches_move_every_active_lane_together() {
        let no_operand = [0; L];
        let cons = |kind| Op::BraCons {
            kind,
            p: PredSrc::new(Pred::new(1).expect("p1"), false),
            target: 50,
        };
        // No voter (every active lane guard-false): `none` and `all` are
        // taken, `any` is not.
        let none = control_effects(&issue(
            cons(Consensus::None),
            7,
            0b111,
            0,
            &no_operand,
            &[0; L],
        ))
        .expect("no trap");
        assert_eq!(none.taken, Some(true));
        assert_eq!(none.next_pc[..3], [50, 50, 50]);
        assert!(!none.divergent);
        let any = control_effects(&issue(
            cons(Consensus::Any),
            7,
            0b111,
            0,
            &no_operand,
            &[0; L],
        ))
        .expect("no trap");
        assert_eq!(any.taken, Some(false));
        assert_eq!(any.next_pc[..3], [8, 8, 8]);
        // Voters 0 and 1, p1 true in lane 1 only: `any` taken, `all` not;
        // lane 2 (guard-false) goes with them either way.
        let mut voted = issue(cons(Consensus::Any), 7, 0b111, 0b011, &no_operand, &[0; L]);
        voted.pred = 0b110;
        let any = control_effects(&voted).expect("no trap");
        assert_eq!((any.taken, any.next_pc[2]), (Some(true), 50));
        voted.op = cons(Consensus::All);
        let all = control_effects(&voted).expect("no trap");
        assert_eq!((all.taken, all.next_pc[2]), (Some(false), 8));
    }

    #[test]
    fn bar_sync_waits_only_the_executing_lanes() {
        let effects = control_effects(&issue(Op::Bar, 12, 0b1011, 0b0011, &[0; L], &[0; L]))
            .expect("no trap");
        assert_eq!(effects.waits, 0b0011);
        assert_eq!(effects.next_pc[..4], [13, 13, 13, 13]);
        assert!(!effects.divergent);
    }

    #[test]
    fn memory_passes_serve_one_line_or_row_and_atomics_one_lane() {
        // 32-byte lines: 0x40 and 0x5c are line 2, 0x84 line 4, 0x20 line 1.
        assert_eq!(memory_key(Space::Global, 0x44, 32, 8), 2);
        // 8 banks: word 0x44 / 4 = 17 is in row 17 / 8 = 2.
        assert_eq!(memory_key(Space::Shared, 0x44, 32, 8), 2);
        let addrs = lanes(&[0x40, 0x84, 0x5c, 0x20]);
        let key = |l: usize| memory_key(Space::Global, addrs[l], 32, 8);
        assert_eq!(serve(0b1111, key), 0b1000);
        assert_eq!(serve(0b0111, key), 0b0101);
        assert_eq!(serve(0, key), 0);
        assert_eq!(serve_atomic(0b10100), 0b00100);
        assert_eq!(serve_atomic(0), 0);
    }

    #[test]
    fn the_highest_served_lane_wins_each_byte() {
        // Lanes 0, 1, 3 store words; lanes 0 and 3 at 0x10, lane 1 at 0x14;
        // lane 2 also at 0x10 but not served. Bytes of 0x10: lane 3's.
        let addrs = lanes(&[0x10, 0x14, 0x10, 0x10]);
        let data = lanes(&[0x1111_1111, 0x2222_2222, 0x3333_3333, 0x4443_4241]);
        let mut memory = [0u8; 0x18];
        store_merge(0b1011, &addrs, &data, StoreWidth::B32, |addr, byte| {
            memory[addr as usize] = byte;
        });
        assert_eq!(
            memory[0x10..0x18],
            [0x41, 0x42, 0x43, 0x44, 0x22, 0x22, 0x22, 0x22]
        );
        // A byte store writes the low byte only.
        let mut memory = [0u8; 4];
        store_merge(
            0b1,
            &lanes(&[2]),
            &lanes(&[0xabcd]),
            StoreWidth::B8,
            |addr, byte| {
                memory[addr as usize] = byte;
            },
        );
        assert_eq!(memory, [0, 0, 0xcd, 0]);
    }

    #[test]
    fn a_partly_served_pass_keeps_the_pending_lanes() {
        // Active 0..3, lane 3 guard-false, lane 0 served: 1 and 2 replay.
        assert_eq!(replay_split(0b1111, 0b0110), (0b0110, 0b1001));
    }

    #[test]
    fn barriers_count_threads() {
        // 6 threads, 2 wait, 4 more arrive: release.
        let release = barrier_commit(2, 0, 6, BlockEvent::Arrive(4));
        assert_eq!(
            release,
            BarrierOutcome {
                arrived: 0,
                exited: 0,
                release: true,
                never_completes: false,
                retire: false
            }
        );
        // 2 wait, the other 4 exit: the barrier can never complete.
        let stuck = barrier_commit(2, 0, 6, BlockEvent::Exit(4));
        assert!(stuck.never_completes && !stuck.release && !stuck.retire);
        assert_eq!((stuck.arrived, stuck.exited), (2, 4));
        // 1 waits, 2 arrive, 3 run on.
        let waiting = barrier_commit(1, 0, 6, BlockEvent::Arrive(2));
        assert!(!waiting.release && !waiting.never_completes);
        assert_eq!(waiting.arrived, 3);
        // The last thread exits.
        assert!(barrier_commit(0, 5, 6, BlockEvent::Exit(1)).retire);
    }

    #[test]
    fn thread_ids_run_x_fastest() {
        // Block 4 x 3 x 2: tid 17 = 1 + 4 * (1 + 3 * 1).
        assert_eq!(thread_index(17, [4, 3, 2]), [1, 1, 1]);
        assert_eq!(thread_index(11, [4, 3, 2]), [3, 2, 0]);
        assert_eq!(thread_index(5, [0, 3, 2]), [0, 0, 0]);
        let ctx = ThreadCtx {
            tid: [1, 1, 1],
            tid_linear: 17,
            lane: 1,
            warp: 2,
            nwarps: 3,
            warp_size: 8,
            block_dim: [4, 3, 2],
            block_id: [5, 6, 7],
            grid_dim: [8, 9, 10],
            clock: 0x1_0000_0005,
        };
        assert_eq!(special_register(SpecialReg::TidLinear, &ctx), 17);
        assert_eq!(special_register(SpecialReg::NtidY, &ctx), 3);
        assert_eq!(special_register(SpecialReg::CtaidZ, &ctx), 7);
        assert_eq!(special_register(SpecialReg::NctaidX, &ctx), 8);
        assert_eq!(special_register(SpecialReg::WarpId, &ctx), 2);
        assert_eq!(special_register(SpecialReg::ClockLo, &ctx), 5);
        assert_eq!(special_register(SpecialReg::ClockHi, &ctx), 1);
    }
}
