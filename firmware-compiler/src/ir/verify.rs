//! The IR verifier: the structural and type rules every function must obey
//! between passes.
//!
//! It runs after the front end's lowering and after every pass in debug
//! builds and filetests, so a broken invariant is reported by the pass that
//! broke it rather than by a confusing failure much later. Only laid-out
//! blocks and their instructions are checked (arenas only grow; removed
//! entities are simply unreachable from the layout).
//!
//! The rules:
//!
//! * every laid-out block ends with exactly one terminator, and has none
//!   before it; a block or instruction is laid out at most once;
//! * SSA: each operand is defined by a laid-out block parameter or
//!   instruction, and its definition dominates the use (a block parameter
//!   dominates its block; an instruction result dominates the later
//!   instructions of its block and the blocks its block dominates). Uses in
//!   unreachable blocks only need a definition;
//! * operand and result types match the operation (see
//!   [`InstData`](super::InstData)), calls match the callee's signature,
//!   branch arguments the target's parameters, `return` the function's
//!   return type;
//! * kernels return nothing and take no entry-block parameters; `param N`
//!   occurs only in kernels with `N` < the number of parameter words;
//!   device functions' entry blocks take `params`; the entry block has no
//!   predecessors;
//! * atomics go to global or shared memory; branch targets are laid out;
//!   stack slots, shared variables and callees exist, and kernels are not
//!   called.
//!
//! Errors name the function, the block and the printed instruction.

use std::fmt;

use super::entities::{Block, FuncId, Inst, Value};
use super::function::{FuncKind, Function, Module, ValueDef};
use super::instructions::{BlockCall, InstData, MemSpace, Type, UnaryOp, VoteOp};
use super::print::print_inst;
use crate::dominator_tree::DominatorTree;
use crate::flowgraph::ControlFlowGraph;

/// A broken rule, with where it is broken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// The function's name.
    pub func: String,
    pub block: Option<Block>,
    /// The offending instruction, printed.
    pub inst: Option<String>,
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "function @{}", self.func)?;
        if let Some(b) = self.block {
            write!(f, ", {b}")?;
        }
        if let Some(inst) = &self.inst {
            write!(f, ", `{inst}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for VerifyError {}

/// Verifies every function of the module; the first error found.
pub fn verify_module(module: &Module) -> Result<(), VerifyError> {
    (0..module.funcs.len()).try_for_each(|i| verify_function(module, FuncId::new(i)))
}

pub fn verify_function(module: &Module, id: FuncId) -> Result<(), VerifyError> {
    let Some(func) = module.funcs.get(id.index()) else {
        return Err(VerifyError {
            func: id.to_string(),
            block: None,
            inst: None,
            message: "no such function".to_string(),
        });
    };
    let mut laid_out = vec![false; func.blocks.len()];
    for &b in &func.layout {
        if let Some(l) = laid_out.get_mut(b.index()) {
            *l = true;
        }
    }
    let mut verifier = Verifier {
        module,
        func,
        laid_out,
        block: None,
        inst: None,
    };
    verifier.run()
}

/// Where a value is defined: its block and position (`None` for a block
/// parameter, which comes before every instruction).
#[derive(Clone, Copy)]
struct DefSite {
    block: Block,
    position: Option<usize>,
}

struct Verifier<'a> {
    module: &'a Module,
    func: &'a Function,
    /// Per block: whether it is in the layout.
    laid_out: Vec<bool>,
    /// What is being checked, for error messages.
    block: Option<Block>,
    inst: Option<Inst>,
}

impl Verifier<'_> {
    fn error(&self, message: impl Into<String>) -> VerifyError {
        VerifyError {
            func: self.func.name.clone(),
            block: self.block,
            inst: self.inst.map(|i| print_inst(self.module, self.func, i)),
            message: message.into(),
        }
    }

    fn fail<T>(&self, message: impl Into<String>) -> Result<T, VerifyError> {
        Err(self.error(message))
    }

    fn run(&mut self) -> Result<(), VerifyError> {
        let func = self.func;
        self.signature()?;
        let defs = self.layout_and_definitions()?;
        self.terminators()?;
        self.entry_block()?;

        let cfg = ControlFlowGraph::compute(func);
        let domtree = DominatorTree::compute(func, &cfg);
        if let Some(entry) = func.entry_block() {
            if let Some(&p) = cfg.preds(entry).first() {
                self.block = Some(entry);
                return self.fail(format!("the entry block has a predecessor ({p})"));
            }
        }

        for &b in &func.layout {
            self.block = Some(b);
            for (position, &inst) in func.block(b).insts.iter().enumerate() {
                self.inst = Some(inst);
                self.operands_defined(&defs, &domtree, b, position, inst)?;
                self.instruction(inst)?;
            }
            self.inst = None;
        }
        Ok(())
    }

    fn signature(&self) -> Result<(), VerifyError> {
        let func = self.func;
        if func.kind == FuncKind::Kernel {
            if func.ret.is_some() {
                return self.fail("a kernel returns nothing");
            }
            if !func.params.is_empty() {
                return self
                    .fail("a kernel takes parameter words (`param N`), not typed parameters");
            }
        }
        if func.layout.is_empty() {
            return self.fail("the function has no blocks");
        }
        Ok(())
    }

    /// Checks that the layout names existing blocks and instructions, each
    /// once, and records where every laid-out value is defined.
    fn layout_and_definitions(&mut self) -> Result<Vec<Option<DefSite>>, VerifyError> {
        let func = self.func;
        let mut block_seen = vec![false; func.blocks.len()];
        let mut inst_seen = vec![false; func.insts.len()];
        let mut defs: Vec<Option<DefSite>> = vec![None; func.values.len()];
        for &b in &func.layout {
            if b.index() >= func.blocks.len() {
                return self.fail(format!("{b} is laid out but does not exist"));
            }
            if std::mem::replace(&mut block_seen[b.index()], true) {
                return self.fail(format!("{b} is laid out twice"));
            }
            self.block = Some(b);
            for (i, &v) in func.block(b).params.iter().enumerate() {
                match func.values.get(v.index()) {
                    Some(data) if data.def == ValueDef::Param(b, i) => {}
                    Some(_) => {
                        return self.fail(format!(
                            "parameter {i} of {b} is {v}, which is not recorded as that parameter"
                        ))
                    }
                    None => return self.fail(format!("parameter {v} does not exist")),
                }
                if defs[v.index()].is_some() {
                    return self.fail(format!("{v} is defined twice"));
                }
                defs[v.index()] = Some(DefSite {
                    block: b,
                    position: None,
                });
            }
            for (position, &inst) in func.block(b).insts.iter().enumerate() {
                if inst.index() >= func.insts.len() {
                    return self.fail(format!("{inst} does not exist"));
                }
                if std::mem::replace(&mut inst_seen[inst.index()], true) {
                    self.inst = Some(inst);
                    return self.fail("the instruction is laid out twice");
                }
                if let Some(v) = func.inst_result(inst) {
                    self.inst = Some(inst);
                    match func.values.get(v.index()) {
                        Some(data) if data.def == ValueDef::Result(inst) => {}
                        Some(_) => {
                            return self
                                .fail(format!("the result {v} is not recorded as defined here"))
                        }
                        None => return self.fail(format!("the result {v} does not exist")),
                    }
                    if defs[v.index()].is_some() {
                        return self.fail(format!("{v} is defined twice"));
                    }
                    defs[v.index()] = Some(DefSite {
                        block: b,
                        position: Some(position),
                    });
                    self.inst = None;
                }
            }
        }
        self.block = None;
        Ok(defs)
    }

    fn terminators(&mut self) -> Result<(), VerifyError> {
        let func = self.func;
        for &b in &func.layout {
            self.block = Some(b);
            let insts = &func.block(b).insts;
            let Some(&last) = insts.last() else {
                return self.fail("the block is empty (it needs a terminator)");
            };
            for &inst in &insts[..insts.len() - 1] {
                if func.inst(inst).is_terminator() {
                    self.inst = Some(inst);
                    return self.fail("terminator before the end of the block");
                }
            }
            if !func.inst(last).is_terminator() {
                self.inst = Some(last);
                return self.fail("the block does not end with a terminator");
            }
        }
        self.block = None;
        self.inst = None;
        Ok(())
    }

    fn entry_block(&mut self) -> Result<(), VerifyError> {
        let func = self.func;
        let Some(entry) = func.entry_block() else {
            return Ok(());
        };
        self.block = Some(entry);
        let params: Vec<Type> = func
            .block(entry)
            .params
            .iter()
            .map(|&v| func.value_type(v))
            .collect();
        match func.kind {
            FuncKind::Kernel if !params.is_empty() => {
                self.fail("a kernel's entry block takes no parameters")
            }
            FuncKind::Device if params != func.params => self.fail(format!(
                "the entry block's parameters ({}) differ from the function's ({})",
                type_list(&params),
                type_list(&func.params)
            )),
            _ => {
                self.block = None;
                Ok(())
            }
        }
    }

    /// Every operand is defined, and (in reachable blocks) its definition
    /// dominates this use.
    fn operands_defined(
        &self,
        defs: &[Option<DefSite>],
        domtree: &DominatorTree,
        block: Block,
        position: usize,
        inst: Inst,
    ) -> Result<(), VerifyError> {
        for v in self.func.inst(inst).args() {
            let Some(def) = defs.get(v.index()).copied().flatten() else {
                return self.fail(format!("{v} is used but not defined"));
            };
            if !domtree.is_reachable(block) {
                continue;
            }
            let dominates = if def.block == block {
                def.position.map_or(true, |p| p < position)
            } else {
                domtree.dominates(def.block, block)
            };
            if !dominates {
                return self.fail(format!(
                    "{v} is used where its definition (in {}) does not dominate",
                    def.block
                ));
            }
        }
        Ok(())
    }

    fn ty(&self, v: Value) -> Type {
        self.func.value_type(v)
    }

    fn expect_type(&self, v: Value, ty: Type, role: &str) -> Result<(), VerifyError> {
        if self.ty(v) != ty {
            return self.fail(format!(
                "{role} {v} is {}, expected {}",
                self.ty(v).name(),
                ty.name()
            ));
        }
        Ok(())
    }

    /// The operand and result rules of one instruction.
    fn instruction(&self, inst: Inst) -> Result<(), VerifyError> {
        let func = self.func;
        let data = func.inst(inst);
        // The result type the operation produces, if any.
        let result: Option<Type> = match data {
            InstData::Iconst { .. } => Some(Type::I32),
            InstData::Bconst { .. } => Some(Type::I1),
            InstData::Unary { op, arg } => match op {
                UnaryOp::Not => Some(self.ty(*arg)),
                UnaryOp::BoolToInt => {
                    self.expect_type(*arg, Type::I1, "the operand")?;
                    Some(Type::I32)
                }
                _ => {
                    self.expect_type(*arg, Type::I32, "the operand")?;
                    Some(Type::I32)
                }
            },
            InstData::Binary { op, args } => {
                let (a, b) = (self.ty(args[0]), self.ty(args[1]));
                if a != b {
                    return self.fail(format!(
                        "operands of different types ({} and {})",
                        a.name(),
                        b.name()
                    ));
                }
                if a == Type::I1 && !op.accepts_i1() {
                    return self.fail(format!("`{}` takes i32 operands, not i1", op.name()));
                }
                Some(a)
            }
            InstData::Icmp { args, .. } => {
                self.expect_type(args[0], Type::I32, "the operand")?;
                self.expect_type(args[1], Type::I32, "the operand")?;
                Some(Type::I1)
            }
            InstData::Select {
                cond,
                if_true,
                if_false,
            } => {
                self.expect_type(*cond, Type::I1, "the condition")?;
                let t = self.ty(*if_true);
                self.expect_type(*if_false, t, "the second arm")?;
                Some(t)
            }
            InstData::Special { .. } => Some(Type::I32),
            InstData::Param { index } => {
                if func.kind != FuncKind::Kernel {
                    return self.fail("`param` is only allowed in kernels");
                }
                if *index as usize >= func.param_names.len() {
                    return self.fail(format!(
                        "parameter word {index} does not exist (the kernel has {})",
                        func.param_names.len()
                    ));
                }
                Some(Type::I32)
            }
            InstData::SharedAddr { var } => {
                if var.index() >= self.module.shared.len() {
                    return self.fail(format!("shared variable {var} does not exist"));
                }
                Some(Type::I32)
            }
            InstData::StackAddr { slot } => {
                if slot.index() >= func.stack_slots.len() {
                    return self.fail(format!("stack slot {slot} does not exist"));
                }
                Some(Type::I32)
            }
            InstData::Load { addr, .. } => {
                self.expect_type(*addr, Type::I32, "the address")?;
                Some(Type::I32)
            }
            InstData::Store { value, addr, .. } => {
                self.expect_type(*value, Type::I32, "the stored value")?;
                self.expect_type(*addr, Type::I32, "the address")?;
                None
            }
            InstData::Atomic {
                space, addr, value, ..
            } => {
                if *space == MemSpace::Local {
                    return self.fail("atomics go to global or shared memory, not local");
                }
                self.expect_type(*addr, Type::I32, "the address")?;
                self.expect_type(*value, Type::I32, "the operand")?;
                Some(Type::I32)
            }
            InstData::Vote { op, arg } => {
                self.expect_type(*arg, Type::I1, "the vote's operand")?;
                Some(match op {
                    VoteOp::Ballot => Type::I32,
                    VoteOp::Any | VoteOp::All => Type::I1,
                })
            }
            InstData::Barrier => None,
            InstData::Call { func: callee, args } => {
                let Some(target) = self.module.funcs.get(callee.index()) else {
                    return self.fail(format!("the callee {callee} does not exist"));
                };
                if target.kind == FuncKind::Kernel {
                    return self.fail(format!("@{} is a kernel and cannot be called", target.name));
                }
                if args.len() != target.params.len() {
                    return self.fail(format!(
                        "@{} takes {} arguments, the call passes {}",
                        target.name,
                        target.params.len(),
                        args.len()
                    ));
                }
                for (i, (&a, &t)) in args.iter().zip(&target.params).enumerate() {
                    self.expect_type(a, t, &format!("argument {i}"))?;
                }
                target.ret
            }
            InstData::Jump { dest } => {
                self.branch_target(dest)?;
                None
            }
            InstData::Brif {
                cond,
                then_dest,
                else_dest,
            } => {
                self.expect_type(*cond, Type::I1, "the condition")?;
                self.branch_target(then_dest)?;
                self.branch_target(else_dest)?;
                None
            }
            InstData::Return { value } => {
                match (value, func.ret) {
                    (None, None) => {}
                    (Some(v), Some(t)) => self.expect_type(*v, t, "the returned value")?,
                    (Some(_), None) => return self.fail("the function returns nothing"),
                    (None, Some(t)) => {
                        return self.fail(format!("the function must return an {}", t.name()))
                    }
                }
                None
            }
        };
        match (result, func.inst_result(inst)) {
            (None, None) => Ok(()),
            (Some(t), Some(v)) if self.ty(v) == t => Ok(()),
            (Some(t), Some(v)) => self.fail(format!(
                "the result {v} is {}, but the operation produces {}",
                self.ty(v).name(),
                t.name()
            )),
            (Some(t), None) => self.fail(format!(
                "the operation produces an {} but has no result value",
                t.name()
            )),
            (None, Some(v)) => self.fail(format!("the operation produces no value, yet has {v}")),
        }
    }

    fn branch_target(&self, call: &BlockCall) -> Result<(), VerifyError> {
        let func = self.func;
        let target = call.block;
        if !self.laid_out.get(target.index()).copied().unwrap_or(false) {
            return self.fail(format!("the target {target} is not laid out"));
        }
        let params = &func.block(target).params;
        if params.len() != call.args.len() {
            return self.fail(format!(
                "{target} takes {} arguments, the branch passes {}",
                params.len(),
                call.args.len()
            ));
        }
        for (i, (&a, &p)) in call.args.iter().zip(params).enumerate() {
            let t = self.ty(p);
            if self.ty(a) != t {
                return self.fail(format!(
                    "argument {i} to {target} is {} ({a}), the parameter {p} is {}",
                    self.ty(a).name(),
                    t.name()
                ));
            }
        }
        Ok(())
    }
}

fn type_list(types: &[Type]) -> String {
    let names: Vec<&str> = types.iter().map(|t| t.name()).collect();
    names.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse::parse_module;

    fn verify(text: &str) -> Result<(), VerifyError> {
        let module = parse_module(text, "t.cir").unwrap_or_else(|e| panic!("{}", e.render()));
        verify_module(&module)
    }

    fn error(text: &str) -> String {
        match verify(text) {
            Ok(()) => panic!("expected a verifier error"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_loop_verifies() {
        verify(
            "\
kernel @k(n) {
block0:
    v0 = iconst 0
    v1 = param 0
    jump block1(v0)
block1(v2: i32):
    v3 = icmp lt v2, v1
    brif v3, block2, block3
block2:
    v4 = iconst 1
    v5 = iadd v2, v4
    jump block1(v5)
block3:
    return
}
",
        )
        .unwrap();
    }

    #[test]
    fn use_not_dominated() {
        let e = error(
            "\
kernel @k() {
block0:
    v0 = bconst true
    brif v0, block1, block2
block1:
    v1 = iconst 1
    jump block2
block2:
    v2 = ineg v1
    return
}
",
        );
        assert_eq!(
            e,
            "function @k, block2, `v2 = ineg v1`: v1 is used where its definition (in block1) does not dominate"
        );
    }

    #[test]
    fn use_before_definition_in_the_block() {
        let e =
            error("kernel @k() {\nblock0:\n    v1 = ineg v0\n    v0 = iconst 1\n    return\n}\n");
        assert!(
            e.contains("v0 is used where its definition (in block0) does not dominate"),
            "{e}"
        );
    }

    #[test]
    fn terminator_rules() {
        let e = error("kernel @k() {\nblock0:\n    return\n    return\n}\n");
        assert_eq!(
            e,
            "function @k, block0, `return`: terminator before the end of the block"
        );
        let e = error("kernel @k() {\nblock0:\n    barrier\n}\n");
        assert_eq!(
            e,
            "function @k, block0, `barrier`: the block does not end with a terminator"
        );
        let e = error("kernel @k() {\nblock0:\n}\n");
        assert_eq!(
            e,
            "function @k, block0: the block is empty (it needs a terminator)"
        );
    }

    #[test]
    fn types() {
        let e = error(
            "kernel @k() {\nblock0:\n    v0 = bconst true\n    v1 = iadd v0, v0\n    return\n}\n",
        );
        assert!(e.ends_with("`iadd` takes i32 operands, not i1"), "{e}");
        let e = error("kernel @k() {\nblock0:\n    v0 = bconst true\n    v1 = iconst 1\n    v2 = select v0, v1, v0\n    return\n}\n");
        assert!(e.ends_with("the second arm v0 is i1, expected i32"), "{e}");
        let e = error(
            "kernel @k() {\nblock0:\n    v0 = iconst 1\n    v1 = vote.any v0\n    return\n}\n",
        );
        assert!(
            e.ends_with("the vote's operand v0 is i32, expected i1"),
            "{e}"
        );
        let e = error("kernel @k() {\nblock0:\n    v0 = iconst 1\n    brif v0, block1, block1\nblock1:\n    return\n}\n");
        assert!(e.ends_with("the condition v0 is i32, expected i1"), "{e}");
    }

    #[test]
    fn kernel_and_device_rules() {
        let e = error("kernel @k(a) {\nblock0:\n    v0 = param 1\n    return\n}\n");
        assert!(
            e.ends_with("parameter word 1 does not exist (the kernel has 1)"),
            "{e}"
        );
        let e = error("func @f() {\nblock0:\n    v0 = param 0\n    return\n}\n");
        assert!(e.ends_with("`param` is only allowed in kernels"), "{e}");
        let e = error("func @f(i32) {\nblock0:\n    return\n}\n");
        assert!(
            e.contains("entry block's parameters () differ from the function's (i32)"),
            "{e}"
        );
        let e = error("kernel @k() {\nblock0(v0: i32):\n    return\n}\n");
        assert!(
            e.ends_with("a kernel's entry block takes no parameters"),
            "{e}"
        );
        let e = error("func @f() -> i32 {\nblock0:\n    return\n}\n");
        assert!(e.ends_with("the function must return an i32"), "{e}");
        let e = error("kernel @k() {\nblock0:\n    jump block0\n}\n");
        assert!(
            e.ends_with("the entry block has a predecessor (block0)"),
            "{e}"
        );
    }

    #[test]
    fn calls() {
        let callee =
            "func @f(i32) -> i1 {\nblock0(v0: i32):\n    v1 = bconst true\n    return v1\n}\n";
        let e = error(&format!(
            "{callee}kernel @k() {{\nblock0:\n    v0 = call @f()\n    return\n}}\n"
        ));
        assert!(
            e.ends_with("@f takes 1 arguments, the call passes 0"),
            "{e}"
        );
        let e = error(&format!(
            "{callee}kernel @k() {{\nblock0:\n    v0 = bconst true\n    v1 = call @f(v0)\n    return\n}}\n"
        ));
        assert!(e.ends_with("argument 0 v0 is i1, expected i32"), "{e}");
        let e = error("kernel @k() {\nblock0:\n    call @k()\n    return\n}\n");
        assert!(e.ends_with("@k is a kernel and cannot be called"), "{e}");
    }

    #[test]
    fn branch_arguments() {
        let e = error("kernel @k() {\nblock0:\n    jump block1\nblock1(v0: i32):\n    return\n}\n");
        assert!(
            e.ends_with("block1 takes 1 arguments, the branch passes 0"),
            "{e}"
        );
        let e = error("kernel @k() {\nblock0:\n    v1 = bconst false\n    jump block1(v1)\nblock1(v0: i32):\n    return\n}\n");
        assert!(
            e.ends_with("argument 0 to block1 is i1 (v1), the parameter v0 is i32"),
            "{e}"
        );
    }

    #[test]
    fn built_ir_errors() {
        // Things the parser cannot express: targets that are not laid out,
        // local atomics, dangling references.
        let text = "kernel @k() {\nblock0:\n    jump block1\nblock1:\n    v0 = iconst 0\n    v1 = atomic.global.add v0, v0\n    return\n}\n";
        let mut module = parse_module(text, "t.cir").unwrap();
        verify_module(&module).unwrap();
        let f = &mut module.funcs[0];
        if let InstData::Atomic { space, .. } = f.inst_mut(Inst(2)) {
            *space = MemSpace::Local;
        }
        let e = verify_module(&module).unwrap_err();
        assert!(e.message.contains("not local"), "{e}");

        let mut module = parse_module(text, "t.cir").unwrap();
        module.funcs[0].layout.pop();
        let e = verify_module(&module).unwrap_err();
        assert_eq!(
            e.to_string(),
            "function @k, block0, `jump block1`: the target block1 is not laid out"
        );

        let mut module = parse_module(text, "t.cir").unwrap();
        module.funcs[0].layout.push(Block(0));
        let e = verify_module(&module).unwrap_err();
        assert!(e.message.contains("laid out twice"), "{e}");
    }

    #[test]
    fn unreachable_uses_need_only_a_definition() {
        verify(
            "\
kernel @k() {
block0:
    return
block1:
    v1 = iconst 1
    jump block2
block2:
    v2 = ineg v1
    return
}
",
        )
        .unwrap();
    }
}
