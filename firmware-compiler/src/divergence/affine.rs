//! The abstract values of the affine divergence analysis (Sampaio, ch. 3.5):
//! each value is described as a polynomial of degree two in the thread
//! index `T` (`threadIdx.x`, IR `special tid.x`),
//!
//! ```text
//! a2·T² + a1·T + a0
//! ```
//!
//! whose coefficients are elements of the constant-propagation lattice
//! `C = {⊤, integer, ⊥}` ([`Coef`]).
//!
//! Meaning. A polynomial whose coefficients are all known integers is exact:
//! every thread `t` holds `a2·t² + a1·t + a0` modulo 2³² (the IR's `i32`
//! arithmetic is modular, so addition, subtraction, negation, multiplication
//! and left shifts by a constant are exact on these polynomials). `a0 = ⊥`
//! with known `a2`, `a1` means the constant part is not known at compile
//! time but is the same for every thread (a kernel parameter, a uniform
//! load, ...). A `⊥` in `a1` or `a2` means nothing is known: the value is
//! *divergent*. Thread-dependent sources other than `T` (the other thread
//! indices, the lane id, the clock, atomics, per-thread memory, call
//! results, device-function arguments) are [`ThreadPoly::DIVERGENT`]
//! (`⊥` everywhere, Fig. 2.2's `⊥T² + ⊥T + ⊥`).
//!
//! `⊤` ("not computed yet") exists only during the fixed-point iteration;
//! the analysis never reports it for a reachable value.
//!
//! The arithmetic follows Table 3.6: `0 × x = 0` for every `x` (a known
//! zero annihilates even `⊥`), `c1 × c2` and `c1 + c2` are computed,
//! anything else with `⊥` is `⊥`. Products whose `T³` or `T⁴` coefficient
//! is not known to be zero do not fit the degree and are divergent.
//!
//! Users: the analysis in [`super`] (transfer functions), and through it
//! the spiller (rematerialisation of affine values from `T` and a uniform
//! constant part, Sampaio ch. 4).

use std::fmt;
use std::ops::{Add, Mul, Neg, Sub};

/// An element of the constant-propagation lattice `C`: `⊤ > integer > ⊥`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Coef {
    /// Not computed yet (the optimistic start of the iteration).
    Top,
    /// This integer (modulo 2³²).
    Known(i32),
    /// Not known at compile time.
    Bottom,
}

impl Coef {
    pub const ZERO: Coef = Coef::Known(0);

    /// The integer, when known.
    pub fn known(self) -> Option<i32> {
        match self {
            Coef::Known(c) => Some(c),
            _ => None,
        }
    }

    pub fn is_zero(self) -> bool {
        self == Coef::ZERO
    }

    /// Table 3.6's `∧`: equal integers stay, different ones give `⊥`.
    pub fn meet(self, other: Coef) -> Coef {
        match (self, other) {
            (Coef::Top, x) | (x, Coef::Top) => x,
            (Coef::Known(a), Coef::Known(b)) if a == b => Coef::Known(a),
            _ => Coef::Bottom,
        }
    }
}

/// Table 3.6's `+` (modulo 2³²).
impl Add for Coef {
    type Output = Coef;

    fn add(self, other: Coef) -> Coef {
        match (self, other) {
            (Coef::Bottom, _) | (_, Coef::Bottom) => Coef::Bottom,
            (Coef::Known(a), Coef::Known(b)) => Coef::Known(a.wrapping_add(b)),
            _ => Coef::Top,
        }
    }
}

/// Table 3.6's `×` (modulo 2³²): a known zero wins over everything.
impl Mul for Coef {
    type Output = Coef;

    fn mul(self, other: Coef) -> Coef {
        match (self, other) {
            (Coef::Known(0), _) | (_, Coef::Known(0)) => Coef::ZERO,
            // Stays optimistic: the `⊤` may still become 0.
            (Coef::Top, _) | (_, Coef::Top) => Coef::Top,
            (Coef::Known(a), Coef::Known(b)) => Coef::Known(a.wrapping_mul(b)),
            _ => Coef::Bottom,
        }
    }
}

impl Neg for Coef {
    type Output = Coef;

    fn neg(self) -> Coef {
        match self {
            Coef::Known(c) => Coef::Known(c.wrapping_neg()),
            other => other,
        }
    }
}

impl fmt::Display for Coef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Coef::Top => write!(f, "⊤"),
            Coef::Known(c) => write!(f, "{c}"),
            Coef::Bottom => write!(f, "⊥"),
        }
    }
}

/// The classes of Sampaio's §3.6, from the most to the least precise.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ValueClass {
    /// `0·T + c`: the same known integer in every thread.
    Constant,
    /// `0·T + ⊥`: the same value in every thread, unknown at compile time.
    Uniform,
    /// `c1·T + c0`, `c1 ≠ 0`: rematerialisable from `T` and constants.
    ConstantAffine,
    /// `c1·T + ⊥` (`c1 ≠ 0`), or `c2·T² + c1·T + a0` (`c2 ≠ 0`): known `T`
    /// coefficients plus a constant part that is the same in every thread.
    Affine,
    /// Nothing known: a `⊥` coefficient of `T` or `T²`.
    Divergent,
}

impl ValueClass {
    pub const ALL: [ValueClass; 5] = [
        ValueClass::Constant,
        ValueClass::Uniform,
        ValueClass::ConstantAffine,
        ValueClass::Affine,
        ValueClass::Divergent,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ValueClass::Constant => "constant",
            ValueClass::Uniform => "uniform",
            ValueClass::ConstantAffine => "constant-affine",
            ValueClass::Affine => "affine",
            ValueClass::Divergent => "divergent",
        }
    }

    /// Whether every thread of a warp holds the same value.
    pub fn is_uniform(self) -> bool {
        matches!(self, ValueClass::Constant | ValueClass::Uniform)
    }
}

impl fmt::Display for ValueClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `t2·T² + t1·T + t0`, the abstract value of one SSA value.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct ThreadPoly {
    /// The coefficient of `T²`.
    pub t2: Coef,
    /// The coefficient of `T`.
    pub t1: Coef,
    /// The constant part, the same for every thread unless `t1`/`t2` is `⊥`.
    pub t0: Coef,
}

impl ThreadPoly {
    /// Not computed yet.
    pub const TOP: ThreadPoly = ThreadPoly {
        t2: Coef::Top,
        t1: Coef::Top,
        t0: Coef::Top,
    };
    /// Nothing known.
    pub const DIVERGENT: ThreadPoly = ThreadPoly {
        t2: Coef::Bottom,
        t1: Coef::Bottom,
        t0: Coef::Bottom,
    };
    /// The same unknown value in every thread.
    pub const UNIFORM: ThreadPoly = ThreadPoly {
        t2: Coef::ZERO,
        t1: Coef::ZERO,
        t0: Coef::Bottom,
    };
    /// `T` itself.
    pub const TID: ThreadPoly = ThreadPoly {
        t2: Coef::ZERO,
        t1: Coef::Known(1),
        t0: Coef::ZERO,
    };

    pub fn constant(c: i32) -> ThreadPoly {
        ThreadPoly {
            t2: Coef::ZERO,
            t1: Coef::ZERO,
            t0: Coef::Known(c),
        }
    }

    pub fn is_top(self) -> bool {
        self == ThreadPoly::TOP
    }

    /// Whether every thread holds the same value: the `T` and `T²`
    /// coefficients are known zeros.
    pub fn is_uniform(self) -> bool {
        self.t2.is_zero() && self.t1.is_zero()
    }

    /// The integer every thread holds, if known.
    pub fn as_constant(self) -> Option<i32> {
        if self.is_uniform() {
            self.t0.known()
        } else {
            None
        }
    }

    /// The constant part `a0`: meaningful (the same for every thread)
    /// unless the class is [`ValueClass::Divergent`].
    pub fn uniform_part(self) -> Coef {
        self.t0
    }

    /// The coefficient `a1` of `T`.
    pub fn tid_coefficient(self) -> Coef {
        self.t1
    }

    /// The coefficient `a2` of `T²`.
    pub fn tid_squared_coefficient(self) -> Coef {
        self.t2
    }

    pub fn class(self) -> ValueClass {
        match (self.t2, self.t1, self.t0) {
            (Coef::Known(0), Coef::Known(0), Coef::Known(_)) => ValueClass::Constant,
            (Coef::Known(0), Coef::Known(0), _) => ValueClass::Uniform,
            (Coef::Known(0), Coef::Known(_), Coef::Known(_)) => ValueClass::ConstantAffine,
            (Coef::Known(_), Coef::Known(_), _) => ValueClass::Affine,
            // `⊤` is never reported for a reachable value; counting it as
            // divergent keeps every client conservative.
            _ => ValueClass::Divergent,
        }
    }

    /// The meet of the lattice `C × C × C`, coefficient by coefficient.
    pub fn meet(self, other: ThreadPoly) -> ThreadPoly {
        ThreadPoly {
            t2: self.t2.meet(other.t2),
            t1: self.t1.meet(other.t1),
            t0: self.t0.meet(other.t0),
        }
    }

    /// `self << amount`: multiplication by `2^(amount mod 32)` (the IR's
    /// shifts take the amount modulo 32).
    pub fn shifted_left(self, amount: i32) -> ThreadPoly {
        let factor = 1i32.wrapping_shl((amount as u32) % 32);
        self * ThreadPoly::constant(factor)
    }

    /// Theorem 3's reading of a degree-two result: with a known `T²`
    /// coefficient, the value is `a2·T² + a1·T + a0` where a `⊥` among `a1`
    /// and `a0` stands for a value unknown at compile time but the same in
    /// every thread (`T·n` with a uniform `n` is `0·T² + ⊥·T + 0`).
    ///
    /// This holds because every source of real divergence is `⊥` in `T²`
    /// (thread-dependent sources, divergent joins, temporal divergence,
    /// non-polynomial operations on non-uniform operands) and the rules
    /// keep it there (`⊥ × c = ⊥` unless `c = 0`, which makes the value a
    /// known zero). Such a value still has the class
    /// [`ValueClass::Divergent`]: its `T` coefficient is not known, so
    /// neither a comparison nor a rematerialisation can use it.
    pub fn has_uniform_coefficients(self) -> bool {
        !self.is_top() && self.t2 != Coef::Bottom
    }
}

impl Add for ThreadPoly {
    type Output = ThreadPoly;

    fn add(self, other: ThreadPoly) -> ThreadPoly {
        ThreadPoly {
            t2: self.t2 + other.t2,
            t1: self.t1 + other.t1,
            t0: self.t0 + other.t0,
        }
    }
}

impl Neg for ThreadPoly {
    type Output = ThreadPoly;

    fn neg(self) -> ThreadPoly {
        ThreadPoly {
            t2: -self.t2,
            t1: -self.t1,
            t0: -self.t0,
        }
    }
}

impl Sub for ThreadPoly {
    type Output = ThreadPoly;

    fn sub(self, other: ThreadPoly) -> ThreadPoly {
        self + -other
    }
}

/// The product, truncated to degree two: a `T³` or `T⁴` term that is not
/// known to be zero makes the product divergent.
impl Mul for ThreadPoly {
    type Output = ThreadPoly;

    fn mul(self, other: ThreadPoly) -> ThreadPoly {
        let (a, b) = (self, other);
        let t4 = a.t2 * b.t2;
        let t3 = a.t2 * b.t1 + a.t1 * b.t2;
        let t2 = a.t2 * b.t0 + a.t1 * b.t1 + a.t0 * b.t2;
        let t1 = a.t1 * b.t0 + a.t0 * b.t1;
        let t0 = a.t0 * b.t0;
        if t3 == Coef::Top || t4 == Coef::Top {
            return ThreadPoly::TOP;
        }
        if !t3.is_zero() || !t4.is_zero() {
            return ThreadPoly::DIVERGENT;
        }
        ThreadPoly { t2, t1, t0 }
    }
}

impl fmt::Display for ThreadPoly {
    /// `1*T + ⊥`, `-4*T - 12`, `1*T² + 0*T + 0`; the `T²` term is left out
    /// when its coefficient is zero and the `T` coefficient is known (as in
    /// Fig. 2.2, `0*T² + ⊥*T + ⊥` shows that only the `T` coefficient is
    /// lost).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.t2.is_zero() || self.t1.known().is_none() {
            write!(f, "{}*T² + ", self.t2)?;
        }
        write!(f, "{}*T", self.t1)?;
        match self.t0 {
            Coef::Known(c) if c < 0 => write!(f, " - {}", (c as i64).abs()),
            c => write!(f, " + {c}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: Coef = Coef::Bottom;
    const T: Coef = Coef::Top;

    fn k(c: i32) -> Coef {
        Coef::Known(c)
    }

    fn poly(t2: Coef, t1: Coef, t0: Coef) -> ThreadPoly {
        ThreadPoly { t2, t1, t0 }
    }

    #[test]
    fn table_3_6_meet() {
        assert_eq!(T.meet(k(3)), k(3));
        assert_eq!(k(3).meet(T), k(3));
        assert_eq!(k(3).meet(k(3)), k(3));
        assert_eq!(k(3).meet(k(4)), B);
        assert_eq!(B.meet(k(3)), B);
        assert_eq!(T.meet(B), B);
        assert_eq!(T.meet(T), T);
    }

    #[test]
    fn table_3_6_multiplication() {
        assert_eq!(k(0).mul(B), k(0));
        assert_eq!(B.mul(k(0)), k(0));
        assert_eq!(k(3).mul(k(-5)), k(-15));
        assert_eq!(k(3).mul(B), B);
        assert_eq!(B.mul(B), B);
        // Modulo 2^32: 2^16 * 2^16 = 0.
        assert_eq!(k(1 << 16).mul(k(1 << 16)), k(0));
    }

    #[test]
    fn table_3_6_addition() {
        assert_eq!(k(3).add(k(4)), k(7));
        assert_eq!(k(3).add(B), B);
        assert_eq!(B.add(k(3)), B);
        assert_eq!(k(i32::MAX).add(k(1)), k(i32::MIN));
    }

    #[test]
    fn tid_minus_tid_is_uniform() {
        // avgSquare: N = T + c*c and i = T + k*c; N - i = 0*T + ⊥.
        let n = ThreadPoly::TID.add(ThreadPoly::UNIFORM);
        let i = ThreadPoly::TID.add(ThreadPoly::UNIFORM);
        let d = n.sub(i);
        assert_eq!(d, poly(k(0), k(0), B));
        assert_eq!(d.class(), ValueClass::Uniform);
    }

    #[test]
    fn affine_times_uniform_unknown_is_divergent() {
        // sumTriangle: L = (T + 1) * c = ⊥*T + ⊥ (rule MLCA with a ⊥ factor).
        let t_plus_1 = ThreadPoly::TID.add(ThreadPoly::constant(1));
        assert_eq!(t_plus_1, poly(k(0), k(1), k(1)));
        assert_eq!(t_plus_1.class(), ValueClass::ConstantAffine);
        let l = t_plus_1.mul(ThreadPoly::UNIFORM);
        assert_eq!(l, poly(k(0), B, B));
        assert_eq!(l.class(), ValueClass::Divergent);
        assert!(l.has_uniform_coefficients());
        assert_eq!(l.to_string(), "0*T² + ⊥*T + ⊥");
        assert!(!ThreadPoly::DIVERGENT.has_uniform_coefficients());
    }

    #[test]
    fn degree_two_products() {
        // (T + 1)^2 - T^2 = 2T + 1: degree one would have lost it.
        let t_plus_1 = ThreadPoly::TID.add(ThreadPoly::constant(1));
        let sq = t_plus_1.mul(t_plus_1);
        assert_eq!(sq, poly(k(1), k(2), k(1)));
        assert_eq!(sq.class(), ValueClass::Affine);
        let t2 = ThreadPoly::TID.mul(ThreadPoly::TID);
        assert_eq!(t2, poly(k(1), k(0), k(0)));
        let diff = sq.sub(t2);
        assert_eq!(diff, poly(k(0), k(2), k(1)));
        assert_eq!(diff.class(), ValueClass::ConstantAffine);
        // T^3 does not fit.
        assert_eq!(t2.mul(ThreadPoly::TID), ThreadPoly::DIVERGENT);
        // T^2 * 0 = 0, and a divergent value times 0 is 0 (0 × ⊥ = 0).
        assert_eq!(t2.mul(ThreadPoly::constant(0)), ThreadPoly::constant(0));
        assert_eq!(
            ThreadPoly::DIVERGENT.mul(ThreadPoly::constant(0)),
            ThreadPoly::constant(0)
        );
    }

    #[test]
    fn shifts_are_multiplications() {
        assert_eq!(ThreadPoly::TID.shifted_left(2), poly(k(0), k(4), k(0)));
        // The amount is taken modulo 32.
        assert_eq!(ThreadPoly::TID.shifted_left(34), poly(k(0), k(4), k(0)));
        // T << 31 << 1 is 0 in every thread.
        assert_eq!(
            ThreadPoly::TID.shifted_left(31).shifted_left(1),
            ThreadPoly::constant(0)
        );
    }

    #[test]
    fn classes() {
        assert_eq!(ThreadPoly::constant(5).class(), ValueClass::Constant);
        assert_eq!(ThreadPoly::UNIFORM.class(), ValueClass::Uniform);
        assert_eq!(ThreadPoly::TID.class(), ValueClass::ConstantAffine);
        assert_eq!(poly(k(0), k(4), B).class(), ValueClass::Affine);
        assert_eq!(poly(k(1), k(0), k(0)).class(), ValueClass::Affine);
        assert_eq!(poly(k(0), B, k(0)).class(), ValueClass::Divergent);
        assert_eq!(ThreadPoly::DIVERGENT.class(), ValueClass::Divergent);
        assert_eq!(ThreadPoly::TOP.class(), ValueClass::Divergent);
    }

    #[test]
    fn meet_of_affine_values() {
        // GAMA with a uniform gate: T + 1 and T + 2 meet at T + ⊥.
        let a = ThreadPoly::TID.add(ThreadPoly::constant(1));
        let b = ThreadPoly::TID.add(ThreadPoly::constant(2));
        assert_eq!(a.meet(b), poly(k(0), k(1), B));
        // Different slopes lose the T coefficient.
        assert_eq!(
            a.meet(ThreadPoly::constant(1)).class(),
            ValueClass::Divergent
        );
        assert_eq!(ThreadPoly::TOP.meet(a), a);
    }

    #[test]
    fn display() {
        assert_eq!(poly(k(0), k(1), B).to_string(), "1*T + ⊥");
        assert_eq!(poly(k(0), k(-4), k(-12)).to_string(), "-4*T - 12");
        assert_eq!(poly(k(1), k(2), k(1)).to_string(), "1*T² + 2*T + 1");
        assert_eq!(ThreadPoly::DIVERGENT.to_string(), "⊥*T² + ⊥*T + ⊥");
        assert_eq!(
            ThreadPoly::constant(i32::MIN).to_string(),
            "0*T - 2147483648"
        );
    }
}
