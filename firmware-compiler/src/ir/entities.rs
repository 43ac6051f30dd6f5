//! Entity references: small copyable indices into the arenas of a
//! [`Function`](super::Function) or [`Module`](super::Module).
//!
//! Their `Display` is the textual IR spelling (`v3`, `block2`, `ss0`, `@name`
//! is printed by the module since functions and shared variables carry names).

use std::fmt;

macro_rules! entity {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
        pub struct $name(pub u32);

        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }

            pub fn new(index: usize) -> Self {
                $name(u32::try_from(index).expect("entity index fits 32 bits"))
            }

            /// The textual prefix (`v`, `block`, ...).
            pub const PREFIX: &'static str = $prefix;
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}{}", $prefix, self.0)
            }
        }
    };
}

entity!(
    /// An SSA value: an instruction result or a block parameter.
    Value,
    "v"
);
entity!(
    /// A basic block.
    Block,
    "block"
);
entity!(
    /// An instruction.
    Inst,
    "inst"
);
entity!(
    /// A per-thread stack slot of a function (fixed-size local arrays,
    /// and later spill slots).
    StackSlot,
    "ss"
);
entity!(
    /// A function of the module (kernel or device function).
    FuncId,
    "fn"
);
entity!(
    /// A `__shared__` variable of the module.
    SharedId,
    "sh"
);
