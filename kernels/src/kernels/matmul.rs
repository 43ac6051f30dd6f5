//! `matmul.cu`: `C = A * B` (row-major, `M x K` times `K x N`), for the
//! cells the grid of square `T x T` blocks covers.

use concord_isa::launch::PreparedLaunch;

use crate::memory::{read_named, require, require_len, scalar, write_named};

/// The kernel's tile arrays (`MAX_TILE`).
const MAX_TILE: u32 = 16;

pub(crate) fn reference(launch: &PreparedLaunch, memory: &mut [u8]) -> Result<(), String> {
    let m = require("M", scalar(launch, 3, "M")?, 0..=i32::MAX)? as usize;
    let n = require("N", scalar(launch, 4, "N")?, 0..=i32::MAX)? as usize;
    let k = require("K", scalar(launch, 5, "K")?, 0..=i32::MAX)? as usize;
    let [bx, by, bz] = launch.block;
    if bx != by || bz != 1 || bx > MAX_TILE {
        return Err(format!(
            "matmul needs square 2-D blocks of at most {MAX_TILE} x {MAX_TILE}, got {:?}",
            launch.block
        ));
    }
    let tile = bx as usize;
    let rows = m.min(launch.grid[1] as usize * tile);
    let cols = n.min(launch.grid[0] as usize * tile);
    require_len(launch, "A", m * k)?;
    require_len(launch, "B", k * n)?;
    require_len(launch, "C", m * n)?;
    let a = read_named(launch, memory, "A")?;
    let b = read_named(launch, memory, "B")?;
    let mut c = read_named(launch, memory, "C")?;
    for row in 0..rows {
        for col in 0..cols {
            c[row * n + col] = (0..k).fold(0i32, |acc, j| {
                acc.wrapping_add(a[row * k + j].wrapping_mul(b[j * n + col]))
            });
        }
    }
    write_named(launch, memory, "C", &c)
}
