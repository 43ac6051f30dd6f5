//! Cause 9 of Core v2, stack overflow (docs/microarchitecture.md §12.4,
//! §13.1; the rule is `concord_isa::checks::Stacks::violates`): which
//! executing lanes of a global access in stage A touch the per-thread
//! stacks or their guard zone outside their own stack. One [`StackCheck`]
//! in the integrated top (`core.rs`, section "traps (v2trap)"); its lane
//! mask is `PassCause`'s `m_stk`, ranked after the misaligned and
//! out-of-range lanes.
//!
//! **Registers built when `STACK_BYTES` (S) is written.** Every product is
//! S times a constant of the configuration, built from shifted copies of S
//! (shift-and-add over the constant's ten bits; Yosys folds the constant
//! conditions away, so a factor with `k` one bits costs `k − 1` adders and
//! no multiplier), and lands in a register one cycle after the host write:
//! `tops[l] = G − l·S` for `l = 0..=L` (thread `w·L + l`'s stack is
//! `[tops[l+1], tops[l])` moved down by `woff[w]`), `woff[w] = w·L·S` for
//! the `W` warps of a block, `from = G − (L·W + 1)·S` (the lowest guarded
//! byte). The launch registers are written only while the core is not
//! running (§14.3), and `START` comes after its SETUP cycles, so these
//! registers are stable during a run.
//!
//! **Where the check happens.** In X, on the lane's ALU result (the
//! address, `addr_x`, which A holds as `y_a`) and the thread's warp offset
//! selected from the pass's warp-in-block (`wib`, the model's
//! `first_thread = wib · L`): `adj = addr + woff`, own stack when
//! `tops[l+1] ≤ adj < tops[l]`, guarded when `addr ≥ from`. One adder and
//! three 32-bit compares per lane, registered per lane at the end of X;
//! stage A only ANDs the register with the pass's checked lanes. (They
//! were at A, on `y_a`, until the A stage's kill path — this check, the
//! trap cause, `a_kill`, the commit — was measured among the longest,
//! `hdl/README.md`; the bounds are registers stable during a run, so the
//! result is the same one cycle earlier.)
//!
//! **Why comparing the first byte is exact.** `.stack` values are multiples
//! of 4 (docs/isa.md) and so is `G`, so every bound is a multiple of 4; an
//! aligned access of 1, 2 or 4 bytes lies inside one aligned word, so it
//! is inside a bound-aligned range exactly when its first byte is, and it
//! reaches past `from` exactly when its first byte does. A misaligned or
//! out-of-range lane reports cause 2 or 1 before this one (§13.1), so this
//! mask's value on such lanes never matters.
//!
//! **Range of the arithmetic.** 32-bit values equal the rule's whenever
//! `(L·W + 1)·S ≤ G`, which every launch that places its buffers below the
//! stacks satisfies (`concord_isa::launch` refuses the others); for a
//! larger S written by hand the model's saturating bounds and these
//! wrapping ones may differ (§12.4).

use rust_hdl_core::prelude::*;

use crate::util::Reg;

/// Bits of the largest constant factor, `L·W + 1 ≤ 513`.
const FACTOR_BITS: usize = 10;
const _: () = assert!(concord_uarch::widths::MAX_BLOCK_THREADS < 1 << FACTOR_BITS);

/// The stack-overflow lanes of the pass in A for `L` lanes (see the
/// module documentation).
///
/// | port | stage | meaning |
/// |---|---|---|
/// | `s` | — | `STACK_BYTES` (the host's launch register) |
/// | `x_wib` | X | warp within the block of the pass in X |
/// | `addr[l]` | X | lane `l`'s address (the ALU's result at X) |
/// | `check` | A | executing lanes of a global load, store or atomic |
/// | `fault` | A | the lanes of `check` that break the stack rule (0 when `S = 0`) |
#[derive(LogicBlock)]
pub struct StackCheck<const L: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub s: Signal<In, Bits<32>>,
    pub x_wib: Signal<In, Bits<4>>,
    pub addr: Vec<Signal<In, Bits<32>>>,
    pub check: Signal<In, Bits<L>>,
    pub fault: Signal<Out, Bits<L>>,
    /// `prod[i] = S · factor[i]`: the factors `0..=L` of `tops`, then the
    /// warps' `w·L`, then `L·W + 1`.
    prod: Vec<Signal<Local, Bits<32>>>,
    factor: Vec<Constant<Bits<16>>>,
    top_r: Vec<Reg<Bits<32>>>,
    woff_r: Vec<Reg<Bits<32>>>,
    from_r: Reg<Bits<32>>,
    /// `S ≠ 0`, registered with the products.
    on_r: Reg<bool>,
    /// The X pass's warp offset, registered for A.
    woff_x: Signal<Local, Bits<32>>,
    bad_a: Reg<Bits<L>>,
    bad_x: Signal<Local, Bits<L>>,
    adj: Vec<Signal<Local, Bits<32>>>,
    lane_bad: Vec<Signal<Local, bool>>,
    widx: Vec<Constant<Bits<4>>>,
    lbit: Vec<Constant<Bits<L>>>,
    g: Constant<Bits<32>>,
    zero32: Constant<Bits<32>>,
    zero_l: Constant<Bits<L>>,
    _lanes: usize,
    _tops: usize,
    _tops_end: usize,
    _warps: usize,
    _last: usize,
    _n: usize,
}

impl<const L: usize> StackCheck<L> {
    /// For `warps` warps per block (the configuration's `W`) and
    /// `global_bytes` (`G`) of global memory.
    pub fn new(warps: usize, global_bytes: u32) -> Self {
        assert!((1..=16).contains(&warps));
        let mut factor: Vec<u64> = (0..=L as u64).collect();
        factor.extend((0..warps as u64).map(|w| w * L as u64));
        factor.push((L * warps) as u64 + 1);
        assert!(factor.iter().all(|&f| f < 1 << FACTOR_BITS));
        let n = factor.len();
        fn sig<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| Default::default()).collect()
        }
        StackCheck {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            x_wib: Default::default(),
            addr: sig(L),
            check: Default::default(),
            fault: Default::default(),
            prod: sig(n),
            factor: factor
                .into_iter()
                .map(|f| Constant::new(f.into()))
                .collect(),
            top_r: sig(L + 1),
            woff_r: sig(warps),
            from_r: Default::default(),
            on_r: Default::default(),
            woff_x: Default::default(),
            bad_a: Default::default(),
            bad_x: Default::default(),
            adj: sig(L),
            lane_bad: sig(L),
            widx: (0..warps as u64).map(|w| Constant::new(w.into())).collect(),
            lbit: (0..L).map(|l| Constant::new((1u64 << l).into())).collect(),
            g: Constant::new((global_bytes as u64).into()),
            zero32: Constant::new(0u64.into()),
            zero_l: Constant::new(0u64.into()),
            _lanes: L,
            _tops: L + 1,
            _tops_end: L + 2,
            _warps: warps,
            _last: n - 1,
            _n: n,
        }
    }
}

impl<const L: usize> Default for StackCheck<L> {
    /// Four warps, 4 KiB of global memory (block tests).
    fn default() -> Self {
        StackCheck::new(4, 4096)
    }
}

impl<const L: usize> Logic for StackCheck<L> {
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
        // The registers that follow S.
        self.on_r.clock.next = self.clock.val();
        self.on_r.reset.next = self.reset.val();
        self.on_r.d.next = self.s.val().any();
        self.from_r.clock.next = self.clock.val();
        self.from_r.reset.next = self.reset.val();
        // (A loop variable bound to a constant, so that index expressions
        // only combine loop variables.)
        for last in self._last..self._n {
            self.from_r.d.next = self.g.val() - self.prod[last].val();
        }
        for l in 0..self._tops {
            self.top_r[l].clock.next = self.clock.val();
            self.top_r[l].reset.next = self.reset.val();
            self.top_r[l].d.next = self.g.val() - self.prod[l].val();
        }
        for tops in self._tops..self._tops_end {
            for w in 0..self._warps {
                self.woff_r[w].clock.next = self.clock.val();
                self.woff_r[w].reset.next = self.reset.val();
                self.woff_r[w].d.next = self.prod[tops + w].val();
            }
        }
        // X: the pass's warp offset, one-hot AND-OR over the warps.
        self.woff_x.next = self.zero32.val();
        for w in 0..self._warps {
            if self.x_wib.val() == self.widx[w].val() {
                self.woff_x.next = self.woff_x.val() | self.woff_r[w].q.val();
            }
        }
        // X: per lane, the own-stack and guarded-region compares.
        self.bad_x.next = self.zero_l.val();
        for l in 0..self._lanes {
            self.adj[l].next = self.addr[l].val() + self.woff_x.val();
            self.lane_bad[l].next = (self.addr[l].val() >= self.from_r.q.val())
                & !((self.adj[l].val() >= self.top_r[l + 1].q.val())
                    & (self.adj[l].val() < self.top_r[l].q.val()));
            if self.lane_bad[l].val() {
                self.bad_x.next = self.bad_x.val() | self.lbit[l].val();
            }
        }
        self.bad_a.clock.next = self.clock.val();
        self.bad_a.reset.next = self.reset.val();
        self.bad_a.d.next = self.bad_x.val();
        // A: the pass's checked lanes.
        self.fault.next = self.zero_l.val();
        if self.on_r.q.val() {
            self.fault.next = self.bad_a.q.val() & self.check.val();
        }
    }
}
