//! What the suite-wide studies share: choosing the suite launches a study
//! runs (`--launches`), and one measurement: compile a launch's program
//! with given options, run it on the cycle model
//! (`concord_testbench::pipeline`), and check the final memory against the
//! kernel's host reference, so that a wrong result is an error and never a
//! figure.

use concord_compiler::backend::{BackendStats, CompiledKernel};
use concord_compiler::driver::{self, CompileOptions};
use concord_kernels::harness::{func_launch, LoadedLaunch};
use concord_kernels::SuiteKernel;
use concord_testbench::pipeline::{Counter, Counters};

use crate::error::CliError;

/// One suite launch a study runs.
pub struct StudyLaunch {
    pub kernel: &'static SuiteKernel,
    /// The launch's file stem (`reduce`, `reduce-wide`): the row label.
    pub name: String,
    pub loaded: LoadedLaunch,
}

/// The launch file stem of a suite launch path (`suite/reduce-wide.yaml`).
fn launch_stem(path: &str) -> &str {
    path.trim_start_matches("suite/").trim_end_matches(".yaml")
}

/// The launches named by `names`, loaded: a suite kernel's name stands for
/// its main launch (`<kernel>.yaml`, on the core that file names), any
/// other name must be the stem of one of the suite's launch files
/// (`reduce-wide`). No names: every kernel's main launch, in suite order.
pub fn select(names: &[String]) -> Result<Vec<StudyLaunch>, CliError> {
    let suite = concord_kernels::suite();
    let chosen: Vec<(&'static SuiteKernel, &'static str)> = if names.is_empty() {
        suite
            .iter()
            .filter_map(|k| k.launches.first().map(|l| (k, *l)))
            .collect()
    } else {
        names
            .iter()
            .map(|name| {
                let name = name.trim();
                if let Some(k) = concord_kernels::find(name) {
                    return k
                        .launches
                        .first()
                        .map(|l| (k, *l))
                        .ok_or_else(|| CliError::from(format!("suite kernel `{name}` has no launch")));
                }
                suite
                    .iter()
                    .find_map(|k| {
                        k.launches
                            .iter()
                            .find(|l| launch_stem(l) == name)
                            .map(|l| (k, *l))
                    })
                    .ok_or_else(|| {
                        let kernels: Vec<&str> = suite.iter().map(|k| k.name).collect();
                        CliError::usage(format!(
                            "--launches: `{name}` is neither a suite kernel nor a suite launch (kernels: {})",
                            kernels.join(", ")
                        ))
                    })
            })
            .collect::<Result<_, _>>()?
    };
    chosen
        .into_iter()
        .map(|(kernel, launch)| {
            Ok::<_, CliError>(StudyLaunch {
                kernel,
                name: launch_stem(launch).to_string(),
                loaded: LoadedLaunch::load(launch)?,
            })
        })
        .collect()
}

/// One compilation of a launch's program, run and checked.
pub struct Measurement {
    pub stats: BackendStats,
    pub counters: Counters,
    lanes: u32,
}

impl Measurement {
    /// Clock cycles of the run.
    pub fn cycles(&self) -> u64 {
        self.counters.get(Counter::Cycles)
    }

    /// Active lane-slots over issued warp-instructions times lanes (as
    /// `concord run --model cycle` prints it).
    pub fn simd_efficiency(&self) -> f64 {
        self.counters.get(Counter::ActiveLaneSlots) as f64
            / (self.counters.get(Counter::Issued).max(1) * u64::from(self.lanes)) as f64
    }
}

/// Compiles `launch`'s program with `options` (whose core must be the
/// launch's), runs it on the cycle model with the launch's core and checks
/// the result against the host reference. `what` names the setting in
/// error messages.
pub fn measure(
    launch: &StudyLaunch,
    options: &CompileOptions,
    what: &str,
) -> Result<Measurement, CliError> {
    let compiled = compile(launch, options, what)?;
    let counters = run_v2(launch, &compiled, &launch.loaded.config, what)?;
    Ok(Measurement {
        stats: compiled.stats,
        counters,
        lanes: launch.loaded.config.lanes,
    })
}

/// Runs `kernel` (compiled for `launch`) on the cycle model with
/// `config` (the launch's core with the fields a study varies) and
/// checks the result against the host reference; its counters. `what`
/// names the setting in error messages.
pub fn run_v2(
    launch: &StudyLaunch,
    kernel: &CompiledKernel,
    config: &concord_isa::config::CoreConfig,
    what: &str,
) -> Result<Counters, CliError> {
    use concord_testbench::pipeline::{self, PipelineLaunch, PipelineOptions};
    let context = |e: String| format!("{} ({what}): {e}", launch.name);
    let kernel = &kernel.kernel;
    let prepared = launch.loaded.prepare(kernel).map_err(context)?;
    let mut memory = prepared.global.clone();
    let outcome = pipeline::run(
        config,
        &PipelineLaunch {
            launch: func_launch(kernel, &prepared),
            shared_bytes: kernel.shared_bytes,
            regs_used: kernel.regs_used,
        },
        &mut memory,
        PipelineOptions {
            watchdog: prepared.watchdog,
            check_bus: true,
            gen: concord_uarch::GenOptions::sim(),
        },
    )
    .map_err(|e| CliError::from(context(e)))?;
    if let Err(trap) = &outcome.result {
        return Err(CliError::trap(context(format!(
            "the cycle model trapped: {trap}"
        ))));
    }
    launch
        .kernel
        .check_memory(&prepared, &memory)
        .map_err(|e| CliError::mismatch(context(format!("wrong result: {e}"))))?;
    Ok(outcome.counters)
}

/// Compiles `launch`'s program with `options` and picks the launch's
/// kernel. `what` names the setting in error messages.
pub fn compile(
    launch: &StudyLaunch,
    options: &CompileOptions,
    what: &str,
) -> Result<CompiledKernel, CliError> {
    let l = &launch.loaded;
    let context = |e: String| format!("{} ({what}): {e}", launch.name);
    let compiled = driver::compile(&l.source, &l.file, options)
        .map_err(|e| context(e.to_string().trim_end().to_string()))?;
    let out = compiled.kernel(l.desc.entry.as_deref()).map_err(context)?;
    Ok(out.compiled.clone())
}

/// The geometric mean of `values` (all positive); `None` when empty.
pub fn geometric_mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let log_sum: f64 = values.iter().map(|v| v.ln()).sum();
    Some((log_sum / values.len() as f64).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometric_mean_of_hand_values() {
        assert_eq!(geometric_mean(&[]), None);
        // (2 · 8)^(1/2) = 4; (1 · 3 · 9)^(1/3) = 3.
        assert!((geometric_mean(&[2.0, 8.0]).unwrap() - 4.0).abs() < 1e-12);
        assert!((geometric_mean(&[1.0, 3.0, 9.0]).unwrap() - 3.0).abs() < 1e-12);
    }

    #[test]
    fn launch_names_select_main_or_named_launches() {
        let all = select(&[]).unwrap();
        assert_eq!(all.len(), concord_kernels::suite().len());
        assert!(all.iter().all(|l| l.name == l.kernel.name));
        let some = select(&["reduce".into(), "vecadd-wide".into()]).unwrap();
        let names: Vec<&str> = some.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["reduce", "vecadd-wide"]);
        assert_eq!(some[1].kernel.name, "vecadd");
        assert_eq!(some[1].loaded.config.lanes, 32);
        let e = select(&["nosuch".into()]).err().unwrap();
        assert_eq!(e.class, crate::error::ErrorClass::Usage);
        assert!(e.message.contains("`nosuch` is neither"), "{}", e.message);
    }
}
