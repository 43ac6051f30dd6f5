//! A Core v2 lane's register file (`docs/microarchitecture.md` §11):
//! two block-RAM copies of `W · RP` 32-bit words, copy A for source A and
//! copy B for source B, each with one registered read port, both written
//! identically through one write port. Word `warp · RP + reg`.
//!
//! Each copy is a [`Bram`]: one block RAM per copy up to 512 words
//! (`DP16KD` on ECP5). There is no bypass: the hazard rule (§4.2) keeps a
//! read at least one edge after the last write to its word, so the block
//! RAM's read-during-write behaviour never matters, and the memory says so
//! to Yosys (`no_rw_check`).
//!
//! Why not the project's `crate::ram::Ram`: it is the same pattern without
//! the attribute, so Yosys keeps its read-old-data semantics on a
//! simultaneous read and write of one word and adds a bypass around each
//! block RAM (measured: 90 LUT4 and 75 flip-flops for the two copies of a
//! 256-word file); with `no_rw_check` it is the two `DP16KD` alone.

use rust_hdl_core::prelude::*;

/// A block RAM of `2^AW` `DW`-bit words: one write port, one registered
/// read port, and an undefined read of a word in the cycle it is written
/// (the simulation model returns the old word; the design never does such
/// a read). Custom Verilog, since rust-hdl cannot attach the `no_rw_check`
/// attribute to its `RAM`.
#[derive(LogicBlock)]
pub struct Bram<const DW: usize, const AW: usize> {
    pub clock: Signal<In, Clock>,
    pub raddr: Signal<In, Bits<AW>>,
    pub rdata: Signal<Out, Bits<DW>>,
    pub we: Signal<In, bool>,
    pub waddr: Signal<In, Bits<AW>>,
    pub wdata: Signal<In, Bits<DW>>,
    _mem: Vec<Bits<DW>>,
}

impl<const DW: usize, const AW: usize> Default for Bram<DW, AW> {
    fn default() -> Self {
        Bram {
            clock: Default::default(),
            raddr: Default::default(),
            rdata: Default::default(),
            we: Default::default(),
            waddr: Default::default(),
            wdata: Default::default(),
            _mem: vec![Bits::default(); 1 << AW],
        }
    }
}

impl<const DW: usize, const AW: usize> Logic for Bram<DW, AW> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self.rdata.next = self._mem[self.raddr.val().index()];
            if self.we.val() {
                self._mem[self.waddr.val().index()] = self.wdata.val();
            }
        }
    }

    fn connect(&mut self) {
        self.rdata.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
(* no_rw_check *)
reg [{dw}:0] mem [0:{last}];
always @(posedge clock) begin
    if (we) mem[waddr] <= wdata;
    rdata <= mem[raddr];
end
",
            dw = DW - 1,
            last = (1usize << AW) - 1,
        ))
    }
}

/// `AW`-bit word addresses, `words` (`W · RP`, at most `2^AW`) words per
/// copy; each copy has `2^AW` words (a block RAM holds 512 anyway).
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
    copy_a: Bram<32, AW>,
    copy_b: Bram<32, AW>,
    _words: usize,
}

impl<const AW: usize> RegFile<AW> {
    pub fn new(words: usize) -> Self {
        assert!(
            words >= 1 && words <= 1 << AW,
            "register file of {words} words"
        );
        RegFile {
            clock: Default::default(),
            ra: Default::default(),
            rb: Default::default(),
            da: Default::default(),
            db: Default::default(),
            we: Default::default(),
            wa: Default::default(),
            wd: Default::default(),
            copy_a: Default::default(),
            copy_b: Default::default(),
            _words: words,
        }
    }

    pub fn words(&self) -> usize {
        self._words
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
