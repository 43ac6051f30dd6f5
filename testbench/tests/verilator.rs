//! The Verilator harness against a toy `concord_core` with the real port
//! list (tests/fixtures/concord_core_toy.v; its header documents the toy's
//! made-up program words).
//!
//! The fixture is built once per test binary (two builds: plain and
//! `--trace`), cached under Cargo's per-target temp dir, so a second
//! `cargo test` finds both in the cache.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use concord_isa::config::CoreConfig;
use concord_isa::func::{Launch, TrapCause};
use concord_isa::{encode, Instr, LoadWidth, Op, Pred, PredSrc, Reg, Space, StoreWidth};
use concord_testbench::trace::{Counters, RunError, State, TracePort};
use concord_testbench::verilator::{host, run, BuildOptions, GlobalMemory, HarnessError, Rtl};

const FIXTURE: &str = include_str!("fixtures/concord_core_toy.v");

// The fixture's program words.
fn nop(spin: u32) -> u32 {
    spin & 0xffff
}
fn jump(target: u32) -> u32 {
    1 << 28 | target
}
fn gread(addr: u32) -> u32 {
    2 << 28 | addr
}
fn gwrite(addr: u32) -> u32 {
    3 << 28 | addr
}
fn atom(op: u32, addr: u32) -> u32 {
    4 << 28 | op << 24 | addr
}
const DONE: u32 = 5 << 28;
fn trap(cause: u32, lanes: u32) -> u32 {
    6 << 28 | lanes << 4 | cause
}
fn pred(bits: u32) -> u32 {
    7 << 28 | bits
}

fn cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("concord-rtl-cache")
}

fn options(trace: bool) -> BuildOptions {
    BuildOptions {
        trace,
        cache_dir: Some(cache_dir()),
        ..BuildOptions::default()
    }
}

struct Built {
    rtl: Mutex<Rtl>,
    took: Duration,
}

fn built(trace: bool) -> &'static Built {
    static PLAIN: OnceLock<Built> = OnceLock::new();
    static TRACED: OnceLock<Built> = OnceLock::new();
    let cell = if trace { &TRACED } else { &PLAIN };
    cell.get_or_init(|| {
        let t = Instant::now();
        let rtl = Rtl::build(FIXTURE, &options(trace)).unwrap_or_else(|e| panic!("{e}"));
        let took = t.elapsed();
        eprintln!(
            "fixture (trace {trace}) built in {took:?}, cache hit {}",
            rtl.cache_hit()
        );
        Built {
            rtl: Mutex::new(rtl),
            took,
        }
    })
}

/// A fresh, reset model of the fixture (its own Verilated instance).
fn fixture() -> Rtl {
    let b = built(false);
    let rtl = b.rtl.lock().unwrap();
    rtl.new_instance().unwrap()
}

fn toy_config() -> CoreConfig {
    CoreConfig {
        lanes: 4,
        warps: 1,
        imem_words: 16,
        global_memory_bytes: 256,
        global_latency: 3,
        global_line_bytes: 32,
        ..CoreConfig::default()
    }
}

fn launch<'a>(code: &'a [u32], params: &'a [u32]) -> Launch<'a> {
    Launch {
        code,
        entry_pc: 0,
        grid: [1, 1, 1],
        block: [4, 1, 1],
        params,
        stack_bytes: 0,
    }
}

/// Loads `code` (entry 0), starts, and steps until DONE/TRAP (at most `max` cycles).
fn start_and_step(
    rtl: &mut Rtl,
    code: &[u32],
    memory: &mut GlobalMemory,
    max: usize,
) -> Vec<TracePort> {
    rtl.reset();
    rtl.load(&launch(code, &[]));
    rtl.host_write(host::START, 0);
    let mut trace = Vec::new();
    for _ in 0..max {
        let t = rtl.cycle(memory);
        let end = matches!(t.state, State::Done | State::Trap);
        trace.push(t);
        if end {
            break;
        }
    }
    trace
}

#[test]
fn second_build_is_a_cache_hit_of_the_same_library() {
    let b = built(false);
    let first = b.rtl.lock().unwrap().library_path().to_path_buf();
    let t = Instant::now();
    let again = Rtl::build(FIXTURE, &options(false)).unwrap();
    let took = t.elapsed();
    assert!(again.cache_hit());
    assert_eq!(again.library_path(), first);
    assert!(first.starts_with(cache_dir()));
    assert!(
        took < Duration::from_secs(2),
        "cache hit took {took:?} (first build {:?})",
        b.took
    );
    // The entry keeps the Verilog (compared on every hit) and the log.
    let entry = first.parent().unwrap();
    assert_eq!(
        std::fs::read_to_string(entry.join("concord_core.v")).unwrap(),
        FIXTURE
    );
    assert!(entry.join("build.log").is_file());
    assert!(!entry.join("obj").exists(), "object files are not kept");
}

#[test]
fn host_writes_are_read_back() {
    let mut rtl = fixture();
    assert_eq!(rtl.status(), Default::default());
    assert_eq!(rtl.host_read(host::STATUS), 0);
    for i in 0..16 {
        rtl.host_write(host::PARAM + i, 0x1000 * i + 7);
    }
    rtl.host_write(host::IMEM + 3, 0xdead_beef);
    assert_eq!(rtl.host_read(0x3e), host::IMEM + 3, "last write address");
    assert_eq!(rtl.host_read(0x3f), 0xdead_beef, "last write data");
    assert_eq!(rtl.host_read(0x53), 0xdead_beef, "imem[3]");
    for i in 0..16 {
        assert_eq!(rtl.host_read(0x40 + i), 0x1000 * i + 7, "param {i}");
    }
    // Per-port access: outputs as words, inputs take effect at eval.
    assert_eq!(rtl.peek("trace_rf_data").unwrap().len(), 32);
    rtl.poke("host_raddr", &[0x3f]).unwrap();
    rtl.eval();
    assert_eq!(rtl.peek("host_rdata").unwrap(), vec![0xdead_beef]);
    assert!(matches!(
        rtl.peek("host_we"),
        Err(HarnessError::NoSuchPort { what: "output", .. })
    ));
}

#[test]
fn cycles_step_through_the_states_and_trace_every_field() {
    let mut rtl = fixture();
    let mut memory = GlobalMemory::new(vec![0; 256], 1, 32);
    let code = [nop(0), nop(2), pred(0b1010), DONE];
    let trace = start_and_step(&mut rtl, &code, &mut memory, 100);
    use State::*;
    let states: Vec<State> = trace.iter().map(|t| t.state).collect();
    assert_eq!(
        states,
        [
            Init, Init, // clearing writes
            Sched, Fetch, Decode, Exec, // nop
            Sched, Fetch, Decode, Exec, Exec, Exec, // nop, spinning 2 more cycles
            Sched, Fetch, Decode, Exec, // pred write
            Sched, Fetch, Decode, Exec, // done
            Done,
        ]
    );
    let pcs: Vec<u32> = trace.iter().map(|t| t.pc).collect();
    assert_eq!(&pcs[2..7], &[0, 0, 0, 0, 1]);
    assert_eq!(pcs[15], 2);
    // INIT's clearing writes.
    assert_eq!((trace[0].rf_we, trace[0].rf_addr), (0xf, 0));
    assert_eq!((trace[1].rf_we, trace[1].rf_addr), (0xf, 1));
    assert_eq!(trace[2].rf_we, 0);
    // The predicate write, in the EXEC cycle of pc 2.
    let p = &trace[15];
    assert_eq!(
        (p.state, p.pred_we, p.pred_addr, p.pred_data),
        (Exec, 0xf, 1, 0b1010)
    );
    assert_eq!(trace.iter().filter(|t| t.pred_we != 0).count(), 1);
    assert_eq!(trace[5].exec, 0xf, "latched exec");
    assert!(rtl.status().done && !rtl.status().running);
    let c = rtl.counters();
    assert_eq!(
        c.cycles,
        (trace.len() - 1) as u64,
        "cycles exclude the DONE cycle"
    );
    assert_eq!((c.issued, c.active_lane_slots, c.blocks), (4, 16, 1));
    assert_eq!(rtl.trap_report(&code, &toy_config()), None);
    assert!(rtl.cycles() >= trace.len() as u64);
}

#[test]
fn memory_response_arrives_latency_cycles_after_the_accept() {
    for latency in [1u32, 5] {
        let mut rtl = fixture();
        let bytes: Vec<u8> = (0..=255u8).collect();
        let mut memory = GlobalMemory::new(bytes, latency, 32);
        let trace = start_and_step(&mut rtl, &[gread(0x40), DONE], &mut memory, 100);
        let accept = trace
            .iter()
            .position(|t| t.state == State::GReq)
            .expect("a G_REQ cycle");
        let response = trace
            .iter()
            .position(|t| t.rf_we != 0 && t.state == State::GWait)
            .expect("the response on the trace");
        assert_eq!(response, accept + latency as usize, "latency {latency}");
        assert!(trace[accept + 1..=response]
            .iter()
            .all(|t| t.state == State::GWait));
        let r = &trace[response];
        assert_eq!((r.rf_we, r.rf_addr), (0xf, 0));
        let want: Vec<u32> = (0..4)
            .map(|l| u32::from_le_bytes(std::array::from_fn(|b| (0x40 + 4 * l + b) as u8)))
            .collect();
        assert_eq!(&r.rf_data[..4], &want[..]);
        assert!(
            r.rf_data[4..].iter().all(|&w| w == 0),
            "lanes >= 4 are zero"
        );
        assert_eq!(trace[response + 1].state, State::Sched);
        assert_eq!(trace.last().unwrap().state, State::Done);
    }
}

#[test]
fn run_writes_global_memory_back_and_reports_counters() {
    let mut rtl = fixture();
    let config = toy_config();
    let code = [gwrite(0x20), atom(0, 0x80), gread(0x80), DONE];
    let params = [0x1122_3344, 0x5566_7788];
    let mut global = vec![0u8; 256];
    global[0x80] = 10;
    let mut seen = Vec::new();
    let mut on_cycle = |n: u64, t: &TracePort| {
        seen.push((n, t.clone()));
        ControlFlow::Continue(())
    };
    let c = run(
        &mut rtl,
        &config,
        &launch(&code, &params),
        &mut global,
        10_000,
        Some(&mut on_cycle),
    )
    .unwrap();
    assert_eq!(
        &global[0x20..0x28],
        &[0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55]
    );
    assert_eq!(
        u32::from_le_bytes(global[0x80..0x84].try_into().unwrap()),
        10 + 0x1122_3344
    );
    assert_eq!((c.issued, c.blocks), (4, 1));
    assert_eq!(c.cycles + 1, seen.len() as u64);
    assert!(seen.iter().enumerate().all(|(i, (n, _))| *n == i as u64));
    // The atomic's old word reaches lane 0 on the trace; the read sees the new one.
    let writes: Vec<&TracePort> = seen
        .iter()
        .map(|(_, t)| t)
        .filter(|t| t.rf_we != 0 && t.state == State::GWait)
        .collect();
    assert_eq!(writes.len(), 2);
    assert_eq!((writes[0].rf_we, writes[0].rf_data[0]), (1, 10));
    assert_eq!(writes[1].rf_data[0], 10 + 0x1122_3344);
    // Latency 3 from the config: accept to response.
    let accept = seen
        .iter()
        .position(|(_, t)| t.state == State::GReq)
        .unwrap();
    assert_eq!(seen[accept + 3].1.state, State::GWait);
    assert_eq!(seen[accept + 4].1.state, State::Sched);
}

/// A per-cycle hook that breaks at cycle `k` ends the run after that
/// cycle, unless the core is then done. The toy takes 2 `INIT` cycles, then
/// 4 per instruction (`SCHED FETCH DECODE EXEC`, counted as issued in
/// `DECODE`); `cycles` leaves out the `DONE` cycle.
#[test]
fn a_hook_that_breaks_stops_the_run_after_that_cycle() {
    let mut rtl = fixture();
    let config = toy_config();
    // Breaks at cycle `k`; the result and every (cycle, state) the hook saw.
    let mut run_to = |code: &[u32], k: u64, watchdog: u64| {
        let mut seen = Vec::new();
        let mut f = |n: u64, t: &TracePort| {
            seen.push((n, t.state));
            if n == k {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let mut global = vec![0u8; 256];
        let r = run(
            &mut rtl,
            &config,
            &launch(code, &[]),
            &mut global,
            watchdog,
            Some(&mut f),
        );
        (r, seen)
    };
    let stopped = |r: Result<Counters, RunError>| match r {
        Err(RunError::Stopped(c)) => c,
        other => panic!("expected a stopped run, got {other:?}"),
    };

    // An endless loop, stopped in the DECODE of its third issue (cycle
    // 2 + 2 * 4 + 2); a watchdog of 2 would fire there, the break wins.
    let spin = [nop(0), jump(0)];
    for watchdog in [10_000, 2] {
        let (r, seen) = run_to(&spin, 12, watchdog);
        let c = stopped(r);
        assert_eq!((c.cycles, c.issued), (13, 3), "watchdog {watchdog}");
        assert_eq!(seen.len(), 13, "no cycle after the break");
        assert_eq!(seen.last(), Some(&(12, State::Decode)));
    }
    let (r, _) = run_to(&spin, u64::MAX, 2);
    assert!(
        matches!(r, Err(RunError::Trap(ref t)) if matches!(t.cause, TrapCause::Watchdog { limit: 2, .. })),
        "{r:?}"
    );

    // nop, done: DONE in cycle 2 + 2 * 4 = 10.
    let code = [nop(0), DONE];
    let (r, seen) = run_to(&code, 8, 10_000);
    assert_eq!(
        (stopped(r).cycles, seen.len()),
        (9, 9),
        "stopped in the done's DECODE"
    );
    // In the last EXEC the core finishes: the run completes, and the hook
    // does not see the DONE cycle.
    let (r, seen) = run_to(&code, 9, 10_000);
    let c = r.unwrap();
    assert_eq!((c.cycles, c.issued, c.blocks), (10, 2, 1));
    assert_eq!(seen.len(), 10);
    let (r, seen) = run_to(&code, u64::MAX, 10_000);
    assert_eq!(r, Ok(c));
    assert_eq!(seen.len(), 11);
    assert_eq!(seen.last(), Some(&(10, State::Done)));
}

#[test]
fn traps_come_back_as_the_functional_models_reports() {
    let config = toy_config();
    let mut rtl = fixture();
    let mut run_code = |code: &[u32], params: &[u32]| {
        let mut global = vec![0u8; 256];
        let l = Launch {
            block: [2, 2, 1],
            ..launch(code, params)
        };
        run(&mut rtl, &config, &l, &mut global, 10_000, None)
            .unwrap_err()
            .unwrap_trap()
    };

    let t = run_code(&[nop(0), trap(7, 0b0110)], &[0, 0, 3, 1]);
    assert_eq!(
        t.cause,
        TrapCause::BarrierNeverCompletes {
            waiting: 3,
            exited: 1,
            threads: 4
        }
    );
    assert_eq!(
        (t.block, t.warp, t.lanes, t.pc, t.issued),
        ([0; 3], 0, 0b0110, 1, 2)
    );

    let t = run_code(&[trap(8, 0xf)], &[0, 5]);
    assert_eq!(
        t.cause,
        TrapCause::MissingParam {
            index: 5,
            supplied: 2
        }
    );

    let t = run_code(&[jump(5)], &[]);
    assert_eq!(t.cause, TrapCause::PcOutOfRange { len: 1 });
    assert_eq!((t.pc, t.lanes), (5, 0xf));

    let t = run_code(&[0x8000_0000], &[]);
    assert!(
        matches!(&t.cause, TrapCause::InvalidInstruction { word: 0x8000_0000, reason } if !reason.is_empty()),
        "{t}"
    );

    // Memory traps take space and width from the Concord instruction at the
    // trap pc. These words, guarded by @p6, read as the toy's trap op 6
    // (cause = offset bits 3..0, lanes = bits 7..4).
    let p6 = PredSrc {
        pred: Pred::new(6).unwrap(),
        negate: false,
    };
    let load = encode(&Instr {
        guard: p6,
        op: Op::Load {
            space: Space::Global,
            width: LoadWidth::U16,
            rd: Reg::new(1).unwrap(),
            base: Reg::new(2).unwrap(),
            offset: 0x21,
        },
    })
    .unwrap();
    assert_eq!(load >> 28, 6);
    let t = run_code(&[load], &[0x1234]);
    assert_eq!(
        t.cause,
        TrapCause::AddressOutOfRange {
            space: Space::Global,
            addr: 0x1234,
            bytes: 2,
            size: config.global_memory_bytes
        }
    );
    assert_eq!(t.lanes, 0b0010);
    let store = encode(&Instr {
        guard: p6,
        op: Op::Store {
            space: Space::Shared,
            width: StoreWidth::B32,
            src: Reg::new(1).unwrap(),
            base: Reg::new(2).unwrap(),
            offset: 0x32,
        },
    })
    .unwrap();
    let t = run_code(&[store], &[0x42]);
    assert_eq!(
        t.cause,
        TrapCause::Misaligned {
            space: Space::Shared,
            addr: 0x42,
            bytes: 4
        }
    );
    assert_eq!(t.lanes, 0b0011);
}

#[test]
fn the_watchdog_counts_issues_and_reports_stuck_pcs() {
    let mut rtl = fixture();
    let mut global = vec![0u8; 256];
    let t = run(
        &mut rtl,
        &toy_config(),
        &launch(&[nop(0), jump(0)], &[]),
        &mut global,
        1000,
        None,
    )
    .unwrap_err()
    .unwrap_trap();
    let TrapCause::Watchdog { limit, diagnosis } = &t.cause else {
        panic!("{t}");
    };
    // The limit counts issues (the toy issues one every 4 cycles). The toy
    // is not the real core, so the cycle model cannot replay it: the
    // report falls back to what the trace port showed, and says why.
    assert_eq!(*limit, 1000);
    assert!(
        diagnosis.starts_with("the RTL neither finished nor trapped in 4005 cycles"),
        "{diagnosis}"
    );
    assert!(
        diagnosis.contains("warp 0: 1001 issue(s) at pcs 0..=1, lanes 0-3; the cycle model, replaying the run, did not reproduce"),
        "{diagnosis}"
    );
    assert_eq!(t.issued, 1001);
    assert_eq!(t.lanes, 0xf);
}

#[test]
fn instances_are_independent_and_move_between_threads() {
    let mut a = fixture();
    let b = fixture();
    a.host_write(host::PARAM, 99);
    assert_eq!(a.host_read(0x40), 99);
    let mut b = std::thread::spawn(move || {
        let mut b = b;
        let mut memory = GlobalMemory::new(vec![0; 64], 1, 32);
        b.host_write(host::PARAM, 1);
        for _ in 0..10 {
            assert_eq!(b.cycle(&mut memory).state, State::Idle);
        }
        b
    })
    .join()
    .unwrap();
    assert_eq!(b.host_read(0x40), 1);
    assert_eq!(a.host_read(0x40), 99);
}

#[test]
fn vcd_is_written_when_asked() {
    let b = built(true);
    let mut rtl = b.rtl.lock().unwrap().new_instance().unwrap();
    assert!(rtl.traced());
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("verilator-test.vcd");
    let _ = std::fs::remove_file(&path);
    rtl.open_vcd(&path).unwrap();
    assert_eq!(rtl.vcd_path(), Some(path.as_path()));
    let mut memory = GlobalMemory::new(vec![0; 256], 2, 32);
    let trace = start_and_step(&mut rtl, &[gread(0), DONE], &mut memory, 100);
    assert_eq!(trace.last().unwrap().state, State::Done);
    rtl.close_vcd();
    let vcd = std::fs::read_to_string(&path).unwrap();
    assert!(
        vcd.contains("$enddefinitions"),
        "{}",
        &vcd[..vcd.len().min(500)]
    );
    assert!(vcd.contains(" trace_pc "), "trace_pc declared");
    assert!(vcd.contains(" gmem_resp_data "));
    // Two dumps per cycle, 5 ns apart: settled inputs, then the rising edge.
    let times: Vec<u64> = vcd
        .lines()
        .filter_map(|l| l.strip_prefix('#'))
        .map(|t| t.parse().unwrap())
        .collect();
    assert!(times.len() >= 2 * trace.len(), "{} dumps", times.len());
    assert!(times.windows(2).all(|w| w[1] == w[0] + 5), "{times:?}");

    // A plain build refuses.
    let mut plain = fixture();
    assert!(matches!(
        plain.open_vcd(&path),
        Err(HarnessError::NotTraced)
    ));
}

#[test]
fn concurrent_builds_of_one_key_share_one_entry() {
    // A fresh cache and a unique text: this always builds.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("rtl-cache-race-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let text = format!("{FIXTURE}\n// variant {nonce}\n");
    let opts = BuildOptions {
        cache_dir: Some(dir.clone()),
        jobs: Some(1),
        ..BuildOptions::default()
    };
    let results: Vec<Rtl> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2)
            .map(|_| s.spawn(|| Rtl::build(&text, &opts).unwrap()))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(results[0].library_path(), results[1].library_path());
    assert_eq!(results.iter().filter(|r| !r.cache_hit()).count(), 1);
    let mut left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    let key = results[0].cache_key();
    assert_eq!(
        left,
        vec![key.to_string(), format!("{key}.lock")],
        "the entry and its lock file, no temp dirs"
    );
    drop(results);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn build_failures_show_the_tools_output() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rtl-cache-failures");
    let opts = BuildOptions {
        cache_dir: Some(dir.clone()),
        ..BuildOptions::default()
    };
    let e = Rtl::build(
        "module concord_core(input wire clock);\n  this is not verilog\nendmodule\n",
        &opts,
    )
    .unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, HarnessError::BuildFailed { .. }), "{msg}");
    assert!(msg.contains("%Error"), "{msg}");
    assert!(msg.contains("full log:"), "{msg}");

    // Valid Verilog with a port missing: the shim does not compile, naming the port.
    let missing = FIXTURE
        .replace(
            "    output wire [31:0]   trace_pred_data\n",
            "    output wire [31:0]   trace_pred_datum\n",
        )
        .replace("assign trace_pred_data =", "assign trace_pred_datum =");
    assert_ne!(missing, FIXTURE);
    let e = Rtl::build(&missing, &opts).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("concord_core lacks the port(s) trace_pred_data "),
        "{msg}"
    );
}

/// Raw speed of the harness on the fixture. Run with
/// `cargo test --release -p concord-testbench --test verilator -- --ignored --nocapture speed`.
#[test]
#[ignore]
fn speed() {
    let mut rtl = fixture();
    for (name, code) in [
        ("spin (EXEC cycles, no memory)", vec![nop(0xffff), jump(0)]),
        ("global reads (latency 1)", vec![gread(0x40), jump(0)]),
    ] {
        let mut memory = GlobalMemory::new(vec![0; 256], 1, 32);
        rtl.reset();
        rtl.load(&launch(&code, &[]));
        rtl.host_write(host::START, 0);
        let n = 5_000_000u64;
        let t = Instant::now();
        let mut acc = 0u32;
        for _ in 0..n {
            let tr = rtl.cycle(&mut memory);
            acc = acc.wrapping_add(tr.pc ^ tr.rf_data[0]);
        }
        let s = t.elapsed().as_secs_f64();
        println!(
            "{name}: {n} cycles in {s:.3} s = {:.2} M cycles/s (checksum {acc})",
            n as f64 / s / 1e6
        );
    }
}
