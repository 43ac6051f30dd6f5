//! The testbench's global memory (docs/microarchitecture.md §8): always
//! ready, performs an access in the cycle it accepts it, and presents the
//! response exactly `latency` cycles later.
//!
//! The cycle model and the Verilator harness serve their cores with this
//! same type, one [`GlobalMemory::cycle`] call per clock cycle.

use std::collections::VecDeque;

use concord_isa::semantics;
use concord_isa::AtomOp;
use concord_uarch::ports::gmem_kind;
use concord_uarch::widths::LINE_BYTES;

/// The core's request outputs in one cycle (`gmem_req_*`, valid = `Some`).
///
/// `wdata` holds the 1024-bit line with byte `j` at bits `8j+7..8j`, i.e.
/// byte `j` is byte `j % 4` (little-endian) of `wdata[j / 4]`; `mask` holds
/// the 128 byte enables, enable `j` at bit `j % 32` of `mask[j / 32]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalRequest {
    /// [`GlobalRequest::READ`], [`GlobalRequest::WRITE`] or [`GlobalRequest::ATOMIC`].
    pub kind: u32,
    /// Reads and writes: the byte address of the line (`line * G`).
    /// Atomics: the byte address of the (4-byte aligned) word.
    pub addr: u32,
    pub wdata: [u32; 32],
    pub mask: [u32; 4],
    /// Atomics: the [`AtomOp`] index (its `FUNC` code, `AtomOp::ALL` order).
    pub atom_op: u32,
    /// Atomics: the operand.
    pub atom_data: u32,
}

impl GlobalRequest {
    /// Read a line: the response carries its `G` bytes (the rest zero).
    pub const READ: u32 = gmem_kind::READ;
    /// Write the enabled bytes of a line: the response data is zero.
    pub const WRITE: u32 = gmem_kind::WRITE;
    /// Read-modify-write one word: the response carries the old word in bits 31..0.
    pub const ATOMIC: u32 = gmem_kind::ATOMIC;
}

impl Default for GlobalRequest {
    fn default() -> Self {
        GlobalRequest {
            kind: GlobalRequest::READ,
            addr: 0,
            wdata: [0; 32],
            mask: [0; 4],
            atom_op: 0,
            atom_data: 0,
        }
    }
}

/// Byte-addressed global memory behind the core's port. Bytes outside
/// `bytes` read as zero and are not written (the core checks every access
/// against `global_memory_bytes` before issuing it).
#[derive(Clone, Debug)]
pub struct GlobalMemory {
    pub bytes: Vec<u8>,
    latency: u32,
    line_bytes: u32,
    /// Calls to [`GlobalMemory::cycle`] so far.
    now: u64,
    /// Responses not yet presented: (cycle due, data).
    in_flight: VecDeque<(u64, [u32; 32])>,
}

impl GlobalMemory {
    /// `latency` must be at least 1 (`global_latency` is 1..=1000);
    /// `line_bytes` is `global_line_bytes` (at most 128).
    pub fn new(bytes: Vec<u8>, latency: u32, line_bytes: u32) -> Self {
        assert!(latency >= 1, "global memory latency must be at least 1");
        assert!(
            (4..=LINE_BYTES as u32).contains(&line_bytes) && line_bytes.is_power_of_two(),
            "global line of {line_bytes} bytes"
        );
        GlobalMemory {
            bytes,
            latency,
            line_bytes,
            now: 0,
            in_flight: VecDeque::new(),
        }
    }

    pub fn latency(&self) -> u32 {
        self.latency
    }

    /// One clock cycle. `req` is the core's request output of this cycle
    /// (`gmem_req_valid` = `req.is_some()`); the memory is always ready, so
    /// a present request is accepted and performed now. Returns the response
    /// inputs to present in this same cycle (`gmem_resp_valid` =
    /// `is_some()`): the response of the request accepted `latency` calls ago.
    pub fn cycle(&mut self, req: Option<&GlobalRequest>) -> Option<[u32; 32]> {
        let resp = match self.in_flight.front() {
            Some(&(due, _)) if due == self.now => self.in_flight.pop_front().map(|(_, d)| d),
            _ => None,
        };
        if let Some(r) = req {
            let data = self.perform(r);
            self.in_flight
                .push_back((self.now + self.latency as u64, data));
        }
        self.now += 1;
        resp
    }

    /// Whether responses are still to come.
    pub fn busy(&self) -> bool {
        !self.in_flight.is_empty()
    }

    fn byte(&self, addr: u64) -> u8 {
        self.bytes.get(addr as usize).copied().unwrap_or(0)
    }

    fn set_byte(&mut self, addr: u64, value: u8) {
        if let Some(b) = self.bytes.get_mut(addr as usize) {
            *b = value;
        }
    }

    fn word(&self, addr: u64) -> u32 {
        (0..4).fold(0, |w, i| w | (self.byte(addr + i) as u32) << (8 * i))
    }

    /// Performs the access and returns the response data.
    fn perform(&mut self, r: &GlobalRequest) -> [u32; 32] {
        let mut data = [0u32; 32];
        let base = r.addr as u64;
        match r.kind {
            GlobalRequest::READ => {
                for (i, d) in data
                    .iter_mut()
                    .enumerate()
                    .take(self.line_bytes as usize / 4)
                {
                    *d = self.word(base + 4 * i as u64);
                }
            }
            GlobalRequest::WRITE => {
                for j in 0..LINE_BYTES as u64 {
                    if r.mask[(j / 32) as usize] >> (j % 32) & 1 == 1 {
                        let v = (r.wdata[(j / 4) as usize] >> (8 * (j % 4))) as u8;
                        self.set_byte(base + j, v);
                    }
                }
            }
            GlobalRequest::ATOMIC => {
                let old = self.word(base);
                if let Some(&op) = AtomOp::ALL.get(r.atom_op as usize) {
                    let new = semantics::atomic(op, old, r.atom_data);
                    for i in 0..4 {
                        self.set_byte(base + i, (new >> (8 * i)) as u8);
                    }
                }
                data[0] = old;
            }
            _ => {}
        }
        data
    }
}
