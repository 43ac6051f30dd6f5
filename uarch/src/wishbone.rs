//! Wishbone B4 pipelined ports (docs/microarchitecture.md §14.1–§14.5)
//! and the protocol checker of §20.
//!
//! [`Signals`] is what one port shows during one cycle; a [`Checker`] is
//! fed one record per cycle, in order, and returns the rules the cycle
//! breaks ([`Violation`]: the cycle, the [`Rule`] and the port's signals).
//! The cycle model and the Verilator harness both run one checker per port:
//! [`Checker::host_slave`] on `wbs_*`, [`Checker::master`] on `gm_*`.
//!
//! The checker's model of the protocol: a request (beat) is **accepted** in
//! a cycle with `cyc ∧ stb ∧ ¬stall`; every accepted beat is answered by
//! exactly one cycle with `ack` or `err`, in order, in a later cycle. A
//! beat is **outstanding** from the end of the cycle that accepts it to the
//! end of the cycle that answers it.

use std::fmt;

use concord_isa::instr::{AtomOp, LoadWidth, StoreWidth};
use concord_isa::semantics;

/// Most 32-bit words of a bus word (`global_bus_bytes` ≤ 128).
pub const MAX_BUS_WORDS: usize = 32;

/// Width of `gm_tga_o` (§14.5).
pub const TAG_BITS: usize = 4;
/// `gm_tga_o` of a plain access.
pub const TAG_PLAIN: u8 = 0;

/// `gm_tga_o` of an atomic: `1 + op`, `op` the index of `AtomOp::ALL`
/// (add, exch, min, max, minu, maxu, and, or, xor), sent with `gm_we_o = 1`.
pub fn atomic_tag(op: AtomOp) -> u8 {
    1 + AtomOp::ALL.iter().position(|o| *o == op).unwrap() as u8
}

/// The atomic a tag asks for; `None` for a plain access (0) and for the
/// unused tags 10..=15.
pub fn tag_op(tag: u8) -> Option<AtomOp> {
    (tag as usize)
        .checked_sub(1)
        .and_then(|i| AtomOp::ALL.get(i))
        .copied()
}

/// One bus word: 32-bit words, word 0 holding bytes 0..3. The host port
/// uses word 0 only.
pub type BusData = [u32; MAX_BUS_WORDS];

/// The signals of a Wishbone B4 pipelined port during one cycle. The
/// master drives `cyc` … `tga`, the slave `dat_r`, `ack`, `err`, `stall`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Signals {
    pub cyc: bool,
    pub stb: bool,
    pub we: bool,
    /// Word address.
    pub adr: u32,
    /// Byte selects (the host port has none: 0).
    pub sel: u128,
    /// Write data (master to slave).
    pub dat_w: BusData,
    /// Address tag (`gm_tga_o`; 0 on the host port).
    pub tga: u8,
    /// Read data (slave to master).
    pub dat_r: BusData,
    pub ack: bool,
    pub err: bool,
    pub stall: bool,
}

impl Default for Signals {
    fn default() -> Self {
        Signals {
            cyc: false,
            stb: false,
            we: false,
            adr: 0,
            sel: 0,
            dat_w: [0; MAX_BUS_WORDS],
            tga: 0,
            dat_r: [0; MAX_BUS_WORDS],
            ack: false,
            err: false,
            stall: false,
        }
    }
}

impl Signals {
    /// All signals 0.
    pub fn idle() -> Signals {
        Signals::default()
    }

    /// The cycle accepts a request.
    pub fn accepted(&self) -> bool {
        self.cyc && self.stb && !self.stall
    }

    /// The slave answers a request in this cycle.
    pub fn response(&self) -> bool {
        self.ack || self.err
    }

    /// The request part: what must hold while the slave stalls it.
    fn request(&self) -> (bool, u32, u128, BusData, u8) {
        (self.we, self.adr, self.sel, self.dat_w, self.tga)
    }
}

impl fmt::Display for Signals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = |v: bool| v as u8;
        write!(
            f,
            "cyc={} stb={} we={} adr={:#x} sel={:#x} dat_w={:#010x} tga={} | ack={} err={} stall={} dat_r={:#010x}",
            b(self.cyc),
            b(self.stb),
            b(self.we),
            self.adr,
            self.sel,
            self.dat_w[0],
            self.tga,
            b(self.ack),
            b(self.err),
            b(self.stall),
            self.dat_r[0],
        )
    }
}

/// A protocol rule of §20 (and the host-slave rules of §14.3).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Rule {
    /// Master: `stb` without `cyc`.
    StbWithoutCyc,
    /// Master: address, write enable, data, selects or tag changed, or
    /// `stb` dropped, while the previous cycle's request was stalled (a
    /// dropped or altered request).
    StalledRequestChanged,
    /// Master: `cyc` dropped with beats unacknowledged.
    CycDropped,
    /// Master: more beats outstanding than the port allows (`N · NB`).
    TooManyOutstanding,
    /// Slave: `ack` or `err` without an outstanding request. On the host
    /// port: without a request in the previous cycle.
    ResponseWithoutRequest,
    /// Slave: `ack` and `err` in the same cycle.
    AckAndErr,
    /// Host slave: a request accepted in cycle `c − 1` without its `ack` in `c`.
    MissingAck,
    /// Host slave: `stall` is not 0.
    Stalled,
    /// Host slave: `dat_o` is not 0 in a cycle without `ack`, or in the
    /// `ack` cycle of a write.
    DataWithoutRead,
}

impl Rule {
    /// Whether the master (else the slave) broke the rule.
    pub fn by_master(self) -> bool {
        matches!(
            self,
            Rule::StbWithoutCyc
                | Rule::StalledRequestChanged
                | Rule::CycDropped
                | Rule::TooManyOutstanding
        )
    }

    pub fn describe(self) -> &'static str {
        match self {
            Rule::StbWithoutCyc => "STB without CYC",
            Rule::StalledRequestChanged => {
                "a stalled request was dropped or changed (address, data, select, tag or write enable)"
            }
            Rule::CycDropped => "CYC dropped with beats unacknowledged",
            Rule::TooManyOutstanding => "more beats outstanding than the port allows",
            Rule::ResponseWithoutRequest => "ACK or ERR without an outstanding request",
            Rule::AckAndErr => "ACK and ERR in the same cycle",
            Rule::MissingAck => "a host request without its ACK in the next cycle",
            Rule::Stalled => "the host slave stalled (STALL must be 0)",
            Rule::DataWithoutRead => "read data not 0 outside the ACK cycle of a read",
        }
    }
}

/// One broken rule: when, which, and what the port showed.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Violation {
    /// The port's name (`wbs`, `gm`).
    pub port: &'static str,
    pub cycle: u64,
    pub rule: Rule,
    /// The port during `cycle`.
    pub signals: Signals,
    /// The port during `cycle − 1` (none in the first cycle).
    pub previous: Option<Signals>,
    /// Beats outstanding at the start of `cycle`.
    pub outstanding: u32,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} port, cycle {}: {} ({} side); {} outstanding\n  cycle {}: {}",
            self.port,
            self.cycle,
            self.rule.describe(),
            if self.rule.by_master() {
                "master"
            } else {
                "slave"
            },
            self.outstanding,
            self.cycle,
            self.signals
        )?;
        if let Some(p) = &self.previous {
            write!(f, "\n  cycle {}: {}", self.cycle - 1, p)?;
        }
        Ok(())
    }
}

/// Which port a checker watches.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Profile {
    /// The core's host slave (§14.3): never stalls, answers every request
    /// exactly one cycle later, read data 0 except in the `ack` of a read.
    HostSlave,
    /// The core's global-memory master (§14.5) with at most this many beats
    /// outstanding (`N · NB`).
    Master { max_outstanding: u32 },
}

/// The protocol checker of one port: feed it one [`Signals`] per cycle.
#[derive(Clone, Debug)]
pub struct Checker {
    port: &'static str,
    profile: Profile,
    cycle: u64,
    /// Beats accepted and not answered, at the start of `cycle`.
    outstanding: u32,
    previous: Option<Signals>,
}

impl Checker {
    /// A checker of the host slave port, whose first record is cycle 0.
    pub fn host_slave(port: &'static str) -> Checker {
        Checker::new(port, Profile::HostSlave)
    }

    /// A checker of a master port allowing `max_outstanding` beats (`N · NB`).
    pub fn master(port: &'static str, max_outstanding: u32) -> Checker {
        Checker::new(port, Profile::Master { max_outstanding })
    }

    pub fn new(port: &'static str, profile: Profile) -> Checker {
        Checker {
            port,
            profile,
            cycle: 0,
            outstanding: 0,
            previous: None,
        }
    }

    /// Numbers the next record `cycle` (for a checker started after reset).
    pub fn starting_at(mut self, cycle: u64) -> Checker {
        self.cycle = cycle;
        self
    }

    /// The cycle the next record describes.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Beats accepted and not yet answered.
    pub fn outstanding(&self) -> u32 {
        self.outstanding
    }

    /// Checks the record of the next cycle; returns the rules it breaks (in
    /// the order of [`Rule`]), empty if none.
    pub fn step(&mut self, s: &Signals) -> Vec<Violation> {
        let mut rules = Vec::new();
        let out = self.outstanding;
        let prev = self.previous;
        // Master rules.
        if s.stb && !s.cyc {
            rules.push(Rule::StbWithoutCyc);
        }
        if let Some(p) = &prev {
            if p.cyc && p.stb && p.stall && !(s.cyc && s.stb && s.request() == p.request()) {
                rules.push(Rule::StalledRequestChanged);
            }
        }
        if !s.cyc && out > 0 {
            rules.push(Rule::CycDropped);
        }
        let answered = s.response() && out > 0;
        let after = out + s.accepted() as u32 - answered as u32;
        if let Profile::Master { max_outstanding } = self.profile {
            if s.accepted() && after > max_outstanding {
                rules.push(Rule::TooManyOutstanding);
            }
        }
        // Slave rules.
        if s.response() && out == 0 {
            rules.push(Rule::ResponseWithoutRequest);
        }
        if s.ack && s.err {
            rules.push(Rule::AckAndErr);
        }
        if self.profile == Profile::HostSlave {
            let requested = prev.is_some_and(|p| p.accepted());
            if requested && !s.ack {
                rules.push(Rule::MissingAck);
            }
            if s.stall {
                rules.push(Rule::Stalled);
            }
            let read_ack = requested && s.ack && !prev.is_some_and(|p| p.we);
            if !read_ack && s.dat_r[0] != 0 {
                rules.push(Rule::DataWithoutRead);
            }
        }
        let found = rules
            .into_iter()
            .map(|rule| Violation {
                port: self.port,
                cycle: self.cycle,
                rule,
                signals: *s,
                previous: prev,
                outstanding: out,
            })
            .collect();
        self.outstanding = match self.profile {
            // The host slave answers in the next cycle or never: a request
            // not answered then is reported (MissingAck) and forgotten.
            Profile::HostSlave => s.accepted() as u32,
            Profile::Master { .. } => after,
        };
        self.previous = Some(*s);
        self.cycle += 1;
        found
    }

    /// Feeds `records` from the checker's current cycle on; returns every
    /// violation.
    pub fn run<'a>(&mut self, records: impl IntoIterator<Item = &'a Signals>) -> Vec<Violation> {
        records.into_iter().flat_map(|s| self.step(s)).collect()
    }
}

// ---------------------------------------------------------------------------
// Master rules: the beats of a global entry (§10.2)

/// The geometry of the global port: line `G` and bus word `Wb` bytes
/// (`4 ≤ Wb ≤ G ≤ 128`, powers of two, as `HwParams::new` requires).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct BusGeometry {
    /// `G`: bytes per line.
    pub line_bytes: u32,
    /// `Wb`: bytes per bus word.
    pub bus_bytes: u32,
}

impl BusGeometry {
    pub fn new(line_bytes: u32, bus_bytes: u32) -> BusGeometry {
        assert!(
            line_bytes.is_power_of_two()
                && bus_bytes.is_power_of_two()
                && 4 <= bus_bytes
                && bus_bytes <= line_bytes
                && line_bytes <= 128,
            "global port geometry G = {line_bytes}, Wb = {bus_bytes}"
        );
        BusGeometry {
            line_bytes,
            bus_bytes,
        }
    }

    /// `NB = G / Wb`: beats per line.
    pub fn beats(&self) -> usize {
        (self.line_bytes / self.bus_bytes) as usize
    }

    /// 32-bit words per bus word (`Wb / 4`).
    pub fn beat_words(&self) -> usize {
        (self.bus_bytes / 4) as usize
    }

    /// 32-bit words per line (`G / 4`).
    pub fn line_words(&self) -> usize {
        (self.line_bytes / 4) as usize
    }

    /// The beat holding word `word` of a line (a word lies in one beat).
    pub fn beat_of_word(&self, word: u32) -> usize {
        word as usize / self.beat_words()
    }

    /// The position of word `word` of a line within its bus word.
    pub fn slot_of_word(&self, word: u32) -> usize {
        word as usize % self.beat_words()
    }

    /// The bus (word) address of beat `k` of line `line` (`line` = byte
    /// address / `G`): `(ℓ·G + k·Wb) / Wb`.
    pub fn beat_adr(&self, line: u32, k: usize) -> u32 {
        ((line as u64 * self.line_bytes as u64 + k as u64 * self.bus_bytes as u64)
            / self.bus_bytes as u64) as u32
    }

    /// The line and the word within it of byte address `addr`.
    pub fn locate(&self, addr: u32) -> (u32, u32) {
        (addr / self.line_bytes, (addr % self.line_bytes) / 4)
    }
}

/// The byte enables (bit `j`: byte `j` of the word) of an access of
/// `bytes` bytes at byte address `addr` (aligned, so within one word).
pub fn byte_enables(addr: u32, bytes: u32) -> u8 {
    assert!(matches!(bytes, 1 | 2 | 4) && addr % bytes == 0);
    (((1u32 << bytes) - 1) << (addr & 3)) as u8
}

/// One served lane of a global entry as the bus side sees it: the word of
/// the line it accesses, its byte enables within that word, and (stores and
/// atomics) its data in the word's byte lanes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct LaneAccess {
    /// Word index in the line.
    pub word: u32,
    /// Byte enables within the word (bit `j`: byte `j`).
    pub be: u8,
    /// Store data or atomic operand, byte `j` at bits `8j+7..8j` (bytes
    /// outside `be` are not sent).
    pub data: u32,
}

impl LaneAccess {
    /// A load of `width` at byte address `addr`.
    pub fn load(geom: &BusGeometry, addr: u32, width: LoadWidth) -> LaneAccess {
        LaneAccess {
            word: geom.locate(addr).1,
            be: byte_enables(addr, width.bytes()),
            data: 0,
        }
    }

    /// A store of `width` of register value `value` at `addr`: the bytes
    /// `semantics::store_truncate` keeps, moved to their byte lanes.
    pub fn store(geom: &BusGeometry, addr: u32, width: StoreWidth, value: u32) -> LaneAccess {
        LaneAccess {
            word: geom.locate(addr).1,
            be: byte_enables(addr, width.bytes()),
            data: semantics::store_truncate(width, value) << (8 * (addr & 3)),
        }
    }

    /// An atomic on the word at `addr` (aligned) with `operand`: the
    /// word's 4 bytes.
    pub fn atomic(geom: &BusGeometry, addr: u32, operand: u32) -> LaneAccess {
        assert_eq!(addr % 4, 0);
        LaneAccess {
            word: geom.locate(addr).1,
            be: 0xF,
            data: operand,
        }
    }
}

/// The kind of a global entry.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum EntryKind {
    Read,
    Write,
    Atomic(AtomOp),
}

impl EntryKind {
    /// `gm_we_o` of its beats.
    pub fn we(self) -> bool {
        self != EntryKind::Read
    }

    /// `gm_tga_o` of its beats.
    pub fn tga(self) -> u8 {
        match self {
            EntryKind::Atomic(op) => atomic_tag(op),
            _ => TAG_PLAIN,
        }
    }

    /// Whether its completion returns data (a return slot).
    pub fn returns(self) -> bool {
        self != EntryKind::Write
    }
}

/// The beats mask of an entry (`NB` bits, bit `k`: beat `k` holds a byte of
/// a served lane), from the served lanes' accesses.
pub fn beats_mask<'a>(geom: &BusGeometry, lanes: impl IntoIterator<Item = &'a LaneAccess>) -> u32 {
    lanes
        .into_iter()
        .filter(|a| a.be != 0)
        .fold(0, |m, a| m | 1 << geom.beat_of_word(a.word))
}

/// What the master drives for one beat: `gm_adr_o`, `gm_we_o`, `gm_sel_o`,
/// `gm_dat_o` (words, word 0 = bytes 0..3) and `gm_tga_o`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Beat {
    pub adr: u32,
    pub we: bool,
    pub sel: u128,
    pub dat: BusData,
    pub tga: u8,
}

/// Beat `k` of an entry of `kind` on line `line` whose served lanes are
/// `lanes`, in lane order (lane 0 first; the served lanes only), by the
/// table of §10.2: a read selects every byte and sends 0; a write selects
/// the OR of the served lanes' byte enables in the beat and sends each byte
/// from the **highest** served lane that writes it (0 elsewhere); an
/// atomic (one lane, `be = 0xF`) selects and sends its word.
pub fn beat_of(
    geom: &BusGeometry,
    kind: EntryKind,
    line: u32,
    lanes: &[LaneAccess],
    k: usize,
) -> Beat {
    assert!(k < geom.beats());
    let mut b = Beat {
        adr: geom.beat_adr(line, k),
        we: kind.we(),
        sel: 0,
        dat: [0; MAX_BUS_WORDS],
        tga: kind.tga(),
    };
    if kind == EntryKind::Read {
        b.sel = if geom.bus_bytes == 128 {
            u128::MAX
        } else {
            (1u128 << geom.bus_bytes) - 1
        };
        return b;
    }
    if let EntryKind::Atomic(_) = kind {
        assert_eq!(lanes.len(), 1, "an atomic entry serves one lane");
        assert_eq!(lanes[0].be, 0xF, "an atomic accesses its whole word");
    }
    // Lanes in order: a later (higher) lane overwrites a byte.
    for a in lanes.iter().filter(|a| geom.beat_of_word(a.word) == k) {
        let s = geom.slot_of_word(a.word);
        for j in 0..4 {
            if a.be >> j & 1 == 1 {
                b.sel |= 1u128 << (4 * s + j);
                let m = 0xFFu32 << (8 * j);
                b.dat[s] = (b.dat[s] & !m) | (a.data & m);
            }
        }
    }
    b
}

/// The word a served lane takes from the response to beat `k` (a read or
/// an atomic): `None` if its word is not in that beat.
pub fn response_word(geom: &BusGeometry, a: &LaneAccess, k: usize, dat: &BusData) -> Option<u32> {
    (geom.beat_of_word(a.word) == k).then(|| dat[geom.slot_of_word(a.word)])
}

#[cfg(test)]
mod master_rules {
    use super::*;

    const Z: BusData = [0; MAX_BUS_WORDS];

    fn words(pairs: &[(usize, u32)]) -> BusData {
        let mut d = Z;
        for &(i, v) in pairs {
            d[i] = v;
        }
        d
    }

    #[test]
    fn byte_enables_by_width_and_offset() {
        assert_eq!(byte_enables(0x100, 4), 0b1111);
        assert_eq!(byte_enables(0x102, 2), 0b1100);
        assert_eq!(byte_enables(0x100, 2), 0b0011);
        assert_eq!(byte_enables(0x103, 1), 0b1000);
        assert_eq!(byte_enables(0x101, 1), 0b0010);
    }

    /// G = 32, Wb = 4, NB = 8, line 5 (bytes 160..191, bus words 40..47).
    #[test]
    fn narrow_bus_g32_wb4() {
        let g = BusGeometry::new(32, 4);
        assert_eq!((g.beats(), g.beat_words(), g.line_words()), (8, 1, 8));
        assert_eq!(g.locate(174), (5, 3));
        let lanes = [
            // lane 0: st.b32 0x11223344 at 168 (word 2)
            LaneAccess::store(&g, 168, StoreWidth::B32, 0x1122_3344),
            // lane 1: st.b8 0x..AB at 169 (word 2, byte 1)
            LaneAccess::store(&g, 169, StoreWidth::B8, 0xFFFF_FFAB),
            // lane 3: st.b16 0xBEEF at 174 (word 3, bytes 2..3)
            LaneAccess::store(&g, 174, StoreWidth::B16, 0x1234_BEEF),
        ];
        assert_eq!(
            lanes[1],
            LaneAccess {
                word: 2,
                be: 0b0010,
                data: 0xAB00
            }
        );
        assert_eq!(
            lanes[2],
            LaneAccess {
                word: 3,
                be: 0b1100,
                data: 0xBEEF_0000
            }
        );
        assert_eq!(beats_mask(&g, &lanes), 0b0000_1100);
        let w = EntryKind::Write;
        assert_eq!(
            beat_of(&g, w, 5, &lanes, 2),
            Beat {
                adr: 42,
                we: true,
                sel: 0xF,
                dat: words(&[(0, 0x1122_AB44)]),
                tga: 0
            }
        );
        assert_eq!(
            beat_of(&g, w, 5, &lanes, 3),
            Beat {
                adr: 43,
                we: true,
                sel: 0xC,
                dat: words(&[(0, 0xBEEF_0000)]),
                tga: 0
            }
        );
        // A beat outside the mask selects nothing.
        assert_eq!(beat_of(&g, w, 5, &lanes, 0).sel, 0);
        // A read of words 0 and 7.
        let rd = [
            LaneAccess::load(&g, 160, LoadWidth::B32),
            LaneAccess::load(&g, 190, LoadWidth::S16),
        ];
        assert_eq!(beats_mask(&g, &rd), 0x81);
        assert_eq!(
            beat_of(&g, EntryKind::Read, 5, &rd, 7),
            Beat {
                adr: 47,
                we: false,
                sel: 0xF,
                dat: Z,
                tga: 0
            }
        );
        // An atomic max (index 3, tag 4) on word 7.
        let at = [LaneAccess::atomic(&g, 188, 0xFFFF_FFF0)];
        assert_eq!(beats_mask(&g, &at), 0x80);
        assert_eq!(
            beat_of(&g, EntryKind::Atomic(AtomOp::Max), 5, &at, 7),
            Beat {
                adr: 47,
                we: true,
                sel: 0xF,
                dat: words(&[(0, 0xFFFF_FFF0)]),
                tga: 4
            }
        );
        let dat = words(&[(0, 0xCAFE)]);
        assert_eq!(response_word(&g, &rd[1], 7, &dat), Some(0xCAFE));
        assert_eq!(response_word(&g, &rd[1], 6, &dat), None);
    }

    /// G = Wb = 128: one beat, 32 words, line 3 = bus word 3.
    #[test]
    fn one_beat_g128_wb128() {
        let g = BusGeometry::new(128, 128);
        assert_eq!((g.beats(), g.beat_words()), (1, 32));
        let base = 3 * 128;
        let lanes = [
            LaneAccess::store(&g, base, StoreWidth::B32, 0xAAAA_AAAA),
            LaneAccess::store(&g, base + 20, StoreWidth::B32, 0x55),
            LaneAccess::store(&g, base + 127, StoreWidth::B8, 0x7F),
            LaneAccess::store(&g, base + 20, StoreWidth::B32, 0x66),
        ];
        assert_eq!(beats_mask(&g, &lanes), 1);
        let b = beat_of(&g, EntryKind::Write, 3, &lanes, 0);
        assert_eq!(b.adr, 3);
        assert_eq!(b.sel, 0xF | 0xF << 20 | 1u128 << 127);
        // Word 5 from the highest lane (0x66), word 31 byte 3.
        assert_eq!(
            b.dat,
            words(&[(0, 0xAAAA_AAAA), (5, 0x66), (31, 0x7F00_0000)])
        );
        let r = beat_of(&g, EntryKind::Read, 3, &lanes[..1], 0);
        assert_eq!((r.sel, r.we, r.dat), (u128::MAX, false, Z));
        let dat = words(&[(5, 9), (31, 7)]);
        assert_eq!(response_word(&g, &lanes[2], 0, &dat), Some(7));
    }

    /// G = 32, Wb = 8: word 5 is beat 2, slot 1; line 1 = bus words 4..7.
    #[test]
    fn two_words_per_beat() {
        let g = BusGeometry::new(32, 8);
        assert_eq!(g.beats(), 4);
        let a = [LaneAccess::store(&g, 32 + 22, StoreWidth::B16, 0x1_2345)];
        assert_eq!(
            a[0],
            LaneAccess {
                word: 5,
                be: 0b1100,
                data: 0x2345_0000
            }
        );
        assert_eq!(beats_mask(&g, &a), 0b0100);
        let b = beat_of(&g, EntryKind::Write, 1, &a, 2);
        assert_eq!((b.adr, b.sel, b.dat), (6, 0xC0, words(&[(1, 0x2345_0000)])));
        assert_eq!(beat_of(&g, EntryKind::Read, 1, &a, 2).sel, 0xFF);
        assert_eq!(
            beat_of(
                &g,
                EntryKind::Atomic(AtomOp::Add),
                0,
                &[LaneAccess::atomic(&g, 4, 1)],
                0
            )
            .tga,
            1
        );
        assert_eq!(EntryKind::Atomic(AtomOp::Xor).tga(), 9);
    }
}
