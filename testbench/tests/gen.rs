//! The random program generator: its programs assemble, run to completion on
//! the functional model, end in the same state under both arbitration
//! policies (they do not depend on lane grouping) and under random warp
//! interleavings with chunked memory replay (they are race-free; see
//! `mod interleave` below), and together cover every instruction form and
//! construct.
//!
//! `CONCORD_GEN_CASES` scales the number of programs (default 2000); every
//! failure names the case and the seed (`dump_case` prints a case).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;

use concord_isa::config::{Arbitration, CoreConfig};
use concord_isa::container::Kernel;
use concord_isa::func::{self, BlockView, Issue, Observer, Options, Stats};
use concord_isa::{decode, encoding::Opcode, Op, Pred, Reg, Space};
use concord_testbench::gen::{
    expected_forms, generate, opcode_histogram, Features, GenConfig, Program,
};

const WATCHDOG: u64 = 5_000_000;

fn cases() -> u64 {
    std::env::var("CONCORD_GEN_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000)
}

/// Final state of one run: global memory and every thread's registers and
/// predicates (block-major), plus the statistics and where lanes executed.
struct Outcome {
    global: Vec<u8>,
    regs: Vec<[u32; 32]>,
    preds: Vec<[bool; 8]>,
    stats: Stats,
    /// PCs at which at least one lane executed.
    executed: BTreeSet<u32>,
}

struct Collect {
    threads: usize,
    regs: Vec<[u32; 32]>,
    preds: Vec<[bool; 8]>,
    executed: BTreeSet<u32>,
}

impl Observer for Collect {
    fn issue(&mut self, i: &Issue) -> ControlFlow<()> {
        if i.executing != 0 {
            self.executed.insert(i.pc);
        }
        ControlFlow::Continue(())
    }
    fn block_end(&mut self, _block: [u32; 3], state: &BlockView<'_>) {
        for t in 0..self.threads {
            let mut r = [0u32; 32];
            for (i, v) in r.iter_mut().enumerate() {
                *v = state.reg(t, Reg::new(i as u8).unwrap());
            }
            let mut p = [false; 8];
            for (i, v) in p.iter_mut().enumerate() {
                *v = state.pred(t, Pred::new(i as u8).unwrap());
            }
            self.regs.push(r);
            self.preds.push(p);
        }
    }
}

fn run(p: &Program, kernel: &Kernel, arbitration: Arbitration, case: u64) -> Outcome {
    let config = CoreConfig {
        arbitration,
        ..p.core_config()
    };
    config
        .validate()
        .unwrap_or_else(|e| panic!("seed {}: core config: {e}", p.seed));
    assert!(
        kernel.shared_bytes <= config.shared_memory_bytes,
        "seed {}",
        p.seed
    );
    assert!(
        kernel.code.len() as u32 <= config.imem_words,
        "seed {}",
        p.seed
    );
    assert_eq!(kernel.code.len() as u32, p.code_words, "seed {}", p.seed);
    let launch = func::Launch {
        code: &kernel.code,
        entry_pc: kernel.entries[0].pc,
        grid: p.grid(),
        block: p.block(),
        params: &p.params,
        stack_bytes: kernel.stack_bytes,
    };
    let mut global = p.global_init.clone();
    let mut collect = Collect {
        threads: p.threads as usize,
        regs: Vec::new(),
        preds: Vec::new(),
        executed: BTreeSet::new(),
    };
    let stats = func::run(
        &config,
        &launch,
        &mut global,
        Options { watchdog: WATCHDOG },
        Some(&mut collect),
    )
    .unwrap_or_else(|t| {
        panic!(
            "case {case} seed {} ({}): trap under {}: {t}\n{}",
            p.seed,
            describe(p),
            arbitration.name(),
            listing(&p.source)
        )
    });
    Outcome {
        global,
        regs: collect.regs,
        preds: collect.preds,
        stats,
        executed: collect.executed,
    }
}

fn describe(p: &Program) -> String {
    format!(
        "lanes {} warps {} threads {} blocks {}",
        p.lanes, p.warps, p.threads, p.blocks
    )
}

fn listing(source: &str) -> String {
    source
        .lines()
        .enumerate()
        .map(|(i, l)| format!("{:5} {l}\n", i + 1))
        .collect()
}

/// The configuration of case `i`: lanes 4/8/32, warps 1/2/8, thread counts
/// that are often not a multiple of the lanes, 1..3 blocks, mostly every
/// feature.
fn config_for(i: u64) -> GenConfig {
    let mut x = i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5851_f42d;
    let mut next = |n: u64| {
        x ^= x >> 29;
        x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x ^= x >> 32;
        x % n
    };
    let lanes = [4, 8, 32][(i % 3) as usize];
    let warps = [1, 2, 8][((i / 3) % 3) as usize];
    let max = lanes * warps;
    let threads = match next(4) {
        0 => max,
        1 => 1 + next(max as u64) as u32,
        _ => (max - next(lanes as u64) as u32).max(1),
    };
    let blocks = 1 + next(3) as u32;
    let size = 15 + next(100) as usize;
    let features = if next(4) == 0 {
        Features {
            calls: next(2) == 0,
            recursion: next(2) == 0,
            indirect: next(2) == 0,
            shared: next(2) == 0,
            global: next(2) == 0,
            atomics: next(2) == 0,
            barriers: next(2) == 0,
            consensual: next(2) == 0,
            loops: next(2) == 0,
        }
    } else {
        Features::default()
    };
    GenConfig {
        lanes,
        warps,
        threads,
        blocks,
        size,
        features,
    }
}

fn seed_for(i: u64) -> u64 {
    i.wrapping_mul(0x2545_f491_4f6c_dd1d).wrapping_add(17)
}

/// Assembles, runs under both policies, and checks the states agree.
fn check_case(i: u64) -> (Program, Kernel, Outcome) {
    let p = generate(seed_for(i), &config_for(i));
    let kernel = p.kernel();
    let out = check_case_program(&p, &kernel, i);
    (p, kernel, out)
}

/// Runs `p` under both policies and random interleavings; returns the
/// functional model's outcome under `depth_pc`.
fn check_case_program(p: &Program, kernel: &Kernel, i: u64) -> Outcome {
    let seed = p.seed;
    assert_eq!(p.global_init.len() as u32, p.global_bytes, "seed {seed}");
    assert!(!p.source.contains("%clock"), "seed {seed}: reads the clock");
    let a = run(p, kernel, Arbitration::DepthPc, i);
    let b = run(p, kernel, Arbitration::PcOnly, i);
    if a.global != b.global {
        let first = a
            .global
            .iter()
            .zip(&b.global)
            .position(|(x, y)| x != y)
            .unwrap();
        panic!(
            "case {i} seed {seed} ({}): global memory differs between depth_pc and pc_only, first at byte {first:#x}\n{}",
            describe(p),
            listing(&p.source)
        );
    }
    for (t, (ra, rb)) in a.regs.iter().zip(&b.regs).enumerate() {
        assert_eq!(
            ra,
            rb,
            "case {i} seed {seed} ({}): registers of thread {t} (block-major) differ between policies\n{}",
            describe(p),
            listing(&p.source)
        );
    }
    assert_eq!(
        a.preds,
        b.preds,
        "case {i} seed {seed} ({}): predicates differ between policies",
        describe(p)
    );
    check_interleavings(p, kernel, &a, i, 1);
    a
}

/// Runs the program `n` times under random warp interleavings and lane
/// chunking, from random initial registers and shared memory, and checks
/// that every run ends in the functional model's state.
fn check_interleavings(p: &Program, kernel: &Kernel, reference: &Outcome, case: u64, n: u64) {
    let config = p.core_config();
    for k in 0..n {
        let shuffle = p.seed ^ (k + 1).wrapping_mul(0xd6e8_feb8_6659_fd93);
        let fin = interleave::run(
            &config,
            &kernel.code,
            &p.params,
            &p.global_init,
            p.threads,
            p.blocks,
            shuffle,
            WATCHDOG,
        )
        .unwrap_or_else(|e| {
            panic!(
                "case {case} seed {} ({}), interleaving {k}: {e}\n{}",
                p.seed,
                describe(p),
                listing(&p.source)
            )
        });
        if fin.global != reference.global {
            let first = fin
                .global
                .iter()
                .zip(&reference.global)
                .position(|(x, y)| x != y)
                .unwrap();
            panic!(
                "case {case} seed {} ({}), interleaving {k}: global memory differs from the functional model, first at byte {first:#x}\n{}",
                p.seed,
                describe(p),
                listing(&p.source)
            );
        }
        for (t, (x, y)) in fin.regs.iter().zip(&reference.regs).enumerate() {
            assert_eq!(
                x,
                y,
                "case {case} seed {} ({}), interleaving {k}: registers of thread {t} (block-major) differ",
                p.seed,
                describe(p)
            );
        }
        assert_eq!(
            fin.preds,
            reference.preds,
            "case {case} seed {} ({}), interleaving {k}: predicates differ",
            p.seed,
            describe(p)
        );
    }
}

fn run_cases(part: u64, parts: u64) {
    let n = cases();
    let start = std::time::Instant::now();
    let mut issued = 0u64;
    for i in (part..n).step_by(parts as usize) {
        let (_, _, out) = check_case(i);
        issued += out.stats.issued;
    }
    eprintln!(
        "part {part}: {} programs, {issued} warp-instructions (depth_pc) in {:.1?}",
        n.div_ceil(parts),
        start.elapsed()
    );
}

#[test]
fn generated_programs_run_and_agree_across_policies_part0() {
    run_cases(0, 2);
}

#[test]
fn generated_programs_run_and_agree_across_policies_part1() {
    run_cases(1, 2);
}

#[test]
fn generation_is_deterministic() {
    for i in 0..20 {
        let cfg = config_for(i);
        let a = generate(seed_for(i), &cfg);
        let b = generate(seed_for(i), &cfg);
        assert_eq!(a, b, "seed {}", seed_for(i));
    }
    let cfg = GenConfig::default();
    assert_ne!(
        generate(1, &cfg).source,
        generate(2, &cfg).source,
        "different seeds should give different programs"
    );
}

/// A fixed seed keeps producing the same program.
#[test]
fn fixed_seed_output_is_stable() {
    let p = generate(42, &GenConfig::default());
    let again = generate(42, &GenConfig::default());
    assert_eq!(p.source, again.source, "seed 42");
    assert_eq!(p.global_init, again.global_init, "seed 42");
    assert_eq!(p.params, again.params, "seed 42");
}

/// Turning a feature off removes its instructions; programs still run and
/// agree across policies and interleavings.
#[test]
fn disabled_features_do_not_appear() {
    let names = [
        "calls",
        "recursion",
        "indirect",
        "shared",
        "global",
        "atomics",
        "barriers",
        "consensual",
        "loops",
        "all",
    ];
    for i in 0..300u64 {
        let which = names[(i % names.len() as u64) as usize];
        let mut f = Features::default();
        match which {
            "calls" => f.calls = false,
            "recursion" => f.recursion = false,
            "indirect" => f.indirect = false,
            "shared" => f.shared = false,
            "global" => f.global = false,
            "atomics" => f.atomics = false,
            "barriers" => f.barriers = false,
            "consensual" => f.consensual = false,
            "loops" => f.loops = false,
            _ => f = Features::none(),
        }
        let seed = seed_for(i) ^ 0xabc;
        let cfg = GenConfig {
            features: f,
            ..config_for(i)
        };
        let p = generate(seed, &cfg);
        let kernel = p.kernel();
        for (pc, w) in kernel.code.iter().enumerate() {
            let instr = decode(*w).unwrap();
            let pc = pc as u32;
            let shared = matches!(
                instr.op,
                Op::Load {
                    space: Space::Shared,
                    ..
                } | Op::Store {
                    space: Space::Shared,
                    ..
                } | Op::Atom {
                    space: Space::Shared,
                    ..
                }
            );
            // With `global` off, global memory holds only the recursion
            // stacks (based on r21) and the final checksum stores.
            let global_data = match instr.op {
                Op::Load {
                    space: Space::Global,
                    base,
                    ..
                }
                | Op::Store {
                    space: Space::Global,
                    base,
                    ..
                } => {
                    base.index() != 21
                        && !(1..=2).any(|d| {
                            kernel
                                .code
                                .get(pc as usize + d)
                                .map(|w| decode(*w).unwrap().op)
                                == Some(Op::Exit)
                        })
                }
                Op::Atom {
                    space: Space::Global,
                    ..
                } => true,
                _ => false,
            };
            let bad = match which {
                "calls" => matches!(
                    instr.op,
                    Op::Call { .. } | Op::CallR { .. } | Op::Ret { .. }
                ),
                "recursion" => kernel
                    .symbols
                    .iter()
                    .any(|(name, _)| name.ends_with("_self")),
                "indirect" => matches!(instr.op, Op::Jmp { .. } | Op::CallR { .. }),
                "shared" => shared || p.shared_bytes != 0,
                "global" => global_data,
                "atomics" => matches!(instr.op, Op::Atom { .. }),
                "barriers" => matches!(instr.op, Op::Bar),
                "consensual" => matches!(instr.op, Op::BraCons { .. }),
                "loops" => matches!(
                    instr.op,
                    Op::Bra { target } | Op::BraCons { target, .. } if target <= pc
                ),
                _ => {
                    shared
                        || global_data
                        || matches!(
                            instr.op,
                            Op::Call { .. }
                                | Op::CallR { .. }
                                | Op::Ret { .. }
                                | Op::Jmp { .. }
                                | Op::Atom { .. }
                                | Op::Bar
                                | Op::BraCons { .. }
                                | Op::Load { .. }
                        )
                }
            };
            assert!(
                !bad,
                "seed {seed}: `{instr}` at {pc} with feature `{which}` off\n{}",
                listing(&p.source)
            );
        }
        let out = check_case_program(&p, &kernel, i);
        if which == "barriers" || which == "all" {
            assert_eq!(out.stats.barriers, 0, "seed {seed}");
        }
    }
}

/// Over a batch of programs with every feature, every instruction form
/// (and so every opcode) and every construct appears, and the constructs
/// that matter dynamically really execute.
#[test]
fn coverage() {
    let mut forms: BTreeMap<String, usize> = BTreeMap::new();
    let mut opcodes: BTreeMap<String, usize> = BTreeMap::new();
    let mut tags: BTreeMap<String, usize> = BTreeMap::new();
    let mut dynamic: BTreeMap<&str, usize> = BTreeMap::new();
    let n = (cases() / 10).clamp(60, 400);
    for i in 0..n {
        let (p, kernel, out) = check_case(i * 7 + 3);
        for (k, v) in opcode_histogram(&kernel.code) {
            *forms.entry(k).or_default() += v;
        }
        for w in &kernel.code {
            let instr = decode(*w).unwrap();
            *opcodes
                .entry(format!("{:?}", Opcode::of(&instr.op)))
                .or_default() += 1;
            let pc_of = |w: &u32| kernel.code.iter().position(|x| x == w).unwrap() as u32;
            let pc = pc_of(w);
            let mut static_tag = |t: &str| *tags.entry(format!("static:{t}")).or_default() += 1;
            match instr.op {
                Op::Call { target, .. } if target < pc => static_tag("call to a lower address"),
                Op::Call { target, .. } if target > pc => static_tag("call to a higher address"),
                Op::Bra { target } if target <= pc => static_tag("backward bra"),
                Op::BraCons { target, .. } if target <= pc => static_tag("backward consensual"),
                Op::BraCons { target, .. } if target > pc => static_tag("forward consensual"),
                _ => {}
            }
            if !instr.guard.is_always_true() {
                match instr.op {
                    Op::Call { .. } | Op::CallR { .. } => static_tag("guarded call"),
                    Op::BraCons { .. } => static_tag("guarded consensual"),
                    Op::Load { .. } | Op::Store { .. } | Op::Atom { .. } => {
                        static_tag("guarded memory")
                    }
                    _ => {}
                }
                if instr.guard.negate {
                    static_tag("negated guard");
                }
            }
        }
        for line in p.source.lines() {
            if let Some(t) = line.trim().strip_prefix(";#") {
                *tags.entry(t.to_string()).or_default() += 1;
            }
        }
        // Recursion really recursed: the self-call executed.
        for (name, pc) in &kernel.symbols {
            if name.ends_with("_self") && out.executed.contains(pc) {
                *dynamic.entry("recursive call executed").or_default() += 1;
            }
        }
        let s = out.stats;
        let mut d = |k: &'static str, c: bool| {
            if c {
                *dynamic.entry(k).or_default() += 1
            }
        };
        d("divergent branches", s.divergent_branches > 0);
        d("consensual taken", s.consensual_taken > 0);
        d("consensual not taken", s.consensual_not_taken > 0);
        d(
            "barrier across warps",
            s.barriers > 0 && p.threads > p.lanes,
        );
        d("partial last warp", p.threads % p.lanes != 0);
    }
    eprintln!("constructs: {tags:?}\nrun time: {dynamic:?}");
    let missing_forms: Vec<String> = expected_forms()
        .into_iter()
        .filter(|f| !forms.contains_key(f))
        .collect();
    assert!(
        missing_forms.is_empty(),
        "forms never generated: {missing_forms:?}\nhistogram: {forms:#?}"
    );
    let missing_ops: Vec<String> = Opcode::ALL[1..]
        .iter()
        .map(|o| format!("{o:?}"))
        .filter(|o| !opcodes.contains_key(o))
        .collect();
    assert!(
        missing_ops.is_empty(),
        "opcodes never generated: {missing_ops:?}\nhistogram: {opcodes:#?}"
    );
    let expected_tags = [
        "if",
        "ifelse",
        "loop.bottom",
        "loop.top",
        "loop.nested",
        "trip.loaded",
        "consloop.skip",
        "consloop.uniform",
        "consloop.divergent",
        "consskip.divergent",
        "consskip.uniform",
        "consskip.guarded",
        "indirect",
        "call.down",
        "call.up",
        "call.nested",
        "call.guarded",
        "call.rec",
        "callr",
        "recursion",
        "ret.early",
        "taint",
        "fn.safe",
        "fn.unsafe",
        "vote.divergent",
        "vote.uniform",
        "vote.ballot_masked",
        "shared.stride1",
        "shared.stride2",
        "shared.stride4",
        "shared.stride8",
        "shared.broadcast",
        "shared.data_index",
        "shared.warp_slot_store",
        "shared.warp_slot_load",
        "shared.mailbox_own",
        "shared.acc_read",
        "global.stride1",
        "global.stride4",
        "global.broadcast",
        "global.ro_data",
        "global.data_index",
        "global.mailbox_own",
        "global.acc_read",
        "mailbox.broadcast",
        "mailbox.mirror",
        "mailbox.rotate",
        "mailbox.cross_warp",
        "mailbox.data",
        "mailbox.neighbour",
        "atomic.shared_own",
        "atomic.global_own",
        "atomic.shared_acc",
        "atomic.global_block_acc",
        "atomic.global_grid_acc",
        "bar",
        "phaseloop",
        "readback",
        "exit.early",
        "static:call to a lower address",
        "static:call to a higher address",
        "static:backward bra",
        "static:backward consensual",
        "static:forward consensual",
        "static:guarded call",
        "static:guarded consensual",
        "static:guarded memory",
        "static:negated guard",
    ];
    let missing_tags: Vec<&str> = expected_tags
        .iter()
        .copied()
        .filter(|t| !tags.contains_key(*t))
        .collect();
    assert!(
        missing_tags.is_empty(),
        "constructs never generated: {missing_tags:?}\ntags: {tags:#?}"
    );
    let expected_dynamic = [
        "recursive call executed",
        "divergent branches",
        "consensual taken",
        "consensual not taken",
        "barrier across warps",
        "partial last warp",
    ];
    let missing_dyn: Vec<&str> = expected_dynamic
        .iter()
        .copied()
        .filter(|t| !dynamic.contains_key(*t))
        .collect();
    assert!(
        missing_dyn.is_empty(),
        "never happened at run time: {missing_dyn:?}\n{dynamic:#?}"
    );
}

/// Prints case `CONCORD_GEN_CASE` (its configuration, listing with
/// addresses, and the last issues before the end or the trap):
/// `cargo test --test gen dump_case -- --ignored --nocapture`.
#[test]
#[ignore]
fn dump_case() {
    struct Tail(std::collections::VecDeque<Issue>);
    impl Observer for Tail {
        fn issue(&mut self, i: &Issue) -> ControlFlow<()> {
            if self.0.len() == 48 {
                self.0.pop_front();
            }
            self.0.push_back(*i);
            ControlFlow::Continue(())
        }
    }
    let i: u64 = std::env::var("CONCORD_GEN_CASE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let p = generate(seed_for(i), &config_for(i));
    println!("; case {i} seed {} ({})", p.seed, describe(&p));
    let kernel = p.kernel();
    println!("{}", concord_isa::disasm::disassemble(&kernel));
    for arbitration in [Arbitration::DepthPc, Arbitration::PcOnly] {
        let config = CoreConfig {
            arbitration,
            ..p.core_config()
        };
        let launch = common::random_launch(&p, &kernel);
        let mut global = p.global_init.clone();
        let mut tail = Tail(Default::default());
        let r = func::run(
            &config,
            &launch,
            &mut global,
            Options { watchdog: WATCHDOG },
            Some(&mut tail),
        );
        println!("; {}: {r:?}", arbitration.name());
        for i in &tail.0 {
            println!(
                ";   warp {} pc {} active {:#x} executing {:#x}",
                i.warp, i.pc, i.active, i.executing
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Interleaving check.
//
// The functional model always takes warps round robin, one warp-instruction
// each, so it cannot show that a program's final state is independent of the
// interleaving. This small independent executor runs the same program with
// a random warp scheduler (random bursts of one warp, random switches), and
// replays every memory instruction in random lane-ordered chunks with other
// warps running in between (as the timed models do under bank conflicts and
// line splits). It also starts every block with random registers,
// predicates and shared memory, which a program must not rely on, and picks
// the arbitration policy at random. Its final state must equal the
// functional model's.

mod interleave {
    use concord_isa::config::CoreConfig;
    use concord_isa::instr::*;
    use concord_isa::semantics as sem;

    pub struct Final {
        pub global: Vec<u8>,
        pub regs: Vec<[u32; 32]>,
        pub preds: Vec<[bool; 8]>,
    }

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// A memory instruction whose lanes are performed in several chunks.
    struct Pending {
        instr: Instr,
        addrs: [u32; 32],
        data: [u32; 32],
        chunks: Vec<u32>,
        active: u32,
        pc: u32,
    }

    struct Warp {
        regs: [[u32; 32]; 32], // [lane][reg]
        preds: [u8; 32],       // [lane] bit p
        pc: [u32; 32],
        depth: [u32; 32],
        alive: u32,
        waiting: u32,
        pending: Option<Pending>,
        tid: [u32; 32],
        id: u32,
    }

    impl Warp {
        fn pred(&self, l: usize, p: PredSrc) -> bool {
            let v = p.pred.is_true() || self.preds[l] >> p.pred.index() & 1 == 1;
            v != p.negate
        }
        fn pmask(&self, p: PredSrc, lanes: usize) -> u32 {
            (0..lanes).fold(0, |m, l| m | (self.pred(l, p) as u32) << l)
        }
        fn set_pred(&mut self, l: usize, pd: Pred, v: bool) {
            if !pd.is_true() {
                let b = 1u8 << pd.index();
                self.preds[l] = if v {
                    self.preds[l] | b
                } else {
                    self.preds[l] & !b
                };
            }
        }
    }

    fn read(mem: &[u8], a: u32, n: u32) -> u32 {
        (0..n).fold(0, |v, i| v | (mem[(a + i) as usize] as u32) << (8 * i))
    }
    fn write(mem: &mut [u8], a: u32, n: u32, v: u32) {
        for i in 0..n {
            mem[(a + i) as usize] = (v >> (8 * i)) as u8;
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub fn run(
        cfg: &CoreConfig,
        code: &[u32],
        params: &[u32],
        global_init: &[u8],
        threads: u32,
        blocks: u32,
        seed: u64,
        watchdog: u64,
    ) -> Result<Final, String> {
        let code: Vec<Option<Instr>> = code.iter().map(|w| concord_isa::decode(*w).ok()).collect();
        let lanes = cfg.lanes as usize;
        let max_depth = cfg.max_call_depth();
        let mut rng = Rng(seed);
        // Either policy: the programs' final state must not depend on it.
        let pc_only = rng.below(2) == 0;
        let mut global = global_init.to_vec();
        let mut fin = Final {
            global: Vec::new(),
            regs: Vec::new(),
            preds: Vec::new(),
        };
        let mut issued = 0u64;
        for b in 0..blocks {
            let nw = (threads as usize).div_ceil(lanes);
            let mut shared: Vec<u8> = (0..cfg.shared_memory_bytes)
                .map(|_| rng.next() as u8)
                .collect();
            let mut warps: Vec<Warp> = (0..nw)
                .map(|w| {
                    let mut warp = Warp {
                        regs: [[0; 32]; 32],
                        preds: [0; 32],
                        pc: [0; 32],
                        depth: [0; 32],
                        alive: 0,
                        waiting: 0,
                        pending: None,
                        tid: [0; 32],
                        id: w as u32,
                    };
                    for l in 0..lanes {
                        for r in 0..32 {
                            warp.regs[l][r] = rng.next() as u32;
                        }
                        warp.preds[l] = rng.next() as u8 & !1;
                        let t = (w * lanes + l) as u32;
                        warp.tid[l] = t;
                        if t < threads {
                            warp.alive |= 1 << l;
                        }
                    }
                    warp
                })
                .collect();
            let mut waiting_total = 0u32;
            let mut current = 0usize;
            // How often the scheduler leaves the current warp: from every
            // other issue to never (until it waits or exits), so that warps
            // run far ahead of each other in some runs.
            let switch = [2u64, 16, 256, 0][rng.below(4) as usize];
            loop {
                let ready: Vec<usize> = (0..nw)
                    .filter(|&w| warps[w].alive & !warps[w].waiting != 0)
                    .collect();
                if ready.is_empty() {
                    if waiting_total != 0 {
                        return Err(format!("block {b}: barrier never completes"));
                    }
                    break;
                }
                if !ready.contains(&current) || (switch != 0 && rng.below(switch) == 0) {
                    current = ready[rng.below(ready.len() as u64) as usize];
                }
                issued += 1;
                if issued > watchdog {
                    return Err("watchdog".into());
                }
                let w = current;
                // Continue a chunked memory instruction.
                if let Some(mut pend) = warps[w].pending.take() {
                    let chunk = pend.chunks.remove(0);
                    perform(&mut warps[w], &pend, chunk, &mut shared, &mut global);
                    if pend.chunks.is_empty() {
                        for l in 0..lanes {
                            if pend.active >> l & 1 == 1 {
                                warps[w].pc[l] = pend.pc + 1;
                            }
                        }
                    } else {
                        warps[w].pending = Some(pend);
                    }
                    continue;
                }
                // Arbitrate: deepest call, then lowest PC.
                let warp = &mut warps[w];
                let sched = warp.alive & !warp.waiting;
                let key = |l: usize| {
                    let depth_key = if pc_only {
                        0
                    } else {
                        max_depth - warp.depth[l]
                    };
                    ((depth_key as u64) << 32) | warp.pc[l] as u64
                };
                let best = (0..lanes)
                    .filter(|l| sched >> l & 1 == 1)
                    .map(key)
                    .min()
                    .unwrap();
                let active = (0..lanes)
                    .filter(|&l| sched >> l & 1 == 1 && key(l) == best)
                    .fold(0u32, |m, l| m | 1 << l);
                let pc = best as u32;
                let Some(Some(instr)) = code.get(pc as usize).copied() else {
                    return Err(format!("block {b} warp {w}: bad pc {pc}"));
                };
                let exec = active & warp.pmask(instr.guard, lanes);
                let lanes_of = |m: u32| (0..lanes).filter(move |l| m >> l & 1 == 1);
                let mut next = [pc + 1; 32];
                match instr.op {
                    Op::Load { base, offset, .. } | Op::Store { base, offset, .. } => {
                        let (space, bytes, src) = match instr.op {
                            Op::Load { space, width, .. } => (space, width.bytes(), None),
                            Op::Store {
                                space, width, src, ..
                            } => (space, width.bytes(), Some(src)),
                            _ => unreachable!(),
                        };
                        let mut pend = Pending {
                            instr,
                            addrs: [0; 32],
                            data: [0; 32],
                            chunks: Vec::new(),
                            active,
                            pc,
                        };
                        let size = match space {
                            Space::Shared => shared.len(),
                            Space::Global => global.len(),
                        } as u64;
                        for l in lanes_of(exec) {
                            let a = warp.regs[l][base.index()].wrapping_add(offset as u32);
                            if a % bytes != 0 || a as u64 + bytes as u64 > size {
                                return Err(format!(
                                    "block {b} warp {w} pc {pc}: bad address {a:#x}"
                                ));
                            }
                            pend.addrs[l] = a;
                            if let Some(s) = src {
                                pend.data[l] = warp.regs[l][s.index()];
                            }
                        }
                        pend.chunks = chunks(&mut rng, exec, lanes);
                        warp.pending = Some(pend);
                        continue;
                    }
                    Op::Atom {
                        addr, src, space, ..
                    } => {
                        let mut pend = Pending {
                            instr,
                            addrs: [0; 32],
                            data: [0; 32],
                            chunks: Vec::new(),
                            active,
                            pc,
                        };
                        let size = match space {
                            Space::Shared => shared.len(),
                            Space::Global => global.len(),
                        } as u64;
                        for l in lanes_of(exec) {
                            let a = warp.regs[l][addr.index()];
                            if a % 4 != 0 || a as u64 + 4 > size {
                                return Err(format!(
                                    "block {b} warp {w} pc {pc}: bad atomic address {a:#x}"
                                ));
                            }
                            pend.addrs[l] = a;
                            pend.data[l] = warp.regs[l][src.index()];
                        }
                        pend.chunks = chunks(&mut rng, exec, lanes);
                        warp.pending = Some(pend);
                        continue;
                    }
                    Op::Alu { op, rd, rs1, rs2 } => {
                        for l in lanes_of(exec) {
                            warp.regs[l][rd.index()] =
                                sem::alu(op, warp.regs[l][rs1.index()], warp.regs[l][rs2.index()]);
                        }
                    }
                    Op::AluImm { op, rd, rs1, imm } => {
                        for l in lanes_of(exec) {
                            warp.regs[l][rd.index()] =
                                sem::alu(op, warp.regs[l][rs1.index()], imm as u32);
                        }
                    }
                    Op::MovI { rd, imm } => {
                        for l in lanes_of(exec) {
                            warp.regs[l][rd.index()] = imm as u32;
                        }
                    }
                    Op::MovHi { rd, imm } => {
                        for l in lanes_of(exec) {
                            let r = &mut warp.regs[l][rd.index()];
                            *r = (imm as u32) << 16 | (*r & 0xffff);
                        }
                    }
                    Op::SetP { cmp, pd, rs1, rs2 } => {
                        for l in lanes_of(exec) {
                            let v = sem::compare(
                                cmp,
                                warp.regs[l][rs1.index()],
                                warp.regs[l][rs2.index()],
                            );
                            warp.set_pred(l, pd, v);
                        }
                    }
                    Op::SetPImm { cmp, pd, rs1, imm } => {
                        for l in lanes_of(exec) {
                            let v = sem::compare(cmp, warp.regs[l][rs1.index()], imm as u32);
                            warp.set_pred(l, pd, v);
                        }
                    }
                    Op::PLogic { op, pd, a, b } => {
                        for l in lanes_of(exec) {
                            let v = sem::pred_logic(op, warp.pred(l, a), warp.pred(l, b));
                            warp.set_pred(l, pd, v);
                        }
                    }
                    Op::Sel { rd, p, rs1, rs2 } => {
                        for l in lanes_of(exec) {
                            let r = if warp.pred(l, p) { rs1 } else { rs2 };
                            warp.regs[l][rd.index()] = warp.regs[l][r.index()];
                        }
                    }
                    Op::S2R { rd, sreg } => {
                        for l in lanes_of(exec) {
                            let t = warp.tid[l];
                            warp.regs[l][rd.index()] = match sreg {
                                SpecialReg::TidX | SpecialReg::TidLinear => t,
                                SpecialReg::TidY | SpecialReg::TidZ => 0,
                                SpecialReg::NtidX => threads,
                                SpecialReg::NtidY | SpecialReg::NtidZ => 1,
                                SpecialReg::CtaidX => b,
                                SpecialReg::CtaidY | SpecialReg::CtaidZ => 0,
                                SpecialReg::NctaidX => blocks,
                                SpecialReg::NctaidY | SpecialReg::NctaidZ => 1,
                                SpecialReg::LaneId => l as u32,
                                SpecialReg::WarpId => warp.id,
                                SpecialReg::NWarps => nw as u32,
                                SpecialReg::WarpSize => lanes as u32,
                                SpecialReg::ClockLo | SpecialReg::ClockHi => {
                                    return Err("clock read".into())
                                }
                            };
                        }
                    }
                    Op::LdParam { rd, index } => {
                        for l in lanes_of(exec) {
                            warp.regs[l][rd.index()] = params[index as usize];
                        }
                    }
                    Op::Vote { kind, pd, p } => {
                        let v = sem::vote(kind, exec, warp.pmask(p, lanes));
                        for l in lanes_of(exec) {
                            warp.set_pred(l, pd, v);
                        }
                    }
                    Op::Ballot { rd, p } => {
                        let m = exec & warp.pmask(p, lanes);
                        for l in lanes_of(exec) {
                            warp.regs[l][rd.index()] = m;
                        }
                    }
                    Op::Nop => {}
                    Op::Bra { target } => {
                        for l in lanes_of(exec) {
                            next[l] = target;
                        }
                    }
                    Op::BraCons { kind, p, target } => {
                        if sem::consensus_taken(kind, exec, warp.pmask(p, lanes)) {
                            next = [target; 32];
                        }
                    }
                    Op::Jmp { rs } => {
                        for l in lanes_of(exec) {
                            next[l] = warp.regs[l][rs.index()];
                        }
                    }
                    Op::Call { .. } | Op::CallR { .. } => {
                        for l in lanes_of(exec) {
                            if warp.depth[l] >= max_depth {
                                return Err(format!("block {b} warp {w} pc {pc}: call depth"));
                            }
                        }
                        for l in lanes_of(exec) {
                            let (rd, t) = match instr.op {
                                Op::Call { rd, target } => (rd, target),
                                Op::CallR { rd, rs } => (rd, warp.regs[l][rs.index()]),
                                _ => unreachable!(),
                            };
                            warp.regs[l][rd.index()] = pc + 1;
                            warp.depth[l] += 1;
                            next[l] = t;
                        }
                    }
                    Op::Ret { rs } => {
                        for l in lanes_of(exec) {
                            if warp.depth[l] == 0 {
                                return Err(format!("block {b} warp {w} pc {pc}: ret at depth 0"));
                            }
                        }
                        for l in lanes_of(exec) {
                            warp.depth[l] -= 1;
                            next[l] = warp.regs[l][rs.index()];
                        }
                    }
                    Op::Bar => {
                        warp.waiting |= exec;
                        waiting_total += exec.count_ones();
                    }
                    Op::Exit => warp.alive &= !exec,
                }
                for l in lanes_of(active) {
                    warp.pc[l] = next[l];
                }
                if waiting_total == threads {
                    waiting_total = 0;
                    for w in &mut warps {
                        w.waiting = 0;
                    }
                }
            }
            for w in &warps {
                for l in 0..lanes {
                    if w.tid[l] < threads {
                        fin.regs.push(w.regs[l]);
                        let mut p = [false; 8];
                        for (i, v) in p.iter_mut().enumerate() {
                            *v = i == 0 || w.preds[l] >> i & 1 == 1;
                        }
                        fin.preds.push(p);
                    }
                }
            }
        }
        fin.global = global;
        Ok(fin)
    }

    /// Splits `exec` into lane-ordered chunks (lowest lanes first).
    fn chunks(rng: &mut Rng, exec: u32, lanes: usize) -> Vec<u32> {
        let mut out = Vec::new();
        let mut cur = 0u32;
        for l in 0..lanes {
            if exec >> l & 1 == 1 {
                cur |= 1 << l;
                if rng.below(3) == 0 {
                    out.push(cur);
                    cur = 0;
                }
            }
        }
        if cur != 0 || out.is_empty() {
            out.push(cur);
        }
        out
    }

    fn perform(warp: &mut Warp, pend: &Pending, chunk: u32, shared: &mut [u8], global: &mut [u8]) {
        for l in 0..32 {
            if chunk >> l & 1 == 0 {
                continue;
            }
            let a = pend.addrs[l];
            match pend.instr.op {
                Op::Load {
                    space, width, rd, ..
                } => {
                    let mem: &[u8] = if space == Space::Shared {
                        shared
                    } else {
                        global
                    };
                    warp.regs[l][rd.index()] = sem::load_extend(width, read(mem, a, width.bytes()));
                }
                Op::Store { space, width, .. } => {
                    let mem: &mut [u8] = if space == Space::Shared {
                        shared
                    } else {
                        global
                    };
                    write(
                        mem,
                        a,
                        width.bytes(),
                        sem::store_truncate(width, pend.data[l]),
                    );
                }
                Op::Atom { space, op, rd, .. } => {
                    let mem: &mut [u8] = if space == Space::Shared {
                        shared
                    } else {
                        global
                    };
                    let old = read(mem, a, 4);
                    write(mem, a, 4, sem::atomic(op, old, pend.data[l]));
                    warp.regs[l][rd.index()] = old;
                }
                _ => unreachable!(),
            }
        }
    }
}

/// Large programs on the widest core: still valid, within the watchdog,
/// and the configuration grows to fit them.
#[test]
fn large_programs_fit_their_core() {
    for seed in 0..2u64 {
        let cfg = GenConfig {
            lanes: 32,
            warps: 16,
            threads: 509,
            blocks: 2,
            size: 400,
            features: Features::default(),
        };
        let p = generate(seed, &cfg);
        let kernel = p.kernel();
        let c = p.core_config();
        assert!(c.imem_words as usize >= kernel.code.len(), "seed {seed}");
        assert!(c.max_call_depth() >= p.max_call_depth, "seed {seed}");
        let out = check_case_program(&p, &kernel, seed);
        eprintln!(
            "seed {seed}: {} words, {} warp-instructions",
            kernel.code.len(),
            out.stats.issued
        );
    }
}
