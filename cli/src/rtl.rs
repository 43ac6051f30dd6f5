//! Building the RTL model for a configuration: Verilog from `concord-hdl`,
//! compiled and cached by the Verilator harness (location, verification,
//! locking and progress: `concord_testbench::verilator::cache`).

use concord_isa::config::CoreConfig;
use concord_testbench::verilator::{BuildOptions, Rtl};

use crate::error::CliError;

/// The Verilated core for `config` (cached by a hash of its Verilog). A
/// configuration the generator refuses is an input error; the harness's
/// errors keep their own classes (a tool failure, or a cache directory that
/// cannot be written).
pub fn build(config: &CoreConfig, waveforms: bool) -> Result<Rtl, CliError> {
    let verilog = concord_hdl::generate_verilog(config).map_err(|e| e.to_string())?;
    Rtl::build(
        &verilog,
        &BuildOptions {
            trace: waveforms,
            label: Some(label(config)),
            ..BuildOptions::default()
        },
    )
    .map_err(CliError::from)
}

/// A configuration in a few words, for the progress line and `concord
/// cache info` (the entry's Verilog has the whole configuration in its
/// header).
pub fn label(c: &CoreConfig) -> String {
    format!(
        "{} lanes x {} warp{}, {} registers, {}",
        c.lanes,
        c.warps,
        if c.warps == 1 { "" } else { "s" },
        c.registers,
        c.arbitration.name()
    )
}
