//! What the hardware builds: [`HwParams::new`] is the one rule set that
//! decides whether a configuration can be built as RTL (and so run on the
//! cycle model, which mirrors it), and computes every size the core is
//! built from.

use concord_isa::checks::pc_bits;
use concord_isa::config::{rule, ArbiterMode, Arbitration, ConfigError, CoreConfig, Scheduler};

use crate::widths::PC_BITS;

/// A configuration the hardware builds, with every size derived from it.
/// The RTL generator, the cycle model and the Verilator harness size
/// themselves from these fields, never from the [`CoreConfig`] directly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HwParams {
    /// `L`: lanes per warp, a power of two in 4..=32.
    pub lanes: usize,
    /// `W`: warps.
    pub warps: usize,
    /// `R`: general registers per lane.
    pub registers: usize,
    /// `P`: predicate registers per lane, `pt` included.
    pub predicates: usize,
    /// Mask of the implemented lanes (bits `0..L`).
    pub lane_mask: u32,
    /// log2 `L`: a thread id is `warp << lane_bits | lane`.
    pub lane_bits: u32,
    /// `L · W`: the most threads a block can have (all resident).
    pub block_threads: u32,
    /// `RP`: register-file rows per warp, `R` rounded up to a power of two.
    /// Register `r` of warp `w` is row `w · RP + r`.
    pub rf_rows_per_warp: usize,
    /// `W · RP`: each lane's register-file depth.
    pub rf_rows: usize,
    /// `S`: shared memory bytes.
    pub shared_bytes: u32,
    /// `B`: shared memory banks.
    pub shared_banks: usize,
    /// `S / (4B)`: rows (words) per bank. Word `a` (byte address / 4) is in
    /// bank `a % B`, row `a / B`.
    pub shared_rows: usize,
    /// log2 `4B`: a byte address shifted right by this is its row.
    pub shared_row_shift: u32,
    /// `I`: instruction memory words.
    pub imem_words: usize,
    /// Bits a PC needs (`concord_isa::checks::pc_bits`), at most the fixed
    /// [`PC_BITS`].
    pub pc_bits: u32,
    /// `MAXD = 2^D − 1`: the deepest call depth.
    pub max_call_depth: u32,
    /// `G`: global memory bytes.
    pub global_bytes: u32,
    /// Bytes per global line.
    pub global_line_bytes: u32,
    /// log2 of the line: a byte address shifted right by this is its line.
    pub global_line_shift: u32,
    /// 32-bit words per global line.
    pub global_line_words: usize,
    /// Cycles from an accepted global request to its response in the
    /// testbench memory.
    pub global_latency: u32,
    /// Branch-mode key.
    pub arbitration: Arbitration,
    /// `INIT` cycles: `max(W · RP, S / (4B))`, enough to clear every
    /// register-file row and every shared row.
    pub init_cycles: u32,
    /// Core v2 warp scheduler (§6 of docs/microarchitecture.md).
    pub scheduler: Scheduler,
    /// Core v2 trees: unified or split (§9.2).
    pub arbiter: ArbiterMode,
    /// `BS`: Core v2 block slots, `min(max_resident_blocks, W)` (a block
    /// needs at least one warp, so slots beyond `W` could never be used).
    pub block_slots: usize,
    /// `N`: Core v2 global request entries.
    pub global_outstanding: usize,
    /// `Wb`: Core v2 Wishbone data width in bytes.
    pub global_bus_bytes: u32,
    /// `NB = G / Wb`: beats per line.
    pub global_beats: usize,
    /// Bytes per cycle the testbench memory accepts (0: one beat per cycle).
    pub global_bandwidth: u32,
}

impl HwParams {
    /// The hardware for `config`, or the first rule it breaks, naming the
    /// config field. The rules, in order:
    ///
    /// 1. every range of [`CoreConfig::validate`] (the architecture's);
    /// 2. `lanes` is a power of two: the arbiter is a binary tree over the
    ///    lanes, and a thread id is warp and lane bit fields;
    /// 3. `shared_banks` is a power of two: bank and row are bit fields of a
    ///    word address;
    /// 4. `shared_memory_bytes / (4 × shared_banks)` rows per bank is a
    ///    power of two;
    /// 5. `imem_words` is a power of two.
    ///
    /// 6. Core v2 (docs/microarchitecture.md §17.3): `global_bus_bytes`
    ///    is a power of two in 4..=`global_line_bytes` (a line is a whole
    ///    number of beats), `global_outstanding` 1..=16, `global_bandwidth`
    ///    0..=128, `max_resident_blocks` 1..=16 (rule 1 checks these ranges;
    ///    they are restated here so that the hardware's rule set is
    ///    complete even if the architecture's ranges widen). Block slots
    ///    beyond `warps` are not built: [`HwParams::block_slots`] is
    ///    `min(max_resident_blocks, warps)`, so the default of 4 stays valid
    ///    on a one-warp core.
    ///
    /// (Rules 4 and 5 are the memories' sizes as docs/microarchitecture.md
    /// §1 fixes them; `hdl::ram::Ram` itself takes any depth.)
    ///
    /// Every configuration that passes fits the fixed port widths
    /// ([`crate::widths`] checks the ranges of rule 1 against them when it
    /// compiles). Errors carry no file name; callers that read the
    /// configuration from a file put its name in front.
    pub fn new(config: &CoreConfig) -> Result<HwParams, ConfigError> {
        config.validate()?;
        let c = config;
        let pow2 = |field: &'static str, v: u32, why: &'static str| {
            rule(field, v.is_power_of_two(), || {
                format!("{v} is not a power of two, which the hardware needs{why}")
            })
        };
        pow2(
            "lanes",
            c.lanes,
            " (the arbiter is a binary tree over the lanes)",
        )?;
        pow2(
            "shared_banks",
            c.shared_banks,
            " (bank and row are bit fields of a word address)",
        )?;
        let shared_rows = c.shared_memory_bytes / (4 * c.shared_banks);
        rule("shared_memory_bytes", shared_rows.is_power_of_two(), || {
            format!(
                    "{} bytes in {} banks make {shared_rows} rows of 4-byte words per bank, not a power of two, which the hardware needs",
                    c.shared_memory_bytes, c.shared_banks
                )
        })?;
        pow2("imem_words", c.imem_words, "")?;
        pow2(
            "global_bus_bytes",
            c.global_bus_bytes,
            " (a line is a whole number of bus beats)",
        )?;
        rule(
            "global_bus_bytes",
            (4..=c.global_line_bytes).contains(&c.global_bus_bytes),
            || {
                format!(
                    "{} is outside 4..=global_line_bytes ({}): a line must be a whole number of beats",
                    c.global_bus_bytes, c.global_line_bytes
                )
            },
        )?;
        rule(
            "global_outstanding",
            (1..=16).contains(&c.global_outstanding),
            || {
                format!(
                    "{} is outside 1..=16 (16-deep entry LUT-RAM)",
                    c.global_outstanding
                )
            },
        )?;
        rule("global_bandwidth", c.global_bandwidth <= 128, || {
            format!("{} is outside 0..=128", c.global_bandwidth)
        })?;
        rule(
            "max_resident_blocks",
            (1..=16).contains(&c.max_resident_blocks),
            || format!("{} is outside 1..=16", c.max_resident_blocks),
        )?;
        let rf_rows_per_warp = c.registers.next_power_of_two() as usize;
        let rf_rows = c.warps as usize * rf_rows_per_warp;
        let pc_bits = pc_bits(c.imem_words);
        debug_assert!(pc_bits as usize <= PC_BITS);
        Ok(HwParams {
            lanes: c.lanes as usize,
            warps: c.warps as usize,
            registers: c.registers as usize,
            predicates: c.predicates as usize,
            lane_mask: concord_isa::mask::full(c.lanes as usize),
            lane_bits: c.lanes.trailing_zeros(),
            block_threads: c.max_block_threads(),
            rf_rows_per_warp,
            rf_rows,
            shared_bytes: c.shared_memory_bytes,
            shared_banks: c.shared_banks as usize,
            shared_rows: shared_rows as usize,
            shared_row_shift: (4 * c.shared_banks).trailing_zeros(),
            imem_words: c.imem_words as usize,
            pc_bits,
            max_call_depth: c.max_call_depth(),
            global_bytes: c.global_memory_bytes,
            global_line_bytes: c.global_line_bytes,
            global_line_shift: c.global_line_bytes.trailing_zeros(),
            global_line_words: c.global_line_bytes as usize / 4,
            global_latency: c.global_latency,
            arbitration: c.arbitration,
            init_cycles: (rf_rows as u32).max(shared_rows),
            scheduler: c.scheduler,
            arbiter: c.arbiter,
            block_slots: c.max_resident_blocks.min(c.warps) as usize,
            global_outstanding: c.global_outstanding as usize,
            global_bus_bytes: c.global_bus_bytes,
            global_beats: (c.global_line_bytes / c.global_bus_bytes) as usize,
            global_bandwidth: c.global_bandwidth,
        })
    }

    /// Whether branch keys hold the call depth (`arbitration: depth_pc`).
    pub fn depth_pc(&self) -> bool {
        self.arbitration == Arbitration::DepthPc
    }

    /// The register-file row of register `reg` of warp `warp`
    /// (`trace_rf_addr`).
    #[inline(always)]
    pub fn rf_row(&self, warp: usize, reg: usize) -> usize {
        warp * self.rf_rows_per_warp + reg
    }
}

/// The trace address of predicate `p` of warp `warp` (`trace_pred_addr`):
/// `warp * PRED_SLOTS + p`, whatever `predicates` is.
#[inline(always)]
pub fn pred_trace_addr(warp: usize, p: usize) -> u32 {
    (warp * crate::widths::PRED_SLOTS + p) as u32
}
