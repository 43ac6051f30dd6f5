//! `spmv.cu`: `y[r] = sum over e in row_ptr[r]..row_ptr[r+1] of
//! vals[e] * x[col_idx[e]]` for every row `r < rows` with a thread.

use concord_isa::launch::PreparedLaunch;

use crate::memory::{read_named, require, require_len, scalar, total_threads, write_named};

pub(crate) fn reference(launch: &PreparedLaunch, memory: &mut [u8]) -> Result<(), String> {
    let rows = require("rows", scalar(launch, 5, "rows")?, 0..=i32::MAX)? as usize;
    let covered = rows.min(total_threads(launch));
    require_len(launch, "row_ptr", rows + 1)?;
    require_len(launch, "y", rows)?;
    let row_ptr = read_named(launch, memory, "row_ptr")?;
    let col_idx = read_named(launch, memory, "col_idx")?;
    let vals = read_named(launch, memory, "vals")?;
    let x = read_named(launch, memory, "x")?;
    let mut y = read_named(launch, memory, "y")?;
    for r in 0..covered {
        let (start, end) = (row_ptr[r], row_ptr[r + 1]);
        let mut sum = 0i32;
        for e in start.max(0) as usize..end.max(0) as usize {
            let (value, col) = vals
                .get(e)
                .zip(col_idx.get(e))
                .ok_or_else(|| format!("row {r}: entry {e} is past the end of vals or col_idx"))?;
            let xv = usize::try_from(*col)
                .ok()
                .and_then(|c| x.get(c))
                .ok_or_else(|| format!("row {r}: column {col} is outside x"))?;
            sum = sum.wrapping_add(value.wrapping_mul(*xv));
        }
        y[r] = sum;
    }
    write_named(launch, memory, "y", &y)
}
