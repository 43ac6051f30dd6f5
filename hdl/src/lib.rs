//! # concord-hdl
//!
//! The Concord SIMT core in rust-hdl 0.46 and its Verilog generation.
//! `docs/microarchitecture.md` is the cycle-level contract this RTL
//! implements; `hdl/README.md` says what is where.
//!
//! ```no_run
//! let verilog = concord_hdl::generate_verilog(&concord_isa::config::CoreConfig::default())?;
//! std::fs::write("concord_core.v", verilog)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod arbiter;
pub mod core;
pub mod ctl;
pub mod decode;
pub mod lane;
pub mod ram;
pub mod shared;
pub mod stack;
pub mod util;
pub mod warps;

use concord_isa::config::{ConfigError, CoreConfig};
use concord_isa::instr::{MAX_PREDS, MAX_REGS};
use rust_hdl_core::prelude::*;

/// Name of the generated top module.
pub const TOP_MODULE: &str = "concord_core";
/// Width of the PC registers and of every PC port (docs/microarchitecture.md §1).
pub const PC_BITS: u32 = 16;
/// Name of the arbiter module in the generated Verilog.
pub const ARBITER_MODULE: &str = "arbiter";

/// Why no Verilog could be generated for a configuration.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HdlError {
    /// The configuration is invalid, or valid but not buildable by this RTL;
    /// `field` is the YAML field name.
    #[error("config field `{field}`: {message}")]
    Config {
        field: &'static str,
        message: String,
    },
}

fn rule(field: &'static str, ok: bool, message: impl FnOnce() -> String) -> Result<(), HdlError> {
    if ok {
        Ok(())
    } else {
        Err(HdlError::Config {
            field,
            message: message(),
        })
    }
}

/// The hardware rules of docs/microarchitecture.md §1, after the
/// configuration's own range checks (`CoreConfig::validate`).
pub fn check_config(c: &CoreConfig) -> Result<(), HdlError> {
    c.validate().map_err(|e| match e {
        ConfigError::Field { field, message, .. } => HdlError::Config { field, message },
        ConfigError::Parse { message, .. } => HdlError::Config {
            field: "config",
            message,
        },
    })?;
    let pow2 = |v: u32| v.is_power_of_two();
    rule(
        "lanes",
        pow2(c.lanes) && (4..=32).contains(&c.lanes),
        || {
            format!(
                "{} lanes: the hardware needs a power of two in 4..=32",
                c.lanes
            )
        },
    )?;
    rule("warps", (1..=16).contains(&c.warps), || {
        format!("{} warps: the hardware has 1..=16", c.warps)
    })?;
    rule(
        "registers",
        (4..=MAX_REGS as u32).contains(&c.registers),
        || {
            format!(
                "{} registers: the encoding addresses 4..={MAX_REGS}",
                c.registers
            )
        },
    )?;
    rule(
        "predicates",
        (2..=MAX_PREDS as u32).contains(&c.predicates),
        || {
            format!(
                "{} predicates: the encoding addresses 2..={MAX_PREDS}",
                c.predicates
            )
        },
    )?;
    rule(
        "shared_banks",
        pow2(c.shared_banks) && (1..=32).contains(&c.shared_banks),
        || {
            format!(
                "{} banks: the hardware needs a power of two in 1..=32",
                c.shared_banks
            )
        },
    )?;
    let word_bytes = 4 * c.shared_banks;
    rule(
        "shared_memory_bytes",
        c.shared_memory_bytes % word_bytes == 0 && pow2(c.shared_memory_bytes / word_bytes),
        || {
            format!(
                "{} bytes over {} banks: the rows per bank (bytes / (4 x banks)) must be a power of two",
                c.shared_memory_bytes, c.shared_banks
            )
        },
    )?;
    rule(
        "shared_memory_bytes",
        c.shared_memory_bytes / word_bytes <= 1 << shared::ROW_BITS,
        || {
            format!(
                "{} bytes: at most {} rows per bank",
                c.shared_memory_bytes,
                1u32 << shared::ROW_BITS
            )
        },
    )?;
    rule(
        "imem_words",
        // The PC registers, `trace_pc` and the arbiter's PC key are 16 bits:
        // enough for every PC of such a memory (`checks::pc_bits`).
        pow2(c.imem_words) && concord_isa::checks::pc_bits(c.imem_words) <= PC_BITS,
        || {
            format!(
                "{} words: the instruction memory must be a power of two of at most 65536 words",
                c.imem_words
            )
        },
    )?;
    rule(
        "call_depth_bits",
        (1..=16).contains(&c.call_depth_bits),
        || format!("{} bits: the hardware has 1..=16", c.call_depth_bits),
    )?;
    rule(
        "global_line_bytes",
        pow2(c.global_line_bytes) && (4..=128).contains(&c.global_line_bytes),
        || {
            format!(
                "{} bytes: the line must be a power of two in 4..=128",
                c.global_line_bytes
            )
        },
    )?;
    Ok(())
}

/// The rust-hdl block of the whole core for `config`, connected and ready
/// for `rust_hdl_core::prelude::generate_verilog`.
pub fn build(config: &CoreConfig) -> Result<core::Core, HdlError> {
    check_config(config)?;
    let mut c = core::Core::new(&core::CoreParams::from_config(config));
    c.connect_all();
    Ok(c)
}

/// Verilog for the whole core, top module `concord_core` with the ports of
/// docs/microarchitecture.md §8-§10 plus `clock` and `reset` (active high,
/// synchronous).
///
/// rust-hdl names the top module `top` and every sub-module after its path
/// (`top$lanes$0$rf`); the text is post-processed only to rename `top` to
/// `concord_core` (sub-modules become `concord_core$...`), to name the
/// arbiter module `arbiter`, to mark every lane module
/// `(* keep_hierarchy *)` for Yosys, and to prepend a header.
pub fn generate_verilog(config: &CoreConfig) -> Result<String, HdlError> {
    let core = build(config)?;
    let raw = rust_hdl_core::prelude::generate_verilog(&core);
    Ok(postprocess(&raw, config))
}

fn postprocess(raw: &str, config: &CoreConfig) -> String {
    let mut out = String::with_capacity(raw.len() + 1024);
    out.push_str(&format!(
        "// Concord core, generated by concord-hdl (rust-hdl 0.46) for:\n{}\
// One file holds every module of the core, so only the top module can match
// the file name (concord_core.v); the others are named after their path.
/* verilator lint_off DECLFILENAME */\n",
        config
            .to_yaml()
            .lines()
            .map(|l| format!("//   {l}\n"))
            .collect::<String>()
    ));
    for line in raw.lines() {
        let renamed = rename_line(line);
        if is_lane_module(&renamed) {
            // Yosys keeps each lane a module of its own (`flatten` stops
            // there): its passes that grow faster than the design (`share`
            // compares every pair of multipliers and shifters, `autoname`,
            // `abc`) then work on one lane at a time.
            out.push_str("(* keep_hierarchy *)\n");
        }
        out.push_str(&renamed);
        out.push('\n');
    }
    out
}

/// `module concord_core$lanes$<n>(...`: a lane, not one of its children.
fn is_lane_module(line: &str) -> bool {
    line.strip_prefix("module ")
        .and_then(|r| r.strip_prefix(TOP_MODULE))
        .and_then(|r| r.strip_prefix("$lanes$"))
        .map(|r| {
            let digits = r.chars().take_while(|c| c.is_ascii_digit()).count();
            digits > 0 && !r[digits..].starts_with('$')
        })
        .unwrap_or(false)
}

/// Renames the module name on a `module`, `endmodule` or instance line.
/// rust-hdl names every module `top` or `top$<path>` and writes module names
/// only at the start of those lines; nothing else in the text starts with
/// `top`.
fn rename_line(line: &str) -> String {
    let body = line.trim_start();
    let indent = &line[..line.len() - body.len()];
    let (keyword, rest) = if let Some(r) = body.strip_prefix("module ") {
        ("module ", r)
    } else if let Some(r) = body.strip_prefix("endmodule // ") {
        ("endmodule // ", r)
    } else {
        ("", body)
    };
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(rest.len());
    let name = &rest[..end];
    let renamed = if name == "top$arbiter" {
        ARBITER_MODULE.to_string()
    } else if name == "top" {
        TOP_MODULE.to_string()
    } else if let Some(path) = name.strip_prefix("top$") {
        format!("{TOP_MODULE}${path}")
    } else {
        return line.to_string();
    };
    format!("{indent}{keyword}{renamed}{}", &rest[end..])
}
