//! Building the RTL model for a configuration: Verilog from `concord-hdl`,
//! compiled and cached by the Verilator harness.

use concord_isa::config::CoreConfig;
use concord_testbench::verilator::{BuildOptions, Rtl};

/// The Verilated core for `config` (cached by a hash of its Verilog).
pub fn build(config: &CoreConfig, waveforms: bool) -> Result<Rtl, String> {
    let verilog = concord_hdl::generate_verilog(config).map_err(|e| e.to_string())?;
    Rtl::build(
        &verilog,
        &BuildOptions {
            trace: waveforms,
            ..BuildOptions::default()
        },
    )
    .map_err(|e| e.to_string())
}
