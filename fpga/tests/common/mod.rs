//! Shared aids of the fpga crate's measurement tests: the ECP5 area of a
//! block (`top`) and its Fmax inside the generated wrapper.

#![allow(dead_code)]

use std::time::Duration;

use concord_fpga::pnr::{Device, Outcome, PnrFlow, PnrOptions};
use concord_fpga::process::WorkDir;
use concord_fpga::{synthesize, AreaStats, Target};

/// Flat `synth_ecp5` of `top` in `v`; prints a table row tagged `tag`.
pub fn area(tag: &str, v: &str) -> AreaStats {
    let t = std::time::Instant::now();
    let s = synthesize(v, "top", Target::Ecp5).expect("yosys (scripts/setup.sh)");
    eprintln!(
        "| {tag} | {} | {} | {} | {} | {} | {} | {} | ({:.0} s)",
        s.luts,
        s.carries,
        s.ffs,
        s.brams,
        s.dsps,
        s.lut_rams,
        s.other,
        t.elapsed().as_secs_f64()
    );
    s
}

/// Place and route of `top` (LFE5U-45F, 50 MHz target, `seed`) within
/// `timeout`: the Fmax; prints the report and the critical path.
pub fn pnr(tag: &str, v: &str, clock: Option<&str>, seed: u64, timeout: Duration) -> f64 {
    let opts = PnrOptions {
        seed,
        freq_mhz: 50.0,
        timeout: Some(timeout),
        ..PnrOptions::default()
    };
    let flow = PnrFlow::new(&[Device::Ecp5_45F], opts.clone()).expect("nextpnr-ecp5");
    let dir = WorkDir::scratch(&format!("v2-pnr-{tag}-{seed}")).unwrap();
    let run = flow
        .run(v, "top", clock, &dir, &mut |s| eprintln!("{tag}: {s}"))
        .unwrap();
    eprintln!("{}", run.to_markdown(&opts, None, &[]));
    let r = &run.results[0];
    assert_eq!(r.outcome, Outcome::Routed);
    let fmax = r.report.fmax_mhz().expect("a clock");
    if let Some(p) = r.report.critical_path() {
        eprintln!(
            "{tag} (seed {seed}): Fmax {fmax:.2} MHz; critical path {} -> {}, {:.2} ns, {} logic steps",
            p.start_cell, p.end_cell, p.delay_ns, p.logic_steps
        );
    }
    fmax
}
