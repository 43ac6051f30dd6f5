//! Generator options (docs/microarchitecture.md §17.2): they change the
//! core's ports and area, never its behaviour, and are not part of
//! `CoreConfig`. The cycle model reads `counter_bits`, because counters
//! wrap at that width (§15.1).

use std::fmt;

/// `counter_bits`' range.
pub const COUNTER_BITS: std::ops::RangeInclusive<u32> = 16..=64;

/// The generator options of §17.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenOptions {
    /// The trace port of §15.2.
    pub trace: bool,
    /// Width of every counter but `cycles` (§15.1), 16..=64.
    pub counter_bits: u32,
    /// The `0x102xx` debug registers of §15.3.
    pub debug_regs: bool,
}

/// A generator option out of its range; names the option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenOptionError {
    pub option: &'static str,
    pub message: String,
}

impl fmt::Display for GenOptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "generator option `{}`: {}", self.option, self.message)
    }
}

impl std::error::Error for GenOptionError {}

impl GenOptions {
    /// The `sim` preset: trace port, 64-bit counters, debug registers.
    pub const fn sim() -> GenOptions {
        GenOptions {
            trace: true,
            counter_bits: 64,
            debug_regs: true,
        }
    }

    /// The `board` preset: no trace port, 32-bit counters, no debug
    /// registers.
    pub const fn board() -> GenOptions {
        GenOptions {
            trace: false,
            counter_bits: 32,
            debug_regs: false,
        }
    }

    /// The rules of §17.2; the error names the option.
    pub fn validate(&self) -> Result<(), GenOptionError> {
        if !COUNTER_BITS.contains(&self.counter_bits) {
            return Err(GenOptionError {
                option: "counter_bits",
                message: format!(
                    "{} is out of range {}..={}",
                    self.counter_bits,
                    COUNTER_BITS.start(),
                    COUNTER_BITS.end()
                ),
            });
        }
        Ok(())
    }
}

impl Default for GenOptions {
    /// The `sim` preset (what co-simulation and the cycle model use).
    fn default() -> Self {
        GenOptions::sim()
    }
}
