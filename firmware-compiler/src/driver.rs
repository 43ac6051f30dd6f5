//! The compiler driver: the whole pipeline from CUDA-C source to kernel
//! containers, in the order the crate documentation lists it.
//!
//! front end → verifier → middle end (`passes::optimize`) → verifier →
//! divergence analysis (statistics) → block layout → layout verifier →
//! back end (instruction selection, allocation, emission; its own checker)
//! for every kernel.
//!
//! Every internal invariant that fails stops the compilation with
//! [`CompileError::Internal`], naming the pass and the kernel; nothing is
//! emitted then. The CLI (`concord compile`, `concord run` on a `.cu`
//! program) and the tests call [`compile`].

use std::time::{Duration, Instant};

use concord_isa::config::CoreConfig;

use crate::backend::{self, BackendOptions, CompiledKernel};
use crate::divergence::{DivergenceAnalysis, DivergenceSummary};
use crate::frontend::{self, Diagnostic, FrontendOptions};
use crate::ir::{verify_module, FuncKind, Module};
use crate::layout;
use crate::layout_verify;
use crate::passes::pipeline::OptReport;
use crate::passes::{self, OptOptions};

/// Everything that decides the code a source compiles to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileOptions {
    /// The core the code is for (registers, predicates, shared and global
    /// memory sizes).
    pub config: CoreConfig,
    /// General-register budget (`--regs N`); the core's `registers` when
    /// `None`.
    pub regs: Option<u32>,
    /// Per-thread stack size override in bytes.
    pub stack_bytes: Option<u32>,
    /// Where evicted values go (`--spill plain|divergence-aware`).
    pub spill: backend::SpillMode,
    /// What happens to divergent branches (`--divergence`).
    pub divergence: backend::DivergenceStrategy,
    pub opt: OptOptions,
}

impl CompileOptions {
    pub fn for_core(config: &CoreConfig) -> CompileOptions {
        CompileOptions {
            config: config.clone(),
            regs: None,
            stack_bytes: None,
            spill: backend::SpillMode::Plain,
            divergence: backend::DivergenceStrategy::default(),
            opt: OptOptions::default(),
        }
    }

    fn backend(&self) -> BackendOptions {
        let mut b = BackendOptions::for_config(&self.config);
        if let Some(regs) = self.regs {
            b.regs = regs;
        }
        b.stack_bytes_per_thread = self.stack_bytes;
        b.spill = self.spill;
        b.divergence = self.divergence;
        b
    }
}

/// One point of the option matrix the differential tests sweep
/// (`random_kernels`, the suite, the RTL tier): a control-flow strategy, a
/// spilling mode, loop flattening on or off and a register budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionPoint {
    pub divergence: backend::DivergenceStrategy,
    pub spill: backend::SpillMode,
    pub flatten_loops: bool,
    pub regs: u32,
}

impl OptionPoint {
    /// Register budgets of the matrix: the default core's 32, and budgets
    /// that force spills.
    pub const BUDGETS: [u32; 4] = [32, 16, 8, 6];

    /// Point `i` of the matrix restricted to `strategies`: the strategy
    /// cycles fastest, then the spilling mode, flattening and the budget,
    /// so any `16 · strategies.len()` consecutive points cover it all.
    pub fn nth(i: u64, strategies: &[backend::DivergenceStrategy]) -> OptionPoint {
        let n = strategies.len().max(1) as u64;
        let rest = (i / n) as usize;
        OptionPoint {
            divergence: strategies
                .get((i % n) as usize)
                .copied()
                .unwrap_or_default(),
            spill: [
                backend::SpillMode::Plain,
                backend::SpillMode::DivergenceAware,
            ][rest % 2],
            flatten_loops: (rest / 2) % 2 == 1,
            regs: Self::BUDGETS[(rest / 4) % Self::BUDGETS.len()],
        }
    }

    /// The matrix size for `strategies`.
    pub fn count(strategies: &[backend::DivergenceStrategy]) -> u64 {
        16 * strategies.len().max(1) as u64
    }

    /// `base` with this point's options.
    pub fn apply(&self, base: &CompileOptions) -> CompileOptions {
        let mut options = CompileOptions {
            regs: Some(self.regs),
            spill: self.spill,
            divergence: self.divergence,
            ..base.clone()
        };
        options.opt.flatten_loops = self.flatten_loops;
        options
    }
}

/// As command-line flags.
impl std::fmt::Display for OptionPoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "--divergence {} --spill {}{} --regs {}",
            self.divergence,
            self.spill,
            if self.flatten_loops {
                " --flatten-loops"
            } else {
                ""
            },
            self.regs
        )
    }
}

/// One compiled kernel of a source file.
#[derive(Clone, Debug)]
pub struct KernelOutput {
    pub name: String,
    pub compiled: CompiledKernel,
    /// Values and conditional branches by class, on the optimised IR of the
    /// kernel function.
    pub divergence: DivergenceSummary,
}

/// What the pipeline produced.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The optimised and laid-out IR (what `--emit ir` prints).
    pub module: Module,
    /// One entry per `__global__` function, in source order.
    pub kernels: Vec<KernelOutput>,
    /// Front-end warnings, already rendered with file, line and caret.
    pub warnings: String,
    pub warning_count: usize,
    /// Wall time of the front end, the middle end and the back end.
    pub timings: Timings,
    /// What the middle end did (loop flattening's report and notes).
    pub opt_report: OptReport,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timings {
    pub frontend: Duration,
    pub middle: Duration,
    pub backend: Duration,
}

impl Timings {
    pub fn total(&self) -> Duration {
        self.frontend + self.middle + self.backend
    }
}

impl Compiled {
    /// The kernel named `name`, or the only one when `name` is `None`. The
    /// message of an ambiguous choice ends in "choose one", for the caller
    /// to say how (`with --kernel`, with `entry:`).
    pub fn kernel(&self, name: Option<&str>) -> Result<&KernelOutput, String> {
        let names = || {
            self.kernels
                .iter()
                .map(|k| k.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match name {
            Some(n) => self
                .kernels
                .iter()
                .find(|k| k.name == n)
                .ok_or_else(|| format!("no kernel `{n}` (kernels: {})", names())),
            None => match self.kernels.as_slice() {
                [k] => Ok(k),
                [] => Err("the source has no `__global__` kernel".into()),
                _ => Err(format!(
                    "the source has several kernels ({}); choose one",
                    names()
                )),
            },
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompileError {
    /// Errors in the source: every diagnostic, rendered (file:line:col,
    /// the source line and a caret).
    #[error("{rendered}")]
    Source {
        rendered: String,
        diagnostics: Vec<Diagnostic>,
    },
    /// A pass broke an invariant (IR verifier, layout verifier, the
    /// allocation checker) or the back end cannot compile the kernel.
    #[error("{file}: kernel @{kernel}: {pass}: {message}")]
    Internal {
        file: String,
        pass: &'static str,
        kernel: String,
        message: String,
    },
}

/// Compiles `source` (named `file` in messages) for `options.config`.
pub fn compile(
    source: &str,
    file: &str,
    options: &CompileOptions,
) -> Result<Compiled, CompileError> {
    let start = Instant::now();
    let fe = FrontendOptions::for_core(&options.config);
    let (module, warnings) =
        frontend::compile_source(source, file, &fe).map_err(|diags| CompileError::Source {
            rendered: frontend::render(&diags, source, file),
            diagnostics: diags,
        })?;
    let frontend_time = start.elapsed();
    let internal = |pass: &'static str, kernel: &str, message: String| CompileError::Internal {
        file: file.to_string(),
        pass,
        kernel: kernel.to_string(),
        message,
    };
    let mut compiled =
        compile_module(module, options).map_err(|e| internal(e.pass, &e.kernel, e.message))?;
    compiled.timings.frontend = frontend_time;
    compiled.warning_count = warnings.len();
    compiled.warnings = if warnings.is_empty() {
        String::new()
    } else {
        frontend::render(&warnings, source, file)
    };
    Ok(compiled)
}

/// A failure of [`compile_module`]: the pass and the kernel (or `*` for the
/// whole module).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleError {
    pub pass: &'static str,
    pub kernel: String,
    pub message: String,
}

/// Runs everything after the front end on an IR module (also the entry for
/// IR-level tests and the random kernel harness).
pub fn compile_module(
    mut module: Module,
    options: &CompileOptions,
) -> Result<Compiled, ModuleError> {
    let whole = |pass: &'static str, message: String| ModuleError {
        pass,
        kernel: "*".into(),
        message,
    };
    let start = Instant::now();
    verify_module(&module).map_err(|e| whole("front end (IR verifier)", e.to_string()))?;
    let opt = OptOptions {
        verify_each_pass: true,
        ..options.opt
    };
    let opt_report = passes::optimize(&mut module, &opt).map_err(|e| whole(e.pass, e.message))?;
    layout::layout_module(&mut module).map_err(|e| whole("layout", e.to_string()))?;
    verify_module(&module).map_err(|e| whole("layout (IR verifier)", e.to_string()))?;
    for f in &module.funcs {
        layout_verify::verify_layout(f).map_err(|e| ModuleError {
            pass: "layout verifier",
            kernel: f.name.clone(),
            message: e.to_string(),
        })?;
    }
    let middle = start.elapsed();

    let start = Instant::now();
    let backend_options = options.backend();
    let mut kernels = Vec::new();
    for id in module.kernels().collect::<Vec<_>>() {
        let func = module.func(id);
        debug_assert_eq!(func.kind, FuncKind::Kernel);
        let compiled =
            backend::compile_kernel(&module, id, &backend_options).map_err(|e| ModuleError {
                pass: "back end",
                kernel: func.name.clone(),
                message: e.to_string(),
            })?;
        kernels.push(KernelOutput {
            name: func.name.clone(),
            compiled,
            divergence: DivergenceAnalysis::compute(func).summary(func),
        });
    }
    let backend_time = start.elapsed();
    Ok(Compiled {
        module,
        kernels,
        warnings: String::new(),
        warning_count: 0,
        timings: Timings {
            frontend: Duration::ZERO,
            middle,
            backend: backend_time,
        },
        opt_report,
    })
}
