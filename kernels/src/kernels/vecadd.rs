//! `vecadd.cu`: `c[i] = a[i] + b[i]` for every `i < n` that has a thread.

use concord_isa::launch::PreparedLaunch;

use crate::memory::{read_named, require, require_len, scalar, total_threads, write_named};

pub(crate) fn reference(launch: &PreparedLaunch, memory: &mut [u8]) -> Result<(), String> {
    let n = require("n", scalar(launch, 3, "n")?, 0..=i32::MAX)? as usize;
    let covered = n.min(total_threads(launch));
    for name in ["a", "b", "c"] {
        require_len(launch, name, covered)?;
    }
    let a = read_named(launch, memory, "a")?;
    let b = read_named(launch, memory, "b")?;
    let mut c = read_named(launch, memory, "c")?;
    for i in 0..covered {
        c[i] = a[i].wrapping_add(b[i]);
    }
    write_named(launch, memory, "c", &c)
}
