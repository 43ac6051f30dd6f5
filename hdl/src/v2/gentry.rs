//! Per-lane storage of the v2 global entries (docs/microarchitecture.md
//! §10.2): for each of the `N` entries (16 words deep, one LUT-RAM each), a
//! lane's store data or atomic operand (in its byte lanes), its byte
//! enables (the bytes it owns: those no higher lane of the entry writes in
//! its word, decided at the entry write in `gmaster.rs`), its word index in
//! the line, and the load data it receives.
//!
//! Each field is a [`LutRam`]: distributed RAM with one synchronous write
//! port and one asynchronous read port (`TRELLIS_DPR16X4` on ECP5). The
//! word index is stored twice, since the send side (entry being sent) and
//! the response side (entry being acknowledged) read it at different
//! entries in the same cycle.

use rust_hdl_core::prelude::*;

/// 16 words of `width` bits (`width ≤ DW`, chosen at run time), written
/// at the rising edge when `we` (`mem[waddr] := wdata[width-1:0]`), read
/// asynchronously (`rdata = mem[raddr]`, zero-extended to `DW` bits).
/// Custom Verilog: rust-hdl has no asynchronously read memory, and the
/// run-time width keeps unused bits out of the LUT-RAM.
#[derive(LogicBlock)]
pub struct LutRam<const DW: usize> {
    pub clock: Signal<In, Clock>,
    pub we: Signal<In, bool>,
    pub waddr: Signal<In, Bits<4>>,
    pub wdata: Signal<In, Bits<DW>>,
    pub raddr: Signal<In, Bits<4>>,
    pub rdata: Signal<Out, Bits<DW>>,
    _width: usize,
    _mem: Vec<Bits<DW>>,
}

impl<const DW: usize> LutRam<DW> {
    pub fn new(width: usize) -> Self {
        assert!(
            (1..=DW).contains(&width) && DW <= 64,
            "LUT-RAM width {width}"
        );
        LutRam {
            clock: Default::default(),
            we: Default::default(),
            waddr: Default::default(),
            wdata: Default::default(),
            raddr: Default::default(),
            rdata: Default::default(),
            _width: width,
            _mem: vec![Bits::default(); 16],
        }
    }
}

impl<const DW: usize> Logic for LutRam<DW> {
    fn update(&mut self) {
        if self.clock.pos_edge() && self.we.val() {
            let mask = if self._width == 64 {
                u64::MAX
            } else {
                (1u64 << self._width) - 1
            };
            let v: u64 = self.wdata.val().to_u64() & mask;
            self._mem[self.waddr.val().index()] = v.into();
        }
        self.rdata.next = self._mem[self.raddr.val().index()];
    }

    fn connect(&mut self) {
        self.rdata.connect();
    }

    fn hdl(&self) -> Verilog {
        let w = self._width;
        let mut code = format!(
            "reg [{wm}:0] mem [0:15];\nalways @(posedge clock) if (we) mem[waddr] <= wdata[{wm}:0];\n",
            wm = w - 1
        );
        if w < DW {
            code.push_str(&format!(
                "always @(*) rdata = {{{pad}'d0, mem[raddr]}};\n\
                 // Bits above the width are not stored.\n\
                 wire unused_hi = &{{1'b0, wdata[{dm}:{w}]}};\n",
                pad = DW - w,
                dm = DW - 1,
            ));
        } else {
            code.push_str("always @(*) rdata = mem[raddr];\n");
        }
        Verilog::Custom(code)
    }
}

/// One lane's share of the `N` global entries. Entry write (end of M):
/// `we`, `waddr`, `wdata` (store data or operand in its byte lanes),
/// `wbe`, `wword`. Send side: `saddr` → `sdata`, `sbe`, `sword`. Response
/// side: `aaddr` → `aword`; `lwe`, `lwdata` write the load data of entry
/// `aaddr`. Return slot: `taddr` → `tdata`.
#[derive(LogicBlock)]
pub struct GEntry {
    pub clock: Signal<In, Clock>,
    pub we: Signal<In, bool>,
    pub waddr: Signal<In, Bits<4>>,
    pub wdata: Signal<In, Bits<32>>,
    pub wbe: Signal<In, Bits<4>>,
    pub wword: Signal<In, Bits<32>>,
    pub saddr: Signal<In, Bits<4>>,
    pub sdata: Signal<Out, Bits<32>>,
    pub sbe: Signal<Out, Bits<4>>,
    pub sword: Signal<Out, Bits<32>>,
    pub aaddr: Signal<In, Bits<4>>,
    pub aword: Signal<Out, Bits<32>>,
    pub lwe: Signal<In, bool>,
    pub lwdata: Signal<In, Bits<32>>,
    pub taddr: Signal<In, Bits<4>>,
    pub tdata: Signal<Out, Bits<32>>,
    data: LutRam<32>,
    be: LutRam<4>,
    sw: LutRam<32>,
    aw: LutRam<32>,
    ld: LutRam<32>,
}

impl GEntry {
    /// `word_bits`: bits of a word index in the line (`log2(G/4)`, at
    /// least 1).
    pub fn new(word_bits: usize) -> GEntry {
        GEntry {
            clock: Default::default(),
            we: Default::default(),
            waddr: Default::default(),
            wdata: Default::default(),
            wbe: Default::default(),
            wword: Default::default(),
            saddr: Default::default(),
            sdata: Default::default(),
            sbe: Default::default(),
            sword: Default::default(),
            aaddr: Default::default(),
            aword: Default::default(),
            lwe: Default::default(),
            lwdata: Default::default(),
            taddr: Default::default(),
            tdata: Default::default(),
            data: LutRam::new(32),
            be: LutRam::new(4),
            sw: LutRam::new(word_bits),
            aw: LutRam::new(word_bits),
            ld: LutRam::new(32),
        }
    }
}

impl Logic for GEntry {
    #[hdl_gen]
    fn update(&mut self) {
        self.data.clock.next = self.clock.val();
        self.be.clock.next = self.clock.val();
        self.sw.clock.next = self.clock.val();
        self.aw.clock.next = self.clock.val();
        self.ld.clock.next = self.clock.val();
        self.data.we.next = self.we.val();
        self.be.we.next = self.we.val();
        self.sw.we.next = self.we.val();
        self.aw.we.next = self.we.val();
        self.data.waddr.next = self.waddr.val();
        self.be.waddr.next = self.waddr.val();
        self.sw.waddr.next = self.waddr.val();
        self.aw.waddr.next = self.waddr.val();
        self.data.wdata.next = self.wdata.val();
        self.be.wdata.next = self.wbe.val();
        self.sw.wdata.next = self.wword.val();
        self.aw.wdata.next = self.wword.val();
        self.data.raddr.next = self.saddr.val();
        self.be.raddr.next = self.saddr.val();
        self.sw.raddr.next = self.saddr.val();
        self.aw.raddr.next = self.aaddr.val();
        self.sdata.next = self.data.rdata.val();
        self.sbe.next = self.be.rdata.val();
        self.sword.next = self.sw.rdata.val();
        self.aword.next = self.aw.rdata.val();
        self.ld.we.next = self.lwe.val();
        self.ld.waddr.next = self.aaddr.val();
        self.ld.wdata.next = self.lwdata.val();
        self.ld.raddr.next = self.taddr.val();
        self.tdata.next = self.ld.rdata.val();
    }
}
