//! `concord study`: experiments from the divergence literature, run on the
//! cycle model of the core (`concord_testbench::pipeline`) with every
//! result checked against the kernel's host reference, printed as Markdown
//! tables.
//!
//! One module per study: `flatten` (Bulavintsev's loop flattening on the
//! work queue), `spill` (Sampaio's divergence-aware spilling on the suite)
//! `divergence` (Lee's branch/predicate strategies on the suite) and
//! `warps` (warps x latency x scheduler), `cores` (the suite's cycles next
//! to the recorded cycles of the first core, v1), `arbiter` (one min-key
//! tree against two: cycles, and with `--area` area);
//! `measure` holds what the suite-wide studies share.

mod arbiter;
mod cores;
mod divergence;
mod flatten;
mod measure;
mod spill;
mod warps;

#[derive(clap::Subcommand)]
pub enum Study {
    /// Loop flattening on the two-level work queue: cycles with and without
    /// flattening over k and the outer/inner work ratio.
    Flatten(flatten::FlattenStudyArgs),
    /// Divergence-aware against plain spilling per suite kernel and
    /// register budget: spills by rule, cycles, geometric-mean speedup.
    #[command(
        after_help = "Examples:\n  concord study spill\n  concord study spill --regs 6,8 --launches reduce,scan-wide"
    )]
    Spill(spill::SpillStudyArgs),
    /// Divergent branches kept, predicated or chosen per region (auto) per
    /// suite kernel: cycles, SIMD efficiency, auto against the better.
    #[command(
        after_help = "Examples:\n  concord study divergence\n  concord study divergence --regs 12 --launches mandelbrot,bfs"
    )]
    Divergence(divergence::DivergenceStudyArgs),
    /// Warps x global latency x scheduler on the cycle model:
    /// IPC and speedup over one warp on an ALU-bound and a memory-bound
    /// kernel.
    #[command(
        after_help = "Examples:\n  concord study warps\n  concord study warps --warps 1,8 --latency 100 --csv"
    )]
    Warps(warps::WarpsStudyArgs),
    /// The compiled suite's cycles, IPC and replays next to the first
    /// core's (v1, recorded before it was removed) and the speedup per
    /// launch.
    #[command(
        after_help = "Examples:\n  concord study cores\n  concord study cores --launches mandelbrot,reduce --scheduler gto"
    )]
    Cores(cores::CoresStudyArgs),
    /// One arbiter tree for branches and memory (`arbiter: unified`)
    /// against two (`split`) on the cycle model: cycles and
    /// re-arbitration waits per launch, and with --area the RTL's area.
    #[command(
        after_help = "Examples:\n  concord study arbiter\n  concord study arbiter --launches reduce,scan --scheduler gto\n  concord study arbiter --area"
    )]
    Arbiter(arbiter::ArbiterStudyArgs),
}

pub fn run(study: Study) -> Result<(), crate::error::CliError> {
    match study {
        Study::Flatten(args) => flatten::run(&args),
        Study::Spill(args) => spill::run(&args),
        Study::Divergence(args) => divergence::run(&args),
        Study::Warps(args) => warps::run(&args),
        Study::Cores(args) => cores::run(&args),
        Study::Arbiter(args) => arbiter::run(&args),
    }
}

/// The warp scheduler as a command-line value.
#[derive(Clone, Copy, clap::ValueEnum)]
enum SchedulerArg {
    Lrr,
    Gto,
}

impl SchedulerArg {
    fn scheduler(self) -> concord_isa::config::Scheduler {
        match self {
            SchedulerArg::Lrr => concord_isa::config::Scheduler::Lrr,
            SchedulerArg::Gto => concord_isa::config::Scheduler::Gto,
        }
    }
}

/// `cells` as a CSV line, or as a Markdown table row.
fn table_line(cells: &[String], csv: bool) -> String {
    if csv {
        cells.join(",")
    } else {
        format!("| {} |", cells.join(" | "))
    }
}
