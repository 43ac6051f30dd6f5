//! The Core v2 RTL (`concord_hdl::v2::core::core_verilog` under Verilator)
//! in lock-step with the v2 cycle model (`concord_testbench::lockstep`,
//! docs/microarchitecture.md §15.4, §20): every cycle both Wishbone
//! ports, the status pins and the trace record must agree bit for bit, the
//! protocol checkers watch the RTL's ports, the registers read back at the
//! end agree, and the final memory and trap agree with the functional
//! model.
//!
//! One test per tier of §20, so that each can be followed as the core
//! grows:
//!
//! * the harness itself, on a toy `concord_core` generated here from the v2
//!   port list (it answers host requests and nothing else);
//! * `paper_goldens` and `every_instruction_under_three_guards`: the cases
//!   of `tests/common/cases.rs` on two cores (4 × 4 `lrr` `unified`
//!   `depth_pc`, 8 banks; 8 × 2 `gto` `split` `pc_only`, 32 banks);
//! * `random_programs`: `CONCORD_V2_RTL_PROGRAMS` programs (default 125) on
//!   each of four shapes, each shape with its own scheduler and arbiter;
//!   the ignored `twenty_thousand_random_programs` is the large tier;
//! * `compiled_suite`: every `-small` launch of the suite (one core, as the
//!   v1 tier), checked by the kernel's host check;
//! * `compiled_random_kernels`: `CONCORD_V2_RTL_RANDOM_KERNELS` compiled
//!   random kernels (default 100) against the IR interpreter;
//! * `stress_configs`: random programs on `configs/stress-latency.yaml` and
//!   `configs/stress-blocks.yaml`, each under both arbiters and both
//!   schedulers.
//!
//! CI runs in lock-step `paper_goldens`,
//! `every_instruction_under_three_guards`, `random_programs`,
//! `compiled_suite`, `compiled_random_kernels`, `host_registers`,
//! `halt_mid_run_in_lock_step` (§15.3) and `bus_errors_in_lock_step`
//! (trap 11, §10.2, §13.1). `stress_configs` (eight
//! core builds) and `twenty_thousand_random_programs` are heavy tiers,
//! run with `cargo test --release -p concord-testbench --test verilator_v2
//! -- --ignored --exact <tier>`; CI runs the stress tier's oracle on the
//! cycle model (`the_random_and_stress_tiers_hold_on_the_cycle_model`).
//!
//! A failure names the case or seed, the cycle and the differing fields.
//! `CONCORD_V2_CASE=<text>` narrows the case tiers to the cases whose name
//! contains the text; `CONCORD_V2_VCD=<dir>` leaves each test's last run as
//! a VCD in `<dir>`. `CONCORD_V2_KEEP_GOING=1` makes the case tiers
//! report every failing case instead of stopping at the first.
//! `CONCORD_V2_IGNORE=<prefix>,<prefix>` leaves the fields whose names
//! start with a prefix out of the per-cycle comparison
//! (`lockstep::run_ignoring`; bring-up only: the test then fails at its
//! end, saying that fields were ignored).

mod common;
mod toy;

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Write as _;

use common::cases::{self, Case};
use concord_isa::config::{ArbiterMode, Arbitration, CoreConfig, Scheduler};
use concord_isa::func::{self, RunError, TrapCause};
use concord_testbench::gen::Program;
use concord_testbench::lockstep::{self, LockstepError, LockstepOutcome};
use concord_testbench::pipeline::{func_reference, PipelineLaunch, PipelineOptions};
use concord_testbench::verilator::{v2_run, BuildOptions, RtlV2};
use concord_uarch::ports::{core_ports, Dir};
use concord_uarch::regmap;
use concord_uarch::trace::{record_bits, TraceRecord};
use concord_uarch::{GenOptions, HwParams};

/// `name` as a whole number, `default` when unset.
fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Err(_) => default,
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?}: expected a whole number")),
    }
}

/// The Verilog of the v2 core of `config` with the trace port.
fn core_verilog(config: &CoreConfig) -> String {
    concord_hdl::v2::core::core_verilog(config, &GenOptions::sim())
        .unwrap_or_else(|e| panic!("the v2 core of {config:?} does not generate: {e}"))
}

thread_local! {
    /// Verilated v2 cores by configuration, built once per test thread
    /// (and cached on disk across threads and runs).
    static RTLS: RefCell<HashMap<CoreConfig, RtlV2>> = Default::default();
}

/// `CONCORD_V2_VCD=<dir>`: the tiers build the cores with VCD support
/// and each run writes `<dir>/<test>.vcd` (replaced by the next run, so a
/// failing test leaves the failing run's waveforms).
fn vcd_dir() -> Option<std::path::PathBuf> {
    std::env::var_os("CONCORD_V2_VCD").map(Into::into)
}

/// Runs `f` on the Verilated v2 core of `config`.
fn with_rtl<T>(config: &CoreConfig, f: impl FnOnce(&mut RtlV2) -> T) -> T {
    RTLS.with(|rtls| {
        let mut rtls = rtls.borrow_mut();
        let rtl = rtls.entry(config.clone()).or_insert_with(|| {
            RtlV2::build(
                &core_verilog(config),
                config,
                &GenOptions::sim(),
                &BuildOptions {
                    trace: vcd_dir().is_some(),
                    ..BuildOptions::default()
                },
            )
            .unwrap_or_else(|e| panic!("verilator build of the v2 core: {e}"))
        });
        if let Some(dir) = vcd_dir() {
            let name = std::thread::current()
                .name()
                .unwrap_or("run")
                .replace("::", "-");
            let path = dir.join(format!("{name}.vcd"));
            rtl.open_vcd(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        let result = f(rtl);
        rtl.close_vcd();
        result
    })
}

fn options(watchdog: u64) -> PipelineOptions {
    PipelineOptions {
        watchdog,
        check_bus: true,
        gen: GenOptions::sim(),
    }
}

/// What the functional model checks besides the trap: global memory
/// below `memory_below` (all of it when `None`) and, with `last_block`, the
/// last block's registers below `regs_used`, its predicates and its shared
/// bytes below `shared_bytes` (§20; the RTL's register file equals the
/// model's, since every register write is on the compared trace port).
#[derive(Clone, Copy)]
struct Oracle {
    memory_below: Option<usize>,
    last_block: bool,
}

const FULL: Oracle = Oracle {
    memory_below: None,
    last_block: true,
};
const MEMORY: Oracle = Oracle {
    memory_below: None,
    last_block: false,
};

/// `CONCORD_V2_IGNORE`: field-name prefixes left out of the comparison.
fn ignored_fields() -> Vec<String> {
    std::env::var("CONCORD_V2_IGNORE")
        .map(|v| {
            v.split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

/// `launch` in lock-step on `config`'s core, then against the functional
/// model (run with the occupancy's shared window): the same trap, or the
/// same final state (`oracle`).
fn lockstep_checked(
    config: &CoreConfig,
    launch: &PipelineLaunch<'_>,
    global: &[u8],
    watchdog: u64,
    oracle: Oracle,
) -> Result<LockstepOutcome, String> {
    let ignored = ignored_fields();
    let o = with_rtl(config, |rtl| {
        lockstep::run_ignoring(config, launch, global, rtl, options(watchdog), &ignored)
    })
    .map_err(|e| e.to_string())?;
    check_against_func(
        config, launch, global, watchdog, oracle, &o.outcome, &o.global,
    )?;
    if !ignored.is_empty() {
        return Err(format!(
            "agreed except in the fields CONCORD_V2_IGNORE left out ({}): not a pass",
            ignored.join(", ")
        ));
    }
    Ok(o)
}

/// The final state `outcome`, `final_global` of a run of `launch` against
/// the functional model's (see [`lockstep_checked`]).
fn check_against_func(
    config: &CoreConfig,
    launch: &PipelineLaunch<'_>,
    global: &[u8],
    watchdog: u64,
    oracle: Oracle,
    outcome: &concord_testbench::pipeline::Outcome,
    final_global: &[u8],
) -> Result<(), String> {
    let mut expect = global.to_vec();
    let l = &launch.launch;
    let mut last = common::LastBlock {
        threads: (l.block[0] * l.block[1] * l.block[2]) as usize,
        state: None,
    };
    let func = func_reference(
        config,
        launch,
        &mut expect,
        func::Options { watchdog },
        Some(&mut last),
    )
    .map_err(RunError::unwrap_trap);
    match (&func, &outcome.result) {
        (Ok(_), Ok(())) => {
            let n = oracle
                .memory_below
                .unwrap_or(expect.len())
                .min(expect.len());
            if let Some(i) = (0..n).find(|&i| expect[i] != final_global[i]) {
                return Err(format!(
                    "global byte {i:#x}: functional {:#04x}, RTL and model {:#04x}",
                    expect[i], final_global[i]
                ));
            }
            if oracle.last_block {
                let (want, got) = match (&last.state, &outcome.last_block) {
                    (Some(w), Some(g)) => (w, g),
                    _ => return Err("no last block state".into()),
                };
                for (t, (w, g)) in want.regs.iter().zip(&got.regs).enumerate() {
                    if let Some(r) = (0..launch.regs_used as usize).find(|&r| w[r] != g[r]) {
                        return Err(format!(
                            "last block, thread {t}, r{r}: functional {:#x}, RTL and model {:#x}",
                            w[r], g[r]
                        ));
                    }
                }
                for (t, (w, g)) in want.preds.iter().zip(&got.preds).enumerate() {
                    if let Some(q) = (0..config.predicates as usize).find(|&q| w[q] != g[q]) {
                        return Err(format!(
                            "last block, thread {t}, p{q}: functional {}, RTL and model {}",
                            w[q], g[q]
                        ));
                    }
                }
                let n = launch.shared_bytes as usize;
                if want.shared.get(..n) != got.shared.get(..n) {
                    return Err(
                        "last block's shared memory differs from the functional model's".into(),
                    );
                }
            }
        }
        (Err(f), Err(t)) => {
            let both_watchdog = matches!(f.cause, TrapCause::Watchdog { .. })
                && matches!(t.cause, TrapCause::Watchdog { .. });
            if !both_watchdog && !f.same_report(t) {
                return Err(format!("trap: functional `{f}`, RTL and model `{t}`"));
            }
        }
        (Ok(_), Err(t)) => return Err(format!("RTL and model trapped (`{t}`), functional not")),
        (Err(f), Ok(())) => return Err(format!("functional trapped (`{f}`), RTL and model not")),
    }
    Ok(())
}

// ---------------------------------------------------------------------
// The harness on a toy core.

/// A toy `concord_core` with exactly the v2 ports of `config` (widths from
/// `core_ports`): the host slave acknowledges every request one cycle
/// later with read data 0 (§14.3), every other output is a constant, and
/// `tr_record` is `record` packed. With `ack_stuck_at_1` the slave's `ACK`
/// is 1 in every cycle.
fn toy_verilog(config: &CoreConfig, record: &TraceRecord, ack_stuck_at_1: bool) -> String {
    toy_verilog_with(config, record, ack_stuck_at_1, &[])
}

/// [`toy_verilog`] with some outputs driven by the given expressions
/// instead of 0.
fn toy_verilog_with(
    config: &CoreConfig,
    record: &TraceRecord,
    ack_stuck_at_1: bool,
    drive: &[(&str, &str)],
) -> String {
    toy_verilog_body(config, record, ack_stuck_at_1, drive, "")
}

/// [`toy_verilog_with`] with `body` (declarations and processes the
/// `drive` expressions use) inside the module.
fn toy_verilog_body(
    config: &CoreConfig,
    record: &TraceRecord,
    ack_stuck_at_1: bool,
    drive: &[(&str, &str)],
    body: &str,
) -> String {
    let hw = HwParams::new(config).unwrap();
    let ports = core_ports(&hw, &GenOptions::sim());
    let mut v = toy::module_header(
        "A toy concord_core for testing the harness.",
        &ports,
        &["wbs_ack_o"],
    );
    // A register that alternates 0, 1, 0, ... from cycle 0 on, for outputs
    // that change every cycle.
    v += "    reg toggle;\n    always @(posedge clk) toggle <= rst ? 1'b0 : ~toggle;\n";
    v += body;
    let stuck = u8::from(ack_stuck_at_1);
    let _ = writeln!(
        v,
        "    always @(posedge clk) wbs_ack_o <= rst ? 1'b{stuck} : (1'b{stuck} | (wbs_cyc_i & wbs_stb_i));"
    );
    let bits = record.pack(&hw);
    let width = record_bits(&hw) as usize;
    let hex: String = (0..width.div_ceil(4))
        .rev()
        .map(|nibble| {
            let at = 4 * nibble;
            let v = (bits[at / 64] >> (at % 64)) & 0xf;
            char::from_digit(v as u32, 16).unwrap()
        })
        .collect();
    for p in ports.iter().filter(|p| p.dir == Dir::Out) {
        match p.name {
            "wbs_ack_o" => {}
            "tr_record" => {
                let _ = match drive.iter().find(|(name, _)| *name == "tr_record") {
                    Some((_, e)) => writeln!(v, "    assign tr_record = {e};"),
                    None => writeln!(v, "    assign tr_record = {width}'h{hex};"),
                };
            }
            n => match drive.iter().find(|(name, _)| *name == n) {
                Some((_, e)) => {
                    let _ = writeln!(v, "    assign {n} = {e};");
                }
                None => {
                    let _ = writeln!(v, "    assign {n} = {}'d0;", p.width);
                }
            },
        }
    }
    v += "endmodule\n";
    v
}

/// The Verilator model of a toy core's `verilog` for `config` (`sim`
/// options, no VCD).
fn toy_rtl(verilog: &str, config: &CoreConfig) -> RtlV2 {
    RtlV2::build(
        verilog,
        config,
        &GenOptions::sim(),
        &BuildOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn toy_config() -> CoreConfig {
    CoreConfig {
        lanes: 4,
        warps: 2,
        global_memory_bytes: 4096,
        ..CoreConfig::default()
    }
}

/// The record of an idle core by §15.2: state `IDLE` (0), every warp
/// `EMPTY` (0, §5.5), every entry free, nothing else happening.
fn idle_record(config: &CoreConfig) -> TraceRecord {
    TraceRecord {
        free: config.global_outstanding,
        ..TraceRecord::default()
    }
}

fn exit_launch(kernel: &concord_isa::container::Kernel) -> PipelineLaunch<'_> {
    common::launch_1d(kernel, 4, 1)
}

/// The toy answers the host like the model while the launch is written;
/// the first difference is the `START` cycle, whose edge puts the model in
/// `SETUP`, so that `running_o` is 1 during the next cycle (§14.2: it is
/// registered and follows the state), while the toy's stays 0.
#[test]
fn the_toy_core_agrees_until_start_and_the_report_names_the_cycle_and_field() {
    let config = toy_config();
    let verilog = toy_verilog(&config, &idle_record(&config), false);
    let mut rtl = toy_rtl(&verilog, &config);
    let kernel = common::assemble("exit\n");
    let launch = exit_launch(&kernel);
    let global = vec![0; 4096];
    // The host script: the launch writes, then START, one per cycle.
    let extras = regmap::LaunchExtras {
        shared_bytes: 0,
        clear_regs: 0,
        clear_shared: 0,
    };
    let start_cycle = regmap::launch_writes(&launch.launch, &extras).len() as u64;
    match lockstep::run(&config, &launch, &global, &mut rtl, options(1000)) {
        Err(LockstepError::Mismatch(m)) => {
            assert_eq!(m.cycle, start_cycle, "{m}");
            let fields: Vec<(&str, &str, &str)> = m
                .diffs
                .iter()
                .map(|d| (d.field.as_str(), d.model.as_str(), d.rtl.as_str()))
                .collect();
            assert_eq!(fields, [("running_o", "1", "0")], "{m}");
            assert_eq!(m.before.len(), lockstep::CONTEXT, "{m}");
            assert_eq!(m.before.last().unwrap().0, start_cycle - 1, "{m}");
            let text = m.to_string();
            assert!(
                text.contains(&format!("differ at cycle {start_cycle}")),
                "{text}"
            );
        }
        other => panic!("expected a mismatch at cycle {start_cycle}, got {other:?}"),
    }
    assert!(rtl.cycles() > start_cycle);
}

/// A host slave whose `ACK` is 1 from reset answers a request nobody made
/// in cycle 0: the checker of §20 reports it at cycle 0, on the `wbs` port.
#[test]
fn a_host_ack_without_a_request_is_reported_at_its_cycle() {
    let config = toy_config();
    let verilog = toy_verilog(&config, &idle_record(&config), true);
    let mut rtl = toy_rtl(&verilog, &config);
    let kernel = common::assemble("exit\n");
    let launch = exit_launch(&kernel);
    match lockstep::run(&config, &launch, &vec![0; 4096], &mut rtl, options(1000)) {
        Err(LockstepError::Protocol(p)) => {
            assert_eq!(p.cycle, 0, "{p}");
            assert!(
                p.violations.iter().all(|v| v.starts_with("wbs port")),
                "{p}"
            );
            assert!(
                p.diffs
                    .iter()
                    .any(|d| d.field == "wbs.ack" && d.model == "0" && d.rtl == "1"),
                "{p}"
            );
        }
        other => panic!("expected a protocol violation at cycle 0, got {other:?}"),
    }
}

/// A master that raises `STB` without `CYC` breaks §20's first rule from
/// cycle 0 on: reported at cycle 0, on the `gm` port.
#[test]
fn a_strobe_without_cycle_on_the_memory_port_is_reported_at_its_cycle() {
    let config = toy_config();
    let verilog = toy_verilog_with(
        &config,
        &idle_record(&config),
        false,
        &[("gm_stb_o", "1'b1")],
    );
    let mut rtl = toy_rtl(&verilog, &config);
    let kernel = common::assemble("exit\n");
    match lockstep::run(
        &config,
        &exit_launch(&kernel),
        &vec![0; 4096],
        &mut rtl,
        options(1000),
    ) {
        Err(LockstepError::Protocol(p)) => {
            assert_eq!(p.cycle, 0, "{p}");
            assert!(p.violations.iter().all(|v| v.starts_with("gm port")), "{p}");
            let fields: Vec<&str> = p.diffs.iter().map(|d| d.field.as_str()).collect();
            assert_eq!(fields, ["gm.stb"], "{p}");
        }
        other => panic!("expected a protocol violation at cycle 0, got {other:?}"),
    }
}

/// The standalone runner (`verilator::v2_run::run`) on a toy core: the
/// launch's writes one per cycle, then idle cycles until `done_o`, then
/// `STATUS` and every counter read through the slave, each read answered
/// one cycle later. The toy raises `done_o` 40 cycles after the write of
/// `CTRL.START`, answers `STATUS` with done and state `DONE` (§14.4), and
/// every other address `a` with `a ^ 0xa5000000`, so each counter's
/// expected value is its two word addresses (§14.4's `COUNTER_LO + 2k`,
/// `COUNTER_HI + 2k`) worked out here.
#[test]
fn the_standalone_runner_drives_the_host_port_and_reads_every_counter() {
    let config = toy_config();
    let done_status = regmap::Status {
        done: true,
        state: 4,
        ..Default::default()
    }
    .encode();
    let body = format!(
        "    reg [31:0] rdata;\n    reg started;\n    reg [7:0] since_start;\n    \
         always @(posedge clk) begin\n        if (rst) begin rdata <= 32'd0; started <= 1'b0; since_start <= 8'd0; end\n        \
         else begin\n            if (wbs_cyc_i & wbs_stb_i & wbs_we_i & (wbs_adr_i == {ab}'h{ctrl:x}) & wbs_dat_i[0]) started <= 1'b1;\n            \
         if (started & (since_start != 8'd255)) since_start <= since_start + 8'd1;\n            \
         rdata <= (wbs_adr_i == {ab}'h{status:x}) ? 32'h{done_status:x} : ({{{pad}'d0, wbs_adr_i}} ^ 32'ha5000000);\n        end\n    end\n",
        ctrl = regmap::CTRL,
        status = regmap::STATUS,
        ab = regmap::ADDR_BITS,
        pad = 32 - regmap::ADDR_BITS,
    );
    let verilog = toy_verilog_body(
        &config,
        &idle_record(&config),
        false,
        &[("done_o", "since_start >= 8'd40"), ("wbs_dat_o", "rdata")],
        &body,
    );
    let mut rtl = toy_rtl(&verilog, &config);
    let kernel = common::assemble("exit\n");
    let launch = exit_launch(&kernel);
    let writes = launch.host_writes().len() as u64;
    let mut global = vec![7u8; 4096];
    let outcome = v2_run::run(&mut rtl, &config, &launch, &mut global, 1000)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        outcome.status.done && !outcome.status.trapped,
        "{outcome:?}"
    );
    assert_eq!(outcome.trap_cause, None);
    // START is written in cycle `writes - 1`; the toy counts from the
    // next cycle and raises done_o after its 40th count.
    assert_eq!(outcome.cycles, writes + 40);
    for (k, value) in outcome.counters.values.iter().enumerate() {
        let k = k as u32;
        let lo = (0x10140 + 2 * k) ^ 0xa500_0000;
        let hi = (0x10141 + 2 * k) ^ 0xa500_0000;
        assert_eq!(*value, u64::from(lo) | u64::from(hi) << 32, "counter {k}");
    }
    assert_eq!(global, vec![7u8; 4096], "the toy never writes memory");
    // A core that never finishes is reported, not waited for.
    let mut never = toy_rtl(&toy_verilog(&config, &idle_record(&config), false), &config);
    let e = v2_run::run(&mut never, &config, &launch, &mut global, 50).unwrap_err();
    assert!(e.contains("neither DONE nor TRAP within 50 cycles"), "{e}");
}

/// Multi-word ports cross the packed path whole: a 32-byte bus (`gm_sel_o`
/// 32 bits, `gm_dat_o` 256 bits, `gm_adr_o` 27 bits) driven with constants
/// reads back as those constants in the master's record.
#[test]
fn wide_master_outputs_read_back_whole() {
    let config = CoreConfig {
        global_bus_bytes: 32,
        ..toy_config()
    };
    let data: String = (0..8u32)
        .rev()
        .map(|i| format!("{:08x}", 0x1111_1111u32.wrapping_mul(i + 1)))
        .collect();
    let dat = format!("256'h{data}");
    let verilog = toy_verilog_with(
        &config,
        &idle_record(&config),
        false,
        &[
            ("gm_cyc_o", "1'b1"),
            ("gm_adr_o", "27'h5abcdef"),
            ("gm_sel_o", "32'hf00ff00f"),
            ("gm_dat_o", &dat),
            ("gm_tga_o", "4'd9"),
            ("gm_we_o", "1'b1"),
        ],
    );
    let rtl = toy_rtl(&verilog, &config);
    let m = rtl.master();
    assert!(m.cyc && m.we && !m.stb);
    assert_eq!((m.adr, m.sel, m.tga), (0x5ab_cdef, 0xf00f_f00f, 9));
    let want: Vec<u32> = (0..8u32)
        .map(|i| 0x1111_1111u32.wrapping_mul(i + 1))
        .collect();
    assert_eq!(m.dat_w[..8], want[..]);
    assert!(m.dat_w[8..].iter().all(|&w| w == 0));
}

/// The packed record in Verilog hex.
fn record_hex(config: &CoreConfig, record: &TraceRecord) -> String {
    let hw = HwParams::new(config).unwrap();
    let bits = record.pack(&hw);
    let width = record_bits(&hw) as usize;
    let digits: String = (0..width.div_ceil(4))
        .rev()
        .map(|nibble| {
            let at = 4 * nibble;
            char::from_digit(((bits[at / 64] >> (at % 64)) & 0xf) as u32, 16).unwrap()
        })
        .collect();
    format!("{width}'h{digits}")
}

/// A trace port that changes every cycle is unpacked every cycle, and one
/// that holds is the same record: the toy alternates two records.
#[test]
fn every_cycle_gets_the_record_on_the_port() {
    let config = toy_config();
    let a = TraceRecord {
        state: 2,
        a_pc: 17,
        rf_data: [0x0bad_cafe; 32],
        ..idle_record(&config)
    };
    let mut b = TraceRecord {
        s_kind: 1,
        s_warp: 1,
        ..idle_record(&config)
    };
    b.set_warp_code(1, 5);
    // Lanes 0..3 of rf_data are the port's; the rest are not.
    let mut a_on_port = a.clone();
    a_on_port.rf_data[4..].fill(0);
    let expr = format!(
        "toggle ? {} : {}",
        record_hex(&config, &b),
        record_hex(&config, &a_on_port)
    );
    let verilog = toy_verilog_with(&config, &a_on_port, false, &[("tr_record", &expr)]);
    let mut rtl = toy_rtl(&verilog, &config);
    let mut memory = concord_testbench::pipeline::WishboneMemory::new(vec![0; 64], rtl.hw());
    let idle = concord_uarch::wishbone::Signals::idle();
    // `toggle` is 0 during cycle 0 and 1 after its edge: the record read
    // after cycle c's edge is b for even c, a for odd c.
    for c in 0..6 {
        let got = rtl.cycle(&idle, &mut memory).trace.unwrap();
        let want = if c % 2 == 0 { &b } else { &a_on_port };
        assert_eq!(&got, want, "cycle {c}");
    }
}

/// A build with VCD support writes the waveforms of a run: the VCD names
/// the v2 ports and has one time step per half cycle.
#[test]
fn a_traced_v2_build_writes_a_vcd() {
    let config = toy_config();
    let verilog = toy_verilog(&config, &idle_record(&config), false);
    let build = BuildOptions {
        trace: true,
        ..BuildOptions::default()
    };
    let mut rtl = RtlV2::build(&verilog, &config, &GenOptions::sim(), &build)
        .unwrap_or_else(|e| panic!("{e}"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("toy.vcd");
    rtl.open_vcd(&path).unwrap();
    let kernel = common::assemble("exit\n");
    let e = lockstep::run(
        &config,
        &exit_launch(&kernel),
        &vec![0; 4096],
        &mut rtl,
        options(1000),
    )
    .unwrap_err();
    assert!(matches!(e, LockstepError::Mismatch(_)), "{e}");
    let cycles = rtl.cycles();
    rtl.close_vcd();
    let vcd = std::fs::read_to_string(&path).unwrap();
    for port in ["wbs_ack_o", "tr_record", "gm_cyc_o"] {
        assert!(vcd.contains(port), "{port} not in the VCD");
    }
    // Clock cycle k since the model was created has its edge at 10 k + 5:
    // the run's last is after the build's reset, the run's own reset and
    // the run's cycles.
    let resets = 2 * u64::from(concord_testbench::verilator::RESET_CYCLES);
    let last_edge = 10 * (resets + cycles - 1) + 5;
    assert!(
        vcd.contains(&format!("\n#{last_edge}\n")),
        "no #{last_edge}"
    );
    assert!(!vcd.contains(&format!("\n#{}\n", last_edge + 10)));
}

/// Cycles per second of the v2 harness alone (the RTL answered by the
/// testbench memory, no model) on the default core, from `START` on
/// (`-- --ignored --nocapture`; a figure, not a check).
#[test]
#[ignore]
fn speed() {
    use concord_testbench::pipeline::{host_write, WishboneMemory};
    use concord_uarch::wishbone::Signals;
    let config = CoreConfig::default();
    let kernel = common::assemble("loop: bra loop\n");
    let launch = common::launch_1d(&kernel, 64, 1);
    with_rtl(&config, |rtl| {
        let hw = rtl.hw().clone();
        let mut memory = WishboneMemory::new(vec![0; 4096], &hw);
        rtl.reset();
        let extras = regmap::LaunchExtras {
            shared_bytes: 0,
            clear_regs: 0,
            clear_shared: 0,
        };
        for (adr, value) in regmap::launch_writes(&launch.launch, &extras)
            .into_iter()
            .chain([regmap::start_write()])
        {
            rtl.cycle(&host_write(adr, value), &mut memory);
        }
        let n = 2_000_000u64;
        let started = std::time::Instant::now();
        let mut running = 0u64;
        for _ in 0..n {
            running += u64::from(rtl.cycle(&Signals::idle(), &mut memory).pins.running);
        }
        let s = started.elapsed().as_secs_f64();
        eprintln!(
            "v2 RTL, default core ({} trace bits): {n} cycles in {s:.2} s, {:.2} M cycles/s ({running} of them running)",
            record_bits(&hw),
            n as f64 / s / 1e6
        );
    });
}

/// A core built for one configuration is refused for another.
#[test]
fn a_core_of_another_configuration_is_refused() {
    let config = toy_config();
    let verilog = toy_verilog(&config, &idle_record(&config), false);
    let mut rtl = toy_rtl(&verilog, &config);
    let other = CoreConfig { warps: 4, ..config };
    let kernel = common::assemble("exit\n");
    let e = lockstep::run(
        &other,
        &exit_launch(&kernel),
        &vec![0; 4096],
        &mut rtl,
        options(10),
    )
    .unwrap_err();
    assert!(matches!(e, LockstepError::Setup(_)), "{e}");
}

// ---------------------------------------------------------------------
// The tiers.

/// The two cores of the case tiers.
fn case_configs() -> [CoreConfig; 2] {
    [
        CoreConfig {
            lanes: 4,
            warps: 4,
            global_latency: 3,
            global_memory_bytes: 4096,
            ..CoreConfig::default()
        },
        // 32 banks of the default 512 rows.
        CoreConfig {
            lanes: 8,
            warps: 2,
            global_latency: 20,
            shared_banks: 32,
            shared_memory_bytes: 65536,
            scheduler: Scheduler::Gto,
            arbiter: ArbiterMode::Split,
            arbitration: Arbitration::PcOnly,
            global_memory_bytes: 4096,
            ..CoreConfig::default()
        },
    ]
}

/// Runs `f` on every case on each core it fits (and whose policy it asks
/// for); panics with the case and core on the first error.
/// `CONCORD_V2_CASE=<text>` runs only the cases whose name contains it.
fn for_each_case(
    cases: &[Case],
    mut f: impl FnMut(&CoreConfig, &PipelineLaunch<'_>, &Case, Oracle) -> Result<(), String>,
) {
    let only = std::env::var("CONCORD_V2_CASE").ok();
    let cases: Vec<&Case> = cases
        .iter()
        .filter(|c| only.as_ref().map_or(true, |o| c.name.contains(o.as_str())))
        .collect();
    assert!(!cases.is_empty(), "no case's name contains {only:?}");
    let mut ran = 0;
    // `CONCORD_V2_KEEP_GOING`: report every failing case (its first
    // mismatch) and fail at the end, a bring-up aid.
    let keep_going = std::env::var_os("CONCORD_V2_KEEP_GOING").is_some();
    let mut failed = Vec::new();
    for config in case_configs() {
        for &case in &cases {
            if case.threads() > config.lanes * config.warps
                || case.policy.is_some_and(|p| p != config.arbitration)
            {
                continue;
            }
            let kernel = concord_isa::asm::assemble(&case.src, "case.s")
                .unwrap_or_else(|e| panic!("`{}`: {e}", case.name));
            let launch = PipelineLaunch {
                launch: func::Launch {
                    code: &kernel.code,
                    entry_pc: kernel.entries[0].pc,
                    grid: [case.blocks, 1, 1],
                    block: case.block,
                    params: &case.params,
                    stack_bytes: kernel.stack_bytes,
                },
                shared_bytes: kernel.shared_bytes,
                regs_used: kernel.regs_used,
            };
            let oracle = if case.deterministic { FULL } else { MEMORY };
            if let Err(e) = f(&config, &launch, case, oracle) {
                let report = format!(
                    "`{}` on {} lanes × {} warps {:?} {:?}: {e}",
                    case.name, config.lanes, config.warps, config.scheduler, config.arbiter
                );
                if !keep_going {
                    panic!("{report}");
                }
                println!("FAILED CASE {report}");
                failed.push(case.name.clone());
            }
            ran += 1;
        }
    }
    assert!(
        failed.is_empty(),
        "{} failing runs: {failed:?}",
        failed.len()
    );
    assert!(
        ran >= cases.len(),
        "only {ran} runs for {} cases",
        cases.len()
    );
}

/// Every case in lock-step (see [`for_each_case`]).
fn check_cases(cases: &[Case]) {
    for_each_case(cases, |config, launch, case, oracle| {
        lockstep_checked(config, launch, &case.global, case.watchdog, oracle).map(|_| ())
    });
}

/// The oracle of the case tiers holds on the cycle model alone (so a case
/// tier's failure is the RTL's): every case on both cores, run by
/// `pipeline::run`, ends in the functional model's state.
#[test]
fn the_case_tiers_hold_on_the_cycle_model() {
    let mut all = Vec::new();
    all.extend(cases::golden_divergence_and_reconvergence());
    all.extend(cases::golden_consensual_branches());
    all.extend(cases::golden_spin_locks());
    all.extend(cases::golden_barriers());
    all.extend(cases::golden_traps());
    all.extend(cases::next_pc_outside_the_program());
    all.extend(cases::stack_overflow());
    all.extend(cases::golden_partial_warp_and_multiple_blocks());
    all.extend(cases::instructions_alu());
    all.extend(cases::instructions_predicates());
    all.extend(cases::instructions_special_registers());
    all.extend(cases::instructions_loads_and_stores());
    all.extend(cases::instructions_atomics());
    all.extend(cases::instructions_votes());
    all.extend(cases::instructions_control());
    for_each_case(&all, |config, launch, case, oracle| {
        let mut g = case.global.clone();
        let o = concord_testbench::pipeline::run(config, launch, &mut g, options(case.watchdog))?;
        check_against_func(config, launch, &case.global, case.watchdog, oracle, &o, &g)
    });
}

/// The host slave (§14.3, §14.4, §12.1) without a block ever running:
/// every register read back in `IDLE`; writes to a read-only and an
/// unmapped address, a read of a write-only one, `HALT` set and cleared;
/// a launch that SETUP refuses (more threads than the core has), then
/// every register read back again (`STATUS.refused`, counters).
#[test]
fn host_registers() {
    use concord_testbench::pipeline::{host_read, host_write};
    use concord_uarch::wishbone::Signals;
    for config in case_configs() {
        let kernel = common::assemble("exit\n");
        let too_many = config.lanes * config.warps + 1;
        let launch = func::Launch {
            code: &kernel.code,
            entry_pc: 0,
            grid: [1, 1, 1],
            block: [too_many, 1, 1],
            params: &[5, 6],
            stack_bytes: 0,
        };
        let extras = regmap::LaunchExtras {
            shared_bytes: 0,
            clear_regs: 0,
            clear_shared: 0,
        };
        let wait = Signals {
            cyc: true,
            ..Signals::idle()
        };
        let mut script = vec![
            host_read(regmap::ID),
            host_write(regmap::ID, 7),
            host_write(0x1_FFFF, 7),
            host_read(regmap::ENTRY_PC),
            host_write(regmap::CTRL, 2),
            host_read(regmap::CTRL),
            host_read(regmap::STATUS),
            host_write(regmap::CTRL, 0),
            wait,
        ];
        script.extend(
            regmap::launch_writes(&launch, &extras)
                .into_iter()
                .chain([regmap::start_write()])
                .map(|(adr, value)| host_write(adr, value)),
        );
        script.push(wait);
        script.extend(std::iter::repeat(Signals::idle()).take(12));
        script.push(host_read(regmap::STATUS));
        script.push(wait);
        let with = |rtl: &mut RtlV2| {
            lockstep::host_script(&config, rtl, GenOptions::sim(), &script, &vec![0; 4096])
        };
        if let Err(e) = with_rtl(&config, with) {
            panic!(
                "{} lanes × {} warps {:?} {:?}: {e}",
                config.lanes, config.warps, config.scheduler, config.arbiter
            );
        }
    }
}

/// A host script that loads `kernel` with `grid` × `block` threads,
/// starts it, then runs `body` and `tail` idle cycles in which the host
/// reads `DBG_QUEUE` every fifth cycle (§14.4: the global unit's counts
/// while entries are in flight).
fn launch_script(
    kernel: &concord_isa::container::Kernel,
    grid: [u32; 3],
    block: [u32; 3],
    body: &[concord_uarch::wishbone::Signals],
    tail: usize,
) -> Vec<concord_uarch::wishbone::Signals> {
    use concord_testbench::pipeline::{host_read, host_write};
    use concord_uarch::wishbone::Signals;
    let launch = func::Launch {
        code: &kernel.code,
        entry_pc: 0,
        grid,
        block,
        params: &[],
        stack_bytes: 0,
    };
    let extras = regmap::LaunchExtras {
        shared_bytes: 0,
        clear_regs: 32,
        clear_shared: 0,
    };
    let wait = Signals {
        cyc: true,
        ..Signals::idle()
    };
    let mut script: Vec<Signals> = regmap::launch_writes(&launch, &extras)
        .into_iter()
        .chain([regmap::start_write()])
        .map(|(adr, value)| host_write(adr, value))
        .collect();
    script.push(wait);
    script.extend_from_slice(body);
    for i in 0..tail {
        script.push(match i % 5 {
            0 => host_read(regmap::DBG_QUEUE),
            1 => wait,
            _ => Signals::idle(),
        });
    }
    script
}

/// Two warps per block, three blocks, a loop with divergence, global loads
/// and stores and a barrier (its release sets `rearb` for the block's
/// warps, so the re-arbitration engine runs, §9.5); each block works on
/// its own 64 bytes.
const HALT_KERNEL: &str = "
        s2r     r1, %tid
        s2r     r7, %ctaid.x
        shl     r2, r1, 2
        shl     r7, r7, 6
        add     r2, r2, r7
        movi    r6, 3
    loop:
        ld.global r3, [r2+256]
        and     r4, r1, 1
        setp.eq p1, r4, 0
        @p1 bra even
        add     r3, r3, 7
        bra     join
    even:
        add     r3, r3, 3
    join:
        st.global [r2+256], r3
        bar.sync
        add     r6, r6, -1
        setp.gt p2, r6, 0
        @p2 bra loop
        exit
";

/// §15.3: `HALT` set in the middle of a run and cleared again. While it
/// is 1, S selects only return slots, the launch unit and the
/// re-arbitration engine pause (the engine loads no warp; a warp it loaded
/// in the cycle before is still computed); responses keep arriving and
/// `STATUS.halted` turns 1 once nothing is in flight. The host sets `HALT`
/// at every cycle of the run in turn, for 1 cycle and for 12 cycles
/// (reading `STATUS`, `DBG_QUEUE`, `WSTATE0` and `DBG_FLAGS` meanwhile),
/// and every cycle must agree with the cycle model, as must the registers
/// read back at the end.
#[test]
fn halt_mid_run_in_lock_step() {
    use concord_testbench::pipeline::{host_read, host_write};
    use concord_uarch::wishbone::Signals;
    let kernel = common::assemble(HALT_KERNEL);
    let wait = Signals {
        cyc: true,
        ..Signals::idle()
    };
    let mut runs = 0;
    for config in case_configs() {
        let global = vec![0u8; config.global_memory_bytes as usize];
        // The run's length without HALT, from `START` to `DONE`, on the
        // cycle model.
        let plain = launch_script(&kernel, [3, 1, 1], [8, 1, 1], &[], 2000);
        let writes = launch_script(&kernel, [3, 1, 1], [8, 1, 1], &[], 0).len();
        let mut model = concord_testbench::pipeline::Pipeline::idle(&config, GenOptions::sim())
            .expect("an idle cycle model");
        model.set_global(global.clone());
        let done = plain
            .iter()
            .position(|h| {
                model.cycle(h);
                model.status().done
            })
            .expect("the run ends");
        let length = done - writes;
        assert!(length > 100, "a run of {length} cycles");
        for held in [1usize, 12] {
            for at in 0..length {
                let mut body = vec![Signals::idle(); at];
                body.push(host_write(regmap::CTRL, 2));
                let reads = [
                    regmap::STATUS,
                    regmap::DBG_QUEUE,
                    regmap::WSTATE0,
                    regmap::DBG_FLAGS,
                ];
                for i in 0..held - 1 {
                    body.push(host_read(reads[i % reads.len()]));
                }
                body.push(host_write(regmap::CTRL, 0));
                body.push(wait);
                let script = launch_script(&kernel, [3, 1, 1], [8, 1, 1], &body, length + 100);
                let result = with_rtl(&config, |rtl| {
                    lockstep::host_script(&config, rtl, GenOptions::sim(), &script, &global)
                });
                if let Err(e) = result {
                    panic!(
                        "{} × {}, HALT from cycle {at} of the run for {held} cycles: {e}",
                        config.lanes, config.warps
                    );
                }
                runs += 1;
            }
        }
    }
    eprintln!("{runs} runs with HALT in lock-step");
}

/// §10.2, §13.1: a beat answered with `ERR` makes its entry complete
/// without data and raise trap 11 when it completes (its last beat
/// processed), reporting the entry's warp, served lanes and pc and the
/// byte address of its first `ERR` beat. Each warp loads, then stores, 4
/// bytes per lane (one entry of 4 or 8 beats of 4 bytes); the memory
/// answers `ERR` to the accepted beat `n` (each `n` of the run in turn) or
/// to beats `n` and `n + 1`, so that the error falls on first, middle and
/// last beats, of reads and writes, of older and younger blocks. Every
/// cycle (trace, buses, `DBG_QUEUE` reads) and the registers read at the
/// end (`TRAP_ADDR` among them) must agree with the cycle model.
#[test]
fn bus_errors_in_lock_step() {
    let kernel = common::assemble(
        "
        s2r     r1, %tid
        s2r     r7, %ctaid.x
        shl     r2, r1, 2
        shl     r7, r7, 6
        add     r2, r2, r7
        ld.global r3, [r2+256]
        add     r3, r3, 1
        st.global [r2+512], r3
        exit
        ",
    );
    let mut runs = 0;
    for config in case_configs() {
        let global = vec![0u8; config.global_memory_bytes as usize];
        let script = launch_script(&kernel, [3, 1, 1], [8, 1, 1], &[], 800);
        // 3 blocks × 8 threads, a load and a store of 4 bytes each: 48
        // beats of 4 bytes.
        for n in 0..48u64 {
            for errors in [vec![n], vec![n, n + 1]] {
                let result = with_rtl(&config, |rtl| {
                    lockstep::host_script_with_bus_errors(
                        &config,
                        rtl,
                        GenOptions::sim(),
                        &script,
                        &global,
                        &errors,
                    )
                });
                if let Err(e) = result {
                    panic!(
                        "{} × {}, ERR on beats {errors:?}: {e}",
                        config.lanes, config.warps
                    );
                }
                runs += 1;
            }
        }
    }
    eprintln!("{runs} runs with bus errors in lock-step");
}

/// The paper goldens (Collange Table 2 and Listing 1, consensual branches,
/// spin locks, barriers, traps, stack overflows, partial warps and blocks).
#[test]
fn paper_goldens() {
    check_cases(&paper_golden_cases());
}

fn paper_golden_cases() -> Vec<Case> {
    let mut all = Vec::new();
    all.extend(cases::golden_divergence_and_reconvergence());
    all.extend(cases::golden_consensual_branches());
    all.extend(cases::golden_spin_locks());
    all.extend(cases::golden_barriers());
    all.extend(cases::golden_traps());
    all.extend(cases::next_pc_outside_the_program());
    all.extend(cases::stack_overflow());
    all.extend(cases::golden_partial_warp_and_multiple_blocks());
    all
}

/// Every instruction under the three guards (none, `@p1`, `@!pt`).
#[test]
fn every_instruction_under_three_guards() {
    check_cases(&instruction_cases());
}

fn instruction_cases() -> Vec<Case> {
    let mut all = Vec::new();
    all.extend(cases::instructions_alu());
    all.extend(cases::instructions_predicates());
    all.extend(cases::instructions_special_registers());
    all.extend(cases::instructions_loads_and_stores());
    all.extend(cases::instructions_atomics());
    all.extend(cases::instructions_votes());
    all.extend(cases::instructions_control());
    all
}

/// Where a tier runs: in lock-step on the RTL, or on the cycle model
/// alone (to show that the tier's oracle holds there).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum On {
    Rtl,
    ModelOnly,
}

/// `programs` on one core (`base` fitted to all of them), each against the
/// functional model; a generated program must not trap.
fn run_programs(what: &str, programs: &[Program], base: CoreConfig, on: On) {
    let config = programs.iter().fold(base, |c, p| p.fit(&c));
    let started = std::time::Instant::now();
    let mut cycles = 0;
    for p in programs {
        let kernel = p.kernel();
        let launch = common::random_pipeline_launch(p, &kernel);
        let global = common::random_global(p, &config);
        let result = match on {
            On::Rtl => lockstep_checked(&config, &launch, &global, 5_000_000, FULL)
                .map(|o| (o.outcome, o.cycles)),
            On::ModelOnly => {
                let mut g = global.clone();
                concord_testbench::pipeline::run(&config, &launch, &mut g, options(5_000_000))
                    .and_then(|o| {
                        check_against_func(&config, &launch, &global, 5_000_000, FULL, &o, &g)?;
                        let c = o.counters.get(concord_testbench::pipeline::Counter::Cycles);
                        Ok((o, c))
                    })
            }
        };
        let (outcome, c) = result.unwrap_or_else(|e| {
            panic!(
                "{what}: seed {} on {}x{} {:?} {:?} lat {}: {e}\n{}",
                p.seed,
                config.lanes,
                config.warps,
                config.scheduler,
                config.arbiter,
                config.global_latency,
                p.source
            )
        });
        if let Err(t) = &outcome.result {
            panic!("{what}: seed {}: a generated program trapped: {t}", p.seed);
        }
        cycles += c;
    }
    eprintln!(
        "{what} ({on:?}), {}x{} {:?} {:?}: {} programs, {cycles} cycles in {:.1} s",
        config.lanes,
        config.warps,
        config.scheduler,
        config.arbiter,
        programs.len(),
        started.elapsed().as_secs_f64()
    );
}

/// `count` random programs of `(lanes, warps)` from `first_seed`: up to
/// `lanes · warps` threads per block, 1 to 3 blocks.
fn random_programs_of(lanes: u32, warps: u32, count: u64, first_seed: u64) -> Vec<Program> {
    (first_seed..first_seed + count)
        .map(|seed| {
            let threads = common::random_threads(seed, lanes, warps);
            common::random_program(seed, lanes, warps, threads, 1 + (seed % 3) as u32)
        })
        .collect()
}

/// The four shapes of the random tiers, each with its own scheduler and
/// arbiter (every combination once) and latency.
fn random_shapes() -> [(u32, u32, CoreConfig); 4] {
    let c = |scheduler, arbiter, global_latency| CoreConfig {
        scheduler,
        arbiter,
        global_latency,
        ..CoreConfig::default()
    };
    [
        (4, 1, c(Scheduler::Lrr, ArbiterMode::Unified, 10)),
        (4, 8, c(Scheduler::Gto, ArbiterMode::Split, 100)),
        (8, 2, c(Scheduler::Lrr, ArbiterMode::Split, 3)),
        (32, 1, c(Scheduler::Gto, ArbiterMode::Unified, 1)),
    ]
}

fn random_tier(count: u64, first_seed: u64, on: On) {
    for (i, (lanes, warps, base)) in random_shapes().into_iter().enumerate() {
        let programs = random_programs_of(lanes, warps, count, first_seed * (i as u64 + 1));
        let base = CoreConfig {
            lanes,
            warps,
            ..base
        };
        run_programs("random programs", &programs, base, on);
    }
}

/// 500 random programs in CI (`CONCORD_V2_RTL_PROGRAMS` per shape).
#[test]
fn random_programs() {
    random_tier(env_u64("CONCORD_V2_RTL_PROGRAMS", 125), 70_000, On::Rtl);
}

/// Random programs in lock-step on a core whose widths are not compiled
/// into the generator (4 lanes x 3 warps), so that its RTL comes from the
/// generator built for them on demand (`concord_hdl::v2::ondemand`):
/// every valid configuration has RTL, and it is the same design
/// (`CONCORD_V2_ONDEMAND_PROGRAMS`, 40 by default).
#[test]
fn random_programs_on_a_core_generated_on_demand() {
    let programs = random_programs_of(4, 3, env_u64("CONCORD_V2_ONDEMAND_PROGRAMS", 40), 90_000);
    let base = CoreConfig {
        lanes: 4,
        warps: 3,
        ..CoreConfig::default()
    };
    let config = programs.iter().fold(base.clone(), |c, p| p.fit(&c));
    assert!(
        concord_hdl::v2::core::compiled_core_verilog(&config, &GenOptions::sim()).is_err(),
        "4x3 is meant to be outside the compiled list"
    );
    run_programs(
        "random programs, generated on demand",
        &programs,
        base,
        On::Rtl,
    );
}

/// The large tier: 20,000 random programs (`-- --ignored`).
#[test]
#[ignore]
fn twenty_thousand_random_programs() {
    random_tier(5000, 1_000_000, On::Rtl);
}

/// The stress configurations of §20, each under both arbiters and both
/// schedulers (two combinations each, every combination once in all),
/// with random programs of their shape; on `stress-blocks` many small
/// blocks (1 to 8 threads, 6 to 10 blocks).
fn stress_tier(count: u64, on: On) {
    let load = |file: &str| {
        let path = format!("{}/../configs/{file}.yaml", env!("CARGO_MANIFEST_DIR"));
        CoreConfig::load(std::path::Path::new(&path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let runs = [
        ("stress-latency", Scheduler::Lrr, ArbiterMode::Unified),
        ("stress-latency", Scheduler::Gto, ArbiterMode::Split),
        ("stress-blocks", Scheduler::Gto, ArbiterMode::Unified),
        ("stress-blocks", Scheduler::Lrr, ArbiterMode::Split),
    ];
    for (i, (file, scheduler, arbiter)) in runs.into_iter().enumerate() {
        let base = CoreConfig {
            scheduler,
            arbiter,
            ..load(file)
        };
        let (lanes, warps) = (base.lanes, base.warps);
        let first = 800_000 + 1000 * i as u64;
        let programs = if file == "stress-blocks" {
            (0..count)
                .map(|s| {
                    let threads = 1 + (s % 8) as u32;
                    let blocks = 6 + (s % 5) as u32;
                    common::random_program(first + s, lanes, warps, threads, blocks)
                })
                .collect()
        } else {
            random_programs_of(lanes, warps, count, first)
        };
        run_programs(file, &programs, base, on);
    }
}

/// The stress tier (`CONCORD_V2_RTL_STRESS_PROGRAMS` per run, default 25).
#[test]
#[ignore = "heavy tier (eight core builds): run with --ignored --exact; CI runs its oracle on the cycle model"]
fn stress_configs() {
    stress_tier(env_u64("CONCORD_V2_RTL_STRESS_PROGRAMS", 25), On::Rtl);
}

/// The random and stress tiers' oracle holds on the cycle model alone.
#[test]
fn the_random_and_stress_tiers_hold_on_the_cycle_model() {
    random_tier(
        env_u64("CONCORD_V2_RTL_PROGRAMS", 125),
        70_000,
        On::ModelOnly,
    );
    stress_tier(env_u64("CONCORD_V2_RTL_STRESS_PROGRAMS", 25), On::ModelOnly);
}

/// Every `-small` launch of the compiled suite (default compile options)
/// in lock-step; the kernel's host check on the final memory.
#[test]
fn compiled_suite() {
    use concord_compiler::driver::{self, CompileOptions};
    use concord_kernels::harness::{func_launch, LoadedLaunch};
    let mut runs = 0;
    for k in concord_kernels::suite() {
        for launch in k.launches.iter().filter(|l| l.ends_with("-small.yaml")) {
            let l = LoadedLaunch::load(launch).unwrap();
            let compiled =
                driver::compile(&l.source, &l.file, &CompileOptions::for_core(&l.config))
                    .unwrap_or_else(|e| panic!("{launch}: {e}"));
            let out = compiled.kernel(l.desc.entry.as_deref()).unwrap();
            let kernel = &out.compiled.kernel;
            let prepared = l.prepare(kernel).unwrap();
            let pl = PipelineLaunch {
                launch: func_launch(kernel, &prepared),
                shared_bytes: kernel.shared_bytes,
                regs_used: kernel.regs_used,
            };
            let o = lockstep_checked(&l.config, &pl, &prepared.global, 50_000_000, MEMORY)
                .unwrap_or_else(|e| panic!("{launch}: {e}"));
            if let Err(t) = &o.outcome.result {
                panic!("{launch}: trapped: {t}");
            }
            k.check_memory(&prepared, &o.global)
                .unwrap_or_else(|e| panic!("{launch}: host check: {e}"));
            runs += 1;
        }
    }
    assert!(runs >= 5, "only {runs} -small launches");
}

/// Compiled random kernels (`kernel_gen`, small: one core of 8 lanes × 4
/// warps), each under a point of the compile-option matrix, in lock-step;
/// the buffers against the IR interpreter and the functional model.
#[test]
fn compiled_random_kernels() {
    random_kernels(On::Rtl);
}

fn random_kernels(on: On) {
    use concord_compiler::backend::DivergenceStrategy;
    use concord_compiler::driver::{self, CompileOptions, OptionPoint};
    use concord_compiler::kernel_gen::{generate, GenConfig};
    use concord_kernels::harness::{buffer_region, func_launch};
    let count = env_u64("CONCORD_V2_RTL_RANDOM_KERNELS", 100);
    let first = env_u64("CONCORD_V2_RTL_RANDOM_SEED", 1);
    let gen = GenConfig {
        warps: 4,
        max_blocks: 2,
        max_stmts: 8,
        ..GenConfig::default()
    };
    let config = CoreConfig {
        lanes: gen.lanes,
        warps: gen.warps,
        imem_words: 16384,
        ..CoreConfig::default()
    };
    for seed in first..first + count {
        let point = OptionPoint::nth(seed, &DivergenceStrategy::ALL);
        let k = generate(seed, &gen);
        let (_, reference) = k.interpret(&config).unwrap();
        let options_point = point.apply(&CompileOptions::for_core(&config));
        let compiled = driver::compile(&k.source, &format!("kgen_{seed}.cu"), &options_point)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let out = compiled.kernel(Some(&k.kernel_name)).unwrap();
        let kernel = &out.compiled.kernel;
        let prepared = k
            .launch_description(&std::env::temp_dir())
            .prepare(kernel, &config)
            .unwrap();
        let pl = PipelineLaunch {
            launch: func_launch(kernel, &prepared),
            shared_bytes: kernel.shared_bytes,
            regs_used: kernel.regs_used,
        };
        // Atomics leave interleaving-dependent old values on the stacks
        // (through a callee's register save): only the buffers are
        // compared with the functional model.
        let oracle = Oracle {
            memory_below: Some(buffer_region(&prepared.global, &prepared).len()),
            last_block: false,
        };
        let (outcome, global) = match on {
            On::Rtl => lockstep_checked(&config, &pl, &prepared.global, prepared.watchdog, oracle)
                .map(|o| (o.outcome, o.global)),
            On::ModelOnly => {
                let mut g = prepared.global.clone();
                concord_testbench::pipeline::run(&config, &pl, &mut g, options(prepared.watchdog))
                    .and_then(|o| {
                        check_against_func(
                            &config,
                            &pl,
                            &prepared.global,
                            prepared.watchdog,
                            oracle,
                            &o,
                            &g,
                        )?;
                        Ok((o, g))
                    })
            }
        }
        .unwrap_or_else(|e| panic!("seed {seed} ({point}): {e}"));
        if let Err(t) = &outcome.result {
            panic!("seed {seed} ({point}): trapped: {t}");
        }
        let (want, got) = (
            buffer_region(&reference, &prepared),
            buffer_region(&global, &prepared),
        );
        if let Some(at) = want.iter().zip(got).position(|(a, b)| a != b) {
            panic!(
                "seed {seed} ({point}): {on:?} and IR interpreter differ at byte {at:#x}: {:#04x} vs {:#04x}",
                want[at], got[at]
            );
        }
    }
}
