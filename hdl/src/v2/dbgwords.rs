//! The warp and slot debug words of Core v2 (docs/microarchitecture.md
//! §15.3, generator option `debug_regs`): `DBG_GROUP`, `DBG_GMASK`,
//! `DBG_ALIVE`, `DBG_WAITING`, `DBG_FLAGS` of the warp `DBG_WARP` selects,
//! `DBG_LANE_PC` of the lane `DBG_LANE` selects, and one `DBG_SLOT` word per
//! block slot. The core reads the selected warp's registers through the
//! warp state's `d_sel` port and the lane's stored pc and depth through the
//! control path; this block only packs the words, with the field tables of
//! `concord_uarch::regmap` (nothing restated here). Combinational.

use concord_uarch::regmap;
use rust_hdl_core::prelude::*;

use super::acommit::CNT_W;
use super::fieldpack::FieldPack;
use super::resize::Resize;
use super::warpstate::{DEPTH_W, OUT_W, PC_W};

/// The debug words for `L` lanes.
#[derive(LogicBlock)]
pub struct DebugWords<const L: usize> {
    pub gpc: Signal<In, Bits<PC_W>>,
    pub gdepth: Signal<In, Bits<DEPTH_W>>,
    pub gmask: Signal<In, Bits<L>>,
    pub alive: Signal<In, Bits<L>>,
    pub waiting: Signal<In, Bits<L>>,
    pub busy_i: Signal<In, bool>,
    pub busy_r: Signal<In, bool>,
    pub replay: Signal<In, bool>,
    pub rearb: Signal<In, bool>,
    pub outstanding: Signal<In, Bits<OUT_W>>,
    pub wslot: Signal<In, Bits<4>>,
    pub wib: Signal<In, Bits<4>>,
    pub lane_pc: Signal<In, Bits<PC_W>>,
    pub lane_depth: Signal<In, Bits<DEPTH_W>>,
    pub slot_state: Vec<Signal<In, Bits<2>>>,
    pub slot_arrived: Vec<Signal<In, Bits<CNT_W>>>,
    pub slot_exited: Vec<Signal<In, Bits<CNT_W>>>,
    pub w_group: Signal<Out, Bits<32>>,
    pub w_gmask: Signal<Out, Bits<32>>,
    pub w_alive: Signal<Out, Bits<32>>,
    pub w_waiting: Signal<Out, Bits<32>>,
    pub w_flags: Signal<Out, Bits<32>>,
    pub w_lane_pc: Signal<Out, Bits<32>>,
    pub w_slot: Vec<Signal<Out, Bits<32>>>,
    pk_group: FieldPack,
    pk_flags: FieldPack,
    pk_lane: FieldPack,
    /// `DBG_SLOT`'s field positions (from its table): a slot word is
    /// built with shifts because rust-hdl rewrites only the first index of
    /// a path (`pk_slot[k].f[i]` is not expressible).
    sh_state: Constant<Bits<32>>,
    sh_arrived: Constant<Bits<32>>,
    sh_exited: Constant<Bits<32>>,
    x_gpc: Resize<PC_W, 32>,
    x_gdepth: Resize<DEPTH_W, 32>,
    x_gmask: Resize<L, 32>,
    x_alive: Resize<L, 32>,
    x_waiting: Resize<L, 32>,
    x_out: Resize<OUT_W, 32>,
    x_wslot: Resize<4, 32>,
    x_wib: Resize<4, 32>,
    x_lpc: Resize<PC_W, 32>,
    x_ldepth: Resize<DEPTH_W, 32>,
    x_sstate: Vec<Resize<2, 32>>,
    x_sarr: Vec<Resize<CNT_W, 32>>,
    x_sexi: Vec<Resize<CNT_W, 32>>,
    one32: Constant<Bits<32>>,
    zero32: Constant<Bits<32>>,
    _slots: usize,
}

impl<const L: usize> DebugWords<L> {
    /// For `slots` block slots.
    pub fn new(slots: usize) -> Self {
        fn sig<T: Default>(n: usize) -> Vec<T> {
            (0..n).map(|_| Default::default()).collect()
        }
        let fields = |name: &str| regmap::register(name).unwrap().fields;
        // The lane word is `pc | depth << 16` (the model's `DBG_LANE_PC`);
        // its table is one 32-bit word, so the two fields are laid out here
        // from the `DBG_GROUP` table, which has the same two fields.
        let group = fields("DBG_GROUP");
        assert_eq!(group.len(), 2);
        assert_eq!(fields("DBG_FLAGS").len(), 7);
        let slot_fields = fields("DBG_SLOT");
        let names: Vec<&str> = slot_fields.iter().map(|f| f.name).collect();
        assert_eq!(names, ["state", "arrived", "exited"]);
        assert!(slot_fields[0].width >= 2 && slot_fields[1].width as usize >= CNT_W);
        assert!(slot_fields[2].width as usize >= CNT_W);
        DebugWords {
            gpc: Default::default(),
            gdepth: Default::default(),
            gmask: Default::default(),
            alive: Default::default(),
            waiting: Default::default(),
            busy_i: Default::default(),
            busy_r: Default::default(),
            replay: Default::default(),
            rearb: Default::default(),
            outstanding: Default::default(),
            wslot: Default::default(),
            wib: Default::default(),
            lane_pc: Default::default(),
            lane_depth: Default::default(),
            slot_state: sig(slots),
            slot_arrived: sig(slots),
            slot_exited: sig(slots),
            w_group: Default::default(),
            w_gmask: Default::default(),
            w_alive: Default::default(),
            w_waiting: Default::default(),
            w_flags: Default::default(),
            w_lane_pc: Default::default(),
            w_slot: sig(slots),
            pk_group: FieldPack::new(group),
            pk_flags: FieldPack::new(fields("DBG_FLAGS")),
            pk_lane: FieldPack::new(group),
            sh_state: Constant::new(u64::from(slot_fields[0].lsb).into()),
            sh_arrived: Constant::new(u64::from(slot_fields[1].lsb).into()),
            sh_exited: Constant::new(u64::from(slot_fields[2].lsb).into()),
            x_gpc: Default::default(),
            x_gdepth: Default::default(),
            x_gmask: Default::default(),
            x_alive: Default::default(),
            x_waiting: Default::default(),
            x_out: Default::default(),
            x_wslot: Default::default(),
            x_wib: Default::default(),
            x_lpc: Default::default(),
            x_ldepth: Default::default(),
            x_sstate: sig(slots),
            x_sarr: sig(slots),
            x_sexi: sig(slots),
            one32: Constant::new(1u64.into()),
            zero32: Constant::new(0u64.into()),
            _slots: slots,
        }
    }
}

impl<const L: usize> Logic for DebugWords<L> {
    #[hdl_gen]
    fn update(&mut self) {
        self.x_gpc.i.next = self.gpc.val();
        self.x_gdepth.i.next = self.gdepth.val();
        self.pk_group.f[0].next = self.x_gpc.o.val();
        self.pk_group.f[1].next = self.x_gdepth.o.val();
        self.w_group.next = self.pk_group.o.val();
        self.x_gmask.i.next = self.gmask.val();
        self.x_alive.i.next = self.alive.val();
        self.x_waiting.i.next = self.waiting.val();
        self.w_gmask.next = self.x_gmask.o.val();
        self.w_alive.next = self.x_alive.o.val();
        self.w_waiting.next = self.x_waiting.o.val();
        // DBG_FLAGS: busy_i, busy_r, replay, rearb, outstanding, wslot, wib.
        self.pk_flags.f[0].next = self.zero32.val();
        self.pk_flags.f[1].next = self.zero32.val();
        self.pk_flags.f[2].next = self.zero32.val();
        self.pk_flags.f[3].next = self.zero32.val();
        if self.busy_i.val() {
            self.pk_flags.f[0].next = self.one32.val();
        }
        if self.busy_r.val() {
            self.pk_flags.f[1].next = self.one32.val();
        }
        if self.replay.val() {
            self.pk_flags.f[2].next = self.one32.val();
        }
        if self.rearb.val() {
            self.pk_flags.f[3].next = self.one32.val();
        }
        self.x_out.i.next = self.outstanding.val();
        self.x_wslot.i.next = self.wslot.val();
        self.x_wib.i.next = self.wib.val();
        self.pk_flags.f[4].next = self.x_out.o.val();
        self.pk_flags.f[5].next = self.x_wslot.o.val();
        self.pk_flags.f[6].next = self.x_wib.o.val();
        self.w_flags.next = self.pk_flags.o.val();
        self.x_lpc.i.next = self.lane_pc.val();
        self.x_ldepth.i.next = self.lane_depth.val();
        self.pk_lane.f[0].next = self.x_lpc.o.val();
        self.pk_lane.f[1].next = self.x_ldepth.o.val();
        self.w_lane_pc.next = self.pk_lane.o.val();
        // DBG_SLOT[k]: state, arrived, exited.
        for k in 0..self._slots {
            self.x_sstate[k].i.next = self.slot_state[k].val();
            self.x_sarr[k].i.next = self.slot_arrived[k].val();
            self.x_sexi[k].i.next = self.slot_exited[k].val();
            self.w_slot[k].next = (self.x_sstate[k].o.val() << self.sh_state.val())
                | (self.x_sarr[k].o.val() << self.sh_arrived.val())
                | (self.x_sexi[k].o.val() << self.sh_exited.val());
        }
    }
}
