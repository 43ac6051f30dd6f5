//! Core v2's trace port (docs/microarchitecture.md §15.2): the record
//! of one cycle, its field list with widths from [`HwParams`], and the
//! packing into one bit vector (fields in the table's order, the first at
//! bit 0; a field's bit `i` is the vector's bit `offset + i`).
//!
//! All `tr_*` outputs are registered: the values on the port during cycle
//! *c + 1* are the record of cycle *c*.

use crate::HwParams;

/// `ceil(log2 x)` (0 for `x ≤ 1`).
fn clog2(x: u64) -> u32 {
    if x <= 1 {
        0
    } else {
        64 - (x - 1).leading_zeros()
    }
}

/// `tr_s_kind` values.
pub mod s_kind {
    pub const BUBBLE: u32 = 0;
    pub const WARP: u32 = 1;
    pub const RETURN: u32 = 2;
    pub const INIT: u32 = 3;
}

/// `tr_a_kind` values.
pub mod a_kind {
    pub const BUBBLE: u32 = 0;
    pub const COMMITTED: u32 = 1;
    pub const RETURN: u32 = 2;
    pub const INIT: u32 = 3;
    pub const SQUASHED: u32 = 4;
    pub const TRAPPED: u32 = 5;
    pub const INIT_REFUSED: u32 = 6;
}

/// The record of one cycle. Every field is a little-endian vector of
/// 32-bit words (scalars: one word); bits above a field's width are 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceRecord {
    pub state: u32,
    pub s_kind: u32,
    pub s_warp: u32,
    pub s_replay: u32,
    pub a_kind: u32,
    pub a_warp: u32,
    pub a_pc: u32,
    pub a_active: u32,
    pub a_exec: u32,
    pub a_served: u32,
    pub a_gpc: u32,
    pub a_gmask: u32,
    pub a_pcw: u32,
    pub tree: u32,
    pub rearb_warp: u32,
    pub pred_we: u32,
    pub pred_addr: u32,
    pub pred_data: u32,
    pub rf_we: u32,
    pub rf_addr: u32,
    /// `32·L` bits: lane `l` in word `l`.
    pub rf_data: [u32; 32],
    /// `4·B` bits: byte enables, bank `b`'s in bits `4b..4b+4`.
    pub sh_we: [u32; 4],
    pub sh_row: u32,
    /// `32·B` bits: bank `b` in word `b`.
    pub sh_data: [u32; 32],
    pub rsp: u32,
    pub rsp_entry: u32,
    pub free: u32,
    pub alloc: u32,
    pub start: u32,
    pub retire: u32,
    pub alloc_slot: u32,
    pub start_slot: u32,
    pub retire_slot: u32,
    /// `3·W` bits: warp `w`'s state code (§5.5) in bits `3w..3w+3`.
    pub warp_state: [u32; 2],
    pub trap: u32,
}

/// One field of the port: its name (`tr_` omitted) and width in bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceField {
    pub name: &'static str,
    pub width: u32,
}

/// The fields of the trace port of a core, in the order of §15.2's table.
/// `log2` is rounded up; a width can be 0 (`tr_rsp_entry` with one entry).
pub fn fields(hw: &HwParams) -> Vec<TraceField> {
    let l = hw.lanes as u32;
    let w = hw.warps as u64;
    let b = hw.shared_banks as u32;
    let wb = clog2(w).max(1);
    let pc = hw.pc_bits;
    let n = hw.global_outstanding as u64;
    let bs = clog2(hw.block_slots as u64).max(1);
    let f = |name, width| TraceField { name, width };
    vec![
        f("state", 3),
        f("s_kind", 2),
        f("s_warp", wb),
        f("s_replay", 1),
        f("a_kind", 3),
        f("a_warp", wb),
        f("a_pc", pc),
        f("a_active", l),
        f("a_exec", l),
        f("a_served", l),
        f("a_gpc", pc),
        f("a_gmask", l),
        f("a_pcw", l),
        f("tree", 3),
        f("rearb_warp", wb),
        f("pred_we", l),
        f("pred_addr", clog2(w) + 3),
        f("pred_data", l),
        f("rf_we", l),
        f("rf_addr", clog2(hw.rf_rows as u64)),
        f("rf_data", 32 * l),
        f("sh_we", 4 * b),
        f("sh_row", clog2(hw.shared_rows as u64)),
        f("sh_data", 32 * b),
        f("rsp", 1),
        f("rsp_entry", clog2(n)),
        f("free", clog2(n + 1)),
        f("alloc", 1),
        f("start", 1),
        f("retire", 1),
        f("alloc_slot", bs),
        f("start_slot", bs),
        f("retire_slot", bs),
        f("warp_state", 3 * w as u32),
        f("trap", 1),
    ]
}

/// Bits of the whole record.
pub fn record_bits(hw: &HwParams) -> u32 {
    fields(hw).iter().map(|f| f.width).sum()
}

impl TraceRecord {
    /// The fields' words, in the order of [`fields`].
    fn words(&self) -> [&[u32]; 35] {
        [
            std::slice::from_ref(&self.state),
            std::slice::from_ref(&self.s_kind),
            std::slice::from_ref(&self.s_warp),
            std::slice::from_ref(&self.s_replay),
            std::slice::from_ref(&self.a_kind),
            std::slice::from_ref(&self.a_warp),
            std::slice::from_ref(&self.a_pc),
            std::slice::from_ref(&self.a_active),
            std::slice::from_ref(&self.a_exec),
            std::slice::from_ref(&self.a_served),
            std::slice::from_ref(&self.a_gpc),
            std::slice::from_ref(&self.a_gmask),
            std::slice::from_ref(&self.a_pcw),
            std::slice::from_ref(&self.tree),
            std::slice::from_ref(&self.rearb_warp),
            std::slice::from_ref(&self.pred_we),
            std::slice::from_ref(&self.pred_addr),
            std::slice::from_ref(&self.pred_data),
            std::slice::from_ref(&self.rf_we),
            std::slice::from_ref(&self.rf_addr),
            &self.rf_data,
            &self.sh_we,
            std::slice::from_ref(&self.sh_row),
            &self.sh_data,
            std::slice::from_ref(&self.rsp),
            std::slice::from_ref(&self.rsp_entry),
            std::slice::from_ref(&self.free),
            std::slice::from_ref(&self.alloc),
            std::slice::from_ref(&self.start),
            std::slice::from_ref(&self.retire),
            std::slice::from_ref(&self.alloc_slot),
            std::slice::from_ref(&self.start_slot),
            std::slice::from_ref(&self.retire_slot),
            &self.warp_state,
            std::slice::from_ref(&self.trap),
        ]
    }

    fn words_mut(&mut self) -> [&mut [u32]; 35] {
        [
            std::slice::from_mut(&mut self.state),
            std::slice::from_mut(&mut self.s_kind),
            std::slice::from_mut(&mut self.s_warp),
            std::slice::from_mut(&mut self.s_replay),
            std::slice::from_mut(&mut self.a_kind),
            std::slice::from_mut(&mut self.a_warp),
            std::slice::from_mut(&mut self.a_pc),
            std::slice::from_mut(&mut self.a_active),
            std::slice::from_mut(&mut self.a_exec),
            std::slice::from_mut(&mut self.a_served),
            std::slice::from_mut(&mut self.a_gpc),
            std::slice::from_mut(&mut self.a_gmask),
            std::slice::from_mut(&mut self.a_pcw),
            std::slice::from_mut(&mut self.tree),
            std::slice::from_mut(&mut self.rearb_warp),
            std::slice::from_mut(&mut self.pred_we),
            std::slice::from_mut(&mut self.pred_addr),
            std::slice::from_mut(&mut self.pred_data),
            std::slice::from_mut(&mut self.rf_we),
            std::slice::from_mut(&mut self.rf_addr),
            &mut self.rf_data,
            &mut self.sh_we,
            std::slice::from_mut(&mut self.sh_row),
            &mut self.sh_data,
            std::slice::from_mut(&mut self.rsp),
            std::slice::from_mut(&mut self.rsp_entry),
            std::slice::from_mut(&mut self.free),
            std::slice::from_mut(&mut self.alloc),
            std::slice::from_mut(&mut self.start),
            std::slice::from_mut(&mut self.retire),
            std::slice::from_mut(&mut self.alloc_slot),
            std::slice::from_mut(&mut self.start_slot),
            std::slice::from_mut(&mut self.retire_slot),
            &mut self.warp_state,
            std::slice::from_mut(&mut self.trap),
        ]
    }

    /// Warp `w`'s state code in `warp_state`.
    pub fn warp_code(&self, w: usize) -> u8 {
        let bit = 3 * w;
        let v = self.warp_state[0] as u64 | (self.warp_state[1] as u64) << 32;
        (v >> bit & 7) as u8
    }

    /// Sets warp `w`'s state code in `warp_state`.
    pub fn set_warp_code(&mut self, w: usize, code: u8) {
        let mut v = self.warp_state[0] as u64 | (self.warp_state[1] as u64) << 32;
        v = v & !(7 << (3 * w)) | ((code as u64 & 7) << (3 * w));
        self.warp_state = [v as u32, (v >> 32) as u32];
    }

    /// The record as the port's bit vector (64-bit words, bit 0 first).
    /// Panics if a field has a bit set above its width.
    pub fn pack(&self, hw: &HwParams) -> Vec<u64> {
        TraceLayout::new(hw).pack(self)
    }

    /// The record a bit vector holds (the inverse of [`TraceRecord::pack`]).
    pub fn unpack(bits: &[u64], hw: &HwParams) -> TraceRecord {
        TraceLayout::new(hw).unpack(bits)
    }
}

/// The port's layout for one core, computed once: what a harness that
/// unpacks a record every cycle keeps (the per-cycle work is then a shift
/// and a mask per 32-bit chunk of each field, not a loop over bits).
#[derive(Clone, Debug)]
pub struct TraceLayout {
    fields: Vec<TraceField>,
    bits: usize,
}

impl TraceLayout {
    pub fn new(hw: &HwParams) -> TraceLayout {
        let fields = fields(hw);
        let bits = fields.iter().map(|f| f.width as usize).sum();
        TraceLayout { fields, bits }
    }

    /// 64-bit words of the packed record.
    pub fn words(&self) -> usize {
        self.bits.div_ceil(64)
    }

    /// [`TraceRecord::pack`].
    pub fn pack(&self, record: &TraceRecord) -> Vec<u64> {
        let mut out = vec![0u64; self.words()];
        let mut at = 0usize;
        for (f, words) in self.fields.iter().zip(record.words()) {
            let width = f.width as usize;
            for (i, &word) in words.iter().enumerate() {
                let n = width.saturating_sub(32 * i).min(32);
                assert!(
                    u64::from(word) >> n == 0,
                    "tr_{} has bit {} set, wider than its {} bits",
                    f.name,
                    32 * i + (31 - word.leading_zeros() as usize),
                    f.width
                );
                if n > 0 {
                    deposit(&mut out, at + 32 * i, u64::from(word));
                }
            }
            at += width;
        }
        out
    }

    /// [`TraceRecord::unpack`].
    pub fn unpack(&self, bits: &[u64]) -> TraceRecord {
        let mut r = TraceRecord::default();
        self.unpack_into(bits, &mut r);
        r
    }

    /// [`TraceLayout::unpack`] into an existing record, for a harness that
    /// keeps one record and overwrites it every cycle. Only the words
    /// within each field's width are written: the others must already be 0
    /// (as in a record made by `TraceRecord::default` or by this function).
    pub fn unpack_into(&self, bits: &[u64], r: &mut TraceRecord) {
        let mut at = 0usize;
        for (f, words) in self.fields.iter().zip(r.words_mut()) {
            let width = f.width as usize;
            for (i, word) in words.iter_mut().enumerate().take(width.div_ceil(32)) {
                let n = (width - 32 * i).min(32);
                *word = extract(bits, at + 32 * i, n);
            }
            at += width;
        }
    }
}

/// Bits `pos .. pos + n` (`n ≤ 32`) of the vector `bits`.
fn extract(bits: &[u64], pos: usize, n: usize) -> u32 {
    let (w, o) = (pos / 64, pos % 64);
    let mut v = bits[w] >> o;
    if o + n > 64 {
        v |= bits[w + 1] << (64 - o);
    }
    (v & ((1u64 << n) - 1)) as u32
}

/// ORs `value` (at most 32 bits, already within its field) into `bits` at
/// bit `pos`.
fn deposit(bits: &mut [u64], pos: usize, value: u64) {
    let (w, o) = (pos / 64, pos % 64);
    bits[w] |= value << o;
    if o + 32 > 64 && o > 0 {
        let high = value >> (64 - o);
        if high != 0 {
            bits[w + 1] |= high;
        }
    }
}
