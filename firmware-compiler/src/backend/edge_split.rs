//! Critical-edge splitting for block arguments, placed so that the layout's
//! reconvergence properties survive.
//!
//! Block arguments become parallel copies on the edges. An edge from a block
//! with two successors to a block with several incoming edges is *critical*:
//! the copies can go neither at the end of the source (they would run on
//! the other edge too) nor at the start of the target (they would run for
//! the other predecessors). Such an edge gets a new block holding the copies
//! and a jump. This runs on a copy of the IR function, before instruction
//! selection, so the result is still an IR function whose order can be
//! checked by the layout verifier.
//!
//! The code order is semantic on Concord (lanes reconverge at the lowest
//! PC), so a new block may only go where the layout properties still hold:
//! a topological order of the forward edges, every loop contiguous with its
//! header first, every loop-exit target after all blocks of its loop. The
//! rule used here:
//!
//! * **forward edge** `A -> B` (B later in the order): the new block goes
//!   immediately **before B**. It belongs to exactly the loops that contain
//!   both A and B, which all contain B and (B not being their header, or A
//!   would be outside them) B's predecessor in the order as well, so no loop
//!   run is broken; it is after A because B is; and when the edge leaves a
//!   loop, B comes after the whole loop, so the new block (the new exit
//!   target) does too.
//! * **back edge** `A -> H` (H no later than A, so H heads a loop containing
//!   A): the new block goes immediately **after the last block of H's
//!   loop**. It belongs to that loop (and its parents), so the run stays
//!   contiguous; it comes after every inner loop that A may be leaving; the
//!   new block's jump to H is the back edge now.
//!
//! Placing the block right after A would be wrong in general: when A ends an
//! inner loop's run but the edge leaves that inner loop, the new block would
//! be an exit target inside the loop's run.

use crate::dominator_tree::DominatorTree;
use crate::flowgraph::ControlFlowGraph;
use crate::ir::{Block, BlockCall, Function, InstData};
use crate::loop_analysis::LoopAnalysis;

/// Splits every critical edge that carries block arguments. Returns the
/// number of blocks added.
pub fn split_critical_edges(func: &mut Function) -> usize {
    // Incoming edges per block, duplicates counted (`brif v, b1, b1` is two
    // edges into b1).
    let mut incoming = vec![0usize; func.blocks.len()];
    for &b in &func.layout {
        for t in func.successors(b) {
            if let Some(n) = incoming.get_mut(t.index()) {
                *n += 1;
            }
        }
    }
    let cfg = ControlFlowGraph::compute(func);
    let domtree = DominatorTree::compute(func, &cfg);
    let loops = LoopAnalysis::compute(func, &cfg, &domtree);

    // Collect the edges first: (source, which destination, target).
    let mut edges = Vec::new();
    for &a in &func.layout {
        let Some(term) = func.terminator(a) else {
            continue;
        };
        if let InstData::Brif {
            then_dest,
            else_dest,
            ..
        } = func.inst(term)
        {
            for (which, dest) in [then_dest, else_dest].into_iter().enumerate() {
                let many_in = incoming.get(dest.block.index()).copied().unwrap_or(0) > 1;
                if !dest.args.is_empty() && many_in {
                    edges.push((a, term, which, dest.block));
                }
            }
        }
    }

    let position = |func: &Function, b: Block| func.layout.iter().position(|&x| x == b);
    let mut added = 0;
    for (a, term, which, target) in edges {
        let (Some(pa), Some(pt)) = (position(func, a), position(func, target)) else {
            continue;
        };
        let new_block = func.create_block();
        // Move the arguments to the new block's jump.
        let args = match func.inst_mut(term) {
            InstData::Brif {
                then_dest,
                else_dest,
                ..
            } => {
                let dest = if which == 0 { then_dest } else { else_dest };
                dest.block = new_block;
                std::mem::take(&mut dest.args)
            }
            _ => Vec::new(),
        };
        func.append_inst(
            new_block,
            InstData::Jump {
                dest: BlockCall {
                    block: target,
                    args,
                },
            },
            None,
        );
        let at = if pt > pa {
            // Forward edge: right before the target.
            pt
        } else {
            // Back edge: right after the last block of the target's loop.
            let loop_blocks = loops
                .loops()
                .iter()
                .find(|l| l.header == target)
                .map(|l| l.blocks.clone())
                .unwrap_or_else(|| vec![a]);
            let last = loop_blocks
                .iter()
                .filter_map(|&b| position(func, b))
                .max()
                .unwrap_or(pa);
            last + 1
        };
        func.layout.insert(at, new_block);
        added += 1;
    }
    added
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{FuncKind, Type};
    use concord_isa::instr::Cmp;

    /// `block0 -> block1(loop header) -> block2 (latch, brif back / exit)`:
    /// the back edge carries an argument and the header has two incoming
    /// edges, so it is split and placed after the loop's last block.
    #[test]
    fn back_edge_split_goes_after_the_loop() {
        let mut f = Function::new("k", FuncKind::Kernel);
        let b0 = f.add_block();
        let b1 = f.add_block();
        let b2 = f.add_block();
        let b3 = f.add_block();
        let zero = f.append_inst(b0, InstData::Iconst { imm: 0 }, Some(Type::I32));
        let zero = f.inst_result(zero).unwrap();
        f.append_inst(
            b0,
            InstData::Jump {
                dest: BlockCall {
                    block: b1,
                    args: vec![zero],
                },
            },
            None,
        );
        let i = f.add_block_param(b1, Type::I32);
        f.append_inst(
            b1,
            InstData::Jump {
                dest: BlockCall::new(b2),
            },
            None,
        );
        let c = f.append_inst(
            b2,
            InstData::Icmp {
                cmp: Cmp::Lt,
                args: [i, zero],
            },
            Some(Type::I1),
        );
        let c = f.inst_result(c).unwrap();
        f.append_inst(
            b2,
            InstData::Brif {
                cond: c,
                then_dest: BlockCall {
                    block: b1,
                    args: vec![i],
                },
                else_dest: BlockCall::new(b3),
            },
            None,
        );
        f.append_inst(b3, InstData::Return { value: None }, None);
        assert_eq!(split_critical_edges(&mut f), 1);
        let s = Block(4);
        assert_eq!(f.layout, vec![b0, b1, b2, s, b3]);
        assert_eq!(f.successors(b2), vec![s, b3]);
        assert_eq!(f.successors(s), vec![b1]);
    }
}
