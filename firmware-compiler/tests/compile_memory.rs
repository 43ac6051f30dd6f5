//! Compile memory grows linearly with the length of straight-line code.
//!
//! A counting allocator records, per thread, the bytes live on the heap and
//! their high-water mark; the test compiles generated kernels of N and 4N
//! statements and compares the marks. The counts depend only on the input
//! (no timing), so the bound is deterministic; it sits far below the 16×
//! of quadratic growth (the register-allocation checker used to keep a
//! state, with a set of every register defined so far, per instruction).

use concord_compiler::driver::{compile, CompileOptions};
use concord_compiler::heap::{peak_heap, straight_line, CountingAllocator};
use concord_isa::config::CoreConfig;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// The heap's high-water mark while compiling `src` (on this thread).
fn peak_bytes(src: &str) -> usize {
    let options = CompileOptions::for_core(&CoreConfig {
        imem_words: 65536,
        ..CoreConfig::default()
    });
    let (compiled, peak) = peak_heap(|| compile(src, "straight.cu", &options));
    drop(compiled.unwrap_or_else(|e| panic!("{e}")));
    peak
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
