//! A whole launch on the Core v2 RTL alone, driven through its host port
//! as a host processor would drive the board (docs/microarchitecture.md
//! §14.3, §14.4): the launch registers, the program and the parameters
//! written, `CTRL.START`, then idle host cycles until `done_o` or
//! `trapped_o`, then `STATUS`, the trap report and every counter read back
//! through the slave. Global memory is the testbench memory of §10.4.
//!
//! It sits beside [`crate::lockstep`], which runs the same launch with the
//! cycle model beside the RTL and compares every cycle; this runner has no
//! model, so it measures the RTL's own simulation speed (`concord bench
//! --core`) and runs launches too long for lock-step. Its results are
//! only as trustworthy as the lock-step tiers that cover the core.

use concord_isa::config::CoreConfig;
use concord_uarch::counters::{Counters, TABLE};
use concord_uarch::regmap::{self, Status};
use concord_uarch::wishbone::Signals;
use concord_uarch::HwParams;

use super::v2::{RtlV2, V2Cycle};
use crate::lockstep::OnCycle;
use crate::pipeline::{host_read, host_write, PipelineLaunch, WishboneMemory};

/// How a standalone run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RtlV2Outcome {
    /// Every counter, read through the host port after the end.
    pub counters: Counters,
    /// `STATUS` after the end.
    pub status: Status,
    /// `TRAP_CAUSE` (§13.1's code) when the core trapped.
    pub trap_cause: Option<u32>,
    /// Clock cycles from the first host write to the end, read-back
    /// excluded.
    pub cycles: u64,
}

/// Host cycles a single register access may wait for its `ACK` before the
/// run reports a hung slave (§14.3 answers in the next cycle).
const ACK_WAIT: u32 = 16;

/// Drives `rtl`, the core of `config`, through the host port.
struct Host<'a> {
    rtl: &'a mut RtlV2,
    memory: WishboneMemory,
    hook: Option<OnCycle<'a>>,
    /// Cycles run, from the first host write.
    cycle: u64,
}

impl Host<'_> {
    fn cycle(&mut self, host: &Signals) -> Result<V2Cycle, String> {
        let c = self.rtl.cycle(host, &mut self.memory);
        if let Some(hook) = self.hook.as_mut() {
            hook(self.cycle, c.trace.as_ref())?;
        }
        self.cycle += 1;
        Ok(c)
    }

    /// One write, repeated while the slave stalls it.
    fn write(&mut self, adr: u32, value: u32) -> Result<(), String> {
        let request = host_write(adr, value);
        for _ in 0..ACK_WAIT {
            if !self.cycle(&request)?.host.stall {
                return Ok(());
            }
        }
        Err(format!(
            "the host slave stalled a write to {adr:#x} for {ACK_WAIT} cycles"
        ))
    }

    /// One read: the request, then cycles with `CYC` held until `ACK`.
    fn read(&mut self, adr: u32) -> Result<u32, String> {
        let request = host_read(adr);
        let mut accepted = false;
        for _ in 0..ACK_WAIT {
            if !self.cycle(&request)?.host.stall {
                accepted = true;
                break;
            }
        }
        if !accepted {
            return Err(format!(
                "the host slave stalled a read of {adr:#x} for {ACK_WAIT} cycles"
            ));
        }
        let hold = Signals {
            cyc: true,
            ..Signals::idle()
        };
        for _ in 0..ACK_WAIT {
            let answer = self.cycle(&hold)?.host;
            if answer.ack {
                return Ok(answer.dat_r[0]);
            }
        }
        Err(format!(
            "the host slave did not acknowledge a read of {adr:#x} within {ACK_WAIT} cycles"
        ))
    }
}

/// Runs `launch` on `rtl` (the Core v2 RTL of `config`; reset first) with
/// `global` as the initial global memory, which holds the final memory on
/// return. A launch that reaches neither `DONE` nor `TRAP` within
/// `max_cycles` cycles after `START` is an error (the core's own watchdog,
/// §13.4, normally traps long before).
pub fn run(
    rtl: &mut RtlV2,
    config: &CoreConfig,
    launch: &PipelineLaunch<'_>,
    global: &mut Vec<u8>,
    max_cycles: u64,
) -> Result<RtlV2Outcome, String> {
    run_hooked(rtl, config, launch, global, max_cycles, None)
}

/// [`run`], with `hook` called after every cycle (host cycles included),
/// as in [`crate::lockstep::run_hooked`]; its error ends the run.
pub fn run_hooked<'a>(
    rtl: &'a mut RtlV2,
    config: &CoreConfig,
    launch: &PipelineLaunch<'_>,
    global: &mut Vec<u8>,
    max_cycles: u64,
    hook: Option<OnCycle<'a>>,
) -> Result<RtlV2Outcome, String> {
    let hw = HwParams::new(config).map_err(|e| e.to_string())?;
    if rtl.hw() != &hw {
        return Err("the RTL model was built for another configuration".into());
    }
    rtl.reset();
    // Without a hook nobody reads the trace record: skip unpacking it.
    rtl.set_unpack_trace(hook.is_some());
    let memory = WishboneMemory::new(std::mem::take(global), &hw);
    let mut host = Host {
        rtl,
        memory,
        hook,
        cycle: 0,
    };
    let writes = launch.host_writes();
    let result = (|| {
        for (adr, value) in writes {
            host.write(adr, value)?;
        }
        let started = host.rtl.cycles();
        loop {
            let pins = host.cycle(&Signals::idle())?.pins;
            if pins.done || pins.trapped {
                break;
            }
            if host.rtl.cycles() - started > max_cycles {
                return Err(format!(
                    "the core reached neither DONE nor TRAP within {max_cycles} cycles of START"
                ));
            }
        }
        let cycles = host.rtl.cycles();
        let status = Status::decode(host.read(regmap::STATUS)?);
        if status.refused {
            return Err("the core refused the launch (STATUS.refused)".into());
        }
        let trap_cause = if status.trapped {
            Some(host.read(regmap::TRAP_CAUSE)?)
        } else {
            None
        };
        let mut counters = Counters::new(host.rtl.gen().counter_bits);
        for row in TABLE {
            let k = row.counter.index() as u32;
            let lo = host.read(regmap::COUNTER_LO + 2 * k)?;
            let hi = host.read(regmap::COUNTER_HI + 2 * k)?;
            counters.add(row.counter, u64::from(lo) | u64::from(hi) << 32);
        }
        Ok(RtlV2Outcome {
            counters,
            status,
            trap_cause,
            cycles,
        })
    })();
    *global = std::mem::take(&mut host.memory.bytes);
    host.rtl.set_unpack_trace(true);
    result
}
