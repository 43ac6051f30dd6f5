//! The one way Concord reads an input file: assembly (`.s`), kernel source
//! (`.cu`), launch descriptions and core configurations (YAML), and kernel
//! containers (`.cbin`). Every loader and every command goes through it.
//!
//! The rules (`README.md`, "Input files"):
//!
//! * Only regular files (symbolic links are followed). A directory, FIFO,
//!   socket or device is refused, naming the file and what it is, without
//!   opening it, so nothing blocks on a FIFO or reads a device forever.
//!   The file is opened non-blocking and checked again after opening, in
//!   case it was replaced in between.
//! * A size cap per kind ([`Kind::limit`]): 16 MiB for text, the largest
//!   instruction memory plus 16 MiB for containers. The size is checked
//!   before reading, and the read itself stops one byte past the cap, since
//!   a file can grow while it is read. The environment variable
//!   [`LIMIT_VAR`] raises the caps.
//! * Text is UTF-8; a leading byte-order mark (EF BB BF) is dropped. Bytes
//!   that are not UTF-8 are reported at their byte offset, line and column.
//!
//! Standard input is read by [`read_stdin_text`] and [`read_stdin_bytes`]
//! under the same caps; only the command line decides when `-` means it.

use std::fs::{File, Metadata};
use std::io::Read;
use std::path::Path;

use crate::instr::MAX_IMEM_WORDS;
use crate::show::escape;

/// The environment variable that raises the input caps: a whole number of
/// MiB for text files; containers get that plus the instruction memory.
pub const LIMIT_VAR: &str = "CONCORD_MAX_INPUT_MIB";
/// The default cap on a text input (sources, YAML).
pub const TEXT_LIMIT: u64 = 16 << 20;
/// The bytes of code of the largest instruction memory.
const CODE_BYTES: u64 = 4 * MAX_IMEM_WORDS as u64;
/// The default cap on a container: the largest instruction memory plus
/// [`TEXT_LIMIT`] for entry, parameter and symbol names.
pub const CONTAINER_LIMIT: u64 = TEXT_LIMIT + CODE_BYTES;
/// The most [`LIMIT_VAR`] may ask for (1 TiB).
const MAX_LIMIT_MIB: u64 = 1 << 20;

/// What an input file holds; it decides the cap and names the file's role
/// in messages.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// An assembly source (`.s`).
    Assembly,
    /// A kernel source in the CUDA-C subset (`.cu`).
    KernelSource,
    /// A launch description (YAML).
    Launch,
    /// A core configuration (YAML).
    Config,
    /// A kernel container (`.cbin`).
    Container,
}

impl Kind {
    /// What the file is, for messages: "an assembly source".
    pub fn what(self) -> &'static str {
        match self {
            Kind::Assembly => "an assembly source",
            Kind::KernelSource => "a kernel source",
            Kind::Launch => "a launch description",
            Kind::Config => "a core configuration",
            Kind::Container => "a kernel container",
        }
    }

    /// The default cap in bytes.
    pub fn default_limit(self) -> u64 {
        match self {
            Kind::Container => CONTAINER_LIMIT,
            _ => TEXT_LIMIT,
        }
    }

    /// The cap in bytes: the default, or as [`LIMIT_VAR`] sets it.
    pub fn limit(self) -> Result<u64, InputError> {
        let Some(value) = std::env::var_os(LIMIT_VAR) else {
            return Ok(self.default_limit());
        };
        let bad = || InputError {
            file: format!("environment variable {LIMIT_VAR}"),
            at: None,
            message: format!(
                "`{}` is not a whole number of MiB in 1..={MAX_LIMIT_MIB}",
                escape(&value.to_string_lossy())
            ),
        };
        let mib: u64 = value
            .to_str()
            .and_then(|v| v.trim().parse().ok())
            .filter(|m| (1..=MAX_LIMIT_MIB).contains(m))
            .ok_or_else(bad)?;
        let text = mib << 20;
        Ok(match self {
            Kind::Container => text + CODE_BYTES,
            _ => text,
        })
    }
}

/// An input that cannot be read. `Display`: `file: message`, or
/// `file:line:column: message` when the problem has a place in the text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", self.located_file())]
pub struct InputError {
    /// The file as shown (escaped).
    pub file: String,
    /// 1-based line and column (in characters), for bad text.
    pub at: Option<(usize, usize)>,
    pub message: String,
}

impl InputError {
    /// `file` or `file:line:column`.
    pub fn located_file(&self) -> String {
        match self.at {
            Some((line, column)) => format!("{}:{line}:{column}", self.file),
            None => self.file.clone(),
        }
    }
}

/// How a path is named in messages: as given, escaped.
pub fn show_path(path: &Path) -> String {
    escape(&path.display().to_string()).into_owned()
}

/// What a file that is not a regular file is, in words.
fn file_type_name(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
    }
    "not a regular file"
}

fn not_regular(file: &str, kind: Kind, meta: &Metadata) -> InputError {
    let is = file_type_name(meta);
    InputError {
        file: file.to_string(),
        at: None,
        message: if is == "not a regular file" {
            format!("not a regular file; {} must be a regular file", kind.what())
        } else {
            format!("is {is}; {} must be a regular file", kind.what())
        },
    }
}

fn too_large(file: &str, kind: Kind, size: u64, limit: u64, at_least: bool) -> InputError {
    InputError {
        file: file.to_string(),
        at: None,
        message: format!(
            "{}{size} bytes is more than the limit of {limit} bytes ({}) for {}; set {LIMIT_VAR} (in MiB) to raise it",
            if at_least { "at least " } else { "" },
            mib(limit),
            kind.what()
        ),
    }
}

fn mib(bytes: u64) -> String {
    if bytes % (1 << 20) == 0 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{:.2} MiB", bytes as f64 / (1u64 << 20) as f64)
    }
}

fn cannot_read(file: &str, e: std::io::Error) -> InputError {
    InputError {
        file: file.to_string(),
        at: None,
        message: format!("cannot read: {e}"),
    }
}

/// Opens `path` for reading without blocking on a FIFO, after checking
/// that it is a regular file.
fn open_regular(path: &Path, file: &str, kind: Kind) -> Result<File, InputError> {
    let meta = std::fs::metadata(path).map_err(|e| cannot_read(file, e))?;
    if !meta.is_file() {
        return Err(not_regular(file, kind, &meta));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Replaced by a FIFO after the check: fail below instead of
        // waiting for a writer.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let f = options.open(path).map_err(|e| cannot_read(file, e))?;
    let meta = f.metadata().map_err(|e| cannot_read(file, e))?;
    if !meta.is_file() {
        return Err(not_regular(file, kind, &meta));
    }
    Ok(f)
}

/// Reads at most `limit` bytes, failing if there are more.
fn read_capped(
    mut from: impl Read,
    file: &str,
    kind: Kind,
    limit: u64,
    size_hint: u64,
) -> Result<Vec<u8>, InputError> {
    let mut bytes = Vec::with_capacity(size_hint.min(limit) as usize);
    (&mut from)
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| cannot_read(file, e))?;
    if bytes.len() as u64 > limit {
        return Err(too_large(file, kind, bytes.len() as u64, limit, true));
    }
    Ok(bytes)
}

/// Reads the regular file `path` of `kind`, within its cap.
pub fn read_bytes(path: &Path, kind: Kind) -> Result<Vec<u8>, InputError> {
    let file = show_path(path);
    let limit = kind.limit()?;
    let f = open_regular(path, &file, kind)?;
    let size = f.metadata().map_err(|e| cannot_read(&file, e))?.len();
    if size > limit {
        return Err(too_large(&file, kind, size, limit, false));
    }
    read_capped(f, &file, kind, limit, size)
}

/// Reads the regular file `path` of `kind` as text: within its cap, UTF-8,
/// a leading byte-order mark dropped.
pub fn read_text(path: &Path, kind: Kind) -> Result<String, InputError> {
    let bytes = read_bytes(path, kind)?;
    text(bytes, &show_path(path), kind)
}

/// The name standard input has in messages.
pub const STDIN_NAME: &str = "<stdin>";

/// Reads standard input to its end as `kind`, within the cap.
pub fn read_stdin_bytes(kind: Kind) -> Result<Vec<u8>, InputError> {
    let limit = kind.limit()?;
    read_capped(std::io::stdin().lock(), STDIN_NAME, kind, limit, 0)
}

/// Reads standard input as text of `kind` (see [`read_text`]).
pub fn read_stdin_text(kind: Kind) -> Result<String, InputError> {
    text(read_stdin_bytes(kind)?, STDIN_NAME, kind)
}

/// `bytes` as text: a leading byte-order mark dropped, and UTF-8 or an
/// error at the first bad byte (its offset in `bytes`, line and column).
pub fn text(mut bytes: Vec<u8>, file: &str, kind: Kind) -> Result<String, InputError> {
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    let skipped = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
    if let Err(e) = std::str::from_utf8(&bytes[skipped..]) {
        let good = &bytes[skipped..skipped + e.valid_up_to()];
        // The prefix is valid, so it can be counted in characters.
        let good = std::str::from_utf8(good).unwrap_or_default();
        let line_start = good.rfind('\n').map_or(0, |i| i + 1);
        let line = good.matches('\n').count() + 1;
        let column = good[line_start..].chars().count() + 1;
        let offset = skipped + e.valid_up_to();
        return Err(InputError {
            file: file.to_string(),
            at: Some((line, column)),
            message: format!(
                "invalid UTF-8 at byte {offset} (0x{:02x}); {} must be UTF-8 text",
                bytes[offset],
                kind.what()
            ),
        });
    }
    bytes.drain(..skipped);
    // Checked above.
    String::from_utf8(bytes).map_err(|e| InputError {
        file: file.to_string(),
        at: None,
        message: e.to_string(),
    })
}

/// A YAML parse error as shown to people. serde_yaml names most places by
/// line and column, but a reader error (a control character in the text)
/// only by its byte offset, "at position N": that is turned into the line
/// and column too, so every YAML error can be found in an editor.
pub fn yaml_message(error: &serde_yaml::Error, text: &str) -> String {
    let message = error.to_string();
    const AT: &str = " at position ";
    let Some(start) = message.find(AT) else {
        return message;
    };
    let digits = &message[start + AT.len()..];
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    let Ok(offset) = digits[..end].parse::<usize>() else {
        return message;
    };
    let offset = offset.min(text.len());
    // The offset counts bytes; a character boundary at or before it.
    let offset = (0..=offset)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before[before.rfind('\n').map_or(0, |i| i + 1)..]
        .chars()
        .count()
        + 1;
    format!(
        "{} at line {line} column {column} (byte {offset}){}",
        &message[..start],
        &digits[end..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_utf8_is_located() {
        let e = text(b"ab\ncd\xffe".to_vec(), "t.s", Kind::Assembly).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.s:2:3: invalid UTF-8 at byte 5 (0xff); an assembly source must be UTF-8 text"
        );
        // Columns count characters; the offset counts the byte-order mark.
        let e = text(
            b"\xEF\xBB\xBF\xC3\xA9\xC0".to_vec(),
            "t.cu",
            Kind::KernelSource,
        )
        .unwrap_err();
        assert_eq!(e.at, Some((1, 2)));
        assert!(
            e.message.starts_with("invalid UTF-8 at byte 5 (0xc0)"),
            "{e}"
        );
    }

    #[test]
    fn yaml_reader_errors_are_located_by_line_and_column() {
        let text = "program: a.s\ngrid: [1\u{1b}]\n";
        let e = serde_yaml::from_str::<serde_yaml::Value>(text).unwrap_err();
        // "program: a.s\n" is 13 bytes and "grid: [1" 8: the ESC is byte 21,
        // line 2, column 9.
        assert_eq!(
            yaml_message(&e, text),
            "control characters are not allowed at line 2 column 9 (byte 21)"
        );
        // Errors serde_yaml locates itself are left as they are.
        let e = serde_yaml::from_str::<serde_yaml::Value>("a: [1\n").unwrap_err();
        assert_eq!(yaml_message(&e, "a: [1\n"), e.to_string());
    }

    #[test]
    fn a_leading_byte_order_mark_is_dropped() {
        assert_eq!(
            text(b"\xEF\xBB\xBFnop".to_vec(), "t", Kind::Assembly).unwrap(),
            "nop"
        );
        // Only at the start.
        assert_eq!(
            text(b"a\xEF\xBB\xBF".to_vec(), "t", Kind::Assembly).unwrap(),
            "a\u{feff}"
        );
    }
}
