//! Shared fixture of the back-end tests: compile an IR kernel at several
//! register budgets, check the listing round trip, run the image on the
//! functional model, and compare the final global memory with values
//! computed by plain Rust (and with the IR interpreter).
#![allow(dead_code)]

use concord_compiler::backend::{compile_kernel, BackendOptions, CompiledKernel};
use concord_compiler::interp::{self, InterpLaunch, InterpOptions};
use concord_compiler::ir::{parse_module, verify_module, Module};
use concord_isa::config::CoreConfig;
use concord_isa::func::{self, Options};

/// Register budgets every kernel is compiled at.
pub const BUDGETS: [u32; 3] = [32, 12, 6];

/// Global memory of the test core (the stacks sit at its top).
pub const GLOBAL: u32 = 1 << 16;

pub struct Setup {
    pub lanes: u32,
    pub warps: u32,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub params: Vec<u32>,
    /// Initial words: (byte address, values).
    pub init: Vec<(u32, Vec<u32>)>,
    pub preds: u32,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            lanes: 8,
            warps: 4,
            grid: [1, 1, 1],
            block: [8, 1, 1],
            params: Vec::new(),
            init: Vec::new(),
            preds: 8,
        }
    }
}

pub fn parse(text: &str) -> Module {
    let mut m = parse_module(text, "test.cir").unwrap_or_else(|e| panic!("{}", e.render()));
    verify_module(&m).unwrap_or_else(|e| panic!("{e}"));
    // The back end's input order comes from the layout pass.
    concord_compiler::layout::layout_module(&mut m).unwrap_or_else(|e| panic!("{e}"));
    for f in &m.funcs {
        concord_compiler::layout_verify::verify_layout(f).unwrap_or_else(|e| panic!("{e}"));
    }
    m
}

pub fn compile(m: &Module, kernel: &str, regs: u32, preds: u32) -> CompiledKernel {
    let id = m.func_by_name(kernel).expect("kernel exists");
    let options = BackendOptions {
        regs,
        preds,
        stack_bytes_per_thread: None,
        global_memory_bytes: GLOBAL,
        ..BackendOptions::default()
    };
    let c = compile_kernel(m, id, &options).unwrap_or_else(|e| panic!("regs {regs}: {e}"));
    // The listing assembles back to the same image.
    let asm = concord_isa::asm::assemble(&c.listing, "listing.s")
        .unwrap_or_else(|e| panic!("listing does not assemble: {e}\n{}", c.listing));
    assert_eq!(asm.code, c.kernel.code, "listing round trip\n{}", c.listing);
    assert_eq!(asm.stack_bytes, c.kernel.stack_bytes);
    assert_eq!(asm.shared_bytes, c.kernel.shared_bytes);
    assert_eq!(asm.params, c.kernel.params);
    assert!(
        c.kernel.regs_used <= regs,
        "regs_used {} > {regs}",
        c.kernel.regs_used
    );
    c
}

fn memory(setup: &Setup) -> Vec<u8> {
    let mut g = vec![0u8; GLOBAL as usize];
    for (addr, words) in &setup.init {
        for (i, w) in words.iter().enumerate() {
            let a = *addr as usize + 4 * i;
            g[a..a + 4].copy_from_slice(&w.to_le_bytes());
        }
    }
    g
}

pub fn run_machine(c: &CompiledKernel, setup: &Setup) -> Vec<u8> {
    let config = CoreConfig {
        lanes: setup.lanes,
        warps: setup.warps,
        predicates: setup.preds,
        global_memory_bytes: GLOBAL,
        ..CoreConfig::default()
    };
    let launch = func::Launch {
        code: &c.kernel.code,
        entry_pc: 0,
        grid: setup.grid,
        block: setup.block,
        params: &setup.params,
        stack_bytes: c.kernel.stack_bytes,
    };
    let mut g = memory(setup);
    func::run(
        &config,
        &launch,
        &mut g,
        Options {
            watchdog: 20_000_000,
        },
        None,
    )
    .unwrap_or_else(|t| panic!("trap: {t}\n{}", c.listing));
    g
}

pub fn run_interp(m: &Module, kernel: &str, setup: &Setup) -> Vec<u8> {
    let id = m.func_by_name(kernel).expect("kernel exists");
    let launch = InterpLaunch {
        grid: setup.grid,
        block: setup.block,
        params: setup.params.clone(),
        lanes: setup.lanes,
        shared_memory_bytes: CoreConfig::default().shared_memory_bytes,
    };
    let mut g = memory(setup);
    interp::run(m, id, &launch, &mut g, &InterpOptions::default())
        .unwrap_or_else(|e| panic!("interpreter: {e}"));
    g
}

pub fn words(g: &[u8], addr: u32, n: usize) -> Vec<u32> {
    (0..n)
        .map(|i| {
            let a = addr as usize + 4 * i;
            u32::from_le_bytes(g[a..a + 4].try_into().unwrap())
        })
        .collect()
}

/// Compiles `kernel` at every budget, runs it, and checks `n` words at
/// `addr` against `expected` and against the interpreter. Returns the
/// compilations (budget 32 first).
pub fn check_kernel(
    text: &str,
    kernel: &str,
    setup: &Setup,
    addr: u32,
    expected: &[u32],
) -> Vec<CompiledKernel> {
    let m = parse(text);
    let reference = run_interp(&m, kernel, setup);
    assert_eq!(
        words(&reference, addr, expected.len()),
        expected,
        "interpreter disagrees with the host computation"
    );
    let mut out = Vec::new();
    for regs in BUDGETS {
        let c = compile(&m, kernel, regs, setup.preds);
        let g = run_machine(&c, setup);
        assert_eq!(
            words(&g, addr, expected.len()),
            expected,
            "regs {regs}, stats {:?}\n{}",
            c.stats,
            c.listing
        );
        // Below the stacks, the machine's memory equals the interpreter's.
        let low = (GLOBAL - c.kernel.stack_bytes * setup.lanes * setup.warps) as usize;
        assert!(
            g[..low] == reference[..low],
            "regs {regs}: memory differs from the interpreter"
        );
        out.push(c);
    }
    out
}
