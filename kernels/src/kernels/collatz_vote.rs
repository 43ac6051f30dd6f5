//! `collatz_vote.cu`: `steps[i]` is the number of Collatz steps
//! (`x -> x / 2` or `3x + 1`, in 32-bit unsigned arithmetic) from
//! `start[i]` to 1, or -1 when that takes more than `LIMIT` steps.

use concord_isa::launch::PreparedLaunch;

use crate::memory::{read_named, require, require_len, scalar, total_threads, write_named};

/// The kernel's step limit (`LIMIT`).
const LIMIT: i32 = 500;

fn steps_to_one(mut x: u32) -> i32 {
    let mut count = 0;
    while x != 1 {
        if count == LIMIT {
            return -1;
        }
        x = if x % 2 == 1 {
            x.wrapping_mul(3).wrapping_add(1)
        } else {
            x / 2
        };
        count += 1;
    }
    count
}

pub(crate) fn reference(launch: &PreparedLaunch, memory: &mut [u8]) -> Result<(), String> {
    let n = require("n", scalar(launch, 2, "n")?, 0..=i32::MAX)? as usize;
    let covered = n.min(total_threads(launch));
    require_len(launch, "start", covered)?;
    require_len(launch, "steps", covered)?;
    let start = read_named(launch, memory, "start")?;
    let mut steps = read_named(launch, memory, "steps")?;
    for i in 0..covered {
        steps[i] = steps_to_one(start[i] as u32);
    }
    write_named(launch, memory, "steps", &steps)
}
