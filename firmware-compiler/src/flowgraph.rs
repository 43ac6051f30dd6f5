//! The control-flow graph of a function: predecessor and successor lists of
//! every laid-out block.
//!
//! This is the first analysis every other one builds on (dominators, loops,
//! divergence, layout). It is a snapshot: a pass that edits branches must
//! recompute it.
//!
//! Only laid-out blocks take part. An edge to a block that is not laid out
//! (or does not exist) is left out here; the verifier reports it. Edges are
//! deduplicated: `brif v0, block1, block1` gives one edge `block0 -> block1`,
//! since the analyses care about reachability, not about how many branch
//! operands name the target.

use crate::ir::{Block, Function};

/// Predecessors and successors of each block, indexed by block number.
#[derive(Clone, Debug, Default)]
pub struct ControlFlowGraph {
    preds: Vec<Vec<Block>>,
    succs: Vec<Vec<Block>>,
}

impl ControlFlowGraph {
    pub fn compute(func: &Function) -> ControlFlowGraph {
        let n = func.blocks.len();
        let mut laid_out = vec![false; n];
        for &b in &func.layout {
            if let Some(slot) = laid_out.get_mut(b.index()) {
                *slot = true;
            }
        }
        let mut preds = vec![Vec::new(); n];
        let mut succs: Vec<Vec<Block>> = vec![Vec::new(); n];
        for &b in &func.layout {
            if !laid_out.get(b.index()).copied().unwrap_or(false) || !succs[b.index()].is_empty() {
                // Out of range, or a block laid out twice (already handled).
                continue;
            }
            let Some(term) = terminator(func, b) else {
                continue;
            };
            for call in func.inst(term).branch_targets() {
                let t = call.block;
                if !laid_out.get(t.index()).copied().unwrap_or(false) {
                    continue;
                }
                if !succs[b.index()].contains(&t) {
                    succs[b.index()].push(t);
                    preds[t.index()].push(b);
                }
            }
        }
        ControlFlowGraph { preds, succs }
    }

    /// The predecessors of `b`, each once, in layout order of the branching
    /// block. Empty for blocks that are not laid out.
    pub fn preds(&self, b: Block) -> &[Block] {
        self.preds.get(b.index()).map_or(&[], Vec::as_slice)
    }

    /// The successors of `b`, each once, in branch order (`then` before
    /// `else`). Empty for blocks that are not laid out.
    pub fn succs(&self, b: Block) -> &[Block] {
        self.succs.get(b.index()).map_or(&[], Vec::as_slice)
    }

    /// The number of block slots (the function's block arena length).
    pub fn num_blocks(&self) -> usize {
        self.succs.len()
    }
}

/// The terminator of `b`, tolerating out-of-range instruction numbers (the
/// analyses run on unverified functions too, e.g. inside the verifier).
fn terminator(func: &Function, b: Block) -> Option<crate::ir::Inst> {
    let last = *func.blocks.get(b.index())?.insts.last()?;
    let node = func.insts.get(last.index())?;
    node.data.is_terminator().then_some(last)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::ir::{BlockCall, FuncKind, InstData, Type};

    /// Builds a kernel whose blocks `block0..blockN` branch as `edges` says:
    /// no successor -> `return`, one -> `jump`, two -> `brif` on a constant.
    pub(crate) fn function_from_edges(num_blocks: usize, edges: &[(u32, u32)]) -> Function {
        let mut f = Function::new("t", FuncKind::Kernel);
        let blocks: Vec<Block> = (0..num_blocks).map(|_| f.add_block()).collect();
        for &b in &blocks {
            let targets: Vec<Block> = edges
                .iter()
                .filter(|e| e.0 == b.0)
                .map(|e| Block(e.1))
                .collect();
            match targets.as_slice() {
                [] => {
                    f.append_inst(b, InstData::Return { value: None }, None);
                }
                [t] => {
                    f.append_inst(
                        b,
                        InstData::Jump {
                            dest: BlockCall::new(*t),
                        },
                        None,
                    );
                }
                [t, e] => {
                    let c = f.append_inst(b, InstData::Bconst { imm: true }, Some(Type::I1));
                    let cond = f.inst_result(c).unwrap();
                    f.append_inst(
                        b,
                        InstData::Brif {
                            cond,
                            then_dest: BlockCall::new(*t),
                            else_dest: BlockCall::new(*e),
                        },
                        None,
                    );
                }
                _ => panic!("at most two successors per block"),
            }
        }
        f
    }

    #[test]
    fn diamond() {
        let f = function_from_edges(4, &[(0, 1), (0, 2), (1, 3), (2, 3)]);
        let cfg = ControlFlowGraph::compute(&f);
        assert_eq!(cfg.succs(Block(0)), &[Block(1), Block(2)]);
        assert_eq!(cfg.preds(Block(3)), &[Block(1), Block(2)]);
        assert_eq!(cfg.preds(Block(0)), &[] as &[Block]);
        assert_eq!(cfg.succs(Block(3)), &[] as &[Block]);
    }

    #[test]
    fn duplicate_targets_give_one_edge() {
        let f = function_from_edges(2, &[(0, 1), (0, 1)]);
        let cfg = ControlFlowGraph::compute(&f);
        assert_eq!(cfg.succs(Block(0)), &[Block(1)]);
        assert_eq!(cfg.preds(Block(1)), &[Block(0)]);
    }

    #[test]
    fn blocks_not_laid_out_are_ignored() {
        let mut f = function_from_edges(3, &[(0, 1), (0, 2)]);
        f.layout.retain(|&b| b != Block(2));
        let cfg = ControlFlowGraph::compute(&f);
        assert_eq!(cfg.succs(Block(0)), &[Block(1)]);
        assert_eq!(cfg.preds(Block(2)), &[] as &[Block]);
        assert_eq!(cfg.succs(Block(99)), &[] as &[Block]);
    }
}
