//! The host interface's register map (docs/microarchitecture.md §9) and the
//! write sequence that loads a launch, from the contract
//! (`concord_uarch::host`), where they are defined once. The cycle model,
//! the Verilator harness and the co-simulation all use these, so every
//! model sees the same host traffic.

pub use concord_uarch::host::*;
