//! The checker: resolves names, computes C types, makes the implicit
//! conversions explicit and applies the CUDA-specific rules, turning the
//! [`ast`](super::ast) into the typed tree of [`hir`](super::hir).
//!
//! Fourth step of the front end (after parsing, before lowering). Besides
//! type errors it reports the subset's limits (pointers to local memory,
//! partial-warp vote masks, `__shared__` memory beyond the core's size)
//! and two warnings: `__syncthreads()` under a condition that depends on
//! `threadIdx` (a syntactic taint analysis), and device functions whose
//! every path calls themselves before returning.

use std::collections::{HashMap, HashSet};

use concord_isa::instr::{AtomOp, Cmp, SpecialReg};

use super::ast::{self, BaseType, FuncQualifier};
use super::diag::{Diagnostic, Span};
use super::hir::*;
use super::types::{IntTy, Space, Ty};
use super::FrontendOptions;
use crate::ir::{BinaryOp, UnaryOp, VoteOp};

/// An error has been reported; the caller abandons the construct.
type R<T> = Result<T, ()>;

/// Checks a parsed translation unit. Diagnostics are appended to `diags`;
/// the program is meaningful only if no error was reported.
pub fn check(
    unit: &ast::TranslationUnit,
    options: &FrontendOptions,
    diags: &mut Vec<Diagnostic>,
) -> Program {
    let mut c = Checker {
        diags,
        options,
        sigs: Vec::new(),
        sig_by_name: HashMap::new(),
        shared: Vec::new(),
        shared_used: 0,
        globals: HashMap::new(),
        f: FuncState::default(),
    };
    c.collect_signatures(unit);
    let mut program = Program::default();
    for item in &unit.items {
        match item {
            ast::Item::Global(decl) => c.file_scope_decl(decl),
            ast::Item::Function(def) => {
                if let Some(body) = &def.body {
                    if let Some(f) = c.function(def, body) {
                        program.funcs.push(f);
                    }
                }
            }
        }
    }
    program.shared = c.shared;
    program
}

/// What callers need to know about a function.
#[derive(Clone, Debug)]
struct Signature {
    name: String,
    kernel: bool,
    params: Vec<Ty>,
    ret: Ty,
    span: Span,
    /// Index in [`Program::funcs`] of the definition, if any.
    index: Option<usize>,
}

#[derive(Clone, Debug)]
enum Symbol {
    Var(VarId),
    Shared(usize, Ty),
}

/// Per-function state.
#[derive(Default)]
struct FuncState {
    vars: Vec<Var>,
    scopes: Vec<HashMap<String, Symbol>>,
    ret: Option<Ty>,
    name: String,
    loop_depth: u32,
    /// How many enclosing conditions depend on `threadIdx`.
    divergent: u32,
    /// Variables assigned a value that depends on `threadIdx`.
    tainted: HashSet<VarId>,
}

struct Checker<'a> {
    diags: &'a mut Vec<Diagnostic>,
    options: &'a FrontendOptions,
    sigs: Vec<Signature>,
    sig_by_name: HashMap<String, usize>,
    shared: Vec<SharedVar>,
    shared_used: u64,
    globals: HashMap<String, Symbol>,
    f: FuncState,
}

fn base_ty(b: BaseType) -> Ty {
    match b {
        BaseType::Void => Ty::Void,
        BaseType::Bool => Ty::BOOL,
        BaseType::Char => Ty::Int(IntTy::Char),
        BaseType::UChar => Ty::Int(IntTy::UChar),
        BaseType::Short => Ty::Int(IntTy::Short),
        BaseType::UShort => Ty::Int(IntTy::UShort),
        BaseType::Int => Ty::INT,
        BaseType::UInt => Ty::UINT,
    }
}

fn pointer_to(mut t: Ty, levels: u32, space: Space) -> Ty {
    for _ in 0..levels {
        t = Ty::Ptr(Box::new(t), space);
    }
    t
}

fn konst(v: i32, ty: Ty, span: Span) -> Expr {
    Expr::new(ExprKind::Const(v), ty, span)
}

/// Evaluates a constant expression (literals, `sizeof`, operators), with
/// the IR's 32-bit semantics. A flat chain is folded along its left spine
/// with a loop.
pub fn const_eval(e: &Expr) -> Option<i32> {
    let (spine, leaf) = e.left_spine();
    let mut value = match &leaf.kind {
        ExprKind::Const(v) => *v,
        ExprKind::BoolConst(b) => *b as i32,
        ExprKind::Abs(a) => const_eval(a)?.wrapping_abs(),
        ExprKind::Cond(c, a, b) => {
            if const_eval(c)? != 0 {
                const_eval(a)?
            } else {
                const_eval(b)?
            }
        }
        _ => return None,
    };
    for link in spine.into_iter().rev() {
        value = const_link(link, value)?;
    }
    Some(value)
}

/// The value of one link of a chain (see [`left_operand`]) whose left
/// operand is `a`.
fn const_link(e: &Expr, a: i32) -> Option<i32> {
    Some(match &e.kind {
        ExprKind::Unary(op, _) => match op {
            UnaryOp::Not if e.ty.is_bool() => (a == 0) as i32,
            UnaryOp::Not => !a,
            UnaryOp::Neg => a.wrapping_neg(),
            UnaryOp::Sext8 => a as i8 as i32,
            UnaryOp::Zext8 => a as u8 as i32,
            UnaryOp::Sext16 => a as i16 as i32,
            UnaryOp::Zext16 => a as u16 as i32,
            UnaryOp::BoolToInt => (a != 0) as i32,
        },
        ExprKind::Binary(op, _, b) => {
            let b = const_eval(b)?;
            let (ua, ub) = (a as u32, b as u32);
            match op {
                BinaryOp::Add => a.wrapping_add(b),
                BinaryOp::Sub => a.wrapping_sub(b),
                BinaryOp::Mul => a.wrapping_mul(b),
                BinaryOp::SDiv if b != 0 => a.wrapping_div(b),
                BinaryOp::UDiv if b != 0 => (ua / ub) as i32,
                BinaryOp::SRem if b != 0 => a.wrapping_rem(b),
                BinaryOp::URem if b != 0 => (ua % ub) as i32,
                BinaryOp::And => a & b,
                BinaryOp::Or => a | b,
                BinaryOp::Xor => a ^ b,
                BinaryOp::Shl => a.wrapping_shl(ub),
                BinaryOp::LShr => (ua.wrapping_shr(ub)) as i32,
                BinaryOp::AShr => a.wrapping_shr(ub),
                BinaryOp::SMin => a.min(b),
                BinaryOp::SMax => a.max(b),
                BinaryOp::UMin => ua.min(ub) as i32,
                BinaryOp::UMax => ua.max(ub) as i32,
                _ => return None,
            }
        }
        ExprKind::Cmp(cmp, _, b) => {
            let b = const_eval(b)?;
            let (ua, ub) = (a as u32, b as u32);
            (match cmp {
                Cmp::Eq => a == b,
                Cmp::Ne => a != b,
                Cmp::Lt => a < b,
                Cmp::Le => a <= b,
                Cmp::Gt => a > b,
                Cmp::Ge => a >= b,
                Cmp::LtU => ua < ub,
                Cmp::LeU => ua <= ub,
                Cmp::GtU => ua > ub,
                Cmp::GeU => ua >= ub,
            }) as i32
        }
        ExprKind::ToBool(_) => (a != 0) as i32,
        ExprKind::LogAnd(_, b) => (a != 0 && const_eval(b)? != 0) as i32,
        ExprKind::LogOr(_, b) => (a != 0 || const_eval(b)? != 0) as i32,
        _ => return None,
    })
}

/// Whether the value depends on `threadIdx` (directly or through a
/// variable assigned from it). A vote's result is the same for the whole
/// warp, so it stops the taint.
fn tainted(e: &Expr, vars: &HashSet<VarId>) -> bool {
    let mut pending = vec![e];
    while let Some(e) = pending.pop() {
        match &e.kind {
            ExprKind::Vote(..) => {}
            ExprKind::Special(
                SpecialReg::TidX | SpecialReg::TidY | SpecialReg::TidZ | SpecialReg::LaneId,
            ) => return true,
            ExprKind::Read(p) if matches!(p.kind, PlaceKind::Var(v) if vars.contains(&v)) => {
                return true
            }
            _ => e.for_each_child(|c| pending.push(c)),
        }
    }
    false
}

/// An operand before the lvalue-to-rvalue conversion.
enum Operand {
    Place(Place, Span),
    Value(Expr),
}

impl Checker<'_> {
    fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, msg));
    }

    fn warning(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.push(Diagnostic::warning(span, msg));
    }

    // ---- declarations -------------------------------------------------------

    fn collect_signatures(&mut self, unit: &ast::TranslationUnit) {
        let mut next_index = 0;
        for item in &unit.items {
            let ast::Item::Function(def) = item else {
                continue;
            };
            let Ok(sig) = self.signature(def) else {
                continue;
            };
            let index = def.body.as_ref().map(|_| {
                next_index += 1;
                next_index - 1
            });
            match self.sig_by_name.get(&def.name.name).copied() {
                Some(k) => {
                    let old = &self.sigs[k];
                    if old.params != sig.params || old.ret != sig.ret || old.kernel != sig.kernel {
                        let d = Diagnostic::error(
                            def.name.span,
                            format!("conflicting declaration of `{}`", def.name.name),
                        )
                        .with_label(old.span, "first declared here");
                        self.diags.push(d);
                    } else if old.index.is_some() && index.is_some() {
                        let d = Diagnostic::error(
                            def.name.span,
                            format!("redefinition of `{}`", def.name.name),
                        )
                        .with_label(old.span, "first defined here");
                        self.diags.push(d);
                    } else if index.is_some() {
                        self.sigs[k].index = index;
                    }
                    if index.is_some() && self.sigs[k].index != index {
                        // The duplicate's body is still checked; keep the
                        // numbering of program functions dense.
                        next_index -= 1;
                    }
                }
                None => {
                    self.sig_by_name
                        .insert(def.name.name.clone(), self.sigs.len());
                    self.sigs.push(Signature { index, ..sig });
                }
            }
        }
    }

    fn signature(&mut self, def: &ast::FunctionDef) -> R<Signature> {
        let kernel = def.qualifier == FuncQualifier::Global;
        let ret = pointer_to(base_ty(def.ret.base), def.ret_pointers, Space::Global);
        if kernel && ret != Ty::Void {
            self.error(def.ret.span, "a `__global__` function must return `void`");
            return Err(());
        }
        let mut params = Vec::new();
        for p in &def.params {
            params.push(self.param_type(p, kernel)?);
        }
        Ok(Signature {
            name: def.name.name.clone(),
            kernel,
            params,
            ret,
            span: def.name.span,
            index: None,
        })
    }

    fn param_type(&mut self, p: &ast::Param, kernel: bool) -> R<Ty> {
        let d = &p.declarator;
        let space = if p.spec.shared {
            if kernel {
                self.error(p.spec.span, "kernel parameters cannot be `__shared__`");
                return Err(());
            }
            Space::Shared
        } else {
            Space::Global
        };
        // `int a[]` and `int a[N]` parameters are pointers.
        let levels = d.pointers + d.dims.len().min(1) as u32;
        if d.dims.len() > 1 {
            self.error(
                d.span,
                "multi-dimensional array parameters are not supported by Concord",
            );
            return Err(());
        }
        let ty = pointer_to(base_ty(p.spec.base), levels, space);
        if ty == Ty::Void {
            self.error(d.span, "a parameter cannot have type `void`");
            return Err(());
        }
        if p.spec.shared && levels == 0 {
            self.error(
                p.spec.span,
                "`__shared__` on a parameter is only allowed for pointers",
            );
            return Err(());
        }
        Ok(ty)
    }

    fn file_scope_decl(&mut self, decl: &ast::Decl) {
        for d in &decl.declarators {
            if let Ok((id, ty)) = self.shared_var(decl, d) {
                self.globals
                    .insert(d.name.name.clone(), Symbol::Shared(id, ty));
            }
        }
    }

    /// Declares a `__shared__` variable (file scope or in a function).
    fn shared_var(&mut self, decl: &ast::Decl, d: &ast::Declarator) -> R<(usize, Ty)> {
        if d.init.is_some() {
            self.error(d.span, "`__shared__` variables cannot have an initializer");
            return Err(());
        }
        if d.pointers > 0 {
            self.error(
                d.span,
                "`__shared__` pointer variables are not supported by Concord",
            );
            return Err(());
        }
        let ty = self.declared_type(decl.spec.base, 0, &d.dims, d.span, Space::Global)?;
        if ty == Ty::Void {
            self.error(d.span, "a variable cannot have type `void`");
            return Err(());
        }
        let align = ty.align().max(4);
        let size = ty.size();
        let start = self.shared_used.div_ceil(align as u64) * align as u64;
        let limit = self.options.shared_memory_bytes as u64;
        if start + size > limit {
            self.error(
                d.name.span,
                format!(
                    "`__shared__` array `{}` ({size} bytes) does not fit: the core has {limit} bytes of shared memory and {start} are already used",
                    d.name.name
                ),
            );
            return Err(());
        }
        self.shared_used = start + size;
        let name = if self.f.name.is_empty() {
            d.name.name.clone()
        } else {
            format!("{}.{}", self.f.name, d.name.name)
        };
        let mut unique = name.clone();
        let mut k = 1;
        while self.shared.iter().any(|s| s.name == unique) {
            unique = format!("{name}.{k}");
            k += 1;
        }
        self.shared.push(SharedVar {
            name: unique,
            size: size as u32,
            align,
        });
        Ok((self.shared.len() - 1, ty))
    }

    /// The type of a declarator: base, pointers, array dimensions.
    fn declared_type(
        &mut self,
        base: BaseType,
        pointers: u32,
        dims: &[Option<ast::Expr>],
        span: Span,
        space: Space,
    ) -> R<Ty> {
        let mut ty = pointer_to(base_ty(base), pointers, space);
        if ty == Ty::Void && !dims.is_empty() {
            self.error(span, "arrays of `void` are not allowed");
            return Err(());
        }
        for dim in dims.iter().rev() {
            let Some(dim) = dim else {
                self.error(
                    span,
                    "array size missing (local and `__shared__` arrays need a constant size)",
                );
                return Err(());
            };
            let e = self.rvalue(dim)?;
            if e.ty.int().is_none() {
                self.error(
                    dim.span,
                    format!("array size has type `{}`, expected an integer", e.ty),
                );
                return Err(());
            }
            let Some(n) = const_eval(&e) else {
                self.error(dim.span, "array size must be a constant expression");
                return Err(());
            };
            let n = if e.ty == Ty::UINT {
                n as u32 as i64
            } else {
                n as i64
            };
            if n <= 0 {
                self.error(dim.span, format!("array size must be positive, found {n}"));
                return Err(());
            }
            ty = Ty::Array(Box::new(ty), n as u32);
            if ty.size() > (1 << 24) {
                self.error(span, "array is too large");
                return Err(());
            }
        }
        Ok(ty)
    }

    // ---- functions --------------------------------------------------------

    fn function(&mut self, def: &ast::FunctionDef, body: &ast::Block) -> Option<Func> {
        let sig_index = *self.sig_by_name.get(&def.name.name)?;
        let sig = self.sigs[sig_index].clone();
        self.f = FuncState {
            ret: Some(sig.ret.clone()),
            name: def.name.name.clone(),
            scopes: vec![HashMap::new()],
            ..FuncState::default()
        };
        let mut params = Vec::new();
        for (p, ty) in def.params.iter().zip(&sig.params) {
            let name = &p.declarator.name;
            let id = self.new_var(&name.name, ty.clone(), name.span);
            params.push(id);
            if !name.name.is_empty() {
                if self.f.scopes[0].contains_key(&name.name) {
                    self.error(name.span, format!("duplicate parameter `{}`", name.name));
                }
                self.f.scopes[0].insert(name.name.clone(), Symbol::Var(id));
            }
        }
        let stmts = self.block(body);
        if !sig.kernel {
            self.check_base_case(def, body);
        }
        Some(Func {
            name: def.name.name.clone(),
            kernel: sig.kernel,
            params,
            ret: sig.ret,
            vars: std::mem::take(&mut self.f.vars),
            body: stmts,
            span: def.name.span,
            end: Span::new(
                body.span.end.saturating_sub(1) as usize,
                body.span.end as usize,
            ),
        })
    }

    fn new_var(&mut self, name: &str, ty: Ty, span: Span) -> VarId {
        self.f.vars.push(Var {
            name: name.to_string(),
            ty,
            span,
        });
        self.f.vars.len() - 1
    }

    fn lookup(&self, name: &str) -> Option<Symbol> {
        self.f
            .scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name))
            .or_else(|| self.globals.get(name))
            .cloned()
    }

    // ---- statements ---------------------------------------------------------

    fn block(&mut self, b: &ast::Block) -> Vec<Stmt> {
        self.f.scopes.push(HashMap::new());
        let mut out = Vec::new();
        for s in &b.stmts {
            self.stmt(s, &mut out);
        }
        self.f.scopes.pop();
        out
    }

    /// A sub-statement (of `if`, a loop): its own scope.
    fn sub_stmt(&mut self, s: &ast::Stmt) -> Vec<Stmt> {
        self.f.scopes.push(HashMap::new());
        let mut out = Vec::new();
        self.stmt(s, &mut out);
        self.f.scopes.pop();
        out
    }

    /// An `if` and the `else if`s that follow it, in a loop rather than by
    /// recursion (the parser reads such a chain flat, see
    /// `parse::Parser::if_chain`). Each `else` branch is a sub-statement
    /// with its own scope, and an arm's divergence covers every arm after
    /// it, as if the chain were checked as the nested tree it is.
    fn if_chain(&mut self, s: &ast::Stmt, out: &mut Vec<Stmt>) {
        let mut arms = Vec::new();
        let mut divergent = 0;
        let mut current = s;
        let els = loop {
            let ast::StmtKind::If { cond, then, els } = &current.kind else {
                unreachable!("if_chain starts at an `if`");
            };
            if !arms.is_empty() {
                // The scope of the previous arm's `else` sub-statement.
                self.f.scopes.push(HashMap::new());
            }
            let c = self.condition(cond);
            let div = c.as_ref().is_ok_and(|c| c.1) as u32;
            self.f.divergent += div;
            divergent += div;
            let then = self.sub_stmt(then);
            arms.push((c, then));
            match els.as_deref() {
                Some(next) if matches!(next.kind, ast::StmtKind::If { .. }) => current = next,
                Some(last) => break self.sub_stmt(last),
                None => break Vec::new(),
            }
        };
        for _ in 1..arms.len() {
            self.f.scopes.pop();
        }
        self.f.divergent -= divergent;
        // Inside out: an arm whose condition failed is dropped with the
        // arms after it, as its `else` would have been.
        let mut chain = els;
        for (c, then) in arms.into_iter().rev() {
            chain = match c {
                Ok((cond, _)) => vec![Stmt::If {
                    cond,
                    then,
                    els: chain,
                }],
                Err(_) => Vec::new(),
            };
        }
        out.extend(chain);
    }

    fn condition(&mut self, e: &ast::Expr) -> R<(Expr, bool)> {
        let c = self.rvalue(e)?;
        let c = self.truth_value(c, e.span)?;
        let divergent = tainted(&c, &self.f.tainted);
        Ok((c, divergent))
    }

    fn stmt(&mut self, s: &ast::Stmt, out: &mut Vec<Stmt>) {
        match &s.kind {
            ast::StmtKind::Decl(d) => self.local_decl(d, out),
            ast::StmtKind::Expr(e) => {
                if let Ok(e) = self.expr_stmt(e) {
                    out.push(Stmt::Expr(e));
                }
            }
            ast::StmtKind::Block(b) => {
                let b = self.block(b);
                out.push(Stmt::Block(b));
            }
            ast::StmtKind::Empty => {}
            ast::StmtKind::If { .. } => self.if_chain(s, out),
            ast::StmtKind::While { cond, body } => {
                let c = self.condition(cond);
                let div = c.as_ref().is_ok_and(|c| c.1) as u32;
                let body = self.loop_body(body, div);
                if let Ok((cond, _)) = c {
                    out.push(Stmt::While { cond, body });
                }
            }
            ast::StmtKind::DoWhile { body, cond } => {
                // The condition is checked after the body: taint from the
                // body's assignments counts.
                let body = self.loop_body(body, 0);
                if let Ok((cond, _)) = self.condition(cond) {
                    out.push(Stmt::DoWhile { body, cond });
                }
            }
            ast::StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                self.f.scopes.push(HashMap::new());
                let mut init_out = Vec::new();
                if let Some(i) = init {
                    self.stmt(i, &mut init_out);
                }
                let c = cond.as_ref().map(|c| self.condition(c)).transpose();
                let div = c.as_ref().is_ok_and(|c| c.as_ref().is_some_and(|c| c.1)) as u32;
                self.f.divergent += div;
                let st = step.as_ref().map(|e| self.expr_stmt(e)).transpose();
                self.f.divergent -= div;
                let body = self.loop_body(body, div);
                self.f.scopes.pop();
                if let (Ok(c), Ok(step)) = (c, st) {
                    out.push(Stmt::For {
                        init: init_out,
                        cond: c.map(|c| c.0),
                        step,
                        body,
                    });
                }
            }
            ast::StmtKind::Break | ast::StmtKind::Continue => {
                let is_break = matches!(s.kind, ast::StmtKind::Break);
                if self.f.loop_depth == 0 {
                    let word = if is_break { "break" } else { "continue" };
                    self.error(s.span, format!("`{word}` outside of a loop"));
                } else if is_break {
                    out.push(Stmt::Break(s.span));
                } else {
                    out.push(Stmt::Continue(s.span));
                }
            }
            ast::StmtKind::Return(value) => self.return_stmt(value.as_ref(), s.span, out),
        }
    }

    fn loop_body(&mut self, body: &ast::Stmt, divergent: u32) -> Vec<Stmt> {
        self.f.loop_depth += 1;
        self.f.divergent += divergent;
        let b = self.sub_stmt(body);
        self.f.divergent -= divergent;
        self.f.loop_depth -= 1;
        b
    }

    fn return_stmt(&mut self, value: Option<&ast::Expr>, span: Span, out: &mut Vec<Stmt>) {
        let ret = self.f.ret.clone().unwrap_or(Ty::Void);
        match (value, ret == Ty::Void) {
            (None, true) => out.push(Stmt::Return(None, span)),
            (None, false) => {
                let name = self.f.name.clone();
                self.error(
                    span,
                    format!("missing return value: `{name}` returns `{ret}`"),
                );
            }
            (Some(e), true) => {
                let name = self.f.name.clone();
                // `return f();` with a void `f` is fine C++.
                if let Ok(v) = self.rvalue(e) {
                    if v.ty == Ty::Void {
                        out.push(Stmt::Expr(v));
                        out.push(Stmt::Return(None, span));
                        return;
                    }
                }
                self.error(
                    e.span,
                    format!("`{name}` returns `void` but a value is returned"),
                );
            }
            (Some(e), false) => {
                if let Ok(v) = self.rvalue(e).and_then(|v| self.convert(v, &ret, e.span)) {
                    out.push(Stmt::Return(Some(v), span));
                }
            }
        }
    }

    fn local_decl(&mut self, decl: &ast::Decl, out: &mut Vec<Stmt>) {
        for d in &decl.declarators {
            if decl.spec.shared {
                if let Ok((id, ty)) = self.shared_var(decl, d) {
                    self.declare(&d.name, Symbol::Shared(id, ty));
                }
                continue;
            }
            let _ = self.local_var(decl, d, out);
        }
    }

    fn declare(&mut self, name: &ast::Ident, sym: Symbol) {
        let scope = self.f.scopes.last_mut().expect("a function has a scope");
        if scope.contains_key(&name.name) {
            let msg = format!("redefinition of `{}` in the same scope", name.name);
            self.error(name.span, msg);
        }
        self.f
            .scopes
            .last_mut()
            .expect("a function has a scope")
            .insert(name.name.clone(), sym);
    }

    fn local_var(&mut self, decl: &ast::Decl, d: &ast::Declarator, out: &mut Vec<Stmt>) -> R<()> {
        // A pointer variable takes the address space of its initializer.
        let init_value = match &d.init {
            Some(ast::Initializer::Expr(e)) if d.dims.is_empty() => Some(self.rvalue(e)),
            _ => None,
        };
        let space = match &init_value {
            Some(Ok(Expr {
                ty: Ty::Ptr(_, s), ..
            })) if d.pointers > 0 => *s,
            _ => Space::Global,
        };
        let ty = self.declared_type(decl.spec.base, d.pointers, &d.dims, d.span, space)?;
        if ty == Ty::Void {
            self.error(d.name.span, "a variable cannot have type `void`");
            return Err(());
        }
        let id = self.new_var(&d.name.name, ty.clone(), d.name.span);
        let place = Place {
            kind: PlaceKind::Var(id),
            ty: ty.clone(),
        };
        match (&d.init, init_value) {
            (None, _) => {}
            (Some(_), Some(v)) => {
                let v = v?;
                let span = v.span;
                let v = self.convert(v, &ty, span)?;
                self.note_assignment(&place, &v);
                out.push(Stmt::Expr(Expr::new(
                    ExprKind::Assign(Box::new(place), Box::new(v)),
                    ty,
                    d.span,
                )));
            }
            (Some(init), None) => {
                let base = Expr::new(
                    ExprKind::StackAddr(id),
                    Ty::Ptr(Box::new(ty.clone()), Space::Local),
                    d.span,
                );
                self.initialize(base, &ty, init, out)?;
            }
        }
        self.declare(&d.name, Symbol::Var(id));
        Ok(())
    }

    /// Stores an initializer into the local object at `addr` of type `ty`
    /// (arrays element by element, missing elements zero).
    fn initialize(
        &mut self,
        addr: Expr,
        ty: &Ty,
        init: &ast::Initializer,
        out: &mut Vec<Stmt>,
    ) -> R<()> {
        let span = addr.span;
        match (ty, init) {
            (Ty::Array(elem, n), ast::Initializer::List(items, list_span)) => {
                if items.len() > *n as usize {
                    self.error(
                        *list_span,
                        format!("too many initializers for an array of {n}"),
                    );
                    return Err(());
                }
                let step = elem.size() as i32;
                for k in 0..*n as usize {
                    let offset = konst(k as i32 * step, Ty::INT, span);
                    let a = Expr::new(
                        ExprKind::Binary(BinaryOp::Add, Box::new(addr.clone()), Box::new(offset)),
                        addr.ty.clone(),
                        span,
                    );
                    match items.get(k) {
                        Some(item) => self.initialize(a, elem, item, out)?,
                        None => self.zero_fill(a, elem, out),
                    }
                }
                Ok(())
            }
            (Ty::Array(..), ast::Initializer::Expr(e)) => {
                self.error(e.span, "an array needs a `{ ... }` initializer");
                Err(())
            }
            (_, ast::Initializer::List(items, list_span)) => match items.as_slice() {
                [one] => self.initialize(addr, ty, one, out),
                _ => {
                    self.error(*list_span, "a scalar initializer needs exactly one value");
                    Err(())
                }
            },
            (_, ast::Initializer::Expr(e)) => {
                let v = self.rvalue(e)?;
                let v = self.convert(v, ty, e.span)?;
                let place = Place {
                    kind: PlaceKind::Mem {
                        space: Space::Local,
                        addr: Box::new(addr),
                    },
                    ty: ty.clone(),
                };
                out.push(Stmt::Expr(Expr::new(
                    ExprKind::Assign(Box::new(place), Box::new(v)),
                    ty.clone(),
                    span,
                )));
                Ok(())
            }
        }
    }

    fn zero_fill(&mut self, addr: Expr, ty: &Ty, out: &mut Vec<Stmt>) {
        let span = addr.span;
        match ty {
            Ty::Array(elem, n) => {
                for k in 0..*n {
                    let offset = konst((k as u64 * elem.size()) as i32, Ty::INT, span);
                    let a = Expr::new(
                        ExprKind::Binary(BinaryOp::Add, Box::new(addr.clone()), Box::new(offset)),
                        addr.ty.clone(),
                        span,
                    );
                    self.zero_fill(a, elem, out);
                }
            }
            _ => {
                let zero = if ty.is_bool() {
                    Expr::new(ExprKind::BoolConst(false), Ty::BOOL, span)
                } else {
                    konst(0, ty.clone(), span)
                };
                let place = Place {
                    kind: PlaceKind::Mem {
                        space: Space::Local,
                        addr: Box::new(addr),
                    },
                    ty: ty.clone(),
                };
                out.push(Stmt::Expr(Expr::new(
                    ExprKind::Assign(Box::new(place), Box::new(zero)),
                    ty.clone(),
                    span,
                )));
            }
        }
    }

    // ---- expressions ------------------------------------------------------

    fn expr_stmt(&mut self, e: &ast::Expr) -> R<Expr> {
        let op = self.operand(e)?;
        self.expr_stmt_of(op)
    }

    fn expr_stmt_of(&mut self, op: Operand) -> R<Expr> {
        match op {
            Operand::Value(v) => Ok(v),
            // A lone lvalue: evaluate its address computation only.
            Operand::Place(p, span) if !p.ty.is_scalar() => Ok(konst(0, Ty::INT, span)),
            Operand::Place(p, span) => self.place_value(p, span),
        }
    }

    fn rvalue(&mut self, e: &ast::Expr) -> R<Expr> {
        let op = self.operand(e)?;
        self.rvalue_of(op)
    }

    fn rvalue_of(&mut self, op: Operand) -> R<Expr> {
        match op {
            Operand::Value(v) => Ok(v),
            Operand::Place(p, span) => self.place_value(p, span),
        }
    }

    /// The value of a place: a read, or an array's decay to a pointer.
    fn place_value(&mut self, p: Place, span: Span) -> R<Expr> {
        match p.ty.clone() {
            Ty::Array(elem, _) => {
                let space = p.space();
                if space == Space::Local {
                    self.local_pointer_error(span);
                    return Err(());
                }
                let addr = self.place_addr(p, span);
                Ok(addr.with_ty(Ty::Ptr(elem, space)))
            }
            Ty::Void => {
                self.error(span, "a `void` value cannot be used");
                Err(())
            }
            ty => Ok(Expr::new(ExprKind::Read(Box::new(p)), ty, span)),
        }
    }

    fn local_pointer_error(&mut self, span: Span) {
        self.diags.push(
            Diagnostic::error(
                span,
                "pointers to local memory are not supported by Concord",
            )
            .with_note(
                "index local arrays directly (`a[i]`); only global and shared memory have pointers",
            ),
        );
    }

    /// The address of a place (local places give a stack address, only
    /// for indexing).
    fn place_addr(&mut self, p: Place, span: Span) -> Expr {
        let space = p.space();
        match p.kind {
            PlaceKind::Var(v) => {
                Expr::new(ExprKind::StackAddr(v), Ty::Ptr(Box::new(p.ty), space), span)
            }
            PlaceKind::Mem { addr, .. } => addr.with_ty(Ty::Ptr(Box::new(p.ty), space)),
        }
    }

    fn operand(&mut self, e: &ast::Expr) -> R<Operand> {
        let span = e.span;
        let value = |kind, ty| Ok(Operand::Value(Expr::new(kind, ty, span)));
        match &e.kind {
            ast::ExprKind::IntLit {
                value: v,
                unsigned,
                decimal,
            } => {
                let v = *v;
                let signed_neg = (v as i64) < 0 && (v as i64) >= i32::MIN as i64;
                if signed_neg {
                    return value(ExprKind::Const(v as i64 as i32), Ty::INT);
                }
                if v > u32::MAX as u64 {
                    self.error(
                        span,
                        "integer literal is too large (Concord integers have 32 bits)",
                    );
                    return Err(());
                }
                let ty = if *unsigned || v > i32::MAX as u64 {
                    if *decimal && !*unsigned {
                        self.warning(
                            span,
                            "decimal literal does not fit `int`; it is `unsigned int` here",
                        );
                    }
                    Ty::UINT
                } else {
                    Ty::INT
                };
                value(ExprKind::Const(v as u32 as i32), ty)
            }
            ast::ExprKind::BoolLit(b) => value(ExprKind::BoolConst(*b), Ty::BOOL),
            ast::ExprKind::Ident(name) => self.ident(name, span),
            ast::ExprKind::Member(base, field) => {
                let reg = match &base.kind {
                    ast::ExprKind::Ident(b) => special_reg(b, &field.name),
                    _ => None,
                };
                match reg {
                    Some(reg) => value(ExprKind::Special(reg), Ty::UINT),
                    None => {
                        self.error(
                            span,
                            "member access is only supported on `threadIdx`, `blockIdx`, `blockDim` and `gridDim` with `.x`, `.y` or `.z` (structs are not supported by Concord)",
                        );
                        Err(())
                    }
                }
            }
            ast::ExprKind::Call(name, args) => self.call(name, args, span).map(Operand::Value),
            ast::ExprKind::Index(base, index) => {
                let b = self.operand(base)?;
                let i = self.rvalue(index)?;
                self.index(b, i, span).map(|p| Operand::Place(p, span))
            }
            ast::ExprKind::Unary(op, a) => self.unary(*op, a, span),
            ast::ExprKind::Binary(..) | ast::ExprKind::Comma(..) => self.chain(e),
            ast::ExprKind::Assign(op, target, v) => {
                self.assign(*op, target, v, span).map(Operand::Value)
            }
            ast::ExprKind::IncDec {
                increment,
                prefix,
                target,
            } => {
                let place = self.lvalue(target, if *increment { "++" } else { "--" })?;
                if !place.ty.is_scalar() || place.ty.is_bool() {
                    self.error(
                        span,
                        format!("cannot increment or decrement a `{}`", place.ty),
                    );
                    return Err(());
                }
                let old = Expr::new(ExprKind::OldValue, place.ty.clone(), span);
                let one = konst(1, Ty::INT, span);
                let op = if *increment {
                    ast::BinaryOp::Add
                } else {
                    ast::BinaryOp::Sub
                };
                let new = self.binary(op, old, one, span)?;
                let new = self.convert(new, &place.ty, span)?;
                self.note_assignment(&place, &new);
                let ty = place.ty.clone();
                value(
                    ExprKind::Update {
                        place: Box::new(place),
                        new: Box::new(new),
                        post: !prefix,
                    },
                    ty,
                )
            }
            ast::ExprKind::Cond(c, a, b) => {
                let (c, div) = self.condition(c)?;
                let div = div as u32;
                self.f.divergent += div;
                let r = self.rvalue(a).and_then(|a| Ok((a, self.rvalue(b)?)));
                self.f.divergent -= div;
                let (a, b) = r?;
                let ty = self.common_type(&a, &b, span)?;
                let a = self.convert(a, &ty, span)?;
                let b = self.convert(b, &ty, span)?;
                value(ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)), ty)
            }
            ast::ExprKind::Cast(t, a) => {
                let v = self.rvalue(a)?;
                let ty = pointer_to(base_ty(t.spec.base), t.pointers, Space::Global);
                self.cast(v, ty, span).map(Operand::Value)
            }
            ast::ExprKind::SizeofType(t) => {
                let ty = pointer_to(base_ty(t.spec.base), t.pointers, Space::Global);
                if ty == Ty::Void {
                    self.error(span, "`sizeof(void)` is not allowed");
                    return Err(());
                }
                value(ExprKind::Const(ty.size() as i32), Ty::UINT)
            }
            ast::ExprKind::SizeofExpr(a) => {
                let ty = match self.operand(a)? {
                    Operand::Place(p, _) => p.ty,
                    Operand::Value(v) => v.ty.clone(),
                };
                if ty == Ty::Void {
                    self.error(span, "`sizeof` of a `void` expression");
                    return Err(());
                }
                value(ExprKind::Const(ty.size() as i32), Ty::UINT)
            }
        }
    }

    /// A flat chain of binary operators and commas (`a + b - c`,
    /// `a && b && c`, `a, b, c`): its left spine is as deep as the chain is
    /// long, so it is walked with a loop, and each link is checked on the
    /// value of the links below it. Only right operands recurse.
    fn chain(&mut self, e: &ast::Expr) -> R<Operand> {
        // (operator, `None` for a comma; right operand; span of the link)
        let mut spine = Vec::new();
        let mut leaf = e;
        loop {
            match &leaf.kind {
                ast::ExprKind::Binary(op, a, b) => {
                    spine.push((Some(*op), &**b, leaf.span));
                    leaf = a;
                }
                ast::ExprKind::Comma(a, b) => {
                    spine.push((None, &**b, leaf.span));
                    leaf = a;
                }
                _ => break,
            }
        }
        let mut acc = self.operand(leaf)?;
        let mut acc_span = leaf.span;
        // Whether the value so far depends on `threadIdx`, when known: a
        // chain of `&&` needs it at every link, and recomputing it from
        // the whole left operand each time would be quadratic.
        let mut acc_tainted: Option<bool> = None;
        for (op, b, span) in spine.into_iter().rev() {
            let value = match op {
                Some(op @ (ast::BinaryOp::LogAnd | ast::BinaryOp::LogOr)) => {
                    let l = self.rvalue_of(acc)?;
                    let l = self.truth_value(l, acc_span)?;
                    let div = match acc_tainted {
                        Some(t) => t,
                        None => tainted(&l, &self.f.tainted),
                    };
                    let vars_before = self.f.tainted.len();
                    self.f.divergent += div as u32;
                    let r = self.condition(b);
                    self.f.divergent -= div as u32;
                    let (r, r_div) = r?;
                    // An assignment in `b` may taint a variable `l` reads.
                    acc_tainted = (self.f.tainted.len() == vars_before).then_some(div || r_div);
                    let kind = if op == ast::BinaryOp::LogAnd {
                        ExprKind::LogAnd(Box::new(l), Box::new(r))
                    } else {
                        ExprKind::LogOr(Box::new(l), Box::new(r))
                    };
                    Expr::new(kind, Ty::BOOL, span)
                }
                Some(op) => {
                    let l = self.rvalue_of(acc)?;
                    let r = self.rvalue(b)?;
                    acc_tainted = None;
                    self.binary(op, l, r, span)?
                }
                None => {
                    let a = self.expr_stmt_of(acc)?;
                    let b = self.rvalue(b)?;
                    let ty = b.ty.clone();
                    acc_tainted = None;
                    Expr::new(ExprKind::Comma(Box::new(a), Box::new(b)), ty, span)
                }
            };
            acc = Operand::Value(value);
            acc_span = span;
        }
        Ok(acc)
    }

    fn ident(&mut self, name: &str, span: Span) -> R<Operand> {
        match self.lookup(name) {
            Some(Symbol::Var(v)) => Ok(Operand::Place(
                Place {
                    kind: PlaceKind::Var(v),
                    ty: self.f.vars[v].ty.clone(),
                },
                span,
            )),
            Some(Symbol::Shared(id, ty)) => {
                let addr = Expr::new(
                    ExprKind::SharedAddr(id),
                    Ty::Ptr(Box::new(ty.clone()), Space::Shared),
                    span,
                );
                Ok(Operand::Place(
                    Place {
                        kind: PlaceKind::Mem {
                            space: Space::Shared,
                            addr: Box::new(addr),
                        },
                        ty,
                    },
                    span,
                ))
            }
            None if name == "warpSize" => Ok(Operand::Value(Expr::new(
                ExprKind::Special(SpecialReg::WarpSize),
                Ty::INT,
                span,
            ))),
            None if matches!(name, "threadIdx" | "blockIdx" | "blockDim" | "gridDim") => {
                self.error(
                    span,
                    format!("`{name}` must be followed by `.x`, `.y` or `.z`"),
                );
                Err(())
            }
            None if self.sig_by_name.contains_key(name) => {
                self.error(span, format!("function `{name}` used as a value (function pointers are not supported by Concord)"));
                Err(())
            }
            None => {
                self.error(span, format!("unknown identifier `{name}`"));
                Err(())
            }
        }
    }

    /// An operand that must be an lvalue (of an assignment, `++`, `&`).
    fn lvalue(&mut self, e: &ast::Expr, what: &str) -> R<Place> {
        match self.operand(e)? {
            Operand::Place(p, _) => Ok(p),
            Operand::Value(_) => {
                self.error(
                    e.span,
                    format!(
                        "the operand of `{what}` is not an lvalue (assignment to a non-lvalue)"
                    ),
                );
                Err(())
            }
        }
    }

    fn index(&mut self, base: Operand, index: Expr, span: Span) -> R<Place> {
        let Some(it) = index.ty.int() else {
            self.error(
                index.span,
                format!("array index has type `{}`, expected an integer", index.ty),
            );
            return Err(());
        };
        let index = self.convert(index, &Ty::Int(it.promote()), span)?;
        let (addr, elem, space) = match base {
            Operand::Place(p, pspan) if matches!(p.ty, Ty::Array(..)) => {
                let Ty::Array(elem, _) = p.ty.clone() else {
                    unreachable!("checked by the guard")
                };
                let space = p.space();
                // The array's address as a pointer to its first element.
                let addr = self
                    .place_addr(p, pspan)
                    .with_ty(Ty::Ptr(elem.clone(), space));
                (addr, *elem, space)
            }
            other => {
                let b = self.rvalue_of(other)?;
                match b.ty.clone() {
                    Ty::Ptr(elem, space) => (b, *elem, space),
                    t => {
                        self.error(b.span, format!("cannot index a value of type `{t}`"));
                        return Err(());
                    }
                }
            }
        };
        if elem == Ty::Void {
            self.error(span, "cannot index a `void` pointer");
            return Err(());
        }
        let addr = self.offset_pointer(addr, index, false, span);
        Ok(Place {
            kind: PlaceKind::Mem {
                space,
                addr: Box::new(addr),
            },
            ty: elem,
        })
    }

    /// `ptr ± index`, scaled by the element size.
    fn offset_pointer(&mut self, ptr: Expr, index: Expr, subtract: bool, span: Span) -> Expr {
        let size = match &ptr.ty {
            Ty::Ptr(e, _) => e.size() as i32,
            _ => 1,
        };
        let scaled = match const_eval(&index) {
            Some(k) => konst(k.wrapping_mul(size), Ty::INT, index.span),
            None if size == 1 => index,
            None => {
                let ispan = index.span;
                Expr::new(
                    ExprKind::Binary(
                        BinaryOp::Mul,
                        Box::new(index),
                        Box::new(konst(size, Ty::INT, ispan)),
                    ),
                    Ty::INT,
                    ispan,
                )
            }
        };
        let op = if subtract {
            BinaryOp::Sub
        } else {
            BinaryOp::Add
        };
        let ty = ptr.ty.clone();
        Expr::new(
            ExprKind::Binary(op, Box::new(ptr), Box::new(scaled)),
            ty,
            span,
        )
    }

    fn unary(&mut self, op: ast::UnaryOp, a: &ast::Expr, span: Span) -> R<Operand> {
        match op {
            ast::UnaryOp::Deref => {
                let p = self.rvalue(a)?;
                match p.ty.clone() {
                    Ty::Ptr(elem, space) if *elem != Ty::Void => Ok(Operand::Place(
                        Place {
                            kind: PlaceKind::Mem {
                                space,
                                addr: Box::new(p),
                            },
                            ty: *elem,
                        },
                        span,
                    )),
                    t => {
                        self.error(span, format!("cannot dereference a value of type `{t}`"));
                        Err(())
                    }
                }
            }
            ast::UnaryOp::AddrOf => {
                let place = self.lvalue(a, "&")?;
                if place.space() == Space::Local {
                    self.local_pointer_error(span);
                    return Err(());
                }
                Ok(Operand::Value(self.place_addr(place, span)))
            }
            ast::UnaryOp::Not => {
                let v = self.rvalue(a)?;
                let b = self.truth_value(v, a.span)?;
                Ok(Operand::Value(Expr::new(
                    ExprKind::Unary(UnaryOp::Not, Box::new(b)),
                    Ty::BOOL,
                    span,
                )))
            }
            ast::UnaryOp::Neg | ast::UnaryOp::Plus | ast::UnaryOp::BitNot => {
                let v = self.rvalue(a)?;
                let Some(it) = v.ty.int() else {
                    self.error(
                        span,
                        format!("invalid operand to unary operator: `{}`", v.ty),
                    );
                    return Err(());
                };
                let ty = Ty::Int(it.promote());
                let v = self.convert(v, &ty, span)?;
                let kind = match op {
                    ast::UnaryOp::Plus => return Ok(Operand::Value(v.with_span(span))),
                    ast::UnaryOp::Neg => ExprKind::Unary(UnaryOp::Neg, Box::new(v)),
                    _ => ExprKind::Unary(UnaryOp::Not, Box::new(v)),
                };
                Ok(Operand::Value(Expr::new(kind, ty, span)))
            }
        }
    }

    fn truth_value(&mut self, e: Expr, span: Span) -> R<Expr> {
        match &e.ty {
            Ty::Int(IntTy::Bool) => Ok(e),
            Ty::Int(_) | Ty::Ptr(..) => {
                let s = e.span;
                Ok(Expr::new(ExprKind::ToBool(Box::new(e)), Ty::BOOL, s))
            }
            t => {
                self.error(
                    span,
                    format!("a value of type `{t}` cannot be used as a condition"),
                );
                Err(())
            }
        }
    }

    /// The type both arms of `?:` convert to.
    fn common_type(&mut self, a: &Expr, b: &Expr, span: Span) -> R<Ty> {
        match (&a.ty, &b.ty) {
            (Ty::Int(x), Ty::Int(y)) if x == y => Ok(a.ty.clone()),
            (Ty::Int(x), Ty::Int(y)) => Ok(Ty::Int(usual(*x, *y))),
            (Ty::Ptr(..), Ty::Ptr(..)) if a.ty == b.ty => Ok(a.ty.clone()),
            (Ty::Ptr(..), Ty::Int(_)) if const_eval(b) == Some(0) => Ok(a.ty.clone()),
            (Ty::Int(_), Ty::Ptr(..)) if const_eval(a) == Some(0) => Ok(b.ty.clone()),
            (Ty::Void, Ty::Void) => Ok(Ty::Void),
            (x, y) => {
                self.error(
                    span,
                    format!("type mismatch: the arms of `?:` have types `{x}` and `{y}`"),
                );
                Err(())
            }
        }
    }

    /// A binary operator on checked operands (also used by `op=` and `++`).
    fn binary(&mut self, op: ast::BinaryOp, l: Expr, r: Expr, span: Span) -> R<Expr> {
        use ast::BinaryOp as B;
        let mismatch = |c: &mut Self, l: &Expr, r: &Expr| {
            c.error(
                span,
                format!(
                    "type mismatch: invalid operands to `{}` (`{}` and `{}`)",
                    op.spelling(),
                    l.ty,
                    r.ty
                ),
            );
            Err(())
        };
        match (op, &l.ty, &r.ty) {
            (B::Add, Ty::Ptr(..), Ty::Int(_)) => {
                let r = self.promoted(r, span)?;
                return Ok(self.offset_pointer(l, r, false, span));
            }
            (B::Add, Ty::Int(_), Ty::Ptr(..)) => {
                let l = self.promoted(l, span)?;
                return Ok(self.offset_pointer(r, l, false, span));
            }
            (B::Sub, Ty::Ptr(..), Ty::Int(_)) => {
                let r = self.promoted(r, span)?;
                return Ok(self.offset_pointer(l, r, true, span));
            }
            (B::Sub, Ty::Ptr(a, sa), Ty::Ptr(b, sb)) => {
                if a != b || sa != sb {
                    return mismatch(self, &l, &r);
                }
                let size = a.size() as i32;
                let diff = Expr::new(
                    ExprKind::Binary(BinaryOp::Sub, Box::new(l), Box::new(r)),
                    Ty::INT,
                    span,
                );
                if size == 1 {
                    return Ok(diff);
                }
                return Ok(Expr::new(
                    ExprKind::Binary(
                        BinaryOp::SDiv,
                        Box::new(diff),
                        Box::new(konst(size, Ty::INT, span)),
                    ),
                    Ty::INT,
                    span,
                ));
            }
            (B::Eq | B::Ne | B::Lt | B::Le | B::Gt | B::Ge, Ty::Ptr(a, sa), Ty::Ptr(b, sb)) => {
                if sa != sb {
                    self.error(
                        span,
                        format!("type mismatch: cannot compare `{}` with `{}` (different address spaces)", l.ty, r.ty),
                    );
                    return Err(());
                }
                if a != b {
                    return mismatch(self, &l, &r);
                }
                return Ok(compare(op, false, l, r, span));
            }
            (B::Eq | B::Ne | B::Lt | B::Le | B::Gt | B::Ge, Ty::Ptr(..), Ty::Int(_))
                if const_eval(&r) == Some(0) =>
            {
                return Ok(compare(op, false, l, r, span));
            }
            (B::Eq | B::Ne | B::Lt | B::Le | B::Gt | B::Ge, Ty::Int(_), Ty::Ptr(..))
                if const_eval(&l) == Some(0) =>
            {
                return Ok(compare(op, false, l, r, span));
            }
            (_, Ty::Int(_), Ty::Int(_)) => {}
            _ => return mismatch(self, &l, &r),
        }
        let (Some(lt), Some(rt)) = (l.ty.int(), r.ty.int()) else {
            return mismatch(self, &l, &r);
        };
        if matches!(op, B::Shl | B::Shr) {
            let ty = Ty::Int(lt.promote());
            let l = self.convert(l, &ty, span)?;
            let r = self.promoted(r, span)?;
            let irop = match op {
                B::Shl => BinaryOp::Shl,
                _ if ty == Ty::INT => BinaryOp::AShr,
                _ => BinaryOp::LShr,
            };
            return Ok(Expr::new(
                ExprKind::Binary(irop, Box::new(l), Box::new(r)),
                ty,
                span,
            ));
        }
        let common = usual(lt, rt);
        let ty = Ty::Int(common);
        let l = self.convert(l, &ty, span)?;
        let r = self.convert(r, &ty, span)?;
        let signed = common == IntTy::Int;
        let irop = match op {
            B::Add => BinaryOp::Add,
            B::Sub => BinaryOp::Sub,
            B::Mul => BinaryOp::Mul,
            B::Div if signed => BinaryOp::SDiv,
            B::Div => BinaryOp::UDiv,
            B::Rem if signed => BinaryOp::SRem,
            B::Rem => BinaryOp::URem,
            B::BitAnd => BinaryOp::And,
            B::BitOr => BinaryOp::Or,
            B::BitXor => BinaryOp::Xor,
            _ => return Ok(compare(op, signed, l, r, span)),
        };
        Ok(Expr::new(
            ExprKind::Binary(irop, Box::new(l), Box::new(r)),
            ty,
            span,
        ))
    }

    fn promoted(&mut self, e: Expr, span: Span) -> R<Expr> {
        match e.ty.int() {
            Some(t) => self.convert(e, &Ty::Int(t.promote()), span),
            None => Ok(e),
        }
    }

    fn assign(
        &mut self,
        op: Option<ast::BinaryOp>,
        target: &ast::Expr,
        v: &ast::Expr,
        span: Span,
    ) -> R<Expr> {
        let spelled = op.map_or("=".to_string(), |o| format!("{}=", o.spelling()));
        let place = self.lvalue(target, &spelled);
        let value = self.rvalue(v);
        let (place, value) = (place?, value?);
        if matches!(place.ty, Ty::Array(..)) {
            self.error(target.span, "cannot assign to an array");
            return Err(());
        }
        let ty = place.ty.clone();
        let new = match op {
            None => self.convert(value, &ty, v.span)?,
            Some(op) => {
                let old = Expr::new(ExprKind::OldValue, ty.clone(), target.span);
                let n = self.binary(op, old, value, span)?;
                self.convert(n, &ty, span)?
            }
        };
        self.note_assignment(&place, &new);
        Ok(match op {
            None => Expr::new(ExprKind::Assign(Box::new(place), Box::new(new)), ty, span),
            Some(_) => Expr::new(
                ExprKind::Update {
                    place: Box::new(place),
                    new: Box::new(new),
                    post: false,
                },
                ty,
                span,
            ),
        })
    }

    /// Taint tracking for the divergence warning.
    fn note_assignment(&mut self, place: &Place, value: &Expr) {
        if let PlaceKind::Var(v) = place.kind {
            if tainted(value, &self.f.tainted) || self.f.divergent > 0 {
                self.f.tainted.insert(v);
            }
        }
    }

    /// The implicit conversion of assignment, initialization, arguments
    /// and `return`.
    fn convert(&mut self, e: Expr, to: &Ty, span: Span) -> R<Expr> {
        if e.ty == *to {
            return Ok(e);
        }
        match (&e.ty, to) {
            (Ty::Int(_) | Ty::Ptr(..), Ty::Int(IntTy::Bool)) => self.truth_value(e, span),
            (Ty::Int(from), Ty::Int(t)) => {
                let (from, t) = (*from, *t);
                Ok(convert_int(e, from, t))
            }
            (Ty::Ptr(fe, fs), Ty::Ptr(te, ts)) => {
                if fs != ts {
                    self.error(
                        span,
                        format!("type mismatch: cannot convert `{}` to `{to}` (the address spaces differ)", e.ty),
                    );
                    Err(())
                } else if fe != te {
                    self.error(
                        span,
                        format!(
                            "type mismatch: incompatible pointer types `{}` and `{to}`",
                            e.ty
                        ),
                    );
                    Err(())
                } else {
                    Ok(e.with_ty(to.clone()))
                }
            }
            (Ty::Int(_), Ty::Ptr(..)) if const_eval(&e) == Some(0) => Ok(e.with_ty(to.clone())),
            (from, to) => {
                self.error(
                    span,
                    format!("type mismatch: expected `{to}`, found `{from}`"),
                );
                Err(())
            }
        }
    }

    fn cast(&mut self, e: Expr, to: Ty, span: Span) -> R<Expr> {
        let out = match (&e.ty, &to) {
            (_, Ty::Void) => Ok(e.with_ty(Ty::Void).with_span(span)),
            (Ty::Ptr(..), Ty::Int(IntTy::Int | IntTy::UInt))
            | (Ty::Int(IntTy::Int | IntTy::UInt), Ty::Ptr(..)) => Ok(e.with_ty(to.clone())),
            (Ty::Ptr(..), Ty::Int(t)) => {
                let t = *t;
                let as_int = e.with_ty(Ty::UINT);
                self.convert(as_int, &Ty::Int(t), span)
            }
            (Ty::Int(_), Ty::Ptr(..)) => {
                let v = self.convert(e, &Ty::UINT, span)?;
                Ok(v.with_ty(to.clone()))
            }
            (Ty::Ptr(_, fs), Ty::Ptr(te, _)) => {
                let ty = Ty::Ptr(te.clone(), *fs);
                Ok(e.with_ty(ty))
            }
            _ => self.convert(e, &to, span),
        }?;
        Ok(out.with_span(span))
    }

    // ---- calls ---------------------------------------------------------------

    fn call(&mut self, name: &ast::Ident, args: &[ast::Expr], span: Span) -> R<Expr> {
        let n = name.name.as_str();
        let arity = |c: &mut Self, k: usize| -> R<()> {
            if args.len() != k {
                c.error(
                    span,
                    format!(
                        "wrong number of arguments to `{n}`: expected {k}, found {}",
                        args.len()
                    ),
                );
                return Err(());
            }
            Ok(())
        };
        if self.sig_by_name.contains_key(n) {
            return self.user_call(name, args, span);
        }
        match n {
            "__syncthreads" => {
                arity(self, 0)?;
                if self.f.divergent > 0 {
                    self.diags.push(
                        Diagnostic::warning(span, "__syncthreads() in divergent control flow")
                            .with_note("an enclosing condition depends on `threadIdx`; threads that skip the barrier make the others wait forever"),
                    );
                }
                Ok(Expr::new(ExprKind::Barrier, Ty::Void, span))
            }
            "atomicAdd" | "atomicSub" | "atomicExch" | "atomicMin" | "atomicMax" | "atomicAnd"
            | "atomicOr" | "atomicXor" => {
                arity(self, 2)?;
                let p = self.rvalue(&args[0])?;
                let v = self.rvalue(&args[1])?;
                let (elem, space) = match &p.ty {
                    Ty::Ptr(e, s @ (Space::Global | Space::Shared))
                        if matches!(**e, Ty::Int(IntTy::Int | IntTy::UInt)) =>
                    {
                        ((**e).clone(), *s)
                    }
                    t => {
                        self.error(
                            args[0].span,
                            format!("`{n}` needs a pointer to `int` or `unsigned int` in global or shared memory, found `{t}`"),
                        );
                        return Err(());
                    }
                };
                let v = self.convert(v, &elem, args[1].span)?;
                let signed = elem == Ty::INT;
                let (op, v) = match n {
                    "atomicAdd" => (AtomOp::Add, v),
                    "atomicSub" => {
                        let s = v.span;
                        let ty = v.ty.clone();
                        (
                            AtomOp::Add,
                            Expr::new(ExprKind::Unary(UnaryOp::Neg, Box::new(v)), ty, s),
                        )
                    }
                    "atomicExch" => (AtomOp::Exch, v),
                    "atomicMin" if signed => (AtomOp::Min, v),
                    "atomicMin" => (AtomOp::MinU, v),
                    "atomicMax" if signed => (AtomOp::Max, v),
                    "atomicMax" => (AtomOp::MaxU, v),
                    "atomicAnd" => (AtomOp::And, v),
                    "atomicOr" => (AtomOp::Or, v),
                    _ => (AtomOp::Xor, v),
                };
                Ok(Expr::new(
                    ExprKind::Atomic {
                        space,
                        op,
                        addr: Box::new(p),
                        value: Box::new(v),
                    },
                    elem,
                    span,
                ))
            }
            "__any_sync" | "__all_sync" | "__ballot_sync" => {
                arity(self, 2)?;
                let mask = self.rvalue(&args[0])?;
                if const_eval(&mask) != Some(-1) {
                    self.error(
                        args[0].span,
                        "only full-warp masks are supported (write `0xffffffff`)",
                    );
                    return Err(());
                }
                let p = self.rvalue(&args[1])?;
                let p = self.truth_value(p, args[1].span)?;
                let (op, ty) = match n {
                    "__any_sync" => (VoteOp::Any, Ty::BOOL),
                    "__all_sync" => (VoteOp::All, Ty::BOOL),
                    _ => (VoteOp::Ballot, Ty::UINT),
                };
                if self.f.divergent > 0 {
                    self.warning(span, format!("`{n}` in divergent control flow: every thread of the warp must reach it"));
                }
                Ok(Expr::new(ExprKind::Vote(op, Box::new(p)), ty, span))
            }
            "min" | "max" => {
                arity(self, 2)?;
                let a = self.rvalue(&args[0])?;
                let b = self.rvalue(&args[1])?;
                let (Some(x), Some(y)) = (a.ty.int(), b.ty.int()) else {
                    self.error(span, format!("`{n}` needs integer arguments"));
                    return Err(());
                };
                let ty = Ty::Int(usual(x, y));
                let a = self.convert(a, &ty, span)?;
                let b = self.convert(b, &ty, span)?;
                let op = match (n, ty == Ty::INT) {
                    ("min", true) => BinaryOp::SMin,
                    ("min", false) => BinaryOp::UMin,
                    (_, true) => BinaryOp::SMax,
                    _ => BinaryOp::UMax,
                };
                Ok(Expr::new(
                    ExprKind::Binary(op, Box::new(a), Box::new(b)),
                    ty,
                    span,
                ))
            }
            "abs" => {
                arity(self, 1)?;
                let a = self.rvalue(&args[0])?;
                let a = self.convert(a, &Ty::INT, span)?;
                Ok(Expr::new(ExprKind::Abs(Box::new(a)), Ty::INT, span))
            }
            "atomicCAS" | "atomicInc" | "atomicDec" | "__syncwarp" | "__shfl_sync"
            | "__shfl_down_sync" | "__shfl_up_sync" | "__shfl_xor_sync" | "printf" | "malloc"
            | "free" | "__threadfence" => {
                self.error(name.span, format!("`{n}` is not supported by Concord"));
                Err(())
            }
            _ => {
                self.error(name.span, format!("unknown function `{n}`"));
                Err(())
            }
        }
    }

    fn user_call(&mut self, name: &ast::Ident, args: &[ast::Expr], span: Span) -> R<Expr> {
        let sig = self.sigs[self.sig_by_name[&name.name]].clone();
        if sig.kernel {
            self.error(
                name.span,
                format!(
                    "`{}` is a `__global__` kernel and cannot be called from device code",
                    sig.name
                ),
            );
            return Err(());
        }
        if args.len() != sig.params.len() {
            let d = Diagnostic::error(
                span,
                format!(
                    "wrong number of arguments to `{}`: expected {}, found {}",
                    sig.name,
                    sig.params.len(),
                    args.len()
                ),
            )
            .with_label(sig.span, "declared here");
            self.diags.push(d);
            return Err(());
        }
        let mut checked = Vec::new();
        let mut failed = false;
        for (a, ty) in args.iter().zip(&sig.params) {
            match self.rvalue(a).and_then(|v| self.convert(v, ty, a.span)) {
                Ok(v) => checked.push(v),
                Err(()) => failed = true,
            }
        }
        if failed {
            return Err(());
        }
        let Some(index) = sig.index else {
            self.error(
                name.span,
                format!("`{}` is declared but never defined", sig.name),
            );
            return Err(());
        };
        Ok(Expr::new(ExprKind::Call(index, checked), sig.ret, span))
    }

    // ---- recursion without a base case -----------------------------------

    fn check_base_case(&mut self, def: &ast::FunctionDef, body: &ast::Block) {
        let name = &def.name.name;
        if recursion_of_stmts(&body.stmts, name) == Recursion::Always {
            self.diags.push(
                Diagnostic::warning(
                    def.name.span,
                    format!("`{name}` calls itself on every path: recursion without a base case"),
                )
                .with_note("every path through the function calls it again before returning"),
            );
        }
    }
}

fn special_reg(base: &str, field: &str) -> Option<SpecialReg> {
    use SpecialReg::*;
    Some(match (base, field) {
        ("threadIdx", "x") => TidX,
        ("threadIdx", "y") => TidY,
        ("threadIdx", "z") => TidZ,
        ("blockIdx", "x") => CtaidX,
        ("blockIdx", "y") => CtaidY,
        ("blockIdx", "z") => CtaidZ,
        ("blockDim", "x") => NtidX,
        ("blockDim", "y") => NtidY,
        ("blockDim", "z") => NtidZ,
        ("gridDim", "x") => NctaidX,
        ("gridDim", "y") => NctaidY,
        ("gridDim", "z") => NctaidZ,
        _ => return None,
    })
}

/// The usual arithmetic conversions of two integer types.
fn usual(a: IntTy, b: IntTy) -> IntTy {
    if a.promote() == IntTy::UInt || b.promote() == IntTy::UInt {
        IntTy::UInt
    } else {
        IntTy::Int
    }
}

fn convert_int(e: Expr, from: IntTy, to: IntTy) -> Expr {
    let span = e.span;
    // A `bool` is 0 or 1, which every integer type holds.
    let from_fits = from.fits_in(to);
    let e = if from == IntTy::Bool {
        Expr::new(
            ExprKind::Unary(UnaryOp::BoolToInt, Box::new(e)),
            Ty::INT,
            span,
        )
    } else {
        e
    };
    match to.narrowing() {
        Some(op) if !from_fits => Expr::new(ExprKind::Unary(op, Box::new(e)), Ty::Int(to), span),
        _ => e.with_ty(Ty::Int(to)),
    }
}

fn compare(op: ast::BinaryOp, signed: bool, l: Expr, r: Expr, span: Span) -> Expr {
    use ast::BinaryOp as B;
    let cmp = match (op, signed) {
        (B::Eq, _) => Cmp::Eq,
        (B::Ne, _) => Cmp::Ne,
        (B::Lt, true) => Cmp::Lt,
        (B::Le, true) => Cmp::Le,
        (B::Gt, true) => Cmp::Gt,
        (B::Ge, true) => Cmp::Ge,
        (B::Lt, false) => Cmp::LtU,
        (B::Le, false) => Cmp::LeU,
        (B::Gt, false) => Cmp::GtU,
        _ => Cmp::GeU,
    };
    Expr::new(ExprKind::Cmp(cmp, Box::new(l), Box::new(r)), Ty::BOOL, span)
}

/// How a statement relates to calls of the function itself.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Recursion {
    /// Every path through it has called the function.
    Always,
    /// Some path returns without calling it (a base case).
    BaseCase,
    /// Neither: control may continue without having called it.
    Maybe,
}

fn recursion_of_stmts(stmts: &[ast::Stmt], name: &str) -> Recursion {
    for s in stmts {
        match recursion_of_stmt(s, name) {
            Recursion::Maybe => {}
            r => return r,
        }
    }
    Recursion::Maybe
}

fn recursion_of_stmt(s: &ast::Stmt, name: &str) -> Recursion {
    use ast::StmtKind as S;
    let calls = |e: &ast::Expr| calls_unconditionally(e, name);
    let when = |b: bool| {
        if b {
            Recursion::Always
        } else {
            Recursion::Maybe
        }
    };
    match &s.kind {
        S::Decl(d) => when(d.declarators.iter().any(|d| match &d.init {
            Some(ast::Initializer::Expr(e)) => calls(e),
            _ => false,
        })),
        S::Expr(e) => when(calls(e)),
        S::Block(b) => recursion_of_stmts(&b.stmts, name),
        S::If { .. } => {
            // An `else if` chain, arm by arm from the last (no recursion
            // along the chain, which may be thousands of arms long).
            let mut arms = Vec::new();
            let mut current = s;
            let mut last = Recursion::Maybe;
            while let S::If { cond, then, els } = &current.kind {
                arms.push((cond, then));
                match els.as_deref() {
                    Some(next) if matches!(next.kind, S::If { .. }) => current = next,
                    Some(e) => {
                        last = recursion_of_stmt(e, name);
                        break;
                    }
                    None => break,
                }
            }
            arms.into_iter().rev().fold(last, |els, (cond, then)| {
                if calls(cond) {
                    return Recursion::Always;
                }
                match (recursion_of_stmt(then, name), els) {
                    (Recursion::BaseCase, _) | (_, Recursion::BaseCase) => Recursion::BaseCase,
                    (Recursion::Always, Recursion::Always) => Recursion::Always,
                    _ => Recursion::Maybe,
                }
            })
        }
        S::While { cond, body } => {
            if calls(cond) {
                return Recursion::Always;
            }
            match recursion_of_stmt(body, name) {
                Recursion::BaseCase => Recursion::BaseCase,
                _ => Recursion::Maybe,
            }
        }
        S::For {
            init, cond, body, ..
        } => {
            if let Some(i) = init {
                if recursion_of_stmt(i, name) == Recursion::Always {
                    return Recursion::Always;
                }
            }
            if cond.as_ref().is_some_and(calls) {
                return Recursion::Always;
            }
            match recursion_of_stmt(body, name) {
                Recursion::BaseCase => Recursion::BaseCase,
                _ => Recursion::Maybe,
            }
        }
        S::DoWhile { body, cond } => match recursion_of_stmt(body, name) {
            Recursion::Maybe => when(calls(cond)),
            r => r,
        },
        S::Return(Some(e)) if calls(e) => Recursion::Always,
        S::Return(_) => Recursion::BaseCase,
        // Leaving a loop early: the code after it decides.
        S::Break | S::Continue | S::Empty => Recursion::Maybe,
    }
}

/// Whether evaluating `e` always calls `name` (calls on one side of
/// `&&`, `||` or `?:` do not count).
fn calls_unconditionally(e: &ast::Expr, name: &str) -> bool {
    use ast::ExprKind as E;
    // Down the left spine of a flat chain with a loop.
    let mut e = e;
    loop {
        match &e.kind {
            E::Binary(op, a, b) => {
                if !matches!(op, ast::BinaryOp::LogAnd | ast::BinaryOp::LogOr)
                    && calls_unconditionally(b, name)
                {
                    return true;
                }
                e = a;
            }
            E::Comma(a, b) => {
                if calls_unconditionally(b, name) {
                    return true;
                }
                e = a;
            }
            _ => break,
        }
    }
    match &e.kind {
        E::Call(f, args) => f.name == name || args.iter().any(|a| calls_unconditionally(a, name)),
        E::IntLit { .. } | E::BoolLit(_) | E::Ident(_) | E::SizeofType(_) | E::SizeofExpr(_) => {
            false
        }
        E::Member(a, _) | E::Unary(_, a) | E::Cast(_, a) | E::IncDec { target: a, .. } => {
            calls_unconditionally(a, name)
        }
        E::Index(a, b) | E::Assign(_, a, b) => {
            calls_unconditionally(a, name) || calls_unconditionally(b, name)
        }
        E::Binary(..) | E::Comma(..) => false,
        E::Cond(c, a, b) => {
            calls_unconditionally(c, name)
                || (calls_unconditionally(a, name) && calls_unconditionally(b, name))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{lexer::lex, parse::parse, preprocess::preprocess};
    use super::*;

    fn check_src(src: &str) -> (Program, Vec<Diagnostic>) {
        let mut d = Vec::new();
        let toks = preprocess(lex(src, &mut d), &mut d);
        let unit = parse(toks, &mut d);
        assert!(d.is_empty(), "{d:?}");
        let p = check(&unit, &FrontendOptions::default(), &mut d);
        (p, d)
    }

    /// The checked expression of `return <expr>;` in a device function
    /// with the given parameters.
    fn typed(params: &str, ret: &str, expr: &str) -> Expr {
        let (p, d) = check_src(&format!(
            "__device__ {ret} f({params}) {{ return {expr}; }}"
        ));
        assert!(d.is_empty(), "{d:?}");
        match &p.funcs[0].body[0] {
            Stmt::Return(Some(e), _) => e.clone(),
            s => panic!("{s:?}"),
        }
    }

    #[test]
    fn usual_arithmetic_conversions() {
        // int + unsigned -> unsigned; the comparison is unsigned.
        let e = typed("int a, unsigned b", "bool", "a < b");
        assert!(matches!(e.kind, ExprKind::Cmp(Cmp::LtU, _, _)), "{e:?}");
        let e = typed("int a, short b", "bool", "a < b");
        assert!(matches!(e.kind, ExprKind::Cmp(Cmp::Lt, _, _)));
        // char promotes to int: signed division.
        let e = typed("char a, char b", "int", "a / b");
        assert!(matches!(e.kind, ExprKind::Binary(BinaryOp::SDiv, _, _)));
        let e = typed("unsigned a, int b", "unsigned", "a % b");
        assert!(matches!(e.kind, ExprKind::Binary(BinaryOp::URem, _, _)));
    }

    #[test]
    fn shifts_take_the_left_type() {
        let e = typed("int a, unsigned b", "int", "a >> b");
        assert!(matches!(e.kind, ExprKind::Binary(BinaryOp::AShr, _, _)));
        let e = typed("unsigned a, int b", "unsigned", "a >> b");
        assert!(matches!(e.kind, ExprKind::Binary(BinaryOp::LShr, _, _)));
    }

    #[test]
    fn narrowing_conversions_are_explicit() {
        let e = typed("int a", "unsigned char", "a");
        assert!(matches!(e.kind, ExprKind::Unary(UnaryOp::Zext8, _)));
        let e = typed("unsigned char a", "short", "a");
        assert!(
            matches!(e.kind, ExprKind::Read(_)),
            "widening needs no operation"
        );
        let e = typed("char a", "unsigned short", "a");
        assert!(matches!(e.kind, ExprKind::Unary(UnaryOp::Zext16, _)));
        let e = typed("int a", "bool", "a");
        assert!(matches!(e.kind, ExprKind::ToBool(_)));
        let e = typed("bool a", "int", "a");
        assert!(matches!(e.kind, ExprKind::Unary(UnaryOp::BoolToInt, _)));
    }

    #[test]
    fn pointer_arithmetic_scales() {
        let e = typed("short *p, int i", "int", "*(p + i)");
        let ExprKind::Read(place) = &e.kind else {
            panic!()
        };
        let PlaceKind::Mem { space, addr } = &place.kind else {
            panic!()
        };
        assert_eq!(*space, Space::Global);
        let ExprKind::Binary(BinaryOp::Add, _, scaled) = &addr.kind else {
            panic!()
        };
        let ExprKind::Binary(BinaryOp::Mul, _, size) = &scaled.kind else {
            panic!()
        };
        assert_eq!(const_eval(size), Some(2));
        let e = typed("int *p, int *q", "int", "p - q");
        assert!(matches!(e.kind, ExprKind::Binary(BinaryOp::SDiv, _, _)));
    }

    #[test]
    fn builtins_are_unsigned_special_registers() {
        let (p, d) =
            check_src("__global__ void k(int *o) { o[0] = blockDim.y + gridDim.z + warpSize; }");
        assert!(d.is_empty());
        let Stmt::Expr(Expr {
            kind: ExprKind::Assign(_, v),
            ..
        }) = &p.funcs[0].body[0]
        else {
            panic!()
        };
        assert_eq!(v.ty, Ty::INT);
        let mut regs = Vec::new();
        fn collect(e: &Expr, out: &mut Vec<SpecialReg>) {
            if let ExprKind::Special(r) = e.kind {
                out.push(r);
            }
            e.for_each_child(|c| collect(c, out));
        }
        collect(v, &mut regs);
        assert_eq!(
            regs,
            vec![SpecialReg::NtidY, SpecialReg::NctaidZ, SpecialReg::WarpSize]
        );
    }

    #[test]
    fn constant_evaluation() {
        let e = typed("", "int", "(3 + 4) * 2 - (1 << 3) / 2");
        assert_eq!(const_eval(&e), Some(10));
        let e = typed("", "unsigned", "0xffffffffu / 2");
        assert_eq!(const_eval(&e), Some(0x7fffffff));
    }

    #[test]
    fn shadowing_makes_new_variables() {
        let (p, d) = check_src("__global__ void k() { int x = 1; { int x = 2; } }");
        assert!(d.is_empty());
        assert_eq!(p.funcs[0].vars.len(), 2);
    }

    #[test]
    fn atomics_pick_signedness_from_the_pointer() {
        let (p, d) = check_src(
            "__global__ void k(int *a, unsigned *b) { atomicMin(a, 1); atomicMin(b, 1u); atomicSub(a, 2); }",
        );
        assert!(d.is_empty(), "{d:?}");
        let ops: Vec<AtomOp> = p.funcs[0]
            .body
            .iter()
            .map(|s| match s {
                Stmt::Expr(Expr {
                    kind: ExprKind::Atomic { op, .. },
                    ..
                }) => *op,
                s => panic!("{s:?}"),
            })
            .collect();
        assert_eq!(ops, vec![AtomOp::Min, AtomOp::MinU, AtomOp::Add]);
    }

    #[test]
    fn recursion_analysis() {
        let (_, d) = check_src("__device__ int f(int n) { int r = f(n); return r; }");
        assert_eq!(d.len(), 1);
        let (_, d) =
            check_src("__device__ int f(int n) { while (n) { return f(n - 1); } return 0; }");
        assert!(d.is_empty(), "{d:?}");
        let (_, d) = check_src("__device__ int f(int n) { return n > 0 && f(n - 1); }");
        assert!(d.is_empty(), "{d:?}");
    }
}
