//! End-to-end checks of the generated core: Verilator runs kernels on the
//! RTL (tests/harness/tb.cpp, a minimal memory model and host) and the
//! results are compared with the functional model `concord_isa::func`:
//! final global memory, every thread's registers and predicates at the end
//! of every block (rebuilt from the trace port), the trap report, and the
//! architectural counters. The trace port is also checked for the
//! invariants of docs/microarchitecture.md §10.
//!
//! Each configuration is verilated once (about 20 s for the small core, 30 s
//! for the default one) and cached by a hash of the Verilog in cargo's test
//! scratch directory.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

use concord_isa::config::{Arbitration, CoreConfig};
use concord_isa::func::{self, BlockView, Observer, Trap, TrapCause};
use concord_isa::instr::{Pred, Reg};
use concord_uarch::params::pred_trace_addr;
use concord_uarch::{host, Counter, HwParams, State, TrapCode};

/// Index of a host read register in `RtlRun::regs`.
fn reg_index(addr: u32) -> usize {
    addr as usize
}

/// Serialises Verilator builds (the machine has two cores).
static BUILD: Mutex<()> = Mutex::new(());

fn sim_binary(config: &CoreConfig) -> PathBuf {
    let _guard = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    let verilog = concord_hdl::generate_verilog(config).unwrap();
    let tb = std::fs::read_to_string(common::repo_root().join("hdl/tests/harness/tb.cpp")).unwrap();
    let contract = contract_header();
    let mut h = std::collections::hash_map::DefaultHasher::new();
    verilog.hash(&mut h);
    tb.hash(&mut h);
    contract.hash(&mut h);
    let dir = common::scratch(&format!("sim-{:016x}", h.finish()));
    let bin = dir.join("obj").join("sim");
    if bin.exists() {
        return bin;
    }
    std::fs::write(dir.join("concord_core.v"), &verilog).unwrap();
    std::fs::write(dir.join("tb.cpp"), &tb).unwrap();
    std::fs::write(dir.join("contract.h"), &contract).unwrap();
    let (ok, log, t) = common::run_bounded(
        Command::new("verilator")
            .current_dir(&dir)
            .args([
                "--cc", "--exe", "--build", "-j", "2", "--Mdir", "obj", "-o", "sim",
            ])
            .args(["concord_core.v", "tb.cpp"]),
        Duration::from_secs(900),
    );
    assert!(ok, "verilator build failed:\n{log}");
    eprintln!("verilated {} in {:.1} s", dir.display(), t.as_secs_f64());
    bin
}

/// The facts of the microarchitecture contract that `tb.cpp` needs, as C
/// macros, so that the harness restates none of them.
fn contract_header() -> String {
    use concord_isa::instr::AtomOp;
    let mut header = String::from("// Written by hdl/tests/sim.rs from concord_uarch.\n");
    header += &format!("#define HOST_READ_WORDS {}\n", host::READ_WORDS);
    header += &format!("#define STATE_DONE {}\n", State::Done.code());
    header += &format!("#define STATE_TRAP {}\n", State::Trap.code());
    for (code, op) in AtomOp::ALL.iter().enumerate() {
        header += &format!("#define ATOM_{} {code}\n", format!("{op:?}").to_uppercase());
    }
    header
}

struct Case<'a> {
    name: &'a str,
    src: &'a str,
    grid: [u32; 3],
    block: [u32; 3],
    params: Vec<u32>,
    /// Global memory words at byte addresses.
    mem: Vec<(u32, u32)>,
    max_cycles: u32,
}

impl<'a> Case<'a> {
    fn new(name: &'a str, src: &'a str, block: [u32; 3]) -> Self {
        Case {
            name,
            src,
            grid: [1, 1, 1],
            block,
            params: vec![OUT],
            mem: Vec::new(),
            max_cycles: 200_000,
        }
    }
}

/// Where kernels write their results.
const OUT: u32 = 0x1000;

/// Register file ((lane, rf address) -> value) and predicates (pred address
/// -> mask) at the end of a block.
type BlockEnd = (HashMap<(usize, usize), u32>, HashMap<usize, u32>);

struct RtlRun {
    state: u32,
    regs: Vec<u32>,
    mem: BTreeMap<u32, u32>,
    /// Per finished block: (lane, rf address) -> value, (pred address) -> mask.
    blocks: Vec<BlockEnd>,
}

fn run_rtl(
    config: &CoreConfig,
    bin: &PathBuf,
    case: &Case,
    kernel: &concord_isa::container::Kernel,
) -> RtlRun {
    let (code, entry) = (&kernel.code, kernel.entries[0].pc);
    let mut s = String::new();
    s += &format!(
        "latency {}\nmemsize {}\ntrace 1\n",
        config.global_latency, config.global_memory_bytes
    );
    for (a, w) in &case.mem {
        s += &format!("mem {a} {w}\n");
    }
    for (i, w) in code.iter().enumerate() {
        s += &format!("write {i} {w}\n");
    }
    s += &format!("write {} {}\n", host::ENTRY_PC, entry);
    s += &format!("write {} {}\n", host::CODE_LEN, code.len());
    for i in 0..3 {
        s += &format!("write {} {}\n", host::GRID + i as u32, case.grid[i]);
        s += &format!("write {} {}\n", host::BLOCK + i as u32, case.block[i]);
    }
    s += &format!("write {} {}\n", host::PARAM_COUNT, case.params.len());
    for (i, p) in case.params.iter().enumerate() {
        s += &format!("write {} {}\n", host::PARAM + i as u32, p);
    }
    s += &format!("write {} {}\n", host::STACK_BYTES, kernel.stack_bytes);
    s += &format!("write {} 1\nrun {}\n", host::START, case.max_cycles);
    let dir = common::scratch("runs");
    let script = dir.join(format!(
        "{}-{}-{}.txt",
        case.name, config.lanes, config.warps
    ));
    std::fs::write(&script, s).unwrap();
    let out = Command::new(bin).arg(&script).output().unwrap();
    assert!(
        out.status.success(),
        "sim failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();

    let lanes = config.lanes as usize;
    let mut run = RtlRun {
        state: 0,
        regs: vec![0; host::READ_WORDS],
        mem: BTreeMap::new(),
        blocks: Vec::new(),
    };
    let mut rf: HashMap<(usize, usize), u32> = HashMap::new();
    let mut preds: HashMap<usize, u32> = HashMap::new();
    let mut prev_state = 0u32;
    let mut cycle = 0usize;
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        match f[0] {
            "C" => {
                let st: u32 = f[1].parse().unwrap();
                let hex = |i: usize| u32::from_str_radix(f[i], 16).unwrap();
                let (warp, pc): (u32, u32) = (f[2].parse().unwrap(), f[3].parse().unwrap());
                let (active, exec, rfwe) = (hex(4), hex(5), hex(6));
                let rfaddr: usize = f[7].parse().unwrap();
                let (pwe, paddr, pdata) = (hex(8), f[9].parse::<usize>().unwrap(), hex(10));
                let data: Vec<u32> = (0..32).map(|l| hex(11 + l)).collect();
                let ctx = format!("{}: cycle {cycle}: {line}", case.name);
                // §10 invariants.
                let high = if lanes == 32 { 0 } else { !0u32 << lanes };
                assert!(State::from_code(st).is_some(), "{ctx}");
                assert_eq!(
                    (active | exec | rfwe | pwe | pdata) & high,
                    0,
                    "lanes >= L: {ctx}"
                );
                assert!(warp < config.warps, "{ctx}");
                let _ = pc;
                if rfwe == 0 {
                    assert_eq!(rfaddr, 0, "rf addr without write: {ctx}");
                }
                if pwe == 0 {
                    assert_eq!(paddr, 0, "pred addr without write: {ctx}");
                }
                assert_eq!(pdata & !pwe, 0, "pred data without write: {ctx}");
                for (l, d) in data.iter().enumerate() {
                    if rfwe >> l & 1 == 0 {
                        assert_eq!(*d, 0, "rf data of lane {l} without write: {ctx}");
                    } else {
                        rf.insert((l, rfaddr), *d);
                    }
                }
                let (init, sched, done) =
                    (State::Init.code(), State::Sched.code(), State::Done.code());
                if st == init && prev_state != init {
                    preds.clear();
                }
                if pwe != 0 {
                    let old = preds.get(&paddr).copied().unwrap_or(0);
                    preds.insert(paddr, (old & !pwe) | (pdata & pwe));
                }
                if prev_state == sched && (st == init || st == done) {
                    run.blocks.push((rf.clone(), preds.clone()));
                }
                prev_state = st;
                cycle += 1;
            }
            "END" => run.state = f[2].parse().unwrap(),
            "R" => run.regs[f[1].parse::<usize>().unwrap()] = f[2].parse().unwrap(),
            "M" => {
                run.mem.insert(f[1].parse().unwrap(), f[2].parse().unwrap());
            }
            _ => panic!("bad sim output line {line}"),
        }
    }
    run
}

#[derive(Default)]
struct Blocks {
    /// Per block: tid -> registers, predicates.
    views: Vec<Vec<(Vec<u32>, Vec<bool>)>>,
    threads: usize,
    regs: usize,
    preds: usize,
}

impl Observer for Blocks {
    fn block_end(&mut self, _block: [u32; 3], v: &BlockView<'_>) {
        let mut b = Vec::new();
        for tid in 0..self.threads {
            let r = (0..self.regs)
                .map(|i| v.reg(tid, Reg::new(i as u8).unwrap()))
                .collect();
            let p = (0..self.preds)
                .map(|i| v.pred(tid, Pred::new(i as u8).unwrap()))
                .collect();
            b.push((r, p));
        }
        self.views.push(b);
    }
}

fn counter(run: &RtlRun, c: Counter) -> u64 {
    let lo = reg_index(c.low_addr());
    run.regs[lo] as u64 | (run.regs[lo + 1] as u64) << 32
}

/// Runs `case` on the RTL and the functional model and compares them.
fn check(config: &CoreConfig, case: &Case) -> Result<func::Stats, Trap> {
    let kernel = concord_isa::asm::assemble(case.src, case.name)
        .unwrap_or_else(|e| panic!("{}: {e}", case.name));
    let entry = kernel.entries[0].pc;
    let bin = sim_binary(config);
    let rtl = run_rtl(config, &bin, case, &kernel);

    let mut global = vec![0u8; config.global_memory_bytes as usize];
    for (a, w) in &case.mem {
        global[*a as usize..*a as usize + 4].copy_from_slice(&w.to_le_bytes());
    }
    let threads = (case.block[0] * case.block[1] * case.block[2]) as usize;
    let mut obs = Blocks {
        threads,
        regs: config.registers as usize,
        preds: config.predicates as usize,
        ..Default::default()
    };
    let launch = func::Launch {
        code: &kernel.code,
        entry_pc: entry,
        grid: case.grid,
        block: case.block,
        params: &case.params,
        stack_bytes: kernel.stack_bytes,
    };
    let result = func::run(
        config,
        &launch,
        &mut global,
        func::Options::default(),
        Some(&mut obs),
    )
    .map_err(func::RunError::unwrap_trap);
    let name = case.name;

    // Global memory.
    let mut expect = BTreeMap::new();
    for a in (0..global.len()).step_by(4) {
        let w = u32::from_le_bytes(global[a..a + 4].try_into().unwrap());
        if w != 0 {
            expect.insert(a as u32, w);
        }
    }
    assert_eq!(rtl.mem, expect, "{name}: global memory");

    // Registers and predicates at each block end.
    let lanes = config.lanes as usize;
    let hw = HwParams::new(config).unwrap();
    assert_eq!(rtl.blocks.len(), obs.views.len(), "{name}: finished blocks");
    for (b, (view, (rf, preds))) in obs.views.iter().zip(&rtl.blocks).enumerate() {
        for (tid, (regs, ps)) in view.iter().enumerate() {
            let (w, l) = (tid / lanes, tid % lanes);
            for (r, want) in regs.iter().enumerate() {
                let got = rf.get(&(l, hw.rf_row(w, r))).copied().unwrap_or(0);
                assert_eq!(got, *want, "{name}: block {b} thread {tid} r{r}");
            }
            for (p, want) in ps.iter().enumerate().skip(1) {
                let got = preds
                    .get(&(pred_trace_addr(w, p) as usize))
                    .copied()
                    .unwrap_or(0)
                    >> l
                    & 1
                    == 1;
                assert_eq!(got, *want, "{name}: block {b} thread {tid} p{p}");
            }
        }
    }

    match &result {
        Ok(stats) => {
            assert_eq!(
                rtl.state,
                State::Done.code(),
                "{name}: RTL did not finish (state {})",
                rtl.state
            );
            assert_eq!(
                rtl.regs[reg_index(host::STATUS)],
                host::STATUS_DONE,
                "{name}: status"
            );
            let replays = counter(&rtl, Counter::Replays);
            assert_eq!(
                counter(&rtl, Counter::Issued) - replays,
                stats.issued,
                "{name}: issued - replays"
            );
            if replays == 0 {
                assert_eq!(
                    counter(&rtl, Counter::ActiveLaneSlots),
                    stats.active_lane_slots,
                    "{name}: active slots"
                );
                assert_eq!(
                    counter(&rtl, Counter::ExecutedLaneSlots),
                    stats.executed_lane_slots,
                    "{name}: executed slots"
                );
            }
            assert_eq!(
                counter(&rtl, Counter::DivergentBranches),
                stats.divergent_branches,
                "{name}: divergent"
            );
            assert_eq!(
                counter(&rtl, Counter::ConsensualTaken),
                stats.consensual_taken,
                "{name}: taken"
            );
            assert_eq!(
                counter(&rtl, Counter::ConsensualNotTaken),
                stats.consensual_not_taken,
                "{name}: not taken"
            );
            assert_eq!(
                counter(&rtl, Counter::BarrierArrivals),
                stats.barrier_arrivals,
                "{name}: arrivals"
            );
            assert_eq!(
                counter(&rtl, Counter::Barriers),
                stats.barriers,
                "{name}: barriers"
            );
            assert_eq!(
                counter(&rtl, Counter::Blocks),
                stats.blocks,
                "{name}: blocks"
            );
            assert!(counter(&rtl, Counter::Cycles) > 0, "{name}: cycles");
        }
        Err(trap) => {
            assert_eq!(
                rtl.state,
                State::Trap.code(),
                "{name}: RTL did not trap ({trap})"
            );
            assert_eq!(
                rtl.regs[reg_index(host::STATUS)],
                host::STATUS_TRAPPED,
                "{name}: status"
            );
            assert_eq!(
                Some(rtl.regs[reg_index(host::TRAP_CAUSE)]),
                TrapCode::of(&trap.cause).map(TrapCode::code),
                "{name}: cause of {trap}"
            );
            assert_eq!(
                rtl.regs[reg_index(host::TRAP_PC)],
                trap.pc,
                "{name}: trap pc of {trap}"
            );
            assert_eq!(
                rtl.regs[reg_index(host::TRAP_WARP)],
                trap.warp,
                "{name}: trap warp of {trap}"
            );
            assert_eq!(
                rtl.regs[reg_index(host::TRAP_LANES)],
                trap.lanes,
                "{name}: trap lanes of {trap}"
            );
            let block = reg_index(host::TRAP_BLOCK);
            assert_eq!(
                &rtl.regs[block..block + 3],
                &trap.block,
                "{name}: trap block of {trap}"
            );
            match &trap.cause {
                TrapCause::AddressOutOfRange { addr, .. }
                | TrapCause::Misaligned { addr, .. }
                | TrapCause::StackOverflow { addr, .. }
                | TrapCause::NextPcOutOfRange { target: addr, .. } => {
                    assert_eq!(
                        rtl.regs[reg_index(host::TRAP_ADDR)],
                        *addr,
                        "{name}: trap address of {trap}"
                    )
                }
                TrapCause::InvalidInstruction { word, .. } => {
                    assert_eq!(
                        rtl.regs[reg_index(host::TRAP_DETAIL)],
                        *word,
                        "{name}: trap detail of {trap}"
                    )
                }
                TrapCause::MissingParam { index, .. } => {
                    assert_eq!(
                        rtl.regs[reg_index(host::TRAP_DETAIL)],
                        *index as u32,
                        "{name}: trap detail of {trap}"
                    )
                }
                _ => {}
            }
        }
    }
    result
}

// ---------------------------------------------------------------- kernels

const ALU: &str = r#"
.param out
.param k
.entry main
        s2r     r1, %tid
        s2r     r2, %laneid
        s2r     r3, %warpid
        add     r4, r1, 100
        sub     r5, r4, r1
        mul     r6, r1, r4
        movi    r7, -5
        mulhi   r8, r7, r6
        mulhiu  r9, r7, r6
        and     r10, r7, r4
        or      r11, r7, r1
        xor     r12, r7, r4
        shl     r13, r4, r1
        shr     r14, r7, r1
        sra     r15, r7, r1
        min     r16, r7, r1
        max     r17, r7, r1
        minu    r18, r7, r1
        maxu    r19, r7, r1
        li      r20, 0x12345678
        movhi   r21, 0xabcd
        setp.lt p1, r7, r1
        setp.geu p2, r7, r1
        setp.eq p3, r1, 2
        sel     r22, p3, r4, r5
        pand    p4, p1, !p3
        por     p5, !p1, p3
        pxor    p6, p1, p3
        vote.any p7, p3
        vote.ballot r23, !p3
        s2r     r24, %ntid.x
        s2r     r25, %nwarps
        s2r     r26, %warpsize
        s2r     r27, %tid.x
        s2r     r28, %tid.y
        s2r     r29, %tid.z
        ldparam r30, k
        @p3 add r31, r1, 1
        @!p3 mul r31, r1, -7
        mul     r4, r4, -3
        add     r5, r5, -2048
        and     r6, r6, 0x7ff
        or      r7, r7, 12
        xor     r8, r8, -1
        shl     r9, r9, 31
        shr     r10, r10, 3
        sra     r11, r11, 2
        setp.ge p1, r1, -1
        setp.gtu p2, r1, 1
        vote.all p3, p2
        @!pt add r12, r12, 1
        nop
        ldparam r13, out
        shl     r14, r1, 2
        add     r13, r13, r14
        st.global [r13], r31
        exit
"#;

const DIVERGE: &str = r#"
.param out
.entry main
        s2r     r1, %tid
        movi    r2, 0
        and     r3, r1, 1
        setp.eq p1, r3, 0
        @p1 bra even
        add     r2, r2, 10
        call    r10, func
        bra     join
even:   add     r2, r2, 20
join:   movi    r4, 0
loop:   setp.ge p2, r4, r1
        @p2 bra endloop
        add     r4, r4, 1
        add     r2, r2, r4
        bra     loop
endloop:
        setp.lt p3, r1, 2
        bra.any p3, c1
        add     r2, r2, 100
c1:     bra.all p3, c2
        add     r2, r2, 200
c2:     bra.none p3, c3
        add     r2, r2, 400
c3:     @p3 bra.all pt, c4
        add     r2, r2, 800
c4:     movi    r5, tgt
        jmp     r5
        add     r2, r2, 999
tgt:    ldparam r6, out
        shl     r7, r1, 2
        add     r6, r6, r7
        st.global [r6], r2
        exit
func:   add     r2, r2, 5
        movi    r12, func2
        setp.lt p4, r1, 3
        @p4 callr r13, r12
        ret     r10
func2:  add     r2, r2, 100
        ret     r13
"#;

const SHARED: &str = r#"
.param out
.shared 4096
.entry main
        s2r     r1, %tid
        shl     r2, r1, 2
        st.shared.b32 [r2], r1
        mul     r3, r1, 32
        add     r4, r1, 77
        st.shared.b32 [r3+1024], r4
        st.shared.b8 [r1+512], r4
        shl     r5, r1, 1
        movi    r6, -300
        sub     r6, r6, r1
        st.shared.b16 [r5+600], r6
        and     r7, r1, 1
        shl     r7, r7, 2
        s2r     r27, %warpid
        shl     r27, r27, 3
        add     r7, r7, r27
        st.shared.b32 [r7+700], r1
        bar.sync
        ld.shared.u8  r8, [r1+512]
        ld.shared.s16 r9, [r5+600]
        ld.shared.u16 r10, [r5+600]
        ld.shared.b32 r11, [r3+1024]
        ld.shared.s8  r12, [r5+601]
        ld.shared.b32 r13, [r7+700]
        s2r     r24, %warpid
        shl     r24, r24, 2
        movi    r25, 3072
        add     r14, r24, r25
        atom.shared.add r15, [r14], r1
        atom.shared.max r16, [r14], r6
        movi    r26, 3588
        add     r17, r2, r26
        atom.shared.exch r18, [r17], r4
        atom.shared.exch r19, [r17], r1
        ld.shared.b32 r20, [r14]
        ldparam r21, out
        shl     r22, r1, 4
        add     r21, r21, r22
        add     r23, r8, r9
        add     r23, r23, r10
        add     r23, r23, r11
        st.global [r21], r23
        add     r23, r12, r13
        st.global [r21+4], r23
        add     r23, r15, r16
        st.global [r21+8], r23
        add     r23, r18, r19
        add     r23, r23, r20
        st.global [r21+12], r23
        exit
"#;

const GLOBAL: &str = r#"
.param out
.param src
.entry main
        s2r     r1, %tid
        ldparam r2, src
        shl     r3, r1, 2
        add     r4, r2, r3
        ld.global r5, [r4]
        mul     r6, r1, 36
        add     r6, r6, r2
        ld.global.u8 r7, [r6+1]
        ld.global.s8 r8, [r6+3]
        ld.global.u16 r9, [r6+2]
        ld.global.s16 r10, [r6+2]
        ldparam r11, out
        add     r12, r11, r3
        add     r13, r5, r7
        st.global [r12], r13
        add     r13, r8, r9
        st.global [r12+256], r13
        add     r24, r11, r1
        st.global.b8 [r24+768], r10
        add     r14, r11, 1024
        add     r14, r14, r1
        add     r14, r14, r1
        st.global.b16 [r14], r10
        s2r     r25, %warpid
        shl     r25, r25, 4
        movi    r27, 2048
        add     r15, r11, r27
        add     r15, r15, r25
        atom.global.add r16, [r15], r1
        add     r26, r15, 4
        atom.global.or r17, [r26], r3
        add     r26, r15, 8
        atom.global.minu r18, [r26], r5
        add     r19, r16, r17
        st.global [r12+512], r19
        exit
"#;

const BARRIER: &str = r#"
.param out
.shared 1024
.entry main
        s2r     r1, %tid
        s2r     r2, %ntid.x
        shl     r3, r1, 2
        mul     r4, r1, 3
        st.shared [r3], r4
        bar.sync
        add     r5, r1, 1
        setp.ge p1, r5, r2
        @p1 movi r5, 0
        shl     r6, r5, 2
        ld.shared r7, [r6]
        bar.sync
        add     r7, r7, 1
        st.shared [r3], r7
        and     r8, r1, 1
        setp.eq p2, r8, 0
        @p2 bar.sync
        @!p2 bar.sync
        ld.shared r9, [r6]
        ldparam r10, out
        add     r10, r10, r3
        st.global [r10], r9
        exit
"#;

const BLOCKS: &str = r#"
.param out
.entry main
        s2r     r1, %ctaid.x
        s2r     r2, %ctaid.y
        s2r     r3, %nctaid.x
        mul     r4, r2, r3
        add     r4, r4, r1
        s2r     r6, %ntid.y
        s2r     r7, %ntid.x
        mul     r5, r6, r7
        mul     r8, r4, r5
        s2r     r9, %tid
        add     r8, r8, r9
        shl     r10, r8, 2
        ldparam r11, out
        add     r11, r11, r10
        s2r     r12, %tid.x
        s2r     r13, %tid.y
        shl     r13, r13, 8
        or      r12, r12, r13
        s2r     r14, %ctaid.z
        add     r12, r12, r14
        st.global [r11], r12
        exit
"#;

fn traps() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "trap-misaligned",
            ".entry main\n s2r r1, %tid\n ldparam r2, 0\n add r2, r2, r1\n ld.global r3, [r2+2]\n exit\n",
        ),
        (
            "trap-range",
            ".entry main\n s2r r1, %tid\n li r2, 0x7ffffff0\n shl r1, r1, 2\n add r2, r2, r1\n st.shared [r2], r1\n exit\n",
        ),
        (
            "trap-invalid",
            ".entry main\n s2r r1, %tid\n setp.eq p1, r1, 1\n @p1 bra bad\n exit\nbad: .word 0xffffffff\n",
        ),
        (
            "trap-pc",
            ".entry main\n s2r r1, %tid\n add r1, r1, 100\n jmp r1\n",
        ),
        (
            "trap-depth",
            ".entry main\nf: call r1, f\n exit\n",
        ),
        (
            "trap-ret",
            ".entry main\n s2r r1, %tid\n setp.eq p1, r1, 2\n movi r2, 4\n @p1 ret r2\n exit\n",
        ),
        (
            "trap-barrier",
            ".entry main\n s2r r1, %tid\n setp.eq p1, r1, 1\n @p1 exit\n bar.sync\n exit\n",
        ),
        (
            "trap-param",
            ".entry main\n s2r r1, %tid\n setp.eq p1, r1, 3\n @p1 ldparam r2, 5\n exit\n",
        ),
        ("trap-fallthrough", ".entry main\n nop\n"),
    ]
}

fn source_words() -> Vec<(u32, u32)> {
    (0..256u32)
        .map(|i| (0x8000 + 4 * i, i.wrapping_mul(0x9e37_79b9) ^ 0x8080_7f01))
        .collect()
}

fn run_suite(config: &CoreConfig, block_xy: [u32; 3], big: [u32; 3]) {
    let mut alu = Case::new("alu", ALU, block_xy);
    alu.params = vec![OUT, 0xdead_beef];
    check(config, &alu).unwrap();
    check(config, &Case::new("diverge", DIVERGE, big)).unwrap();
    check(config, &Case::new("shared", SHARED, big)).unwrap();
    let mut global = Case::new("global", GLOBAL, big);
    global.params = vec![OUT, 0x8000];
    global.mem = source_words();
    check(config, &global).unwrap();
    check(config, &Case::new("barrier", BARRIER, big)).unwrap();
    let mut blocks = Case::new("blocks", BLOCKS, block_xy);
    blocks.grid = [3, 2, 2];
    check(config, &blocks).unwrap();
    for (name, src) in traps() {
        let mut c = Case::new(name, src, big);
        c.params = vec![0x100];
        c.grid = [2, 1, 1];
        assert!(check(config, &c).is_err(), "{name} must trap");
    }
}

#[test]
fn small_core_matches_functional_model() {
    common::require("verilator");
    let config = common::load_config("small.yaml");
    run_suite(&config, [2, 2, 1], [4, 1, 1]);
}

#[test]
fn odd_core_matches_functional_model() {
    common::require("verilator");
    // Non-power-of-two warps and registers, two banks, 8-byte lines,
    // 4 predicates, shallow calls, pc_only arbitration, 1-cycle memory.
    let config = CoreConfig {
        lanes: 4,
        warps: 3,
        registers: 32,
        predicates: 8,
        shared_memory_bytes: 8192,
        shared_banks: 2,
        global_line_bytes: 8,
        call_depth_bits: 2,
        global_latency: 1,
        arbitration: Arbitration::PcOnly,
        ..CoreConfig::default()
    };
    run_suite(&config, [3, 2, 1], [11, 1, 1]);
}

#[test]
fn default_core_matches_functional_model() {
    common::require("verilator");
    let config = common::load_config("default.yaml");
    run_suite(&config, [3, 2, 2], [45, 1, 1]);
}
