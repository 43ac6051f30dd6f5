//! Statement generation. Divergent statements (anything on per-lane
//! conditions) may appear anywhere; barriers, votes and the uniform loops
//! and `if`s that hold them only where `Ctx::syncs` says the whole block
//! is present; early kernel returns only in the tail, after the last
//! barrier and vote.

use super::env::{AtomKind, Ty};
use super::generator::{paren_int, Ctx, Generator, LoopCtx, Phase, Site, WORK_CALLS, WORK_LOOPS};
use super::scope::{Ptr, PtrTarget, VarKind};
use super::SyncKind;

/// The statement kinds, in the order of the weight table in `stmt`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Decl,
    Assign,
    If,
    For,
    While,
    DoWhile,
    BreakContinue,
    OutStore,
    NarrowStore,
    ArrayDecl,
    ArrayStore,
    SharedStore,
    GlobalAtomic,
    SharedAtomic,
    Call,
    PointerDecl,
    Return,
    Barrier,
    Vote,
    UniformFor,
    UniformIf,
}

const COMPOUND_OPS: [&str; 10] = ["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="];

impl Generator<'_> {
    pub(super) fn stmt(&mut self, ctx: &Ctx) {
        let kernel = ctx.in_kernel();
        let compound = ctx.depth > 0;
        let loops = compound && ctx.work <= WORK_LOOPS;
        let write_phase = kernel && self.phase == Phase::Write;
        let shared = self.env.shared.as_ref();
        let shared_atomics = shared.is_some_and(|s| s.atomics);
        let has_shared = shared.is_some();
        let has_arrays = !self.scopes.arrays().is_empty();
        let own_out_ptr = self
            .scopes
            .pointers()
            .iter()
            .any(|(_, p)| p.target == PtrTarget::OwnOut);
        let calls = self.config.allow_calls && ctx.work <= WORK_CALLS && !self.functions.is_empty();
        let returns = match ctx.site {
            Site::Kernel => ctx.tail,
            Site::Device { .. } => ctx.nested,
        };
        let table: [(Kind, u32); 21] = [
            (Kind::Decl, 14),
            (Kind::Assign, 18),
            (Kind::If, if compound { 12 } else { 0 }),
            (Kind::For, if loops { 8 } else { 0 }),
            (Kind::While, if loops { 4 } else { 0 }),
            (Kind::DoWhile, if loops { 3 } else { 0 }),
            (
                Kind::BreakContinue,
                if ctx.loop_ctx == LoopCtx::Divergent {
                    6
                } else {
                    0
                },
            ),
            (Kind::OutStore, if kernel || own_out_ptr { 7 } else { 0 }),
            (
                Kind::NarrowStore,
                if kernel && self.env.narrow_out.is_some() {
                    3
                } else {
                    0
                },
            ),
            (Kind::ArrayDecl, if loops { 3 } else { 0 }),
            (Kind::ArrayStore, if has_arrays { 5 } else { 0 }),
            (
                Kind::SharedStore,
                if write_phase && has_shared { 7 } else { 0 },
            ),
            (
                Kind::GlobalAtomic,
                if kernel && self.env.global_atomics {
                    4
                } else {
                    0
                },
            ),
            (
                Kind::SharedAtomic,
                if write_phase && shared_atomics { 4 } else { 0 },
            ),
            (
                Kind::Call,
                match (calls, kernel) {
                    (true, true) => 9,
                    (true, false) => 4,
                    _ => 0,
                },
            ),
            (
                Kind::PointerDecl,
                if self.config.allow_pointers { 3 } else { 0 },
            ),
            (Kind::Return, if returns { 3 } else { 0 }),
            (Kind::Barrier, if ctx.syncs && has_shared { 7 } else { 0 }),
            (
                Kind::Vote,
                if ctx.syncs && self.config.allow_votes {
                    5
                } else {
                    0
                },
            ),
            (
                Kind::UniformFor,
                if ctx.syncs && compound && ctx.work <= 4 {
                    4
                } else {
                    0
                },
            ),
            (Kind::UniformIf, if ctx.syncs && compound { 3 } else { 0 }),
        ];
        let weights: Vec<u32> = table.iter().map(|&(_, w)| w).collect();
        let kind = self
            .rng
            .weighted(&weights)
            .and_then(|i| table.get(i))
            .map_or(Kind::Decl, |&(k, _)| k);
        match kind {
            Kind::Decl => self.decl(ctx),
            Kind::Assign => self.assign(ctx),
            Kind::If => self.if_stmt(ctx),
            Kind::For => self.for_stmt(ctx),
            Kind::While => self.while_stmt(ctx),
            Kind::DoWhile => self.do_stmt(ctx),
            Kind::BreakContinue => self.break_continue(ctx),
            Kind::OutStore => self.out_store(ctx),
            Kind::NarrowStore => self.narrow_store(ctx),
            Kind::ArrayDecl => self.array_decl(ctx),
            Kind::ArrayStore => self.array_store(ctx),
            Kind::SharedStore => self.shared_store(ctx),
            Kind::GlobalAtomic => self.global_atomic(ctx),
            Kind::SharedAtomic => self.shared_atomic(ctx),
            Kind::Call => self.call_stmt(ctx),
            Kind::PointerDecl => self.pointer_decl(ctx),
            Kind::Return => self.return_stmt(ctx),
            Kind::Barrier => self.barrier(ctx),
            Kind::Vote => self.vote(ctx),
            Kind::UniformFor => self.uniform_for(ctx),
            Kind::UniformIf => self.uniform_if(ctx),
        }
    }

    /// A `{ ... }` body of a few statements in its own scope (the braces
    /// are written by the caller).
    fn body(&mut self, ctx: &Ctx) {
        self.scopes.push();
        let most = (self.config.max_stmts / 3).clamp(1, 5);
        let count = self.rng.range(1, i64::from(most));
        for _ in 0..count {
            self.stmt(ctx);
        }
        self.scopes.pop();
    }

    fn expr_depth(&mut self) -> u32 {
        self.rng
            .range(1, i64::from(self.config.max_expr_depth.max(1))) as u32
    }

    fn scalar_ty(&mut self) -> Ty {
        match self.rng.below(20) {
            0..=10 => Ty::Int,
            11..=16 => Ty::Uint,
            _ => Ty::Bool,
        }
    }

    fn decl(&mut self, ctx: &Ctx) {
        let ty = self.scalar_ty();
        let depth = self.expr_depth();
        let init = if ty == Ty::Bool && self.rng.chance(60) {
            self.cond(ctx, depth)
        } else {
            self.expr(ctx, depth).text
        };
        let name = self.fresh("v");
        self.src.line(format!("{} {name} = {init};", ty.c_name()));
        self.scopes
            .declare(name, VarKind::Scalar { ty, mutable: true });
    }

    fn assign(&mut self, ctx: &Ctx) {
        let targets = self.scopes.mutable_scalars();
        let Some((name, ty)) = self.rng.choose(&targets).cloned() else {
            self.decl(ctx);
            return;
        };
        let depth = self.expr_depth();
        let line = if ty == Ty::Bool {
            match self.rng.below(3) {
                0 => format!("{name} = !{name};"),
                1 => format!("{name} = {name} || {};", self.cond(ctx, depth)),
                _ => format!("{name} = {};", self.cond(ctx, depth)),
            }
        } else {
            match self.rng.below(10) {
                0 => format!("{name}++;"),
                1 => format!("--{name};"),
                2 | 3 => format!("{name} = {};", self.expr(ctx, depth).text),
                4 => {
                    let c = self.cond(ctx, depth.saturating_sub(1));
                    let a = self.expr(ctx, depth.saturating_sub(1)).text;
                    let b = self.expr(ctx, depth.saturating_sub(1)).text;
                    format!("{name} = {c} ? {a} : {b};")
                }
                _ => {
                    let op = self.rng.choose(&COMPOUND_OPS).copied().unwrap_or("+=");
                    let e = self.expr(ctx, depth).text;
                    if op == "<<=" || op == ">>=" {
                        format!("{name} {op} ({e} & 31);")
                    } else {
                        format!("{name} {op} {e};")
                    }
                }
            }
        };
        self.src.line(line);
    }

    fn if_stmt(&mut self, ctx: &Ctx) {
        let depth = self.expr_depth();
        let c = self.cond_with_effects(ctx, depth);
        let inner = ctx.divergent();
        self.src.open(format!("if ({c})"));
        self.body(&inner);
        match self.rng.below(3) {
            0 => self.src.close(""),
            1 => {
                self.src.reopen(" else {");
                self.body(&inner);
                self.src.close("");
            }
            _ => {
                let c2 = self.cond(ctx, depth);
                self.src.reopen(&format!(" else if ({c2}) {{"));
                self.body(&inner);
                if self.rng.chance(50) {
                    self.src.reopen(" else {");
                    self.body(&inner);
                }
                self.src.close("");
            }
        }
    }

    /// The context of a per-lane loop's body with trip bound `trips`.
    fn loop_body_ctx(ctx: &Ctx, trips: u32) -> Ctx {
        Ctx {
            loop_ctx: LoopCtx::Divergent,
            work: ctx.work.saturating_mul(trips.max(1)),
            ..ctx.divergent()
        }
    }

    /// A trip-count mask: 15 or 7 shallow, 3 or 1 under heavy work.
    fn trip_mask(&mut self, ctx: &Ctx) -> u32 {
        if ctx.work >= 16 || !ctx.in_kernel() {
            if self.rng.chance(50) {
                1
            } else {
                3
            }
        } else if self.rng.chance(30) {
            15
        } else {
            7
        }
    }

    /// `for` with a per-lane trip count fixed before the loop, in a
    /// read-only bound the body never writes.
    fn for_stmt(&mut self, ctx: &Ctx) {
        let mask = self.trip_mask(ctx);
        let depth = self.expr_depth();
        let seed = self.expr(ctx, depth).text;
        let n = self.fresh("n");
        let i = self.fresh("i");
        self.src.line(format!("int {n} = {seed} & {mask};"));
        self.scopes.declare(
            &n,
            VarKind::Scalar {
                ty: Ty::Int,
                mutable: false,
            },
        );
        let (header, trips) = match self.rng.below(5) {
            0 => (format!("for (int {i} = {n}; {i} > 0; {i}--)"), mask),
            1 => (
                format!("for (int {i} = 0; {i} < {n}; {i} += 2)"),
                mask.div_ceil(2),
            ),
            2 => {
                let cap = self.rng.range(2, 6) as u32;
                (
                    format!("for (int {i} = 0; {i} < {n} && {i} < {cap}; {i}++)"),
                    cap.min(mask),
                )
            }
            3 => (
                format!("for (unsigned {i} = 0u; {i} < (unsigned){n}; ++{i})"),
                mask,
            ),
            _ => (format!("for (int {i} = 0; {i} < {n}; {i}++)"), mask),
        };
        let counter_ty = if header.contains("unsigned") {
            Ty::Uint
        } else {
            Ty::Int
        };
        self.src.open(header);
        self.scopes.push();
        self.scopes.declare(
            &i,
            VarKind::Scalar {
                ty: counter_ty,
                mutable: false,
            },
        );
        let inner = Self::loop_body_ctx(ctx, trips);
        self.body(&inner);
        self.scopes.pop();
        self.src.close("");
    }

    /// `while` with a hidden guard counter, or `while (1)` left by `break`.
    fn while_stmt(&mut self, ctx: &Ctx) {
        let limit = if ctx.work >= 16 {
            2
        } else {
            self.rng.range(2, 6) as u32
        };
        let g = self.fresh("g");
        self.src.line(format!("int {g} = 0;"));
        self.scopes.declare(
            &g,
            VarKind::Scalar {
                ty: Ty::Int,
                mutable: false,
            },
        );
        let depth = self.expr_depth();
        let inner = Self::loop_body_ctx(ctx, limit);
        if self.rng.chance(30) {
            self.src.open("while (1)");
            self.src.line(format!("if ({g}++ >= {limit}) break;"));
            let c = self.cond(ctx, depth);
            self.src.line(format!("if (!{c}) break;"));
        } else {
            let c = self.cond_with_effects(ctx, depth);
            self.src.open(format!("while ({g} < {limit} && {c})"));
            self.src.line(format!("{g}++;"));
        }
        self.body(&inner);
        self.src.close("");
    }

    /// `do ... while` with a guard counted at the top of the body (so a
    /// `continue`, which jumps to the condition, still counts).
    fn do_stmt(&mut self, ctx: &Ctx) {
        let limit = if ctx.work >= 16 {
            2
        } else {
            self.rng.range(1, 5) as u32
        };
        let g = self.fresh("g");
        self.src.line(format!("int {g} = 0;"));
        self.scopes.declare(
            &g,
            VarKind::Scalar {
                ty: Ty::Int,
                mutable: false,
            },
        );
        let inner = Self::loop_body_ctx(ctx, limit);
        self.src.open("do");
        self.src.line(format!("{g}++;"));
        self.body(&inner);
        let depth = self.expr_depth();
        let c = self.cond_with_effects(ctx, depth);
        self.src.close(&format!(" while ({g} < {limit} && {c});"));
    }

    fn break_continue(&mut self, ctx: &Ctx) {
        let word = if self.rng.chance(50) {
            "break"
        } else {
            "continue"
        };
        let depth = self.expr_depth();
        let c = self.cond_with_effects(ctx, depth);
        if self.rng.chance(50) {
            self.src.line(format!("if ({c}) {word};"));
        } else {
            self.src.open(format!("if ({c})"));
            self.src.line(format!("{word};"));
            self.src.close("");
        }
    }

    fn out_store(&mut self, ctx: &Ctx) {
        let depth = self.expr_depth();
        let value = self.expr(ctx, depth).text;
        let op = match self.rng.below(4) {
            0 => "+=",
            1 => "^=",
            _ => "=",
        };
        let own: Vec<String> = self
            .scopes
            .pointers()
            .into_iter()
            .filter(|(_, p)| p.target == PtrTarget::OwnOut)
            .map(|(n, _)| n)
            .collect();
        let slot = self.index(ctx, 1, "OUT_K");
        let target = match self.rng.choose(&own) {
            Some(p) if !ctx.in_kernel() || self.rng.chance(40) => {
                if self.rng.chance(30) {
                    format!("*({p} + {slot})")
                } else {
                    format!("{p}[{slot}]")
                }
            }
            _ => format!("out[gid * OUT_K + {slot}]"),
        };
        self.src.line(format!("{target} {op} {value};"));
    }

    fn narrow_store(&mut self, ctx: &Ctx) {
        let Some(ty) = self.env.narrow_out else {
            return;
        };
        let depth = self.expr_depth();
        let value = self.expr(ctx, depth).text;
        let slot = self.index(ctx, 1, "2");
        let value = if self.rng.chance(50) {
            format!("({}){value}", ty.c_name())
        } else {
            value
        };
        self.src.line(format!("out_n[gid * 2 + {slot}] = {value};"));
    }

    fn array_decl(&mut self, ctx: &Ctx) {
        let len = 1u32 << self.rng.range(2, 4);
        let ty = if self.rng.chance(75) {
            Ty::Int
        } else {
            Ty::Uint
        };
        let a = self.fresh("a");
        let i = self.fresh("i");
        self.src.line(format!("{} {a}[{len}];", ty.c_name()));
        self.src
            .open(format!("for (int {i} = 0; {i} < {len}; {i}++)"));
        self.scopes.push();
        self.scopes.declare(
            &i,
            VarKind::Scalar {
                ty: Ty::Int,
                mutable: false,
            },
        );
        // The initialiser runs `len` times: no heavy or self calls in it.
        let inner = Ctx {
            work: ctx.work.saturating_mul(len),
            ..ctx.divergent()
        };
        let e = self.expr(&inner, 2).text;
        self.src.line(format!("{a}[{i}] = {e} + {i};"));
        self.scopes.pop();
        self.src.close("");
        self.scopes.declare(a, VarKind::Array { ty, len });
    }

    fn array_store(&mut self, ctx: &Ctx) {
        let arrays = self.scopes.arrays();
        let Some((a, _, len)) = self.rng.choose(&arrays).cloned() else {
            return;
        };
        let idx = self.index(ctx, 2, &len.to_string());
        let depth = self.expr_depth();
        let line = match self.rng.below(4) {
            0 => format!("{a}[{idx}]++;"),
            1 => format!("{a}[{idx}] += {};", self.expr(ctx, depth).text),
            _ => format!("{a}[{idx}] = {};", self.expr(ctx, depth).text),
        };
        self.src.line(line);
    }

    /// A write phase store into the thread's own shared slots.
    fn shared_store(&mut self, ctx: &Ctx) {
        let narrow = self.env.shared.as_ref().and_then(|s| s.narrow);
        let own_ptrs: Vec<String> = self
            .scopes
            .pointers()
            .into_iter()
            .filter(|(_, p)| p.target == PtrTarget::SharedOwn)
            .map(|(n, _)| n)
            .collect();
        let depth = self.expr_depth();
        let value = self.expr(ctx, depth).text;
        let target = match self.rng.below(4) {
            0 if narrow.is_some() => "shn[tid]".to_string(),
            1 if !own_ptrs.is_empty() => {
                let p = self.rng.choose(&own_ptrs).cloned().unwrap_or_default();
                format!("*{p}")
            }
            _ => {
                let slot = self.own_slot(ctx, 1);
                format!("sh0[{slot}]")
            }
        };
        let op = if self.rng.chance(30) { "+=" } else { "=" };
        self.src.line(format!("{target} {op} {value};"));
    }

    fn atomic_line(&mut self, ctx: &Ctx, array: &str, kind: AtomKind) {
        let address = self.atom_address(ctx, array, kind.region());
        let value = if kind == AtomKind::Exch {
            paren_int(self.env.exch_value)
        } else {
            let depth = self.expr_depth();
            self.expr(ctx, depth).text
        };
        self.src
            .line(format!("{}({address}, {value});", kind.function()));
    }

    /// An atomic whose old value is dropped: its order does not matter.
    fn global_atomic(&mut self, ctx: &Ctx) {
        if self.rng.chance(25) {
            let e = self.expr(ctx, 1).text;
            let depth = self.expr_depth();
            let value = self.expr(ctx, depth).text;
            let (f, base) = if self.rng.chance(50) {
                ("atomicMin", "")
            } else {
                ("atomicMax", "4 + ")
            };
            self.src
                .line(format!("{f}(&uacc[{base}({e} & 3)], {value});"));
            return;
        }
        let kind = self.atom_kind();
        self.atomic_line(ctx, "acc", kind);
    }

    fn shared_atomic(&mut self, ctx: &Ctx) {
        let kind = self.atom_kind();
        self.atomic_line(ctx, "sha", kind);
    }

    fn call_stmt(&mut self, ctx: &Ctx) {
        let voids: Vec<usize> = if ctx.in_kernel() {
            self.functions
                .iter()
                .enumerate()
                .filter(|(_, f)| f.ret.is_none() && (!f.heavy || ctx.work <= 2))
                .map(|(i, _)| i)
                .collect()
        } else {
            Vec::new()
        };
        if let Some(&index) = self.rng.choose(&voids).filter(|_| self.rng.chance(50)) {
            let Some(f) = self.functions.get(index).cloned() else {
                return;
            };
            let depth = self.expr_depth().min(2);
            let args = self.call_args(ctx, depth, &f.params, false);
            self.src.line(format!("{}({});", f.name, args.join(", ")));
            return;
        }
        let targets: Vec<(String, Ty)> = self
            .scopes
            .mutable_scalars()
            .into_iter()
            .filter(|(_, t)| *t != Ty::Bool)
            .collect();
        let depth = self.expr_depth().min(2);
        let call = self.call_expr(ctx, depth);
        match self.rng.choose(&targets).cloned() {
            Some((name, _)) if self.rng.chance(50) => {
                self.src.line(format!("{name} += {};", call.text));
            }
            _ => {
                let ty = if call.ty == Ty::Uint {
                    Ty::Uint
                } else {
                    Ty::Int
                };
                let name = self.fresh("v");
                self.src
                    .line(format!("{} {name} = {};", ty.c_name(), call.text));
                self.scopes
                    .declare(name, VarKind::Scalar { ty, mutable: true });
            }
        }
    }

    fn pointer_decl(&mut self, ctx: &Ctx) {
        let p = self.fresh("p");
        if !ctx.in_kernel() {
            // Derive a narrower pointer from one the function already has.
            let inputs: Vec<(String, Ptr)> = self
                .scopes
                .pointers()
                .into_iter()
                .filter(|(_, q)| q.target == PtrTarget::Input && q.span >= 2)
                .collect();
            let Some((base, ptr)) = self.rng.choose(&inputs).cloned() else {
                self.decl(ctx);
                return;
            };
            let span = ptr.span / 2;
            let idx = self.index(ctx, 1, &span.to_string());
            self.src
                .line(format!("{} *{p} = {base} + {idx};", ptr.elem.c_name()));
            self.scopes
                .declare(p, VarKind::Pointer(Ptr { span, ..ptr }));
            return;
        }
        let shared = self.env.shared.as_ref().map(|s| (s.words_ty, s.len));
        match self.rng.below(5) {
            0 => {
                let form = self.rng.chance(50);
                let text = if form {
                    "&out[gid * OUT_K]"
                } else {
                    "out + gid * OUT_K"
                };
                self.src.line(format!("int *{p} = {text};"));
                let ptr = Ptr {
                    elem: super::env::MemTy::I32,
                    span: self.env.out_k,
                    target: PtrTarget::OwnOut,
                };
                self.scopes.declare(p, VarKind::Pointer(ptr));
            }
            1 if shared.is_some() => {
                let (elem, len) = shared.unwrap_or((super::env::MemTy::I32, 2));
                let span = (len / 2).max(1);
                let idx = self.index(ctx, 1, &span.to_string());
                self.src
                    .line(format!("{} *{p} = sh0 + {idx};", elem.c_name()));
                let ptr = Ptr {
                    elem,
                    span,
                    target: PtrTarget::SharedAny,
                };
                self.scopes.declare(p, VarKind::Pointer(ptr));
            }
            2 if shared.is_some() => {
                let elem = shared.map_or(super::env::MemTy::I32, |s| s.0);
                let slot = self.own_slot(ctx, 1);
                self.src
                    .line(format!("{} *{p} = &sh0[{slot}];", elem.c_name()));
                let ptr = Ptr {
                    elem,
                    span: 1,
                    target: PtrTarget::SharedOwn,
                };
                self.scopes.declare(p, VarKind::Pointer(ptr));
            }
            _ => {
                let which = self.rng.below(self.env.inputs.len() as u32) as usize;
                let Some((name, elem, len)) = self
                    .env
                    .inputs
                    .get(which)
                    .map(|i| (i.name.clone(), i.ty, i.len))
                else {
                    return;
                };
                let span = len / 2;
                let idx = self.index(ctx, 1, &span.to_string());
                let text = if self.rng.chance(50) {
                    format!("{name} + {idx}")
                } else {
                    format!("&{name}[{idx}]")
                };
                self.src.line(format!("{} *{p} = {text};", elem.c_name()));
                let ptr = Ptr {
                    elem,
                    span,
                    target: PtrTarget::Input,
                };
                self.scopes.declare(p, VarKind::Pointer(ptr));
            }
        }
    }

    fn return_stmt(&mut self, ctx: &Ctx) {
        let value = match ctx.site {
            Site::Device { ret: Some(ty), .. } => {
                let depth = self.expr_depth();
                Some(self.expr_of(ctx, depth, ty))
            }
            _ => None,
        };
        let text = match value {
            Some(v) => format!("return {v};"),
            None => "return;".to_string(),
        };
        if ctx.nested && self.rng.chance(50) {
            let line = self.src.line(text);
            if ctx.in_kernel() {
                self.early_returns.push(line);
            }
            return;
        }
        let depth = self.expr_depth();
        let c = self.cond(ctx, depth);
        self.src.open(format!("if ({c})"));
        let line = self.src.line(text);
        if ctx.in_kernel() {
            self.early_returns.push(line);
        }
        self.src.close("");
    }

    /// A warp vote at a point every thread of the warp reaches.
    fn vote(&mut self, ctx: &Ctx) {
        let depth = self.expr_depth();
        let c = self.cond_with_effects(ctx, depth);
        let v = self.fresh("v");
        match self.rng.below(5) {
            0 | 1 => {
                self.record_sync(SyncKind::Vote, ctx);
                self.src
                    .line(format!("unsigned {v} = __ballot_sync(0xffffffff, {c});"));
                self.scopes.declare(
                    v,
                    VarKind::Scalar {
                        ty: Ty::Uint,
                        mutable: true,
                    },
                );
            }
            2 | 3 => {
                let f = if self.rng.chance(50) {
                    "__any_sync"
                } else {
                    "__all_sync"
                };
                self.record_sync(SyncKind::Vote, ctx);
                self.src.line(format!("int {v} = {f}(0xffffffff, {c});"));
                self.scopes.declare(
                    v,
                    VarKind::Scalar {
                        ty: Ty::Int,
                        mutable: true,
                    },
                );
            }
            _ => {
                // The vote's result is warp-uniform, not block-uniform: the
                // body is divergent code.
                let f = if self.rng.chance(50) {
                    "__any_sync"
                } else {
                    "__all_sync"
                };
                self.record_sync(SyncKind::Vote, ctx);
                self.src.open(format!("if ({f}(0xffffffff, {c}))"));
                self.body(&ctx.divergent());
                self.src.close("");
            }
        }
    }

    /// A condition every thread of the block evaluates the same way.
    fn uniform_cond(&mut self) -> String {
        match self.rng.below(5) {
            0 => format!("k0 > {}", paren_int(self.rng.range(-10, 30))),
            1 => "(k1 & 1u) != 0u".to_string(),
            2 => format!("blockIdx.x == {}u", self.rng.range(0, 2)),
            3 => "gridDim.x > 1u".to_string(),
            _ => format!("blockDim.x > {}u", self.rng.range(1, 40)),
        }
    }

    /// A loop with a block-uniform trip count (at most 4) that may hold
    /// barriers and votes; each iteration ends in the phase it began in.
    fn uniform_for(&mut self, ctx: &Ctx) {
        let u = self.fresh("u");
        let bound = match self.rng.below(5) {
            0 => "(k0 & 3) + 1".to_string(),
            1 => "k1 % 3u + 1u".to_string(),
            2 => "gridDim.x".to_string(),
            3 => "blockIdx.x + 1u".to_string(),
            _ => self.rng.range(1, 3).to_string(),
        };
        let inner = Ctx {
            loop_ctx: LoopCtx::Uniform,
            nested: true,
            depth: ctx.depth.saturating_sub(1),
            work: ctx.work.saturating_mul(4),
            ..*ctx
        };
        let entry = self.phase;
        self.src
            .open(format!("for (int {u} = 0; {u} < {bound}; {u}++)"));
        self.scopes.push();
        self.scopes.declare(
            &u,
            VarKind::Scalar {
                ty: Ty::Int,
                mutable: false,
            },
        );
        self.body(&inner);
        self.restore_phase(entry, &inner);
        self.scopes.pop();
        self.src.close("");
    }

    /// An `if` on a block-uniform condition whose branches may hold
    /// barriers and votes; both end in the phase the `if` began in.
    fn uniform_if(&mut self, ctx: &Ctx) {
        let c = self.uniform_cond();
        let inner = Ctx {
            nested: true,
            depth: ctx.depth.saturating_sub(1),
            ..*ctx
        };
        let entry = self.phase;
        self.src.open(format!("if ({c})"));
        self.body(&inner);
        self.restore_phase(entry, &inner);
        if self.rng.chance(50) {
            self.src.reopen(" else {");
            self.body(&inner);
            self.restore_phase(entry, &inner);
        }
        self.src.close("");
    }
}
