//! Loop flattening on the kernel suite: the work queue kernel (Bulavintsev's
//! benchmark) must really be flattened, and every nest left alone gets a
//! note. (That flattening changes no result is checked with the other
//! differential runs, in `kernels/tests/compiled.rs`.)

use concord_compiler::driver::CompileOptions;
use concord_compiler::frontend::{self, FrontendOptions};
use concord_compiler::passes::{optimize, OptOptions};
use concord_isa::config::CoreConfig;
use concord_kernels::suite;

fn flatten_options(config: &CoreConfig) -> CompileOptions {
    let mut options = CompileOptions::for_core(config);
    options.opt.flatten_loops = true;
    options
}

/// The middle end's report per suite kernel: the work queue's nest is
/// flattened; every nest left alone has a note.
#[test]
fn workqueue_is_flattened_and_the_rest_is_reported() {
    let config = CoreConfig::default();
    let mut flattened_kernels = Vec::new();
    for k in suite() {
        let path = concord_kernels::kernels_dir().join(k.source);
        let source = std::fs::read_to_string(&path).expect("suite source");
        let fe = FrontendOptions::for_core(&config);
        let (mut module, _) = frontend::compile_source(&source, k.source, &fe)
            .unwrap_or_else(|d| panic!("{}", frontend::render(&d, &source, k.source)));
        let options = OptOptions {
            verify_each_pass: true,
            ..flatten_options(&config).opt
        };
        let report = optimize(&mut module, &options).expect("pipeline verifies");
        for (f, header) in &report.flatten.flattened {
            eprintln!("{}: flattened @{f} at {header}", k.name);
            flattened_kernels.push(k.name);
        }
        for note in &report.flatten.notes {
            eprintln!("{}: note: {note}", k.name);
        }
    }
    assert!(
        flattened_kernels.contains(&"workqueue"),
        "the work queue was not flattened (flattened: {flattened_kernels:?})"
    );
}
