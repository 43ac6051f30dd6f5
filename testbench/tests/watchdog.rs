//! The watchdog on every model: the functional model, the cycle model, the
//! RTL in lock-step with the cycle model, and the RTL alone. One unit
//! (issued warp-instructions, replays not counted) and one default, so a
//! launch that finishes on one model finishes on all; and one diagnosis, so
//! a deadlock, a livelock and a long computation are told apart alike.
//!
//! The expected lanes and PCs come from the kernels' listings (`concord
//! compile --emit asm`); each test checks the few instructions its facts
//! rest on, so a compiler change that moves them fails here first.

mod common;

use std::sync::{Mutex, OnceLock};

use concord_isa::config::CoreConfig;
use concord_isa::container::Kernel;
use concord_isa::func::{self, Launch, Options, RunError, Trap, TrapCause};
use concord_isa::watchdog::{DEFAULT_WATCHDOG, SPAN, WINDOW};
use concord_isa::Op;
use concord_testbench::cosim::{self, CosimError};
use concord_testbench::cycle;
use concord_testbench::verilator::{self, BuildOptions, Rtl};

const MODELS: [&str; 4] = ["functional", "cycle", "RTL in lock-step", "RTL alone"];

/// The default core on the RTL, built once per test binary.
fn rtl() -> &'static Mutex<Rtl> {
    static RTL: OnceLock<Mutex<Rtl>> = OnceLock::new();
    RTL.get_or_init(|| {
        let verilog = concord_hdl::generate_verilog(&CoreConfig::default()).unwrap();
        Mutex::new(Rtl::build(&verilog, &BuildOptions::default()).unwrap_or_else(|e| panic!("{e}")))
    })
}

use common::{compile_cuda as compile, op_at as op};

/// Buffers: `n` (if any) at 0x100, `o` at 0x200; parameters in that order.
struct Run {
    kernel: Kernel,
    grid: u32,
    block: u32,
    n: Vec<i32>,
    watchdog: u64,
}

impl Run {
    fn params(&self) -> Vec<u32> {
        if self.n.is_empty() {
            vec![0x200]
        } else {
            vec![0x100, 0x200]
        }
    }

    fn global(&self) -> Vec<u8> {
        let mut g = vec![0u8; CoreConfig::default().global_memory_bytes as usize];
        for (i, v) in self.n.iter().enumerate() {
            g[0x100 + 4 * i..0x104 + 4 * i].copy_from_slice(&v.to_le_bytes());
        }
        g
    }

    /// The outcome on each of [`MODELS`]: `o[0..8]`, or the trap.
    fn everywhere(&self) -> Vec<Result<Vec<i32>, Trap>> {
        let config = CoreConfig::default();
        let params = self.params();
        let launch = Launch {
            code: &self.kernel.code,
            entry_pc: self.kernel.entries[0].pc,
            grid: [self.grid, 1, 1],
            block: [self.block, 1, 1],
            params: &params,
            stack_bytes: self.kernel.stack_bytes,
        };
        let out = |g: &[u8]| -> Vec<i32> {
            (0..8)
                .map(|i| i32::from_le_bytes(g[0x200 + 4 * i..0x204 + 4 * i].try_into().unwrap()))
                .collect()
        };
        let mut results = Vec::new();

        let mut g = self.global();
        let opts = Options {
            watchdog: self.watchdog,
        };
        results.push(
            func::run(&config, &launch, &mut g, opts, None)
                .map(|_| out(&g))
                .map_err(RunError::unwrap_trap),
        );

        let mut g = self.global();
        results.push(
            cycle::run(&config, &launch, &mut g, self.watchdog, None)
                .map(|_| out(&g))
                .map_err(RunError::unwrap_trap),
        );

        // A failed test must not poison the core for the others (each run
        // resets it).
        let mut rtl = rtl().lock().unwrap_or_else(|e| e.into_inner());
        let g = self.global();
        results.push(
            match cosim::run_with(
                &config,
                &launch,
                &g,
                &mut rtl,
                self.watchdog,
                None,
                cosim::Oracle::MemoryOnly,
            ) {
                Ok(o) => o.result.map(|()| out(&o.global)),
                Err(CosimError::Watchdog { trap }) => Err(*trap),
                Err(e) => panic!("lock-step: {e}"),
            },
        );

        let mut g = self.global();
        results.push(
            verilator::run(&mut rtl, &config, &launch, &mut g, self.watchdog, None)
                .map(|_| out(&g))
                .map_err(RunError::unwrap_trap),
        );
        results
    }
}

fn watchdog_of(model: &str, r: &Result<Vec<i32>, Trap>) -> (Trap, String) {
    match r {
        Err(
            t @ Trap {
                cause: TrapCause::Watchdog { diagnosis, .. },
                ..
            },
        ) => (t.clone(), diagnosis.clone()),
        other => panic!("{model}: expected a watchdog trap, got {other:?}"),
    }
}

/// What the RTL alone adds: its warp state is the cycle model's replay.
fn rtl_alone_note(diagnosis: &str) -> &str {
    let (head, note) = diagnosis
        .split_once(" (the RTL's ports show only the issuing warp: the lanes' state is the cycle model's, which reproduced the RTL's trace port on all ")
        .unwrap_or_else(|| panic!("RTL alone: no note on the replay: {diagnosis}"));
    assert!(
        note.ends_with(" cycles of the run and in lock-step through the diagnosis)"),
        "{note}"
    );
    head
}

/// Trial division: the smallest factor of `n[t]` (0 for a prime), with `%`,
/// which calls the compiler's division routine.
const TRIAL_DIVISION: &str = "
__global__ void td(int *n, int *o) {
    int t = threadIdx.x;
    int x = n[t];
    int f = 0;
    for (int d = 2; d * d <= x; d++) {
        if (x % d == 0) { f = d; break; }
    }
    o[t] = f;
}
";

/// Lane 0 tries 999 divisors of the prime 1 000 003 while lanes 1-7 (even
/// numbers and 9) wait at the loop exit after one or two.
const N: [i32; 8] = [1_000_003, 4, 6, 8, 9, 10, 12, 14];
const FACTORS: [i32; 8] = [0, 2, 2, 2, 3, 2, 2, 2];

/// The listing of the trial division, as the tests below read it: the loop
/// head `mul r5, r3, r3` at pc 13, the call of `__srem` at pc 19, the exit
/// test `@p1 bra td.block9` at pc 23 to pc 29, and the division routine
/// ending with `ret r0` at pc 108.
fn trial_division() -> Kernel {
    let k = compile(TRIAL_DIVISION, "td");
    assert!(matches!(op(&k, 13), Op::Alu { .. }), "{:?}", op(&k, 13));
    assert!(
        matches!(op(&k, 19), Op::Call { target: 42, .. }),
        "{:?}",
        op(&k, 19)
    );
    assert!(
        matches!(op(&k, 23), Op::Bra { target: 29 }),
        "{:?}",
        op(&k, 23)
    );
    assert!(matches!(op(&k, 108), Op::Ret { .. }), "{:?}", op(&k, 108));
    assert_eq!(k.code.len(), 109);
    k
}

/// Four blocks of it issue 1.8 million warp-instructions in 10.4 million
/// cycles: under the default watchdog in warp-instructions, but over it in
/// cycles, which the timed models used to count (and then called the long
/// loop a livelock).
#[test]
fn a_long_divergent_loop_finishes_on_every_model_at_the_default_watchdog() {
    let run = Run {
        kernel: trial_division(),
        grid: 4,
        block: 8,
        n: N.to_vec(),
        watchdog: DEFAULT_WATCHDOG,
    };
    let config = CoreConfig::default();
    let params = run.params();
    let launch = Launch {
        code: &run.kernel.code,
        entry_pc: 0,
        grid: [4, 1, 1],
        block: [8, 1, 1],
        params: &params,
        stack_bytes: run.kernel.stack_bytes,
    };
    let mut g = run.global();
    let c = cycle::run(&config, &launch, &mut g, u64::MAX, None).unwrap();
    assert!(c.cycles > DEFAULT_WATCHDOG, "{} cycles", c.cycles);
    assert!(c.issued - c.replays < DEFAULT_WATCHDOG / 4, "{c:?}");

    for (model, r) in MODELS.iter().zip(run.everywhere()) {
        assert_eq!(r, Ok(FACTORS.to_vec()), "{model}");
    }
}

/// The same loop under a watchdog it overruns: a long computation, "still
/// running", with lanes 1-7 waiting at the loop exit (pc 29) while lane 0
/// runs the loop and the division (pcs 13..=108) — the same on every model.
#[test]
fn a_long_divergent_loop_over_the_watchdog_is_still_running_not_a_livelock() {
    let run = Run {
        kernel: trial_division(),
        grid: 1,
        block: 8,
        n: N.to_vec(),
        watchdog: 100_000,
    };
    let expected = format!(
        "still running: over the next {SPAN}, warp 0 lanes 1-7 wait at pc 29; warp 0 lane 0 runs at pcs 13..=108; no state repeated in the {WINDOW} warp-instructions after the watchdog; raise `watchdog:` in the launch description if this is a long computation"
    );
    for (model, r) in MODELS.iter().zip(run.everywhere()) {
        let (t, diagnosis) = watchdog_of(model, &r);
        assert_eq!(
            (t.block, t.warp, t.lanes, t.pc),
            ([0; 3], 0, 0xfe, 29),
            "{model}"
        );
        let diagnosis = if *model == "RTL alone" {
            rtl_alone_note(&diagnosis)
        } else {
            &diagnosis
        };
        assert_eq!(diagnosis, expected, "{model}");
    }
}

/// Threads 0-3 wait at `__syncthreads()` while threads 4-7 spin on a word
/// nobody writes: a deadlock, reported with both groups. (The functional
/// model used to say "no lane is starved" at pc 0 with no lanes; the RTL
/// "stuck at warp 0 pc 7".)
#[test]
fn a_barrier_waiting_for_spinning_threads_is_a_deadlock_on_every_model() {
    let kernel = compile(
        "__global__ void dl(int *o) {\n    int tid = threadIdx.x;\n    if (tid < 4) __syncthreads(); else while (o[0] == 0);\n}\n",
        "dl",
    );
    // The listing: `bar.sync` at pc 4; the spin `ld.global r1, [r0]` (6),
    // `setp.eq p1, r1, 0` (7), `@p1 bra dl.block4` (8) back to 6.
    assert_eq!(op(&kernel, 4), Op::Bar);
    assert!(
        matches!(op(&kernel, 6), Op::Load { .. }),
        "{:?}",
        op(&kernel, 6)
    );
    assert_eq!(op(&kernel, 8), Op::Bra { target: 6 });
    let run = Run {
        kernel,
        grid: 1,
        block: 8,
        n: Vec::new(),
        watchdog: 20_000,
    };
    let expected = "deadlock: the state repeats, so the run can never end: warp 0 lanes 0-3 wait at the barrier at pc 4; warp 0 lanes 4-7 run at pcs 6..=8";
    for (model, r) in MODELS.iter().zip(run.everywhere()) {
        let (t, diagnosis) = watchdog_of(model, &r);
        assert_eq!(
            (t.block, t.warp, t.lanes, t.pc),
            ([0; 3], 0, 0x0f, 4),
            "{model}"
        );
        let diagnosis = if *model == "RTL alone" {
            rtl_alone_note(&diagnosis)
        } else {
            &diagnosis
        };
        assert_eq!(diagnosis, expected, "{model}");
    }
}

/// A naive spin lock: the winner's critical section (pc 5) sits above the
/// losers' spin (pcs 2..=4), so min-PC arbitration never picks the winner.
/// The state repeats: a true livelock, naming the starved lane.
#[test]
fn a_spin_lock_livelock_is_a_livelock_on_every_model() {
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
    let run = Run {
        kernel: concord_isa::asm::assemble(src, "lock.s").unwrap(),
        grid: 1,
        block: 4,
        n: Vec::new(),
        watchdog: 10_000,
    };
    let expected = "livelock: the state repeats, so the run can never end and the waiting lanes can never be picked: warp 0 lane 0 waits at pc 5; warp 0 lanes 1-3 run at pcs 2..=4; lanes looping at lower PCs starve the lanes they wait for";
    for (model, r) in MODELS.iter().zip(run.everywhere()) {
        let (t, diagnosis) = watchdog_of(model, &r);
        assert_eq!(
            (t.block, t.warp, t.lanes, t.pc),
            ([0; 3], 0, 0b0001, 5),
            "{model}"
        );
        let diagnosis = if *model == "RTL alone" {
            rtl_alone_note(&diagnosis)
        } else {
            &diagnosis
        };
        assert_eq!(diagnosis, expected, "{model}");
    }
}

/// Lane 0 counts to 30 000 while lanes 1-3 wait at the exit (pc 8); the
/// block ends 89 006 warp-instructions after a watchdog of 1000 (pcs 0-4
/// once, 3 x 30 000 in the loop, one `exit`: 90 006 in all), inside the
/// window: every model says so, for the block that overran (the timed
/// models' window stops where the next block starts, as the functional
/// model's does).
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
    let run = Run {
        kernel: concord_isa::asm::assemble(src, "count.s").unwrap(),
        grid: 2,
        block: 4,
        n: Vec::new(),
        watchdog: 1000,
    };
    let expected = format!(
        "still running: over the next {SPAN}, warp 0 lanes 1-3 wait at pc 8; warp 0 lane 0 runs at pcs 5..=7; the block finishes 89006 warp-instructions after the watchdog; raise `watchdog:` in the launch description if this is a long computation"
    );
    for (model, r) in MODELS.iter().zip(run.everywhere()) {
        let (t, diagnosis) = watchdog_of(model, &r);
        assert_eq!(
            (t.block, t.warp, t.lanes, t.pc),
            ([0; 3], 0, 0b1110, 8),
            "{model}"
        );
        let diagnosis = if *model == "RTL alone" {
            rtl_alone_note(&diagnosis)
        } else {
            &diagnosis
        };
        assert_eq!(diagnosis, expected, "{model}");
    }
}
