//! The lexer: kernel source text to tokens with spans.
//!
//! First step of the front end. Comments and whitespace disappear here;
//! each token remembers whether it starts a (logical) line, which is all
//! the preprocessor ([`super::preprocess`]) needs to find directives.
//! Literals the language does not support (floating point, strings) are
//! still tokenised so that the parser can name the feature in its message.

use super::diag::{Diagnostic, Span};

#[derive(Clone, PartialEq, Eq, Debug)]
pub enum TokenKind {
    Ident(String),
    /// An integer or character literal; `unsigned` when it has a `u`
    /// suffix. The type (int or unsigned) is decided by the checker.
    Int {
        value: u64,
        unsigned: bool,
        decimal: bool,
    },
    /// A floating-point literal (not supported; kept for the message).
    Float,
    /// A string literal (not supported outside `#include`/`extern "C"`).
    Str(String),
    /// A punctuator such as `+=` or `{`.
    Punct(&'static str),
    Eof,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
    /// First token of its logical line (backslash-newline joins lines).
    pub line_start: bool,
    /// Whitespace or a comment precedes the token.
    pub space_before: bool,
    /// Logical line number (0-based), for directives.
    pub line: u32,
}

impl Token {
    pub fn is_punct(&self, p: &str) -> bool {
        matches!(&self.kind, TokenKind::Punct(q) if *q == p)
    }

    pub fn ident(&self) -> Option<&str> {
        match &self.kind {
            TokenKind::Ident(s) => Some(s),
            _ => None,
        }
    }

    /// How the token is spelled in messages.
    pub fn describe(&self) -> String {
        match &self.kind {
            TokenKind::Ident(s) => format!("`{s}`"),
            TokenKind::Int { .. } => "integer literal".to_string(),
            TokenKind::Float => "floating-point literal".to_string(),
            TokenKind::Str(_) => "string literal".to_string(),
            TokenKind::Punct(p) => format!("`{p}`"),
            TokenKind::Eof => "end of file".to_string(),
        }
    }
}

/// Longest first, so that the first match is the longest.
const PUNCTUATORS: &[&str] = &[
    "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=",
    "-=", "*=", "/=", "%=", "&=", "|=", "^=", "::", "##", "+", "-", "*", "/", "%", "&", "|", "^",
    "~", "!", "<", ">", "=", "?", ":", ";", ",", ".", "(", ")", "[", "]", "{", "}", "#",
];

/// Splits `src` into tokens (the last one is [`TokenKind::Eof`]). Problems
/// are appended to `diags`; the lexer always reaches the end.
pub fn lex(src: &str, diags: &mut Vec<Diagnostic>) -> Vec<Token> {
    Lexer {
        src,
        bytes: src.as_bytes(),
        pos: 0,
        line: 0,
        line_start: true,
        space_before: false,
        tokens: Vec::new(),
        diags,
    }
    .run()
}

struct Lexer<'a, 'd> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    line: u32,
    line_start: bool,
    space_before: bool,
    tokens: Vec<Token>,
    diags: &'d mut Vec<Diagnostic>,
}

impl Lexer<'_, '_> {
    fn peek(&self, k: usize) -> u8 {
        self.bytes.get(self.pos + k).copied().unwrap_or(0)
    }

    fn push(&mut self, kind: TokenKind, start: usize) {
        self.tokens.push(Token {
            kind,
            span: Span::new(start, self.pos),
            line_start: self.line_start,
            space_before: self.space_before,
            line: self.line,
        });
        self.line_start = false;
        self.space_before = false;
    }

    fn run(mut self) -> Vec<Token> {
        while self.pos < self.bytes.len() {
            let c = self.peek(0);
            let start = self.pos;
            match c {
                b'\n' => {
                    self.pos += 1;
                    self.line += 1;
                    self.line_start = true;
                    self.space_before = true;
                }
                b'\\' if self.peek(1) == b'\n' => {
                    self.pos += 2;
                    self.space_before = true;
                }
                b'\\' if self.peek(1) == b'\r' && self.peek(2) == b'\n' => {
                    self.pos += 3;
                    self.space_before = true;
                }
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                    self.pos += 1;
                    self.space_before = true;
                }
                b'/' if self.peek(1) == b'/' => {
                    while self.pos < self.bytes.len() && self.peek(0) != b'\n' {
                        self.pos += 1;
                    }
                    self.space_before = true;
                }
                b'/' if self.peek(1) == b'*' => {
                    self.pos += 2;
                    loop {
                        if self.pos >= self.bytes.len() {
                            self.diags.push(Diagnostic::error(
                                Span::new(start, start + 2),
                                "unterminated comment",
                            ));
                            break;
                        }
                        if self.peek(0) == b'*' && self.peek(1) == b'/' {
                            self.pos += 2;
                            break;
                        }
                        if self.peek(0) == b'\n' {
                            self.line += 1;
                        }
                        self.pos += 1;
                    }
                    self.space_before = true;
                }
                b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                    while matches!(self.peek(0), b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_') {
                        self.pos += 1;
                    }
                    let text = self.src[start..self.pos].to_string();
                    self.push(TokenKind::Ident(text), start);
                }
                b'0'..=b'9' => self.number(),
                b'.' if self.peek(1).is_ascii_digit() => self.number(),
                b'\'' => self.char_literal(),
                b'"' => self.string_literal(),
                _ => {
                    let rest = &self.src[self.pos..];
                    if let Some(p) = PUNCTUATORS.iter().find(|p| rest.starts_with(**p)) {
                        self.pos += p.len();
                        self.push(TokenKind::Punct(p), start);
                    } else {
                        let ch = rest.chars().next().unwrap_or('?');
                        self.pos += ch.len_utf8();
                        self.diags.push(Diagnostic::error(
                            Span::new(start, self.pos),
                            format!("unexpected character `{}`", ch.escape_default()),
                        ));
                    }
                }
            }
        }
        let end = self.bytes.len();
        self.tokens.push(Token {
            kind: TokenKind::Eof,
            span: Span::new(end, end),
            line_start: true,
            space_before: true,
            line: self.line + 1,
        });
        self.tokens
    }

    fn number(&mut self) {
        let start = self.pos;
        // A preprocessing number: digits, letters, dots, and exponent signs.
        while matches!(self.peek(0), b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'.')
            || (matches!(self.peek(0), b'+' | b'-')
                && matches!(self.bytes[self.pos - 1], b'e' | b'E' | b'p' | b'P')
                && !self.src[start..self.pos].starts_with("0x")
                && !self.src[start..self.pos].starts_with("0X"))
        {
            self.pos += 1;
        }
        let text = &self.src[start..self.pos];
        let span = Span::new(start, self.pos);
        let lower = text.to_ascii_lowercase();
        let is_hex = lower.starts_with("0x");
        let is_float = text.contains('.')
            || (!is_hex && (lower.contains('e') || lower.ends_with('f')))
            || (is_hex && lower.contains('p'));
        if is_float {
            self.push(TokenKind::Float, start);
            return;
        }
        let digits_end = lower
            .char_indices()
            .skip(if is_hex || lower.starts_with("0b") {
                2
            } else {
                0
            })
            .find(|(_, c)| !c.is_ascii_hexdigit() || (!is_hex && c.is_ascii_alphabetic()))
            .map_or(lower.len(), |(i, _)| i);
        let (body, suffix) = lower.split_at(digits_end);
        let (radix, digits) = if is_hex {
            (16, &body[2..])
        } else if let Some(d) = body.strip_prefix("0b") {
            (2, d)
        } else if body.len() > 1 && body.starts_with('0') {
            (8, &body[1..])
        } else {
            (10, body)
        };
        let unsigned = suffix.contains('u');
        let suffix_ok = matches!(suffix, "" | "u" | "l" | "ul" | "lu" | "ll" | "ull" | "llu");
        let value = if digits.is_empty() && radix != 8 {
            None
        } else if digits.is_empty() {
            Some(0)
        } else {
            u64::from_str_radix(digits, radix).ok()
        };
        match value {
            Some(value) if suffix_ok => {
                self.push(
                    TokenKind::Int {
                        value,
                        unsigned,
                        decimal: radix == 10,
                    },
                    start,
                );
            }
            _ => {
                self.diags.push(Diagnostic::error(
                    span,
                    format!("invalid integer literal `{text}`"),
                ));
                self.push(
                    TokenKind::Int {
                        value: 0,
                        unsigned: false,
                        decimal: true,
                    },
                    start,
                );
            }
        }
    }

    /// Reads one (possibly escaped) character of a char or string literal.
    fn escaped_char(&mut self) -> Option<u32> {
        let c = self.peek(0);
        if c != b'\\' {
            let ch = self.src[self.pos..].chars().next()?;
            self.pos += ch.len_utf8();
            return Some(ch as u32);
        }
        self.pos += 1;
        let escaped = self.src.get(self.pos..)?.chars().next()?;
        self.pos += escaped.len_utf8();
        let e = u8::try_from(escaped).ok()?;
        Some(match e {
            b'n' => 10,
            b't' => 9,
            b'r' => 13,
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            b'\\' | b'\'' | b'"' | b'?' => e as u32,
            b'x' => {
                let mut v: u32 = 0;
                let mut n = 0;
                while self.peek(0).is_ascii_hexdigit() && n < 8 {
                    v = v * 16 + (self.peek(0) as char).to_digit(16).unwrap_or(0);
                    self.pos += 1;
                    n += 1;
                }
                if n == 0 {
                    return None;
                }
                v
            }
            b'0'..=b'7' => {
                let mut v = (e - b'0') as u32;
                let mut n = 1;
                while matches!(self.peek(0), b'0'..=b'7') && n < 3 {
                    v = v * 8 + (self.peek(0) - b'0') as u32;
                    self.pos += 1;
                    n += 1;
                }
                v
            }
            _ => return None,
        })
    }

    fn char_literal(&mut self) {
        let start = self.pos;
        self.pos += 1;
        let value = if matches!(self.peek(0), b'\'' | b'\n' | 0) {
            None
        } else {
            self.escaped_char()
        };
        let closed = self.peek(0) == b'\'';
        if closed {
            self.pos += 1;
        }
        match value {
            Some(v) if closed && v < 256 => {
                // `char` is signed: '\xff' is -1.
                let v = v as u8 as i8 as i64 as u64;
                self.push(
                    TokenKind::Int {
                        value: v,
                        unsigned: false,
                        decimal: true,
                    },
                    start,
                );
            }
            _ => {
                while !matches!(self.peek(0), b'\'' | b'\n' | 0) {
                    self.pos += 1;
                }
                if self.peek(0) == b'\'' {
                    self.pos += 1;
                }
                self.diags.push(Diagnostic::error(
                    Span::new(start, self.pos),
                    "invalid character literal",
                ));
                self.push(
                    TokenKind::Int {
                        value: 0,
                        unsigned: false,
                        decimal: true,
                    },
                    start,
                );
            }
        }
    }

    fn string_literal(&mut self) {
        let start = self.pos;
        self.pos += 1;
        let mut text = String::new();
        loop {
            match self.peek(0) {
                b'"' => {
                    self.pos += 1;
                    break;
                }
                _ if self.pos >= self.bytes.len() || self.peek(0) == b'\n' => {
                    self.diags.push(Diagnostic::error(
                        Span::new(start, self.pos),
                        "unterminated string literal",
                    ));
                    break;
                }
                _ => match self.escaped_char() {
                    Some(c) => text.push(char::from_u32(c).unwrap_or('?')),
                    None => text.push('?'),
                },
            }
        }
        self.push(TokenKind::Str(text), start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<TokenKind> {
        let mut d = Vec::new();
        let t = lex(src, &mut d);
        assert!(d.is_empty(), "{d:?}");
        t.into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn numbers_and_punctuators() {
        let k = kinds("x <<= 0x1F + 10u - 017 'a' '\\n'");
        assert_eq!(k[0], TokenKind::Ident("x".into()));
        assert_eq!(k[1], TokenKind::Punct("<<="));
        assert!(matches!(
            k[2],
            TokenKind::Int {
                value: 31,
                unsigned: false,
                decimal: false
            }
        ));
        assert!(matches!(
            k[4],
            TokenKind::Int {
                value: 10,
                unsigned: true,
                ..
            }
        ));
        assert!(matches!(k[6], TokenKind::Int { value: 15, .. }));
        assert!(matches!(k[7], TokenKind::Int { value: 97, .. }));
        assert!(matches!(k[8], TokenKind::Int { value: 10, .. }));
        assert_eq!(k[9], TokenKind::Eof);
    }

    #[test]
    fn comments_and_floats() {
        let k = kinds("a /* x \n y */ 1.5f // c\n b");
        assert_eq!(k.len(), 4);
        assert_eq!(k[1], TokenKind::Float);
    }

    #[test]
    fn line_starts_are_marked() {
        let mut d = Vec::new();
        let t = lex("#define N 4\nint", &mut d);
        assert!(t[0].line_start && !t[1].line_start && t[4].line_start);
        assert_eq!(t[4].line, 1);
    }

    #[test]
    fn bad_characters_are_reported() {
        let mut d = Vec::new();
        lex("a @ b", &mut d);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].span, Span::new(2, 3));
    }
}
