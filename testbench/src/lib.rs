//! # concord-testbench
//!
//! Everything that runs the core cycle by cycle and checks it:
//!
//! | module | what |
//! |---|---|
//! | [`gen`] | random program generator: valid by construction, always terminates |
//! | [`trace`] | the per-cycle trace-port record and the timed models' counters |
//!
//! The functional model (`concord_isa::func`) is the oracle for final state.

pub mod gen;
pub mod trace;
