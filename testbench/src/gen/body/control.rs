//! Structured control flow: if/else, per-lane and consensual loops,
//! consensual skips, indirect jumps, calls and the barrier-phase loop.

use concord_isa::instr::Consensus;

use super::*;

impl Gen {
    // -- control flow ------------------------------------------------------

    pub(super) fn gen_if(&mut self, sc: &mut Scope, out: &mut Body) {
        let p = self.cond(out, &[]);
        let join = self.label("join");
        let mut child = sc.child();
        if self.rng.chance(60) {
            out.tag("ifelse");
            let els = self.label("else");
            out.ins(format!("@{p} bra {els}"));
            let n = self.child_len();
            self.block(&mut child, out, n);
            if self.f.consensual && self.rng.chance(25) {
                out.ins(format!("bra.all pt, {join}"));
            } else {
                out.ins(format!("bra {join}"));
            }
            out.label(&els);
            let n = self.child_len();
            self.block(&mut child, out, n);
        } else {
            out.tag("if");
            out.ins(format!("@{p} bra {join}"));
            let n = self.child_len();
            self.block(&mut child, out, n);
        }
        out.label(&join);
        sc.safe &= child.safe;
    }

    /// Before a loop whose body is generated after its head: either the
    /// body promises to stay safe, or the loop is unsafe from its head on.
    /// Returns the body's `no_taint`.
    pub(super) fn loop_taint(&mut self, sc: &mut Scope) -> bool {
        if sc.safe && !sc.no_taint {
            if self.rng.chance(20) {
                sc.safe = false;
                false
            } else {
                true
            }
        } else {
            sc.no_taint
        }
    }

    pub(super) fn trip_mask(&mut self, sc: &Scope) -> u32 {
        loop {
            let m = self.rng.pick(&[1u32, 3, 7, 7]);
            if sc.weight * (m + 1) <= WEIGHT_ROOM || m == 1 {
                return m;
            }
        }
    }

    pub(super) fn loop_child(&self, sc: &Scope, mask: u32, no_taint: bool) -> Scope {
        Scope {
            counters: &sc.counters[1..],
            weight: sc.weight * (mask + 1),
            no_taint,
            loops: sc.loops + 1,
            ..sc.child()
        }
    }

    /// A loop with a per-lane trip count, exited by per-lane branches.
    pub(super) fn gen_loop(&mut self, sc: &mut Scope, out: &mut Body) {
        let c = sc.counters[0];
        let mask = self.trip_mask(sc);
        let src = self.trip_src(out);
        let no_taint = self.loop_taint(sc);
        let mut child = self.loop_child(sc, mask, no_taint);
        if sc.loops > 0 {
            out.tag("loop.nested");
        }
        let head = self.label("loop");
        let p = self.pred();
        if self.rng.chance(50) {
            out.tag("loop.bottom");
            out.ins(format!("and r{c}, r{src}, {mask}"));
            out.ins(format!("add r{c}, r{c}, 1"));
            out.label(&head);
            let n = self.child_len().max(1);
            self.block(&mut child, out, n);
            out.ins(format!("add r{c}, r{c}, -1"));
            if self.rng.chance(50) {
                out.ins(format!("setp.gt p{p}, r{c}, 0"));
                out.ins(format!("@p{p} bra {head}"));
            } else {
                out.ins(format!("setp.le p{p}, r{c}, 0"));
                out.ins(format!("@!p{p} bra {head}"));
            }
        } else {
            out.tag("loop.top");
            let exit = self.label("loopexit");
            out.ins(format!("and r{c}, r{src}, {mask}"));
            out.label(&head);
            if self.rng.chance(50) {
                out.ins(format!("setp.eq p{p}, r{c}, 0"));
            } else {
                out.ins(format!("setp.leu p{p}, r{c}, 0"));
            }
            out.ins(format!("@p{p} bra {exit}"));
            let n = self.child_len().max(1);
            self.block(&mut child, out, n);
            out.ins(format!("add r{c}, r{c}, -1"));
            out.ins(format!("bra {head}"));
            out.label(&exit);
        }
        sc.safe &= child.safe;
    }

    /// The closing consensual branch of a loop: continue while any lane
    /// wants to, in one of three spellings.
    pub(super) fn close_any(&mut self, out: &mut Body, p: u8, head: &str) {
        match self.rng.below(3) {
            0 => out.ins(format!("bra.any p{p}, {head}")),
            1 => {
                let exit = self.label("consexit");
                out.ins(format!("bra.none p{p}, {exit}"));
                out.ins(format!("bra.all pt, {head}"));
                out.label(&exit);
            }
            _ => {
                let exit = self.label("consexit");
                out.ins(format!("bra.all !p{p}, {exit}"));
                out.ins(format!("bra {head}"));
                out.label(&exit);
            }
        }
    }

    /// A loop closed by a consensual branch: all lanes iterate together.
    pub(super) fn gen_consloop(&mut self, sc: &mut Scope, out: &mut Body) {
        let c = sc.counters[0];
        let mask = self.trip_mask(sc);
        let p = self.pred();
        let head = self.label("consloop");
        let uniform = self.rng.chance(40);
        let src = if uniform {
            let r = self.pool();
            match self.rng.below(3) {
                0 => out.ins(format!("s2r r{r}, %warpid")),
                1 => out.ins(format!("ldparam r{r}, d{}", self.rng.below(DATA_PARAMS))),
                _ => out.ins(format!("movi r{r}, {}", self.rng.below(8))),
            }
            r
        } else {
            self.trip_src(out)
        };
        if sc.safe && self.rng.chance(50) {
            // Every lane runs every iteration: only where the active set is
            // the same under every policy.
            out.tag(if uniform {
                "consloop.uniform"
            } else {
                "consloop.divergent"
            });
            let mut child = self.loop_child(sc, mask, true);
            child.full = sc.full;
            out.ins(format!("and r{c}, r{src}, {mask}"));
            out.ins(format!("add r{c}, r{c}, 1"));
            out.label(&head);
            let n = self.child_len().max(1);
            self.block(&mut child, out, n);
            out.ins(format!("add r{c}, r{c}, -1"));
            out.ins(format!("setp.gt p{p}, r{c}, 0"));
            self.close_any(out, p, &head);
        } else {
            // Lanes that are done skip the body: each thread runs exactly its
            // own trip count however the lanes are grouped.
            out.tag("consloop.skip");
            let no_taint = self.loop_taint(sc);
            let mut child = self.loop_child(sc, mask, no_taint);
            let skip = self.label("consskip");
            out.ins(format!("and r{c}, r{src}, {mask}"));
            out.ins(format!("setp.gt p{p}, r{c}, 0"));
            out.label(&head);
            out.ins(format!("@!p{p} bra {skip}"));
            let n = self.child_len().max(1);
            self.block(&mut child, out, n);
            out.ins(format!("add r{c}, r{c}, -1"));
            out.ins(format!("setp.gt p{p}, r{c}, 0"));
            out.label(&skip);
            self.close_any(out, p, &head);
            sc.safe &= child.safe;
        }
    }

    /// A consensual branch forward over a region.
    pub(super) fn gen_consskip(&mut self, sc: &mut Scope, out: &mut Body) {
        let kind = self.rng.pick(&Consensus::ALL);
        let (guard, p) = if sc.safe {
            out.tag("consskip.divergent");
            let p = self.cond(out, &[]);
            (self.guard(30), p)
        } else {
            // Decided the same way for every lane whatever the grouping: a
            // warp-uniform predicate, and all lanes voting (or none).
            out.tag("consskip.uniform");
            let p = self.ucond(out);
            let g = if self.rng.chance(15) { "@!pt " } else { "" };
            (g.to_string(), p)
        };
        if !guard.is_empty() {
            out.tag("consskip.guarded");
        }
        let skip = self.label("skip");
        out.ins(format!("{guard}bra.{} {p}, {skip}", kind.suffix()));
        let mut child = Scope {
            full: sc.full,
            ..sc.child()
        };
        let n = self.child_len();
        self.block(&mut child, out, n);
        out.label(&skip);
        sc.safe &= child.safe;
    }

    /// `jmp` through a register selected per lane among 2 or 3 labels, all
    /// of which continue to a common join.
    pub(super) fn gen_indirect(&mut self, sc: &mut Scope, out: &mut Body) {
        out.tag("indirect");
        let n = 2 + self.rng.below(2) as usize;
        let p = self.cond(out, &[]);
        let pi: u8 = p.trim_start_matches('!')[1..].parse().unwrap();
        let q = self.cond(out, &[pi]);
        let targets: Vec<String> = (0..n).map(|_| self.label("target")).collect();
        let join = self.label("ijoin");
        let regs = self.pools::<4>();
        for (i, t) in targets.iter().enumerate() {
            out.ins(format!("li r{}, {t}", regs[i]));
        }
        let rj = regs[3];
        out.ins(format!("sel r{rj}, {p}, r{}, r{}", regs[0], regs[1]));
        if n == 3 {
            out.ins(format!("sel r{rj}, {q}, r{rj}, r{}", regs[2]));
        }
        let g = self.guard(20);
        out.ins(format!("{g}jmp r{rj}"));
        let mut child = sc.child();
        for (i, t) in targets.iter().enumerate() {
            out.label(t);
            let len = self.child_len();
            self.block(&mut child, out, len);
            if i + 1 < n {
                out.ins(format!("bra {join}"));
            }
        }
        out.label(&join);
        sc.safe &= child.safe;
    }

    pub(super) fn func(
        &mut self,
        kind: FnKind,
        low: bool,
        site_safe: bool,
        site_weight: u32,
    ) -> usize {
        let same: Vec<usize> = (0..self.funcs.len())
            .filter(|&i| self.funcs[i].kind == kind && self.funcs[i].low == low)
            .collect();
        let max = match kind {
            FnKind::Leaf => 3,
            FnKind::Mid | FnKind::Rec => 2,
        };
        let i = if !same.is_empty() && (same.len() >= max || self.rng.chance(60)) {
            same[self.rng.below(same.len() as u32) as usize]
        } else {
            let name = format!(
                "{}{}_{}",
                match kind {
                    FnKind::Leaf => "leaf",
                    FnKind::Mid => "mid",
                    FnKind::Rec => "rec",
                },
                self.funcs.len(),
                if low { "lo" } else { "hi" }
            );
            self.funcs.push(Func {
                name,
                kind,
                low,
                sites_safe: true,
                site_weight: 1,
                body: None,
            });
            self.funcs.len() - 1
        };
        self.funcs[i].sites_safe &= site_safe;
        let w = &mut self.funcs[i].site_weight;
        *w = (*w).max(site_weight);
        i
    }

    pub(super) fn gen_call(&mut self, sc: &mut Scope, out: &mut Body) {
        let mut kinds = vec![FnKind::Leaf];
        if sc.ctx == Ctx::Main {
            kinds.push(FnKind::Mid);
            if self.f.recursion && sc.weight <= 4 {
                kinds.push(FnKind::Rec);
            }
        }
        let kind = self.rng.pick(&kinds);
        // Callees of functions lie below the call site: low functions call
        // low leaves, high ones any leaf (leaves are laid out first).
        let mut low = match sc.ctx {
            Ctx::Main => self.rng.chance(50),
            _ => sc.low || self.rng.chance(50),
        };
        let guarded = self.rng.chance(40);
        // A call that lets the callers' lanes sit above lanes of the warp
        // that did not call (a higher callee, entered by part of the warp,
        // or a recursive one returning lane by lane) changes the grouping of
        // later code under the other policy.
        let taints = |low: bool| {
            sc.ctx == Ctx::Main
                && !low
                && (kind == FnKind::Rec || !(sc.safe && sc.full && !guarded))
        };
        if taints(low) && (sc.no_taint || self.rng.chance(40)) {
            low = true;
        }
        let taint = taints(low);
        let site_safe = sc.safe && !taint;
        // Recursion depth of this call, bounded by the room left.
        let mask = loop {
            let m = self.rng.pick(&[0u32, 1, 3, 7]);
            if sc.weight * (m + 1) <= WEIGHT_ROOM / 2 || m == 0 {
                break m;
            }
        };
        let site_weight = if kind == FnKind::Rec {
            sc.weight * (mask + 1)
        } else {
            sc.weight
        };
        let fi = self.func(kind, low, site_safe, site_weight);
        let name = self.funcs[fi].name.clone();
        let link = if kind == FnKind::Leaf { LINK2 } else { LINK1 };

        out.tag(if low { "call.down" } else { "call.up" });
        if sc.ctx != Ctx::Main {
            out.tag("call.nested");
        }
        if kind == FnKind::Rec {
            out.tag("call.rec");
            debug_assert!(mask < MAX_FRAMES);
            self.rec_frames = self.rec_frames.max(mask + 1);
            let src = self.trip_src(out);
            out.ins(format!("and r{ARG}, r{src}, {mask}"));
            out.ins(format!("add r{ARG}, r{ARG}, 1"));
        }
        let guard = if guarded {
            out.tag("call.guarded");
            let p = self.cond(out, &[]);
            format!("@{p} ")
        } else {
            String::new()
        };
        if self.f.indirect && self.rng.chance(35) {
            out.tag("callr");
            if self.rng.chance(30) {
                out.ins(format!("li r{link}, {name}"));
                out.ins(format!("{guard}callr r{link}, r{link}"));
            } else {
                let rf = self.pool();
                out.ins(format!("li r{rf}, {name}"));
                out.ins(format!("{guard}callr r{link}, r{rf}"));
            }
        } else {
            out.ins(format!("{guard}call r{link}, {name}"));
        }
        if taint {
            out.tag("taint");
            sc.safe = false;
        }
    }

    /// A uniform loop around a write phase and a read phase, each ended by
    /// a barrier.
    pub(super) fn gen_phase_loop(&mut self, sc: &mut Scope, out: &mut Body) {
        out.tag("phaseloop");
        let c = sc.counters[0];
        if self.rng.chance(50) {
            out.ins(format!("movi r{c}, {}", 2 + self.rng.below(2)));
        } else {
            out.ins(format!("ldparam r{c}, d{}", self.rng.below(DATA_PARAMS)));
            out.ins(format!("and r{c}, r{c}, 1"));
            out.ins(format!("add r{c}, r{c}, 2"));
        }
        if sc.mode != Mode::Write {
            // The first write half must not overlap the reads of the
            // current phase.
            out.ins("bar.sync");
            sc.safe = true;
            sc.full = true;
            sc.mode = Mode::Write;
        }
        let head = self.label("phase");
        out.label(&head);
        let mut child = Scope {
            counters: &sc.counters[1..],
            in_phase_loop: true,
            mode: Mode::Write,
            weight: sc.weight * 3,
            loops: sc.loops + 1,
            ..sc.clone()
        };
        let n = self.child_len().max(1);
        self.block(&mut child, out, n);
        out.ins("bar.sync");
        child.safe = true;
        child.full = true;
        child.mode = Mode::Read;
        let n = self.child_len().max(1);
        self.block(&mut child, out, n);
        out.ins("bar.sync");
        let p = self.pred();
        out.ins(format!("add r{c}, r{c}, -1"));
        out.ins(format!("setp.gt p{p}, r{c}, 0"));
        if self.f.consensual && self.rng.chance(50) {
            out.ins(format!("bra.any p{p}, {head}"));
        } else {
            out.ins(format!("@p{p} bra {head}"));
        }
        sc.safe = true;
        sc.full = true;
        sc.mode = self.phase_mode();
    }
}
