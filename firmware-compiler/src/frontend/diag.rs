//! Source diagnostics of the front end: errors and warnings with a byte
//! span, plus their rendering through `codespan-reporting`.
//!
//! Every stage of the front end (lexer, preprocessor, parser, semantic
//! checks, lowering) reports problems as [`Diagnostic`]s instead of failing
//! early or panicking; [`super::compile_source`] fills in the line and
//! column of each one before handing them out.

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::{self, Files};
use codespan_reporting::term::{self, termcolor::NoColor};
use concord_isa::show::{self, Excerpt};

/// A half-open byte range `start..end` of the source text.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end.max(start) as u32,
        }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Severity {
    Error,
    Warning,
}

/// One problem found in the source.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    /// Where the problem is; the caret of the rendering.
    pub span: Span,
    /// 1-based line and column of `span.start` (filled in by
    /// [`super::compile_source`]; 0 until then).
    pub line: u32,
    pub col: u32,
    /// Extra labelled places (e.g. the earlier declaration).
    pub labels: Vec<(Span, String)>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span,
            line: 0,
            col: 0,
            labels: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(span, message)
        }
    }

    pub fn with_label(mut self, span: Span, text: impl Into<String>) -> Diagnostic {
        self.labels.push((span, text.into()));
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Maps byte offsets to 1-based line and column numbers (columns count
/// characters, not bytes).
#[derive(Clone, Debug)]
pub struct LineIndex<'a> {
    src: &'a str,
    line_starts: Vec<usize>,
    /// Per line: only ASCII, so a column is a byte difference. Counting
    /// characters from the line start for every position would make one
    /// long line (a flat chain of thousands of terms) quadratic.
    ascii: Vec<bool>,
}

impl<'a> LineIndex<'a> {
    pub fn new(src: &'a str) -> LineIndex<'a> {
        let mut line_starts = vec![0];
        line_starts.extend(src.match_indices('\n').map(|(i, _)| i + 1));
        let ascii = src.split('\n').map(str::is_ascii).collect();
        LineIndex {
            src,
            line_starts,
            ascii,
        }
    }

    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let offset = (offset as usize).min(self.src.len());
        let line = match self.line_starts.binary_search(&offset) {
            Ok(l) => l,
            Err(l) => l - 1,
        };
        let start = self.line_starts[line];
        let col = if self.ascii.get(line).copied().unwrap_or(false) {
            offset - start
        } else {
            self.src
                .get(start..offset)
                .map_or(offset - start, |s| s.chars().count())
        };
        (line as u32 + 1, col as u32 + 1)
    }

    /// Fills in `line` and `col` of every diagnostic.
    pub fn locate(&self, diags: &mut [Diagnostic]) {
        for d in diags {
            let (line, col) = self.line_col(d.span.start);
            d.line = line;
            d.col = col;
        }
    }
}

/// Clamps a span to the source and to character boundaries so that
/// codespan never sees an invalid range.
fn clamp(span: Span, src: &str) -> std::ops::Range<usize> {
    let fix = |mut i: usize| {
        i = i.min(src.len());
        while i > 0 && !src.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = fix(span.start as usize);
    let end = fix(span.end as usize).max(start);
    start..end
}

/// One source line as a diagnostic shows it.
struct ShownLine {
    /// 0-based line index in the source.
    index: usize,
    /// Byte offset of the line in the source.
    start: usize,
    /// The part of the line shown, escaped.
    excerpt: Excerpt,
    /// Where `excerpt.text` sits in [`View::text`].
    range: std::ops::Range<usize>,
}

/// What codespan sees of the source for one diagnostic: only the lines the
/// diagnostic points at, each cut to an [`Excerpt`] around its first label
/// and escaped, while line and column numbers stay those of the source.
/// So a control character never reaches the terminal and a 10 MB line is
/// quoted as a hundred characters.
struct View {
    name: String,
    text: String,
    lines: Vec<ShownLine>,
    /// (line index, byte in `text`, column in the source) of each label's
    /// start, so that the header's column is exact even where the excerpt
    /// cannot show the position (a line break, a `\r`).
    starts: Vec<(usize, usize, usize)>,
}

impl View {
    /// The view for labels at `spans` (the primary first). Returns the view
    /// and the spans mapped into it.
    fn new(src: &str, file: &str, spans: &[Span]) -> (View, Vec<std::ops::Range<usize>>) {
        let index_of = |at: usize| src[..at].matches('\n').count();
        let start_of = |at: usize| src[..at].rfind('\n').map_or(0, |i| i + 1);
        let end_of = |start: usize| {
            let end = src[start..].find('\n').map_or(src.len(), |i| start + i);
            if src[start..end].ends_with('\r') {
                end - 1
            } else {
                end
            }
        };
        let next_start =
            |start: usize| src[start..].find('\n').map_or(src.len(), |i| start + i + 1);
        // (line index, line start, focus): the lines to quote, each cut
        // around its first label.
        let mut wanted: Vec<(usize, usize, usize)> = Vec::new();
        fn want(wanted: &mut Vec<(usize, usize, usize)>, index: usize, start: usize, focus: usize) {
            if !wanted.iter().any(|w| w.0 == index) {
                wanted.push((index, start, focus));
            }
        }
        let mut labels = Vec::new();
        for span in spans {
            let r = clamp(*span, src);
            // A span ending with a line break ends on that line.
            let last = if r.end > r.start && src[..r.end].ends_with('\n') {
                r.end - 1
            } else {
                r.end
            };
            let (first_index, first_start) = (index_of(r.start), start_of(r.start));
            want(&mut wanted, first_index, first_start, r.start);
            let last_index = first_index + src[r.start..last].matches('\n').count();
            let last_start = start_of(last);
            if last_index > first_index {
                // Codespan shows up to three lines after the first of a
                // multi-line label and one before its last.
                let mut start = first_start;
                for index in first_index + 1..(first_index + 4).min(last_index) {
                    start = next_start(start);
                    want(&mut wanted, index, start, start);
                }
                if last_index > first_index + 1 {
                    let start = start_of(last_start - 1);
                    want(&mut wanted, last_index - 1, start, start);
                }
                want(&mut wanted, last_index, last_start, last);
            }
            labels.push((first_index, r.start, last_index, last));
        }
        // Codespan shows a single line between two quoted ones instead of
        // a break: quote it too.
        let mut by_index = wanted.clone();
        by_index.sort_by_key(|w| w.0);
        for pair in by_index.windows(2) {
            if pair[1].0 == pair[0].0 + 2 {
                let start = next_start(pair[0].1);
                want(&mut wanted, pair[0].0 + 1, start, start);
            }
        }
        wanted.sort_by_key(|w| w.0);
        let mut text = String::new();
        let mut lines = Vec::new();
        for (index, start, focus) in wanted {
            let excerpt = Excerpt::new(&src[start..end_of(start)], focus - start);
            let range = text.len()..text.len() + excerpt.text.len();
            text.push_str(&excerpt.text);
            // Every line ends with a break, as in a source, so that
            // codespan treats the last one like the others.
            text.push('\n');
            lines.push(ShownLine {
                index,
                start,
                excerpt,
                range,
            });
        }
        let mut view = View {
            name: show::escape(file).into_owned(),
            text,
            lines,
            starts: Vec::new(),
        };
        let mut mapped = Vec::new();
        for (first, start, last, end) in labels {
            let shown = |index: usize, at: usize| {
                let line = view.line(index);
                line.range.start + line.excerpt.shown_byte(at.saturating_sub(line.start))
            };
            let range = shown(first, start)..shown(last, end).max(shown(first, start));
            let column = src[view.line(first).start..start].chars().count() + 1;
            view.starts.push((first, range.start, column));
            mapped.push(range);
        }
        (view, mapped)
    }

    fn line(&self, index: usize) -> &ShownLine {
        let i = self
            .lines
            .binary_search_by_key(&index, |l| l.index)
            .unwrap_or_else(|i| i.min(self.lines.len() - 1));
        &self.lines[i]
    }
}

impl<'a> Files<'a> for View {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, _: ()) -> Result<&'a str, files::Error> {
        Ok(&self.name)
    }

    fn source(&'a self, _: ()) -> Result<&'a str, files::Error> {
        Ok(&self.text)
    }

    fn line_index(&'a self, _: (), byte_index: usize) -> Result<usize, files::Error> {
        let i = match self
            .lines
            .binary_search_by_key(&byte_index, |l| l.range.start)
        {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        Ok(self.lines.get(i).map_or(0, |l| l.index))
    }

    fn column_number(
        &'a self,
        _: (),
        line_index: usize,
        byte_index: usize,
    ) -> Result<usize, files::Error> {
        if let Some(&(.., column)) = self
            .starts
            .iter()
            .find(|s| s.0 == line_index && s.1 == byte_index)
        {
            return Ok(column);
        }
        let line = self.line(line_index);
        let at = line
            .excerpt
            .line_byte(byte_index.saturating_sub(line.range.start));
        Ok(line.excerpt.column(at))
    }

    fn line_range(
        &'a self,
        _: (),
        line_index: usize,
    ) -> Result<std::ops::Range<usize>, files::Error> {
        let line = self.line(line_index);
        // With its line break, like `SimpleFile`.
        Ok(line.range.start..line.range.end + 1)
    }
}

/// Renders diagnostics as plain text (no colour): `file:line:col`, the
/// source line and a caret, for tests and the command line. What is quoted
/// from the source goes through [`concord_isa::show`]: control characters
/// escaped, long quotes in messages cut, and only an excerpt of each long
/// line shown (see [`View`]).
pub fn render(diags: &[Diagnostic], src: &str, file: &str) -> String {
    let config = term::Config::default();
    let mut out = NoColor::new(Vec::new());
    for d in diags.iter().take(MAX_RENDERED) {
        let mut spans = vec![d.span];
        spans.extend(d.labels.iter().map(|(span, _)| *span));
        let (view, ranges) = View::new(src, file, &spans);
        let mut ranges = ranges.into_iter();
        let mut labels = vec![Label::primary((), ranges.next().unwrap_or_default())];
        for ((_, text), range) in d.labels.iter().zip(ranges) {
            labels.push(Label::secondary((), range).with_message(show::message(text)));
        }
        let cs = match d.severity {
            Severity::Error => CsDiagnostic::error(),
            Severity::Warning => CsDiagnostic::warning(),
        }
        .with_message(show::message(&d.message))
        .with_labels(labels)
        .with_notes(d.notes.iter().map(|n| show::message(n)).collect());
        // Writing into a Vec cannot fail; a failure would only lose text.
        let _ = term::emit(&mut out, &config, &view, &cs);
    }
    let mut text = String::from_utf8_lossy(&out.into_inner()).into_owned();
    if let Some(rest) = diags.get(MAX_RENDERED..).filter(|rest| !rest.is_empty()) {
        let errors = rest.iter().filter(|d| d.is_error()).count();
        let warnings = rest.len() - errors;
        text += &format!(
            "note: {errors} more error(s) and {warnings} more warning(s) in {} not shown (only the first {MAX_RENDERED} diagnostics are)\n",
            show::escape(file)
        );
    }
    text
}

/// The most diagnostics one rendering shows, as gcc's `-fmax-errors`: a
/// mangled file can hold an error per line, and a report of megabytes
/// helps no one.
pub const MAX_RENDERED: usize = 20;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one() {
        let idx = LineIndex::new("ab\ncd\n");
        assert_eq!(idx.line_col(0), (1, 1));
        assert_eq!(idx.line_col(1), (1, 2));
        assert_eq!(idx.line_col(3), (2, 1));
        assert_eq!(idx.line_col(100), (3, 1));
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config {
            cases: 500,
            failure_persistence: None,
            ..Default::default()
        })]

        /// Any source and any spans: no panic, nothing a terminal acts on,
        /// and the header names the line and column `LineIndex` gives.
        #[test]
        fn render_locates_any_span_and_prints_only_text(
            src in "([a-z{}; ]|\n|\r\n|\x1b|\x00|é|\u{202e}){0,200}",
            spans in proptest::collection::vec((0u32..260, 0u32..260), 1..4),
        ) {
            let mut d = Diagnostic::error(Span { start: spans[0].0, end: spans[0].1 }, "m\x07");
            for (a, b) in &spans[1..] {
                d = d.with_label(Span { start: *a, end: *b }, "l\x1b");
            }
            let text = render(&[d], &src, "f\x1b.cu");
            proptest::prop_assert!(
                !text.chars().any(|c| c.is_control() && c != '\n'),
                "{:?}", text
            );
            let start = clamp(Span { start: spans[0].0, end: spans[0].1 }, &src).start;
            let (line, col) = LineIndex::new(&src).line_col(start as u32);
            let header = format!("f\\x1b.cu:{line}:{col}\n");
            proptest::prop_assert!(text.contains(&header), "{} in {:?}", header, text);
        }
    }

    #[test]
    fn render_shows_position_and_caret() {
        let src = "int x;\nfoo bar;\n";
        let d = Diagnostic::error(Span::new(7, 10), "unknown identifier `foo`");
        let text = render(&[d], src, "k.cu");
        assert!(text.contains("error: unknown identifier `foo`"), "{text}");
        assert!(text.contains("k.cu:2:1"), "{text}");
        assert!(text.contains("^^^"), "{text}");
    }
}
