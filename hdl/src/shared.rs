//! Shared memory (docs/microarchitecture.md §2, §6): `B` banks of
//! `S / (4B)` words, each bank four byte-wide RAMs so that stores write
//! bytes without a read-modify-write. Every bank reads and writes the same
//! row; the row read data is one word per bank, byte `j` of the bank at
//! bits `8j + 7 .. 8j`.

use rust_hdl_core::prelude::*;

use crate::ram::Ram;
use crate::util::Words;

/// Row address width (`concord_uarch::widths::SHARED_ROW_BITS`).
pub const ROW_BITS: usize = concord_uarch::widths::SHARED_ROW_BITS;

#[derive(LogicBlock)]
pub struct Shared {
    pub clock: Signal<In, Clock>,
    pub addr: Signal<In, Bits<ROW_BITS>>,
    /// Byte write enables and data: index `4k + j` is byte `j` of bank `k`.
    pub we: Vec<Signal<In, bool>>,
    pub wdata: Vec<Signal<In, Bits<8>>>,
    /// The row's word in bank k.
    pub words: Vec<Signal<Out, Bits<32>>>,
    rams: Vec<Ram<8, ROW_BITS>>,
    pack: Words,
    _banks: usize,
}

impl Shared {
    pub fn new(banks: usize, rows: usize) -> Self {
        let n = 4 * banks;
        Shared {
            clock: Default::default(),
            addr: Default::default(),
            we: (0..n).map(|_| Default::default()).collect(),
            wdata: (0..n).map(|_| Default::default()).collect(),
            words: (0..banks).map(|_| Default::default()).collect(),
            rams: (0..n).map(|_| Ram::new(rows)).collect(),
            pack: Words::new(banks),
            _banks: banks,
        }
    }
}

impl Logic for Shared {
    #[hdl_gen]
    fn update(&mut self) {
        for k in 0..self._banks {
            for j in 0..4 {
                self.rams[4 * k + j].clock.next = self.clock.val();
                self.rams[4 * k + j].raddr.next = self.addr.val();
                self.rams[4 * k + j].waddr.next = self.addr.val();
                self.rams[4 * k + j].we.next = self.we[4 * k + j].val();
                self.rams[4 * k + j].wdata.next = self.wdata[4 * k + j].val();
                self.pack.ins[4 * k + j].next = self.rams[4 * k + j].rdata.val();
            }
            self.words[k].next = self.pack.outs[k].val();
        }
    }
}
