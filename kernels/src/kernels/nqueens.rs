//! `nqueens.cu` and `nqueens_stack.cu`: for every prefix `p < n * n` with
//! a thread, `counts[p]` is the number of ways to complete an `n`-queens
//! board whose rows 0 and 1 hold queens in columns `p / n` and `p % n`;
//! `total[0]` gains their sum. Counted here by plain backtracking over
//! column positions, not over bitmasks as the kernels do.

use concord_isa::launch::PreparedLaunch;

use crate::memory::{read_named, require, require_len, scalar, total_threads, write_named};

/// The largest board the kernels support (`MAX_N` in the stack variant;
/// the recursive one is bound by the call depth).
const MAX_N: i32 = 10;

/// Whether a queen at (`row`, `col`) is attacked by the queens `placed`
/// (one column per earlier row).
fn attacked(placed: &[usize], row: usize, col: usize) -> bool {
    placed
        .iter()
        .enumerate()
        .any(|(r, &c)| c == col || row - r == c.abs_diff(col))
}

/// Completions of `placed` to a full board of `n` rows.
fn complete(n: usize, placed: &mut Vec<usize>) -> i32 {
    let row = placed.len();
    if row == n {
        return 1;
    }
    let mut count = 0;
    for col in 0..n {
        if !attacked(placed, row, col) {
            placed.push(col);
            count += complete(n, placed);
            placed.pop();
        }
    }
    count
}

pub(crate) fn reference(launch: &PreparedLaunch, memory: &mut [u8]) -> Result<(), String> {
    let n = require("n", scalar(launch, 0, "n")?, 4..=MAX_N)? as usize;
    let prefixes = (n * n).min(total_threads(launch));
    require_len(launch, "counts", prefixes)?;
    require_len(launch, "total", 1)?;
    let mut counts = read_named(launch, memory, "counts")?;
    let mut total = read_named(launch, memory, "total")?;
    for (p, slot) in counts.iter_mut().enumerate().take(prefixes) {
        let (c0, c1) = (p / n, p % n);
        let mut placed = vec![c0];
        *slot = if attacked(&placed, 1, c1) {
            0
        } else {
            placed.push(c1);
            complete(n, &mut placed)
        };
        total[0] = total[0].wrapping_add(*slot);
    }
    write_named(launch, memory, "counts", &counts)?;
    write_named(launch, memory, "total", &total)
}
