//! `concord`: the command line of the Concord SIMT co-design kit.
//!
//! Each subcommand is a thin shell over a library crate: `asm`/`disasm` over
//! `concord_isa::asm`/`disasm`, `run` over launch descriptions and the
//! functional model, `config check` over `CoreConfig`, `bench` over
//! [`bench`]. Every failure is one `error:` line on stderr (assembly errors
//! add the source line and a caret) and a non-zero exit.

mod bench;
mod bench_compiler;
mod compile;
mod error;
mod fuzz;
mod hw;
mod rtl;
mod run;
mod study;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use concord_isa::config::CoreConfig;
use concord_isa::container::Kernel;
use concord_isa::input;

use error::CliError;

#[derive(Parser)]
#[command(
    name = "concord",
    version,
    about = "Concord: a SIMT core with stack-less min-PC reconvergence, its assembler and its models",
    after_help = "Examples:\n  concord run kernels/vecadd.yaml\n  concord run kernels/vecadd.yaml --json --trace vecadd.jsonl\n  concord asm kernels/vecadd.s -o vecadd.cbin\n  concord disasm vecadd.cbin\n  concord run kernels/collatz.yaml --model rtl\n  concord verilog -o core.v\n  concord config check configs/default.yaml\n  concord bench"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Assemble a `.s` file into a kernel container (`.cbin`).
    #[command(after_help = "Example:\n  concord asm kernels/vecadd.s -o vecadd.cbin")]
    Asm {
        /// Assembly source; `-` reads standard input (then -o is needed).
        input: PathBuf,
        /// Output container; defaults to the input with the extension `.cbin`.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Disassemble a kernel container into assembly that re-assembles to the same binary.
    #[command(after_help = "Example:\n  concord disasm vecadd.cbin -o vecadd.s")]
    Disasm {
        /// Kernel container; `-` reads standard input.
        input: PathBuf,
        /// Write the listing here instead of standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Compile a CUDA-C kernel (`.cu`) to a kernel container, assembly or IR.
    #[command(
        after_help = "Examples:\n  concord compile kernels/suite/reduce.cu --stats\n  concord compile kernels/suite/nqueens.cu --emit asm -o nqueens.s --regs 8\n  concord compile kernels/suite/scan.cu --emit ir"
    )]
    Compile(compile::CompileArgs),
    /// Run a launch description (program, grid, arguments) and print results and statistics.
    #[command(
        after_help = "Examples:\n  concord run kernels/vecadd.yaml\n  concord run kernels/divergence.yaml --config configs/wide.yaml --trace trace.jsonl\n  concord run kernels/vecadd.yaml --json"
    )]
    Run(run::RunArgs),
    /// Work with core configuration files.
    Config {
        #[command(subcommand)]
        command: ConfigCommand,
    },
    /// Run a launch on the RTL in lock-step with the cycle model (same as `run --model rtl`).
    #[command(after_help = "Example:\n  concord cosim kernels/collatz.yaml --vcd collatz.vcd")]
    Cosim(run::CosimArgs),
    /// Write the core's Verilog for a configuration.
    #[command(after_help = "Example:\n  concord verilog --config configs/default.yaml -o core.v")]
    Verilog(hw::VerilogArgs),
    /// Synthesize the core for iCE40 and ECP5 with Yosys and write an area table.
    #[command(
        after_help = "Example:\n  concord synth-report --config configs/default.yaml -o area.md"
    )]
    SynthReport(hw::SynthReportArgs),
    /// Run random programs on the timed models and check them against the functional model.
    #[command(
        after_help = "Examples:\n  concord fuzz-core --programs 200 --config configs/small.yaml\n  concord fuzz-core --programs 5000 --cycle-only"
    )]
    FuzzCore(fuzz::FuzzArgs),
    /// Measure model throughput (functional model; with --core, the cycle model and the RTL).
    Bench(bench::BenchArgs),
    /// Run a study: a kernel under several compiler or core settings, as a table.
    #[command(
        subcommand,
        after_help = "Example:\n  concord study flatten --ratios 1/10,1/100"
    )]
    Study(study::Study),
}

#[derive(Subcommand)]
enum ConfigCommand {
    /// Validate configuration files and print their parameters.
    #[command(
        after_help = "Example:\n  concord config check configs/default.yaml configs/wide.yaml"
    )]
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print the default configuration as YAML.
    Default,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let message = &error.message;
            // Source diagnostics arrive rendered, with their own headers.
            if message.starts_with("error") || message.starts_with("warning") {
                eprintln!("{message}");
            } else {
                eprintln!("error: {message}");
            }
            ExitCode::from(error.class.exit_code())
        }
    }
}

fn dispatch(command: Command) -> Result<(), CliError> {
    match command {
        Command::Asm { input, output } => {
            let kernel = load_assembly(&input)?;
            let output = match output {
                Some(output) => output,
                None if is_stdin(&input) => {
                    return Err(CliError::usage(
                        "`asm -` reads standard input: give the output file with -o",
                    ))
                }
                None => input.with_extension("cbin"),
            };
            write_atomically(&output, &kernel.to_bytes())?;
            eprintln!(
                "{}: {} words, {} entr{}, {} registers, {} predicates",
                output.display(),
                kernel.code.len(),
                kernel.entries.len(),
                if kernel.entries.len() == 1 {
                    "y"
                } else {
                    "ies"
                },
                kernel.regs_used,
                kernel.preds_used
            );
            Ok(())
        }
        Command::Disasm { input, output } => {
            let (bytes, file) = if is_stdin(&input) {
                (
                    input::read_stdin_bytes(input::Kind::Container),
                    input::STDIN_NAME.into(),
                )
            } else {
                (
                    input::read_bytes(&input, input::Kind::Container),
                    input::show_path(&input),
                )
            };
            let bytes = bytes.map_err(|e| e.to_string())?;
            let kernel = Kernel::from_bytes(&bytes).map_err(|e| format!("{file}: {e}"))?;
            let text = concord_isa::disasm::disassemble(&kernel);
            match output {
                Some(path) => Ok(write_atomically(&path, text.as_bytes())?),
                None => {
                    print!("{text}");
                    Ok(())
                }
            }
        }
        Command::Run(args) => Ok(run::run(args)?),
        Command::Compile(args) => Ok(compile::run(args)?),
        Command::Study(study) => Ok(study::run(study)?),
        Command::Config {
            command: ConfigCommand::Check { files },
        } => {
            for file in files {
                let c = CoreConfig::load(&file).map_err(|e| e.to_string())?;
                println!(
                    "{}: ok: {} lanes x {} warps, {} registers, {} predicates, {} B shared in {} banks, {} imem words, call depth {} bits, {} B global (latency {}, {} B lines), {}",
                    file.display(),
                    c.lanes,
                    c.warps,
                    c.registers,
                    c.predicates,
                    c.shared_memory_bytes,
                    c.shared_banks,
                    c.imem_words,
                    c.call_depth_bits,
                    c.global_memory_bytes,
                    c.global_latency,
                    c.global_line_bytes,
                    c.arbitration.name()
                );
            }
            Ok(())
        }
        Command::Config {
            command: ConfigCommand::Default,
        } => {
            print!("{}", CoreConfig::default().to_yaml());
            Ok(())
        }
        Command::Bench(args) => Ok(bench::run(args)?),
        Command::Cosim(args) => Ok(run::run(args.into_run())?),
        Command::Verilog(args) => Ok(hw::verilog(args)?),
        Command::SynthReport(args) => Ok(hw::synth_report(args)?),
        Command::FuzzCore(args) => Ok(fuzz::run(args)?),
    }
}

/// Whether an input path is `-`: standard input (`asm`, `disasm` and
/// `compile` read it; see README, "Input files").
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

fn load_assembly(path: &Path) -> Result<Kernel, String> {
    let (source, file) = if is_stdin(path) {
        (
            input::read_stdin_text(input::Kind::Assembly),
            input::STDIN_NAME.into(),
        )
    } else {
        (
            input::read_text(path, input::Kind::Assembly),
            path.display().to_string(),
        )
    };
    let source = source.map_err(|e| e.to_string())?;
    concord_isa::asm::assemble(&source, &file).map_err(|e| e.to_string())
}

/// Writes through a temporary file in the same directory and renames it, so
/// that a failure never leaves a half-written output behind.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| format!("{}: not a file path", path.display()))?;
    let tmp = dir.join(format!(
        ".{}.tmp{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("{}: {e}", path.display())
    })
}
