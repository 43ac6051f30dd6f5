//! Core v2 blocks (`docs/microarchitecture-v2.md`).
//!
//! | file | block |
//! |---|---|
//! | `scheduler.rs` | [`scheduler::Scheduler`]: stage S, item priority, `lrr`/`gto` (§6) |
//! | `setup.rs` | [`setup::Setup`]: the SETUP computation and refusal rules (§12.1, §12.2) |
//! | `tidwalk.rs` | [`tidwalk::TidWalk`]: the thread-id walk of a block launch (§12.3, §12.4) |

pub mod scheduler;
pub mod setup;
pub mod tidwalk;
