//! The performance counters of Core v2 (docs/microarchitecture.md
//! §15.1): the 25 counters of `concord_uarch::counters`, `cycles` 64
//! bits wide and every other one `counter_bits` wide, each wrapping at its
//! width, all cleared by `START`. The core computes each cycle's increment
//! (0, 1, a popcount, a number of warps) and this block adds it at the end
//! of the cycle; the host slave reads the low words and, for counters wider
//! than 32 bits, the high words (its snapshot, §14.4).
//!
//! Each counter is a 64-bit register whose sum is masked to the counter's
//! width: for `counter_bits < 64` the bits above are constant 0 and
//! synthesis removes their flip-flops and carry cells.

use concord_uarch::counters::{Counter, COUNT};
use rust_hdl_core::prelude::*;

use crate::util::{Ext, RegE};

/// Bits of one cycle's increment of a counter (at most `L` = 32 lanes or
/// `W` = 16 warps per cycle).
pub const INC_BITS: usize = 8;

/// The counters of a core built with `counter_bits`.
#[derive(LogicBlock)]
pub struct Counters {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    /// `START` accepted in this cycle: every counter is 0 from the next.
    pub clear: Signal<In, bool>,
    /// Counter `k`'s increment in this cycle (`Counter::ALL[k]`).
    pub inc: Vec<Signal<In, Bits<INC_BITS>>>,
    /// Bits 31..0 of counter `k`.
    pub lo: Vec<Signal<Out, Bits<32>>>,
    /// Bits 63..32 of counter `k`, for the `hi.len()` first counters
    /// (`cycles` only when `counter_bits ≤ 32`, all of them otherwise).
    pub hi: Vec<Signal<Out, Bits<32>>>,
    c: Vec<RegE<Bits<64>>>,
    x: Vec<Ext<INC_BITS, 64>>,
    mask: Vec<Constant<Bits<64>>>,
    zero: Constant<Bits<64>>,
    /// Bits 63..32 of the counters whose high word is not read (constant
    /// 0: their width is at most 32).
    unused_high: Signal<Local, bool>,
    _n: usize,
    _nhi: usize,
}

impl Counters {
    /// `counter_bits` in 16..=64 (`GenOptions::validate`).
    pub fn new(counter_bits: u32) -> Counters {
        fn sig<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| Default::default()).collect()
        }
        let nhi = if counter_bits > 32 { COUNT } else { 1 };
        // `cycles` is counter 0 and the only one with bits 63..32 when the
        // others are 32 bits or narrower.
        assert_eq!(Counter::ALL[0], Counter::Cycles);
        let mask = Counter::ALL
            .iter()
            .map(|c| {
                let w = c.width(counter_bits);
                Constant::new(if w >= 64 { u64::MAX } else { (1u64 << w) - 1 }.into())
            })
            .collect();
        Counters {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            inc: sig(COUNT),
            lo: sig(COUNT),
            hi: sig(nhi),
            c: sig(COUNT),
            x: sig(COUNT),
            mask,
            zero: Constant::new(0u64.into()),
            unused_high: Default::default(),
            _n: COUNT,
            _nhi: nhi,
        }
    }
}

impl Logic for Counters {
    #[hdl_gen]
    fn update(&mut self) {
        for k in 0..self._n {
            self.c[k].clock.next = self.clock.val();
            self.c[k].reset.next = self.reset.val();
            // `clear` comes from the host slave: the register's load port
            // keeps it out of this block's logic.
            self.c[k].ld.next = self.clear.val();
            self.c[k].lv.next = self.zero.val();
            self.c[k].en.next = true;
            self.x[k].i.next = self.inc[k].val();
            self.c[k].d.next = (self.c[k].q.val() + self.x[k].o.val()) & self.mask[k].val();
            self.lo[k].next = self.c[k].q.val().get_bits::<32>(0);
        }
        for k in 0..self._nhi {
            self.hi[k].next = self.c[k].q.val().get_bits::<32>(32);
        }
        self.unused_high.next = false;
        for k in self._nhi..self._n {
            self.unused_high.next =
                self.unused_high.val() | self.c[k].q.val().get_bits::<32>(32).any();
        }
    }
}
