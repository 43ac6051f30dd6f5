//! Compile memory, measured: a counting global allocator and the
//! straight-line kernels whose compile memory `concord bench --compiler`
//! reports and `tests/compile_memory.rs` bounds.
//!
//! A binary or test that wants the figures declares
//! `#[global_allocator] static A: CountingAllocator = CountingAllocator;`;
//! [`peak_heap`] then gives the heap's high-water mark of a closure on the
//! calling thread. The counts depend only on what the code allocates (no
//! timing), so a bound on them is deterministic. Without the allocator,
//! [`peak_heap`] reports 0.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting per thread the bytes live on the heap
/// and their high-water mark.
pub struct CountingAllocator;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn count(delta: isize) {
    // `try_with`: the allocator also runs while thread-locals are torn down.
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

// SAFETY: every call goes to `System` unchanged; the counting only reads
// the sizes.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            count(layout.size() as isize);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            count(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        count(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            count(new_size as isize - layout.size() as isize);
        }
        p
    }
}

/// Runs `f`; returns its result and the heap's high-water mark above the
/// level at the start, in bytes (allocations of this thread; 0 unless
/// [`CountingAllocator`] is the global allocator).
pub fn peak_heap<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let start = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(start));
    let out = f();
    (out, (PEAK.with(Cell::get) - start).max(0) as usize)
}

/// `n` statements of straight-line code (two loads, an add and a store
/// each): the shape whose compile memory once grew with the square of `n`.
pub fn straight_line(n: usize) -> String {
    let mut src = String::from("__global__ void k(int *o, int x) {\n");
    for i in 0..n {
        src += &format!("  o[{}] = o[{}] + x;\n", i % 64, (i * 7) % 64);
    }
    src + "}\n"
}
