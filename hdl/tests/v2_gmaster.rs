//! The v2 global unit's bus side (`concord_hdl::v2::gmaster`) in rust-hdl's
//! simulator, against docs/microarchitecture-v2.md §10.2–§10.4 and §14.5:
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

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        (self.next() >> 11) % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

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

struct Dut {
    m: GMaster,
    c: GmConfig,
}

impl Dut {
    fn new(c: &GmConfig) -> Dut {
        let mut m = GMaster::new(c);
        m.connect_all();
        let mut d = Dut { m, c: *c };
        d.m.reset.next = true;
        d.edge();
        d.edge();
        d.m.reset.next = false;
        d.settle();
        d
    }

    fn settle(&mut self) {
        for _ in 0..500 {
            self.m.update_all();
            if !self.m.has_changed() {
                return;
            }
        }
        panic!("the global unit does not settle");
    }

    fn edge(&mut self) {
        self.m.clock.next = Clock { clk: false };
        self.settle();
        self.m.clock.next = Clock { clk: true };
        self.settle();
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
            for l in 0..self.c.lanes {
                m.ew_data[l].next = (lanes[l].data as u64).into();
                m.ew_be[l].next = (lanes[l].be as u64).into();
                m.ew_word[l].next = (lanes[l].word as u64).into();
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
}

struct Run {
    c: GmConfig,
    slave: Slave,
    /// Percent chance of reserving when possible, of taking a return.
    rsv_rate: u64,
    ret_rate: u64,
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
        let mut alloc = 0u32; // the test's own ring counter
        let mut idx_of = vec![0u32; entries.len()];
        let mut to_return: VecDeque<usize> = entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.kind.returns())
            .map(|(i, _)| i)
            .collect();
        let writes = entries.iter().filter(|e| !e.kind.returns()).count();
        // (cycle, entry) of return slots: read at +3, free at +5.
        let mut slots: Vec<(u64, usize)> = Vec::new();
        let mut c = 0u64;
        while seen.returns.len() + seen.wdone.len() < entries.len()
            || !slots.is_empty()
            || chk.outstanding() > 0
        {
            assert!(c < limit, "no progress after {c} cycles: {seen:?}");
            // Core side, from the registered outputs.
            let mut i = CoreIn::default();
            if let Some(e) = pending_write.take() {
                i.ew = Some(entry_inputs(&entries[e], &g));
            }
            if next < entries.len() && dut.m.rsv_ok.val() && rng.chance(self.rsv_rate) {
                i.rsv = true;
                idx_of[next] = alloc;
                alloc = (alloc + 1) % self.c.entries as u32;
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
                slots.push((c, e));
            }
            let mut read_now = None;
            for &(s, e) in &slots {
                if c == s + 3 {
                    i.rt_idx = idx_of[e];
                    read_now = Some((e, s));
                }
                if c == s + 5 {
                    i.free = Some(idx_of[e]);
                }
            }
            slots.retain(|&(s, _)| c < s + 5);
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
            if let Some((e, s)) = read_now {
                let data = dut
                    .m
                    .rt_data
                    .iter()
                    .map(|d| d.val().index() as u32)
                    .collect();
                // ret_err was sampled when the slot was taken (cycle s);
                // the flag travels with the slot.
                let err = seen_err(&seen, s);
                seen.returns.push((e, idx_of[e], err, data));
            }
            if dut.m.wdone.val() {
                seen.wdone.push(dut.m.done_warp.val().index() as u32);
            }
            if dut.m.trap.val() {
                seen.traps += 1;
            }
            // Remember ret_err at take time.
            if i.ret_take {
                ERRS.with(|v| v.borrow_mut().push((c, dut.m.ret_err.val())));
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

thread_local! {
    static ERRS: std::cell::RefCell<Vec<(u64, bool)>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn seen_err(_: &Seen, s: u64) -> bool {
    ERRS.with(|v| {
        v.borrow()
            .iter()
            .find(|(c, _)| *c == s)
            .map(|x| x.1)
            .unwrap()
    })
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

fn random_run(
    c: GmConfig,
    lat: u64,
    bw: u32,
    extra: u64,
    count: usize,
    seed: u64,
    err_at: Option<u64>,
) {
    ERRS.with(|v| v.borrow_mut().clear());
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
    eprintln!(
        "L={} N={} G={} Wb={}: {count} entries, {} beats, {} cycles",
        c.lanes,
        c.entries,
        g.line_bytes,
        g.bus_bytes,
        seen.beats.len(),
        seen.cycles
    );
}

#[test]
fn random_n1_nb8() {
    random_run(cfg(4, 1, 32, 4), 3, 0, 20, 40, 0x1234_5678, None);
}

#[test]
fn random_n4_nb1() {
    random_run(cfg(8, 4, 4, 4), 2, 2, 10, 80, 0x2222_3333, Some(20));
}

#[test]
fn random_n16_nb32() {
    random_run(cfg(4, 16, 128, 4), 5, 0, 15, 40, 0x9876_5432, Some(10));
}

#[test]
fn random_n8_wide_bus() {
    // G = Wb = 128 (NB = 1, 32 words per beat), and G = 32, Wb = 8.
    random_run(cfg(4, 8, 128, 128), 4, 64, 10, 30, 0x5555_1111, None);
    random_run(cfg(8, 8, 32, 8), 1, 0, 30, 60, 0x7777_2222, Some(5));
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
