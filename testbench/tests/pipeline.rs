//! The Core v2 cycle model (`concord_testbench::pipeline`):
//!
//! * **timing**: cycle counts derived by hand from the contract
//!   (docs/microarchitecture.md §4.4 IPC table, §10.3 global
//!   timelines, §12.3 launch), never from the model;
//! * **final state**: random programs (`testbench/src/gen`) on configuration
//!   variants (both schedulers, both arbiter modes, several resident blocks,
//!   few entries, wide bus, bandwidth limit, long latency) must end in the
//!   functional model's state (with the shared window of `Occupancy`, §18):
//!   global memory, the last block's registers below `regs_used`,
//!   predicates and shared bytes below `shared_bytes`.

mod common;

use concord_isa::config::{ArbiterMode, Arbitration, CoreConfig, Scheduler};
use concord_isa::func::{self, Options};
use concord_testbench::pipeline::{self, func_reference, Counter, Outcome, PipelineLaunch};

use common::{assemble, LastBlock};

/// Runs `src` with `threads` threads per block, `blocks` blocks, no init
/// slots (`regs_used` 0) unless given.
fn run_src(config: &CoreConfig, src: &str, threads: u32, blocks: u32) -> Outcome {
    common::run_kernel(
        config,
        src,
        threads,
        blocks,
        concord_uarch::GenOptions::sim(),
    )
}

/// `n` ALU instructions then `exit`.
fn alu_program(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s += &format!(
            "add r{}, r{}, r{}\n",
            1 + i % 4,
            1 + (i + 1) % 4,
            1 + (i + 2) % 4
        );
    }
    s + "exit\n"
}

/// §4.4: `k` always-ready warps issue every `max(k, 6)` cycles each
/// (`IPC = min(1, k/6)`). Hand count for one block of `k` full warps and
/// `n` ALU instructions plus `exit`, no init slots:
///
/// * SETUP: cycles 0..=7; the launch takes its slot in cycle 8 (`l`);
///   the walk writes threads in 9..=8+threads, so the warps are ready from
///   cycle `c0 = 9 + threads` (§12.3 "Start");
/// * LRR issues warp `i` at `c0 + i + max(k,6)·j`, `j = 0..=n`; the last
///   `exit` is selected at `c0 + (k−1) + max(k,6)·n`, commits (and the
///   block retires) 5 cycles later in A, leaves W 2 cycles after that;
///   the first cycle with no item in S..W is the one after, and `DONE` is
///   entered at its end: `cycles = c_A + 4`.
fn alu_cycles(k: u64, n: u64, lanes: u64) -> u64 {
    let threads = k * lanes;
    let c0 = 9 + threads;
    let last_s = c0 + (k - 1) + k.max(6) * n;
    last_s + 5 + 4
}

/// The same under GTO (§6.3: oldest first in a busy pipeline). With
/// `k ≤ 6` every warp is selected as soon as it is ready, as under LRR.
/// With `6 < k ≤ 12`, warps 0..=5 take every cycle until they exit
/// (warp 0 is ready again exactly when warp 5 has issued, and it is
/// older than warps 6..), so warp `6 + i` is first selected at
/// `c0 + 6·(n+1) + i`, when warp `i`'s slot frees, and runs every 6
/// cycles from there.
fn gto_alu_cycles(k: u64, n: u64, lanes: u64) -> u64 {
    if k <= 6 {
        return alu_cycles(k, n, lanes);
    }
    assert!(k <= 12);
    let c0 = 9 + k * lanes;
    let last_s = c0 + 6 * (n + 1) + (k - 7) + 6 * n;
    last_s + 5 + 4
}

#[test]
fn alu_issue_rate_is_min_1_k_over_6() {
    let config = CoreConfig::default();
    let n = 60;
    let src = alu_program(n);
    for k in [1u64, 2, 4, 5, 6, 7, 8] {
        for scheduler in [Scheduler::Lrr, Scheduler::Gto] {
            let c = CoreConfig {
                scheduler,
                ..config.clone()
            };
            let o = run_src(&c, &src, (k * 8) as u32, 1);
            let cycles = o.counters.get(Counter::Cycles);
            let expect = match scheduler {
                Scheduler::Lrr => alu_cycles(k, n as u64, 8),
                Scheduler::Gto => gto_alu_cycles(k, n as u64, 8),
            };
            assert_eq!(cycles, expect, "k = {k}, {scheduler:?}");
            assert_eq!(o.counters.get(Counter::Issued), k * (n as u64 + 1));
        }
    }
    // The §4.4 IPC table over the issuing window.
    for (k, ipc) in [
        (1u64, 1.0 / 6.0),
        (4, 4.0 / 6.0),
        (5, 5.0 / 6.0),
        (6, 1.0),
        (8, 1.0),
    ] {
        let window = (alu_cycles(k, n as u64, 8) - alu_cycles(k, 0, 8)) as f64;
        let rate = (k * n as u64) as f64 / window;
        assert!((rate - ipc).abs() < 1e-9, "k = {k}: {rate}");
    }
}

/// §10.3: one warp, one coalesced global load of a whole line (8 lanes ×
/// 4 bytes = 32 bytes = `NB` = 8 beats of 4 bytes): the warp issues again
/// `lat + NB + 15` cycles after the load's selection; a store:
/// `lat + NB + 9`. The load is the third instruction (`s2r`, `shl` before
/// it, 6 cycles apart): selected at `t = c0 + 12`, `c0 = 9 + 8 = 17`; then
/// `exit` at `t + lat + NB + 15` (`+ 9` for a store), and `DONE` as in the
/// ALU count (`+ 5 + 4`).
#[test]
fn global_load_and_store_timelines() {
    for lat in [1u32, 10, 100] {
        for bus in [4u32, 8, 32] {
            let config = CoreConfig {
                global_latency: lat,
                global_bus_bytes: bus,
                ..CoreConfig::default()
            };
            let nb = (32 / bus) as u64;
            let lat = lat as u64;
            let t = 17 + 12;
            let load = run_src(
                &config,
                "s2r r0, %tid\nshl r0, r0, 2\nld.global.b32 r1, [r0+256]\nexit\n",
                8,
                1,
            );
            assert_eq!(
                load.counters.get(Counter::Cycles),
                t + lat + nb + 15 + 9,
                "load, lat {lat}, bus {bus}"
            );
            assert_eq!(load.counters.get(Counter::GlobalBeats), nb);
            assert_eq!(load.counters.get(Counter::ReturnSlots), 1);
            let store = run_src(
                &config,
                "s2r r0, %tid\nshl r0, r0, 2\nst.global.b32 [r0+256], r0\nexit\n",
                8,
                1,
            );
            assert_eq!(
                store.counters.get(Counter::Cycles),
                t + lat + nb + 9 + 9,
                "store, lat {lat}, bus {bus}"
            );
        }
    }
}

/// §10.1 / §9.3: a shared access whose 8 lanes fall on 8 different rows of
/// one bank (stride `4·B` bytes) takes 8 passes, each a replay 6 cycles
/// after the previous one; then `exit`.
#[test]
fn bank_conflicts_replay_one_row_per_pass() {
    let config = CoreConfig::default();
    // Stride 32 bytes = 4 · 8 banks: every lane in bank 0, rows 0..8.
    let o = run_src(
        &config,
        "s2r r0, %tid\nshl r0, r0, 5\nld.shared.b32 r1, [r0+0]\nexit\n",
        8,
        1,
    );
    // Load first selected at t = 29, passes at t + 6p (p = 0..7), exit at
    // t + 48, DONE at + 9.
    assert_eq!(o.counters.get(Counter::Cycles), 29 + 48 + 9);
    assert_eq!(o.counters.get(Counter::Replays), 7);
    assert_eq!(o.counters.get(Counter::Issued), 2 + 8 + 1);
}

/// §12.3: init slots delay the start: `max(threads + 1, n_init + 6)`.
#[test]
fn init_slots_delay_the_block_start() {
    let config = CoreConfig::default();
    let kernel = assemble("exit\n");
    for (threads, regs) in [(64u32, 16u32), (64, 1), (8, 16)] {
        let launch = PipelineLaunch {
            launch: func::Launch {
                code: &kernel.code,
                entry_pc: 0,
                grid: [1, 1, 1],
                block: [threads, 1, 1],
                params: &[],
                stack_bytes: 0,
            },
            shared_bytes: 0,
            regs_used: regs,
        };
        let mut global = vec![0; config.global_memory_bytes as usize];
        let o = pipeline::run(&config, &launch, &mut global, common::sim_options(1000)).unwrap();
        let nwarps = threads.div_ceil(8) as u64;
        let launch_cycles =
            concord_uarch::timing::launch_cycles(threads as u64, regs as u64 * nwarps);
        // Launch in cycle 8, warps ready from 8 + launch; each warp's
        // `exit` in turn; DONE as in the ALU count.
        let last_s = 8 + launch_cycles + (nwarps - 1);
        assert_eq!(
            o.counters.get(Counter::Cycles),
            last_s + 9,
            "{threads} threads, {regs} registers"
        );
        assert_eq!(o.counters.get(Counter::InitSlots), regs as u64 * nwarps);
    }
}

/// Configuration variants the random programs run on.
fn variant(i: u64, lanes: u32, warps: u32) -> CoreConfig {
    let mut c = CoreConfig {
        lanes,
        warps,
        ..CoreConfig::default()
    };
    c.scheduler = if i % 2 == 0 {
        Scheduler::Lrr
    } else {
        Scheduler::Gto
    };
    c.arbiter = if i / 2 % 2 == 0 {
        ArbiterMode::Unified
    } else {
        ArbiterMode::Split
    };
    c.global_latency = [1, 10, 100, 3][(i / 4 % 4) as usize];
    c.global_outstanding = [8, 1, 2, 16][(i / 3 % 4) as usize];
    c.max_resident_blocks = [4, 1, 16, 2][(i / 5 % 4) as usize];
    c.global_bus_bytes = [4, 8, 32, 4][(i / 7 % 4) as usize];
    c.global_bandwidth = [0, 2, 0, 1][(i / 11 % 4) as usize];
    c.arbitration = if i / 13 % 2 == 0 {
        Arbitration::DepthPc
    } else {
        Arbitration::PcOnly
    };
    c
}

fn check_program(
    seed: u64,
    lanes: u32,
    warps: u32,
    blocks: u32,
    threads: Option<u32>,
    tweak: fn(&mut CoreConfig),
) {
    let threads = threads.unwrap_or(common::random_threads(seed, lanes, warps));
    let p = common::random_program(seed, lanes, warps, threads, blocks);
    let mut base = variant(seed, lanes, warps);
    tweak(&mut base);
    let config = p.fit(&base);
    let kernel = p.kernel();
    let launch = common::random_pipeline_launch(&p, &kernel);
    let mut global = common::random_global(&p, &config);
    let mut expect = global.clone();
    let mut last = LastBlock {
        threads: p.threads as usize,
        state: None,
    };
    func_reference(
        &config,
        &launch,
        &mut expect,
        Options {
            watchdog: 5_000_000,
        },
        Some(&mut last),
    )
    .unwrap_or_else(|e| panic!("seed {seed}: functional model: {e}"));
    let o = pipeline::run(
        &config,
        &launch,
        &mut global,
        common::sim_options(5_000_000),
    )
    .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    let what = format!(
        "seed {seed} ({lanes}x{warps}, {} threads, {} blocks, {} {:?} {:?} lat {} entries {} slots {} bus {} bw {}, resident {})",
        p.threads,
        p.blocks,
        config.arbitration.name(),
        config.scheduler,
        config.arbiter,
        config.global_latency,
        config.global_outstanding,
        config.max_resident_blocks,
        config.global_bus_bytes,
        config.global_bandwidth,
        o.occupancy.resident
    );
    if let Err(t) = &o.result {
        panic!("{what}: pipeline trapped: {t}\n{}", p.source);
    }
    if let Some(i) = (0..global.len()).find(|&i| global[i] != expect[i]) {
        panic!(
            "{what}: global byte {i:#x}: pipeline {:#x}, functional {:#x}\n{}",
            global[i], expect[i], p.source
        );
    }
    let (got, want) = (o.last_block.unwrap(), last.state.unwrap());
    for t in 0..p.threads as usize {
        for r in 0..kernel.regs_used as usize {
            assert_eq!(
                got.regs[t][r], want.regs[t][r],
                "{what}: thread {t} r{r}\n{}",
                p.source
            );
        }
        for q in 0..config.predicates as usize {
            assert_eq!(
                got.preds[t][q], want.preds[t][q],
                "{what}: thread {t} p{q}\n{}",
                p.source
            );
        }
    }
    let n = kernel.shared_bytes as usize;
    assert_eq!(got.shared[..n], want.shared[..n], "{what}: shared memory");
}

/// 500 random programs (valid, race-free, terminating), 125 per
/// (lanes, warps) shape, each on a configuration variant.
#[test]
fn random_programs_end_in_the_functional_state() {
    let count: u64 = std::env::var("CONCORD_PIPELINE_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(125);
    for (i, (lanes, warps)) in [(4, 1), (4, 8), (8, 2), (32, 1)].into_iter().enumerate() {
        for s in 0..count {
            let seed = 50_000 * (i as u64 + 1) + s;
            check_program(seed, lanes, warps, 1 + (seed % 4) as u32, None, |_| {});
        }
    }
}

/// Several resident blocks: 16 warps of 4 lanes, one-warp blocks, up to
/// 16 resident (the `stress-blocks` shape of §20).
#[test]
fn many_resident_blocks_end_in_the_functional_state() {
    for s in 0..40 {
        check_program(
            900_000 + s,
            4,
            16,
            6 + (s % 5) as u32,
            Some(1 + (s % 8) as u32),
            |c| c.max_resident_blocks = 16,
        );
    }
}

/// Every launch of the compiled suite (`concord-kernels`, default compile
/// options) on the pipeline: the kernel's independent host check must pass
/// on the final memory, and the memory must equal the functional model's
/// (run with the `Occupancy` shared window). Each launch runs under one
/// configuration variant (scheduler, arbiter, latency, entries, slots,
/// bus), rotated over the suite.
#[test]
fn compiled_suite_passes_its_host_checks() {
    use concord_compiler::driver::{self, CompileOptions};
    use concord_kernels::harness::{func_launch, LoadedLaunch};
    let mut failures = Vec::new();
    let mut runs = 0u64;
    for k in concord_kernels::suite() {
        for launch in k.launches {
            let l = LoadedLaunch::load(launch).unwrap();
            let compiled =
                driver::compile(&l.source, &l.file, &CompileOptions::for_core(&l.config))
                    .unwrap_or_else(|e| panic!("{launch}: {e}"));
            let out = compiled.kernel(l.desc.entry.as_deref()).unwrap();
            let kernel = &out.compiled.kernel;
            let prepared = l.prepare(kernel).unwrap();
            let v = variant(runs, l.config.lanes, l.config.warps);
            let config = CoreConfig {
                scheduler: v.scheduler,
                arbiter: v.arbiter,
                global_outstanding: v.global_outstanding,
                max_resident_blocks: v.max_resident_blocks,
                global_bus_bytes: v.global_bus_bytes.min(l.config.global_line_bytes),
                global_latency: [10, 100, 1][(runs % 3) as usize],
                ..l.config.clone()
            };
            runs += 1;
            let pl = PipelineLaunch {
                launch: func_launch(kernel, &prepared),
                shared_bytes: kernel.shared_bytes,
                regs_used: kernel.regs_used,
            };
            let mut expect = prepared.global.clone();
            if let Err(e) = func_reference(
                &config,
                &pl,
                &mut expect,
                Options {
                    watchdog: 50_000_000,
                },
                None,
            ) {
                failures.push(format!("{launch}: functional model: {e}"));
                continue;
            }
            let mut global = prepared.global.clone();
            let o = pipeline::run(&config, &pl, &mut global, common::sim_options(50_000_000))
                .unwrap_or_else(|e| panic!("{launch}: {e}"));
            let what = format!(
                "{launch} ({:?} {:?} lat {} entries {} slots {}, resident {})",
                config.scheduler,
                config.arbiter,
                config.global_latency,
                config.global_outstanding,
                config.max_resident_blocks,
                o.occupancy.resident
            );
            if let Err(t) = &o.result {
                failures.push(format!("{what}: trapped: {t}"));
                continue;
            }
            if let Err(e) = k.check_memory(&prepared, &global) {
                failures.push(format!("{what}: host check: {e}"));
            }
            if global != expect {
                failures.push(format!("{what}: memory differs from the functional model"));
            }
        }
    }
    assert!(runs >= 18, "only {runs} launches");
    assert!(
        failures.is_empty(),
        "{} of {runs} launches failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Runs `src` on the functional model (with the occupancy window) and on
/// the pipeline; both must trap with the same report.
fn same_trap(config: &CoreConfig, src: &str, threads: u32, blocks: u32) -> concord_isa::func::Trap {
    let kernel = assemble(src);
    let launch = PipelineLaunch {
        shared_bytes: kernel.shared_bytes,
        regs_used: kernel.regs_used,
        ..common::launch_1d(&kernel, threads, blocks)
    };
    let mut g = vec![0; config.global_memory_bytes as usize];
    let want = func_reference(config, &launch, &mut g, Options::default(), None)
        .unwrap_err()
        .unwrap_trap();
    let mut g = vec![0; config.global_memory_bytes as usize];
    let o = pipeline::run(config, &launch, &mut g, common::sim_options(1 << 30)).unwrap();
    let got = o.result.unwrap_err();
    assert!(
        got.same_report(&want),
        "pipeline: {got}\nfunctional: {want}"
    );
    assert_eq!(got.pc, want.pc, "pipeline: {got}\nfunctional: {want}");
    got
}

/// §13.2: block 1 traps first in time, block 0 later; the report is block
/// 0's, the one the functional model (blocks in grid order) meets first.
/// With one resident block nothing overlaps and the same report follows.
#[test]
fn the_oldest_blocks_trap_is_reported() {
    let src = "\
        s2r r1, %ctaid.x
        setp.eq p1, r1, 0
        @p1 bra slow
        setp.eq p2, r1, 1
        @!p2 bra done
        ld.global.b32 r2, [r0+1]
done:   exit
slow:   movi r3, 0
loop:   add r3, r3, 1
        setp.lt p3, r3, 200
        @p3 bra loop
        ld.global.b32 r2, [r0+2]
        exit
";
    for slots in [4, 1] {
        let config = CoreConfig {
            max_resident_blocks: slots,
            ..CoreConfig::default()
        };
        let t = same_trap(&config, src, 8, 4);
        assert_eq!(t.block, [0, 0, 0], "{t}");
    }
}

/// §9.4 step 3: a barrier that can never complete (warp 0 exits, warp 1
/// waits) is trap 7 with the functional model's report.
#[test]
fn a_barrier_that_can_never_complete_traps() {
    let src = "\
        s2r r1, %warpid
        setp.eq p1, r1, 0
        @p1 exit
        bar.sync
        exit
";
    for scheduler in [Scheduler::Lrr, Scheduler::Gto] {
        let config = CoreConfig {
            scheduler,
            ..CoreConfig::default()
        };
        let t = same_trap(&config, src, 16, 2);
        assert!(t.to_string().contains("barrier can never complete"), "{t}");
    }
}

/// §18 amendment 2: with two resident blocks each sees half the shared
/// memory; an access past its window traps in both models.
#[test]
fn shared_accesses_are_checked_against_the_window() {
    // 24 threads (3 warps): two resident blocks on the default core, 8 KiB
    // windows. An access at 8 KiB is out of range.
    let src = "\
        movi r1, 8192
        ld.shared.b32 r2, [r1+0]
        exit
";
    let t = same_trap(&CoreConfig::default(), src, 24, 2);
    assert!(t.to_string().contains("shared memory (8192 bytes)"), "{t}");
    // With one slot the window is the whole 16 KiB: no trap.
    let config = CoreConfig {
        max_resident_blocks: 1,
        ..CoreConfig::default()
    };
    run_src(&config, src, 24, 2);
}

/// §10.4 bandwidth: `global_bandwidth: 2` with 4-byte beats (credit cap 4,
/// a beat costs 4, +2 per cycle) accepts a beat every other cycle. Hand
/// count for the load of `global_load_and_store_timelines` (selected at
/// `t = 29`): beat `k` is accepted at `t + 8 + 2k`, the last (k = 7) at
/// `t + 22`; its ACK comes `lat` later and is processed the cycle after
/// (`t + 23 + lat`), the return slot is selected at `t + 24 + lat` and is
/// in A at `t + 29 + lat`; `exit` at `t + 30 + lat`; DONE 9 cycles after.
/// Each stalled cycle with a beat presented counts in
/// `global_stall_cycles` (7 of them).
#[test]
fn bandwidth_limit_spaces_the_beats() {
    for lat in [1u64, 10, 100] {
        let config = CoreConfig {
            global_latency: lat as u32,
            global_bandwidth: 2,
            ..CoreConfig::default()
        };
        let o = run_src(
            &config,
            "s2r r0, %tid\nshl r0, r0, 2\nld.global.b32 r1, [r0+256]\nexit\n",
            8,
            1,
        );
        assert_eq!(
            o.counters.get(Counter::Cycles),
            29 + 30 + lat + 9,
            "lat {lat}"
        );
        assert_eq!(o.counters.get(Counter::GlobalStallCycles), 7);
    }
}

/// §9.5: a barrier release re-arbitrates the block's warps one per cycle
/// while the tree is free. Two warps (16 threads): `bar.sync` of warp 0 at
/// S in `c0 = 25`, of warp 1 in 26; warp 1's commit at A (31) releases
/// both; the engine loads warp 0's keys at the end of 32 (the pass in X
/// then is a bubble), the tree computes in 33, warp 0 is selected in 34;
/// warp 1 follows one cycle later (35). Its `exit` is in A at 40: DONE at
/// the end of 43, 44 cycles.
#[test]
fn barrier_release_costs_one_cycle_per_warp() {
    for arbiter in [ArbiterMode::Unified, ArbiterMode::Split] {
        let config = CoreConfig {
            arbiter,
            ..CoreConfig::default()
        };
        let o = run_src(&config, "bar.sync\nexit\n", 16, 1);
        assert_eq!(o.counters.get(Counter::Cycles), 44, "{arbiter:?}");
        assert_eq!(o.counters.get(Counter::Rearbs), 2);
        assert_eq!(o.counters.get(Counter::RearbWaitCycles), 0);
        assert_eq!(o.counters.get(Counter::Barriers), 1);
    }
}

/// §10.2 refusal with one entry (`global_outstanding: 1`, `lat` = 10): a
/// load whose lanes 0–3 fall in line 0 and 4–7 in line 1 (stride 8
/// bytes; 4 beats each). Hand count from `t = 29` (the load's first
/// selection):
///
/// * pass 1: A at `t+5` serves line 0, takes the entry; lanes 4–7 replay;
///   its 4 beats are on the bus in `t+8..=t+11`, the last ACK is processed
///   in `t+12+lat` (= `t+22`), the return slot is selected in `t+23` and
///   frees the entry at A in `t+28`;
/// * replays selected at `t+6`, `t+12`, `t+18` reach A at `t+11`, `t+17`,
///   `t+23` with no free entry: refused (3 `queue_full_replays`);
/// * the warp is not ready in `t+24..=t+28` (`busy_r`: its return slot is
///   in S..A); the replay selected at `t+29` reaches A at `t+34` and takes
///   the entry freed at the end of `t+28`; its beats are on the bus in
///   `t+37..=t+40`, processed `t+41+lat`, return slot at S `t+42+lat`, at
///   A `t+47+lat`; `exit` at S in `t+48+lat` = `t+58`, DONE 9 later.
#[test]
fn a_full_queue_refuses_passes_until_an_entry_frees() {
    let config = CoreConfig {
        global_latency: 10,
        global_outstanding: 1,
        ..CoreConfig::default()
    };
    let o = run_src(
        &config,
        "s2r r0, %tid\nshl r0, r0, 3\nld.global.b32 r1, [r0+256]\nexit\n",
        8,
        1,
    );
    assert_eq!(o.counters.get(Counter::Cycles), 29 + 58 + 9);
    assert_eq!(o.counters.get(Counter::QueueFullReplays), 3);
    assert_eq!(o.counters.get(Counter::Replays), 4);
    assert_eq!(o.counters.get(Counter::Issued), 8);
    assert_eq!(o.counters.get(Counter::GlobalRequests), 2);
    assert_eq!(o.counters.get(Counter::GlobalBeats), 8);
}

/// §9.2: the background re-arbitration waits while the pass in X will use
/// the (unified) tree; `split` gives loads and stores their own tree.
/// Two resident one-warp blocks (global latency 3). Block 0 (warp 0,
/// ready from 17): `s2r` 17, `setp` 23, `bra` 29, a one-beat `ld.global`
/// at 35 (its return slot is selected at `35 + 9 + 1 + 3 = 48` and in A at
/// 53), `bar.sync` at 54, which releases the block at A (59). Block 1
/// (warp 1, launched in 17, ready from 26): `s2r` 26, `setp` 32, `bra` 38,
/// `ld.shared` at 44, 50, 56, 62, 68, `exit` 74 (A 79: the last retire,
/// DONE at the end of 82, 83 cycles).
///
/// * `unified`: in 60 the pass in X is block 1's `ld.shared` of 56, which
///   uses the tree in 61: the engine waits (1 `rearb_wait_cycle`), loads
///   warp 0 in 61, the tree computes in 62, warp 0's `exit` is selected in
///   63: 83 cycles.
/// * `split`: the engine loads warp 0 in 60, warp 0 is ready in 62, the
///   same cycle as warp 1's `ld.shared`; LRR's `rr` is 2 (warp 1 issued
///   last), so warp 0 goes first and warp 1's passes slip by one cycle
///   (63, 69, `exit` 75, A 80): 84 cycles.
#[test]
fn the_engine_waits_for_the_unified_tree() {
    let src = "\
        s2r r1, %ctaid.x
        setp.eq p1, r1, 0
        @p1 bra b0
        ld.shared.b32 r2, [r0+0]
        ld.shared.b32 r2, [r0+0]
        ld.shared.b32 r2, [r0+0]
        ld.shared.b32 r2, [r0+0]
        ld.shared.b32 r2, [r0+0]
        exit
b0:     ld.global.b32 r3, [r0+256]
        bar.sync
        exit
";
    for (arbiter, cycles, waits) in [(ArbiterMode::Unified, 83, 1), (ArbiterMode::Split, 84, 0)] {
        let config = CoreConfig {
            arbiter,
            global_latency: 3,
            ..CoreConfig::default()
        };
        let o = run_src(&config, src, 8, 2);
        assert_eq!(o.counters.get(Counter::Cycles), cycles, "{arbiter:?}");
        assert_eq!(
            o.counters.get(Counter::RearbWaitCycles),
            waits,
            "{arbiter:?}"
        );
        assert_eq!(o.counters.get(Counter::Rearbs), 1, "{arbiter:?}");
    }
}

/// §13.4: the watchdog counts warp passes selected at S that are not
/// replays; an endless loop stops with the watchdog trap after `limit + 1`
/// of them, and the window finds the state repeating in both resident
/// blocks (two blocks of two full warps, every lane at pc 0).
#[test]
fn an_endless_loop_stops_at_the_watchdog() {
    let kernel = assemble("loop: bra loop\n");
    let launch = PipelineLaunch {
        launch: func::Launch {
            code: &kernel.code,
            entry_pc: 0,
            grid: [2, 1, 1],
            block: [16, 1, 1],
            params: &[],
            stack_bytes: 0,
        },
        shared_bytes: 0,
        regs_used: 0,
    };
    let mut g = vec![0; CoreConfig::default().global_memory_bytes as usize];
    let o = pipeline::run(
        &CoreConfig::default(),
        &launch,
        &mut g,
        common::sim_options(1000),
    )
    .unwrap();
    let t = o.result.unwrap_err();
    let concord_isa::func::TrapCause::Watchdog { limit, diagnosis } = &t.cause else {
        panic!("{t}")
    };
    assert_eq!(*limit, 1000);
    assert!(
        diagnosis.starts_with("endless loop: the state repeats, so the run can never end: block (0,0,0) warps 0-1 lanes 0-7 run at pc 0; block (1,0,0) warps 0-1 lanes 0-7 run at pc 0 (resident warps: "),
        "{t}"
    );
    assert_eq!((t.block, t.warp, t.lanes, t.pc), ([0; 3], 0, 0xff, 0));
}
