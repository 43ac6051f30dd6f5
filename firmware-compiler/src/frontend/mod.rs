//! The front end: CUDA-C subset source to an IR [`Module`](crate::ir::Module).
//!
//! Stages, one module each: [`lexer`] → [`preprocess`] → [`parse`] (to the
//! [`ast`]) → [`sema`] (names, types, conversions, CUDA-specific checks; to
//! the typed tree of [`hir`]) → [`lower`] (to IR with every local in a
//! stack slot, ready for mem2reg). [`diag`] holds the diagnostics.

pub mod ast;
pub mod diag;
pub mod lexer;
pub mod parse;
pub mod preprocess;
