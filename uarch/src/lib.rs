//! # concord-uarch
//!
//! The microarchitecture contract of the Concord core, defined once: what
//! the RTL generator (`hdl/`), the cycle model (`testbench/src/pipeline`), the
//! Verilator harness (`testbench/src/verilator`) and the CLI agree on
//! without asking each other. `docs/microarchitecture.md` describes the
//! behaviour; this crate holds its tables.
//!
//! | module | what |
//! |---|---|
//! | [`params`] | [`HwParams::new`]: the one rule set for the configurations the hardware builds (each error names the config field), and every size derived from a configuration |
//! | [`widths`] | the few widths that do not depend on the configuration (PCs, trace predicate slots, trap causes) and the checks that every configuration fits them |
//! | [`counters`] | the performance counters (docs/microarchitecture.md §15.1): the table, the width rule, the wrapping [`Counters`] record |
//! | [`gen`] | the generator options ([`GenOptions`], §17.2): `trace`, `counter_bits`, `debug_regs`, the `sim` and `board` presets |
//! | [`trap`] | the trap cause codes ([`TrapCode`]) and what the trap address and detail registers hold |
//! | [`ports`] | the top-level port list of `concord_core` ([`ports::core_ports`]) |
//! | [`regmap`] | the host register map (docs/microarchitecture.md §14.4): one table of addresses, names, access and bit fields; `HWCFG*`, `CTRL`, `STATUS`, `LAUNCH`, `WSTATE*` encoders and decoders |
//! | [`wishbone`] | the per-cycle signal record of a Wishbone B4 pipelined port and the protocol checker of §20, for the host slave and the global-memory master |
//! | [`occupancy`] | [`Occupancy`], resident blocks and shared windows of a launch (docs/microarchitecture.md §12.2) |
//! | [`trace`] | the trace port (§15.2): [`trace::TraceRecord`], its fields and widths from [`HwParams`], pack and unpack |
//! | [`timing`] | stage indices, `REISSUE`, `SETUP_CYCLES`, the global-access offsets of §10.3 |
//!
//! The crate depends on `concord-isa` only: the architecture (instructions,
//! configuration ranges, trap causes) is the ISA's, and this crate says how
//! this core builds and reports it.

pub mod counters;
pub mod gen;
pub mod occupancy;
pub mod params;
pub mod ports;
pub mod regmap;
pub mod timing;
pub mod trace;
pub mod trap;
pub mod widths;
pub mod wishbone;

pub use counters::{Counter, Counters};
pub use gen::GenOptions;
pub use occupancy::{LaunchError, LaunchShape, Occupancy};
pub use params::HwParams;
pub use ports::{Dir, Port};
pub use trap::TrapCode;
