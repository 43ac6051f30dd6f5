//! The host slave of Core v2 (docs/microarchitecture.md §14.2–§14.4):
//! a Wishbone B4 pipelined slave, 32-bit data, word addresses.
//!
//! * A request is accepted in every cycle *c* with `cyc_i ∧ stb_i`;
//!   `ack_o` is 1 in *c + 1*, from a flip-flop, and 0 in every other
//!   cycle. `stall_o` is the constant 0.
//! * A read's `dat_o` in *c + 1* is the register's value during *c*: the
//!   read multiplexer is a one-hot AND-OR over every readable word, and its
//!   result is registered. `dat_o` is 0 in every other cycle, after a write
//!   and for unmapped or write-only addresses.
//! * A write in *c* drives, during *c*, the write enable of its register or
//!   window (one per writable row of the map), `wdata` and `windex`; the
//!   core's register takes the value at the end of *c*. Writes to rows
//!   gated by the core's state (`IMEM`, the launch registers, `PARAM`) are
//!   dropped while `running` and raise `ignored`, and so does `CTRL.START`.
//! * The counter snapshot of §14.4 lives here: a read of `COUNTER[k]` low
//!   latches bits 63..32 of counter `k` (`ctr_hi[k]`; 0 for counters of 32
//!   bits or fewer), which the high addresses return.
//!
//! Everything comes from [`SlaveMap`], built from the table of
//! `concord_uarch::regmap` for one core; nothing about the map is restated
//! here.
//!
//! The address decode is predecoded: the page `adr[16:8]` is compared once
//! per page (Yosys merges equal comparisons), `adr[7:4]` and `adr[3:0]`
//! become 16-bit one-hot vectors, and each word's select is the AND of a
//! page match and one bit of each vector.
//!
//! The read multiplexer sits behind `if rd_req` and the write decode behind
//! `if wr_req`, with 0 defaults (`hdl/README.md`'s gating pattern): the
//! same AND-OR in hardware, but Verilator skips the untaken branch, and
//! this logic reads the host bus, so without the gate it is evaluated at
//! every `eval()` of every cycle while the bus is idle.

use concord_uarch::regmap::{
    self, Count, HostReg, HwConfig, WriteGate, ADDR_BITS, COUNTERS, CTRL_START, REGISTERS,
};
use rust_hdl_core::prelude::*;

use crate::util::Reg;

/// The width of `wbs_adr_i`.
pub const ADR_BITS: usize = ADDR_BITS;

/// One write enable: the row's word or window, decoded as
/// `(adr & addr_mask) == base`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WritePort {
    pub name: &'static str,
    pub base: u32,
    pub addr_mask: u32,
    /// Dropped while the core is running (`WriteGate::NotRunning`).
    pub gated: bool,
}

/// One readable word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadWord {
    /// The row's name, with `[i]` for arrays.
    pub name: String,
    pub addr: u32,
    /// The bits that can be 1 (the row's fields); the others are not read.
    pub mask: u32,
    /// The value of a constant register (`ID`, `HWCFG*`).
    pub value: Option<u32>,
}

/// The register map of one core, as the slave decodes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlaveMap {
    /// One write enable per writable row, in table order.
    pub writes: Vec<WritePort>,
    /// The words the core drives (`rd[i]`), in address order.
    pub reads: Vec<ReadWord>,
    /// The constant words, in address order.
    pub consts: Vec<ReadWord>,
    /// `COUNTER[k]` low, `k < COUNTERS` (`ctr_lo[k]`).
    pub counter_lo: Vec<ReadWord>,
    /// The addresses that read the snapshot.
    pub counter_hi: Vec<u32>,
    /// Counters with bits 63..32 (`ctr_hi[k]`, `k < counter_hi_inputs`):
    /// `cycles` (k = 0, always 64 bits), and all of them when
    /// `counter_bits > 32`.
    pub counter_hi_inputs: usize,
    /// `CTRL`'s address.
    pub ctrl: u32,
}

fn word(r: &HostReg, i: u32, value: Option<u32>) -> ReadWord {
    let name = match r.count {
        Count::One => r.name.to_string(),
        _ => format!("{}[{i}]", r.name),
    };
    ReadWord {
        name,
        addr: r.word_addr(i),
        mask: r.mask(),
        value,
    }
}

impl SlaveMap {
    /// The map of the core `cfg` describes (its `HWCFG*` values are the
    /// constants).
    pub fn new(cfg: &HwConfig) -> SlaveMap {
        let opts = cfg.map_options();
        let hwcfg = cfg.encode();
        let addr_bits_mask = (1u32 << ADR_BITS) - 1;
        let mut map = SlaveMap {
            writes: Vec::new(),
            reads: Vec::new(),
            consts: Vec::new(),
            counter_lo: Vec::new(),
            counter_hi: Vec::new(),
            counter_hi_inputs: if cfg.counter_bits > 32 {
                COUNTERS as usize
            } else {
                1
            },
            ctrl: regmap::CTRL,
        };
        for r in REGISTERS.iter().filter(|r| r.present(&opts)) {
            let n = r.words(&opts);
            if r.access.writable() {
                // A window is a power of two of words aligned to its size.
                assert!(r.stride == 1 && n.is_power_of_two() && r.addr % n == 0);
                map.writes.push(WritePort {
                    name: r.name,
                    base: r.addr,
                    addr_mask: addr_bits_mask & !(n - 1),
                    gated: r.gate == WriteGate::NotRunning,
                });
            }
            if !r.access.readable() {
                continue;
            }
            let constant = match r.name {
                "ID" => Some(regmap::ID_VALUE),
                name if name.starts_with("HWCFG") => Some(hwcfg[(r.addr - regmap::HWCFG) as usize]),
                _ => None,
            };
            for i in 0..n {
                let w = word(r, i, constant);
                if constant.is_some() {
                    map.consts.push(w);
                } else if r.name == "COUNTER_LO" {
                    map.counter_lo.push(w);
                } else if r.shared {
                    map.counter_hi.push(w.addr);
                } else {
                    map.reads.push(w);
                }
            }
        }
        assert_eq!(map.counter_lo.len(), COUNTERS as usize);
        assert_eq!(map.counter_hi.len(), COUNTERS as usize);
        map
    }

    /// The index of the write enable of row `name`.
    pub fn write_index(&self, name: &str) -> Option<usize> {
        self.writes.iter().position(|w| w.name == name)
    }

    /// The index in `rd` of the word called `name` (`DBG_SLOT[2]`).
    pub fn read_index(&self, name: &str) -> Option<usize> {
        self.reads.iter().position(|w| w.name == name)
    }
}

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.into())
}

/// The predecoded address of a word: its page `adr[16:8]`, and `adr[7:4]`
/// and `adr[3:0]` one-hot.
fn page(addr: u32) -> Constant<Bits<9>> {
    k((addr >> 8) as u64)
}
fn nib1(addr: u32) -> Constant<Bits<16>> {
    k(1u64 << ((addr >> 4) & 15))
}
fn nib0(addr: u32) -> Constant<Bits<16>> {
    k(1u64 << (addr & 15))
}

/// The Wishbone host slave. Ports named as §14.2 without the `wbs_`
/// prefix; the core side: `running` in; `we[i]` (one per
/// [`SlaveMap::writes`]), `wdata`, `windex`, `start`, `ignored` out;
/// `rd[i]`, `ctr_lo[k]`, `ctr_hi[k]` in.
#[derive(LogicBlock)]
pub struct HostSlave {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub cyc_i: Signal<In, bool>,
    pub stb_i: Signal<In, bool>,
    pub we_i: Signal<In, bool>,
    pub adr_i: Signal<In, Bits<ADR_BITS>>,
    pub dat_i: Signal<In, Bits<32>>,
    pub dat_o: Signal<Out, Bits<32>>,
    pub ack_o: Signal<Out, bool>,
    pub stall_o: Signal<Out, bool>,
    /// The core is in `SETUP`, `RUN` or `STOPPING`.
    pub running: Signal<In, bool>,
    /// Write enables, one per writable row (`SlaveMap::writes`).
    pub we: Vec<Signal<Out, bool>>,
    /// The written word.
    pub wdata: Signal<Out, Bits<32>>,
    /// The word's index within its window (`adr[15:0]`).
    pub windex: Signal<Out, Bits<16>>,
    /// `CTRL.START` written 1 while not running.
    pub start: Signal<Out, bool>,
    /// A write dropped because the core is running (sets
    /// `STATUS.write_ignored`).
    pub ignored: Signal<Out, bool>,
    /// The readable words the core drives (`SlaveMap::reads`).
    pub rd: Vec<Signal<In, Bits<32>>>,
    /// Bits 31..0 of each counter.
    pub ctr_lo: Vec<Signal<In, Bits<32>>>,
    /// Bits 63..32 of the counters that have them.
    pub ctr_hi: Vec<Signal<In, Bits<32>>>,
    ack_r: Reg<bool>,
    dat_r: Reg<Bits<32>>,
    snap_r: Reg<Bits<32>>,
    // Per word: decode constants, select, 32-bit replicate of the select;
    // r: `rd`, c: constants, l: counter low words, h: snapshot addresses.
    r_page: Vec<Constant<Bits<9>>>,
    r_hi: Vec<Constant<Bits<16>>>,
    r_lo: Vec<Constant<Bits<16>>>,
    r_sel: Vec<Signal<Local, bool>>,
    r_rep: Vec<Signal<Local, Bits<32>>>,
    c_page: Vec<Constant<Bits<9>>>,
    c_hi: Vec<Constant<Bits<16>>>,
    c_lo: Vec<Constant<Bits<16>>>,
    c_sel: Vec<Signal<Local, bool>>,
    c_rep: Vec<Signal<Local, Bits<32>>>,
    l_page: Vec<Constant<Bits<9>>>,
    l_hi: Vec<Constant<Bits<16>>>,
    l_lo: Vec<Constant<Bits<16>>>,
    l_sel: Vec<Signal<Local, bool>>,
    l_rep: Vec<Signal<Local, Bits<32>>>,
    h_page: Vec<Constant<Bits<9>>>,
    h_hi: Vec<Constant<Bits<16>>>,
    h_lo: Vec<Constant<Bits<16>>>,
    snap_rep: Signal<Local, Bits<32>>,
    // The OR tree over every term, in heap order: node `s`'s children are
    // `2s + 1` and `2s + 2`; leaf `t` is node `P − 1 + t` (`P` a power of
    // two ≥ the terms): t = 0 the snapshot, then `rd`, constants, counters,
    // zeros.
    node: Vec<Signal<Local, Bits<32>>>,
    ones32: Constant<Bits<32>>,
    rmask: Vec<Constant<Bits<32>>>,
    cval: Vec<Constant<Bits<32>>>,
    wmask: Vec<Constant<Bits<ADR_BITS>>>,
    wbase: Vec<Constant<Bits<ADR_BITS>>>,
    wgate: Vec<Constant<bool>>,
    ctrl_addr: Constant<Bits<ADR_BITS>>,
    one16: Constant<Bits<16>>,
    zero16: Constant<Bits<16>>,
    page_zero: Constant<Bits<9>>,
    zero32: Constant<Bits<32>>,
    rd_req: Signal<Local, bool>,
    wr_req: Signal<Local, bool>,
    page: Signal<Local, Bits<9>>,
    hi_oh: Signal<Local, Bits<16>>,
    lo_oh: Signal<Local, Bits<16>>,
    acc: Signal<Local, Bits<32>>,
    hit: Signal<Local, bool>,
    snap_sel: Signal<Local, bool>,
    lo_read: Signal<Local, bool>,
    snap_next: Signal<Local, Bits<32>>,
    ign: Signal<Local, bool>,
    _pm1: usize,
    _p: usize,
    _or: usize,
    _or1: usize,
    _oc: usize,
    _oc1: usize,
    _ol: usize,
    _ol1: usize,
    _oz: usize,
    _nodes: usize,
    _nr: usize,
    _nc: usize,
    _nl: usize,
    _nh: usize,
    _nhi: usize,
    _nw: usize,
}

impl HostSlave {
    pub fn new(map: &SlaveMap) -> HostSlave {
        // The START bit is read at a literal position in `update`.
        assert_eq!((CTRL_START.lsb, CTRL_START.width), (0, 1));
        assert!(map.writes.iter().any(|w| w.base == map.ctrl));
        fn sig<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| Default::default()).collect()
        }
        let addrs = |ws: &[ReadWord]| ws.iter().map(|w| w.addr).collect::<Vec<u32>>();
        let (r, c, l, h) = (
            addrs(&map.reads),
            addrs(&map.consts),
            addrs(&map.counter_lo),
            map.counter_hi.clone(),
        );
        let terms = 1 + r.len() + c.len() + l.len();
        let p = terms.next_power_of_two();
        let (or, oc, ol, oz) = (
            p,
            p + r.len(),
            p + r.len() + c.len(),
            p + r.len() + c.len() + l.len(),
        );
        HostSlave {
            clock: Default::default(),
            reset: Default::default(),
            cyc_i: Default::default(),
            stb_i: Default::default(),
            we_i: Default::default(),
            adr_i: Default::default(),
            dat_i: Default::default(),
            dat_o: Default::default(),
            ack_o: Default::default(),
            stall_o: Default::default(),
            running: Default::default(),
            we: sig(map.writes.len()),
            wdata: Default::default(),
            windex: Default::default(),
            start: Default::default(),
            ignored: Default::default(),
            rd: sig(map.reads.len()),
            ctr_lo: sig(map.counter_lo.len()),
            ctr_hi: sig(map.counter_hi_inputs),
            ack_r: Default::default(),
            dat_r: Default::default(),
            snap_r: Default::default(),
            r_page: r.iter().map(|a| page(*a)).collect(),
            r_hi: r.iter().map(|a| nib1(*a)).collect(),
            r_lo: r.iter().map(|a| nib0(*a)).collect(),
            r_sel: sig(r.len()),
            r_rep: sig(r.len()),
            c_page: c.iter().map(|a| page(*a)).collect(),
            c_hi: c.iter().map(|a| nib1(*a)).collect(),
            c_lo: c.iter().map(|a| nib0(*a)).collect(),
            c_sel: sig(c.len()),
            c_rep: sig(c.len()),
            l_page: l.iter().map(|a| page(*a)).collect(),
            l_hi: l.iter().map(|a| nib1(*a)).collect(),
            l_lo: l.iter().map(|a| nib0(*a)).collect(),
            l_sel: sig(l.len()),
            l_rep: sig(l.len()),
            h_page: h.iter().map(|a| page(*a)).collect(),
            h_hi: h.iter().map(|a| nib1(*a)).collect(),
            h_lo: h.iter().map(|a| nib0(*a)).collect(),
            snap_rep: Default::default(),
            ones32: k(0xFFFF_FFFF),
            node: sig(2 * p - 1),
            rmask: map.reads.iter().map(|w| k(w.mask as u64)).collect(),
            cval: map
                .consts
                .iter()
                .map(|w| k((w.value.unwrap() & w.mask) as u64))
                .collect(),
            wmask: map.writes.iter().map(|w| k(w.addr_mask as u64)).collect(),
            wbase: map.writes.iter().map(|w| k(w.base as u64)).collect(),
            wgate: map.writes.iter().map(|w| Constant::new(w.gated)).collect(),
            ctrl_addr: k(map.ctrl as u64),
            one16: k(1),
            zero16: k(0),
            page_zero: k(0),
            zero32: k(0),
            rd_req: Default::default(),
            wr_req: Default::default(),
            page: Default::default(),
            hi_oh: Default::default(),
            lo_oh: Default::default(),
            acc: Default::default(),
            hit: Default::default(),
            snap_sel: Default::default(),
            lo_read: Default::default(),
            snap_next: Default::default(),
            ign: Default::default(),
            _pm1: p - 1,
            _p: p,
            _or: or,
            _or1: or + 1,
            _oc: oc,
            _oc1: oc + 1,
            _ol: ol,
            _ol1: ol + 1,
            _oz: oz,
            _nodes: 2 * p - 1,
            _nr: map.reads.len(),
            _nc: map.consts.len(),
            _nl: map.counter_lo.len(),
            _nh: map.counter_hi.len(),
            _nhi: map.counter_hi_inputs,
            _nw: map.writes.len(),
        }
    }
}

impl Logic for HostSlave {
    #[hdl_gen]
    fn update(&mut self) {
        // Registers.
        self.ack_r.clock.next = self.clock.val();
        self.ack_r.reset.next = self.reset.val();
        self.dat_r.clock.next = self.clock.val();
        self.dat_r.reset.next = self.reset.val();
        self.snap_r.clock.next = self.clock.val();
        self.snap_r.reset.next = self.reset.val();
        // Requests and the predecoded address.
        self.rd_req.next = self.cyc_i.val() & self.stb_i.val() & !self.we_i.val();
        self.wr_req.next = self.cyc_i.val() & self.stb_i.val() & self.we_i.val();
        // Everything below is evaluated only in a cycle with a read
        // request: with an idle bus the multiplexer costs Verilator one
        // test (it skips an untaken branch), and the hardware is the same
        // AND-OR behind the selects, which are 0 without a request anyway.
        self.page.next = self.page_zero.val();
        self.hi_oh.next = self.zero16.val();
        self.lo_oh.next = self.zero16.val();
        for i in 0..self._nr {
            self.r_sel[i].next = false;
            self.r_rep[i].next = self.zero32.val();
        }
        for i in 0..self._nc {
            self.c_sel[i].next = false;
            self.c_rep[i].next = self.zero32.val();
        }
        for i in 0..self._nl {
            self.l_sel[i].next = false;
            self.l_rep[i].next = self.zero32.val();
        }
        self.lo_read.next = false;
        self.snap_sel.next = false;
        self.snap_rep.next = self.zero32.val();
        for i in 0..self._nodes {
            self.node[i].next = self.zero32.val();
        }
        self.acc.next = self.zero32.val();
        self.snap_next.next = self.zero32.val();
        if self.rd_req.val() {
            self.page.next = self.adr_i.val().get_bits::<9>(8);
            self.hi_oh.next = self.one16.val() << self.adr_i.val().get_bits::<4>(4);
            self.lo_oh.next = self.one16.val() << self.adr_i.val().get_bits::<4>(0);
            // Word selects and their replicates.
            for i in 0..self._nr {
                self.r_sel[i].next = (self.page.val() == self.r_page[i].val())
                    & (self.hi_oh.val() & self.r_hi[i].val()).any()
                    & (self.lo_oh.val() & self.r_lo[i].val()).any();
                self.r_rep[i].next = self.zero32.val();
                if self.r_sel[i].val() {
                    self.r_rep[i].next = self.ones32.val();
                }
            }
            for i in 0..self._nc {
                self.c_sel[i].next = (self.page.val() == self.c_page[i].val())
                    & (self.hi_oh.val() & self.c_hi[i].val()).any()
                    & (self.lo_oh.val() & self.c_lo[i].val()).any();
                self.c_rep[i].next = self.zero32.val();
                if self.c_sel[i].val() {
                    self.c_rep[i].next = self.ones32.val();
                }
            }
            for i in 0..self._nl {
                self.l_sel[i].next = (self.page.val() == self.l_page[i].val())
                    & (self.hi_oh.val() & self.l_hi[i].val()).any()
                    & (self.lo_oh.val() & self.l_lo[i].val()).any();
                self.l_rep[i].next = self.zero32.val();
                if self.l_sel[i].val() {
                    self.l_rep[i].next = self.ones32.val();
                }
                self.lo_read.next = self.lo_read.val() | self.l_sel[i].val();
            }
            for i in 0..self._nh {
                self.snap_sel.next = self.snap_sel.val()
                    | ((self.page.val() == self.h_page[i].val())
                        & (self.hi_oh.val() & self.h_hi[i].val()).any()
                        & (self.lo_oh.val() & self.h_lo[i].val()).any());
            }
            self.snap_rep.next = self.zero32.val();
            if self.snap_sel.val() {
                self.snap_rep.next = self.ones32.val();
            }
            // The one-hot AND-OR read multiplexer: leaves, then a balanced OR
            // tree, children first. (`pm1`, `o` are one-iteration loops that
            // name offsets for the index expressions.)
            for pm1 in self._pm1..self._p {
                self.node[pm1].next = self.snap_r.q.val() & self.snap_rep.val();
            }
            for o in self._or..self._or1 {
                for i in 0..self._nr {
                    self.node[o + i].next =
                        self.rd[i].val() & self.rmask[i].val() & self.r_rep[i].val();
                }
            }
            for o in self._oc..self._oc1 {
                for i in 0..self._nc {
                    self.node[o + i].next = self.cval[i].val() & self.c_rep[i].val();
                }
            }
            for o in self._ol..self._ol1 {
                for i in 0..self._nl {
                    self.node[o + i].next = self.ctr_lo[i].val() & self.l_rep[i].val();
                }
            }
            for i in self._oz..self._nodes {
                self.node[i].next = self.zero32.val();
            }
            for pm1 in self._pm1..self._p {
                for n in 0..self._pm1 {
                    self.node[pm1 - n - 1].next =
                        self.node[2 * (pm1 - n) - 1].val() | self.node[2 * (pm1 - n)].val();
                }
            }
            self.acc.next = self.node[0].val();
            for i in 0..self._nhi {
                self.snap_next.next =
                    self.snap_next.val() | (self.ctr_hi[i].val() & self.l_rep[i].val());
            }
        }
        self.ack_r.d.next = self.cyc_i.val() & self.stb_i.val();
        self.dat_r.d.next = self.acc.val();
        self.ack_o.next = self.ack_r.q.val();
        self.dat_o.next = self.dat_r.q.val();
        self.stall_o.next = false;
        // The counter snapshot: bits 63..32 of the counter whose low word
        // is read (`snap_next` is computed in the read branch above).
        self.snap_r.d.next = self.snap_r.q.val();
        if self.lo_read.val() {
            self.snap_r.d.next = self.snap_next.val();
        }
        // Writes: decoded only in a cycle with a write request (as the
        // read multiplexer above; every output is 0 without one).
        self.ign.next = false;
        self.hit.next = false;
        for i in 0..self._nw {
            self.we[i].next = false;
        }
        self.start.next = false;
        self.ignored.next = false;
        if self.wr_req.val() {
            for i in 0..self._nw {
                self.hit.next = (self.adr_i.val() & self.wmask[i].val()) == self.wbase[i].val();
                self.we[i].next = self.hit.val() & !(self.wgate[i].val() & self.running.val());
                self.ign.next =
                    self.ign.val() | (self.hit.val() & self.wgate[i].val() & self.running.val());
            }
            self.hit.next = self.adr_i.val() == self.ctrl_addr.val();
            self.start.next = self.hit.val() & self.dat_i.val().get_bit(0) & !self.running.val();
            self.ignored.next = self.ign.val()
                | (self.hit.val() & self.dat_i.val().get_bit(0) & self.running.val());
        }
        self.wdata.next = self.dat_i.val();
        self.windex.next = self.adr_i.val().get_bits::<16>(0);
    }
}

/// Verilog of the slave alone for `map`, top module `concord_host_slave`,
/// sub-modules `concord_host_slave__<path>` (no `$`, §14.2).
pub fn verilog(map: &SlaveMap) -> String {
    let mut s = HostSlave::new(map);
    s.connect_all();
    let raw = generate_verilog(&s);
    let mut out = String::from(
        "// Concord Core v2 host slave (Wishbone B4 pipelined), generated by concord-hdl.\n\
         // One file holds every module, so only the top module can match the file name.\n\
         /* verilator lint_off DECLFILENAME */\n",
    );
    out.push_str(&super::rename_modules(&raw, "concord_host_slave"));
    out
}
