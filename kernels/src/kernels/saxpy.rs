//! `saxpy.cu`: `y[i] = ((a * x[i]) >> 8) + y[i]` for `i < n` (Q8 `a`,
//! arithmetic shift), every element covered by the grid-stride loop.

use concord_isa::launch::PreparedLaunch;

use crate::memory::{read_named, require, require_len, scalar, write_named};

/// Fractional bits of `a` (`FRAC` in the kernel).
const FRAC: u32 = 8;

pub(crate) fn reference(launch: &PreparedLaunch, memory: &mut [u8]) -> Result<(), String> {
    let a = scalar(launch, 0, "a")?;
    let n = require("n", scalar(launch, 3, "n")?, 0..=i32::MAX)? as usize;
    require_len(launch, "x", n)?;
    require_len(launch, "y", n)?;
    let x = read_named(launch, memory, "x")?;
    let mut y = read_named(launch, memory, "y")?;
    for i in 0..n {
        y[i] = (a.wrapping_mul(x[i]) >> FRAC).wrapping_add(y[i]);
    }
    write_named(launch, memory, "y", &y)
}
