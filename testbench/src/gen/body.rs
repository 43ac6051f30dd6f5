//! The statement grammar: straight-line code, memory traffic, structured
//! control flow, calls and barriers, emitted as assembly text.
//!
//! Every construct is valid by construction (addresses are computed from
//! the thread ids and masked indices, never from unchecked data), every loop
//! has a counter bounded when it is set, and the rules of the module docs
//! (`gen`) keep the final state independent of warp interleaving and of the
//! arbitration policy.

use concord_isa::instr::{AluOp, AtomOp, Cmp, LoadWidth, PredOp, SpecialReg, StoreWidth};
use concord_isa::semantics::split_constant;

use super::layout::*;
use super::rng::Rng;
use super::Features;

mod control;
mod mem;

// ---------------------------------------------------------------------------
// Registers.
//
// r0..r16 are the pool: any statement may overwrite them. The others have a
// fixed role and are written only by the code that owns the role.

/// Pool registers `r0..r{NPOOL-1}`.
pub(crate) const NPOOL: u8 = 17;
/// Running hash of every loaded value and atomic result, so that a wrong
/// value read from memory reaches the final state even when the register it
/// was loaded into is overwritten later.
pub(crate) const HASH: u8 = 17;
/// Receives the old value of accumulator atomics (which depends on the
/// order of the threads); always overwritten by the next instruction.
pub(crate) const TRASH: u8 = 18;
/// `%tid`, read only.
pub(crate) const TID: u8 = 19;
/// Global thread id `ctaid.x * ntid.x + tid`, read only.
pub(crate) const GTID: u8 = 20;
/// Recursion stack pointer (global memory).
pub(crate) const SP: u8 = 21;
/// Remaining recursion depth.
pub(crate) const ARG: u8 = 22;
/// Link register of functions called from `main` (mid and recursive).
pub(crate) const LINK1: u8 = 23;
/// Link register of leaf functions.
pub(crate) const LINK2: u8 = 24;
/// `%laneid`, read only.
pub(crate) const LANE: u8 = 25;
/// Bound on the weight of any statement (the product of the trip-count
/// bounds of its enclosing loops across calls, and of the recursion depth),
/// which keeps the run time of a program proportional to its size.
const WEIGHT_ROOM: u32 = 64;

/// Loop counters: three nesting levels in `main`, two in mid and recursive
/// functions, one in leaves, so no callee clobbers a live counter.
const MAIN_COUNTERS: &[u8] = &[26, 27, 28];
const FN_COUNTERS: &[u8] = &[29, 30];
const LEAF_COUNTERS: &[u8] = &[31];

/// The commutative atomic operation owning each accumulator word.
const ACC_OPS: [AtomOp; ACC_WORDS as usize] = [
    AtomOp::Add,
    AtomOp::Min,
    AtomOp::Max,
    AtomOp::MinU,
    AtomOp::MaxU,
    AtomOp::And,
    AtomOp::Or,
    AtomOp::Xor,
];

/// Special registers a program may read: all but the model-dependent clock.
const SREGS: [SpecialReg; 17] = [
    SpecialReg::TidX,
    SpecialReg::TidY,
    SpecialReg::TidZ,
    SpecialReg::NtidX,
    SpecialReg::NtidY,
    SpecialReg::NtidZ,
    SpecialReg::CtaidX,
    SpecialReg::CtaidY,
    SpecialReg::CtaidZ,
    SpecialReg::NctaidX,
    SpecialReg::NctaidY,
    SpecialReg::NctaidZ,
    SpecialReg::LaneId,
    SpecialReg::WarpId,
    SpecialReg::NWarps,
    SpecialReg::WarpSize,
    SpecialReg::TidLinear,
];

/// Special registers with the same value in every lane of a warp.
const UNIFORM_SREGS: [SpecialReg; 8] = [
    SpecialReg::WarpId,
    SpecialReg::CtaidX,
    SpecialReg::NWarps,
    SpecialReg::WarpSize,
    SpecialReg::NtidX,
    SpecialReg::NctaidX,
    SpecialReg::NtidY,
    SpecialReg::CtaidZ,
];

// ---------------------------------------------------------------------------
// Output.

/// Assembly lines of one code region and the number of words they encode.
#[derive(Default)]
pub(crate) struct Body {
    pub lines: Vec<String>,
    pub words: u32,
}

impl Body {
    fn ins(&mut self, text: impl Into<String>) {
        self.lines.push(format!("        {}", text.into()));
        self.words += 1;
    }

    fn label(&mut self, name: &str) {
        self.lines.push(format!("{name}:"));
    }

    /// A `;#tag` comment naming a construct, counted by the coverage test.
    fn tag(&mut self, tag: &str) {
        self.lines.push(format!("        ;#{tag}"));
    }

    fn li(&mut self, guard: &str, rd: u8, value: u32) {
        let (_, hi) = split_constant(value);
        self.lines
            .push(format!("        {guard}li r{rd}, {}", value as i32));
        self.words += if hi.is_some() { 2 } else { 1 };
    }
}

// ---------------------------------------------------------------------------
// Functions.

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum FnKind {
    /// No calls; linked through `LINK2`.
    Leaf,
    /// Called from `main`, may call leaves below it; linked through `LINK1`.
    Mid,
    /// Called from `main`, calls itself with a per-lane bounded depth and
    /// may call leaves; saves `LINK1` and a local on its stack.
    Rec,
}

pub(crate) struct Func {
    pub name: String,
    pub kind: FnKind,
    /// Placed before `main_body` (lower addresses) rather than after `exit`.
    pub low: bool,
    /// Every call site keeps the warp's lane grouping independent of the
    /// arbitration policy (see `Scope::safe`), so the body may be too.
    pub sites_safe: bool,
    /// Largest weight (product of enclosing trip-count bounds, and of the
    /// recursion depth) at a call site: the body starts from it.
    pub site_weight: u32,
    pub body: Option<Body>,
}

// ---------------------------------------------------------------------------
// Generation context.

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ctx {
    Main,
    Mid,
    Rec,
    Leaf,
}

/// Which shared data of other threads the current phase of `main` may touch.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    /// Threads may write their own mailbox words and update accumulators.
    Write,
    /// Threads may read any mailbox and accumulator of their block.
    Read,
    /// Inside functions: neither (they run in any phase).
    Neutral,
}

#[derive(Clone)]
struct Scope {
    ctx: Ctx,
    /// Placement of the function being generated.
    low: bool,
    /// Loop counters still free for nested loops.
    counters: &'static [u8],
    /// The lanes of a warp that issue together here are the same under
    /// every arbitration policy (and so in every model), so instructions
    /// whose result depends on the set of active lanes (votes, ballots,
    /// consensual branches on divergent predicates, whole-warp stores to
    /// one word) are deterministic. Lost after a call that lets lanes of
    /// different call depths overtake each other; regained at a barrier.
    safe: bool,
    /// Every live lane of the warp issues here together (top level of
    /// `main`, when `safe`).
    full: bool,
    /// Inside a loop body generated under the promise that the loop stays
    /// safe: calls that would lose safety are not allowed.
    no_taint: bool,
    mode: Mode,
    depth: u32,
    /// Product of the trip-count bounds of the enclosing loops.
    weight: u32,
    in_phase_loop: bool,
    /// Nesting depth of loops.
    loops: u32,
}

impl Scope {
    /// A nested region entered by a subset of the lanes.
    fn child(&self) -> Scope {
        Scope {
            full: false,
            depth: self.depth + 1,
            ..self.clone()
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum K {
    Alu,
    AluImm,
    Mov,
    SetP,
    PLogic,
    Sel,
    S2R,
    LdParam,
    Vote,
    Nop,
    MemShared,
    MemGlobal,
    Atomic,
    If,
    Loop,
    ConsLoop,
    ConsSkip,
    Indirect,
    Call,
    Barrier,
    PhaseLoop,
    EarlyExit,
}

pub(crate) struct Gen {
    pub rng: Rng,
    pub f: Features,
    pub lay: Layout,
    labels: u32,
    pub funcs: Vec<Func>,
    budget: i64,
    /// An early `exit` was emitted: no barrier may follow.
    exited: bool,
    /// Largest recursion depth (frames) set at a call site.
    pub rec_frames: u32,
}

/// What `Gen::program` produces.
pub(crate) struct Generated {
    pub source: String,
    pub words: u32,
    pub max_call_depth: u32,
}

fn log2(x: u32) -> u32 {
    debug_assert!(x.is_power_of_two());
    x.trailing_zeros()
}

fn off_str(off: i32) -> String {
    match off.cmp(&0) {
        std::cmp::Ordering::Equal => String::new(),
        std::cmp::Ordering::Greater => format!("+{off}"),
        std::cmp::Ordering::Less => format!("-{}", -off),
    }
}

impl Gen {
    pub fn new(rng: Rng, f: Features, lay: Layout) -> Gen {
        Gen {
            rng,
            f,
            lay,
            labels: 0,
            funcs: Vec::new(),
            budget: 0,
            exited: false,
            rec_frames: 0,
        }
    }

    // -- small helpers -----------------------------------------------------

    fn label(&mut self, what: &str) -> String {
        self.labels += 1;
        format!("L{}_{what}", self.labels)
    }

    fn pool(&mut self) -> u8 {
        self.rng.below(NPOOL as u32) as u8
    }

    /// Distinct pool registers.
    fn pools<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        let mut i = 0;
        while i < N {
            let r = self.pool();
            if !out[..i].contains(&r) {
                out[i] = r;
                i += 1;
            }
        }
        out
    }

    /// Any register, as a source (every register holds a deterministic value).
    fn any_reg(&mut self) -> u8 {
        if self.rng.chance(75) {
            self.pool()
        } else {
            self.rng.below(32) as u8
        }
    }

    fn pred(&mut self) -> u8 {
        1 + self.rng.below(7) as u8
    }

    fn pred_not_in(&mut self, exclude: &[u8]) -> u8 {
        loop {
            let p = self.pred();
            if !exclude.contains(&p) {
                return p;
            }
        }
    }

    /// A predicate source for data instructions: `[!]pN`, sometimes `pt`.
    fn psrc(&mut self) -> String {
        let neg = if self.rng.chance(40) { "!" } else { "" };
        if self.rng.chance(8) {
            format!("{neg}pt")
        } else {
            format!("{neg}p{}", self.pred())
        }
    }

    /// A destination predicate, rarely `pt` (the write is discarded).
    fn pdst(&mut self) -> String {
        if self.rng.chance(4) {
            "pt".into()
        } else {
            format!("p{}", self.pred())
        }
    }

    /// A random guard (with trailing space) for a data instruction, or none.
    fn guard(&mut self, percent: u32) -> String {
        if !self.rng.chance(percent) {
            return String::new();
        }
        match self.rng.below(24) {
            0 => "@!pt ".into(),
            1 => "@pt ".into(),
            _ => {
                let neg = if self.rng.chance(50) { "!" } else { "" };
                format!("@{neg}p{} ", self.pred())
            }
        }
    }

    fn cmp(&mut self) -> Cmp {
        self.rng.pick(&Cmp::ALL)
    }

    fn imm12(&mut self) -> i32 {
        match self.rng.below(4) {
            0 => self.rng.range(-2048, 2047),
            1 => self.rng.range(-16, 16),
            2 => self.rng.pick(&[-2048, 2047, -1, 0, 1]),
            _ => self.rng.range(0, 255),
        }
    }

    fn imm10(&mut self) -> i32 {
        match self.rng.below(3) {
            0 => self.rng.range(-512, 511),
            1 => self.rng.pick(&[-512, 511, -1, 0, 1]),
            _ => self.rng.range(-8, 40),
        }
    }

    fn value32(&mut self) -> u32 {
        match self.rng.below(5) {
            0 => self.rng.range(-65536, 65535) as u32,
            1 => self
                .rng
                .pick(&[0, 1, u32::MAX, 0x8000_0000, 0x7fff_ffff, 0xffff]),
            _ => self.rng.next_u32(),
        }
    }

    /// `rd = rs * c` for a constant `c`.
    fn mul_const(&mut self, out: &mut Body, rd: u8, rs: u8, c: u32, keep: &[u8]) {
        if c.is_power_of_two() && self.rng.chance(60) {
            out.ins(format!("shl r{rd}, r{rs}, {}", log2(c)));
        } else if c <= 2047 {
            out.ins(format!("mul r{rd}, r{rs}, {c}"));
        } else {
            let mut busy = keep.to_vec();
            busy.extend([rd, rs]);
            let t = self.pool_not(&busy);
            out.li("", t, c);
            out.ins(format!("mul r{rd}, r{rs}, r{t}"));
        }
    }

    fn pool_not(&mut self, exclude: &[u8]) -> u8 {
        loop {
            let r = self.pool();
            if !exclude.contains(&r) {
                return r;
            }
        }
    }

    /// `ra += c` exactly (for atomics, which take no offset).
    fn add_exact(&mut self, out: &mut Body, ra: u8, c: u32) {
        if c == 0 {
            return;
        }
        if c <= 2047 {
            out.ins(format!("add r{ra}, r{ra}, {c}"));
        } else {
            let t = self.pool_not(&[ra]);
            out.li("", t, c);
            out.ins(format!("add r{ra}, r{ra}, r{t}"));
        }
    }

    /// Returns an offset `o` such that `ra + o`, after the emitted
    /// adjustment of `ra`, is the old `ra + k`.
    fn place(&mut self, out: &mut Body, ra: u8, k: u32) -> i32 {
        if k <= 2047 && self.rng.chance(75) {
            return k as i32;
        }
        let o = match self.rng.below(3) {
            0 => self.rng.range(-2048, 2047),
            1 => -(self.rng.range(1, 64) * 4),
            _ => 0,
        };
        let delta = k as i64 - o as i64;
        if (-2048..=2047).contains(&delta) {
            if delta != 0 {
                out.ins(format!("add r{ra}, r{ra}, {delta}"));
            }
        } else {
            let t = self.pool_not(&[ra]);
            out.li("", t, delta as u32);
            out.ins(format!("add r{ra}, r{ra}, r{t}"));
        }
        o
    }

    /// A load or a store of a random width at `ra + k + byte`, where `ra +
    /// k` is word aligned and the word belongs to the access's rules.
    fn access(&mut self, out: &mut Body, space: &str, ra: u8, k: u32, store: bool, guard: &str) {
        if store {
            let w = self.rng.pick(&StoreWidth::ALL);
            let b = self.rng.below(4 / w.bytes()) * w.bytes();
            let o = self.place(out, ra, k + b);
            let rs = self.any_reg();
            out.ins(format!(
                "{guard}st.{space}.{} [r{ra}{}], r{rs}",
                w.suffix(),
                off_str(o)
            ));
        } else {
            let w = self.rng.pick(&LoadWidth::ALL);
            let b = self.rng.below(4 / w.bytes()) * w.bytes();
            let o = self.place(out, ra, k + b);
            let rd = self.pool();
            let text = if self.rng.chance(10) && o == 0 {
                format!("{guard}ld.{space}.{} r{rd}, [ r{ra} ]", w.suffix())
            } else if self.rng.chance(5) && w == LoadWidth::B32 {
                format!("{guard}ld.{space} r{rd}, [r{ra}{}]", off_str(o))
            } else {
                format!(
                    "{guard}ld.{space}.{} r{rd}, [r{ra}{}]",
                    w.suffix(),
                    off_str(o)
                )
            };
            out.ins(text);
            self.fold(out, rd);
        }
    }

    /// Folds `rd` into the running hash.
    fn fold(&mut self, out: &mut Body, rd: u8) {
        let op = self.rng.pick(&["xor", "add", "sub"]);
        out.ins(format!("{op} r{HASH}, r{HASH}, r{rd}"));
    }

    /// A per-lane (divergent) predicate, computed now unless an existing
    /// predicate is reused; never one of `exclude`.
    fn cond(&mut self, out: &mut Body, exclude: &[u8]) -> String {
        let p = self.pred_not_in(exclude);
        match self.rng.below(8) {
            0..=2 => {
                let t = self.pool();
                let src = self.rng.pick(&[TID, LANE, GTID, TID]);
                let m = self.rng.pick(&[1u32, 3, 7, 15]);
                let c = self.cmp();
                out.ins(format!("and r{t}, r{src}, {m}"));
                out.ins(format!(
                    "setp.{} p{p}, r{t}, {}",
                    c.suffix(),
                    self.rng.range(0, m as i32)
                ));
            }
            3 => {
                let (a, b) = (self.any_reg(), self.any_reg());
                out.ins(format!("setp.{} p{p}, r{a}, r{b}", self.cmp().suffix()));
            }
            4 => {
                let a = self.any_reg();
                let c = self.cmp();
                let i = self.imm10();
                out.ins(format!("setp.{} p{p}, r{a}, {i}", c.suffix()));
            }
            5 => {}
            6 => {
                let op = self.rng.pick(&PredOp::ALL);
                let (a, b) = (self.psrc(), self.psrc());
                out.ins(format!("{} p{p}, {a}, {b}", op.mnemonic()));
            }
            _ => {
                let c = self.cmp();
                let lanes = self.lay.lanes as i32;
                out.ins(format!(
                    "setp.{} p{p}, r{LANE}, {}",
                    c.suffix(),
                    self.rng.range(0, lanes)
                ));
            }
        }
        let neg = if self.rng.chance(40) { "!" } else { "" };
        format!("{neg}p{p}")
    }

    /// A predicate with the same value in every lane of a warp, computed now.
    fn ucond(&mut self, out: &mut Body) -> String {
        let t = self.pool();
        let p = self.pred();
        match self.rng.below(5) {
            0 => out.ins(format!("s2r r{t}, %warpid")),
            1 => out.ins(format!("s2r r{t}, %ctaid.x")),
            2 => out.ins(format!(
                "ldparam r{t}, {}",
                PARAM_NAMES[(P_DATA + self.rng.below(DATA_PARAMS)) as usize]
            )),
            3 => {
                let s = self.rng.pick(&UNIFORM_SREGS);
                out.ins(format!("s2r r{t}, %{}", s.name()));
            }
            _ => out.ins(format!("movi r{t}, {}", self.rng.range(-100, 100))),
        }
        match self.rng.below(3) {
            0 => out.ins(format!("and r{t}, r{t}, {}", self.rng.pick(&[1, 3, 7]))),
            1 => out.ins(format!("xor r{t}, r{t}, {}", self.imm12())),
            _ => {}
        }
        let c = self.cmp();
        let i = self.rng.range(-2, 5);
        out.ins(format!("setp.{} p{p}, r{t}, {i}", c.suffix()));
        let neg = if self.rng.chance(30) { "!" } else { "" };
        format!("{neg}p{p}")
    }

    /// A register holding a per-thread value to derive a trip count from.
    fn trip_src(&mut self, out: &mut Body) -> u8 {
        match self.rng.below(7) {
            0 => TID,
            1 => LANE,
            2 => GTID,
            3 | 4 => self.pool(),
            _ if self.f.global => {
                // A value loaded from the read-only table, indexed by data.
                out.tag("trip.loaded");
                let [ra, ri, rd] = self.pools::<3>();
                let pr = self.pool();
                let rx = self.rng.pick(&[TID, GTID, pr]);
                out.ins(format!("ldparam r{ra}, ro"));
                out.ins(format!("and r{ri}, r{rx}, {}", GLOBAL_RO_WORDS - 1));
                out.ins(format!("shl r{ri}, r{ri}, 2"));
                out.ins(format!("add r{ra}, r{ra}, r{ri}"));
                out.ins(format!("ld.global.u8 r{rd}, [r{ra}]"));
                self.fold(out, rd);
                rd
            }
            _ => self.pool(),
        }
    }

    // -- programs ----------------------------------------------------------

    pub fn program(mut self, size: u32, fn_size: u32) -> Generated {
        let mut main = Body::default();
        self.budget = size as i64;
        self.gen_main(&mut main);

        // Bodies of the functions main called: mid and recursive ones first
        // (they add call sites of leaves), then the leaves.
        for pass in [false, true] {
            let mut i = 0;
            while i < self.funcs.len() {
                if (self.funcs[i].kind == FnKind::Leaf) == pass && self.funcs[i].body.is_none() {
                    self.budget = fn_size as i64;
                    self.gen_func(i);
                }
                i += 1;
            }
        }

        let mut src = String::new();
        src.push_str(&format!(
            "; Concord random program ({} threads x {} blocks, {} lanes)\n",
            self.lay.t, self.lay.blocks, self.lay.lanes
        ));
        for p in PARAM_NAMES {
            src.push_str(&format!(".param {p}\n"));
        }
        if self.lay.shared_bytes > 0 {
            src.push_str(&format!(".shared {}\n", self.lay.shared_bytes));
        }
        src.push_str(".entry kernel\n");
        let order = |kind: FnKind| match kind {
            FnKind::Leaf => 0,
            FnKind::Mid => 1,
            FnKind::Rec => 2,
        };
        let mut low: Vec<&Func> = self.funcs.iter().filter(|f| f.low).collect();
        let mut high: Vec<&Func> = self.funcs.iter().filter(|f| !f.low).collect();
        low.sort_by_key(|f| order(f.kind));
        high.sort_by_key(|f| order(f.kind));
        let mut words = main.words;
        if !low.is_empty() {
            src.push_str("        bra main_body\n");
            words += 1;
        }
        let emit = |src: &mut String, body: &Body| {
            for l in &body.lines {
                src.push_str(l);
                src.push('\n');
            }
        };
        for f in &low {
            emit(&mut src, f.body.as_ref().expect("generated"));
            words += f.body.as_ref().unwrap().words;
        }
        emit(&mut src, &main);
        for f in &high {
            emit(&mut src, f.body.as_ref().expect("generated"));
            words += f.body.as_ref().unwrap().words;
        }

        let mut depth = 0;
        for f in &self.funcs {
            depth = depth.max(match f.kind {
                FnKind::Leaf => 1,
                FnKind::Mid => 2,
                FnKind::Rec => self.rec_frames + 1,
            });
        }
        Generated {
            source: src,
            words,
            max_call_depth: depth,
        }
    }

    fn gen_main(&mut self, out: &mut Body) {
        out.label("main_body");
        self.prologue(out);
        let mut sc = Scope {
            ctx: Ctx::Main,
            low: false,
            counters: MAIN_COUNTERS,
            safe: true,
            full: true,
            no_taint: false,
            mode: Mode::Write,
            depth: 0,
            weight: 1,
            in_phase_loop: false,
            loops: 0,
        };
        if self.f.barriers {
            out.ins("bar.sync");
            sc.mode = self.phase_mode();
        }
        while self.budget > 0 {
            self.stmt(&mut sc, out);
        }
        if self.f.barriers && !self.exited && self.rng.chance(70) {
            // Read back what the phases accumulated.
            out.tag("readback");
            out.ins("bar.sync");
            sc.safe = true;
            sc.mode = Mode::Read;
            for _ in 0..1 + self.rng.below(4) {
                match self.rng.below(3) {
                    0 if self.f.shared => self.sh_acc_read(out),
                    1 if self.f.global => self.gl_acc_read(out),
                    _ if self.f.shared => self.sh_mailbox(&sc, out, false),
                    _ if self.f.global => self.gl_mailbox(&sc, out, false),
                    _ => {}
                }
            }
        }
        self.epilogue(out);
    }

    fn phase_mode(&mut self) -> Mode {
        if self.rng.chance(50) {
            Mode::Write
        } else {
            Mode::Read
        }
    }

    /// Initializes every register, every predicate and every shared word a
    /// thread may read (nothing may rely on initial register or shared
    /// contents), then the shared tables, then the first barrier.
    fn prologue(&mut self, out: &mut Body) {
        out.tag("prologue");
        out.ins(format!("s2r r{TID}, %tid"));
        out.ins(format!("s2r r{LANE}, %laneid"));
        out.ins(format!("s2r r{GTID}, %ctaid.x"));
        out.ins("s2r r0, %ntid.x");
        out.ins(format!("mul r{GTID}, r{GTID}, r0"));
        out.ins(format!("add r{GTID}, r{GTID}, r{TID}"));
        out.ins("ldparam r0, stack");
        out.ins(format!("shl r1, r{GTID}, {}", log2(STACK_BYTES)));
        out.ins(format!("add r{SP}, r0, r1"));
        for r in [HASH, TRASH, ARG, LINK1, LINK2]
            .into_iter()
            .chain(MAIN_COUNTERS.iter().copied())
            .chain(FN_COUNTERS.iter().copied())
            .chain(LEAF_COUNTERS.iter().copied())
        {
            out.ins(format!("movi r{r}, 0"));
        }
        for r in 0..NPOOL {
            match self.rng.below(5) {
                0 => {
                    let v = self.value32();
                    out.li("", r, v);
                }
                1 => {
                    let s = self.rng.pick(&SREGS);
                    out.ins(format!("s2r r{r}, %{}", s.name()));
                }
                2 => out.ins(format!(
                    "ldparam r{r}, {}",
                    P_DATA + self.rng.below(DATA_PARAMS)
                )),
                _ => {
                    let m = self.rng.range(1, 1023) * 2 + 1;
                    out.ins(format!("mul r{r}, r{GTID}, {m}"));
                    out.ins(format!("xor r{r}, r{r}, {}", self.imm12()));
                }
            }
        }
        for p in 1..8 {
            let (a, c) = (self.rng.below(NPOOL as u32), self.cmp());
            if self.rng.chance(50) {
                let pr = self.pool();
                let b = self.rng.pick(&[TID, LANE, GTID, pr]);
                out.ins(format!("setp.{} p{p}, r{a}, r{b}", c.suffix()));
            } else {
                out.ins(format!("setp.{} p{p}, r{a}, {}", c.suffix(), self.imm10()));
            }
        }
        if self.f.shared {
            let t = self.lay.t;
            let owns: Vec<Own> = self
                .lay
                .s_own
                .iter()
                .copied()
                .chain([self.lay.s_mb])
                .collect();
            for o in owns {
                for j in 0..o.words {
                    let ra = self.pool();
                    let shift = if o.stride == 0 { 2 } else { log2(o.stride * 4) };
                    out.ins(format!("shl r{ra}, r{TID}, {shift}"));
                    let k = o.addr(t, 0, j);
                    let off = self.place(out, ra, k);
                    let rv = self.pool_not(&[ra]);
                    out.ins(format!("st.shared [r{ra}{}], r{rv}", off_str(off)));
                }
            }
            // Warp slots: every lane stores, the highest lane's value stays.
            let [ra, rv] = self.pools::<2>();
            out.ins(format!("s2r r{ra}, %warpid"));
            out.ins(format!("shl r{ra}, r{ra}, 2"));
            out.ins(format!("mul r{rv}, r{TID}, {}", self.rng.range(3, 999)));
            out.ins(format!("st.shared [r{ra}+{}], r{rv}", self.lay.s_ws));
            if self.f.barriers {
                // The read-only table: word i written by thread i mod T.
                let mut k = 0;
                while k < SHARED_RO_WORDS {
                    let [ri, rv, ra] = self.pools::<3>();
                    let q = self.pred();
                    out.ins(format!("add r{ri}, r{TID}, {k}"));
                    out.ins(format!("setp.lt p{q}, r{ri}, {SHARED_RO_WORDS}"));
                    out.ins(format!("mul r{rv}, r{ri}, {}", self.rng.range(3, 2047)));
                    out.ins(format!("xor r{rv}, r{rv}, {}", self.imm12()));
                    out.ins(format!("shl r{ra}, r{ri}, 2"));
                    out.ins(format!("@p{q} st.shared [r{ra}+{}], r{rv}", self.lay.s_ro));
                    k += t;
                }
                // Accumulators, set by thread 0.
                let q = self.pred();
                let [ra, rv] = self.pools::<2>();
                out.ins(format!("setp.eq p{q}, r{TID}, 0"));
                out.li("", ra, self.lay.s_acc);
                for o in 0..ACC_WORDS {
                    let v = self.value32();
                    out.li("", rv, v);
                    out.ins(format!("@p{q} st.shared [r{ra}+{}], r{rv}", o * 4));
                }
            }
        }
    }

    /// Folds every register into one word and the predicates into another,
    /// stores both to the thread's checksum slot, and exits.
    fn epilogue(&mut self, out: &mut Body) {
        out.tag("checksum");
        out.ins("xor r0, r0, 1365");
        for r in 1..32 {
            out.ins("mul r0, r0, 31");
            if r % 2 == 0 {
                out.ins(format!("xor r0, r0, r{r}"));
            } else {
                out.ins(format!("add r0, r0, r{r}"));
            }
        }
        out.ins("movi r1, 0");
        for p in 1..8 {
            out.ins(format!("@p{p} or r1, r1, {}", 1 << p));
        }
        out.ins("ldparam r2, csum");
        out.ins(format!("shl r3, r{GTID}, 3"));
        out.ins("add r2, r2, r3");
        out.ins("st.global [r2], r0");
        out.ins("st.global [r2+4], r1");
        out.ins("exit");
    }

    fn gen_func(&mut self, i: usize) {
        let (name, kind, low, sites_safe, site_weight) = {
            let f = &self.funcs[i];
            (f.name.clone(), f.kind, f.low, f.sites_safe, f.site_weight)
        };
        let mut out = Body::default();
        out.label(&name);
        let (ctx, counters, link) = match kind {
            FnKind::Leaf => (Ctx::Leaf, LEAF_COUNTERS, LINK2),
            FnKind::Mid => (Ctx::Mid, FN_COUNTERS, LINK1),
            FnKind::Rec => (Ctx::Rec, FN_COUNTERS, LINK1),
        };
        let mut sc = Scope {
            ctx,
            low,
            counters,
            safe: sites_safe && kind != FnKind::Rec,
            full: false,
            no_taint: false,
            mode: Mode::Neutral,
            depth: 1,
            weight: site_weight,
            in_phase_loop: false,
            loops: 0,
        };
        out.tag(if sc.safe { "fn.safe" } else { "fn.unsafe" });
        let n = self.budget.max(1) as u32;
        match kind {
            FnKind::Leaf | FnKind::Mid => {
                self.block(&mut sc, &mut out, n);
            }
            FnKind::Rec => {
                out.tag("recursion");
                let local = self.pool();
                out.ins(format!("st.global [r{SP}], r{LINK1}"));
                out.ins(format!("st.global [r{SP}+4], r{local}"));
                out.ins(format!("add r{SP}, r{SP}, {FRAME_BYTES}"));
                let a = n / 2;
                self.block(&mut sc, &mut out, a);
                let p = self.pred();
                out.ins(format!("add r{ARG}, r{ARG}, -1"));
                out.ins(format!("setp.gt p{p}, r{ARG}, 0"));
                out.label(&format!("{name}_self"));
                if self.f.indirect && self.rng.chance(30) {
                    let rf = self.pool();
                    out.ins(format!("li r{rf}, {name}"));
                    out.ins(format!("@p{p} callr r{LINK1}, r{rf}"));
                } else {
                    out.ins(format!("@p{p} call r{LINK1}, {name}"));
                }
                self.block(&mut sc, &mut out, n - a);
                out.ins(format!("add r{SP}, r{SP}, -{FRAME_BYTES}"));
                let back = self.pool();
                out.ins(format!("ld.global r{back}, [r{SP}+4]"));
                out.ins(format!("ld.global r{LINK1}, [r{SP}]"));
            }
        }
        // Early return of some lanes, then the rest. Only where the callers'
        // lanes wait at higher addresses (or the function is unsafe anyway).
        if (low || kind == FnKind::Rec) && self.rng.chance(30) {
            out.tag("ret.early");
            let p = self.cond(&mut out, &[]);
            out.ins(format!("@{p} ret r{link}"));
            for _ in 0..1 + self.rng.below(2) {
                self.simple(&mut sc, &mut out);
            }
        }
        out.ins(format!("ret r{link}"));
        self.funcs[i].body = Some(out);
    }

    // -- statements --------------------------------------------------------

    fn block(&mut self, sc: &mut Scope, out: &mut Body, n: u32) {
        for _ in 0..n {
            self.stmt(sc, out);
        }
    }

    /// Statements for a nested block: between 0 and 4, within the budget.
    fn child_len(&mut self) -> u32 {
        let cap = self.budget.clamp(0, 4) as u32;
        self.rng.below(cap + 1)
    }

    fn simple(&mut self, sc: &mut Scope, out: &mut Body) {
        let kinds = [
            K::Alu,
            K::AluImm,
            K::Mov,
            K::SetP,
            K::PLogic,
            K::Sel,
            K::S2R,
            K::LdParam,
        ];
        let k = self.rng.pick(&kinds);
        self.emit(k, sc, out);
    }

    fn stmt(&mut self, sc: &mut Scope, out: &mut Body) {
        self.budget -= 1;
        let f = self.f;
        // Three levels of nesting in `main`, two in functions (whose depth
        // starts at 1).
        let nest = self.budget > 1 && sc.depth < 3;
        let top = sc.ctx == Ctx::Main && sc.depth == 0;
        let mut ks: Vec<(K, u32)> = vec![
            (K::Alu, 12),
            (K::AluImm, 8),
            (K::Mov, 4),
            (K::SetP, 5),
            (K::PLogic, 3),
            (K::Sel, 3),
            (K::S2R, 3),
            (K::LdParam, 2),
            (K::Vote, 3),
            (K::Nop, 1),
        ];
        if f.shared {
            ks.push((K::MemShared, 9));
        }
        if f.global {
            ks.push((K::MemGlobal, 9));
        }
        if f.atomics && (f.shared || f.global) {
            ks.push((K::Atomic, 5));
        }
        if nest {
            ks.push((K::If, 6));
            if f.loops && !sc.counters.is_empty() && sc.weight * 2 <= WEIGHT_ROOM {
                ks.push((K::Loop, 5));
                if f.consensual {
                    ks.push((K::ConsLoop, 3));
                }
            }
            if f.consensual {
                ks.push((K::ConsSkip, 3));
            }
            if f.indirect {
                ks.push((K::Indirect, 3));
            }
        }
        if f.calls && sc.ctx != Ctx::Leaf && sc.weight <= 16 {
            ks.push((K::Call, 5));
        }
        if top && !sc.in_phase_loop && f.barriers && !self.exited {
            ks.push((K::Barrier, 3));
            if f.loops && nest && !sc.counters.is_empty() {
                ks.push((K::PhaseLoop, 2));
            }
        }
        if top && !sc.in_phase_loop {
            ks.push((K::EarlyExit, 1));
        }
        let weights: Vec<u32> = ks.iter().map(|k| k.1).collect();
        let k = ks[self.rng.weighted(&weights)].0;
        self.emit(k, sc, out);
    }

    fn emit(&mut self, k: K, sc: &mut Scope, out: &mut Body) {
        match k {
            K::Alu => {
                let op = self.rng.pick(&AluOp::ALL);
                let g = self.guard(20);
                let (rd, a, b) = (self.pool(), self.any_reg(), self.any_reg());
                out.ins(format!("{g}{} r{rd}, r{a}, r{b}", op.mnemonic()));
            }
            K::AluImm => {
                let ops: Vec<AluOp> = AluOp::ALL
                    .into_iter()
                    .filter(|o| o.has_imm_form())
                    .collect();
                let op = self.rng.pick(&ops);
                let g = self.guard(20);
                let (rd, a) = (self.pool(), self.any_reg());
                let imm = if matches!(op, AluOp::Shl | AluOp::Shr | AluOp::Sra) {
                    self.rng.range(0, 31)
                } else {
                    self.imm12()
                };
                out.ins(format!("{g}{} r{rd}, r{a}, {imm}", op.mnemonic()));
            }
            K::Mov => {
                let g = self.guard(15);
                let rd = self.pool();
                match self.rng.below(4) {
                    0 => out.ins(format!("{g}movi r{rd}, {}", self.rng.range(-65536, 65535))),
                    1 => out.ins(format!("{g}movhi r{rd}, {:#x}", self.rng.below(65536))),
                    2 => {
                        let v = self.value32();
                        out.li(&g, rd, v);
                    }
                    _ => {
                        let rs = self.any_reg();
                        out.ins(format!("{g}mov r{rd}, r{rs}"));
                    }
                }
            }
            K::SetP => {
                let g = self.guard(20);
                let pd = self.pdst();
                let c = self.cmp();
                let a = self.any_reg();
                if self.rng.chance(50) {
                    let b = self.any_reg();
                    out.ins(format!("{g}setp.{} {pd}, r{a}, r{b}", c.suffix()));
                } else {
                    let i = self.imm10();
                    out.ins(format!("{g}setp.{} {pd}, r{a}, {i}", c.suffix()));
                }
            }
            K::PLogic => {
                let g = self.guard(20);
                let pd = self.pdst();
                let (a, b) = (self.psrc(), self.psrc());
                if self.rng.chance(15) {
                    out.ins(format!("{g}pmov {pd}, {a}"));
                } else {
                    let op = self.rng.pick(&PredOp::ALL);
                    out.ins(format!("{g}{} {pd}, {a}, {b}", op.mnemonic()));
                }
            }
            K::Sel => {
                let g = self.guard(20);
                let p = self.psrc();
                let (rd, a, b) = (self.pool(), self.any_reg(), self.any_reg());
                out.ins(format!("{g}sel r{rd}, {p}, r{a}, r{b}"));
            }
            K::S2R => {
                let g = self.guard(15);
                let s = self.rng.pick(&SREGS);
                out.ins(format!("{g}s2r r{}, %{}", self.pool(), s.name()));
            }
            K::LdParam => {
                let g = self.guard(15);
                let i = self.rng.below(PARAM_NAMES.len() as u32);
                let rd = self.pool();
                if self.rng.chance(50) {
                    out.ins(format!("{g}ldparam r{rd}, {}", PARAM_NAMES[i as usize]));
                } else {
                    out.ins(format!("{g}ldparam r{rd}, {i}"));
                }
            }
            K::Nop => {
                let g = self.guard(10);
                out.ins(format!("{g}nop"));
            }
            K::Vote => self.vote(sc, out),
            K::MemShared => self.mem_shared(sc, out),
            K::MemGlobal => self.mem_global(sc, out),
            K::Atomic => self.atomic(sc, out),
            K::If => self.gen_if(sc, out),
            K::Loop => self.gen_loop(sc, out),
            K::ConsLoop => self.gen_consloop(sc, out),
            K::ConsSkip => self.gen_consskip(sc, out),
            K::Indirect => self.gen_indirect(sc, out),
            K::Call => self.gen_call(sc, out),
            K::Barrier => {
                out.tag("bar");
                let text = match self.rng.below(6) {
                    0 => "bar",
                    1 => "@pt bar.sync",
                    _ => "bar.sync",
                };
                out.ins(text);
                sc.safe = true;
                sc.full = true;
                sc.mode = self.phase_mode();
            }
            K::PhaseLoop => self.gen_phase_loop(sc, out),
            K::EarlyExit => {
                // Some of the threads (a quarter or an eighth, chosen by
                // thread or lane id) leave for good.
                out.tag("exit.early");
                let t = self.pool();
                let p = self.pred();
                let src = self.rng.pick(&[TID, LANE, GTID]);
                let m = self.rng.pick(&[3, 7]);
                out.ins(format!("and r{t}, r{src}, {m}"));
                out.ins(format!("setp.eq p{p}, r{t}, {}", self.rng.range(0, m)));
                out.ins(format!("@p{p} exit"));
                self.exited = true;
            }
        }
    }

    fn vote(&mut self, sc: &mut Scope, out: &mut Body) {
        let g = self.guard(25);
        let which = self.rng.below(3);
        if sc.safe {
            out.tag("vote.divergent");
            let src = self.psrc();
            match which {
                0 | 1 => {
                    let kind = if which == 0 { "any" } else { "all" };
                    let pd = self.pdst();
                    out.ins(format!("{g}vote.{kind} {pd}, {src}"));
                }
                _ => {
                    let rd = self.pool();
                    out.ins(format!("{g}vote.ballot r{rd}, {src}"));
                }
            }
        } else {
            // Lanes may be grouped differently under another policy: vote
            // on a warp-uniform value, or keep only the lane's own ballot bit.
            match which {
                0 | 1 => {
                    out.tag("vote.uniform");
                    let u = self.ucond(out);
                    let kind = if which == 0 { "any" } else { "all" };
                    let pd = self.pdst();
                    out.ins(format!("{g}vote.{kind} {pd}, {u}"));
                }
                _ => {
                    out.tag("vote.ballot_masked");
                    let [rb, rd] = self.pools::<2>();
                    let src = self.psrc();
                    out.ins(format!("movi r{rb}, 1"));
                    out.ins(format!("shl r{rb}, r{rb}, r{LANE}"));
                    out.ins(format!("{g}vote.ballot r{rd}, {src}"));
                    out.ins(format!("and r{rd}, r{rd}, r{rb}"));
                }
            }
        }
    }
}
