//! Physical code: allocated Concord instructions with symbolic branch
//! targets, each annotated with what it means for the allocation checker.
//!
//! The rewrite ([`super::lower`]) produces a [`PFunction`] per function and
//! the runtime ([`super::runtime`]) one for the division routine; the
//! checker ([`super::checker`]) verifies the annotations against the
//! instructions' data flow, and the emitter ([`super::emit`]) resolves the
//! labels and encodes.

use concord_isa::instr::{Guard, Instr, Pred, Reg};

use super::mir::{DivKind, VReg};
use crate::ir::FuncId;

/// A code address to be resolved by the emitter.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Label {
    /// Block `n` (code order) of a function.
    Block(FuncId, u32),
    /// A function's first instruction (its prologue).
    Func(FuncId),
    /// An entry of the division routine.
    Div(DivKind),
    /// Internal labels of the runtime routine.
    Runtime(u32),
    /// A label the rewrite makes inside a function (numbered per
    /// function): where lanes that skipped a guarded call or division
    /// wait for the others.
    Local(FuncId, u32),
}

/// A place a value can be in, for the checker. Spill slots are byte
/// offsets from the function's stack pointer.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Loc {
    Reg(Reg),
    Pred(Pred),
    Slot(u32),
    /// A per-warp spill slot in shared memory (its index); an affine
    /// value's slot "holds" the value when it holds its uniform part.
    WarpSlot(u32),
}

/// What an instruction does to the tracked locations. The checker
/// evaluates the effects of an instruction in order, after checking all
/// of its [`Effect::Use`]s and (unless the instruction is trusted) after
/// forgetting whatever the instruction writes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Effect {
    /// The instruction reads virtual register `v` from `loc`.
    Use(Loc, VReg),
    /// The instruction writes `v` into `loc`; other copies of `v` are stale.
    Def(Loc, VReg),
    /// A constant `v` is materialised into `loc` (other copies stay valid).
    Remat(Loc, VReg),
    /// `to` now holds whatever `from` held.
    Move { from: Loc, to: Loc },
    /// The two locations exchange contents.
    Swap(Loc, Loc),
    /// End of a parallel copy `dst <- src`: `loc` must hold `src`, and from
    /// now on it holds `dst`.
    CopyDone { loc: Loc, src: VReg, dst: VReg },
    /// A call: every register and predicate is clobbered (slots survive).
    ClobberRegisters,
    /// `loc` no longer holds a known value (a temporary of a trusted
    /// sequence).
    Clobber(Loc),
    /// Opens a *guarded sequence*, the expansion of one guarded MIR
    /// instruction, closed by [`Effect::GuardEnd`]. Every guarded
    /// instruction in it carries this guard; the checker follows the lanes
    /// whose guard holds through the sequence and keeps, for the others,
    /// what the locations held at its start (minus what unguarded
    /// instructions overwrite). Straight-line: no labels inside, and the
    /// only control instruction allowed is a guarded `ret`/`exit` at its
    /// end.
    GuardBegin(Guard),
    /// Closes the guarded sequence: a location keeps a value afterwards
    /// when both groups of lanes agree on it (so a partial definition must
    /// have found the old value in place), or when it is declared
    /// [`Effect::Exclusive`].
    GuardEnd,
    /// `v` is an exclusive definition (`MInst::exclusive_def`): lanes whose
    /// guard is false never read it, so `loc` counts as holding `v` for
    /// every lane. Inside a guarded sequence it takes effect at
    /// [`Effect::GuardEnd`] (when the guard-true lanes have `v` in `loc`);
    /// elsewhere (on the branch around a guarded call) it acts as a
    /// definition.
    Exclusive(Loc, VReg),
}

/// One instruction (or a marker carrying effects only, `instr: None`).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PInst {
    pub instr: Option<Instr>,
    /// The symbolic target of a branch or call (its numeric target is
    /// filled in by the emitter).
    pub target: Option<Label>,
    pub effects: Vec<Effect>,
    /// Part of a fixed expansion whose net effect is described by markers
    /// (a swap, the division call sequence): the checker does not forget
    /// the registers it writes.
    pub trusted: bool,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Item {
    Label(Label),
    Inst(PInst),
}

/// The physical code of one function (or of the runtime).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct PFunction {
    pub name: String,
    pub items: Vec<Item>,
    /// Label names for the listing.
    pub label_names: Vec<(Label, String)>,
}

impl PFunction {
    pub fn label(&mut self, l: Label) {
        self.items.push(Item::Label(l));
    }

    pub fn inst(&mut self, instr: Instr, effects: Vec<Effect>) {
        self.items.push(Item::Inst(PInst {
            instr: Some(instr),
            target: None,
            effects,
            trusted: false,
        }));
    }

    pub fn trusted(&mut self, instr: Instr) {
        self.items.push(Item::Inst(PInst {
            instr: Some(instr),
            target: None,
            effects: Vec::new(),
            trusted: true,
        }));
    }

    pub fn branch(&mut self, instr: Instr, target: Label, effects: Vec<Effect>, trusted: bool) {
        self.items.push(Item::Inst(PInst {
            instr: Some(instr),
            target: Some(target),
            effects,
            trusted,
        }));
    }

    pub fn marker(&mut self, effects: Vec<Effect>) {
        if !effects.is_empty() {
            self.items.push(Item::Inst(PInst {
                instr: None,
                target: None,
                effects,
                trusted: true,
            }));
        }
    }

    /// Number of machine instructions.
    pub fn len(&self) -> usize {
        self.items
            .iter()
            .filter(|i| matches!(i, Item::Inst(p) if p.instr.is_some()))
            .count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
