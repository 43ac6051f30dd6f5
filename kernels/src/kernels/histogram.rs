//! `histogram.cu`: `hist[b]` gains the number of `data[i]`, `i < n`, with
//! `data[i] % nbins == b`.

use concord_isa::launch::PreparedLaunch;

use crate::memory::{read_named, require, require_len, scalar, write_named};

/// The kernel's shared histogram size (`MAX_BINS`).
const MAX_BINS: i32 = 256;

pub(crate) fn reference(launch: &PreparedLaunch, memory: &mut [u8]) -> Result<(), String> {
    let n = require("n", scalar(launch, 2, "n")?, 0..=i32::MAX)? as usize;
    let nbins = require("nbins", scalar(launch, 3, "nbins")?, 1..=MAX_BINS)? as usize;
    require_len(launch, "data", n)?;
    require_len(launch, "hist", nbins)?;
    let data = read_named(launch, memory, "data")?;
    let mut hist = read_named(launch, memory, "hist")?;
    for value in &data[..n] {
        let bin = *value as usize % nbins;
        hist[bin] = hist[bin].wrapping_add(1);
    }
    write_named(launch, memory, "hist", &hist)
}
