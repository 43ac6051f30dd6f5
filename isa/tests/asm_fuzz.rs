//! Robustness: the assembler and the disassembler never panic, whatever
//! they are given. Case counts are kept small enough for a debug build to
//! finish in a few seconds.

use concord_isa::asm::assemble;
use concord_isa::container::{Entry, Kernel};
use concord_isa::disasm::disassemble;
use proptest::prelude::*;
use proptest::sample::select;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

const MNEMONICS: &[&str] = &[
    "add",
    "sub",
    "mulhi",
    "shl",
    "sra",
    "minu",
    "movi",
    "movhi",
    "setp.lt",
    "setp.geu",
    "pand",
    "por",
    "pxor",
    "pmov",
    "sel",
    "s2r",
    "ldparam",
    "ld.global",
    "ld.shared.s8",
    "st.global.b16",
    "st.shared",
    "atom.global.add",
    "atom.shared.exch",
    "bra",
    "bra.any",
    "bra.none",
    "bra.all",
    "jmp",
    "call",
    "callr",
    "ret",
    "bar.sync",
    "bar",
    "exit",
    "nop",
    "vote.any",
    "vote.all",
    "vote.ballot",
    "mov",
    "li",
    "ad",
    "ld.local",
];

const DIRECTIVES: &[&str] = &[".entry", ".param", ".shared", ".word", ".equ", ".foo", "."];

/// Operands that are valid somewhere.
const GOOD_OPERANDS: &[&str] = &[
    "r0", "r1", "r31", "p1", "pt", "!p1", "%tid.x", "%laneid", "0", "-1", "4", "0x10", "loop", "n",
    "N", "[r1]", "[r2+4]", "[r2 - 8]",
];

const OTHER_TOKENS: &[&str] = &[
    "r32",
    "r99",
    "x1",
    "p0",
    "p7",
    "p8",
    "!",
    "@p1",
    "@!pt",
    "@",
    "%bogus",
    "%",
    "2047",
    "2048",
    "-2048",
    "65535",
    "65536",
    "0xffffffff",
    "0x100000000",
    "0b101",
    "0x",
    "-",
    "99999999999999999999999",
    "12ab",
    "loop:",
    "main",
    "L1:",
    ".L$x:",
    "N",
    ":",
    "r3:",
    ",",
    ", ",
    "[",
    "]",
    "+",
    " ",
    "\t",
    "\n",
    "\r\n",
    ";",
    "// c",
    "; comment",
    "é",
    "\u{0}",
    "::",
];

fn tokens() -> Vec<&'static str> {
    [MNEMONICS, DIRECTIVES, GOOD_OPERANDS, OTHER_TOKENS].concat()
}

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(select(tokens()), 0..40).prop_map(|ts| {
        let mut s = String::new();
        for t in ts {
            s.push_str(t);
            if !t.ends_with('\n') && !t.ends_with(' ') {
                s.push(' ');
            }
        }
        s
    })
}

/// Like [`token_soup`] but without separating spaces, so tokens run into
/// each other (`r1,[r2+4]`, `@p1exit`).
fn token_run() -> impl Strategy<Value = String> {
    prop::collection::vec(select(tokens()), 0..40).prop_map(|ts| ts.concat())
}

/// Statements that assemble in the prelude of [`near_valid`].
const VALID_LINES: &[&str] = &[
    "add r1, r2, N",
    "sub r3, r3, r1",
    "shl r1, r1, 31",
    "movi r2, loop",
    "movhi r2, 0xffff",
    "li r4, 0x12345678",
    "li r5, -7",
    "setp.lt p1, r1, r2",
    "setp.geu p2, r1, -512",
    "pmov p3, !p1",
    "pxor p1, p2, !pt",
    "sel r1, !p2, r3, r4",
    "s2r r6, %tid.x",
    "ldparam r7, n",
    "ld.global.s8 r1, [r2 - 8]",
    "st.shared.b16 [r1+2], r2",
    "atom.global.minu r1, [r2], r3",
    "@p1 bra loop",
    "bra.all !p2, loop",
    "call r31, loop",
    "callr r30, r1",
    "@!p1 ret r31",
    "jmp r2",
    "bar.sync",
    "vote.ballot r9, p1",
    "vote.all p4, !p3",
    "mov r1, r2",
    "nop",
    ".word loop, 0x7",
    "here: nop",
    "@!pt exit",
];

/// Programs of valid statements, half of them with one plausible but
/// random line (a guard, a mnemonic, operands valid somewhere) inserted.
fn near_valid() -> impl Strategy<Value = String> {
    let random_line = (
        prop::option::of(select(&["@p1 ", "@!p2 ", "@pt ", "@p9 "][..])),
        select(MNEMONICS),
        prop::collection::vec(select(GOOD_OPERANDS), 0..4),
    )
        .prop_map(|(g, m, ops)| format!("{}{m} {}", g.unwrap_or(""), ops.join(", ")));
    (
        prop::collection::vec(select(VALID_LINES), 0..8),
        prop::option::of(random_line),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(lines, extra, at)| {
            let mut lines: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            if let Some(extra) = extra {
                let at = at.index(lines.len() + 1);
                lines.insert(at, extra);
            }
            format!(".param n\n.equ N, 3\nloop:\n{}\nexit", lines.join("\n"))
        })
}

proptest! {
    #![proptest_config(config(1500))]

    #[test]
    fn arbitrary_text_never_panics(s in any::<String>()) {
        let _ = assemble(&s, "fuzz.s");
    }

    #[test]
    fn printable_text_never_panics(s in "[ -~\t\n]{0,80}") {
        let _ = assemble(&s, "fuzz.s");
    }

    #[test]
    fn token_soup_never_panics(s in token_soup()) {
        let _ = assemble(&s, "fuzz.s");
    }

    #[test]
    fn token_runs_never_panic(s in token_run()) {
        let _ = assemble(&s, "fuzz.s");
    }

    #[test]
    fn near_valid_programs_never_panic(s in near_valid()) {
        match assemble(&s, "fuzz.s") {
            // Whatever assembles lists and assembles again to the same code.
            Ok(k) => {
                let text = disassemble(&k);
                let back = assemble(&text, "listing.s")
                    .unwrap_or_else(|e| panic!("{e}\n--- source ---\n{s}\n--- listing ---\n{text}"));
                prop_assert_eq!(back.code, k.code);
            }
            // Errors point inside the source.
            Err(e) => {
                let lines: Vec<&str> = s.split('\n').collect();
                prop_assert!(e.line >= 1 && e.line <= lines.len().max(1), "{}", e);
                let line = lines.get(e.line - 1).copied().unwrap_or("");
                prop_assert!(e.column >= 1 && e.column <= line.chars().count() + 1, "{}", e);
                prop_assert!(e.caret >= 1 && e.caret <= e.source_line.chars().count() + 1, "{}", e);
            }
        }
    }

    #[test]
    fn disassembling_any_kernel_never_panics(
        code in prop::collection::vec(any::<u32>(), 0..24),
        entries in prop::collection::vec((any::<String>(), any::<u32>()), 0..4),
        params in prop::collection::vec(any::<String>(), 0..20),
        symbols in prop::collection::vec((any::<String>(), any::<u32>()), 0..6),
        shared_bytes in any::<u32>(),
        stack_bytes in any::<u32>(),
    ) {
        let k = Kernel {
            code,
            entries: entries.into_iter().map(|(name, pc)| Entry { name, pc }).collect(),
            params,
            shared_bytes,
            regs_used: 0,
            preds_used: 0,
            symbols,
            stack_bytes,
        };
        let text = disassemble(&k);
        let _ = assemble(&text, "listing.s");
    }
}
