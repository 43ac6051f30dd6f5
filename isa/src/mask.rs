//! Lane masks: one bit per lane, bit `i` = lane `i`.
//!
//! Warps have at most [`crate::MAX_LANES`] = 32 lanes, so a mask is a `u32`;
//! the models' hot loops test bits of it directly. The textual form used by
//! traces and reports lists lane 0 first (`1100` = lanes 0 and 1).

use std::fmt;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct LaneMask {
    pub bits: u32,
    pub lanes: u8,
}

impl LaneMask {
    pub fn new(bits: u32, lanes: usize) -> LaneMask {
        debug_assert!(lanes <= 32);
        LaneMask {
            bits,
            lanes: lanes as u8,
        }
    }

    /// Parses the `0`/`1` form, lane 0 first.
    pub fn parse(text: &str) -> Option<LaneMask> {
        if text.is_empty() || text.len() > 32 {
            return None;
        }
        let mut bits = 0;
        for (i, c) in text.chars().enumerate() {
            match c {
                '1' => bits |= 1 << i,
                '0' => {}
                _ => return None,
            }
        }
        Some(LaneMask::new(bits, text.len()))
    }

    pub fn count(self) -> u32 {
        self.bits.count_ones()
    }

    /// Lane indices whose bit is set, lowest first.
    pub fn iter(self) -> impl Iterator<Item = usize> {
        (0..self.lanes as usize).filter(move |l| self.bits >> l & 1 == 1)
    }
}

impl fmt::Display for LaneMask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for l in 0..self.lanes {
            f.write_str(if self.bits >> l & 1 == 1 { "1" } else { "0" })?;
        }
        Ok(())
    }
}

/// All-ones mask of the low `lanes` bits.
pub fn full(lanes: usize) -> u32 {
    if lanes >= 32 {
        u32::MAX
    } else {
        (1u32 << lanes) - 1
    }
}

/// Compact lane list for reports: `0-3,7`.
pub fn lane_list(bits: u32) -> String {
    let mut out = Vec::new();
    let mut l = 0;
    while l < 32 {
        if bits >> l & 1 == 1 {
            let start = l;
            while l + 1 < 32 && bits >> (l + 1) & 1 == 1 {
                l += 1;
            }
            out.push(if start == l {
                format!("{start}")
            } else {
                format!("{start}-{l}")
            });
        }
        l += 1;
    }
    out.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_form_is_lane_zero_first() {
        let m = LaneMask::new(0b0011, 4);
        assert_eq!(m.to_string(), "1100");
        assert_eq!(LaneMask::parse("1100"), Some(m));
        assert_eq!(lane_list(0b1000_1111), "0-3,7");
    }
}
