//! Writes the core's Verilog for a configuration to standard output:
//! `cargo run -p concord-hdl --example verilog -- configs/small.yaml > concord_core.v`
//! (no argument: the default configuration).

fn main() {
    let config = match std::env::args().nth(1) {
        Some(path) => concord_isa::config::CoreConfig::load(std::path::Path::new(&path))
            .unwrap_or_else(|e| {
                eprintln!("{e}");
                std::process::exit(1)
            }),
        None => concord_isa::config::CoreConfig::default(),
    };
    match concord_hdl::generate_verilog(&config) {
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
