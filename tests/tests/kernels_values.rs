//! Value types beyond `f64`, `f32` and `i64` (`kernels_types.rs`): complex numbers, every
//! integer type, and a value type written here (integers modulo a prime), through the kernel
//! suite against a dense reference computed in the same type.
//!
//! Integer data is small (`±1` for 8-bit types, `±1..=4` otherwise, unsigned types without
//! signs), so that no kernel of the suite and no reference overflows on the largest shapes;
//! unsigned subtraction, which can, has its own tests below.
#![deny(warnings)]

use sparse_runtime::num_complex::{Complex, Complex32, Complex64};
use sparse_runtime::num_traits::{self, FromPrimitive, Zero};
use sparse_runtime::prelude::*;
use sparse_tests::{
    build, case_seed, coordinates, other_density, revalidate, sweep, DenseT, Entries, Rng,
    MATRIX_SHAPES, TENSOR3_SHAPES, VECTOR_LENGTHS,
};
use std::fmt::Debug;

/// A value type of this suite: random data, the reference's comparison.
trait Val: Value + FromPrimitive {
    /// A random non-zero value, small enough that no kernel here overflows.
    fn random(rng: &mut Rng) -> Self;
    /// Whether `actual` equals `expected` (within a relative tolerance for floats).
    fn close(actual: Self, expected: Self) -> bool;
    /// A small constant.
    fn of(n: u8) -> Self {
        Self::from_u8(n).unwrap()
    }
}

/// `±1..=max` (or `1..=max` for an unsigned type), as an `i64`.
fn small(rng: &mut Rng, max: usize, signed: bool) -> i64 {
    let m = 1 + rng.below(max) as i64;
    if signed && rng.chance(0.5) {
        -m
    } else {
        m
    }
}

macro_rules! integer {
    ($($t:ty: $max:expr, $signed:expr;)*) => {$(
        impl Val for $t {
            fn random(rng: &mut Rng) -> Self {
                <$t>::from_i64(small(rng, $max, $signed)).unwrap()
            }
            fn close(actual: Self, expected: Self) -> bool {
                actual == expected
            }
        }
    )*};
}

integer! {
    i8: 1, true; i16: 4, true; i32: 4, true; i64: 4, true; i128: 4, true; isize: 4, true;
    u8: 1, false; u16: 4, false; u32: 4, false; u64: 4, false; u128: 4, false; usize: 4, false;
}

macro_rules! complex {
    ($($t:ty: $f:ty, $tol:expr;)*) => {$(
        impl Val for $t {
            fn random(rng: &mut Rng) -> Self {
                let mut part = || (if rng.chance(0.5) { -1.0 } else { 1.0 }) * (0.1 + 1.9 * rng.unit());
                Complex::new(part() as $f, part() as $f)
            }
            fn close(actual: Self, expected: Self) -> bool {
                let scale = actual.norm().max(expected.norm()).max(1.0);
                (actual - expected).norm() <= $tol * scale
            }
        }
    )*};
}

complex! {
    Complex32: f32, 1e-4;
    Complex64: f64, 1e-10;
}

/// Integers modulo the prime 251: a value type with no order, no `Neg`, no `AddAssign` and no
/// `Display`, implementing `num_traits::Num` (so `Value`) and `FromPrimitive` (for literals).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Mod251(u8);

const P: u32 = 251;

impl Mod251 {
    fn new(n: u32) -> Self {
        Mod251((n % P) as u8)
    }

    fn pow(self, mut e: u32) -> Self {
        let (mut base, mut acc) = (self, Mod251(1));
        while e > 0 {
            if e & 1 == 1 {
                acc = acc * base;
            }
            base = base * base;
            e >>= 1;
        }
        acc
    }
}

impl std::ops::Add for Mod251 {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Mod251::new(u32::from(self.0) + u32::from(o.0))
    }
}

impl std::ops::Sub for Mod251 {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        Mod251::new(u32::from(self.0) + P - u32::from(o.0))
    }
}

impl std::ops::Mul for Mod251 {
    type Output = Self;
    fn mul(self, o: Self) -> Self {
        Mod251::new(u32::from(self.0) * u32::from(o.0))
    }
}

impl std::ops::Div for Mod251 {
    type Output = Self;
    /// Multiplication by the inverse (Fermat); division by zero panics.
    fn div(self, o: Self) -> Self {
        assert!(o.0 != 0, "division by zero modulo {P}");
        self * o.pow(P - 2)
    }
}

impl std::ops::Rem for Mod251 {
    type Output = Self;
    /// A field: every division is exact.
    fn rem(self, o: Self) -> Self {
        assert!(o.0 != 0, "division by zero modulo {P}");
        Mod251(0)
    }
}

impl num_traits::Zero for Mod251 {
    fn zero() -> Self {
        Mod251(0)
    }
    fn is_zero(&self) -> bool {
        self.0 == 0
    }
}

impl num_traits::One for Mod251 {
    fn one() -> Self {
        Mod251(1)
    }
}

impl num_traits::Num for Mod251 {
    type FromStrRadixErr = std::num::ParseIntError;
    fn from_str_radix(s: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
        u32::from_str_radix(s, radix).map(Mod251::new)
    }
}

impl FromPrimitive for Mod251 {
    fn from_i64(n: i64) -> Option<Self> {
        Some(Mod251(n.rem_euclid(i64::from(P)) as u8))
    }
    fn from_u64(n: u64) -> Option<Self> {
        Some(Mod251((n % u64::from(P)) as u8))
    }
    /// Only integers: a fraction is not an element (the default would truncate it).
    fn from_f64(x: f64) -> Option<Self> {
        (x.fract() == 0.0 && x.abs() < 1e15).then(|| Mod251::from_i64(x as i64).unwrap())
    }
}

impl Val for Mod251 {
    fn random(rng: &mut Rng) -> Self {
        Mod251(1 + rng.below(P as usize - 1) as u8)
    }
    fn close(actual: Self, expected: Self) -> bool {
        actual == expected
    }
}

/// Random non-zero entries of `shape`, each coordinate present with probability `density`,
/// one slice per mode emptied unless `density` is 1 (as `sparse_tests::random_entries`).
fn entries<V: Val>(shape: &[usize], density: f64, seed: u64) -> Entries<V> {
    let mut rng = Rng::new(seed ^ 0x7a1e_5eed);
    let mut out: Entries<V> = Vec::new();
    for c in coordinates(shape) {
        if rng.chance(density) {
            out.push((c, V::random(&mut rng)));
        }
    }
    if density < 1.0 && !out.is_empty() {
        let emptied: Vec<usize> = shape.iter().map(|&n| rng.below(n)).collect();
        out.retain(|(c, _)| c.iter().zip(&emptied).all(|(a, b)| a != b));
    }
    rng.shuffle(&mut out);
    out
}

/// The `k`-th operand of a case: density `density` for the first, another for the rest.
fn operand<V: Val>(shape: &[usize], density: f64, seed: u64, k: u64) -> Entries<V> {
    let density = if k == 0 {
        density
    } else {
        other_density(density, seed, k)
    };
    entries(shape, density, case_seed(seed, shape, k))
}

/// Every component of `shape` stored, none zero (divisors, dense operands).
fn full<V: Val>(shape: &[usize], seed: u64) -> Entries<V> {
    entries(shape, 1.0, seed ^ 0xd1)
}

fn dense<V: Val>(shape: &[usize], e: &Entries<V>) -> DenseT<V> {
    DenseT::from_entries(shape, e)
}

/// Asserts the row-major `actual` equals the reference, naming the first mismatch.
fn check<V: Val>(actual: &[V], expected: &DenseT<V>, case: impl Debug) {
    assert_eq!(
        actual.len(),
        expected.data.len(),
        "{case:?}: component count"
    );
    let coords = coordinates(&expected.shape);
    for (at, (&a, &e)) in actual.iter().zip(&expected.data).enumerate() {
        assert!(
            V::close(a, e),
            "{case:?}: at {:?} of {:?}: kernel {a:?}, reference {e:?}",
            coords[at],
            expected.shape
        );
    }
}

/// The reference of `f` at every coordinate of `shape`.
fn reference<V: Val>(shape: &[usize], f: impl Fn(&[usize]) -> V) -> DenseT<V> {
    let mut out = DenseT::zeros(shape);
    for c in coordinates(shape) {
        out.set(&c, f(&c));
    }
    out
}

/// `Σ_k f(k)` for `k < n`, in the value type.
fn sum<V: Val>(n: usize, f: impl Fn(usize) -> V) -> V {
    (0..n).fold(V::zero(), |acc, k| acc + f(k))
}

/// The kernels every value type runs, and their tests against the dense reference.
macro_rules! suite {
    ($name:ident, $V:ty) => {
        mod $name {
            use super::*;

            type V = $V;

            sparse_kernel! {
                pub fn spmv_csr(y: &mut Dense1<V>, a: &Csr<V>, x: &Dense1<V>) {
                    y(i) = a(i, j) * x(j)
                }
                pub fn spmv_csc(y: &mut Dense1<V>, a: &Csc<V>, x: &Dense1<V>) {
                    y(i) = a(i, j) * x(j)
                }
                pub fn spmv_coo(y: &mut Dense1<V>, a: &Coo<V>, x: &SparseVec<V>) {
                    y(i) = a(i, j) * x(j)
                }
                pub fn spmv_dcsr(y: &mut Dense1<V>, a: &Dcsr<V>, x: &Dense1<V>) {
                    y(i) = a(i, j) * x(j)
                }
                pub fn spmv_dense(y: &mut Dense1<V>, a: &Dense2<V>, x: &SparseVec<V>) {
                    y(i) = a(i, j) * x(j)
                }
                pub fn spmv_hash(y: &mut Dense1<V>, a: &HashMat<V>, x: &Dense1<V>) {
                    y(i) = a(i, j) * x(j)
                }
                /// Scalars and integer literals: `2 A x + 3 z + alpha x`.
                pub fn scaled(y: &mut Dense1<V>, alpha: V, a: &Csr<V>, x: &Dense1<V>, z: &SparseVec<V>) {
                    y(i) = 2 * a(i, j) * x(j) + 3 * z(i) + alpha * x(i)
                }
                pub fn add_csr_coo(c: &mut Csr<V>, a: &Csr<V>, b: &Coo<V>) {
                    c(i, j) = a(i, j) + b(i, j)
                }
                pub fn add_hash(c: &mut HashMat<V>, a: &Dcsr<V>, b: &HashMat<V>) {
                    c(i, j) = a(i, j) + b(i, j)
                }
                pub fn mul_coo_csr(c: &mut Csr<V>, a: &Coo<V>, b: &Csr<V>) {
                    c(i, j) = a(i, j) * b(i, j)
                }
                pub fn mul_dcsr_dense(c: &mut Dcsr<V>, a: &Dcsr<V>, b: &Dense2<V>) {
                    c(i, j) = a(i, j) * b(i, j)
                }
                pub fn div_dense(c: &mut Csr<V>, a: &Csr<V>, d: &Dense2<V>) {
                    c(i, j) = a(i, j) / d(i, j)
                }
                pub fn spmm(c: &mut Dense2<V>, a: &Csr<V>, b: &Dense2<V>) {
                    c(i, j) = a(i, k) * b(k, j)
                }
                /// Sparse output of a product: a workspace.
                pub fn spgemm(c: &mut Csr<V>, a: &Csr<V>, b: &Csr<V>) {
                    c(i, j) = a(i, k) * b(k, j)
                }
                pub fn ttv(a: &mut Csr<V>, b: &Csf3<V>, c: &Dense1<V>) {
                    a(i, j) = b(i, j, k) * c(k)
                }
                pub fn dot(out: &mut V, b: &SparseVec<V>, c: &Dense1<V>) {
                    out = b(i) * c(i)
                }
                pub fn accumulate(y: &mut Dense1<V>, a: &Csc<V>, x: &HashVec<V>) {
                    y(i) += a(i, j) * x(j)
                }
                /// `b` converted to CSR order on entry.
                pub fn add_converted(c: &mut Csr<V>, a: &Csr<V>, b: &Csc<V>) {
                    c(i, j) = a(i, j) + b(i, j)
                }
                /// `+=` into a sparse output: its old contents are an operand.
                pub fn update(c: &mut Csr<V>, a: &Coo<V>) {
                    c(i, j) += a(i, j)
                }
                #[schedule(compute(spgemm_values))]
                pub fn spgemm_assemble(c: &mut Csr<V>, a: &Csr<V>, b: &Csr<V>) {
                    c(i, j) = a(i, k) * b(k, j)
                }
            }

            /// `y = A x` for every format of `A`.
            #[test]
            fn spmv_matches_reference() {
                for shape in MATRIX_SHAPES {
                    let [m, n] = shape;
                    sweep(|density, seed| {
                        let case = (shape, density, seed);
                        let ae: Entries<V> = operand(&shape, density, seed, 0);
                        let xe: Entries<V> = operand(&[n], density, seed, 1);
                        let xf: Entries<V> = full(&[n], seed);
                        let (ad, xd, xfd) = (dense(&shape, &ae), dense(&[n], &xe), dense(&[n], &xf));
                        let ax = |x: &DenseT<V>| {
                            reference(&[m], |c| sum(n, |j| ad.get(&[c[0], j]) * x.get(&[j])))
                        };
                        let (sparse_x, dense_x) = (ax(&xd), ax(&xfd));
                        let fresh = || Dense1::<V>::from_vec(vec![V::of(7); m]);
                        let mut y = fresh();
                        spmv_csr(&mut y, &build(&shape, &ae), &build(&[n], &xf)).unwrap();
                        check(y.as_slice(), &dense_x, ("csr", case));
                        let mut y = fresh();
                        spmv_csc(&mut y, &build(&shape, &ae), &build(&[n], &xf)).unwrap();
                        check(y.as_slice(), &dense_x, ("csc", case));
                        let mut y = fresh();
                        spmv_coo(&mut y, &build(&shape, &ae), &build(&[n], &xe)).unwrap();
                        check(y.as_slice(), &sparse_x, ("coo", case));
                        let mut y = fresh();
                        spmv_dcsr(&mut y, &build(&shape, &ae), &build(&[n], &xf)).unwrap();
                        check(y.as_slice(), &dense_x, ("dcsr", case));
                        let mut y = fresh();
                        spmv_dense(&mut y, &build(&shape, &ae), &build(&[n], &xe)).unwrap();
                        check(y.as_slice(), &sparse_x, ("dense", case));
                        let mut y = fresh();
                        spmv_hash(&mut y, &build(&shape, &ae), &build(&[n], &xf)).unwrap();
                        check(y.as_slice(), &dense_x, ("hash", case));
                    });
                }
            }

            #[test]
            fn scaled_sum_with_literals_matches_reference() {
                for shape in MATRIX_SHAPES {
                    let [m, n] = shape;
                    sweep(|density, seed| {
                        // A square operand for `alpha * x(i)`: x has both dimensions' size.
                        let shape = [m, m];
                        let ae: Entries<V> = operand(&shape, density, seed, 0);
                        let xe: Entries<V> = full(&[m], seed);
                        let ze: Entries<V> = operand(&[m], density, seed, 2);
                        let (ad, xd, zd) = (dense(&shape, &ae), dense(&[m], &xe), dense(&[m], &ze));
                        let alpha = V::of(5);
                        let want = reference(&[m], |c| {
                            let i = c[0];
                            V::of(2) * sum(m, |j| ad.get(&[i, j]) * xd.get(&[j]))
                                + V::of(3) * zd.get(&[i])
                                + alpha * xd.get(&[i])
                        });
                        let mut y = Dense1::<V>::zeros(m);
                        scaled(&mut y, alpha, &build(&shape, &ae), &build(&[m], &xe), &build(&[m], &ze)).unwrap();
                        check(y.as_slice(), &want, (shape, n, density, seed));
                    });
                }
            }

            #[test]
            fn elementwise_matches_reference() {
                for shape in MATRIX_SHAPES {
                    sweep(|density, seed| {
                        let case = (shape, density, seed);
                        let ae: Entries<V> = operand(&shape, density, seed, 0);
                        let be: Entries<V> = operand(&shape, density, seed, 1);
                        let de: Entries<V> = full(&shape, seed);
                        let (ad, bd, dd) = (dense(&shape, &ae), dense(&shape, &be), dense(&shape, &de));
                        let sum_ref = reference(&shape, |c| ad.get(c) + bd.get(c));
                        let product = reference(&shape, |c| ad.get(c) * bd.get(c));
                        let quotient = reference(&shape, |c| ad.get(c) / dd.get(c));

                        let mut c: Csr<V> = build(&shape, &operand(&shape, 0.5, seed, 3));
                        add_csr_coo(&mut c, &build(&shape, &ae), &build(&shape, &be)).unwrap();
                        check(&c.to_dense(), &sum_ref, ("add csr coo", case));
                        revalidate(&c);
                        let mut c: HashMat<V> = build(&shape, &operand(&shape, 0.5, seed, 3));
                        add_hash(&mut c, &build(&shape, &ae), &build(&shape, &be)).unwrap();
                        check(&c.to_dense(), &sum_ref, ("add hash", case));
                        let mut c = Csr::<V>::new(&shape).unwrap();
                        add_converted(&mut c, &build(&shape, &ae), &build(&shape, &be)).unwrap();
                        check(&c.to_dense(), &sum_ref, ("add converted", case));
                        revalidate(&c);
                        let mut c: Csr<V> = build(&shape, &be);
                        update(&mut c, &build(&shape, &ae)).unwrap();
                        check(&c.to_dense(), &sum_ref, ("update", case));
                        revalidate(&c);
                        let mut c = Csr::<V>::new(&shape).unwrap();
                        mul_coo_csr(&mut c, &build(&shape, &ae), &build(&shape, &be)).unwrap();
                        check(&c.to_dense(), &product, ("mul coo csr", case));
                        revalidate(&c);
                        let mut c = Dcsr::<V>::new(&shape).unwrap();
                        mul_dcsr_dense(&mut c, &build(&shape, &ae), &build(&shape, &be)).unwrap();
                        check(&c.to_dense(), &product, ("mul dcsr dense", case));
                        revalidate(&c);
                        let mut c = Csr::<V>::new(&shape).unwrap();
                        div_dense(&mut c, &build(&shape, &ae), &build(&shape, &de)).unwrap();
                        check(&c.to_dense(), &quotient, ("div", case));
                        // The quotient is stored exactly where `a` is.
                        let stored: Vec<_> = c.iter().map(|(k, _)| k.to_vec()).collect();
                        let mut a_pattern: Vec<_> = ae.iter().map(|(k, _)| k.clone()).collect();
                        a_pattern.sort();
                        assert_eq!(stored, a_pattern, "div pattern {case:?}");
                    });
                }
            }

            #[test]
            fn products_match_reference() {
                for [m, k] in MATRIX_SHAPES {
                    for n in [0, 1, 4] {
                        sweep(|density, seed| {
                            let case = ([m, k, n], density, seed);
                            let ae: Entries<V> = operand(&[m, k], density, seed, 0);
                            let be: Entries<V> = operand(&[k, n], density, seed, 1);
                            let (ad, bd) = (dense(&[m, k], &ae), dense(&[k, n], &be));
                            let want = reference(&[m, n], |c| {
                                sum(k, |l| ad.get(&[c[0], l]) * bd.get(&[l, c[1]]))
                            });
                            let mut c = Dense2::<V>::from_vec(m, n, vec![V::of(9); m * n]).unwrap();
                            spmm(&mut c, &build(&[m, k], &ae), &build(&[k, n], &be)).unwrap();
                            check(c.as_slice(), &want, ("spmm", case));
                            let mut c = Csr::<V>::new(&[m, n]).unwrap();
                            spgemm(&mut c, &build(&[m, k], &ae), &build(&[k, n], &be)).unwrap();
                            check(&c.to_dense(), &want, ("spgemm", case));
                            revalidate(&c);

                            // Assemble once, then compute the values of doubled operands.
                            let (a, mut b): (Csr<V>, Csr<V>) = (build(&[m, k], &ae), build(&[k, n], &be));
                            let mut c = Csr::<V>::new(&[m, n]).unwrap();
                            spgemm_assemble(&mut c, &a, &b).unwrap();
                            check(&c.to_dense(), &want, ("spgemm assemble", case));
                            for v in b.vals_mut() {
                                *v = *v + *v;
                            }
                            spgemm_values(&mut c, &a, &b).unwrap();
                            let doubled = reference(&[m, n], |x| want.get(x) + want.get(x));
                            check(&c.to_dense(), &doubled, ("spgemm values", case));
                        });
                    }
                }
            }

            #[test]
            fn ttv_matches_reference() {
                for shape in TENSOR3_SHAPES {
                    let [m, n, p] = shape;
                    sweep(|density, seed| {
                        let be: Entries<V> = operand(&shape, density, seed, 0);
                        let ce: Entries<V> = full(&[p], seed);
                        let (bd, cd) = (dense(&shape, &be), dense(&[p], &ce));
                        let want = reference(&[m, n], |c| {
                            sum(p, |k| bd.get(&[c[0], c[1], k]) * cd.get(&[k]))
                        });
                        let mut a = Csr::<V>::new(&[m, n]).unwrap();
                        ttv(&mut a, &build(&shape, &be), &build(&[p], &ce)).unwrap();
                        check(&a.to_dense(), &want, (shape, density, seed));
                        revalidate(&a);
                    });
                }
            }

            #[test]
            fn dot_and_accumulation_match_reference() {
                for n in VECTOR_LENGTHS {
                    sweep(|density, seed| {
                        let be: Entries<V> = operand(&[n], density, seed, 0);
                        let ce: Entries<V> = full(&[n], seed);
                        let (bd, cd) = (dense(&[n], &be), dense(&[n], &ce));
                        let mut out = V::of(11);
                        dot(&mut out, &build(&[n], &be), &build(&[n], &ce)).unwrap();
                        let want = sum(n, |i| bd.get(&[i]) * cd.get(&[i]));
                        assert!(V::close(out, want), "dot {:?}: {out:?} vs {want:?}", (n, density, seed));
                    });
                }
                for shape in MATRIX_SHAPES {
                    let [m, n] = shape;
                    sweep(|density, seed| {
                        let ae: Entries<V> = operand(&shape, density, seed, 0);
                        let xe: Entries<V> = operand(&[n], density, seed, 1);
                        let ye: Entries<V> = full(&[m], seed);
                        let (ad, xd, yd) = (dense(&shape, &ae), dense(&[n], &xe), dense(&[m], &ye));
                        let want = reference(&[m], |c| {
                            yd.get(c) + sum(n, |j| ad.get(&[c[0], j]) * xd.get(&[j]))
                        });
                        let mut y: Dense1<V> = build(&[m], &ye);
                        accumulate(&mut y, &build(&shape, &ae), &build(&[n], &xe)).unwrap();
                        check(y.as_slice(), &want, (shape, density, seed));
                    });
                }
            }

            #[test]
            fn shape_mismatch_is_err() {
                let a: Csr<V> = build(&[3, 4], &operand(&[3, 4], 0.5, 1, 0));
                let x: Dense1<V> = build(&[5], &full(&[5], 2));
                let mut y = Dense1::<V>::zeros(3);
                assert!(spmv_csr(&mut y, &a, &x).is_err());
            }
        }
    };
}

/// Kernels with subtraction and negation, for every type whose values have negatives (the
/// signed integers, complex numbers, integers modulo a prime). A right-only point of `a - b`
/// is `-b`; over a type that is not a primitive number it is emitted `0 - b`.
macro_rules! signed_suite {
    ($name:ident, $V:ty) => {
        mod $name {
            use super::*;

            type V = $V;

            sparse_kernel! {
                pub fn sub_csr_coo(c: &mut Csr<V>, a: &Csr<V>, b: &Coo<V>) {
                    c(i, j) = a(i, j) - b(i, j)
                }
                /// `b` in CSC against a CSR-ordered dense output: split into two nests.
                pub fn sub_split(c: &mut Dense2<V>, a: &Dcsr<V>, b: &Csc<V>) {
                    c(i, j) = a(i, j) - b(i, j)
                }
                pub fn residual(r: &mut Dense1<V>, b: &SparseVec<V>, a: &Csr<V>, x: &Dense1<V>) {
                    r(i) = b(i) - a(i, j) * x(j)
                }
                pub fn negated(y: &mut SparseVec<V>, a: &SparseVec<V>, b: &SparseVec<V>) {
                    y(i) = -a(i) + -(b(i) * 2)
                }
            }

            #[test]
            fn subtraction_and_negation_match_reference() {
                for shape in MATRIX_SHAPES {
                    let [m, n] = shape;
                    sweep(|density, seed| {
                        let case = (shape, density, seed);
                        let ae: Entries<V> = operand(&shape, density, seed, 0);
                        let be: Entries<V> = operand(&shape, density, seed, 1);
                        let (ad, bd) = (dense(&shape, &ae), dense(&shape, &be));
                        let zero = V::zero();
                        let difference = reference(&shape, |c| ad.get(c) - bd.get(c));
                        let mut c = Csr::<V>::new(&shape).unwrap();
                        sub_csr_coo(&mut c, &build(&shape, &ae), &build(&shape, &be)).unwrap();
                        check(&c.to_dense(), &difference, ("sub", case));
                        revalidate(&c);
                        let mut c = Dense2::<V>::zeros(m, n);
                        sub_split(&mut c, &build(&shape, &ae), &build(&shape, &be)).unwrap();
                        check(c.as_slice(), &difference, ("sub split", case));

                        let ve: Entries<V> = operand(&[m], density, seed, 2);
                        let xe: Entries<V> = full(&[n], seed);
                        let (vd, xd) = (dense(&[m], &ve), dense(&[n], &xe));
                        let want = reference(&[m], |c| {
                            vd.get(c) - sum(n, |j| ad.get(&[c[0], j]) * xd.get(&[j]))
                        });
                        let mut r = Dense1::<V>::zeros(m);
                        residual(
                            &mut r,
                            &build(&[m], &ve),
                            &build(&shape, &ae),
                            &build(&[n], &xe),
                        )
                        .unwrap();
                        check(r.as_slice(), &want, ("residual", case));

                        let we: Entries<V> = operand(&[m], density, seed, 3);
                        let wd = dense(&[m], &we);
                        let want =
                            reference(&[m], |c| (zero - vd.get(c)) + (zero - wd.get(c) * V::of(2)));
                        let mut y = SparseVec::<V>::new(&[m]).unwrap();
                        negated(&mut y, &build(&[m], &ve), &build(&[m], &we)).unwrap();
                        check(&y.to_dense(), &want, ("negated", case));
                    });
                }
            }
        }
    };
}

suite!(i8_kernels, i8);
suite!(i16_kernels, i16);
suite!(i32_kernels, i32);
suite!(i64_kernels, i64);
suite!(i128_kernels, i128);
suite!(isize_kernels, isize);
suite!(u8_kernels, u8);
suite!(u16_kernels, u16);
suite!(u32_kernels, u32);
suite!(u64_kernels, u64);
suite!(u128_kernels, u128);
suite!(usize_kernels, usize);
suite!(complex32_kernels, Complex32);
suite!(complex64_kernels, Complex64);
suite!(mod251_kernels, Mod251);

signed_suite!(i8_signed, i8);
signed_suite!(i32_signed, i32);
signed_suite!(i128_signed, i128);
signed_suite!(isize_signed, isize);
signed_suite!(complex32_signed, Complex32);
signed_suite!(complex64_signed, Complex64);
signed_suite!(mod251_signed, Mod251);

/// Float literals over complex numbers: converted by `FromPrimitive::from_f64`, so `0.1` over
/// `Complex32` is `0.1_f32 + 0i`.
macro_rules! float_literal_case {
    ($name:ident, $V:ty, $re:ty) => {
        mod $name {
            use super::*;

            type V = $V;

            sparse_kernel! {
                pub fn blend(y: &mut Dense1<V>, a: &Csr<V>, x: &Dense1<V>) {
                    y(i) = 0.1 * a(i, j) * x(j) - 1.25e1 * x(i) + 2.
                }
            }

            #[test]
            fn float_literals_match_reference() {
                for [m, _] in MATRIX_SHAPES {
                    sweep(|density, seed| {
                        let ae: Entries<V> = operand(&[m, m], density, seed, 0);
                        let xe: Entries<V> = full(&[m], seed);
                        let (ad, xd) = (dense(&[m, m], &ae), dense(&[m], &xe));
                        let c = |x: $re| V::new(x, 0.0);
                        let want = reference(&[m], |k| {
                            c(0.1) * sum(m, |j| ad.get(&[k[0], j]) * xd.get(&[j]))
                                - c(12.5) * xd.get(k)
                                + c(2.0)
                        });
                        let mut y = Dense1::<V>::zeros(m);
                        blend(&mut y, &build(&[m, m], &ae), &build(&[m], &xe)).unwrap();
                        check(y.as_slice(), &want, (m, density, seed));
                    });
                }
            }
        }
    };
}

float_literal_case!(complex32_literals, Complex32, f32);
float_literal_case!(complex64_literals, Complex64, f64);

/// A literal `FromPrimitive` converts to `None` panics when evaluated, naming itself; one it
/// converts (`2.0` modulo 251) is that element.
mod custom_literals {
    use super::*;

    sparse_kernel! {
        pub fn doubled(y: &mut Dense1<Mod251>, x: &Dense1<Mod251>) {
            y(i) = 2.0 * x(i) + 250
        }
        pub fn halved(y: &mut Dense1<Mod251>, x: &Dense1<Mod251>) {
            y(i) = 0.5 * x(i)
        }
    }

    #[test]
    fn integral_literals_convert() {
        let x = Dense1::from_vec(vec![Mod251(0), Mod251(1), Mod251(200)]);
        let mut y = Dense1::zeros(3);
        doubled(&mut y, &x).unwrap();
        assert_eq!(y.as_slice(), &[Mod251(250), Mod251(1), Mod251(148)]); // 650 = 2 * 251 + 148
    }

    #[test]
    #[should_panic(expected = "the kernel's literal `0.5` is not a value of")]
    fn a_literal_without_a_value_panics_naming_it() {
        let x = Dense1::from_vec(vec![Mod251(1)]);
        let _ = halved(&mut Dense1::zeros(1), &x);
    }
}

/// Unsigned subtraction: exact where every difference is representable; where it is not
/// (`0 - b` where only `b` stores an entry), Rust's overflow semantics: a panic with overflow
/// checks (the test profile's default), which leaves the sparse output the empty tensor of
/// its shape, and a wrap without.
macro_rules! unsigned_case {
    ($name:ident, $V:ty) => {
        mod $name {
            use super::*;

            type V = $V;

            sparse_kernel! {
                pub fn sub(c: &mut Csr<V>, a: &Csr<V>, b: &Coo<V>) {
                    c(i, j) = a(i, j) - b(i, j)
                }
            }

            /// `a` in `5..=8` everywhere it is stored, `b` in `1..=4` on part of `a`'s pattern.
            fn within(shape: [usize; 2], density: f64, seed: u64) -> (Entries<V>, Entries<V>) {
                let ae: Entries<V> = operand(&shape, density, seed, 0);
                let ae: Entries<V> = ae.into_iter().map(|(c, v)| (c, v + 4)).collect();
                let mut rng = Rng::new(seed);
                let mut be = Vec::new();
                for (c, _) in &ae {
                    if rng.chance(0.5) {
                        be.push((c.clone(), V::random(&mut rng)));
                    }
                }
                (ae, be)
            }

            #[test]
            fn representable_differences_are_exact() {
                for shape in MATRIX_SHAPES {
                    sweep(|density, seed| {
                        let (ae, be) = within(shape, density, seed);
                        let (ad, bd) = (dense(&shape, &ae), dense(&shape, &be));
                        let want = reference(&shape, |c| ad.get(c) - bd.get(c));
                        let mut c = Csr::<V>::new(&shape).unwrap();
                        sub(&mut c, &build(&shape, &ae), &build(&shape, &be)).unwrap();
                        check(&c.to_dense(), &want, (shape, density, seed));
                        assert_eq!(c.nnz(), ae.len(), "the union is a's pattern");
                    });
                }
            }

            #[test]
            fn an_unrepresentable_difference_follows_rust_overflow_semantics() {
                let shape = [3, 4];
                let a: Csr<V> = build(&shape, &[(vec![0, 0], 5), (vec![2, 3], 1)]);
                let be: Entries<V> = vec![(vec![0, 0], 2), (vec![1, 2], 3)];
                let b: Coo<V> = build(&shape, &be);
                let mut c: Csr<V> = build(&shape, &[(vec![2, 2], 7)]);
                let run =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| sub(&mut c, &a, &b)));
                if cfg!(debug_assertions) {
                    assert!(run.is_err(), "0 - 3 must overflow with overflow checks");
                    assert_eq!(c.shape(), &shape);
                    assert_eq!(
                        c.nnz(),
                        0,
                        "a kernel that panics leaves its sparse output empty"
                    );
                    revalidate(&c);
                } else {
                    run.unwrap().unwrap();
                    let wrapped = V::MAX - 2; // 0 - 3, wrapped
                    assert_eq!(
                        c.entries(),
                        vec![(vec![0, 0], 3), (vec![1, 2], wrapped), (vec![2, 3], 1)]
                    );
                }
            }
        }
    };
}

unsigned_case!(u8_subtraction, u8);
unsigned_case!(u16_subtraction, u16);
unsigned_case!(u32_subtraction, u32);
unsigned_case!(u64_subtraction, u64);
unsigned_case!(u128_subtraction, u128);
unsigned_case!(usize_subtraction, usize);
