//! The passes the filetests can run, by name.
//!
//! A filetest (`filetests/<pass>/*.cir`) starts with `; test: <pass>`, then
//! IR text, then `; check:` lines (see `tests/filetests.rs`, the runner).
//! The runner parses the IR and calls [`run_pass`] with the pass name; the
//! text returned is what the check lines are matched against, and an
//! `Err` is matched against `; error:` lines.
//!
//! To add a pass: add an arm to the match in [`run_pass`] that runs it on
//! the module and returns the output text (usually the printed module).
//! Transformations should call [`verify`] on their input (so a broken test
//! input is reported as such) and on their output (so a pass that breaks an
//! invariant fails its own tests).

use crate::ir::{verify_module, Module};

/// Runs filetest pass `name` on `module`. `file` is the test's path, for
/// messages.
pub fn run_pass(name: &str, module: &mut Module, file: &str) -> Result<String, String> {
    match name {
        // The printed module: the parser's round trip.
        "parse" => Ok(module.to_string()),
        // The printed module if it verifies, else the verifier's error.
        "verify" => {
            verify(module, "input")?;
            Ok(module.to_string())
        }
        // The middle-end passes (`passes/`): verified input, the pass, verified
        // and idempotent output.
        "mem2reg" => run_transform(module, |m| Ok(crate::passes::mem2reg::run(m))),
        "const-fold" => run_transform(module, |m| Ok(crate::passes::const_fold::run(m))),
        "dce" => run_transform(module, |m| Ok(crate::passes::dce::run(m))),
        "gvn" => run_transform(module, |m| Ok(crate::passes::gvn::run(m))),
        "simplify-cfg" => run_transform(module, |m| Ok(crate::passes::simplify_cfg::run(m))),
        "inline" => run_transform(module, |m| {
            let options = crate::passes::inline::InlineOptions::default();
            Ok(crate::passes::inline::run(m, &options))
        }),
        "opt" => run_transform(module, |m| {
            let options = crate::passes::OptOptions {
                verify_each_pass: true,
                ..Default::default()
            };
            crate::passes::optimize(m, &options)
                .map(|report| report.changed)
                .map_err(|e| e.to_string())
        }),
        // Loop flattening: the report as comment lines, then the module.
        "flatten-loops" => crate::passes::flatten_loops::run_filetest(module),
        // Runs a kernel; the launch is described by the test's comment
        // lines (see `interp::filetest`), read from `file`.
        "interp" => crate::interp::filetest::run_file(module, file),
        // The divergence analysis of every function (`divergence::describe`).
        "divergence" => {
            verify(module, "input")?;
            Ok(module
                .funcs
                .iter()
                .map(crate::divergence::describe)
                .collect::<Vec<_>>()
                .join("\n"))
        }
        // The same with Sampaio's simple analysis (Sec. 3.4) instead of the
        // affine one.
        "divergence-simple" => {
            verify(module, "input")?;
            let config = crate::divergence::DivergenceConfig::SIMPLE;
            Ok(module
                .funcs
                .iter()
                .map(|f| crate::divergence::describe_with(f, &config))
                .collect::<Vec<_>>()
                .join("\n"))
        }
        // Block layout for min-PC reconvergence; the output must pass the
        // layout verifier.
        "layout" => {
            verify(module, "input")?;
            crate::layout::layout_module(module).map_err(|e| e.to_string())?;
            verify(module, "output")?;
            for func in &module.funcs {
                crate::layout_verify::verify_layout(func).map_err(|e| e.to_string())?;
            }
            Ok(module.to_string())
        }
        // The back end: layout, then every kernel compiled with the default
        // options; the output is the assembly listing of each.
        "compile" => compile_listing(module, &crate::backend::BackendOptions::default()),
        // The control-flow strategy's plan (Lee §III): control dependences,
        // guarded nodes, branch decisions, regions and the linear order.
        "predicate-plan" | "predicate-plan-auto" => {
            verify(module, "input")?;
            crate::layout::layout_module(module).map_err(|e| e.to_string())?;
            let strategy = if name == "predicate-plan" {
                crate::backend::DivergenceStrategy::Predicate
            } else {
                crate::backend::DivergenceStrategy::Auto
            };
            crate::backend::predication::describe_module(module, strategy)
        }
        // The back end under `--divergence=predicate`: the listing.
        "compile-predicate" => compile_listing(
            module,
            &crate::backend::BackendOptions {
                divergence: crate::backend::DivergenceStrategy::Predicate,
                ..Default::default()
            },
        ),
        _ => Err(format!("{file}: unknown filetest pass `{name}`")),
    }
}

/// The back end: layout, then every kernel compiled with `options`; the
/// output is the assembly listing of each.
fn compile_listing(
    module: &mut Module,
    options: &crate::backend::BackendOptions,
) -> Result<String, String> {
    verify(module, "input")?;
    crate::layout::layout_module(module).map_err(|e| e.to_string())?;
    let kernels: Vec<_> = module.kernels().collect();
    let mut out = String::new();
    for k in kernels {
        let c = crate::backend::compile_kernel(module, k, options).map_err(|e| e.to_string())?;
        out.push_str(&c.listing);
    }
    Ok(out)
}

/// Verifies `module`; the error says whether the pass's `input` or
/// `output` is broken.
pub fn verify(module: &Module, which: &str) -> Result<(), String> {
    verify_module(module).map_err(|e| format!("verifier error in the {which}: {e}"))
}

/// Runs a transformation pass for a filetest: the input must verify, the
/// output must verify, and running the pass again must change nothing
/// (every pass is idempotent). Returns the printed output.
fn run_transform(
    module: &mut Module,
    pass: impl Fn(&mut Module) -> Result<bool, String>,
) -> Result<String, String> {
    verify(module, "input")?;
    pass(module)?;
    verify(module, "output")?;
    let out = module.to_string();
    let mut again = module.clone();
    if pass(&mut again)? || again.to_string() != out {
        return Err(format!(
            "the pass is not idempotent: a second run changed\n{out}\ninto\n{again}"
        ));
    }
    Ok(out)
}
