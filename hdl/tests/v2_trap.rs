//! The trap unit of Core v2 (`concord_hdl::v2::trap`) in rust-hdl's
//! simulator, against cases worked by hand from
//! docs/microarchitecture.md §13.1–§13.3:
//!
//! * `PassCause`: the order of the causes within one pass, the lanes, the
//!   lowest faulting lane's address or next PC, the detail word;
//! * `TrapUnit`: a first trap is held and reported in the cycle after it
//!   (not before); a trap of a younger slot leaves the held one; a trap of
//!   an older slot replaces it; a global bus error and a pass trap in the
//!   same cycle; cause 7's warp, lanes and pc formed in the report cycle,
//!   and the report waiting one cycle while the engine holds copy 2's
//!   port; `START` drops the held trap but keeps the report;
//! * `StackCheck` (`concord_hdl::v2::stack`, cause 9, §12.4): own stack,
//!   neighbours' stacks and the guard zone for the pass's warp, executing
//!   lanes only, nothing without a stack.

mod common;

use concord_hdl::v2::stack::StackCheck;
use concord_hdl::v2::trap::{PassCause, TrapUnit};
use rust_hdl_core::prelude::*;

const L: usize = 8;

fn settle<B: Block>(b: &mut B) {
    assert!(common::settled(b, 200), "the block does not settle");
}

// ---- PassCause ----

/// Inputs of one pass (masks as `u32`).
#[derive(Default, Clone)]
struct Pass {
    outside: bool,
    invalid: bool,
    word: u32,
    active: u32,
    mis: u32,
    oob: u32,
    stk: u32,
    pmiss: bool,
    pidx: u32,
    ovf: u32,
    ret0: u32,
    npc_bad: u32,
    bytes: u32,
    addr: [u32; L],
    npc: [u32; L],
}

/// (trap, cause, lanes, address, detail, executed)
fn cause(p: &Pass) -> (bool, u64, u64, u64, u64, bool) {
    let mut b = PassCause::<L>::default();
    b.connect_all();
    b.pass.next = true;
    b.outside.next = p.outside;
    b.invalid.next = p.invalid;
    b.word.next = (p.word as u64).into();
    b.active.next = (p.active as u64).into();
    b.m_mis.next = (p.mis as u64).into();
    b.m_oob.next = (p.oob as u64).into();
    b.m_stk.next = (p.stk as u64).into();
    b.pmiss.next = p.pmiss;
    b.pidx.next = (p.pidx as u64).into();
    b.m_ovf.next = (p.ovf as u64).into();
    b.m_ret0.next = (p.ret0 as u64).into();
    b.m_npc.next = (p.npc_bad as u64).into();
    b.bytes.next = (p.bytes as u64).into();
    for l in 0..L {
        b.addr[l].next = (p.addr[l] as u64).into();
        b.npc[l].next = (p.npc[l] as u64).into();
    }
    settle(&mut b);
    (
        b.trap.val(),
        b.cause.val().to_u64(),
        b.lanes.val().to_u64(),
        b.t_addr.val().to_u64(),
        b.detail.val().to_u64(),
        b.executed.val(),
    )
}

fn lane_values(base: u32) -> [u32; L] {
    std::array::from_fn(|l| base + 0x10 * l as u32)
}

#[test]
fn pass_cause_order_lanes_address_detail() {
    // No flag: no trap.
    let quiet = Pass {
        active: 0xff,
        addr: lane_values(0x100),
        npc: lane_values(7),
        bytes: 4,
        ..Pass::default()
    };
    assert_eq!(cause(&quiet), (false, 0, 0, 0, 0, true));
    // Misaligned lanes 5 and 6 and out-of-range lanes 1, 2: cause 2 wins,
    // its lanes, lane 5's address (0x150), width 4.
    let p = Pass {
        mis: 0b0110_0000,
        oob: 0b0000_0110,
        npc_bad: 0xff,
        ..quiet.clone()
    };
    assert_eq!(cause(&p), (true, 2, 0x60, 0x150, 4, true));
    // Out of range alone, with stack faults too: cause 1, lane 1's address.
    let p = Pass {
        oob: 0b0000_0110,
        stk: 0b1000_0000,
        bytes: 2,
        ..quiet.clone()
    };
    assert_eq!(cause(&p), (true, 1, 0x06, 0x110, 2, true));
    // Stack overflow alone: cause 9, lane 7's address.
    let p = Pass {
        stk: 0b1000_0000,
        npc_bad: 0xff,
        ..quiet.clone()
    };
    assert_eq!(cause(&p), (true, 9, 0x80, 0x170, 4, true));
    // Missing parameter before the next PC: lanes = active, detail = index.
    let p = Pass {
        active: 0x0f,
        pmiss: true,
        pidx: 5,
        npc_bad: 0x0f,
        ..quiet.clone()
    };
    assert_eq!(cause(&p), (true, 8, 0x0f, 0, 5, true));
    // Call depth before everything a control pass can have.
    let p = Pass {
        ovf: 0b1000,
        npc_bad: 0b1100,
        ..quiet.clone()
    };
    assert_eq!(cause(&p), (true, 5, 0b1000, 0, 0, true));
    let p = Pass {
        ret0: 0b0010,
        npc_bad: 0b1100,
        ..quiet.clone()
    };
    assert_eq!(cause(&p), (true, 6, 0b0010, 0, 0, true));
    // Next PC: the lanes, lane 2's next PC (7 + 0x20 = 0x27).
    let p = Pass {
        npc_bad: 0b1100,
        ..quiet.clone()
    };
    assert_eq!(cause(&p), (true, 10, 0b1100, 0x27, 0, true));
    // Invalid word before everything else: active lanes, the word; the
    // pass does not get past decode.
    let p = Pass {
        invalid: true,
        word: 0xdead_beef,
        active: 0x3c,
        mis: 1,
        npc_bad: 1,
        ..quiet.clone()
    };
    assert_eq!(cause(&p), (true, 3, 0x3c, 0, 0xdead_beef, false));
    // PC outside the program (the decoder also calls the word invalid).
    let p = Pass {
        outside: true,
        invalid: true,
        word: 0x1234,
        active: 0x81,
        ..quiet.clone()
    };
    assert_eq!(cause(&p), (true, 4, 0x81, 0, 0, false));
}

// ---- TrapUnit ----

const SLOTS: usize = 4;
const WARPS: usize = 8;

fn ports() -> common::Ports<TrapUnit<L>> {
    common::Ports {
        clock: |u| &mut u.clock,
        reset: |u| &mut u.reset,
        rounds: 200,
        name: "TrapUnit",
    }
}

/// A unit with slots launched in the order 2, 0, 3, 1 (oldest first):
/// slot 2 is the oldest, slot 1 the youngest. Slot `s` has block
/// `(10 + s, 20 + s, 30 + s)`, `arrived = s`, `exited = 2s`; warps `2s`
/// and `2s + 1` (`wib` 0 and 1); 40 threads.
fn unit() -> TrapUnit<L> {
    let mut u = TrapUnit::<L>::new(SLOTS, WARPS);
    u.connect_all();
    let p = ports();
    common::reset(&mut u, &p);
    let order = [2usize, 0, 3, 1];
    for s in 0..SLOTS {
        let rank = order.iter().position(|&x| x == s).unwrap();
        let older: u64 = order[..rank].iter().map(|&x| 1u64 << x).sum();
        u.older[s].next = older.into();
        u.ctaid_x[s].next = (10 + s as u64).into();
        u.ctaid_y[s].next = (20 + s as u64).into();
        u.ctaid_z[s].next = (30 + s as u64).into();
        u.arrived[s].next = (s as u64).into();
        u.exited[s].next = (2 * s as u64).into();
        u.slot_warps[s].next = (0b11u64 << (2 * s)).into();
    }
    for w in 0..WARPS {
        u.wib[w].next = ((w % 2) as u64).into();
        u.waiting[w].next = 0u64.into();
    }
    u.threads.next = 40u64.into();
    settle(&mut u);
    u
}

fn idle(u: &mut TrapUnit<L>) {
    u.a_valid.next = false;
    u.g_valid.next = false;
    u.clear.next = false;
    u.port_busy.next = false;
}

#[allow(clippy::too_many_arguments)]
fn raise_a(
    u: &mut TrapUnit<L>,
    cause: u64,
    slot: u64,
    wib: u64,
    pc: u64,
    lanes: u64,
    addr: u64,
    detail: u64,
) {
    u.a_valid.next = true;
    u.a_cause.next = cause.into();
    u.a_slot.next = slot.into();
    u.a_wib.next = wib.into();
    u.a_pc.next = pc.into();
    u.a_lanes.next = lanes.into();
    u.a_addr.next = addr.into();
    u.a_detail.next = detail.into();
}

/// The report words, `TRAP_CAUSE` .. `TRAP_THREADS`.
fn report(u: &TrapUnit<L>) -> [u64; 12] {
    [
        u.r_cause.val().to_u64(),
        u.r_pc.val().to_u64(),
        u.r_warp.val().to_u64(),
        u.r_lanes.val().to_u64(),
        u.r_block_x.val().to_u64(),
        u.r_block_y.val().to_u64(),
        u.r_block_z.val().to_u64(),
        u.r_addr.val().to_u64(),
        u.r_detail.val().to_u64(),
        u.r_arrived.val().to_u64(),
        u.r_exited.val().to_u64(),
        u.r_threads.val().to_u64(),
    ]
}

fn step(u: &mut TrapUnit<L>) {
    settle(u);
    common::edge(u, &ports());
    idle(u);
    settle(u);
}

#[test]
fn first_trap_is_held_and_reported_the_cycle_after() {
    let mut u = unit();
    idle(&mut u);
    settle(&mut u);
    assert!(!u.held.val() && !u.held_next.val() && !u.raise.val());
    assert_eq!(u.freeze.val().to_u64(), 0);
    // Cycle c: slot 3's pass, cause 1 (out of range).
    raise_a(&mut u, 1, 3, 1, 0x21, 0b0110, 0x1000, 4);
    settle(&mut u);
    assert!(u.raise.val() && u.held_next.val() && !u.held.val());
    assert_eq!(u.freeze.val().to_u64(), 1 << 3);
    step(&mut u);
    // c + 1: held; the report is loaded at the end of this cycle.
    assert!(u.held.val() && u.held_next.val() && !u.raise.val());
    assert_eq!(report(&u), [0; 12]);
    step(&mut u);
    assert_eq!(
        report(&u),
        [1, 0x21, 1, 0b0110, 13, 23, 33, 0x1000, 4, 3, 6, 40]
    );
    // A trap of a younger slot (1) freezes but leaves the held one.
    raise_a(&mut u, 10, 1, 0, 0x30, 0b1, 0x31, 0);
    settle(&mut u);
    assert!(u.raise.val());
    assert_eq!(u.freeze.val().to_u64(), 1 << 1);
    step(&mut u);
    step(&mut u);
    assert_eq!(report(&u)[0..4], [1, 0x21, 1, 0b0110]);
    // A trap of an older slot (0) replaces it: reported after one cycle.
    raise_a(&mut u, 8, 0, 0, 0x05, 0xff, 0, 3);
    step(&mut u);
    assert_eq!(report(&u)[0], 1);
    step(&mut u);
    assert_eq!(report(&u), [8, 0x05, 0, 0xff, 10, 20, 30, 0, 3, 0, 0, 40]);
    // START: no trap held; the report stays.
    u.clear.next = true;
    step(&mut u);
    assert!(!u.held.val());
    assert_eq!(report(&u)[0], 8);
}

#[test]
fn same_cycle_pass_trap_and_bus_error() {
    // The bus error of an older slot replaces the pass's trap.
    let mut u = unit();
    idle(&mut u);
    raise_a(&mut u, 2, 0, 1, 0x40, 0b1, 0x3, 2);
    u.g_valid.next = true;
    u.g_slot.next = 2u64.into();
    u.g_wib.next = 1u64.into();
    u.g_pc.next = 0x44u64.into();
    u.g_lanes.next = 0b1010u64.into();
    u.g_addr.next = 0x8000u64.into();
    settle(&mut u);
    assert_eq!(u.freeze.val().to_u64(), 0b0101);
    step(&mut u);
    step(&mut u);
    assert_eq!(
        report(&u),
        [11, 0x44, 1, 0b1010, 12, 22, 32, 0x8000, 0, 2, 4, 40]
    );
    // The same slot: the pass's trap, raised first, stays.
    let mut u = unit();
    idle(&mut u);
    raise_a(&mut u, 2, 0, 1, 0x40, 0b1, 0x3, 2);
    u.g_valid.next = true;
    u.g_slot.next = 0u64.into();
    u.g_addr.next = 0x8000u64.into();
    step(&mut u);
    step(&mut u);
    assert_eq!(report(&u)[0..4], [2, 0x40, 1, 0b1]);
    assert_eq!(report(&u)[7], 0x3);
}

#[test]
fn cause_7_reads_the_first_waiting_warp_and_waits_for_the_port() {
    let mut u = unit();
    idle(&mut u);
    // Slot 1 (warps 2, 3): warp 2 has no waiting lane, warp 3 waits with
    // lanes 2 and 3. Warp 5 (another slot) waits too and is not looked at.
    u.waiting[3].next = 0b1100u64.into();
    u.waiting[5].next = 0b0001u64.into();
    raise_a(&mut u, 7, 1, 0, 0, 0, 0, 0);
    step(&mut u);
    // The report cycle: lane 2 of warp 3 through copy 2, but the engine
    // holds the port.
    assert!(u.t_read.val());
    assert_eq!(u.t_warp.val().to_u64(), 3);
    assert_eq!(u.t_lane.val().to_u64(), 0b0100);
    u.t_pc.next = 0x2au64.into();
    u.port_busy.next = true;
    settle(&mut u);
    common::edge(&mut u, &ports());
    u.port_busy.next = false;
    settle(&mut u);
    assert_eq!(report(&u)[0], 0);
    assert!(u.t_read.val());
    step(&mut u);
    assert!(!u.t_read.val());
    assert_eq!(report(&u), [7, 0x2a, 1, 0b1100, 11, 21, 31, 0, 0, 1, 2, 40]);
}

// ---- StackCheck (cause 9) ----

/// A stack check of `L` = 8 lanes, 4 warps, `G` = 4096, with `S` written,
/// the pass's `wib` and its lanes' addresses in X, then its checked lanes
/// at A (where the next pass, of another warp and other addresses, is in
/// X). Returns the faulting lanes.
fn stack_faults(s: u64, wib: u64, check: u64, addr: [u64; L]) -> u64 {
    let mut b = StackCheck::<L>::new(4, 4096);
    b.connect_all();
    let p = common::Ports {
        clock: |b: &mut StackCheck<L>| &mut b.clock,
        reset: |b: &mut StackCheck<L>| &mut b.reset,
        rounds: 200,
        name: "StackCheck",
    };
    common::reset(&mut b, &p);
    b.s.next = s.into();
    common::edge(&mut b, &p);
    // X: the pass's warp within its block and its lanes' addresses.
    b.x_wib.next = wib.into();
    for (l, a) in addr.iter().enumerate() {
        b.addr[l].next = (*a).into();
    }
    common::edge(&mut b, &p);
    // A: its checked lanes; the pass now in X is of another warp, at
    // addresses that are in every lane's guard zone.
    b.x_wib.next = 3u64.into();
    for a in b.addr.iter_mut() {
        a.next = 4092u64.into();
    }
    b.check.next = check.into();
    settle(&mut b);
    b.fault.val().to_u64()
}

/// By hand from docs/isa.md's rule with `S` = 16, `G` = 4096, 8 lanes, 4
/// warps (32 threads): thread `t` owns `[4080 − 16t, 4096 − 16t)`, the
/// guarded region is `[4096 − 33·16, 4096) = [3568, 4096)`.
#[test]
fn stack_check_own_stack_neighbours_and_guard_zone() {
    // Warp 1 (threads 8..15): lane l is thread 8 + l, its stack starts at
    // 3952 − 16l. Every lane at the first and the last word of its own
    // stack: no fault.
    let own: [u64; L] = std::array::from_fn(|l| 3952 - 16 * l as u64);
    assert_eq!(stack_faults(16, 1, 0xff, own), 0);
    let own_last: [u64; L] = std::array::from_fn(|l| 3964 - 16 * l as u64);
    assert_eq!(stack_faults(16, 1, 0xff, own_last), 0);
    // The same addresses from warp 0 (threads 0..7) are other threads'
    // stacks: every lane faults; lanes not executing do not.
    assert_eq!(stack_faults(16, 0, 0xff, own), 0xff);
    assert_eq!(stack_faults(16, 0, 0x0f, own), 0x0f);
    // Warp 1, lane 2 (thread 10, [3920, 3936)): one word above its
    // stack (thread 9's) and one word below (thread 11's) fault.
    let mut a = own;
    a[2] = 3936;
    a[5] = 3868; // lane 5 is thread 13, [3872, 3888): 3868 is thread 14's
    assert_eq!(stack_faults(16, 1, 0xff, a), 0b0010_0100);
    // Warp 3, lane 7 (thread 31, [3584, 3600)): the guard zone's first and
    // last words fault, the word just below it does not (not guarded).
    // Warp 3: lane l is thread 24 + l, its stack starts at 3696 − 16l.
    let mut a: [u64; L] = std::array::from_fn(|l| 3696 - 16 * l as u64);
    a[0] = 3568;
    a[1] = 3580;
    a[2] = 3564;
    a[3] = 100;
    assert_eq!(stack_faults(16, 3, 0xff, a), 0b0000_0011);
    // Without a stack nothing is checked.
    assert_eq!(stack_faults(0, 3, 0xff, a), 0);
}
