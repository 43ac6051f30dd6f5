//! The Core v2 top level (docs/microarchitecture.md §3, §12.1, §14,
//! §15): [`core_verilog`] builds the core of a configuration and returns
//! its Verilog, top module `concord_core` with exactly the ports of
//! `concord_uarch::ports::core_ports` in their order.
//!
//! Two layers:
//!
//! * **`concord_core__body`** is the rust-hdl design ([`Body`]): the host
//!   slave, the core state machine (`IDLE`, `SETUP`, `RUN`, `STOPPING`,
//!   `DONE`, `TRAP`), the launch registers, the instruction memory and the
//!   parameter LUT-RAM (written through the slave), SETUP, the counters
//!   and the registered trace record. Its ports have the widths of the
//!   largest core (masks 32 lanes, warp indices 4 bits, ...), because a
//!   rust-hdl block's port widths are Rust types, fixed when the generator
//!   is compiled, while §14.2 sizes the ports from the configuration.
//! * **`concord_core`** is a wrapper written as text from the port table:
//!   each port of `core_ports`, connected to the body's port of that name,
//!   cut to the configured width; `tr_record` is the concatenation of the
//!   body's `tr_*` ports in the order and widths of
//!   `concord_uarch::trace::fields`. Nothing in it but wires.
//!
//! The generator checks the hygiene of §14.2 on the text it produced
//! ([`check_hygiene`]): every module name is a plain identifier, and every
//! output of `concord_core` is a flip-flop's output (followed through the
//! body's port assignments into child instances down to a register) or a
//! constant.
//!
//! Milestone status: M1 done (host slave, state machine, memories written
//! by the host, SETUP, the fields of the trace record that need no
//! pipeline). M2: the launch phase (launch unit, stage S, warp state, the
//! S..W item shift, init slots); one-warp cores build; F reads the
//! instruction memory at the pass's pc and D decodes the word (`Decode`),
//! `exec` carried to A. Control path (`ctlpath.rs`, branch `v2ctl`): X
//! control (`XLane` per lane, `XDiverge`), the lane-PC LUT-RAMs (two
//! copies) and depth flip-flops, the arbiter tree(s) (`unified`/`split`),
//! the commit (`ACommit`: advance, control passes from the tree,
//! memory-pass `served`/replay, `alive`/`waiting`, §9.4 barrier and exit
//! accounting with retire to the launch unit), the re-arbitration engine,
//! `tr_a_gpc`/`tr_a_gmask`/`tr_a_pcw`/`tr_a_served`/`tr_tree`/
//! `tr_rearb_warp`, counters 1–9, 12–14, 17, 18; every control
//! instruction (`bra`, `bra.none/any/all`, `jmp`, `call`, `callr`, `ret`,
//! `bar.sync`, `exit`) with divergence and reconvergence; the warp and
//! slot debug words (`dbgwords.rs`: `DBG_GROUP` .. `DBG_FLAGS`,
//! `DBG_LANE_PC`, `DBG_SLOT`).
//! Data path (`datapath.rs`, branch `v2data`): the lanes (register file
//! read at D, operands at R, ALU and multiplier, write at W), every data
//! class (ALU, immediates, constants, `sel`, `s2r` with the thread-id
//! LUT-RAM, `ldparam`, ballot, link values of `call`/`callr`), the
//! predicate file (read at F for D's guard and sources, written at A by
//! `setp`, `pand/por/pxor`, `vote.any/all`, cleared at a block's
//! allocation), init slots' register zeroing, `tr_rf_*`, `tr_pred_*`; the
//! commit (`ctl.commit`) gates both writes.
//! Shared memory (`shmem.rs`, branch `v2shm`): a shared pass's class, load
//! width and atomic op carried R→A, its lanes' addresses X→A; at A the
//! commit's served lanes (commit-gated), the row (the OR of the served
//! lanes' rows: the tree's minimum or the atomic's lane), banks, byte
//! offsets, store data, the atomic's operand and the slot's `base_row`
//! registered for M; init slots' row clears through the same block; the
//! port rule (`port_busy` → `sh_refused` for a shared pass,
//! `launch.a_refused` and `tr_a_kind` `INIT_REFUSED` for a row clear);
//! the load words at W written by the lanes (`ld_en`/`ld_d`, at the
//! pass's `rd` row or a return slot's `rs_w_row`); `tr_sh_*` from the
//! block's write port; `port_busy_replays`. A return slot whose entry
//! had no `ERR` beat takes the same extraction and write (`rs_*`: the
//! global unit's words, lanes, offsets and load type at M, the row
//! `warp · RP + rd` at W).
//! Global memory (`gmem.rs` + `gmaster.rs`, branch `v2gm`): refusal and
//! reservation at A (`gm_refused`, `outstanding` + 1), the entry written at
//! M, the Wishbone master on `gm_*`, responses, write completions
//! (`outstanding` − 1), return slots at S (priority 1) through A (entry
//! freed, `outstanding` − 1, `busy_r`) and W (the shared unit's extension
//! and write path above), `tr_free`, `tr_rsp`, `tr_rsp_entry`, counters
//! 15, 19–22, `DONE`/`halted` waiting for the entries, `DBG_QUEUE`'s four
//! counts (`gmaster.rs`).
//! Traps (`trap.rs`, branch `v2trap`, sections `traps (v2trap)`): causes
//! 1–8 and 10 (4 at F, 3 at D, 8 at R, the others from the control path's
//! per-lane flags at A, 7 after the commit) in §13.1's order
//! (`PassCause`); the held trap with the oldest-slot rule, frozen slots
//! (the launch unit's `trap_slots`), squashed and trapped passes
//! (`ctl.a_kill`; `served` commit-gated), `STOPPING`/`TRAP`,
//! `trapped_o`, `tr_trap`, counter `squashed`, the report registers and
//! their host words (`TrapUnit`). Cause 7's pc is read through copy 2 of
//! the lane-PC LUT-RAM in a cycle the engine does not load (the report
//! waits a cycle otherwise; the frozen block's pcs cannot change). Cause
//! 11 comes from the global unit (`gmem.trap*`) when the failing entry
//! completes, with its first `ERR` beat's byte address. Cause 9 (stack
//! overflow, `stack.rs`): registers built from `STACK_BYTES`, the warp
//! offset selected at X by the pass's `wib`, the per-lane compares at A
//! on `y_a` for executing lanes of a global access. `HALT` (§15.3): S
//! selects only return slots, the launch unit pauses, and the
//! re-arbitration engine loads no warp (`ctl.halt`).
//! Lock-step: every tier of `testbench/tests/verilator_v2.rs` agrees on
//! every trace field and bus signal and the host's register read-back,
//! `paper_goldens` with its trap-9 runs, `HALT` set mid-run and bus
//! errors included (hdl/README.md, "Core v2: the top level").

use std::collections::HashMap;

use concord_isa::config::{ArbiterMode, CoreConfig, Scheduler as Scheduler_};
use concord_uarch::counters::Counter;
use concord_uarch::ports::{core_ports, Dir};
use concord_uarch::regmap::{self, HwConfig, V2Values, CTRL_HALT, LAUNCH_FIELDS, STATUS_FIELDS};
use concord_uarch::{trace, GenOptions, HwParams};
use rust_hdl_core::prelude::*;

use super::acommit::CNT_W;
use super::counters::{Counters, INC_BITS};
use super::ctlpath::CtlPath;
use super::datapath::DataPath;
use super::dbgwords::DebugWords;
use super::decode::Decode;
use super::fieldpack::FieldPack;
use super::gentry::LutRam;
use super::gmem::GlobalMem;
use super::launch::LaunchUnit;
use super::resize::Resize;
use super::scheduler::{Policy, Scheduler};
use super::setup::{Setup, COUNT_BITS, THREADS_BITS};
use super::shmem::Shmem;
use super::stack::StackCheck;
use super::trap::{PassCause, TrapUnit, CAUSE_W};
use super::warpstate::WarpState;
use crate::ram::Ram;
use crate::util::{Ext, Reg, RegE};
use crate::wishbone::slave::{HostSlave, SlaveMap};

/// The top module.
pub const TOP: &str = "concord_core";
/// The rust-hdl design's module (the generator renames rust-hdl's `top`).
pub const BODY: &str = "concord_core__body";

/// Why [`core_verilog`] produced nothing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CoreGenError {
    /// The configuration breaks a rule of `HwParams::new`; `field` is the
    /// YAML field.
    #[error("config field `{field}`: {message}")]
    Config {
        field: &'static str,
        message: String,
    },
    /// A generator option is out of range (`GenOptions::validate`).
    #[error("generator option `{option}`: {message}")]
    Option {
        option: &'static str,
        message: String,
    },
    /// The configuration passes `HwParams::new`, but its combination of
    /// const-generic widths is not in the compiled list (see
    /// `body_verilog`), and no generator could be built for it on demand
    /// ([`super::ondemand`]: the message says why), or
    /// [`compiled_core_verilog`] was asked.
    #[error("unsupported configuration: {message}")]
    Unsupported { message: String },
    /// The generated Verilog breaks the hygiene of §14.2 (a bug of the
    /// generator); `what` names the port or module.
    #[error("hygiene (§14.2), {what}: {message}")]
    Hygiene { what: String, message: String },
}

impl From<concord_isa::config::ConfigError> for CoreGenError {
    fn from(e: concord_isa::config::ConfigError) -> CoreGenError {
        match crate::HdlError::from(e) {
            crate::HdlError::Config { field, message } => CoreGenError::Config { field, message },
        }
    }
}

/// The core state codes of §15.2 (`tr_state`, `STATUS.state`).
pub mod state {
    pub const IDLE: u64 = 0;
    pub const SETUP: u64 = 1;
    pub const RUN: u64 = 2;
    pub const STOPPING: u64 = 3;
    pub const DONE: u64 = 4;
    pub const TRAP: u64 = 5;
}

/// The host-map values of a core built with `gen` (what `HWCFG*` reads and
/// which rows exist).
pub fn host_config(config: &CoreConfig, hw: &HwParams, gen: &GenOptions) -> HwConfig {
    HwConfig::new(
        hw,
        &V2Values {
            scheduler_gto: hw.scheduler == Scheduler_::Gto,
            arbiter_split: hw.arbiter == ArbiterMode::Split,
            max_resident_blocks: config.max_resident_blocks,
            global_outstanding: hw.global_outstanding as u32,
            global_bus_bytes: hw.global_bus_bytes,
            counter_bits: gen.counter_bits,
            trace: gen.trace,
            debug_regs: gen.debug_regs,
        },
    )
}

/// The Verilog of the Core v2 of `config` built with the generator
/// options `gen`: top module `concord_core` with the ports of
/// `concord_uarch::ports::core_ports(&hw, gen)` in that order (§14.2), every
/// module named without `$`, every output from a flip-flop.
///
/// Every configuration that passes `HwParams::new` is generated: a width
/// combination in the compiled list (`body_verilog`) at once, any other by
/// the generator compiled for it on first use ([`super::ondemand`]).
pub fn core_verilog(config: &CoreConfig, gen: &GenOptions) -> Result<String, CoreGenError> {
    match compiled_core_verilog(config, gen) {
        Err(CoreGenError::Unsupported { message }) => super::ondemand::core_verilog(config, gen)
            .map_err(|why| CoreGenError::Unsupported {
                message: format!("{message}; and the generator for it could not be built: {why}"),
            }),
        done => done,
    }
}

/// [`core_verilog`] from the compiled list only: a width combination
/// outside it is [`CoreGenError::Unsupported`], with a message in the
/// configuration's fields.
pub fn compiled_core_verilog(
    config: &CoreConfig,
    gen: &GenOptions,
) -> Result<String, CoreGenError> {
    core_verilog_from(config, gen, body_verilog)
}

/// The body generator of one width combination: [`body_verilog_for`]
/// instantiated, or the compiled list's dispatch.
pub type BodyFn = fn(&HwParams, &GenOptions, &SlaveMap) -> Result<String, CoreGenError>;

/// [`core_verilog`] with the body from `body` (the on-demand generator
/// passes its one [`body_verilog_for`] instance).
pub fn core_verilog_from(
    config: &CoreConfig,
    gen: &GenOptions,
    body: BodyFn,
) -> Result<String, CoreGenError> {
    let hw = HwParams::new(config)?;
    gen.validate().map_err(|e| CoreGenError::Option {
        option: e.option,
        message: e.message,
    })?;
    let map = SlaveMap::new(&host_config(config, &hw, gen));
    let raw = body(&hw, gen, &map)?;
    let mut out = format!(
        "// Concord Core v2 (docs/microarchitecture.md), generated by concord-hdl (rust-hdl 0.46)\n\
         // for lanes {} warps {} (generator options: trace {}, counter_bits {}, debug_regs {}).\n\
         // One file holds every module, so only the top module can match the file name.\n\
         /* verilator lint_off DECLFILENAME */\n",
        hw.lanes, hw.warps, gen.trace, gen.counter_bits, gen.debug_regs
    );
    // ---- control path (v2ctl) ----
    // rust-hdl emits one always block per module, and Verilator orders
    // whole blocks: the control path (`ctlpath.rs`) feeds the commit
    // (`ACommit`) from the tree and reads its outputs in one block, and its
    // retire and allocation signals pass through the launch unit's block
    // to S (`sched$init`). No signal-level loop exists (the lock-step run
    // settles every cycle), but Verilator reports UNOPTFLAT (a
    // simulation-speed warning) on these blocks: waived on the control
    // path's modules and on `sched$init`, as on `launch$init_req` below.
    let mut in_ctl = false;
    let split = hw.arbiter == ArbiterMode::Split;
    for line in raw.lines() {
        // The launch unit computes `init_req` (from its registers) in the
        // always block that also reads `init_take` (S's `init`, which
        // depends on `init_req`): no combinational loop, but Verilator
        // orders whole blocks and reports UNOPTFLAT (a simulation-speed
        // warning). Waived on this one signal until `launch.rs` drives the
        // output from its own block.
        // ---- traps (v2trap): the pass's cause (`tpc$trap`) kills the commit
        // in the control path, whose cause 7 returns to the trap unit's
        // inputs in the same block: no signal-level loop, waived likewise.
        // Its cause 7 pc read (`trap$t_read`, `trap$t_lane`) passes through
        // the control path's copy 2 and back (`ctl$t_pc`) likewise.
        let t = line.trim();
        let waive = t == "wire  launch$init_req;"
            || t == "wire  sched$init;"
            || t == "wire  tpc$trap;"
            || t == "wire  trap$t_read;"
            || (t.starts_with("wire") && t.ends_with(" trap$t_lane;"))
            // The global unit's bus error (`gmem$trap`) reaches the trap
            // unit, whose `freeze` goes back through the launch unit.
            || t == "reg  trap$g_valid;";
        if waive {
            out.push_str("    /* verilator lint_off UNOPTFLAT */\n");
        }
        if line.starts_with("module top$ctl") {
            in_ctl = true;
            out.push_str("/* verilator lint_off UNOPTFLAT */\n");
        }
        // ---- global memory (v2gm) ----
        // The refusal at A reads the ring's `rsv_ok` (flip-flops) and the
        // reservation reads the commit's `served`, which depends on the
        // refusal: no signal-level loop, but the global unit's blocks sit
        // on both sides of the control path's block (UNOPTFLAT, waived as
        // on the control path).
        if line.starts_with("module top$gmem") {
            in_ctl = true;
            out.push_str("/* verilator lint_off UNOPTFLAT */\n");
        }
        out.push_str(&crate::rename_module_on_line(line, |name| {
            if name == "top" {
                Some(BODY.to_string())
            } else if let Some(tree) = arbiter_module(name, split) {
                // ---- control path (v2ctl): §9.1's names of the trees ----
                Some(tree.to_string())
            } else {
                name.strip_prefix("top$")
                    .map(|rest| format!("{TOP}__{}", rest.replace('$', "__")))
            }
        }));
        out.push('\n');
        if waive {
            out.push_str("    /* verilator lint_on UNOPTFLAT */\n");
        }
        if in_ctl && line.starts_with("endmodule") {
            in_ctl = false;
            out.push_str("/* verilator lint_on UNOPTFLAT */\n");
        }
    }
    out.push_str(&wrapper(&hw, gen)?);
    check_hygiene(&out, &hw, gen)?;
    Ok(out)
}

/// The module name of §9.1 for the control path's tree `name` (rust-hdl's
/// name): `concord_arbiter` (`unified`), `concord_arbiter_branch` and
/// `concord_arbiter_mem` (`split`). Under `unified` the memory tree is
/// constant-fed and unread (synthesis removes it) and keeps its path name.
fn arbiter_module(name: &str, split: bool) -> Option<&'static str> {
    match (name, split) {
        ("top$ctl$tree_b", false) => Some("concord_arbiter"),
        ("top$ctl$tree_b", true) => Some("concord_arbiter_branch"),
        ("top$ctl$tree_m", true) => Some("concord_arbiter_mem"),
        _ => None,
    }
}

/// `Kt` (thread-id component bits) and `row_bits` of a core: with `L` and
/// `W`, the const generics of the launch unit.
pub fn body_generics(hw: &HwParams) -> (usize, usize, usize, usize) {
    let kt = (hw.lanes * hw.warps).next_power_of_two().trailing_zeros() as usize;
    (
        hw.lanes,
        hw.warps,
        kt,
        hw.shared_rows.trailing_zeros() as usize,
    )
}

/// `PB = (P-1)·L` (predicate bank bits) and `AW = ⌈log2(W·RP)⌉`
/// (register-file address bits; `W·RP` is not a power of two when `W` is
/// not, and the rows past it are unused): the decoder's const generics.
pub fn decode_generics(hw: &HwParams) -> (usize, usize) {
    (
        (hw.predicates - 1) * hw.lanes,
        hw.rf_rows.next_power_of_two().trailing_zeros() as usize,
    )
}

/// The body of the width combination `(L, W, K, RB, PB, AW)` (see
/// [`body_generics`] and [`decode_generics`]; the blocks assert that they
/// are `hw`'s): one instance per combination, in the compiled list
/// (`body_verilog`) or in a generator built on demand
/// ([`super::ondemand`]).
pub fn body_verilog_for<
    const L: usize,
    const W: usize,
    const K: usize,
    const RB: usize,
    const PB: usize,
    const AW: usize,
>(
    hw: &HwParams,
    gen: &GenOptions,
    map: &SlaveMap,
) -> Result<String, CoreGenError> {
    let mut body = Body::<L, W, K, RB, PB, AW>::new(hw, gen, map);
    body.connect_all();
    Ok(generate_verilog(&body))
}

/// The body's Verilog (rust-hdl's names, top module `top`).
///
/// The launch unit (`launch::LaunchUnit<L, W, K, RB, IB>`), the scheduler
/// (`Scheduler<W>`) and the warp state (`WarpState<L>`) size their ports
/// with const generics that must equal the configuration's values, so the
/// body is one Rust type per `(L, W, Kt, row_bits, PB, AW)`: this list is
/// the set compiled into this crate (the configurations of `configs/` and
/// of the Verilator harness). Any other gives `CoreGenError::Unsupported`
/// here, and [`core_verilog`] builds a generator for it
/// ([`super::ondemand`]). Without the feature `compiled-widths` (the
/// on-demand generators' own build of this crate) the list is empty.
fn body_verilog(hw: &HwParams, gen: &GenOptions, map: &SlaveMap) -> Result<String, CoreGenError> {
    macro_rules! dispatch {
        ($($l:literal $w:literal $k:literal $rb:literal $pb:literal $aw:literal),* $(,)?) => {{
            const COMPILED: &[[usize; 6]] = &[$([$l, $w, $k, $rb, $pb, $aw]),*];
            match (body_generics(hw), decode_generics(hw)) {
                $((($l, $w, $k, $rb), ($pb, $aw)) => body_verilog_for::<$l, $w, $k, $rb, $pb, $aw>(hw, gen, map),)*
                _ => Err(CoreGenError::Unsupported {
                    message: unsupported_message(hw, COMPILED),
                }),
            }
        }};
    }
    #[cfg(not(feature = "compiled-widths"))]
    return {
        let _ = (gen, map);
        dispatch!()
    };
    // L W Kt row_bits (P-1)L log2(W RP)
    #[cfg(feature = "compiled-widths")]
    dispatch!(
        8 8 6 9 56 8,    // default
        4 1 2 9 28 5,    // small
        4 2 3 6 12 5,    // tiny
        32 8 8 9 224 8,  // wide
        4 16 6 9 28 9,   // stress-blocks, stress-latency
        4 4 4 9 28 7,
        8 4 5 9 56 7,
        8 2 4 9 56 6,
        16 2 5 9 112 6,
        4 8 5 9 28 8,
        8 16 7 9 56 9,
        4 4 4 12 28 7,   // the harness's case core (one bank)
        4 8 5 12 28 8,
        4 16 6 12 28 9,
        4 2 3 12 28 6,
        32 1 5 9 224 5,  // the harness's random-program cores
    )
}

/// The message of [`CoreGenError::Unsupported`] for `hw`, whose widths are
/// not among `compiled` (the dispatch list of [`body_verilog`], as `[L, W,
/// Kt, row_bits, PB, AW]`): in the configuration's own fields, what the
/// generator is compiled for with the same `lanes` and `warps` (the other
/// widths follow from `registers`, `predicates`, `shared_memory_bytes` and
/// `shared_banks`), or the lanes/warps pairs it is compiled for.
fn unsupported_message(hw: &HwParams, compiled: &[[usize; 6]]) -> String {
    let (lanes, warps) = (hw.lanes, hw.warps);
    let lead = format!(
        "the RTL generator is compiled for a fixed list of width combinations \
         (hdl/src/v2/core.rs, `body_verilog`), and lanes {lanes} with warps {warps}, \
         registers {}, predicates {}, shared_memory_bytes {} in {} banks is not in it",
        hw.registers, hw.predicates, hw.shared_bytes, hw.shared_banks
    );
    let same: Vec<&[usize; 6]> = compiled
        .iter()
        .filter(|c| c[0] == lanes && c[1] == warps)
        .collect();
    if same.is_empty() {
        let mut pairs: Vec<(usize, usize)> = compiled.iter().map(|c| (c[0], c[1])).collect();
        pairs.sort_unstable();
        pairs.dedup();
        let pairs: Vec<String> = pairs.iter().map(|(l, w)| format!("{l}x{w}")).collect();
        return format!(
            "{lead}; it is compiled for these lanes x warps only: {} (the cycle and \
             functional models run any valid configuration)",
            pairs.join(", ")
        );
    }
    let options: Vec<String> = same
        .iter()
        .map(|c| {
            // RP = 2^AW / W: `registers` whose next power of two is RP.
            let rp = (1usize << c[5]) / warps;
            let registers = if rp <= 4 {
                format!("{rp}")
            } else {
                format!("{}..={rp}", rp / 2 + 1)
            };
            let predicates = c[4] / lanes + 1;
            let shared = (1usize << c[3]) * 4 * hw.shared_banks;
            format!("registers {registers}, predicates {predicates}, shared_memory_bytes {shared}")
        })
        .collect();
    format!(
        "{lead}; with lanes {lanes} and warps {warps} it is compiled for: {} \
         (with shared_banks {}; the cycle and functional models run any valid configuration)",
        options.join("; or "),
        hw.shared_banks
    )
}

/// How the body carries a field of the trace record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TrPort {
    /// One port of this many bits (1: a scalar).
    Bits(u32),
    /// A vector of ports (`tr_x$0`, `tr_x$1`, ...) of this many bits each,
    /// element 0 lowest.
    Words(u32),
}

/// The body's port for trace field `name` (`concord_uarch::trace::fields`).
fn tr_port(name: &str) -> Option<TrPort> {
    use TrPort::*;
    Some(match name {
        "s_replay" | "rsp" | "alloc" | "start" | "retire" | "trap" => Bits(1),
        "s_kind" => Bits(2),
        "state" | "a_kind" | "tree" => Bits(3),
        "s_warp" | "a_warp" | "rearb_warp" | "rsp_entry" | "alloc_slot" | "start_slot"
        | "retire_slot" => Bits(4),
        "free" => Bits(5),
        "pred_addr" => Bits(7),
        "a_pc" | "a_gpc" | "rf_addr" | "sh_row" => Bits(16),
        "a_active" | "a_exec" | "a_served" | "a_gmask" | "a_pcw" | "pred_we" | "pred_data"
        | "rf_we" => Bits(32),
        "warp_state" => Bits(48),
        "rf_data" | "sh_data" => Words(32),
        "sh_we" => Words(4),
        _ => return None,
    })
}

/// The body's port connected to top-level port `name`, and its width
/// (`None`: the port is a vector of 32-bit or 4-bit words).
fn body_port(name: &str) -> Option<(String, Option<u32>)> {
    Some(match name {
        "clk" => ("clock".into(), Some(1)),
        "rst" => ("reset".into(), Some(1)),
        "wbs_adr_i" => (name.into(), Some(regmap::ADDR_BITS as u32)),
        "wbs_dat_i" | "wbs_dat_o" => (name.into(), Some(32)),
        "gm_adr_o" => (name.into(), Some(32)),
        "gm_tga_o" => (name.into(), Some(4)),
        "gm_sel_o" | "gm_dat_o" | "gm_dat_i" => (name.into(), None),
        "tr_record" => return None,
        _ => (name.into(), Some(1)),
    })
}

/// `concord_core`: the ports of `core_ports`, each wired to the body.
fn wrapper(hw: &HwParams, gen: &GenOptions) -> Result<String, CoreGenError> {
    let ports = core_ports(hw, gen);
    let decl = |w: u32| {
        if w == 1 {
            String::new()
        } else {
            format!("[{}:0] ", w - 1)
        }
    };
    let mut head = String::new();
    let mut wires = String::new();
    let mut conns: Vec<String> = Vec::new();
    let mut unused: Vec<String> = Vec::new();
    for p in &ports {
        head.push_str(&format!(
            "    {} wire {}{};\n",
            p.dir.verilog(),
            decl(p.width),
            p.name
        ));
        if p.name == "tr_record" {
            continue;
        }
        let (b, bw) = body_port(p.name).ok_or_else(|| CoreGenError::Hygiene {
            what: format!("port {}", p.name),
            message: "no body port for it".into(),
        })?;
        match bw {
            Some(bw) if bw == p.width => conns.push(format!(".{b}({})", p.name)),
            Some(bw) => {
                assert!(bw > p.width, "{}", p.name);
                if p.dir == Dir::In {
                    conns.push(format!(".{b}({{{}'d0, {}}})", bw - p.width, p.name));
                } else {
                    wires.push_str(&format!("    wire [{}:0] b_{b};\n", bw - 1));
                    conns.push(format!(".{b}(b_{b})"));
                    wires.push_str(&format!(
                        "    assign {} = b_{b}[{}:0];\n",
                        p.name,
                        p.width - 1
                    ));
                    unused.push(format!("b_{b}[{}:{}]", bw - 1, p.width));
                }
            }
            None => {
                // A vector of words: `gm_sel_o` in 4-bit, the data in
                // 32-bit elements.
                let ew = if p.name == "gm_sel_o" { 4 } else { 32 };
                assert_eq!(p.width % ew, 0, "{}", p.name);
                for k in 0..p.width / ew {
                    conns.push(format!(
                        ".{b}${k}({}[{}:{}])",
                        p.name,
                        ew * k + ew - 1,
                        ew * k
                    ));
                }
            }
        }
    }
    // The trace record: every field of §15.2 in table order, field 0 at
    // bit 0; a field of width 0 takes no bits.
    let mut parts: Vec<String> = Vec::new();
    for f in trace::fields(hw) {
        let kind = tr_port(f.name).ok_or_else(|| CoreGenError::Hygiene {
            what: format!("trace field tr_{}", f.name),
            message: "the body has no port for it".into(),
        })?;
        let b = format!("tr_{}", f.name);
        match kind {
            TrPort::Bits(bw) => {
                if bw > 1 {
                    wires.push_str(&format!("    wire [{}:0] b_{b};\n", bw - 1));
                } else {
                    wires.push_str(&format!("    wire b_{b};\n"));
                }
                conns.push(format!(".{b}(b_{b})"));
                if f.width > bw {
                    return Err(CoreGenError::Hygiene {
                        what: b,
                        message: format!("{} bits, the body has {bw}", f.width),
                    });
                }
                if f.width == 0 {
                    unused.push(format!("b_{b}"));
                } else if bw == 1 {
                    parts.push(format!("b_{b}"));
                } else {
                    parts.push(format!("b_{b}[{}:0]", f.width - 1));
                    if f.width < bw {
                        unused.push(format!("b_{b}[{}:{}]", bw - 1, f.width));
                    }
                }
            }
            TrPort::Words(ew) => {
                assert_eq!(f.width % ew, 0, "tr_{}", f.name);
                for k in 0..f.width / ew {
                    wires.push_str(&format!("    wire [{}:0] b_{b}_{k};\n", ew - 1));
                    conns.push(format!(".{b}${k}(b_{b}_{k})"));
                    parts.push(format!("b_{b}_{k}"));
                }
            }
        }
    }
    if gen.trace {
        parts.reverse();
        wires.push_str(&format!(
            "    assign tr_record = {{{}}};\n",
            parts.join(", ")
        ));
    } else {
        unused.extend(parts);
    }
    if !unused.is_empty() {
        // The body's ports are as wide as the largest core's; the bits
        // above this core's widths (and, without the trace option, the
        // whole record) go nowhere.
        wires.push_str(&format!(
            "    wire unused_body_bits = &{{1'b0, {}}};\n",
            unused.join(", ")
        ));
    }
    let names: Vec<&str> = ports.iter().map(|p| p.name).collect();
    Ok(format!(
        "\n// The top level of §14.2: the configured port widths around the body.\n\
         module {TOP}({});\n{head}\n{wires}\n    {BODY} body(\n        {}\n    );\nendmodule // {TOP}\n",
        names.join(", "),
        conns.join(",\n        ")
    ))
}

/// The hygiene of §14.2 on the generated text: module names are plain
/// identifiers, and every output of the top module is a flip-flop's output
/// or a constant.
pub fn check_hygiene(v: &str, hw: &HwParams, gen: &GenOptions) -> Result<(), CoreGenError> {
    let modules = split_modules(v);
    for name in modules.keys() {
        let ok = name.starts_with(|c: char| c.is_ascii_alphabetic())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ok {
            return Err(CoreGenError::Hygiene {
                what: format!("module {name}"),
                message: "not a plain identifier".into(),
            });
        }
    }
    for p in core_ports(hw, gen).iter().filter(|p| p.dir == Dir::Out) {
        let body_ports: Vec<String> = if p.name == "tr_record" {
            trace::fields(hw)
                .iter()
                .filter(|f| f.width > 0)
                .flat_map(|f| match tr_port(f.name).unwrap() {
                    TrPort::Bits(_) => vec![format!("tr_{}", f.name)],
                    TrPort::Words(ew) => (0..f.width / ew)
                        .map(|k| format!("tr_{}${k}", f.name))
                        .collect(),
                })
                .collect()
        } else {
            match body_port(p.name).unwrap() {
                (b, Some(_)) => vec![b],
                (b, None) => {
                    let ew = if p.name == "gm_sel_o" { 4 } else { 32 };
                    (0..p.width / ew).map(|k| format!("{b}${k}")).collect()
                }
            }
        };
        for b in body_ports {
            registered(&modules, BODY, &b, 0).map_err(|message| CoreGenError::Hygiene {
                what: format!("output {} ({b})", p.name),
                message,
            })?;
        }
    }
    Ok(())
}

/// Each module's text, by name.
fn split_modules(v: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let mut cur: Option<(String, String)> = None;
    for line in v.lines() {
        if let Some(rest) = line.strip_prefix("module ") {
            let name = rest[..rest.find('(').unwrap_or(rest.len())]
                .trim()
                .to_string();
            cur = Some((name, String::new()));
        }
        if let Some((_, text)) = cur.as_mut() {
            text.push_str(line);
            text.push('\n');
        }
        if line.starts_with("endmodule") {
            if let Some((name, text)) = cur.take() {
                out.insert(name, text);
            }
        }
    }
    out
}

/// Whether output `port` of `module` is a flip-flop's output: assigned in
/// a clocked block (`port <=`), or assigned (`port = x;`) from a constant
/// or from an output of a child instance that is itself registered.
fn registered(
    modules: &HashMap<String, String>,
    module: &str,
    port: &str,
    depth: usize,
) -> Result<(), String> {
    let text = modules
        .get(module)
        .ok_or_else(|| format!("module {module} not found"))?;
    if depth > 16 {
        return Err(format!("{module}.{port}: too deep"));
    }
    if text.contains(&format!(" {port} <= ")) && text.contains("always @(posedge clock)") {
        return Ok(());
    }
    let assign = format!(" {port} = ");
    let mut found = None;
    for line in text.lines() {
        if let Some(at) = line.find(&assign) {
            if line[..at].trim().is_empty() {
                if found.is_some() {
                    return Err(format!("{module}.{port}: assigned more than once"));
                }
                found = Some(
                    line[at + assign.len()..]
                        .trim()
                        .trim_end_matches(';')
                        .to_string(),
                );
            }
        }
    }
    let rhs = found.ok_or_else(|| format!("{module}.{port}: no assignment found"))?;
    let is_const = |s: &str| {
        s.chars().next().is_some_and(|c| c.is_ascii_digit())
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '\'')
    };
    // rust-hdl writes a `Constant` field as a `localparam` of its module.
    let is_param = |s: &str| {
        text.lines().any(|l| {
            l.trim_start()
                .strip_prefix("localparam")
                .is_some_and(|r| r.trim_start().starts_with(&format!("{s} = ")))
        })
    };
    if is_const(&rhs) || is_param(&rhs) {
        return Ok(());
    }
    // A child's output: `inst$port` (rust-hdl's local name of a child port;
    // a vector element is `inst$k$port`).
    let (inst, child_port) = rhs
        .rsplit_once('$')
        .filter(|(i, p)| !i.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .ok_or_else(|| format!("{module}.{port} = {rhs}: not a register or a child's output"))?;
    // A child's vector port: `inst$port$k` (the global unit's bus words).
    let (inst, child_port) = match inst.rsplit_once('$') {
        Some((i, p)) if child_port.chars().all(|c| c.is_ascii_digit()) && !i.is_empty() => {
            (i, format!("{p}${child_port}"))
        }
        _ => (inst, child_port.to_string()),
    };
    let child_port = child_port.as_str();
    let child = format!("{module}__{}", inst.replace('$', "__"));
    let child = if module == BODY {
        format!("{TOP}__{}", inst.replace('$', "__"))
    } else {
        child
    };
    registered(modules, &child, child_port, depth + 1)
}

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.into())
}

/// Names of the readable host words the body drives (`SlaveMap::reads`),
/// in address order; the debug words follow when present.
const READ_WORDS: [&str; 18] = [
    "CTRL",
    "STATUS",
    "LAUNCH",
    "WINDOW",
    "WSTATE0",
    "WSTATE1",
    "TRAP_CAUSE",
    "TRAP_PC",
    "TRAP_WARP",
    "TRAP_LANES",
    "TRAP_BLOCK_X",
    "TRAP_BLOCK_Y",
    "TRAP_BLOCK_Z",
    "TRAP_ADDR",
    "TRAP_DETAIL",
    "TRAP_ARRIVED",
    "TRAP_EXITED",
    "TRAP_THREADS",
];

/// The writable rows, in `SlaveMap::writes` order (the debug selectors
/// follow when present).
const WRITE_ROWS: [&str; 16] = [
    "IMEM",
    "CTRL",
    "ENTRY_PC",
    "CODE_LEN",
    "GRID_X",
    "GRID_Y",
    "GRID_Z",
    "BLOCK_X",
    "BLOCK_Y",
    "BLOCK_Z",
    "PARAM_COUNT",
    "STACK_BYTES",
    "SHARED_BYTES",
    "CLEAR_REGS",
    "CLEAR_SHARED",
    "PARAM",
];

/// Bits of the launch unit's init-slot counter: `2^IB > max(R·W, ROWS)`
/// for every configuration (`R·W ≤ 512`, `ROWS ≤ 2^18`).
const IB: usize = 19;

/// The launch registers (`ENTRY_PC` .. `CLEAR_SHARED`).
const LAUNCH_REGS: usize = 13;

/// The rust-hdl design of the core (module `concord_core__body`).
#[derive(LogicBlock)]
pub struct Body<
    const L: usize,
    const W: usize,
    const K: usize,
    const RB: usize,
    const PB: usize,
    const AW: usize,
> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub wbs_cyc_i: Signal<In, bool>,
    pub wbs_stb_i: Signal<In, bool>,
    pub wbs_we_i: Signal<In, bool>,
    pub wbs_adr_i: Signal<In, Bits<{ regmap::ADDR_BITS }>>,
    pub wbs_dat_i: Signal<In, Bits<32>>,
    pub wbs_dat_o: Signal<Out, Bits<32>>,
    pub wbs_ack_o: Signal<Out, bool>,
    pub wbs_stall_o: Signal<Out, bool>,
    pub gm_cyc_o: Signal<Out, bool>,
    pub gm_stb_o: Signal<Out, bool>,
    pub gm_we_o: Signal<Out, bool>,
    pub gm_adr_o: Signal<Out, Bits<32>>,
    pub gm_sel_o: Vec<Signal<Out, Bits<4>>>,
    pub gm_dat_o: Vec<Signal<Out, Bits<32>>>,
    pub gm_tga_o: Signal<Out, Bits<4>>,
    pub gm_dat_i: Vec<Signal<In, Bits<32>>>,
    pub gm_ack_i: Signal<In, bool>,
    pub gm_err_i: Signal<In, bool>,
    pub gm_stall_i: Signal<In, bool>,
    pub running_o: Signal<Out, bool>,
    pub done_o: Signal<Out, bool>,
    pub trapped_o: Signal<Out, bool>,
    pub irq_o: Signal<Out, bool>,
    // The trace record (§15.2), one port per field (see `tr_port`).
    pub tr_state: Signal<Out, Bits<3>>,
    pub tr_s_kind: Signal<Out, Bits<2>>,
    pub tr_s_warp: Signal<Out, Bits<4>>,
    pub tr_s_replay: Signal<Out, bool>,
    pub tr_a_kind: Signal<Out, Bits<3>>,
    pub tr_a_warp: Signal<Out, Bits<4>>,
    pub tr_a_pc: Signal<Out, Bits<16>>,
    pub tr_a_active: Signal<Out, Bits<32>>,
    pub tr_a_exec: Signal<Out, Bits<32>>,
    pub tr_a_served: Signal<Out, Bits<32>>,
    pub tr_a_gpc: Signal<Out, Bits<16>>,
    pub tr_a_gmask: Signal<Out, Bits<32>>,
    pub tr_a_pcw: Signal<Out, Bits<32>>,
    pub tr_tree: Signal<Out, Bits<3>>,
    pub tr_rearb_warp: Signal<Out, Bits<4>>,
    pub tr_pred_we: Signal<Out, Bits<32>>,
    pub tr_pred_addr: Signal<Out, Bits<7>>,
    pub tr_pred_data: Signal<Out, Bits<32>>,
    pub tr_rf_we: Signal<Out, Bits<32>>,
    pub tr_rf_addr: Signal<Out, Bits<16>>,
    pub tr_rf_data: Vec<Signal<Out, Bits<32>>>,
    pub tr_sh_we: Vec<Signal<Out, Bits<4>>>,
    pub tr_sh_row: Signal<Out, Bits<16>>,
    pub tr_sh_data: Vec<Signal<Out, Bits<32>>>,
    pub tr_rsp: Signal<Out, bool>,
    pub tr_rsp_entry: Signal<Out, Bits<4>>,
    pub tr_free: Signal<Out, Bits<5>>,
    pub tr_alloc: Signal<Out, bool>,
    pub tr_start: Signal<Out, bool>,
    pub tr_retire: Signal<Out, bool>,
    pub tr_alloc_slot: Signal<Out, Bits<4>>,
    pub tr_start_slot: Signal<Out, Bits<4>>,
    pub tr_retire_slot: Signal<Out, Bits<4>>,
    pub tr_warp_state: Signal<Out, Bits<48>>,
    pub tr_trap: Signal<Out, bool>,

    // ---- host side ----
    slave: HostSlave,
    setup: Setup,
    /// The instruction memory, `I` words, written by the host.
    imem: Ram<32, 16>,
    /// `PARAM[0..16]`, written by the host.
    params: LutRam<32>,
    /// `ENTRY_PC` .. `CLEAR_SHARED`, in `WRITE_ROWS` order.
    lreg: Vec<RegE<Bits<32>>>,
    halt: RegE<bool>,
    write_ignored: RegE<bool>,
    refused: RegE<bool>,
    dbg_warp: RegE<Bits<32>>,
    dbg_lane: RegE<Bits<32>>,
    // `LAUNCH` and `WINDOW` (latched in the last SETUP cycle).
    l_threads: RegE<Bits<THREADS_BITS>>,
    l_nwarps: RegE<Bits<COUNT_BITS>>,
    l_resident: RegE<Bits<COUNT_BITS>>,
    l_window: RegE<Bits<32>>,
    // ---- core state ----
    st: RegE<Bits<3>>,
    running_r: RegE<bool>,
    done_r: RegE<bool>,
    trapped_r: RegE<bool>,
    irq_r: RegE<bool>,
    /// The counters of §15.1.
    ctr: Counters,
    one8: Constant<Bits<INC_BITS>>,
    zero8: Constant<Bits<INC_BITS>>,
    /// S selects an item in this cycle (a return slot, init slot or warp).
    s_item: Signal<Local, bool>,
    // ---- host words ----
    pk_ctrl: FieldPack,
    pk_status: FieldPack,
    pk_launch: FieldPack,
    x_state: Ext<3, 32>,
    x_threads: Ext<THREADS_BITS, 32>,
    x_nwarps: Ext<COUNT_BITS, 32>,
    x_resident: Ext<COUNT_BITS, 32>,
    // ---- launch, stage S, warp state (M2) ----
    launch: LaunchUnit<L, W, K, RB, IB>,
    sched: Scheduler<W>,
    warps: WarpState<L>,
    z_block_x: Resize<32, K>,
    z_block_y: Resize<32, K>,
    z_threads: Resize<THREADS_BITS, K>,
    z_window: Resize<32, RB>,
    z_clear_rows: Resize<32, IB>,
    z_ready: Resize<16, W>,
    z_alloc: Resize<W, 16>,
    z_start: Resize<W, 16>,
    z_sel: Resize<W, 16>,
    z_entry: Resize<32, 16>,
    z_row: Resize<RB, 16>,
    z_a_warp: Resize<4, 16>,
    /// Outputs of the launch unit, S and the warp state that the stages
    /// still to come (F..X, the commit, the engine, the thread-id LUT-RAM)
    /// will read.
    unused_pending: Signal<Local, bool>,
    /// The item in F, D, R, X, A, M, W (index 0 = F): kind (`s_kind`
    /// codes), warp index, warp one-hot, init-slot targets.
    p_kind: Vec<Reg<Bits<2>>>,
    p_warp: Vec<Reg<Bits<4>>>,
    p_has_reg: Vec<Reg<bool>>,
    p_reg: Vec<Reg<Bits<5>>>,
    p_has_row: Vec<Reg<bool>>,
    p_row: Vec<Reg<Bits<RB>>>,
    /// A warp pass's pc and active lanes (its group when S picked it:
    /// the group cannot change before the pass's own commit, §4.2), up
    /// to A.
    p_pc: Vec<Reg<Bits<16>>>,
    p_active: Vec<Reg<Bits<L>>>,
    z_active: Resize<L, 32>,
    /// Stage D (§7): the word the instruction memory read at F (address
    /// `p_pc[0]`), decoded; its outputs are registered, valid at R.
    decode: Decode<L, PB, AW>,
    /// `exec = active & guard` at X and A.
    p_exec: Vec<Reg<Bits<L>>>,
    z_exec: Resize<L, 32>,
    r_a_exec: Reg<Bits<32>>,
    r_a_pc: Reg<Bits<16>>,
    r_a_active: Reg<Bits<32>>,
    /// The warp index of S's pick (an OR chain over the one-hot).
    s_idx: Vec<Signal<Local, Bits<4>>>,
    s_kind: Signal<Local, Bits<2>>,
    s_warp: Signal<Local, Bits<4>>,
    a_oh: Signal<Local, Bits<16>>,
    pipe_empty: Signal<Local, bool>,
    // Trace registers of the fields M2 drives.
    r_s_kind: Reg<Bits<2>>,
    r_s_warp: Reg<Bits<4>>,
    r_s_replay: Reg<bool>,
    r_a_kind: Reg<Bits<3>>,
    r_a_warp: Reg<Bits<4>>,
    r_rf_we: Reg<Bits<32>>,
    r_rf_addr: Reg<Bits<16>>,
    z_ws0: Resize<48, 32>,
    z_ws1: Resize<48, 32>,
    ws_shift: Constant<Bits<48>>,
    r_sh_row: Reg<Bits<16>>,
    r_alloc: Reg<bool>,
    r_start: Reg<bool>,
    r_retire: Reg<bool>,
    r_alloc_slot: Reg<Bits<4>>,
    r_start_slot: Reg<Bits<4>>,
    r_retire_slot: Reg<Bits<4>>,
    r_warp_state: Reg<Bits<48>>,
    widx: Vec<Constant<Bits<4>>>,
    k_init: Constant<Bits<2>>,
    k_warp: Constant<Bits<2>>,
    k_a_init: Constant<Bits<3>>,
    k_a_committed: Constant<Bits<3>>,
    one16: Constant<Bits<16>>,
    _w: usize,
    _w1: usize,
    _slots: usize,
    // ---- trace record registers ----
    r_state: Reg<Bits<3>>,
    // Constants and locals.
    s_idle: Constant<Bits<3>>,
    s_setup: Constant<Bits<3>>,
    s_run: Constant<Bits<3>>,
    s_stopping: Constant<Bits<3>>,
    s_done: Constant<Bits<3>>,
    s_trap: Constant<Bits<3>>,
    zero32: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
    zero2: Constant<Bits<2>>,
    zero4: Constant<Bits<4>>,
    zero5: Constant<Bits<5>>,
    zero16: Constant<Bits<16>>,
    row_shift: Constant<Bits<32>>,
    next_st: Signal<Local, Bits<3>>,
    is_running: Signal<Local, bool>,
    unused_mem: Signal<Local, bool>,
    _nsel: usize,
    _ndat: usize,
    _nrd: usize,
    _nlo: usize,
    _nhi: usize,
    _lanes: usize,
    _banks: usize,
    /// One-iteration loops naming the debug words' `rd` indices (empty
    /// without `debug_regs`): `DBG_WARP` and `DBG_LANE`.
    _dw: usize,
    _dw1: usize,
    _dl: usize,
    _dl1: usize,
    /// Write-enable indices of `DBG_WARP` and `DBG_LANE`.
    _ww: usize,
    _ww1: usize,
    _wl: usize,
    _wl1: usize,
    /// `DBG_QUEUE`'s `rd` index (a one-iteration loop; empty without
    /// `debug_regs`).
    _dq: usize,
    _dq1: usize,
    z_free: Resize<5, 32>,
    z_qsend: Resize<5, 32>,
    z_qresp: Resize<5, 32>,
    z_qret: Resize<5, 32>,
    // ---- data path (v2data) ----
    /// Lanes, operands, special registers, predicate file, register-file
    /// writes (`datapath.rs`).
    dp: DataPath<L, W, K, PB, AW>,
    z_rf_we: Resize<L, 32>,
    z_rf_addr: Resize<AW, 16>,
    z_pred_we: Resize<L, 32>,
    z_pred_data: Resize<L, 32>,
    r_rf_data: Vec<Reg<Bits<32>>>,
    r_pred_we: Reg<Bits<32>>,
    r_pred_addr: Reg<Bits<7>>,
    r_pred_data: Reg<Bits<32>>,
    /// The operands and addresses the control path reads at X (not yet).
    unused_dp: Signal<Local, bool>,
    // ---- memory refusals at A (§10.1 port rule, §10.2 no free entry):
    // one signal per memory unit, ORed into the commit's `refused` ----
    sh_refused: Signal<Local, bool>,
    gm_refused: Signal<Local, bool>,
    // ---- shared memory (v2shm) ----
    /// The banks, crossbars, atomic ALU, row clear and port rule (§10.1,
    /// `shmem.rs`); its M inputs are the registers `sh_m_*`, loaded at
    /// the end of A.
    shm: Shmem<RB>,
    /// R -> X -> A: the pass is a shared load, store or atomic (one-hot),
    /// its load width (one-hot `LoadWidth::ALL`) and atomic op.
    sh_x_cls: Reg<Bits<3>>,
    sh_x_lw: Reg<Bits<5>>,
    sh_x_aop: Reg<Bits<9>>,
    sh_a_cls: Reg<Bits<3>>,
    sh_a_lw: Reg<Bits<5>>,
    sh_a_aop: Reg<Bits<9>>,
    /// A -> M: the block's inputs.
    sh_m_kind: Reg<Bits<4>>,
    sh_m_served: Reg<Bits<L>>,
    sh_m_base: Reg<Bits<RB>>,
    sh_m_min: Reg<Bits<RB>>,
    sh_m_lw: Reg<Bits<5>>,
    sh_m_aop: Reg<Bits<9>>,
    sh_m_opnd: Reg<Bits<32>>,
    sh_m_bank: Vec<Reg<Bits<32>>>,
    sh_m_off: Vec<Reg<Bits<2>>>,
    sh_m_sd: Vec<Reg<Bits<32>>>,
    sh_m_be: Vec<Reg<Bits<4>>>,
    /// The write port, traced (§15.2), registered.
    r_sh_we: Vec<Reg<Bits<4>>>,
    r_sh_wd: Vec<Reg<Bits<32>>>,
    // Locals at R and A.
    sh_r_lw: Signal<Local, Bits<5>>,
    sh_a_served: Signal<Local, Bits<L>>,
    sh_a_slot: Signal<Local, Bits<4>>,
    sh_a_base: Signal<Local, Bits<RB>>,
    sh_a_min: Signal<Local, Bits<RB>>,
    sh_a_opnd: Signal<Local, Bits<32>>,
    sh_a_kind: Signal<Local, Bits<4>>,
    sh_lwb: Vec<Constant<Bits<5>>>,
    sh_clsb: Vec<Constant<Bits<3>>>,
    sh_init_refused: Signal<Local, bool>,
    z_sh_row: Vec<Resize<32, RB>>,
    sh_row_shift: Constant<Bits<32>>,
    sh_bank_mask: Constant<Bits<32>>,
    sh_two: Constant<Bits<32>>,
    sh_zero_rb: Constant<Bits<RB>>,
    sh_zero_l: Constant<Bits<L>>,
    sh_zero5: Constant<Bits<5>>,
    sh_zero3: Constant<Bits<3>>,
    sh_kind_ld: Constant<Bits<4>>,
    sh_kind_st: Constant<Bits<4>>,
    sh_kind_at: Constant<Bits<4>>,
    sh_kind_clr: Constant<Bits<4>>,
    sh_sidx: Vec<Constant<Bits<4>>>,
    k_a_init_refused: Constant<Bits<3>>,
    unused_sh: Signal<Local, bool>,
    /// A global return slot at M and W (§10.2), through the shared
    /// extraction and the load write (from the global unit's `rs_*`).
    rs_m_sel: Signal<Local, bool>,
    rs_m_word: Vec<Signal<Local, Bits<32>>>,
    rs_m_served: Signal<Local, Bits<L>>,
    rs_m_off: Vec<Signal<Local, Bits<2>>>,
    rs_m_lw: Signal<Local, Bits<5>>,
    rs_w_row: Signal<Local, Bits<AW>>,
    rs_w_row_sel: Signal<Local, bool>,
    rs_lw: Signal<Local, Bits<5>>,
    sh_w_rsrow: Reg<Bits<AW>>,
    sh_w_rssel: Reg<bool>,
    z_rs_warp: Resize<4, AW>,
    z_rs_rd: Resize<5, AW>,
    sh_rp_shift: Constant<Bits<AW>>,
    // ---- control path (v2ctl) ----
    /// Stage X control, the lane pcs and depths, the tree(s), the commit
    /// and the re-arbitration engine (`ctlpath.rs`).
    ctl: CtlPath<L>,
    z_ctl_threads: Resize<THREADS_BITS, CNT_W>,
    z_ctl_smask: Vec<Resize<W, 16>>,
    unused_ctl: Signal<Local, bool>,
    /// Warps in `READY`, `MEMWAIT`, `BARRIER`/`REARB` at the start of
    /// the cycle (counters 12–14).
    ctl_n_ready: Signal<Local, Bits<INC_BITS>>,
    ctl_n_memwait: Signal<Local, Bits<INC_BITS>>,
    ctl_n_barrier: Signal<Local, Bits<INC_BITS>>,
    ctl_code: Vec<Constant<Bits<3>>>,
    /// The warp debug words (§15.3) and the selected warp (`DBG_WARP`,
    /// at most `W − 1`, as the model reads it).
    ctl_dbg: DebugWords<L>,
    ctl_dbg_widx: Signal<Local, Bits<4>>,
    ctl_dbg_woh: Signal<Local, Bits<16>>,
    ctl_dbg_wslot: Signal<Local, Bits<4>>,
    ctl_dbg_wib: Signal<Local, Bits<4>>,
    ctl_wmax: Constant<Bits<4>>,
    ctl_wbit: Vec<Constant<Bits<16>>>,
    /// `rd` indices of `DBG_GROUP` .. `DBG_FLAGS`, `DBG_LANE_PC` and the
    /// first `DBG_SLOT` (one-iteration loops, empty without `debug_regs`).
    _dbg_group: usize,
    _dbg_group1: usize,
    _dbg_gmask: usize,
    _dbg_gmask1: usize,
    _dbg_alive: usize,
    _dbg_alive1: usize,
    _dbg_waiting: usize,
    _dbg_waiting1: usize,
    _dbg_flags: usize,
    _dbg_flags1: usize,
    _dbg_lanepc: usize,
    _dbg_lanepc1: usize,
    _dbg_slot: usize,
    _dbg_slot1: usize,
    // ---- traps (v2trap) ----
    /// The held trap, frozen slots and report registers (`trap.rs`).
    trap: TrapUnit<L>,
    /// The cause of the pass in A (§13.1 order).
    tpc: PassCause<L>,
    /// Cause 4 (`gpc ≥ code_len` at F), carried F→D→R→X→A.
    t_out_d: Reg<bool>,
    t_out_r: Reg<bool>,
    t_out_x: Reg<bool>,
    t_out_a: Reg<bool>,
    /// The instruction word (cause 3's detail), D→R→X→A.
    t_word_r: Reg<Bits<32>>,
    t_word_x: Reg<Bits<32>>,
    t_word_a: Reg<Bits<32>>,
    /// Invalid word (R→A), `ldparam` past `PARAM_COUNT` and its index
    /// (R→A), access width one-hot = bytes (R→A).
    t_inv_x: Reg<bool>,
    t_inv_a: Reg<bool>,
    t_pm_x: Reg<bool>,
    t_pm_a: Reg<bool>,
    t_pidx_x: Reg<Bits<32>>,
    t_pidx_a: Reg<Bits<32>>,
    t_mw_x: Reg<Bits<3>>,
    t_mw_a: Reg<Bits<3>>,
    t_x_pidx: Ext<{ super::decode::PARAM_W }, 32>,
    t_x_mw: Ext<3, 32>,
    t_r_trap: Reg<bool>,
    t_ldparam: Constant<Bits<{ super::decode::NCLS }>>,
    t_st_frozen: Constant<Bits<2>>,
    t_st_launch: Constant<Bits<2>>,
    t_st_run: Constant<Bits<2>>,
    t_k_squashed: Constant<Bits<3>>,
    t_k_trapped: Constant<Bits<3>>,
    t_k7: Constant<Bits<CAUSE_W>>,
    t_zero_l: Constant<Bits<L>>,
    t_outside_f: Signal<Local, bool>,
    t_a_pass: Signal<Local, bool>,
    t_a_st: Signal<Local, Bits<2>>,
    t_a_slot: Signal<Local, Bits<4>>,
    t_a_wib: Signal<Local, Bits<4>>,
    t_frozen: Signal<Local, bool>,
    t_trapped: Signal<Local, bool>,
    t_slots_live: Signal<Local, bool>,
    /// Cause 11 from the global unit (`gmaster`'s `trap`): the entry's
    /// warp, served lanes, pc and the beat's byte address.
    gm_err_valid: Signal<Local, bool>,
    gm_err_warp: Signal<Local, Bits<4>>,
    gm_err_lanes: Signal<Local, Bits<L>>,
    gm_err_pc: Signal<Local, Bits<16>>,
    gm_err_addr: Signal<Local, Bits<32>>,
    /// No global entry is in use (§13.2's `STOPPING` → `TRAP`).
    gm_idle: Signal<Local, bool>,
    /// Cause 9 (`stack.rs`): the pass is a global access (R→A) and the
    /// warp-in-block of the pass in X.
    t_stk: StackCheck<L>,
    t_gl_x: Reg<bool>,
    t_gl_a: Reg<bool>,
    t_x_wib: Signal<Local, Bits<4>>,
    t_g_slot: Signal<Local, Bits<4>>,
    t_g_wib: Signal<Local, Bits<4>>,
    /// `update`'s index of the `squashed` counter (one-iteration loop).
    _t_sq: usize,
    _t_sq1: usize,
    // ---- global memory (v2gm) ----
    /// The global unit (`gmem.rs`: the core side; `gmaster.rs`: the ring
    /// and the Wishbone master).
    gmem: GlobalMem<L>,
    /// A return slot's entry and whether it failed (an `ERR` beat: no
    /// register write), in F..M.
    p_ent: Vec<Reg<Bits<4>>>,
    p_rerr: Vec<Reg<bool>>,
    gm_k_ret: Constant<Bits<2>>,
    gm_k_a_return: Constant<Bits<3>>,
    gm_s_ret_oh: Signal<Local, Bits<16>>,
    gm_a_ret: Signal<Local, bool>,
    gm_done_oh: Signal<Local, Bits<16>>,
    z_gm_ret_warp: Resize<4, 16>,
    z_gm_done_warp: Resize<4, 16>,
    /// The return slot's words at M, until the load extension and the
    /// register write at W take them (the shared-memory unit's path).
    gm_unused: Signal<Local, bool>,
}

impl<
        const L: usize,
        const W: usize,
        const K: usize,
        const RB: usize,
        const PB: usize,
        const AW: usize,
    > Body<L, W, K, RB, PB, AW>
{
    pub fn new(hw: &HwParams, gen: &GenOptions, map: &SlaveMap) -> Self {
        fn sig<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| Default::default()).collect()
        }
        // `update` reads these at literal positions.
        for (i, name) in READ_WORDS.iter().enumerate() {
            assert_eq!(map.reads[i].name, *name, "read word {i}");
        }
        for (i, name) in WRITE_ROWS.iter().enumerate() {
            assert_eq!(map.writes[i].name, *name, "write row {i}");
        }
        assert_eq!(CTRL_HALT.lsb, 1);
        // Counter indices `update` uses as literals.
        assert_eq!(Counter::Cycles.index(), 0);
        assert_eq!(Counter::IdleIssueCycles.index(), 11);
        assert_eq!(Counter::Blocks.index(), 10);
        assert_eq!(Counter::InitSlots.index(), 16);
        // ---- shared memory (v2shm): literal positions in `update` ----
        assert_eq!(Counter::PortBusyReplays.index(), 23);
        assert_eq!(
            concord_isa::instr::LoadWidth::ALL,
            [
                concord_isa::instr::LoadWidth::U8,
                concord_isa::instr::LoadWidth::S8,
                concord_isa::instr::LoadWidth::U16,
                concord_isa::instr::LoadWidth::S16,
                concord_isa::instr::LoadWidth::B32
            ]
        );
        assert_eq!(super::decode::MSIZES, [1, 2, 4]);
        assert_eq!(
            (
                super::shmem::KIND_LOAD,
                super::shmem::KIND_STORE,
                super::shmem::KIND_ATOMIC,
                super::shmem::KIND_CLEAR
            ),
            (0, 1, 2, 3)
        );
        // ---- control path (v2ctl): counter indices `update` uses ----
        for (c, i) in [
            (Counter::Issued, 1),
            (Counter::ActiveLaneSlots, 2),
            (Counter::ExecutedLaneSlots, 3),
            (Counter::Replays, 4),
            (Counter::DivergentBranches, 5),
            (Counter::ConsensualTaken, 6),
            (Counter::ConsensualNotTaken, 7),
            (Counter::BarrierArrivals, 8),
            (Counter::Barriers, 9),
            (Counter::ReadyWarpCycles, 12),
            (Counter::MemwaitWarpCycles, 13),
            (Counter::BarrierWarpCycles, 14),
            (Counter::Rearbs, 17),
            (Counter::RearbWaitCycles, 18),
            // ---- global memory (v2gm) ----
            (Counter::ReturnSlots, 15),
            (Counter::GlobalRequests, 19),
            (Counter::GlobalBeats, 20),
            (Counter::GlobalStallCycles, 21),
            (Counter::QueueFullReplays, 22),
        ] {
            assert_eq!(c.index(), i, "{c:?}");
        }
        assert_eq!(STATUS_FIELDS.len(), 7);
        assert_eq!(LAUNCH_FIELDS.len(), 3);
        assert!(hw.imem_words <= 1 << 16);
        assert!(hw.global_outstanding < 32);
        let dbg = |name: &str| map.read_index(name);
        let (dw, dl) = match (dbg("DBG_WARP"), dbg("DBG_LANE")) {
            (Some(a), Some(b)) => ((a, a + 1), (b, b + 1)),
            _ => ((0, 0), (0, 0)),
        };
        assert_eq!(
            regmap::register("DBG_QUEUE")
                .unwrap()
                .field("free")
                .unwrap()
                .lsb,
            0
        );
        let dq = match dbg("DBG_QUEUE") {
            Some(a) => (a, a + 1),
            None => (0, 0),
        };
        let wi = |name: &str| map.write_index(name);
        let (ww, wl) = match (wi("DBG_WARP"), wi("DBG_LANE")) {
            (Some(a), Some(b)) => ((a, a + 1), (b, b + 1)),
            _ => ((0, 0), (0, 0)),
        };
        let bus_words = hw.global_bus_bytes as usize / 4;
        // ---- control path (v2ctl): `rd` index range of a debug word ----
        let dbg_rd = |name: &str| match map.read_index(name) {
            Some(i) => (i, i + 1),
            None => (0, 0),
        };
        Body {
            clock: Default::default(),
            reset: Default::default(),
            wbs_cyc_i: Default::default(),
            wbs_stb_i: Default::default(),
            wbs_we_i: Default::default(),
            wbs_adr_i: Default::default(),
            wbs_dat_i: Default::default(),
            wbs_dat_o: Default::default(),
            wbs_ack_o: Default::default(),
            wbs_stall_o: Default::default(),
            gm_cyc_o: Default::default(),
            gm_stb_o: Default::default(),
            gm_we_o: Default::default(),
            gm_adr_o: Default::default(),
            gm_sel_o: sig(bus_words),
            gm_dat_o: sig(bus_words),
            gm_tga_o: Default::default(),
            gm_dat_i: sig(bus_words),
            gm_ack_i: Default::default(),
            gm_err_i: Default::default(),
            gm_stall_i: Default::default(),
            running_o: Default::default(),
            done_o: Default::default(),
            trapped_o: Default::default(),
            irq_o: Default::default(),
            tr_state: Default::default(),
            tr_s_kind: Default::default(),
            tr_s_warp: Default::default(),
            tr_s_replay: Default::default(),
            tr_a_kind: Default::default(),
            tr_a_warp: Default::default(),
            tr_a_pc: Default::default(),
            tr_a_active: Default::default(),
            tr_a_exec: Default::default(),
            tr_a_served: Default::default(),
            tr_a_gpc: Default::default(),
            tr_a_gmask: Default::default(),
            tr_a_pcw: Default::default(),
            tr_tree: Default::default(),
            tr_rearb_warp: Default::default(),
            tr_pred_we: Default::default(),
            tr_pred_addr: Default::default(),
            tr_pred_data: Default::default(),
            tr_rf_we: Default::default(),
            tr_rf_addr: Default::default(),
            tr_rf_data: sig(hw.lanes),
            tr_sh_we: sig(hw.shared_banks),
            tr_sh_row: Default::default(),
            tr_sh_data: sig(hw.shared_banks),
            tr_rsp: Default::default(),
            tr_rsp_entry: Default::default(),
            tr_free: Default::default(),
            tr_alloc: Default::default(),
            tr_start: Default::default(),
            tr_retire: Default::default(),
            tr_alloc_slot: Default::default(),
            tr_start_slot: Default::default(),
            tr_retire_slot: Default::default(),
            tr_warp_state: Default::default(),
            tr_trap: Default::default(),
            slave: HostSlave::new(map),
            setup: Setup::new(hw),
            imem: Ram::new(hw.imem_words),
            params: LutRam::new(32),
            lreg: sig(LAUNCH_REGS),
            halt: Default::default(),
            write_ignored: Default::default(),
            refused: Default::default(),
            dbg_warp: Default::default(),
            dbg_lane: Default::default(),
            l_threads: Default::default(),
            l_nwarps: Default::default(),
            l_resident: Default::default(),
            l_window: Default::default(),
            st: Default::default(),
            running_r: Default::default(),
            done_r: Default::default(),
            trapped_r: Default::default(),
            irq_r: Default::default(),
            ctr: Counters::new(gen.counter_bits),
            one8: k(1),
            zero8: k(0),
            s_item: Default::default(),
            pk_ctrl: FieldPack::new(regmap::register("CTRL").unwrap().fields),
            pk_status: FieldPack::new(STATUS_FIELDS),
            pk_launch: FieldPack::new(LAUNCH_FIELDS),
            x_state: Default::default(),
            x_threads: Default::default(),
            x_nwarps: Default::default(),
            x_resident: Default::default(),
            launch: LaunchUnit::new(hw),
            sched: Scheduler::new(
                if hw.scheduler == Scheduler_::Gto {
                    Policy::Gto
                } else {
                    Policy::Lrr
                },
                hw.block_slots,
            ),
            warps: WarpState::new(hw.warps),
            z_block_x: Default::default(),
            z_block_y: Default::default(),
            z_threads: Default::default(),
            z_window: Default::default(),
            z_clear_rows: Default::default(),
            z_ready: Default::default(),
            z_alloc: Default::default(),
            z_start: Default::default(),
            z_sel: Default::default(),
            z_entry: Default::default(),
            z_row: Default::default(),
            z_a_warp: Default::default(),
            unused_pending: Default::default(),
            p_kind: sig(7),
            p_warp: sig(7),
            p_has_reg: sig(7),
            p_reg: sig(7),
            p_has_row: sig(7),
            p_row: sig(7),
            p_pc: sig(5),
            p_active: sig(5),
            z_active: Default::default(),
            decode: Decode::new(hw),
            p_exec: sig(2),
            z_exec: Default::default(),
            r_a_exec: Default::default(),
            r_a_pc: Default::default(),
            r_a_active: Default::default(),
            s_idx: sig(hw.warps + 1),
            s_kind: Default::default(),
            s_warp: Default::default(),
            a_oh: Default::default(),
            pipe_empty: Default::default(),
            r_s_kind: Default::default(),
            r_s_warp: Default::default(),
            r_s_replay: Default::default(),
            r_a_kind: Default::default(),
            r_a_warp: Default::default(),
            r_rf_we: Default::default(),
            r_rf_addr: Default::default(),
            z_ws0: Default::default(),
            z_ws1: Default::default(),
            ws_shift: k(3 * regmap::WSTATE0_WARPS as u64),
            r_sh_row: Default::default(),
            r_alloc: Default::default(),
            r_start: Default::default(),
            r_retire: Default::default(),
            r_alloc_slot: Default::default(),
            r_start_slot: Default::default(),
            r_retire_slot: Default::default(),
            r_warp_state: Default::default(),
            widx: (0..hw.warps).map(|w| k(w as u64)).collect(),
            k_init: k(trace::s_kind::INIT as u64),
            k_warp: k(trace::s_kind::WARP as u64),
            k_a_init: k(trace::a_kind::INIT as u64),
            k_a_committed: k(trace::a_kind::COMMITTED as u64),
            one16: k(1),
            _w: hw.warps,
            _w1: hw.warps + 1,
            _slots: hw.block_slots,
            r_state: Default::default(),
            s_idle: k(state::IDLE),
            s_setup: k(state::SETUP),
            s_run: k(state::RUN),
            s_stopping: k(state::STOPPING),
            s_done: k(state::DONE),
            s_trap: k(state::TRAP),
            zero32: k(0),
            one32: k(1),
            zero2: k(0),
            zero4: k(0),
            zero5: k(0),
            zero16: k(0),
            row_shift: k(hw.shared_row_shift as u64),
            next_st: Default::default(),
            is_running: Default::default(),
            unused_mem: Default::default(),
            _nsel: bus_words,
            _ndat: bus_words,
            _nrd: map.reads.len(),
            _nlo: map.counter_lo.len(),
            _nhi: map.counter_hi_inputs,
            _lanes: hw.lanes,
            _banks: hw.shared_banks,
            _dw: dw.0,
            _dw1: dw.1,
            _dl: dl.0,
            _dl1: dl.1,
            _ww: ww.0,
            _ww1: ww.1,
            _wl: wl.0,
            _wl1: wl.1,
            _dq: dq.0,
            _dq1: dq.1,
            z_free: Default::default(),
            z_qsend: Default::default(),
            z_qresp: Default::default(),
            z_qret: Default::default(),
            // ---- data path (v2data) ----
            dp: DataPath::new(hw),
            z_rf_we: Default::default(),
            z_rf_addr: Default::default(),
            z_pred_we: Default::default(),
            z_pred_data: Default::default(),
            r_rf_data: sig(hw.lanes),
            r_pred_we: Default::default(),
            r_pred_addr: Default::default(),
            r_pred_data: Default::default(),
            unused_dp: Default::default(),
            sh_refused: Default::default(),
            gm_refused: Default::default(),
            // ---- shared memory (v2shm) ----
            shm: Shmem::new(hw.lanes, hw.shared_banks),
            sh_x_cls: Default::default(),
            sh_x_lw: Default::default(),
            sh_x_aop: Default::default(),
            sh_a_cls: Default::default(),
            sh_a_lw: Default::default(),
            sh_a_aop: Default::default(),
            sh_m_kind: Default::default(),
            sh_m_served: Default::default(),
            sh_m_base: Default::default(),
            sh_m_min: Default::default(),
            sh_m_lw: Default::default(),
            sh_m_aop: Default::default(),
            sh_m_opnd: Default::default(),
            sh_m_bank: sig(hw.lanes),
            sh_m_off: sig(hw.lanes),
            sh_m_sd: sig(hw.lanes),
            sh_m_be: sig(hw.lanes),
            r_sh_we: sig(hw.shared_banks),
            r_sh_wd: sig(hw.shared_banks),
            sh_r_lw: Default::default(),
            sh_a_served: Default::default(),
            sh_a_slot: Default::default(),
            sh_a_base: Default::default(),
            sh_a_min: Default::default(),
            sh_a_opnd: Default::default(),
            sh_a_kind: Default::default(),
            sh_lwb: (0..5).map(|i| k(1 << i)).collect(),
            sh_clsb: (0..3).map(|i| k(1 << i)).collect(),
            sh_init_refused: Default::default(),
            z_sh_row: sig(hw.lanes),
            sh_row_shift: k(u64::from(hw.shared_row_shift)),
            sh_bank_mask: k(hw.shared_banks as u64 - 1),
            sh_two: k(2),
            sh_zero_rb: k(0),
            sh_zero_l: k(0),
            sh_zero5: k(0),
            sh_zero3: k(0),
            sh_kind_ld: k(1 << super::shmem::KIND_LOAD),
            sh_kind_st: k(1 << super::shmem::KIND_STORE),
            sh_kind_at: k(1 << super::shmem::KIND_ATOMIC),
            sh_kind_clr: k(1 << super::shmem::KIND_CLEAR),
            sh_sidx: (0..hw.block_slots).map(|i| k(i as u64)).collect(),
            k_a_init_refused: k(trace::a_kind::INIT_REFUSED as u64),
            unused_sh: Default::default(),
            rs_m_sel: Default::default(),
            rs_m_word: sig(hw.lanes),
            rs_m_served: Default::default(),
            rs_m_off: sig(hw.lanes),
            rs_m_lw: Default::default(),
            rs_w_row: Default::default(),
            rs_w_row_sel: Default::default(),
            rs_lw: Default::default(),
            sh_w_rsrow: Default::default(),
            sh_w_rssel: Default::default(),
            z_rs_warp: Default::default(),
            z_rs_rd: Default::default(),
            sh_rp_shift: k(hw.rf_rows_per_warp.trailing_zeros() as u64),
            // ---- control path (v2ctl) ----
            ctl: CtlPath::new(hw),
            z_ctl_threads: Default::default(),
            z_ctl_smask: sig(hw.block_slots),
            unused_ctl: Default::default(),
            ctl_n_ready: Default::default(),
            ctl_n_memwait: Default::default(),
            ctl_n_barrier: Default::default(),
            ctl_code: [
                super::warpstate::code::REARB,
                super::warpstate::code::READY,
                super::warpstate::code::MEMWAIT,
                super::warpstate::code::BARRIER,
            ]
            .iter()
            .map(|&c| k(c))
            .collect(),
            ctl_dbg: DebugWords::new(hw.block_slots),
            ctl_dbg_widx: Default::default(),
            ctl_dbg_woh: Default::default(),
            ctl_dbg_wslot: Default::default(),
            ctl_dbg_wib: Default::default(),
            ctl_wmax: k(hw.warps as u64 - 1),
            ctl_wbit: (0..hw.warps).map(|w| k(1 << w)).collect(),
            _dbg_group: dbg_rd("DBG_GROUP").0,
            _dbg_group1: dbg_rd("DBG_GROUP").1,
            _dbg_gmask: dbg_rd("DBG_GMASK").0,
            _dbg_gmask1: dbg_rd("DBG_GMASK").1,
            _dbg_alive: dbg_rd("DBG_ALIVE").0,
            _dbg_alive1: dbg_rd("DBG_ALIVE").1,
            _dbg_waiting: dbg_rd("DBG_WAITING").0,
            _dbg_waiting1: dbg_rd("DBG_WAITING").1,
            _dbg_flags: dbg_rd("DBG_FLAGS").0,
            _dbg_flags1: dbg_rd("DBG_FLAGS").1,
            _dbg_lanepc: dbg_rd("DBG_LANE_PC").0,
            _dbg_lanepc1: dbg_rd("DBG_LANE_PC").1,
            _dbg_slot: dbg_rd("DBG_SLOT[0]").0,
            _dbg_slot1: dbg_rd("DBG_SLOT[0]").1,
            // ---- traps (v2trap) ----
            trap: TrapUnit::new(hw.block_slots, hw.warps),
            tpc: PassCause::default(),
            t_out_d: Default::default(),
            t_out_r: Default::default(),
            t_out_x: Default::default(),
            t_out_a: Default::default(),
            t_word_r: Default::default(),
            t_word_x: Default::default(),
            t_word_a: Default::default(),
            t_inv_x: Default::default(),
            t_inv_a: Default::default(),
            t_pm_x: Default::default(),
            t_pm_a: Default::default(),
            t_pidx_x: Default::default(),
            t_pidx_a: Default::default(),
            t_mw_x: Default::default(),
            t_mw_a: Default::default(),
            t_x_pidx: Default::default(),
            t_x_mw: Default::default(),
            t_r_trap: Default::default(),
            t_ldparam: k(1
                << super::decode::CLASSES
                    .iter()
                    .position(|&c| c == super::decode::Class::LdParam)
                    .unwrap()),
            t_st_frozen: k(super::warpstate::slot_state::FROZEN),
            t_st_launch: k(super::warpstate::slot_state::LAUNCH),
            t_st_run: k(super::warpstate::slot_state::RUN),
            t_k_squashed: k(trace::a_kind::SQUASHED as u64),
            t_k_trapped: k(trace::a_kind::TRAPPED as u64),
            t_k7: k(concord_uarch::trap::TrapCode::BarrierNeverCompletes.code() as u64),
            t_zero_l: k(0),
            t_outside_f: Default::default(),
            t_a_pass: Default::default(),
            t_a_st: Default::default(),
            t_a_slot: Default::default(),
            t_a_wib: Default::default(),
            t_frozen: Default::default(),
            t_trapped: Default::default(),
            t_stk: StackCheck::new(hw.warps, hw.global_bytes),
            t_gl_x: Default::default(),
            t_gl_a: Default::default(),
            t_x_wib: Default::default(),
            t_slots_live: Default::default(),
            gm_err_valid: Default::default(),
            gm_err_warp: Default::default(),
            gm_err_lanes: Default::default(),
            gm_err_pc: Default::default(),
            gm_err_addr: Default::default(),
            gm_idle: Default::default(),
            t_g_slot: Default::default(),
            t_g_wib: Default::default(),
            _t_sq: Counter::Squashed.index(),
            _t_sq1: Counter::Squashed.index() + 1,
            // ---- global memory (v2gm) ----
            gmem: GlobalMem::new(hw),
            p_ent: sig(6),
            p_rerr: sig(6),
            gm_k_ret: k(trace::s_kind::RETURN as u64),
            gm_k_a_return: k(trace::a_kind::RETURN as u64),
            gm_s_ret_oh: Default::default(),
            gm_a_ret: Default::default(),
            gm_done_oh: Default::default(),
            z_gm_ret_warp: Default::default(),
            z_gm_done_warp: Default::default(),
            gm_unused: Default::default(),
        }
    }
}

impl<
        const L: usize,
        const W: usize,
        const K: usize,
        const RB: usize,
        const PB: usize,
        const AW: usize,
    > Logic for Body<L, W, K, RB, PB, AW>
{
    #[hdl_gen]
    fn update(&mut self) {
        // ---- clocks and resets ----
        self.slave.clock.next = self.clock.val();
        self.slave.reset.next = self.reset.val();
        self.setup.clock.next = self.clock.val();
        self.setup.reset.next = self.reset.val();
        self.imem.clock.next = self.clock.val();
        self.params.clock.next = self.clock.val();
        for i in 0..13 {
            self.lreg[i].clock.next = self.clock.val();
            self.lreg[i].reset.next = self.reset.val();
        }
        self.halt.clock.next = self.clock.val();
        self.halt.reset.next = self.reset.val();
        self.write_ignored.clock.next = self.clock.val();
        self.write_ignored.reset.next = self.reset.val();
        self.refused.clock.next = self.clock.val();
        self.refused.reset.next = self.reset.val();
        self.dbg_warp.clock.next = self.clock.val();
        self.dbg_warp.reset.next = self.reset.val();
        self.dbg_lane.clock.next = self.clock.val();
        self.dbg_lane.reset.next = self.reset.val();
        self.l_threads.clock.next = self.clock.val();
        self.l_threads.reset.next = self.reset.val();
        self.l_nwarps.clock.next = self.clock.val();
        self.l_nwarps.reset.next = self.reset.val();
        self.l_resident.clock.next = self.clock.val();
        self.l_resident.reset.next = self.reset.val();
        self.l_window.clock.next = self.clock.val();
        self.l_window.reset.next = self.reset.val();
        self.st.clock.next = self.clock.val();
        self.st.reset.next = self.reset.val();
        self.running_r.clock.next = self.clock.val();
        self.running_r.reset.next = self.reset.val();
        self.done_r.clock.next = self.clock.val();
        self.done_r.reset.next = self.reset.val();
        self.trapped_r.clock.next = self.clock.val();
        self.trapped_r.reset.next = self.reset.val();
        self.irq_r.clock.next = self.clock.val();
        self.irq_r.reset.next = self.reset.val();
        self.ctr.clock.next = self.clock.val();
        self.ctr.reset.next = self.reset.val();
        self.launch.clock.next = self.clock.val();
        self.launch.reset.next = self.reset.val();
        self.sched.clock.next = self.clock.val();
        self.sched.reset.next = self.reset.val();
        self.warps.clock.next = self.clock.val();
        self.warps.reset.next = self.reset.val();
        for i in 0..7 {
            self.p_kind[i].clock.next = self.clock.val();
            self.p_kind[i].reset.next = self.reset.val();
            self.p_warp[i].clock.next = self.clock.val();
            self.p_warp[i].reset.next = self.reset.val();
            self.p_has_reg[i].clock.next = self.clock.val();
            self.p_has_reg[i].reset.next = self.reset.val();
            self.p_reg[i].clock.next = self.clock.val();
            self.p_reg[i].reset.next = self.reset.val();
            self.p_has_row[i].clock.next = self.clock.val();
            self.p_has_row[i].reset.next = self.reset.val();
            self.p_row[i].clock.next = self.clock.val();
            self.p_row[i].reset.next = self.reset.val();
        }
        for i in 0..5 {
            self.p_pc[i].clock.next = self.clock.val();
            self.p_pc[i].reset.next = self.reset.val();
            self.p_active[i].clock.next = self.clock.val();
            self.p_active[i].reset.next = self.reset.val();
        }
        for i in 0..2 {
            self.p_exec[i].clock.next = self.clock.val();
            self.p_exec[i].reset.next = self.reset.val();
        }
        self.r_a_exec.clock.next = self.clock.val();
        self.r_a_exec.reset.next = self.reset.val();
        self.decode.clock.next = self.clock.val();
        self.r_a_pc.clock.next = self.clock.val();
        self.r_a_pc.reset.next = self.reset.val();
        self.r_a_active.clock.next = self.clock.val();
        self.r_a_active.reset.next = self.reset.val();
        self.r_s_kind.clock.next = self.clock.val();
        self.r_s_kind.reset.next = self.reset.val();
        self.r_s_warp.clock.next = self.clock.val();
        self.r_s_warp.reset.next = self.reset.val();
        self.r_s_replay.clock.next = self.clock.val();
        self.r_s_replay.reset.next = self.reset.val();
        self.r_a_kind.clock.next = self.clock.val();
        self.r_a_kind.reset.next = self.reset.val();
        self.r_a_warp.clock.next = self.clock.val();
        self.r_a_warp.reset.next = self.reset.val();
        self.r_rf_we.clock.next = self.clock.val();
        self.r_rf_we.reset.next = self.reset.val();
        self.r_rf_addr.clock.next = self.clock.val();
        self.r_rf_addr.reset.next = self.reset.val();
        self.r_sh_row.clock.next = self.clock.val();
        self.r_sh_row.reset.next = self.reset.val();
        self.r_alloc.clock.next = self.clock.val();
        self.r_alloc.reset.next = self.reset.val();
        self.r_start.clock.next = self.clock.val();
        self.r_start.reset.next = self.reset.val();
        self.r_retire.clock.next = self.clock.val();
        self.r_retire.reset.next = self.reset.val();
        self.r_alloc_slot.clock.next = self.clock.val();
        self.r_alloc_slot.reset.next = self.reset.val();
        self.r_start_slot.clock.next = self.clock.val();
        self.r_start_slot.reset.next = self.reset.val();
        self.r_retire_slot.clock.next = self.clock.val();
        self.r_retire_slot.reset.next = self.reset.val();
        self.r_warp_state.clock.next = self.clock.val();
        self.r_warp_state.reset.next = self.reset.val();
        self.r_state.clock.next = self.clock.val();
        self.r_state.reset.next = self.reset.val();

        // ---- the host slave (plain wires: its outputs depend on the
        // top-level inputs, so nothing larger reads them through logic) ----
        self.slave.cyc_i.next = self.wbs_cyc_i.val();
        self.slave.stb_i.next = self.wbs_stb_i.val();
        self.slave.we_i.next = self.wbs_we_i.val();
        self.slave.adr_i.next = self.wbs_adr_i.val();
        self.slave.dat_i.next = self.wbs_dat_i.val();
        self.wbs_dat_o.next = self.slave.dat_o.val();
        self.wbs_ack_o.next = self.slave.ack_o.val();
        self.wbs_stall_o.next = self.slave.stall_o.val();
        self.slave.running.next = self.running_r.q.val();

        // Memories written by the host.
        self.imem.we.next = self.slave.we[0].val();
        self.imem.waddr.next = self.slave.windex.val();
        self.imem.wdata.next = self.slave.wdata.val();
        // F reads the word at the pass's pc; D sees it (§3.3).
        self.imem.raddr.next = self.p_pc[0].q.val();
        self.params.we.next = self.slave.we[15].val();
        self.params.waddr.next = self.slave.windex.val().get_bits::<4>(0);
        self.params.wdata.next = self.slave.wdata.val();
        // R reads the `ldparam` word (the LUT-RAM reads asynchronously).
        self.params.raddr.next = self.decode.param.val();
        // The fetch and the parameter read belong to the pipeline (M2).
        // So are SETUP's launch values (the launch unit's inputs).
        self.unused_mem.next = self.imem.rdata.val().any()
            | self.params.rdata.val().any()
            | self.setup.busy.val()
            | self.setup.need_rows.val().any()
            | self.setup.limit.val().any()
            | self.setup.clear_rows.val().any()
            | self.setup.clear_regs.val().any()
            // Without `debug_regs` the selectors are never read.
            | self.dbg_warp.q.val().any()
            | self.dbg_lane.q.val().any();

        // Launch registers: write enables 2..=14.
        for i in 0..13 {
            self.lreg[i].ld.next = false;
            self.lreg[i].lv.next = self.zero32.val();
            self.lreg[i].d.next = self.slave.wdata.val();
        }
        self.lreg[0].en.next = self.slave.we[2].val();
        self.lreg[1].en.next = self.slave.we[3].val();
        self.lreg[2].en.next = self.slave.we[4].val();
        self.lreg[3].en.next = self.slave.we[5].val();
        self.lreg[4].en.next = self.slave.we[6].val();
        self.lreg[5].en.next = self.slave.we[7].val();
        self.lreg[6].en.next = self.slave.we[8].val();
        self.lreg[7].en.next = self.slave.we[9].val();
        self.lreg[8].en.next = self.slave.we[10].val();
        self.lreg[9].en.next = self.slave.we[11].val();
        self.lreg[10].en.next = self.slave.we[12].val();
        self.lreg[11].en.next = self.slave.we[13].val();
        self.lreg[12].en.next = self.slave.we[14].val();
        // CTRL.HALT: the written value is kept.
        self.halt.ld.next = false;
        self.halt.lv.next = false;
        self.halt.en.next = self.slave.we[1].val();
        self.halt.d.next = self.slave.wdata.val().get_bit(1);
        // Sticky status bits, cleared by START.
        self.write_ignored.ld.next = self.slave.start.val();
        self.write_ignored.lv.next = false;
        self.write_ignored.en.next = self.slave.ignored.val();
        self.write_ignored.d.next = true;
        self.refused.ld.next = self.slave.start.val();
        self.refused.lv.next = false;
        self.refused.en.next = self.setup.done.val() & self.setup.refused.val();
        self.refused.d.next = true;
        // Debug selectors (only with `debug_regs`).
        self.dbg_warp.ld.next = false;
        self.dbg_warp.lv.next = self.zero32.val();
        self.dbg_warp.en.next = false;
        self.dbg_warp.d.next = self.slave.wdata.val();
        self.dbg_lane.ld.next = false;
        self.dbg_lane.lv.next = self.zero32.val();
        self.dbg_lane.en.next = false;
        self.dbg_lane.d.next = self.slave.wdata.val();
        for i in self._ww..self._ww1 {
            self.dbg_warp.en.next = self.slave.we[i].val();
        }
        for i in self._wl..self._wl1 {
            self.dbg_lane.en.next = self.slave.we[i].val();
        }

        // ---- SETUP (§12.1) ----
        self.setup.start.next = self.slave.start.val();
        self.setup.entry_pc.next = self.lreg[0].q.val();
        self.setup.code_len.next = self.lreg[1].q.val();
        self.setup.grid_x.next = self.lreg[2].q.val();
        self.setup.grid_y.next = self.lreg[3].q.val();
        self.setup.grid_z.next = self.lreg[4].q.val();
        self.setup.block_x.next = self.lreg[5].q.val();
        self.setup.block_y.next = self.lreg[6].q.val();
        self.setup.block_z.next = self.lreg[7].q.val();
        self.setup.param_count.next = self.lreg[8].q.val();
        self.setup.stack_bytes.next = self.lreg[9].q.val();
        self.setup.shared_bytes.next = self.lreg[10].q.val();
        self.setup.clear_regs_in.next = self.lreg[11].q.val();
        self.setup.clear_shared.next = self.lreg[12].q.val();
        // `LAUNCH` and `WINDOW`: the values of SETUP's last cycle (a refused
        // launch shows its threads and warps, nothing resident).
        self.l_threads.ld.next = false;
        self.l_threads.lv.next = self.setup.threads.val();
        self.l_threads.en.next = self.setup.done.val();
        self.l_threads.d.next = self.setup.threads.val();
        self.l_nwarps.ld.next = false;
        self.l_nwarps.lv.next = self.setup.nwarps.val();
        self.l_nwarps.en.next = self.setup.done.val();
        self.l_nwarps.d.next = self.setup.nwarps.val();
        self.l_resident.ld.next = false;
        self.l_resident.lv.next = self.setup.resident.val();
        self.l_resident.en.next = self.setup.done.val();
        self.l_resident.d.next = self.setup.resident.val();
        self.l_window.ld.next = false;
        self.l_window.lv.next = self.zero32.val();
        self.l_window.en.next = self.setup.done.val();
        self.l_window.d.next = self.setup.window_rows.val() << self.row_shift.val();
        if self.setup.refused.val() {
            self.l_resident.d.next = self.zero5.val();
            self.l_window.d.next = self.zero32.val();
        }

        // ---- the launch unit (§12.3–§12.5) ----
        self.launch.host_start.next = self.slave.start.val();
        self.launch.grid_x.next = self.lreg[2].q.val();
        self.launch.grid_y.next = self.lreg[3].q.val();
        self.launch.grid_z.next = self.lreg[4].q.val();
        self.z_block_x.i.next = self.lreg[5].q.val();
        self.z_block_y.i.next = self.lreg[6].q.val();
        self.launch.block_x.next = self.z_block_x.o.val();
        self.launch.block_y.next = self.z_block_y.o.val();
        self.z_threads.i.next = self.setup.threads.val();
        self.launch.threads.next = self.z_threads.o.val();
        self.launch.nwarps.next = self.setup.nwarps.val();
        self.launch.resident.next = self.setup.resident.val();
        self.z_window.i.next = self.setup.window_rows.val();
        self.launch.window_rows.next = self.z_window.o.val();
        self.z_clear_rows.i.next = self.setup.clear_rows.val();
        self.launch.clear_rows.next = self.z_clear_rows.o.val();
        self.launch.clear_regs.next = self.setup.clear_regs.val();
        self.launch.run.next =
            (self.st.q.val() == self.s_run.val()) | (self.st.q.val() == self.s_stopping.val());
        self.launch.halt.next = self.halt.q.val();
        // Traps (§13) and retires (§9.4) come with the commit.
        self.launch.held.next = self.trap.held.val();
        self.launch.trap_slots.next = self.trap.freeze.val();
        self.launch.init_take.next = self.sched.init.val();

        // ---- stage S (§6) ----
        self.sched.start.next = self.slave.start.val();
        self.sched.run.next =
            (self.st.q.val() == self.s_run.val()) | (self.st.q.val() == self.s_stopping.val());
        self.sched.ret_req.next = self.gmem.ret_valid.val();
        self.sched.init_req.next = self.launch.init_req.val();
        self.sched.halt.next = self.halt.q.val();
        self.ctl.halt.next = self.halt.q.val();
        self.z_ready.i.next = self.warps.ready.val();
        self.sched.ready.next = self.z_ready.o.val();
        for k in 0..self._slots {
            self.sched.smask[k].next = self.launch.smask[k].val();
            self.sched.launch[k].next = self.launch.alloc_oh.val().get_bit(k);
        }
        self.z_sel.i.next = self.sched.sel.val();
        self.s_idx[0].next = self.zero4.val();
        for w in 0..self._w {
            self.s_idx[w + 1].next = self.s_idx[w].val();
            if self.z_sel.o.val().get_bit(w) {
                self.s_idx[w + 1].next = self.s_idx[w].val() | self.widx[w].val();
            }
        }
        self.s_kind.next = self.zero2.val();
        self.s_warp.next = self.zero4.val();
        if self.sched.warp.val() {
            self.s_kind.next = self.k_warp.val();
            for n in self._w..self._w1 {
                self.s_warp.next = self.s_idx[n].val();
            }
        }
        if self.sched.init.val() {
            self.s_kind.next = self.k_init.val();
            if self.launch.init_has_reg.val() {
                self.s_warp.next = self.launch.init_warp.val();
            }
        }
        // ---- global memory (v2gm): a return slot (priority 1) ----
        if self.sched.ret.val() {
            self.s_kind.next = self.gm_k_ret.val();
            self.s_warp.next = self.gmem.ret_warp.val();
        }
        self.s_item.next = self.s_kind.val().any();

        // ---- global memory (v2gm) ----
        self.gmem.clock.next = self.clock.val();
        self.gmem.reset.next = self.reset.val();
        for i in 0..6 {
            self.p_ent[i].clock.next = self.clock.val();
            self.p_ent[i].reset.next = self.reset.val();
            self.p_rerr[i].clock.next = self.clock.val();
            self.p_rerr[i].reset.next = self.reset.val();
        }
        // R: the decoder's outputs.
        self.gmem.r_pass.next = self.p_kind[2].q.val() == self.k_warp.val();
        self.gmem.r_cls.next = self.decode.cls.val();
        self.gmem.r_shared.next = self.decode.shared.val();
        self.gmem.r_msize.next = self.decode.msize.val();
        self.gmem.r_msigned.next = self.decode.msigned.val();
        self.gmem.r_atom.next = self.decode.atom.val();
        self.gmem.r_rd.next = self.decode.rd.val();
        // A: the pass, its commit (commit-gated `served`), addresses and
        // store data.
        self.gmem.a_pass.next = self.p_kind[4].q.val() == self.k_warp.val();
        self.gmem.a_warp.next = self.p_warp[4].q.val();
        self.gmem.a_pc.next = self.p_pc[4].q.val();
        self.gmem.a_exec.next = self.p_exec[1].q.val();
        self.gmem.a_kill.next = self.ctl.a_kill.val();
        self.gmem.a_commit.next = self.ctl.commit.val();
        self.gmem.a_served.next = self.ctl.served.val();
        for i in 0..self._lanes {
            self.gmem.a_addr[i].next = self.dp.y_a[i].val();
            self.gmem.a_sd[i].next = self.ctl.sd[i].val();
            self.gmem.a_be[i].next = self.ctl.be[i].val();
        }
        // S: a return slot takes the oldest returnable entry.
        self.gmem.ret_take.next = self.sched.ret.val();
        self.z_gm_ret_warp.i.next = self.gmem.ret_warp.val();
        self.gm_s_ret_oh.next = self.zero16.val();
        if self.sched.ret.val() {
            self.gm_s_ret_oh.next = self.one16.val() << self.z_gm_ret_warp.o.val();
        }
        self.p_ent[0].d.next = self.gmem.ret_idx.val();
        self.p_rerr[0].d.next = self.gmem.ret_err.val();
        for i in 0..5 {
            self.p_ent[i + 1].d.next = self.p_ent[i].q.val();
            self.p_rerr[i + 1].d.next = self.p_rerr[i].q.val();
        }
        // A: the return slot frees its entry (`outstanding` − 1, `busy_r`
        // := 0 through the warp state's `a_ret`).
        self.gm_a_ret.next = self.p_kind[4].q.val() == self.gm_k_ret.val();
        self.gmem.free.next = self.gm_a_ret.val();
        self.gmem.free_idx.next = self.p_ent[4].q.val();
        // M: the return slot reads its entry.
        self.gmem.rt_idx.next = self.p_ent[5].q.val();
        // Write completions.
        self.z_gm_done_warp.i.next = self.gmem.done_warp.val();
        self.gm_done_oh.next = self.zero16.val();
        if self.gmem.wdone.val() {
            self.gm_done_oh.next = self.one16.val() << self.z_gm_done_warp.o.val();
        }
        // Every `gmem` output is read by the shared unit's return-slot path
        // or the trap unit; these reads only keep the lint quiet in
        // configurations whose sections leave some of them unread.
        self.gm_unused.next = self.p_rerr[5].q.val()
            | self.gmem.rs_lt.val().any()
            | self.gmem.rs_lanes.val().any()
            | self.gmem.rs_rd.val().any()
            | self.gmem.rs_warp.val().any()
            | self.gmem.trap.val()
            | self.gmem.trap_idx.val().any()
            | self.gmem.trap_warp.val().any()
            | self.gmem.trap_lanes.val().any()
            | self.gmem.trap_pc.val().any();
        for i in 0..self._lanes {
            self.gm_unused.next = self.gm_unused.val()
                | self.gmem.rs_word[i].val().any()
                | self.gmem.rs_off[i].val().any();
        }

        // ---- the items in F..W: a shift, nothing stalls (§3.3) ----
        self.p_kind[0].d.next = self.s_kind.val();
        self.p_warp[0].d.next = self.s_warp.val();
        self.p_has_reg[0].d.next = self.sched.init.val() & self.launch.init_has_reg.val();
        self.p_reg[0].d.next = self.launch.init_reg.val();
        self.p_has_row[0].d.next = self.sched.init.val() & self.launch.init_has_row.val();
        self.p_row[0].d.next = self.launch.init_row.val();
        self.p_pc[0].d.next = self.warps.f_gpc.val();
        self.p_active[0].d.next = self.warps.f_gmask.val();
        for i in 0..4 {
            self.p_pc[i + 1].d.next = self.p_pc[i].q.val();
            self.p_active[i + 1].d.next = self.p_active[i].q.val();
        }
        for i in 0..6 {
            self.p_kind[i + 1].d.next = self.p_kind[i].q.val();
            self.p_warp[i + 1].d.next = self.p_warp[i].q.val();
            self.p_has_reg[i + 1].d.next = self.p_has_reg[i].q.val();
            self.p_reg[i + 1].d.next = self.p_reg[i].q.val();
            self.p_has_row[i + 1].d.next = self.p_has_row[i].q.val();
            self.p_row[i + 1].d.next = self.p_row[i].q.val();
        }
        self.pipe_empty.next = !self.s_item.val()
            & !self.p_kind[0].q.val().any()
            & !self.p_kind[1].q.val().any()
            & !self.p_kind[2].q.val().any()
            & !self.p_kind[3].q.val().any()
            & !self.p_kind[4].q.val().any()
            & !self.p_kind[5].q.val().any()
            & !self.p_kind[6].q.val().any();
        // ---- stage D (§7) ----
        self.decode.word.next = self.imem.rdata.val();
        self.decode.warp.next = self.p_warp[1].q.val();
        self.decode.active.next = self.p_active[1].q.val();
        self.decode.bank.next = self.dp.bank.val();
        self.p_exec[0].d.next = self.decode.exec.val();
        self.p_exec[1].d.next = self.p_exec[0].q.val();

        self.z_a_warp.i.next = self.p_warp[4].q.val();
        self.a_oh.next = self.one16.val() << self.z_a_warp.o.val();

        // ---- stage A (index 4): init slots return to the launch unit;
        // warp passes leave S..A (their commit is M2's next step) ----
        self.launch.a_init.next = self.p_kind[4].q.val() == self.k_init.val();
        self.launch.a_has_reg.next = self.p_has_reg[4].q.val();
        self.launch.a_warp.next = self.p_warp[4].q.val();
        self.launch.a_reg.next = self.p_reg[4].q.val();
        self.launch.a_row.next = self.p_row[4].q.val();

        // Not read until the stages that use them exist (M2).
        self.unused_pending.next = self.p_has_row[6].q.val()
            | self.p_row[6].q.val().any()
            | self.warps.rearb.val().any()
            | self.warps.f_gdepth.val().any()
            | self.warps.a_outstanding.val().any()
            | self.sched.ret.val()
            | self.sched.f_warp.val()
            | self.sched.f_sel.val().any()
            | self.sched.f_ret.val()
            | self.sched.f_init.val()
            | self.sched.f_idx.val().any()
            | self.launch.tid_we.val()
            | self.launch.tid_lane.val().any()
            | self.launch.tid_warp.val().any()
            | self.launch.tid_x.val().any()
            | self.launch.tid_y.val().any()
            | self.launch.tid_z.val().any()
            | self.launch.tid_last.val()
            | self.launch.start.val()
            | self.launch.start_slot.val().any()
            | self.launch.launching.val()
            | self.launch.alloc.val()
            | self.launch.alloc_slot.val().any()
            | self.launch.alloc_oh.val().any()
            | self.z_free.o.val().any()
            | self.z_qsend.o.val().any()
            | self.z_qresp.o.val().any()
            | self.z_qret.o.val().any()
            | self.launch.active.val()
            | self.decode.invalid.val()
            | self.decode.movhi.val()
            | self.decode.imm_b.val()
            | self.decode.shared.val()
            | self.decode.msigned.val()
            | self.decode.wr_rd.val()
            | self.decode.wr_pd.val()
            | self.decode.cls.val().any()
            | self.decode.alu.val().any()
            | self.decode.mul.val().any()
            | self.decode.pop.val().any()
            | self.decode.atom.val().any()
            | self.decode.vote.val().any()
            | self.decode.cons.val().any()
            | self.decode.sreg.val().any()
            | self.decode.msize.val().any()
            | self.decode.imm.val().any()
            | self.decode.target.val().any()
            | self.decode.param.val().any()
            | self.decode.rd.val().any()
            | self.decode.pd.val().any()
            | self.decode.ra.val().any()
            | self.decode.rb.val().any()
            | self.decode.pa.val().any()
            | self.decode.pb.val().any();
        for k in 0..self._slots {
            self.unused_pending.next = self.unused_pending.val()
                | self.launch.state[k].val().any()
                | self.launch.older[k].val().any()
                | self.launch.ctaid_x[k].val().any()
                | self.launch.ctaid_y[k].val().any()
                | self.launch.ctaid_z[k].val().any()
                | self.launch.base_warp[k].val().any()
                | self.launch.base_row[k].val().any();
        }
        for w in 0..self._w {
            self.unused_pending.next = self.unused_pending.val()
                | self.warps.code[w].val().any()
                | self.launch.wslot[w].val().any()
                | self.launch.wib[w].val().any();
        }

        // ---- data path (v2data) ----
        self.dp.clock.next = self.clock.val();
        self.dp.reset.next = self.reset.val();
        for i in 0..self._lanes {
            self.r_rf_data[i].clock.next = self.clock.val();
            self.r_rf_data[i].reset.next = self.reset.val();
        }
        self.r_pred_we.clock.next = self.clock.val();
        self.r_pred_we.reset.next = self.reset.val();
        self.r_pred_addr.clock.next = self.clock.val();
        self.r_pred_addr.reset.next = self.reset.val();
        self.r_pred_data.clock.next = self.clock.val();
        self.r_pred_data.reset.next = self.reset.val();
        self.dp.clear_warps.next = self.launch.alloc_warps.val();
        self.dp.tid_we.next = self.launch.tid_we.val();
        self.dp.tid_lane.next = self.launch.tid_lane.val();
        self.dp.tid_warp.next = self.launch.tid_warp.val();
        self.dp.tid_x.next = self.launch.tid_x.val();
        self.dp.tid_y.next = self.launch.tid_y.val();
        self.dp.tid_z.next = self.launch.tid_z.val();
        self.dp.f_warp.next = self.p_warp[0].q.val();
        self.dp.ra_d.next = self.decode.ra_d.val();
        self.dp.rb_d.next = self.decode.rb_d.val();
        self.dp.r_pass.next = self.p_kind[2].q.val() == self.k_warp.val();
        self.dp.r_init.next =
            (self.p_kind[2].q.val() == self.k_init.val()) & self.p_has_reg[2].q.val();
        self.dp.r_init_reg.next = self.p_reg[2].q.val();
        self.dp.r_warp.next = self.p_warp[2].q.val();
        self.dp.r_pc.next = self.p_pc[2].q.val();
        self.dp.cls.next = self.decode.cls.val();
        self.dp.movhi.next = self.decode.movhi.val();
        self.dp.imm_b.next = self.decode.imm_b.val();
        self.dp.alu.next = self.decode.alu.val();
        self.dp.mul.next = self.decode.mul.val();
        self.dp.pop.next = self.decode.pop.val();
        self.dp.vote.next = self.decode.vote.val();
        self.dp.sreg.next = self.decode.sreg.val();
        self.dp.imm.next = self.decode.imm.val();
        self.dp.rd.next = self.decode.rd.val();
        self.dp.wr_rd.next = self.decode.wr_rd.val();
        self.dp.pd.next = self.decode.pd.val();
        self.dp.wr_pd.next = self.decode.wr_pd.val();
        self.dp.exec.next = self.decode.exec.val();
        self.dp.pa.next = self.decode.pa.val();
        self.dp.pb.next = self.decode.pb.val();
        self.dp.grid_x.next = self.lreg[2].q.val();
        self.dp.grid_y.next = self.lreg[3].q.val();
        self.dp.grid_z.next = self.lreg[4].q.val();
        self.dp.block_x.next = self.lreg[5].q.val();
        self.dp.block_y.next = self.lreg[6].q.val();
        self.dp.block_z.next = self.lreg[7].q.val();
        for k in 0..self._slots {
            self.dp.ctaid_x[k].next = self.launch.ctaid_x[k].val();
            self.dp.ctaid_y[k].next = self.launch.ctaid_y[k].val();
            self.dp.ctaid_z[k].next = self.launch.ctaid_z[k].val();
        }
        for w in 0..self._w {
            self.dp.wslot[w].next = self.launch.wslot[w].val();
            self.dp.wib[w].next = self.launch.wib[w].val();
        }
        self.dp.nwarps.next = self.setup.nwarps.val();
        // `%clock`: `cycles` as it is during R.
        self.dp.clock_lo.next = self.ctr.lo[0].val();
        self.dp.clock_hi.next = self.ctr.hi[0].val();
        self.dp.param.next = self.params.rdata.val();
        // The commit (control path): whether the pass at A commits, and
        // its write mask: `exec` for the classes written here (a memory
        // pass's `served` lanes come with the memory path).
        self.dp.a_keep.next = self.p_exec[1].q.val();
        self.dp.a_commit.next = self.ctl.commit.val();
        // W's item is the data path's (its registers carry the write).
        self.unused_dp.next =
            self.p_warp[6].q.val().any() | self.p_reg[6].q.val().any() | self.p_has_reg[6].q.val();
        for i in 0..self._lanes {
            self.unused_dp.next = self.unused_dp.val() | self.dp.y_a[i].val().any();
        }
        // The trace fields of the data path: A (predicates), W (registers).
        self.z_pred_we.i.next = self.dp.tr_pred_we.val();
        self.z_pred_data.i.next = self.dp.tr_pred_data.val();
        self.r_pred_we.d.next = self.z_pred_we.o.val();
        self.r_pred_addr.d.next = self.dp.tr_pred_addr.val();
        self.r_pred_data.d.next = self.z_pred_data.o.val();
        self.z_rf_we.i.next = self.dp.tr_rf_we.val();
        self.z_rf_addr.i.next = self.dp.tr_rf_addr.val();
        self.r_rf_we.d.next = self.z_rf_we.o.val();
        self.r_rf_addr.d.next = self.z_rf_addr.o.val();
        for i in 0..self._lanes {
            self.r_rf_data[i].d.next = self.dp.tr_rf_data[i].val();
        }

        // ---- shared memory (v2shm), R..A: a shared pass's class, load
        // width and atomic op carried to A, its lanes' addresses at A; the
        // port rule (§10.1) refuses a shared pass or an init slot's row
        // clear at A while M holds an atomic that served a lane ----
        self.shm.clock.next = self.clock.val();
        self.sh_x_cls.clock.next = self.clock.val();
        self.sh_x_cls.reset.next = self.reset.val();
        self.sh_x_lw.clock.next = self.clock.val();
        self.sh_x_lw.reset.next = self.reset.val();
        self.sh_x_aop.clock.next = self.clock.val();
        self.sh_x_aop.reset.next = self.reset.val();
        self.sh_a_cls.clock.next = self.clock.val();
        self.sh_a_cls.reset.next = self.reset.val();
        self.sh_a_lw.clock.next = self.clock.val();
        self.sh_a_lw.reset.next = self.reset.val();
        self.sh_a_aop.clock.next = self.clock.val();
        self.sh_a_aop.reset.next = self.reset.val();
        self.sh_m_kind.clock.next = self.clock.val();
        self.sh_m_kind.reset.next = self.reset.val();
        self.sh_m_served.clock.next = self.clock.val();
        self.sh_m_served.reset.next = self.reset.val();
        self.sh_m_base.clock.next = self.clock.val();
        self.sh_m_base.reset.next = self.reset.val();
        self.sh_m_min.clock.next = self.clock.val();
        self.sh_m_min.reset.next = self.reset.val();
        self.sh_m_lw.clock.next = self.clock.val();
        self.sh_m_lw.reset.next = self.reset.val();
        self.sh_m_aop.clock.next = self.clock.val();
        self.sh_m_aop.reset.next = self.reset.val();
        self.sh_m_opnd.clock.next = self.clock.val();
        self.sh_m_opnd.reset.next = self.reset.val();
        for l in 0..self._lanes {
            self.sh_m_bank[l].clock.next = self.clock.val();
            self.sh_m_bank[l].reset.next = self.reset.val();
            self.sh_m_off[l].clock.next = self.clock.val();
            self.sh_m_off[l].reset.next = self.reset.val();
            self.sh_m_sd[l].clock.next = self.clock.val();
            self.sh_m_sd[l].reset.next = self.reset.val();
            self.sh_m_be[l].clock.next = self.clock.val();
            self.sh_m_be[l].reset.next = self.reset.val();
        }
        for i in 0..self._banks {
            self.r_sh_we[i].clock.next = self.clock.val();
            self.r_sh_we[i].reset.next = self.reset.val();
            self.r_sh_wd[i].clock.next = self.clock.val();
            self.r_sh_wd[i].reset.next = self.reset.val();
        }
        // R: the load width, one-hot over `LoadWidth::ALL` (U8, S8, U16,
        // S16, B32) from the one-hot size (1, 2, 4 bytes) and the sign.
        self.sh_r_lw.next = self.sh_zero5.val();
        if self.decode.msize.val().get_bit(0) & !self.decode.msigned.val() {
            self.sh_r_lw.next = self.sh_lwb[0].val();
        }
        if self.decode.msize.val().get_bit(0) & self.decode.msigned.val() {
            self.sh_r_lw.next = self.sh_lwb[1].val();
        }
        if self.decode.msize.val().get_bit(1) & !self.decode.msigned.val() {
            self.sh_r_lw.next = self.sh_lwb[2].val();
        }
        if self.decode.msize.val().get_bit(1) & self.decode.msigned.val() {
            self.sh_r_lw.next = self.sh_lwb[3].val();
        }
        if self.decode.msize.val().get_bit(2) {
            self.sh_r_lw.next = self.sh_lwb[4].val();
        }
        // The classes Load, Store, Atom are `cls` bits 8, 9, 10 (asserted
        // by the control path).
        self.sh_x_cls.d.next = self.sh_zero3.val();
        if (self.p_kind[2].q.val() == self.k_warp.val()) & self.decode.shared.val() {
            if self.decode.cls.val().get_bit(8) {
                self.sh_x_cls.d.next = self.sh_clsb[0].val();
            }
            if self.decode.cls.val().get_bit(9) {
                self.sh_x_cls.d.next = self.sh_clsb[1].val();
            }
            if self.decode.cls.val().get_bit(10) {
                self.sh_x_cls.d.next = self.sh_clsb[2].val();
            }
        }
        self.sh_x_lw.d.next = self.sh_r_lw.val();
        self.sh_x_aop.d.next = self.decode.atom.val();
        self.sh_a_cls.d.next = self.sh_x_cls.q.val();
        self.sh_a_lw.d.next = self.sh_x_lw.q.val();
        self.sh_a_aop.d.next = self.sh_x_aop.q.val();
        self.sh_refused.next = self.sh_a_cls.q.val().any() & self.shm.port_busy.val();
        self.sh_init_refused.next = (self.p_kind[4].q.val() == self.k_init.val())
            & self.p_has_row[4].q.val()
            & self.shm.port_busy.val();
        self.launch.a_refused.next = self.sh_init_refused.val();

        // ---- warp state (§5) ----
        self.warps.clear.next = self.slave.start.val();
        for w in 0..self._w {
            self.warps.slot_st[w].next = self.launch.wstate[w].val();
            self.warps.start_alive[w].next = self.launch.start_alive[w].val();
        }
        self.z_alloc.i.next = self.launch.alloc_warps.val();
        self.warps.alloc.next = self.z_alloc.o.val();
        self.z_start.i.next = self.launch.start_warps.val();
        self.warps.start.next = self.z_start.o.val();
        self.z_entry.i.next = self.lreg[0].q.val();
        self.warps.entry_pc.next = self.z_entry.o.val();
        self.warps.s_pass.next = self.z_sel.o.val();
        self.warps.s_ret.next = self.gm_s_ret_oh.val();
        self.warps.a_pass.next = self.zero16.val();
        if self.p_kind[4].q.val() == self.k_warp.val() {
            self.warps.a_pass.next = self.a_oh.val();
        }
        self.warps.a_ret.next = self.zero16.val();
        if self.gm_a_ret.val() {
            self.warps.a_ret.next = self.a_oh.val();
        }
        self.warps.c_reserve.next = self.gmem.rsv.val();
        self.warps.w_done.next = self.gm_done_oh.val();
        self.warps.f_sel.next = self.z_sel.o.val();

        // ---- the core state machine ----
        self.next_st.next = self.st.q.val();
        if (self.st.q.val() == self.s_setup.val()) & self.setup.done.val() {
            self.next_st.next = self.s_run.val();
            if self.setup.refused.val() {
                self.next_st.next = self.s_idle.val();
            }
        }
        // §12.5: every block launched and retired, nothing in S..W (and,
        // with M4, no global entry in use).
        if (self.st.q.val() == self.s_run.val())
            & self.launch.all_done.val()
            & self.pipe_empty.val()
            & self.gmem.idle.val()
        {
            self.next_st.next = self.s_done.val();
        }
        // ---- traps (v2trap): §13.2, `STOPPING` while a trap is held, then
        // `TRAP` once no live slot, item or global entry remains (slot
        // states at the start of the cycle: in a quiet cycle none changes)
        // The global unit's `idle` (v2gm).
        self.gm_idle.next = self.gmem.idle.val();
        self.t_slots_live.next = false;
        for k in 0..self._slots {
            self.t_slots_live.next = self.t_slots_live.val()
                | (self.launch.state[k].val() == self.t_st_launch.val())
                | (self.launch.state[k].val() == self.t_st_run.val());
        }
        if ((self.st.q.val() == self.s_run.val()) | (self.st.q.val() == self.s_stopping.val()))
            & self.trap.held_next.val()
        {
            self.next_st.next = self.s_stopping.val();
            if self.pipe_empty.val() & self.gm_idle.val() & !self.t_slots_live.val() {
                self.next_st.next = self.s_trap.val();
            }
        }
        // ---- end traps (v2trap) ----
        self.is_running.next = (self.st.q.val() == self.s_setup.val())
            | (self.st.q.val() == self.s_run.val())
            | (self.st.q.val() == self.s_stopping.val());
        // START (accepted by the slave only while not running) loads SETUP.
        self.st.ld.next = self.slave.start.val();
        self.st.lv.next = self.s_setup.val();
        self.st.en.next = true;
        self.st.d.next = self.next_st.val();
        self.running_r.ld.next = self.slave.start.val();
        self.running_r.lv.next = true;
        self.running_r.en.next = true;
        self.running_r.d.next = (self.next_st.val() == self.s_setup.val())
            | (self.next_st.val() == self.s_run.val())
            | (self.next_st.val() == self.s_stopping.val());
        self.done_r.ld.next = self.slave.start.val();
        self.done_r.lv.next = false;
        self.done_r.en.next = true;
        self.done_r.d.next = self.next_st.val() == self.s_done.val();
        self.trapped_r.ld.next = self.slave.start.val();
        self.trapped_r.lv.next = false;
        self.trapped_r.en.next = true;
        self.trapped_r.d.next = self.next_st.val() == self.s_trap.val();
        self.irq_r.ld.next = self.slave.start.val();
        self.irq_r.lv.next = false;
        self.irq_r.en.next = true;
        self.irq_r.d.next =
            (self.next_st.val() == self.s_done.val()) | (self.next_st.val() == self.s_trap.val());
        // Registered from the same next state, so all four are flip-flops.
        self.running_o.next = self.running_r.q.val();
        self.done_o.next = self.done_r.q.val();
        self.trapped_o.next = self.trapped_r.q.val();
        self.irq_o.next = self.irq_r.q.val();

        // ---- counters (§15.1): cleared by START ----
        self.ctr.clear.next = self.slave.start.val();
        for i in 0..self._nlo {
            self.ctr.inc[i].next = self.zero8.val();
        }
        if self.is_running.val() {
            self.ctr.inc[0].next = self.one8.val();
        }
        if ((self.st.q.val() == self.s_run.val()) | (self.st.q.val() == self.s_stopping.val()))
            & !self.s_item.val()
        {
            self.ctr.inc[11].next = self.one8.val();
        }
        if self.launch.count_blocks.val() {
            self.ctr.inc[10].next = self.one8.val();
        }
        if self.p_kind[4].q.val() == self.k_init.val() {
            self.ctr.inc[16].next = self.one8.val();
        }
        // ---- global memory (v2gm): its counters of §15.1 (indices asserted
        // in `new`), after the clearing loop above ----
        if self.gm_a_ret.val() {
            self.ctr.inc[15].next = self.one8.val();
        }
        if self.gmem.rsv.val() {
            self.ctr.inc[19].next = self.one8.val();
        }
        if self.gmem.ev_beat.val() {
            self.ctr.inc[20].next = self.one8.val();
        }
        if self.gmem.ev_stall.val() {
            self.ctr.inc[21].next = self.one8.val();
        }
        if self.gmem.ev_qfull.val() {
            self.ctr.inc[22].next = self.one8.val();
        }
        for i in 0..self._nlo {
            self.slave.ctr_lo[i].next = self.ctr.lo[i].val();
        }
        for i in 0..self._nhi {
            self.slave.ctr_hi[i].next = self.ctr.hi[i].val();
        }

        // ---- host-readable words ----
        self.pk_ctrl.f[0].next = self.zero32.val();
        self.pk_ctrl.f[1].next = self.zero32.val();
        if self.halt.q.val() {
            self.pk_ctrl.f[1].next = self.one32.val();
        }
        for i in 0..7 {
            self.pk_status.f[i].next = self.zero32.val();
        }
        if self.running_r.q.val() {
            self.pk_status.f[0].next = self.one32.val();
        }
        if self.done_r.q.val() {
            self.pk_status.f[1].next = self.one32.val();
        }
        if self.trapped_r.q.val() {
            self.pk_status.f[2].next = self.one32.val();
        }
        if self.write_ignored.q.val() {
            self.pk_status.f[3].next = self.one32.val();
        }
        if self.refused.q.val() {
            self.pk_status.f[4].next = self.one32.val();
        }
        // `halted`: HALT set and nothing in flight (M4: and no entry in use).
        if self.halt.q.val() & self.pipe_empty.val() & self.gmem.idle.val() {
            self.pk_status.f[5].next = self.one32.val();
        }
        self.x_state.i.next = self.st.q.val();
        self.pk_status.f[6].next = self.x_state.o.val();
        self.x_threads.i.next = self.l_threads.q.val();
        self.x_nwarps.i.next = self.l_nwarps.q.val();
        self.x_resident.i.next = self.l_resident.q.val();
        self.pk_launch.f[0].next = self.x_threads.o.val();
        self.pk_launch.f[1].next = self.x_nwarps.o.val();
        self.pk_launch.f[2].next = self.x_resident.o.val();
        for i in 0..self._nrd {
            self.slave.rd[i].next = self.zero32.val();
        }
        self.slave.rd[0].next = self.pk_ctrl.o.val();
        self.slave.rd[1].next = self.pk_status.o.val();
        self.slave.rd[2].next = self.pk_launch.o.val();
        self.slave.rd[3].next = self.l_window.q.val();
        // WSTATE0/1 (the slave keeps each word's own fields).
        self.z_ws0.i.next = self.warps.codes.val();
        self.z_ws1.i.next = self.warps.codes.val() >> self.ws_shift.val();
        self.slave.rd[4].next = self.z_ws0.o.val();
        self.slave.rd[5].next = self.z_ws1.o.val();
        for i in self._dw..self._dw1 {
            self.slave.rd[i].next = self.dbg_warp.q.val();
        }
        for i in self._dl..self._dl1 {
            self.slave.rd[i].next = self.dbg_lane.q.val();
        }
        // DBG_QUEUE: free entries [4:0], awaiting send [12:8], awaiting a
        // response [20:16], returnable [28:24] (the global unit's counts).
        self.z_free.i.next = self.gmem.n_free.val();
        self.z_qsend.i.next = self.gmem.q_send.val();
        self.z_qresp.i.next = self.gmem.q_resp.val();
        self.z_qret.i.next = self.gmem.q_ret.val();
        for i in self._dq..self._dq1 {
            self.slave.rd[i].next = self.z_free.o.val()
                | (self.z_qsend.o.val() << 8)
                | (self.z_qresp.o.val() << 16)
                | (self.z_qret.o.val() << 24);
        }

        // ---- bus outputs: the global unit's master (v2gm) ----
        self.gm_cyc_o.next = self.gmem.cyc_o.val();
        self.gm_stb_o.next = self.gmem.stb_o.val();
        self.gm_we_o.next = self.gmem.we_o.val();
        self.gm_adr_o.next = self.gmem.adr_o.val();
        self.gm_tga_o.next = self.gmem.tga_o.val();
        for i in 0..self._nsel {
            self.gm_sel_o[i].next = self.gmem.sel_o[i].val();
        }
        for i in 0..self._ndat {
            self.gm_dat_o[i].next = self.gmem.dat_o[i].val();
            self.gmem.dat_i[i].next = self.gm_dat_i[i].val();
        }
        self.gmem.ack_i.next = self.gm_ack_i.val();
        self.gmem.err_i.next = self.gm_err_i.val();
        self.gmem.stall_i.next = self.gm_stall_i.val();

        // ---- the trace record (§15.2): the record of cycle c during c+1 ----
        self.r_state.d.next = self.st.q.val();
        self.tr_state.next = self.r_state.q.val();
        self.tr_free.next = self.gmem.tr_free.val();
        self.r_s_kind.d.next = self.s_kind.val();
        self.tr_s_kind.next = self.r_s_kind.q.val();
        self.r_s_warp.d.next = self.s_warp.val();
        self.tr_s_warp.next = self.r_s_warp.q.val();
        self.r_s_replay.d.next = self.sched.warp.val() & self.warps.f_replay.val();
        self.tr_s_replay.next = self.r_s_replay.q.val();
        // A: init slots (a refused row clear needs the shared port, M3).
        self.r_a_kind.d.next = self.s_idle.val();
        if self.p_kind[4].q.val() == self.k_init.val() {
            self.r_a_kind.d.next = self.k_a_init.val();
        }
        if self.p_kind[4].q.val() == self.k_warp.val() {
            self.r_a_kind.d.next = self.k_a_committed.val();
        }
        if self.gm_a_ret.val() {
            self.r_a_kind.d.next = self.gm_k_a_return.val();
        }
        self.r_a_warp.d.next = self.p_warp[4].q.val();
        if !self.p_kind[4].q.val().any() {
            self.r_a_warp.d.next = self.zero4.val();
        }
        self.tr_a_kind.next = self.r_a_kind.q.val();
        self.tr_a_warp.next = self.r_a_warp.q.val();
        self.r_a_pc.d.next = self.zero16.val();
        self.r_a_active.d.next = self.zero32.val();
        self.z_active.i.next = self.p_active[4].q.val();
        if self.p_kind[4].q.val() == self.k_warp.val() {
            self.r_a_pc.d.next = self.p_pc[4].q.val();
            self.r_a_active.d.next = self.z_active.o.val();
        }
        self.tr_a_pc.next = self.r_a_pc.q.val();
        self.tr_a_active.next = self.r_a_active.q.val();
        self.r_a_exec.d.next = self.zero32.val();
        self.z_exec.i.next = self.p_exec[1].q.val();
        if self.p_kind[4].q.val() == self.k_warp.val() {
            self.r_a_exec.d.next = self.z_exec.o.val();
        }
        self.tr_a_exec.next = self.r_a_exec.q.val();
        // ---- data path (v2data): predicate writes at A, register writes
        // at W (results, link values, init slots' zeros) ----
        self.tr_pred_we.next = self.r_pred_we.q.val();
        self.tr_pred_addr.next = self.r_pred_addr.q.val();
        self.tr_pred_data.next = self.r_pred_data.q.val();
        self.tr_rf_we.next = self.r_rf_we.q.val();
        self.tr_rf_addr.next = self.r_rf_addr.q.val();
        for i in 0..self._lanes {
            self.tr_rf_data[i].next = self.r_rf_data[i].q.val();
        }
        // M: the shared memory's write port (`tr_sh_*`): the shared
        // memory section (v2shm) loads the registers.
        for i in 0..self._banks {
            self.tr_sh_we[i].next = self.r_sh_we[i].q.val();
            self.tr_sh_data[i].next = self.r_sh_wd[i].q.val();
        }
        self.tr_sh_row.next = self.r_sh_row.q.val();
        self.tr_rsp.next = self.gmem.tr_rsp.val();
        self.tr_rsp_entry.next = self.gmem.tr_rsp_entry.val();
        self.r_alloc.d.next = self.launch.tr_alloc.val();
        self.r_start.d.next = self.launch.tr_start.val();
        self.r_retire.d.next = self.launch.tr_retire.val();
        self.r_alloc_slot.d.next = self.launch.tr_alloc_slot.val();
        self.r_start_slot.d.next = self.launch.tr_start_slot.val();
        self.r_retire_slot.d.next = self.launch.tr_retire_slot.val();
        self.tr_alloc.next = self.r_alloc.q.val();
        self.tr_start.next = self.r_start.q.val();
        self.tr_retire.next = self.r_retire.q.val();
        self.tr_alloc_slot.next = self.r_alloc_slot.q.val();
        self.tr_start_slot.next = self.r_start_slot.q.val();
        self.tr_retire_slot.next = self.r_retire_slot.q.val();
        self.r_warp_state.d.next = self.warps.codes.val();
        self.tr_warp_state.next = self.r_warp_state.q.val();

        // ---- control path (v2ctl) ----
        self.ctl.clock.next = self.clock.val();
        self.ctl.reset.next = self.reset.val();
        self.ctl.clear.next = self.slave.start.val();
        // R: the decoder's outputs.
        self.ctl.r_pass.next = self.p_kind[2].q.val() == self.k_warp.val();
        self.ctl.r_warp.next = self.p_warp[2].q.val();
        self.ctl.r_cls.next = self.decode.cls.val();
        self.ctl.r_cons.next = self.decode.cons.val();
        self.ctl.r_target.next = self.decode.target.val();
        self.ctl.r_shared.next = self.decode.shared.val();
        self.ctl.r_msize.next = self.decode.msize.val();
        self.ctl.r_exec.next = self.decode.exec.val();
        self.ctl.r_pb.next = self.decode.pb.val();
        // X: the pass and its warp's registers (read at X, §4.1).
        self.ctl.x_pc.next = self.p_pc[3].q.val();
        self.ctl.x_active.next = self.p_active[3].q.val();
        self.warps.a_sel.next = self.ctl.x_warp_oh.val();
        self.ctl.x_gdepth.next = self.warps.a_gdepth.val();
        self.ctl.x_alive.next = self.warps.a_alive.val();
        self.ctl.x_waiting.next = self.warps.a_waiting.val();
        for i in 0..self._lanes {
            // The data path's operands at X (`datapath.rs`).
            self.ctl.x_a[i].next = self.dp.a_x[i].val();
            self.ctl.x_addr[i].next = self.dp.addr_x[i].val();
            self.ctl.x_sdata[i].next = self.dp.b_x[i].val();
        }
        self.ctl.code_len.next = self.lreg[1].q.val();
        self.ctl.window.next = self.l_window.q.val();
        // ---- traps (v2trap): stage A, the pass's cause and the kill ----
        self.t_a_pass.next = self.p_kind[4].q.val() == self.k_warp.val();
        self.t_a_st.next = self.zero2.val();
        self.t_a_slot.next = self.zero4.val();
        self.t_a_wib.next = self.zero4.val();
        for w in 0..self._w {
            if self.a_oh.val().get_bit(w) {
                self.t_a_st.next = self.t_a_st.val() | self.launch.wstate[w].val();
                self.t_a_slot.next = self.t_a_slot.val() | self.launch.wslot[w].val();
                self.t_a_wib.next = self.t_a_wib.val() | self.launch.wib[w].val();
            }
        }
        // §13.2: a pass of a frozen slot is squashed (no checks, no commit).
        self.t_frozen.next = self.t_a_pass.val() & (self.t_a_st.val() == self.t_st_frozen.val());
        self.tpc.pass.next = self.t_a_pass.val() & !self.t_frozen.val();
        self.tpc.outside.next = self.t_out_a.q.val();
        self.tpc.invalid.next = self.t_inv_a.q.val();
        self.tpc.word.next = self.t_word_a.q.val();
        self.tpc.active.next = self.p_active[4].q.val();
        self.tpc.m_mis.next = self.ctl.m_mis.val();
        self.tpc.m_oob.next = self.ctl.m_oob.val();
        self.tpc.m_stk.next = self.t_stk.fault.val();
        self.tpc.pmiss.next = self.t_pm_a.q.val();
        self.tpc.pidx.next = self.t_pidx_a.q.val();
        self.tpc.m_ovf.next = self.ctl.m_ovf.val();
        self.tpc.m_ret0.next = self.ctl.m_ret0.val();
        self.tpc.m_npc.next = self.ctl.m_npc.val();
        self.t_x_mw.i.next = self.t_mw_a.q.val();
        self.tpc.bytes.next = self.t_x_mw.o.val();
        for i in 0..self._lanes {
            self.tpc.addr[i].next = self.dp.y_a[i].val();
            self.tpc.npc[i].next = self.ctl.a_npc[i].val();
        }
        // The pass traps when any cause is present: the flags ORed, not the
        // cause's priority chain (`tpc.trap`, the same value), so that the
        // kill, which gates every commit enable, is a few levels from the
        // A registers (§19.4). X's flags arrive as one register.
        self.t_trapped.next = self.t_a_pass.val()
            & !self.t_frozen.val()
            & (self.ctl.a_flagged.val()
                | self.t_out_a.q.val()
                | self.t_inv_a.q.val()
                | self.t_pm_a.q.val()
                | self.t_stk.fault.val().any());
        self.ctl.a_kill.next = self.t_frozen.val() | self.t_trapped.val();
        // ---- end traps (v2trap) ----
        // Each memory unit drives its own refusal in its section.
        self.gm_refused.next = self.gmem.refused.val();
        self.ctl.a_refused.next = self.sh_refused.val() | self.gm_refused.val();
        for w in 0..self._w {
            self.ctl.wslot[w].next = self.launch.wslot[w].val();
            self.ctl.wstate[w].next = self.launch.wstate[w].val();
        }
        for k in 0..self._slots {
            self.z_ctl_smask[k].i.next = self.launch.smask[k].val();
            self.ctl.slot_warps[k].next = self.z_ctl_smask[k].o.val();
        }
        self.z_ctl_threads.i.next = self.setup.threads.val();
        self.ctl.threads.next = self.z_ctl_threads.o.val();
        self.ctl.alloc.next = self.launch.alloc.val();
        self.ctl.alloc_oh.next = self.launch.alloc_oh.val();
        self.ctl.start_warps.next = self.z_start.o.val();
        self.ctl.rearb.next = self.warps.rearb.val();
        self.warps.e_sel.next = self.ctl.e_sel.val();
        self.ctl.e_alive.next = self.warps.e_alive.val();
        self.ctl.e_waiting.next = self.warps.e_waiting.val();
        // The commit and the engine write the warp state.
        self.warps.c_we.next = self.ctl.c_we.val();
        self.warps.c_gmask.next = self.ctl.c_gmask.val();
        self.warps.c_gpc.next = self.ctl.c_gpc.val();
        self.warps.c_gdepth.next = self.ctl.c_gdepth.val();
        self.warps.c_alive.next = self.ctl.c_alive.val();
        self.warps.c_waiting.next = self.ctl.c_waiting.val();
        self.warps.c_replay.next = self.ctl.c_replay.val();
        self.warps.rel.next = self.ctl.rel.val();
        self.warps.e_we.next = self.ctl.e_we.val();
        self.warps.e_gmask.next = self.ctl.e_gmask.val();
        self.warps.e_gpc.next = self.ctl.e_gpc.val();
        self.warps.e_gdepth.next = self.ctl.e_gdepth.val();
        self.launch.retire.next = self.ctl.retire.val();
        self.launch.retire_slot.next = self.ctl.retire_slot.val();
        // Counters of §15.1 (indices asserted in `new`).
        if self.ctl.ev_issued.val() {
            self.ctr.inc[1].next = self.one8.val();
        }
        self.ctr.inc[2].next = self.ctl.ev_active.val();
        self.ctr.inc[3].next = self.ctl.ev_executed.val();
        if self.ctl.ev_replays.val() {
            self.ctr.inc[4].next = self.one8.val();
        }
        if self.ctl.ev_divergent.val() {
            self.ctr.inc[5].next = self.one8.val();
        }
        if self.ctl.ev_cons_taken.val() {
            self.ctr.inc[6].next = self.one8.val();
        }
        if self.ctl.ev_cons_not_taken.val() {
            self.ctr.inc[7].next = self.one8.val();
        }
        self.ctr.inc[8].next = self.ctl.ev_arrivals.val();
        if self.ctl.ev_barriers.val() {
            self.ctr.inc[9].next = self.one8.val();
        }
        if self.ctl.ev_rearbs.val() {
            self.ctr.inc[17].next = self.one8.val();
        }
        if self.ctl.ev_rearb_wait.val() {
            self.ctr.inc[18].next = self.one8.val();
        }
        self.ctl_n_ready.next = self.zero8.val();
        self.ctl_n_memwait.next = self.zero8.val();
        self.ctl_n_barrier.next = self.zero8.val();
        for w in 0..self._w {
            if self.warps.code[w].val() == self.ctl_code[1].val() {
                self.ctl_n_ready.next = self.ctl_n_ready.val() + self.one8.val();
            }
            if self.warps.code[w].val() == self.ctl_code[2].val() {
                self.ctl_n_memwait.next = self.ctl_n_memwait.val() + self.one8.val();
            }
            if (self.warps.code[w].val() == self.ctl_code[3].val())
                | (self.warps.code[w].val() == self.ctl_code[0].val())
            {
                self.ctl_n_barrier.next = self.ctl_n_barrier.val() + self.one8.val();
            }
        }
        if (self.st.q.val() == self.s_run.val()) | (self.st.q.val() == self.s_stopping.val()) {
            self.ctr.inc[12].next = self.ctl_n_ready.val();
            self.ctr.inc[13].next = self.ctl_n_memwait.val();
            self.ctr.inc[14].next = self.ctl_n_barrier.val();
        }
        // Trace fields of A.
        self.tr_a_served.next = self.ctl.tr_a_served.val();
        self.tr_a_gpc.next = self.ctl.tr_a_gpc.val();
        self.tr_a_gmask.next = self.ctl.tr_a_gmask.val();
        self.tr_a_pcw.next = self.ctl.tr_a_pcw.val();
        self.tr_tree.next = self.ctl.tr_tree.val();
        self.tr_rearb_warp.next = self.ctl.tr_rearb_warp.val();
        // Debug words (§15.3): the selected warp's registers.
        self.ctl_dbg_widx.next = self.dbg_warp.q.val().get_bits::<4>(0);
        if self.dbg_warp.q.val().get_bits::<4>(0) > self.ctl_wmax.val() {
            self.ctl_dbg_widx.next = self.ctl_wmax.val();
        }
        self.ctl_dbg_woh.next = self.zero16.val();
        self.ctl_dbg_wslot.next = self.zero4.val();
        self.ctl_dbg_wib.next = self.zero4.val();
        for w in 0..self._w {
            if self.ctl_dbg_widx.val() == self.widx[w].val() {
                self.ctl_dbg_woh.next = self.ctl_dbg_woh.val() | self.ctl_wbit[w].val();
                self.ctl_dbg_wslot.next = self.ctl_dbg_wslot.val() | self.launch.wslot[w].val();
                self.ctl_dbg_wib.next = self.ctl_dbg_wib.val() | self.launch.wib[w].val();
            }
        }
        self.warps.d_sel.next = self.ctl_dbg_woh.val();
        self.ctl.dbg_widx.next = self.ctl_dbg_widx.val();
        self.ctl.dbg_woh.next = self.ctl_dbg_woh.val();
        self.ctl.dbg_lane.next = self.dbg_lane.q.val().get_bits::<5>(0);
        self.ctl_dbg.gpc.next = self.warps.d_gpc.val();
        self.ctl_dbg.gdepth.next = self.warps.d_gdepth.val();
        self.ctl_dbg.gmask.next = self.warps.d_gmask.val();
        self.ctl_dbg.alive.next = self.warps.d_alive.val();
        self.ctl_dbg.waiting.next = self.warps.d_waiting.val();
        self.ctl_dbg.busy_i.next = self.warps.d_busy_i.val();
        self.ctl_dbg.busy_r.next = self.warps.d_busy_r.val();
        self.ctl_dbg.replay.next = self.warps.d_replay.val();
        self.ctl_dbg.rearb.next = self.warps.d_rearb.val();
        self.ctl_dbg.outstanding.next = self.warps.d_outstanding.val();
        self.ctl_dbg.wslot.next = self.ctl_dbg_wslot.val();
        self.ctl_dbg.wib.next = self.ctl_dbg_wib.val();
        self.ctl_dbg.lane_pc.next = self.ctl.dbg_pc.val();
        self.ctl_dbg.lane_depth.next = self.ctl.dbg_depth.val();
        for k in 0..self._slots {
            self.ctl_dbg.slot_state[k].next = self.launch.state[k].val();
            self.ctl_dbg.slot_arrived[k].next = self.ctl.slot_arrived[k].val();
            self.ctl_dbg.slot_exited[k].next = self.ctl.slot_exited[k].val();
        }
        for i in self._dbg_group..self._dbg_group1 {
            self.slave.rd[i].next = self.ctl_dbg.w_group.val();
        }
        for i in self._dbg_gmask..self._dbg_gmask1 {
            self.slave.rd[i].next = self.ctl_dbg.w_gmask.val();
        }
        for i in self._dbg_alive..self._dbg_alive1 {
            self.slave.rd[i].next = self.ctl_dbg.w_alive.val();
        }
        for i in self._dbg_waiting..self._dbg_waiting1 {
            self.slave.rd[i].next = self.ctl_dbg.w_waiting.val();
        }
        for i in self._dbg_flags..self._dbg_flags1 {
            self.slave.rd[i].next = self.ctl_dbg.w_flags.val();
        }
        for i in self._dbg_lanepc..self._dbg_lanepc1 {
            self.slave.rd[i].next = self.ctl_dbg.w_lane_pc.val();
        }
        for i in self._dbg_slot..self._dbg_slot1 {
            for k in 0..self._slots {
                self.slave.rd[i + k].next = self.ctl_dbg.w_slot[k].val();
            }
        }
        // Without `debug_regs` nothing reads the debug words.
        self.unused_ctl.next = self.tpc.trap.val()
            | self.ctl_dbg.w_group.val().any()
            | self.ctl_dbg.w_gmask.val().any()
            | self.ctl_dbg.w_alive.val().any()
            | self.ctl_dbg.w_waiting.val().any()
            | self.ctl_dbg.w_flags.val().any()
            | self.ctl_dbg.w_lane_pc.val().any();
        for k in 0..self._slots {
            self.unused_ctl.next = self.unused_ctl.val() | self.ctl_dbg.w_slot[k].val().any();
        }
        // For the data path (served lanes, store data) and the trap unit.
        self.unused_ctl.next = self.unused_ctl.val()
            | self.ctl.commit.val()
            | self.warps.a_gmask.val().any()
            | self.warps.a_gpc.val().any()
            | self.warps.a_replay.val()
            | self.ctl.served.val().any()
            | self.ctl.f_ovf.val()
            | self.ctl.f_ret0.val()
            | self.ctl.f_npc.val()
            | self.ctl.f_mis.val()
            | self.ctl.f_oob.val()
            | self.ctl.trap7.val();
        for i in 0..self._lanes {
            self.unused_ctl.next =
                self.unused_ctl.val() | self.ctl.sd[i].val().any() | self.ctl.be[i].val().any();
        }

        // ---- shared memory (v2shm), A -> M -> W: the commit's served
        // lanes (none for a pass that does not commit), their row and
        // banks, the store data, the atomic's operand, registered for M;
        // the load words written at W; the write port traced ----
        self.sh_a_served.next = self.sh_zero_l.val();
        if self.ctl.commit.val() {
            self.sh_a_served.next = self.ctl.served.val();
        }
        self.sh_a_slot.next = self.zero4.val();
        for w in 0..self._w {
            if self.a_oh.val().get_bit(w) {
                self.sh_a_slot.next = self.sh_a_slot.val() | self.launch.wslot[w].val();
            }
        }
        self.sh_a_base.next = self.sh_zero_rb.val();
        for k in 0..self._slots {
            if self.sh_a_slot.val() == self.sh_sidx[k].val() {
                self.sh_a_base.next = self.sh_a_base.val() | self.launch.base_row[k].val();
            }
        }
        // The served lanes are on one row (the tree's minimum, or the
        // atomic's one lane): the OR of their rows is that row. Each
        // lane's block-relative address at A is the lane's own ALU result
        // register (`dp.y_a`, `a + imm` registered at the end of X): a
        // copy of it here cost 32 flip-flops per lane (it had a reset, so
        // Yosys could not merge the two).
        self.sh_a_min.next = self.sh_zero_rb.val();
        self.sh_a_opnd.next = self.zero32.val();
        for l in 0..self._lanes {
            self.z_sh_row[l].i.next = self.dp.y_a[l].val() >> self.sh_row_shift.val();
            if self.sh_a_served.val().get_bit(l) {
                self.sh_a_min.next = self.sh_a_min.val() | self.z_sh_row[l].o.val();
                self.sh_a_opnd.next = self.sh_a_opnd.val() | self.ctl.sd[l].val();
            }
            self.sh_m_bank[l].d.next = self.one32.val()
                << ((self.dp.y_a[l].val() >> self.sh_two.val()) & self.sh_bank_mask.val());
            self.sh_m_off[l].d.next = self.zero2.val();
            if self.sh_a_cls.q.val().get_bit(0) {
                self.sh_m_off[l].d.next = self.dp.y_a[l].val().get_bits::<2>(0);
            }
            self.sh_m_sd[l].d.next = self.ctl.sd[l].val();
            self.sh_m_be[l].d.next = self.ctl.be[l].val();
        }
        self.sh_a_kind.next = self.zero4.val();
        if self.ctl.commit.val() & self.sh_a_cls.q.val().get_bit(0) {
            self.sh_a_kind.next = self.sh_kind_ld.val();
        }
        if self.ctl.commit.val() & self.sh_a_cls.q.val().get_bit(1) {
            self.sh_a_kind.next = self.sh_kind_st.val();
        }
        if self.ctl.commit.val() & self.sh_a_cls.q.val().get_bit(2) {
            self.sh_a_kind.next = self.sh_kind_at.val();
        }
        self.sh_m_base.d.next = self.sh_a_base.val();
        if (self.p_kind[4].q.val() == self.k_init.val())
            & self.p_has_row[4].q.val()
            & !self.sh_init_refused.val()
        {
            self.sh_a_kind.next = self.sh_kind_clr.val();
            self.sh_m_base.d.next = self.p_row[4].q.val();
        }
        self.sh_m_kind.d.next = self.sh_a_kind.val();
        self.sh_m_served.d.next = self.sh_a_served.val();
        self.sh_m_min.d.next = self.sh_a_min.val();
        self.sh_m_lw.d.next = self.sh_zero5.val();
        if self.sh_a_cls.q.val().get_bit(0) {
            self.sh_m_lw.d.next = self.sh_a_lw.q.val();
        }
        self.sh_m_aop.d.next = self.sh_a_aop.q.val();
        self.sh_m_opnd.d.next = self.sh_a_opnd.val();
        // M: the block (a return slot's words join through `rs_*`, whose
        // fields are 0 while a shared item is at M, and the other way).
        // A return slot at M whose entry did not fail (§10.2): the
        // entry's words, lanes, offsets and load type (`rs_lt`: size
        // one-hot 1, 2, 4 bytes in bits 0..2, bit 3 signed); its row
        // (`warp · RP + rd`) registered for W.
        self.sh_w_rsrow.clock.next = self.clock.val();
        self.sh_w_rsrow.reset.next = self.reset.val();
        self.sh_w_rssel.clock.next = self.clock.val();
        self.sh_w_rssel.reset.next = self.reset.val();
        self.rs_m_sel.next =
            (self.p_kind[5].q.val() == self.gm_k_ret.val()) & !self.p_rerr[5].q.val();
        self.rs_lw.next = self.sh_zero5.val();
        if self.gmem.rs_lt.val().get_bit(0) & !self.gmem.rs_lt.val().get_bit(3) {
            self.rs_lw.next = self.sh_lwb[0].val();
        }
        if self.gmem.rs_lt.val().get_bit(0) & self.gmem.rs_lt.val().get_bit(3) {
            self.rs_lw.next = self.sh_lwb[1].val();
        }
        if self.gmem.rs_lt.val().get_bit(1) & !self.gmem.rs_lt.val().get_bit(3) {
            self.rs_lw.next = self.sh_lwb[2].val();
        }
        if self.gmem.rs_lt.val().get_bit(1) & self.gmem.rs_lt.val().get_bit(3) {
            self.rs_lw.next = self.sh_lwb[3].val();
        }
        if self.gmem.rs_lt.val().get_bit(2) {
            self.rs_lw.next = self.sh_lwb[4].val();
        }
        self.rs_m_served.next = self.sh_zero_l.val();
        self.rs_m_lw.next = self.sh_zero5.val();
        if self.rs_m_sel.val() {
            self.rs_m_served.next = self.gmem.rs_lanes.val();
            self.rs_m_lw.next = self.rs_lw.val();
        }
        for l in 0..self._lanes {
            self.rs_m_word[l].next = self.gmem.rs_word[l].val();
            self.rs_m_off[l].next = self.zero2.val();
            if self.rs_m_sel.val() {
                self.rs_m_off[l].next = self.gmem.rs_off[l].val();
            }
        }
        self.z_rs_warp.i.next = self.gmem.rs_warp.val();
        self.z_rs_rd.i.next = self.gmem.rs_rd.val();
        self.sh_w_rsrow.d.next =
            (self.z_rs_warp.o.val() << self.sh_rp_shift.val()) | self.z_rs_rd.o.val();
        self.sh_w_rssel.d.next = self.rs_m_sel.val();
        self.rs_w_row.next = self.sh_w_rsrow.q.val();
        self.rs_w_row_sel.next = self.sh_w_rssel.q.val();
        // A reset edge loads the block's W registers with "no item" (a run
        // cut short must not write a register or a bank in the first cycle
        // after reset); the block reads `reset` only at the edge, so these
        // inputs stay free of the top-level input (`Shmem::reset`).
        self.shm.reset.next = self.reset.val();
        self.shm.kind.next = self.sh_m_kind.q.val();
        self.shm.base_row.next = self.sh_m_base.q.val();
        self.shm.min_row.next = self.sh_m_min.q.val();
        self.shm.lw.next = self.sh_m_lw.q.val() | self.rs_m_lw.val();
        self.shm.aop.next = self.sh_m_aop.q.val();
        self.shm.aopnd.next = self.sh_m_opnd.q.val();
        self.shm.rs_sel.next = self.rs_m_sel.val();
        for l in 0..self._lanes {
            self.shm.served[l].next =
                self.sh_m_served.q.val().get_bit(l) | self.rs_m_served.val().get_bit(l);
            self.shm.bank[l].next = self.sh_m_bank[l].q.val();
            self.shm.off[l].next = self.sh_m_off[l].q.val() | self.rs_m_off[l].val();
            self.shm.sd[l].next = self.sh_m_sd[l].q.val();
            self.shm.be[l].next = self.sh_m_be[l].q.val();
            self.shm.rs_word[l].next = self.rs_m_word[l].val();
            // W: shared loads, atomics and return slots write `rd`.
            self.dp.w_ld_en[l].next = self.shm.ld_en[l].val();
            self.dp.w_ld[l].next = self.shm.ld[l].val();
        }
        self.dp.w_ld_row.next = self.rs_w_row.val();
        self.dp.w_ld_row_sel.next = self.rs_w_row_sel.val();
        // The trace of the cycle's write port (§15.2), and of a refused
        // row clear at A.
        for i in 0..self._banks {
            self.r_sh_we[i].d.next = self.shm.t_we[i].val();
            self.r_sh_wd[i].d.next = self.shm.t_wd[i].val();
        }
        self.z_row.i.next = self.shm.t_row.val();
        self.r_sh_row.d.next = self.z_row.o.val();
        if self.sh_init_refused.val() {
            self.r_a_kind.d.next = self.k_a_init_refused.val();
        }
        // §15.1 `port_busy_replays`: a refused shared pass with pending
        // lanes that does not trap (the trap is checked first).
        if self.sh_refused.val() & self.p_exec[1].q.val().any() & !self.ctl.a_kill.val() {
            self.ctr.inc[23].next = self.one8.val();
        }
        // `ld` carries the atomic's old word.
        self.unused_sh.next = self.shm.atom_old.val().any();
        // ---- traps (v2trap) ----
        self.trap.clock.next = self.clock.val();
        self.trap.reset.next = self.reset.val();
        self.trap.clear.next = self.slave.start.val();
        self.t_out_d.clock.next = self.clock.val();
        self.t_out_r.clock.next = self.clock.val();
        self.t_out_x.clock.next = self.clock.val();
        self.t_out_a.clock.next = self.clock.val();
        self.t_word_r.clock.next = self.clock.val();
        self.t_word_x.clock.next = self.clock.val();
        self.t_word_a.clock.next = self.clock.val();
        self.t_inv_x.clock.next = self.clock.val();
        self.t_inv_a.clock.next = self.clock.val();
        self.t_pm_x.clock.next = self.clock.val();
        self.t_pm_a.clock.next = self.clock.val();
        self.t_pidx_x.clock.next = self.clock.val();
        self.t_pidx_a.clock.next = self.clock.val();
        self.t_mw_x.clock.next = self.clock.val();
        self.t_mw_a.clock.next = self.clock.val();
        self.t_r_trap.clock.next = self.clock.val();
        self.t_out_d.reset.next = self.reset.val();
        self.t_out_r.reset.next = self.reset.val();
        self.t_out_x.reset.next = self.reset.val();
        self.t_out_a.reset.next = self.reset.val();
        self.t_word_r.reset.next = self.reset.val();
        self.t_word_x.reset.next = self.reset.val();
        self.t_word_a.reset.next = self.reset.val();
        self.t_inv_x.reset.next = self.reset.val();
        self.t_inv_a.reset.next = self.reset.val();
        self.t_pm_x.reset.next = self.reset.val();
        self.t_pm_a.reset.next = self.reset.val();
        self.t_pidx_x.reset.next = self.reset.val();
        self.t_pidx_a.reset.next = self.reset.val();
        self.t_mw_x.reset.next = self.reset.val();
        self.t_mw_a.reset.next = self.reset.val();
        self.t_r_trap.reset.next = self.reset.val();
        // F: cause 4. D: the decoder treats the word as invalid (§13.1:
        // causes 3 and 4 precede everything, the instruction is not used).
        self.t_outside_f.next = (self.p_kind[0].q.val() == self.k_warp.val())
            & !self.lreg[1].q.val().get_bits::<16>(16).any()
            & (self.p_pc[0].q.val() >= self.lreg[1].q.val().get_bits::<16>(0));
        self.t_out_d.d.next = self.t_outside_f.val();
        self.decode.outside.next = self.t_out_d.q.val();
        self.t_out_r.d.next = self.t_out_d.q.val();
        self.t_out_x.d.next = self.t_out_r.q.val();
        self.t_out_a.d.next = self.t_out_x.q.val();
        self.t_word_r.d.next = self.imem.rdata.val();
        self.t_word_x.d.next = self.t_word_r.q.val();
        self.t_word_a.d.next = self.t_word_x.q.val();
        // R: invalid word; `ldparam` past `PARAM_COUNT` with executing
        // lanes (cause 8); the access width.
        self.t_inv_x.d.next = self.decode.invalid.val();
        self.t_inv_a.d.next = self.t_inv_x.q.val();
        self.t_x_pidx.i.next = self.decode.param.val();
        self.t_pm_x.d.next = (self.decode.cls.val() & self.t_ldparam.val()).any()
            & self.decode.exec.val().any()
            & (self.t_x_pidx.o.val() >= self.lreg[8].q.val());
        self.t_pm_a.d.next = self.t_pm_x.q.val();
        self.t_pidx_x.d.next = self.t_x_pidx.o.val();
        self.t_pidx_a.d.next = self.t_pidx_x.q.val();
        self.t_mw_x.d.next = self.decode.msize.val();
        self.t_mw_a.d.next = self.t_mw_x.q.val();
        // Cause 9 (§12.4): global accesses, executing lanes, the address at
        // A; the warp offset follows the pass's `wib` (thread `wib·L + l`).
        self.t_gl_x.clock.next = self.clock.val();
        self.t_gl_a.clock.next = self.clock.val();
        self.t_gl_x.reset.next = self.reset.val();
        self.t_gl_a.reset.next = self.reset.val();
        self.t_gl_x.d.next = self.decode.msize.val().any() & !self.decode.shared.val();
        self.t_gl_a.d.next = self.t_gl_x.q.val();
        self.t_x_wib.next = self.zero4.val();
        for w in 0..self._w {
            if self.ctl.x_warp_oh.val().get_bit(w) {
                self.t_x_wib.next = self.t_x_wib.val() | self.launch.wib[w].val();
            }
        }
        self.t_stk.clock.next = self.clock.val();
        self.t_stk.reset.next = self.reset.val();
        self.t_stk.s.next = self.lreg[9].q.val();
        self.t_stk.x_wib.next = self.t_x_wib.val();
        self.t_stk.check.next = self.p_exec[1].q.val();
        if !self.t_gl_a.q.val() {
            self.t_stk.check.next = self.t_zero_l.val();
        }
        for i in 0..self._lanes {
            self.t_stk.addr[i].next = self.dp.addr_x[i].val();
        }
        // A: the pass's trap, or cause 7 after its commit (§9.4).
        self.trap.a_valid.next = self.t_trapped.val() | self.ctl.trap7.val();
        self.trap.a_cause.next = self.tpc.cause.val();
        if self.ctl.trap7.val() {
            self.trap.a_cause.next = self.t_k7.val();
        }
        self.trap.a_slot.next = self.t_a_slot.val();
        self.trap.a_wib.next = self.t_a_wib.val();
        self.trap.a_pc.next = self.p_pc[4].q.val();
        self.trap.a_lanes.next = self.tpc.lanes.val();
        self.trap.a_addr.next = self.tpc.t_addr.val();
        self.trap.a_detail.next = self.tpc.detail.val();
        // Cause 11 from the global unit (`gmem.trap*`): at the failing
        // entry's completion, with its first `ERR` beat's byte address.
        self.gm_err_valid.next = self.gmem.trap.val();
        self.gm_err_warp.next = self.gmem.trap_warp.val();
        self.gm_err_lanes.next = self.gmem.trap_lanes.val();
        self.gm_err_pc.next = self.gmem.trap_pc.val();
        self.gm_err_addr.next = self.gmem.trap_addr.val();
        self.t_g_slot.next = self.zero4.val();
        self.t_g_wib.next = self.zero4.val();
        for w in 0..self._w {
            if self.gm_err_warp.val() == self.widx[w].val() {
                self.t_g_slot.next = self.t_g_slot.val() | self.launch.wslot[w].val();
                self.t_g_wib.next = self.t_g_wib.val() | self.launch.wib[w].val();
            }
        }
        self.trap.g_valid.next = self.gm_err_valid.val();
        self.trap.g_slot.next = self.t_g_slot.val();
        self.trap.g_wib.next = self.t_g_wib.val();
        self.trap.g_pc.next = self.gm_err_pc.val();
        self.trap.g_lanes.next = self.gm_err_lanes.val();
        self.trap.g_addr.next = self.gm_err_addr.val();
        for k in 0..self._slots {
            self.trap.older[k].next = self.launch.older[k].val();
            self.trap.ctaid_x[k].next = self.launch.ctaid_x[k].val();
            self.trap.ctaid_y[k].next = self.launch.ctaid_y[k].val();
            self.trap.ctaid_z[k].next = self.launch.ctaid_z[k].val();
            self.trap.arrived[k].next = self.ctl.slot_arrived[k].val();
            self.trap.exited[k].next = self.ctl.slot_exited[k].val();
            self.trap.slot_warps[k].next = self.z_ctl_smask[k].o.val();
        }
        self.trap.threads.next = self.x_threads.o.val();
        for w in 0..self._w {
            self.trap.waiting[w].next = self.warps.waiting[w].val();
            self.trap.wib[w].next = self.launch.wib[w].val();
        }
        // Cause 7's pc through copy 2 of the lane-PC LUT-RAM (§13.3).
        self.trap.port_busy.next = self.ctl.e_sel.val().any();
        self.trap.t_pc.next = self.ctl.t_pc.val();
        self.ctl.t_read.next = self.trap.t_read.val();
        self.ctl.t_warp.next = self.trap.t_warp.val();
        self.ctl.t_lane.next = self.trap.t_lane.val();
        // The report registers, host-readable (§14.4 `TRAP_*`, read words 6..17).
        self.slave.rd[6].next = self.trap.r_cause.val();
        self.slave.rd[7].next = self.trap.r_pc.val();
        self.slave.rd[8].next = self.trap.r_warp.val();
        self.slave.rd[9].next = self.trap.r_lanes.val();
        self.slave.rd[10].next = self.trap.r_block_x.val();
        self.slave.rd[11].next = self.trap.r_block_y.val();
        self.slave.rd[12].next = self.trap.r_block_z.val();
        self.slave.rd[13].next = self.trap.r_addr.val();
        self.slave.rd[14].next = self.trap.r_detail.val();
        self.slave.rd[15].next = self.trap.r_arrived.val();
        self.slave.rd[16].next = self.trap.r_exited.val();
        self.slave.rd[17].next = self.trap.r_threads.val();
        // Trace (§15.2): the squashed and trapped kinds; a pass that did
        // not get past decode (causes 3, 4) or was squashed shows no lanes.
        if self.t_frozen.val() {
            self.r_a_kind.d.next = self.t_k_squashed.val();
        }
        if self.t_trapped.val() {
            self.r_a_kind.d.next = self.t_k_trapped.val();
        }
        if self.t_frozen.val() | (self.t_trapped.val() & !self.tpc.executed.val()) {
            self.r_a_active.d.next = self.zero32.val();
            self.r_a_exec.d.next = self.zero32.val();
        }
        self.t_r_trap.d.next = self.trap.raise.val();
        self.tr_trap.next = self.t_r_trap.q.val();
        // Counter `squashed` (§15.1).
        for i in self._t_sq..self._t_sq1 {
            if self.t_frozen.val() {
                self.ctr.inc[i].next = self.one8.val();
            }
        }
        // ---- end traps (v2trap) ----
    }
}
