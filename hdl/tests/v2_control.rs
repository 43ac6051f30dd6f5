//! The Core v2 control widgets (`concord_hdl::v2::{scheduler, setup,
//! tidwalk}`) in rust-hdl's simulator, each against a reference written
//! here from docs/microarchitecture.md (the scheduler from §6's text, the
//! thread-id walk from §12.3/§12.4's enumeration) or against
//! `concord_uarch::Occupancy` (SETUP, §12.1/§12.2, the §20 unit check);
//! then the generated Verilog: module names without `$` and
//! `verilator --lint-only -Wall` clean.

mod common;

use concord_hdl::v2::scheduler::{Policy, Scheduler};
use concord_hdl::v2::setup::{named_verilog, Setup};
use concord_hdl::v2::tidwalk::TidWalk;
use concord_isa::config::CoreConfig;
use concord_uarch::occupancy::{LaunchError, LaunchShape, Occupancy};
use concord_uarch::timing::SETUP_CYCLES;
use concord_uarch::HwParams;
use rust_hdl_core::prelude::*;

use common::Rng;

fn settle<B: Block>(b: &mut B) {
    assert!(common::settled(b, 500), "the block does not settle");
}

/// Ends the cycle with a rising edge.
fn edge<B: Block>(b: &mut B, clock: impl Fn(&mut B) -> &mut Signal<In, Clock>) {
    clock(b).next = Clock { clk: false };
    settle(b);
    clock(b).next = Clock { clk: true };
    settle(b);
}

// ---- the scheduler (§6) ----

/// §6 as the document states it: priority return slot, init slot, ready
/// warp by the policy, bubble; LRR from `rr`; GTO `last` if ready, else the
/// oldest ready warp by (launch order of its block, `wib`).
struct RefSched {
    w: usize,
    policy: Policy,
    nwarps: usize,
    rr: usize,
    last: Option<usize>,
    launched: Vec<Option<u64>>,
    launches: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Item {
    Ret,
    Init,
    Warp(usize),
    Bubble,
}

impl RefSched {
    fn pick(&self, run: bool, halt: bool, ret: bool, init: bool, ready: u64) -> Item {
        let is_ready = |w: usize| ready >> w & 1 == 1;
        if !run {
            return Item::Bubble;
        }
        if ret {
            return Item::Ret;
        }
        // §15.3: while HALT, S selects only return slots.
        if halt {
            return Item::Bubble;
        }
        if init {
            return Item::Init;
        }
        let w = match self.policy {
            Policy::Lrr => (0..self.w)
                .map(|i| (self.rr + i) % self.w)
                .find(|&w| is_ready(w)),
            Policy::Gto => match self.last {
                Some(l) if is_ready(l) => Some(l),
                _ => (0..self.w).filter(|&w| is_ready(w)).min_by_key(|&w| {
                    let slot = w / self.nwarps;
                    (
                        self.launched[slot].expect("a ready warp's block was launched"),
                        w % self.nwarps,
                    )
                }),
            },
        };
        w.map_or(Item::Bubble, Item::Warp)
    }

    /// The end of the cycle.
    fn commit(&mut self, item: Item, launch: Option<usize>, start: bool) {
        if let Item::Warp(w) = item {
            self.rr = (w + 1) % self.w;
            self.last = Some(w);
        }
        if let Some(k) = launch {
            self.launched[k] = Some(self.launches);
            self.launches += 1;
        }
        if start {
            self.rr = 0;
            self.last = None;
            self.launched.iter_mut().for_each(|l| *l = None);
        }
    }
}

fn sched_run<const W: usize>(policy: Policy, seed: u64, cycles: usize) -> [usize; 4] {
    let mut rng = Rng(seed);
    let slots = 1 + rng.below(W as u64) as usize;
    let mut s = Scheduler::<W>::new(policy, slots);
    s.connect_all();
    s.reset.next = true;
    edge(&mut s, |s| &mut s.clock);
    s.reset.next = false;
    let mut counts = [0usize; 4];
    // A launch shape: nwarps and resident slots (§12.2: slot k owns warps
    // k·nwarps .. (k+1)·nwarps − 1).
    let new_shape = |rng: &mut Rng| {
        let nwarps = 1 + rng.below(W as u64) as usize;
        let resident = 1 + rng.below(slots.min(W / nwarps) as u64) as usize;
        (nwarps, resident)
    };
    let (mut nwarps, mut resident) = new_shape(&mut rng);
    let mut r = RefSched {
        w: W,
        policy,
        nwarps,
        rr: 0,
        last: None,
        launched: vec![None; slots],
        launches: 0,
    };
    let mut prev: Option<(Item, u64)> = None;
    for c in 0..cycles {
        let start = rng.chance(1);
        let launch = if rng.chance(10) {
            Some(rng.below(resident as u64) as usize)
        } else {
            None
        };
        let run = !rng.chance(5);
        let ret = rng.chance(10);
        let init = rng.chance(15);
        let halt = rng.chance(4);
        // Ready warps: a random subset of the warps of launched slots, with
        // the last warp ready more often (the greedy case).
        let mut ready = 0u64;
        for w in 0..resident * nwarps {
            if r.launched[w / nwarps].is_some() && rng.chance(35) {
                ready |= 1 << w;
            }
        }
        if let Some(l) = r.last {
            if rng.chance(30) && r.launched.get(l / nwarps).copied().flatten().is_some() {
                ready |= 1 << l;
            }
        }
        if rng.chance(5) {
            ready = 0;
        }
        s.start.next = start;
        s.run.next = run;
        s.ret_req.next = ret;
        s.init_req.next = init;
        s.halt.next = halt;
        s.ready.next = ready.into();
        for k in 0..slots {
            let m = if k < resident {
                ((1u64 << nwarps) - 1) << (k * nwarps)
            } else {
                0
            };
            s.smask[k].next = m.into();
            s.launch[k].next = launch == Some(k);
        }
        settle(&mut s);
        let want = r.pick(run, halt, ret, init, ready);
        let sel = s.sel.val().index() as u64;
        let got = match (s.ret.val(), s.init.val(), s.warp.val()) {
            (true, false, false) => Item::Ret,
            (false, true, false) => Item::Init,
            (false, false, true) => {
                assert_eq!(sel.count_ones(), 1, "cycle {c}: sel {sel:b} not one-hot");
                Item::Warp(sel.trailing_zeros() as usize)
            }
            (false, false, false) => Item::Bubble,
            k => panic!("cycle {c}: item kinds {k:?}"),
        };
        assert_eq!(
            got, want,
            "{policy:?} W={W} seed {seed} cycle {c}: ready {ready:b}, rr {}, last {:?}, ages {:?}",
            r.rr, r.last, r.launched
        );
        if !matches!(got, Item::Warp(_)) {
            assert_eq!(sel, 0, "cycle {c}: sel without a warp pass");
        }
        // Stage F's registers hold the previous cycle's item.
        if let Some((pi, psel)) = prev {
            assert_eq!(
                (s.f_ret.val(), s.f_init.val(), s.f_warp.val()),
                (
                    pi == Item::Ret,
                    pi == Item::Init,
                    matches!(pi, Item::Warp(_))
                ),
                "cycle {c}: F"
            );
            assert_eq!(s.f_sel.val().index() as u64, psel, "cycle {c}: F sel");
            if let Item::Warp(w) = pi {
                assert_eq!(s.f_idx.val().index(), w);
            }
        }
        counts[match got {
            Item::Ret => 0,
            Item::Init => 1,
            Item::Warp(_) => 2,
            Item::Bubble => 3,
        }] += 1;
        prev = Some((got, sel));
        r.commit(got, launch, start);
        edge(&mut s, |s| &mut s.clock);
        if start {
            // A new launch: a new shape (the slots are free again).
            (nwarps, resident) = new_shape(&mut rng);
            r.nwarps = nwarps;
        }
    }
    counts
}

fn sched_all<const W: usize>() {
    for policy in [Policy::Lrr, Policy::Gto] {
        let mut total = [0usize; 4];
        for seed in 1..=6u64 {
            let c = sched_run::<W>(policy, seed * 7919 + W as u64, 700);
            (0..4).for_each(|i| total[i] += c[i]);
        }
        eprintln!("{policy:?} W={W}: items (ret, init, warp, bubble) {total:?}");
        assert!(
            total.iter().all(|&n| n > 50),
            "{total:?}: every item kind occurs"
        );
    }
}

#[test]
fn scheduler_matches_section_6_w1() {
    sched_all::<1>();
}
#[test]
fn scheduler_matches_section_6_w2() {
    sched_all::<2>();
}
#[test]
fn scheduler_matches_section_6_w4() {
    sched_all::<4>();
}
#[test]
fn scheduler_matches_section_6_w8() {
    sched_all::<8>();
}
#[test]
fn scheduler_matches_section_6_w16() {
    sched_all::<16>();
}

// ---- SETUP (§12.1, §12.2) ----

#[derive(Clone, Copy, Debug, Default)]
struct HostRegs {
    block: [u32; 3],
    grid: [u32; 3],
    shared: u32,
    stack: u32,
    clear_regs: u32,
    clear_shared: u32,
    code_len: u32,
    entry_pc: u32,
    param_count: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SetupOut {
    refused: bool,
    threads: u32,
    nwarps: u32,
    need_rows: u32,
    limit: u32,
    resident: u32,
    window_rows: u32,
    clear_rows: u32,
    clear_regs: u32,
}

struct SetupDut {
    s: Setup,
}

impl SetupDut {
    fn new(hw: &HwParams) -> SetupDut {
        let mut s = Setup::new(hw);
        s.connect_all();
        s.reset.next = true;
        edge(&mut s, |s| &mut s.clock);
        s.reset.next = false;
        SetupDut { s }
    }

    /// `START` in one cycle with `regs`, then SETUP: checks `busy` and
    /// `done` cycle by cycle and returns the outputs in the cycle of `done`.
    fn run(&mut self, regs: &HostRegs) -> SetupOut {
        let s = &mut self.s;
        let v = |x: u32| Bits::<32>::from(x as u64);
        s.block_x.next = v(regs.block[0]);
        s.block_y.next = v(regs.block[1]);
        s.block_z.next = v(regs.block[2]);
        s.grid_x.next = v(regs.grid[0]);
        s.grid_y.next = v(regs.grid[1]);
        s.grid_z.next = v(regs.grid[2]);
        s.shared_bytes.next = v(regs.shared);
        s.stack_bytes.next = v(regs.stack);
        s.clear_regs_in.next = v(regs.clear_regs);
        s.clear_shared.next = v(regs.clear_shared);
        s.code_len.next = v(regs.code_len);
        s.entry_pc.next = v(regs.entry_pc);
        s.param_count.next = v(regs.param_count);
        s.start.next = true;
        settle(s);
        edge(s, |s| &mut s.clock);
        s.start.next = false;
        for cycle in 1..=SETUP_CYCLES {
            settle(s);
            assert!(s.busy.val(), "SETUP cycle {cycle}: busy");
            assert_eq!(
                s.done.val(),
                cycle == SETUP_CYCLES,
                "SETUP cycle {cycle}: done"
            );
            if cycle == SETUP_CYCLES {
                break;
            }
            edge(s, |s| &mut s.clock);
        }
        let out = SetupOut {
            refused: s.refused.val(),
            threads: s.threads.val().index() as u32,
            nwarps: s.nwarps.val().index() as u32,
            need_rows: s.need_rows.val().index() as u32,
            limit: s.limit.val().index() as u32,
            resident: s.resident.val().index() as u32,
            window_rows: s.window_rows.val().index() as u32,
            clear_rows: s.clear_rows.val().index() as u32,
            clear_regs: s.clear_regs.val().index() as u32,
        };
        edge(s, |s| &mut s.clock);
        settle(s);
        assert!(!s.busy.val() && !s.done.val(), "SETUP lasts 8 cycles");
        out
    }
}

/// Checks one launch against `Occupancy` (and, for `need_rows` and
/// `limit`, which `Occupancy` does not return, against §12.1/§12.2's
/// formulas written here).
fn check_setup(hw: &HwParams, dut: &mut SetupDut, regs: &HostRegs) -> bool {
    let out = dut.run(regs);
    let shape = LaunchShape {
        block: regs.block,
        grid: regs.grid,
        shared_bytes: regs.shared,
        stack_bytes: regs.stack,
        clear_regs: regs.clear_regs,
        clear_shared: regs.clear_shared,
    };
    let other_refusal = regs.code_len == 0
        || regs.code_len as usize > hw.imem_words
        || regs.entry_pc >= 65536
        || regs.param_count > 16;
    let ctx = format!("{regs:?} on L={} W={}: {out:?}", hw.lanes, hw.warps);
    match Occupancy::new(hw, &shape) {
        Err(e) => {
            assert!(out.refused, "{ctx}: refused ({e})");
            if let LaunchError::Threads { threads, .. } = e {
                assert_eq!(out.threads, threads, "{ctx}");
            }
            false
        }
        Ok(o) => {
            assert_eq!(out.refused, other_refusal, "{ctx}");
            let row_bytes = 4 * hw.shared_banks as u32;
            let need_rows = regs.shared.div_ceil(row_bytes);
            let mut limit = (hw.block_slots as u32).min(hw.warps as u32 / o.nwarps);
            if regs.stack > 0 {
                limit = 1;
            }
            let want = SetupOut {
                refused: other_refusal,
                threads: o.threads,
                nwarps: o.nwarps,
                need_rows,
                limit,
                resident: o.resident,
                window_rows: o.window_rows,
                clear_rows: o.clear_rows,
                clear_regs: o.clear_regs,
            };
            assert_eq!(out, want, "{ctx}");
            true
        }
    }
}

fn small_config(lanes: u32, warps: u32, slots: u32, shared: u32, banks: u32) -> HwParams {
    HwParams::new(&CoreConfig {
        lanes,
        warps,
        max_resident_blocks: slots,
        shared_memory_bytes: shared,
        shared_banks: banks,
        registers: 16,
        imem_words: 1024,
        ..CoreConfig::default()
    })
    .unwrap()
}

fn base_regs() -> HostRegs {
    HostRegs {
        block: [1, 1, 1],
        grid: [1, 1, 1],
        code_len: 10,
        param_count: 2,
        ..HostRegs::default()
    }
}

/// Every block shape with `BLOCK_X · BLOCK_Y · BLOCK_Z ≤ L·W + 1` (and
/// dimensions 0), with and without a stack, and with shared sizes at every
/// row boundary for every thread count, on L = 4, W = 4 and 8.
#[test]
fn setup_matches_occupancy_for_all_block_shapes() {
    for (l, w, bs) in [(4, 4, 4), (4, 8, 4), (4, 8, 3), (4, 8, 8)] {
        // 1 KiB in 4 banks: ROWS = 64, rows of 16 bytes.
        let hw = small_config(l, w, bs, 1024, 4);
        let mut dut = SetupDut::new(&hw);
        let lw = l * w;
        let (mut ok, mut refused) = (0, 0);
        let mut count = |accepted: bool| {
            if accepted {
                ok += 1
            } else {
                refused += 1
            }
        };
        for bx in 0..=lw + 1 {
            for by in 0..=lw + 1 {
                for bz in 0..=lw + 1 {
                    let p = bx * by * bz;
                    let edge_dim = bx == 0 || by == 0 || bz == 0;
                    if p > lw + 1 || (edge_dim && (bx + by + bz) % 5 != 0) {
                        continue;
                    }
                    for stack in [0, 16] {
                        let regs = HostRegs {
                            block: [bx, by, bz],
                            stack,
                            shared: 100,
                            clear_shared: 40,
                            clear_regs: 5,
                            ..base_regs()
                        };
                        count(check_setup(&hw, &mut dut, &regs));
                    }
                }
            }
        }
        let rows = hw.shared_rows as u32;
        let rb = 4 * hw.shared_banks as u32;
        for t in 1..=lw {
            for rows_needed in 0..=rows + 1 {
                for shared in [rows_needed * rb, (rows_needed * rb).saturating_sub(1)] {
                    let regs = HostRegs {
                        block: [t, 1, 1],
                        shared,
                        // Small and large clears (clamped to the window).
                        clear_shared: (rows + 1) * rb - shared,
                        clear_regs: rows_needed % 20,
                        ..base_regs()
                    };
                    count(check_setup(&hw, &mut dut, &regs));
                }
            }
        }
        eprintln!("L={l} W={w} BS={bs}: {ok} accepted, {refused} refused launches checked");
        assert!(ok > 1000 && refused > 100);
    }
}

/// Large and odd register values: saturation of `threads` at 2^16 (a
/// dimension ≥ 2^16, a first product ≥ 2^16), dimensions 0, and the other
/// refusal rules (grid, `CODE_LEN`, `ENTRY_PC`, `PARAM_COUNT`), on the
/// default core (8×8, 4 slots, 16 KiB in 8 banks).
#[test]
fn setup_refusals_and_saturation() {
    let hw = HwParams::new(&CoreConfig::default()).unwrap();
    let mut dut = SetupDut::new(&hw);
    let mut rng = Rng(0x5e7);
    let pick = |rng: &mut Rng, small: u32| -> u32 {
        match rng.below(8) {
            0 => 0,
            1 => rng.next() as u32,
            2 => 1 << rng.below(32),
            3 => 65536 + rng.below(3) as u32 - 1,
            4 => 255 + rng.below(3) as u32,
            _ => 1 + rng.below(small as u64) as u32,
        }
    };
    let (mut ok, mut refused) = (0, 0);
    for _ in 0..1500 {
        let regs = HostRegs {
            block: [pick(&mut rng, 8), pick(&mut rng, 4), pick(&mut rng, 2)],
            grid: [pick(&mut rng, 9), pick(&mut rng, 9), pick(&mut rng, 9)],
            shared: pick(&mut rng, 20000),
            stack: if rng.chance(30) {
                pick(&mut rng, 256)
            } else {
                0
            },
            clear_regs: pick(&mut rng, 40),
            clear_shared: pick(&mut rng, 20000),
            code_len: pick(&mut rng, 5000),
            entry_pc: pick(&mut rng, 70000),
            param_count: pick(&mut rng, 20),
        };
        if check_setup(&hw, &mut dut, &regs) {
            ok += 1;
        } else {
            refused += 1;
        }
    }
    // Saturation: the product of the dimensions above 2^16.
    for block in [[65536, 1, 1], [256, 256, 1], [300, 300, 300], [1, 70000, 0]] {
        let regs = HostRegs {
            block,
            ..base_regs()
        };
        check_setup(&hw, &mut dut, &regs);
    }
    // Each refusal rule alone, at and around its limit (powers of two of
    // the limit, and the extremes), everything else valid.
    let near = |t: u32| {
        let mut v = vec![0, 1, u32::MAX, 1 << 31];
        for m in [t, 2 * t, 4 * t] {
            v.extend([m - 1, m, m + 1]);
        }
        v
    };
    let regs = |f: &dyn Fn(&mut HostRegs)| {
        let mut r = HostRegs {
            block: [8, 2, 1],
            shared: 4000,
            ..base_regs()
        };
        f(&mut r);
        r
    };
    for v in near(hw.imem_words as u32) {
        check_setup(&hw, &mut dut, &regs(&|r| r.code_len = v));
    }
    for v in near(65536) {
        check_setup(&hw, &mut dut, &regs(&|r| r.entry_pc = v));
    }
    for v in near(16) {
        check_setup(&hw, &mut dut, &regs(&|r| r.param_count = v));
    }
    for v in near(hw.shared_bytes) {
        check_setup(&hw, &mut dut, &regs(&|r| r.shared = v));
        check_setup(&hw, &mut dut, &regs(&|r| r.clear_shared = v));
    }
    for v in near(hw.registers as u32) {
        check_setup(&hw, &mut dut, &regs(&|r| r.clear_regs = v));
    }
    for g in 0..3 {
        for v in near(1) {
            check_setup(&hw, &mut dut, &regs(&|r| r.grid[g] = v));
        }
    }
    eprintln!("{ok} accepted, {refused} refused");
    assert!(ok > 20 && refused > 500);
}

// ---- the thread-id walk (§12.3, §12.4) ----

/// One write of the walk: (lane, warp, x, y, z).
type TidWrite = (usize, usize, u64, u64, u64);

fn walk_run<const L: usize, const K: usize>(seed: u64, runs: usize) {
    let lw = 1usize << K;
    let mut rng = Rng(seed);
    let mut s = TidWalk::<L, K>::default();
    s.connect_all();
    s.reset.next = true;
    edge(&mut s, |s| &mut s.clock);
    s.reset.next = false;
    for run in 0..runs {
        // A block shape with 1..=2^K threads; first the full block along
        // each axis (the compares then wrap modulo 2^K).
        let (bx, by, bz) = match run {
            0 => (lw, 1, 1),
            1 => (1, lw, 1),
            2 => (1, 1, lw),
            _ => loop {
                let bx = 1 + rng.below(lw as u64) as usize;
                let by = 1 + rng.below((lw / bx) as u64) as usize;
                let bz = 1 + rng.below((lw / (bx * by)) as u64) as usize;
                if rng.chance(50) || bx * by * bz > lw / 2 {
                    break (bx, by, bz);
                }
            },
        };
        let threads = bx * by * bz;
        let nwarps = threads.div_ceil(L);
        let base = rng.below((16 / nwarps.max(1)) as u64) as usize * nwarps;
        let base = base.min(16 - nwarps);
        // The hand enumeration: thread t = x + BLOCK_X·(y + BLOCK_Y·z).
        let want: Vec<TidWrite> = (0..threads)
            .map(|t| {
                (
                    t % L,
                    base + t / L,
                    (t % bx) as u64,
                    (t / bx % by) as u64,
                    (t / (bx * by)) as u64,
                )
            })
            .collect();
        let m = (1u64 << K) - 1;
        s.threads.next = (threads as u64 & m).into();
        s.block_x.next = (bx as u64 & m).into();
        s.block_y.next = (by as u64 & m).into();
        s.base.next = (base as u64).into();
        s.go.next = true;
        settle(&mut s);
        assert!(!s.we.val(), "run {run}: no write in the launch cycle");
        edge(&mut s, |s| &mut s.clock);
        s.go.next = false;
        let mut got: Vec<TidWrite> = Vec::new();
        // Cycle l + 1 + t writes thread t; then nothing.
        for t in 0..threads + 3 {
            settle(&mut s);
            assert_eq!(s.we.val(), t < threads, "run {run}: write in cycle l+1+{t}");
            assert_eq!(s.last.val(), t + 1 == threads, "run {run}: last at {t}");
            if s.we.val() {
                let lane = s.lane.val().index() as u64;
                assert_eq!(lane.count_ones(), 1, "lane one-hot");
                got.push((
                    lane.trailing_zeros() as usize,
                    s.warp.val().index(),
                    s.x.val().index() as u64,
                    s.y.val().index() as u64,
                    s.z.val().index() as u64,
                ));
            }
            edge(&mut s, |s| &mut s.clock);
        }
        assert_eq!(got, want, "run {run}: block {bx}x{by}x{bz}, base {base}");
    }
}

#[test]
fn tid_walk_writes_the_enumeration() {
    // L = 4: W = 4 (K = 4), W = 8 (K = 5); L = 8, W = 8 (K = 6); L = 32,
    // W = 16 (K = 9).
    walk_run::<4, 4>(11, 60);
    walk_run::<4, 5>(12, 60);
    walk_run::<8, 6>(13, 60);
    walk_run::<32, 9>(14, 12);
}

// ---- Verilog ----

fn lint(v: &str, top: &str, tag: &str) {
    common::assert_module_names(v, top);
    common::verilator_lint(v, &format!("v2-control-{tag}"), &format!("{top}.v"), tag);
}

fn conn<B: Block>(mut b: B, top: &str) -> String {
    b.connect_all();
    named_verilog(&b, top)
}

#[test]
fn verilog_lint_of_the_control_widgets() {
    let top = "concord_v2_scheduler";
    lint(
        &conn(Scheduler::<8>::new(Policy::Lrr, 4), top),
        top,
        "sched-lrr-8",
    );
    lint(
        &conn(Scheduler::<8>::new(Policy::Gto, 4), top),
        top,
        "sched-gto-8",
    );
    lint(
        &conn(Scheduler::<1>::new(Policy::Gto, 1), top),
        top,
        "sched-gto-1",
    );
    lint(
        &conn(Scheduler::<16>::new(Policy::Gto, 16), top),
        top,
        "sched-gto-16",
    );
    let top = "concord_v2_setup";
    let default = HwParams::new(&CoreConfig::default()).unwrap();
    lint(&conn(Setup::new(&default), top), top, "setup-default");
    lint(
        &conn(Setup::new(&small_config(4, 8, 3, 1024, 4)), top),
        top,
        "setup-small",
    );
    let top = "concord_v2_tidwalk";
    lint(&conn(TidWalk::<8, 6>::default(), top), top, "tidwalk-8x8");
    lint(&conn(TidWalk::<4, 5>::default(), top), top, "tidwalk-4x8");
    lint(
        &conn(TidWalk::<32, 9>::default(), top),
        top,
        "tidwalk-32x16",
    );
}
