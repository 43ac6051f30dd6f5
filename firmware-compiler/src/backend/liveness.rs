//! Liveness of virtual registers and their live intervals.
//!
//! Backward data flow over the MIR blocks (iterated to a fixed point, so
//! loops are handled), then a linear numbering of the instructions in code
//! order: instruction *k* reads its operands at position `2k` and writes
//! its results at `2k + 1` (the ISA reads before it writes, so a source and
//! the destination of one instruction may share a register).
//!
//! A guarded (partial) definition does not kill: lanes whose guard is false
//! keep the old value, so the old value is live into the instruction
//! ([`MInst::uses`] lists the destination of a guarded instruction).
//!
//! The interval of a register is the hull `[first, last]` of all positions
//! where it is defined, used or live across a block boundary. The hull is
//! conservative (holes are filled) but sound: two registers whose hulls do
//! not overlap are never live at the same point.

use super::mir::{MBlock, MFunction, MInst, VReg};

/// A set of virtual registers (by index), stored as a sorted list: the
/// live sets of a function with thousands of blocks are mostly small, and
/// a dense bit set per block would make liveness quadratic in memory.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct VRegSet {
    items: Vec<u32>,
}

impl VRegSet {
    pub fn insert(&mut self, i: usize) {
        if let Err(k) = self.items.binary_search(&(i as u32)) {
            self.items.insert(k, i as u32);
        }
    }
    pub fn remove(&mut self, i: usize) {
        if let Ok(k) = self.items.binary_search(&(i as u32)) {
            self.items.remove(k);
        }
    }
    pub fn contains(&self, i: usize) -> bool {
        self.items.binary_search(&(i as u32)).is_ok()
    }
    /// `self |= other`; whether anything changed.
    pub fn union_with(&mut self, other: &VRegSet) -> bool {
        if other
            .items
            .iter()
            .all(|v| self.items.binary_search(v).is_ok())
        {
            return false;
        }
        let mut merged = Vec::with_capacity(self.items.len() + other.items.len());
        let (mut a, mut b) = (self.items.iter().peekable(), other.items.iter().peekable());
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(&&x), Some(&&y)) if x < y => a.next(),
                (Some(&&x), Some(&&y)) if y < x => b.next(),
                (Some(_), Some(_)) => {
                    b.next();
                    a.next()
                }
                (Some(_), None) => a.next(),
                (None, Some(_)) => b.next(),
                (None, None) => break,
            };
            merged.extend(next);
        }
        self.items = merged;
        true
    }
    /// `self - other`.
    pub fn difference(&self, other: &VRegSet) -> VRegSet {
        VRegSet {
            items: self
                .items
                .iter()
                .copied()
                .filter(|v| other.items.binary_search(v).is_err())
                .collect(),
        }
    }
    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    /// The members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.items.iter().map(|&v| v as usize)
    }
}

/// A live interval in instruction positions, both ends included.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Interval {
    pub start: u32,
    pub end: u32,
}

impl Interval {
    pub fn overlaps(&self, other: &Interval) -> bool {
        self.start <= other.end && other.start <= self.end
    }
    /// Whether the register holds a value before instruction `k` that is
    /// still needed after it.
    pub fn crosses(&self, k: u32) -> bool {
        self.start <= 2 * k && self.end > 2 * k + 1
    }
}

/// Liveness results for one function.
#[derive(Clone, Debug)]
pub struct Liveness {
    pub live_in: Vec<VRegSet>,
    pub live_out: Vec<VRegSet>,
    /// Linear index of the first instruction of each block (one past the
    /// end for the last entry).
    pub block_start: Vec<u32>,
    /// Hull interval of each virtual register (`None`: never appears).
    pub intervals: Vec<Option<Interval>>,
}

impl Liveness {
    pub fn compute(mf: &MFunction) -> Liveness {
        let n = mf.num_vregs();
        let nb = mf.blocks.len();
        let mut gen = Vec::with_capacity(nb);
        let mut kill = Vec::with_capacity(nb);
        // Scratch marks over all registers, reset after each block: the
        // per-block sets are then built in time linear in the block.
        let mut mark = vec![0u8; n];
        const GEN: u8 = 1;
        const KILL: u8 = 2;
        for block in &mf.blocks {
            // Walk backwards: a use makes the register live, a full
            // definition kills it.
            let mut touched = Vec::new();
            for inst in block.insts.iter().rev() {
                if !inst.is_partial_def() {
                    for d in inst.defs() {
                        touched.push(d.0);
                        mark[d.index()] = (mark[d.index()] & !GEN) | KILL;
                    }
                }
                for u in inst.uses() {
                    touched.push(u.0);
                    mark[u.index()] |= GEN;
                }
            }
            touched.sort_unstable();
            touched.dedup();
            let (mut g, mut k) = (Vec::new(), Vec::new());
            for &v in &touched {
                let m = std::mem::take(&mut mark[v as usize]);
                if m & GEN != 0 {
                    g.push(v);
                }
                if m & KILL != 0 {
                    k.push(v);
                }
            }
            gen.push(VRegSet { items: g });
            kill.push(VRegSet { items: k });
        }
        let succs: Vec<Vec<MBlock>> = (0..nb).map(|b| mf.succs(MBlock(b as u32))).collect();
        let mut live_in = gen.clone();
        let mut live_out = vec![VRegSet::default(); nb];
        let mut changed = true;
        while changed {
            changed = false;
            for b in (0..nb).rev() {
                for s in &succs[b] {
                    let s_in = live_in[s.index()].clone();
                    live_out[b].union_with(&s_in);
                }
                // in = gen | (out - kill)
                let mut new_in = live_out[b].difference(&kill[b]);
                new_in.union_with(&gen[b]);
                if new_in != live_in[b] {
                    live_in[b] = new_in;
                    changed = true;
                }
            }
        }

        let mut block_start = Vec::with_capacity(nb + 1);
        let mut k = 0u32;
        for block in &mf.blocks {
            block_start.push(k);
            k += block.insts.len() as u32;
        }
        block_start.push(k);

        let mut intervals: Vec<Option<Interval>> = vec![None; n];
        let mut extend = |v: usize, pos: u32| {
            let iv = intervals[v].get_or_insert(Interval {
                start: pos,
                end: pos,
            });
            iv.start = iv.start.min(pos);
            iv.end = iv.end.max(pos);
        };
        for (b, block) in mf.blocks.iter().enumerate() {
            let first = block_start[b];
            let last = block_start[b + 1];
            for v in live_in[b].iter() {
                extend(v, 2 * first);
            }
            for v in live_out[b].iter() {
                // Live out: through the end of the block's last instruction.
                extend(v, (2 * last).saturating_sub(1).max(2 * first));
            }
            for (i, inst) in block.insts.iter().enumerate() {
                let pos = first + i as u32;
                for u in inst.uses() {
                    extend(u.index(), 2 * pos);
                }
                for d in inst.defs() {
                    extend(d.index(), 2 * pos + 1);
                }
            }
        }
        Liveness {
            live_in,
            live_out,
            block_start,
            intervals,
        }
    }

    pub fn interval(&self, v: VReg) -> Option<Interval> {
        self.intervals.get(v.index()).copied().flatten()
    }
}

/// Linear index of each instruction, in code order, with the instruction.
pub fn numbered(mf: &MFunction) -> impl Iterator<Item = (u32, &MInst)> + '_ {
    mf.blocks
        .iter()
        .flat_map(|b| b.insts.iter())
        .enumerate()
        .map(|(k, i)| (k as u32, i))
}

/// Deletes pure instructions whose results are never read (constants that
/// ended up as immediates, unused results), until none is left.
pub fn remove_dead_code(mf: &mut MFunction) {
    loop {
        let mut used = vec![false; mf.num_vregs()];
        for b in &mf.blocks {
            for i in &b.insts {
                for u in i.op_uses() {
                    used[u.index()] = true;
                }
                if let Some(g) = i.guard {
                    used[g.pred.index()] = true;
                }
            }
        }
        let mut removed = false;
        for b in &mut mf.blocks {
            b.insts.retain(|i| {
                let dead = i.is_pure() && i.defs().iter().all(|d| !used[d.index()]);
                removed |= dead;
                !dead
            });
        }
        if !removed {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::mir::{MBlockData, MFunction, MInst, MOp, RegClass, VGuard};
    use super::*;
    use crate::ir::FuncId;
    use concord_isa::instr::{AluOp, Cmp};

    fn func(blocks: Vec<Vec<MInst>>, classes: Vec<RegClass>) -> MFunction {
        MFunction {
            name: "t".into(),
            func: FuncId(0),
            is_kernel: true,
            classes,
            blocks: blocks
                .into_iter()
                .map(|insts| MBlockData {
                    name: String::new(),
                    insts,
                })
                .collect(),
            divides: false,
        }
    }

    /// A value defined before a loop and used inside it stays live through
    /// the loop's last instruction (the back edge).
    #[test]
    fn loop_carried_liveness() {
        let (a, i, p) = (VReg(0), VReg(1), VReg(2));
        let f = func(
            vec![
                vec![
                    MInst::new(MOp::Li { rd: a, imm: 5 }),
                    MInst::new(MOp::Li { rd: i, imm: 0 }),
                ],
                vec![
                    MInst::new(MOp::Alu {
                        op: AluOp::Add,
                        rd: i,
                        rs1: i,
                        rs2: a,
                    }),
                    MInst::new(MOp::SetPImm {
                        cmp: Cmp::Lt,
                        pd: p,
                        rs1: i,
                        imm: 100,
                    }),
                    MInst::guarded(
                        VGuard {
                            pred: p,
                            negate: false,
                        },
                        MOp::Bra { target: MBlock(1) },
                    ),
                ],
                vec![MInst::new(MOp::Exit)],
            ],
            vec![RegClass::Gpr, RegClass::Gpr, RegClass::Pred],
        );
        let l = Liveness::compute(&f);
        assert!(l.live_in[1].contains(0) && l.live_out[1].contains(0));
        assert!(!l.live_in[2].contains(0));
        // a: defined at inst 0 (pos 1), live to the end of block 1 (inst 4, pos 9).
        assert_eq!(l.interval(a), Some(Interval { start: 1, end: 9 }));
        assert_eq!(l.interval(p), Some(Interval { start: 7, end: 8 }));
    }

    /// A guarded definition keeps the old value live.
    #[test]
    fn partial_definition_does_not_kill() {
        let (g, p) = (VReg(0), VReg(1));
        let f = func(
            vec![vec![
                MInst::guarded(
                    VGuard {
                        pred: p,
                        negate: false,
                    },
                    MOp::Li { rd: g, imm: 1 },
                ),
                MInst::new(MOp::Exit),
            ]],
            vec![RegClass::Gpr, RegClass::Pred],
        );
        let l = Liveness::compute(&f);
        assert!(l.live_in[0].contains(0));
    }
}
