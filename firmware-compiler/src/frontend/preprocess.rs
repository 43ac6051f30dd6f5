//! The preprocessor: directives and object-like macros, on tokens.
//!
//! Runs between the lexer and the parser. Supported: `#define NAME tokens`
//! (object-like), `#undef NAME`; `#include` and `#pragma` lines are ignored
//! with a warning (kernels often include the CUDA headers or ask for
//! unrolling). Function-like macros and conditional compilation are
//! diagnostics naming the feature. Expanded tokens carry the span of the
//! macro's use, so later messages point at the use site.

use std::collections::{HashMap, HashSet};

use super::diag::{Diagnostic, Span};
use super::lexer::{Token, TokenKind};

/// Handles the directives of `tokens` and expands macros; returns the
/// token stream for the parser (ending in `Eof`).
pub fn preprocess(tokens: Vec<Token>, diags: &mut Vec<Diagnostic>) -> Vec<Token> {
    let mut macros: HashMap<String, Vec<Token>> = HashMap::new();
    let mut out = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let tok = &tokens[i];
        if tok.is_punct("#") && tok.line_start {
            let line = tok.line;
            let mut end = i + 1;
            while end < tokens.len()
                && tokens[end].line == line
                && !matches!(tokens[end].kind, TokenKind::Eof)
            {
                end += 1;
            }
            directive(&tokens[i..end], &mut macros, diags);
            i = end;
            continue;
        }
        let mut active = HashSet::new();
        expand(tok, tok.span, &macros, &mut active, &mut out, 0);
        i += 1;
    }
    out
}

fn directive(
    line: &[Token],
    macros: &mut HashMap<String, Vec<Token>>,
    diags: &mut Vec<Diagnostic>,
) {
    let hash = &line[0];
    let Some(name_tok) = line.get(1) else {
        return; // A lone `#` is the null directive.
    };
    let span = hash.span.to(name_tok.span);
    match name_tok.ident() {
        Some("define") => {
            let Some(name) = line.get(2).and_then(|t| t.ident().map(|s| (t, s))) else {
                let at = line.get(2).map_or(name_tok.span, |t| t.span);
                diags.push(Diagnostic::error(
                    at,
                    "expected a macro name after `#define`",
                ));
                return;
            };
            let (name_tok, name) = name;
            if let Some(paren) = line.get(3) {
                if paren.is_punct("(") && !paren.space_before {
                    diags.push(
                        Diagnostic::error(
                            name_tok.span.to(paren.span),
                            format!(
                                "function-like macro `{name}` is not supported by Concord \
                                 (only object-like `#define NAME value`)"
                            ),
                        )
                        .with_note("write a `__device__` function instead"),
                    );
                    return;
                }
            }
            macros.insert(name.to_string(), line[3..].to_vec());
        }
        Some("undef") => {
            if let Some(name) = line.get(2).and_then(|t| t.ident()) {
                macros.remove(name);
            } else {
                diags.push(Diagnostic::error(
                    span,
                    "expected a macro name after `#undef`",
                ));
            }
        }
        Some("include") => {
            let whole = line.last().map_or(span, |t| span.to(t.span));
            diags.push(Diagnostic::warning(
                whole,
                "`#include` is ignored (Concord kernels need no headers)",
            ));
        }
        Some("pragma") => {
            let whole = line.last().map_or(span, |t| span.to(t.span));
            diags.push(Diagnostic::warning(whole, "`#pragma` is ignored"));
        }
        Some(other) => {
            diags.push(Diagnostic::error(
                span,
                format!("preprocessor directive `#{other}` is not supported by Concord"),
            ));
        }
        None => {
            diags.push(Diagnostic::error(
                name_tok.span,
                format!(
                    "expected a preprocessor directive, found {}",
                    name_tok.describe()
                ),
            ));
        }
    }
}

/// Deep enough for any sensible nesting; stops runaway expansions.
const MAX_EXPANSION_DEPTH: u32 = 64;

fn expand(
    tok: &Token,
    use_span: Span,
    macros: &HashMap<String, Vec<Token>>,
    active: &mut HashSet<String>,
    out: &mut Vec<Token>,
    depth: u32,
) {
    if let Some(name) = tok.ident() {
        if let Some(body) = macros.get(name) {
            if !active.contains(name) && depth < MAX_EXPANSION_DEPTH {
                active.insert(name.to_string());
                for (k, t) in body.iter().enumerate() {
                    let mut t = t.clone();
                    t.span = use_span;
                    if k == 0 {
                        t.line_start = tok.line_start;
                        t.space_before = tok.space_before;
                    }
                    expand(&t, use_span, macros, active, out, depth + 1);
                }
                active.remove(name);
                return;
            }
        }
    }
    out.push(tok.clone());
}

#[cfg(test)]
mod tests {
    use super::super::lexer::lex;
    use super::*;

    fn run(src: &str) -> (Vec<TokenKind>, Vec<Diagnostic>) {
        let mut d = Vec::new();
        let toks = lex(src, &mut d);
        let out = preprocess(toks, &mut d);
        (out.into_iter().map(|t| t.kind).collect(), d)
    }

    #[test]
    fn object_macros_expand_recursively() {
        let (k, d) = run("#define A 4\n#define B (A*2)\nB");
        assert!(d.is_empty());
        assert_eq!(k.len(), 6); // ( 4 * 2 ) Eof
        assert!(matches!(k[1], TokenKind::Int { value: 4, .. }));
    }

    #[test]
    fn self_reference_stops() {
        let (k, _) = run("#define X X+1\nX");
        assert_eq!(k.len(), 4);
    }

    #[test]
    fn function_like_macro_is_reported() {
        let (_, d) = run("#define SQ(x) ((x)*(x))\n");
        assert_eq!(d.len(), 1);
        assert!(d[0].message.contains("function-like macro `SQ`"));
    }

    #[test]
    fn include_is_a_warning() {
        let (k, d) = run("#include <cuda.h>\nint");
        assert_eq!(d.len(), 1);
        assert!(!d[0].is_error());
        assert_eq!(k.len(), 2);
    }
}
