//! Building the RTL model for a configuration: the core's Verilog from
//! `concord-hdl` (`concord_hdl::v2::core::core_verilog`, generated with the
//! co-simulation options: trace port, 64-bit counters, debug registers),
//! compiled and cached by the Verilator harness (location, verification,
//! locking and progress: `concord_testbench::verilator::cache`).

use std::path::Path;

use concord_isa::config::CoreConfig;
use concord_testbench::verilator::{BuildOptions, RtlV2};
use concord_uarch::GenOptions;

use crate::error::CliError;

/// The Verilated core for `config` (cached by a hash of its Verilog), with
/// VCD support when `waveforms`. A configuration the generator refuses is
/// an input error naming `file` (where the configuration came from); the
/// harness's errors keep their own classes (a tool failure, or a cache
/// directory that cannot be written).
pub fn build(config: &CoreConfig, file: Option<&Path>, waveforms: bool) -> Result<RtlV2, CliError> {
    let gen = GenOptions::sim();
    let verilog = concord_hdl::v2::core::core_verilog(config, &gen).map_err(|e| match file {
        Some(p) => format!("{}: {e}", p.display()),
        None => e.to_string(),
    })?;
    RtlV2::build(
        &verilog,
        config,
        &gen,
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
        "{} lanes x {} warp{}, {} registers, {}, {} scheduler, {} arbiter",
        c.lanes,
        c.warps,
        if c.warps == 1 { "" } else { "s" },
        c.registers,
        c.arbitration.name(),
        c.scheduler.name(),
        c.arbiter.name()
    )
}
