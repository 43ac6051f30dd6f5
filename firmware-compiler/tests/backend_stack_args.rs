//! Calls with more arguments than argument registers: the rest travel on
//! the per-thread stack (`docs/compiler.md`, "Calling convention and
//! stack"). Compiled at budgets 32 (all in registers), 12 (one on the
//! stack) and 6 (seven on the stack), run on the functional model and
//! compared with plain Rust and the IR interpreter.

mod backend_common;

use backend_common::*;

/// The kernel passes `a_i = (t+1)(i+2)` and `t > 3` (an `i1`, argument 5)
/// to `@many`, which has a 4 KiB local array (so its stack arguments sit
/// beyond the 12-bit load offsets), keeps `a10` in it across a call, and
/// passes its arguments reversed to `@weigh` (stack arguments forwarded
/// as stack arguments), which returns `sum (i+1)·w_i`.
fn many_arguments_kernel() -> String {
    let mut k = String::from("kernel @k(out) {\nblock0:\n    v0 = special tid.x\n");
    let arg = |i: usize| format!("v{}", 100 + i);
    for i in 0..11 {
        k += &format!("    v{} = iconst {}\n", 20 + i, i + 2);
        k += &format!("    v{} = imul v0, v{}\n", 40 + i, 20 + i);
        k += &format!("    {} = iadd v{}, v{}\n", arg(i), 40 + i, 20 + i);
    }
    k += "    v1 = iconst 3\n    v2 = icmp gt v0, v1\n";
    let args: Vec<String> = (0..11)
        .map(|i| if i == 5 { "v2".into() } else { arg(i) })
        .collect();
    k += &format!("    v3 = call @many({})\n", args.join(", "));
    k += "    v4 = iconst 2\n    v5 = ishl v0, v4\n    v6 = param 0\n    v7 = iadd v6, v5\n";
    k += "    store.global.b32 v3, v7\n    return\n}\n\n";

    let sig = "i32, i32, i32, i32, i32, i1, i32, i32, i32, i32, i32";
    let params = |base: usize| -> String {
        (0..11)
            .map(|i| format!("v{}: {}", base + i, if i == 5 { "i1" } else { "i32" }))
            .collect::<Vec<_>>()
            .join(", ")
    };
    k += &format!("func @many({sig}) -> i32 {{\n    ss0 = stack 4096 align 4\n");
    k += &format!("block0({}):\n", params(0));
    k += "    v20 = stack_addr ss0\n    store.local.b32 v10, v20\n";
    let reversed: Vec<String> = (0..11)
        .map(|i| {
            if i == 5 {
                "v5".into()
            } else {
                format!("v{}", 10 - i)
            }
        })
        .collect();
    k += &format!("    v21 = call @weigh({})\n", reversed.join(", "));
    k += "    v22 = load.local.b32 v20\n    v23 = iadd v21, v22\n    return v23\n}\n\n";

    k += &format!("func @weigh({sig}) -> i32 {{\nblock0({}):\n", params(0));
    k += "    v20 = bint v5\n    v21 = iconst 0\n";
    let mut acc = 21;
    for i in 0..11 {
        let w = if i == 5 { 20 } else { i };
        k += &format!("    v{} = iconst {}\n", 30 + i, i + 1);
        k += &format!("    v{} = imul v{w}, v{}\n", 50 + i, 30 + i);
        k += &format!("    v{} = iadd v{acc}, v{}\n", 70 + i, 50 + i);
        acc = 70 + i;
    }
    k += &format!("    return v{acc}\n}}\n");
    k
}

#[test]
fn arguments_beyond_the_registers_go_on_the_stack() {
    let setup = Setup {
        warps: 1,
        block: [8, 1, 1],
        params: vec![0x100],
        ..Setup::default()
    };
    let expected: Vec<u32> = (0..8u32)
        .map(|t| {
            let a = |i: u32| (t + 1) * (i + 2);
            let b = u32::from(t > 3);
            let weighed: u32 = (0..11u32)
                .map(|i| (i + 1) * if i == 5 { b } else { a(10 - i) })
                .sum();
            weighed + a(10)
        })
        .collect();
    let cs = check_kernel(&many_arguments_kernel(), "k", &setup, 0x100, &expected);
    // Budget 6: seven stack arguments per call, the frames of both
    // callees hold them, and the deepest chain still fits one thread.
    assert!(cs[2].kernel.stack_bytes >= 4096 + 2 * 7 * 4);
    // The last of them goes to `[sp - 28]` (`sp` is r5 at budget 6, r11
    // at 12 where only one argument, to `[sp - 4]`, is on the stack).
    assert!(cs[2].listing.contains("[r5-28]"), "{}", cs[2].listing);
    assert!(cs[1].listing.contains("[r11-4]"), "{}", cs[1].listing);
    assert!(!cs[1].listing.contains("[r11-8]"), "{}", cs[1].listing);
}
