//! The core side of Core v2's global unit (docs/microarchitecture.md
//! §10.2): what stands between the pipeline and [`GMaster`] (the ring,
//! the beat sequencer and the Wishbone master, `gmaster.rs`).
//!
//! * **R → X → A**: whether the pass is a global load, store or atomic,
//!   its entry kind, atomic tag (`1 + op`), `rd` and load type, registered
//!   from the decoder's outputs at R.
//! * **A**: the refusal (`refused`: a global pass with pending lanes while
//!   no entry is free at the start of the cycle, from `GMaster::rsv_ok`'s
//!   flip-flops) and the reservation (`rsv`: the commit serves lanes of a
//!   global pass; the commit-gated `served` is 0 for a killed or refused
//!   pass). The entry's contents are formed here from the lanes' addresses
//!   (`a_addr`, the ALU result at A), store data and byte enables (the
//!   control path's `sd`/`be`): the line of the first served lane, each
//!   lane's word index in the line and byte offset, the beats mask.
//! * **M**: the entry is written (`GMaster::ew` at its reserved index)
//!   with the registered contents, and this block's own per-entry fields
//!   (LUT-RAM): warp, `rd`, load type, served lanes, byte offsets.
//! * **Return slot**: S takes the oldest returnable entry (`ret_valid`,
//!   `ret_idx`, its warp `ret_warp`, `ret_err`); A frees it (`free`,
//!   `free_idx`); at M the entry's lane words, byte offsets, load type,
//!   served lanes and `rd` are read at `rt_idx` (`rs_*`) for the load
//!   extension and the register write at W. The contract reads the lane
//!   data at R; reading it at M is equivalent, since an entry freed at A in
//!   cycle `c` can be reserved again at the earliest at A in `c + 1` and
//!   written at M in `c + 2`, after the return slot's M (`c + 1`), and no
//!   answer writes a free entry's load data.
//! * The trace fields `tr_rsp`, `tr_rsp_entry`, `tr_free` (registered:
//!   the record of cycle `c` during `c + 1`) and the counter events of
//!   §15.1 that belong to the unit.

use concord_uarch::HwParams;
use rust_hdl_core::prelude::*;

use super::decode::{Class, NATOM, NCLS};
use super::gentry::LutRam;
use super::gmaster::{GMaster, GmConfig, KIND_ATOMIC, KIND_READ, KIND_WRITE};
use crate::util::Reg;

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.into())
}

fn sig<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| Default::default()).collect()
}

/// The core side of the global unit for `L` lanes.
#[derive(LogicBlock)]
pub struct GlobalMem<const L: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    // ---- R: the decoder's outputs ----
    pub r_pass: Signal<In, bool>,
    pub r_cls: Signal<In, Bits<NCLS>>,
    pub r_shared: Signal<In, bool>,
    pub r_msize: Signal<In, Bits<3>>,
    pub r_msigned: Signal<In, bool>,
    pub r_atom: Signal<In, Bits<NATOM>>,
    pub r_rd: Signal<In, Bits<5>>,
    // ---- A ----
    /// A warp pass is in A.
    pub a_pass: Signal<In, bool>,
    pub a_warp: Signal<In, Bits<4>>,
    pub a_pc: Signal<In, Bits<16>>,
    /// Pending lanes (`exec`).
    pub a_exec: Signal<In, Bits<L>>,
    /// The pass traps or is squashed (a refusal is not counted then).
    pub a_kill: Signal<In, bool>,
    pub a_commit: Signal<In, bool>,
    pub a_served: Signal<In, Bits<L>>,
    pub a_addr: Vec<Signal<In, Bits<32>>>,
    pub a_sd: Vec<Signal<In, Bits<32>>>,
    pub a_be: Vec<Signal<In, Bits<4>>>,
    /// The global pass in A is refused: no free entry (§10.2).
    pub refused: Signal<Out, bool>,
    /// An entry is reserved (`outstanding` + 1, `global_requests`).
    pub rsv: Signal<Out, bool>,
    // ---- return slots ----
    pub ret_valid: Signal<Out, bool>,
    pub ret_idx: Signal<Out, Bits<4>>,
    pub ret_err: Signal<Out, bool>,
    pub ret_warp: Signal<Out, Bits<4>>,
    /// S takes the returnable entry at the head.
    pub ret_take: Signal<In, bool>,
    /// A return slot at A frees its entry.
    pub free: Signal<In, bool>,
    pub free_idx: Signal<In, Bits<4>>,
    /// The return slot at M: its entry.
    pub rt_idx: Signal<In, Bits<4>>,
    pub rs_word: Vec<Signal<Out, Bits<32>>>,
    pub rs_off: Vec<Signal<Out, Bits<2>>>,
    /// Load type: bits 0..2 the size one-hot (1, 2, 4 bytes), bit 3 signed.
    pub rs_lt: Signal<Out, Bits<4>>,
    pub rs_lanes: Signal<Out, Bits<L>>,
    pub rs_rd: Signal<Out, Bits<5>>,
    pub rs_warp: Signal<Out, Bits<4>>,
    // ---- completions ----
    /// A write entry completes (its warp's `outstanding` − 1).
    pub wdone: Signal<Out, bool>,
    pub done_warp: Signal<Out, Bits<4>>,
    /// No entry in use.
    pub idle: Signal<Out, bool>,
    /// An entry with an `ERR` beat completes (cause 11), and its index.
    pub trap: Signal<Out, bool>,
    pub trap_idx: Signal<Out, Bits<4>>,
    /// The failing entry's warp, served lanes and instruction pc.
    pub trap_warp: Signal<Out, Bits<4>>,
    pub trap_lanes: Signal<Out, Bits<L>>,
    pub trap_pc: Signal<Out, Bits<16>>,
    /// The byte address of the failing entry's first `ERR` beat.
    pub trap_addr: Signal<Out, Bits<32>>,
    /// Free entries now (`DBG_QUEUE`).
    pub n_free: Signal<Out, Bits<5>>,
    /// `DBG_QUEUE`'s other counts now: entries awaiting send, awaiting a
    /// response, returnable (`gmaster.rs`).
    pub q_send: Signal<Out, Bits<5>>,
    pub q_resp: Signal<Out, Bits<5>>,
    pub q_ret: Signal<Out, Bits<5>>,
    // ---- counter events (§15.1) ----
    pub ev_qfull: Signal<Out, bool>,
    pub ev_beat: Signal<Out, bool>,
    pub ev_stall: Signal<Out, bool>,
    // ---- trace (registered) ----
    pub tr_rsp: Signal<Out, bool>,
    pub tr_rsp_entry: Signal<Out, Bits<4>>,
    pub tr_free: Signal<Out, Bits<5>>,
    // ---- Wishbone master (§14.2, without the `gm_` prefix) ----
    pub cyc_o: Signal<Out, bool>,
    pub stb_o: Signal<Out, bool>,
    pub we_o: Signal<Out, bool>,
    pub adr_o: Signal<Out, Bits<32>>,
    pub sel_o: Vec<Signal<Out, Bits<4>>>,
    pub dat_o: Vec<Signal<Out, Bits<32>>>,
    pub tga_o: Signal<Out, Bits<4>>,
    pub dat_i: Vec<Signal<In, Bits<32>>>,
    pub ack_i: Signal<In, bool>,
    pub err_i: Signal<In, bool>,
    pub stall_i: Signal<In, bool>,

    gm: GMaster,
    // R -> X -> A
    x_gm: Reg<bool>,
    x_kind: Reg<Bits<2>>,
    x_tga: Reg<Bits<4>>,
    x_rd: Reg<Bits<5>>,
    x_lt: Reg<Bits<4>>,
    a_gm: Reg<bool>,
    a_kind: Reg<Bits<2>>,
    a_tga: Reg<Bits<4>>,
    a_rd: Reg<Bits<5>>,
    a_lt: Reg<Bits<4>>,
    // A -> M: the entry's contents
    m_v: Reg<bool>,
    m_kind: Reg<Bits<2>>,
    m_tga: Reg<Bits<4>>,
    m_line: Reg<Bits<32>>,
    m_beats: Reg<Bits<32>>,
    m_warp: Reg<Bits<4>>,
    m_rd: Reg<Bits<5>>,
    m_lt: Reg<Bits<4>>,
    m_lanes: Reg<Bits<L>>,
    m_sd: Vec<Reg<Bits<32>>>,
    m_be: Vec<Reg<Bits<4>>>,
    m_word: Vec<Reg<Bits<32>>>,
    m_off: Vec<Reg<Bits<2>>>,
    // Per-entry fields of this side (written at M, read at `rt_idx`; the
    // warp also at `ret_idx`).
    e_warp: LutRam<4>,
    e_warp_s: LutRam<4>,
    e_rd: LutRam<5>,
    e_lt: LutRam<4>,
    e_lanes: LutRam<L>,
    e_off: Vec<LutRam<2>>,
    e_warp_t: LutRam<4>,
    e_lanes_t: LutRam<L>,
    e_pc_t: LutRam<16>,
    m_pc: Reg<Bits<16>>,
    // Trace registers.
    r_rsp: Reg<bool>,
    r_rsp_entry: Reg<Bits<4>>,
    r_free: Reg<Bits<5>>,
    // Locals.
    r_gm: Signal<Local, bool>,
    r_kind: Signal<Local, Bits<2>>,
    r_tga: Signal<Local, Bits<4>>,
    r_lt: Signal<Local, Bits<4>>,
    a_go: Signal<Local, bool>,
    line_a: Signal<Local, Bits<32>>,
    beats_a: Signal<Local, Bits<32>>,
    word_a: Vec<Signal<Local, Bits<32>>>,
    // Constants.
    c0_32: Constant<Bits<32>>,
    c1_32: Constant<Bits<32>>,
    c2_32: Constant<Bits<32>>,
    line_shift: Constant<Bits<32>>,
    wmask: Constant<Bits<32>>,
    lgwpb: Constant<Bits<32>>,
    c0_4: Constant<Bits<4>>,
    k_read: Constant<Bits<2>>,
    k_write: Constant<Bits<2>>,
    k_atom: Constant<Bits<2>>,
    tga: Vec<Constant<Bits<4>>>,
    lt_bit: Vec<Constant<Bits<4>>>,
    cb_mem: Constant<Bits<NCLS>>,
    cb_store: Constant<Bits<NCLS>>,
    cb_atom: Constant<Bits<NCLS>>,
    _l: usize,
    _na: usize,
    _wpb: usize,
}

impl<const L: usize> GlobalMem<L> {
    pub fn new(hw: &HwParams) -> Self {
        assert_eq!(hw.lanes, L);
        let c = GmConfig::new(hw);
        let wpb = c.geom.beat_words();
        let lt_bit: Vec<Constant<Bits<4>>> = (0..4).map(|b| k(1 << b)).collect();
        GlobalMem {
            clock: Default::default(),
            reset: Default::default(),
            r_pass: Default::default(),
            r_cls: Default::default(),
            r_shared: Default::default(),
            r_msize: Default::default(),
            r_msigned: Default::default(),
            r_atom: Default::default(),
            r_rd: Default::default(),
            a_pass: Default::default(),
            a_warp: Default::default(),
            a_pc: Default::default(),
            a_exec: Default::default(),
            a_kill: Default::default(),
            a_commit: Default::default(),
            a_served: Default::default(),
            a_addr: sig(L),
            a_sd: sig(L),
            a_be: sig(L),
            refused: Default::default(),
            rsv: Default::default(),
            ret_valid: Default::default(),
            ret_idx: Default::default(),
            ret_err: Default::default(),
            ret_warp: Default::default(),
            ret_take: Default::default(),
            free: Default::default(),
            free_idx: Default::default(),
            rt_idx: Default::default(),
            rs_word: sig(L),
            rs_off: sig(L),
            rs_lt: Default::default(),
            rs_lanes: Default::default(),
            rs_rd: Default::default(),
            rs_warp: Default::default(),
            wdone: Default::default(),
            done_warp: Default::default(),
            idle: Default::default(),
            trap: Default::default(),
            trap_idx: Default::default(),
            trap_warp: Default::default(),
            trap_lanes: Default::default(),
            trap_pc: Default::default(),
            trap_addr: Default::default(),
            n_free: Default::default(),
            q_send: Default::default(),
            q_resp: Default::default(),
            q_ret: Default::default(),
            ev_qfull: Default::default(),
            ev_beat: Default::default(),
            ev_stall: Default::default(),
            tr_rsp: Default::default(),
            tr_rsp_entry: Default::default(),
            tr_free: Default::default(),
            cyc_o: Default::default(),
            stb_o: Default::default(),
            we_o: Default::default(),
            adr_o: Default::default(),
            sel_o: sig(wpb),
            dat_o: sig(wpb),
            tga_o: Default::default(),
            dat_i: sig(wpb),
            ack_i: Default::default(),
            err_i: Default::default(),
            stall_i: Default::default(),
            gm: GMaster::new(&c),
            x_gm: Default::default(),
            x_kind: Default::default(),
            x_tga: Default::default(),
            x_rd: Default::default(),
            x_lt: Default::default(),
            a_gm: Default::default(),
            a_kind: Default::default(),
            a_tga: Default::default(),
            a_rd: Default::default(),
            a_lt: Default::default(),
            m_v: Default::default(),
            m_kind: Default::default(),
            m_tga: Default::default(),
            m_line: Default::default(),
            m_beats: Default::default(),
            m_warp: Default::default(),
            m_rd: Default::default(),
            m_lt: Default::default(),
            m_lanes: Default::default(),
            m_sd: sig(L),
            m_be: sig(L),
            m_word: sig(L),
            m_off: sig(L),
            e_warp: LutRam::new(4),
            e_warp_s: LutRam::new(4),
            e_rd: LutRam::new(5),
            e_lt: LutRam::new(4),
            e_lanes: LutRam::new(L),
            e_off: (0..L).map(|_| LutRam::new(2)).collect(),
            e_warp_t: LutRam::new(4),
            e_lanes_t: LutRam::new(L),
            e_pc_t: LutRam::new(16),
            m_pc: Default::default(),
            r_rsp: Default::default(),
            r_rsp_entry: Default::default(),
            r_free: Default::default(),
            r_gm: Default::default(),
            r_kind: Default::default(),
            r_tga: Default::default(),
            r_lt: Default::default(),
            a_go: Default::default(),
            line_a: Default::default(),
            beats_a: Default::default(),
            word_a: sig(L),
            c0_32: k(0),
            c1_32: k(1),
            c2_32: k(2),
            line_shift: k(hw.global_line_shift as u64),
            wmask: k(c.geom.line_words() as u64 - 1),
            lgwpb: k(wpb.trailing_zeros() as u64),
            c0_4: k(0),
            k_read: k(KIND_READ),
            k_write: k(KIND_WRITE),
            k_atom: k(KIND_ATOMIC),
            tga: (0..NATOM)
                .map(|i| {
                    k(
                        concord_uarch::wishbone::atomic_tag(concord_isa::instr::AtomOp::ALL[i])
                            as u64,
                    )
                })
                .collect(),
            lt_bit,
            cb_mem: k((1 << Class::Load.bit())
                | (1 << Class::Store.bit())
                | (1 << Class::Atom.bit())),
            cb_store: k(1 << Class::Store.bit()),
            cb_atom: k(1 << Class::Atom.bit()),
            _l: L,
            _na: NATOM,
            _wpb: wpb,
        }
    }
}

impl<const L: usize> Logic for GlobalMem<L> {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- clocks ----
        self.gm.clock.next = self.clock.val();
        self.gm.reset.next = self.reset.val();
        self.x_gm.clock.next = self.clock.val();
        self.x_gm.reset.next = self.reset.val();
        self.x_kind.clock.next = self.clock.val();
        self.x_kind.reset.next = self.reset.val();
        self.x_tga.clock.next = self.clock.val();
        self.x_tga.reset.next = self.reset.val();
        self.x_rd.clock.next = self.clock.val();
        self.x_rd.reset.next = self.reset.val();
        self.x_lt.clock.next = self.clock.val();
        self.x_lt.reset.next = self.reset.val();
        self.a_gm.clock.next = self.clock.val();
        self.a_gm.reset.next = self.reset.val();
        self.a_kind.clock.next = self.clock.val();
        self.a_kind.reset.next = self.reset.val();
        self.a_tga.clock.next = self.clock.val();
        self.a_tga.reset.next = self.reset.val();
        self.a_rd.clock.next = self.clock.val();
        self.a_rd.reset.next = self.reset.val();
        self.a_lt.clock.next = self.clock.val();
        self.a_lt.reset.next = self.reset.val();
        self.m_v.clock.next = self.clock.val();
        self.m_v.reset.next = self.reset.val();
        self.m_kind.clock.next = self.clock.val();
        self.m_kind.reset.next = self.reset.val();
        self.m_tga.clock.next = self.clock.val();
        self.m_tga.reset.next = self.reset.val();
        self.m_line.clock.next = self.clock.val();
        self.m_line.reset.next = self.reset.val();
        self.m_beats.clock.next = self.clock.val();
        self.m_beats.reset.next = self.reset.val();
        self.m_warp.clock.next = self.clock.val();
        self.m_warp.reset.next = self.reset.val();
        self.m_rd.clock.next = self.clock.val();
        self.m_rd.reset.next = self.reset.val();
        self.m_lt.clock.next = self.clock.val();
        self.m_lt.reset.next = self.reset.val();
        self.m_lanes.clock.next = self.clock.val();
        self.m_lanes.reset.next = self.reset.val();
        for l in 0..self._l {
            self.m_sd[l].clock.next = self.clock.val();
            self.m_sd[l].reset.next = self.reset.val();
            self.m_be[l].clock.next = self.clock.val();
            self.m_be[l].reset.next = self.reset.val();
            self.m_word[l].clock.next = self.clock.val();
            self.m_word[l].reset.next = self.reset.val();
            self.m_off[l].clock.next = self.clock.val();
            self.m_off[l].reset.next = self.reset.val();
            self.e_off[l].clock.next = self.clock.val();
        }
        self.e_warp.clock.next = self.clock.val();
        self.e_warp_s.clock.next = self.clock.val();
        self.e_rd.clock.next = self.clock.val();
        self.e_lt.clock.next = self.clock.val();
        self.e_lanes.clock.next = self.clock.val();
        self.e_warp_t.clock.next = self.clock.val();
        self.e_lanes_t.clock.next = self.clock.val();
        self.e_pc_t.clock.next = self.clock.val();
        self.m_pc.clock.next = self.clock.val();
        self.m_pc.reset.next = self.reset.val();
        self.r_rsp.clock.next = self.clock.val();
        self.r_rsp.reset.next = self.reset.val();
        self.r_rsp_entry.clock.next = self.clock.val();
        self.r_rsp_entry.reset.next = self.reset.val();
        self.r_free.clock.next = self.clock.val();
        self.r_free.reset.next = self.reset.val();

        // ---- R: the pass's class, registered to X and A ----
        self.r_gm.next =
            self.r_pass.val() & !self.r_shared.val() & (self.r_cls.val() & self.cb_mem.val()).any();
        self.r_kind.next = self.k_read.val();
        if (self.r_cls.val() & self.cb_store.val()).any() {
            self.r_kind.next = self.k_write.val();
        }
        if (self.r_cls.val() & self.cb_atom.val()).any() {
            self.r_kind.next = self.k_atom.val();
        }
        self.r_tga.next = self.c0_4.val();
        for i in 0..self._na {
            if self.r_atom.val().get_bit(i) {
                self.r_tga.next = self.r_tga.val() | self.tga[i].val();
            }
        }
        self.r_lt.next = self.c0_4.val();
        for b in 0..3 {
            if self.r_msize.val().get_bit(b) {
                self.r_lt.next = self.r_lt.val() | self.lt_bit[b].val();
            }
        }
        if self.r_msigned.val() {
            self.r_lt.next = self.r_lt.val() | self.lt_bit[3].val();
        }
        self.x_gm.d.next = self.r_gm.val();
        self.x_kind.d.next = self.r_kind.val();
        self.x_tga.d.next = self.r_tga.val();
        self.x_rd.d.next = self.r_rd.val();
        self.x_lt.d.next = self.r_lt.val();
        self.a_gm.d.next = self.x_gm.q.val();
        self.a_kind.d.next = self.x_kind.q.val();
        self.a_tga.d.next = self.x_tga.q.val();
        self.a_rd.d.next = self.x_rd.q.val();
        self.a_lt.d.next = self.x_lt.q.val();

        // ---- A: refusal and reservation ----
        self.a_go.next = self.a_pass.val() & self.a_gm.q.val();
        self.refused.next = self.a_go.val() & self.a_exec.val().any() & !self.gm.rsv_ok.val();
        self.ev_qfull.next = self.refused.val() & !self.a_kill.val();
        self.rsv.next = self.a_go.val() & self.a_commit.val() & self.a_served.val().any();
        self.gm.rsv.next = self.rsv.val();
        // The entry: the served lanes' line, each lane's word in the line
        // and byte offset, the beats holding a served lane's word. The
        // served lanes of a load or store hold the arbiter's minimal key,
        // which is their line, and an atomic serves one lane: the OR of the
        // served lanes' addresses has their line in its line bits, with no
        // first-lane search (a carry chain) after the arbiter.
        self.line_a.next = self.c0_32.val();
        self.beats_a.next = self.c0_32.val();
        for l in 0..self._l {
            if self.a_served.val().get_bit(l) {
                self.line_a.next = self.line_a.val() | self.a_addr[l].val();
            }
            self.word_a[l].next = (self.a_addr[l].val() >> self.c2_32.val()) & self.wmask.val();
            if self.a_served.val().get_bit(l) {
                self.beats_a.next = self.beats_a.val()
                    | (self.c1_32.val() << (self.word_a[l].val() >> self.lgwpb.val()));
            }
            self.m_sd[l].d.next = self.a_sd[l].val();
            self.m_be[l].d.next = self.c0_4.val();
            if self.a_served.val().get_bit(l) {
                self.m_be[l].d.next = self.a_be[l].val();
            }
            self.m_word[l].d.next = self.word_a[l].val();
            self.m_off[l].d.next = self.a_addr[l].val().get_bits::<2>(0);
        }
        self.m_v.d.next = self.rsv.val();
        self.m_kind.d.next = self.a_kind.q.val();
        self.m_tga.d.next = self.a_tga.q.val();
        self.m_line.d.next = self.line_a.val() >> self.line_shift.val();
        self.m_beats.d.next = self.beats_a.val();
        self.m_warp.d.next = self.a_warp.val();
        self.m_pc.d.next = self.a_pc.val();
        self.m_rd.d.next = self.a_rd.q.val();
        self.m_lt.d.next = self.a_lt.q.val();
        self.m_lanes.d.next = self.a_served.val();

        // ---- M: the entry is written ----
        self.gm.ew.next = self.m_v.q.val();
        self.gm.ew_kind.next = self.m_kind.q.val();
        self.gm.ew_tga.next = self.m_tga.q.val();
        self.gm.ew_line.next = self.m_line.q.val();
        self.gm.ew_beats.next = self.m_beats.q.val();
        self.gm.ew_warp.next = self.m_warp.q.val();
        for l in 0..self._l {
            self.gm.ew_data[l].next = self.m_sd[l].q.val();
            self.gm.ew_be[l].next = self.m_be[l].q.val();
            self.gm.ew_word[l].next = self.m_word[l].q.val();
            self.e_off[l].we.next = self.m_v.q.val();
            self.e_off[l].waddr.next = self.gm.ew_idx.val();
            self.e_off[l].wdata.next = self.m_off[l].q.val();
            self.e_off[l].raddr.next = self.rt_idx.val();
            self.rs_off[l].next = self.e_off[l].rdata.val();
            self.rs_word[l].next = self.gm.rt_data[l].val();
        }
        self.e_warp.we.next = self.m_v.q.val();
        self.e_warp_s.we.next = self.m_v.q.val();
        self.e_rd.we.next = self.m_v.q.val();
        self.e_lt.we.next = self.m_v.q.val();
        self.e_lanes.we.next = self.m_v.q.val();
        self.e_warp.waddr.next = self.gm.ew_idx.val();
        self.e_warp_s.waddr.next = self.gm.ew_idx.val();
        self.e_rd.waddr.next = self.gm.ew_idx.val();
        self.e_lt.waddr.next = self.gm.ew_idx.val();
        self.e_lanes.waddr.next = self.gm.ew_idx.val();
        self.e_warp.wdata.next = self.m_warp.q.val();
        self.e_warp_s.wdata.next = self.m_warp.q.val();
        self.e_rd.wdata.next = self.m_rd.q.val();
        self.e_lt.wdata.next = self.m_lt.q.val();
        self.e_lanes.wdata.next = self.m_lanes.q.val();

        // ---- return slots ----
        self.ret_valid.next = self.gm.ret_valid.val();
        self.ret_idx.next = self.gm.ret_idx.val();
        self.ret_err.next = self.gm.ret_err.val();
        self.e_warp_s.raddr.next = self.gm.ret_idx.val();
        self.ret_warp.next = self.e_warp_s.rdata.val();
        self.gm.ret_take.next = self.ret_take.val();
        self.gm.free.next = self.free.val();
        self.gm.free_idx.next = self.free_idx.val();
        self.gm.rt_idx.next = self.rt_idx.val();
        self.e_warp.raddr.next = self.rt_idx.val();
        self.e_rd.raddr.next = self.rt_idx.val();
        self.e_lt.raddr.next = self.rt_idx.val();
        self.e_lanes.raddr.next = self.rt_idx.val();
        self.rs_warp.next = self.e_warp.rdata.val();
        self.rs_rd.next = self.e_rd.rdata.val();
        self.rs_lt.next = self.e_lt.rdata.val();
        self.rs_lanes.next = self.e_lanes.rdata.val();

        // ---- completions, counts, trace ----
        self.wdone.next = self.gm.wdone.val();
        self.done_warp.next = self.gm.done_warp.val();
        self.idle.next = self.gm.idle.val();
        self.n_free.next = self.gm.n_free.val();
        self.q_send.next = self.gm.q_send.val();
        self.q_resp.next = self.gm.q_resp.val();
        self.q_ret.next = self.gm.q_ret.val();
        self.r_rsp.d.next = self.gm.rsp.val();
        self.r_rsp_entry.d.next = self.c0_4.val();
        if self.gm.rsp.val() {
            self.r_rsp_entry.d.next = self.gm.done_idx.val();
        }
        self.r_free.d.next = self.gm.n_free_next.val();
        self.tr_rsp.next = self.r_rsp.q.val();
        self.tr_rsp_entry.next = self.r_rsp_entry.q.val();
        self.tr_free.next = self.r_free.q.val();
        self.ev_beat.next = self.gm.stb_o.val() & !self.stall_i.val();
        self.ev_stall.next = self.gm.stb_o.val() & self.stall_i.val();

        // ---- the bus ----
        self.cyc_o.next = self.gm.cyc_o.val();
        self.stb_o.next = self.gm.stb_o.val();
        self.we_o.next = self.gm.we_o.val();
        self.adr_o.next = self.gm.adr_o.val();
        self.tga_o.next = self.gm.tga_o.val();
        for s in 0..self._wpb {
            self.sel_o[s].next = self.gm.sel_o[s].val();
            self.dat_o[s].next = self.gm.dat_o[s].val();
            self.gm.dat_i[s].next = self.dat_i[s].val();
        }
        self.gm.ack_i.next = self.ack_i.val();
        self.gm.err_i.next = self.err_i.val();
        self.gm.stall_i.next = self.stall_i.val();
        self.trap.next = self.gm.trap.val();
        self.trap_idx.next = self.gm.done_idx.val();
        self.trap_addr.next = self.gm.trap_addr.val();
        // The failing entry's fields (a copy read at the completing entry).
        self.e_warp_t.we.next = self.m_v.q.val();
        self.e_lanes_t.we.next = self.m_v.q.val();
        self.e_pc_t.we.next = self.m_v.q.val();
        self.e_warp_t.waddr.next = self.gm.ew_idx.val();
        self.e_lanes_t.waddr.next = self.gm.ew_idx.val();
        self.e_pc_t.waddr.next = self.gm.ew_idx.val();
        self.e_warp_t.wdata.next = self.m_warp.q.val();
        self.e_lanes_t.wdata.next = self.m_lanes.q.val();
        self.e_pc_t.wdata.next = self.m_pc.q.val();
        self.e_warp_t.raddr.next = self.gm.done_idx.val();
        self.e_lanes_t.raddr.next = self.gm.done_idx.val();
        self.e_pc_t.raddr.next = self.gm.done_idx.val();
        self.trap_warp.next = self.e_warp_t.rdata.val();
        self.trap_lanes.next = self.e_lanes_t.rdata.val();
        self.trap_pc.next = self.e_pc_t.rdata.val();
    }
}
