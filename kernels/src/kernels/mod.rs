//! The kernels of the suite, one module each: the host reference of the
//! algorithm and the table entry naming its source and launches.

use crate::{Pattern, SuiteKernel};

mod avgsquare;
mod bfs;
mod bitonic;
mod collatz_vote;
mod histogram;
mod mandelbrot;
mod matmul;
mod nqueens;
mod nw;
mod pathfinder;
mod reduce;
mod saxpy;
mod scan;
mod spmv;
mod sumtriangle;
mod vecadd;
mod workqueue;

/// Builds a suite entry whose check compares against `$module::reference`.
macro_rules! entry {
    ($name:literal, $module:ident :: $reference:ident, [$($launch:literal),+ $(,)?], [$($pattern:ident),+ $(,)?]) => {
        SuiteKernel {
            name: $name,
            source: concat!("suite/", $name, ".cu"),
            launches: &[$(concat!("suite/", $launch, ".yaml")),+],
            check: |input| crate::compare::against_reference(input, $module::$reference),
            reference: $module::$reference,
            patterns: &[$(Pattern::$pattern),+],
        }
    };
}

pub(crate) static SUITE: &[SuiteKernel] = &[
    entry!(
        "vecadd",
        vecadd::reference,
        ["vecadd", "vecadd-wide", "vecadd-small"],
        [Uniform, BoundsCheck]
    ),
    entry!(
        "saxpy",
        saxpy::reference,
        ["saxpy", "saxpy-small"],
        [BoundsCheck, DataDependentLoop]
    ),
    entry!(
        "reduce",
        reduce::reference,
        ["reduce", "reduce-wide", "reduce-odd", "reduce-small"],
        [Barriers, Atomics, DataDependentLoop]
    ),
    entry!(
        "scan",
        scan::reference,
        ["scan", "scan-wide", "scan-small"],
        [Barriers, BoundsCheck]
    ),
    entry!(
        "histogram",
        histogram::reference,
        ["histogram", "histogram-wide", "histogram-small"],
        [Atomics, Barriers, NarrowMemory, Division]
    ),
    entry!(
        "matmul",
        matmul::reference,
        ["matmul", "matmul-wide", "matmul-small"],
        [Barriers, BoundsCheck]
    ),
    entry!(
        "bitonic",
        bitonic::reference,
        ["bitonic", "bitonic-wide", "bitonic-small"],
        [Barriers]
    ),
    entry!(
        "nqueens",
        nqueens::reference,
        ["nqueens", "nqueens-8", "nqueens-small"],
        [Recursion, DataDependentLoop, EarlyExit, Atomics, Division]
    ),
    entry!(
        "nqueens_stack",
        nqueens::reference,
        ["nqueens_stack", "nqueens_stack-wide", "nqueens_stack-small"],
        [LocalArrays, DataDependentLoop, EarlyExit, Atomics, Division]
    ),
    entry!(
        "bfs",
        bfs::reference,
        ["bfs", "bfs-wide", "bfs-small"],
        [Barriers, Atomics, DataDependentLoop]
    ),
    entry!(
        "pathfinder",
        pathfinder::reference,
        ["pathfinder", "pathfinder-wide", "pathfinder-small"],
        [Barriers]
    ),
    entry!(
        "nw",
        nw::reference,
        ["nw", "nw-wide", "nw-small"],
        [Barriers, DataDependentLoop, NarrowMemory]
    ),
    entry!(
        "mandelbrot",
        mandelbrot::reference,
        ["mandelbrot", "mandelbrot-wide", "mandelbrot-small"],
        [DataDependentLoop, EarlyExit, BoundsCheck]
    ),
    entry!(
        "spmv",
        spmv::reference,
        ["spmv", "spmv-wide", "spmv-small"],
        [DataDependentLoop, BoundsCheck, NarrowMemory]
    ),
    entry!(
        "avgsquare",
        avgsquare::reference,
        ["avgsquare", "avgsquare-wide", "avgsquare-small"],
        [Uniform, BoundsCheck, Division]
    ),
    entry!(
        "sumtriangle",
        sumtriangle::reference,
        ["sumtriangle", "sumtriangle-wide", "sumtriangle-small"],
        [DataDependentLoop, BoundsCheck, Division]
    ),
    entry!(
        "workqueue",
        workqueue::reference,
        ["workqueue", "workqueue-wide", "workqueue-small"],
        [DataDependentLoop, EarlyExit, Division]
    ),
    entry!(
        "collatz_vote",
        collatz_vote::reference,
        ["collatz_vote", "collatz_vote-wide", "collatz_vote-small"],
        [DataDependentLoop, Votes, BoundsCheck, Division]
    ),
];
