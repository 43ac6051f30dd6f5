//! Runs every suite kernel's CUDA-C source as plain C on the host (one
//! POSIX thread per CUDA thread, a pthread barrier for `__syncthreads`,
//! GCC atomics) and checks the result with the kernel's check.
//!
//! This validates the kernels and the host references against each other
//! before the Concord compiler exists: a mismatch here is a bug in the
//! suite, not in the compiler. Blocks run one after another; `__shared__`
//! variables become function-local statics, which is equivalent because
//! every kernel initialises its shared memory before reading it. The test
//! fails, naming `scripts/setup.sh`, when no C compiler is available.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use concord_isa::container::Kernel;
use concord_isa::launch::{LaunchDescription, PreparedLaunch};
use concord_kernels::{kernels_dir, suite, CheckInput};

/// How long one host run may take before it counts as hung (a barrier
/// deadlock, say).
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

const PRELUDE: &str = r#"
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { unsigned x, y, z; } concord_dim3;
static __thread concord_dim3 threadIdx, blockIdx;
static concord_dim3 blockDim, gridDim;
static unsigned char *concord_mem;
static pthread_barrier_t concord_barrier;

#define __global__
#define __device__
#define __shared__ static
#define __syncthreads() pthread_barrier_wait(&concord_barrier)
#define CONCORD_SEQ __ATOMIC_SEQ_CST
#define atomicAdd(p, v) __atomic_fetch_add((p), (v), CONCORD_SEQ)
#define atomicAnd(p, v) __atomic_fetch_and((p), (v), CONCORD_SEQ)
#define atomicOr(p, v) __atomic_fetch_or((p), (v), CONCORD_SEQ)
#define atomicXor(p, v) __atomic_fetch_xor((p), (v), CONCORD_SEQ)
#define atomicExch(p, v) __atomic_exchange_n((p), (v), CONCORD_SEQ)
#define CONCORD_ATOMIC_PICK(p, v, better) ({                                  \
    __typeof__(p) p_ = (p);                                                    \
    __typeof__(*p_) v_ = (v);                                                  \
    __typeof__(*p_) old_ = __atomic_load_n(p_, CONCORD_SEQ);                   \
    while ((better) && !__atomic_compare_exchange_n(p_, &old_, v_, 0,          \
                                                   CONCORD_SEQ, CONCORD_SEQ)) \
        ;                                                                      \
    old_; })
#define atomicMin(p, v) CONCORD_ATOMIC_PICK(p, v, v_ < old_)
#define atomicMax(p, v) CONCORD_ATOMIC_PICK(p, v, v_ > old_)

/* Warp votes: the lanes of a warp meet at a per-warp barrier, publish
   their predicates, read all of them, and meet again before the slots
   are reused. Every live lane of the warp must reach the vote. */
#define CONCORD_MAX_THREADS 1024
static unsigned concord_lanes, concord_block_threads;
static pthread_barrier_t concord_warp_barrier[CONCORD_MAX_THREADS / 4];
static unsigned char concord_vote_slot[CONCORD_MAX_THREADS];
static __thread unsigned concord_linear;
enum { CONCORD_ANY, CONCORD_ALL, CONCORD_BALLOT };
static unsigned concord_vote(int p, int kind)
{
    unsigned warp = concord_linear / concord_lanes;
    unsigned first = warp * concord_lanes;
    unsigned live = concord_block_threads - first < concord_lanes ? concord_block_threads - first : concord_lanes;
    concord_vote_slot[concord_linear] = p != 0;
    pthread_barrier_wait(&concord_warp_barrier[warp]);
    unsigned ballot = 0;
    for (unsigned l = 0; l < live; l++)
        if (concord_vote_slot[first + l]) ballot |= 1u << l;
    pthread_barrier_wait(&concord_warp_barrier[warp]);
    unsigned everyone = live == 32 ? 0xffffffffu : (1u << live) - 1;
    return kind == CONCORD_ANY ? ballot != 0 : kind == CONCORD_ALL ? ballot == everyone : ballot;
}
#define __any_sync(mask, p) concord_vote((p), CONCORD_ANY)
#define __all_sync(mask, p) concord_vote((p), CONCORD_ALL)
#define __ballot_sync(mask, p) concord_vote((p), CONCORD_BALLOT)
"#;

const MAIN: &str = r#"
typedef struct { concord_dim3 thread, block; unsigned *params; } concord_job;

static void *concord_thread(void *arg)
{
    concord_job *job = arg;
    threadIdx = job->thread;
    blockIdx = job->block;
    concord_linear = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    concord_launch(job->params);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 10) {
        fprintf(stderr, "usage: in out gx gy gz bx by bz lanes params...\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 2; }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    concord_mem = malloc(size);
    if (fread(concord_mem, 1, size, f) != (size_t)size) { perror("read"); return 2; }
    fclose(f);
    gridDim.x = atoi(argv[3]); gridDim.y = atoi(argv[4]); gridDim.z = atoi(argv[5]);
    blockDim.x = atoi(argv[6]); blockDim.y = atoi(argv[7]); blockDim.z = atoi(argv[8]);
    concord_lanes = atoi(argv[9]);
    int nparams = argc - 10;
    unsigned params[16];
    for (int i = 0; i < nparams && i < 16; i++) params[i] = (unsigned)strtoul(argv[10 + i], NULL, 10);
    unsigned threads = blockDim.x * blockDim.y * blockDim.z;
    if (threads > CONCORD_MAX_THREADS || concord_lanes < 4 || concord_lanes > 32) { fprintf(stderr, "bad shape\n"); return 2; }
    concord_block_threads = threads;
    unsigned warps = (threads + concord_lanes - 1) / concord_lanes;
    pthread_t *tids = malloc(threads * sizeof *tids);
    concord_job *jobs = malloc(threads * sizeof *jobs);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 1 << 20);
    for (unsigned bz = 0; bz < gridDim.z; bz++)
    for (unsigned by = 0; by < gridDim.y; by++)
    for (unsigned bx = 0; bx < gridDim.x; bx++) {
        pthread_barrier_init(&concord_barrier, NULL, threads);
        for (unsigned w = 0; w < warps; w++) {
            unsigned live = threads - w * concord_lanes;
            pthread_barrier_init(&concord_warp_barrier[w], NULL, live < concord_lanes ? live : concord_lanes);
        }
        unsigned t = 0;
        for (unsigned tz = 0; tz < blockDim.z; tz++)
        for (unsigned ty = 0; ty < blockDim.y; ty++)
        for (unsigned tx = 0; tx < blockDim.x; tx++, t++) {
            jobs[t].thread = (concord_dim3){ tx, ty, tz };
            jobs[t].block = (concord_dim3){ bx, by, bz };
            jobs[t].params = params;
            if (pthread_create(&tids[t], &attr, concord_thread, &jobs[t]) != 0) { perror("thread"); return 2; }
        }
        for (t = 0; t < threads; t++) pthread_join(tids[t], NULL);
        pthread_barrier_destroy(&concord_barrier);
        for (unsigned w = 0; w < warps; w++) pthread_barrier_destroy(&concord_warp_barrier[w]);
    }
    f = fopen(argv[2], "wb");
    if (!f) { perror(argv[2]); return 2; }
    fwrite(concord_mem, 1, size, f);
    fclose(f);
    return 0;
}
"#;

/// The `__global__` function's name and (type, is-pointer) per parameter.
fn kernel_signature(source: &str) -> Result<(String, Vec<(String, bool)>), String> {
    let start = source
        .find("__global__ void ")
        .ok_or("no `__global__ void` function")?
        + "__global__ void ".len();
    let rest = &source[start..];
    let open = rest.find('(').ok_or("no parameter list")?;
    let close = rest.find(')').ok_or("no parameter list end")?;
    let name = rest[..open].trim().to_string();
    let params = rest[open + 1..close]
        .split(',')
        .map(|p| {
            let p = p.trim();
            let name_start = p
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(0, |i| i + 1);
            let ty = p[..name_start].trim().to_string();
            let pointer = ty.contains('*');
            (ty, pointer)
        })
        .collect();
    Ok((name, params))
}

fn host_program(source: &str) -> Result<String, String> {
    let (name, params) = kernel_signature(source)?;
    let args: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(i, (ty, pointer))| {
            if *pointer {
                format!("({ty})(concord_mem + p[{i}])")
            } else {
                format!("({ty})p[{i}]")
            }
        })
        .collect();
    Ok(format!(
        "{PRELUDE}\n#line 1 \"kernel.cu\"\n{source}\nstatic void concord_launch(unsigned *p) {{ {name}({}); }}\n{MAIN}",
        args.join(", ")
    ))
}

fn compiler() -> Option<String> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let works = Command::new(&cc)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    works.then_some(cc)
}

fn stub_kernel(desc: &LaunchDescription) -> Kernel {
    let mut text = String::new();
    for arg in &desc.args {
        text.push_str(&format!(".param {}\n", arg.name));
    }
    text.push_str(".entry stub\n        exit\n");
    concord_isa::asm::assemble(&text, "stub.s").expect("stub kernel assembles")
}

fn run_host(
    binary: &Path,
    launch: &PreparedLaunch,
    lanes: u32,
    work: &Path,
) -> Result<Vec<u8>, String> {
    let input = work.join("in.bin");
    let output = work.join("out.bin");
    std::fs::write(&input, &launch.global).map_err(|e| e.to_string())?;
    let mut command = Command::new(binary);
    command.arg(&input).arg(&output);
    for d in launch.grid.iter().chain(&launch.block) {
        command.arg(d.to_string());
    }
    command.arg(lanes.to_string());
    for p in &launch.params {
        command.arg(p.to_string());
    }
    let mut child = command.spawn().map_err(|e| e.to_string())?;
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            if !status.success() {
                return Err(format!("host run failed: {status}"));
            }
            break;
        }
        if started.elapsed() > RUN_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("host run hung for {RUN_TIMEOUT:?}"));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    std::fs::read(&output).map_err(|e| e.to_string())
}

#[test]
fn kernels_run_as_host_c_match_their_references() {
    // `scripts/setup.sh` installs gcc (it builds the Verilator models too);
    // a missing compiler is a broken setup, never a silent pass.
    let cc = compiler()
        .expect("no C compiler (`cc`, or $CC): run scripts/setup.sh, which installs gcc and g++");
    let work: PathBuf =
        std::env::temp_dir().join(format!("concord-kernels-host-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    let mut failures = Vec::new();
    for kernel in suite() {
        let source = std::fs::read_to_string(kernels_dir().join(kernel.source)).unwrap();
        let program = host_program(&source).unwrap_or_else(|e| panic!("{}: {e}", kernel.source));
        let c_file = work.join(format!("{}.c", kernel.name));
        let binary = work.join(kernel.name);
        std::fs::write(&c_file, program).unwrap();
        let compiled = Command::new(&cc)
            .args([
                "-O1",
                "-fwrapv",
                "-pthread",
                "-Wall",
                "-Wno-unused-variable",
                "-x",
                "c",
            ])
            .arg(&c_file)
            .arg("-o")
            .arg(&binary)
            .output()
            .unwrap();
        if !compiled.status.success() {
            failures.push(format!(
                "{}: host C compile failed:\n{}",
                kernel.source,
                String::from_utf8_lossy(&compiled.stderr)
            ));
            continue;
        }
        for launch_path in kernel.launches {
            let desc = LaunchDescription::load(&kernels_dir().join(launch_path)).unwrap();
            let config = desc.load_config().unwrap();
            let launch = desc.prepare(&stub_kernel(&desc), &config).unwrap();
            let result = run_host(&binary, &launch, config.lanes, &work).and_then(|final_memory| {
                (kernel.check)(&CheckInput {
                    launch: &launch,
                    initial: &launch.global,
                    final_memory: &final_memory,
                })
            });
            if let Err(e) = result {
                failures.push(format!("{launch_path}: {e}"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
