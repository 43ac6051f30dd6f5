//! The CLI's failure classes and their exit codes: the one rule every
//! subcommand follows (documented in `docs/errors.md`).
//!
//! A command ends with exit 0, or with exactly one `error:` report on
//! stderr (a rendered source diagnostic may add its own lines below it) and
//! the exit code of its class. A panic (exit 101) is always a bug.

use std::fmt;

/// What kind of failure ended a command; each has its own exit code.
// TODO(hardening): every class is constructed once the subcommands classify their errors.
#[allow(dead_code)]
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
}

impl ErrorClass {
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorClass::Input => 1,
            ErrorClass::Usage => 2,
            ErrorClass::Trap => 3,
            ErrorClass::Mismatch => 4,
            ErrorClass::Tool => 5,
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

#[allow(dead_code)]
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
