//! Memory statements: loads, stores and atomics on the thread's own words,
//! the read-only tables, the warp slots, the mailboxes and the accumulators,
//! each within the ownership rules of the module docs of `gen`.

use concord_isa::instr::AtomOp;

use super::*;

impl Gen {
    // -- memory ------------------------------------------------------------

    pub(super) fn mem_shared(&mut self, sc: &mut Scope, out: &mut Body) {
        let main = sc.ctx == Ctx::Main;
        let mut kinds: Vec<(u32, u32)> = vec![(0, 8), (1, 3)];
        if sc.safe && sc.full {
            kinds.push((2, 2));
        }
        if self.f.barriers {
            kinds.push((3, 3));
        }
        // Mailboxes, more often where other threads' words may be read.
        kinds.push((4, if sc.mode == Mode::Read { 4 } else { 2 }));
        kinds.push((6, 1));
        if main && self.f.barriers && sc.mode == Mode::Read {
            kinds.push((5, 1));
        }
        let w: Vec<u32> = kinds.iter().map(|k| k.1).collect();
        let kind = kinds[self.rng.weighted(&w)].0;
        let g = self.guard(25);
        let t = self.lay.t;
        match kind {
            // A word of the thread's own, in one of the four layouts.
            0 | 1 => {
                let pi = self.rng.below(4) as usize;
                let o = self.lay.s_own[pi];
                out.tag(&format!("shared.stride{}", o.stride.max(1)));
                let ra = self.pool();
                let shift = if o.stride == 0 { 2 } else { log2(o.stride * 4) };
                out.ins(format!("shl r{ra}, r{TID}, {shift}"));
                let k = if kind == 1 {
                    // Data-dependent word index.
                    out.tag("shared.data_index");
                    let rj = self.pool_not(&[ra]);
                    let rx = self.any_reg();
                    out.ins(format!("and r{rj}, r{rx}, {}", o.words - 1));
                    if o.stride == 0 {
                        self.mul_const(out, rj, rj, t * 4, &[ra]);
                    } else {
                        out.ins(format!("shl r{rj}, r{rj}, 2"));
                    }
                    out.ins(format!("add r{ra}, r{ra}, r{rj}"));
                    o.base
                } else {
                    o.addr(t, 0, self.rng.below(o.words))
                };
                let store = self.rng.chance(45);
                self.access(out, "shared", ra, k, store, &g);
            }
            // The warp's slot: one whole-warp instruction writes it.
            2 => {
                out.tag("shared.warp_slot_store");
                let ra = self.pool();
                out.ins(format!("s2r r{ra}, %warpid"));
                out.ins(format!("shl r{ra}, r{ra}, 2"));
                let s_ws = self.lay.s_ws;
                if self.f.atomics && self.rng.chance(30) {
                    self.add_exact(out, ra, s_ws);
                    let op = self.rng.pick(&AtomOp::ALL);
                    let (rd, rv) = (self.pool(), self.any_reg());
                    out.ins(format!(
                        "{g}atom.shared.{} r{rd}, [r{ra}], r{rv}",
                        op.suffix()
                    ));
                    self.fold(out, rd);
                } else {
                    self.access(out, "shared", ra, s_ws, true, &g);
                }
            }
            // The read-only table: broadcast, data-dependent or strided.
            3 => {
                let ra = self.pool();
                match self.rng.below(3) {
                    0 => {
                        out.tag("shared.broadcast");
                        out.ins(format!(
                            "movi r{ra}, {}",
                            self.rng.below(SHARED_RO_WORDS) * 4
                        ));
                    }
                    1 => {
                        out.tag("shared.data_index");
                        let rx = self.any_reg();
                        out.ins(format!("and r{ra}, r{rx}, {}", SHARED_RO_WORDS - 1));
                        out.ins(format!("shl r{ra}, r{ra}, 2"));
                    }
                    _ => {
                        let s = self.rng.pick(&[1u32, 2, 4, 8, 16]);
                        out.tag(&format!("shared.ro_stride{s}"));
                        out.ins(format!("mul r{ra}, r{TID}, {s}"));
                        out.ins(format!("and r{ra}, r{ra}, {}", SHARED_RO_WORDS - 1));
                        out.ins(format!("shl r{ra}, r{ra}, 2"));
                    }
                }
                let k = self.lay.s_ro;
                self.access(out, "shared", ra, k, false, &g);
            }
            // Mailbox: own words in write phases, anyone's in read phases.
            4 => self.sh_mailbox(sc, out, true),
            6 => {
                // Reading the warp slot is allowed anywhere: it only changes
                // in whole-warp instructions of safe code.
                out.tag("shared.warp_slot_load");
                let ra = self.pool();
                out.ins(format!("s2r r{ra}, %warpid"));
                out.ins(format!("shl r{ra}, r{ra}, 2"));
                let k = self.lay.s_ws;
                self.access(out, "shared", ra, k, false, &g);
            }
            _ => self.sh_acc_read(out),
        }
    }

    /// A mailbox access in shared memory: the own words (store only in a
    /// write phase of `main`), or another thread's in a read phase.
    pub(super) fn sh_mailbox(&mut self, sc: &Scope, out: &mut Body, allow_own: bool) {
        let t = self.lay.t;
        let mb = self.lay.s_mb;
        let j = self.rng.below(mb.words);
        let g = self.guard(20);
        let main = sc.ctx == Ctx::Main;
        if main && sc.mode == Mode::Read && (!allow_own || self.rng.chance(70)) {
            let ri = self.other_tid(out, &[]);
            let ra = self.pool_not(&[ri]);
            out.ins(format!("shl r{ra}, r{ri}, 2"));
            self.access(out, "shared", ra, mb.addr(t, 0, j), false, &g);
        } else {
            out.tag("shared.mailbox_own");
            let ra = self.pool();
            out.ins(format!("shl r{ra}, r{TID}, 2"));
            let store = main && sc.mode == Mode::Write && self.rng.chance(60);
            self.access(out, "shared", ra, mb.addr(t, 0, j), store, &g);
        }
    }

    pub(super) fn sh_acc_read(&mut self, out: &mut Body) {
        out.tag("shared.acc_read");
        let ra = self.pool();
        out.ins(format!("movi r{ra}, 0"));
        let k = self.lay.s_acc + self.rng.below(ACC_WORDS) * 4;
        self.access(out, "shared", ra, k, false, "");
    }

    /// A thread id of the same block, in a register: constant (broadcast),
    /// mirrored, rotated (by a warp or more: another warp's data), masked
    /// data, or the lane neighbour.
    pub(super) fn other_tid(&mut self, out: &mut Body, keep: &[u8]) -> u8 {
        let t = self.lay.t;
        let lanes = self.lay.lanes;
        let ri = self.pool_not(keep);
        let mut busy = keep.to_vec();
        busy.push(ri);
        match self.rng.below(6) {
            0 => {
                out.tag("mailbox.broadcast");
                out.ins(format!("movi r{ri}, {}", self.rng.below(t)));
            }
            1 => {
                out.tag("mailbox.mirror");
                if self.rng.chance(50) {
                    out.ins(format!("movi r{ri}, {}", t - 1));
                } else {
                    out.ins(format!("s2r r{ri}, %ntid.x"));
                    out.ins(format!("add r{ri}, r{ri}, -1"));
                }
                out.ins(format!("sub r{ri}, r{ri}, r{TID}"));
            }
            2 | 3 => {
                let k = if self.rng.chance(50) && t > lanes {
                    out.tag("mailbox.cross_warp");
                    lanes * (1 + self.rng.below((t - 1) / lanes))
                } else {
                    out.tag("mailbox.rotate");
                    self.rng.below(t)
                };
                let rn = self.pool_not(&busy);
                let q = self.pred();
                out.ins(format!("add r{ri}, r{TID}, {k}"));
                out.ins(format!("s2r r{rn}, %ntid.x"));
                out.ins(format!("setp.geu p{q}, r{ri}, r{rn}"));
                out.ins(format!("@p{q} sub r{ri}, r{ri}, r{rn}"));
            }
            4 => {
                out.tag("mailbox.data");
                let m = (t + 1).next_power_of_two() / 2 - 1;
                let rx = self.any_reg();
                out.ins(format!("and r{ri}, r{rx}, {m}"));
            }
            _ => {
                out.tag("mailbox.neighbour");
                let rm = self.pool_not(&busy);
                out.ins(format!("xor r{ri}, r{TID}, 1"));
                out.ins(format!("movi r{rm}, {}", t - 1));
                out.ins(format!("minu r{ri}, r{ri}, r{rm}"));
            }
        }
        ri
    }

    pub(super) fn mem_global(&mut self, sc: &mut Scope, out: &mut Body) {
        let main = sc.ctx == Ctx::Main;
        let mailbox = if sc.mode == Mode::Read { 5 } else { 3 };
        let mut kinds: Vec<(u32, u32)> = vec![(0, 8), (1, 4), (2, mailbox)];
        if main && self.f.barriers && sc.mode == Mode::Read {
            kinds.push((3, 1));
        }
        let w: Vec<u32> = kinds.iter().map(|k| k.1).collect();
        let kind = kinds[self.rng.weighted(&w)].0;
        let g = self.guard(25);
        let tt = self.lay.t * self.lay.blocks;
        match kind {
            0 => {
                let pi = self.rng.below(2) as usize;
                let o = self.lay.g_own[pi];
                let base_off = o.base - self.lay.g_own[0].base;
                out.tag(&format!("global.stride{}", o.stride.max(1)));
                let [ra, rb] = self.pools::<2>();
                out.ins(format!("ldparam r{rb}, priv"));
                let shift = if o.stride == 0 { 2 } else { log2(o.stride * 4) };
                out.ins(format!("shl r{ra}, r{GTID}, {shift}"));
                out.ins(format!("add r{ra}, r{ra}, r{rb}"));
                let k = if self.rng.chance(30) {
                    out.tag("global.data_index");
                    let rj = self.pool_not(&[ra]);
                    let rx = self.any_reg();
                    out.ins(format!("and r{rj}, r{rx}, {}", o.words - 1));
                    if o.stride == 0 {
                        self.mul_const(out, rj, rj, tt * 4, &[ra]);
                    } else {
                        out.ins(format!("shl r{rj}, r{rj}, 2"));
                    }
                    out.ins(format!("add r{ra}, r{ra}, r{rj}"));
                    base_off
                } else {
                    o.addr(tt, 0, self.rng.below(o.words)) - self.lay.g_own[0].base
                };
                let store = self.rng.chance(45);
                self.access(out, "global", ra, k, store, &g);
            }
            1 => {
                let ra = self.pool();
                out.ins(format!("ldparam r{ra}, ro"));
                let k = if self.rng.chance(40) {
                    out.tag("global.broadcast");
                    self.rng.below(GLOBAL_RO_WORDS) * 4
                } else {
                    out.tag("global.ro_data");
                    let ri = self.pool_not(&[ra]);
                    let rx = self.any_reg();
                    if self.rng.chance(30) {
                        out.ins(format!(
                            "mul r{ri}, r{rx}, {}",
                            self.rng.pick(&[1, 2, 4, 8, 16])
                        ));
                        out.ins(format!("and r{ri}, r{ri}, {}", GLOBAL_RO_WORDS - 1));
                    } else {
                        out.ins(format!("and r{ri}, r{rx}, {}", GLOBAL_RO_WORDS - 1));
                    }
                    out.ins(format!("shl r{ri}, r{ri}, 2"));
                    out.ins(format!("add r{ra}, r{ra}, r{ri}"));
                    0
                };
                self.access(out, "global", ra, k, false, &g);
            }
            2 => self.gl_mailbox(sc, out, true),
            _ => self.gl_acc_read(out),
        }
    }

    /// `rb` = this block's part of a per-block global region.
    pub(super) fn block_base(&mut self, out: &mut Body, rb: u8, param: u32, block_bytes: u32) {
        let rc = self.pool_not(&[rb]);
        out.ins(format!("ldparam r{rb}, {}", PARAM_NAMES[param as usize]));
        out.ins(format!("s2r r{rc}, %ctaid.x"));
        self.mul_const(out, rc, rc, block_bytes, &[rb]);
        out.ins(format!("add r{rb}, r{rb}, r{rc}"));
    }

    pub(super) fn gl_mailbox(&mut self, sc: &Scope, out: &mut Body, allow_own: bool) {
        let t = self.lay.t;
        let mb = self.lay.s_mb; // same shape as the shared one
        let j = self.rng.below(mb.words);
        let g = self.guard(20);
        let main = sc.ctx == Ctx::Main;
        let rb = self.pool();
        let block_bytes = self.lay.g_mb_block;
        self.block_base(out, rb, P_MB, block_bytes);
        let k = j * t * 4;
        if main && sc.mode == Mode::Read && (!allow_own || self.rng.chance(70)) {
            let ri = self.other_tid(out, &[rb]);
            let ra = self.pool_not(&[ri, rb]);
            out.ins(format!("shl r{ra}, r{ri}, 2"));
            out.ins(format!("add r{ra}, r{ra}, r{rb}"));
            self.access(out, "global", ra, k, false, &g);
        } else {
            out.tag("global.mailbox_own");
            let ra = self.pool_not(&[rb]);
            out.ins(format!("shl r{ra}, r{TID}, 2"));
            out.ins(format!("add r{ra}, r{ra}, r{rb}"));
            let store = main && sc.mode == Mode::Write && self.rng.chance(60);
            self.access(out, "global", ra, k, store, &g);
        }
    }

    pub(super) fn gl_acc_read(&mut self, out: &mut Body) {
        out.tag("global.acc_read");
        let ra = self.pool();
        self.block_base(out, ra, P_BACC, ACC_WORDS * 4);
        let k = self.rng.below(ACC_WORDS) * 4;
        self.access(out, "global", ra, k, false, "");
    }

    pub(super) fn atomic(&mut self, sc: &mut Scope, out: &mut Body) {
        let main = sc.ctx == Ctx::Main;
        let sh = self.f.shared;
        let gl = self.f.global;
        let mut kinds: Vec<(u32, u32)> = Vec::new();
        if sh {
            kinds.push((0, 3));
            if main && self.f.barriers && sc.mode == Mode::Write {
                kinds.push((2, 3));
            }
        }
        if gl {
            kinds.push((1, 3));
            if main && sc.mode == Mode::Write {
                kinds.push((3, 3));
            }
            kinds.push((4, 2));
        }
        let w: Vec<u32> = kinds.iter().map(|k| k.1).collect();
        let kind = kinds[self.rng.weighted(&w)].0;
        let g = self.guard(25);
        let rv = self.any_reg();
        match kind {
            // The thread's own word: every operation, old value kept.
            0 => {
                out.tag("atomic.shared_own");
                let o = self.lay.s_own[0];
                let ra = self.pool();
                out.ins(format!("shl r{ra}, r{TID}, 2"));
                let k = o.addr(self.lay.t, 0, self.rng.below(o.words));
                self.add_exact(out, ra, k);
                let op = self.rng.pick(&AtomOp::ALL);
                let rd = self.pool();
                out.ins(format!(
                    "{g}atom.shared.{} r{rd}, [r{ra}], r{rv}",
                    op.suffix()
                ));
                self.fold(out, rd);
            }
            1 => {
                out.tag("atomic.global_own");
                let o = self.lay.g_own[1];
                let [ra, rb] = self.pools::<2>();
                out.ins(format!("ldparam r{rb}, priv"));
                out.ins(format!("shl r{ra}, r{GTID}, {}", log2(o.stride * 4)));
                out.ins(format!("add r{ra}, r{ra}, r{rb}"));
                let k = o.base - self.lay.g_own[0].base + self.rng.below(o.words) * 4;
                self.add_exact(out, ra, k);
                let op = self.rng.pick(&AtomOp::ALL);
                let rd = self.pool();
                out.ins(format!(
                    "{g}atom.global.{} r{rd}, [r{ra}], r{rv}",
                    op.suffix()
                ));
                self.fold(out, rd);
            }
            // Accumulators: the old value depends on the order; discard it.
            _ => {
                let i = self.rng.below(ACC_WORDS);
                let op = ACC_OPS[i as usize];
                let ra = self.pool();
                let space = match kind {
                    2 => {
                        out.tag("atomic.shared_acc");
                        out.li("", ra, self.lay.s_acc + i * 4);
                        "shared"
                    }
                    3 => {
                        out.tag("atomic.global_block_acc");
                        self.block_base(out, ra, P_BACC, ACC_WORDS * 4);
                        self.add_exact(out, ra, i * 4);
                        "global"
                    }
                    _ => {
                        out.tag("atomic.global_grid_acc");
                        out.ins(format!("ldparam r{ra}, gacc"));
                        self.add_exact(out, ra, i * 4);
                        "global"
                    }
                };
                out.ins(format!(
                    "{g}atom.{space}.{} r{TRASH}, [r{ra}], r{rv}",
                    op.suffix()
                ));
                out.ins(format!("movi r{TRASH}, {}", self.rng.range(-100, 100)));
            }
        }
    }
}
