//! `concord`: the command line of the Concord SIMT co-design kit.
//!
//! Each subcommand is a thin shell over a library crate: `asm`/`disasm` over
//! `concord_isa::asm`/`disasm`, `run` over launch descriptions and the
//! functional model, `config check` over `CoreConfig`, `bench` over
//! [`bench`]. Every failure is one `error:` line on stderr (assembly errors
//! add the source line and a caret) and the exit code of its class
//! ([`error`], `docs/errors.md`); results are written through [`output`].

mod bench;
mod bench_compiler;
mod cache;
mod compile;
mod error;
mod fuzz;
mod hw;
mod output;
mod rtl;
mod run;
mod study;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use concord_isa::config::CoreConfig;
use concord_isa::container::Kernel;
use concord_isa::input;

use error::CliError;
use output::{outln, Output};

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
    /// Write the core's Verilog for a configuration (board preset by default).
    #[command(
        after_help = "Examples:\n  concord verilog --config configs/default.yaml -o core.v\n  concord verilog --preset sim -o core-sim.v"
    )]
    Verilog(hw::VerilogArgs),
    /// Synthesize the core for iCE40 and ECP5 with Yosys and write an area table; with --pnr, place and route it with nextpnr and add Fmax and utilisation.
    #[command(
        after_help = "Devices for --pnr: ecp5-25f, ecp5-45f, ecp5-85f (LFE5U, speed 6, CABGA381), ice40-hx8k (CT256).\n\nExamples:\n  concord synth-report --config configs/default.yaml -o area.md\n  concord synth-report --config configs/small.yaml --pnr ecp5-45f --pnr-dir pnr-small -o small.md\n  concord synth-report --config configs/small.yaml --no-area --pnr ecp5-25f --pnr ecp5-85f -o fit.md\n  concord synth-report --config configs/small.yaml --lanes-delta 4,8 --no-area -o per-lane.md"
    )]
    SynthReport(hw::SynthReportArgs),
    /// Run random programs on the timed models and check them against the functional model.
    #[command(
        after_help = "Examples:\n  concord fuzz-core --programs 200 --config configs/small.yaml\n  concord fuzz-core --programs 5000 --cycle-only"
    )]
    FuzzCore(fuzz::FuzzArgs),
    /// Measure model throughput (functional model; with --core, the cycle model and the RTL alone).
    Bench(bench::BenchArgs),
    /// Run a study: a kernel under several compiler or core settings, as a table.
    #[command(
        subcommand,
        after_help = "Example:\n  concord study flatten --ratios 1/10,1/100"
    )]
    Study(study::Study),
    /// Show or clear the cache of Verilator-built RTL models.
    #[command(
        subcommand,
        after_help = "Examples:\n  concord cache info\n  concord cache clean\n\nLocation: $CONCORD_RTL_CACHE, else $XDG_CACHE_HOME/concord, else ~/.cache/concord."
    )]
    Cache(cache::CacheCommand),
}

#[derive(Subcommand)]
enum ConfigCommand {
    /// Validate configuration files and print their parameters and whether the hardware can build them.
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
    output::install_signal_cleanup();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_exit(e),
    };
    match dispatch(cli.command).and_then(|()| output::flush_stdout()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let message = &error.message;
            // Nothing to say when the reader of our output went away; and
            // if stderr itself is gone, the exit code is all that is left.
            if error.class != error::ErrorClass::ClosedPipe {
                let mut stderr = std::io::stderr().lock();
                // Source diagnostics arrive rendered, with their own headers.
                let _ = if message.starts_with("error") || message.starts_with("warning") {
                    writeln!(stderr, "{message}")
                } else {
                    writeln!(stderr, "error: {message}")
                };
            }
            ExitCode::from(error.class.exit_code())
        }
    }
}

/// Help and version on stdout (exit 0, or 141 if its reader went away),
/// usage errors on stderr (exit 2), without clap's panics on a closed
/// stream.
fn clap_exit(e: clap::Error) -> ExitCode {
    if e.use_stderr() {
        let _ = e.print();
        return ExitCode::from(error::ErrorClass::Usage.exit_code());
    }
    // Styled as clap would print it: on a terminal only.
    let text = if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        e.render().ansi().to_string()
    } else {
        e.render().to_string()
    };
    match output::write_stdout(text.as_bytes()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            if error.class != error::ErrorClass::ClosedPipe {
                let _ = writeln!(std::io::stderr(), "error: {}", error.message);
            }
            ExitCode::from(error.class.exit_code())
        }
    }
}

fn dispatch(command: Command) -> Result<(), CliError> {
    match command {
        Command::Asm { input, output } => {
            let path = match output {
                Some(output) => output,
                None if is_stdin(&input) => {
                    return Err(CliError::usage(
                        "`asm -` reads standard input: give the output file with -o",
                    ))
                }
                None => input.with_extension("cbin"),
            };
            let out = Output::open(&path)?;
            output::check_distinct(&[("-o", &out)], &[("the assembly source", &input)])?;
            let kernel = load_assembly(&input)?;
            let summary = format!(
                "{}: {} words, {} entr{}, {} registers, {} predicates",
                out.label(),
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
            out.write_all_and_finish(&kernel.to_bytes())?;
            note(&summary);
            Ok(())
        }
        Command::Disasm { input, output } => {
            let out = match &output {
                Some(path) => Output::open(path)?,
                None => Output::open(Path::new("-"))?,
            };
            output::check_distinct(&[("-o", &out)], &[("the container", &input)])?;
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
            out.write_all_and_finish(text.as_bytes())
        }
        Command::Run(args) => run::run(args),
        Command::Compile(args) => compile::run(args),
        Command::Study(study) => study::run(study),
        Command::Config {
            command: ConfigCommand::Check { files },
        } => {
            for file in files {
                let c = CoreConfig::load(&file).map_err(|e| e.to_string())?;
                // Valid for every model; the timed models and the RTL also
                // need the hardware's rules (`concord_uarch::HwParams`).
                let hardware = match concord_uarch::HwParams::new(&c) {
                    Ok(hw) => format!(
                        "hardware: {} register-file rows, {} shared rows x {} banks, {}-bit PCs",
                        hw.rf_rows, hw.shared_rows, hw.shared_banks, hw.pc_bits
                    ),
                    Err(e) => format!("functional model only, the hardware cannot build it: {e}"),
                };
                outln!(
                    "{}: ok: {} lanes x {} warps, {} registers, {} predicates, {} B shared in {} banks, {} imem words, call depth {} bits, {} B global (latency {}, {} B lines), {}; {hardware}",
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
                )?;
            }
            Ok(())
        }
        Command::Config {
            command: ConfigCommand::Default,
        } => output::write_stdout(CoreConfig::default().to_yaml().as_bytes()),
        Command::Bench(args) => bench::run(args),
        Command::Cosim(args) => run::run(args.into_run()),
        Command::Verilog(args) => hw::verilog(args),
        Command::SynthReport(args) => hw::synth_report(args),
        Command::FuzzCore(args) => fuzz::run(args),
        Command::Cache(command) => cache::run(command),
    }
}

/// A progress or summary line on stderr; a closed stderr is not worth
/// failing the command for.
pub fn note(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
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
