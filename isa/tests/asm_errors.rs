//! Assembler diagnostics: every error kind with its exact line, column and
//! message, and the `Display` layout.

use concord_isa::asm::{assemble, assemble_all, AsmError};

fn error(source: &str) -> AsmError {
    match assemble(source, "t.s") {
        Ok(k) => panic!("`{source}` assembled to {k:?}"),
        Err(e) => e,
    }
}

/// Asserts the first error is at `line:col` with exactly `message`.
#[track_caller]
fn check(source: &str, line: usize, col: usize, message: &str) {
    let e = error(source);
    assert_eq!(
        (e.line, e.column, e.message.as_str()),
        (line, col, message),
        "\n{e}"
    );
}

#[test]
fn display_has_location_source_line_and_caret() {
    let e = error("nop\n    ad r1, r2\n");
    assert_eq!(
        e.to_string(),
        "t.s:2:5: unknown mnemonic `ad`\n    ad r1, r2\n    ^"
    );
    assert_eq!(e.file, "t.s");
    assert_eq!(e.source_line, "    ad r1, r2");
}

#[test]
fn caret_follows_tabs_and_columns_count_characters() {
    let e = error("\tadd r1, r2, r3x");
    assert_eq!(e.column, 14);
    assert_eq!(
        e.to_string(),
        "t.s:1:14: `r3x` is neither a register nor a defined constant\n\tadd r1, r2, r3x\n\t            ^"
    );
    // `é` is two bytes but one column.
    check("é: nop", 1, 1, "expected an instruction, found `é`");
    check(
        "nop ; é\nadd r1, r2, r9é",
        2,
        15,
        "unexpected `é` after the operands",
    );
}

#[test]
fn unknown_mnemonic() {
    check("nop\n  ad r1, r2", 2, 3, "unknown mnemonic `ad`");
    check("ADD r1, r2, r3", 1, 1, "unknown mnemonic `ADD`");
    check("@p1 frob", 1, 5, "unknown mnemonic `frob`");
    check(
        "ld.local.b32 r1, [r2]",
        1,
        1,
        "unknown mnemonic `ld.local.b32`",
    );
    check(
        "st.global.u8 [r1], r2",
        1,
        1,
        "unknown mnemonic `st.global.u8`",
    );
    check("setp.lx p1, r1, r2", 1, 1, "unknown mnemonic `setp.lx`");
    check("bra.some p1, 0", 1, 1, "unknown mnemonic `bra.some`");
    check("@p1 .word 3", 1, 5, "a directive cannot be guarded");
}

#[test]
fn bad_register() {
    check("add r1, r32, r3", 1, 9, "bad register `r32`");
    check("add x1, r2, r3", 1, 5, "bad register `x1`");
    check("add r1, r2, r40", 1, 13, "bad register `r40`");
    check("sub r1, r2, x1", 1, 13, "bad register `x1`");
    check("jmp R1", 1, 5, "bad register `R1`");
    check("mov r1, r01", 1, 9, "bad register `r01`");
    check("ld.global r1, [x2+4]", 1, 16, "bad register `x2`");
    check("ld.global r1, [4]", 1, 16, "bad register `4`");
    check("atom.shared.add r1, [r2], p3", 1, 27, "bad register `p3`");
    check("ret [r1]", 1, 5, "expected a register, found `[`");
}

#[test]
fn bad_predicate() {
    check("@p8 exit", 1, 2, "bad predicate `p8`");
    check("@!r1 exit", 1, 3, "bad predicate `r1`");
    check("pand p1, p2, q3", 1, 14, "bad predicate `q3`");
    check(
        "setp.eq !p1, r1, r2",
        1,
        9,
        "expected a predicate, found `!`",
    );
    check("@p1", 1, 4, "missing instruction after the guard");
}

#[test]
fn undefined_label() {
    check("nop\nbra nowhere", 2, 5, "undefined label `nowhere`");
    check("call r1, f\nexit", 1, 10, "undefined label `f`");
    check("bra.any p1, out\nexit", 1, 13, "undefined label `out`");
    check("li r1, table\nexit", 1, 8, "undefined label `table`");
    check(".word there\n", 1, 7, "undefined label `there`");
    check(
        "add r1, r2, LIMIT",
        1,
        13,
        "`LIMIT` is neither a register nor a defined constant",
    );
    check("ld.shared r1, [r2+OFF]", 1, 19, "undefined constant `OFF`");
    check("ldparam r1, count", 1, 13, "undefined parameter `count`");
    check(
        ".equ A, B\nexit",
        1,
        9,
        "undefined constant `B` (a `.equ` value may only use constants defined above it)",
    );
}

#[test]
fn duplicate_label() {
    check(
        "a: nop\nb: nop\n  a: exit",
        3,
        3,
        "duplicate label `a` (first defined on line 1)",
    );
    check(
        ".entry main\nnop\nmain: exit",
        3,
        1,
        "duplicate label `main`: the entry point `main` is at address 0, this label at 1 (an entry and a label may share a name only at the same address)",
    );
    check(
        "k: nop\n.entry k\nexit",
        2,
        8,
        "duplicate label `k`: the label `k` is at address 0, this entry point at 1 (an entry and a label may share a name only at the same address)",
    );
    check(
        ".entry main\nmain:\nmain: exit",
        3,
        1,
        "duplicate label `main` (first defined on line 1)",
    );
    check(
        ".entry k\n.entry k\nexit",
        2,
        8,
        "duplicate label `k` (first defined on line 1)",
    );
    check(
        "x: nop\n.equ x, 3",
        2,
        6,
        "duplicate constant `x` (first defined on line 1)",
    );
    check(".param n\n.param n\nexit", 2, 8, "duplicate parameter `n`");
    check(
        ".shared 4\n.shared 8\nexit",
        2,
        1,
        "duplicate `.shared` directive",
    );
    check(
        ".stack 8\n.stack 8\nexit",
        2,
        1,
        "duplicate `.stack` directive",
    );
    check(
        ".stack 6\nexit",
        1,
        8,
        "stack size 6 is not a multiple of 4",
    );
    check(
        "r3: exit",
        1,
        1,
        "`r3` is a register name and cannot be a label",
    );
}

#[test]
fn immediate_out_of_range() {
    check(
        "add r1, r2, 2048",
        1,
        13,
        "immediate 2048 out of range -2048..=2047",
    );
    check(
        "mul r1, r2, -2049",
        1,
        13,
        "immediate -2049 out of range -2048..=2047",
    );
    check("shl r1, r2, 32", 1, 13, "immediate 32 out of range 0..=31");
    check("sra r1, r2, -1", 1, 13, "immediate -1 out of range 0..=31");
    check(
        "movi r1, 65536",
        1,
        10,
        "immediate 65536 out of range -65536..=65535",
    );
    check(
        "movi r1, -65537",
        1,
        10,
        "immediate -65537 out of range -65536..=65535",
    );
    check(
        "movhi r1, 0x10000",
        1,
        11,
        "immediate 65536 out of range 0..=65535",
    );
    check(
        "setp.lt p1, r1, 512",
        1,
        17,
        "immediate 512 out of range -512..=511",
    );
    check(
        "ld.global r1, [r2+2048]",
        1,
        19,
        "offset 2048 out of range -2048..=2047",
    );
    check(
        "st.shared [r2 - 2049], r1",
        1,
        17,
        "offset -2049 out of range -2048..=2047",
    );
    check(
        "ldparam r1, 16",
        1,
        13,
        "parameter index 16 out of range 0..=15",
    );
    check("bra 65536", 1, 5, "target 65536 out of range 0..=65535");
    check("call r1, -1", 1, 10, "target -1 out of range 0..=65535");
    check(
        "li r1, 0x100000000",
        1,
        8,
        "constant 4294967296 out of range -2147483648..=4294967295",
    );
    check(
        ".word -2147483649\n",
        1,
        7,
        "constant -2147483649 out of range -2147483648..=4294967295",
    );
    check(
        ".equ BIG, 5000\nadd r1, r1, BIG",
        2,
        13,
        "immediate 5000 out of range -2048..=2047",
    );
    check(
        "movi r1, 99999999999999999999",
        1,
        10,
        "number `99999999999999999999` is too large",
    );
    check("movi r1, 12ab", 1, 10, "bad number `12ab`");
}

#[test]
fn no_immediate_form() {
    check("sub r1, r2, 5", 1, 13, "`sub` has no immediate form");
    check("minu r1, r2, -1", 1, 14, "`minu` has no immediate form");
}

#[test]
fn missing_operand() {
    check(
        "add r1, r2",
        1,
        11,
        "missing operand: expected a register or an immediate",
    );
    check(
        "add r1, r2,   ; comment",
        1,
        12,
        "missing operand: expected a register or an immediate",
    );
    check("bra", 1, 4, "missing operand: expected a label or address");
    check(
        "sel r1, p1, r2",
        1,
        15,
        "missing operand: expected a register",
    );
    check(
        "vote.any p1",
        1,
        12,
        "missing operand: expected a predicate",
    );
    check(
        "s2r r1",
        1,
        7,
        "missing operand: expected a special register `%name`",
    );
    check(
        "ld.shared r1",
        1,
        13,
        "missing operand: expected a memory operand `[rN+offset]`",
    );
    check(
        "ld.shared r1, [r2+]",
        1,
        19,
        "expected an offset, found `]`",
    );
    check(
        "ld.shared r1, [r2",
        1,
        18,
        "expected `]`, found end of line",
    );
    check(".entry", 1, 7, "missing operand: expected an entry name");
    check(".equ X", 1, 7, "missing operand: expected a value");
    check(
        "add r1 r2, r3",
        1,
        8,
        "expected `,` before a register, found `r2`",
    );
}

#[test]
fn extra_operand_and_trailing_garbage() {
    check(
        "add r1, r2, r3, r4",
        1,
        17,
        "extra operand: `add` takes 3 operands",
    );
    check("jmp r1, r2", 1, 9, "extra operand: `jmp` takes 1 operand");
    check("exit now", 1, 6, "unexpected `now` after the operands");
    check("bar.sync 1", 1, 10, "unexpected `1` after the operands");
    check(
        "add r1, r2, r3,",
        1,
        15,
        "trailing `,` after the last operand",
    );
    check(
        "ld.global r1, [r2] + 4",
        1,
        20,
        "unexpected `+` after the operands",
    );
    check(
        "atom.global.add r1, [r2+4], r3",
        1,
        25,
        "`atom` takes no address offset: write `[rN]`",
    );
    check(
        ".param n m",
        1,
        10,
        "unexpected `m` after the parameter name",
    );
    check("nop # x", 1, 5, "unexpected `#` after the operands");
}

#[test]
fn bad_directive() {
    check(".foo 3", 1, 1, "unknown directive `.foo`");
    check("  .Entry main\nexit", 1, 3, "unknown directive `.Entry`");
    check(
        ".entry r1\nexit",
        1,
        8,
        "`r1` is a register name and cannot name an entry",
    );
    check(".param 3x\nexit", 1, 8, "bad parameter name `3x`");
    check(
        "nop\n.entry main\n",
        2,
        8,
        "entry `main` is not followed by any instruction",
    );
    let many: String = (0..17)
        .map(|i| format!(".param p_{i}\n"))
        .collect::<String>()
        + "exit";
    check(
        &many,
        17,
        8,
        "too many parameters: a kernel has at most 16 parameter words",
    );
}

#[test]
fn program_too_large() {
    let src = "nop\n".repeat(65_536) + "exit\n";
    check(
        &src,
        65_537,
        1,
        "the program exceeds the instruction memory limit of 65536 words",
    );
    let src = "nop\n".repeat(65_535) + "li r1, 0x12345678\n";
    check(
        &src,
        65_536,
        1,
        "the program exceeds the instruction memory limit of 65536 words",
    );
    assert!(assemble(&"nop\n".repeat(65_536), "t.s").is_ok());
}

#[test]
fn unknown_special_register() {
    check("s2r r1, %tid.w", 1, 9, "unknown special register `%tid.w`");
    check("s2r r1, %TID", 1, 9, "unknown special register `%TID`");
    check(
        "s2r r1, tid.x",
        1,
        9,
        "expected a special register `%name`, found `tid.x`",
    );
}

#[test]
fn empty_program() {
    check("", 1, 1, "the program has no instructions");
    check(
        "; only a comment\n\nstart:\n.param n\n",
        1,
        1,
        "the program has no instructions",
    );
}

#[test]
fn every_error_of_a_stage_is_reported_in_order() {
    let errors = assemble_all("add r1, r2\nnop\nfoo r1\n  jmp r99\n", "t.s").unwrap_err();
    let at: Vec<(usize, usize)> = errors.0.iter().map(|e| (e.line, e.column)).collect();
    assert_eq!(at, vec![(1, 11), (3, 1), (4, 7)]);
    let text = errors.to_string();
    assert_eq!(text.lines().count(), 9, "{text}");
}

#[test]
fn crlf_line_endings_are_accepted() {
    let k = assemble("nop\r\nexit\r\n", "t.s").unwrap();
    assert_eq!(k.code.len(), 2);
    let e = error("nop\r\nbad r1\r\n");
    assert_eq!(e.source_line, "bad r1");
}

/// The characters a terminal acts on: none may reach it from a source.
fn has_raw_controls(text: &str) -> bool {
    text.chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
}

#[test]
fn control_characters_are_escaped_in_messages_and_source_lines() {
    // An escape sequence inside a name, a NUL and a DEL on the line.
    let e = error("nop\n  bra x\x1b[2J\0\x7f\n");
    let text = e.to_string();
    assert!(!has_raw_controls(&text), "{text:?}");
    assert_eq!(
        text,
        "t.s:2:8: unexpected `\\x1b` after the operands\n  bra x\\x1b[2J\\0\\x7f\n       ^"
    );
    // The file name too.
    let e = assemble("ad r1", "t\x1b].s").unwrap_err();
    assert!(e.to_string().starts_with("t\\x1b].s:1:1: "), "{e}");
}

#[test]
fn a_long_line_is_quoted_once_around_the_column() {
    let name = "x".repeat(10_000_000);
    let e = error(&format!("nop\n  add r1, r2, {name} ; tail"));
    assert_eq!((e.line, e.column), (2, 15));
    let text = e.to_string();
    // Message, an excerpt of the line, the caret: far from 10 MB.
    assert!(text.len() < 600, "{} bytes", text.len());
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].starts_with("t.s:2:15: `xxxx"), "{}", lines[0]);
    assert!(lines[1].starts_with("  add r1, r2, xxx") && lines[1].ends_with('…'));
    assert_eq!(lines[2], format!("{}^", " ".repeat(14)));
    // A column deep inside the line: the excerpt starts with `…`, and the
    // caret is under the character the column names.
    let e = error(&format!("nop\n  .word {name}, 1, 2, r1"));
    let text = e.to_string();
    assert!(text.len() < 600, "{} bytes", text.len());
    assert_eq!(e.column, 8 + 10_000_000 + 8 + 1);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[1].starts_with('…') && lines[1].ends_with(", 1, 2, r1"),
        "{text}"
    );
    let caret = lines[2].chars().count() - 1;
    assert_eq!(lines[1].chars().skip(caret).collect::<String>(), "r1");
}

#[test]
fn a_stage_reports_a_bounded_number_of_errors() {
    // Undefined names on one long line: each would copy the line into its
    // error (with 60,000 names, 25 GB).
    let names: Vec<String> = (0..5_000).map(|i| format!("u{i}")).collect();
    let src = format!(".word {}\n", names.join(", "));
    let errors = assemble_all(&src, "t.s").unwrap_err();
    assert_eq!(errors.0.len(), 100);
    assert_eq!(errors.0[0].message, "undefined label `u0`");
    assert_eq!(errors.0[99].message, "undefined label `u99`");
}
