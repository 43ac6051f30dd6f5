//! `workqueue.cu` (Bulavintsev's two-level work queue): every thread runs
//! `outer_iters` outer iterations; in each, `outer_work` steps of outer
//! work, then its inner elements (`items[tid * outer_iters + a]`), each
//! taking `inner_work` steps, unless it is one of the `k` lanes of its
//! group chosen to leave early. `out[tid]` is the final work hash,
//! `useful[tid]` the number of inner elements processed.

use concord_isa::launch::PreparedLaunch;

use crate::memory::{read_named, require, require_len, scalar, total_threads, write_named};

/// The group generator (`LCG_MUL`, `LCG_ADD` in the kernel).
const LCG_MUL: u32 = 1_103_515_245;
const LCG_ADD: u32 = 12_345;

/// One thread's work: (hash, inner elements processed).
fn run_thread(tid: u32, items: &[i32], config: &Config) -> (u32, i32) {
    let group = config.group as u32;
    let lane = (tid % group) as i32;
    let mut state = config.seed ^ (tid / group).wrapping_mul(0x9E37_79B9);
    let mut acc = tid;
    let mut done = 0;
    for a in 0..config.outer_iters.max(0) as usize {
        for _ in 0..config.outer_work.max(0) {
            acc = acc.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        }
        state = state.wrapping_mul(LCG_MUL).wrapping_add(LCG_ADD);
        let first = ((state >> 16) % group) as i32;
        let early = (lane - first + config.group) % config.group < config.k;
        let count = items[tid as usize * config.outer_iters as usize + a];
        if early {
            continue;
        }
        for b in 0..count.max(0) {
            for _ in 0..config.inner_work.max(0) {
                acc = (acc ^ (acc >> 7)).wrapping_mul(31).wrapping_add(b as u32);
            }
            done += 1;
        }
    }
    (acc, done)
}

/// The kernel's scalar parameters.
struct Config {
    outer_iters: i32,
    group: i32,
    k: i32,
    outer_work: i32,
    inner_work: i32,
    seed: u32,
}

pub(crate) fn reference(launch: &PreparedLaunch, memory: &mut [u8]) -> Result<(), String> {
    let config = Config {
        outer_iters: require(
            "outer_iters",
            scalar(launch, 3, "outer_iters")?,
            0..=i32::MAX,
        )?,
        group: require("group", scalar(launch, 4, "group")?, 1..=1024)?,
        k: scalar(launch, 5, "k")?,
        outer_work: scalar(launch, 6, "outer_work")?,
        inner_work: scalar(launch, 7, "inner_work")?,
        seed: scalar(launch, 8, "seed")? as u32,
    };
    let threads = total_threads(launch);
    require_len(launch, "items", threads * config.outer_iters as usize)?;
    require_len(launch, "out", threads)?;
    require_len(launch, "useful", threads)?;
    let items = read_named(launch, memory, "items")?;
    let mut out = read_named(launch, memory, "out")?;
    let mut useful = read_named(launch, memory, "useful")?;
    for tid in 0..threads {
        let (hash, done) = run_thread(tid as u32, &items, &config);
        out[tid] = hash as i32;
        useful[tid] = done;
    }
    write_named(launch, memory, "out", &out)?;
    write_named(launch, memory, "useful", &useful)
}
