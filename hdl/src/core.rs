//! The Concord core (docs/microarchitecture.md): FSM, warp scheduler, host
//! interface, counters, trap report and trace port, around the decoder, the
//! arbiter, the lanes, the per-warp state and the memories.
//!
//! # How the logic is laid out
//!
//! rust-hdl emits one `always @(*)` block per module, and Verilator orders
//! logic per group of statements that share variables written in the block.
//! A child's input computed in the same group that reads the child's output
//! would be a combinational loop to Verilator (UNOPTFLAT) even when no bit
//! depends on itself. The update below is therefore in two parts:
//!
//! 1. **Wiring**: every input of a combinational child (decoder, arbiter,
//!    lanes, control blocks, extensions) is an expression of registers,
//!    ports and child outputs only: no local signal appears in it.
//! 2. **Next state**: locals are free here; this part writes only register
//!    D inputs, RAM inputs, the warp-state commands, the lanes' register-file
//!    write enables (which reach only the RAM) and the output ports.
//!
//! Masks are accumulated with blocking assignments (`m = m | bit`), which is
//! correct Verilog but not what rust-hdl's own simulator computes: the core
//! is simulated with Verilator, not with rust-hdl.

use concord_isa::instr::MAX_PARAM_WORDS;
use concord_uarch::counters::Counter;
use concord_uarch::host;
use concord_uarch::ports::gmem_kind;
use concord_uarch::widths::{
    ATOM_OP_BITS, GMEM_KIND_BITS, HOST_ADDR_BITS, HOST_RADDR_BITS, LINE_MASK_BITS, MASK_BITS,
    PC_BITS, PRED_ADDR_BITS, PRED_SLOTS, RF_DATA_BITS, STATE_BITS, TRAP_CAUSE_BITS, WARP_BITS,
    WORD_BITS,
};
use concord_uarch::{HwParams, State, TrapCode};
use rust_hdl_core::prelude::*;
use rust_hdl_widgets::dff_setup;

use crate::arbiter::Arbiter;
use crate::ctl::{Bcast, Gate, HostDec, HostRead, MemCtl, PredCtl, TraceOut};
use crate::decode::Decoder;
use crate::lane::{Lane, LaneParams, Loads, RowSel, TidGen, LINE_BITS, RF_ADDR_BITS};
use crate::ram::Ram;
use crate::shared::{Shared, ROW_BITS};
use crate::stack::StackRegs;
use crate::util::{Ext, Pack, PackBits, Popcount, Reg, RegE};
use crate::warps::WarpState;

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.into())
}

fn state(s: State) -> Constant<Bits<STATE_BITS>> {
    k(s.code().into())
}

fn cause(c: TrapCode) -> Constant<Bits<TRAP_CAUSE_BITS>> {
    k(c.code().into())
}

fn regs<T: Synth>(n: usize) -> Vec<Reg<T>> {
    (0..n).map(|_| Default::default()).collect()
}

fn regse<T: Synth>(n: usize) -> Vec<RegE<T>> {
    (0..n).map(|_| Default::default()).collect()
}

/// Host-written registers in `HostDec::sel` order: entry pc, code length,
/// grid x..z, block x..z, parameter count, parameters 0..15, stack bytes.
/// (`update` selects them by these indices.)
fn host_addrs() -> Vec<u64> {
    let mut a = vec![host::ENTRY_PC, host::CODE_LEN];
    a.extend((0..3).map(|i| host::GRID + i));
    a.extend((0..3).map(|i| host::BLOCK + i));
    a.push(host::PARAM_COUNT);
    a.extend((0..MAX_PARAM_WORDS as u32).map(|i| host::PARAM + i));
    a.push(host::STACK_BYTES);
    a.into_iter().map(u64::from).collect()
}

/// `HostDec::sel` index of the stack-bytes register; `update` writes the
/// literal (rust-hdl indexes only with literals and loop variables).
const SEL_STACK_BYTES: usize = 9 + MAX_PARAM_WORDS;
const _: () = assert!(SEL_STACK_BYTES == 25);

// `update` drives the host read mux (`HostRead::vals`) and the status
// value with literal indices and bits, and builds PCs and predicate trace
// addresses with literal widths: in `#[hdl_gen]` logic an index must be a
// literal or a loop variable, and a Rust constant in an expression becomes
// a Verilog name. The literals are the register map of
// `concord_uarch::host` and the widths of `concord_uarch::widths`, checked
// here.
const _: () = assert!(
    host::STATUS == 0
        && host::TRAP_CAUSE == 1
        && host::TRAP_PC == 2
        && host::TRAP_WARP == 3
        && host::TRAP_LANES == 4
        && host::TRAP_BLOCK == 5
        && host::TRAP_ADDR == 8
        && host::TRAP_DETAIL == 9
        && host::ARRIVED == 10
        && host::EXITED == 11
        && host::THREADS == 12
        && host::COUNTERS == 16
        && host::READ_WORDS == 38
        && host::STATUS_RUNNING == 1
        && host::STATUS_DONE == 2
        && host::STATUS_TRAPPED == 4
);
const _: () = assert!(
    Counter::Cycles.low_addr() == 16
        && Counter::Issued.low_addr() == 18
        && Counter::ActiveLaneSlots.low_addr() == 20
        && Counter::ExecutedLaneSlots.low_addr() == 22
        && Counter::Replays.low_addr() == 24
        && Counter::DivergentBranches.low_addr() == 26
        && Counter::ConsensualTaken.low_addr() == 28
        && Counter::ConsensualNotTaken.low_addr() == 30
        && Counter::BarrierArrivals.low_addr() == 32
        && Counter::Barriers.low_addr() == 34
        && Counter::Blocks.low_addr() == 36
        && Counter::COUNT == 11
);
const _: () = assert!(PC_BITS == 16 && PRED_SLOTS == 8);

#[derive(LogicBlock)]
pub struct Core {
    // ---- ports (`concord_uarch::PORTS`, docs/microarchitecture.md §8-§10) ----
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub host_we: Signal<In, bool>,
    pub host_addr: Signal<In, Bits<HOST_ADDR_BITS>>,
    pub host_wdata: Signal<In, Bits<WORD_BITS>>,
    pub host_raddr: Signal<In, Bits<HOST_RADDR_BITS>>,
    pub host_rdata: Signal<Out, Bits<WORD_BITS>>,
    pub running: Signal<Out, bool>,
    pub done: Signal<Out, bool>,
    pub trapped: Signal<Out, bool>,
    pub gmem_req_valid: Signal<Out, bool>,
    pub gmem_req_ready: Signal<In, bool>,
    pub gmem_req_kind: Signal<Out, Bits<GMEM_KIND_BITS>>,
    pub gmem_req_addr: Signal<Out, Bits<WORD_BITS>>,
    pub gmem_req_wdata: Signal<Out, Bits<LINE_BITS>>,
    pub gmem_req_mask: Signal<Out, Bits<LINE_MASK_BITS>>,
    pub gmem_req_atom_op: Signal<Out, Bits<ATOM_OP_BITS>>,
    pub gmem_req_atom_data: Signal<Out, Bits<WORD_BITS>>,
    pub gmem_resp_valid: Signal<In, bool>,
    pub gmem_resp_data: Signal<In, Bits<LINE_BITS>>,
    pub trace_state: Signal<Out, Bits<STATE_BITS>>,
    pub trace_warp: Signal<Out, Bits<WARP_BITS>>,
    pub trace_pc: Signal<Out, Bits<PC_BITS>>,
    pub trace_active: Signal<Out, Bits<MASK_BITS>>,
    pub trace_exec: Signal<Out, Bits<MASK_BITS>>,
    pub trace_rf_we: Signal<Out, Bits<MASK_BITS>>,
    pub trace_rf_addr: Signal<Out, Bits<RF_ADDR_BITS>>,
    pub trace_rf_data: Signal<Out, Bits<RF_DATA_BITS>>,
    pub trace_pred_we: Signal<Out, Bits<MASK_BITS>>,
    pub trace_pred_addr: Signal<Out, Bits<PRED_ADDR_BITS>>,
    pub trace_pred_data: Signal<Out, Bits<MASK_BITS>>,

    // ---- children ----
    decode: Decoder,
    arbiter: Arbiter,
    lanes: Vec<Lane>,
    warps: WarpState,
    imem: Ram<32, 16>,
    shared: Shared,
    pctl: PredCtl,
    bc: Bcast,
    mc: MemCtl,
    pop_a: Popcount,
    pop_e: Popcount,
    popa64: Ext<32, 64>,
    pope64: Ext<32, 64>,
    curx9: Ext<4, RF_ADDR_BITS>,
    srca9: Ext<5, RF_ADDR_BITS>,
    srcb9: Ext<5, RF_ADDR_BITS>,
    rd9: Ext<5, RF_ADDR_BITS>,
    curx7: Ext<4, 7>,
    pd7: Ext<3, 7>,
    curx32: Ext<4, 32>,
    gpcx: Ext<16, 32>,
    tpcx: Ext<16, 32>,
    twx: Ext<4, 32>,
    tcx: Ext<4, 32>,
    gate: Gate,
    hostdec: HostDec,
    hostrd: HostRead,
    trace: TraceOut,
    loads: Loads,
    rowsel: RowSel,
    tidgen: TidGen,
    stk: StackRegs,
    wpack: Pack<8, LINE_BITS>,
    mpack: PackBits<LINE_MASK_BITS>,

    // ---- registers ----
    st: RegE<Bits<STATE_BITS>>,
    init_i: RegE<Bits<32>>,
    cur: Reg<Bits<WARP_BITS>>,
    rr: Reg<Bits<WARP_BITS>>,
    ir: Reg<Bits<32>>,
    exec: Reg<Bits<32>>,
    pending: RegE<Bits<32>>,
    served: Reg<Bits<32>>,
    entry_pc: RegE<Bits<PC_BITS>>,
    code_len: RegE<Bits<32>>,
    grid: Vec<RegE<Bits<32>>>,
    blk: Vec<RegE<Bits<32>>>,
    bid: Vec<RegE<Bits<32>>>,
    param_count: RegE<Bits<32>>,
    params: Vec<RegE<Bits<32>>>,
    stk_bytes: RegE<Bits<32>>,
    threads: RegE<Bits<32>>,
    arrived: Reg<Bits<32>>,
    exited: Reg<Bits<32>>,
    c_cycles: RegE<Bits<64>>,
    c_issued: RegE<Bits<64>>,
    c_active: RegE<Bits<64>>,
    c_executed: RegE<Bits<64>>,
    c_replays: RegE<Bits<64>>,
    c_divergent: RegE<Bits<64>>,
    c_taken: RegE<Bits<64>>,
    c_not_taken: RegE<Bits<64>>,
    c_arrivals: RegE<Bits<64>>,
    c_barriers: RegE<Bits<64>>,
    c_blocks: RegE<Bits<64>>,
    t_cause: Reg<Bits<TRAP_CAUSE_BITS>>,
    t_pc: Reg<Bits<PC_BITS>>,
    t_warp: Reg<Bits<WARP_BITS>>,
    t_lanes: Reg<Bits<32>>,
    t_block: Vec<Reg<Bits<32>>>,
    t_addr: Reg<Bits<32>>,
    t_detail: Reg<Bits<32>>,

    // ---- next-state locals ----
    busy: Signal<Local, bool>,
    rfwe: Signal<Local, Bits<32>>,
    pwe: Signal<Local, Bits<32>>,
    pval: Signal<Local, Bits<32>>,
    cmpm: Signal<Local, Bits<32>>,
    trap: Signal<Local, bool>,
    tc: Signal<Local, Bits<4>>,
    tl: Signal<Local, Bits<32>>,
    tpc: Signal<Local, Bits<16>>,
    tw: Signal<Local, Bits<4>>,
    ta: Signal<Local, Bits<32>>,
    td: Signal<Local, Bits<32>>,
    // scheduler
    pick_any: Signal<Local, Bits<4>>,
    pick_hi: Signal<Local, Bits<4>>,
    found_hi: Signal<Local, bool>,
    pick: Signal<Local, Bits<4>>,
    pick_gv: Signal<Local, bool>,
    last_block: Signal<Local, bool>,
    probe_pc: Signal<Local, Bits<16>>,
    // advance / complete
    advance: Signal<Local, bool>,
    // counter increments of this cycle
    i_issue: Signal<Local, bool>,
    i_replays: Signal<Local, bool>,
    i_divergent: Signal<Local, bool>,
    i_taken: Signal<Local, bool>,
    i_not_taken: Signal<Local, bool>,
    i_arrivals: Signal<Local, bool>,
    i_barriers: Signal<Local, bool>,
    i_blocks: Signal<Local, bool>,
    gpc1: Signal<Local, Bits<16>>,
    gdepth: Signal<Local, Bits<16>>,
    joinm: Signal<Local, Bits<32>>,
    pnew: Signal<Local, Bits<32>>,
    // control
    over: Signal<Local, Bits<32>>,
    zdep: Signal<Local, Bits<32>>,
    ref_pc: Signal<Local, Bits<16>>,
    ref_d: Signal<Local, Bits<16>>,
    split: Signal<Local, bool>,
    arrived_new: Signal<Local, Bits<32>>,
    // memory
    mism: Signal<Local, Bits<32>>,
    oorm: Signal<Local, Bits<32>>,
    mis_a: Signal<Local, Bits<32>>,
    oor_a: Signal<Local, Bits<32>>,
    stkm: Signal<Local, Bits<32>>,
    stk_a: Signal<Local, Bits<32>>,
    // next PC outside the program
    pcm: Signal<Local, Bits<32>>,
    pc_a: Signal<Local, Bits<32>>,
    row: Signal<Local, Bits<32>>,
    sv_maddr: Signal<Local, Bits<32>>,
    sv_data: Signal<Local, Bits<32>>,
    sv_widx: Signal<Local, Bits<32>>,
    sv_new: Signal<Local, Bits<32>>,
    gbyte: Vec<Signal<Local, Bits<8>>>,
    gbe: Vec<Signal<Local, bool>>,
    t1: Signal<Local, Bits<32>>,
    /// Bits no logic needs, gathered so that Verilator's UNUSED check can
    /// tell them from mistakes (its default exemption is `*unused*`).
    unused_ok: Signal<Local, bool>,
    /// Response bits above the configured line.
    unused_resp: Signal<Local, bool>,

    // ---- constants ----
    s_idle: Constant<Bits<STATE_BITS>>,
    s_init: Constant<Bits<STATE_BITS>>,
    s_sched: Constant<Bits<STATE_BITS>>,
    s_arb: Constant<Bits<STATE_BITS>>,
    s_fetch: Constant<Bits<STATE_BITS>>,
    s_decode: Constant<Bits<STATE_BITS>>,
    s_read2: Constant<Bits<STATE_BITS>>,
    s_exec: Constant<Bits<STATE_BITS>>,
    s_mem_arb: Constant<Bits<STATE_BITS>>,
    s_sh_access: Constant<Bits<STATE_BITS>>,
    s_sh_data: Constant<Bits<STATE_BITS>>,
    s_g_req: Constant<Bits<STATE_BITS>>,
    s_g_wait: Constant<Bits<STATE_BITS>>,
    s_done: Constant<Bits<STATE_BITS>>,
    s_trap: Constant<Bits<STATE_BITS>>,
    tc_oor: Constant<Bits<TRAP_CAUSE_BITS>>,
    tc_mis: Constant<Bits<TRAP_CAUSE_BITS>>,
    tc_invalid: Constant<Bits<TRAP_CAUSE_BITS>>,
    tc_pc: Constant<Bits<TRAP_CAUSE_BITS>>,
    tc_depth: Constant<Bits<TRAP_CAUSE_BITS>>,
    tc_ret: Constant<Bits<TRAP_CAUSE_BITS>>,
    tc_barrier: Constant<Bits<TRAP_CAUSE_BITS>>,
    tc_param: Constant<Bits<TRAP_CAUSE_BITS>>,
    tc_stack: Constant<Bits<TRAP_CAUSE_BITS>>,
    tc_npc: Constant<Bits<TRAP_CAUSE_BITS>>,
    kind_read: Constant<Bits<GMEM_KIND_BITS>>,
    kind_write: Constant<Bits<GMEM_KIND_BITS>>,
    kind_atomic: Constant<Bits<GMEM_KIND_BITS>>,
    zero2: Constant<Bits<2>>,
    zero4: Constant<Bits<4>>,
    zero7: Constant<Bits<7>>,
    zero8: Constant<Bits<8>>,
    zero16: Constant<Bits<16>>,
    zero32: Constant<Bits<32>>,
    zero64: Constant<Bits<64>>,
    zero128: Constant<Bits<LINE_MASK_BITS>>,
    zero_line: Constant<Bits<LINE_BITS>>,
    one4: Constant<Bits<4>>,
    one16: Constant<Bits<16>>,
    one64: Constant<Bits<64>>,
    st_one: Constant<Bits<32>>,
    st_two: Constant<Bits<32>>,
    st_four: Constant<Bits<32>>,
    wm1: Constant<Bits<4>>,
    lane_bit: Vec<Constant<Bits<32>>>,
    lane_mask: Constant<Bits<32>>,
    rp_shift: Constant<Bits<RF_ADDR_BITS>>,
    lane_shift: Constant<Bits<32>>,
    rf_words: Constant<Bits<32>>,
    rows: Constant<Bits<32>>,
    init_last: Constant<Bits<32>>,
    max_depth: Constant<Bits<16>>,
    depth_pc: Constant<bool>,
    line_mask: Constant<Bits<32>>,
    row_hi: Constant<Bits<32>>,
    resp_used: Constant<Bits<32>>,
    _lanes: usize,
    _lm1: usize,
    _warps: usize,
    _wm1: usize,
    _banks: usize,
    _gwords: usize,
    _params: usize,
}

impl Core {
    pub fn new(p: &HwParams) -> Self {
        let lanes = p.lanes;
        let line_bytes = p.global_line_bytes as usize;
        let lane_params = |l: usize| LaneParams {
            lane: l,
            lanes,
            warps: p.warps,
            rf_words: p.rf_rows,
            depth_pc: p.depth_pc(),
            max_depth: p.max_call_depth,
            row_shift: p.shared_row_shift,
            banks: p.shared_banks,
            line_shift: p.global_line_shift,
            line_bytes,
        };
        Core {
            clock: Default::default(),
            reset: Default::default(),
            host_we: Default::default(),
            host_addr: Default::default(),
            host_wdata: Default::default(),
            host_raddr: Default::default(),
            host_rdata: Default::default(),
            running: Default::default(),
            done: Default::default(),
            trapped: Default::default(),
            gmem_req_valid: Default::default(),
            gmem_req_ready: Default::default(),
            gmem_req_kind: Default::default(),
            gmem_req_addr: Default::default(),
            gmem_req_wdata: Default::default(),
            gmem_req_mask: Default::default(),
            gmem_req_atom_op: Default::default(),
            gmem_req_atom_data: Default::default(),
            gmem_resp_valid: Default::default(),
            gmem_resp_data: Default::default(),
            trace_state: Default::default(),
            trace_warp: Default::default(),
            trace_pc: Default::default(),
            trace_active: Default::default(),
            trace_exec: Default::default(),
            trace_rf_we: Default::default(),
            trace_rf_addr: Default::default(),
            trace_rf_data: Default::default(),
            trace_pred_we: Default::default(),
            trace_pred_addr: Default::default(),
            trace_pred_data: Default::default(),
            decode: Decoder::new(),
            arbiter: Arbiter::new(lanes),
            lanes: (0..lanes).map(|l| Lane::new(lane_params(l))).collect(),
            warps: WarpState::new(lanes, p.warps, p.predicates),
            imem: Ram::new(p.imem_words),
            shared: Shared::new(p.shared_banks, p.shared_rows),
            pctl: PredCtl::new(),
            bc: Bcast::new(lanes),
            mc: MemCtl::new(p.shared_bytes, p.global_bytes),
            pop_a: Default::default(),
            pop_e: Default::default(),
            popa64: Default::default(),
            pope64: Default::default(),
            curx9: Default::default(),
            srca9: Default::default(),
            srcb9: Default::default(),
            rd9: Default::default(),
            curx7: Default::default(),
            pd7: Default::default(),
            curx32: Default::default(),
            gpcx: Default::default(),
            tpcx: Default::default(),
            twx: Default::default(),
            tcx: Default::default(),
            gate: Gate::new(State::GReq, State::GWait),
            hostdec: HostDec::new(&host_addrs(), host::START.into(), p.imem_words as u64),
            hostrd: HostRead::new(host::READ_WORDS),
            trace: TraceOut::new(lanes),
            loads: Loads::new(lanes, p.global_line_words),
            rowsel: RowSel::new(lanes, p.shared_banks),
            tidgen: TidGen::new(lanes),
            stk: StackRegs::new(lanes, p.warps, p.global_bytes),
            wpack: Pack::new(line_bytes),
            mpack: PackBits::new(line_bytes),
            st: Default::default(),
            init_i: Default::default(),
            cur: Default::default(),
            rr: Default::default(),
            ir: Default::default(),
            exec: Default::default(),
            pending: Default::default(),
            served: Default::default(),
            entry_pc: Default::default(),
            code_len: Default::default(),
            grid: regse(3),
            blk: regse(3),
            bid: regse(3),
            param_count: Default::default(),
            params: regse(MAX_PARAM_WORDS),
            stk_bytes: Default::default(),
            threads: Default::default(),
            arrived: Default::default(),
            exited: Default::default(),
            c_cycles: Default::default(),
            c_issued: Default::default(),
            c_active: Default::default(),
            c_executed: Default::default(),
            c_replays: Default::default(),
            c_divergent: Default::default(),
            c_taken: Default::default(),
            c_not_taken: Default::default(),
            c_arrivals: Default::default(),
            c_barriers: Default::default(),
            c_blocks: Default::default(),
            t_cause: Default::default(),
            t_pc: Default::default(),
            t_warp: Default::default(),
            t_lanes: Default::default(),
            t_block: regs(3),
            t_addr: Default::default(),
            t_detail: Default::default(),
            busy: Default::default(),
            rfwe: Default::default(),
            pwe: Default::default(),
            pval: Default::default(),
            cmpm: Default::default(),
            trap: Default::default(),
            tc: Default::default(),
            tl: Default::default(),
            tpc: Default::default(),
            tw: Default::default(),
            ta: Default::default(),
            td: Default::default(),
            pick_any: Default::default(),
            pick_hi: Default::default(),
            found_hi: Default::default(),
            pick: Default::default(),
            pick_gv: Default::default(),
            last_block: Default::default(),
            probe_pc: Default::default(),
            advance: Default::default(),
            i_issue: Default::default(),
            i_replays: Default::default(),
            i_divergent: Default::default(),
            i_taken: Default::default(),
            i_not_taken: Default::default(),
            i_arrivals: Default::default(),
            i_barriers: Default::default(),
            i_blocks: Default::default(),
            gpc1: Default::default(),
            gdepth: Default::default(),
            joinm: Default::default(),
            pnew: Default::default(),
            over: Default::default(),
            zdep: Default::default(),
            ref_pc: Default::default(),
            ref_d: Default::default(),
            split: Default::default(),
            arrived_new: Default::default(),
            mism: Default::default(),
            oorm: Default::default(),
            mis_a: Default::default(),
            oor_a: Default::default(),
            stkm: Default::default(),
            stk_a: Default::default(),
            pcm: Default::default(),
            pc_a: Default::default(),
            row: Default::default(),
            sv_maddr: Default::default(),
            sv_data: Default::default(),
            sv_widx: Default::default(),
            sv_new: Default::default(),
            gbyte: (0..line_bytes).map(|_| Default::default()).collect(),
            gbe: (0..line_bytes).map(|_| Default::default()).collect(),
            t1: Default::default(),
            unused_ok: Default::default(),
            unused_resp: Default::default(),
            s_idle: state(State::Idle),
            s_init: state(State::Init),
            s_sched: state(State::Sched),
            s_arb: state(State::Arb),
            s_fetch: state(State::Fetch),
            s_decode: state(State::Decode),
            s_read2: state(State::Read2),
            s_exec: state(State::Exec),
            s_mem_arb: state(State::MemArb),
            s_sh_access: state(State::ShAccess),
            s_sh_data: state(State::ShData),
            s_g_req: state(State::GReq),
            s_g_wait: state(State::GWait),
            s_done: state(State::Done),
            s_trap: state(State::Trap),
            tc_oor: cause(TrapCode::AddressOutOfRange),
            tc_mis: cause(TrapCode::Misaligned),
            tc_invalid: cause(TrapCode::InvalidInstruction),
            tc_pc: cause(TrapCode::PcOutOfRange),
            tc_depth: cause(TrapCode::CallDepthOverflow),
            tc_ret: cause(TrapCode::ReturnAtDepthZero),
            tc_barrier: cause(TrapCode::BarrierNeverCompletes),
            tc_param: cause(TrapCode::MissingParam),
            tc_stack: cause(TrapCode::StackOverflow),
            tc_npc: cause(TrapCode::NextPcOutOfRange),
            kind_read: k(gmem_kind::READ.into()),
            kind_write: k(gmem_kind::WRITE.into()),
            kind_atomic: k(gmem_kind::ATOMIC.into()),
            zero2: k(0),
            zero4: k(0),
            zero7: k(0),
            zero8: k(0),
            zero16: k(0),
            zero32: k(0),
            zero64: k(0),
            zero128: k(0),
            zero_line: k(0),
            one4: k(1),
            one16: k(1),
            one64: k(1),
            st_one: k(host::STATUS_RUNNING.into()),
            st_two: k(host::STATUS_DONE.into()),
            st_four: k(host::STATUS_TRAPPED.into()),
            wm1: k(p.warps as u64 - 1),
            lane_bit: (0..lanes).map(|l| k(1u64 << l)).collect(),
            lane_mask: k(p.lane_mask.into()),
            rp_shift: k(p.rf_rows_per_warp.trailing_zeros() as u64),
            lane_shift: k(p.lane_bits.into()),
            rf_words: k(p.rf_rows as u64),
            rows: k(p.shared_rows as u64),
            init_last: k(u64::from(p.init_cycles) - 1),
            max_depth: k(p.max_call_depth.into()),
            depth_pc: Constant::new(p.depth_pc()),
            line_mask: k((!(p.global_line_bytes - 1)).into()),
            row_hi: k((!concord_uarch::widths::low_mask(ROW_BITS)).into()),
            resp_used: k(8 * u64::from(p.global_line_bytes)),
            _lanes: lanes,
            _lm1: lanes - 1,
            _warps: p.warps,
            _wm1: p.warps - 1,
            _banks: p.shared_banks,
            _gwords: p.global_line_words,
            _params: MAX_PARAM_WORDS,
        }
    }
}

impl Logic for Core {
    #[hdl_gen]
    fn update(&mut self) {
        // =====================================================================
        // Part 1: wiring (registers, ports and child outputs only).
        // =====================================================================
        dff_setup!(
            self,
            clock,
            st,
            init_i,
            cur,
            rr,
            ir,
            exec,
            pending,
            served,
            entry_pc,
            code_len,
            param_count,
            stk_bytes,
            threads,
            arrived,
            exited,
            c_cycles,
            c_issued,
            c_active,
            c_executed,
            c_replays,
            c_divergent,
            c_taken,
            c_not_taken,
            c_arrivals,
            c_barriers,
            c_blocks,
            t_cause,
            t_pc,
            t_warp,
            t_lanes,
            t_addr,
            t_detail
        );
        for i in 0..3 {
            self.grid[i].clock.next = self.clock.val();
            self.grid[i].d.next = self.grid[i].q.val();
            self.blk[i].clock.next = self.clock.val();
            self.blk[i].d.next = self.blk[i].q.val();
            self.bid[i].clock.next = self.clock.val();
            self.bid[i].d.next = self.bid[i].q.val();
            self.t_block[i].clock.next = self.clock.val();
            self.t_block[i].d.next = self.t_block[i].q.val();
        }
        for i in 0..self._params {
            self.params[i].clock.next = self.clock.val();
            self.params[i].d.next = self.params[i].q.val();
        }

        // Register controls. Every register is cleared by `reset` in its own
        // clocked block. The next-state logic below never reads a top-level
        // input: `go` (not waiting on the memory port) is the enable of the
        // registers a memory completion changes, and the host's writes and
        // `start` load registers through `ld`/`lv`. These wires are single
        // statements that Verilator evaluates apart from the next-state
        // logic, which therefore runs once per clock edge, not on every
        // input change.
        self.gate.st.next = self.st.q.val();
        self.gate.ready.next = self.gmem_req_ready.val();
        self.gate.resp_valid.next = self.gmem_resp_valid.val();
        self.hostdec.host_we.next = self.host_we.val();
        self.hostdec.host_addr.next = self.host_addr.val();
        self.hostdec.busy.next = (self.st.q.val() != self.s_idle.val())
            && (self.st.q.val() != self.s_done.val())
            && (self.st.q.val() != self.s_trap.val());
        self.st.reset.next = self.reset.val();
        self.st.en.next = self.gate.go.val();
        self.st.ld.next = self.hostdec.start.val();
        self.st.lv.next = self.s_init.val();
        self.init_i.reset.next = self.reset.val();
        self.init_i.en.next = true;
        self.init_i.ld.next = self.hostdec.start.val();
        self.init_i.lv.next = self.zero32.val();
        self.pending.reset.next = self.reset.val();
        self.pending.en.next = self.gate.go.val();
        self.pending.ld.next = false;
        self.pending.lv.next = self.zero32.val();
        self.threads.reset.next = self.reset.val();
        self.threads.en.next = false;
        self.threads.ld.next = self.hostdec.start.val();
        self.cur.reset.next = self.reset.val();
        self.rr.reset.next = self.reset.val();
        self.ir.reset.next = self.reset.val();
        self.exec.reset.next = self.reset.val();
        self.served.reset.next = self.reset.val();
        self.arrived.reset.next = self.reset.val();
        self.exited.reset.next = self.reset.val();
        self.t_cause.reset.next = self.reset.val();
        self.t_pc.reset.next = self.reset.val();
        self.t_warp.reset.next = self.reset.val();
        self.t_lanes.reset.next = self.reset.val();
        self.t_addr.reset.next = self.reset.val();
        self.t_detail.reset.next = self.reset.val();
        // Host-written registers: loaded by their host write only.
        self.entry_pc.reset.next = self.reset.val();
        self.entry_pc.en.next = false;
        self.entry_pc.ld.next = self.hostdec.sel[0].val();
        self.entry_pc.lv.next = self.host_wdata.val().get_bits::<16>(0);
        self.code_len.reset.next = self.reset.val();
        self.code_len.en.next = false;
        self.code_len.ld.next = self.hostdec.sel[1].val();
        self.code_len.lv.next = self.host_wdata.val();
        self.param_count.reset.next = self.reset.val();
        self.param_count.en.next = false;
        self.param_count.ld.next = self.hostdec.sel[8].val();
        self.param_count.lv.next = self.host_wdata.val();
        self.stk_bytes.reset.next = self.reset.val();
        self.stk_bytes.en.next = false;
        self.stk_bytes.ld.next = self.hostdec.sel[25].val();
        self.stk_bytes.lv.next = self.host_wdata.val();
        // Stack limits, derived from the stack bytes in registers.
        self.stk.clock.next = self.clock.val();
        self.stk.reset.next = self.reset.val();
        self.stk.s.next = self.stk_bytes.q.val();
        self.stk.cur.next = self.cur.q.val();
        for i in 0..3 {
            self.grid[i].reset.next = self.reset.val();
            self.grid[i].en.next = false;
            self.grid[i].ld.next = self.hostdec.sel[2 + i].val();
            self.grid[i].lv.next = self.host_wdata.val();
            self.blk[i].reset.next = self.reset.val();
            self.blk[i].en.next = false;
            self.blk[i].ld.next = self.hostdec.sel[5 + i].val();
            self.blk[i].lv.next = self.host_wdata.val();
            self.bid[i].reset.next = self.reset.val();
            self.bid[i].en.next = true;
            self.bid[i].ld.next = self.hostdec.start.val();
            self.bid[i].lv.next = self.zero32.val();
            self.t_block[i].reset.next = self.reset.val();
        }
        for i in 0..self._params {
            self.params[i].reset.next = self.reset.val();
            self.params[i].en.next = false;
            self.params[i].ld.next = self.hostdec.sel[9 + i].val();
            self.params[i].lv.next = self.host_wdata.val();
        }
        // Counters: cleared by `start`; `replays` changes in a memory
        // completion, so it waits with the port.
        self.c_cycles.reset.next = self.reset.val();
        self.c_issued.reset.next = self.reset.val();
        self.c_active.reset.next = self.reset.val();
        self.c_executed.reset.next = self.reset.val();
        self.c_replays.reset.next = self.reset.val();
        self.c_divergent.reset.next = self.reset.val();
        self.c_taken.reset.next = self.reset.val();
        self.c_not_taken.reset.next = self.reset.val();
        self.c_arrivals.reset.next = self.reset.val();
        self.c_barriers.reset.next = self.reset.val();
        self.c_blocks.reset.next = self.reset.val();
        self.c_cycles.en.next = true;
        self.c_issued.en.next = true;
        self.c_active.en.next = true;
        self.c_executed.en.next = true;
        self.c_replays.en.next = self.gate.go.val();
        self.c_divergent.en.next = true;
        self.c_taken.en.next = true;
        self.c_not_taken.en.next = true;
        self.c_arrivals.en.next = true;
        self.c_barriers.en.next = true;
        self.c_blocks.en.next = true;
        self.c_cycles.ld.next = self.hostdec.start.val();
        self.c_issued.ld.next = self.hostdec.start.val();
        self.c_active.ld.next = self.hostdec.start.val();
        self.c_executed.ld.next = self.hostdec.start.val();
        self.c_replays.ld.next = self.hostdec.start.val();
        self.c_divergent.ld.next = self.hostdec.start.val();
        self.c_taken.ld.next = self.hostdec.start.val();
        self.c_not_taken.ld.next = self.hostdec.start.val();
        self.c_arrivals.ld.next = self.hostdec.start.val();
        self.c_barriers.ld.next = self.hostdec.start.val();
        self.c_blocks.ld.next = self.hostdec.start.val();
        self.c_cycles.lv.next = self.zero64.val();
        self.c_issued.lv.next = self.zero64.val();
        self.c_active.lv.next = self.zero64.val();
        self.c_executed.lv.next = self.zero64.val();
        self.c_replays.lv.next = self.zero64.val();
        self.c_divergent.lv.next = self.zero64.val();
        self.c_taken.lv.next = self.zero64.val();
        self.c_not_taken.lv.next = self.zero64.val();
        self.c_arrivals.lv.next = self.zero64.val();
        self.c_barriers.lv.next = self.zero64.val();
        self.c_blocks.lv.next = self.zero64.val();
        self.imem.clock.next = self.clock.val();
        self.shared.clock.next = self.clock.val();
        self.warps.clock.next = self.clock.val();

        // Decoder: the instruction memory output in DECODE, then `ir`.
        self.decode.word.next = self.ir.q.val();
        if self.st.q.val() == self.s_decode.val() {
            self.decode.word.next = self.imem.rdata.val();
        }

        // Instruction memory: FETCH reads `gpc[cur]`; the host writes.
        self.imem.raddr.next = self.warps.gpc_cur.val();
        self.imem.waddr.next = self.host_addr.val().get_bits::<16>(0);
        self.imem.wdata.next = self.host_wdata.val();
        self.imem.we.next = self.hostdec.imem_we.val();

        // Per-warp state views.
        self.warps.reset.next = self.reset.val();
        self.warps.go.next = self.gate.go.val();
        self.warps.cur.next = self.cur.q.val();
        self.warps.pr_g.next = self.decode.gpred.val();
        self.warps.pr_a.next = self.decode.pa.val();
        self.warps.pr_b.next = self.decode.pb.val();
        self.warps.threads.next = self.threads.q.val();

        // Extensions.
        self.curx9.i.next = self.cur.q.val();
        self.srca9.i.next = self.decode.src_a.val();
        self.srcb9.i.next = self.decode.src_b.val();
        self.rd9.i.next = self.decode.rd.val();
        self.curx7.i.next = self.cur.q.val();
        self.pd7.i.next = self.decode.pd.val();
        self.curx32.i.next = self.cur.q.val();
        self.gpcx.i.next = self.warps.gpc_cur.val();
        self.tpcx.i.next = self.t_pc.q.val();
        self.twx.i.next = self.t_warp.q.val();
        self.tcx.i.next = self.t_cause.q.val();

        // Predicates.
        self.pctl.gmask.next = self.warps.gmask_cur.val();
        self.pctl.exec.next = self.exec.q.val();
        self.pctl.pm_g.next = self.warps.pm_g.val();
        self.pctl.pm_a.next = self.warps.pm_a.val();
        self.pctl.pm_b.next = self.warps.pm_b.val();
        self.pctl.gneg.next = self.decode.gneg.val();
        self.pctl.pa_neg.next = self.decode.pa_neg.val();
        self.pctl.pb_neg.next = self.decode.pb_neg.val();
        self.pctl.func.next = self.decode.func.val();

        // Popcounts: active lanes; executing lanes (new in DECODE, latched after).
        self.pop_a.i.next = self.warps.gmask_cur.val();
        self.pop_e.i.next = self.exec.q.val();
        if self.st.q.val() == self.s_decode.val() {
            self.pop_e.i.next = self.pctl.exec_new.val();
        }
        self.popa64.i.next = self.pop_a.o.val();
        self.pope64.i.next = self.pop_e.o.val();

        // Warp-uniform register values.
        self.bc.k_ldparam.next = self.decode.k_ldparam.val();
        self.bc.k_s2r.next = self.decode.k_s2r.val();
        self.bc.k_ballot.next = self.decode.k_ballot.val();
        self.bc.k_link.next = self.decode.k_call.val() || self.decode.k_callr.val();
        self.bc.imm.next = self.decode.imm.val();
        for i in 0..self._params {
            self.bc.params[i].next = self.params[i].q.val();
        }
        for i in 0..3 {
            self.bc.ntid[i].next = self.blk[i].q.val();
            self.bc.ctaid[i].next = self.bid[i].q.val();
            self.bc.nctaid[i].next = self.grid[i].q.val();
        }
        self.bc.warp_id.next = self.curx32.o.val();
        self.bc.threads.next = self.threads.q.val();
        self.bc.clock_lo.next = self.c_cycles.q.val().get_bits::<32>(0);
        self.bc.clock_hi.next = self.c_cycles.q.val().get_bits::<32>(32);
        // `pc + 1` in 32 bits: 65536 after a call at the last address.
        self.bc.link.next = self.gpcx.o.val() + self.st_one.val();
        self.bc.ballot.next = self.pctl.ballot.val();

        // Memory access limits.
        self.mc.mlog.next = self.decode.mlog.val();
        self.mc.shared.next = self.decode.shared.val();

        // Arbiter: branch mode (schedulable lanes, PC keys) or memory mode.
        self.arbiter.en.next =
            (self.st.q.val() == self.s_arb.val()) || (self.st.q.val() == self.s_mem_arb.val());
        for l in 0..self._lanes {
            self.arbiter.valid[l].next =
                self.warps.alive_cur.val().get_bit(l) && !self.warps.waiting_cur.val().get_bit(l);
            self.arbiter.key[l].next = self.lanes[l].bkey.val();
            if self.st.q.val() == self.s_mem_arb.val() {
                self.arbiter.valid[l].next = self.pending.q.val().get_bit(l);
                self.arbiter.key[l].next = self.lanes[l].mkey.val();
            }
        }

        // Lanes.
        for l in 0..self._lanes {
            self.lanes[l].clock.next = self.clock.val();
            self.lanes[l].cur.next = self.cur.q.val();
            self.lanes[l].pw.next = self.warps.fw.val();
            self.lanes[l].reset.next = self.reset.val();
            self.lanes[l].rf_raddr.next =
                (self.curx9.o.val() << self.rp_shift.val()) + self.srcb9.o.val();
            if self.st.q.val() == self.s_decode.val() {
                self.lanes[l].rf_raddr.next =
                    (self.curx9.o.val() << self.rp_shift.val()) + self.srca9.o.val();
            }
            self.lanes[l].rf_waddr.next =
                (self.curx9.o.val() << self.rp_shift.val()) + self.rd9.o.val();
            if self.st.q.val() == self.s_init.val() {
                self.lanes[l].rf_waddr.next = self.init_i.q.val().get_bits::<RF_ADDR_BITS>(0);
            }
            self.lanes[l].go.next = self.gate.go.val();
            self.lanes[l].dp_en.next = self.st.q.val() == self.s_exec.val();
            self.lanes[l].key_en.next =
                (self.st.q.val() == self.s_arb.val()) || (self.st.q.val() == self.s_mem_arb.val());
            self.lanes[l].rf_wdata.next = self.loads.wdata[l].val();
            self.lanes[l].raw_sh.next = self.rowsel.raw[l].val();
            self.lanes[l].latch_a.next = self.st.q.val() == self.s_read2.val();
            self.lanes[l].latch_b.next = self.st.q.val() == self.s_exec.val();
            self.lanes[l].latch_m.next =
                (self.st.q.val() == self.s_exec.val()) && self.decode.memory.val();
            self.lanes[l].alu_func.next = self.decode.func.val();
            self.lanes[l].cmp_func.next = self.decode.func.val();
            self.lanes[l].atom_func.next = self.decode.func.val();
            self.lanes[l].use_imm.next = self.decode.k_alui.val() || self.decode.k_setpi.val();
            self.lanes[l].imm.next = self.decode.imm.val();
            if self.decode.k_atom.val() {
                self.lanes[l].imm.next = self.zero32.val();
            }
            self.lanes[l].r_alu.next = self.decode.k_alu.val() || self.decode.k_alui.val();
            self.lanes[l].r_movhi.next = self.decode.k_movhi.val();
            self.lanes[l].r_sel.next = self.decode.k_sel.val();
            self.lanes[l].r_sreg.next = self.decode.k_s2r.val() && self.bc.lane_sreg.val();
            self.lanes[l].r_bcast.next = self.decode.k_movi.val()
                || self.decode.k_ldparam.val()
                || self.decode.k_ballot.val()
                || self.decode.k_call.val()
                || self.decode.k_callr.val()
                || (self.decode.k_s2r.val() && !self.bc.lane_sreg.val());
            self.lanes[l].bcast.next = self.bc.out.val();
            self.lanes[l].pbit.next = self.pctl.pmb.val().get_bit(l);
            self.lanes[l].sreg.next = self.decode.imm.val().get_bits::<5>(0);
            self.lanes[l].warp_base.next = self.curx32.o.val() << self.lane_shift.val();
            self.lanes[l].tx.next = self.tidgen.tx[l].val();
            self.lanes[l].ty.next = self.tidgen.ty[l].val();
            self.lanes[l].tz.next = self.tidgen.tz[l].val();
            self.lanes[l].amask.next = self.mc.amask.val();
            self.lanes[l].limit.next = self.mc.limit.val();
            self.lanes[l].stk_top.next = self.stk.tops[l].val();
            self.lanes[l].stk_lo.next = self.stk.tops[l + 1].val();
            self.lanes[l].stk_woff.next = self.stk.woff.val();
            self.lanes[l].stk_from.next = self.stk.from.val();
            self.lanes[l].code_len.next = self.code_len.q.val();
            self.lanes[l].seq_pc.next = self.gpcx.o.val() + self.st_one.val();
            self.lanes[l].seq_bad.next =
                (self.gpcx.o.val() + self.st_one.val()) >= self.code_len.q.val();
            self.lanes[l].tgt_pc.next = self.decode.imm.val();
            self.lanes[l].tgt_bad.next = self.decode.imm.val() >= self.code_len.q.val();
            self.lanes[l].m_atom.next = self.decode.k_atom.val();
            self.lanes[l].m_shared.next = self.decode.shared.val();
            self.lanes[l].mlog.next = self.decode.mlog.val();
            self.lanes[l].init0.next =
                (self.st.q.val() == self.s_init.val()) && !self.init_i.q.val().any();
            self.lanes[l].entry_pc.next = self.entry_pc.q.val();
            self.lanes[l].pc_next.next = self.warps.gpc_cur.val() + self.one16.val();
            self.lanes[l].pc_tgt.next = self.decode.imm.val().get_bits::<16>(0);
            // PC and depth writes. Writes made in a cycle that traps are
            // never observed: TRAP is final until the next start re-runs INIT.
            self.lanes[l].pc_we.next = false;
            self.lanes[l].pc_sel_a.next = false;
            self.lanes[l].pc_sel_t.next = false;
            self.lanes[l].depth_inc.next = false;
            self.lanes[l].depth_dec.next = false;
            if self.st.q.val() == self.s_exec.val() {
                if !self.decode.memory.val() || !self.exec.q.val().any() {
                    // Data and control instructions, and memory instructions
                    // with no executing lane (they complete at once): every
                    // active lane gets its next PC.
                    self.lanes[l].pc_we.next = self.warps.gmask_cur.val().get_bit(l);
                }
                if self.decode.k_bra.val() || self.decode.k_call.val() {
                    self.lanes[l].pc_sel_t.next = self.exec.q.val().get_bit(l);
                }
                if self.decode.k_cons.val() {
                    self.lanes[l].pc_sel_t.next = self.pctl.taken.val();
                }
                if self.decode.k_jmp.val() || self.decode.k_callr.val() || self.decode.k_ret.val() {
                    self.lanes[l].pc_sel_a.next = self.exec.q.val().get_bit(l);
                }
                if self.decode.k_call.val() || self.decode.k_callr.val() {
                    self.lanes[l].depth_inc.next = self.exec.q.val().get_bit(l);
                }
                if self.decode.k_ret.val() {
                    self.lanes[l].depth_dec.next = self.exec.q.val().get_bit(l);
                }
            }
            if (self.st.q.val() == self.s_sh_data.val()) || (self.st.q.val() == self.s_g_wait.val())
            {
                // Completing a memory issue (in G_WAIT it takes effect when the
                // response is there: `go` enables the PC registers): every active lane that is not
                // left pending moves to pc + 1.
                self.lanes[l].pc_we.next = self.warps.gmask_cur.val().get_bit(l)
                    && (self.served.q.val().get_bit(l) || !self.pending.q.val().get_bit(l));
            }
        }

        // Trap report and host read port (the table of §9; the mux is
        // `HostRead`, which reads the `host_raddr` port).
        self.hostrd.raddr.next = self.host_raddr.val();
        self.hostrd.vals[0].next = self.zero32.val();
        if self.st.q.val() == self.s_done.val() {
            self.hostrd.vals[0].next = self.st_two.val();
        } else if self.st.q.val() == self.s_trap.val() {
            self.hostrd.vals[0].next = self.st_four.val();
        } else if self.st.q.val() != self.s_idle.val() {
            self.hostrd.vals[0].next = self.st_one.val();
        }
        self.hostrd.vals[1].next = self.tcx.o.val();
        self.hostrd.vals[2].next = self.tpcx.o.val();
        self.hostrd.vals[3].next = self.twx.o.val();
        self.hostrd.vals[4].next = self.t_lanes.q.val();
        for i in 0..3 {
            self.hostrd.vals[5 + i].next = self.t_block[i].q.val();
        }
        self.hostrd.vals[8].next = self.t_addr.q.val();
        self.hostrd.vals[9].next = self.t_detail.q.val();
        self.hostrd.vals[10].next = self.arrived.q.val();
        self.hostrd.vals[11].next = self.exited.q.val();
        self.hostrd.vals[12].next = self.threads.q.val();
        self.hostrd.vals[13].next = self.zero32.val();
        self.hostrd.vals[14].next = self.zero32.val();
        self.hostrd.vals[15].next = self.zero32.val();
        self.hostrd.vals[16].next = self.c_cycles.q.val().get_bits::<32>(0);
        self.hostrd.vals[17].next = self.c_cycles.q.val().get_bits::<32>(32);
        self.hostrd.vals[18].next = self.c_issued.q.val().get_bits::<32>(0);
        self.hostrd.vals[19].next = self.c_issued.q.val().get_bits::<32>(32);
        self.hostrd.vals[20].next = self.c_active.q.val().get_bits::<32>(0);
        self.hostrd.vals[21].next = self.c_active.q.val().get_bits::<32>(32);
        self.hostrd.vals[22].next = self.c_executed.q.val().get_bits::<32>(0);
        self.hostrd.vals[23].next = self.c_executed.q.val().get_bits::<32>(32);
        self.hostrd.vals[24].next = self.c_replays.q.val().get_bits::<32>(0);
        self.hostrd.vals[25].next = self.c_replays.q.val().get_bits::<32>(32);
        self.hostrd.vals[26].next = self.c_divergent.q.val().get_bits::<32>(0);
        self.hostrd.vals[27].next = self.c_divergent.q.val().get_bits::<32>(32);
        self.hostrd.vals[28].next = self.c_taken.q.val().get_bits::<32>(0);
        self.hostrd.vals[29].next = self.c_taken.q.val().get_bits::<32>(32);
        self.hostrd.vals[30].next = self.c_not_taken.q.val().get_bits::<32>(0);
        self.hostrd.vals[31].next = self.c_not_taken.q.val().get_bits::<32>(32);
        self.hostrd.vals[32].next = self.c_arrivals.q.val().get_bits::<32>(0);
        self.hostrd.vals[33].next = self.c_arrivals.q.val().get_bits::<32>(32);
        self.hostrd.vals[34].next = self.c_barriers.q.val().get_bits::<32>(0);
        self.hostrd.vals[35].next = self.c_barriers.q.val().get_bits::<32>(32);
        self.hostrd.vals[36].next = self.c_blocks.q.val().get_bits::<32>(0);
        self.hostrd.vals[37].next = self.c_blocks.q.val().get_bits::<32>(32);
        self.host_rdata.next = self.hostrd.rdata.val();

        // Thread ids of warp `cur`, the lanes' shared-row words, and the
        // register-file write data (which reads the global response).
        self.tidgen.base.next = self.curx32.o.val() << self.lane_shift.val();
        self.tidgen.nx.next = self.blk[0].q.val();
        self.tidgen.ny.next = self.blk[1].q.val();
        for k in 0..self._banks {
            self.rowsel.words[k].next = self.shared.words[k].val();
        }
        for q in 0..self._gwords {
            self.loads.resp[q].next = self.gmem_resp_data.val().get_bits::<32>(32 * q);
        }
        self.loads.g_sel.next = self.st.q.val() == self.s_g_wait.val();
        self.loads.mlog.next = self.decode.mlog.val();
        self.loads.msigned.next = self.decode.msigned.val();
        self.loads.w_zero.next = self.st.q.val() == self.s_init.val();
        self.loads.w_mem.next =
            (self.st.q.val() == self.s_sh_data.val()) || (self.st.q.val() == self.s_g_wait.val());
        for l in 0..self._lanes {
            self.rowsel.widx[l].next = self.lanes[l].widx.val();
            self.loads.widx[l].next = self.lanes[l].widx.val();
            self.loads.raw_sh[l].next = self.rowsel.raw[l].val();
            self.loads.bsh[l].next = self.lanes[l].bsh.val();
            self.loads.result[l].next = self.lanes[l].result.val();
            self.trace.wd[l].next = self.loads.wdata[l].val();
        }

        self.running.next = (self.st.q.val() != self.s_idle.val())
            && (self.st.q.val() != self.s_done.val())
            && (self.st.q.val() != self.s_trap.val());
        self.done.next = self.st.q.val() == self.s_done.val();
        self.trapped.next = self.st.q.val() == self.s_trap.val();

        // Trace port: registered views.
        self.trace_state.next = self.st.q.val();
        self.trace_warp.next = self.cur.q.val();
        self.trace_pc.next = self.warps.gpc_cur.val();
        self.trace_active.next = self.warps.gmask_cur.val();
        self.trace_exec.next = self.exec.q.val();

        // =====================================================================
        // Part 2: next state.
        // =====================================================================
        self.busy.next = (self.st.q.val() != self.s_idle.val())
            && (self.st.q.val() != self.s_done.val())
            && (self.st.q.val() != self.s_trap.val());

        // Defaults.
        self.rfwe.next = self.zero32.val();
        self.pwe.next = self.zero32.val();
        self.pval.next = self.zero32.val();
        self.trap.next = false;
        self.tc.next = self.zero4.val();
        self.tl.next = self.warps.gmask_cur.val();
        self.tpc.next = self.warps.gpc_cur.val();
        self.tw.next = self.cur.q.val();
        self.ta.next = self.zero32.val();
        self.td.next = self.zero32.val();
        self.advance.next = false;
        self.i_issue.next = false;
        self.i_replays.next = false;
        self.i_divergent.next = false;
        self.i_taken.next = false;
        self.i_not_taken.next = false;
        self.i_arrivals.next = false;
        self.i_barriers.next = false;
        self.i_blocks.next = false;
        self.warps.init0.next = false;
        self.warps.grp_we.next = false;
        self.warps.grp_mask.next = self.warps.gmask_cur.val();
        self.warps.grp_pc.next = self.warps.gpc_cur.val();
        self.warps.grp_valid.next = false;
        self.warps.alive_we.next = false;
        self.warps.alive_val.next = self.warps.alive_cur.val() & !self.exec.q.val();
        self.warps.wait_we.next = false;
        self.warps.wait_val.next = self.warps.waiting_cur.val() | self.exec.q.val();
        self.warps.rel_all.next = false;
        self.warps.pred_we.next = false;
        self.warps.pd.next = self.decode.pd.val();
        self.warps.pmask.next = self.exec.q.val();
        self.warps.pval.next = self.zero32.val();
        self.gmem_req_valid.next = false;
        self.gmem_req_kind.next = self.zero2.val();
        self.gmem_req_addr.next = self.zero32.val();
        self.gmem_req_wdata.next = self.zero_line.val();
        self.gmem_req_mask.next = self.zero128.val();
        self.gmem_req_atom_op.next = self.zero4.val();
        self.gmem_req_atom_data.next = self.zero32.val();

        // ---- values derived from the lanes ----
        self.gpc1.next = self.warps.gpc_cur.val() + self.one16.val();
        // Depth of the issuing group (equal in all its lanes under depth_pc).
        self.gdepth.next = self.zero16.val();
        for l in 0..self._lanes {
            if self.warps.gmask_cur.val().get_bit(l) {
                self.gdepth.next = self.lanes[l].depth_cur.val();
            }
        }
        // Lanes that join the group after it moves to pc + 1.
        self.joinm.next = self.zero32.val();
        for l in 0..self._lanes {
            if self.warps.alive_cur.val().get_bit(l)
                && !self.warps.waiting_cur.val().get_bit(l)
                && !self.warps.gmask_cur.val().get_bit(l)
                && (self.lanes[l].pc_cur.val() == self.gpc1.val())
                && (!self.depth_pc.val() || (self.lanes[l].depth_cur.val() == self.gdepth.val()))
            {
                self.joinm.next = self.joinm.val() | self.lane_bit[l].val();
            }
        }
        // Setp results.
        self.cmpm.next = self.zero32.val();
        for l in 0..self._lanes {
            if self.lanes[l].cmp.val() {
                self.cmpm.next = self.cmpm.val() | self.lane_bit[l].val();
            }
        }
        // Call depth checks.
        self.over.next = self.zero32.val();
        self.zdep.next = self.zero32.val();
        for l in 0..self._lanes {
            if self.exec.q.val().get_bit(l)
                && (self.lanes[l].depth_cur.val() == self.max_depth.val())
            {
                self.over.next = self.over.val() | self.lane_bit[l].val();
            }
            if self.exec.q.val().get_bit(l) && !self.lanes[l].depth_cur.val().any() {
                self.zdep.next = self.zdep.val() | self.lane_bit[l].val();
            }
        }
        // Divergence: do the active lanes end with more than one (pc, depth)?
        self.ref_pc.next = self.zero16.val();
        self.ref_d.next = self.zero16.val();
        for l in 0..self._lanes {
            if self.warps.gmask_cur.val().get_bit(l) {
                self.ref_pc.next = self.lanes[l].npc.val();
                self.ref_d.next = self.lanes[l].ndepth.val();
            }
        }
        self.split.next = false;
        for l in 0..self._lanes {
            if self.warps.gmask_cur.val().get_bit(l)
                && ((self.lanes[l].npc.val() != self.ref_pc.val())
                    || (self.lanes[l].ndepth.val() != self.ref_d.val()))
            {
                self.split.next = true;
            }
        }
        // Memory checks: misaligned lanes, then out-of-range lanes; the
        // report's address is the lowest faulting lane's.
        self.mism.next = self.zero32.val();
        self.oorm.next = self.zero32.val();
        for l in 0..self._lanes {
            if self.exec.q.val().get_bit(l) && self.lanes[l].mis.val() {
                self.mism.next = self.mism.val() | self.lane_bit[l].val();
            }
            if self.exec.q.val().get_bit(l) && !self.lanes[l].mis.val() && self.lanes[l].oor.val() {
                self.oorm.next = self.oorm.val() | self.lane_bit[l].val();
            }
        }
        // Then stack overflows: reported only when no lane is misaligned
        // or out of range, so no lane's `stk` needs to exclude those.
        self.stkm.next = self.zero32.val();
        // The next-PC check: every active lane that does not exit.
        self.pcm.next = self.zero32.val();
        for l in 0..self._lanes {
            if self.exec.q.val().get_bit(l) && self.lanes[l].stk.val() {
                self.stkm.next = self.stkm.val() | self.lane_bit[l].val();
            }
            if self.warps.gmask_cur.val().get_bit(l)
                && self.lanes[l].npc_bad.val()
                && !(self.decode.k_exit.val() && self.exec.q.val().get_bit(l))
            {
                self.pcm.next = self.pcm.val() | self.lane_bit[l].val();
            }
        }
        self.mis_a.next = self.zero32.val();
        self.oor_a.next = self.zero32.val();
        self.stk_a.next = self.zero32.val();
        self.pc_a.next = self.zero32.val();
        for lm1 in self._lm1..self._lanes {
            for n in 0..self._lanes {
                if self.mism.val().get_bit(lm1 - n) {
                    self.mis_a.next = self.lanes[lm1 - n].maddr_n.val();
                }
                if self.oorm.val().get_bit(lm1 - n) {
                    self.oor_a.next = self.lanes[lm1 - n].maddr_n.val();
                }
                if self.stkm.val().get_bit(lm1 - n) {
                    self.stk_a.next = self.lanes[lm1 - n].maddr_n.val();
                }
                if self.pcm.val().get_bit(lm1 - n) {
                    self.pc_a.next = self.lanes[lm1 - n].npc_full.val();
                }
            }
        }
        // The served lanes' row, address and data (the highest served lane's;
        // all served lanes share the row, and atomics serve one lane).
        self.row.next = self.zero32.val();
        self.sv_maddr.next = self.zero32.val();
        self.sv_data.next = self.zero32.val();
        self.sv_widx.next = self.zero32.val();
        self.sv_new.next = self.zero32.val();
        for l in 0..self._lanes {
            if self.served.q.val().get_bit(l) {
                self.row.next = self.lanes[l].row.val();
                self.sv_maddr.next = self.lanes[l].maddr_q.val();
                self.sv_data.next = self.lanes[l].st_data.val();
                self.sv_widx.next = self.lanes[l].widx.val();
                self.sv_new.next = self.lanes[l].atom_new.val();
            }
        }
        self.pnew.next = self.pending.q.val() & !self.served.q.val();

        // ---- scheduler: round robin from `rr` ----
        self.pick_any.next = self.zero4.val();
        self.pick_hi.next = self.zero4.val();
        self.found_hi.next = false;
        for wm1 in self._wm1..self._warps {
            for n in 0..self._warps {
                if self.warps.sched.val().get_bit(wm1 - n) {
                    self.pick_any.next = (wm1 - n).to_bits();
                    if self.rr.q.val().index() <= wm1 - n {
                        self.pick_hi.next = (wm1 - n).to_bits();
                        self.found_hi.next = true;
                    }
                }
            }
        }
        self.pick.next = self.pick_any.val();
        if self.found_hi.val() {
            self.pick.next = self.pick_hi.val();
        }
        self.pick_gv.next = false;
        for w in 0..self._warps {
            if self.pick.val().index() == w {
                self.pick_gv.next = self.warps.gvalid_all.val().get_bit(w);
            }
        }
        self.last_block.next = (self.bid[0].q.val() + 1 >= self.grid[0].q.val())
            && (self.bid[1].q.val() + 1 >= self.grid[1].q.val())
            && (self.bid[2].q.val() + 1 >= self.grid[2].q.val());
        self.probe_pc.next = self.zero16.val();
        for lm1 in self._lm1..self._lanes {
            for n in 0..self._lanes {
                if self.warps.fw_mask.val().get_bit(lm1 - n) {
                    self.probe_pc.next = self.lanes[lm1 - n].pc_probe.val();
                }
            }
        }
        self.t1.next =
            self.blk[0].q.val().get_bits::<16>(0) * self.blk[1].q.val().get_bits::<16>(0);
        self.arrived_new.next = self.arrived.q.val() + self.pop_e.o.val();

        // ---- the state machine ----
        // IDLE, DONE, TRAP: host writes and `start` load registers through
        // their `ld` inputs (`HostDec`); `threads` is loaded by `start`.
        self.threads.lv.next =
            self.t1.val().get_bits::<16>(0) * self.blk[2].q.val().get_bits::<16>(0);
        if self.st.q.val() == self.s_init.val() {
            if self.init_i.q.val() < self.rf_words.val() {
                self.rfwe.next = self.lane_mask.val();
            }
            if !self.init_i.q.val().any() {
                self.warps.init0.next = true;
                self.arrived.d.next = self.zero32.val();
                self.exited.d.next = self.zero32.val();
                self.rr.d.next = self.zero4.val();
            }
            self.init_i.d.next = self.init_i.q.val() + 1;
            if self.init_i.q.val() == self.init_last.val() {
                self.st.d.next = self.s_sched.val();
            }
        }
        if self.st.q.val() == self.s_sched.val() {
            if self.warps.sched.val().any() {
                self.cur.d.next = self.pick.val();
                self.rr.d.next = self.pick.val() + self.one4.val();
                if self.pick.val() == self.wm1.val() {
                    self.rr.d.next = self.zero4.val();
                }
                self.st.d.next = self.s_arb.val();
                if self.pick_gv.val() {
                    self.st.d.next = self.s_fetch.val();
                }
            } else if self.arrived.q.val().any() {
                self.trap.next = true;
                self.tc.next = self.tc_barrier.val();
                self.tw.next = self.warps.fw.val();
                self.tl.next = self.warps.fw_mask.val();
                self.tpc.next = self.probe_pc.val();
            } else {
                self.i_blocks.next = true;
                if self.last_block.val() {
                    self.st.d.next = self.s_done.val();
                } else {
                    self.st.d.next = self.s_init.val();
                    self.init_i.d.next = self.zero32.val();
                    if self.bid[0].q.val() + 1 < self.grid[0].q.val() {
                        self.bid[0].d.next = self.bid[0].q.val() + 1;
                    } else {
                        self.bid[0].d.next = self.zero32.val();
                        if self.bid[1].q.val() + 1 < self.grid[1].q.val() {
                            self.bid[1].d.next = self.bid[1].q.val() + 1;
                        } else {
                            self.bid[1].d.next = self.zero32.val();
                            self.bid[2].d.next = self.bid[2].q.val() + 1;
                        }
                    }
                }
            }
        }
        if self.st.q.val() == self.s_arb.val() {
            self.warps.grp_we.next = true;
            self.warps.grp_mask.next = self.arbiter.sel.val();
            self.warps.grp_pc.next = self.arbiter.min.val().get_bits::<16>(0);
            self.warps.grp_valid.next = true;
            self.st.d.next = self.s_fetch.val();
        }
        if self.st.q.val() == self.s_fetch.val() {
            if self.gpcx.o.val() >= self.code_len.q.val() {
                self.trap.next = true;
                self.tc.next = self.tc_pc.val();
            } else {
                self.st.d.next = self.s_decode.val();
            }
        }
        if self.st.q.val() == self.s_decode.val() {
            // A cycle that traps does nothing else: an invalid word is not
            // counted as an issue (docs/microarchitecture.md §4).
            if self.decode.valid.val() {
                self.ir.d.next = self.imem.rdata.val();
                self.exec.d.next = self.pctl.exec_new.val();
                self.i_issue.next = true;
                self.st.d.next = self.s_read2.val();
            } else {
                self.trap.next = true;
                self.tc.next = self.tc_invalid.val();
                self.td.next = self.imem.rdata.val();
            }
        }
        if self.st.q.val() == self.s_read2.val() {
            self.st.d.next = self.s_exec.val();
        }
        if self.st.q.val() == self.s_exec.val() {
            self.st.d.next = self.s_sched.val();
            if self.decode.memory.val() {
                if self.mism.val().any() {
                    self.trap.next = true;
                    self.tc.next = self.tc_mis.val();
                    self.tl.next = self.mism.val();
                    self.ta.next = self.mis_a.val();
                    self.td.next = self.mc.amask.val() + 1;
                } else if self.oorm.val().any() {
                    self.trap.next = true;
                    self.tc.next = self.tc_oor.val();
                    self.tl.next = self.oorm.val();
                    self.ta.next = self.oor_a.val();
                    self.td.next = self.mc.amask.val() + 1;
                } else if self.stkm.val().any() {
                    self.trap.next = true;
                    self.tc.next = self.tc_stack.val();
                    self.tl.next = self.stkm.val();
                    self.ta.next = self.stk_a.val();
                    self.td.next = self.mc.amask.val() + 1;
                } else if self.pcm.val().any() {
                    self.trap.next = true;
                    self.tc.next = self.tc_npc.val();
                    self.tl.next = self.pcm.val();
                    self.ta.next = self.pc_a.val();
                } else {
                    self.pending.d.next = self.exec.q.val();
                    if self.exec.q.val().any() {
                        self.st.d.next = self.s_mem_arb.val();
                    } else {
                        self.advance.next = true;
                    }
                }
            } else if self.decode.control.val() {
                if (self.decode.k_call.val() || self.decode.k_callr.val()) && self.over.val().any()
                {
                    self.trap.next = true;
                    self.tc.next = self.tc_depth.val();
                    self.tl.next = self.over.val();
                } else if self.decode.k_ret.val() && self.zdep.val().any() {
                    self.trap.next = true;
                    self.tc.next = self.tc_ret.val();
                    self.tl.next = self.zdep.val();
                } else if self.pcm.val().any() {
                    self.trap.next = true;
                    self.tc.next = self.tc_npc.val();
                    self.tl.next = self.pcm.val();
                    self.ta.next = self.pc_a.val();
                } else {
                    self.warps.grp_we.next = true;
                    self.warps.grp_valid.next = false;
                    if self.decode.k_call.val() || self.decode.k_callr.val() {
                        self.rfwe.next = self.exec.q.val();
                    }
                    if (self.decode.k_bra.val()
                        || self.decode.k_jmp.val()
                        || self.decode.k_call.val()
                        || self.decode.k_callr.val()
                        || self.decode.k_ret.val())
                        && self.split.val()
                    {
                        self.i_divergent.next = true;
                    }
                    if self.decode.k_cons.val() {
                        if self.pctl.taken.val() {
                            self.i_taken.next = true;
                        } else {
                            self.i_not_taken.next = true;
                        }
                    }
                    if self.decode.k_bar.val() {
                        self.warps.wait_we.next = true;
                        self.i_arrivals.next = true;
                        self.arrived.d.next = self.arrived_new.val();
                        if self.arrived_new.val() == self.threads.q.val() {
                            self.warps.rel_all.next = true;
                            self.arrived.d.next = self.zero32.val();
                            self.i_barriers.next = true;
                        }
                    }
                    if self.decode.k_exit.val() {
                        self.warps.alive_we.next = true;
                        self.exited.d.next = self.exited.q.val() + self.pop_e.o.val();
                    }
                }
            } else {
                // Data instructions.
                if self.decode.k_ldparam.val()
                    && self.exec.q.val().any()
                    && (self.decode.imm.val() >= self.param_count.q.val())
                {
                    self.trap.next = true;
                    self.tc.next = self.tc_param.val();
                    self.td.next = self.decode.imm.val();
                } else if self.pcm.val().any() {
                    self.trap.next = true;
                    self.tc.next = self.tc_npc.val();
                    self.tl.next = self.pcm.val();
                    self.ta.next = self.pc_a.val();
                } else {
                    if self.decode.wr_rd.val() {
                        self.rfwe.next = self.exec.q.val();
                    }
                    if self.decode.wr_pd.val() {
                        self.pwe.next = self.exec.q.val();
                        self.pval.next = self.cmpm.val();
                        if self.decode.k_plogic.val() {
                            self.pval.next = self.pctl.plogic.val();
                        }
                        if self.decode.k_vote.val() {
                            self.pval.next = self.pctl.vote.val();
                        }
                    }
                    self.advance.next = true;
                }
            }
        }
        if self.st.q.val() == self.s_mem_arb.val() {
            self.served.d.next = self.arbiter.sel.val();
            self.st.d.next = self.s_g_req.val();
            if self.decode.shared.val() {
                self.st.d.next = self.s_sh_access.val();
            }
        }
        if self.st.q.val() == self.s_sh_access.val() {
            self.st.d.next = self.s_sh_data.val();
        }
        if self.st.q.val() == self.s_g_req.val() {
            self.gmem_req_valid.next = true;
            self.gmem_req_addr.next = self.sv_maddr.val() & self.line_mask.val();
            if self.decode.k_load.val() {
                self.gmem_req_kind.next = self.kind_read.val();
            }
            if self.decode.k_store.val() {
                self.gmem_req_kind.next = self.kind_write.val();
                self.gmem_req_wdata.next = self.wpack.out.val();
                self.gmem_req_mask.next = self.mpack.out.val();
            }
            if self.decode.k_atom.val() {
                self.gmem_req_kind.next = self.kind_atomic.val();
                self.gmem_req_addr.next = self.sv_maddr.val();
                self.gmem_req_atom_op.next = self.decode.func.val();
                self.gmem_req_atom_data.next = self.sv_data.val();
            }
            // Accepted when `gmem_req_ready` (until then `go` holds `st`).
            self.st.d.next = self.s_g_wait.val();
        }
        if (self.st.q.val() == self.s_sh_data.val()) || (self.st.q.val() == self.s_g_wait.val()) {
            // In G_WAIT this is the response cycle: until the response is
            // there `go` is 0 and every register and write holds.
            // Loads and atomics write rd of the served lanes; then complete.
            if !self.decode.k_store.val() {
                self.rfwe.next = self.served.q.val();
            }
            self.pending.d.next = self.pnew.val();
            self.st.d.next = self.s_sched.val();
            if !self.pnew.val().any() {
                self.advance.next = true;
            } else {
                self.i_replays.next = true;
                self.warps.grp_we.next = true;
                self.warps.grp_valid.next = false;
            }
        }
        if self.advance.val() {
            self.warps.grp_we.next = true;
            self.warps.grp_valid.next = true;
            self.warps.grp_pc.next = self.gpc1.val();
            self.warps.grp_mask.next = self.warps.gmask_cur.val() | self.joinm.val();
        }
        if self.trap.val() {
            self.st.d.next = self.s_trap.val();
            self.rfwe.next = self.zero32.val();
            self.pwe.next = self.zero32.val();
            self.warps.grp_we.next = false;
            self.warps.alive_we.next = false;
            self.warps.wait_we.next = false;
            self.warps.rel_all.next = false;
            self.t_cause.d.next = self.tc.val();
            self.t_pc.d.next = self.tpc.val();
            self.t_warp.d.next = self.tw.val();
            self.t_lanes.d.next = self.tl.val();
            self.t_addr.d.next = self.ta.val();
            self.t_detail.d.next = self.td.val();
            for i in 0..3 {
                self.t_block[i].d.next = self.bid[i].q.val();
            }
        }

        // ---- shared memory ----
        self.shared.addr.next = self.row.val().get_bits::<ROW_BITS>(0);
        if self.st.q.val() == self.s_init.val() {
            self.shared.addr.next = self.init_i.q.val().get_bits::<ROW_BITS>(0);
        }
        for bk in 0..self._banks {
            for j in 0..4 {
                self.shared.we[4 * bk + j].next = false;
                self.shared.wdata[4 * bk + j].next = self.zero8.val();
                if (self.st.q.val() == self.s_init.val()) && (self.init_i.q.val() < self.rows.val())
                {
                    self.shared.we[4 * bk + j].next = true;
                }
                if (self.st.q.val() == self.s_sh_data.val())
                    && self.decode.k_atom.val()
                    && (self.sv_widx.val().index() == bk)
                {
                    self.shared.we[4 * bk + j].next = true;
                    self.shared.wdata[4 * bk + j].next = self.sv_new.val().get_bits::<8>(8 * j);
                }
            }
        }
        // Stores: the highest lane writing a byte wins. (The byte-lane
        // logic is inside the state test so that a simulator skips it in
        // every other cycle; the hardware is the same.)
        if (self.st.q.val() == self.s_sh_access.val()) && self.decode.k_store.val() {
            for bk in 0..self._banks {
                for j in 0..4 {
                    for l in 0..self._lanes {
                        if self.served.q.val().get_bit(l)
                            && (self.lanes[l].widx.val().index() == bk)
                            && self.lanes[l].st_be.val().get_bit(j)
                        {
                            self.shared.we[4 * bk + j].next = true;
                            self.shared.wdata[4 * bk + j].next =
                                self.lanes[l].st_data.val().get_bits::<8>(8 * j);
                        }
                    }
                }
            }
        }

        // ---- global store line ----
        // (Only in G_REQ of a store: the request carries it only then.)
        for q in 0..self._gwords {
            for j in 0..4 {
                self.gbe[4 * q + j].next = false;
                self.gbyte[4 * q + j].next = self.zero8.val();
            }
        }
        if (self.st.q.val() == self.s_g_req.val()) && self.decode.k_store.val() {
            for q in 0..self._gwords {
                for j in 0..4 {
                    for l in 0..self._lanes {
                        if self.served.q.val().get_bit(l)
                            && (self.lanes[l].widx.val().index() == q)
                            && self.lanes[l].st_be.val().get_bit(j)
                        {
                            self.gbe[4 * q + j].next = true;
                            self.gbyte[4 * q + j].next =
                                self.lanes[l].st_data.val().get_bits::<8>(8 * j);
                        }
                    }
                }
            }
        }
        for q in 0..self._gwords {
            for j in 0..4 {
                self.wpack.ins[4 * q + j].next = self.gbyte[4 * q + j].val();
                self.mpack.ins[4 * q + j].next = self.gbe[4 * q + j].val();
            }
        }

        // ---- register-file writes and predicate writes ----
        for l in 0..self._lanes {
            self.lanes[l].rf_we.next = self.rfwe.val().get_bit(l);
        }
        self.warps.pred_we.next = self.pwe.val().any();
        self.warps.pval.next = self.pval.val();

        // ---- trace port: writes of this cycle (`TraceOut` drops them
        // while `go` is 0 and zeroes the data of lanes that do not write) ----
        self.trace.go.next = self.gate.go.val();
        self.trace.rfwe.next = self.rfwe.val();
        self.trace.addr.next = (self.curx9.o.val() << self.rp_shift.val()) + self.rd9.o.val();
        if self.st.q.val() == self.s_init.val() {
            self.trace.addr.next = self.init_i.q.val().get_bits::<RF_ADDR_BITS>(0);
        }
        self.trace_rf_we.next = self.trace.rf_we.val();
        self.trace_rf_addr.next = self.trace.rf_addr.val();
        self.trace_rf_data.next = self.trace.rf_data.val();
        self.trace_pred_we.next = self.pwe.val();
        self.trace_pred_addr.next = self.zero7.val();
        self.trace_pred_data.next = self.zero32.val();
        if self.pwe.val().any() {
            self.trace_pred_addr.next = (self.curx7.o.val() << 3) | self.pd7.o.val();
            self.trace_pred_data.next = self.pval.val() & self.pwe.val();
        }

        // The arbiter's key above the PC (ARB keeps `min & 0xffff`), its
        // `any`, the high half of the first block-size product, decoder
        // outputs this core does not need, and the bits of warp and lane
        // masks above the configured counts.
        self.unused_resp.next = (self.gmem_resp_data.val() >> self.resp_used.val()).any();
        self.unused_ok.next = self.arbiter.min.val().get_bits::<24>(16).any()
            || self.arbiter.any.val()
            || self.t1.val().get_bits::<16>(16).any()
            || self.decode.opcode.val().any()
            || self.decode.k_nop.val()
            || self.decode.k_setp.val()
            || (self.warps.gvalid_all.val() & self.warps.sched.val()).any()
            || self.pctl.pmb.val().any()
            || (self.row.val() & self.row_hi.val()).any();

        // ---- counters (§2): cleared by start and by reset ----
        if self.busy.val() {
            self.c_cycles.d.next = self.c_cycles.q.val() + self.one64.val();
        }
        if self.i_issue.val() {
            self.c_issued.d.next = self.c_issued.q.val() + self.one64.val();
            self.c_active.d.next = self.c_active.q.val() + self.popa64.o.val();
            self.c_executed.d.next = self.c_executed.q.val() + self.pope64.o.val();
        }
        if self.i_replays.val() {
            self.c_replays.d.next = self.c_replays.q.val() + self.one64.val();
        }
        if self.i_divergent.val() {
            self.c_divergent.d.next = self.c_divergent.q.val() + self.one64.val();
        }
        if self.i_taken.val() {
            self.c_taken.d.next = self.c_taken.q.val() + self.one64.val();
        }
        if self.i_not_taken.val() {
            self.c_not_taken.d.next = self.c_not_taken.q.val() + self.one64.val();
        }
        if self.i_arrivals.val() {
            self.c_arrivals.d.next = self.c_arrivals.q.val() + self.pope64.o.val();
        }
        if self.i_barriers.val() {
            self.c_barriers.d.next = self.c_barriers.q.val() + self.one64.val();
        }
        if self.i_blocks.val() {
            self.c_blocks.d.next = self.c_blocks.q.val() + self.one64.val();
        }
    }
}
