//! `docs/isa.md` agrees with the assembler: its worked encodings, its
//! example program and its example listing.

use concord_isa::asm::assemble;
use concord_isa::disasm::disassemble;

const DOC: &str = include_str!("../../docs/isa.md");

/// The first fenced block after the heading line `heading`.
fn block_after(heading: &str) -> &'static str {
    let at = DOC
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("no heading `{heading}` in docs/isa.md"));
    let rest = &DOC[at..];
    let start = rest.find("```").unwrap();
    let body = &rest[start..];
    let body = &body[body.find('\n').unwrap() + 1..];
    &body[..body.find("```").unwrap()]
}

#[test]
fn worked_encodings() {
    let block = block_after("### Worked examples");
    let mut n = 0;
    for line in block.lines().filter(|l| !l.trim().is_empty()) {
        let hex_at = line.find(" 0x").expect("a word on every line") + 1;
        let text = line[..hex_at].trim();
        let word = u32::from_str_radix(&line[hex_at + 2..hex_at + 10], 16).unwrap();
        let k = assemble(text, "doc.s").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(k.code, vec![word], "`{text}`");
        n += 1;
    }
    assert_eq!(n, 5);
}

#[test]
fn example_program_assembles() {
    let k = assemble(block_after("### Example"), "doc.s").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(k.params, vec!["n", "a", "out"]);
    assert_eq!(k.code.len(), 17);
}

#[test]
fn example_listing_is_what_disassemble_prints() {
    let listing = block_after("## 7. Disassembly");
    let k = assemble(listing, "doc.s").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(disassemble(&k), listing);
}
