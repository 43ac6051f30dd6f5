//! The typed tree: the checker's output and the lowering's input.
//!
//! Names are resolved to variables, every expression has its C type, the
//! implicit conversions of C are explicit nodes, and the C operators are
//! already mapped to IR operations with the right signedness. Lvalues are
//! [`Place`]s: a local variable's stack slot or an address in one memory
//! space.

use concord_isa::instr::{AtomOp, Cmp, SpecialReg};

use super::diag::Span;
use super::types::{Space, Ty};
use crate::ir::{BinaryOp, UnaryOp, VoteOp};

pub type VarId = usize;

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Var {
    pub name: String,
    pub ty: Ty,
    pub span: Span,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SharedVar {
    pub name: String,
    pub size: u32,
    pub align: u32,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Func {
    pub name: String,
    pub kernel: bool,
    /// The parameters' variables, in order.
    pub params: Vec<VarId>,
    pub ret: Ty,
    /// Every variable of the function (parameters first).
    pub vars: Vec<Var>,
    pub body: Vec<Stmt>,
    pub span: Span,
    /// The closing brace: where falling off the end happens.
    pub end: Span,
}

#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Program {
    pub shared: Vec<SharedVar>,
    /// Function `i` becomes IR function `i`.
    pub funcs: Vec<Func>,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Stmt {
    Expr(Expr),
    If {
        cond: Expr,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
    While {
        cond: Expr,
        body: Vec<Stmt>,
    },
    DoWhile {
        body: Vec<Stmt>,
        cond: Expr,
    },
    For {
        init: Vec<Stmt>,
        cond: Option<Expr>,
        step: Option<Expr>,
        body: Vec<Stmt>,
    },
    Break(Span),
    Continue(Span),
    Return(Option<Expr>, Span),
    Block(Vec<Stmt>),
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Ty,
    pub span: Span,
}

/// An lvalue.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Place {
    pub kind: PlaceKind,
    pub ty: Ty,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub enum PlaceKind {
    /// A local variable (scalar or array) in its stack slot.
    Var(VarId),
    /// The object at `addr` in `space`.
    Mem { space: Space, addr: Box<Expr> },
}

impl Place {
    pub fn space(&self) -> Space {
        match &self.kind {
            PlaceKind::Var(_) => Space::Local,
            PlaceKind::Mem { space, .. } => *space,
        }
    }
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ExprKind {
    /// An `int`/`unsigned`/pointer constant (bits).
    Const(i32),
    BoolConst(bool),
    Special(SpecialReg),
    /// The value stored in a scalar place.
    Read(Box<Place>),
    /// The stack address of a local variable (only inside local-array
    /// indexing; never a program value).
    StackAddr(VarId),
    /// The address of the `i`-th `__shared__` variable.
    SharedAddr(usize),
    /// An IR unary operation (`bnot` on a `bool` is logical not).
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    Cmp(Cmp, Box<Expr>, Box<Expr>),
    /// `bool` from an integer or pointer: `x != 0`.
    ToBool(Box<Expr>),
    /// Short-circuit `&&` / `||` on two `bool`s.
    LogAnd(Box<Expr>, Box<Expr>),
    LogOr(Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `place = value` (value already converted); yields the value.
    Assign(Box<Place>, Box<Expr>),
    /// Read-modify-write of `place` (`+=`, `++`, ...): `new` is computed
    /// from [`ExprKind::OldValue`]; yields the old value when `post`.
    Update {
        place: Box<Place>,
        new: Box<Expr>,
        post: bool,
    },
    /// The value of the place being updated (inside `Update::new`).
    OldValue,
    /// A call of program function `i`.
    Call(usize, Vec<Expr>),
    Atomic {
        space: Space,
        op: AtomOp,
        addr: Box<Expr>,
        value: Box<Expr>,
    },
    /// A warp vote on a `bool`.
    Vote(VoteOp, Box<Expr>),
    Barrier,
    /// `a, b`: evaluates `a`, yields `b`.
    Comma(Box<Expr>, Box<Expr>),
    /// `abs(a)` on an `int`: `smax(a, -a)`, `a` evaluated once.
    Abs(Box<Expr>),
}

impl Expr {
    pub fn new(kind: ExprKind, ty: Ty, span: Span) -> Expr {
        Expr { kind, ty, span }
    }

    /// The same expression with type `ty` (a conversion that changes no
    /// bits).
    pub fn with_ty(mut self, ty: Ty) -> Expr {
        self.ty = ty;
        self
    }

    pub fn with_span(mut self, span: Span) -> Expr {
        self.span = span;
        self
    }

    /// Calls `f` on each direct sub-expression (places included).
    pub fn for_each_child<'a>(&'a self, mut f: impl FnMut(&'a Expr)) {
        fn place_children<'a>(p: &'a Place, f: &mut impl FnMut(&'a Expr)) {
            if let PlaceKind::Mem { addr, .. } = &p.kind {
                f(addr)
            }
        }
        match &self.kind {
            ExprKind::Const(_)
            | ExprKind::BoolConst(_)
            | ExprKind::Special(_)
            | ExprKind::StackAddr(_)
            | ExprKind::SharedAddr(_)
            | ExprKind::OldValue
            | ExprKind::Barrier => {}
            ExprKind::Read(p) => place_children(p, &mut f),
            ExprKind::Unary(_, a)
            | ExprKind::ToBool(a)
            | ExprKind::Vote(_, a)
            | ExprKind::Abs(a) => f(a),
            ExprKind::Binary(_, a, b)
            | ExprKind::Cmp(_, a, b)
            | ExprKind::LogAnd(a, b)
            | ExprKind::LogOr(a, b)
            | ExprKind::Comma(a, b) => {
                f(a);
                f(b)
            }
            ExprKind::Cond(c, a, b) => {
                f(c);
                f(a);
                f(b)
            }
            ExprKind::Assign(p, v) => {
                place_children(p, &mut f);
                f(v)
            }
            ExprKind::Update { place, new, .. } => {
                place_children(place, &mut f);
                f(new)
            }
            ExprKind::Call(_, args) => args.iter().for_each(f),
            ExprKind::Atomic { addr, value, .. } => {
                f(addr);
                f(value)
            }
        }
    }
}

/// The operand evaluated first, through which flat chains nest: the left
/// operand of a binary operator, a comparison, `&&`, `||` or `,`, and the
/// operand of the unary conversions between the links (`x < y < z`
/// converts each comparison to `int`). Passes walk this spine with a loop
/// ([`Expr::left_spine`]); other children nest only as deep as the
/// parser's nesting cap allows.
pub fn left_operand(e: &Expr) -> Option<&Expr> {
    match &e.kind {
        ExprKind::Unary(_, a)
        | ExprKind::ToBool(a)
        | ExprKind::Binary(_, a, _)
        | ExprKind::Cmp(_, a, _)
        | ExprKind::LogAnd(a, _)
        | ExprKind::LogOr(a, _)
        | ExprKind::Comma(a, _) => Some(a),
        _ => None,
    }
}

impl Expr {
    /// The nodes from `self` down its left spine ([`left_operand`]), and
    /// the first node off it (the one evaluated first).
    pub fn left_spine(&self) -> (Vec<&Expr>, &Expr) {
        let mut spine = Vec::new();
        let mut e = self;
        while let Some(a) = left_operand(e) {
            spine.push(e);
            e = a;
        }
        (spine, e)
    }
}

/// Frees an `else if` chain with a loop: it nests as deep as it is long
/// (`parse::MAX_IF_ARMS` arms).
impl Drop for Stmt {
    fn drop(&mut self) {
        let mut next = self.take_else_if();
        while let Some(mut s) = next {
            next = s.take_else_if();
        }
    }
}

impl Stmt {
    /// The `else` of an `if` when it is exactly one `if`, moved out.
    fn take_else_if(&mut self) -> Option<Stmt> {
        match self {
            Stmt::If { els, .. } if matches!(els.as_slice(), [Stmt::If { .. }]) => els.pop(),
            _ => None,
        }
    }
}

/// Frees the tree with a loop: a flat chain (`x + x + … + x`) nests as
/// deep as it is long, too deep for the recursion of a derived drop.
impl Drop for Expr {
    fn drop(&mut self) {
        let mut pending = Vec::new();
        self.kind.take_children(&mut pending);
        while let Some(mut e) = pending.pop() {
            e.kind.take_children(&mut pending);
        }
    }
}

impl ExprKind {
    /// Moves the sub-expressions (places included) into `out`, leaving a
    /// leaf.
    fn take_children(&mut self, out: &mut Vec<Expr>) {
        use ExprKind as E;
        fn place(p: Place, out: &mut Vec<Expr>) {
            if let PlaceKind::Mem { addr, .. } = p.kind {
                out.push(*addr);
            }
        }
        if matches!(
            self,
            E::Const(_)
                | E::BoolConst(_)
                | E::Special(_)
                | E::StackAddr(_)
                | E::SharedAddr(_)
                | E::OldValue
                | E::Barrier
        ) {
            return;
        }
        match std::mem::replace(self, E::Const(0)) {
            E::Read(p) => place(*p, out),
            E::Unary(_, a) | E::ToBool(a) | E::Vote(_, a) | E::Abs(a) => out.push(*a),
            E::Binary(_, a, b)
            | E::Cmp(_, a, b)
            | E::LogAnd(a, b)
            | E::LogOr(a, b)
            | E::Comma(a, b)
            | E::Atomic {
                addr: a, value: b, ..
            } => {
                out.push(*a);
                out.push(*b);
            }
            E::Cond(c, a, b) => {
                out.push(*c);
                out.push(*a);
                out.push(*b);
            }
            E::Assign(p, v)
            | E::Update {
                place: p, new: v, ..
            } => {
                place(*p, out);
                out.push(*v);
            }
            E::Call(_, args) => out.extend(args),
            E::Const(_)
            | E::BoolConst(_)
            | E::Special(_)
            | E::StackAddr(_)
            | E::SharedAddr(_)
            | E::OldValue
            | E::Barrier => {}
        }
    }
}
