//! The unified arbiter (docs/microarchitecture.md §3): one min-key reduction
//! tree over the `L` lanes of the current warp, used in branch mode (`ARB`)
//! and in memory mode (`MEM_ARB`); the core muxes the keys.
//!
//! Outputs: `min`, the smallest key among valid lanes; `sel`, the mask of
//! valid lanes whose key equals `min`; `any`, whether some lane is valid.
//! The tree compares pairwise with the lower lane on the left; equal keys
//! keep both masks.

use rust_hdl_core::prelude::*;

/// Key width (§3), from the contract (`concord_uarch::widths`).
pub use concord_uarch::widths::KEY_BITS;

#[derive(LogicBlock)]
pub struct Arbiter {
    /// The cycles that use the tree (`ARB`, `MEM_ARB`); the outputs are 0
    /// otherwise (so that a simulator evaluates the tree only then).
    pub en: Signal<In, bool>,
    pub valid: Vec<Signal<In, bool>>,
    pub key: Vec<Signal<In, Bits<KEY_BITS>>>,
    pub min: Signal<Out, Bits<KEY_BITS>>,
    pub sel: Signal<Out, Bits<32>>,
    pub any: Signal<Out, bool>,
    // Tree nodes in heap order: node h (1 = root, children 2h and 2h+1,
    // leaves L..2L-1 = lanes) is stored at index h-1.
    nv: Vec<Signal<Local, bool>>,
    nk: Vec<Signal<Local, Bits<KEY_BITS>>>,
    nm: Vec<Signal<Local, Bits<32>>>,
    lane_bit: Vec<Constant<Bits<32>>>,
    zero_mask: Constant<Bits<32>>,
    zero_key: Constant<Bits<KEY_BITS>>,
    _n: usize,
    _lanes: usize,
    _lm1: usize,
}

impl Arbiter {
    /// A tree over `lanes` leaves (a power of two, at least 2).
    pub fn new(lanes: usize) -> Self {
        assert!(lanes.is_power_of_two() && (2..=32).contains(&lanes));
        let n = 2 * lanes - 1;
        Arbiter {
            en: Default::default(),
            valid: (0..lanes).map(|_| Default::default()).collect(),
            key: (0..lanes).map(|_| Default::default()).collect(),
            min: Default::default(),
            sel: Default::default(),
            any: Default::default(),
            nv: (0..n).map(|_| Default::default()).collect(),
            nk: (0..n).map(|_| Default::default()).collect(),
            nm: (0..n).map(|_| Default::default()).collect(),
            lane_bit: (0..lanes)
                .map(|l| Constant::new((1u64 << l).into()))
                .collect(),
            zero_mask: Constant::new(0u64.into()),
            zero_key: Constant::new(0u64.into()),
            _n: n,
            _lanes: lanes,
            _lm1: lanes - 1,
        }
    }
}

impl Logic for Arbiter {
    #[hdl_gen]
    fn update(&mut self) {
        for h in 0..self._n {
            self.nv[h].next = false;
            self.nk[h].next = self.zero_key.val();
            self.nm[h].next = self.zero_mask.val();
        }
        if self.en.val() {
            // `lm1` = L - 1, bound by a one-iteration loop so that it can appear
            // in index expressions (rust-hdl evaluates those at generation).
            for lm1 in self._lm1..self._lanes {
                // Leaves: heap index L + l.
                for l in 0..self._lanes {
                    self.nv[lm1 + l].next = self.valid[l].val();
                    self.nk[lm1 + l].next = self.key[l].val();
                    self.nm[lm1 + l].next = self.zero_mask.val();
                    if self.valid[l].val() {
                        self.nm[lm1 + l].next = self.lane_bit[l].val();
                    }
                }
                // Inner nodes, children first: heap index h = L-1-n, stored at
                // h-1; its children 2h and 2h+1 are stored at 2h-1 and 2h.
                for n in 0..self._lm1 {
                    self.nv[lm1 - n - 1].next =
                        self.nv[2 * (lm1 - n) - 1].val() || self.nv[2 * (lm1 - n)].val();
                    if !self.nv[2 * (lm1 - n)].val()
                        || (self.nv[2 * (lm1 - n) - 1].val()
                            && (self.nk[2 * (lm1 - n) - 1].val() < self.nk[2 * (lm1 - n)].val()))
                    {
                        self.nk[lm1 - n - 1].next = self.nk[2 * (lm1 - n) - 1].val();
                        self.nm[lm1 - n - 1].next = self.nm[2 * (lm1 - n) - 1].val();
                    } else if !self.nv[2 * (lm1 - n) - 1].val()
                        || (self.nk[2 * (lm1 - n)].val() < self.nk[2 * (lm1 - n) - 1].val())
                    {
                        self.nk[lm1 - n - 1].next = self.nk[2 * (lm1 - n)].val();
                        self.nm[lm1 - n - 1].next = self.nm[2 * (lm1 - n)].val();
                    } else {
                        self.nk[lm1 - n - 1].next = self.nk[2 * (lm1 - n) - 1].val();
                        self.nm[lm1 - n - 1].next =
                            self.nm[2 * (lm1 - n) - 1].val() | self.nm[2 * (lm1 - n)].val();
                    }
                }
            }
        }
        self.min.next = self.nk[0].val();
        self.sel.next = self.nm[0].val();
        self.any.next = self.nv[0].val();
    }
}
