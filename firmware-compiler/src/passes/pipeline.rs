//! The middle-end pipeline: the order in which the clean-up passes run.
//!
//! 1. per function: [`mem2reg`](super::mem2reg), then one clean-up round
//!    ([`const_fold`](super::const_fold), [`gvn`](super::gvn),
//!    [`dce`](super::dce), [`simplify_cfg`](super::simplify_cfg)), so that
//!    the inliner measures callees on clean code;
//! 2. [`inline`](super::inline) (when the threshold is not zero);
//! 3. [`mem2reg`](super::mem2reg) again (inlined callees bring their
//!    promotable slots along if they were not promoted) and the clean-up
//!    round repeated until nothing changes or
//!    [`OptOptions::max_rounds`] is reached;
//! 4. with [`OptOptions::flatten_loops`],
//!    [`flatten_loops`](super::flatten_loops) on the clean code (the
//!    divergence analysis sees through copies then), and one more clean-up
//!    round if it flattened anything.
//!
//! Optionally the verifier checks the input and the module after every
//! pass that changed it ([`OptOptions::verify_each_pass`]), which turns a
//! pass bug into an error naming the pass (or `input`) instead of a wrong
//! program later.

use super::flatten_loops::{FlattenOptions, FlattenReport};
use super::inline::{InlineOptions, DEFAULT_INLINE_THRESHOLD};
use super::{const_fold, dce, flatten_loops, gvn, inline, mem2reg, simplify_cfg};
use crate::ir::Module;

/// Configuration of [`optimize`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct OptOptions {
    /// The largest device function (laid-out instructions) that is inlined;
    /// 0 disables inlining.
    pub inline_threshold: usize,
    /// Upper bound on clean-up rounds after inlining (each round runs every
    /// clean-up pass once; the loop stops earlier when nothing changes).
    pub max_rounds: usize,
    /// Run the IR verifier after every pass and stop at the first failure.
    pub verify_each_pass: bool,
    /// Flatten loop nests whose inner loop has a divergent trip count
    /// ([`flatten_loops`](super::flatten_loops)); off by default, since it
    /// only pays when lanes leave the inner loop at different times.
    pub flatten_loops: bool,
}

impl Default for OptOptions {
    fn default() -> Self {
        OptOptions {
            inline_threshold: DEFAULT_INLINE_THRESHOLD,
            max_rounds: 8,
            verify_each_pass: false,
            flatten_loops: false,
        }
    }
}

/// The module failed verification (only checked with
/// [`OptOptions::verify_each_pass`]).
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("IR invalid at `{pass}`: {message}")]
pub struct PassError {
    /// The pass after which the module failed, or `input`.
    pub pass: &'static str,
    pub message: String,
}

/// What [`optimize`] did.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct OptReport {
    /// Whether any pass changed the module.
    pub changed: bool,
    /// Clean-up rounds run after inlining.
    pub rounds: usize,
    /// What loop flattening did and why it left nests alone (empty unless
    /// [`OptOptions::flatten_loops`]).
    pub flatten: FlattenReport,
}

/// Runs the middle-end passes on a module.
pub fn optimize(module: &mut Module, options: &OptOptions) -> Result<OptReport, PassError> {
    let mut runner = Runner {
        options,
        changed: false,
    };
    if options.verify_each_pass {
        crate::ir::verify_module(module).map_err(|e| PassError {
            pass: "input",
            message: e.to_string(),
        })?;
    }
    runner.pass(module, "mem2reg", mem2reg::run)?;
    runner.cleanup_round(module)?;
    if options.inline_threshold > 0 {
        let inline_options = InlineOptions {
            threshold: options.inline_threshold,
        };
        runner.pass(module, "inline", |m| inline::run(m, &inline_options))?;
        runner.pass(module, "mem2reg", mem2reg::run)?;
    }
    let mut rounds = 0;
    while rounds < options.max_rounds {
        rounds += 1;
        if !runner.cleanup_round(module)? {
            break;
        }
    }
    let mut flatten = FlattenReport::default();
    if options.flatten_loops {
        runner.pass(module, "flatten-loops", |m| {
            flatten = flatten_loops::run(m, &FlattenOptions::default());
            !flatten.flattened.is_empty()
        })?;
        if !flatten.flattened.is_empty() {
            runner.cleanup_round(module)?;
        }
    }
    Ok(OptReport {
        changed: runner.changed,
        rounds,
        flatten,
    })
}

struct Runner<'a> {
    options: &'a OptOptions,
    changed: bool,
}

impl Runner<'_> {
    fn pass(
        &mut self,
        module: &mut Module,
        name: &'static str,
        run: impl FnOnce(&mut Module) -> bool,
    ) -> Result<bool, PassError> {
        let changed = run(module);
        self.changed |= changed;
        if self.options.verify_each_pass && changed {
            crate::ir::verify_module(module).map_err(|e| PassError {
                pass: name,
                message: e.to_string(),
            })?;
        }
        Ok(changed)
    }

    /// One run of every clean-up pass; whether any changed something.
    fn cleanup_round(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let mut changed = self.pass(module, "const-fold", const_fold::run)?;
        changed |= self.pass(module, "gvn", gvn::run)?;
        changed |= self.pass(module, "dce", dce::run)?;
        changed |= self.pass(module, "simplify-cfg", simplify_cfg::run)?;
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::interp::{run, InterpLaunch, InterpOptions};
    use crate::ir::{parse_module, verify_module};

    /// The directories of this module's filetests.
    const FILETEST_DIRS: [&str; 7] = [
        "mem2reg",
        "const-fold",
        "dce",
        "gvn",
        "simplify-cfg",
        "inline",
        "opt",
    ];

    fn filetest_modules() -> Vec<(String, Module)> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("filetests");
        let mut out = Vec::new();
        for dir in FILETEST_DIRS {
            let mut paths: Vec<_> = std::fs::read_dir(root.join(dir))
                .expect("filetest directory")
                .map(|e| e.expect("directory entry").path())
                .filter(|p| p.extension().is_some_and(|e| e == "cir"))
                .collect();
            paths.sort();
            for path in paths {
                let name = path.display().to_string();
                let text = std::fs::read_to_string(&path).expect("readable filetest");
                let module = parse_module(&text, &name).expect("filetest parses");
                out.push((name, module));
            }
        }
        out
    }

    /// Global memory after running each kernel (by name: inlining renumbers
    /// functions) on 8 threads, with every parameter word 256; `None` where
    /// the run fails.
    fn outcomes(module: &Module) -> Vec<(String, Option<Vec<u8>>)> {
        let launch = InterpLaunch {
            grid: [1, 1, 1],
            block: [8, 1, 1],
            params: vec![256; 8],
            lanes: 8,
            shared_memory_bytes: 1024,
        };
        module
            .kernels()
            .map(|k| {
                let mut global = vec![0u8; 4096];
                let result = run(module, k, &launch, &mut global, &InterpOptions::default());
                (module.func(k).name.clone(), result.ok().map(|_| global))
            })
            .collect()
    }

    type Pass = (&'static str, fn(&mut Module) -> bool);

    const PASSES: [Pass; 7] = [
        ("mem2reg", super::mem2reg::run),
        ("const-fold", super::const_fold::run),
        ("dce", super::dce::run),
        ("gvn", super::gvn::run),
        ("simplify-cfg", super::simplify_cfg::run),
        ("inline", |m| {
            super::inline::run(m, &InlineOptions::default())
        }),
        ("opt", |m| {
            let options = OptOptions {
                verify_each_pass: true,
                ..OptOptions::default()
            };
            optimize(m, &options).expect("pipeline verifies").changed
        }),
    ];

    /// Every pass, and the pipeline, on every filetest input: the output
    /// verifies and every kernel leaves the same global memory on the
    /// reference interpreter (or fails the same way: out-of-range accesses
    /// with these made-up parameters).
    #[test]
    fn passes_preserve_interpreter_results() {
        let mut compared = 0;
        for (path, module) in filetest_modules() {
            let before = outcomes(&module);
            for (name, pass) in PASSES {
                let mut m = module.clone();
                pass(&mut m);
                if let Err(e) = verify_module(&m) {
                    panic!("{path}: `{name}` output does not verify: {e}\n{m}");
                }
                let after = outcomes(&m);
                assert_eq!(before.len(), after.len(), "{path}: `{name}`");
                for ((kernel, b), (_, a)) in before.iter().zip(&after) {
                    assert_eq!(
                        b.is_some(),
                        a.is_some(),
                        "{path}: `{name}` changed whether @{kernel} runs"
                    );
                    assert!(b == a, "{path}: `{name}` changed @{kernel}'s memory");
                    compared += usize::from(b.is_some());
                }
            }
        }
        // Most inputs must really run, or the comparison proves little.
        eprintln!("{compared} successful comparisons");
        assert!(compared >= 100, "only {compared} successful comparisons");
    }

    #[test]
    fn inline_threshold_zero_keeps_calls() {
        let text = "kernel @k(p) {
block0:
    v0 = param 0
    v1 = call @inc(v0)
    store.global.b32 v1, v0
    return
}

func @inc(i32) -> i32 {
block0(v0: i32):
    v1 = iconst 1
    v2 = iadd v0, v1
    return v2
}
";
        let mut no_inline = parse_module(text, "t").expect("parses");
        let options = OptOptions {
            inline_threshold: 0,
            verify_each_pass: true,
            ..OptOptions::default()
        };
        optimize(&mut no_inline, &options).expect("verifies");
        assert_eq!(no_inline.funcs.len(), 2);
        assert!(no_inline.to_string().contains("v1 = call @inc(v0)"));

        // A threshold below the callee's 3 instructions keeps it too; 3 inlines.
        let mut small = parse_module(text, "t").expect("parses");
        assert!(!inline::run(&mut small, &InlineOptions { threshold: 2 }));
        let mut exact = parse_module(text, "t").expect("parses");
        assert!(inline::run(&mut exact, &InlineOptions { threshold: 3 }));
        assert_eq!(exact.funcs.len(), 1);

        let mut full = parse_module(text, "t").expect("parses");
        let report = optimize(&mut full, &OptOptions::default()).expect("verifies");
        assert!(report.changed);
        let expected = "kernel @k(p) {
block0:
    v0 = param 0
    v3 = iconst 1
    v4 = iadd v0, v3
    store.global.b32 v4, v0
    return
}
";
        assert_eq!(full.to_string(), expected);
        // The pipeline is idempotent as a whole.
        let again = optimize(&mut full, &OptOptions::default()).expect("verifies");
        assert!(!again.changed);
    }

    /// Random kernels from [`crate::kernel_gen`] through the front end: the
    /// optimised module verifies and leaves the same global memory on the
    /// reference interpreter as the unoptimised one (`OPT_RANDOM_RUNS`
    /// kernels, default 40).
    #[test]
    fn random_kernels_keep_their_results() {
        use concord_isa::config::CoreConfig;

        let count: u64 = std::env::var("OPT_RANDOM_RUNS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(40);
        let config = CoreConfig::default();
        let limits = InterpOptions {
            max_steps: 20_000_000,
            max_call_depth: 15,
        };
        let mut failures = Vec::new();
        let mut compared = 0;
        for seed in 0..count {
            let k = crate::kernel_gen::generate(seed, &crate::kernel_gen::GenConfig::default());
            let front = crate::frontend::FrontendOptions::default();
            let Ok((module, _)) = crate::frontend::compile_source(&k.source, "kernel.cu", &front)
            else {
                continue; // the front end's own tests report rejections
            };
            let Ok(prepared) = k.prepare_without_code(&config) else {
                continue;
            };
            let launch = InterpLaunch::new(&prepared, &config);
            let run_kernel = |m: &Module| {
                let kernel = m.func_by_name(&k.kernel_name)?;
                let mut global = prepared.global.clone();
                run(m, kernel, &launch, &mut global, &limits).ok()?;
                Some(global)
            };
            let Some(before) = run_kernel(&module) else {
                continue;
            };
            let mut optimised = module.clone();
            let options = OptOptions {
                verify_each_pass: true,
                ..OptOptions::default()
            };
            if let Err(e) = optimize(&mut optimised, &options) {
                failures.push(format!("seed {seed}: {e}"));
                continue;
            }
            compared += 1;
            if run_kernel(&optimised) != Some(before) {
                failures.push(format!("seed {seed}: results differ"));
            }
        }
        eprintln!("{compared} random kernels compared");
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
