//! The abstract syntax tree of the CUDA-C subset, with spans.
//!
//! Produced by [`super::parse`], consumed by [`super::sema`]. The tree is
//! purely syntactic: names are unresolved and types are as written.

use super::diag::Span;

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// The scalar base types that can be spelled.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum BaseType {
    Void,
    Bool,
    /// `char` and `signed char` (`char` is signed on Concord).
    Char,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
}

/// A type as written: base, `__shared__`, and pointer levels.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct TypeSpec {
    pub base: BaseType,
    /// `__shared__` was written among the specifiers.
    pub shared: bool,
    pub span: Span,
}

/// A declared name with its pointer levels, array dimensions and
/// initializer: `*p = q`, `a[4][8]`, `x = 1`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Declarator {
    pub name: Ident,
    pub pointers: u32,
    /// Array dimensions, outermost first. `None` for `[]` (parameters).
    pub dims: Vec<Option<Expr>>,
    pub init: Option<Initializer>,
    pub span: Span,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Initializer {
    Expr(Expr),
    List(Vec<Initializer>, Span),
}

/// `int a = 1, *b, c[4];`
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Decl {
    pub spec: TypeSpec,
    pub declarators: Vec<Declarator>,
    pub span: Span,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Param {
    pub spec: TypeSpec,
    pub declarator: Declarator,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum FuncQualifier {
    /// `__global__`: a kernel.
    Global,
    /// `__device__`: a device function.
    Device,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FunctionDef {
    pub qualifier: FuncQualifier,
    pub ret: TypeSpec,
    /// Pointer levels of the return type (diagnosed: only scalars return).
    pub ret_pointers: u32,
    pub name: Ident,
    pub params: Vec<Param>,
    /// `None` for a prototype (`__device__ int f(int);`).
    pub body: Option<Block>,
    pub span: Span,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Item {
    Function(FunctionDef),
    /// A file-scope declaration (only `__shared__` arrays are accepted).
    Global(Decl),
}

#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct TranslationUnit {
    pub items: Vec<Item>,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub enum StmtKind {
    Decl(Decl),
    Expr(Expr),
    Block(Block),
    If {
        cond: Expr,
        then: Box<Stmt>,
        els: Option<Box<Stmt>>,
    },
    While {
        cond: Expr,
        body: Box<Stmt>,
    },
    DoWhile {
        body: Box<Stmt>,
        cond: Expr,
    },
    For {
        /// A declaration or expression statement (or `None`).
        init: Option<Box<Stmt>>,
        cond: Option<Expr>,
        step: Option<Expr>,
        body: Box<Stmt>,
    },
    Break,
    Continue,
    Return(Option<Expr>),
    Empty,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `+x`
    Plus,
    /// `!x`
    Not,
    /// `~x`
    BitNot,
    /// `*p`
    Deref,
    /// `&x`
    AddrOf,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    LogAnd,
    LogOr,
}

impl BinaryOp {
    pub fn spelling(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitOr => "|",
            BinaryOp::BitXor => "^",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::LogAnd => "&&",
            BinaryOp::LogOr => "||",
        }
    }
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

/// A type name in a cast or `sizeof`: base and pointer levels.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct TypeName {
    pub spec: TypeSpec,
    pub pointers: u32,
    pub span: Span,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ExprKind {
    /// An integer or character literal; `unsigned` for a `u` suffix,
    /// `decimal` for the C rule that picks the literal's type.
    IntLit {
        value: u64,
        unsigned: bool,
        decimal: bool,
    },
    BoolLit(bool),
    Ident(String),
    /// `threadIdx.x` (only built-in values have members).
    Member(Box<Expr>, Ident),
    Call(Ident, Vec<Expr>),
    Index(Box<Expr>, Box<Expr>),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `a = b` (`None`) or `a op= b`.
    Assign(Option<BinaryOp>, Box<Expr>, Box<Expr>),
    /// `++x`, `x--`, ...
    IncDec {
        increment: bool,
        prefix: bool,
        target: Box<Expr>,
    },
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    Cast(TypeName, Box<Expr>),
    SizeofType(TypeName),
    SizeofExpr(Box<Expr>),
    Comma(Box<Expr>, Box<Expr>),
}

/// Frees the tree with a loop: the left spine of a flat chain
/// (`x + x + … + x`, `a, b, …`) is as deep as the chain is long, too deep
/// for the recursion of a derived drop.
/// Frees an `else if` chain with a loop: the parser reads it flat
/// (`parse::MAX_IF_ARMS` arms), but it nests as deep as it is long.
impl Drop for Stmt {
    fn drop(&mut self) {
        let mut next = self.kind.take_else_if();
        while let Some(mut s) = next {
            next = s.kind.take_else_if();
        }
    }
}

impl StmtKind {
    /// The `else` of an `if` when it is itself an `if`, moved out.
    fn take_else_if(&mut self) -> Option<Box<Stmt>> {
        match self {
            StmtKind::If { els, .. }
                if els
                    .as_ref()
                    .is_some_and(|e| matches!(e.kind, StmtKind::If { .. })) =>
            {
                els.take()
            }
            _ => None,
        }
    }
}

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
    /// Moves the sub-expressions into `out`, leaving a leaf.
    fn take_children(&mut self, out: &mut Vec<Expr>) {
        use ExprKind as E;
        if matches!(
            self,
            E::IntLit { .. } | E::BoolLit(_) | E::Ident(_) | E::SizeofType(_)
        ) {
            return;
        }
        match std::mem::replace(self, E::BoolLit(false)) {
            E::Member(a, _)
            | E::Unary(_, a)
            | E::IncDec { target: a, .. }
            | E::Cast(_, a)
            | E::SizeofExpr(a) => out.push(*a),
            E::Index(a, b) | E::Binary(_, a, b) | E::Assign(_, a, b) | E::Comma(a, b) => {
                out.push(*a);
                out.push(*b);
            }
            E::Cond(c, a, b) => {
                out.push(*c);
                out.push(*a);
                out.push(*b);
            }
            E::Call(_, args) => out.extend(args),
            E::IntLit { .. } | E::BoolLit(_) | E::Ident(_) | E::SizeofType(_) => {}
        }
    }
}
