//! The generator proper: draws the device functions and the kernel, keeping
//! the bookkeeping (context of every statement, shared-memory phase, call
//! depths) that makes the result valid by construction. Expressions are in
//! `expr.rs`, statements in `stmt.rs`.

use super::env::{AtomKind, Env, MemTy, Ty, ATOM_WORDS};
use super::rng::Rng;
use super::scope::{Ptr, PtrTarget, Scopes, VarKind};
use super::source::Source;
use super::{GenConfig, SyncKind, SyncPoint};

/// Where shared memory is between two barriers. A write phase lets each
/// thread write only its own slots (and run shared atomics); a read phase
/// lets every thread read any slot and nobody write. Barriers alternate
/// the two, so no two threads ever race.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Phase {
    Write,
    Read,
}

/// What kind of loop encloses a statement (for `break`/`continue`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum LoopCtx {
    None,
    /// A per-lane loop: `break`/`continue` are allowed.
    Divergent,
    /// A block-uniform loop holding barriers: no `break`/`continue`, which
    /// would make its barriers divergent.
    Uniform,
}

/// Which function a statement is in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Site {
    Kernel,
    /// Device function number `index`, returning `ret` (`None`: `void`).
    Device {
        index: usize,
        ret: Option<Ty>,
    },
}

/// The context of one statement or expression.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ctx {
    pub(super) site: Site,
    /// Every thread of the block reaches this point together.
    pub(super) uniform: bool,
    /// Barriers and votes may be placed here (uniform and before the tail).
    pub(super) syncs: bool,
    /// In the kernel's tail: after the last barrier and vote, so a thread
    /// may return early.
    pub(super) tail: bool,
    pub(super) loop_ctx: LoopCtx,
    /// Inside a compound statement (not at a function's top level).
    pub(super) nested: bool,
    /// Remaining nesting of compound statements.
    pub(super) depth: u32,
    /// Product of the trip bounds of the enclosing loops: keeps the
    /// executed work (and the simulators' time) small.
    pub(super) work: u32,
}

impl Ctx {
    pub(super) fn in_kernel(&self) -> bool {
        self.site == Site::Kernel
    }

    /// The context of a divergent nested body.
    pub(super) fn divergent(self) -> Ctx {
        Ctx {
            uniform: false,
            syncs: false,
            nested: true,
            depth: self.depth.saturating_sub(1),
            ..self
        }
    }
}

/// One parameter of a device function.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum FnParam {
    Scalar(Ty),
    /// `int d`: the recursion depth, strictly decreasing, base case `d <= 0`.
    Depth,
    /// `int *p` into `in_i`, valid for `0..span`.
    Input {
        span: u32,
    },
    /// `int *o`: the calling thread's own `out` slots.
    OwnOut,
}

/// A generated `__device__` function.
#[derive(Clone, Debug)]
pub(super) struct DeviceFn {
    pub(super) name: String,
    pub(super) params: Vec<FnParam>,
    pub(super) ret: Option<Ty>,
    pub(super) recursive: bool,
    /// The deepest call nesting one call of it can reach (itself included).
    pub(super) frame_depth: u32,
    /// Recursive, or calls a heavy function: one call may run many
    /// invocations, so it is never called from loops or other heavy code.
    pub(super) heavy: bool,
}

/// Frames a recursive function's depth argument allows: `d` is masked with
/// this at call sites, so at most `REC_MASK + 1` nested frames.
pub(super) const REC_MASK: u32 = 3;
/// Call nesting budget: the default core traps beyond 15 nested calls.
const FRAME_BUDGET: u32 = 12;
/// Work (product of trip bounds) beyond which no more loops are nested.
pub(super) const WORK_LOOPS: u32 = 64;
/// Work beyond which no calls are generated.
pub(super) const WORK_CALLS: u32 = 8;

pub(super) struct Generator<'a> {
    pub(super) rng: Rng,
    pub(super) config: &'a GenConfig,
    pub(super) env: Env,
    pub(super) src: Source,
    pub(super) scopes: Scopes,
    pub(super) next_name: u32,
    pub(super) functions: Vec<DeviceFn>,
    /// The function being generated, which may call itself when recursive.
    pub(super) current_fn: Option<usize>,
    /// Self-calls still allowed in the current recursive function's body.
    pub(super) self_calls_left: u32,
    /// The current function has called a heavy function.
    pub(super) called_heavy: bool,
    pub(super) phase: Phase,
    pub(super) sync_points: Vec<SyncPoint>,
    pub(super) early_returns: Vec<u32>,
}

impl<'a> Generator<'a> {
    pub(super) fn new(seed: u64, config: &'a GenConfig) -> Generator<'a> {
        let mut rng = Rng::new(seed);
        let env = Env::draw(seed, &mut rng, config);
        Generator {
            rng,
            config,
            env,
            src: Source::default(),
            scopes: Scopes::default(),
            next_name: 0,
            functions: Vec::new(),
            current_fn: None,
            self_calls_left: 0,
            called_heavy: false,
            phase: Phase::Read,
            sync_points: Vec::new(),
            early_returns: Vec::new(),
        }
    }

    pub(super) fn fresh(&mut self, prefix: &str) -> String {
        let name = format!("{prefix}{}", self.next_name);
        self.next_name += 1;
        name
    }

    /// The whole translation unit.
    pub(super) fn program(&mut self, seed: u64) {
        self.src.line(format!(
            "// Concord random kernel, kernel_gen seed {seed}: valid, race-free and deterministic by construction"
        ));
        self.defines();
        if self.config.allow_calls {
            let count = self
                .rng
                .range(1, i64::from(self.config.max_functions.max(1)));
            for index in 0..count as usize {
                self.device_function(index);
            }
        }
        self.kernel();
    }

    fn defines(&mut self) {
        let mut lines = vec![format!("#define OUT_K {}", self.env.out_k)];
        for input in &self.env.inputs {
            lines.push(format!("#define {} {}", input.len_macro, input.len));
        }
        if let Some(shared) = &self.env.shared {
            lines.push(format!("#define SH_N {}", shared.len));
            lines.push(format!("#define SH_P {}", self.env.threads_pow2));
            if shared.atomics {
                lines.push(format!("#define ATOM_N {ATOM_WORDS}"));
            }
        }
        for line in lines {
            self.src.line(line);
        }
        self.src.line("");
    }

    /// Records a barrier or vote at the line about to be written.
    pub(super) fn record_sync(&mut self, kind: SyncKind, ctx: &Ctx) {
        self.sync_points.push(SyncPoint {
            kind,
            line: self.src.next_line_number(),
            in_kernel: ctx.in_kernel(),
            uniform: ctx.uniform,
            before_tail: !ctx.tail,
        });
    }

    /// `__syncthreads();`, which flips the shared-memory phase.
    pub(super) fn barrier(&mut self, ctx: &Ctx) {
        self.record_sync(SyncKind::Barrier, ctx);
        self.src.line("__syncthreads();");
        self.phase = match self.phase {
            Phase::Write => Phase::Read,
            Phase::Read => Phase::Write,
        };
    }

    /// Ends a uniform body (loop iteration, `if` branch) in the phase it
    /// started in, so every path and every iteration agree.
    pub(super) fn restore_phase(&mut self, entry: Phase, ctx: &Ctx) {
        if self.phase != entry {
            self.barrier(ctx);
        }
    }

    // ---- device functions -------------------------------------------

    fn device_function(&mut self, index: usize) {
        let want_rec = self.config.allow_recursion && self.rng.chance(45);
        let want_void = !want_rec && index > 0 && self.rng.chance(30);
        let own_frames = if want_rec { REC_MASK + 1 } else { 1 };
        let callee_depth = self
            .functions
            .iter()
            .filter(|f| f.ret.is_some() && own_frames + f.frame_depth <= FRAME_BUDGET)
            .map(|f| f.frame_depth)
            .max()
            .unwrap_or(0);

        let mut params = Vec::new();
        if want_rec {
            params.push(FnParam::Depth);
        }
        if want_void {
            params.push(FnParam::OwnOut);
        }
        for _ in 0..self.rng.range(1, 3) {
            let ty = match self.rng.below(6) {
                0 | 1 => Ty::Uint,
                2 => Ty::Bool,
                _ => Ty::Int,
            };
            params.push(FnParam::Scalar(ty));
        }
        let input_span = self.input_i_len() / 2;
        if self.rng.chance(35) {
            params.push(FnParam::Input { span: input_span });
        }
        let ret = if want_void {
            None
        } else if self.rng.chance(25) {
            Some(Ty::Uint)
        } else {
            Some(Ty::Int)
        };
        let prefix = if want_rec {
            "rec"
        } else if want_void {
            "put"
        } else {
            "fn"
        };
        let name = format!("{prefix}{index}");
        self.functions.push(DeviceFn {
            name: name.clone(),
            params: params.clone(),
            ret,
            recursive: want_rec,
            frame_depth: own_frames + callee_depth,
            heavy: want_rec,
        });

        self.scopes = Scopes::default();
        self.scopes.push();
        let mut decls = Vec::new();
        let mut scalar_names = Vec::new();
        for param in &params {
            let pname = match param {
                FnParam::Depth => "d".to_string(),
                FnParam::OwnOut => "o".to_string(),
                FnParam::Input { .. } => "src".to_string(),
                FnParam::Scalar(_) => self.fresh("x"),
            };
            match *param {
                FnParam::Depth => {
                    decls.push(format!("int {pname}"));
                    self.scopes.declare(
                        &pname,
                        VarKind::Scalar {
                            ty: Ty::Int,
                            mutable: false,
                        },
                    );
                }
                FnParam::OwnOut => {
                    decls.push(format!("int *{pname}"));
                    self.scopes.declare(
                        &pname,
                        VarKind::Pointer(Ptr {
                            elem: MemTy::I32,
                            span: self.env.out_k,
                            target: PtrTarget::OwnOut,
                        }),
                    );
                }
                FnParam::Input { span } => {
                    decls.push(format!("int *{pname}"));
                    self.scopes.declare(
                        &pname,
                        VarKind::Pointer(Ptr {
                            elem: MemTy::I32,
                            span,
                            target: PtrTarget::Input,
                        }),
                    );
                }
                FnParam::Scalar(ty) => {
                    decls.push(format!("{} {pname}", ty.c_name()));
                    scalar_names.push(pname.clone());
                    self.scopes
                        .declare(&pname, VarKind::Scalar { ty, mutable: true });
                }
            }
        }
        let ret_name = ret.map_or("void", Ty::c_name);
        self.src.open(format!(
            "__device__ {ret_name} {name}({})",
            decls.join(", ")
        ));

        self.current_fn = Some(index);
        self.self_calls_left = if want_rec { 2 } else { 0 };
        self.called_heavy = false;
        let ctx = Ctx {
            site: Site::Device { index, ret },
            uniform: false,
            syncs: false,
            tail: true,
            loop_ctx: LoopCtx::None,
            nested: false,
            depth: self.config.max_depth.saturating_sub(1).max(1),
            work: 1,
        };
        if want_rec {
            // The base case comes first, so every self-call below passes
            // `d - 1 >= 0`.
            self.src.open("if (d <= 0)");
            let saved = self.self_calls_left;
            self.self_calls_left = 0;
            let value = ret.map(|t| self.expr_of(&ctx, 2, t));
            self.self_calls_left = saved;
            match value {
                Some(v) => self.src.line(format!("return {v};")),
                None => self.src.line("return;"),
            };
            self.src.close("");
        }
        let count = self
            .rng
            .range(1, i64::from(self.config.max_stmts.clamp(1, 8)));
        for _ in 0..count {
            self.stmt(&ctx);
        }
        if let Some(ty) = ret {
            let value = self.expr_of(&ctx, 3, ty);
            self.src.line(format!("return {value};"));
        }
        self.src.close("");
        self.src.line("");
        if self.called_heavy {
            if let Some(f) = self.functions.get_mut(index) {
                f.heavy = true;
            }
        }
        self.current_fn = None;
        self.self_calls_left = 0;
    }

    pub(super) fn input_i_len(&self) -> u32 {
        self.env.inputs.first().map_or(32, |i| i.len)
    }

    // ---- the kernel ---------------------------------------------------

    fn kernel(&mut self) {
        self.scopes = Scopes::default();
        self.scopes.push();
        let mut params = Vec::new();
        for input in &self.env.inputs {
            params.push(format!("{} *{}", input.ty.c_name(), input.name));
        }
        params.push("int *out".into());
        if let Some(ty) = self.env.narrow_out {
            params.push(format!("{} *out_n", ty.c_name()));
        }
        if self.env.global_atomics {
            params.push("int *acc".into());
            params.push("unsigned *uacc".into());
        }
        params.push("int k0".into());
        params.push("unsigned k1".into());
        self.src.open(format!(
            "__global__ void {}({})",
            self.env.kernel_name,
            params.join(", ")
        ));
        for (name, ty) in [("k0", Ty::Int), ("k1", Ty::Uint)] {
            self.scopes
                .declare(name, VarKind::Scalar { ty, mutable: false });
        }

        let mut shared_lines = Vec::new();
        if let Some(shared) = &self.env.shared {
            shared_lines.push(format!(
                "__shared__ {} sh0[SH_N];",
                shared.words_ty.c_name()
            ));
            if let Some(ty) = shared.narrow {
                shared_lines.push(format!("__shared__ {} shn[SH_P];", ty.c_name()));
            }
            if shared.atomics {
                shared_lines.push("__shared__ int sha[ATOM_N];".into());
            }
        }
        for line in shared_lines {
            self.src.line(line);
        }
        self.src
            .line("int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);");
        self.src
            .line("int nthr = blockDim.x * blockDim.y * blockDim.z;");
        self.src
            .line("int bid = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);");
        self.src.line("int gid = bid * nthr + tid;");
        for name in ["tid", "nthr", "bid", "gid"] {
            self.scopes.declare(
                name,
                VarKind::Scalar {
                    ty: Ty::Int,
                    mutable: false,
                },
            );
        }

        let top = Ctx {
            site: Site::Kernel,
            uniform: true,
            syncs: true,
            tail: false,
            loop_ctx: LoopCtx::None,
            nested: false,
            depth: self.config.max_depth.max(1),
            work: 1,
        };
        self.shared_prologue(&top);

        let count = self.rng.range(
            i64::from(self.config.max_stmts / 2).max(1),
            i64::from(self.config.max_stmts.max(1)),
        ) as u32;
        let has_syncs = self.env.shared.is_some() || self.config.allow_votes;
        let tail_start = if has_syncs {
            self.rng.range(i64::from(count / 2), i64::from(count)) as u32
        } else {
            0
        };
        for i in 0..count {
            let ctx = Ctx {
                syncs: i < tail_start,
                tail: i >= tail_start,
                ..top
            };
            self.stmt(&ctx);
        }
        self.epilogue();
        self.src.close("");
    }

    /// Initialises every shared word (strided over the block), then a
    /// barrier: the kernel body starts in the read phase.
    fn shared_prologue(&mut self, ctx: &Ctx) {
        let Some(shared) = &self.env.shared else {
            return;
        };
        let narrow = shared.narrow;
        let atomics = shared.atomics;
        let mul = self.rng.range(2, 9);
        let add = self.rng.range(-9, 9);
        let i = self.fresh("i");
        self.src
            .line(format!("for (int {i} = tid; {i} < SH_N; {i} += nthr) sh0[{i}] = in_i[{i} & (N_I - 1)] * {mul} + {};",
            paren_int(add)));
        if narrow.is_some() {
            let j = self.fresh("i");
            self.src.line(format!(
                "for (int {j} = tid; {j} < SH_P; {j} += nthr) shn[{j}] = in_i[({j} * 3) & (N_I - 1)] ^ {j};"
            ));
        }
        if atomics {
            let j = self.fresh("i");
            let mul = self.rng.range(-40, 40);
            self.src.line(format!(
                "for (int {j} = tid; {j} < ATOM_N; {j} += nthr) sha[{j}] = {j} * {};",
                paren_int(mul)
            ));
        }
        self.phase = Phase::Write;
        self.barrier(ctx);
    }

    /// Folds the outermost variables into the thread's last `out` slot, and
    /// (in a read phase) one shared word into its first.
    fn epilogue(&mut self) {
        let h = self.fresh("h");
        self.src
            .line(format!("int {h} = {};", self.rng.range(1, 99)));
        for (name, _) in self.scopes.outermost_scalars() {
            if name == h {
                continue;
            }
            self.src.line(format!("{h} = {h} * 31 + {name};"));
        }
        self.src
            .line(format!("out[gid * OUT_K + (OUT_K - 1)] ^= {h};"));
        if self.env.shared.is_some() && self.phase == Phase::Read {
            self.src
                .line("out[gid * OUT_K] += sh0[(tid * 5 + 1) & (SH_N - 1)];");
        }
    }

    /// Atomic kinds usable on `acc`/`sha`.
    pub(super) fn atom_kind(&mut self) -> AtomKind {
        self.rng
            .choose(&AtomKind::ALL)
            .copied()
            .unwrap_or(AtomKind::Add)
    }
}

/// An `int` literal, parenthesised when negative (and spelled without
/// overflow for `INT_MIN`).
pub(super) fn paren_int(v: i64) -> String {
    if v == i64::from(i32::MIN) {
        "(-2147483647 - 1)".to_string()
    } else if v < 0 {
        format!("({v})")
    } else {
        v.to_string()
    }
}
