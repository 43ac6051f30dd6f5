//! The min-key reduction tree of the arbiter of stage A
//! (docs/microarchitecture.md §9.1, `K`-bit keys from the generator,
//! `L`-bit masks: [`KeyTree`] with the core's widths, instantiated by
//! `v2::acommit`'s users under the module names of §9.1).
//!
//! Ports: `en` (the outputs are 0 otherwise, so that a simulator evaluates
//! the tree only when it is used), per lane `valid[l]` and `key[l]`
//! (`K` bits); outputs `min`, the smallest key among valid lanes; `sel`,
//! the mask of valid lanes whose key equals `min` (`M` bits, lane `l` at
//! bit `l`); `any`, whether some lane is valid. With no valid lane `min`
//! is a don't-care (lane 0's key) and `sel` is 0.
//!
//! The tree compares pairwise with the lower lane on the left; equal keys
//! keep both masks. Each node has two comparators (`right < left`, `left <
//! right`) whose outputs drive the selections directly (§19.4's first
//! mitigation): the key takes the right child when the right is valid and
//! the left is not or is larger; each child's mask is kept by an AND with
//! "the other child is not strictly smaller" and the two are ORed, so a
//! node is one compare level plus an AND-OR, with no priority chain.
//!
//! The core does not use the tree: its chain of three compares was the
//! default core's critical path (§19.4). It uses the comparison matrix
//! instead, in two halves around the key register: [`KeyCompare`] compares
//! every pair of keys where they become known (end of X, or the
//! re-arbitration engine's load), and its rows are registered beside the
//! keys; [`RowSelect`] in A then needs no comparator: a lane is selected
//! when it is valid and no valid lane beats it, and `min` is the selected
//! lanes' key (all equal) by an AND-OR. The results are the tree's,
//! bit for bit (the tests hold both against a direct minimum).

use rust_hdl_core::prelude::*;

/// A min-key tree with `K`-bit keys and `M`-bit lane masks (`M` ≥ lanes).
#[derive(LogicBlock)]
pub struct KeyTree<const K: usize, const M: usize> {
    pub en: Signal<In, bool>,
    pub valid: Vec<Signal<In, bool>>,
    pub key: Vec<Signal<In, Bits<K>>>,
    pub min: Signal<Out, Bits<K>>,
    pub sel: Signal<Out, Bits<M>>,
    pub any: Signal<Out, bool>,
    // Tree nodes in heap order: node h (1 = root, children 2h and 2h+1,
    // leaves L..2L-1 = lanes) is stored at index h-1.
    nv: Vec<Signal<Local, bool>>,
    nk: Vec<Signal<Local, Bits<K>>>,
    nm: Vec<Signal<Local, Bits<M>>>,
    // Per inner node: the left / right child's mask as kept (ANDed) by the node.
    keep_l: Vec<Signal<Local, Bits<M>>>,
    keep_r: Vec<Signal<Local, Bits<M>>>,
    rl: Vec<Signal<Local, bool>>,
    lr: Vec<Signal<Local, bool>>,
    lane_bit: Vec<Constant<Bits<M>>>,
    zero_mask: Constant<Bits<M>>,
    zero_key: Constant<Bits<K>>,
    _n: usize,
    _lanes: usize,
    _lm1: usize,
}

impl<const K: usize, const M: usize> KeyTree<K, M> {
    /// A tree over `lanes` leaves (a power of two, 2..=`M`).
    pub fn new(lanes: usize) -> Self {
        assert!(lanes.is_power_of_two() && lanes >= 2 && lanes <= M && M <= 64);
        let n = 2 * lanes - 1;
        KeyTree {
            en: Default::default(),
            valid: signals(lanes),
            key: signals(lanes),
            min: Default::default(),
            sel: Default::default(),
            any: Default::default(),
            nv: signals(n),
            nk: signals(n),
            nm: signals(n),
            keep_l: signals(lanes - 1),
            keep_r: signals(lanes - 1),
            rl: signals(lanes - 1),
            lr: signals(lanes - 1),
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

impl<const K: usize, const M: usize> Logic for KeyTree<K, M> {
    #[hdl_gen]
    fn update(&mut self) {
        for h in 0..self._n {
            self.nv[h].next = false;
            self.nk[h].next = self.zero_key.val();
            self.nm[h].next = self.zero_mask.val();
        }
        for h in 0..self._lm1 {
            self.keep_l[h].next = self.zero_mask.val();
            self.keep_r[h].next = self.zero_mask.val();
            self.rl[h].next = false;
            self.lr[h].next = false;
        }
        if self.en.val() {
            // `lm1` = L - 1, bound by a one-iteration loop so that it can appear
            // in index expressions (rust-hdl evaluates those at generation).
            for lm1 in self._lm1..self._lanes {
                // Leaves: heap index L + l.
                for l in 0..self._lanes {
                    self.nv[lm1 + l].next = self.valid[l].val();
                    self.nk[lm1 + l].next = self.key[l].val();
                    if self.valid[l].val() {
                        self.nm[lm1 + l].next = self.lane_bit[l].val();
                    }
                }
                // Inner nodes, children first: heap index h = L-1-n, stored at
                // h-1; its children 2h and 2h+1 are stored at 2h-1 and 2h.
                for n in 0..self._lm1 {
                    self.nv[lm1 - n - 1].next =
                        self.nv[2 * (lm1 - n) - 1].val() || self.nv[2 * (lm1 - n)].val();
                    // The node's two comparators (right < left, left < right).
                    self.rl[lm1 - n - 1].next =
                        self.nk[2 * (lm1 - n)].val() < self.nk[2 * (lm1 - n) - 1].val();
                    self.lr[lm1 - n - 1].next =
                        self.nk[2 * (lm1 - n) - 1].val() < self.nk[2 * (lm1 - n)].val();
                    self.nk[lm1 - n - 1].next = self.nk[2 * (lm1 - n) - 1].val();
                    if self.nv[2 * (lm1 - n)].val()
                        && (!self.nv[2 * (lm1 - n) - 1].val() || self.rl[lm1 - n - 1].val())
                    {
                        self.nk[lm1 - n - 1].next = self.nk[2 * (lm1 - n)].val();
                    }
                    // An invalid child's mask is 0, so each keep needs only
                    // the other child's validity and one comparator.
                    if !self.nv[2 * (lm1 - n)].val() || !self.rl[lm1 - n - 1].val() {
                        self.keep_l[lm1 - n - 1].next = self.nm[2 * (lm1 - n) - 1].val();
                    }
                    if !self.nv[2 * (lm1 - n) - 1].val() || !self.lr[lm1 - n - 1].val() {
                        self.keep_r[lm1 - n - 1].next = self.nm[2 * (lm1 - n)].val();
                    }
                    self.nm[lm1 - n - 1].next =
                        self.keep_l[lm1 - n - 1].val() | self.keep_r[lm1 - n - 1].val();
                }
            }
        }
        self.min.next = self.nk[0].val();
        self.sel.next = self.nm[0].val();
        self.any.next = self.nv[0].val();
    }
}

/// The comparison matrix of `lanes` keys: `beats[l]` has bit `j` set when
/// `key[j] < key[l]` over the key's live bits (lane `j` beats lane `l`;
/// never bit `l`). Combinational, for the key register's input side.
///
/// **Live bits.** [`KeyCompare::with_live`] compares only the bits of a
/// mask: the bits in which the keys that can matter differ (the core's
/// keys are zero-extended fields, and a key outside its field traps the
/// pass, §9.1, `ctlpath.rs`). The other bits are ANDed away by a
/// constant, so synthesis trims the compares to the highest live bit
/// (the carry chain ends there, and the chain's length was on stage X's
/// path).
///
/// **One carry chain per ordered pair, nothing after it.** Yosys's
/// `alumacc` merges `a < b` with `b < a` into one subtraction and derives
/// the second from the first's carry and an equality over its sum bits,
/// which puts about five LUT levels after the chain (measured,
/// `hdl/README.md`). The lower triangle (`j < l`) therefore compares the
/// masked keys shifted up by one bit (a constant 0 below, the same order),
/// which `alumacc` sees as other operands, when the mask leaves the top bit
/// free for it (a full-width mask compares unshifted, merged). The diagonal
/// is written and masked by constants, which synthesis removes (rust-hdl
/// cannot condition on loop variables).
#[derive(LogicBlock)]
pub struct KeyCompare<const K: usize, const M: usize> {
    pub key: Vec<Signal<In, Bits<K>>>,
    pub beats: Vec<Signal<Out, Bits<M>>>,
    // Ordered pair (i, j) at i · lanes + j: key[j] < key[i].
    lt: Vec<Signal<Local, bool>>,
    // Each key's live bits, and the same shifted up by `lo_shift`.
    live_key: Vec<Signal<Local, Bits<K>>>,
    up_key: Vec<Signal<Local, Bits<K>>>,
    off_diagonal: Vec<Constant<bool>>,
    // The pair compares the shifted keys (j < i).
    shifted: Vec<Constant<bool>>,
    live: Constant<Bits<K>>,
    lo_shift: Constant<Bits<K>>,
    lane_bit: Vec<Constant<Bits<M>>>,
    zero_mask: Constant<Bits<M>>,
    _lanes: usize,
    _lp1: usize,
}

impl<const K: usize, const M: usize> KeyCompare<K, M> {
    /// The comparisons of `lanes` keys (2..=`M`) over all `K` bits.
    pub fn new(lanes: usize) -> Self {
        let all = if K >= 64 { u64::MAX } else { (1u64 << K) - 1 };
        Self::with_live(lanes, all)
    }

    /// The comparisons of `lanes` keys (2..=`M`) over the bits of `live`
    /// (bits at or above `K` ignored): `beats` as for the keys ANDed with
    /// `live`.
    pub fn with_live(lanes: usize, live: u64) -> Self {
        assert!(lanes >= 2 && lanes <= M && M <= 64 && K <= 64);
        let all = if K >= 64 { u64::MAX } else { (1u64 << K) - 1 };
        let live = live & all;
        let top_free = live >> (K - 1) & 1 == 0;
        KeyCompare {
            key: signals(lanes),
            beats: signals(lanes),
            lt: signals(lanes * lanes),
            live_key: signals(lanes),
            up_key: signals(lanes),
            off_diagonal: (0..lanes * lanes)
                .map(|p| Constant::new(p % lanes != p / lanes))
                .collect(),
            shifted: (0..lanes * lanes)
                .map(|p| Constant::new(p % lanes < p / lanes))
                .collect(),
            live: Constant::new(live.into()),
            lo_shift: Constant::new(u64::from(top_free).into()),
            lane_bit: (0..lanes)
                .map(|l| Constant::new((1u64 << l).into()))
                .collect(),
            zero_mask: Constant::new(0u64.into()),
            _lanes: lanes,
            _lp1: lanes + 1,
        }
    }
}

impl<const K: usize, const M: usize> Logic for KeyCompare<K, M> {
    #[hdl_gen]
    fn update(&mut self) {
        for l in 0..self._lanes {
            self.live_key[l].next = self.key[l].val() & self.live.val();
            self.up_key[l].next = self.live_key[l].val() << self.lo_shift.val();
        }
        // `n` = lanes, bound by a one-iteration loop so that it can appear
        // in index expressions.
        for n in self._lanes..self._lp1 {
            for i in 0..self._lanes {
                self.beats[i].next = self.zero_mask.val();
                for j in 0..self._lanes {
                    self.lt[i * n + j].next = self.live_key[j].val() < self.live_key[i].val();
                    if self.shifted[i * n + j].val() {
                        self.lt[i * n + j].next = self.up_key[j].val() < self.up_key[i].val();
                    }
                    if self.off_diagonal[i * n + j].val() && self.lt[i * n + j].val() {
                        self.beats[i].next = self.beats[i].val() | self.lane_bit[j].val();
                    }
                }
            }
        }
    }
}

/// Stage A's half of the comparison matrix: from each lane's `valid`, `key`
/// and registered row `beats` (as [`KeyCompare`] made it for these keys),
/// the outputs of [`KeyTree`] with the same meaning: `sel`, the valid lanes
/// that no valid lane beats; `min`, their key (lane 0's when no lane is
/// valid, as the tree's); `any`. No comparator: an AND of each row with
/// the valid mask, then an AND-OR of the keys.
#[derive(LogicBlock)]
pub struct RowSelect<const K: usize, const M: usize> {
    pub en: Signal<In, bool>,
    pub valid: Vec<Signal<In, bool>>,
    pub key: Vec<Signal<In, Bits<K>>>,
    pub beats: Vec<Signal<In, Bits<M>>>,
    pub min: Signal<Out, Bits<K>>,
    pub sel: Signal<Out, Bits<M>>,
    pub any: Signal<Out, bool>,
    vmask: Signal<Local, Bits<M>>,
    win: Vec<Signal<Local, bool>>,
    lane_bit: Vec<Constant<Bits<M>>>,
    zero_mask: Constant<Bits<M>>,
    zero_key: Constant<Bits<K>>,
    _lanes: usize,
}

impl<const K: usize, const M: usize> RowSelect<K, M> {
    /// The selection over `lanes` lanes (2..=`M`).
    pub fn new(lanes: usize) -> Self {
        assert!(lanes >= 2 && lanes <= M && M <= 64);
        RowSelect {
            en: Default::default(),
            valid: signals(lanes),
            key: signals(lanes),
            beats: signals(lanes),
            min: Default::default(),
            sel: Default::default(),
            any: Default::default(),
            vmask: Default::default(),
            win: signals(lanes),
            lane_bit: (0..lanes)
                .map(|l| Constant::new((1u64 << l).into()))
                .collect(),
            zero_mask: Constant::new(0u64.into()),
            zero_key: Constant::new(0u64.into()),
            _lanes: lanes,
        }
    }
}

impl<const K: usize, const M: usize> Logic for RowSelect<K, M> {
    #[hdl_gen]
    fn update(&mut self) {
        self.vmask.next = self.zero_mask.val();
        self.sel.next = self.zero_mask.val();
        self.min.next = self.zero_key.val();
        self.any.next = false;
        for l in 0..self._lanes {
            self.win[l].next = false;
        }
        if self.en.val() {
            for l in 0..self._lanes {
                if self.valid[l].val() {
                    self.vmask.next = self.vmask.val() | self.lane_bit[l].val();
                }
            }
            self.any.next = self.vmask.val().any();
            for l in 0..self._lanes {
                self.win[l].next =
                    self.valid[l].val() && !(self.beats[l].val() & self.vmask.val()).any();
                if self.win[l].val() {
                    self.sel.next = self.sel.val() | self.lane_bit[l].val();
                    self.min.next = self.min.val() | self.key[l].val();
                }
            }
            if !self.vmask.val().any() {
                self.min.next = self.key[0].val();
            }
        }
    }
}

/// `count` default signals (for the per-lane and per-node vectors).
fn signals<T: Default>(count: usize) -> Vec<T> {
    (0..count).map(|_| T::default()).collect()
}
