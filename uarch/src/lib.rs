//! # concord-uarch
//!
//! The microarchitecture contract of the Concord core, defined once: what
//! the RTL generator (`hdl/`), the cycle model (`testbench/src/cycle`), the
//! Verilator harness (`testbench/src/verilator`) and the CLI agree on
//! without asking each other. `docs/microarchitecture.md` describes the
//! behaviour; this crate holds its tables.
//!
//! | module | what |
//! |---|---|
//! | [`params`] | [`HwParams::new`]: the one rule set for the configurations the hardware builds (each error names the config field), and every size derived from a configuration |
//! | [`widths`] | the fixed widths (PCs, masks, lines, keys, register-file and predicate addresses, host addresses) and the checks that every configuration fits them |
//! | [`host`] | the host register map: one table of names, addresses, widths and access, its address constants, and the write sequence of a launch |
//! | [`counters`] | the performance counters: the [`Counter`] table and the [`Counters`] record |
//! | [`counters_v2`] | Core v2's counters (docs/microarchitecture.md §15.1): the table, the width rule, the wrapping [`V2Counters`] record |
//! | [`gen`] | Core v2's generator options ([`GenOptions`], §17.2): `trace`, `counter_bits`, `debug_regs`, the `sim` and `board` presets |
//! | [`trap`] | the trap cause codes ([`TrapCode`]) and what the trap address and detail registers hold |
//! | [`state`] | the FSM states and their `trace_state` codes ([`State`]) |
//! | [`ports`] | the top-level port list of `concord_core` ([`PORTS`]) and the global request kinds |
//! | [`regmap`] | Core v2's host register map (docs/microarchitecture.md §14.4): one table of addresses, names, access and bit fields; `HWCFG*`, `CTRL`, `STATUS`, `LAUNCH`, `WSTATE*` encoders and decoders |
//! | [`wishbone`] | the per-cycle signal record of a Wishbone B4 pipelined port and the protocol checker of v2 §20, for the host slave and the global-memory master |
//! | [`keys`] | the layout of the unified arbiter's branch-mode and memory-mode keys |
//! | [`occupancy`] | Core v2: [`Occupancy`], resident blocks and shared windows of a launch (docs/microarchitecture.md §12.2) |
//! | [`trace`] | Core v2's trace port (§15.2): [`trace::TraceRecord`], its fields and widths from [`HwParams`], pack and unpack |
//! | [`timing`] | Core v2: stage indices, `REISSUE`, `SETUP_CYCLES`, the global-access offsets of §10.3 |
//!
//! The crate depends on `concord-isa` only: the architecture (instructions,
//! configuration ranges, trap causes) is the ISA's, and this crate says how
//! this core builds and reports it.

pub mod counters;
pub mod counters_v2;
pub mod gen;
pub mod host;
pub mod keys;
pub mod occupancy;
pub mod params;
pub mod ports;
pub mod regmap;
pub mod state;
pub mod timing;
pub mod trace;
pub mod trap;
pub mod widths;
pub mod wishbone;

pub use counters::{Counter, Counters};
pub use counters_v2::{V2Counter, V2Counters};
pub use gen::GenOptions;
pub use host::{HostReg, HOST_REGISTERS};
pub use occupancy::{LaunchError, LaunchShape, Occupancy};
pub use params::HwParams;
pub use ports::{Dir, Port, PORTS};
pub use state::State;
pub use trap::TrapCode;
