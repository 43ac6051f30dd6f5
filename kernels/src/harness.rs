//! Running a suite launch, once its program is compiled: loading the launch
//! description and its core, preparing the launch for a kernel, running it
//! on the functional model, checking the result, and the part of memory
//! that every model must agree on. The differential tests, the timed-model
//! tests and `concord bench --compiler` share these steps; the compiling
//! itself stays with the callers (this crate does not depend on the
//! compiler).

use concord_isa::config::CoreConfig;
use concord_isa::container::Kernel;
use concord_isa::func::{self, Options, Stats};
use concord_isa::launch::{LaunchDescription, PreparedLaunch};

use crate::{kernels_dir, CheckInput, SuiteKernel};

/// A launch description with its core and the source of its program.
pub struct LoadedLaunch {
    pub desc: LaunchDescription,
    pub config: CoreConfig,
    /// The program's path as text, for messages and the compiler.
    pub file: String,
    /// The program's source text.
    pub source: String,
}

impl LoadedLaunch {
    /// Loads `launch` (relative to `kernels/`), its core and its program.
    pub fn load(launch: &str) -> Result<LoadedLaunch, String> {
        let desc =
            LaunchDescription::load(&kernels_dir().join(launch)).map_err(|e| e.to_string())?;
        let config = desc.load_config().map_err(|e| e.to_string())?;
        let file = desc.program.display().to_string();
        let source = std::fs::read_to_string(&desc.program).map_err(|e| format!("{file}: {e}"))?;
        Ok(LoadedLaunch {
            desc,
            config,
            file,
            source,
        })
    }

    /// The launch's initial state for `kernel`.
    pub fn prepare(&self, kernel: &Kernel) -> Result<PreparedLaunch, String> {
        self.desc
            .prepare(kernel, &self.config)
            .map_err(|e| e.to_string())
    }
}

/// The functional model's view of a prepared launch of `kernel`.
pub fn func_launch<'a>(kernel: &'a Kernel, prepared: &'a PreparedLaunch) -> func::Launch<'a> {
    func::Launch {
        code: &kernel.code,
        entry_pc: prepared.entry_pc,
        grid: prepared.grid,
        block: prepared.block,
        params: &prepared.params,
        stack_bytes: kernel.stack_bytes,
    }
}

/// Runs `kernel` on the functional model; returns the final memory and
/// the statistics, or the trap report.
pub fn run_functional(
    config: &CoreConfig,
    kernel: &Kernel,
    prepared: &PreparedLaunch,
) -> Result<(Vec<u8>, Stats), String> {
    let mut memory = prepared.global.clone();
    let stats = func::run(
        config,
        &func_launch(kernel, prepared),
        &mut memory,
        Options {
            watchdog: prepared.watchdog,
        },
        None,
    )
    .map_err(|t| format!("functional model trapped: {t}"))?;
    Ok((memory, stats))
}

impl SuiteKernel {
    /// Whether `final_memory` is what this kernel leaves for `prepared`.
    pub fn check_memory(
        &self,
        prepared: &PreparedLaunch,
        final_memory: &[u8],
    ) -> Result<(), String> {
        (self.check)(&CheckInput {
            launch: prepared,
            initial: &prepared.global,
            final_memory,
        })
    }
}

/// The bytes from address 0 to the end of the last buffer: what every
/// model must leave the same (the per-thread stacks above differ by
/// design: the interpreter keeps its frames elsewhere).
pub fn buffer_region<'a>(memory: &'a [u8], prepared: &PreparedLaunch) -> &'a [u8] {
    let end = prepared
        .buffers
        .iter()
        .map(|b| (b.addr + b.len * b.elem.bytes()) as usize)
        .max()
        .unwrap_or(0);
    &memory[..end.min(memory.len())]
}
