//! The global unit (docs/microarchitecture.md §10.2): `N` entries
//! allocated in a ring, reserved at A, written at M, sent in order as
//! Wishbone beats, completed by their responses, returned through return
//! slots.

use concord_isa::func::{Trap, TrapCause};
use concord_isa::instr::{AtomOp, LoadWidth, StoreWidth};
use concord_isa::semantics;
use concord_uarch::wishbone::{
    beat_of, beats_mask, BusData, BusGeometry, EntryKind, LaneAccess, Signals,
};
use concord_uarch::HwParams;

use super::item::{Item, RegWrite};
use super::{lanes_of, Counter, Pipeline};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Read(LoadWidth),
    Write,
    Atomic,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    /// Reservation order.
    seq: u64,
    kind: Kind,
    warp: usize,
    /// The instruction's pc (the report of a bus error, trap 11).
    pc: u32,
    /// Register-file row of `rd` (reads, atomics).
    rd_row: usize,
    /// Served lanes and their byte addresses.
    lanes: u32,
    addrs: [u32; 32],
    /// The beats to send, in ascending beat order: the master's outputs
    /// (`cyc`, `stb`, `we`, `adr`, `sel`, `dat_w`, `tga`) while each is on
    /// the bus.
    beats: Vec<Signals>,
    /// Written at the end of M in this cycle.
    written_at: Option<u64>,
    /// Beats loaded into the master's output register, beats answered.
    loaded: usize,
    acked: usize,
    /// Per lane the word its address lies in (reads, atomics).
    data: [u32; 32],
    returnable: bool,
    returning: bool,
    /// A beat was answered with `ERR`: the byte address of the first such
    /// beat. The entry completes without data, raises trap 11 with this
    /// address when it completes, and its return slot writes no register
    /// (§10.2, §13.1).
    failed: Option<u32>,
}

/// The entries and the master's registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GlobalUnit {
    entries: Vec<Option<Entry>>,
    next: usize,
    seq: u64,
    wb: u32,
    line_shift: u32,
    /// The beat on the bus (`STB`): entry and beat index.
    out: Option<(usize, usize)>,
    /// The response registered at the end of the previous cycle, and
    /// whether it was an `ERR`.
    response: Option<(BusData, bool)>,
    /// Beats accepted by the memory, responses processed.
    accepted: u64,
    processed: u64,
}

impl GlobalUnit {
    pub fn new(hw: &HwParams) -> GlobalUnit {
        GlobalUnit {
            entries: vec![None; hw.global_outstanding],
            next: 0,
            seq: 0,
            wb: hw.global_bus_bytes,
            line_shift: hw.global_line_shift,
            out: None,
            response: None,
            accepted: 0,
            processed: 0,
        }
    }

    /// The unit as the watchdog's repeat test compares it at cycle `now`
    /// (§13.4): reservation numbers become ranks among the entries in use,
    /// the cycle an entry was written becomes its distance to `now`, and
    /// of the beat counts only the beats awaiting a response are kept.
    pub fn normalised(&self, now: u64) -> GlobalUnit {
        let mut unit = self.clone();
        let seqs: Vec<u64> = self.entries.iter().flatten().map(|e| e.seq).collect();
        for e in unit.entries.iter_mut().flatten() {
            e.seq = seqs.iter().filter(|&&s| s < e.seq).count() as u64;
            e.written_at = e.written_at.map(|t| now - t);
        }
        unit.seq = 0;
        (unit.accepted, unit.processed) = (self.accepted - self.processed, 0);
        unit
    }

    /// The beat on the bus in this cycle (the master's output register).
    pub fn beat_on_bus(&self) -> Option<Signals> {
        let (id, k) = self.out?;
        Some(self.entries[id].as_ref()?.beats[k])
    }

    pub fn free_entries(&self) -> usize {
        self.entries.iter().filter(|e| e.is_none()).count()
    }

    /// `DBG_QUEUE` (§14.4): free entries, entries with beats awaiting
    /// send, entries awaiting a response, returnable entries.
    pub fn queue_counts(&self) -> [u32; 4] {
        let used = self.entries.iter().flatten();
        let count = |f: &dyn Fn(&Entry) -> bool| used.clone().filter(|e| f(e)).count() as u32;
        [
            self.free_entries() as u32,
            count(&|e| e.loaded < e.beats.len()),
            count(&|e| e.acked < e.beats.len()),
            count(&|e| e.returnable),
        ]
    }

    /// No entry in use.
    pub fn idle(&self) -> bool {
        self.entries.iter().all(|e| e.is_none())
    }

    /// The oldest returnable entry without a return slot (§6.1, priority 1).
    pub fn take_return(&mut self) -> Option<(usize, usize)> {
        let id = self
            .entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.as_ref().map(|e| (i, e)))
            .filter(|(_, e)| e.returnable && !e.returning)
            .min_by_key(|(_, e)| e.seq)
            .map(|(i, _)| i)?;
        let e = self.entries[id].as_mut().expect("in use");
        e.returning = true;
        Some((e.warp, id))
    }

    fn oldest(&self, pred: impl Fn(&Entry) -> bool) -> Option<usize> {
        self.entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.as_ref().map(|e| (i, e)))
            .filter(|(_, e)| pred(e))
            .min_by_key(|(_, e)| e.seq)
            .map(|(i, _)| i)
    }

    /// Reserves the next free entry of the ring (the caller checked that
    /// one is free at the start of the cycle).
    #[allow(clippy::too_many_arguments)]
    pub fn reserve(
        &mut self,
        kind: Kind,
        warp: usize,
        pc: u32,
        rd_row: usize,
        lanes: u32,
        addrs: &[u32; 32],
        data: &[u32; 32],
        store: Option<StoreWidth>,
        atom: Option<AtomOp>,
    ) -> usize {
        let n = self.entries.len();
        let id = (0..n)
            .map(|i| (self.next + i) % n)
            .find(|&i| self.entries[i].is_none())
            .expect("a free entry");
        self.next = (id + 1) % n;
        let beats = self.beats(lanes, addrs, data, store, atom, kind);
        self.entries[id] = Some(Entry {
            seq: self.seq,
            kind,
            warp,
            pc,
            rd_row,
            lanes,
            addrs: *addrs,
            beats,
            written_at: None,
            loaded: 0,
            acked: 0,
            data: [0; 32],
            returnable: false,
            returning: false,
            failed: None,
        });
        self.seq += 1;
        id
    }

    /// The beats of an entry (§10.2 "Send"): the beats of the line that
    /// hold a served byte, ascending, with the contents of
    /// `concord_uarch::wishbone::beat_of` (the table the RTL is tested
    /// against).
    fn beats(
        &self,
        lanes: u32,
        addrs: &[u32; 32],
        data: &[u32; 32],
        store: Option<StoreWidth>,
        atom: Option<AtomOp>,
        kind: Kind,
    ) -> Vec<Signals> {
        let geom = BusGeometry::new(1 << self.line_shift, self.wb);
        let line = addrs[lanes.trailing_zeros() as usize] >> self.line_shift;
        let accesses: Vec<LaneAccess> = lanes_of(lanes)
            .map(|l| match kind {
                Kind::Read(width) => LaneAccess::load(&geom, addrs[l], width),
                Kind::Write => {
                    LaneAccess::store(&geom, addrs[l], store.unwrap_or(StoreWidth::B32), data[l])
                }
                Kind::Atomic => LaneAccess::atomic(&geom, addrs[l], data[l]),
            })
            .collect();
        let entry = match kind {
            Kind::Read(_) => EntryKind::Read,
            Kind::Write => EntryKind::Write,
            Kind::Atomic => EntryKind::Atomic(atom.expect("an atomic entry has its operation")),
        };
        let mask = beats_mask(&geom, &accesses);
        (0..geom.beats())
            .filter(|k| mask >> k & 1 == 1)
            .map(|k| {
                let beat = beat_of(&geom, entry, line, &accesses, k);
                Signals {
                    cyc: true,
                    stb: true,
                    adr: beat.adr,
                    we: beat.we,
                    sel: beat.sel,
                    dat_w: beat.dat,
                    tga: beat.tga,
                    ..Signals::idle()
                }
            })
            .collect()
    }
}

impl Pipeline {
    /// Stage M of a global pass: its entry is written.
    pub(crate) fn entry_written(&mut self, id: usize, now: u64) {
        if let Some(e) = self.global.entries[id].as_mut() {
            e.written_at = Some(now);
        }
    }

    /// A return slot at A: the warp's outstanding count, the entry freed,
    /// `busy_r` cleared; the register write it carries to W.
    pub(crate) fn return_a(&mut self, warp: usize, id: usize) -> Option<RegWrite> {
        let e = self.global.entries[id].take().expect("a returning entry");
        // A return slot of the same warp selected at S in this cycle is in
        // S..A from the next cycle on: `busy_r` stays set (§5.1; S's set
        // is applied after A's clear, as in the RTL's warp state).
        let another = matches!(self.stages[0], Item::Return { warp: w, .. } if w == warp);
        let w = &mut self.warps[warp];
        w.outstanding -= 1;
        w.busy_r = another;
        if e.failed.is_some() {
            return None;
        }
        let mut values = [0u32; 32];
        for l in lanes_of(e.lanes) {
            values[l] = match e.kind {
                Kind::Read(width) => {
                    let raw = e.data[l] >> (8 * (e.addrs[l] & 3));
                    let raw = match width.bytes() {
                        1 => raw & 0xff,
                        2 => raw & 0xffff,
                        _ => raw,
                    };
                    semantics::load_extend(width, raw)
                }
                _ => e.data[l],
            };
        }
        Some(RegWrite {
            row: e.rd_row,
            lanes: e.lanes,
            values,
        })
    }

    /// The global unit's cycle: the registered response, the memory, the
    /// master's output register.
    pub(crate) fn global_cycle(&mut self, now: u64) {
        let wb = self.global.wb as u64;
        // `gm_cyc_o` (§14.5): a beat on the bus or one accepted and not yet
        // processed (registered: it stays 1 in the cycle that processes the
        // last response).
        let cyc = self.global.out.is_some() || self.global.accepted > self.global.processed;
        // The response registered at the end of the previous cycle.
        if let Some((data, err)) = self.global.response.take() {
            let id = self
                .global
                .oldest(|e| e.acked < e.loaded)
                .expect("a response belongs to a sent beat");
            (self.tr.rsp, self.tr.rsp_entry) = (1, id as u32);
            let e = self.global.entries[id].as_mut().expect("in use");
            let beat_base = e.beats[e.acked].adr as u64 * wb;
            // An `ERR` beat is answered like an `ACK` (the bus drains and
            // the entry is freed as usual) but delivers no data; the entry
            // raises trap 11 for its block when it completes, with its
            // first `ERR` beat's address (§10.2, §13.1, §13.2).
            if err && e.failed.is_none() {
                e.failed = Some(beat_base as u32);
            }
            if !err && !matches!(e.kind, Kind::Write) {
                for l in lanes_of(e.lanes) {
                    let word = (e.addrs[l] & !3) as u64;
                    if word >= beat_base && word < beat_base + wb {
                        let o = (word - beat_base) as usize;
                        e.data[l] = data[o / 4];
                    }
                }
            }
            e.acked += 1;
            self.global.processed += 1;
            if e.acked == e.beats.len() {
                if let Some(addr) = e.failed {
                    let (warp, pc, lanes) = (e.warp, e.pc, e.lanes);
                    self.raise_bus_error(warp, pc, lanes, addr);
                }
                let e = self.global.entries[id].as_mut().expect("in use");
                match e.kind {
                    Kind::Write => {
                        let warp = e.warp;
                        self.global.entries[id] = None;
                        self.warps[warp].outstanding -= 1;
                    }
                    _ => e.returnable = true,
                }
            }
        }
        // The memory sees the master's outputs of this cycle.
        let master = match self.global.out {
            Some((id, k)) => self.global.entries[id].as_ref().expect("in use").beats[k],
            None => Signals {
                cyc,
                ..Signals::idle()
            },
        };
        let port = self.memory.cycle(&Signals { cyc, ..master });
        if port.stb && port.stall {
            self.counters.inc(Counter::GlobalStallCycles);
        }
        self.gm_port = port;
        if let Some(checker) = self.bus_checker.as_mut() {
            for v in checker.step(&port) {
                self.bus_violations.push(format!("global-memory port: {v}"));
            }
        }
        if port.accepted() {
            self.global.out = None;
            self.global.accepted += 1;
            self.counters.inc(Counter::GlobalBeats);
        }
        let response = (port.ack || port.err).then_some((port.dat_r, port.err));
        self.global.response = response;
        // The output register takes the next available beat.
        if self.global.out.is_none() {
            if let Some(id) = self
                .global
                .oldest(|e| e.loaded < e.beats.len() && e.written_at.is_some_and(|t| t < now))
            {
                let e = self.global.entries[id].as_mut().expect("in use");
                self.global.out = Some((id, e.loaded));
                e.loaded += 1;
            }
        }
    }
}

impl Pipeline {
    /// Trap 11 for the entry of warp `warp` that completes with its first
    /// `ERR` beat at byte address `addr` (§13.1): the entry's served lanes and
    /// its instruction's pc, in the warp's block (§13.2 decides whether it
    /// is the reported trap).
    fn raise_bus_error(&mut self, warp: usize, pc: u32, lanes: u32, addr: u32) {
        let state = &self.warps[warp];
        let slot = state.wslot.expect("an entry's warp belongs to a block");
        let trap = Trap {
            cause: TrapCause::BusError { addr },
            block: self.slots[slot].ctaid,
            warp: state.wib,
            lanes,
            pc,
            issued: self.issued_instructions,
        };
        self.raise(slot, trap);
    }
}
