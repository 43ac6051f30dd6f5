//! The kernel binary container: exact layout, round trips, every rejection
//! with its message, and decoding arbitrary bytes without panicking.

use concord_isa::asm::resources_used;
use concord_isa::container::{ContainerError, Entry, Kernel, FORMAT_VERSION, MAGIC};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

/// `exit` (opcode 46 in bits 27..22, guard `pt`).
const EXIT: u32 = 0x0B80_0000;

fn sample() -> Kernel {
    Kernel {
        code: vec![EXIT],
        entries: vec![Entry {
            name: "main".into(),
            pc: 0,
        }],
        params: vec!["n".into()],
        shared_bytes: 16,
        regs_used: 3,
        preds_used: 1,
        symbols: vec![("main".into(), 0)],
        stack_bytes: 0,
    }
}

/// `sample()` encoded by hand, following docs/container.md.
#[rustfmt::skip]
const SAMPLE_BYTES: [u8; 69] = [
    b'C', b'N', b'C', b'D',          //  0: magic
    0x01, 0x00,                      //  4: version 1
    0x00, 0x00,                      //  6: reserved
    0x01, 0x00, 0x00, 0x00,          //  8: code count 1
    0x00, 0x00, 0x80, 0x0B,          // 12: code[0] = exit
    0x01, 0x00, 0x00, 0x00,          // 16: entry count 1
    0x04, 0x00, 0x00, 0x00,          // 20: entries[0].name length 4
    b'm', b'a', b'i', b'n',          // 24: "main"
    0x00, 0x00, 0x00, 0x00,          // 28: entries[0].pc 0
    0x01, 0x00, 0x00, 0x00,          // 32: param count 1
    0x01, 0x00, 0x00, 0x00,          // 36: params[0] length 1
    b'n',                            // 40: "n"
    0x10, 0x00, 0x00, 0x00,          // 41: shared_bytes 16
    0x03, 0x00, 0x00, 0x00,          // 45: regs_used 3
    0x01, 0x00, 0x00, 0x00,          // 49: preds_used 1
    0x01, 0x00, 0x00, 0x00,          // 53: symbol count 1
    0x04, 0x00, 0x00, 0x00,          // 57: symbols[0].name length 4
    b'm', b'a', b'i', b'n',          // 61: "main"
    0x00, 0x00, 0x00, 0x00,          // 65: symbols[0].pc 0
];

fn load_err(bytes: &[u8]) -> String {
    Kernel::from_bytes(bytes).unwrap_err().to_string()
}

fn patched(at: usize, new: &[u8]) -> Vec<u8> {
    let mut b = SAMPLE_BYTES.to_vec();
    b[at..at + new.len()].copy_from_slice(new);
    b
}

#[test]
fn sample_encodes_to_the_documented_bytes_and_back() {
    assert_eq!(MAGIC, *b"CNCD");
    assert_eq!(FORMAT_VERSION, 2);
    assert_eq!(sample().to_bytes(), SAMPLE_BYTES.to_vec());
    assert_eq!(Kernel::from_bytes(&SAMPLE_BYTES).unwrap(), sample());
}

#[test]
fn a_kernel_with_a_stack_is_version_2_with_stack_bytes_last() {
    let k = Kernel {
        stack_bytes: 264,
        ..sample()
    };
    let mut expected = SAMPLE_BYTES.to_vec();
    expected[4] = 2;
    expected.extend_from_slice(&[0x08, 0x01, 0x00, 0x00]); // 69: stack_bytes = 264
    assert_eq!(k.to_bytes(), expected);
    assert_eq!(Kernel::from_bytes(&expected).unwrap(), k);
    // Version 1 has no such field: the same 4 bytes are trailing garbage.
    let mut v1 = expected.clone();
    v1[4] = 1;
    assert_eq!(
        load_err(&v1),
        "byte 69: 4 trailing bytes after the end of the container"
    );
    // Version 2 always has one, and it is not 0 (that is version 1).
    let mut zero = expected.clone();
    zero[69] = 0;
    zero[70] = 0;
    assert_eq!(
        load_err(&zero),
        "byte 69: stack_bytes is 0 in a version-2 container (a kernel without a stack is written as version 1)"
    );
    zero[69] = 6;
    assert_eq!(
        load_err(&zero),
        "byte 69: stack_bytes: 6 is not a multiple of 4 (the per-thread stack holds words)"
    );
    let mut short = expected;
    short.truncate(71);
    assert_eq!(
        load_err(&short),
        "byte 69: truncated: reading stack_bytes needs 4 bytes, only 2 left"
    );
}

#[test]
fn bad_magic() {
    assert_eq!(
        load_err(&patched(0, b"ELF!")),
        "byte 0: bad magic \"ELF!\": not a Concord kernel container (expected \"CNCD\")"
    );
    assert_eq!(
        load_err(&patched(0, &[0x7f, 0, 1, 2])),
        "byte 0: bad magic 7f 00 01 02: not a Concord kernel container (expected \"CNCD\")"
    );
}

#[test]
fn unsupported_version() {
    assert_eq!(
        load_err(&patched(4, &[7, 0])),
        "byte 4: unsupported container version 7 (this build reads 1..=2)"
    );
    assert_eq!(
        load_err(&patched(4, &[0, 1])),
        "byte 4: unsupported container version 256 (this build reads 1..=2)"
    );
}

#[test]
fn reserved_header_field_must_be_zero() {
    assert_eq!(
        load_err(&patched(6, &[1, 0])),
        "byte 6: reserved header field must be 0, found 1"
    );
}

#[test]
fn truncation_says_what_and_where() {
    assert_eq!(
        load_err(&[]),
        "byte 0: truncated: reading the magic number needs 4 bytes, only 0 left"
    );
    assert_eq!(
        load_err(&SAMPLE_BYTES[..5]),
        "byte 4: truncated: reading the format version needs 2 bytes, only 1 left"
    );
    assert_eq!(
        load_err(&SAMPLE_BYTES[..10]),
        "byte 8: truncated: reading code count needs 4 bytes, only 2 left"
    );
    assert_eq!(
        load_err(&SAMPLE_BYTES[..26]),
        "byte 16: truncated: entries count 1 needs at least 8 more bytes (8 per entry), only 6 left"
    );
    assert_eq!(
        load_err(&SAMPLE_BYTES[..30]),
        "byte 28: truncated: reading entries[0].pc needs 4 bytes, only 2 left"
    );
    assert_eq!(
        load_err(&SAMPLE_BYTES[..47]),
        "byte 45: truncated: reading regs_used needs 4 bytes, only 2 left"
    );
    assert_eq!(
        load_err(&SAMPLE_BYTES[..68]),
        "byte 65: truncated: reading symbols[0].pc needs 4 bytes, only 3 left"
    );
    // Every proper prefix is rejected as truncated.
    for n in 0..SAMPLE_BYTES.len() {
        let e = load_err(&SAMPLE_BYTES[..n]);
        assert!(e.contains("truncated"), "prefix of {n} bytes: {e}");
    }
}

#[test]
fn implausible_counts_are_truncation_not_allocation() {
    assert_eq!(
        load_err(&patched(8, &[0xff; 4])),
        "byte 8: truncated: code count 4294967295 needs at least 17179869180 more bytes (4 per word), only 57 left"
    );
    assert_eq!(
        load_err(&patched(16, &[0, 0, 0, 0x10])),
        "byte 16: truncated: entries count 268435456 needs at least 2147483648 more bytes (8 per entry), only 49 left"
    );
    assert_eq!(
        load_err(&patched(32, &[100, 0, 0, 0])),
        "byte 32: truncated: params count 100 needs at least 400 more bytes (4 per parameter), only 33 left"
    );
    assert_eq!(
        load_err(&patched(53, &[3, 0, 0, 0])),
        "byte 53: truncated: symbols count 3 needs at least 24 more bytes (8 per symbol), only 12 left"
    );
    // A string length larger than what is left.
    assert_eq!(
        load_err(&patched(20, &[0xff, 0xff, 0xff, 0x7f])),
        "byte 24: truncated: reading entries[0].name needs 2147483647 bytes, only 45 left"
    );
}

#[test]
fn trailing_bytes() {
    let mut b = SAMPLE_BYTES.to_vec();
    b.push(0);
    assert_eq!(
        load_err(&b),
        "byte 69: 1 trailing byte after the end of the container"
    );
    b.extend_from_slice(&[1, 2]);
    assert_eq!(
        load_err(&b),
        "byte 69: 3 trailing bytes after the end of the container"
    );
}

#[test]
fn invalid_utf8_names_the_string_and_the_byte() {
    assert_eq!(
        load_err(&patched(25, &[0xff])),
        "byte 25: entries[0].name is not valid UTF-8"
    );
    assert_eq!(
        load_err(&patched(40, &[0xc3])),
        "byte 40: params[0] is not valid UTF-8"
    );
    assert_eq!(
        load_err(&patched(63, &[0x80])),
        "byte 63: symbols[0].name is not valid UTF-8"
    );
}

/// A rule violation found in bytes carries the field's offset; the same
/// violation in memory is reported by `validate` without one.
fn both(k: &Kernel) -> (String, String) {
    (
        Kernel::from_bytes(&k.to_bytes()).unwrap_err().to_string(),
        k.validate().unwrap_err().to_string(),
    )
}

#[test]
fn entry_pc_outside_code() {
    let mut k = sample();
    k.entries[0].pc = 1;
    assert_eq!(
        both(&k),
        (
            "byte 28: entries[0].pc: 1 is outside the code (1 word, pc 0..=0)".into(),
            "entries[0].pc: 1 is outside the code (1 word, pc 0..=0)".into()
        )
    );
}

#[test]
fn symbol_outside_code() {
    let mut k = sample();
    // Just past the end is allowed: a label may mark the end of the code.
    k.symbols[0].1 = 1;
    k.validate().unwrap();
    k.symbols[0].1 = 2;
    assert_eq!(
        both(&k).0,
        "byte 65: symbols[0].pc: 2 is outside the code (1 word, a symbol may be at 0..=1)"
    );
}

#[test]
fn empty_code() {
    let mut k = sample();
    k.code.clear();
    assert_eq!(
        both(&k),
        (
            "byte 8: code: the kernel has no code".into(),
            "code: the kernel has no code".into()
        )
    );
}

#[test]
fn code_larger_than_any_instruction_memory() {
    let mut k = sample();
    k.code = vec![EXIT; 65537];
    assert_eq!(
        both(&k).0,
        "byte 8: code: 65537 words exceed the instruction memory limit of 65536 words"
    );
}

#[test]
fn no_entries() {
    let mut k = sample();
    k.entries.clear();
    assert_eq!(
        both(&k).0,
        "byte 16: entries: the kernel has no entry point"
    );
}

#[test]
fn duplicate_and_empty_entry_names() {
    let mut k = sample();
    k.code.push(EXIT);
    k.entries.push(Entry {
        name: "main".into(),
        pc: 1,
    });
    assert_eq!(
        both(&k).0,
        "byte 36: entries[1].name: duplicate entry name `main` (also entries[0])"
    );
    k.entries[1].name.clear();
    assert_eq!(both(&k).1, "entries[1].name: entry name is empty");
}

#[test]
fn too_many_registers_and_predicates() {
    let mut k = sample();
    k.regs_used = 33;
    assert_eq!(
        both(&k).0,
        "byte 45: regs_used: 33 is more than the 32 general registers of the ISA"
    );
    k.regs_used = 32;
    k.preds_used = 9;
    assert_eq!(
        both(&k).0,
        "byte 49: preds_used: 9 is more than the 8 predicate registers of the ISA"
    );
    k.preds_used = 8;
    k.validate().unwrap();
}

/// A header that declares fewer registers or predicates than the code uses
/// passes the launch check on a core too small for the code, where each
/// model then computes a different wrong result: the loader compares the
/// header with every instruction. Offsets: code[i] is at byte 12 + 4i.
#[test]
fn the_header_must_cover_the_registers_and_predicates_the_code_uses() {
    let src = "
        ldparam r28, 0
        s2r r29, %tid
        shl r30, r29, 2
        add r28, r28, r30
        setp.lt p7, r29, 4
        movi r31, 7
        @p7 movi r31, 9
        st.global [r28], r31
        exit
    ";
    let honest = concord_isa::asm::assemble(src, "lie.s").unwrap();
    assert_eq!((honest.regs_used, honest.preds_used), (32, 8));
    let mut k = Kernel {
        regs_used: 1,
        preds_used: 1,
        ..honest.clone()
    };
    assert_eq!(
        both(&k),
        (
            "byte 12: code[0]: `ldparam r28, 0` uses r28, but the header's regs_used is 1".into(),
            "code[0]: `ldparam r28, 0` uses r28, but the header's regs_used is 1".into()
        )
    );
    // Registers are declared; the first predicate past the count is at pc 4.
    k.regs_used = 32;
    assert_eq!(
        both(&k).0,
        "byte 28: code[4]: `setp.lt p7, r29, 4` uses p7, but the header's preds_used is 1"
    );
    k.preds_used = 7;
    assert_eq!(
        both(&k).1,
        "code[4]: `setp.lt p7, r29, 4` uses p7, but the header's preds_used is 7"
    );
    // Declaring more than the code uses is allowed.
    k.preds_used = 8;
    k.validate().unwrap();
    // `r31` alone, after the first instruction that fits.
    let k = Kernel {
        code: vec![EXIT, honest.code[5]],
        regs_used: 31,
        preds_used: 0,
        ..sample()
    };
    assert_eq!(
        both(&k).0,
        "byte 16: code[1]: `movi r31, 7` uses r31, but the header's regs_used is 31"
    );
    // `pt` exists on every core: code that only names `pt` needs no count,
    // and a word that does not decode uses nothing (it traps if executed).
    let bra_all_pt = concord_isa::asm::assemble(
        "bra.all pt, 0
",
        "pt.s",
    )
    .unwrap();
    let k = Kernel {
        code: vec![bra_all_pt.code[0], 0xFFFF_FFFF, EXIT],
        regs_used: 0,
        preds_used: 0,
        ..sample()
    };
    assert!(concord_isa::decode(0xFFFF_FFFF).is_err());
    k.validate().unwrap();
    assert_eq!(Kernel::from_bytes(&k.to_bytes()).unwrap(), k);
}

#[test]
fn too_many_and_duplicate_params() {
    let mut k = sample();
    k.params = (0..17).map(|i| format!("p{i}")).collect();
    assert_eq!(
        both(&k).0,
        "byte 32: params: 17 parameters, more than the 16 parameter words `ldparam` can address"
    );
    k.params.truncate(16);
    k.validate().unwrap();
    k.params = vec!["a".into(), "b".into(), "a".into()];
    assert_eq!(
        both(&k).1,
        "params[2]: duplicate parameter name `a` (also params[0])"
    );
}

#[test]
fn entry_lookup() {
    let mut k = sample();
    assert_eq!(k.entry(None).unwrap().name, "main");
    assert_eq!(k.entry(Some("main")).unwrap().pc, 0);
    assert_eq!(
        k.entry(Some("mian")).unwrap_err().to_string(),
        "no entry point named `mian`; the kernel has: main"
    );
    k.code.push(EXIT);
    k.entries.push(Entry {
        name: "other".into(),
        pc: 1,
    });
    assert_eq!(k.entry(Some("other")).unwrap().pc, 1);
    assert_eq!(
        k.entry(None).unwrap_err().to_string(),
        "the kernel has 2 entry points (main, other); name the one to run"
    );
    assert!(matches!(k.entry(None), Err(ContainerError::Entry(_))));
    k.entries.clear();
    assert_eq!(
        k.entry(None).unwrap_err().to_string(),
        "the kernel has no entry point"
    );
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("concord-container-test-{tag}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn files_round_trip_and_errors_name_the_file() {
    let dir = temp_dir("files");
    let path = dir.join("k.cbin");
    sample().save_file(&path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), SAMPLE_BYTES.to_vec());
    assert_eq!(Kernel::load_file(&path).unwrap(), sample());
    // Only the container is left in the directory: no temporary file.
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("k.cbin")]);

    // An invalid kernel is not written, and an existing file is untouched.
    let mut bad = sample();
    bad.entries.clear();
    let e = bad.save_file(&path).unwrap_err().to_string();
    assert_eq!(
        e,
        format!("{}: entries: the kernel has no entry point", path.display())
    );
    assert_eq!(std::fs::read(&path).unwrap(), SAMPLE_BYTES.to_vec());

    std::fs::write(&path, patched(4, &[7, 0])).unwrap();
    assert_eq!(
        Kernel::load_file(&path).unwrap_err().to_string(),
        format!(
            "{}: byte 4: unsupported container version 7 (this build reads 1..=2)",
            path.display()
        )
    );
    let missing = dir.join("missing.cbin");
    let e = Kernel::load_file(&missing).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("{}: cannot read: ", missing.display())),
        "{e}"
    );
    let e = sample()
        .save_file(&dir.join("no-such-dir").join("k.cbin"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no-such-dir") && e.contains("cannot create"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------
// Properties.

fn name() -> impl Strategy<Value = String> {
    // Any printable text, so that multi-byte UTF-8 is exercised too.
    "\\PC{1,10}"
}

prop_compose! {
    fn kernel()(
        code in prop::collection::vec(any::<u32>(), 1..40),
        entry_names in prop::collection::btree_set(name(), 1..5),
        params in prop::collection::btree_set(name(), 0..=16),
        shared_bytes in any::<u32>(),
        regs_used in 0u32..=32,
        preds_used in 0u32..=8,
        symbol_names in prop::collection::vec(name(), 0..6),
        pcs in prop::collection::vec(any::<u32>(), 12),
        stack_words in prop_oneof![Just(0u32), 1u32..1 << 20],
    ) -> Kernel {
        let len = code.len() as u32;
        let entries = entry_names
            .into_iter()
            .enumerate()
            .map(|(i, name)| Entry { name, pc: pcs[i] % len })
            .collect();
        let symbols = symbol_names
            .into_iter()
            .enumerate()
            .map(|(i, name)| (name, pcs[6 + i] % (len + 1)))
            .collect();
        // The header may declare more than the code uses, never less.
        let (regs, preds) = resources_used(&code);
        Kernel {
            code,
            entries,
            params: params.into_iter().collect(),
            shared_bytes,
            regs_used: regs_used.max(regs),
            preds_used: preds_used.max(preds),
            symbols,
            stack_bytes: stack_words * 4,
        }
    }
}

/// Whatever `from_bytes` accepts is valid and re-encodes to the same bytes.
fn check_decode(bytes: &[u8]) {
    if let Ok(k) = Kernel::from_bytes(bytes) {
        k.validate().unwrap();
        assert_eq!(k.to_bytes(), bytes);
    }
}

proptest! {
    #[test]
    fn random_kernels_round_trip(k in kernel()) {
        k.validate().unwrap();
        let bytes = k.to_bytes();
        prop_assert_eq!(Kernel::from_bytes(&bytes).unwrap(), k);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        check_decode(&bytes);
    }

    #[test]
    fn arbitrary_bytes_after_a_valid_header_never_panic(
        body in prop::collection::vec(any::<u8>(), 0..200),
        small_counts in any::<bool>(),
    ) {
        let mut bytes = b"CNCD\x01\x00\x00\x00".to_vec();
        bytes.extend_from_slice(&body);
        if small_counts && bytes.len() >= 12 {
            // Keep the code count plausible so decoding goes further.
            bytes[9..12].fill(0);
            bytes[8] %= 8;
        }
        check_decode(&bytes);
    }

    #[test]
    fn mutated_containers_never_panic(
        k in kernel(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 0..4),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let mut bytes = k.to_bytes();
        for (at, x) in &flips {
            let i = at.index(bytes.len());
            bytes[i] ^= x;
        }
        if truncate {
            bytes.truncate(cut.index(bytes.len()));
        }
        check_decode(&bytes);
    }
}

/// Every kernel in `kernels/` that assembles is a valid kernel and survives
/// the container unchanged.
#[test]
fn assembled_kernels_round_trip() {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "s") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels"),
        &mut files,
    );
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let Ok(k) = concord_isa::asm::assemble(&text, &path.display().to_string()) else {
            continue;
        };
        k.validate()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            Kernel::from_bytes(&k.to_bytes()).unwrap(),
            k,
            "{}",
            path.display()
        );
    }
}
