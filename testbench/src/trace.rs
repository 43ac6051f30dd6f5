//! The per-cycle trace-port record (docs/microarchitecture.md §10), with
//! the FSM states and counters it refers to (defined in `concord_uarch`).
//!
//! The cycle model produces one [`TracePort`] per cycle and the Verilator
//! harness reads one per cycle from the RTL's `trace_*` outputs; the
//! co-simulation compares them field by field.

use std::fmt;

/// FSM states and their `trace_state` codes, from the contract.
pub use concord_uarch::State;

/// Everything the trace port shows in one cycle. Lanes beyond the core's
/// lane count, and data of lanes whose write enable is 0, are zero.
#[derive(Clone, PartialEq, Eq, Debug, serde::Serialize)]
pub struct TracePort {
    pub state: State,
    pub warp: u32,
    pub pc: u32,
    pub active: u32,
    pub exec: u32,
    pub rf_we: u32,
    pub rf_addr: u32,
    pub rf_data: [u32; 32],
    pub pred_we: u32,
    pub pred_addr: u32,
    pub pred_data: u32,
}

impl Default for TracePort {
    fn default() -> Self {
        TracePort {
            state: State::Idle,
            warp: 0,
            pc: 0,
            active: 0,
            exec: 0,
            rf_we: 0,
            rf_addr: 0,
            rf_data: [0; 32],
            pred_we: 0,
            pred_addr: 0,
            pred_data: 0,
        }
    }
}

impl TracePort {
    /// Names and values of the fields that differ, for mismatch reports.
    pub fn diff(&self, other: &TracePort) -> Vec<(&'static str, String, String)> {
        let mut d = Vec::new();
        let mut cmp = |name: &'static str, a: String, b: String| {
            if a != b {
                d.push((name, a, b));
            }
        };
        cmp(
            "state",
            format!("{:?}", self.state),
            format!("{:?}", other.state),
        );
        cmp("warp", self.warp.to_string(), other.warp.to_string());
        cmp("pc", self.pc.to_string(), other.pc.to_string());
        cmp(
            "active",
            format!("{:#010x}", self.active),
            format!("{:#010x}", other.active),
        );
        cmp(
            "exec",
            format!("{:#010x}", self.exec),
            format!("{:#010x}", other.exec),
        );
        cmp(
            "rf_we",
            format!("{:#010x}", self.rf_we),
            format!("{:#010x}", other.rf_we),
        );
        cmp(
            "rf_addr",
            self.rf_addr.to_string(),
            other.rf_addr.to_string(),
        );
        for l in 0..32 {
            if self.rf_data[l] != other.rf_data[l] {
                cmp(
                    "rf_data",
                    format!("lane {l}: {:#010x}", self.rf_data[l]),
                    format!("lane {l}: {:#010x}", other.rf_data[l]),
                );
            }
        }
        cmp(
            "pred_we",
            format!("{:#010x}", self.pred_we),
            format!("{:#010x}", other.pred_we),
        );
        cmp(
            "pred_addr",
            self.pred_addr.to_string(),
            other.pred_addr.to_string(),
        );
        cmp(
            "pred_data",
            format!("{:#010x}", self.pred_data),
            format!("{:#010x}", other.pred_data),
        );
        d
    }
}

impl TracePort {
    /// `h` with this cycle's record mixed in (FxHash's step: fast, not
    /// cryptographic). The RTL harness folds every cycle of a run into one
    /// value, so that a replay on the cycle model can show that it matched
    /// the run on every cycle without keeping the trace. Register data of
    /// lanes that do not write is left out (it is 0 on both sides anyway).
    #[inline]
    pub fn fold_hash(&self, h: u64) -> u64 {
        let mix = |h: u64, v: u64| (h.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        let mut h = mix(
            h,
            self.state as u64 | (self.warp as u64) << 8 | (self.pc as u64) << 32,
        );
        h = mix(h, self.active as u64 | (self.exec as u64) << 32);
        h = mix(h, self.rf_we as u64 | (self.rf_addr as u64) << 32);
        h = mix(h, self.pred_we as u64 | (self.pred_addr as u64) << 32);
        h = mix(h, self.pred_data as u64);
        let mut m = self.rf_we;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            h = mix(h, self.rf_data[l] as u64);
        }
        h
    }
}

impl fmt::Display for TracePort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} warp {} pc {} active {:#010x} exec {:#010x}",
            self.state, self.warp, self.pc, self.active, self.exec
        )?;
        if self.rf_we != 0 {
            write!(f, " rf[{}] we {:#010x}", self.rf_addr, self.rf_we)?;
        }
        if self.pred_we != 0 {
            write!(
                f,
                " pred[{}] we {:#010x} = {:#010x}",
                self.pred_addr, self.pred_we, self.pred_data
            )?;
        }
        Ok(())
    }
}

/// Why a timed run did not complete its launch: a trap, or its per-cycle
/// hook broke (`Stopped`, with the counters up to there).
pub type RunError = concord_isa::func::RunError<Counters>;

/// Counters of a timed run, in the order of docs/microarchitecture.md §2,
/// from the contract (`concord_uarch::counters`).
pub use concord_uarch::Counters;
