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
//!   loop, counting the blocks already added to it** (the split latches of
//!   its inner loops in particular). It belongs to that loop (and its
//!   parents) and to no inner loop, so it must follow every block of the
//!   inner loops: when H's loop and an inner loop end at the same block,
//!   putting it right after that original block would land it before the
//!   inner loop's own split latch and cut the inner loop's run in two. It
//!   comes after every inner loop that A may be leaving; the new block's
//!   jump to H is the back edge now.
//!
//! To know what a loop holds, the innermost loop of every added block is
//! recorded: a back-edge block is in H's loop; a forward-edge block is in
//! the loops of B other than the one B heads (an edge entering a loop
//! comes from outside it).
//!
//! Placing the block right after A would be wrong in general: when A ends an
//! inner loop's run but the edge leaves that inner loop, the new block would
//! be an exit target inside the loop's run.

use crate::dominator_tree::DominatorTree;
use crate::flowgraph::ControlFlowGraph;
use crate::ir::{Block, BlockCall, Function, InstData};
use crate::loop_analysis::{LoopAnalysis, LoopId};

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

    // The innermost loop of every block, kept up to date for the added
    // blocks: a back-edge block must go after everything its loop holds,
    // including blocks added for the loop's inner loops.
    let mut innermost: Vec<Option<LoopId>> = (0..func.blocks.len())
        .map(|i| loops.innermost(Block(i as u32)))
        .collect();
    let loop_headed_by = |h: Block| {
        loops
            .loops()
            .iter()
            .position(|l| l.header == h)
            .map(|i| LoopId(i as u32))
    };
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
        let target_loop = innermost.get(target.index()).copied().flatten();
        let (at, new_loop) = match loop_headed_by(target).filter(|_| pt <= pa) {
            // Back edge: after every block of the target's loop, added
            // ones included; the new block is the loop's latch.
            Some(l) => {
                let last = func
                    .layout
                    .iter()
                    .rposition(|b| {
                        innermost
                            .get(b.index())
                            .copied()
                            .flatten()
                            .is_some_and(|inner| loops.loop_contains(l, inner))
                    })
                    .unwrap_or(pa);
                (last + 1, Some(l))
            }
            // Forward edge (or a back edge of a layout that is not valid
            // anyway): right before the target, in the loops of the
            // target other than the one it heads (an entering edge comes
            // from outside that loop).
            None => {
                let new_loop = match target_loop {
                    Some(l) if loops.get(l).header == target => loops.get(l).parent,
                    other => other,
                };
                (pt, new_loop)
            }
        };
        func.layout.insert(at, new_block);
        if innermost.len() <= new_block.index() {
            innermost.resize(new_block.index() + 1, None);
        }
        innermost[new_block.index()] = new_loop;
        added += 1;
    }
    added
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{FuncKind, Type};
    use concord_isa::instr::Cmp;

    /// Parses a one-function module, splits its edges (checking that the
    /// input layout verifies and the output still does) and returns the
    /// new layout as block numbers.
    fn split_text(text: &str) -> Vec<u32> {
        let module = crate::ir::parse_module(text, "t.cir").expect("parses");
        let mut f = module.funcs[0].clone();
        crate::layout_verify::verify_layout(&f).expect("input layout");
        split_critical_edges(&mut f);
        if let Err(e) = crate::layout_verify::verify_layout(&f) {
            panic!("{e}; layout {:?}", f.layout);
        }
        f.layout.iter().map(|b| b.0).collect()
    }

    /// Block 3 is the last block of both loops and branches back to both
    /// headers with arguments. The inner back edge's block (6) belongs to
    /// the inner loop, so the outer back edge's block (7) must come after
    /// it, not right after block 3.
    #[test]
    fn latch_of_two_loops_keeps_the_inner_loop_contiguous() {
        let order = split_text(
            "kernel @k() {
block0:
    v0 = iconst 0
    jump block1(v0)
block1(v1: i32):
    v2 = icmp lt v1, v0
    brif v2, block2(v1), block4
block2(v3: i32):
    jump block3
block3:
    v4 = icmp lt v3, v0
    brif v4, block2(v3), block1(v3)
block4:
    return
}",
        );
        // 1->2 (forward, before 2): 5; 3->2 (back): 6; 3->1 (back): 7.
        assert_eq!(order, vec![0, 1, 5, 2, 3, 6, 7, 4]);
    }

    /// An outer `continue` from the middle of an inner loop whose latch
    /// also ends the outer loop: the outer back edges' blocks go after the
    /// inner loop's split latch, the later one included.
    #[test]
    fn continue_from_an_inner_loop_goes_after_its_latch_block() {
        let order = split_text(
            "kernel @k() {
block0:
    v0 = iconst 0
    jump block1(v0)
block1(v1: i32):
    v2 = icmp lt v1, v0
    brif v2, block2(v1), block4
block2(v3: i32):
    v4 = icmp eq v3, v0
    brif v4, block1(v3), block3
block3:
    v5 = icmp lt v3, v0
    brif v5, block2(v3), block1(v0)
block4:
    return
}",
        );
        // 1->2 forward: 5 before 2; 2->1 back: 6 after block 3; 3->2
        // back: 7 after block 3 (inner loop); 3->1 back: 8 after 6.
        assert_eq!(order, vec![0, 1, 5, 2, 3, 7, 6, 8, 4]);
    }

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
