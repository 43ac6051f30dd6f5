//! Cycle counts, trace-port values and the host interface of the cycle
//! model, worked out by hand from docs/microarchitecture.md. Every expected
//! number is written as the doc's arithmetic, never copied from the model.
//!
//! Cycles per state sequence (§4), with `INIT = max(W*RP, S/(4B))`:
//! * first issue of a warp after a control instruction:
//!   `SCHED ARB FETCH DECODE READ2 EXEC` = 6;
//! * an issue with the cached group (`gvalid`): `SCHED FETCH DECODE READ2 EXEC` = 5;
//! * shared access: `+ MEM_ARB SH_ACCESS SH_DATA` = 3;
//! * global access: `+ MEM_ARB G_REQ` and `lat` cycles of `G_WAIT` = 2 + lat;
//! * a replay re-arbitrates: it starts with `SCHED ARB`;
//! * the final `SCHED` that finds no warp: 1.

use std::ops::ControlFlow;

use concord_isa::config::{Arbitration, CoreConfig};
use concord_isa::func::{Launch, TrapCause};
use concord_isa::mask::LaneMask;
use concord_isa::Space;
use concord_testbench::cycle::{self, CycleModel, GlobalMemory, GlobalRequest};
use concord_testbench::trace::{Counters, RunError, State, TracePort};

const SCHED: u64 = 1;
const ARB: u64 = 1;
const FETCH: u64 = 1;
const DECODE: u64 = 1;
const READ2: u64 = 1;
const EXEC: u64 = 1;
/// An issue that arbitrates first.
const ISSUE_ARB: u64 = SCHED + ARB + FETCH + DECODE + READ2 + EXEC;
/// An issue of the cached group.
const ISSUE: u64 = SCHED + FETCH + DECODE + READ2 + EXEC;
const SHARED: u64 = 3; // MEM_ARB SH_ACCESS SH_DATA
const fn global(lat: u64) -> u64 {
    2 + lat // MEM_ARB G_REQ, then lat G_WAIT cycles
}
const LAST_SCHED: u64 = 1;

/// 4 lanes, 1 warp, 32 registers (RP = 32), 256 bytes of shared memory in
/// 4 banks (16 rows): `INIT` = max(1 * 32, 16) = 32 cycles.
fn small(lat: u32) -> CoreConfig {
    CoreConfig {
        lanes: 4,
        warps: 1,
        registers: 32,
        shared_memory_bytes: 256,
        shared_banks: 4,
        global_memory_bytes: 4096,
        global_latency: lat,
        global_line_bytes: 32,
        ..CoreConfig::default()
    }
}
const SMALL_INIT: u64 = 32;

struct Traced {
    core: CycleModel,
    mem: GlobalMemory,
    /// Every cycle from the first `INIT` to the one entering `DONE`/`TRAP`.
    trace: Vec<TracePort>,
}

impl Traced {
    fn states(&self) -> Vec<State> {
        self.trace.iter().map(|t| t.state).collect()
    }
    fn counters(&self) -> Counters {
        self.core.counters()
    }
    /// (pc, active mask lane-0-first) of every `DECODE` cycle.
    fn decodes(&self, lanes: usize) -> Vec<(u32, String)> {
        self.trace
            .iter()
            .filter(|t| t.state == State::Decode)
            .map(|t| (t.pc, LaneMask::new(t.active, lanes).to_string()))
            .collect()
    }
}

fn launch_on(
    config: &CoreConfig,
    src: &str,
    block: [u32; 3],
    blocks: u32,
    params: &[u32],
) -> Traced {
    let kernel = concord_isa::asm::assemble(src, "t.s").unwrap_or_else(|e| panic!("{e}"));
    let mut core = CycleModel::new(config).unwrap();
    let mut mem = GlobalMemory::new(
        vec![0; config.global_memory_bytes as usize],
        config.global_latency,
        config.global_line_bytes,
    );
    for (i, w) in kernel.code.iter().enumerate() {
        core.host_write(i as u32, *w);
    }
    core.host_write(0x20000, kernel.entries[0].pc);
    core.host_write(0x20001, kernel.code.len() as u32);
    for axis in 0..3 {
        core.host_write(0x20002 + axis, if axis == 0 { blocks } else { 1 });
        core.host_write(0x20005 + axis, block[axis as usize]);
    }
    core.host_write(0x20008, params.len() as u32);
    for (i, p) in params.iter().enumerate() {
        core.host_write(0x20010 + i as u32, *p);
    }
    assert_eq!(core.state(), State::Idle);
    core.host_write(0x200ff, 0);
    let mut trace = Vec::new();
    while !matches!(core.state(), State::Done | State::Trap) {
        trace.push(core.step(&mut mem));
        assert!(trace.len() < 1_000_000, "runaway");
    }
    Traced { core, mem, trace }
}

fn run4(config: &CoreConfig, src: &str) -> Traced {
    launch_on(config, src, [4, 1, 1], 1, &[])
}

#[test]
fn straight_line_alu_program() {
    for n in [1u64, 2, 5] {
        let src = "add r1, r1, 1\n".repeat(n as usize) + "exit\n";
        let r = run4(&small(3), &src);
        // First ALU instruction arbitrates, the rest and the exit use the cached group.
        let expected = SMALL_INIT + ISSUE_ARB + (n - 1) * ISSUE + ISSUE + LAST_SCHED;
        let c = r.counters();
        assert_eq!(c.cycles, expected, "n = {n}");
        assert_eq!(
            r.trace.len() as u64,
            expected,
            "one traced cycle per counted cycle"
        );
        assert_eq!(c.issued, n + 1);
        assert_eq!(c.active_lane_slots, 4 * (n + 1));
        assert_eq!(c.executed_lane_slots, 4 * (n + 1));
        assert_eq!(c.blocks, 1);
        assert_eq!((c.replays, c.divergent_branches), (0, 0));
        for l in 0..4 {
            assert_eq!(r.core.register(0, l, 1), n as u32);
        }
        // The state sequence itself.
        use State::*;
        let mut want = vec![Init; SMALL_INIT as usize];
        want.extend([Sched, Arb, Fetch, Decode, Read2, Exec]);
        for _ in 0..n {
            want.extend([Sched, Fetch, Decode, Read2, Exec]);
        }
        want.push(Sched);
        assert_eq!(r.states(), want);
        assert_eq!(r.core.state(), Done);
    }
}

#[test]
fn init_lasts_the_longer_of_register_file_and_shared_rows() {
    // 4096 bytes in 4 banks = 256 rows > 32 register rows.
    let config = CoreConfig {
        shared_memory_bytes: 4096,
        ..small(1)
    };
    let r = run4(&config, "exit\n");
    assert_eq!(r.counters().cycles, 256 + ISSUE_ARB + LAST_SCHED);
    // 8 warps of 20 registers (RP = 32): 256 rows > 16 shared rows.
    let config = CoreConfig {
        warps: 8,
        registers: 20,
        ..small(1)
    };
    let r = run4(&config, "exit\n");
    assert_eq!(r.counters().cycles, 8 * 32 + ISSUE_ARB + LAST_SCHED);
}

#[test]
fn clock_reads_the_cycle_count_before_its_exec_cycle() {
    // s2r is the first issue: INIT, SCHED, ARB, FETCH, DECODE, READ2 precede its EXEC.
    let r = run4(
        &small(1),
        "s2r r1, %clock\ns2r r2, %clock\ns2r r3, %clockhi\nexit\n",
    );
    let first = SMALL_INIT + SCHED + ARB + FETCH + DECODE + READ2;
    for l in 0..4 {
        assert_eq!(r.core.register(0, l, 1) as u64, first);
        assert_eq!(r.core.register(0, l, 2) as u64, first + ISSUE);
        assert_eq!(r.core.register(0, l, 3), 0);
    }
}

#[test]
fn shared_load_bank_conflict_costs_one_replay() {
    // 4 banks. Lane l reads word l (row 0 for all): one access. Lane l
    // reads word 2l: words 0, 2 in row 0 and 4, 6 in row 1: one replay.
    let prog =
        |shift: u32| format!("s2r r1, %laneid\nshl r2, r1, {shift}\nld.shared r3, [r2]\nexit\n");
    let base = SMALL_INIT + ISSUE_ARB + ISSUE;
    let r = run4(&small(1), &prog(2));
    assert_eq!(
        r.counters().cycles,
        base + ISSUE + SHARED + ISSUE + LAST_SCHED
    );
    assert_eq!((r.counters().issued, r.counters().replays), (4, 0));

    let r = run4(&small(1), &prog(3));
    let replay = ISSUE_ARB + SHARED;
    assert_eq!(
        r.counters().cycles,
        base + ISSUE + SHARED + replay + ISSUE + LAST_SCHED
    );
    assert_eq!((r.counters().issued, r.counters().replays), (5, 1));
    // The replay issues the lanes left, and the warp reconverges for `exit`.
    assert_eq!(
        r.decodes(4),
        [
            (0, "1111".to_string()),
            (1, "1111".to_string()),
            (2, "1111".to_string()),
            (2, "0011".to_string()),
            (3, "1111".to_string())
        ]
    );
    // active lane slots: 4 per issue, 2 on the replay.
    assert_eq!(r.counters().active_lane_slots, 4 * 4 + 2);

    // Same word on every lane: a broadcast, one access.
    let r = run4(&small(1), "movi r2, 8\nld.shared r3, [r2]\nexit\n");
    assert_eq!(
        r.counters().cycles,
        SMALL_INIT + ISSUE_ARB + ISSUE + SHARED + ISSUE + LAST_SCHED
    );
}

#[test]
fn global_access_waits_the_latency() {
    for lat in [1u64, 3, 20] {
        let config = small(lat as u32);
        // Lanes at 256 + 4l: one 32-byte line.
        let r = run4(
            &config,
            "s2r r1, %laneid\nshl r2, r1, 2\nld.global r3, [r2+256]\nexit\n",
        );
        let base = SMALL_INIT + ISSUE_ARB + ISSUE;
        assert_eq!(
            r.counters().cycles,
            base + ISSUE + global(lat) + ISSUE + LAST_SCHED,
            "lat {lat}"
        );
        let waits = r.states().iter().filter(|s| **s == State::GWait).count() as u64;
        assert_eq!(waits, lat);
        // Lanes at 256 + 16l: lines 8, 8, 9, 9: a second request after a replay.
        let r = run4(
            &config,
            "s2r r1, %laneid\nshl r2, r1, 4\nst.global [r2+256], r1\nexit\n",
        );
        assert_eq!(
            r.counters().cycles,
            base + ISSUE + global(lat) + ISSUE_ARB + global(lat) + ISSUE + LAST_SCHED,
            "lat {lat}"
        );
        assert_eq!(r.counters().replays, 1);
        let word = |a: usize| u32::from_le_bytes(r.mem.bytes[a..a + 4].try_into().unwrap());
        assert_eq!([word(256), word(272), word(288), word(304)], [0, 1, 2, 3]);
        // Atomics: one lane per issue.
        let r = run4(
            &config,
            "s2r r1, %laneid\nmovi r2, 512\natom.global.add r3, [r2], r1\nexit\n",
        );
        assert_eq!(
            r.counters().cycles,
            base + ISSUE + global(lat) + 3 * (ISSUE_ARB + global(lat)) + ISSUE + LAST_SCHED
        );
        assert_eq!(r.counters().replays, 3);
        assert_eq!(r.mem.bytes[512], 6, "0 + 1 + 2 + 3");
        for l in 0..4u32 {
            assert_eq!(r.core.register(0, l as usize, 3), (0..l).sum::<u32>());
        }
    }
}

#[test]
fn guard_false_memory_instruction_skips_the_memory_states() {
    let r = run4(
        &small(5),
        "@!pt ld.global r1, [r0]\n@!pt st.shared [r0], r1\nexit\n",
    );
    assert_eq!(
        r.counters().cycles,
        SMALL_INIT + ISSUE_ARB + ISSUE + ISSUE + LAST_SCHED
    );
    assert!(!r.states().contains(&State::MemArb));
}

#[test]
fn two_warps_take_turns() {
    let config = CoreConfig {
        warps: 2,
        ..small(1)
    };
    // INIT = max(2 * 32, 16) = 64; each warp's exit arbitrates.
    let r = launch_on(&config, "exit\n", [8, 1, 1], 1, &[]);
    assert_eq!(r.counters().cycles, 64 + 2 * ISSUE_ARB + LAST_SCHED);
    let warps: Vec<u32> = r
        .trace
        .iter()
        .filter(|t| t.state == State::Decode)
        .map(|t| t.warp)
        .collect();
    assert_eq!(warps, [0, 1]);
}

#[test]
fn blocks_run_one_after_another() {
    // Each block: INIT, the exit, and the SCHED that finds the block done.
    let r = launch_on(&small(1), "exit\n", [4, 1, 1], 3, &[]);
    assert_eq!(
        r.counters().cycles,
        3 * (SMALL_INIT + ISSUE_ARB + LAST_SCHED)
    );
    assert_eq!(r.counters().blocks, 3);
}

#[test]
fn barrier_releases_and_rearbitrates() {
    let r = run4(&small(1), "bar.sync\nexit\n");
    assert_eq!(r.counters().cycles, SMALL_INIT + 2 * ISSUE_ARB + LAST_SCHED);
    assert_eq!(
        (r.counters().barriers, r.counters().barrier_arrivals),
        (1, 4)
    );
}

/// Collange 2011, Table 2 (see isa/tests/func_golden.rs): PCs 2..7 are the
/// table's 1..6.
const TABLE2: &str = "
        s2r     r1, %tid
        setp.ge p1, r1, 2
    A:  add     r2, r2, 1
        @p1 bra C
    B:  add     r3, r3, 1
        bra     D
    C:  add     r4, r4, 1
    D:  add     r5, r5, 1
        exit
";

#[test]
fn collange_table2_from_the_decode_cycles() {
    let r = run4(&small(1), TABLE2);
    let table: Vec<(u32, String)> = r
        .decodes(4)
        .into_iter()
        .filter(|(pc, _)| (2..=7).contains(pc))
        .collect();
    let expected = [
        (2, "1111"),
        (3, "1111"),
        (4, "1100"),
        (5, "1100"),
        (6, "0011"),
        (7, "1111"),
    ];
    assert_eq!(table, expected.map(|(pc, m)| (pc, m.to_string())));
    // Cycles: s2r arbitrates; setp, A, the branch use the group; B
    // re-arbitrates after the branch, `bra D` uses the group; C
    // re-arbitrates, D (joined by T0, T1 at pc 7) and exit use the group.
    let c = r.counters();
    assert_eq!(
        c.cycles,
        SMALL_INIT + ISSUE_ARB + 3 * ISSUE + ISSUE_ARB + ISSUE + ISSUE_ARB + 2 * ISSUE + LAST_SCHED
    );
    assert_eq!(c.issued, 9);
    assert_eq!(c.divergent_branches, 1);
    assert_eq!(c.active_lane_slots, 4 * 4 + 2 * 2 + 2 + 2 * 4);
}

const LISTING1: &str = "
        s2r     r1, %tid
        setp.lt p1, r1, 2
        @p1 call r31, f
after:  add     r2, r2, 1
        exit
f:      add     r3, r3, 1
        ret     r31
";

#[test]
fn collange_listing1_from_the_decode_cycles() {
    let at3 = |policy| {
        let config = CoreConfig {
            arbitration: policy,
            ..small(1)
        };
        run4(&config, LISTING1)
            .decodes(4)
            .into_iter()
            .filter(|(pc, _)| *pc == 3)
            .map(|(_, m)| m)
            .collect::<Vec<_>>()
    };
    assert_eq!(at3(Arbitration::DepthPc), ["1111"]);
    assert_eq!(at3(Arbitration::PcOnly), ["0011", "1100"]);
    // The depth_pc issue order, by hand: s2r, setp, call (1111), f, ret
    // (1100), after, exit (1111).
    let r = run4(&small(1), LISTING1);
    let expected = [
        (0, "1111"),
        (1, "1111"),
        (2, "1111"),
        (5, "1100"),
        (6, "1100"),
        (3, "1111"),
        (4, "1111"),
    ];
    assert_eq!(r.decodes(4), expected.map(|(pc, m)| (pc, m.to_string())));
}

#[test]
fn trace_port_fields() {
    let src = "s2r r1, %laneid\nsetp.ge p2, r1, 2\n@p2 add r3, r1, 10\nexit\n";
    let config = small(1);
    let r = run4(&config, src);
    let t = &r.trace;
    // INIT: register-file row i cleared on every lane, nothing else.
    for (i, c) in t.iter().take(SMALL_INIT as usize).enumerate() {
        assert_eq!(c.state, State::Init);
        assert_eq!((c.rf_we, c.rf_addr, c.rf_data), (0b1111, i as u32, [0; 32]));
        assert_eq!((c.pred_we, c.pred_addr, c.pred_data), (0, 0, 0));
    }
    let i = SMALL_INIT as usize;
    // SCHED, ARB: before ARB the group is unknown (reset values).
    assert_eq!((t[i].state, t[i].active), (State::Sched, 0));
    assert_eq!((t[i + 1].state, t[i + 1].active), (State::Arb, 0));
    // FETCH onwards: the group (pc 0, all lanes).
    assert_eq!(
        (t[i + 2].state, t[i + 2].pc, t[i + 2].active),
        (State::Fetch, 0, 0b1111)
    );
    // s2r EXEC: writes r1 = laneid on all lanes; exec latched after DECODE.
    let exec = &t[i + 5];
    assert_eq!(exec.state, State::Exec);
    assert_eq!((exec.exec, exec.rf_we, exec.rf_addr), (0b1111, 0b1111, 1));
    assert_eq!(&exec.rf_data[..5], &[0, 1, 2, 3, 0]);
    // setp: the group is cached; p2 of warp 0 written for lanes 2, 3.
    let setp = &t[i + 6..i + 11];
    assert_eq!(
        setp.iter().map(|c| c.state).collect::<Vec<_>>(),
        [
            State::Sched,
            State::Fetch,
            State::Decode,
            State::Read2,
            State::Exec
        ]
    );
    assert!(setp.iter().all(|c| c.pc == 1 && c.active == 0b1111));
    assert_eq!(
        (setp[4].pred_we, setp[4].pred_addr, setp[4].pred_data),
        (0b1111, 2, 0b1100)
    );
    assert_eq!(setp[4].rf_we, 0);
    // @p2 add: exec = lanes 2, 3, visible from READ2 on (DECODE still
    // shows the previous issue's exec).
    let add = &t[i + 11..i + 16];
    assert_eq!(add[2].state, State::Decode);
    assert_eq!(add[2].exec, 0b1111);
    assert_eq!(add[3].exec, 0b1100);
    let e = &add[4];
    assert_eq!((e.rf_we, e.rf_addr), (0b1100, 3));
    assert_eq!(
        &e.rf_data[..4],
        &[0, 0, 12, 13],
        "data of disabled lanes is zero"
    );
    // Warp 1's registers sit at 1 * RP + r: check the address on a 2-warp core.
    let config = CoreConfig {
        warps: 2,
        registers: 20,
        ..small(1)
    };
    let r = launch_on(
        &config,
        "movi r5, 7\nsetp.eq p3, r5, 7\nexit\n",
        [8, 1, 1],
        1,
        &[],
    );
    let writes: Vec<(u32, u32, u32)> = r
        .trace
        .iter()
        .filter(|c| c.state == State::Exec && (c.rf_we | c.pred_we) != 0)
        .map(|c| (c.warp, c.rf_addr, c.pred_addr))
        .collect();
    // RP = 32: warp 1's r5 is row 37; predicate p3 of warp 1 is 8 + 3.
    assert_eq!(writes, [(0, 5, 0), (1, 37, 0), (0, 0, 3), (1, 0, 11)]);
}

#[test]
fn trace_lanes_beyond_the_config_are_zero() {
    let r = run4(&small(1), "movi r1, -1\nvote.ballot r2, pt\nexit\n");
    for c in &r.trace {
        assert_eq!(c.active >> 4, 0);
        assert_eq!(c.exec >> 4, 0);
        assert_eq!(c.rf_we >> 4, 0);
        assert!(c.rf_data[4..].iter().all(|d| *d == 0));
    }
    for l in 0..4 {
        assert_eq!(r.core.register(0, l, 2), 0b1111);
    }
}

#[test]
fn host_interface_reads() {
    let mut r = run4(&small(1), "add r1, r1, 1\nexit\n");
    let core = &mut r.core;
    assert_eq!(core.host_read(0), 0b010, "done");
    assert_eq!(core.host_read(12), 4, "threads");
    assert_eq!(core.host_read(11), 4, "exited");
    assert_eq!(core.host_read(10), 0, "arrived");
    let c = core.counters();
    let from_host: Vec<u64> = (0..Counters::COUNT as u32)
        .map(|k| core.host_read(16 + 2 * k) as u64 | (core.host_read(17 + 2 * k) as u64) << 32)
        .collect();
    assert_eq!(Counters::from_array(from_host.try_into().unwrap()), c);
    assert_eq!(c.cycles, SMALL_INIT + ISSUE_ARB + ISSUE + LAST_SCHED);
    // A new start from DONE runs again with cleared counters.
    let mut mem = GlobalMemory::new(vec![0; 4096], 1, 32);
    core.host_write(0x200ff, 1);
    assert_eq!(core.state(), State::Init);
    assert_eq!(core.host_read(0), 0b001, "running");
    assert_eq!(core.counters(), Counters::default());
    while core.state() != State::Done {
        core.step(&mut mem);
    }
    assert_eq!(core.counters(), c);
    // Writes while running are ignored.
    core.host_write(0x200ff, 1);
    core.step(&mut mem);
    core.host_write(0x20001, 0);
    assert_eq!(core.state(), State::Init);
    while core.state() != State::Done {
        core.step(&mut mem);
    }
    assert_eq!(core.counters(), c);
}

#[test]
fn trap_registers() {
    // Lane addresses 4092..4095 for a 2-byte load: lanes 1 and 3 are
    // misaligned; lane 2 ends exactly at the end of memory.
    let src = "s2r r1, %laneid\nadd r1, r1, 2045\nld.global.u16 r2, [r1+2047]\nexit\n";
    let r = launch_on(&small(1), src, [4, 1, 1], 2, &[]);
    let trap = r.core.trap().expect("a trap");
    assert_eq!(
        trap.cause,
        TrapCause::Misaligned {
            space: Space::Global,
            addr: 4093,
            bytes: 2
        }
    );
    assert_eq!(
        (trap.block, trap.warp, trap.lanes, trap.pc),
        ([0, 0, 0], 0, 0b1010, 2)
    );
    let h = |a| r.core.host_read(a);
    assert_eq!(h(0), 0b100);
    assert_eq!((h(1), h(2), h(3), h(4)), (2, 2, 0, 0b1010));
    assert_eq!((h(5), h(6), h(7), h(8), h(9)), (0, 0, 0, 4093, 2));
    // The trapping EXEC cycle counts; the TRAP state does not.
    assert_eq!(r.counters().cycles, SMALL_INIT + ISSUE_ARB + ISSUE + ISSUE);
    assert_eq!(r.trace.last().unwrap().state, State::Exec);

    // Invalid instruction: traps in DECODE, which is not counted as an issue.
    let r = run4(&small(1), "nop\n.word 0x0fc00000\n");
    let trap = r.core.trap().unwrap();
    assert!(matches!(
        trap.cause,
        TrapCause::InvalidInstruction {
            word: 0x0fc0_0000,
            ..
        }
    ));
    assert_eq!((trap.lanes, trap.pc), (0b1111, 1));
    assert_eq!((r.core.host_read(1), r.core.host_read(9)), (3, 0x0fc0_0000));
    assert_eq!(r.counters().issued, 1);
    assert_eq!(
        r.counters().cycles,
        SMALL_INIT + ISSUE_ARB + SCHED + FETCH + DECODE
    );

    // Running off the end: the last instruction traps in its EXEC with
    // its own pc; the address register holds the next PC.
    let r = run4(&small(1), "nop\n");
    let trap = r.core.trap().unwrap();
    assert_eq!(
        trap.cause,
        TrapCause::NextPcOutOfRange { target: 1, len: 1 }
    );
    assert_eq!((trap.lanes, trap.pc), (0b1111, 0));
    assert_eq!((r.core.host_read(1), r.core.host_read(8)), (10, 1));
    assert_eq!(r.counters().cycles, SMALL_INIT + ISSUE_ARB);
    assert_eq!(r.counters().issued, 1);

    // PC outside the program: an entry point past the end traps in FETCH.
    let config = small(1);
    let mut core = CycleModel::new(&config).unwrap();
    let mut mem = GlobalMemory::new(vec![0; 4096], 1, 32);
    let exit = concord_isa::asm::assemble("exit\n", "t.s").unwrap().code[0];
    for (addr, data) in [(0, exit), (0x20000, 1), (0x20001, 1)] {
        core.host_write(addr, data);
    }
    for axis in 0..3 {
        core.host_write(0x20002 + axis, 1);
        core.host_write(0x20005 + axis, if axis == 0 { 4 } else { 1 });
    }
    core.host_write(0x200ff, 0);
    let mut cycles = 0;
    while core.state() != State::Trap {
        core.step(&mut mem);
        cycles += 1;
        assert!(cycles < 1000, "runaway");
    }
    let trap = core.trap().unwrap();
    assert_eq!(trap.cause, TrapCause::PcOutOfRange { len: 1 });
    assert_eq!((trap.lanes, trap.pc), (0b1111, 1));
    assert_eq!(core.counters().cycles, SMALL_INIT + SCHED + ARB + FETCH);

    // Stack overflow (`.stack 16`, G = 4096: lane 1 owns 4064..4080): lane
    // 1 stores into lane 0's stack; trap in EXEC, address and width in the
    // trap registers.
    let src = ".stack 16\ns2r r1, %laneid\nsetp.eq p1, r1, 1\nmovi r2, 4092\n@p1 st.global.b16 [r2], r1\nexit\n";
    let kernel = concord_isa::asm::assemble(src, "t.s").unwrap();
    let mut core = CycleModel::new(&config).unwrap();
    let mut mem = GlobalMemory::new(vec![0; 4096], 1, 32);
    let launch = Launch {
        code: &kernel.code,
        entry_pc: 0,
        grid: [1, 1, 1],
        block: [4, 1, 1],
        params: &[],
        stack_bytes: kernel.stack_bytes,
    };
    for (addr, data) in concord_testbench::host::launch_writes(&launch) {
        core.host_write(addr, data);
    }
    core.host_write(0x200ff, 0);
    let mut cycles = 0;
    while core.state() != State::Trap {
        core.step(&mut mem);
        cycles += 1;
        assert!(cycles < 1000, "runaway");
    }
    let trap = core.trap().unwrap();
    assert_eq!(
        trap.cause,
        TrapCause::StackOverflow {
            addr: 4092,
            bytes: 2,
            thread: 1,
            lo: 4064,
            hi: 4080
        }
    );
    assert_eq!((trap.lanes, trap.pc), (0b0010, 3));
    let h = |a| core.host_read(a);
    assert_eq!((h(1), h(4), h(8), h(9)), (9, 0b0010, 4092, 2));
    assert_eq!(core.counters().cycles, SMALL_INIT + ISSUE_ARB + 3 * ISSUE);

    // Missing parameter: the detail register holds the index.
    let r = launch_on(&small(1), "ldparam r1, 5\nexit\n", [4, 1, 1], 1, &[1]);
    assert_eq!(
        r.core.trap().unwrap().cause,
        TrapCause::MissingParam {
            index: 5,
            supplied: 1
        }
    );
    assert_eq!((r.core.host_read(1), r.core.host_read(9)), (8, 5));

    // Barrier that can never complete: the first warp with waiting lanes.
    let config = CoreConfig {
        warps: 2,
        ..small(1)
    };
    let src = "s2r r1, %tid\nsetp.lt p1, r1, 5\n@p1 exit\nbar.sync\nexit\n";
    let r = launch_on(&config, src, [8, 1, 1], 1, &[]);
    let trap = r.core.trap().unwrap();
    assert_eq!(
        trap.cause,
        TrapCause::BarrierNeverCompletes {
            waiting: 3,
            exited: 5,
            threads: 8
        }
    );
    assert_eq!((trap.warp, trap.lanes, trap.pc), (1, 0b1110, 4));
    assert_eq!((r.core.host_read(10), r.core.host_read(11)), (3, 5));
}

#[test]
fn run_reports_every_cycle_and_the_watchdog() {
    let kernel = concord_isa::asm::assemble("add r1, r1, 1\nexit\n", "t.s").unwrap();
    let config = small(1);
    let launch = Launch {
        code: &kernel.code,
        entry_pc: 0,
        grid: [1, 1, 1],
        block: [4, 1, 1],
        params: &[],
        stack_bytes: kernel.stack_bytes,
    };
    let mut seen = Vec::new();
    let mut f = |n: u64, t: &TracePort| {
        seen.push((n, t.state));
        ControlFlow::Continue(())
    };
    let mut global = vec![0; 4096];
    let c = cycle::run(&config, &launch, &mut global, 1_000, Some(&mut f)).unwrap();
    assert_eq!(c.cycles, SMALL_INIT + ISSUE_ARB + ISSUE + LAST_SCHED);
    assert_eq!(seen.len() as u64, c.cycles + 1);
    assert_eq!(seen[0], (0, State::Init));
    assert_eq!(seen.last().unwrap(), &(c.cycles, State::Done));
    assert_eq!(global.len(), 4096, "the memory image comes back");

    // Lanes 0-1 spin at pc 3, below lanes 2-3 waiting at pc 4: they starve.
    let kernel = concord_isa::asm::assemble(
        "s2r r1, %laneid\nsetp.lt p1, r1, 2\n@!p1 bra out\nspin: bra spin\nout: exit\n",
        "t.s",
    )
    .unwrap();
    let launch = Launch {
        code: &kernel.code,
        ..launch
    };
    let trap = cycle::run(&config, &launch, &mut global, 5_000, None)
        .unwrap_err()
        .unwrap_trap();
    let TrapCause::Watchdog { limit, diagnosis } = &trap.cause else {
        panic!("{trap}")
    };
    assert_eq!(*limit, 5_000);
    assert_eq!(
        diagnosis,
        "livelock: the state repeats, so the run can never end and the waiting lanes can never be picked: warp 0 lanes 2-3 wait at pc 4; warp 0 lanes 0-1 run at pc 3; lanes looping at lower PCs starve the lanes they wait for"
    );
    assert_eq!((trap.warp, trap.lanes, trap.pc), (0, 0b1100, 4));
    assert_eq!(trap.issued, 5_000);
}

/// A per-cycle hook that breaks at cycle `k` ends the run after that cycle
/// with the counters up to it, unless the core finished there.
#[test]
fn a_hook_that_breaks_stops_the_run_after_that_cycle() {
    let kernel = concord_isa::asm::assemble("add r1, r1, 1\nadd r1, r1, 1\nexit\n", "t.s").unwrap();
    let config = small(1);
    let launch = Launch {
        code: &kernel.code,
        entry_pc: 0,
        grid: [1, 1, 1],
        block: [4, 1, 1],
        params: &[],
        stack_bytes: kernel.stack_bytes,
    };
    // Breaks at cycle `k`; the result and every (cycle, state) the hook saw.
    let run = |k: u64, watchdog: u64| {
        let mut seen = Vec::new();
        let mut f = |n: u64, t: &TracePort| {
            seen.push((n, t.state));
            if n == k {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let mut global = vec![0; 4096];
        let r = cycle::run(&config, &launch, &mut global, watchdog, Some(&mut f));
        assert_eq!(global.len(), 4096, "the memory image comes back");
        (r, seen)
    };
    let stopped = |r: Result<Counters, RunError>| match r {
        Err(RunError::Stopped(c)) => c,
        other => panic!("expected a stopped run, got {other:?}"),
    };
    // The whole run: INIT, the first add (arbitrates), the second add and
    // the exit (cached group), the SCHED that finds no warp.
    let total = SMALL_INIT + ISSUE_ARB + ISSUE + ISSUE + LAST_SCHED;

    // In the first INIT cycle.
    let (r, seen) = run(0, 1_000);
    let c = stopped(r);
    assert_eq!((c.cycles, c.issued), (1, 0));
    assert_eq!(seen, [(0, State::Init)]);

    // In the first add's EXEC: one issue.
    let k = SMALL_INIT + ISSUE_ARB - 1;
    let (r, seen) = run(k, 1_000);
    let c = stopped(r);
    assert_eq!((c.cycles, c.issued, c.active_lane_slots), (k + 1, 1, 4));
    assert_eq!(seen.len() as u64, k + 1, "no cycle after the break");
    assert_eq!(seen.last(), Some(&(k, State::Exec)));

    // In the second add's DECODE (it issues there): two issues. With a
    // watchdog of 1 that issue trips it, but the break comes first.
    let k = SMALL_INIT + ISSUE_ARB + SCHED + FETCH + DECODE - 1;
    for watchdog in [1_000, 1] {
        let (r, seen) = run(k, watchdog);
        let c = stopped(r);
        assert_eq!((c.cycles, c.issued), (k + 1, 2), "watchdog {watchdog}");
        assert_eq!(seen.last(), Some(&(k, State::Decode)));
    }
    let (r, _) = run(u64::MAX, 1);
    assert!(
        matches!(r, Err(RunError::Trap(ref t)) if matches!(t.cause, TrapCause::Watchdog { limit: 1, .. })),
        "{r:?}"
    );

    // In the last SCHED, which ends the run: it completed, and the hook
    // is not called for the DONE cycle.
    let (r, seen) = run(total - 1, 1_000);
    let c = r.unwrap();
    assert_eq!((c.cycles, c.issued, c.blocks), (total, 3, 1));
    assert_eq!(seen.len() as u64, total);
    let (r, seen) = run(u64::MAX, 1_000);
    assert_eq!(r, Ok(c));
    assert_eq!(seen.len() as u64, total + 1);
}

#[test]
fn global_memory_answers_after_exactly_the_latency() {
    let mut m = GlobalMemory::new((0..=255u8).collect(), 3, 16);
    let read = GlobalRequest {
        kind: GlobalRequest::READ,
        addr: 32,
        ..GlobalRequest::default()
    };
    assert_eq!(m.cycle(Some(&read)), None); // accepted in cycle 0
    assert_eq!(m.cycle(None), None);
    assert_eq!(m.cycle(None), None);
    let line = m.cycle(None).expect("response in cycle 0 + 3");
    assert_eq!(line[0], u32::from_le_bytes([32, 33, 34, 35]));
    assert_eq!(line[3], u32::from_le_bytes([44, 45, 46, 47]));
    assert_eq!(&line[4..], &[0; 28], "bytes past the 16-byte line are zero");
    assert_eq!(m.cycle(None), None);

    let mut w = GlobalRequest {
        kind: GlobalRequest::WRITE,
        addr: 64,
        ..GlobalRequest::default()
    };
    w.wdata[1] = 0xAABB_CCDD;
    w.mask[0] = 0b0110 << 4; // bytes 5 and 6
    m.cycle(Some(&w));
    assert_eq!(
        &m.bytes[68..72],
        &[68, 0xCC, 0xBB, 71],
        "performed on accept"
    );
    let atom = GlobalRequest {
        kind: GlobalRequest::ATOMIC,
        addr: 100,
        atom_op: 0, // add
        atom_data: 0x0101_0101,
        ..GlobalRequest::default()
    };
    assert_eq!(m.cycle(Some(&atom)), None);
    assert_eq!(m.cycle(None), None);
    assert_eq!(m.cycle(None).map(|d| d[1]), Some(0), "the write's response");
    let old = m.cycle(None).expect("the atomic's response");
    assert_eq!(old[0], u32::from_le_bytes([100, 101, 102, 103]));
    assert_eq!(&m.bytes[100..104], &[101, 102, 103, 104]);
}

#[test]
fn unbuildable_configs_name_the_field() {
    let bad = [
        (
            CoreConfig {
                lanes: 12,
                ..CoreConfig::default()
            },
            "lanes",
        ),
        (
            CoreConfig {
                shared_banks: 3,
                shared_memory_bytes: 4 * 3 * 64,
                ..CoreConfig::default()
            },
            "shared_banks",
        ),
        (
            CoreConfig {
                shared_banks: 8,
                shared_memory_bytes: 4 * 8 * 3,
                ..CoreConfig::default()
            },
            "shared_memory_bytes",
        ),
        (
            CoreConfig {
                imem_words: 100,
                ..CoreConfig::default()
            },
            "imem_words",
        ),
        (
            CoreConfig {
                warps: 17,
                ..CoreConfig::default()
            },
            "warps",
        ),
    ];
    for (config, field) in bad {
        let e = CycleModel::new(&config).unwrap_err();
        assert!(e.contains(&format!("`{field}`")), "{e}");
    }
    for file in ["default", "small", "wide"] {
        let path = format!("{}/../configs/{file}.yaml", env!("CARGO_MANIFEST_DIR"));
        let config = CoreConfig::load(std::path::Path::new(&path)).unwrap();
        CycleModel::new(&config).unwrap();
    }
}
