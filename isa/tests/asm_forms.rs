//! One test per instruction form, with expected words worked out by hand
//! from the field table in `encoding.rs`:
//!
//! ```text
//! neg 31 | gpred 30..28 | opcode 27..22 | RD 21..17 / PD 21..19 | RS1 16..12 | RS2 11..7 | FUNC 3..0
//! ```
//!
//! Each test also checks the canonical text (`Display`) and that the text
//! assembles back to the same word.

use concord_isa::asm::assemble;
use concord_isa::container::Entry;
use concord_isa::disasm::{disassemble, disassemble_word};
use concord_isa::*;

fn words(source: &str) -> Vec<u32> {
    assemble(source, "t.s")
        .unwrap_or_else(|e| panic!("{e}"))
        .code
}

/// `source` assembles to `word`, and `word` disassembles to `canonical`.
#[track_caller]
fn form(source: &str, word: u32, canonical: &str) {
    assert_eq!(
        words(source),
        vec![word],
        "`{source}`: expected {word:#010x}"
    );
    assert_eq!(disassemble_word(word), canonical);
    assert_eq!(words(canonical), vec![word], "canonical `{canonical}`");
}

#[test]
fn alu_register_form() {
    // opcode 2: 2<<22 = 0x0080_0000; rd 1<<17; rs1 2<<12; rs2 3<<7; func add = 0
    form("add r1, r2, r3", 0x0082_2180, "add r1, r2, r3");
    // sub = func 1; rd 31<<17 = 0x3e_0000; rs2 17<<7 = 0x880
    form("sub r31, r0, r17", 0x00BE_0881, "sub r31, r0, r17");
    // mulhiu = func 4
    form("mulhiu r1, r2, r3", 0x0082_2184, "mulhiu r1, r2, r3");
    // maxu = func 14
    form("maxu r1, r1, r1", 0x0082_108E, "maxu r1, r1, r1");
}

#[test]
fn alu_immediate_form() {
    // addi = opcode 3 (0x00c0_0000), guard !p1 = 0x9000_0000, imm -5 = 0xffb
    form("@!p1 add r1, r2, -5", 0x90C2_2FFB, "@!p1 add r1, r2, -5");
    // andi = opcode 5 (0x0140_0000), imm -2048 = 0x800
    form("and r1, r2, -2048", 0x0142_2800, "and r1, r2, -2048");
    // shli = opcode 8 (0x0200_0000), rd 2, rs1 3, imm 31
    form("shl r2, r3, 31", 0x0204_301F, "shl r2, r3, 31");
    // xori = opcode 7 (0x01c0_0000), imm 0x7ff
    form("xor r0, r0, 0x7ff", 0x01C0_07FF, "xor r0, r0, 2047");
}

#[test]
fn movi_and_movhi() {
    // movi = opcode 11 (0x02c0_0000), rd 5 = 0xa_0000, imm17 -1 = 0x1_ffff
    form("movi r5, -1", 0x02CB_FFFF, "movi r5, -1");
    form("movi r5, 0b101", 0x02CA_0005, "movi r5, 5");
    // movhi = opcode 12 (0x0300_0000)
    form("movhi r5, 0x1234", 0x030A_1234, "movhi r5, 0x1234");
}

#[test]
fn setp_register_and_immediate() {
    // setp = opcode 13 (0x0340_0000), pd 3<<19, rs1 4<<12, rs2 5<<7, ltu = 6
    form("setp.ltu p3, r4, r5", 0x0358_4286, "setp.ltu p3, r4, r5");
    // setpi = opcode 14 (0x0380_0000), pd 7<<19, cmp ge=5 <<15, rs1 1<<10, imm10 -512 = 0x200
    form("setp.ge p7, r1, -512", 0x03BA_8600, "setp.ge p7, r1, -512");
    // eq = 0, pd pt
    form("setp.eq pt, r0, r0", 0x0340_0000, "setp.eq pt, r0, r0");
}

#[test]
fn predicate_logic() {
    // opcode 15 (0x03c0_0000), pd 1<<19, !a 1<<18, a=p2 2<<15, b=p3 3<<11, or = 1
    form("por p1, !p2, p3", 0x03CD_1801, "por p1, !p2, p3");
    form("pxor p1, p1, !pt", 0x03C8_C002, "pxor p1, p1, !pt");
    // pmov p2, !p4 = pand p2, !p4, pt
    form("pmov p2, !p4", 0x03D6_0000, "pmov p2, !p4");
    form("pand p2, !p4, pt", 0x03D6_0000, "pmov p2, !p4");
}

#[test]
fn select() {
    // opcode 16 (0x0400_0000), rd 1<<17, !p 1<<14, p2 2<<11, rs1 3<<6, rs2 4<<1
    form("sel r1, !p2, r3, r4", 0x0402_50C8, "sel r1, !p2, r3, r4");
}

#[test]
fn special_registers() {
    // opcode 17 (0x0440_0000), code of %tid = 18, %ctaid.y = 7
    form("s2r r1, %tid", 0x0442_0012, "s2r r1, %tid");
    form("s2r r2, %ctaid.y", 0x0444_0007, "s2r r2, %ctaid.y");
    for (code, s) in SpecialReg::ALL.iter().enumerate() {
        let text = format!("s2r r0, %{}", s.name());
        assert_eq!(words(&text), vec![0x0440_0000 | code as u32], "{text}");
    }
}

#[test]
fn kernel_parameters() {
    // opcode 18 (0x0480_0000), rd 3<<17, index 15
    form("ldparam r3, 15", 0x0486_000F, "ldparam r3, 15");
    let k = assemble(".param a\n.param b\nldparam r1, b\nldparam r2, a\n", "t.s").unwrap();
    assert_eq!(k.code, vec![0x0482_0001, 0x0484_0000]);
}

#[test]
fn loads() {
    // ld.global.u8 = opcode 24 (0x0600_0000)
    form(
        "ld.global.u8 r1, [r2+4]",
        0x0602_2004,
        "ld.global.u8 r1, [r2+4]",
    );
    // ld.shared.b32 = opcode 23 (0x05c0_0000), offset -8 = 0xff8
    form(
        "ld.shared r1, [r2-8]",
        0x05C2_2FF8,
        "ld.shared.b32 r1, [r2-8]",
    );
    form(
        "ld.shared.b32 r1, [ r2 - 8 ]",
        0x05C2_2FF8,
        "ld.shared.b32 r1, [r2-8]",
    );
    // ld.global.s16 = opcode 27 (0x06c0_0000), no offset
    form(
        "ld.global.s16 r0, [r31]",
        0x06C1_F000,
        "ld.global.s16 r0, [r31]",
    );
    form(
        "ld.global.s16 r0, [r31 + 0]",
        0x06C1_F000,
        "ld.global.s16 r0, [r31]",
    );
}

#[test]
fn stores() {
    // st.shared.b32 = opcode 31 (0x07c0_0000), src in RD: 4<<17, base 3<<12, -8
    form(
        "st.shared.b32 [r3-8], r4",
        0x07C8_3FF8,
        "st.shared.b32 [r3-8], r4",
    );
    // st.global.b8 = opcode 32 (0x0800_0000)
    form(
        "st.global.b8 [r1 + 0x10], r2",
        0x0804_1010,
        "st.global.b8 [r1+16], r2",
    );
    // width omitted = b32: st.global.b32 = opcode 34 (0x0880_0000)
    form("st.global [r1], r2", 0x0884_1000, "st.global.b32 [r1], r2");
}

#[test]
fn atomics() {
    // atom.global = opcode 36 (0x0900_0000), exch = func 1
    form(
        "atom.global.exch r1, [r2], r3",
        0x0902_2181,
        "atom.global.exch r1, [r2], r3",
    );
    // atom.shared = opcode 35 (0x08c0_0000), xor = func 8
    form(
        "atom.shared.xor r1, [r2], r3",
        0x08C2_2188,
        "atom.shared.xor r1, [r2], r3",
    );
}

#[test]
fn branches() {
    // bra = opcode 37 (0x0940_0000)
    form("bra 12", 0x0940_000C, "bra 12");
    // bra.any = opcode 39 (0x09c0_0000), !p2: neg 1<<21, pred 2<<18
    form("bra.any !p2, 12", 0x09E8_000C, "bra.any !p2, 12");
    // bra.none = opcode 38 (0x0980_0000), p1 1<<18, target 0xffff
    form("bra.none p1, 65535", 0x0984_FFFF, "bra.none p1, 65535");
    // bra.all = opcode 40 (0x0a00_0000)
    form("bra.all pt, 0", 0x0A00_0000, "bra.all pt, 0");
}

#[test]
fn jumps_calls_returns() {
    // jmp = 41 (0x0a40_0000), rs in RS1
    form("jmp r7", 0x0A40_7000, "jmp r7");
    // call = 42 (0x0a80_0000), rd 31<<17, target 100
    form("call r31, 100", 0x0ABE_0064, "call r31, 100");
    // callr = 43 (0x0ac0_0000)
    form("callr r1, r2", 0x0AC2_2000, "callr r1, r2");
    // ret = 44 (0x0b00_0000)
    form("ret r1", 0x0B00_1000, "ret r1");
}

#[test]
fn operandless() {
    form("bar.sync", 0x0B40_0000, "bar.sync");
    form("bar", 0x0B40_0000, "bar.sync");
    form("exit", 0x0B80_0000, "exit");
    form("nop", 0x0040_0000, "nop");
    // guards: @p7 = 7<<28, @!pt = 1<<31
    form("@p7 exit", 0x7B80_0000, "@p7 exit");
    form("@!pt nop", 0x8040_0000, "@!pt nop");
    form("@pt nop", 0x0040_0000, "nop");
    form("@ ! p3 nop", 0xB040_0000, "@!p3 nop");
}

#[test]
fn votes() {
    // vote = 47 (0x0bc0_0000): all = func 1, pd 3<<19, !p1 = 1<<14 | 1<<11
    form("vote.all p3, !p1", 0x0BD8_4801, "vote.all p3, !p1");
    form("vote.any p1, pt", 0x0BC8_0000, "vote.any p1, pt");
    // ballot = func 2, rd 2<<17, p5 5<<11
    form("vote.ballot r2, p5", 0x0BC4_2802, "vote.ballot r2, p5");
}

#[test]
fn pseudo_instructions() {
    // mov r3, r4 = add r3, r4, 0 (opcode 3)
    form("mov r3, r4", 0x00C6_4000, "mov r3, r4");
    form("add r3, r4, 0", 0x00C6_4000, "mov r3, r4");
    // li: one movi when the value fits 17 signed bits, else movi lo16 + movhi hi16
    assert_eq!(words("li r1, -2"), vec![0x02C3_FFFE]);
    assert_eq!(words("li r1, 65535"), vec![0x02C2_FFFF]);
    assert_eq!(words("li r1, 0xffff0000"), vec![0x02C3_0000]); // -65536
    assert_eq!(words("li r1, 65536"), vec![0x02C2_0000, 0x0302_0001]);
    assert_eq!(words("li r1, 0x12345678"), vec![0x02C2_5678, 0x0302_1234]);
    assert_eq!(
        words("@!p2 li r1, 0x80000000"),
        vec![0xA2C2_0000, 0xA302_8000]
    );
    assert_eq!(words("li r1, -2147483648"), vec![0x02C2_0000, 0x0302_8000]);
    // li with a label or a constant
    assert_eq!(words("nop\nl: li r1, l"), vec![0x0040_0000, 0x02C2_0001]);
    assert_eq!(
        words("li r1, BIG\n.equ BIG, 0x10000"),
        vec![0x02C2_0000, 0x0302_0001]
    );
}

#[test]
fn labels_and_targets() {
    let k = assemble(
        "top: nop\n  bra.any p1, top\nmid:\n  call r1, end\nend: bra mid\n",
        "t.s",
    )
    .unwrap();
    assert_eq!(
        k.code,
        vec![0x0040_0000, 0x09C4_0000, 0x0A82_0003, 0x0940_0002]
    );
    assert_eq!(
        k.symbols,
        vec![("top".into(), 0), ("mid".into(), 2), ("end".into(), 3)]
    );
    // Several labels on a line, odd identifier characters, label with no space.
    let k = assemble("a: b:.L$1:nop\nbra .L$1", "t.s").unwrap();
    assert_eq!(k.code[1], 0x0940_0000);
    assert_eq!(k.symbols.len(), 3);
}

#[test]
fn directives_fill_the_kernel() {
    let src = "\
; a kernel with everything
.param n
.param out
.shared 0x100
.equ FOUR, 4
.equ ALSO_FOUR, FOUR
.entry main
    s2r r1, %tid.x          ; 0
    ldparam r2, n           // 1
    setp.ge p1, r1, r2      ; 2
    @p1 exit                ; 3
loop: add r1, r1, FOUR      ; 4
    ld.global r3, [r1 - ALSO_FOUR] ; 5
    bra.any !p2, loop       ; 6
    .word loop, 0xdeadbeef, -1 ; 7, 8, 9
.entry second
    exit                    ; 10
";
    let k = assemble(src, "t.s").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(k.code.len(), 11);
    assert_eq!(k.code[4], 0x00C2_1004);
    assert_eq!(k.code[5], 0x0706_1FFC); // ld.global.b32 = 28 (0x0700_0000), rd 3, rs1 1, -4
    assert_eq!(k.code[7..10], [4, 0xDEAD_BEEF, 0xFFFF_FFFF]);
    assert_eq!(
        k.entries,
        vec![
            Entry {
                name: "main".into(),
                pc: 0
            },
            Entry {
                name: "second".into(),
                pc: 10
            }
        ]
    );
    assert_eq!(k.params, vec!["n", "out"]);
    assert_eq!(k.shared_bytes, 256);
    assert_eq!(k.regs_used, 4);
    assert_eq!(k.preds_used, 3);
    // Labels only: entries have their own table.
    assert_eq!(k.symbols, vec![("loop".into(), 4)]);
}

#[test]
fn implicit_entry_and_resource_counts() {
    let k = assemble("exit", "t.s").unwrap();
    assert_eq!(
        k.entries,
        vec![Entry {
            name: "main".into(),
            pc: 0
        }]
    );
    assert_eq!((k.regs_used, k.preds_used, k.shared_bytes), (0, 0, 0));
    assert!(k.params.is_empty() && k.symbols.is_empty());
    // `@pt` is the default guard and does not count; `pt` as an operand does.
    assert_eq!(assemble("@pt exit", "t.s").unwrap().preds_used, 0);
    assert_eq!(assemble("@!pt exit", "t.s").unwrap().preds_used, 1);
    assert_eq!(assemble("vote.any pt, pt", "t.s").unwrap().preds_used, 1);
    assert_eq!(assemble("@p6 jmp r0", "t.s").unwrap().preds_used, 7);
    assert_eq!(assemble("@p6 jmp r0", "t.s").unwrap().regs_used, 1);
    assert_eq!(
        assemble("sel r9, p2, r1, r31", "t.s").unwrap().regs_used,
        32
    );
}

#[test]
fn listing_uses_labels_entries_and_parameter_names() {
    let src = "\
.param n
.shared 64
.entry main
    ldparam r1, n
loop:
    bra.any p1, loop
    call r2, func
    .word 0
.entry other
func:
    ret r2
";
    let k = assemble(src, "t.s").unwrap();
    let text = disassemble(&k);
    let expected = "\
; Concord kernel: 5 words
.param n
.shared 64

.entry main
    ldparam r1, n                   ; 0: 0x04820000
loop:
    bra.any p1, loop                ; 1: 0x09c40001
    call r2, func                   ; 2: 0x0a840004
    .word 0x00000000                ; 3: 0x00000000
.entry other
func:
    ret r2                          ; 4: 0x0b002000
";
    assert_eq!(text, expected);
    let back = assemble(&text, "l.s").unwrap();
    assert_eq!(back, k);
}

#[test]
fn listing_prints_unnamed_targets_as_addresses() {
    // A label would add a symbol the container does not have.
    let k = assemble("bra 2\nnop\nexit\nbra 4\n", "t.s").unwrap();
    let text = disassemble(&k);
    let expected = "\
; Concord kernel: 4 words
; entry main at 0: the assembler's default, no `.entry` needed
    bra 2                           ; 0: 0x09400002
    nop                             ; 1: 0x00400000
    exit                            ; 2: 0x0b800000
    bra 4                           ; 3: 0x09400004
";
    assert_eq!(text, expected);
    assert_eq!(assemble(&text, "l.s").unwrap().to_bytes(), k.to_bytes());
}

#[test]
fn stack_directive_sets_the_per_thread_stack() {
    let k = concord_isa::asm::assemble(".stack 0x40\n.entry main\nexit\n", "k.s").unwrap();
    assert_eq!(k.stack_bytes, 64);
    let listing = concord_isa::disasm::disassemble(&k);
    assert!(listing.contains(".stack 64\n"), "{listing}");
    let plain = concord_isa::asm::assemble("exit\n", "k.s").unwrap();
    assert_eq!(plain.stack_bytes, 0);
}
