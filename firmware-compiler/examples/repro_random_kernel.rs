//! A debugging aid for random-kernel failures:
//! `CONCORD_REPRO_SEED=<seed> cargo run --release -p concord-compiler
//! --example repro_random_kernel` prints the generated source, the
//! optimised and laid-out IR, and runs the IR interpreter on the front
//! end's IR and on the optimised IR, so a miscompile can be bisected into
//! the middle end or the back end. `CONCORD_REPRO_REGS` sets the budget
//! (default: the one the random test picks for the seed), `CONCORD_REPRO_STACK` the per-thread
//! stack bytes, `CONCORD_REPRO_DIVERGENCE` and `CONCORD_REPRO_SPILL` the
//! strategies (as on the command line), `CONCORD_REPRO_FLATTEN=1` loop
//! flattening. `CONCORD_REPRO_SOURCE=<file>` compiles that file instead of
//! the generated source, with the seed's launch (for reducing a failing
//! kernel by hand or with a delta reducer).

use concord_compiler::frontend::{self, FrontendOptions};
use concord_compiler::interp::{self, InterpLaunch, InterpOptions};
use concord_compiler::kernel_gen::{generate, GenConfig};
use concord_compiler::layout;
use concord_compiler::passes::{self, OptOptions};
use concord_isa::config::CoreConfig;

fn main() {
    let Some(seed) = std::env::var("CONCORD_REPRO_SEED")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
    else {
        eprintln!("error: set CONCORD_REPRO_SEED to the failing seed");
        std::process::exit(2);
    };
    let gen = GenConfig::default();
    let config = CoreConfig {
        lanes: gen.lanes,
        warps: gen.warps,
        ..CoreConfig::default()
    };
    let mut k = generate(seed, &gen);
    if let Ok(path) = std::env::var("CONCORD_REPRO_SOURCE") {
        k.source = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            eprintln!("error: {path}: {e}");
            std::process::exit(2);
        });
    }
    let flatten_loops = std::env::var("CONCORD_REPRO_FLATTEN").is_ok_and(|v| v == "1");

    let regs = std::env::var("CONCORD_REPRO_REGS")
        .ok()
        .and_then(|s| s.parse::<u32>().ok())
        .unwrap_or([32, 16, 8, 6][(seed % 4) as usize]);
    println!("==== source (--regs {regs})\n{}", k.source);
    let file = format!("kgen_{seed}.cu");
    let (module, _) =
        frontend::compile_source(&k.source, &file, &FrontendOptions::for_core(&config))
            .expect("front end");
    println!("==== front-end IR\n{module}");
    let mut optimised = module.clone();
    passes::optimize(
        &mut optimised,
        &OptOptions {
            verify_each_pass: true,
            flatten_loops,
            ..OptOptions::default()
        },
    )
    .expect("middle end");
    layout::layout_module(&mut optimised).expect("layout");
    println!("==== optimised, laid-out IR\n{optimised}");

    let desc = k.launch_description(&std::env::temp_dir());
    let mut options = concord_compiler::driver::CompileOptions {
        regs: Some(regs),
        divergence: parse("CONCORD_REPRO_DIVERGENCE").unwrap_or_default(),
        spill: parse("CONCORD_REPRO_SPILL").unwrap_or_default(),
        stack_bytes: std::env::var("CONCORD_REPRO_STACK")
            .ok()
            .and_then(|s| s.parse().ok()),
        ..concord_compiler::driver::CompileOptions::for_core(&config)
    };
    options.opt.flatten_loops = flatten_loops;
    let compiled = concord_compiler::driver::compile(&k.source, &file, &options);
    match &compiled {
        Ok(c) => println!(
            "==== listing\n{}",
            c.kernel(Some(&k.kernel_name)).unwrap().compiled.listing
        ),
        Err(e) => println!("==== compile error\n{e}"),
    }
    let Ok(compiled) = compiled else { return };
    let kernel = &compiled
        .kernel(Some(&k.kernel_name))
        .unwrap()
        .compiled
        .kernel;
    let prepared = desc.prepare(kernel, &config).expect("prepare");
    let run = |m: &concord_compiler::ir::Module| {
        let id = m.func_by_name(&k.kernel_name).unwrap();
        let mut mem = prepared.global.clone();
        interp::run(
            m,
            id,
            &InterpLaunch::new(&prepared, &config),
            &mut mem,
            &InterpOptions::default(),
        )
        .map(|_| mem)
        .map_err(|e| e.to_string())
    };
    let a = run(&module).expect("interpreter on the front-end IR");
    let b = run(&optimised).expect("interpreter on the optimised IR");
    let mut machine = prepared.global.clone();
    let launch = concord_isa::func::Launch {
        code: &kernel.code,
        entry_pc: prepared.entry_pc,
        grid: prepared.grid,
        block: prepared.block,
        params: &prepared.params,
        stack_bytes: kernel.stack_bytes,
    };
    let machine_ok = concord_isa::func::run(
        &config,
        &launch,
        &mut machine,
        concord_isa::func::Options {
            watchdog: prepared.watchdog,
        },
        None,
    );
    let end = prepared
        .buffers
        .iter()
        .map(|b| (b.addr + b.len * b.elem.bytes()) as usize)
        .max()
        .unwrap_or(0);
    let first_diff = |x: &[u8], y: &[u8]| x[..end].iter().zip(&y[..end]).position(|(p, q)| p != q);
    println!(
        "front-end IR vs optimised IR: first difference at {:?}",
        first_diff(&a, &b)
    );
    println!("machine run: {:?}", machine_ok.err());
    println!(
        "optimised IR vs machine: first difference at {:?}",
        first_diff(&b, &machine)
    );
    for buf in &prepared.buffers {
        println!("buffer {} at {:#x} len {}", buf.name, buf.addr, buf.len);
    }
}

/// The environment variable `name` parsed as a command-line value.
fn parse<T: std::str::FromStr>(name: &str) -> Option<T>
where
    T::Err: std::fmt::Display,
{
    let value = std::env::var(name).ok()?;
    Some(value.parse().unwrap_or_else(|e| {
        eprintln!("error: {name}: {e}");
        std::process::exit(2);
    }))
}
