//! Small helper blocks.
//!
//! rust-hdl 0.46's `#[hdl_gen]` dialect has no concatenation and renders
//! `bit_cast` to a wider type as `((x) & N'hff..)`, which Verilator flags as a
//! width mismatch; its `set_bit` does not compile. Zero extension and packing
//! of per-lane words into a wide bus are therefore two tiny blocks with their
//! own Verilog (one line each), so that every other block stays in
//! `#[hdl_gen]` and the whole design lints clean.

use rust_hdl_core::prelude::*;

/// Zero extension of an `M`-bit value to `N` bits (`N > M`).
#[derive(LogicBlock, Default)]
pub struct Ext<const M: usize, const N: usize> {
    pub i: Signal<In, Bits<M>>,
    pub o: Signal<Out, Bits<N>>,
}

impl<const M: usize, const N: usize> Logic for Ext<M, N> {
    fn update(&mut self) {
        self.o.next = bit_cast::<N, M>(self.i.val());
    }

    fn connect(&mut self) {
        self.o.connect();
    }

    fn hdl(&self) -> Verilog {
        assert!(N > M);
        Verilog::Custom(format!("always @(*) o = {{{{{}{{1'b0}}}}, i}};\n", N - M))
    }
}

/// Packs `ins.len()` words of `W` bits into an `N`-bit bus: word `k` at bits
/// `W*k + W-1 .. W*k`, zeros above.
#[derive(LogicBlock)]
pub struct Pack<const W: usize, const N: usize> {
    pub ins: Vec<Signal<In, Bits<W>>>,
    pub out: Signal<Out, Bits<N>>,
}

impl<const W: usize, const N: usize> Pack<W, N> {
    pub fn new(count: usize) -> Self {
        assert!(count >= 1 && count * W <= N);
        Pack {
            ins: (0..count).map(|_| Default::default()).collect(),
            out: Default::default(),
        }
    }
}

impl<const W: usize, const N: usize> Logic for Pack<W, N> {
    fn update(&mut self) {
        let mut v = Bits::<N>::default();
        for (k, x) in self.ins.iter().enumerate() {
            v.set_bits::<W>(W * k, x.val());
        }
        self.out.next = v;
    }

    fn connect(&mut self) {
        self.out.connect();
    }

    fn hdl(&self) -> Verilog {
        let n = self.ins.len();
        let mut parts: Vec<String> = Vec::new();
        if n * W < N {
            parts.push(format!("{}'d0", N - n * W));
        }
        for k in (0..n).rev() {
            parts.push(format!("ins${k}"));
        }
        Verilog::Custom(format!("always @(*) out = {{{}}};\n", parts.join(", ")))
    }
}

/// Number of set bits of a 32-bit mask (SWAR reduction, 32-bit arithmetic).
#[derive(LogicBlock, Default)]
pub struct Popcount {
    pub i: Signal<In, Bits<32>>,
    pub o: Signal<Out, Bits<32>>,
    s1: Signal<Local, Bits<32>>,
    s2: Signal<Local, Bits<32>>,
    s3: Signal<Local, Bits<32>>,
    s4: Signal<Local, Bits<32>>,
    s5: Signal<Local, Bits<32>>,
}

impl Logic for Popcount {
    #[hdl_gen]
    fn update(&mut self) {
        self.s1.next = self.i.val() - ((self.i.val() >> 1) & 0x5555_5555);
        self.s2.next = (self.s1.val() & 0x3333_3333) + ((self.s1.val() >> 2) & 0x3333_3333);
        self.s3.next = (self.s2.val() + (self.s2.val() >> 4)) & 0x0f0f_0f0f;
        self.s4.next = self.s3.val() + (self.s3.val() >> 8);
        self.s5.next = self.s4.val() + (self.s4.val() >> 16);
        self.o.next = self.s5.val() & 0x3f;
    }
}

/// Packs `ins.len()` bits into an `N`-bit bus: bit `k` is `ins[k]`, zeros above.
#[derive(LogicBlock)]
pub struct PackBits<const N: usize> {
    pub ins: Vec<Signal<In, bool>>,
    pub out: Signal<Out, Bits<N>>,
}

impl<const N: usize> PackBits<N> {
    pub fn new(count: usize) -> Self {
        assert!(count >= 1 && count <= N);
        PackBits {
            ins: (0..count).map(|_| Default::default()).collect(),
            out: Default::default(),
        }
    }
}

impl<const N: usize> Logic for PackBits<N> {
    fn update(&mut self) {
        let mut v = Bits::<N>::default();
        for (k, x) in self.ins.iter().enumerate() {
            v = v.replace_bit(k, x.val());
        }
        self.out.next = v;
    }

    fn connect(&mut self) {
        self.out.connect();
    }

    fn hdl(&self) -> Verilog {
        let n = self.ins.len();
        let mut parts: Vec<String> = Vec::new();
        if n < N {
            parts.push(format!("{}'d0", N - n));
        }
        for k in (0..n).rev() {
            parts.push(format!("ins${k}"));
        }
        Verilog::Custom(format!("always @(*) out = {{{}}};\n", parts.join(", ")))
    }
}

/// A register with a synchronous reset to 0: `q <= reset ? 0 : d` at every
/// rising edge. The reset lives in the register's own clocked block, not in
/// the parent's combinational logic, so that the parent's next-state logic
/// does not depend on the `reset` port (Verilator evaluates every
/// combinational block that reads a top-level input on every `eval`).
#[derive(LogicBlock)]
pub struct Reg<T: Synth> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub d: Signal<In, T>,
    pub q: Signal<Out, T>,
}

impl<T: Synth> Default for Reg<T> {
    fn default() -> Self {
        Reg {
            clock: Default::default(),
            reset: Default::default(),
            d: Default::default(),
            q: Default::default(),
        }
    }
}

impl<T: Synth> Logic for Reg<T> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self.q.next = if self.reset.val() {
                T::default()
            } else {
                self.d.val()
            };
        }
    }

    fn connect(&mut self) {
        self.q.connect();
    }

    fn hdl(&self) -> Verilog {
        let z = format!("{:x}", T::default().verilog());
        Verilog::Custom(format!(
            "initial begin\n   q = {z};\nend\n\nalways @(posedge clock) begin\n   if (reset) q <= {z};\n   else q <= d;\nend\n"
        ))
    }
}

/// A register with synchronous reset, a load and an enable, in this
/// priority: `reset` (to 0), `ld` (to `lv`), `en` (to `d`), else hold.
/// The core drives `en` with "not stalled" (a memory wait) and `ld` with the
/// host's `start`: both come from top-level inputs, and keeping them out of
/// the next-state logic keeps that logic out of Verilator's input-driven
/// evaluation (see `core.rs`).
#[derive(LogicBlock)]
pub struct RegE<T: Synth> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub en: Signal<In, bool>,
    pub ld: Signal<In, bool>,
    pub lv: Signal<In, T>,
    pub d: Signal<In, T>,
    pub q: Signal<Out, T>,
}

impl<T: Synth> Default for RegE<T> {
    fn default() -> Self {
        RegE {
            clock: Default::default(),
            reset: Default::default(),
            en: Default::default(),
            ld: Default::default(),
            lv: Default::default(),
            d: Default::default(),
            q: Default::default(),
        }
    }
}

impl<T: Synth> Logic for RegE<T> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.reset.val() {
                self.q.next = T::default();
            } else if self.ld.val() {
                self.q.next = self.lv.val();
            } else if self.en.val() {
                self.q.next = self.d.val();
            }
        }
    }

    fn connect(&mut self) {
        self.q.connect();
    }

    fn hdl(&self) -> Verilog {
        let z = format!("{:x}", T::default().verilog());
        Verilog::Custom(format!(
            "initial begin\n   q = {z};\nend\n\nalways @(posedge clock) begin\n   if (reset) q <= {z};\n   else if (ld) q <= lv;\n   else if (en) q <= d;\nend\n"
        ))
    }
}

/// Groups bytes into words: `outs[k]` is `ins[4k+3..4k]`, byte `j` at bits
/// `8j + 7 .. 8j`.
#[derive(LogicBlock)]
pub struct Words {
    pub ins: Vec<Signal<In, Bits<8>>>,
    pub outs: Vec<Signal<Out, Bits<32>>>,
}

impl Words {
    pub fn new(words: usize) -> Self {
        assert!(words >= 1);
        Words {
            ins: (0..4 * words).map(|_| Default::default()).collect(),
            outs: (0..words).map(|_| Default::default()).collect(),
        }
    }
}

impl Logic for Words {
    fn update(&mut self) {
        for (k, o) in self.outs.iter_mut().enumerate() {
            let mut v = Bits::<32>::default();
            for j in 0..4 {
                v.set_bits::<8>(8 * j, self.ins[4 * k + j].val());
            }
            o.next = v;
        }
    }

    fn connect(&mut self) {
        for o in &mut self.outs {
            o.connect();
        }
    }

    fn hdl(&self) -> Verilog {
        let mut code = String::from("always @(*) begin\n");
        for k in 0..self.outs.len() {
            code.push_str(&format!(
                "    outs${k} = {{ins${}, ins${}, ins${}, ins${}}};\n",
                4 * k + 3,
                4 * k + 2,
                4 * k + 1,
                4 * k
            ));
        }
        code.push_str("end\n");
        Verilog::Custom(code)
    }
}
