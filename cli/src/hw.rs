//! `concord verilog` and `concord synth-report`: the generated core as a
//! file, and its area on iCE40 and ECP5.

use std::path::{Path, PathBuf};

use clap::Args;

use concord_isa::config::CoreConfig;
use concord_uarch::HwParams;

use crate::error::CliError;
use crate::output::{self, Output};

#[derive(Args)]
pub struct VerilogArgs {
    /// Core configuration (YAML); the default core otherwise.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Output file.
    #[arg(short, long)]
    output: PathBuf,
}

#[derive(Args)]
pub struct SynthReportArgs {
    /// Core configuration (YAML); the default core otherwise.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Where to write the Markdown table.
    #[arg(short, long, default_value = "synth-report.md")]
    output: PathBuf,
}

/// Whether the hardware (the RTL, and the cycle model that mirrors it) can
/// be built for `config`: `concord_uarch::HwParams::new`, the one rule set,
/// its error naming `file` (where the configuration came from) and the
/// field.
pub fn check_buildable(config: &CoreConfig, file: Option<&Path>) -> Result<HwParams, String> {
    HwParams::new(config).map_err(|e| match file {
        Some(p) => format!("{}: {e}", p.display()),
        None => e.to_string(),
    })
}

pub fn load_config(path: &Option<PathBuf>) -> Result<CoreConfig, String> {
    match path {
        Some(p) => CoreConfig::load(p).map_err(|e| e.to_string()),
        None => Ok(CoreConfig::default()),
    }
}

fn verilog_for(path: &Option<PathBuf>) -> Result<String, String> {
    let config = load_config(path)?;
    concord_hdl::generate_verilog(&config).map_err(|e| match path {
        Some(p) => format!("{}: {e}", p.display()),
        None => e.to_string(),
    })
}

/// Opens the output of `verilog` or `synth-report` before the work, and
/// refuses it if it is the config.
fn open_output(path: &std::path::Path, config: &Option<PathBuf>) -> Result<Output, CliError> {
    let out = Output::open(path)?;
    let inputs: Vec<(&str, &std::path::Path)> =
        config.iter().map(|c| ("the config", c.as_path())).collect();
    output::check_distinct(&[("-o", &out)], &inputs)?;
    Ok(out)
}

pub fn verilog(args: VerilogArgs) -> Result<(), CliError> {
    let out = open_output(&args.output, &args.config)?;
    let text = verilog_for(&args.config)?;
    let summary = format!(
        "{}: {} lines of Verilog, top module `concord_core`",
        out.label(),
        text.lines().count()
    );
    out.write_all_and_finish(text.as_bytes())?;
    crate::note(&summary);
    Ok(())
}

pub fn synth_report(args: SynthReportArgs) -> Result<(), CliError> {
    let out = open_output(&args.output, &args.config)?;
    let text = verilog_for(&args.config)?;
    let title = format!(
        "Concord core area ({})",
        args.config
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "default config".into())
    );
    let report = concord_fpga::AreaReport::build(
        &title,
        &text,
        "concord_core",
        &[concord_hdl::ARBITER_MODULE],
    )?;
    let md = report.to_markdown();
    let to_stdout = out.kind() == output::Kind::Stdout;
    out.write_all_and_finish(md.as_bytes())?;
    if !to_stdout {
        output::write_stdout(md.as_bytes())?;
    }
    Ok(())
}
