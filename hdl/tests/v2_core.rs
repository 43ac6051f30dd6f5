//! The Core v2 top level (`concord_hdl::v2::core`,
//! docs/microarchitecture-v2.md §12.1, §14, §15):
//!
//! * the generated `concord_core` header has exactly the ports of
//!   `concord_uarch::ports::core_ports`, in order, for several
//!   configurations and both presets;
//! * configuration and generator-option errors name the field or option;
//! * the generator's hygiene check (§14.2) rejects an output that is not a
//!   flip-flop and a module name with `$`;
//! * `verilator --lint-only -Wall` is clean (default core with the `sim`
//!   preset, small core with the `board` preset);
//! * the host side in rust-hdl's simulator: `START`, the 8 SETUP cycles,
//!   `RUN`, refusal, `STATUS`, `LAUNCH`, `WINDOW`, `cycles`, `HALT`, writes
//!   while running; expected values worked out by hand from §12.1, §12.2,
//!   §14.3, §14.4 and §15.

mod common;

use concord_hdl::v2::core::{check_hygiene, core_verilog, host_config, Body, CoreGenError};
use concord_hdl::wishbone::slave::SlaveMap;
use concord_isa::config::CoreConfig;
use concord_uarch::ports::{core_ports, Dir};
use concord_uarch::{GenOptions, HwParams};
use rust_hdl_core::prelude::*;

/// The ports of the `concord_core` module in `v`: name, direction, width,
/// in header order.
fn header(v: &str) -> Vec<(String, Dir, u32)> {
    let start = v.find("\nmodule concord_core(").expect("no concord_core");
    let text = &v[start + 1..];
    let text = &text[..text.find("endmodule").unwrap()];
    let open = text.find('(').unwrap();
    let close = text.find(");").unwrap();
    let names: Vec<String> = text[open + 1..close]
        .split(',')
        .map(|s| s.trim().to_string())
        .collect();
    names
        .iter()
        .map(|n| {
            let decl = text
                .lines()
                .map(str::trim)
                .find(|l| {
                    (l.starts_with("input ") || l.starts_with("output "))
                        && l.trim_end_matches(';').rsplit(' ').next() == Some(n.as_str())
                })
                .unwrap_or_else(|| panic!("no declaration of {n}"));
            let dir = if decl.starts_with("input") {
                Dir::In
            } else {
                Dir::Out
            };
            let width = match decl.find('[') {
                Some(a) => {
                    let b = decl.find(':').unwrap();
                    decl[a + 1..b].parse::<u32>().unwrap() + 1
                }
                None => 1,
            };
            (n.clone(), dir, width)
        })
        .collect()
}

fn configs() -> Vec<(&'static str, CoreConfig)> {
    vec![
        ("default", CoreConfig::default()),
        ("small", common::load_config("small.yaml")),
        ("tiny", common::load_config("tiny.yaml")),
        ("wide", common::load_config("wide.yaml")),
    ]
}

#[test]
fn header_matches_core_ports() {
    for (name, config) in configs() {
        let hw = HwParams::new(&config).unwrap();
        for gen in [GenOptions::sim(), GenOptions::board()] {
            let v = core_verilog(&config, &gen).unwrap();
            let want: Vec<(String, Dir, u32)> = core_ports(&hw, &gen)
                .iter()
                .map(|p| (p.name.to_string(), p.dir, p.width))
                .collect();
            assert_eq!(header(&v), want, "{name}, trace {}", gen.trace);
            common::assert_module_names(&v, "concord_core");
        }
    }
}

#[test]
fn errors_name_the_field_or_option() {
    let config = CoreConfig {
        lanes: 6,
        ..CoreConfig::default()
    };
    match core_verilog(&config, &GenOptions::sim()) {
        Err(CoreGenError::Config { field, .. }) => assert_eq!(field, "lanes"),
        other => panic!("{other:?}"),
    }
    let config = CoreConfig {
        imem_words: 3000,
        ..CoreConfig::default()
    };
    match core_verilog(&config, &GenOptions::sim()) {
        Err(CoreGenError::Config { field, .. }) => assert_eq!(field, "imem_words"),
        other => panic!("{other:?}"),
    }
    for bits in [15, 65] {
        let gen = GenOptions {
            counter_bits: bits,
            ..GenOptions::board()
        };
        match core_verilog(&CoreConfig::default(), &gen) {
            Err(CoreGenError::Option { option, .. }) => assert_eq!(option, "counter_bits"),
            other => panic!("{bits}: {other:?}"),
        }
    }
}

/// The check fails on a combinational output and on a `$` in a module
/// name: it is not a check that cannot fail.
#[test]
fn hygiene_check_rejects_a_combinational_output_and_a_dollar() {
    let config = CoreConfig::default();
    let hw = HwParams::new(&config).unwrap();
    let gen = GenOptions::sim();
    let v = core_verilog(&config, &gen).unwrap();
    assert!(check_hygiene(&v, &hw, &gen).is_ok());
    let line = "        irq_o = irq_r$q;";
    assert!(v.contains(line));
    let comb = v.replace(line, "        irq_o = done_r$q | trapped_r$q;");
    match check_hygiene(&comb, &hw, &gen) {
        Err(CoreGenError::Hygiene { what, .. }) => assert!(what.contains("irq_o"), "{what}"),
        other => panic!("{other:?}"),
    }
    let dollar = v.replace("module concord_core__setup(", "module concord_core$setup(");
    match check_hygiene(&dollar, &hw, &gen) {
        Err(CoreGenError::Hygiene { what, .. }) => assert!(what.contains("module"), "{what}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn verilator_lint_default_sim_and_small_board() {
    let v = core_verilog(&CoreConfig::default(), &GenOptions::sim()).unwrap();
    common::verilator_lint(&v, "v2-core-default", "concord_core.v", "default, sim");
    let small = common::load_config("small.yaml");
    let v = core_verilog(&small, &GenOptions::board()).unwrap();
    common::verilator_lint(&v, "v2-core-small", "concord_core.v", "small, board");
}

// ---- the host side in rust-hdl's simulator ----

const PORTS: common::Ports<Body> = common::Ports {
    clock: |b| &mut b.clock,
    reset: |b| &mut b.reset,
    rounds: 100,
    name: "core body",
};

/// What the host port and the state outputs show during the cycle after
/// a request (§14.3: `ACK` and read data one cycle later; the trace
/// record of the request's cycle).
#[derive(Debug, Clone, Copy)]
struct After {
    ack: bool,
    dat: u32,
    running: bool,
    done: bool,
    trapped: bool,
    irq: bool,
    /// `tr_state` of the cycle just ended.
    tr_state: u32,
}

struct Sim {
    b: Box<Body>,
}

impl Sim {
    fn new(config: &CoreConfig, gen: &GenOptions) -> Sim {
        let hw = HwParams::new(config).unwrap();
        let map = SlaveMap::new(&host_config(config, &hw, gen));
        let mut b = Box::new(Body::new(&hw, gen, &map));
        b.connect_all();
        let mut s = Sim { b };
        common::reset(&mut *s.b, &PORTS);
        s
    }

    /// One cycle with the host request `req` (`(we, adr, dat)`) or none.
    fn cycle(&mut self, req: Option<(bool, u32, u32)>) -> After {
        let b = &mut self.b;
        b.wbs_cyc_i.next = req.is_some();
        b.wbs_stb_i.next = req.is_some();
        let (we, adr, dat) = req.unwrap_or((false, 0, 0));
        b.wbs_we_i.next = we;
        b.wbs_adr_i.next = (adr as u64).into();
        b.wbs_dat_i.next = (dat as u64).into();
        common::settle(&mut **b, &PORTS);
        common::edge(&mut **b, &PORTS);
        After {
            ack: b.wbs_ack_o.val(),
            dat: b.wbs_dat_o.val().index() as u32,
            running: b.running_o.val(),
            done: b.done_o.val(),
            trapped: b.trapped_o.val(),
            irq: b.irq_o.val(),
            tr_state: b.tr_state.val().index() as u32,
        }
    }

    fn write(&mut self, adr: u32, dat: u32) -> After {
        let a = self.cycle(Some((true, adr, dat)));
        assert!(a.ack && a.dat == 0, "write {adr:#x}: {a:?}");
        a
    }

    fn read(&mut self, adr: u32) -> u32 {
        let a = self.cycle(Some((false, adr, 0)));
        assert!(a.ack, "read {adr:#x}");
        a.dat
    }

    fn idle(&mut self) -> After {
        let a = self.cycle(None);
        assert!(!a.ack && a.dat == 0);
        a
    }
}

// Addresses of §14.4.
const CTRL: u32 = 0x10000;
const ENTRY_PC: u32 = 0x10001;
const CODE_LEN: u32 = 0x10002;
const GRID: u32 = 0x10003;
const BLOCK: u32 = 0x10006;
const ID: u32 = 0x10100;
const STATUS: u32 = 0x10108;
const LAUNCH: u32 = 0x10109;
const WINDOW: u32 = 0x1010A;
const COUNTER0_LO: u32 = 0x10140;
const COUNTER0_HI: u32 = 0x10141;

/// `STATUS` (§14.4): running [0], done [1], trapped [2], write_ignored
/// [3], refused [4], halted [5], state [10:8].
fn status(running: bool, ignored: bool, refused: bool, halted: bool, state: u32) -> u32 {
    running as u32
        | (ignored as u32) << 3
        | (refused as u32) << 4
        | (halted as u32) << 5
        | state << 8
}

fn load_launch(s: &mut Sim, block: [u32; 3], grid: [u32; 3], code_len: u32) {
    s.write(ENTRY_PC, 0);
    s.write(CODE_LEN, code_len);
    for i in 0..3 {
        s.write(GRID + i, grid[i as usize]);
        s.write(BLOCK + i, block[i as usize]);
    }
}

#[test]
fn start_setup_run_status_and_counters() {
    let mut s = Sim::new(&CoreConfig::default(), &GenOptions::sim());
    assert_eq!(s.read(ID), 0x434E_4332);
    assert_eq!(s.read(STATUS), status(false, false, false, false, 0));
    // Default core: L = W = 8, B = 8, S = 16 KiB (ROWS = 512),
    // max_resident_blocks 4. A block of 8 threads, no shared memory:
    // nwarps 1, limit min(4, 8) = 4, resident 4, window 512 >> 2 = 128
    // rows = 4096 bytes (§12.2).
    load_launch(&mut s, [8, 1, 1], [2, 1, 1], 4);
    let a = s.write(CTRL, 1);
    assert_eq!(a.tr_state, 0, "START's own cycle is IDLE");
    assert!(a.running && !a.done && !a.trapped && !a.irq);
    // SETUP: the next 8 cycles (§12.1); the record of cycle c is on the
    // port during c + 1.
    for i in 0..8 {
        let a = s.idle();
        assert_eq!(a.tr_state, 1, "SETUP cycle {i}");
        assert!(a.running);
    }
    let a = s.idle();
    assert_eq!(a.tr_state, 2, "RUN after 8 SETUP cycles");
    // `cycles` counts SETUP and RUN cycles: 8 + 1 so far; the read's
    // cycle sees that value.
    assert_eq!(s.read(COUNTER0_LO), 9);
    assert_eq!(s.read(COUNTER0_HI), 0);
    // `idle_issue_cycles` (k = 11, address 0x10140 + 2k): RUN cycles in
    // which S selects a bubble. Stage S selects nothing yet, so every RUN
    // cycle counts: RUN began 3 cycles before this read's cycle.
    assert_eq!(s.read(0x10140 + 2 * 11), 3);
    assert_eq!(s.read(STATUS), status(true, false, false, false, 2));
    assert_eq!(s.read(LAUNCH), 8 | 1 << 16 | 4 << 24);
    assert_eq!(s.read(WINDOW), 4096);
    // Launch registers and START are ignored while running (§14.3).
    s.write(ENTRY_PC, 5);
    assert_eq!(s.read(STATUS), status(true, true, false, false, 2));
    s.write(CTRL, 1);
    let a = s.idle();
    assert_eq!(a.tr_state, 2, "START while running is ignored");
    // HALT is kept and read back (§14.4); `halted` with nothing in flight.
    s.write(CTRL, 2);
    assert_eq!(s.read(CTRL), 2);
    assert_eq!(s.read(STATUS) & 1 << 5, 1 << 5);
}

#[test]
fn refused_launch_returns_to_idle() {
    let mut s = Sim::new(&CoreConfig::default(), &GenOptions::board());
    // 65 threads > L · W = 64: refused (§12.1).
    load_launch(&mut s, [65, 1, 1], [1, 1, 1], 4);
    s.write(CTRL, 1);
    for i in 0..8 {
        assert_eq!(s.idle().tr_state, 1, "SETUP cycle {i}");
    }
    let a = s.idle();
    assert_eq!(a.tr_state, 0, "refused: IDLE after SETUP");
    assert!(!a.running && !a.done && !a.irq);
    assert_eq!(s.read(STATUS), status(false, false, true, false, 0));
    // threads 65, nwarps 9, nothing resident; no window.
    assert_eq!(s.read(LAUNCH), 65 | 9 << 16);
    assert_eq!(s.read(WINDOW), 0);
    // `cycles` stops when the core leaves SETUP: 8.
    assert_eq!(s.read(COUNTER0_LO), 8);
    // A zero grid dimension is refused too; START clears `refused` first.
    load_launch(&mut s, [4, 2, 1], [1, 0, 1], 4);
    s.write(CTRL, 1);
    assert_eq!(s.read(STATUS), status(true, false, false, false, 1));
    for _ in 0..7 {
        s.idle();
    }
    assert_eq!(s.read(STATUS), status(false, false, true, false, 0));
    // CODE_LEN above I = 4096 is refused; CODE_LEN = I is not.
    load_launch(&mut s, [4, 1, 1], [1, 1, 1], 4097);
    s.write(CTRL, 1);
    for _ in 0..8 {
        s.idle();
    }
    assert_eq!(s.read(STATUS), status(false, false, true, false, 0));
    s.write(CODE_LEN, 4096);
    s.write(CTRL, 1);
    for _ in 0..8 {
        s.idle();
    }
    assert_eq!(s.read(STATUS), status(true, false, false, false, 2));
}

/// The counters block against `concord_uarch::V2Counters` (the contract's
/// wrapping record): random increments, 16-bit and 64-bit counters, a
/// clear in the middle.
#[test]
fn counters_wrap_at_their_width_and_clear() {
    use concord_hdl::v2::counters::Counters;
    use concord_uarch::counters_v2::{V2Counter, COUNT};
    const CP: common::Ports<Counters> = common::Ports {
        clock: |b| &mut b.clock,
        reset: |b| &mut b.reset,
        rounds: 10,
        name: "counters",
    };
    for bits in [16, 32, 64] {
        let mut c = Counters::new(bits);
        c.connect_all();
        common::reset(&mut c, &CP);
        let mut want = concord_uarch::V2Counters::new(bits);
        let mut rng = common::Rng(0x5eed + bits as u64);
        for cycle in 0..1500 {
            let clear = cycle == 700;
            c.clear.next = clear;
            let incs: Vec<u64> = (0..COUNT).map(|_| rng.below(256)).collect();
            for (p, v) in c.inc.iter_mut().zip(&incs) {
                p.next = (*v).into();
            }
            common::edge(&mut c, &CP);
            if clear {
                want = concord_uarch::V2Counters::new(bits);
            } else {
                for (k, v) in incs.iter().enumerate() {
                    want.add(V2Counter::ALL[k], *v);
                }
            }
            for k in 0..COUNT {
                let v = want.values[k];
                assert_eq!(
                    c.lo[k].val().index() as u64,
                    v & 0xffff_ffff,
                    "{bits}: counter {k}, cycle {cycle}"
                );
                if k < c.hi.len() {
                    assert_eq!(
                        c.hi[k].val().index() as u64,
                        v >> 32,
                        "{bits}: counter {k} high"
                    );
                }
            }
        }
        assert_eq!(c.hi.len(), if bits > 32 { COUNT } else { 1 });
    }
}
