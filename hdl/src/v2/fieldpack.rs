//! A 32-bit host word assembled from bit fields (`concord_uarch::regmap`'s
//! `Field` tables: `STATUS`, `LAUNCH`, `CTRL`, `WSTATE*`, ...).
//!
//! `#[hdl_gen]` has no concatenation, and shifting each field into place
//! with `<<` needs a 32-bit copy of every narrow value; a field table is
//! exactly a concatenation, so the word is a one-line custom Verilog leaf
//! built from the table, and the table is never restated in the core.

use concord_uarch::regmap::Field;
use rust_hdl_core::prelude::*;

/// `o = Σ f[i][width_i − 1 : 0] << lsb_i` over the fields of one register;
/// input `f[i]` carries field `i` in its low bits (higher bits ignored).
#[derive(LogicBlock)]
pub struct FieldPack {
    pub f: Vec<Signal<In, Bits<32>>>,
    pub o: Signal<Out, Bits<32>>,
    _fields: Vec<(u32, u32)>,
}

impl FieldPack {
    /// The word of `fields` (each field's `lsb` and `width`).
    pub fn new(fields: &[Field]) -> FieldPack {
        let mut covered = 0u64;
        for fl in fields {
            assert!(fl.width >= 1 && fl.lsb + fl.width <= 32, "{}", fl.name);
            let m = ((1u64 << fl.width) - 1) << fl.lsb;
            assert_eq!(covered & m, 0, "field {} overlaps", fl.name);
            covered |= m;
        }
        FieldPack {
            f: (0..fields.len()).map(|_| Default::default()).collect(),
            o: Default::default(),
            _fields: fields.iter().map(|fl| (fl.lsb, fl.width)).collect(),
        }
    }
}

impl Logic for FieldPack {
    fn update(&mut self) {
        let mut v = 0u64;
        for (x, (lsb, w)) in self.f.iter().zip(&self._fields) {
            v |= (x.val().to_u64() & ((1u64 << w) - 1)) << lsb;
        }
        self.o.next = v.into();
    }

    fn connect(&mut self) {
        self.o.connect();
    }

    fn hdl(&self) -> Verilog {
        let mut code = String::from("always @(*) begin\n    o = 32'd0;\n");
        let mut unused = Vec::new();
        for (i, (lsb, w)) in self._fields.iter().enumerate() {
            code.push_str(&format!(
                "    o[{}:{lsb}] = f${i}[{}:0];\n",
                lsb + w - 1,
                w - 1
            ));
            if *w < 32 {
                unused.push(format!("f${i}[31:{w}]"));
            }
        }
        code.push_str("end\n");
        if !unused.is_empty() {
            // The inputs are 32 bits wide; the bits above a field's width
            // are not part of the word.
            code.push_str(&format!(
                "wire unused_high = &{{1'b0, {}}};\n",
                unused.join(", ")
            ));
        }
        Verilog::Custom(code)
    }
}
