//! The Core v2 host register map (docs/microarchitecture.md §14.4),
//! written down once: [`REGISTERS`] is the table (address, name, access,
//! bit fields), and the encoders and decoders of the words whose layout
//! the table gives (`CTRL`, `HWCFG0..4`, `STATUS`, `LAUNCH`, `WSTATE0/1`).
//!
//! The host reaches the map through the Wishbone B4 pipelined slave of
//! §14.3: 32-bit words, word addresses of [`ADDR_BITS`] bits. Reads of
//! write-only or unmapped addresses return 0; writes to read-only or
//! unmapped addresses are ignored. Every register is cleared by reset; `ID`
//! and `HWCFG*` are constants of the generated core.
//!
//! The RTL generator builds its address decode and read multiplexer from
//! this table (`concord_hdl::wishbone`), the cycle model answers the same
//! addresses, and `uarch/tests/regmap_docs.rs` checks the table against the
//! document's.

use crate::HwParams;

/// Bits of `wbs_adr_i` (§14.2).
pub const ADDR_BITS: usize = 17;
/// `ID`: "CNC2".
pub const ID_VALUE: u32 = 0x434E_4332;
/// Performance counters of Core v2 (§15.1: `k` = 0..=24), the length of
/// [`crate::counters::TABLE`].
pub const COUNTERS: u32 = crate::counters::COUNT as u32;
/// Parameter words (`PARAM[i]`, `i < 16`).
pub const PARAM_WORDS: u32 = 16;
/// The most block slots (`max_resident_blocks` ≤ 16): `DBG_SLOT[k]`, `k < BS`.
pub const MAX_BLOCK_SLOTS: u32 = 16;
/// Warps whose state code `WSTATE0` holds (3 bits each); `WSTATE1` holds
/// the others.
pub const WSTATE0_WARPS: usize = 10;

// ---- addresses ----

pub const IMEM: u32 = 0x00000;
/// The instruction memory's window (`0x00000..0x10000`), room for the
/// largest memory; writes at `i ≥ imem_words` are ignored.
pub const IMEM_WINDOW: u32 = concord_isa::instr::MAX_IMEM_WORDS as u32;
pub const CTRL: u32 = 0x10000;
pub const ENTRY_PC: u32 = 0x10001;
pub const CODE_LEN: u32 = 0x10002;
pub const GRID_X: u32 = 0x10003;
pub const GRID_Y: u32 = 0x10004;
pub const GRID_Z: u32 = 0x10005;
pub const BLOCK_X: u32 = 0x10006;
pub const BLOCK_Y: u32 = 0x10007;
pub const BLOCK_Z: u32 = 0x10008;
pub const PARAM_COUNT: u32 = 0x10009;
pub const STACK_BYTES: u32 = 0x1000A;
pub const SHARED_BYTES: u32 = 0x1000B;
pub const CLEAR_REGS: u32 = 0x1000C;
pub const CLEAR_SHARED: u32 = 0x1000D;
/// `PARAM[i]` at `PARAM + i`.
pub const PARAM: u32 = 0x10010;
pub const ID: u32 = 0x10100;
/// `HWCFG0..4` at `HWCFG + n`.
pub const HWCFG: u32 = 0x10101;
pub const STATUS: u32 = 0x10108;
pub const LAUNCH: u32 = 0x10109;
pub const WINDOW: u32 = 0x1010A;
pub const WSTATE0: u32 = 0x1010C;
pub const WSTATE1: u32 = 0x1010D;
pub const TRAP_CAUSE: u32 = 0x10110;
pub const TRAP_PC: u32 = 0x10111;
pub const TRAP_WARP: u32 = 0x10112;
pub const TRAP_LANES: u32 = 0x10113;
pub const TRAP_BLOCK_X: u32 = 0x10114;
pub const TRAP_BLOCK_Y: u32 = 0x10115;
pub const TRAP_BLOCK_Z: u32 = 0x10116;
pub const TRAP_ADDR: u32 = 0x10117;
pub const TRAP_DETAIL: u32 = 0x10118;
pub const TRAP_ARRIVED: u32 = 0x10119;
pub const TRAP_EXITED: u32 = 0x1011A;
pub const TRAP_THREADS: u32 = 0x1011B;
/// Counter `k`: low word at `COUNTER_LO + 2k`.
pub const COUNTER_LO: u32 = 0x10140;
/// The high-word snapshot, at `COUNTER_HI + 2k` for every `k`.
pub const COUNTER_HI: u32 = 0x10141;
pub const DBG_WARP: u32 = 0x10200;
pub const DBG_GROUP: u32 = 0x10201;
pub const DBG_GMASK: u32 = 0x10202;
pub const DBG_ALIVE: u32 = 0x10203;
pub const DBG_WAITING: u32 = 0x10204;
pub const DBG_FLAGS: u32 = 0x10205;
pub const DBG_LANE: u32 = 0x10206;
pub const DBG_LANE_PC: u32 = 0x10207;
pub const DBG_QUEUE: u32 = 0x10208;
/// `DBG_SLOT[k]` at `DBG_SLOT + k`.
pub const DBG_SLOT: u32 = 0x10210;

/// How the host reaches a register.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Access {
    /// Read only (writes are ignored).
    R,
    /// Write only (reads return 0).
    W,
    /// Written and read back.
    RW,
}

impl Access {
    pub fn readable(self) -> bool {
        self != Access::W
    }
    pub fn writable(self) -> bool {
        self != Access::R
    }
}

/// When a write to a register takes effect (§14.3).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum WriteGate {
    /// Only while the core is not running (`IDLE`, `DONE`, `TRAP`); else it
    /// is acknowledged, ignored, and sets `STATUS.write_ignored`.
    NotRunning,
    /// Always (`CTRL.HALT`, the debug selectors). `CTRL.START` while running
    /// is ignored like a [`WriteGate::NotRunning`] write.
    Always,
}

/// Whether a register exists in every core or only with a generator option.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Presence {
    Always,
    /// The `0x102xx` window, with the generator option `debug_regs` (§15.3).
    DebugRegs,
}

/// How many words a row covers, from `addr` with [`HostReg::stride`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Count {
    One,
    /// A fixed number of words.
    Fixed(u32),
    /// `imem_words` (`I`), within a window of [`IMEM_WINDOW`] addresses.
    ImemWords,
    /// [`COUNTERS`].
    Counters,
    /// `max_resident_blocks` (`BS`), within a window of [`MAX_BLOCK_SLOTS`].
    BlockSlots,
}

/// A bit field of a register: bits `lsb .. lsb + width`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Field {
    pub name: &'static str,
    pub lsb: u32,
    pub width: u32,
}

impl Field {
    /// The field's bits in place.
    pub const fn mask(&self) -> u32 {
        (((1u64 << self.width) - 1) as u32) << self.lsb
    }
    /// `value` placed in the field (bits above the width dropped).
    pub const fn put(&self, value: u32) -> u32 {
        (value << self.lsb) & self.mask()
    }
    /// The field of `word`.
    pub const fn get(&self, word: u32) -> u32 {
        (word & self.mask()) >> self.lsb
    }
}

const fn f(name: &'static str, lsb: u32, width: u32) -> Field {
    Field { name, lsb, width }
}

/// One row of the register map.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct HostReg {
    /// The name of §14.4 (arrays without their index: `IMEM`, `PARAM`,
    /// `COUNTER_LO` for "`COUNTER[k]` low", `COUNTER_HI`, `DBG_SLOT`).
    pub name: &'static str,
    pub addr: u32,
    pub count: Count,
    /// Address step between the words of an array (2 for the counters).
    pub stride: u32,
    pub access: Access,
    pub gate: WriteGate,
    pub presence: Presence,
    /// Whether every word of the array reads the same value (the counter
    /// snapshot at `COUNTER_HI + 2k`).
    pub shared: bool,
    /// The bits that can be 1 (reads) or that the core keeps (writes). A
    /// register without a documented layout has one field, named after it,
    /// as wide as its largest value.
    pub fields: &'static [Field],
    pub what: &'static str,
}

impl HostReg {
    /// The bits that can be 1: the union of the fields.
    pub const fn mask(&self) -> u32 {
        let mut m = 0;
        let mut i = 0;
        while i < self.fields.len() {
            m |= self.fields[i].mask();
            i += 1;
        }
        m
    }

    /// The field called `name`.
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// Words of the row in a core built with `opts`.
    pub fn words(&self, opts: &MapOptions) -> u32 {
        match self.count {
            Count::One => 1,
            Count::Fixed(n) => n,
            Count::ImemWords => opts.imem_words,
            Count::Counters => COUNTERS,
            Count::BlockSlots => opts.block_slots,
        }
    }

    /// Addresses the row reserves (the most words any core has).
    pub const fn window(&self) -> u32 {
        match self.count {
            Count::One => 1,
            Count::Fixed(n) => n,
            Count::ImemWords => IMEM_WINDOW,
            Count::Counters => COUNTERS,
            Count::BlockSlots => MAX_BLOCK_SLOTS,
        }
    }

    /// Whether a core built with `opts` has the row.
    pub fn present(&self, opts: &MapOptions) -> bool {
        match self.presence {
            Presence::Always => true,
            Presence::DebugRegs => opts.debug_regs,
        }
    }

    /// The address of word `i`.
    pub const fn word_addr(&self, i: u32) -> u32 {
        self.addr + i * self.stride
    }
}

/// What of a built core the map depends on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct MapOptions {
    /// `I`.
    pub imem_words: u32,
    /// `BS` (`max_resident_blocks`).
    pub block_slots: u32,
    /// The generator option `debug_regs`.
    pub debug_regs: bool,
}

impl MapOptions {
    /// `params` with the v2 values that `HwParams` does not carry yet.
    pub fn new(params: &HwParams, max_resident_blocks: u32, debug_regs: bool) -> MapOptions {
        MapOptions {
            imem_words: params.imem_words as u32,
            block_slots: max_resident_blocks,
            debug_regs,
        }
    }
}

/// The register a word address selects in a core built with `opts`, and
/// the index within its row.
pub fn decode(addr: u32, opts: &MapOptions) -> Option<(&'static HostReg, u32)> {
    REGISTERS.iter().filter(|r| r.present(opts)).find_map(|r| {
        let off = addr.checked_sub(r.addr)?;
        (off % r.stride == 0 && off / r.stride < r.words(opts)).then_some((r, off / r.stride))
    })
}

/// The row called `name`.
pub fn register(name: &str) -> Option<&'static HostReg> {
    REGISTERS.iter().find(|r| r.name == name)
}

// ---- the table ----

const WORD: &[Field] = &[f("value", 0, 32)];

pub const CTRL_START: Field = f("start", 0, 1);
pub const CTRL_HALT: Field = f("halt", 1, 1);
const CTRL_FIELDS: &[Field] = &[CTRL_START, CTRL_HALT];

pub const HWCFG0_FIELDS: &[Field] = &[
    f("lanes", 0, 6),
    f("warps", 8, 5),
    f("registers", 16, 6),
    f("predicates", 24, 4),
];
pub const HWCFG1_FIELDS: &[Field] = &[
    f("log2_imem_words", 0, 5),
    f("log2_shared_memory_bytes", 8, 5),
    f("log2_shared_banks", 16, 3),
    f("call_depth_bits", 24, 5),
];
pub const HWCFG2_FIELDS: &[Field] = &[
    f("log2_global_line_bytes", 0, 3),
    f("log2_global_bus_bytes", 8, 3),
    f("global_outstanding", 16, 5),
    f("max_resident_blocks", 24, 5),
];
pub const HWCFG3_FIELDS: &[Field] = &[f("global_memory_bytes", 0, 32)];
pub const HWCFG4_FIELDS: &[Field] = &[
    f("scheduler_gto", 0, 1),
    f("arbiter_split", 1, 1),
    f("arbitration_pc_only", 2, 1),
    f("counter_bits", 8, 7),
    f("trace", 16, 1),
    f("debug_regs", 17, 1),
];
pub const STATUS_FIELDS: &[Field] = &[
    f("running", 0, 1),
    f("done", 1, 1),
    f("trapped", 2, 1),
    f("write_ignored", 3, 1),
    f("refused", 4, 1),
    f("halted", 5, 1),
    f("state", 8, 3),
];
pub const LAUNCH_FIELDS: &[Field] = &[
    f("threads", 0, 16),
    f("nwarps", 16, 5),
    f("resident", 24, 5),
];
/// The names of the warp-state fields, `warp0` to `warp15`.
const WARP_NAMES: [&str; 16] = [
    "warp0", "warp1", "warp2", "warp3", "warp4", "warp5", "warp6", "warp7", "warp8", "warp9",
    "warp10", "warp11", "warp12", "warp13", "warp14", "warp15",
];

/// The `N` 3-bit state fields of warps `first..first + N`, from bit 0 up.
const fn warp_fields<const N: usize>(first: usize) -> [Field; N] {
    let mut out = [f("", 0, 0); N];
    let mut i = 0;
    while i < N {
        out[i] = f(WARP_NAMES[first + i], 3 * i as u32, 3);
        i += 1;
    }
    out
}

/// Warps 0–9, 3 bits each.
pub const WSTATE0_FIELDS: &[Field] = &warp_fields::<WSTATE0_WARPS>(0);
/// Warps 10–15, 3 bits each.
pub const WSTATE1_FIELDS: &[Field] = &warp_fields::<{ 16 - WSTATE0_WARPS }>(WSTATE0_WARPS);
const DBG_GROUP_FIELDS: &[Field] = &[f("gpc", 0, 16), f("gdepth", 16, 16)];
const DBG_FLAGS_FIELDS: &[Field] = &[
    f("busy_i", 0, 1),
    f("busy_r", 1, 1),
    f("replay", 2, 1),
    f("rearb", 3, 1),
    f("outstanding", 4, 5),
    f("wslot", 16, 4),
    f("wib", 24, 4),
];
const DBG_QUEUE_FIELDS: &[Field] = &[
    f("free", 0, 5),
    f("awaiting_send", 8, 5),
    f("awaiting_response", 16, 5),
    f("returnable", 24, 5),
];
const DBG_SLOT_FIELDS: &[Field] = &[f("state", 0, 2), f("arrived", 4, 12), f("exited", 16, 12)];

#[allow(clippy::too_many_arguments)]
const fn row(
    name: &'static str,
    addr: u32,
    count: Count,
    stride: u32,
    access: Access,
    gate: WriteGate,
    presence: Presence,
    fields: &'static [Field],
    what: &'static str,
) -> HostReg {
    HostReg {
        name,
        addr,
        count,
        stride,
        access,
        gate,
        presence,
        shared: false,
        fields,
        what,
    }
}

/// A single word (`Count::One`, stride 1).
const fn word(
    name: &'static str,
    addr: u32,
    access: Access,
    (gate, presence): (WriteGate, Presence),
    fields: &'static [Field],
    what: &'static str,
) -> HostReg {
    row(
        name,
        addr,
        Count::One,
        1,
        access,
        gate,
        presence,
        fields,
        what,
    )
}

/// A launch register: one write-only word, accepted while not running.
const fn launch(
    name: &'static str,
    addr: u32,
    fields: &'static [Field],
    what: &'static str,
) -> HostReg {
    let when = (WriteGate::NotRunning, Presence::Always);
    word(name, addr, Access::W, when, fields, what)
}

/// A read-only word present in every core.
const fn ro(
    name: &'static str,
    addr: u32,
    fields: &'static [Field],
    what: &'static str,
) -> HostReg {
    let when = (WriteGate::Always, Presence::Always);
    word(name, addr, Access::R, when, fields, what)
}

/// A debug register (`0x102xx`).
const fn dbg(
    name: &'static str,
    addr: u32,
    access: Access,
    fields: &'static [Field],
    what: &'static str,
) -> HostReg {
    let when = (WriteGate::Always, Presence::DebugRegs);
    word(name, addr, access, when, fields, what)
}

use Access::{R, RW, W};

/// The whole map, in address order.
#[rustfmt::skip]
pub const REGISTERS: &[HostReg] = &[
    row("IMEM", IMEM, Count::ImemWords, 1, W, WriteGate::NotRunning, Presence::Always, WORD, "instruction word i"),
    row("CTRL", CTRL, Count::One, 1, RW, WriteGate::Always, Presence::Always, CTRL_FIELDS, "START (write 1: start a launch), HALT (kept; reads return it)"),
    launch("ENTRY_PC", ENTRY_PC, &[f("value", 0, 16)], "entry point"),
    launch("CODE_LEN", CODE_LEN, &[f("value", 0, 17)], "program length in words"),
    launch("GRID_X", GRID_X, WORD, "grid dimension x"),
    launch("GRID_Y", GRID_Y, WORD, "grid dimension y"),
    launch("GRID_Z", GRID_Z, WORD, "grid dimension z"),
    launch("BLOCK_X", BLOCK_X, WORD, "block dimension x"),
    launch("BLOCK_Y", BLOCK_Y, WORD, "block dimension y"),
    launch("BLOCK_Z", BLOCK_Z, WORD, "block dimension z"),
    launch("PARAM_COUNT", PARAM_COUNT, WORD, "parameter words supplied"),
    launch("STACK_BYTES", STACK_BYTES, WORD, "per-thread stack (0: none)"),
    launch("SHARED_BYTES", SHARED_BYTES, WORD, "shared bytes the kernel declares (occupancy)"),
    launch("CLEAR_REGS", CLEAR_REGS, WORD, "registers zeroed per warp at block launch"),
    launch("CLEAR_SHARED", CLEAR_SHARED, WORD, "shared bytes zeroed per block at launch"),
    row("PARAM", PARAM, Count::Fixed(PARAM_WORDS), 1, W, WriteGate::NotRunning, Presence::Always, WORD, "parameter word i (LUT-RAM)"),
    ro("ID", ID, WORD, "0x434E4332 (\"CNC2\")"),
    ro("HWCFG0", HWCFG, HWCFG0_FIELDS, "lanes, warps, registers, predicates"),
    ro("HWCFG1", HWCFG + 1, HWCFG1_FIELDS, "log2 imem_words, log2 shared_memory_bytes, log2 shared_banks, call_depth_bits"),
    ro("HWCFG2", HWCFG + 2, HWCFG2_FIELDS, "log2 global_line_bytes, log2 global_bus_bytes, global_outstanding, max_resident_blocks"),
    ro("HWCFG3", HWCFG + 3, HWCFG3_FIELDS, "global_memory_bytes"),
    ro("HWCFG4", HWCFG + 4, HWCFG4_FIELDS, "scheduler, arbiter, arbitration, counter_bits, trace, debug_regs"),
    ro("STATUS", STATUS, STATUS_FIELDS, "running, done, trapped, write_ignored, refused, halted, core state"),
    ro("LAUNCH", LAUNCH, LAUNCH_FIELDS, "threads, nwarps, resident"),
    ro("WINDOW", WINDOW, &[f("value", 0, 21)], "window_bytes"),
    ro("WSTATE0", WSTATE0, WSTATE0_FIELDS, "state codes of warps 0-9, 3 bits each"),
    ro("WSTATE1", WSTATE1, WSTATE1_FIELDS, "state codes of warps 10-15"),
    ro("TRAP_CAUSE", TRAP_CAUSE, &[f("value", 0, 4)], "cause code"),
    ro("TRAP_PC", TRAP_PC, &[f("value", 0, 16)], "pc"),
    ro("TRAP_WARP", TRAP_WARP, &[f("value", 0, 4)], "warp within the block"),
    ro("TRAP_LANES", TRAP_LANES, WORD, "lane mask"),
    ro("TRAP_BLOCK_X", TRAP_BLOCK_X, WORD, "block x"),
    ro("TRAP_BLOCK_Y", TRAP_BLOCK_Y, WORD, "block y"),
    ro("TRAP_BLOCK_Z", TRAP_BLOCK_Z, WORD, "block z"),
    ro("TRAP_ADDR", TRAP_ADDR, WORD, "address or next PC"),
    ro("TRAP_DETAIL", TRAP_DETAIL, WORD, "instruction word, parameter index or access width"),
    ro("TRAP_ARRIVED", TRAP_ARRIVED, &[f("value", 0, 12)], "threads at the barrier"),
    ro("TRAP_EXITED", TRAP_EXITED, &[f("value", 0, 12)], "threads exited"),
    ro("TRAP_THREADS", TRAP_THREADS, &[f("value", 0, 12)], "threads of the block"),
    row("COUNTER_LO", COUNTER_LO, Count::Counters, 2, R, WriteGate::Always, Presence::Always, WORD, "bits 31..0 of counter k; the read latches bits 63..32 into the snapshot"),
    HostReg {
        shared: true,
        ..row("COUNTER_HI", COUNTER_HI, Count::Counters, 2, R, WriteGate::Always, Presence::Always, WORD, "the snapshot (for any k)")
    },
    dbg("DBG_WARP", DBG_WARP, RW, &[f("value", 0, 4)], "warp selected for 0x10201..0x10205"),
    dbg("DBG_GROUP", DBG_GROUP, R, DBG_GROUP_FIELDS, "gpc, gdepth"),
    dbg("DBG_GMASK", DBG_GMASK, R, WORD, "group mask"),
    dbg("DBG_ALIVE", DBG_ALIVE, R, WORD, "alive mask"),
    dbg("DBG_WAITING", DBG_WAITING, R, WORD, "waiting mask"),
    dbg("DBG_FLAGS", DBG_FLAGS, R, DBG_FLAGS_FIELDS, "busy_i, busy_r, replay, rearb, outstanding, wslot, wib"),
    dbg("DBG_LANE", DBG_LANE, RW, &[f("value", 0, 5)], "lane selected for 0x10207"),
    dbg("DBG_LANE_PC", DBG_LANE_PC, R, WORD, "stored pc and depth of the selected lane"),
    dbg("DBG_QUEUE", DBG_QUEUE, R, DBG_QUEUE_FIELDS, "free entries, awaiting send, awaiting response, returnable"),
    row("DBG_SLOT", DBG_SLOT, Count::BlockSlots, 1, R, WriteGate::Always, Presence::DebugRegs, DBG_SLOT_FIELDS, "slot state, arrived, exited"),
];

// ---- encoders and decoders ----

/// Everything `HWCFG0..4` describe. The v2 `CoreConfig` fields
/// (`scheduler`, `arbiter`, `max_resident_blocks`, `global_outstanding`,
/// `global_bus_bytes`) and the generator options are plain values here
/// until `HwParams` carries them.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct HwConfig {
    pub lanes: u32,
    pub warps: u32,
    pub registers: u32,
    pub predicates: u32,
    /// A power of two.
    pub imem_words: u32,
    /// A power of two (`ROWS · 4 · B`, both powers of two).
    pub shared_memory_bytes: u32,
    pub shared_banks: u32,
    pub call_depth_bits: u32,
    pub global_line_bytes: u32,
    pub global_bus_bytes: u32,
    pub global_outstanding: u32,
    pub max_resident_blocks: u32,
    pub global_memory_bytes: u32,
    /// `scheduler: gto` (else `lrr`).
    pub scheduler_gto: bool,
    /// `arbiter: split` (else `unified`).
    pub arbiter_split: bool,
    /// `arbitration: pc_only` (else `depth_pc`).
    pub pc_only: bool,
    pub counter_bits: u32,
    pub trace: bool,
    pub debug_regs: bool,
}

/// The v2 configuration values and generator options that [`HwParams`]
/// does not carry yet.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct V2Values {
    pub scheduler_gto: bool,
    pub arbiter_split: bool,
    pub max_resident_blocks: u32,
    pub global_outstanding: u32,
    pub global_bus_bytes: u32,
    pub counter_bits: u32,
    pub trace: bool,
    pub debug_regs: bool,
}

impl V2Values {
    /// The defaults of §17.1 with the `board` preset of §17.2.
    pub const BOARD: V2Values = V2Values {
        scheduler_gto: false,
        arbiter_split: false,
        max_resident_blocks: 4,
        global_outstanding: 8,
        global_bus_bytes: 4,
        counter_bits: crate::GenOptions::board().counter_bits,
        trace: crate::GenOptions::board().trace,
        debug_regs: crate::GenOptions::board().debug_regs,
    };
    /// The defaults of §17.1 with the `sim` preset of §17.2.
    pub const SIM: V2Values = V2Values {
        counter_bits: crate::GenOptions::sim().counter_bits,
        trace: crate::GenOptions::sim().trace,
        debug_regs: crate::GenOptions::sim().debug_regs,
        ..V2Values::BOARD
    };
}

const fn log2(v: u32) -> u32 {
    v.trailing_zeros()
}

impl HwConfig {
    pub fn new(p: &HwParams, v2: &V2Values) -> HwConfig {
        HwConfig {
            lanes: p.lanes as u32,
            warps: p.warps as u32,
            registers: p.registers as u32,
            predicates: p.predicates as u32,
            imem_words: p.imem_words as u32,
            shared_memory_bytes: p.shared_bytes,
            shared_banks: p.shared_banks as u32,
            call_depth_bits: p.max_call_depth.count_ones(),
            global_line_bytes: p.global_line_bytes,
            global_bus_bytes: v2.global_bus_bytes,
            global_outstanding: v2.global_outstanding,
            max_resident_blocks: v2.max_resident_blocks,
            global_memory_bytes: p.global_bytes,
            scheduler_gto: v2.scheduler_gto,
            arbiter_split: v2.arbiter_split,
            pc_only: !p.depth_pc(),
            counter_bits: v2.counter_bits,
            trace: v2.trace,
            debug_regs: v2.debug_regs,
        }
    }

    /// The map options of this core.
    pub fn map_options(&self) -> MapOptions {
        MapOptions {
            imem_words: self.imem_words,
            block_slots: self.max_resident_blocks,
            debug_regs: self.debug_regs,
        }
    }

    /// `HWCFG0..4`.
    pub fn encode(&self) -> [u32; 5] {
        for (what, v) in [
            ("imem_words", self.imem_words),
            ("shared_memory_bytes", self.shared_memory_bytes),
            ("shared_banks", self.shared_banks),
            ("global_line_bytes", self.global_line_bytes),
            ("global_bus_bytes", self.global_bus_bytes),
        ] {
            assert!(v.is_power_of_two(), "{what} = {v} is not a power of two");
        }
        let put = |fields: &[Field], values: &[u32]| -> u32 {
            fields
                .iter()
                .zip(values)
                .map(|(f, v)| {
                    assert!(
                        *v <= f.mask() >> f.lsb,
                        "{} = {v} does not fit {} bits",
                        f.name,
                        f.width
                    );
                    f.put(*v)
                })
                .fold(0, |a, b| a | b)
        };
        [
            put(
                HWCFG0_FIELDS,
                &[self.lanes, self.warps, self.registers, self.predicates],
            ),
            put(
                HWCFG1_FIELDS,
                &[
                    log2(self.imem_words),
                    log2(self.shared_memory_bytes),
                    log2(self.shared_banks),
                    self.call_depth_bits,
                ],
            ),
            put(
                HWCFG2_FIELDS,
                &[
                    log2(self.global_line_bytes),
                    log2(self.global_bus_bytes),
                    self.global_outstanding,
                    self.max_resident_blocks,
                ],
            ),
            self.global_memory_bytes,
            put(
                HWCFG4_FIELDS,
                &[
                    self.scheduler_gto as u32,
                    self.arbiter_split as u32,
                    self.pc_only as u32,
                    self.counter_bits,
                    self.trace as u32,
                    self.debug_regs as u32,
                ],
            ),
        ]
    }

    /// The configuration `HWCFG0..4` describe.
    pub fn decode(w: [u32; 5]) -> HwConfig {
        let g = |fields: &[Field], i: usize, word: u32| fields[i].get(word);
        HwConfig {
            lanes: g(HWCFG0_FIELDS, 0, w[0]),
            warps: g(HWCFG0_FIELDS, 1, w[0]),
            registers: g(HWCFG0_FIELDS, 2, w[0]),
            predicates: g(HWCFG0_FIELDS, 3, w[0]),
            imem_words: 1 << g(HWCFG1_FIELDS, 0, w[1]),
            shared_memory_bytes: 1 << g(HWCFG1_FIELDS, 1, w[1]),
            shared_banks: 1 << g(HWCFG1_FIELDS, 2, w[1]),
            call_depth_bits: g(HWCFG1_FIELDS, 3, w[1]),
            global_line_bytes: 1 << g(HWCFG2_FIELDS, 0, w[2]),
            global_bus_bytes: 1 << g(HWCFG2_FIELDS, 1, w[2]),
            global_outstanding: g(HWCFG2_FIELDS, 2, w[2]),
            max_resident_blocks: g(HWCFG2_FIELDS, 3, w[2]),
            global_memory_bytes: w[3],
            scheduler_gto: g(HWCFG4_FIELDS, 0, w[4]) != 0,
            arbiter_split: g(HWCFG4_FIELDS, 1, w[4]) != 0,
            pc_only: g(HWCFG4_FIELDS, 2, w[4]) != 0,
            counter_bits: g(HWCFG4_FIELDS, 3, w[4]),
            trace: g(HWCFG4_FIELDS, 4, w[4]) != 0,
            debug_regs: g(HWCFG4_FIELDS, 5, w[4]) != 0,
        }
    }
}

/// `CTRL` as written: `START` and `HALT`. A read returns `HALT` only
/// ([`Ctrl::read_value`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Ctrl {
    pub start: bool,
    pub halt: bool,
}

impl Ctrl {
    pub fn encode(&self) -> u32 {
        CTRL_START.put(self.start as u32) | CTRL_HALT.put(self.halt as u32)
    }
    pub fn decode(w: u32) -> Ctrl {
        Ctrl {
            start: CTRL_START.get(w) != 0,
            halt: CTRL_HALT.get(w) != 0,
        }
    }
    /// What a read of `CTRL` returns while `HALT` is `halt`.
    pub fn read_value(halt: bool) -> u32 {
        CTRL_HALT.put(halt as u32)
    }
}

/// `STATUS`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Status {
    pub running: bool,
    pub done: bool,
    pub trapped: bool,
    /// Sticky: a write was ignored because the core was running.
    pub write_ignored: bool,
    /// Sticky: a launch was refused.
    pub refused: bool,
    /// `HALT` is set and nothing is in flight.
    pub halted: bool,
    /// Core state code (§15.2: `IDLE` 0 … `TRAP` 5).
    pub state: u8,
}

impl Status {
    pub fn encode(&self) -> u32 {
        let v = [
            self.running as u32,
            self.done as u32,
            self.trapped as u32,
            self.write_ignored as u32,
            self.refused as u32,
            self.halted as u32,
            self.state as u32,
        ];
        STATUS_FIELDS
            .iter()
            .zip(v)
            .fold(0, |a, (f, v)| a | f.put(v))
    }
    pub fn decode(w: u32) -> Status {
        let g = |i: usize| STATUS_FIELDS[i].get(w);
        Status {
            running: g(0) != 0,
            done: g(1) != 0,
            trapped: g(2) != 0,
            write_ignored: g(3) != 0,
            refused: g(4) != 0,
            halted: g(5) != 0,
            state: g(6) as u8,
        }
    }
}

/// `LAUNCH`: the launch-wide values of SETUP (§12.1).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct LaunchWord {
    pub threads: u32,
    pub nwarps: u32,
    pub resident: u32,
}

impl LaunchWord {
    pub fn encode(&self) -> u32 {
        LAUNCH_FIELDS[0].put(self.threads)
            | LAUNCH_FIELDS[1].put(self.nwarps)
            | LAUNCH_FIELDS[2].put(self.resident)
    }
    pub fn decode(w: u32) -> LaunchWord {
        LaunchWord {
            threads: LAUNCH_FIELDS[0].get(w),
            nwarps: LAUNCH_FIELDS[1].get(w),
            resident: LAUNCH_FIELDS[2].get(w),
        }
    }
}

/// `WSTATE0` and `WSTATE1` from the state codes (§5.5) of warps `0..n`
/// (`n` ≤ 16; absent warps read 0).
pub fn wstate_encode(codes: &[u8]) -> [u32; 2] {
    assert!(codes.len() <= 16, "at most 16 warps");
    let mut w = [0u32; 2];
    for (i, c) in codes.iter().enumerate() {
        let (word, fields) = if i < WSTATE0_WARPS {
            (0, WSTATE0_FIELDS)
        } else {
            (1, WSTATE1_FIELDS)
        };
        w[word] |= fields[i % WSTATE0_WARPS].put(*c as u32);
    }
    w
}

/// The state codes of warps `0..n` from `WSTATE0` and `WSTATE1`.
pub fn wstate_decode(w: [u32; 2], n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| {
            if i < WSTATE0_WARPS {
                WSTATE0_FIELDS[i].get(w[0]) as u8
            } else {
                WSTATE1_FIELDS[i - WSTATE0_WARPS].get(w[1]) as u8
            }
        })
        .collect()
}

/// The launch values that [`Launch`] does not hold: what the kernel
/// declares and what a block launch clears (§12, §14.4).
///
/// [`Launch`]: concord_isa::func::Launch
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct LaunchExtras {
    /// `SHARED_BYTES`: shared bytes the kernel declares (occupancy).
    pub shared_bytes: u32,
    /// `CLEAR_REGS`: registers zeroed per warp at block launch.
    pub clear_regs: u32,
    /// `CLEAR_SHARED`: shared bytes zeroed per block at launch.
    pub clear_shared: u32,
}

/// The host writes `(address, value)` that load `launch`: the program, the
/// launch registers in address order, the parameters; without the `CTRL`
/// write that starts it ([`start_write`]).
pub fn launch_writes(launch: &concord_isa::func::Launch<'_>, x: &LaunchExtras) -> Vec<(u32, u32)> {
    assert!(
        launch.params.len() <= PARAM_WORDS as usize,
        "at most 16 parameter words"
    );
    let mut w: Vec<(u32, u32)> = launch
        .code
        .iter()
        .enumerate()
        .map(|(i, word)| (IMEM + i as u32, *word))
        .collect();
    w.push((ENTRY_PC, launch.entry_pc));
    w.push((CODE_LEN, launch.code.len() as u32));
    for (axis, v) in launch.grid.iter().enumerate() {
        w.push((GRID_X + axis as u32, *v));
    }
    for (axis, v) in launch.block.iter().enumerate() {
        w.push((BLOCK_X + axis as u32, *v));
    }
    w.push((PARAM_COUNT, launch.params.len() as u32));
    w.push((STACK_BYTES, launch.stack_bytes));
    w.push((SHARED_BYTES, x.shared_bytes));
    w.push((CLEAR_REGS, x.clear_regs));
    w.push((CLEAR_SHARED, x.clear_shared));
    for (i, p) in launch.params.iter().enumerate() {
        w.push((PARAM + i as u32, *p));
    }
    w
}

/// The write that starts a launch: `CTRL.START` with `HALT` 0.
pub fn start_write() -> (u32, u32) {
    (
        CTRL,
        Ctrl {
            start: true,
            halt: false,
        }
        .encode(),
    )
}

// The map is in address order, every address fits `wbs_adr_i`, fields lie
// within 32 bits and do not overlap. (That no two rows share an address is
// a test: the counter rows interleave.)
const _: () = {
    let mut i = 0;
    while i < REGISTERS.len() {
        let r = &REGISTERS[i];
        assert!(i == 0 || r.addr > REGISTERS[i - 1].addr);
        let end = r.addr as u64 + (r.window() as u64 - 1) * r.stride as u64 + 1;
        assert!(end <= 1 << ADDR_BITS);
        let mut m = 0u32;
        let mut j = 0;
        while j < r.fields.len() {
            let fl = &r.fields[j];
            assert!(fl.width >= 1 && fl.lsb + fl.width <= 32);
            assert!(m & fl.mask() == 0);
            m |= fl.mask();
            j += 1;
        }
        assert!(!r.fields.is_empty());
        i += 1;
    }
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_two_rows_share_an_address() {
        let mut seen = std::collections::BTreeMap::new();
        for r in REGISTERS {
            for i in 0..r.window() {
                if let Some(other) = seen.insert(r.word_addr(i), r.name) {
                    panic!("{:#x}: {} and {other}", r.word_addr(i), r.name);
                }
            }
        }
    }

    #[test]
    fn fields_put_and_get() {
        let fl = f("x", 8, 5);
        assert_eq!(fl.mask(), 0x1F00);
        assert_eq!(fl.put(0x3F), 0x1F00);
        assert_eq!(fl.get(0xABCD), 0x0B);
    }
}
