//! Lock-step co-simulation: the cycle model and the RTL (through Verilator)
//! run the same launch; their trace ports are compared on every cycle, and
//! the final state of both is compared with the functional model.
//!
//! The first differing cycle is reported with the warp and both trace-port
//! records side by side, plus the cycles just before it. Any difference is a
//! bug in one of the two models, never a tolerance.

use std::collections::VecDeque;
use std::fmt;
use std::ops::ControlFlow;

use concord_isa::config::CoreConfig;
use concord_isa::func::{self, BlockView, Launch, Observer, RunError, Trap};

use crate::cycle::{CycleModel, GlobalMemory};
use crate::host::{launch_writes, START};
use crate::trace::{Counters, State, TracePort};
use crate::verilator::Rtl;

/// How many cycles before a mismatch the report shows.
const CONTEXT: usize = 6;

/// The first cycle on which the two trace ports differ.
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub cycle: u64,
    pub model: TracePort,
    pub rtl: TracePort,
    /// The cycle model's trace for the cycles just before.
    pub before: Vec<(u64, TracePort)>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "cycle model and RTL differ at cycle {} (warp {}):",
            self.cycle, self.model.warp
        )?;
        writeln!(f, "  {:<10} {:<28} {:<28}", "field", "cycle model", "RTL")?;
        for (name, m, r) in self.model.diff(&self.rtl) {
            writeln!(f, "  {name:<10} {m:<28} {r:<28}")?;
        }
        writeln!(f, "  cycle model: {}", self.model)?;
        writeln!(f, "  RTL:         {}", self.rtl)?;
        if !self.before.is_empty() {
            writeln!(f, "  the cycles before (identical in both):")?;
            for (c, t) in &self.before {
                writeln!(f, "    {c}: {t}")?;
            }
        }
        Ok(())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CosimError {
    #[error("{0}")]
    Mismatch(Box<Mismatch>),
    #[error("final state differs: {0}")]
    Final(String),
    #[error("{0}")]
    Setup(String),
    /// More than the watchdog's warp-instructions issued: the report of
    /// `concord_isa::watchdog`, from the cycle model's state, which the RTL
    /// matched on every cycle up to it and through the diagnosis window.
    #[error("{trap}")]
    Watchdog { trap: Box<Trap> },
    /// The per-cycle hook broke before the launch ended: the run ended
    /// after that cycle, without the final comparisons. The cycle model's
    /// counters up to there.
    #[error("the run was stopped by its per-cycle hook after {} cycles", counters.cycles)]
    Stopped { counters: Counters },
}

/// What a co-simulated launch ended with (identical in both models).
#[derive(Clone, Debug)]
pub struct Outcome {
    pub counters: Counters,
    /// `Err` when the launch trapped (the same report on both models and
    /// on the functional model).
    pub result: Result<(), Trap>,
    pub global: Vec<u8>,
}

struct LastBlock {
    threads: usize,
    regs: Vec<[u32; 32]>,
}

impl Observer for LastBlock {
    fn block_end(&mut self, _block: [u32; 3], state: &BlockView<'_>) {
        self.regs = (0..self.threads)
            .map(|t| {
                std::array::from_fn(|r| {
                    state.reg(t, concord_isa::Reg::new(r as u8).expect("r < 32"))
                })
            })
            .collect();
    }
}

/// The per-cycle callback: cycle number and the (identical) trace port.
/// `Break` ends the run after that cycle ([`CosimError::Stopped`]), unless
/// the cycle model is then done or trapped: the run then ends as it would
/// have (the `DONE`/`TRAP` cycle in lock-step, the final comparisons)
/// without calling the hook again. It is not called in the watchdog's
/// diagnosis window.
pub type OnCycle<'a> = &'a mut dyn FnMut(u64, &TracePort) -> ControlFlow<()>;

/// What the final state is compared with the functional model on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Oracle {
    /// Global memory, the last block's registers and traps.
    Full,
    /// Global memory and traps only: for programs whose warps race (spin
    /// locks), where values returned by atomics depend on the interleaving
    /// while the final memory does not.
    MemoryOnly,
    /// Global memory below this address (a launch's buffers) and traps: for
    /// compiled code with atomics, whose per-thread stacks above the
    /// buffers may keep interleaving-dependent values. A callee that saves
    /// a register still holding an atomic's unused old value stores that
    /// value, which the functional model's and the timed models' warp
    /// orders make differ.
    MemoryBelow(usize),
}

/// Runs `launch` on the cycle model and on `rtl` in lock-step, then checks
/// both against the functional model. `watchdog` counts issued
/// warp-instructions, replays not counted (`concord_isa::watchdog`); past
/// it the run ends with [`CosimError::Watchdog`].
pub fn run(
    config: &CoreConfig,
    launch: &Launch<'_>,
    global: &[u8],
    rtl: &mut Rtl,
    watchdog: u64,
    on_cycle: Option<OnCycle<'_>>,
) -> Result<Outcome, CosimError> {
    run_with(
        config,
        launch,
        global,
        rtl,
        watchdog,
        on_cycle,
        Oracle::Full,
    )
}

/// [`run`] with a choice of what the functional model checks.
pub fn run_with(
    config: &CoreConfig,
    launch: &Launch<'_>,
    global: &[u8],
    rtl: &mut Rtl,
    watchdog: u64,
    mut on_cycle: Option<OnCycle<'_>>,
    oracle: Oracle,
) -> Result<Outcome, CosimError> {
    let mut model = CycleModel::new(config).map_err(CosimError::Setup)?;
    let mut model_mem = GlobalMemory::new(
        global.to_vec(),
        config.global_latency,
        config.global_line_bytes,
    );
    let mut rtl_mem = GlobalMemory::new(
        global.to_vec(),
        config.global_latency,
        config.global_line_bytes,
    );
    rtl.reset();
    for (addr, data) in launch_writes(launch).into_iter().chain([(START, 1)]) {
        model.host_write(addr, data);
        rtl.host_write(addr, data);
    }
    let mut before: VecDeque<(u64, TracePort)> = VecDeque::with_capacity(CONTEXT);
    let mut cycle = 0u64;
    let mut stopped = false;
    loop {
        let m = model.step(&mut model_mem);
        let r = rtl.cycle(&mut rtl_mem);
        if m != r {
            return Err(CosimError::Mismatch(Box::new(Mismatch {
                cycle,
                model: m,
                rtl: r,
                before: before.into(),
            })));
        }
        if !stopped {
            if let Some(f) = on_cycle.as_deref_mut() {
                stopped = f(cycle, &m).is_break();
            }
        }
        if matches!(m.state, State::Done | State::Trap) {
            break;
        }
        if stopped && !matches!(model.state(), State::Done | State::Trap) {
            // Before the watchdog, whose diagnosis would run on.
            return Err(CosimError::Stopped {
                counters: model.counters(),
            });
        }
        if before.len() == CONTEXT {
            before.pop_front();
        }
        before.push_back((cycle, m));
        cycle += 1;
        if model.issued_instructions() > watchdog {
            // The diagnosis window runs both cores on, still in lock-step.
            let trap = crate::cycle::diagnose(&mut model, &mut model_mem, watchdog, |m| {
                let r = rtl.cycle(&mut rtl_mem);
                let at = cycle;
                cycle += 1;
                if *m == r {
                    Ok(())
                } else {
                    Err(CosimError::Mismatch(Box::new(Mismatch {
                        cycle: at,
                        model: m.clone(),
                        rtl: r,
                        before: Vec::new(),
                    })))
                }
            })?;
            return Err(CosimError::Watchdog {
                trap: Box::new(trap),
            });
        }
    }

    let counters = model.counters();
    if counters != rtl.counters() {
        return Err(CosimError::Final(format!(
            "counters: cycle model {counters:?}, RTL {:?}",
            rtl.counters()
        )));
    }
    let model_trap = model.trap();
    let rtl_trap = rtl.trap_report(launch.code, config);
    let same = match (&model_trap, &rtl_trap) {
        (Some(a), Some(b)) => a.same_report(b),
        (None, None) => true,
        _ => false,
    };
    if !same {
        return Err(CosimError::Final(format!(
            "trap: cycle model {model_trap:?}, RTL {rtl_trap:?}"
        )));
    }
    if model_mem.bytes != rtl_mem.bytes {
        return Err(CosimError::Final(first_byte_difference(
            "global memory (cycle model vs RTL)",
            &model_mem.bytes,
            &rtl_mem.bytes,
        )));
    }

    // Against the architectural oracle.
    let mut func_mem = global.to_vec();
    let threads = (launch.block[0] * launch.block[1] * launch.block[2]) as usize;
    let mut last = LastBlock {
        threads,
        regs: Vec::new(),
    };
    let func_result = match func::run(
        config,
        launch,
        &mut func_mem,
        func::Options {
            watchdog: u64::MAX >> 1,
        },
        Some(&mut last),
    ) {
        Ok(stats) => Ok(stats),
        Err(RunError::Trap(t)) => Err(t),
        Err(RunError::Stopped(_)) => unreachable!("`LastBlock` never stops a run"),
    };
    match (&func_result, &model_trap) {
        (Ok(_), None) => {
            let compared = match oracle {
                Oracle::MemoryBelow(end) => end.min(func_mem.len()),
                Oracle::Full | Oracle::MemoryOnly => func_mem.len(),
            };
            if func_mem[..compared] != model_mem.bytes[..compared] {
                return Err(CosimError::Final(first_byte_difference(
                    "global memory (functional vs timed models)",
                    &func_mem[..compared],
                    &model_mem.bytes[..compared],
                )));
            }
            let lanes = config.lanes as usize;
            let regs_to_check = if oracle == Oracle::Full {
                last.regs.as_slice()
            } else {
                &[]
            };
            for (t, regs) in regs_to_check.iter().enumerate() {
                for (r, value) in regs.iter().enumerate() {
                    let timed = model.register(t / lanes, t % lanes, r);
                    if timed != *value {
                        return Err(CosimError::Final(format!(
                            "last block, thread {t}, r{r}: functional {value:#010x}, timed models {timed:#010x}"
                        )));
                    }
                }
            }
        }
        (Err(f), Some(t)) => {
            if !f.same_report(t) {
                return Err(CosimError::Final(format!(
                    "trap: functional model `{f}`, timed models `{t}`"
                )));
            }
        }
        (Ok(_), Some(t)) => {
            return Err(CosimError::Final(format!(
                "the timed models trapped (`{t}`), the functional model did not"
            )))
        }
        (Err(f), None) => {
            return Err(CosimError::Final(format!(
                "the functional model trapped (`{f}`), the timed models did not"
            )))
        }
    }
    Ok(Outcome {
        counters,
        result: model_trap.map_or(Ok(()), Err),
        global: model_mem.bytes,
    })
}

fn first_byte_difference(what: &str, a: &[u8], b: &[u8]) -> String {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => {
            let w = i & !3;
            let word = |m: &[u8]| {
                m.get(w..w + 4)
                    .map(|s| u32::from_le_bytes(s.try_into().expect("4 bytes")))
            };
            format!(
                "{what}: first difference at byte {i:#x}: word {w:#x} is {:#010x?} vs {:#010x?}",
                word(a),
                word(b)
            )
        }
        None => format!("{what}: lengths {} vs {}", a.len(), b.len()),
    }
}
