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
//! `clog2(depth)` address bits index the array; the others are ignored.

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
/// A read of the address being written returns the old word.
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
            let mask = (1usize << index_bits(self._depth)) - 1;
            let r = self.raddr.val().index() & mask;
            self.rdata.next = self._mem.get(r).copied().unwrap_or_default();
            if self.we.val() {
                let w = self.waddr.val().index() & mask;
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
            (format!("raddr[{}:0]", ib - 1), format!("waddr[{}:0]", ib - 1))
        };
        let unused = if ib < AW {
            format!(
                "// Address bits above the depth are ignored.\nwire unused_addr_bits = &{{1'b0, raddr[{hi}:{ib}], waddr[{hi}:{ib}]}};\n",
                hi = AW - 1
            )
        } else {
            String::new()
        };
        Verilog::Custom(format!(
            "\
reg [{dw}:0] mem [0:{last}];
{unused}always @(posedge clock) begin
    if (we) mem[{wa}] <= wdata;
    rdata <= mem[{ra}];
end
",
            dw = DW - 1,
            last = self._depth - 1,
        ))
    }
}
