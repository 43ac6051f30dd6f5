//! The back end: an IR [`Module`] to a Concord kernel image.
//!
//! Input: a verified module after SSA construction and clean-ups, with each
//! function's block order already made valid for min-PC reconvergence by
//! the layout pass. **That order is kept as the code order** (lanes
//! reconverge at the lowest PC, so it is semantic); the only blocks added
//! are split critical edges, placed by the rule in [`edge_split`].
//!
//! Per function, in order:
//!
//! 1. [`edge_split`]: critical edges carrying block arguments get a block;
//! 2. [`isel`]: IR -> [`mir`] (virtual registers), then dead-code removal
//!    ([`liveness::remove_dead_code`]);
//! 3. [`predalloc`]: `i1` values to predicate registers, demoting to
//!    general registers (0/1) when predicates run out or a call intervenes;
//! 4. [`regalloc`]: linear scan over [`liveness`] intervals, evicting with a
//!    [`regalloc::SpillPolicy`] (`--spill=plain`: constants rematerialised,
//!    other values to per-lane stack slots; `--spill=divergence-aware`:
//!    [`spill`], Sampaio's per-warp slots and affine rematerialisation);
//! 5. [`frame`]: frame layout, stack size (with [`recursion`] bounding
//!    counted self-recursion) and calling convention;
//!    [`lower`]: the rewrite to physical instructions ([`pcode`]);
//! 6. [`checker`]: re-verification of the allocated code.
//!
//! Then [`emit`] lays out the kernel, its device functions and, when used,
//! the division routine ([`runtime`]) as one image with an assembly listing.
//! `docs/compiler.md` ("Back end") describes the machine mapping.

pub mod checker;
pub mod edge_split;
pub mod emit;
pub mod frame;
pub mod isel;
pub mod liveness;
pub mod lower;
pub mod mir;
pub mod parallel_move;
pub mod pcode;
pub mod predalloc;
pub mod predication;
pub mod recursion;
pub mod regalloc;
pub mod runtime;
pub mod spill;

use std::collections::HashMap;

use concord_isa::config::CoreConfig;
use concord_isa::container::Kernel;
use concord_isa::instr::{MAX_PARAM_WORDS, MAX_PREDS, MAX_REGS};

use crate::ir::{FuncId, FuncKind, InstData, Module};
use frame::{Convention, Frame};
use mir::{MFunction, RegClass};
pub use predication::{BranchCounts, DivergenceStrategy};
use regalloc::{DefaultSpillPolicy, GprAssignment, SpillPolicy, VLoc};
pub use spill::SpillMode;

/// What the back end may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BackendOptions {
    /// General registers (`--regs N`); the core's `registers` by default.
    pub regs: u32,
    /// Predicate registers, `pt` included (the core's `predicates`).
    pub preds: u32,
    /// Per-thread stack size, overriding the computed one.
    pub stack_bytes_per_thread: Option<u32>,
    /// The core's `global_memory_bytes` (the stacks sit at its top).
    pub global_memory_bytes: u32,
    /// Where evicted values go (`--spill`).
    pub spill: SpillMode,
    /// The core's `warps` (per-warp spill slots are partitioned by them).
    pub warps: u32,
    /// The core's `shared_memory_bytes` (the per-warp spill area must fit).
    pub shared_memory_bytes: u32,
    /// What happens to divergent branches (`--divergence`).
    pub divergence: DivergenceStrategy,
}

impl BackendOptions {
    pub fn for_config(config: &CoreConfig) -> BackendOptions {
        BackendOptions {
            regs: config.registers,
            preds: config.predicates,
            stack_bytes_per_thread: None,
            global_memory_bytes: config.global_memory_bytes,
            spill: SpillMode::Plain,
            warps: config.warps,
            shared_memory_bytes: config.shared_memory_bytes,
            divergence: DivergenceStrategy::default(),
        }
    }
}

impl Default for BackendOptions {
    fn default() -> Self {
        BackendOptions::for_config(&CoreConfig::default())
    }
}

/// Numbers about one compilation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BackendStats {
    /// Instruction words of the image.
    pub instructions: u32,
    pub regs_used: u32,
    pub preds_used: u32,
    /// Values given a per-lane stack slot.
    pub spills: u32,
    /// Constants recomputed at their uses instead of kept in a register.
    pub rematerialized: u32,
    /// `i1` values kept in general registers for lack of predicates.
    pub preds_demoted: u32,
    pub spill_loads: u32,
    pub spill_stores: u32,
    /// Call sites (device functions and division routine).
    pub calls: u32,
    /// Per-thread stack bytes (`Kernel::stack_bytes`).
    pub stack_bytes: u32,
    /// Evicted values by rewrite rule (Sampaio Fig. 4.3): constants
    /// rematerialised (i), uniform values in per-warp slots (ii),
    /// `c1·T + c0` rematerialised (iii), affine values with their uniform
    /// part in a per-warp slot (iv), and per-lane slots (= `spills`).
    pub remat_constant: u32,
    pub per_warp_uniform: u32,
    pub remat_affine_constant: u32,
    pub affine_uniform_part: u32,
    pub per_lane: u32,
    /// Values that wanted a per-warp slot but went per lane because the
    /// shared memory was full.
    pub warp_slot_fallbacks: u32,
    /// Per-warp slots of the kernel and the shared bytes they take
    /// (`warps × slots × 4`, included in `Kernel::shared_bytes`).
    pub warp_slots: u32,
    pub warp_spill_bytes: u32,
    /// Conditional branches by what became of them (`--divergence`).
    pub branches: BranchCounts,
}

/// A compiled kernel: the image, its listing and statistics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompiledKernel {
    pub kernel: Kernel,
    /// Assembly text that assembles to exactly `kernel.code`.
    pub listing: String,
    pub stats: BackendStats,
    /// Where the kernel function's evicted general registers went, by
    /// virtual register (vreg `i` is IR value `i` of the kernel when `i` is
    /// below its value count).
    pub kernel_evictions: Vec<(mir::VReg, VLoc)>,
    /// Why the control-flow strategy could not be followed everywhere.
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BackendError {
    #[error("back end options: {0}")]
    Options(String),
    #[error("@{func}: {message}")]
    Unsupported { func: String, message: String },
    #[error("internal back-end error in @{func}: {message}")]
    Internal { func: String, message: String },
    #[error("register allocation checker (after the `regalloc` pass) rejected @{func} of kernel @{kernel}: {message}")]
    Checker {
        kernel: String,
        func: String,
        message: String,
    },
    #[error("emitting kernel @{kernel}: {message}")]
    Emit { kernel: String, message: String },
}

/// One function on its way through the pipeline.
struct Unit {
    id: FuncId,
    mf: MFunction,
    /// Whether predication changed the function (its allocation is then
    /// checked with the help of liveness).
    predicated: bool,
    /// Per MIR block: runs under a predication mask.
    masked: Vec<bool>,
    preds: predalloc::PredAssignment,
    gprs: GprAssignment,
    conv: Convention,
}

/// The device functions reachable from `kernel` through calls, kernel
/// first, then in discovery order.
fn reachable(module: &Module, kernel: FuncId) -> Vec<FuncId> {
    let mut order = vec![kernel];
    let mut i = 0;
    while i < order.len() {
        let f = module.func(order[i]);
        for (_, inst) in f.laid_out_insts() {
            if let InstData::Call { func, .. } = f.inst(inst) {
                if func.index() < module.funcs.len() && !order.contains(func) {
                    order.push(*func);
                }
            }
        }
        i += 1;
    }
    order
}

/// Compiles `kernel` and every device function it reaches into one image.
pub fn compile_kernel(
    module: &Module,
    kernel: FuncId,
    options: &BackendOptions,
) -> Result<CompiledKernel, BackendError> {
    if !(4..=MAX_REGS as u32).contains(&options.regs) {
        return Err(BackendError::Options(format!(
            "a register budget of {} is outside 4..={MAX_REGS}",
            options.regs
        )));
    }
    if !(3..=MAX_PREDS as u32).contains(&options.preds) {
        return Err(BackendError::Options(format!(
            "{} predicates is outside 3..={MAX_PREDS} (pt and two are needed)",
            options.preds
        )));
    }
    let Some(kfunc) = module.funcs.get(kernel.index()) else {
        return Err(BackendError::Options(format!(
            "{kernel} is not a function of the module"
        )));
    };
    if kfunc.kind != FuncKind::Kernel {
        return Err(BackendError::Options(format!(
            "@{} is not a kernel",
            kfunc.name
        )));
    }
    if kfunc.param_names.len() > MAX_PARAM_WORDS {
        return Err(BackendError::Unsupported {
            func: kfunc.name.clone(),
            message: format!("more than {MAX_PARAM_WORDS} parameter words"),
        });
    }
    let shared = crate::interp::shared_layout(module).map_err(|e| BackendError::Unsupported {
        func: kfunc.name.clone(),
        message: e.to_string(),
    })?;

    // Control-flow strategy, selection and predicate allocation.
    let mut notes = Vec::new();
    let mut branch_counts = BranchCounts::default();
    let mut units = Vec::new();
    let mut ir_funcs = HashMap::new();
    for id in reachable(module, kernel) {
        let mut func = module.func(id).clone();
        let input_ok = crate::layout_verify::verify_layout(&func).is_ok();
        if options.divergence != DivergenceStrategy::Branch {
            predication::preheader::insert_preheaders(&mut func);
        }
        edge_split::split_critical_edges(&mut func);
        // The added blocks must keep a valid layout valid.
        if input_ok {
            if let Err(e) = crate::layout_verify::verify_layout(&func) {
                return Err(BackendError::Internal {
                    func: func.name.clone(),
                    message: format!("edge splitting broke the layout: {e}"),
                });
            }
        }
        let prepared = predication::prepare(&mut func, options.divergence);
        if input_ok {
            if let Err(e) = crate::layout_verify::verify_layout(&func) {
                return Err(BackendError::Internal {
                    func: func.name.clone(),
                    message: format!("the `predication` pass broke the layout: {e}"),
                });
            }
        }
        notes.extend(prepared.notes.iter().cloned());
        let mut mf = isel::select(module, id, &func, &shared.offsets)?;
        let counts = predication::apply(&prepared, &func, &mut mf).map_err(|message| {
            BackendError::Internal {
                func: func.name.clone(),
                message: format!(
                    "the `predication` pass of kernel @{}: {message}",
                    kfunc.name
                ),
            }
        })?;
        branch_counts.uniform += counts.uniform;
        branch_counts.divergent_kept += counts.divergent_kept;
        branch_counts.predicated += counts.predicated;
        branch_counts.runtime_checked += counts.runtime_checked;
        branch_counts.loop_consensual += counts.loop_consensual;
        liveness::remove_dead_code(&mut mf);
        let preds = predalloc::allocate_predicates(&mut mf, options.preds)?;
        let masked = func.layout.iter().map(|&b| prepared.masked(b)).collect();
        units.push(Unit {
            id,
            masked,
            predicated: counts.predicated + counts.runtime_checked + counts.loop_consensual > 0,
            mf,
            preds,
            gprs: GprAssignment::default(),
            conv: Convention::new(options.regs, false, false),
        });
        ir_funcs.insert(id, func);
    }

    // The per-warp spill area follows the kernel's shared variables.
    let warp_base = shared.size.next_multiple_of(4);
    let warp_capacity = match options.spill {
        SpillMode::Plain => 0,
        SpillMode::DivergenceAware => options
            .shared_memory_bytes
            .saturating_sub(warp_base)
            .checked_div(4 * options.warps)
            .unwrap_or(0),
    };
    let policies: Vec<Box<dyn SpillPolicy>> = units
        .iter()
        .map(|u| -> Box<dyn SpillPolicy> {
            match options.spill {
                SpillMode::Plain => Box::new(DefaultSpillPolicy::new(&u.mf)),
                SpillMode::DivergenceAware => {
                    let capacity = if u.id == kernel { warp_capacity } else { 0 };
                    Box::new(spill::DivergenceSpillPolicy::new(
                        &u.mf,
                        &ir_funcs[&u.id],
                        &u.masked,
                        capacity,
                    ))
                }
            }
        })
        .collect();

    // General registers. The stack pointer is reserved when anything needs
    // a stack; spills discovered here may require a second round with it.
    let mut needs_stack = units.len() > 1
        || units
            .iter()
            .any(|u| u.mf.divides || !module.func(u.id).stack_slots.is_empty());
    loop {
        let mut spilled = false;
        for (u, policy) in units.iter_mut().zip(&policies) {
            let policy = policy.as_ref();
            let conv = Convention::new(options.regs, needs_stack, false);
            let mut gprs = regalloc::allocate_gprs(&u.mf, &conv.allocatable(), policy);
            let mut conv_used = conv;
            if gprs.evicted_any() {
                let conv = Convention::new(options.regs, needs_stack, true);
                gprs = regalloc::allocate_gprs(&u.mf, &conv.allocatable(), policy);
                conv_used = conv;
            }
            spilled |= gprs.spilled > 0;
            u.gprs = gprs;
            u.conv = conv_used;
        }
        if spilled && !needs_stack {
            needs_stack = true;
            continue;
        }
        break;
    }
    let divides = units.iter().any(|u| u.mf.divides);
    if divides && options.regs < 6 {
        return Err(BackendError::Options(format!(
            "@{} divides; the division routine needs a budget of at least 6 registers, not {}",
            kfunc.name, options.regs
        )));
    }
    if needs_stack && options.global_memory_bytes % 8 != 0 {
        return Err(BackendError::Options(format!(
            "global memory of {} bytes is not a multiple of 8; the stacks need 8-byte alignment",
            options.global_memory_bytes
        )));
    }

    // Frames and stack size.
    let mut frames = HashMap::new();
    let mut frame_sizes = HashMap::new();
    let mut callees = HashMap::new();
    for u in &units {
        let func = &ir_funcs[&u.id];
        let params = func
            .entry_block()
            .filter(|_| func.kind == FuncKind::Device)
            .map_or(0, |e| func.block(e).params.len());
        let on_stack = params.saturating_sub(u.conv.max_args()) as u32;
        let frame = Frame::new(func, u.gprs.slots, on_stack)?;
        frame_sizes.insert(u.id, (frame.size, u.mf.divides));
        callees.insert(u.id, u.mf.callees());
        frames.insert(u.id, frame);
    }
    let stack_bytes = if needs_stack {
        let ids: Vec<FuncId> = units.iter().map(|u| u.id).collect();
        let bounded = recursion::self_recursion_frames(module, &ids);
        let need = frame::stack_size(kernel, &frame_sizes, &callees, &bounded);
        let s = match options.stack_bytes_per_thread {
            Some(s) => {
                let s = u64::from(s).next_multiple_of(8);
                if s < need.minimum {
                    return Err(BackendError::Options(format!(
                        "a stack of {s} bytes per thread is smaller than the {} bytes @{} needs{}",
                        need.minimum,
                        kfunc.name,
                        if need.recursive {
                            " for one call of each function on its deepest call chain (recursion needs more)"
                        } else {
                            ""
                        }
                    )));
                }
                s
            }
            None => need.size,
        };
        if s == 0 || s > u64::from(options.global_memory_bytes) {
            return Err(BackendError::Options(format!(
                "a per-thread stack of {s} bytes does not fit a global memory of {} bytes",
                options.global_memory_bytes
            )));
        }
        s as u32
    } else {
        0
    };

    // Rewrite, check, emit.
    let kernel_warp_slots = units
        .iter()
        .find(|u| u.id == kernel)
        .map_or(0, |u| u.gprs.warp_slots);
    let warp_spill_bytes = kernel_warp_slots * 4 * options.warps;
    let mut stats = BackendStats {
        branches: branch_counts,
        stack_bytes,
        warp_slots: kernel_warp_slots,
        warp_spill_bytes,
        ..BackendStats::default()
    };
    let mut kernel_evictions = Vec::new();
    let mut code = Vec::new();
    for u in &units {
        let mut locs: Vec<Option<VLoc>> = u.gprs.locs.clone();
        locs.resize(u.mf.num_vregs(), None);
        for (i, p) in u.preds.preds.iter().enumerate() {
            if let (Some(p), Some(RegClass::Pred)) = (p, u.mf.classes.get(i)) {
                locs[i] = Some(VLoc::Pred(*p));
            }
        }
        let ctx = lower::LowerContext {
            conv: &u.conv,
            frame: &frames[&u.id],
            kernel_stack: (u.id == kernel && needs_stack)
                .then_some((stack_bytes, options.global_memory_bytes)),
            warp_area: (u.gprs.warp_slots > 0).then_some(lower::WarpArea {
                base: warp_base,
                stride: 4 * u.gprs.warp_slots,
            }),
        };
        if u.id == kernel {
            kernel_evictions = (0..u.mf.num_vregs())
                .filter_map(|i| match u.gprs.locs.get(i).copied().flatten() {
                    Some(l) if !matches!(l, VLoc::Reg(_) | VLoc::Pred(_)) => {
                        Some((mir::VReg(i as u32), l))
                    }
                    _ => None,
                })
                .collect();
        }
        let (pf, ls) = lower::lower(&u.mf, &locs, &ctx)?;
        let checked = if u.predicated {
            let live = liveness::Liveness::compute(&u.mf);
            let live_in = (0..u.mf.blocks.len())
                .map(|b| {
                    (
                        pcode::Label::Block(u.mf.func, b as u32),
                        live.live_in[b].clone(),
                    )
                })
                .collect();
            checker::check_predicated(&pf, u.conv.sp, &live_in)
        } else {
            checker::check(&pf, u.conv.sp)
        };
        checked.map_err(|message| BackendError::Checker {
            kernel: kfunc.name.clone(),
            func: u.mf.name.clone(),
            message,
        })?;
        stats.spills += u.gprs.spilled;
        stats.rematerialized += u.gprs.rematerialized;
        stats.remat_constant += u.gprs.rematerialized;
        stats.per_lane += u.gprs.spilled;
        stats.per_warp_uniform += u.gprs.per_warp_uniform;
        stats.remat_affine_constant += u.gprs.remat_affine_constant;
        stats.affine_uniform_part += u.gprs.affine_uniform_part;
        stats.warp_slot_fallbacks += u.gprs.warp_slot_fallbacks;
        stats.preds_demoted += u.preds.demoted as u32;
        stats.spill_loads += ls.spill_loads;
        stats.spill_stores += ls.spill_stores;
        stats.calls += ls.calls;
        code.push(pf);
    }
    if divides {
        let sp = Convention::new(options.regs, true, false)
            .sp
            .ok_or_else(|| BackendError::Internal {
                func: kfunc.name.clone(),
                message: "division without a stack pointer".into(),
            })?;
        code.push(runtime::division_routine(sp));
    }
    let info = emit::KernelInfo {
        name: &kfunc.name,
        params: &kfunc.param_names,
        shared_bytes: if warp_spill_bytes > 0 {
            warp_base + warp_spill_bytes
        } else {
            shared.size
        },
        stack_bytes,
    };
    let (kernel_image, listing) = emit::emit(&code, &info)?;
    stats.instructions = kernel_image.code.len() as u32;
    stats.regs_used = kernel_image.regs_used;
    stats.preds_used = kernel_image.preds_used;
    Ok(CompiledKernel {
        kernel: kernel_image,
        listing,
        stats,
        kernel_evictions,
        notes,
    })
}
