//! Where the CLI's results go, and how writing them can fail.
//!
//! * [`Output`]: a file named on the command line (`-o`, `--trace`,
//!   `--vcd`), opened before the command does its work so that a bad path
//!   fails at once. A regular file is written to a temporary file beside it
//!   and renamed over it at the end, so that it is never left half-written;
//!   a character device (`/dev/null`) or a FIFO is written directly and
//!   never replaced; `-` (and `/dev/stdout`) is standard output. A symbolic
//!   link is followed: its final target is replaced, the link kept.
//! * [`check_distinct`]: an output that is one of the command's inputs
//!   (same device and inode) is refused before anything is written.
//! * [`outln!`] and [`write_stdout`]: results on standard output. A reader
//!   that went away ends the command quietly (exit 141), a full disk is an
//!   `error:` line; never a panic.
//! * [`install_signal_cleanup`]: SIGINT, SIGTERM and SIGHUP remove the
//!   temporary files still pending and exit 128 + the signal (130, 143,
//!   129); destructors do not run on a signal, so they cannot do it.
//!
//! The rules are documented in `docs/errors.md` (output files).

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tempfile::NamedTempFile;

use crate::error::CliError;

/// `println!` for a command's results: a write error ends the command
/// (through `?`) instead of panicking.
macro_rules! outln {
    () => {
        $crate::output::print_stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::print_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}
pub(crate) use outln;

/// Writes formatted text to standard output; see [`outln!`].
pub fn print_stdout(args: std::fmt::Arguments<'_>) -> Result<(), CliError> {
    io::stdout()
        .lock()
        .write_fmt(args)
        .map_err(|e| write_error("standard output", e))
}

/// Writes `bytes` to standard output and flushes it.
pub fn write_stdout(bytes: &[u8]) -> Result<(), CliError> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| write_error("standard output", e))
}

/// Flushes standard output at the end of a command: text without a final
/// newline is still buffered, and Rust's own flush at exit ignores errors.
pub fn flush_stdout() -> Result<(), CliError> {
    io::stdout()
        .lock()
        .flush()
        .map_err(|e| write_error("standard output", e))
}

/// The error of a failed write to `what`: a closed pipe is
/// [`ErrorClass::ClosedPipe`] (no message), anything else an unwritable
/// output.
pub fn write_error(what: &str, e: io::Error) -> CliError {
    if e.kind() == io::ErrorKind::BrokenPipe {
        CliError::closed_pipe()
    } else {
        CliError::from(format!("{what}: {e}"))
    }
}

/// An output file of a command, open from before the work starts until
/// [`Output::finish`].
pub struct Output {
    /// The path as given (`-` for standard output), for messages.
    label: String,
    sink: Sink,
    /// Device and inode of the file it replaces, if that exists.
    identity: Option<(u64, u64)>,
    /// The file that will be written (symbolic links followed, the
    /// directory canonical); `None` for standard output and standard error.
    target: Option<PathBuf>,
}

enum Sink {
    Stdout(BufWriter<io::Stdout>),
    Stderr(io::Stderr),
    /// A character device or a FIFO.
    Direct(BufWriter<File>),
    /// A regular file: written to `temp` beside it, renamed at the end.
    Atomic {
        temp: BufWriter<NamedTempFile>,
        _pending: Pending,
        mode: Option<fs::Permissions>,
    },
}

/// What kind of file an output path leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Stdout,
    Stderr,
    /// A character device or FIFO, written directly.
    Direct,
    /// A regular file (existing or new), replaced atomically.
    Regular,
}

impl Output {
    /// Checks and opens the output `path`: its directory must exist and be
    /// writable and it must not be a directory (nor a block device or a
    /// socket). A FIFO is opened here, so this waits for its reader.
    pub fn open(path: &Path) -> Result<Output, CliError> {
        let label = path.display().to_string();
        let fail = |message: String| CliError::from(format!("{label}: {message}"));
        match std_stream(path) {
            Some(Kind::Stdout) => {
                return Ok(Output {
                    label: "standard output".into(),
                    sink: Sink::Stdout(BufWriter::new(io::stdout())),
                    identity: None,
                    target: None,
                })
            }
            Some(_) => {
                return Ok(Output {
                    label: "standard error".into(),
                    sink: Sink::Stderr(io::stderr()),
                    identity: None,
                    target: None,
                })
            }
            None => {}
        }
        let target = resolve_links(path).map_err(|e| fail(e.to_string()))?;
        let existing = match fs::metadata(&target) {
            Ok(m) => Some(m),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(fail(e.to_string())),
        };
        if let Some(m) = &existing {
            if m.is_dir() {
                return Err(fail("is a directory".into()));
            }
            if is_device_or_fifo(m) {
                // Opened without truncation: a device or FIFO is written
                // to, never replaced.
                let file = OpenOptions::new()
                    .write(true)
                    .open(&target)
                    .map_err(|e| fail(e.to_string()))?;
                return Ok(Output {
                    label,
                    sink: Sink::Direct(BufWriter::new(file)),
                    identity: None,
                    target: Some(target),
                });
            }
            if !m.is_file() {
                return Err(fail(
                    "not a regular file, character device or FIFO: refusing to write to it".into(),
                ));
            }
            // Renaming over a file we may not write would bypass its
            // permissions; opening it (without truncation) checks them.
            OpenOptions::new()
                .write(true)
                .open(&target)
                .map_err(|e| fail(e.to_string()))?;
        }
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target
            .file_name()
            .ok_or_else(|| fail("not a file name".into()))?;
        match fs::metadata(&dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(fail(format!("{} is not a directory", dir.display()))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(fail(format!("directory {} does not exist", dir.display())))
            }
            Err(e) => return Err(fail(format!("{}: {e}", dir.display()))),
        }
        let (temp, pending) = temp_file_in(&dir, name).map_err(|e| {
            fail(format!(
                "cannot create a file in directory {}: {e}",
                dir.display()
            ))
        })?;
        let canonical = fs::canonicalize(&dir).unwrap_or(dir).join(name);
        Ok(Output {
            label,
            identity: existing.as_ref().map(identity),
            target: Some(canonical),
            sink: Sink::Atomic {
                temp: BufWriter::new(temp),
                _pending: pending,
                mode: existing.map(|m| m.permissions()),
            },
        })
    }

    /// The path as the user gave it, or `standard output`.
    pub fn label(&self) -> &str {
        &self.label
    }

    pub fn kind(&self) -> Kind {
        match self.sink {
            Sink::Stdout(_) => Kind::Stdout,
            Sink::Stderr(_) => Kind::Stderr,
            Sink::Direct(_) => Kind::Direct,
            Sink::Atomic { .. } => Kind::Regular,
        }
    }

    /// For a regular file: the temporary file that becomes it, for a writer
    /// that opens files by name (Verilator's VCD writer).
    pub fn temp_path(&self) -> Option<&Path> {
        match &self.sink {
            Sink::Atomic { temp, .. } => Some(temp.get_ref().path()),
            _ => None,
        }
    }

    /// The error of a failed write to this output.
    pub fn error(&self, e: io::Error) -> CliError {
        write_error(&self.label, e)
    }

    /// Writes `bytes` and finishes the output.
    pub fn write_all_and_finish(mut self, bytes: &[u8]) -> Result<(), CliError> {
        self.write_all(bytes).map_err(|e| self.error(e))?;
        self.finish()
    }

    /// Flushes the output; a regular file is synced and renamed over the
    /// target (keeping the replaced file's permissions).
    pub fn finish(self) -> Result<(), CliError> {
        let label = self.label;
        let err = |e: io::Error| write_error(&label, e);
        match self.sink {
            Sink::Stdout(mut out) => out.flush().map_err(err),
            Sink::Stderr(mut out) => out.flush().map_err(err),
            Sink::Direct(mut out) => out.flush().map_err(err),
            Sink::Atomic {
                temp,
                _pending,
                mode,
            } => {
                let temp = temp.into_inner().map_err(|e| err(e.into_error()))?;
                temp.as_file().sync_all().map_err(err)?;
                if let Some(mode) = mode {
                    temp.as_file().set_permissions(mode).map_err(err)?;
                }
                let target = self.target.expect("a regular file has a target");
                temp.persist(&target).map_err(|e| err(e.error))?;
                Ok(())
            }
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.sink {
            Sink::Stdout(out) => out.write(buf),
            Sink::Stderr(out) => out.write(buf),
            Sink::Direct(out) => out.write(buf),
            Sink::Atomic { temp, .. } => temp.write(buf),
        }
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.sink {
            Sink::Stdout(out) => out.write_all(buf),
            Sink::Stderr(out) => out.write_all(buf),
            Sink::Direct(out) => out.write_all(buf),
            Sink::Atomic { temp, .. } => temp.write_all(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match &mut self.sink {
            Sink::Stdout(out) => out.flush(),
            Sink::Stderr(out) => out.flush(),
            Sink::Direct(out) => out.flush(),
            Sink::Atomic { temp, .. } => temp.flush(),
        }
    }
}

/// Refuses outputs that are inputs of the command, or that are the same
/// file as each other: `outputs` and `inputs` pair a description (`-o`,
/// `--trace`; `the launch's program`) with the output or the path. An
/// input is the output if both are the same file (device and inode), so a
/// symbolic or hard link to an input is caught as well. Devices and FIFOs
/// are exempt: writing to one destroys nothing.
pub fn check_distinct(
    outputs: &[(&str, &Output)],
    inputs: &[(&str, &Path)],
) -> Result<(), CliError> {
    for (flag, out) in outputs {
        let Some(id) = out.identity else { continue };
        for (what, input) in inputs {
            if fs::metadata(input).is_ok_and(|m| identity(&m) == id) {
                return Err(CliError::usage(format!(
                    "{} ({flag}) is the same file as {what} {}: refusing to overwrite an input; choose another output",
                    out.label,
                    input.display()
                )));
            }
        }
    }
    for (i, (flag_a, a)) in outputs.iter().enumerate() {
        for (flag_b, b) in &outputs[i + 1..] {
            let same = match (a.kind(), b.kind()) {
                (Kind::Stdout, Kind::Stdout) => true,
                (Kind::Regular, Kind::Regular) => {
                    a.target == b.target || (a.identity.is_some() && a.identity == b.identity)
                }
                _ => false,
            };
            if same {
                return Err(CliError::usage(format!(
                    "{flag_a} and {flag_b} both write to {}; give each its own file",
                    a.label
                )));
            }
        }
    }
    Ok(())
}

#[cfg(unix)]
fn identity(m: &fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino())
}

#[cfg(unix)]
fn is_device_or_fifo(m: &fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    let t = m.file_type();
    t.is_char_device() || t.is_fifo()
}

/// `-`, `/dev/stdout` and the like: the process's own standard streams,
/// written through its descriptors. Opening `/dev/stdout` by name would
/// start at offset 0 of a file the shell opened for appending, and
/// following its link would rename over that file.
fn std_stream(path: &Path) -> Option<Kind> {
    match path.to_str()? {
        "-" | "/dev/stdout" | "/dev/fd/1" | "/proc/self/fd/1" => Some(Kind::Stdout),
        "/dev/stderr" | "/dev/fd/2" | "/proc/self/fd/2" => Some(Kind::Stderr),
        _ => None,
    }
}

/// Follows symbolic links at the end of `path` to the file they name
/// (which may not exist yet). Links inside `/proc/<pid>/fd` name open
/// descriptors, not paths, and are not followed.
fn resolve_links(path: &Path) -> io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        let in_proc_fd = p.starts_with("/proc")
            && p.parent()
                .and_then(Path::file_name)
                .is_some_and(|n| n == "fd");
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() && !in_proc_fd => {
                let next = fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if next.is_relative() => dir.join(next),
                    _ => next,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// The temporary files that a signal must remove.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Registers a temporary file for removal on a signal while it lives.
pub struct Pending(PathBuf);

impl Drop for Pending {
    fn drop(&mut self) {
        let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
        pending.retain(|p| p != &self.0);
    }
}

/// A new temporary file in `dir` for the final name `name`, registered for
/// removal on a signal. New files get the usual `0666 & !umask`, like a
/// file the shell creates, instead of tempfile's private `0600`.
pub fn temp_file_in(dir: &Path, name: &std::ffi::OsStr) -> io::Result<(NamedTempFile, Pending)> {
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(name);
    prefix.push(".");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    // Registered under the lock before it exists, so that a signal between
    // creation and registration cannot miss it.
    let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    let file = builder.tempfile_in(dir)?;
    pending.push(file.path().to_path_buf());
    let guard = Pending(file.path().to_path_buf());
    drop(pending);
    Ok((file, guard))
}

/// A scratch file in the system's temporary directory, registered like
/// [`temp_file_in`]'s.
pub fn scratch_file() -> io::Result<(NamedTempFile, Pending)> {
    let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    let file = tempfile::Builder::new().prefix("concord-").tempfile()?;
    pending.push(file.path().to_path_buf());
    let guard = Pending(file.path().to_path_buf());
    drop(pending);
    Ok((file, guard))
}

/// On SIGINT, SIGTERM or SIGHUP: removes the pending temporary files, stops
/// any Verilator build (`concord_testbench::verilator::kill_builds`) and
/// any Yosys or nextpnr run (`concord_fpga::process::kill_tools`) and
/// exits with 128 + the signal number (130, 143, 129) and no message.
pub fn install_signal_cleanup() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        // Without handlers the default action (termination) stays.
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            // Holding the lock until exit: no new temporary file appears.
            let pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
            for path in pending.iter() {
                let _ = fs::remove_file(path);
            }
            // A Verilator build in progress would also be stopped by its
            // sentinel once this process is gone; stopping it here first
            // leaves no window in which its children outlive us.
            concord_testbench::verilator::kill_builds();
            // Likewise Yosys and nextpnr of `synth-report`.
            concord_fpga::process::kill_tools();
            std::process::exit(128 + signal);
        }
    });
}

/// Parses a byte count for a size-limit flag: a number, optionally
/// followed by `K`, `M`, `G` or `T` (powers of 1024; `KiB`... also read).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let shift = match unit.trim() {
        "" | "B" => 0,
        "K" | "KiB" => 10,
        "M" | "MiB" => 20,
        "G" | "GiB" => 30,
        "T" | "TiB" => 40,
        _ => {
            return Err(format!(
                "`{text}` is not a size: a number of bytes, optionally with K, M, G or T"
            ))
        }
    };
    let n: u64 = number.parse().map_err(|_| {
        format!("`{text}` is not a size: a number of bytes, optionally with K, M, G or T")
    })?;
    let bytes = n
        .checked_mul(1 << shift)
        .ok_or_else(|| format!("`{text}` is more than {} bytes", u64::MAX))?;
    if bytes == 0 {
        return Err("the limit must be at least 1 byte".into());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_binary_suffixes_and_refuse_zero_and_overflow() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("256M"), Ok(268_435_456));
        assert_eq!(parse_size("1GiB"), Ok(1_073_741_824));
        assert_eq!(parse_size("3K"), Ok(3072));
        assert!(parse_size("0").is_err());
        assert!(parse_size("12Q").is_err());
        assert!(parse_size("-1").is_err());
        assert!(parse_size("16777216T").is_err(), "2^64 overflows");
    }

    #[test]
    fn standard_streams_by_name() {
        assert_eq!(std_stream(Path::new("-")), Some(Kind::Stdout));
        assert_eq!(std_stream(Path::new("/dev/stdout")), Some(Kind::Stdout));
        assert_eq!(std_stream(Path::new("/dev/stderr")), Some(Kind::Stderr));
        assert_eq!(std_stream(Path::new("./-x")), None);
    }
}
