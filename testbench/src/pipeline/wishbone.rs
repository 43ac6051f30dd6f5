//! The testbench memory (docs/microarchitecture-v2.md §10.4): a Wishbone
//! B4 pipelined slave of `global_bus_bytes` with a fixed latency per beat
//! and an optional bandwidth limit. It performs a beat when it accepts it
//! and raises `ACK` with the data `lat` cycles later, in order.

use std::collections::VecDeque;

use concord_isa::instr::AtomOp;
use concord_isa::semantics;
use concord_uarch::HwParams;

/// One beat as the master presents it (`gm_*_o`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Beat {
    /// Bus-word address (byte address / `Wb`).
    pub adr: u32,
    pub we: bool,
    /// Byte selects, bit `j` for byte `j` of the bus word.
    pub sel: u128,
    /// Write data (or the atomic operand in the word's byte lanes).
    pub dat: Vec<u8>,
    /// `0`: plain access; `1 + op`: atomic.
    pub tga: Option<AtomOp>,
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
    /// Accepted beats: (cycle of the `ACK`, read data).
    in_flight: VecDeque<(u64, Vec<u8>)>,
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
            in_flight: VecDeque::new(),
        }
    }

    /// Whether the bandwidth limit applies (`0 < bw < Wb`).
    fn limited(&self) -> bool {
        self.bw != 0 && self.bw < self.wb
    }

    /// `STALL` in this cycle, from the registered credit only.
    pub fn stall(&self) -> bool {
        self.limited() && self.credit < self.wb
    }

    /// Whether a beat is accepted and not yet answered.
    pub fn busy(&self) -> bool {
        !self.in_flight.is_empty()
    }

    /// One cycle `c`: accepts and performs `beat` if one is presented and
    /// `STALL` is low, and returns (accepted, the response data of this
    /// cycle: the beat accepted in `c − lat`).
    pub fn cycle(&mut self, c: u64, beat: Option<&Beat>) -> (bool, Option<Vec<u8>>) {
        let mut accepted = false;
        if let Some(b) = beat {
            if !self.stall() {
                let data = self.perform(b);
                self.in_flight.push_back((c + self.lat, data));
                if self.limited() {
                    self.credit -= self.wb;
                }
                accepted = true;
            }
        }
        let response = match self.in_flight.front() {
            Some(&(at, _)) if at == c => self.in_flight.pop_front().map(|(_, d)| d),
            _ => None,
        };
        if self.limited() {
            self.credit = (self.credit + self.bw).min(self.cap);
        }
        (accepted, response)
    }

    fn byte(&self, a: u64) -> u8 {
        self.bytes.get(a as usize).copied().unwrap_or(0)
    }

    fn perform(&mut self, b: &Beat) -> Vec<u8> {
        let base = b.adr as u64 * self.wb as u64;
        let old: Vec<u8> = (0..self.wb as u64).map(|j| self.byte(base + j)).collect();
        if !b.we {
            return old;
        }
        match b.tga {
            None => {
                for j in 0..self.wb as usize {
                    if b.sel >> j & 1 == 1 {
                        if let Some(m) = self.bytes.get_mut(base as usize + j) {
                            *m = b.dat[j];
                        }
                    }
                }
            }
            Some(op) => {
                let first = b.sel.trailing_zeros() as usize;
                let w = |v: &[u8]| {
                    u32::from_le_bytes([v[first], v[first + 1], v[first + 2], v[first + 3]])
                };
                let new = semantics::atomic(op, w(&old), w(&b.dat)).to_le_bytes();
                for (j, byte) in new.iter().enumerate() {
                    if let Some(m) = self.bytes.get_mut(base as usize + first + j) {
                        *m = *byte;
                    }
                }
            }
        }
        old
    }
}
