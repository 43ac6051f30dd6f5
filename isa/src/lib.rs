//! # concord-isa
//!
//! The single definition of the Concord SIMT instruction set and everything
//! that only needs the ISA to exist:
//!
//! | module | what |
//! |---|---|
//! | [`instr`] | instruction types (`Instr`, `Op`, registers, predicates, guards) |
//! | [`encoding`] | 32-bit binary encoding: `encode` / `decode`, field positions, opcodes |
//! | [`semantics`] | what each data operation computes on one lane |
//! | [`simt`] | the SIMT rules every model shares: arbitration, the cached group, control effects, memory passes, barriers, special registers |
//! | [`checks`] | the run-time checks every model makes: memory accesses, per-thread stacks, the next PC |
//! | [`asm`] | assembler (text → [`container::Kernel`]) with line:column diagnostics |
//! | [`disasm`] | disassembler (words → text that assembles back to the same words) |
//! | [`config`] | the core configuration (YAML) |
//! | [`container`] | the versioned kernel binary container |
//! | [`launch`] | launch descriptions (YAML): program, grid, block, arguments, outputs |
//! | [`input`] | the one reader of input files: regular files only, size caps, UTF-8 checks |
//! | [`show`] | input text quoted in diagnostics: control characters escaped, long lines cut |
//! | [`func`] | the functional model: the architectural oracle for final state |
//! | [`watchdog`] | the launch watchdog of every model: unit, default, diagnosis |
//!
//! Later stages (the RTL in `hdl/`, the cycle model in `testbench/`, the
//! compiler in `firmware-compiler/`) depend on this crate and never restate
//! an opcode, a field position or an operation's meaning.

pub mod asm;
pub mod checks;
pub mod config;
pub mod container;
pub mod disasm;
pub mod encoding;
pub mod func;
pub mod input;
pub mod instr;
pub mod launch;
pub mod mask;
pub mod semantics;
pub mod show;
pub mod simt;
pub mod watchdog;

pub use encoding::{decode, encode, DecodeError, EncodeError};
pub use instr::*;
