//! The core configuration: the parameters every model and the RTL are built
//! from, loaded from YAML (`configs/*.yaml`).
//!
//! Unknown fields are rejected by serde; every range is checked by
//! [`CoreConfig::validate`], whose errors name the field. These are the
//! architecture's ranges: the functional model runs every valid
//! configuration. Limits that only the hardware has (power-of-two lanes,
//! bank counts, memory sizes) are one rule set in `concord_uarch::HwParams`,
//! which the RTL generator, the cycle model and the CLI use.

use serde::{Deserialize, Serialize};
use std::path::Path;

use crate::input;
use crate::instr::{MAX_IMEM_WORDS, MAX_LANES, MAX_PREDS, MAX_REGS};
use crate::show;

/// Largest `warps`.
pub const MAX_WARPS: u32 = 16;
/// Largest `shared_banks`.
pub const MAX_SHARED_BANKS: u32 = 32;
/// Largest `shared_memory_bytes`: 1 MiB.
pub const MAX_SHARED_BYTES: u32 = 1 << 20;
/// Largest `call_depth_bits`.
pub const MAX_CALL_DEPTH_BITS: u32 = 16;
/// Largest `global_line_bytes`.
pub const MAX_GLOBAL_LINE_BYTES: u32 = 128;

/// How the warp's issuing lanes are selected (Collange §3).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Arbitration {
    /// Deepest call first, then lowest PC: reconverges calls placed at
    /// higher addresses (Collange Listing 1).
    #[default]
    DepthPc,
    /// Lowest PC only: the policy whose Listing 1 failure the depth key fixes.
    PcOnly,
}

impl Arbitration {
    pub fn name(self) -> &'static str {
        match self {
            Arbitration::DepthPc => "depth_pc",
            Arbitration::PcOnly => "pc_only",
        }
    }
}

/// The warp scheduler of Core v2 (docs/microarchitecture.md §6).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Scheduler {
    /// Loose round-robin: the first ready warp after the one that issued last.
    #[default]
    Lrr,
    /// Greedy then oldest: the last warp while it is ready, else the oldest ready one.
    Gto,
}

impl Scheduler {
    pub fn name(self) -> &'static str {
        match self {
            Scheduler::Lrr => "lrr",
            Scheduler::Gto => "gto",
        }
    }
}

/// How many min-key trees Core v2 has (docs/microarchitecture.md §9.2).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ArbiterMode {
    /// One tree for branch and memory mode.
    #[default]
    Unified,
    /// A branch tree and a memory tree.
    Split,
}

impl ArbiterMode {
    pub fn name(self) -> &'static str {
        match self {
            ArbiterMode::Unified => "unified",
            ArbiterMode::Split => "split",
        }
    }
}

/// Largest `max_resident_blocks`.
pub const MAX_RESIDENT_BLOCKS: u32 = 16;
/// Largest `global_outstanding`.
pub const MAX_GLOBAL_OUTSTANDING: u32 = 16;
/// Largest `global_bandwidth`.
pub const MAX_GLOBAL_BANDWIDTH: u32 = 128;

#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CoreConfig {
    /// Lanes (threads) per warp: 4..=32.
    pub lanes: u32,
    /// Warps per core: 1..=16. A block uses at most `lanes * warps` threads.
    pub warps: u32,
    /// General registers per lane: 4..=32.
    pub registers: u32,
    /// Predicate registers per lane including `pt`: 2..=8.
    pub predicates: u32,
    /// Shared memory per core in bytes: a multiple of `4 * shared_banks`, at most 1 MiB.
    pub shared_memory_bytes: u32,
    /// Shared memory banks (32-bit words interleaved): 1..=32.
    pub shared_banks: u32,
    /// Instruction memory in 32-bit words: 16..=65536.
    pub imem_words: u32,
    /// Width of each lane's call-depth counter: 1..=16 (depth 0..2^bits-1).
    pub call_depth_bits: u32,
    /// Global memory size in bytes seen by the models: 64 B..=1 GiB, multiple of 4.
    pub global_memory_bytes: u32,
    /// Cycles from a global request to its response in the timed models: 1..=1000.
    pub global_latency: u32,
    /// Bytes per global memory line, the unit the memory-mode arbiter serves: 4..=128, power of two.
    pub global_line_bytes: u32,
    /// Warp arbitration key.
    pub arbitration: Arbitration,
    /// Warp scheduler of stage S (docs/microarchitecture.md §6).
    pub scheduler: Scheduler,
    /// Min-key trees of stage A: `unified` or `split` (§9).
    pub arbiter: ArbiterMode,
    /// Block slots, the most blocks resident at once: 1..=16 (§12).
    pub max_resident_blocks: u32,
    /// Global request entries, the most requests outstanding: 1..=16 (§10).
    pub global_outstanding: u32,
    /// Core v2 Wishbone data width in bytes: 4..=`global_line_bytes`, a power of two.
    pub global_bus_bytes: u32,
    /// Bytes per cycle the testbench memory accepts, 0..=128 (0: one bus beat per cycle).
    pub global_bandwidth: u32,
}

impl Default for CoreConfig {
    fn default() -> Self {
        CoreConfig {
            lanes: 8,
            warps: 8,
            registers: 32,
            predicates: 8,
            shared_memory_bytes: 16 * 1024,
            shared_banks: 8,
            imem_words: 4096,
            call_depth_bits: 4,
            global_memory_bytes: 1 << 20,
            global_latency: 10,
            global_line_bytes: 32,
            arbitration: Arbitration::DepthPc,
            scheduler: Scheduler::Lrr,
            arbiter: ArbiterMode::Unified,
            max_resident_blocks: 4,
            global_outstanding: 8,
            global_bus_bytes: 4,
            global_bandwidth: 0,
        }
    }
}

/// A configuration problem. `field` is the YAML field name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The file cannot be read or is not YAML of the right shape.
    #[error("{}: {}", show::escape(.file), show::message(.message))]
    Parse { file: String, message: String },
    #[error("{file}config field `{field}`: {}", show::message(.message), file = file_prefix(.file))]
    Field {
        file: Option<String>,
        field: &'static str,
        message: String,
    },
}

fn file_prefix(file: &Option<String>) -> String {
    file.as_ref()
        .map(|f| format!("{}: ", show::escape(f)))
        .unwrap_or_default()
}

/// A rule on a config field: `ok`, or the error naming `field` with the
/// message (made only when the rule fails). `CoreConfig::validate` and the
/// hardware's rule set (`concord_uarch::HwParams::new`) both use it.
pub fn rule(
    field: &'static str,
    ok: bool,
    message: impl FnOnce() -> String,
) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(ConfigError::Field {
            file: None,
            field,
            message: message(),
        })
    }
}

impl CoreConfig {
    /// The largest block the core runs: every thread of a block is resident.
    pub fn max_block_threads(&self) -> u32 {
        self.lanes * self.warps
    }

    /// Largest call depth a lane may reach.
    pub fn max_call_depth(&self) -> u32 {
        (1u32 << self.call_depth_bits) - 1
    }

    /// Parses and validates YAML text; `file` names the source in errors.
    pub fn from_yaml(text: &str, file: &str) -> Result<CoreConfig, ConfigError> {
        let config: CoreConfig = if text.trim().is_empty() {
            CoreConfig::default()
        } else {
            serde_yaml::from_str(text).map_err(|e| ConfigError::Parse {
                file: file.to_string(),
                message: input::yaml_message(&e, text),
            })?
        };
        config.validate().map_err(|e| match e {
            ConfigError::Field { field, message, .. } => ConfigError::Field {
                file: Some(file.to_string()),
                field,
                message,
            },
            other => other,
        })?;
        Ok(config)
    }

    /// Reads and validates the configuration file `path` (through
    /// [`crate::input`]: a regular file within the text cap).
    pub fn load(path: &Path) -> Result<CoreConfig, ConfigError> {
        let text = input::read_text(path, input::Kind::Config).map_err(|e| ConfigError::Parse {
            file: e.located_file(),
            message: e.message,
        })?;
        CoreConfig::from_yaml(&text, &input::show_path(path))
    }

    pub fn to_yaml(&self) -> String {
        serde_yaml::to_string(self).expect("config serializes")
    }

    /// Checks every field's range; the error names the first bad field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        fn range(field: &'static str, v: u32, lo: u32, hi: u32) -> Result<(), ConfigError> {
            if v < lo || v > hi {
                Err(ConfigError::Field {
                    file: None,
                    field,
                    message: format!("{v} is outside {lo}..={hi}"),
                })
            } else {
                Ok(())
            }
        }
        range("lanes", self.lanes, 4, MAX_LANES as u32)?;
        range("warps", self.warps, 1, MAX_WARPS)?;
        range("registers", self.registers, 4, MAX_REGS as u32)?;
        range("predicates", self.predicates, 2, MAX_PREDS as u32)?;
        range("shared_banks", self.shared_banks, 1, MAX_SHARED_BANKS)?;
        range(
            "shared_memory_bytes",
            self.shared_memory_bytes,
            4 * self.shared_banks,
            MAX_SHARED_BYTES,
        )?;
        rule(
            "shared_memory_bytes",
            self.shared_memory_bytes % (4 * self.shared_banks) == 0,
            || {
                format!(
                    "{} is not a multiple of 4 bytes x {} banks",
                    self.shared_memory_bytes, self.shared_banks
                )
            },
        )?;
        range("imem_words", self.imem_words, 16, MAX_IMEM_WORDS as u32)?;
        range(
            "call_depth_bits",
            self.call_depth_bits,
            1,
            MAX_CALL_DEPTH_BITS,
        )?;
        range("global_memory_bytes", self.global_memory_bytes, 64, 1 << 30)?;
        rule(
            "global_memory_bytes",
            self.global_memory_bytes % 4 == 0,
            || format!("{} is not a multiple of 4", self.global_memory_bytes),
        )?;
        range("global_latency", self.global_latency, 1, 1000)?;
        range(
            "global_line_bytes",
            self.global_line_bytes,
            4,
            MAX_GLOBAL_LINE_BYTES,
        )?;
        rule(
            "global_line_bytes",
            self.global_line_bytes.is_power_of_two(),
            || format!("{} is not a power of two", self.global_line_bytes),
        )?;
        range(
            "max_resident_blocks",
            self.max_resident_blocks,
            1,
            MAX_RESIDENT_BLOCKS,
        )?;
        range(
            "global_outstanding",
            self.global_outstanding,
            1,
            MAX_GLOBAL_OUTSTANDING,
        )?;
        range(
            "global_bus_bytes",
            self.global_bus_bytes,
            4,
            self.global_line_bytes,
        )?;
        rule(
            "global_bus_bytes",
            self.global_bus_bytes.is_power_of_two(),
            || format!("{} is not a power of two", self.global_bus_bytes),
        )?;
        range(
            "global_bandwidth",
            self.global_bandwidth,
            0,
            MAX_GLOBAL_BANDWIDTH,
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_config_is_valid_and_round_trips() {
        let c = CoreConfig::default();
        c.validate().unwrap();
        assert_eq!(CoreConfig::from_yaml(&c.to_yaml(), "x").unwrap(), c);
    }

    #[test]
    fn unknown_field_is_named() {
        let e = CoreConfig::from_yaml("lanes: 8\nlane_count: 4\n", "c.yaml").unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("c.yaml") && msg.contains("lane_count"),
            "{msg}"
        );
    }

    #[test]
    fn out_of_range_value_names_the_field() {
        let e = CoreConfig::from_yaml("warps: 17\n", "c.yaml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "c.yaml: config field `warps`: 17 is outside 1..=16"
        );
        let e = CoreConfig::from_yaml("shared_memory_bytes: 1000\nshared_banks: 8\n", "c.yaml")
            .unwrap_err();
        assert!(e.to_string().contains("`shared_memory_bytes`"), "{e}");
    }

    #[test]
    fn v2_fields_parse_and_are_checked() {
        let c = CoreConfig::from_yaml(
            "scheduler: gto\narbiter: split\nmax_resident_blocks: 2\nglobal_outstanding: 16\nglobal_bus_bytes: 8\nglobal_bandwidth: 3\n",
            "c.yaml",
        )
        .unwrap();
        assert_eq!(c.scheduler, Scheduler::Gto);
        assert_eq!(c.arbiter, ArbiterMode::Split);
        assert_eq!(
            (
                c.max_resident_blocks,
                c.global_outstanding,
                c.global_bus_bytes,
                c.global_bandwidth
            ),
            (2, 16, 8, 3)
        );
        let err = |y: &str| CoreConfig::from_yaml(y, "c.yaml").unwrap_err().to_string();
        assert_eq!(
            err("max_resident_blocks: 0\n"),
            "c.yaml: config field `max_resident_blocks`: 0 is outside 1..=16"
        );
        assert_eq!(
            err("global_outstanding: 17\n"),
            "c.yaml: config field `global_outstanding`: 17 is outside 1..=16"
        );
        assert_eq!(
            err("global_bus_bytes: 64\n"),
            "c.yaml: config field `global_bus_bytes`: 64 is outside 4..=32"
        );
        assert_eq!(
            err("global_bus_bytes: 12\n"),
            "c.yaml: config field `global_bus_bytes`: 12 is not a power of two"
        );
        assert_eq!(
            err("global_bandwidth: 129\n"),
            "c.yaml: config field `global_bandwidth`: 129 is outside 0..=128"
        );
        assert!(err("scheduler: fifo\n").contains("scheduler"));
    }

    #[test]
    fn wrong_type_is_reported_with_location() {
        let e = CoreConfig::from_yaml("lanes: many\n", "c.yaml").unwrap_err();
        assert!(
            e.to_string().contains("lanes") && e.to_string().contains("line 1"),
            "{e}"
        );
    }
}
