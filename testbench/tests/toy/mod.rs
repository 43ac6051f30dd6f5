//! A toy `concord_core` for the harness's own tests (build cache,
//! interrupted builds, a missing Verilator): the real port list of a small
//! core (`core_ports`, board preset: no trace port), and a host slave that
//! is one data register: every write stores `wbs_dat_i`, every read returns
//! it, `ACK` one cycle after each request. Every other output is 0. It
//! builds in seconds, where the real core takes a minute.

#![allow(dead_code)]

use std::fmt::Write as _;

use concord_isa::config::CoreConfig;
use concord_testbench::pipeline::{host_read, host_write};
use concord_testbench::verilator::{BuildOptions, HarnessError, RtlV2};
use concord_uarch::ports::{core_ports, Dir, Port};
use concord_uarch::wishbone::Signals;
use concord_uarch::{GenOptions, HwParams};

/// The toy's configuration: one warp of 4 lanes.
pub fn config() -> CoreConfig {
    CoreConfig {
        lanes: 4,
        warps: 1,
        ..CoreConfig::default()
    }
}

/// The toy's generator options (the port list depends on them).
pub fn gen() -> GenOptions {
    GenOptions::board()
}

/// The toy's Verilog.
pub fn verilog() -> String {
    let hw = HwParams::new(&config()).unwrap();
    let ports = core_ports(&hw, &gen());
    let mut v = module_header(
        "A toy concord_core for testing the harness: the host slave is one register.",
        &ports,
        &["wbs_ack_o", "wbs_dat_o"],
    );
    v += "    always @(posedge clk) wbs_ack_o <= !rst & wbs_cyc_i & wbs_stb_i;\n";
    v += "    always @(posedge clk) if (rst) wbs_dat_o <= 32'd0; else if (wbs_cyc_i & wbs_stb_i & wbs_we_i) wbs_dat_o <= wbs_dat_i;\n";
    for p in ports.iter().filter(|p| p.dir == Dir::Out) {
        if !matches!(p.name, "wbs_ack_o" | "wbs_dat_o") {
            let _ = writeln!(v, "    assign {} = {}'d0;", p.name, p.width);
        }
    }
    // The inputs the toy does not read.
    v += "    wire _unused = &{1'b0, wbs_adr_i";
    for p in ports.iter().filter(|p| p.dir == Dir::In) {
        if p.name.starts_with("gm_") {
            let _ = write!(v, ", {}", p.name);
        }
    }
    v += "};\nendmodule\n";
    v
}

/// The start of a toy `concord_core` with exactly `ports`, up to and
/// including the port list's `);`: outputs named in `registered` are
/// `output reg`, the others `output wire`.
pub fn module_header(comment: &str, ports: &[Port], registered: &[&str]) -> String {
    let decls: Vec<String> = ports
        .iter()
        .map(|p| {
            let range = if p.width > 1 {
                format!("[{}:0] ", p.width - 1)
            } else {
                String::new()
            };
            let kind = match p.dir {
                Dir::In => "input wire",
                Dir::Out if registered.contains(&p.name) => "output reg",
                Dir::Out => "output wire",
            };
            format!("    {kind} {range}{}", p.name)
        })
        .collect();
    format!(
        "// {comment}\nmodule concord_core (\n{}\n);\n",
        decls.join(",\n")
    )
}

/// Builds `verilog` (the toy, or a variant of its text) as the toy.
pub fn build(verilog: &str, options: &BuildOptions) -> Result<RtlV2, HarnessError> {
    RtlV2::build(verilog, &config(), &gen(), options)
}

/// The model works: a host write comes back through a host read.
pub fn works(rtl: &mut RtlV2) {
    let idle = Signals::idle();
    rtl.reset();
    rtl.step(&host_write(0x40, 0x1234_5678), &idle);
    rtl.step(&host_read(0x40), &idle);
    let answer = rtl.step(&idle, &idle).host;
    assert!(answer.ack, "the read is acknowledged the cycle after it");
    assert_eq!(answer.dat_r[0], 0x1234_5678);
}
