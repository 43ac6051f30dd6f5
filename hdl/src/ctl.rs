//! Small combinational blocks of the core's control: predicate evaluation,
//! the warp-uniform values written to registers, and the memory-access
//! limits. They are blocks of their own (rather than expressions inside the
//! core) so that the core can feed their outputs to the lanes directly: an
//! input of a lane never depends on a value the core computes in the same
//! always block as it reads lane outputs (see `core.rs`).

use concord_isa::encoding::{VOTE_ALL, VOTE_ANY};
use concord_isa::instr::{Consensus, PredOp, SpecialReg, MAX_PARAM_WORDS};
use rust_hdl_core::prelude::*;

use concord_uarch::widths::{HOST_ADDR_BITS, HOST_RADDR_BITS, STATE_BITS};
use concord_uarch::State;

use crate::lane::{LINE_BITS, RF_ADDR_BITS};
use crate::util::Pack;

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

/// `go`: the core is not waiting on the global memory port. 0 in `G_REQ`
/// while `gmem_req_ready` is 0 and in `G_WAIT` while `gmem_resp_valid` is
/// 0. The next-state logic is computed as if the port answered; `go` is
/// the enable of the registers that logic would change (and of the
/// register-file writes), so a wait holds them.
#[derive(LogicBlock)]
pub struct Gate {
    pub st: Signal<In, Bits<STATE_BITS>>,
    pub ready: Signal<In, bool>,
    pub resp_valid: Signal<In, bool>,
    pub go: Signal<Out, bool>,
    waiting_port: Signal<Local, bool>,
    s_g_req: Constant<Bits<STATE_BITS>>,
    s_g_wait: Constant<Bits<STATE_BITS>>,
}

impl Gate {
    /// `g_req` and `g_wait`: the states that wait on the port.
    pub fn new(g_req: State, g_wait: State) -> Self {
        Gate {
            st: Default::default(),
            ready: Default::default(),
            resp_valid: Default::default(),
            go: Default::default(),
            waiting_port: Default::default(),
            s_g_req: Constant::new(u64::from(g_req.code()).into()),
            s_g_wait: Constant::new(u64::from(g_wait.code()).into()),
        }
    }
}

impl Logic for Gate {
    #[hdl_gen]
    fn update(&mut self) {
        self.waiting_port.next = ((self.st.val() == self.s_g_req.val()) && !self.ready.val())
            || ((self.st.val() == self.s_g_wait.val()) && !self.resp_valid.val());
        self.go.next = !self.waiting_port.val();
    }
}

/// Host write decoding (docs/microarchitecture.md §9): which register a
/// host write loads, `start`, and the instruction-memory write enable.
/// Writes are accepted when the core is not busy (`IDLE`, `DONE`, `TRAP`).
#[derive(LogicBlock)]
pub struct HostDec {
    pub host_we: Signal<In, bool>,
    pub host_addr: Signal<In, Bits<HOST_ADDR_BITS>>,
    pub busy: Signal<In, bool>,
    /// One per entry of `addrs` (given to `new`).
    pub sel: Vec<Signal<Out, bool>>,
    pub start: Signal<Out, bool>,
    pub imem_we: Signal<Out, bool>,
    hw: Signal<Local, bool>,
    addrs: Vec<Constant<Bits<HOST_ADDR_BITS>>>,
    a_start: Constant<Bits<HOST_ADDR_BITS>>,
    imem_words: Constant<Bits<HOST_ADDR_BITS>>,
    _n: usize,
}

impl HostDec {
    pub fn new(addrs: &[u64], start: u64, imem_words: u64) -> Self {
        HostDec {
            host_we: Default::default(),
            host_addr: Default::default(),
            busy: Default::default(),
            sel: addrs.iter().map(|_| Default::default()).collect(),
            start: Default::default(),
            imem_we: Default::default(),
            hw: Default::default(),
            addrs: addrs.iter().map(|a| Constant::new((*a).into())).collect(),
            a_start: Constant::new(start.into()),
            imem_words: Constant::new(imem_words.into()),
            _n: addrs.len(),
        }
    }
}

impl Logic for HostDec {
    #[hdl_gen]
    fn update(&mut self) {
        self.hw.next = self.host_we.val() && !self.busy.val();
        for i in 0..self._n {
            self.sel[i].next = self.hw.val() && (self.host_addr.val() == self.addrs[i].val());
        }
        self.start.next = self.hw.val() && (self.host_addr.val() == self.a_start.val());
        self.imem_we.next = self.hw.val() && (self.host_addr.val() < self.imem_words.val());
    }
}

/// The host read port: `rdata = vals[raddr]`, 0 past the table.
#[derive(LogicBlock)]
pub struct HostRead {
    pub raddr: Signal<In, Bits<HOST_RADDR_BITS>>,
    pub vals: Vec<Signal<In, Bits<32>>>,
    pub rdata: Signal<Out, Bits<32>>,
    zero: Constant<Bits<32>>,
    _n: usize,
}

impl HostRead {
    pub fn new(n: usize) -> Self {
        HostRead {
            raddr: Default::default(),
            vals: (0..n).map(|_| Default::default()).collect(),
            rdata: Default::default(),
            zero: Constant::new(0u64.into()),
            _n: n,
        }
    }
}

impl Logic for HostRead {
    #[hdl_gen]
    fn update(&mut self) {
        self.rdata.next = self.zero.val();
        for i in 0..self._n {
            if self.raddr.val().index() == i {
                self.rdata.next = self.vals[i].val();
            }
        }
    }
}

/// The register-file half of the trace port (§10): this cycle's write
/// enables, address and data, all 0 while the core waits (`go` = 0) and the
/// data of lanes that do not write 0.
#[derive(LogicBlock)]
pub struct TraceOut {
    pub go: Signal<In, bool>,
    pub rfwe: Signal<In, Bits<32>>,
    pub addr: Signal<In, Bits<RF_ADDR_BITS>>,
    pub wd: Vec<Signal<In, Bits<32>>>,
    pub rf_we: Signal<Out, Bits<32>>,
    pub rf_addr: Signal<Out, Bits<RF_ADDR_BITS>>,
    pub rf_data: Signal<Out, Bits<LINE_BITS>>,
    we: Signal<Local, Bits<32>>,
    pack: Pack<32, LINE_BITS>,
    zero32: Constant<Bits<32>>,
    zero_addr: Constant<Bits<RF_ADDR_BITS>>,
    _lanes: usize,
}

impl TraceOut {
    pub fn new(lanes: usize) -> Self {
        TraceOut {
            go: Default::default(),
            rfwe: Default::default(),
            addr: Default::default(),
            wd: (0..lanes).map(|_| Default::default()).collect(),
            rf_we: Default::default(),
            rf_addr: Default::default(),
            rf_data: Default::default(),
            we: Default::default(),
            pack: Pack::new(lanes),
            zero32: Constant::new(0u64.into()),
            zero_addr: Constant::new(0u64.into()),
            _lanes: lanes,
        }
    }
}

impl Logic for TraceOut {
    #[hdl_gen]
    fn update(&mut self) {
        self.we.next = self.zero32.val();
        if self.go.val() {
            self.we.next = self.rfwe.val();
        }
        for l in 0..self._lanes {
            self.pack.ins[l].next = self.zero32.val();
            if self.we.val().get_bit(l) {
                self.pack.ins[l].next = self.wd[l].val();
            }
        }
        self.rf_we.next = self.we.val();
        self.rf_addr.next = self.zero_addr.val();
        if self.we.val().any() {
            self.rf_addr.next = self.addr.val();
        }
        self.rf_data.next = self.pack.out.val();
    }
}
