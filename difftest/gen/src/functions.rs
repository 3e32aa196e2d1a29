//! Sparse array programming (Henry et al. 2021) as the tester defines it, independently of the
//! compiler: fill values, the functions a kernel calls (the runtime's prelude and the small
//! library the generator declares in a kernel's block), their algebraic properties, their
//! values (the definitions of `sparse_runtime::functions`, written out again here), and the
//! reductions.
//!
//! Nothing here is read from the compiler's tables: a property listed here is the tester's
//! statement of the language definition (`TESTING.md`, "Sparse array programming").

use crate::kernel::ValTy;

/// A constant of the value type: a fill value, an identity or an annihilator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fill {
    /// A finite number.
    Num(f64),
    /// `inf`: `f64::INFINITY`, or `MAX` for an integer type.
    Inf,
    /// `-inf`: `f64::NEG_INFINITY`, or `MIN` for an integer type.
    NegInf,
}

impl Fill {
    /// Zero, the fill value of a tensor that declares none.
    pub const ZERO: Fill = Fill::Num(0.0);
    /// One.
    pub const ONE: Fill = Fill::Num(1.0);

    /// Its value in the value type, as an `f64` (an integer type's `MAX` as `2^63`, which
    /// converts back to `MAX`: `as i64` saturates).
    pub fn value(self, vt: ValTy) -> f64 {
        match (self, vt) {
            (Fill::Num(v), _) => v,
            (Fill::Inf, ValTy::I64) => i64::MAX as f64,
            (Fill::NegInf, ValTy::I64) => i64::MIN as f64,
            (Fill::Inf, _) => f64::INFINITY,
            (Fill::NegInf, _) => f64::NEG_INFINITY,
        }
    }

    /// The constant as `#[fill(..)]`, `identity = ..` write it (`float`: spell an integral
    /// value of a float type with a decimal point).
    pub fn text(self, float: bool) -> String {
        match self {
            Fill::Inf => "inf".into(),
            Fill::NegInf => "-inf".into(),
            Fill::Num(v) if v.fract() == 0.0 && !float => format!("{}", v as i64),
            Fill::Num(v) => format!("{v:?}"),
        }
    }
}

/// A `#[fill(c)]` attribute on a tensor parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct FillAttr {
    /// The declared value.
    pub value: Fill,
    /// As written (`1`, `1.0`, `-inf`).
    pub text: String,
}

/// A function a kernel calls by name: the runtime's prelude (`sparse_runtime::functions`) or
/// one of the functions the generator declares in the kernel's block ([`Func::declared`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Func {
    /// `min(a, b)`: `if b < a { b } else { a }`.
    Min,
    /// `max(a, b)`: `if b > a { b } else { a }`.
    Max,
    /// `and(a, b)`: 1 if both are nonzero, else 0.
    And,
    /// `or(a, b)`.
    Or,
    /// `xor(a, b)`.
    Xor,
    /// `not(a)`: 1 if `a` is zero, else 0.
    Not,
    /// `abs(a)` (`wrapping_abs` for integers).
    Abs,
    /// `sqrt(a)` (floats).
    Sqrt,
    /// `exp(a)` (floats).
    Exp,
    /// `pow(a, e)`: `powf`, or the wrapping integer power (negative exponents truncated).
    Pow,
    /// `ldexp(x, e)`: `x * 2^e` (floats).
    Ldexp,
    /// `shl(a, n)`: 0 for a shift outside `0..64` (integers).
    Shl,
    /// `shr(a, n)`: arithmetic; saturated outside `0..64` (integers).
    Shr,
    /// `eq(a, b)`: 1 or 0.
    Eq,
    /// `ne(a, b)`.
    Ne,
    /// `lt(a, b)`.
    Lt,
    /// `le(a, b)`.
    Le,
    /// `gt(a, b)`.
    Gt,
    /// `ge(a, b)`.
    Ge,
    /// Declared: `plus(a, b) = a + b`, commutative, associative, identity 0, annihilator
    /// `inf` (min-plus; floats only).
    Plus,
    /// Declared: the greatest common divisor (integers), commutative, associative, identity
    /// 0 (on non-negative values), with `#[case]` bodies for a zero argument.
    Gcd,
    /// Declared: `unless(x, m) = if m != 0 { 0 } else { x }` with `iterate(x & !m)`: a
    /// structural complemented mask.
    Unless,
    /// Declared: `absdiff(x, y) = |x - y|`, commutative, with a `#[case]` for `y` absent at 0.
    AbsDiff,
    /// Declared: `scale(x, s) = x * s`, per-argument properties: `annihilator(x) = 0`,
    /// `identity(s) = 1`.
    Scale,
    /// Declared without properties: `skew(x, y) = x + x - y` (its region is the union).
    Skew,
}

impl Func {
    /// Every function, in declaration order.
    pub const ALL: [Func; 25] = [
        Func::Min,
        Func::Max,
        Func::And,
        Func::Or,
        Func::Xor,
        Func::Not,
        Func::Abs,
        Func::Sqrt,
        Func::Exp,
        Func::Pow,
        Func::Ldexp,
        Func::Shl,
        Func::Shr,
        Func::Eq,
        Func::Ne,
        Func::Lt,
        Func::Le,
        Func::Gt,
        Func::Ge,
        Func::Plus,
        Func::Gcd,
        Func::Unless,
        Func::AbsDiff,
        Func::Scale,
        Func::Skew,
    ];

    /// The name calls use.
    pub fn name(self) -> &'static str {
        match self {
            Func::Min => "min",
            Func::Max => "max",
            Func::And => "and",
            Func::Or => "or",
            Func::Xor => "xor",
            Func::Not => "not",
            Func::Abs => "abs",
            Func::Sqrt => "sqrt",
            Func::Exp => "exp",
            Func::Pow => "pow",
            Func::Ldexp => "ldexp",
            Func::Shl => "shl",
            Func::Shr => "shr",
            Func::Eq => "eq",
            Func::Ne => "ne",
            Func::Lt => "lt",
            Func::Le => "le",
            Func::Gt => "gt",
            Func::Ge => "ge",
            Func::Plus => "plus",
            Func::Gcd => "gcd",
            Func::Unless => "unless",
            Func::AbsDiff => "absdiff",
            Func::Scale => "scale",
            Func::Skew => "skew",
        }
    }

    /// The number of arguments.
    pub fn arity(self) -> usize {
        match self {
            Func::Not | Func::Abs | Func::Sqrt | Func::Exp => 1,
            _ => 2,
        }
    }

    /// Declared in the kernel's block by the generator (not the prelude).
    pub fn declared(self) -> bool {
        matches!(
            self,
            Func::Plus | Func::Gcd | Func::Unless | Func::AbsDiff | Func::Scale | Func::Skew
        )
    }

    /// Whether the function exists for value type `vt` (the prelude's trait bounds: `sqrt`,
    /// `exp`, `ldexp` need a float, the shifts an integer; `plus` is drawn for floats, whose
    /// infinity it absorbs, `gcd` for integers).
    pub fn supports(self, vt: ValTy) -> bool {
        match self {
            Func::Sqrt | Func::Exp | Func::Ldexp | Func::Plus => vt.is_float(),
            Func::Shl | Func::Shr | Func::Gcd => !vt.is_float(),
            _ => true,
        }
    }

    /// The annihilator of argument `pos`: a value that makes the result itself whatever the
    /// other arguments are (the definition's table).
    pub fn annihilator(self, pos: usize) -> Option<Fill> {
        match (self, pos) {
            (Func::Min, _) => Some(Fill::NegInf),
            (Func::Max, _) => Some(Fill::Inf),
            (Func::And, _) => Some(Fill::ZERO),
            (Func::Or, _) => Some(Fill::ONE),
            (Func::Abs | Func::Sqrt, 0) => Some(Fill::ZERO),
            (Func::Pow, 0) => Some(Fill::ONE),
            (Func::Ldexp | Func::Shl | Func::Shr, 0) => Some(Fill::ZERO),
            (Func::Plus, _) => Some(Fill::Inf),
            (Func::Scale, 0) => Some(Fill::ZERO),
            _ => None,
        }
    }

    /// The declared `iterate(..)` formula over the arguments' presence, if any: where it is
    /// false, the value is the function of the arguments' fill values.
    pub fn iterate(self, present: &[bool]) -> Option<bool> {
        match self {
            Func::Unless => Some(present[0] && !present[1]),
            _ => None,
        }
    }

    /// The function's declaration in the kernel's block, for value type `vt` (declared
    /// functions only).
    pub fn declaration(self, vt: ValTy) -> String {
        let v = vt.name();
        let zero = if vt.is_float() { "0.0" } else { "0" };
        match self {
            Func::Plus => format!(
                "/// Min-plus addition: infinity (no path) annihilates it.\n\
                 #[function(commutative, associative, identity = 0, annihilator = inf)]\n\
                 fn plus(a: {v}, b: {v}) -> {v} {{\n    a + b\n}}"
            ),
            Func::Gcd => format!(
                "#[function(commutative, associative, identity = 0)]\n\
                 #[case(gcd(x, 0) => x.abs())]\n\
                 #[case(gcd(0, y) => y.abs())]\n\
                 fn gcd(a: {v}, b: {v}) -> {v} {{\n    \
                 let (mut a, mut b) = (a.abs(), b.abs());\n    \
                 while b != 0 {{\n        let t = a % b;\n        a = b;\n        b = t;\n    }}\n    \
                 a\n}}"
            ),
            Func::Unless => format!(
                "/// `x` where `m` is not stored: a structural complemented mask.\n\
                 #[function(iterate(x & !m))]\n\
                 fn unless(x: {v}, m: {v}) -> {v} {{\n    if m != {zero} {{ {zero} }} else {{ x }}\n}}"
            ),
            Func::AbsDiff => format!(
                "#[function(commutative)]\n\
                 #[case(absdiff(x, 0) => x.abs())]\n\
                 fn absdiff(x: {v}, y: {v}) -> {v} {{\n    (x - y).abs()\n}}"
            ),
            Func::Scale => format!(
                "#[function(annihilator(x) = 0, identity(s) = 1)]\n\
                 fn scale(x: {v}, s: {v}) -> {v} {{\n    x * s\n}}"
            ),
            Func::Skew => format!("#[function]\nfn skew(x: {v}, y: {v}) -> {v} {{\n    x + x - y\n}}"),
            _ => String::new(),
        }
    }

    /// The function over `f64` values (the value of a float kernel, computed in `f64`).
    pub fn apply_f64(self, a: &[f64]) -> f64 {
        let one_if = |b: bool| if b { 1.0 } else { 0.0 };
        let t = |x: f64| x != 0.0;
        match self {
            Func::Min => {
                if a[1] < a[0] {
                    a[1]
                } else {
                    a[0]
                }
            }
            Func::Max => {
                if a[1] > a[0] {
                    a[1]
                } else {
                    a[0]
                }
            }
            Func::And => one_if(t(a[0]) && t(a[1])),
            Func::Or => one_if(t(a[0]) || t(a[1])),
            Func::Xor => one_if(t(a[0]) != t(a[1])),
            Func::Not => one_if(!t(a[0])),
            Func::Abs => a[0].abs(),
            Func::Sqrt => a[0].sqrt(),
            Func::Exp => a[0].exp(),
            Func::Pow => a[0].powf(a[1]),
            Func::Ldexp => ldexp(a[0], a[1]),
            Func::Eq => one_if(a[0] == a[1]),
            Func::Ne => one_if(a[0] != a[1]),
            Func::Lt => one_if(a[0] < a[1]),
            Func::Le => one_if(a[0] <= a[1]),
            Func::Gt => one_if(a[0] > a[1]),
            Func::Ge => one_if(a[0] >= a[1]),
            Func::Plus => a[0] + a[1],
            Func::Unless => {
                if a[1] != 0.0 {
                    0.0
                } else {
                    a[0]
                }
            }
            Func::AbsDiff => (a[0] - a[1]).abs(),
            Func::Scale => a[0] * a[1],
            Func::Skew => a[0] + a[0] - a[1],
            // Integer-only functions are never drawn for floats.
            Func::Shl | Func::Shr | Func::Gcd => f64::NAN,
        }
    }

    /// The function over `i64` values; `None` where the kernel's arithmetic overflows (a
    /// panic under overflow checks; the prelude itself never panics).
    pub fn apply_i64(self, a: &[i64]) -> Option<i64> {
        let one_if = |b: bool| i64::from(b);
        let t = |x: i64| x != 0;
        Some(match self {
            Func::Min => {
                if a[1] < a[0] {
                    a[1]
                } else {
                    a[0]
                }
            }
            Func::Max => {
                if a[1] > a[0] {
                    a[1]
                } else {
                    a[0]
                }
            }
            Func::And => one_if(t(a[0]) && t(a[1])),
            Func::Or => one_if(t(a[0]) || t(a[1])),
            Func::Xor => one_if(t(a[0]) != t(a[1])),
            Func::Not => one_if(!t(a[0])),
            Func::Abs => a[0].wrapping_abs(),
            Func::Pow => pow_i64(a[0], a[1]),
            Func::Shl => {
                if (0..64).contains(&a[1]) {
                    a[0] << a[1]
                } else {
                    0
                }
            }
            Func::Shr => {
                if (0..64).contains(&a[1]) {
                    a[0] >> a[1]
                } else if a[0] < 0 {
                    -1
                } else {
                    0
                }
            }
            Func::Eq => one_if(a[0] == a[1]),
            Func::Ne => one_if(a[0] != a[1]),
            Func::Lt => one_if(a[0] < a[1]),
            Func::Le => one_if(a[0] <= a[1]),
            Func::Gt => one_if(a[0] > a[1]),
            Func::Ge => one_if(a[0] >= a[1]),
            Func::Plus => a[0].checked_add(a[1])?,
            Func::Gcd => {
                let (mut x, mut y) = (a[0].checked_abs()?, a[1].checked_abs()?);
                while y != 0 {
                    (x, y) = (y, x % y);
                }
                x
            }
            Func::Unless => {
                if a[1] != 0 {
                    0
                } else {
                    a[0]
                }
            }
            Func::AbsDiff => a[0].checked_sub(a[1])?.checked_abs()?,
            Func::Scale => a[0].checked_mul(a[1])?,
            Func::Skew => a[0].checked_add(a[0])?.checked_sub(a[1])?,
            // Float-only functions are never drawn for integers.
            Func::Sqrt | Func::Exp | Func::Ldexp => return None,
        })
    }
}

/// `x * 2^e` as `sparse_runtime::functions::ldexp` defines it: directly when `2^e` is a
/// normal float (or `e` is not finite), else in three steps of a third of the exponent each.
pub fn ldexp(x: f64, e: f64) -> f64 {
    let p = e.exp2();
    if p.is_normal() || !e.is_finite() {
        return x * p;
    }
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    if e.abs() > 4096.0 {
        return x * p;
    }
    let third = (e / 3.0).trunc();
    let step = third.exp2();
    x * step * step * (e - third - third).exp2()
}

/// The integer power as `sparse_runtime::functions::pow` defines it: wrapping for a
/// non-negative exponent; for a negative one `1 / a^|e|` truncated (1 for 1, ±1 for -1, 0
/// otherwise, `pow(0, -1)` included).
pub fn pow_i64(a: i64, e: i64) -> i64 {
    if e >= 0 {
        let (mut acc, mut square, mut e) = (1i64, a, e as u64);
        while e > 0 {
            if e & 1 == 1 {
                acc = acc.wrapping_mul(square);
            }
            square = square.wrapping_mul(square);
            e >>= 1;
        }
        return acc;
    }
    match a {
        1 => 1,
        -1 => {
            if e % 2 == 0 {
                1
            } else {
                -1
            }
        }
        _ => 0,
    }
}

/// What a reduction `name[j](e)` folds by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reducer {
    /// `sum[j]`: `+` from 0 (the compiler's explicit `Σ`).
    Sum,
    /// `prod[j]`: `*` from 1.
    Prod,
    /// `min[j]`: from `inf`.
    Min,
    /// `max[j]`: from `-inf`.
    Max,
    /// `any[j]`: `or` from 0.
    Any,
    /// `all[j]`: `and` from 1.
    All,
    /// `plus[j]`: the declared min-plus `plus`, from 0.
    Plus,
    /// `gcd[j]`: the declared `gcd`, from 0.
    Gcd,
}

impl Reducer {
    /// The name as written before the brackets.
    pub fn name(self) -> &'static str {
        match self {
            Reducer::Sum => "sum",
            Reducer::Prod => "prod",
            Reducer::Min => "min",
            Reducer::Max => "max",
            Reducer::Any => "any",
            Reducer::All => "all",
            Reducer::Plus => "plus",
            Reducer::Gcd => "gcd",
        }
    }

    /// The function it folds by (`None`: the operators `+` and `*`).
    pub fn func(self) -> Option<Func> {
        match self {
            Reducer::Sum | Reducer::Prod => None,
            Reducer::Min => Some(Func::Min),
            Reducer::Max => Some(Func::Max),
            Reducer::Any => Some(Func::Or),
            Reducer::All => Some(Func::And),
            Reducer::Plus => Some(Func::Plus),
            Reducer::Gcd => Some(Func::Gcd),
        }
    }

    /// The fold's start, the function's identity.
    pub fn identity(self) -> Fill {
        match self {
            Reducer::Sum | Reducer::Any | Reducer::Plus | Reducer::Gcd => Fill::ZERO,
            Reducer::Prod | Reducer::All => Fill::ONE,
            Reducer::Min => Fill::Inf,
            Reducer::Max => Fill::NegInf,
        }
    }

    /// Whether the reduction exists for value type `vt` (its function does).
    pub fn supports(self, vt: ValTy) -> bool {
        self.func().is_none_or(|f| f.supports(vt))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_match_the_documented_examples() {
        assert_eq!(Func::Min.apply_f64(&[1.0, f64::NAN]), 1.0);
        assert!(Func::Min.apply_f64(&[f64::NAN, 1.0]).is_nan());
        assert_eq!(Func::And.apply_i64(&[5, 3]), Some(1));
        assert_eq!(Func::Xor.apply_i64(&[1, 7]), Some(0));
        assert_eq!(Func::Not.apply_f64(&[f64::NAN]), 0.0);
        assert_eq!(Func::Pow.apply_i64(&[2, -1]), Some(0));
        assert_eq!(Func::Pow.apply_i64(&[-1, -3]), Some(-1));
        assert_eq!(Func::Pow.apply_i64(&[-1, i64::MAX]), Some(-1));
        assert_eq!(Func::Pow.apply_i64(&[3, 4]), Some(81));
        assert_eq!(Func::Shl.apply_i64(&[1, -1]), Some(0));
        assert_eq!(Func::Shr.apply_i64(&[-8, 1]), Some(-4));
        assert_eq!(Func::Shr.apply_i64(&[-8, 40]), Some(-1));
        assert_eq!(Func::Shr.apply_i64(&[-8, 70]), Some(-1));
        assert_eq!(Func::Shr.apply_i64(&[8, -1]), Some(0));
        assert_eq!(Func::Abs.apply_i64(&[i64::MIN]), Some(i64::MIN));
        assert_eq!(ldexp(3.0, 2.0), 12.0);
        assert_eq!(ldexp(f64::from_bits(1), 1100.0), 67_108_864.0);
        assert_eq!(ldexp(0.0, 5000.0), 0.0);
        assert_eq!(Func::Gcd.apply_i64(&[-12, 18]), Some(6));
        assert_eq!(Func::Unless.apply_f64(&[3.0, 0.0]), 3.0);
        assert_eq!(Fill::Inf.value(ValTy::I64) as i64, i64::MAX);
        assert_eq!(Fill::NegInf.value(ValTy::I64) as i64, i64::MIN);
        assert_eq!(Fill::Num(-1.0).text(false), "-1");
        assert_eq!(Fill::Num(2.5).text(true), "2.5");
        assert_eq!(Fill::Num(1.0).text(true), "1.0");
    }
}
