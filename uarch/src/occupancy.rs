//! Block occupancy and shared-memory windows of Core v2
//! (docs/microarchitecture.md §12.1, §12.2): the one rule that every
//! model uses. The functional model needs [`Occupancy::window_bytes`]
//! (§18, amendment 2), the cycle model and the RTL the rest.

use std::fmt;

use crate::params::HwParams;

/// What the occupancy of a launch depends on: the host's launch registers
/// (`BLOCK_*`, `GRID_*`, `SHARED_BYTES`, `STACK_BYTES`, `CLEAR_REGS`,
/// `CLEAR_SHARED`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchShape {
    pub block: [u32; 3],
    pub grid: [u32; 3],
    /// Shared bytes the kernel declares (`.shared`).
    pub shared_bytes: u32,
    /// Per-thread stack bytes (0: none).
    pub stack_bytes: u32,
    /// Registers zeroed per warp at block launch (the kernel's `regs_used`).
    pub clear_regs: u32,
    /// Shared bytes zeroed per block at launch (the kernel's `shared_bytes`).
    pub clear_shared: u32,
}

/// Why the core refuses a launch (§12.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaunchError {
    /// The block has no thread, or more than `L · W`.
    Threads { threads: u32, max: u32 },
    /// A grid dimension is 0.
    EmptyGrid { grid: [u32; 3] },
    /// The kernel's shared memory does not fit the core.
    Shared { bytes: u32, max: u32 },
}

impl fmt::Display for LaunchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaunchError::Threads { threads, max } => write!(
                f,
                "a block of {threads} threads does not fit the core (1..={max} threads: lanes x warps)"
            ),
            LaunchError::EmptyGrid { grid } => {
                write!(f, "the grid {}x{}x{} has no block", grid[0], grid[1], grid[2])
            }
            LaunchError::Shared { bytes, max } => write!(
                f,
                "the kernel's {bytes} bytes of shared memory do not fit the core's {max}"
            ),
        }
    }
}

impl std::error::Error for LaunchError {}

/// The occupancy of a launch (§12.2) and the launch-wide values SETUP
/// computes (§12.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occupancy {
    /// Threads per block (saturating at 2^16, as the hardware counts).
    pub threads: u32,
    /// Warps per block: `ceil(threads / L)`.
    pub nwarps: u32,
    /// Blocks resident at once.
    pub resident: u32,
    /// Shared rows (per bank) of each block's window.
    pub window_rows: u32,
    /// Bytes of each block's shared window: the shared space a block sees.
    pub window_bytes: u32,
    /// Registers zeroed per warp at launch: `min(CLEAR_REGS, R)`.
    pub clear_regs: u32,
    /// Shared rows zeroed per block: `min(ceil(CLEAR_SHARED / 4B), window_rows)`.
    pub clear_rows: u32,
    /// Init slots per block launch: `max(clear_regs · nwarps, clear_rows)`.
    pub n_init: u32,
}

fn ceil_log2(x: u32) -> u32 {
    x.next_power_of_two().trailing_zeros()
}

impl Occupancy {
    /// The occupancy of `shape` on `hw`, or why the core refuses it.
    pub fn new(hw: &HwParams, shape: &LaunchShape) -> Result<Occupancy, LaunchError> {
        let [bx, by, bz] = shape.block;
        let threads = (bx as u64)
            .saturating_mul(by as u64)
            .saturating_mul(bz as u64)
            .min(1 << 16) as u32;
        let max = hw.block_threads;
        if threads == 0 || threads > max {
            return Err(LaunchError::Threads { threads, max });
        }
        if shape.grid.contains(&0) {
            return Err(LaunchError::EmptyGrid { grid: shape.grid });
        }
        let row_bytes = 4 * hw.shared_banks as u32;
        let rows = hw.shared_rows as u32;
        let need_rows = shape.shared_bytes.div_ceil(row_bytes);
        if need_rows > rows {
            return Err(LaunchError::Shared {
                bytes: shape.shared_bytes,
                max: hw.shared_bytes,
            });
        }
        let nwarps = threads.div_ceil(hw.lanes as u32);
        let mut limit = (hw.block_slots as u32).min(hw.warps as u32 / nwarps);
        if shape.stack_bytes > 0 {
            limit = 1;
        }
        // limit >= 1: nwarps <= W because threads <= L · W.
        let resident = (1..=limit)
            .rev()
            .find(|&r| need_rows <= rows >> ceil_log2(r))
            .unwrap_or(1);
        let window_rows = rows >> ceil_log2(resident);
        let clear_regs = shape.clear_regs.min(hw.registers as u32);
        let clear_rows = shape.clear_shared.div_ceil(row_bytes).min(window_rows);
        Ok(Occupancy {
            threads,
            nwarps,
            resident,
            window_rows,
            window_bytes: window_rows * row_bytes,
            clear_regs,
            clear_rows,
            n_init: (clear_regs * nwarps).max(clear_rows),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use concord_isa::config::CoreConfig;

    fn shape(threads: u32, shared: u32, stack: u32) -> LaunchShape {
        LaunchShape {
            block: [threads, 1, 1],
            grid: [4, 1, 1],
            shared_bytes: shared,
            stack_bytes: stack,
            clear_regs: 16,
            clear_shared: shared,
        }
    }

    /// The example table of §12.2 (default core: W = L = 8, ROWS = 512,
    /// max_resident_blocks = 4), values computed by hand in the document.
    #[test]
    fn the_documents_example_table() {
        let hw = HwParams::new(&CoreConfig::default()).unwrap();
        let occ = |t, sh, st| {
            let o = Occupancy::new(&hw, &shape(t, sh, st)).unwrap();
            (o.nwarps, o.resident, o.window_bytes)
        };
        assert_eq!(occ(64, 0, 0), (8, 1, 16 * 1024));
        assert_eq!(occ(64, 4096, 0), (8, 1, 16 * 1024));
        assert_eq!(occ(24, 0, 0), (3, 2, 8 * 1024));
        assert_eq!(occ(16, 1024, 0), (2, 4, 4 * 1024));
        assert_eq!(occ(8, 6000, 0), (1, 2, 8 * 1024));
        assert_eq!(occ(8, 0, 64), (1, 1, 16 * 1024));
    }

    /// §4.4: 64 threads, 16 registers: 128 init slots.
    #[test]
    fn init_slots() {
        let hw = HwParams::new(&CoreConfig::default()).unwrap();
        let o = Occupancy::new(&hw, &shape(64, 0, 0)).unwrap();
        assert_eq!((o.clear_regs, o.clear_rows, o.n_init), (16, 0, 128));
        // 8 threads (one warp), 16 registers, 6000 shared bytes = 188 rows
        // of 32 bytes, window 256 rows: max(16, 188) = 188.
        let o = Occupancy::new(&hw, &shape(8, 6000, 0)).unwrap();
        assert_eq!((o.window_rows, o.clear_rows, o.n_init), (256, 188, 188));
    }

    #[test]
    fn refusals() {
        let hw = HwParams::new(&CoreConfig::default()).unwrap();
        assert!(matches!(
            Occupancy::new(&hw, &shape(65, 0, 0)),
            Err(LaunchError::Threads {
                threads: 65,
                max: 64
            })
        ));
        assert!(matches!(
            Occupancy::new(&hw, &shape(0, 0, 0)),
            Err(LaunchError::Threads { .. })
        ));
        assert!(matches!(
            Occupancy::new(&hw, &shape(8, 16 * 1024 + 1, 0)),
            Err(LaunchError::Shared { .. })
        ));
        // The product of the dimensions saturates (2^67 does not wrap to 0).
        let mut s = shape(1 << 22, 0, 0);
        s.block = [1 << 22, 1 << 16, 1 << 29];
        assert!(matches!(
            Occupancy::new(&hw, &s),
            Err(LaunchError::Threads { threads: 65536, .. })
        ));
        let mut s = shape(8, 0, 0);
        s.grid = [1, 0, 1];
        assert!(matches!(
            Occupancy::new(&hw, &s),
            Err(LaunchError::EmptyGrid { .. })
        ));
    }

    /// `max_resident_blocks: 1` never changes the window.
    #[test]
    fn one_slot_is_the_whole_memory() {
        let hw = HwParams::new(&CoreConfig {
            max_resident_blocks: 1,
            ..CoreConfig::default()
        })
        .unwrap();
        let o = Occupancy::new(&hw, &shape(8, 0, 0)).unwrap();
        assert_eq!((o.resident, o.window_bytes), (1, 16 * 1024));
    }
}
