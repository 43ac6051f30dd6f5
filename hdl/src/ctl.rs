//! Small combinational blocks of the core's control: predicate evaluation,
//! the warp-uniform values written to registers, and the memory-access
//! limits. They are blocks of their own (rather than expressions inside the
//! core) so that the core can feed their outputs to the lanes directly: an
//! input of a lane never depends on a value the core computes in the same
//! always block as it reads lane outputs (see `core.rs`).

use concord_isa::encoding::{VOTE_ALL, VOTE_ANY};
use concord_isa::instr::{Consensus, PredOp, SpecialReg, MAX_PARAM_WORDS};
use rust_hdl_core::prelude::*;

fn pos<T: PartialEq>(all: &[T], x: T) -> u64 {
    all.iter().position(|y| *y == x).unwrap() as u64
}

/// Predicate evaluation for the current instruction of warp `cur`.
#[derive(LogicBlock)]
pub struct PredCtl {
    pub gmask: Signal<In, Bits<32>>,
    pub exec: Signal<In, Bits<32>>,
    pub pm_g: Signal<In, Bits<32>>,
    pub pm_a: Signal<In, Bits<32>>,
    pub pm_b: Signal<In, Bits<32>>,
    pub gneg: Signal<In, bool>,
    pub pa_neg: Signal<In, bool>,
    pub pb_neg: Signal<In, bool>,
    pub func: Signal<In, Bits<4>>,
    /// `gmask & guard`: the executing lanes of an issue.
    pub exec_new: Signal<Out, Bits<32>>,
    /// Predicate source B with its negation applied.
    pub pmb: Signal<Out, Bits<32>>,
    /// `pand` / `por` / `pxor` of the two sources.
    pub plogic: Signal<Out, Bits<32>>,
    /// Consensual branch taken (`semantics::consensus_taken`, voters = `exec`).
    pub taken: Signal<Out, bool>,
    /// `vote.any` / `vote.all` result, all ones or all zeros.
    pub vote: Signal<Out, Bits<32>>,
    /// `vote.ballot`: the voters whose predicate holds.
    pub ballot: Signal<Out, Bits<32>>,
    pma: Signal<Local, Bits<32>>,
    yes: Signal<Local, Bits<32>>,
    p_and: Constant<Bits<4>>,
    p_or: Constant<Bits<4>>,
    c_none: Constant<Bits<4>>,
    c_any: Constant<Bits<4>>,
    c_all: Constant<Bits<4>>,
    v_any: Constant<Bits<4>>,
    v_all: Constant<Bits<4>>,
    ones: Constant<Bits<32>>,
    zero: Constant<Bits<32>>,
}

impl Default for PredCtl {
    fn default() -> Self {
        Self::new()
    }
}

impl PredCtl {
    pub fn new() -> Self {
        let k = |v: u64| Constant::new(v.into());
        PredCtl {
            gmask: Default::default(),
            exec: Default::default(),
            pm_g: Default::default(),
            pm_a: Default::default(),
            pm_b: Default::default(),
            gneg: Default::default(),
            pa_neg: Default::default(),
            pb_neg: Default::default(),
            func: Default::default(),
            exec_new: Default::default(),
            pmb: Default::default(),
            plogic: Default::default(),
            taken: Default::default(),
            vote: Default::default(),
            ballot: Default::default(),
            pma: Default::default(),
            yes: Default::default(),
            p_and: k(pos(&PredOp::ALL, PredOp::And)),
            p_or: k(pos(&PredOp::ALL, PredOp::Or)),
            c_none: k(pos(&Consensus::ALL, Consensus::None)),
            c_any: k(pos(&Consensus::ALL, Consensus::Any)),
            c_all: k(pos(&Consensus::ALL, Consensus::All)),
            v_any: k(VOTE_ANY as u64),
            v_all: k(VOTE_ALL as u64),
            ones: Constant::new(0xffff_ffffu64.into()),
            zero: Constant::new(0u64.into()),
        }
    }
}

impl Logic for PredCtl {
    #[hdl_gen]
    fn update(&mut self) {
        self.exec_new.next = self.gmask.val() & self.pm_g.val();
        if self.gneg.val() {
            self.exec_new.next = self.gmask.val() & !self.pm_g.val();
        }
        self.pma.next = self.pm_a.val();
        if self.pa_neg.val() {
            self.pma.next = !self.pm_a.val();
        }
        self.pmb.next = self.pm_b.val();
        if self.pb_neg.val() {
            self.pmb.next = !self.pm_b.val();
        }
        // PredOp::Xor is the remaining function code.
        self.plogic.next = self.pma.val() ^ self.pmb.val();
        if self.func.val() == self.p_and.val() {
            self.plogic.next = self.pma.val() & self.pmb.val();
        }
        if self.func.val() == self.p_or.val() {
            self.plogic.next = self.pma.val() | self.pmb.val();
        }
        self.yes.next = self.exec.val() & self.pmb.val();
        self.taken.next = false;
        if self.func.val() == self.c_none.val() {
            self.taken.next = !self.yes.val().any();
        }
        if self.func.val() == self.c_any.val() {
            self.taken.next = self.yes.val().any();
        }
        if self.func.val() == self.c_all.val() {
            self.taken.next = self.yes.val() == self.exec.val();
        }
        self.vote.next = self.zero.val();
        if (self.func.val() == self.v_any.val()) && self.yes.val().any() {
            self.vote.next = self.ones.val();
        }
        if (self.func.val() == self.v_all.val()) && (self.yes.val() == self.exec.val()) {
            self.vote.next = self.ones.val();
        }
        self.ballot.next = self.yes.val();
    }
}

/// The warp-uniform value an instruction writes to `rd`: `movi` immediate,
/// kernel parameter, uniform special register, ballot mask, or the link
/// address of `call`/`callr`.
#[derive(LogicBlock)]
pub struct Bcast {
    pub k_ldparam: Signal<In, bool>,
    pub k_s2r: Signal<In, bool>,
    pub k_ballot: Signal<In, bool>,
    pub k_link: Signal<In, bool>,
    /// Decoder immediate: `movi` value, parameter index or special register code.
    pub imm: Signal<In, Bits<32>>,
    pub params: Vec<Signal<In, Bits<32>>>,
    pub ntid: [Signal<In, Bits<32>>; 3],
    pub ctaid: [Signal<In, Bits<32>>; 3],
    pub nctaid: [Signal<In, Bits<32>>; 3],
    pub warp_id: Signal<In, Bits<32>>,
    pub threads: Signal<In, Bits<32>>,
    pub clock_lo: Signal<In, Bits<32>>,
    pub clock_hi: Signal<In, Bits<32>>,
    pub link: Signal<In, Bits<32>>,
    pub ballot: Signal<In, Bits<32>>,
    pub out: Signal<Out, Bits<32>>,
    /// The special register named by `imm` differs between lanes (the lane computes it).
    pub lane_sreg: Signal<Out, bool>,
    sreg: Signal<Local, Bits<32>>,
    param: Signal<Local, Bits<32>>,
    s_ntid: [Constant<Bits<32>>; 3],
    s_ctaid: [Constant<Bits<32>>; 3],
    s_nctaid: [Constant<Bits<32>>; 3],
    s_warpid: Constant<Bits<32>>,
    s_nwarps: Constant<Bits<32>>,
    s_warpsize: Constant<Bits<32>>,
    s_clock: Constant<Bits<32>>,
    s_clockhi: Constant<Bits<32>>,
    s_tid: [Constant<Bits<32>>; 3],
    s_tidl: Constant<Bits<32>>,
    s_laneid: Constant<Bits<32>>,
    lanes: Constant<Bits<32>>,
    lanes_m1: Constant<Bits<32>>,
    lane_shift: Constant<Bits<32>>,
    _params: usize,
}

impl Bcast {
    pub fn new(lanes: usize) -> Self {
        let c = |v: u64| Constant::new(v.into());
        let s = |r: SpecialReg| Constant::new((r.code() as u64).into());
        Bcast {
            k_ldparam: Default::default(),
            k_s2r: Default::default(),
            k_ballot: Default::default(),
            k_link: Default::default(),
            imm: Default::default(),
            params: (0..MAX_PARAM_WORDS).map(|_| Default::default()).collect(),
            ntid: Default::default(),
            ctaid: Default::default(),
            nctaid: Default::default(),
            warp_id: Default::default(),
            threads: Default::default(),
            clock_lo: Default::default(),
            clock_hi: Default::default(),
            link: Default::default(),
            ballot: Default::default(),
            out: Default::default(),
            lane_sreg: Default::default(),
            sreg: Default::default(),
            param: Default::default(),
            s_ntid: [
                s(SpecialReg::NtidX),
                s(SpecialReg::NtidY),
                s(SpecialReg::NtidZ),
            ],
            s_ctaid: [
                s(SpecialReg::CtaidX),
                s(SpecialReg::CtaidY),
                s(SpecialReg::CtaidZ),
            ],
            s_nctaid: [
                s(SpecialReg::NctaidX),
                s(SpecialReg::NctaidY),
                s(SpecialReg::NctaidZ),
            ],
            s_warpid: s(SpecialReg::WarpId),
            s_nwarps: s(SpecialReg::NWarps),
            s_warpsize: s(SpecialReg::WarpSize),
            s_clock: s(SpecialReg::ClockLo),
            s_clockhi: s(SpecialReg::ClockHi),
            s_tid: [
                s(SpecialReg::TidX),
                s(SpecialReg::TidY),
                s(SpecialReg::TidZ),
            ],
            s_tidl: s(SpecialReg::TidLinear),
            s_laneid: s(SpecialReg::LaneId),
            lanes: c(lanes as u64),
            lanes_m1: c(lanes as u64 - 1),
            lane_shift: c(lanes.trailing_zeros() as u64),
            _params: MAX_PARAM_WORDS,
        }
    }
}

impl Logic for Bcast {
    #[hdl_gen]
    fn update(&mut self) {
        self.lane_sreg.next = (self.imm.val() == self.s_tid[0].val())
            || (self.imm.val() == self.s_tid[1].val())
            || (self.imm.val() == self.s_tid[2].val())
            || (self.imm.val() == self.s_tidl.val())
            || (self.imm.val() == self.s_laneid.val());
        // %nwarps = ceil(threads / L).
        self.sreg.next = (self.threads.val() + self.lanes_m1.val()) >> self.lane_shift.val();
        for i in 0..3 {
            if self.imm.val() == self.s_ntid[i].val() {
                self.sreg.next = self.ntid[i].val();
            }
            if self.imm.val() == self.s_ctaid[i].val() {
                self.sreg.next = self.ctaid[i].val();
            }
            if self.imm.val() == self.s_nctaid[i].val() {
                self.sreg.next = self.nctaid[i].val();
            }
        }
        if self.imm.val() == self.s_warpid.val() {
            self.sreg.next = self.warp_id.val();
        }
        if self.imm.val() == self.s_warpsize.val() {
            self.sreg.next = self.lanes.val();
        }
        if self.imm.val() == self.s_clock.val() {
            self.sreg.next = self.clock_lo.val();
        }
        if self.imm.val() == self.s_clockhi.val() {
            self.sreg.next = self.clock_hi.val();
        }
        if self.imm.val() == self.s_nwarps.val() {
            self.sreg.next = (self.threads.val() + self.lanes_m1.val()) >> self.lane_shift.val();
        }
        self.param.next = self.params[0].val();
        for i in 1..self._params {
            if self.imm.val().index() == i {
                self.param.next = self.params[i].val();
            }
        }
        self.out.next = self.imm.val();
        if self.k_ldparam.val() {
            self.out.next = self.param.val();
        }
        if self.k_s2r.val() {
            self.out.next = self.sreg.val();
        }
        if self.k_ballot.val() {
            self.out.next = self.ballot.val();
        }
        if self.k_link.val() {
            self.out.next = self.link.val();
        }
    }
}

/// Alignment mask and last valid address of the current memory access.
#[derive(LogicBlock)]
pub struct MemCtl {
    pub mlog: Signal<In, Bits<2>>,
    pub shared: Signal<In, bool>,
    pub amask: Signal<Out, Bits<32>>,
    pub limit: Signal<Out, Bits<32>>,
    size: Signal<Local, Bits<32>>,
    shared_bytes: Constant<Bits<32>>,
    global_bytes: Constant<Bits<32>>,
}

impl MemCtl {
    pub fn new(shared_bytes: u32, global_bytes: u32) -> Self {
        MemCtl {
            mlog: Default::default(),
            shared: Default::default(),
            amask: Default::default(),
            limit: Default::default(),
            size: Default::default(),
            shared_bytes: Constant::new((shared_bytes as u64).into()),
            global_bytes: Constant::new((global_bytes as u64).into()),
        }
    }
}

impl Logic for MemCtl {
    #[hdl_gen]
    fn update(&mut self) {
        self.size.next = self.global_bytes.val();
        if self.shared.val() {
            self.size.next = self.shared_bytes.val();
        }
        // 1, 2 or 4 bytes: mask 0, 1, 3; the last valid address is size - bytes.
        self.amask.next = 0.into();
        self.limit.next = self.size.val() - 1;
        if self.mlog.val().get_bit(0) {
            self.amask.next = 1.into();
            self.limit.next = self.size.val() - 2;
        }
        if self.mlog.val().get_bit(1) {
            self.amask.next = 3.into();
            self.limit.next = self.size.val() - 4;
        }
    }
}
