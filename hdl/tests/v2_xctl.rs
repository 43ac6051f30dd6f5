//! The per-lane part of Core v2 stage X (`concord_hdl::v2::xctl::XLane`)
//! in rust-hdl's simulator, against a reference computed here with the
//! ISA's own rules, never with the code under test:
//! `concord_isa::simt::control_effects` (next PC, depth, exits, waits,
//! call-depth and return checks, next-PC check), `simt::advance` (join),
//! `simt::arb_key` and `simt::memory_key` (keys), `checks::check_access`
//! (misaligned, out of range), `checks::check_fall_through` and
//! `simt::store_merge` (byte lanes); random warps of every class on three
//! configurations, then the hand-worked cases of §8 (a `call` at the
//! maximal depth, a `ret` at depth 0, a jump to `code_len`, the join of a
//! lane at `gpc + 1`). Then the Verilog: module names without `$`,
//! `verilator --lint-only -Wall` clean.
//!
//! ```sh
//! cargo test --release -p concord-hdl --test v2_xctl
//! ```

mod common;

use concord_hdl::v2::setup::named_verilog;
use concord_hdl::v2::xctl::*;
use concord_isa::checks::{check_access, check_fall_through, Stacks};
use concord_isa::config::Arbitration;
use concord_isa::func::TrapCause;
use concord_isa::instr::{Consensus, Op, Pred, PredSrc, Reg, Space, StoreWidth, MAX_LANES};
use concord_isa::semantics::consensus_taken;
use concord_isa::simt::{self, ControlIssue, Group};
use rust_hdl_core::prelude::*;

use common::Rng;

const LANES: usize = 8;

/// The generator constants of one configuration.
#[derive(Clone, Copy, Debug)]
struct Cfg {
    depth_pc: bool,
    line_bytes: u32,
    banks: u32,
    global_bytes: u32,
}

impl Cfg {
    fn policy(&self) -> Arbitration {
        if self.depth_pc {
            Arbitration::DepthPc
        } else {
            Arbitration::PcOnly
        }
    }
}

fn settle<B: Block>(b: &mut B) {
    assert!(common::settled(b, 500), "XLane does not settle");
}

/// The class of a random pass.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Class {
    Ctl(usize),
    Alu,
    /// A memory access: space, width in bytes, load/store (tree) or atomic.
    Mem(Space, u32, bool),
}

/// One warp's inputs at X.
#[derive(Clone, Debug)]
struct Warp {
    class: Class,
    cons: Consensus,
    pred: u32,
    target: u32,
    gpc: u32,
    gdepth: u32,
    code_len: u32,
    window: u32,
    active: u32,
    exec: u32,
    alive: u32,
    waiting: u32,
    spc: [u32; MAX_LANES],
    depth: [u32; MAX_LANES],
    a: [u32; MAX_LANES],
    addr: [u32; MAX_LANES],
    sdata: [u32; MAX_LANES],
}

/// What the block registers for A, one lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
struct Out {
    npc: u32,
    ndepth: u32,
    key: u64,
    kvalid: bool,
    join: bool,
    ovf: bool,
    ret0: bool,
    npc_bad: bool,
    mis: bool,
    oob: bool,
    sd: u32,
    be: u32,
}

fn op_of(ctl: usize, w: &Warp) -> Op {
    let r1 = Reg::new(1).unwrap();
    let r2 = Reg::new(2).unwrap();
    match ctl {
        CTL_BRA => Op::Bra { target: w.target },
        CTL_CONS => Op::BraCons {
            kind: w.cons,
            p: PredSrc::new(Pred::new(1).unwrap(), false),
            target: w.target,
        },
        CTL_JMP => Op::Jmp { rs: r1 },
        CTL_CALL => Op::Call {
            rd: r2,
            target: w.target,
        },
        CTL_CALLR => Op::CallR { rd: r2, rs: r1 },
        CTL_RET => Op::Ret { rs: r1 },
        CTL_BAR => Op::Bar,
        CTL_EXIT => Op::Exit,
        _ => unreachable!(),
    }
}

fn taken_of(w: &Warp) -> bool {
    matches!(w.class, Class::Ctl(CTL_CONS)) && consensus_taken(w.cons, w.exec, w.pred)
}

/// Drives lane `l` of `w` and returns what the block registered.
fn drive<const PCB: usize, const DB: usize, const K: usize>(
    x: &mut XLane<PCB, DB, K>,
    w: &Warp,
    l: usize,
) -> Out {
    let bit = |m: u32| m >> l & 1 == 1;
    let (ctl, msp, mtree, mw) = match w.class {
        Class::Ctl(c) => (1u64 << c, 0u64, false, 0u64),
        Class::Alu => (0, 0, false, 0),
        Class::Mem(space, n, tree) => (
            0,
            match space {
                Space::Global => 1 << MSP_GLOBAL,
                Space::Shared => 1 << MSP_SHARED,
            },
            tree,
            match n {
                1 => 1,
                2 => 2,
                _ => 4,
            },
        ),
    };
    x.ctl.next = ctl.into();
    x.taken.next = taken_of(w);
    x.target.next = (w.target as u64).into();
    x.gpc.next = (w.gpc as u64).into();
    x.gdepth.next = (w.gdepth as u64).into();
    x.code_len.next = (w.code_len as u64).into();
    x.msp.next = msp.into();
    x.mtree.next = mtree;
    x.mw.next = mw.into();
    x.window.next = (w.window as u64).into();
    x.active.next = bit(w.active);
    x.exec.next = bit(w.exec);
    x.alive.next = bit(w.alive);
    x.waiting.next = bit(w.waiting);
    x.spc.next = (w.spc[l] as u64).into();
    x.depth.next = (w.depth[l] as u64).into();
    x.a.next = (w.a[l] as u64).into();
    x.addr.next = (w.addr[l] as u64).into();
    x.sdata.next = (w.sdata[l] as u64).into();
    settle(x);
    x.clock.next = Clock { clk: false };
    settle(x);
    x.clock.next = Clock { clk: true };
    settle(x);
    Out {
        npc: x.npc.val().index() as u32,
        ndepth: x.ndepth.val().index() as u32,
        key: x.key.val().index() as u64,
        kvalid: x.kvalid.val(),
        join: x.joins.val(),
        ovf: x.f_ovf.val(),
        ret0: x.f_ret0.val(),
        npc_bad: x.f_npc.val(),
        mis: x.f_mis.val(),
        oob: x.f_oob.val(),
        sd: x.sd.val().index() as u32,
        be: x.be.val().index() as u32,
    }
}

/// The mask a failed check names, or 0.
fn failing(r: Result<(), (u32, TrapCause)>) -> u32 {
    r.err().map_or(0, |(m, _)| m)
}

/// The reference for every lane of `w`, from `concord_isa` (the fields
/// that a class leaves unused are `None`).
struct Want {
    npc: [u32; MAX_LANES],
    /// `None` where the depth check fails (the pass traps; the depths
    /// are not defined by the ISA).
    ndepth: Option<[u32; MAX_LANES]>,
    key: Option<[u64; MAX_LANES]>,
    kvalid: u32,
    join: Option<u32>,
    ovf: u32,
    ret0: u32,
    npc_bad: u32,
    mis: u32,
    oob: u32,
    /// `bra`, `jmp`, `call`, `callr`, `ret` passing every check.
    divergent: Option<bool>,
}

fn reference(cfg: &Cfg, pcb: usize, db: usize, k: usize, w: &Warp) -> Want {
    let max_depth = (1u32 << db) - 1;
    let kmask = if k == 64 { u64::MAX } else { (1u64 << k) - 1 };
    // The spec's packing (§9.1) of the ISA's key: the ISA puts the
    // inverted depth above bit 32, the hardware above `pc_bits`.
    let pack = |key: u64| (key >> 32) << pcb | (key & 0xffff_ffff);
    let group = Group {
        mask: w.active,
        pc: w.gpc,
        depth: w.gdepth,
    };
    let stored_or = |npc: &[u32; MAX_LANES]| {
        let mut pcs = w.spc;
        for l in 0..LANES {
            if w.active >> l & 1 == 1 {
                pcs[l] = npc[l];
            }
        }
        pcs
    };
    match w.class {
        Class::Ctl(c) => {
            let op = op_of(c, w);
            let issue = ControlIssue {
                op,
                pc: w.gpc,
                active: w.active,
                exec: w.exec,
                operand: &w.a,
                pred: w.pred,
                depths: &w.depth,
                max_depth,
                code_len: w.code_len,
            };
            // The checks one at a time: the depth checks with the real
            // depths and no next-PC limit; the next PCs with depths that
            // pass any depth check (next PCs do not depend on depths).
            let free = ControlIssue {
                code_len: u32::MAX,
                ..issue
            };
            let ones = [1u32; MAX_LANES];
            let pcs_only = ControlIssue {
                depths: &ones,
                max_depth: 3,
                ..issue
            };
            let (ovf, ret0, effects) = match simt::control_effects(&free) {
                Ok(e) => (0, 0, Some(e)),
                Err((m, TrapCause::CallDepthOverflow { .. })) => (m, 0, None),
                Err((m, TrapCause::ReturnAtDepthZero)) => (0, m, None),
                Err(e) => panic!("unexpected {e:?}"),
            };
            let npc_bad = match simt::control_effects(&pcs_only) {
                Ok(_) => 0,
                Err((m, TrapCause::NextPcOutOfRange { .. })) => m,
                Err(e) => panic!("unexpected {e:?}"),
            };
            let moves = simt::control_effects(&ControlIssue {
                code_len: u32::MAX,
                ..pcs_only
            })
            .expect("no check can fail");
            // The first failing check of the real issue is the first
            // nonzero of the separate ones, in the §13.1 order.
            let real = simt::control_effects(&issue).err().map(|(m, _)| m);
            let first = [ovf, ret0, npc_bad].into_iter().find(|&m| m != 0);
            assert_eq!(real, first, "check order");
            let npc = moves.next_pc;
            let pcs = stored_or(&npc);
            let ndepth = effects.map(|e| e.depth);
            let key = ndepth.map(|d| {
                std::array::from_fn(|l| {
                    if l < LANES {
                        pack(simt::arb_key(cfg.policy(), max_depth, d[l], pcs[l])) & kmask
                    } else {
                        0
                    }
                })
            });
            let kvalid = w.alive & !moves.exits & !(w.waiting | moves.waits);
            let per_lane = [CTL_BRA, CTL_JMP, CTL_CALL, CTL_CALLR, CTL_RET].contains(&c);
            let divergent = match simt::control_effects(&issue) {
                Ok(e) if per_lane => Some(e.divergent),
                _ => None,
            };
            Want {
                divergent,
                npc: pcs,
                ndepth,
                key,
                kvalid,
                join: None,
                ovf,
                ret0,
                npc_bad,
                mis: 0,
                oob: 0,
            }
        }
        Class::Alu | Class::Mem(..) => {
            let npc = stored_or(&[w.gpc + 1; MAX_LANES]);
            let sched = w.alive & !w.waiting;
            let join =
                simt::advance(&group, &w.spc, &w.depth, sched, cfg.policy()).mask & !w.active;
            let npc_bad = failing(check_fall_through(w.code_len, w.gpc, w.active));
            let (mut mis, mut oob, mut key, mut kvalid) = (0, 0, None, 0);
            if let Class::Mem(space, n, tree) = w.class {
                let size = match space {
                    Space::Global => cfg.global_bytes,
                    Space::Shared => w.window,
                };
                let none = Stacks::default();
                mis = match check_access(space, size, &w.addr, w.exec, n, &none, 0) {
                    Err((m, TrapCause::Misaligned { .. })) => m,
                    _ => 0,
                };
                oob = failing(check_access(
                    space,
                    size,
                    &w.addr,
                    w.exec & !mis,
                    n,
                    &none,
                    0,
                ));
                if tree {
                    key = Some(std::array::from_fn(|l| {
                        simt::memory_key(space, w.addr[l], cfg.line_bytes, cfg.banks) & kmask
                    }));
                    kvalid = w.exec;
                }
            }
            Want {
                npc,
                ndepth: Some(w.depth),
                key,
                kvalid,
                join: Some(join),
                ovf: 0,
                ret0: 0,
                npc_bad,
                mis,
                oob,
                divergent: None,
            }
        }
    }
}

/// The bytes a one-lane store writes (`simt::store_merge`), as the
/// word's byte enables and data, or `None` if the address is misaligned.
fn store_bytes(addr: u32, data: u32, n: u32) -> Option<(u32, u32)> {
    if addr % n != 0 {
        return None;
    }
    let width = match n {
        1 => StoreWidth::B8,
        2 => StoreWidth::B16,
        _ => StoreWidth::B32,
    };
    let mut addrs = [0u32; MAX_LANES];
    let mut datas = [0u32; MAX_LANES];
    addrs[0] = addr;
    datas[0] = data;
    let (mut be, mut sd) = (0u32, 0u32);
    simt::store_merge(1, &addrs, &datas, width, |a, b| {
        be |= 1 << (a & 3);
        sd |= (b as u32) << (8 * (a & 3));
    });
    Some((be, sd))
}

fn check_warp<const PCB: usize, const DB: usize, const K: usize>(
    x: &mut XLane<PCB, DB, K>,
    cfg: &Cfg,
    w: &Warp,
    tag: &str,
) -> Option<bool> {
    let want = reference(cfg, PCB, DB, K, w);
    let mut outs = [Out::default(); LANES];
    for l in 0..LANES {
        let got = drive(x, w, l);
        outs[l] = got;
        let bit = |m: u32| m >> l & 1 == 1;
        let ctx = || format!("{tag}: lane {l}, {w:x?}");
        assert_eq!(got.npc, want.npc[l], "npc, {}", ctx());
        if let Some(d) = want.ndepth {
            assert_eq!(got.ndepth, d[l], "ndepth, {}", ctx());
        }
        assert_eq!(got.kvalid, bit(want.kvalid), "kvalid, {}", ctx());
        if let Some(key) = want.key {
            assert_eq!(got.key, key[l], "key, {}", ctx());
        }
        if let Some(j) = want.join {
            assert_eq!(got.join, bit(j), "join, {}", ctx());
        }
        assert_eq!(got.ovf, bit(want.ovf), "f_ovf, {}", ctx());
        assert_eq!(got.ret0, bit(want.ret0), "f_ret0, {}", ctx());
        assert_eq!(got.npc_bad, bit(want.npc_bad), "f_npc, {}", ctx());
        assert_eq!(got.mis, bit(want.mis), "f_mis, {}", ctx());
        assert_eq!(got.oob, bit(want.oob), "f_oob, {}", ctx());
        if let Class::Mem(_, n, _) = w.class {
            if let Some((be, sd)) = store_bytes(w.addr[l], w.sdata[l], n) {
                assert_eq!(got.be, be, "be, {}", ctx());
                let bytes = (0..4)
                    .filter(|j| be >> j & 1 == 1)
                    .fold(0u32, |m, j| m | 0xff << (8 * j));
                assert_eq!(got.sd & bytes, sd, "sd, {}", ctx());
            }
        }
    }
    if let Some(divergent) = want.divergent {
        // The warp-level compare, fed with what the lanes registered.
        let mut d = XDiverge::<LANES, PCB, DB>::default();
        d.connect_all();
        d.active.next = (w.active as u64).into();
        for (l, o) in outs.iter().enumerate() {
            d.npc[l].next = (o.npc as u64 & ((1 << PCB) - 1)).into();
            d.ndepth[l].next = (o.ndepth as u64).into();
        }
        settle(&mut d);
        assert_eq!(d.divergent.val(), divergent, "divergent, {tag}: {w:x?}");
    }
    want.divergent
}

/// A random warp whose values hit the edges often: depths at 0 and `MAXD`,
/// targets and register values at and around `code_len`, stored PCs at
/// `gpc + 1`, addresses at the end of the space.
fn random_warp(rng: &mut Rng, cfg: &Cfg, pcb: usize, db: usize) -> Warp {
    let pcs = 1u32 << pcb;
    let max_depth = (1u32 << db) - 1;
    let code_len = match rng.below(4) {
        0 => pcs,
        1 => 1 + rng.below(pcs as u64) as u32,
        _ => (pcs / 2).max(1) + rng.below((pcs / 2) as u64) as u32,
    };
    let gpc = match rng.below(4) {
        0 => code_len - 1,
        _ => rng.below(code_len as u64) as u32,
    };
    let near = |rng: &mut Rng, v: u32| v.wrapping_add(rng.below(5) as u32).wrapping_sub(2);
    let pc_val = |rng: &mut Rng| match rng.below(4) {
        0 => near(rng, code_len),
        1 => near(rng, gpc + 1),
        _ => rng.below(pcs as u64) as u32,
    } & (pcs - 1);
    let depth_val = |rng: &mut Rng| match rng.below(4) {
        0 => 0,
        1 => max_depth,
        _ => rng.below(max_depth as u64 + 1) as u32,
    };
    let gdepth = depth_val(rng);
    let class = match rng.below(6) {
        0 | 1 => Class::Ctl(rng.below(8) as usize),
        2 => Class::Alu,
        _ => Class::Mem(
            if rng.chance(50) {
                Space::Global
            } else {
                Space::Shared
            },
            1 << rng.below(3),
            !rng.chance(25),
        ),
    };
    let window = match rng.below(3) {
        0 => 0,
        _ => 4 * (1 + rng.below(4096) as u32),
    };
    let alive = rng.word() & 0xff | if rng.chance(50) { 0xff } else { 0 };
    let waiting = if rng.chance(30) {
        rng.word() & alive & 0xff
    } else {
        0
    };
    let active = if rng.chance(10) {
        0
    } else {
        rng.word() & alive & !waiting & 0xff
    };
    let exec = if rng.chance(40) {
        active
    } else {
        active & rng.word()
    };
    let size_of = |space: Space| match space {
        Space::Global => cfg.global_bytes,
        Space::Shared => window,
    };
    let mut w = Warp {
        class,
        cons: [Consensus::None, Consensus::Any, Consensus::All][rng.below(3) as usize],
        pred: rng.word(),
        target: pc_val(rng),
        gpc,
        gdepth,
        code_len,
        window,
        active,
        exec,
        alive,
        waiting,
        spc: [0; MAX_LANES],
        depth: [0; MAX_LANES],
        a: [0; MAX_LANES],
        addr: [0; MAX_LANES],
        sdata: [0; MAX_LANES],
    };
    let uniform_depth = rng.chance(50);
    for l in 0..LANES {
        w.spc[l] = if rng.chance(40) {
            (gpc + 1) & (pcs - 1)
        } else {
            pc_val(rng)
        };
        w.depth[l] = if uniform_depth || rng.chance(30) {
            gdepth
        } else {
            depth_val(rng)
        };
        w.a[l] = match rng.below(5) {
            0 => rng.word(),
            1 => near(rng, code_len),
            _ => pc_val(rng),
        };
        w.addr[l] = match class {
            Class::Mem(space, n, _) => {
                let size = size_of(space);
                match rng.below(5) {
                    0 => rng.word(),
                    1 => near(rng, size.wrapping_sub(n)),
                    2 => rng.word() % size.max(1) / n * n + rng.below(2) as u32,
                    _ => rng.word() % size.max(1) / n * n,
                }
            }
            _ => rng.word(),
        };
        w.sdata[l] = rng.word();
    }
    w
}

fn random_run<const PCB: usize, const DB: usize, const K: usize>(
    cfg: Cfg,
    seed: u64,
    warps: usize,
) {
    let mut x = XLane::<PCB, DB, K>::new(
        cfg.depth_pc,
        cfg.line_bytes.trailing_zeros(),
        2 + cfg.banks.trailing_zeros(),
        cfg.global_bytes,
    );
    x.connect_all();
    let mut rng = Rng(seed);
    let mut classes = [0usize; 3];
    let mut divergent = [0usize; 2];
    for i in 0..warps {
        let w = random_warp(&mut rng, &cfg, PCB, DB);
        classes[match w.class {
            Class::Ctl(_) => 0,
            Class::Alu => 1,
            Class::Mem(..) => 2,
        }] += 1;
        if let Some(d) = check_warp(&mut x, &cfg, &w, &format!("{cfg:?} warp {i}")) {
            divergent[d as usize] += 1;
        }
    }
    assert!(classes.iter().all(|&c| c > warps / 10), "{classes:?}");
    assert!(
        divergent.iter().all(|&c| c > 20),
        "divergent no/yes {divergent:?}"
    );
}

const DEFAULT: Cfg = Cfg {
    depth_pc: true,
    line_bytes: 32,
    banks: 8,
    global_bytes: 1 << 20,
};

#[test]
fn xlane_random_default_core() {
    random_run::<12, 4, 16>(DEFAULT, 1, 3000);
}

#[test]
fn xlane_random_pc_only_small_pcs() {
    random_run::<5, 2, 16>(
        Cfg {
            depth_pc: false,
            line_bytes: 4,
            banks: 2,
            global_bytes: 1000,
        },
        2,
        3000,
    );
}

#[test]
fn xlane_random_deep_calls_wide_lines() {
    random_run::<9, 7, 20>(
        Cfg {
            depth_pc: true,
            line_bytes: 128,
            banks: 32,
            global_bytes: 64 << 20,
        },
        3,
        3000,
    );
}

// ---- hand-worked cases of §8 (default core: 12-bit PCs, D = 4, MAXD = 15) ----

fn hand_warp(class: Class) -> Warp {
    Warp {
        class,
        cons: Consensus::Any,
        pred: 0,
        target: 100,
        gpc: 40,
        gdepth: 3,
        code_len: 200,
        window: 1024,
        active: 0b0000_1111,
        exec: 0b0000_0101,
        alive: 0b1111_1111,
        waiting: 0,
        spc: [7; MAX_LANES],
        depth: [3; MAX_LANES],
        a: [150; MAX_LANES],
        addr: [0; MAX_LANES],
        sdata: [0; MAX_LANES],
    }
}

fn hand_lane(w: &Warp, l: usize) -> Out {
    let mut x = XLane::<12, 4, 16>::new(true, 5, 5, 1 << 20);
    x.connect_all();
    drive(&mut x, w, l)
}

#[test]
fn call_at_max_depth_overflows_only_executing_lanes() {
    let mut w = hand_warp(Class::Ctl(CTL_CALL));
    w.depth = [15; MAX_LANES];
    // Lane 0 executes at depth 15 = MAXD: overflow. Lane 1 is active but
    // its guard is false: it falls through to 41 and keeps depth 15.
    let o = hand_lane(&w, 0);
    assert!(o.ovf && !o.ret0 && !o.npc_bad);
    let o = hand_lane(&w, 1);
    assert!(!o.ovf);
    assert_eq!((o.npc, o.ndepth), (41, 15));
    // One level shallower the call is legal: target 100, depth 15; the key
    // is (MAXD − 15) << 12 | 100 = 100.
    w.depth = [14; MAX_LANES];
    let o = hand_lane(&w, 0);
    assert!(!o.ovf);
    assert_eq!((o.npc, o.ndepth, o.key, o.kvalid), (100, 15, 100, true));
    // Lane 1 (not executing) at depth 14, pc 41: (15 − 14) << 12 | 41.
    let o = hand_lane(&w, 1);
    assert_eq!((o.npc, o.ndepth, o.key), (41, 14, 4096 + 41));
}

#[test]
fn ret_at_depth_zero_traps_and_ret_above_zero_returns() {
    let mut w = hand_warp(Class::Ctl(CTL_RET));
    w.depth = [0; MAX_LANES];
    let o = hand_lane(&w, 2);
    assert!(o.ret0 && !o.ovf);
    w.depth = [1; MAX_LANES];
    // Back to the register's 150 at depth 0: key (15 − 0) << 12 | 150.
    let o = hand_lane(&w, 2);
    assert!(!o.ret0 && !o.npc_bad);
    assert_eq!((o.npc, o.ndepth, o.key), (150, 0, 15 * 4096 + 150));
}

#[test]
fn jump_to_code_len_is_outside_and_one_below_is_not() {
    let mut w = hand_warp(Class::Ctl(CTL_JMP));
    w.a = [200; MAX_LANES];
    let o = hand_lane(&w, 0);
    assert!(o.npc_bad);
    assert_eq!(o.npc, 200);
    // A register value above 2^12: all 32 bits are compared and reported.
    w.a = [0x1_0005; MAX_LANES];
    let o = hand_lane(&w, 2);
    assert!(o.npc_bad);
    assert_eq!(o.npc, 0x1_0005);
    w.a = [199; MAX_LANES];
    assert!(!hand_lane(&w, 0).npc_bad);
    // The guard-false lane 1 falls through to 41: fine.
    w.a = [200; MAX_LANES];
    assert!(!hand_lane(&w, 1).npc_bad);
    // An ALU instruction at the last word (gpc = 199): gpc + 1 = code_len.
    let mut w = hand_warp(Class::Alu);
    w.gpc = 199;
    assert!(hand_lane(&w, 1).npc_bad);
    assert!(!hand_lane(&w, 5).npc_bad, "lane 5 is not active");
}

#[test]
fn join_of_a_lane_at_gpc_plus_one() {
    let mut w = hand_warp(Class::Alu);
    // Lane 4: outside the group, alive, stored pc 41 = gpc + 1, depth 3 =
    // gdepth: joins. Lane 5: same pc, depth 2: does not under depth_pc.
    // Lane 6: pc 41 but waiting at a barrier. Lane 7: pc 42.
    w.spc[4] = 41;
    w.spc[5] = 41;
    w.depth[5] = 2;
    w.spc[6] = 41;
    w.waiting = 1 << 6;
    w.spc[7] = 42;
    assert!(hand_lane(&w, 4).join);
    assert!(!hand_lane(&w, 5).join);
    assert!(!hand_lane(&w, 6).join);
    assert!(!hand_lane(&w, 7).join);
    // Lane 0 is in the group: not a joiner whatever its stored pc.
    w.spc[0] = 41;
    assert!(!hand_lane(&w, 0).join);
    // Under pc_only the depth does not matter.
    let mut x = XLane::<12, 4, 16>::new(false, 5, 5, 1 << 20);
    x.connect_all();
    assert!(drive(&mut x, &w, 5).join);
}

#[test]
fn shared_store_halfword_at_the_window_end() {
    // A halfword store at 1022 in a 1024-byte window is inside; at 1024
    // it is out; at 1023 it is misaligned (reported first, not also out).
    let mut w = hand_warp(Class::Mem(Space::Shared, 2, true));
    w.exec = 0b111;
    w.addr[0] = 1022;
    w.addr[1] = 1024;
    w.addr[2] = 1023;
    w.sdata = [0xabcd_1234; MAX_LANES];
    let o = hand_lane(&w, 0);
    assert!(!o.mis && !o.oob);
    assert_eq!((o.be, o.sd), (0b1100, 0x1234_1234));
    // Row key: 1022 >> log2(4·8) = 31.
    assert_eq!((o.key, o.kvalid), (31, true));
    let o = hand_lane(&w, 1);
    assert!(!o.mis && o.oob);
    let o = hand_lane(&w, 2);
    assert!(o.mis && !o.oob);
}

// ---- Verilog ----

#[test]
fn xlane_verilog_lints_clean() {
    for (tag, v) in [
        ("default", {
            let mut x = XLane::<12, 4, 16>::new(true, 5, 5, 1 << 20);
            x.connect_all();
            named_verilog(&x, "concord_xlane")
        }),
        ("pc-only", {
            let mut x = XLane::<5, 2, 16>::new(false, 2, 3, 1000);
            x.connect_all();
            named_verilog(&x, "concord_xlane")
        }),
    ] {
        common::assert_module_names(&v, "concord_xlane");
        common::verilator_lint(
            &v,
            &format!("v2-xlane-{tag}"),
            "concord_xlane.v",
            &format!("XLane {tag}"),
        );
    }
    let mut d = XDiverge::<8, 12, 4>::default();
    d.connect_all();
    let v = named_verilog(&d, "concord_xdiverge");
    common::assert_module_names(&v, "concord_xdiverge");
    common::verilator_lint(&v, "v2-xdiverge", "concord_xdiverge.v", "XDiverge");
}
