//! The arbiter's reduction tree against a direct minimum, for every lane
//! count, with random valid masks and keys drawn from a few values (so that
//! ties are common). Evaluated with rust-hdl's simulator.

use concord_hdl::arbiter::KeyTree;

/// The widest tree: 40-bit keys (wider than any the generator makes), 32
/// lanes.
type Arbiter = KeyTree<40, 32>;
use rust_hdl_core::prelude::*;

#[test]
fn arbiter_selects_the_minimal_keys() {
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    for lanes in [4usize, 8, 16, 32] {
        let mut a = Arbiter::new(lanes);
        a.connect_all();
        a.en.next = true;
        for _ in 0..400 {
            let valid = next() as u32 & if lanes == 32 { !0 } else { (1 << lanes) - 1 };
            let spread = 1 + next() % 6;
            let keys: Vec<u64> = (0..lanes)
                .map(|_| (next() % spread) << (next() % 36))
                .collect();
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
            let min = (0..lanes)
                .filter(|l| valid >> l & 1 == 1)
                .map(|l| keys[l])
                .min();
            assert_eq!(a.any.val(), min.is_some());
            if let Some(min) = min {
                let sel = (0..lanes)
                    .filter(|l| valid >> l & 1 == 1 && keys[*l] == min)
                    .fold(0u32, |m, l| m | 1 << l);
                assert_eq!(a.min.val().to_u64(), min, "lanes {lanes}");
                assert_eq!(a.sel.val().to_u32(), sel, "lanes {lanes}");
            } else {
                assert_eq!(a.sel.val().to_u32(), 0);
            }
        }
    }
}
