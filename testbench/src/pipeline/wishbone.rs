//! The testbench memory (docs/microarchitecture.md §10.4): a Wishbone
//! B4 pipelined slave of `global_bus_bytes` with a fixed latency per beat
//! and an optional bandwidth limit. It performs a beat when it accepts it
//! and raises `ACK` with the data `lat` cycles later, in order.
//!
//! It speaks [`concord_uarch::wishbone::Signals`], the per-cycle record the
//! protocol checker reads: each cycle it takes the master's outputs (`cyc`
//! … `tga`) and returns the same record with its own outputs (`stall`,
//! `ack`, `err`, `dat_r`) filled in, so the cycle model and the Verilator
//! harness can drive a core with the same type (§10.4, §15.4 step 1).

use std::collections::{BTreeSet, VecDeque};

use concord_isa::semantics;
use concord_uarch::wishbone::{tag_op, BusData, Signals, MAX_BUS_WORDS, TAG_PLAIN};
use concord_uarch::HwParams;

/// An accepted beat waiting for its answer.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Pending {
    /// The memory cycle of its `ACK` (or `ERR`).
    at: u64,
    data: BusData,
    err: bool,
}

/// [`WishboneMemory::normalised`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MemoryState {
    credit: u32,
    in_flight: Vec<Pending>,
    errors_ahead: Vec<u64>,
}

/// The memory and its bus state.
#[derive(Clone, Debug)]
pub struct WishboneMemory {
    pub bytes: Vec<u8>,
    wb: u32,
    lat: u64,
    bw: u32,
    credit: u32,
    cap: u32,
    /// Cycles seen so far (the number of the next [`WishboneMemory::cycle`]).
    now: u64,
    /// Beats accepted so far.
    accepted: u64,
    /// Accepted beats not yet answered, oldest first.
    in_flight: VecDeque<Pending>,
    /// Accepted-beat numbers (0 = the first beat accepted) answered with
    /// `ERR` instead of `ACK`, and not performed (a test injects them).
    errors: BTreeSet<u64>,
}

impl WishboneMemory {
    pub fn new(bytes: Vec<u8>, hw: &HwParams) -> WishboneMemory {
        let wb = hw.global_bus_bytes;
        let bw = hw.global_bandwidth;
        let cap = bw.max(wb);
        WishboneMemory {
            bytes,
            wb,
            lat: hw.global_latency as u64,
            bw,
            credit: cap,
            cap,
            now: 0,
            accepted: 0,
            in_flight: VecDeque::new(),
            errors: BTreeSet::new(),
        }
    }

    /// Answers the `n`-th accepted beat (0 = the first) with `ERR`, and
    /// does not perform it (§10.4: "never raises `ERR` unless a test
    /// injects one").
    pub fn inject_err(&mut self, n: u64) {
        self.errors.insert(n);
    }

    /// Whether the bandwidth limit applies (`0 < bw < Wb`).
    fn limited(&self) -> bool {
        self.bw != 0 && self.bw < self.wb
    }

    /// `STALL` in this cycle, from the registered credit only.
    pub fn stall(&self) -> bool {
        self.limited() && self.credit < self.wb
    }

    /// Everything of the memory's bus state that decides its future
    /// answers, with cycle stamps as distances from now and the injected
    /// errors as distances from the next accepted beat (the watchdog's
    /// repeat test compares it; the bytes are compared apart).
    pub(crate) fn normalised(&self) -> MemoryState {
        MemoryState {
            credit: self.credit,
            in_flight: self
                .in_flight
                .iter()
                .map(|p| Pending {
                    at: p.at - self.now,
                    ..p.clone()
                })
                .collect(),
            errors_ahead: self
                .errors
                .range(self.accepted..)
                .map(|n| n - self.accepted)
                .collect(),
        }
    }

    /// Whether a beat is accepted and not yet answered.
    pub fn busy(&self) -> bool {
        !self.in_flight.is_empty()
    }

    /// One cycle: `master` is what the master drives during it (its
    /// `dat_r`, `ack`, `err`, `stall` are ignored). Accepts and performs the
    /// beat when `cyc ∧ stb ∧ ¬stall`; returns the port's whole record of
    /// the cycle: `master`'s outputs with `stall` and the answer to the beat
    /// accepted `lat` cycles ago (`ack` or `err`, `dat_r`).
    pub fn cycle(&mut self, master: &Signals) -> Signals {
        let c = self.now;
        self.now += 1;
        let stall = self.stall();
        let mut port = Signals {
            dat_r: [0; MAX_BUS_WORDS],
            ack: false,
            err: false,
            stall,
            ..*master
        };
        if port.accepted() {
            let err = self.errors.contains(&self.accepted);
            let data = if err {
                [0; MAX_BUS_WORDS]
            } else {
                self.perform(master)
            };
            self.accepted += 1;
            self.in_flight.push_back(Pending {
                at: c + self.lat,
                data,
                err,
            });
            if self.limited() {
                self.credit -= self.wb;
            }
        }
        if self.in_flight.front().is_some_and(|p| p.at == c) {
            let p = self.in_flight.pop_front().expect("checked");
            port.err = p.err;
            port.ack = !p.err;
            port.dat_r = p.data;
        }
        if self.limited() {
            self.credit = (self.credit + self.bw).min(self.cap);
        }
        port
    }

    fn byte(&self, a: u64) -> u8 {
        self.bytes.get(a as usize).copied().unwrap_or(0)
    }

    fn set(&mut self, a: u64, v: u8) {
        if let Some(m) = self.bytes.get_mut(a as usize) {
            *m = v;
        }
    }

    /// Performs an accepted beat; returns the bus word before it.
    fn perform(&mut self, b: &Signals) -> BusData {
        let wb = self.wb as usize;
        let base = b.adr as u64 * wb as u64;
        let old: Vec<u8> = (0..wb as u64).map(|j| self.byte(base + j)).collect();
        let mut words = [0u32; MAX_BUS_WORDS];
        for (i, c) in old.chunks(4).enumerate() {
            words[i] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        if !b.we {
            return words;
        }
        let byte_w = |j: usize| (b.dat_w[j / 4] >> (8 * (j % 4))) as u8;
        if b.tga == TAG_PLAIN {
            for j in 0..wb {
                if b.sel >> j & 1 == 1 {
                    self.set(base + j as u64, byte_w(j));
                }
            }
        } else {
            let op = tag_op(b.tga).expect("an atomic tag (1..=9)");
            let first = b.sel.trailing_zeros() as usize;
            let word = |f: &dyn Fn(usize) -> u8| {
                u32::from_le_bytes([f(first), f(first + 1), f(first + 2), f(first + 3)])
            };
            let new = semantics::atomic(op, word(&|j| old[j]), word(&byte_w)).to_le_bytes();
            for (j, byte) in new.iter().enumerate() {
                self.set(base + (first + j) as u64, *byte);
            }
        }
        words
    }
}
