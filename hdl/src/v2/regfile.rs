//! A Core v2 lane's register file (`docs/microarchitecture-v2.md` §11):
//! two block-RAM copies of `W · RP` 32-bit words, copy A for source A and
//! copy B for source B, each with one registered read port, both written
//! identically through one write port. Word `warp · RP + reg`.
//!
//! Each copy is the project's [`Ram`] (custom Verilog that Yosys maps to
//! `DP16KD` on ECP5, 512×36 in pseudo-dual-port mode: one block RAM per
//! copy up to 512 words). There is no bypass: the hazard rule (§4.2)
//! keeps a read at least one edge after the last write to its word, so the
//! block RAM's read-during-write behaviour never matters.

use rust_hdl_core::prelude::*;

use crate::ram::Ram;

/// `AW`-bit word addresses, `words` (`W · RP`) words per copy.
/// Timing: `ra`/`rb` presented in D, `da`/`db` valid in R (one edge
/// later); `we`, `wa`, `wd` presented in W are written at the end of W.
#[derive(LogicBlock)]
pub struct RegFile<const AW: usize> {
    pub clock: Signal<In, Clock>,
    pub ra: Signal<In, Bits<AW>>,
    pub rb: Signal<In, Bits<AW>>,
    pub da: Signal<Out, Bits<32>>,
    pub db: Signal<Out, Bits<32>>,
    pub we: Signal<In, bool>,
    pub wa: Signal<In, Bits<AW>>,
    pub wd: Signal<In, Bits<32>>,
    copy_a: Ram<32, AW>,
    copy_b: Ram<32, AW>,
}

impl<const AW: usize> RegFile<AW> {
    pub fn new(words: usize) -> Self {
        RegFile {
            clock: Default::default(),
            ra: Default::default(),
            rb: Default::default(),
            da: Default::default(),
            db: Default::default(),
            we: Default::default(),
            wa: Default::default(),
            wd: Default::default(),
            copy_a: Ram::new(words),
            copy_b: Ram::new(words),
        }
    }

    pub fn words(&self) -> usize {
        self.copy_a.depth()
    }
}

impl<const AW: usize> Logic for RegFile<AW> {
    #[hdl_gen]
    fn update(&mut self) {
        self.copy_a.clock.next = self.clock.val();
        self.copy_b.clock.next = self.clock.val();
        self.copy_a.raddr.next = self.ra.val();
        self.copy_b.raddr.next = self.rb.val();
        self.copy_a.we.next = self.we.val();
        self.copy_b.we.next = self.we.val();
        self.copy_a.waddr.next = self.wa.val();
        self.copy_b.waddr.next = self.wa.val();
        self.copy_a.wdata.next = self.wd.val();
        self.copy_b.wdata.next = self.wd.val();
        self.da.next = self.copy_a.rdata.val();
        self.db.next = self.copy_b.rdata.val();
    }
}
