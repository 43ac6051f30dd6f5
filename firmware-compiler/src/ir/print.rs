//! The textual form of the IR: printing.
//!
//! Every stage of the compiler can dump its IR in this form, the filetests
//! compare against it, and [`parse`](super::parse) reads it back:
//! for canonical text, `print(parse(text)) == text`. The form:
//!
//! ```text
//! shared @tile 1024 align 4
//!
//! kernel @scale(a, n) {
//!     ss0 = stack 8 align 4
//! block0:
//!     v0 = special tid.x
//!     v1 = param 1
//!     v2 = icmp lt v0, v1
//!     brif v2, block1, block2
//! block1:
//!     v3 = load.global.b32 v0+4
//!     jump block2
//! block2:
//!     return
//! }
//!
//! func @addone(i32) -> i32 {
//! block0(v0: i32):
//!     v1 = iconst 1
//!     v2 = iadd v0, v1
//!     return v2
//! }
//! ```
//!
//! Only laid-out blocks are printed, in layout order; values and blocks
//! keep their arena numbers. Instruction result types are not written:
//! each follows from the operation and its operands.
//!
//! Printing never panics: a reference to a function or shared variable
//! that does not exist is printed by number (`fn7`, `sh2`), so a broken
//! module can still be shown in a verifier message.

use std::fmt::{self, Write};

use super::entities::{FuncId, Inst, SharedId};
use super::function::{FuncKind, Function, Module};
use super::instructions::{BlockCall, InstData};

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for shared in &self.shared {
            writeln!(
                f,
                "shared @{} {} align {}",
                shared.name, shared.size, shared.align
            )?;
        }
        for (i, func) in self.funcs.iter().enumerate() {
            if i > 0 || !self.shared.is_empty() {
                writeln!(f)?;
            }
            write_function(f, self, func)?;
        }
        Ok(())
    }
}

/// The text of function `id` of `module` (an empty string if there is no
/// such function).
pub fn print_function(module: &Module, id: FuncId) -> String {
    let mut out = String::new();
    if let Some(func) = module.funcs.get(id.index()) {
        // Writing to a String cannot fail.
        let _ = write_function(&mut out, module, func);
    }
    out
}

/// Writes `func`, which need not be part of `module` (a pass may print a
/// function it is rewriting); `module` only supplies the names of callees
/// and shared variables.
pub fn write_function(out: &mut impl Write, module: &Module, func: &Function) -> fmt::Result {
    match func.kind {
        FuncKind::Kernel => {
            write!(out, "kernel @{}(", func.name)?;
            write_list(out, func.param_names.iter(), |out, name| {
                write!(out, "{name}")
            })?;
            write!(out, ")")?;
        }
        FuncKind::Device => {
            write!(out, "func @{}(", func.name)?;
            let named = !func.param_names.is_empty() && func.param_names.len() == func.params.len();
            write_list(out, func.params.iter().enumerate(), |out, (i, ty)| {
                if named {
                    write!(out, "{}: ", func.param_names[i])?;
                }
                write!(out, "{}", ty.name())
            })?;
            write!(out, ")")?;
            if let Some(ret) = func.ret {
                write!(out, " -> {}", ret.name())?;
            }
        }
    }
    writeln!(out, " {{")?;
    for (i, slot) in func.stack_slots.iter().enumerate() {
        writeln!(out, "    ss{i} = stack {} align {}", slot.size, slot.align)?;
    }
    for &b in &func.layout {
        write!(out, "{b}")?;
        let Some(data) = func.blocks.get(b.index()) else {
            writeln!(out, ":")?;
            continue;
        };
        if !data.params.is_empty() {
            write!(out, "(")?;
            write_list(out, data.params.iter(), |out, v| {
                let ty = func.values.get(v.index()).map_or("?", |d| d.ty.name());
                write!(out, "{v}: {ty}")
            })?;
            write!(out, ")")?;
        }
        writeln!(out, ":")?;
        for &inst in &data.insts {
            writeln!(out, "    {}", DisplayInst { module, func, inst })?;
        }
    }
    writeln!(out, "}}")
}

/// The text of one instruction (`v3 = iadd v1, v2`), without indentation.
pub fn print_inst(module: &Module, func: &Function, inst: Inst) -> String {
    DisplayInst { module, func, inst }.to_string()
}

/// An instruction of a function, displayed in its textual form.
pub struct DisplayInst<'a> {
    pub module: &'a Module,
    pub func: &'a Function,
    pub inst: Inst,
}

impl fmt::Display for DisplayInst<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(node) = self.func.insts.get(self.inst.index()) else {
            return write!(f, "<no instruction {}>", self.inst);
        };
        if let Some(result) = node.result {
            write!(f, "{result} = ")?;
        }
        write_inst_data(f, self.module, &node.data)
    }
}

fn write_inst_data(f: &mut impl Write, module: &Module, data: &InstData) -> fmt::Result {
    match data {
        InstData::Iconst { imm } => write!(f, "iconst {imm}"),
        InstData::Bconst { imm } => write!(f, "bconst {imm}"),
        InstData::Unary { op, arg } => write!(f, "{} {arg}", op.name()),
        InstData::Binary { op, args } => write!(f, "{} {}, {}", op.name(), args[0], args[1]),
        InstData::Icmp { cmp, args } => {
            write!(f, "icmp {} {}, {}", cmp.suffix(), args[0], args[1])
        }
        InstData::Select {
            cond,
            if_true,
            if_false,
        } => write!(f, "select {cond}, {if_true}, {if_false}"),
        InstData::Special { reg } => write!(f, "special {}", reg.name()),
        InstData::Param { index } => write!(f, "param {index}"),
        InstData::SharedAddr { var } => {
            write!(f, "shared_addr ")?;
            write_shared_name(f, module, *var)
        }
        InstData::StackAddr { slot } => write!(f, "stack_addr {slot}"),
        InstData::Load {
            space,
            width,
            addr,
            offset,
        } => {
            write!(f, "load.{}.{} {addr}", space.name(), width.suffix())?;
            write_offset(f, *offset)
        }
        InstData::Store {
            space,
            width,
            value,
            addr,
            offset,
        } => {
            write!(
                f,
                "store.{}.{} {value}, {addr}",
                space.name(),
                width.suffix()
            )?;
            write_offset(f, *offset)
        }
        InstData::Atomic {
            space,
            op,
            addr,
            value,
        } => write!(f, "atomic.{}.{} {addr}, {value}", space.name(), op.suffix()),
        InstData::Vote { op, arg } => write!(f, "vote.{} {arg}", op.name()),
        InstData::Barrier => write!(f, "barrier"),
        InstData::Call { func, args } => {
            write!(f, "call ")?;
            write_func_name(f, module, *func)?;
            write!(f, "(")?;
            write_list(f, args.iter(), |f, v| write!(f, "{v}"))?;
            write!(f, ")")
        }
        InstData::Jump { dest } => {
            write!(f, "jump ")?;
            write_block_call(f, dest)
        }
        InstData::Brif {
            cond,
            then_dest,
            else_dest,
        } => {
            write!(f, "brif {cond}, ")?;
            write_block_call(f, then_dest)?;
            write!(f, ", ")?;
            write_block_call(f, else_dest)
        }
        InstData::Return { value: None } => write!(f, "return"),
        InstData::Return { value: Some(v) } => write!(f, "return {v}"),
    }
}

fn write_offset(f: &mut impl Write, offset: i32) -> fmt::Result {
    match offset {
        0 => Ok(()),
        o if o > 0 => write!(f, "+{o}"),
        o => write!(f, "{o}"),
    }
}

fn write_block_call(f: &mut impl Write, call: &BlockCall) -> fmt::Result {
    write!(f, "{}", call.block)?;
    if !call.args.is_empty() {
        write!(f, "(")?;
        write_list(f, call.args.iter(), |f, v| write!(f, "{v}"))?;
        write!(f, ")")?;
    }
    Ok(())
}

fn write_func_name(f: &mut impl Write, module: &Module, id: FuncId) -> fmt::Result {
    match module.funcs.get(id.index()) {
        Some(func) => write!(f, "@{}", func.name),
        None => write!(f, "{id}"),
    }
}

fn write_shared_name(f: &mut impl Write, module: &Module, id: SharedId) -> fmt::Result {
    match module.shared.get(id.index()) {
        Some(var) => write!(f, "@{}", var.name),
        None => write!(f, "{id}"),
    }
}

/// Writes the items separated by `, `.
fn write_list<W: Write, T>(
    out: &mut W,
    items: impl Iterator<Item = T>,
    mut item: impl FnMut(&mut W, T) -> fmt::Result,
) -> fmt::Result {
    for (i, x) in items.enumerate() {
        if i > 0 {
            write!(out, ", ")?;
        }
        item(out, x)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinaryOp, Block, MemSpace, Type};
    use concord_isa::instr::LoadWidth;

    #[test]
    fn prints_a_built_function() {
        let mut module = Module::default();
        module.add_shared("tile", 64, 4);
        let mut f = Function::new("addone", FuncKind::Device);
        f.params = vec![Type::I32];
        f.ret = Some(Type::I32);
        let b0 = f.add_block();
        let x = f.add_block_param(b0, Type::I32);
        let one = f.append_inst(b0, InstData::Iconst { imm: 1 }, Some(Type::I32));
        let one = f.inst_result(one).unwrap();
        let sum = f.append_inst(
            b0,
            InstData::Binary {
                op: BinaryOp::Add,
                args: [x, one],
            },
            Some(Type::I32),
        );
        let sum = f.inst_result(sum).unwrap();
        let ld = f.append_inst(
            b0,
            InstData::Load {
                space: MemSpace::Global,
                width: LoadWidth::S8,
                addr: sum,
                offset: -3,
            },
            Some(Type::I32),
        );
        let ld = f.inst_result(ld).unwrap();
        f.append_inst(b0, InstData::Return { value: Some(ld) }, None);
        let id = module.add_func(f);
        let expected = "\
func @addone(i32) -> i32 {
block0(v0: i32):
    v1 = iconst 1
    v2 = iadd v0, v1
    v3 = load.global.s8 v2-3
    return v3
}
";
        assert_eq!(print_function(&module, id), expected);
        assert_eq!(
            module.to_string(),
            format!("shared @tile 64 align 4\n\n{expected}")
        );
        assert_eq!(b0, Block(0));
    }

    #[test]
    fn dangling_references_print_by_number() {
        let module = Module::default();
        let mut f = Function::new("k", FuncKind::Kernel);
        let b0 = f.add_block();
        let call = f.append_inst(
            b0,
            InstData::Call {
                func: FuncId(7),
                args: vec![],
            },
            None,
        );
        assert_eq!(print_inst(&module, &f, call), "call fn7()");
        assert_eq!(print_inst(&module, &f, Inst(99)), "<no instruction inst99>");
    }
}
