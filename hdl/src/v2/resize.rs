//! Width changes between blocks whose widths are const generics (the
//! launch unit's `Bits<W>` warp sets against the warp state's 16-bit
//! ones, SETUP's 32-bit row counts against `Bits<RB>`, ...).
//!
//! `#[hdl_gen]` renders `bit_cast` to a wider type with a width mismatch
//! and `util::Ext` needs `N > M`; a const-generic block cannot choose
//! between them, so this one-line leaf (custom Verilog) zero-extends,
//! passes through or truncates as the two widths require.

use rust_hdl_core::prelude::*;

/// `o = i` zero-extended or truncated to `N` bits.
#[derive(LogicBlock, Default)]
pub struct Resize<const M: usize, const N: usize> {
    pub i: Signal<In, Bits<M>>,
    pub o: Signal<Out, Bits<N>>,
}

impl<const M: usize, const N: usize> Logic for Resize<M, N> {
    fn update(&mut self) {
        let v = self.i.val().to_u64();
        let v = if N >= 64 { v } else { v & ((1u64 << N) - 1) };
        self.o.next = v.into();
    }

    fn connect(&mut self) {
        self.o.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(if N > M {
            format!("always @(*) o = {{{}'d0, i}};\n", N - M)
        } else if N == M {
            "always @(*) o = i;\n".to_string()
        } else {
            // The bits above `N` are not needed where this block is used.
            format!(
                "always @(*) o = i[{}:0];\nwire unused_resize = &{{1'b0, i[{}:{N}]}};\n",
                N - 1,
                M - 1
            )
        })
    }
}
