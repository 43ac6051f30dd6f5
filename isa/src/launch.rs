//! Launch descriptions (YAML): which program to run, on which core, with
//! which grid, block, arguments and outputs.
//!
//! `docs/launch.md` is the reference for the YAML contract, the global
//! memory layout ([`BUFFER_BASE`], [`BUFFER_ALIGN`]), the random generator
//! ([`SplitMix64`]) and the error messages.
//!
//! [`LaunchDescription::from_yaml`] checks everything that can be checked
//! without the kernel and the core; [`LaunchDescription::prepare`] checks the
//! rest and builds the initial state of a run ([`PreparedLaunch`]). Every
//! error names the launch file, then the field (`args[2].fill.random`), then
//! what is wrong.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::checks::Stacks;
use crate::config::CoreConfig;
use crate::container::Kernel;
use crate::input;
use crate::instr::MAX_PARAM_WORDS;
use crate::show;

/// Byte address of the first buffer in global memory.
pub const BUFFER_BASE: u32 = 0x100;
/// Every buffer starts at a multiple of this many bytes.
pub const BUFFER_ALIGN: u32 = 256;
/// Watchdog limit when the description gives none, in issued
/// warp-instructions on every model (`crate::watchdog`).
pub use crate::watchdog::DEFAULT_WATCHDOG;

/// Element type of a buffer, or type of a scalar argument.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElemType {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
}

impl ElemType {
    pub const ALL: [ElemType; 6] = [
        ElemType::I8,
        ElemType::U8,
        ElemType::I16,
        ElemType::U16,
        ElemType::I32,
        ElemType::U32,
    ];

    /// Size of one element in memory.
    pub fn bytes(self) -> u32 {
        match self {
            ElemType::I8 | ElemType::U8 => 1,
            ElemType::I16 | ElemType::U16 => 2,
            ElemType::I32 | ElemType::U32 => 4,
        }
    }

    /// The YAML spelling: `i8`, `u8`, `i16`, `u16`, `i32`, `u32`.
    pub fn name(self) -> &'static str {
        match self {
            ElemType::I8 => "i8",
            ElemType::U8 => "u8",
            ElemType::I16 => "i16",
            ElemType::U16 => "u16",
            ElemType::I32 => "i32",
            ElemType::U32 => "u32",
        }
    }

    /// The type spelled `name`, if any.
    pub fn from_name(name: &str) -> Option<ElemType> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    pub fn is_signed(self) -> bool {
        matches!(self, ElemType::I8 | ElemType::I16 | ElemType::I32)
    }

    /// Smallest representable value.
    pub fn min(self) -> i64 {
        if self.is_signed() {
            -(1i64 << (8 * self.bytes() - 1))
        } else {
            0
        }
    }

    /// Largest representable value.
    pub fn max(self) -> i64 {
        if self.is_signed() {
            (1i64 << (8 * self.bytes() - 1)) - 1
        } else {
            (1i64 << (8 * self.bytes())) - 1
        }
    }

    pub fn contains(self, value: i64) -> bool {
        (self.min()..=self.max()).contains(&value)
    }

    /// Decodes one element from the first [`ElemType::bytes`] bytes of
    /// `bytes` (little-endian, sign- or zero-extended by the type). `None`
    /// when `bytes` is shorter than one element.
    pub fn decode(self, bytes: &[u8]) -> Option<i64> {
        let b = bytes.get(..self.bytes() as usize)?;
        Some(match self {
            ElemType::I8 => b[0] as i8 as i64,
            ElemType::U8 => b[0] as i64,
            ElemType::I16 => i16::from_le_bytes([b[0], b[1]]) as i64,
            ElemType::U16 => u16::from_le_bytes([b[0], b[1]]) as i64,
            ElemType::I32 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64,
            ElemType::U32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64,
        })
    }

    /// Writes `value` (already known to fit) as one little-endian element
    /// into the first [`ElemType::bytes`] bytes of `out`.
    fn store(self, value: i64, out: &mut [u8]) {
        let n = self.bytes() as usize;
        out[..n].copy_from_slice(&(value as u32).to_le_bytes()[..n]);
    }

    /// The 32-bit parameter word of a scalar of this type: two's complement
    /// for the signed types, zero-extended for the unsigned ones.
    pub fn word(self, value: i64) -> u32 {
        value as u32
    }

    fn range_text(self) -> String {
        format!("{} ({}..={})", self.name(), self.min(), self.max())
    }
}

/// The SplitMix64 generator used by `fill: { random: ... }`.
///
/// The state starts at the seed; each output adds `0x9E3779B97F4A7C15` to
/// the state (wrapping) and returns the state mixed by
/// `z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) * 0x94D049BB133111EB; z ^ (z >> 31)`
/// (multiplications wrapping modulo 2^64).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// The next value in `min..=max` (`min <= max`, a span of at most 2^32
    /// values): `min + next_u64() % (max - min + 1)`.
    pub fn next_in(&mut self, min: i64, max: i64) -> i64 {
        let span = max.wrapping_sub(min).wrapping_add(1) as u64;
        let x = self.next_u64();
        if span == 0 {
            // Only reachable for the full 64-bit range, which no element
            // type has; kept total rather than dividing by zero.
            return x as i64;
        }
        min.wrapping_add((x % span) as i64)
    }
}

/// How a buffer's elements are initialised. Elements past the values an
/// initialiser gives are zero.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Init {
    /// All zeros.
    Zeros,
    /// These values, then zeros.
    Data(Vec<i64>),
    /// `start, start + 1, …, end − 1`, then zeros.
    Range { start: i64, end: i64 },
    /// Uniform in `min..=max` from [`SplitMix64`] seeded with `seed`.
    Random { seed: u64, min: i64, max: i64 },
}

impl Init {
    /// The first `len` element values.
    pub fn values(&self, len: u32) -> Box<dyn Iterator<Item = i64> + '_> {
        let len = len as usize;
        let zeros = std::iter::repeat(0i64);
        match self {
            Init::Zeros => Box::new(zeros.take(len)),
            Init::Data(d) => Box::new(d.iter().copied().chain(zeros).take(len)),
            Init::Range { start, end } => Box::new((*start..*end).chain(zeros).take(len)),
            Init::Random { seed, min, max } => {
                let (min, max) = (*min, *max);
                let mut rng = SplitMix64::new(*seed);
                Box::new((0..len).map(move |_| rng.next_in(min, max)))
            }
        }
    }
}

/// What an argument is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// A buffer of `len` elements in global memory; its parameter word is
    /// its byte address.
    Buffer {
        elem: ElemType,
        len: u32,
        init: Init,
    },
    /// One parameter word holding `value` of type `ty`.
    Scalar { ty: ElemType, value: i64 },
}

/// One kernel argument: one 32-bit parameter word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arg {
    pub name: String,
    pub kind: ArgKind,
}

impl Arg {
    pub fn is_buffer(&self) -> bool {
        matches!(self.kind, ArgKind::Buffer { .. })
    }
}

/// A parsed and checked launch description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchDescription {
    /// The description's own file (used in error messages).
    pub file: PathBuf,
    /// The program (`.s` or `.cbin`), resolved against the description's directory.
    pub program: PathBuf,
    /// The entry point; `None` when the kernel has exactly one.
    pub entry: Option<String>,
    /// The core configuration, resolved; `None` for [`CoreConfig::default`].
    pub config: Option<PathBuf>,
    /// Blocks per grid dimension (x, y, z); missing dimensions are 1.
    pub grid: [u32; 3],
    /// Threads per block dimension (x, y, z); missing dimensions are 1.
    pub block: [u32; 3],
    /// The arguments in parameter order.
    pub args: Vec<Arg>,
    /// Names of the buffers reported after the run.
    pub outputs: Vec<String>,
    /// Maximum issued warp-instructions, on every model (`crate::watchdog`).
    pub watchdog: Option<u64>,
}

/// A buffer placed in global memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    pub name: String,
    pub elem: ElemType,
    /// Byte address of element 0.
    pub addr: u32,
    /// Number of elements.
    pub len: u32,
}

impl Buffer {
    /// Size in bytes.
    pub fn bytes(&self) -> u64 {
        self.len as u64 * self.elem.bytes() as u64
    }
}

/// Everything a model needs to start a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreparedLaunch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub entry_pc: u32,
    /// One word per argument, in order.
    pub params: Vec<u32>,
    /// The initial global memory image, exactly `config.global_memory_bytes` long.
    pub global: Vec<u8>,
    /// The buffer arguments, in argument order.
    pub buffers: Vec<Buffer>,
    /// Names of the buffers to report.
    pub outputs: Vec<String>,
    /// [`DEFAULT_WATCHDOG`] when the description gives none.
    pub watchdog: u64,
}

impl PreparedLaunch {
    /// The buffer called `name`.
    pub fn buffer(&self, name: &str) -> Option<&Buffer> {
        self.buffers.iter().find(|b| b.name == name)
    }

    /// Total threads per block.
    pub fn block_threads(&self) -> u64 {
        self.block.iter().map(|&d| d as u64).product()
    }

    /// Total blocks in the grid.
    pub fn grid_blocks(&self) -> u64 {
        self.grid.iter().map(|&d| d as u64).product()
    }

    /// The output buffers' contents in `global` (a final memory image), in
    /// `outputs` order. Elements that lie outside `global` are left out.
    pub fn read_outputs(&self, global: &[u8]) -> Vec<(String, ElemType, Vec<i64>)> {
        self.outputs
            .iter()
            .filter_map(|name| self.buffer(name))
            .map(|b| {
                let size = b.elem.bytes() as usize;
                let values = (0..b.len as usize)
                    .map_while(|i| {
                        let at = (b.addr as usize).checked_add(i * size)?;
                        b.elem.decode(global.get(at..)?)
                    })
                    .collect();
                (b.name.clone(), b.elem, values)
            })
            .collect()
    }
}

/// A problem with a launch description, its program or its configuration.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LaunchError {
    /// A field of the description `file` is wrong (`field` is a path such as
    /// `args[2].fill.random`).
    #[error("{}: {field}: {}", show::escape(.file), show::message(.message))]
    Field {
        file: String,
        field: String,
        message: String,
    },
    /// The file `file` cannot be read or parsed (YAML errors keep their
    /// line and column), or has an unsupported kind.
    #[error("{}: {}", show::escape(.file), show::message(.message))]
    File { file: String, message: String },
    /// A diagnostic that already names its file and position, such as an
    /// assembler error (`k.s:3:5: ...`), a configuration error or a file
    /// that cannot be read ([`crate::input`]).
    #[error("{}", show::escape_lines(.0))]
    Located(String),
}

// ---------------------------------------------------------------------------
// The YAML form.

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a launch description: a mapping with `program`, `grid`, `block` and optionally `entry`, `config`, `args`, `outputs`, `watchdog`"
)]
struct RawLaunch {
    program: String,
    #[serde(default)]
    entry: Option<String>,
    #[serde(default)]
    config: Option<String>,
    grid: Vec<u32>,
    block: Vec<u32>,
    #[serde(default)]
    args: Vec<RawArg>,
    #[serde(default)]
    outputs: Vec<String>,
    #[serde(default)]
    watchdog: Option<u64>,
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an argument: a mapping such as `{ name: a, buffer: i32, len: 4 }` or `{ name: n, value: 4 }`"
)]
struct RawArg {
    name: String,
    #[serde(default)]
    buffer: Option<ElemType>,
    #[serde(default)]
    data: Option<Vec<i64>>,
    #[serde(default)]
    fill: Option<RawFill>,
    #[serde(default)]
    len: Option<u32>,
    #[serde(default)]
    value: Option<i64>,
    #[serde(default, rename = "type")]
    ty: Option<ElemType>,
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a fill: `{ range: [start, end] }` or `{ random: { seed: S, min: A, max: B } }`"
)]
struct RawFill {
    #[serde(default)]
    range: Option<[i64; 2]>,
    #[serde(default)]
    random: Option<RawRandom>,
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a random fill: `{ seed: S, min: A, max: B }`"
)]
struct RawRandom {
    seed: u64,
    #[serde(default)]
    min: Option<i64>,
    #[serde(default)]
    max: Option<i64>,
}

/// A field path and a message; the launch file is added by the caller.
type FieldError = (String, String);

/// A kernel that needs more of a resource than the core has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelMisfit {
    /// The config field of the resource (`registers`, `predicates`,
    /// `shared_memory_bytes`).
    pub field: &'static str,
    /// What the resource is, in words ("general registers", ...).
    pub what: &'static str,
    /// What the kernel uses.
    pub used: u32,
    /// What the core has.
    pub have: u32,
}

/// Whether `kernel`'s registers, predicates and shared memory fit `config`
/// (the first that does not, in that order): a launch description is
/// checked with it, and so is anything that builds launches directly.
pub fn kernel_fits(kernel: &Kernel, config: &CoreConfig) -> Result<(), KernelMisfit> {
    for (used, have, what, field) in [
        (
            kernel.regs_used,
            config.registers,
            "general registers",
            "registers",
        ),
        (
            kernel.preds_used,
            config.predicates,
            "predicate registers",
            "predicates",
        ),
        (
            kernel.shared_bytes,
            config.shared_memory_bytes,
            "bytes of shared memory per block",
            "shared_memory_bytes",
        ),
    ] {
        if used > have {
            return Err(KernelMisfit {
                field,
                what,
                used,
                have,
            });
        }
    }
    Ok(())
}

fn field_err(field: impl Into<String>, message: impl Into<String>) -> FieldError {
    (field.into(), message.into())
}

fn fits(field: String, ty: ElemType, value: i64) -> Result<(), FieldError> {
    if ty.contains(value) {
        Ok(())
    } else {
        Err((field, format!("{value} does not fit {}", ty.range_text())))
    }
}

/// Turns the YAML form of one argument into an [`Arg`], checking the
/// combination of fields. Value ranges are checked by [`check_args`].
fn convert_arg(i: usize, raw: RawArg) -> Result<Arg, FieldError> {
    let at = format!("args[{i}]");
    let RawArg {
        name,
        buffer,
        data,
        fill,
        len,
        value,
        ty,
    } = raw;
    let kind = match (buffer, value) {
        (Some(_), Some(_)) => return Err(field_err(
            at,
            "`buffer` and `value` cannot both be given: an argument is either a buffer or a scalar",
        )),
        (None, None) => {
            return Err(field_err(
                at,
                "an argument needs `buffer: <type>` (a buffer) or `value: <number>` (a scalar)",
            ))
        }
        (None, Some(value)) => {
            for (given, key) in [
                (data.is_some(), "data"),
                (fill.is_some(), "fill"),
                (len.is_some(), "len"),
            ] {
                if given {
                    return Err(field_err(
                        format!("{at}.{key}"),
                        format!("`{key}` belongs to buffers; a scalar argument has only `name`, `value` and `type`"),
                    ));
                }
            }
            ArgKind::Scalar {
                ty: ty.unwrap_or(ElemType::I32),
                value,
            }
        }
        (Some(elem), None) => {
            if ty.is_some() {
                return Err(field_err(
                    format!("{at}.type"),
                    "`type` belongs to scalars; a buffer's element type is given by `buffer`",
                ));
            }
            let (len, init) = match (data, fill) {
                (Some(_), Some(_)) => {
                    return Err(field_err(at, "give `data` or `fill`, not both"));
                }
                (Some(data), None) => {
                    let n = data.len();
                    let len = match len {
                        Some(len) => {
                            if n > len as usize {
                                return Err(field_err(
                                    format!("{at}.data"),
                                    format!("{n} values but `len` is {len}"),
                                ));
                            }
                            len
                        }
                        None => u32::try_from(n).map_err(|_| {
                            field_err(format!("{at}.data"), format!("{n} values are too many"))
                        })?,
                    };
                    (len, Init::Data(data))
                }
                (None, Some(RawFill { range, random })) => match (range, random) {
                    (Some([start, end]), None) => {
                        let f = format!("{at}.fill.range");
                        if start > end {
                            return Err(field_err(
                                f,
                                format!("start {start} is greater than end {end}"),
                            ));
                        }
                        let count =
                            u32::try_from(end.wrapping_sub(start) as u64).map_err(|_| {
                                field_err(f.clone(), format!("[{start}, {end}] is too many values"))
                            })?;
                        let len = match len {
                            Some(len) if len < count => {
                                return Err(field_err(
                                    f,
                                    format!("gives {count} values but `len` is {len}"),
                                ))
                            }
                            Some(len) => len,
                            None => count,
                        };
                        (len, Init::Range { start, end })
                    }
                    (None, Some(RawRandom { seed, min, max })) => {
                        let len = len.ok_or_else(|| {
                            field_err(format!("{at}.len"), "required with `fill: { random: ... }`")
                        })?;
                        let init = Init::Random {
                            seed,
                            min: min.unwrap_or(elem.min()),
                            max: max.unwrap_or(elem.max()),
                        };
                        (len, init)
                    }
                    _ => return Err(field_err(
                        format!("{at}.fill"),
                        "give exactly one of `range: [start, end]` or `random: { seed, min, max }`",
                    )),
                },
                (None, None) => match len {
                    Some(len) => (len, Init::Zeros),
                    None => {
                        return Err(field_err(
                            at,
                            "a buffer needs `data`, `fill` or `len` (zeros)",
                        ))
                    }
                },
            };
            ArgKind::Buffer { elem, len, init }
        }
    };
    Ok(Arg { name, kind })
}

/// The rules on arguments and outputs that do not depend on the kernel or
/// the core (applied by `from_yaml` and again by `prepare`, since a
/// description can also be built in code).
fn check_args(args: &[Arg], outputs: &[String]) -> Result<(), FieldError> {
    if args.len() > MAX_PARAM_WORDS {
        return Err(field_err(
            "args",
            format!(
                "{} arguments, but a kernel has at most {MAX_PARAM_WORDS} parameter words",
                args.len()
            ),
        ));
    }
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, arg) in args.iter().enumerate() {
        let at = format!("args[{i}]");
        if arg.name.is_empty() {
            return Err(field_err(format!("{at}.name"), "the name is empty"));
        }
        if let Some(first) = seen.insert(&arg.name, i) {
            return Err(field_err(
                format!("{at}.name"),
                format!(
                    "duplicate argument name `{}` (also args[{first}])",
                    arg.name
                ),
            ));
        }
        match &arg.kind {
            ArgKind::Scalar { ty, value } => fits(format!("{at}.value"), *ty, *value)?,
            ArgKind::Buffer { elem, len, init } => match init {
                Init::Zeros => {}
                Init::Data(data) => {
                    if data.len() > *len as usize {
                        return Err(field_err(
                            format!("{at}.data"),
                            format!("{} values but `len` is {len}", data.len()),
                        ));
                    }
                    for (j, v) in data.iter().enumerate() {
                        fits(format!("{at}.data[{j}]"), *elem, *v)?;
                    }
                }
                Init::Range { start, end } => {
                    let f = format!("{at}.fill.range");
                    if start > end {
                        return Err(field_err(
                            f,
                            format!("start {start} is greater than end {end}"),
                        ));
                    }
                    if (end.wrapping_sub(*start) as u64) > *len as u64 {
                        return Err(field_err(
                            f,
                            format!(
                                "gives {} values but `len` is {len}",
                                end.wrapping_sub(*start)
                            ),
                        ));
                    }
                    if start < end {
                        fits(f.clone(), *elem, *start)?;
                        fits(f, *elem, end - 1)?;
                    }
                }
                Init::Random { min, max, .. } => {
                    let f = format!("{at}.fill.random");
                    fits(format!("{f}.min"), *elem, *min)?;
                    fits(format!("{f}.max"), *elem, *max)?;
                    if min > max {
                        return Err(field_err(f, format!("min {min} is greater than max {max}")));
                    }
                }
            },
        }
    }
    let mut listed: HashMap<&str, usize> = HashMap::new();
    for (k, name) in outputs.iter().enumerate() {
        let at = format!("outputs[{k}]");
        match args.iter().find(|a| &a.name == name) {
            None => {
                return Err(field_err(
                    at,
                    format!(
                        "`{name}` is not an argument (arguments: {})",
                        names(args.iter().map(|a| a.name.as_str()))
                    ),
                ))
            }
            Some(a) if !a.is_buffer() => {
                return Err(field_err(
                    at,
                    format!("`{name}` is a scalar; only buffers can be outputs"),
                ))
            }
            Some(_) => {}
        }
        if let Some(first) = listed.insert(name, k) {
            return Err(field_err(
                at,
                format!("`{name}` is already listed (outputs[{first}])"),
            ));
        }
    }
    Ok(())
}

/// Checks a grid or block shape and pads it to three dimensions.
fn dims(field: &str, given: &[u32]) -> Result<[u32; 3], FieldError> {
    if given.is_empty() || given.len() > 3 {
        return Err(field_err(
            field,
            format!("give 1 to 3 dimensions, got {}", given.len()),
        ));
    }
    let mut out = [1u32; 3];
    for (d, &v) in given.iter().enumerate() {
        if v == 0 {
            return Err(field_err(
                format!("{field}[{d}]"),
                "an extent must be at least 1",
            ));
        }
        out[d] = v;
    }
    Ok(out)
}

fn names<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let v: Vec<&str> = names.collect();
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(", ")
    }
}

/// `path` relative to the directory holding `file` (unchanged if absolute).
fn resolve(file: &Path, path: &str) -> PathBuf {
    match file.parent() {
        Some(dir) => dir.join(path),
        None => PathBuf::from(path),
    }
}

fn existing_file(field: &str, given: &str, resolved: &Path) -> Result<(), FieldError> {
    if given.is_empty() {
        return Err(field_err(field, "the path is empty"));
    }
    if !resolved.exists() {
        return Err(field_err(
            field,
            format!("no such file: {}", resolved.display()),
        ));
    }
    if !resolved.is_file() {
        return Err(field_err(
            field,
            format!("not a file: {}", resolved.display()),
        ));
    }
    Ok(())
}

impl LaunchDescription {
    /// Reads and parses the description at `path`.
    pub fn load(path: &Path) -> Result<LaunchDescription, LaunchError> {
        let text = input::read_text(path, input::Kind::Launch).map_err(read_error)?;
        LaunchDescription::from_yaml(&text, path)
    }

    /// Parses a description. `file` names it in errors, and `program` and
    /// `config` are resolved against its directory; both must exist.
    pub fn from_yaml(text: &str, file: &Path) -> Result<LaunchDescription, LaunchError> {
        let file_name = file.display().to_string();
        let at = |(field, message): FieldError| LaunchError::Field {
            file: file_name.clone(),
            field,
            message,
        };
        if text.trim().is_empty() {
            return Err(LaunchError::File {
                file: file_name.clone(),
                message: "the file is empty; a launch description needs at least `program`, `grid` and `block`".to_string(),
            });
        }
        let raw: RawLaunch = serde_yaml::from_str(text).map_err(|e| LaunchError::File {
            file: file_name.clone(),
            message: crate::input::yaml_message(&e, text),
        })?;
        let program = resolve(file, &raw.program);
        existing_file("program", &raw.program, &program).map_err(at)?;
        let config = match &raw.config {
            Some(c) => {
                let resolved = resolve(file, c);
                existing_file("config", c, &resolved).map_err(at)?;
                Some(resolved)
            }
            None => None,
        };
        if let Some(entry) = &raw.entry {
            if entry.is_empty() {
                return Err(at(field_err("entry", "the entry name is empty")));
            }
        }
        let grid = dims("grid", &raw.grid).map_err(at)?;
        let block = dims("block", &raw.block).map_err(at)?;
        let args = raw
            .args
            .into_iter()
            .enumerate()
            .map(|(i, a)| convert_arg(i, a))
            .collect::<Result<Vec<_>, _>>()
            .map_err(at)?;
        check_args(&args, &raw.outputs).map_err(at)?;
        if raw.watchdog == Some(0) {
            return Err(at(field_err("watchdog", "must be at least 1")));
        }
        Ok(LaunchDescription {
            file: file.to_path_buf(),
            program,
            entry: raw.entry,
            config,
            grid,
            block,
            args,
            outputs: raw.outputs,
            watchdog: raw.watchdog,
        })
    }

    /// Loads the program with [`load_program`].
    pub fn load_kernel(&self) -> Result<Kernel, LaunchError> {
        load_program(&self.program)
    }

    /// Loads the configuration, or the default core when none is given.
    pub fn load_config(&self) -> Result<CoreConfig, LaunchError> {
        match &self.config {
            Some(path) => CoreConfig::load(path).map_err(|e| LaunchError::Located(e.to_string())),
            None => Ok(CoreConfig::default()),
        }
    }

    /// Checks the description against the kernel and the core and builds
    /// the initial state of the run.
    pub fn prepare(
        &self,
        kernel: &Kernel,
        config: &CoreConfig,
    ) -> Result<PreparedLaunch, LaunchError> {
        self.prepare_inner(kernel, config)
            .map_err(|(field, message)| LaunchError::Field {
                file: self.file.display().to_string(),
                field,
                message,
            })
    }

    fn prepare_inner(
        &self,
        kernel: &Kernel,
        config: &CoreConfig,
    ) -> Result<PreparedLaunch, FieldError> {
        config
            .validate()
            .map_err(|e| field_err("config", e.to_string()))?;
        kernel
            .validate()
            .map_err(|e| field_err("program", format!("{}: {e}", self.program.display())))?;
        let entry = kernel
            .entry(self.entry.as_deref())
            .map_err(|e| field_err("entry", e.to_string()))?;

        let code = kernel.code.len();
        if code > config.imem_words as usize {
            return Err(field_err(
                "program",
                format!(
                    "the kernel has {code} words of code but the instruction memory holds {} (`imem_words`); raise `imem_words` in the config",
                    config.imem_words
                ),
            ));
        }
        if let Err(misfit) = kernel_fits(kernel, config) {
            return Err(field_err(
                "program",
                format!(
                    "the kernel uses {} {} but the core has {} (`{key}`); raise `{key}` in the config",
                    misfit.used,
                    misfit.what,
                    misfit.have,
                    key = misfit.field
                ),
            ));
        }

        let grid = dims("grid", &self.grid)?;
        let block = dims("block", &self.block)?;
        let blocks: u64 = grid.iter().map(|&d| d as u64).product();
        if blocks < 1 {
            return Err(field_err("grid", "the grid has no blocks"));
        }
        let threads: u64 = block.iter().map(|&d| d as u64).product();
        if threads > config.max_block_threads() as u64 {
            return Err(field_err(
                "block",
                format!(
                    "block of {threads} threads does not fit the core: lanes × warps = {} × {} = {}; raise `warps` (or `lanes`) in the config",
                    config.lanes,
                    config.warps,
                    config.max_block_threads()
                ),
            ));
        }

        check_args(&self.args, &self.outputs)?;
        if !kernel.params.is_empty() {
            let matches = kernel.params.len() == self.args.len()
                && kernel
                    .params
                    .iter()
                    .zip(&self.args)
                    .all(|(p, a)| *p == a.name);
            if !matches {
                return Err(field_err(
                    "args",
                    format!(
                        "the kernel's parameters are ({}) but the arguments are ({}); give one argument per parameter, in order, with the same names",
                        names(kernel.params.iter().map(String::as_str)),
                        names(self.args.iter().map(|a| a.name.as_str()))
                    ),
                ));
            }
        }

        // Place the buffers, then build the memory image.
        let memory = config.global_memory_bytes as u64;
        // The per-thread stacks sit at the top of global memory, one per
        // resident thread (blocks run one after another), with a guard zone
        // of one stack below them: accesses there trap (`checks::Stacks`),
        // so no buffer may lie there.
        let stacks = Stacks::new(config, kernel.stack_bytes);
        let stack_region = stacks.guarded_bytes();
        if stack_region + BUFFER_BASE as u64 > memory {
            return Err(field_err(
                "program",
                format!(
                    "the kernel's per-thread stacks and their guard zone ({} bytes x ({} threads + 1) = {stack_region} bytes) do not fit in global memory of {memory} bytes (`global_memory_bytes`)",
                    kernel.stack_bytes,
                    config.lanes * config.warps
                ),
            ));
        }
        let buffer_limit = memory - stack_region;
        let mut next = BUFFER_BASE as u64;
        let mut buffers = Vec::new();
        let mut params = Vec::with_capacity(self.args.len());
        for (i, arg) in self.args.iter().enumerate() {
            match &arg.kind {
                ArgKind::Scalar { ty, value } => params.push(ty.word(*value)),
                ArgKind::Buffer { elem, len, .. } => {
                    let align = BUFFER_ALIGN as u64;
                    let addr = next.div_ceil(align) * align;
                    let size = *len as u64 * elem.bytes() as u64;
                    let end = addr + size;
                    if end > memory {
                        return Err(field_err(
                            format!("args[{i}]"),
                            format!(
                                "buffer `{}` of {size} bytes at {addr:#x}..{end:#x} does not fit in global memory of {memory} bytes (`global_memory_bytes`); raise `global_memory_bytes` in the config (buffers start at {BUFFER_BASE:#x}, each aligned to {BUFFER_ALIGN} bytes)",
                                arg.name
                            ),
                        ));
                    }
                    if end > buffer_limit {
                        return Err(field_err(
                            format!("args[{i}]"),
                            format!(
                                "buffer `{}` at {addr:#x}..{end:#x} overlaps the per-thread stacks and their guard zone at {buffer_limit:#x}..{memory:#x} ({} bytes per thread); raise `global_memory_bytes` in the config",
                                arg.name, kernel.stack_bytes
                            ),
                        ));
                    }
                    // `end <= memory <= 1 GiB`, so the address fits u32.
                    params.push(addr as u32);
                    buffers.push(Buffer {
                        name: arg.name.clone(),
                        elem: *elem,
                        addr: addr as u32,
                        len: *len,
                    });
                    next = end;
                }
            }
        }
        let mut global = vec![0u8; memory as usize];
        for (buffer, arg) in buffers
            .iter()
            .zip(self.args.iter().filter(|a| a.is_buffer()))
        {
            if let ArgKind::Buffer { init, .. } = &arg.kind {
                if *init == Init::Zeros {
                    continue;
                }
                let size = buffer.elem.bytes() as usize;
                let start = buffer.addr as usize;
                let region = &mut global[start..start + buffer.bytes() as usize];
                for (chunk, value) in region.chunks_exact_mut(size).zip(init.values(buffer.len)) {
                    buffer.elem.store(value, chunk);
                }
            }
        }

        Ok(PreparedLaunch {
            grid,
            block,
            entry_pc: entry.pc,
            params,
            global,
            buffers,
            outputs: self.outputs.clone(),
            watchdog: self.watchdog.unwrap_or(DEFAULT_WATCHDOG),
        })
    }
}

/// Loads a program by its extension: `.s` is assembled, `.cbin` is decoded
/// as a kernel container. Any other extension is an error naming the
/// supported ones.
pub fn load_program(path: &Path) -> Result<Kernel, LaunchError> {
    let file = path.display().to_string();
    let fail = |message: String| LaunchError::File {
        file: file.clone(),
        message,
    };
    match path.extension().and_then(|e| e.to_str()) {
        Some("s") => {
            let text = input::read_text(path, input::Kind::Assembly).map_err(read_error)?;
            assemble(&text, &file).map_err(LaunchError::Located)
        }
        Some("cbin") => {
            let bytes = input::read_bytes(path, input::Kind::Container).map_err(read_error)?;
            Kernel::from_bytes(&bytes).map_err(|e| fail(e.to_string()))
        }
        Some(ext) => Err(fail(format!(
            "unsupported program extension `.{ext}` (supported: `.s` assembly, `.cbin` kernel container)"
        ))),
        None => Err(fail(
            "the program has no extension (supported: `.s` assembly, `.cbin` kernel container)"
                .to_string(),
        )),
    }
}

fn read_error(e: input::InputError) -> LaunchError {
    LaunchError::Located(e.to_string())
}

/// The one place this module calls the assembler; its diagnostics already
/// start with `file:line:col`.
fn assemble(source: &str, file: &str) -> Result<Kernel, String> {
    crate::asm::assemble(source, file).map_err(|e| e.to_string())
}
