//! Element-wise kernels against a dense oracle: matrix `+ - *` over every
//! ordered pair of {Csr, Coo, Dcsr, Dense2} into Csr and Dense2 outputs,
//! `a(i) = b(i) * c(i) + d(i)` over SparseVec/Dense1 combinations, and
//! `y(i) = -(a(i) / c(i))` with a dense divisor.
//!
//! Sparse outputs start non-empty (they must be re-assembled, not merged
//! into); dense outputs start with non-zero garbage (`=` overwrites).
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

/// Entries of two same-shape operands of one case.
fn pair(shape: &[usize], density: f64, seed: u64) -> (Entries<f64>, Entries<f64>) {
    let a = random_entries(shape, density, case_seed(seed, shape, 0));
    let b = random_entries(
        shape,
        other_density(density, seed, 1),
        case_seed(seed, shape, 1),
    );
    (a, b)
}

/// Stale entries an output holds before the kernel runs.
fn stale(shape: &[usize], seed: u64) -> Entries<f64> {
    random_entries(shape, 0.5, seed ^ 0x57a1e)
}

/// `c(i,j) = a(i,j) OP b(i,j)` for one output format and two input formats.
macro_rules! binop_case {
    ($name:ident, $op:tt, [$($C:tt)*], [$($A:tt)*], [$($B:tt)*]) => {
        mod $name {
            use super::*;

            sparse_kernel! {
                pub fn kernel(c: &mut $($C)*, a: &$($A)*, b: &$($B)*) {
                    c(i, j) = a(i, j) $op b(i, j)
                }
            }

            #[test]
            fn matches_oracle() {
                for shape in MATRIX_SHAPES {
                    sweep(|density, seed| {
                        let (ae, be) = pair(&shape, density, seed);
                        let a: $($A)* = build(&shape, &ae);
                        let b: $($B)* = build(&shape, &be);
                        let (ad, bd) = (DenseT::from_entries(&shape, &ae), DenseT::from_entries(&shape, &be));
                        let mut expected = DenseT::zeros(&shape);
                        for i in 0..shape[0] {
                            for j in 0..shape[1] {
                                expected.set(&[i, j], ad.get(&[i, j]) $op bd.get(&[i, j]));
                            }
                        }
                        let mut c: $($C)* = build(&shape, &stale(&shape, seed));
                        kernel(&mut c, &a, &b).unwrap();
                        assert_eq!(c.shape(), &shape[..]);
                        assert_close(&c.to_dense(), &expected, f64::TOL, (shape, density, seed));
                    });
                }
            }

            #[test]
            fn shape_mismatch_is_err() {
                let a: $($A)* = build(&[3, 4], &random_entries(&[3, 4], 0.5, 1));
                let b: $($B)* = build(&[3, 4], &random_entries(&[3, 4], 0.5, 2));
                let b_wide: $($B)* = build(&[3, 5], &random_entries(&[3, 5], 0.5, 2));
                let b_tall: $($B)* = build(&[4, 4], &random_entries(&[4, 4], 0.5, 2));
                let mut c: $($C)* = build(&[3, 4], &[]);
                assert!(kernel(&mut c, &a, &b_wide).is_err());
                assert!(kernel(&mut c, &a, &b_tall).is_err());
                let mut c_wrong: $($C)* = build(&[3, 5], &[]);
                assert!(kernel(&mut c_wrong, &a, &b).is_err());
                assert!(kernel(&mut c, &a, &b).is_ok());
            }
        }
    };
}

/// Every ordered pair of input formats for one operator and output format.
macro_rules! binop_inputs {
    ($op:tt, [$($C:tt)*]) => {
        binop_case!(csr_csr, $op, [$($C)*], [Csr<f64>], [Csr<f64>]);
        binop_case!(csr_coo, $op, [$($C)*], [Csr<f64>], [Coo<f64>]);
        binop_case!(csr_dcsr, $op, [$($C)*], [Csr<f64>], [Dcsr<f64>]);
        binop_case!(csr_dense2, $op, [$($C)*], [Csr<f64>], [Dense2<f64>]);
        binop_case!(coo_csr, $op, [$($C)*], [Coo<f64>], [Csr<f64>]);
        binop_case!(coo_coo, $op, [$($C)*], [Coo<f64>], [Coo<f64>]);
        binop_case!(coo_dcsr, $op, [$($C)*], [Coo<f64>], [Dcsr<f64>]);
        binop_case!(coo_dense2, $op, [$($C)*], [Coo<f64>], [Dense2<f64>]);
        binop_case!(dcsr_csr, $op, [$($C)*], [Dcsr<f64>], [Csr<f64>]);
        binop_case!(dcsr_coo, $op, [$($C)*], [Dcsr<f64>], [Coo<f64>]);
        binop_case!(dcsr_dcsr, $op, [$($C)*], [Dcsr<f64>], [Dcsr<f64>]);
        binop_case!(dcsr_dense2, $op, [$($C)*], [Dcsr<f64>], [Dense2<f64>]);
        binop_case!(dense2_csr, $op, [$($C)*], [Dense2<f64>], [Csr<f64>]);
        binop_case!(dense2_coo, $op, [$($C)*], [Dense2<f64>], [Coo<f64>]);
        binop_case!(dense2_dcsr, $op, [$($C)*], [Dense2<f64>], [Dcsr<f64>]);
        binop_case!(dense2_dense2, $op, [$($C)*], [Dense2<f64>], [Dense2<f64>]);
    };
}

/// One operator into both output formats.
macro_rules! binop_family {
    ($name:ident, $op:tt) => {
        mod $name {
            use super::*;

            mod into_csr {
                use super::*;
                binop_inputs!($op, [Csr<f64>]);
            }

            mod into_dense2 {
                use super::*;
                binop_inputs!($op, [Dense2<f64>]);
            }
        }
    };
}

binop_family!(add, +);
binop_family!(sub, -);
binop_family!(mul, *);

/// `c(i,j) += a(i,j) + b(i,j)` into a dense output that starts non-zero.
macro_rules! accumulate_case {
    ($name:ident, [$($A:tt)*], [$($B:tt)*]) => {
        mod $name {
            use super::*;

            sparse_kernel! {
                pub fn kernel(c: &mut Dense2<f64>, a: &$($A)*, b: &$($B)*) {
                    c(i, j) += a(i, j) + b(i, j)
                }
            }

            #[test]
            fn accumulates() {
                for shape in MATRIX_SHAPES {
                    sweep(|density, seed| {
                        let (ae, be) = pair(&shape, density, seed);
                        let a: $($A)* = build(&shape, &ae);
                        let b: $($B)* = build(&shape, &be);
                        let c0 = nonzero_entries(&shape, seed);
                        let mut c: Dense2<f64> = build(&shape, &c0);
                        let (ad, bd) = (DenseT::from_entries(&shape, &ae), DenseT::from_entries(&shape, &be));
                        let mut expected = DenseT::from_entries(&shape, &c0);
                        for i in 0..shape[0] {
                            for j in 0..shape[1] {
                                expected.add(&[i, j], ad.get(&[i, j]) + bd.get(&[i, j]));
                            }
                        }
                        kernel(&mut c, &a, &b).unwrap();
                        assert_close(&c.to_dense(), &expected, f64::TOL, (shape, density, seed));
                    });
                }
            }
        }
    };
}

accumulate_case!(accumulate_csr_coo, [Csr<f64>], [Coo<f64>]);
accumulate_case!(accumulate_dcsr_csr, [Dcsr<f64>], [Csr<f64>]);
accumulate_case!(accumulate_coo_dense2, [Coo<f64>], [Dense2<f64>]);

/// `a(i) = b(i) * c(i) + d(i)` for one combination of vector formats.
macro_rules! fma_case {
    ($name:ident, [$($A:tt)*], [$($B:tt)*], [$($C:tt)*], [$($D:tt)*]) => {
        mod $name {
            use super::*;

            sparse_kernel! {
                pub fn kernel(a: &mut $($A)*, b: &$($B)*, c: &$($C)*, d: &$($D)*) {
                    a(i) = b(i) * c(i) + d(i)
                }
            }

            #[test]
            fn matches_oracle() {
                for n in VECTOR_LENGTHS {
                    sweep(|density, seed| {
                        let shape = [n];
                        let be = random_entries(&shape, density, case_seed(seed, &shape, 0));
                        let ce = random_entries(&shape, other_density(density, seed, 1), case_seed(seed, &shape, 1));
                        let de = random_entries(&shape, other_density(density, seed, 2), case_seed(seed, &shape, 2));
                        let b: $($B)* = build(&shape, &be);
                        let c: $($C)* = build(&shape, &ce);
                        let d: $($D)* = build(&shape, &de);
                        let (bd, cd, dd) = (
                            DenseT::from_entries(&shape, &be),
                            DenseT::from_entries(&shape, &ce),
                            DenseT::from_entries(&shape, &de),
                        );
                        let mut expected = DenseT::zeros(&shape);
                        for i in 0..n {
                            expected.set(&[i], bd.get(&[i]) * cd.get(&[i]) + dd.get(&[i]));
                        }
                        let mut a: $($A)* = build(&shape, &stale(&shape, seed));
                        kernel(&mut a, &b, &c, &d).unwrap();
                        assert_close(&a.to_dense(), &expected, f64::TOL, (n, density, seed));
                    });
                }
            }

            #[test]
            fn shape_mismatch_is_err() {
                let b: $($B)* = build(&[4], &random_entries(&[4], 1.0, 1));
                let c: $($C)* = build(&[4], &random_entries(&[4], 1.0, 2));
                let d: $($D)* = build(&[4], &random_entries(&[4], 1.0, 3));
                let d_short: $($D)* = build(&[3], &random_entries(&[3], 1.0, 3));
                let mut a: $($A)* = build(&[4], &[]);
                assert!(kernel(&mut a, &b, &c, &d_short).is_err());
                let mut a_long: $($A)* = build(&[5], &[]);
                assert!(kernel(&mut a_long, &b, &c, &d).is_err());
                assert!(kernel(&mut a, &b, &c, &d).is_ok());
            }
        }
    };
}

/// Every SparseVec/Dense1 combination of the three inputs for one output.
macro_rules! fma_inputs {
    ([$($A:tt)*]) => {
        fma_case!(ddd, [$($A)*], [Dense1<f64>], [Dense1<f64>], [Dense1<f64>]);
        fma_case!(dds, [$($A)*], [Dense1<f64>], [Dense1<f64>], [SparseVec<f64>]);
        fma_case!(dsd, [$($A)*], [Dense1<f64>], [SparseVec<f64>], [Dense1<f64>]);
        fma_case!(dss, [$($A)*], [Dense1<f64>], [SparseVec<f64>], [SparseVec<f64>]);
        fma_case!(sdd, [$($A)*], [SparseVec<f64>], [Dense1<f64>], [Dense1<f64>]);
        fma_case!(sds, [$($A)*], [SparseVec<f64>], [Dense1<f64>], [SparseVec<f64>]);
        fma_case!(ssd, [$($A)*], [SparseVec<f64>], [SparseVec<f64>], [Dense1<f64>]);
        fma_case!(sss, [$($A)*], [SparseVec<f64>], [SparseVec<f64>], [SparseVec<f64>]);
    };
}

mod fma_into_dense1 {
    use super::*;
    fma_inputs!([Dense1<f64>]);
}

mod fma_into_sparsevec {
    use super::*;
    fma_inputs!([SparseVec<f64>]);
}

/// `y(i) = -(a(i) / c(i))` with a dense, never-zero divisor.
macro_rules! negdiv_case {
    ($name:ident, [$($Y:tt)*], [$($A:tt)*]) => {
        mod $name {
            use super::*;

            sparse_kernel! {
                pub fn kernel(y: &mut $($Y)*, a: &$($A)*, c: &Dense1<f64>) {
                    y(i) = -(a(i) / c(i))
                }
            }

            #[test]
            fn matches_oracle() {
                for n in VECTOR_LENGTHS {
                    sweep(|density, seed| {
                        let shape = [n];
                        let ae = random_entries(&shape, density, case_seed(seed, &shape, 0));
                        let ce = nonzero_entries(&shape, case_seed(seed, &shape, 1));
                        let a: $($A)* = build(&shape, &ae);
                        let c: Dense1<f64> = build(&shape, &ce);
                        let (ad, cd) = (DenseT::from_entries(&shape, &ae), DenseT::from_entries(&shape, &ce));
                        let mut expected = DenseT::zeros(&shape);
                        for i in 0..n {
                            expected.set(&[i], -(ad.get(&[i]) / cd.get(&[i])));
                        }
                        let mut y: $($Y)* = build(&shape, &stale(&shape, seed));
                        kernel(&mut y, &a, &c).unwrap();
                        assert_close(&y.to_dense(), &expected, f64::TOL, (n, density, seed));
                    });
                }
            }

            #[test]
            fn shape_mismatch_is_err() {
                let a: $($A)* = build(&[4], &random_entries(&[4], 1.0, 1));
                let c = Dense1::from_vec(vec![1.0; 3]);
                let mut y: $($Y)* = build(&[4], &[]);
                assert!(kernel(&mut y, &a, &c).is_err());
            }
        }
    };
}

negdiv_case!(negdiv_dense_dense, [Dense1<f64>], [Dense1<f64>]);
negdiv_case!(negdiv_dense_sparse, [Dense1<f64>], [SparseVec<f64>]);
negdiv_case!(negdiv_sparse_dense, [SparseVec<f64>], [Dense1<f64>]);
negdiv_case!(negdiv_sparse_sparse, [SparseVec<f64>], [SparseVec<f64>]);

/// Further element-wise statements (unary minus, literals, an operand used
/// twice, division by a dense matrix): `c(i,j) = f(a(i,j), b(i,j))` against
/// the scalar function `f`. With `nonzero_b`, `b` has no zero component.
macro_rules! ew_extra_case {
    ($name:ident, [$($C:tt)*], [$($A:tt)*], [$($B:tt)*], $body:tt, $f:expr, $nonzero_b:expr) => {
        mod $name {
            use super::*;

            sparse_kernel! {
                pub fn kernel(c: &mut $($C)*, a: &$($A)*, b: &$($B)*) $body
            }

            #[test]
            fn matches_oracle() {
                let f: fn(f64, f64) -> f64 = $f;
                for shape in MATRIX_SHAPES {
                    sweep(|density, seed| {
                        let (ae, mut be) = pair(&shape, density, seed);
                        if $nonzero_b {
                            be = nonzero_entries(&shape, seed);
                        }
                        let a: $($A)* = build(&shape, &ae);
                        let b: $($B)* = build(&shape, &be);
                        let (ad, bd) = (DenseT::from_entries(&shape, &ae), DenseT::from_entries(&shape, &be));
                        let mut expected = DenseT::zeros(&shape);
                        for i in 0..shape[0] {
                            for j in 0..shape[1] {
                                expected.set(&[i, j], f(ad.get(&[i, j]), bd.get(&[i, j])));
                            }
                        }
                        let mut c: $($C)* = build(&shape, &stale(&shape, seed));
                        kernel(&mut c, &a, &b).unwrap();
                        assert_close(&c.to_dense(), &expected, f64::TOL, (shape, density, seed));
                    });
                }
            }
        }
    };
}

/// One extra statement over several format triples `(c, a, b)`.
macro_rules! ew_extra_family {
    (
        $family:ident, $body:tt, $f:expr, nonzero_b = $nz:expr,
        [$($fmt:ident: [$($C:tt)*], [$($A:tt)*], [$($B:tt)*]);* $(;)?]
    ) => {
        mod $family {
            use super::*;
            $(
                ew_extra_case!($fmt, [$($C)*], [$($A)*], [$($B)*], $body, $f, $nz);
            )*
        }
    };
}

ew_extra_family!(
    negated_sum,
    { c(i, j) = -a(i, j) - b(i, j) },
    |a, b| -a - b,
    nonzero_b = false,
    [
        csr_csr_coo: [Csr<f64>], [Csr<f64>], [Coo<f64>];
        dense2_dcsr_csr: [Dense2<f64>], [Dcsr<f64>], [Csr<f64>];
        csr_dense2_dcsr: [Csr<f64>], [Dense2<f64>], [Dcsr<f64>];
    ]
);

ew_extra_family!(
    negated_product,
    { c(i, j) = -(a(i, j) * b(i, j)) },
    |a, b| -(a * b),
    nonzero_b = false,
    [
        csr_coo_csr: [Csr<f64>], [Coo<f64>], [Csr<f64>];
        dense2_dcsr_dense2: [Dense2<f64>], [Dcsr<f64>], [Dense2<f64>];
    ]
);

ew_extra_family!(
    literal_fill,
    { c(i, j) = a(i, j) + 1.0 - b(i, j) },
    |a, b| a + 1.0 - b,
    nonzero_b = false,
    [
        dense2_csr_coo: [Dense2<f64>], [Csr<f64>], [Coo<f64>];
        csr_dcsr_csr: [Csr<f64>], [Dcsr<f64>], [Csr<f64>];
        dense2_coo_dcsr: [Dense2<f64>], [Coo<f64>], [Dcsr<f64>];
    ]
);

ew_extra_family!(
    literal_in_product,
    { c(i, j) = (a(i, j) + 1.0) * b(i, j) },
    |a, b| (a + 1.0) * b,
    nonzero_b = false,
    [
        csr_csr_coo: [Csr<f64>], [Csr<f64>], [Coo<f64>];
        dense2_coo_dcsr: [Dense2<f64>], [Coo<f64>], [Dcsr<f64>];
        csr_dense2_csr: [Csr<f64>], [Dense2<f64>], [Csr<f64>];
    ]
);

ew_extra_family!(
    operand_used_twice,
    { c(i, j) = a(i, j) * a(i, j) - 0.5 * (a(i, j) - b(i, j) * 3.0) },
    |a, b| a * a - 0.5 * (a - b * 3.0),
    nonzero_b = false,
    [
        csr_csr_coo: [Csr<f64>], [Csr<f64>], [Coo<f64>];
        csr_coo_dcsr: [Csr<f64>], [Coo<f64>], [Dcsr<f64>];
        dense2_dcsr_csr: [Dense2<f64>], [Dcsr<f64>], [Csr<f64>];
    ]
);

ew_extra_family!(
    divided_by_dense,
    { c(i, j) = a(i, j) / b(i, j) },
    |a, b| a / b,
    nonzero_b = true,
    [
        csr_csr_dense2: [Csr<f64>], [Csr<f64>], [Dense2<f64>];
        csr_coo_dense2: [Csr<f64>], [Coo<f64>], [Dense2<f64>];
        dense2_dcsr_dense2: [Dense2<f64>], [Dcsr<f64>], [Dense2<f64>];
    ]
);

/// `c(i,j) = a(i,j) OP b(j,i)`: `b` is accessed transposed, so a CSC `b`
/// is traversed in the same order as a CSR `a`.
macro_rules! transposed_case {
    ($name:ident, $op:tt, [$($C:tt)*], [$($A:tt)*], [$($B:tt)*]) => {
        mod $name {
            use super::*;

            sparse_kernel! {
                pub fn kernel(c: &mut $($C)*, a: &$($A)*, b: &$($B)*) {
                    c(i, j) = a(i, j) $op b(j, i)
                }
            }

            #[test]
            fn matches_oracle() {
                for shape in MATRIX_SHAPES {
                    sweep(|density, seed| {
                        let [m, n] = shape;
                        let ae = random_entries(&shape, density, case_seed(seed, &shape, 0));
                        let be = random_entries(&[n, m], other_density(density, seed, 1), case_seed(seed, &shape, 1));
                        let a: $($A)* = build(&shape, &ae);
                        let b: $($B)* = build(&[n, m], &be);
                        let (ad, bd) = (DenseT::from_entries(&shape, &ae), DenseT::from_entries(&[n, m], &be));
                        let mut expected = DenseT::zeros(&shape);
                        for i in 0..m {
                            for j in 0..n {
                                expected.set(&[i, j], ad.get(&[i, j]) $op bd.get(&[j, i]));
                            }
                        }
                        let mut c: $($C)* = build(&shape, &stale(&shape, seed));
                        kernel(&mut c, &a, &b).unwrap();
                        assert_close(&c.to_dense(), &expected, f64::TOL, (shape, density, seed));
                    });
                }
            }

            #[test]
            fn shape_mismatch_is_err() {
                let a: $($A)* = build(&[3, 4], &random_entries(&[3, 4], 0.5, 1));
                let b: $($B)* = build(&[3, 4], &random_entries(&[3, 4], 0.5, 2));
                let mut c: $($C)* = build(&[3, 4], &[]);
                assert!(kernel(&mut c, &a, &b).is_err());
            }
        }
    };
}

transposed_case!(transposed_add_csr_csc, +, [Csr<f64>], [Csr<f64>], [Csc<f64>]);
transposed_case!(transposed_sub_coo_csc, -, [Csr<f64>], [Coo<f64>], [Csc<f64>]);
transposed_case!(transposed_mul_dcsr_csc, *, [Dense2<f64>], [Dcsr<f64>], [Csc<f64>]);
transposed_case!(transposed_add_csr_dense2, +, [Csr<f64>], [Csr<f64>], [Dense2<f64>]);
transposed_case!(transposed_mul_coo_dense2, *, [Csr<f64>], [Coo<f64>], [Dense2<f64>]);
transposed_case!(transposed_sub_csc_csr_into_csc, -, [Csc<f64>], [Csc<f64>], [Csr<f64>]);
