//! Simple dual-port RAM with a depth chosen at run time.
//!
//! rust-hdl's own `RAM<D, N>` has a depth of exactly `2^N` words, fixed at
//! compile time. The Concord core sizes its memories from the configuration
//! (instruction memory `I`, register files `W * RP`, shared-memory rows
//! `S / (4B)`), which is only known when the Verilog is generated, while the
//! address ports keep one fixed width. This block therefore writes its own
//! Verilog (`Verilog::Custom`): a `reg` array of the run-time depth, one write
//! port with enable and one registered read port, the pattern Yosys maps to
//! block RAM (`SB_RAM40_4K` on iCE40, `DP16KD` on ECP5). Only the low
//! `clog2(depth)` address bits index the array. An address at or beyond the
//! depth (possible when the depth is not a power of two, or through an
//! address port wider than the array) reads 0 and is not written.

use rust_hdl_core::prelude::*;

/// Number of address bits that index `depth` words (0 for a single word).
pub fn index_bits(depth: usize) -> usize {
    let mut b = 0;
    while (1usize << b) < depth {
        b += 1;
    }
    b
}

/// `DW`-bit words, `AW`-bit address ports, `depth` words (run time).
/// Read: the word at `raddr` appears on `rdata` after the next clock edge.
/// Write: `wdata` is stored at `waddr` on the clock edge when `we` is high.
/// A read of the address being written returns the old word. Addresses at
/// or beyond `depth` read 0 and ignore writes.
#[derive(LogicBlock)]
pub struct Ram<const DW: usize, const AW: usize> {
    pub clock: Signal<In, Clock>,
    pub raddr: Signal<In, Bits<AW>>,
    pub rdata: Signal<Out, Bits<DW>>,
    pub we: Signal<In, bool>,
    pub waddr: Signal<In, Bits<AW>>,
    pub wdata: Signal<In, Bits<DW>>,
    _depth: usize,
    _mem: Vec<Bits<DW>>,
}

impl<const DW: usize, const AW: usize> Ram<DW, AW> {
    pub fn new(depth: usize) -> Self {
        assert!(depth >= 1 && depth <= 1usize << AW, "RAM depth {depth}");
        Ram {
            clock: Default::default(),
            raddr: Default::default(),
            rdata: Default::default(),
            we: Default::default(),
            waddr: Default::default(),
            wdata: Default::default(),
            _depth: depth,
            _mem: vec![Bits::default(); depth],
        }
    }

    pub fn depth(&self) -> usize {
        self._depth
    }
}

impl<const DW: usize, const AW: usize> Logic for Ram<DW, AW> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let r = self.raddr.val().index();
            self.rdata.next = self._mem.get(r).copied().unwrap_or_default();
            if self.we.val() {
                let w = self.waddr.val().index();
                if w < self._depth {
                    self._mem[w] = self.wdata.val();
                }
            }
        }
    }

    fn connect(&mut self) {
        self.rdata.connect();
    }

    fn hdl(&self) -> Verilog {
        let ib = index_bits(self._depth);
        let (ra, wa) = if ib == 0 {
            ("0".to_string(), "0".to_string())
        } else {
            (
                format!("raddr[{}:0]", ib - 1),
                format!("waddr[{}:0]", ib - 1),
            )
        };
        let code = if self._depth == 1 << AW {
            // Every address is a word: the plain block-RAM pattern.
            format!(
                "\
reg [{dw}:0] mem [0:{last}];
always @(posedge clock) begin
    if (we) mem[{wa}] <= wdata;
    rdata <= mem[{ra}];
end
",
                dw = DW - 1,
                last = self._depth - 1,
            )
        } else {
            // Addresses past the depth: no write, and a read of 0 (the
            // flag is registered beside the block RAM's output register).
            format!(
                "\
reg [{dw}:0] mem [0:{last}];
reg [{dw}:0] rd_q;
reg in_q;
always @(posedge clock) begin
    if (we && waddr < {aw}'d{depth}) mem[{wa}] <= wdata;
    rd_q <= mem[{ra}];
    in_q <= raddr < {aw}'d{depth};
end
always @(*) rdata = in_q ? rd_q : {dwn}'d0;
",
                dw = DW - 1,
                last = self._depth - 1,
                depth = self._depth,
                aw = AW,
                dwn = DW,
            )
        };
        Verilog::Custom(code)
    }
}
