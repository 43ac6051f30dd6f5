//! # concord-hdl
//!
//! The Concord SIMT core in rust-hdl 0.46 and its Verilog generation.
//! `docs/microarchitecture.md` is the cycle-level contract this RTL
//! implements; `hdl/README.md` says what is where. The core and its blocks
//! are in [`v2`] (the name stayed from when a first, unpipelined core
//! lived beside it; that core was removed, see `docs/v1-figures.md`).
//!
//! ```no_run
//! let config = concord_isa::config::CoreConfig::default();
//! let gen = concord_uarch::GenOptions::board();
//! let verilog = concord_hdl::v2::core::core_verilog(&config, &gen)?;
//! std::fs::write("concord_core.v", verilog)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod arbiter;
pub mod ram;
pub mod util;
/// The core and its blocks (docs/microarchitecture.md).
pub mod v2;
/// The core's Wishbone B4 host slave (docs/microarchitecture.md §14).
pub mod wishbone;

use concord_isa::config::ConfigError;

/// Name of the generated top module.
pub const TOP_MODULE: &str = v2::core::TOP;

/// Why no Verilog could be generated for a configuration.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HdlError {
    /// The configuration is invalid, or valid but not buildable by the
    /// hardware (`concord_uarch::HwParams::new`); `field` is the YAML
    /// field name.
    #[error("config field `{field}`: {message}")]
    Config {
        field: &'static str,
        message: String,
    },
}

impl From<ConfigError> for HdlError {
    fn from(e: ConfigError) -> HdlError {
        match e {
            ConfigError::Field { field, message, .. } => HdlError::Config { field, message },
            ConfigError::Parse { message, .. } => HdlError::Config {
                field: "config",
                message,
            },
        }
    }
}

/// Renames the module name on a `module`, `endmodule` or instance line by
/// `rename` (`None`: the line is kept). rust-hdl names every module `top`
/// or `top$<path>` and writes module names only at the start of those
/// lines; nothing else in the text starts with `top`.
pub(crate) fn rename_module_on_line(line: &str, rename: impl Fn(&str) -> Option<String>) -> String {
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
    match rename(&rest[..end]) {
        Some(renamed) => format!("{indent}{keyword}{renamed}{}", &rest[end..]),
        None => line.to_string(),
    }
}
