//! The top-level port list of `concord_core` (docs/microarchitecture.md
//! §14.2), for a configuration and generator options: the RTL generator
//! declares exactly these ports (its test compares the generated module
//! header with [`core_ports`]), and the Verilator harness generates its C++
//! shim from this list, so a Verilog whose ports differ fails to build with
//! the port's name in the error.

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

/// The top-level ports of `concord_core`
/// (docs/microarchitecture.md §14.2), in declaration order, for a core
/// of `hw` built with `gen`.
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
        p("wbs_adr_i", HOST_ADDR_BITS, Dir::In),
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
        p("gm_tga_o", TAG_BITS, Dir::Out),
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

/// Width of the host slave's word address `wbs_adr_i` (§14.4).
pub const HOST_ADDR_BITS: usize = 17;
/// Width of the global-memory master's address tag `gm_tga_o` (§14.5).
pub const TAG_BITS: usize = 4;

#[cfg(test)]
mod tests {
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
