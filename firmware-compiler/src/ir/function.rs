//! Functions and modules: the arenas that hold blocks, instructions and
//! values, the block order, and the editing operations passes use.
//!
//! Arenas only grow: a removed instruction or block simply disappears from
//! the layout (a block's instruction list, the function's block order), and
//! the verifier only looks at what is laid out.

use super::entities::{Block, FuncId, Inst, SharedId, StackSlot, Value};
use super::instructions::{InstData, Type};

/// A source position (1-based line and column of the kernel source), carried
/// by instructions for diagnostics and listings.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct SrcLoc {
    pub line: u32,
    pub col: u32,
}

/// Kernels are launched (`__global__`); device functions are called.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum FuncKind {
    Kernel,
    Device,
}

/// Where a value comes from.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ValueDef {
    /// The result of an instruction.
    Result(Inst),
    /// Parameter `index` of a block.
    Param(Block, usize),
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ValueData {
    pub ty: Type,
    pub def: ValueDef,
}

#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct BlockData {
    pub params: Vec<Value>,
    /// The instructions in order; the last one is the terminator.
    pub insts: Vec<Inst>,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct InstNode {
    pub data: InstData,
    pub result: Option<Value>,
    pub loc: Option<SrcLoc>,
}

/// A per-thread stack slot: `size` bytes aligned to `align`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct StackSlotData {
    pub size: u32,
    pub align: u32,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Function {
    pub name: String,
    pub kind: FuncKind,
    /// Kernels: the names of the parameter words, read with `param N`.
    /// Device functions: the argument types are the entry block's
    /// parameters; these names are only for listings (may be empty).
    pub param_names: Vec<String>,
    /// Device functions: argument types (the entry block's parameters).
    pub params: Vec<Type>,
    /// Device functions: the return type, if any. Kernels return nothing.
    pub ret: Option<Type>,
    pub stack_slots: Vec<StackSlotData>,
    pub blocks: Vec<BlockData>,
    pub insts: Vec<InstNode>,
    pub values: Vec<ValueData>,
    /// The block order. `layout[0]` is the entry block.
    pub layout: Vec<Block>,
}

impl Function {
    pub fn new(name: impl Into<String>, kind: FuncKind) -> Function {
        Function {
            name: name.into(),
            kind,
            param_names: Vec::new(),
            params: Vec::new(),
            ret: None,
            stack_slots: Vec::new(),
            blocks: Vec::new(),
            insts: Vec::new(),
            values: Vec::new(),
            layout: Vec::new(),
        }
    }

    pub fn entry_block(&self) -> Option<Block> {
        self.layout.first().copied()
    }

    /// Creates a block and appends it to the layout.
    pub fn add_block(&mut self) -> Block {
        let b = self.create_block();
        self.layout.push(b);
        b
    }

    /// Creates a block that is not yet in the layout.
    pub fn create_block(&mut self) -> Block {
        self.blocks.push(BlockData::default());
        Block::new(self.blocks.len() - 1)
    }

    pub fn block(&self, b: Block) -> &BlockData {
        &self.blocks[b.index()]
    }

    pub fn block_mut(&mut self, b: Block) -> &mut BlockData {
        &mut self.blocks[b.index()]
    }

    pub fn add_block_param(&mut self, b: Block, ty: Type) -> Value {
        let index = self.blocks[b.index()].params.len();
        let v = self.new_value(ty, ValueDef::Param(b, index));
        self.blocks[b.index()].params.push(v);
        v
    }

    pub fn add_stack_slot(&mut self, size: u32, align: u32) -> StackSlot {
        self.stack_slots.push(StackSlotData { size, align });
        StackSlot::new(self.stack_slots.len() - 1)
    }

    fn new_value(&mut self, ty: Type, def: ValueDef) -> Value {
        self.values.push(ValueData { ty, def });
        Value::new(self.values.len() - 1)
    }

    /// Creates an instruction (not yet placed in a block) with a result of
    /// type `result` if given.
    pub fn create_inst(&mut self, data: InstData, result: Option<Type>) -> Inst {
        let inst = Inst::new(self.insts.len());
        self.insts.push(InstNode {
            data,
            result: None,
            loc: None,
        });
        if let Some(ty) = result {
            let v = self.new_value(ty, ValueDef::Result(inst));
            self.insts[inst.index()].result = Some(v);
        }
        inst
    }

    /// Creates an instruction and appends it to `block`.
    pub fn append_inst(&mut self, block: Block, data: InstData, result: Option<Type>) -> Inst {
        let inst = self.create_inst(data, result);
        self.blocks[block.index()].insts.push(inst);
        inst
    }

    /// Creates an instruction and inserts it in `block` before position `at`.
    pub fn insert_inst(
        &mut self,
        block: Block,
        at: usize,
        data: InstData,
        result: Option<Type>,
    ) -> Inst {
        let inst = self.create_inst(data, result);
        self.blocks[block.index()].insts.insert(at, inst);
        inst
    }

    pub fn inst(&self, i: Inst) -> &InstData {
        &self.insts[i.index()].data
    }

    pub fn inst_mut(&mut self, i: Inst) -> &mut InstData {
        &mut self.insts[i.index()].data
    }

    pub fn inst_result(&self, i: Inst) -> Option<Value> {
        self.insts[i.index()].result
    }

    pub fn inst_loc(&self, i: Inst) -> Option<SrcLoc> {
        self.insts[i.index()].loc
    }

    pub fn set_inst_loc(&mut self, i: Inst, loc: Option<SrcLoc>) {
        self.insts[i.index()].loc = loc;
    }

    pub fn value_type(&self, v: Value) -> Type {
        self.values[v.index()].ty
    }

    pub fn value_def(&self, v: Value) -> ValueDef {
        self.values[v.index()].def
    }

    /// The terminator of a laid-out block (its last instruction), if it has
    /// one.
    pub fn terminator(&self, b: Block) -> Option<Inst> {
        let last = *self.blocks[b.index()].insts.last()?;
        self.inst(last).is_terminator().then_some(last)
    }

    /// Successor blocks, in branch order (duplicates kept).
    pub fn successors(&self, b: Block) -> Vec<Block> {
        match self.terminator(b) {
            Some(t) => self
                .inst(t)
                .branch_targets()
                .iter()
                .map(|c| c.block)
                .collect(),
            None => Vec::new(),
        }
    }

    /// The laid-out instructions of every block, in layout order.
    pub fn laid_out_insts(&self) -> impl Iterator<Item = (Block, Inst)> + '_ {
        self.layout
            .iter()
            .flat_map(move |&b| self.blocks[b.index()].insts.iter().map(move |&i| (b, i)))
    }

    /// Replaces every use of `from` by `to` in laid-out instructions.
    pub fn replace_uses(&mut self, from: Value, to: Value) {
        let layout = self.layout.clone();
        for b in layout {
            for k in 0..self.blocks[b.index()].insts.len() {
                let i = self.blocks[b.index()].insts[k];
                self.insts[i.index()]
                    .data
                    .map_args(|v| if v == from { to } else { v });
            }
        }
    }
}

/// A `__shared__` variable: `size` bytes, aligned to `align`, per block.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SharedData {
    pub name: String,
    pub size: u32,
    pub align: u32,
}

/// A compilation unit: shared variables and functions (kernels and device
/// functions). Calls name functions by [`FuncId`], their index here.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Module {
    pub shared: Vec<SharedData>,
    pub funcs: Vec<Function>,
}

impl Module {
    pub fn add_shared(&mut self, name: impl Into<String>, size: u32, align: u32) -> SharedId {
        self.shared.push(SharedData {
            name: name.into(),
            size,
            align,
        });
        SharedId::new(self.shared.len() - 1)
    }

    pub fn add_func(&mut self, f: Function) -> FuncId {
        self.funcs.push(f);
        FuncId::new(self.funcs.len() - 1)
    }

    pub fn func(&self, id: FuncId) -> &Function {
        &self.funcs[id.index()]
    }

    pub fn func_mut(&mut self, id: FuncId) -> &mut Function {
        &mut self.funcs[id.index()]
    }

    pub fn func_by_name(&self, name: &str) -> Option<FuncId> {
        self.funcs
            .iter()
            .position(|f| f.name == name)
            .map(FuncId::new)
    }

    pub fn kernels(&self) -> impl Iterator<Item = FuncId> + '_ {
        self.funcs
            .iter()
            .enumerate()
            .filter(|(_, f)| f.kind == FuncKind::Kernel)
            .map(|(i, _)| FuncId::new(i))
    }
}
