//! The arbiter's reduction tree against a direct minimum, for every lane
//! count, with random valid masks and keys drawn from a few values (so that
//! ties are common). Evaluated with rust-hdl's simulator.

use concord_hdl::arbiter::KeyTree;

/// The widest tree: 40-bit keys (wider than any the generator makes), 32
/// lanes.
type Arbiter = KeyTree<40, 32>;
use rust_hdl_core::prelude::*;

/// A xorshift64 stream from `seed` (the draws need no quality beyond
/// covering ties and wide keys).
fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// One draw: a valid mask over `lanes` lanes and keys from a few values
/// shifted anywhere in 36 bits, so that ties are common.
fn draw(lanes: usize, next: &mut impl FnMut() -> u64) -> (u32, Vec<u64>) {
    let valid = next() as u32 & if lanes == 32 { !0 } else { (1 << lanes) - 1 };
    let spread = 1 + next() % 6;
    let keys = (0..lanes)
        .map(|_| (next() % spread) << (next() % 36))
        .collect();
    (valid, keys)
}

/// The direct minimum over the valid lanes and the lanes that hold it.
fn direct_minimum(valid: u32, keys: &[u64]) -> Option<(u64, u32)> {
    let lanes = keys.len();
    let min = (0..lanes)
        .filter(|l| valid >> l & 1 == 1)
        .map(|l| keys[l])
        .min()?;
    let sel = (0..lanes)
        .filter(|l| valid >> l & 1 == 1 && keys[*l] == min)
        .fold(0u32, |m, l| m | 1 << l);
    Some((min, sel))
}

#[test]
fn arbiter_selects_the_minimal_keys() {
    let mut next = xorshift(0x2545_f491_4f6c_dd1d);
    for lanes in [4usize, 8, 16, 32] {
        let mut a = Arbiter::new(lanes);
        a.connect_all();
        a.en.next = true;
        for _ in 0..400 {
            let (valid, keys) = draw(lanes, &mut next);
            for (l, key) in keys.iter().enumerate() {
                a.valid[l].next = valid >> l & 1 == 1;
                a.key[l].next = (*key).into();
            }
            for _ in 0..64 {
                a.update_all();
                if !a.has_changed() {
                    break;
                }
            }
            let want = direct_minimum(valid, &keys);
            assert_eq!(a.any.val(), want.is_some());
            if let Some((min, sel)) = want {
                assert_eq!(a.min.val().to_u64(), min, "lanes {lanes}");
                assert_eq!(a.sel.val().to_u32(), sel, "lanes {lanes}");
            } else {
                assert_eq!(a.sel.val().to_u32(), 0);
            }
        }
    }
}

/// Sets `keys` on the matrix `c`, settles it, and pairs each lane's row
/// with the row worked out from the keys themselves: bit `j` set when
/// `key[j] & mask < key[l] & mask`.
fn rows_against_keys<'a, const K: usize, const M: usize>(
    c: &'a mut concord_hdl::arbiter::KeyCompare<K, M>,
    keys: &'a [u64],
    mask: u64,
) -> impl Iterator<Item = (u32, u32)> + 'a {
    for (l, key) in keys.iter().enumerate() {
        c.key[l].next = (*key).into();
    }
    for _ in 0..64 {
        c.update_all();
        if !c.has_changed() {
            break;
        }
    }
    (0..keys.len()).map(move |l| {
        let want = (0..keys.len())
            .filter(|&j| keys[j] & mask < keys[l] & mask)
            .fold(0u32, |m, j| m | 1 << j);
        (c.beats[l].val().to_u32(), want)
    })
}

/// The comparison matrix and the row selection of the core's arbiter
/// (`KeyCompare` on the keys, its rows as `RowSelect`'s input) against a
/// direct minimum, with the same draws as the tree's test; also that the
/// rows are exactly the strict comparisons (each entry checked against the
/// keys) and that a disabled selection outputs 0.
#[test]
fn comparison_matrix_selects_the_minimal_keys() {
    use concord_hdl::arbiter::{KeyCompare, RowSelect};
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
    for lanes in [2usize, 4, 8, 16, 32] {
        let mut c = KeyCompare::<40, 32>::new(lanes);
        let mut s = RowSelect::<40, 32>::new(lanes);
        c.connect_all();
        s.connect_all();
        for round in 0..300 {
            let (valid, keys) = draw(lanes, &mut next);
            for (l, (got, want)) in rows_against_keys(&mut c, &keys, u64::MAX).enumerate() {
                assert_eq!(got, want, "lanes {lanes}, row {l}");
            }
            let en = round % 10 != 9;
            s.en.next = en;
            for (l, key) in keys.iter().enumerate() {
                s.valid[l].next = valid >> l & 1 == 1;
                s.key[l].next = (*key).into();
                s.beats[l].next = c.beats[l].val();
            }
            for _ in 0..64 {
                s.update_all();
                if !s.has_changed() {
                    break;
                }
            }
            if !en {
                assert!(!s.any.val());
                assert_eq!(s.sel.val().to_u32(), 0);
                assert_eq!(s.min.val().to_u64(), 0);
                continue;
            }
            let want = direct_minimum(valid, &keys);
            assert_eq!(s.any.val(), want.is_some());
            match want {
                Some((min, sel)) => {
                    assert_eq!(s.min.val().to_u64(), min, "lanes {lanes}");
                    assert_eq!(s.sel.val().to_u32(), sel, "lanes {lanes}");
                }
                None => {
                    // As the tree: no lane valid, `min` is lane 0's key.
                    assert_eq!(s.sel.val().to_u32(), 0);
                    assert_eq!(s.min.val().to_u64(), keys[0]);
                }
            }
        }
    }
}

/// The comparison matrix over live bits only (`KeyCompare::with_live`, as
/// the core builds it): each row is the strict comparison of the keys
/// ANDed with the mask, whatever the other bits hold. Masks of the core's
/// shapes (a pc field and a depth field with a gap, a line field) and one
/// that uses the top bit (compared unshifted).
#[test]
fn comparison_matrix_compares_the_live_bits() {
    use concord_hdl::arbiter::KeyCompare;
    let mut next = xorshift(0x6a09_e667_f3bc_c909);
    let masks: [u64; 4] = [0x000f_0fff, 0x0000_7fff, 0x00ff_ffff, 0x8000_0001];
    for mask in masks {
        for lanes in [2usize, 8, 16] {
            let mut c = KeyCompare::<32, 32>::with_live(lanes, mask);
            c.connect_all();
            for _ in 0..200 {
                // Live bits from a few values (ties), dead bits random.
                let spread = 1 + next() % 5;
                let keys: Vec<u64> = (0..lanes)
                    .map(|_| {
                        let live = ((next() % spread) * 0x0101_0101_0101) & mask;
                        let dead = next() & !mask & 0xffff_ffff;
                        live | dead
                    })
                    .collect();
                for (l, (got, want)) in rows_against_keys(&mut c, &keys, mask).enumerate() {
                    assert_eq!(got, want, "mask {mask:#x}, lanes {lanes}, row {l}");
                }
            }
        }
    }
}
