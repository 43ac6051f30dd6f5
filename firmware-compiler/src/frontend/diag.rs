//! Source diagnostics of the front end: errors and warnings with a byte
//! span, plus their rendering through `codespan-reporting`.
//!
//! Every stage of the front end (lexer, preprocessor, parser, semantic
//! checks, lowering) reports problems as [`Diagnostic`]s instead of failing
//! early or panicking; [`super::compile_source`] fills in the line and
//! column of each one before handing them out.

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor::NoColor};

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

/// Renders diagnostics as plain text (no colour): `file:line:col`, the
/// source line and a caret, for tests and the command line.
pub fn render(diags: &[Diagnostic], src: &str, file: &str) -> String {
    let files = SimpleFile::new(file, src);
    let config = term::Config::default();
    let mut out = NoColor::new(Vec::new());
    for d in diags {
        let mut labels = vec![Label::primary((), clamp(d.span, src))];
        for (span, text) in &d.labels {
            labels.push(Label::secondary((), clamp(*span, src)).with_message(text.clone()));
        }
        let cs = match d.severity {
            Severity::Error => CsDiagnostic::error(),
            Severity::Warning => CsDiagnostic::warning(),
        }
        .with_message(d.message.clone())
        .with_labels(labels)
        .with_notes(d.notes.clone());
        // Writing into a Vec cannot fail; a failure would only lose text.
        let _ = term::emit(&mut out, &config, &files, &cs);
    }
    String::from_utf8_lossy(&out.into_inner()).into_owned()
}

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
