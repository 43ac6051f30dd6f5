//! The back end end to end: IR kernels compiled at register budgets 32, 12
//! and 6, run on the functional model, final memory compared with plain
//! Rust computations and with the IR interpreter.

mod backend_common;

use backend_common::*;

const VECADD: &str = "
kernel @vecadd(a, b, c, n) {
block0:
    v0 = special tid.x
    v1 = special ctaid.x
    v2 = special ntid.x
    v3 = imul v1, v2
    v4 = iadd v3, v0
    v5 = param 3
    v6 = icmp lt v4, v5
    brif v6, block1, block2
block1:
    v7 = iconst 2
    v8 = ishl v4, v7
    v9 = param 0
    v10 = iadd v9, v8
    v11 = load.global.b32 v10
    v12 = param 1
    v13 = iadd v12, v8
    v14 = load.global.b32 v13
    v15 = iadd v11, v14
    v16 = param 2
    v17 = iadd v16, v8
    store.global.b32 v15, v17
    jump block2
block2:
    return
}
";

#[test]
fn vecadd() {
    let n = 37u32;
    let a: Vec<u32> = (0..n).map(|i| i * 3 + 1).collect();
    let b: Vec<u32> = (0..n).map(|i| 1000 - i * 7).collect();
    let setup = Setup {
        grid: [5, 1, 1],
        block: [8, 1, 1],
        params: vec![0x100, 0x400, 0x800, n],
        init: vec![(0x100, a.clone()), (0x400, b.clone())],
        ..Setup::default()
    };
    let expected: Vec<u32> = a.iter().zip(&b).map(|(x, y)| x.wrapping_add(*y)).collect();
    let cs = check_kernel(VECADD, "vecadd", &setup, 0x800, &expected);
    // No stack needed at any budget for this small kernel.
    assert_eq!(cs[0].kernel.stack_bytes, 0);
    assert_eq!(cs[0].stats.spills, 0);
}
