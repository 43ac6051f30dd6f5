//! # concord-testbench
//!
//! Everything that runs the core cycle by cycle and checks it:
//!
//! | module | what |
//! |---|---|
//! | [`host`] | the host interface's register map and the write sequence that loads a launch (from `concord_uarch::host`) |
//! | [`cosim`] | lock-step co-simulation of the cycle model and the RTL, checked against the functional model |
//! | [`cycle`] | the cycle-accurate model of the core (docs/microarchitecture.md) and the testbench global memory |
//! | [`pipeline`] | the Core v2 cycle model: the 8-stage pipeline of docs/microarchitecture-v2.md |
//! | [`gen`] | random program generator: valid by construction, always terminates |
//! | [`trace`] | the per-cycle trace-port record and the timed models' counters |
//! | [`verilator`] | Verilator harness: builds the core's Verilog at run time (cached), drives it cycle by cycle (v1's `Rtl`, v2's `RtlV2`) |
//! | [`lockstep`] | lock-step co-simulation of the Core v2 RTL and the v2 cycle model ([`pipeline`]) |
//!
//! The functional model (`concord_isa::func`) is the oracle for final state.

pub mod cosim;
pub mod cycle;
pub mod gen;
pub mod host;
pub mod lockstep;
pub mod pipeline;
pub mod trace;
pub mod verilator;
