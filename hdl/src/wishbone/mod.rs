//! Core v2's standard interfaces (docs/microarchitecture.md §14): the
//! Wishbone B4 pipelined host slave.
//!
//! | file | what |
//! |---|---|
//! | `slave.rs` | [`slave::HostSlave`]: the host slave of §14.3 (registered `ACK` one cycle after each request, never stalls, one-hot AND-OR read multiplexer, one write enable per writable register or window), generated from [`slave::SlaveMap`], which is built from the table of `concord_uarch::regmap` |

pub mod slave;

/// Renames rust-hdl's module names for the v2 hygiene rule (§14.2: module
/// names match `[A-Za-z][A-Za-z0-9_]*`): `top` becomes `top_name` and
/// `top$a$b` becomes `top_name__a__b`, on `module` and `endmodule` lines
/// and on instance lines (rust-hdl writes module names only at the start of
/// those lines).
pub fn rename_modules(raw: &str, top_name: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for line in raw.lines() {
        out.push_str(&crate::rename_module_on_line(line, |name| {
            (name == "top" || name.starts_with("top$"))
                .then(|| name.replacen("top", top_name, 1).replace('$', "__"))
        }));
        out.push('\n');
    }
    out
}
