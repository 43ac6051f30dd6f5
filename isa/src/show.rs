//! Text from an input shown back to the user in a diagnostic: names,
//! values and source lines can hold anything, and a terminal must only
//! ever receive printable text of a bounded length.
//!
//! Every diagnostic of Concord (assembler, compiler, launch descriptions,
//! configurations, containers, the command line) passes what it quotes
//! through this module:
//!
//! * [`escape`]: control characters other than tab become escapes (`\x1b`,
//!   `\0`, `\n`, `\r`, `\u{85}`), as do the invisible characters that
//!   reorder or hide text on a terminal (bidirectional overrides and
//!   isolates, line and paragraph separators, U+FEFF). Backslashes are not
//!   escaped, so escaping twice gives the same text as escaping once.
//! * [`message`]: a one-line message, escaped, with every `` `quoted` ``
//!   part longer than [`QUOTE_CHARS`] characters cut, and the whole cut in
//!   the middle beyond [`MESSAGE_CHARS`] characters.
//! * [`Excerpt`]: at most [`EXCERPT_CHARS`] characters of a source line
//!   around a column, escaped, with `…` where the line was cut; the caret of
//!   a diagnostic is placed through it.

use std::borrow::Cow;

/// The longest `` `quoted` `` part of a message, in characters.
pub const QUOTE_CHARS: usize = 40;
/// The longest message, in characters (longer ones lose their middle).
pub const MESSAGE_CHARS: usize = 600;
/// The most characters of one source line a diagnostic quotes.
pub const EXCERPT_CHARS: usize = 120;
/// How many of [`EXCERPT_CHARS`] go before the column, when the line is cut.
const EXCERPT_BEFORE: usize = 40;

/// Whether `c` is shown escaped.
pub fn needs_escape(c: char) -> bool {
    (c.is_control() && c != '\t')
        || matches!(
            c,
            '\u{200e}'
                | '\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{feff}'
        )
}

fn push_escaped(out: &mut String, c: char) {
    use std::fmt::Write as _;
    match c {
        '\0' => out.push_str("\\0"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        c if (c as u32) < 0x80 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// `text` with every character of [`needs_escape`] escaped; borrowed when
/// there is none.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs_escape(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Like [`escape`], but keeps line breaks: for text of several lines that
/// are each already a message (a rendered diagnostic).
pub fn escape_lines(text: &str) -> String {
    text.split('\n').map(escape).collect::<Vec<_>>().join("\n")
}

/// `text` cut to `max` characters with a trailing `…` when longer.
pub fn shorten(text: &str, max: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => Cow::Borrowed(text),
        Some((cut, _)) => Cow::Owned(format!("{}…", &text[..cut])),
    }
}

/// A message ready for one line of a terminal: escaped, quoted parts cut
/// to [`QUOTE_CHARS`] characters, the whole cut in the middle beyond
/// [`MESSAGE_CHARS`] characters.
pub fn message(text: &str) -> String {
    // Cut first, so that a huge quoted name is never copied whole.
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        out.push_str(&rest[..=open]);
        rest = &rest[open + 1..];
        match rest.find('`') {
            Some(close) => {
                out.push_str(&shorten(&rest[..close], QUOTE_CHARS));
                out.push('`');
                rest = &rest[close + 1..];
            }
            None => break,
        }
    }
    out.push_str(rest);
    let out = escape(&out).into_owned();
    let chars = out.chars().count();
    if chars <= MESSAGE_CHARS {
        return out;
    }
    // Keep the start (what is wrong) and the end (often the position).
    let head = MESSAGE_CHARS * 2 / 3;
    let tail = MESSAGE_CHARS - head;
    let head_end = out.char_indices().nth(head).map_or(out.len(), |(i, _)| i);
    let tail_start = out
        .char_indices()
        .nth(chars - tail)
        .map_or(out.len(), |(i, _)| i);
    format!("{} … {}", &out[..head_end], &out[tail_start..])
}

/// At most [`EXCERPT_CHARS`] characters of one source line around a
/// position, as shown in a diagnostic: escaped, with `…` where the line was
/// cut, and a map from positions in the line to positions in the shown text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Excerpt {
    /// The shown text (one line).
    pub text: String,
    /// (byte in the line, byte in `text`) at every character boundary of
    /// the quoted part of the line, its end included, in order.
    map: Vec<(usize, usize)>,
    /// 1-based column (in characters) of the line where the quoted part
    /// starts.
    first_column: usize,
}

impl Excerpt {
    /// The part of `line` (one line, without its line break) around the
    /// byte offset `focus` (clamped to the line and to a character
    /// boundary).
    pub fn new(line: &str, focus: usize) -> Excerpt {
        let mut focus = focus.min(line.len());
        while !line.is_char_boundary(focus) {
            focus -= 1;
        }
        // Start: at most EXCERPT_BEFORE characters before the focus.
        let mut start = focus;
        let mut before = 0;
        for (i, _) in line[..focus].char_indices().rev() {
            if before == EXCERPT_BEFORE {
                break;
            }
            start = i;
            before += 1;
        }
        // End: fill the rest of the window after the focus, then give any
        // room left back to the start.
        let mut end = focus;
        let mut taken = before;
        for (i, c) in line[focus..].char_indices() {
            if taken == EXCERPT_CHARS {
                break;
            }
            end = focus + i + c.len_utf8();
            taken += 1;
        }
        for (i, _) in line[..start].char_indices().rev() {
            if taken == EXCERPT_CHARS {
                break;
            }
            start = i;
            taken += 1;
        }
        let first_column = if start == 0 {
            1
        } else {
            line[..start].chars().count() + 1
        };
        let mut text = String::new();
        if start > 0 {
            text.push('…');
        }
        let mut map = Vec::with_capacity(EXCERPT_CHARS + 1);
        for (i, c) in line[start..end].char_indices() {
            map.push((start + i, text.len()));
            if needs_escape(c) {
                push_escaped(&mut text, c);
            } else {
                text.push(c);
            }
        }
        map.push((end, text.len()));
        if end < line.len() {
            text.push('…');
        }
        Excerpt {
            text,
            map,
            first_column,
        }
    }

    /// The byte in [`Excerpt::text`] where the character at byte `at` of
    /// the line is shown; positions outside the quoted part go to its edge
    /// (the `…`).
    pub fn shown_byte(&self, at: usize) -> usize {
        let (first, last) = (self.map[0], self.map[self.map.len() - 1]);
        if at < first.0 {
            return 0;
        }
        if at > last.0 {
            return self.text.len();
        }
        match self.map.binary_search_by_key(&at, |m| m.0) {
            Ok(i) => self.map[i].1,
            // Inside a character: its start.
            Err(i) => self.map[i - 1].1,
        }
    }

    /// The byte of the line shown at byte `shown` of [`Excerpt::text`]
    /// (the start of the character whose escape covers it).
    pub fn line_byte(&self, shown: usize) -> usize {
        match self.map.binary_search_by_key(&shown, |m| m.1) {
            Ok(i) => self.map[i].0,
            Err(0) => self.map[0].0,
            Err(i) => self.map[i - 1].0,
        }
    }

    /// The 1-based column (characters of the line) of the line's byte `at`,
    /// for a byte inside or at the edges of the quoted part.
    pub fn column(&self, at: usize) -> usize {
        let i = match self.map.binary_search_by_key(&at, |m| m.0) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        self.first_column + i
    }

    /// The white space that puts a caret under the character at byte `at`
    /// of the line: tabs of the shown text are copied so that the caret
    /// lines up however a terminal shows them.
    pub fn caret_indent(&self, at: usize) -> String {
        let shown = self.shown_byte(at);
        self.text[..shown]
            .chars()
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_except_tab() {
        assert_eq!(escape("a\tb"), "a\tb");
        assert_eq!(escape("\x1b[31mred\0"), "\\x1b[31mred\\0");
        assert_eq!(escape("a\nb\rc\x7f"), "a\\nb\\rc\\x7f");
        assert_eq!(
            escape("\u{85}\u{202e}x\u{feff}"),
            "\\u{85}\\u{202e}x\\u{feff}"
        );
        // Idempotent: an escape is printable text.
        let once = escape("\x1b\u{2066}").into_owned();
        assert_eq!(escape(&once), once);
        assert_eq!(escape_lines("a\x1b\nb"), "a\\x1b\nb");
    }

    #[test]
    fn messages_cut_long_quotes_and_their_middle() {
        let name = "x".repeat(100);
        let m = message(&format!("unknown `{name}` here `ok`"));
        assert_eq!(m, format!("unknown `{}…` here `ok`", "x".repeat(40)));
        assert_eq!(message("a `b"), "a `b");
        let long = format!("start {} end", "y".repeat(5000));
        let m = message(&long);
        assert_eq!(m.chars().count(), MESSAGE_CHARS + 3);
        assert!(m.starts_with("start yyy") && m.ends_with("yyy end"), "{m}");
    }

    #[test]
    fn short_lines_are_shown_whole() {
        let e = Excerpt::new("add r1, \x1b, r3", 8);
        assert_eq!(e.text, "add r1, \\x1b, r3");
        assert_eq!(e.shown_byte(8), 8);
        assert_eq!(e.shown_byte(9), 12);
        assert_eq!(e.line_byte(10), 8);
        assert_eq!(e.column(9), 10);
        assert_eq!(e.caret_indent(9), " ".repeat(12));
        let e = Excerpt::new("\tx", 1);
        assert_eq!(e.caret_indent(1), "\t");
    }

    #[test]
    fn long_lines_are_cut_around_the_focus() {
        let line = format!("{}X{}", "a".repeat(1000), "b".repeat(1000));
        let e = Excerpt::new(&line, 1000);
        // `…` + 40 before + X + 79 after + `…`.
        assert_eq!(e.text.chars().count(), EXCERPT_CHARS + 2);
        assert_eq!(e.text.chars().nth(EXCERPT_BEFORE + 1), Some('X'));
        assert!(e.text.starts_with('…') && e.text.ends_with('…'));
        assert_eq!(e.column(1000), 1001);
        assert_eq!(e.line_byte(e.shown_byte(1000)), 1000);
        // Outside the window: the edges.
        assert_eq!(e.shown_byte(0), 0);
        assert_eq!(e.shown_byte(2001), e.text.len());
        // Near the end of the line the window reaches back further.
        let e = Excerpt::new(&line, 1999);
        assert!(e.text.starts_with('…') && !e.text.ends_with('…'));
        assert_eq!(e.text.chars().count(), EXCERPT_CHARS + 1);
        // Near the start no `…` before.
        let e = Excerpt::new(&line, 3);
        assert!(!e.text.starts_with('…'));
        assert_eq!(e.text.chars().count(), EXCERPT_CHARS + 1);
    }
}
