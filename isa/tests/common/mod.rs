//! Shared fixture for the functional-model tests: assemble a snippet, run it
//! on a small grid, and collect the trace and the final registers.
#![allow(dead_code)]

use concord_isa::config::{Arbitration, CoreConfig};
use std::ops::ControlFlow;

use concord_isa::func::{self, BlockView, Issue, Observer, Options, RunError, Stats, Trap};
use concord_isa::mask::LaneMask;
use concord_isa::{Pred, Reg};

pub struct Run {
    pub result: Result<Stats, RunError>,
    pub trace: Vec<Issue>,
    /// Final registers: `regs[block][thread][reg]`.
    pub regs: Vec<Vec<[u32; 32]>>,
    pub preds: Vec<Vec<[bool; 8]>>,
    pub global: Vec<u8>,
    pub lanes: usize,
}

impl Run {
    pub fn stats(&self) -> Stats {
        match &self.result {
            Ok(s) => *s,
            Err(e) => panic!("unexpected end: {e}"),
        }
    }
    pub fn trap(&self) -> &Trap {
        match &self.result {
            Err(RunError::Trap(t)) => t,
            other => panic!("expected a trap, got {other:?}"),
        }
    }
    /// Warp-instructions issued, whether the run completed, trapped or
    /// was stopped.
    pub fn issued(&self) -> u64 {
        match &self.result {
            Ok(s) | Err(RunError::Stopped(s)) => s.issued,
            Err(RunError::Trap(t)) => t.issued,
        }
    }
    /// `(pc, mask)` of every issue, masks in the `1100` lane-0-first form.
    pub fn issues(&self) -> Vec<(u32, String)> {
        self.trace
            .iter()
            .map(|i| (i.pc, LaneMask::new(i.active, self.lanes).to_string()))
            .collect()
    }
    pub fn reg(&self, thread: usize, r: u8) -> u32 {
        self.regs[0][thread][r as usize]
    }
    pub fn word(&self, addr: usize) -> u32 {
        u32::from_le_bytes(self.global[addr..addr + 4].try_into().unwrap())
    }
}

#[derive(Default)]
struct Collect {
    trace: Vec<Issue>,
    regs: Vec<Vec<[u32; 32]>>,
    preds: Vec<Vec<[bool; 8]>>,
    threads: usize,
    stop_at: Option<u64>,
}

impl Observer for Collect {
    fn issue(&mut self, i: &Issue) -> ControlFlow<()> {
        self.trace.push(*i);
        if self.stop_at == Some(self.trace.len() as u64) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
    fn block_end(&mut self, _block: [u32; 3], state: &BlockView<'_>) {
        let mut regs = Vec::new();
        let mut preds = Vec::new();
        for t in 0..self.threads {
            let mut r = [0u32; 32];
            for (i, v) in r.iter_mut().enumerate() {
                *v = state.reg(t, Reg::new(i as u8).unwrap());
            }
            let mut p = [false; 8];
            for (i, v) in p.iter_mut().enumerate() {
                *v = state.pred(t, Pred::new(i as u8).unwrap());
            }
            regs.push(r);
            preds.push(p);
        }
        self.regs.push(regs);
        self.preds.push(preds);
    }
}

pub struct Setup {
    pub lanes: u32,
    pub warps: u32,
    pub threads: u32,
    pub blocks: u32,
    pub params: Vec<u32>,
    pub global: Vec<u8>,
    pub arbitration: Arbitration,
    pub watchdog: u64,
    /// The observer breaks at this issue (1 = the first).
    pub stop_at: Option<u64>,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            lanes: 4,
            warps: 1,
            threads: 4,
            blocks: 1,
            params: vec![],
            global: vec![0; 4096],
            arbitration: Arbitration::DepthPc,
            watchdog: 100_000,
            stop_at: None,
        }
    }
}

pub fn run_asm(source: &str, setup: Setup) -> Run {
    let kernel = concord_isa::asm::assemble(source, "test.s").unwrap_or_else(|e| panic!("{e}"));
    let config = CoreConfig {
        lanes: setup.lanes,
        warps: setup.warps,
        global_memory_bytes: setup.global.len() as u32,
        arbitration: setup.arbitration,
        ..CoreConfig::default()
    };
    config.validate().unwrap();
    let launch = func::Launch {
        code: &kernel.code,
        entry_pc: kernel.entries[0].pc,
        grid: [setup.blocks, 1, 1],
        block: [setup.threads, 1, 1],
        params: &setup.params,
        stack_bytes: kernel.stack_bytes,
    };
    let mut global = setup.global;
    let mut collect = Collect {
        threads: setup.threads as usize,
        stop_at: setup.stop_at,
        ..Collect::default()
    };
    let result = func::run(
        &config,
        &launch,
        &mut global,
        Options {
            watchdog: setup.watchdog,
        },
        Some(&mut collect),
    );
    Run {
        result,
        trace: collect.trace,
        regs: collect.regs,
        preds: collect.preds,
        global,
        lanes: setup.lanes as usize,
    }
}
