//! The unified arbiter (docs/microarchitecture.md §3): one min-key
//! reduction over the lanes of the issuing warp, used in branch mode (`ARB`)
//! and in memory mode (`MEM_ARB`).

/// Smallest key among the `valid` lanes and the mask of the valid lanes
/// holding it (`min`, `sel`). With no valid lane: `(u64::MAX, 0)`.
///
/// The RTL compares pairwise in a tree, lower lane on the left, keeping both
/// on ties; the result is the same set as this linear scan.
#[inline(always)]
pub(super) fn arbitrate(valid: u32, mut key: impl FnMut(usize) -> u64) -> (u64, u32) {
    let mut min = u64::MAX;
    let mut sel = 0u32;
    let mut m = valid;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let k = key(l);
        if k < min {
            min = k;
            sel = 1 << l;
        } else if k == min {
            sel |= 1 << l;
        }
    }
    (min, sel)
}

#[cfg(test)]
mod tests {
    use super::arbitrate;

    #[test]
    fn ties_keep_every_lane_and_invalid_lanes_never_win() {
        let keys = [5u64, 3, 3, 1, 3];
        assert_eq!(arbitrate(0b10111, |l| keys[l]), (3, 0b10110));
        assert_eq!(arbitrate(0b11111, |l| keys[l]), (1, 0b01000));
        assert_eq!(arbitrate(0, |l| keys[l]), (u64::MAX, 0));
    }
}
