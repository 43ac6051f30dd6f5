//! The top-level port list of `concord_core` (docs/microarchitecture.md
//! §8-§10). The RTL generator declares exactly these ports (its test
//! compares the generated module header with [`PORTS`]), and the Verilator
//! harness generates its C++ shim from this table, so a Verilog whose ports
//! differ fails to build with the port's name in the error.

use crate::widths::{
    ATOM_OP_BITS, GMEM_KIND_BITS, HOST_ADDR_BITS, HOST_RADDR_BITS, LINE_BITS, LINE_MASK_BITS,
    MASK_BITS, PC_BITS, PRED_ADDR_BITS, RF_ADDR_BITS, RF_DATA_BITS, STATE_BITS, WARP_BITS,
    WORD_BITS,
};

/// Direction of a port, seen from the core.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Dir {
    In,
    Out,
}

impl Dir {
    /// The Verilog keyword.
    pub fn verilog(self) -> &'static str {
        match self {
            Dir::In => "input",
            Dir::Out => "output",
        }
    }
}

/// One top-level port of `concord_core`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Port {
    pub name: &'static str,
    pub width: u32,
    pub dir: Dir,
}

impl Port {
    /// 32-bit words the port's value takes (lowest bits in word 0).
    pub const fn words(&self) -> usize {
        self.width.div_ceil(32) as usize
    }
}

const fn p(name: &'static str, width: usize, dir: Dir) -> Port {
    Port {
        name,
        width: width as u32,
        dir,
    }
}

/// Every port of `concord_core`, in declaration order: clock and reset,
/// the host interface (§9), the global memory port (§8), the trace port
/// (§10).
pub const PORTS: [Port; 31] = [
    p("clock", 1, Dir::In),
    p("reset", 1, Dir::In),
    p("host_we", 1, Dir::In),
    p("host_addr", HOST_ADDR_BITS, Dir::In),
    p("host_wdata", WORD_BITS, Dir::In),
    p("host_raddr", HOST_RADDR_BITS, Dir::In),
    p("host_rdata", WORD_BITS, Dir::Out),
    p("running", 1, Dir::Out),
    p("done", 1, Dir::Out),
    p("trapped", 1, Dir::Out),
    p("gmem_req_valid", 1, Dir::Out),
    p("gmem_req_ready", 1, Dir::In),
    p("gmem_req_kind", GMEM_KIND_BITS, Dir::Out),
    p("gmem_req_addr", WORD_BITS, Dir::Out),
    p("gmem_req_wdata", LINE_BITS, Dir::Out),
    p("gmem_req_mask", LINE_MASK_BITS, Dir::Out),
    p("gmem_req_atom_op", ATOM_OP_BITS, Dir::Out),
    p("gmem_req_atom_data", WORD_BITS, Dir::Out),
    p("gmem_resp_valid", 1, Dir::In),
    p("gmem_resp_data", LINE_BITS, Dir::In),
    p("trace_state", STATE_BITS, Dir::Out),
    p("trace_warp", WARP_BITS, Dir::Out),
    p("trace_pc", PC_BITS, Dir::Out),
    p("trace_active", MASK_BITS, Dir::Out),
    p("trace_exec", MASK_BITS, Dir::Out),
    p("trace_rf_we", MASK_BITS, Dir::Out),
    p("trace_rf_addr", RF_ADDR_BITS, Dir::Out),
    p("trace_rf_data", RF_DATA_BITS, Dir::Out),
    p("trace_pred_we", MASK_BITS, Dir::Out),
    p("trace_pred_addr", PRED_ADDR_BITS, Dir::Out),
    p("trace_pred_data", MASK_BITS, Dir::Out),
];

/// The port called `name`, if there is one.
pub fn port(name: &str) -> Option<&'static Port> {
    PORTS.iter().find(|p| p.name == name)
}

/// `gmem_req_kind` values (§8).
pub mod gmem_kind {
    /// Read a line: the response carries its `global_line_bytes` bytes
    /// (the rest zero).
    pub const READ: u32 = 0;
    /// Write the enabled bytes of a line: the response data is zero.
    pub const WRITE: u32 = 1;
    /// Read-modify-write one word: the response carries the old word in
    /// bits 31..0.
    pub const ATOMIC: u32 = 2;

    const _: () = assert!(ATOMIC < 1 << super::GMEM_KIND_BITS);
}

/// The top-level ports of the Core v2 `concord_core`
/// (docs/microarchitecture.md §14.2), in declaration order, for a core
/// of `hw` built with `gen`. The v2 RTL generator declares exactly these
/// ports and the v2 Verilator harness generates its shim from them.
///
/// The trace port (only with `gen.trace`) is one output, `tr_record`, of
/// [`crate::trace::record_bits`] bits packed as [`crate::trace`] packs a
/// record (the fields of §15.2 in table order, the first at bit 0), so that
/// fields of width 0 (`tr_rsp_entry` with one entry) need no port.
pub fn core_ports(hw: &crate::HwParams, gen: &crate::GenOptions) -> Vec<Port> {
    let bus_bytes = hw.global_bus_bytes as usize;
    let address_bits = 32 - hw.global_bus_bytes.trailing_zeros() as usize;
    let mut ports = vec![
        p("clk", 1, Dir::In),
        p("rst", 1, Dir::In),
        p("wbs_cyc_i", 1, Dir::In),
        p("wbs_stb_i", 1, Dir::In),
        p("wbs_we_i", 1, Dir::In),
        p("wbs_adr_i", V2_HOST_ADDR_BITS, Dir::In),
        p("wbs_dat_i", 32, Dir::In),
        p("wbs_dat_o", 32, Dir::Out),
        p("wbs_ack_o", 1, Dir::Out),
        p("wbs_stall_o", 1, Dir::Out),
        p("gm_cyc_o", 1, Dir::Out),
        p("gm_stb_o", 1, Dir::Out),
        p("gm_we_o", 1, Dir::Out),
        p("gm_adr_o", address_bits, Dir::Out),
        p("gm_sel_o", bus_bytes, Dir::Out),
        p("gm_dat_o", 8 * bus_bytes, Dir::Out),
        p("gm_tga_o", V2_TAG_BITS, Dir::Out),
        p("gm_dat_i", 8 * bus_bytes, Dir::In),
        p("gm_ack_i", 1, Dir::In),
        p("gm_err_i", 1, Dir::In),
        p("gm_stall_i", 1, Dir::In),
        p("running_o", 1, Dir::Out),
        p("done_o", 1, Dir::Out),
        p("trapped_o", 1, Dir::Out),
        p("irq_o", 1, Dir::Out),
    ];
    if gen.trace {
        ports.push(p(
            "tr_record",
            crate::trace::record_bits(hw) as usize,
            Dir::Out,
        ));
    }
    ports
}

/// Width of the v2 host slave's word address `wbs_adr_i` (§14.4).
pub const V2_HOST_ADDR_BITS: usize = 17;
/// Width of the v2 master's address tag `gm_tga_o` (§14.5).
pub const V2_TAG_BITS: usize = 4;

#[cfg(test)]
mod v2_tests {
    use super::*;

    /// §14.2: "Without the trace port the default core has 89 input and
    /// 111 output bits" (clock and reset included).
    #[test]
    fn default_core_port_bits_match_the_contract() {
        let config = concord_isa::config::CoreConfig::default();
        let hw = crate::HwParams::new(&config).unwrap();
        let ports = core_ports(&hw, &crate::GenOptions::board());
        let bits = |dir| -> u32 {
            ports
                .iter()
                .filter(|port| port.dir == dir)
                .map(|port| port.width)
                .sum()
        };
        assert_eq!((bits(Dir::In), bits(Dir::Out)), (89, 111));
        let traced = core_ports(&hw, &crate::GenOptions::sim());
        assert_eq!(traced.last().unwrap().name, "tr_record");
        assert_eq!(traced.last().unwrap().width, crate::trace::record_bits(&hw));
    }
}
