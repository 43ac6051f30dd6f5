fn main() {
    let path = std::env::args().nth(1);
    let cfg = match path {
        Some(p) => concord_isa::config::CoreConfig::load(std::path::Path::new(&p)).unwrap(),
        None => concord_isa::config::CoreConfig::default(),
    };
    let v = concord_hdl::generate_verilog(&cfg).unwrap();
    std::fs::write("/tmp/hdlscratch/concord_core.v", v).unwrap();
}
