//! # concord-testbench
//!
//! Everything that runs the core cycle by cycle and checks it:
//!
//! | module | what |
//! |---|---|
//! | [`pipeline`] | the cycle model of the core: the 8-stage pipeline of docs/microarchitecture.md, with its host slave, trace port and testbench memory |
//! | [`verilator`] | Verilator harness: builds the core's Verilog at run time (cached), drives it cycle by cycle ([`verilator::RtlV2`]), or runs a launch on it alone ([`verilator::v2_run`]) |
//! | [`lockstep`] | lock-step co-simulation of the RTL and the cycle model: every cycle's ports, pins and trace record compared |
//! | [`gen`] | random program generator: valid by construction, always terminates |
//!
//! The functional model (`concord_isa::func`) is the oracle for final
//! state. (The `v2` in some names dates from when a first core, with a
//! cycle model of its own, lived beside this one; it was removed, and
//! its figures are kept in `docs/v1-figures.md`.)

pub mod gen;
pub mod lockstep;
pub mod pipeline;
pub mod verilator;
