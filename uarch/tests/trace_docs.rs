//! `concord_uarch::trace` against docs/microarchitecture.md §15.2: the
//! field names in the table's order, the widths of the default core worked
//! out by hand, and pack/unpack.

mod common;

use concord_isa::config::CoreConfig;
use concord_uarch::trace::{fields, record_bits, TraceLayout, TraceRecord};
use concord_uarch::HwParams;

use common::{quoted, table};

/// The `tr_*` names of §15.2's table, in order.
fn doc_names() -> Vec<String> {
    table("### 15.2 The trace port")
        .iter()
        .flat_map(|row| {
            quoted(&row[0])
                .into_iter()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn the_fields_are_the_documents_in_order() {
    let hw = HwParams::new(&CoreConfig::default()).unwrap();
    let ours: Vec<String> = fields(&hw)
        .iter()
        .map(|f| format!("tr_{}", f.name))
        .collect();
    assert_eq!(ours, doc_names());
}

/// The default 8×8 core: `W = 8` (3-bit warps), `pc_bits = 12` (4096
/// words), `B = 8`, 512 shared rows (9 bits), `W·RP = 256` rows (8 bits),
/// `N = 8` (3-bit entry, 4-bit free count), `BS = 4` (2-bit slots).
/// §15.2: "about 720 bits, 512 of them register-write and shared-write
/// data".
#[test]
fn default_core_widths() {
    let hw = HwParams::new(&CoreConfig::default()).unwrap();
    let w = |name: &str| fields(&hw).iter().find(|f| f.name == name).unwrap().width;
    let want = [
        ("state", 3),
        ("s_kind", 2),
        ("s_warp", 3),
        ("a_kind", 3),
        ("a_pc", 12),
        ("a_active", 8),
        ("a_gpc", 12),
        ("tree", 3),
        ("pred_addr", 6),
        ("rf_addr", 8),
        ("rf_data", 256),
        ("sh_we", 32),
        ("sh_row", 9),
        ("sh_data", 256),
        ("rsp_entry", 3),
        ("free", 4),
        ("alloc_slot", 2),
        ("warp_state", 24),
        ("trap", 1),
    ];
    for (name, width) in want {
        assert_eq!(w(name), width, "tr_{name}");
    }
    assert_eq!(w("rf_data") + w("sh_data"), 512);
    assert_eq!(record_bits(&hw), 718);
}

#[test]
fn pack_and_unpack_are_inverse() {
    let hw = HwParams::new(&CoreConfig::default()).unwrap();
    let mut r = TraceRecord {
        state: 2,
        s_kind: 1,
        s_warp: 5,
        a_kind: 6,
        a_pc: 0xfff,
        a_gmask: 0x81,
        rsp: 1,
        rsp_entry: 7,
        free: 8,
        retire_slot: 3,
        trap: 1,
        ..TraceRecord::default()
    };
    r.rf_data[7] = 0xdead_beef;
    r.sh_data[0] = 1;
    r.sh_we[0] = 0xf000_0000;
    for w in 0..8 {
        r.set_warp_code(w, (w as u8 * 3) % 8);
    }
    let bits = r.pack(&hw);
    assert_eq!(bits.len(), 718usize.div_ceil(64));
    // tr_state is bits 0..3, tr_s_kind 3..5, tr_s_warp 5..8.
    assert_eq!(bits[0] & 0xff, 2 | 1 << 3 | 5 << 5);
    let back = TraceRecord::unpack(&bits, &hw);
    assert_eq!(back, r);
    for w in 0..8 {
        assert_eq!(back.warp_code(w), (w as u8 * 3) % 8);
    }
}

#[test]
#[should_panic(expected = "tr_s_kind")]
fn a_value_wider_than_its_field_is_refused() {
    let hw = HwParams::new(&CoreConfig::default()).unwrap();
    TraceRecord {
        s_kind: 4,
        ..TraceRecord::default()
    }
    .pack(&hw);
}

/// Any bit vector of a record's width unpacks and packs back to itself,
/// on cores whose fields fall at every alignment (4×1, the default 8×8,
/// 32×16 with four entries); the fields checked bit by bit here (from
/// their offsets in `fields`) are those whose chunks cross 64-bit words.
#[test]
fn random_vectors_unpack_and_pack_back_bit_for_bit() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let configs = [
        CoreConfig {
            lanes: 4,
            warps: 1,
            ..CoreConfig::default()
        },
        CoreConfig::default(),
        CoreConfig {
            lanes: 32,
            warps: 16,
            global_outstanding: 4,
            ..CoreConfig::default()
        },
    ];
    for config in configs {
        let hw = HwParams::new(&config).unwrap();
        let layout = fields(&hw);
        let total = record_bits(&hw) as usize;
        let offset = |name: &str| -> (usize, usize) {
            let mut at = 0;
            for f in &layout {
                if f.name == name {
                    return (at, f.width as usize);
                }
                at += f.width as usize;
            }
            panic!("no field {name}");
        };
        let bit = |v: &[u64], i: usize| v[i / 64] >> (i % 64) & 1;
        // One record overwritten by every vector, as the harness keeps it:
        // nothing of the previous vector may survive.
        let trace_layout = TraceLayout::new(&hw);
        let mut reused = TraceRecord::default();
        for _ in 0..200 {
            let mut v: Vec<u64> = (0..total.div_ceil(64)).map(|_| next()).collect();
            if total % 64 != 0 {
                *v.last_mut().unwrap() &= (1u64 << (total % 64)) - 1;
            }
            let r = TraceRecord::unpack(&v, &hw);
            assert_eq!(r.pack(&hw), v);
            trace_layout.unpack_into(&v, &mut reused);
            assert_eq!(reused.pack(&hw), v);
            let (at, width) = offset("rf_data");
            for j in 0..width {
                assert_eq!(
                    u64::from(r.rf_data[j / 32] >> (j % 32) & 1),
                    bit(&v, at + j)
                );
            }
            let (at, _) = offset("warp_state");
            for w in 0..hw.warps {
                let code = (0..3).map(|k| bit(&v, at + 3 * w + k) << k).sum::<u64>();
                assert_eq!(u64::from(r.warp_code(w)), code);
            }
            assert_eq!(u64::from(r.trap), bit(&v, total - 1));
        }
    }
}
