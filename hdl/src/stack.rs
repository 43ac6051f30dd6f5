//! The limits of the per-thread stacks (docs/microarchitecture.md §5,
//! `concord_isa::checks::Stacks`): registers derived from the host-written
//! `stack_bytes` S, so that the stack check in `EXEC` is one subtraction and
//! three comparisons per lane.
//!
//! Every product is S times a constant of the configuration, built from
//! shifted copies of S (at most ten adders, most of them removed by
//! constant folding), and lands in a register: the registers follow S one
//! cycle after its host write, long before the `start` write that can
//! follow it. Nothing here is on the issue path; the lanes read registers
//! and one multiplexer (the issuing warp's offset).

use rust_hdl_core::prelude::*;

use crate::util::Reg;

/// Bits of the largest constant factor, `lanes × warps + 1` ≤ 513.
const FACTOR_BITS: usize = 10;
const _: () = assert!(concord_uarch::widths::MAX_BLOCK_THREADS < 1 << FACTOR_BITS);

#[derive(LogicBlock)]
pub struct StackRegs {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    /// `stack_bytes` (S).
    pub s: Signal<In, Bits<32>>,
    /// The issuing warp.
    pub cur: Signal<In, Bits<4>>,
    /// `tops[l] = G − l·S` for `l` = 0..=L: lane `l`'s stack in warp 0 is
    /// `[tops[l+1], tops[l])`.
    pub tops: Vec<Signal<Out, Bits<32>>>,
    /// `cur · L · S`: how far warp `cur`'s stacks lie below warp 0's.
    pub woff: Signal<Out, Bits<32>>,
    /// `G − (L·W + 1)·S`: the lowest address of the stacks and the guard zone.
    pub from: Signal<Out, Bits<32>>,
    top_r: Vec<Reg<Bits<32>>>,
    woff_r: Vec<Reg<Bits<32>>>,
    from_r: Reg<Bits<32>>,
    /// `cur` selects nothing when there is one warp.
    unused_cur: Signal<Local, bool>,
    /// `prod[i] = S · factor[i]`: the `tops` factors `0..=L`, then the warp
    /// offsets' `w · L`, then `L·W + 1`.
    prod: Vec<Signal<Local, Bits<32>>>,
    factor: Vec<Constant<Bits<16>>>,
    g: Constant<Bits<32>>,
    zero32: Constant<Bits<32>>,
    _tops: usize,
    _tops_end: usize,
    _warps: usize,
    _last: usize,
    _n: usize,
}

impl StackRegs {
    /// For `lanes` × `warps` threads and `global_bytes` of global memory.
    pub fn new(lanes: usize, warps: usize, global_bytes: u32) -> Self {
        let mut factor: Vec<u64> = (0..=lanes as u64).collect();
        factor.extend((0..warps as u64).map(|w| w * lanes as u64));
        factor.push((lanes * warps) as u64 + 1);
        assert!(factor.iter().all(|&f| f < 1 << FACTOR_BITS));
        let n = factor.len();
        StackRegs {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            cur: Default::default(),
            tops: (0..=lanes).map(|_| Default::default()).collect(),
            woff: Default::default(),
            from: Default::default(),
            top_r: (0..=lanes).map(|_| Default::default()).collect(),
            woff_r: (0..warps).map(|_| Default::default()).collect(),
            from_r: Default::default(),
            unused_cur: Default::default(),
            prod: (0..n).map(|_| Default::default()).collect(),
            factor: factor
                .into_iter()
                .map(|f| Constant::new(f.into()))
                .collect(),
            g: Constant::new((global_bytes as u64).into()),
            zero32: Constant::new(0u64.into()),
            _tops: lanes + 1,
            _tops_end: lanes + 2,
            _warps: warps,
            _last: n - 1,
            _n: n,
        }
    }
}

impl Logic for StackRegs {
    #[hdl_gen]
    fn update(&mut self) {
        // Shift-and-add by constant factors (the conditions are constants).
        for i in 0..self._n {
            self.prod[i].next = self.zero32.val();
            if self.factor[i].val().get_bit(0) {
                self.prod[i].next = self.prod[i].val() + self.s.val();
            }
            if self.factor[i].val().get_bit(1) {
                self.prod[i].next = self.prod[i].val() + (self.s.val() << 1);
            }
            if self.factor[i].val().get_bit(2) {
                self.prod[i].next = self.prod[i].val() + (self.s.val() << 2);
            }
            if self.factor[i].val().get_bit(3) {
                self.prod[i].next = self.prod[i].val() + (self.s.val() << 3);
            }
            if self.factor[i].val().get_bit(4) {
                self.prod[i].next = self.prod[i].val() + (self.s.val() << 4);
            }
            if self.factor[i].val().get_bit(5) {
                self.prod[i].next = self.prod[i].val() + (self.s.val() << 5);
            }
            if self.factor[i].val().get_bit(6) {
                self.prod[i].next = self.prod[i].val() + (self.s.val() << 6);
            }
            if self.factor[i].val().get_bit(7) {
                self.prod[i].next = self.prod[i].val() + (self.s.val() << 7);
            }
            if self.factor[i].val().get_bit(8) {
                self.prod[i].next = self.prod[i].val() + (self.s.val() << 8);
            }
            if self.factor[i].val().get_bit(9) {
                self.prod[i].next = self.prod[i].val() + (self.s.val() << 9);
            }
        }
        // (A loop variable bound to a constant, so that index expressions
        // only combine loop variables.)
        for last in self._last..self._n {
            self.from_r.d.next = self.g.val() - self.prod[last].val();
        }
        for l in 0..self._tops {
            self.top_r[l].clock.next = self.clock.val();
            self.top_r[l].reset.next = self.reset.val();
            self.top_r[l].d.next = self.g.val() - self.prod[l].val();
            self.tops[l].next = self.top_r[l].q.val();
        }
        for tops in self._tops..self._tops_end {
            for w in 0..self._warps {
                self.woff_r[w].clock.next = self.clock.val();
                self.woff_r[w].reset.next = self.reset.val();
                self.woff_r[w].d.next = self.prod[tops + w].val();
            }
        }
        self.from_r.clock.next = self.clock.val();
        self.from_r.reset.next = self.reset.val();
        self.from.next = self.from_r.q.val();
        self.unused_cur.next = self.cur.val().any();
        self.woff.next = self.woff_r[0].q.val();
        for w in 1..self._warps {
            if self.cur.val().index() == w {
                self.woff.next = self.woff_r[w].q.val();
            }
        }
    }
}
