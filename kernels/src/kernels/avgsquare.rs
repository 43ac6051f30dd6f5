//! `avgsquare.cu` (Sampaio's `avgSquare`): for every column `t < c` with a
//! thread, `v[t]` is the average of column `t` of the `c x c` matrix `m`,
//! truncated towards zero.

use concord_isa::launch::PreparedLaunch;

use crate::memory::{read_named, require, require_len, scalar, total_threads, write_named};

pub(crate) fn reference(launch: &PreparedLaunch, memory: &mut [u8]) -> Result<(), String> {
    let c = require("c", scalar(launch, 2, "c")?, 0..=46340)? as usize;
    let covered = c.min(total_threads(launch));
    require_len(launch, "m", c * c)?;
    require_len(launch, "v", c)?;
    let m = read_named(launch, memory, "m")?;
    let mut v = read_named(launch, memory, "v")?;
    for (column, slot) in v.iter_mut().enumerate().take(covered) {
        let sum = (0..c).fold(0i32, |acc, row| acc.wrapping_add(m[row * c + column]));
        *slot = sum.wrapping_div(c as i32);
    }
    write_named(launch, memory, "v", &v)
}
