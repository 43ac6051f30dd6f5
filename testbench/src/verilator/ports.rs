//! The top-level port list of `concord_core` (docs/microarchitecture.md
//! §8-§10). The C++ shim is generated from this table, so a Verilog whose
//! ports differ fails to compile with the port's name in the error.

/// Direction of a port, seen from the core.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Dir {
    In,
    Out,
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

const fn p(name: &'static str, width: u32, dir: Dir) -> Port {
    Port { name, width, dir }
}

/// Every port of `concord_core`, in the order of the microarchitecture doc.
pub const PORTS: [Port; 31] = [
    p("clock", 1, Dir::In),
    p("reset", 1, Dir::In),
    p("host_we", 1, Dir::In),
    p("host_addr", 18, Dir::In),
    p("host_wdata", 32, Dir::In),
    p("host_raddr", 8, Dir::In),
    p("host_rdata", 32, Dir::Out),
    p("running", 1, Dir::Out),
    p("done", 1, Dir::Out),
    p("trapped", 1, Dir::Out),
    p("gmem_req_valid", 1, Dir::Out),
    p("gmem_req_ready", 1, Dir::In),
    p("gmem_req_kind", 2, Dir::Out),
    p("gmem_req_addr", 32, Dir::Out),
    p("gmem_req_wdata", 1024, Dir::Out),
    p("gmem_req_mask", 128, Dir::Out),
    p("gmem_req_atom_op", 4, Dir::Out),
    p("gmem_req_atom_data", 32, Dir::Out),
    p("gmem_resp_valid", 1, Dir::In),
    p("gmem_resp_data", 1024, Dir::In),
    p("trace_state", 5, Dir::Out),
    p("trace_warp", 4, Dir::Out),
    p("trace_pc", 16, Dir::Out),
    p("trace_active", 32, Dir::Out),
    p("trace_exec", 32, Dir::Out),
    p("trace_rf_we", 32, Dir::Out),
    p("trace_rf_addr", 9, Dir::Out),
    p("trace_rf_data", 1024, Dir::Out),
    p("trace_pred_we", 32, Dir::Out),
    p("trace_pred_addr", 7, Dir::Out),
    p("trace_pred_data", 32, Dir::Out),
];

/// The port called `name`, if there is one.
pub fn port(name: &str) -> Option<&'static Port> {
    PORTS.iter().find(|p| p.name == name)
}
