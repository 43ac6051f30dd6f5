//! The watchdog's diagnosis window on the cycle model (§13.4,
//! `concord_testbench::pipeline`): a barrier deadlock, a spin-lock
//! livelock, a long computation that is still running, a block that
//! finishes in the window (the kernels the first core's watchdog tests
//! used), an endless loop, a clock-reading loop, two resident blocks,
//! eight warps behind a slow memory and a trap in the window. The expected
//! verdicts are worked out by hand from each kernel (each test checks the
//! few listing instructions its facts rest on); where the functional model
//! diagnoses the same kernel its report must be the same.

mod common;

use concord_isa::config::{CoreConfig, Scheduler};
use concord_isa::container::Kernel;
use concord_isa::func::{Launch, Options, Trap, TrapCause};
use concord_isa::watchdog::{SPAN, WINDOW};
use concord_isa::Op;
use concord_testbench::pipeline::{self, func_reference, PipelineLaunch};

use common::{compile_cuda as compile, op_at as op};

/// A launch of `kernel`: `grid` blocks of `block` threads, buffers `n` (if
/// any) at 0x100 and `o` at 0x200, parameters in that order.
struct Run {
    kernel: Kernel,
    grid: u32,
    block: u32,
    n: Vec<i32>,
    watchdog: u64,
    config: CoreConfig,
}

impl Run {
    fn new(kernel: Kernel, grid: u32, block: u32, watchdog: u64) -> Run {
        Run {
            kernel,
            grid,
            block,
            n: Vec::new(),
            watchdog,
            config: CoreConfig::default(),
        }
    }

    fn params(&self) -> Vec<u32> {
        if self.n.is_empty() {
            vec![0x200]
        } else {
            vec![0x100, 0x200]
        }
    }

    fn global(&self) -> Vec<u8> {
        let mut g = vec![0u8; self.config.global_memory_bytes as usize];
        for (i, v) in self.n.iter().enumerate() {
            g[0x100 + 4 * i..0x104 + 4 * i].copy_from_slice(&v.to_le_bytes());
        }
        g
    }

    /// The watchdog trap of the functional model (with the occupancy's
    /// shared window) and of the v2 model, run through the host port with
    /// the bus checkers on.
    fn both(&self) -> (Trap, Trap) {
        let params = self.params();
        let launch = PipelineLaunch {
            launch: Launch {
                code: &self.kernel.code,
                entry_pc: self.kernel.entries[0].pc,
                grid: [self.grid, 1, 1],
                block: [self.block, 1, 1],
                params: &params,
                stack_bytes: self.kernel.stack_bytes,
            },
            shared_bytes: self.kernel.shared_bytes,
            regs_used: self.kernel.regs_used,
        };
        let mut g = self.global();
        let options = Options {
            watchdog: self.watchdog,
        };
        let func = func_reference(&self.config, &launch, &mut g, options, None)
            .expect_err("the functional model's watchdog")
            .unwrap_trap();
        let mut g = self.global();
        let o = pipeline::run(
            &self.config,
            &launch,
            &mut g,
            common::sim_options(self.watchdog),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        (func, o.result.expect_err("the v2 model's watchdog"))
    }
}

/// The diagnosis of a watchdog trap, split into the verdict the models
/// share and the v2 model's §13.4 list of resident warps.
fn diagnosis(t: &Trap) -> (&str, &str) {
    let TrapCause::Watchdog { diagnosis, .. } = &t.cause else {
        panic!("expected a watchdog trap, got {t}");
    };
    match diagnosis.split_once(" (resident warps: ") {
        Some((verdict, list)) => (verdict, list.strip_suffix(')').expect("a closed list")),
        None => (diagnosis, ""),
    }
}

/// Both models give `expected` with block, warp, lanes and pc `place`.
fn check_both(run: &Run, expected: &str, place: ([u32; 3], u32, u32, u32)) -> Trap {
    let (func, v2) = run.both();
    for (model, t) in [("functional", &func), ("v2", &v2)] {
        assert_eq!((t.block, t.warp, t.lanes, t.pc), place, "{model}: {t}");
        assert_eq!(diagnosis(t).0, expected, "{model}");
    }
    v2
}

/// Threads 0-3 wait at `__syncthreads()` (pc 4) while threads 4-7 spin on
/// a word nobody writes (pcs 6..=8): the state repeats with lanes at the
/// barrier, a deadlock naming both groups.
fn deadlock_kernel() -> Kernel {
    let kernel = compile(
        "__global__ void dl(int *o) {\n    int tid = threadIdx.x;\n    if (tid < 4) __syncthreads(); else while (o[0] == 0);\n}\n",
        "dl",
    );
    assert_eq!(op(&kernel, 4), Op::Bar);
    assert!(
        matches!(op(&kernel, 6), Op::Load { .. }),
        "{:?}",
        op(&kernel, 6)
    );
    assert_eq!(op(&kernel, 8), Op::Bra { target: 6 });
    kernel
}

#[test]
fn a_barrier_waiting_for_spinning_threads_is_a_deadlock() {
    let run = Run::new(deadlock_kernel(), 1, 8, 20_000);
    let v2 = check_both(
        &run,
        "deadlock: the state repeats, so the run can never end: warp 0 lanes 0-3 wait at the barrier at pc 4; warp 0 lanes 4-7 run at pcs 6..=8",
        ([0; 3], 0, 0x0f, 4),
    );
    // §13.4's list: the only warp, its group (lanes 4-7 in the spin), its
    // waiting lanes at the barrier's pc + 1.
    let list = diagnosis(&v2).1;
    assert!(list.starts_with("block (0,0,0) warp 0 "), "{list}");
    assert!(list.ends_with(" waiting 0@5,1@5,2@5,3@5"), "{list}");
}

/// Two resident blocks of the deadlock (two slots): the repeat covers
/// both, and the report names both blocks' groups, barrier waits first,
/// the older block first within each kind; the trap names block 0. (The
/// functional model runs one block at a time, so it reports block 0 alone.)
#[test]
fn two_resident_deadlocked_blocks_are_both_reported() {
    let mut run = Run::new(deadlock_kernel(), 2, 8, 20_000);
    run.config.max_resident_blocks = 2;
    let (_, v2) = run.both();
    assert_eq!((v2.block, v2.warp, v2.lanes, v2.pc), ([0; 3], 0, 0x0f, 4));
    let (verdict, list) = diagnosis(&v2);
    assert_eq!(
        verdict,
        "deadlock: the state repeats, so the run can never end: block (0,0,0) warp 0 lanes 0-3 wait at the barrier at pc 4; block (1,0,0) warp 0 lanes 0-3 wait at the barrier at pc 4; block (0,0,0) warp 0 lanes 4-7 run at pcs 6..=8; block (1,0,0) warp 0 lanes 4-7 run at pcs 6..=8"
    );
    assert!(list.starts_with("block (0,0,0) warp 0 "), "{list}");
    assert!(list.contains("; block (1,0,0) warp 0 "), "{list}");
}

/// A naive spin lock: lane 0 wins and waits at its critical section (pc 5)
/// above the losers' spin (pcs 2..=4), which min-pc arbitration always
/// picks: a livelock naming the starved lane.
#[test]
fn a_spin_lock_is_a_livelock() {
    let src = "
        ldparam r1, 0            ; 0: lock address
        movi    r2, 1            ; 1
    spin:
        atom.global.exch r3, [r1], r2   ; 2
        setp.ne p1, r3, 0        ; 3
        @p1 bra spin             ; 4
        ld.global r4, [r1+4]     ; 5: critical section
        add     r4, r4, 1
        st.global [r1+4], r4
        movi    r5, 0
        st.global [r1], r5       ; unlock
        exit
    ";
    let run = Run::new(common::assemble(src), 1, 4, 10_000);
    check_both(
        &run,
        "livelock: the state repeats, so the run can never end and the waiting lanes can never be picked: warp 0 lane 0 waits at pc 5; warp 0 lanes 1-3 run at pcs 2..=4; lanes looping at lower PCs starve the lanes they wait for",
        ([0; 3], 0, 0b0001, 5),
    );
}

/// `bra` to itself: every lane runs at pc 0 and the state repeats.
#[test]
fn a_branch_to_itself_is_an_endless_loop() {
    let run = Run::new(common::assemble("loop: bra loop\n"), 1, 8, 1000);
    check_both(
        &run,
        "endless loop: the state repeats, so the run can never end: warp 0 lanes 0-7 run at pc 0",
        ([0; 3], 0, 0xff, 0),
    );
}

/// The same loop reading the clock: its future may depend on the time, so
/// no repeat is looked for and the window runs out.
#[test]
fn a_loop_that_reads_the_clock_gets_no_verdict() {
    let src = "
    spin:
        s2r r1, %clock           ; 0
        and r1, r1, 0            ; 1
        bra spin                 ; 2
    ";
    let run = Run::new(common::assemble(src), 1, 4, 50);
    check_both(
        &run,
        &format!("still running: over the next {SPAN}, warp 0 lanes 0-3 run at pcs 0..=2; no state repeated in the {WINDOW} warp-instructions after the watchdog (the kernel reads the clock, so none was looked for); raise `watchdog:` in the launch description if this is a long computation"),
        ([0; 3], 0, 0b1111, 0),
    );
}

/// Trial division: lane 0 tries 999 divisors of the prime 1 000 003
/// (loop head pc 13, the call of `__srem` at pc 19 into the routine ending
/// at pc 108) while lanes 1-7 wait at the loop exit (pc 29): no state
/// repeats, a long computation.
#[test]
fn a_long_divergent_loop_is_still_running() {
    let kernel = compile(
        "
__global__ void td(int *n, int *o) {
    int t = threadIdx.x;
    int x = n[t];
    int f = 0;
    for (int d = 2; d * d <= x; d++) {
        if (x % d == 0) { f = d; break; }
    }
    o[t] = f;
}
",
        "td",
    );
    assert!(matches!(op(&kernel, 13), Op::Alu { .. }));
    assert!(matches!(op(&kernel, 19), Op::Call { target: 42, .. }));
    assert!(matches!(op(&kernel, 23), Op::Bra { target: 29 }));
    assert!(matches!(op(&kernel, 108), Op::Ret { .. }));
    let mut run = Run::new(kernel, 1, 8, 100_000);
    run.n = vec![1_000_003, 4, 6, 8, 9, 10, 12, 14];
    check_both(
        &run,
        &format!("still running: over the next {SPAN}, warp 0 lanes 1-7 wait at pc 29; warp 0 lane 0 runs at pcs 13..=108; no state repeated in the {WINDOW} warp-instructions after the watchdog; raise `watchdog:` in the launch description if this is a long computation"),
        ([0; 3], 0, 0xfe, 29),
    );
}

/// Lane 0 counts to 30 000 while lanes 1-3 wait at the exit (pc 8): block
/// 0 issues 5 + 3 · 30 000 + 1 = 90 006 warp-instructions, 89 006 after a
/// watchdog of 1000, inside the window. With one slot the window ends where
/// the block retires, as the functional model's ends with its block.
#[test]
fn a_block_that_finishes_within_the_window_is_reported_alike() {
    let src = "
        s2r r1, %laneid          ; 0
        movi r3, 30000           ; 1
        movi r2, 0               ; 2
        setp.ne p1, r1, 0        ; 3
        @p1 bra done             ; 4
    loop:
        add r2, r2, 1            ; 5
        setp.lt p2, r2, r3       ; 6
        @p2 bra loop             ; 7
    done:
        exit                     ; 8
    ";
    let mut run = Run::new(common::assemble(src), 2, 4, 1000);
    run.config.max_resident_blocks = 1;
    check_both(
        &run,
        &format!("still running: over the next {SPAN}, warp 0 lanes 1-3 wait at pc 8; warp 0 lane 0 runs at pcs 5..=7; the block finishes 89006 warp-instructions after the watchdog; raise `watchdog:` in the launch description if this is a long computation"),
        ([0; 3], 0, 0b1110, 8),
    );
}

/// The deadlock with 64 threads (warps 1-7 spin too) behind a slow memory
/// with a bandwidth limit (latency 200, 2 bytes per cycle), under both
/// schedulers: the memory is often busy, and the verdict is the
/// functional model's.
#[test]
fn a_deadlock_of_eight_warps_behind_a_slow_narrow_memory() {
    for scheduler in [Scheduler::Lrr, Scheduler::Gto] {
        let mut run = Run::new(deadlock_kernel(), 1, 64, 20_000);
        run.config.global_latency = 200;
        run.config.global_bandwidth = 2;
        run.config.scheduler = scheduler;
        check_both(
            &run,
            "deadlock: the state repeats, so the run can never end: warp 0 lanes 0-3 wait at the barrier at pc 4; warp 0 lanes 4-7 run at pcs 6..=8; warps 1-7 lanes 0-7 run at pcs 6..=8",
            ([0; 3], 0, 0x0f, 4),
        );
    }
}

/// Eight warps spin on a global load behind a memory of one byte per
/// cycle: each load is a 32-byte line of eight beats, so the warps ask for
/// more than the bus carries and beats wait in the memory at most
/// comparison points. The memory's bus state (credit, beats in flight) is
/// part of the compared state, and the repeat is found: an endless loop
/// over the spin's three instructions, as the functional model says.
#[test]
fn a_spin_on_global_loads_with_the_memory_always_busy_is_an_endless_loop() {
    let src = "
        ldparam r1, 0            ; 0
    spin:
        ld.global r2, [r1]       ; 1
        setp.eq p1, r2, 0        ; 2
        @p1 bra spin             ; 3
        exit                     ; 4
    ";
    let mut run = Run::new(common::assemble(src), 1, 64, 20_000);
    run.config.global_bandwidth = 1;
    check_both(
        &run,
        "endless loop: the state repeats, so the run can never end: warps 0-7 lanes 0-7 run at pcs 1..=3",
        ([0; 3], 0, 0xff, 1),
    );
}

/// A trap inside the window: one thread counts to 3000 and then makes a
/// misaligned load at pc 5. The load is warp-instruction 2 + 3 · 3000 + 1
/// = 9003, the 8003rd from the watchdog's (limit + 1)-th on, which is how
/// the timed models count the window (the instruction that trips the
/// watchdog is its first, §13.4). (The functional model counts the 8002
/// instructions before the trapping one; the rest of its report is the
/// same.)
#[test]
fn a_trap_in_the_window_is_reported_with_the_window_counted() {
    let src = "
        movi r2, 0               ; 0
        movi r4, 3000            ; 1
    loop:
        add r2, r2, 1            ; 2
        setp.lt p1, r2, r4       ; 3
        @p1 bra loop             ; 4
        ld.global.b32 r3, [r0+1] ; 5
        exit                     ; 6
    ";
    let run = Run::new(common::assemble(src), 1, 1, 1000);
    let expected = format!("still running: over the next {SPAN}, warp 0 lane 0 runs at pcs 2..=4; 8003 warp-instructions after the watchdog: trap in block (0,0,0) warp 0 lane(s) 0 at pc 5: global access of 4 bytes at address 0x00000001 is not aligned to 4; raise `watchdog:` in the launch description if this is a long computation");
    let (func, v2) = run.both();
    assert_eq!(diagnosis(&v2).0, expected);
    assert_eq!((v2.block, v2.warp, v2.lanes, v2.pc), ([0; 3], 0, 1, 2));
    assert_eq!(diagnosis(&func).0, expected.replace("8003", "8002"));
}
