//! The preprocessor: directives and object-like macros, on tokens.
//!
//! Runs between the lexer and the parser. Supported: `#define NAME tokens`
//! (object-like), `#undef NAME`; `#include` and `#pragma` lines are ignored
//! with a warning (kernels often include the CUDA headers or ask for
//! unrolling). Function-like macros and conditional compilation are
//! diagnostics naming the feature. Expanded tokens carry the span of the
//! macro's use, so later messages point at the use site.
//!
//! Expansion is iterative (an explicit stack of macro bodies), and bounded
//! in depth ([`MAX_EXPANSION_DEPTH`] nested macros) and in work
//! ([`MAX_EXPANSION_TOKENS`] body tokens per file): a chain of thousands
//! of macros or a few dozen doubling ones is one error at the use, not a
//! silent truncation or gigabytes of tokens.

use std::collections::{HashMap, HashSet};

use super::diag::Diagnostic;
use super::lexer::{Token, TokenKind};

/// Macros nested deeper than this are an error ("macro expansion too
/// deep"); far beyond any sensible nesting.
pub const MAX_EXPANSION_DEPTH: usize = 256;

/// The body tokens all macro expansions of a file may go through together
/// (each token produced and each nested macro expanded counts one); more is
/// an error ("macro expansion too large"). A million tokens is far more
/// than the largest kernel that fits the instruction memory.
pub const MAX_EXPANSION_TOKENS: usize = 1 << 20;

/// Handles the directives of `tokens` and expands macros; returns the
/// token stream for the parser (ending in `Eof`). When an expansion
/// exceeds a limit, the stream is just `Eof`: the error is the one
/// diagnostic worth reading, and a truncated stream would only add parse
/// errors.
pub fn preprocess(tokens: Vec<Token>, diags: &mut Vec<Diagnostic>) -> Vec<Token> {
    let mut macros: HashMap<String, Vec<Token>> = HashMap::new();
    let mut out = Vec::with_capacity(tokens.len());
    let mut budget = MAX_EXPANSION_TOKENS;
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
        if let Err(d) = expand(tok, &macros, &mut out, &mut budget) {
            diags.push(d);
            let eof = tokens.last().filter(|t| matches!(t.kind, TokenKind::Eof));
            return eof.cloned().into_iter().collect();
        }
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

/// One macro body being expanded.
struct Frame<'m> {
    name: &'m str,
    body: &'m [Token],
    next: usize,
    /// `line_start`/`space_before` of the token the body replaces: its
    /// first token takes them over.
    line_start: bool,
    space_before: bool,
}

/// Appends `tok` to `out`, expanded when it names a macro. A macro is not
/// expanded again inside its own expansion (C's rule: `#define X X+1`
/// gives `X+1`). Every token goes out with the span of `tok`, the use.
fn expand(
    tok: &Token,
    macros: &HashMap<String, Vec<Token>>,
    out: &mut Vec<Token>,
    budget: &mut usize,
) -> Result<(), Diagnostic> {
    let use_span = tok.span;
    let Some((name, body)) = tok
        .ident()
        .and_then(|n| macros.get_key_value(n))
        .map(|(n, b)| (n.as_str(), b.as_slice()))
    else {
        out.push(tok.clone());
        return Ok(());
    };
    let mut stack = vec![Frame {
        name,
        body,
        next: 0,
        line_start: tok.line_start,
        space_before: tok.space_before,
    }];
    let mut active: HashSet<&str> = HashSet::from([name]);
    while let Some(frame) = stack.last_mut() {
        let Some(t) = frame.body.get(frame.next) else {
            active.remove(frame.name);
            stack.pop();
            continue;
        };
        let first = frame.next == 0;
        frame.next += 1;
        let (line_start, space_before) = if first {
            (frame.line_start, frame.space_before)
        } else {
            (t.line_start, t.space_before)
        };
        if *budget == 0 {
            return Err(Diagnostic::error(
                use_span,
                format!(
                    "macro expansion too large: expanding `{name}` takes the macro expansions \
                     of this file past {MAX_EXPANSION_TOKENS} tokens"
                ),
            ));
        }
        *budget -= 1;
        let inner = t
            .ident()
            .and_then(|n| macros.get_key_value(n))
            .filter(|(n, _)| !active.contains(n.as_str()));
        if let Some((inner, inner_body)) = inner {
            if stack.len() >= MAX_EXPANSION_DEPTH {
                return Err(Diagnostic::error(
                    use_span,
                    format!(
                        "macro expansion too deep: expanding `{name}` nests more than \
                         {MAX_EXPANSION_DEPTH} macros (the innermost is `{inner}`)"
                    ),
                ));
            }
            active.insert(inner);
            stack.push(Frame {
                name: inner,
                body: inner_body,
                next: 0,
                line_start,
                space_before,
            });
            continue;
        }
        out.push(Token {
            span: use_span,
            line_start,
            space_before,
            ..t.clone()
        });
    }
    Ok(())
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
