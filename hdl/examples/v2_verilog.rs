//! Writes the Core v2 Verilog of a configuration to standard output:
//! `cargo run -p concord-hdl --example v2_verilog -- configs/small.yaml [board|sim] > concord_core.v`
//! (no argument: the default configuration and the `sim` preset).

fn main() {
    let mut args = std::env::args().skip(1);
    let config = match args.next().filter(|a| a != "-") {
        Some(path) => concord_isa::config::CoreConfig::load(std::path::Path::new(&path))
            .unwrap_or_else(|e| {
                eprintln!("{e}");
                std::process::exit(1)
            }),
        None => concord_isa::config::CoreConfig::default(),
    };
    let gen = match args.next().as_deref() {
        Some("board") => concord_uarch::GenOptions::board(),
        _ => concord_uarch::GenOptions::sim(),
    };
    match concord_hdl::v2::core::core_verilog(&config, &gen) {
        Ok(v) => {
            use std::io::Write;
            let _ = std::io::stdout().write_all(v.as_bytes());
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1)
        }
    }
}
