//! The Core v2 launch unit (`concord_hdl::v2::launch::LaunchUnit`) in
//! rust-hdl's simulator, against sequences computed by hand from
//! docs/microarchitecture-v2.md §12.2–§12.5 (each test says how); then the
//! generated Verilog: module names without `$` and `verilator --lint-only
//! -Wall` clean.

mod common;

use concord_hdl::v2::launch::LaunchUnit;
use concord_hdl::v2::setup::named_verilog;
use concord_isa::config::CoreConfig;
use concord_uarch::HwParams;
use rust_hdl_core::prelude::*;

fn config(lanes: u32, warps: u32, slots: u32, shared: u32, banks: u32) -> HwParams {
    HwParams::new(&CoreConfig {
        lanes,
        warps,
        max_resident_blocks: slots,
        shared_memory_bytes: shared,
        shared_banks: banks,
        registers: 16,
        imem_words: 1024,
        ..CoreConfig::default()
    })
    .unwrap()
}

// ---- Verilog ----

fn lint_of<B: Block>(mut b: B, tag: &str) {
    let top = "concord_v2_launch";
    b.connect_all();
    let v = named_verilog(&b, top);
    common::assert_module_names(&v, top);
    common::verilator_lint(&v, &format!("v2-launch-{tag}"), &format!("{top}.v"), tag);
}

#[test]
fn verilog_lint_of_the_launch_unit() {
    // The default 8×8 core (BS = 4, ROWS = 512, R = 32: IB = 10).
    let default = HwParams::new(&CoreConfig::default()).unwrap();
    lint_of(LaunchUnit::<8, 8, 6, 9, 10>::new(&default), "default");
    // 4 lanes, 2 warps, 2 slots, 64 rows.
    lint_of(
        LaunchUnit::<4, 2, 3, 6, 7>::new(&config(4, 2, 2, 1024, 4)),
        "l4w2",
    );
    // 16 warps, 16 slots.
    lint_of(
        LaunchUnit::<4, 16, 6, 6, 9>::new(&config(4, 16, 16, 1024, 4)),
        "w16",
    );
}
