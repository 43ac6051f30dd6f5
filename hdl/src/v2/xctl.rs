//! The per-lane part of Core v2 stage X (`docs/microarchitecture.md`
//! §8, §3.1): each lane's next PC and depth, the control checks, the key
//! for the A-stage arbiter tree, the join test of a non-control pass, the
//! access checks and the aligned store data, all registered into stage A
//! at the end of X. One [`XLane`] per lane, instantiated `L` times by the
//! core next to the lane data path ([`super::lane::LaneDp`]).
//!
//! **Why one block per lane.** Every output of this part is a function of
//! one lane's values and of warp-uniform ones (§8 lists no cross-lane
//! term except the divergence compare, [`XDiverge`]), so a lane block carries no lane
//! index and no `L`-wide selection; the lane count is the number of
//! instances, as for the lane data path. rust-hdl's `#[hdl_gen]` cannot
//! reduce over a run-time lane count anyway (see `shmem.rs`). Logic that
//! the lanes repeat from warp-uniform inputs (`gpc + 1`, the range limit
//! `size − n`) is merged into one copy by Yosys' `opt_merge` once the core
//! is flattened (§19.4: flat synthesis).
//!
//! **Outside this block (warp level):** the divergence compare, the one
//! cross-lane term, is [`XDiverge`] (at A, from the lanes' registered
//! `npc`/`ndepth`); the link value (`gpc + 1` as 32 bits, the same in
//! every lane: the data path carries it to W and writes it through the
//! lane's `alt_w` source, `datapath.rs`); the trap order
//! of §13.1 over the flags below (each flag is one check alone, not gated
//! by an earlier one except *out of range*, which `check_access` only
//! reports for aligned lanes); the stack check is `stack.rs`'s (its
//! compares in X on the same address, applied in A, §13.1).
//!
//! **The address comes from the lane's ALU at X, not from `y_a`.** `y_a`
//! is the ALU result registered at the end of X, i.e. available in A; the
//! memory-mode key must be in the key register at the end of X, and §13.1
//! detects the alignment and range traps in X, so this block needs the
//! address during X: the ALU's combinational output (`AluFunc::Addr`,
//! `a + imm`; for atomics the decoder's `imm` is 0) is the `addr` input
//! (a port `LaneDp` exposes for it). The one adder of §8 therefore serves
//! the address; this block adds no address adder. The stack check
//! (`stack.rs`) takes the same `addr_x`. The next-PC
//! range compare is not on the ALU's adder (the adder computes the link
//! or nothing on a control pass, and a register target `a` is needed
//! alongside): it is a 32-bit compare here.
//!
//! # Ports
//!
//! Parameters: `PCB` = `pc_bits`, `DB` = `call_depth_bits` (`D`), `K` =
//! the key width of the tree this lane feeds (unified: `K = max(Kb, Kl,
//! Kr)`; split: instantiate with `K = max(Kb, max(Kl, Kr))` and give the
//! branch tree the low `Kb` bits on control passes, the memory tree the low
//! `max(Kl, Kr)` bits on load/store passes). Generator constants
//! ([`XLane::new`]): `depth_pc` (`HwParams::depth_pc`), `line_shift`
//! (`global_line_shift`), `row_shift` (`shared_row_shift`),
//! `global_bytes` (`Gm`).
//!
//! Inputs during X (all from registers loaded at the end of R):
//!
//! | port | width | meaning |
//! |---|---|---|
//! | `ctl` | 8 | control class, one-hot ([`CTL_BRA`] … [`CTL_EXIT`]); 0 for every other pass |
//! | `taken` | 1 | consensual branch taken (warp-wide, `semantics::consensus_taken`) |
//! | `target` | `PCB` | the instruction's target (`bra`, `bra.*`, `call`) |
//! | `gpc`, `gdepth` | `PCB`, `DB` | the group's PC and depth |
//! | `code_len` | 32 | program length in words |
//! | `msp` | 2 | memory space, one-hot ([`MSP_GLOBAL`], [`MSP_SHARED`]); 0 for a non-memory pass |
//! | `mtree` | 1 | the pass is a load or store (memory-mode tree); 0 for atomics |
//! | `mw` | 3 | access width, one-hot: bit 0 one byte, bit 1 two, bit 2 four |
//! | `window` | 32 | the block's shared window in bytes (§12.2) |
//! | `active`, `exec` | 1, 1 | lane in the group; active and guard true |
//! | `alive`, `waiting` | 1, 1 | lane state before this pass |
//! | `spc`, `depth` | `PCB`, `DB` | stored PC (lane-PC LUT-RAM copy 1) and depth (flip-flops) |
//! | `a` | 32 | operand A (`jmp`, `callr`, `ret` target) |
//! | `addr` | 32 | the lane ALU's address at X |
//! | `sdata` | 32 | store data (operand B) |
//!
//! Outputs at A (registered at the end of X):
//!
//! | port | width | meaning |
//! |---|---|---|
//! | `npc` | 32 | active lane: its next PC, all 32 bits (the trap report's target); other lanes: stored PC. The lane-PC write takes the low `PCB` bits |
//! | `ndepth` | `DB` | depth after the pass (`call`/`callr` +1, `ret` −1 for executing lanes) |
//! | `key`, `kvalid` | `K`, 1 | control pass: branch key of (`npc`, `ndepth`), valid `alive' & ¬waiting'`; load/store pass: global line or shared row, valid `exec`; otherwise 0, 0 (the key register is the engine's, §9.2) |
//! | `joins` | 1 | schedulable, not active, stored PC `gpc + 1`, under `depth_pc` depth `gdepth` |
//! | `f_ovf` | 1 | executing `call`/`callr` at depth `MAXD` (cause 5) |
//! | `f_ret0` | 1 | executing `ret` at depth 0 (cause 6) |
//! | `f_npc` | 1 | active, not exiting, `npc ≥ code_len` (cause 10; a non-control pass: `gpc + 1 ≥ code_len`) |
//! | `f_mis` | 1 | executing memory access, address not a multiple of its width (cause 2) |
//! | `f_oob` | 1 | executing, aligned, `addr + n > size` with `size` = `window` or `Gm` (cause 1) |
//! | `sd`, `be` | 32, 4 | store data replicated to every byte lane of its width; byte enables at the address's offset |
//!
//! Also during X: `key_d`, the key register's input (what `key` holds in
//! A), for the arbiter's comparison matrix, which compares the keys before
//! they are registered (§19.4);
//! `flags_d`, the OR of the inputs of `f_npc`, `f_mis` and `f_oob`'s
//! registers, and `ret0_d`, `f_ret0`'s, which the control path registers
//! as one bit for A's kill (§13.1).

use rust_hdl_core::prelude::*;
use rust_hdl_widgets::prelude::DFF;

use crate::util::Ext;

/// `ctl` bit of `bra` (per lane, executing lanes to the target).
pub const CTL_BRA: usize = 0;
/// `ctl` bit of a consensual branch `bra.none/any/all`.
pub const CTL_CONS: usize = 1;
/// `ctl` bit of `jmp`.
pub const CTL_JMP: usize = 2;
/// `ctl` bit of `call`.
pub const CTL_CALL: usize = 3;
/// `ctl` bit of `callr`.
pub const CTL_CALLR: usize = 4;
/// `ctl` bit of `ret`.
pub const CTL_RET: usize = 5;
/// `ctl` bit of `bar.sync`.
pub const CTL_BAR: usize = 6;
/// `ctl` bit of `exit`.
pub const CTL_EXIT: usize = 7;
/// `msp` bit of a global access.
pub const MSP_GLOBAL: usize = 0;
/// `msp` bit of a shared access.
pub const MSP_SHARED: usize = 1;

/// The per-lane part of stage X (see the module documentation).
#[derive(LogicBlock)]
pub struct XLane<const PCB: usize, const DB: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    // X: warp-uniform
    pub ctl: Signal<In, Bits<8>>,
    pub taken: Signal<In, bool>,
    pub target: Signal<In, Bits<PCB>>,
    pub gpc: Signal<In, Bits<PCB>>,
    pub gdepth: Signal<In, Bits<DB>>,
    pub code_len: Signal<In, Bits<32>>,
    pub msp: Signal<In, Bits<2>>,
    pub mtree: Signal<In, bool>,
    pub mw: Signal<In, Bits<3>>,
    pub window: Signal<In, Bits<32>>,
    // X: this lane
    pub active: Signal<In, bool>,
    pub exec: Signal<In, bool>,
    pub alive: Signal<In, bool>,
    pub waiting: Signal<In, bool>,
    pub spc: Signal<In, Bits<PCB>>,
    pub depth: Signal<In, Bits<DB>>,
    pub a: Signal<In, Bits<32>>,
    pub addr: Signal<In, Bits<32>>,
    pub sdata: Signal<In, Bits<32>>,
    // A
    pub npc: Signal<Out, Bits<32>>,
    pub ndepth: Signal<Out, Bits<DB>>,
    pub key: Signal<Out, Bits<K>>,
    pub kvalid: Signal<Out, bool>,
    pub key_d: Signal<Out, Bits<K>>,
    pub joins: Signal<Out, bool>,
    pub f_ovf: Signal<Out, bool>,
    pub f_ret0: Signal<Out, bool>,
    pub f_npc: Signal<Out, bool>,
    pub f_mis: Signal<Out, bool>,
    pub f_oob: Signal<Out, bool>,
    /// During X: whether `f_npc`, `f_mis` or `f_oob` will be set in A
    /// (their registers' inputs ORed), and `f_ret0`'s register input, so
    /// that A's kill can read one register instead of ORing the flags
    /// after their registers (§13.1). `f_ret0` is apart because ORing it
    /// here joins the depth and next-pc logic into one combinational
    /// block that Verilator sees as a loop through `x_ndepth`.
    pub flags_d: Signal<Out, bool>,
    pub ret0_d: Signal<Out, bool>,
    pub sd: Signal<Out, Bits<32>>,
    pub be: Signal<Out, Bits<4>>,

    // X -> A registers
    r_npc: DFF<Bits<32>>,
    r_ndepth: DFF<Bits<DB>>,
    r_key: DFF<Bits<K>>,
    r_kvalid: DFF<bool>,
    r_join: DFF<bool>,
    r_ovf: DFF<bool>,
    r_ret0: DFF<bool>,
    r_npc_bad: DFF<bool>,
    r_mis: DFF<bool>,
    r_oob: DFF<bool>,
    r_sd: DFF<Bits<32>>,
    r_be: DFF<Bits<4>>,

    // zero extensions to 32 bits (rust-hdl has no concatenation)
    x_target: Ext<PCB, 32>,
    x_gpc: Ext<PCB, 32>,
    x_spc: Ext<PCB, 32>,
    x_ndepth: Ext<DB, 32>,

    // generator constants
    depth_pc: Constant<bool>,
    line_shift: Constant<Bits<32>>,
    row_shift: Constant<Bits<32>>,
    pc_shift: Constant<Bits<32>>,
    pc1_shift: Constant<Bits<32>>,
    pc1_mask: Constant<Bits<32>>,
    global_bytes: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
    two32: Constant<Bits<32>>,
    four32: Constant<Bits<32>>,
    zero32: Constant<Bits<32>>,
    one_d: Constant<Bits<DB>>,
    k_shift: Constant<Bits<32>>,
    zero_k: Constant<Bits<K>>,
    zero4: Constant<Bits<4>>,
    be_b: [Constant<Bits<4>>; 4],
    byte_mask: Constant<Bits<32>>,
    half_mask: Constant<Bits<32>>,
    byte1_mask: Constant<Bits<32>>,
    byte2_mask: Constant<Bits<32>>,
    byte3_mask: Constant<Bits<32>>,

    // locals
    fall: Signal<Local, Bits<32>>,
    m_target: Signal<Local, Bits<32>>,
    m_reg: Signal<Local, Bits<32>>,
    m_fall: Signal<Local, Bits<32>>,
    m_stored: Signal<Local, Bits<32>>,
    to_target: Signal<Local, bool>,
    to_reg: Signal<Local, bool>,
    exits: Signal<Local, bool>,
    nxt: Signal<Local, Bits<32>>,
    nd: Signal<Local, Bits<DB>>,
    d_inc: Signal<Local, bool>,
    d_dec: Signal<Local, bool>,
    bkey: Signal<Local, Bits<32>>,
    bvalid: Signal<Local, bool>,
    mkey: Signal<Local, Bits<32>>,
    m_gl: Signal<Local, Bits<32>>,
    m_sh: Signal<Local, Bits<32>>,
    is_ctl: Signal<Local, bool>,
    is_mem: Signal<Local, bool>,
    size: Signal<Local, Bits<32>>,
    nbytes: Signal<Local, Bits<32>>,
    limit: Signal<Local, Bits<32>>,
    mis: Signal<Local, bool>,
    b8: Signal<Local, Bits<32>>,
    h16: Signal<Local, Bits<32>>,
    sdv: Signal<Local, Bits<32>>,
    own: Signal<Local, Bits<32>>,
    rep: Signal<Local, Bits<32>>,
    hi8: Signal<Local, Bits<32>>,
    bev: Signal<Local, Bits<4>>,
    w4: Signal<Local, bool>,
    /// The key bits above `K` (zero for a branch key and for an address
    /// in range); the name keeps Verilator's UNUSEDSIGNAL quiet.
    unused_key_bits: Signal<Local, bool>,
    hi: Signal<Local, bool>,
    lo: Signal<Local, bool>,
}

impl<const PCB: usize, const DB: usize, const K: usize> XLane<PCB, DB, K> {
    /// A lane for the generator constants of the core: `depth_pc`
    /// (`HwParams::depth_pc`), `line_shift` (`global_line_shift`),
    /// `row_shift` (`shared_row_shift`) and `global_bytes` (`Gm`).
    ///
    /// # Panics
    /// If the branch key `DB + PCB` (or `PCB` under `pc_only`) does not fit
    /// in `K` or 32 bits.
    pub fn new(depth_pc: bool, line_shift: u32, row_shift: u32, global_bytes: u32) -> Self {
        let kb = if depth_pc { DB + PCB } else { PCB };
        assert!(
            kb <= K && K <= 32 && PCB < 32 && DB >= 1 && PCB >= 1,
            "branch key of {kb} bits in a {K}-bit key"
        );
        assert!(line_shift < 32 && row_shift < 32);
        let c32 = |v: u64| Constant::new(Bits::<32>::from(v));
        XLane {
            clock: Default::default(),
            ctl: Default::default(),
            taken: Default::default(),
            target: Default::default(),
            gpc: Default::default(),
            gdepth: Default::default(),
            code_len: Default::default(),
            msp: Default::default(),
            mtree: Default::default(),
            mw: Default::default(),
            window: Default::default(),
            active: Default::default(),
            exec: Default::default(),
            alive: Default::default(),
            waiting: Default::default(),
            spc: Default::default(),
            depth: Default::default(),
            a: Default::default(),
            addr: Default::default(),
            sdata: Default::default(),
            npc: Default::default(),
            ndepth: Default::default(),
            key: Default::default(),
            kvalid: Default::default(),
            key_d: Default::default(),
            joins: Default::default(),
            f_ovf: Default::default(),
            f_ret0: Default::default(),
            f_npc: Default::default(),
            f_mis: Default::default(),
            f_oob: Default::default(),
            flags_d: Default::default(),
            ret0_d: Default::default(),
            sd: Default::default(),
            be: Default::default(),
            r_npc: Default::default(),
            r_ndepth: Default::default(),
            r_key: Default::default(),
            r_kvalid: Default::default(),
            r_join: Default::default(),
            r_ovf: Default::default(),
            r_ret0: Default::default(),
            r_npc_bad: Default::default(),
            r_mis: Default::default(),
            r_oob: Default::default(),
            r_sd: Default::default(),
            r_be: Default::default(),
            x_target: Default::default(),
            x_gpc: Default::default(),
            x_spc: Default::default(),
            x_ndepth: Default::default(),
            depth_pc: Constant::new(depth_pc),
            line_shift: c32(line_shift as u64),
            row_shift: c32(row_shift as u64),
            pc_shift: c32(PCB as u64),
            pc1_shift: c32(PCB as u64 + 1),
            pc1_mask: c32((1u64 << (PCB + 1)) - 1),
            global_bytes: c32(global_bytes as u64),
            one32: c32(1),
            two32: c32(2),
            four32: c32(4),
            zero32: c32(0),
            one_d: Constant::new(1u64.into()),
            k_shift: c32(K as u64),
            zero_k: Constant::new(0u64.into()),
            zero4: Constant::new(0u64.into()),
            be_b: std::array::from_fn(|j| Constant::new((1u64 << j).into())),
            byte_mask: c32(0xff),
            half_mask: c32(0xffff),
            byte1_mask: c32(0xff00),
            byte2_mask: c32(0xff_0000),
            byte3_mask: c32(0xff00_0000),
            fall: Default::default(),
            m_target: Default::default(),
            m_reg: Default::default(),
            m_fall: Default::default(),
            m_stored: Default::default(),
            to_target: Default::default(),
            to_reg: Default::default(),
            exits: Default::default(),
            nxt: Default::default(),
            nd: Default::default(),
            d_inc: Default::default(),
            d_dec: Default::default(),
            bkey: Default::default(),
            bvalid: Default::default(),
            mkey: Default::default(),
            m_gl: Default::default(),
            m_sh: Default::default(),
            is_ctl: Default::default(),
            is_mem: Default::default(),
            size: Default::default(),
            nbytes: Default::default(),
            limit: Default::default(),
            mis: Default::default(),
            b8: Default::default(),
            h16: Default::default(),
            sdv: Default::default(),
            own: Default::default(),
            rep: Default::default(),
            hi8: Default::default(),
            bev: Default::default(),
            w4: Default::default(),
            unused_key_bits: Default::default(),
            hi: Default::default(),
            lo: Default::default(),
        }
    }
}

impl<const PCB: usize, const DB: usize, const K: usize> Logic for XLane<PCB, DB, K> {
    #[hdl_gen]
    fn update(&mut self) {
        self.r_npc.clock.next = self.clock.val();
        self.r_ndepth.clock.next = self.clock.val();
        self.r_key.clock.next = self.clock.val();
        self.r_kvalid.clock.next = self.clock.val();
        self.r_join.clock.next = self.clock.val();
        self.r_ovf.clock.next = self.clock.val();
        self.r_ret0.clock.next = self.clock.val();
        self.r_npc_bad.clock.next = self.clock.val();
        self.r_mis.clock.next = self.clock.val();
        self.r_oob.clock.next = self.clock.val();
        self.r_sd.clock.next = self.clock.val();
        self.r_be.clock.next = self.clock.val();

        self.x_target.i.next = self.target.val();
        self.x_gpc.i.next = self.gpc.val();
        self.x_spc.i.next = self.spc.val();
        self.is_ctl.next = self.ctl.val().any();
        self.is_mem.next = self.exec.val() & self.msp.val().any();

        // Next PC: four one-hot sources. A lane outside the group keeps
        // its stored PC; inside it, the target (executing lanes of `bra`
        // and `call`, every active lane of a taken consensual branch), the
        // register (executing lanes of `jmp`, `callr`, `ret`), else
        // `gpc + 1` (every other pass and class included).
        self.fall.next = self.x_gpc.o.val() + self.one32.val();
        self.to_target.next = self.active.val()
            & ((self.exec.val() & (self.ctl.val().get_bit(0) | self.ctl.val().get_bit(3)))
                | (self.ctl.val().get_bit(1) & self.taken.val()));
        self.to_reg.next = self.active.val()
            & self.exec.val()
            & (self.ctl.val().get_bit(2) | self.ctl.val().get_bit(4) | self.ctl.val().get_bit(5));
        self.m_target.next = self.zero32.val();
        if self.to_target.val() {
            self.m_target.next = !self.zero32.val();
        }
        self.m_reg.next = self.zero32.val();
        if self.to_reg.val() {
            self.m_reg.next = !self.zero32.val();
        }
        self.m_fall.next = self.zero32.val();
        if self.active.val() & !self.to_target.val() & !self.to_reg.val() {
            self.m_fall.next = !self.zero32.val();
        }
        self.m_stored.next = self.zero32.val();
        if !self.active.val() {
            self.m_stored.next = !self.zero32.val();
        }
        self.nxt.next = (self.x_target.o.val() & self.m_target.val())
            | (self.a.val() & self.m_reg.val())
            | (self.fall.val() & self.m_fall.val())
            | (self.x_spc.o.val() & self.m_stored.val());

        // Depth: executing `call`/`callr` one deeper, `ret` one shallower.
        self.d_inc.next = self.exec.val() & (self.ctl.val().get_bit(3) | self.ctl.val().get_bit(4));
        self.d_dec.next = self.exec.val() & self.ctl.val().get_bit(5);
        self.nd.next = self.depth.val();
        if self.d_inc.val() {
            self.nd.next = self.depth.val() + self.one_d.val();
        }
        if self.d_dec.val() {
            self.nd.next = self.depth.val() - self.one_d.val();
        }

        // Control checks. `(!depth).any()` is false exactly at MAXD.
        self.r_ovf.d.next = self.d_inc.val() & !(!self.depth.val()).any();
        self.r_ret0.d.next = self.d_dec.val() & !self.depth.val().any();
        self.exits.next = self.exec.val() & self.ctl.val().get_bit(7);
        // `code_len ≤ imem_words = 2^PCB` (SETUP refuses a longer
        // program), so `nxt ≥ code_len` is "a bit above PCB is set, or the
        // low PCB + 1 bits compare ≥": a (PCB + 1)-bit carry chain instead
        // of a 32-bit one.
        self.r_npc_bad.d.next = self.active.val()
            & !self.exits.val()
            & ((self.nxt.val() >> self.pc1_shift.val()).any()
                | ((self.nxt.val() & self.pc1_mask.val())
                    >= (self.code_len.val() & self.pc1_mask.val())));

        // Branch-mode key: `MAXD − depth` is the depth's complement.
        self.x_ndepth.i.next = !self.nd.val();
        self.bkey.next = self.nxt.val();
        if self.depth_pc.val() {
            self.bkey.next = self.nxt.val() | (self.x_ndepth.o.val() << self.pc_shift.val());
        }
        self.bvalid.next = self.alive.val()
            & !self.exits.val()
            & !self.waiting.val()
            & !(self.exec.val() & self.ctl.val().get_bit(6));

        // Memory-mode key: the global line or the block-relative row.
        self.m_gl.next = self.zero32.val();
        if self.msp.val().get_bit(0) {
            self.m_gl.next = !self.zero32.val();
        }
        self.m_sh.next = self.zero32.val();
        if self.msp.val().get_bit(1) {
            self.m_sh.next = !self.zero32.val();
        }
        self.mkey.next = ((self.addr.val() >> self.line_shift.val()) & self.m_gl.val())
            | ((self.addr.val() >> self.row_shift.val()) & self.m_sh.val());

        self.unused_key_bits.next = (self.bkey.val() >> self.k_shift.val()).any()
            | (self.mkey.val() >> self.k_shift.val()).any();
        self.r_key.d.next = self.zero_k.val();
        self.r_kvalid.d.next = false;
        if self.is_ctl.val() {
            self.r_key.d.next = self.bkey.val().get_bits::<K>(0);
            self.r_kvalid.d.next = self.bvalid.val();
        }
        if self.mtree.val() {
            self.r_key.d.next = self.mkey.val().get_bits::<K>(0);
            self.r_kvalid.d.next = self.exec.val();
        }

        // Join (§8): schedulable, outside the group, waiting at `gpc + 1`
        // and, under `depth_pc`, at the group's depth.
        self.r_join.d.next = self.alive.val()
            & !self.waiting.val()
            & !self.active.val()
            & (self.x_spc.o.val() == self.fall.val())
            & (!self.depth_pc.val() | (self.depth.val() == self.gdepth.val()));

        // Access checks in `check_access` order: misaligned, then (aligned
        // lanes only) out of range. `addr + n > size` is `addr > size − n`
        // (or `size < n`); the limit depends on warp-uniform values only.
        self.mis.next = self.is_mem.val()
            & ((self.addr.val().get_bit(0)
                & (self.mw.val().get_bit(1) | self.mw.val().get_bit(2)))
                | (self.addr.val().get_bit(1) & self.mw.val().get_bit(2)));
        self.size.next =
            (self.window.val() & self.m_sh.val()) | (self.global_bytes.val() & self.m_gl.val());
        self.nbytes.next = self.zero32.val();
        if self.mw.val().get_bit(0) {
            self.nbytes.next = self.one32.val();
        }
        if self.mw.val().get_bit(1) {
            self.nbytes.next = self.nbytes.val() | self.two32.val();
        }
        if self.mw.val().get_bit(2) {
            self.nbytes.next = self.nbytes.val() | self.four32.val();
        }
        self.limit.next = self.size.val() - self.nbytes.val();
        self.r_mis.d.next = self.mis.val();
        self.r_oob.d.next = self.is_mem.val()
            & !self.mis.val()
            & ((self.size.val() < self.nbytes.val()) | (self.limit.val() < self.addr.val()));

        // Store data in every byte lane its width can reach (byte enables
        // pick them): byte 0 is always the data's byte 0; byte 1 is byte 0
        // for a byte store, else the data's byte 1; byte 2 is the data's
        // byte 2 for a word, else byte 0; byte 3 is the data's byte 3, 1
        // or 0 for a word, halfword, byte. Each byte a 2- or 3-way AND-OR
        // instead of a 3-way select of all 32 bits (measured at 4 -> 8
        // lanes: 188 LUT4 per lane against 195).
        self.b8.next = self.sdata.val() & self.byte_mask.val();
        self.h16.next = self.sdata.val() & self.half_mask.val();
        self.own.next = self.byte_mask.val();
        self.rep.next = self.zero32.val();
        if self.mw.val().get_bit(0) {
            self.rep.next = self.byte1_mask.val() | self.byte3_mask.val();
        } else {
            self.own.next = self.own.val() | self.byte1_mask.val();
        }
        if self.mw.val().get_bit(2) {
            self.own.next = self.own.val() | self.byte2_mask.val() | self.byte3_mask.val();
        } else {
            self.rep.next = self.rep.val() | self.byte2_mask.val();
        }
        self.hi8.next = self.zero32.val();
        if self.mw.val().get_bit(1) {
            self.hi8.next = self.byte3_mask.val();
        }
        self.sdv.next = (self.sdata.val() & self.own.val())
            | (((self.b8.val() << 8) | (self.b8.val() << 16) | (self.b8.val() << 24))
                & self.rep.val())
            | ((self.h16.val() << 16) & self.hi8.val());
        self.w4.next = self.mw.val().get_bit(2);
        self.hi.next = self.mw.val().get_bit(1) & self.addr.val().get_bit(1);
        self.lo.next = self.mw.val().get_bit(1) & !self.addr.val().get_bit(1);
        self.bev.next = self.zero4.val();
        if self.w4.val()
            | self.lo.val()
            | (self.mw.val().get_bit(0) & !self.addr.val().get_bit(1) & !self.addr.val().get_bit(0))
        {
            self.bev.next = self.bev.val() | self.be_b[0].val();
        }
        if self.w4.val()
            | self.lo.val()
            | (self.mw.val().get_bit(0) & !self.addr.val().get_bit(1) & self.addr.val().get_bit(0))
        {
            self.bev.next = self.bev.val() | self.be_b[1].val();
        }
        if self.w4.val()
            | self.hi.val()
            | (self.mw.val().get_bit(0) & self.addr.val().get_bit(1) & !self.addr.val().get_bit(0))
        {
            self.bev.next = self.bev.val() | self.be_b[2].val();
        }
        if self.w4.val()
            | self.hi.val()
            | (self.mw.val().get_bit(0) & self.addr.val().get_bit(1) & self.addr.val().get_bit(0))
        {
            self.bev.next = self.bev.val() | self.be_b[3].val();
        }
        self.r_sd.d.next = self.sdv.val();
        self.r_be.d.next = self.bev.val();

        self.r_npc.d.next = self.nxt.val();
        self.r_ndepth.d.next = self.nd.val();

        // A
        self.npc.next = self.r_npc.q.val();
        self.ndepth.next = self.r_ndepth.q.val();
        self.key.next = self.r_key.q.val();
        self.kvalid.next = self.r_kvalid.q.val();
        self.key_d.next = self.r_key.d.val();
        self.joins.next = self.r_join.q.val();
        self.f_ovf.next = self.r_ovf.q.val();
        self.f_ret0.next = self.r_ret0.q.val();
        self.f_npc.next = self.r_npc_bad.q.val();
        self.f_mis.next = self.r_mis.q.val();
        self.f_oob.next = self.r_oob.q.val();
        self.flags_d.next = self.r_npc_bad.d.val() | self.r_mis.d.val() | self.r_oob.d.val();
        self.ret0_d.next = self.r_ret0.d.val();
        self.sd.next = self.r_sd.q.val();
        self.be.next = self.r_be.q.val();
    }
}

/// The divergence compare of a control pass (§8, `divergent_branches`,
/// §15.1), at A from the lanes' registered [`XLane`] outputs: the active
/// lanes' new (pc, depth) are not all equal. Combinational; it feeds only
/// the counter at the commit. `npc` are the low `PCB` bits of
/// [`XLane::npc`]: a pass whose next PC does not fit traps and commits
/// nothing, counter included.
///
/// §8 compares with the lowest active lane's values; "not all equal" is
/// the same as "some bit is 1 in one active lane and 0 in another", which
/// needs no selection of the lowest lane: per bit, the OR of the active
/// lanes' values and the OR of their complements, then one AND and an OR
/// over the bits. Measured on 8 lanes, 12-bit PCs, 4-bit depths: the
/// one-hot select of the lowest lane and 8 inequalities were 419 LUT4
/// (ABC folds the priority into every bit), this form 181.
#[derive(LogicBlock)]
pub struct XDiverge<const L: usize, const PCB: usize, const DB: usize> {
    pub active: Signal<In, Bits<L>>,
    pub npc: Vec<Signal<In, Bits<PCB>>>,
    pub ndepth: Vec<Signal<In, Bits<DB>>>,
    pub divergent: Signal<Out, bool>,
    pc1: Signal<Local, Bits<PCB>>,
    pc0: Signal<Local, Bits<PCB>>,
    d1: Signal<Local, Bits<DB>>,
    d0: Signal<Local, Bits<DB>>,
    zero_pc: Constant<Bits<PCB>>,
    zero_d: Constant<Bits<DB>>,
    _lanes: usize,
}

impl<const L: usize, const PCB: usize, const DB: usize> Default for XDiverge<L, PCB, DB> {
    fn default() -> Self {
        assert!(L.is_power_of_two() && (2..=32).contains(&L));
        XDiverge {
            active: Default::default(),
            npc: (0..L).map(|_| Default::default()).collect(),
            ndepth: (0..L).map(|_| Default::default()).collect(),
            divergent: Default::default(),
            pc1: Default::default(),
            pc0: Default::default(),
            d1: Default::default(),
            d0: Default::default(),
            zero_pc: Constant::new(0u64.into()),
            zero_d: Constant::new(0u64.into()),
            _lanes: L,
        }
    }
}

impl<const L: usize, const PCB: usize, const DB: usize> Logic for XDiverge<L, PCB, DB> {
    #[hdl_gen]
    fn update(&mut self) {
        self.pc1.next = self.zero_pc.val();
        self.pc0.next = self.zero_pc.val();
        self.d1.next = self.zero_d.val();
        self.d0.next = self.zero_d.val();
        for l in 0..self._lanes {
            if self.active.val().get_bit(l) {
                self.pc1.next = self.pc1.val() | self.npc[l].val();
                self.pc0.next = self.pc0.val() | !self.npc[l].val();
                self.d1.next = self.d1.val() | self.ndepth[l].val();
                self.d0.next = self.d0.val() | !self.ndepth[l].val();
            }
        }
        self.divergent.next =
            (self.pc1.val() & self.pc0.val()).any() | (self.d1.val() & self.d0.val()).any();
    }
}
