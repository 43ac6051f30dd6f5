//! `bfs.cu`: `dist[v]` is the number of edges on a shortest path from
//! `source` to `v` in the CSR graph, or -1 when there is none; `frontier`
//! and `next` end all zero. Computed here with a FIFO queue.

use std::collections::VecDeque;

use concord_isa::launch::PreparedLaunch;

use crate::memory::{read_named, require, require_1d_block, require_len, scalar, write_named};

pub(crate) fn reference(launch: &PreparedLaunch, memory: &mut [u8]) -> Result<(), String> {
    let nodes = require("nodes", scalar(launch, 5, "nodes")?, 0..=i32::MAX)? as usize;
    let source = scalar(launch, 6, "source")?;
    require_1d_block(launch, usize::MAX)?;
    if launch.grid_blocks() != 1 {
        return Err("bfs runs in one block: the grid must be [1]".to_string());
    }
    require_len(launch, "row_ptr", nodes + 1)?;
    for name in ["dist", "frontier", "next"] {
        require_len(launch, name, nodes)?;
    }
    let row_ptr = read_named(launch, memory, "row_ptr")?;
    let col_idx = read_named(launch, memory, "col_idx")?;
    let edges = |v: usize| -> Result<&[i32], String> {
        let (start, end) = (row_ptr[v], row_ptr[v + 1]);
        if start < 0 || start > end || end as usize > col_idx.len() {
            return Err(format!(
                "row_ptr[{v}..={}] = {start}..{end} is not a valid edge range",
                v + 1
            ));
        }
        Ok(&col_idx[start as usize..end as usize])
    };
    let mut dist = read_named(launch, memory, "dist")?;
    let mut frontier = read_named(launch, memory, "frontier")?;
    let mut next = read_named(launch, memory, "next")?;
    for v in 0..nodes {
        dist[v] = -1;
        frontier[v] = 0;
        next[v] = 0;
    }
    if (0..nodes as i32).contains(&source) {
        dist[source as usize] = 0;
        let mut queue = VecDeque::from([source as usize]);
        while let Some(v) = queue.pop_front() {
            for &u in edges(v)? {
                let u = usize::try_from(u)
                    .ok()
                    .filter(|&u| u < nodes)
                    .ok_or_else(|| format!("node {v} has an edge to {u}, not a node"))?;
                if dist[u] < 0 {
                    dist[u] = dist[v] + 1;
                    queue.push_back(u);
                }
            }
        }
    }
    write_named(launch, memory, "dist", &dist)?;
    write_named(launch, memory, "frontier", &frontier)?;
    write_named(launch, memory, "next", &next)
}
