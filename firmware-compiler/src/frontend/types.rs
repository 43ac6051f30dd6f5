//! The C types of the subset, as the checker ([`super::sema`]) sees them.
//!
//! Integers are at most 32 bits; `char` is signed. A pointer's address
//! space is part of its type: kernel parameter pointers point to global
//! memory, `__shared__` variables give shared pointers, and local (stack)
//! addresses exist only inside the checker for direct indexing of local
//! arrays; they never become values of the program.

use std::fmt;

use concord_isa::instr::{LoadWidth, StoreWidth};

use crate::ir::{MemSpace, UnaryOp};

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum IntTy {
    Bool,
    Char,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
}

impl IntTy {
    pub fn size(self) -> u32 {
        match self {
            IntTy::Bool | IntTy::Char | IntTy::UChar => 1,
            IntTy::Short | IntTy::UShort => 2,
            IntTy::Int | IntTy::UInt => 4,
        }
    }

    pub fn is_signed(self) -> bool {
        matches!(self, IntTy::Char | IntTy::Short | IntTy::Int)
    }

    /// The integer promotion: everything narrower than `int` becomes `int`.
    pub fn promote(self) -> IntTy {
        match self {
            IntTy::UInt => IntTy::UInt,
            _ => IntTy::Int,
        }
    }

    /// The range of values, for deciding whether a conversion changes bits.
    fn range(self) -> (i64, i64) {
        match self {
            IntTy::Bool => (0, 1),
            IntTy::Char => (-128, 127),
            IntTy::UChar => (0, 255),
            IntTy::Short => (-32768, 32767),
            IntTy::UShort => (0, 65535),
            IntTy::Int => (i32::MIN as i64, i32::MAX as i64),
            IntTy::UInt => (0, u32::MAX as i64),
        }
    }

    /// Whether every value of `self` is a value of `to`.
    pub fn fits_in(self, to: IntTy) -> bool {
        let (a, b) = self.range();
        let (c, d) = to.range();
        c <= a && b <= d
    }

    /// The IR operation that brings an `i32` to this narrow type (`None`
    /// for 32-bit types; `bool` is handled by a comparison instead).
    pub fn narrowing(self) -> Option<UnaryOp> {
        match self {
            IntTy::Char => Some(UnaryOp::Sext8),
            IntTy::UChar => Some(UnaryOp::Zext8),
            IntTy::Short => Some(UnaryOp::Sext16),
            IntTy::UShort => Some(UnaryOp::Zext16),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            IntTy::Bool => "bool",
            IntTy::Char => "char",
            IntTy::UChar => "unsigned char",
            IntTy::Short => "short",
            IntTy::UShort => "unsigned short",
            IntTy::Int => "int",
            IntTy::UInt => "unsigned int",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Space {
    Global,
    Shared,
    /// The thread's stack (local arrays); never a pointer value.
    Local,
}

impl Space {
    pub fn mem_space(self) -> MemSpace {
        match self {
            Space::Global => MemSpace::Global,
            Space::Shared => MemSpace::Shared,
            Space::Local => MemSpace::Local,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Local => "local",
        }
    }
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Ty {
    Void,
    Int(IntTy),
    Ptr(Box<Ty>, Space),
    Array(Box<Ty>, u32),
}

impl Ty {
    pub const INT: Ty = Ty::Int(IntTy::Int);
    pub const UINT: Ty = Ty::Int(IntTy::UInt);
    pub const BOOL: Ty = Ty::Int(IntTy::Bool);

    /// Size in bytes (`void` counts 1, like GNU C, so it never divides by 0).
    pub fn size(&self) -> u64 {
        match self {
            Ty::Void => 1,
            Ty::Int(i) => i.size() as u64,
            Ty::Ptr(..) => 4,
            Ty::Array(e, n) => e.size() * *n as u64,
        }
    }

    pub fn align(&self) -> u32 {
        match self {
            Ty::Void => 1,
            Ty::Int(i) => i.size(),
            Ty::Ptr(..) => 4,
            Ty::Array(e, _) => e.align(),
        }
    }

    pub fn int(&self) -> Option<IntTy> {
        match self {
            Ty::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub fn is_bool(&self) -> bool {
        *self == Ty::BOOL
    }

    pub fn is_ptr(&self) -> bool {
        matches!(self, Ty::Ptr(..))
    }

    /// Scalars live in one register: integers, `bool`, pointers.
    pub fn is_scalar(&self) -> bool {
        matches!(self, Ty::Int(_) | Ty::Ptr(..))
    }

    /// The width a load of this (scalar) type uses.
    pub fn load_width(&self) -> LoadWidth {
        match self {
            Ty::Int(IntTy::Bool | IntTy::UChar) => LoadWidth::U8,
            Ty::Int(IntTy::Char) => LoadWidth::S8,
            Ty::Int(IntTy::Short) => LoadWidth::S16,
            Ty::Int(IntTy::UShort) => LoadWidth::U16,
            _ => LoadWidth::B32,
        }
    }

    pub fn store_width(&self) -> StoreWidth {
        match self.size() {
            1 => StoreWidth::B8,
            2 => StoreWidth::B16,
            _ => StoreWidth::B32,
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Void => write!(f, "void"),
            Ty::Int(i) => write!(f, "{}", i.name()),
            Ty::Ptr(e, s) => match &**e {
                Ty::Ptr(..) => write!(f, "{e}* ({} pointer)", s.name()),
                _ => write!(f, "{} {e} *", s.name()),
            },
            Ty::Array(e, n) => write!(f, "{e}[{n}]"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_widths() {
        let tile = Ty::Array(Box::new(Ty::Array(Box::new(Ty::Int(IntTy::Short)), 17)), 16);
        assert_eq!(tile.size(), 16 * 17 * 2);
        assert_eq!(Ty::Int(IntTy::Char).load_width(), LoadWidth::S8);
        assert_eq!(Ty::BOOL.store_width(), StoreWidth::B8);
    }

    #[test]
    fn fits() {
        assert!(IntTy::UChar.fits_in(IntTy::Short));
        assert!(!IntTy::Char.fits_in(IntTy::UShort));
        assert!(!IntTy::Int.fits_in(IntTy::UInt));
    }

    #[test]
    fn display_names_the_space() {
        let p = Ty::Ptr(Box::new(Ty::INT), Space::Shared);
        assert_eq!(p.to_string(), "shared int *");
    }
}
