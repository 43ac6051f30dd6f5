//! Sequentialising a parallel move (`d_i <- s_i` for all `i` at once).
//!
//! Moves whose destination no other pending move still reads are emitted
//! first; what remains is a set of cycles, each broken by swaps (a swap
//! puts one value in place and the other where the cycle continues), so
//! no temporary location is needed: two general registers swap with three
//! `xor`s, two predicates with three `pxor`s (the lowering in
//! [`super::lower`] expands swaps involving stack slots with the scratch
//! registers).

use super::regalloc::VLoc;

/// A source: a location, or a constant to materialise.
pub type Source = VLoc;

/// One step of the sequence.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Step {
    Move { dst: VLoc, src: Source },
    Swap(VLoc, VLoc),
}

/// Orders `moves` (destinations distinct, never [`VLoc::Remat`]).
pub fn sequentialize(moves: &[(VLoc, Source)]) -> Vec<Step> {
    let mut pending: Vec<(VLoc, Source)> = moves.iter().copied().filter(|(d, s)| d != s).collect();
    let mut out = Vec::new();
    while !pending.is_empty() {
        let free = (0..pending.len()).find(|&i| {
            let d = pending[i].0;
            !pending
                .iter()
                .enumerate()
                .any(|(j, &(_, s))| j != i && s == d)
        });
        if let Some(i) = free {
            let (dst, src) = pending.remove(i);
            out.push(Step::Move { dst, src });
            continue;
        }
        // Only cycles are left (every destination is read by another move,
        // so every source is a location).
        let (d, s) = pending.remove(0);
        out.push(Step::Swap(d, s));
        // `d` now holds its final value and `s` holds `d`'s old value.
        for m in pending.iter_mut() {
            if m.1 == d {
                m.1 = s;
            }
        }
        pending.retain(|(dd, ss)| dd != ss);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use concord_isa::instr::Reg;

    fn r(i: u8) -> VLoc {
        VLoc::Reg(Reg::new(i).unwrap())
    }

    /// Runs the steps on a model of the locations and checks the result.
    fn check(moves: &[(VLoc, Source)]) {
        let mut state: std::collections::HashMap<VLoc, String> = Default::default();
        let name = |l: VLoc| format!("{l:?}");
        for (d, s) in moves {
            state.insert(*d, name(*d));
            state.insert(*s, name(*s));
        }
        let before = state.clone();
        for step in sequentialize(moves) {
            match step {
                Step::Move { dst, src } => {
                    let v = state[&src].clone();
                    state.insert(dst, v);
                }
                Step::Swap(a, b) => {
                    let (va, vb) = (state[&a].clone(), state[&b].clone());
                    state.insert(a, vb);
                    state.insert(b, va);
                }
            }
        }
        for (d, s) in moves {
            assert_eq!(state[d], before[s], "{d:?} <- {s:?}");
        }
    }

    #[test]
    fn chains_cycles_and_fanout() {
        check(&[(r(1), r(2)), (r(2), r(3))]);
        check(&[(r(1), r(2)), (r(2), r(1))]);
        check(&[(r(1), r(2)), (r(2), r(3)), (r(3), r(1)), (r(4), r(1))]);
        check(&[(r(1), r(0)), (r(2), r(0)), (r(0), r(2))]);
        check(&[(r(0), VLoc::Remat(5)), (r(1), r(0)), (VLoc::Slot(0), r(1))]);
        check(&[
            (VLoc::Slot(0), VLoc::Slot(1)),
            (VLoc::Slot(1), VLoc::Slot(0)),
        ]);
    }
}
