//! The CLI's failure classes and their exit codes: the one rule every
//! subcommand follows (documented in `docs/errors.md`).
//!
//! A command ends with exit 0, or with exactly one `error:` report on
//! stderr (a rendered source diagnostic may add its own lines below it) and
//! the exit code of its class, or silently with 141 when the reader of its
//! standard output went away. A panic (exit 101) is always a bug.

use std::fmt;

/// What kind of failure ended a command; each has its own exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorClass {
    /// A bad input: a file that cannot be read, is malformed or invalid
    /// (assembly, CUDA-C, container, launch, config), or an output that
    /// cannot be written. Exit 1.
    Input,
    /// A bad command line: unknown flag, missing argument, flag value out of
    /// range, flags that cannot go together, an output path that is also an
    /// input. Exit 2 (clap's own usage errors use 2 as well).
    Usage,
    /// The kernel ran and stopped on a trap (address out of range, stack
    /// overflow, deadlock, watchdog, ...): a fault of the program, reported
    /// with block, warp, lanes and PC. Exit 3.
    Trap,
    /// Two models disagreed (lock-step divergence between the cycle model and
    /// the RTL, or final state against the functional model): a Concord bug.
    /// Exit 4.
    Mismatch,
    /// An external tool (Verilator, the C++ compiler, Yosys, nextpnr) is
    /// missing or failed. Exit 5.
    Tool,
    /// The reader of standard output (or of an output FIFO) closed it, as
    /// `concord disasm k.cbin | head -1` does: the command stops at once
    /// and prints nothing. Exit 141, what a shell reports for a program
    /// that a closed pipe ended (128 + SIGPIPE), as `cat` in the same pipe.
    ClosedPipe,
}

impl ErrorClass {
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorClass::Input => 1,
            ErrorClass::Usage => 2,
            ErrorClass::Trap => 3,
            ErrorClass::Mismatch => 4,
            ErrorClass::Tool => 5,
            ErrorClass::ClosedPipe => 141,
        }
    }
}

/// A failed command: its class and its one-line message (without the
/// `error: ` prefix, which `main` adds unless the message is an already
/// rendered diagnostic).
#[derive(Debug)]
pub struct CliError {
    pub class: ErrorClass,
    pub message: String,
}

impl CliError {
    pub fn new(class: ErrorClass, message: impl Into<String>) -> Self {
        CliError {
            class,
            message: message.into(),
        }
    }
    pub fn usage(message: impl Into<String>) -> Self {
        CliError::new(ErrorClass::Usage, message)
    }
    pub fn trap(message: impl Into<String>) -> Self {
        CliError::new(ErrorClass::Trap, message)
    }
    pub fn mismatch(message: impl Into<String>) -> Self {
        CliError::new(ErrorClass::Mismatch, message)
    }
    pub fn tool(message: impl Into<String>) -> Self {
        CliError::new(ErrorClass::Tool, message)
    }
    pub fn closed_pipe() -> Self {
        CliError::new(ErrorClass::ClosedPipe, "")
    }
}

/// Plain string errors are input errors, the common case.
impl From<String> for CliError {
    fn from(message: String) -> Self {
        CliError::new(ErrorClass::Input, message)
    }
}

impl From<&str> for CliError {
    fn from(message: &str) -> Self {
        CliError::new(ErrorClass::Input, message)
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl CliError {
    /// The same failure with `context` (a file, a seed, a setting) put
    /// before its message.
    pub fn context(self, context: impl fmt::Display) -> Self {
        CliError {
            class: self.class,
            message: format!("{context}: {}", self.message),
        }
    }
}

/// A kernel's trap: its report (block, warp, lanes, PC, cause).
impl From<concord_isa::func::Trap> for CliError {
    fn from(trap: concord_isa::func::Trap) -> Self {
        CliError::trap(trap.to_string())
    }
}

/// A run that did not complete: a trap, or a run stopped by its per-step
/// hook. In the CLI only an output stops a run (its size limit or a failed
/// write), and that output reports why first: this message is a fallback.
impl<S> From<concord_isa::func::RunError<S>> for CliError {
    fn from(e: concord_isa::func::RunError<S>) -> Self {
        match e {
            concord_isa::func::RunError::Trap(trap) => CliError::from(trap),
            concord_isa::func::RunError::Stopped(_) => {
                CliError::from("the run was stopped before the launch ended")
            }
        }
    }
}

/// Lock-step co-simulation: the RTL disagreeing with the cycle model (a
/// cycle, a protocol rule, the final state) is a mismatch; the model's own
/// failure (a refused launch, a pipeline deadlock) is reported as the
/// cycle model's run is, a core built for another configuration is an
/// input error, and a run stopped by its hook an output's doing (as for
/// `RunError` above).
impl From<concord_testbench::lockstep::LockstepError> for CliError {
    fn from(e: concord_testbench::lockstep::LockstepError) -> Self {
        use concord_testbench::lockstep::LockstepError;
        let class = match &e {
            LockstepError::Mismatch(_) | LockstepError::Protocol(_) | LockstepError::Final(_) => {
                ErrorClass::Mismatch
            }
            LockstepError::Model(_) | LockstepError::Setup(_) | LockstepError::Stopped(_) => {
                ErrorClass::Input
            }
        };
        CliError::new(class, e.to_string().trim_end())
    }
}

/// The Verilator harness: building or loading the model is the tool's
/// failure; a VCD that cannot be opened is an unwritable output.
impl From<concord_testbench::verilator::HarnessError> for CliError {
    fn from(e: concord_testbench::verilator::HarnessError) -> Self {
        use concord_testbench::verilator::HarnessError;
        let class = match &e {
            HarnessError::Vcd(_)
            | HarnessError::CacheDir { .. }
            | HarnessError::NoCacheDir
            | HarnessError::Io { .. } => ErrorClass::Input,
            _ => ErrorClass::Tool,
        };
        CliError::new(class, e.to_string().trim_end())
    }
}

/// Yosys and nextpnr: missing, failed, or printing what cannot be read.
impl From<concord_fpga::FlowError> for CliError {
    fn from(e: concord_fpga::FlowError) -> Self {
        CliError::tool(e.to_string().trim_end())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_are_the_documented_ones() {
        let codes: Vec<u8> = [
            ErrorClass::Input,
            ErrorClass::Usage,
            ErrorClass::Trap,
            ErrorClass::Mismatch,
            ErrorClass::Tool,
            ErrorClass::ClosedPipe,
        ]
        .map(ErrorClass::exit_code)
        .into();
        assert_eq!(codes, [1, 2, 3, 4, 5, 141]);
    }

    #[test]
    fn lockstep_failures_are_classified_by_their_type() {
        use concord_testbench::lockstep::LockstepError;
        let final_state = CliError::from(LockstepError::Final("global memory".into()));
        assert_eq!(final_state.class, ErrorClass::Mismatch);
        let setup = CliError::from(LockstepError::Setup("another configuration".into()));
        assert_eq!(setup.class, ErrorClass::Input);
    }

    #[test]
    fn harness_failures_are_tool_failures_except_the_vcd_file() {
        use concord_testbench::verilator::HarnessError;
        assert_eq!(
            CliError::from(HarnessError::VerilatorNotFound(
                concord_fpga::tools::ToolMissing {
                    tool: "verilator",
                    why: "nowhere".into()
                }
            ))
            .class,
            ErrorClass::Tool
        );
        assert_eq!(
            CliError::from(HarnessError::Vcd("x.vcd".into())).class,
            ErrorClass::Input
        );
    }

    #[test]
    fn context_keeps_the_class() {
        let e = CliError::trap("watchdog").context("seed 7");
        assert_eq!(e.class, ErrorClass::Trap);
        assert_eq!(e.message, "seed 7: watchdog");
    }
}
