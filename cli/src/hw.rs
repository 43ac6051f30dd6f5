//! `concord verilog` and `concord synth-report`: the generated core as a
//! file, and its area on iCE40 and ECP5.

use std::path::PathBuf;

use clap::Args;

use concord_isa::config::CoreConfig;

use crate::write_atomically;

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

pub fn verilog(args: VerilogArgs) -> Result<(), String> {
    let text = verilog_for(&args.config)?;
    write_atomically(&args.output, text.as_bytes())?;
    eprintln!(
        "{}: {} lines of Verilog, top module `concord_core`",
        args.output.display(),
        text.lines().count()
    );
    Ok(())
}

pub fn synth_report(args: SynthReportArgs) -> Result<(), String> {
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
    )
    .map_err(|e| e.to_string())?;
    let md = report.to_markdown();
    write_atomically(&args.output, md.as_bytes())?;
    print!("{md}");
    Ok(())
}
