//! The Core v2 top level (`concord_hdl::v2::core`,
//! docs/microarchitecture.md §12.1, §14, §15):
//!
//! * the generated `concord_core` header has exactly the ports of
//!   `concord_uarch::ports::core_ports`, in order, for several
//!   configurations and both presets;
//! * configuration and generator-option errors name the field or option;
//! * a configuration outside the compiled width combinations generates
//!   through a generator built on demand, the same as a compiled one;
//! * the generator's hygiene check (§14.2) rejects an output that is not a
//!   flip-flop and a module name with `$`;
//! * `verilator --lint-only -Wall` is clean (default core with the `sim`
//!   preset, small core with the `board` preset);
//! * the host side in rust-hdl's simulator: `START`, the 8 SETUP cycles,
//!   `RUN`, refusal, `STATUS`, `LAUNCH`, `WINDOW`, `cycles`, `HALT`, writes
//!   while running; expected values worked out by hand from §12.1, §12.2,
//!   §14.3, §14.4 and §15.

mod common;

use concord_hdl::v2::core::{
    check_hygiene, compiled_core_verilog, core_verilog, host_config, Body, CoreGenError,
};
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

/// A valid configuration whose widths are not in the compiled list is
/// refused by the list alone in the configuration's own fields (the
/// message [`core_verilog`] gives when no generator can be built for it):
/// what it is compiled for with the same lanes and warps (the ranges
/// worked out by hand from the dispatch list: the default core's 8-bit
/// register-file address is `registers` 17..=32 at 8 warps), or the lanes
/// x warps pairs.
#[test]
fn an_uncompiled_combination_names_the_fields() {
    let config = CoreConfig {
        registers: 16,
        ..CoreConfig::default()
    };
    match compiled_core_verilog(&config, &GenOptions::board()) {
        Err(CoreGenError::Unsupported { message }) => {
            assert!(message.contains("registers 16, predicates 8"), "{message}");
            assert!(
                message.contains(
                    "with lanes 8 and warps 8 it is compiled for: registers 17..=32, \
                     predicates 8, shared_memory_bytes 16384"
                ),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    let config = CoreConfig {
        warps: 3,
        ..CoreConfig::default()
    };
    match compiled_core_verilog(&config, &GenOptions::board()) {
        Err(CoreGenError::Unsupported { message }) => {
            assert!(message.contains("lanes 8 with warps 3"), "{message}");
            assert!(message.contains("lanes x warps only: 4x1, 4x2, 4x4, 4x8, 4x16, 8x2, 8x4, 8x8, 8x16, 16x2, 32x1, 32x8 "), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

/// Every valid configuration generates: one outside the compiled list
/// (4 lanes x 3 warps; `warps` need not be a power of two) comes from the
/// generator built for its widths on first use (`v2::ondemand`), with the
/// ports of `core_ports`, names without `$`, and a clean `verilator
/// --lint-only -Wall`; and the generator built on demand for the default
/// core's widths writes exactly the compiled list's Verilog.
#[test]
fn an_uncompiled_combination_is_generated_on_demand() {
    let config = CoreConfig {
        lanes: 4,
        warps: 3,
        ..CoreConfig::default()
    };
    let gen = GenOptions::sim();
    assert!(matches!(
        compiled_core_verilog(&config, &gen),
        Err(CoreGenError::Unsupported { .. })
    ));
    let v = core_verilog(&config, &gen).unwrap_or_else(|e| panic!("{e}"));
    let hw = HwParams::new(&config).unwrap();
    let want: Vec<(String, Dir, u32)> = core_ports(&hw, &gen)
        .iter()
        .map(|p| (p.name.to_string(), p.dir, p.width))
        .collect();
    assert_eq!(header(&v), want);
    common::assert_module_names(&v, "concord_core");
    assert!(
        v.contains("for lanes 4 warps 3 "),
        "the file's header names the core"
    );
    common::verilator_lint(&v, "v2-core-4x3", "concord_core.v", "4x3, on demand");
    let default = CoreConfig::default();
    let board = GenOptions::board();
    let built =
        concord_hdl::v2::ondemand::core_verilog(&default, &board).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        built == compiled_core_verilog(&default, &board).unwrap(),
        "the generator built on demand differs from the compiled one"
    );
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
fn verilator_lint_default_small_tiny_wide() {
    let v = core_verilog(&CoreConfig::default(), &GenOptions::sim()).unwrap();
    common::verilator_lint(&v, "v2-core-default", "concord_core.v", "default, sim");
    // One warp: rust-hdl declares the `Bits<1>` warp sets as scalars.
    let small = common::load_config("small.yaml");
    let v = core_verilog(&small, &GenOptions::sim()).unwrap();
    common::verilator_lint(&v, "v2-core-small", "concord_core.v", "small, sim");
    let tiny = common::load_config("tiny.yaml");
    let v = core_verilog(&tiny, &GenOptions::board()).unwrap();
    common::verilator_lint(&v, "v2-core-tiny", "concord_core.v", "tiny, board");
    let wide = common::load_config("wide.yaml");
    let v = core_verilog(&wide, &GenOptions::sim()).unwrap();
    common::verilator_lint(&v, "v2-core-wide", "concord_core.v", "wide, sim");
    let mut ws = concord_hdl::v2::warpstate::WarpState::<8>::new(8);
    ws.connect_all();
    let v = concord_hdl::v2::verilog(&ws);
    common::verilator_lint(&v, "v2-core-warpstate", "top.v", "warp state 8x8");
    let mut ws = concord_hdl::v2::warpstate::WarpState::<32>::new(1);
    ws.connect_all();
    let v = concord_hdl::v2::verilog(&ws);
    common::verilator_lint(&v, "v2-core-warpstate-32", "top.v", "warp state 32x1");
}

// ---- the host side in rust-hdl's simulator ----

/// The body of the default core (`L = W = 8`, `Kt = 6`, 512 rows).
type DefaultBody = Body<8, 8, 6, 9, 56, 8>;

const PORTS: common::Ports<DefaultBody> = common::Ports {
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
    b: Box<DefaultBody>,
}

impl Sim {
    fn new(config: &CoreConfig, gen: &GenOptions) -> Sim {
        let hw = HwParams::new(config).unwrap();
        let map = SlaveMap::new(&host_config(config, &hw, gen));
        let mut b = Box::new(DefaultBody::new(&hw, gen, &map));
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
    // With HALT, S selects only return slots (none here): the pipeline
    // drains within the 7 stages after S.
    s.write(CTRL, 2);
    assert_eq!(s.read(CTRL), 2);
    for _ in 0..7 {
        s.idle();
    }
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

/// The counters block against `concord_uarch::Counters` (the contract's
/// wrapping record): random increments, 16-bit and 64-bit counters, a
/// clear in the middle.
#[test]
fn counters_wrap_at_their_width_and_clear() {
    use concord_hdl::v2::counters::Counters;
    use concord_uarch::counters::{Counter, COUNT};
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
        let mut want = concord_uarch::Counters::new(bits);
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
                want = concord_uarch::Counters::new(bits);
            } else {
                for (k, v) in incs.iter().enumerate() {
                    want.add(Counter::ALL[k], *v);
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

// ---- warp state, readiness and codes (§5.1, §5.4, §5.5) ----

/// One warp of the reference, written from §5.1.
#[derive(Clone, Copy, Default, Debug)]
struct RefWarp {
    gmask: u64,
    gpc: u64,
    gdepth: u64,
    alive: u64,
    waiting: u64,
    replay: bool,
    busy_i: bool,
    busy_r: bool,
    rearb: bool,
    outstanding: u64,
}

/// §5.4 (without `HALT`) for a warp whose slot is in state `st` (RUN = 2).
fn ref_ready(w: &RefWarp, st: u64) -> bool {
    st == 2
        && !w.busy_i
        && !w.busy_r
        && !w.rearb
        && w.gmask != 0
        && (w.replay || w.outstanding == 0)
}

/// §5.5, first matching row (slot states FREE 0, LAUNCH 1, RUN 2, FROZEN 3).
fn ref_code(w: &RefWarp, st: u64) -> u64 {
    match st {
        0 => 0,
        1 => 1,
        3 => 2,
        _ if w.alive == 0 => 2,
        _ if w.busy_i || w.busy_r => 3,
        _ if w.rearb => 4,
        _ if ref_ready(w, st) => 5,
        _ if w.gmask != 0 && !w.replay && w.outstanding > 0 => 6,
        _ => 7,
    }
}

#[test]
fn warp_state_readiness_and_codes() {
    use concord_hdl::v2::warpstate::WarpState;
    const WP: common::Ports<WarpState<8>> = common::Ports {
        clock: |b| &mut b.clock,
        reset: |b| &mut b.reset,
        rounds: 20,
        name: "warp state",
    };
    const NW: usize = 6;
    let mut b = Box::new(WarpState::<8>::new(NW));
    b.connect_all();
    common::reset(&mut *b, &WP);
    let mut rng = common::Rng(0x77a4);
    let mut r = [RefWarp::default(); NW];
    let mut st = [0u64; NW];
    let bit = |w: usize| 1u64 << w;
    let pick = |rng: &mut common::Rng, set: u64| -> Option<usize> {
        let c: Vec<usize> = (0..NW).filter(|w| set >> w & 1 == 1).collect();
        (!c.is_empty()).then(|| c[rng.index(c.len())])
    };
    for cycle in 0..4000 {
        for s in st.iter_mut() {
            if rng.chance(10) {
                *s = rng.below(4);
            }
        }
        // Start-of-cycle outputs against §5.4 / §5.5.
        let f = rng.index(NW);
        let a = rng.index(NW);
        let e = rng.index(NW);
        let d = rng.index(NW);
        b.d_sel.next = bit(d).into();
        b.f_sel.next = bit(f).into();
        b.a_sel.next = bit(a).into();
        b.e_sel.next = bit(e).into();
        for (w, s) in st.iter().enumerate() {
            b.slot_st[w].next = (*s).into();
        }
        // Commands of this cycle, only in combinations the contract allows.
        let ready: u64 = (0..NW).filter(|&w| ref_ready(&r[w], st[w])).map(bit).sum();
        let s_pass = if rng.chance(60) {
            pick(&mut rng, ready)
        } else {
            None
        };
        let busy_i: u64 = (0..NW).filter(|&w| r[w].busy_i).map(bit).sum();
        let a_pass = if rng.chance(50) {
            pick(&mut rng, busy_i)
        } else {
            None
        };
        let ret_ok: u64 = (0..NW)
            .filter(|&w| r[w].outstanding > 0 && !r[w].busy_r && Some(w) != s_pass)
            .map(bit)
            .sum();
        let s_ret = if rng.chance(20) {
            pick(&mut rng, ret_ok)
        } else {
            None
        };
        let busy_r: u64 = (0..NW).filter(|&w| r[w].busy_r).map(bit).sum();
        let a_ret = if a_pass.is_none() && rng.chance(40) {
            pick(&mut rng, busy_r)
        } else {
            None
        };
        let commit = a_pass.filter(|_| rng.chance(80));
        let new = RefWarp {
            gmask: rng.below(256),
            gpc: rng.below(1 << 16),
            gdepth: rng.below(16),
            alive: rng.below(256),
            waiting: rng.below(256),
            replay: rng.chance(30),
            ..Default::default()
        };
        let reserve = commit.is_some() && rng.chance(30) && r[commit.unwrap()].outstanding < 8;
        let release: u64 = if commit.is_some() && rng.chance(10) {
            rng.below(1 << NW)
        } else {
            0
        };
        let rearb_set: u64 = (0..NW).filter(|&w| r[w].rearb).map(bit).sum();
        let engine = if rng.chance(50) {
            pick(&mut rng, rearb_set & !release)
        } else {
            None
        };
        let eg = (rng.below(256), rng.below(1 << 16), rng.below(16));
        let quiet = |w: usize| {
            Some(w) != s_pass
                && Some(w) != a_pass
                && Some(w) != s_ret
                && Some(w) != a_ret
                && Some(w) != engine
                && release >> w & 1 == 0
        };
        let alloc: u64 = (0..NW)
            .filter(|&w| quiet(w) && rng.chance(3))
            .map(bit)
            .sum();
        let start: u64 = (0..NW)
            .filter(|&w| quiet(w) && alloc >> w & 1 == 0 && rng.chance(3))
            .map(bit)
            .sum();
        let start_alive: Vec<u64> = (0..NW).map(|_| rng.below(256)).collect();
        let entry = rng.below(1 << 16);
        let clear = rng.chance(1);
        b.clear.next = clear;
        b.s_pass.next = s_pass.map_or(0, bit).into();
        b.s_ret.next = s_ret.map_or(0, bit).into();
        b.a_pass.next = a_pass.map_or(0, bit).into();
        b.a_ret.next = a_ret.map_or(0, bit).into();
        b.c_we.next = commit.map_or(0, bit).into();
        b.c_gmask.next = new.gmask.into();
        b.c_gpc.next = new.gpc.into();
        b.c_gdepth.next = new.gdepth.into();
        b.c_alive.next = new.alive.into();
        b.c_waiting.next = new.waiting.into();
        b.c_replay.next = new.replay;
        b.c_reserve.next = reserve;
        b.rel.next = release.into();
        b.e_we.next = engine.map_or(0, bit).into();
        b.e_gmask.next = eg.0.into();
        b.e_gpc.next = eg.1.into();
        b.e_gdepth.next = eg.2.into();
        b.alloc.next = alloc.into();
        b.start.next = start.into();
        b.entry_pc.next = entry.into();
        for (w, v) in start_alive.iter().enumerate() {
            b.start_alive[w].next = (*v).into();
        }
        common::settle(&mut *b, &WP);
        let mut codes = 0u64;
        for w in 0..NW {
            let c = ref_code(&r[w], st[w]);
            assert_eq!(
                b.code[w].val().index() as u64,
                c,
                "cycle {cycle} warp {w}: {:?} slot {}",
                r[w],
                st[w]
            );
            codes |= c << (3 * w);
        }
        assert_eq!(b.codes.val().to_u64(), codes, "cycle {cycle}");
        assert_eq!(b.ready.val().index() as u64, ready, "cycle {cycle}");
        assert_eq!(b.rearb.val().index() as u64, rearb_set, "cycle {cycle}");
        assert_eq!(b.f_gmask.val().index() as u64, r[f].gmask);
        assert_eq!(b.f_gpc.val().index() as u64, r[f].gpc);
        assert_eq!(b.f_gdepth.val().index() as u64, r[f].gdepth);
        assert_eq!(b.a_gmask.val().index() as u64, r[a].gmask);
        assert_eq!(b.a_gpc.val().index() as u64, r[a].gpc);
        assert_eq!(b.a_alive.val().index() as u64, r[a].alive);
        assert_eq!(b.a_waiting.val().index() as u64, r[a].waiting);
        assert_eq!(b.e_alive.val().index() as u64, r[e].alive);
        assert_eq!(b.e_waiting.val().index() as u64, r[e].waiting);
        assert_eq!(b.d_gmask.val().index() as u64, r[d].gmask);
        assert_eq!(b.d_gpc.val().index() as u64, r[d].gpc);
        assert_eq!(b.d_gdepth.val().index() as u64, r[d].gdepth);
        assert_eq!(b.d_alive.val().index() as u64, r[d].alive);
        assert_eq!(b.d_waiting.val().index() as u64, r[d].waiting);
        assert_eq!(b.d_busy_i.val(), r[d].busy_i);
        assert_eq!(b.d_busy_r.val(), r[d].busy_r);
        assert_eq!(b.d_replay.val(), r[d].replay);
        assert_eq!(b.d_rearb.val(), r[d].rearb);
        assert_eq!(b.d_outstanding.val().index() as u64, r[d].outstanding);
        assert_eq!(b.a_replay.val(), r[a].replay);
        assert_eq!(b.a_outstanding.val().index() as u64, r[a].outstanding);
        common::edge(&mut *b, &WP);
        // The reference's end of the cycle.
        if clear {
            r = [RefWarp::default(); NW];
            continue;
        }
        if let Some(w) = a_pass {
            r[w].busy_i = false;
        }
        if let Some(w) = a_ret {
            r[w].busy_r = false;
            r[w].outstanding -= 1;
        }
        if let Some(w) = commit {
            let o = r[w];
            r[w] = RefWarp {
                busy_i: o.busy_i,
                busy_r: o.busy_r,
                rearb: o.rearb,
                outstanding: o.outstanding + reserve as u64,
                ..new
            };
        }
        for w in (0..NW).filter(|w| release >> w & 1 == 1) {
            r[w].waiting = 0;
            r[w].rearb = true;
        }
        if let Some(w) = engine {
            (r[w].gmask, r[w].gpc, r[w].gdepth) = eg;
            r[w].rearb = false;
        }
        if let Some(w) = s_pass {
            r[w].busy_i = true;
        }
        if let Some(w) = s_ret {
            r[w].busy_r = true;
        }
        for w in 0..NW {
            if alloc >> w & 1 == 1 {
                r[w].waiting = 0;
                r[w].gmask = 0;
                r[w].replay = false;
                r[w].rearb = false;
            }
            if start >> w & 1 == 1 {
                r[w].alive = start_alive[w];
                r[w].gmask = start_alive[w];
                r[w].gpc = entry;
                r[w].gdepth = 0;
            }
        }
    }
}
