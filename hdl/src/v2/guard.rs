//! Predicate-mask selection of stage D (`docs/microarchitecture.md` §7):
//! from the warp's predicate bank (`(P−1)·L` bits, registered at the end of
//! F: predicate `p` (1..P) of lane `l` at bit `(p−1)·L + l`), the mask of
//! one predicate operand, `pt` reading all ones and `!p` the complement.
//! Used three times by [`super::decode::Decode`]: the guard (`exec =
//! active & guard`) and predicate sources A and B.
//!
//! The selection is a one-hot AND-OR over the `P−1` bank slices (each
//! slice ORed in when its index matches), never a chain of `if`s; an index
//! at or above `P` reads false (its `!` form all ones).

use rust_hdl_core::prelude::*;

/// Width of a predicate index (`concord_isa` `PD`/`PA`/`PB` fields).
pub const PRED_IDX_BITS: usize = concord_isa::encoding::field::PD.1 as usize;

/// The mask of predicate operand `(idx, neg)` for `L` lanes from a bank of
/// `PB = (P−1)·L` bits. Combinational.
#[derive(LogicBlock)]
pub struct PredSel<const L: usize, const PB: usize> {
    pub bank: Signal<In, Bits<PB>>,
    pub idx: Signal<In, Bits<PRED_IDX_BITS>>,
    pub neg: Signal<In, bool>,
    pub mask: Signal<Out, Bits<L>>,
    sel: Signal<Local, Bits<L>>,
    zero: Constant<Bits<L>>,
    ones: Constant<Bits<L>>,
    pt: Constant<Bits<PRED_IDX_BITS>>,
    /// Index of bank slice `k` (`k + 1`) and its lowest bit (`k·L`).
    pidx: Vec<Constant<Bits<PRED_IDX_BITS>>>,
    off: Vec<Constant<Bits<32>>>,
    _np: usize,
}

impl<const L: usize, const PB: usize> PredSel<L, PB> {
    /// `predicates` = `P` (`pt` included), 2..=8; `PB` must be `(P−1)·L`.
    pub fn new(predicates: usize) -> Self {
        assert!((2..=1 << PRED_IDX_BITS).contains(&predicates));
        assert_eq!(PB, (predicates - 1) * L, "bank width (P-1)*L");
        let np = predicates - 1;
        PredSel {
            bank: Default::default(),
            idx: Default::default(),
            neg: Default::default(),
            mask: Default::default(),
            sel: Default::default(),
            zero: Constant::new(0u64.into()),
            ones: Constant::new(Bits::<L>::mask()),
            pt: Constant::new(0u64.into()),
            pidx: (0..np)
                .map(|k| Constant::new(((k + 1) as u64).into()))
                .collect(),
            off: (0..np)
                .map(|k| Constant::new(((k * L) as u64).into()))
                .collect(),
            _np: np,
        }
    }
}

impl<const L: usize, const PB: usize> Logic for PredSel<L, PB> {
    #[hdl_gen]
    fn update(&mut self) {
        self.sel.next = self.zero.val();
        if self.idx.val() == self.pt.val() {
            self.sel.next = self.ones.val();
        }
        for k in 0..self._np {
            if self.idx.val() == self.pidx[k].val() {
                self.sel.next =
                    self.sel.val() | self.bank.val().get_bits::<L>(self.off[k].val().index());
            }
        }
        self.mask.next = self.sel.val();
        if self.neg.val() {
            self.mask.next = !self.sel.val();
        }
    }
}
