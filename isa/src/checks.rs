//! The run-time checks every model makes before an instruction changes
//! anything: memory accesses (alignment, range, the per-thread stacks) and
//! the next PC. The functional model and the cycle model call these
//! functions; the RTL implements the same rules in gates at stage X
//! (docs/microarchitecture.md §8, §13.1) and the lock-step co-simulation
//! compares the reports.
//!
//! # Order
//!
//! An instruction's own checks come first: for a memory instruction
//! [`check_access`] (misaligned, then out of range, then stack overflow),
//! for `ldparam` the missing parameter, for `call`/`callr` the call depth,
//! for `ret` depth 0. Then the next-PC check ([`check_next_pcs`],
//! [`check_fall_through`]). The first failing check traps; a trapping
//! instruction changes no lane, register, predicate or memory byte.
//!
//! # Stacks
//!
//! A kernel with `stack_bytes = S > 0` (`.stack`) keeps one stack per
//! resident thread at the top of global memory: thread `t` of a block
//! (`s2r %tid` = `warp × lanes + lane`) owns `[G − (t+1)·S, G − t·S)`, `G` =
//! `global_memory_bytes`, for the `N = lanes × warps` threads a block can
//! have. The **guarded region** is `[G − (N+1)·S, G)`: every stack plus a
//! guard zone of `S` bytes below the lowest one. A global access by an
//! executing lane that touches a byte of the guarded region outside the
//! lane's own stack traps with *stack overflow* ([`Stacks::violates`]).
//! Launches keep their buffers below the guarded region
//! (`crate::launch`), so an ordinary buffer access never trips the rule,
//! while a stack that grows past its bottom lands in the neighbour's stack
//! or, for the last thread, in the guard zone. A kernel without a stack
//! (`S = 0`) is never checked.
//!
//! # PCs
//!
//! No lane's PC ever holds an address outside the program: every change of
//! a PC is checked at the instruction that makes it. If an active lane that
//! does not exit would continue at a PC at or beyond the program's length
//! (a `bra`/`call`/consensual branch to such a target, a `jmp`/`callr`/
//! `ret` through a register holding one, or any instruction at the last
//! word whose lanes continue at `pc + 1`), the instruction traps at its own
//! PC with *next PC outside the program*, naming those lanes and the first
//! one's target (all 32 bits of it). PCs therefore need only
//! [`pc_bits`] bits: the RTL's 16-bit PC registers hold every PC of an
//! `imem_words` of at most 65536.

use crate::config::CoreConfig;
use crate::func::TrapCause;
use crate::instr::{Space, MAX_LANES};

/// Bits a lane's PC needs for a core with `imem_words` words of
/// instruction memory: every PC a lane can hold is below the program's
/// length, which is at most `imem_words` (the next-PC check traps before a
/// PC could reach it).
pub fn pc_bits(imem_words: u32) -> u32 {
    imem_words.max(2).next_power_of_two().trailing_zeros()
}

/// The per-thread stacks of a launch (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stacks {
    global_bytes: u32,
    stack_bytes: u32,
    /// `N`: the threads a block can have (`lanes × warps`).
    threads: u32,
}

impl Stacks {
    /// The stacks of a kernel with `stack_bytes` per thread on `config`.
    pub fn new(config: &CoreConfig, stack_bytes: u32) -> Stacks {
        Stacks::for_core(
            config.global_memory_bytes,
            config.lanes,
            config.warps,
            stack_bytes,
        )
    }

    /// The same from the configuration fields it depends on.
    pub fn for_core(global_bytes: u32, lanes: u32, warps: u32, stack_bytes: u32) -> Stacks {
        Stacks {
            global_bytes,
            stack_bytes,
            threads: lanes * warps,
        }
    }

    /// `S`, the bytes per thread (0: no stack).
    pub fn stack_bytes(&self) -> u32 {
        self.stack_bytes
    }

    /// Bytes at the top of global memory that the stacks and the guard zone
    /// take: `(N + 1) · S` (0 without a stack). A launch keeps its buffers
    /// below `G` minus this.
    pub fn guarded_bytes(&self) -> u64 {
        (self.threads as u64 + 1) * self.stack_bytes as u64
    }

    /// The lowest guarded address, `G − (N+1)·S` (0 if that is negative,
    /// which a valid launch never has; `G` without a stack).
    pub fn guarded_from(&self) -> u32 {
        (self.global_bytes as u64).saturating_sub(self.guarded_bytes()) as u32
    }

    /// Thread `t`'s stack `[lo, hi)`: `[G − (t+1)·S, G − t·S)`.
    pub fn of_thread(&self, t: u32) -> (u32, u32) {
        let g = self.global_bytes as u64;
        let s = self.stack_bytes as u64;
        let hi = g.saturating_sub(t as u64 * s);
        (hi.saturating_sub(s) as u32, hi as u32)
    }

    /// Whether an access of `bytes` bytes at `addr` by thread `t` breaks the
    /// stack rule: it touches the guarded region but does not lie inside
    /// the thread's own stack. Never with `S = 0`.
    pub fn violates(&self, t: u32, addr: u32, bytes: u32) -> bool {
        if self.stack_bytes == 0 {
            return false;
        }
        let end = addr as u64 + bytes as u64;
        let (lo, hi) = self.of_thread(t);
        let guarded = end > self.guarded_from() as u64 && addr < self.global_bytes;
        let own = addr >= lo && end <= hi as u64;
        guarded && !own
    }
}

/// Checks the access of every executing lane (`exec`) of one memory
/// instruction before any lane performs it: `bytes` bytes at `addrs[l]` in
/// `space`, which holds `size` bytes. Global accesses are also checked
/// against `stacks`, lane `l` being thread `first_thread + l` (the warp's
/// first thread: `warp × lanes`). On failure, the faulting lanes and the
/// cause, whose address is the lowest faulting lane's; misaligned lanes are
/// reported first, then out-of-range lanes, then stack overflows.
pub fn check_access(
    space: Space,
    size: u32,
    addrs: &[u32; MAX_LANES],
    exec: u32,
    bytes: u32,
    stacks: &Stacks,
    first_thread: u32,
) -> Result<(), (u32, TrapCause)> {
    let mut bad_align = 0u32;
    let mut bad_range = 0u32;
    let mut bad_stack = 0u32;
    let check_stack = space == Space::Global && stacks.stack_bytes != 0;
    for (l, &a) in addrs.iter().enumerate() {
        if exec >> l & 1 == 1 {
            if a % bytes != 0 {
                bad_align |= 1 << l;
            } else if a as u64 + bytes as u64 > size as u64 {
                bad_range |= 1 << l;
            } else if check_stack && stacks.violates(first_thread + l as u32, a, bytes) {
                bad_stack |= 1 << l;
            }
        }
    }
    let first = |m: u32| m.trailing_zeros() as usize;
    if bad_align != 0 {
        let addr = addrs[first(bad_align)];
        return Err((bad_align, TrapCause::Misaligned { space, addr, bytes }));
    }
    if bad_range != 0 {
        let addr = addrs[first(bad_range)];
        return Err((
            bad_range,
            TrapCause::AddressOutOfRange {
                space,
                addr,
                bytes,
                size,
            },
        ));
    }
    if bad_stack != 0 {
        let l = first(bad_stack);
        let thread = first_thread + l as u32;
        let (lo, hi) = stacks.of_thread(thread);
        return Err((
            bad_stack,
            TrapCause::StackOverflow {
                addr: addrs[l],
                bytes,
                thread,
                lo,
                hi,
            },
        ));
    }
    Ok(())
}

/// The next-PC check of a control instruction: lane `l` of `moving` (the
/// active lanes that do not exit) continues at `next[l]`. On failure, the
/// lanes whose next PC is not below `code_len` and the cause with the
/// lowest such lane's target.
pub fn check_next_pcs(
    code_len: u32,
    moving: u32,
    next: &[u32; MAX_LANES],
) -> Result<(), (u32, TrapCause)> {
    let mut bad = 0u32;
    for (l, &pc) in next.iter().enumerate() {
        if moving >> l & 1 == 1 && pc >= code_len {
            bad |= 1 << l;
        }
    }
    if bad == 0 {
        return Ok(());
    }
    let target = next[bad.trailing_zeros() as usize];
    Err((
        bad,
        TrapCause::NextPcOutOfRange {
            target,
            len: code_len,
        },
    ))
}

/// The next-PC check of any other instruction at `pc`: all `active` lanes
/// continue at `pc + 1`.
pub fn check_fall_through(code_len: u32, pc: u32, active: u32) -> Result<(), (u32, TrapCause)> {
    let target = pc as u64 + 1;
    if active != 0 && target >= code_len as u64 {
        return Err((
            active,
            TrapCause::NextPcOutOfRange {
                target: target as u32,
                len: code_len,
            },
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stacks(global: u32, s: u32, lanes: u32, warps: u32) -> Stacks {
        let config = CoreConfig {
            global_memory_bytes: global,
            lanes,
            warps,
            ..CoreConfig::default()
        };
        Stacks::new(&config, s)
    }

    #[test]
    fn thread_stacks_and_the_guard_zone_by_hand() {
        // G = 4096, S = 64, N = 4 x 2 = 8: stacks 0xe00..0x1000, guard 0xdc0..0xe00.
        let s = stacks(4096, 64, 4, 2);
        assert_eq!(s.of_thread(0), (4032, 4096));
        assert_eq!(s.of_thread(7), (3584, 3648));
        assert_eq!(s.guarded_from(), 3520);
        assert_eq!(s.guarded_bytes(), 576);
        // Own stack, first and last word.
        assert!(!s.violates(0, 4032, 4));
        assert!(!s.violates(0, 4092, 4));
        assert!(!s.violates(7, 3584, 1));
        // One word below the own stack: the neighbour's (thread 1's) top word.
        assert!(s.violates(0, 4028, 4));
        // Above the own stack: thread 0's, seen from thread 1.
        assert!(s.violates(1, 4032, 2));
        // The guard zone, below thread 7's stack.
        assert!(s.violates(7, 3580, 4));
        assert!(s.violates(7, 3520, 4));
        // Below the guard: an ordinary access.
        assert!(!s.violates(7, 3516, 4));
        assert!(!s.violates(0, 0, 4));
    }

    #[test]
    fn no_stack_no_check() {
        let s = stacks(4096, 0, 4, 2);
        assert_eq!(s.guarded_from(), 4096);
        assert!(!s.violates(0, 4092, 4));
        assert!(!s.violates(3, 0, 4));
    }

    #[test]
    fn access_checks_report_in_order_with_the_lowest_lane() {
        let s = stacks(4096, 64, 4, 2);
        let mut addrs = [0u32; MAX_LANES];
        // Warp 1 (threads 4..7): lane 0 misaligned, lane 1 out of range,
        // lane 2 (thread 6) at the bottom of its own stack, lane 3 (thread 7)
        // in thread 2's stack.
        addrs[0] = 2;
        addrs[1] = 4096;
        addrs[2] = 4096 - 7 * 64;
        addrs[3] = 4096 - 3 * 64;
        let (lanes, cause) =
            check_access(Space::Global, 4096, &addrs, 0b1111, 4, &s, 4).unwrap_err();
        assert_eq!(lanes, 0b0001);
        assert!(matches!(cause, TrapCause::Misaligned { addr: 2, .. }));
        let (lanes, cause) =
            check_access(Space::Global, 4096, &addrs, 0b1110, 4, &s, 4).unwrap_err();
        assert_eq!(lanes, 0b0010);
        assert!(matches!(
            cause,
            TrapCause::AddressOutOfRange { addr: 4096, .. }
        ));
        let (lanes, cause) =
            check_access(Space::Global, 4096, &addrs, 0b1100, 4, &s, 4).unwrap_err();
        assert_eq!(lanes, 0b1000);
        assert_eq!(
            cause,
            TrapCause::StackOverflow {
                addr: 3904,
                bytes: 4,
                thread: 7,
                lo: 3584,
                hi: 3648
            }
        );
        assert!(check_access(Space::Global, 4096, &addrs, 0b0100, 4, &s, 4).is_ok());
        // Shared memory has no stacks.
        assert!(check_access(Space::Shared, 4096, &addrs, 0b1000, 4, &s, 4).is_ok());
    }

    #[test]
    fn next_pcs_at_or_past_the_end_trap() {
        let mut next = [0u32; MAX_LANES];
        next[0] = 9;
        next[1] = 10;
        next[2] = u32::MAX;
        assert!(check_next_pcs(10, 0b001, &next).is_ok());
        let (lanes, cause) = check_next_pcs(10, 0b111, &next).unwrap_err();
        assert_eq!(lanes, 0b110);
        assert_eq!(
            cause,
            TrapCause::NextPcOutOfRange {
                target: 10,
                len: 10
            }
        );
        let (lanes, cause) = check_next_pcs(10, 0b100, &next).unwrap_err();
        assert_eq!(lanes, 0b100);
        assert_eq!(
            cause,
            TrapCause::NextPcOutOfRange {
                target: u32::MAX,
                len: 10
            }
        );
        assert!(check_fall_through(10, 8, 0b1).is_ok());
        assert_eq!(
            check_fall_through(10, 9, 0b11),
            Err((
                0b11,
                TrapCause::NextPcOutOfRange {
                    target: 10,
                    len: 10
                }
            ))
        );
        // The largest instruction memory: the last word's successor is 65536.
        assert_eq!(
            check_fall_through(65536, 65535, 1),
            Err((
                1,
                TrapCause::NextPcOutOfRange {
                    target: 65536,
                    len: 65536
                }
            ))
        );
    }

    #[test]
    fn pc_widths() {
        assert_eq!(pc_bits(16), 4);
        assert_eq!(pc_bits(4096), 12);
        assert_eq!(pc_bits(65536), 16);
        assert_eq!(pc_bits(100), 7);
    }
}
