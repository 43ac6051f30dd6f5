//! Wishbone B4 pipelined ports (docs/microarchitecture-v2.md §14.1–§14.5)
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

use concord_isa::instr::AtomOp;

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
