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
//!    [`OptOptions::max_rounds`] is reached.
//!
//! Optionally the verifier checks the module after every pass
//! ([`OptOptions::verify_each_pass`]), which turns a pass bug into an error
//! naming the pass instead of a wrong program later.

use super::inline::{InlineOptions, DEFAULT_INLINE_THRESHOLD};
use super::{const_fold, dce, gvn, inline, mem2reg, simplify_cfg};
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
}

impl Default for OptOptions {
    fn default() -> Self {
        OptOptions {
            inline_threshold: DEFAULT_INLINE_THRESHOLD,
            max_rounds: 8,
            verify_each_pass: false,
        }
    }
}

/// A pass left the module failing verification (only checked with
/// [`OptOptions::verify_each_pass`]).
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("IR invalid after pass `{pass}`: {message}")]
pub struct PassError {
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
}

/// Runs the middle-end passes on a module.
pub fn optimize(module: &mut Module, options: &OptOptions) -> Result<OptReport, PassError> {
    let mut runner = Runner {
        options,
        changed: false,
    };
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
    Ok(OptReport {
        changed: runner.changed,
        rounds,
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
            verify(module).map_err(|message| PassError {
                pass: name,
                message,
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

/// The verifier, as text errors.
fn verify(_module: &Module) -> Result<(), String> {
    // TODO(opt): call `ir::verify::verify_module` once it exists.
    Ok(())
}
