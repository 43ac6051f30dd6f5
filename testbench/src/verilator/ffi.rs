//! Loading a built model: the shim's functions, looked up once per library.
//!
//! A library is loaded once per process and never unloaded: Verilator's
//! runtime registers static and thread-local state whose destructors must
//! not outlive the code, and a model is small next to the cost of reloading.

use std::collections::HashMap;
use std::ffi::{c_char, CStr};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use super::shim::SHIM_VERSION;
use super::HarnessError;
use concord_uarch::ports::Port;

/// The C++ `ConcordSim`, opaque.
#[repr(C)]
pub struct Sim {
    _opaque: [u8; 0],
}

/// The shim's entry points of one library.
pub struct Api {
    pub path: PathBuf,
    pub traced: bool,
    /// The cache key the library says it was built for (`concord_build_key`).
    pub key: String,
    pub new: unsafe extern "C" fn() -> *mut Sim,
    pub free: unsafe extern "C" fn(*mut Sim),
    pub tick: unsafe extern "C" fn(*mut Sim),
    pub set_inputs: unsafe extern "C" fn(*mut Sim, *const u32),
    pub get_outputs: unsafe extern "C" fn(*mut Sim, *mut u32),
    /// Words of `set_inputs`' and `get_outputs`' vectors (checked against
    /// the port list at load).
    pub input_words: usize,
    pub output_words: usize,
    pub vcd_open: unsafe extern "C" fn(*mut Sim, *const c_char) -> u32,
    pub vcd_close: unsafe extern "C" fn(*mut Sim),
    /// Keeps the code mapped; never dropped (the `Api` is leaked).
    _library: libloading::Library,
}

/// The `Api` of the library at `path`, generated from `ports`, loading it
/// on first use.
pub fn load(path: &Path, ports: &[Port]) -> Result<&'static Api, HarnessError> {
    static LOADED: OnceLock<Mutex<HashMap<PathBuf, &'static Api>>> = OnceLock::new();
    let mut map = LOADED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(api) = map.get(path) {
        return Ok(api);
    }
    let api: &'static Api = Box::leak(Box::new(open(path, ports)?));
    map.insert(path.to_path_buf(), api);
    Ok(api)
}

fn open(path: &Path, port_list: &[Port]) -> Result<Api, HarnessError> {
    let err = |message: String| HarnessError::Load {
        path: path.to_path_buf(),
        message,
    };
    // SAFETY: the library is one this crate generated and linked; its static
    // initializers are Verilator's runtime and the model's, which have no
    // preconditions.
    let library = unsafe { libloading::Library::new(path) }.map_err(|e| {
        err(format!(
            "{e} (delete the cache entry {}, or run `concord cache clean`, to rebuild it)",
            path.parent().unwrap_or(path).display()
        ))
    })?;

    macro_rules! sym {
        ($name:literal, $ty:ty) => {{
            // SAFETY: the shim declares this symbol with exactly this C
            // signature (testbench/src/verilator/shim.rs); the pointer stays
            // valid because the library is never unloaded.
            let s: libloading::Symbol<$ty> =
                unsafe { library.get(concat!($name, "\0").as_bytes()) }
                    .map_err(|e| err(format!("missing symbol {}: {e}", $name)))?;
            *s
        }};
    }

    let version = sym!("concord_shim_version", unsafe extern "C" fn() -> u32);
    // SAFETY: no arguments, no preconditions.
    let version = unsafe { version() };
    if version != SHIM_VERSION {
        return Err(err(format!(
            "shim version {version}, this harness expects {SHIM_VERSION}"
        )));
    }
    let traced = sym!("concord_traced", unsafe extern "C" fn() -> u32);
    // SAFETY: as above.
    let traced = unsafe { traced() } != 0;
    let key = sym!("concord_build_key", unsafe extern "C" fn() -> *const c_char);
    // SAFETY: no arguments; the shim returns a string literal (static,
    // NUL-terminated), checked for null.
    let key = unsafe {
        let p = key();
        if p.is_null() {
            return Err(err("concord_build_key returned no key".into()));
        }
        CStr::from_ptr(p).to_string_lossy().into_owned()
    };

    let words = |list: Vec<Port>| list.iter().map(Port::words).sum::<usize>();
    let (input_words, output_words) = (
        words(super::shim::packed_inputs(port_list)),
        words(super::shim::packed_outputs(port_list)),
    );
    let lib_words = (
        sym!("concord_input_words", unsafe extern "C" fn() -> u32),
        sym!("concord_output_words", unsafe extern "C" fn() -> u32),
    );
    // SAFETY: no arguments, no preconditions.
    let lib_words = unsafe { (lib_words.0() as usize, lib_words.1() as usize) };
    if lib_words != (input_words, output_words) {
        return Err(err(format!(
            "the library packs {} input and {} output words, its port list {input_words} and {output_words}",
            lib_words.0, lib_words.1
        )));
    }
    Ok(Api {
        path: path.to_path_buf(),
        traced,
        key,
        new: sym!("concord_new", unsafe extern "C" fn() -> *mut Sim),
        free: sym!("concord_free", unsafe extern "C" fn(*mut Sim)),
        tick: sym!("concord_tick", unsafe extern "C" fn(*mut Sim)),
        set_inputs: sym!(
            "concord_set_inputs",
            unsafe extern "C" fn(*mut Sim, *const u32)
        ),
        get_outputs: sym!(
            "concord_get_outputs",
            unsafe extern "C" fn(*mut Sim, *mut u32)
        ),
        input_words,
        output_words,
        vcd_open: sym!(
            "concord_vcd_open",
            unsafe extern "C" fn(*mut Sim, *const c_char) -> u32
        ),
        vcd_close: sym!("concord_vcd_close", unsafe extern "C" fn(*mut Sim)),
        _library: library,
    })
}
