//! The Core v2 cycle model's ports and generator options
//! (docs/microarchitecture.md §14.3, §15.1, §15.2, §17.2): counters
//! that wrap at `counter_bits`, the host slave, the trace port, the
//! testbench memory's bus errors. Goldens are worked out by hand from the
//! document, or are the same model's 64-bit run reduced by the width rule
//! of §15.1 (the rule, not the code, decides the expected value).

mod common;

use concord_isa::config::CoreConfig;
use concord_isa::func;
use concord_testbench::pipeline::{self, Counter, Outcome, PipelineLaunch, PipelineOptions};
use concord_uarch::GenOptions;

use common::assemble;

fn run_with(config: &CoreConfig, src: &str, threads: u32, gen: GenOptions) -> Outcome {
    common::run_kernel(config, src, threads, 1, gen)
}

/// A loop of 3000 iterations on 8 full warps: `issued` and the per-cycle
/// warp counters pass 2^16.
const LOOP: &str = "
        movi r3, 0
        movi r4, 3000
loop:   add r3, r3, 1
        setp.lt p1, r3, r4
        @p1 bra loop
        exit
";

/// §15.1: every counter is `counter_bits` wide and wraps; `cycles` is
/// always 64 bits. A 16-bit core reads every counter of the 64-bit core
/// modulo 2^16, and the same `cycles`.
#[test]
fn counters_wrap_at_counter_bits_and_cycles_does_not() {
    let config = CoreConfig::default();
    let wide = run_with(&config, LOOP, 64, GenOptions::sim());
    let narrow = run_with(
        &config,
        LOOP,
        64,
        GenOptions {
            counter_bits: 16,
            ..GenOptions::sim()
        },
    );
    let mut wrapped = 0;
    for c in Counter::ALL {
        let (w, n) = (wide.counters.get(c), narrow.counters.get(c));
        if c == Counter::Cycles {
            assert_eq!(n, w, "cycles");
        } else {
            assert_eq!(n, w % (1 << 16), "{}", c.name());
        }
        wrapped += (n != w) as u32;
    }
    // The loop is long enough that some counters did wrap (else the test
    // would show nothing).
    assert!(
        wide.counters.get(Counter::Issued) > 1 << 16,
        "issued {}",
        wide.counters.get(Counter::Issued)
    );
    assert!(wrapped >= 1);
    assert!(wide.counters.get(Counter::Cycles) < 1 << 16 || wrapped >= 2);
}

/// A generator option out of range is refused before the run, naming it.
#[test]
fn an_out_of_range_counter_bits_is_refused() {
    let config = CoreConfig::default();
    let kernel = assemble("exit\n");
    let launch = PipelineLaunch {
        launch: func::Launch {
            code: &kernel.code,
            entry_pc: 0,
            grid: [1, 1, 1],
            block: [1, 1, 1],
            params: &[],
            stack_bytes: 0,
        },
        shared_bytes: 0,
        regs_used: 0,
    };
    let mut global = vec![0; 64];
    let e = pipeline::run(
        &config,
        &launch,
        &mut global,
        PipelineOptions {
            watchdog: 100,
            check_bus: true,
            gen: GenOptions {
                counter_bits: 8,
                ..GenOptions::board()
            },
        },
    )
    .expect_err("refused");
    assert!(e.contains("`counter_bits`"), "{e}");
}

// ---- the host slave (§14.3, §14.4, §12.1) ----

use concord_testbench::pipeline::{host_read, host_write, CoreState, Pipeline};
use concord_uarch::regmap;
use concord_uarch::wishbone::Signals;

/// A host driving the model's host port cycle by cycle; keeps every
/// record.
struct Host {
    core: Pipeline,
    records: Vec<Signals>,
}

impl Host {
    fn new(config: &CoreConfig, gen: GenOptions) -> Host {
        let mut core = Pipeline::idle(config, gen).unwrap();
        core.set_global(vec![0; config.global_memory_bytes as usize]);
        core.check_ports();
        Host {
            core,
            records: Vec::new(),
        }
    }
    /// One cycle with these host inputs; the port's record.
    fn cycle(&mut self, s: Signals) -> Signals {
        let r = self.core.cycle(&s);
        self.records.push(r);
        r
    }
    /// One cycle without a request (`CYC` kept while an `ACK` is due).
    fn idle(&mut self) -> Signals {
        let cyc = self.core.host_pending();
        self.cycle(Signals {
            cyc,
            ..Signals::idle()
        })
    }
    fn write(&mut self, adr: u32, v: u32) {
        self.cycle(host_write(adr, v));
    }
    /// A read in this cycle; its value arrives with the next cycle's `ACK`.
    fn read(&mut self, adr: u32) -> u32 {
        self.cycle(host_read(adr));
        let r = self.idle();
        assert!(r.ack, "the ACK of the read of {adr:#x}");
        r.dat_r[0]
    }
    fn load(&mut self, kernel: &concord_isa::container::Kernel, threads: u32) {
        self.load_with(kernel, threads, regmap::LaunchExtras::default());
    }
    fn load_with(
        &mut self,
        kernel: &concord_isa::container::Kernel,
        threads: u32,
        extras: regmap::LaunchExtras,
    ) {
        let launch = func::Launch {
            code: &kernel.code,
            entry_pc: kernel.entries[0].pc,
            grid: [1, 1, 1],
            block: [threads, 1, 1],
            params: &[],
            stack_bytes: 0,
        };
        for (a, v) in regmap::launch_writes(&launch, &extras) {
            self.write(a, v);
        }
    }
    fn until(&mut self, state: CoreState) {
        for _ in 0..100_000 {
            if self.core.state() == state {
                return;
            }
            self.idle();
        }
        panic!("never reached {state:?}");
    }
    fn no_violations(&self) {
        assert!(
            self.core.violations().is_empty(),
            "{:?}",
            self.core.violations()
        );
    }
}

/// §14.3's timeline: the ACK one cycle after each request, read data the
/// value during the request's cycle, 0 otherwise; requests back to back.
#[test]
fn host_requests_are_acknowledged_one_cycle_later() {
    let mut h = Host::new(&CoreConfig::default(), GenOptions::sim());
    // c: write CTRL.HALT; c+1: read CTRL; c+2: read ID; c+3: CYC only.
    let r0 = h.cycle(host_write(regmap::CTRL, 2));
    let r1 = h.cycle(host_read(regmap::CTRL));
    let r2 = h.cycle(host_read(regmap::ID));
    let r3 = h.cycle(Signals {
        cyc: true,
        ..Signals::idle()
    });
    let r4 = h.cycle(Signals::idle());
    assert_eq!((r0.ack, r0.dat_r[0]), (false, 0));
    assert_eq!((r1.ack, r1.dat_r[0]), (true, 0), "the write's ACK, no data");
    // The write took effect at the end of c: CTRL reads HALT (bit 1).
    assert_eq!((r2.ack, r2.dat_r[0]), (true, 2));
    assert_eq!((r3.ack, r3.dat_r[0]), (true, 0x434E_4332), "\"CNC2\"");
    assert_eq!((r4.ack, r4.dat_r[0]), (false, 0));
    assert!([r0, r1, r2, r3, r4].iter().all(|r| !r.stall && !r.err));
    h.no_violations();
}

/// `HWCFG0` and `HWCFG4` of the default 8×8 core (32 registers, 8
/// predicates, lrr, unified, depth_pc), worked out from §14.4's fields.
#[test]
fn hwcfg_describes_the_core() {
    let mut h = Host::new(&CoreConfig::default(), GenOptions::sim());
    assert_eq!(h.read(regmap::HWCFG), 8 | 8 << 8 | 32 << 16 | 8 << 24);
    // counter_bits 64 at [14:8], trace [16], debug_regs [17].
    assert_eq!(h.read(regmap::HWCFG + 4), 64 << 8 | 1 << 16 | 1 << 17);
    let mut b = Host::new(&CoreConfig::default(), GenOptions::board());
    assert_eq!(b.read(regmap::HWCFG + 4), 32 << 8);
    // Without debug_regs the 0x102xx window reads 0 (unmapped).
    b.write(regmap::DBG_WARP, 3);
    assert_eq!(b.read(regmap::DBG_WARP), 0);
    assert_eq!(h.read(regmap::DBG_WARP), 0);
    h.write(regmap::DBG_WARP, 3);
    assert_eq!(h.read(regmap::DBG_WARP), 3);
    // Write-only registers read 0.
    h.write(regmap::ENTRY_PC, 5);
    assert_eq!(h.read(regmap::ENTRY_PC), 0);
    h.no_violations();
    b.no_violations();
}

/// A launch through the host port: STATUS in SETUP, `cycles` read with its
/// snapshot, writes while running ignored (and `write_ignored` set), DONE.
/// One thread running `exit`: SETUP is the 8 cycles after the `START`
/// cycle; the hand count of tests/pipeline.rs (§12.3, §4.4) gives
/// `cycles = 9 + threads + 9 = 19` at DONE.
#[test]
fn a_launch_through_the_host_port() {
    let kernel = assemble("exit\n");
    let mut h = Host::new(&CoreConfig::default(), GenOptions::sim());
    h.load(&kernel, 1);
    assert_eq!(h.core.state(), CoreState::Idle);
    h.write(regmap::CTRL, 1); // START at the end of this cycle.
    assert_eq!(h.core.state(), CoreState::Setup);
    // The first SETUP cycle: running, state 1.
    assert_eq!(h.read(regmap::STATUS), 1 | 1 << 8);
    // That read was in SETUP cycles 1-2; this one is in the 3rd, with 2
    // SETUP cycles counted.
    assert_eq!(h.read(regmap::COUNTER_LO), 2);
    assert_eq!(h.read(regmap::COUNTER_HI), 0);
    // A launch register and a START while running: ignored, sticky bit.
    h.write(regmap::ENTRY_PC, 7);
    assert_eq!(h.read(regmap::STATUS) & 1 << 3, 1 << 3);
    h.until(CoreState::Done);
    // done [1], write_ignored [3], state DONE 4.
    assert_eq!(h.read(regmap::STATUS), 1 << 1 | 1 << 3 | 4 << 8);
    assert_eq!(h.read(regmap::COUNTER_LO), 19);
    assert_eq!(
        h.read(regmap::COUNTER_LO + 2 * Counter::Blocks as u32),
        1,
        "one block retired"
    );
    // LAUNCH: threads 1, nwarps 1, resident min(4 slots, 8 warps) = 4.
    assert_eq!(h.read(regmap::LAUNCH), 1 | 1 << 16 | 4 << 24);
    // A second START clears the counters and the sticky bits.
    h.write(regmap::CTRL, 1);
    assert_eq!(h.read(regmap::STATUS), 1 | 1 << 8);
    h.until(CoreState::Done);
    assert_eq!(h.read(regmap::COUNTER_LO), 19);
    h.no_violations();
}

/// §12.1: a launch with `CODE_LEN` 0 is refused: SETUP's 8 cycles, then
/// `IDLE` with `STATUS.refused`; no trap.
#[test]
fn a_refused_launch_returns_to_idle() {
    let mut h = Host::new(&CoreConfig::default(), GenOptions::sim());
    for (a, v) in [
        (regmap::GRID_X, 1),
        (regmap::GRID_Y, 1),
        (regmap::GRID_Z, 1),
        (regmap::BLOCK_X, 1),
        (regmap::BLOCK_Y, 1),
        (regmap::BLOCK_Z, 1),
    ] {
        h.write(a, v);
    }
    h.write(regmap::CTRL, 1);
    for _ in 0..7 {
        assert_eq!(h.core.state(), CoreState::Setup);
        h.idle();
    }
    // The 8th SETUP cycle.
    assert_eq!(h.read(regmap::STATUS), 1 | 1 << 8);
    assert_eq!(h.core.state(), CoreState::Idle);
    assert_eq!(h.read(regmap::STATUS), 1 << 4);
    assert_eq!(h.read(regmap::COUNTER_LO), 8, "SETUP is counted");
    assert!(h.core.refusal().unwrap().contains("CODE_LEN"));
    h.no_violations();
}

/// The trap registers (§13.3) after a misaligned load (cause 2) of
/// address 1, 4 bytes, by thread 0 at pc 0.
#[test]
fn the_trap_registers_report_the_trap() {
    let kernel = assemble("ld.global.b32 r2, [r0+1]\nexit\n");
    let mut h = Host::new(&CoreConfig::default(), GenOptions::sim());
    h.load(&kernel, 1);
    h.write(regmap::CTRL, 1);
    h.until(CoreState::Trap);
    assert_eq!(h.read(regmap::STATUS), 1 << 2 | 5 << 8);
    let regs = [
        (regmap::TRAP_CAUSE, 2),
        (regmap::TRAP_PC, 0),
        (regmap::TRAP_WARP, 0),
        (regmap::TRAP_LANES, 1),
        (regmap::TRAP_BLOCK_X, 0),
        (regmap::TRAP_ADDR, 1),
        (regmap::TRAP_DETAIL, 4),
        (regmap::TRAP_THREADS, 1),
    ];
    for (a, v) in regs {
        assert_eq!(
            h.read(a),
            v,
            "{:?}",
            regmap::decode(
                a,
                &regmap::MapOptions {
                    imem_words: 1024,
                    block_slots: 4,
                    debug_regs: true
                }
            )
            .map(|r| r.0.name)
        );
    }
    h.no_violations();
}

/// `run` loads through the host port, `run_direct` loads the registers
/// directly: from the first SETUP cycle on they are the same core, so the
/// counters, the result, the last block and the memory must be equal.
#[test]
fn host_loaded_runs_equal_direct_loads() {
    for seed in 0..24u64 {
        let (lanes, warps) = [(4, 4), (8, 8)][(seed % 2) as usize];
        let threads = common::random_threads(seed, lanes, warps);
        let p = common::random_program(seed, lanes, warps, threads, 1 + (seed % 3) as u32);
        let base = CoreConfig {
            lanes,
            warps,
            global_latency: [1, 10, 3][(seed % 3) as usize],
            global_bandwidth: [0, 2][(seed / 3 % 2) as usize],
            ..CoreConfig::default()
        };
        let config = p.fit(&base);
        let kernel = p.kernel();
        let launch = common::random_pipeline_launch(&p, &kernel);
        let options = common::sim_options(5_000_000);
        let init = common::random_global(&p, &config);
        let (mut g1, mut g2) = (init.clone(), init);
        let a = pipeline::run(&config, &launch, &mut g1, options).unwrap();
        let b = pipeline::run_direct(&config, &launch, &mut g2, options).unwrap();
        assert_eq!(a.counters, b.counters, "seed {seed}");
        assert_eq!(a.result, b.result, "seed {seed}");
        assert_eq!(a.last_block, b.last_block, "seed {seed}");
        assert_eq!(g1, g2, "seed {seed}: memory");
        assert!(a.counters.get(Counter::Issued) > 0);
    }
}

// ---- the trace port (§15.2) ----

use concord_uarch::trace::{a_kind, s_kind, TraceRecord};

/// Loads `src` for one block of `threads` threads through the host port,
/// starts it and returns the trace records of every cycle from the first
/// SETUP cycle (record `i` is cycle `i`, counted as `cycles` counts) to
/// `DONE`.
fn trace_of(config: &CoreConfig, src: &str, threads: u32) -> Vec<TraceRecord> {
    trace_with(config, src, threads, regmap::LaunchExtras::default())
}

fn trace_with(
    config: &CoreConfig,
    src: &str,
    threads: u32,
    extras: regmap::LaunchExtras,
) -> Vec<TraceRecord> {
    let kernel = assemble(src);
    let mut h = Host::new(config, GenOptions::sim());
    h.load_with(&kernel, threads, extras);
    h.write(regmap::CTRL, 1);
    let mut records = Vec::new();
    while h.core.state() != CoreState::Done {
        assert!(records.len() < 100_000, "never done");
        h.idle();
        records.push(h.core.trace().expect("the sim preset has the port").clone());
    }
    h.no_violations();
    records
}

/// §4.4 with `k = 2` warps (16 threads, 8 lanes) and 3 ALU instructions
/// plus `exit`: the hand count of tests/pipeline.rs (§12.3: SETUP is
/// cycles 0..=7, the slot is allocated in 8, the walk writes threads in
/// 9..=24, the block starts at the end of 24; warps ready from `c0 = 25`)
/// and LRR issue every `max(k, 6) = 6` cycles: warp `i`, instruction `j`
/// at `25 + i + 6j`, committed at A five cycles later; the last `exit`
/// retires the block at its A.
#[test]
fn the_issue_sequence_shows_on_the_trace_port() {
    let config = CoreConfig::default();
    let src = "add r1, r2, r3\nadd r2, r3, r4\nadd r3, r4, r1\nexit\n";
    let tr = trace_of(&config, src, 16);
    let issue = |c: usize| -> Option<(u32, u32)> {
        // (warp, pc) selected at S in cycle c.
        (0..2u32)
            .flat_map(|i| (0..4u32).map(move |j| (i, j)))
            .find(|&(i, j)| 25 + i as usize + 6 * j as usize == c)
    };
    for (c, r) in tr.iter().enumerate() {
        assert_eq!(r.state, if c < 8 { 1 } else { 2 }, "tr_state, cycle {c}");
        if c < 8 {
            continue;
        }
        match issue(c) {
            Some((w, _)) => {
                assert_eq!(
                    (r.s_kind, r.s_warp, r.s_replay),
                    (s_kind::WARP, w, 0),
                    "S, cycle {c}"
                )
            }
            None => assert_eq!(r.s_kind, s_kind::BUBBLE, "S, cycle {c}"),
        }
        match c.checked_sub(5).and_then(issue) {
            Some((w, pc)) => {
                assert_eq!(
                    (r.a_kind, r.a_warp, r.a_pc),
                    (a_kind::COMMITTED, w, pc),
                    "A, cycle {c}"
                )
            }
            None => assert_eq!(r.a_kind, a_kind::BUBBLE, "A, cycle {c}"),
        }
        assert_eq!(r.alloc, (c == 8) as u32, "tr_alloc, cycle {c}");
        assert_eq!(r.start, (c == 24) as u32, "tr_start, cycle {c}");
        // The last exit: warp 1, pc 3, selected at 25 + 1 + 18 = 44, A at 49.
        assert_eq!(r.retire, (c == 49) as u32, "tr_retire, cycle {c}");
        assert_eq!(r.trap, 0);
    }
    // An ALU pass advances its warp's group: after the commit of pc j the
    // group is at j + 1 with both lanes' masks (8 lanes full).
    let r = &tr[25 + 5];
    assert_eq!((r.a_gpc, r.a_gmask), (1, 0xff));
    // An ALU pass: all 8 lanes active and executing, no stored pc written
    // (the group advances), no tree.
    assert_eq!((r.a_active, r.a_exec, r.a_pcw, r.tree), (0xff, 0xff, 0, 0));
    // The exit of warp 0 (pc 3, S in 43, A in 48): a control pass in
    // branch mode (tree bit 0) that writes every active lane's stored pc.
    let r = &tr[48];
    assert_eq!((r.a_warp, r.a_pc), (0, 3));
    assert_eq!((r.a_active, r.a_pcw, r.tree), (0xff, 0xff, 1));
    // DONE is entered at the end of the first cycle with nothing in S..W:
    // A of the last exit in 49, out of W in 51, quiet in 52 (§4.4 hand
    // count: cycles = c_A + 4 = 53).
    assert_eq!(tr.len(), 53);
    // Warp states at the start of cycle 26: warp 0 busy (selected in 25),
    // warp 1 ready; the other six warps empty.
    assert_eq!(tr[26].warp_code(0), 3, "BUSY");
    assert_eq!(tr[26].warp_code(1), 5, "READY");
    assert!((2..8).all(|w| tr[26].warp_code(w) == 0));
}

/// §10.3 with `lat = 10`, `Wb = 4` (`NB = 8`): the load is selected at
/// `t = 29` (tests/pipeline.rs's hand count: `s2r` 17, `shl` 23, `ld`
/// 29). Its entry is reserved at A in `t + 5` (free entries 8 → 7 at the
/// end of that cycle); beat `k`'s ACK comes in `t + 8 + k + lat` and is
/// processed (`tr_rsp`) in the next cycle, `t + 9 .. t + 8 + NB + lat`;
/// the return slot is at S in `t + 9 + NB + lat` and at A in
/// `t + 14 + NB + lat`, which frees the entry.
#[test]
fn a_global_load_shows_its_responses_and_free_entries() {
    let config = CoreConfig::default();
    let tr = trace_of(
        &config,
        "s2r r0, %tid\nshl r0, r0, 2\nld.global.b32 r1, [r0+256]\nexit\n",
        8,
    );
    let (t, lat, nb) = (29usize, 10usize, 8usize);
    for (c, r) in tr.iter().enumerate().skip(8) {
        let rsp = (t + 9 + lat..=t + 8 + nb + lat).contains(&c);
        assert_eq!((r.rsp, r.rsp_entry), (rsp as u32, 0), "tr_rsp, cycle {c}");
        let held = (t + 5..t + 14 + nb + lat).contains(&c);
        assert_eq!(r.free, if held { 7 } else { 8 }, "tr_free, cycle {c}");
        if c == t + 9 + nb + lat {
            assert_eq!((r.s_kind, r.s_warp), (s_kind::RETURN, 0), "cycle {c}");
        }
        if c == t + 14 + nb + lat {
            assert_eq!((r.a_kind, r.a_warp), (a_kind::RETURN, 0), "cycle {c}");
        }
    }
    // The load at A: all 8 lanes served in one pass (one line), memory
    // mode (tree bit 1), no lane leaves the group.
    let r = &tr[t + 5];
    assert_eq!((r.a_kind, r.a_pc), (a_kind::COMMITTED, 2));
    assert_eq!(
        (r.a_active, r.a_served, r.a_pcw, r.tree),
        (0xff, 0xff, 0, 2)
    );
    // The warp is MEMWAIT (code 6) while its load is outstanding.
    assert_eq!(tr[t + 20].warp_code(0), 6);
}

/// Without the trace port (the board preset) there is no record.
#[test]
fn the_board_preset_has_no_trace_port() {
    let mut h = Host::new(&CoreConfig::default(), GenOptions::board());
    h.idle();
    assert!(h.core.trace().is_none());
}

/// Register, predicate and shared writes on the trace port. One warp of 8
/// threads (ready from `c0 = 9 + 8 = 17`), one instruction every 6 cycles
/// (§4.4): `s2r` at S in 17, `setp` 23, `shl` 29, `st.shared` 35. A is
/// S + 5, M is S + 6, W is S + 7 (§3.1). Default core: `RP = 32` (row of
/// `r1` in warp 0 is 1), predicate address `warp · 8 + p`, `B = 8` banks.
#[test]
fn register_predicate_and_shared_writes_show_on_the_trace_port() {
    let src = "s2r r1, %tid\nsetp.lt p1, r1, 4\nshl r2, r1, 2\nst.shared.b32 [r2+0], r1\nexit\n";
    let tr = trace_with(
        &CoreConfig::default(),
        src,
        8,
        regmap::LaunchExtras {
            shared_bytes: 32,
            ..Default::default()
        },
    );
    // s2r: W in 24 writes r1 = tid in all 8 lanes.
    let r = &tr[24];
    assert_eq!((r.rf_we, r.rf_addr), (0xff, 1));
    assert_eq!(r.rf_data[..8], [0, 1, 2, 3, 4, 5, 6, 7]);
    assert!(r.rf_data[8..].iter().all(|&d| d == 0));
    // setp: A in 28 writes p1 = (tid < 4) for the 8 executing lanes.
    let r = &tr[28];
    assert_eq!((r.pred_we, r.pred_addr, r.pred_data), (0xff, 1, 0x0f));
    // st.shared: M in 41 writes word t = t at byte 4t: row 0, bank t.
    let r = &tr[41];
    assert_eq!((r.sh_we[0], r.sh_row), (u32::MAX, 0));
    assert_eq!(r.sh_data[..8], [0, 1, 2, 3, 4, 5, 6, 7]);
    // No other cycle writes shared memory, a predicate, or (before 24) a
    // register.
    for (c, r) in tr.iter().enumerate() {
        assert_eq!(r.sh_we[0] != 0, c == 41, "tr_sh_we, cycle {c}");
        assert_eq!(r.pred_we != 0, c == 28, "tr_pred_we, cycle {c}");
        if c < 24 {
            assert_eq!(r.rf_we, 0, "tr_rf_we, cycle {c}");
        }
    }
    // Every record packs into the port's width.
    let hw = concord_uarch::HwParams::new(&CoreConfig::default()).unwrap();
    for r in &tr {
        assert_eq!(&TraceRecord::unpack(&r.pack(&hw), &hw), r);
    }
}

/// §15.3 `HALT`: S selects only return slots, the launch unit and the
/// engine pause; `STATUS.halted` turns 1 once nothing is in flight, no
/// warp-instruction issues while it is set, and writing 0 resumes the run
/// to the same end (every thread stores its loop count, 50, at `4·tid`).
#[test]
fn halt_drains_the_core_and_resumes_it() {
    let src = "
        s2r r1, %tid
        shl r5, r1, 2
        movi r3, 0
        movi r4, 50
loop:   add r3, r3, 1
        setp.lt p1, r3, r4
        @p1 bra loop
        st.global.b32 [r5+0], r3
        exit
";
    let kernel = assemble(src);
    let config = CoreConfig::default();
    let mut h = Host::new(&config, GenOptions::sim());
    h.load(&kernel, 64);
    h.write(regmap::CTRL, 1);
    for _ in 0..300 {
        h.idle();
    }
    assert_eq!(h.core.state(), CoreState::Run);
    h.write(regmap::CTRL, 2);
    // HALT reads back; the core drains within S..W's 8 stages (no global
    // traffic in the loop).
    let mut waited = 0;
    while h.read(regmap::STATUS) & 1 << 5 == 0 {
        waited += 1;
        assert!(waited < 10, "not halted after {waited} reads");
    }
    assert_eq!(h.read(regmap::CTRL), 2);
    let issued = h.read(regmap::COUNTER_LO + 2 * Counter::Issued as u32);
    for _ in 0..50 {
        h.idle();
        let r = h.core.trace().unwrap();
        assert!(r.s_kind != s_kind::WARP && r.s_kind != s_kind::INIT);
        assert_eq!(r.a_kind, a_kind::BUBBLE);
    }
    assert_eq!(
        h.read(regmap::COUNTER_LO + 2 * Counter::Issued as u32),
        issued
    );
    // running [0], halted [5], state RUN.
    assert_eq!(h.read(regmap::STATUS), 1 | 1 << 5 | 2 << 8);
    h.write(regmap::CTRL, 0);
    assert_eq!(h.read(regmap::STATUS) & 1 << 5, 0);
    h.until(CoreState::Done);
    let mem = &h.core.memory_mut().bytes;
    for t in 0..64usize {
        let w = u32::from_le_bytes(mem[4 * t..4 * t + 4].try_into().unwrap());
        assert_eq!(w, 50, "thread {t}");
    }
    h.no_violations();
}

/// §10.4, §13.1: the testbench memory raises `ERR` only when a test
/// injects one; the core reports it as trap 11. Eight threads load the
/// words at 256..288 (one 32-byte line, one entry, eight 4-byte beats);
/// beat 0 (byte address 256) answers `ERR`. By hand: cause 11, the load's
/// pc 2, warp 0, the entry's lanes 0xff, address 256, no detail. The bus
/// still drains: the other seven beats are answered, the protocol checker
/// sees no violation, the entry's return slot is processed but writes no
/// register (§10.2), and the core ends in `TRAP`.
#[test]
fn an_injected_bus_error_is_trap_11() {
    let kernel = assemble("s2r r0, %tid\nshl r0, r0, 2\nld.global.b32 r1, [r0+256]\nexit\n");
    let mut h = Host::new(&CoreConfig::default(), GenOptions::sim());
    h.core.memory_mut().inject_err(0);
    h.load(&kernel, 8);
    h.write(regmap::CTRL, 1);
    let (mut returned, mut writes_after_return) = (false, 0);
    for _ in 0..1000 {
        if h.core.state() == CoreState::Trap {
            break;
        }
        h.idle();
        let r = h.core.trace().unwrap();
        writes_after_return += (returned && r.rf_we != 0) as u32;
        returned |= r.a_kind == a_kind::RETURN;
    }
    assert_eq!(h.core.state(), CoreState::Trap);
    assert!(returned, "the failed entry's return slot reached A");
    assert_eq!(writes_after_return, 0, "the failed entry wrote a register");
    let regs = [
        (regmap::TRAP_CAUSE, 11),
        (regmap::TRAP_PC, 2),
        (regmap::TRAP_WARP, 0),
        (regmap::TRAP_LANES, 0xff),
        (regmap::TRAP_ADDR, 256),
        (regmap::TRAP_DETAIL, 0),
    ];
    for (a, v) in regs {
        assert_eq!(h.read(a), v, "register {a:#x}");
    }
    assert_eq!(
        h.core.counters().get(Counter::GlobalBeats),
        8,
        "every beat of the entry is still sent"
    );
    h.no_violations();
}

/// §10.2, §13.1: an entry with `ERR` beats raises trap 11 once, when it
/// completes (its last beat processed), with the address of its first
/// `ERR` beat. The kernel of [`an_injected_bus_error_is_trap_11`]; beats 2
/// and 5 of its one 8-beat entry answer `ERR`. By hand: the report gives
/// address 256 + 2·4 = 264; `tr_trap` is 1 in exactly one cycle, the
/// cycle whose record shows the eighth processed response (`tr_rsp`), not
/// the third.
#[test]
fn trap_11_is_raised_when_the_entry_completes_with_its_first_err_address() {
    let kernel = assemble("s2r r0, %tid\nshl r0, r0, 2\nld.global.b32 r1, [r0+256]\nexit\n");
    let mut h = Host::new(&CoreConfig::default(), GenOptions::sim());
    h.core.memory_mut().inject_err(2);
    h.core.memory_mut().inject_err(5);
    h.load(&kernel, 8);
    h.write(regmap::CTRL, 1);
    let (mut responses, mut raised_at) = (0u32, Vec::new());
    for _ in 0..1000 {
        if h.core.state() == CoreState::Trap {
            break;
        }
        h.idle();
        let r = h.core.trace().unwrap();
        responses += r.rsp;
        if r.trap != 0 {
            raised_at.push(responses);
        }
    }
    assert_eq!(h.core.state(), CoreState::Trap);
    assert_eq!(raised_at, vec![8], "trap 11 raised with the last response");
    assert_eq!(h.read(regmap::TRAP_CAUSE), 11);
    assert_eq!(h.read(regmap::TRAP_LANES), 0xff);
    assert_eq!(h.read(regmap::TRAP_ADDR), 264);
    h.no_violations();
}

/// Every trace record of random programs on several shapes fits the port
/// (`pack` refuses a value wider than its field) and comes back from it,
/// and the run driven cycle by cycle through the host port ends as
/// `run` does.
#[test]
fn random_runs_fit_the_trace_port() {
    for seed in 0..9u64 {
        let (lanes, warps) = [(4, 4), (8, 8), (32, 16)][(seed % 3) as usize];
        let threads = common::random_threads(seed, lanes, warps);
        let p = common::random_program(seed, lanes, warps, threads, 1 + (seed % 4) as u32);
        let base = CoreConfig {
            lanes,
            warps,
            global_outstanding: [8, 1, 16][(seed / 3 % 3) as usize],
            max_resident_blocks: [4, 1, 16][(seed / 3 % 3) as usize],
            ..CoreConfig::default()
        };
        let config = p.fit(&base);
        let hw = concord_uarch::HwParams::new(&config).unwrap();
        let kernel = p.kernel();
        let launch = common::random_launch(&p, &kernel);
        let extras = regmap::LaunchExtras {
            shared_bytes: kernel.shared_bytes,
            clear_regs: kernel.regs_used,
            clear_shared: kernel.shared_bytes,
        };
        let init = common::random_global(&p, &config);
        let mut h = Host::new(&config, GenOptions::sim());
        h.core.set_global(init.clone());
        h.core.check_ports();
        for (a, v) in regmap::launch_writes(&launch, &extras) {
            h.write(a, v);
        }
        h.write(regmap::CTRL, 1);
        let mut n = 0u64;
        while h.core.state() != CoreState::Done {
            assert!(n < 2_000_000, "seed {seed}: not done");
            h.idle();
            n += 1;
            let r = h.core.trace().unwrap();
            assert_eq!(&TraceRecord::unpack(&r.pack(&hw), &hw), r, "seed {seed}");
        }
        h.no_violations();
        let mut global = init;
        let o = pipeline::run(
            &config,
            &PipelineLaunch {
                launch,
                shared_bytes: kernel.shared_bytes,
                regs_used: kernel.regs_used,
            },
            &mut global,
            common::sim_options(5_000_000),
        )
        .unwrap();
        assert!(o.result.is_ok(), "seed {seed}");
        assert_eq!(h.core.memory_mut().bytes, global, "seed {seed}");
        assert_eq!(
            h.read(regmap::COUNTER_LO),
            o.counters.get(Counter::Cycles) as u32,
            "seed {seed}"
        );
    }
}

/// §13.4: the watchdog's report lists every resident warp's state code,
/// group and its waiting lanes with their stored pcs (a lane waiting at a
/// barrier holds the barrier's pc + 1, `concord_isa::watchdog::WarpView`).
/// Thread 0 spins at pc 5 while threads 1–7 wait at the `bar.sync` at pc 3.
#[test]
fn the_watchdog_report_lists_waiting_lanes() {
    let kernel =
        assemble("s2r r1, %tid\nsetp.eq p1, r1, 0\n@p1 bra spin\nbar.sync\nexit\nspin: bra spin\n");
    let launch = PipelineLaunch {
        launch: func::Launch {
            code: &kernel.code,
            entry_pc: 0,
            grid: [1, 1, 1],
            block: [8, 1, 1],
            params: &[],
            stack_bytes: 0,
        },
        shared_bytes: 0,
        regs_used: 0,
    };
    let config = CoreConfig::default();
    let mut global = vec![0; config.global_memory_bytes as usize];
    let o = pipeline::run(&config, &launch, &mut global, common::sim_options(200)).unwrap();
    let t = o.result.unwrap_err();
    let text = t.to_string();
    // The run stops right after S selected the (limit + 1)-th pass of the
    // only issuing warp: that warp is BUSY (`busy_i`).
    assert!(
        text.contains("warp 0 Busy at pc 5 lanes 0x1 waiting 1@4,2@4,3@4,4@4,5@4,6@4,7@4"),
        "{text}"
    );
}

/// The debug registers (§14.4, §15.3) of a halted core: one block of 64
/// threads (8 full warps, slot 0) halted inside its loop, no global
/// traffic. Slot states are coded in §5.3's order (`FREE` 0, `LAUNCH` 1,
/// `RUN` 2, `FROZEN` 3).
#[test]
fn debug_registers_of_a_halted_core() {
    let src = "
        movi r3, 0
        movi r4, 50
loop:   add r3, r3, 1
        setp.lt p1, r3, r4
        @p1 bra loop
        exit
";
    let kernel = assemble(src);
    let mut h = Host::new(&CoreConfig::default(), GenOptions::sim());
    h.load(&kernel, 64);
    h.write(regmap::CTRL, 1);
    for _ in 0..300 {
        h.idle();
    }
    h.write(regmap::CTRL, 2);
    while h.read(regmap::STATUS) & 1 << 5 == 0 {}
    h.write(regmap::DBG_WARP, 3);
    assert_eq!(h.read(regmap::DBG_WARP), 3);
    let group = h.read(regmap::DBG_GROUP);
    assert!(
        (2..=4).contains(&(group & 0xffff)),
        "gpc in the loop: {group:#x}"
    );
    assert_eq!(group >> 16, 0, "depth 0");
    assert_eq!(h.read(regmap::DBG_GMASK), 0xff);
    assert_eq!(h.read(regmap::DBG_ALIVE), 0xff);
    assert_eq!(h.read(regmap::DBG_WAITING), 0);
    // Not busy, no replay, no rearb, nothing outstanding, slot 0, wib 3.
    assert_eq!(h.read(regmap::DBG_FLAGS), 3 << 24);
    // 8 free entries, none awaiting send or response, none returnable.
    assert_eq!(h.read(regmap::DBG_QUEUE), 8);
    assert_eq!(h.read(regmap::DBG_SLOT), 2, "slot 0 RUN");
    assert_eq!(h.read(regmap::DBG_SLOT + 1), 0, "slot 1 FREE");
    // WSTATE0: the 8 warps are READY (5) while halted (readiness ignores
    // HALT, §5.5).
    let codes = regmap::wstate_decode([h.read(regmap::WSTATE0), h.read(regmap::WSTATE1)], 8);
    assert_eq!(codes, [5; 8]);
    h.no_violations();
}

/// §13.3: the report registers are written at the end of *c + 1*, the
/// cycle after the trap (cycle *c*, where the trace port's `tr_trap` is
/// 1), and keep their value until then, across `START`. A first launch
/// traps with cause 2; a second (two warps of 8: warp 0 exits at pc 2,
/// warp 1 then arrives at the `bar.sync` at pc 3) with cause 7. A read
/// in *c + 1* still returns 2, a read in *c + 2* returns 7 (the core is
/// still `STOPPING`: the `bar.sync` pass is in M in *c + 1* and in W in
/// *c + 2*). Cause 7's pc is the stored pc of warp 1's lowest waiting
/// lane, the barrier's pc + 1 = 4; its lanes are the warp's 8 waiting
/// lanes; the block's counts are 8 arrived and 8 exited of 16.
#[test]
fn the_trap_registers_are_written_in_the_cycle_after_the_trap() {
    let mut h = Host::new(&CoreConfig::default(), GenOptions::sim());
    h.load(&assemble("ld.global.b32 r2, [r0+1]\nexit\n"), 1);
    h.write(regmap::CTRL, 1);
    h.until(CoreState::Trap);
    assert_eq!(h.read(regmap::TRAP_CAUSE), 2);

    let barrier = assemble("s2r r1, %warpid\nsetp.eq p1, r1, 0\n@p1 exit\nbar.sync\nexit\n");
    h.load(&barrier, 16);
    h.write(regmap::CTRL, 1);
    let mut cycles = 0;
    while h
        .core
        .trace()
        .expect("the sim preset has the trace port")
        .trap
        == 0
    {
        h.idle();
        cycles += 1;
        assert!(cycles < 10_000, "no trap");
    }
    // Cycle c has just ended. c + 1 and c + 2: a read each.
    h.cycle(host_read(regmap::TRAP_CAUSE));
    let in_c1 = h.cycle(host_read(regmap::TRAP_CAUSE));
    assert_eq!(h.core.state(), CoreState::Stopping);
    let in_c2 = h.idle();
    assert!(in_c1.ack && in_c2.ack);
    assert_eq!(in_c1.dat_r[0], 2, "the read in c + 1 sees the old report");
    assert_eq!(in_c2.dat_r[0], 7, "the read in c + 2 sees the new one");
    h.until(CoreState::Trap);
    let regs = [
        (regmap::TRAP_CAUSE, 7),
        (regmap::TRAP_PC, 4),
        (regmap::TRAP_WARP, 1),
        (regmap::TRAP_LANES, 0xff),
        (regmap::TRAP_BLOCK_X, 0),
        (regmap::TRAP_ADDR, 0),
        (regmap::TRAP_DETAIL, 0),
        (regmap::TRAP_ARRIVED, 8),
        (regmap::TRAP_EXITED, 8),
        (regmap::TRAP_THREADS, 16),
    ];
    for (a, v) in regs {
        assert_eq!(h.read(a), v, "register {a:#x}");
    }
    h.no_violations();
}

/// `DBG_LANE_PC` (§14.4, §15.3): lanes 1-7 of the only warp call `f`
/// (depth 1) and wait at its `bar.sync` (pc 6), so each holds the stored
/// pc 7 and depth 1; lane 0 spins at pc 5 (depth 0, the deepest-first
/// arbitration of the default `depth_pc` ran lanes 1-7 first). The core
/// is halted, then lane 3 is selected: `pc | depth << 16` = 7 | 1 << 16.
#[test]
fn dbg_lane_pc_reads_a_lanes_stored_pc_and_depth() {
    let src = "
        s2r r1, %laneid          ; 0
        setp.eq p1, r1, 0        ; 1
        @p1 bra spin             ; 2
        call r5, f               ; 3
        exit                     ; 4
spin:   bra spin                 ; 5
f:      bar.sync                 ; 6
        ret r5                   ; 7
";
    let mut h = Host::new(&CoreConfig::default(), GenOptions::sim());
    h.load(&assemble(src), 8);
    h.write(regmap::CTRL, 1);
    for _ in 0..300 {
        h.idle();
    }
    h.write(regmap::CTRL, 2);
    while h.read(regmap::STATUS) & 1 << 5 == 0 {}
    h.write(regmap::DBG_WARP, 0);
    assert_eq!(h.read(regmap::DBG_WAITING), 0xfe);
    h.write(regmap::DBG_LANE, 3);
    assert_eq!(h.read(regmap::DBG_LANE), 3);
    assert_eq!(h.read(regmap::DBG_LANE_PC), 7 | 1 << 16);
    h.write(regmap::DBG_LANE, 7);
    assert_eq!(h.read(regmap::DBG_LANE_PC), 7 | 1 << 16);
    // Lane 0 is the group: the group register says where it is.
    assert_eq!(h.read(regmap::DBG_GROUP), 5);
    assert_eq!(h.read(regmap::DBG_GMASK), 0x1);
    h.no_violations();
}
