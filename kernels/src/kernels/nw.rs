//! `nw.cu`: the Needleman-Wunsch score matrix, `(la + 1) x (lb + 1)`
//! row-major: `score[i][0] = -i * gap`, `score[0][j] = -j * gap`, and
//! `score[i][j] = max(score[i-1][j-1] + sim[a[i-1]][b[j-1]],
//! score[i-1][j] - gap, score[i][j-1] - gap)`, filled row by row here.

use concord_isa::launch::PreparedLaunch;

use crate::memory::{read_named, require, require_1d_block, require_len, scalar, write_named};

pub(crate) fn reference(launch: &PreparedLaunch, memory: &mut [u8]) -> Result<(), String> {
    let la = require("la", scalar(launch, 4, "la")?, 0..=4096)? as usize;
    let lb = require("lb", scalar(launch, 5, "lb")?, 0..=4096)? as usize;
    let gap = scalar(launch, 6, "gap")?;
    require_1d_block(launch, usize::MAX)?;
    if launch.grid_blocks() != 1 {
        return Err("nw runs in one block: the grid must be [1]".to_string());
    }
    require_len(launch, "seq_a", la)?;
    require_len(launch, "seq_b", lb)?;
    require_len(launch, "sim", 16)?;
    let w = lb + 1;
    require_len(launch, "score", (la + 1) * w)?;
    let a = read_named(launch, memory, "seq_a")?;
    let b = read_named(launch, memory, "seq_b")?;
    let sim = read_named(launch, memory, "sim")?;
    if let Some((i, v)) = a[..la]
        .iter()
        .chain(&b[..lb])
        .enumerate()
        .find(|(_, v)| !(0..4).contains(*v))
    {
        return Err(format!(
            "base {i} of the sequences is {v}; bases must be 0..=3"
        ));
    }
    let mut score = read_named(launch, memory, "score")?;
    for i in 0..=la {
        score[i * w] = (i as i32).wrapping_neg().wrapping_mul(gap);
    }
    for (j, cell) in score.iter_mut().enumerate().take(lb + 1) {
        *cell = (j as i32).wrapping_neg().wrapping_mul(gap);
    }
    for i in 1..=la {
        for j in 1..=lb {
            let similarity = sim[(a[i - 1] * 4 + b[j - 1]) as usize];
            let diagonal = score[(i - 1) * w + j - 1].wrapping_add(similarity);
            let up = score[(i - 1) * w + j].wrapping_sub(gap);
            let left = score[i * w + j - 1].wrapping_sub(gap);
            score[i * w + j] = diagonal.max(up).max(left);
        }
    }
    write_named(launch, memory, "score", &score)
}
