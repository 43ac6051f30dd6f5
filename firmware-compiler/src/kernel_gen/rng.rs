//! The generator's random source: the project's SplitMix64
//! ([`concord_isa::launch::SplitMix64`], the same generator `fill: random`
//! uses) with the few draws the kernel generator needs. Every draw is total:
//! an empty choice gives `None` instead of panicking.

use concord_isa::launch::SplitMix64;

/// A seeded stream of choices. The same seed gives the same kernel.
pub(super) struct Rng {
    inner: SplitMix64,
}

impl Rng {
    pub(super) fn new(seed: u64) -> Rng {
        Rng {
            inner: SplitMix64::new(seed),
        }
    }

    /// A raw 64-bit draw (used to derive the seeds of the input buffers).
    pub(super) fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// Uniform in `0..n`; 0 when `n` is 0.
    pub(super) fn below(&mut self, n: u32) -> u32 {
        if n == 0 {
            return 0;
        }
        (self.inner.next_u64() % u64::from(n)) as u32
    }

    /// Uniform in `lo..=hi` (`lo` when the range is empty).
    pub(super) fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        self.inner.next_in(lo, hi)
    }

    /// True with probability `percent`/100.
    pub(super) fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent
    }

    /// One element of `items`, uniformly; `None` for an empty slice.
    pub(super) fn choose<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        let n = u32::try_from(items.len()).unwrap_or(u32::MAX);
        items.get(self.below(n) as usize)
    }

    /// An index into `weights`, drawn in proportion to the weights. Zero
    /// weights are never drawn; `None` when every weight is zero.
    pub(super) fn weighted(&mut self, weights: &[u32]) -> Option<usize> {
        let total: u32 = weights.iter().sum();
        if total == 0 {
            return None;
        }
        let mut x = self.below(total);
        for (i, &w) in weights.iter().enumerate() {
            if x < w {
                return Some(i);
            }
            x -= w;
        }
        None
    }
}
