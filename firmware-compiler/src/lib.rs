//! The Concord kernel compiler: a CUDA-C subset in, Concord machine code out.
//!
//! The pipeline, in order (each step a module of its own):
//!
//! 1. [`frontend`]: preprocessing, parsing to an AST with spans, type
//!    checking, lowering to IR;
//! 2. [`ir`]: the SSA IR, its text form and verifier; [`interp`] is the
//!    SIMT reference interpreter, the oracle for every later stage;
//! 3. analyses ([`flowgraph`], [`dominator_tree`], [`loop_analysis`]) and
//!    the clean-up passes in [`passes`];
//! 4. the back end: block layout for min-PC reconvergence, instruction
//!    selection, register allocation, emission ([`backend`]).

// In pipeline order; each group is one step.
pub mod frontend;

pub mod interp;
pub mod ir;

pub mod dominator_tree;
pub mod flowgraph;
pub mod loop_analysis;

pub mod passes;

pub mod divergence;

pub mod layout;
pub mod layout_verify;

pub mod backend;

pub mod driver;

// Testing and measuring aids.
pub mod filetest;
pub mod heap;
pub mod kernel_gen;
