//! The Verilator harness: builds the Verilog of `concord_core` (any
//! configuration, at run time), caches the build, and drives it cycle by
//! cycle from Rust.
//!
//! ```text
//! Verilog text ──► key = SHA-256(Verilog, shim, Verilator + g++ versions, flags)
//!     │                 │ hit: <cache>/<key>/ verified (manifest: key, library SHA-256)
//!     ▼ miss/damaged    ▼
//! <key>.lock ─► verilator --cc --exe --build (own process group) ─► .tmp-<key>-*/
//!     ──rename──► <cache>/<key>/ ──dlopen──► concord_build_key() == key? ──► Rtl
//! ```
//!
//! * [`Rtl::build`] builds or finds the library and creates a model.
//! * [`Rtl::cycle`] runs one clock cycle against a [`GlobalMemory`] and
//!   returns that cycle's [`TracePort`] (docs/microarchitecture.md §8, §10).
//! * [`Rtl::host_write`], [`Rtl::host_read`], [`Rtl::counters`],
//!   [`Rtl::trap_report`]: the host interface (§9).
//! * [`run`]: a whole launch, like `concord_isa::func::run`.
//! * [`Rtl::open_vcd`]: waveforms, in builds with [`BuildOptions::trace`].
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
//! Verilator 5 (Debian's 5.006 and newer) is needed on `PATH`, with `make`
//! and `g++`; `scripts/setup.sh` installs them.
//!
//! One model is one Verilated instance: independent of every other, movable
//! between threads (`Send`), used by one thread at a time (`&mut self`).

pub mod cache;
mod ffi;
mod process;
mod progress;
mod run;
pub mod shim;
pub mod v2;
pub mod v2_run;

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::ptr::NonNull;

use concord_isa::checks::Stacks;
use concord_isa::config::CoreConfig;
use concord_isa::func::{Launch, Trap, TrapCause};
use concord_isa::{decode, Op, Space};
use concord_uarch::ports::{Dir, Port, PORTS};
use concord_uarch::{Counter, TrapCode};

use crate::trace::{Counters, State, TracePort};

pub use crate::cycle::{GlobalMemory, GlobalRequest};
pub use cache::BuildOptions;
pub use process::kill_builds;
pub use run::{run, CycleHook};
pub use v2::{Pins, RtlV2, V2Cycle};
pub use v2_run::RtlV2Outcome;

use ffi::{Access, Api, Sim, V1Fns};
use shim::{RawRequest, RawTrace};

pub use crate::host;

/// Cycles `reset` is held by [`Rtl::reset`].
pub const RESET_CYCLES: u32 = 2;

/// What can go wrong in the harness (not in the simulated core).
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    #[error(
        "verilator not found: run scripts/setup.sh (it installs Verilator from the OS packages)"
    )]
    VerilatorNotFound,
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
    #[error("the RTL drove trace_state = {code} in cycle {cycle}, which is no state code (docs/microarchitecture.md §10)")]
    BadState { code: u32, cycle: u64 },
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

/// Starts a VCD of model `sim` of library `api` (see [`Rtl::open_vcd`]).
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

/// The status pins (`running`, `done`, `trapped`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Status {
    pub running: bool,
    pub done: bool,
    pub trapped: bool,
}

impl Status {
    /// Done or trapped.
    pub fn ended(&self) -> bool {
        self.done || self.trapped
    }

    fn from_bits(b: u32) -> Status {
        Status {
            running: b & host::STATUS_RUNNING != 0,
            done: b & host::STATUS_DONE != 0,
            trapped: b & host::STATUS_TRAPPED != 0,
        }
    }
}

/// A Verilated `concord_core`.
pub struct Rtl {
    api: &'static Api,
    /// v1's fast path (a library of v1's port list has it).
    v1: &'static V1Fns,
    sim: NonNull<Sim>,
    cache_hit: bool,
    key: String,
    /// Clock cycles run by [`Rtl::cycle`] since the model was created.
    cycles: u64,
    vcd: Option<PathBuf>,
    // Per-cycle scratch, reused so a cycle allocates nothing.
    raw_req: RawRequest,
    raw_trace: RawTrace,
    req: GlobalRequest,
    // Host registers as last written (the core does not read them back).
    code_len: u32,
    param_count: u32,
    stack_bytes: u32,
}

// SAFETY: the model (a Verilated instance with its own VerilatedContext) has
// no thread affinity; it is reached only through `&mut self`, so it is never
// used by two threads at once. The library it lives in is never unloaded.
unsafe impl Send for Rtl {}

impl Drop for Rtl {
    fn drop(&mut self) {
        // SAFETY: `sim` came from this library's `concord_new` and is freed
        // exactly once, here; the library outlives it (never unloaded).
        unsafe { (self.api.free)(self.sim.as_ptr()) }
    }
}

impl std::fmt::Debug for Rtl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rtl")
            .field("library", &self.api.path)
            .field("cache_hit", &self.cache_hit)
            .field("traced", &self.api.traced)
            .field("cycles", &self.cycles)
            .finish()
    }
}

impl Rtl {
    /// Builds the Verilog (or finds it in the cache) and creates a model,
    /// reset (see [`Rtl::reset`]).
    pub fn build(verilog: &str, options: &BuildOptions) -> Result<Rtl, HarnessError> {
        let (api, cache_hit, key) = load_checked(verilog, &PORTS, options)?;
        Rtl::create(api, cache_hit, key)
    }

    /// Another, independent model of the same library (no build, no lookup).
    pub fn new_instance(&self) -> Result<Rtl, HarnessError> {
        Rtl::create(self.api, true, self.key.clone())
    }

    fn create(api: &'static Api, cache_hit: bool, key: String) -> Result<Rtl, HarnessError> {
        let v1 = api.v1.as_ref().ok_or_else(|| HarnessError::Load {
            path: api.path.clone(),
            message: "the library was not built for the v1 port list".into(),
        })?;
        // SAFETY: no preconditions; a null return is handled.
        let sim = NonNull::new(unsafe { (api.new)() }).ok_or(HarnessError::Create)?;
        let mut rtl = Rtl {
            api,
            v1,
            sim,
            cache_hit,
            key,
            cycles: 0,
            vcd: None,
            raw_req: RawRequest::default(),
            raw_trace: RawTrace::default(),
            req: GlobalRequest::default(),
            code_len: 0,
            param_count: 0,
            stack_bytes: 0,
        };
        rtl.reset();
        Ok(rtl)
    }

    /// The shared library this model runs.
    pub fn library_path(&self) -> &Path {
        &self.api.path
    }

    /// Whether [`Rtl::build`] found the library in the cache.
    pub fn cache_hit(&self) -> bool {
        self.cache_hit
    }

    /// The build's cache key (the entry's directory name).
    pub fn cache_key(&self) -> &str {
        &self.key
    }

    /// Whether this is a `--trace` build ([`Rtl::open_vcd`] works).
    pub fn traced(&self) -> bool {
        self.api.traced
    }

    /// Clock cycles run by [`Rtl::cycle`] since the model was created.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }

    /// Holds `reset` for [`RESET_CYCLES`] clock cycles with the other inputs idle.
    pub fn reset(&mut self) {
        // SAFETY: `sim` is live (see `Drop`); `&mut self` excludes other users.
        unsafe { (self.v1.reset)(self.sim.as_ptr(), RESET_CYCLES) }
    }

    /// One clock cycle with `host_we = 1`, `host_addr = addr`, `host_wdata = data`.
    pub fn host_write(&mut self, addr: u32, data: u32) {
        match addr {
            host::CODE_LEN => self.code_len = data,
            host::PARAM_COUNT => self.param_count = data,
            host::STACK_BYTES => self.stack_bytes = data,
            _ => {}
        }
        // SAFETY: as in `reset`.
        unsafe { (self.v1.host_write)(self.sim.as_ptr(), addr, data) }
    }

    /// `host_rdata` for `host_raddr = raddr` (8 bits; higher bits are
    /// ignored). Combinational: no clock edge.
    pub fn host_read(&mut self, raddr: u32) -> u32 {
        // SAFETY: as in `reset`.
        unsafe { (self.v1.host_read)(self.sim.as_ptr(), raddr & host::RADDR_MASK) }
    }

    /// The status pins.
    pub fn status(&self) -> Status {
        // SAFETY: as in `reset`; reading outputs does not change the model.
        Status::from_bits(unsafe { (self.v1.status)(self.sim.as_ptr()) })
    }

    /// Every counter, read through the host interface
    /// ([`Counter::low_addr`] and the word above it).
    pub fn counters(&mut self) -> Counters {
        Counters::from_array(Counter::ALL.map(|c| self.counter(c)))
    }

    /// Counter `c` through the host interface.
    pub fn counter(&mut self, c: Counter) -> u64 {
        let lo = self.host_read(c.low_addr());
        let hi = self.host_read(c.low_addr() + 1);
        u64::from(hi) << 32 | u64::from(lo)
    }

    /// Writes a launch through the host interface: code, entry pc, code
    /// length, grid, block, parameters (does not start).
    ///
    /// # Panics
    /// With more than 16 parameters (the host interface has 16 slots).
    pub fn load(&mut self, launch: &Launch<'_>) {
        assert!(
            launch.params.len() <= host::MAX_PARAMS,
            "{} parameter words, the core has {}",
            launch.params.len(),
            host::MAX_PARAMS
        );
        for (addr, data) in host::launch_writes(launch) {
            self.host_write(addr, data);
        }
    }

    /// One clock cycle: (1) the memory request as the core drives it before
    /// the edge, (2) `memory.cycle(request)` gives this cycle's response,
    /// (3) `gmem_req_ready = 1` and the response are driven and the core
    /// settles, the trace port is sampled, (4) rising clock edge. Returns the
    /// trace of this cycle. (The trace is sampled after (3) because its
    /// register write in `G_WAIT` comes from the response.)
    ///
    /// # Panics
    /// If the core drives a `trace_state` that is no state code; see
    /// [`Rtl::try_cycle`].
    pub fn cycle(&mut self, memory: &mut GlobalMemory) -> TracePort {
        match self.try_cycle(memory) {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        }
    }

    /// [`Rtl::cycle`], with an invalid `trace_state` as an error.
    #[inline]
    pub fn try_cycle(&mut self, memory: &mut GlobalMemory) -> Result<TracePort, HarnessError> {
        let sim = self.sim.as_ptr();
        // SAFETY: as in `reset`; `raw_req` is a `ConcordReq`-layout struct.
        let valid = unsafe { (self.v1.request)(sim, &mut self.raw_req) } != 0;
        let request = if valid {
            let r = &self.raw_req;
            self.req.kind = r.kind;
            self.req.addr = r.addr;
            self.req.wdata = r.wdata;
            self.req.mask = r.mask;
            self.req.atom_op = r.atom_op;
            self.req.atom_data = r.atom_data;
            Some(&self.req)
        } else {
            None
        };
        let response = memory.cycle(request);
        let (resp_valid, resp_data) = match &response {
            Some(d) => (1, d.as_ptr()),
            None => (0, std::ptr::null()),
        };
        // SAFETY: as in `reset`; `resp_data` points to 32 words when
        // `resp_valid` is 1 (the shim reads it only then); `raw_trace` is a
        // `ConcordTrace`-layout struct.
        unsafe { (self.v1.step)(sim, resp_valid, resp_data, &mut self.raw_trace) };
        let cycle = self.cycles;
        self.cycles += 1;
        let t = &self.raw_trace;
        let state = State::from_code(t.state).ok_or(HarnessError::BadState {
            code: t.state,
            cycle,
        })?;
        Ok(TracePort {
            state,
            warp: t.warp,
            pc: t.pc,
            active: t.active,
            exec: t.exec,
            rf_we: t.rf_we,
            rf_addr: t.rf_addr,
            rf_data: t.rf_data,
            pred_we: t.pred_we,
            pred_addr: t.pred_addr,
            pred_data: t.pred_data,
        })
    }

    /// The trap report of §9 as the functional model's [`Trap`], or `None`
    /// when the core has not trapped. `code` is the program (the instruction
    /// at the trap pc gives a memory trap's space and width); sizes come
    /// from `config`. An undefined cause code is reported as a
    /// [`TrapCause::Watchdog`] whose diagnosis names the code.
    pub fn trap_report(&mut self, code: &[u32], config: &CoreConfig) -> Option<Trap> {
        if !self.status().trapped {
            return None;
        }
        let cause_code = self.host_read(host::TRAP_CAUSE);
        let pc = self.host_read(host::TRAP_PC);
        let warp = self.host_read(host::TRAP_WARP);
        let lanes = self.host_read(host::TRAP_LANES);
        let block = [0, 1, 2].map(|i| self.host_read(host::TRAP_BLOCK + i));
        let addr = self.host_read(host::TRAP_ADDR);
        let detail = self.host_read(host::TRAP_DETAIL);
        let arrived = self.host_read(host::ARRIVED);
        let exited = self.host_read(host::EXITED);
        let threads = self.host_read(host::THREADS);
        let issued = self.counter(Counter::Issued);

        // Space and access width of the instruction at the trap pc.
        let access = || -> (Space, u32) {
            let instr = code.get(pc as usize).and_then(|&w| decode(w).ok());
            match instr.map(|i| i.op) {
                Some(Op::Load { space, width, .. }) => (space, width.bytes()),
                Some(Op::Store { space, width, .. }) => (space, width.bytes()),
                Some(Op::Atom { space, .. }) => (space, 4),
                // Not a memory instruction: the detail register's byte count.
                _ => (Space::Global, detail),
            }
        };
        let size = |space: Space| match space {
            Space::Shared => config.shared_memory_bytes,
            Space::Global => config.global_memory_bytes,
        };
        let cause = match TrapCode::from_code(cause_code) {
            Some(TrapCode::AddressOutOfRange) => {
                let (space, bytes) = access();
                TrapCause::AddressOutOfRange {
                    space,
                    addr,
                    bytes,
                    size: size(space),
                }
            }
            Some(TrapCode::Misaligned) => {
                let (space, bytes) = access();
                TrapCause::Misaligned { space, addr, bytes }
            }
            Some(TrapCode::InvalidInstruction) => TrapCause::InvalidInstruction {
                word: detail,
                reason: match decode(detail) {
                    Err(e) => e.to_string(),
                    Ok(i) => format!("the RTL rejected a word that decodes as {i:?}"),
                },
            },
            Some(TrapCode::PcOutOfRange) => TrapCause::PcOutOfRange { len: self.code_len },
            Some(TrapCode::CallDepthOverflow) => TrapCause::CallDepthOverflow {
                max: config.max_call_depth(),
            },
            Some(TrapCode::ReturnAtDepthZero) => TrapCause::ReturnAtDepthZero,
            Some(TrapCode::BarrierNeverCompletes) => TrapCause::BarrierNeverCompletes {
                waiting: arrived,
                exited,
                threads,
            },
            Some(TrapCode::MissingParam) => TrapCause::MissingParam {
                index: detail as u8,
                supplied: self.param_count,
            },
            Some(TrapCode::StackOverflow) => {
                // The report's stack is the first faulting lane's thread's.
                let thread = warp * config.lanes + lanes.trailing_zeros().min(31);
                let (lo, hi) = Stacks::new(config, self.stack_bytes).of_thread(thread);
                TrapCause::StackOverflow {
                    addr,
                    bytes: detail,
                    thread,
                    lo,
                    hi,
                }
            }
            Some(TrapCode::NextPcOutOfRange) => TrapCause::NextPcOutOfRange {
                target: addr,
                len: self.code_len,
            },
            Some(TrapCode::BusError) => TrapCause::BusError { addr },
            None => TrapCause::Watchdog {
                limit: 0,
                diagnosis: format!(
                    "the RTL trapped with cause code {cause_code}, which docs/microarchitecture.md §9 does not define"
                ),
            },
        };
        Some(Trap {
            cause,
            block,
            warp,
            lanes,
            pc,
            issued,
        })
    }

    /// Starts writing a VCD waveform of every signal to `path` (replacing a
    /// VCD already open). Only in builds with [`BuildOptions::trace`]. Each
    /// cycle is 10 ns: inputs settle at `10c`, the rising edge at `10c + 5`.
    pub fn open_vcd(&mut self, path: &Path) -> Result<(), HarnessError> {
        open_vcd(self.api, self.sim, path)?;
        self.vcd = Some(path.to_path_buf());
        Ok(())
    }

    /// Writes buffered VCD data to the file.
    pub fn flush_vcd(&mut self) {
        // SAFETY: as in `reset`.
        unsafe { (self.api.vcd_flush)(self.sim.as_ptr()) }
    }

    /// Finishes and closes the VCD file (also done when the model drops).
    pub fn close_vcd(&mut self) {
        // SAFETY: as in `reset`.
        unsafe { (self.api.vcd_close)(self.sim.as_ptr()) }
        self.vcd = None;
    }

    /// The VCD file being written, if any.
    pub fn vcd_path(&self) -> Option<&Path> {
        self.vcd.as_deref()
    }

    /// Sets input port `name` to `value` (32-bit words, lowest first; bits
    /// past the port's width are ignored). Takes effect at the next
    /// evaluation ([`Rtl::eval`], a cycle, a host access).
    pub fn poke(&mut self, name: &str, value: &[u32]) -> Result<(), HarnessError> {
        let (i, p) = self
            .api
            .port_list
            .iter()
            .enumerate()
            .find(|(_, p)| p.name == name && p.dir == Dir::In)
            .ok_or_else(|| HarnessError::NoSuchPort {
                what: "input",
                name: name.to_string(),
            })?;
        let mut words = vec![0u32; p.words()];
        for (d, s) in words.iter_mut().zip(value) {
            *d = *s;
        }
        if let Access::Set(f) = self.api.ports[i] {
            // SAFETY: as in `reset`; `words` has the port's word count.
            unsafe { f(self.sim.as_ptr(), words.as_ptr()) }
        }
        Ok(())
    }

    /// The current value of output port `name` (32-bit words, lowest first).
    pub fn peek(&self, name: &str) -> Result<Vec<u32>, HarnessError> {
        let (i, p) = self
            .api
            .port_list
            .iter()
            .enumerate()
            .find(|(_, p)| p.name == name && p.dir == Dir::Out)
            .ok_or_else(|| HarnessError::NoSuchPort {
                what: "output",
                name: name.to_string(),
            })?;
        let mut words = vec![0u32; p.words()];
        if let Access::Get(f) = self.api.ports[i] {
            // SAFETY: as in `status`; `words` has room for the port's words.
            unsafe { f(self.sim.as_ptr(), words.as_mut_ptr()) }
        }
        Ok(words)
    }

    /// Settles the combinational logic after [`Rtl::poke`] (no clock edge).
    pub fn eval(&mut self) {
        // SAFETY: as in `reset`.
        unsafe { (self.api.eval)(self.sim.as_ptr()) }
    }
}
