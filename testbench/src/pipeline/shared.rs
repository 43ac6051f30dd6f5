//! Shared memory (docs/microarchitecture.md §10.1): the banks in
//! physical order (window `k` of a resident block is bytes
//! `k · window_bytes ..`: its rows are `base_row ..`, and word `a` of the
//! window is in bank `a mod B`, row `base_row + a div B`), the M and W
//! effects of shared passes, init-slot row clears and the port rule.

use concord_isa::semantics;
use concord_isa::simt;
use concord_uarch::timing::M;

use super::item::{Item, Late, RegWrite};
use super::{lanes_of, Pipeline};

impl Pipeline {
    fn read_le(&self, addr: usize, bytes: u32) -> u32 {
        let mut v = 0u32;
        for j in 0..bytes as usize {
            v |= (self.shared[addr + j] as u32) << (8 * j);
        }
        v
    }

    fn write_le(&mut self, addr: usize, bytes: u32, value: u32) {
        for j in 0..bytes as usize {
            self.shared[addr + j] = (value >> (8 * j)) as u8;
            self.trace_shared_byte(addr + j, (value >> (8 * j)) as u8);
        }
    }

    /// `tr_sh_*` (§15.2): a byte written at physical byte address `addr`.
    /// A later write of the same byte in the cycle (a higher lane of one
    /// store) replaces it: the trace shows the byte the bank keeps.
    fn trace_shared_byte(&mut self, addr: usize, byte: u8) {
        let b = self.hw.shared_banks;
        let bank = addr / 4 % b;
        let e = bank * 4 + addr % 4;
        let shift = 8 * (addr % 4);
        self.tr.sh_row = (addr >> self.hw.shared_row_shift) as u32;
        self.tr.sh_we[e / 32] |= 1 << (e % 32);
        self.tr.sh_data[bank] =
            (self.tr.sh_data[bank] & !(0xff << shift)) | ((byte as u32) << shift);
    }

    /// The port rule (§10.1): a shared pass or a row clear at A is refused
    /// when the item in M is a shared atomic pass that served a lane.
    pub(crate) fn shared_port_busy(&self) -> bool {
        matches!(&self.stages[M], Item::Pass(p) if matches!(p.late, Late::SharedAtomic { .. }))
    }

    /// Zeroes physical row `row` in every bank.
    pub(crate) fn clear_row(&mut self, row: usize) {
        let width = 4 * self.hw.shared_banks;
        self.shared[row * width..(row + 1) * width].fill(0);
        for a in row * width..(row + 1) * width {
            self.trace_shared_byte(a, 0);
        }
    }

    pub(crate) fn write_rf(&mut self, w: &RegWrite) {
        if let Some(row) = self.rf.get_mut(w.row) {
            for l in lanes_of(w.lanes) {
                row[l] = w.values[l];
                self.tr.rf_data[l] = w.values[l];
            }
            self.tr.rf_we = w.lanes;
            self.tr.rf_addr = w.row as u32;
        }
    }

    /// Stage M of a committed pass.
    pub(crate) fn late_m(&mut self, late: &mut Late, now: u64) {
        match late {
            Late::SharedLoad {
                lanes,
                addrs,
                width,
                values,
                ..
            } => {
                for l in lanes_of(*lanes) {
                    let raw = self.read_le(addrs[l], width.bytes());
                    values[l] = semantics::load_extend(*width, raw);
                }
            }
            Late::SharedStore {
                lanes,
                addrs,
                data,
                width,
            } => {
                let mut a = [0u32; 32];
                for l in lanes_of(*lanes) {
                    a[l] = addrs[l] as u32;
                }
                let mut bytes = Vec::new();
                simt::store_merge(*lanes, &a, data, *width, |addr, byte| {
                    bytes.push((addr as usize, byte));
                });
                for (addr, byte) in bytes {
                    self.shared[addr] = byte;
                    self.trace_shared_byte(addr, byte);
                }
            }
            Late::SharedAtomic { addr, old, .. } => *old = self.read_le(*addr, 4),
            Late::Entry(id) => self.entry_written(*id, now),
            Late::None | Late::Reg(_) => {}
        }
    }

    /// Stage W of a committed pass.
    pub(crate) fn late_w(&mut self, late: &Late) {
        match late {
            Late::Reg(w) => self.write_rf(w),
            Late::SharedLoad {
                row, lanes, values, ..
            } => self.write_rf(&RegWrite {
                row: *row,
                lanes: *lanes,
                values: *values,
            }),
            Late::SharedAtomic {
                row,
                lane,
                addr,
                op,
                operand,
                old,
            } => {
                let new = semantics::atomic(*op, *old, *operand);
                self.write_le(*addr, 4, new);
                let mut values = [0u32; 32];
                values[*lane] = *old;
                self.write_rf(&RegWrite {
                    row: *row,
                    lanes: 1 << lane,
                    values,
                });
            }
            _ => {}
        }
    }
}
