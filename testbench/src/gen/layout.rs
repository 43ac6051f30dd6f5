//! Where a generated program keeps its data, in shared and in global memory.
//!
//! Every region has an owner discipline that keeps the final state
//! independent of how warps interleave (see the module docs of `gen`):
//! per-thread regions are written by their owner only, read-only regions are
//! never written, mailboxes and accumulators change hands only at barriers.

/// A per-thread region: `words` words per thread, either interleaved
/// (`stride == 0`: word `j` of thread `t` at `j * n + t`) or strided (word
/// `j` of thread `t` at `t * stride + j`, so consecutive lanes are `stride`
/// words apart: bank conflicts for strides 2, 4, 8...).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Own {
    pub base: u32,
    pub stride: u32,
    pub words: u32,
}

impl Own {
    /// Byte address of word `j` of thread `t` when `n` threads share it.
    pub fn addr(&self, n: u32, t: u32, j: u32) -> u32 {
        if self.stride == 0 {
            self.base + (j * n + t) * 4
        } else {
            self.base + (t * self.stride + j) * 4
        }
    }

    pub fn bytes(&self, n: u32) -> u32 {
        let per = if self.stride == 0 {
            self.words
        } else {
            self.stride
        };
        per * n * 4
    }
}

/// Words of the block-wide accumulators: one per commutative atomic
/// operation, so that the final value does not depend on the order.
pub(crate) const ACC_WORDS: u32 = 8;
/// Read-only table in shared memory (filled before the first barrier).
pub(crate) const SHARED_RO_WORDS: u32 = 32;
/// Read-only table in global memory (the initial image).
pub(crate) const GLOBAL_RO_WORDS: u32 = 64;
/// Recursion stack per thread: up to `MAX_FRAMES` frames (saved link and
/// one local).
pub(crate) const STACK_BYTES: u32 = MAX_FRAMES * FRAME_BYTES;
pub(crate) const MAX_FRAMES: u32 = 8;
pub(crate) const FRAME_BYTES: u32 = 8;

#[derive(Clone, Debug)]
pub(crate) struct Layout {
    /// Threads per block, blocks, lanes per warp.
    pub t: u32,
    pub blocks: u32,
    pub lanes: u32,

    // Shared memory (byte offsets), zero-sized without the shared feature.
    /// Block accumulators (`ACC_WORDS`).
    pub s_acc: u32,
    /// One word per warp: written by whole-warp instructions, read anywhere.
    pub s_ws: u32,
    /// Read-only table (`SHARED_RO_WORDS`), valid after the first barrier.
    pub s_ro: u32,
    /// Per-thread words: interleaved, stride 2, stride 4, stride 8.
    pub s_own: [Own; 4],
    /// Mailbox: interleaved, 2 words per thread, read by others in read phases.
    pub s_mb: Own,
    pub shared_bytes: u32,

    // Global memory (byte addresses).
    /// Read-only table (`GLOBAL_RO_WORDS`).
    pub g_ro: u32,
    /// Per-thread words, indexed by the global thread id: interleaved (2
    /// words) then stride 4 (4 words).
    pub g_own: [Own; 2],
    /// Per-block mailboxes: block `b` at `g_mb + b * g_mb_block`, inside it
    /// interleaved with 2 words per thread.
    pub g_mb: u32,
    pub g_mb_block: u32,
    /// Per-block accumulators (`ACC_WORDS` words per block).
    pub g_bacc: u32,
    /// Grid accumulators (`ACC_WORDS` words), never read by the program.
    pub g_gacc: u32,
    /// Recursion stacks, `STACK_BYTES` per global thread.
    pub g_stack: u32,
    /// Final checksums: 2 words per global thread.
    pub g_cs: u32,
    pub global_bytes: u32,
}

/// Kernel parameter words, in `ldparam` order.
pub(crate) const PARAM_NAMES: [&str; 11] = [
    "priv", "ro", "mbox", "bacc", "gacc", "stack", "csum", "d0", "d1", "d2", "d3",
];
/// Indices into `PARAM_NAMES` used by index (the others are named in the
/// assembly text).
pub(crate) const P_MB: u32 = 2;
pub(crate) const P_BACC: u32 = 3;
pub(crate) const P_DATA: u32 = 7;
pub(crate) const DATA_PARAMS: u32 = 4;

impl Layout {
    pub fn new(t: u32, blocks: u32, lanes: u32, shared: bool) -> Layout {
        let tt = t * blocks;

        let mut s = 0;
        let mut take = |bytes: u32| {
            let at = s;
            s += bytes;
            at
        };
        let s_acc = take(ACC_WORDS * 4);
        let s_ws = take(16 * 4); // up to 16 warps
        let s_ro = take(SHARED_RO_WORDS * 4);
        let mut s_own = [Own {
            base: 0,
            stride: 0,
            words: 2,
        }; 4];
        for (i, stride) in [0, 2, 4, 8].into_iter().enumerate() {
            let o = Own {
                base: 0,
                stride,
                words: 2,
            };
            s_own[i] = Own {
                base: take(o.bytes(t)),
                ..o
            };
        }
        let mb = Own {
            base: 0,
            stride: 0,
            words: 2,
        };
        let s_mb = Own {
            base: take(mb.bytes(t)),
            ..mb
        };
        let shared_bytes = if shared { s } else { 0 };

        let mut g = 64;
        let mut take = |bytes: u32| {
            let at = g;
            g += bytes;
            at
        };
        let g_ro = take(GLOBAL_RO_WORDS * 4);
        let inter = Own {
            base: 0,
            stride: 0,
            words: 2,
        };
        let strided = Own {
            base: 0,
            stride: 4,
            words: 4,
        };
        let g_own = [
            Own {
                base: take(inter.bytes(tt)),
                ..inter
            },
            Own {
                base: take(strided.bytes(tt)),
                ..strided
            },
        ];
        let g_mb_block = mb.bytes(t);
        let g_mb = take(g_mb_block * blocks);
        let g_bacc = take(ACC_WORDS * 4 * blocks);
        let g_gacc = take(ACC_WORDS * 4);
        let g_stack = take(STACK_BYTES * tt);
        let g_cs = take(8 * tt);
        let global_bytes = g.max(64).next_multiple_of(4);

        Layout {
            t,
            blocks,
            lanes,
            s_acc,
            s_ws,
            s_ro,
            s_own,
            s_mb,
            shared_bytes,
            g_ro,
            g_own,
            g_mb,
            g_mb_block,
            g_bacc,
            g_gacc,
            g_stack,
            g_cs,
            global_bytes,
        }
    }

    /// Parameter words matching `PARAM_NAMES`; the data words are random.
    pub fn params(&self, data: [u32; DATA_PARAMS as usize]) -> Vec<u32> {
        let mut p = vec![
            self.g_own[0].base,
            self.g_ro,
            self.g_mb,
            self.g_bacc,
            self.g_gacc,
            self.g_stack,
            self.g_cs,
        ];
        p.extend_from_slice(&data);
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_do_not_overlap() {
        for (t, blocks, lanes) in [(1, 1, 4), (13, 3, 4), (256, 2, 32), (64, 1, 8)] {
            let l = Layout::new(t, blocks, lanes, true);
            let mut spans = vec![
                (l.s_acc, ACC_WORDS * 4),
                (l.s_ws, 64),
                (l.s_ro, SHARED_RO_WORDS * 4),
                (l.s_mb.base, l.s_mb.bytes(t)),
            ];
            for o in l.s_own {
                spans.push((o.base, o.bytes(t)));
            }
            spans.sort();
            for w in spans.windows(2) {
                assert!(w[0].0 + w[0].1 <= w[1].0, "{spans:?}");
            }
            let last = spans.last().unwrap();
            assert!(last.0 + last.1 <= l.shared_bytes);
            let tt = t * blocks;
            let mut g = vec![
                (l.g_ro, GLOBAL_RO_WORDS * 4),
                (l.g_mb, l.g_mb_block * blocks),
                (l.g_bacc, ACC_WORDS * 4 * blocks),
                (l.g_gacc, ACC_WORDS * 4),
                (l.g_stack, STACK_BYTES * tt),
                (l.g_cs, 8 * tt),
            ];
            for o in l.g_own {
                g.push((o.base, o.bytes(tt)));
            }
            g.sort();
            for w in g.windows(2) {
                assert!(w[0].0 + w[0].1 <= w[1].0, "{g:?}");
            }
            let last = g.last().unwrap();
            assert!(last.0 + last.1 <= l.global_bytes);
            assert_eq!(l.global_bytes % 4, 0);
        }
    }

    #[test]
    fn own_addresses_are_disjoint_between_threads() {
        let l = Layout::new(7, 1, 4, true);
        let mut seen = std::collections::HashSet::new();
        for o in l.s_own.iter().chain([&l.s_mb]) {
            for t in 0..7 {
                for j in 0..o.words {
                    assert!(seen.insert(o.addr(7, t, j)));
                }
            }
        }
    }
}
