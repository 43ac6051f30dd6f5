//! `concord_uarch::regmap` against docs/microarchitecture.md: the host
//! register map table of §14.4 (every address, name, access and documented
//! bit range), the `ID` value, the counter count of §15.1; and the
//! encoders and decoders on values worked out by hand from §14.4.

mod common;

use std::collections::BTreeMap;

use concord_isa::config::CoreConfig;
use concord_uarch::regmap::{
    self, wstate_decode, wstate_encode, Access, Count, Ctrl, HwConfig, LaunchWord, MapOptions,
    Presence, Status, V2Values, REGISTERS,
};

use concord_uarch::HwParams;

use common::{quoted, table};

fn hex(s: &str) -> u32 {
    u32::from_str_radix(s.trim_start_matches("0x"), 16).unwrap_or_else(|_| panic!("{s}"))
}

/// One documented array or register: base address, stride, the bound of
/// its index (`I`, `16`, …; none for a single word), name, access.
#[derive(Debug, PartialEq, Eq, Clone)]
struct Entry {
    addr: u32,
    stride: u32,
    bound: Option<String>,
    name: String,
    access: Access,
    /// The documented bit ranges `(lsb, width)`, in the order written.
    ranges: Vec<(u32, u32)>,
}

fn access(cell: &str) -> Access {
    match cell {
        "R" => Access::R,
        "W" => Access::W,
        "W, R" | "R, W" => Access::RW,
        other => panic!("access {other:?}"),
    }
}

/// `[hi:lo]` and `[n]` ranges of a content cell, in order.
fn ranges(cell: &str) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut rest = cell;
    while let Some(open) = rest.find('[') {
        let close = open + rest[open..].find(']').unwrap();
        let inner = &rest[open + 1..close];
        rest = &rest[close + 1..];
        let parse = |s: &str| s.trim().parse::<u32>().ok();
        if let Some((hi, lo)) = inner.split_once(':') {
            if let (Some(hi), Some(lo)) = (parse(hi), parse(lo)) {
                out.push((lo, hi - lo + 1));
            }
        } else if let Some(b) = parse(inner) {
            out.push((b, 1));
        }
    }
    out
}

/// Every row of §14.4, with `A..B` ranges and `X/Y/Z`, `a, b, c` names
/// expanded into single words.
fn documented() -> Vec<Entry> {
    let mut out = Vec::new();
    for row in table("### 14.4 Host register map") {
        let (addr_cell, name_cell, acc, content) = (&row[0], &row[1], &row[2], &row[3]);
        let acc = access(acc);
        let addrs = quoted(addr_cell);
        let names = quoted(name_cell);
        let rs = ranges(content);
        if addrs[0].contains(" + ") {
            // An array: `BASE + i` or `BASE + 2k`, maybe `, `i < BOUND``.
            let (base, index) = addrs[0].split_once(" + ").unwrap();
            let stride = index
                .trim_end_matches(|c: char| c.is_alphabetic())
                .parse()
                .unwrap_or(1);
            let bound = addrs
                .get(1)
                .map(|b| b.split_once(" < ").unwrap().1.to_string());
            let name = names[0].split('[').next().unwrap();
            let name = if name_cell.ends_with(" low") {
                "COUNTER_LO".to_string()
            } else if name_cell.ends_with(" high") {
                "COUNTER_HI".to_string()
            } else {
                name.to_string()
            };
            out.push(Entry {
                addr: hex(base),
                stride,
                bound,
                name,
                access: acc,
                ranges: rs,
            });
            continue;
        }
        let first = hex(addrs[0]);
        let last = addrs.get(1).map(|a| hex(a)).unwrap_or(first);
        // `GRID_X/Y/Z` or `A`, `B`, `C`.
        let expanded: Vec<String> = if names.len() == 1 && names[0].contains('/') {
            let (stem, tail) = names[0].rsplit_once('_').unwrap();
            tail.split('/').map(|s| format!("{stem}_{s}")).collect()
        } else {
            names.iter().map(|s| s.to_string()).collect()
        };
        assert_eq!(
            expanded.len() as u32,
            last - first + 1,
            "names of {addr_cell}"
        );
        for (i, name) in expanded.into_iter().enumerate() {
            out.push(Entry {
                addr: first + i as u32,
                stride: 1,
                bound: None,
                name,
                access: acc,
                ranges: rs.clone(),
            });
        }
    }
    out
}

/// The crate's table in the document's terms.
fn coded() -> Vec<Entry> {
    REGISTERS
        .iter()
        .map(|r| Entry {
            addr: r.addr,
            stride: r.stride,
            bound: match r.count {
                Count::One => None,
                Count::Fixed(n) => Some(n.to_string()),
                Count::ImemWords => Some("I".to_string()),
                // Bounds the table leaves to other sections.
                Count::Counters | Count::BlockSlots => None,
            },
            name: r.name.to_string(),
            access: r.access,
            ranges: r.fields.iter().map(|f| (f.lsb, f.width)).collect(),
        })
        .collect()
}

#[test]
fn the_map_is_the_documented_one() {
    let doc = documented();
    let code = coded();
    let key = |e: &Entry| (e.addr, e.stride, e.bound.clone(), e.name.clone(), e.access);
    let doc_keys: Vec<_> = doc.iter().map(key).collect();
    let code_keys: Vec<_> = code.iter().map(key).collect();
    assert_eq!(code_keys, doc_keys);
}

/// Every documented bit range is a field of the register or a run of
/// adjacent fields (`busy_i`, `busy_r`, `replay`, `rearb` [3:0]), and the
/// fields cover nothing else. Registers whose row gives no ranges are
/// checked by the encoder tests below.
#[test]
fn documented_bit_ranges_are_the_fields() {
    for (d, r) in documented().iter().zip(REGISTERS) {
        if d.ranges.is_empty() {
            continue;
        }
        let doc_mask = d
            .ranges
            .iter()
            .fold(0u64, |m, (lsb, w)| m | (((1u64 << w) - 1) << lsb));
        assert_eq!(doc_mask as u32, r.mask(), "bits of {}", r.name);
        for f in r.fields {
            let inside = d
                .ranges
                .iter()
                .any(|(lsb, w)| f.lsb >= *lsb && f.lsb + f.width <= lsb + w);
            assert!(
                inside,
                "{}.{} is not within one documented range",
                r.name, f.name
            );
        }
    }
}

#[test]
fn id_and_counter_count_are_the_documented_ones() {
    let id_row = table("### 14.4 Host register map")
        .into_iter()
        .find(|r| r[1] == "`ID`")
        .unwrap();
    let value = quoted(&id_row[3])[0];
    assert_eq!(hex(value), regmap::ID_VALUE);
    assert_eq!(&regmap::ID_VALUE.to_be_bytes(), b"CNC2");
    // §15.1: counters k = 0..
    let ks: Vec<u32> = table("### 15.1 Counters")
        .iter()
        .map(|r| r[0].parse().unwrap())
        .collect();
    assert_eq!(ks, (0..regmap::COUNTERS).collect::<Vec<_>>());
}

/// The debug registers are the `0x102xx` window, and only they.
#[test]
fn debug_registers_are_the_0x102xx_window() {
    for r in REGISTERS {
        assert_eq!(
            r.presence == Presence::DebugRegs,
            r.addr >> 8 == 0x102,
            "{}",
            r.name
        );
    }
}

/// Addresses decoded in cores with and without debug registers.
#[test]
fn decode_finds_the_row_and_index() {
    let small = MapOptions {
        imem_words: 1024,
        block_slots: 4,
        debug_regs: false,
    };
    let big = MapOptions {
        debug_regs: true,
        ..small
    };
    let name = |a: u32, o: &MapOptions| regmap::decode(a, o).map(|(r, i)| (r.name, i));
    assert_eq!(name(0, &small), Some(("IMEM", 0)));
    assert_eq!(name(1023, &small), Some(("IMEM", 1023)));
    assert_eq!(name(1024, &small), None);
    assert_eq!(name(0x10000, &small), Some(("CTRL", 0)));
    assert_eq!(name(0x1000E, &small), None);
    assert_eq!(name(0x1001F, &small), Some(("PARAM", 15)));
    assert_eq!(name(0x10020, &small), None);
    assert_eq!(name(0x10105, &small), Some(("HWCFG4", 0)));
    assert_eq!(name(0x10106, &small), None);
    assert_eq!(name(0x1010B, &small), None);
    assert_eq!(name(0x10140, &small), Some(("COUNTER_LO", 0)));
    assert_eq!(name(0x10170, &small), Some(("COUNTER_LO", 24)));
    assert_eq!(name(0x10171, &small), Some(("COUNTER_HI", 24)));
    assert_eq!(name(0x10172, &small), None);
    assert_eq!(name(0x10200, &small), None);
    assert_eq!(name(0x10200, &big), Some(("DBG_WARP", 0)));
    assert_eq!(name(0x10213, &big), Some(("DBG_SLOT", 3)));
    assert_eq!(name(0x10214, &big), None);
    assert_eq!(name(0x1FFFF, &big), None);
}

/// HWCFG0..4 of the default 8×8 core with the board preset, worked out by
/// hand from §14.4: lanes 8, warps 8, registers 32, predicates 8;
/// log2 4096 = 12, log2 16384 = 14, log2 8 = 3, depth bits 4; log2 32 = 5,
/// log2 4 = 2, 8 entries, 4 slots; 1 MiB; lrr, unified, depth_pc, 32-bit
/// counters, no trace, no debug registers.
#[test]
fn hwcfg_of_the_default_core() {
    let p = HwParams::new(&CoreConfig::default()).unwrap();
    let c = HwConfig::new(&p, &V2Values::BOARD);
    let w = c.encode();
    assert_eq!(
        w,
        [
            0x0820_0808,
            0x0403_0E0C,
            0x0408_0205,
            0x0010_0000,
            0x0000_2000
        ]
    );
    assert_eq!(HwConfig::decode(w), c);
    // The sim preset, gto, split, pc_only: bits 0, 1, 2, 64 << 8, 16, 17.
    let cfg = CoreConfig {
        arbitration: concord_isa::config::Arbitration::PcOnly,
        ..CoreConfig::default()
    };
    let p = HwParams::new(&cfg).unwrap();
    let v = V2Values {
        scheduler_gto: true,
        arbiter_split: true,
        ..V2Values::SIM
    };
    let c = HwConfig::new(&p, &v);
    assert_eq!(c.encode()[4], 0x0003_4007);
    assert_eq!(HwConfig::decode(c.encode()), c);
}

/// The largest values of every field fit (16 warps, 32 lanes, 64 KiW of
/// program, 1 MiB shared in 32 banks, 16 depth bits, 128-byte lines and
/// bus, 16 entries and slots, 64-bit counters).
#[test]
fn hwcfg_of_the_largest_core() {
    let c = HwConfig {
        lanes: 32,
        warps: 16,
        registers: 32,
        predicates: 8,
        imem_words: 1 << 16,
        shared_memory_bytes: 1 << 20,
        shared_banks: 32,
        call_depth_bits: 16,
        global_line_bytes: 128,
        global_bus_bytes: 128,
        global_outstanding: 16,
        max_resident_blocks: 16,
        global_memory_bytes: 1 << 30,
        scheduler_gto: true,
        arbiter_split: true,
        pc_only: true,
        counter_bits: 64,
        trace: true,
        debug_regs: true,
    };
    let w = c.encode();
    assert_eq!(
        w,
        [
            0x0820_1020,
            0x1005_1410,
            0x1010_0707,
            0x4000_0000,
            0x0003_4007
        ]
    );
    assert_eq!(HwConfig::decode(w), c);
}

#[test]
fn ctrl_status_launch_wstate() {
    assert_eq!(
        Ctrl {
            start: true,
            halt: false
        }
        .encode(),
        1
    );
    assert_eq!(
        Ctrl {
            start: true,
            halt: true
        }
        .encode(),
        3
    );
    assert_eq!(
        Ctrl::decode(2),
        Ctrl {
            start: false,
            halt: true
        }
    );
    assert_eq!(Ctrl::read_value(true), 2);
    // RUN (2), running, write_ignored, halted: bits 0, 3, 5 and 2 << 8.
    let s = Status {
        running: true,
        write_ignored: true,
        halted: true,
        state: 2,
        ..Status::default()
    };
    assert_eq!(s.encode(), 0x229);
    assert_eq!(Status::decode(0x229), s);
    // TRAP (5), trapped, refused.
    let s = Status {
        trapped: true,
        refused: true,
        state: 5,
        ..Status::default()
    };
    assert_eq!(s.encode(), 0x514);
    assert_eq!(Status::decode(0x514), s);
    let l = LaunchWord {
        threads: 64,
        nwarps: 8,
        resident: 1,
    };
    assert_eq!(l.encode(), 0x0108_0040);
    assert_eq!(LaunchWord::decode(0x0108_0040), l);
    // Warps 0..12 with codes 1..7, 0, 1, ...: warp 9 (code 2) at bits
    // 29:27, warp 10 (code 3) at bits 2:0 of WSTATE1.
    let codes: Vec<u8> = (0..12).map(|i| ((i + 1) % 8) as u8).collect();
    let w = wstate_encode(&codes);
    let mut w0 = 0u32;
    for (i, c) in codes.iter().take(10).enumerate() {
        w0 |= (*c as u32) << (3 * i);
    }
    assert_eq!(w, [w0, 3 | 4 << 3]);
    assert_eq!(w[0] >> 27, 2);
    assert_eq!(wstate_decode(w, 12), codes);
}

/// Only the launch windows are gated by the core's state (§14.3).
#[test]
fn writes_gated_while_running() {
    use regmap::WriteGate;
    let gated: BTreeMap<&str, bool> = REGISTERS
        .iter()
        .filter(|r| r.access.writable())
        .map(|r| (r.name, r.gate == WriteGate::NotRunning))
        .collect();
    for (name, g) in &gated {
        let expect = !matches!(*name, "CTRL" | "DBG_WARP" | "DBG_LANE");
        assert_eq!(*g, expect, "{name}");
    }
    assert_eq!(gated.len(), 18);
}

/// A launch's writes, spelled out: program words, the launch registers of
/// §14.4 at their addresses, the parameters; the start write is `CTRL` = 1.
#[test]
fn launch_writes_in_order() {
    use concord_isa::func::Launch;
    use regmap::{launch_writes, start_write, LaunchExtras};
    let code = [0x11, 0x22, 0x33];
    let params = [7, 8];
    let launch = Launch {
        code: &code,
        entry_pc: 1,
        grid: [2, 3, 4],
        block: [32, 2, 1],
        params: &params,
        stack_bytes: 64,
    };
    let x = LaunchExtras {
        shared_bytes: 256,
        clear_regs: 5,
        clear_shared: 128,
    };
    assert_eq!(
        launch_writes(&launch, &x),
        vec![
            (0x00000, 0x11),
            (0x00001, 0x22),
            (0x00002, 0x33),
            (0x10001, 1),
            (0x10002, 3),
            (0x10003, 2),
            (0x10004, 3),
            (0x10005, 4),
            (0x10006, 32),
            (0x10007, 2),
            (0x10008, 1),
            (0x10009, 2),
            (0x1000A, 64),
            (0x1000B, 256),
            (0x1000C, 5),
            (0x1000D, 128),
            (0x10010, 7),
            (0x10011, 8),
        ]
    );
    assert_eq!(start_write(), (0x10000, 1));
}
