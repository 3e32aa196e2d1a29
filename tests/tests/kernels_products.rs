//! Product kernels against a dense oracle: SpMM `C = A B`, SDDMM
//! `A = B .* (C D)`, and inner products of vectors and order-3 tensors into
//! a scalar output.
#![deny(warnings)]

use sparse_runtime::prelude::*;
use sparse_tests::*;

/// Inner (contracted) dimensions used with every matrix shape.
const INNER: [usize; 3] = [0, 1, 5];

/// SpMM `c(i,j) = a(i,k) * b(k,j)` (and `+=`) for one format of `a`; `b`
/// and `c` are Dense2.
macro_rules! spmm_case {
    ($name:ident, [$($A:tt)*]) => {
        mod $name {
            use super::*;

            sparse_kernel! {
                pub fn spmm(c: &mut Dense2<f64>, a: &$($A)*, b: &Dense2<f64>) {
                    c(i, j) = a(i, k) * b(k, j)
                }

                pub fn spmm_acc(c: &mut Dense2<f64>, a: &$($A)*, b: &Dense2<f64>) {
                    c(i, j) += a(i, k) * b(k, j)
                }
            }

            #[test]
            fn matches_oracle() {
                for [m, k] in MATRIX_SHAPES {
                    for n in INNER {
                        sweep(|density, seed| {
                            let ae = random_entries(&[m, k], density, case_seed(seed, &[m, k, n], 0));
                            let be = random_entries(&[k, n], other_density(density, seed, 1), case_seed(seed, &[m, k, n], 1));
                            let a: $($A)* = build(&[m, k], &ae);
                            let b: Dense2<f64> = build(&[k, n], &be);
                            let expected = matmul(&DenseT::from_entries(&[m, k], &ae), &DenseT::from_entries(&[k, n], &be));
                            let case = ([m, k, n], density, seed);

                            let c0 = nonzero_entries(&[m, n], seed);
                            let mut c: Dense2<f64> = build(&[m, n], &c0);
                            spmm(&mut c, &a, &b).unwrap();
                            assert_close(&c.to_dense(), &expected, f64::TOL, case);

                            let mut c: Dense2<f64> = build(&[m, n], &c0);
                            let mut acc = DenseT::from_entries(&[m, n], &c0);
                            for (x, e) in acc.data.iter_mut().zip(&expected.data) {
                                *x += e;
                            }
                            spmm_acc(&mut c, &a, &b).unwrap();
                            assert_close(&c.to_dense(), &acc, f64::TOL, case);
                        });
                    }
                }
            }

            #[test]
            fn shape_mismatch_is_err() {
                let a: $($A)* = build(&[3, 4], &random_entries(&[3, 4], 0.5, 1));
                let b = Dense2::<f64>::zeros(4, 2);
                let b_bad = Dense2::<f64>::zeros(5, 2);
                let mut c = Dense2::<f64>::zeros(3, 2);
                assert!(spmm(&mut c, &a, &b_bad).is_err());
                let mut c_bad = Dense2::<f64>::zeros(3, 3);
                assert!(spmm(&mut c_bad, &a, &b).is_err());
                assert!(spmm_acc(&mut c_bad, &a, &b).is_err());
                assert!(spmm(&mut c, &a, &b).is_ok());
            }
        }
    };
}

spmm_case!(spmm_csr, [Csr<f64>]);
spmm_case!(spmm_csc, [Csc<f64>]);
spmm_case!(spmm_dcsr, [Dcsr<f64>]);
spmm_case!(spmm_coo, [Coo<f64>]);
spmm_case!(spmm_dense2, [Dense2<f64>]);

/// SDDMM `a(i,j) = b(i,j) * c(i,k) * d(k,j)` for one output and one
/// sampling format; `c` and `d` are Dense2.
macro_rules! sddmm_case {
    ($name:ident, [$($A:tt)*], [$($B:tt)*]) => {
        mod $name {
            use super::*;

            sparse_kernel! {
                pub fn sddmm(a: &mut $($A)*, b: &$($B)*, c: &Dense2<f64>, d: &Dense2<f64>) {
                    a(i, j) = b(i, j) * c(i, k) * d(k, j)
                }
            }

            #[test]
            fn matches_oracle() {
                for [m, n] in MATRIX_SHAPES {
                    for k in INNER {
                        sweep(|density, seed| {
                            let s = case_seed(seed, &[m, n, k], 0);
                            let be = random_entries(&[m, n], density, s);
                            let ce = random_entries(&[m, k], other_density(density, seed, 1), s + 1);
                            let de = random_entries(&[k, n], other_density(density, seed, 2), s + 2);
                            let b: $($B)* = build(&[m, n], &be);
                            let c: Dense2<f64> = build(&[m, k], &ce);
                            let d: Dense2<f64> = build(&[k, n], &de);
                            let (bd, cd, dd) = (
                                DenseT::from_entries(&[m, n], &be),
                                DenseT::from_entries(&[m, k], &ce),
                                DenseT::from_entries(&[k, n], &de),
                            );
                            let mut expected = DenseT::zeros(&[m, n]);
                            for i in 0..m {
                                for j in 0..n {
                                    let mut s = 0.0;
                                    for l in 0..k {
                                        s += bd.get(&[i, j]) * cd.get(&[i, l]) * dd.get(&[l, j]);
                                    }
                                    expected.set(&[i, j], s);
                                }
                            }
                            let mut a: $($A)* = build(&[m, n], &random_entries(&[m, n], 0.5, seed));
                            sddmm(&mut a, &b, &c, &d).unwrap();
                            assert_close(&a.to_dense(), &expected, f64::TOL, ([m, n, k], density, seed));
                        });
                    }
                }
            }

            #[test]
            fn shape_mismatch_is_err() {
                let b: $($B)* = build(&[3, 4], &random_entries(&[3, 4], 0.5, 1));
                let c = Dense2::<f64>::zeros(3, 2);
                let d = Dense2::<f64>::zeros(2, 4);
                let d_bad = Dense2::<f64>::zeros(3, 4);
                let mut a: $($A)* = build(&[3, 4], &[]);
                assert!(sddmm(&mut a, &b, &c, &d_bad).is_err());
                let mut a_bad: $($A)* = build(&[4, 4], &[]);
                assert!(sddmm(&mut a_bad, &b, &c, &d).is_err());
                assert!(sddmm(&mut a, &b, &c, &d).is_ok());
            }
        }
    };
}

sddmm_case!(sddmm_csr_csr, [Csr<f64>], [Csr<f64>]);
sddmm_case!(sddmm_csr_coo, [Csr<f64>], [Coo<f64>]);
sddmm_case!(sddmm_dense2_csr, [Dense2<f64>], [Csr<f64>]);

/// `out = b(i) * c(i)` for one pair of vector formats.
macro_rules! dot_case {
    ($name:ident, [$($B:tt)*], [$($C:tt)*]) => {
        mod $name {
            use super::*;

            sparse_kernel! {
                pub fn dot(out: &mut f64, b: &$($B)*, c: &$($C)*) {
                    out = b(i) * c(i)
                }
            }

            #[test]
            fn matches_oracle() {
                for n in VECTOR_LENGTHS {
                    sweep(|density, seed| {
                        let shape = [n];
                        let be = random_entries(&shape, density, case_seed(seed, &shape, 0));
                        let ce = random_entries(&shape, other_density(density, seed, 1), case_seed(seed, &shape, 1));
                        let b: $($B)* = build(&shape, &be);
                        let c: $($C)* = build(&shape, &ce);
                        let (bd, cd) = (DenseT::from_entries(&shape, &be), DenseT::from_entries(&shape, &ce));
                        let mut expected = 0.0;
                        for i in 0..n {
                            expected += bd.get(&[i]) * cd.get(&[i]);
                        }
                        let mut out = 123.5;
                        dot(&mut out, &b, &c).unwrap();
                        assert_scalar_close(out, expected, f64::TOL, (n, density, seed));
                    });
                }
            }

            #[test]
            fn shape_mismatch_is_err() {
                let b: $($B)* = build(&[4], &random_entries(&[4], 1.0, 1));
                let c: $($C)* = build(&[5], &random_entries(&[5], 1.0, 2));
                let mut out = 0.0;
                assert!(dot(&mut out, &b, &c).is_err());
            }
        }
    };
}

dot_case!(dot_dense_dense, [Dense1<f64>], [Dense1<f64>]);
dot_case!(dot_dense_sparse, [Dense1<f64>], [SparseVec<f64>]);
dot_case!(dot_sparse_dense, [SparseVec<f64>], [Dense1<f64>]);
dot_case!(dot_sparse_sparse, [SparseVec<f64>], [SparseVec<f64>]);

/// `out = b(i,j,k) * c(i,j,k)` for one pair of order-3 formats.
macro_rules! inner3_case {
    ($name:ident, [$($B:tt)*], [$($C:tt)*]) => {
        mod $name {
            use super::*;

            sparse_kernel! {
                pub fn inner(out: &mut f64, b: &$($B)*, c: &$($C)*) {
                    out = b(i, j, k) * c(i, j, k)
                }
            }

            #[test]
            fn matches_oracle() {
                for shape in TENSOR3_SHAPES {
                    sweep(|density, seed| {
                        let be = random_entries(&shape, density, case_seed(seed, &shape, 0));
                        let ce = random_entries(&shape, other_density(density, seed, 1), case_seed(seed, &shape, 1));
                        let b: $($B)* = build(&shape, &be);
                        let c: $($C)* = build(&shape, &ce);
                        let (bd, cd) = (DenseT::from_entries(&shape, &be), DenseT::from_entries(&shape, &ce));
                        let mut expected = 0.0;
                        for i in 0..shape[0] {
                            for j in 0..shape[1] {
                                for k in 0..shape[2] {
                                    expected += bd.get(&[i, j, k]) * cd.get(&[i, j, k]);
                                }
                            }
                        }
                        let mut out = -7.25;
                        inner(&mut out, &b, &c).unwrap();
                        assert_scalar_close(out, expected, f64::TOL, (shape, density, seed));
                    });
                }
            }

            #[test]
            fn shape_mismatch_is_err() {
                let b: $($B)* = build(&[2, 3, 4], &random_entries(&[2, 3, 4], 1.0, 1));
                let c: $($C)* = build(&[2, 3, 5], &random_entries(&[2, 3, 5], 1.0, 2));
                let mut out = 0.0;
                assert!(inner(&mut out, &b, &c).is_err());
            }
        }
    };
}

inner3_case!(inner3_csf3_csf3, [Csf3<f64>], [Csf3<f64>]);
inner3_case!(inner3_csf3_coo3, [Csf3<f64>], [Coo3<f64>]);
inner3_case!(inner3_csf3_dense3, [Csf3<f64>], [Dense3<f64>]);
inner3_case!(inner3_coo3_csf3, [Coo3<f64>], [Csf3<f64>]);
inner3_case!(inner3_coo3_coo3, [Coo3<f64>], [Coo3<f64>]);
inner3_case!(inner3_coo3_dense3, [Coo3<f64>], [Dense3<f64>]);
inner3_case!(inner3_dense3_csf3, [Dense3<f64>], [Csf3<f64>]);
inner3_case!(inner3_dense3_coo3, [Dense3<f64>], [Coo3<f64>]);
inner3_case!(inner3_dense3_dense3, [Dense3<f64>], [Dense3<f64>]);

/// Further scalar outputs: `+=`, a reduction over a sum, and a matrix
/// reduction with a scalar parameter; `b` and `c` are matrices of the given
/// formats.
macro_rules! scalar_extra_case {
    ($name:ident, [$($B:tt)*], [$($C:tt)*]) => {
        mod $name {
            use super::*;

            sparse_kernel! {
                pub fn dot_acc(out: &mut f64, b: &$($B)*, c: &$($C)*) {
                    out += b(i, j) * c(i, j)
                }

                pub fn total(out: &mut f64, b: &$($B)*, c: &$($C)*) {
                    out = b(i, j) - c(i, j)
                }

                pub fn scaled(out: &mut f64, alpha: f64, b: &$($B)*) {
                    out = alpha * b(i, j) + 0.5
                }
            }

            #[test]
            fn matches_oracle() {
                for shape in MATRIX_SHAPES {
                    sweep(|density, seed| {
                        let be = random_entries(&shape, density, case_seed(seed, &shape, 0));
                        let ce = random_entries(&shape, other_density(density, seed, 1), case_seed(seed, &shape, 1));
                        let b: $($B)* = build(&shape, &be);
                        let c: $($C)* = build(&shape, &ce);
                        let (bd, cd) = (DenseT::from_entries(&shape, &be), DenseT::from_entries(&shape, &ce));
                        let (mut dot, mut diff, mut sum_b) = (0.0, 0.0, 0.0);
                        for i in 0..shape[0] {
                            for j in 0..shape[1] {
                                dot += bd.get(&[i, j]) * cd.get(&[i, j]);
                                diff += bd.get(&[i, j]) - cd.get(&[i, j]);
                                sum_b += bd.get(&[i, j]);
                            }
                        }
                        let case = (shape, density, seed);
                        let mut out = 10.0;
                        dot_acc(&mut out, &b, &c).unwrap();
                        assert_scalar_close(out, 10.0 + dot, f64::TOL, case);
                        total(&mut out, &b, &c).unwrap();
                        assert_scalar_close(out, diff, f64::TOL, case);
                        scaled(&mut out, 3.0, &b).unwrap();
                        // `i` and `j` are summed over `b(i, j)` alone, the smallest
                        // subexpression holding them: alpha * sum(b) + 0.5.
                        assert_scalar_close(out, 3.0 * sum_b + 0.5, f64::TOL, case);
                    });
                }
            }
        }
    };
}

scalar_extra_case!(scalar_csr_coo, [Csr<f64>], [Coo<f64>]);
scalar_extra_case!(scalar_dcsr_dense2, [Dcsr<f64>], [Dense2<f64>]);
scalar_extra_case!(scalar_dense2_csr, [Dense2<f64>], [Csr<f64>]);
scalar_extra_case!(scalar_coo_dcsr, [Coo<f64>], [Dcsr<f64>]);
