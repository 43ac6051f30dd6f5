//! The parser: preprocessed tokens to the [`ast`](super::ast), by recursive
//! descent.
//!
//! Third step of the front end, after the lexer and the preprocessor. It
//! knows the C grammar of the subset and names unsupported features
//! (`float`, `struct`, `switch`, `goto`, function pointers, ...) as soon as
//! it sees them. On a syntax error it records a diagnostic and skips to
//! the end of the statement (or item), so one run reports several errors.

use super::ast::*;
use super::diag::{Diagnostic, Span};
use super::lexer::{Token, TokenKind};

/// Stops runaway recursion on hostile input (`((((...`): statements,
/// expressions in operand position (a parenthesis costs two levels: the
/// expression and its operand), prefix and postfix operators and brace
/// initializers each count one level. Flat chains of binary operators or
/// commas (`x + x + … + x`) do not count: every pass walks them with a
/// loop.
pub const MAX_NESTING: u32 = 200;
/// Arms of one `if … else if … else` chain. A chain is flat in the source
/// and does not count as nesting, but the analyses of its nested branches
/// cost time quadratic in its length: 4096 arms compile in a few seconds,
/// far more than any real kernel has, and more would not fit the largest
/// instruction memory by much anyway.
pub const MAX_IF_ARMS: usize = 4096;
/// Pointer levels and array dimensions of one declarator or type name.
pub const MAX_DERIVATIONS: u32 = 64;
/// More errors than this are noise; parsing stops.
const MAX_ERRORS: usize = 30;

type PResult<T> = Result<T, ()>;

/// Parses a whole translation unit. Errors are appended to `diags`; the
/// returned tree holds everything that parsed.
pub fn parse(tokens: Vec<Token>, diags: &mut Vec<Diagnostic>) -> TranslationUnit {
    let mut tokens = tokens;
    if !matches!(tokens.last().map(|t| &t.kind), Some(TokenKind::Eof)) {
        let end = tokens.last().map_or(0, |t| t.span.end as usize);
        tokens.push(Token {
            kind: TokenKind::Eof,
            span: Span::new(end, end),
            line_start: true,
            space_before: true,
            line: u32::MAX,
        });
    }
    let mut p = Parser {
        toks: tokens,
        pos: 0,
        diags,
        errors: 0,
        depth: 0,
        fatal: false,
    };
    let mut unit = TranslationUnit::default();
    while !p.at_eof() && p.errors < MAX_ERRORS {
        let before = p.pos;
        match p.item() {
            Ok(Some(item)) => unit.items.push(item),
            Ok(None) => {}
            Err(()) => p.recover_item(),
        }
        if p.pos == before {
            p.bump();
        }
    }
    unit
}

/// Words that start a declaration (supported or not: unsupported ones are
/// diagnosed by [`Parser::type_spec`]).
const TYPE_WORDS: &[&str] = &[
    "void",
    "bool",
    "_Bool",
    "char",
    "short",
    "int",
    "unsigned",
    "signed",
    "long",
    "float",
    "double",
    "half",
    "__half",
    "const",
    "volatile",
    "__shared__",
    "__constant__",
    "__managed__",
    "__device__",
    "__global__",
    "__host__",
    "static",
    "extern",
    "inline",
    "__inline__",
    "__forceinline__",
    "__noinline__",
    "register",
    "auto",
    "struct",
    "union",
    "enum",
    "class",
    "typedef",
    "template",
    "int8_t",
    "uint8_t",
    "int16_t",
    "uint16_t",
    "int32_t",
    "uint32_t",
    "size_t",
    "int64_t",
    "uint64_t",
    "float2",
    "float4",
    "int2",
    "int4",
    "dim3",
];

/// Keywords that cannot name a variable.
const RESERVED: &[&str] = &[
    "if", "else", "for", "while", "do", "break", "continue", "return", "goto", "switch", "case",
    "default", "sizeof", "true", "false",
];

struct Parser<'d> {
    toks: Vec<Token>,
    pos: usize,
    diags: &'d mut Vec<Diagnostic>,
    errors: usize,
    depth: u32,
    /// A limit was exceeded: parsing stops, and nothing more is reported.
    fatal: bool,
}

/// What the specifiers of a declaration said, besides the type.
struct Specifiers {
    spec: TypeSpec,
    qualifier: Option<FuncQualifier>,
    host: bool,
}

impl Parser<'_> {
    // ---- token helpers -------------------------------------------------

    fn peek(&self) -> &Token {
        &self.toks[self.pos.min(self.toks.len() - 1)]
    }

    fn peek_at(&self, k: usize) -> &Token {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)]
    }

    fn at_eof(&self) -> bool {
        matches!(self.peek().kind, TokenKind::Eof)
    }

    fn bump(&mut self) -> Token {
        let t = self.peek().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn prev_span(&self) -> Span {
        if self.pos == 0 {
            Span::default()
        } else {
            self.toks[self.pos - 1].span
        }
    }

    fn is(&self, p: &str) -> bool {
        self.peek().is_punct(p)
    }

    fn is_word(&self, w: &str) -> bool {
        self.peek().ident() == Some(w)
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.is(p) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn error(&mut self, span: Span, msg: impl Into<String>) {
        if self.fatal {
            return;
        }
        self.errors += 1;
        self.diags.push(Diagnostic::error(span, msg));
    }

    fn expected(&mut self, what: &str) -> PResult<()> {
        let t = self.peek().clone();
        self.error(t.span, format!("expected {what}, found {}", t.describe()));
        Err(())
    }

    fn expect(&mut self, p: &str) -> PResult<Span> {
        if self.is(p) {
            Ok(self.bump().span)
        } else {
            // A missing `;` is best reported right after the previous token.
            let t = self.peek().clone();
            let span = if p == ";" && self.pos > 0 {
                let prev = self.prev_span();
                Span::new(prev.end as usize, prev.end as usize + 1)
            } else {
                t.span
            };
            self.error(span, format!("expected `{p}`, found {}", t.describe()));
            Err(())
        }
    }

    fn ident(&mut self, what: &str) -> PResult<Ident> {
        let t = self.peek().clone();
        match t.ident() {
            Some(name) if !RESERVED.contains(&name) && !TYPE_WORDS.contains(&name) => {
                self.bump();
                Ok(Ident {
                    name: name.to_string(),
                    span: t.span,
                })
            }
            _ => {
                self.error(t.span, format!("expected {what}, found {}", t.describe()));
                Err(())
            }
        }
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            let span = self.peek().span;
            self.error(
                span,
                format!(
                    "nesting too deep: more than {MAX_NESTING} levels of nested statements, \
                     parentheses and operators"
                ),
            );
            // Recovering inside the nest would only report its other half
            // (`else` without `if`, unmatched braces): stop here.
            self.fatal = true;
            self.errors = MAX_ERRORS;
            return Err(());
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Skips to just after the next `;` or before the next `}` at the
    /// current brace depth.
    fn recover_stmt(&mut self) {
        let mut depth = 0i32;
        while !self.at_eof() {
            if self.is("{") {
                depth += 1;
            } else if self.is("}") {
                if depth == 0 {
                    return;
                }
                depth -= 1;
                if depth == 0 {
                    self.bump();
                    return;
                }
            } else if self.is(";") && depth == 0 {
                self.bump();
                return;
            }
            self.bump();
        }
    }

    /// Skips to the end of a top-level item: after a `;` at brace depth
    /// 0 or after the `}` that closes a top-level brace.
    fn recover_item(&mut self) {
        let mut depth = 0i32;
        while !self.at_eof() {
            let t = self.bump();
            if t.is_punct("{") {
                depth += 1;
            } else if t.is_punct("}") {
                depth -= 1;
                if depth <= 0 {
                    return;
                }
            } else if t.is_punct(";") && depth == 0 {
                return;
            }
        }
    }

    // ---- types -----------------------------------------------------------

    fn at_type_start(&self) -> bool {
        self.peek().ident().is_some_and(|w| TYPE_WORDS.contains(&w))
    }

    /// Parses declaration specifiers: qualifiers and the base type.
    fn type_spec(&mut self, top_level: bool) -> PResult<Specifiers> {
        let start = self.peek().span;
        let (mut signed, mut unsigned, mut char_, mut short, mut int, mut void, mut bool_) =
            (0, 0, 0, 0, 0, 0, 0);
        let mut shared = false;
        let mut qualifier = None;
        let mut host = false;
        let mut any = false;
        let mut typedef_base: Option<BaseType> = None;
        // The span of the type words alone (not the qualifiers), for
        // messages about the type.
        let mut type_span: Option<Span> = None;
        while let Some(word) = self.peek().ident().map(str::to_string) {
            let span = self.peek().span;
            if matches!(
                word.as_str(),
                "signed"
                    | "unsigned"
                    | "char"
                    | "short"
                    | "int"
                    | "void"
                    | "bool"
                    | "_Bool"
                    | "int8_t"
                    | "uint8_t"
                    | "int16_t"
                    | "uint16_t"
                    | "int32_t"
                    | "uint32_t"
                    | "size_t"
            ) {
                type_span = Some(type_span.map_or(span, |t| t.to(span)));
            }
            match word.as_str() {
                "const" | "inline" | "__inline__" | "__forceinline__" | "__noinline__"
                | "register" | "static" => {}
                "volatile" => {
                    self.diags.push(Diagnostic::warning(
                        span,
                        "`volatile` is ignored by Concord",
                    ));
                }
                "extern" => {
                    if matches!(self.peek_at(1).kind, TokenKind::Str(_)) {
                        self.bump();
                    }
                }
                "__shared__" => shared = true,
                "__global__" | "__device__" | "__host__" if top_level => match word.as_str() {
                    "__global__" => qualifier = Some(FuncQualifier::Global),
                    "__device__" => {
                        if qualifier.is_none() {
                            qualifier = Some(FuncQualifier::Device)
                        }
                    }
                    _ => host = true,
                },
                "__global__" | "__device__" | "__host__" => {
                    self.error(
                        span,
                        format!("`{word}` is only allowed on file-scope functions"),
                    );
                    return Err(());
                }
                "__constant__" | "__managed__" => {
                    self.error(
                        span,
                        format!(
                            "`{word}` variables are not supported by Concord \
                             (only `__shared__` arrays and locals)"
                        ),
                    );
                    return Err(());
                }
                "signed" => signed += 1,
                "unsigned" => unsigned += 1,
                "char" => char_ += 1,
                "short" => short += 1,
                "int" => int += 1,
                "void" => void += 1,
                "bool" | "_Bool" => bool_ += 1,
                "int8_t" | "uint8_t" | "int16_t" | "uint16_t" | "int32_t" | "uint32_t"
                | "size_t" => {
                    if typedef_base.is_some() {
                        self.error(span, "invalid combination of type specifiers");
                        return Err(());
                    }
                    typedef_base = Some(match word.as_str() {
                        "int8_t" => BaseType::Char,
                        "uint8_t" => BaseType::UChar,
                        "int16_t" => BaseType::Short,
                        "uint16_t" => BaseType::UShort,
                        "int32_t" => BaseType::Int,
                        _ => BaseType::UInt,
                    });
                }
                "float" | "double" | "half" | "__half" | "float2" | "float4" => {
                    self.error(
                        span,
                        format!("`{word}` is not supported by Concord (integer kernels only)"),
                    );
                    return Err(());
                }
                "long" | "int64_t" | "uint64_t" => {
                    self.error(
                        span,
                        format!("`{word}` is not supported by Concord (32-bit integers only)"),
                    );
                    return Err(());
                }
                "struct" | "union" | "class" | "enum" | "typedef" | "template" | "auto"
                | "int2" | "int4" | "dim3" => {
                    let what = match word.as_str() {
                        "struct" | "union" | "class" => "structs".to_string(),
                        "enum" => "enums".to_string(),
                        "typedef" => "typedefs".to_string(),
                        "template" => "templates".to_string(),
                        other => format!("`{other}`"),
                    };
                    self.error(span, format!("{what} are not supported by Concord"));
                    return Err(());
                }
                _ => break,
            }
            any = true;
            self.bump();
        }
        let span = start.to(self.prev_span());
        if !any {
            self.expected("a type")?;
        }
        let count = signed + unsigned + char_ + short + int + void + bool_;
        let base = if let Some(b) = typedef_base {
            if count > 0 {
                self.error(span, "invalid combination of type specifiers");
                return Err(());
            }
            b
        } else if count == 0 {
            if qualifier.is_some() || shared {
                let t = self.peek().clone();
                self.error(t.span, format!("expected a type, found {}", t.describe()));
            } else {
                self.error(span, "expected a type");
            }
            return Err(());
        } else {
            let bad = signed + unsigned > 1
                || char_ + short + void + bool_ > 1
                || int > 1
                || (void + bool_ > 0 && (signed + unsigned + int) > 0)
                || (char_ > 0 && int > 0);
            if bad {
                self.error(span, "invalid combination of type specifiers");
                return Err(());
            }
            if void > 0 {
                BaseType::Void
            } else if bool_ > 0 {
                BaseType::Bool
            } else if char_ > 0 {
                if unsigned > 0 {
                    BaseType::UChar
                } else {
                    BaseType::Char
                }
            } else if short > 0 {
                if unsigned > 0 {
                    BaseType::UShort
                } else {
                    BaseType::Short
                }
            } else if unsigned > 0 {
                BaseType::UInt
            } else {
                BaseType::Int
            }
        };
        let span = type_span.unwrap_or(span);
        Ok(Specifiers {
            spec: TypeSpec { base, shared, span },
            qualifier,
            host,
        })
    }

    /// `*`s with their qualifiers (`const`, `__restrict__`).
    /// Counts one more pointer level or array dimension (`derivations`).
    fn derive(&mut self, derivations: &mut u32) -> PResult<()> {
        *derivations += 1;
        if *derivations > MAX_DERIVATIONS {
            let span = self.prev_span();
            self.error(
                span,
                format!("type too deeply derived: more than {MAX_DERIVATIONS} pointer levels and array dimensions"),
            );
            return Err(());
        }
        Ok(())
    }

    fn pointers(&mut self) -> PResult<u32> {
        let mut n = 0;
        while self.eat("*") {
            self.derive(&mut n)?;
            while self.peek().ident().is_some_and(|w| {
                matches!(
                    w,
                    "const" | "__restrict__" | "restrict" | "__restrict" | "volatile"
                )
            }) {
                self.bump();
            }
        }
        Ok(n)
    }

    /// A declarator: pointers, name, array dimensions (no initializer).
    fn declarator(&mut self, name_required: bool) -> PResult<Declarator> {
        let start = self.peek().span;
        let pointers = self.pointers()?;
        if self.is("(") {
            let span = self.peek().span;
            self.error(span, "function pointers are not supported by Concord");
            return Err(());
        }
        if self.is("&") {
            let span = self.peek().span;
            self.error(span, "references are not supported by Concord");
            return Err(());
        }
        let name = if !name_required && (self.is(",") || self.is(")") || self.is("[")) {
            Ident {
                name: String::new(),
                span: self.peek().span,
            }
        } else {
            self.ident("a name")?
        };
        let mut dims = Vec::new();
        let mut derivations = pointers;
        while self.eat("[") {
            self.derive(&mut derivations)?;
            if self.eat("]") {
                dims.push(None);
            } else {
                let e = self.assignment()?;
                self.expect("]")?;
                dims.push(Some(e));
            }
        }
        Ok(Declarator {
            name,
            pointers,
            dims,
            init: None,
            span: start.to(self.prev_span()),
        })
    }

    fn type_name(&mut self) -> PResult<TypeName> {
        let s = self.type_spec(false)?;
        let pointers = self.pointers()?;
        Ok(TypeName {
            spec: s.spec,
            pointers,
            span: s.spec.span.to(self.prev_span()),
        })
    }

    // ---- items -------------------------------------------------------------

    fn item(&mut self) -> PResult<Option<Item>> {
        if self.eat(";") {
            return Ok(None);
        }
        if !self.at_type_start() {
            let t = self.peek().clone();
            let msg = match &t.kind {
                TokenKind::Ident(w) if w == "namespace" || w == "using" => {
                    format!("`{w}` is not supported by Concord")
                }
                _ => format!(
                    "expected a function or `__shared__` declaration, found {}",
                    t.describe()
                ),
            };
            self.error(t.span, msg);
            return Err(());
        }
        let start = self.peek().span;
        let specs = self.type_spec(true)?;
        let first = self.declarator(true)?;
        if self.is("(") {
            return self.function(start, specs, first).map(Some);
        }
        if !specs.spec.shared || specs.qualifier == Some(FuncQualifier::Global) {
            self.error(
                first.name.span,
                "global variables other than `__shared__` arrays are not supported by Concord",
            );
            return Err(());
        }
        let decl = self.rest_of_decl(start, specs.spec, first)?;
        Ok(Some(Item::Global(decl)))
    }

    fn function(&mut self, start: Span, specs: Specifiers, decl: Declarator) -> PResult<Item> {
        let qualifier = match specs.qualifier {
            Some(q) => q,
            None => {
                let why = if specs.host {
                    "host functions are not supported by Concord (`__host__ __device__` is accepted)"
                } else {
                    "host functions are not supported by Concord: mark the function `__global__` or `__device__`"
                };
                self.error(decl.name.span, why);
                return Err(());
            }
        };
        if !decl.dims.is_empty() {
            self.error(decl.span, "a function cannot return an array");
            return Err(());
        }
        self.expect("(")?;
        let mut params = Vec::new();
        if self.is_word("void") && self.peek_at(1).is_punct(")") {
            self.bump();
        }
        if !self.is(")") {
            loop {
                if self.is("...") {
                    let span = self.peek().span;
                    self.error(span, "variadic functions are not supported by Concord");
                    return Err(());
                }
                let s = self.type_spec(false)?;
                let d = self.declarator(false)?;
                if self.is("=") {
                    let span = self.peek().span;
                    self.error(span, "default arguments are not supported by Concord");
                    return Err(());
                }
                params.push(Param {
                    spec: s.spec,
                    declarator: d,
                });
                if !self.eat(",") {
                    break;
                }
            }
        }
        self.expect(")")?;
        let body = if self.eat(";") {
            None
        } else if self.is("{") {
            Some(self.block()?)
        } else {
            self.expected("`{` or `;` after the parameter list")?;
            None
        };
        Ok(Item::Function(FunctionDef {
            qualifier,
            ret: specs.spec,
            ret_pointers: decl.pointers,
            name: decl.name,
            params,
            body,
            span: start.to(self.prev_span()),
        }))
    }

    /// Completes a declaration whose first declarator (without its
    /// initializer) is parsed: `= init, more, ... ;`.
    fn rest_of_decl(&mut self, start: Span, spec: TypeSpec, first: Declarator) -> PResult<Decl> {
        let mut declarators = Vec::new();
        let mut d = first;
        loop {
            if self.is("(") {
                let span = self.peek().span;
                self.error(
                    span,
                    "local function declarations are not supported by Concord",
                );
                return Err(());
            }
            if self.eat("=") {
                d.init = Some(self.initializer()?);
                d.span = d.span.to(self.prev_span());
            } else if self.is("{") {
                let span = self.peek().span;
                self.error(
                    span,
                    "brace initialization without `=` is not supported by Concord",
                );
                return Err(());
            }
            declarators.push(d);
            if !self.eat(",") {
                break;
            }
            d = self.declarator(true)?;
        }
        self.expect(";")?;
        Ok(Decl {
            spec,
            declarators,
            span: start.to(self.prev_span()),
        })
    }

    fn initializer(&mut self) -> PResult<Initializer> {
        if self.is("{") {
            self.enter()?;
            let start = self.bump().span;
            let mut items = Vec::new();
            while !self.is("}") {
                items.push(self.initializer()?);
                if !self.eat(",") {
                    break;
                }
            }
            self.expect("}")?;
            self.leave();
            Ok(Initializer::List(items, start.to(self.prev_span())))
        } else {
            Ok(Initializer::Expr(self.assignment()?))
        }
    }

    // ---- statements -------------------------------------------------------

    fn block(&mut self) -> PResult<Block> {
        let start = self.expect("{")?;
        let mut stmts = Vec::new();
        while !self.is("}") {
            if self.at_eof() {
                let span = self.peek().span;
                if !self.fatal {
                    self.error(span, "expected `}`, found end of file");
                    if let Some(d) = self.diags.last_mut() {
                        d.labels.push((start, "this `{` is not closed".into()));
                    }
                }
                return Err(());
            }
            if self.errors >= MAX_ERRORS {
                return Err(());
            }
            let before = self.pos;
            match self.stmt() {
                Ok(s) => stmts.push(s),
                Err(()) => {
                    self.recover_stmt();
                    if self.pos == before {
                        self.bump();
                    }
                }
            }
        }
        self.bump();
        Ok(Block {
            stmts,
            span: start.to(self.prev_span()),
        })
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        self.enter()?;
        let r = self.stmt_inner();
        self.leave();
        r
    }

    /// `if (c0) s0 else if (c1) s1 ... else sN`, read as a loop: an
    /// `else if` chain is flat in the source (a `switch` written out), so
    /// its arms do not count as nesting and a long chain cannot exhaust the
    /// stack. The result is the nested tree the grammar gives, each `if`
    /// spanning from its keyword to the end of the chain.
    fn if_chain(&mut self, start: Span) -> PResult<Stmt> {
        let mut arms = Vec::new();
        let mut arm_start = start;
        let els = loop {
            self.bump();
            self.expect("(")?;
            let cond = self.expr()?;
            self.expect(")")?;
            let then = Box::new(self.stmt()?);
            arms.push((arm_start, cond, then));
            if !self.is_word("else") {
                break None;
            }
            self.bump();
            if !self.is_word("if") {
                break Some(Box::new(self.stmt()?));
            }
            arm_start = self.peek().span;
            if arms.len() == MAX_IF_ARMS {
                self.error(
                    arm_start,
                    format!("`else if` chain too long: more than {MAX_IF_ARMS} arms"),
                );
                // The rest of the chain would only add follow-on errors.
                self.fatal = true;
                self.errors = MAX_ERRORS;
                return Err(());
            }
        };
        let end = self.prev_span();
        let mut chain = els;
        for (arm_start, cond, then) in arms.into_iter().rev() {
            chain = Some(Box::new(Stmt {
                kind: StmtKind::If {
                    cond,
                    then,
                    els: chain,
                },
                span: arm_start.to(end),
            }));
        }
        // The first `if` is always an arm.
        chain.map(|s| *s).ok_or(())
    }

    fn stmt_inner(&mut self) -> PResult<Stmt> {
        let start = self.peek().span;
        let mk = |p: &Self, kind| Stmt {
            kind,
            span: start.to(p.prev_span()),
        };
        if self.is("{") {
            let b = self.block()?;
            return Ok(mk(self, StmtKind::Block(b)));
        }
        if self.eat(";") {
            return Ok(mk(self, StmtKind::Empty));
        }
        if self.at_type_start() {
            let s = self.type_spec(false)?;
            let d = self.declarator(true)?;
            let decl = self.rest_of_decl(start, s.spec, d)?;
            return Ok(mk(self, StmtKind::Decl(decl)));
        }
        let word = self.peek().ident().map(str::to_string);
        match word.as_deref() {
            Some("if") => self.if_chain(start),
            Some("while") => {
                self.bump();
                self.expect("(")?;
                let cond = self.expr()?;
                self.expect(")")?;
                let body = Box::new(self.stmt()?);
                Ok(mk(self, StmtKind::While { cond, body }))
            }
            Some("do") => {
                self.bump();
                let body = Box::new(self.stmt()?);
                if !self.is_word("while") {
                    self.expected("`while` after the body of `do`")?;
                }
                self.bump();
                self.expect("(")?;
                let cond = self.expr()?;
                self.expect(")")?;
                self.expect(";")?;
                Ok(mk(self, StmtKind::DoWhile { body, cond }))
            }
            Some("for") => {
                self.bump();
                self.expect("(")?;
                let init = if self.eat(";") {
                    None
                } else if self.at_type_start() {
                    let s0 = self.peek().span;
                    let s = self.type_spec(false)?;
                    let d = self.declarator(true)?;
                    let decl = self.rest_of_decl(s0, s.spec, d)?;
                    Some(Box::new(Stmt {
                        kind: StmtKind::Decl(decl),
                        span: s0.to(self.prev_span()),
                    }))
                } else {
                    let e = self.expr()?;
                    let span = e.span;
                    self.expect(";")?;
                    Some(Box::new(Stmt {
                        kind: StmtKind::Expr(e),
                        span,
                    }))
                };
                let cond = if self.is(";") {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.expect(";")?;
                let step = if self.is(")") {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.expect(")")?;
                let body = Box::new(self.stmt()?);
                Ok(mk(
                    self,
                    StmtKind::For {
                        init,
                        cond,
                        step,
                        body,
                    },
                ))
            }
            Some("break") => {
                self.bump();
                self.expect(";")?;
                Ok(mk(self, StmtKind::Break))
            }
            Some("continue") => {
                self.bump();
                self.expect(";")?;
                Ok(mk(self, StmtKind::Continue))
            }
            Some("return") => {
                self.bump();
                let value = if self.is(";") {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.expect(";")?;
                Ok(mk(self, StmtKind::Return(value)))
            }
            Some("else") => {
                self.error(start, "`else` without a matching `if`");
                Err(())
            }
            Some(
                w @ ("goto" | "switch" | "case" | "default" | "asm" | "__asm__" | "try" | "throw"
                | "new" | "delete"),
            ) => {
                let w = w.to_string();
                self.error(start, format!("`{w}` is not supported by Concord"));
                Err(())
            }
            _ => {
                if self.peek().ident().is_some()
                    && self.peek_at(1).is_punct(":")
                    && !self.peek_at(2).is_punct(":")
                {
                    self.error(start, "labels (`goto`) are not supported by Concord");
                    return Err(());
                }
                let e = self.expr()?;
                self.expect(";")?;
                Ok(mk(self, StmtKind::Expr(e)))
            }
        }
    }

    // ---- expressions ------------------------------------------------------

    fn expr(&mut self) -> PResult<Expr> {
        let mut e = self.assignment()?;
        while self.eat(",") {
            let r = self.assignment()?;
            let span = e.span.to(r.span);
            e = Expr {
                kind: ExprKind::Comma(Box::new(e), Box::new(r)),
                span,
            };
        }
        Ok(e)
    }

    fn assignment(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.assignment_inner();
        self.leave();
        r
    }

    fn assignment_inner(&mut self) -> PResult<Expr> {
        let lhs = self.conditional()?;
        let op = match &self.peek().kind {
            TokenKind::Punct(p) => match *p {
                "=" => Some(None),
                "+=" => Some(Some(BinaryOp::Add)),
                "-=" => Some(Some(BinaryOp::Sub)),
                "*=" => Some(Some(BinaryOp::Mul)),
                "/=" => Some(Some(BinaryOp::Div)),
                "%=" => Some(Some(BinaryOp::Rem)),
                "&=" => Some(Some(BinaryOp::BitAnd)),
                "|=" => Some(Some(BinaryOp::BitOr)),
                "^=" => Some(Some(BinaryOp::BitXor)),
                "<<=" => Some(Some(BinaryOp::Shl)),
                ">>=" => Some(Some(BinaryOp::Shr)),
                _ => None,
            },
            _ => None,
        };
        let Some(op) = op else {
            return Ok(lhs);
        };
        self.bump();
        let rhs = self.assignment()?;
        let span = lhs.span.to(rhs.span);
        Ok(Expr {
            kind: ExprKind::Assign(op, Box::new(lhs), Box::new(rhs)),
            span,
        })
    }

    fn conditional(&mut self) -> PResult<Expr> {
        let cond = self.binary(0)?;
        if !self.eat("?") {
            return Ok(cond);
        }
        let a = self.expr()?;
        self.expect(":")?;
        let b = self.assignment()?;
        let span = cond.span.to(b.span);
        Ok(Expr {
            kind: ExprKind::Cond(Box::new(cond), Box::new(a), Box::new(b)),
            span,
        })
    }

    /// Binary operators by precedence level (0 = `||`).
    fn binary_op(&self, level: u32) -> Option<BinaryOp> {
        let TokenKind::Punct(p) = self.peek().kind else {
            return None;
        };
        let op = match p {
            "||" => BinaryOp::LogOr,
            "&&" => BinaryOp::LogAnd,
            "|" => BinaryOp::BitOr,
            "^" => BinaryOp::BitXor,
            "&" => BinaryOp::BitAnd,
            "==" => BinaryOp::Eq,
            "!=" => BinaryOp::Ne,
            "<" => BinaryOp::Lt,
            "<=" => BinaryOp::Le,
            ">" => BinaryOp::Gt,
            ">=" => BinaryOp::Ge,
            "<<" => BinaryOp::Shl,
            ">>" => BinaryOp::Shr,
            "+" => BinaryOp::Add,
            "-" => BinaryOp::Sub,
            "*" => BinaryOp::Mul,
            "/" => BinaryOp::Div,
            "%" => BinaryOp::Rem,
            _ => return None,
        };
        (precedence(op) == level).then_some(op)
    }

    fn binary(&mut self, level: u32) -> PResult<Expr> {
        if level > 9 {
            return self.unary();
        }
        let mut lhs = self.binary(level + 1)?;
        while let Some(op) = self.binary_op(level) {
            self.bump();
            let rhs = self.binary(level + 1)?;
            let span = lhs.span.to(rhs.span);
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                span,
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.unary_inner();
        self.leave();
        r
    }

    fn unary_inner(&mut self) -> PResult<Expr> {
        let start = self.peek().span;
        let op = match &self.peek().kind {
            TokenKind::Punct("-") => Some(UnaryOp::Neg),
            TokenKind::Punct("+") => Some(UnaryOp::Plus),
            TokenKind::Punct("!") => Some(UnaryOp::Not),
            TokenKind::Punct("~") => Some(UnaryOp::BitNot),
            TokenKind::Punct("*") => Some(UnaryOp::Deref),
            TokenKind::Punct("&") => Some(UnaryOp::AddrOf),
            _ => None,
        };
        if let Some(op) = op {
            self.bump();
            let e = self.unary()?;
            let span = start.to(e.span);
            return Ok(Expr {
                kind: ExprKind::Unary(op, Box::new(e)),
                span,
            });
        }
        if self.is("++") || self.is("--") {
            let increment = self.bump().is_punct("++");
            let e = self.unary()?;
            let span = start.to(e.span);
            return Ok(Expr {
                kind: ExprKind::IncDec {
                    increment,
                    prefix: true,
                    target: Box::new(e),
                },
                span,
            });
        }
        if self.is_word("sizeof") {
            self.bump();
            if self.is("(")
                && self
                    .peek_at(1)
                    .ident()
                    .is_some_and(|w| TYPE_WORDS.contains(&w))
            {
                self.bump();
                let t = self.type_name()?;
                self.expect(")")?;
                return Ok(Expr {
                    kind: ExprKind::SizeofType(t),
                    span: start.to(self.prev_span()),
                });
            }
            let e = self.unary()?;
            let span = start.to(e.span);
            return Ok(Expr {
                kind: ExprKind::SizeofExpr(Box::new(e)),
                span,
            });
        }
        if self.is("(")
            && self
                .peek_at(1)
                .ident()
                .is_some_and(|w| TYPE_WORDS.contains(&w))
        {
            self.bump();
            let t = self.type_name()?;
            self.expect(")")?;
            let e = self.unary()?;
            let span = start.to(e.span);
            return Ok(Expr {
                kind: ExprKind::Cast(t, Box::new(e)),
                span,
            });
        }
        self.postfix()
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let e = self.primary()?;
        // Each postfix operator nests the tree one level deeper.
        let depth = self.depth;
        let r = self.postfix_ops(e);
        self.depth = depth;
        r
    }

    fn postfix_ops(&mut self, mut e: Expr) -> PResult<Expr> {
        loop {
            if self.is("[") || self.is("(") || self.is(".") || self.is("++") || self.is("--") {
                self.enter()?;
            }
            if self.eat("[") {
                let i = self.expr()?;
                self.expect("]")?;
                let span = e.span.to(self.prev_span());
                e = Expr {
                    kind: ExprKind::Index(Box::new(e), Box::new(i)),
                    span,
                };
            } else if self.is("(") {
                let name = match &e.kind {
                    ExprKind::Ident(n) => Ident {
                        name: n.clone(),
                        span: e.span,
                    },
                    _ => {
                        let span = self.peek().span;
                        self.error(
                            span,
                            "calls through expressions (function pointers) are not supported by Concord",
                        );
                        return Err(());
                    }
                };
                self.bump();
                let mut args = Vec::new();
                if !self.is(")") {
                    loop {
                        args.push(self.assignment()?);
                        if !self.eat(",") {
                            break;
                        }
                    }
                }
                self.expect(")")?;
                e = Expr {
                    kind: ExprKind::Call(name, args),
                    span: e.span.to(self.prev_span()),
                };
            } else if self.eat(".") {
                let field = self.ident("a member name")?;
                let span = e.span.to(field.span);
                e = Expr {
                    kind: ExprKind::Member(Box::new(e), field),
                    span,
                };
            } else if self.is("->") {
                let span = self.peek().span;
                self.error(span, "structs (`->`) are not supported by Concord");
                return Err(());
            } else if self.is("++") || self.is("--") {
                let increment = self.bump().is_punct("++");
                let span = e.span.to(self.prev_span());
                e = Expr {
                    kind: ExprKind::IncDec {
                        increment,
                        prefix: false,
                        target: Box::new(e),
                    },
                    span,
                };
            } else {
                return Ok(e);
            }
        }
    }

    fn primary(&mut self) -> PResult<Expr> {
        let t = self.peek().clone();
        let kind = match &t.kind {
            TokenKind::Int {
                value,
                unsigned,
                decimal,
            } => ExprKind::IntLit {
                value: *value,
                unsigned: *unsigned,
                decimal: *decimal,
            },
            TokenKind::Float => {
                self.error(
                    t.span,
                    "`float` is not supported by Concord (integer kernels only): floating-point literal",
                );
                return Err(());
            }
            TokenKind::Str(_) => {
                self.error(t.span, "string literals are not supported by Concord");
                return Err(());
            }
            TokenKind::Punct("(") => {
                self.bump();
                let mut e = self.expr()?;
                self.expect(")")?;
                e.span = t.span.to(self.prev_span());
                return Ok(e);
            }
            TokenKind::Ident(w) if w == "true" || w == "false" => ExprKind::BoolLit(w == "true"),
            TokenKind::Ident(w) if w == "nullptr" || w == "NULL" => ExprKind::IntLit {
                value: 0,
                unsigned: false,
                decimal: true,
            },
            TokenKind::Ident(w)
                if !RESERVED.contains(&w.as_str()) && !TYPE_WORDS.contains(&w.as_str()) =>
            {
                ExprKind::Ident(w.clone())
            }
            TokenKind::Ident(w)
                if matches!(w.as_str(), "float" | "double" | "long" | "struct" | "union") =>
            {
                // `float(x)`-style casts and the like: let the type parser
                // name the feature.
                self.type_spec(false)?;
                return Err(());
            }
            _ => {
                self.error(
                    t.span,
                    format!("expected an expression, found {}", t.describe()),
                );
                return Err(());
            }
        };
        self.bump();
        Ok(Expr { kind, span: t.span })
    }
}

fn precedence(op: BinaryOp) -> u32 {
    match op {
        BinaryOp::LogOr => 0,
        BinaryOp::LogAnd => 1,
        BinaryOp::BitOr => 2,
        BinaryOp::BitXor => 3,
        BinaryOp::BitAnd => 4,
        BinaryOp::Eq | BinaryOp::Ne => 5,
        BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => 6,
        BinaryOp::Shl | BinaryOp::Shr => 7,
        BinaryOp::Add | BinaryOp::Sub => 8,
        BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => 9,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{lexer::lex, preprocess::preprocess};
    use super::*;

    fn parse_src(src: &str) -> (TranslationUnit, Vec<Diagnostic>) {
        let mut d = Vec::new();
        let toks = lex(src, &mut d);
        let toks = preprocess(toks, &mut d);
        let unit = parse(toks, &mut d);
        (unit, d)
    }

    fn parse_ok(src: &str) -> TranslationUnit {
        let (u, d) = parse_src(src);
        assert!(d.iter().all(|d| !d.is_error()), "{d:?}");
        u
    }

    fn body(u: &TranslationUnit) -> &[Stmt] {
        match &u.items[0] {
            Item::Function(f) => &f.body.as_ref().unwrap().stmts,
            _ => panic!("not a function"),
        }
    }

    fn expr_of(src: &str) -> Expr {
        let u = parse_ok(&format!("__device__ void f() {{ {src}; }}"));
        match &body(&u)[0].kind {
            StmtKind::Expr(e) => e.clone(),
            k => panic!("{k:?}"),
        }
    }

    #[test]
    fn kernel_signature() {
        let u = parse_ok("__global__ void k(const int *__restrict__ a, unsigned n) {}");
        let Item::Function(f) = &u.items[0] else {
            panic!()
        };
        assert_eq!(f.qualifier, FuncQualifier::Global);
        assert_eq!(f.name.name, "k");
        assert_eq!(f.params.len(), 2);
        assert_eq!(f.params[0].declarator.pointers, 1);
        assert_eq!(f.params[1].spec.base, BaseType::UInt);
    }

    #[test]
    fn precedence_of_binary_operators() {
        // a + b * c << 1 == d  parses as  ((a + (b*c)) << 1) == d
        let e = expr_of("a + b * c << 1 == d");
        let ExprKind::Binary(BinaryOp::Eq, l, _) = &e.kind else {
            panic!()
        };
        let ExprKind::Binary(BinaryOp::Shl, l, _) = &l.kind else {
            panic!()
        };
        let ExprKind::Binary(BinaryOp::Add, _, r) = &l.kind else {
            panic!()
        };
        assert!(matches!(r.kind, ExprKind::Binary(BinaryOp::Mul, _, _)));
    }

    #[test]
    fn assignment_is_right_associative() {
        let e = expr_of("a = b += 2");
        let ExprKind::Assign(None, _, r) = &e.kind else {
            panic!()
        };
        assert!(matches!(
            r.kind,
            ExprKind::Assign(Some(BinaryOp::Add), _, _)
        ));
    }

    #[test]
    fn casts_sizeof_and_postfix() {
        let e = expr_of("(unsigned char)x + sizeof(short) + a[i]++");
        let ExprKind::Binary(BinaryOp::Add, l, r) = &e.kind else {
            panic!()
        };
        assert!(matches!(r.kind, ExprKind::IncDec { prefix: false, .. }));
        let ExprKind::Binary(BinaryOp::Add, ll, lr) = &l.kind else {
            panic!()
        };
        assert!(matches!(
            ll.kind,
            ExprKind::Cast(
                TypeName {
                    spec: TypeSpec {
                        base: BaseType::UChar,
                        ..
                    },
                    ..
                },
                _
            )
        ));
        assert!(matches!(lr.kind, ExprKind::SizeofType(_)));
    }

    #[test]
    fn declarations_with_several_declarators() {
        let u = parse_ok("__device__ void f() { int a = 1, *b, c[4][2]; }");
        let StmtKind::Decl(d) = &body(&u)[0].kind else {
            panic!()
        };
        assert_eq!(d.declarators.len(), 3);
        assert_eq!(d.declarators[1].pointers, 1);
        assert_eq!(d.declarators[2].dims.len(), 2);
    }

    #[test]
    fn statements() {
        let u = parse_ok(
            "__global__ void k() { for (int i = 0; i < 4; i++) { if (i) continue; else break; } \
             do { } while (0); while (1) ; return; }",
        );
        let b = body(&u);
        assert!(matches!(b[0].kind, StmtKind::For { .. }));
        assert!(matches!(b[1].kind, StmtKind::DoWhile { .. }));
        assert!(matches!(b[2].kind, StmtKind::While { .. }));
        assert!(matches!(b[3].kind, StmtKind::Return(None)));
    }

    #[test]
    fn shared_arrays_at_file_scope() {
        let u = parse_ok("#define N 16\n__shared__ int tile[N][N + 1];");
        let Item::Global(d) = &u.items[0] else {
            panic!()
        };
        assert!(d.spec.shared);
        assert_eq!(d.declarators[0].dims.len(), 2);
    }

    #[test]
    fn unsupported_features_are_named() {
        for (src, msg) in [
            ("__device__ float f() {}", "`float` is not supported"),
            (
                "__device__ void f() { switch (x) {} }",
                "`switch` is not supported",
            ),
            ("__device__ void f() { goto l; }", "`goto` is not supported"),
            ("struct S { int a; };", "structs are not supported"),
            (
                "__device__ void f() { int (*p)(int); }",
                "function pointers",
            ),
            ("int g;", "global variables other than `__shared__`"),
            ("void h() {}", "host functions are not supported"),
            (
                "__device__ void f() { x = 1.5; }",
                "`float` is not supported",
            ),
        ] {
            let (_, d) = parse_src(src);
            assert!(d.iter().any(|d| d.message.contains(msg)), "{src}: {d:?}");
        }
    }

    #[test]
    fn recovers_after_a_bad_statement() {
        let (u, d) = parse_src("__device__ void f() { x = ; y = 2; z = ; }");
        assert_eq!(d.len(), 2, "{d:?}");
        assert_eq!(body(&u).len(), 1);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let src = format!(
            "__device__ void f() {{ x = {}1{}; }}",
            "(".repeat(5000),
            ")".repeat(5000)
        );
        let (_, d) = parse_src(&src);
        assert!(d.iter().any(|d| d.message.contains("nesting too deep")));
    }
}
