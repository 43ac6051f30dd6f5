//! Building the shared library of a Verilog text, and the build cache.
//!
//! One cache entry per key, a directory `<cache>/<key>/` holding
//! `concord_core.v` (the text, compared on every hit, so even a hash
//! collision cannot load the wrong model), `libconcord_core.so`, `build.log`
//! and `key.txt` (what went into the key). The key is an FNV-1a 128 hash of
//! the shim version and source, the Verilator version, the build flags, the
//! trace flag and the Verilog text.
//!
//! Concurrency: an entry is built in its own temporary directory and renamed
//! into place only when complete; a rename that loses the race to another
//! process discards its copy and uses the winner's. Within one process, builds
//! of the same key are serialised, so the second caller gets a cache hit.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::ports::PORTS;
use super::shim::{self, SHIM_VERSION};
use super::HarnessError;

/// Environment variable that overrides the default cache directory.
pub const CACHE_ENV: &str = "CONCORD_RTL_CACHE";

/// File names inside a cache entry.
pub const VERILOG_FILE: &str = "concord_core.v";
pub const LIBRARY_FILE: &str = "libconcord_core.so";
pub const LOG_FILE: &str = "build.log";

/// Verilator's C++ optimisation levels (make variables of `verilated.mk`).
/// Part of the key.
const MAKE_OPT: [&str; 3] = ["OPT_FAST=-O2", "OPT_SLOW=-O1", "OPT_GLOBAL=-O2"];

/// How to build.
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    /// Build with `--trace` so [`Rtl::open_vcd`](super::Rtl::open_vcd) works
    /// (a separate cache entry; tracing builds are slower to compile).
    pub trace: bool,
    /// Cache directory; default: `$CONCORD_RTL_CACHE`, else
    /// `<workspace>/target/concord-rtl-cache/`.
    pub cache_dir: Option<PathBuf>,
    /// Parallel jobs of the C++ build; default: the machine's parallelism.
    pub jobs: Option<usize>,
}

/// 128-bit FNV-1a.
#[derive(Clone, Copy, Debug)]
pub struct Fnv1a128(u128);

impl Fnv1a128 {
    const OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
    const PRIME: u128 = 0x0000000001000000000000000000013b;

    pub fn new() -> Self {
        Fnv1a128(Self::OFFSET)
    }

    pub fn write(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        for &b in bytes {
            h ^= b as u128;
            h = h.wrapping_mul(Self::PRIME);
        }
        self.0 = h;
    }

    /// A length-prefixed field, so that ("ab", "c") and ("a", "bc") differ.
    pub fn field(&mut self, bytes: &[u8]) {
        self.write(&(bytes.len() as u64).to_le_bytes());
        self.write(bytes);
    }

    pub fn finish(&self) -> u128 {
        self.0
    }
}

impl Default for Fnv1a128 {
    fn default() -> Self {
        Self::new()
    }
}

/// The directory the cache lives in, by priority: `explicit`, `env`
/// (`$CONCORD_RTL_CACHE`, ignored when empty), `<workspace>/target/concord-rtl-cache`.
pub fn resolve_cache_dir(explicit: Option<&Path>, env: Option<&str>) -> PathBuf {
    if let Some(p) = explicit {
        return p.to_path_buf();
    }
    if let Some(e) = env.filter(|e| !e.is_empty()) {
        return PathBuf::from(e);
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .unwrap_or(manifest)
        .join("target")
        .join("concord-rtl-cache")
}

/// Where [`build`] put (or found) a library.
#[derive(Clone, Debug)]
pub struct Built {
    pub library: PathBuf,
    pub cache_hit: bool,
    pub key: String,
}

/// `verilator --version`, once per process (a failure to find it is not
/// remembered, so installing it mid-process works).
pub fn verilator_version() -> Result<String, HarnessError> {
    static VERSION: Mutex<Option<String>> = Mutex::new(None);
    let mut v = VERSION.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(s) = v.as_ref() {
        return Ok(s.clone());
    }
    let out = match Command::new("verilator").arg("--version").output() {
        Ok(out) => out,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(HarnessError::VerilatorNotFound)
        }
        Err(e) => {
            return Err(HarnessError::Io {
                context: "cannot run `verilator --version`".into(),
                source: e,
            })
        }
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
    let s = String::from_utf8_lossy(&out.stdout).trim().to_string();
    *v = Some(s.clone());
    Ok(s)
}

/// The cache key of a build.
pub fn cache_key(verilog: &str, shim_source: &str, verilator: &str, trace: bool) -> String {
    let mut h = Fnv1a128::new();
    h.field(b"concord-rtl-cache");
    h.field(&SHIM_VERSION.to_le_bytes());
    h.field(shim_source.as_bytes());
    h.field(verilator.as_bytes());
    for f in build_flags(trace) {
        h.field(f.as_bytes());
    }
    h.field(verilog.as_bytes());
    format!("{:032x}", h.finish())
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

/// Builds (or finds in the cache) the shared library of `verilog`.
pub fn build(verilog: &str, options: &BuildOptions) -> Result<Built, HarnessError> {
    let version = verilator_version()?;
    let shim_source = shim::source();
    let key = cache_key(verilog, &shim_source, &version, options.trace);
    let env = std::env::var(CACHE_ENV).ok();
    let root = resolve_cache_dir(options.cache_dir.as_deref(), env.as_deref());
    let entry = root.join(&key);

    // One build per key at a time in this process.
    let lock = key_lock(&root, &key);
    let _guard = lock.lock().unwrap_or_else(|e| e.into_inner());

    if let Some(lib) = lookup(&entry, verilog) {
        return Ok(Built {
            library: lib,
            cache_hit: true,
            key,
        });
    }
    fs::create_dir_all(&root)
        .map_err(|e| io_err(format!("cannot create {}", root.display()), e))?;
    remove_stale_temps(&root);
    let tmp = root.join(format!(".tmp-{key}-{}-{}", std::process::id(), unique()));
    let result = build_in(&tmp, verilog, &shim_source, &version, options);
    if let Err(e) = result {
        // Keep the failed build for inspection, one per key.
        let failed = root.join(format!("failed-{key}"));
        let _ = fs::remove_dir_all(&failed);
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
    publish(&tmp, &entry)?;
    match lookup(&entry, verilog) {
        Some(lib) => Ok(Built {
            library: lib,
            cache_hit: false,
            key,
        }),
        None => Err(io_err(
            format!(
                "the cache entry {} is incomplete after the build",
                entry.display()
            ),
            io::Error::from(io::ErrorKind::NotFound),
        )),
    }
}

/// The library of a complete entry whose Verilog is `verilog`. An entry
/// with a different text (a hash collision) is removed.
fn lookup(entry: &Path, verilog: &str) -> Option<PathBuf> {
    let lib = entry.join(LIBRARY_FILE);
    if !lib.is_file() {
        return None;
    }
    match fs::read(entry.join(VERILOG_FILE)) {
        Ok(text) if text == verilog.as_bytes() => Some(lib),
        _ => {
            let _ = fs::remove_dir_all(entry);
            None
        }
    }
}

/// Moves a finished build into place. If another build of the same key got
/// there first, keeps theirs and discards ours.
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

fn build_in(
    dir: &Path,
    verilog: &str,
    shim_source: &str,
    version: &str,
    options: &BuildOptions,
) -> Result<(), HarnessError> {
    fs::create_dir_all(dir).map_err(|e| io_err(format!("cannot create {}", dir.display()), e))?;
    let write = |name: &str, text: &str| {
        fs::write(dir.join(name), text)
            .map_err(|e| io_err(format!("cannot write {}", dir.join(name).display()), e))
    };
    write(VERILOG_FILE, verilog)?;
    write("shim.cpp", shim_source)?;
    write("exports.map", shim::EXPORTS_MAP)?;
    write(
        "key.txt",
        &format!(
            "shim {SHIM_VERSION}\n{version}\ntrace {}\nflags {}\n",
            options.trace,
            build_flags(options.trace).join(" ")
        ),
    )?;

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
    let mut cmd = Command::new("verilator");
    cmd.current_dir(dir)
        .args(build_flags(options.trace))
        .args(["-j", &jobs.max(1).to_string(), "--Mdir", "obj"])
        .args(["-o", &format!("../{LIBRARY_FILE}")])
        .args([VERILOG_FILE, "shim.cpp"])
        .stdin(Stdio::null())
        .stdout(Stdio::from(log))
        .stderr(Stdio::from(log2));
    let status = match cmd.status() {
        Ok(s) => s,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(HarnessError::VerilatorNotFound)
        }
        Err(e) => return Err(io_err("cannot run verilator".into(), e)),
    };
    let output = fs::read_to_string(&log_path).unwrap_or_default();
    if !status.success() || !dir.join(LIBRARY_FILE).is_file() {
        return Err(HarnessError::BuildFailed {
            step: "verilator --build (Verilator, make, g++)",
            status: status.to_string(),
            log: None,
            tail: format!(
                "{}{}{}",
                tool_hint(&output),
                port_hint(&output),
                tail_of(&output)
            ),
        });
    }
    // The object files are only needed to link; the entry keeps the library.
    let _ = fs::remove_dir_all(dir.join("obj"));
    Ok(())
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
/// the ones of docs/microarchitecture.md (the shim names every port).
pub fn port_hint(output: &str) -> String {
    let mut missing = Vec::new();
    let mut wrong_width = Vec::new();
    for p in PORTS.iter() {
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
            "concord_core lacks the port(s) {} (port list: docs/microarchitecture.md §8-§10)\n",
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

/// Removes temporary build directories left by builds that died (older
/// than a day: no build takes that long).
fn remove_stale_temps(root: &Path) {
    const DAY: std::time::Duration = std::time::Duration::from_secs(24 * 3600);
    let Ok(entries) = fs::read_dir(root) else {
        return;
    };
    for e in entries.flatten() {
        let stale = e.file_name().to_string_lossy().starts_with(".tmp-")
            && e.metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > DAY);
        if stale {
            let _ = fs::remove_dir_all(e.path());
        }
    }
}

fn key_lock(root: &Path, key: &str) -> Arc<Mutex<()>> {
    static LOCKS: OnceLock<Mutex<HashMap<PathBuf, Arc<Mutex<()>>>>> = OnceLock::new();
    let mut map = LOCKS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    map.entry(root.join(key)).or_default().clone()
}

fn unique() -> u64 {
    static N: AtomicU64 = AtomicU64::new(0);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    t ^ N.fetch_add(1, Ordering::Relaxed).rotate_left(48)
}

fn io_err(context: String, source: io::Error) -> HarnessError {
    HarnessError::Io { context, source }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_128_known_answers() {
        assert_eq!(Fnv1a128::new().finish(), 0x6c62272e07bb014262b821756295c58d);
        let mut h = Fnv1a128::new();
        h.write(b"a");
        assert_eq!(h.finish(), 0xd228cb696f1a8caf78912b704e4a8964);
    }

    #[test]
    fn key_depends_on_every_input() {
        let k = cache_key("module m; endmodule", "shim", "Verilator 5", false);
        assert_eq!(k.len(), 32);
        assert_eq!(
            k,
            cache_key("module m; endmodule", "shim", "Verilator 5", false)
        );
        assert_ne!(
            k,
            cache_key("module m; endmodule ", "shim", "Verilator 5", false)
        );
        assert_ne!(
            k,
            cache_key("module m; endmodule", "shim2", "Verilator 5", false)
        );
        assert_ne!(
            k,
            cache_key("module m; endmodule", "shim", "Verilator 4", false)
        );
        assert_ne!(
            k,
            cache_key("module m; endmodule", "shim", "Verilator 5", true)
        );
    }

    #[test]
    fn cache_dir_priority() {
        let explicit = Path::new("/x/explicit");
        assert_eq!(resolve_cache_dir(Some(explicit), Some("/y")), explicit);
        assert_eq!(resolve_cache_dir(None, Some("/y")), Path::new("/y"));
        let default = resolve_cache_dir(None, Some(""));
        assert!(default.ends_with("target/concord-rtl-cache"), "{default:?}");
        assert_eq!(default, resolve_cache_dir(None, None));
    }

    #[test]
    fn publish_keeps_the_first_complete_entry() {
        let root = std::env::temp_dir().join(format!("concord-publish-{}", unique()));
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
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn port_mismatches_are_summarised() {
        let out = "../shim.cpp:205:25: error: ‘class Vconcord_core’ has no member named ‘trace_pc’; did you mean ‘trace_pcx’?\n\
                   ../shim.cpp:290:1: error: static assertion failed: port trace_warp of concord_core must be 4 bit(s) wide\n";
        let h = port_hint(out);
        assert!(h.contains("lacks the port(s) trace_pc "), "{h}");
        assert!(
            h.contains("other widths for the port(s) trace_warp (4 bits)"),
            "{h}"
        );
        assert_eq!(port_hint("make: *** Error 1"), "");
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
