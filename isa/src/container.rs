//! The kernel binary container (`.cbin`): code, entry points and metadata.
//!
//! The byte layout, the versioning policy and every validation rule are
//! described in `docs/container.md`. In short: little-endian, magic `CNCD`,
//! a `u16` format version (this build reads and writes version
//! [`FORMAT_VERSION`]), then the sections in a fixed order. Strings are a
//! `u32` byte length followed by that many bytes of UTF-8.
//!
//! [`Kernel::from_bytes`] never panics and never allocates more than the
//! input could hold: every count is checked against the bytes that remain
//! before anything is reserved. Structural errors carry the byte offset where
//! they were found; rule violations name the field (`entries[1].pc`) and, when
//! the kernel came from bytes, the offset of that field too.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use crate::asm::instr_resources;
use crate::encoding::decode;
use crate::input;
use crate::instr::{MAX_IMEM_WORDS, MAX_PARAM_WORDS, MAX_PREDS, MAX_REGS};
use crate::show;

/// The four bytes every container starts with.
pub const MAGIC: [u8; 4] = *b"CNCD";
/// The newest container format version, the one written for kernels that
/// use a per-thread stack. Kernels without one are written as version 1, so
/// their bytes do not change; this build reads both.
pub const FORMAT_VERSION: u16 = 2;
/// The conventional file extension of a container, without the dot.
pub const EXTENSION: &str = "cbin";

/// A named entry point of a kernel: the PC where its threads start.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Entry {
    pub name: String,
    pub pc: u32,
}

/// An assembled or compiled kernel, ready to load into instruction memory.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Kernel {
    /// Instruction memory image, word 0 first.
    pub code: Vec<u32>,
    /// At least one entry point.
    pub entries: Vec<Entry>,
    /// Kernel parameter names, one per parameter word, in `ldparam` index order.
    pub params: Vec<String>,
    /// Bytes of shared memory the kernel uses per block.
    pub shared_bytes: u32,
    /// Highest general register index used + 1.
    pub regs_used: u32,
    /// Highest predicate index used + 1 (`pt` counts as index 0).
    pub preds_used: u32,
    /// Code labels (name, pc), for disassembly listings. Optional.
    pub symbols: Vec<(String, u32)>,
    /// Bytes of per-thread stack the kernel keeps at the top of global
    /// memory (0: none). Thread `t` of a block owns
    /// `[G - (t+1)·stack_bytes, G - t·stack_bytes)`, `G` the global memory
    /// size; a launch keeps its buffers below `G - stack_bytes·lanes·warps`.
    pub stack_bytes: u32,
}

/// Why a container could not be read or written, or why a kernel is not
/// acceptable.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ContainerError {
    /// The bytes are not a well-formed container; `offset` is where the
    /// problem was found.
    #[error("byte {offset}: {}", show::message(.message))]
    Format { offset: usize, message: String },
    /// The kernel breaks a rule. `field` names it (`entries[1].pc`);
    /// `offset` is where the field was read when the kernel came from bytes.
    #[error("{}{field}: {}", offset_prefix(.offset), show::message(.message))]
    Invalid {
        offset: Option<usize>,
        field: String,
        message: String,
    },
    /// [`Kernel::entry`] could not pick an entry point.
    #[error("{}", show::message(.0))]
    Entry(String),
    /// An error reading or writing the file `path`.
    #[error("{}: {}", show::escape(.path), show::message(.message))]
    File { path: String, message: String },
}

fn offset_prefix(offset: &Option<usize>) -> String {
    offset.map(|o| format!("byte {o}: ")).unwrap_or_default()
}

impl ContainerError {
    /// The same error, prefixed with the file it came from.
    fn in_file(self, path: &Path) -> ContainerError {
        ContainerError::File {
            path: path.display().to_string(),
            message: self.to_string(),
        }
    }
}

/// Byte offsets of the fields of a decoded container, so that rule
/// violations found after decoding can still say where the field was.
#[derive(Default)]
struct Layout {
    code_count: usize,
    entry_count: usize,
    /// (name, pc) offsets per entry.
    entries: Vec<(usize, usize)>,
    param_count: usize,
    params: Vec<usize>,
    regs_used: usize,
    preds_used: usize,
    /// (name, pc) offsets per symbol.
    symbols: Vec<(usize, usize)>,
    stack_bytes: usize,
}

/// Where a rule's field lives in the byte layout.
#[derive(Clone, Copy)]
enum Loc {
    CodeCount,
    /// Word `i` of the code.
    Code(usize),
    EntryCount,
    EntryName(usize),
    EntryPc(usize),
    ParamCount,
    ParamName(usize),
    RegsUsed,
    PredsUsed,
    SymbolPc(usize),
    StackBytes,
}

impl Layout {
    fn offset(&self, loc: Loc) -> Option<usize> {
        match loc {
            Loc::CodeCount => Some(self.code_count),
            Loc::Code(i) => Some(self.code_count + 4 + 4 * i),
            Loc::EntryCount => Some(self.entry_count),
            Loc::EntryName(i) => self.entries.get(i).map(|e| e.0),
            Loc::EntryPc(i) => self.entries.get(i).map(|e| e.1),
            Loc::ParamCount => Some(self.param_count),
            Loc::ParamName(i) => self.params.get(i).copied(),
            Loc::RegsUsed => Some(self.regs_used),
            Loc::PredsUsed => Some(self.preds_used),
            Loc::SymbolPc(i) => self.symbols.get(i).map(|s| s.1),
            Loc::StackBytes => (self.stack_bytes != 0).then_some(self.stack_bytes),
        }
    }
}

/// A little-endian reader that reports what it was reading, and where, when
/// the input runs out.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    fn take(&mut self, n: usize, what: &dyn Fn() -> String) -> Result<&'a [u8], ContainerError> {
        if n > self.remaining() {
            return Err(ContainerError::Format {
                offset: self.pos,
                message: format!(
                    "truncated: reading {} needs {n} byte{}, only {} left",
                    what(),
                    if n == 1 { "" } else { "s" },
                    self.remaining()
                ),
            });
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn u16(&mut self, what: &dyn Fn() -> String) -> Result<u16, ContainerError> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self, what: &dyn Fn() -> String) -> Result<u32, ContainerError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Reads an element count and checks that the rest of the input could
    /// hold that many elements of at least `min_size` bytes each, so that a
    /// corrupt count is reported as truncation instead of being allocated.
    fn count(&mut self, what: &str, unit: &str, min_size: usize) -> Result<usize, ContainerError> {
        let at = self.pos;
        let n = self.u32(&|| format!("{what} count"))? as usize;
        let need = n as u64 * min_size as u64;
        if need > self.remaining() as u64 {
            return Err(ContainerError::Format {
                offset: at,
                message: format!(
                    "truncated: {what} count {n} needs at least {need} more bytes ({min_size} per {unit}), only {} left",
                    self.remaining()
                ),
            });
        }
        Ok(n)
    }

    /// A `u32` length followed by that many bytes of UTF-8.
    fn string(&mut self, what: &dyn Fn() -> String) -> Result<String, ContainerError> {
        let len = self.u32(&|| format!("{} length", what()))? as usize;
        let start = self.pos;
        let bytes = self.take(len, what)?;
        match std::str::from_utf8(bytes) {
            Ok(s) => Ok(s.to_string()),
            Err(e) => Err(ContainerError::Format {
                offset: start + e.valid_up_to(),
                message: format!("{} is not valid UTF-8", what()),
            }),
        }
    }
}

/// Smallest encoded size of one element of each section, used to reject
/// implausible counts before allocating.
const WORD_SIZE: usize = 4;
const ENTRY_MIN_SIZE: usize = 8; // name length + pc
const PARAM_MIN_SIZE: usize = 4; // name length
const SYMBOL_MIN_SIZE: usize = 8; // name length + pc

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_len(out: &mut Vec<u8>, n: usize) {
    // Lengths beyond u32 cannot be represented; such a kernel could not fit
    // any instruction memory either. Saturate rather than panic: the result
    // then fails to decode instead of decoding to something else silently.
    put_u32(out, u32::try_from(n).unwrap_or(u32::MAX));
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_len(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

impl Kernel {
    /// Encodes the kernel as a version-[`FORMAT_VERSION`] container. Does not
    /// validate: call [`Kernel::validate`] first (as [`Kernel::save_file`]
    /// does) to be sure the result loads again.
    pub fn to_bytes(&self) -> Vec<u8> {
        let strings: usize = self.entries.iter().map(|e| e.name.len()).sum::<usize>()
            + self.params.iter().map(String::len).sum::<usize>()
            + self.symbols.iter().map(|s| s.0.len()).sum::<usize>();
        let mut out = Vec::with_capacity(
            32 + 4 * self.code.len()
                + ENTRY_MIN_SIZE * self.entries.len()
                + PARAM_MIN_SIZE * self.params.len()
                + SYMBOL_MIN_SIZE * self.symbols.len()
                + strings,
        );
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&self.format_version().to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        put_len(&mut out, self.code.len());
        for w in &self.code {
            put_u32(&mut out, *w);
        }
        put_len(&mut out, self.entries.len());
        for e in &self.entries {
            put_str(&mut out, &e.name);
            put_u32(&mut out, e.pc);
        }
        put_len(&mut out, self.params.len());
        for p in &self.params {
            put_str(&mut out, p);
        }
        put_u32(&mut out, self.shared_bytes);
        put_u32(&mut out, self.regs_used);
        put_u32(&mut out, self.preds_used);
        put_len(&mut out, self.symbols.len());
        for (name, pc) in &self.symbols {
            put_str(&mut out, name);
            put_u32(&mut out, *pc);
        }
        if self.stack_bytes != 0 {
            put_u32(&mut out, self.stack_bytes);
        }
        out
    }

    /// The version [`Kernel::to_bytes`] writes: 1, unless the kernel has a
    /// per-thread stack (version 2 adds `stack_bytes`).
    pub fn format_version(&self) -> u16 {
        if self.stack_bytes == 0 {
            1
        } else {
            2
        }
    }

    /// Decodes and validates a container. Never panics; see the module
    /// documentation and `docs/container.md` for the rules.
    pub fn from_bytes(bytes: &[u8]) -> Result<Kernel, ContainerError> {
        let mut r = Reader { bytes, pos: 0 };
        let magic = r.take(4, &|| "the magic number".to_string())?;
        if magic != MAGIC {
            return Err(ContainerError::Format {
                offset: 0,
                message: format!(
                    "bad magic {}: not a Concord kernel container (expected \"CNCD\")",
                    show_magic(magic)
                ),
            });
        }
        let at = r.pos;
        let version = r.u16(&|| "the format version".to_string())?;
        if !(1..=FORMAT_VERSION).contains(&version) {
            return Err(ContainerError::Format {
                offset: at,
                message: format!(
                    "unsupported container version {version} (this build reads 1..={FORMAT_VERSION})"
                ),
            });
        }
        let at = r.pos;
        let reserved = r.u16(&|| "the reserved header field".to_string())?;
        if reserved != 0 {
            return Err(ContainerError::Format {
                offset: at,
                message: format!("reserved header field must be 0, found {reserved}"),
            });
        }

        let mut layout = Layout {
            code_count: r.pos,
            ..Layout::default()
        };
        let n = r.count("code", "word", WORD_SIZE)?;
        let mut code = Vec::with_capacity(n);
        for i in 0..n {
            code.push(r.u32(&|| format!("code[{i}]"))?);
        }

        layout.entry_count = r.pos;
        let n = r.count("entries", "entry", ENTRY_MIN_SIZE)?;
        let mut entries = Vec::with_capacity(n);
        for i in 0..n {
            let name_at = r.pos;
            let name = r.string(&|| format!("entries[{i}].name"))?;
            let pc_at = r.pos;
            let pc = r.u32(&|| format!("entries[{i}].pc"))?;
            layout.entries.push((name_at, pc_at));
            entries.push(Entry { name, pc });
        }

        layout.param_count = r.pos;
        let n = r.count("params", "parameter", PARAM_MIN_SIZE)?;
        let mut params = Vec::with_capacity(n);
        for i in 0..n {
            layout.params.push(r.pos);
            params.push(r.string(&|| format!("params[{i}]"))?);
        }

        let shared_bytes = r.u32(&|| "shared_bytes".to_string())?;
        layout.regs_used = r.pos;
        let regs_used = r.u32(&|| "regs_used".to_string())?;
        layout.preds_used = r.pos;
        let preds_used = r.u32(&|| "preds_used".to_string())?;

        let n = r.count("symbols", "symbol", SYMBOL_MIN_SIZE)?;
        let mut symbols = Vec::with_capacity(n);
        for i in 0..n {
            let name_at = r.pos;
            let name = r.string(&|| format!("symbols[{i}].name"))?;
            let pc_at = r.pos;
            let pc = r.u32(&|| format!("symbols[{i}].pc"))?;
            layout.symbols.push((name_at, pc_at));
            symbols.push((name, pc));
        }

        let mut stack_bytes = 0;
        if version >= 2 {
            let at = r.pos;
            layout.stack_bytes = at;
            stack_bytes = r.u32(&|| "stack_bytes".to_string())?;
            if stack_bytes == 0 {
                return Err(ContainerError::Format {
                    offset: at,
                    message: "stack_bytes is 0 in a version-2 container (a kernel without a stack is written as version 1)".into(),
                });
            }
        }

        if r.remaining() != 0 {
            return Err(ContainerError::Format {
                offset: r.pos,
                message: format!(
                    "{} trailing byte{} after the end of the container",
                    r.remaining(),
                    if r.remaining() == 1 { "" } else { "s" }
                ),
            });
        }

        let kernel = Kernel {
            code,
            entries,
            params,
            shared_bytes,
            regs_used,
            preds_used,
            symbols,
            stack_bytes,
        };
        kernel.check(Some(&layout))?;
        Ok(kernel)
    }

    /// Checks the rules every kernel obeys (the same ones
    /// [`Kernel::from_bytes`] applies): non-empty code of at most
    /// [`MAX_IMEM_WORDS`] words, at least one entry point, entry names
    /// non-empty and unique, entry PCs inside the code, symbol PCs inside
    /// the code or just past its end, at most [`MAX_PARAM_WORDS`] uniquely
    /// named parameters, `regs_used` ≤ [`MAX_REGS`], `preds_used` ≤ [`MAX_PREDS`],
    /// no instruction using a register or predicate (other than `pt`) past
    /// `regs_used` or `preds_used`.
    pub fn validate(&self) -> Result<(), ContainerError> {
        self.check(None)
    }

    fn check(&self, layout: Option<&Layout>) -> Result<(), ContainerError> {
        let fail = |loc: Loc, field: String, message: String| ContainerError::Invalid {
            offset: layout.and_then(|l| l.offset(loc)),
            field,
            message,
        };
        let len = self.code.len();
        if len == 0 {
            return Err(fail(
                Loc::CodeCount,
                "code".into(),
                "the kernel has no code".into(),
            ));
        }
        if len > MAX_IMEM_WORDS {
            return Err(fail(
                Loc::CodeCount,
                "code".into(),
                format!(
                    "{len} words exceed the instruction memory limit of {MAX_IMEM_WORDS} words"
                ),
            ));
        }
        if self.entries.is_empty() {
            return Err(fail(
                Loc::EntryCount,
                "entries".into(),
                "the kernel has no entry point".into(),
            ));
        }
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, e) in self.entries.iter().enumerate() {
            if e.name.is_empty() {
                return Err(fail(
                    Loc::EntryName(i),
                    format!("entries[{i}].name"),
                    "entry name is empty".into(),
                ));
            }
            if let Some(first) = seen.insert(&e.name, i) {
                return Err(fail(
                    Loc::EntryName(i),
                    format!("entries[{i}].name"),
                    format!("duplicate entry name `{}` (also entries[{first}])", e.name),
                ));
            }
            if e.pc as usize >= len {
                return Err(fail(
                    Loc::EntryPc(i),
                    format!("entries[{i}].pc"),
                    format!(
                        "{} is outside the code ({len} word{}, pc 0..={})",
                        e.pc,
                        plural(len),
                        len - 1
                    ),
                ));
            }
        }
        if self.params.len() > MAX_PARAM_WORDS {
            return Err(fail(
                Loc::ParamCount,
                "params".into(),
                format!(
                    "{} parameters, more than the {MAX_PARAM_WORDS} parameter words `ldparam` can address",
                    self.params.len()
                ),
            ));
        }
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, p) in self.params.iter().enumerate() {
            if p.is_empty() {
                return Err(fail(
                    Loc::ParamName(i),
                    format!("params[{i}]"),
                    "parameter name is empty".into(),
                ));
            }
            if let Some(first) = seen.insert(p, i) {
                return Err(fail(
                    Loc::ParamName(i),
                    format!("params[{i}]"),
                    format!("duplicate parameter name `{p}` (also params[{first}])"),
                ));
            }
        }
        // `shared_bytes` has no architectural limit; the launch checks it
        // against the core's `shared_memory_bytes`.
        if self.regs_used as usize > MAX_REGS {
            return Err(fail(
                Loc::RegsUsed,
                "regs_used".into(),
                format!(
                    "{} is more than the {MAX_REGS} general registers of the ISA",
                    self.regs_used
                ),
            ));
        }
        if self.preds_used as usize > MAX_PREDS {
            return Err(fail(
                Loc::PredsUsed,
                "preds_used".into(),
                format!(
                    "{} is more than the {MAX_PREDS} predicate registers of the ISA",
                    self.preds_used
                ),
            ));
        }
        // The launch checks `regs_used` and `preds_used` against the core,
        // and the models size their register files by the core: code that
        // reaches past the declared counts would run on a core too small for
        // it, where the timed models and the RTL alias another warp's
        // registers. Words that do not decode trap when executed and use
        // nothing; `pt` exists on every core whatever `preds_used` says.
        for (pc, &word) in self.code.iter().enumerate() {
            let Ok(instr) = decode(word) else { continue };
            let (reg, pred) = instr_resources(&instr);
            if let Some(r) = reg.filter(|r| r.index() as u32 >= self.regs_used) {
                return Err(fail(
                    Loc::Code(pc),
                    format!("code[{pc}]"),
                    format!(
                        "`{instr}` uses {r}, but the header's regs_used is {}",
                        self.regs_used
                    ),
                ));
            }
            if let Some(p) = pred.filter(|p| !p.is_true() && p.index() as u32 >= self.preds_used) {
                return Err(fail(
                    Loc::Code(pc),
                    format!("code[{pc}]"),
                    format!(
                        "`{instr}` uses {p}, but the header's preds_used is {}",
                        self.preds_used
                    ),
                ));
            }
        }
        for (i, (_, pc)) in self.symbols.iter().enumerate() {
            if *pc as usize > len {
                return Err(fail(
                    Loc::SymbolPc(i),
                    format!("symbols[{i}].pc"),
                    format!(
                        "{pc} is outside the code ({len} word{}, a symbol may be at 0..={len})",
                        plural(len)
                    ),
                ));
            }
        }
        if self.stack_bytes % 4 != 0 {
            return Err(fail(
                Loc::StackBytes,
                "stack_bytes".into(),
                format!(
                    "{} is not a multiple of 4 (the per-thread stack holds words)",
                    self.stack_bytes
                ),
            ));
        }
        Ok(())
    }

    /// The entry point to run: `name`, or the only one when `name` is `None`.
    /// Errors list the entry names.
    pub fn entry(&self, name: Option<&str>) -> Result<&Entry, ContainerError> {
        match name {
            None => match self.entries.as_slice() {
                [only] => Ok(only),
                [] => Err(ContainerError::Entry(
                    "the kernel has no entry point".to_string(),
                )),
                many => Err(ContainerError::Entry(format!(
                    "the kernel has {} entry points ({}); name the one to run",
                    many.len(),
                    self.entry_names()
                ))),
            },
            Some(name) => self.entries.iter().find(|e| e.name == name).ok_or_else(|| {
                ContainerError::Entry(if self.entries.is_empty() {
                    format!("no entry point named `{name}`: the kernel has no entry point")
                } else {
                    format!(
                        "no entry point named `{name}`; the kernel has: {}",
                        self.entry_names()
                    )
                })
            }),
        }
    }

    /// The entry names, comma separated, in container order.
    pub fn entry_names(&self) -> String {
        self.entries
            .iter()
            .map(|e| e.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Reads (through [`crate::input`]: a regular file within the container
    /// cap) and decodes a container file. Errors start with the path.
    pub fn load_file(path: &Path) -> Result<Kernel, ContainerError> {
        let bytes =
            input::read_bytes(path, input::Kind::Container).map_err(|e| ContainerError::File {
                path: e.located_file(),
                message: e.message,
            })?;
        Kernel::from_bytes(&bytes).map_err(|e| e.in_file(path))
    }

    /// Validates the kernel and writes it as a container. The bytes go to a
    /// temporary file in the same directory which is then renamed over
    /// `path`, so `path` never holds a half-written container.
    pub fn save_file(&self, path: &Path) -> Result<(), ContainerError> {
        self.validate().map_err(|e| e.in_file(path))?;
        let io = |what: &str, e: std::io::Error| ContainerError::File {
            path: path.display().to_string(),
            message: format!("{what}: {e}"),
        };
        let file_name = path.file_name().ok_or_else(|| ContainerError::File {
            path: path.display().to_string(),
            message: "not a file name".to_string(),
        })?;
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => std::path::PathBuf::from("."),
        };
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(file_name);
        tmp_name.push(format!(".tmp{}", std::process::id()));
        let tmp = dir.join(tmp_name);
        let result = (|| {
            let mut f = std::fs::File::create(&tmp).map_err(|e| io("cannot create", e))?;
            f.write_all(&self.to_bytes())
                .map_err(|e| io("cannot write", e))?;
            f.sync_all().map_err(|e| io("cannot write", e))?;
            drop(f);
            std::fs::rename(&tmp, path).map_err(|e| io("cannot replace", e))
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        result
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Shows four magic bytes as text when printable, as hex otherwise.
fn show_magic(bytes: &[u8]) -> String {
    if bytes.iter().all(|b| b.is_ascii_graphic()) {
        format!("\"{}\"", String::from_utf8_lossy(bytes))
    } else {
        let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
        hex.join(" ")
    }
}
