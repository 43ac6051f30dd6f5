//! The cycle model ends in the functional model's final state: every
//! program of `isa/tests/func_golden.rs` and `isa/tests/func_instructions.rs`
//! (copied here as fixtures), on a matrix of configurations (lanes 4/8/32,
//! warps 1/2/8, global latency 1/3/20, shared banks 1/8/32, both
//! arbitration policies). Completing programs must leave the same global
//! memory, registers, predicates and shared memory (last block) and the
//! same architectural counters; trapping programs the same trap report.
//!
//! On a subset of the configurations ([`on_rtl`]) every case also runs on
//! the RTL (the generated Verilog under Verilator) in lock-step with the
//! cycle model: the trace ports must agree on every cycle.

// Per-lane tables are indexed by lane number.
#![allow(clippy::needless_range_loop)]

mod common;

use common::cases::{self, Case};
use concord_isa::config::{Arbitration, CoreConfig};
use std::ops::ControlFlow;

use concord_isa::func::{self, BlockView, Issue, Observer, Options, RunError, Trap, TrapCause};
use concord_isa::{Pred, Reg};
use concord_testbench::cosim;
use concord_testbench::cycle::{self, CycleModel, GlobalMemory};
use concord_testbench::trace::{Counters, State};
use concord_testbench::verilator::{BuildOptions, Rtl};

/// Configurations whose cases also run on the RTL in lock-step.
fn on_rtl(config: &CoreConfig) -> bool {
    matches!(
        (config.lanes, config.warps, config.arbitration),
        (4, 1, Arbitration::DepthPc) | (8, 2, Arbitration::PcOnly)
    )
}

thread_local! {
    /// Verilated cores by configuration, so each test thread generates and
    /// loads each once (builds are cached on disk across threads and runs).
    static RTLS: std::cell::RefCell<std::collections::HashMap<CoreConfig, Rtl>> = Default::default();
}

/// Runs `launch` on the RTL in lock-step with the cycle model.
fn co_simulate(
    config: &CoreConfig,
    launch: &func::Launch<'_>,
    case: &Case,
    what: &str,
    expect_watchdog: bool,
) {
    RTLS.with(|rtls| {
        let mut rtls = rtls.borrow_mut();
        let rtl = rtls.entry(config.clone()).or_insert_with(|| {
            let verilog =
                concord_hdl::generate_verilog(config).unwrap_or_else(|e| panic!("{what}: {e}"));
            Rtl::build(&verilog, &BuildOptions::default()).unwrap_or_else(|e| panic!("{what}: {e}"))
        });
        let oracle = if case.deterministic {
            cosim::Oracle::Full
        } else {
            cosim::Oracle::MemoryOnly
        };
        let watchdog = if expect_watchdog { 20_000 } else { 2_000_000 };
        match cosim::run_with(config, launch, &case.global, rtl, watchdog, None, oracle) {
            Ok(_) => assert!(
                !expect_watchdog,
                "{what}: expected the cosimulation watchdog"
            ),
            Err(cosim::CosimError::Watchdog { .. }) if expect_watchdog => {}
            Err(e) => panic!("{what} on the RTL: {e}"),
        }
    });
}

/// The configuration matrix: every (lanes, warps) pair, with latency and
/// bank count rotated so that every value meets every other, under both
/// policies.
fn configs() -> Vec<CoreConfig> {
    let lanes = [4, 8, 32];
    let warps = [1, 2, 8];
    let lat = [1, 3, 20];
    let banks = [1, 8, 32];
    let mut out = Vec::new();
    for (i, &l) in lanes.iter().enumerate() {
        for (j, &w) in warps.iter().enumerate() {
            for policy in [Arbitration::DepthPc, Arbitration::PcOnly] {
                let p = policy as usize;
                out.push(CoreConfig {
                    lanes: l,
                    warps: w,
                    global_latency: lat[(i + j + p) % 3],
                    shared_banks: banks[(2 * i + j + p) % 3],
                    arbitration: policy,
                    ..CoreConfig::default()
                });
            }
        }
    }
    out
}

/// What the functional model leaves: last block's registers, predicates,
/// shared memory, and the issue trace.
#[derive(Default)]
struct Oracle {
    threads: usize,
    regs: Vec<[u32; 32]>,
    preds: Vec<[bool; 8]>,
    shared: Vec<u8>,
    issues: Vec<Issue>,
}

impl Observer for Oracle {
    fn issue(&mut self, issue: &Issue) -> ControlFlow<()> {
        self.issues.push(*issue);
        ControlFlow::Continue(())
    }
    fn block_end(&mut self, _block: [u32; 3], s: &BlockView<'_>) {
        self.regs = (0..self.threads)
            .map(|t| std::array::from_fn(|r| s.reg(t, Reg::new(r as u8).unwrap())))
            .collect();
        self.preds = (0..self.threads)
            .map(|t| std::array::from_fn(|p| s.pred(t, Pred::new(p as u8).unwrap())))
            .collect();
        self.shared = s.shared().to_vec();
    }
}

/// One issue as the cycle model's `DECODE` cycle shows it: (warp, pc, active).
type Decoded = (u32, u32, u32);

/// Drives the model like the co-simulation: host writes, then one `step`
/// per cycle. Returns the model, the memory, the issues and whether it
/// finished before `limit` cycles.
fn drive(
    config: &CoreConfig,
    launch: &func::Launch<'_>,
    global: Vec<u8>,
    limit: u64,
) -> (CycleModel, GlobalMemory, Vec<Decoded>, bool) {
    let mut core = CycleModel::new(config).unwrap();
    let mut mem = GlobalMemory::new(global, config.global_latency, config.global_line_bytes);
    for (addr, data) in concord_testbench::host::launch_writes(launch) {
        core.host_write(addr, data);
    }
    core.host_write(concord_testbench::host::START, 1);
    let mut issues = Vec::new();
    let mut cycles = 0;
    while !matches!(core.state(), State::Done | State::Trap) {
        if cycles >= limit {
            return (core, mem, issues, false);
        }
        let t = core.step(&mut mem);
        if t.state == State::Decode && core.state() != State::Trap {
            issues.push((t.warp, t.pc, t.active));
        }
        cycles += 1;
    }
    (core, mem, issues, true)
}

fn check_config(case: &Case, kernel: &concord_isa::container::Kernel, base: &CoreConfig) {
    let config = CoreConfig {
        global_memory_bytes: case.global.len() as u32,
        ..base.clone()
    };
    let what = format!(
        "`{}` on lanes {} warps {} latency {} banks {} {:?}",
        case.name,
        config.lanes,
        config.warps,
        config.global_latency,
        config.shared_banks,
        config.arbitration
    );
    let launch = func::Launch {
        code: &kernel.code,
        entry_pc: kernel.entries[0].pc,
        grid: [case.blocks, 1, 1],
        block: case.block,
        params: &case.params,
        stack_bytes: kernel.stack_bytes,
    };
    let mut oracle = Oracle {
        threads: case.threads() as usize,
        ..Oracle::default()
    };
    let mut func_global = case.global.clone();
    let expected = func::run(
        &config,
        &launch,
        &mut func_global,
        Options {
            watchdog: case.watchdog,
        },
        Some(&mut oracle),
    )
    .map_err(RunError::unwrap_trap);
    let limit = 2_000_000;

    // A livelock: the cycle watchdog must name the same starved lanes.
    if let Err(Trap {
        cause: TrapCause::Watchdog { .. },
        ..
    }) = &expected
    {
        let expected = expected.as_ref().unwrap_err();
        let mut global = case.global.clone();
        let got = cycle::run(&config, &launch, &mut global, 200_000, None)
            .expect_err(&format!("{what}: expected a watchdog trap"))
            .unwrap_trap();
        let TrapCause::Watchdog { limit, diagnosis } = &got.cause else {
            panic!("{what}: expected a watchdog trap, got {got}");
        };
        assert_eq!(*limit, 200_000, "{what}");
        assert!(diagnosis.contains("livelock"), "{what}: {diagnosis}");
        assert_eq!(
            (got.block, got.warp, got.lanes, got.pc),
            (expected.block, expected.warp, expected.lanes, expected.pc),
            "{what}: {got}"
        );
        if on_rtl(&config) {
            co_simulate(&config, &launch, case, &what, true);
        }
        return;
    }

    let (core, mem, issues, finished) = drive(&config, &launch, case.global.clone(), limit);
    assert!(finished, "{what}: no DONE or TRAP within {limit} cycles");
    match &expected {
        Err(trap) => {
            let got = core.trap().unwrap_or_else(|| {
                panic!("{what}: expected trap `{trap}`, the cycle model finished")
            });
            assert!(
                got.same_report(trap),
                "{what}:\n  functional: {trap}\n  cycle:      {got}"
            );
        }
        Ok(stats) => {
            if let Some(t) = core.trap() {
                panic!("{what}: unexpected trap {t}");
            }
            assert_eq!(core.state(), State::Done, "{what}");
            assert!(mem.bytes == func_global, "{what}: global memory differs");
            let c = core.counters();
            assert_eq!(c.blocks, stats.blocks, "{what}: blocks");
            if case.deterministic {
                let lanes = config.lanes as usize;
                for t in 0..case.threads() as usize {
                    let (w, l) = (t / lanes, t % lanes);
                    for r in 0..32 {
                        assert_eq!(
                            core.register(w, l, r),
                            oracle.regs[t][r],
                            "{what}: thread {t} r{r}"
                        );
                    }
                    for p in 0..8 {
                        assert_eq!(
                            core.predicate(w, l, p),
                            oracle.preds[t][p],
                            "{what}: thread {t} p{p}"
                        );
                    }
                }
                assert!(
                    core.shared() == oracle.shared,
                    "{what}: shared memory differs"
                );
                assert_eq!(c.issued - c.replays, stats.issued, "{what}: issues");
                assert_eq!(c.divergent_branches, stats.divergent_branches, "{what}");
                assert_eq!(c.consensual_taken, stats.consensual_taken, "{what}");
                assert_eq!(c.consensual_not_taken, stats.consensual_not_taken, "{what}");
                assert_eq!(c.barrier_arrivals, stats.barrier_arrivals, "{what}");
                assert_eq!(c.barriers, stats.barriers, "{what}");
                if c.replays == 0 {
                    // Without replays the issue sequence is the architecture's
                    // round robin, issue for issue.
                    let want: Vec<Decoded> = oracle
                        .issues
                        .iter()
                        .map(|i| (i.warp, i.pc, i.active))
                        .collect();
                    assert_eq!(issues, want, "{what}: issue sequence");
                    assert_eq!(c.active_lane_slots, stats.active_lane_slots, "{what}");
                    assert_eq!(c.executed_lane_slots, stats.executed_lane_slots, "{what}");
                }
            }
        }
    }

    if on_rtl(&config) {
        co_simulate(&config, &launch, case, &what, false);
    }

    // `run` (the convenience entry point) agrees with the stepped model.
    let mut global = case.global.clone();
    match cycle::run(&config, &launch, &mut global, limit, None) {
        Ok(c) => {
            assert_eq!(
                Some(c),
                (core.state() == State::Done).then(|| core.counters()),
                "{what}: run()"
            );
            assert!(global == mem.bytes, "{what}: run() global memory");
        }
        Err(e) => assert_eq!(Some(e.unwrap_trap()), core.trap(), "{what}: run()"),
    }
}

fn check(case: &Case) {
    let kernel = concord_isa::asm::assemble(&case.src, "test.s")
        .unwrap_or_else(|e| panic!("`{}`: {e}", case.name));
    let mut ran = 0;
    for config in configs() {
        if case.threads() > config.lanes * config.warps {
            continue;
        }
        if case.policy.is_some_and(|p| p != config.arbitration) {
            continue;
        }
        check_config(case, &kernel, &config);
        ran += 1;
    }
    assert!(ran > 0, "`{}` fits no configuration", case.name);
}

fn check_all(cases: &[Case]) {
    for case in cases {
        check(case);
    }
}

// The cases: tests/common/cases.rs (shared with the Core v2 lock-step
// tiers of tests/verilator_v2.rs).

#[test]
fn golden_divergence_and_reconvergence() {
    check_all(&cases::golden_divergence_and_reconvergence());
}

#[test]
fn golden_consensual_branches() {
    check_all(&cases::golden_consensual_branches());
}

#[test]
fn golden_spin_locks() {
    check_all(&cases::golden_spin_locks());
}

#[test]
fn golden_barriers() {
    check_all(&cases::golden_barriers());
}

#[test]
fn golden_traps() {
    check_all(&cases::golden_traps());
}

/// Issue 12 item 12: a control transfer, or the fall-through of the last
/// instruction, to a PC outside the program traps at the transferring
/// instruction with the 32-bit target on every model (the timed models
/// used to keep 16 bits of it).
#[test]
fn next_pc_outside_the_program() {
    check_all(&cases::next_pc_outside_the_program());
}

/// Issue 12 item 8: global accesses outside the thread's own stack (into
/// another thread's stack or the guard zone below the stacks) trap as
/// *stack overflow* on every model. `.stack 8`, G = 4096: thread t owns
/// [4096 - 8(t+1), 4096 - 8t); r3 is the lane's stack top.
#[test]
fn stack_overflow() {
    let cases = cases::stack_overflow();
    // What the cases are about, on the 4-lane, 1-warp core (the 16-thread
    // case on 4 x 8): a stack overflow (lanes, address) or none.
    let expected: [Option<(u32, u32)>; 10] = [
        None,
        Some((0b0001, 4096 - 12)),
        Some((0b1000, 4096 - 24 - 12)),
        Some((0b1111, 4096 - 16)),
        None, // out of range
        Some((0b1110, 4096 - 8 + 2)),
        None,
        None,
        None,
        Some((0b0010, 4096 - 72 - 9)),
    ];
    for (case, want) in cases.iter().zip(expected) {
        let config = CoreConfig {
            lanes: 4,
            warps: if case.threads() > 4 { 8 } else { 1 },
            global_memory_bytes: 4096,
            ..CoreConfig::default()
        };
        let got = functional_trap(case, &config).map(|t| match t.cause {
            TrapCause::StackOverflow { addr, .. } => Ok((t.lanes, addr)),
            other => Err(other),
        });
        match (want, got) {
            (Some(w), Some(Ok(g))) => assert_eq!(w, g, "`{}`", case.name),
            (None, None) => {}
            (None, Some(Err(TrapCause::AddressOutOfRange { addr: 4099, .. }))) => {}
            (w, g) => panic!("`{}`: expected {w:?}, got {g:?}", case.name),
        }
    }
    check_all(&cases);
}

/// The functional model's trap of `case` on `config`, if any.
fn functional_trap(case: &Case, config: &CoreConfig) -> Option<Trap> {
    let kernel = concord_isa::asm::assemble(&case.src, "test.s").unwrap();
    let launch = func::Launch {
        code: &kernel.code,
        entry_pc: 0,
        grid: [case.blocks, 1, 1],
        block: case.block,
        params: &case.params,
        stack_bytes: kernel.stack_bytes,
    };
    let mut global = case.global.clone();
    func::run(config, &launch, &mut global, Options::default(), None)
        .err()
        .map(RunError::unwrap_trap)
}

#[test]
fn golden_partial_warp_and_multiple_blocks() {
    check_all(&cases::golden_partial_warp_and_multiple_blocks());
}

#[test]
fn instructions_alu() {
    check_all(&cases::instructions_alu());
}

#[test]
fn instructions_predicates() {
    check_all(&cases::instructions_predicates());
}

#[test]
fn instructions_special_registers() {
    check_all(&cases::instructions_special_registers());
}

#[test]
fn instructions_loads_and_stores() {
    check_all(&cases::instructions_loads_and_stores());
}

#[test]
fn instructions_atomics() {
    check_all(&cases::instructions_atomics());
}

#[test]
fn instructions_votes() {
    check_all(&cases::instructions_votes());
}

#[test]
fn instructions_control() {
    check_all(&cases::instructions_control());
}

#[test]
fn counters_type_is_the_trace_modules() {
    // The model reports through testbench::trace::Counters.
    let c: Counters = CycleModel::new(&CoreConfig::default()).unwrap().counters();
    assert_eq!(c, Counters::default());
}

/// In lock-step, a per-cycle hook that breaks ends the run after that
/// cycle, unless the cores are then done: that run ends as it would have.
#[test]
fn a_hook_that_breaks_stops_the_lockstep_run_after_that_cycle() {
    let config = CoreConfig {
        global_memory_bytes: 4096,
        ..configs()[0].clone()
    };
    assert!(on_rtl(&config), "a core the other tests build");
    let kernel = concord_isa::asm::assemble("add r1, r1, 1\nadd r1, r1, 1\nexit\n", "t.s").unwrap();
    let launch = func::Launch {
        code: &kernel.code,
        entry_pc: 0,
        grid: [1, 1, 1],
        block: [4, 1, 1],
        params: &[],
        stack_bytes: kernel.stack_bytes,
    };
    let global = vec![0u8; 4096];
    // Breaks in the first cycle that `at` picks (given the cycle and the
    // number of DECODE cycles up to it); the result and the cycles seen.
    let run = |at: &dyn Fn(u64, u64) -> bool| {
        RTLS.with(|rtls| {
            let mut rtls = rtls.borrow_mut();
            let rtl = rtls.entry(config.clone()).or_insert_with(|| {
                let verilog = concord_hdl::generate_verilog(&config).unwrap();
                Rtl::build(&verilog, &BuildOptions::default()).unwrap_or_else(|e| panic!("{e}"))
            });
            let mut seen = Vec::new();
            let mut decodes = 0;
            let mut f = |n: u64, t: &concord_testbench::trace::TracePort| {
                decodes += u64::from(t.state == State::Decode);
                seen.push((n, t.state));
                if at(n, decodes) {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            };
            let r = cosim::run(&config, &launch, &global, rtl, 1_000, Some(&mut f));
            (r, seen)
        })
    };

    let (whole, seen) = run(&|_, _| false);
    let whole = whole.unwrap_or_else(|e| panic!("{e}")).counters;
    assert_eq!((whole.issued, whole.blocks), (3, 1));
    let cycles = whole.cycles;
    assert_eq!(seen.len() as u64, cycles + 1, "up to the DONE cycle");

    // At the second add's DECODE: two issues.
    let (r, seen) = run(&|_, decodes| decodes == 2);
    let Err(cosim::CosimError::Stopped { counters }) = r else {
        panic!("expected a stopped run, got {:?}", r.map(|o| o.counters));
    };
    let (k, state) = *seen.last().unwrap();
    assert_eq!(state, State::Decode);
    assert_eq!((counters.cycles, counters.issued), (k + 1, 2));
    assert_eq!(seen.len() as u64, k + 1, "no cycle after the break");

    // One cycle before the end: still stopped.
    let (r, seen) = run(&|n, _| n == cycles - 2);
    let Err(cosim::CosimError::Stopped { counters }) = r else {
        panic!("expected a stopped run, got {:?}", r.map(|o| o.counters));
    };
    assert_eq!((counters.cycles, counters.issued), (cycles - 1, 3));
    assert_eq!(seen.len() as u64, cycles - 1);

    // In the last cycle before DONE: the run completes (in lock-step and
    // against the functional model), without the hook seeing DONE.
    let (r, seen) = run(&|n, _| n == cycles - 1);
    let outcome = r.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(outcome.counters, whole);
    assert_eq!(outcome.result, Ok(()));
    assert_eq!(seen.len() as u64, cycles);
}
