//! The host interface (docs/microarchitecture.md §9).

use concord_isa::func::TrapCause;

use super::{CycleModel, Slot};
use crate::host;
use crate::trace::{Counters, State};

impl CycleModel {
    /// One host-write cycle (`host_we` = 1, `host_addr` 18 bits,
    /// `host_wdata`), clock edge included: the write has taken effect when
    /// this returns. Accepted in `IDLE`, `DONE` and `TRAP`, ignored in any
    /// other state. Writing `start` (`0x200FF`) enters `INIT` with the
    /// counters cleared, `block_id = 0` and `threads = bx * by * bz`.
    pub fn host_write(&mut self, addr: u32, data: u32) {
        if !matches!(self.state, State::Idle | State::Done | State::Trap) {
            return;
        }
        let addr = addr & 0x3_ffff;
        match addr {
            a if a < host::ENTRY_PC => {
                if let Some(word) = self.imem.get_mut(a as usize) {
                    *word = data;
                    self.decoded[a as usize] = Slot::Unknown;
                }
            }
            host::ENTRY_PC => self.entry_pc = data,
            host::CODE_LEN => self.code_len = data,
            a if (host::GRID..host::GRID + 3).contains(&a) => {
                self.grid[(a - host::GRID) as usize] = data
            }
            a if (host::BLOCK..host::BLOCK + 3).contains(&a) => {
                self.block[(a - host::BLOCK) as usize] = data
            }
            host::PARAM_COUNT => self.param_count = data,
            host::STACK_BYTES => self.stack_bytes = data,
            a if (host::PARAM..host::PARAM + host::MAX_PARAMS as u32).contains(&a) => {
                self.params[(a - host::PARAM) as usize] = data
            }
            host::START => {
                self.counters = [0; Counters::COUNT];
                self.block_id = [0; 3];
                let [x, y, z] = self.block;
                self.threads = x.wrapping_mul(y).wrapping_mul(z);
                self.init_i = 0;
                self.state = State::Init;
            }
            _ => {}
        }
    }

    /// `host_rdata` for `host_raddr` (8 bits), combinational.
    pub fn host_read(&self, raddr: u32) -> u32 {
        let raddr = raddr & 0xff;
        let trap = self.trap.as_ref();
        let field = |f: &dyn Fn(&concord_isa::func::Trap) -> u32| trap.map_or(0, f);
        match raddr {
            0 => {
                let running = !matches!(self.state, State::Idle | State::Done | State::Trap);
                running as u32
                    | ((self.state == State::Done) as u32) << 1
                    | ((self.state == State::Trap) as u32) << 2
            }
            1 => field(&|t| t.cause.code().unwrap_or(0)),
            2 => field(&|t| t.pc),
            3 => field(&|t| t.warp),
            4 => field(&|t| t.lanes),
            5..=7 => field(&|t| t.block[(raddr - 5) as usize]),
            8 => field(&|t| match t.cause {
                TrapCause::AddressOutOfRange { addr, .. }
                | TrapCause::Misaligned { addr, .. }
                | TrapCause::StackOverflow { addr, .. } => addr,
                TrapCause::NextPcOutOfRange { target, .. } => target,
                _ => 0,
            }),
            9 => field(&|t| match t.cause {
                TrapCause::InvalidInstruction { word, .. } => word,
                TrapCause::MissingParam { index, .. } => index as u32,
                TrapCause::AddressOutOfRange { bytes, .. }
                | TrapCause::Misaligned { bytes, .. }
                | TrapCause::StackOverflow { bytes, .. } => bytes,
                _ => 0,
            }),
            10 => self.arrived,
            11 => self.exited,
            12 => self.threads,
            16..=37 => {
                let k = (raddr - 16) as usize / 2;
                let v = self.counters[k];
                if raddr % 2 == 0 {
                    v as u32
                } else {
                    (v >> 32) as u32
                }
            }
            _ => 0,
        }
    }
}
