//! Simulation speed of the cycle model. Ignored by default; run it in a
//! release build:
//!
//! ```text
//! cargo test --release -p concord-testbench --test cycle_speed -- --ignored --nocapture
//! ```

use std::time::Instant;

use concord_isa::config::CoreConfig;
use concord_isa::func::Launch;
use concord_testbench::cycle::{self, CycleModel, GlobalMemory};
use concord_testbench::trace::State;

/// A mix of ALU, predicates, a guarded instruction, shared and global
/// loads/stores and a consensual loop branch.
const KERNEL: &str = "
        s2r     r1, %tid
        movi    r2, 0
        movi    r6, 0
        shl     r3, r1, 2
        and     r7, r1, 3
        setp.eq p1, r7, 0
        ldparam r9, 0
loop:
        ld.global r4, [r3+256]
        add     r6, r6, r4
        st.shared [r3], r6
        ld.shared r5, [r3]
        xor     r6, r6, r5
        mul     r6, r6, 3
        @p1 add r6, r6, 1
        add     r2, r2, 1
        setp.lt p2, r2, r9
        bra.any p2, loop
        st.global [r3+1024], r6
        exit
";

/// The same loop without global memory: every cycle is an FSM cycle with
/// work (no `G_WAIT` cycles).
fn on_chip() -> String {
    KERNEL
        .replace("ld.global r4, [r3+256]", "ld.shared r4, [r3+256]")
        .replace("st.global [r3+1024], r6", "st.shared [r3+1024], r6")
}

fn measure(name: &str, src: &str, lanes: u32, warps: u32, iterations: u32) {
    let config = CoreConfig {
        lanes,
        warps,
        ..CoreConfig::default()
    };
    let kernel = concord_isa::asm::assemble(src, "speed.s").unwrap();
    let params = [iterations];
    let launch = Launch {
        code: &kernel.code,
        entry_pc: 0,
        grid: [1, 1, 1],
        block: [lanes * warps, 1, 1],
        params: &params,
        stack_bytes: kernel.stack_bytes,
    };

    // `run` without a trace callback.
    let mut global = vec![0u8; config.global_memory_bytes as usize];
    let start = Instant::now();
    let c = cycle::run(&config, &launch, &mut global, u64::MAX, None).unwrap();
    let untraced = start.elapsed().as_secs_f64();

    // `step` per cycle, as the co-simulation drives it.
    let mut core = CycleModel::new(&config).unwrap();
    let mut mem = GlobalMemory::new(
        vec![0u8; config.global_memory_bytes as usize],
        config.global_latency,
        config.global_line_bytes,
    );
    for (i, w) in kernel.code.iter().enumerate() {
        core.host_write(i as u32, *w);
    }
    core.host_write(0x20001, kernel.code.len() as u32);
    for axis in 0..3 {
        core.host_write(0x20002 + axis, 1);
        core.host_write(0x20005 + axis, launch.block[axis as usize]);
    }
    core.host_write(0x20008, 1);
    core.host_write(0x20010, iterations);
    core.host_write(0x200ff, 1);
    let start = Instant::now();
    let mut writes = 0u64;
    while core.state() != State::Done {
        let t = core.step(&mut mem);
        writes += (t.rf_we != 0) as u64;
    }
    let stepped = start.elapsed().as_secs_f64();
    assert_eq!(core.counters(), c);
    assert!(writes > 0);

    println!(
        "{name:<8} lanes {lanes:2} warps {warps}: {:>9} cycles ({} issues, {} replays): run() {:.1} M cycles/s, step() {:.1} M cycles/s",
        c.cycles,
        c.issued,
        c.replays,
        c.cycles as f64 / untraced / 1e6,
        c.cycles as f64 / stepped / 1e6
    );
}

#[test]
#[ignore = "speed measurement: run in release with --ignored --nocapture"]
fn cycles_per_second() {
    measure("global", KERNEL, 8, 4, 40_000);
    measure("global", KERNEL, 32, 8, 10_000);
    measure("on-chip", &on_chip(), 8, 4, 40_000);
    measure("on-chip", &on_chip(), 32, 8, 10_000);
}
