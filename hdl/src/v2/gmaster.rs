//! The bus side of Core v2's global unit (docs/microarchitecture.md
//! §10.2, §14.5): the ring of `N` entries, the beat sequencer, the Wishbone
//! B4 pipelined master and the response processing.
//!
//! **Ring.** An entry is busy from its reservation (`rsv`, stage A) until
//! it is freed: a write when its last beat is processed, a read or atomic
//! by its return slot (`free`, `free_idx`, stage A of the return slot).
//! Writes are freed before older reads, so freeing is not in ring order.
//! A reservation is possible while any entry is free (`rsv_ok`, from
//! flip-flops: "refused if no entry is free at the start of the cycle",
//! §10.2) and takes the first free entry in ring order after the last one
//! reserved, as the cycle model (`testbench/src/pipeline/global.rs`) does.
//! The entry is written the cycle after (`ew`, stage M, at the reserved
//! index, kept in `widx`) and joins two order queues (LUT-RAM, positions
//! `wptr`, `sptr`, `aptr`), so that beats are sent and answers matched in
//! reservation order. The entries at the queues' heads are registers
//! (`sidx_r`, `aidx_r`): every LUT-RAM read address is a flip-flop.
//!
//! **Send.** Entries in order, each entry's beats in ascending order over
//! its beats mask. The output registers (`stb_o`, `we_o`, `adr_o`,
//! `sel_o`, `dat_o`, `tga_o`) are loaded at the end of a cycle in which
//! `stb_o` is 0 or `stall_i` is 0, with the next beat when one is
//! available (its entry was written at the end of an earlier cycle), else
//! with `stb_o = 0`; they hold while the slave stalls. Beat contents follow
//! `concord_uarch::wishbone::beat_of`: a read selects every byte and sends
//! 0; a write or atomic selects the served lanes' byte enables in the beat
//! and sends each byte from the highest lane that writes it.
//!
//! **Byte ownership is decided when the entry is written**, not when it is
//! sent: a lane's stored byte enables are the bytes it writes that no
//! higher lane of the entry writes in the same word (lanes in one word are
//! in one beat and one slot of it, so this is the same rule as per beat).
//! The write side has a cycle of its own (M, from registers); on the send
//! side the OR over the higher lanes' claims sat between the entry
//! LUT-RAMs and the `dat_o` registers, the longest path of the unit.
//!
//! **Responses.** `ack_i`, `err_i`, `dat_i` are registered; a registered
//! answer is processed in the next cycle, for the oldest entry with
//! unanswered beats (`aidx_r`), its next beat in ascending order. A read or
//! atomic beat writes the word of each lane whose word lies in it into the
//! lane's load data. At the entry's last beat the entry completes: a write
//! is freed (`wdone`, with the entry's `warp`); a read or atomic is pushed
//! on the returnable queue (`ret_valid`, `ret_idx`, `ret_err`, taken by
//! `ret_take` at S in entry order). An entry with an `ERR` beat completes
//! after its last beat, without load data, and `trap` is 1 in the cycle of
//! its completion, with `trap_addr` the byte address of its first `ERR`
//! beat (the entry's line is read at the response side through a second
//! LUT-RAM copy, `m_line_a`). `q_send`, `q_resp`, `q_ret` are
//! `DBG_QUEUE`'s counts (§14.4).
//!
//! `cyc_o` is registered: 1 in every cycle in which `stb_o` is 1 or an
//! accepted beat is not yet processed.
//!
//! Every port toward the bus is a flip-flop. The core-side outputs
//! (`rsv_ok`, `wdone`, `done_warp`, `trap`, `ret_*`) depend only on
//! flip-flops and LUT-RAM contents; `rt_data` is the asynchronous read of
//! the lanes' load data at `rt_idx` (stage R of a return slot).

use concord_uarch::wishbone::BusGeometry;
use concord_uarch::HwParams;
use rust_hdl_core::prelude::*;

use super::gentry::{GEntry, LutRam};
use crate::util::Reg;

/// Entry kinds on `ew_kind`.
pub const KIND_READ: u64 = 0;
pub const KIND_WRITE: u64 = 1;
pub const KIND_ATOMIC: u64 = 2;

/// The sizes of one global unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GmConfig {
    /// `L`.
    pub lanes: usize,
    /// `N` (1..=16).
    pub entries: usize,
    /// `G`, `Wb`.
    pub geom: BusGeometry,
    /// `Kl`: bits of a line number.
    pub line_bits: usize,
}

impl GmConfig {
    pub fn new(p: &HwParams) -> GmConfig {
        let addr_bits = 32 - (p.global_bytes.max(2) - 1).leading_zeros() as usize;
        GmConfig {
            lanes: p.lanes,
            entries: p.global_outstanding,
            geom: BusGeometry::new(p.global_line_bytes, p.global_bus_bytes),
            line_bits: addr_bits
                .saturating_sub(p.global_line_shift as usize)
                .max(1),
        }
    }
}

fn lg(x: usize) -> u64 {
    x.trailing_zeros() as u64
}

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.into())
}

fn sig<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| Default::default()).collect()
}

/// The global unit's bus side. Bus ports as §14.2 without the `gm_` prefix
/// (`dat_o`, `sel_o`, `dat_i`: one 32-bit word, 4 selects, per word of the
/// bus word, word 0 = bytes 0..3; `adr_o`: the bus word address, `AW` low
/// bits used).
#[derive(LogicBlock)]
pub struct GMaster {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    // Wishbone master.
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
    // Reservation (A).
    pub rsv_ok: Signal<Out, bool>,
    pub rsv: Signal<In, bool>,
    // Entry write (M).
    pub ew: Signal<In, bool>,
    pub ew_kind: Signal<In, Bits<2>>,
    /// `1 + op` for an atomic.
    pub ew_tga: Signal<In, Bits<4>>,
    /// The line number ℓ (byte address / `G`), `Kl` bits used.
    pub ew_line: Signal<In, Bits<32>>,
    /// The beats mask, `NB` bits used.
    pub ew_beats: Signal<In, Bits<32>>,
    pub ew_warp: Signal<In, Bits<4>>,
    /// Per lane: store data or operand in its byte lanes, byte enables
    /// (0 for a lane not served), word index in the line.
    pub ew_data: Vec<Signal<In, Bits<32>>>,
    pub ew_be: Vec<Signal<In, Bits<4>>>,
    pub ew_word: Vec<Signal<In, Bits<32>>>,
    /// The entry `ew` writes (reserved the cycle before): for the core's
    /// own per-entry fields (pc, `rd`, load type, served lanes).
    pub ew_idx: Signal<Out, Bits<4>>,
    /// A write entry completes in this cycle (its `outstanding` decrement).
    pub wdone: Signal<Out, bool>,
    pub done_warp: Signal<Out, Bits<4>>,
    /// The entry whose answers are being processed (the one completing
    /// with `wdone` or `trap`).
    pub done_idx: Signal<Out, Bits<4>>,
    /// An entry with an `ERR` beat completes in this cycle (trap 11), and
    /// the byte address of its first `ERR` beat (§13.1).
    pub trap: Signal<Out, bool>,
    pub trap_addr: Signal<Out, Bits<32>>,
    // Return slots.
    pub ret_valid: Signal<Out, bool>,
    pub ret_idx: Signal<Out, Bits<4>>,
    pub ret_err: Signal<Out, bool>,
    pub ret_take: Signal<In, bool>,
    pub free: Signal<In, bool>,
    pub free_idx: Signal<In, Bits<4>>,
    pub rt_idx: Signal<In, Bits<4>>,
    pub rt_data: Vec<Signal<Out, Bits<32>>>,
    /// A registered answer is processed in this cycle (`tr_rsp`; its entry
    /// is `done_idx`).
    pub rsp: Signal<Out, bool>,
    /// Free entries now (`DBG_QUEUE`), and after this cycle's
    /// reservation and frees (`tr_free`, §15.2: the model counts them at
    /// the end of the cycle).
    pub n_free: Signal<Out, Bits<5>>,
    pub n_free_next: Signal<Out, Bits<5>>,
    /// `DBG_QUEUE` (§14.4), at the start of the cycle: entries in use with
    /// beats not yet loaded into the output register, entries in use with
    /// beats not yet answered, completed reads and atomics not yet freed
    /// by their return slot.
    pub q_send: Signal<Out, Bits<5>>,
    pub q_resp: Signal<Out, Bits<5>>,
    pub q_ret: Signal<Out, Bits<5>>,
    /// No entry in use (§12.5 `DONE`, §13.2 `TRAP`, `STATUS.halted`).
    pub idle: Signal<Out, bool>,
    // Per-lane storage and entry metadata (LUT-RAM).
    ge: Vec<GEntry>,
    m_skind: LutRam<2>,
    m_tga: LutRam<4>,
    m_line: LutRam<32>,
    /// A copy of `m_line` read at the response side's entry (the byte
    /// address of an `ERR` beat).
    m_line_a: LutRam<32>,
    m_sbeats: LutRam<32>,
    m_akind: LutRam<2>,
    m_abeats: LutRam<32>,
    m_warp: LutRam<4>,
    q_idx: LutRam<4>,
    q_err: LutRam<4>,
    o_s: LutRam<4>,
    o_a: LutRam<4>,
    // Registers.
    r_cyc: Reg<bool>,
    r_stb: Reg<bool>,
    r_we: Reg<bool>,
    r_adr: Reg<Bits<32>>,
    r_tga: Reg<Bits<4>>,
    r_sel: Vec<Reg<Bits<4>>>,
    r_dat: Vec<Reg<Bits<32>>>,
    r_ack: Reg<bool>,
    r_err: Reg<bool>,
    r_din: Vec<Reg<Bits<32>>>,
    busy: Reg<Bits<16>>,
    alloc: Reg<Bits<4>>,
    widx: Reg<Bits<4>>,
    sidx_r: Reg<Bits<4>>,
    aidx_r: Reg<Bits<4>>,
    nsend: Reg<Bits<5>>,
    wptr: Reg<Bits<4>>,
    sptr: Reg<Bits<4>>,
    aptr: Reg<Bits<4>>,
    srem: Reg<Bits<32>>,
    sold: Reg<bool>,
    arem: Reg<Bits<32>>,
    aold: Reg<bool>,
    aerr: Reg<bool>,
    /// The byte address of the first `ERR` beat of the entry at `aidx_r`.
    aerr_adr: Reg<Bits<32>>,
    /// `DBG_QUEUE` counts (see `q_send`, `q_ret`).
    n_send: Reg<Bits<5>>,
    n_ret: Reg<Bits<5>>,
    inflight: Reg<Bits<10>>,
    qh: Reg<Bits<4>>,
    qt: Reg<Bits<4>>,
    qn: Reg<Bits<5>>,
    // Locals.
    s_avail: Signal<Local, bool>,
    fr: Signal<Local, Bits<16>>,
    cand: Signal<Local, Bits<16>>,
    pick: Signal<Local, Bits<16>>,
    nidx: Signal<Local, Bits<4>>,
    sp1: Signal<Local, Bits<4>>,
    ap1: Signal<Local, Bits<4>>,
    s_cur: Signal<Local, Bits<32>>,
    s_oh: Signal<Local, Bits<32>>,
    s_k: Signal<Local, Bits<32>>,
    s_left: Signal<Local, Bits<32>>,
    s_ld: Signal<Local, bool>,
    s_go: Signal<Local, bool>,
    s_last: Signal<Local, bool>,
    s_read: Signal<Local, bool>,
    s_word: Vec<Signal<Local, Bits<32>>>,
    s_be: Vec<Signal<Local, Bits<4>>>,
    s_data: Vec<Signal<Local, Bits<32>>>,
    s_hi: Vec<Signal<Local, bool>>,
    /// Per lane, its word's beat one-hot; the beat being sent one-hot
    /// (bit 0 when no beat is left, as `s_k` = 0 then).
    s_boh: Vec<Signal<Local, Bits<32>>>,
    s_ohz: Signal<Local, Bits<32>>,
    /// Per bus-word slot `s` and lane `l` (at `s · L + l`): the bytes the
    /// lane owns there (its stored byte enables, already without those of
    /// higher lanes in its word).
    claim: Vec<Signal<Local, Bits<4>>>,
    /// Entry write, per lane: the bytes a higher lane writes in the lane's
    /// word, and the lane's own bytes (stored as its byte enables).
    w_higher: Vec<Signal<Local, Bits<4>>>,
    w_own: Vec<Signal<Local, Bits<4>>>,
    /// Lane pair (`l`, `h`) at `l · L + h`: `h > l`.
    above: Vec<Constant<bool>>,
    taken: Signal<Local, Bits<4>>,
    bm: Signal<Local, Bits<32>>,
    n_sel: Vec<Signal<Local, Bits<4>>>,
    n_dat: Vec<Signal<Local, Bits<32>>>,
    p: Signal<Local, bool>,
    a_cur: Signal<Local, Bits<32>>,
    a_oh: Signal<Local, Bits<32>>,
    a_k: Signal<Local, Bits<32>>,
    a_left: Signal<Local, Bits<32>>,
    a_last: Signal<Local, bool>,
    a_ret: Signal<Local, bool>,
    a_bad: Signal<Local, bool>,
    a_adr: Signal<Local, Bits<32>>,
    cap: Signal<Local, Bits<32>>,
    push: Signal<Local, bool>,
    acc: Signal<Local, bool>,
    infl: Signal<Local, Bits<10>>,
    set_m: Signal<Local, Bits<16>>,
    clr_m: Signal<Local, Bits<16>>,
    busy_n: Signal<Local, Bits<16>>,
    /// The entries in use after this cycle's frees, before the reservation
    /// (late in A: it follows the arbiter), and their free count.
    busy_kept: Signal<Local, Bits<16>>,
    n_free_kept: Signal<Local, Bits<5>>,
    // Constants.
    c0_4: Constant<Bits<4>>,
    c1_4: Constant<Bits<4>>,
    last4: Constant<Bits<4>>,
    f4: Constant<Bits<4>>,
    c1_5: Constant<Bits<5>>,
    c0_5: Constant<Bits<5>>,
    c1_10: Constant<Bits<10>>,
    c0_10: Constant<Bits<10>>,
    c1_16: Constant<Bits<16>>,
    c0_16: Constant<Bits<16>>,
    /// The `N` entries' bits.
    nmask: Constant<Bits<16>>,
    ones16: Constant<Bits<16>>,
    /// The `NB` beats' bits.
    nbmask: Constant<Bits<32>>,
    c0_32: Constant<Bits<32>>,
    c1_32: Constant<Bits<32>>,
    lgnb: Constant<Bits<32>>,
    lgwpb: Constant<Bits<32>>,
    /// log2 of the bus word's bytes (`Wb`).
    lgwb: Constant<Bits<32>>,
    /// `N`.
    n5: Constant<Bits<5>>,
    wpbm: Constant<Bits<32>>,
    kmask: Vec<Constant<Bits<32>>>,
    kpow: Vec<Constant<Bits<32>>>,
    kmask16: Vec<Constant<Bits<16>>>,
    kpow4: Vec<Constant<Bits<4>>>,
    slotc: Vec<Constant<Bits<32>>>,
    bit4: Vec<Constant<Bits<4>>>,
    byte32: Vec<Constant<Bits<32>>>,
    k_read: Constant<Bits<2>>,
    k_write: Constant<Bits<2>>,
    k_atom: Constant<Bits<2>>,
    _l: usize,
    _lp1: usize,
    _wpb: usize,
    _n: usize,
}

impl GMaster {
    pub fn new(c: &GmConfig) -> GMaster {
        assert!((1..=16).contains(&c.entries) && c.lanes >= 1);
        let nb = c.geom.beats();
        let wpb = c.geom.beat_words();
        let word_bits = (lg(c.geom.line_words()) as usize).max(1);
        GMaster {
            clock: Default::default(),
            reset: Default::default(),
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
            rsv_ok: Default::default(),
            rsv: Default::default(),
            ew: Default::default(),
            ew_kind: Default::default(),
            ew_tga: Default::default(),
            ew_line: Default::default(),
            ew_beats: Default::default(),
            ew_warp: Default::default(),
            ew_data: sig(c.lanes),
            ew_be: sig(c.lanes),
            ew_word: sig(c.lanes),
            ew_idx: Default::default(),
            wdone: Default::default(),
            done_warp: Default::default(),
            done_idx: Default::default(),
            trap: Default::default(),
            trap_addr: Default::default(),
            ret_valid: Default::default(),
            ret_idx: Default::default(),
            ret_err: Default::default(),
            ret_take: Default::default(),
            free: Default::default(),
            free_idx: Default::default(),
            rt_idx: Default::default(),
            rt_data: sig(c.lanes),
            rsp: Default::default(),
            n_free: Default::default(),
            n_free_next: Default::default(),
            q_send: Default::default(),
            q_resp: Default::default(),
            q_ret: Default::default(),
            idle: Default::default(),
            ge: (0..c.lanes).map(|_| GEntry::new(word_bits)).collect(),
            m_skind: LutRam::new(2),
            m_tga: LutRam::new(4),
            m_line: LutRam::new(c.line_bits.min(32)),
            m_line_a: LutRam::new(c.line_bits.min(32)),
            m_sbeats: LutRam::new(nb),
            m_akind: LutRam::new(2),
            m_abeats: LutRam::new(nb),
            m_warp: LutRam::new(4),
            q_idx: LutRam::new(4),
            q_err: LutRam::new(1),
            o_s: LutRam::new(4),
            o_a: LutRam::new(4),
            r_cyc: Default::default(),
            r_stb: Default::default(),
            r_we: Default::default(),
            r_adr: Default::default(),
            r_tga: Default::default(),
            r_sel: sig(wpb),
            r_dat: sig(wpb),
            r_ack: Default::default(),
            r_err: Default::default(),
            r_din: sig(wpb),
            busy: Default::default(),
            alloc: Default::default(),
            widx: Default::default(),
            sidx_r: Default::default(),
            aidx_r: Default::default(),
            nsend: Default::default(),
            wptr: Default::default(),
            sptr: Default::default(),
            aptr: Default::default(),
            srem: Default::default(),
            sold: Default::default(),
            arem: Default::default(),
            aold: Default::default(),
            aerr: Default::default(),
            aerr_adr: Default::default(),
            n_send: Default::default(),
            n_ret: Default::default(),
            inflight: Default::default(),
            qh: Default::default(),
            qt: Default::default(),
            qn: Default::default(),
            s_avail: Default::default(),
            fr: Default::default(),
            cand: Default::default(),
            pick: Default::default(),
            nidx: Default::default(),
            sp1: Default::default(),
            ap1: Default::default(),
            s_cur: Default::default(),
            s_oh: Default::default(),
            s_k: Default::default(),
            s_left: Default::default(),
            s_ld: Default::default(),
            s_go: Default::default(),
            s_last: Default::default(),
            s_read: Default::default(),
            s_word: sig(c.lanes),
            s_be: sig(c.lanes),
            s_data: sig(c.lanes),
            s_hi: sig(c.lanes),
            s_boh: sig(c.lanes),
            s_ohz: Default::default(),
            claim: sig(wpb * c.lanes),
            w_higher: sig(c.lanes),
            w_own: sig(c.lanes),
            above: (0..c.lanes * c.lanes)
                .map(|p| Constant::new(p % c.lanes > p / c.lanes))
                .collect(),
            taken: Default::default(),
            bm: Default::default(),
            n_sel: sig(wpb),
            n_dat: sig(wpb),
            p: Default::default(),
            a_cur: Default::default(),
            a_oh: Default::default(),
            a_k: Default::default(),
            a_left: Default::default(),
            a_last: Default::default(),
            a_ret: Default::default(),
            a_bad: Default::default(),
            a_adr: Default::default(),
            cap: Default::default(),
            push: Default::default(),
            acc: Default::default(),
            infl: Default::default(),
            set_m: Default::default(),
            clr_m: Default::default(),
            busy_n: Default::default(),
            busy_kept: Default::default(),
            n_free_kept: Default::default(),
            c0_4: k(0),
            c1_4: k(1),
            last4: k(c.entries as u64 - 1),
            f4: k(15),
            c1_5: k(1),
            c0_5: k(0),
            c1_10: k(1),
            c0_10: k(0),
            c1_16: k(1),
            c0_16: k(0),
            nmask: k((1u64 << c.entries) - 1),
            ones16: k(0xFFFF),
            nbmask: k((1u64 << nb) - 1),
            c0_32: k(0),
            c1_32: k(1),
            lgnb: k(lg(nb)),
            lgwpb: k(lg(wpb)),
            lgwb: k(lg(wpb) + 2),
            n5: k(c.entries as u64),
            wpbm: k(wpb as u64 - 1),
            kmask: (0..5)
                .map(|b| k((0..32u64).filter(|i| i >> b & 1 == 1).map(|i| 1 << i).sum()))
                .collect(),
            kpow: (0..5).map(|b| k(1 << b)).collect(),
            kmask16: (0..4)
                .map(|b| k((0..16u64).filter(|i| i >> b & 1 == 1).map(|i| 1 << i).sum()))
                .collect(),
            kpow4: (0..4).map(|b| k(1 << b)).collect(),
            slotc: (0..wpb).map(|s| k(s as u64)).collect(),
            bit4: (0..4).map(|j| k(1 << j)).collect(),
            byte32: (0..4).map(|j| k(0xFF << (8 * j))).collect(),
            k_read: k(KIND_READ),
            k_write: k(KIND_WRITE),
            k_atom: k(KIND_ATOMIC),
            _l: c.lanes,
            _lp1: c.lanes + 1,
            _wpb: wpb,
            _n: c.entries,
        }
    }
}

impl Logic for GMaster {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- clocks and resets ----
        self.r_cyc.clock.next = self.clock.val();
        self.r_cyc.reset.next = self.reset.val();
        self.r_stb.clock.next = self.clock.val();
        self.r_stb.reset.next = self.reset.val();
        self.r_we.clock.next = self.clock.val();
        self.r_we.reset.next = self.reset.val();
        self.r_adr.clock.next = self.clock.val();
        self.r_adr.reset.next = self.reset.val();
        self.r_tga.clock.next = self.clock.val();
        self.r_tga.reset.next = self.reset.val();
        self.r_ack.clock.next = self.clock.val();
        self.r_ack.reset.next = self.reset.val();
        self.r_err.clock.next = self.clock.val();
        self.r_err.reset.next = self.reset.val();
        for s in 0..self._wpb {
            self.r_sel[s].clock.next = self.clock.val();
            self.r_sel[s].reset.next = self.reset.val();
            self.r_dat[s].clock.next = self.clock.val();
            self.r_dat[s].reset.next = self.reset.val();
            self.r_din[s].clock.next = self.clock.val();
            self.r_din[s].reset.next = self.reset.val();
        }
        self.busy.clock.next = self.clock.val();
        self.busy.reset.next = self.reset.val();
        self.widx.clock.next = self.clock.val();
        self.widx.reset.next = self.reset.val();
        self.sidx_r.clock.next = self.clock.val();
        self.sidx_r.reset.next = self.reset.val();
        self.aidx_r.clock.next = self.clock.val();
        self.aidx_r.reset.next = self.reset.val();
        self.nsend.clock.next = self.clock.val();
        self.nsend.reset.next = self.reset.val();
        self.o_s.clock.next = self.clock.val();
        self.o_a.clock.next = self.clock.val();
        self.alloc.clock.next = self.clock.val();
        self.alloc.reset.next = self.reset.val();
        self.wptr.clock.next = self.clock.val();
        self.wptr.reset.next = self.reset.val();
        self.sptr.clock.next = self.clock.val();
        self.sptr.reset.next = self.reset.val();
        self.aptr.clock.next = self.clock.val();
        self.aptr.reset.next = self.reset.val();
        self.srem.clock.next = self.clock.val();
        self.srem.reset.next = self.reset.val();
        self.sold.clock.next = self.clock.val();
        self.sold.reset.next = self.reset.val();
        self.arem.clock.next = self.clock.val();
        self.arem.reset.next = self.reset.val();
        self.aold.clock.next = self.clock.val();
        self.aold.reset.next = self.reset.val();
        self.aerr.clock.next = self.clock.val();
        self.aerr.reset.next = self.reset.val();
        self.inflight.clock.next = self.clock.val();
        self.inflight.reset.next = self.reset.val();
        self.qh.clock.next = self.clock.val();
        self.qh.reset.next = self.reset.val();
        self.qt.clock.next = self.clock.val();
        self.qt.reset.next = self.reset.val();
        self.qn.clock.next = self.clock.val();
        self.qn.reset.next = self.reset.val();
        self.m_skind.clock.next = self.clock.val();
        self.m_tga.clock.next = self.clock.val();
        self.m_line.clock.next = self.clock.val();
        self.m_line_a.clock.next = self.clock.val();
        self.aerr_adr.clock.next = self.clock.val();
        self.aerr_adr.reset.next = self.reset.val();
        self.n_send.clock.next = self.clock.val();
        self.n_send.reset.next = self.reset.val();
        self.n_ret.clock.next = self.clock.val();
        self.n_ret.reset.next = self.reset.val();
        self.m_sbeats.clock.next = self.clock.val();
        self.m_akind.clock.next = self.clock.val();
        self.m_abeats.clock.next = self.clock.val();
        self.m_warp.clock.next = self.clock.val();
        self.q_idx.clock.next = self.clock.val();
        self.q_err.clock.next = self.clock.val();

        // ---- entry write (M): metadata and lanes at `widx` (reserved the
        // cycle before); the entry joins the order queues at `wptr` ----
        self.o_s.we.next = self.ew.val();
        self.o_a.we.next = self.ew.val();
        self.o_s.waddr.next = self.wptr.q.val();
        self.o_a.waddr.next = self.wptr.q.val();
        self.o_s.wdata.next = self.widx.q.val();
        self.o_a.wdata.next = self.widx.q.val();
        // The entries at the heads of the send and response orders are
        // registers (`sidx_r`, `aidx_r`), so that every LUT-RAM address
        // is a flip-flop: each is loaded with the order queue's next
        // position (`sp1`, `ap1`) when its entry is done, or with the entry
        // being written when it joins an empty order.
        self.sp1.next = self.sptr.q.val() + self.c1_4.val();
        if self.sptr.q.val() == self.last4.val() {
            self.sp1.next = self.c0_4.val();
        }
        self.ap1.next = self.aptr.q.val() + self.c1_4.val();
        if self.aptr.q.val() == self.last4.val() {
            self.ap1.next = self.c0_4.val();
        }
        self.o_s.raddr.next = self.sptr.q.val() + self.c1_4.val();
        if self.sptr.q.val() == self.last4.val() {
            self.o_s.raddr.next = self.c0_4.val();
        }
        self.o_a.raddr.next = self.aptr.q.val() + self.c1_4.val();
        if self.aptr.q.val() == self.last4.val() {
            self.o_a.raddr.next = self.c0_4.val();
        }
        self.m_skind.we.next = self.ew.val();
        self.m_tga.we.next = self.ew.val();
        self.m_line.we.next = self.ew.val();
        self.m_line_a.we.next = self.ew.val();
        self.m_sbeats.we.next = self.ew.val();
        self.m_akind.we.next = self.ew.val();
        self.m_abeats.we.next = self.ew.val();
        self.m_warp.we.next = self.ew.val();
        self.m_skind.waddr.next = self.widx.q.val();
        self.m_tga.waddr.next = self.widx.q.val();
        self.m_line.waddr.next = self.widx.q.val();
        self.m_line_a.waddr.next = self.widx.q.val();
        self.m_sbeats.waddr.next = self.widx.q.val();
        self.m_akind.waddr.next = self.widx.q.val();
        self.m_abeats.waddr.next = self.widx.q.val();
        self.m_warp.waddr.next = self.widx.q.val();
        self.m_skind.wdata.next = self.ew_kind.val();
        self.m_tga.wdata.next = self.ew_tga.val();
        self.m_line.wdata.next = self.ew_line.val();
        self.m_line_a.wdata.next = self.ew_line.val();
        self.m_sbeats.wdata.next = self.ew_beats.val();
        self.m_akind.wdata.next = self.ew_kind.val();
        self.m_abeats.wdata.next = self.ew_beats.val();
        self.m_warp.wdata.next = self.ew_warp.val();
        self.m_skind.raddr.next = self.sidx_r.q.val();
        self.m_tga.raddr.next = self.sidx_r.q.val();
        self.m_line.raddr.next = self.sidx_r.q.val();
        self.m_line_a.raddr.next = self.aidx_r.q.val();
        self.m_sbeats.raddr.next = self.sidx_r.q.val();
        self.m_akind.raddr.next = self.aidx_r.q.val();
        self.m_abeats.raddr.next = self.aidx_r.q.val();
        self.m_warp.raddr.next = self.aidx_r.q.val();
        for l in 0..self._l {
            self.ge[l].clock.next = self.clock.val();
            self.ge[l].we.next = self.ew.val();
            self.ge[l].waddr.next = self.widx.q.val();
            self.ge[l].wdata.next = self.ew_data[l].val();
            self.ge[l].wbe.next = self.w_own[l].val();
            self.ge[l].wword.next = self.ew_word[l].val();
            self.ge[l].saddr.next = self.sidx_r.q.val();
            self.ge[l].aaddr.next = self.aidx_r.q.val();
            self.ge[l].taddr.next = self.rt_idx.val();
            self.rt_data[l].next = self.ge[l].tdata.val();
            self.s_word[l].next = self.ge[l].sword.val();
            self.s_be[l].next = self.ge[l].sbe.val();
            self.s_data[l].next = self.ge[l].sdata.val();
        }

        // ---- entry write: each lane keeps the bytes of its word that no
        // higher lane writes (`ew_word` is the word index in the line, and
        // `ew_be` is 0 for a lane not served) ----
        for n in self._l..self._lp1 {
            for l in 0..self._l {
                self.w_higher[l].next = self.c0_4.val();
                for h in 0..self._l {
                    if self.above[l * n + h].val()
                        & (self.ew_word[h].val() == self.ew_word[l].val())
                    {
                        self.w_higher[l].next = self.w_higher[l].val() | self.ew_be[h].val();
                    }
                }
                self.w_own[l].next = self.ew_be[l].val() & !self.w_higher[l].val();
            }
        }

        // ---- send: the next beat of entry `sidx` (the oldest written
        // entry with beats to send) ----
        self.s_avail.next = self.nsend.q.val().any();
        self.s_cur.next = self.m_sbeats.rdata.val();
        if self.sold.q.val() {
            self.s_cur.next = self.srem.q.val();
        }
        self.s_cur.next = self.s_cur.val() & self.nbmask.val();
        self.s_oh.next = self.s_cur.val() & (!self.s_cur.val() + self.c1_32.val());
        self.s_k.next = self.c0_32.val();
        for b in 0..5 {
            if (self.s_oh.val() & self.kmask[b].val()).any() {
                self.s_k.next = self.s_k.val() | self.kpow[b].val();
            }
        }
        self.s_left.next = self.s_cur.val() & !self.s_oh.val();
        self.s_last.next = !self.s_left.val().any();
        self.s_ld.next = !self.r_stb.q.val() | !self.stall_i.val();
        self.s_go.next = self.s_ld.val() & self.s_avail.val();
        self.s_read.next = self.m_skind.rdata.val() == self.k_read.val();
        // Lanes whose word lies in beat `s_k`: a one-hot AND of the beat
        // with each lane's decoded beat (from the entry, early), not an
        // encode of `s_oh` and a compare after it.
        self.s_ohz.next = self.s_oh.val();
        if !self.s_cur.val().any() {
            self.s_ohz.next = self.c1_32.val();
        }
        for l in 0..self._l {
            self.s_boh[l].next = self.c1_32.val() << (self.s_word[l].val() >> self.lgwpb.val());
            self.s_hi[l].next = (self.s_boh[l].val() & self.s_ohz.val()).any();
        }
        // Per word of the bus word: each byte from the lane that owns it
        // (the entry write left each byte to its highest lane, so the
        // claims of different lanes in one slot are disjoint).
        for n in self._l..self._lp1 {
            for s in 0..self._wpb {
                self.taken.next = self.c0_4.val();
                self.n_dat[s].next = self.c0_32.val();
                for l in 0..self._l {
                    self.claim[s * n + l].next = self.c0_4.val();
                    if self.s_hi[l].val()
                        & ((self.s_word[l].val() & self.wpbm.val()) == self.slotc[s].val())
                    {
                        self.claim[s * n + l].next = self.s_be[l].val();
                    }
                    self.taken.next = self.taken.val() | self.claim[s * n + l].val();
                    self.bm.next = self.c0_32.val();
                    for j in 0..4 {
                        if (self.claim[s * n + l].val() & self.bit4[j].val()).any() {
                            self.bm.next = self.bm.val() | self.byte32[j].val();
                        }
                    }
                    self.n_dat[s].next =
                        self.n_dat[s].val() | (self.s_data[l].val() & self.bm.val());
                }
                self.n_sel[s].next = self.taken.val();
            }
        }
        for s in 0..self._wpb {
            if self.s_read.val() {
                self.n_sel[s].next = self.f4.val();
                self.n_dat[s].next = self.c0_32.val();
            }
        }
        // Output registers: loaded when `stb_o` is 0 or the slave does not
        // stall, hold otherwise.
        self.r_stb.d.next = self.r_stb.q.val();
        self.r_we.d.next = self.r_we.q.val();
        self.r_adr.d.next = self.r_adr.q.val();
        self.r_tga.d.next = self.r_tga.q.val();
        for s in 0..self._wpb {
            self.r_sel[s].d.next = self.r_sel[s].q.val();
            self.r_dat[s].d.next = self.r_dat[s].q.val();
        }
        if self.s_ld.val() {
            self.r_stb.d.next = self.s_avail.val();
        }
        // With no beat on the bus the outputs are 0, as the cycle model
        // drives them (`Signals::idle`), not the last beat's values.
        if self.s_ld.val() & !self.s_avail.val() {
            self.r_we.d.next = false;
            self.r_adr.d.next = self.c0_32.val();
            self.r_tga.d.next = self.c0_4.val();
            for s in 0..self._wpb {
                self.r_sel[s].d.next = self.c0_4.val();
                self.r_dat[s].d.next = self.c0_32.val();
            }
        }
        if self.s_go.val() {
            self.r_we.d.next = !self.s_read.val();
            self.r_adr.d.next = (self.m_line.rdata.val() << self.lgnb.val()) | self.s_k.val();
            self.r_tga.d.next = self.c0_4.val();
            if self.m_skind.rdata.val() == self.k_atom.val() {
                self.r_tga.d.next = self.m_tga.rdata.val();
            }
            for s in 0..self._wpb {
                self.r_sel[s].d.next = self.n_sel[s].val();
                self.r_dat[s].d.next = self.n_dat[s].val();
            }
        }
        // Sequencer state.
        self.sptr.d.next = self.sptr.q.val();
        self.srem.d.next = self.srem.q.val();
        self.sold.d.next = self.sold.q.val();
        if self.s_go.val() {
            if self.s_last.val() {
                self.sold.d.next = false;
                self.sptr.d.next = self.sp1.val();
            } else {
                self.sold.d.next = true;
                self.srem.d.next = self.s_left.val();
            }
        }
        self.wptr.d.next = self.wptr.q.val();
        if self.ew.val() {
            if self.wptr.q.val() == self.last4.val() {
                self.wptr.d.next = self.c0_4.val();
            } else {
                self.wptr.d.next = self.wptr.q.val() + self.c1_4.val();
            }
        }
        self.sidx_r.d.next = self.sidx_r.q.val();
        if self.ew.val() & (self.wptr.q.val() == self.sptr.q.val()) {
            self.sidx_r.d.next = self.widx.q.val();
        }
        if self.s_go.val() & self.s_last.val() {
            self.sidx_r.d.next = self.o_s.rdata.val();
            if self.ew.val() & (self.wptr.q.val() == self.sp1.val()) {
                self.sidx_r.d.next = self.widx.q.val();
            }
        }
        self.nsend.d.next = self.nsend.q.val();
        if self.ew.val() & !(self.s_go.val() & self.s_last.val()) {
            self.nsend.d.next = self.nsend.q.val() + self.c1_5.val();
        }
        if !self.ew.val() & self.s_go.val() & self.s_last.val() {
            self.nsend.d.next = self.nsend.q.val() - self.c1_5.val();
        }

        // ---- responses: registered, processed one cycle later ----
        self.r_ack.d.next = self.ack_i.val();
        self.r_err.d.next = self.err_i.val();
        for s in 0..self._wpb {
            self.r_din[s].d.next = self.dat_i[s].val();
        }
        self.p.next = self.r_ack.q.val() | self.r_err.q.val();
        self.a_cur.next = self.m_abeats.rdata.val();
        if self.aold.q.val() {
            self.a_cur.next = self.arem.q.val();
        }
        self.a_cur.next = self.a_cur.val() & self.nbmask.val();
        self.a_oh.next = self.a_cur.val() & (!self.a_cur.val() + self.c1_32.val());
        self.a_k.next = self.c0_32.val();
        for b in 0..5 {
            if (self.a_oh.val() & self.kmask[b].val()).any() {
                self.a_k.next = self.a_k.val() | self.kpow[b].val();
            }
        }
        self.a_left.next = self.a_cur.val() & !self.a_oh.val();
        self.a_last.next = self.p.val() & !self.a_left.val().any();
        self.a_ret.next = self.m_akind.rdata.val() != self.k_write.val();
        self.a_bad.next = self.aerr.q.val() | self.r_err.q.val();
        // The processed beat's byte address (`ℓ·G + k·Wb`: its bus word
        // address times `Wb`, as it was sent).
        self.a_adr.next =
            ((self.m_line_a.rdata.val() << self.lgnb.val()) | self.a_k.val()) << self.lgwb.val();
        // Load data: each lane whose word lies in the beat takes its word.
        for l in 0..self._l {
            self.cap.next = self.c0_32.val();
            for s in 0..self._wpb {
                if (self.ge[l].aword.val() & self.wpbm.val()) == self.slotc[s].val() {
                    self.cap.next = self.cap.val() | self.r_din[s].q.val();
                }
            }
            self.ge[l].lwdata.next = self.cap.val();
            self.ge[l].lwe.next = self.p.val()
                & self.a_ret.val()
                & !self.r_err.q.val()
                & ((self.ge[l].aword.val() >> self.lgwpb.val()) == self.a_k.val());
        }
        self.aptr.d.next = self.aptr.q.val();
        self.arem.d.next = self.arem.q.val();
        self.aold.d.next = self.aold.q.val();
        self.aerr.d.next = self.aerr.q.val();
        // The first `ERR` beat's address is kept until the entry completes.
        self.aerr_adr.d.next = self.aerr_adr.q.val();
        if self.p.val() & self.r_err.q.val() & !self.aerr.q.val() {
            self.aerr_adr.d.next = self.a_adr.val();
        }
        if self.p.val() {
            if self.a_last.val() {
                self.aold.d.next = false;
                self.aerr.d.next = false;
                self.aptr.d.next = self.ap1.val();
            } else {
                self.aold.d.next = true;
                self.arem.d.next = self.a_left.val();
                self.aerr.d.next = self.a_bad.val();
            }
        }
        self.rsp.next = self.p.val();
        self.wdone.next = self.a_last.val() & !self.a_ret.val();
        self.done_warp.next = self.m_warp.rdata.val();
        self.done_idx.next = self.aidx_r.q.val();
        self.ew_idx.next = self.widx.q.val();
        self.trap.next = self.a_last.val() & self.a_bad.val();
        self.trap_addr.next = self.a_adr.val();
        if self.aerr.q.val() {
            self.trap_addr.next = self.aerr_adr.q.val();
        }
        self.aidx_r.d.next = self.aidx_r.q.val();
        if self.ew.val() & (self.wptr.q.val() == self.aptr.q.val()) {
            self.aidx_r.d.next = self.widx.q.val();
        }
        if self.a_last.val() {
            self.aidx_r.d.next = self.o_a.rdata.val();
            if self.ew.val() & (self.wptr.q.val() == self.ap1.val()) {
                self.aidx_r.d.next = self.widx.q.val();
            }
        }
        // Returnable queue (entry indices in completion order).
        self.push.next = self.a_last.val() & self.a_ret.val();
        self.q_idx.we.next = self.push.val();
        self.q_err.we.next = self.push.val();
        self.q_idx.waddr.next = self.qt.q.val();
        self.q_err.waddr.next = self.qt.q.val();
        self.q_idx.wdata.next = self.aidx_r.q.val();
        self.q_err.wdata.next = self.c0_4.val();
        if self.a_bad.val() {
            self.q_err.wdata.next = self.c1_4.val();
        }
        self.q_idx.raddr.next = self.qh.q.val();
        self.q_err.raddr.next = self.qh.q.val();
        self.ret_valid.next = self.qn.q.val().any();
        self.ret_idx.next = self.q_idx.rdata.val();
        self.ret_err.next = self.q_err.rdata.val().any();
        self.qt.d.next = self.qt.q.val();
        if self.push.val() {
            if self.qt.q.val() == self.last4.val() {
                self.qt.d.next = self.c0_4.val();
            } else {
                self.qt.d.next = self.qt.q.val() + self.c1_4.val();
            }
        }
        self.qh.d.next = self.qh.q.val();
        if self.ret_take.val() {
            if self.qh.q.val() == self.last4.val() {
                self.qh.d.next = self.c0_4.val();
            } else {
                self.qh.d.next = self.qh.q.val() + self.c1_4.val();
            }
        }
        self.qn.d.next = self.qn.q.val();
        if self.push.val() & !self.ret_take.val() {
            self.qn.d.next = self.qn.q.val() + self.c1_5.val();
        }
        if !self.push.val() & self.ret_take.val() {
            self.qn.d.next = self.qn.q.val() - self.c1_5.val();
        }

        // ---- ring: reservation and freeing ----
        // The first free entry in ring order from `alloc` (one past the
        // last reserved): free entries at or above `alloc`, else any.
        self.fr.next = !self.busy.q.val() & self.nmask.val();
        self.rsv_ok.next = self.fr.val().any();
        self.cand.next = self.fr.val() & (self.ones16.val() << self.alloc.q.val());
        if !self.cand.val().any() {
            self.cand.next = self.fr.val();
        }
        self.pick.next = self.cand.val() & (!self.cand.val() + self.c1_16.val());
        self.nidx.next = self.c0_4.val();
        for b in 0..4 {
            if (self.pick.val() & self.kmask16[b].val()).any() {
                self.nidx.next = self.nidx.val() | self.kpow4[b].val();
            }
        }
        self.alloc.d.next = self.alloc.q.val();
        self.widx.d.next = self.widx.q.val();
        self.set_m.next = self.c0_16.val();
        if self.rsv.val() {
            self.set_m.next = self.pick.val();
            self.widx.d.next = self.nidx.val();
            if self.nidx.val() == self.last4.val() {
                self.alloc.d.next = self.c0_4.val();
            } else {
                self.alloc.d.next = self.nidx.val() + self.c1_4.val();
            }
        }
        self.clr_m.next = self.c0_16.val();
        if self.a_last.val() & !self.a_ret.val() {
            self.clr_m.next = self.c1_16.val() << self.aidx_r.q.val();
        }
        if self.free.val() {
            self.clr_m.next = self.clr_m.val() | (self.c1_16.val() << self.free_idx.val());
        }
        self.busy_kept.next = self.busy.q.val() & !self.clr_m.val() & self.nmask.val();
        self.busy_n.next = (self.busy_kept.val() | self.set_m.val()) & self.nmask.val();
        self.busy.d.next = self.busy_n.val();
        // Free-entry counts (a chain of `N` increments: `N` ≤ 16). The count
        // after this cycle is taken before the reservation, which then only
        // selects it or one less (it takes one free entry, `pick`), so the
        // chain is not on the reservation's path.
        self.n_free.next = self.c0_5.val();
        self.n_free_kept.next = self.c0_5.val();
        for i in 0..self._n {
            if !self.busy.q.val().get_bit(i) {
                self.n_free.next = self.n_free.val() + self.c1_5.val();
            }
            if !self.busy_kept.val().get_bit(i) {
                self.n_free_kept.next = self.n_free_kept.val() + self.c1_5.val();
            }
        }
        self.n_free_next.next = self.n_free_kept.val();
        if self.rsv.val() & self.pick.val().any() {
            self.n_free_next.next = self.n_free_kept.val() - self.c1_5.val();
        }
        self.idle.next = !self.busy.q.val().any();
        // `DBG_QUEUE`: an entry awaits send from its reservation until its
        // last beat is loaded into the output register; it awaits a
        // response while in use and not returnable; it is returnable from
        // its completion (read, atomic) until its return slot frees it.
        self.n_send.d.next = self.n_send.q.val();
        if self.rsv.val() & !(self.s_go.val() & self.s_last.val()) {
            self.n_send.d.next = self.n_send.q.val() + self.c1_5.val();
        }
        if !self.rsv.val() & self.s_go.val() & self.s_last.val() {
            self.n_send.d.next = self.n_send.q.val() - self.c1_5.val();
        }
        self.n_ret.d.next = self.n_ret.q.val();
        if self.push.val() & !self.free.val() {
            self.n_ret.d.next = self.n_ret.q.val() + self.c1_5.val();
        }
        if !self.push.val() & self.free.val() {
            self.n_ret.d.next = self.n_ret.q.val() - self.c1_5.val();
        }
        self.q_send.next = self.n_send.q.val();
        self.q_ret.next = self.n_ret.q.val();
        self.q_resp.next = self.n5.val() - self.n_free.val() - self.n_ret.q.val();

        // ---- CYC: a beat presented or accepted and not yet processed ----
        self.acc.next = self.r_stb.q.val() & !self.stall_i.val();
        self.infl.next = self.inflight.q.val();
        if self.acc.val() & !self.p.val() {
            self.infl.next = self.inflight.q.val() + self.c1_10.val();
        }
        if !self.acc.val() & self.p.val() {
            self.infl.next = self.inflight.q.val() - self.c1_10.val();
        }
        self.inflight.d.next = self.infl.val();
        self.r_cyc.d.next = self.r_stb.d.val() | (self.infl.val() != self.c0_10.val());

        // ---- bus outputs ----
        self.cyc_o.next = self.r_cyc.q.val();
        self.stb_o.next = self.r_stb.q.val();
        self.we_o.next = self.r_we.q.val();
        self.adr_o.next = self.r_adr.q.val();
        self.tga_o.next = self.r_tga.q.val();
        for s in 0..self._wpb {
            self.sel_o[s].next = self.r_sel[s].q.val();
            self.dat_o[s].next = self.r_dat[s].q.val();
        }
    }
}

/// Verilog of the global unit's bus side alone, top module
/// `concord_gmaster`, sub-modules `concord_gmaster__<path>` (no `$`).
pub fn verilog(c: &GmConfig) -> String {
    let mut m = GMaster::new(c);
    m.connect_all();
    let raw = generate_verilog(&m);
    let mut out = String::from(
        "// Concord Core v2 global unit, bus side (Wishbone B4 pipelined master), generated by concord-hdl.\n\
         // One file holds every module, so only the top module can match the file name.\n\
         /* verilator lint_off DECLFILENAME */\n",
    );
    out.push_str(&crate::wishbone::rename_modules(&raw, "concord_gmaster"));
    out
}
