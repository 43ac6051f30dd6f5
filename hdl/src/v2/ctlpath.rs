//! The control path of Core v2 from stage R to the commit at the end of A
//! (docs/microarchitecture.md §5.2, §8, §9): the block the integrated
//! top (`core.rs`) instantiates once, holding
//!
//! * the R→X→A registers of the pass's control information (class, target,
//!   memory space and width, `exec`, the consensual branch's `taken`, and at
//!   A the warp's `gpc`, `gdepth`, `alive`, `waiting` read at X);
//! * one [`XLane`] per lane (next PC and depth, keys, join, checks) and the
//!   divergence compare [`XDiverge`];
//! * the lane-PC LUT-RAMs, two copies per lane (§5.2: copy 1 read at X,
//!   copy 2 by the re-arbitration engine, both written by the commit) and
//!   the per-warp, per-lane depth flip-flops (§5.1, cleared when the warp
//!   starts);
//! * the arbiter(s) (`unified`: one; `split`: a branch and a memory
//!   arbiter, §9.1–9.2) with the key register shared by stage X and the
//!   engine (§9.5): the engine's keys are registered here and ORed into
//!   the arbiter's inputs, which is exact because the engine loads keys only
//!   in a cycle whose pass in X leaves the tree's key register free. Each
//!   arbiter is a comparison matrix (§19.4), not a tree of comparators:
//!   [`KeyCompare`] compares every pair of the keys entering the key
//!   register (X's and the engine's, ORed as above), its rows are
//!   registered beside the keys, and [`RowSelect`] in A selects from them
//!   with no comparator on A's path;
//! * [`ACommit`] (§9.3–9.5) and the slots' `arrived` / `exited` counts
//!   (§5.3, cleared when the slot is allocated);
//! * the trace fields of A (`tr_a_served`, `tr_a_gpc`, `tr_a_gmask`,
//!   `tr_a_pcw`, `tr_tree`, `tr_rearb_warp`), registered, and the counter
//!   events of §15.1 that the commit and the engine raise.
//!
//! **Widths.** The block is generic in `L` only: pcs and depths are the
//! warp state's fixed widths ([`PC_W`] = 16, [`DEPTH_W`] = 8, values
//! zero-extended) and keys [`KT`] = 32 bits, so that the body's fixed list
//! of const generics (`core.rs`, `body_verilog`) needs no new entry. The
//! branch key is then `(255 − depth) << 16 | pc`, which orders lanes
//! exactly as `(MAXD − depth) << pc_bits | pc` does (§9.1: only the order
//! of keys matters, and `ACommit` reads the depth field at bit 16 with
//! `MAXD` = 255, so it recovers the same depth). The cost is wider
//! comparators than a core needs (a later task sizes them per
//! configuration). The depth overflow check therefore is not [`XLane`]'s
//! (which tests depth 255) but this block's, against the configured
//! `MAXD` (`f_ovf`).
//!
//! **Interface with the data path** (`lane.rs`, helper branch `v2data`):
//! the data path gives, per lane at X, operand `a` (target of `jmp`,
//! `callr`, `ret`), the address `a + imm` and the store data; this block
//! gives at A the served lanes of a memory pass (`served`), the registered
//! store data and byte enables (`sd`, `be`), and the commit itself
//! (`commit`). The link value of `call`/`callr` is `pc + 1`, warp-uniform:
//! the data path forms it from the pass's pc.

use concord_isa::instr::Consensus;
use concord_uarch::HwParams;
use rust_hdl_core::prelude::*;

use super::acommit::{ACommit, CNT_W, KM};
use super::decode::{Class, CLASSES, MSIZES, NCLS, NCONS, TARGET_W};
use super::resize::Resize;
use super::warpstate::{DEPTH_W, PC_W};
use super::xctl::{XDiverge, XLane, MSP_GLOBAL, MSP_SHARED};
use crate::arbiter::{KeyCompare, RowSelect};
use crate::util::{Ext, Reg, RegE};

use super::gentry::LutRam;

/// Key width of the tree(s) (see the module documentation).
pub const KT: usize = 32;
/// Width of the counter increments this block drives (`counters::INC_BITS`).
pub const EV_W: usize = 8;

/// Position of a class in the decoder's one-hot `cls`.
fn cls_bit(c: Class) -> usize {
    CLASSES.iter().position(|&x| x == c).unwrap()
}

/// The key bits the comparison matrices compare (§9.1): `(branch,
/// memory)` masks of [`KT`] bits. Only the keys of a pass that does not
/// trap (or of the engine) reach a commit, so a bit that is equal in all
/// of those keys orders nothing and is left out:
///
/// * branch keys: the pc field below `pc_bits` (a valid lane's pc, next or
///   stored, is below `code_len ≤ 2^pc_bits`: a next pc outside traps,
///   cause 10, and only such pcs are stored), and under `depth_pc` the
///   depth field's low bits that `0..=MAXD` uses (the field is `255 −
///   depth`, so its bits above are 1 in every key); the bits above the
///   depth field are 0 (above the pc field only an untrapped pass's `npc`
///   could set them);
/// * memory keys: the global line of an address below `G` bytes, the row of
///   an address below the shared memory's size (an executing lane at or
///   beyond its space's size traps, cause 1 or 2, §13.1).
pub fn live_key_bits(hw: &HwParams) -> (u64, u64) {
    fn low(bits: u32) -> u64 {
        if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        }
    }
    // Bits to write any value below `n`.
    fn width_below(n: u64) -> u32 {
        64 - n.saturating_sub(1).leading_zeros()
    }
    let depth_bits = width_below(u64::from(hw.max_call_depth) + 1);
    let mut branch = low(hw.pc_bits);
    if hw.depth_pc() {
        branch |= low(depth_bits) << PC_W;
    }
    let global = low(width_below(u64::from(hw.global_bytes)).saturating_sub(hw.global_line_shift));
    let shared = low(width_below(u64::from(hw.shared_bytes)).saturating_sub(hw.shared_row_shift));
    let all = low(KT as u32);
    assert!(branch <= all && global <= all && shared <= all);
    (branch, global | shared)
}

/// The control path for `L` lanes (see the module documentation).
#[derive(LogicBlock)]
pub struct CtlPath<const L: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    /// Host `START`: the depths and the slot counts are cleared.
    pub clear: Signal<In, bool>,
    // ---- R: the decoder's registered outputs ----
    pub r_pass: Signal<In, bool>,
    pub r_warp: Signal<In, Bits<4>>,
    pub r_cls: Signal<In, Bits<NCLS>>,
    pub r_cons: Signal<In, Bits<NCONS>>,
    pub r_target: Signal<In, Bits<TARGET_W>>,
    pub r_shared: Signal<In, bool>,
    pub r_msize: Signal<In, Bits<3>>,
    pub r_exec: Signal<In, Bits<L>>,
    pub r_pb: Signal<In, Bits<L>>,
    // ---- X ----
    pub x_pc: Signal<In, Bits<PC_W>>,
    pub x_active: Signal<In, Bits<L>>,
    /// The X warp's registers (the warp state read with `x_warp_oh`).
    pub x_gdepth: Signal<In, Bits<DEPTH_W>>,
    pub x_alive: Signal<In, Bits<L>>,
    pub x_waiting: Signal<In, Bits<L>>,
    /// Data path, per lane at X: operand `a`, address, store data.
    pub x_a: Vec<Signal<In, Bits<32>>>,
    pub x_addr: Vec<Signal<In, Bits<32>>>,
    pub x_sdata: Vec<Signal<In, Bits<32>>>,
    pub code_len: Signal<In, Bits<32>>,
    pub window: Signal<In, Bits<32>>,
    /// The warp in X, one-hot (0 for any other item).
    pub x_warp_oh: Signal<Out, Bits<16>>,
    // ---- A ----
    /// The pass in A commits nothing (it traps, or its slot is frozen).
    pub a_kill: Signal<In, bool>,
    /// The memory pass in A is refused (§10.1, §10.2).
    pub a_refused: Signal<In, bool>,
    // ---- slots and warps ----
    pub wslot: Vec<Signal<In, Bits<4>>>,
    pub wstate: Vec<Signal<In, Bits<2>>>,
    pub slot_warps: Vec<Signal<In, Bits<16>>>,
    pub threads: Signal<In, Bits<CNT_W>>,
    pub alloc: Signal<In, bool>,
    pub alloc_oh: Signal<In, Bits<16>>,
    pub start_warps: Signal<In, Bits<16>>,
    pub rearb: Signal<In, Bits<16>>,
    /// `CTRL.HALT` (§15.3): the engine loads no warp (and counts no wait);
    /// a warp it loaded in the cycle before is still computed.
    pub halt: Signal<In, bool>,
    pub e_alive: Signal<In, Bits<L>>,
    pub e_waiting: Signal<In, Bits<L>>,
    /// Debug registers (§15.3): the selected warp (index, one-hot) and lane.
    pub dbg_widx: Signal<In, Bits<4>>,
    pub dbg_woh: Signal<In, Bits<16>>,
    pub dbg_lane: Signal<In, Bits<5>>,
    /// Its stored pc (copy 2, when the engine does not load) and depth.
    pub dbg_pc: Signal<Out, Bits<PC_W>>,
    pub dbg_depth: Signal<Out, Bits<DEPTH_W>>,
    /// Each slot's `arrived` and `exited`.
    pub slot_arrived: Vec<Signal<Out, Bits<CNT_W>>>,
    pub slot_exited: Vec<Signal<Out, Bits<CNT_W>>>,
    // ---- outputs: the warp state's commit and engine ports ----
    pub e_sel: Signal<Out, Bits<16>>,
    pub c_we: Signal<Out, Bits<16>>,
    pub c_gmask: Signal<Out, Bits<L>>,
    pub c_gpc: Signal<Out, Bits<PC_W>>,
    pub c_gdepth: Signal<Out, Bits<DEPTH_W>>,
    pub c_alive: Signal<Out, Bits<L>>,
    pub c_waiting: Signal<Out, Bits<L>>,
    pub c_replay: Signal<Out, bool>,
    pub rel: Signal<Out, Bits<16>>,
    pub e_we: Signal<Out, Bits<16>>,
    pub e_gmask: Signal<Out, Bits<L>>,
    pub e_gpc: Signal<Out, Bits<PC_W>>,
    pub e_gdepth: Signal<Out, Bits<DEPTH_W>>,
    // ---- outputs to the data path and the launch unit ----
    pub commit: Signal<Out, bool>,
    pub served: Signal<Out, Bits<L>>,
    pub sd: Vec<Signal<Out, Bits<32>>>,
    pub be: Vec<Signal<Out, Bits<4>>>,
    pub retire: Signal<Out, bool>,
    pub retire_slot: Signal<Out, Bits<4>>,
    /// Trap flags of the pass in A (§13.1), per cause, lanes ORed.
    pub f_ovf: Signal<Out, bool>,
    pub f_ret0: Signal<Out, bool>,
    pub f_npc: Signal<Out, bool>,
    pub f_mis: Signal<Out, bool>,
    pub f_oob: Signal<Out, bool>,
    pub trap7: Signal<Out, bool>,
    /// Some lane of the pass in A has `f_ovf`, `f_ret0`, `f_npc`, `f_mis`
    /// or `f_oob`: the same as those ORed, but one register (formed from
    /// the flags' register inputs in X), so that A's kill starts at a
    /// flip-flop (§13.1, §19.4).
    pub a_flagged: Signal<Out, bool>,
    // ---- traps (v2trap): the faulting lanes per cause at A, each lane's
    // next PC, and cause 7's pc read through copy 2 (§13.3) ----
    pub m_ovf: Signal<Out, Bits<L>>,
    pub m_ret0: Signal<Out, Bits<L>>,
    pub m_npc: Signal<Out, Bits<L>>,
    pub m_mis: Signal<Out, Bits<L>>,
    pub m_oob: Signal<Out, Bits<L>>,
    pub a_npc: Vec<Signal<Out, Bits<32>>>,
    /// The trap unit reads lane `t_lane` (one-hot) of warp `t_warp`
    /// through copy 2 when `t_read` and the engine does not load.
    pub t_read: Signal<In, bool>,
    pub t_warp: Signal<In, Bits<4>>,
    pub t_lane: Signal<In, Bits<L>>,
    pub t_pc: Signal<Out, Bits<PC_W>>,
    // ---- counter events (§15.1) ----
    pub ev_issued: Signal<Out, bool>,
    pub ev_active: Signal<Out, Bits<EV_W>>,
    pub ev_executed: Signal<Out, Bits<EV_W>>,
    pub ev_replays: Signal<Out, bool>,
    pub ev_divergent: Signal<Out, bool>,
    pub ev_cons_taken: Signal<Out, bool>,
    pub ev_cons_not_taken: Signal<Out, bool>,
    pub ev_arrivals: Signal<Out, Bits<EV_W>>,
    pub ev_barriers: Signal<Out, bool>,
    pub ev_rearbs: Signal<Out, bool>,
    pub ev_rearb_wait: Signal<Out, bool>,
    // ---- trace (registered: the record of cycle c during c + 1) ----
    pub tr_a_served: Signal<Out, Bits<32>>,
    pub tr_a_gpc: Signal<Out, Bits<16>>,
    pub tr_a_gmask: Signal<Out, Bits<32>>,
    pub tr_a_pcw: Signal<Out, Bits<32>>,
    pub tr_tree: Signal<Out, Bits<3>>,
    pub tr_rearb_warp: Signal<Out, Bits<4>>,

    // R -> X
    x_pass: Reg<bool>,
    x_warp: Reg<Bits<4>>,
    x_ctl: Reg<Bits<8>>,
    x_taken: Reg<bool>,
    x_target: Reg<Bits<PC_W>>,
    x_msp: Reg<Bits<2>>,
    x_mtree: Reg<bool>,
    x_mem: Reg<bool>,
    x_atom: Reg<bool>,
    x_mw: Reg<Bits<3>>,
    x_exec: Reg<Bits<L>>,
    x_cons: Reg<bool>,
    x_perlane: Reg<bool>,
    // X -> A
    a_pass: Reg<bool>,
    a_warp: Reg<Bits<4>>,
    a_oh: Reg<Bits<16>>,
    a_ctl: Reg<Bits<8>>,
    a_mtree: Reg<bool>,
    a_mem: Reg<bool>,
    a_atom: Reg<bool>,
    a_taken: Reg<bool>,
    a_cons: Reg<bool>,
    a_perlane: Reg<bool>,
    a_gpc: Reg<Bits<PC_W>>,
    a_gdepth: Reg<Bits<DEPTH_W>>,
    a_alive: Reg<Bits<L>>,
    a_waiting: Reg<Bits<L>>,
    a_active: Reg<Bits<L>>,
    a_exec: Reg<Bits<L>>,
    a_ovf: Reg<Bits<L>>,
    a_flags: Reg<bool>,
    xl: Vec<XLane<PC_W, DEPTH_W, KT>>,
    div: XDiverge<L, PC_W, DEPTH_W>,
    pc1: Vec<LutRam<PC_W>>,
    pc2: Vec<LutRam<PC_W>>,
    /// Depth of lane `l` of warp `w` at `w · L + l`.
    dep: Vec<RegE<Bits<DEPTH_W>>>,
    /// The engine's keys (0 / invalid unless it loaded this cycle's keys).
    ek: Vec<Reg<Bits<KT>>>,
    ev: Vec<Reg<bool>>,
    /// The branch tree (`unified`: the only one) and the memory tree
    /// (`split` only; unused and constant-fed otherwise).
    tree_b: RowSelect<KT, L>,
    tree_m: RowSelect<KT, L>,
    /// The comparisons of the keys entering the key register (branch /
    /// memory arbiter; the memory one is constant-fed unless `split`), and
    /// their registered rows.
    cmp_b: KeyCompare<KT, L>,
    cmp_m: KeyCompare<KT, L>,
    rows_b: Vec<Reg<Bits<L>>>,
    rows_m: Vec<Reg<Bits<L>>>,
    ac: ACommit<L>,
    arrived: Vec<RegE<Bits<CNT_W>>>,
    exited: Vec<RegE<Bits<CNT_W>>>,
    // trace registers
    r_served: Reg<Bits<32>>,
    r_gpc: Reg<Bits<16>>,
    r_gmask: Reg<Bits<32>>,
    r_pcw: Reg<Bits<32>>,
    r_tree: Reg<Bits<3>>,
    r_rearb: Reg<Bits<4>>,
    z_served: Resize<L, 32>,
    z_gmask: Resize<L, 32>,
    z_pcw: Resize<L, 32>,
    x_spc: Vec<Ext<PC_W, KT>>,
    x_edep: Vec<Ext<DEPTH_W, KT>>,
    // locals
    x_oh: Signal<Local, Bits<16>>,
    e_idx: Signal<Local, Bits<4>>,
    c_idx: Signal<Local, Bits<4>>,
    x_dep: Vec<Signal<Local, Bits<DEPTH_W>>>,
    e_dep: Vec<Signal<Local, Bits<DEPTH_W>>>,
    yes: Signal<Local, Bits<L>>,
    r_ctl: Signal<Local, Bits<8>>,
    r_mem: Signal<Local, bool>,
    r_mtree: Signal<Local, bool>,
    run: Signal<Local, Bits<16>>,
    a_slot_oh: Signal<Local, Bits<16>>,
    a_slot: Signal<Local, Bits<4>>,
    s_arrived: Signal<Local, Bits<CNT_W>>,
    s_exited: Signal<Local, Bits<CNT_W>>,
    s_warps: Signal<Local, Bits<16>>,
    pop_a: Vec<Signal<Local, Bits<EV_W>>>,
    pop_e: Vec<Signal<Local, Bits<EV_W>>>,
    tb_min: Signal<Local, Bits<KT>>,
    tb_sel: Signal<Local, Bits<L>>,
    tb_any: Signal<Local, bool>,
    tm_sel: Signal<Local, Bits<L>>,
    a_is_ctl: Signal<Local, bool>,
    ovf: Signal<Local, Bits<L>>,
    x_flags: Signal<Local, bool>,
    joins: Signal<Local, Bits<L>>,
    unused_ctl: Signal<Local, bool>,
    // constants
    depth_pc: Constant<bool>,
    max_depth: Constant<Bits<DEPTH_W>>,
    dmax: Constant<Bits<DEPTH_W>>,
    /// The depth bits that `0..=MAXD` uses: a committed depth never
    /// exceeds `MAXD` (a `call` at `MAXD` traps, cause 5; a `ret` at 0,
    /// cause 6), so the stored depth's bits above are always 0. Masking
    /// the depth flip-flops' input with it lets synthesis remove those
    /// flip-flops and the `W`:1 read selections of their bits in every lane
    /// (`DEPTH_W` is the warp state's fixed 8 bits, the default core uses 4).
    depth_live: Constant<Bits<DEPTH_W>>,
    pc_shift: Constant<Bits<KT>>,
    wbit: Vec<Constant<Bits<16>>>,
    widx: Vec<Constant<Bits<4>>>,
    one_ev: Constant<Bits<EV_W>>,
    zero_ev: Constant<Bits<EV_W>>,
    zero_k: Constant<Bits<KT>>,
    zero_l: Constant<Bits<L>>,
    zero_d: Constant<Bits<DEPTH_W>>,
    zero_pc16: Constant<Bits<PC_W>>,
    zero_c: Constant<Bits<CNT_W>>,
    zero4: Constant<Bits<4>>,
    zero16: Constant<Bits<16>>,
    zero8: Constant<Bits<8>>,
    zero2: Constant<Bits<2>>,
    msp_g: Constant<Bits<2>>,
    msp_s: Constant<Bits<2>>,
    lbit: Vec<Constant<Bits<L>>>,
    lidx: Vec<Constant<Bits<5>>>,
    split: Constant<bool>,
    st_run: Constant<Bits<2>>,
    _lanes: usize,
    _lm1: usize,
    _w: usize,
    _slots: usize,
    /// `L` as a one-value loop (index expressions take loop variables only).
    _l0: usize,
    _l1: usize,
}

impl<const L: usize> CtlPath<L> {
    pub fn new(hw: &HwParams) -> Self {
        fn sig<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| Default::default()).collect()
        }
        fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
            Constant::new(v.into())
        }
        assert_eq!(hw.lanes, L);
        assert!(hw.warps <= 16 && hw.block_slots <= 16);
        assert!(hw.pc_bits as usize <= PC_W && hw.max_call_depth < 256);
        const { assert!(TARGET_W <= PC_W) };
        assert_eq!(MSIZES, [1, 2, 4]);
        // XLane's `ctl` bits are the classes Bra..Exit in this order.
        let ctl_order = [
            Class::Bra,
            Class::BraCons,
            Class::Jmp,
            Class::Call,
            Class::CallR,
            Class::Ret,
            Class::Bar,
            Class::Exit,
        ];
        for (i, c) in ctl_order.iter().enumerate() {
            assert_eq!(cls_bit(*c), cls_bit(Class::Bra) + i, "{c:?}");
        }
        // `update` reads these class and consensus positions as literals
        // (rust-hdl takes no named constant as a bit index).
        let lit = [
            (Class::Load, 8),
            (Class::Store, 9),
            (Class::Atom, 10),
            (Class::Bra, 11),
            (Class::BraCons, 12),
            (Class::Jmp, 13),
            (Class::Call, 14),
            (Class::CallR, 15),
            (Class::Ret, 16),
        ];
        for (c, i) in lit {
            assert_eq!(cls_bit(c), i, "{c:?}");
        }
        assert_eq!(
            Consensus::ALL,
            [Consensus::None, Consensus::Any, Consensus::All]
        );
        assert_eq!(KM, 24);
        let split = hw.arbiter == concord_isa::config::ArbiterMode::Split;
        let depth_pc = hw.depth_pc();
        let w = hw.warps;
        // Warp and slot indices share the one-hot and index constants.
        let nsel = w.max(hw.block_slots);
        let (branch_live, memory_live) = live_key_bits(hw);
        CtlPath {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            r_pass: Default::default(),
            r_warp: Default::default(),
            r_cls: Default::default(),
            r_cons: Default::default(),
            r_target: Default::default(),
            r_shared: Default::default(),
            r_msize: Default::default(),
            r_exec: Default::default(),
            r_pb: Default::default(),
            x_pc: Default::default(),
            x_active: Default::default(),
            x_gdepth: Default::default(),
            x_alive: Default::default(),
            x_waiting: Default::default(),
            x_a: sig(L),
            x_addr: sig(L),
            x_sdata: sig(L),
            code_len: Default::default(),
            window: Default::default(),
            x_warp_oh: Default::default(),
            a_kill: Default::default(),
            a_refused: Default::default(),
            wslot: sig(w),
            wstate: sig(w),
            slot_warps: sig(hw.block_slots),
            threads: Default::default(),
            alloc: Default::default(),
            alloc_oh: Default::default(),
            start_warps: Default::default(),
            rearb: Default::default(),
            halt: Default::default(),
            e_alive: Default::default(),
            e_waiting: Default::default(),
            dbg_widx: Default::default(),
            dbg_woh: Default::default(),
            dbg_lane: Default::default(),
            dbg_pc: Default::default(),
            dbg_depth: Default::default(),
            slot_arrived: sig(hw.block_slots),
            slot_exited: sig(hw.block_slots),
            e_sel: Default::default(),
            c_we: Default::default(),
            c_gmask: Default::default(),
            c_gpc: Default::default(),
            c_gdepth: Default::default(),
            c_alive: Default::default(),
            c_waiting: Default::default(),
            c_replay: Default::default(),
            rel: Default::default(),
            e_we: Default::default(),
            e_gmask: Default::default(),
            e_gpc: Default::default(),
            e_gdepth: Default::default(),
            commit: Default::default(),
            served: Default::default(),
            sd: sig(L),
            be: sig(L),
            retire: Default::default(),
            retire_slot: Default::default(),
            f_ovf: Default::default(),
            a_flagged: Default::default(),
            f_ret0: Default::default(),
            f_npc: Default::default(),
            f_mis: Default::default(),
            f_oob: Default::default(),
            trap7: Default::default(),
            m_ovf: Default::default(),
            m_ret0: Default::default(),
            m_npc: Default::default(),
            m_mis: Default::default(),
            m_oob: Default::default(),
            a_npc: (0..L).map(|_| Default::default()).collect(),
            t_read: Default::default(),
            t_warp: Default::default(),
            t_lane: Default::default(),
            t_pc: Default::default(),
            ev_issued: Default::default(),
            ev_active: Default::default(),
            ev_executed: Default::default(),
            ev_replays: Default::default(),
            ev_divergent: Default::default(),
            ev_cons_taken: Default::default(),
            ev_cons_not_taken: Default::default(),
            ev_arrivals: Default::default(),
            ev_barriers: Default::default(),
            ev_rearbs: Default::default(),
            ev_rearb_wait: Default::default(),
            tr_a_served: Default::default(),
            tr_a_gpc: Default::default(),
            tr_a_gmask: Default::default(),
            tr_a_pcw: Default::default(),
            tr_tree: Default::default(),
            tr_rearb_warp: Default::default(),
            x_pass: Default::default(),
            x_warp: Default::default(),
            x_ctl: Default::default(),
            x_taken: Default::default(),
            x_target: Default::default(),
            x_msp: Default::default(),
            x_mtree: Default::default(),
            x_mem: Default::default(),
            x_atom: Default::default(),
            x_mw: Default::default(),
            x_exec: Default::default(),
            x_cons: Default::default(),
            x_perlane: Default::default(),
            a_pass: Default::default(),
            a_warp: Default::default(),
            a_oh: Default::default(),
            a_ctl: Default::default(),
            a_mtree: Default::default(),
            a_mem: Default::default(),
            a_atom: Default::default(),
            a_taken: Default::default(),
            a_cons: Default::default(),
            a_perlane: Default::default(),
            a_gpc: Default::default(),
            a_gdepth: Default::default(),
            a_alive: Default::default(),
            a_waiting: Default::default(),
            a_active: Default::default(),
            a_exec: Default::default(),
            a_ovf: Default::default(),
            a_flags: Default::default(),
            xl: (0..L)
                .map(|_| {
                    XLane::new(
                        depth_pc,
                        hw.global_line_shift,
                        hw.shared_row_shift,
                        hw.global_bytes,
                    )
                })
                .collect(),
            div: Default::default(),
            pc1: (0..L).map(|_| LutRam::new(hw.pc_bits as usize)).collect(),
            pc2: (0..L).map(|_| LutRam::new(hw.pc_bits as usize)).collect(),
            dep: sig(w * L),
            ek: sig(L),
            ev: sig(L),
            tree_b: RowSelect::new(L),
            tree_m: RowSelect::new(L),
            cmp_b: KeyCompare::with_live(
                L,
                if split {
                    branch_live
                } else {
                    branch_live | memory_live
                },
            ),
            cmp_m: KeyCompare::with_live(L, memory_live),
            rows_b: sig(L),
            rows_m: sig(L),
            ac: ACommit::new(PC_W, 255, depth_pc, split),
            arrived: sig(hw.block_slots),
            exited: sig(hw.block_slots),
            r_served: Default::default(),
            r_gpc: Default::default(),
            r_gmask: Default::default(),
            r_pcw: Default::default(),
            r_tree: Default::default(),
            r_rearb: Default::default(),
            z_served: Default::default(),
            z_gmask: Default::default(),
            z_pcw: Default::default(),
            x_spc: sig(L),
            x_edep: sig(L),
            x_oh: Default::default(),
            e_idx: Default::default(),
            c_idx: Default::default(),
            x_dep: sig(L),
            e_dep: sig(L),
            yes: Default::default(),
            r_ctl: Default::default(),
            r_mem: Default::default(),
            r_mtree: Default::default(),
            run: Default::default(),
            a_slot_oh: Default::default(),
            a_slot: Default::default(),
            s_arrived: Default::default(),
            s_exited: Default::default(),
            s_warps: Default::default(),
            pop_a: sig(2 * L - 1),
            pop_e: sig(2 * L - 1),
            tb_min: Default::default(),
            tb_sel: Default::default(),
            tb_any: Default::default(),
            tm_sel: Default::default(),
            a_is_ctl: Default::default(),
            ovf: Default::default(),
            x_flags: Default::default(),
            joins: Default::default(),
            unused_ctl: Default::default(),
            depth_pc: Constant::new(depth_pc),
            max_depth: k(hw.max_call_depth as u64),
            dmax: k(255),
            depth_live: k((1u64 << (64 - u64::from(hw.max_call_depth).leading_zeros())) - 1),
            pc_shift: k(PC_W as u64),
            wbit: (0..nsel).map(|i| k(1 << i)).collect(),
            widx: (0..nsel as u64).map(k).collect(),
            one_ev: k(1),
            zero_ev: k(0),
            zero_k: k(0),
            zero_l: k(0),
            zero_d: k(0),
            zero_pc16: k(0),
            zero_c: k(0),
            zero4: k(0),
            zero16: k(0),
            zero8: k(0),
            zero2: k(0),
            msp_g: k(1 << MSP_GLOBAL),
            msp_s: k(1 << MSP_SHARED),
            lbit: (0..L).map(|l| k(1 << l)).collect(),
            lidx: (0..L as u64).map(k).collect(),
            split: Constant::new(split),
            st_run: k(super::warpstate::slot_state::RUN),
            _lanes: L,
            _lm1: L - 1,
            _w: w,
            _slots: hw.block_slots,
            _l0: L,
            _l1: L + 1,
        }
    }
}

impl<const L: usize> Logic for CtlPath<L> {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- clocks ----
        self.x_pass.clock.next = self.clock.val();
        self.x_warp.clock.next = self.clock.val();
        self.x_ctl.clock.next = self.clock.val();
        self.x_taken.clock.next = self.clock.val();
        self.x_target.clock.next = self.clock.val();
        self.x_msp.clock.next = self.clock.val();
        self.x_mtree.clock.next = self.clock.val();
        self.x_mem.clock.next = self.clock.val();
        self.x_atom.clock.next = self.clock.val();
        self.x_mw.clock.next = self.clock.val();
        self.x_exec.clock.next = self.clock.val();
        self.x_cons.clock.next = self.clock.val();
        self.x_perlane.clock.next = self.clock.val();
        self.a_pass.clock.next = self.clock.val();
        self.a_warp.clock.next = self.clock.val();
        self.a_oh.clock.next = self.clock.val();
        self.a_ctl.clock.next = self.clock.val();
        self.a_mtree.clock.next = self.clock.val();
        self.a_mem.clock.next = self.clock.val();
        self.a_atom.clock.next = self.clock.val();
        self.a_taken.clock.next = self.clock.val();
        self.a_cons.clock.next = self.clock.val();
        self.a_perlane.clock.next = self.clock.val();
        self.a_gpc.clock.next = self.clock.val();
        self.a_gdepth.clock.next = self.clock.val();
        self.a_alive.clock.next = self.clock.val();
        self.a_waiting.clock.next = self.clock.val();
        self.a_active.clock.next = self.clock.val();
        self.a_exec.clock.next = self.clock.val();
        self.a_ovf.clock.next = self.clock.val();
        self.a_flags.clock.next = self.clock.val();
        self.x_pass.reset.next = self.reset.val();
        self.x_warp.reset.next = self.reset.val();
        self.x_ctl.reset.next = self.reset.val();
        self.x_taken.reset.next = self.reset.val();
        self.x_target.reset.next = self.reset.val();
        self.x_msp.reset.next = self.reset.val();
        self.x_mtree.reset.next = self.reset.val();
        self.x_mem.reset.next = self.reset.val();
        self.x_atom.reset.next = self.reset.val();
        self.x_mw.reset.next = self.reset.val();
        self.x_exec.reset.next = self.reset.val();
        self.x_cons.reset.next = self.reset.val();
        self.x_perlane.reset.next = self.reset.val();
        self.a_pass.reset.next = self.reset.val();
        self.a_warp.reset.next = self.reset.val();
        self.a_oh.reset.next = self.reset.val();
        self.a_ctl.reset.next = self.reset.val();
        self.a_mtree.reset.next = self.reset.val();
        self.a_mem.reset.next = self.reset.val();
        self.a_atom.reset.next = self.reset.val();
        self.a_taken.reset.next = self.reset.val();
        self.a_cons.reset.next = self.reset.val();
        self.a_perlane.reset.next = self.reset.val();
        self.a_gpc.reset.next = self.reset.val();
        self.a_gdepth.reset.next = self.reset.val();
        self.a_alive.reset.next = self.reset.val();
        self.a_waiting.reset.next = self.reset.val();
        self.a_active.reset.next = self.reset.val();
        self.a_exec.reset.next = self.reset.val();
        self.a_ovf.reset.next = self.reset.val();
        self.a_flags.reset.next = self.reset.val();
        self.ac.clock.next = self.clock.val();
        self.ac.reset.next = self.reset.val();
        self.r_served.clock.next = self.clock.val();
        self.r_gpc.clock.next = self.clock.val();
        self.r_gmask.clock.next = self.clock.val();
        self.r_pcw.clock.next = self.clock.val();
        self.r_tree.clock.next = self.clock.val();
        self.r_rearb.clock.next = self.clock.val();
        self.r_served.reset.next = self.reset.val();
        self.r_gpc.reset.next = self.reset.val();
        self.r_gmask.reset.next = self.reset.val();
        self.r_pcw.reset.next = self.reset.val();
        self.r_tree.reset.next = self.reset.val();
        self.r_rearb.reset.next = self.reset.val();
        for l in 0..self._lanes {
            self.xl[l].clock.next = self.clock.val();
            self.pc1[l].clock.next = self.clock.val();
            self.pc2[l].clock.next = self.clock.val();
            self.ek[l].clock.next = self.clock.val();
            self.ek[l].reset.next = self.reset.val();
            self.rows_b[l].clock.next = self.clock.val();
            self.rows_b[l].reset.next = self.reset.val();
            self.rows_m[l].clock.next = self.clock.val();
            self.rows_m[l].reset.next = self.reset.val();
            self.ev[l].clock.next = self.clock.val();
            self.ev[l].reset.next = self.reset.val();
        }
        for w in 0..self._w {
            for n in self._l0..self._l1 {
                for l in 0..self._lanes {
                    self.dep[w * n + l].clock.next = self.clock.val();
                    self.dep[w * n + l].reset.next = self.reset.val();
                }
            }
        }
        for s in 0..self._slots {
            self.arrived[s].clock.next = self.clock.val();
            self.arrived[s].reset.next = self.reset.val();
            self.exited[s].clock.next = self.clock.val();
            self.exited[s].reset.next = self.reset.val();
        }

        // ---- R: class controls for X, the consensual branch's vote ----
        self.r_ctl.next = self.r_cls.val().get_bits::<8>(11);
        self.r_mtree.next = self.r_cls.val().get_bit(8) | self.r_cls.val().get_bit(9);
        self.r_mem.next = self.r_mtree.val() | self.r_cls.val().get_bit(10);
        self.yes.next = self.r_exec.val() & self.r_pb.val();
        self.x_taken.d.next = (self.r_cons.val().get_bit(0) & !self.yes.val().any())
            | (self.r_cons.val().get_bit(1) & self.yes.val().any())
            | (self.r_cons.val().get_bit(2) & (self.yes.val() == self.r_exec.val()));
        self.x_pass.d.next = self.r_pass.val();
        self.x_warp.d.next = self.r_warp.val();
        self.x_ctl.d.next = self.zero8.val();
        self.x_msp.d.next = self.zero2.val();
        self.x_mtree.d.next = false;
        self.x_mem.d.next = false;
        self.x_atom.d.next = false;
        self.x_cons.d.next = false;
        self.x_perlane.d.next = false;
        if self.r_pass.val() {
            self.x_ctl.d.next = self.r_ctl.val();
            self.x_mtree.d.next = self.r_mtree.val();
            self.x_mem.d.next = self.r_mem.val();
            self.x_atom.d.next = self.r_cls.val().get_bit(10);
            self.x_cons.d.next = self.r_cls.val().get_bit(12);
            self.x_perlane.d.next = self.r_cls.val().get_bit(11)
                | self.r_cls.val().get_bit(13)
                | self.r_cls.val().get_bit(14)
                | self.r_cls.val().get_bit(15)
                | self.r_cls.val().get_bit(16);
            if self.r_mem.val() {
                if self.r_shared.val() {
                    self.x_msp.d.next = self.msp_s.val();
                } else {
                    self.x_msp.d.next = self.msp_g.val();
                }
            }
        }
        self.x_target.d.next = self.r_target.val();
        self.x_mw.d.next = self.r_msize.val();
        self.x_exec.d.next = self.r_exec.val();

        // ---- X ----
        self.x_oh.next = self.zero16.val();
        for w in 0..self._w {
            if self.x_pass.q.val() & (self.x_warp.q.val() == self.widx[w].val()) {
                self.x_oh.next = self.x_oh.val() | self.wbit[w].val();
            }
        }
        self.x_warp_oh.next = self.x_oh.val();
        // Depths of the X warp's lanes and of the engine's warp: AND-OR
        // selections over the warps.
        self.dbg_depth.next = self.zero_d.val();
        for l in 0..self._lanes {
            self.x_dep[l].next = self.zero_d.val();
            self.e_dep[l].next = self.zero_d.val();
        }
        for w in 0..self._w {
            for n in self._l0..self._l1 {
                for l in 0..self._lanes {
                    if self.x_oh.val().get_bit(w) {
                        self.x_dep[l].next = self.x_dep[l].val() | self.dep[w * n + l].q.val();
                    }
                    if self.ac.e_load.val().get_bit(w) {
                        self.e_dep[l].next = self.e_dep[l].val() | self.dep[w * n + l].q.val();
                    }
                    if self.dbg_woh.val().get_bit(w) & (self.dbg_lane.val() == self.lidx[l].val()) {
                        self.dbg_depth.next = self.dbg_depth.val() | self.dep[w * n + l].q.val();
                    }
                }
            }
        }
        for l in 0..self._lanes {
            self.pc1[l].raddr.next = self.x_warp.q.val();
            self.xl[l].ctl.next = self.x_ctl.q.val();
            self.xl[l].taken.next = self.x_taken.q.val();
            self.xl[l].target.next = self.x_target.q.val();
            self.xl[l].gpc.next = self.x_pc.val();
            self.xl[l].gdepth.next = self.x_gdepth.val();
            self.xl[l].code_len.next = self.code_len.val();
            self.xl[l].msp.next = self.x_msp.q.val();
            self.xl[l].mtree.next = self.x_mtree.q.val();
            self.xl[l].mw.next = self.x_mw.q.val();
            self.xl[l].window.next = self.window.val();
            self.xl[l].active.next = self.x_active.val().get_bit(l);
            self.xl[l].exec.next = self.x_exec.q.val().get_bit(l);
            self.xl[l].alive.next = self.x_alive.val().get_bit(l);
            self.xl[l].waiting.next = self.x_waiting.val().get_bit(l);
            self.xl[l].spc.next = self.pc1[l].rdata.val();
            self.xl[l].depth.next = self.x_dep[l].val();
            self.xl[l].a.next = self.x_a[l].val();
            self.xl[l].addr.next = self.x_addr[l].val();
            self.xl[l].sdata.next = self.x_sdata[l].val();
        }
        // Depth overflow against the configured MAXD (XLane's is 255).
        self.ovf.next = self.zero_l.val();
        for l in 0..self._lanes {
            if self.x_exec.q.val().get_bit(l)
                & (self.x_ctl.q.val().get_bit(3) | self.x_ctl.q.val().get_bit(4))
                & (self.x_dep[l].val() == self.max_depth.val())
            {
                self.ovf.next = self.ovf.val() | self.lbit[l].val();
            }
        }
        self.a_ovf.d.next = self.ovf.val();
        self.x_flags.next = self.ovf.val().any();
        for l in 0..self._lanes {
            self.x_flags.next =
                self.x_flags.val() | self.xl[l].flags_d.val() | self.xl[l].ret0_d.val();
        }
        self.a_flags.d.next = self.x_flags.val();
        // X -> A
        self.a_pass.d.next = self.x_pass.q.val();
        self.a_warp.d.next = self.x_warp.q.val();
        self.a_oh.d.next = self.x_oh.val();
        self.a_ctl.d.next = self.x_ctl.q.val();
        self.a_mtree.d.next = self.x_mtree.q.val();
        self.a_mem.d.next = self.x_mem.q.val();
        self.a_atom.d.next = self.x_atom.q.val();
        self.a_taken.d.next = self.x_taken.q.val();
        self.a_cons.d.next = self.x_cons.q.val();
        self.a_perlane.d.next = self.x_perlane.q.val();
        self.a_gpc.d.next = self.x_pc.val();
        self.a_gdepth.d.next = self.x_gdepth.val();
        self.a_alive.d.next = self.x_alive.val();
        self.a_waiting.d.next = self.x_waiting.val();
        self.a_active.d.next = self.x_active.val();
        self.a_exec.d.next = self.x_exec.q.val();

        // ---- the engine's key load (§9.5): copy 2 of the lane pcs ----
        self.e_idx.next = self.zero4.val();
        for w in 0..self._w {
            if self.ac.e_load.val().get_bit(w) {
                self.e_idx.next = self.e_idx.val() | self.widx[w].val();
            }
        }
        self.e_sel.next = self.ac.e_load.val();
        self.dbg_pc.next = self.zero_pc16.val();
        for l in 0..self._lanes {
            // The debug read takes copy 2's port when the engine does not.
            self.pc2[l].raddr.next = self.dbg_widx.val();
            if self.t_read.val() {
                self.pc2[l].raddr.next = self.t_warp.val();
            }
            if self.ac.e_load.val().any() {
                self.pc2[l].raddr.next = self.e_idx.val();
            }
            if self.dbg_lane.val() == self.lidx[l].val() {
                self.dbg_pc.next = self.dbg_pc.val() | self.pc2[l].rdata.val();
            }
            self.x_spc[l].i.next = self.pc2[l].rdata.val();
            self.x_edep[l].i.next = self.dmax.val() - self.e_dep[l].val();
            self.ek[l].d.next = self.zero_k.val();
            self.ev[l].d.next = false;
            if self.ac.e_load.val().any() {
                self.ek[l].d.next = self.x_spc[l].o.val();
                if self.depth_pc.val() {
                    self.ek[l].d.next =
                        self.x_spc[l].o.val() | (self.x_edep[l].o.val() << self.pc_shift.val());
                }
                self.ev[l].d.next =
                    self.e_alive.val().get_bit(l) & !self.e_waiting.val().get_bit(l);
            }
        }

        // The comparison matrices of the keys entering the key register,
        // gated as A gates the registered keys below (split: the branch
        // arbiter takes the engine's keys and a control pass's, the memory
        // arbiter a load or store pass's).
        for l in 0..self._lanes {
            self.cmp_b.key[l].next = self.xl[l].key_d.val() | self.ek[l].d.val();
            self.cmp_m.key[l].next = self.zero_k.val();
            if self.split.val() {
                self.cmp_b.key[l].next = self.ek[l].d.val();
                if self.x_ctl.q.val().any() {
                    self.cmp_b.key[l].next = self.xl[l].key_d.val() | self.ek[l].d.val();
                }
                if self.x_mtree.q.val() {
                    self.cmp_m.key[l].next = self.xl[l].key_d.val();
                }
            }
            self.rows_b[l].d.next = self.cmp_b.beats[l].val();
            self.rows_m[l].d.next = self.cmp_m.beats[l].val();
        }

        // ---- A: the arbiter(s) ----
        // Unified: pass keys (zero unless the pass uses the tree) ORed with
        // the engine's (zero unless it loaded). Split: the branch tree
        // takes control passes and the engine, the memory tree loads and
        // stores.
        self.a_is_ctl.next = self.a_ctl.q.val().any();
        self.tree_b.en.next = true;
        self.tree_m.en.next = self.split.val();
        for l in 0..self._lanes {
            self.tree_b.beats[l].next = self.rows_b[l].q.val();
            self.tree_m.beats[l].next = self.rows_m[l].q.val();
            self.tree_b.key[l].next = self.xl[l].key.val() | self.ek[l].q.val();
            self.tree_b.valid[l].next = self.xl[l].kvalid.val() | self.ev[l].q.val();
            self.tree_m.key[l].next = self.zero_k.val();
            self.tree_m.valid[l].next = false;
            if self.split.val() {
                self.tree_b.key[l].next = self.ek[l].q.val();
                self.tree_b.valid[l].next = self.ev[l].q.val();
                if self.a_is_ctl.val() {
                    self.tree_b.key[l].next = self.xl[l].key.val() | self.ek[l].q.val();
                    self.tree_b.valid[l].next = self.xl[l].kvalid.val() | self.ev[l].q.val();
                }
                if self.a_mtree.q.val() {
                    self.tree_m.key[l].next = self.xl[l].key.val();
                    self.tree_m.valid[l].next = self.xl[l].kvalid.val();
                }
            }
        }
        self.tb_min.next = self.tree_b.min.val();
        self.tb_sel.next = self.tree_b.sel.val();
        self.tb_any.next = self.tree_b.any.val();
        self.tm_sel.next = self.tree_b.sel.val();
        if self.split.val() {
            self.tm_sel.next = self.tree_m.sel.val();
        }

        // ---- A: the commit ----
        self.commit.next = self.a_pass.q.val() & !self.a_kill.val();
        self.ac.commit.next = self.a_pass.q.val() & !self.a_kill.val();
        self.ac.warp.next = self.a_oh.q.val();
        self.ac.is_ctl.next = self.a_is_ctl.val();
        self.ac.is_mem.next = self.a_mem.q.val();
        self.ac.is_atom.next = self.a_atom.q.val();
        self.ac.is_bar.next = self.a_ctl.q.val().get_bit(6);
        self.ac.is_exit.next = self.a_ctl.q.val().get_bit(7);
        self.ac.refused.next = self.a_refused.val();
        self.ac.active.next = self.a_active.q.val();
        self.ac.exec.next = self.a_exec.q.val();
        self.ac.gpc.next = self.a_gpc.q.val();
        self.ac.gdepth.next = self.a_gdepth.q.val();
        self.ac.alive.next = self.a_alive.q.val();
        self.ac.waiting.next = self.a_waiting.q.val();
        self.ac.a_tree_br.next = self.a_pass.q.val() & self.a_is_ctl.val();
        self.ac.a_tree_mem.next = self.a_pass.q.val() & self.a_mtree.q.val();
        self.ac.tb_min.next = self.tb_min.val().get_bits::<KM>(0);
        self.ac.tb_sel.next = self.tb_sel.val();
        self.ac.tb_any.next = self.tb_any.val();
        self.ac.tm_sel.next = self.tm_sel.val();
        self.ac.x_tree_br.next = self.x_pass.q.val() & self.x_ctl.q.val().any();
        self.ac.x_tree_mem.next = self.x_pass.q.val() & self.x_mtree.q.val();
        self.ac.rearb.next = self.rearb.val();
        self.run.next = self.zero16.val();
        for w in 0..self._w {
            if self.wstate[w].val() == self.st_run.val() {
                self.run.next = self.run.val() | self.wbit[w].val();
            }
        }
        self.ac.run.next = self.run.val();
        // HALT: no candidate, so no load and no `rearb_wait_cycles`.
        if self.halt.val() {
            self.ac.run.next = self.zero16.val();
        }
        // The committing warp's slot and its counts.
        self.a_slot.next = self.zero4.val();
        for w in 0..self._w {
            if self.a_oh.q.val().get_bit(w) {
                self.a_slot.next = self.a_slot.val() | self.wslot[w].val();
            }
        }
        self.a_slot_oh.next = self.zero16.val();
        for s in 0..self._slots {
            if self.a_slot.val() == self.widx[s].val() {
                self.a_slot_oh.next = self.a_slot_oh.val() | self.wbit[s].val();
            }
        }
        self.s_arrived.next = self.zero_c.val();
        self.s_exited.next = self.zero_c.val();
        self.s_warps.next = self.zero16.val();
        for s in 0..self._slots {
            if self.a_slot_oh.val().get_bit(s) {
                self.s_arrived.next = self.s_arrived.val() | self.arrived[s].q.val();
                self.s_exited.next = self.s_exited.val() | self.exited[s].q.val();
                self.s_warps.next = self.s_warps.val() | self.slot_warps[s].val();
            }
        }
        self.ac.arrived.next = self.s_arrived.val();
        self.ac.exited.next = self.s_exited.val();
        self.ac.threads.next = self.threads.val();
        self.ac.slot_warps.next = self.s_warps.val();
        for s in 0..self._slots {
            self.arrived[s].ld.next =
                self.clear.val() | (self.alloc.val() & self.alloc_oh.val().get_bit(s));
            self.arrived[s].lv.next = self.zero_c.val();
            self.arrived[s].en.next = self.ac.slot_we.val() & self.a_slot_oh.val().get_bit(s);
            self.arrived[s].d.next = self.ac.arrived_n.val();
            self.exited[s].ld.next =
                self.clear.val() | (self.alloc.val() & self.alloc_oh.val().get_bit(s));
            self.exited[s].lv.next = self.zero_c.val();
            self.exited[s].en.next = self.ac.slot_we.val() & self.a_slot_oh.val().get_bit(s);
            self.exited[s].d.next = self.ac.exited_n.val();
        }
        for s in 0..self._slots {
            self.slot_arrived[s].next = self.arrived[s].q.val();
            self.slot_exited[s].next = self.exited[s].q.val();
        }
        self.retire.next = self.ac.retire.val();
        self.retire_slot.next = self.a_slot.val();
        self.trap7.next = self.ac.trap7.val();
        // Lane pcs (both copies) and depths of the committing warp.
        for l in 0..self._lanes {
            self.ac.npc[l].next = self.xl[l].npc.val().get_bits::<PC_W>(0);
            self.div.npc[l].next = self.xl[l].npc.val().get_bits::<PC_W>(0);
            self.div.ndepth[l].next = self.xl[l].ndepth.val();
            self.pc1[l].we.next = self.ac.pcw_we.val().get_bit(l);
            self.pc1[l].waddr.next = self.a_warp.q.val();
            self.pc1[l].wdata.next = self.ac.pcw_data[l].val();
            self.pc2[l].we.next = self.ac.pcw_we.val().get_bit(l);
            self.pc2[l].waddr.next = self.a_warp.q.val();
            self.pc2[l].wdata.next = self.ac.pcw_data[l].val();
            self.sd[l].next = self.xl[l].sd.val();
            self.be[l].next = self.xl[l].be.val();
        }
        self.div.active.next = self.a_active.q.val();
        self.joins.next = self.zero_l.val();
        for l in 0..self._lanes {
            if self.xl[l].joins.val() {
                self.joins.next = self.joins.val() | self.lbit[l].val();
            }
        }
        self.ac.joins.next = self.joins.val();
        for w in 0..self._w {
            for n in self._l0..self._l1 {
                for l in 0..self._lanes {
                    self.dep[w * n + l].ld.next =
                        self.clear.val() | self.start_warps.val().get_bit(w);
                    self.dep[w * n + l].lv.next = self.zero_d.val();
                    self.dep[w * n + l].en.next = self.a_is_ctl.val()
                        & self.ac.pcw_we.val().get_bit(l)
                        & self.a_oh.q.val().get_bit(w);
                    self.dep[w * n + l].d.next = self.xl[l].ndepth.val() & self.depth_live.val();
                }
            }
        }
        // Trap flags of the pass (§13.1), for the trap unit.
        self.f_ovf.next = self.a_ovf.q.val().any();
        self.a_flagged.next = self.a_flags.q.val();
        self.f_ret0.next = false;
        self.f_npc.next = false;
        self.f_mis.next = false;
        self.f_oob.next = false;
        self.unused_ctl.next = false;
        for l in 0..self._lanes {
            self.f_ret0.next = self.f_ret0.val() | self.xl[l].f_ret0.val();
            self.f_npc.next = self.f_npc.val() | self.xl[l].f_npc.val();
            self.f_mis.next = self.f_mis.val() | self.xl[l].f_mis.val();
            self.f_oob.next = self.f_oob.val() | self.xl[l].f_oob.val();
            self.unused_ctl.next = self.unused_ctl.val()
                | self.xl[l].f_ovf.val()
                | self.xl[l].npc.val().get_bits::<16>(16).any();
        }
        // Traps (v2trap): per-cause lane masks, next PCs, cause 7's pc.
        self.m_ovf.next = self.a_ovf.q.val();
        self.m_ret0.next = self.zero_l.val();
        self.m_npc.next = self.zero_l.val();
        self.m_mis.next = self.zero_l.val();
        self.m_oob.next = self.zero_l.val();
        self.t_pc.next = self.zero_pc16.val();
        for l in 0..self._lanes {
            if self.xl[l].f_ret0.val() {
                self.m_ret0.next = self.m_ret0.val() | self.lbit[l].val();
            }
            if self.xl[l].f_npc.val() {
                self.m_npc.next = self.m_npc.val() | self.lbit[l].val();
            }
            if self.xl[l].f_mis.val() {
                self.m_mis.next = self.m_mis.val() | self.lbit[l].val();
            }
            if self.xl[l].f_oob.val() {
                self.m_oob.next = self.m_oob.val() | self.lbit[l].val();
            }
            self.a_npc[l].next = self.xl[l].npc.val();
            if self.t_lane.val().get_bit(l) {
                self.t_pc.next = self.t_pc.val() | self.pc2[l].rdata.val();
            }
        }
        // Warp state ports.
        self.c_we.next = self.ac.c_we.val();
        self.c_gmask.next = self.ac.c_gmask.val();
        self.c_gpc.next = self.ac.c_gpc.val();
        self.c_gdepth.next = self.ac.c_gdepth.val();
        self.c_alive.next = self.ac.c_alive.val();
        self.c_waiting.next = self.ac.c_waiting.val();
        self.c_replay.next = self.ac.c_replay.val();
        self.rel.next = self.ac.rel.val();
        self.e_we.next = self.ac.e_we.val();
        self.e_gmask.next = self.ac.e_gmask.val();
        self.e_gpc.next = self.ac.e_gpc.val();
        self.e_gdepth.next = self.ac.e_gdepth.val();
        self.served.next = self.ac.served.val();
        self.unused_ctl.next = self.unused_ctl.val()
            | self.ac.pending.val().any()
            | self.ac.ev_issued.val()
            | self.tb_min.val().get_bits::<8>(24).any()
            | self.tree_m.min.val().any()
            | self.tree_m.any.val()
            | self.ac.tr_rearb.val().any()
            | self.r_cls.val().get_bits::<8>(0).any()
            | self.r_cls.val().get_bits::<2>(19).any()
            | self.alloc_oh.val().any()
            | self.start_warps.val().any()
            | self.dbg_woh.val().any();

        // ---- counters (§15.1) ----
        // Popcounts: adder trees in heap order (leaves L-1..2L-2 = lanes).
        for lm1 in self._lm1..self._lanes {
            for l in 0..self._lanes {
                self.pop_a[lm1 + l].next = self.zero_ev.val();
                self.pop_e[lm1 + l].next = self.zero_ev.val();
                if self.a_active.q.val().get_bit(l) {
                    self.pop_a[lm1 + l].next = self.one_ev.val();
                }
                if self.a_exec.q.val().get_bit(l) {
                    self.pop_e[lm1 + l].next = self.one_ev.val();
                }
            }
            for n in 0..self._lm1 {
                self.pop_a[lm1 - n - 1].next =
                    self.pop_a[2 * (lm1 - n) - 1].val() + self.pop_a[2 * (lm1 - n)].val();
                self.pop_e[lm1 - n - 1].next =
                    self.pop_e[2 * (lm1 - n) - 1].val() + self.pop_e[2 * (lm1 - n)].val();
            }
        }
        self.ev_issued.next = self.commit.val();
        self.ev_active.next = self.zero_ev.val();
        self.ev_executed.next = self.zero_ev.val();
        if self.commit.val() {
            self.ev_active.next = self.pop_a[0].val();
            self.ev_executed.next = self.pop_e[0].val();
        }
        self.ev_replays.next = self.ac.ev_replays.val();
        self.ev_divergent.next =
            self.commit.val() & self.a_perlane.q.val() & self.div.divergent.val();
        self.ev_cons_taken.next = self.commit.val() & self.a_cons.q.val() & self.a_taken.q.val();
        self.ev_cons_not_taken.next =
            self.commit.val() & self.a_cons.q.val() & !self.a_taken.q.val();
        self.ev_arrivals.next = self.ac.ev_arrivals.val().get_bits::<EV_W>(0);
        self.ev_barriers.next = self.ac.ev_barriers.val();
        self.ev_rearbs.next = self.ac.ev_rearbs.val();
        self.ev_rearb_wait.next = self.ac.ev_rearb_wait.val();
        self.unused_ctl.next =
            self.unused_ctl.val() | self.ac.ev_arrivals.val().get_bits::<2>(8).any();

        // ---- trace ----
        self.z_served.i.next = self.ac.tr_a_served.val();
        self.z_gmask.i.next = self.ac.tr_a_gmask.val();
        self.z_pcw.i.next = self.ac.tr_a_pcw.val();
        self.r_served.d.next = self.z_served.o.val();
        self.r_gpc.d.next = self.ac.tr_a_gpc.val();
        self.r_gmask.d.next = self.z_gmask.o.val();
        self.r_pcw.d.next = self.z_pcw.o.val();
        self.r_tree.d.next = self.ac.tr_tree.val();
        self.c_idx.next = self.zero4.val();
        for w in 0..self._w {
            if self.ac.tr_rearb.val().get_bit(w) {
                self.c_idx.next = self.c_idx.val() | self.widx[w].val();
            }
        }
        self.r_rearb.d.next = self.c_idx.val();
        self.tr_a_served.next = self.r_served.q.val();
        self.tr_a_gpc.next = self.r_gpc.q.val();
        self.tr_a_gmask.next = self.r_gmask.q.val();
        self.tr_a_pcw.next = self.r_pcw.q.val();
        self.tr_tree.next = self.r_tree.q.val();
        self.tr_rearb_warp.next = self.r_rearb.q.val();
    }
}
