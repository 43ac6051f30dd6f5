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

/// `out[t] = sum of i*i for i < t`: a loop whose trip count differs per
/// lane (threads leave the loop at different iterations).
#[test]
fn per_lane_trip_count_loop() {
    let text = "
kernel @squares(out) {
block0:
    v0 = special tid.x
    v1 = iconst 0
    jump block1(v1, v1)
block1(v2: i32, v3: i32):
    v4 = icmp lt v2, v0
    brif v4, block2, block3
block2:
    v5 = imul v2, v2
    v6 = iadd v3, v5
    v7 = iconst 1
    v8 = iadd v2, v7
    jump block1(v8, v6)
block3:
    v9 = iconst 2
    v10 = ishl v0, v9
    v11 = param 0
    v12 = iadd v11, v10
    store.global.b32 v3, v12
    return
}
";
    let setup = Setup {
        block: [16, 1, 1],
        params: vec![0x100],
        ..Setup::default()
    };
    let expected: Vec<u32> = (0..16u32).map(|t| (0..t).map(|i| i * i).sum()).collect();
    check_kernel(text, "squares", &setup, 0x100, &expected);
}

/// A do-while loop whose latch branches back with arguments: the back
/// edge is critical and gets split. `out[t] = t * (t + 1)` by repeated
/// addition with a per-lane trip count, plus a swap of two loop-carried
/// values each iteration (a parallel-copy cycle).
#[test]
fn critical_back_edge_and_swapping_copies() {
    let text = "
kernel @rotate(out) {
block0:
    v0 = special tid.x
    v1 = iconst 0
    v2 = iconst 1
    v20 = iconst 5
    jump block1(v1, v1, v2, v20)
block1(v3: i32, v4: i32, v5: i32, v6: i32):
    v7 = iadd v4, v0
    v8 = iadd v3, v2
    v9 = icmp le v8, v0
    brif v9, block1(v8, v7, v6, v5), block2
block2:
    v10 = iconst 2
    v11 = ishl v0, v10
    v12 = param 0
    v13 = iadd v12, v11
    v14 = iadd v7, v8
    v15 = imul v5, v10
    v16 = iadd v14, v15
    store.global.b32 v16, v13
    return
}
";
    let setup = Setup {
        block: [12, 1, 1],
        params: vec![0x100],
        ..Setup::default()
    };
    // Iterations: t + 1; v7 = (t+1)*t, v8 = t + 1; v5 swaps each time:
    // in iteration k (1-based) v5 has been swapped k - 1 times.
    let expected: Vec<u32> = (0..12u32)
        .map(|t| {
            let k = t + 1;
            let v5 = if k % 2 == 1 { 1 } else { 5 };
            k * t + k + 2 * v5
        })
        .collect();
    check_kernel(text, "rotate", &setup, 0x100, &expected);
}

/// Nested if/else with divergence at both levels.
#[test]
fn nested_if_else() {
    let text = "
kernel @nested(out) {
block0:
    v0 = special tid.x
    v1 = iconst 8
    v2 = icmp lt v0, v1
    brif v2, block1, block4
block1:
    v3 = iconst 1
    v4 = band v0, v3
    v5 = iconst 0
    v6 = icmp ne v4, v5
    brif v6, block2, block3
block2:
    v7 = iconst 10
    v8 = imul v0, v7
    jump block7(v8)
block3:
    v9 = iconst 100
    v10 = iadd v0, v9
    jump block7(v10)
block4:
    v11 = iconst 12
    v12 = icmp gt v0, v11
    brif v12, block5, block6
block5:
    v13 = iconst 7
    jump block7(v13)
block6:
    v14 = ineg v0
    jump block7(v14)
block7(v15: i32):
    v16 = iconst 2
    v17 = ishl v0, v16
    v18 = param 0
    v19 = iadd v18, v17
    store.global.b32 v15, v19
    return
}
";
    let setup = Setup {
        block: [16, 1, 1],
        params: vec![0x100],
        ..Setup::default()
    };
    let expected: Vec<u32> = (0..16i32)
        .map(|t| {
            let v = if t < 8 {
                if t & 1 != 0 {
                    t * 10
                } else {
                    t + 100
                }
            } else if t > 12 {
                7
            } else {
                -t
            };
            v as u32
        })
        .collect();
    check_kernel(text, "nested", &setup, 0x100, &expected);
}

const FACTORIAL: &str = "
kernel @facts(out) {
block0:
    v0 = special tid.x
    v1 = call @fact(v0)
    v2 = iconst 2
    v3 = ishl v0, v2
    v4 = param 0
    v5 = iadd v4, v3
    store.global.b32 v1, v5
    return
}

func @fact(i32) -> i32 {
block0(v0: i32):
    v1 = iconst 1
    v2 = icmp le v0, v1
    brif v2, block1, block2
block1:
    return v1
block2:
    v3 = isub v0, v1
    v4 = call @fact(v3)
    v5 = imul v0, v4
    return v5
}
";

/// Recursion: each lane recurses to its own depth.
#[test]
fn recursive_factorial() {
    let setup = Setup {
        block: [8, 1, 1],
        params: vec![0x100],
        ..Setup::default()
    };
    let expected: Vec<u32> = (0..8u32).map(|t| (1..=t.max(1)).product()).collect();
    let cs = check_kernel(FACTORIAL, "facts", &setup, 0x100, &expected);
    for c in &cs {
        assert_eq!(c.kernel.stack_bytes, 1024, "recursive default stack");
        assert!(c.stats.calls >= 2);
    }
}

/// Calls with several arguments, `i1` arguments and results, values live
/// across calls, a non-recursive chain (computed stack size).
#[test]
fn calls_with_many_arguments() {
    let text = "
kernel @k(out) {
block0:
    v0 = special tid.x
    v1 = iconst 3
    v2 = icmp gt v0, v1
    v3 = iconst 7
    v4 = iadd v0, v3
    v5 = call @mix(v0, v4, v2, v3)
    v6 = call @odd(v5)
    v7 = bint v6
    v8 = iadd v5, v7
    v9 = iadd v8, v4
    v10 = iconst 2
    v11 = ishl v0, v10
    v12 = param 0
    v13 = iadd v12, v11
    store.global.b32 v9, v13
    return
}

func @mix(i32, i32, i1, i32) -> i32 {
block0(v0: i32, v1: i32, v2: i1, v3: i32):
    v4 = imul v0, v1
    v5 = call @twice(v3)
    v6 = iadd v4, v5
    v7 = isub v1, v0
    v8 = select v2, v6, v7
    return v8
}

func @twice(i32) -> i32 {
block0(v0: i32):
    v1 = iadd v0, v0
    return v1
}

func @odd(i32) -> i1 {
block0(v0: i32):
    v1 = iconst 1
    v2 = band v0, v1
    v3 = icmp ne v2, v1
    v4 = bnot v3
    return v4
}
";
    let setup = Setup {
        block: [8, 1, 1],
        params: vec![0x100],
        ..Setup::default()
    };
    let expected: Vec<u32> = (0..8u32)
        .map(|t| {
            let v4 = t + 7;
            let v5 = if t > 3 { t * v4 + 14 } else { v4 - t };
            v5 + (v5 & 1) + v4
        })
        .collect();
    let cs = check_kernel(text, "k", &setup, 0x100, &expected);
    assert!(cs[0].kernel.stack_bytes > 0 && cs[0].kernel.stack_bytes < 1024);
}

/// Division and remainder, signed and unsigned, through the runtime routine
/// and the power-of-two shortcuts, on a table that includes division by
/// zero, `i32::MIN / -1` and negative operands.
#[test]
fn division_table() {
    let text = "
kernel @div(a, b, out) {
block0:
    v0 = special tid.x
    v1 = iconst 2
    v2 = ishl v0, v1
    v3 = param 0
    v4 = iadd v3, v2
    v5 = load.global.b32 v4
    v6 = param 1
    v7 = iadd v6, v2
    v8 = load.global.b32 v7
    v9 = sdiv v5, v8
    v10 = srem v5, v8
    v11 = udiv v5, v8
    v12 = urem v5, v8
    v13 = iconst 8
    v14 = sdiv v5, v13
    v15 = srem v5, v13
    v16 = udiv v5, v13
    v17 = urem v5, v13
    v18 = iconst 40
    v19 = imul v0, v18
    v20 = param 2
    v21 = iadd v20, v19
    store.global.b32 v9, v21
    store.global.b32 v10, v21+4
    store.global.b32 v11, v21+8
    store.global.b32 v12, v21+12
    store.global.b32 v14, v21+16
    store.global.b32 v15, v21+20
    store.global.b32 v16, v21+24
    store.global.b32 v17, v21+28
    v22 = iconst -1
    v23 = sdiv v5, v22
    store.global.b32 v23, v21+32
    v24 = urem v8, v5
    store.global.b32 v24, v21+36
    return
}
";
    let pairs: Vec<(i32, i32)> = vec![
        (7, 2),
        (-7, 2),
        (7, -2),
        (-7, -2),
        (5, 0),
        (-5, 0),
        (i32::MIN, -1),
        (i32::MIN, 1),
        (i32::MAX, 3),
        (-1, -1),
        (123456789, 1000),
        (-2147483000, 65536),
        (-9, 8),
        (0, 0),
        (100, -7),
        (-3, 3000000),
    ];
    let n = pairs.len();
    let setup = Setup {
        lanes: 8,
        warps: 2,
        block: [n as u32, 1, 1],
        params: vec![0x100, 0x200, 0x400],
        init: vec![
            (0x100, pairs.iter().map(|p| p.0 as u32).collect()),
            (0x200, pairs.iter().map(|p| p.1 as u32).collect()),
        ],
        ..Setup::default()
    };
    // The IR's rules (RISC-V): x / 0 = -1, x % 0 = x, MIN / -1 = MIN, rem 0.
    let sdiv = |a: i32, b: i32| if b == 0 { -1 } else { a.wrapping_div(b) };
    let srem = |a: i32, b: i32| if b == 0 { a } else { a.wrapping_rem(b) };
    let udiv = |a: u32, b: u32| a.checked_div(b).unwrap_or(u32::MAX);
    let urem = |a: u32, b: u32| if b == 0 { a } else { a % b };
    let mut expected = Vec::new();
    for &(a, b) in &pairs {
        expected.extend([
            sdiv(a, b) as u32,
            srem(a, b) as u32,
            udiv(a as u32, b as u32),
            urem(a as u32, b as u32),
            sdiv(a, 8) as u32,
            srem(a, 8) as u32,
            (a as u32) / 8,
            (a as u32) % 8,
            sdiv(a, -1) as u32,
            urem(b as u32, a as u32),
        ]);
    }
    check_kernel(text, "div", &setup, 0x400, &expected);
}

/// Shared-memory tree reduction with barriers over 4 warps of 8 lanes,
/// two blocks.
#[test]
fn shared_reduction_with_barriers() {
    let text = "
shared @pad 12 align 4
shared @tile 128 align 4

kernel @reduce(input, out) {
block0:
    v0 = special tid.x
    v1 = special ctaid.x
    v2 = iconst 32
    v3 = imul v1, v2
    v4 = iadd v3, v0
    v5 = iconst 2
    v6 = ishl v4, v5
    v7 = param 0
    v8 = iadd v7, v6
    v9 = load.global.b32 v8
    v10 = shared_addr @tile
    v11 = ishl v0, v5
    v12 = iadd v10, v11
    store.shared.b32 v9, v12
    barrier
    v13 = iconst 16
    jump block1(v13)
block1(v14: i32):
    v15 = iconst 0
    v16 = icmp gt v14, v15
    brif v16, block2, block4
block2:
    v17 = icmp lt v0, v14
    brif v17, block3, block5
block3:
    v18 = ishl v14, v5
    v19 = iadd v12, v18
    v20 = load.shared.b32 v12
    v21 = load.shared.b32 v19
    v22 = iadd v20, v21
    store.shared.b32 v22, v12
    jump block5
block5:
    barrier
    v23 = iconst 1
    v24 = ushr v14, v23
    jump block1(v24)
block4:
    v25 = icmp eq v0, v15
    brif v25, block6, block7
block6:
    v26 = load.shared.b32 v10
    v27 = param 1
    v28 = ishl v1, v5
    v29 = iadd v27, v28
    store.global.b32 v26, v29
    jump block7
block7:
    return
}
";
    let input: Vec<u32> = (0..64u32).map(|i| i * i + 3).collect();
    let setup = Setup {
        lanes: 8,
        warps: 4,
        grid: [2, 1, 1],
        block: [32, 1, 1],
        params: vec![0x100, 0x300],
        init: vec![(0x100, input.clone())],
        ..Setup::default()
    };
    let expected = vec![input[..32].iter().sum(), input[32..].iter().sum()];
    let cs = check_kernel(text, "reduce", &setup, 0x300, &expected);
    assert_eq!(cs[0].kernel.shared_bytes, 12 + 128);
}

/// Warp votes: any, all, ballot, with their results used as data.
#[test]
fn votes() {
    let text = "
kernel @votes(out) {
block0:
    v0 = special tid.x
    v1 = iconst 3
    v2 = band v0, v1
    v3 = iconst 0
    v4 = icmp eq v2, v3
    v5 = vote.any v4
    v6 = vote.all v4
    v7 = vote.ballot v4
    v8 = iconst 12
    v9 = icmp lt v0, v8
    v10 = vote.all v9
    v11 = bint v5
    v12 = bint v6
    v13 = bint v10
    v14 = iconst 10
    v15 = imul v12, v14
    v16 = iadd v11, v15
    v17 = iconst 100
    v18 = imul v13, v17
    v19 = iadd v16, v18
    v20 = iconst 3
    v21 = ishl v0, v20
    v22 = param 0
    v23 = iadd v22, v21
    store.global.b32 v19, v23
    store.global.b32 v7, v23+4
    return
}
";
    let setup = Setup {
        lanes: 8,
        warps: 2,
        block: [16, 1, 1],
        params: vec![0x100],
        ..Setup::default()
    };
    let mut expected = Vec::new();
    for t in 0..16u32 {
        let warp = t / 8;
        let all_lt12 = (warp * 8..warp * 8 + 8).all(|x| x < 12);
        // `any` (1) + 10·`all` of tid % 4 == 0 (never) + 100·`all` tid < 12.
        expected.push(1 + if all_lt12 { 100 } else { 0 });
        expected.push(0b0001_0001);
    }
    check_kernel(text, "votes", &setup, 0x100, &expected);
}

/// A per-thread local array (stack slot) with narrow stores and
/// sign-extending loads, plus narrow global accesses.
#[test]
fn local_arrays_and_narrow_accesses() {
    let text = "
kernel @locals(out, bytes) {
    ss0 = stack 8 align 2
    ss1 = stack 16 align 4
block0:
    v0 = special tid.x
    v1 = stack_addr ss0
    v2 = iconst 0
    jump block1(v2)
block1(v3: i32):
    v4 = iconst 4
    v5 = icmp lt v3, v4
    brif v5, block2, block3
block2:
    v6 = iadd v0, v3
    v7 = ineg v6
    v8 = iadd v3, v3
    v9 = iadd v1, v8
    store.local.b16 v7, v9
    v10 = iconst 1
    v11 = iadd v3, v10
    jump block1(v11)
block3:
    v12 = load.local.s16 v1+2
    v13 = load.local.s16 v1+6
    v14 = imul v12, v13
    v30 = stack_addr ss1
    store.local.b32 v14, v30+12
    v31 = load.local.u16 v1+2
    store.local.b32 v31, v30
    v32 = load.local.b32 v30+12
    v33 = load.local.b32 v30
    v15 = iconst 2
    v16 = ishl v0, v15
    v17 = param 0
    v18 = iadd v17, v16
    store.global.b32 v32, v18
    store.global.b32 v33, v18+64
    v19 = param 1
    v20 = iadd v19, v0
    v21 = load.global.s8 v20
    v22 = load.global.u8 v20
    v23 = iadd v21, v22
    v24 = iconst 128
    v25 = iadd v19, v24
    v26 = iadd v25, v0
    store.global.b8 v23, v26
    v27 = iadd v25, v16
    v28 = iconst 200
    v29 = iadd v27, v28
    store.global.b16 v21, v29
    return
}
";
    // Bytes 0x80 + 37*t: t=0: 0x80 (s8 -128), ...
    let bytes: Vec<u8> = (0..16u32).map(|t| (0x80 + 37 * t) as u8).collect();
    let words: Vec<u32> = bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let setup = Setup {
        lanes: 4,
        warps: 4,
        block: [16, 1, 1],
        params: vec![0x100, 0x400],
        init: vec![(0x400, words)],
        ..Setup::default()
    };
    let m = parse(text);
    let reference = run_interp(&m, "locals", &setup);
    for regs in BUDGETS {
        let c = compile(&m, "locals", regs, 8);
        let g = run_machine(&c, &setup);
        for t in 0..16i32 {
            let prod = (-(t + 1)) * (-(t + 3));
            let at = 0x100 + 4 * t as usize;
            assert_eq!(words_at(&g, at), prod as u32, "regs {regs} t {t}");
            let low16 = (-(t + 1)) as u32 & 0xffff;
            assert_eq!(words_at(&g, at + 64), low16, "regs {regs} t {t}");
            let b = bytes[t as usize];
            let sum = (b as i8 as i32 + b as i32) as u8;
            assert_eq!(g[0x480 + t as usize], sum, "regs {regs} t {t}");
            let h = 0x400 + 128 + 4 * t as usize + 200;
            assert_eq!(
                u16::from_le_bytes([g[h], g[h + 1]]),
                b as i8 as i16 as u16,
                "regs {regs} t {t}"
            );
        }
        let low = (GLOBAL - c.kernel.stack_bytes * 16) as usize;
        assert!(
            g[..low] == reference[..low],
            "regs {regs}: differs from the interpreter"
        );
    }
}

fn words_at(g: &[u8], a: usize) -> u32 {
    u32::from_le_bytes(g[a..a + 4].try_into().unwrap())
}

/// IR text of a kernel that keeps `n` loaded values live through a loop
/// (register pressure beyond every small budget): each thread loads
/// `in[16t .. 16t+n]`, adds up `v_i * v_(n-1-i)` `t % 3 + 1` times, then
/// xors every value into the sum.
fn pressure_kernel(n: usize) -> String {
    let mut s = String::from(
        "kernel @pressure(input, out) {\nblock0:\n    v0 = special tid.x\n    v1 = iconst 64\n    v2 = imul v0, v1\n    v3 = param 0\n    v4 = iadd v3, v2\n",
    );
    let mut next = 5;
    let mut fresh = || {
        next += 1;
        next - 1
    };
    let vals: Vec<usize> = (0..n).map(|_| fresh()).collect();
    for (i, v) in vals.iter().enumerate() {
        s += &format!("    v{v} = load.global.b32 v4+{}\n", 4 * i);
    }
    let zero = fresh();
    s += &format!("    v{zero} = iconst 0\n    jump block1(v{zero}, v{zero})\n");
    let (it, acc) = (fresh(), fresh());
    s += &format!("block1(v{it}: i32, v{acc}: i32):\n");
    let mut cur = acc;
    for i in 0..n {
        let (p, sum) = (fresh(), fresh());
        s += &format!("    v{p} = imul v{}, v{}\n", vals[i], vals[n - 1 - i]);
        s += &format!("    v{sum} = iadd v{cur}, v{p}\n");
        cur = sum;
    }
    let (one, it2, three, lim, c) = (fresh(), fresh(), fresh(), fresh(), fresh());
    s += &format!(
        "    v{one} = iconst 1\n    v{it2} = iadd v{it}, v{one}\n    v{three} = iconst 3\n    v{lim} = urem v0, v{three}\n    v{c} = icmp le v{it2}, v{lim}\n    brif v{c}, block1(v{it2}, v{cur}), block2\nblock2:\n"
    );
    let mut x = cur;
    for v in &vals {
        let y = fresh();
        s += &format!("    v{y} = bxor v{x}, v{v}\n");
        x = y;
    }
    let (two, off, o, a) = (fresh(), fresh(), fresh(), fresh());
    s += &format!(
        "    v{two} = iconst 2\n    v{off} = ishl v0, v{two}\n    v{o} = param 1\n    v{a} = iadd v{o}, v{off}\n    store.global.b32 v{x}, v{a}\n    return\n}}\n"
    );
    s
}

#[test]
fn register_pressure_spills() {
    let n = 14;
    let threads = 8u32;
    let input: Vec<u32> = (0..threads * 16)
        .map(|i| i.wrapping_mul(2654435761) >> 7)
        .collect();
    let setup = Setup {
        block: [threads, 1, 1],
        params: vec![0x100, 0x1000],
        init: vec![(0x100, input.clone())],
        ..Setup::default()
    };
    let expected: Vec<u32> = (0..threads as usize)
        .map(|t| {
            let v = &input[16 * t..16 * t + n];
            let once = (0..n).fold(0u32, |a, i| a.wrapping_add(v[i].wrapping_mul(v[n - 1 - i])));
            let sum = once.wrapping_mul(t as u32 % 3 + 1);
            v.iter().fold(sum, |a, x| a ^ x)
        })
        .collect();
    let cs = check_kernel(&pressure_kernel(n), "pressure", &setup, 0x1000, &expected);
    assert_eq!(cs[0].stats.spills, 0, "32 registers suffice");
    assert!(cs[1].stats.spills > 0 && cs[2].stats.spills > cs[1].stats.spills);
    assert!(cs[2].kernel.stack_bytes > 0);
}

/// `n` comparisons live at once: more than the 7 allocatable predicates,
/// so some are kept in general registers (and, at 6 registers, on the
/// stack). Also a comparison live across a call (predicates are
/// caller-saved). Run with 8 predicates and with the minimum of 3.
fn predicate_kernel(n: usize) -> String {
    let mut s = String::from("kernel @preds(out) {\nblock0:\n    v0 = special tid.x\n");
    let mut next = 1;
    let mut fresh = || {
        next += 1;
        next - 1
    };
    let mut conds = Vec::new();
    for i in 0..n {
        let (k, c) = (fresh(), fresh());
        s += &format!("    v{k} = iconst {i}\n    v{c} = icmp gt v0, v{k}\n");
        conds.push(c);
    }
    let zero = fresh();
    s += &format!("    v{zero} = iconst 0\n");
    let mut acc = zero;
    for (i, c) in conds.iter().enumerate().rev() {
        let (k, sum, sel) = (fresh(), fresh(), fresh());
        s += &format!(
            "    v{k} = iconst {}\n    v{sum} = iadd v{acc}, v{k}\n    v{sel} = select v{c}, v{sum}, v{acc}\n",
            1 << i
        );
        acc = sel;
    }
    // A predicate across a call, and i1 logic on it afterwards.
    let (r, both, bi, tot) = (fresh(), fresh(), fresh(), fresh());
    s += &format!(
        "    v{r} = call @id(v{acc})\n    v{both} = band v{}, v{}\n    v{bi} = bint v{both}\n    v{tot} = iadd v{r}, v{bi}\n",
        conds[1], conds[n - 2]
    );
    let (two, off, o, a) = (fresh(), fresh(), fresh(), fresh());
    s += &format!(
        "    v{two} = iconst 2\n    v{off} = ishl v0, v{two}\n    v{o} = param 0\n    v{a} = iadd v{o}, v{off}\n    store.global.b32 v{tot}, v{a}\n    return\n}}\n"
    );
    s += "\nfunc @id(i32) -> i32 {\nblock0(v0: i32):\n    return v0\n}\n";
    s
}

#[test]
fn predicate_pressure_and_demotion() {
    let n = 12;
    let text = predicate_kernel(n);
    let threads = 16u32;
    let expected: Vec<u32> = (0..threads)
        .map(|t| {
            let bits: u32 = (0..n as u32).filter(|&i| t > i).map(|i| 1 << i).sum();
            bits + u32::from(t > 1 && t > n as u32 - 2)
        })
        .collect();
    for preds in [8, 3] {
        let setup = Setup {
            block: [threads, 1, 1],
            params: vec![0x100],
            preds,
            ..Setup::default()
        };
        let cs = check_kernel(&text, "preds", &setup, 0x100, &expected);
        for c in &cs {
            assert!(c.stats.preds_demoted > 0);
            assert!(c.kernel.preds_used <= preds);
        }
    }
}
