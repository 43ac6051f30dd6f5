//! Shared aids of the testbench crate's pipeline tests: assembling, the
//! launch of a hand-written kernel, the random programs of
//! `concord_testbench::gen` and their launches.

#![allow(dead_code)]

pub mod cases;

use concord_isa::config::CoreConfig;
use concord_isa::container::Kernel;
use concord_isa::func;
use concord_testbench::gen::{generate, GenConfig, Program};
use concord_testbench::pipeline::{self, BlockState, Outcome, PipelineLaunch, PipelineOptions};
use concord_uarch::GenOptions;

pub fn assemble(src: &str) -> Kernel {
    concord_isa::asm::assemble(src, "t.s").unwrap_or_else(|e| panic!("{e}"))
}

/// The options of the checked runs: `watchdog`, bus checks on, the
/// simulation preset.
pub fn sim_options(watchdog: u64) -> PipelineOptions {
    PipelineOptions {
        watchdog,
        check_bus: true,
        gen: GenOptions::sim(),
    }
}

/// `kernel` from its first entry on `blocks` blocks of `threads` threads:
/// no parameters, no stack, no shared bytes, no init slots.
pub fn launch_1d(kernel: &Kernel, threads: u32, blocks: u32) -> PipelineLaunch<'_> {
    PipelineLaunch {
        launch: func::Launch {
            code: &kernel.code,
            entry_pc: kernel.entries[0].pc,
            grid: [blocks, 1, 1],
            block: [threads, 1, 1],
            params: &[],
            stack_bytes: 0,
        },
        shared_bytes: 0,
        regs_used: 0,
    }
}

/// Runs `src` with `threads` threads per block, `blocks` blocks, no init
/// slots (`regs_used` 0), under `gen`; panics on a trap.
pub fn run_kernel(
    config: &CoreConfig,
    src: &str,
    threads: u32,
    blocks: u32,
    gen: GenOptions,
) -> Outcome {
    let kernel = assemble(src);
    let launch = launch_1d(&kernel, threads, blocks);
    let mut global = vec![0; config.global_memory_bytes as usize];
    let o = pipeline::run(
        config,
        &launch,
        &mut global,
        PipelineOptions {
            watchdog: 1 << 30,
            check_bus: true,
            gen,
        },
    )
    .unwrap();
    o.result.as_ref().unwrap_or_else(|t| panic!("trap: {t}"));
    o
}

/// The threads per block of seed `seed`'s random program.
pub fn random_threads(seed: u64, lanes: u32, warps: u32) -> u32 {
    1 + (seed.wrapping_mul(7919) % u64::from(lanes * warps)) as u32
}

/// The random program of `seed` (size 30).
pub fn random_program(seed: u64, lanes: u32, warps: u32, threads: u32, blocks: u32) -> Program {
    generate(
        seed,
        &GenConfig {
            lanes,
            warps,
            threads,
            blocks,
            size: 30,
            ..GenConfig::default()
        },
    )
}

/// The launch of the random program `p` (its kernel `kernel`).
pub fn random_launch<'a>(p: &'a Program, kernel: &'a Kernel) -> func::Launch<'a> {
    func::Launch {
        code: &kernel.code,
        entry_pc: 0,
        grid: p.grid(),
        block: p.block(),
        params: &p.params,
        stack_bytes: kernel.stack_bytes,
    }
}

/// The same, with the kernel's shared bytes and init slots.
pub fn random_pipeline_launch<'a>(p: &'a Program, kernel: &'a Kernel) -> PipelineLaunch<'a> {
    PipelineLaunch {
        launch: random_launch(p, kernel),
        shared_bytes: kernel.shared_bytes,
        regs_used: kernel.regs_used,
    }
}

/// `p`'s initial global memory, the size of `config`'s.
pub fn random_global(p: &Program, config: &CoreConfig) -> Vec<u8> {
    let mut g = p.global_init.clone();
    g.resize(config.global_memory_bytes as usize, 0);
    g
}

/// The last block's state in the functional model.
#[derive(Default)]
pub struct LastBlock {
    pub threads: usize,
    pub state: Option<BlockState>,
}

impl func::Observer for LastBlock {
    fn issue(&mut self, _: &func::Issue) -> std::ops::ControlFlow<()> {
        std::ops::ControlFlow::Continue(())
    }
    fn block_end(&mut self, _block: [u32; 3], v: &func::BlockView<'_>) {
        let mut regs = Vec::new();
        let mut preds = Vec::new();
        for t in 0..self.threads {
            let mut r = [0u32; 32];
            for (i, x) in r.iter_mut().enumerate() {
                *x = v.reg(t, concord_isa::Reg::new(i as u8).unwrap());
            }
            let mut p = [false; 8];
            for (i, x) in p.iter_mut().enumerate() {
                *x = v.pred(t, concord_isa::Pred::new(i as u8).unwrap());
            }
            regs.push(r);
            preds.push(p);
        }
        self.state = Some(BlockState {
            regs,
            preds,
            shared: v.shared().to_vec(),
        });
    }
}

/// The kernel `name` of the CUDA-C source `src`, compiled for the default
/// core (`k.cu` in messages).
pub fn compile_cuda(src: &str, name: &str) -> Kernel {
    let config = CoreConfig::default();
    let options = concord_compiler::driver::CompileOptions::for_core(&config);
    let compiled =
        concord_compiler::driver::compile(src, "k.cu", &options).unwrap_or_else(|e| panic!("{e}"));
    compiled.kernel(Some(name)).unwrap().compiled.kernel.clone()
}

/// The operation at `pc` of `kernel`.
pub fn op_at(kernel: &Kernel, pc: usize) -> concord_isa::Op {
    concord_isa::decode(kernel.code[pc]).unwrap().op
}
