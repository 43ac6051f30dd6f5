//! Lowering: the typed tree of [`hir`](super::hir) to an IR [`Module`].
//!
//! Last step of the front end. Every local variable (and every parameter,
//! copied at entry) lives in a 4-byte stack slot accessed with
//! `stack_addr` + `load.local.b32` / `store.local.b32`, `bool`s stored as
//! 0/1 and read back with `icmp ne v, 0`; the mem2reg pass turns them into
//! SSA values. Control flow is structured and laid out in source order:
//! `if` → then, else, join; loops → header (the condition), body, latch,
//! exit. `&&`, `||` and `?:` always become control flow (the right side may
//! have effects or fault), with a block parameter carrying the value.
//! Code after `return`/`break`/`continue` goes to a fresh block that is
//! dropped at the end with every other unreachable block.

use concord_isa::instr::Cmp;

use super::diag::{Diagnostic, LineIndex, Span};
use super::hir::*;
use super::types::{Space, Ty};
use crate::ir::{
    Block, BlockCall, FuncKind, Function, InstData, MemSpace, Module, SharedId, SrcLoc, StackSlot,
    Type, UnaryOp, Value,
};

/// Lowers a checked program. Warnings (falling off the end of a non-void
/// function) are appended to `diags`.
pub fn lower(program: &Program, lines: &LineIndex, diags: &mut Vec<Diagnostic>) -> Module {
    let mut module = Module::default();
    for s in &program.shared {
        module.add_shared(s.name.clone(), s.size, s.align);
    }
    for f in &program.funcs {
        let func = Lowerer::new(program, f, lines).run(diags);
        module.add_func(func);
    }
    module
}

fn ir_type(ty: &Ty) -> Type {
    if ty.is_bool() {
        Type::I1
    } else {
        Type::I32
    }
}

struct Lowerer<'a> {
    program: &'a Program,
    hir: &'a Func,
    lines: &'a LineIndex<'a>,
    func: Function,
    cur: Block,
    slots: Vec<StackSlot>,
    /// `(continue target, break target)` of the enclosing loops.
    loops: Vec<(Block, Block)>,
    /// The old values of the places being updated (`+=`, `++`).
    old: Vec<Value>,
    loc: Option<SrcLoc>,
}

/// A place with its address computed once.
enum PlaceRef {
    Slot(StackSlot),
    Mem(MemSpace, Value),
}

impl<'a> Lowerer<'a> {
    fn new(program: &'a Program, hir: &'a Func, lines: &'a LineIndex<'a>) -> Lowerer<'a> {
        let kind = if hir.kernel {
            FuncKind::Kernel
        } else {
            FuncKind::Device
        };
        let mut func = Function::new(hir.name.clone(), kind);
        func.param_names = hir
            .params
            .iter()
            .map(|&v| hir.vars[v].name.clone())
            .collect();
        if !hir.kernel {
            func.params = hir
                .params
                .iter()
                .map(|&v| ir_type(&hir.vars[v].ty))
                .collect();
            func.ret = (hir.ret != Ty::Void).then(|| ir_type(&hir.ret));
        }
        let slots = hir
            .vars
            .iter()
            .map(|v| {
                let size = (v.ty.size().max(4).div_ceil(4) * 4).min(u32::MAX as u64) as u32;
                func.add_stack_slot(size, 4)
            })
            .collect();
        let cur = func.add_block();
        Lowerer {
            program,
            hir,
            lines,
            func,
            cur,
            slots,
            loops: Vec::new(),
            old: Vec::new(),
            loc: None,
        }
    }

    fn run(mut self, diags: &mut Vec<Diagnostic>) -> Function {
        self.set_loc(self.hir.span);
        let entry = self.cur;
        for (k, &v) in self.hir.params.iter().enumerate() {
            let ty = self.hir.vars[v].ty.clone();
            let value = if self.hir.kernel {
                self.val(InstData::Param { index: k as u32 }, Type::I32)
            } else {
                self.func.add_block_param(entry, ir_type(&ty))
            };
            self.write(&PlaceRef::Slot(self.slots[v]), &ty, value);
        }
        self.stmts(&self.hir.body);
        self.set_loc(self.hir.end);
        let last = self.cur;
        if self.func.terminator(last).is_none() {
            let value = match &self.hir.ret {
                Ty::Void => None,
                t if t.is_bool() => Some(self.val(InstData::Bconst { imm: false }, Type::I1)),
                _ => Some(self.val(InstData::Iconst { imm: 0 }, Type::I32)),
            };
            self.ins(InstData::Return { value }, None);
        }
        let reachable = self.reachable();
        if self.hir.ret != Ty::Void && reachable[last.index()] {
            diags.push(Diagnostic::warning(
                self.hir.end,
                format!(
                    "control reaches the end of non-void function `{}` (it returns 0 there)",
                    self.hir.name
                ),
            ));
        }
        self.func.layout.retain(|b| reachable[b.index()]);
        self.func
    }

    fn reachable(&self) -> Vec<bool> {
        let mut seen = vec![false; self.func.blocks.len()];
        let mut work: Vec<Block> = self.func.entry_block().into_iter().collect();
        while let Some(b) = work.pop() {
            if std::mem::replace(&mut seen[b.index()], true) {
                continue;
            }
            work.extend(self.func.successors(b));
        }
        seen
    }

    // ---- emission helpers -------------------------------------------------

    fn set_loc(&mut self, span: Span) {
        let (line, col) = self.lines.line_col(span.start);
        self.loc = Some(SrcLoc { line, col });
    }

    fn ins(&mut self, data: InstData, ty: Option<Type>) -> Option<Value> {
        let inst = self.func.append_inst(self.cur, data, ty);
        self.func.set_inst_loc(inst, self.loc);
        self.func.inst_result(inst)
    }

    fn val(&mut self, data: InstData, ty: Type) -> Value {
        self.ins(data, Some(ty))
            .expect("an instruction with a result type has a result")
    }

    fn iconst(&mut self, imm: i32) -> Value {
        self.val(InstData::Iconst { imm }, Type::I32)
    }

    fn terminated(&self) -> bool {
        self.func.terminator(self.cur).is_some()
    }

    /// Continues in `b` (placing it in the layout); an unterminated
    /// current block falls through to it with a jump.
    fn start(&mut self, b: Block) {
        if !self.terminated() {
            self.jump(b, Vec::new());
        }
        self.func.layout.push(b);
        self.cur = b;
    }

    /// After a terminator: code that follows is unreachable.
    fn start_dead(&mut self) {
        let b = self.func.create_block();
        self.func.layout.push(b);
        self.cur = b;
    }

    fn jump(&mut self, b: Block, args: Vec<Value>) {
        self.ins(
            InstData::Jump {
                dest: BlockCall { block: b, args },
            },
            None,
        );
    }

    fn brif(&mut self, cond: Value, then: BlockCall, els: BlockCall) {
        self.ins(
            InstData::Brif {
                cond,
                then_dest: then,
                else_dest: els,
            },
            None,
        );
    }

    // ---- places -------------------------------------------------------------

    fn place_ref(&mut self, p: &Place) -> PlaceRef {
        match &p.kind {
            PlaceKind::Var(v) => PlaceRef::Slot(self.slots[*v]),
            PlaceKind::Mem { space, addr } => {
                let a = self.expr_value(addr);
                PlaceRef::Mem(space.mem_space(), a)
            }
        }
    }

    fn read(&mut self, r: &PlaceRef, ty: &Ty) -> Value {
        let raw = match r {
            PlaceRef::Slot(slot) => {
                let addr = self.val(InstData::StackAddr { slot: *slot }, Type::I32);
                self.val(
                    InstData::Load {
                        space: MemSpace::Local,
                        width: concord_isa::instr::LoadWidth::B32,
                        addr,
                        offset: 0,
                    },
                    Type::I32,
                )
            }
            PlaceRef::Mem(space, addr) => self.val(
                InstData::Load {
                    space: *space,
                    width: ty.load_width(),
                    addr: *addr,
                    offset: 0,
                },
                Type::I32,
            ),
        };
        if ty.is_bool() {
            let zero = self.iconst(0);
            self.val(
                InstData::Icmp {
                    cmp: Cmp::Ne,
                    args: [raw, zero],
                },
                Type::I1,
            )
        } else {
            raw
        }
    }

    fn write(&mut self, r: &PlaceRef, ty: &Ty, value: Value) {
        let value = if self.func.value_type(value) == Type::I1 {
            self.val(
                InstData::Unary {
                    op: UnaryOp::BoolToInt,
                    arg: value,
                },
                Type::I32,
            )
        } else {
            value
        };
        let (space, width, addr) = match r {
            PlaceRef::Slot(slot) => {
                let addr = self.val(InstData::StackAddr { slot: *slot }, Type::I32);
                (MemSpace::Local, concord_isa::instr::StoreWidth::B32, addr)
            }
            PlaceRef::Mem(space, addr) => (*space, ty.store_width(), *addr),
        };
        self.ins(
            InstData::Store {
                space,
                width,
                value,
                addr,
                offset: 0,
            },
            None,
        );
    }

    // ---- statements -----------------------------------------------------------

    fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    /// An `if` and the `else if`s nested in its `else` (a chain that may be
    /// thousands of arms long), in a loop: the blocks are made in the order
    /// the nested tree's recursion would make them, and the joins started
    /// innermost first.
    fn if_chain(&mut self, s: &Stmt) {
        let mut joins = Vec::new();
        let mut current = s;
        while let Stmt::If { cond, then, els } = current {
            let then_b = self.func.create_block();
            let join = self.func.create_block();
            joins.push(join);
            let else_b = if els.is_empty() {
                join
            } else {
                self.func.create_block()
            };
            self.branch(cond, then_b, else_b);
            self.start(then_b);
            self.stmts(then);
            if els.is_empty() {
                break;
            }
            self.jump_if_open(join);
            self.start(else_b);
            match els.as_slice() {
                [next @ Stmt::If { .. }] => current = next,
                _ => {
                    self.stmts(els);
                    break;
                }
            }
        }
        for join in joins.into_iter().rev() {
            self.start(join);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Expr(e) => {
                self.expr(e);
            }
            Stmt::Block(b) => self.stmts(b),
            Stmt::If { .. } => self.if_chain(s),
            Stmt::While { cond, body } => {
                let header = self.func.create_block();
                let body_b = self.func.create_block();
                let exit = self.func.create_block();
                self.start(header);
                self.branch(cond, body_b, exit);
                self.start(body_b);
                self.loops.push((header, exit));
                self.stmts(body);
                self.loops.pop();
                self.jump_if_open(header);
                self.start(exit);
            }
            Stmt::DoWhile { body, cond } => {
                let body_b = self.func.create_block();
                let cond_b = self.func.create_block();
                let exit = self.func.create_block();
                self.start(body_b);
                self.loops.push((cond_b, exit));
                self.stmts(body);
                self.loops.pop();
                self.start(cond_b);
                self.branch(cond, body_b, exit);
                self.start(exit);
            }
            Stmt::For {
                init,
                cond,
                step,
                body,
            } => {
                self.stmts(init);
                let header = self.func.create_block();
                let body_b = self.func.create_block();
                let latch = self.func.create_block();
                let exit = self.func.create_block();
                self.start(header);
                match cond {
                    Some(c) => self.branch(c, body_b, exit),
                    None => self.jump(body_b, Vec::new()),
                }
                self.start(body_b);
                self.loops.push((latch, exit));
                self.stmts(body);
                self.loops.pop();
                self.start(latch);
                if let Some(step) = step {
                    self.expr(step);
                }
                self.jump_if_open(header);
                self.start(exit);
            }
            Stmt::Break(span) | Stmt::Continue(span) => {
                self.set_loc(*span);
                let (cont, brk) = *self
                    .loops
                    .last()
                    .expect("the checker rejects break/continue outside loops");
                let target = if matches!(s, Stmt::Break(_)) {
                    brk
                } else {
                    cont
                };
                self.jump(target, Vec::new());
                self.start_dead();
            }
            Stmt::Return(value, span) => {
                let v = value.as_ref().map(|e| self.expr_value(e));
                self.set_loc(*span);
                self.ins(InstData::Return { value: v }, None);
                self.start_dead();
            }
        }
    }

    fn jump_if_open(&mut self, b: Block) {
        if !self.terminated() {
            self.jump(b, Vec::new());
        }
    }

    /// Branches on a `bool` condition, turning `&&`, `||` and `!` into
    /// control flow. A chain of `&&`/`||` nests as deep as it is long, so
    /// the conditions are worked off a stack, in the order a recursive
    /// descent would emit them.
    fn branch(&mut self, cond: &Expr, then: Block, els: Block) {
        enum Work<'e> {
            Branch(&'e Expr, Block, Block),
            Start(Block),
        }
        let mut work = vec![Work::Branch(cond, then, els)];
        while let Some(w) = work.pop() {
            let (cond, then, els) = match w {
                Work::Start(b) => {
                    self.start(b);
                    continue;
                }
                Work::Branch(c, t, e) => (c, t, e),
            };
            match &cond.kind {
                ExprKind::LogAnd(a, b) => {
                    let mid = self.func.create_block();
                    work.push(Work::Branch(b, then, els));
                    work.push(Work::Start(mid));
                    work.push(Work::Branch(a, mid, els));
                }
                ExprKind::LogOr(a, b) => {
                    let mid = self.func.create_block();
                    work.push(Work::Branch(b, then, els));
                    work.push(Work::Start(mid));
                    work.push(Work::Branch(a, then, mid));
                }
                ExprKind::Unary(UnaryOp::Not, a) if a.ty.is_bool() => {
                    work.push(Work::Branch(a, els, then));
                }
                _ => {
                    let c = self.expr_value(cond);
                    self.brif(c, BlockCall::new(then), BlockCall::new(els));
                }
            }
        }
    }

    // ---- expressions -----------------------------------------------------------

    /// An expression that has a value (the checker guarantees it).
    fn expr_value(&mut self, e: &Expr) -> Value {
        let v = self.expr(e);
        self.or_zero(v)
    }

    /// Evaluates `e`: first the end of its left spine (see
    /// [`left_operand`]), then each link up the spine on the value below
    /// it, with a loop (a flat chain `x + x + … + x` nests as deep as it is
    /// long). Each node's instructions carry its own location.
    fn expr(&mut self, e: &Expr) -> Option<Value> {
        let saved = self.loc;
        let (spine, first) = e.left_spine();
        self.set_loc(first.span);
        let mut v = self.leaf(first);
        for link in spine.into_iter().rev() {
            self.set_loc(link.span);
            v = self.link(link, v);
        }
        self.loc = saved;
        v
    }

    /// A value or `0` for a missing one: a `void` value where one is
    /// needed cannot pass the checker, and a zero keeps the IR well-formed
    /// regardless.
    fn or_zero(&mut self, v: Option<Value>) -> Value {
        match v {
            Some(v) => v,
            None => self.iconst(0),
        }
    }

    /// One link of a chain (a node with a [`left_operand`]), given the
    /// value of that operand.
    fn link(&mut self, e: &Expr, left: Option<Value>) -> Option<Value> {
        Some(match &e.kind {
            ExprKind::Unary(op, _) => {
                let arg = self.or_zero(left);
                let ty = if *op == UnaryOp::BoolToInt {
                    Type::I32
                } else {
                    self.func.value_type(arg)
                };
                self.val(InstData::Unary { op: *op, arg }, ty)
            }
            ExprKind::Binary(op, _, b) => {
                let x = self.or_zero(left);
                let y = self.expr_value(b);
                self.val(
                    InstData::Binary {
                        op: *op,
                        args: [x, y],
                    },
                    Type::I32,
                )
            }
            ExprKind::Cmp(cmp, _, b) => {
                let x = self.or_zero(left);
                let y = self.expr_value(b);
                self.val(
                    InstData::Icmp {
                        cmp: *cmp,
                        args: [x, y],
                    },
                    Type::I1,
                )
            }
            ExprKind::ToBool(_) => {
                let x = self.or_zero(left);
                let zero = self.iconst(0);
                self.val(
                    InstData::Icmp {
                        cmp: Cmp::Ne,
                        args: [x, zero],
                    },
                    Type::I1,
                )
            }
            ExprKind::LogAnd(_, b) | ExprKind::LogOr(_, b) => {
                let is_and = matches!(e.kind, ExprKind::LogAnd(..));
                let x = self.or_zero(left);
                let rhs = self.func.create_block();
                let join = self.func.create_block();
                let result = self.func.add_block_param(join, Type::I1);
                let short = BlockCall {
                    block: join,
                    args: vec![x],
                };
                if is_and {
                    self.brif(x, BlockCall::new(rhs), short);
                } else {
                    self.brif(x, short, BlockCall::new(rhs));
                }
                self.start(rhs);
                let y = self.expr_value(b);
                self.jump(join, vec![y]);
                self.start(join);
                result
            }
            ExprKind::Comma(_, b) => return self.expr(b),
            // Not a link: `expr` passes none here.
            _ => return left,
        })
    }

    /// A node that is not a link of a chain (see [`Self::link`]).
    fn leaf(&mut self, e: &Expr) -> Option<Value> {
        let ty = ir_type(&e.ty);
        Some(match &e.kind {
            ExprKind::Const(imm) => self.iconst(*imm),
            ExprKind::BoolConst(imm) => self.val(InstData::Bconst { imm: *imm }, Type::I1),
            ExprKind::Special(reg) => self.val(InstData::Special { reg: *reg }, Type::I32),
            ExprKind::Read(p) => {
                let r = self.place_ref(p);
                self.read(&r, &p.ty)
            }
            ExprKind::StackAddr(v) => self.val(
                InstData::StackAddr {
                    slot: self.slots[*v],
                },
                Type::I32,
            ),
            ExprKind::SharedAddr(i) => self.val(
                InstData::SharedAddr {
                    var: SharedId::new(*i),
                },
                Type::I32,
            ),
            ExprKind::Cond(c, a, b) => {
                let tb = self.func.create_block();
                let fb = self.func.create_block();
                let join = self.func.create_block();
                let result = (e.ty != Ty::Void).then(|| self.func.add_block_param(join, ty));
                self.branch(c, tb, fb);
                for (block, arm) in [(tb, a), (fb, b)] {
                    self.start(block);
                    let v = self.expr(arm);
                    let args = match (result, v) {
                        (Some(_), Some(v)) => vec![v],
                        (Some(_), None) => vec![self.iconst(0)],
                        _ => Vec::new(),
                    };
                    self.jump(join, args);
                }
                self.start(join);
                return result;
            }
            ExprKind::Assign(p, value) => {
                let r = self.place_ref(p);
                let v = self.expr_value(value);
                self.write(&r, &p.ty, v);
                v
            }
            ExprKind::Update { place, new, post } => {
                let r = self.place_ref(place);
                let old = self.read(&r, &place.ty);
                self.old.push(old);
                let n = self.expr_value(new);
                self.old.pop();
                self.write(&r, &place.ty, n);
                if *post {
                    old
                } else {
                    n
                }
            }
            ExprKind::OldValue => match self.old.last() {
                Some(v) => *v,
                None => self.iconst(0),
            },
            ExprKind::Call(index, args) => {
                let args = args.iter().map(|a| self.expr_value(a)).collect();
                let ret = &self.program.funcs[*index].ret;
                let rty = (*ret != Ty::Void).then(|| ir_type(ret));
                return self.ins(
                    InstData::Call {
                        func: crate::ir::FuncId::new(*index),
                        args,
                    },
                    rty,
                );
            }
            ExprKind::Atomic {
                space,
                op,
                addr,
                value,
            } => {
                let a = self.expr_value(addr);
                let v = self.expr_value(value);
                let space = match space {
                    Space::Shared => MemSpace::Shared,
                    _ => MemSpace::Global,
                };
                self.val(
                    InstData::Atomic {
                        space,
                        op: *op,
                        addr: a,
                        value: v,
                    },
                    Type::I32,
                )
            }
            ExprKind::Vote(op, a) => {
                let arg = self.expr_value(a);
                self.val(InstData::Vote { op: *op, arg }, ty)
            }
            ExprKind::Barrier => {
                self.ins(InstData::Barrier, None);
                return None;
            }
            ExprKind::Abs(a) => {
                let x = self.expr_value(a);
                let neg = self.val(
                    InstData::Unary {
                        op: UnaryOp::Neg,
                        arg: x,
                    },
                    Type::I32,
                );
                self.val(
                    InstData::Binary {
                        op: crate::ir::BinaryOp::SMax,
                        args: [x, neg],
                    },
                    Type::I32,
                )
            }
            ExprKind::Unary(..)
            | ExprKind::ToBool(..)
            | ExprKind::Binary(..)
            | ExprKind::Cmp(..)
            | ExprKind::LogAnd(..)
            | ExprKind::LogOr(..)
            | ExprKind::Comma(..) => return self.expr(e),
        })
    }
}
