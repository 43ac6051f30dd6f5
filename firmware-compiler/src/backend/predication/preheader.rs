//! Dedicated loop preheaders ("landing pads", Lee §III-A).
//!
//! A predicated loop initialises its loop mask and exit masks in a block
//! that every lane entering the loop passes exactly once: a block that
//! ends with a jump to the header and is the header's only predecessor
//! outside the loop. This gives every loop one, before edge splitting: a
//! new block takes the header's parameters, the outside edges go to it
//! with their arguments, and it jumps to the header. It is placed right
//! before the header, which keeps a valid min-PC layout valid (it belongs
//! to the loops around the header's loop, like the block before it).

use crate::flowgraph::ControlFlowGraph;
use crate::ir::{Block, BlockCall, Function, InstData};
use crate::loop_analysis::LoopAnalysis;

/// Gives every loop of `func` a dedicated preheader; returns how many
/// blocks were added.
pub fn insert_preheaders(func: &mut Function) -> usize {
    let mut added = 0;
    // One loop at a time: each insertion changes the CFG.
    loop {
        let cfg = ControlFlowGraph::compute(func);
        let domtree = crate::dominator_tree::DominatorTree::compute(func, &cfg);
        let loops = LoopAnalysis::compute(func, &cfg, &domtree);
        if loops.is_irreducible() {
            return added;
        }
        let needing = loops.loops().iter().find_map(|l| {
            let outside: Vec<Block> = cfg
                .preds(l.header)
                .iter()
                .copied()
                .filter(|p| !l.contains(*p))
                .collect();
            // One edge, not just one successor: a branch whose two arms
            // both enter the header (with different arguments) gets two
            // blocks from edge splitting.
            let one_edge = |p: Block| {
                func.terminator(p)
                    .is_some_and(|t| matches!(func.inst(t), InstData::Jump { .. }))
            };
            let dedicated = outside.len() == 1 && one_edge(outside[0]);
            (!dedicated).then_some((l.header, outside))
        });
        let Some((header, outside)) = needing else {
            return added;
        };
        let pre = func.create_block();
        let types: Vec<_> = func
            .block(header)
            .params
            .iter()
            .map(|&p| func.value_type(p))
            .collect();
        let params: Vec<_> = types
            .into_iter()
            .map(|ty| func.add_block_param(pre, ty))
            .collect();
        func.append_inst(
            pre,
            InstData::Jump {
                dest: BlockCall {
                    block: header,
                    args: params,
                },
            },
            None,
        );
        for p in outside {
            let Some(term) = func.terminator(p) else {
                continue;
            };
            match func.inst_mut(term) {
                InstData::Jump { dest } if dest.block == header => dest.block = pre,
                InstData::Brif {
                    then_dest,
                    else_dest,
                    ..
                } => {
                    for d in [then_dest, else_dest] {
                        if d.block == header {
                            d.block = pre;
                        }
                    }
                }
                _ => {}
            }
        }
        let at = func
            .layout
            .iter()
            .position(|&b| b == header)
            .unwrap_or(func.layout.len());
        func.layout.insert(at, pre);
        added += 1;
    }
}
