//! The thread-id walk of a Core v2 block launch
//! (docs/microarchitecture.md §12.3, §12.4).
//!
//! A launch in cycle *l* (`go`) writes, in cycle *l + 1 + t* for `t = 0 ..
//! threads − 1`, thread `t`'s `(tid.x, tid.y, tid.z)` into the thread-id
//! LUT-RAM of lane `t mod L` at warp `base + t div L` (`base = k·nwarps`,
//! the launched slot's first warp). The outputs drive those writes: `we`,
//! the lane one-hot `lane`, the warp `warp`, and `x`, `y`, `z`.
//!
//! Only counters and equality compares: `x += 1`, and when `x + 1 ==
//! BLOCK_X`, `x := 0, y += 1`; when also `y + 1 == BLOCK_Y`, `y := 0,
//! z += 1`. The lane is a rotating one-hot, the warp increments when the
//! lane wraps, and `t + 1 == threads` ends the walk. Every counter is `K =
//! Kt = ceil(log2(L·W))` bits: a launch the core accepts has `threads` and
//! every block dimension in `1..=L·W ≤ 2^K`, so the compares are done
//! modulo `2^K` (`x + 1` in `1..=2^K` and `BLOCK_X` in `1..=2^K` are equal
//! exactly when they are equal modulo `2^K`), and the inputs are the low
//! `K` bits of `threads`, `BLOCK_X`, `BLOCK_Y`.

use rust_hdl_core::prelude::*;

use crate::util::Reg;

/// Width of the warp numbers (W ≤ 16).
pub const WARP_BITS: usize = 4;

/// The walk for `L` lanes, counters of `K` bits.
#[derive(LogicBlock)]
pub struct TidWalk<const L: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    /// A block launch in this cycle: the walk writes thread 0 in the next.
    pub go: Signal<In, bool>,
    /// The launched slot's first warp (`k · nwarps`).
    pub base: Signal<In, Bits<WARP_BITS>>,
    /// `threads`, `BLOCK_X`, `BLOCK_Y` (low `K` bits), fixed during a launch.
    pub threads: Signal<In, Bits<K>>,
    pub block_x: Signal<In, Bits<K>>,
    pub block_y: Signal<In, Bits<K>>,
    /// A thread id is written in this cycle.
    pub we: Signal<Out, bool>,
    /// This write is the walk's last.
    pub last: Signal<Out, bool>,
    /// The lane written (one-hot) and the warp (the LUT-RAM address).
    pub lane: Signal<Out, Bits<L>>,
    pub warp: Signal<Out, Bits<WARP_BITS>>,
    pub x: Signal<Out, Bits<K>>,
    pub y: Signal<Out, Bits<K>>,
    pub z: Signal<Out, Bits<K>>,
    act: Reg<bool>,
    t_q: Reg<Bits<K>>,
    x_q: Reg<Bits<K>>,
    y_q: Reg<Bits<K>>,
    z_q: Reg<Bits<K>>,
    lane_q: Reg<Bits<L>>,
    warp_q: Reg<Bits<WARP_BITS>>,
    one: Constant<Bits<K>>,
    zero: Constant<Bits<K>>,
    lone: Constant<Bits<L>>,
    lmsb: Constant<Bits<L>>,
    lsh: Constant<Bits<8>>,
    wone: Constant<Bits<WARP_BITS>>,
    xw: Signal<Local, bool>,
    yw: Signal<Local, bool>,
    fin: Signal<Local, bool>,
}

impl<const L: usize, const K: usize> Default for TidWalk<L, K> {
    fn default() -> Self {
        assert!(L.is_power_of_two() && (1..=10).contains(&K));
        TidWalk {
            clock: Default::default(),
            reset: Default::default(),
            go: Default::default(),
            base: Default::default(),
            threads: Default::default(),
            block_x: Default::default(),
            block_y: Default::default(),
            we: Default::default(),
            last: Default::default(),
            lane: Default::default(),
            warp: Default::default(),
            x: Default::default(),
            y: Default::default(),
            z: Default::default(),
            act: Default::default(),
            t_q: Default::default(),
            x_q: Default::default(),
            y_q: Default::default(),
            z_q: Default::default(),
            lane_q: Default::default(),
            warp_q: Default::default(),
            one: Constant::new(1u64.into()),
            zero: Constant::new(0u64.into()),
            lone: Constant::new(1u64.into()),
            lmsb: Constant::new(Bits::<L>::from(1u64) << (L as u64 - 1)),
            lsh: Constant::new(1u64.into()),
            wone: Constant::new(1u64.into()),
            xw: Default::default(),
            yw: Default::default(),
            fin: Default::default(),
        }
    }
}

impl<const L: usize, const K: usize> Logic for TidWalk<L, K> {
    #[hdl_gen]
    fn update(&mut self) {
        self.act.clock.next = self.clock.val();
        self.act.reset.next = self.reset.val();
        self.t_q.clock.next = self.clock.val();
        self.t_q.reset.next = self.reset.val();
        self.x_q.clock.next = self.clock.val();
        self.x_q.reset.next = self.reset.val();
        self.y_q.clock.next = self.clock.val();
        self.y_q.reset.next = self.reset.val();
        self.z_q.clock.next = self.clock.val();
        self.z_q.reset.next = self.reset.val();
        self.lane_q.clock.next = self.clock.val();
        self.lane_q.reset.next = self.reset.val();
        self.warp_q.clock.next = self.clock.val();
        self.warp_q.reset.next = self.reset.val();
        // The write of this cycle.
        self.we.next = self.act.q.val();
        self.lane.next = self.lane_q.q.val();
        self.warp.next = self.warp_q.q.val();
        self.x.next = self.x_q.q.val();
        self.y.next = self.y_q.q.val();
        self.z.next = self.z_q.q.val();
        self.fin.next = (self.t_q.q.val() + self.one.val()) == self.threads.val();
        self.last.next = self.act.q.val() & self.fin.val();
        // The next thread.
        self.xw.next = (self.x_q.q.val() + self.one.val()) == self.block_x.val();
        self.yw.next = (self.y_q.q.val() + self.one.val()) == self.block_y.val();
        self.act.d.next = self.act.q.val() & !self.fin.val();
        self.t_q.d.next = self.t_q.q.val() + self.one.val();
        self.x_q.d.next = self.x_q.q.val() + self.one.val();
        self.y_q.d.next = self.y_q.q.val();
        self.z_q.d.next = self.z_q.q.val();
        if self.xw.val() {
            self.x_q.d.next = self.zero.val();
            self.y_q.d.next = self.y_q.q.val() + self.one.val();
            if self.yw.val() {
                self.y_q.d.next = self.zero.val();
                self.z_q.d.next = self.z_q.q.val() + self.one.val();
            }
        }
        self.lane_q.d.next = self.lane_q.q.val() << self.lsh.val();
        self.warp_q.d.next = self.warp_q.q.val();
        if (self.lane_q.q.val() & self.lmsb.val()).any() {
            self.lane_q.d.next = self.lone.val();
            self.warp_q.d.next = self.warp_q.q.val() + self.wone.val();
        }
        if self.go.val() {
            self.act.d.next = true;
            self.t_q.d.next = self.zero.val();
            self.x_q.d.next = self.zero.val();
            self.y_q.d.next = self.zero.val();
            self.z_q.d.next = self.zero.val();
            self.lane_q.d.next = self.lone.val();
            self.warp_q.d.next = self.base.val();
        }
    }
}
