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
