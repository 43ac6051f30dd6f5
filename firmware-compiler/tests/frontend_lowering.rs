//! Lowering tests: kernels through the front end, checked for the shape of
//! the IR and executed on the reference interpreter against values
//! computed by hand.

use concord_compiler::frontend::{compile_source, render, FrontendOptions};
use concord_compiler::interp::{self, InterpLaunch, InterpOptions};
use concord_compiler::ir::verify::verify_module;
use concord_compiler::ir::Module;

fn compile(src: &str) -> Module {
    match compile_source(src, "t.cu", &FrontendOptions::default()) {
        Ok((m, _warnings)) => {
            if let Err(e) = verify_module(&m) {
                panic!("verifier: {e:?}\n{m}");
            }
            // The printed module reads back (names like `@k.tile` included).
            let text = m.to_string();
            if let Err(e) = concord_compiler::ir::parse::parse_module(&text, "t.cir") {
                panic!("IR text does not parse back: {e:?}\n{text}");
            }
            m
        }
        Err(d) => panic!("{}", render(&d, src, "t.cu")),
    }
}

/// Global memory of 4 KiB; arrays are placed at fixed byte addresses.
const MEM: usize = 4096;

fn put(mem: &mut [u8], addr: u32, words: &[i32]) {
    for (k, w) in words.iter().enumerate() {
        let a = addr as usize + 4 * k;
        mem[a..a + 4].copy_from_slice(&w.to_le_bytes());
    }
}

fn get(mem: &[u8], addr: u32, n: usize) -> Vec<i32> {
    (0..n)
        .map(|k| {
            let a = addr as usize + 4 * k;
            i32::from_le_bytes(mem[a..a + 4].try_into().unwrap())
        })
        .collect()
}

/// Runs kernel `name` with `threads` threads in `blocks` blocks, 8 lanes
/// per warp.
fn run(m: &Module, name: &str, blocks: u32, threads: u32, params: &[u32], mem: &mut [u8]) {
    let k = m.func_by_name(name).expect("kernel exists");
    let launch = InterpLaunch {
        grid: [blocks, 1, 1],
        block: [threads, 1, 1],
        params: params.to_vec(),
        lanes: 8,
        shared_memory_bytes: 16 * 1024,
    };
    if let Err(e) = interp::run(m, k, &launch, mem, &InterpOptions::default()) {
        panic!("interpreter: {e:?}\n{m}");
    }
}

fn ir_text(m: &Module) -> String {
    m.to_string()
}

#[test]
fn vecadd() {
    let src = r#"
        __global__ void vecadd(const int *a, const int *b, int *c, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) c[i] = a[i] + b[i];
        }"#;
    let m = compile(src);
    let text = ir_text(&m);
    for needle in [
        "kernel @vecadd(a, b, c, n)",
        "param 3",
        "special ctaid.x",
        "special ntid.x",
        "special tid.x",
        "load.global.b32",
        "store.global.b32",
        "icmp lt",
    ] {
        assert!(text.contains(needle), "{needle}\n{text}");
    }
    let mut mem = vec![0u8; MEM];
    let a: Vec<i32> = (0..12).collect();
    let b: Vec<i32> = (0..12).map(|x| 100 * x).collect();
    put(&mut mem, 0, &a);
    put(&mut mem, 256, &b);
    put(&mut mem, 512, &[-1; 16]);
    run(&m, "vecadd", 2, 8, &[0, 256, 512, 10], &mut mem);
    let c = get(&mem, 512, 16);
    let expect: Vec<i32> = (0..16).map(|i| if i < 10 { 101 * i } else { -1 }).collect();
    assert_eq!(c, expect);
}

#[test]
fn shared_reduction_with_barriers() {
    let src = r#"
        #define THREADS 16
        __global__ void reduce(const int *in, int *out, int *total) {
            __shared__ int buf[THREADS];
            unsigned tid = threadIdx.x;
            buf[tid] = in[blockIdx.x * THREADS + tid];
            __syncthreads();
            for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
                if (tid < s) buf[tid] += buf[tid + s];
                __syncthreads();
            }
            if (tid == 0) {
                out[blockIdx.x] = buf[0];
                atomicAdd(total, buf[0]);
            }
        }"#;
    let m = compile(src);
    let text = ir_text(&m);
    assert!(text.contains("shared @reduce.buf 64 align 4"), "{text}");
    assert!(text.contains("barrier"));
    assert!(text.contains("atomic.global.add"));
    let mut mem = vec![0u8; MEM];
    let input: Vec<i32> = (1..=32).collect();
    put(&mut mem, 0, &input);
    run(&m, "reduce", 2, 16, &[0, 1024, 1100], &mut mem);
    // 1+..+16 = 136, 17+..+32 = 392.
    assert_eq!(get(&mem, 1024, 2), vec![136, 392]);
    assert_eq!(get(&mem, 1100, 1), vec![528]);
}

#[test]
fn recursive_fib() {
    let src = r#"
        __device__ int fib(int n) {
            if (n < 2) return n;
            return fib(n - 1) + fib(n - 2);
        }
        __global__ void k(int *out) { out[threadIdx.x] = fib(threadIdx.x); }"#;
    let m = compile(src);
    let text = ir_text(&m);
    assert!(
        text.contains("func @fib(i32) -> i32") || text.contains("func @fib(n: i32) -> i32"),
        "{text}"
    );
    assert!(text.contains("call @fib("));
    let mut mem = vec![0u8; MEM];
    run(&m, "k", 1, 10, &[0], &mut mem);
    assert_eq!(get(&mem, 0, 10), vec![0, 1, 1, 2, 3, 5, 8, 13, 21, 34]);
}

#[test]
fn nested_loops_with_break_and_continue() {
    // For each thread t: sum over i in 0..6, skipping i == 2, of
    // (sum over j in 0..10, stopping at j == i, of j), stopping the outer
    // loop when i == t + 3 (so t = 0 sees i = 0..2).
    let src = r#"
        __global__ void k(int *out) {
            int t = threadIdx.x, total = 0;
            for (int i = 0; i < 6; i++) {
                if (i == t + 3) break;
                if (i == 2) continue;
                int j = 0;
                while (1) {
                    if (j == i) break;
                    total += j;
                    j++;
                }
            }
            int n = 0;
            do { n++; if (n == 2) continue; total += 100; } while (n < 3);
            out[t] = total;
        }"#;
    let m = compile(src);
    // Hand: inner sum for i = 0,1,3,4,5 is 0,0,3,6,10.
    // t=0: i in {0,1} (2 skipped... i==3 breaks) -> 0; t=1: i<=3 -> 0+0+3 = 3;
    // t=2: i<=4 -> 9; t>=3: 19. The do-while adds 100 for n = 1 and 3.
    let mut mem = vec![0u8; MEM];
    run(&m, "k", 1, 5, &[0], &mut mem);
    assert_eq!(get(&mem, 0, 5), vec![200, 203, 209, 219, 219]);
}

#[test]
fn short_circuit_skips_the_faulting_side() {
    // `a` has n valid words and sits at the end of global memory: reading
    // a[n] or beyond would fault, so `i < n && a[i] > 0` must not read it.
    let src = r#"
        __global__ void k(const int *a, int n, int *out, int *count) {
            int i = threadIdx.x;
            int c = 0;
            if (i < n && a[i] > 0) out[i] = 1;
            if (i >= n || a[i] < 0) out[i + 16] = 1;
            bool t = (i > 100) && (c++ > 0);
            bool u = (i < 100) || (c++ > 0);
            count[i] = c + (t ? 10 : 0) + (u ? 20 : 0);
        }"#;
    let m = compile(src);
    let mut mem = vec![0u8; MEM];
    let base = (MEM - 16) as u32;
    put(&mut mem, base, &[5, -3, 0, 7]);
    run(&m, "k", 1, 8, &[base, 4, 0, 512], &mut mem);
    assert_eq!(get(&mem, 0, 8), vec![1, 0, 0, 1, 0, 0, 0, 0]);
    assert_eq!(get(&mem, 64, 8), vec![0, 1, 0, 0, 1, 1, 1, 1]);
    assert_eq!(get(&mem, 512, 8), vec![20; 8]);
}

#[test]
fn narrow_types_and_conversions() {
    let src = r#"
        __global__ void k(int *out, unsigned char *bytes, short *halves) {
            unsigned char uc = 250;
            uc += 10;                      // wraps to 4
            signed char sc = (signed char)200;  // -56
            short s = halves[0];           // 0xfffe sign-extends to -2
            unsigned short us = (unsigned short)halves[0]; // 65534
            int neg = -7;
            out[0] = uc;
            out[1] = sc;
            out[2] = s;
            out[3] = us;
            out[4] = neg >> 1;             // arithmetic: -4
            out[5] = (unsigned)neg >> 28;  // logical: 15
            out[6] = -1 < 0u;              // unsigned comparison: 0
            out[7] = neg / 2;              // -3 (truncating)
            out[8] = neg % 3;              // -1
            out[9] = 7u % 3;               // 1
            out[10] = bytes[1];            // 0xff as unsigned char: 255
            bytes[2] = 0x1234;             // stores 0x34
            out[11] = sizeof(short) + sizeof(int) * 10 + sizeof(char) * 100; // 142
            bool b = 5;
            out[12] = b + b;               // 2
            out[13] = ~0u == 0xffffffff;   // 1
            out[14] = (char)'\xff';        // -1
        }"#;
    let m = compile(src);
    let text = ir_text(&m);
    assert!(text.contains("load.global.s16"), "{text}");
    assert!(text.contains("load.global.u8"));
    assert!(text.contains("store.global.b8"));
    assert!(text.contains("sdiv") && text.contains("srem") && text.contains("urem"));
    assert!(text.contains("sshr") && text.contains("ushr"));
    let mut mem = vec![0u8; MEM];
    mem[1024..1028].copy_from_slice(&[1, 0xff, 0, 0]);
    mem[2048..2050].copy_from_slice(&0xfffeu16.to_le_bytes());
    run(&m, "k", 1, 1, &[0, 1024, 2048], &mut mem);
    assert_eq!(
        get(&mem, 0, 15),
        vec![4, -56, -2, 65534, -4, 15, 0, -3, -1, 1, 255, 142, 2, 1, -1]
    );
    assert_eq!(mem[1026], 0x34);
    assert_eq!(mem[1027], 0);
}

#[test]
fn pointers_arrays_and_assignment_operators() {
    let src = r#"
        #define W 4
        __shared__ int grid2[W][W + 1];
        __global__ void k(int *out) {
            int local[5] = {1, 2, 3};      // 1 2 3 0 0
            int acc = 0;
            for (int i = 0; i < 5; ++i) acc = acc * 10 + local[i];
            out[0] = acc;                  // 12300
            for (int r = 0; r < W; r++)
                for (int c = 0; c <= W; c++) grid2[r][c] = r * 10 + c;
            int *p = &grid2[2][1];
            int *q = grid2[3] + 4;
            out[1] = *p;                   // 21
            out[2] = q - p;                // (3*5+4) - (2*5+1) = 8
            out[3] = q > p;                // 1
            out[4] = *(q - 1);             // 33
            int *o = out + 5;
            *o++ = 7; *o++ = 8;            // out[5] = 7, out[6] = 8
            out[7] = o - out;              // 7
            int x = 5;
            x += 3; x -= 1; x *= 6; x /= 4; x %= 7; // 5 8 7 42 10 3
            x <<= 4; x >>= 1; x |= 1; x &= 0x1d; x ^= 3; // 48 24 25 25 26
            out[8] = x;
            int y = 1, z = y++ + ++y;       // 1 + 3
            out[9] = z * 100 + y;           // 403
            out[10] = x > 20 ? x : -x;      // 26
            { int x = 99; out[11] = x; }     // shadowing
            out[12] = x;                    // 26
        }"#;
    let m = compile(src);
    let mut mem = vec![0u8; MEM];
    run(&m, "k", 1, 1, &[0], &mut mem);
    assert_eq!(
        get(&mem, 0, 13),
        vec![12300, 21, 8, 1, 33, 7, 8, 7, 26, 403, 26, 99, 26]
    );
}

#[test]
fn atomics_on_shared_and_global() {
    let src = r#"
        __shared__ int smin;
        __global__ void k(int *g, unsigned *u) {
            int t = threadIdx.x;
            if (t == 0) smin = 1000;
            __syncthreads();
            atomicMin(&smin, 50 - t);     // min = 50 - 7 = 43
            atomicMax(&g[0], t - 3);      // max = 4
            atomicSub(&g[1], t);          // -(0+..+7) = -28
            atomicOr(&g[2], 1 << t);      // 255
            atomicMax(&u[0], (unsigned)(t - 3)); // t = 2 gives 0xffffffff, the largest
            atomicExch(&g[4], 9);
            __syncthreads();
            if (t == 0) g[3] = smin;
        }"#;
    let m = compile(src);
    let text = ir_text(&m);
    assert!(text.contains("atomic.shared.min"), "{text}");
    assert!(text.contains("atomic.global.maxu"), "{text}");
    let mut mem = vec![0u8; MEM];
    put(&mut mem, 0, &[-100, 0, 0, 0, 0]);
    run(&m, "k", 1, 8, &[0, 256], &mut mem);
    assert_eq!(get(&mem, 0, 5), vec![4, -28, 255, 43, 9]);
    assert_eq!(get(&mem, 256, 1), vec![-1]);
}

#[test]
fn warp_votes() {
    let src = r#"
        __global__ void k(int *out) {
            int t = threadIdx.x;
            unsigned b = __ballot_sync(0xffffffff, t % 3 == 0);
            int any = __any_sync(0xffffffff, t == 5);
            int all = __all_sync(0xffffffff, t < 8);
            out[t] = b + any * 1000 + all * 10000;
        }"#;
    let m = compile(src);
    assert!(ir_text(&m).contains("vote.ballot"));
    let mut mem = vec![0u8; MEM];
    run(&m, "k", 1, 8, &[0], &mut mem);
    // Lanes 0, 3, 6 -> 0b1001001 = 73.
    assert_eq!(get(&mem, 0, 8), vec![11073; 8]);
}

#[test]
fn device_functions_with_bool_and_pointer_arguments() {
    let src = r#"
        __device__ bool is_odd(int x) { return x & 1; }
        __device__ void put(int *p, bool flag, int v) { if (flag) *p = v; }
        __device__ int sum_to(int n);
        __device__ int sum_to(int n) { return n == 0 ? 0 : n + sum_to(n - 1); }
        __global__ void k(int *out) {
            int t = threadIdx.x;
            put(&out[t], is_odd(t), sum_to(t));
        }"#;
    let m = compile(src);
    let text = ir_text(&m);
    assert!(text.contains("-> i1"), "{text}");
    let mut mem = vec![0u8; MEM];
    put(&mut mem, 0, &[-1; 6]);
    run(&m, "k", 1, 6, &[0], &mut mem);
    assert_eq!(get(&mem, 0, 6), vec![-1, 1, -1, 6, -1, 15]);
}

#[test]
fn loops_have_header_body_latch_exit_shape() {
    let src = "__global__ void k(int *o) { for (int i = 0; i < 4; i++) o[i] = i; }";
    let m = compile(src);
    let f = &m.funcs[0];
    // entry, header, body, latch, exit
    assert_eq!(f.layout.len(), 5, "{m}");
    let text = ir_text(&m);
    assert!(text.contains("brif"), "{text}");
    // Every local is a 4-byte stack slot, and nothing else is used for it.
    assert!(f.stack_slots.iter().all(|s| s.size == 4 && s.align == 4));
}

#[test]
fn every_instruction_has_a_source_location() {
    let src = "__global__ void k(int *o) {\n  int x = 1;\n  o[0] = x;\n}";
    let m = compile(src);
    let f = &m.funcs[0];
    for (_, inst) in f.laid_out_insts() {
        assert!(f.inst_loc(inst).is_some());
    }
    let stores: Vec<_> = f
        .laid_out_insts()
        .filter(|(_, i)| {
            matches!(
                f.inst(*i),
                concord_compiler::ir::InstData::Store {
                    space: concord_compiler::ir::MemSpace::Global,
                    ..
                }
            )
        })
        .map(|(_, i)| f.inst_loc(i).unwrap().line)
        .collect();
    assert_eq!(stores, vec![3]);
}

#[test]
fn the_kernel_suite_compiles_without_diagnostics() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels/suite");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return; // The suite is not part of this checkout.
    };
    let mut compiled = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().map_or(true, |e| e != "cu") {
            continue;
        }
        let src = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        match compile_source(&src, &name, &FrontendOptions::default()) {
            Ok((m, warnings)) => {
                assert!(warnings.is_empty(), "{}", render(&warnings, &src, &name));
                verify_module(&m).unwrap_or_else(|e| panic!("{name}: {e:?}"));
                compiled += 1;
            }
            Err(d) => panic!("{}", render(&d, &src, &name)),
        }
    }
    assert!(compiled > 0);
}
