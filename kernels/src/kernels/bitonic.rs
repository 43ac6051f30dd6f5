//! `bitonic.cu`: `data[0..n)` sorted ascending by one block.

use concord_isa::launch::PreparedLaunch;

use crate::memory::{read_named, require, require_1d_block, require_len, scalar, write_named};

/// The kernel's shared key array (`MAX_N`).
const MAX_N: i32 = 1024;

pub(crate) fn reference(launch: &PreparedLaunch, memory: &mut [u8]) -> Result<(), String> {
    let n = require("n", scalar(launch, 1, "n")?, 0..=MAX_N)? as usize;
    require_1d_block(launch, usize::MAX)?;
    if launch.grid_blocks() != 1 {
        return Err("bitonic sorts with one block: the grid must be [1]".to_string());
    }
    require_len(launch, "data", n)?;
    let mut data = read_named(launch, memory, "data")?;
    data[..n].sort_unstable();
    write_named(launch, memory, "data", &data)
}
