//! The text being generated: indented lines with their line numbers, so the
//! generator can record where it put each barrier, vote and early return.

/// A growing `.cu` text.
#[derive(Default)]
pub(super) struct Source {
    lines: Vec<String>,
    indent: usize,
}

impl Source {
    /// Appends one line at the current indentation and returns its 1-based
    /// line number.
    pub(super) fn line(&mut self, text: impl AsRef<str>) -> u32 {
        let text = text.as_ref();
        if text.is_empty() {
            self.lines.push(String::new());
        } else {
            self.lines
                .push(format!("{}{}", "    ".repeat(self.indent), text));
        }
        u32::try_from(self.lines.len()).unwrap_or(u32::MAX)
    }

    /// The 1-based number the next line will get.
    pub(super) fn next_line_number(&self) -> u32 {
        u32::try_from(self.lines.len() + 1).unwrap_or(u32::MAX)
    }

    /// `text {` and one level deeper.
    pub(super) fn open(&mut self, text: impl AsRef<str>) {
        let text = text.as_ref();
        if text.is_empty() {
            self.line("{");
        } else {
            self.line(format!("{text} {{"));
        }
        self.indent += 1;
    }

    /// One level shallower and `}` followed by `tail` (e.g. ` else {`).
    pub(super) fn close(&mut self, tail: &str) {
        self.indent = self.indent.saturating_sub(1);
        self.line(format!("}}{tail}"));
    }

    /// One level shallower and then `}` followed by `tail`, reopening a
    /// block at the same level (`} else {`).
    pub(super) fn reopen(&mut self, tail: &str) {
        self.indent = self.indent.saturating_sub(1);
        self.line(format!("}}{tail}"));
        self.indent += 1;
    }

    pub(super) fn finish(self) -> String {
        let mut text = self.lines.join("\n");
        text.push('\n');
        text
    }
}
