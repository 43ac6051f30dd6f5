//! Compile memory grows linearly with the length of straight-line code.
//!
//! A counting allocator records, per thread, the bytes live on the heap and
//! their high-water mark; the test compiles generated kernels of N and 4N
//! statements and compares the marks. The counts depend only on the input
//! (no timing), so the bound is deterministic; it sits far below the 16×
//! of quadratic growth (the register-allocation checker used to keep a
//! state, with a set of every register defined so far, per instruction).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use concord_compiler::driver::{compile, CompileOptions};
use concord_isa::config::CoreConfig;

struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn count(delta: isize) {
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

// SAFETY: every call goes to `System` unchanged; the counting only reads
// the sizes.
unsafe impl GlobalAlloc for Counting {
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

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// `n` statements of straight-line code: loads, an add, a store each.
fn straight_line(n: usize) -> String {
    let mut src = String::from("__global__ void k(int *o, int x) {\n");
    for i in 0..n {
        src += &format!("  o[{}] = o[{}] + x;\n", i % 64, (i * 7) % 64);
    }
    src + "}\n"
}

/// The heap's high-water mark above its level at the start, while
/// compiling `src` (on this thread).
fn peak_bytes(src: &str) -> usize {
    let start = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(start));
    let options = CompileOptions::for_core(&CoreConfig {
        imem_words: 65536,
        ..CoreConfig::default()
    });
    let compiled = compile(src, "straight.cu", &options).unwrap_or_else(|e| panic!("{e}"));
    drop(compiled);
    (PEAK.with(Cell::get) - start) as usize
}

#[test]
fn straight_line_compile_memory_is_linear() {
    let (small, large) = (2_000, 8_000);
    let a = peak_bytes(&straight_line(small));
    let b = peak_bytes(&straight_line(large));
    let ratio = b as f64 / a as f64;
    assert!(
        ratio < 5.0,
        "{small} statements: {a} bytes at peak, {large}: {b} bytes ({ratio:.1}x for 4x the code)"
    );
    // And a size: a few KiB per statement (each becomes about five
    // instructions; 6.3 KiB measured when written, 85 KiB before).
    assert!(b < large * 12 * 1024, "{b} bytes for {large} statements");
}
