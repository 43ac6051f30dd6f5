//! The run-time checks of `concord_isa::checks` give the same trap on the
//! functional model, the cycle model and the RTL in lock-step (issue 12):
//!
//! * a stack access outside the thread's own stack (a compiled recursive
//!   kernel run with a stack too small for it, which used to end with
//!   wrong results and exit 0 or with a misleading `ret` trap; the exact
//!   edges of the guard zone);
//! * a next PC outside the program (a `jmp` to `0xffffffff`, which the
//!   timed models used to see as `0xffff`; the largest instruction memory,
//!   where `pc + 1` of the last word does not fit 16 bits).
//!
//! Every expected trap is worked out by hand from the layout rules
//! (docs/isa.md: thread `t` owns `[G - (t+1)S, G - tS)`, the guard zone is
//! the `S` bytes below the lowest stack).

use std::cell::RefCell;
use std::collections::HashMap;

use concord_compiler::driver::{self, CompileOptions};
use concord_isa::config::CoreConfig;
use concord_isa::func::{self, Launch, RunError, Trap, TrapCause};
use concord_isa::launch::LaunchDescription;
use concord_testbench::lockstep;
use concord_testbench::pipeline::{self, func_reference, PipelineLaunch, PipelineOptions};
use concord_testbench::verilator::{BuildOptions, RtlV2};
use concord_uarch::GenOptions;

const WATCHDOG: u64 = 10_000_000;

thread_local! {
    static RTLS: RefCell<HashMap<CoreConfig, RtlV2>> = Default::default();
}

/// Runs `launch` on the three models and checks that they agree; returns
/// the trap (or `Ok` with the final memory). The launch uses no shared
/// memory; every register is cleared at launch.
fn on_all_models(config: &CoreConfig, launch: &Launch<'_>, global: &[u8]) -> Result<Vec<u8>, Trap> {
    let launch = PipelineLaunch {
        launch: launch.clone(),
        shared_bytes: 0,
        regs_used: config.registers,
    };
    let options = PipelineOptions {
        watchdog: WATCHDOG,
        check_bus: true,
        gen: GenOptions::sim(),
    };
    let mut func_mem = global.to_vec();
    let f = func_reference(
        config,
        &launch,
        &mut func_mem,
        func::Options { watchdog: WATCHDOG },
        None,
    )
    .map_err(RunError::unwrap_trap);
    let mut cycle_mem = global.to_vec();
    let c = pipeline::run(config, &launch, &mut cycle_mem, options)
        .unwrap_or_else(|e| panic!("cycle model: {e}"))
        .result;
    match (&f, &c) {
        (Err(a), Err(b)) => assert!(a.same_report(b), "functional `{a}`, cycle model `{b}`"),
        (Ok(_), Ok(())) => assert!(func_mem == cycle_mem, "final memory differs"),
        _ => panic!("functional {f:?}, cycle model {c:?}"),
    }
    let outcome = RTLS.with(|rtls| {
        let mut rtls = rtls.borrow_mut();
        let rtl = rtls.entry(config.clone()).or_insert_with(|| {
            let gen = GenOptions::sim();
            let verilog = concord_hdl::v2::core::core_verilog(config, &gen).unwrap();
            RtlV2::build(&verilog, config, &gen, &BuildOptions::default())
                .unwrap_or_else(|e| panic!("{e}"))
        });
        // Lock-step with the cycle model, then against the functional model.
        lockstep::run(config, &launch, global, rtl, options)
            .unwrap_or_else(|e| panic!("lock-step: {e}"))
    });
    match (&f, &outcome.outcome.result) {
        (Err(a), Err(b)) => assert!(a.same_report(b), "functional `{a}`, RTL `{b}`"),
        (Ok(_), Ok(())) => assert!(func_mem == outcome.global, "final memory differs"),
        _ => panic!("functional {f:?}, RTL {:?}", outcome.outcome.result),
    }
    f.map(|_| func_mem)
}

fn small(global_bytes: u32) -> CoreConfig {
    CoreConfig {
        lanes: 4,
        warps: 1,
        global_memory_bytes: global_bytes,
        ..CoreConfig::default()
    }
}

/// `o[t] = 1000 + d[t] + (d[t] - 1) + ... + 1` by a recursive function.
const RECURSION: &str = "
__device__ int sum(int n)
{
    if (n == 0) {
        return 0;
    }
    return n + sum(n - 1);
}

__global__ void rec(int *d, int *o)
{
    int t = threadIdx.x;
    o[t] = 1000 + sum(d[t]);
}
";

/// Global memory of the recursion runs: room for the default recursive
/// stack (1024 bytes) of 4 threads and its guard zone.
const G: u32 = 1 << 16;

/// Compiles [`RECURSION`] with `stack` bytes per thread and runs it for
/// `d` on the small core with [`G`] bytes of global memory.
fn recursion(stack: Option<u32>, d: &[i32]) -> (Result<Vec<u8>, Trap>, u32, usize) {
    let config = small(G);
    let options = CompileOptions {
        stack_bytes: stack,
        ..CompileOptions::for_core(&config)
    };
    let compiled = driver::compile(RECURSION, "rec.cu", &options).unwrap_or_else(|e| panic!("{e}"));
    let kernel = compiled.kernel(None).unwrap().compiled.kernel.clone();
    let yaml = format!(
        "program: rec.cu\ngrid: [1]\nblock: [{}]\nargs:\n  - {{ name: d, buffer: i32, data: {d:?} }}\n  - {{ name: o, buffer: i32, len: {} }}\noutputs: [o]\n",
        d.len(),
        d.len()
    );
    // The description names its program, which must exist.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("run_time_checks");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("rec.cu"), RECURSION).unwrap();
    let desc = LaunchDescription::from_yaml(&yaml, &dir.join("rec.yaml")).unwrap();
    let prepared = desc.prepare(&kernel, &config).unwrap();
    let launch = Launch {
        code: &kernel.code,
        entry_pc: prepared.entry_pc,
        grid: prepared.grid,
        block: prepared.block,
        params: &prepared.params,
        stack_bytes: kernel.stack_bytes,
    };
    let o = prepared.buffer("o").unwrap().addr as usize;
    (
        on_all_models(&config, &launch, &prepared.global),
        kernel.stack_bytes,
        o,
    )
}

#[test]
fn compiled_recursion_with_a_small_stack_traps_as_stack_overflow() {
    let word = |m: &[u8], a: usize| i32::from_le_bytes(m[a..a + 4].try_into().unwrap());
    // The computed stack holds the recursion: 1000 + 6 and 1000 + 1.
    let (result, _, o) = recursion(None, &[3, 1]);
    let memory = result.unwrap_or_else(|t| panic!("{t}"));
    assert_eq!([word(&memory, o), word(&memory, o + 4)], [1006, 1001]);

    // 32 bytes: thread 0 (depth 4) outgrows its stack into thread 1's. This
    // used to end with exit 0 and o = [1006, 0].
    let (result, s, _) = recursion(Some(32), &[3, 1]);
    assert_eq!(s, 32);
    let trap = result.expect_err("a stack overflow");
    let TrapCause::StackOverflow {
        addr,
        bytes,
        thread,
        lo,
        hi,
    } = trap.cause
    else {
        panic!("{trap}");
    };
    assert_eq!(
        (trap.lanes, thread, lo, hi, bytes),
        (0b0001, 0, G - 32, G, 4)
    );
    assert!(
        (G - 64..G - 32).contains(&addr),
        "in thread 1's stack: {trap}"
    );

    // 16 bytes: both threads' second frames go below their stacks at the
    // same instruction. This used to trap as "`ret` at call depth 0".
    let (result, s, _) = recursion(Some(16), &[3, 1]);
    assert_eq!(s, 16);
    let trap = result.expect_err("a stack overflow");
    let TrapCause::StackOverflow {
        addr,
        thread,
        lo,
        hi,
        ..
    } = trap.cause
    else {
        panic!("{trap}");
    };
    assert_eq!((trap.lanes, thread, lo, hi), (0b0011, 0, G - 16, G));
    assert!(
        (G - 32..G - 16).contains(&addr),
        "in thread 1's stack: {trap}"
    );
}

/// A hand-written kernel on 4 lanes x 1 warp, G = 4096, `.stack 16`: thread
/// t owns [4096 - 16(t+1), 4096 - 16t), the guard zone is [4016, 4032).
/// Lane `lane` accesses `addr` with `access` (`{a}` is the address register).
fn stack_case(stack: bool, lane: u32, access: &str, addr: u32) -> Result<Vec<u8>, Trap> {
    let src = format!(
        "{}s2r r1, %tid\nli r2, {addr}\nsetp.eq p1, r1, {lane}\n@p1 {}\nexit\n",
        if stack { ".stack 16\n" } else { "" },
        access.replace("{a}", "r2")
    );
    let kernel = concord_isa::asm::assemble(&src, "stack.s").unwrap_or_else(|e| panic!("{e}"));
    let launch = Launch {
        code: &kernel.code,
        entry_pc: 0,
        grid: [1, 1, 1],
        block: [4, 1, 1],
        params: &[],
        stack_bytes: kernel.stack_bytes,
    };
    on_all_models(&small(4096), &launch, &vec![0; 4096])
}

#[test]
fn stack_edges_on_every_model() {
    let overflow = |addr, bytes, thread: u32| TrapCause::StackOverflow {
        addr,
        bytes,
        thread,
        lo: 4096 - 16 * (thread + 1),
        hi: 4096 - 16 * thread,
    };
    let st = "st.global [{a}], r1";
    // (lane, access, address, expected cause)
    let cases = [
        (0, st, 4092, None),
        (0, st, 4080, None),
        (0, st, 4076, Some(overflow(4076, 4, 0))),
        (
            1,
            "ld.global.u8 r5, [{a}]",
            4095,
            Some(overflow(4095, 1, 1)),
        ),
        (3, st, 4032, None),
        (3, st, 4028, Some(overflow(4028, 4, 3))),
        (
            3,
            "ld.global.s16 r5, [{a}]",
            4016,
            Some(overflow(4016, 2, 3)),
        ),
        (
            3,
            "atom.global.add r5, [{a}], r1",
            4020,
            Some(overflow(4020, 4, 3)),
        ),
        (2, st, 4012, None),
        (0, st, 0x100, None),
    ];
    for (lane, access, addr, want) in cases {
        let got = stack_case(true, lane, access, addr).err();
        match (&want, &got) {
            (None, None) => {}
            (Some(cause), Some(trap)) => {
                assert_eq!(
                    (&trap.cause, trap.lanes, trap.pc),
                    (cause, 1 << lane, 3),
                    "lane {lane} `{access}` at {addr}: {trap}"
                );
            }
            _ => panic!("lane {lane} `{access}` at {addr}: expected {want:?}, got {got:?}"),
        }
        // A kernel without a stack is never checked.
        if let Err(t) = stack_case(false, lane, access, addr) {
            panic!("without .stack, lane {lane} `{access}` at {addr}: {t}");
        }
    }
}

/// One warp of one thread running `code` on the small core with
/// `imem_words` words of instruction memory.
fn pc_case(code: &[u32], imem_words: u32) -> Trap {
    let config = CoreConfig {
        imem_words,
        ..small(4096)
    };
    let launch = Launch {
        code,
        entry_pc: 0,
        grid: [1, 1, 1],
        block: [1, 1, 1],
        params: &[],
        stack_bytes: 0,
    };
    on_all_models(&config, &launch, &vec![0; 4096]).expect_err("a trap")
}

fn asm(src: &str) -> Vec<u32> {
    concord_isa::asm::assemble(src, "pc.s")
        .unwrap_or_else(|e| panic!("{e}"))
        .code
}

#[test]
fn jumping_outside_the_program_traps_at_the_jump_on_every_model() {
    // The reproducer: the functional model stopped at pc 4294967295, the
    // timed models at pc 65535, and lock-step called it a mismatch.
    let trap = pc_case(&asm("li r1, 0xffffffff\njmp r1\n"), 4096);
    assert_eq!(
        (trap.cause.clone(), trap.pc, trap.lanes),
        (
            TrapCause::NextPcOutOfRange {
                target: u32::MAX,
                len: 2
            },
            1,
            1
        ),
        "{trap}"
    );
    // 2^16 + 1 used to land on pc 1 in the timed models and run on.
    let trap = pc_case(&asm("li r1, 0x10001\njmp r1\nexit\n"), 4096);
    assert_eq!(
        (trap.cause.clone(), trap.pc),
        (
            TrapCause::NextPcOutOfRange {
                target: 0x10001,
                len: 4
            },
            2
        ),
        "{trap}"
    );
}

#[test]
fn the_largest_instruction_memory_has_no_pc_past_its_end() {
    // 65536 words: the last word's pc + 1 = 65536 does not fit the 16-bit
    // PC registers, which used to wrap it to 0.
    let nops = |n: usize| "nop\n".repeat(n);
    // Falling through the last word.
    let code = asm(&format!("bra 65535\n{}nop\n", nops(65534)));
    assert_eq!(code.len(), 65536);
    let trap = pc_case(&code, 65536);
    assert_eq!(
        (trap.cause.clone(), trap.pc, trap.lanes),
        (
            TrapCause::NextPcOutOfRange {
                target: 65536,
                len: 65536
            },
            65535,
            1
        ),
        "{trap}"
    );
    // A call at the last word links 65536 (stored at 0x100, then
    // returned to).
    let src = format!(
        "bra 65535\nmovi r2, 256\nst.global [r2], r1\nret r1\n{}call r1, 1\n",
        nops(65531)
    );
    let code = asm(&src);
    assert_eq!(code.len(), 65536);
    let trap = pc_case(&code, 65536);
    assert_eq!(
        (trap.cause.clone(), trap.pc),
        (
            TrapCause::NextPcOutOfRange {
                target: 65536,
                len: 65536
            },
            3
        ),
        "{trap}"
    );
}
