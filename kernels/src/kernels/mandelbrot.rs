//! `mandelbrot.cu`: for pixel `(px, py)` of a `width x height` image,
//! `iters[py * width + px]` is the number of Q12 fixed-point steps
//! `z = z^2 + c` (from `z = 0`, `c = (x0 + px * step, y0 + py * step)`)
//! taken while `|z|^2 <= 4`, at most `max_iter`.

use concord_isa::launch::PreparedLaunch;

use crate::memory::{read_named, require, require_len, scalar, write_named};

/// Fractional bits (`FRAC` in the kernel).
const FRAC: u32 = 12;

/// Steps for one point, in the kernel's exact fixed-point arithmetic
/// (products truncated by arithmetic shifts).
fn escape_steps(cr: i32, ci: i32, max_iter: i32) -> i32 {
    let (mut zr, mut zi) = (0i32, 0i32);
    let mut steps = 0;
    while steps < max_iter {
        let zr2 = zr.wrapping_mul(zr) >> FRAC;
        let zi2 = zi.wrapping_mul(zi) >> FRAC;
        if zr2.wrapping_add(zi2) > 4 << FRAC {
            break;
        }
        zi = (zr.wrapping_mul(zi) >> (FRAC - 1)).wrapping_add(ci);
        zr = zr2.wrapping_sub(zi2).wrapping_add(cr);
        steps += 1;
    }
    steps
}

pub(crate) fn reference(launch: &PreparedLaunch, memory: &mut [u8]) -> Result<(), String> {
    let width = require("width", scalar(launch, 1, "width")?, 0..=i32::MAX)? as usize;
    let height = require("height", scalar(launch, 2, "height")?, 0..=i32::MAX)? as usize;
    let max_iter = scalar(launch, 3, "max_iter")?;
    let x0 = scalar(launch, 4, "x0")?;
    let y0 = scalar(launch, 5, "y0")?;
    let step = scalar(launch, 6, "step")?;
    let covered_x = width.min((launch.grid[0] * launch.block[0]) as usize);
    let covered_y = height.min((launch.grid[1] * launch.block[1]) as usize);
    require_len(launch, "iters", width * height)?;
    let mut iters = read_named(launch, memory, "iters")?;
    for py in 0..covered_y {
        for px in 0..covered_x {
            let cr = x0.wrapping_add((px as i32).wrapping_mul(step));
            let ci = y0.wrapping_add((py as i32).wrapping_mul(step));
            iters[py * width + px] = escape_steps(cr, ci, max_iter);
        }
    }
    write_named(launch, memory, "iters", &iters)
}
