//! The middle-end clean-up passes: machine-independent rewrites of the SSA
//! IR between the front end and the back end.
//!
//! Every pass is a module of its own with a `run(&mut Module) -> bool`
//! entry point (and, for the per-function passes, `run_function`) that
//! returns whether it changed anything. Each pass leaves verified IR
//! verified and is idempotent: running it twice changes nothing the second
//! time. [`pipeline`] runs them in order:
//!
//! 1. [`mem2reg`] turns the front end's stack-slot scalars into SSA values
//!    (block parameters in place of phis);
//! 2. [`const_fold`] folds constants, applies algebraic identities and
//!    strength reduction, and turns branches on constants into jumps;
//! 3. [`gvn`] merges equal pure computations along the dominator tree;
//! 4. [`dce`] removes unused pure instructions, unused block parameters and
//!    unreachable blocks;
//! 5. [`simplify_cfg`] merges straight-line blocks and threads jumps through
//!    empty blocks;
//! 6. [`inline`] copies small non-recursive device functions into their
//!    callers;
//! 7. optionally, [`flatten_loops`] merges an inner loop with a divergent
//!    trip count into its outer loop (Bulavintsev's loop flattening), so
//!    lanes that finish their inner loop go on with the outer one.
//!
//! None of the passes moves an instruction with side effects or a vote
//! across a branch, so the places where threads meet at barriers and votes
//! stay where the source put them; block layout for min-PC reconvergence is
//! the back end's business and happens after these passes.

pub mod const_fold;
pub mod dce;
pub mod flatten_loops;
pub mod gvn;
pub mod inline;
pub mod mem2reg;
pub mod pipeline;
pub mod simplify_cfg;
mod util;

pub use pipeline::{optimize, OptOptions};
