//! The contract itself: every hardware rule at its boundaries (each error
//! naming its field, messages worked out by hand), the derived sizes of
//! the bundled configurations (worked out by hand), and the trap codes.

use std::path::{Path, PathBuf};

use concord_isa::config::{ArbiterMode, Arbitration, ConfigError, CoreConfig, Scheduler};
use concord_isa::func::TrapCause;
use concord_isa::Space;
use concord_uarch::{trap, HwParams, TrapCode};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn with(f: impl FnOnce(&mut CoreConfig)) -> CoreConfig {
    let mut c = CoreConfig::default();
    f(&mut c);
    c
}

/// `None`: the hardware builds it; `Some((field, message))`: the error.
type Expect = Option<(&'static str, &'static str)>;

fn check(what: &str, config: &CoreConfig, expect: Expect) {
    let got = HwParams::new(config);
    match (got, expect) {
        (Ok(_), None) => {}
        (
            Err(ConfigError::Field {
                file,
                field,
                message,
            }),
            Some((f, m)),
        ) => {
            assert_eq!(file, None, "{what}");
            assert_eq!((field, message.as_str()), (f, m), "{what}");
            // One line naming the field.
            let shown = HwParams::new(config).unwrap_err().to_string();
            assert_eq!(shown, format!("config field `{f}`: {m}"), "{what}");
        }
        (got, expect) => panic!("{what}: got {got:?}, expected {expect:?}"),
    }
}

#[test]
fn every_rule_rejects_its_boundary_values_naming_the_field() {
    let ok: Expect = None;
    #[rustfmt::skip]
    let cases: Vec<(&str, CoreConfig, Expect)> = vec![
        // lanes: 4..=32, a power of two.
        ("lanes 3", with(|c| c.lanes = 3), Some(("lanes", "3 is outside 4..=32"))),
        ("lanes 4", with(|c| c.lanes = 4), ok),
        ("lanes 6", with(|c| c.lanes = 6), Some(("lanes", "6 is not a power of two, which the hardware needs (the arbiter is a binary tree over the lanes)"))),
        ("lanes 12", with(|c| c.lanes = 12), Some(("lanes", "12 is not a power of two, which the hardware needs (the arbiter is a binary tree over the lanes)"))),
        ("lanes 31", with(|c| c.lanes = 31), Some(("lanes", "31 is not a power of two, which the hardware needs (the arbiter is a binary tree over the lanes)"))),
        ("lanes 32", with(|c| c.lanes = 32), ok),
        ("lanes 33", with(|c| c.lanes = 33), Some(("lanes", "33 is outside 4..=32"))),
        // warps: 1..=16, any count.
        ("warps 0", with(|c| c.warps = 0), Some(("warps", "0 is outside 1..=16"))),
        ("warps 1", with(|c| c.warps = 1), ok),
        ("warps 3", with(|c| c.warps = 3), ok),
        ("warps 16", with(|c| c.warps = 16), ok),
        ("warps 17", with(|c| c.warps = 17), Some(("warps", "17 is outside 1..=16"))),
        // registers: 4..=32, any count.
        ("registers 3", with(|c| c.registers = 3), Some(("registers", "3 is outside 4..=32"))),
        ("registers 4", with(|c| c.registers = 4), ok),
        ("registers 5", with(|c| c.registers = 5), ok),
        ("registers 32", with(|c| c.registers = 32), ok),
        ("registers 33", with(|c| c.registers = 33), Some(("registers", "33 is outside 4..=32"))),
        // predicates: 2..=8.
        ("predicates 1", with(|c| c.predicates = 1), Some(("predicates", "1 is outside 2..=8"))),
        ("predicates 2", with(|c| c.predicates = 2), ok),
        ("predicates 8", with(|c| c.predicates = 8), ok),
        ("predicates 9", with(|c| c.predicates = 9), Some(("predicates", "9 is outside 2..=8"))),
        // shared_banks: 1..=32, a power of two. 3 banks of 512 rows is a
        // valid configuration (6144 bytes) that only the hardware refuses.
        ("shared_banks 0", with(|c| c.shared_banks = 0), Some(("shared_banks", "0 is outside 1..=32"))),
        ("shared_banks 1", with(|c| c.shared_banks = 1), ok),
        ("shared_banks 3", with(|c| {
            c.shared_banks = 3;
            c.shared_memory_bytes = 4 * 3 * 512;
        }), Some(("shared_banks", "3 is not a power of two, which the hardware needs (bank and row are bit fields of a word address)"))),
        ("shared_banks 32", with(|c| c.shared_banks = 32), ok),
        ("shared_banks 33", with(|c| c.shared_banks = 33), Some(("shared_banks", "33 is outside 1..=32"))),
        // shared_memory_bytes over 8 banks: 32..=1 MiB, a multiple of 32,
        // a power of two of rows.
        ("shared 28", with(|c| c.shared_memory_bytes = 28), Some(("shared_memory_bytes", "28 is outside 32..=1048576"))),
        ("shared 32", with(|c| c.shared_memory_bytes = 32), ok),
        ("shared 96", with(|c| c.shared_memory_bytes = 96), Some(("shared_memory_bytes", "96 bytes in 8 banks make 3 rows of 4-byte words per bank, not a power of two, which the hardware needs"))),
        ("shared 100", with(|c| c.shared_memory_bytes = 100), Some(("shared_memory_bytes", "100 is not a multiple of 4 bytes x 8 banks"))),
        ("shared 1 MiB", with(|c| c.shared_memory_bytes = 1 << 20), ok),
        ("shared 1 MiB + 32", with(|c| c.shared_memory_bytes = (1 << 20) + 32), Some(("shared_memory_bytes", "1048608 is outside 32..=1048576"))),
        // imem_words: 16..=65536, a power of two.
        ("imem 15", with(|c| c.imem_words = 15), Some(("imem_words", "15 is outside 16..=65536"))),
        ("imem 16", with(|c| c.imem_words = 16), ok),
        ("imem 100", with(|c| c.imem_words = 100), Some(("imem_words", "100 is not a power of two, which the hardware needs"))),
        ("imem 65535", with(|c| c.imem_words = 65535), Some(("imem_words", "65535 is not a power of two, which the hardware needs"))),
        ("imem 65536", with(|c| c.imem_words = 65536), ok),
        ("imem 65537", with(|c| c.imem_words = 65537), Some(("imem_words", "65537 is outside 16..=65536"))),
        // call_depth_bits: 1..=16.
        ("depth 0", with(|c| c.call_depth_bits = 0), Some(("call_depth_bits", "0 is outside 1..=16"))),
        ("depth 1", with(|c| c.call_depth_bits = 1), ok),
        ("depth 16", with(|c| c.call_depth_bits = 16), ok),
        ("depth 17", with(|c| c.call_depth_bits = 17), Some(("call_depth_bits", "17 is outside 1..=16"))),
        // global_memory_bytes: 64..=1 GiB, a multiple of 4.
        ("global 60", with(|c| c.global_memory_bytes = 60), Some(("global_memory_bytes", "60 is outside 64..=1073741824"))),
        ("global 64", with(|c| c.global_memory_bytes = 64), ok),
        ("global 66", with(|c| c.global_memory_bytes = 66), Some(("global_memory_bytes", "66 is not a multiple of 4"))),
        ("global 1 GiB", with(|c| c.global_memory_bytes = 1 << 30), ok),
        ("global 1 GiB + 4", with(|c| c.global_memory_bytes = (1 << 30) + 4), Some(("global_memory_bytes", "1073741828 is outside 64..=1073741824"))),
        // global_latency: 1..=1000.
        ("latency 0", with(|c| c.global_latency = 0), Some(("global_latency", "0 is outside 1..=1000"))),
        ("latency 1", with(|c| c.global_latency = 1), ok),
        ("latency 1000", with(|c| c.global_latency = 1000), ok),
        ("latency 1001", with(|c| c.global_latency = 1001), Some(("global_latency", "1001 is outside 1..=1000"))),
        // global_line_bytes: 4..=128, a power of two.
        ("line 2", with(|c| c.global_line_bytes = 2), Some(("global_line_bytes", "2 is outside 4..=128"))),
        ("line 4", with(|c| c.global_line_bytes = 4), ok),
        ("line 48", with(|c| c.global_line_bytes = 48), Some(("global_line_bytes", "48 is not a power of two"))),
        ("line 128", with(|c| c.global_line_bytes = 128), ok),
        ("line 256", with(|c| c.global_line_bytes = 256), Some(("global_line_bytes", "256 is outside 4..=128"))),
        // arbitration: both policies.
        ("pc_only", with(|c| c.arbitration = Arbitration::PcOnly), ok),
    ];
    for (what, config, expect) in &cases {
        check(what, config, *expect);
    }
    // The rules in order: the first broken one is reported.
    check(
        "lanes 12 and 3 banks",
        &with(|c| {
            c.lanes = 12;
            c.shared_banks = 3;
            c.shared_memory_bytes = 4 * 3 * 512;
        }),
        Some(("lanes", "12 is not a power of two, which the hardware needs (the arbiter is a binary tree over the lanes)")),
    );
}

#[test]
fn derived_sizes_of_the_bundled_configs() {
    let load = |name: &str| {
        let c = CoreConfig::load(&repo().join("configs").join(name)).unwrap();
        HwParams::new(&c).unwrap()
    };
    // configs/default.yaml: 8 x 8, 32 registers, 16 KiB in 8 banks, 4096
    // words, 4 depth bits, 1 MiB global with 32-byte lines.
    let default = HwParams {
        lanes: 8,
        warps: 8,
        registers: 32,
        predicates: 8,
        lane_mask: 0xff,
        lane_bits: 3,
        block_threads: 64,
        rf_rows_per_warp: 32,
        rf_rows: 256,
        shared_bytes: 16384,
        shared_banks: 8,
        shared_rows: 512,
        shared_row_shift: 5,
        imem_words: 4096,
        pc_bits: 12,
        max_call_depth: 15,
        global_bytes: 1 << 20,
        global_line_bytes: 32,
        global_line_shift: 5,
        global_line_words: 8,
        global_latency: 10,
        arbitration: Arbitration::DepthPc,
        init_cycles: 512,
        scheduler: Scheduler::Lrr,
        arbiter: ArbiterMode::Unified,
        block_slots: 4,
        global_outstanding: 8,
        global_bus_bytes: 4,
        global_beats: 8,
        global_bandwidth: 0,
    };
    assert_eq!(load("default.yaml"), default);
    assert_eq!(HwParams::new(&CoreConfig::default()).unwrap(), default);
    // configs/small.yaml: one warp of 4 lanes; INIT still clears 512 shared rows.
    assert_eq!(
        load("small.yaml"),
        HwParams {
            lanes: 4,
            warps: 1,
            lane_mask: 0xf,
            lane_bits: 2,
            block_threads: 4,
            rf_rows: 32,
            block_slots: 1,
            ..default.clone()
        }
    );
    // configs/wide.yaml: 8 warps of 32 lanes.
    assert_eq!(
        load("wide.yaml"),
        HwParams {
            lanes: 32,
            lane_mask: 0xffff_ffff,
            lane_bits: 5,
            block_threads: 256,
            ..default.clone()
        }
    );
    // The corners: 5 registers round up to 8 rows per warp; one bank of
    // 1 MiB; 65536 words need all 16 PC bits; 16 depth bits; 128-byte lines.
    let big = HwParams::new(&with(|c| {
        c.lanes = 32;
        c.warps = 16;
        c.registers = 5;
        c.predicates = 2;
        c.shared_banks = 1;
        c.shared_memory_bytes = 1 << 20;
        c.imem_words = 65536;
        c.call_depth_bits = 16;
        c.global_line_bytes = 128;
    }))
    .unwrap();
    assert_eq!(
        (
            big.rf_rows_per_warp,
            big.rf_rows,
            big.shared_rows,
            big.shared_row_shift
        ),
        (8, 128, 262144, 2)
    );
    assert_eq!((big.pc_bits, big.max_call_depth), (16, 65535));
    assert_eq!((big.global_line_shift, big.global_line_words), (7, 32));
    assert_eq!((big.block_threads, big.init_cycles), (512, 262144));
    let tiny = HwParams::new(&with(|c| {
        c.lanes = 4;
        c.warps = 1;
        c.registers = 4;
        c.shared_banks = 32;
        c.shared_memory_bytes = 128;
        c.imem_words = 16;
        c.call_depth_bits = 1;
        c.global_line_bytes = 4;
    }))
    .unwrap();
    assert_eq!(
        (
            tiny.rf_rows,
            tiny.shared_rows,
            tiny.shared_row_shift,
            tiny.pc_bits
        ),
        (4, 1, 7, 4)
    );
    assert_eq!(
        (
            tiny.max_call_depth,
            tiny.global_line_shift,
            tiny.init_cycles
        ),
        (1, 2, 4)
    );
    assert_eq!((tiny.rf_row(0, 3), big.rf_row(15, 4)), (3, 124));
}

#[test]
fn trap_codes_are_one_table() {
    for (i, code) in TrapCode::ALL.iter().enumerate() {
        assert_eq!(code.code(), i as u32 + 1);
        assert_eq!(TrapCode::from_code(code.code()), Some(*code));
    }
    assert_eq!(TrapCode::from_code(0), None);
    assert_eq!(TrapCode::from_code(12), None);
    let oob = TrapCause::AddressOutOfRange {
        space: Space::Global,
        addr: 0x1234,
        bytes: 4,
        size: 64,
    };
    assert_eq!(TrapCode::of(&oob), Some(TrapCode::AddressOutOfRange));
    assert_eq!(
        (
            trap::cause_register(&oob),
            trap::address_register(&oob),
            trap::detail_register(&oob)
        ),
        (1, 0x1234, 4)
    );
    let npc = TrapCause::NextPcOutOfRange {
        target: 65536,
        len: 9,
    };
    assert_eq!(
        (
            trap::cause_register(&npc),
            trap::address_register(&npc),
            trap::detail_register(&npc)
        ),
        (10, 65536, 0)
    );
    let param = TrapCause::MissingParam {
        index: 3,
        supplied: 1,
    };
    assert_eq!(
        (trap::cause_register(&param), trap::detail_register(&param)),
        (8, 3)
    );
    let dog = TrapCause::Watchdog {
        limit: 1,
        diagnosis: String::new(),
    };
    assert_eq!((TrapCode::of(&dog), trap::cause_register(&dog)), (None, 0));
}

#[test]
fn v2_rules_name_their_fields() {
    let field = |c: CoreConfig| match HwParams::new(&c) {
        Err(ConfigError::Field { field, .. }) => field,
        other => panic!("{other:?}"),
    };
    assert_eq!(field(with(|c| c.global_bus_bytes = 64)), "global_bus_bytes");
    assert_eq!(field(with(|c| c.global_bus_bytes = 12)), "global_bus_bytes");
    assert_eq!(
        field(with(|c| c.global_outstanding = 0)),
        "global_outstanding"
    );
    assert_eq!(
        field(with(|c| c.global_outstanding = 17)),
        "global_outstanding"
    );
    assert_eq!(
        field(with(|c| c.global_bandwidth = 129)),
        "global_bandwidth"
    );
    assert_eq!(
        field(with(|c| c.max_resident_blocks = 0)),
        "max_resident_blocks"
    );
    assert_eq!(
        field(with(|c| c.max_resident_blocks = 17)),
        "max_resident_blocks"
    );
    let hw = HwParams::new(&with(|c| {
        c.warps = 2;
        c.global_line_bytes = 64;
        c.global_bus_bytes = 16;
        c.global_outstanding = 3;
        c.scheduler = Scheduler::Gto;
        c.arbiter = ArbiterMode::Split;
    }))
    .unwrap();
    assert_eq!(
        (hw.block_slots, hw.global_beats, hw.global_outstanding),
        (2, 4, 3)
    );
    assert_eq!(
        (hw.scheduler, hw.arbiter),
        (Scheduler::Gto, ArbiterMode::Split)
    );
}
