//! Shared aids of the uarch crate's tests: docs/microarchitecture.md and
//! its Markdown tables.

#![allow(dead_code)]

pub const DOC: &str = include_str!("../../../docs/microarchitecture.md");

/// The rows of the first table after `heading`, cells trimmed.
pub fn table(heading: &str) -> Vec<Vec<String>> {
    let at = DOC.find(heading).unwrap_or_else(|| panic!("no {heading}"));
    DOC[at..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|row| {
            row.trim()
                .trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

/// The `backquoted` pieces of a cell.
pub fn quoted(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}
