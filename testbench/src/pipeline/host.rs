//! The Wishbone host slave (docs/microarchitecture.md §14.3, §14.4):
//! the launch registers, `CTRL`, the read side (`STATUS`, `LAUNCH`,
//! `WINDOW`, `WSTATE*`, `HWCFG*`, `ID`, the trap registers, the counters
//! with their high-word snapshot, the debug registers) and `START` (§12.1:
//! SETUP, refusal). Addresses, access, write gates and bit fields are
//! `concord_uarch::regmap`'s; this file only says what each register
//! holds in the model.

use concord_isa::checks::Stacks;
use concord_isa::config::{ArbiterMode, Scheduler};
use concord_isa::func::{Trap, TrapCause};
use concord_uarch::regmap::{
    self, wstate_encode, Ctrl, HwConfig, LaunchWord, MapOptions, Status, V2Values, WriteGate,
};
use concord_uarch::trap::{address_register, cause_register, detail_register};
use concord_uarch::wishbone::{Signals, MAX_BUS_WORDS};
use concord_uarch::{Counters, LaunchShape, Occupancy};

use super::global::GlobalUnit;
use super::launch::LaunchUnit;
use super::warp::{Slot, WarpState};
use super::{CoreState, Pipeline};

/// What the trap registers hold (§13.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TrapRegs {
    pub cause: u32,
    pub pc: u32,
    pub warp: u32,
    pub lanes: u32,
    pub block: [u32; 3],
    pub addr: u32,
    pub detail: u32,
    pub arrived: u32,
    pub exited: u32,
    pub threads: u32,
}

/// The host-visible registers.
#[derive(Clone, Debug)]
pub(crate) struct HostRegs {
    pub imem: Vec<u32>,
    pub entry_pc: u32,
    pub code_len: u32,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub param_count: u32,
    pub stack_bytes: u32,
    pub shared_bytes: u32,
    pub clear_regs: u32,
    pub clear_shared: u32,
    pub params: [u32; regmap::PARAM_WORDS as usize],
    pub halt: bool,
    pub write_ignored: bool,
    pub refused: bool,
    /// Why the launch in SETUP will be refused at its end.
    pub refusal: Option<String>,
    /// The last refusal's reason (for a caller's report).
    pub last_refusal: Option<String>,
    /// `COUNTER[k]` high-word snapshot.
    pub snapshot: u32,
    pub dbg_warp: u32,
    pub dbg_lane: u32,
    pub trap: TrapRegs,
    /// The answer registered for the next cycle (`ack`, `dat_o`).
    pub response: Option<u32>,
}

impl HostRegs {
    pub fn new(imem_words: usize) -> HostRegs {
        HostRegs {
            imem: vec![0; imem_words],
            entry_pc: 0,
            code_len: 0,
            grid: [0; 3],
            block: [0; 3],
            param_count: 0,
            stack_bytes: 0,
            shared_bytes: 0,
            clear_regs: 0,
            clear_shared: 0,
            params: [0; regmap::PARAM_WORDS as usize],
            halt: false,
            write_ignored: false,
            refused: false,
            refusal: None,
            last_refusal: None,
            snapshot: 0,
            dbg_warp: 0,
            dbg_lane: 0,
            trap: TrapRegs::default(),
            response: None,
        }
    }
}

/// A host write of `value` to `adr` during one cycle (the master's side).
pub fn host_write(adr: u32, value: u32) -> Signals {
    let mut s = Signals {
        cyc: true,
        stb: true,
        we: true,
        adr,
        ..Signals::idle()
    };
    s.dat_w[0] = value;
    s
}

/// A host read of `adr` during one cycle (the master's side).
pub fn host_read(adr: u32) -> Signals {
    Signals {
        cyc: true,
        stb: true,
        adr,
        ..Signals::idle()
    }
}

impl CoreState {
    /// `tr_state` and `STATUS.state` (§15.2).
    pub fn code(self) -> u8 {
        match self {
            CoreState::Idle => 0,
            CoreState::Setup => 1,
            CoreState::Run => 2,
            CoreState::Stopping => 3,
            CoreState::Done => 4,
            CoreState::Trap => 5,
        }
    }

    /// `IDLE`, `DONE`, `TRAP`: host writes are accepted (§14.3).
    pub fn accepts_writes(self) -> bool {
        matches!(self, CoreState::Idle | CoreState::Done | CoreState::Trap)
    }
}

impl Pipeline {
    /// One clock cycle with the host port's inputs `host` (`wbs_cyc_i` …
    /// `wbs_dat_i`; its slave fields are ignored). Returns the host port's
    /// record of the cycle: `host` with the slave's registered outputs
    /// (§14.3: the `ACK` of the request of the previous cycle, and for a
    /// read the register's value during that cycle; `stall` 0).
    pub fn cycle(&mut self, host: &Signals) -> Signals {
        let mut port = Signals {
            dat_r: [0; MAX_BUS_WORDS],
            ack: false,
            err: false,
            stall: false,
            ..*host
        };
        if let Some(d) = self.host.response.take() {
            port.ack = true;
            port.dat_r[0] = d;
        }
        let request = host.cyc && host.stb;
        let state = self.state;
        // A read returns the value during this cycle (start-of-cycle state).
        let read = (request && !host.we).then(|| self.read_register(host.adr));
        self.step();
        if request {
            if host.we {
                // A write takes effect at the end of the cycle.
                self.write_register(host.adr, host.dat_w[0], state);
            }
            self.host.response = Some(read.unwrap_or(0));
        }
        if let Some(checker) = self.host_checker.as_mut() {
            for v in checker.step(&port) {
                self.bus_violations.push(format!("host port: {v}"));
            }
        }
        port
    }

    /// Gives the core's global-memory port the testbench memory holding
    /// `bytes`.
    pub fn set_global(&mut self, bytes: Vec<u8>) {
        self.memory = super::WishboneMemory::new(bytes, &self.hw);
    }

    /// The testbench memory (its image, `ERR` injection).
    pub fn memory_mut(&mut self) -> &mut super::WishboneMemory {
        &mut self.memory
    }

    /// Checks both ports with the §20 protocol checkers from now on.
    pub fn check_ports(&mut self) {
        self.host_checker = Some(concord_uarch::wishbone::Checker::host_slave("wbs"));
        let max = (self.hw.global_outstanding * self.hw.global_beats) as u32;
        self.bus_checker = Some(concord_uarch::wishbone::Checker::master("gm", max));
    }

    /// Protocol violations found so far (both ports).
    pub fn violations(&self) -> &[String] {
        &self.bus_violations
    }

    /// Whether the host will see `ACK` in the next cycle.
    pub fn host_pending(&self) -> bool {
        self.host.response.is_some()
    }

    /// Why the last launch was refused (`STATUS.refused`).
    pub fn refusal(&self) -> Option<&str> {
        self.host.last_refusal.as_deref()
    }

    fn map_options(&self) -> MapOptions {
        MapOptions::new(
            &self.hw,
            self.config.max_resident_blocks,
            self.gen.debug_regs,
        )
    }

    fn hwcfg(&self) -> [u32; 5] {
        HwConfig::new(
            &self.hw,
            &V2Values {
                scheduler_gto: self.hw.scheduler == Scheduler::Gto,
                arbiter_split: self.hw.arbiter == ArbiterMode::Split,
                max_resident_blocks: self.config.max_resident_blocks,
                global_outstanding: self.hw.global_outstanding as u32,
                global_bus_bytes: self.hw.global_bus_bytes,
                counter_bits: self.gen.counter_bits,
                trace: self.gen.trace,
                debug_regs: self.gen.debug_regs,
            },
        )
        .encode()
    }

    /// `STATUS` during this cycle.
    pub fn status(&self) -> Status {
        Status {
            running: !self.state.accepts_writes(),
            done: self.state == CoreState::Done,
            trapped: self.state == CoreState::Trap,
            write_ignored: self.host.write_ignored,
            refused: self.host.refused,
            // §14.4, §15.3: HALT set and nothing in flight (no item in
            // S..W, no entry in use).
            halted: self.host.halt
                && self
                    .stages
                    .iter()
                    .all(|i| matches!(i, super::item::Item::Bubble))
                && self.global.idle(),
            state: self.state.code(),
        }
    }

    /// Whether `DBG_LANE_PC` names a stored lane pc (§14.4): the selected
    /// lane is alive and outside its warp's group. Any other lane's pc
    /// lives in the group, its LUT-RAM word is whatever an earlier launch
    /// left there, and the register's value is unspecified.
    pub fn dbg_lane_pc_stored(&self) -> bool {
        let dbg_warp = (self.host.dbg_warp as usize).min(self.warps.len() - 1);
        let w = &self.warps[dbg_warp];
        let l = (self.host.dbg_lane as usize).min(31);
        (w.alive & !w.gmask) >> l & 1 == 1
    }

    /// The value a host read of `adr` returns for this cycle (and the
    /// snapshot a `COUNTER[k]` low read latches).
    fn read_register(&mut self, adr: u32) -> u32 {
        let Some((reg, i)) = regmap::decode(adr, &self.map_options()) else {
            return 0;
        };
        if !reg.access.readable() {
            return 0;
        }
        let t = &self.host.trap;
        let dbg_warp = (self.host.dbg_warp as usize).min(self.warps.len() - 1);
        let w = &self.warps[dbg_warp];
        let value = match reg.addr {
            regmap::CTRL => Ctrl::read_value(self.host.halt),
            regmap::ID => regmap::ID_VALUE,
            a if (regmap::HWCFG..regmap::HWCFG + 5).contains(&a) => {
                self.hwcfg()[(a - regmap::HWCFG) as usize]
            }
            regmap::STATUS => self.status().encode(),
            regmap::LAUNCH => LaunchWord {
                threads: self.occ.threads,
                nwarps: self.occ.nwarps,
                resident: self.occ.resident,
            }
            .encode(),
            regmap::WINDOW => self.occ.window_bytes,
            regmap::WSTATE0 | regmap::WSTATE1 => {
                let codes: Vec<u8> = self.warp_codes().iter().map(|c| *c as u8).collect();
                wstate_encode(&codes)[(reg.addr - regmap::WSTATE0) as usize]
            }
            regmap::TRAP_CAUSE => t.cause,
            regmap::TRAP_PC => t.pc,
            regmap::TRAP_WARP => t.warp,
            regmap::TRAP_LANES => t.lanes,
            regmap::TRAP_BLOCK_X => t.block[0],
            regmap::TRAP_BLOCK_Y => t.block[1],
            regmap::TRAP_BLOCK_Z => t.block[2],
            regmap::TRAP_ADDR => t.addr,
            regmap::TRAP_DETAIL => t.detail,
            regmap::TRAP_ARRIVED => t.arrived,
            regmap::TRAP_EXITED => t.exited,
            regmap::TRAP_THREADS => t.threads,
            regmap::COUNTER_LO => {
                let v = self.counters.values[i as usize];
                self.host.snapshot = (v >> 32) as u32;
                v as u32
            }
            regmap::COUNTER_HI => self.host.snapshot,
            regmap::DBG_WARP => self.host.dbg_warp,
            regmap::DBG_GROUP => w.gpc | w.gdepth << 16,
            regmap::DBG_GMASK => w.gmask,
            regmap::DBG_ALIVE => w.alive,
            regmap::DBG_WAITING => w.waiting,
            regmap::DBG_FLAGS => {
                w.busy_i as u32
                    | (w.busy_r as u32) << 1
                    | (w.replay as u32) << 2
                    | (w.rearb as u32) << 3
                    | w.outstanding << 4
                    | (w.wslot.unwrap_or(0) as u32) << 16
                    | w.wib << 24
            }
            regmap::DBG_LANE => self.host.dbg_lane,
            regmap::DBG_LANE_PC => {
                let l = (self.host.dbg_lane as usize).min(31);
                w.pc[l] | w.depth[l] << 16
            }
            regmap::DBG_QUEUE => {
                let [free, send, response, ret] = self.global.queue_counts();
                free | send << 8 | response << 16 | ret << 24
            }
            regmap::DBG_SLOT => match self.slots.get(i as usize) {
                Some(s) => s.state as u32 | s.arrived << 4 | s.exited << 16,
                None => 0,
            },
            _ => 0,
        };
        value & reg.mask()
    }

    /// A host write of `value` to `adr` at the end of a cycle in `state`.
    fn write_register(&mut self, adr: u32, value: u32, state: CoreState) {
        let Some((reg, i)) = regmap::decode(adr, &self.map_options()) else {
            return;
        };
        if !reg.access.writable() {
            return;
        }
        let v = value & reg.mask();
        let open = state.accepts_writes();
        if reg.addr == regmap::CTRL {
            let c = Ctrl::decode(v);
            self.host.halt = c.halt;
            if c.start {
                if open {
                    self.start();
                } else {
                    self.host.write_ignored = true;
                }
            }
            return;
        }
        if reg.gate == WriteGate::NotRunning && !open {
            self.host.write_ignored = true;
            return;
        }
        let h = &mut self.host;
        match reg.addr {
            regmap::IMEM => h.imem[i as usize] = v,
            regmap::ENTRY_PC => h.entry_pc = v,
            regmap::CODE_LEN => h.code_len = v,
            a @ regmap::GRID_X..=regmap::GRID_Z => h.grid[(a - regmap::GRID_X) as usize] = v,
            a @ regmap::BLOCK_X..=regmap::BLOCK_Z => h.block[(a - regmap::BLOCK_X) as usize] = v,
            regmap::PARAM_COUNT => h.param_count = v,
            regmap::STACK_BYTES => h.stack_bytes = v,
            regmap::SHARED_BYTES => h.shared_bytes = v,
            regmap::CLEAR_REGS => h.clear_regs = v,
            regmap::CLEAR_SHARED => h.clear_shared = v,
            regmap::PARAM => h.params[i as usize] = v,
            regmap::DBG_WARP => h.dbg_warp = v,
            regmap::DBG_LANE => h.dbg_lane = v,
            _ => {}
        }
    }

    /// `CTRL.START` accepted (§12.1): clears the counters and the sticky
    /// status bits, loads the launch from the registers and enters SETUP;
    /// a launch SETUP will refuse is remembered and ends in `IDLE`.
    pub(crate) fn start(&mut self) {
        let h = &self.host;
        let shape = LaunchShape {
            block: h.block,
            grid: h.grid,
            shared_bytes: h.shared_bytes,
            stack_bytes: h.stack_bytes,
            clear_regs: h.clear_regs,
            clear_shared: h.clear_shared,
        };
        let occ = Occupancy::new(&self.hw, &shape);
        let i = self.hw.imem_words as u32;
        let refusal = match &occ {
            Err(e) => Some(e.to_string()),
            Ok(_) if h.code_len == 0 || h.code_len > i => {
                Some(format!("CODE_LEN {} is 0 or above {i}", h.code_len))
            }
            Ok(_) if h.entry_pc >= 1 << 16 => Some(format!("ENTRY_PC {}", h.entry_pc)),
            Ok(_) if h.param_count > regmap::PARAM_WORDS => {
                Some(format!("PARAM_COUNT {} is above 16", h.param_count))
            }
            Ok(_) => None,
        };
        self.counters = Counters::new(self.gen.counter_bits);
        self.host.write_ignored = false;
        self.host.refused = false;
        self.state = CoreState::Setup;
        self.setup_left = concord_uarch::timing::SETUP_CYCLES;
        self.rr = 0;
        self.last = None;
        match occ {
            Ok(occ) if refusal.is_none() => {
                let h = &self.host;
                self.occ = occ;
                self.code = h.imem[..h.code_len as usize].to_vec();
                self.instrs = self
                    .code
                    .iter()
                    .map(|w| concord_isa::decode(*w).map_err(|e| e.to_string()))
                    .collect();
                self.entry_pc = h.entry_pc;
                self.grid = h.grid;
                self.block = h.block;
                self.params = h.params[..h.param_count as usize].to_vec();
                self.stacks = Stacks::new(&self.config, h.stack_bytes);
                let total = h.grid.iter().map(|&d| d as u64).product();
                self.launch = LaunchUnit::new(total);
                self.warps = vec![WarpState::default(); self.hw.warps];
                self.slots = vec![Slot::default(); self.hw.block_slots];
                self.stages = Default::default();
                self.engine_key = None;
                self.global = GlobalUnit::new(&self.hw);
                self.held = None;
                self.issued_instructions = 0;
                self.last_block = None;
            }
            _ => {
                let threads = self
                    .host
                    .block
                    .iter()
                    .map(|&d| d as u64)
                    .product::<u64>()
                    .min(1 << 16) as u32;
                self.occ = refused_occupancy(threads, self.hw.lanes as u32);
            }
        }
        self.host.refusal = refusal;
    }

    /// The end of SETUP: `RUN`, or `IDLE` with `STATUS.refused`.
    pub(crate) fn setup_done(&mut self) {
        match self.host.refusal.take() {
            Some(why) => {
                self.state = CoreState::Idle;
                self.host.refused = true;
                self.host.last_refusal = Some(why);
            }
            None => self.state = CoreState::Run,
        }
    }

    /// What the report registers take at the end of this cycle, the one
    /// after the held trap was raised (§13.3): the trap, the slot's
    /// `arrived` and `exited`, and for cause 7 the pc of the lowest waiting
    /// lane as the lane-PC LUT-RAM holds it now.
    pub(crate) fn trap_report(&self) -> Option<TrapRegs> {
        let (slot, trap) = self.held.as_ref()?;
        let mut regs = trap_regs(trap, &self.slots[*slot], self.occ.threads);
        if let TrapCause::BarrierNeverCompletes { .. } = trap.cause {
            let warp = &self.warps[*slot * self.occ.nwarps as usize + trap.warp as usize];
            regs.pc = warp.pc[trap.lanes.trailing_zeros().min(31) as usize];
        }
        Some(regs)
    }
}

fn trap_regs(t: &Trap, slot: &Slot, threads: u32) -> TrapRegs {
    TrapRegs {
        cause: cause_register(&t.cause),
        pc: t.pc,
        warp: t.warp,
        lanes: t.lanes,
        block: t.block,
        addr: address_register(&t.cause),
        detail: detail_register(&t.cause),
        arrived: slot.arrived,
        exited: slot.exited,
        threads,
    }
}

/// `LAUNCH` and `WINDOW` of a refused launch: `threads` and `nwarps` as
/// SETUP computes them, nothing resident.
fn refused_occupancy(threads: u32, lanes: u32) -> Occupancy {
    Occupancy {
        threads,
        nwarps: threads.div_ceil(lanes),
        resident: 0,
        window_rows: 0,
        window_bytes: 0,
        clear_regs: 0,
        clear_rows: 0,
        n_init: 0,
    }
}
