//! The host interface (docs/microarchitecture.md §9; the register map is
//! `concord_uarch::host`).

use concord_uarch::trap;
use concord_uarch::Counter;

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
        if self.state.is_running() {
            return;
        }
        let addr = addr & host::ADDR_MASK;
        match addr {
            a if (host::IMEM..host::IMEM + host::IMEM_WINDOW).contains(&a) => {
                let i = (a - host::IMEM) as usize;
                if let Some(word) = self.imem.get_mut(i) {
                    *word = data;
                    self.decoded[i] = Slot::Unknown;
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
        let raddr = raddr & host::RADDR_MASK;
        let trap = self.trap.as_ref();
        let field = |f: &dyn Fn(&concord_isa::func::Trap) -> u32| trap.map_or(0, f);
        match raddr {
            host::STATUS => {
                let mut status = 0;
                if self.state.is_running() {
                    status |= host::STATUS_RUNNING;
                }
                if self.state == State::Done {
                    status |= host::STATUS_DONE;
                }
                if self.state == State::Trap {
                    status |= host::STATUS_TRAPPED;
                }
                status
            }
            host::TRAP_CAUSE => field(&|t| trap::cause_register(&t.cause)),
            host::TRAP_PC => field(&|t| t.pc),
            host::TRAP_WARP => field(&|t| t.warp),
            host::TRAP_LANES => field(&|t| t.lanes),
            a if (host::TRAP_BLOCK..host::TRAP_BLOCK + 3).contains(&a) => {
                field(&|t| t.block[(a - host::TRAP_BLOCK) as usize])
            }
            host::TRAP_ADDR => field(&|t| trap::address_register(&t.cause)),
            host::TRAP_DETAIL => field(&|t| trap::detail_register(&t.cause)),
            host::ARRIVED => self.arrived,
            host::EXITED => self.exited,
            host::THREADS => self.threads,
            a if (host::COUNTERS..host::COUNTERS + 2 * Counter::COUNT as u32).contains(&a) => {
                let k = (a - host::COUNTERS) as usize / 2;
                let v = self.counters[k];
                if (a - host::COUNTERS) % 2 == 0 {
                    v as u32
                } else {
                    (v >> 32) as u32
                }
            }
            _ => 0,
        }
    }
}
