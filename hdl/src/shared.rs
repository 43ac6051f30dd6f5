//! Shared memory (docs/microarchitecture.md §2, §6): `B` banks of
//! `S / (4B)` words, each bank four byte-wide RAMs so that stores write
//! bytes without a read-modify-write. Every bank reads and writes the same
//! row; the row read data of all banks is one bus, bank `k` at bits
//! `32k + 31 .. 32k`, byte `j` of the bank at `32k + 8j`.

use rust_hdl_core::prelude::*;

use crate::lane::LINE_BITS;
use crate::ram::Ram;
use crate::util::Pack;

/// Row address width: at most 1 MiB / 4 rows.
pub const ROW_BITS: usize = 18;

#[derive(LogicBlock)]
pub struct Shared {
    pub clock: Signal<In, Clock>,
    pub addr: Signal<In, Bits<ROW_BITS>>,
    /// Byte write enables and data: index `4k + j` is byte `j` of bank `k`.
    pub we: Vec<Signal<In, bool>>,
    pub wdata: Vec<Signal<In, Bits<8>>>,
    pub rdata: Signal<Out, Bits<LINE_BITS>>,
    rams: Vec<Ram<8, ROW_BITS>>,
    pack: Pack<8, LINE_BITS>,
    _n: usize,
}

impl Shared {
    pub fn new(banks: usize, rows: usize) -> Self {
        let n = 4 * banks;
        Shared {
            clock: Default::default(),
            addr: Default::default(),
            we: (0..n).map(|_| Default::default()).collect(),
            wdata: (0..n).map(|_| Default::default()).collect(),
            rdata: Default::default(),
            rams: (0..n).map(|_| Ram::new(rows)).collect(),
            pack: Pack::new(n),
            _n: n,
        }
    }
}

impl Logic for Shared {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..self._n {
            self.rams[i].clock.next = self.clock.val();
            self.rams[i].raddr.next = self.addr.val();
            self.rams[i].waddr.next = self.addr.val();
            self.rams[i].we.next = self.we[i].val();
            self.rams[i].wdata.next = self.wdata[i].val();
            self.pack.ins[i].next = self.rams[i].rdata.val();
        }
        self.rdata.next = self.pack.out.val();
    }
}
