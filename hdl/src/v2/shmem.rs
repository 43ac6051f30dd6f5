//! The Core v2 shared memory (`docs/microarchitecture.md` §10.1, §3.1):
//! `B` banks of `2^RB` words of 32 bits with byte enables, the M-stage
//! row address, the per-bank store select, the bank-to-lane load select
//! with extraction and extension, the core's **one** atomic ALU, the row
//! clear of an init slot and the port rule.
//!
//! | stage | here |
//! |---|---|
//! | M (inputs) | row `base_row \| min_row` (a concatenation: `base_row` is a multiple of the window, `min_row` below it) to every bank's read port; store: bank `k` byte `j` written when a served lane's word is in bank `k` and its store covers byte `j`, data from the **highest** such lane; clear: every bank's row written with 0; `port_busy` |
//! | W (outputs) | `ld[l]`: lane `l`'s bank word, extracted at its byte offset and extended by the load width (`semantics::load_extend`); atomic: `old` = the served lane's bank word, `new = semantics::atomic(op, old, operand)` written to that bank at the end of W, `ld[l] = atom_old = old` |
//!
//! **Inputs** (what stage A registers for M): `kind` one-hot
//! ([`KIND_LOAD`] …: load, store, atomic, clear; 0 is no shared item),
//! `served[l]`, `base_row`, `min_row`, per lane `bank[l]` (one-hot, `B`
//! bits: word address mod `B`), `off[l]` (load byte offset), `sd[l]` and
//! `be[l]` (store data and byte enables, aligned by X), `lw` (load width,
//! one-hot over `LoadWidth::ALL`), `aop` (one-hot over `AtomOp::ALL`) and
//! `aopnd` (the atomic's operand).
//!
//! **Outputs**: `port_busy` (M: the item is a shared atomic that served a
//! lane; the commit logic refuses a shared pass or a row clear at A), and
//! at W `ld_en[l]` (lane served by a load or an atomic), `ld[l]` (0 when
//! `ld_en[l]` is not set: the lane ORs it into its write data, so the
//! gate is on the five width bits of each lane, not on its 32 data bits),
//! `atom_old`.
//!
//! **The write port.** One per bank: an atomic's write-back at W, else the
//! store or clear of the item at M. By the port rule the item at M while
//! an atomic is at W serves nothing; the unit also drops any store or
//! clear then (the write-port select is the W atomic itself), so the
//! atomic's read-modify-write is indivisible whatever the inputs.
//!
//! **Structure** (§19.4: no `if` chain anywhere). The highest lane's
//! byte, for each bank and byte: a balanced tree over the lanes (lower
//! lane on the left), each node taking its upper half's byte when a lane
//! of the upper half requests (the OR of that half's requests), else its
//! lower half's: `log2 L` levels of 2:1 AND-OR. A lane's load word is the
//! one-hot AND-OR of the bank words under its bank one-hot (registered at
//! the end of M); the extraction is a one-hot AND-OR over the byte offset
//! and the load width. The atomic ALU has one adder/subtractor (add, and
//! the four min/max from the difference) and a one-hot result select. The
//! banks are memories with four byte enables and `no_rw_check` (a read in
//! the cycle its word is written is never used: the only such read is that
//! of an item the port rule refused), so Yosys maps each 512-row bank to
//! one block RAM with no bypass.
//!
//! **Why a tree and not a one-hot priority mask** for the store: the mask
//! (`req & ~(OR of the higher requests)`, then an L-term AND-OR of the
//! bytes) is what §10.1 describes, and it simulates identically, but with
//! the default `synth_ecp5` (ABC with wide LUTs) it measured 5,341 LUT4 at
//! 8 lanes and 13,392 at 16 (`hdl/README.md`, "Core v2: shared memory"):
//! ABC folds the priority into every data bit. The tree is 4,696 and 8,738
//! (the same tree on one 8-bit byte of 16 lanes alone: 230 LUT4 against
//! 443 for the mask; `-nowidelut`: 120 against 159).
//!
//! **Simulation cost.** The two crossbars and the atomic ALU are
//! evaluated only when they have work: the store select inside one
//! `always` under "a store or an atomic at M", the atomic ALU under
//! "an atomic at W", the load extraction under "a load, an atomic or a
//! return slot at W", the banks' write port and its trace under "a store
//! or a clear at M, or an atomic at W", with 0 in every signal otherwise
//! (each was already 0 there, through the enables that follow, so
//! synthesis gives the same netlist: 5,524 → 5,494 LUT4 at `L` = 8,
//! ABC's noise). Verilator turns
//! the `if` into a branch and skips the unit in the cycles of a kernel
//! without shared memory; as continuous assignments it was about a fifth
//! of every simulated cycle of the 8 × 4 core (`hdl/README.md`).
//!
//! The block is custom Verilog generated for `L` lanes (rust-hdl's
//! `#[hdl_gen]` cannot accumulate an AND-OR over a run-time lane count, as
//! its simulator does not see blocking accumulation, nor index a child's
//! vector port from a vector of children); its rust-hdl model (`update`)
//! is a cycle-exact Rust model of the same rules. Both the Verilog (under
//! Verilator) and the model are tested against an independent reference
//! (`tests/v2_shmem.rs`). Byte offsets are those X's alignment check lets
//! through (a halfword at 0 or 2, a word at 0).

use concord_isa::instr::{AtomOp, LoadWidth};
use concord_isa::semantics;
use rust_hdl_core::prelude::*;

/// `kind` bit of a shared load.
pub const KIND_LOAD: usize = 0;
/// `kind` bit of a shared store.
pub const KIND_STORE: usize = 1;
/// `kind` bit of a shared atomic (one served lane).
pub const KIND_ATOMIC: usize = 2;
/// `kind` bit of an init slot's row clear.
pub const KIND_CLEAR: usize = 3;

/// The shared memory of `lanes` lanes, `banks` banks of `2^RB` rows.
///
/// The bank count is a run-time value (the core's body has no const
/// generic for it, `core.rs`): the per-lane bank one-hots are 32-bit ports
/// of which the low `banks` bits are read, and the vectors of per-bank
/// trace outputs have `banks` elements.
#[derive(LogicBlock)]
pub struct Shmem<const RB: usize> {
    pub clock: Signal<In, Clock>,
    /// The core's synchronous reset: at a reset edge the W registers load
    /// "no item" (no register, bank or trap effect in the cycle after),
    /// whatever M holds. It is read only at the clock edge, never by the
    /// M-stage logic: Verilator evaluates logic that depends on a
    /// top-level input at both clock edges, and this block's crossbars are
    /// the largest in the core (`concord bench --core`).
    pub reset: Signal<In, bool>,
    // M: what A registered
    pub kind: Signal<In, Bits<4>>,
    pub served: Vec<Signal<In, bool>>,
    pub base_row: Signal<In, Bits<RB>>,
    pub min_row: Signal<In, Bits<RB>>,
    pub bank: Vec<Signal<In, Bits<32>>>,
    pub off: Vec<Signal<In, Bits<2>>>,
    pub sd: Vec<Signal<In, Bits<32>>>,
    pub be: Vec<Signal<In, Bits<4>>>,
    pub lw: Signal<In, Bits<5>>,
    pub aop: Signal<In, Bits<9>>,
    pub aopnd: Signal<In, Bits<32>>,
    /// M: the item is a global return slot (§10.2): lane `l`'s word is
    /// `rs_word[l]` instead of its bank's, extracted and extended like a
    /// shared load's (`off`, `lw`, `served`).
    pub rs_sel: Signal<In, bool>,
    pub rs_word: Vec<Signal<In, Bits<32>>>,
    // M
    pub port_busy: Signal<Out, bool>,
    /// The write port in this cycle (§15.2 `tr_sh_*`): per bank the byte
    /// enables and the written bytes (0 elsewhere), the physical row (0
    /// when nothing is written).
    pub t_we: Vec<Signal<Out, Bits<4>>>,
    pub t_wd: Vec<Signal<Out, Bits<32>>>,
    pub t_row: Signal<Out, Bits<RB>>,
    // W
    pub ld_en: Vec<Signal<Out, bool>>,
    pub ld: Vec<Signal<Out, Bits<32>>>,
    pub atom_old: Signal<Out, Bits<32>>,
    _lanes: usize,
    _banks: usize,
    // The Rust model's state: banks (bank-major) and the W registers.
    _mem: Vec<u32>,
    _rd: Vec<u32>,
    _w: WRegs,
}

/// The M→W registers of the Rust model.
#[derive(Clone, Default, Debug)]
struct WRegs {
    load: bool,
    atomic: bool,
    rs: bool,
    rs_word: Vec<u32>,
    served: Vec<bool>,
    bank: Vec<usize>,
    off: Vec<u32>,
    lw: u64,
    aop: u64,
    aopnd: u32,
    row: usize,
    abank: usize,
}

impl<const RB: usize> Shmem<RB> {
    pub fn new(lanes: usize, banks: usize) -> Self {
        assert!(
            lanes.is_power_of_two()
                && lanes <= 32
                && banks.is_power_of_two()
                && banks <= 32
                && (1..=14).contains(&RB),
            "shared memory of {lanes} lanes, {banks} banks, 2^{RB} rows"
        );
        let sig = |n: usize| (0..n).map(|_| Default::default()).collect::<Vec<_>>();
        Shmem {
            clock: Default::default(),
            reset: Default::default(),
            kind: Default::default(),
            served: (0..lanes).map(|_| Default::default()).collect(),
            base_row: Default::default(),
            min_row: Default::default(),
            bank: (0..lanes).map(|_| Default::default()).collect(),
            off: (0..lanes).map(|_| Default::default()).collect(),
            sd: (0..lanes).map(|_| Default::default()).collect(),
            be: (0..lanes).map(|_| Default::default()).collect(),
            lw: Default::default(),
            aop: Default::default(),
            aopnd: Default::default(),
            rs_sel: Default::default(),
            rs_word: (0..lanes).map(|_| Default::default()).collect(),
            port_busy: Default::default(),
            t_we: sig(banks),
            t_wd: (0..banks).map(|_| Default::default()).collect(),
            t_row: Default::default(),
            ld_en: (0..lanes).map(|_| Default::default()).collect(),
            ld: (0..lanes).map(|_| Default::default()).collect(),
            atom_old: Default::default(),
            _lanes: lanes,
            _banks: banks,
            _mem: vec![0; banks << RB],
            _rd: vec![0; banks],
            _w: WRegs {
                served: vec![false; lanes],
                bank: vec![0; lanes],
                off: vec![0; lanes],
                rs_word: vec![0; lanes],
                ..Default::default()
            },
        }
    }

    pub fn lanes(&self) -> usize {
        self._lanes
    }

    pub fn banks(&self) -> usize {
        self._banks
    }

    /// The W-stage outputs of the Rust model from its registers.
    fn model_outputs(&mut self) {
        let w = &self._w;
        let old = self._rd.get(w.abank).copied().unwrap_or(0);
        for l in 0..self._lanes {
            let raw = if w.rs {
                w.rs_word[l]
            } else {
                self._rd.get(w.bank[l]).copied().unwrap_or(0)
            };
            let shifted = raw >> (8 * w.off[l]);
            let width = if w.atomic {
                LoadWidth::B32
            } else {
                LoadWidth::ALL[(w.lw.trailing_zeros() as usize).min(4)]
            };
            let en = w.served[l] && (w.load || w.atomic || w.rs);
            let v = if !en || (w.lw == 0 && !w.atomic) {
                0
            } else {
                semantics::load_extend(width, shifted)
            };
            self.ld[l].next = u64::from(v).into();
            self.ld_en[l].next = en;
        }
        self.atom_old.next = u64::from(if w.atomic { old } else { 0 }).into();
    }

    /// The write port of this cycle in the Rust model: the row and, per
    /// bank, the byte enables and the data (the atomic at W, else the
    /// store or clear at M).
    fn write_port(&self) -> (usize, Vec<u32>, Vec<u32>) {
        let banks = self._banks;
        let kind = bits_u64(self.kind.val());
        let m_row = (bits_u64(self.base_row.val()) | bits_u64(self.min_row.val())) as usize;
        let mut we = vec![0u32; banks];
        let mut wd = vec![0u32; banks];
        let w = &self._w;
        if w.atomic && w.abank < banks {
            let op = AtomOp::ALL[(w.aop.trailing_zeros() as usize).min(8)];
            let old = self._rd[w.abank];
            we[w.abank] = 0xf;
            wd[w.abank] = if w.aop == 0 {
                0
            } else {
                semantics::atomic(op, old, w.aopnd)
            };
            return (w.row, we, wd);
        }
        if kind & (1 << KIND_CLEAR) != 0 {
            we.fill(0xf);
        } else if kind & (1 << KIND_STORE) != 0 {
            // Lanes in ascending order: the highest lane's byte stays.
            for l in 0..self._lanes {
                let bank = bits_u64(self.bank[l].val()) & ((1u64 << banks) - 1);
                if !self.served[l].val() || bank == 0 {
                    continue;
                }
                let k = bank.trailing_zeros() as usize;
                let be = bits_u64(self.be[l].val()) as u32;
                let d = bits_u64(self.sd[l].val()) as u32;
                for j in 0..4 {
                    if be >> j & 1 != 0 {
                        we[k] |= 1 << j;
                        wd[k] = (wd[k] & !(0xff << (8 * j))) | (d & (0xff << (8 * j)));
                    }
                }
            }
        }
        (m_row, we, wd)
    }
}

fn bits_u64<const N: usize>(b: Bits<N>) -> u64 {
    b.to_u64()
}

impl<const RB: usize> Logic for Shmem<RB> {
    /// A cycle-exact model of the Verilog (the reference the tests use is
    /// independent of both).
    fn update(&mut self) {
        let (lanes, banks) = (self._lanes, self._banks);
        let kind = bits_u64(self.kind.val());
        let served: Vec<bool> = self.served.iter().map(|s| s.val()).collect();
        let any = served.iter().any(|&s| s);
        self.port_busy.next = kind & (1 << KIND_ATOMIC) != 0 && any;
        let (wrow, we, wd) = self.write_port();
        let any_we = we.iter().any(|&e| e != 0);
        for k in 0..banks {
            self.t_we[k].next = u64::from(we[k]).into();
            self.t_wd[k].next = u64::from(wd[k]).into();
        }
        self.t_row.next = (if any_we { wrow as u64 } else { 0 }).into();
        if self.clock.pos_edge() {
            let rows = 1usize << RB;
            let row = (bits_u64(self.base_row.val()) | bits_u64(self.min_row.val())) as usize;
            let bank: Vec<usize> = self
                .bank
                .iter()
                .map(|b| {
                    let v = bits_u64(b.val()) & ((1u64 << banks) - 1);
                    if v == 0 {
                        banks
                    } else {
                        v.trailing_zeros() as usize
                    }
                })
                .collect();
            // Reads at the end of M (a word written at this edge reads old).
            for k in 0..banks {
                self._rd[k] = self._mem[k * rows + row];
            }
            // The write port: the atomic at W, else the store or clear at M
            // (not under reset).
            let reset = self.reset.val();
            for k in 0..banks {
                if reset && !(self._w.atomic && self._w.abank == k) {
                    continue;
                }
                let m = &mut self._mem[k * rows + wrow];
                for j in 0..4 {
                    if we[k] >> j & 1 != 0 {
                        *m = (*m & !(0xff << (8 * j))) | (wd[k] & (0xff << (8 * j)));
                    }
                }
            }
            let (kind, served) = if reset {
                (0, vec![false; lanes])
            } else {
                (kind, served)
            };
            let atomic = kind & (1 << KIND_ATOMIC) != 0;
            let abank = (0..lanes).find(|&l| served[l]).map_or(banks, |l| bank[l]);
            self._w = WRegs {
                load: kind & (1 << KIND_LOAD) != 0,
                atomic: atomic && abank < banks,
                rs: self.rs_sel.val() && !reset,
                rs_word: self
                    .rs_word
                    .iter()
                    .map(|r| bits_u64(r.val()) as u32)
                    .collect(),
                served,
                bank,
                off: self.off.iter().map(|o| bits_u64(o.val()) as u32).collect(),
                lw: bits_u64(self.lw.val()),
                aop: bits_u64(self.aop.val()),
                aopnd: bits_u64(self.aopnd.val()) as u32,
                row,
                abank,
            };
        }
        self.model_outputs();
    }

    fn connect(&mut self) {
        self.port_busy.connect();
        for s in &mut self.t_we {
            s.connect();
        }
        for s in &mut self.t_wd {
            s.connect();
        }
        self.t_row.connect();
        for s in &mut self.ld_en {
            s.connect();
        }
        for s in &mut self.ld {
            s.connect();
        }
        self.atom_old.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(shmem_body(self._lanes, self._banks, RB))
    }
}

/// `a | b | …` of the strings (or `zero` when empty).
fn or_all(terms: &[String], zero: &str) -> String {
    if terms.is_empty() {
        zero.to_string()
    } else {
        terms.join(" | ")
    }
}

/// The Verilog body of [`Shmem`] (ports declared by rust-hdl).
pub fn shmem_body(lanes: usize, banks: usize, rb: usize) -> String {
    use std::fmt::Write;
    let (l_n, b_n) = (lanes, banks);
    let rows = 1usize << rb;
    let mut v = String::new();
    let w = &mut v;
    // M: row, served vector, port rule.
    writeln!(w, "wire [{}:0] row = base_row | min_row;", rb - 1).unwrap();
    let srv: Vec<String> = (0..l_n).rev().map(|l| format!("served${l}")).collect();
    writeln!(w, "wire [{}:0] srv = {{{}}};", l_n - 1, srv.join(", ")).unwrap();
    writeln!(w, "always @(*) port_busy = kind[2] & (|srv);").unwrap();
    // The bank one-hots are 32-bit ports (the bank count is a run-time
    // value of the generator); the bits above the banks are never read.
    if b_n < 32 {
        let hi: Vec<String> = (0..l_n).map(|l| format!("bank${l}[31:{b_n}]")).collect();
        writeln!(w, "wire unused_bank_bits = |{{{}}};", hi.join(", ")).unwrap();
    }
    // W registers.
    writeln!(w, "reg w_load, w_atom, w_rs;").unwrap();
    writeln!(w, "reg [{}:0] w_srv;", l_n - 1).unwrap();
    writeln!(w, "reg [{}:0] w_row;", rb - 1).unwrap();
    writeln!(w, "reg [{}:0] w_abank;", b_n - 1).unwrap();
    writeln!(w, "reg [4:0] w_lw;").unwrap();
    writeln!(w, "reg [8:0] w_aop;").unwrap();
    writeln!(w, "reg [31:0] w_opnd;").unwrap();
    for l in 0..l_n {
        writeln!(w, "reg [{}:0] w_bank{l};", b_n - 1).unwrap();
        writeln!(w, "reg [3:0] w_off{l};").unwrap();
        writeln!(w, "reg [31:0] w_rsw{l};").unwrap();
    }
    // Per bank: lanes in the bank, the store requests per byte and their
    // highest lane, the store data. All of it inside one `always` under
    // "a store or an atomic is at M" (every term below is already 0
    // otherwise, so the netlist is the same after synthesis): Verilator
    // then skips the whole select in the cycles without such an item
    // (most of a kernel), which was about a fifth of a simulated cycle.
    for k in 0..b_n {
        writeln!(w, "reg [{}:0] hit{k};", l_n - 1).unwrap();
        for j in 0..4 {
            writeln!(w, "reg [{}:0] req{k}_{j};", l_n - 1).unwrap();
            writeln!(w, "reg [7:0] sdat{k}_{j};").unwrap();
        }
    }
    writeln!(w, "always @(*) begin").unwrap();
    writeln!(w, "    if (kind[1] | kind[2]) begin").unwrap();
    for k in 0..b_n {
        let hit: Vec<String> = (0..l_n)
            .rev()
            .map(|l| format!("srv[{l}] & bank${l}[{k}]"))
            .collect();
        writeln!(w, "        hit{k} = {{{}}};", hit.join(", ")).unwrap();
        for j in 0..4 {
            let req: Vec<String> = (0..l_n)
                .rev()
                .map(|l| format!("hit{k}[{l}] & be${l}[{j}]"))
                .collect();
            writeln!(
                w,
                "        req{k}_{j} = {{{}}} & {{{l_n}{{kind[1]}}}};",
                req.join(", ")
            )
            .unwrap();
            // The highest requesting lane's byte: a balanced tree over the
            // lanes, each node taking its upper half's byte when a lane of
            // the upper half requests, else its lower half's (`log2 L`
            // levels of 2:1 AND-OR; see the module doc for why not a
            // one-hot priority mask).
            // A node: (lowest lane, highest lane, its byte), written as
            // one expression (no named nodes: the `else` below would have
            // to zero each of them in every idle cycle).
            let mut cur: Vec<(usize, usize, String)> = (0..l_n)
                .map(|l| (l, l, format!("sd${l}[{}:{}]", 8 * j + 7, 8 * j)))
                .collect();
            while cur.len() > 1 {
                let mut next = Vec::new();
                for pair in cur.chunks(2) {
                    let ((lo, _, dl), (ulo, uhi, du)) = (&pair[0], &pair[1]);
                    let up = format!("(|req{k}_{j}[{uhi}:{ulo}])");
                    next.push((
                        *lo,
                        *uhi,
                        format!("(({{8{{{up}}}}} & {du}) | ({{8{{~{up}}}}} & {dl}))"),
                    ));
                }
                cur = next;
            }
            writeln!(w, "        sdat{k}_{j} = {};", cur[0].2).unwrap();
        }
    }
    writeln!(w, "    end else begin").unwrap();
    for k in 0..b_n {
        writeln!(w, "        hit{k} = {l_n}'d0;").unwrap();
        for j in 0..4 {
            writeln!(w, "        req{k}_{j} = {l_n}'d0;").unwrap();
            writeln!(w, "        sdat{k}_{j} = 8'd0;").unwrap();
        }
    }
    writeln!(w, "    end\nend").unwrap();
    // The atomic ALU at W: old from the atomic lane's bank, computed only
    // when an atomic is at W (0 otherwise, which every user already
    // gates with `w_atom`: Verilator skips it in the other cycles).
    let old: Vec<String> = (0..b_n)
        .map(|k| format!("({{32{{w_abank[{k}]}}}} & rd{k})"))
        .collect();
    for k in 0..b_n {
        writeln!(w, "wire [31:0] rd{k};").unwrap();
    }
    writeln!(
        w,
        "\
reg [31:0] old, sum, anew;
reg sub, sgn, lt_s, lt_u, pick_old, pick_b;
always @(*) begin
    if (w_atom) begin
        old = {old};
        sub = |w_aop[5:2];
        sum = old + (w_opnd ^ {{32{{sub}}}}) + {{31'd0, sub}};
        sgn = old[31] ^ w_opnd[31];
        lt_s = sgn ? old[31] : sum[31];
        lt_u = sgn ? w_opnd[31] : sum[31];
        pick_old = (w_aop[2] & lt_s) | (w_aop[3] & ~lt_s) | (w_aop[4] & lt_u) | (w_aop[5] & ~lt_u);
        pick_b = w_aop[1] | ((|w_aop[5:2]) & ~pick_old);
        anew = ({{32{{w_aop[0]}}}} & sum) | ({{32{{pick_old}}}} & old) | ({{32{{pick_b}}}} & w_opnd)
            | ({{32{{w_aop[6]}}}} & (old & w_opnd)) | ({{32{{w_aop[7]}}}} & (old | w_opnd))
            | ({{32{{w_aop[8]}}}} & (old ^ w_opnd));
    end else begin
        old = 32'd0;
        sub = 1'b0;
        sum = 32'd0;
        sgn = 1'b0;
        lt_s = 1'b0;
        lt_u = 1'b0;
        pick_old = 1'b0;
        pick_b = 1'b0;
        anew = 32'd0;
    end
    atom_old = old;
end",
        old = or_all(&old, "32'd0")
    )
    .unwrap();
    writeln!(
        w,
        "\
// The write port: the atomic at W, else the store or the clear at M.
wire [{r1}:0] waddr = ({{{rb}{{w_atom}}}} & w_row) | ({{{rb}{{~w_atom}}}} & row);
wire m_st = kind[1] & ~w_atom;
wire m_clr = kind[3] & ~w_atom;",
        r1 = rb - 1
    )
    .unwrap();
    // Banks. The write port's enables and data, and its trace, are
    // computed in one `always` under "a store or a clear at M, or an
    // atomic at W" (all 0 otherwise, as they already were), so Verilator
    // skips them in idle cycles.
    for k in 0..b_n {
        writeln!(
            w,
            "\
wire wa{k} = w_atom & w_abank[{k}];
reg [3:0] we{k};
reg [31:0] wd{k};
reg [3:0] wr{k};
(* no_rw_check *)
reg [31:0] mem{k} [0:{last}];
reg [31:0] q{k};
assign rd{k} = q{k};
always @(posedge clock) begin
    if (wr{k}[0]) mem{k}[waddr][7:0] <= wd{k}[7:0];
    if (wr{k}[1]) mem{k}[waddr][15:8] <= wd{k}[15:8];
    if (wr{k}[2]) mem{k}[waddr][23:16] <= wd{k}[23:16];
    if (wr{k}[3]) mem{k}[waddr][31:24] <= wd{k}[31:24];
    q{k} <= mem{k}[row];
end",
            last = rows - 1
        )
        .unwrap();
    }
    // The write port, traced (§15.2): bytes not written show 0.
    let anywe: Vec<String> = (0..b_n).map(|k| format!("(|we{k})")).collect();
    writeln!(
        w,
        "always @(*) begin\n    if (kind[1] | kind[3] | w_atom) begin"
    )
    .unwrap();
    for k in 0..b_n {
        writeln!(
            w,
            "\
        we{k} = {{4{{wa{k} | m_clr}}}} | ({{4{{m_st}}}} & {{|req{k}_3, |req{k}_2, |req{k}_1, |req{k}_0}});
        wd{k} = ({{32{{wa{k}}}}} & anew) | ({{32{{m_st}}}} & {{sdat{k}_3, sdat{k}_2, sdat{k}_1, sdat{k}_0}});
        wr{k} = {{4{{wa{k}}}}} | ({{4{{~reset}}}} & we{k});
        t_we${k} = we{k};
        t_wd${k} = wd{k} & {{{{8{{we{k}[3]}}}}, {{8{{we{k}[2]}}}}, {{8{{we{k}[1]}}}}, {{8{{we{k}[0]}}}}}};"
        )
        .unwrap();
    }
    writeln!(
        w,
        "        t_row = {{{rb}{{{}}}}} & waddr;\n    end else begin",
        anywe.join(" | ")
    )
    .unwrap();
    for k in 0..b_n {
        writeln!(
            w,
            "        we{k} = 4'd0;\n        wd{k} = 32'd0;\n        wr{k} = 4'd0;\n        t_we${k} = 4'd0;\n        t_wd${k} = 32'd0;"
        )
        .unwrap();
    }
    writeln!(w, "        t_row = {rb}'d0;\n    end\nend").unwrap();
    // M -> W registers.
    let abank: Vec<String> = (0..b_n).rev().map(|k| format!("|hit{k}")).collect();
    writeln!(
        w,
        "\
always @(posedge clock) begin
    w_load <= kind[0] & ~reset;
    w_atom <= kind[2] & (|srv) & ~reset;
    w_rs <= rs_sel & ~reset;
    w_srv <= srv & {{{l_n}{{~reset}}}};
    w_row <= row;
    w_abank <= {{{}}} & {{{b_n}{{~reset}}}};
    w_lw <= (kind[2] & ~reset) ? 5'b10000 : lw;
    w_aop <= aop;
    w_opnd <= aopnd;",
        abank.join(", ")
    )
    .unwrap();
    let bh = b_n - 1;
    for l in 0..l_n {
        writeln!(
            w,
            "    w_bank{l} <= bank${l}[{bh}:0];\n    w_rsw{l} <= rs_word${l};\n    w_off{l} <= {{off${l} == 2'd3, off${l} == 2'd2, off${l} == 2'd1, off${l} == 2'd0}};"
        )
        .unwrap();
    }
    writeln!(w, "end").unwrap();
    // W: per lane, bank word, extraction, extension; computed only when a
    // load, an atomic or a return slot is at W (`ld` is 0 otherwise, as
    // each lane's width bits already make it), so Verilator skips it in
    // the other cycles.
    writeln!(w, "wire w_any = w_load | w_atom | w_rs;").unwrap();
    for l in 0..l_n {
        writeln!(
            w,
            "\
reg [31:0] raw{l};
reg [7:0] by{l};
reg [15:0] hw{l};
wire en{l} = w_srv[{l}] & w_any;
wire [4:0] lw{l} = w_lw & {{5{{en{l}}}}};
always @(*) ld_en${l} = en{l};"
        )
        .unwrap();
    }
    writeln!(w, "always @(*) begin\n    if (w_any) begin").unwrap();
    for l in 0..l_n {
        let raw: Vec<String> = (0..b_n)
            .map(|k| format!("({{32{{w_bank{l}[{k}]}}}} & rd{k})"))
            .collect();
        writeln!(
            w,
            "\
        raw{l} = ({{32{{~w_rs}}}} & ({raw})) | ({{32{{w_rs}}}} & w_rsw{l});
        by{l} = ({{8{{w_off{l}[0]}}}} & raw{l}[7:0]) | ({{8{{w_off{l}[1]}}}} & raw{l}[15:8])
            | ({{8{{w_off{l}[2]}}}} & raw{l}[23:16]) | ({{8{{w_off{l}[3]}}}} & raw{l}[31:24]);
        hw{l} = ({{16{{w_off{l}[0] | w_off{l}[1]}}}} & raw{l}[15:0])
            | ({{16{{w_off{l}[2] | w_off{l}[3]}}}} & raw{l}[31:16]);
        ld${l} = ({{32{{lw{l}[0]}}}} & {{24'd0, by{l}}}) | ({{32{{lw{l}[1]}}}} & {{{{24{{by{l}[7]}}}}, by{l}}})
            | ({{32{{lw{l}[2]}}}} & {{16'd0, hw{l}}}) | ({{32{{lw{l}[3]}}}} & {{{{16{{hw{l}[15]}}}}, hw{l}}})
            | ({{32{{lw{l}[4]}}}} & raw{l});",
            raw = or_all(&raw, "32'd0")
        )
        .unwrap();
    }
    writeln!(w, "    end else begin").unwrap();
    for l in 0..l_n {
        writeln!(
            w,
            "        raw{l} = 32'd0;\n        by{l} = 8'd0;\n        hw{l} = 16'd0;\n        ld${l} = 32'd0;"
        )
        .unwrap();
    }
    writeln!(w, "    end\nend").unwrap();
    v
}

/// Verilog of a connected [`Shmem`] of `lanes` lanes, `banks` banks and
/// `2^row_bits` rows (top module `top`), for the bank counts 1, 2, 4, 8,
/// 16, 32 and row widths 2..=10.
pub fn shmem_verilog(lanes: usize, banks: usize, row_bits: usize) -> String {
    fn conn<const RB: usize>(lanes: usize, banks: usize) -> String {
        let mut b = Shmem::<RB>::new(lanes, banks);
        b.connect_all();
        super::verilog(&b)
    }
    assert!(
        banks.is_power_of_two() && banks <= 32,
        "{banks} banks: a power of two up to 32"
    );
    match row_bits {
        2 => conn::<2>(lanes, banks),
        3 => conn::<3>(lanes, banks),
        4 => conn::<4>(lanes, banks),
        5 => conn::<5>(lanes, banks),
        6 => conn::<6>(lanes, banks),
        7 => conn::<7>(lanes, banks),
        8 => conn::<8>(lanes, banks),
        9 => conn::<9>(lanes, banks),
        10 => conn::<10>(lanes, banks),
        12 => conn::<12>(lanes, banks),
        other => panic!("{other} row bits: 2..=10 or 12"),
    }
}
