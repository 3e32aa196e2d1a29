//! A literal in a kernel over a value type without `num_traits::FromPrimitive` (which
//! converts literals over types that are not primitive numbers) is an error at the literal;
//! the same type in a kernel without literals is fine.
use sparse_runtime::prelude::*;

/// Integers modulo 7: a `Value` (it implements `num_traits::Num`), not `FromPrimitive`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Mod7(u8);

macro_rules! op {
    ($tr:ident, $f:ident, |$a:ident, $b:ident| $e:expr) => {
        impl std::ops::$tr for Mod7 {
            type Output = Mod7;
            fn $f(self, other: Mod7) -> Mod7 {
                let ($a, $b) = (u16::from(self.0), u16::from(other.0));
                Mod7(($e % 7) as u8)
            }
        }
    };
}
op!(Add, add, |a, b| a + b);
op!(Sub, sub, |a, b| a + 7 - b);
op!(Mul, mul, |a, b| a * b);
op!(Div, div, |a, b| a * b.pow(5));
op!(Rem, rem, |a, _b| a * 0);

impl sparse_runtime::num_traits::Zero for Mod7 {
    fn zero() -> Mod7 {
        Mod7(0)
    }
    fn is_zero(&self) -> bool {
        self.0 == 0
    }
}

impl sparse_runtime::num_traits::One for Mod7 {
    fn one() -> Mod7 {
        Mod7(1)
    }
}

impl sparse_runtime::num_traits::Num for Mod7 {
    type FromStrRadixErr = std::num::ParseIntError;
    fn from_str_radix(s: &str, radix: u32) -> Result<Mod7, Self::FromStrRadixErr> {
        u8::from_str_radix(s, radix).map(|n| Mod7(n % 7))
    }
}

sparse_kernel! {
    // Without literals, any `Value` works.
    fn fine(y: &mut Dense1<Mod7>, a: &Csr<Mod7>, x: &Dense1<Mod7>) {
        y(i) = a(i, j) * x(j)
    }

    fn no_from_primitive(y: &mut Dense1<Mod7>, x: &Dense1<Mod7>) {
        y(i) = 3 * x(i)
    }
}

fn main() {}
