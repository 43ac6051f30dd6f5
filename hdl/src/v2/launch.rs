//! The Core v2 launch unit (docs/microarchitecture.md §12.2–§12.5): the
//! block slots (§5.3), the allocation of the lowest free slot to the next
//! block in grid order, the thread-id walk, the init slots, the block's
//! start and retire, and the launch-level "every block launched and
//! retired". It sits beside stage S: SETUP (`setup.rs`) feeds it the
//! launch-wide values, the scheduler takes its init slots, stage A returns
//! them (refused or not) and reports retires and traps, and it drives the
//! warp-state writes of a launch and a start, the thread-id LUT-RAM, the
//! launch events of the trace port (§15.2) and the `blocks` counter
//! (§15.1). The golden reference is `testbench/src/pipeline/launch.rs`.
//!
//! # Ports
//!
//! All inputs are values of the current cycle *c*; the outputs marked
//! "comb." are combinational in *c* (the core registers the trace fields);
//! the others come from flip-flops. Slot indices are `SLOT_BITS` (4) wide
//! and warp indices `WARP_BITS` (4): the core keeps the low `max(1, log2
//! BS)` bits for `tr_*_slot`. Slot sets are `Bits<16>`, slot `k` at bit
//! `k` (bits `≥ BS` are 0).
//!
//! **From the host slave** (registers fixed while the core runs):
//!
//! | port | width | meaning |
//! |---|---|---|
//! | `host_start` | 1 | `CTRL.START` accepted in *c*: at its end every slot is `FREE`, the ages are cleared, no launch is in progress and the grid walk is at block 0 (the model rebuilds its launch unit and slots at `start`); only while `run` is 0 (the slave accepts START only while not running), which is what blocks an allocation in that cycle |
//! | `grid_x`, `grid_y`, `grid_z` | 32 | `GRID_*` |
//! | `block_x`, `block_y` | `K` | low `Kt` bits of `BLOCK_X`, `BLOCK_Y` (for the walk, as `TidWalk`) |
//!
//! **From SETUP** (`setup::Setup`, valid from its `done` cycle on):
//!
//! | port | width | meaning |
//! |---|---|---|
//! | `threads` | `K` | low `Kt` bits of `threads` (an accepted launch has `1..=L·W ≤ 2^Kt`) |
//! | `nwarps`, `resident` | 5 | as `Setup` |
//! | `window_rows` | `RB` | low `row_bits` bits of `window_rows` (a power of two; only slots `k ≥ 1` use it, and then it is below `ROWS`) |
//! | `clear_rows` | `IB` | `clear_rows` (≤ `ROWS < 2^IB`) |
//! | `clear_regs` | 6 | `clear_regs` |
//!
//! **From the core's control** (this cycle):
//!
//! | port | width | meaning |
//! |---|---|---|
//! | `run` | 1 | state `RUN` or `STOPPING` (the model's `launch_cycle` runs in both; in `STOPPING` a trap is held, so nothing is allocated) |
//! | `halt` | 1 | `CTRL.HALT` (§15.3): no allocation and no start in *c* |
//! | `held` | 1 | a trap is held at the start of *c* (§13.2) |
//! | `trap_slots` | 16 | slots whose pass traps at A in *c*, or that raise cause 7 or 11 in *c*: each, and every slot younger than it that is `LAUNCH` or `RUN`, becomes `FROZEN` at the end of *c*; a launch in progress into a frozen slot stops; no allocation in *c* |
//!
//! **From stage S** (`scheduler::Scheduler`): `init_take` (1): S selects
//! the init slot offered by `init_req` in *c* (the scheduler's `init`).
//!
//! **From stage A**: the init slot in A in *c* and its targets, as S took
//! them from `init_*` five cycles earlier: `a_init` (1), `a_refused` (1,
//! its row clear is refused by the port rule, §10.1), `a_has_reg` (1),
//! `a_warp` (4), `a_reg` (5), `a_row` (`RB`). A refused one is requeued
//! with these targets. The block's retire from the commit (§9.4 step 4,
//! `exited == threads`): `retire` (1), `retire_slot` (4).
//!
//! **Outputs, block slots** (`Vec` of `BS`, from flip-flops):
//!
//! | port | width | meaning |
//! |---|---|---|
//! | `state` | 2 | `ST_FREE` 0, `ST_LAUNCH` 1, `ST_RUN` 2, `ST_FROZEN` 3 (§5.3) |
//! | `ctaid_x`, `ctaid_y`, `ctaid_z` | 32 | the block's index (`%ctaid`, selected by `wslot` in R) |
//! | `older` | 16 | row `k` of the age matrix: bit `j` = slot `j` was launched before slot `k` (trap rules §13.2; the GTO scheduler keeps its own warp-mask copy) |
//! | `base_warp` | 4 | `k · nwarps` |
//! | `base_row` | `RB` | `k · window_rows` |
//! | `smask` | `W` | slot `k`'s warps (`k < resident`), the scheduler's `smask[k]` |
//!
//! **Outputs, warps** (`Vec` of `W`, from flip-flops): `wslot` (4), `wib`
//! (4) (§5.1: written when the warp's slot is allocated, 0 after `START`
//! and for warps of no slot, as in the model, whose `DBG_FLAGS` shows
//! them), `wstate` (2): the state of the warp's slot, `ST_FREE` for a warp
//! of no slot (`EMPTY`, §5.5; an AND-OR of the slot states).
//!
//! **Outputs, allocation** (comb.; the slot is taken at the end of *c*):
//! `alloc` (1), `alloc_slot` (4), `alloc_oh` (16, the scheduler's
//! `launch[k]`), `alloc_warps` (`W`): the slot's warps, whose predicates,
//! `waiting`, `gmask`, `replay` and `rearb` the warp state clears at the
//! end of *c*; the core also clears the slot's `arrived` and `exited`.
//!
//! **Outputs, thread-id walk** (from `TidWalk`, registered there):
//! `tid_we`, `tid_lane` (`L`, one-hot), `tid_warp` (4), `tid_x`, `tid_y`,
//! `tid_z` (`K`), `tid_last` (the walk's last write): one write of the thread-id LUT-RAM (which lives in the
//! core, §5.2) per cycle *l + 1 + t*.
//!
//! **Outputs, init slot offered to S in *c*** (from flip-flops):
//! `init_req` (1), `init_has_reg` (1), `init_warp` (4), `init_reg` (5),
//! `init_has_row` (1), `init_row` (`RB`, physical row `base_row + i`); an
//! absent target is 0 (`init_warp` is then `tr_s_warp` as §15.2 wants it).
//! The values are meaningful only with `init_req`.
//!
//! **Outputs, start** (comb.; at the end of *c* the slot becomes `RUN`):
//! `start` (1), `start_slot` (4), `start_warps` (`W`): the warps whose
//! `gmask := alive`, `gpc := ENTRY_PC` (the host register), `gdepth := 0`
//! and lane depths := 0; `start_alive` (`Vec` of `W`, `L` each): each
//! warp's new `alive` (0 for the warps not starting).
//!
//! **Outputs, trace and counters** (comb., record of *c*): `tr_alloc`,
//! `tr_alloc_slot`, `tr_start`, `tr_start_slot`, `tr_retire`,
//! `tr_retire_slot` (§15.2), `count_blocks` (`blocks += 1`, §15.1; the
//! `init_slots` counter is stage A's).
//!
//! **Outputs, launch state** (comb., values at the end of *c*): `all_done`:
//! every block allocated, no launch in progress and every slot `FREE` (with
//! a quiet pipeline and global unit, the core enters `DONE`, §12.5);
//! `active`: some slot is `LAUNCH` or `RUN` (the core stays in `STOPPING`,
//! §13.2); `launching` (registered): a launch is in progress.
//!
//! # How
//!
//! * **Allocation** (§12.3), in a cycle of `run` and not `halt` with no
//!   launch in progress, no trap held or raised in *c* and blocks left: the
//!   lowest slot `k < resident` that is `FREE` at the end of *c*'s commit
//!   (a retire in *c* frees its slot for this allocation, as in the model,
//!   where A acts before the launch unit): `f & (!f + 1)`. The grid walk
//!   keeps the next block's `(x, y, z)`: `x += 1`, wrapping into `y`, then
//!   `z`, with equality compares only; the block whose three compares all
//!   wrap is the last.
//! * **Init slots.** The model keeps a queue of indices `0 .. n_init − 1`
//!   with refused ones pushed to its back. Here the queue's front part (the
//!   indices never issued) is a counter with its targets walked alongside:
//!   `(warp, reg)` counts `reg` up to `clear_regs` and then `warp` (no
//!   divider, no multiplier for `clear_regs · nwarps`), the row counts from
//!   `base_row`. The back part, the requeued refusals in refusal order, is a
//!   FIFO of `REQUEUE_DEPTH` entries holding the targets, in LUT-RAM (one
//!   16-word RAM per target field, written at the tail, read at the head
//!   asynchronously; binary head and tail pointers). Its depth is
//!   bounded by the port rule and S's priorities: a row clear is refused
//!   only when the item selected just before it was a warp pass (a shared
//!   atomic then sits in M when the init slot is in A), and while the queue
//!   is not empty S selects init slots before warps, so in the counter part
//!   only the first index can be refused; after it the indices still
//!   pending (queued or in S..A) never grow, and at most 5 are in flight:
//!   at most 6 entries.
//! * **Start** (§12.3) in the first cycle after both the walk's last write
//!   (`TidWalk::last`) and the return to A of every init slot: no index
//!   left in the counter, the FIFO empty and no init slot in flight after
//!   *c*'s take and arrival (the model's `left == 0`).
//! * **Freeze** (§13.2): slot `k` freezes when it is `LAUNCH` or `RUN` and a
//!   trapping slot is `k` or older than `k` (`older[k]`). The slot being
//!   launched is always the youngest, so any trap stops a launch in
//!   progress.
//! * Every selection over slots or warps is an AND-OR over one-hot masks.

use concord_uarch::HwParams;
use rust_hdl_core::prelude::*;

use crate::util::{Reg, RegE};
use crate::v2::gentry::LutRam;
use crate::v2::tidwalk::TidWalk;

/// Width of slot indices (BS ≤ 16).
pub const SLOT_BITS: usize = 4;
/// Width of warp indices (W ≤ 16).
pub const WARP_BITS: usize = 4;
/// Width of slot sets (one bit per possible slot).
pub const SLOT_SET: usize = 16;
/// Width of `nwarps` and `resident` (as `setup::COUNT_BITS`).
pub const COUNT_BITS: usize = crate::v2::setup::COUNT_BITS;
/// Width of `clear_regs` (as `setup::CLEAR_REGS_BITS`).
pub const CLEAR_REGS_BITS: usize = crate::v2::setup::CLEAR_REGS_BITS;
/// Width of a register number in an init slot (R ≤ 32).
pub const REG_BITS: usize = 5;
/// Entries of the FIFO of refused row clears: one 16-word LUT-RAM (at most
/// 6 entries are ever needed, see the module's doc).
pub const REQUEUE_DEPTH: usize = 16;

/// Slot states (§5.3).
pub const ST_FREE: u64 = 0;
pub const ST_LAUNCH: u64 = 1;
pub const ST_RUN: u64 = 2;
pub const ST_FROZEN: u64 = 3;

/// The launch unit of a core with `L` lanes, `W` warps, thread-id
/// components of `K = Kt` bits, physical shared rows of `RB = row_bits`
/// bits, and an init-slot counter of `IB` bits (`2^IB > max(R·W, ROWS)`).
#[derive(LogicBlock)]
pub struct LaunchUnit<
    const L: usize,
    const W: usize,
    const K: usize,
    const RB: usize,
    const IB: usize,
> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    // Host.
    pub host_start: Signal<In, bool>,
    pub grid_x: Signal<In, Bits<32>>,
    pub grid_y: Signal<In, Bits<32>>,
    pub grid_z: Signal<In, Bits<32>>,
    pub block_x: Signal<In, Bits<K>>,
    pub block_y: Signal<In, Bits<K>>,
    // SETUP.
    pub threads: Signal<In, Bits<K>>,
    pub nwarps: Signal<In, Bits<COUNT_BITS>>,
    pub resident: Signal<In, Bits<COUNT_BITS>>,
    pub window_rows: Signal<In, Bits<RB>>,
    pub clear_rows: Signal<In, Bits<IB>>,
    pub clear_regs: Signal<In, Bits<CLEAR_REGS_BITS>>,
    // Core control.
    pub run: Signal<In, bool>,
    pub halt: Signal<In, bool>,
    pub held: Signal<In, bool>,
    pub trap_slots: Signal<In, Bits<SLOT_SET>>,
    // Stage S.
    pub init_take: Signal<In, bool>,
    // Stage A.
    pub a_init: Signal<In, bool>,
    pub a_refused: Signal<In, bool>,
    pub a_has_reg: Signal<In, bool>,
    pub a_warp: Signal<In, Bits<WARP_BITS>>,
    pub a_reg: Signal<In, Bits<REG_BITS>>,
    pub a_row: Signal<In, Bits<RB>>,
    pub retire: Signal<In, bool>,
    pub retire_slot: Signal<In, Bits<SLOT_BITS>>,
    // Block slots.
    pub state: Vec<Signal<Out, Bits<2>>>,
    pub ctaid_x: Vec<Signal<Out, Bits<32>>>,
    pub ctaid_y: Vec<Signal<Out, Bits<32>>>,
    pub ctaid_z: Vec<Signal<Out, Bits<32>>>,
    pub older: Vec<Signal<Out, Bits<SLOT_SET>>>,
    pub base_warp: Vec<Signal<Out, Bits<WARP_BITS>>>,
    pub base_row: Vec<Signal<Out, Bits<RB>>>,
    pub smask: Vec<Signal<Out, Bits<W>>>,
    // Warps.
    pub wslot: Vec<Signal<Out, Bits<SLOT_BITS>>>,
    pub wib: Vec<Signal<Out, Bits<WARP_BITS>>>,
    pub wstate: Vec<Signal<Out, Bits<2>>>,
    // Allocation.
    pub alloc: Signal<Out, bool>,
    pub alloc_slot: Signal<Out, Bits<SLOT_BITS>>,
    pub alloc_oh: Signal<Out, Bits<SLOT_SET>>,
    pub alloc_warps: Signal<Out, Bits<W>>,
    // Thread-id walk.
    pub tid_we: Signal<Out, bool>,
    pub tid_lane: Signal<Out, Bits<L>>,
    pub tid_warp: Signal<Out, Bits<WARP_BITS>>,
    pub tid_x: Signal<Out, Bits<K>>,
    pub tid_y: Signal<Out, Bits<K>>,
    pub tid_z: Signal<Out, Bits<K>>,
    pub tid_last: Signal<Out, bool>,
    // Init slot.
    pub init_req: Signal<Out, bool>,
    pub init_has_reg: Signal<Out, bool>,
    pub init_warp: Signal<Out, Bits<WARP_BITS>>,
    pub init_reg: Signal<Out, Bits<REG_BITS>>,
    pub init_has_row: Signal<Out, bool>,
    pub init_row: Signal<Out, Bits<RB>>,
    // Start.
    pub start: Signal<Out, bool>,
    pub start_slot: Signal<Out, Bits<SLOT_BITS>>,
    pub start_warps: Signal<Out, Bits<W>>,
    pub start_alive: Vec<Signal<Out, Bits<L>>>,
    // Trace and counters.
    pub tr_alloc: Signal<Out, bool>,
    pub tr_alloc_slot: Signal<Out, Bits<SLOT_BITS>>,
    pub tr_start: Signal<Out, bool>,
    pub tr_start_slot: Signal<Out, Bits<SLOT_BITS>>,
    pub tr_retire: Signal<Out, bool>,
    pub tr_retire_slot: Signal<Out, Bits<SLOT_BITS>>,
    pub count_blocks: Signal<Out, bool>,
    // Launch state.
    pub all_done: Signal<Out, bool>,
    pub active: Signal<Out, bool>,
    pub launching: Signal<Out, bool>,
    // Children and registers.
    walk: TidWalk<L, K>,
    st_q: Vec<RegE<Bits<2>>>,
    cx_q: Vec<Reg<Bits<32>>>,
    cy_q: Vec<Reg<Bits<32>>>,
    cz_q: Vec<Reg<Bits<32>>>,
    older_q: Vec<RegE<Bits<SLOT_SET>>>,
    bw_q: Vec<Reg<Bits<WARP_BITS>>>,
    br_q: Vec<Reg<Bits<RB>>>,
    sm_q: Vec<Reg<Bits<W>>>,
    wslot_q: Vec<RegE<Bits<SLOT_BITS>>>,
    wib_q: Vec<RegE<Bits<WARP_BITS>>>,
    gx_q: RegE<Bits<32>>,
    gy_q: RegE<Bits<32>>,
    gz_q: RegE<Bits<32>>,
    all_alloc_q: RegE<bool>,
    launching_q: RegE<bool>,
    lslot_q: Reg<Bits<SLOT_BITS>>,
    loh_q: Reg<Bits<SLOT_SET>>,
    walked_q: Reg<bool>,
    wgo_q: Reg<bool>,
    wcnt_q: Reg<Bits<K>>,
    idx_q: Reg<Bits<IB>>,
    rctr_q: Reg<Bits<CLEAR_REGS_BITS>>,
    wrel_q: Reg<Bits<COUNT_BITS>>,
    wabs_q: Reg<Bits<WARP_BITS>>,
    rowc_q: Reg<Bits<RB>>,
    head_q: Reg<Bits<4>>,
    tail_q: Reg<Bits<4>>,
    // Two bits wide, one stored: rust-hdl declares a one-bit port without
    // a range, and the leaf's Verilog selects `wdata[0:0]`.
    e_reg: LutRam<2>,
    e_warp: LutRam<WARP_BITS>,
    e_rn: LutRam<REG_BITS>,
    e_row: LutRam<RB>,
    inflight_q: Reg<Bits<4>>,
    // Constants.
    c_free: Constant<Bits<2>>,
    c_launch: Constant<Bits<2>>,
    c_run: Constant<Bits<2>>,
    c_frozen: Constant<Bits<2>>,
    one32: Constant<Bits<32>>,
    zero32: Constant<Bits<32>>,
    one_ib: Constant<Bits<IB>>,
    zero_ib: Constant<Bits<IB>>,
    one_cr: Constant<Bits<CLEAR_REGS_BITS>>,
    zero_cr: Constant<Bits<CLEAR_REGS_BITS>>,
    one_cnt: Constant<Bits<COUNT_BITS>>,
    zero_cnt: Constant<Bits<COUNT_BITS>>,
    one_w4: Constant<Bits<WARP_BITS>>,
    zero_w4: Constant<Bits<WARP_BITS>>,
    zero_s4: Constant<Bits<SLOT_BITS>>,
    one_rb: Constant<Bits<RB>>,
    zero_rb: Constant<Bits<RB>>,
    one_set: Constant<Bits<SLOT_SET>>,
    zero_set: Constant<Bits<SLOT_SET>>,
    zero_w: Constant<Bits<W>>,
    zero_l: Constant<Bits<L>>,
    ones_l: Constant<Bits<L>>,
    lane_mod: Constant<Bits<K>>,
    zero_k: Constant<Bits<K>>,
    one_k: Constant<Bits<K>>,
    one2: Constant<Bits<2>>,
    zero2: Constant<Bits<2>>,
    one4: Constant<Bits<4>>,
    zero_rn: Constant<Bits<REG_BITS>>,
    zero4: Constant<Bits<4>>,
    sh1: Constant<Bits<8>>,
    sh2: Constant<Bits<8>>,
    sh3: Constant<Bits<8>>,
    // Per slot `k`: its index, its bit, the slots that exist but `k`,
    // `k` as a count, and the bits of `k` as all-ones masks (for the
    // products `k · nwarps` and `k · window_rows`, one per bit of `k`).
    k_idx: Vec<Constant<Bits<SLOT_BITS>>>,
    k_bit: Vec<Constant<Bits<SLOT_SET>>>,
    k_others: Vec<Constant<Bits<SLOT_SET>>>,
    k_cnt: Vec<Constant<Bits<COUNT_BITS>>>,
    m5_0: Vec<Constant<Bits<COUNT_BITS>>>,
    m5_1: Vec<Constant<Bits<COUNT_BITS>>>,
    m5_2: Vec<Constant<Bits<COUNT_BITS>>>,
    m5_3: Vec<Constant<Bits<COUNT_BITS>>>,
    mr_0: Vec<Constant<Bits<RB>>>,
    mr_1: Vec<Constant<Bits<RB>>>,
    mr_2: Vec<Constant<Bits<RB>>>,
    mr_3: Vec<Constant<Bits<RB>>>,
    // Per warp: its bit, its index, its number as a count.
    w_bit: Vec<Constant<Bits<W>>>,
    w_idx: Vec<Constant<Bits<WARP_BITS>>>,
    w_cnt: Vec<Constant<Bits<COUNT_BITS>>>,
    // Per lane but the last: its bit and its number (the last warp's alive
    // lanes).
    l_bit: Vec<Constant<Bits<L>>>,
    l_num: Vec<Constant<Bits<K>>>,
    // Locals.
    b_lo: Signal<Local, Bits<COUNT_BITS>>,
    b_hi: Signal<Local, Bits<COUNT_BITS>>,
    t_lo: Signal<Local, Bits<W>>,
    t_hi: Signal<Local, Bits<W>>,
    sm: Signal<Local, Bits<W>>,
    apick: Signal<Local, Bits<SLOT_SET>>,
    any_used: Signal<Local, bool>,
    retire_oh: Signal<Local, Bits<SLOT_SET>>,
    freeze: Signal<Local, Bits<SLOT_SET>>,
    frz: Signal<Local, bool>,
    free: Signal<Local, Bits<SLOT_SET>>,
    pick: Signal<Local, Bits<SLOT_SET>>,
    blocked: Signal<Local, bool>,
    do_alloc: Signal<Local, bool>,
    cancel: Signal<Local, bool>,
    do_start: Signal<Local, bool>,
    pslot: Signal<Local, Bits<SLOT_BITS>>,
    pbase: Signal<Local, Bits<WARP_BITS>>,
    prow: Signal<Local, Bits<RB>>,
    pwarps: Signal<Local, Bits<W>>,
    lwarps: Signal<Local, Bits<W>>,
    lastw: Signal<Local, Bits<W>>,
    lalive: Signal<Local, Bits<L>>,
    thr_low: Signal<Local, Bits<K>>,
    xw: Signal<Local, bool>,
    yw: Signal<Local, bool>,
    zw: Signal<Local, bool>,
    fresh_reg: Signal<Local, bool>,
    fresh_row: Signal<Local, bool>,
    fresh: Signal<Local, bool>,
    q_nonempty: Signal<Local, bool>,
    h_reg: Signal<Local, bool>,
    h_warp: Signal<Local, Bits<WARP_BITS>>,
    h_rn: Signal<Local, Bits<REG_BITS>>,
    h_row: Signal<Local, Bits<RB>>,
    pop_fresh: Signal<Local, bool>,
    pop_q: Signal<Local, bool>,
    arrive: Signal<Local, bool>,
    push: Signal<Local, bool>,
    reg_wrap: Signal<Local, bool>,
    head_n: Signal<Local, Bits<4>>,
    tail_n: Signal<Local, Bits<4>>,
    infl_n: Signal<Local, Bits<4>>,
    walk_done: Signal<Local, bool>,
    wlast: Signal<Local, bool>,
    left_zero: Signal<Local, bool>,
    st_n: Signal<Local, Bits<2>>,
    all_alloc_n: Signal<Local, bool>,
    launching_n: Signal<Local, bool>,
    any_busy: Signal<Local, bool>,
    wst_acc: Signal<Local, Bits<2>>,
    _slots: usize,
    _w: usize,
    _l_below: usize,
}

impl<const L: usize, const W: usize, const K: usize, const RB: usize, const IB: usize>
    LaunchUnit<L, W, K, RB, IB>
{
    /// The unit for the core of `hw` (`L`, `W`, `K`, `RB`, `IB` must match
    /// it).
    pub fn new(hw: &HwParams) -> Self {
        let bs = hw.block_slots;
        assert_eq!(L, hw.lanes, "L");
        assert_eq!(W, hw.warps, "W");
        assert!((1..=16).contains(&W) && (1..=W).contains(&bs), "W, BS");
        assert_eq!(1 << K, (L * W).next_power_of_two(), "K = Kt");
        assert_eq!(1 << RB, hw.shared_rows, "RB = row_bits");
        assert!(
            1 << IB > (hw.registers * W).max(hw.shared_rows),
            "IB holds every init-slot index and clear_rows"
        );
        fn sig<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| Default::default()).collect()
        }
        fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
            Constant::new(Bits::<N>::from(v))
        }
        let all_ones = |n: usize| if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        let exist = all_ones(bs);
        // Bit `j` of each slot number `k < BS ≤ 16` as an all-ones mask.
        let m5 = |j: usize| -> Vec<Constant<Bits<COUNT_BITS>>> {
            (0..bs)
                .map(|s| k(if s >> j & 1 == 1 { 0x1F } else { 0 }))
                .collect()
        };
        let mr = |j: usize| -> Vec<Constant<Bits<RB>>> {
            (0..bs)
                .map(|s| k(if s >> j & 1 == 1 { all_ones(RB) } else { 0 }))
                .collect()
        };
        LaunchUnit {
            clock: Default::default(),
            reset: Default::default(),
            host_start: Default::default(),
            grid_x: Default::default(),
            grid_y: Default::default(),
            grid_z: Default::default(),
            block_x: Default::default(),
            block_y: Default::default(),
            threads: Default::default(),
            nwarps: Default::default(),
            resident: Default::default(),
            window_rows: Default::default(),
            clear_rows: Default::default(),
            clear_regs: Default::default(),
            run: Default::default(),
            halt: Default::default(),
            held: Default::default(),
            trap_slots: Default::default(),
            init_take: Default::default(),
            a_init: Default::default(),
            a_refused: Default::default(),
            a_has_reg: Default::default(),
            a_warp: Default::default(),
            a_reg: Default::default(),
            a_row: Default::default(),
            retire: Default::default(),
            retire_slot: Default::default(),
            state: sig(bs),
            ctaid_x: sig(bs),
            ctaid_y: sig(bs),
            ctaid_z: sig(bs),
            older: sig(bs),
            base_warp: sig(bs),
            base_row: sig(bs),
            smask: sig(bs),
            wslot: sig(W),
            wib: sig(W),
            wstate: sig(W),
            alloc: Default::default(),
            alloc_slot: Default::default(),
            alloc_oh: Default::default(),
            alloc_warps: Default::default(),
            tid_we: Default::default(),
            tid_lane: Default::default(),
            tid_warp: Default::default(),
            tid_x: Default::default(),
            tid_y: Default::default(),
            tid_z: Default::default(),
            tid_last: Default::default(),
            init_req: Default::default(),
            init_has_reg: Default::default(),
            init_warp: Default::default(),
            init_reg: Default::default(),
            init_has_row: Default::default(),
            init_row: Default::default(),
            start: Default::default(),
            start_slot: Default::default(),
            start_warps: Default::default(),
            start_alive: sig(W),
            tr_alloc: Default::default(),
            tr_alloc_slot: Default::default(),
            tr_start: Default::default(),
            tr_start_slot: Default::default(),
            tr_retire: Default::default(),
            tr_retire_slot: Default::default(),
            count_blocks: Default::default(),
            all_done: Default::default(),
            active: Default::default(),
            launching: Default::default(),
            walk: TidWalk::default(),
            st_q: sig(bs),
            cx_q: sig(bs),
            cy_q: sig(bs),
            cz_q: sig(bs),
            older_q: sig(bs),
            bw_q: sig(bs),
            br_q: sig(bs),
            sm_q: sig(bs),
            wslot_q: sig(W),
            wib_q: sig(W),
            gx_q: Default::default(),
            gy_q: Default::default(),
            gz_q: Default::default(),
            all_alloc_q: Default::default(),
            launching_q: Default::default(),
            lslot_q: Default::default(),
            loh_q: Default::default(),
            walked_q: Default::default(),
            wgo_q: Default::default(),
            wcnt_q: Default::default(),
            idx_q: Default::default(),
            rctr_q: Default::default(),
            wrel_q: Default::default(),
            wabs_q: Default::default(),
            rowc_q: Default::default(),
            head_q: Default::default(),
            tail_q: Default::default(),
            e_reg: LutRam::new(1),
            e_warp: LutRam::new(WARP_BITS),
            e_rn: LutRam::new(REG_BITS),
            e_row: LutRam::new(RB),
            inflight_q: Default::default(),
            c_free: k(ST_FREE),
            c_launch: k(ST_LAUNCH),
            c_run: k(ST_RUN),
            c_frozen: k(ST_FROZEN),
            one32: k(1),
            zero32: k(0),
            one_ib: k(1),
            zero_ib: k(0),
            one_cr: k(1),
            zero_cr: k(0),
            one_cnt: k(1),
            zero_cnt: k(0),
            one_w4: k(1),
            zero_w4: k(0),
            zero_s4: k(0),
            one_rb: k(1),
            zero_rb: k(0),
            one_set: k(1),
            zero_set: k(0),
            zero_w: k(0),
            zero_l: k(0),
            ones_l: k(all_ones(L)),
            lane_mod: k(L as u64 - 1),
            zero_k: k(0),
            one_k: k(1),
            one2: k(1),
            zero2: k(0),
            one4: k(1),
            zero_rn: k(0),
            zero4: k(0),
            sh1: k(1),
            sh2: k(2),
            sh3: k(3),
            k_idx: (0..bs).map(|s| k(s as u64)).collect(),
            k_bit: (0..bs).map(|s| k(1 << s)).collect(),
            k_others: (0..bs).map(|s| k(exist & !(1 << s))).collect(),
            k_cnt: (0..bs).map(|s| k(s as u64)).collect(),
            m5_0: m5(0),
            m5_1: m5(1),
            m5_2: m5(2),
            m5_3: m5(3),
            mr_0: mr(0),
            mr_1: mr(1),
            mr_2: mr(2),
            mr_3: mr(3),
            w_bit: (0..W).map(|w| k(1 << w)).collect(),
            w_idx: (0..W).map(|w| k(w as u64)).collect(),
            w_cnt: (0..W).map(|w| k(w as u64)).collect(),
            l_bit: (0..L - 1).map(|l| k(1 << l)).collect(),
            l_num: (0..L - 1).map(|l| k(l as u64)).collect(),
            b_lo: Default::default(),
            b_hi: Default::default(),
            t_lo: Default::default(),
            t_hi: Default::default(),
            sm: Default::default(),
            apick: Default::default(),
            any_used: Default::default(),
            retire_oh: Default::default(),
            freeze: Default::default(),
            frz: Default::default(),
            free: Default::default(),
            pick: Default::default(),
            blocked: Default::default(),
            do_alloc: Default::default(),
            cancel: Default::default(),
            do_start: Default::default(),
            pslot: Default::default(),
            pbase: Default::default(),
            prow: Default::default(),
            pwarps: Default::default(),
            lwarps: Default::default(),
            lastw: Default::default(),
            lalive: Default::default(),
            thr_low: Default::default(),
            xw: Default::default(),
            yw: Default::default(),
            zw: Default::default(),
            fresh_reg: Default::default(),
            fresh_row: Default::default(),
            fresh: Default::default(),
            q_nonempty: Default::default(),
            h_reg: Default::default(),
            h_warp: Default::default(),
            h_rn: Default::default(),
            h_row: Default::default(),
            pop_fresh: Default::default(),
            pop_q: Default::default(),
            arrive: Default::default(),
            push: Default::default(),
            reg_wrap: Default::default(),
            head_n: Default::default(),
            tail_n: Default::default(),
            infl_n: Default::default(),
            walk_done: Default::default(),
            wlast: Default::default(),
            left_zero: Default::default(),
            st_n: Default::default(),
            all_alloc_n: Default::default(),
            launching_n: Default::default(),
            any_busy: Default::default(),
            wst_acc: Default::default(),
            _slots: bs,
            _w: W,
            _l_below: L - 1,
        }
    }
}

impl<const L: usize, const W: usize, const K: usize, const RB: usize, const IB: usize> Logic
    for LaunchUnit<L, W, K, RB, IB>
{
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..self._slots {
            self.st_q[i].clock.next = self.clock.val();
            self.st_q[i].reset.next = self.reset.val();
            self.cx_q[i].clock.next = self.clock.val();
            self.cx_q[i].reset.next = self.reset.val();
            self.cy_q[i].clock.next = self.clock.val();
            self.cy_q[i].reset.next = self.reset.val();
            self.cz_q[i].clock.next = self.clock.val();
            self.cz_q[i].reset.next = self.reset.val();
            self.older_q[i].clock.next = self.clock.val();
            self.older_q[i].reset.next = self.reset.val();
            self.bw_q[i].clock.next = self.clock.val();
            self.bw_q[i].reset.next = self.reset.val();
            self.br_q[i].clock.next = self.clock.val();
            self.br_q[i].reset.next = self.reset.val();
            self.sm_q[i].clock.next = self.clock.val();
            self.sm_q[i].reset.next = self.reset.val();
        }
        for w in 0..self._w {
            self.wslot_q[w].clock.next = self.clock.val();
            self.wslot_q[w].reset.next = self.reset.val();
            self.wib_q[w].clock.next = self.clock.val();
            self.wib_q[w].reset.next = self.reset.val();
        }
        self.e_reg.clock.next = self.clock.val();
        self.e_warp.clock.next = self.clock.val();
        self.e_rn.clock.next = self.clock.val();
        self.e_row.clock.next = self.clock.val();
        self.gx_q.clock.next = self.clock.val();
        self.gx_q.reset.next = self.reset.val();
        self.gy_q.clock.next = self.clock.val();
        self.gy_q.reset.next = self.reset.val();
        self.gz_q.clock.next = self.clock.val();
        self.gz_q.reset.next = self.reset.val();
        self.all_alloc_q.clock.next = self.clock.val();
        self.all_alloc_q.reset.next = self.reset.val();
        self.launching_q.clock.next = self.clock.val();
        self.launching_q.reset.next = self.reset.val();
        self.lslot_q.clock.next = self.clock.val();
        self.lslot_q.reset.next = self.reset.val();
        self.loh_q.clock.next = self.clock.val();
        self.loh_q.reset.next = self.reset.val();
        self.walked_q.clock.next = self.clock.val();
        self.walked_q.reset.next = self.reset.val();
        self.wgo_q.clock.next = self.clock.val();
        self.wgo_q.reset.next = self.reset.val();
        self.wcnt_q.clock.next = self.clock.val();
        self.wcnt_q.reset.next = self.reset.val();
        self.idx_q.clock.next = self.clock.val();
        self.idx_q.reset.next = self.reset.val();
        self.rctr_q.clock.next = self.clock.val();
        self.rctr_q.reset.next = self.reset.val();
        self.wrel_q.clock.next = self.clock.val();
        self.wrel_q.reset.next = self.reset.val();
        self.wabs_q.clock.next = self.clock.val();
        self.wabs_q.reset.next = self.reset.val();
        self.rowc_q.clock.next = self.clock.val();
        self.rowc_q.reset.next = self.reset.val();
        self.head_q.clock.next = self.clock.val();
        self.head_q.reset.next = self.reset.val();
        self.tail_q.clock.next = self.clock.val();
        self.tail_q.reset.next = self.reset.val();
        self.inflight_q.clock.next = self.clock.val();
        self.inflight_q.reset.next = self.reset.val();
        self.walk.clock.next = self.clock.val();
        self.walk.reset.next = self.reset.val();
        // START clears these registers through their load ports, so that
        // no next-state logic here reads `host_start`: it comes from the
        // host bus, and Verilator evaluates every combinational block that
        // reads a top-level input at both `eval()`s of a cycle (and the
        // hardware is the same multiplexer in front of the flip-flop).
        for i in 0..self._slots {
            self.st_q[i].ld.next = self.host_start.val();
            self.st_q[i].lv.next = self.c_free.val();
            self.st_q[i].en.next = true;
            self.older_q[i].ld.next = self.host_start.val();
            self.older_q[i].lv.next = self.zero_set.val();
            self.older_q[i].en.next = true;
        }
        for w in 0..self._w {
            self.wslot_q[w].ld.next = self.host_start.val();
            self.wslot_q[w].lv.next = self.zero_s4.val();
            self.wslot_q[w].en.next = true;
            self.wib_q[w].ld.next = self.host_start.val();
            self.wib_q[w].lv.next = self.zero_w4.val();
            self.wib_q[w].en.next = true;
        }
        self.gx_q.ld.next = self.host_start.val();
        self.gx_q.lv.next = self.zero32.val();
        self.gx_q.en.next = true;
        self.gy_q.ld.next = self.host_start.val();
        self.gy_q.lv.next = self.zero32.val();
        self.gy_q.en.next = true;
        self.gz_q.ld.next = self.host_start.val();
        self.gz_q.lv.next = self.zero32.val();
        self.gz_q.en.next = true;
        self.all_alloc_q.ld.next = self.host_start.val();
        self.all_alloc_q.lv.next = false;
        self.all_alloc_q.en.next = true;
        self.launching_q.ld.next = self.host_start.val();
        self.launching_q.lv.next = false;
        self.launching_q.en.next = true;

        // Per-launch constants, registered: k · nwarps (shifted adds of
        // the bits of k), k · window_rows (window_rows is a power of two:
        // an OR of shifted copies), slot k's warps [k·nwarps, (k+1)·nwarps)
        // as the difference of two thermometer codes.
        for i in 0..self._slots {
            self.b_lo.next = (self.nwarps.val() & self.m5_0[i].val())
                + ((self.nwarps.val() << self.sh1.val()) & self.m5_1[i].val())
                + ((self.nwarps.val() << self.sh2.val()) & self.m5_2[i].val())
                + ((self.nwarps.val() << self.sh3.val()) & self.m5_3[i].val());
            self.b_hi.next = self.b_lo.val() + self.nwarps.val();
            self.t_lo.next = self.zero_w.val();
            self.t_hi.next = self.zero_w.val();
            for w in 0..self._w {
                if self.w_cnt[w].val() < self.b_lo.val() {
                    self.t_lo.next = self.t_lo.val() | self.w_bit[w].val();
                }
                if self.w_cnt[w].val() < self.b_hi.val() {
                    self.t_hi.next = self.t_hi.val() | self.w_bit[w].val();
                }
            }
            self.sm.next = self.t_hi.val() & !self.t_lo.val();
            if self.k_cnt[i].val() >= self.resident.val() {
                self.sm.next = self.zero_w.val();
            }
            self.sm_q[i].d.next = self.sm.val();
            self.bw_q[i].d.next = self.b_lo.val().get_bits::<WARP_BITS>(0);
            self.br_q[i].d.next = (self.window_rows.val() & self.mr_0[i].val())
                | ((self.window_rows.val() << self.sh1.val()) & self.mr_1[i].val())
                | ((self.window_rows.val() << self.sh2.val()) & self.mr_2[i].val())
                | ((self.window_rows.val() << self.sh3.val()) & self.mr_3[i].val());
        }
        // Per warp: its slot's state (the slot masks are fixed for the
        // launch, so a warp of no slot reads `ST_FREE`).
        for w in 0..self._w {
            self.wst_acc.next = self.c_free.val();
            for i in 0..self._slots {
                if (self.sm_q[i].q.val() & self.w_bit[w].val()).any() {
                    self.wst_acc.next = self.wst_acc.val() | self.st_q[i].q.val();
                }
            }
            self.wstate[w].next = self.wst_acc.val();
            self.wslot[w].next = self.wslot_q[w].q.val();
            self.wib[w].next = self.wib_q[w].q.val();
        }

        // Retire, freeze and the free slots after A (§9.4, §13.2).
        self.retire_oh.next = self.zero_set.val();
        self.freeze.next = self.zero_set.val();
        self.free.next = self.zero_set.val();
        for i in 0..self._slots {
            if self.retire.val() & (self.retire_slot.val() == self.k_idx[i].val()) {
                self.retire_oh.next = self.retire_oh.val() | self.k_bit[i].val();
            }
            self.frz.next =
                (self.trap_slots.val() & (self.older_q[i].q.val() | self.k_bit[i].val())).any()
                    & ((self.st_q[i].q.val() == self.c_launch.val())
                        | (self.st_q[i].q.val() == self.c_run.val()));
            if self.frz.val() {
                self.freeze.next = self.freeze.val() | self.k_bit[i].val();
            }
            if ((self.st_q[i].q.val() == self.c_free.val()) | self.retire_oh.val().get_bit(i))
                & (self.k_cnt[i].val() < self.resident.val())
            {
                self.free.next = self.free.val() | self.k_bit[i].val();
            }
        }
        // Allocation (§12.3): the lowest free slot.
        self.pick.next = self.free.val() & (!self.free.val() + self.one_set.val());
        self.blocked.next = self.held.val()
            | self.trap_slots.val().any()
            | self.halt.val()
            | !self.run.val()
            | self.all_alloc_q.q.val();
        self.do_alloc.next =
            !self.launching_q.q.val() & !self.blocked.val() & self.free.val().any();
        self.apick.next = self.zero_set.val();
        if self.do_alloc.val() {
            self.apick.next = self.pick.val();
        }
        self.pslot.next = self.zero_s4.val();
        self.pbase.next = self.zero_w4.val();
        self.prow.next = self.zero_rb.val();
        self.pwarps.next = self.zero_w.val();
        self.lwarps.next = self.zero_w.val();
        for i in 0..self._slots {
            if self.apick.val().get_bit(i) {
                self.pslot.next = self.pslot.val() | self.k_idx[i].val();
                self.pbase.next = self.pbase.val() | self.bw_q[i].q.val();
                self.prow.next = self.prow.val() | self.br_q[i].q.val();
                self.pwarps.next = self.pwarps.val() | self.sm_q[i].q.val();
            }
            if self.loh_q.q.val().get_bit(i) {
                self.lwarps.next = self.lwarps.val() | self.sm_q[i].q.val();
            }
        }
        self.alloc.next = self.do_alloc.val();
        self.alloc_slot.next = self.pslot.val();
        self.alloc_oh.next = self.apick.val();
        self.alloc_warps.next = self.pwarps.val();
        self.tr_alloc.next = self.do_alloc.val();
        self.tr_alloc_slot.next = self.pslot.val();

        // `wslot` and `wib` are written when the warp's slot is allocated
        // (§12.3) and cleared by START, as the model's warp state: they are
        // read in `DBG_FLAGS` for any warp.
        for w in 0..self._w {
            self.wslot_q[w].d.next = self.wslot_q[w].q.val();
            self.wib_q[w].d.next = self.wib_q[w].q.val();
            if (self.pwarps.val() & self.w_bit[w].val()).any() {
                self.wslot_q[w].d.next = self.pslot.val();
                self.wib_q[w].d.next = self.w_idx[w].val() - self.pbase.val();
            }
        }

        // The thread-id walk (§12.4).
        self.walk.go.next = self.do_alloc.val();
        self.walk.base.next = self.pbase.val();
        self.walk.threads.next = self.threads.val();
        self.walk.block_x.next = self.block_x.val();
        self.walk.block_y.next = self.block_y.val();
        self.tid_we.next = self.walk.we.val();
        self.tid_lane.next = self.walk.lane.val();
        self.tid_warp.next = self.walk.warp.val();
        self.tid_x.next = self.walk.x.val();
        self.tid_y.next = self.walk.y.val();
        self.tid_z.next = self.walk.z.val();
        self.tid_last.next = self.walk.last.val();
        // The walk's last write, from a count of its own: reading the
        // walk's `last` here, in the statements that also compute its `go`,
        // would be a combinational loop to Verilator (UNOPTFLAT), although
        // `last` does not depend on `go`. `wcnt` = writes left after this
        // one (`threads − 1` at the first).
        self.wlast.next = self.wgo_q.q.val() & (self.wcnt_q.q.val() == self.zero_k.val());
        self.walk_done.next = self.wlast.val() | self.walked_q.q.val();

        // Init slots (§12.3): the indices never issued (counters), then
        // the requeued refusals (FIFO in LUT-RAM, read asynchronously at
        // its head: flip-flop entries cost an AND-OR over the entries per
        // target bit, about 100 LUT4 at 8 entries).
        self.fresh_reg.next = (self.clear_regs.val() != self.zero_cr.val())
            & (self.wrel_q.q.val() < self.nwarps.val());
        self.fresh_row.next = self.idx_q.q.val() < self.clear_rows.val();
        self.fresh.next = self.fresh_reg.val() | self.fresh_row.val();
        self.q_nonempty.next = self.head_q.q.val() != self.tail_q.q.val();
        self.e_reg.raddr.next = self.head_q.q.val();
        self.e_warp.raddr.next = self.head_q.q.val();
        self.e_rn.raddr.next = self.head_q.q.val();
        self.e_row.raddr.next = self.head_q.q.val();
        self.h_reg.next = self.e_reg.rdata.val().any();
        self.h_warp.next = self.e_warp.rdata.val();
        self.h_rn.next = self.e_rn.rdata.val();
        self.h_row.next = self.e_row.rdata.val();
        self.init_req.next = self.launching_q.q.val() & (self.fresh.val() | self.q_nonempty.val());
        self.init_has_reg.next = self.h_reg.val();
        self.init_warp.next = self.h_warp.val();
        self.init_reg.next = self.h_rn.val();
        self.init_has_row.next = true;
        self.init_row.next = self.h_row.val();
        if self.fresh.val() {
            self.init_has_reg.next = self.fresh_reg.val();
            self.init_warp.next = self.wabs_q.q.val();
            self.init_reg.next = self.rctr_q.q.val().get_bits::<REG_BITS>(0);
            self.init_has_row.next = self.fresh_row.val();
            self.init_row.next = self.rowc_q.q.val();
        }
        // An absent target reads 0 (§15.2: `tr_s_warp` of an init slot
        // without a register is 0), so the core can trace `init_warp` as is.
        if !self.init_has_reg.val() {
            self.init_warp.next = self.zero_w4.val();
            self.init_reg.next = self.zero_rn.val();
        }
        if !self.init_has_row.val() {
            self.init_row.next = self.zero_rb.val();
        }
        self.pop_fresh.next = self.init_take.val() & self.launching_q.q.val() & self.fresh.val();
        self.pop_q.next = self.init_take.val()
            & self.launching_q.q.val()
            & !self.fresh.val()
            & self.q_nonempty.val();
        self.arrive.next = self.a_init.val() & self.launching_q.q.val();
        self.push.next = self.arrive.val() & self.a_refused.val();
        self.head_n.next = self.head_q.q.val();
        if self.pop_q.val() {
            self.head_n.next = self.head_q.q.val() + self.one4.val();
        }
        self.tail_n.next = self.tail_q.q.val();
        if self.push.val() {
            self.tail_n.next = self.tail_q.q.val() + self.one4.val();
        }
        self.e_reg.we.next = self.push.val();
        self.e_warp.we.next = self.push.val();
        self.e_rn.we.next = self.push.val();
        self.e_row.we.next = self.push.val();
        self.e_reg.waddr.next = self.tail_q.q.val();
        self.e_warp.waddr.next = self.tail_q.q.val();
        self.e_rn.waddr.next = self.tail_q.q.val();
        self.e_row.waddr.next = self.tail_q.q.val();
        self.e_reg.wdata.next = self.zero2.val();
        if self.a_has_reg.val() {
            self.e_reg.wdata.next = self.one2.val();
        }
        self.e_warp.wdata.next = self.a_warp.val();
        self.e_rn.wdata.next = self.a_reg.val();
        self.e_row.wdata.next = self.a_row.val();
        self.infl_n.next = self.inflight_q.q.val();
        if self.pop_fresh.val() | self.pop_q.val() {
            self.infl_n.next = self.infl_n.val() + self.one4.val();
        }
        if self.arrive.val() {
            self.infl_n.next = self.infl_n.val() - self.one4.val();
        }
        // The model's `left == 0` after this cycle's take and arrival: an
        // index taken from the counter is then in flight.
        self.left_zero.next = !self.fresh.val()
            & (self.head_n.val() == self.tail_n.val())
            & (self.infl_n.val() == self.zero4.val());

        // Start (§12.3) and the end of a launch.
        self.cancel.next =
            self.launching_q.q.val() & (self.freeze.val() & self.loh_q.q.val()).any();
        self.do_start.next = self.launching_q.q.val()
            & !self.cancel.val()
            & self.run.val()
            & !self.halt.val()
            & self.walk_done.val()
            & self.left_zero.val();
        self.start.next = self.do_start.val();
        self.start_slot.next = self.zero_s4.val();
        self.start_warps.next = self.zero_w.val();
        if self.do_start.val() {
            self.start_slot.next = self.lslot_q.q.val();
            self.start_warps.next = self.lwarps.val();
        }
        self.tr_start.next = self.do_start.val();
        self.tr_start_slot.next = self.start_slot.val();
        // alive: lanes l with wib·L + l < threads: every lane but in the
        // block's last warp, where l < threads mod L (all if 0).
        self.lastw.next = self.lwarps.val() & !(self.lwarps.val() >> self.sh1.val());
        self.thr_low.next = self.threads.val() & self.lane_mod.val();
        self.lalive.next = self.zero_l.val();
        // Lane L − 1 is alive only when threads mod L is 0 (below).
        for l in 0..self._l_below {
            if self.l_num[l].val() < self.thr_low.val() {
                self.lalive.next = self.lalive.val() | self.l_bit[l].val();
            }
        }
        if self.thr_low.val() == self.zero_k.val() {
            self.lalive.next = self.ones_l.val();
        }
        for w in 0..self._w {
            self.start_alive[w].next = self.zero_l.val();
            if (self.start_warps.val() & self.w_bit[w].val()).any() {
                self.start_alive[w].next = self.ones_l.val();
                if (self.lastw.val() & self.w_bit[w].val()).any() {
                    self.start_alive[w].next = self.lalive.val();
                }
            }
        }

        // Retire (§12.5) and its trace and counter events.
        self.tr_retire.next = self.retire.val();
        self.tr_retire_slot.next = self.zero_s4.val();
        if self.retire.val() {
            self.tr_retire_slot.next = self.retire_slot.val();
        }
        self.count_blocks.next = self.retire.val();

        // Launch registers.
        self.launching_n.next = self.launching_q.q.val();
        if self.do_start.val() | self.cancel.val() {
            self.launching_n.next = false;
        }
        if self.do_alloc.val() {
            self.launching_n.next = true;
        }
        self.launching_q.d.next = self.launching_n.val();
        self.launching.next = self.launching_q.q.val();
        self.lslot_q.d.next = self.lslot_q.q.val();
        self.loh_q.d.next = self.loh_q.q.val();
        self.walked_q.d.next = self.walk_done.val();
        self.wgo_q.d.next = self.wgo_q.q.val() & !self.wlast.val();
        self.wcnt_q.d.next = self.wcnt_q.q.val() - self.one_k.val();
        self.idx_q.d.next = self.idx_q.q.val();
        self.rctr_q.d.next = self.rctr_q.q.val();
        self.wrel_q.d.next = self.wrel_q.q.val();
        self.wabs_q.d.next = self.wabs_q.q.val();
        self.rowc_q.d.next = self.rowc_q.q.val();
        self.reg_wrap.next = (self.rctr_q.q.val() + self.one_cr.val()) == self.clear_regs.val();
        if self.pop_fresh.val() {
            self.idx_q.d.next = self.idx_q.q.val() + self.one_ib.val();
            self.rowc_q.d.next = self.rowc_q.q.val() + self.one_rb.val();
            if self.fresh_reg.val() {
                self.rctr_q.d.next = self.rctr_q.q.val() + self.one_cr.val();
                if self.reg_wrap.val() {
                    self.rctr_q.d.next = self.zero_cr.val();
                    self.wrel_q.d.next = self.wrel_q.q.val() + self.one_cnt.val();
                    self.wabs_q.d.next = self.wabs_q.q.val() + self.one_w4.val();
                }
            }
        }
        self.head_q.d.next = self.head_n.val();
        self.tail_q.d.next = self.tail_n.val();
        self.inflight_q.d.next = self.infl_n.val();
        if self.do_alloc.val() {
            self.lslot_q.d.next = self.pslot.val();
            self.loh_q.d.next = self.pick.val();
            self.walked_q.d.next = false;
            self.wgo_q.d.next = true;
            self.wcnt_q.d.next = self.threads.val() - self.one_k.val();
            self.idx_q.d.next = self.zero_ib.val();
            self.rctr_q.d.next = self.zero_cr.val();
            self.wrel_q.d.next = self.zero_cnt.val();
            self.wabs_q.d.next = self.pbase.val();
            self.rowc_q.d.next = self.prow.val();
            self.head_q.d.next = self.zero4.val();
            self.tail_q.d.next = self.zero4.val();
            self.inflight_q.d.next = self.zero4.val();
        }

        // The grid walk: the next block's (x, y, z), x fastest.
        self.xw.next = (self.gx_q.q.val() + self.one32.val()) == self.grid_x.val();
        self.yw.next = (self.gy_q.q.val() + self.one32.val()) == self.grid_y.val();
        self.zw.next = (self.gz_q.q.val() + self.one32.val()) == self.grid_z.val();
        self.gx_q.d.next = self.gx_q.q.val();
        self.gy_q.d.next = self.gy_q.q.val();
        self.gz_q.d.next = self.gz_q.q.val();
        self.all_alloc_n.next = self.all_alloc_q.q.val();
        if self.do_alloc.val() {
            self.gx_q.d.next = self.gx_q.q.val() + self.one32.val();
            if self.xw.val() {
                self.gx_q.d.next = self.zero32.val();
                self.gy_q.d.next = self.gy_q.q.val() + self.one32.val();
                if self.yw.val() {
                    self.gy_q.d.next = self.zero32.val();
                    self.gz_q.d.next = self.gz_q.q.val() + self.one32.val();
                    if self.zw.val() {
                        self.all_alloc_n.next = true;
                    }
                }
            }
        }
        self.all_alloc_q.d.next = self.all_alloc_n.val();

        // Block slots: state, ctaid, age rows.
        self.any_busy.next = false;
        self.any_used.next = false;
        for i in 0..self._slots {
            self.st_n.next = self.st_q[i].q.val();
            if self.freeze.val().get_bit(i) {
                self.st_n.next = self.c_frozen.val();
            }
            if self.retire_oh.val().get_bit(i) {
                self.st_n.next = self.c_free.val();
            }
            if self.do_start.val() & self.loh_q.q.val().get_bit(i) {
                self.st_n.next = self.c_run.val();
            }
            if self.apick.val().get_bit(i) {
                self.st_n.next = self.c_launch.val();
            }
            self.st_q[i].d.next = self.st_n.val();
            self.any_busy.next = self.any_busy.val()
                | (self.st_n.val() == self.c_launch.val())
                | (self.st_n.val() == self.c_run.val());
            self.any_used.next = self.any_used.val() | (self.st_n.val() != self.c_free.val());
            self.cx_q[i].d.next = self.cx_q[i].q.val();
            self.cy_q[i].d.next = self.cy_q[i].q.val();
            self.cz_q[i].d.next = self.cz_q[i].q.val();
            self.older_q[i].d.next = self.older_q[i].q.val() & !self.apick.val();
            if self.apick.val().get_bit(i) {
                self.cx_q[i].d.next = self.gx_q.q.val();
                self.cy_q[i].d.next = self.gy_q.q.val();
                self.cz_q[i].d.next = self.gz_q.q.val();
                self.older_q[i].d.next = self.k_others[i].val();
            }
            self.state[i].next = self.st_q[i].q.val();
            self.ctaid_x[i].next = self.cx_q[i].q.val();
            self.ctaid_y[i].next = self.cy_q[i].q.val();
            self.ctaid_z[i].next = self.cz_q[i].q.val();
            self.older[i].next = self.older_q[i].q.val();
            self.base_warp[i].next = self.bw_q[i].q.val();
            self.base_row[i].next = self.br_q[i].q.val();
            self.smask[i].next = self.sm_q[i].q.val();
        }
        // The values at the end of the cycle: after START every slot is
        // free, nothing is allocated and no launch is in progress (the
        // registers' load ports above, so stated here again).
        self.active.next = self.any_busy.val() & !self.host_start.val();
        self.all_done.next = self.all_alloc_n.val()
            & !self.launching_n.val()
            & !self.any_used.val()
            & !self.host_start.val();
    }
}
