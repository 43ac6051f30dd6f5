//! `scan.cu`: each block's inclusive prefix sums of its `blockDim`
//! elements (zeros past `n`) go to `out[i]` for `i < n`, and the block's
//! total to `block_sums[block]`.

use concord_isa::launch::PreparedLaunch;

use crate::memory::{read_named, require, require_1d_block, require_len, scalar, write_named};

/// The kernel's shared rows (`MAX_BLOCK`).
const MAX_BLOCK: usize = 256;

pub(crate) fn reference(launch: &PreparedLaunch, memory: &mut [u8]) -> Result<(), String> {
    let n = require("n", scalar(launch, 3, "n")?, 0..=i32::MAX)? as usize;
    let block = require_1d_block(launch, MAX_BLOCK)?;
    let blocks = launch.grid_blocks() as usize;
    let covered = n.min(blocks * block);
    require_len(launch, "in", covered)?;
    require_len(launch, "out", covered)?;
    require_len(launch, "block_sums", blocks)?;
    let input = read_named(launch, memory, "in")?;
    let mut out = read_named(launch, memory, "out")?;
    let mut block_sums = read_named(launch, memory, "block_sums")?;
    for (b, block_sum) in block_sums.iter_mut().enumerate().take(blocks) {
        let mut running = 0i32;
        for t in 0..block {
            let i = b * block + t;
            if i < n {
                running = running.wrapping_add(input[i]);
                out[i] = running;
            }
        }
        *block_sum = running;
    }
    write_named(launch, memory, "out", &out)?;
    write_named(launch, memory, "block_sums", &block_sums)
}
