//! Building the shared library of a Verilog text, and the build cache.
//!
//! **Location** ([`cache_location`]): `$CONCORD_RTL_CACHE` when set and not
//! empty, else `$XDG_CACHE_HOME/concord` (when absolute, as the XDG spec
//! asks), else `$HOME/.cache/concord`; [`BuildOptions::cache_dir`] overrides
//! all three. A directory that cannot be created or written is an error
//! naming it and the variable to set ([`HarnessError::CacheDir`]).
//!
//! **Entries**: one directory `<cache>/<key>/` per key, holding
//! `libconcord_core.so`, `manifest.json` ([`Manifest`]: the key, the
//! library's size and SHA-256, what it was built with and for),
//! `concord_core.v` (the text) and `build.log`. The key is the SHA-256 of
//! the shim's version and source, the Verilator and g++ versions, the build
//! flags, the trace flag and the Verilog text ([`cache_key`]).
//!
//! **Verification**: every lookup ([`verify`]) checks, before the library is
//! loaded, that the manifest names this key, that the library has the
//! recorded size and SHA-256, and that the stored Verilog is this text. An
//! entry that fails (truncated, swapped, edited, half-deleted) is removed
//! and rebuilt with a `note:` on stderr; it is never loaded. After loading,
//! the library itself must return this key from `concord_build_key`
//! ([`RtlV2::build`](super::RtlV2::build)), which catches a library swapped
//! together with a manifest made to match it.
//!
//! **Concurrency**: builds of one key are serialised, across threads and
//! processes, by an exclusive `flock` on `<cache>/<key>.lock`. A build runs
//! in a temporary directory `<cache>/.tmp-<key>-*` and is renamed into place
//! whole, so a lookup without the lock sees a complete entry or none.
//! Temporary directories left by killed builds are removed by the next
//! build that can take their key's lock, and by `concord cache clean`.
//!
//! **Processes**: see `process.rs`: the build runs in a process group of
//! its own that dies with the build or with this process.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rustix::fs::{flock, FlockOperation};
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::process::{interrupted, BuildProcess};
use super::progress::{LogFollower, Progress};
use super::shim::{self, SHIM_VERSION};
use super::HarnessError;
use concord_uarch::ports::Port;

/// Environment variable that overrides the default cache directory.
pub const CACHE_ENV: &str = "CONCORD_RTL_CACHE";

/// File names inside a cache entry.
pub const VERILOG_FILE: &str = "concord_core.v";
pub const LIBRARY_FILE: &str = "libconcord_core.so";
pub const LOG_FILE: &str = "build.log";
pub const MANIFEST_FILE: &str = "manifest.json";

/// Version of the manifest's format.
const MANIFEST_FORMAT: u32 = 1;

/// Verilator's C++ optimisation levels (make variables of `verilated.mk`).
/// Part of the key.
const MAKE_OPT: [&str; 3] = ["OPT_FAST=-O2", "OPT_SLOW=-O1", "OPT_GLOBAL=-O2"];

/// How to build.
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    /// Build with `--trace` so [`RtlV2::open_vcd`](super::RtlV2::open_vcd) works
    /// (a separate cache entry; tracing builds are slower to compile).
    pub trace: bool,
    /// Cache directory; default: see [`cache_location`].
    pub cache_dir: Option<PathBuf>,
    /// Parallel jobs of the C++ build; default: the machine's parallelism.
    pub jobs: Option<usize>,
    /// What the model is, for people (e.g. "4 lanes x 1 warp, depth_pc"):
    /// shown while building and recorded in the manifest for `concord
    /// cache info`. Not part of the key.
    pub label: Option<String>,
}

/// Where the cache directory came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheSource {
    /// [`BuildOptions::cache_dir`].
    Explicit,
    /// `$CONCORD_RTL_CACHE`.
    Env,
    /// `$XDG_CACHE_HOME/concord`.
    XdgCacheHome,
    /// `$HOME/.cache/concord`.
    Home,
}

impl CacheSource {
    /// How a person would name it.
    pub fn describe(self) -> &'static str {
        match self {
            CacheSource::Explicit => "given by the caller",
            CacheSource::Env => "from $CONCORD_RTL_CACHE",
            CacheSource::XdgCacheHome => "$XDG_CACHE_HOME/concord",
            CacheSource::Home => "$HOME/.cache/concord",
        }
    }

    /// What to tell someone whose cache directory is not usable.
    fn hint(self) -> &'static str {
        match self {
            CacheSource::Explicit => "",
            CacheSource::Env => {
                "; it is set by CONCORD_RTL_CACHE: point that at a writable directory"
            }
            CacheSource::XdgCacheHome | CacheSource::Home => {
                "; set CONCORD_RTL_CACHE to a writable directory"
            }
        }
    }
}

/// The cache directory and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheLocation {
    pub dir: PathBuf,
    pub source: CacheSource,
}

impl CacheLocation {
    fn error(&self, action: &'static str, source: io::Error) -> HarnessError {
        HarnessError::CacheDir {
            dir: self.dir.clone(),
            action,
            source,
            hint: self.source.hint(),
        }
    }
}

/// The cache directory, by priority: `explicit`, `rtl_cache`
/// (`$CONCORD_RTL_CACHE`), `xdg_cache_home` (`$XDG_CACHE_HOME`, only when
/// absolute) + `/concord`, `home` (`$HOME`) + `/.cache/concord`. Empty
/// values count as unset.
pub fn resolve_cache_dir(
    explicit: Option<&Path>,
    rtl_cache: Option<&std::ffi::OsStr>,
    xdg_cache_home: Option<&std::ffi::OsStr>,
    home: Option<&std::ffi::OsStr>,
) -> Result<CacheLocation, HarnessError> {
    let set = |v: Option<&std::ffi::OsStr>| v.filter(|v| !v.is_empty()).map(PathBuf::from);
    let (dir, source) = if let Some(p) = explicit {
        (p.to_path_buf(), CacheSource::Explicit)
    } else if let Some(p) = set(rtl_cache) {
        (p, CacheSource::Env)
    } else if let Some(p) = set(xdg_cache_home).filter(|p| p.is_absolute()) {
        (p.join("concord"), CacheSource::XdgCacheHome)
    } else if let Some(p) = set(home) {
        (p.join(".cache").join("concord"), CacheSource::Home)
    } else {
        return Err(HarnessError::NoCacheDir);
    };
    Ok(CacheLocation { dir, source })
}

/// The cache directory of this process (see [`resolve_cache_dir`]).
pub fn cache_location(explicit: Option<&Path>) -> Result<CacheLocation, HarnessError> {
    resolve_cache_dir(
        explicit,
        std::env::var_os(CACHE_ENV).as_deref(),
        std::env::var_os("XDG_CACHE_HOME").as_deref(),
        std::env::var_os("HOME").as_deref(),
    )
}

/// Where [`build`] put (or found) a library.
#[derive(Clone, Debug)]
pub struct Built {
    pub library: PathBuf,
    pub cache_hit: bool,
    pub key: String,
}

/// What a cache entry says about itself (`manifest.json`), written when
/// the build is complete and before the entry is published.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    pub key: String,
    /// SHA-256 of `libconcord_core.so`, lowercase hex.
    pub library_sha256: String,
    pub library_bytes: u64,
    /// [`BuildOptions::label`].
    pub label: Option<String>,
    pub trace: bool,
    pub shim_version: u32,
    pub verilator: String,
    pub cxx: String,
    /// Seconds since the Unix epoch when the build finished.
    pub built_at: u64,
    pub build_seconds: f64,
}

/// The tools whose versions go into the key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tools {
    /// `verilator --version`.
    pub verilator: String,
    /// The first line of `g++ --version` (Verilator's `verilated.mk` builds
    /// with `g++`), or a note that it is missing (the build then fails
    /// naming it).
    pub cxx: String,
}

/// The Verilator to run: [`concord_tools::resolve`]'s (`CONCORD_VERILATOR`,
/// Concord's venv, `PATH`).
fn verilator() -> Result<PathBuf, HarnessError> {
    Ok(concord_tools::resolve(concord_tools::Tool::Verilator)?.program)
}

/// The tools' versions, asked once per process (a failure to find
/// Verilator is not remembered, so installing it mid-process works).
pub fn tool_versions() -> Result<Tools, HarnessError> {
    static TOOLS: Mutex<Option<Tools>> = Mutex::new(None);
    let mut cached = TOOLS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(t) = cached.as_ref() {
        return Ok(t.clone());
    }
    let program = verilator()?;
    let out = match Command::new(&program).arg("--version").output() {
        Ok(out) => out,
        Err(e) => return Err(io_err("cannot run `verilator --version`".into(), e)),
    };
    if !out.status.success() {
        return Err(HarnessError::BuildFailed {
            step: "verilator --version",
            status: out.status.to_string(),
            log: None,
            tail: tail_of(&format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )),
        });
    }
    let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let cxx = match Command::new("g++").arg("--version").output() {
        Ok(out) => String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string(),
        Err(e) => format!("g++: {e}"),
    };
    let tools = Tools {
        verilator: version,
        cxx,
    };
    *cached = Some(tools.clone());
    Ok(tools)
}

/// The cache key of a build: SHA-256 (lowercase hex) of length-prefixed
/// fields, so that ("ab", "c") and ("a", "bc") differ.
pub fn cache_key(verilog: &str, shim_source: &str, tools: &Tools, trace: bool) -> String {
    let mut h = Sha256::new();
    let mut field = |bytes: &[u8]| {
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    field(b"concord-rtl-cache");
    field(&SHIM_VERSION.to_le_bytes());
    field(shim_source.as_bytes());
    field(tools.verilator.as_bytes());
    field(tools.cxx.as_bytes());
    for f in build_flags(trace) {
        field(f.as_bytes());
    }
    field(verilog.as_bytes());
    hex(&h.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 and size of a file.
pub fn file_sha256(path: &Path) -> io::Result<(String, u64)> {
    let mut h = Sha256::new();
    let n = io::copy(&mut File::open(path)?, &mut h)?;
    Ok((hex(&h.finalize()), n))
}

/// Verilator's flags apart from jobs and file names (part of the key).
fn build_flags(trace: bool) -> Vec<&'static str> {
    let mut f = vec![
        "--cc",
        "--exe",
        "--build",
        "-O3",
        "--no-timing",
        "-Wno-fatal",
        "--top-module",
        "concord_core",
        "-CFLAGS",
        "-fPIC",
        "-LDFLAGS",
        "-shared -Wl,--version-script=../exports.map",
    ];
    for m in MAKE_OPT {
        f.push("-MAKEFLAGS");
        f.push(m);
    }
    if trace {
        f.push("--trace");
    }
    f
}

/// What [`verify`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verification {
    /// A complete entry of this key: its library may be loaded.
    Valid(PathBuf),
    /// No entry of this key.
    Absent,
    /// An entry that must not be loaded, and why.
    Damaged(String),
}

/// Checks the entry `entry` for `key` and `verilog` without loading
/// anything: the manifest names `key`, the library has the size and
/// SHA-256 it records, and the stored Verilog is `verilog`.
pub fn verify(entry: &Path, key: &str, verilog: &str) -> Verification {
    let damaged = |why: String| Verification::Damaged(why);
    match fs::symlink_metadata(entry) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Verification::Absent,
        Err(e) => return damaged(format!("cannot read it: {e}")),
        Ok(m) if !m.is_dir() => return damaged("it is not a directory".into()),
        Ok(_) => {}
    }
    let manifest: Manifest = match fs::read(entry.join(MANIFEST_FILE)) {
        Err(e) => return damaged(format!("its {MANIFEST_FILE} cannot be read: {e}")),
        Ok(bytes) => match serde_json::from_slice(&bytes) {
            Ok(m) => m,
            Err(e) => return damaged(format!("its {MANIFEST_FILE} is malformed: {e}")),
        },
    };
    if manifest.format != MANIFEST_FORMAT || manifest.key != key {
        return damaged(format!(
            "its manifest is for the key {} (format {}), not this one",
            manifest.key, manifest.format
        ));
    }
    let lib = entry.join(LIBRARY_FILE);
    let (sha, bytes) = match file_sha256(&lib) {
        Ok(h) => h,
        Err(e) => return damaged(format!("its library cannot be read: {e}")),
    };
    if bytes != manifest.library_bytes {
        return damaged(format!(
            "its library has {bytes} bytes, the manifest says {}",
            manifest.library_bytes
        ));
    }
    if sha != manifest.library_sha256 {
        return damaged("its library's SHA-256 differs from the manifest's".into());
    }
    match fs::read(entry.join(VERILOG_FILE)) {
        Ok(text) if text == verilog.as_bytes() => Verification::Valid(lib),
        Ok(_) => damaged("its Verilog is another text (a key collision or an edit)".into()),
        Err(e) => damaged(format!("its Verilog cannot be read: {e}")),
    }
}

/// An exclusive `flock` on `<cache>/<key>.lock`.
pub struct KeyLock {
    _file: File,
    path: PathBuf,
}

impl KeyLock {
    /// Takes the lock, waiting for it when `wait`; `None` when it is held
    /// elsewhere and `wait` is false.
    pub fn acquire(path: &Path, wait: bool) -> io::Result<Option<KeyLock>> {
        let op = if wait {
            FlockOperation::LockExclusive
        } else {
            FlockOperation::NonBlockingLockExclusive
        };
        loop {
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(path)?;
            match flock(&file, op) {
                Ok(()) => {}
                Err(e) if e == rustix::io::Errno::WOULDBLOCK => return Ok(None),
                Err(e) => return Err(e.into()),
            }
            // The holder before us may have removed the file (`clean` does,
            // under the lock): a lock on an unlinked file excludes nobody,
            // so only a lock on the file the path names now counts.
            let held = file.metadata()?;
            match fs::metadata(path) {
                Ok(now) if now.ino() == held.ino() && now.dev() == held.dev() => {
                    return Ok(Some(KeyLock {
                        _file: file,
                        path: path.to_path_buf(),
                    }))
                }
                _ => continue,
            }
        }
    }

    /// Removes the lock file (the lock is released when `self` drops).
    fn remove_file(&self) -> io::Result<()> {
        fs::remove_file(&self.path)
    }
}

fn lock_path(root: &Path, key: &str) -> PathBuf {
    root.join(format!("{key}.lock"))
}

/// Builds (or finds in the cache) the shared library of `verilog`, whose
/// top `concord_core` has the ports `ports` (the shim is generated from
/// them, and is part of the key).
pub fn build(verilog: &str, ports: &[Port], options: &BuildOptions) -> Result<Built, HarnessError> {
    let location = cache_location(options.cache_dir.as_deref())?;
    let tools = tool_versions()?;
    let shim_source = shim::source(ports);
    let key = cache_key(verilog, &shim_source, &tools, options.trace);
    let root = &location.dir;
    let entry = root.join(&key);
    let hit = |library| {
        Ok(Built {
            library,
            cache_hit: true,
            key: key.clone(),
        })
    };

    // Entries are published whole, so a valid one needs no lock.
    if let Verification::Valid(lib) = verify(&entry, &key, verilog) {
        return hit(lib);
    }
    if interrupted() {
        return Err(HarnessError::Interrupted);
    }
    fs::create_dir_all(root).map_err(|e| location.error("create", e))?;
    let label = match (&options.label, options.trace) {
        (Some(l), true) => Some(format!("{l}, VCD")),
        (Some(l), false) => Some(l.clone()),
        (None, true) => Some("VCD".to_string()),
        (None, false) => None,
    };
    let progress = Progress::start(label.as_deref());
    let lock_file = lock_path(root, &key);
    let lock = match KeyLock::acquire(&lock_file, false) {
        Ok(Some(lock)) => lock,
        Ok(None) => {
            progress.step("waiting for another build of this model");
            KeyLock::acquire(&lock_file, true)
                .map_err(|e| location.error("write in", e))?
                .ok_or_else(|| io_err("flock".into(), io::ErrorKind::WouldBlock.into()))?
        }
        Err(e) => return Err(location.error("write in", e)),
    };

    match verify(&entry, &key, verilog) {
        // Built by whoever held the lock before us.
        Verification::Valid(lib) => {
            progress.finish(None);
            return hit(lib);
        }
        Verification::Absent => {}
        Verification::Damaged(why) => {
            progress.suspend(|| {
                eprintln!(
                    "note: the cached RTL model {} is damaged ({why}): rebuilding it",
                    entry.display()
                )
            });
            remove_dir(root, &entry).map_err(|e| {
                io_err(
                    format!("cannot remove the damaged cache entry {}", entry.display()),
                    e,
                )
            })?;
        }
    }
    sweep(root, &key);

    let started = Instant::now();
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".tmp-{key}-"))
        .tempdir_in(root)
        .map_err(|e| location.error("write in", e))?;
    let result = build_in(
        tmp.path(),
        verilog,
        ports,
        &shim_source,
        &key,
        options,
        &progress,
    )
    .and_then(|()| {
        write_manifest(
            tmp.path(),
            &key,
            &tools,
            options,
            started.elapsed().as_secs_f64(),
        )
    });
    if let Err(e) = result {
        progress.finish(None);
        if matches!(e, HarnessError::Interrupted) {
            return Err(e);
        }
        // Keep the failed build for inspection, one per key.
        let failed = root.join(format!("failed-{key}"));
        let _ = fs::remove_dir_all(&failed);
        let tmp = tmp.keep();
        let kept = fs::rename(&tmp, &failed).is_ok();
        if !kept {
            let _ = fs::remove_dir_all(&tmp);
        }
        return Err(match e {
            HarnessError::BuildFailed {
                step, status, tail, ..
            } => HarnessError::BuildFailed {
                step,
                status,
                log: kept.then(|| failed.join(LOG_FILE)),
                tail,
            },
            other => other,
        });
    }
    publish(&tmp.keep(), &entry)?;
    // An older failed build of this key is no longer worth keeping.
    let _ = fs::remove_dir_all(root.join(format!("failed-{key}")));
    drop(lock);
    match verify(&entry, &key, verilog) {
        Verification::Valid(lib) => {
            progress.finish(Some(root));
            Ok(Built {
                library: lib,
                cache_hit: false,
                key,
            })
        }
        other => {
            progress.finish(None);
            Err(io_err(
                format!(
                    "the cache entry {} does not verify right after its build ({other:?})",
                    entry.display()
                ),
                io::Error::from(io::ErrorKind::InvalidData),
            ))
        }
    }
}

/// Removes the entry of `key` (its library was loaded and says it belongs
/// to another key: see [`RtlV2::build`](super::RtlV2::build)).
pub fn discard(root: &Path, key: &str) -> io::Result<()> {
    let _lock = KeyLock::acquire(&lock_path(root, key), true)?;
    remove_dir(root, &root.join(key))
}

/// Moves a finished build into place. If a complete entry is already there
/// (a build that did not take the lock), keeps it and discards ours.
pub fn publish(tmp: &Path, entry: &Path) -> Result<(), HarnessError> {
    match fs::rename(tmp, entry) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = fs::remove_dir_all(tmp);
            if entry.join(LIBRARY_FILE).is_file() {
                Ok(())
            } else {
                Err(io_err(
                    format!("cannot move the build into {}", entry.display()),
                    e,
                ))
            }
        }
    }
}

/// Removes a directory of the cache: first renamed out of the way (so it
/// stops being an entry at once), then deleted.
fn remove_dir(root: &Path, dir: &Path) -> io::Result<()> {
    let name = dir.file_name().unwrap_or_default().to_string_lossy();
    let trash = tempfile::Builder::new()
        .prefix(&format!(".trash-{name}-"))
        .tempdir_in(root)?
        .keep();
    match fs::rename(dir, trash.join("entry")) {
        Ok(()) => fs::remove_dir_all(&trash),
        Err(e) if e.kind() == io::ErrorKind::NotFound => fs::remove_dir_all(&trash),
        Err(_) => {
            let _ = fs::remove_dir_all(&trash);
            fs::remove_dir_all(dir)
        }
    }
}

fn write_manifest(
    dir: &Path,
    key: &str,
    tools: &Tools,
    options: &BuildOptions,
    build_seconds: f64,
) -> Result<(), HarnessError> {
    let lib = dir.join(LIBRARY_FILE);
    let (library_sha256, library_bytes) = file_sha256(&lib)
        .map_err(|e| io_err(format!("cannot read the new library {}", lib.display()), e))?;
    let manifest = Manifest {
        format: MANIFEST_FORMAT,
        key: key.to_string(),
        library_sha256,
        library_bytes,
        label: options.label.clone(),
        trace: options.trace,
        shim_version: SHIM_VERSION,
        verilator: tools.verilator.clone(),
        cxx: tools.cxx.clone(),
        built_at: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        build_seconds,
    };
    let text = serde_json::to_string_pretty(&manifest).map_err(|e| {
        io_err(
            "cannot write the manifest".into(),
            io::Error::new(io::ErrorKind::InvalidData, e),
        )
    })?;
    let path = dir.join(MANIFEST_FILE);
    fs::write(&path, text + "\n").map_err(|e| io_err(format!("cannot write {}", path.display()), e))
}

fn build_in(
    dir: &Path,
    verilog: &str,
    ports: &[Port],
    shim_source: &str,
    key: &str,
    options: &BuildOptions,
    progress: &Progress,
) -> Result<(), HarnessError> {
    let write = |name: &str, text: &str| {
        fs::write(dir.join(name), text)
            .map_err(|e| io_err(format!("cannot write {}", dir.join(name).display()), e))
    };
    write(VERILOG_FILE, verilog)?;
    write("shim.cpp", &shim::with_key(shim_source, key))?;
    write("exports.map", shim::EXPORTS_MAP)?;

    let jobs = options.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let log_path = dir.join(LOG_FILE);
    let log = fs::File::create(&log_path)
        .map_err(|e| io_err(format!("cannot create {}", log_path.display()), e))?;
    let log2 = log
        .try_clone()
        .map_err(|e| io_err("cannot duplicate the build log handle".into(), e))?;
    let mut cmd = Command::new(verilator()?);
    cmd.current_dir(dir)
        .args(build_flags(options.trace))
        .args(["-j", &jobs.max(1).to_string(), "--Mdir", "obj"])
        .args(["-o", &format!("../{LIBRARY_FILE}")])
        .args([VERILOG_FILE, "shim.cpp"])
        .stdin(Stdio::null())
        .stdout(Stdio::from(log))
        .stderr(Stdio::from(log2));
    let mut process = match BuildProcess::spawn(cmd) {
        Ok(p) => p,
        Err(_) if interrupted() => return Err(HarnessError::Interrupted),
        Err(e) => return Err(io_err("cannot run verilator".into(), e)),
    };
    let mut follower = LogFollower::new(log_path.clone(), dir.join("obj"));
    let status = process
        .wait(Duration::from_millis(100), || {
            progress.step(&follower.poll())
        })
        .map_err(|e| io_err("cannot wait for verilator".into(), e))?;
    if !status.success() && interrupted() {
        return Err(HarnessError::Interrupted);
    }
    let output = fs::read_to_string(&log_path).unwrap_or_default();
    if !status.success() || !dir.join(LIBRARY_FILE).is_file() {
        return Err(HarnessError::BuildFailed {
            step: "verilator --build (Verilator, make, g++)",
            status: status.to_string(),
            log: None,
            tail: format!(
                "{}{}{}",
                tool_hint(&output),
                port_hint(&output, ports),
                tail_of(&output)
            ),
        });
    }
    // The object files are only needed to link; the entry keeps the library.
    let _ = fs::remove_dir_all(dir.join("obj"));
    Ok(())
}

/// Removes temporary directories (`.tmp-<key>-*`, `.trash-*`) of builds
/// that died: those of `own_key` (whose lock the caller holds) and those
/// whose key's lock is free or gone.
fn sweep(root: &Path, own_key: &str) {
    let Ok(dir) = fs::read_dir(root) else {
        return;
    };
    for e in dir.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some((EntryKind::Partial, key)) = classify(&name) else {
            continue;
        };
        let free = key == own_key
            || !lock_path(root, &key).exists()
            || matches!(KeyLock::acquire(&lock_path(root, &key), false), Ok(Some(_)));
        if free {
            let _ = fs::remove_dir_all(e.path());
        }
    }
}

/// What a name in the cache directory is. Anything else there is not the
/// cache's and is left alone (the directory may be shared).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// `<key>/`: a model.
    Model,
    /// `failed-<key>/`: a failed build kept for its log.
    Failed,
    /// `.tmp-<key>-*/`, `.trash-<key>-*/`: a build in progress or killed, or
    /// an entry being removed.
    Partial,
    /// `<key>.lock`.
    Lock,
}

/// A key: 64 lowercase hex digits (32 in caches of older versions).
fn is_key(s: &str) -> bool {
    (s.len() == 64 || s.len() == 32) && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

fn classify(name: &str) -> Option<(EntryKind, String)> {
    let key_prefix = |rest: &str| -> Option<String> {
        let k = rest.split('-').next()?;
        is_key(k).then(|| k.to_string())
    };
    if is_key(name) {
        Some((EntryKind::Model, name.to_string()))
    } else if let Some(k) = name.strip_suffix(".lock").filter(|k| is_key(k)) {
        Some((EntryKind::Lock, k.to_string()))
    } else if let Some(k) = name.strip_prefix("failed-").filter(|k| is_key(k)) {
        Some((EntryKind::Failed, k.to_string()))
    } else if let Some(rest) = name
        .strip_prefix(".tmp-")
        .or_else(|| name.strip_prefix(".trash-"))
    {
        Some((EntryKind::Partial, key_prefix(rest)?))
    } else {
        None
    }
}

/// One thing in the cache directory (see [`entries`]).
#[derive(Clone, Debug)]
pub struct Entry {
    pub name: String,
    pub key: String,
    pub path: PathBuf,
    pub kind: EntryKind,
    /// Total size of its files.
    pub bytes: u64,
    pub modified: Option<SystemTime>,
    /// The manifest of a [`EntryKind::Model`], when it reads.
    pub manifest: Option<Manifest>,
}

/// What is in the cache at `root`, sorted by name; empty when `root` does
/// not exist.
pub fn entries(root: &Path) -> Result<Vec<Entry>, HarnessError> {
    let dir = match fs::read_dir(root) {
        Ok(d) => d,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err(format!("cannot read {}", root.display()), e)),
    };
    let mut out = Vec::new();
    for e in dir {
        let e = e.map_err(|e| io_err(format!("cannot read {}", root.display()), e))?;
        let name = e.file_name().to_string_lossy().into_owned();
        let Some((kind, key)) = classify(&name) else {
            continue;
        };
        let path = e.path();
        let meta = fs::symlink_metadata(&path).ok();
        let manifest = (kind == EntryKind::Model)
            .then(|| fs::read(path.join(MANIFEST_FILE)).ok())
            .flatten()
            .and_then(|b| serde_json::from_slice(&b).ok());
        out.push(Entry {
            bytes: tree_size(&path),
            modified: meta.and_then(|m| m.modified().ok()),
            name,
            key,
            path,
            kind,
            manifest,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

fn tree_size(path: &Path) -> u64 {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => fs::read_dir(path)
            .map(|d| d.flatten().map(|e| tree_size(&e.path())).sum())
            .unwrap_or(0),
        Ok(m) => m.len(),
        Err(_) => 0,
    }
}

/// What [`clean`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cleaned {
    /// Models removed.
    pub models: usize,
    /// Other things removed (failed builds, leftovers, lock files).
    pub other: usize,
    pub bytes: u64,
    /// Keys skipped because a build of theirs is running.
    pub busy: Vec<String>,
}

/// Removes everything of the cache at `root` (see [`EntryKind`]; nothing
/// else), except the keys being built right now. Nothing to do when `root`
/// does not exist. The directory itself stays.
pub fn clean(root: &Path) -> Result<Cleaned, HarnessError> {
    let all = entries(root)?;
    let mut keys: Vec<&str> = all.iter().map(|e| e.key.as_str()).collect();
    keys.sort_unstable();
    keys.dedup();
    let mut done = Cleaned::default();
    for key in keys {
        let lock_file = lock_path(root, key);
        let lock = if lock_file.exists() {
            match KeyLock::acquire(&lock_file, false) {
                Ok(Some(lock)) => Some(lock),
                Ok(None) => {
                    done.busy.push(key.to_string());
                    continue;
                }
                Err(e) => return Err(io_err(format!("cannot lock {}", lock_file.display()), e)),
            }
        } else {
            None
        };
        for e in all
            .iter()
            .filter(|e| e.key == key && e.kind != EntryKind::Lock)
        {
            let removed = if e.path.is_dir() {
                fs::remove_dir_all(&e.path)
            } else {
                fs::remove_file(&e.path)
            };
            match removed {
                Ok(()) => {}
                Err(err) if err.kind() == io::ErrorKind::NotFound => continue,
                Err(err) => return Err(io_err(format!("cannot remove {}", e.path.display()), err)),
            }
            done.bytes += e.bytes;
            if e.kind == EntryKind::Model {
                done.models += 1;
            } else {
                done.other += 1;
            }
        }
        if let Some(lock) = lock {
            match lock.remove_file() {
                Ok(()) => done.other += 1,
                Err(err) if err.kind() == io::ErrorKind::NotFound => {}
                Err(err) => {
                    return Err(io_err(
                        format!("cannot remove {}", lock_file.display()),
                        err,
                    ))
                }
            }
        }
    }
    Ok(done)
}

/// The end of a build's output, with Verilator's `%Error` lines first when
/// they would not be in the tail (they come before make's output).
pub fn tail_of(output: &str) -> String {
    const TAIL: usize = 40;
    let lines: Vec<&str> = output.lines().collect();
    let start = lines.len().saturating_sub(TAIL);
    let mut out = String::new();
    let early_errors: Vec<&str> = lines[..start]
        .iter()
        .filter(|l| l.starts_with("%Error") || l.contains("error:"))
        .take(10)
        .copied()
        .collect();
    if !early_errors.is_empty() {
        for l in early_errors {
            out.push_str(l);
            out.push('\n');
        }
        out.push_str("...\n");
    }
    for l in &lines[start..] {
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// A summary line when `make` or `g++` is missing.
pub fn tool_hint(output: &str) -> String {
    let missing: Vec<&str> = ["make", "g++"]
        .into_iter()
        .filter(|t| {
            output.contains(&format!("{t}: not found"))
                || output.contains(&format!("{t}: No such file or directory"))
                || output.contains(&format!("{t}: command not found"))
        })
        .collect();
    if missing.is_empty() {
        String::new()
    } else {
        format!(
            "{} not found: run scripts/setup.sh (it installs the C++ toolchain Verilator builds with)\n",
            missing.join(" and ")
        )
    }
}

/// A summary line when the C++ compiler says the Verilog's ports are not
/// `ports` (the shim names every port).
pub fn port_hint(output: &str, ports: &[Port]) -> String {
    let mut missing = Vec::new();
    let mut wrong_width = Vec::new();
    let list = "docs/microarchitecture.md §14.2";
    for p in ports {
        let n = p.name;
        let quoted = [format!("‘{n}’"), format!("'{n}'")];
        let named = |l: &str| quoted.iter().any(|q| l.contains(q.as_str()));
        if output.lines().any(|l| {
            (l.contains("no member named") || l.contains("is not a member of")) && named(l)
        }) {
            missing.push(n);
        } else if output
            .lines()
            .any(|l| l.contains("static assertion failed") && l.contains(&format!("port {n} of")))
        {
            wrong_width.push(format!("{n} ({} bits)", p.width));
        }
    }
    let mut hint = String::new();
    if !missing.is_empty() {
        hint += &format!(
            "concord_core lacks the port(s) {} (port list: {list})\n",
            missing.join(", ")
        );
    }
    if !wrong_width.is_empty() {
        hint += &format!(
            "concord_core has other widths for the port(s) {}\n",
            wrong_width.join(", ")
        );
    }
    hint
}

fn io_err(context: String, source: io::Error) -> HarnessError {
    HarnessError::Io { context, source }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    fn tools(v: &str) -> Tools {
        Tools {
            verilator: v.into(),
            cxx: "g++ 12".into(),
        }
    }

    #[test]
    fn key_depends_on_every_input() {
        let t = tools("Verilator 5");
        let k = cache_key("module m; endmodule", "shim", &t, false);
        assert_eq!(k.len(), 64);
        assert_eq!(k, cache_key("module m; endmodule", "shim", &t, false));
        assert_ne!(k, cache_key("module m; endmodule ", "shim", &t, false));
        assert_ne!(k, cache_key("module m; endmodule", "shim2", &t, false));
        assert_ne!(
            k,
            cache_key("module m; endmodule", "shim", &tools("Verilator 4"), false)
        );
        let other_cxx = Tools {
            cxx: "g++ 13".into(),
            ..t.clone()
        };
        assert_ne!(
            k,
            cache_key("module m; endmodule", "shim", &other_cxx, false)
        );
        assert_ne!(k, cache_key("module m; endmodule", "shim", &t, true));
    }

    #[test]
    fn sha256_known_answer() {
        // FIPS 180-2 appendix B.1.
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("abc");
        fs::write(&f, "abc").unwrap();
        assert_eq!(
            file_sha256(&f).unwrap(),
            (
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad".to_string(),
                3
            )
        );
    }

    #[test]
    fn cache_dir_priority() {
        let s = |v: &'static str| Some(OsStr::new(v));
        let r = |e, x, h| resolve_cache_dir(None, e, x, h).map(|l| (l.dir, l.source));
        let explicit = Path::new("/x/explicit");
        let l = resolve_cache_dir(Some(explicit), s("/e"), s("/x"), s("/h")).unwrap();
        assert_eq!(
            (l.dir.as_path(), l.source),
            (explicit, CacheSource::Explicit)
        );
        assert_eq!(
            r(s("/e"), s("/x"), s("/h")).unwrap(),
            (PathBuf::from("/e"), CacheSource::Env)
        );
        assert_eq!(
            r(s(""), s("/x"), s("/h")).unwrap(),
            (PathBuf::from("/x/concord"), CacheSource::XdgCacheHome)
        );
        // The XDG spec: a relative XDG_CACHE_HOME is invalid and ignored.
        assert_eq!(
            r(None, s("rel"), s("/h")).unwrap(),
            (PathBuf::from("/h/.cache/concord"), CacheSource::Home)
        );
        assert_eq!(
            r(None, s(""), s("/h")).unwrap(),
            (PathBuf::from("/h/.cache/concord"), CacheSource::Home)
        );
        assert!(matches!(
            r(None, None, s("")),
            Err(HarnessError::NoCacheDir)
        ));
    }

    #[test]
    fn publish_keeps_the_first_complete_entry() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        let entry = root.join("key");
        let a = root.join("a");
        let b = root.join("b");
        for (d, text) in [(&a, "first"), (&b, "second")] {
            fs::create_dir_all(d).unwrap();
            fs::write(d.join(LIBRARY_FILE), text).unwrap();
        }
        publish(&a, &entry).unwrap();
        publish(&b, &entry).unwrap();
        assert_eq!(
            fs::read_to_string(entry.join(LIBRARY_FILE)).unwrap(),
            "first"
        );
        assert!(!a.exists() && !b.exists());
    }

    /// An entry as a build leaves it, with a made-up library.
    fn fake_entry(root: &Path, key: &str, verilog: &str, library: &[u8]) -> PathBuf {
        let entry = root.join(key);
        fs::create_dir_all(&entry).unwrap();
        fs::write(entry.join(LIBRARY_FILE), library).unwrap();
        fs::write(entry.join(VERILOG_FILE), verilog).unwrap();
        write_manifest(&entry, key, &tools("V"), &BuildOptions::default(), 1.0).unwrap();
        entry
    }

    #[test]
    fn verification_rejects_every_kind_of_damage() {
        let root = tempfile::tempdir().unwrap();
        let key = "a".repeat(64);
        let lib: Vec<u8> = (0..4096u32).map(|i| i as u8).collect();
        let entry = fake_entry(root.path(), &key, "module m;", &lib);
        let damaged = |v: Verification, what: &str| match v {
            Verification::Damaged(why) => assert!(why.contains(what), "{why}"),
            other => panic!("{other:?}, expected damage: {what}"),
        };
        assert_eq!(
            verify(&entry, &key, "module m;"),
            Verification::Valid(entry.join(LIBRARY_FILE))
        );
        assert_eq!(
            verify(&root.path().join("b".repeat(64)), &key, ""),
            Verification::Absent
        );
        // Another text under this key.
        damaged(verify(&entry, &key, "module n;"), "Verilog");
        // Looked up under another key (the entry was moved or copied).
        damaged(
            verify(&entry, &"c".repeat(64), "module m;"),
            "manifest is for the key",
        );

        // Truncated (the SIGBUS of issue 12): size.
        fs::write(entry.join(LIBRARY_FILE), &lib[..1000]).unwrap();
        damaged(
            verify(&entry, &key, "module m;"),
            "has 1000 bytes, the manifest says 4096",
        );
        // Same size, other content (another configuration's library): hash.
        let mut other = lib.clone();
        other[2000] ^= 1;
        fs::write(entry.join(LIBRARY_FILE), &other).unwrap();
        damaged(verify(&entry, &key, "module m;"), "SHA-256");
        fs::write(entry.join(LIBRARY_FILE), &lib).unwrap();
        assert!(matches!(
            verify(&entry, &key, "module m;"),
            Verification::Valid(_)
        ));

        // Manifest missing or not JSON.
        fs::write(entry.join(MANIFEST_FILE), "{").unwrap();
        damaged(verify(&entry, &key, "module m;"), "malformed");
        fs::remove_file(entry.join(MANIFEST_FILE)).unwrap();
        damaged(verify(&entry, &key, "module m;"), "cannot be read");
        // A file where the entry's directory should be.
        let file_entry = root.path().join("d".repeat(64));
        fs::write(&file_entry, "x").unwrap();
        damaged(verify(&file_entry, &"d".repeat(64), ""), "not a directory");
    }

    #[test]
    fn names_of_the_cache() {
        let k = "0123456789abcdef".repeat(4);
        assert_eq!(classify(&k), Some((EntryKind::Model, k.clone())));
        assert_eq!(
            classify(&format!("{k}.lock")),
            Some((EntryKind::Lock, k.clone()))
        );
        assert_eq!(
            classify(&format!("failed-{k}")),
            Some((EntryKind::Failed, k.clone()))
        );
        assert_eq!(
            classify(&format!(".tmp-{k}-x1Yz")),
            Some((EntryKind::Partial, k.clone()))
        );
        assert_eq!(
            classify(&format!(".trash-{k}-q")),
            Some((EntryKind::Partial, k.clone()))
        );
        assert_eq!(
            classify(&k[..32]),
            Some((EntryKind::Model, k[..32].to_string()))
        );
        for foreign in [
            "notes.txt",
            "ABCDEF",
            ".tmp-x",
            "failed-",
            &k.to_uppercase(),
            &k[..40],
        ] {
            assert_eq!(classify(foreign), None, "{foreign}");
        }
    }

    #[test]
    fn a_lock_excludes_until_dropped_and_survives_removal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.lock");
        let held = KeyLock::acquire(&path, false).unwrap().unwrap();
        assert!(KeyLock::acquire(&path, false).unwrap().is_none());
        // Removed by its holder (as `clean` does): the next taker gets a
        // lock on the new file, not on the unlinked one.
        held.remove_file().unwrap();
        drop(held);
        let again = KeyLock::acquire(&path, false).unwrap().unwrap();
        assert!(path.exists());
        assert!(KeyLock::acquire(&path, false).unwrap().is_none());
        drop(again);
    }

    #[test]
    fn clean_removes_only_the_caches_own_files_and_spares_running_builds() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        let (a, b) = ("a".repeat(64), "b".repeat(64));
        fake_entry(root, &a, "module a;", b"lib a");
        fake_entry(root, &b, "module b;", b"lib b");
        fs::create_dir_all(root.join(format!("failed-{a}"))).unwrap();
        fs::create_dir_all(root.join(format!(".tmp-{a}-old"))).unwrap();
        fs::write(root.join(format!("{a}.lock")), "").unwrap();
        fs::write(root.join("notes.txt"), "mine").unwrap();
        fs::create_dir_all(root.join("project")).unwrap();
        // `b` is being built.
        let building = KeyLock::acquire(&root.join(format!("{b}.lock")), false)
            .unwrap()
            .unwrap();
        fs::create_dir_all(root.join(format!(".tmp-{b}-now"))).unwrap();

        let listed: Vec<_> = entries(root)
            .unwrap()
            .into_iter()
            .map(|e| (e.kind, e.key))
            .collect();
        assert_eq!(listed.len(), 7, "{listed:?}");
        let done = clean(root).unwrap();
        assert_eq!(done.models, 1);
        assert_eq!(done.other, 3, "failed build, leftover, lock file");
        assert_eq!(done.busy, vec![b.clone()]);
        let mut left: Vec<String> = fs::read_dir(root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let mut expected = vec![
            b.clone(),
            format!(".tmp-{b}-now"),
            format!("{b}.lock"),
            "notes.txt".into(),
            "project".into(),
        ];
        expected.sort();
        assert_eq!(left, expected);
        drop(building);
        clean(root).unwrap();
        let mut left: Vec<String> = fs::read_dir(root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["notes.txt", "project"]);
        // A cache that does not exist: nothing to list, nothing to do.
        let none = root.join("none");
        assert!(entries(&none).unwrap().is_empty());
        assert_eq!(clean(&none).unwrap(), Cleaned::default());
        assert!(!none.exists());
    }

    #[test]
    fn sweep_removes_leftovers_of_dead_builds_only() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        let (a, b, c) = ("a".repeat(64), "b".repeat(64), "c".repeat(64));
        for d in [
            format!(".tmp-{a}-1"),
            format!(".tmp-{b}-2"),
            format!(".trash-{c}-3"),
        ] {
            fs::create_dir_all(root.join(d)).unwrap();
        }
        fs::write(root.join(format!("{c}.lock")), "").unwrap();
        let _running = KeyLock::acquire(&root.join(format!("{b}.lock")), false)
            .unwrap()
            .unwrap();
        sweep(root, &a);
        assert!(!root.join(format!(".tmp-{a}-1")).exists(), "own key");
        assert!(
            root.join(format!(".tmp-{b}-2")).exists(),
            "b is being built"
        );
        assert!(
            !root.join(format!(".trash-{c}-3")).exists(),
            "c's lock is free"
        );
    }

    #[test]
    fn port_mismatches_are_summarised() {
        let hw = concord_uarch::HwParams::new(&concord_isa::config::CoreConfig::default()).unwrap();
        let ports = concord_uarch::ports::core_ports(&hw, &concord_uarch::GenOptions::sim());
        let out = "../shim.cpp:205:25: error: ‘class Vconcord_core’ has no member named ‘tr_record’; did you mean ‘tr_recordx’?\n\
                   ../shim.cpp:290:1: error: static assertion failed: port wbs_ack_o of concord_core must be 1 bit(s) wide\n";
        let h = port_hint(out, &ports);
        assert!(h.contains("lacks the port(s) tr_record "), "{h}");
        assert!(
            h.contains("other widths for the port(s) wbs_ack_o (1 bits)"),
            "{h}"
        );
        assert_eq!(port_hint("make: *** Error 1", &ports), "");
    }

    #[test]
    fn missing_tools_are_named() {
        let h = tool_hint("sh: 1: make: not found\n%Error: make -C obj exited with 127\n");
        assert!(h.starts_with("make not found: run scripts/setup.sh"), "{h}");
        assert_eq!(tool_hint("ok"), "");
    }

    #[test]
    fn tail_puts_early_errors_first() {
        let mut log = String::from("%Error: x.v:3: syntax error\n");
        for i in 0..100 {
            log.push_str(&format!("line {i}\n"));
        }
        let t = tail_of(&log);
        assert!(t.starts_with("%Error: x.v:3"));
        assert!(t.ends_with("line 99\n"));
        assert!(!t.contains("line 10\n"));
    }
}
