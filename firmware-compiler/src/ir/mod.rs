//! The SSA intermediate representation: functions of basic blocks with
//! block parameters (in place of phi nodes), in the style of Cranelift.
//!
//! * [`entities`]: the references (`v3`, `block2`, `ss0`, functions, shared
//!   variables);
//! * [`instructions`]: the operations and their operands;
//! * [`function`]: functions and modules, and the editing operations.
//!
//! The textual form (`print`, `parse`) and the verifier (`verify`) sit next
//! to these; `docs/compiler.md` describes the IR as a whole.

pub mod entities;
pub mod function;
pub mod instructions;
pub mod parse;
pub mod print;
pub mod verify;

pub use entities::{Block, FuncId, Inst, SharedId, StackSlot, Value};
pub use function::{
    BlockData, FuncKind, Function, InstNode, Module, SharedData, SrcLoc, StackSlotData, ValueData,
    ValueDef,
};
pub use instructions::{BinaryOp, BlockCall, InstData, MemSpace, Type, UnaryOp, VoteOp};
pub use parse::{parse_module, IrParseError};
pub use print::{print_function, print_inst};
pub use verify::{verify_function, verify_module, VerifyError};
