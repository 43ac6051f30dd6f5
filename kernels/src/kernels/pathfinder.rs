//! `pathfinder.cu`: `result[c]` is the cheapest sum of `wall` costs along
//! a path from row 0 to column `c` of the last row that moves one row
//! down per step, to the same column or a neighbouring one.

use concord_isa::launch::PreparedLaunch;

use crate::memory::{read_named, require, require_1d_block, require_len, scalar, write_named};

/// The kernel's shared rows (`MAX_COLS`).
const MAX_COLS: i32 = 1024;

pub(crate) fn reference(launch: &PreparedLaunch, memory: &mut [u8]) -> Result<(), String> {
    let rows = require("rows", scalar(launch, 2, "rows")?, 1..=i32::MAX)? as usize;
    let cols = require("cols", scalar(launch, 3, "cols")?, 0..=MAX_COLS)? as usize;
    require_1d_block(launch, usize::MAX)?;
    if launch.grid_blocks() != 1 {
        return Err("pathfinder runs in one block: the grid must be [1]".to_string());
    }
    require_len(launch, "wall", rows * cols)?;
    require_len(launch, "result", cols)?;
    let wall = read_named(launch, memory, "wall")?;
    let mut result = read_named(launch, memory, "result")?;
    let mut cost: Vec<i32> = wall[..cols].to_vec();
    for r in 1..rows {
        cost = (0..cols)
            .map(|c| {
                let lo = c.saturating_sub(1);
                let hi = (c + 1).min(cols - 1);
                let best = cost[lo..=hi].iter().copied().min().unwrap_or(0);
                wall[r * cols + c].wrapping_add(best)
            })
            .collect();
    }
    result[..cols].copy_from_slice(&cost);
    write_named(launch, memory, "result", &result)
}
