use concord_compiler::backend::DivergenceStrategy;
use concord_compiler::driver::{self, CompileOptions};
use concord_compiler::frontend::{self, FrontendOptions};
use concord_compiler::interp::{self, InterpLaunch, InterpOptions};
use concord_compiler::kernel_gen::{generate, GenConfig};
use concord_isa::config::CoreConfig;

fn main() {
    let first: u64 = std::env::var("S0").unwrap().parse().unwrap();
    let count: u64 = std::env::var("N").unwrap().parse().unwrap();
    let stmts: u32 = std::env::var("STMTS")
        .unwrap_or("4".into())
        .parse()
        .unwrap();
    let flatten = std::env::var("FLAT").is_ok_and(|v| v == "1");
    let gen = GenConfig {
        max_stmts: stmts,
        allow_calls: std::env::var("CALLS").is_ok(),
        ..GenConfig::default()
    };
    let config = CoreConfig {
        lanes: gen.lanes,
        warps: gen.warps,
        imem_words: 16384,
        ..CoreConfig::default()
    };
    for seed in first..first + count {
        let mut k = generate(seed, &gen);
        if let Ok(src) = std::env::var("SRC") {
            k.source = std::fs::read_to_string(src).unwrap();
        }
        let file = "k.cu";
        let Ok((module, _)) =
            frontend::compile_source(&k.source, file, &FrontendOptions::for_core(&config))
        else {
            continue;
        };
        let mut options = CompileOptions {
            regs: Some(32),
            divergence: std::env::var("DIV")
                .ok()
                .map(|v| v.parse().unwrap())
                .unwrap_or(DivergenceStrategy::Predicate),
            stack_bytes: std::env::var("STACK").ok().map(|v| v.parse().unwrap()),
            ..CompileOptions::for_core(&config)
        };
        options.opt.flatten_loops = flatten;
        let compiled = match driver::compile(&k.source, file, &options) {
            Ok(c) => c,
            Err(e) => {
                println!("seed {seed} compile error {e}");
                continue;
            }
        };
        let out = compiled.kernel(Some(&k.kernel_name)).unwrap();
        let desc = k.launch_description(&std::env::temp_dir());
        let prepared = desc.prepare(&out.compiled.kernel, &config).unwrap();
        let id = module.func_by_name(&k.kernel_name).unwrap();
        let mut a = prepared.global.clone();
        if interp::run(
            &module,
            id,
            &InterpLaunch::new(&prepared, &config),
            &mut a,
            &InterpOptions::default(),
        )
        .is_err()
        {
            continue;
        }
        let mut b = prepared.global.clone();
        let launch = concord_isa::func::Launch {
            code: &out.compiled.kernel.code,
            entry_pc: prepared.entry_pc,
            grid: prepared.grid,
            block: prepared.block,
            params: &prepared.params,
        };
        let r = concord_isa::func::run(
            &config,
            &launch,
            &mut b,
            concord_isa::func::Options {
                watchdog: prepared.watchdog,
            },
            None,
        );
        let end = prepared
            .buffers
            .iter()
            .map(|x| (x.addr + x.len * x.elem.bytes()) as usize)
            .max()
            .unwrap();
        if r.is_err() || a[..end] != b[..end] {
            println!(
                "seed {seed} FAIL lines {} trap {:?}",
                k.source.lines().count(),
                r.as_ref().err().map(|t| format!("{:?}", t.cause))
            );
            if std::env::var("LISTING").is_ok() {
                println!("{:?}\n{}", r.as_ref().err(), out.compiled.listing);
            }
            if std::env::var("DUMP").is_ok() {
                std::fs::write(format!("/tmp/scratch/s{seed}.cu"), &k.source).unwrap();
            }
        }
    }
}
