//! Expression generation. Every expression is side-effect free except the
//! operands of `&&`/`||` chains in conditions (`cond_with_effects`), where
//! C sequences them; every memory index is masked into bounds; shift
//! amounts are masked to `0..32`; shared reads respect the phase.

use super::env::{MemTy, Ty};
use super::generator::{paren_int, Ctx, FnParam, Generator, Phase, Site, REC_MASK, WORK_CALLS};
use super::scope::PtrTarget;

/// A generated expression: C text (parenthesised where it matters) and
/// its C type after promotion.
#[derive(Clone, Debug)]
pub(super) struct Expr {
    pub(super) text: String,
    pub(super) ty: Ty,
}

impl Expr {
    fn new(text: impl Into<String>, ty: Ty) -> Expr {
        Expr {
            text: text.into(),
            ty,
        }
    }
}

const ARITH_OPS: [&str; 10] = ["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"];
const CMP_OPS: [&str; 6] = ["==", "!=", "<", "<=", ">", ">="];

impl Generator<'_> {
    /// An expression of any type, at most `depth` operators deep.
    pub(super) fn expr(&mut self, ctx: &Ctx, depth: u32) -> Expr {
        if depth == 0 {
            return self.leaf(ctx);
        }
        let calls_ok = self.callable(ctx).is_some();
        let weights = [
            20,                           // leaf
            8,                            // unary
            38,                           // binary arithmetic
            10,                           // comparison
            4,                            // && / ||
            6,                            // ?:
            6,                            // cast
            14,                           // load
            if calls_ok { 5 } else { 0 }, // call
        ];
        match self.rng.weighted(&weights).unwrap_or(0) {
            1 => self.unary(ctx, depth),
            2 => self.binary(ctx, depth),
            3 => {
                let text = self.comparison(ctx, depth);
                Expr::new(text, Ty::Bool)
            }
            4 => {
                let a = self.cond(ctx, depth - 1);
                let b = self.cond(ctx, depth - 1);
                let op = if self.rng.chance(50) { "&&" } else { "||" };
                Expr::new(format!("({a} {op} {b})"), Ty::Bool)
            }
            5 => {
                let c = self.cond(ctx, depth - 1);
                let a = self.expr(ctx, depth - 1);
                let b = self.expr(ctx, depth - 1);
                let ty = if a.ty == Ty::Bool && b.ty == Ty::Bool {
                    Ty::Bool
                } else {
                    Ty::arith(a.ty, b.ty)
                };
                Expr::new(format!("({c} ? {} : {})", a.text, b.text), ty)
            }
            6 => self.cast(ctx, depth),
            7 => self.load(ctx, depth - 1),
            8 => self.call_expr(ctx, depth - 1),
            _ => self.leaf(ctx),
        }
    }

    /// An expression converted to `ty` where C would not do it implicitly
    /// in an obvious way (bool results of arithmetic).
    pub(super) fn expr_of(&mut self, ctx: &Ctx, depth: u32, ty: Ty) -> String {
        let e = self.expr(ctx, depth);
        match (ty, e.ty) {
            (Ty::Bool, Ty::Bool) => e.text,
            (Ty::Bool, _) => format!("({} != 0)", e.text),
            _ => e.text,
        }
    }

    fn leaf(&mut self, ctx: &Ctx) -> Expr {
        let vars = self.scopes.scalars(None);
        let weights = [
            if vars.is_empty() { 0 } else { 55 },
            25, // literal
            10, // special register
            if ctx.in_kernel() { 6 } else { 0 },
        ];
        match self.rng.weighted(&weights).unwrap_or(1) {
            0 => match self.rng.choose(&vars) {
                Some((name, ty)) => Expr::new(name.clone(), *ty),
                None => self.literal(),
            },
            2 => self.special(),
            3 => {
                if self.rng.chance(50) {
                    Expr::new("k0", Ty::Int)
                } else {
                    Expr::new("k1", Ty::Uint)
                }
            }
            _ => self.literal(),
        }
    }

    pub(super) fn literal(&mut self) -> Expr {
        match self.rng.below(12) {
            0..=4 => Expr::new(self.rng.range(0, 16).to_string(), Ty::Int),
            5 => Expr::new(paren_int(self.rng.range(-16, -1)), Ty::Int),
            6 => Expr::new(format!("{}u", self.rng.range(0, 40)), Ty::Uint),
            7 => {
                let special: [(&str, Ty); 8] = [
                    ("2147483647", Ty::Int),
                    ("(-2147483647 - 1)", Ty::Int),
                    ("0x7fffffff", Ty::Int),
                    ("0xffffffff", Ty::Uint),
                    ("0x80000000u", Ty::Uint),
                    ("4294967295u", Ty::Uint),
                    ("65535", Ty::Int),
                    ("(-1)", Ty::Int),
                ];
                let (text, ty) = self.rng.choose(&special).copied().unwrap_or(("1", Ty::Int));
                Expr::new(text, ty)
            }
            8 => Expr::new(paren_int(self.rng.range(-1000, 1000)), Ty::Int),
            9 => Expr::new(format!("0x{:x}", self.rng.range(0, 0x7fff_ffff)), Ty::Int),
            10 => Expr::new(if self.rng.chance(50) { "true" } else { "false" }, Ty::Bool),
            _ => Expr::new(paren_int(self.rng.range(-100, 300)), Ty::Int),
        }
    }

    fn special(&mut self) -> Expr {
        let base = ["threadIdx", "blockIdx", "blockDim", "gridDim"];
        let b = self.rng.choose(&base).copied().unwrap_or("threadIdx");
        let dim = match self.rng.below(6) {
            0 => "y",
            1 => "z",
            _ => "x",
        };
        // The built-ins are `unsigned` in CUDA.
        Expr::new(format!("{b}.{dim}"), Ty::Uint)
    }

    fn unary(&mut self, ctx: &Ctx, depth: u32) -> Expr {
        let e = self.expr(ctx, depth - 1);
        match self.rng.below(3) {
            0 => {
                let ty = e.ty.promoted();
                Expr::new(format!("(-{})", e.text), ty)
            }
            1 => {
                let ty = e.ty.promoted();
                Expr::new(format!("(~{})", e.text), ty)
            }
            _ => Expr::new(format!("(!{})", e.text), Ty::Bool),
        }
    }

    fn binary(&mut self, ctx: &Ctx, depth: u32) -> Expr {
        let a = self.expr(ctx, depth - 1);
        let b = self.expr(ctx, depth - 1);
        let op = self.rng.choose(&ARITH_OPS).copied().unwrap_or("+");
        match op {
            // Shift amounts at or above the width are undefined in C.
            "<<" | ">>" => Expr::new(
                format!("({} {op} ({} & 31))", a.text, b.text),
                a.ty.promoted(),
            ),
            _ => Expr::new(
                format!("({} {op} {})", a.text, b.text),
                Ty::arith(a.ty, b.ty),
            ),
        }
    }

    fn comparison(&mut self, ctx: &Ctx, depth: u32) -> String {
        let a = self.expr(ctx, depth.saturating_sub(1));
        let mut b = self.expr(ctx, depth.saturating_sub(1));
        if b.text == a.text {
            // `x == x` says nothing; one more draw usually differs.
            b = self.expr(ctx, depth.saturating_sub(1));
        }
        let op = self.rng.choose(&CMP_OPS).copied().unwrap_or("<");
        format!("({} {op} {})", a.text, b.text)
    }

    fn cast(&mut self, ctx: &Ctx, depth: u32) -> Expr {
        let e = self.expr(ctx, depth - 1);
        let mut casts: Vec<(&str, Ty)> =
            vec![("int", Ty::Int), ("unsigned", Ty::Uint), ("bool", Ty::Bool)];
        if self.config.allow_narrow {
            for ty in MemTy::NARROW {
                casts.push((ty.c_name(), Ty::Int));
            }
        }
        let (name, ty) = self.rng.choose(&casts).copied().unwrap_or(("int", Ty::Int));
        Expr::new(format!("(({name}){})", e.text), ty)
    }

    /// A condition: a comparison, a boolean, or an integer used as a truth
    /// value, possibly negated or combined.
    pub(super) fn cond(&mut self, ctx: &Ctx, depth: u32) -> String {
        match self.rng.below(8) {
            0 => {
                let e = self.expr(ctx, depth);
                format!("({})", e.text)
            }
            1 if depth > 0 => {
                let inner = self.cond(ctx, depth - 1);
                format!("(!{inner})")
            }
            2 if depth > 0 => {
                let a = self.cond(ctx, depth - 1);
                let b = self.cond(ctx, depth - 1);
                let op = if self.rng.chance(50) { "&&" } else { "||" };
                format!("({a} {op} {b})")
            }
            3 => {
                let bools = self.scopes.scalars(Some(Ty::Bool));
                match self.rng.choose(&bools) {
                    Some((name, _)) => name.clone(),
                    None => self.comparison(ctx, depth),
                }
            }
            4 => {
                // A lane-dependent test, the bread and butter of divergence.
                let e = self.expr(ctx, depth.saturating_sub(1));
                let m = self.rng.range(1, 7);
                let v = self.rng.range(0, m);
                let lane = if ctx.in_kernel() {
                    "tid"
                } else {
                    "threadIdx.x"
                };
                format!(
                    "((({lane} + {}) & {m}) {} {v})",
                    e.text,
                    if self.rng.chance(50) { "==" } else { ">" }
                )
            }
            _ => self.comparison(ctx, depth),
        }
    }

    /// A condition whose `&&`/`||` operands may update variables
    /// (`(x++ > 3) && (y += 2)`); each effect is alone in its operand, so
    /// C sequences it.
    pub(super) fn cond_with_effects(&mut self, ctx: &Ctx, depth: u32) -> String {
        let targets: Vec<(String, Ty)> = self
            .scopes
            .mutable_scalars()
            .into_iter()
            .filter(|(_, ty)| *ty != Ty::Bool)
            .collect();
        if targets.is_empty() || !self.rng.chance(40) {
            return self.cond(ctx, depth);
        }
        let operands = self.rng.range(2, 3);
        let mut parts = Vec::new();
        for _ in 0..operands {
            if self.rng.chance(50) {
                let (v, _) = self
                    .rng
                    .choose(&targets)
                    .cloned()
                    .unwrap_or_else(|| ("k0".into(), Ty::Int));
                let lit = self.rng.range(-3, 9);
                let effect = match self.rng.below(5) {
                    0 => format!("({v}++ > {})", paren_int(lit)),
                    1 => format!("(--{v} != {})", paren_int(lit)),
                    2 => format!(
                        "(({v} += {}) < {})",
                        self.rng.range(1, 5),
                        paren_int(lit * 3)
                    ),
                    3 => format!("({v} -= {})", self.rng.range(1, 4)),
                    _ => format!("(({v} ^= {}) & 1)", self.rng.range(1, 15)),
                };
                parts.push(effect);
            } else {
                parts.push(self.cond(ctx, depth.saturating_sub(1)));
            }
        }
        let mut text = parts.first().cloned().unwrap_or_else(|| "true".into());
        for part in parts.iter().skip(1) {
            let op = if self.rng.chance(55) { "&&" } else { "||" };
            text = format!("({text} {op} {part})");
        }
        text
    }

    /// An index expression masked into `0..len` (`len` a power of two).
    pub(super) fn index(&mut self, ctx: &Ctx, depth: u32, len_text: &str) -> String {
        let e = self.expr(ctx, depth);
        format!("({} & ({len_text} - 1))", e.text)
    }

    /// A memory read: an input buffer, a local array, a pointer, or shared
    /// memory as the phase allows.
    fn load(&mut self, ctx: &Ctx, depth: u32) -> Expr {
        let arrays = self.scopes.arrays();
        let pointers: Vec<_> = self
            .scopes
            .pointers()
            .into_iter()
            .filter(|(_, p)| p.target != PtrTarget::SharedAny || self.phase == Phase::Read)
            .collect();
        let shared = ctx.in_kernel() && self.env.shared.is_some();
        let weights = [
            if ctx.in_kernel() { 40 } else { 0 },
            if arrays.is_empty() { 0 } else { 20 },
            if pointers.is_empty() { 0 } else { 20 },
            if shared { 20 } else { 0 },
        ];
        match self.rng.weighted(&weights) {
            Some(0) => {
                let which = self.rng.below(self.env.inputs.len() as u32) as usize;
                let Some((name, ty, len)) = self
                    .env
                    .inputs
                    .get(which)
                    .map(|i| (i.name.clone(), i.ty, i.len_macro.clone()))
                else {
                    return self.literal();
                };
                let idx = self.index(ctx, depth, &len);
                Expr::new(format!("{name}[{idx}]"), ty.loaded())
            }
            Some(1) => match self.rng.choose(&arrays).cloned() {
                Some((name, ty, len)) => {
                    let idx = self.index(ctx, depth, &len.to_string());
                    Expr::new(format!("{name}[{idx}]"), ty)
                }
                None => self.literal(),
            },
            Some(2) => match self.rng.choose(&pointers).cloned() {
                Some((name, ptr)) => {
                    let ty = ptr.elem.loaded();
                    if ptr.span == 1 {
                        return Expr::new(format!("(*{name})"), ty);
                    }
                    let idx = self.index(ctx, depth, &ptr.span.to_string());
                    if self.rng.chance(30) {
                        Expr::new(format!("(*({name} + {idx}))"), ty)
                    } else {
                        Expr::new(format!("{name}[{idx}]"), ty)
                    }
                }
                None => self.literal(),
            },
            Some(3) => self.shared_load(ctx, depth),
            _ => self.literal(),
        }
    }

    /// `tid`'s own slot of `sh0`: `tid` or `tid + SH_P * (e & 1)`.
    pub(super) fn own_slot(&mut self, ctx: &Ctx, depth: u32) -> String {
        let slots = self.env.shared.as_ref().map_or(1, |s| s.slots_per_thread);
        if slots > 1 && self.rng.chance(60) {
            let e = self.expr(ctx, depth);
            format!("tid + SH_P * ({} & {})", e.text, slots - 1)
        } else {
            "tid".to_string()
        }
    }

    fn shared_load(&mut self, ctx: &Ctx, depth: u32) -> Expr {
        let Some(shared) = &self.env.shared else {
            return self.literal();
        };
        let word_ty = shared.words_ty.loaded();
        let narrow = shared.narrow;
        let atomics = shared.atomics;
        if self.phase == Phase::Write {
            // Only the thread's own slots are stable during a write phase.
            if narrow.is_some() && self.rng.chance(30) {
                return Expr::new("shn[tid]", Ty::Int);
            }
            let slot = self.own_slot(ctx, depth);
            return Expr::new(format!("sh0[{slot}]"), word_ty);
        }
        match self.rng.below(8) {
            0 => Expr::new(format!("sh0[{}]", self.rng.range(0, 3)), word_ty), // broadcast
            1 => {
                // Strided: bank conflicts on a banked shared memory.
                let stride = 1 << self.rng.range(1, 4);
                Expr::new(format!("sh0[(tid * {stride}) & (SH_N - 1)]"), word_ty)
            }
            2 => Expr::new(
                format!("sh0[(tid + {}) & (SH_N - 1)]", self.rng.range(1, 9)),
                word_ty,
            ),
            3 if narrow.is_some() => {
                let idx = self.index(ctx, depth, "SH_P");
                Expr::new(format!("shn[{idx}]"), Ty::Int)
            }
            4 if atomics => {
                let idx = self.index(ctx, depth, "ATOM_N");
                Expr::new(format!("sha[{idx}]"), Ty::Int)
            }
            _ => {
                let idx = self.index(ctx, depth, "SH_N");
                Expr::new(format!("sh0[{idx}]"), word_ty)
            }
        }
    }

    /// Functions the context may call in an expression: value-returning,
    /// within the call-depth budget, and the current function itself when
    /// it is recursive and has self-calls left.
    fn callable(&self, ctx: &Ctx) -> Option<Vec<usize>> {
        if ctx.work > WORK_CALLS {
            return None;
        }
        let limit = match ctx.site {
            Site::Kernel => self.functions.len(),
            Site::Device { index, .. } => index,
        };
        let mut list: Vec<usize> = self
            .functions
            .iter()
            .enumerate()
            .take(limit)
            .filter(|(_, f)| f.ret.is_some())
            .filter(|(_, f)| match (ctx.site, self.current_fn) {
                (Site::Device { .. }, Some(cur)) => self.functions.get(cur).is_some_and(|c| {
                    let own = if c.recursive { REC_MASK + 1 } else { 1 };
                    own + f.frame_depth <= c.frame_depth
                }),
                _ => true,
            })
            // Heavy callees only outside loops and never from heavy code.
            .filter(|(_, f)| {
                !f.heavy
                    || match (ctx.site, self.current_fn) {
                        (Site::Kernel, _) => ctx.work <= 2,
                        (Site::Device { .. }, Some(cur)) => {
                            ctx.work == 1 && !self.functions.get(cur).is_some_and(|c| c.recursive)
                        }
                        _ => false,
                    }
            })
            // A device function can pass on only a pointer it has.
            .filter(|(_, f)| {
                ctx.in_kernel()
                    || f.params.iter().all(|p| match *p {
                        FnParam::Input { span } => self.has_input_pointer(span),
                        FnParam::OwnOut => false,
                        _ => true,
                    })
            })
            .map(|(i, _)| i)
            .collect();
        if let (Site::Device { index, .. }, Some(cur)) = (ctx.site, self.current_fn) {
            let recursive = self.functions.get(cur).is_some_and(|f| f.recursive);
            if index == cur && recursive && self.self_calls_left > 0 && ctx.work == 1 {
                list.push(cur);
            }
        }
        (!list.is_empty()).then_some(list)
    }

    pub(super) fn call_expr(&mut self, ctx: &Ctx, depth: u32) -> Expr {
        let Some(list) = self.callable(ctx) else {
            return self.literal();
        };
        let Some(&index) = self.rng.choose(&list) else {
            return self.literal();
        };
        let Some(f) = self.functions.get(index).cloned() else {
            return self.literal();
        };
        let is_self = self.current_fn == Some(index);
        if f.heavy && !is_self {
            self.called_heavy = true;
        }
        if is_self {
            self.self_calls_left = self.self_calls_left.saturating_sub(1);
        }
        let args = self.call_args(ctx, depth, &f.params, is_self);
        Expr::new(
            format!("{}({})", f.name, args.join(", ")),
            f.ret.unwrap_or(Ty::Int),
        )
    }

    /// Arguments for a call: the depth strictly decreasing for a self-call
    /// and masked to `0..=REC_MASK` otherwise; pointers into `in_i` with
    /// room for the callee's span; the caller's own `out` slots.
    pub(super) fn call_args(
        &mut self,
        ctx: &Ctx,
        depth: u32,
        params: &[FnParam],
        is_self: bool,
    ) -> Vec<String> {
        let mut args = Vec::new();
        for param in params {
            let arg = match *param {
                FnParam::Depth if is_self => "d - 1".to_string(),
                FnParam::Depth => {
                    let e = self.expr(ctx, depth.min(1));
                    let mask = if ctx.work > 4 { 1 } else { REC_MASK };
                    format!("{} & {mask}", e.text)
                }
                FnParam::Scalar(ty) => self.expr_of(ctx, depth, ty),
                FnParam::Input { span } => self.input_pointer_arg(ctx, depth, span),
                FnParam::OwnOut => {
                    if ctx.in_kernel() {
                        if self.rng.chance(50) {
                            "&out[gid * OUT_K]".to_string()
                        } else {
                            "out + gid * OUT_K".to_string()
                        }
                    } else {
                        "o".to_string()
                    }
                }
            };
            args.push(arg);
        }
        args
    }

    fn has_input_pointer(&self, span: u32) -> bool {
        self.scopes
            .pointers()
            .iter()
            .any(|(_, p)| p.target == PtrTarget::Input && p.elem == MemTy::I32 && p.span >= span)
    }

    fn input_pointer_arg(&mut self, ctx: &Ctx, depth: u32, span: u32) -> String {
        let reusable: Vec<String> = self
            .scopes
            .pointers()
            .into_iter()
            .filter(|(_, p)| p.target == PtrTarget::Input && p.elem == MemTy::I32 && p.span >= span)
            .map(|(n, _)| n)
            .collect();
        if !reusable.is_empty() && self.rng.chance(50) {
            if let Some(name) = self.rng.choose(&reusable) {
                return name.clone();
            }
        }
        if !ctx.in_kernel() {
            return reusable.first().cloned().unwrap_or_else(|| "src".into());
        }
        // `in_i` has `2 * span` elements, so any offset below `span` leaves
        // `span` valid elements.
        match self.rng.below(3) {
            0 => "in_i".to_string(),
            1 => {
                let idx = self.index(ctx, depth.min(2), &span.to_string());
                format!("in_i + {idx}")
            }
            _ => {
                let idx = self.index(ctx, depth.min(2), &span.to_string());
                format!("&in_i[{idx}]")
            }
        }
    }

    /// `&acc[...]` for an atomic of the given region.
    pub(super) fn atom_address(&mut self, ctx: &Ctx, array: &str, region: u32) -> String {
        let e = self.expr(ctx, 1);
        if self.rng.chance(25) {
            format!("{array} + ({region} + ({} & 3))", e.text)
        } else {
            format!("&{array}[{region} + ({} & 3)]", e.text)
        }
    }
}
