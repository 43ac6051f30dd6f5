//! The front end: CUDA-C subset source to an IR [`Module`].
//!
//! Stages, one module each: [`lexer`] → [`preprocess`] → [`parse`] (to the
//! [`ast`]) → [`sema`] (names, types, conversions, CUDA-specific checks; to
//! the typed tree of [`hir`], with the C types of [`types`]) → [`lower`]
//! (to IR with every local in a stack slot, ready for mem2reg). [`diag`]
//! holds the diagnostics and their rendering.
//!
//! The entry point is [`compile_source`]; no input makes it panic.

pub mod ast;
pub mod diag;
pub mod hir;
pub mod lexer;
pub mod lower;
pub mod parse;
pub mod preprocess;
pub mod sema;
pub mod types;

pub use diag::{render, Diagnostic, LineIndex, Severity, Span};

use crate::ir::Module;

/// What the front end needs to know about the target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrontendOptions {
    /// Shared memory of the core in bytes: the `__shared__` variables of
    /// the module must fit in it together.
    pub shared_memory_bytes: u32,
}

impl Default for FrontendOptions {
    fn default() -> Self {
        FrontendOptions::for_core(&concord_isa::config::CoreConfig::default())
    }
}

impl FrontendOptions {
    pub fn for_core(config: &concord_isa::config::CoreConfig) -> FrontendOptions {
        FrontendOptions {
            shared_memory_bytes: config.shared_memory_bytes,
        }
    }
}

/// Parses, checks and lowers one source file. On success returns the
/// module and the warnings; otherwise every diagnostic (errors and
/// warnings). Every diagnostic has its `line` and `col` filled in.
pub fn compile_source(
    src: &str,
    file: &str,
    options: &FrontendOptions,
) -> Result<(Module, Vec<Diagnostic>), Vec<Diagnostic>> {
    let _ = file; // Positions are reported as line/col; `render` names the file.
    let lines = LineIndex::new(src);
    let mut diags = Vec::new();
    let tokens = lexer::lex(src, &mut diags);
    let tokens = preprocess::preprocess(tokens, &mut diags);
    let unit = parse::parse(tokens, &mut diags);
    let failed = |diags: &[Diagnostic]| diags.iter().any(Diagnostic::is_error);
    if failed(&diags) {
        lines.locate(&mut diags);
        return Err(diags);
    }
    let program = sema::check(&unit, options, &mut diags);
    if failed(&diags) {
        lines.locate(&mut diags);
        return Err(diags);
    }
    let module = lower::lower(&program, &lines, &mut diags);
    lines.locate(&mut diags);
    Ok((module, diags))
}

/// Parses a source file to its syntax tree (for tests and tools).
pub fn parse_source(src: &str) -> (ast::TranslationUnit, Vec<Diagnostic>) {
    let lines = LineIndex::new(src);
    let mut diags = Vec::new();
    let tokens = lexer::lex(src, &mut diags);
    let tokens = preprocess::preprocess(tokens, &mut diags);
    let unit = parse::parse(tokens, &mut diags);
    lines.locate(&mut diags);
    (unit, diags)
}
