//! Area and Fmax of the whole Core v2 (`concord_hdl::v2::core::core_verilog`),
//! default configuration, `board` preset: flat `synth_ecp5` (LUT4, DSP,
//! block RAM), then place and route on LFE5U-45F speed 6 inside the
//! place-and-route wrapper (`concord_fpga::wrapper`), 50 MHz target.
//! Targets (§19): ≥ 50 MHz, fits a 45F, ≤ 1,500 LUT4 per lane.
//!
//! ```sh
//! cargo test --release -p concord-fpga --test v2_core -- --ignored --nocapture
//! ```

use std::time::Duration;

use concord_fpga::pnr::{Device, Outcome, PnrFlow, PnrOptions};
use concord_fpga::process::WorkDir;
use concord_fpga::{synthesize, Target};

#[test]
#[ignore = "minutes of Yosys and nextpnr; run by hand (see the file's doc)"]
fn v2_core_area_and_fmax_default_board() {
    let config = concord_isa::config::CoreConfig::default();
    let v =
        concord_hdl::v2::core::core_verilog(&config, &concord_uarch::GenOptions::board()).unwrap();
    let t = std::time::Instant::now();
    let s = synthesize(&v, "concord_core", Target::Ecp5).expect("yosys (scripts/setup.sh)");
    eprintln!(
        "concord_core (default, board), synth_ecp5 flat: {} LUT4, {} CCU2C, {} FF, {} DP16KD, {} MULT18X18D, {} LUT-RAM, {} other ({:.0} s)",
        s.luts,
        s.carries,
        s.ffs,
        s.brams,
        s.dsps,
        s.lut_rams,
        s.other,
        t.elapsed().as_secs_f64()
    );
    let opts = PnrOptions {
        seed: 1,
        freq_mhz: 50.0,
        timeout: Some(Duration::from_secs(1800)),
    };
    let flow = PnrFlow::new(&[Device::Ecp5_45F], opts.clone()).expect("nextpnr-ecp5");
    let dir = WorkDir::scratch("v2-core-pnr").unwrap();
    let run = flow
        .run(&v, "concord_core", Some("clk"), &dir, &mut |s| {
            eprintln!("{s}")
        })
        .unwrap();
    eprintln!("{}", run.to_markdown(&opts, None, &[]));
    let r = &run.results[0];
    assert_eq!(r.outcome, Outcome::Routed, "fits a 45F and routes");
    let fmax = r.report.fmax_mhz().expect("a clock");
    if let Some(p) = r.report.critical_path() {
        eprintln!(
            "Fmax {fmax:.2} MHz; critical path {} -> {}, {:.2} ns, {} logic steps",
            p.start_cell, p.end_cell, p.delay_ns, p.logic_steps
        );
    }
    assert!(fmax >= 50.0, "{fmax} MHz");
}
