//! `concord_uarch::counters` and `concord_uarch::gen` against
//! docs/microarchitecture.md: the counter table of §15.1 (index, name,
//! increment) and the generator options of §17.2 (ranges, presets).

mod common;

use concord_uarch::counters::{Counter, TABLE};

use concord_uarch::{regmap, GenOptions};

use common::{table, DOC};

#[test]
fn the_counter_table_is_the_documents() {
    let doc = table("### 15.1 Counters");
    assert_eq!(doc.len(), TABLE.len(), "number of counters");
    assert_eq!(regmap::COUNTERS as usize, doc.len());
    for (k, (d, r)) in doc.iter().zip(TABLE.iter()).enumerate() {
        assert_eq!(d[0], k.to_string());
        assert_eq!(d[1], format!("`{}`", r.name), "counter {k}");
        assert_eq!(d[2], r.increment, "counter {k} ({})", r.name);
        assert_eq!(Counter::ALL[k].name(), r.name);
    }
}

#[test]
fn only_cycles_is_always_64_bits() {
    // §15.1: "Every counter is `counter_bits` wide ... `cycles` is always
    // 64 bits".
    let text = &DOC[DOC.find("### 15.1 Counters").unwrap()..];
    assert!(text.contains("Every counter is `counter_bits` wide (generator option, 16..=64)"));
    assert!(text.contains("`cycles` is always 64 bits"));
    for c in Counter::ALL {
        let want = if c == Counter::Cycles { 64 } else { 20 };
        assert_eq!(c.width(20), want, "{}", c.name());
    }
}

#[test]
fn the_generator_options_are_the_documents() {
    let doc = table("### 17.2 Generator options");
    let row = |name: &str| {
        doc.iter()
            .find(|r| r[0] == format!("`{name}`"))
            .unwrap_or_else(|| panic!("no option {name}"))
            .clone()
    };
    assert_eq!(doc.len(), 3, "three options");
    let on = |cell: &str| match cell {
        "on" => true,
        "off" => false,
        other => panic!("{other}"),
    };
    let (sim, board) = (GenOptions::sim(), GenOptions::board());
    let trace = row("trace");
    assert_eq!((on(&trace[2]), on(&trace[3])), (sim.trace, board.trace));
    let dbg = row("debug_regs");
    assert_eq!(
        (on(&dbg[2]), on(&dbg[3])),
        (sim.debug_regs, board.debug_regs)
    );
    let bits = row("counter_bits");
    assert_eq!(bits[1], "16..=64");
    assert_eq!(bits[2], sim.counter_bits.to_string());
    assert_eq!(bits[3], board.counter_bits.to_string());
    assert_eq!(concord_uarch::gen::COUNTER_BITS, 16..=64);
}

#[test]
fn counter_bits_out_of_range_is_an_error_naming_the_option() {
    for bits in [0, 15, 65, 128] {
        let g = GenOptions {
            counter_bits: bits,
            ..GenOptions::board()
        };
        let e = g.validate().unwrap_err();
        assert_eq!(e.option, "counter_bits");
        assert!(e.to_string().contains("`counter_bits`"), "{e}");
    }
    for bits in [16, 32, 48, 64] {
        let g = GenOptions {
            counter_bits: bits,
            ..GenOptions::sim()
        };
        assert_eq!(g.validate(), Ok(()));
    }
    assert_eq!(GenOptions::sim().validate(), Ok(()));
    assert_eq!(GenOptions::board().validate(), Ok(()));
}
