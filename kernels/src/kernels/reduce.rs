//! `reduce.cu`: block `b` sums the elements `i < n` with
//! `i mod (gridDim * blockDim)` in block `b`'s thread range into
//! `partial[b]`; `total[0]` gains the sum of all of them.

use concord_isa::launch::PreparedLaunch;

use crate::memory::{
    read_named, require, require_1d_block, require_len, scalar, total_threads, write_named,
};

/// The kernel's shared array size (`MAX_BLOCK`).
const MAX_BLOCK: usize = 256;

pub(crate) fn reference(launch: &PreparedLaunch, memory: &mut [u8]) -> Result<(), String> {
    let n = require("n", scalar(launch, 3, "n")?, 0..=i32::MAX)? as usize;
    let block = require_1d_block(launch, MAX_BLOCK)?;
    let blocks = launch.grid_blocks() as usize;
    let stride = total_threads(launch);
    require_len(launch, "in", n)?;
    require_len(launch, "partial", blocks)?;
    require_len(launch, "total", 1)?;
    let input = read_named(launch, memory, "in")?;
    let mut partial = read_named(launch, memory, "partial")?;
    let mut total = read_named(launch, memory, "total")?;
    // Blocks write their sums over whatever `partial` held; the sums are
    // computed from zero.
    let mut sums = vec![0i32; blocks];
    for (i, value) in input.iter().take(n).enumerate() {
        let b = (i % stride) / block;
        sums[b] = sums[b].wrapping_add(*value);
    }
    partial[..blocks].copy_from_slice(&sums);
    for s in &sums {
        total[0] = total[0].wrapping_add(*s);
    }
    write_named(launch, memory, "partial", &partial)?;
    write_named(launch, memory, "total", &total)
}
