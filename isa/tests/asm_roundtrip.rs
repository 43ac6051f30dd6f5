//! Property tests of the encoding, the canonical text and kernel listings:
//!
//! - `decode(encode(i)) == i` for arbitrary valid instructions;
//! - `encode(decode(w)) == w` for every word that decodes;
//! - the canonical text of an instruction assembles to exactly its encoding;
//! - `assemble(disassemble(k))` reproduces `k` byte for byte, symbols
//!   included, for arbitrary code (valid or not) in kernels of the shape the
//!   assembler and the compiler produce.

use concord_isa::asm::{assemble, resources_used};
use concord_isa::container::{Entry, Kernel};
use concord_isa::disasm::{disassemble, disassemble_word};
use concord_isa::encoding::{field, field_mask, operand_fields, Opcode};
use concord_isa::*;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::Union;

/// `cases` cases, no regression files written next to the sources.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn reg() -> impl Strategy<Value = Reg> {
    (0u8..MAX_REGS as u8).prop_map(|i| Reg::new(i).unwrap())
}

fn pred() -> impl Strategy<Value = Pred> {
    (0u8..MAX_PREDS as u8).prop_map(|i| Pred::new(i).unwrap())
}

fn psrc() -> impl Strategy<Value = PredSrc> {
    (pred(), any::<bool>()).prop_map(|(p, n)| PredSrc::new(p, n))
}

/// Values in `lo..=hi`, with the two extremes (and 0 when inside) drawn often.
fn in_range(lo: i32, hi: i32) -> BoxedStrategy<i32> {
    let zero = if lo <= 0 && 0 <= hi { 0 } else { lo };
    prop_oneof![
        1 => Just(lo),
        1 => Just(hi),
        1 => Just(zero),
        4 => lo..=hi,
    ]
    .boxed()
}

fn target() -> BoxedStrategy<u32> {
    in_range(0, MAX_IMEM_WORDS as i32 - 1)
        .prop_map(|t| t as u32)
        .boxed()
}

const IMM_OPS: [AluOp; 8] = [
    AluOp::Add,
    AluOp::Mul,
    AluOp::And,
    AluOp::Or,
    AluOp::Xor,
    AluOp::Shl,
    AluOp::Shr,
    AluOp::Sra,
];

/// Every `Op` variant with every field over its full range.
fn op() -> impl Strategy<Value = Op> {
    Union::new(vec![
        (select(AluOp::ALL.to_vec()), reg(), reg(), reg())
            .prop_map(|(op, rd, rs1, rs2)| Op::Alu { op, rd, rs1, rs2 })
            .boxed(),
        (select(IMM_OPS.to_vec()), reg(), reg())
            .prop_flat_map(|(op, rd, rs1)| {
                let r = op.imm_range();
                in_range(*r.start(), *r.end()).prop_map(move |imm| Op::AluImm { op, rd, rs1, imm })
            })
            .boxed(),
        (reg(), in_range(IMM17_MIN, IMM17_MAX))
            .prop_map(|(rd, imm)| Op::MovI { rd, imm })
            .boxed(),
        (reg(), prop_oneof![Just(0u16), Just(u16::MAX), any::<u16>()])
            .prop_map(|(rd, imm)| Op::MovHi { rd, imm })
            .boxed(),
        (select(Cmp::ALL.to_vec()), pred(), reg(), reg())
            .prop_map(|(cmp, pd, rs1, rs2)| Op::SetP { cmp, pd, rs1, rs2 })
            .boxed(),
        (
            select(Cmp::ALL.to_vec()),
            pred(),
            reg(),
            in_range(IMM10_MIN, IMM10_MAX),
        )
            .prop_map(|(cmp, pd, rs1, imm)| Op::SetPImm { cmp, pd, rs1, imm })
            .boxed(),
        (select(PredOp::ALL.to_vec()), pred(), psrc(), psrc())
            .prop_map(|(op, pd, a, b)| Op::PLogic { op, pd, a, b })
            .boxed(),
        (reg(), psrc(), reg(), reg())
            .prop_map(|(rd, p, rs1, rs2)| Op::Sel { rd, p, rs1, rs2 })
            .boxed(),
        (reg(), select(SpecialReg::ALL.to_vec()))
            .prop_map(|(rd, sreg)| Op::S2R { rd, sreg })
            .boxed(),
        (reg(), 0u8..MAX_PARAM_WORDS as u8)
            .prop_map(|(rd, index)| Op::LdParam { rd, index })
            .boxed(),
        (
            select(Space::ALL.to_vec()),
            select(LoadWidth::ALL.to_vec()),
            reg(),
            reg(),
            in_range(IMM12_MIN, IMM12_MAX),
        )
            .prop_map(|(space, width, rd, base, offset)| Op::Load {
                space,
                width,
                rd,
                base,
                offset,
            })
            .boxed(),
        (
            select(Space::ALL.to_vec()),
            select(StoreWidth::ALL.to_vec()),
            reg(),
            reg(),
            in_range(IMM12_MIN, IMM12_MAX),
        )
            .prop_map(|(space, width, src, base, offset)| Op::Store {
                space,
                width,
                src,
                base,
                offset,
            })
            .boxed(),
        (
            select(Space::ALL.to_vec()),
            select(AtomOp::ALL.to_vec()),
            reg(),
            reg(),
            reg(),
        )
            .prop_map(|(space, op, rd, addr, src)| Op::Atom {
                space,
                op,
                rd,
                addr,
                src,
            })
            .boxed(),
        target().prop_map(|target| Op::Bra { target }).boxed(),
        (select(Consensus::ALL.to_vec()), psrc(), target())
            .prop_map(|(kind, p, target)| Op::BraCons { kind, p, target })
            .boxed(),
        reg().prop_map(|rs| Op::Jmp { rs }).boxed(),
        (reg(), target())
            .prop_map(|(rd, target)| Op::Call { rd, target })
            .boxed(),
        (reg(), reg())
            .prop_map(|(rd, rs)| Op::CallR { rd, rs })
            .boxed(),
        reg().prop_map(|rs| Op::Ret { rs }).boxed(),
        Just(Op::Bar).boxed(),
        Just(Op::Exit).boxed(),
        Just(Op::Nop).boxed(),
        (select(vec![VoteKind::Any, VoteKind::All]), pred(), psrc())
            .prop_map(|(kind, pd, p)| Op::Vote { kind, pd, p })
            .boxed(),
        (reg(), psrc())
            .prop_map(|(rd, p)| Op::Ballot { rd, p })
            .boxed(),
    ])
}

fn instr() -> impl Strategy<Value = Instr> {
    (psrc(), op()).prop_map(|(guard, op)| Instr { guard, op })
}

/// Words with an assigned opcode and random bits in (mostly) its operand
/// fields: a good share of them decode, unlike uniformly random words.
fn structured_word() -> impl Strategy<Value = u32> {
    (
        any::<u32>(),
        1u32..Opcode::ALL.len() as u32,
        any::<u32>(),
        0u32..8,
    )
        .prop_map(|(guard, opcode, bits, stray)| {
            let op = Opcode::from_u32(opcode).unwrap();
            let used = operand_fields(op).iter().fold(0, |m, f| m | field_mask(*f));
            let guard = guard & (field_mask(field::GUARD_NEG) | field_mask(field::GUARD_PRED));
            // Now and then one stray bit anywhere in the operand area.
            let stray = if stray == 0 { 1 << (bits % 22) } else { 0 };
            guard | opcode << field::OPCODE.0 | (bits & used) | stray
        })
}

fn any_word() -> impl Strategy<Value = u32> {
    prop_oneof![any::<u32>(), structured_word(), Just(0u32)]
}

fn assemble_one(text: &str) -> Vec<u32> {
    match assemble(text, "t.s") {
        Ok(k) => k.code,
        Err(e) => panic!("`{text}` does not assemble:\n{e}"),
    }
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn decode_inverts_encode(i in instr()) {
        let w = encode(&i).unwrap();
        prop_assert_eq!(decode(w), Ok(i));
    }

    #[test]
    fn encode_inverts_decode(w in any_word()) {
        if let Ok(i) = decode(w) {
            prop_assert_eq!(encode(&i), Ok(w), "{:#010x} decodes to {:?}", w, i);
        }
    }

    #[test]
    fn canonical_text_assembles_to_the_encoding(i in instr()) {
        let text = i.to_string();
        prop_assert_eq!(assemble_one(&text), vec![encode(&i).unwrap()], "text `{}`", text);
    }

    #[test]
    fn disassembled_words_assemble_back(w in any_word()) {
        let text = disassemble_word(w);
        prop_assert_eq!(assemble_one(&text), vec![w], "text `{}`", text);
    }
}

/// Code of arbitrary words, many of them branches whose targets fall inside
/// the code (so that the listing needs labels).
fn code() -> impl Strategy<Value = Vec<u32>> {
    prop::collection::vec((any_word(), instr(), 0u32..4), 1..48).prop_map(|words| {
        let len = words.len() as u32;
        words
            .into_iter()
            .map(|(w, i, pick)| match pick {
                0 => w,
                1 => encode(&i).unwrap(),
                _ => {
                    let t = i.direct_target().map(|t| t % (len + 1)).unwrap_or(0);
                    encode(&i.with_target(t)).unwrap()
                }
            })
            .collect()
    })
}

/// Kernels of the shape the assembler and the compiler produce: entries
/// and symbols each in address order with distinct valid names (the lone
/// entry `main` at 0 when there is no other), an entry and a symbol sharing
/// a name only at the same address (containers of older assemblers, which
/// listed entries as symbols too), parameters named by any identifier.
fn kernel() -> impl Strategy<Value = Kernel> {
    (
        code(),
        prop::collection::vec((any::<u32>(), "[a-z][a-z0-9_]{0,6}"), 0..4),
        prop::collection::vec("[a-z][a-z0-9_.$]{0,6}", 0..=MAX_PARAM_WORDS),
        prop_oneof![Just(0u32), any::<u32>()],
        prop::collection::vec((any::<u32>(), "[A-Za-z_][a-z0-9]{0,4}"), 0..6),
        prop_oneof![Just(0u32), (0u32..1 << 20).prop_map(|w| w * 4)],
        (any::<bool>(), any::<bool>(), any::<u32>()),
    )
        .prop_map(
            |(code, entries, params, shared_bytes, symbols, stack_bytes, extra)| {
                let (entry_symbols, main_symbol, main_pc) = extra;
                let len = code.len() as u32;
                let mut entries: Vec<Entry> = entries
                    .into_iter()
                    .enumerate()
                    .map(|(i, (pc, name))| Entry {
                        name: format!("e{i}_{name}"),
                        pc: pc % len,
                    })
                    .collect();
                // The assembler lists entries in address order.
                entries.sort_by_key(|e| e.pc);
                let mut symbols: Vec<(String, u32)> = symbols
                    .into_iter()
                    .enumerate()
                    .map(|(i, (pc, name))| (format!("{name}{i}"), pc % (len + 1)))
                    .filter(|(name, _)| concord_isa::asm::is_symbol_name(name))
                    .collect();
                if entries.is_empty() {
                    entries.push(Entry {
                        name: "main".into(),
                        pc: 0,
                    });
                    // A label `main` apart from the default entry.
                    if main_symbol {
                        symbols.push(("main".into(), main_pc % (len + 1)));
                    }
                } else if entry_symbols {
                    symbols.extend(entries.iter().map(|e| (e.name.clone(), e.pc)));
                }
                symbols.sort_by_key(|s| s.1);
                let params = params
                    .into_iter()
                    .enumerate()
                    .map(|(i, p)| format!("a{i}{p}"))
                    .collect();
                let (regs_used, preds_used) = resources_used(&code);
                Kernel {
                    code,
                    entries,
                    params,
                    shared_bytes,
                    regs_used,
                    preds_used,
                    symbols,
                    stack_bytes,
                }
            },
        )
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn listings_reassemble_to_the_same_bytes(k in kernel()) {
        let text = disassemble(&k);
        let back = match assemble(&text, "listing.s") {
            Ok(b) => b,
            Err(e) => panic!("listing does not assemble:\n{e}\n--- listing ---\n{text}"),
        };
        prop_assert_eq!(&back, &k, "listing:\n{}", text);
        prop_assert_eq!(back.to_bytes(), k.to_bytes());
        // Listing the reassembled kernel gives the same text again.
        prop_assert_eq!(disassemble(&back), text);
    }
}

#[test]
fn the_default_entry_gains_no_symbol() {
    // No `.entry`: the entry `main` at 0 and no symbol. Its listing used to
    // write `.entry main`, which added the symbol.
    let k = assemble("nop\nexit\n", "t.s").unwrap();
    assert!(k.symbols.is_empty());
    let back = assemble(&disassemble(&k), "l.s").unwrap();
    assert_eq!(back.to_bytes(), k.to_bytes());
    // An explicit `.entry` is no symbol either, and lists back as one.
    let k = assemble(".entry main\nnop\n.entry other\nexit\n", "t.s").unwrap();
    assert!(k.symbols.is_empty());
    let text = disassemble(&k);
    assert!(
        text.contains(".entry main\n") && text.contains(".entry other\n"),
        "{text}"
    );
    assert_eq!(assemble(&text, "l.s").unwrap().to_bytes(), k.to_bytes());
}

#[test]
fn a_container_of_an_older_assembler_keeps_its_entry_symbols() {
    // Entries listed as symbols too, as the assembler used to write them.
    let k = Kernel {
        code: vec![0x0040_0000, 0x0940_0000, 0x0B80_0000],
        entries: vec![
            Entry {
                name: "main".into(),
                pc: 0,
            },
            Entry {
                name: "tail".into(),
                pc: 2,
            },
        ],
        symbols: vec![("main".into(), 0), ("tail".into(), 2)],
        ..Kernel::default()
    };
    let text = disassemble(&k);
    assert!(text.contains(".entry main\nmain:\n"), "{text}");
    assert!(text.contains("bra main "), "{text}");
    assert_eq!(assemble(&text, "l.s").unwrap().to_bytes(), k.to_bytes());
}

#[test]
fn parameters_may_be_named_like_registers() {
    // C parameters called `p1` or `r2` are common; their listing keeps them.
    let k = Kernel {
        code: vec![0x0482_0001, 0x0B80_0000],
        entries: vec![Entry {
            name: "k".into(),
            pc: 0,
        }],
        params: vec!["r2".into(), "p1".into(), "pt".into()],
        regs_used: 2,
        ..Kernel::default()
    };
    let text = disassemble(&k);
    assert!(
        text.contains(".param p1\n") && text.contains("ldparam r1, p1 "),
        "{text}"
    );
    assert_eq!(assemble(&text, "l.s").unwrap().to_bytes(), k.to_bytes());
}

#[test]
fn setp_reserved_bits_do_not_decode() {
    // Bits 17 and 18 lie under the RD field but outside `setp`'s 3-bit PD:
    // a word with them set must be rejected, or it would decode to the same
    // instruction as the word without them.
    let setp = (Opcode::SetP as u32) << field::OPCODE.0;
    assert!(decode(setp).is_ok());
    assert!(decode(setp | 1 << 17).is_err());
    assert!(decode(setp | 1 << 18).is_err());
}

#[test]
fn listing_sanitizes_names_that_are_not_valid_assembly() {
    let k = Kernel {
        code: vec![0x0940_0001, 0x0B80_0000],
        entries: vec![Entry {
            name: "my kernel".into(),
            pc: 0,
        }],
        params: vec!["r1".into(), "".into(), "x y".into()],
        shared_bytes: 0,
        regs_used: 0,
        preds_used: 0,
        symbols: vec![("1bad".into(), 1), ("ok".into(), 1)],
        stack_bytes: 0,
    };
    let text = disassemble(&k);
    let back = assemble(&text, "l.s").unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back.code, k.code);
    assert_eq!(back.entries[0].name, "my_kernel");
    assert_eq!(back.params, vec!["r1", "_", "x_y"]);
    assert!(text.contains("bra ok"), "{text}");
}
