//! Lexical level of the assembler: a cursor over one line's code (comment
//! already removed) and the nom parsers for its tokens.
//!
//! Every position is a byte offset into the line; [`super::AsmError`] turns
//! it into a 1-based character column.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while, take_while1, take_while_m_n};
use nom::character::complete::char;
use nom::combinator::{all_consuming, opt, recognize};
use nom::sequence::{pair, preceded};
use nom::IResult;

use crate::instr::{Pred, Reg};

/// A diagnostic before it knows its line: byte offset in the line + message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Raw {
    pub at: usize,
    pub message: String,
}

pub(crate) fn raw(at: usize, message: impl Into<String>) -> Raw {
    Raw {
        at,
        message: message.into(),
    }
}

pub(crate) type Res<T> = Result<T, Raw>;

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || matches!(c, '_' | '.' | '$')
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$')
}

/// Characters that make up one operand word: identifiers, numbers, `%sreg`.
fn is_atom_char(c: char) -> bool {
    is_ident_char(c) || c == '%'
}

/// `[A-Za-z_.$][A-Za-z0-9_.$]*`
pub(crate) fn ident(i: &str) -> IResult<&str, &str> {
    recognize(pair(
        take_while_m_n(1, 1, is_ident_start),
        take_while(is_ident_char),
    ))(i)
}

/// One operand word, with an optional leading `-` (numbers).
pub(crate) fn atom(i: &str) -> IResult<&str, &str> {
    recognize(pair(opt(char('-')), take_while1(is_atom_char)))(i)
}

/// The digits of a number and their radix.
fn number_body(i: &str) -> IResult<&str, (u32, &str)> {
    alt((
        preceded(
            alt((tag("0x"), tag("0X"))),
            nom::combinator::map(take_while1(|c: char| c.is_ascii_hexdigit()), |d| (16, d)),
        ),
        preceded(
            alt((tag("0b"), tag("0B"))),
            nom::combinator::map(take_while1(|c: char| c == '0' || c == '1'), |d| (2, d)),
        ),
        nom::combinator::map(take_while1(|c: char| c.is_ascii_digit()), |d| (10, d)),
    ))(i)
}

/// Parses a whole atom as a number: decimal, `0x` hex or `0b` binary with
/// an optional leading `-`. `Err` carries the message.
pub(crate) fn parse_number(text: &str) -> Result<i64, String> {
    let parsed: IResult<&str, (Option<char>, (u32, &str))> =
        all_consuming(pair(opt(char('-')), number_body))(text);
    let (negative, (radix, digits)) = match parsed {
        Ok((_, v)) => (v.0.is_some(), v.1),
        Err(_) => return Err(format!("bad number `{}`", shorten(text))),
    };
    let too_large = || format!("number `{}` is too large", shorten(text));
    let magnitude = u64::from_str_radix(digits, radix).map_err(|_| too_large())?;
    let magnitude = i64::try_from(magnitude).map_err(|_| too_large())?;
    Ok(if negative { -magnitude } else { magnitude })
}

/// `r0`..`r31` exactly (no leading zeros).
pub(crate) fn parse_reg(text: &str) -> Option<Reg> {
    let n = canonical_index(text.strip_prefix('r')?)?;
    Reg::new(n)
}

/// `p0`..`p7` or `pt`.
pub(crate) fn parse_pred(text: &str) -> Option<Pred> {
    if text == "pt" {
        return Some(Pred::TRUE);
    }
    let n = canonical_index(text.strip_prefix('p')?)?;
    Pred::new(n)
}

fn canonical_index(digits: &str) -> Option<u8> {
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if digits.len() > 1 && digits.starts_with('0') {
        return None;
    }
    digits.parse().ok()
}

/// Words shaped like a register or predicate name (`r12`, `r99`, `p3`,
/// `pt`): they are never symbols, so that `add r1, r2, r40` reports a bad
/// register instead of looking for a constant named `r40`.
pub(crate) fn is_register_like(text: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    text == "pt"
        || text.strip_prefix('r').is_some_and(digits)
        || text.strip_prefix('p').is_some_and(digits)
}

/// Whether `text` can name a label, constant or entry.
pub fn is_symbol_name(text: &str) -> bool {
    all_consuming(ident)(text).is_ok() && !is_register_like(text)
}

/// Whether `text` can name a parameter: any identifier, including words
/// shaped like registers (`p1`, a common C parameter name), since a
/// parameter name only appears after `.param` and as the last operand of
/// `ldparam`, where no register can.
pub fn is_param_name(text: &str) -> bool {
    all_consuming(ident)(text).is_ok()
}

/// Long tokens are cut in messages.
pub(crate) fn shorten(text: &str) -> String {
    const MAX: usize = 40;
    if text.chars().count() <= MAX {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(MAX).collect();
        s.push('…');
        s
    }
}

/// A position in one line of code.
pub(crate) struct Cursor<'a> {
    pub text: &'a str,
    pub pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(text: &'a str) -> Cursor<'a> {
        Cursor { text, pos: 0 }
    }

    pub fn rest(&self) -> &'a str {
        self.text.get(self.pos..).unwrap_or("")
    }

    pub fn ws(&mut self) {
        let r = self.rest();
        self.pos += r.len() - r.trim_start().len();
    }

    /// True at the end of the line, after skipping white space.
    pub fn at_end(&mut self) -> bool {
        self.ws();
        self.rest().is_empty()
    }

    pub fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    pub fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    /// Runs a nom parser at the cursor; on success moves past what it read
    /// and returns the start offset with the output.
    pub fn run<O>(
        &mut self,
        mut p: impl FnMut(&'a str) -> IResult<&'a str, O>,
    ) -> Option<(usize, O)> {
        match p(self.rest()) {
            Ok((rem, out)) => {
                let start = self.pos;
                self.pos = self.text.len() - rem.len();
                Some((start, out))
            }
            Err(_) => None,
        }
    }

    /// The token at the cursor, for messages.
    pub fn token(&self) -> String {
        match atom(self.rest()) {
            Ok((_, a)) => shorten(a),
            Err(_) => match self.peek() {
                Some(c) => c.to_string(),
                None => "end of line".to_string(),
            },
        }
    }

    /// `found `x`` / `found end of line` for messages.
    pub fn found(&self) -> String {
        if self.rest().is_empty() {
            "found end of line".to_string()
        } else {
            format!("found `{}`", self.token())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(parse_number("0"), Ok(0));
        assert_eq!(parse_number("-12"), Ok(-12));
        assert_eq!(parse_number("0x1F"), Ok(31));
        assert_eq!(parse_number("-0b101"), Ok(-5));
        assert!(parse_number("12ab").is_err());
        assert!(parse_number("0x").is_err());
        assert!(parse_number("99999999999999999999").is_err());
        assert_eq!(parse_number("9223372036854775807"), Ok(i64::MAX));
    }

    #[test]
    fn registers_and_predicates() {
        assert_eq!(parse_reg("r31").map(|r| r.index()), Some(31));
        assert_eq!(parse_reg("r32"), None);
        assert_eq!(parse_reg("r01"), None);
        assert_eq!(parse_pred("pt"), Some(Pred::TRUE));
        assert_eq!(parse_pred("p7").map(|p| p.index()), Some(7));
        assert_eq!(parse_pred("p8"), None);
        assert!(is_register_like("r99") && is_register_like("p12") && !is_register_like("rx"));
        assert!(is_symbol_name(".L1") && is_symbol_name("$x_2") && !is_symbol_name("r3"));
        assert!(!is_symbol_name("1a") && !is_symbol_name("") && !is_symbol_name("a-b"));
    }
}
