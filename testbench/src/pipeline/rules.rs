//! The SIMT rules the pipeline applies at A: a stand-in for
//! `concord_isa::simt` (docs/microarchitecture-v2.md §16.2), which is being
//! written on another branch. Each function is the rule as
//! `concord_isa::func` applies it; when `concord_isa::simt` lands, these
//! become calls to it.

use concord_isa::config::Arbitration;

/// The branch-mode key of a lane (§9.1): `(MAXD − depth) : pc` under
/// `depth_pc`, `pc` under `pc_only`.
pub fn arb_key(policy: Arbitration, max_depth: u32, depth: u32, pc: u32) -> u64 {
    match policy {
        Arbitration::DepthPc => ((max_depth - depth) as u64) << 32 | pc as u64,
        Arbitration::PcOnly => pc as u64,
    }
}

/// The min-key tree (§9.1): the smallest key among the `valid` lanes and
/// the valid lanes holding it (`(u64::MAX, 0)` when none is valid).
pub fn arbitrate(valid: u32, key: impl Fn(usize) -> u64) -> (u64, u32) {
    let mut best = u64::MAX;
    let mut sel = 0u32;
    for l in super::lanes_of(valid) {
        let k = key(l);
        if k < best {
            best = k;
            sel = 1 << l;
        } else if k == best {
            sel |= 1 << l;
        }
    }
    (best, sel)
}

/// Lanes that join a group advancing to `new_pc` (§8 "Join"): schedulable
/// lanes outside the group whose stored pc is `new_pc` and (under
/// `depth_pc`) whose depth is the group's.
pub fn join(
    policy: Arbitration,
    others: u32,
    new_pc: u32,
    gdepth: u32,
    pcs: &[u32; 32],
    depths: &[u32; 32],
) -> u32 {
    let mut j = 0;
    for l in super::lanes_of(others) {
        if pcs[l] == new_pc && (policy == Arbitration::PcOnly || depths[l] == gdepth) {
            j |= 1 << l;
        }
    }
    j
}

/// The memory-mode selection (§9.1): the pending lanes on the smallest
/// line or row (`key`), or for atomics the lowest pending lane.
pub fn serve(pending: u32, atomic: bool, key: impl Fn(usize) -> u64) -> u32 {
    if pending == 0 {
        0
    } else if atomic {
        pending & pending.wrapping_neg()
    } else {
        arbitrate(pending, key).1
    }
}
