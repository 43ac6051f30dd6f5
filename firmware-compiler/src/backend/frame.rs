//! Per-thread stack frames and the calling convention.
//!
//! **Stack.** Thread `t` of a block (`s2r %tid`) owns the bytes
//! `[G - (t+1)·S, G - t·S)` of global memory, `G` the core's
//! `global_memory_bytes`, `S` the per-thread stack size (a multiple of 8,
//! recorded as `Kernel::stack_bytes`). The stack pointer starts at `G - t·S`
//! and grows down. A function's frame is `[sp, sp + F)` after its prologue
//! (`sp -= F`): spill slots first (4 bytes each, so their offsets fit the
//! 12-bit load/store offset), then the IR's stack slots (local arrays) laid
//! out by [`crate::interp::frame_layout`], the size rounded up to 8.
//! A function that divides uses [`DIV_AREA`] bytes below its `sp` to talk
//! to the division routine.
//!
//! `S` is the largest sum of frames along a call chain from the kernel
//! (plus the division area where used). A self-recursive function whose
//! nesting [`super::recursion`] can bound (counted recursion on a
//! parameter) counts its frame that many times. Other recursive call
//! graphs have no such bound: `S` is then the deepest chain plus
//! [`DEFAULT_RECURSION_DEPTH`]` - 1` more frames of the largest function on
//! a call cycle, at least [`DEFAULT_RECURSIVE_STACK`], unless the options
//! give one; overflowing it traps at run time (*stack overflow*,
//! `concord_isa::checks`).
//!
//! **Registers** (budget `R`): the stack pointer is `r(R-1)`, reserved only
//! when the kernel needs a stack (local arrays, calls, divisions or
//! spills). Arguments go in `r0, r1, ...` up to
//! [`Convention::max_args`] of them, the return value in `r0`, the
//! return address in [`Convention::ra`] (`r(R-2)`). Further arguments go
//! on the stack: the caller stores argument `max_args + j` at
//! `[sp - 4·(j+1)]` just before the call, which is the top of the callee's
//! frame (its `sp + F - 4·(j+1)`, the frame reserving those bytes), so the
//! callee loads them from its own frame at entry. Every register and
//! predicate is caller-saved: values live across a call are spilled by the
//! allocator, and the callee saves nothing but its own return address
//! (which, live across its own calls, is spilled like any other value). A
//! function that evicts values reserves the two registers just below the
//! stack pointer as scratch registers for the reload/store code.

use std::collections::{HashMap, HashSet};

use concord_isa::instr::Reg;

use super::BackendError;
use crate::ir::{FuncId, Function};

/// Bytes below the stack pointer used by a call of the division routine.
pub const DIV_AREA: u32 = 48;
/// Per-thread stack size for recursive call graphs, at least.
pub const DEFAULT_RECURSIVE_STACK: u32 = 1024;
/// Nested frames of each function on a call cycle that the default stack of
/// an unbounded recursion makes room for.
pub const DEFAULT_RECURSION_DEPTH: u64 = 8;

/// Register roles for one register budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Convention {
    pub budget: u32,
    pub sp: Option<Reg>,
    /// Written by `call`, read by the callee's `ret` (through its copy).
    pub ra: Reg,
    /// Scratch registers for reloads, stores and rematerialisation, when
    /// the function evicts values.
    pub scratch: Option<[Reg; 2]>,
}

fn reg(i: u32) -> Reg {
    // Budgets are checked to be 1..=32 before any convention is made.
    Reg::new(i.min(31) as u8).unwrap_or(Reg::new(0).unwrap_or_else(|| unreachable!()))
}

impl Convention {
    pub fn new(budget: u32, stack: bool, scratch: bool) -> Convention {
        let top = budget - 1;
        let sp = stack.then(|| reg(top));
        let below = if stack { top - 1 } else { top };
        Convention {
            budget,
            sp,
            ra: reg(below),
            scratch: scratch.then(|| [reg(below), reg(below - 1)]),
        }
    }

    /// Argument register `i` (also `r0` = the return value).
    pub fn arg(i: usize) -> Reg {
        reg(i as u32)
    }

    /// Registers the allocator may hand out, in order of preference.
    pub fn allocatable(&self) -> Vec<Reg> {
        (0..self.budget)
            .map(reg)
            .filter(|r| Some(*r) != self.sp && !self.scratch.is_some_and(|s| s.contains(r)))
            .collect()
    }

    /// How many arguments a call may pass (they must not reach `ra`).
    pub fn max_args(&self) -> usize {
        self.ra.index()
    }
}

/// The frame of one function.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Frame {
    /// Offset of spill slot `i` is `4·i`.
    pub spill_slots: u32,
    /// Offsets of the IR stack slots from `sp`.
    pub slot_offsets: Vec<u32>,
    /// Parameters that arrive on the stack (those beyond the argument
    /// registers), in the top `4·incoming_args` bytes of the frame.
    pub incoming_args: u32,
    /// Frame size, a multiple of 8.
    pub size: u32,
}

impl Frame {
    /// The frame of `func` with `spill_slots` spill slots, receiving
    /// `incoming_args` parameters on the stack.
    pub fn new(
        func: &Function,
        spill_slots: u32,
        incoming_args: u32,
    ) -> Result<Frame, BackendError> {
        let layout = crate::interp::frame_layout(func).map_err(|e| BackendError::Unsupported {
            func: func.name.clone(),
            message: e.to_string(),
        })?;
        if layout.align > 8 {
            return Err(BackendError::Unsupported {
                func: func.name.clone(),
                message: format!(
                    "a stack slot asks for alignment {}; frames are aligned to 8",
                    layout.align
                ),
            });
        }
        let spill_bytes = u64::from(spill_slots) * 4;
        if spill_bytes > 2048 {
            return Err(BackendError::Unsupported {
                func: func.name.clone(),
                message: format!("{spill_slots} spill slots exceed the 2 KiB spill area"),
            });
        }
        let base = spill_bytes.next_multiple_of(8);
        let size =
            (base + u64::from(layout.size) + 4 * u64::from(incoming_args)).next_multiple_of(8);
        if size > u64::from(u32::MAX / 2) {
            return Err(BackendError::Unsupported {
                func: func.name.clone(),
                message: format!("a frame of {size} bytes is too large"),
            });
        }
        Ok(Frame {
            spill_slots,
            slot_offsets: layout.offsets.iter().map(|&o| base as u32 + o).collect(),
            incoming_args,
            size: size as u32,
        })
    }

    /// Offset from the callee's `sp` of stack parameter `j` (parameter
    /// `max_args + j`): the caller stored it at `[sp - 4·(j+1)]` with its
    /// own `sp`, which is the top of the callee's frame.
    pub fn incoming_arg_offset(&self, j: u32) -> u32 {
        self.size - 4 * (j + 1)
    }

    /// Offset from the caller's `sp` where it stores stack argument `j`.
    pub fn outgoing_arg_offset(j: u32) -> i32 {
        -4 * (j as i32 + 1)
    }

    pub fn spill_offset(slot: u32) -> u32 {
        slot * 4
    }
}

/// Per-thread stack size for the kernel: the deepest chain of frames, or
/// the recursive default. `recursion_frames` bounds the nesting of
/// self-recursive functions ([`super::recursion`]): such a function adds
/// `(n - 1)` copies of its frame above its deepest non-recursive chain.
/// Returns `(bytes, recursive)`, `recursive` meaning unbounded.
pub fn stack_size(
    kernel: FuncId,
    frames: &HashMap<FuncId, (u32, bool)>,
    callees: &HashMap<FuncId, Vec<FuncId>>,
    recursion_frames: &HashMap<FuncId, u64>,
) -> StackNeed {
    struct Graph<'a> {
        frames: &'a HashMap<FuncId, (u32, bool)>,
        callees: &'a HashMap<FuncId, Vec<FuncId>>,
        recursion_frames: &'a HashMap<FuncId, u64>,
    }
    // Depth-first search with an "on the path" mark detects recursion.
    // With `cut_cycles`, a call back into a function already on the path
    // counts nothing: the stack of one pass down the deepest chain, the
    // least any recursive program needs. The search keeps its own stack:
    // a chain of thousands of functions each calling the next is a short
    // source but as deep a search.
    fn need(g: &Graph, root: FuncId, cut_cycles: bool) -> Option<u64> {
        struct Visit {
            f: FuncId,
            next: usize,
            below: u64,
        }
        let start = |f: FuncId| {
            let divides = g.frames.get(&f).is_some_and(|&(_, d)| d);
            Visit {
                f,
                next: 0,
                below: if divides { u64::from(DIV_AREA) } else { 0 },
            }
        };
        let mut memo: HashMap<FuncId, u64> = HashMap::new();
        let mut on_path: HashSet<FuncId> = HashSet::from([root]);
        let mut path = vec![start(root)];
        while let Some(top) = path.last_mut() {
            let f = top.f;
            let bounded_depth = g.recursion_frames.get(&f).copied();
            let callees = g.callees.get(&f).map(Vec::as_slice).unwrap_or(&[]);
            if let Some(&c) = callees.get(top.next) {
                top.next += 1;
                if c == f && bounded_depth.is_some() {
                    continue;
                }
                if let Some(&n) = memo.get(&c) {
                    top.below = top.below.max(n);
                } else if on_path.contains(&c) {
                    if !cut_cycles {
                        return None;
                    }
                } else {
                    on_path.insert(c);
                    path.push(start(c));
                }
                continue;
            }
            let frame = g.frames.get(&f).map_or(0, |&(frame, _)| frame);
            let copies = bounded_depth.unwrap_or(1).max(1);
            let total = u64::from(frame)
                .saturating_mul(copies)
                .saturating_add(top.below);
            memo.insert(f, total);
            on_path.remove(&f);
            path.pop();
            match path.last_mut() {
                Some(caller) => caller.below = caller.below.max(total),
                None => return Some(total),
            }
        }
        None
    }
    let graph = Graph {
        frames,
        callees,
        recursion_frames,
    };
    match need(&graph, kernel, false) {
        Some(n) => StackNeed {
            size: n.next_multiple_of(8),
            recursive: false,
            minimum: n.next_multiple_of(8),
        },
        None => {
            let minimum = need(&graph, kernel, true).unwrap_or(0).next_multiple_of(8);
            // Room for the deepest chain plus `DEFAULT_RECURSION_DEPTH - 1`
            // more frames of the largest function on a cycle: a fixed size
            // would be overrun as soon as frames grow (spills at small
            // budgets, predication's demoted masks).
            let cyclic = on_cycles(callees);
            let cycle_frame = frames
                .iter()
                .filter(|(f, _)| cyclic.contains(f))
                .map(|(_, &(frame, divides))| {
                    u64::from(frame) + if divides { u64::from(DIV_AREA) } else { 0 }
                })
                .max()
                .unwrap_or(0);
            let deep = minimum
                .saturating_add(cycle_frame.saturating_mul(DEFAULT_RECURSION_DEPTH - 1))
                .next_multiple_of(8);
            StackNeed {
                size: u64::from(DEFAULT_RECURSIVE_STACK).max(deep),
                recursive: true,
                minimum,
            }
        }
    }
}

/// The functions that can call themselves, directly or through other
/// functions: those with a call to themselves or in a strongly connected
/// component of more than one function (Tarjan's algorithm, with an
/// explicit stack, linear in the call graph).
fn on_cycles(callees: &HashMap<FuncId, Vec<FuncId>>) -> HashSet<FuncId> {
    let mut index: HashMap<FuncId, usize> = HashMap::new();
    let mut low: HashMap<FuncId, usize> = HashMap::new();
    let mut stack: Vec<FuncId> = Vec::new();
    let mut on_stack: HashSet<FuncId> = HashSet::new();
    let mut out = HashSet::new();
    let mut roots: Vec<FuncId> = callees.keys().copied().collect();
    roots.sort_unstable();
    for root in roots {
        if index.contains_key(&root) {
            continue;
        }
        // (function, next callee to look at)
        let mut search = vec![(root, 0usize)];
        while let Some(top) = search.last_mut() {
            let (f, next) = (top.0, &mut top.1);
            if *next == 0 {
                let k = index.len();
                index.insert(f, k);
                low.insert(f, k);
                stack.push(f);
                on_stack.insert(f);
            }
            let cs = callees.get(&f).map(Vec::as_slice).unwrap_or(&[]);
            if let Some(&c) = cs.get(*next) {
                *next += 1;
                if c == f {
                    out.insert(f);
                }
                if !index.contains_key(&c) {
                    search.push((c, 0));
                } else if on_stack.contains(&c) {
                    let l = low[&f].min(index[&c]);
                    low.insert(f, l);
                }
                continue;
            }
            search.pop();
            if let Some(&(caller, _)) = search.last() {
                let l = low[&caller].min(low[&f]);
                low.insert(caller, l);
            }
            if low[&f] == index[&f] {
                let mut component = Vec::new();
                while let Some(g) = stack.pop() {
                    on_stack.remove(&g);
                    component.push(g);
                    if g == f {
                        break;
                    }
                }
                if component.len() > 1 {
                    out.extend(component);
                }
            }
        }
    }
    out
}

/// The per-thread stack a kernel needs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct StackNeed {
    /// What the kernel gets unless overridden: the exact need, or for
    /// unbounded recursion the default (at least `minimum`).
    pub size: u64,
    /// Whether some recursion has no static depth bound.
    pub recursive: bool,
    /// The least any run needs (one frame per function on the deepest
    /// chain); an override below it is rejected.
    pub minimum: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kernel (frame 16) calls `f` (frame 40, at most 3 nested frames),
    /// which divides and calls `g` (frame 8): 16 + 2·40 + 40 + max(48, 8)
    /// = 184 bytes.
    #[test]
    fn bounded_recursion_stacks_its_frames() {
        let (k, f, g) = (FuncId(0), FuncId(1), FuncId(2));
        let frames = HashMap::from([(k, (16, false)), (f, (40, true)), (g, (8, false))]);
        let callees = HashMap::from([(k, vec![f]), (f, vec![f, g]), (g, vec![])]);
        let bounded = HashMap::from([(f, 3)]);
        let bounded_need = stack_size(k, &frames, &callees, &bounded);
        assert_eq!((bounded_need.size, bounded_need.recursive), (184, false));
        // Unbounded: at least one pass down the chain, 16 + 40 + max(48, 8)
        // = 104 bytes; room for 7 more frames of `f` with its division
        // area, 104 + 7·(40 + 48) = 720 bytes; and the 1024-byte floor.
        let unbounded = stack_size(k, &frames, &callees, &HashMap::new());
        assert_eq!(
            unbounded,
            StackNeed {
                size: u64::from(DEFAULT_RECURSIVE_STACK),
                recursive: true,
                minimum: 104,
            }
        );
        // With a 200-byte frame for `f`: 16 + 200 + 48 = 264, plus
        // 7·(200 + 48) = 1736, gives 2000 bytes.
        let big = HashMap::from([(k, (16, false)), (f, (200, true)), (g, (8, false))]);
        let deep = stack_size(k, &big, &callees, &HashMap::new());
        assert_eq!((deep.size, deep.minimum), (2000, 264));
    }
}
